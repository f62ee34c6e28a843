//! The aggregate host: live aggregates in memory, commands applied one at a time per aggregate.
//!
//! A command costs one JetStream round trip (the append), not a reload: each aggregate's state
//! and the stream sequence of its last commit stay in memory. Commands to one aggregate queue on
//! its async mutex (FIFO, so they are decided in arrival order) and the caller's own task runs
//! the decision and the append. An earlier version gave each aggregate a task fed by an `mpsc`
//! with a `oneshot` back; measured on the 2-core VM this doubled the latency of a command
//! (≈ 260 µs against a 122 µs append), all of it in the two cross-thread wake-ups. The mutex
//! keeps "one writer per aggregate" without them.
//!
//! Loads happen when an aggregate is first used and after a conflict (another instance
//! appended): the caller catches up, decides again and retries. Every command id the aggregate
//! ever stored is remembered (16 bytes + sequence each), so a retried command is answered with
//! its original result even long after the server's duplicate window.
//!
//! A command id is bound to the request it was first stored for: a commit made while serving a
//! request carries the request's digest ([`crate::store::CommandDigest`]), and a repeat of the
//! id is answered with the original commit only if its request digests the same; otherwise it
//! is refused as [`HostErrorKind::CommandIdReused`] (`command_id_reused`) and nothing is
//! stored. The digest is of what the caller sent, computed by the endpoint for each request it
//! serves ([`serving_request`]), not of the domain command: services stamp commands with the
//! server's time, which differs on every honest retry. Commands executed outside a request
//! (policies' and timers' derived commands) carry no digest, and a repeat where either side has
//! none (those, and commits stored before digests were) is answered as a duplicate, as before.
//!
//! Poison: an aggregate whose stored commits cannot be decoded, or whose `apply_event` panics on
//! one while loading, is set aside: its state is not trusted, every command to it gets
//! `aggregate_set_aside` (no event), and every other aggregate is served as before. Catching the
//! panic is right here because one tournament's bad commit must not stop every other one.
//!
//! Cancellation: if a caller is dropped mid-append, the state is left as it was before the
//! command; whether or not the append landed, the next command's expected-sequence check finds
//! out and catches up.

use crate::error::Error;
use crate::snapshot::Snapshots;
use crate::store::{CommandDigest, JetStreamStore, Repeat, StoreErrorKind, StoredCommit};
use esrs::Aggregate;
use floor_events::{subjects, CommandId};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};
use uuid::Uuid;

tokio::task_local! {
    /// The request the current task is serving, if any.
    static REQUEST: Request;
}

/// A request being served: what its caller sent, and its digest once a command needs it.
struct Request {
    service: &'static str,
    verb: &'static str,
    payload: bytes::Bytes,
    /// Computed on first use: queries and rejected requests never need it.
    digest: OnceLock<CommandDigest>,
}

/// Runs `handling`, a service's handler for one request, so that every command it executes on
/// an [`AggregateHost`] (with [`AggregateHost::execute`] or [`AggregateHost::execute_then`], on
/// this task) is bound to the request's content: stored with its digest, and refused as
/// `command_id_reused` when its id was stored before for another request.
///
/// The endpoint wraps every request in this, so a service binds its command ids to content
/// without doing anything. Work a handler spawns onto another task is not bound (it executes
/// as a derived command would).
pub async fn serving_request<F: Future>(service: &'static str, verb: &'static str, payload: bytes::Bytes, handling: F) -> F::Output {
    REQUEST.scope(Request { service, verb, payload, digest: OnceLock::new() }, handling).await
}

/// The digest of the request this task is serving, if it is serving one.
pub fn request_digest() -> Option<CommandDigest> {
    REQUEST.try_with(|r| *r.digest.get_or_init(|| CommandDigest::of_request(r.service, r.verb, &r.payload))).ok()
}

/// A domain rejection with a stable code from [`floor_events::codes`].
pub trait DomainError: std::error::Error + Send + 'static {
    /// The stable code.
    fn code(&self) -> &'static str;
}

/// Events a command stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Committed<E> {
    /// Stream sequence of the commit (0 when the command produced no events).
    pub sequence: u64,
    /// The events, in order.
    pub events: Vec<E>,
    /// The command id was seen before; these are the events it stored then.
    pub duplicate: bool,
}

