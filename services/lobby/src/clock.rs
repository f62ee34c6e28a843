//! The blind clock as players see it in the lobby: level, blinds, when the level ends, the next
//! level and the next break.
//!
//! The lobby folds the clock's own events with the clock aggregate's own fold
//! (`floor_rules::clock::evolve`), so a pause, added time or a skip moves the lobby exactly as
//! it moves the clock. A document is static
//! JSON: clients count down to `step_ends_at` themselves (while paused, `paused_remaining_ms`
//! stays put).

use chrono::{DateTime, Duration, Utc};
use floor_events::clock::{ClockEvent, Level, Step, Structure};
use floor_rules::clock::{evolve, ClockState};
use serde::{Deserialize, Serialize};

/// Whether the clock runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockStatus {
    /// Structure known, not started.
    Waiting,
    /// Counting down.
    Running,
    /// Paused by the director.
    Paused,
}

/// The clock section of a lobby document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyClock {
    /// Waiting, running or paused.
    pub status: ClockStatus,
    /// Current level number (from 1), or the level just played during a break.
    pub level: Option<u32>,
    /// Break number (from 1) while on a break.
    pub on_break: Option<u32>,
    /// Blinds and ante now (none during a break).
    pub blinds: Option<Level>,
    /// Blinds and ante of the next level.
    pub next_blinds: Option<Level>,
    /// When the current level or break ends, while running. After the last step's time the
    /// last level simply continues.
    pub step_ends_at: Option<DateTime<Utc>>,
    /// Milliseconds left in the step, while paused.
    pub paused_remaining_ms: Option<u64>,
    /// When the next break starts, while running.
    pub next_break_at: Option<DateTime<Utc>>,
    /// Late registration and re-entry are closed.
    pub late_registration_closed: bool,
    /// The rebuy period is over (the add-on is offered at this break).
    pub rebuy_period_ended: bool,
    /// Dealers hold the push until the level change (RP-7).
    #[serde(default)]
    pub push_held: bool,
    /// Index of the current step (0-based).
    pub step: Option<u32>,
    /// The blind sheet.
    pub structure: Structure,
}

impl LobbyClock {
    /// A clock that has its structure and has not started.
    pub fn new(structure: Structure) -> Self {
        Self::from_state(ClockState { structure: Some(structure), ..ClockState::default() })
    }

    /// Folds one clock event.
    pub fn evolve(self, event: &ClockEvent) -> Self {
        Self::from_state(evolve(self.into_state(), event.clone()))
    }

    fn into_state(self) -> ClockState {
        ClockState {
            structure: Some(self.structure),
            step: self.step,
            ends_at: self.step_ends_at,
            paused_remaining_ms: self.paused_remaining_ms,
            late_registration_closed: self.late_registration_closed,
            rebuys_ended: self.rebuy_period_ended,
            push_held: self.push_held,
        }
    }

    fn from_state(state: ClockState) -> Self {
        let structure = state.structure.unwrap_or(Structure {
            steps: vec![],
            late_registration_levels: None,
            rebuys_until_break: None,
            push_hold_seconds: 0,
        });
        let current = state.step.map(|s| s as usize);
        let steps = &structure.steps;
        let level_of = |i: usize| match steps.get(i) {
            Some(Step::Level(l)) => Some(*l),
            _ => None,
        };
        let levels_up_to = |i: usize| steps[..=i].iter().filter(|s| matches!(s, Step::Level(_))).count() as u32;
        let status = match (current, state.paused_remaining_ms) {
            (None, _) => ClockStatus::Waiting,
            (Some(_), Some(_)) => ClockStatus::Paused,
            (Some(_), None) => ClockStatus::Running,
        };
        let from = current.map_or(0, |c| c + 1);
        let next_blinds = (from..steps.len()).find_map(level_of);
        // The next break starts when the current step and the levels before the break are over.
        let mut next_break_at = None;
        if let (Some(c), Some(mut t)) = (current, state.ends_at) {
            for step in &steps[c + 1..] {
                match step {
                    Step::Break { .. } => {
                        next_break_at = Some(t);
                        break;
                    }
                    Step::Level(l) => t += Duration::seconds(i64::from(l.seconds)),
                }
            }
        }
        Self {
            status,
            level: current.filter(|&c| levels_up_to(c) > 0).map(levels_up_to),
            on_break: current
                .filter(|&c| matches!(steps.get(c), Some(Step::Break { .. })))
                .map(|c| steps[..=c].iter().filter(|s| matches!(s, Step::Break { .. })).count() as u32),
            blinds: current.and_then(level_of),
            next_blinds,
            step_ends_at: state.ends_at,
            paused_remaining_ms: state.paused_remaining_ms,
            next_break_at,
            late_registration_closed: state.late_registration_closed,
            rebuy_period_ended: state.rebuys_ended,
            push_held: state.push_held,
            step: state.step,
            structure,
        }
    }
}
