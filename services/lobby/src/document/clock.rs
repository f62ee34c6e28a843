//! The blind clock as players see it in the lobby: level, blinds, when the level ends, the next
//! level and the next break.
//!
//! The lobby folds the clock's own events with the clock aggregate's own fold
//! (`floor_rules::clock::evolve`), so a pause, added time or a skip moves the lobby exactly as
//! it moves the clock. A document is static
//! JSON: clients count down to `step_ends_at` themselves (while paused, `paused_remaining_ms`
//! stays put).

use chrono::{DateTime, TimeDelta, Utc};
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
    /// The tournament is over.
    Stopped,
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
    /// Why the director paused the clock (their words, shown to players), while paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_reason: Option<String>,
    /// Index of the current step (0-based).
    pub step: Option<u32>,
    /// The blind sheet, which the fold needs. Not in the document players read (a 33-level
    /// sheet would be most of it): the lobby stores it as its own resource
    /// ([`crate::structures`]). Read from a document stored before that, never written.
    #[serde(default = "no_structure", skip_serializing)]
    pub structure: Structure,
}

/// A structure without steps: a document's before the lobby gives it its own.
pub fn no_structure() -> Structure {
    Structure { steps: vec![], late_registration_levels: None, rebuys_until_break: None, push_hold_seconds: 0 }
}

impl LobbyClock {
    /// A clock that has its structure and has not started.
    pub fn new(structure: Structure) -> Self {
        Self::from_state(ClockState { structure: Some(structure), ..ClockState::default() })
    }

