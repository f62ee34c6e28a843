//! The lobby projection: tournament, clock, payouts, rebuys, bounties, bubble, abort, satellite,
//! shootout and lottery commits folded into one KV document per tournament, and the places
//! awarded into each tournament's results ([`crate::results`], issue 39).
//!
//! Documents are folded in memory and written once per batch ([`Projection::flush`]), the
//! checkpoint after them; each document also remembers the last sequence folded in, so a commit
//! delivered twice (after a crash between the write and the checkpoint) changes nothing.

use crate::document::LobbyDocument;
use async_nats::jetstream::kv;
use floor_events::commit::Events;
use floor_events::registration::TournamentEvent;
use floor_events::{subjects, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::commits::Stored;
use floor_runtime::projection::{Projection, ProjectionError, ProjectionErrorKind};
use futures::{StreamExt, TryStreamExt};
use std::collections::{HashMap, HashSet};

/// KV writes in flight at once during a flush.
const CONCURRENT_WRITES: usize = 64;

/// The lobby projection.
pub struct LobbyProjection {
    bucket: kv::Store,
    /// Each tournament's structure ([`crate::structures`]), written before its document.
    structures: kv::Store,
    docs: HashMap<TournamentId, LobbyDocument>,
    dirty: HashSet<TournamentId>,
    /// Tournaments whose structure changed since the last flush.
    dirty_structures: HashSet<TournamentId>,
    /// Every finisher's place and prize ([`crate::results`], issue 39).
    results: kv::Store,
    /// Places awarded since the last flush, for [`crate::results::store`].
    awarded: Vec<(TournamentId, floor_events::payouts::PlaceAward)>,
}

fn read<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e)
}
fn write<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Write, e)
}

