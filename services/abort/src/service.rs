//! Wiring: the `floor.cmd.abort.<verb>` endpoint for directors, and the policy following the
//! log on the checkpointed [`PolicyRunner`].
//!
//! The memory ([`Memory`]) folds registration, seating, rebuys, payouts and the abort
//! aggregate's own commits into one [`TournamentView`] per tournament: a cancel builds its
//! snapshot from it (chips at the start of each table's interrupted hand), and `statement`
//! answers from it. The abort aggregate's events cause the clock's orders ([`crate::policy`]);
//! each order's command id is derived from its cause, so the tail folded again after a crash
//! re-sends commands the clock already holds, and it answers them without a second event.

use crate::domain::{AbortAggregate, AbortCommand, SuspendReason};
use crate::policy::{on_abort, on_clock, Order};
use crate::projection::{TournamentView, Unavailable};
use crate::snapshot::{Format, Snapshot, Tables};
use floor_events::abort::{verbs, AbortRecorded, AbortRequest, Cancel, StatementRequest, Statements, Suspend};
use floor_events::commit::Events;
use floor_events::{clock, codes, subjects, CommandId, Currency, ErrorBody, Reply, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::endpoint::{EndpointError, Verbs};
use floor_runtime::policy::{PolicyConfig, PolicyRunner, Stored};
use floor_runtime::projection::ProjectionError;
use floor_runtime::{reply, AggregateHost, Clock, Commands, JetStreamStore};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Wait before trying a command again after the store (or the clock service) failed.
const RETRY: Duration = Duration::from_millis(500);

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "abort-policy";

/// The shape of [`Memory`] in snapshots: change it whenever that shape or meaning changes.
const MEMORY_VERSION: &str = "abort-2";

/// The abort service. Cheap to clone.
#[derive(Clone)]
pub struct AbortService {
    host: AggregateHost<AbortAggregate>,
    /// Shared with the follower. A std mutex: never held across an await.
    memory: Arc<Mutex<Memory>>,
    clock: Arc<dyn Clock>,
    commands: Commands,
}

/// What the log says, folded: one view per tournament.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Memory {
    /// By tournament.
    pub tournaments: BTreeMap<TournamentId, TournamentView>,
}

impl floor_runtime::policy::Policy for Memory {
    type Order = Order;

    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit("abort") else { return vec![] };
        let t = decoded.tournament();
        let view = self.tournaments.entry(t).or_default();
        match &decoded.events {
            Events::Tournament(e) => view.on_tournament(e),
            Events::Seating(e) => view.on_seating(e),
            Events::Rebuys(e) => view.on_rebuys(e),
            Events::Payouts(e) => view.on_payouts(e),
            Events::Abort(e) => {
                view.on_abort(e);
                return on_abort(t, commit.sequence, e);
            }
            Events::Clock(e) => return on_clock(t, commit.sequence, e, view.abort.suspended.as_ref().map(|(reason, _)| reason)),
            _ => {}
        }
        vec![]
    }
}

/// The subjects the abort policy reads.
pub fn filters() -> Vec<String> {
    use subjects::aggregate as a;
    [a::TOURNAMENT, a::SEATING, a::REBUYS, a::PAYOUTS, a::ABORT, a::CLOCK].iter().map(|a| subjects::event_filter(a)).collect()
}

/// How the abort policy runs: its name, memory version and subjects.
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters())
}

fn refused(u: Unavailable) -> Reply<AbortRecorded> {
    Reply::Error(ErrorBody::new(u.code, u.message))
}

impl AbortService {
    /// Reads the last snapshot and the log after it into the memory, runs what is still owed,
    /// and follows on `tracker`.
    ///
    /// # Errors
    /// When the stream cannot be read.
    pub async fn start(
        backbone: &Backbone,
        clock: Arc<dyn Clock>,
        shutdown: CancellationToken,
        tracker: &TaskTracker,
    ) -> Result<Self, ProjectionError> {
        let started = PolicyRunner::<Memory>::start(backbone, policy_config()).await?;
        let memory = started.runner.memory();
        let service = Self {
            host: AggregateHost::new(JetStreamStore::new(backbone)),
            memory,
            clock,
            commands: Commands::new(backbone.client.clone()),
        };
        tracker.spawn(service.clone().run(started.runner, started.owed, shutdown));
        Ok(service)
    }

    /// Serves directors' requests until `shutdown`; `ready` fires once requests are being taken.
    ///
    /// # Errors
    /// When the endpoint cannot be registered.
    pub async fn serve(
        self,
        client: async_nats::Client,
        shutdown: CancellationToken,
        ready: Option<tokio::sync::oneshot::Sender<()>>,
    ) -> Result<(), EndpointError> {
        Self::verbs().serve(self, client, shutdown, ready).await
    }

