//! The lobby projection: tournament, clock, payouts, rebuys and bubble commits folded into one
//! KV document per tournament.
//!
//! Documents are folded in memory and written once per batch ([`Projection::flush`]), the
//! checkpoint after them; each document also remembers the last sequence folded in, so a commit
//! delivered twice (after a crash between the write and the checkpoint) changes nothing.

use crate::domain::LobbyDocument;
use async_nats::jetstream::kv;
use floor_events::clock::ClockEvent;
use floor_events::payouts::PayoutEvent;
use floor_events::registration::TournamentEvent;
use floor_events::{record, subjects, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::projection::{Projection, ProjectionError, ProjectionErrorKind};
use futures::{StreamExt, TryStreamExt};
use std::collections::{HashMap, HashSet};

/// KV writes in flight at once during a flush.
const CONCURRENT_WRITES: usize = 64;

/// The lobby projection.
pub struct LobbyProjection {
    bucket: kv::Store,
    docs: HashMap<TournamentId, LobbyDocument>,
    dirty: HashSet<TournamentId>,
}

fn read<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e)
}
fn write<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Write, e)
}

impl LobbyProjection {
    /// Loads the documents already in the bucket, to resume folding after the checkpoint.
    ///
    /// # Errors
    /// `Read` when the bucket cannot be read.
    pub async fn load(backbone: &Backbone) -> Result<Self, ProjectionError> {
        let bucket = backbone.jetstream.get_key_value(subjects::LOBBY_BUCKET).await.map_err(read)?;
        let mut docs = HashMap::new();
        let keys: Vec<String> = bucket.keys().await.map_err(read)?.try_collect().await.map_err(read)?;
        for key in keys {
            if let Some(value) = bucket.get(&key).await.map_err(read)? {
                match serde_json::from_slice::<LobbyDocument>(&value) {
                    Ok(doc) => {
                        docs.insert(doc.tournament_id, doc);
                    }
                    Err(e) => tracing::warn!(key, error = %e, "unreadable lobby document; it will be rebuilt"),
                }
            }
        }
        Ok(Self { bucket, docs, dirty: HashSet::new() })
    }

    /// A document, as folded so far.
    pub fn document(&self, id: TournamentId) -> Option<&LobbyDocument> {
        self.docs.get(&id)
    }

    /// Every document, as folded so far.
    pub fn documents(&self) -> impl Iterator<Item = &LobbyDocument> {
        self.docs.values()
    }
}

/// A commit's events; an undecodable one is logged and skipped (never fatal for every lobby).
fn decode<E: serde::de::DeserializeOwned>(subject: &str, sequence: u64, body: &[u8]) -> Option<Vec<E>> {
    record::decode_commit::<E>(body).map_err(|e| tracing::warn!(subject, sequence, error = %e, "lobby skipped an undecodable commit")).ok()
}

