//! Issue 17, reproduction 1: no number a director types, and no event in the log, can break
//! the clock. `add-time` with `i64::MAX` seconds used to be accepted and then panicked every
//! reader of the clock (timer, lobby) at every start; on a paused clock it wrapped.

use crate::domain::{Clock, ClockAggregate, ClockCommand as C};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::clock::{ClockEvent, Level, Step, Structure};
use floor_events::codes;
use floor_rules::clock::{evolve, ClockState};
use floor_rules::structure::{preset, Preset};
use floor_runtime::spec::given;
use proptest::prelude::*;

fn t0() -> DateTime<Utc> {
    "2027-01-10T18:00:00Z".parse().unwrap()
}

fn running() -> Vec<ClockEvent> {
    let structure = preset(Preset::Standard);
    let mut log = vec![ClockEvent::StructureSet { structure }];
    let state = log.iter().cloned().fold(Clock::default(), ClockAggregate::apply_event);
    log.extend(ClockAggregate::handle_command(&state, C::Start { at: t0() }).expect("starts"));
    log
}

fn paused() -> Vec<ClockEvent> {
    let mut log = running();
    log.push(ClockEvent::Paused { at: t0() + Duration::seconds(61), remaining_ms: 838_987, reason: "chip race".into() });
    log
}

/// The values from the report, as typed after `floor clock add-time <tournament>`.
const TYPOS: [i64; 5] = [i64::MAX, i64::MIN, 10_000_000_000_000, -10_000_000_000_000, 86_401];

#[test]
fn issue_17_an_absurd_add_time_on_a_running_clock_is_rejected_with_no_event() {
    for seconds in TYPOS {
        given::<ClockAggregate>(running())
            .when(C::AdjustTime { seconds, at: t0() + Duration::seconds(70) })
            .then_reject(codes::TIME_ADJUSTMENT_OUT_OF_RANGE);
    }
}

#[test]
fn issue_17_an_absurd_add_time_on_a_paused_clock_is_rejected_with_no_event() {
    for seconds in TYPOS {
        given::<ClockAggregate>(paused())
            .when(C::AdjustTime { seconds, at: t0() + Duration::seconds(70) })
            .then_reject(codes::TIME_ADJUSTMENT_OUT_OF_RANGE);
    }
}

#[test]
fn a_day_either_way_is_accepted_and_more_than_two_days_left_is_not() {
    let at = t0() + Duration::seconds(60);
    // 14 minutes left in level 1; a day added leaves a day and 14 minutes.
    let added = given::<ClockAggregate>(running()).when(C::AdjustTime { seconds: 86_400, at }).accepted();
    assert_eq!(added, vec![ClockEvent::TimeAdjusted { seconds: 86_400, at }]);
    given::<ClockAggregate>(running())
        .when(C::AdjustTime { seconds: -86_400, at })
        .then(vec![ClockEvent::TimeAdjusted { seconds: -86_400, at }]);
    // A second day would leave more than 48 hours in the step.
    let mut history = running();
    history.extend(added);
    given::<ClockAggregate>(history.clone()).when(C::AdjustTime { seconds: 86_400, at }).then_reject(codes::TIME_ADJUSTMENT_OUT_OF_RANGE);
    // Taking time back out is always possible.
    given::<ClockAggregate>(history)
        .when(C::AdjustTime { seconds: -86_400, at })
        .then(vec![ClockEvent::TimeAdjusted { seconds: -86_400, at }]);
}

/// The data directory from the report already holds the bad event: every reader folds it
/// without panicking, the clock keeps the end it had, and the timer and directors carry on.
#[test]
fn issue_17_an_overflowing_adjustment_already_in_the_log_moves_nothing_and_breaks_nothing() {
    let at = t0() + Duration::seconds(70);
    let before = running().into_iter().fold(ClockState::default(), evolve);
    let after = evolve(before.clone(), ClockEvent::TimeAdjusted { seconds: i64::MAX, at });
    assert_eq!(after, before, "an end the clock cannot represent is not taken");
    let end = before.ends_at.expect("running");
    let removed = evolve(before.clone(), ClockEvent::TimeAdjusted { seconds: i64::MIN, at });
    assert_eq!(removed.ends_at, Some(at), "removing more than is left ends the step now, as any removal does");
    assert!(removed.ends_at < Some(end));

    let mut log = running();
    log.push(ClockEvent::TimeAdjusted { seconds: i64::MAX, at });
    let events = given::<ClockAggregate>(log.clone()).when(C::Tick { now: t0() + Duration::minutes(15) }).accepted();
    assert!(matches!(events[..], [ClockEvent::StepStarted { step: 1, .. }]), "the next level starts on time: {events:?}");
    given::<ClockAggregate>(log).when(C::Pause { at, reason: String::new() }).then(vec![ClockEvent::Paused {
        at,
        remaining_ms: (end - at).num_milliseconds() as u64,
        reason: String::new(),
    }]);

    let paused_state = paused().into_iter().fold(ClockState::default(), evolve);
    for seconds in [i64::MAX, 10_000_000_000_000_000] {
        let after = evolve(paused_state.clone(), ClockEvent::TimeAdjusted { seconds, at });
        assert_eq!(after, paused_state, "no wrap-around: the time left stays {:?}", paused_state.paused_remaining_ms);
    }
    let emptied = evolve(paused_state.clone(), ClockEvent::TimeAdjusted { seconds: i64::MIN, at });
    assert_eq!(emptied.paused_remaining_ms, Some(0));
}

