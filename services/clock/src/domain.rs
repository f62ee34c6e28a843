//! The clock aggregate: one per tournament. Pure: time comes in every command.
//!
//! The timer is the events: a step's `ends_at` is in its `StepStarted`, pauses record the time
//! left, resumes the new end, adjustments move it. A restarted service folds the events and
//! knows to the millisecond when the next step starts. Steps chain at their *scheduled* end, not
//! when a tick arrives, so a late tick never delays the levels after it. Every director command
//! first catches up with the steps already due at its instant.

use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::clock::{ClockEvent, Step, StepCause, Structure};
use floor_events::{codes, subjects};
use floor_rules::clock::{evolve, ClockState};
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
        }
    }
}

/// Level number (1-based) of a level step, or break number of a break step.
fn number(structure: &Structure, step: usize) -> u32 {
    let is_break = matches!(structure.steps[step], Step::Break { .. });
    structure.steps[..=step].iter().filter(|s| matches!(s, Step::Break { .. }) == is_break).count() as u32
}

/// Index of the `n`-th level (1-based), or of the `n`-th break.
fn index_of(structure: &Structure, n: u32, breaks: bool) -> Option<usize> {
    structure.steps.iter().enumerate().filter(|(_, s)| matches!(s, Step::Break { .. }) == breaks).nth(n as usize - 1).map(|(i, _)| i)
}

/// The events of starting `step` at `at`, with the windows it closes.
fn start_step(state: &ClockState, structure: &Structure, step: usize, at: DateTime<Utc>, cause: StepCause) -> Vec<ClockEvent> {
    let ends_at = at + Duration::seconds(i64::from(structure.steps[step].seconds()));
    let blinds = match structure.steps[step] {
        Step::Level(level) => Some(level),
        Step::Break { .. } => None,
    };
    let mut events = vec![ClockEvent::StepStarted { step: step as u32, number: number(structure, step), at, ends_at, cause, blinds }];
    let late_level = structure.late_registration_levels.and_then(|n| index_of(structure, n, false));
    if !state.late_registration_closed && late_level.is_some_and(|i| step > i) {
        events.push(ClockEvent::LateRegistrationClosed { at });
    }
    let rebuy_break = structure.rebuys_until_break.and_then(|n| index_of(structure, n, true));
    if !state.rebuys_ended && rebuy_break.is_some_and(|i| step >= i) {
        events.push(ClockEvent::RebuyPeriodEnded { at });
    }
    events
}

/// Starts every step due by `now`, each at its scheduled instant; returns the events and the
/// state after them.
fn due_steps(mut state: ClockState, now: DateTime<Utc>) -> (Vec<ClockEvent>, ClockState) {
    let mut events = Vec::new();
    let Some(structure) = state.structure.clone() else { return (events, state) };
    while let (Some(step), Some(end)) = (state.step, state.ends_at) {
        if end > now || step as usize + 1 >= structure.steps.len() {
            break;
        }
        for event in start_step(&state, &structure, step as usize + 1, end, StepCause::Timer) {
            state = ClockAggregate::apply_event(state, event.clone());
            events.push(event);
        }
    }
    (events, state)
}

impl Aggregate for ClockAggregate {
    const NAME: &'static str = subjects::aggregate::CLOCK;
    type State = ClockState;
    type Command = ClockCommand;
    type Event = ClockEvent;
    type Error = ClockError;

    fn handle_command(state: &ClockState, command: ClockCommand) -> Result<Vec<ClockEvent>, ClockError> {
        use ClockCommand::*;
        match command {
            SetStructure { structure } => {
                if state.step.is_some() {
                    return Err(ClockError::AlreadyStarted);
                }
                validate(&structure).map_err(ClockError::InvalidStructure)?;
                Ok(vec![ClockEvent::StructureSet { structure }])
            }
            Start { at } => {
                let Some(structure) = &state.structure else {
                    return Err(ClockError::InvalidStructure(StructureError { step: None, message: "no structure set".into() }));
                };
                if state.step.is_some() {
                    return Err(ClockError::AlreadyStarted);
                }
                Ok(start_step(state, structure, 0, at, StepCause::Start))
            }
            Tick { now } => {
                let (mut events, caught_up) = due_steps(state.clone(), now);
                if let (Some(at), Some(until)) = (caught_up.push_hold_at(), caught_up.ends_at) {
                    if at <= now {
                        events.push(ClockEvent::PushHeld { step: caught_up.step.expect("running"), at, until });
                    }
                }
                Ok(events)
            }
            Pause { at, reason } => director(state, at, |s, _| {
                let end = s.ends_at.ok_or(ClockError::Paused)?;
                let remaining_ms = (end - at).num_milliseconds().max(0) as u64;
                Ok(vec![ClockEvent::Paused { at, remaining_ms, reason }])
            }),
            Resume { at } => director(state, at, |s, _| {
                let remaining = s.paused_remaining_ms.ok_or(ClockError::Running)?;
                Ok(vec![ClockEvent::Resumed { at, ends_at: at + Duration::milliseconds(remaining as i64) }])
            }),
            AdjustTime { seconds, at } => director(state, at, |_, _| Ok(vec![ClockEvent::TimeAdjusted { seconds, at }])),
            SkipTo { step, at } => director(state, at, |s, structure| {
                if step as usize >= structure.steps.len() {
                    return Err(ClockError::UnknownStep(step));
                }
                Ok(start_step(s, structure, step as usize, at, StepCause::Skip))
            }),
            SkipToLevel { level, at } => director(state, at, |s, structure| {
                let step = (level > 0).then(|| index_of(structure, level, false)).flatten().ok_or(ClockError::UnknownStep(level))?;
                Ok(start_step(s, structure, step, at, StepCause::Skip))
            }),
            EndBreak { at } => director(state, at, |s, structure| {
                let current = s.step.expect("started") as usize;
                if !matches!(structure.steps[current], Step::Break { .. }) {
                    return Err(ClockError::NotInBreak);
                }
                if current + 1 >= structure.steps.len() {
                    return Ok(vec![]);
                }
                Ok(start_step(s, structure, current + 1, at, StepCause::BreakEndedEarly))
            }),
        }
    }

    /// The timeline's own fold (`floor_rules::clock`), which the lobby uses too.
    fn apply_event(state: ClockState, event: ClockEvent) -> ClockState {
        evolve(state, event)
    }
}

/// A director command at `at`: the clock must have started; steps already due are started
/// first, then `decide` runs on the caught-up state.
fn director(
    state: &ClockState,
    at: DateTime<Utc>,
    decide: impl FnOnce(&ClockState, &Structure) -> Result<Vec<ClockEvent>, ClockError>,
) -> Result<Vec<ClockEvent>, ClockError> {
    if state.step.is_none() {
        return Err(ClockError::NotStarted);
    }
    let (mut events, caught_up) = due_steps(state.clone(), at);
    let structure = caught_up.structure.clone().expect("a started clock has a structure");
    events.extend(decide(&caught_up, &structure)?);
    Ok(events)
}
