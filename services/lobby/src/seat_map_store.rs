//! The seat-map projection: every tournament's seating commits folded ([`crate::seat_map`])
//! and stored in KV bucket [`BUCKET`], a key per table, roster part and summary.
//!
//! Tables and roster parts are stored before the summary, which carries the last sequence
//! folded in: after a crash between the two, the commits come again and fold onto what the
//! summary says, never twice. A finished tournament's map leaves memory once stored; its
//! summary and roster stay in the bucket.

use crate::seat_map::{roster_key, summary_key, table_key, Key, RosterChunk, SeatMap, SeatsSummary, TableDoc, BUCKET};
use async_nats::jetstream::{self, kv};
use floor_events::commit::Events;
use floor_events::{subjects, TournamentId};
use floor_runtime::commits;
use floor_runtime::projection::{Projection, ProjectionError, ProjectionErrorKind};
use futures::{StreamExt, TryStreamExt};
use std::collections::{BTreeMap, HashMap, HashSet};

/// KV writes in flight at once during a flush.
const CONCURRENT_WRITES: usize = 64;

/// The bucket, created on first use (this projection is its only writer).
///
/// # Errors
/// When the bucket can neither be read nor created.
pub async fn bucket(jetstream: &jetstream::Context) -> Result<kv::Store, String> {
    floor_runtime::bootstrap::key_value(jetstream, BUCKET, "Floor lobby: who sits where, per table").await
}

fn read<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e)
}
fn write<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Write, e)
}

/// One write of a flush.
enum Write {
    Put(String, bytes::Bytes),
    Delete(String),
}

/// The seat-map projection.
pub struct SeatMapProjection {
    bucket: kv::Store,
    maps: HashMap<TournamentId, SeatMap>,
    /// Tournaments won: their maps are stored and forgotten, and nothing folds into them again.
    finished: HashSet<TournamentId>,
}

/// Every document in the bucket, read as what its key names.
#[derive(Default)]
pub struct Stored {
    /// Summaries.
    pub summaries: HashMap<TournamentId, SeatsSummary>,
    /// Open tables.
    pub tables: HashMap<TournamentId, Vec<TableDoc>>,
    /// Roster parts.
    pub roster: HashMap<TournamentId, Vec<(u32, RosterChunk)>>,
}

impl Stored {
    /// Keeps one document; an unreadable one is logged and left out (the next change to it
    /// stores it again).
    pub fn keep(&mut self, key: &str, value: &[u8]) {
        let unreadable = |e: serde_json::Error| tracing::warn!(key, error = %e, "unreadable seat-map document; left out");
        match Key::parse(key) {
            Some(Key::Summary(t)) => match serde_json::from_slice(value) {
                Ok(doc) => drop(self.summaries.insert(t, doc)),
                Err(e) => unreadable(e),
            },
            Some(Key::Table(t, _)) => match serde_json::from_slice(value) {
                Ok(doc) => self.tables.entry(t).or_default().push(doc),
                Err(e) => unreadable(e),
            },
            Some(Key::Roster(t, k)) => match serde_json::from_slice(value) {
                Ok(doc) => self.roster.entry(t).or_default().push((k, doc)),
                Err(e) => unreadable(e),
            },
            None => tracing::warn!(key, "a key the seat map does not write; left alone"),
        }
    }

    /// Reads the whole bucket: each key's last value, in one pass over the bucket's stream (a
    /// listing of the keys and a get for each took most of the lobby's restart at 250,000
    /// entrants: 3,959 documents among 28,030 messages, a delete marker for each table broken).
    ///
    /// # Errors
    /// `Read` when the bucket cannot be read.
    pub async fn read(bucket: &kv::Store) -> Result<Self, ProjectionError> {
        let mut stored = Self::default();
        if bucket.status().await.map_err(read)?.values() == 0 {
            return Ok(stored);
        }
        let started = std::time::Instant::now();
        let (mut messages, mut documents) = (0u64, 0u64);
        let mut entries = bucket.watch_with_history(">").await.map_err(read)?;
        while let Some(entry) = entries.next().await {
            let entry = entry.map_err(read)?;
            messages += 1;
            if entry.operation == kv::Operation::Put {
                documents += 1;
                stored.keep(&entry.key, &entry.value);
            }
            if entry.delta == 0 {
                break;
            }
        }
        // A broken table leaves a delete marker behind: how many there are against the
        // documents says what a restart late in a big tournament pays for them.
        tracing::info!(messages, documents, ms = started.elapsed().as_millis() as u64, "seat-map bucket read");
        Ok(stored)
    }
}

