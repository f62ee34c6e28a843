//! The clock's timeline: its state and how each clock event moves it.
//!
//! The clock service decides with this state and the lobby shows it, both folding the clock's
//! events with [`evolve`], so the lobby can never disagree with the clock about a pause, added
//! time or a skip. Pure: no clock is read here; every instant comes in an event.
//!
//! Spec: `../shared/spec/README.md` §4; TDA RP-7 (push held before a level change).
//!
//! # Bounds (issue 17)
//!
//! A director adds or removes at most [`MAX_TIME_ADJUSTMENT_SECONDS`] (a day) per command, and
//! added time never leaves more than [`MAX_TIME_LEFT_SECONDS`] (two days) in a step; a step of
//! a structure lasts at most a day (`crate::structure::MAX_STEP_SECONDS`). The clock's decider
//! refuses anything else, so every instant it stores is a few days from the command's own. The
//! fold still computes every instant with checked arithmetic: a log written before these bounds
//! (or by hand) holds events no decider produces now, and [`evolve`] never panics on them.

use chrono::{DateTime, TimeDelta, Utc};
use floor_events::clock::{ClockEvent, Step};

/// Most time one director command adds or removes: a day. A day is more than any pause a
/// director would enter as added time (overnight is a pause, not added time) and keeps a typo
/// like `9223372036854775807` from ever reaching the log.
pub const MAX_TIME_ADJUSTMENT_SECONDS: i64 = 86_400;

/// Most time left in a step after time is added: two days, twice the longest step
/// (`crate::structure::MAX_STEP_SECONDS`). Removing time is allowed whatever is left.
pub const MAX_TIME_LEFT_SECONDS: i64 = 2 * 86_400;

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
    /// The tournament is over: no step ends, nothing changes any more.
    pub stopped: bool,
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
        if !holds {
            return None;
        }
        end.checked_sub_signed(TimeDelta::seconds(i64::from(hold)))
    }

    /// The next instant the timer has something to do: hold the push, or start the next step.
    pub fn next_wakeup(&self) -> Option<DateTime<Utc>> {
        self.push_hold_at().or_else(|| self.next_change())
    }
}

/// Folds one clock event: the clock aggregate's `apply_event`, and the lobby's.
///
/// Never panics, whatever the event. Instants are computed with checked arithmetic; see
/// [`adjusted`] for an adjustment the clock cannot represent.
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
            if let Some((ends_at, paused_remaining_ms)) = adjusted(&state, seconds, at) {
                state.ends_at = ends_at;
                state.paused_remaining_ms = paused_remaining_ms;
                state.push_held = false;
            }
        }
        ClockEvent::LateRegistrationClosed { .. } => state.late_registration_closed = true,
        ClockEvent::RebuyPeriodEnded { .. } => state.rebuys_ended = true,
        ClockEvent::Stopped { .. } => {
            state.stopped = true;
            state.ends_at = None;
            state.paused_remaining_ms = None;
            state.push_held = false;
        }
        // The hold of a suspension is the clock aggregate's (issue 33); the timeline moves with
        // the `paused` and `resumed` recorded beside these.
        ClockEvent::PlaySuspended { .. } | ClockEvent::PlayResumed { .. } => {}
    }
    state
}

/// The step's end (running) and time left (paused) after `seconds` are added at `at`, or
/// `None` when the result cannot be represented.
///
/// Removing more than is left ends the step at `at` (time left zero), as it always has. Adding
/// more than an instant (or a `TimeDelta` of time left) can hold is a typo stored before the
/// bounds existed (issue 17: `i64::MAX` seconds): no decider accepts it now, so the fold ignores
/// it and the clock keeps the end it had, the one end the clock, its timer and the lobby can all
/// hold and agree on. Saturating instead would stop the clock for good.
pub fn adjusted(state: &ClockState, seconds: i64, at: DateTime<Utc>) -> Option<(Option<DateTime<Utc>>, Option<u64>)> {
    let ends_at = match state.ends_at {
        None => None,
        Some(end) => match TimeDelta::try_seconds(seconds).and_then(|d| end.checked_add_signed(d)) {
            Some(moved) => Some(moved.max(at)),
            // Below the earliest instant: more than was left is removed, so the step ends now.
            None if seconds < 0 => Some(at),
            None => return None,
        },
    };
    let paused_remaining_ms = match state.paused_remaining_ms {
        None => None,
        // i128 holds any u64 plus any i64 times 1,000. A time left is kept only while it is a
        // `TimeDelta` (i64 milliseconds), which a resume needs.
        Some(left) => {
            let left = (i128::from(left) + i128::from(seconds) * 1_000).max(0);
            Some(u64::try_from(i64::try_from(left).ok()?).ok()?)
        }
    };
    Some((ends_at, paused_remaining_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> DateTime<Utc> {
        "2027-01-10T18:00:00Z".parse().unwrap()
    }

    fn running(ends_at: DateTime<Utc>) -> ClockState {
        ClockState { step: Some(0), ends_at: Some(ends_at), push_held: true, ..ClockState::default() }
    }

    #[test]
    fn added_and_removed_time_move_the_end_and_never_below_now() {
        let end = t0() + TimeDelta::minutes(10);
        let later = evolve(running(end), ClockEvent::TimeAdjusted { seconds: 60, at: t0() });
        assert_eq!((later.ends_at, later.push_held), (Some(end + TimeDelta::minutes(1)), false));
        let now = evolve(running(end), ClockEvent::TimeAdjusted { seconds: -3_600, at: t0() });
        assert_eq!(now.ends_at, Some(t0()));
    }

    #[test]
    fn issue_17_an_adjustment_beyond_any_instant_leaves_the_clock_as_it_was() {
        let clock = running(t0() + TimeDelta::minutes(10));
        for seconds in [i64::MAX, 10_000_000_000_000] {
            assert_eq!(evolve(clock.clone(), ClockEvent::TimeAdjusted { seconds, at: t0() }), clock, "{seconds}");
        }
        let emptied = evolve(clock, ClockEvent::TimeAdjusted { seconds: i64::MIN, at: t0() });
        assert_eq!(emptied.ends_at, Some(t0()));
        let at_the_end_of_time = running(DateTime::<Utc>::MAX_UTC);
        assert_eq!(evolve(at_the_end_of_time.clone(), ClockEvent::TimeAdjusted { seconds: 1, at: t0() }), at_the_end_of_time);
    }

    #[test]
    fn issue_17_a_paused_clock_never_wraps() {
        let paused = ClockState { step: Some(0), paused_remaining_ms: Some(898_987), ..ClockState::default() };
        assert_eq!(evolve(paused.clone(), ClockEvent::TimeAdjusted { seconds: i64::MAX, at: t0() }), paused);
        let emptied = evolve(paused.clone(), ClockEvent::TimeAdjusted { seconds: i64::MIN, at: t0() });
        assert_eq!(emptied.paused_remaining_ms, Some(0));
        let added = evolve(paused, ClockEvent::TimeAdjusted { seconds: 1, at: t0() });
        assert_eq!(added.paused_remaining_ms, Some(899_987));
    }

    #[test]
    fn a_hold_before_the_earliest_instant_is_no_hold() {
        let structure = crate::structure::preset(floor_events::clock::Preset::Standard);
        let clock = ClockState {
            structure: Some(floor_events::clock::Structure { push_hold_seconds: 90, ..structure }),
            ..running(DateTime::<Utc>::MIN_UTC)
        };
        let clock = ClockState { push_held: false, ..clock };
        assert_eq!(clock.push_hold_at(), None);
    }
}
