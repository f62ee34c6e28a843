//! Flights (issue 36; 004 §4.36.11–13), against a real nats-server: Day 1s are created only for
//! an open Day 2 (`unknown_target`, `target_not_open`, nothing stored), and a Day 1 of four at a
//! 50 % share, started and played hand by hand, stops with two left: registration's
//! `tournament_finished` names both survivors, payouts pays nobody from the Day 1 (its pool is
//! the Day 2's), and seating's log holds the survivors' stacks, which the carry rule
//! (`floor_rules::flight::Day2Book`) takes into the Day 2. The carry's registration in the Day 2
//! and the pool's transfer are not wired yet (docs/architecture.md "## Flights").

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
    for p in ["ann", "bob", "cat", "dan"] {
        assert!(matches!(world.register(d1, p).await, Reply::Ok(_)), "{p} registers");
    }
    let start = StartTournament { command_id: CommandId::new(), tournament_id: d1, now: true };
    assert!(matches!(world.send(verbs::START_TOURNAMENT.name(), &start).await, Reply::Ok(_)), "the Day 1 starts");
    let seats = world.seated(d1, 4).await;
    // Two hands: the first seat busts the second, then the third busts the fourth.
    let three = world.bust(d1, 1, &seats, seats[0], seats[1]).await;
    let two = world.bust(d1, 2, &three, three[1], three[2]).await;

    // Registration stops it at its share, both left sharing the finish.
    let mut finished = None;
    for _ in 0..200 {
        finished = world.commits(d1).await.into_iter().flat_map(|c| c.events).find_map(|e| match e {
            TournamentEvent::TournamentFinished(f) => Some(f),
            _ => None,
        });
        if finished.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let finished = finished.expect("the Day 1 stopped at its share");
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