impl Projection for LobbyProjection {
    fn name(&self) -> &'static str {
        "lobby"
    }

    fn filters(&self) -> Vec<String> {
        vec![
            subjects::event_filter(subjects::aggregate::TOURNAMENT),
            subjects::event_filter(subjects::aggregate::CLOCK),
            subjects::event_filter(subjects::aggregate::PAYOUTS),
            subjects::event_filter(subjects::aggregate::REBUYS),
            subjects::event_filter(subjects::aggregate::BOUNTIES),
            subjects::event_filter(subjects::aggregate::BUBBLE),
        ]
    }

    fn apply(&mut self, subject: &str, sequence: u64, body: &[u8]) {
        let Some((aggregate, id)) = subjects::parse_event_subject(subject) else { return };
        let id = TournamentId(id);
        if self.docs.get(&id).is_some_and(|doc| doc.last_sequence >= sequence) {
            return;
        }
        let folded = if aggregate == subjects::aggregate::CLOCK {
            decode::<ClockEvent>(subject, sequence, body).and_then(|events| {
                let Some(doc) = self.docs.remove(&id) else {
                    tracing::warn!(subject, sequence, "clock of a tournament the lobby never saw created");
                    return None;
                };
                Some(events.iter().fold(doc, LobbyDocument::evolve_clock))
            })
        } else if aggregate == subjects::aggregate::REBUYS {
            decode::<floor_events::rebuys::RebuyEvent>(subject, sequence, body).and_then(|events| {
                let Some(doc) = self.docs.remove(&id) else {
                    tracing::warn!(subject, sequence, "rebuys of a tournament the lobby never saw created");
                    return None;
                };
                Some(events.iter().fold(doc, LobbyDocument::evolve_rebuys))
            })
        } else if aggregate == subjects::aggregate::BOUNTIES {
            decode::<floor_events::bounties::BountyEvent>(subject, sequence, body).and_then(|events| {
                let Some(doc) = self.docs.remove(&id) else {
                    tracing::warn!(subject, sequence, "bounties of a tournament the lobby never saw created");
                    return None;
                };
                Some(events.iter().fold(doc, LobbyDocument::evolve_bounties))
            })
        } else if aggregate == subjects::aggregate::BUBBLE {
            decode::<floor_events::bubble::BubbleEvent>(subject, sequence, body).and_then(|events| {
                let Some(doc) = self.docs.remove(&id) else {
                    tracing::warn!(subject, sequence, "bubble of a tournament the lobby never saw created");
                    return None;
                };
                Some(events.iter().fold(doc, LobbyDocument::evolve_bubble))
            })
        } else if aggregate == subjects::aggregate::PAYOUTS {
            decode::<PayoutEvent>(subject, sequence, body).and_then(|events| {
                let Some(doc) = self.docs.remove(&id) else {
                    tracing::warn!(subject, sequence, "payouts of a tournament the lobby never saw created");
                    return None;
                };
                Some(events.iter().fold(doc, LobbyDocument::evolve_payouts))
            })
        } else {
            decode::<TournamentEvent>(subject, sequence, body).and_then(|events| {
                let doc = match (self.docs.remove(&id), events.first()) {
                    (Some(doc), _) => doc,
                    (None, Some(TournamentEvent::TournamentCreated(c))) => LobbyDocument::created(id, &c.definition, c.at, sequence),
                    (None, _) => {
                        tracing::warn!(subject, sequence, "commit for a tournament the lobby never saw created");
                        return None;
                    }
                };
                Some(events.iter().fold(doc, LobbyDocument::evolve))
            })
        };
        if let Some(mut doc) = folded {
            doc.last_sequence = sequence;
            self.docs.insert(id, doc);
            self.dirty.insert(id);
        }
    }

    async fn flush(&mut self) -> Result<(), ProjectionError> {
        // The projected payout table follows the field; worked out once per batch, not per
        // entry (a large table takes milliseconds).
        for id in &self.dirty {
            if let Some(doc) = self.docs.get_mut(id) {
                if let Some(projected) = doc.projected_payouts() {
                    doc.payouts = Some(projected);
                }
            }
        }
        let writes: Vec<(String, bytes::Bytes)> = self
            .dirty
            .drain()
            .filter_map(|id| self.docs.get(&id))
            .map(|doc| (doc.tournament_id.to_string(), serde_json::to_vec(doc).expect("document serializes").into()))
            .collect();
        let bucket = &self.bucket;
        futures::stream::iter(writes)
            .map(|(key, value)| async move { bucket.put(key, value).await })
            .buffer_unordered(CONCURRENT_WRITES)
            .try_collect::<Vec<_>>()
            .await
            .map_err(write)?;
        Ok(())
    }

    async fn reset(&mut self) -> Result<(), ProjectionError> {
        self.docs.clear();
        self.dirty.clear();
        let keys: Vec<String> = self.bucket.keys().await.map_err(read)?.try_collect().await.map_err(read)?;
        for key in keys {
            self.bucket.purge(key).await.map_err(write)?;
        }
        Ok(())
    }
}
