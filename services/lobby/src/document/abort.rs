//! The lobby's play section: a suspension (with the reason shown to players, and since when)
//! and a cancellation in play (why, when, under which rule, and what the statements total).
//! Folded from the abort service's events alone.

use chrono::{DateTime, Utc};
use floor_events::abort::statement::Method;
use floor_events::abort::{AbortEvent, SuspendReason};
use floor_events::Money;
use serde::{Deserialize, Serialize};

/// A suspension in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suspension {
    /// Why, as players read it.
    pub reason: String,
    /// Since when.
    pub since: DateTime<Utc>,
}

/// A cancellation in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelledInPlay {
    /// Why.
    pub reason: String,
    /// When.
    pub at: DateTime<Utc>,
    /// The method applied.
    pub method: Method,
    /// Statements issued (one per player concerned).
    pub statements: u32,
    /// Their sum: what the players are paid back or out.
    pub total: Money,
    /// Whose fault the end of play was, as the director said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<floor_events::abort::CancelCause>,
}

/// Play as the lobby shows it (`play` in a tournament's document, once the abort service has
/// said something of it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyPlay {
    /// Suspended now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspended: Option<Suspension>,
    /// Cancelled in play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<CancelledInPlay>,
}

impl LobbyPlay {
    /// Nothing to show.
    pub fn is_quiet(&self) -> bool {
        self.suspended.is_none() && self.cancelled.is_none()
    }

    /// The section after one more abort event.
    pub fn evolve(mut self, event: &AbortEvent) -> Self {
        match event {
            AbortEvent::Suspended { reason, at } => {
                let reason = match reason {
                    SuspendReason::Director { reason } => reason.clone(),
                    SuspendReason::TablesSilent { silent, tables, seconds } => {
                        format!("{silent} of {tables} tables sent nothing for {seconds} seconds")
                    }
                };
                self.suspended = Some(Suspension { reason, since: *at });
            }
            AbortEvent::Resumed { .. } => self.suspended = None,
            AbortEvent::Cancelled { reason, cancellation, at, stored, cause, .. } => {
                self.suspended = None;
                // A cancellation too large for one message counts its statements in `stored`.
                let inline = u32::try_from(cancellation.statements.len()).unwrap_or(u32::MAX);
                self.cancelled = Some(CancelledInPlay {
                    reason: reason.clone(),
                    at: *at,
                    method: cancellation.method,
                    statements: stored.as_ref().map_or(inline, |s| s.statements),
                    total: Money::new(cancellation.books.statements, cancellation.currency),
                    cause: *cause,
                });
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_suspension_shows_its_reason_until_the_resume() {
        let suspended = LobbyPlay::default().evolve(&AbortEvent::Suspended {
            reason: SuspendReason::Director { reason: "power cut <b>room 2</b>".into() },
            at: at("2027-01-10T20:00:00Z"),
        });
        assert_eq!(suspended.suspended.as_ref().map(|s| s.reason.as_str()), Some("power cut <b>room 2</b>"));
        let silent = LobbyPlay::default().evolve(&AbortEvent::Suspended {
            reason: SuspendReason::TablesSilent { silent: 3, tables: 10, seconds: 120 },
            at: at("2027-01-10T20:00:00Z"),
        });
        assert_eq!(silent.suspended.unwrap().reason, "3 of 10 tables sent nothing for 120 seconds");
        let resumed = suspended.evolve(&AbortEvent::Resumed { suspended_at: at("2027-01-10T20:00:00Z"), at: at("2027-01-10T20:30:00Z") });
        assert!(resumed.is_quiet());
    }
}
