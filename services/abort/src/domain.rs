//! The abort aggregate: one per tournament. It suspends a running tournament, resumes it, or
//! cancels it with every player's statement. Pure: times come in the commands, and the
//! tournament's snapshot comes in the cancel command (the service will read it from the log).
//!
//! Life: running → suspended → running … ; running or suspended → cancelled, for good. 002
//! §2.8 T-12.5 is the model: an operator suspends when play is threatened, resumes "as soon as
//! possible", or else cancels.
//!
//! The contract (commands, events, the aggregate's name, the new codes) is local to this crate
//! until the service is wired: then the events and [`NAME`] move to `floor-events` (aggregate
//! names are forever, so the name chosen here is the one to keep) and the codes to
//! `floor_events::codes`.

use crate::cancellation::cancel;
use crate::error::{codes, CancelError};
use crate::snapshot::Snapshot;
use crate::statement::{Cancellation, Method};
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::text::{TextError, TextRule, CANCEL_REASON};
use floor_events::RuleProfile;
use serde::{Deserialize, Serialize};

/// The aggregate's name: `floor.ev.abort.<tournament_id>` once wired.
pub const NAME: &str = "abort";

/// Why a director suspends: players are told, so it is required (as a cancel's reason).
pub const SUSPEND_REASON: TextRule = TextRule { field: "reason", max_chars: 500, blank: Some(floor_events::codes::REASON_REQUIRED) };

/// The abort aggregate.
pub struct AbortAggregate;

/// Why a tournament is suspended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SuspendReason {
    /// The director suspended it.
    Director {
        /// The director's words.
        reason: String,
    },
    /// Floor suspended it: this many tables sent no report for this long (issue 22: instead
    /// of letting players blind out, SCOOP 2017).
    TablesSilent {
        /// Tables silent.
        silent: u32,
        /// Tables in play.
        tables: u32,
        /// For how long, seconds.
        seconds: u64,
    },
}

/// What the abort aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbortCommand {
    /// Suspend the tournament: the clock pauses, tables stop after their hand, registration,
    /// rebuys and hand-for-hand hold (the service's orders).
    Suspend {
        /// Why.
        reason: SuspendReason,
        /// When.
        at: DateTime<Utc>,
    },
    /// Resume a suspended tournament where it stopped.
    Resume {
        /// When.
        at: DateTime<Utc>,
    },
    /// Cancel the tournament and pay everyone by the profile's rule.
    Cancel {
        /// Why, for the players and the audit trail.
        reason: String,
        /// The tournament's rule profile.
        profile: RuleProfile,
        /// The method, where the profile offers a choice.
        method: Method,
        /// The tournament at cancellation, chips as at the start of each interrupted hand.
        snapshot: Box<Snapshot>,
        /// When.
        at: DateTime<Utc>,
    },
}

/// The abort aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AbortEvent {
    /// Play is suspended.
    Suspended {
        /// Why.
        reason: SuspendReason,
        /// When.
        at: DateTime<Utc>,
    },
    /// Play resumes.
    Resumed {
        /// When the suspension began.
        suspended_at: DateTime<Utc>,
        /// When.
        at: DateTime<Utc>,
    },
    /// The tournament is cancelled: every statement, the chips and the figures used pinned.
    Cancelled {
        /// Why.
        reason: String,
        /// The snapshot the statements were computed from.
        snapshot: Box<Snapshot>,
        /// The statements and the books.
        cancellation: Box<Cancellation>,
        /// When.
        at: DateTime<Utc>,
    },
}

/// Where a tournament stands, for the abort service.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AbortState {
    /// In play (or not started): nothing suspended.
    #[default]
    Running,
    /// Suspended.
    Suspended {
        /// Why.
        reason: SuspendReason,
        /// Since when.
        since: DateTime<Utc>,
    },
    /// Cancelled, for good.
    Cancelled {
        /// When.
        at: DateTime<Utc>,
    },
}

