//! Pure rules that several services need, so no service crate depends on another (issue 16):
//! the clock and the lobby fold the same clock timeline, registration, the scheduler and the
//! clock check structures the same way, and payouts and the lobby compute the same tables.
//!
//! `floor-events` is the wire contract (types on the wire); this crate holds the rules over
//! them. No IO, no async, no clock, no randomness: every instant and amount comes in.
//!
//! # Layout
//!
//! - [`structure`]: blind structures: the rules they keep, presets (standard, turbo,
//!   hyper-turbo, deep stack, short stack), TOML loading, and resolving a definition's choice.
//! - [`clock`]: the clock's timeline: its state and how each clock event moves it (the clock
//!   aggregate's `apply_event`, and the lobby's clock section).
//! - [`payout_table`]: places paid, and tables generated from the pool (integer-only, exact) or
//!   fixed by the director (checked against the pool).
//! - [`field`]: the table a field locks: pool, guarantee and overlay, places paid, and 003's
//!   cap of prize money at 95 % of the stakes (`field::prize_cap`).
//! - [`hand_for_hand`]: when the bubble's trigger starts hand-for-hand, and the boundary it
//!   counts from (the bubble decides with it; payouts knows the announcement hand by it).
//! - [`standings`]: places for players eliminated in the same hand, by profile, and the split
//!   of shared places with a deterministic remainder rule.
//! - [`icm`]: the Independent Chip Model (Malmuth-Harville): place probabilities and equities
//!   by three exact methods (every order, subsets, the exponential race for large fields), and
//!   equities in cents.
//! - [`deal`]: the money of a deal among the last players (issue 22): ICM, chip chop, equal
//!   split or custom amounts, with an optional amount left to play for.
//! - [`satellite`]: a satellite's seats and double or nothing's equal prizes (issue 37): the
//!   equal prize a stop pays, how many its pool buys, the table that pays them,
//!   and when play stops (issue 36).
//! - [`flight`]: flights (issue 36): where a Day 1 stops, what its survivors carry into the
//!   Day 2 (first stack, best stack forward, stack builder) and the Day 2's pool.
//! - [`definition_file`]: a definition as people write it (TOML or JSON, relative times), read
//!   the same way by the CLI and the console.
//! - [`cents`]: splitting cents by weights so the parts sum exactly (the largest-remainder
//!   rule every deal method uses).
//!
//! Fee caps stay with the rule profiles in `floor_events::profile`: a tournament definition
//! checks them in its own validation (`floor_events::tournament`), and `events` cannot depend
//! on this crate, which depends on it.
#![deny(missing_docs)]

pub mod cents;
pub mod clock;
pub mod deal;
pub mod definition_file;
pub mod field;
pub mod flight;
pub mod hand_for_hand;
pub mod icm;
pub mod payout_table;
pub mod satellite;
pub mod standings;
pub mod structure;

pub use clock::ClockState;
pub use deal::{Deal, DealError, DealMethod, DealPlayer, DealTerms};
pub use field::{table_for, table_with_stakes, Field, FieldError, Stakes};
pub use icm::{IcmError, PlaceProbabilities};
pub use payout_table::{generate, paid_places, Band, PayoutError, PayoutTable};
pub use standings::{award, rank, AcrossTables, Bust, EqualStacks, Finish, Ordering};
pub use structure::StructureError;

#[cfg(test)]
mod tests;