/// What went wrong hosting an aggregate (not a domain rejection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostErrorKind {
    /// The store failed; the command may or may not be stored. Retry with the same command id.
    Unavailable,
    /// Other writers kept winning; the command was not stored. Safe to retry.
    Conflict,
    /// The command id was stored before for another request (another verb, aggregate or
    /// content); nothing was stored. Final: a retry of the same request gets the same answer.
    CommandIdReused,
    /// The aggregate has a commit this build cannot decode or apply; it is set aside and no
    /// command is decided on it ([`crate::health`]). Retrying does not help.
    SetAside,
}

impl std::fmt::Display for HostErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Unavailable => "event store unavailable",
            Self::Conflict => "too many concurrent writers on this aggregate",
            Self::CommandIdReused => {
                "this command id was used before for another request; resend exactly the first request, or use a new command id"
            }
            Self::SetAside => "the aggregate is set aside: a stored commit cannot be decoded or applied",
        })
    }
}

/// Error hosting an aggregate.
pub type HostError = Error<HostErrorKind>;

/// The outcome of a command: `Err` is infrastructure, `Ok(Err)` a domain rejection (no event).
pub type Outcome<A> = Result<Result<Committed<<A as Aggregate>::Event>, <A as Aggregate>::Error>, HostError>;

/// How often a command is re-decided after conflicts before giving up.
const MAX_ATTEMPTS: usize = 16;

/// How long a service waits before it tries a command again after the store (or the service it
/// sends to) failed: the `retry` of [`AggregateHost::execute_reaction`] in every service.
pub const RETRY: std::time::Duration = std::time::Duration::from_millis(500);

type Slot<A> = Arc<tokio::sync::Mutex<Live<A>>>;

/// Hosts every live aggregate of type `A`. Cheap to clone.
pub struct AggregateHost<A: Aggregate> {
    store: JetStreamStore,
    // std Mutex: held only to find or insert an aggregate's slot, never across an await.
    live: Arc<Mutex<HashMap<Uuid, Slot<A>>>>,
    snapshots: Option<Arc<Snapshots<A::State>>>,
}

impl<A: Aggregate> Clone for AggregateHost<A> {
    fn clone(&self) -> Self {
        Self { store: self.store.clone(), live: self.live.clone(), snapshots: self.snapshots.clone() }
    }
}

