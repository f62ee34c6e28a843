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
//! - [`reports`]: checking table reports before they change anything.
//! - [`balancing`]: after each hand, which tables break and who moves where, and why.
//!
//! This is the pure core of the seating service; the aggregate, the table-server protocol and the
//! service wiring build on it (issue 3).
#![deny(missing_docs)]

pub mod balancing;
pub mod draw;
pub mod reports;
pub mod room;
pub mod table;

pub use balancing::{decide, BalanceWhen, Decision, Move, Mover, Reason, Rules};
pub use room::Room;
pub use table::{Occupant, Seat, Table};

#[cfg(test)]
mod properties;
#[cfg(test)]
mod report_checks;