#[test]
fn a_paused_time_left_too_long_to_resume_is_refused_and_a_skip_recovers_the_clock() {
    let mut log = running();
    log.push(ClockEvent::Paused { at: t0(), remaining_ms: u64::MAX, reason: String::new() });
    given::<ClockAggregate>(log.clone()).when(C::Resume { at: t0() }).then_reject(codes::CLOCK_TIME_OUT_OF_RANGE);
    let skipped = given::<ClockAggregate>(log).when(C::SkipToLevel { level: 2, at: t0() }).accepted();
    assert!(matches!(skipped[..], [ClockEvent::StepStarted { step: 1, .. }]));
}

#[test]
fn structures_with_steps_longer_than_a_day_are_invalid() {
    let long = Structure {
        steps: vec![Step::Level(Level { small_blind: 1, big_blind: 2, ante: 0, big_blind_ante: false, seconds: u32::MAX })],
        late_registration_levels: None,
        rebuys_until_break: None,
        push_hold_seconds: 0,
    };
    given::<ClockAggregate>(vec![]).when(C::SetStructure { structure: long }).then_reject(codes::INVALID_STRUCTURE);
}

// Random command sequences with extreme values.

fn seconds_value() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0), Just(1), Just(86_400), Just(86_401), Just(u32::MAX), 1u32..3_600]
}

fn chips() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0), Just(1), Just(u64::MAX), Just(u64::MAX - 1), 1u64..100_000]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (chips(), chips(), chips(), any::<bool>(), seconds_value()).prop_map(|(small_blind, big_blind, ante, big_blind_ante, seconds)| {
            Step::Level(Level { small_blind, big_blind, ante, big_blind_ante, seconds })
        }),
        1 => (seconds_value(), proptest::option::of(chips())).prop_map(|(seconds, color_up)| Step::Break { seconds, color_up }),
    ]
}

fn structure() -> impl Strategy<Value = Structure> {
    let small = prop_oneof![Just(0u32), Just(1), Just(u32::MAX), 0u32..8];
    prop_oneof![
        2 => prop::sample::select(Preset::ALL.to_vec()).prop_map(preset),
        1 => (prop::collection::vec(step(), 0..8), proptest::option::of(small.clone()), proptest::option::of(small), seconds_value())
            .prop_map(|(steps, late_registration_levels, rebuys_until_break, push_hold_seconds)| Structure {
                steps,
                late_registration_levels,
                rebuys_until_break,
                push_hold_seconds,
            }),
    ]
}

fn adjustment() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MAX),
        Just(i64::MIN),
        Just(10_000_000_000_000),
        Just(-10_000_000_000_000),
        Just(86_400),
        Just(-86_400),
        Just(86_401),
        -200_000i64..200_000,
    ]
}

/// A command with the offset of its instant from the previous command's (commands can come late,
/// early or out of order: a service's clock is not monotonic across instances).
#[derive(Debug, Clone)]
enum Op {
    SetStructure(Structure),
    Start,
    Tick,
    Pause,
    Resume,
    Adjust(i64),
    SkipTo(u32),
    SkipToLevel(u32),
    EndBreak,
}

fn op() -> impl Strategy<Value = Op> {
    let index = prop_oneof![Just(0u32), Just(u32::MAX), 0u32..40];
    prop_oneof![
        1 => structure().prop_map(Op::SetStructure),
        2 => Just(Op::Start),
        4 => Just(Op::Tick),
        2 => Just(Op::Pause),
        2 => Just(Op::Resume),
        3 => adjustment().prop_map(Op::Adjust),
        1 => index.clone().prop_map(Op::SkipTo),
        1 => index.prop_map(Op::SkipToLevel),
        1 => Just(Op::EndBreak),
    ]
}

fn gap() -> impl Strategy<Value = i64> {
    prop_oneof![4 => 0i64..2_000, 1 => -600i64..0, 1 => Just(86_400 * 3), 1 => Just(1_000_000_000)]
}

