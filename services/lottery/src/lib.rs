//! Lottery sit & gos (issue 37; 000 §16.10 "Twister", the format online rooms call Spin & Go):
//! when the last seat fills, the prize pool's multiplier is drawn from the published table with
//! an audited seed (its SHA-256 published when the game is created, the seed revealed with the
//! draw), and recorded as `prize_drawn` for payouts to lock its table on. The contract:
//! `floor_events::lottery`.
//!
//! # Layout
//!
//! - [`draw`]: the number (uniform in 0 .. 1,000,000 by rejection sampling on SHA-256), the row,
//!   the pool and the prizes. Pure.
//! - [`domain`]: the lottery aggregate (one per game): the commitment once, the draw once.
//! - [`policy`]: what the aggregates are told, read from registration's log (a game created:
//!   commit; started: draw), and the seed key the service seals the seeds in with.
//! - [`projection`]: drawn against published frequencies per table version, for the
//!   `frequencies` verb.
//! - [`service`]: the `floor.cmd.lottery.*` endpoint and the policy on the checkpointed runner.
#![deny(missing_docs)]

pub mod domain;
pub mod draw;
pub mod policy;
pub mod projection;
pub mod service;

pub use domain::{LotteryAggregate, LotteryCommand, LotteryError, LotteryState};
pub use policy::{Memory, Policy, SeedKey};
pub use service::LotteryService;

#[cfg(test)]
mod spec;
