//! Following commits in memory: read every commit on some subjects from the start of the
//! stream, then keep reading new ones as they are stored.
//!
//! For state a service rebuilds at every start and keeps only in memory (the players with
//! limits, the clocks' timetable, the scheduler's templates): no checkpoint, no durable
//! consumer, just an ordered consumer, the fastest way to read a stream.
//!
//! No follow dies of one commit ([`crate::health`]): during the catch-up a commit that is not a
//! readable commit, or whose fold panics, is recorded and its subject set aside; afterwards
//! [`Following::next`] hands out only readable commits of subjects not set aside, and
//! [`Following::guard`] guards the caller's own fold the same way. A service therefore always
//! starts, whatever the log holds.

use crate::bootstrap::Backbone;
use crate::health::Reader;
use crate::projection::{ProjectionError, ProjectionErrorKind};
use async_nats::jetstream::consumer::{pull, DeliverPolicy};
use async_nats::jetstream::Message;
use futures::StreamExt;

/// A follow after its catch-up: the commits stored since.
pub struct Following {
    messages: pull::Ordered,
    reader: Reader,
}

fn read<E: ToString>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e.to_string())
}

/// The health name of a follow: it has no name of its own, its filters say what it reads.
fn reader_name(filters: &[String]) -> String {
    format!("follow:{}", filters.join(","))
}

fn sequence(message: &Message) -> u64 {
    message.info().map(|i| i.stream_sequence).unwrap_or(0)
}

impl Following {
    /// The next readable commit of a subject not set aside (poison is recorded and skipped).
    /// `None` when the connection is gone for good.
    pub async fn next(&mut self) -> Option<Result<Message, ProjectionError>> {
        loop {
            let message = match self.messages.next().await? {
                Ok(message) => message,
                Err(e) => return Some(Err(read(e))),
            };
            if self.reader.guard(message.subject.as_str(), sequence(&message), &message.payload, || ()).is_some() {
                return Some(Ok(message));
            }
            self.reader.publish().await;
        }
    }

    /// Folds `message` with `fold`, unless its subject is set aside; a panicking fold is
    /// recorded and sets the subject aside ([`Reader::guard`]). `None` when not folded.
    pub fn guard<R>(&self, message: &Message, fold: impl FnOnce() -> R) -> Option<R> {
        self.reader.guard(message.subject.as_str(), sequence(message), &message.payload, fold)
    }

    /// Where this follow records poison commits.
    pub fn reader(&self) -> &Reader {
        &self.reader
    }
}

/// Reads every commit on `filters` stored so far, in order, handing each to `apply`; returns
/// once caught up with the stream as it was at the call, ready to follow what comes next.
/// Poison commits are recorded and their subjects set aside, never handed to `apply`; a panic
/// in `apply` sets that commit's subject aside too.
///
/// # Errors
/// `Read` when the stream cannot be read.
pub async fn follow(backbone: &Backbone, filters: Vec<String>, apply: impl FnMut(&Message)) -> Result<Following, ProjectionError> {
    let name = reader_name(&filters);
    follow_from(backbone, &name, filters, 1, apply).await
}

/// As [`follow`], from stream sequence `start` on (a policy's snapshot holds what came before),
/// recording poison under the reader called `reader`.
///
/// # Errors
/// `Read` when the stream cannot be read.
pub async fn follow_from(
    backbone: &Backbone,
    reader: &str,
    filters: Vec<String>,
    start: u64,
    mut apply: impl FnMut(&Message),
) -> Result<Following, ProjectionError> {
    let reader = backbone.health.reader(reader).await;
    let deliver_policy = match start {
        0 | 1 => DeliverPolicy::All,
        start_sequence => DeliverPolicy::ByStartSequence { start_sequence },
    };
    let mut consumer = backbone
        .events
        .create_consumer(pull::OrderedConfig { filter_subjects: filters, deliver_policy, ..Default::default() })
        .await
        .map_err(read)?;
    let mut pending = consumer.info().await.map_err(read)?.num_pending;
    let mut messages = consumer.messages().await.map_err(read)?;
    while pending > 0 {
        let Some(message) = messages.next().await else { break };
        let message = message.map_err(read)?;
        reader.guard(message.subject.as_str(), sequence(&message), &message.payload, || apply(&message));
        pending = message.info().map(|i| i.pending).unwrap_or(0);
    }
    reader.publish().await;
    Ok(Following { messages, reader })
}
