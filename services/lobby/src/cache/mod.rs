//! What the HTTP side holds in memory, below the pages and the router: [`LobbyCache`], an
//! in-memory copy of bucket `floor-lobby` that a KV watch keeps current (and that feeds the live
//! feeds), and [`seats::SeatCache`], the same for who sits where.
//!
//! The list is served from the copy, so it never waits on NATS and any number of HTTP instances
//! can run beside one projection. One tournament is read from the bucket itself (one KV get, a
//! fraction of a millisecond): a player who just registered sees their entry in the next read,
//! never an older copy the watch has not caught up with. The cache answers if NATS does not.
//!
//! The projection stores its documents in batches (up to 20 ms), so a tournament created a
//! moment ago can be in the log and not yet in the bucket. A request for it waits for its first
//! document (up to [`FIRST_DOCUMENT`]) instead of answering `unknown_tournament`: a script that
//! creates a tournament and reads it at once sees it.

pub mod seats;

use crate::document::LobbyDocument;
use crate::listing::{Page, Query};
use crate::live::{Feeds, Revision};
use crate::respond::NotShown;
use async_nats::jetstream::{self, kv};
use floor_events::subjects;
use floor_runtime::Clock;
use futures::StreamExt;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a request for a tournament already in the log waits for the lobby to show it.
pub const FIRST_DOCUMENT: Duration = Duration::from_secs(2);

/// One document as the cache holds it: its JSON and revision, and the document itself when it
/// reads as one (to filter, order and render the list without decoding it per request).
#[derive(Clone)]
struct Shown {
    json: bytes::Bytes,
    doc: Option<Arc<LobbyDocument>>,
}

/// Tournament id → its document, as last seen in the bucket.
#[derive(Clone)]
pub struct LobbyCache {
    // std RwLock: held only to copy in or out, never across an await.
    docs: Arc<RwLock<BTreeMap<String, Shown>>>,
    bucket: kv::Store,
    /// Each tournament's structure.
    structures: kv::Store,
    /// The event stream, to tell a tournament not yet shown from one that does not exist.
    events: jetstream::stream::Stream,
    /// To read the readers' health (KV `floor-health`) for `GET /api/health`.
    pub(crate) jetstream: jetstream::Context,
    /// What each tournament waits on, as last looked at.
    pub(crate) waits: crate::waiting::Waits,
    /// The live feeds, fed by the cache's watch.
    pub(crate) feeds: Feeds,
    /// What "now" is for late registration and countdowns.
    pub(crate) clock: Arc<dyn Clock>,
    /// Ends the live feeds when the server stops.
    pub(crate) shutdown: CancellationToken,
    /// Who sits where ([`seats`]).
    pub(crate) seats: seats::SeatCache,
    /// Every finisher ([`crate::results`]); read per request, chunk by chunk.
    pub(crate) results: Option<kv::Store>,
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
        _ => first_document(bucket, events, id, patience).await.map(|r| r.json),
    }
}

/// For a tournament the bucket had no document for: the first one the projection stores
/// within `patience`, if the tournament is in the log.
async fn first_document(
    bucket: &kv::Store,
    events: &jetstream::stream::Stream,
    id: &str,
    patience: Duration,
) -> Result<Revision, NotShown> {
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
                return Some(Revision::new(entry.revision, entry.value));
            }
        }
        None
    };
    tokio::time::timeout(patience, first).await.ok().flatten().ok_or(NotShown::NotYet)
}

