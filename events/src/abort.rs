//! Suspend, resume and cancel a tournament in play: the director's requests, the abort
//! aggregate's events (`floor.ev.abort.<tournament_id>`), the cancellation snapshot and the
//! statements (issue 22).
//!
//! Spec: `../shared/spec/README.md` §10; 000 §16.11–16.12, 001 Art. 15/21, 002 §2.8, 003 GP §10,
//! 004 §4.37; `practice.md` §3. The rules and every decision: `docs/abort.md`.
//!
//! A suspension pauses the clock (the abort service sends the clock's `pause`); a resume sends
//! `resume`. A cancellation pins the [`snapshot::Snapshot`] the statements were computed from
//! (chips at the start of each table's interrupted hand) and the [`statement::Cancellation`]:
//! one statement per player concerned and the books, exact to the minor unit. One `cancelled`
//! event is one stored message. A cancellation of more entries than that holds is kept whole in
//! the object store ([`crate::subjects::CANCELLATIONS_BUCKET`]) and the event names it
//! ([`StoredCancellation`]); one that would still not fit is refused (`cancellation_too_large`,
//! [`MAX_CANCELLED_BYTES`]).

pub mod snapshot;
pub mod statement;

use crate::ids::{CommandId, PlayerId, TournamentId};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use snapshot::Snapshot;
use statement::{Books, Cancellation, Method, Statement};

/// The most bytes a `cancelled` event may take once encoded: NATS' default maximum payload is
/// 1 MiB, and the commit around the event needs a little room. About 1,280 entries still in fit
/// (700 bytes each with their statements); the abort service keeps larger ones whole in the
/// object store (`docs/abort.md`, "Event size").
pub const MAX_CANCELLED_BYTES: usize = 900_000;

/// Verbs of the abort service: `floor.cmd.abort.<verb>` (the director's).
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// Suspend a tournament in play: the clock pauses.
    pub const SUSPEND: Verb<Suspend, AbortRecorded> = Verb::new(service::ABORT, "suspend");
    /// Resume a suspended tournament where it stopped.
    pub const RESUME: Verb<AbortRequest, AbortRecorded> = Verb::new(service::ABORT, "resume");
    /// Cancel a tournament in play: every player's statement by the profile's rule.
    pub const CANCEL: Verb<Cancel, AbortRecorded> = Verb::new(service::ABORT, "cancel");
    /// A cancelled tournament's statements (all, or one player's).
    pub const STATEMENT: Verb<StatementRequest, Statements> = Verb::new(service::ABORT, "statement");
}

/// Suspend a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Suspend {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Why, for the players (required, at most 500 characters).
    pub reason: String,
}

/// A director's request naming only the tournament (resume).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbortRequest {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
}

/// Cancel a tournament in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cancel {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Why, for the players and the audit trail (required, at most 500 characters).
    pub reason: String,
    /// The method, where the profile offers a choice (tda-2024, reel-cz, win2day multi-table:
    /// `rollback` or `roll_forward`); `rulebook` (the default) is the profile's own formula.
    #[serde(default)]
    pub method: Method,
    /// Whose fault the end of play is, recorded with the cancellation. Required under
    /// hrvatska-lutrija-2017, whose refund obligation depends on it (001 Art. 15, Art. 21).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<CancelCause>,
}

/// Whose fault a cancellation in play is (001 Art. 15 and Art. 21; recorded under any
/// profile).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CancelCause {
    /// The operator's own failure (its servers, its connection): 001 Art. 15 refunds
    /// everything paid in.
    OperatorFault,
    /// A failure that is not the operator's fault (force majeure): 001 Art. 21, no liability;
    /// any refund is the operator's own decision.
    ForceMajeure,
}

impl CancelCause {
    /// How the command line and the console spell it.
    pub fn name(self) -> &'static str {
        match self {
            CancelCause::OperatorFault => "operator-fault",
            CancelCause::ForceMajeure => "force-majeure",
        }
    }

    /// From its [`CancelCause::name`] (or the snake_case of the contract).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "operator-fault" | "operator_fault" => Some(CancelCause::OperatorFault),
            "force-majeure" | "force_majeure" => Some(CancelCause::ForceMajeure),
            _ => None,
        }
    }
}

/// Ask for a cancelled tournament's statements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatementRequest {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// One player's statement only.
    #[serde(default)]
    pub player: Option<PlayerId>,
    /// Without `player`, a page: the statements of the players named after this one (name
    /// order); the reply's `next` says where the next page starts.
    #[serde(default)]
    pub after: Option<PlayerId>,
    /// Without `player`, at most this many (1 to [`STATEMENTS_PER_PAGE`], which is the default;
    /// more is taken as that many).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Statements one reply holds at most: a reply is one NATS message (1 MiB), a statement a few
/// hundred bytes, and a cancellation of 250,000 players has 250,000 of them (100 MB).
pub const STATEMENTS_PER_PAGE: u32 = 1_000;

/// The reply to suspend, resume and cancel: the events the command stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AbortRecorded {
    /// The events, in order.
    pub events: Vec<AbortEvent>,
}

/// A cancelled tournament's statements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Statements {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Why it was cancelled.
    pub reason: String,
    /// When.
    pub at: DateTime<Utc>,
    /// The books the cancellation closes.
    pub books: Books,
    /// The statements asked for, by player name (one, or a page of every player concerned).
    pub statements: Vec<Statement>,
    /// Players with a statement, on every page.
    #[serde(default)]
    pub players: u32,
    /// More statements follow this page: ask again with `after` = this player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<PlayerId>,
}

/// Why a tournament is suspended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// The abort aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
        /// A cancellation too large for one message: the whole event is in the object store
        /// ([`crate::subjects::CANCELLATIONS_BUCKET`]), and this one keeps the snapshot without
        /// its entries and the cancellation without its statements (books, method, rule and
        /// counts stay).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stored: Option<StoredCancellation>,
        /// Whose fault the end of play was, as the director said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cause: Option<CancelCause>,
    },
}

/// How a stored cancellation's bytes are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StoredEncoding {
    /// The whole `cancelled` event as JSON, compressed in the LZ4 frame format (lz4.org; any
    /// LZ4 library reads it): the JSON of 250,000 statements is 181 MB, and storing it
    /// uncompressed was most of the cancellation's time.
    JsonLz4,
}

/// Where a cancellation too large for one message is kept whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoredCancellation {
    /// The object's name in [`crate::subjects::CANCELLATIONS_BUCKET`].
    pub object: String,
    /// How the object's bytes are written.
    pub encoding: StoredEncoding,
    /// SHA-256 of the object's bytes (as stored), lowercase hex: a reader checks what it loads.
    pub sha256: String,
    /// The object's size in bytes, as stored.
    pub bytes: u64,
    /// Entries in the snapshot.
    pub entries: u32,
    /// Statements in the cancellation.
    pub statements: u32,
}
