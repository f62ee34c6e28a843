//! Wiring: the `floor.cmd.bubble.<verb>` endpoint for directors, and the policy following the
//! log on the checkpointed [`PolicyRunner`].
//!
//! The policy ([`crate::policy::Policy`]) reads registration, seating, payouts and the bubble's
//! own commits. Its orders for the bubble aggregate run on this service's host; the clock's
//! (the TDA deduction) go to the clock service. The instructions to the tables are not sent
//! from here: seating reacts to the bubble's events (`hold_for_deal` at the announcement,
//! `deal_hand {hand}` at each release, `resume` at the end) and sends them through its outbox,
//! which numbers every table's instructions (`docs/bubble.md`).
//!
//! Every order's command id is derived from what caused it, so the tail the runner folds again
//! after a crash re-sends commands the aggregates already hold, and they answer them from
//! their history without a second event: no hand is released twice.

use crate::domain::{BubbleAggregate, BubbleCommand};
use crate::policy::{Order, Policy};
use floor_events::bubble::{verbs, BubbleRecorded, BubbleRequest, PauseBubble, ReleaseWithout};
use floor_events::commit::Events;
use floor_events::{clock, codes, subjects, CommandId, Reply, TournamentId};
use floor_runtime::endpoint::Verbs;
use floor_runtime::policy::{PolicyConfig, PolicyRunner, Stored};
use floor_runtime::projection::ProjectionError;
use floor_runtime::shell::{Context, Service};
use floor_runtime::sync::lock;
use floor_runtime::RETRY;
use floor_runtime::{reply, AggregateHost, Clock, Commands, JetStreamStore};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long the policy waits for the clock to take a hand-for-hand command (the TDA deduction)
/// before it goes on without it: the deduction is time owed to the clock, not a reason to hold
/// every table's next hand (and every other tournament's) while the clock service is down.
/// What is not taken in time is sent from a queue of its own, in order, until the clock takes it.
const CLOCK_PATIENCE: Duration = Duration::from_secs(2);

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "bubble-policy";

/// The shape of [`Memory`] in snapshots: change it whenever that shape or meaning changes.
const MEMORY_VERSION: &str = "bubble-4";

/// The bubble service. Cheap to clone.
#[derive(Clone)]
pub struct BubbleService {
    host: AggregateHost<BubbleAggregate>,
    /// Shared with the follower: a director's start reads the field from it. A std mutex:
    /// never held across an await.
    memory: Arc<Mutex<Memory>>,
    clock: Arc<dyn Clock>,
    commands: Commands,
    /// Held while a command goes to the bubble aggregate, by the policy's orders and by a
    /// director's start: a start reads the field from the policy's memory, and a table that
    /// finishes after that read must reach the aggregate after the start, not before (the
    /// aggregate, not yet running, would refuse it, and hand 0 would wait for that table for
    /// ever). A tokio mutex: held across the command's round trip.
    lane: Arc<tokio::sync::Mutex<()>>,
    /// Clock commands the clock did not take within [`CLOCK_PATIENCE`], and every one after
    /// them while any waits (in order: a pause, its deductions, the resume).
    later: ClockLater,
}

/// The queue of clock commands sent after the policy went on ([`CLOCK_PATIENCE`]).
#[derive(Clone)]
struct ClockLater {
    sender: tokio::sync::mpsc::UnboundedSender<Order>,
    /// Queued and not yet taken by the clock.
    waiting: Arc<std::sync::atomic::AtomicUsize>,
}

impl ClockLater {
    fn push(&self, order: Order) {
        self.waiting.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if self.sender.send(order).is_err() {
            self.waiting.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn is_empty(&self) -> bool {
        self.waiting.load(std::sync::atomic::Ordering::SeqCst) == 0
    }
}

/// What the log says, folded: the policy.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Memory {
    /// The policy.
    pub policy: Policy,
}

impl floor_runtime::policy::Policy for Memory {
    type Order = Order;

    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit("bubble") else { return vec![] };
        let t = decoded.tournament();
        match &decoded.events {
            Events::Tournament(e) => self.policy.on_tournament(t, e),
            Events::Seating(e) => self.policy.on_seating(t, commit.sequence, commit.at, e),
            Events::Payouts(e) => {
                self.policy.on_payouts(t, e);
                vec![]
            }
            Events::Bubble(e) => self.policy.on_bubble(t, e),
            Events::Abort(e) => self.policy.on_abort(t, commit.at, e),
            _ => vec![],
        }
    }
}

