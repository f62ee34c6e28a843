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
//! Still to do (`docs/abort.md`): tables get `pause`/`resume` or close (the instructions are in
//! the table protocol, but seating sends instructions only from its own reactions and exposes
//! no way for another service to order them); registration, rebuys and the bubble hold; Floor
//! suspending by itself when tables fall silent.

use crate::domain::{AbortEvent, SuspendReason};
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
