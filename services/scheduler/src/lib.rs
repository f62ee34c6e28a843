//! Scheduler: recurring tournaments from cron expressions in the tournament's time zone.
//!
//! Spec: `../shared/spec/README.md` §1 (sit & go and scheduled starts); issue 4.
//!
//! # Layout
//!
//! - [`occurrences`]: when a template's tournaments start, daylight-saving changes handled on
//!   purpose, and the id of each occurrence (UUID v5, so it is created once).
//!
//! This is the pure core of the scheduler service; the template aggregate, the service and
//! `floor schedule` build on it.
#![deny(missing_docs)]

pub mod occurrences;

pub use occurrences::{occurrence_id, Template, TemplateError};
