//! Registration: tournament definitions and entries.
//!
//! Spec: `../shared/spec/README.md` §1–2 (formats, entry models, fees, registration).
//!
//! # Layout
//!
//! - [`domain`]: the tournament aggregate (esrs `Aggregate`): create, register (late
//!   registration, re-entry, multi-entry), unregister, operator refusal, players kept apart,
//!   eliminations. Pure.
//! - [`limits`]: the player aggregate: responsible-gaming tournament-count limits (002 §2.3). Pure.
//! - [`policy`]: reactions: releasing a limit count when the registration it was taken for fails;
//!   closing and holding registration from the clock's and the abort service's logs.
//! - [`satellite`]: a satellite's rules in the decider (issue 36): its target checked at its
//!   creation, and play's stop once no more entries are left than seats (000 §16.7). Pure.
//! - [`projection`]: which players have limits, so registrations of the others skip the check.
//! - [`service`]: wiring: the `floor.cmd.registration.*` endpoint and the hosts.

pub mod domain;
pub mod limits;
pub mod policy;
pub mod projection;
pub mod satellite;
pub mod service;

pub use domain::{RegistrationError, TournamentAggregate, TournamentCommand, TournamentState};
pub use limits::{LimitError, PlayerAggregate, PlayerCommand, PlayerState};
pub use service::RegistrationService;

#[cfg(test)]
mod flight_spec;
#[cfg(test)]
mod guarantee_spec;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod shootout_spec;
#[cfg(test)]
mod spec;
