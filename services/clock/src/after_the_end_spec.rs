//! Issue 33: the clock during a suspension of play and after a cancellation, by example and by
//! property. A suspension holds the clock until the resume of play; a cancellation stops it for
//! good, as the tournament's end does.

use crate::domain::{Clock, ClockAggregate, ClockCommand as C, Hold};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::clock::ClockEvent;
use floor_events::codes;
use floor_rules::structure::{preset, Preset};
use floor_runtime::spec::given;
use floor_runtime::DomainError;
use proptest::prelude::*;

fn t0() -> DateTime<Utc> {
    "2027-01-10T18:00:00Z".parse().unwrap()
}

fn mins(m: i64) -> Duration {
    Duration::minutes(m)
}

/// The standard structure (15-minute levels, a break after level 4), not started.
fn structured() -> Vec<ClockEvent> {
    vec![ClockEvent::StructureSet { structure: preset(Preset::Standard) }]
}

/// Started at `t0`.
fn started() -> Vec<ClockEvent> {
    let mut log = structured();
    log.extend(given::<ClockAggregate>(log.clone()).when(C::Start { at: t0() }).accepted());
    log
}

/// Started at `t0`, suspended at 10 minutes (5 minutes left in level 1).
fn suspended() -> Vec<ClockEvent> {
    let mut log = started();
    log.extend(held_at(mins(10)));
    log
}

fn held_at(after: Duration) -> Vec<ClockEvent> {
    let at = t0() + after;
    vec![
        ClockEvent::Paused { at, remaining_ms: 5 * 60 * 1_000, reason: "suspended: power cut".into() },
        ClockEvent::PlaySuspended { at, paused_clock: true },
    ]
}

fn code(history: &[ClockEvent], command: C) -> Result<Vec<ClockEvent>, &'static str> {
    let state = history.iter().cloned().fold(Clock::default(), ClockAggregate::apply_event);
    ClockAggregate::handle_command(&state, command).map_err(|e| e.code())
}

#[test]
fn a_suspension_pauses_a_running_clock_and_holds_it() {
    given::<ClockAggregate>(started())
        .when(C::Suspend { at: t0() + mins(10), reason: "suspended: power cut".into() })
        .then(held_at(mins(10)));
    let state = given::<ClockAggregate>(suspended());
    assert_eq!(state.state().hold, Some(Hold { paused_clock: true }));
}

#[test]
fn while_play_is_suspended_a_director_may_not_start_the_clock_again_but_may_add_time() {
    let at = t0() + mins(20);
    let refused = [
        ("resume", C::Resume { at }),
        ("skip to a level", C::SkipToLevel { level: 3, at }),
        ("skip to a step", C::SkipTo { step: 2, at }),
        ("end a break", C::EndBreak { at }),
        ("start", C::Start { at }),
    ];
    for (case, command) in refused {
        assert_eq!(code(&suspended(), command), Err(codes::TOURNAMENT_SUSPENDED), "{case}");
    }
    assert_eq!(code(&suspended(), C::Pause { at, reason: String::new() }), Err(codes::CLOCK_PAUSED), "paused already");
    given::<ClockAggregate>(suspended()).when(C::AdjustTime { seconds: 60, at }).then(vec![ClockEvent::TimeAdjusted { seconds: 60, at }]);
    given::<ClockAggregate>(suspended()).when(C::Tick { now: t0() + mins(300) }).then(vec![]);
}

#[test]
fn the_resume_of_play_resumes_the_clock_the_suspension_paused_with_the_time_it_had_left() {
    let at = t0() + mins(30);
    given::<ClockAggregate>(suspended())
        .when(C::ResumePlay { at })
        .then(vec![ClockEvent::Resumed { at, ends_at: at + mins(5) }, ClockEvent::PlayResumed { at }]);
    let mut log = suspended();
    log.extend([ClockEvent::Resumed { at, ends_at: at + mins(5) }, ClockEvent::PlayResumed { at }]);
    assert_eq!(given::<ClockAggregate>(log.clone()).state().hold, None);
    given::<ClockAggregate>(log.clone()).when(C::ResumePlay { at: at + mins(1) }).then(vec![]);
    assert_eq!(code(&log, C::SkipToLevel { level: 3, at }).map(|e| e.len()), Ok(1), "the director's verbs again");
}

