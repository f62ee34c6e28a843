//! The clock aggregate: one per tournament. Pure: time comes in every command.
//!
//! The timer is the events: a step's `ends_at` is in its `StepStarted`, pauses record the time
//! left, resumes the new end, adjustments move it. A restarted service folds the events and
//! knows to the millisecond when the next step starts. Steps chain at their *scheduled* end, not
//! when a tick arrives, so a late tick never delays the levels after it. Every director command
//! first catches up with the steps already due at its instant.

use crate::structure::{validate, StructureError};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::clock::{ClockEvent, Step, StepCause, Structure};
use floor_events::{codes, subjects};

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
    /// No clock for this tournament: no structure was ever set (an unknown tournament, or one
    /// whose director has not given its clock a structure).
    #[error("no clock for this tournament")]
    UnknownTournament,
    /// The pause reason is too long or holds a control character.
    #[error("{0}")]
    Text(floor_events::text::TextError),
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
            Self::UnknownTournament => codes::UNKNOWN_TOURNAMENT,
            Self::Text(e) => e.code,
        }
    }
}

/// The clock, folded from its events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClockState {
    /// The structure.
    pub structure: Option<Structure>,
    /// The current step, once started.
    pub step: Option<u32>,
    /// When the current step ends, while running.
    pub ends_at: Option<DateTime<Utc>>,
    /// Milliseconds left, while paused.
    pub paused_remaining_ms: Option<u64>,
    /// Late registration closed.
    pub late_registration_closed: bool,
    /// Rebuy period over.
    pub rebuys_ended: bool,
    /// The push is held for the current step's end (RP-7); cleared when the end moves.
    pub push_held: bool,
}

impl ClockState {
    /// When the next step starts, if the clock is running and a next step exists.
    pub fn next_change(&self) -> Option<DateTime<Utc>> {
        let (structure, step) = (self.structure.as_ref()?, self.step?);
        (step as usize + 1 < structure.steps.len()).then_some(self.ends_at).flatten()
    }

    /// When the push is to be held before the current step's end, if it is due one: the clock
    /// runs, the step is a level longer than the hold, a break or level follows, and the hold
    /// was not announced yet.
    pub fn push_hold_at(&self) -> Option<DateTime<Utc>> {
        let structure = self.structure.as_ref()?;
        let hold = structure.push_hold_seconds;
        let end = self.next_change()?;
        let step = structure.steps.get(self.step? as usize)?;
        let holds = hold > 0 && !self.push_held && matches!(step, Step::Level(l) if l.seconds > hold);
        holds.then(|| end - Duration::seconds(i64::from(hold)))
    }

    /// The next instant the timer has something to do: hold the push, or start the next step.
    pub fn next_wakeup(&self) -> Option<DateTime<Utc>> {
        self.push_hold_at().or_else(|| self.next_change())
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
                floor_events::text::PAUSE_REASON.check(&reason).map_err(ClockError::Text)?;
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

    fn apply_event(mut state: ClockState, event: ClockEvent) -> ClockState {
        match event {
            ClockEvent::StructureSet { structure } => state.structure = Some(structure),
            ClockEvent::StepStarted { step, ends_at, .. } => {
                state.step = Some(step);
                state.ends_at = Some(ends_at);
                state.paused_remaining_ms = None;
                state.push_held = false;
            }
            ClockEvent::PushHeld { .. } => state.push_held = true,
            ClockEvent::Paused { remaining_ms, .. } => {
                state.ends_at = None;
                state.paused_remaining_ms = Some(remaining_ms);
            }
            ClockEvent::Resumed { ends_at, .. } => {
                state.ends_at = Some(ends_at);
                state.paused_remaining_ms = None;
                state.push_held = false;
            }
            ClockEvent::TimeAdjusted { seconds, at } => {
                state.push_held = false;
                if let Some(end) = state.ends_at {
                    state.ends_at = Some((end + Duration::seconds(seconds)).max(at));
                }
                if let Some(left) = state.paused_remaining_ms {
                    state.paused_remaining_ms = Some((left as i64 + seconds * 1_000).max(0) as u64);
                }
            }
            ClockEvent::LateRegistrationClosed { .. } => state.late_registration_closed = true,
            ClockEvent::RebuyPeriodEnded { .. } => state.rebuys_ended = true,
        }
        state
    }
}

/// A director command at `at`: the clock must have started; steps already due are started
/// first, then `decide` runs on the caught-up state.
fn director(
    state: &ClockState,
    at: DateTime<Utc>,
    decide: impl FnOnce(&ClockState, &Structure) -> Result<Vec<ClockEvent>, ClockError>,
) -> Result<Vec<ClockEvent>, ClockError> {
    if state.structure.is_none() {
        return Err(ClockError::UnknownTournament);
    }
    if state.step.is_none() {
        return Err(ClockError::NotStarted);
    }
    let (mut events, caught_up) = due_steps(state.clone(), at);
    let structure = caught_up.structure.clone().expect("a started clock has a structure");
    events.extend(decide(&caught_up, &structure)?);
    Ok(events)
}
