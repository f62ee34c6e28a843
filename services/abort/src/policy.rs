//! Pure reactions to the abort aggregate's own events: the orders a suspension, a resume or a
//! cancellation causes, each with a command id derived from the commit and the event that
//! caused it, so a replay is answered, not applied twice.
//!
//! - `suspended` → the clock's `pause` (the reason shown to the players);
//! - `resumed` → the clock's `resume`;
//! - `cancelled` → the clock's `pause`: play is over, the clock stops where it is;
//! - the clock *starting* while the tournament is suspended → the clock's `pause` (a suspension
//!   decided between the tournament's start and its clock's first level found no clock to
//!   pause, and the clock would otherwise run while play is suspended).
//!
//! The tables' `pause`, `resume` and `close_table` are seating's reactions to the same events;
//! registration, rebuys and the bubble hold by reading them too (`docs/abort.md`).
//!
//! And, with no commit to react to, the watchdog ([`watchdog`]): at a moment `now`, Floor's own
//! suspension of a tournament whose tables fell silent, or the cancellation of a suspension
//! past the profile's limit ([`crate::silence`]).

use crate::domain::{AbortEvent, SuspendReason};
use crate::projection::TournamentView;
use chrono::{DateTime, Utc};
use floor_events::clock::{ClockEvent, ClockRequest, PauseClock, StepCause};
use floor_events::{CommandId, TournamentId};

/// A command the abort policy calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// Pause the tournament's clock.
    ClockPause(PauseClock),
    /// Resume it.
    ClockResume(ClockRequest),
}

/// The orders one commit of the abort aggregate causes (`sequence`: the commit's stream
/// sequence).
pub fn on_abort(tournament: TournamentId, sequence: u64, events: &[AbortEvent]) -> Vec<Order> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let id = |what: &str| CommandId::derived(&format!("abort-{what}:{tournament}:{sequence}:{i}"));
            match e {
                AbortEvent::Suspended { reason, .. } => {
                    Order::ClockPause(PauseClock { command_id: id("clock-pause"), tournament_id: tournament, reason: pause_reason(reason) })
                }
                AbortEvent::Resumed { .. } => {
                    Order::ClockResume(ClockRequest { command_id: id("clock-resume"), tournament_id: tournament })
                }
                AbortEvent::Cancelled { .. } => {
                    Order::ClockPause(PauseClock { command_id: id("clock-pause"), tournament_id: tournament, reason: "cancelled".into() })
                }
            }
        })
        .collect()
}

/// The reason a suspension's pause shows on the clock.
fn pause_reason(reason: &SuspendReason) -> String {
    match reason {
        SuspendReason::Director { reason } => format!("suspended: {reason}"),
        SuspendReason::TablesSilent { silent, tables, seconds } => format!("suspended: {silent} of {tables} tables silent for {seconds} s"),
    }
}

/// The orders one clock commit causes: its start, while the tournament is `suspended`, pauses it.
pub fn on_clock(tournament: TournamentId, sequence: u64, events: &[ClockEvent], suspended: Option<&SuspendReason>) -> Vec<Order> {
    let Some(reason) = suspended else { return vec![] };
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, ClockEvent::StepStarted { cause: StepCause::Start, .. }))
        .map(|(i, _)| {
            let command_id = CommandId::derived(&format!("abort-clock-started:{tournament}:{sequence}:{i}"));
            Order::ClockPause(PauseClock { command_id, tournament_id: tournament, reason: pause_reason(reason) })
        })
        .collect()
}

/// What the watchdog does about one tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Watchdog {
    /// Suspend it: too many tables are silent.
    Suspend {
        /// Derived from the tournament and its suspensions so far: one per silence.
        command_id: CommandId,
        /// How many tables, of how many, for how long.
        reason: SuspendReason,
    },
    /// Cancel it under its profile's own rule: suspended past the profile's limit.
    Cancel {
        /// Derived from the tournament and the suspension's start.
        command_id: CommandId,
        /// Why, for the statements.
        reason: String,
    },
}

/// The watchdog's decision for tournament `t` at `now`, if any: a tournament in play, not
/// suspended, whose silent tables reach its profile's share and time is suspended; one
/// suspended past its profile's limit is cancelled.
pub fn watchdog(t: TournamentId, view: &TournamentView, now: DateTime<Utc>) -> Option<Watchdog> {
    let profile = view.profile?;
    if view.in_play().is_err() || view.abort.cancelled.is_some() {
        return None;
    }
    let rules = profile.suspension();
    if let Some((_, since)) = &view.abort.suspended {
        let limit = crate::silence::overdue(rules, *since, now)?;
        let command_id = CommandId::derived(&format!("abort-overdue:{t}:{}", since.timestamp_millis()));
        let reason = format!("suspended longer than {} minutes, the limit of {}", limit / 60, profile.name());
        return Some(Watchdog::Cancel { command_id, reason });
    }
    let reason = view.silence.silent(rules, now)?;
    let command_id = CommandId::derived(&format!("abort-silent:{t}:{}", view.abort.suspensions));
    Some(Watchdog::Suspend { command_id, reason })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn suspend_pauses_the_clock_and_resume_resumes_it_with_ids_derived_from_the_commit() {
        let t = TournamentId::new();
        let at = chrono::Utc.with_ymd_and_hms(2026, 11, 24, 20, 0, 0).unwrap();
        let suspended = [AbortEvent::Suspended { reason: SuspendReason::Director { reason: "power cut".into() }, at }];
        let orders = on_abort(t, 7, &suspended);
        let [Order::ClockPause(p)] = orders.as_slice() else { panic!("{orders:?}") };
        assert_eq!(p.reason, "suspended: power cut");
        assert_eq!(on_abort(t, 7, &suspended), orders, "the same commit gives the same ids");
        assert_ne!(on_abort(t, 8, &suspended), orders, "another commit, another id");
        let resumed = on_abort(t, 9, &[AbortEvent::Resumed { suspended_at: at, at }]);
        assert!(matches!(resumed.as_slice(), [Order::ClockResume(r)] if r.tournament_id == t));
    }

    #[test]
    fn a_clock_that_starts_while_play_is_suspended_is_paused() {
        let t = TournamentId::new();
        let at = chrono::Utc.with_ymd_and_hms(2026, 11, 24, 20, 0, 0).unwrap();
        let started = |cause| ClockEvent::StepStarted { step: 0, number: 1, at, ends_at: at, cause, blinds: None };
        let reason = SuspendReason::Director { reason: "power cut".into() };
        let orders = on_clock(t, 12, &[started(StepCause::Start)], Some(&reason));
        let [Order::ClockPause(p)] = orders.as_slice() else { panic!("{orders:?}") };
        assert_eq!((p.tournament_id, p.reason.as_str()), (t, "suspended: power cut"));
        assert_eq!(on_clock(t, 12, &[started(StepCause::Start)], Some(&reason)), orders, "the same commit gives the same id");
        assert!(on_clock(t, 12, &[started(StepCause::Start)], None).is_empty(), "not suspended: nothing");
        assert!(on_clock(t, 13, &[started(StepCause::Timer)], Some(&reason)).is_empty(), "a level change of a running clock: nothing");
    }
}
