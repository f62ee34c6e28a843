//! Pure reactions to the abort aggregate's own events, and the watchdog.
//!
//! The clock's orders are gone (issue 33): a suspension, a resume and a cancellation used to
//! become the clock's `pause` and `resume` (and `pause` again on a cancellation), the
//! director's own verbs, so the clock could not tell a suspension's pause from a director's, and
//! a director's `clock resume` restarted the blinds while every table stood; a cancelled
//! tournament's clock could be resumed. The clock now reads the abort log itself
//! (`floor_clock::policy::react_to_abort`): a suspension holds it, only the resume of play
//! releases it, a cancellation stops it for good. The policy therefore orders nothing: [`Order`]
//! has no value.
//!
//! The tables' `pause`, `resume` and `close_table` are seating's reactions to the same events;
//! registration, rebuys, the clock and the bubble hold by reading them too (`docs/abort.md`).
//!
//! And, with no commit to react to, the watchdog ([`watchdog`]): at a moment `now`, Floor's own
//! suspension of a tournament whose tables fell silent, or the cancellation of a suspension
//! past the profile's limit ([`crate::silence`]).

use crate::domain::SuspendReason;
use crate::projection::TournamentView;
use chrono::{DateTime, Utc};
use floor_events::{CommandId, TournamentId};

/// A command the abort policy calls for: none since issue 33 (above), so none can be built;
/// the policy runner still checkpoints the memory it folds for the endpoint and the watchdog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {}

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
