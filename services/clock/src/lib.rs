//! The blind-level clock.
//!
//! Spec: `../shared/spec/README.md` §4; issue 4.
//!
//! # Layout
//!
//! - [`structure`]: structure rules, presets (standard, turbo, hyper-turbo, deep stack, short
//!   stack) and TOML loading.
//! - [`domain`]: the clock aggregate: start, timer, pause, resume, add time, skip, end a break,
//!   and the late-registration and rebuy windows. Pure.
//!
//! The service (timers from events, table instructions, lobby) builds on this.
#![deny(missing_docs)]

pub mod domain;
pub mod structure;

pub use domain::{ClockAggregate, ClockCommand, ClockError, ClockState};

#[cfg(test)]
mod spec;
