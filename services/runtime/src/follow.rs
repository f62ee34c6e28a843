//! Following commits in memory: read every commit on some subjects from the start of the
//! stream (or a given sequence), then keep reading new ones as they are stored.
//!
//! The catch-up reads through an ordered consumer of the follow's own (its filters, from its
//! start), the fastest way to read a stream; the live part comes from the process's one
//! [`Tail`](crate::tail), so the server delivers each new commit to the process once however
//! many readers follow it. A follow that falls too far behind the tail catches up on its own
//! consumer again and goes back to the tail.
//!
//! For state a service rebuilds at every start and keeps only in memory (the players with
//! limits, the clocks' timetable), and under the policy runner ([`crate::policy`]), which
//! starts from its snapshot.
//!
//! No follow dies of one commit ([`crate::health`]): during the catch-up a commit that is not a
//! readable commit, or whose fold panics, is recorded and its subject set aside; afterwards
//! [`Following::next`] hands out only readable commits of subjects not set aside, and
//! [`Following::guard`] guards the caller's own fold the same way. A service therefore always
//! starts, whatever the log holds.

use crate::bootstrap::Backbone;
use crate::health::Reader;
use crate::projection::{ProjectionError, ProjectionErrorKind};
use crate::tail::{self, Delivered, Shared, Tail};
use async_nats::jetstream::consumer::{pull, DeliverPolicy};
use async_nats::jetstream::stream::Stream;
use futures::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};

/// How long a follow that could not reach the stream waits before it tries again.
const RETRY: Duration = Duration::from_millis(250);

/// A follow after its catch-up: the commits stored since.
pub struct Following {
    source: Source,
    reader: Reader,
    filters: Vec<String>,
    /// The last stream sequence handed out (or folded in the catch-up).
    last: u64,
    events: Stream,
    tail: Tail,
}

/// Where the next commit comes from.
enum Source {
    /// The process's tail, every commit stored since the subscription.
    Tail(broadcast::Receiver<Shared>),
    /// The follow's own consumer, until it has delivered what was stored when it was created;
    /// then the tail receiver subscribed before it.
    CatchingUp { messages: Box<pull::Ordered>, pending: u64, then: broadcast::Receiver<Shared> },
    /// Neither could be reached: try again after [`RETRY`].
    Broken,
}

fn read<E: ToString>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e.to_string())
}

/// The health name of a follow: it has no name of its own, its filters say what it reads.
fn reader_name(filters: &[String]) -> String {
    format!("follow:{}", filters.join(","))
}

/// An ordered consumer on `filters` from sequence `start`, and how many commits it has to
/// deliver.
async fn own_consumer(events: &Stream, filters: Vec<String>, start: u64) -> Result<(pull::Ordered, u64), ProjectionError> {
    let deliver_policy = match start {
        0 | 1 => DeliverPolicy::All,
        start_sequence => DeliverPolicy::ByStartSequence { start_sequence },
    };
    let mut consumer = events
        .create_consumer(pull::OrderedConfig { filter_subjects: filters, deliver_policy, ..Default::default() })
        .await
        .map_err(read)?;
    let pending = consumer.info().await.map_err(read)?.num_pending;
    let messages = consumer.messages().await.map_err(read)?;
    Ok((messages, pending))
}