    /// Folds one clock event. A pause's reason stays while the clock is paused.
    pub fn evolve(self, event: &ClockEvent) -> Self {
        let reason = self.paused_reason.clone();
        let mut next = Self::from_state(evolve(self.into_state(), event.clone()));
        next.paused_reason = match event {
            _ if next.status != ClockStatus::Paused => None,
            ClockEvent::Paused { reason, .. } => Some(reason.clone()).filter(|r| !r.trim().is_empty()),
            _ => reason,
        };
        next
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
            stopped: self.status == ClockStatus::Stopped,
        }
    }

    fn from_state(state: ClockState) -> Self {
        let structure = state.structure.unwrap_or_else(no_structure);
        let current = state.step.map(|s| s as usize);
        let steps = &structure.steps;
        let level_of = |i: usize| match steps.get(i) {
            Some(Step::Level(l)) => Some(*l),
            _ => None,
        };
        // Indexes and sums below never panic, whatever the log holds (issue 17): a step past the
        // structure shows no blinds, a next break beyond any instant shows none.
        let levels_up_to = |i: usize| steps.iter().take(i.saturating_add(1)).filter(|s| matches!(s, Step::Level(_))).count() as u32;
        let status = match (current, state.paused_remaining_ms) {
            _ if state.stopped => ClockStatus::Stopped,
            (None, _) => ClockStatus::Waiting,
            (Some(_), Some(_)) => ClockStatus::Paused,
            (Some(_), None) => ClockStatus::Running,
        };
        let from = current.map_or(0, |c| c.saturating_add(1));
        let next_blinds = (from..steps.len()).find_map(level_of);
        // The next break starts when the current step and the levels before the break are over.
        let mut next_break_at = None;
        if let (Some(c), Some(mut t)) = (current, state.ends_at) {
            for step in steps.iter().skip(c.saturating_add(1)) {
                match step {
                    Step::Break { .. } => {
                        next_break_at = Some(t);
                        break;
                    }
                    Step::Level(l) => match t.checked_add_signed(TimeDelta::seconds(i64::from(l.seconds))) {
                        Some(later) => t = later,
                        None => break,
                    },
                }
            }
        }
        Self {
            status,
            level: current.filter(|&c| levels_up_to(c) > 0).map(levels_up_to),
            on_break: current
                .filter(|&c| matches!(steps.get(c), Some(Step::Break { .. })))
                .map(|c| steps.iter().take(c + 1).filter(|s| matches!(s, Step::Break { .. })).count() as u32),
            blinds: current.and_then(level_of),
            next_blinds,
            step_ends_at: state.ends_at,
            paused_remaining_ms: state.paused_remaining_ms,
            next_break_at,
            late_registration_closed: state.late_registration_closed,
            rebuy_period_ended: state.rebuys_ended,
            push_held: state.push_held,
            paused_reason: None,
            step: state.step,
            structure,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::clock::StepCause;

    fn t0() -> DateTime<Utc> {
        "2027-01-10T18:00:00Z".parse().unwrap()
    }

    fn level(seconds: u32) -> Step {
        Step::Level(Level { small_blind: 100, big_blind: 200, ante: 0, big_blind_ante: false, seconds })
    }

    fn started(structure: Structure, step: u32, ends_at: DateTime<Utc>) -> LobbyClock {
        LobbyClock::new(structure).evolve(&ClockEvent::StepStarted {
            step,
            number: step.saturating_add(1),
            at: t0(),
            ends_at,
            cause: StepCause::Start,
            blinds: None,
        })
    }

    fn structure(steps: Vec<Step>) -> Structure {
        Structure { steps, late_registration_levels: None, rebuys_until_break: None, push_hold_seconds: 0 }
    }

    #[test]
    fn the_next_break_starts_after_the_levels_before_it() {
        let clock = started(
            structure(vec![level(600), level(600), Step::Break { seconds: 300, color_up: None }]),
            0,
            t0() + TimeDelta::minutes(10),
        );
        assert_eq!(clock.next_break_at, Some(t0() + TimeDelta::minutes(20)));
        assert_eq!((clock.level, clock.status), (Some(1), ClockStatus::Running));
    }

    /// Issue 17: the lobby folds whatever the clock's log holds, including the `i64::MAX`
    /// seconds stored before the clock bounded adjustments, without a panic.
    #[test]
    fn issue_17_the_lobby_folds_an_overflowing_adjustment_and_keeps_the_end() {
        let end = t0() + TimeDelta::minutes(10);
        let clock = started(structure(vec![level(600), level(600)]), 0, end);
        let after = clock.clone().evolve(&ClockEvent::TimeAdjusted { seconds: i64::MAX, at: t0() });
        assert_eq!(after, clock);
        let paused = clock.evolve(&ClockEvent::Paused { at: t0(), remaining_ms: 600_000, reason: String::new() });
        let after = paused.clone().evolve(&ClockEvent::TimeAdjusted { seconds: i64::MAX, at: t0() });
        assert_eq!(after.paused_remaining_ms, Some(600_000), "no wrap-around");
    }

    #[test]
    fn a_pause_shows_its_reason_until_the_clock_runs_again_and_the_document_leaves_the_structure_out() {
        let clock = started(structure(vec![level(600), level(600)]), 0, t0() + TimeDelta::minutes(10));
        let paused = clock.evolve(&ClockEvent::Paused { at: t0(), remaining_ms: 300_000, reason: "chip race".into() });
        assert_eq!((paused.status, paused.paused_reason.as_deref()), (ClockStatus::Paused, Some("chip race")));
        let json = serde_json::to_value(&paused).unwrap();
        assert_eq!(json["paused_reason"], "chip race");
        assert!(json.get("structure").is_none(), "the structure is its own resource: {json}");
        let resumed = paused.evolve(&ClockEvent::Resumed { at: t0(), ends_at: t0() + TimeDelta::minutes(5) });
        assert_eq!((resumed.status, resumed.paused_reason), (ClockStatus::Running, None));
    }

    /// A document stored before the structure had its own resource holds it in its clock: it
    /// is read (the projection then moves it to `floor-lobby-structures`), and never written.
    #[test]
    fn a_structure_in_an_older_document_is_read_and_not_written_back() {
        let clock = started(structure(vec![level(600), level(900)]), 0, t0() + TimeDelta::minutes(10));
        let mut old = serde_json::to_value(&clock).unwrap();
        old["structure"] = serde_json::to_value(&clock.structure).unwrap();
        let read: LobbyClock = serde_json::from_value(old).unwrap();
        assert_eq!(read.structure.steps.len(), 2);
        assert!(serde_json::to_value(&read).unwrap().get("structure").is_none());
        let without: LobbyClock = serde_json::from_value(serde_json::to_value(&clock).unwrap()).unwrap();
        assert_eq!(without.structure, no_structure(), "a new document leaves it to the structures bucket");
    }

    #[test]
    fn a_step_past_the_structure_or_an_end_at_the_end_of_time_shows_without_a_panic() {
        let past = started(structure(vec![level(600)]), u32::MAX, t0());
        assert_eq!((past.blinds, past.next_blinds), (None, None));
        let far =
            started(structure(vec![level(600), level(86_400), Step::Break { seconds: 300, color_up: None }]), 0, DateTime::<Utc>::MAX_UTC);
        assert_eq!(far.next_break_at, None, "a break beyond any instant is not shown");
    }
}