fn command(op: Op, at: DateTime<Utc>) -> C {
    match op {
        Op::SetStructure(structure) => C::SetStructure { structure },
        Op::Start => C::Start { at },
        Op::Tick => C::Tick { now: at },
        Op::Pause => C::Pause { at, reason: String::new() },
        Op::Resume => C::Resume { at },
        Op::Adjust(seconds) => C::AdjustTime { seconds, at },
        Op::SkipTo(step) => C::SkipTo { step, at },
        Op::SkipToLevel(level) => C::SkipToLevel { level, at },
        Op::EndBreak => C::EndBreak { at },
    }
}

/// Any clock event, including ones no decider produces (steps past the structure, absurd
/// ends, adjustments and times left).
fn any_event() -> impl Strategy<Value = ClockEvent> {
    let instant = prop_oneof![
        Just(DateTime::<Utc>::MAX_UTC),
        Just(DateTime::<Utc>::MIN_UTC),
        (-10_000_000i64..10_000_000).prop_map(|s| t0() + Duration::seconds(s)),
    ];
    let index = prop_oneof![Just(0u32), Just(u32::MAX), 0u32..40];
    prop_oneof![
        structure().prop_map(|structure| ClockEvent::StructureSet { structure }),
        (index.clone(), instant.clone(), instant.clone()).prop_map(|(step, at, ends_at)| ClockEvent::StepStarted {
            step,
            number: step,
            at,
            ends_at,
            cause: floor_events::clock::StepCause::Timer,
            blinds: None,
        }),
        (instant.clone(), prop_oneof![Just(u64::MAX), Just(0u64), any::<u64>()]).prop_map(|(at, remaining_ms)| ClockEvent::Paused {
            at,
            remaining_ms,
            reason: String::new()
        }),
        (instant.clone(), instant.clone()).prop_map(|(at, ends_at)| ClockEvent::Resumed { at, ends_at }),
        (any::<i64>(), instant.clone()).prop_map(|(seconds, at)| ClockEvent::TimeAdjusted { seconds, at }),
        (adjustment(), instant.clone()).prop_map(|(seconds, at)| ClockEvent::TimeAdjusted { seconds, at }),
        (index, instant.clone(), instant.clone()).prop_map(|(step, at, until)| ClockEvent::PushHeld { step, at, until }),
        instant.clone().prop_map(|at| ClockEvent::LateRegistrationClosed { at }),
        instant.prop_map(|at| ClockEvent::RebuyPeriodEnded { at }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Whatever the director types, in whatever order: the decider never panics, never accepts
    /// an adjustment beyond a day, and the events it accepts replay from nothing to exactly the
    /// state it decided on.
    #[test]
    fn extreme_commands_never_panic_and_every_accepted_sequence_replays(ops in prop::collection::vec((op(), gap()), 1..48)) {
        let mut log: Vec<ClockEvent> = Vec::new();
        let mut state = Clock::default();
        let mut now = t0();
        for (op, gap) in ops {
            now = now.checked_add_signed(Duration::seconds(gap)).unwrap_or(now);
            if let Ok(events) = ClockAggregate::handle_command(&state, command(op, now)) {
                for event in &events {
                    if let ClockEvent::TimeAdjusted { seconds, .. } = event {
                        prop_assert!(seconds.unsigned_abs() <= 86_400, "accepted {seconds} s");
                    }
                }
                log.extend(events.iter().cloned());
                state = events.into_iter().fold(state, ClockAggregate::apply_event);
            }
            let replayed = log.iter().cloned().fold(Clock::default(), ClockAggregate::apply_event);
            prop_assert_eq!(&replayed, &state);
            let _ = state.timeline.next_wakeup();
        }
    }

    /// Events no decider could produce (a log written before the bounds, or by hand) fold
    /// without a panic, and every command on the clock they leave is answered, not a panic.
    #[test]
    fn any_event_folds_and_any_command_on_the_result_is_answered(
        events in prop::collection::vec(any_event(), 0..12),
        ops in prop::collection::vec((op(), gap()), 0..6),
    ) {
        let state = events.into_iter().fold(Clock::default(), ClockAggregate::apply_event);
        let _ = (state.timeline.next_change(), state.timeline.push_hold_at(), state.timeline.next_wakeup());
        let mut now = t0();
        for (op, gap) in ops {
            now = now.checked_add_signed(Duration::seconds(gap)).unwrap_or(now);
            if let Ok(events) = ClockAggregate::handle_command(&state, command(op, now)) {
                let _ = events.into_iter().fold(state.clone(), ClockAggregate::apply_event);
            }
        }
    }
}
