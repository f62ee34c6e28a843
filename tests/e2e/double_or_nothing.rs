//! Double or nothing (issue 37), against a real nats-server: a four-seat sit & go at EUR 10 + 1
//! cut at half (003 App. 1 b xi: "vyhrává polovina účastníků hazardní hry dvojnásobek
//! buy-inu. Turnaj končí v okamžiku, kdy je vyřazena polovina jeho účastníků"; 004 §4.36.16
//! the same) is played to its stop: heads-up, with two left, registration finishes it shared by
//! the two, and each is paid 2 × the EUR 10 prize-pool part (the fee not included: the texts'
//! buy-in includes it, Floor's prize does not; `floor_rules::satellite`). The books balance via
//! `floor.cmd.payouts.books`. A double bust across the cut (three left, two out in one hand)
//! pays the bigger stack its prize and the smaller nothing. The stop's hand at two tables,
//! hand-for-hand, the bigger stack's table reporting first: payouts ranks the hand together and
//! names the bigger stack a survivor (issues 36/37: the stop is payouts').

use floor_events::bubble::{HandForHandClock, HandForHandSettings, Trigger};
use floor_events::payouts::{Books, BooksRequest, PayoutEvent, PlaceAward};
use floor_events::registration::TournamentEvent;
use floor_events::shootouts::CutTerms;
use floor_events::table::{BustReport, Instruction, PotWon, Report, SeatStack, TableInstruction, TableReport};
use floor_events::tournament::TournamentDefinition;
use floor_events::{subjects, EntryNo, Reply, TournamentId};
use floor_tests::{four_handed, World};
use std::collections::BTreeMap;

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

