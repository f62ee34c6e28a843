//! The clock aggregate: one per tournament. Pure: time comes in every command.
//!
//! The timer is the events: a step's `ends_at` is in its `StepStarted`, pauses record the time
//! left, resumes the new end, adjustments move it. A restarted service folds the events and
//! knows to the millisecond when the next step starts. Steps chain at their *scheduled* end, not
//! when a tick arrives, so a late tick never delays the levels after it. Every director command
//! first catches up with the steps already due at its instant.
//!
//! Bounds (issue 17): an adjustment adds or removes at most a day and never leaves more than
//! two days in a step (`floor_rules::clock`); every instant is computed with checked
//! arithmetic, and one that cannot be represented is refused (`clock_time_out_of_range`), so
//! the clock never stores an event its fold cannot hold.
//!
//! After the end and during a suspension (issue 33): the clock's policy tells it when play is
//! suspended, resumed or cancelled (the abort log) and when the tournament is cancelled before
//! its start. A suspension holds the clock (`play_suspended`, with the `paused` of a running
//! clock): a director's resume, skip, end of break or start is refused until the resume of play
//! (`play_resumed`, with the `resumed` of the clock the suspension paused); added time stays
//! allowed, since it starts nothing. A cancellation stops the clock for good (`stopped`), as the
//! tournament's end does: every director verb is refused after it (`clock_stopped`).

use chrono::{DateTime, TimeDelta, Utc};
use esrs::Aggregate;
use floor_events::clock::{ClockEvent, Step, StepCause, Structure};
use floor_events::{codes, subjects};
use floor_rules::clock::{adjusted, evolve, ClockState, MAX_TIME_ADJUSTMENT_SECONDS, MAX_TIME_LEFT_SECONDS};

/// A clock as its aggregate knows it: the timeline, which the lobby folds too, and the hold of a
/// suspension of play (issue 33), which only the decider needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Clock {
    /// Levels, breaks, pauses, added time, the end: `floor_rules::clock`'s fold.
    pub timeline: ClockState,
    /// Play is suspended: only its resume starts the clock again.
    pub hold: Option<Hold>,
}

/// A suspension's hold on the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hold {
    /// The suspension paused the clock (it was running): the resume of play resumes it.
    pub paused_clock: bool,
}
use floor_rules::structure::{validate, StructureError};

/// The clock aggregate.
pub struct ClockAggregate;

