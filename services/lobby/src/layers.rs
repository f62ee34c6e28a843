//! What every response of the lobby passes through (issue 34): request sizes checked before
//! routing, the security headers added to every answer, and errors the framework makes itself
//! turned into the lobby's JSON envelope.
//!
//! - **Sizes**: a URI longer than [`LONGEST_URI`] is 414, a head larger than [`LARGEST_HEAD`]
//!   or with more than [`MOST_HEADERS`] fields is 431, a body larger than the server's limit
//!   (`Content-Length`, or as read) is 413: each `{"error":{"code","message"}}`.
//! - **Headers**, on pages, the JSON API and the live feeds alike: `X-Frame-Options: DENY`,
//!   `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`, and a
//!   `Content-Security-Policy` unless the handler set its own (the console's): for a page,
//!   [`crate::pages::html::page_policy`] (the page's own style and script by their hashes, the live
//!   feed from the same origin, nothing else), for anything else `default-src 'none';
//!   frame-ancestors 'none'`.
//! - **JSON errors**: an error status whose body is not JSON, not a page and not a feed is one
//!   axum made by itself (a query, path or body that does not read, a body too large, a method
//!   not allowed, a missing extension): its words become the message of the envelope, with a
//!   code for its status ([`code_for`]). The pages keep their own error pages.
//!
//! What hyper answers before a request reaches axum cannot be changed here: see
//! [`crate::server`].

use crate::respond::error;
use crate::server::{LARGEST_HEAD, LONGEST_URI, MOST_HEADERS};
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

/// Codes of the errors the HTTP layer answers itself (the services' codes are in
/// `floor_events::codes`; these name HTTP conditions, not domain rules).
pub mod codes {
    /// 400: a request axum could not read (query, path, form, headers).
    pub const BAD_REQUEST: &str = "bad_request";
    /// 413: a body over the server's limit.
    pub const BODY_TOO_LARGE: &str = "body_too_large";
    /// 414: a URI over [`super::LONGEST_URI`].
    pub const URI_TOO_LONG: &str = "uri_too_long";
    /// 431: a head over [`super::LARGEST_HEAD`] or with too many fields.
    pub const HEADERS_TOO_LARGE: &str = "headers_too_large";
    /// 415: a body of a type the route does not read.
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "unsupported_media_type";
    /// 500 and anything else the framework answers itself.
    pub const INTERNAL: &str = "internal";
}

/// The code of an error the framework answered with `status`.
pub fn code_for(status: StatusCode) -> &'static str {
    match status {
        StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY => codes::BAD_REQUEST,
        StatusCode::NOT_FOUND => floor_events::codes::NOT_FOUND,
        StatusCode::METHOD_NOT_ALLOWED => floor_events::codes::METHOD_NOT_ALLOWED,
        StatusCode::PAYLOAD_TOO_LARGE => codes::BODY_TOO_LARGE,
        StatusCode::URI_TOO_LONG => codes::URI_TOO_LONG,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => codes::HEADERS_TOO_LARGE,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => codes::UNSUPPORTED_MEDIA_TYPE,
        StatusCode::SERVICE_UNAVAILABLE => floor_events::codes::UNAVAILABLE,
        _ => codes::INTERNAL,
    }
}

/// The policy of everything that is not a page: load nothing, be framed nowhere.
pub const NOT_A_PAGE_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

/// The longest framework error text kept as a message.
const LONGEST_MESSAGE: usize = 1_000;

/// A request's head size: request line and header fields as sent (`name: value\r\n`).
fn head_size(request: &Request) -> usize {
    let line = request.method().as_str().len() + request.uri().to_string().len() + 12;
    line + request.headers().iter().map(|(n, v)| n.as_str().len() + v.len() + 4).sum::<usize>()
}