    /// The director's verbs: suspend, resume, cancel, statement.
    pub fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::ABORT)
            .verb(verbs::SUSPEND, |s: Self, r: Suspend| async move { s.suspend(r).await })
            .verb(verbs::RESUME, |s: Self, r: AbortRequest| async move { s.resume(r).await })
            .verb(verbs::CANCEL, |s: Self, r: Cancel| async move { s.cancel(r).await })
            .verb(verbs::STATEMENT, |s: Self, r: StatementRequest| async move { s.statements(r) })
    }

    async fn suspend(&self, r: Suspend) -> Reply<AbortRecorded> {
        let at = self.clock.now();
        if let Err(u) = self.in_play(r.tournament_id) {
            return refused(u);
        }
        let command = AbortCommand::Suspend { reason: SuspendReason::Director { reason: r.reason }, at };
        self.answer(r.tournament_id, r.command_id, command).await
    }

    async fn resume(&self, r: AbortRequest) -> Reply<AbortRecorded> {
        let at = self.clock.now();
        if let Err(u) = self.in_play(r.tournament_id) {
            return refused(u);
        }
        self.answer(r.tournament_id, r.command_id, AbortCommand::Resume { at }).await
    }

    /// A tournament the service knows, started and not over.
    fn in_play(&self, tournament: TournamentId) -> Result<(), Unavailable> {
        lock(&self.memory).tournaments.get(&tournament).map_or_else(unknown, TournamentView::in_play)
    }

    /// A cancel: the snapshot from the memory as the log stands now. A tournament cancelled
    /// already goes to the aggregate with an empty snapshot: it answers a replay of the same
    /// command from its history, and refuses any other with `tournament_cancelled`, before
    /// reading the snapshot.
    async fn cancel(&self, r: Cancel) -> Reply<AbortRecorded> {
        let at = self.clock.now();
        let built = {
            let memory = lock(&self.memory);
            match memory.tournaments.get(&r.tournament_id) {
                Some(view) if view.abort.cancelled.is_some() => match view.currency {
                    Some(currency) => Ok((view.profile.unwrap_or_default(), empty_snapshot(currency))),
                    None => unknown(),
                },
                Some(view) => view.snapshot(at),
                None => unknown(),
            }
        };
        let (profile, snapshot) = match built {
            Ok(built) => built,
            Err(u) => return refused(u),
        };
        let command = AbortCommand::Cancel { reason: r.reason, profile, method: r.method, snapshot: Box::new(snapshot), at };
        self.answer(r.tournament_id, r.command_id, command).await
    }

    fn statements(&self, r: StatementRequest) -> Reply<Statements> {
        let memory = lock(&self.memory);
        let Some(view) = memory.tournaments.get(&r.tournament_id).filter(|v| v.profile.is_some()) else {
            return Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, "no such tournament"));
        };
        let (Some((reason, at)), Some(books)) = (&view.abort.cancelled, view.abort.books) else {
            return Reply::Error(ErrorBody::new(codes::NOT_CANCELLED, "the tournament was not cancelled: it has no statements"));
        };
        let statements = match &r.player {
            Some(player) => view.abort.statement(player).cloned().into_iter().collect(),
            None => view.abort.statements.clone(),
        };
        Reply::Ok(Statements { tournament_id: r.tournament_id, reason: reason.clone(), at: *at, books, statements })
    }

    /// Runs what is owed, then each new commit's orders in log order ([`PolicyRunner::drive`]).
    async fn run(self, runner: PolicyRunner<Memory>, owed: Vec<Order>, shutdown: CancellationToken) {
        runner.drive(owed, &shutdown, |_| {}, |order| self.execute(order, &shutdown)).await;
    }

    /// Sends one order to the clock until it is answered: a rejection (a clock not running, or
    /// paused already by a director) is logged and dropped, since the same command would be
    /// refused again; no answer is tried again with the same command id. `false` on shutdown.
    async fn execute(&self, order: Order, shutdown: &CancellationToken) -> bool {
        let (tournament, sent) = loop {
            let (tournament, sent) = match &order {
                Order::ClockPause(r) => (r.tournament_id, self.commands.send(clock::verbs::PAUSE, r).await.map(|_| ())),
                Order::ClockResume(r) => (r.tournament_id, self.commands.send(clock::verbs::RESUME, r).await.map(|_| ())),
            };
            match sent {
                Err(e) if e.is_retryable() => {
                    tracing::warn!(%tournament, error = %e, "clock command not answered; trying again");
                    tokio::select! {
                        _ = shutdown.cancelled() => return false,
                        _ = tokio::time::sleep(RETRY) => {}
                    }
                }
                other => break (tournament, other),
            }
        };
        if let Err(e) = sent {
            tracing::info!(%tournament, error = %e, "clock command for a suspension not applied");
        }
        true
    }

    async fn answer(&self, tournament: TournamentId, command_id: CommandId, command: AbortCommand) -> Reply<AbortRecorded> {
        reply(self.host.execute(tournament.0, command_id, command).await, |c| AbortRecorded { events: c.events })
    }
}

fn unknown<T>() -> Result<T, Unavailable> {
    Err(Unavailable { code: codes::UNKNOWN_TOURNAMENT, message: "no such tournament".into() })
}

/// What a cancel carries once the tournament is cancelled (never read: the aggregate refuses
/// first).
fn empty_snapshot(currency: Currency) -> Snapshot {
    Snapshot {
        currency,
        format: Format { tables: Tables::Multi, sit_and_go: false, twister: false },
        entries: vec![],
        prizes: vec![],
        guarantee: None,
        buying_open: false,
    }
}

/// The memory, also after a fold panicked while holding it.
fn lock(memory: &Mutex<Memory>) -> MutexGuard<'_, Memory> {
    memory.lock().unwrap_or_else(PoisonError::into_inner)
}
