//! How far a policy's memory has read the log, for an endpoint that answers from that memory.
//!
//! A policy folds the log a moment after each commit is stored. An answer built from its
//! memory (a cancellation's snapshot, a tournament's books, a deal's remaining stacks) must not
//! be built from a memory that has not yet read what was stored before the question: a
//! cancellation computed before the fold of the last eliminations would pay players already
//! out. [`Folded::caught_up`] takes the last sequence of each of the tournament's logs the answer
//! depends on, as they stand when asked, and waits (up to a bound) for the memory to have
//! folded that far.

use crate::store::JetStreamStore;
use floor_events::{codes, subjects, ErrorBody, TournamentId};
use std::time::Duration;
use tokio::sync::watch;

/// How long an endpoint waits for its policy's memory to catch up before answering
/// `unavailable` (the caller asks again).
pub const CATCH_UP_WAIT: Duration = Duration::from_secs(5);

/// A watch of the last stream sequence a policy has folded, with the store to compare it to.
/// Cheap to clone.
#[derive(Clone)]
pub struct Folded {
    policy: &'static str,
    /// The subjects the policy reads: a log outside them is never folded.
    filters: Vec<String>,
    sequence: watch::Receiver<u64>,
    store: JetStreamStore,
}

impl Folded {
    /// Watches `sequence`, the memory of the policy `policy`, which reads `filters`.
    pub fn new(policy: &'static str, filters: Vec<String>, sequence: watch::Receiver<u64>, store: JetStreamStore) -> Self {
        Self { policy, filters, sequence, store }
    }

    /// The last sequence folded.
    pub fn at(&self) -> u64 {
        *self.sequence.borrow()
    }

    /// Waits until the memory has folded `tournament`'s registration log and its logs of
    /// `aggregates` as far as they went when asked.
    ///
    /// # Errors
    /// `unknown_tournament` when the tournament has no registration log; `unavailable` when the
    /// store does not answer or the memory is still behind after [`CATCH_UP_WAIT`], or a log
    /// asked for is one the policy does not read (it would never catch up: a wiring mistake,
    /// named).
    pub async fn caught_up(&self, tournament: TournamentId, aggregates: &[&str]) -> Result<(), ErrorBody> {
        let unavailable = |e: crate::store::StoreError| ErrorBody::new(codes::UNAVAILABLE, e.to_string());
        let unread = std::iter::once(subjects::aggregate::TOURNAMENT)
            .chain(aggregates.iter().copied())
            .map(|aggregate| subjects::event_subject(aggregate, tournament.0))
            .find(|subject| !self.filters.iter().any(|filter| crate::tail::matches(filter, subject)));
        if let Some(subject) = unread {
            let message = format!("{} does not read {subject}: it cannot answer from it", self.policy);
            return Err(ErrorBody::new(codes::UNAVAILABLE, message));
        }
        let registration = subjects::event_subject(subjects::aggregate::TOURNAMENT, tournament.0);
        let registration = self.store.last_sequence(&registration).await.map_err(unavailable)?;
        if registration == 0 {
            return Err(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("no tournament {tournament}")));
        }
        let lasts = aggregates.iter().map(|aggregate| {
            let subject = subjects::event_subject(aggregate, tournament.0);
            async move { self.store.last_sequence(&subject).await }
        });
        let lasts = futures::future::try_join_all(lasts).await.map_err(unavailable)?;
        let needed = lasts.into_iter().fold(registration, u64::max);
        let mut folded = self.sequence.clone();
        if tokio::time::timeout(CATCH_UP_WAIT, folded.wait_for(|&f| f >= needed)).await.is_err() {
            let message = format!(
                "{} is still reading the log (at sequence {}, this answer needs {needed}); ask again shortly",
                self.policy,
                self.at()
            );
            return Err(ErrorBody::new(codes::UNAVAILABLE, message));
        }
        Ok(())
    }
}
