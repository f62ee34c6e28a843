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
//! - [`policy`]: reactions to tournaments (structure at creation, start at the start) and the
//!   derived command ids that make them, and timer ticks, idempotent. Pure.
//! - [`projection`]: the timetable: every clock's state and when its next step change is due.
//!   Pure.
//! - [`service`]: the director endpoint `floor.cmd.clock.<verb>`, the timer, the policy runner.
#![deny(missing_docs)]

pub mod domain;
pub mod policy;
pub mod projection;
pub mod service;
pub mod structure;

pub use domain::{ClockAggregate, ClockCommand, ClockError, ClockState};
pub use service::ClockService;

#[cfg(test)]
mod spec;
