//! The clock, by example and over twelve hours of simulated time.

use crate::domain::{Clock, ClockAggregate, ClockCommand as C};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::clock::{ClockEvent, Level, Step, StepCause, Structure};
use floor_events::codes;
use floor_rules::structure::{preset, Preset};
use floor_runtime::spec::given;
use proptest::prelude::*;

fn t0() -> DateTime<Utc> {
    "2027-01-10T18:00:00Z".parse().unwrap()
}

fn mins(m: i64) -> Duration {
    Duration::minutes(m)
}

fn run(state: Clock, command: C, log: &mut Vec<ClockEvent>) -> Clock {
    let events = ClockAggregate::handle_command(&state, command).expect("accepted");
    log.extend(events.iter().cloned());
    events.into_iter().fold(state, ClockAggregate::apply_event)
}

fn started() -> Vec<ClockEvent> {
    let structure = preset(Preset::Standard);
    let mut log = vec![ClockEvent::StructureSet { structure: structure.clone() }];
    let state = ClockAggregate::apply_event(Clock::default(), log[0].clone());
    run(state, C::Start { at: t0() }, &mut log);
    log
}

/// Twelve hours of the standard structure, ticked every 37 s, with a ten-minute pause at 1:02
/// and two minutes added at 3:00: every step starts exactly when a plain sum of durations,
/// pause and added time says, however late the ticks come.
#[test]
fn twelve_hours_of_levels_start_at_their_exact_instants() {
    let structure = preset(Preset::Standard);
    let (pause_at, resume_at, add_at) = (t0() + mins(62), t0() + mins(72), t0() + mins(180));
    let mut log = Vec::new();
    let mut state = ClockAggregate::apply_event(Clock::default(), ClockEvent::StructureSet { structure: structure.clone() });
    state = run(state, C::Start { at: t0() }, &mut log);
    let mut now = t0();
    let mut done = (false, false, false);
    while now < t0() + Duration::hours(12) {
        now += Duration::seconds(37);
        if !done.0 && now >= pause_at {
            state = run(state, C::Pause { at: pause_at, reason: "director".into() }, &mut log);
            done.0 = true;
        }
        if !done.1 && now >= resume_at {
            state = run(state, C::Resume { at: resume_at }, &mut log);
            done.1 = true;
        }
        if !done.2 && now >= add_at {
            state = run(state, C::AdjustTime { seconds: 120, at: add_at }, &mut log);
            done.2 = true;
        }
        state = run(state, C::Tick { now }, &mut log);
    }

    // The independent schedule: each step lasts its length, plus the pause if the pause began
    // in it, plus the added time if it was added in it.
    let mut expected = Vec::new();
    let mut start = t0();
    for (i, step) in structure.steps.iter().enumerate() {
        expected.push((i as u32, start));
        let mut end = start + Duration::seconds(i64::from(step.seconds()));
        if (start..end).contains(&pause_at) {
            end += resume_at - pause_at;
        }
        if (start..end).contains(&add_at) {
            end += Duration::seconds(120);
        }
        start = end;
        if start > now {
            break;
        }
    }
    let got: Vec<(u32, DateTime<Utc>)> =
        log.iter().filter_map(|e| if let ClockEvent::StepStarted { step, at, .. } = e { Some((*step, *at)) } else { None }).collect();
    let expected: Vec<_> = expected.into_iter().filter(|(_, at)| *at <= now).collect();
    assert_eq!(got.len(), structure.steps.len(), "twelve hours reach every step; then the last level continues");
    assert_eq!(got, expected);
    let closed: Vec<_> = log.iter().filter(|e| matches!(e, ClockEvent::LateRegistrationClosed { .. })).collect();
    assert_eq!(closed.len(), 1, "late registration closes once, at the end of level 6");
    assert!(matches!(closed[0], ClockEvent::LateRegistrationClosed { at } if *at == expected[6].1));
}

#[test]
fn a_late_tick_still_starts_each_level_at_its_scheduled_instant() {
    // Nothing ticked for 40 minutes: levels 2 and 3 start at 0:15 and 0:30, not at 0:40.
    let events = given::<ClockAggregate>(started()).when(C::Tick { now: t0() + mins(40) }).accepted();
    let starts: Vec<_> =
        events.iter().filter_map(|e| if let ClockEvent::StepStarted { at, cause, .. } = e { Some((*at, *cause)) } else { None }).collect();
    assert_eq!(starts, vec![(t0() + mins(15), StepCause::Timer), (t0() + mins(30), StepCause::Timer)]);
}

#[test]
fn pausing_keeps_the_time_left_and_resuming_restores_it() {
    let mut log = started();
    let state = log.iter().cloned().fold(Clock::default(), ClockAggregate::apply_event);
    let state = run(state, C::Pause { at: t0() + mins(10), reason: "network trouble (002 §2.8)".into() }, &mut log);
    assert_eq!(state.timeline.paused_remaining_ms, Some(5 * 60 * 1_000));
    let state = run(state, C::Resume { at: t0() + mins(30) }, &mut log);
    assert_eq!(state.timeline.next_change(), Some(t0() + mins(35)));
}

