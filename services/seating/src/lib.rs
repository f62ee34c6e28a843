//! Seating: who sits where, from the first draw to the final table.
//!
//! Spec: `../shared/spec/README.md` §3, TDA 2024 R7, R8, R10, R11, RP-9.
//!
//! # Layout
//!
//! - [`table`]: one table, its next-hand positions, where a newcomer may sit, the worst seat.
//! - [`draw`]: seeded, auditable draws (commitment = SHA-256 of the seed) and the start-of-play
//!   seat draw.
//! - [`room`]: every table of a tournament, indexed by player count.
//! - [`reports`]: table reports as received (read off their subject) and why one is rejected;
//!   the checks against the state are the decider's (`domain/reporting.rs`).
//! - [`balancing`]: after each hand, which tables break and who moves where, and why.
//!
//! - [`commands`]: what the seating aggregate is asked to do, and its refusals.
//! - [`domain`]: the seating aggregate: the draw, late seats, reports checked against where
//!   players physically sit, decisions after each hand, and every table instruction as an
//!   event (the outbox).
//!   A shootout (issue 37, `domain/shootout.rs`) is never balanced or broken: each table of a
//!   round stops at its winners (`table_won`, `close_table`) and each later round is a fresh
//!   audited draw of the winners (`round_draw_committed`, `round_drawn`).
//!
//! - [`policy`]: reactions to the tournament, its clock and its rebuys; the seeds of draws.
//! - [`simulated`]: a protocol-following table server with seeded random hands (`floor sim`,
//!   tests).
//! - [`service`]: the runners: policy, table reports in, instructions out (the outbox).
//! - `publishing`: instructions sent as each commit is stored, the outbox as backstop.
#![deny(missing_docs)]

pub mod balancing;
pub mod commands;
pub mod domain;
pub mod draw;
pub mod policy;
mod publishing;
pub mod reports;
pub mod room;
pub mod service;
pub mod simulated;
pub mod table;

pub use balancing::{decide, BalanceWhen, Decision, Move, Mover, Reason, Rules};
pub use room::Room;
pub use table::{Occupant, Seat, Table};

#[cfg(test)]
mod domain_tests;
#[cfg(test)]
mod move_tests;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod report_checks;
