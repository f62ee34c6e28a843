//! The answers every handler builds, at the bottom of the HTTP side (it imports nothing of the
//! lobby's): JSON, the error envelope, HTML, the tournament id from a path, and why a tournament
//! has no document ([`NotShown`]) as an answer. The cache, the pages and the router use them.

use axum::extract::rejection::PathRejection;
use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// Why a tournament has no document in the lobby.
#[derive(Debug, PartialEq, Eq)]
pub enum NotShown {
    /// Nothing in the log either (or not a tournament id at all).
    Unknown,
    /// Created, and the lobby did not show it within the time given.
    NotYet,
}

pub(crate) fn json(status: StatusCode, body: impl Into<axum::body::Body>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}

/// The longest piece of a request's path an error message repeats: enough to recognise a
/// mistyped id, never a megabyte of someone's URL.
const ECHOED: usize = 80;

/// Every error the lobby answers: `{"error":{"code","message"}}` as `application/json`, the
/// envelope of every command reply. The body is serialized, never formatted by hand: a path
/// holding a quote or a non-ASCII letter once came back as Rust's escapes, which JSON cannot read.
pub(crate) fn error(status: StatusCode, code: &str, message: String) -> Response {
    let body = floor_events::Reply::<()>::Error(floor_events::ErrorBody::new(code, message));
    // An error body is two strings; serializing it cannot fail.
    json(status, serde_json::to_vec(&body).expect("error body serializes"))
}

/// At most [`ECHOED`] characters of `text`, marked when cut.
pub fn echoed(text: &str) -> String {
    match text.char_indices().nth(ECHOED) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The tournament id from the path.
pub(crate) fn path_id(id: Result<Path<String>, PathRejection>) -> Result<String, PathRejection> {
    id.map(|Path(id)| id)
}

/// The answer to a path segment that does not decode (percent-escapes that are not UTF-8, say):
/// it names no tournament.
pub(crate) fn bad_path(rejection: PathRejection) -> Response {
    error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, rejection.body_text())
}

pub(crate) fn not_shown(id: &str, why: NotShown) -> Response {
    match why {
        NotShown::NotYet => error(
            StatusCode::SERVICE_UNAVAILABLE,
            floor_events::codes::UNAVAILABLE,
            format!("tournament {} is created; the lobby has not shown it yet, try again", echoed(id)),
        ),
        NotShown::Unknown => error(StatusCode::NOT_FOUND, floor_events::codes::UNKNOWN_TOURNAMENT, format!("no tournament {}", echoed(id))),
    }
}

pub(crate) fn html(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}