/// Why the abort aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AbortError {
    /// The tournament is cancelled: nothing more happens to it.
    #[error("the tournament was cancelled")]
    Cancelled,
    /// Suspended already.
    #[error("the tournament is suspended already")]
    AlreadySuspended,
    /// Resume without a suspension.
    #[error("the tournament is not suspended")]
    NotSuspended,
    /// A time before the suspension.
    #[error("{at} is before the suspension at {since}")]
    BeforeSuspension {
        /// The command's time.
        at: DateTime<Utc>,
        /// The suspension's.
        since: DateTime<Utc>,
    },
    /// Silent tables that are not a share of the tables in play.
    #[error("{silent} silent tables of {tables}")]
    SilentTables {
        /// Tables silent.
        silent: u32,
        /// Tables in play.
        tables: u32,
    },
    /// A reason that breaks the text rules.
    #[error(transparent)]
    Reason(#[from] TextError),
    /// The cancellation cannot be computed.
    #[error(transparent)]
    Cancellation(#[from] CancelError),
}

impl floor_runtime::DomainError for AbortError {
    fn code(&self) -> &'static str {
        match self {
            Self::Cancelled => floor_events::codes::TOURNAMENT_CANCELLED,
            Self::AlreadySuspended => codes::ALREADY_SUSPENDED,
            Self::NotSuspended => codes::NOT_SUSPENDED,
            Self::BeforeSuspension { .. } => codes::BEFORE_SUSPENSION,
            Self::SilentTables { .. } => floor_events::codes::INVALID_FIELD,
            Self::Reason(e) => e.code,
            Self::Cancellation(e) => e.code(),
        }
    }
}

impl Aggregate for AbortAggregate {
    const NAME: &'static str = NAME;
    type State = AbortState;
    type Command = AbortCommand;
    type Event = AbortEvent;
    type Error = AbortError;

    fn handle_command(state: &AbortState, command: AbortCommand) -> Result<Vec<AbortEvent>, AbortError> {
        if let AbortState::Cancelled { .. } = state {
            return Err(AbortError::Cancelled);
        }
        match command {
            AbortCommand::Suspend { reason, at } => suspend(state, reason, at),
            AbortCommand::Resume { at } => match state {
                AbortState::Suspended { since, .. } if at < *since => Err(AbortError::BeforeSuspension { at, since: *since }),
                AbortState::Suspended { since, .. } => Ok(vec![AbortEvent::Resumed { suspended_at: *since, at }]),
                _ => Err(AbortError::NotSuspended),
            },
            AbortCommand::Cancel { reason, profile, method, snapshot, at } => {
                if let AbortState::Suspended { since, .. } = state {
                    if at < *since {
                        return Err(AbortError::BeforeSuspension { at, since: *since });
                    }
                }
                CANCEL_REASON.check(&reason)?;
                let cancellation = cancel(&snapshot, profile, method)?;
                Ok(vec![AbortEvent::Cancelled { reason, snapshot, cancellation: Box::new(cancellation), at }])
            }
        }
    }

    fn apply_event(_state: AbortState, event: AbortEvent) -> AbortState {
        match event {
            AbortEvent::Suspended { reason, at } => AbortState::Suspended { reason, since: at },
            AbortEvent::Resumed { .. } => AbortState::Running,
            AbortEvent::Cancelled { at, .. } => AbortState::Cancelled { at },
        }
    }
}

fn suspend(state: &AbortState, reason: SuspendReason, at: DateTime<Utc>) -> Result<Vec<AbortEvent>, AbortError> {
    if let AbortState::Suspended { .. } = state {
        return Err(AbortError::AlreadySuspended);
    }
    match &reason {
        SuspendReason::Director { reason } => SUSPEND_REASON.check(reason)?,
        SuspendReason::TablesSilent { silent, tables, .. } if *silent == 0 || silent > tables => {
            return Err(AbortError::SilentTables { silent: *silent, tables: *tables });
        }
        SuspendReason::TablesSilent { .. } => {}
    }
    Ok(vec![AbortEvent::Suspended { reason, at }])
}
