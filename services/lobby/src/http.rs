//! The lobby over HTTP: `GET /api/tournaments` and `GET /api/tournaments/{id}`, JSON.
//!
//! The list is served from an in-memory copy of bucket `floor-lobby` that a KV watch keeps
//! current, so it never waits on NATS and any number of HTTP instances can run beside one
//! projection. One tournament is read from the bucket itself (one KV get, a fraction of a
//! millisecond): a player who just registered sees their entry in the next read, never an older
//! copy the watch has not caught up with. The cache answers if NATS does not.

use async_nats::jetstream::kv;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures::StreamExt;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use tokio_util::sync::CancellationToken;

/// Tournament id → its document's JSON, as last seen in the bucket.
#[derive(Clone)]
pub struct LobbyCache {
    // std RwLock: held only to copy bytes in or out, never across an await.
    docs: Arc<RwLock<BTreeMap<String, bytes::Bytes>>>,
    bucket: kv::Store,
}

impl LobbyCache {
    /// Starts watching the bucket (current values first, then changes) until `shutdown`.
    ///
    /// # Errors
    /// When the watch cannot be started.
    pub async fn watch(bucket: kv::Store, shutdown: CancellationToken) -> Result<Self, kv::WatchError> {
        let cache = Self { docs: Arc::default(), bucket: bucket.clone() };
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

    fn list(&self) -> Vec<u8> {
        let docs = self.docs.read().expect("lobby cache poisoned");
        let mut body = Vec::with_capacity(docs.values().map(|d| d.len() + 1).sum::<usize>() + 2);
        body.push(b'[');
        for (i, doc) in docs.values().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            body.extend_from_slice(doc);
        }
        body.push(b']');
        body
    }

    async fn get(&self, id: &str) -> Option<bytes::Bytes> {
        match self.bucket.get(id).await {
            Ok(doc) => doc,
            Err(e) => {
                tracing::warn!(error = %e, "lobby read from the cache: the bucket did not answer");
                self.docs.read().expect("lobby cache poisoned").get(id).cloned()
            }
        }
    }
}

fn json(status: StatusCode, body: impl Into<axum::body::Body>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}

async fn list(State(cache): State<LobbyCache>) -> Response {
    json(StatusCode::OK, cache.list())
}

async fn one(State(cache): State<LobbyCache>, Path(id): Path<String>) -> Response {
    match cache.get(&id).await {
        Some(doc) => json(StatusCode::OK, doc),
        None => json(
            StatusCode::NOT_FOUND,
            format!(
                r#"{{"error":{{"code":"{}","message":"no tournament {}"}}}}"#,
                floor_events::codes::UNKNOWN_TOURNAMENT,
                id.escape_default()
            ),
        ),
    }
}

async fn index() -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "Floor lobby\n\nGET /api/tournaments        every tournament\nGET /api/tournaments/{id}   one tournament\n",
    )
        .into_response()
}

/// The lobby's routes.
pub fn router(cache: LobbyCache) -> Router {
    Router::new().route("/", get(index)).route("/api/tournaments", get(list)).route("/api/tournaments/{id}", get(one)).with_state(cache)
}
