//! Shootouts (issue 37): each table of a round plays to its winners, with no balancing and no
//! table breaking; when every table of the round has its winners they are drawn afresh onto the
//! next round's tables. The contract: `floor_events::shootouts`.
//!
//! # Layout
//!
//! - [`service`]: the `floor.cmd.shootouts.*` endpoint.
#![deny(missing_docs)]

pub mod service;

pub use service::ShootoutsService;