/// What the clock is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockCommand {
    /// Set (or replace, before the start) the structure.
    SetStructure {
        /// The structure.
        structure: Structure,
    },
    /// Start the first step.
    Start {
        /// Now.
        at: DateTime<Utc>,
    },
    /// The timer: start every step due by `now`.
    Tick {
        /// Now.
        now: DateTime<Utc>,
    },
    /// Pause.
    Pause {
        /// Now.
        at: DateTime<Utc>,
        /// Why, for the audit trail.
        reason: String,
    },
    /// Resume.
    Resume {
        /// Now.
        at: DateTime<Utc>,
    },
    /// Add (or, negative, remove) time in the current step.
    AdjustTime {
        /// Seconds.
        seconds: i64,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Jump to a level (1-based level number), as directors say it.
    SkipToLevel {
        /// The level number.
        level: u32,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Jump to a step (0-based index).
    SkipTo {
        /// The step.
        step: u32,
        /// Now.
        at: DateTime<Utc>,
    },
    /// End the current break now.
    EndBreak {
        /// Now.
        at: DateTime<Utc>,
    },
    /// The tournament is over or cancelled: stop for good, after starting any step due by
    /// `at`. A clock not started yet is stopped too (a tournament cancelled before its start).
    Stop {
        /// When the tournament ended or was cancelled.
        at: DateTime<Utc>,
    },
    /// Play is suspended (the abort log's `suspended`): hold the clock, pausing it if it runs.
    Suspend {
        /// When play stopped.
        at: DateTime<Utc>,
        /// The pause's reason, shown to the players ("suspended: …").
        reason: String,
    },
    /// Play resumed (the abort log's `resumed`): end the hold, and resume the clock if the
    /// suspension paused it.
    ResumePlay {
        /// When play started again.
        at: DateTime<Utc>,
    },
}

/// Why the clock said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// The structure breaks a rule, or none is set.
    #[error("invalid structure: {0}")]
    InvalidStructure(StructureError),
    /// Not started yet.
    #[error("the clock has not started")]
    NotStarted,
    /// Started already.
    #[error("the clock has already started")]
    AlreadyStarted,
    /// Running (for example: resume).
    #[error("the clock is running")]
    Running,
    /// Paused (for example: pause).
    #[error("the clock is paused")]
    Paused,
    /// No such step.
    #[error("the structure has no level or step {0}")]
    UnknownStep(u32),
    /// Only during a break.
    #[error("the clock is not in a break")]
    NotInBreak,
    /// More than a day added or removed, or time added beyond two days left in the step.
    #[error("{seconds} s is out of range: at most {MAX_TIME_ADJUSTMENT_SECONDS} s either way, and at most {MAX_TIME_LEFT_SECONDS} s left in the step")]
    TimeAdjustmentOutOfRange {
        /// The adjustment asked for.
        seconds: i64,
    },
    /// A step's end would be outside the instants the clock can represent.
    #[error("the step would end outside the range of instants the clock can represent")]
    TimeOutOfRange,
    /// No clock for this tournament: no structure was ever set (an unknown tournament, or one
    /// whose director has not given its clock a structure).
    #[error("no clock for this tournament")]
    UnknownTournament,
    /// The pause reason is too long or holds a control character.
    #[error("{0}")]
    Text(floor_events::text::TextError),
    /// The tournament is over or cancelled and its clock stopped.
    #[error("the tournament is over: its clock has stopped")]
    Stopped,
    /// Play is suspended: only the resume of play starts the clock again (issue 33).
    #[error("play is suspended: only resuming play starts the clock again")]
    Suspended,
}

impl floor_runtime::DomainError for ClockError {
    fn code(&self) -> &'static str {
        match self {
            Self::InvalidStructure(_) => codes::INVALID_STRUCTURE,
            Self::NotStarted => codes::CLOCK_NOT_STARTED,
            Self::AlreadyStarted => codes::CLOCK_ALREADY_STARTED,
            Self::Running => codes::CLOCK_RUNNING,
            Self::Paused => codes::CLOCK_PAUSED,
            Self::UnknownStep(_) => codes::UNKNOWN_LEVEL,
            Self::NotInBreak => codes::NOT_IN_BREAK,
            Self::TimeAdjustmentOutOfRange { .. } => codes::TIME_ADJUSTMENT_OUT_OF_RANGE,
            Self::TimeOutOfRange => codes::CLOCK_TIME_OUT_OF_RANGE,
            Self::UnknownTournament => codes::UNKNOWN_TOURNAMENT,
            Self::Text(e) => e.code,
            Self::Stopped => codes::CLOCK_STOPPED,
            Self::Suspended => codes::TOURNAMENT_SUSPENDED,
        }
    }
}

/// Level number (1-based) of a level step, or break number of a break step. Structures have
/// at most `MAX_STEPS` steps, so the count fits.
fn number(structure: &Structure, step: usize) -> u32 {
    let is_break = matches!(structure.steps.get(step), Some(Step::Break { .. }));
    structure.steps.iter().take(step + 1).filter(|s| matches!(s, Step::Break { .. }) == is_break).count() as u32
}

/// Index of the `n`-th level (1-based), or of the `n`-th break.
fn index_of(structure: &Structure, n: u32, breaks: bool) -> Option<usize> {
    let nth = usize::try_from(n.checked_sub(1)?).ok()?;
    structure.steps.iter().enumerate().filter(|(_, s)| matches!(s, Step::Break { .. }) == breaks).nth(nth).map(|(i, _)| i)
}

