//! Payouts: payout tables and finishing places. Every cent of the pool goes to a place.
//!
//! Spec: `../shared/spec/README.md` §7; `practice.md` §1.4 (simultaneous eliminations) and §4.4
//! (payout generators).
//!
//! The rules it applies are shared with the lobby and live in `floor_rules`: payout tables
//! (`payout_table`), the table a field locks (`field`) and finishing places (`standings`).
//!
//! # Layout
//!
//! - [`domain`]: the payouts aggregate: the table locked once the field is final, every place
//!   awarded, the tournament paid.
//! - [`deal`]: deals: the remaining players divide the unpaid prizes (the money is
//!   `floor_rules::deal`'s), and each later elimination is paid the agreed amount.
//! - [`policy`]: what the aggregate is told, read from registration, clock and seating events.
//! - [`rounds`]: a shootout's prizes per round reached and for tables won (issue 37).
//! - [`books`]: a tournament's money summed from its log.
//! - [`projection`]: every tournament's books kept in memory as the log is read.
//! - [`service`]: the policy and the books following the log, and the `books` endpoint.
#![deny(missing_docs)]

pub mod books;
pub mod deal;
pub mod domain;
pub mod policy;
pub mod projection;
pub mod rounds;
pub mod service;

#[cfg(test)]
mod cut_lottery_tests;
#[cfg(test)]
mod deal_tests;
#[cfg(test)]
mod domain_tests;
