//! esrs's `EventStore` trait over [`JetStreamStore`].
//!
//! esrs tracks a per-aggregate event count (`AggregateState::sequence_number`), JetStream a
//! global stream sequence. The optimistic-concurrency expectation of a persist must come from
//! the *state* being persisted, as esrs's Postgres store does with its unique (aggregate,
//! sequence number): this adapter remembers, per aggregate, the event count and the stream
//! sequence of the last commit it has seen (learned when loading or persisting). A state whose
//! count is that one expects that commit to be the last, and the server checks it across
//! processes; a state with another count is looked up in the log, and one that is behind it is
//! refused with [`StoreErrorKind::WrongLastSequence`](super::StoreErrorKind) without writing.
//! (An earlier version expected the last commit the adapter had seen whatever the state, so a
//! stale state persisted over newer commits: a lost update. `tests/e2e/esrs_store.rs`.)
//!
//! `lock` hands out an in-process async mutex per aggregate; across processes the
//! expected-sequence check is what keeps writers honest. `occurred_on` of a loaded event is
//! the time of the load: Floor's events carry their own times where they matter.

use super::{JetStreamStore, StoreError, StoreErrorKind};
use async_trait::async_trait;
use esrs::store::{EventStore, EventStoreLockGuard, StoreEvent, UnlockOnDrop};
use esrs::{Aggregate, AggregateState};
use floor_events::{subjects, CommandId};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};
use uuid::Uuid;

/// esrs `EventStore` for aggregate type `A`, on JetStream.
pub struct EsrsStore<A> {
    store: JetStreamStore,
    // std Mutex: held only to read or update the maps, never across an await.
    /// Per aggregate: the last commit seen, as (events up to and including it, its stream
    /// sequence).
    last_commit: Mutex<HashMap<Uuid, (i64, u64)>>,
    locks: Mutex<HashMap<Uuid, Arc<tokio::sync::Mutex<()>>>>,
    _aggregate: PhantomData<fn() -> A>,
}

struct Unlock(#[allow(dead_code)] tokio::sync::OwnedMutexGuard<()>);
impl UnlockOnDrop for Unlock {}

impl<A> EsrsStore<A> {
    /// Wraps a store.
    pub fn new(store: JetStreamStore) -> Self {
        Self { store, last_commit: Mutex::default(), locks: Mutex::default(), _aggregate: PhantomData }
    }

    fn subject(id: Uuid) -> String
    where
        A: Aggregate,
    {
        subjects::event_subject(A::NAME, id)
    }

    /// The stream sequence a state holding `events` events of aggregate `id` expects to be the
    /// aggregate's last.
    ///
    /// # Errors
    /// `WrongLastSequence` when the log holds more than the state (it is stale) or no commit
    /// ends at its count; the store's errors when the log must be read.
    async fn expected_last(&self, id: Uuid, events: i64) -> Result<u64, StoreError>
    where
        A: Aggregate,
        A::Event: DeserializeOwned,
    {
        if let Some(&(seen, sequence)) = self.last_commit.lock().expect("sequence map poisoned").get(&id) {
            if seen == events {
                return Ok(sequence);
            }
        } else if events == 0 {
            return Ok(0);
        }
        // A state this adapter has not seen at this count: find the commit that ends there.
        let commits = self.store.load::<A::Event>(&Self::subject(id), 0).await?;
        let (mut counted, mut ends_at) = (0i64, None);
        for commit in &commits {
            counted += commit.events.len() as i64;
            if counted == events {
                ends_at = Some(commit.sequence);
            }
        }
        let last = commits.last().map_or(0, |c| c.sequence);
        self.last_commit.lock().expect("sequence map poisoned").insert(id, (counted, last));
        match ends_at {
            Some(sequence) if sequence == last => Ok(sequence),
            None if events == 0 && commits.is_empty() => Ok(0),
            _ => Err(StoreError::with_source(
                StoreErrorKind::WrongLastSequence,
                format!("the state holds {events} events, the log {counted}: load the aggregate again"),
            )),
        }
    }
}

#[async_trait]
impl<A> EventStore for EsrsStore<A>
where
    A: Aggregate + Send + Sync,
    A::Event: Serialize + DeserializeOwned + Send + Sync,
    A::State: Send,
{
    type Aggregate = A;
    type Error = StoreError;

    async fn lock(&self, aggregate_id: Uuid) -> Result<EventStoreLockGuard, StoreError> {
        let lock = self.locks.lock().expect("lock map poisoned").entry(aggregate_id).or_default().clone();
        Ok(EventStoreLockGuard::new(Unlock(lock.lock_owned().await)))
    }

    async fn by_aggregate_id(&self, aggregate_id: Uuid) -> Result<Vec<StoreEvent<A::Event>>, StoreError> {
        let commits = self.store.load::<A::Event>(&Self::subject(aggregate_id), 0).await?;
        if let Some(last) = commits.last() {
            let events = commits.iter().map(|c| c.events.len() as i64).sum();
            self.last_commit.lock().expect("sequence map poisoned").insert(aggregate_id, (events, last.sequence));
        }
        let mut number = 0;
        Ok(commits
            .into_iter()
            .flat_map(|c| c.events)
            .map(|payload| {
                number += 1;
                StoreEvent {
                    id: Uuid::now_v7(),
                    aggregate_id,
                    payload,
                    occurred_on: chrono::Utc::now(),
                    sequence_number: number,
                    version: Some(i32::from(floor_events::record::CURRENT_VERSION)),
                }
            })
            .collect())
    }

    async fn persist(&self, state: &mut AggregateState<A::State>, events: Vec<A::Event>) -> Result<Vec<StoreEvent<A::Event>>, StoreError> {
        if events.is_empty() {
            // Nothing decided, nothing to store: an empty commit would only be noise in the log.
            return Ok(Vec::new());
        }
        let id = *state.id();
        let expected = self.expected_last(id, i64::from(*state.sequence_number())).await?;
        let appended = self.store.append(&Self::subject(id), CommandId::new(), expected, &events).await?;
        let after = i64::from(*state.sequence_number()) + events.len() as i64;
        self.last_commit.lock().expect("sequence map poisoned").insert(id, (after, appended.sequence));
        let now = chrono::Utc::now();
        Ok(events
            .into_iter()
            .map(|payload| StoreEvent {
                id: Uuid::now_v7(),
                aggregate_id: id,
                payload,
                occurred_on: now,
                sequence_number: state.next_sequence_number(),
                version: Some(i32::from(floor_events::record::CURRENT_VERSION)),
            })
            .collect())
    }

    async fn publish(&self, _store_events: &[StoreEvent<A::Event>]) {
        // Persisting *is* publishing: the stream is the bus.
    }

    async fn delete(&self, _aggregate_id: Uuid) -> Result<(), StoreError> {
        // The log is append-only (the stream denies deletes); nothing is ever removed.
        Err(StoreError::with_source(super::StoreErrorKind::Unavailable, "Floor's event log is append-only"))
    }
}
