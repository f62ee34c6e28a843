//! Hand-for-hand on the bubble: near the money every table deals its next hand only when every
//! table has finished the current one, and the busts of one hand, at every table, are ranked as
//! one simultaneous group.
//!
//! Spec: `../shared/spec/README.md` §5; `practice.md` §1.2 (TDA RP-8) and §1.4; 000 §16.8–16.9,
//! 002 §2.3, 004 §4.35. States and rules by profile: `docs/bubble.md`.
//!
//! # Layout
//!
//! - [`domain`]: the bubble aggregate (one per tournament): the trigger, the barrier, the
//!   director's start, stop, release-without and pause.
//! - [`ranking`]: places for one hand's busts by the tournament's ordering, and the split of
//!   shared places to the minor unit.
//! - [`policy`]: what the aggregate is told (registration, seating, payouts commits), and what
//!   its events cause (instructions to tables, the clock's deduction).
//! - [`service`]: the director's endpoint and the policy on the checkpointed runner; the tables'
//!   instructions go out through seating, which reacts to the bubble's events.
//!
//! What players see of hand-for-hand is the lobby's own fold of the bubble's events
//! (`services/lobby/src/document/bubble.rs`); the bubble keeps no view of its own (issue 35).
#![deny(missing_docs)]

pub mod domain;
pub mod policy;
pub mod ranking;
pub mod service;

pub use domain::{BubbleAggregate, BubbleCommand, BubbleError, BubbleState, FieldNow};
pub use service::BubbleService;

#[cfg(test)]
mod spec;
