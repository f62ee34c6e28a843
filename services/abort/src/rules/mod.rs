//! One file per rule set (`../shared/spec/README.md` §10), each citing its rulebook. A rule
//! writes its lines through [`crate::cancellation::Builder`] and returns the
//! [`crate::cancellation::Plan`] its pots must add up to.
//!
//! - [`win2day`]: 000 §16.11 (single table) and §16.12 (multi-table, Twister).
//! - [`hrvatska_lutrija`]: 001 Art. 15, everything paid in back.
//! - [`svenska_spel`]: 002 §2.8, the single-table case and the three multi-table cases.
//! - [`reel_cz`]: 003 publishes no formula (GP §10: the operator decides); tda-2024 by default.
//! - [`fortuna_cz`]: 004 §4.37: heads-up, multi-table before and in the money, guaranteed
//!   events, sit & go.
//! - [`tda_2024`]: rollback, roll-forward, ICM.
//! - [`deal`]: Floor's rule after the players still in agreed a deal, under every profile.

pub mod deal;
pub mod fortuna_cz;
pub mod hrvatska_lutrija;
pub mod reel_cz;
pub mod svenska_spel;
pub mod tda_2024;
pub mod win2day;

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod flight_tests;
