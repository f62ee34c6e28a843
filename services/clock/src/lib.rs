//! The blind-level clock.
//!
//! Spec: `../shared/spec/README.md` §4; issue 4.
//!
//! # Layout
//!
//! - [`domain`]: the clock aggregate: start, timer, pause, resume, add time, skip, end a break,
//!   and the late-registration and rebuy windows; the hold of a suspension and the stop of a
//!   cancellation (issue 33). It evolves through the timeline fold in `floor_rules::clock`,
//!   which the lobby shares, plus the hold. Structures, their rules and presets are in
//!   `floor_rules::structure`. Pure.
//! - [`policy`]: reactions to tournaments (structure at creation, start at the start, stop at
//!   the end or a cancellation) and to play (a suspension holds the clock, its resume releases
//!   it, a cancellation in play stops it: issue 33), the derived command ids that make them, and
//!   timer ticks, idempotent. Pure.
//! - [`projection`]: the timetable: every clock's state and when its next step change is due.
//!   Pure.
//! - [`service`]: the director endpoint `floor.cmd.clock.<verb>`, the timer, the policy runner.
#![deny(missing_docs)]

pub mod domain;
pub mod policy;
pub mod projection;
pub mod service;

pub use domain::{Clock, ClockAggregate, ClockCommand, ClockError};
pub use service::ClockService;

#[cfg(test)]
mod after_the_end_spec;
#[cfg(test)]
mod bounds_spec;
#[cfg(test)]
mod spec;
