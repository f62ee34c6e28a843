//! Double or nothing (issue 37), against a real nats-server: a four-seat sit & go at EUR 10 + 1
//! cut at half (003 App. 1 b xi: "vyhrává polovina účastníků hazardní hry dvojnásobek
//! buy-inu. Turnaj končí v okamžiku, kdy je vyřazena polovina jeho účastníků"; 004 §4.36.16
//! the same) is played to its stop: heads-up, with two left, registration finishes it shared by
//! the two, and each is paid 2 × the EUR 10 prize-pool part (the fee not included: the texts'
//! buy-in includes it, Floor's prize does not; `floor_rules::satellite`). The books balance via
//! `floor.cmd.payouts.books`. A double bust across the cut (three left, two out in one hand)
//! pays the bigger stack its prize and the smaller nothing.

use floor_events::payouts::{Books, BooksRequest, PayoutEvent, PlaceAward};
use floor_events::registration::TournamentEvent;
use floor_events::shootouts::CutTerms;
use floor_events::table::{BustReport, PotWon, Report, SeatStack};
use floor_events::tournament::TournamentDefinition;
use floor_events::{subjects, EntryNo, Reply, TournamentId};
use floor_tests::{four_handed, World};
use std::time::Duration;

const NAMES: [&str; 4] = ["ann", "bob", "cat", "dan"];

/// Four seats at EUR 10 + 1, cut at half: two places of EUR 20.
fn double_or_nothing() -> TournamentDefinition {
    TournamentDefinition { name: "E2E Double or Nothing".into(), cut: Some(CutTerms { fraction: 2 }), ..four_handed() }
}

/// One hand at table 1: `winner` takes the whole stacks of `losers`. Returns the stacks after.
async fn hand(world: &World, t: TournamentId, hand: u64, seats: &[SeatStack], winner: SeatStack, losers: &[SeatStack]) -> Vec<SeatStack> {
    world
        .report(t, &format!("h{hand}-start"), Report::HandStarted { hand, button: winner.seat, stacks: seats.to_vec(), deal_hand: None })
        .await;
    let busts: Vec<BustReport> = losers
        .iter()
        .map(|l| BustReport {
            entry: l.entry,
            stack_at_start: l.chips,
            pots: vec![PotWon { winners: vec![winner.entry], chips: l.chips }],
            best_high_hand: None,
        })
        .collect();
    let won: u64 = losers.iter().map(|l| l.chips).sum();
    let after: Vec<SeatStack> = seats
        .iter()
        .filter(|s| losers.iter().all(|l| l.entry != s.entry))
        .map(|s| if s.entry == winner.entry { SeatStack { chips: s.chips + won, ..*s } } else { *s })
        .collect();
    world.report(t, &format!("h{hand}-end"), Report::HandFinished { hand, stacks: after.clone(), busts }).await;
    after
}

