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
