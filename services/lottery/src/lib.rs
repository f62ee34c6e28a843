//! Lottery sit & gos (issue 37; 000 §16.10): the prize pool drawn from a published table with an
//! audited seed when the seats fill. The contract: `floor_events::lottery`.
//!
//! # Layout
//!
//! - [`service`]: the `floor.cmd.lottery.*` endpoint.
#![deny(missing_docs)]

pub mod service;

pub use service::LotteryService;
