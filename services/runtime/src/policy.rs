//! The policy runner: a stateful reaction to the log with a durable checkpoint, so a restart
//! reads one snapshot and the commits after it, not the whole log.
//!
//! A policy ([`Policy`]) is a pure reaction: `react(commit) -> orders`, each order a command whose
//! id is derived from the commit that caused it, so running it again is answered from the
//! aggregate's history. Its memory (and any view kept with it, such as payouts' books) is one
//! `Serialize + DeserializeOwned` value, shared with the service's endpoint behind a mutex.
//!
//! - **Snapshot.** The memory and the stream sequence it has folded up to are stored as one
//!   object (`policy.<name>.<version>`) in the `floor-snapshots` object store, every
//!   [`DEFAULT_EVERY`] commits or [`DEFAULT_INTERVAL`], whichever comes first, and *only* at a
//!   sequence where every order caused by the commits up to it has been executed (the service
//!   says so with [`PolicyRunner::executed`]). The memory is encoded under its lock on the
//!   service's task (it must not change while written) and stored by a task of its own, one at a
//!   time, like aggregate snapshots ([`crate::snapshot`]).
//! - **Start.** Load the snapshot (memory + sequence S), follow the filters from S + 1, fold the
//!   tail, hand back the tail's orders to run again ([`Started::owed`]), then follow live. No
//!   snapshot, or one that cannot be read (logged and counted in the reader's health record), is
//!   a fold from the first commit: the log is the truth, the snapshot only a cache.
//! - **Checkpoint.** The sequence up to which every order is executed is also written to KV
//!   `floor-checkpoints` under the policy's name: by a writer task that always stores the
//!   latest value (one put in flight, at most one per `CHECKPOINT_GAP`, later values coalesced), so a reader of the store (the
//!   simulator's lockstep) can tell what the policy has taken without asking the process.
//!
//! No policy dies of one commit: the fold is guarded exactly as [`crate::follow`]'s is
//! ([`crate::health::Reader::guard`]): poison is recorded, its subject set aside, the rest served.

use crate::bootstrap::Backbone;
pub use crate::commits::Stored;
use crate::follow::{follow_from, Following};
use crate::projection::{ProjectionError, ProjectionErrorKind};
use crate::snapshot::{self, SnapshotError, SnapshotErrorKind};
use crate::sync::lock;
use async_nats::jetstream::kv;
use async_nats::jetstream::object_store::ObjectStore;
use floor_events::subjects;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A snapshot after this many commits folded since the last one.
pub const DEFAULT_EVERY: u64 = 10_000;
/// A snapshot at most this long after the first commit folded since the last one.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);

/// A policy's memory: folds commits and says what they call for. Pure: no IO, no clock.
pub trait Policy: Serialize + DeserializeOwned + Default + Send + 'static {
    /// A command the policy calls for, with an id derived from its cause.
    type Order: Send + 'static;

    /// Folds one commit; returns the orders it causes, in the order they must run.
    fn react(&mut self, commit: Stored<'_>) -> Vec<Self::Order>;
}

/// Where a policy reads and how often it is snapshotted.
#[derive(Debug, Clone)]
pub struct PolicyConfig {
    /// Names the snapshot, the checkpoint key and the health record; never change it once
    /// deployed.
    pub name: &'static str,
    /// The memory's shape: change it whenever the memory's shape or meaning changes (an old
    /// snapshot is then not found, and the log is folded from the start).
    pub version: &'static str,
    /// Subjects it reads.
    pub filters: Vec<String>,
    /// A snapshot after this many commits.
    pub every: u64,
    /// A snapshot at most this long after the first commit not in the last one.
    pub interval: Duration,
}

impl PolicyConfig {
    /// A policy called `name`, memory version `version`, reading `filters`, with the default
    /// snapshot cadence.
    pub fn new(name: &'static str, version: &'static str, filters: Vec<String>) -> Self {
        Self { name, version, filters, every: DEFAULT_EVERY, interval: DEFAULT_INTERVAL }
    }

    /// Snapshots every `every` commits or `interval`, whichever first.
    pub fn snapshot_every(mut self, every: u64, interval: Duration) -> Self {
        self.every = every.max(1);
        self.interval = interval;
        self
    }

