//! The pages players see, server-rendered, each with its handlers (HTML, and JSON where the
//! page has a JSON twice). They read from the cache ([`crate::cache`]) and answer with
//! [`crate::respond`]; the router imports them, never the other way.
//!
//! - [`html`]: escaping, the page frame (style and script embedded from `assets/`), shared
//!   pieces.
//! - [`money`]: the one rule money is shown by (`€10.00`).
//! - [`list`]: `GET /`, the tournament list.
//! - [`tournament`]: `GET /tournaments/{id}`, one tournament, and its live part.
//! - [`results`]: every finisher, place and prize, a page of 500 places at a time (issue 39).
//! - [`clock`]: `GET /tournaments/{id}/clock`, the clock screen for the room's TV (issue 39).
//! - [`seats`]: the seat map and the player search, as pages and JSON.
//! - [`statements`]: a cancelled tournament's statement for one player, as a page and JSON.

pub mod clock;
pub mod html;
pub mod list;
pub mod money;
pub mod results;
pub mod seats;
pub mod statements;
pub mod tournament;

use crate::respond::html;
use axum::http::StatusCode;
use axum::response::Response;

/// An error as a page (the pages answer their own errors as pages; the JSON API's are JSON).
pub(crate) fn html_error(status: StatusCode, message: &str) -> Response {
    let body = format!("<h1>{}</h1>\n<p>{}</p>\n<p><a href=\"/\">All tournaments</a></p>\n", status, html::escape(message));
    html(status, html::page(status.canonical_reason().unwrap_or("Error"), &body))
}

/// The pages' test fixtures: one tournament document and its clock's steps.
#[cfg(test)]
pub(crate) mod fixtures {
    use crate::document::LobbyDocument;
    use chrono::{DateTime, Utc};
    use floor_events::clock::{Level, Step};
    use floor_events::tournament::TournamentDefinition;
    use floor_events::TournamentId;

    /// The tournament's start.
    pub fn t0() -> DateTime<Utc> {
        "2027-01-10T18:00:00Z".parse().unwrap()
    }

    /// A €10 + €1 freezeout named `name`, guaranteed €1,000, just created.
    pub fn doc(name: &str) -> LobbyDocument {
        let definition: TournamentDefinition = serde_json::from_value(serde_json::json!({
            "name": name, "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
            "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
            "capacity": 100, "min_players": 2, "entry_model": {"kind": "freezeout"}, "profile": "tda-2024",
            "guarantee": {"amount": 100000, "currency": "EUR"},
        }))
        .unwrap();
        LobbyDocument::created(TournamentId::new(), &definition, t0(), 1)
    }

    /// A ten-minute level.
    pub fn level(small_blind: u64, big_blind: u64, ante: u64) -> Step {
        Step::Level(Level { small_blind, big_blind, ante, big_blind_ante: ante > 0, seconds: 600 })
    }
}
