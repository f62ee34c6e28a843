//! Scheduler: recurring tournaments from cron expressions in the tournament's time zone.
//!
//! Spec: `../shared/spec/README.md` §1 (sit & go and scheduled starts); issue 4.
//!
//! # Layout
//!
//! - [`occurrences`]: when a template's tournaments start, daylight-saving changes handled on
//!   purpose, and the id of each occurrence (UUID v5, so it is created once).
//! - [`domain`]: the schedule aggregate (one per recurring template) and the tournament each
//!   occurrence creates. Pure.
//! - [`policy`]: what is due at an instant: occurrences to create, tournaments to start. Pure.
//! - [`service`]: the endpoint `floor.cmd.scheduler.<verb>` and the timer that creates and starts
//!   tournaments through registration's commands.
#![deny(missing_docs)]

pub mod domain;
pub mod occurrences;
pub mod policy;
pub mod service;

#[cfg(test)]
mod spec;

pub use occurrences::{occurrence_id, Recurrence, RecurrenceError};