/// The size checks, before routing: 414, 431, 413 (a `Content-Length` over `body_limit`).
pub async fn limits(body_limit: usize, request: Request, next: Next) -> Response {
    let uri = request.uri().to_string().len();
    if uri > LONGEST_URI {
        let message = format!("the URI has {uri} bytes; the lobby reads at most {LONGEST_URI}");
        return error(StatusCode::URI_TOO_LONG, codes::URI_TOO_LONG, message);
    }
    let (head, fields) = (head_size(&request), request.headers().len());
    if head > LARGEST_HEAD || fields > MOST_HEADERS {
        let message =
            format!("the request head has {head} bytes in {fields} fields; the lobby reads at most {LARGEST_HEAD} bytes in {MOST_HEADERS}");
        return error(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, codes::HEADERS_TOO_LARGE, message);
    }
    let declared = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if let Some(length) = declared.filter(|l| *l > body_limit as u64) {
        let message = format!("the body has {length} bytes; the lobby reads at most {body_limit}");
        return error(StatusCode::PAYLOAD_TOO_LARGE, codes::BODY_TOO_LARGE, message);
    }
    next.run(request).await
}

/// Whether a response's content type is one the lobby writes on purpose (JSON, a page, a feed).
fn written_by_the_lobby(response: &Response) -> bool {
    let kind = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    ["application/json", "text/html", "text/event-stream"].iter().any(|k| kind.starts_with(k))
}

/// Errors made by the framework as JSON, then the security headers.
pub async fn harden(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let mut response =
        if response.status().as_u16() >= 400 && !written_by_the_lobby(&response) { json_error(response).await } else { response };
    let is_page = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|k| k.starts_with("text/html"));
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        let policy = if is_page { crate::pages::html::page_policy() } else { NOT_A_PAGE_POLICY };
        headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(policy));
    }
    response
}

/// The framework's error `response` in the lobby's envelope: its text as the message.
async fn json_error(response: Response) -> Response {
    let (parts, body) = response.into_parts();
    let status = parts.status;
    let text = axum::body::to_bytes(body, LONGEST_MESSAGE * 4).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let text = text.trim();
    let message = match text.char_indices().nth(LONGEST_MESSAGE) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None if text.is_empty() => status.canonical_reason().unwrap_or("error").to_lowercase(),
        None => text.to_owned(),
    };
    let mut answer = error(status, code_for(status), message);
    // Keep what the framework said beside its body (`Allow` on a 405, say).
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            answer.headers_mut().insert(name.clone(), value.clone());
        }
    }
    answer
}

/// A body of `limit` bytes at most, for the handlers that read one (413 beyond, in JSON by
/// [`harden`]).
pub fn body_limit(limit: usize) -> axum::extract::DefaultBodyLimit {
    axum::extract::DefaultBodyLimit::max(limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    /// An answer with `status` and plain text, as the framework makes them.
    fn bare(status: StatusCode, text: &'static str) -> Response {
        let mut response = Response::new(Body::from(text));
        *response.status_mut() = status;
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
        response
    }

    #[tokio::test]
    async fn a_framework_error_becomes_the_envelope_and_keeps_its_other_headers() {
        let mut plain = bare(StatusCode::METHOD_NOT_ALLOWED, "");
        plain.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET,HEAD"));
        let answer = json_error(plain).await;
        assert_eq!(answer.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(answer.headers()[header::CONTENT_TYPE], "application/json");
        assert_eq!(answer.headers()[header::ALLOW], "GET,HEAD");
        let body = axum::body::to_bytes(answer.into_body(), 10_000).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"]["code"], "method_not_allowed");
        assert_eq!(body["error"]["message"], "method not allowed");

        let rejected = json_error(bare(StatusCode::BAD_REQUEST, "Failed to deserialize query string: \"x\"")).await;
        let body = axum::body::to_bytes(rejected.into_body(), 10_000).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (body["error"]["code"].as_str(), body["error"]["message"].as_str()),
            (Some("bad_request"), Some("Failed to deserialize query string: \"x\""))
        );
    }

    #[test]
    fn every_status_the_framework_makes_has_a_code() {
        let cases = [
            (400, "bad_request"),
            (405, "method_not_allowed"),
            (413, "body_too_large"),
            (414, "uri_too_long"),
            (431, "headers_too_large"),
            (500, "internal"),
        ];
        for (status, code) in cases {
            assert_eq!(code_for(StatusCode::from_u16(status).unwrap()), code, "{status}");
        }
    }
}
