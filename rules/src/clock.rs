//! The clock's timeline: its state and how each clock event moves it.
//!
//! The clock service decides with this state and the lobby shows it, both folding the clock's
//! events with [`evolve`], so the lobby can never disagree with the clock about a pause, added
//! time or a skip. Pure: no clock is read here; every instant comes in an event.
//!
//! Spec: `../shared/spec/README.md` §4; TDA RP-7 (push held before a level change).

use chrono::{DateTime, Duration, Utc};
use floor_events::clock::{ClockEvent, Step};

/// A clock, folded from its events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClockState {
    /// The structure.
    pub structure: Option<floor_events::clock::Structure>,
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

/// Folds one clock event: the clock aggregate's `apply_event`, and the lobby's.
pub fn evolve(mut state: ClockState, event: ClockEvent) -> ClockState {
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