    fn object(&self) -> String {
        format!("policy.{}.{}", self.name, self.version)
    }
}

#[derive(Serialize)]
struct Writing<'a, P> {
    version: &'a str,
    sequence: u64,
    state: &'a P,
}

#[derive(Deserialize)]
struct Reading<P> {
    version: String,
    sequence: u64,
    state: P,
}

/// A policy after its start: caught up with the log, with what it still owes.
pub struct Started<P: Policy> {
    /// The runner, to follow live.
    pub runner: PolicyRunner<P>,
    /// The orders of the commits folded at the start (after the snapshot), in log order. Run
    /// them all, then call [`PolicyRunner::executed`] with [`PolicyRunner::folded`].
    pub owed: Vec<P::Order>,
    /// The snapshot's sequence, when the start came from one.
    pub snapshot: Option<u64>,
    /// Commits folded at the start (after the snapshot, if any).
    pub replayed: u64,
}

/// Runs one policy: follows its filters, folds each commit under the guard, stores snapshots
/// and the checkpoint once the service says the orders are executed.
pub struct PolicyRunner<P: Policy> {
    config: PolicyConfig,
    memory: Arc<Mutex<P>>,
    following: Following,
    bucket: ObjectStore,
    /// Last sequence folded into the memory (watched by endpoints that answer from it:
    /// [`PolicyRunner::reads`]).
    folded: watch::Sender<u64>,
    /// The store, for [`crate::folded::Folded`].
    store: crate::store::JetStreamStore,
    /// Last sequence whose orders are all executed.
    executed: watch::Sender<u64>,
    /// Sequence of the last snapshot stored (or loaded, or being stored).
    snapshotted: u64,
    /// When the first commit not in the last snapshot was executed.
    dirty_since: Option<Instant>,
    storing: Option<JoinHandle<()>>,
}

fn read<E: ToString>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e.to_string())
}

impl<P: Policy> PolicyRunner<P> {
    /// Loads the last snapshot, folds the commits after it and returns caught up with the
    /// stream as it was at the call (see the module's doc).
    ///
    /// # Errors
    /// `Read` when the stream, the snapshot store or the checkpoint bucket cannot be read (an
    /// unreadable snapshot object is no error: the log is folded from the start).
    pub async fn start(backbone: &Backbone, config: PolicyConfig) -> Result<Started<P>, ProjectionError> {
        let bucket = backbone.jetstream.get_object_store(subjects::SNAPSHOT_BUCKET).await.map_err(read)?;
        let checkpoints = backbone.jetstream.get_key_value(subjects::CHECKPOINT_BUCKET).await.map_err(read)?;
        let reader = backbone.health.reader(config.name).await;
        let reads = crate::readers::Reads { stream: subjects::EVENTS_STREAM.to_owned(), filters: config.filters.clone() };
        crate::readers::announce(&backbone.jetstream, config.name, &reads).await;
        let loading = Instant::now();
        let (memory, snapshot) = match load::<P>(&bucket, &config).await {
            Ok(Some((sequence, memory))) => (memory, Some(sequence)),
            Ok(None) => (P::default(), None),
            Err(e) if e.kind() == SnapshotErrorKind::Decode => {
                reader.record_unreadable_snapshot(&e.to_string());
                (P::default(), None)
            }
            Err(e) => return Err(read(e)),
        };
        let loaded_ms = loading.elapsed().as_millis() as u64;
        let from = snapshot.unwrap_or(0);
        let mut owed = Vec::new();
        let (mut folded, mut replayed) = (from, 0u64);
        let mut memory = memory;
        let following = follow_from(backbone, config.name, config.filters.clone(), from + 1, |message| {
            let commit = Stored::of(message);
            folded = commit.sequence;
            replayed += 1;
            owed.extend(memory.react(commit));
        })
        .await?;
        tracing::info!(
            policy = config.name,
            snapshot = ?snapshot,
            loaded_ms,
            replayed,
            ms = loading.elapsed().as_millis() as u64,
            "policy caught up"
        );
        // Commits skipped by the guard (poison, set aside) still count as read: the catch-up's
        // last sequence, whether folded or skipped.
        let folded = folded.max(following.last());
        let executed = watch::Sender::new(from);
        tokio::spawn(write_checkpoints(checkpoints, config.name, executed.subscribe()));
        let runner = Self {
            config,
            memory: Arc::new(Mutex::new(memory)),
            following,
            bucket,
            folded: watch::Sender::new(folded),
            store: crate::store::JetStreamStore::new(backbone),
            executed,
            snapshotted: from,
            dirty_since: None,
            storing: None,
        };
        Ok(Started { runner, owed, snapshot, replayed })
    }

