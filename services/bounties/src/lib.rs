//! Bounties: knockout, progressive knockout, mystery and target bounties. Every entry, re-entry
//! and rebuy puts its bounty part into the bounty pool; every elimination pays the bounty at
//! stake to whoever won the eliminated chips, as the pots divided them; the winner takes what is
//! left, so the pool is paid out to the cent.
//!
//! Spec: `../shared/spec/README.md` §8; 004 §4.36.15, 002 §2.10; practice §3.1–3.3. The rules
//! and what is still to wire: `docs/bounties.md`.
//!
//! # Layout
//!
//! - [`domain`]: the bounties aggregate (one per tournament): the ledger, the payments, the
//!   mystery stage, the winner's bounty.
//! - [`split`]: one bounty divided among several eliminators (pots, covering, hi/lo, cents).
//! - [`mystery`]: envelope values and the seeded, committed draw.
//! - [`policy`]: what the aggregate is told, read from registration, rebuys, seating and clock
//!   events, with derived command ids.
//! - [`projection`]: the books' view (what players see is the lobby's own fold).
//! - [`service`]: the `floor.cmd.bounties.*` endpoint and the policy following the log.
#![deny(missing_docs)]

pub mod domain;
pub mod mystery;
pub mod policy;
pub mod projection;
pub mod service;
pub mod split;

pub use domain::{BountiesAggregate, BountyCommand, BountyError, BountyState};
pub use policy::{Policy, SeedKey};
pub use projection::{Bounties, BountyBooks};
pub use service::BountiesService;

#[cfg(test)]
mod spec;
