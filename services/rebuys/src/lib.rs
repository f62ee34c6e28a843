//! Rebuys and add-ons: a stack that reaches zero in the rebuy period is offered a rebuy instead of
//! being eliminated; the add-on is offered when the period ends; every purchase writes its
//! ledger lines. Re-entry is a new entry and lives in registration.
//!
//! Spec: `../shared/spec/README.md` §6; 000 §16.7, 002 §2.3 and §2.6, 003, 004 §4.36.6; TDA R27.
//!
//! # Layout
//!
//! - [`domain`]: the rebuys aggregate (one per tournament): periods, offers, caps, conditions.
//! - [`policy`]: what the aggregate is told, read from registration, seating and clock events.
//! - [`projection`]: the open offers and their deadlines, for the lapse timer.
//! - [`service`]: the `floor.cmd.rebuys.*` endpoint, the policy following the log, the timer.
//!
//! Seating reacts to this aggregate's events in its own policy: a rebuy or add-on becomes
//! `add_chips` at the entry's table, a forgone rebuy an elimination, the end of the period the end
//! of held seats.
#![deny(missing_docs)]

pub mod domain;
pub mod policy;
pub mod projection;
pub mod service;

pub use domain::{RebuyCommand, RebuyError, RebuyState, RebuysAggregate, Who};
pub use service::RebuysService;

#[cfg(test)]
mod spec;
