//! Flights (issue 36; 004 §4.36.11–13) as given/when/then: a Day 1 survivor's stack carried into
//! its Day 2 (`register_carried`), the carry rule applied by the Day 2 itself, and the Day 2's
//! own limits (started, closed, full).

use crate::domain::{TournamentAggregate, TournamentCommand as C};
use chrono::{DateTime, Utc};
use floor_events::codes;
use floor_events::flights::{Carry, CarryOutcome, EntryCarried};
use floor_events::registration::*;
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{EntryNo, PlayerId, TournamentId};
use floor_runtime::spec::given;

fn at(s: &str) -> DateTime<Utc> {
    s.parse().expect("RFC 3339")
}

const CREATED: &str = "2026-12-01T12:00:00Z";
const BEFORE_START: &str = "2026-12-06T17:00:00Z";
const START: &str = "2026-12-07T12:00:00Z";

fn p(name: &str) -> PlayerId {
    PlayerId::parse(name).expect("player")
}

/// The Day 2: an ordinary scheduled tournament of 4 seats, starting 7 December at noon.
fn day2() -> Vec<TournamentEvent> {
    let definition = TournamentDefinition {
        name: "Day 2".into(),
        start: Start::At(at(START)),
        capacity: 4,
        late_registration_until: None,
        ..TournamentDefinition::example()
    };
    vec![TournamentEvent::TournamentCreated(TournamentCreated {
        tournament_id: TournamentId(uuid::Uuid::nil()),
        definition,
        at: at(CREATED),
    })]
}

fn day1(n: u128) -> TournamentId {
    TournamentId(uuid::Uuid::from_u128(n))
}

fn carry(player: &str, from: u128, entry: u32, chips: u64, rule: Carry) -> C {
    C::RegisterCarried { player: p(player), day1: day1(from), day1_entry: EntryNo(entry), chips, carry: rule, at: at(BEFORE_START) }
}

#[allow(clippy::too_many_arguments)]
fn carried(
    entry: u32,
    player: &str,
    from: u128,
    day1_entry: u32,
    chips: u64,
    stack: u64,
    outcome: CarryOutcome,
    new_player: bool,
) -> TournamentEvent {
    TournamentEvent::EntryCarried(EntryCarried {
        entry: EntryNo(entry),
        player: p(player),
        day1: day1(from),
        day1_entry: EntryNo(day1_entry),
        chips,
        stack,
        outcome,
        new_player,
        at: at(BEFORE_START),
    })
}

/// Given a Day 2 with nobody, when a Day 1 survivor is carried, then a new entry is recorded
/// with the Day 1 stack and nothing paid here (004 §4.36.11: the survivors "jsou poté spojeni do
/// další fáze", are joined in the next phase).
#[test]
fn a_survivor_is_entered_in_the_day2_with_its_stack() {
    given::<TournamentAggregate>(day2()).when(carry("ana", 1, 3, 30_000, Carry::BestStack)).then(vec![carried(
        1,
        "ana",
        1,
        3,
        30_000,
        30_000,
        CarryOutcome::Registered,
        true,
    )]);
}

/// A player in three Day 1s (30,000, 50,000, 20,000), best stack forward (004 §4.36.12: "jeho
/// nejlepšímu výsledku ze všech Day1 fází", the best result of all the Day 1s): the larger
/// replaces, the smaller is forfeited; the Day 2 entry stays one.
#[test]
fn best_stack_forward_across_three_day1s() {
    let mut history = day2();
    history.push(carried(1, "ana", 1, 3, 30_000, 30_000, CarryOutcome::Registered, true));
    given::<TournamentAggregate>(history.clone()).when(carry("ana", 2, 7, 50_000, Carry::BestStack)).then(vec![carried(
        1,
        "ana",
        2,
        7,
        50_000,
        50_000,
        CarryOutcome::Replaced { forfeited: 30_000 },
        false,
    )]);
    history.push(carried(1, "ana", 2, 7, 50_000, 50_000, CarryOutcome::Replaced { forfeited: 30_000 }, false));
    given::<TournamentAggregate>(history).when(carry("ana", 3, 1, 20_000, Carry::BestStack)).then(vec![carried(
        1,
        "ana",
        3,
        1,
        20_000,
        50_000,
        CarryOutcome::Forfeited,
        false,
    )]);
}

/// The same player, stack builder (004 §4.36.13: "součtu jeho výsledků ze všech Day1 fází", the
/// sum of the results of all the Day 1s): 30,000 + 50,000 + 20,000 = 100,000.
#[test]
fn stack_builder_sums_three_day1s() {
    let mut history = day2();
    history.push(carried(1, "ana", 1, 3, 30_000, 30_000, CarryOutcome::Registered, true));
    history.push(carried(1, "ana", 2, 7, 50_000, 80_000, CarryOutcome::Added, false));
    given::<TournamentAggregate>(history).when(carry("ana", 3, 1, 20_000, Carry::StackBuilder)).then(vec![carried(
        1,
        "ana",
        3,
        1,
        20_000,
        100_000,
        CarryOutcome::Added,
        false,
    )]);
}