/// The subjects the bubble policy reads.
pub fn filters() -> Vec<String> {
    use subjects::aggregate::{ABORT, BUBBLE, PAYOUTS, SEATING, TOURNAMENT};
    [TOURNAMENT, SEATING, PAYOUTS, BUBBLE, ABORT].iter().map(|a| subjects::event_filter(a)).collect()
}

/// Commits folded between two snapshots of the bubble's memory at most.
///
/// The bubble reads seating's whole log, the busiest: at 250,000 entrants seating stores a
/// commit every 0.6–1.1 ms, and at the runtime's default (10,000 commits or 5 s) a restart
/// replayed up to 5,663 of them, 2.2 s on a busy machine (`docs/benchmarks.md`, "Every service
/// killed…"), past the 2 s a restarted service has. 2,000 bounds the replay to about 0.8 s
/// there; the memory (every seat of every table, about 4 MB of JSON at 250,000) is encoded at
/// most every 2 s for it.
pub const SNAPSHOT_EVERY: u64 = 2_000;
/// The longest a folded commit waits for a snapshot.
pub const SNAPSHOT_INTERVAL: Duration = Duration::from_secs(2);

/// How the bubble policy runs: its name, memory version and subjects, snapshotted every
/// [`SNAPSHOT_EVERY`] commits or [`SNAPSHOT_INTERVAL`].
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters()).snapshot_every(SNAPSHOT_EVERY, SNAPSHOT_INTERVAL)
}

impl Service for BubbleService {
    type Error = ProjectionError;

    /// Reads the last snapshot and the log after it into the policy, runs what is still owed,
    /// and follows on the tracker.
    ///
    /// # Errors
    /// When the stream cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, ProjectionError> {
        let (backbone, clock, shutdown, tracker) = (cx.backbone, cx.clock.clone(), cx.shutdown.clone(), cx.tracker);
        let started = PolicyRunner::<Memory>::start(backbone, policy_config()).await?;
        let memory = started.runner.memory();
        let (sender, mut queued) = tokio::sync::mpsc::unbounded_channel();
        let later = ClockLater { sender, waiting: Arc::new(std::sync::atomic::AtomicUsize::new(0)) };
        let service = Self {
            host: AggregateHost::new(JetStreamStore::new(backbone)),
            memory,
            clock,
            commands: Commands::new(backbone.client.clone()),
            lane: Arc::new(tokio::sync::Mutex::new(())),
            later: later.clone(),
        };
        let (sending, stop) = (service.clone(), shutdown.clone());
        tracker.spawn(async move {
            while let Some(order) = tokio::select! { _ = stop.cancelled() => None, next = queued.recv() => next } {
                if !sending.to_clock(&order, &stop).await {
                    break;
                }
                later.waiting.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            }
        });
        tracker.spawn(service.clone().run(started.runner, started.owed, shutdown));
        Ok(service)
    }

    /// The director's verbs: start, stop, release without slow tables, pause, resume.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::BUBBLE)
            .verb(verbs::START, |s: Self, r: BubbleRequest| async move { s.start_now(r).await })
            .verb(verbs::STOP, |s: Self, r: BubbleRequest| async move {
                let at = s.clock.now();
                s.answer(r.tournament_id, r.command_id, BubbleCommand::Stop { at }).await
            })
            .verb(verbs::RELEASE_WITHOUT, |s: Self, r: ReleaseWithout| async move {
                let at = s.clock.now();
                s.answer(r.tournament_id, r.command_id, BubbleCommand::ReleaseWithout { tables: r.tables, at }).await
            })
            .verb(verbs::PAUSE, |s: Self, r: PauseBubble| async move {
                let at = s.clock.now();
                s.answer(r.tournament_id, r.command_id, BubbleCommand::Pause { reason: r.reason, at }).await
            })
            .verb(verbs::RESUME, |s: Self, r: BubbleRequest| async move {
                let at = s.clock.now();
                s.answer(r.tournament_id, r.command_id, BubbleCommand::Resume { at }).await
            })
    }
}