impl SeatMapProjection {
    /// Loads the maps already in the bucket to resume folding after the checkpoint.
    ///
    /// # Errors
    /// `Read` when the bucket cannot be read.
    pub async fn load(jetstream: &jetstream::Context) -> Result<Self, ProjectionError> {
        let bucket = bucket(jetstream).await.map_err(read)?;
        let Stored { summaries, mut tables, mut roster } = Stored::read(&bucket).await?;
        let mut maps = HashMap::new();
        let mut finished = HashSet::new();
        for (t, summary) in summaries {
            if summary.winner.is_some() {
                finished.insert(t);
            } else {
                maps.insert(t, SeatMap::stored(summary, tables.remove(&t).unwrap_or_default(), roster.remove(&t).unwrap_or_default()));
            }
        }
        Ok(Self { bucket, maps, finished })
    }

    /// A tournament's map, as folded so far (`None` once finished and stored).
    pub fn map(&self, tournament: TournamentId) -> Option<&SeatMap> {
        self.maps.get(&tournament)
    }
}

impl Projection for SeatMapProjection {
    fn name(&self) -> &'static str {
        "seat-map"
    }

    fn filters(&self) -> Vec<String> {
        vec![subjects::event_filter(subjects::aggregate::SEATING)]
    }

    fn apply(&mut self, stored: commits::Stored<'_>) {
        let (subject, sequence) = (stored.subject, stored.sequence);
        let Some((_, id)) = subjects::parse_event_subject(subject) else { return };
        let id = TournamentId(id);
        if self.finished.contains(&id) || self.maps.get(&id).is_some_and(|m| m.summary().last_sequence >= sequence) {
            return;
        }
        let Some(commit) = stored.commit("seat-map") else { return };
        let Events::Seating(events) = &commit.events else { return };
        self.maps.entry(id).or_insert_with(|| SeatMap::new(id)).apply(sequence, events);
    }

    async fn flush(&mut self) -> Result<(), ProjectionError> {
        // Tables and roster parts first, then each summary (it names the last commit folded).
        let mut parts = vec![];
        let mut summaries = vec![];
        for (id, map) in &mut self.maps {
            let changes = map.take_changes();
            for n in changes.tables {
                if let Some(table) = map.table(n) {
                    parts.push(Write::Put(table_key(*id, n), serde_json::to_vec(table).expect("table serializes").into()));
                }
            }
            parts.extend(changes.closed.into_iter().map(|n| Write::Delete(table_key(*id, n))));
            for k in changes.roster {
                if let Some(chunk) = map.roster(k) {
                    parts.push(Write::Put(roster_key(*id, k), serde_json::to_vec(chunk).expect("roster serializes").into()));
                }
            }
            if changes.summary {
                summaries.push(Write::Put(summary_key(*id), serde_json::to_vec(map.summary()).expect("summary serializes").into()));
            }
        }
        for writes in [parts, summaries] {
            let bucket = &self.bucket;
            futures::stream::iter(writes)
                .map(|w| async move {
                    match w {
                        Write::Put(key, value) => bucket.put(key, value).await.map(drop).map_err(write),
                        Write::Delete(key) => bucket.delete(key).await.map_err(write),
                    }
                })
                .buffer_unordered(CONCURRENT_WRITES)
                .try_collect::<Vec<()>>()
                .await?;
        }
        let won: Vec<TournamentId> = self.maps.iter().filter(|(_, m)| m.summary().winner.is_some()).map(|(t, _)| *t).collect();
        for t in won {
            self.maps.remove(&t);
            self.finished.insert(t);
        }
        Ok(())
    }

    async fn reset(&mut self) -> Result<(), ProjectionError> {
        self.maps.clear();
        self.finished.clear();
        let keys: Vec<String> = self.bucket.keys().await.map_err(read)?.try_collect().await.map_err(read)?;
        for key in keys {
            self.bucket.purge(key).await.map_err(write)?;
        }
        Ok(())
    }
}

/// Every tournament's map as a reader of the bucket holds it.
pub type Shown = BTreeMap<TournamentId, SeatMap>;
