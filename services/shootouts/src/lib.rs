//! Shootouts (issue 37): each table of a round plays to its winners, with no balancing and no
//! table breaking; when every table of the round has its winners they are drawn afresh onto the
//! next round's tables, until one table plays to the tournament's winner. The contract:
//! `floor_events::shootouts`; the tables' side (no balancing, `table_won`, each round's draw)
//! is seating's (`floor_seating`'s `domain/shootout.rs`).
//!
//! Spec: 003 App. 1 b ii, 004 §4.36.3.
//!
//! # Layout
//!
//! - [`domain`]: the shootout aggregate (one per shootout): its rounds, each started with its
//!   entries and completed with its winners.
//! - [`policy`]: what the aggregates are told, read from registration (the field, the start)
//!   and seating (each round's tables and their winners): round 1 at the start, a round
//!   completed when its last table is won, and the next one started with its winners.
//! - [`projection`]: the brackets the `bracket` verb answers from.
//! - [`service`]: the `floor.cmd.shootouts.*` endpoint and the policy on the checkpointed
//!   runner.
#![deny(missing_docs)]

pub mod domain;
pub mod policy;
pub mod projection;
pub mod service;

pub use domain::{ShootoutAggregate, ShootoutCommand, ShootoutError, ShootoutState};
pub use service::ShootoutsService;

#[cfg(test)]
mod spec;
