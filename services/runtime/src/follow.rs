//! Following commits in memory: read every commit on some subjects from the start of the
//! stream, then keep reading new ones as they are stored.
//!
//! For state a service rebuilds at every start and keeps only in memory (the players with
//! limits, the clocks' timetable, the scheduler's templates): no checkpoint, no durable
//! consumer, just an ordered consumer, the fastest way to read a stream.

use crate::bootstrap::Backbone;
use crate::projection::{ProjectionError, ProjectionErrorKind};
use async_nats::jetstream::consumer::{pull, DeliverPolicy};
use async_nats::jetstream::Message;
use futures::StreamExt;

/// A follow after its catch-up: the commits stored since.
pub struct Following {
    messages: pull::Ordered,
}

fn read<E: ToString>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e.to_string())
}

impl Following {
    /// The next commit. `None` when the connection is gone for good.
    pub async fn next(&mut self) -> Option<Result<Message, ProjectionError>> {
        Some(self.messages.next().await?.map_err(read))
    }
}

/// Reads every commit on `filters` stored so far, in order, handing each to `apply`; returns
/// once caught up with the stream as it was at the call, ready to follow what comes next.
///
/// # Errors
/// `Read` when the stream cannot be read.
pub async fn follow(backbone: &Backbone, filters: Vec<String>, mut apply: impl FnMut(&Message)) -> Result<Following, ProjectionError> {
    let mut consumer = backbone
        .events
        .create_consumer(pull::OrderedConfig { filter_subjects: filters, deliver_policy: DeliverPolicy::All, ..Default::default() })
        .await
        .map_err(read)?;
    let mut pending = consumer.info().await.map_err(read)?.num_pending;
    let mut messages = consumer.messages().await.map_err(read)?;
    while pending > 0 {
        let Some(message) = messages.next().await else { break };
        let message = message.map_err(read)?;
        apply(&message);
        pending = message.info().map(|i| i.pending).unwrap_or(0);
    }
    Ok(Following { messages })
}
