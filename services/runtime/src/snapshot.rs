//! Aggregate snapshots: a restart reads one object and the commits after it, not the whole log.
//!
//! A seating aggregate in the middle of a 250,000-entrant tournament has hundreds of thousands
//! of commits; folding them all again took far longer than a table server should wait. The
//! host therefore stores, every so many commits, what it keeps in memory for an aggregate (its
//! state, the stream sequence of its last commit, and every command id it has stored, so
//! retried commands are still recognised) as one object in the `floor-snapshots` object store.
//! A load reads that object, then the commits after its sequence.
//!
//! A snapshot is only a cache of the log: the log stays the truth and is never trimmed. One
//! that cannot be read (another version of the state, a damaged object) is logged and ignored,
//! and the aggregate is folded from its first commit as before. The object's name carries a
//! version the aggregate chooses: change it whenever the state's shape or meaning changes.
//!
//! Encoding is JSON, like every event: a 250,000-entrant room is tens of megabytes and
//! encodes in a fraction of a second. It is taken under the aggregate's lock (the state must
//! not change while it is written) and stored by a task of its own, one at a time.

use crate::error::Error;
use async_nats::jetstream::object_store::ObjectStore;
use floor_events::CommandId;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use tokio::io::AsyncReadExt;

/// What went wrong with a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotErrorKind {
    /// The object store could not be read or written.
    Unavailable,
    /// The object is not a snapshot of this aggregate's version.
    Decode,
}

impl std::fmt::Display for SnapshotErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Unavailable => "the snapshot store is unavailable",
            Self::Decode => "the snapshot cannot be decoded",
        })
    }
}

/// Error reading or writing a snapshot.
pub type SnapshotError = Error<SnapshotErrorKind>;

/// What a snapshot restores.
pub struct Restored<S> {
    /// The state after the commit at `sequence`.
    pub state: S,
    /// Stream sequence of the last commit folded into `state`.
    pub sequence: u64,
    /// Every command id stored up to `sequence`, with its commit's sequence.
    pub seen: HashMap<CommandId, u64>,
}

#[derive(Serialize)]
struct Writing<'a, S> {
    version: &'a str,
    sequence: u64,
    seen: &'a HashMap<CommandId, u64>,
    state: &'a S,
}

#[derive(Deserialize)]
struct Reading<S> {
    version: String,
    sequence: u64,
    seen: HashMap<CommandId, u64>,
    state: S,
}

/// How an aggregate's snapshots are written and where. Built once per host with
/// [`Snapshots::json`]; the function pointers keep the host free of serde bounds for the
/// aggregates that do not snapshot.
pub struct Snapshots<S> {
    bucket: ObjectStore,
    version: &'static str,
    /// A snapshot after this many commits since the last one.
    pub every: u64,
    encode: Encode<S>,
    decode: Decode<S>,
}

/// Writes (version, sequence, command ids seen, state).
type Encode<S> = fn(&str, u64, &HashMap<CommandId, u64>, &S) -> Result<Vec<u8>, serde_json::Error>;
/// Reads (version, what to restore).
type Decode<S> = fn(&[u8]) -> Result<(String, Restored<S>), serde_json::Error>;

impl<S: Serialize + DeserializeOwned> Snapshots<S> {
    /// Snapshots in `bucket`, named `<version>.<aggregate subject>`, every `every` commits.
    pub fn json(bucket: ObjectStore, version: &'static str, every: u64) -> Self {
        Self {
            bucket,
            version,
            every: every.max(1),
            encode: |version, sequence, seen, state| serde_json::to_vec(&Writing { version, sequence, seen, state }),
            decode: |bytes| {
                let r: Reading<S> = serde_json::from_slice(bytes)?;
                Ok((r.version, Restored { state: r.state, sequence: r.sequence, seen: r.seen }))
            },
        }
    }
}

impl<S> Snapshots<S> {
    fn name(&self, subject: &str) -> String {
        format!("{}.{subject}", self.version)
    }

    /// Encodes what the host holds for one aggregate.
    ///
    /// # Errors
    /// `Decode` if the state does not encode (a map with keys JSON cannot hold, say).
    pub fn encode(&self, sequence: u64, seen: &HashMap<CommandId, u64>, state: &S) -> Result<Vec<u8>, SnapshotError> {
        (self.encode)(self.version, sequence, seen, state).map_err(|e| SnapshotError::with_source(SnapshotErrorKind::Decode, e))
    }

    /// The bucket and object name to store the aggregate on `subject` under.
    pub fn target(&self, subject: &str) -> (ObjectStore, String) {
        (self.bucket.clone(), self.name(subject))
    }

    /// The last snapshot of the aggregate on `subject`, if there is one.
    ///
    /// # Errors
    /// `Unavailable` when the store cannot be read, `Decode` when the object is not a
    /// snapshot of this version.
    pub async fn load(&self, subject: &str) -> Result<Option<Restored<S>>, SnapshotError> {
        use async_nats::jetstream::object_store::GetErrorKind;
        let mut object = match self.bucket.get(self.name(subject)).await {
            Ok(object) => object,
            Err(e) if e.kind() == GetErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(SnapshotError::with_source(SnapshotErrorKind::Unavailable, e)),
        };
        let mut bytes = Vec::new();
        object.read_to_end(&mut bytes).await.map_err(|e| SnapshotError::with_source(SnapshotErrorKind::Unavailable, e))?;
        let (version, restored) = (self.decode)(&bytes).map_err(|e| SnapshotError::with_source(SnapshotErrorKind::Decode, e))?;
        if version != self.version {
            return Err(SnapshotError::with_source(SnapshotErrorKind::Decode, format!("version {version}, expected {}", self.version)));
        }
        Ok(Some(restored))
    }
}

/// Stores an encoded snapshot under `name`, replacing the previous one.
///
/// # Errors
/// `Unavailable`.
pub async fn store(bucket: &ObjectStore, name: &str, bytes: &[u8]) -> Result<(), SnapshotError> {
    let mut reader = bytes;
    bucket.put(name, &mut reader).await.map_err(|e| SnapshotError::with_source(SnapshotErrorKind::Unavailable, e))?;
    Ok(())
}

/// `#[serde(with = "floor_runtime::snapshot::pairs")]` for a `HashMap` whose keys JSON cannot
/// hold as object keys (tuples): stored as a list of `[key, value]` pairs.
pub mod pairs {
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::HashMap;
    use std::hash::Hash;

    /// Writes the map as pairs.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<K: Serialize, V: Serialize, S: Serializer>(map: &HashMap<K, V>, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(map.iter())
    }

    /// Reads pairs into a map.
    ///
    /// # Errors
    /// The deserializer's.
    pub fn deserialize<'de, K, V, D>(deserializer: D) -> Result<HashMap<K, V>, D::Error>
    where
        K: DeserializeOwned + Eq + Hash,
        V: DeserializeOwned,
        D: Deserializer<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(deserializer)?.into_iter().collect())
    }
}
