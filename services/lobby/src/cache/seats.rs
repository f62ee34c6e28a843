//! Who sits where, held: an in-memory copy of bucket [`crate::seat_map::BUCKET`] that a KV watch
//! keeps current, for the seat map, the player search and the console's tables.

use crate::seat_map::{search, Found, Key, RosterChunk, SeatsSummary, TableDoc};
use async_nats::jetstream::kv;
use floor_events::TournamentId;
use futures::StreamExt;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The most entries a search answers.
pub const SEARCH_LIMIT: usize = 50;

/// One tournament's seat map as the bucket holds it.
#[derive(Debug, Default, Clone)]
pub struct Held {
    /// The summary, once stored.
    pub summary: Option<SeatsSummary>,
    /// Open tables.
    pub tables: BTreeMap<u32, TableDoc>,
    /// Roster parts.
    pub roster: BTreeMap<u32, RosterChunk>,
}

/// How long a request waits for the cache to hold what the bucket already has.
pub const CATCH_UP: Duration = Duration::from_secs(1);

/// Tournament → its seat map, as last seen in the bucket.
#[derive(Clone)]
pub struct SeatCache {
    // std RwLock: held only to copy in or out, never across an await.
    held: Arc<RwLock<HashMap<TournamentId, Held>>>,
    /// The bucket, to read a summary's newest revision (absent: a cache that stays empty).
    bucket: Option<kv::Store>,
    /// The newest revision the cache holds.
    applied: tokio::sync::watch::Receiver<u64>,
}

impl Default for SeatCache {
    fn default() -> Self {
        Self { held: Arc::default(), bucket: None, applied: tokio::sync::watch::channel(0).1 }
    }
}

impl SeatCache {
    /// Starts watching the bucket (current values first, then changes) until `shutdown`.
    ///
    /// # Errors
    /// When the watch cannot be started.
    pub async fn watch(bucket: kv::Store, shutdown: CancellationToken) -> Result<Self, kv::WatchError> {
        let (applied, revision) = tokio::sync::watch::channel(0);
        let cache = Self { held: Arc::default(), bucket: Some(bucket.clone()), applied: revision };
        let mut entries = bucket.watch_all_from_revision(1).await?;
        let held = cache.held.clone();
        tokio::spawn(async move {
            loop {
                let entry = tokio::select! {
                    _ = shutdown.cancelled() => break,
                    entry = entries.next() => entry,
                };
                match entry {
                    Some(Ok(entry)) => {
                        if let Some(key) = Key::parse(&entry.key) {
                            let put = entry.operation == kv::Operation::Put;
                            keep(&mut held.write().expect("seat cache poisoned"), key, put.then_some(&entry.value[..]));
                        }
                        applied.send_replace(entry.revision);
                    }
                    Some(Err(e)) => tracing::warn!(error = %e, "seat-map watch"),
                    None => break,
                }
            }
        });
        Ok(cache)
    }

    /// One tournament's seat map, copied out.
    pub fn get(&self, tournament: TournamentId) -> Option<Held> {
        self.held.read().expect("seat cache poisoned").get(&tournament).cloned()
    }

    /// Waits (up to [`CATCH_UP`]) until the cache holds the tournament's summary the bucket
    /// holds now, so a reader who saw a seat change in KV finds it here too. The summary is
    /// stored after the tables and roster parts it counts, so those are in as well.
    pub async fn caught_up(&self, tournament: TournamentId) {
        let Some(bucket) = &self.bucket else { return };
        let Ok(Some(entry)) = bucket.entry(crate::seat_map::summary_key(tournament)).await else { return };
        let mut applied = self.applied.clone();
        let _ = tokio::time::timeout(CATCH_UP, applied.wait_for(|a| *a >= entry.revision)).await;
    }

    /// One tournament's summary.
    pub fn summary(&self, tournament: TournamentId) -> Option<SeatsSummary> {
        self.held.read().expect("seat cache poisoned").get(&tournament).and_then(|h| h.summary.clone())
    }

    /// The entries of `tournament` whose player name holds `name`.
    pub fn search(&self, tournament: TournamentId, name: &str) -> Vec<Found> {
        let held = self.held.read().expect("seat cache poisoned");
        let Some(map) = held.get(&tournament) else { return vec![] };
        search(map.roster.values(), map.tables.values(), name, SEARCH_LIMIT)
    }
}

/// Folds one bucket entry (`None`: deleted) into what is held. An unreadable document is left
/// out and logged.
fn keep(held: &mut HashMap<TournamentId, Held>, key: Key, value: Option<&[u8]>) {
    fn read<T: serde::de::DeserializeOwned>(value: &[u8]) -> Option<T> {
        serde_json::from_slice(value).map_err(|e| tracing::warn!(error = %e, "unreadable seat-map document")).ok()
    }
    match key {
        Key::Summary(t) => held.entry(t).or_default().summary = value.and_then(read),
        Key::Table(t, n) => {
            let map = held.entry(t).or_default();
            match value.and_then(read) {
                Some(table) => drop(map.tables.insert(n, table)),
                None => drop(map.tables.remove(&n)),
            }
        }
        Key::Roster(t, k) => {
            let map = held.entry(t).or_default();
            match value.and_then(read) {
                Some(chunk) => drop(map.roster.insert(k, chunk)),
                None => drop(map.roster.remove(&k)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seat_map::{table_key, test_table as table};

    fn t() -> TournamentId {
        TournamentId(uuid::Uuid::from_u128(9))
    }

    #[test]
    fn the_cache_keeps_puts_and_forgets_deletes() {
        let mut held = HashMap::new();
        let doc = serde_json::to_vec(&table(3, &[(1, 1, "ana", 500)])).unwrap();
        keep(&mut held, Key::parse(&table_key(t(), 3)).unwrap(), Some(&doc));
        assert_eq!(held[&t()].tables[&3].seats[0].chips, 500);
        keep(&mut held, Key::Table(t(), 3), Some(b"not json"));
        assert!(held[&t()].tables.is_empty(), "an unreadable document is left out, not kept stale");
        keep(&mut held, Key::Table(t(), 3), Some(&doc));
        keep(&mut held, Key::Table(t(), 3), None);
        assert!(held[&t()].tables.is_empty(), "a closed table's key is deleted");
    }
}
