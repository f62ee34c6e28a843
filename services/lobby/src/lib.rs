//! Lobby: what players see. One JSON document per tournament, kept in NATS KV bucket
//! `floor-lobby` (clients can watch it) and served over HTTP.
//!
//! # Layout
//!
//! - [`domain`]: the lobby document and its pure fold from tournament events (`evolve`).
//! - [`clock`]: the clock section: level, blinds, next level and break, folded from clock events.
//! - [`payouts`]: the payouts section: the table (projected, then locked), cashes.
//! - [`rebuys`]: the rebuys section: terms, period, rebuys and add-ons bought, open offers.
//! - [`projection`]: the [`floor_runtime::projection::Projection`] that keeps the documents in KV.
//! - [`http`]: `GET /api/tournaments` and `GET /api/tournaments/{id}`, served from a cache that
//!   watches the bucket.
//! - [`service`]: wiring: the projection runner and the HTTP server.
//!
//! The lobby owns no aggregate and reacts to nothing, so it has no `policy.rs`.

pub mod clock;
pub mod domain;
pub mod http;
pub mod payouts;
pub mod projection;
pub mod rebuys;
pub mod service;

pub use domain::LobbyDocument;
pub use projection::LobbyProjection;