impl Following {
    /// The next readable commit of a subject not set aside (poison is recorded and skipped).
    /// `None` when the connection is gone for good.
    pub async fn next(&mut self) -> Option<Result<Shared, ProjectionError>> {
        loop {
            match self.next_or_skipped().await? {
                Ok(Ok(message)) => return Some(Ok(message)),
                Ok(Err(_skipped)) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// As [`Following::next`], with a commit it skipped (poison, or of a subject set aside)
    /// handed back as its sequence (`Err` inside): a reader that tells how far it has read
    /// counts it as read, so a question waiting for that sequence is not left waiting for a
    /// commit that will never be folded ([`crate::folded`]).
    pub async fn next_or_skipped(&mut self) -> Option<Result<Result<Shared, u64>, ProjectionError>> {
        let message = match self.next_stored().await {
            Ok(Some(message)) => message,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        if self.guard(&message, || ()).is_some() {
            return Some(Ok(Ok(message)));
        }
        self.reader.publish().await;
        Some(Ok(Err(message.sequence())))
    }

    /// The next commit on the filters after `last`, from wherever it comes now.
    async fn next_stored(&mut self) -> Result<Option<Shared>, ProjectionError> {
        loop {
            match &mut self.source {
                Source::Tail(receiver) => match receiver.recv().await {
                    Ok(message) => {
                        let at = message.sequence();
                        if at > self.last && self.filters.iter().any(|f| tail::matches(f, message.subject.as_str())) {
                            self.last = at;
                            return Ok(Some(message));
                        }
                    }
                    Err(RecvError::Lagged(missed)) => {
                        tracing::debug!(reader = self.reader.name(), missed, "fell behind the log's tail; catching up on its own");
                        self.catch_up().await?;
                    }
                    Err(RecvError::Closed) => self.catch_up().await?,
                },
                Source::CatchingUp { .. } => {
                    if let Some(message) = self.next_of_catch_up().await? {
                        return Ok(Some(message));
                    }
                }
                Source::Broken => {
                    tokio::time::sleep(RETRY).await;
                    self.catch_up().await?;
                }
            }
        }
    }

    /// The next commit of the catch-up on its own consumer; `None` once it has delivered what
    /// was stored when it was created (the follow then reads the tail), or when not catching up.
    async fn next_of_catch_up(&mut self) -> Result<Option<Shared>, ProjectionError> {
        loop {
            let Source::CatchingUp { messages, pending, .. } = &mut self.source else { return Ok(None) };
            if *pending == 0 {
                if let Source::CatchingUp { then, .. } = std::mem::replace(&mut self.source, Source::Broken) {
                    self.source = Source::Tail(then);
                }
                return Ok(None);
            }
            let message = match messages.next().await {
                Some(Ok(message)) => message,
                Some(Err(e)) => return Err(read(e)),
                // The consumer ended: read again on a new one ([`Source::Broken`]).
                None => {
                    self.source = Source::Broken;
                    return Ok(None);
                }
            };
            let message = Delivered::new(message);
            *pending = message.pending();
            let at = message.sequence();
            if at > self.last {
                self.last = at;
                return Ok(Some(Arc::new(message)));
            }
        }
    }

    /// Commits known to be waiting: the catch-up's still to deliver, or those in the tail not
    /// taken yet (of every subject: the tail does not know this follow's filters).
    pub fn pending(&self) -> u64 {
        match &self.source {
            Source::Tail(receiver) => receiver.len() as u64,
            Source::CatchingUp { pending, .. } => *pending,
            Source::Broken => 0,
        }
    }

    /// The last stream sequence handed out.
    pub fn last(&self) -> u64 {
        self.last
    }

    /// Reads on its own consumer from `last` + 1 until caught up, then from the tail again.
    async fn catch_up(&mut self) -> Result<(), ProjectionError> {
        self.source = Source::Broken;
        let then = self.tail.subscribe().await?;
        let (messages, pending) = own_consumer(&self.events, self.filters.clone(), self.last + 1).await?;
        self.source = Source::CatchingUp { messages: Box::new(messages), pending, then };
        Ok(())
    }

    /// Folds `message` with `fold`, unless it is poison or its subject is set aside; a
    /// panicking fold is recorded and sets the subject aside ([`Reader::guard_readable`]; the
    /// check is the one every reader shares). `None` when not folded.
    pub fn guard<R>(&self, message: &Delivered, fold: impl FnOnce() -> R) -> Option<R> {
        self.reader.guard_readable(message.subject.as_str(), message.sequence(), message.readable(), fold)
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
pub async fn follow(backbone: &Backbone, filters: Vec<String>, apply: impl FnMut(&Delivered)) -> Result<Following, ProjectionError> {
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
    mut apply: impl FnMut(&Delivered),
) -> Result<Following, ProjectionError> {
    let mut following = start_from(backbone, reader, filters, start).await?;
    while let Some(message) = following.next_of_catch_up().await? {
        following.guard(&message, || apply(&message));
    }
    following.reader.publish().await;
    Ok(following)
}

/// A follow from stream sequence `start` that has read nothing yet: [`Following::next`] hands
/// out what is stored from there on (read on its own consumer), then what the tail brings, so
/// a reader that stores as it goes (the projection runner) reads its catch-up in batches too.
/// Poison is recorded under the reader called `reader`.
///
/// # Errors
/// `Read` when the stream cannot be read.
pub async fn start_from(backbone: &Backbone, reader: &str, filters: Vec<String>, start: u64) -> Result<Following, ProjectionError> {
    let reader = backbone.health.reader(reader).await;
    // Subscribed before the catch-up consumer exists: what it does not deliver, the tail does.
    let then = backbone.tail.subscribe().await?;
    let (messages, pending) = own_consumer(&backbone.events, filters.clone(), start).await?;
    let source = Source::CatchingUp { messages: Box::new(messages), pending, then };
    let last = start.saturating_sub(1);
    Ok(Following { source, reader, filters, last, events: backbone.events.clone(), tail: backbone.tail.clone() })
}
