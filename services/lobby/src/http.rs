//! The lobby over HTTP: `GET /api/tournaments` and `GET /api/tournaments/{id}`, JSON.
//!
//! The list is served from an in-memory copy of bucket `floor-lobby` that a KV watch keeps
//! current, so it never waits on NATS and any number of HTTP instances can run beside one
//! projection. One tournament is read from the bucket itself (one KV get, a fraction of a
//! millisecond): a player who just registered sees their entry in the next read, never an older
//! copy the watch has not caught up with. The cache answers if NATS does not.
//!
//! The projection stores its documents in batches (up to 20 ms), so a tournament created a
//! moment ago can be in the log and not yet in the bucket. A request for it waits for its first
//! document (up to [`FIRST_DOCUMENT`]) instead of answering `unknown_tournament`: a script that
//! creates a tournament and reads it at once sees it.

use async_nats::jetstream::{self, kv};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use floor_events::subjects;
use futures::StreamExt;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a request for a tournament already in the log waits for the lobby to show it.
pub const FIRST_DOCUMENT: Duration = Duration::from_secs(2);

/// Tournament id → its document's JSON, as last seen in the bucket.
#[derive(Clone)]
pub struct LobbyCache {
    // std RwLock: held only to copy bytes in or out, never across an await.
    docs: Arc<RwLock<BTreeMap<String, bytes::Bytes>>>,
    bucket: kv::Store,
    /// The event stream, to tell a tournament not yet shown from one that does not exist.
    events: jetstream::stream::Stream,
    /// To read the readers' health (KV `floor-health`) for `GET /api/health`.
    jetstream: jetstream::Context,
    /// What each tournament waits on, as last looked at.
    waits: crate::waiting::Waits,
}

/// Why a tournament has no document in the lobby.
#[derive(Debug, PartialEq, Eq)]
pub enum NotShown {
    /// Nothing in the log either (or not a tournament id at all).
    Unknown,
    /// Created, and the lobby did not show it within the time given.
    NotYet,
}

/// A tournament's document from the bucket; for a tournament in the log that the projection has
/// not stored yet, the first one it stores within `patience`.
///
/// # Errors
/// [`NotShown`]; a bucket or stream that does not answer counts as `Unknown` (first read) or
/// `NotYet` (the wait).
pub async fn document(
    bucket: &kv::Store,
    events: &jetstream::stream::Stream,
    id: &str,
    patience: Duration,
) -> Result<bytes::Bytes, NotShown> {
    match bucket.get(id).await {
        Ok(Some(doc)) => Ok(doc),
        _ => first_document(bucket, events, id, patience).await,
    }
}

/// For a tournament the bucket had no document for: the first one the projection stores
/// within `patience`, if the tournament is in the log.
async fn first_document(
    bucket: &kv::Store,
    events: &jetstream::stream::Stream,
    id: &str,
    patience: Duration,
) -> Result<bytes::Bytes, NotShown> {
    // Only a well-formed id becomes part of a subject (no wildcards from a URL).
    let Ok(uuid) = uuid::Uuid::parse_str(id) else { return Err(NotShown::Unknown) };
    if events.direct_get_last_for_subject(subjects::event_subject(subjects::aggregate::TOURNAMENT, uuid)).await.is_err() {
        return Err(NotShown::Unknown);
    }
    // With history: a document stored since the read above comes first.
    let Ok(mut watch) = bucket.watch_with_history(id).await else { return Err(NotShown::NotYet) };
    let first = async {
        while let Some(Ok(entry)) = watch.next().await {
            if entry.operation == kv::Operation::Put {
                return Some(entry.value);
            }
        }
        None
    };
    tokio::time::timeout(patience, first).await.ok().flatten().ok_or(NotShown::NotYet)
}

impl LobbyCache {
    /// Starts watching the bucket (current values first, then changes) until `shutdown`.
    ///
    /// # Errors
    /// When the watch cannot be started.
    pub async fn watch(
        bucket: kv::Store,
        events: jetstream::stream::Stream,
        jetstream: jetstream::Context,
        shutdown: CancellationToken,
    ) -> Result<Self, kv::WatchError> {
        let cache = Self { docs: Arc::default(), bucket: bucket.clone(), events, jetstream, waits: Default::default() };
        let mut entries = bucket.watch_all_from_revision(1).await?;
        let docs = cache.docs.clone();
        tokio::spawn(async move {
            loop {
                let entry = tokio::select! {
                    _ = shutdown.cancelled() => break,
                    entry = entries.next() => entry,
                };
                match entry {
                    Some(Ok(entry)) => {
                        let mut docs = docs.write().expect("lobby cache poisoned");
                        match entry.operation {
                            kv::Operation::Put => {
                                docs.insert(entry.key, entry.value);
                            }
                            kv::Operation::Delete | kv::Operation::Purge => {
                                docs.remove(&entry.key);
                            }
                        }
                    }
                    Some(Err(e)) => tracing::warn!(error = %e, "lobby watch"),
                    None => break,
                }
            }
        });
        Ok(cache)
    }

    /// What each tournament waits on, as the lobby last looked.
    pub fn waits(&self) -> crate::waiting::Waits {
        self.waits.clone()
    }