impl<A> AggregateHost<A>
where
    A: Aggregate + 'static,
    A::State: Send + 'static,
    A::Command: Clone + Send + 'static,
    A::Event: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
    A::Error: DomainError,
{
    /// A host on `store`.
    pub fn new(store: JetStreamStore) -> Self {
        Self { store, live: Arc::default(), snapshots: None }
    }

    /// Loads aggregates from their last snapshot and stores a new one every
    /// `snapshots.every` commits ([`crate::snapshot`]).
    pub fn with_snapshots(mut self, snapshots: Snapshots<A::State>) -> Self {
        self.snapshots = Some(Arc::new(snapshots));
        self
    }

    /// Runs a reaction (a command a policy derived from the log) until the store takes it: a
    /// rejection is final (logged: the reaction was not needed or not possible), a store failure
    /// is retried every `retry`. `false` when `shutdown` came first.
    ///
    /// For services that follow the log in memory: the reaction's id is derived from its cause,
    /// so running it again after a crash is answered from the aggregate's history. A reaction
    /// is never bound to a request (it carries no digest), so its repeat is always a duplicate.
    pub async fn execute_reaction(
        &self,
        id: Uuid,
        command_id: CommandId,
        command: A::Command,
        retry: std::time::Duration,
        shutdown: &tokio_util::sync::CancellationToken,
    ) -> bool {
        loop {
            match self.execute_for(id, command_id, None, command.clone()).await {
                Ok(Ok(_)) => return true,
                Ok(Err(rejection)) => {
                    tracing::info!(aggregate = A::NAME, %id, code = rejection.code(), "reaction not applied: {rejection}");
                    return true;
                }
                Err(e) if e.kind() == HostErrorKind::SetAside => {
                    tracing::error!(aggregate = A::NAME, %id, error = %e, "reaction not applied: aggregate set aside");
                    return true;
                }
                Err(e) => {
                    tracing::warn!(aggregate = A::NAME, %id, error = %e, "reaction not stored; trying again");
                    tokio::select! {
                        _ = shutdown.cancelled() => return false,
                        _ = tokio::time::sleep(retry) => {}
                    }
                }
            }
        }
    }

    /// Decides `command` against aggregate `id` and stores its events. Inside
    /// [`serving_request`], the command id is bound to the request being served.
    ///
    /// # Errors
    /// Outer `Err`: infrastructure ([`HostErrorKind`]), or `CommandIdReused`. Inner `Err`: the
    /// domain said no.
    pub async fn execute(&self, id: Uuid, command_id: CommandId, command: A::Command) -> Outcome<A> {
        self.execute_for(id, command_id, request_digest(), command).await
    }

    /// As [`AggregateHost::execute`], with the request's digest given by the caller: `Some` binds
    /// the command id to that content, `None` stores and answers it as a derived command.
    ///
    /// # Errors
    /// As [`AggregateHost::execute`].
    pub async fn execute_for(&self, id: Uuid, command_id: CommandId, digest: Option<CommandDigest>, command: A::Command) -> Outcome<A> {
        self.run(id, command_id, digest, command, |_| std::future::ready(())).await.0
    }

    /// As [`AggregateHost::execute`], and then, while no other command to this aggregate can
    /// run, `then` with what a new commit stored (not called for a duplicate, a rejection or
    /// no events). The future `then` returns is awaited under the same lock.
    ///
    /// For side effects whose order must follow the log's: seating publishes a commit's table
    /// instructions here (queued on the connection, acknowledgements awaited by the caller
    /// after the lock is released), so two commits' instructions leave in commit order without
    /// waiting for the outbox.
    ///
    /// # Errors
    /// As [`AggregateHost::execute`].
    pub async fn execute_then<T, F, Fut>(&self, id: Uuid, command_id: CommandId, command: A::Command, then: F) -> (Outcome<A>, Option<T>)
    where
        F: FnOnce(&Committed<A::Event>) -> Fut,
        Fut: std::future::Future<Output = T>,
    {
        self.run(id, command_id, request_digest(), command, then).await
    }

    async fn run<T, F, Fut>(
        &self,
        id: Uuid,
        command_id: CommandId,
        digest: Option<CommandDigest>,
        command: A::Command,
        then: F,
    ) -> (Outcome<A>, Option<T>)
    where
        F: FnOnce(&Committed<A::Event>) -> Fut,
        Fut: std::future::Future<Output = T>,
    {
        let slot = self.slot(id);
        let mut live = slot.lock().await;
        // Before loading: the log does not change, so a set-aside aggregate is not folded again.
        if let Some(reason) = &live.set_aside {
            return (Err(HostError::with_source(HostErrorKind::SetAside, reason.clone())), None);
        }
        if !live.loaded {
            if let Err(e) = live.load(&self.store, self.snapshots.as_deref()).await {
                return (Err(live.failed(e)), None);
            }
            live.loaded = true;
        }
        if let Some(reason) = &live.set_aside {
            return (Err(HostError::with_source(HostErrorKind::SetAside, reason.clone())), None);
        }
        let outcome = live.handle(&self.store, command_id, digest, command).await;
        let after = match &outcome {
            Ok(Ok(committed)) if !committed.duplicate && !committed.events.is_empty() => Some(then(committed).await),
            _ => None,
        };
        if let Some(snapshots) = &self.snapshots {
            live.snapshot_if_due(snapshots);
        }
        (outcome, after)
    }

    /// Waits until no command to aggregate `id` is running here. Whatever `then` did (see
    /// [`AggregateHost::execute_then`]) for a commit already in the store is done when it
    /// returns, because a command holds the aggregate from before its append until after its
    /// `then`. Returns at once for an aggregate this host has never run a command for.
    pub async fn quiet(&self, id: Uuid) {
        let slot = self.live.lock().expect("live map poisoned").get(&id).cloned();
        if let Some(slot) = slot {
            drop(slot.lock().await);
        }
    }

    /// Number of aggregates currently in memory.
    pub fn live_count(&self) -> usize {
        self.live.lock().expect("live map poisoned").len()
    }

    fn slot(&self, id: Uuid) -> Slot<A> {
        let mut live = self.live.lock().expect("live map poisoned");
        live.entry(id).or_insert_with(|| Arc::new(tokio::sync::Mutex::new(Live::new(id)))).clone()
    }
}

/// One aggregate in memory.
struct Live<A: Aggregate> {
    subject: String,
    /// Whether `state` has been loaded from the store.
    loaded: bool,
    state: A::State,
    /// Stream sequence of the last commit applied to `state`.
    last_sequence: u64,
    /// Command id → stream sequence of its commit, for every commit of this aggregate.
    seen: HashMap<CommandId, u64>,
    /// Commits applied since the last snapshot (stored or loaded).
    since_snapshot: u64,
    /// The snapshot being stored, if one is.
    storing: Option<tokio::task::JoinHandle<()>>,
    /// Why the aggregate is set aside (a commit that does not decode or apply), if it is.
    set_aside: Option<String>,
}

