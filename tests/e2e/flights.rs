//! Flights (issue 36; 004 §4.36.11–13), against a real nats-server: Day 1s are created only for
//! an open Day 2 (`unknown_target`, `target_not_open`, nothing stored), and a Day 1 of four at a
//! 50 % share, started and played hand by hand, stops with two left: registration's
//! `tournament_finished` names both survivors, payouts pays nobody from the Day 1 (its pool is
//! the Day 2's), and seating's log holds the survivors' stacks, which the carry rule
//! (`floor_rules::flight::Day2Book`) takes into the Day 2. And a flight of three Day 1s into a
//! Day 2, end to end (`floor sim --format flights`), under best stack forward and stack builder
//! with a third of the players in all three Day 1s: every survivor carried by the satellites
//! service's flights policy (`register_carried`), the Day 2 seated by its own draw with the
//! carried stacks, the Day 1s' pools transferred (both books balanced, nothing held) and paid as
//! one prize pool in the Day 2, and `floor audit` ok for all four tournaments.

use floor_events::flights::{Carry, FlightTerms, Survivor};
use floor_events::registration::{verbs, CreateTournament, StartTournament, TournamentEvent};
use floor_events::seating::SeatingEvent;
use floor_events::tournament::TournamentDefinition;
use floor_events::{codes, subjects, CommandId, EntryNo, Reply, TournamentId};
use floor_rules::flight::{Carried, Day2Book};
use floor_tests::{freezeout, refusal_code, World};
use std::collections::BTreeMap;

/// The Day 2: an ordinary scheduled tournament tomorrow, no guarantee.
fn day2() -> TournamentDefinition {
    TournamentDefinition { name: "E2E Day 2".into(), guarantee: None, ..freezeout(100) }
}

/// A Day 1 of four seats feeding `day2`, half its field going through, best stack forward.
fn day1(day2: TournamentId) -> TournamentDefinition {
    TournamentDefinition {
        name: "E2E Day 1".into(),
        guarantee: None,
        capacity: 4,
        min_players: 2,
        flight: Some(FlightTerms { day2, survivors_share_bps: 5_000, carry: Carry::BestStack, one_day1_at_a_time: false }),
        ..freezeout(4)
    }
}

async fn create(world: &World, definition: TournamentDefinition) -> Reply<serde_json::Value> {
    let request = CreateTournament { command_id: CommandId::new(), tournament_id: None, definition };
    world.send(verbs::CREATE_TOURNAMENT.name(), &request).await
}

/// A Day 1 names an open Day 2: one that does not exist, or has started, is refused with the
/// satellite's codes, and nothing is stored.
#[tokio::test]
async fn a_day1_of_an_unknown_or_started_day2_is_refused() {
    let world = World::start().await;
    let nowhere = TournamentId::new();
    assert_eq!(refusal_code(&create(&world, day1(nowhere)).await), codes::UNKNOWN_TARGET);
    assert!(world.commits(nowhere).await.is_empty(), "nothing stored for it");

    let started = world.create(day2()).await;
    for p in ["ann", "bob"] {
        assert!(matches!(world.register(started, p).await, Reply::Ok(_)), "{p} registers in the Day 2");
    }
    let start = StartTournament { command_id: CommandId::new(), tournament_id: started, now: true };
    assert!(matches!(world.send(verbs::START_TOURNAMENT.name(), &start).await, Reply::Ok(_)), "the Day 2 starts");
    assert_eq!(refusal_code(&create(&world, day1(started)).await), codes::TARGET_NOT_OPEN);

    let open = world.create(day2()).await;
    assert!(matches!(create(&world, day1(open)).await, Reply::Ok(_)), "a Day 1 of an open Day 2 is created");
}

/// A Day 1 of four at 50 % stops with two left: both named survivors, no prize paid from the
/// Day 1, the survivors' stacks in seating's log, carried by the rule.
#[tokio::test]
async fn a_day1_stops_at_its_share_and_its_survivors_stacks_are_in_the_log() {
    let world = World::start().await;
    let d2 = world.create(day2()).await;
    let d1 = world.create(day1(d2)).await;
    let (finished, two, seats) = play_day1_to_its_stop(&world, d1).await;
    let mut left: Vec<EntryNo> = finished.shared_by.iter().map(|s| s.entry).collect();
    left.sort();
    let mut expected: Vec<EntryNo> = two.iter().map(|s| s.entry).collect();
    expected.sort();
    assert_eq!(left, expected, "the survivors are the two left");

    // Payouts paid nobody from the Day 1: its pool (4 × EUR 10) waits for the Day 2.
    let b = world.books(d1).await;
    assert_eq!((b.prize_pool, b.prizes_paid), (4_000, 0), "{b:?}");

    // Seating's log holds the survivors' last stacks; the carry takes them into the Day 2.
    let subject = subjects::event_subject(subjects::aggregate::SEATING, d1.0);
    let commits: Vec<floor_runtime::store::StoredCommit<SeatingEvent>> =
        floor_runtime::JetStreamStore::new(&world.backbone).load(&subject, 0).await.expect("the Day 1's seating log");
    let mut stacks: BTreeMap<EntryNo, u64> = BTreeMap::new();
    for e in commits.into_iter().flat_map(|c| c.events) {
        if let SeatingEvent::HandStarted { stacks: s, .. } | SeatingEvent::HandFinished { stacks: s, .. } = e {
            stacks.extend(s.iter().map(|s| (s.entry, s.chips)));
        }
    }
    let mut book = Day2Book::new(Carry::BestStack);
    for s in &finished.shared_by {
        let stack = stacks[&s.entry];
        assert_eq!(Some(stack), two.iter().find(|t| t.entry == s.entry).map(|t| t.chips), "the stack reported last");
        let carried = book.carry(d1, &Survivor { player_id: s.player.clone(), entry_no: s.entry, stack });
        assert_eq!(carried, Carried::Registered { stack });
    }
    assert_eq!(book.chips(), seats.iter().map(|s| s.chips).sum::<u64>(), "every chip of the Day 1 goes on");
}