    fn list(&self) -> Vec<u8> {
        let docs = self.docs.read().expect("lobby cache poisoned");
        let mut body = Vec::with_capacity(docs.values().map(|d| d.len() + 1).sum::<usize>() + 2);
        body.push(b'[');
        for (i, (id, doc)) in docs.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            body.extend_from_slice(&self.waits.document(id, doc));
        }
        body.push(b']');
        body
    }

    /// One tournament's document, waiting for a tournament just created ([`first_document`]); from
    /// the cache when the bucket does not answer.
    async fn get(&self, id: &str) -> Result<bytes::Bytes, NotShown> {
        if uuid::Uuid::parse_str(id).is_err() {
            // Not a tournament id (and perhaps not a valid key): nothing to ask the bucket.
            return Err(NotShown::Unknown);
        }
        match self.bucket.get(id).await {
            Ok(Some(doc)) => Ok(doc),
            Ok(None) => first_document(&self.bucket, &self.events, id, FIRST_DOCUMENT).await,
            Err(e) => {
                tracing::warn!(error = %e, "lobby read from the cache: the bucket did not answer");
                self.docs.read().expect("lobby cache poisoned").get(id).cloned().ok_or(NotShown::Unknown)
            }
        }
    }
}

fn json(status: StatusCode, body: impl Into<axum::body::Body>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}

/// The longest piece of a request's path an error message repeats: enough to recognise a
/// mistyped id, never a megabyte of someone's URL.
const ECHOED: usize = 80;

/// Every error the lobby answers: `{"error":{"code","message"}}` as `application/json`, the
/// envelope of every command reply. The body is serialized, never formatted by hand: a path
/// holding a quote or a non-ASCII letter once came back as Rust's escapes, which JSON cannot read.
fn error(status: StatusCode, code: &str, message: String) -> Response {
    let body = floor_events::Reply::<()>::Error(floor_events::ErrorBody::new(code, message));
    // An error body is two strings; serializing it cannot fail.
    json(status, serde_json::to_vec(&body).expect("error body serializes"))
}

/// At most [`ECHOED`] characters of `text`, marked when cut.
fn echoed(text: &str) -> String {
    match text.char_indices().nth(ECHOED) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

async fn list(State(cache): State<LobbyCache>) -> Response {
    json(StatusCode::OK, cache.list())
}

async fn one(State(cache): State<LobbyCache>, id: Result<Path<String>, PathRejection>) -> Response {
    let id = match id {
        Ok(Path(id)) => id,
        // A segment that does not decode (percent-escapes that are not UTF-8, say) names no
        // tournament; say so in the lobby's own envelope, not axum's plain text.
        Err(rejection) => return error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, rejection.body_text()),
    };
    match cache.get(&id).await {
        Ok(doc) => json(StatusCode::OK, cache.waits.document(&id, &doc)),
        Err(NotShown::NotYet) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            floor_events::codes::UNAVAILABLE,
            format!("tournament {} is created; the lobby has not shown it yet, try again", echoed(&id)),
        ),
        Err(NotShown::Unknown) => {
            error(StatusCode::NOT_FOUND, floor_events::codes::UNKNOWN_TOURNAMENT, format!("no tournament {}", echoed(&id)))
        }
    }
}

/// The platform's health: every reader's poison commits and what it set aside (as `floor
/// status` prints it).
async fn health(State(cache): State<LobbyCache>) -> Response {
    match floor_runtime::health::status(&cache.jetstream).await {
        // A status is plain data; serializing it cannot fail.
        Ok(status) => {
            let status = floor_runtime::health::Status { waiting: cache.waits.all(), ..status };
            json(StatusCode::OK, serde_json::to_vec(&status).expect("health serializes"))
        }
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, floor_events::codes::UNAVAILABLE, format!("health not readable: {e}")),
    }
}

/// Any path the lobby does not serve.
async fn no_route(uri: Uri) -> Response {
    error(
        StatusCode::NOT_FOUND,
        floor_events::codes::NOT_FOUND,
        format!("no such path {}; the lobby serves GET /api/tournaments and GET /api/tournaments/{{id}}", echoed(uri.path())),
    )
}

/// A path the lobby serves, asked with a method it does not answer (the lobby only reads).
async fn wrong_method(method: Method, uri: Uri) -> Response {
    let mut answer = error(
        StatusCode::METHOD_NOT_ALLOWED,
        floor_events::codes::METHOD_NOT_ALLOWED,
        format!("{method} {} is not served; the lobby answers GET only", echoed(uri.path())),
    );
    answer.headers_mut().insert(header::ALLOW, header::HeaderValue::from_static("GET,HEAD"));
    answer
}

async fn index() -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "Floor lobby\n\nGET /api/tournaments        every tournament\nGET /api/tournaments/{id}   one tournament\nGET /api/health             poison commits the readers survived, what tournaments wait on\n",
    )
        .into_response()
}

/// The lobby's routes. Every error, the router's own included (no such path, a method the
/// lobby does not answer), is JSON in the command reply's envelope.
pub fn router(cache: LobbyCache) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/api/tournaments", get(list))
        .route("/api/tournaments/{id}", get(one))
        .route("/api/health", get(health))
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .with_state(cache)
}
