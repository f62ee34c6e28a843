//! What each checkpointed reader reads, kept where any process can see it.
//!
//! A reader with a checkpoint in KV `floor-checkpoints` (a projection, a policy) says at every
//! start which stream and subjects it reads, in KV [`subjects::READERS_BUCKET`] under the same
//! key. [`crate::waiting`] reads the two together to say which tournament waits on which
//! reader. (It used to read the filters of each reader's durable consumer, which only
//! projections had, and since projections read the process's tail ([`crate::tail`]) none has.)

use async_nats::jetstream;
use floor_events::subjects;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What one reader reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reads {
    /// The stream (`FLOOR_EVENTS`, `FLOOR_TABLES`).
    pub stream: String,
    /// The subjects, as consumer filters.
    pub filters: Vec<String>,
}

/// Records what reader `name` reads. A failure is logged, never fatal: this is a report for
/// `floor status`, and the reader reads the same either way.
pub async fn announce(jetstream: &jetstream::Context, name: &str, reads: &Reads) {
    let stored = async {
        let bucket = jetstream.get_key_value(subjects::READERS_BUCKET).await.map_err(|e| e.to_string())?;
        let body = serde_json::to_vec(reads).expect("reads encode");
        bucket.put(crate::health::key(name), body.into()).await.map_err(|e| e.to_string())
    };
    if let Err(error) = stored.await {
        tracing::warn!(reader = name, error, "what the reader reads not recorded; floor status will not watch it");
    }
}

/// What reader `name` recorded it reads; `None` when it recorded nothing (or the bucket cannot
/// be read).
pub async fn of(jetstream: &jetstream::Context, name: &str) -> Option<Reads> {
    let bucket = jetstream.get_key_value(subjects::READERS_BUCKET).await.ok()?;
    let body = bucket.get(crate::health::key(name)).await.ok()??;
    serde_json::from_slice(&body).ok()
}

/// Every reader's record, by its key. A record that does not read is left out.
///
/// # Errors
/// The bucket cannot be read.
pub async fn all(jetstream: &jetstream::Context) -> Result<BTreeMap<String, Reads>, String> {
    let Ok(bucket) = jetstream.get_key_value(subjects::READERS_BUCKET).await else { return Ok(BTreeMap::new()) };
    let mut keys = bucket.keys().await.map_err(|e| e.to_string())?;
    let mut names = Vec::new();
    while let Some(key) = keys.next().await {
        names.push(key.map_err(|e| e.to_string())?);
    }
    let mut all = BTreeMap::new();
    for name in names {
        let Some(body) = bucket.get(&name).await.map_err(|e| e.to_string())? else { continue };
        if let Ok(reads) = serde_json::from_slice::<Reads>(&body) {
            all.insert(name, reads);
        }
    }
    Ok(all)
}

/// The last commit of aggregate id `id` stored on the subjects `reads` names on the events
/// stream `stream` (one direct get per subject); 0 for none.
pub async fn last_commit_of(stream: &jetstream::stream::Stream, reads: &Reads, id: uuid::Uuid) -> u64 {
    let mut last = 0;
    for aggregate in reads.filters.iter().filter_map(|f| subjects::filter_aggregate(f)) {
        if let Ok(message) = stream.direct_get_last_for_subject(subjects::event_subject(aggregate, id)).await {
            last = last.max(message.sequence);
        }
    }
    last
}

/// Waits until reader `name`'s checkpoint in `checkpoints` (KV `floor-checkpoints`) is at or
/// past `sequence`: `Some(waited)`, whether it was not there yet at the call; `None` when the
/// watch cannot be had or ends first. Callers bound it with a timeout.
pub async fn taken(checkpoints: &jetstream::kv::Store, name: &str, sequence: u64) -> Option<bool> {
    let mut watch = checkpoints.watch_with_history(name).await.ok()?;
    let mut waited = false;
    while let Some(Ok(entry)) = watch.next().await {
        if std::str::from_utf8(&entry.value).ok().and_then(|v| v.parse::<u64>().ok()).is_some_and(|at| at >= sequence) {
            return Some(waited);
        }
        waited = true;
    }
    None
}
