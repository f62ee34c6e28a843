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