/// First stack forward (§4.36.11): a later survival is forfeited.
#[test]
fn first_stack_forward_keeps_the_first() {
    let mut history = day2();
    history.push(carried(1, "ana", 1, 3, 30_000, 30_000, CarryOutcome::Registered, true));
    given::<TournamentAggregate>(history).when(carry("ana", 2, 7, 50_000, Carry::FirstStack)).then(vec![carried(
        1,
        "ana",
        2,
        7,
        50_000,
        30_000,
        CarryOutcome::Forfeited,
        false,
    )]);
}

/// The same Day 1 entry carried again (another command id): stores nothing.
#[test]
fn a_stack_is_carried_once() {
    let mut history = day2();
    history.push(carried(1, "ana", 1, 3, 30_000, 30_000, CarryOutcome::Registered, true));
    given::<TournamentAggregate>(history).when(carry("ana", 1, 3, 30_000, Carry::StackBuilder)).then(vec![]);
}

/// The Day 2's own limits, with its codes and no event: a stack of no chips; after its draw;
/// past its start; at capacity for a new player (a carried player's later stack still counts).
#[test]
fn the_day2_refuses_with_its_codes() {
    given::<TournamentAggregate>(day2()).when(carry("ana", 1, 3, 0, Carry::BestStack)).then_reject(codes::INVALID_FIELD);
    let mut started = day2();
    started.push(TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(START) }));
    given::<TournamentAggregate>(started).when(carry("ana", 1, 3, 10, Carry::BestStack)).then_reject(codes::TOURNAMENT_STARTED);
    let late =
        C::RegisterCarried { player: p("ana"), day1: day1(1), day1_entry: EntryNo(3), chips: 10, carry: Carry::BestStack, at: at(START) };
    given::<TournamentAggregate>(day2()).when(late).then_reject(codes::TOURNAMENT_STARTED);
    let mut full = day2();
    for (n, name) in ["a", "b", "c", "d"].iter().enumerate() {
        full.push(carried(n as u32 + 1, name, 1, n as u32 + 1, 1_000, 1_000, CarryOutcome::Registered, true));
    }
    given::<TournamentAggregate>(full.clone()).when(carry("e", 1, 9, 1_000, Carry::StackBuilder)).then_reject(codes::FIELD_FULL);
    given::<TournamentAggregate>(full).when(carry("a", 2, 1, 500, Carry::StackBuilder)).then(vec![carried(
        1,
        "a",
        2,
        1,
        500,
        1_500,
        CarryOutcome::Added,
        false,
    )]);
}

/// A cancelled Day 2 takes no stack.
#[test]
fn a_cancelled_day2_takes_nothing() {
    let mut history = day2();
    history.push(TournamentEvent::TournamentCancelled(TournamentCancelled {
        reason: CancellationReason::Director { reason: "venue".into() },
        refunds: vec![],
        at: at(CREATED),
    }));
    given::<TournamentAggregate>(history).when(carry("ana", 1, 3, 10, Carry::BestStack)).then_reject(codes::TOURNAMENT_CANCELLED);
}

/// A Day 2 holding carried stacks holds its Day 1s' pools, which registration's cancel (a
/// refund of what each entry paid here: nothing) would leave with nobody: the director's cancel
/// is refused with `cancel_through_abort`, the abort service's to do; and its start never
/// cancels it below its minimum: it plays with two or more, and with fewer the start waits.
#[test]
fn a_day2_with_carried_stacks_is_not_registration_s_to_cancel() {
    let mut one = day2();
    one.push(carried(1, "ana", 1, 3, 30_000, 30_000, CarryOutcome::Registered, true));
    let cancel = C::Cancel { reason: "venue".into(), at: at(BEFORE_START) };
    given::<TournamentAggregate>(one.clone()).when(cancel.clone()).then_reject(codes::CANCEL_THROUGH_ABORT);
    let start = C::Start { at: at(START), now: false };
    given::<TournamentAggregate>(one.clone()).when(start.clone()).then_reject(codes::TOO_FEW_ENTRIES);

    let TournamentEvent::TournamentCreated(created) = &mut one[0] else { unreachable!() };
    created.definition.min_players = 4;
    one.push(carried(2, "bo", 2, 1, 20_000, 20_000, CarryOutcome::Registered, true));
    given::<TournamentAggregate>(one).when(start).then(vec![TournamentEvent::TournamentStarted(TournamentStarted {
        entries: 2,
        cause: StartCause::Scheduled,
        at: at(START),
    })]);
    // Without a carried stack, the cancel is registration's, as for any tournament.
    given::<TournamentAggregate>(day2()).when(cancel).then(vec![TournamentEvent::TournamentCancelled(TournamentCancelled {
        reason: CancellationReason::Director { reason: "venue".into() },
        refunds: vec![],
        at: at(BEFORE_START),
    })]);
}
