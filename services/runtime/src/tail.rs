//! The process's tail of the log: one ordered consumer on every event subject, its commits
//! handed to every reader in the process that has caught up.
//!
//! Without it, each reader that follows the log live has a consumer of its own, and the server
//! delivers every commit once per reader: ten times over in `floor run`, where every service
//! shares one process. With it, the server delivers each commit to the process once; readers
//! catch up on their own consumer (their filters, from their snapshot) and then take the rest
//! from the tail ([`crate::follow`]).
//!
//! A reader subscribes *before* it creates its catch-up consumer: every commit stored after the
//! subscription reaches it through the tail, every commit stored before is in its catch-up, and
//! the overlap is dropped by stream sequence. A reader that falls more than [`CAPACITY`] commits
//! behind the tail (or finds the tail gone) catches up on its own consumer again from its last
//! sequence, the same way: nothing is lost, it only costs that reader a second read.

use crate::projection::{ProjectionError, ProjectionErrorKind};
use async_nats::jetstream::consumer::{pull, DeliverPolicy};
use async_nats::jetstream::stream::Stream;
use async_nats::jetstream::Message;
use chrono::{DateTime, Utc};
use floor_events::commit::Commit;
use floor_events::subjects;
use futures::StreamExt;
use std::sync::{Arc, OnceLock};
use tokio::sync::{broadcast, Mutex};

/// Commits the tail keeps for a reader that has not taken them yet; a reader further behind
/// reads on its own consumer until it has caught up again.
pub const CAPACITY: usize = 16_384;

/// One commit as the tail hands it out, shared by every reader.
pub type Shared = Arc<Delivered>;

/// A commit as readers in the process share it: the message, where it stands in the stream,
/// whether it is a readable commit at all ([`crate::health::check_commit`]) and its typed
/// decode ([`Commit`]), the last two found out by the first reader that asks and kept for the
/// others. Every reader asks (no reader dies of a poison commit) and every reader of the log
/// reads the typed commit: a hand-for-hand release at 1,000 tables is a 1,000-instruction
/// seating commit, and a registration is read by ten readers in `floor run`; each is now
/// checked and decoded once.
pub struct Delivered {
    message: Message,
    sequence: u64,
    pending: u64,
    at: DateTime<Utc>,
    readable: OnceLock<Result<(), String>>,
    decoded: OnceLock<Result<Commit, String>>,
}

impl Delivered {
    /// A message not checked yet.
    pub fn new(message: Message) -> Self {
        let info = message.info().ok();
        let (sequence, pending) = info.as_ref().map(|i| (i.stream_sequence, i.pending)).unwrap_or((0, 0));
        let at = info.map(|i| DateTime::<Utc>::from_timestamp_nanos(i.published.unix_timestamp_nanos() as i64)).unwrap_or_default();
        Self { message, sequence, pending, at, readable: OnceLock::new(), decoded: OnceLock::new() }
    }

    /// Its stream sequence (0 for a message that is not a stream's).
    pub fn sequence(&self) -> u64 {
        self.sequence
    }

    /// How many messages the consumer that delivered it had still to deliver.
    pub fn pending(&self) -> u64 {
        self.pending
    }

    /// When the store took it (the server's time: the same at every read).
    pub fn at(&self) -> DateTime<Utc> {
        self.at
    }

    /// Whether it is a readable commit (checked once for every reader).
    ///
    /// # Errors
    /// Why it is not.
    pub fn readable(&self) -> Result<(), &str> {
        let checked = self.readable.get_or_init(|| crate::health::check_commit(self.message.subject.as_str(), &self.message.payload));
        checked.as_ref().map(|_| ()).map_err(String::as_str)
    }

    /// The commit decoded into its aggregate's events (decoded once for every reader).
    ///
    /// # Errors
    /// Why it does not decode.
    pub fn commit(&self) -> Result<&Commit, &str> {
        let decoded =
            self.decoded.get_or_init(|| Commit::decode(self.message.subject.as_str(), &self.message.payload).map_err(|e| e.to_string()));
        decoded.as_ref().map_err(String::as_str)
    }
}

impl std::ops::Deref for Delivered {
    type Target = Message;

    fn deref(&self) -> &Message {
        &self.message
    }
}

/// The process's live tail of `FLOOR_EVENTS` (cheap to clone: every clone is the same tail).
#[derive(Clone)]
pub struct Tail {
    events: Stream,
    live: Arc<Mutex<Option<broadcast::WeakSender<Shared>>>>,
}