/// The events of starting `step` at `at`, with the windows it closes.
///
/// # Errors
/// `UnknownStep` past the structure; `TimeOutOfRange` when its end cannot be represented.
fn start_step(
    state: &ClockState,
    structure: &Structure,
    step: usize,
    at: DateTime<Utc>,
    cause: StepCause,
) -> Result<Vec<ClockEvent>, ClockError> {
    let (Some(current), Ok(index)) = (structure.steps.get(step), u32::try_from(step)) else {
        return Err(ClockError::UnknownStep(u32::try_from(step).unwrap_or(u32::MAX)));
    };
    let ends_at = at.checked_add_signed(TimeDelta::seconds(i64::from(current.seconds()))).ok_or(ClockError::TimeOutOfRange)?;
    let blinds = match current {
        Step::Level(level) => Some(*level),
        Step::Break { .. } => None,
    };
    let mut events = vec![ClockEvent::StepStarted { step: index, number: number(structure, step), at, ends_at, cause, blinds }];
    let late_level = structure.late_registration_levels.and_then(|n| index_of(structure, n, false));
    if !state.late_registration_closed && late_level.is_some_and(|i| step > i) {
        events.push(ClockEvent::LateRegistrationClosed { at });
    }
    let rebuy_break = structure.rebuys_until_break.and_then(|n| index_of(structure, n, true));
    if !state.rebuys_ended && rebuy_break.is_some_and(|i| step >= i) {
        events.push(ClockEvent::RebuyPeriodEnded { at });
    }
    Ok(events)
}

/// Starts every step due by `now`, each at its scheduled instant; returns the events and the
/// timeline after them.
///
/// # Errors
/// `TimeOutOfRange` when a due step's end cannot be represented.
fn due_steps(mut state: ClockState, now: DateTime<Utc>) -> Result<(Vec<ClockEvent>, ClockState), ClockError> {
    let mut events = Vec::new();
    let Some(structure) = state.structure.clone() else { return Ok((events, state)) };
    while let (Some(step), Some(end)) = (state.step, state.ends_at) {
        if end > now || step as usize + 1 >= structure.steps.len() {
            break;
        }
        for event in start_step(&state, &structure, step as usize + 1, end, StepCause::Timer)? {
            state = evolve(state, event.clone());
            events.push(event);
        }
    }
    Ok((events, state))
}

/// Time added or removed at `at`, within the bounds (issue 17): at most
/// [`MAX_TIME_ADJUSTMENT_SECONDS`] either way, and added time leaves at most
/// [`MAX_TIME_LEFT_SECONDS`] in the step. Removing time is allowed whatever is left, so a clock
/// whose end an older log pushed far away can be brought back.
fn adjust_time(state: &ClockState, seconds: i64, at: DateTime<Utc>) -> Result<Vec<ClockEvent>, ClockError> {
    if seconds.unsigned_abs() > MAX_TIME_ADJUSTMENT_SECONDS.unsigned_abs() {
        return Err(ClockError::TimeAdjustmentOutOfRange { seconds });
    }
    let (ends_at, paused_remaining_ms) = adjusted(state, seconds, at).ok_or(ClockError::TimeOutOfRange)?;
    let left_ms = match (ends_at, paused_remaining_ms) {
        (Some(end), _) => (end - at).num_milliseconds(),
        (None, Some(left)) => i64::try_from(left).unwrap_or(i64::MAX),
        (None, None) => 0,
    };
    if seconds > 0 && left_ms > MAX_TIME_LEFT_SECONDS * 1_000 {
        return Err(ClockError::TimeAdjustmentOutOfRange { seconds });
    }
    Ok(vec![ClockEvent::TimeAdjusted { seconds, at }])
}

impl Aggregate for ClockAggregate {
    const NAME: &'static str = subjects::aggregate::CLOCK;
    type State = Clock;
    type Command = ClockCommand;
    type Event = ClockEvent;
    type Error = ClockError;