/// The game created and filled (the fourth seat starts it); the four seated.
async fn started(world: &World) -> (TournamentId, Vec<SeatStack>) {
    let t = world.create(double_or_nothing()).await;
    for p in NAMES {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    (t, world.seated(t, 4).await)
}

/// The books once payouts has paid the game (asked again until `finished`).
async fn paid_books(world: &World, t: TournamentId) -> Books {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        world.read_by(subjects::service::PAYOUTS, t, u64::MAX).await;
        let books: Books = match world.request(subjects::service::PAYOUTS, "books", &BooksRequest { tournament_id: t }).await {
            Reply::Ok(v) => serde_json::from_value(v).expect("books"),
            Reply::Error(e) => panic!("books refused: {e:?}"),
        };
        if books.finished || tokio::time::Instant::now() > deadline {
            return books;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every award in the game's payouts log.
async fn awards(world: &World, t: TournamentId) -> Vec<PlaceAward> {
    let subject = subjects::event_subject(subjects::aggregate::PAYOUTS, t.0);
    let commits: Vec<floor_runtime::store::StoredCommit<PayoutEvent>> =
        floor_runtime::JetStreamStore::new(&world.backbone).load(&subject, 0).await.expect("the payouts log");
    commits
        .into_iter()
        .flat_map(|c| c.events)
        .flat_map(|e| if let PayoutEvent::PlacesAwarded { awards, .. } = e { awards } else { vec![] })
        .collect()
}

fn paid(awards: &[PlaceAward], entry: EntryNo) -> u64 {
    awards.iter().filter(|a| a.entry == entry).map(|a| a.amount).sum()
}

/// Registration's stop: the entries `tournament_finished` is shared by.
async fn shared_by(world: &World, t: TournamentId) -> Vec<EntryNo> {
    let finished = world.commits(t).await.into_iter().flat_map(|c| c.events).find_map(|e| match e {
        TournamentEvent::TournamentFinished(f) => Some(f),
        _ => None,
    });
    let mut shared: Vec<EntryNo> = finished.expect("the game stops").shared_by.iter().map(|s| s.entry).collect();
    shared.sort();
    shared
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_four_seat_double_or_nothing_stops_heads_up_and_pays_each_survivor_twice_the_prize_pool_part() {
    let world = World::start().await;
    let (t, seats) = started(&world).await;
    // The first hand busts the second seated, the next the third: two are left.
    let three = hand(&world, t, 1, &seats, seats[0], &[seats[1]]).await;
    let two = hand(&world, t, 2, &three, three[0], &[three[1]]).await;
    // Registration stops the game shared by the two left.
    let mut left: Vec<EntryNo> = two.iter().map(|s| s.entry).collect();
    left.sort();
    let books = paid_books(&world, t).await;
    assert_eq!(shared_by(&world, t).await, left, "the two left share the end");
    // Each survivor is paid 2 × 1,000; the two out nothing; the books balance.
    let awards = awards(&world, t).await;
    for s in &two {
        assert_eq!(paid(&awards, s.entry), 2_000, "survivor {} is paid twice the prize-pool part: {awards:?}", s.entry);
    }
    for s in [seats[1], three[1]] {
        assert_eq!(paid(&awards, s.entry), 0, "{} is out before the cut", s.entry);
    }
    assert_eq!(awards.len(), 4, "every entry placed once: {awards:?}");
    assert!(books.finished && books.balanced, "{books:?}");
    assert_eq!(
        (books.paid_in, books.fees, books.prize_pool, books.prizes_paid, books.overlay, books.held),
        (4_400, 400, 4_000, 4_000, 0, 0)
    );
}

/// 004 §4.36.16 ("Turnaj končí v okamžiku, kdy je vyřazena polovina"): three left, two out in
/// one hand. The hand ranks them by the stacks they started it with: the smaller stack is third
/// with nothing, the bigger second with the prize, as much as the last player in; the books
/// balance, and registration's stop is shared by two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_bust_across_the_cut_pays_the_bigger_stack_and_not_the_smaller() {
    let world = World::start().await;
    let (t, seats) = started(&world).await;
    // Seat 0 busts seat 1: seat 0 has 2 stacks, seats 2 and 3 one each.
    let three = hand(&world, t, 1, &seats, seats[0], &[seats[1]]).await;
    // Hand 2: the second of the three takes half the third's chips, who is now the smaller stack.
    let half = three[2].chips / 2;
    let moved =
        vec![three[0], SeatStack { chips: three[1].chips + half, ..three[1] }, SeatStack { chips: three[2].chips - half, ..three[2] }];
    world.report(t, "h2-start", Report::HandStarted { hand: 2, button: three[0].seat, stacks: three.clone(), deal_hand: None }).await;
    world.report(t, "h2-end", Report::HandFinished { hand: 2, stacks: moved.clone(), busts: vec![] }).await;
    let three = moved;
    // When one hand busts both of them.
    let (winner, big, small) = (three[0], three[1], three[2]);
    let one = hand(&world, t, 3, &three, winner, &[big, small]).await;
    assert_eq!(one, vec![SeatStack { chips: winner.chips + big.chips + small.chips, ..winner }]);
    // Then the smaller stack is paid nothing, the bigger one and the winner 2,000 each.
    let books = paid_books(&world, t).await;
    let awards = awards(&world, t).await;
    assert_eq!(paid(&awards, small.entry), 0, "{awards:?}");
    assert_eq!(paid(&awards, big.entry), 2_000, "{awards:?}");
    assert_eq!(paid(&awards, winner.entry), 2_000, "{awards:?}");
    assert!(books.finished && books.balanced, "{books:?}");
    assert_eq!((books.prize_pool, books.prizes_paid), (4_000, 4_000));
    assert_eq!(shared_by(&world, t).await.len(), 2, "registration stops at the cut, two sharing the end");
}