fn read<E: ToString>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e.to_string())
}

impl Tail {
    /// The tail of `events`, started by its first reader.
    pub fn new(events: Stream) -> Self {
        Self { events, live: Arc::new(Mutex::new(None)) }
    }

    /// A receiver of every commit stored from now on (and possibly a few before), in stream
    /// order; starts the tail if it is not running.
    ///
    /// # Errors
    /// `Read` when the tail's consumer cannot be created.
    pub async fn subscribe(&self) -> Result<broadcast::Receiver<Shared>, ProjectionError> {
        let mut live = self.live.lock().await;
        if let Some(sender) = live.as_ref().and_then(broadcast::WeakSender::upgrade) {
            return Ok(sender.subscribe());
        }
        let last = self.events.get_info().await.map_err(read)?.state.last_sequence;
        let consumer = self
            .events
            .create_consumer(pull::OrderedConfig {
                filter_subject: subjects::EVENTS_SUBJECTS.to_owned(),
                deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: last + 1 },
                max_expires: TAIL_EXPIRES,
                ..Default::default()
            })
            .await
            .map_err(read)?;
        let messages = consumer.messages().await.map_err(read)?;
        let (sender, receiver) = broadcast::channel(CAPACITY);
        *live = Some(sender.downgrade());
        tokio::spawn(hand_out(messages, sender, last));
        Ok(receiver)
    }
}

/// How long one pull of the tail waits; its idle heartbeat is half of it. The consumer is
/// ephemeral and lives on one node: when that node dies (a cluster, issue 40) the tail notices
/// only by missed heartbeats and then makes a new consumer where it stopped. With async-nats's
/// default (30 s pulls, 15 s heartbeats) the tail, and every reader on it, stood still for
/// longer than the simulator's 15 s stall limit after a leader was killed.
const TAIL_EXPIRES: std::time::Duration = std::time::Duration::from_secs(4);

/// Reads the tail's consumer and hands each commit to the receivers, until the connection is
/// gone for good (the receivers then see the channel closed and read on their own).
async fn hand_out(mut messages: pull::Ordered, sender: broadcast::Sender<Shared>, mut last: u64) {
    while let Some(message) = messages.next().await {
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                tracing::debug!(error = %e, "the log's tail: reading");
                continue;
            }
        };
        // An ordered consumer that resets before its first commit starts again from the first
        // commit of the stream: what was handed out already is not handed out again.
        let delivered = Delivered::new(message);
        if delivered.sequence() <= last {
            continue;
        }
        last = delivered.sequence();
        // No receiver is no error: a reader subscribes again when it needs the tail.
        let _ = sender.send(Arc::new(delivered));
    }
}

/// Whether `subject` is one of those `filter` names (NATS wildcards: `*` one token, `>` the
/// rest, at least one token).
pub fn matches(filter: &str, subject: &str) -> bool {
    let mut subject = subject.split('.');
    for token in filter.split('.') {
        match (token, subject.next()) {
            (">", Some(_)) => return true,
            ("*", Some(_)) => {}
            (token, Some(s)) if token == s => {}
            _ => return false,
        }
    }
    subject.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn a_filter_names_subjects_as_nats_does() {
        assert!(matches("floor.ev.tournament.*", "floor.ev.tournament.t1"));
        assert!(!matches("floor.ev.tournament.*", "floor.ev.tournament.t1.x"));
        assert!(!matches("floor.ev.tournament.*", "floor.ev.clock.t1"));
        assert!(!matches("floor.ev.tournament.*", "floor.ev.tournament"));
        assert!(matches("floor.ev.>", "floor.ev.clock.t1"));
        assert!(matches("floor.ev.>", "floor.ev.clock"));
        assert!(!matches("floor.ev.>", "floor.ev"));
        assert!(matches("floor.ev.seating.t1", "floor.ev.seating.t1"));
        assert!(!matches("floor.ev.seating.t1", "floor.ev.seating.t2"));
        assert!(matches("floor.*.seating.*", "floor.ev.seating.t2"));
        assert!(!matches("", "floor"));
        assert!(matches("floor.ev.tournament.>", "floor.ev.tournament.abc"));
        assert!(!matches("floor.ev.tournament.>", "floor.ev.tournament"));
    }
}
