//! What each tournament waits on, as the lobby shows it: `waiting_on` in every tournament's
//! JSON and `waiting` in `GET /api/health` (issue 18). The lobby looks every
//! [`LOBBY_EVERY`] on its clock ([`floor_runtime::waiting::observe`], the function `floor
//! status` calls on demand) and keeps the answer in memory: it is about now, so it is never
//! stored with the documents.

use floor_runtime::waiting::{self, TournamentWait, LOBBY_EVERY, WAITING_AFTER};
use floor_runtime::Clock;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use tokio_util::sync::CancellationToken;

/// The lobby's last look: cheap to clone.
#[derive(Clone, Default)]
pub struct Waits {
    // std RwLock: held only to swap or copy the answer, never across an await.
    inner: Arc<RwLock<Looked>>,
}

#[derive(Default)]
struct Looked {
    all: Vec<TournamentWait>,
    /// Tournament id → its `waiting_on` as JSON.
    by_tournament: BTreeMap<String, Vec<u8>>,
}

impl Waits {
    /// Every tournament that waits, as last seen.
    pub fn all(&self) -> Vec<TournamentWait> {
        self.inner.read().expect("waits poisoned").all.clone()
    }

    /// Replaces the last look.
    pub fn set(&self, all: Vec<TournamentWait>) {
        let by_tournament =
            all.iter().map(|t| (t.tournament.to_string(), serde_json::to_vec(&t.waiting_on).expect("waits serialize"))).collect();
        *self.inner.write().expect("waits poisoned") = Looked { all, by_tournament };
    }

    /// A tournament's document with its `waiting_on` (`[]` when nothing waits) added.
    pub fn document(&self, id: &str, document: &[u8]) -> Vec<u8> {
        let looked = self.inner.read().expect("waits poisoned");
        with_waiting_on(document, looked.by_tournament.get(id).map_or(&b"[]"[..], Vec::as_slice))
    }
}

/// `document` (a JSON object) with `"waiting_on": waits` added as its last field. The documents
/// are the projection's own serialization, so the object's last byte is its `}`.
pub fn with_waiting_on(document: &[u8], waits: &[u8]) -> Vec<u8> {
    let Some(body) = document.strip_suffix(b"}") else { return document.to_vec() };
    let empty = body.iter().all(|b| b.is_ascii_whitespace() || *b == b'{');
    let mut out = Vec::with_capacity(document.len() + waits.len() + 16);
    out.extend_from_slice(body);
    out.extend_from_slice(if empty { &b"\"waiting_on\":"[..] } else { &b",\"waiting_on\":"[..] });
    out.extend_from_slice(waits);
    out.push(b'}');
    out
}

/// Looks now and then every [`LOBBY_EVERY`] on `clock` until `shutdown`.
pub async fn run(jetstream: async_nats::jetstream::Context, clock: Arc<dyn Clock>, waits: Waits, shutdown: CancellationToken) {
    loop {
        let now = clock.now();
        match waiting::observe(&jetstream, now, WAITING_AFTER).await {
            Ok(all) => {
                for t in &all {
                    for w in &t.waiting_on {
                        tracing::warn!(tournament = %t.tournament, service = %w.service, reader = %w.reader, since = %w.since, behind_by_commits = w.behind_by_commits, "a tournament waits on a service");
                    }
                }
                waits.set(all);
            }
            Err(e) => tracing::warn!(error = %e, "what tournaments wait on: the store did not answer; trying again"),
        }
        let next = now + chrono::Duration::from_std(LOBBY_EVERY).expect("a second");
        tokio::select! {
            _ = shutdown.cancelled() => break,
            _ = clock.sleep_until(next) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_on_is_added_as_the_documents_last_field() {
        let doc = br#"{"id":"t","entrants":2}"#;
        let added: serde_json::Value = serde_json::from_slice(&with_waiting_on(doc, br#"[{"service":"clock"}]"#)).expect("json");
        assert_eq!(added, serde_json::json!({"id": "t", "entrants": 2, "waiting_on": [{"service": "clock"}]}));
        let empty: serde_json::Value = serde_json::from_slice(&with_waiting_on(b"{}", b"[]")).expect("json");
        assert_eq!(empty, serde_json::json!({"waiting_on": []}));
    }
}
