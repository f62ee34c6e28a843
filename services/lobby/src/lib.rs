//! Lobby: what players see. One JSON document per tournament, kept in NATS KV bucket
//! `floor-lobby` (clients can watch it), who sits where in `floor-lobby-tables`, both served
//! over HTTP.
//!
//! # Layout
//!
//! The files follow the flow, bottom to top: the KV document, what is held of it in memory, the
//! pages, the router. Each layer imports only those below it (the pages never import the
//! router; the document imports nothing of the lobby's).
//!
//! - [`document`]: the lobby document and its pure fold from tournament events (`evolve`), with
//!   one section per service, folded from that service's events ([`document::clock`],
//!   [`document::payouts`], [`document::rebuys`], [`document::bounties`], [`document::abort`],
//!   [`document::bubble`]).
//! - [`structures`]: each tournament's blind structure, its own resource (KV
//!   `floor-lobby-structures`), kept out of the document.
//! - [`projection`]: the [`floor_runtime::projection::Projection`] that keeps the documents in KV.
//! - [`results`]: every finisher's place and prize (issue 39), in chunks of bounded size in KV
//!   `floor-lobby-results`, written by the projection: the document keeps only the latest.
//! - [`seat_map`]: who sits where, folded from a tournament's seating log into small documents
//!   (a summary with recent moves and closed tables, one per open table, roster parts).
//! - [`seat_map_store`]: the projection that keeps them in KV `floor-lobby-tables`.
//! - [`listing`]: the list's filters (state, format), order and pages.
//! - [`waiting`]: what each tournament waits on (a service whose reader has not taken its
//!   commits, since when), looked at every second and added to the documents served.
//! - [`live`]: the live feeds (Server-Sent Events): each new revision of a document, fanned out
//!   from the cache's one KV watch to the clients watching that tournament.
//! - [`respond`]: the answers every handler builds: JSON, the error envelope, HTML, why a
//!   tournament has no document ([`respond::NotShown`]).
//! - [`cache`]: what the HTTP side holds: [`cache::LobbyCache`] (the bucket `floor-lobby` in
//!   memory through one KV watch, one tournament read from KV, the first document of a tournament
//!   just created) and [`cache::seats`] (the same for who sits where).
//! - [`pages`]: the pages, each with its handlers: [`pages::html`] (escaping, the page frame,
//!   shared pieces), [`pages::money`] (the one rule money is shown by, `€10.00`),
//!   [`pages::list`] (`GET /`), [`pages::tournament`] (`GET /tournaments/{id}` and its live
//!   part), [`pages::seats`] (the seat map and the player search), [`pages::clock`] (the clock screen),
//!   [`pages::results`] (every finisher), [`pages::statements`] (a
//!   cancelled tournament's statement for one player).
//! - [`openapi`]: `GET /api/openapi.json`, the OpenAPI document of the JSON API.
//! - [`router`]: the routes, on top: the pages, the JSON API (the list paged and filtered, one
//!   document, its structure, its live feed, health), the layers.
//! - [`layers`]: what every response passes: size checks, security headers, the framework's
//!   errors as JSON.
//! - [`console`]: the director console under `/console`, a room of its own: login, sessions, the
//!   actions sent as commands, the state of every table (it reads the cache and borrows the
//!   pages' pieces; the router merges its routes).
//! - [`server`]: the HTTP server: hyper's connections under limits (header-read timeout,
//!   connections, sizes), optionally over TLS (rustls).
//! - [`flags`]: the server's command-line flags (TLS files, trusted proxies, connections).
//! - [`service`]: wiring: the projection runners, the caches, the router and the HTTP server.
//!
//! The lobby owns no aggregate and reacts to nothing, so it has no `policy.rs`.

pub mod cache;
pub mod console;
pub mod document;
pub mod flags;
pub mod layers;
pub mod leaders;
pub mod listing;
pub mod live;
pub mod openapi;
pub mod pages;
pub mod projection;
pub mod respond;
pub mod results;
pub mod router;
pub mod seat_map;
pub mod seat_map_store;
pub mod server;
pub mod service;
pub mod structures;
pub mod waiting;

pub use document::LobbyDocument;
pub use pages::money;
pub use projection::LobbyProjection;

/// The paths other crates read one document through (`floor tournament show`, the tests), as
/// they were before the router and the cache were apart.
pub mod http {
    pub use crate::cache::{document, FIRST_DOCUMENT};
    pub use crate::respond::NotShown;
}