#[test]
fn a_clock_a_director_paused_before_the_suspension_stays_paused_after_it() {
    let mut log = started();
    log.push(ClockEvent::Paused { at: t0() + mins(5), remaining_ms: 600_000, reason: "dinner".into() });
    let at = t0() + mins(6);
    given::<ClockAggregate>(log.clone())
        .when(C::Suspend { at, reason: "suspended: storm".into() })
        .then(vec![ClockEvent::PlaySuspended { at, paused_clock: false }]);
    log.push(ClockEvent::PlaySuspended { at, paused_clock: false });
    assert_eq!(code(&log, C::Resume { at }), Err(codes::TOURNAMENT_SUSPENDED));
    let later = t0() + mins(30);
    given::<ClockAggregate>(log.clone()).when(C::ResumePlay { at: later }).then(vec![ClockEvent::PlayResumed { at: later }]);
    log.push(ClockEvent::PlayResumed { at: later });
    given::<ClockAggregate>(log).when(C::Resume { at: later }).then(vec![ClockEvent::Resumed { at: later, ends_at: later + mins(10) }]);
}

#[test]
fn a_suspension_before_the_clock_starts_holds_its_start_until_the_resume() {
    let at = t0() + mins(1);
    given::<ClockAggregate>(structured())
        .when(C::Suspend { at, reason: "suspended: storm".into() })
        .then(vec![ClockEvent::PlaySuspended { at, paused_clock: false }]);
    let mut log = structured();
    log.push(ClockEvent::PlaySuspended { at, paused_clock: false });
    assert_eq!(code(&log, C::Start { at }), Err(codes::TOURNAMENT_SUSPENDED));
    log.extend(given::<ClockAggregate>(log.clone()).when(C::ResumePlay { at: t0() + mins(2) }).accepted());
    assert_eq!(log.last(), Some(&ClockEvent::PlayResumed { at: t0() + mins(2) }));
    assert!(code(&log, C::Start { at: t0() + mins(3) }).is_ok(), "the director starts it after the resume");
}

#[test]
fn a_suspension_held_already_or_after_the_stop_is_nothing_and_an_old_log_s_resume_resumes() {
    given::<ClockAggregate>(suspended()).when(C::Suspend { at: t0() + mins(11), reason: "again".into() }).then(vec![]);
    let mut stopped = started();
    stopped.push(ClockEvent::Stopped { at: t0() + mins(3) });
    given::<ClockAggregate>(stopped.clone()).when(C::Suspend { at: t0() + mins(4), reason: "late".into() }).then(vec![]);
    given::<ClockAggregate>(stopped).when(C::ResumePlay { at: t0() + mins(4) }).then(vec![]);
    given::<ClockAggregate>(started()).when(C::ResumePlay { at: t0() + mins(4) }).then(vec![]);
    // Before issue 33 a suspension paused the clock through the director's verb and recorded no
    // hold: its resume resumes the clock, as it did then.
    let mut old = started();
    old.push(ClockEvent::Paused { at: t0() + mins(10), remaining_ms: 300_000, reason: "suspended: power cut".into() });
    let at = t0() + mins(20);
    given::<ClockAggregate>(old).when(C::ResumePlay { at }).then(vec![ClockEvent::Resumed { at, ends_at: at + mins(5) }]);
}

#[test]
fn a_cancellation_stops_the_clock_for_good_and_every_director_verb_is_refused() {
    let at = t0() + mins(20);
    // Level 2 was due at 15 minutes: it starts at its instant, then the clock stops.
    let stop = given::<ClockAggregate>(started()).when(C::Stop { at }).accepted();
    assert!(matches!(stop.as_slice(), [ClockEvent::StepStarted { step: 1, .. }, ClockEvent::Stopped { at: a }] if *a == at), "{stop:?}");
    let mut log = started();
    log.extend(stop);
    let later = at + mins(1);
    let refused = [
        C::Start { at: later },
        C::Pause { at: later, reason: String::new() },
        C::Resume { at: later },
        C::AdjustTime { seconds: 60, at: later },
        C::SkipToLevel { level: 3, at: later },
        C::SkipTo { step: 2, at: later },
        C::EndBreak { at: later },
        C::SetStructure { structure: preset(Preset::Turbo) },
    ];
    for command in refused {
        assert_eq!(code(&log, command.clone()), Err(codes::CLOCK_STOPPED), "{command:?}");
    }
    given::<ClockAggregate>(log.clone()).when(C::Tick { now: later + mins(60) }).then(vec![]);
    given::<ClockAggregate>(log).when(C::Stop { at: later }).then(vec![]);
}