impl BubbleService {
    /// A director's start: the field as the policy last read it from seating. From that read
    /// on the policy sends every table's reports to the aggregate, as the trigger's start does,
    /// and they reach it after the start ([`BubbleService::lane`]).
    async fn start_now(&self, r: BubbleRequest) -> Reply<BubbleRecorded> {
        let at = self.clock.now();
        let _lane = self.lane.lock().await;
        let Some((field, announced)) = lock(&self.memory).policy.announce(r.tournament_id) else {
            return Reply::Error(floor_events::ErrorBody::new(codes::UNKNOWN_TOURNAMENT, "no such tournament in play"));
        };
        let reply = self.answer(r.tournament_id, r.command_id, BubbleCommand::Start { field, at }).await;
        if announced && matches!(reply, Reply::Error(_)) {
            lock(&self.memory).policy.withdraw(r.tournament_id);
        }
        reply
    }

    /// Runs what is owed, then each new commit's orders in log order ([`PolicyRunner::drive`]).
    async fn run(self, runner: PolicyRunner<Memory>, owed: Vec<Order>, shutdown: CancellationToken) {
        runner.drive(owed, &shutdown, |order| self.execute(order, &shutdown)).await;
    }

    /// Runs one order until it is stored (or refused). `false` on shutdown.
    async fn execute(&self, order: Order, shutdown: &CancellationToken) -> bool {
        match order {
            Order::Bubble(t, command_id, command) => {
                let _lane = self.lane.lock().await;
                self.host.execute_reaction(t.0, command_id, command, RETRY, shutdown).await
            }
            // Seating sends these from the bubble's events, numbered in each table's sequence.
            Order::Table { .. } => true,
            clock @ (Order::ClockPause(_) | Order::ClockAdjust(_) | Order::ClockResume(_)) => {
                if !self.later.is_empty() {
                    self.later.push(clock);
                    return true;
                }
                match tokio::time::timeout(CLOCK_PATIENCE, self.to_clock(&clock, shutdown)).await {
                    Ok(done) => done,
                    Err(_) => {
                        // Sent again with the same command id from the queue: a clock that took
                        // it meanwhile answers from its history.
                        tracing::warn!(
                            "the clock has not answered for {CLOCK_PATIENCE:?}: hand-for-hand goes on; its command waits for the clock"
                        );
                        self.later.push(clock);
                        true
                    }
                }
            }
        }
    }

    /// Sends a clock order until the clock answers it ([`BubbleService::send_to_clock`]).
    async fn to_clock(&self, order: &Order, shutdown: &CancellationToken) -> bool {
        match order {
            Order::ClockPause(r) => self.send_to_clock(clock::verbs::PAUSE, r, r.tournament_id, shutdown).await,
            Order::ClockAdjust(r) => self.send_to_clock(clock::verbs::ADJUST_TIME, r, r.tournament_id, shutdown).await,
            Order::ClockResume(r) => self.send_to_clock(clock::verbs::RESUME, r, r.tournament_id, shutdown).await,
            Order::Bubble(..) | Order::Table { .. } => true,
        }
    }

    /// Sends a command to the clock until it is answered: a rejection (a clock not running, a
    /// director's own pause) is logged and dropped, since the same command would be refused
    /// again; no answer is tried again with the same command id. `false` on shutdown.
    async fn send_to_clock<Req: Serialize, Rep: serde::de::DeserializeOwned>(
        &self,
        verb: floor_events::Verb<Req, Rep>,
        request: &Req,
        tournament: TournamentId,
        shutdown: &CancellationToken,
    ) -> bool {
        match self.commands.send_until_answered(verb, request, RETRY, shutdown).await {
            None => false,
            Some(Ok(_)) => true,
            Some(Err(e)) => {
                tracing::info!(%tournament, error = %e, "clock command for hand-for-hand not applied");
                true
            }
        }
    }

    async fn answer(&self, tournament: TournamentId, command_id: CommandId, command: BubbleCommand) -> Reply<BubbleRecorded> {
        reply(self.host.execute(tournament.0, command_id, command).await, |c| BubbleRecorded { events: c.events })
    }
}
