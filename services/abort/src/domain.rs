//! The abort aggregate: one per tournament. It suspends a running tournament, resumes it, or
//! cancels it with every player's statement. Pure: times come in the commands, and the
//! tournament's snapshot comes in the cancel command (the service will read it from the log).
//!
//! Life: running → suspended → running … ; running or suspended → cancelled, for good. 002
//! §2.8 T-12.5 is the model: an operator suspends when play is threatened, resumes "as soon as
//! possible", or else cancels.
//!
//! The events and the aggregate's name are the contract's (`floor_events::abort`,
//! `floor_events::subjects::aggregate::ABORT`). A `cancelled` event is one stored message. A
//! cancellation of more entries than one message holds is kept whole in the object store by the
//! service first ([`cancelled_event`] is what it stores); the cancel command then names it
//! (`stored`), and the event keeps the reference, the books and the counts, without the
//! snapshot's entries and the statements. One that would still exceed [`MAX_CANCELLED_BYTES`]
//! is refused (`cancellation_too_large`) rather than stored in a message NATS would not take.

use crate::cancellation::{cancel, cancel_before_the_start};
use crate::error::{codes, CancelError};
use crate::snapshot::Snapshot;
use crate::statement::Method;
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::text::{TextError, TextRule, CANCEL_REASON};
use floor_events::RuleProfile;

pub use floor_events::abort::{AbortEvent, CancelCause, StoredCancellation, SuspendReason, MAX_CANCELLED_BYTES};

/// The aggregate's name: `floor.ev.abort.<tournament_id>`.
pub const NAME: &str = floor_events::subjects::aggregate::ABORT;

/// Why a director suspends: players are told, so it is required (as a cancel's reason).
pub const SUSPEND_REASON: TextRule = TextRule { field: "reason", max_chars: 500, blank: Some(floor_events::codes::REASON_REQUIRED) };

/// The abort aggregate.
pub struct AbortAggregate;

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
        /// Whose fault (required under hrvatska-lutrija-2017).
        cause: Option<CancelCause>,
        /// The tournament's rule profile.
        profile: RuleProfile,
        /// The method, where the profile offers a choice.
        method: Method,
        /// The tournament at cancellation, chips as at the start of each interrupted hand.
        snapshot: Box<Snapshot>,
        /// When.
        at: DateTime<Utc>,
        /// The whole event is kept in the object store under this name (the service stored
        /// [`cancelled_event`] of this command there first): the event keeps the reference.
        stored: Option<StoredCancellation>,
        /// In play, or before the start (the way out when registration cannot cancel).
        stage: Stage,
    },
}

/// When a tournament is cancelled: the rule that writes the statements depends on it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Stage {
    /// Started and not over: the profile's rule ([`cancel`]).
    #[default]
    InPlay,
    /// Not started: everything paid in goes back
    /// ([`crate::cancellation::cancel_before_the_start`]). The service cancels here only a
    /// tournament whose registration log holds a commit no reader can apply: otherwise
    /// registration's own cancel refunds it.
    BeforeTheStart,
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
    /// The profile's refund depends on whose fault it is, and the cancel did not say.
    #[error("{} needs the cause: operator_fault (Art. 15: everything paid in goes back) or force_majeure (Art. 21)", .0.name())]
    CauseRequired(RuleProfile),
    /// The stored cancellation named is not this one (its counts differ).
    #[error("the stored cancellation {object} has {stored} entries and {statements} statements; this one {entries} and {ours}")]
    StoredMismatch {
        /// The object named.
        object: String,
        /// Its entries.
        stored: u32,
        /// Its statements.
        statements: u32,
        /// This cancellation's entries.
        entries: usize,
        /// And statements.
        ours: usize,
    },
    /// The `cancelled` event would not fit one stored message.
    #[error("the cancellation event would take {bytes} bytes, more than the {max} one message holds")]
    TooLarge {
        /// Its size, encoded.
        bytes: usize,
        /// The most allowed.
        max: usize,
    },
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
            Self::CauseRequired(_) => floor_events::codes::CAUSE_REQUIRED,
            Self::TooLarge { .. } => codes::CANCELLATION_TOO_LARGE,
            Self::StoredMismatch { .. } => floor_events::codes::INVALID_FIELD,
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
            AbortCommand::Cancel { reason, cause, profile, method, snapshot, at, stored, stage } => {
                if let AbortState::Suspended { since, .. } = state {
                    if at < *since {
                        return Err(AbortError::BeforeSuspension { at, since: *since });
                    }
                }
                let mut event = cancelled_event(reason, cause, snapshot, profile, method, at, stage)?;
                if let (Some(stored), AbortEvent::Cancelled { snapshot, cancellation, stored: reference, .. }) = (stored, &mut event) {
                    let (entries, ours) = (snapshot.entries.len(), cancellation.statements.len());
                    if usize::try_from(stored.entries) != Ok(entries) || usize::try_from(stored.statements) != Ok(ours) {
                        let (object, stored, statements) = (stored.object, stored.entries, stored.statements);
                        return Err(AbortError::StoredMismatch { object, stored, statements, entries, ours });
                    }
                    snapshot.entries = vec![];
                    cancellation.statements = vec![];
                    *reference = Some(stored);
                }
                // Encoding a plain serde value cannot fail; a failure would count as too large.
                let bytes = serde_json::to_vec(&event).map_or(usize::MAX, |v| v.len());
                if bytes > MAX_CANCELLED_BYTES {
                    return Err(AbortError::TooLarge { bytes, max: MAX_CANCELLED_BYTES });
                }
                Ok(vec![event])
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

/// The whole `cancelled` event a cancel gives (checked reason, every statement): what the
/// aggregate stores, or, for a cancellation too large for one message, what the service keeps
/// in the object store before it sends the command.
///
/// # Errors
/// A blank or long reason, or a snapshot the rule cannot cancel.
pub fn cancelled_event(
    reason: String,
    cause: Option<CancelCause>,
    snapshot: Box<Snapshot>,
    profile: RuleProfile,
    method: Method,
    at: DateTime<Utc>,
    stage: Stage,
) -> Result<AbortEvent, AbortError> {
    CANCEL_REASON.check(&reason)?;
    if stage == Stage::BeforeTheStart {
        // Everything goes back whoever's fault it is: 001 Art. 15's cause changes nothing.
        let cancellation = cancel_before_the_start(&snapshot, profile, method)?;
        return Ok(AbortEvent::Cancelled { reason, snapshot, cancellation: Box::new(cancellation), at, stored: None, cause });
    }
    if profile == RuleProfile::HrvatskaLutrija2017 && cause.is_none() {
        return Err(AbortError::CauseRequired(profile));
    }
    let mut cancellation = cancel(&snapshot, profile, method)?;
    // 001 Art. 21: not the operator's fault, no obligation; the refund Art. 15 describes is then
    // the operator's own decision, and the cancellation says so.
    if profile == RuleProfile::HrvatskaLutrija2017 && cause == Some(CancelCause::ForceMajeure) {
        cancellation.decided_under = Some(crate::statement::Rule::HrvatskaLutrijaArt21);
    }
    Ok(AbortEvent::Cancelled { reason, snapshot, cancellation: Box::new(cancellation), at, stored: None, cause })
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