/// Registers four in the Day 1 `d1`, starts it and plays two hands (the first seat busts the
/// second, the third the fourth): registration stops it at its share. Its finish, the two left
/// and the four seats drawn.
async fn play_day1_to_its_stop(
    world: &World,
    d1: TournamentId,
) -> (floor_events::registration::TournamentFinished, Vec<floor_events::table::SeatStack>, Vec<floor_events::table::SeatStack>) {
    for p in ["ann", "bob", "cat", "dan"] {
        assert!(matches!(world.register(d1, p).await, Reply::Ok(_)), "{p} registers");
    }
    let start = StartTournament { command_id: CommandId::new(), tournament_id: d1, now: true };
    assert!(matches!(world.send(verbs::START_TOURNAMENT.name(), &start).await, Reply::Ok(_)), "the Day 1 starts");
    let seats = world.seated(d1, 4).await;
    let three = world.bust(d1, 1, &seats, seats[0], seats[1]).await;
    let two = world.bust(d1, 2, &three, three[1], three[2]).await;
    // Registration stops it at its share, both left sharing the finish.
    let mut log = world.watch_events::<TournamentEvent>(subjects::aggregate::TOURNAMENT, d1).await;
    let TournamentEvent::TournamentFinished(finished) = log.next_where(|e| matches!(e, TournamentEvent::TournamentFinished(_))).await
    else {
        unreachable!()
    };
    (finished, two, seats)
}

/// A Day 2 cancelled before its start (issue 36; `docs/abort.md`, "A flight's Day 2"): it
/// holds the Day 1's pool (4 × EUR 10) for the two stacks carried, so registration refuses
/// the cancel (`cancel_through_abort`, nothing stored) and the abort service cancels it: the
/// pool goes to the two carried entries (TDA roll-forward before the money: half equally, half
/// by the stacks they brought), both books balance with nothing held, and the audit is ok.
#[tokio::test]
async fn a_day2_cancelled_before_its_start_pays_its_day1_pools_to_the_carried_stacks() {
    use floor_events::abort::{self, AbortEvent};
    let world = World::start().await;
    let d2 = world.create(day2()).await;
    let d1 = world.create(day1(d2)).await;
    let (_, two, _) = play_day1_to_its_stop(&world, d1).await;
    // The flights policy carries both; payouts transfers the pool.
    let mut log = world.watch_events::<TournamentEvent>(subjects::aggregate::TOURNAMENT, d2).await;
    for _ in 0..2 {
        log.next_where(|e| matches!(e, TournamentEvent::EntryCarried(_))).await;
    }
    let mut payouts = world.watch_events::<floor_events::payouts::PayoutEvent>(subjects::aggregate::PAYOUTS, d2).await;
    payouts.next_where(|e| matches!(e, floor_events::payouts::PayoutEvent::PoolTransferred(_))).await;

    // (The Day 2's own log: the Day 1's tables and books may still be storing their last commits.)
    let before = world.commits(d2).await.len();
    let cancel = floor_events::registration::CancelTournament { command_id: CommandId::new(), tournament_id: d2, reason: "venue".into() };
    assert_eq!(refusal_code(&world.send(verbs::CANCEL_TOURNAMENT.name(), &cancel).await), codes::CANCEL_THROUGH_ABORT);
    assert_eq!(world.commits(d2).await.len(), before, "a refused cancel stores nothing");

    let cancel =
        abort::Cancel { command_id: CommandId::new(), tournament_id: d2, reason: "venue".into(), method: Default::default(), cause: None };
    let reply = world.request(subjects::service::ABORT, abort::verbs::CANCEL.name(), &cancel).await;
    let Reply::Ok(recorded) = reply else { panic!("{reply:?}") };
    let events: Vec<AbortEvent> = serde_json::from_value(recorded["events"].clone()).expect("abort events");
    let [AbortEvent::Cancelled { cancellation, .. }] = events.as_slice() else { panic!("{events:?}") };
    let b = cancellation.books;
    assert_eq!((b.paid_in, b.transferred_in, b.statements, b.fees_kept), (0, 4_000, 4_000, 0), "{b:?}");
    assert!(b.balanced());
    // 2,000 equally, 2,000 by the stacks carried (the whole Day 1's chips between them).
    let chips: u64 = two.iter().map(|s| s.chips).sum();
    let lines = || cancellation.statements.iter().flat_map(|st| &st.lines);
    for l in lines().filter(|l| l.kind == abort::statement::LineKind::ChipShare) {
        let weight = l.inputs.weight.expect("a chip share's weight");
        assert!(two.iter().any(|s| s.chips == weight) && l.inputs.of == Some(chips), "{l:?}: the stacks carried, of {chips}");
        assert!(l.amount.abs_diff(2_000 * weight / chips) <= 1, "{l:?}");
    }
    assert_eq!(lines().filter(|l| l.kind == abort::statement::LineKind::EqualShare).map(|l| l.amount).sum::<u64>(), 2_000);
    // Payouts' books of the Day 2: the pool came in and went out in statements, nothing held.
    // (Payouts answers its books once it has read the tournament's logs as far as they went,
    // the abort log's cancellation included.)
    let books = world.books(d2).await;
    assert!(books.balanced && books.held == 0 && books.statements == 4_000, "{books:?}");
    for id in [d1, d2] {
        let commits = floor::audit::read(&world.backbone.jetstream, id.0).await.expect("the log");
        let report = floor::audit::report(&commits);
        assert!(report.ok, "audit of {id}: {}", report.summary());
    }
}

