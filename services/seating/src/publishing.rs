//! Table instructions leave from the command path; the outbox is the backstop.
//!
//! A table hears of a move one consumer hop after its report, not two: the runner that stored
//! the commit sends the commit's instructions while it still holds the aggregate, so the
//! instructions of two commits leave in commit order on the one connection, and awaits the
//! stream's acknowledgements after it lets go. The outbox still reads every commit from the
//! log. It skips what the stream acknowledged here and publishes the rest itself (a publish
//! that failed, a commit whose instance crashed before sending) with the same `Nats-Msg-Id`,
//! so the stream keeps one copy. Only then can an instruction arrive after a later one, which
//! is why table servers apply instructions in `sequence` order (docs/table-servers.md).
//!
//! Bookkeeping: the command path registers each instruction it sends, and the outbox takes the
//! registration out when it reaches that instruction. The outbox sees a commit once it is
//! stored, which can be before the command path, holding the aggregate, has sent it (both hear
//! of the append at the same moment). So the outbox first waits until no command runs on the
//! tournament ([`floor_runtime::AggregateHost::quiet`]): every stored commit's registrations are
//! then in place, and each instruction leaves once, from one side or the other.

use async_nats::jetstream::context::{PublishAckFuture, PublishError};
use async_nats::jetstream::message::PublishMessage;
use floor_events::seating::SeatingEvent;
use floor_events::table::{instructions_subject, TableInstruction};
use floor_events::TournamentId;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// A commit with more instructions than this (a draw part, blinds for every table) is left to
/// the outbox: it is bulk, not a table waiting on its report, and sending it under the
/// aggregate's lock would hold acknowledgement permits the connection shares. async-nats
/// allows 5,000 unacknowledged publishes per JetStream context and then waits for one to be
/// acknowledged: with the acknowledgements awaited only after the lock, a 250,000-entrant
/// draw stopped for good at 5,000 instructions.
///
/// 1,024, not less: a hand-for-hand release is one commit with a `deal_hand` for every table, and
/// every table waits for it. Left to the outbox, a release to 1,000 tables reached its first
/// table 9–13 ms after its commit (`bubble-bench`: the outbox reads the commit after it is
/// stored, beside every other reader of seating's log). Not more: each of seating's two command
/// runners confirms once it holds this many, so holds at most twice as many less one, and the
/// outbox `PUBLISHING` (256); 2 × 2,047 + 256 = 4,350 stays below async-nats's 5,000 with room for
/// the process's other appends.
pub(crate) const DIRECT_AT_MOST: usize = 1_024;

/// One table of one tournament.
type TableKey = (TournamentId, u32);

/// An instruction's subject and message, with the id that lets the stream drop a second copy.
pub(crate) fn message(i: &TableInstruction) -> (String, PublishMessage) {
    let message = PublishMessage::build()
        .payload(serde_json::to_vec(i).expect("instruction serializes").into())
        .message_id(format!("instruction:{}.{}.{}", i.tournament_id, i.table, i.sequence));
    (instructions_subject(i.tournament_id, i.table), message)
}

/// Instructions sent from the command path, by table and sequence: `Some(true)` once the
/// stream acknowledged, `Some(false)` if it did not, `None` while in flight. The outbox takes
/// each out as it reaches it, so what is here was sent and not yet reached.
type Ledger = HashMap<(TableKey, u64), watch::Receiver<Option<bool>>>;

/// Sends instructions from the command path and tells the outbox which it may skip. Cheap to
/// clone; one per seating service.
#[derive(Clone)]
pub(crate) struct Publisher {
    jetstream: async_nats::jetstream::Context,
    ledger: Arc<Mutex<Ledger>>,
}

/// Instructions sent whose acknowledgements are still to be awaited.
#[derive(Default)]
pub(crate) struct InFlight(Vec<(Sent, watch::Sender<Option<bool>>)>);

/// A publish handed to the connection, or why it could not be.
type Sent = Result<PublishAckFuture, PublishError>;

impl Publisher {
    pub(crate) fn new(jetstream: async_nats::jetstream::Context) -> Self {
        Self { jetstream, ledger: Arc::default() }
    }

    /// Sends a new commit's instructions without waiting for the stream. Call it under the
    /// aggregate's lock (`AggregateHost::execute_then`), and [`InFlight::confirm`] after.
    pub(crate) fn send<'a>(&'a self, events: &[SeatingEvent], in_flight: &'a mut InFlight) -> impl Future<Output = ()> + 'a {
        let mut ledger = self.ledger.lock().expect("publishing ledger poisoned");
        let mut messages = Vec::new();
        let instructions = events.iter().filter(|e| matches!(e, SeatingEvent::Instructed { .. })).count();
        for event in events.iter().filter(|_| instructions <= DIRECT_AT_MOST) {
            let SeatingEvent::Instructed { instruction } = event else { continue };
            let key = ((instruction.tournament_id, instruction.table), instruction.sequence);
            let (done, receiver) = watch::channel(None);
            ledger.insert(key, receiver);
            messages.push((message(instruction), done));
        }
        drop(ledger);
        async move {
            for ((subject, message), done) in messages {
                in_flight.0.push((self.jetstream.send_publish(subject, message).await, done));
            }
        }
    }

    /// For the outbox, once no command runs on the instruction's tournament: whether the
    /// command path has this instruction stored in the stream (waiting for its acknowledgement
    /// if it is still in flight). `false` means the outbox must publish it.
    pub(crate) async fn published(&self, i: &TableInstruction) -> bool {
        let key = ((i.tournament_id, i.table), i.sequence);
        let receiver = self.ledger.lock().expect("publishing ledger poisoned").remove(&key);
        let Some(mut receiver) = receiver else { return false };
        // A sender dropped before it knew (its runner failed) counts as not published.
        receiver.wait_for(Option::is_some).await.map(|acked| *acked == Some(true)).unwrap_or(false)
    }
}

impl InFlight {
    /// Instructions whose acknowledgements are awaited.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Awaits the acknowledgements and records each outcome for the outbox. A failure is only
    /// logged: the outbox publishes that instruction again.
    pub(crate) async fn confirm(self) {
        let acks = self.0.into_iter().map(|(sent, done)| async move {
            let acked = match sent {
                Ok(ack) => ack.await.map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            if let Err(e) = &acked {
                tracing::warn!(error = %e, "instruction not acknowledged; the outbox will publish it");
            }
            let _ = done.send(Some(acked.is_ok()));
        });
        futures::future::join_all(acks).await;
    }
}