impl LobbyCache {
    /// Starts watching the bucket (current values first, then changes) until `shutdown`; each
    /// change also goes to the tournament's live feed.
    ///
    /// # Errors
    /// When the watch cannot be started.
    pub async fn watch(
        bucket: kv::Store,
        structures: kv::Store,
        events: jetstream::stream::Stream,
        jetstream: jetstream::Context,
        clock: Arc<dyn Clock>,
        shutdown: CancellationToken,
    ) -> Result<Self, kv::WatchError> {
        let cache = Self {
            docs: Arc::default(),
            bucket: bucket.clone(),
            structures,
            events,
            jetstream,
            waits: Default::default(),
            feeds: Feeds::default(),
            clock,
            shutdown: shutdown.clone(),
            seats: Default::default(),
            results: None,
        };
        let mut entries = bucket.watch_all_from_revision(1).await?;
        let (docs, feeds) = (cache.docs.clone(), cache.feeds.clone());
        tokio::spawn(async move {
            loop {
                let entry = tokio::select! {
                    _ = shutdown.cancelled() => break,
                    entry = entries.next() => entry,
                };
                match entry {
                    Some(Ok(entry)) => match entry.operation {
                        kv::Operation::Put => {
                            // Decoded once here, not per request; outside the lock.
                            let doc = serde_json::from_slice::<LobbyDocument>(&entry.value).ok().map(Arc::new);
                            let revision = Revision::new(entry.revision, entry.value.clone());
                            docs.write().expect("lobby cache poisoned").insert(entry.key.clone(), Shown { json: entry.value, doc });
                            // After the cache has it: a client that saw this revision on its feed
                            // finds it, and every earlier one, in the list.
                            feeds.publish(&entry.key, revision);
                        }
                        kv::Operation::Delete | kv::Operation::Purge => {
                            docs.write().expect("lobby cache poisoned").remove(&entry.key);
                        }
                    },
                    Some(Err(e)) => tracing::warn!(error = %e, "lobby watch"),
                    None => break,
                }
            }
        });
        Ok(cache)
    }

    /// Serves the results from `results` ([`crate::results`]; without it, none are shown).
    pub fn with_results(self, results: kv::Store) -> Self {
        Self { results: Some(results), ..self }
    }

    /// The results chunk at `key`; empty without the bucket or when it does not answer.
    pub async fn results_chunk(&self, key: &str) -> crate::results::ResultsChunk {
        match &self.results {
            Some(bucket) => crate::results::chunk(bucket, key).await.unwrap_or_default(),
            None => Default::default(),
        }
    }

    /// Serves `seats` as who sits where (a cache that stays empty otherwise).
    pub fn with_seats(self, seats: seats::SeatCache) -> Self {
        Self { seats, ..self }
    }

    /// Who sits where.
    pub fn seats(&self) -> &seats::SeatCache {
        &self.seats
    }

    /// A client for the services' commands, on the cache's connection.
    pub fn commands(&self) -> floor_runtime::client::Commands {
        floor_runtime::client::Commands::new(self.jetstream.client())
    }

    /// What each tournament waits on, as the lobby last looked.
    pub fn waits(&self) -> crate::waiting::Waits {
        self.waits.clone()
    }

    /// The documents that pass `query`'s filters now, in the list's order, paged.
    pub(crate) fn select(&self, query: &Query) -> Page<(String, bytes::Bytes, Option<Arc<LobbyDocument>>)> {
        let now = self.clock.now();
        let docs = self.docs.read().expect("lobby cache poisoned");
        let filtered = query.state.is_some() || query.format.is_some();
        let mut chosen: Vec<(String, bytes::Bytes, Option<Arc<LobbyDocument>>)> = docs
            .iter()
            // A document that does not read (written by a newer lobby, say) is listed only
            // unfiltered, last.
            .filter(|(_, s)| s.doc.as_ref().map_or(!filtered, |d| query.matches(d, now)))
            .map(|(id, s)| (id.clone(), s.json.clone(), s.doc.clone()))
            .collect();
        drop(docs);
        chosen.sort_by(|a, b| match (&a.2, &b.2) {
            (Some(x), Some(y)) => crate::listing::order(x, y),
            (x, y) => y.is_some().cmp(&x.is_some()).then_with(|| a.0.cmp(&b.0)),
        });
        Page::of(chosen, query.page, query.per_page)
    }

