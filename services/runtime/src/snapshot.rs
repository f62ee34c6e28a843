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
    seen: Recent<'a>,
    state: &'a S,
}

/// The command ids of commits after `since`, written as `[id, sequence]` pairs.
struct Recent<'a> {
    seen: &'a HashMap<CommandId, u64>,
    since: u64,
}

impl Serialize for Recent<'_> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.seen.iter().filter(|&(_, &sequence)| sequence > self.since))
    }
}

#[derive(Deserialize)]
struct Reading<S> {
    version: String,
    sequence: u64,
    seen: SeenIds,
    state: S,
}

/// Command ids as snapshots hold them: pairs, or (the first snapshots) an object.
#[derive(Deserialize)]
#[serde(untagged)]
enum SeenIds {
    Pairs(Vec<(CommandId, u64)>),
    Object(HashMap<CommandId, u64>),
}

impl SeenIds {
    fn into_map(self) -> HashMap<CommandId, u64> {
        match self {
            Self::Pairs(pairs) => pairs.into_iter().collect(),
            Self::Object(map) => map,
        }
    }
}

/// How an aggregate's snapshots are written and where. Built once per host with
/// [`Snapshots::json`]; the function pointers keep the host free of serde bounds for the
/// aggregates that do not snapshot.
pub struct Snapshots<S> {
    bucket: ObjectStore,
    version: &'static str,
    /// A snapshot after this many commits since the last one.
    pub every: u64,
    /// The command ids a snapshot keeps: those of the commits in this many stream sequences
    /// before it ([`Snapshots::keeping_ids_of`]).
    seen_window: u64,
    encode: Encode<S>,
    decode: Decode<S>,
}

/// Writes (version, sequence, command ids seen after a sequence, state).
type Encode<S> = fn(&str, u64, Recent<'_>, &S) -> Result<Vec<u8>, serde_json::Error>;
/// Reads (version, what to restore).
type Decode<S> = fn(&[u8]) -> Result<(String, Restored<S>), serde_json::Error>;

impl<S: Serialize + DeserializeOwned> Snapshots<S> {
    /// Snapshots in `bucket`, named `<version>.<aggregate subject>`, every `every` commits.
    pub fn json(bucket: ObjectStore, version: &'static str, every: u64) -> Self {
        Self {
            bucket,
            version,
            every: every.max(1),
            seen_window: u64::MAX,
            encode: |version, sequence, seen, state| serde_json::to_vec(&Writing { version, sequence, seen, state }),
            decode: |bytes| {
                let r: Reading<S> = serde_json::from_slice(bytes)?;
                Ok((r.version, Restored { state: r.state, sequence: r.sequence, seen: r.seen.into_map() }))
            },
        }
    }

    /// Keeps in each snapshot only the command ids of the commits in the last `window` stream
    /// sequences, instead of all.
    ///
    /// The ids let a retried command be answered with its first result. An aggregate whose
    /// retries can only come from a runner's unacknowledged tail (seating: reports and
    /// reactions with derived ids, re-read after a crash from the last checkpoint) needs only
    /// the recent ones; at 250,000 entrants all of them were three quarters of a 44 MB
    /// snapshot. A command retried after more than `window` later commits is decided again:
    /// against a state that already holds its effect, which for seating means refused.
    pub fn keeping_ids_of(mut self, window: u64) -> Self {
        self.seen_window = window;
        self
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
        let seen = Recent { seen, since: sequence.saturating_sub(self.seen_window) };
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
    use async_nats::jetstream::object_store::ObjectMetadata;
    // Chunks of 512 KiB rather than the default 128 KiB: a quarter of the messages to read
    // back at a restart, well under the server's 1 MiB message limit.
    let meta = ObjectMetadata { name: name.to_owned(), chunk_size: Some(512 * 1024), ..Default::default() };
    let mut reader = bytes;
    bucket.put(meta, &mut reader).await.map_err(|e| SnapshotError::with_source(SnapshotErrorKind::Unavailable, e))?;
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