    fn handle_command(state: &Clock, command: ClockCommand) -> Result<Vec<ClockEvent>, ClockError> {
        use ClockCommand::*;
        let clock = &state.timeline;
        match command {
            SetStructure { structure } => {
                if clock.stopped {
                    return Err(ClockError::Stopped);
                }
                if clock.step.is_some() {
                    return Err(ClockError::AlreadyStarted);
                }
                validate(&structure).map_err(ClockError::InvalidStructure)?;
                Ok(vec![ClockEvent::StructureSet { structure }])
            }
            Start { at } => {
                if clock.stopped {
                    return Err(ClockError::Stopped);
                }
                not_held(state)?;
                let Some(structure) = &clock.structure else {
                    return Err(ClockError::InvalidStructure(StructureError { step: None, message: "no structure set".into() }));
                };
                if clock.step.is_some() {
                    return Err(ClockError::AlreadyStarted);
                }
                start_step(clock, structure, 0, at, StepCause::Start)
            }
            Tick { now } => {
                let (mut events, caught_up) = due_steps(clock.clone(), now)?;
                if let (Some(at), Some(until), Some(step)) = (caught_up.push_hold_at(), caught_up.ends_at, caught_up.step) {
                    if at <= now {
                        events.push(ClockEvent::PushHeld { step, at, until });
                    }
                }
                Ok(events)
            }
            Pause { at, reason } => director(state, at, |s, _| {
                floor_events::text::PAUSE_REASON.check(&reason).map_err(ClockError::Text)?;
                let end = s.ends_at.ok_or(ClockError::Paused)?;
                Ok(vec![paused(end, at, reason)])
            }),
            Resume { at } => director(state, at, |s, _| {
                not_held(state)?;
                Ok(vec![resumed(s, at)?])
            }),
            // Allowed while play is suspended: it starts nothing, and a director may give back
            // time a level lost before the suspension (tables silent before Floor noticed).
            AdjustTime { seconds, at } => director(state, at, |s, _| adjust_time(s, seconds, at)),
            SkipTo { step, at } => director(state, at, |s, structure| {
                not_held(state)?;
                if step as usize >= structure.steps.len() {
                    return Err(ClockError::UnknownStep(step));
                }
                start_step(s, structure, step as usize, at, StepCause::Skip)
            }),
            SkipToLevel { level, at } => director(state, at, |s, structure| {
                not_held(state)?;
                let step = index_of(structure, level, false).ok_or(ClockError::UnknownStep(level))?;
                start_step(s, structure, step, at, StepCause::Skip)
            }),
            EndBreak { at } => director(state, at, |s, structure| {
                not_held(state)?;
                let current = s.step.map_or(usize::MAX, |step| step as usize);
                if !matches!(structure.steps.get(current), Some(Step::Break { .. })) {
                    return Err(ClockError::NotInBreak);
                }
                if current + 1 >= structure.steps.len() {
                    return Ok(vec![]);
                }
                start_step(s, structure, current + 1, at, StepCause::BreakEndedEarly)
            }),
            Stop { at } => {
                // No clock (no structure), or stopped already: a replayed reaction.
                if clock.structure.is_none() || clock.stopped {
                    return Ok(vec![]);
                }
                let (mut events, _) = due_steps(clock.clone(), at)?;
                events.push(ClockEvent::Stopped { at });
                Ok(events)
            }
            Suspend { at, reason } => suspend(state, at, reason),
            ResumePlay { at } => resume_play(state, at),
        }
    }

    /// The timeline's own fold (`floor_rules::clock`), which the lobby uses too, and the hold.
    fn apply_event(mut state: Clock, event: ClockEvent) -> Clock {
        match &event {
            ClockEvent::PlaySuspended { paused_clock, .. } => state.hold = Some(Hold { paused_clock: *paused_clock }),
            ClockEvent::PlayResumed { .. } | ClockEvent::Stopped { .. } => state.hold = None,
            _ => {}
        }
        state.timeline = evolve(state.timeline, event);
        state
    }
}

/// A director's resume, skip, end of break or start needs play not suspended.
///
/// # Errors
/// `Suspended` while a suspension holds the clock.
fn not_held(state: &Clock) -> Result<(), ClockError> {
    if state.hold.is_some() {
        return Err(ClockError::Suspended);
    }
    Ok(())
}

/// The pause at `at` of a step ending at `end`.
fn paused(end: DateTime<Utc>, at: DateTime<Utc>, reason: String) -> ClockEvent {
    let remaining_ms = u64::try_from((end - at).num_milliseconds()).unwrap_or(0);
    ClockEvent::Paused { at, remaining_ms, reason }
}