impl LobbyProjection {
    /// Loads the documents already in the bucket, with their structures, to resume folding
    /// after the checkpoint.
    ///
    /// # Errors
    /// `Read` when the bucket cannot be read.
    pub async fn load(backbone: &Backbone) -> Result<Self, ProjectionError> {
        let bucket = backbone.jetstream.get_key_value(subjects::LOBBY_BUCKET).await.map_err(read)?;
        let structures = crate::structures::bucket(&backbone.jetstream).await.map_err(read)?;
        let results = crate::results::bucket(&backbone.jetstream).await.map_err(read)?;
        let mut dirty_structures = HashSet::new();
        let mut docs = HashMap::new();
        let keys: Vec<String> = bucket.keys().await.map_err(read)?.try_collect().await.map_err(read)?;
        for key in keys {
            if let Some(value) = bucket.get(&key).await.map_err(read)? {
                match serde_json::from_slice::<LobbyDocument>(&value) {
                    Ok(mut doc) => {
                        if let Some(clock) = doc.clock.as_mut() {
                            match structures.get(&key).await.map_err(read)? {
                                Some(stored) => match serde_json::from_slice(&stored) {
                                    Ok(structure) => clock.structure = structure,
                                    Err(e) => tracing::warn!(key, error = %e, "unreadable structure; the next one set replaces it"),
                                },
                                // A document from before structures had their own resource
                                // still holds its structure: store it there.
                                None if !clock.structure.steps.is_empty() => {
                                    dirty_structures.insert(doc.tournament_id);
                                }
                                None => {}
                            }
                        }
                        docs.insert(doc.tournament_id, doc);
                    }
                    Err(e) => tracing::warn!(key, error = %e, "unreadable lobby document; it will be rebuilt"),
                }
            }
        }
        Ok(Self { bucket, structures, docs, dirty: HashSet::new(), dirty_structures, results, awarded: Vec::new() })
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
            subjects::event_filter(subjects::aggregate::ABORT),
            subjects::event_filter(subjects::aggregate::SATELLITE),
            subjects::event_filter(subjects::aggregate::SHOOTOUT),
            subjects::event_filter(subjects::aggregate::LOTTERY),
        ]
    }

    fn apply(&mut self, stored: Stored<'_>) {
        let (subject, sequence) = (stored.subject, stored.sequence);
        let Some((aggregate, id)) = subjects::parse_event_subject(subject) else { return };
        let id = TournamentId(id);
        if self.docs.get(&id).is_some_and(|doc| doc.last_sequence >= sequence) {
            return;
        }
        // One typed decode (an undecodable commit is logged and skipped, never fatal for every
        // lobby); a tournament's first commit creates its document, every other one folds into it.
        let Some(commit) = stored.commit("lobby") else { return };
        let doc = match (self.docs.remove(&id), &commit.events) {
            (Some(doc), _) => doc,
            (None, Events::Tournament(events)) => match events.first() {
                Some(TournamentEvent::TournamentCreated(c)) => {
                    // A satellite names its target as the lobby knows it (created before it).
                    let target = c.definition.satellite.as_ref().and_then(|s| self.docs.get(&s.target)).map(|t| t.name.clone());
                    // Its level in a step tree (000 §16.13): one above its target's.
                    let above = c
                        .definition
                        .satellite
                        .as_ref()
                        .and_then(|s| self.docs.get(&s.target))
                        .map(|t| t.satellite.as_ref().map_or(0, |s| s.level));
                    LobbyDocument::created(id, &c.definition, c.at, sequence).with_target_name(target).with_step_level(above)
                }
                _ => {
                    tracing::warn!(subject, sequence, "commit for a tournament the lobby never saw created");
                    return;
                }
            },
            (None, _) => {
                tracing::warn!(subject, sequence, aggregate, "commit for a tournament the lobby never saw created");
                return;
            }
        };
        let folded = match &commit.events {
            Events::Tournament(events) => Some(events.iter().fold(doc, LobbyDocument::evolve)),
            Events::Clock(events) => Some(events.iter().fold(doc, LobbyDocument::evolve_clock)),
            Events::Rebuys(events) => Some(events.iter().fold(doc, LobbyDocument::evolve_rebuys)),
            Events::Bounties(events) => Some(events.iter().fold(doc, LobbyDocument::evolve_bounties)),
            Events::Bubble(events) => Some(events.iter().fold(doc, LobbyDocument::evolve_bubble)),
            Events::Payouts(events) => Some(events.iter().fold(doc, LobbyDocument::evolve_payouts)),
            Events::Abort(events) => Some(events.iter().fold(doc, LobbyDocument::evolve_abort)),
            Events::Satellite(events) => Some(events.iter().fold(doc, LobbyDocument::evolve_satellite)),
            Events::Shootout(events) => Some(events.iter().fold(doc, LobbyDocument::evolve_shootout)),
            Events::Lottery(events) => Some(events.iter().fold(doc, LobbyDocument::evolve_lottery)),
            // Not in the lobby's filters: the document goes back as it was.
            _ => {
                self.docs.insert(id, doc);
                None
            }
        };
        if let (Some(_), Events::Payouts(events)) = (&folded, &commit.events) {
            for event in events {
                if let floor_events::payouts::PayoutEvent::PlacesAwarded { awards, .. } = event {
                    self.awarded.extend(awards.iter().map(|a| (id, a.clone())));
                }
            }
        }
        if let Some(mut doc) = folded {
            if let Events::Clock(events) = &commit.events {
                if events.iter().any(|e| matches!(e, floor_events::clock::ClockEvent::StructureSet { .. })) {
                    self.dirty_structures.insert(id);
                }
            }
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
        // Structures first: a client that sees a document with a clock finds its structure.
        let structures: Vec<(String, bytes::Bytes)> = self
            .dirty_structures
            .drain()
            .filter_map(|id| self.docs.get(&id))
            .filter_map(|doc| doc.clock.as_ref().map(|c| (doc.tournament_id.to_string(), &c.structure)))
            .map(|(key, structure)| (key, serde_json::to_vec(structure).expect("structure serializes").into()))
            .collect();
        let store = &self.structures;
        futures::stream::iter(structures)
            .map(|(key, value)| async move { store.put(key, value).await })
            .buffer_unordered(CONCURRENT_WRITES)
            .try_collect::<Vec<_>>()
            .await
            .map_err(write)?;
        // The results before the documents: a document that counts a cash finds its line.
        if !self.awarded.is_empty() {
            crate::results::store(&self.results, &self.awarded).await.map_err(write)?;
            self.awarded.clear();
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
        self.dirty_structures.clear();
        self.awarded.clear();
        for bucket in [&self.bucket, &self.structures, &self.results] {
            let keys: Vec<String> = bucket.keys().await.map_err(read)?.try_collect().await.map_err(read)?;
            for key in keys {
                bucket.purge(key).await.map_err(write)?;
            }
        }
        Ok(())
    }
}