    /// The memory, shared with whoever reads it (an endpoint). A std mutex: never held across
    /// an await.
    pub fn memory(&self) -> Arc<Mutex<P>> {
        self.memory.clone()
    }

    /// The last stream sequence folded into the memory.
    pub fn folded(&self) -> u64 {
        *self.folded.borrow()
    }

    /// How far the memory has read the log, for an endpoint answering from it: it waits with
    /// [`crate::folded::Folded::caught_up`] for what was stored before the question.
    pub fn reads(&self) -> crate::folded::Folded {
        crate::folded::Folded::new(self.config.name, self.config.filters.clone(), self.folded.subscribe(), self.store.clone())
    }

    /// The next commit, folded: its sequence and the orders it causes (none when the guard
    /// skipped it). `None` when the connection is gone for good.
    pub async fn next(&mut self) -> Option<Result<(u64, Vec<P::Order>), ProjectionError>> {
        let message = match self.following.next_or_skipped().await? {
            Ok(Ok(message)) => message,
            // Poison or a subject set aside: read, nothing folded, nothing ordered.
            Ok(Err(skipped)) => {
                self.fold_to(skipped);
                return Some(Ok((skipped, vec![])));
            }
            Err(e) => return Some(Err(e)),
        };
        let commit = Stored::of(&message);
        let memory = &self.memory;
        let orders = self.following.guard(&message, || lock(memory).react(commit)).unwrap_or_default();
        self.following.reader().publish().await;
        self.fold_to(commit.sequence);
        Some(Ok((commit.sequence, orders)))
    }

    /// The memory has read the log up to `sequence`.
    fn fold_to(&self, sequence: u64) {
        self.folded.send_if_modified(|at| {
            let moved = sequence > *at;
            *at = (*at).max(sequence);
            moved
        });
    }

    /// Every order caused by the commits up to `sequence` is executed (stored): the checkpoint
    /// moves there, and a snapshot is taken if one is due.
    pub fn executed(&mut self, sequence: u64) {
        self.executed.send_if_modified(|at| {
            let moved = sequence > *at;
            *at = (*at).max(sequence);
            moved
        });
        if sequence <= self.snapshotted {
            return;
        }
        let since = *self.dirty_since.get_or_insert_with(Instant::now);
        let due = sequence - self.snapshotted >= self.config.every || since.elapsed() >= self.config.interval;
        if due && self.storing.as_ref().is_none_or(|s| s.is_finished()) {
            self.snapshot(sequence);
        }
    }