    /// One page of the list as JSON: `{"tournaments": […], "page", "per_page", "total",
    /// "pages", "next"}`, `next` the URL of the next page or `null`.
    pub(crate) fn list(&self, query: &Query) -> Vec<u8> {
        let page = self.select(query);
        let mut body = Vec::with_capacity(page.items.iter().map(|d| d.1.len() + 1).sum::<usize>() + 200);
        body.extend_from_slice(b"{\"tournaments\":[");
        for (i, (id, json, _)) in page.items.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            body.extend_from_slice(&self.waits.document(id, json));
        }
        let meta = serde_json::json!({
            "page": page.page,
            "per_page": page.per_page,
            "total": page.total,
            "pages": page.pages,
            "next": page.next().map(|n| format!("/api/tournaments?{}", query.to_url_query(n))),
        });
        // The object's fields after the list: `{"page":…}` without its opening brace.
        let meta = serde_json::to_vec(&meta).expect("page fields serialize");
        body.extend_from_slice(b"],");
        body.extend_from_slice(&meta[1..]);
        body
    }

    /// One tournament's newest revision, waiting for a tournament just created
    /// ([`first_document`]); from the cache when the bucket does not answer.
    pub(crate) async fn get(&self, id: &str) -> Result<Revision, NotShown> {
        if uuid::Uuid::parse_str(id).is_err() {
            // Not a tournament id (and perhaps not a valid key): nothing to ask the bucket.
            return Err(NotShown::Unknown);
        }
        match self.bucket.entry(id).await {
            Ok(Some(entry)) if entry.operation == kv::Operation::Put => Ok(Revision::new(entry.revision, entry.value)),
            Ok(_) => first_document(&self.bucket, &self.events, id, FIRST_DOCUMENT).await,
            Err(e) => {
                tracing::warn!(error = %e, "lobby read from the cache: the bucket did not answer");
                let docs = self.docs.read().expect("lobby cache poisoned");
                docs.get(id).map(|s| Revision::new(0, s.json.clone())).ok_or(NotShown::Unknown)
            }
        }
    }

    /// Every document that reads, in the list's order (the console's list: a director sees
    /// them all, unpaged).
    pub(crate) fn documents(&self) -> Vec<Arc<LobbyDocument>> {
        let docs = self.docs.read().expect("lobby cache poisoned");
        let mut all: Vec<Arc<LobbyDocument>> = docs.values().filter_map(|s| s.doc.clone()).collect();
        drop(docs);
        all.sort_by(|a, b| crate::listing::order(a, b));
        all
    }

    /// Waits, at most `patience`, until the cache holds the document the bucket holds now for
    /// `id` (read your own write for a page built from the cache, as the console's list is: the
    /// bucket is written before the reader's checkpoint, the cache a moment later by its watch).
    pub(crate) async fn caught_up(&self, id: &str, patience: Duration) {
        // Listen first, so a revision cached between the reads below is not missed.
        let mut feed = self.feeds.subscribe(id);
        let wanted = match self.bucket.entry(id).await {
            Ok(Some(entry)) if entry.operation == kv::Operation::Put => Some(entry),
            _ => None,
        };
        if let Some(wanted) = wanted {
            let holds =
                |cache: &Self| cache.docs.read().expect("lobby cache poisoned").get(id).is_some_and(|shown| shown.json == wanted.value);
            let caught = async {
                while !holds(self) {
                    if feed.changed().await.is_err() {
                        return;
                    }
                    if feed.borrow().as_ref().is_some_and(|r| r.revision >= wanted.revision) {
                        return;
                    }
                }
            };
            if tokio::time::timeout(patience, caught).await.is_err() {
                tracing::warn!(id, "lobby cache: the bucket's document has not reached the cache yet");
            }
        }
        drop(feed);
        self.feeds.release(id);
    }

    /// One tournament's newest document (see [`LobbyCache::get`]).
    pub(crate) async fn document(&self, id: &str) -> Result<LobbyDocument, NotShown> {
        let revision = self.get(id).await?;
        serde_json::from_slice(&revision.json).map_err(|_| NotShown::NotYet)
    }

    /// A tournament's structure, if it has one.
    pub(crate) async fn structure(&self, id: &str) -> Option<bytes::Bytes> {
        self.structures.get(id).await.ok().flatten()
    }
}
