//! Lobby: what players see. One JSON document per tournament, kept in NATS KV bucket
//! `floor-lobby` (clients can watch it), who sits where in `floor-lobby-tables`, both served
//! over HTTP.
//!
//! # Layout
//!
//! - [`domain`]: the lobby document and its pure fold from tournament events (`evolve`).
//! - [`clock`]: the clock section: level, blinds, next level and break, folded from clock events.
//! - [`payouts`]: the payouts section: the table (projected, then locked), cashes.
//! - [`rebuys`]: the rebuys section: terms, period, rebuys and add-ons bought, open offers.
//! - [`bounties`]: the bounties section: terms, bounty pool, paid so far, remaining bounties,
//!   mystery envelopes left, the target once public.
//! - [`abort`]: the play section: suspended (the reason players are shown, since when) or
//!   cancelled in play (why, the method, the statements' total).
//! - [`bubble`]: the hand-for-hand section: off or on, hand k, the tables waited for and since
//!   when.
//! - [`projection`]: the [`floor_runtime::projection::Projection`] that keeps the documents in KV.
//! - [`seat_map`]: who sits where, folded from a tournament's seating log into small documents
//!   (a summary with recent moves and closed tables, one per open table, roster parts).
//! - [`seat_map_store`]: the projection that keeps them in KV `floor-lobby-tables`.
//! - [`seat_pages`]: the seat map and the player search, as pages and JSON.
//! - [`structures`]: each tournament's blind structure, its own resource (KV
//!   `floor-lobby-structures`), kept out of the document.
//! - [`http`]: the routes: the pages, the JSON API (the list paged and filtered, one document,
//!   its structure, its live feed), served from a cache that watches the bucket.
//! - [`live`]: the live feeds (Server-Sent Events): each new revision of a document, fanned out
//!   from the cache's one KV watch to the clients watching that tournament.
//! - [`listing`]: the list's filters (state, format), order and pages.
//! - [`money`]: the one rule money is shown by (`€10.00`).
//! - [`openapi`]: `GET /api/openapi.json`, the OpenAPI document of the JSON API.
//! - [`html`]: escaping, the page frame (style and script embedded from `assets/`), shared
//!   pieces.
//! - [`list_page`]: `GET /`, the tournament list as a page.
//! - [`tournament_page`]: `GET /tournaments/{id}`, one tournament as a page, and its live part.
//! - [`waiting`]: what each tournament waits on (a service whose reader has not taken its
//!   commits, since when), looked at every second and added to the documents served.
//! - [`console`]: the director console under `/console`: login, sessions, the actions sent as
//!   commands, the state of every table.
//! - [`server`]: the HTTP server: hyper's connections under limits (header-read timeout,
//!   connections, sizes), optionally over TLS (rustls).
//! - [`flags`]: the server's command-line flags (TLS files, trusted proxies, connections).
//! - [`layers`]: what every response passes: size checks, security headers, the framework's
//!   errors as JSON.
//! - [`service`]: wiring: the projection runner and the HTTP server.
//!
//! The lobby owns no aggregate and reacts to nothing, so it has no `policy.rs`.

pub mod abort;
pub mod bounties;
pub mod bubble;
pub mod clock;
pub mod console;
pub mod domain;
pub mod flags;
pub mod html;
pub mod http;
pub mod layers;
pub mod list_page;
pub mod listing;
pub mod live;
pub mod money;
pub mod openapi;
pub mod payouts;
pub mod projection;
pub mod rebuys;
pub mod seat_map;
pub mod seat_map_store;
pub mod seat_pages;
pub mod server;
pub mod service;
pub mod statements;
pub mod structures;
pub mod tournament_page;
pub mod waiting;

pub use domain::LobbyDocument;
pub use projection::LobbyProjection;