    /// Encodes the memory (at `sequence`, every order up to it executed) and stores it in a
    /// task of its own.
    fn snapshot(&mut self, sequence: u64) {
        let bytes = {
            let memory = lock(&self.memory);
            serde_json::to_vec(&Writing { version: self.config.version, sequence, state: &*memory })
        };
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(e) => {
                tracing::warn!(policy = self.config.name, error = %e, "policy snapshot not taken");
                self.dirty_since = Some(Instant::now());
                return;
            }
        };
        (self.snapshotted, self.dirty_since) = (sequence, None);
        let (bucket, name) = (self.bucket.clone(), self.config.object());
        self.storing = Some(tokio::spawn(async move {
            let started = Instant::now();
            match snapshot::store(&bucket, &name, &bytes).await {
                Ok(()) => {
                    tracing::debug!(%name, sequence, bytes = bytes.len(), ms = started.elapsed().as_millis() as u64, "policy snapshot stored")
                }
                Err(e) => tracing::warn!(%name, error = %e, "policy snapshot not stored; the next one will be"),
            }
        }));
    }

    /// Runs a policy until `shutdown`: the orders `owed` at the start first, then each new
    /// commit's orders in log order, the checkpoint moving once a commit's orders are all
    /// executed; [`PolicyRunner::reads`] sees each commit's sequence before its orders run. `execute` runs one
    /// order until the store (or the service it goes to) has taken it, `false` on shutdown: the
    /// run ends there, with nothing marked executed that was not. A clean stop leaves a snapshot
    /// of everything executed, so the next start reads no tail.
    pub async fn drive<F, Fut>(mut self, owed: Vec<P::Order>, shutdown: &CancellationToken, mut execute: F)
    where
        F: FnMut(P::Order) -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        for order in owed {
            if !execute(order).await {
                return;
            }
        }
        self.executed(self.folded());
        loop {
            let (sequence, orders) = tokio::select! {
                _ = shutdown.cancelled() => break,
                next = self.next() => match next {
                    Some(Ok(next)) => next,
                    Some(Err(e)) => {
                        tracing::warn!(policy = self.config.name, error = %e, "policy following the log");
                        continue;
                    }
                    None => break,
                },
            };
            for order in orders {
                if !execute(order).await {
                    return;
                }
            }
            self.executed(sequence);
        }
        self.snapshot_now().await;
    }

    /// Takes a snapshot of everything executed so far and waits until it is stored (a clean
    /// stop, tests).
    pub async fn snapshot_now(&mut self) {
        self.stored().await;
        let executed = *self.executed.borrow();
        if executed > self.snapshotted {
            self.snapshot(executed);
        }
        self.stored().await;
    }

    /// Waits for a snapshot still being stored.
    pub async fn stored(&mut self) {
        if let Some(storing) = self.storing.take() {
            let _ = storing.await;
        }
    }
}

/// The last snapshot: its sequence and memory. `Ok(None)` when there is none.
async fn load<P: Policy>(bucket: &ObjectStore, config: &PolicyConfig) -> Result<Option<(u64, P)>, SnapshotError> {
    use async_nats::jetstream::object_store::GetErrorKind;
    let mut object = match bucket.get(config.object()).await {
        Ok(object) => object,
        Err(e) if e.kind() == GetErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(SnapshotError::with_source(SnapshotErrorKind::Unavailable, e)),
    };
    let mut bytes = Vec::new();
    object.read_to_end(&mut bytes).await.map_err(|e| SnapshotError::with_source(SnapshotErrorKind::Unavailable, e))?;
    let reading: Reading<P> = serde_json::from_slice(&bytes).map_err(|e| SnapshotError::with_source(SnapshotErrorKind::Decode, e))?;
    if reading.version != config.version {
        let why = format!("version {}, expected {}", reading.version, config.version);
        return Err(SnapshotError::with_source(SnapshotErrorKind::Decode, why));
    }
    Ok(Some((reading.sequence, reading.state)))
}

/// The shortest time between two stores of a policy's checkpoint. A policy moves its checkpoint
/// at every commit; stored each time, the six policies of `floor run` doubled the server's work
/// per registration (`floor-bench`). A checkpoint that has not moved for this long is stored at
/// once, so an idle platform's checkpoints are current within one put.
pub const CHECKPOINT_GAP: Duration = Duration::from_millis(50);

/// Stores the latest executed sequence under `name`: at once after a quiet spell, then at most
/// once per [`CHECKPOINT_GAP`] (later values wait and are coalesced); a failed put is tried
/// again. Ends with the runner.
async fn write_checkpoints(checkpoints: kv::Store, name: &'static str, mut executed: watch::Receiver<u64>) {
    let mut retry = Duration::from_millis(100);
    let mut last_put: Option<tokio::time::Instant> = None;
    while executed.changed().await.is_ok() {
        if let Some(at) = last_put {
            tokio::time::sleep_until(at + CHECKPOINT_GAP).await;
        }
        loop {
            let sequence = *executed.borrow_and_update();
            match checkpoints.put(name, sequence.to_string().into()).await {
                Ok(_) => break,
                Err(e) => {
                    tracing::warn!(policy = name, error = %e, "policy checkpoint not stored; trying again");
                    tokio::time::sleep(retry).await;
                    retry = (retry * 2).min(Duration::from_secs(2));
                }
            }
        }
        last_put = Some(tokio::time::Instant::now());
    }
}
