//! Lobby: what players see. One JSON document per tournament, kept in NATS KV bucket
//! `floor-lobby` (clients can watch it) and served over HTTP.
//!
//! # Layout
//!
//! - [`domain`]: the lobby document and its pure fold from tournament events (`evolve`).
//! - [`clock`]: the clock section: level, blinds, next level and break, folded from clock events.
//! - [`payouts`]: the payouts section: the table (projected, then locked), cashes.
//! - [`rebuys`]: the rebuys section: terms, period, rebuys and add-ons bought, open offers.
//! - [`bounties`]: the bounties section: terms, bounty pool, paid so far, remaining bounties,
//!   mystery envelopes left, the target once public.
//! - [`bubble`]: the hand-for-hand section: off or on, hand k, the tables waited for and since
//!   when.
//! - [`projection`]: the [`floor_runtime::projection::Projection`] that keeps the documents in KV.
//! - [`http`]: `GET /api/tournaments` and `GET /api/tournaments/{id}`, served from a cache that
//!   watches the bucket.
//! - [`waiting`]: what each tournament waits on (a service whose reader has not taken its
//!   commits, since when), looked at every second and added to the documents served.
//! - [`service`]: wiring: the projection runner and the HTTP server.
//!
//! The lobby owns no aggregate and reacts to nothing, so it has no `policy.rs`.

pub mod bounties;
pub mod bubble;
pub mod clock;
pub mod domain;
pub mod http;
pub mod payouts;
pub mod projection;
pub mod rebuys;
pub mod service;
pub mod waiting;

pub use domain::LobbyDocument;
pub use projection::LobbyProjection;
