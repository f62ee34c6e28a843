//! Abort: suspend and resume a running tournament, and, when it cannot go on, cancel it and
//! pay every player by the formula their operator published, to the cent, with a statement
//! per player that balances the books (issue 22).
//!
//! Spec: `../shared/spec/README.md` §10; 000 §16.11–16.12, 001 Art. 15/21, 002 §2.8, 003 GP §10,
//! 004 §4.37; `practice.md` §3. The rules, the remainder rule and every decision Floor took
//! where a rulebook is silent: `docs/abort.md`.
//!
//! The contract (requests, events, the snapshot and statement types, codes) is in
//! `floor_events::abort`; this crate computes, decides and wires.
//!
//! # Layout
//!
//! - [`snapshot`]: the tournament at cancellation (entries, money, chips, prize table), checked
//!   and summed ([`snapshot::Tally`]).
//! - [`cancellation`]: [`cancel`]: the profile's rule, the place prize floor, exactness and the
//!   books; the [`cancellation::Builder`] rules write lines with.
//! - [`rules`]: one file per rule set: `win2day`, `hrvatska_lutrija`, `svenska_spel`,
//!   `reel_cz`, `fortuna_cz`, `tda_2024`.
//! - [`split`]: the remainder rule (largest remainder, ties by entry number).
//! - [`statement`]: what a cancellation says: statements, lines, rules cited, books.
//! - [`error`]: why a cancellation cannot be computed, with stable codes.
//! - [`domain`]: the abort aggregate (one per tournament): suspend, resume, cancel.
//! - [`projection`]: pure folds: the lobby's view, and the tournament as the log tells it, from
//!   which a cancel's snapshot is built.
//! - [`policy`]: the watchdog (silent tables, suspensions past the limit); since issue 33 no
//!   orders (the clock, rebuys and registration read the abort log themselves).
//! - [`silence`]: which tables owe a report and since when; Floor's own suspension when too
//!   many are silent, and the cancellation of a suspension past the profile's limit.
//! - [`service`]: wiring: the endpoint and the policy runner.
#![deny(missing_docs)]

pub mod cancellation;
pub mod domain;
pub mod error;
pub mod policy;
pub mod projection;
pub mod rules;
pub mod service;
pub mod silence;
pub mod snapshot;
pub mod split;
pub mod statement;

pub use cancellation::cancel;
pub use domain::{AbortAggregate, AbortCommand, AbortError, AbortEvent, AbortState};
pub use error::CancelError;
pub use service::AbortService;
pub use snapshot::{Snapshot, Tally};
pub use statement::{Books, Cancellation, Case, Line, LineKind, Method, Rule, Statement};

#[cfg(test)]
mod spec;