/// Issue 19: the tournament's end stops the clock for good, after the steps due by then; a
/// replayed stop adds nothing, and no director command or tick changes a stopped clock.
#[test]
fn the_end_of_the_tournament_stops_the_clock_for_good() {
    let end = t0() + mins(20); // level 2 began at 0:15
    let events = given::<ClockAggregate>(started()).when(C::Stop { at: end }).accepted();
    assert!(matches!(&events[..], [ClockEvent::StepStarted { step: 1, .. }, ClockEvent::Stopped { at }] if *at == end), "{events:?}");
    let mut stopped = started();
    stopped.extend(events);
    given::<ClockAggregate>(stopped.clone()).when(C::Stop { at: end }).then(vec![]);
    given::<ClockAggregate>(stopped.clone()).when(C::Tick { now: end + mins(600) }).then(vec![]);
    given::<ClockAggregate>(stopped.clone()).when(C::Pause { at: end, reason: String::new() }).then_reject(codes::CLOCK_STOPPED);
    given::<ClockAggregate>(stopped).when(C::SkipToLevel { level: 3, at: end }).then_reject(codes::CLOCK_STOPPED);
    given::<ClockAggregate>(vec![]).when(C::Stop { at: end }).then(vec![]);
}

#[test]
fn director_mistakes_get_their_own_codes_and_no_event() {
    given::<ClockAggregate>(started()).when(C::Resume { at: t0() + mins(1) }).then_reject(codes::CLOCK_RUNNING);
    let mut paused = started();
    paused.push(ClockEvent::Paused { at: t0() + mins(1), remaining_ms: 1_000, reason: String::new() });
    given::<ClockAggregate>(paused).when(C::Pause { at: t0() + mins(2), reason: String::new() }).then_reject(codes::CLOCK_PAUSED);
    given::<ClockAggregate>(started()).when(C::Start { at: t0() }).then_reject(codes::CLOCK_ALREADY_STARTED);
    given::<ClockAggregate>(started()).when(C::SkipTo { step: 999, at: t0() }).then_reject(codes::UNKNOWN_LEVEL);
    given::<ClockAggregate>(started()).when(C::EndBreak { at: t0() }).then_reject(codes::NOT_IN_BREAK);
    // Issue 17, reproduction 9: a clock that was never given a structure is no clock at all
    // (`clock pause <unknown id>` said `clock_not_started`); one with a structure, not started,
    // has not started.
    given::<ClockAggregate>(vec![]).when(C::Pause { at: t0(), reason: String::new() }).then_reject(codes::UNKNOWN_TOURNAMENT);
    let set = vec![ClockEvent::StructureSet { structure: preset(Preset::Standard) }];
    given::<ClockAggregate>(set).when(C::Pause { at: t0(), reason: String::new() }).then_reject(codes::CLOCK_NOT_STARTED);
    let reason = "x".repeat(1 << 20);
    given::<ClockAggregate>(started()).when(C::Pause { at: t0() + mins(1), reason }).then_reject(codes::TEXT_TOO_LONG);
    let reason = "chip race\n\u{1b}[2J".to_owned();
    given::<ClockAggregate>(started()).when(C::Pause { at: t0() + mins(1), reason }).then_reject(codes::CONTROL_CHARACTER);
    let decreasing = Structure {
        steps: vec![
            Step::Level(Level { small_blind: 100, big_blind: 200, ante: 0, big_blind_ante: false, seconds: 600 }),
            Step::Level(Level { small_blind: 50, big_blind: 100, ante: 0, big_blind_ante: false, seconds: 600 }),
        ],
        late_registration_levels: None,
        rebuys_until_break: None,
        push_hold_seconds: 0,
    };
    given::<ClockAggregate>(vec![]).when(C::SetStructure { structure: decreasing }).then_reject(codes::INVALID_STRUCTURE);
    given::<ClockAggregate>(vec![]).when(C::Tick { now: t0() }).then(vec![]);
}

#[test]
fn ending_a_break_early_starts_the_next_level_and_the_rebuy_period_ends_at_the_first_break() {
    // Standard: six 15-minute levels, then the first break at 1:30.
    let events = given::<ClockAggregate>(started()).when(C::Tick { now: t0() + mins(91) }).accepted();
    assert!(events.iter().any(|e| matches!(e, ClockEvent::RebuyPeriodEnded { at } if *at == t0() + mins(90))));
    let mut log = started();
    log.extend(events);
    let ended = given::<ClockAggregate>(log).when(C::EndBreak { at: t0() + mins(92) }).accepted();
    assert!(matches!(ended[0], ClockEvent::StepStarted { step: 7, number: 7, cause: StepCause::BreakEndedEarly, .. }));
}

