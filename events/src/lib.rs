//! Floor's contract: every command, event, error code and NATS subject, as pure serde types.
//!
//! Nothing here does IO. Services, table servers and tests build against these types, and
//! `schemas/` is generated from them (JSON Schema per message plus `asyncapi.yaml`).
//!
//! # Layout
//!
//! - [`subjects`]: stream, subject and bucket names: the NATS address book.
//! - [`codes`]: stable machine error codes (`registration_closed`, `field_full`, …).
//! - [`contract`]: `Verb<Request, Reply>`, a command subject with its types.
//! - [`registry`]: every service: name, verbs with their types, aggregates written, subjects read.
//! - [`reply`]: the `{"ok": …}` / `{"error": {"code", "message"}}` reply envelope.
//! - [`money`]: integer minor units with a currency; never floats.
//! - [`ids`]: tournament, player, entry and command identifiers.
//! - [`profile`]: rule profiles, one per published rulebook, and the settings each implies.
//! - [`tournament`]: the tournament definition and its validation.
//! - [`registration`]: registration commands and the tournament aggregate's events.
//! - [`seating`]: the seating aggregate's events (draws, reports, moves, the table outbox).
//! - [`table`]: the table-server protocol: instructions to tables, reports from them.
//! - [`clock`]: blind structures and the clock aggregate's events.
//! - [`schedule`]: recurring tournament templates and the scheduler's requests.
//! - [`rebuys`]: rebuy and add-on requests and the rebuys aggregate's events.
//! - [`bubble`]: hand-for-hand settings, the director's requests and the bubble aggregate's
//! - [`bounties`]: bounty terms, the director's bounty requests and the bounties aggregate's
//!   events.
//! - [`abort`]: suspend, resume, cancel: the director's requests, the abort aggregate's events,
//!   the cancellation snapshot and the statements.
//! - [`satellites`]: the satellite section of a definition, tickets, and the satellite
//!   aggregate's events.
//! - [`shootouts`]: the shootout and double-or-nothing sections of a definition, and the
//!   shootout aggregate's events.
//! - [`lottery`]: the lottery sit & go's published prize table, and the lottery aggregate's
//!   events (the audited draw).
//! - [`player`]: the player aggregate (responsible-gaming tournament-count limits).
//! - [`text`]: the one check for text a stranger types (names, reasons): length, control
//!   characters, blank.
//! - [`schema`]: JSON Schema per message and the AsyncAPI document, for `schemas/`.
//! - [`commit`]: a stored commit decoded once into its aggregate's events (`Commit`, `Events`).
//! - [`record`]: how events are stored: versioned records, upcast on read.
#![deny(missing_docs)]

pub mod abort;
pub mod bounties;
pub mod bubble;
pub mod clock;
pub mod codes;
pub mod commit;
pub mod contract;
pub mod flights;
pub mod ids;
pub mod lottery;
pub mod money;
pub mod payouts;
pub mod player;
pub mod profile;
pub mod rebuys;
pub mod record;
pub mod registration;
pub mod registry;
pub mod reply;
pub mod satellites;
pub mod schedule;
pub mod schema;
pub mod seating;
pub mod shootouts;
pub mod subjects;
pub mod table;
mod tagged;
pub mod text;
pub mod tournament;

pub use contract::Verb;
pub use ids::{CommandId, EntryNo, PlayerId, TournamentId};
pub use money::{Currency, Money};
pub use profile::RuleProfile;
pub use reply::{ErrorBody, Reply};
