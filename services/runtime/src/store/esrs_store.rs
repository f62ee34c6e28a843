//! esrs's `EventStore` trait over [`JetStreamStore`].
//!
//! esrs tracks a per-aggregate event count, JetStream a global stream sequence; this adapter
//! remembers the stream sequence of each aggregate's last commit (learned when loading or
//! persisting) and uses it as the optimistic-concurrency expectation. `lock` hands out an
//! in-process async mutex per aggregate: across processes the expected-sequence check is what
//! keeps writers honest.

use super::{JetStreamStore, StoreError};
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
    last_sequence: Mutex<HashMap<Uuid, u64>>,
    locks: Mutex<HashMap<Uuid, Arc<tokio::sync::Mutex<()>>>>,
    _aggregate: PhantomData<fn() -> A>,
}

struct Unlock(#[allow(dead_code)] tokio::sync::OwnedMutexGuard<()>);
impl UnlockOnDrop for Unlock {}

impl<A> EsrsStore<A> {
    /// Wraps a store.
    pub fn new(store: JetStreamStore) -> Self {
        Self { store, last_sequence: Mutex::default(), locks: Mutex::default(), _aggregate: PhantomData }
    }

    fn subject(id: Uuid) -> String
    where
        A: Aggregate,
    {
        subjects::event_subject(A::NAME, id)
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
            self.last_sequence.lock().expect("sequence map poisoned").insert(aggregate_id, last.sequence);
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
        let id = *state.id();
        let expected = self.last_sequence.lock().expect("sequence map poisoned").get(&id).copied().unwrap_or(0);
        let appended = self.store.append(&Self::subject(id), CommandId::new(), expected, &events).await?;
        self.last_sequence.lock().expect("sequence map poisoned").insert(id, appended.sequence);
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