#[derive(Debug, Clone)]
enum Op {
    Tick,
    Pause,
    Resume,
    Adjust(i64),
    Skip(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![5 => Just(Op::Tick), 1 => Just(Op::Pause), 1 => Just(Op::Resume), 1 => (-600i64..600).prop_map(Op::Adjust), 1 => (0u32..40).prop_map(Op::Skip)]
}

proptest! {
    /// Whatever the director does, in whatever order: the state folded from the stored events
    /// equals the live one (a restarted clock continues exactly), and no step starts before the
    /// step before it.
    #[test]
    fn replaying_the_log_gives_the_same_clock(ops in prop::collection::vec((op(), 1i64..900), 1..60)) {
        let mut log = held(90, preset(Preset::Standard).steps);
        let mut state = log.iter().cloned().fold(Clock::default(), ClockAggregate::apply_event);
        let mut now = t0();
        for (op, gap) in ops {
            now += Duration::seconds(gap);
            let command = match op {
                Op::Tick => C::Tick { now },
                Op::Pause => C::Pause { at: now, reason: String::new() },
                Op::Resume => C::Resume { at: now },
                Op::Adjust(seconds) => C::AdjustTime { seconds, at: now },
                Op::Skip(step) => C::SkipTo { step, at: now },
            };
            if let Ok(events) = ClockAggregate::handle_command(&state, command) {
                log.extend(events.iter().cloned());
                state = events.into_iter().fold(state, ClockAggregate::apply_event);
            }
            let replayed = log.iter().cloned().fold(Clock::default(), ClockAggregate::apply_event);
            prop_assert_eq!(&replayed, &state);
        }
        let starts: Vec<DateTime<Utc>> = log.iter().filter_map(|e| if let ClockEvent::StepStarted { at, .. } = e { Some(*at) } else { None }).collect();
        prop_assert!(starts.windows(2).all(|w| w[0] <= w[1]), "steps start in time order");
        for event in &log {
            if let ClockEvent::PushHeld { at, until, .. } = event {
                prop_assert_eq!(*until - *at, Duration::seconds(90), "a hold begins 90 s before the end it announces");
            }
        }
    }
}

fn held(seconds: u32, steps: Vec<Step>) -> Vec<ClockEvent> {
    let structure = Structure { steps, late_registration_levels: None, rebuys_until_break: None, push_hold_seconds: seconds };
    let mut log = vec![ClockEvent::StructureSet { structure }];
    let state = log.iter().cloned().fold(Clock::default(), ClockAggregate::apply_event);
    run(state, C::Start { at: t0() }, &mut log);
    log
}

fn level(small_blind: u64, big_blind: u64, seconds: u32) -> Step {
    Step::Level(Level { small_blind, big_blind, ante: 0, big_blind_ante: false, seconds })
}

/// RP-7: dealers hold the push 90 s before a level change; the hold is announced once, and the
/// next level starts on time as ever.
#[test]
fn the_push_is_held_ninety_seconds_before_a_level_change() {
    let history = held(90, vec![level(100, 200, 600), level(200, 400, 600), Step::Break { seconds: 300, color_up: None }]);
    let end = t0() + mins(10);
    let hold = end - Duration::seconds(90);
    given::<ClockAggregate>(history.clone()).when(C::Tick { now: hold - Duration::seconds(1) }).then(vec![]);
    given::<ClockAggregate>(history.clone()).when(C::Tick { now: hold }).then(vec![ClockEvent::PushHeld { step: 0, at: hold, until: end }]);
    let mut after_hold = history.clone();
    after_hold.push(ClockEvent::PushHeld { step: 0, at: hold, until: end });
    given::<ClockAggregate>(after_hold.clone()).when(C::Tick { now: hold + Duration::seconds(30) }).then(vec![]);
    let at_end = given::<ClockAggregate>(after_hold.clone()).when(C::Tick { now: end }).accepted();
    assert!(matches!(at_end[..], [ClockEvent::StepStarted { step: 1, .. }]), "{at_end:?}");
    // Time added after the hold moves the end: the hold is announced again before the new end.
    let added = given::<ClockAggregate>(after_hold).when(C::AdjustTime { seconds: 300, at: hold + Duration::seconds(10) }).accepted();
    let mut moved = history;
    moved.push(ClockEvent::PushHeld { step: 0, at: hold, until: end });
    moved.extend(added);
    let state = given::<ClockAggregate>(moved);
    assert_eq!(state.state().timeline.push_hold_at(), Some(end + mins(5) - Duration::seconds(90)));
}

#[test]
fn no_push_hold_in_a_level_shorter_than_the_hold_nor_in_a_break() {
    let short = held(90, vec![level(100, 200, 60), level(200, 400, 60)]);
    assert_eq!(given::<ClockAggregate>(short).state().timeline.push_hold_at(), None);
    let brk = held(90, vec![Step::Break { seconds: 600, color_up: None }, level(100, 200, 600)]);
    assert_eq!(given::<ClockAggregate>(brk).state().timeline.push_hold_at(), None);
    let none = held(0, vec![level(100, 200, 600), level(200, 400, 600)]);
    assert_eq!(given::<ClockAggregate>(none).state().timeline.push_hold_at(), None);
}