#[test]
fn a_cancellation_during_a_suspension_stops_the_held_clock() {
    let at = t0() + mins(40);
    given::<ClockAggregate>(suspended()).when(C::Stop { at }).then(vec![ClockEvent::Stopped { at }]);
    let mut log = suspended();
    log.push(ClockEvent::Stopped { at });
    assert_eq!(given::<ClockAggregate>(log.clone()).state().hold, None);
    assert_eq!(code(&log, C::Resume { at }), Err(codes::CLOCK_STOPPED));
    given::<ClockAggregate>(log).when(C::ResumePlay { at }).then(vec![]);
}

#[test]
fn a_tournament_cancelled_before_its_start_stops_a_clock_that_never_starts() {
    let at = t0();
    given::<ClockAggregate>(structured()).when(C::Stop { at }).then(vec![ClockEvent::Stopped { at }]);
    let mut log = structured();
    log.push(ClockEvent::Stopped { at });
    assert_eq!(code(&log, C::Start { at }), Err(codes::CLOCK_STOPPED));
    assert_eq!(code(&log, C::Resume { at }), Err(codes::CLOCK_STOPPED), "stopped, not 'not started'");
    given::<ClockAggregate>(vec![]).when(C::Stop { at }).then(vec![]);
}

#[derive(Debug, Clone)]
enum Op {
    Tick,
    Pause,
    Resume,
    Adjust(i64),
    Skip(u32),
    EndBreak,
    Suspend,
    ResumePlay,
    Stop,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => Just(Op::Tick),
        1 => Just(Op::Pause),
        2 => Just(Op::Resume),
        1 => (-600i64..600).prop_map(Op::Adjust),
        1 => (0u32..12).prop_map(Op::Skip),
        1 => Just(Op::EndBreak),
        1 => Just(Op::Suspend),
        1 => Just(Op::ResumePlay),
        1 => Just(Op::Stop),
    ]
}

proptest! {
    /// Whatever the director and play do, in whatever order: while a suspension holds the
    /// clock no director command starts it or a step, after the stop nothing changes it, and
    /// the state folded from the stored events (the hold included) equals the live one.
    #[test]
    fn a_held_or_stopped_clock_only_moves_as_play_does_and_the_log_replays(ops in prop::collection::vec((op(), 1i64..900), 1..60)) {
        let mut log = started();
        let mut state = log.iter().cloned().fold(Clock::default(), ClockAggregate::apply_event);
        let mut now = t0();
        for (op, gap) in ops {
            now += Duration::seconds(gap);
            let by_director = !matches!(op, Op::Tick | Op::Suspend | Op::ResumePlay | Op::Stop);
            let command = match op {
                Op::Tick => C::Tick { now },
                Op::Pause => C::Pause { at: now, reason: String::new() },
                Op::Resume => C::Resume { at: now },
                Op::Adjust(seconds) => C::AdjustTime { seconds, at: now },
                Op::Skip(step) => C::SkipTo { step, at: now },
                Op::EndBreak => C::EndBreak { at: now },
                Op::Suspend => C::Suspend { at: now, reason: "suspended".into() },
                Op::ResumePlay => C::ResumePlay { at: now },
                Op::Stop => C::Stop { at: now },
            };
            let (held, stopped) = (state.hold.is_some(), state.timeline.stopped);
            let outcome = ClockAggregate::handle_command(&state, command);
            if stopped {
                prop_assert!(outcome.as_ref().map_or(true, Vec::is_empty), "stopped, yet {:?}", outcome);
                if by_director {
                    prop_assert_eq!(outcome.clone().map_err(|e| e.code()), Err(codes::CLOCK_STOPPED));
                }
            }
            if let Ok(events) = outcome {
                if held && by_director {
                    let starts = events.iter().any(|e| matches!(e, ClockEvent::Resumed { .. } | ClockEvent::StepStarted { .. }));
                    prop_assert!(!starts, "held, yet a director's command started the clock: {:?}", events);
                }
                log.extend(events.iter().cloned());
                state = events.into_iter().fold(state, ClockAggregate::apply_event);
            }
            if state.hold.is_some() {
                prop_assert!(state.timeline.ends_at.is_none(), "a held clock does not run");
            }
            let replayed = log.iter().cloned().fold(Clock::default(), ClockAggregate::apply_event);
            prop_assert_eq!(&replayed, &state);
        }
    }
}
