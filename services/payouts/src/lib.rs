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
//! This is the pure core of the payouts service (issue 5); the service, the books and the lobby
//! view build on it.
#![deny(missing_docs)]

pub mod payout_table;
pub mod standings;

pub use payout_table::{generate, paid_places, Band, PayoutError, PayoutTable};
pub use standings::{award, rank, AcrossTables, Bust, EqualStacks, Finish, Ordering};

#[cfg(test)]
mod tests;