/// Plays a flight of three Day 1s (`entrants` each, a third of the players in all three) into a
/// Day 2 under `carry`, and checks the money, the carry and the audit of all four tournaments.
async fn flight_of_three(carry: Carry, seed: u64) -> floor::sim::FlightsSummary {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = TournamentId(uuid::Uuid::from_u128(0xf119_4700_0000 + u128::from(seed)));
    let config = floor::sim::SimConfig { flights: Some(carry), ..floor::sim::SimConfig::new(24, seed, t) };
    let summary = floor::sim::run(&world.backbone, &config, |_| {}).await.expect("the flight plays to a winner");
    let flights = summary.flights.clone().expect("a flight summary");
    let books = &summary.books;
    // The Day 2: one prize pool, the three Day 1s' pools, paid out whole.
    assert!(books.balanced && books.finished, "the Day 2's books: {books:?}");
    assert_eq!(books.held, 0, "{books:?}");
    assert_eq!((books.paid_in, books.transferred_in), (0, 3 * 24 * 1_000), "no buy-in in the Day 2; 3 × 24 × EUR 10 came over");
    assert_eq!(books.prizes_paid, books.prize_pool, "{books:?}");
    assert!(flights.one_prize_pool, "{flights:?}");
    for d in &flights.day1s {
        let b = &d.books;
        assert!(b.balanced, "a Day 1's books: {b:?}");
        assert_eq!((b.held, b.prizes_paid, b.transferred_out), (0, 0, 24 * 1_000), "its whole pool went to the Day 2: {b:?}");
        assert_eq!(d.stopped_at, floor_rules::flight::survivors(24, floor::sim::flights::SHARE_BPS), "{d:?}");
        // A player out in the hand that reached the share (at another table) is named at the
        // stop but not a survivor (004 §4.36.11).
        assert!(d.survivors <= d.stopped_at && d.survivors > 0, "{d:?}");
    }
    // Every entry of the Day 2 is a carried one; each survivor's stack was recorded.
    let survivors: u32 = flights.day1s.iter().map(|d| d.survivors).sum();
    assert_eq!(flights.day1s.iter().map(|d| d.carried).sum::<u32>(), survivors, "every survivor with chips reached the Day 2");
    assert_eq!(summary.entrants, flights.day2_entries);
    // The audit: all four tournaments, none flagged (a Day 1 is a flight, its pool transferred).
    for id in std::iter::once(t).chain(flights.day1s.iter().map(|d| d.tournament_id)) {
        let commits = floor::audit::read(&world.backbone.jetstream, id.0).await.expect("the log");
        let report = floor::audit::report(&commits);
        assert!(report.ok, "audit of {id}: {}", report.summary());
    }
    flights
}

/// 004 §4.36.12, best stack forward: players in several Day 1s go on with their best stack
/// (a larger later one replaces, a smaller one is forfeited), one Day 2 entry each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flight_of_three_day1s_best_stack_forward() {
    let flights = flight_of_three(Carry::BestStack, 7).await;
    assert_eq!(flights.added, 0, "{flights:?}");
    let carried: u32 = flights.day1s.iter().map(|d| d.carried).sum();
    assert_eq!(flights.day2_entries + flights.replaced + flights.forfeited, carried, "{flights:?}");
}

/// 004 §4.36.13, stack builder: a player's Day 1 stacks add up into one Day 2 entry, none
/// forfeited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flight_of_three_day1s_stack_builder() {
    let flights = flight_of_three(Carry::StackBuilder, 8).await;
    assert_eq!((flights.replaced, flights.forfeited), (0, 0), "{flights:?}");
    let carried: u32 = flights.day1s.iter().map(|d| d.carried).sum();
    assert_eq!(flights.day2_entries + flights.added, carried, "{flights:?}");
}
