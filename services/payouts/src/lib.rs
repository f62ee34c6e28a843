//! Payouts: payout tables and finishing places. Every cent of the pool goes to a place.
//!
//! Spec: `../shared/spec/README.md` §7; `practice.md` §1.4 (simultaneous eliminations) and §4.4
//! (payout generators).
//!
//! # Layout
//!
//! - [`payout_table`]: places paid, and tables generated from the pool (integer-only, exact) or
//!   fixed by the director (checked against the pool).
//! - [`standings`]: places for players eliminated in the same hand, by profile, and the split of
//!   shared places with a deterministic remainder rule.
//!
//! - [`domain`]: the payouts aggregate: the table locked once the field is final, every place
//!   awarded, the tournament paid.
//! - [`policy`]: what the aggregate is told, read from registration, clock and seating events.
//! - [`books`]: a tournament's money summed from its log.
//! - [`projection`]: every tournament's books kept in memory as the log is read.
//! - [`service`]: the policy and the books following the log, and the `books` endpoint.
#![deny(missing_docs)]

pub mod books;
pub mod domain;
pub mod payout_table;
pub mod policy;
pub mod projection;
pub mod service;
pub mod standings;

pub use payout_table::{generate, paid_places, Band, PayoutError, PayoutTable};
pub use standings::{award, rank, AcrossTables, Bust, EqualStacks, Finish, Ordering};

#[cfg(test)]
mod domain_tests;
#[cfg(test)]
mod tests;