/// The resume at `at` of a paused clock.
///
/// # Errors
/// `Running` when it is not paused; `TimeOutOfRange` when its new end cannot be represented.
fn resumed(clock: &ClockState, at: DateTime<Utc>) -> Result<ClockEvent, ClockError> {
    let remaining = clock.paused_remaining_ms.ok_or(ClockError::Running)?;
    // A time left stored before the bounds may be beyond any instant: refused, and a skip to a
    // level restarts the clock.
    let ends_at = i64::try_from(remaining)
        .ok()
        .and_then(TimeDelta::try_milliseconds)
        .and_then(|left| at.checked_add_signed(left))
        .ok_or(ClockError::TimeOutOfRange)?;
    Ok(ClockEvent::Resumed { at, ends_at })
}

/// Play is suspended at `at`: a running clock is paused (after the steps due by then) and held;
/// a clock paused already, or not started, is only held. Nothing when held already or stopped
/// (a replayed reaction, or a suspension after the end).
///
/// # Errors
/// `TimeOutOfRange` when a due step's end cannot be represented.
fn suspend(state: &Clock, at: DateTime<Utc>, reason: String) -> Result<Vec<ClockEvent>, ClockError> {
    if state.timeline.stopped || state.hold.is_some() {
        return Ok(vec![]);
    }
    if state.timeline.step.is_none() || state.timeline.ends_at.is_none() {
        return Ok(vec![ClockEvent::PlaySuspended { at, paused_clock: false }]);
    }
    let (mut events, caught_up) = due_steps(state.timeline.clone(), at)?;
    let Some(end) = caught_up.ends_at else { return Ok(vec![ClockEvent::PlaySuspended { at, paused_clock: false }]) };
    events.push(paused(end, at, reason));
    events.push(ClockEvent::PlaySuspended { at, paused_clock: true });
    Ok(events)
}

/// Play resumed at `at`: the hold ends, and the clock the suspension paused runs again with
/// the time it had left; a clock a director had paused before stays paused. Without a hold (a
/// suspension recorded before issue 33 paused the clock through the director's verb) a paused
/// clock is resumed, as that suspension's resume did.
///
/// # Errors
/// `TimeOutOfRange` when the new end cannot be represented.
fn resume_play(state: &Clock, at: DateTime<Utc>) -> Result<Vec<ClockEvent>, ClockError> {
    let clock = &state.timeline;
    if clock.stopped {
        return Ok(vec![]);
    }
    let paused = clock.step.is_some() && clock.paused_remaining_ms.is_some();
    match state.hold {
        Some(Hold { paused_clock: true }) if paused => Ok(vec![resumed(clock, at)?, ClockEvent::PlayResumed { at }]),
        Some(_) => Ok(vec![ClockEvent::PlayResumed { at }]),
        None if paused => Ok(vec![resumed(clock, at)?]),
        None => Ok(vec![]),
    }
}

/// A director command at `at`: the clock must have started and not stopped; steps already due
/// are started first, then `decide` runs on the caught-up timeline.
fn director(
    state: &Clock,
    at: DateTime<Utc>,
    decide: impl FnOnce(&ClockState, &Structure) -> Result<Vec<ClockEvent>, ClockError>,
) -> Result<Vec<ClockEvent>, ClockError> {
    let clock = &state.timeline;
    if clock.structure.is_none() {
        return Err(ClockError::UnknownTournament);
    }
    // Before "not started": a tournament cancelled before its start stopped its clock for good.
    if clock.stopped {
        return Err(ClockError::Stopped);
    }
    if clock.step.is_none() {
        return Err(ClockError::NotStarted);
    }
    let (mut events, caught_up) = due_steps(clock.clone(), at)?;
    // Every started clock has a structure (start needs one); a log that says otherwise is
    // answered as not started rather than trusted.
    let Some(structure) = caught_up.structure.clone() else { return Err(ClockError::NotStarted) };
    events.extend(decide(&caught_up, &structure)?);
    Ok(events)
}
