//! Satellites (issue 36): tournaments whose prize is an entry into another tournament. Each seat
//! a satellite pays (payouts' award of the seat value) becomes a ticket; a seat's ticket is spent
//! on the target at once (registration's `register_with_ticket`), a ticket prize when its holder
//! spends it (`spend_ticket`: its target, or another tournament of its value where the terms
//! allow it). A seat the target refuses stays a ticket, unless its winner is already registered
//! and the satellite passes such a seat down to the next finisher (`if_registered`); a refunded
//! entry paid by a ticket (unregistered, or the target cancelled) gives the ticket back.
//!
//! Spec: `../shared/spec/README.md` §9; 000 §16.7, 002 §2.3 and §2.7, 003 App. 1 b iii, 004
//! §4.36.4. The contract: `floor_events::satellites`.
//!
//! # Layout
//!
//! - [`domain`]: the satellite aggregate (one per satellite): every ticket it issued and its
//!   life (issued, spending, spent; refused and refunded back to issued; passed down, void).
//! - [`policy`]: what the aggregates are told, read from registration and payouts commits: a
//!   ticket per seat won, a refund per refunded ticket entry, the seat of a ticket passed down
//!   taken.
//! - [`flights`]: tournaments that feed a tournament (issue 36, 004 §4.36.11–13): which Day 1
//!   survivors go on to their Day 2, with what stack (first stack, best stack forward, stack
//!   builder), sent to registration's `register_carried` from its own checkpointed runner.
//! - [`projection`]: the read model the `tickets` and `satellite` verbs answer from.
//! - [`service`]: the `floor.cmd.satellites.*` endpoint, the policy on the checkpointed runner,
//!   and the spend path (spend, register with the ticket, the answer), finished at the start
//!   when a crash left it open.
#![deny(missing_docs)]

pub mod domain;
pub mod flights;
pub mod policy;
pub mod projection;
pub mod service;

pub use domain::{SatelliteAggregate, SatelliteCommand, SatelliteError, SatelliteState};
pub use service::SatellitesService;

#[cfg(test)]
mod spec;