/// The books once payouts has paid the game (its `tournament_paid`; the books answer once
/// payouts has read the log that far).
async fn paid_books(world: &World, t: TournamentId) -> Books {
    let mut payouts = world.watch_events::<floor_events::payouts::PayoutEvent>(subjects::aggregate::PAYOUTS, t).await;
    payouts.next_where(|e| matches!(e, floor_events::payouts::PayoutEvent::TournamentPaid { .. })).await;
    match world.request(subjects::service::PAYOUTS, "books", &BooksRequest { tournament_id: t }).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("books"),
        Reply::Error(e) => panic!("books refused: {e:?}"),
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

/// Publishes `report` from `table` of `t`, as that table's server would.
async fn report_at(world: &World, t: TournamentId, table: u32, id: &str, report: Report) {
    let body = serde_json::to_vec(&TableReport { tournament_id: t, table, report_id: id.into(), report }).expect("report");
    let id = floor_events::table::report_message_id(t, table, id);
    let message = async_nats::jetstream::message::PublishMessage::build().payload(body.into()).message_id(id);
    let subject = floor_events::table::reports_subject(t, table);
    world.jetstream().send_publish(subject, message).await.expect("publish").await.expect("ack");
}

/// One hand at `table` (its own `hand`, dealt on hand-for-hand's `deal_hand` if given): the
/// stacks `before`, then `after`, with `busts` (each out with its whole stack, won by `after`'s
/// first seat).
async fn deal(
    world: &World,
    t: TournamentId,
    table: u32,
    (hand, deal_hand): (u64, Option<u64>),
    before: &[SeatStack],
    after: &[SeatStack],
) {
    let tag = format!("{table}-{hand}");
    let start = Report::HandStarted { hand, button: before[0].seat, stacks: before.to_vec(), deal_hand };
    report_at(world, t, table, &format!("{tag}-start"), start).await;
    let busts: Vec<BustReport> = before
        .iter()
        .filter(|s| after.iter().all(|a| a.entry != s.entry))
        .map(|s| BustReport {
            entry: s.entry,
            stack_at_start: s.chips,
            pots: vec![PotWon { winners: vec![after[0].entry], chips: s.chips }],
            best_high_hand: None,
        })
        .collect();
    report_at(world, t, table, &format!("{tag}-end"), Report::HandFinished { hand, stacks: after.to_vec(), busts }).await;
}

/// `seats` after `winner` (an index) takes every chip of the seats at `losers` (indexes).
fn takes(seats: &[SeatStack], winner: usize, losers: &[usize]) -> Vec<SeatStack> {
    let won: u64 = losers.iter().map(|&l| seats[l].chips).sum();
    seats
        .iter()
        .enumerate()
        .filter(|(i, _)| !losers.contains(i))
        .map(|(i, s)| if i == winner { SeatStack { chips: s.chips + won, ..*s } } else { *s })
        .collect()
}

/// Waits until both tables have been told to deal hand-for-hand hand `hand`.
async fn released(world: &World, t: TournamentId, tables: [u32; 2], hand: u64) {
    let wanted = Instruction::DealHand { hand };
    world.instructions_when(t, |i| tables.iter().all(|&table| i.iter().any(|x| x.table == table && x.instruction == wanted))).await;
}

/// Issues 36/37, the stop's hand at two tables reported in the "wrong" order: a ten-seat double
/// or nothing (five prizes of 2,000) at two tables of five, hand-for-hand from six left (its
/// boundary the five prizes). In one hand-for-hand hand table B's player out with 10,000 chips
/// at the start and table A's out with 5,000 leave four; table B (the bigger stack) reports
/// first. Registration, deciding by arrival, would have stopped at the bigger stack and named
/// the smaller a survivor; payouts ranks the hand together and stops it: the bigger stack is 5th
/// with a prize and shares the end, the smaller is 6th with nothing, and the books balance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stops_hand_at_two_tables_gives_the_prize_to_the_bigger_stack_whatever_table_reports_first() {
    let world = World::start().await;
    let settings = HandForHandSettings {
        trigger: Some(Trigger::PlayersBeforeBubble { players: 1 }),
        boundary: None,
        clock: Some(HandForHandClock::Normal),
        ordering: None,
    };
    let definition =
        TournamentDefinition { capacity: 10, min_players: 10, table_size: 5, hand_for_hand: Some(settings), ..double_or_nothing() };
    let t = world.create(definition).await;
    for p in ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon"] {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    let seated = |i: &[TableInstruction]| i.iter().filter(|i| matches!(i.instruction, Instruction::SeatPlayer { .. })).count() == 10;
    let mut tables: BTreeMap<u32, Vec<SeatStack>> = BTreeMap::new();
    for i in world.instructions_when(t, seated).await {
        if let Instruction::SeatPlayer { entry, seat, stack, .. } = i.instruction {
            tables.entry(i.table).or_default().push(SeatStack { seat, entry, chips: stack });
        }
    }
    let numbers: Vec<u32> = tables.keys().copied().collect();
    let [a, b] = numbers[..] else { panic!("two tables of five: {tables:?}") };
    let (mut at_a, mut at_b) = (tables[&a].clone(), tables[&b].clone());
    at_a.sort_by_key(|s| s.seat);
    at_b.sort_by_key(|s| s.seat);
    // Four out, two at each table, seat 0 taking them: six left, hand-for-hand from there.
    for (hand, table) in [(1, a), (1, b), (2, a), (2, b)] {
        let seats = if table == a { &mut at_a } else { &mut at_b };
        let after = takes(seats, 0, &[1]);
        deal(&world, t, table, (hand, None), seats, &after).await;
        *seats = after;
    }
    released(&world, t, [a, b], 1).await;
    // Hand-for-hand hand 1: at A seat 1 wins half of seat 2's chips; B's hand changes nothing.
    let half = at_a[2].chips / 2;
    let moved = vec![at_a[0], SeatStack { chips: at_a[1].chips + half, ..at_a[1] }, SeatStack { chips: at_a[2].chips - half, ..at_a[2] }];
    deal(&world, t, a, (3, Some(1)), &at_a, &moved).await;
    at_a = moved;
    deal(&world, t, b, (3, Some(1)), &at_b, &at_b).await;
    released(&world, t, [a, b], 2).await;
    // Hand-for-hand hand 2: B's seat 0 busts seat 1 (the bigger stack), reported first; then A's
    // seat 0 busts seat 2 (the smaller).
    let (big, small) = (at_b[1], at_a[2]);
    assert!(big.chips > small.chips, "{big:?} {small:?}");
    let after_b = takes(&at_b, 0, &[1]);
    deal(&world, t, b, (4, Some(2)), &at_b, &after_b).await;
    let after_a = takes(&at_a, 0, &[2]);
    deal(&world, t, a, (4, Some(2)), &at_a, &after_a).await;
    // Then the bigger stack is 5th with a prize and shares the end; the smaller 6th with nothing.
    let books = paid_books(&world, t).await;
    let awards = awards(&world, t).await;
    let place = |entry: EntryNo| awards.iter().find(|a| a.entry == entry).map(|a| (a.place, a.amount));
    assert_eq!((place(big.entry), place(small.entry)), (Some((5, 2_000)), Some((6, 0))), "{awards:?}");
    let mut left: Vec<EntryNo> = after_a.iter().chain(&after_b).map(|s| s.entry).chain([big.entry]).collect();
    left.sort();
    assert_eq!(shared_by(&world, t).await, left, "the four at the tables and the bigger stack share the end");
    for entry in &left {
        assert_eq!(paid(&awards, *entry), 2_000, "survivor {entry}: {awards:?}");
    }
    assert_eq!(awards.len(), 10, "every entry placed once: {awards:?}");
    assert!(books.finished && books.balanced, "{books:?}");
    assert_eq!((books.prize_pool, books.prizes_paid), (10_000, 10_000));
}