impl<A> Live<A>
where
    A: Aggregate,
    A::Command: Clone,
    A::Event: Serialize + DeserializeOwned + Clone,
    A::Error: DomainError,
{
    fn new(id: Uuid) -> Self {
        Self {
            subject: subjects::event_subject(A::NAME, id),
            loaded: false,
            state: A::State::default(),
            last_sequence: 0,
            seen: HashMap::new(),
            since_snapshot: 0,
            storing: None,
            set_aside: None,
        }
    }

    /// A store failure as a host error; a commit that does not decode sets the aggregate aside.
    fn failed(&mut self, e: crate::store::StoreError) -> HostError {
        if e.kind() != StoreErrorKind::Decode {
            return HostError::with_source(HostErrorKind::Unavailable, e);
        }
        tracing::error!(subject = %self.subject, error = %e, "poison commit: aggregate set aside, every other one still served");
        self.set_aside = Some(e.to_string());
        HostError::with_source(HostErrorKind::SetAside, e)
    }

    /// First use: the last snapshot, if any, then the commits after it.
    async fn load(&mut self, store: &JetStreamStore, snapshots: Option<&Snapshots<A::State>>) -> Result<(), crate::store::StoreError> {
        let started = std::time::Instant::now();
        let mut from = None;
        if let Some(snapshots) = snapshots {
            match snapshots.load(&self.subject).await {
                Ok(Some(restored)) => {
                    from = Some(restored.sequence);
                    (self.state, self.last_sequence, self.seen) = (restored.state, restored.sequence, restored.seen);
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(subject = %self.subject, error = %e, "snapshot ignored; folding the whole log"),
            }
        }
        let snapshot_read = started.elapsed();
        let folded = self.catch_up(store).await?;
        if from.is_some() || folded > 1_000 {
            tracing::info!(
                subject = %self.subject,
                snapshot_sequence = from,
                snapshot_ms = snapshot_read.as_millis() as u64,
                commits_folded = folded,
                total_ms = started.elapsed().as_millis() as u64,
                "aggregate loaded"
            );
        }
        Ok(())
    }

    /// Applies every commit stored after `last_sequence`; returns how many.
    async fn catch_up(&mut self, store: &JetStreamStore) -> Result<u64, crate::store::StoreError> {
        let commits: Vec<StoredCommit<A::Event>> = store.load(&self.subject, self.last_sequence).await?;
        let folded = commits.len() as u64;
        for commit in commits {
            self.apply(commit.sequence, commit.command_id, commit.events);
            if self.set_aside.is_some() {
                break;
            }
        }
        Ok(folded)
    }

    fn apply(&mut self, sequence: u64, command_id: Option<CommandId>, events: Vec<A::Event>) {
        let state = std::mem::take(&mut self.state);
        match crate::health::catch(|| events.into_iter().fold(state, A::apply_event)) {
            Ok(state) => self.state = state,
            Err(panicked) => {
                // The state went with the panic: the aggregate is not trusted any more.
                tracing::error!(subject = %self.subject, sequence, error = %panicked, "poison commit: aggregate set aside, every other one still served");
                self.set_aside = Some(format!("commit {sequence}: {panicked}"));
            }
        }
        self.last_sequence = sequence;
        self.since_snapshot += 1;
        if let Some(id) = command_id {
            self.seen.insert(id, sequence);
        }
    }

    /// Stores a snapshot when enough commits have been applied since the last and no other is
    /// still being stored. Encoded here, under the aggregate's lock; stored by its own task.
    fn snapshot_if_due(&mut self, snapshots: &Snapshots<A::State>) {
        if self.set_aside.is_some() || self.since_snapshot < snapshots.every || self.storing.as_ref().is_some_and(|s| !s.is_finished()) {
            return;
        }
        let bytes = match snapshots.encode(self.last_sequence, &self.seen, &self.state) {
            Ok(bytes) => bytes,
            Err(e) => {
                tracing::warn!(subject = %self.subject, error = %e, "snapshot not taken");
                self.since_snapshot = 0;
                return;
            }
        };
        self.since_snapshot = 0;
        let (bucket, name) = snapshots.target(&self.subject);
        let sequence = self.last_sequence;
        self.storing = Some(tokio::spawn(async move {
            let started = std::time::Instant::now();
            match crate::snapshot::store(&bucket, &name, &bytes).await {
                Ok(()) => {
                    tracing::info!(%name, sequence, bytes = bytes.len(), ms = started.elapsed().as_millis() as u64, "snapshot stored")
                }
                Err(e) => tracing::warn!(%name, error = %e, "snapshot not stored; the next one will be"),
            }
        }));
    }

    async fn handle(
        &mut self,
        store: &JetStreamStore,
        command_id: CommandId,
        digest: Option<CommandDigest>,
        command: A::Command,
    ) -> Outcome<A> {
        let unavailable = |e: crate::store::StoreError| HostError::with_source(HostErrorKind::Unavailable, e);
        for _ in 0..MAX_ATTEMPTS {
            if let Some(reason) = &self.set_aside {
                return Err(HostError::with_source(HostErrorKind::SetAside, reason.clone()));
            }
            if let Some(&sequence) = self.seen.get(&command_id) {
                return match store.repeat_at::<A::Event>(sequence, digest).await.map_err(unavailable)? {
                    Repeat::Same(commit) => Ok(Ok(Committed { sequence, events: commit.events, duplicate: true })),
                    Repeat::Reused { sequence } => Err(HostError::with_source(
                        HostErrorKind::CommandIdReused,
                        format!("command {command_id} is the commit at sequence {sequence}, made for another request"),
                    )),
                };
            }
            let events = match A::handle_command(&self.state, command.clone()) {
                Err(rejection) => return Ok(Err(rejection)),
                Ok(events) if events.is_empty() => return Ok(Ok(Committed { sequence: 0, events, duplicate: false })),
                Ok(events) => events,
            };
            match store.append_for(&self.subject, command_id, digest, self.last_sequence, &events).await {
                Ok(appended) if appended.duplicate => {
                    // Stored before by another instance (or a lost ack): learn it, answer with it.
                    if let Err(e) = self.catch_up(store).await {
                        return Err(self.failed(e));
                    }
                    self.seen.insert(command_id, appended.sequence);
                }
                Ok(appended) => {
                    let committed = Committed { sequence: appended.sequence, events: events.clone(), duplicate: false };
                    self.apply(appended.sequence, Some(command_id), events);
                    return Ok(Ok(committed));
                }
                Err(e) if e.kind() == StoreErrorKind::WrongLastSequence => {
                    if let Err(e) = self.catch_up(store).await {
                        return Err(self.failed(e));
                    }
                }
                Err(e) => {
                    // The append may have been stored; the next command's expected-sequence
                    // check will tell, and catch up.
                    return Err(unavailable(e));
                }
            }
        }
        Err(HostError::new(HostErrorKind::Conflict))
    }
}

/// Turns an outcome into the command's reply: the committed events through `ok`, a rejection
/// with its domain code, a failure as `unavailable` or `conflict`. The one place outcomes become
/// reply codes.
pub fn reply<E, R: DomainError, T>(
    outcome: Result<Result<Committed<E>, R>, HostError>,
    ok: impl FnOnce(Committed<E>) -> T,
) -> floor_events::Reply<T> {
    use floor_events::{codes, ErrorBody, Reply};
    match outcome {
        Ok(Ok(committed)) => Reply::Ok(ok(committed)),
        Ok(Err(rejection)) => Reply::Error(ErrorBody::new(rejection.code(), rejection.to_string())),
        Err(e) if e.kind() == HostErrorKind::Conflict => Reply::Error(ErrorBody::new(codes::CONFLICT, e.to_string())),
        Err(e) if e.kind() == HostErrorKind::CommandIdReused => Reply::Error(ErrorBody::new(codes::COMMAND_ID_REUSED, e.to_string())),
        Err(e) if e.kind() == HostErrorKind::SetAside => Reply::Error(ErrorBody::new(codes::AGGREGATE_SET_ASIDE, e.to_string())),
        Err(e) => Reply::Error(ErrorBody::new(codes::UNAVAILABLE, e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_binds_the_commands_of_its_own_task_only() {
        let body = bytes::Bytes::from_static(br#"{"player":"alice"}"#);
        let (inside, spawned) = serving_request("registration", "register", body.clone(), async {
            (request_digest(), tokio::spawn(async { request_digest() }).await.expect("task"))
        })
        .await;

        assert_eq!(request_digest(), None, "outside a request: a derived command");
        assert_eq!(inside, Some(CommandDigest::of_request("registration", "register", &body)));
        assert_eq!(spawned, None, "work spawned off the request is not bound to it");
    }
}
