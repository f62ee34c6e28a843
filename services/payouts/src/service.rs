//! Wiring: the policy follows the log and drives the payouts aggregates; the same reading keeps
//! every tournament's books in memory for the `floor.cmd.payouts.books` endpoint.
//!
//! The policy's memory and the books are one value run by [`PolicyRunner`]: stored as a snapshot
//! with the sequence it has read up to (once every payouts command it called for is stored), so
//! a restart reads the snapshot and the commits after it, and runs again only their commands.
//! Those carry ids derived from the commit they come from: a command the aggregate already has
//! is answered from its history without a second event. Paid tournaments are skipped.
//!
//! Deals: `propose_deal`, `accept_deal` and `reject_deal` go to the same aggregate host as the
//! policy's awards (one writer per tournament in this process). A proposal carries the
//! remaining entries and their chips from the policy's memory, read once the memory has folded
//! the tournament's seating and payouts logs as far as they went when asked. The policy's
//! clock orders (pause while a deal is discussed, resume after) go to the clock service.

use crate::deal::{Proposal, Remaining, MIN_LEFT_TO_PLAY_FOR_BPS};
use crate::domain::{PayoutCommand, PayoutsAggregate};
use crate::policy::{Order, Policy};
use crate::projection::{BooksView, DealsView};
use floor_events::commit::Events;
use floor_events::payouts::{verbs, Books, BooksRequest, DealAnswer, DealQuery, DealRecorded, DealStatus, ProposeDeal};
use floor_events::registration::StopShared;
use floor_events::{clock, codes, registration, subjects, CommandId, ErrorBody, Reply, TournamentId};
use floor_runtime::endpoint::Verbs;
use floor_runtime::folded::Folded;
use floor_runtime::policy::{PolicyConfig, PolicyRunner, Stored};
use floor_runtime::projection::ProjectionError;
use floor_runtime::shell::{Context, Service};
use floor_runtime::sync::lock;
use floor_runtime::RETRY;
use floor_runtime::{reply, AggregateHost, Commands, JetStreamStore};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "payouts-policy";

/// The shape of [`Memory`] in snapshots: change it whenever that shape or meaning changes.
const MEMORY_VERSION: &str = "payouts-8";

/// The payouts service. Cheap to clone.
#[derive(Clone)]
pub struct PayoutsService {
    books: SharedBooks,
    /// Shared with the policy's task: one writer per payouts aggregate in the process.
    host: AggregateHost<PayoutsAggregate>,
}

/// The books view, shared by the task that follows the log and the endpoint.
#[derive(Clone)]
struct SharedBooks {
    memory: Arc<Mutex<Memory>>,
    /// How far the view has read the log.
    folded: Folded,
}

/// What the payouts service folds from the log: the policy's memory and the books.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// The policy.
    pub policy: Policy,
    /// Every tournament's books.
    pub books: BooksView,
    /// Every tournament's last deal.
    #[serde(default)]
    pub deals: DealsView,
}

/// The subjects the payouts policy reads.
pub fn filters() -> Vec<String> {
    [
        subjects::aggregate::TOURNAMENT,
        subjects::aggregate::CLOCK,
        subjects::aggregate::SEATING,
        subjects::aggregate::REBUYS,
        subjects::aggregate::PAYOUTS,
        subjects::aggregate::BOUNTIES,
        subjects::aggregate::BUBBLE,
        subjects::aggregate::ABORT,
        subjects::aggregate::LOTTERY,
    ]
    .iter()
    .map(|a| subjects::event_filter(a))
    .collect()
}

/// How the payouts policy runs: its name, memory version and subjects, snapshotted at the
/// runtime's default cadence.
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters())
}

impl Service for PayoutsService {
    type Error = ProjectionError;

    /// Reads the log into the policy, runs what it still owes, and follows on the tracker.
    ///
    /// # Errors
    /// When the stream cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, ProjectionError> {
        let (backbone, shutdown, tracker) = (cx.backbone, cx.shutdown.clone(), cx.tracker);
        let mut started = PolicyRunner::<Memory>::start(backbone, policy_config()).await?;
        let memory = started.runner.memory();
        {
            // Orders for tournaments paid later in the log are done already.
            let memory = lock(&memory);
            started.owed.retain(|order| !memory.policy.is_paid(order.tournament()));
        }
        let folded = started.runner.reads();
        let store = JetStreamStore::new(backbone);
        let host = AggregateHost::<PayoutsAggregate>::new(store.clone());
        let commands = Commands::new(backbone.client.clone());
        let bucket = backbone
            .jetstream
            .get_key_value(subjects::BOOKS_BUCKET)
            .await
            .map_err(|e| ProjectionError::with_source(floor_runtime::projection::ProjectionErrorKind::Read, e))?;
        tracker.spawn(report_unbalanced(memory.clone(), bucket, shutdown.clone()));
        tracker.spawn(run(host.clone(), commands, started.runner, started.owed, shutdown));
        Ok(Self { books: SharedBooks { memory, folded }, host })
    }

    /// The verbs: `books`, and the deal's `propose_deal`, `accept_deal`, `reject_deal`, `deal`.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::PAYOUTS)
            .verb(verbs::BOOKS, |payouts: Self, request: BooksRequest| async move { payouts.books(request.tournament_id).await })
            .verb(verbs::PROPOSE_DEAL, |payouts: Self, request: ProposeDeal| async move { payouts.propose_deal(request).await })
            .verb(verbs::ACCEPT_DEAL, |payouts: Self, r: DealAnswer| async move {
                payouts.answer_deal(r.tournament_id, r.command_id, PayoutCommand::AcceptDeal { player: r.player }).await
            })
            .verb(verbs::REJECT_DEAL, |payouts: Self, r: DealAnswer| async move {
                payouts.answer_deal(r.tournament_id, r.command_id, PayoutCommand::RejectDeal { player: r.player }).await
            })
            .verb(verbs::DEAL, |payouts: Self, request: DealQuery| async move { payouts.deal(request.tournament_id).await })
    }
}

impl PayoutsService {
    /// Waits until the memory has folded the tournament's logs (registration and `more`) as far
    /// as they went when asked ([`Folded::caught_up`]).
    async fn caught_up(&self, tournament_id: TournamentId, more: &[&str]) -> Result<(), ErrorBody> {
        self.books.folded.caught_up(tournament_id, more).await
    }

    /// The memory, also after a fold panicked while holding it.
    fn memory(&self) -> std::sync::MutexGuard<'_, Memory> {
        lock(&self.books.memory)
    }

    /// The books of a tournament, from the view once it has read as far as the log went on
    /// the tournament's subjects when asked.
    async fn books(&self, tournament_id: TournamentId) -> Reply<Books> {
        use subjects::aggregate as a;
        // Every log the books fold: a cancellation (abort) and a lottery's draw change them too.
        if let Err(e) = self.caught_up(tournament_id, &[a::REBUYS, a::PAYOUTS, a::BOUNTIES, a::ABORT, a::LOTTERY]).await {
            return Reply::Error(e);
        }
        match self.memory().books.books(tournament_id) {
            Some(books) => Reply::Ok(books),
            None => Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("no tournament {tournament_id}"))),
        }
    }

    /// A proposal, with the remaining entries and their chips as the policy has read them from
    /// the seating log (not the caller's word: the tables report the stacks).
    async fn propose_deal(&self, r: ProposeDeal) -> Reply<DealRecorded> {
        use subjects::aggregate as a;
        if let Err(e) = self.caught_up(r.tournament_id, &[a::SEATING, a::PAYOUTS]).await {
            return Reply::Error(e);
        }
        // A tournament the policy no longer follows (paid, cancelled) has nobody remaining: the
        // aggregate refuses with its reason (paid, no table, not remaining).
        let remaining = self.memory().policy.remaining(r.tournament_id).unwrap_or_default();
        let remaining = remaining.into_iter().map(|(entry, player, chips)| Remaining { entry, player, chips }).collect();
        let proposal = Proposal {
            proposer: r.player,
            remaining,
            method: r.method,
            left_to_play_for: r.left_to_play_for,
            min_left_bps: MIN_LEFT_TO_PLAY_FOR_BPS,
            ends_tournament: r.ends_tournament,
            bounties: self.memory().policy.has_bounties(r.tournament_id),
        };
        self.answer(r.tournament_id, r.command_id, PayoutCommand::ProposeDeal(proposal)).await
    }

    /// An accept or a reject, for a tournament in the log (`unknown_tournament` otherwise).
    async fn answer_deal(&self, tournament: TournamentId, command_id: CommandId, command: PayoutCommand) -> Reply<DealRecorded> {
        if let Err(e) = self.caught_up(tournament, &[subjects::aggregate::PAYOUTS]).await {
            return Reply::Error(e);
        }
        self.answer(tournament, command_id, command).await
    }

    async fn answer(&self, tournament: TournamentId, command_id: CommandId, command: PayoutCommand) -> Reply<DealRecorded> {
        reply(self.host.execute(tournament.0, command_id, command).await, |c| DealRecorded { events: c.events })
    }

    /// The tournament's last deal.
    async fn deal(&self, tournament_id: TournamentId) -> Reply<DealStatus> {
        if let Err(e) = self.caught_up(tournament_id, &[subjects::aggregate::PAYOUTS]).await {
            return Reply::Error(e);
        }
        let memory = self.memory();
        let currency = memory.books.books(tournament_id).map(|b| b.currency);
        match currency.and_then(|currency| memory.deals.status(tournament_id, currency)) {
            Some(status) => Reply::Ok(status),
            None => Reply::Error(ErrorBody::new(codes::NO_DEAL_PROPOSED, format!("no deal was proposed in tournament {tournament_id}"))),
        }
    }
}

impl floor_runtime::policy::Policy for Memory {
    type Order = Order;

    /// Folds one commit into the books and the policy; returns the commands the policy calls for.
    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit("payouts") else { return vec![] };
        let t = decoded.tournament();
        let (policy, books) = (&mut self.policy, &mut self.books);
        match &decoded.events {
            Events::Tournament(e) => {
                books.on_tournament(t, e);
                policy.on_tournament(t, e)
            }
            Events::Clock(e) => {
                policy.on_clock(t, e);
                vec![]
            }
            Events::Seating(e) => policy.on_seating(t, commit.sequence, e),
            Events::Rebuys(e) => {
                books.on_rebuys(t, e);
                policy.on_rebuys(t, e)
            }
            Events::Payouts(e) => {
                books.on_payouts(t, e);
                self.deals.on_payouts(t, e);
                policy.on_payouts(t, commit.sequence, e)
            }
            Events::Bounties(e) => {
                books.on_bounties(t, e);
                vec![]
            }
            Events::Bubble(e) => policy.on_bubble(t, commit.sequence, e),
            Events::Abort(e) => {
                books.on_abort(t, e);
                vec![]
            }
            Events::Lottery(e) => policy.on_lottery(t, e),
            _ => vec![],
        }
    }
}

/// How often the books that do not reconcile are written to [`subjects::BOOKS_BUCKET`].
const REPORT_EVERY: Duration = Duration::from_secs(2);

/// Keeps [`subjects::BOOKS_BUCKET`] to the tournaments whose books do not reconcile (issue 33):
/// each one's books written when they change, deleted once they reconcile again, so `floor
/// status` names them. A write that fails is tried at the next round.
async fn report_unbalanced(memory: Arc<Mutex<Memory>>, bucket: async_nats::jetstream::kv::Store, shutdown: CancellationToken) {
    // What is in the bucket: the books written, `None` for a record of an earlier run (checked
    // at the first round like the rest).
    let mut written: std::collections::HashMap<TournamentId, Option<Books>> = std::collections::HashMap::new();
    if let Ok(keys) = bucket.keys().await {
        let keys: Vec<String> = futures::StreamExt::collect::<Vec<_>>(keys).await.into_iter().flatten().collect();
        written.extend(keys.iter().filter_map(|k| k.parse::<uuid::Uuid>().ok()).map(|t| (TournamentId(t), None)));
    }
    let mut every = tokio::time::interval(REPORT_EVERY);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = every.tick() => {}
        }
        let now: Vec<Books> = lock(&memory).books.unbalanced();
        for books in &now {
            if written.get(&books.tournament_id).is_some_and(|w| w.as_ref() == Some(books)) {
                continue;
            }
            let body = serde_json::to_vec(books).expect("books serialize");
            match bucket.put(books.tournament_id.to_string(), body.into()).await {
                Ok(_) => {
                    tracing::error!(tournament = %books.tournament_id, why = books.unbalanced.as_deref().unwrap_or(""), "books do not reconcile");
                    written.insert(books.tournament_id, Some(books.clone()));
                }
                Err(e) => tracing::warn!(error = %e, "books not reported; trying again"),
            }
        }
        let unbalanced: std::collections::HashSet<TournamentId> = now.iter().map(|b| b.tournament_id).collect();
        let gone: Vec<TournamentId> = written.keys().filter(|t| !unbalanced.contains(t)).copied().collect();
        for t in gone {
            if bucket.delete(t.to_string()).await.is_ok() {
                written.remove(&t);
            }
        }
    }
}

/// Runs what is owed, then each new commit's orders in log order ([`PolicyRunner::drive`]).
async fn run(
    host: AggregateHost<PayoutsAggregate>,
    commands: Commands,
    runner: PolicyRunner<Memory>,
    owed: Vec<Order>,
    shutdown: CancellationToken,
) {
    runner.drive(owed, &shutdown, |order| execute(&host, &commands, order, &shutdown)).await;
}

/// Runs one order until the store (or the clock service) takes it. `false` on shutdown.
async fn execute(host: &AggregateHost<PayoutsAggregate>, commands: &Commands, order: Order, shutdown: &CancellationToken) -> bool {
    match order {
        Order::Payouts((tournament, command_id, command)) => {
            host.execute_reaction(tournament.0, command_id, command, RETRY, shutdown).await
        }
        Order::StopShared(stop) => send_stop(commands, stop, shutdown).await,
        clock_order => send_to_clock(commands, clock_order, shutdown).await,
    }
}

/// Sends the equal-prize stop to registration until it is answered (issues 36/37): a refusal
/// (finished already, by registration's own stop at a close of registration, or cancelled) is
/// logged and dropped, since the same command would be refused again; no answer is tried again
/// with the same command id.
async fn send_stop(commands: &Commands, stop: StopShared, shutdown: &CancellationToken) -> bool {
    let tournament = stop.tournament_id;
    match commands.send_until_answered(registration::verbs::STOP_SHARED, &stop, RETRY, shutdown).await {
        None => false,
        Some(Ok(_)) => true,
        Some(Err(e)) => {
            tracing::warn!(%tournament, error = %e, "the equal-prize stop was not recorded");
            true
        }
    }
}

/// Sends a deal's pause or resume to the clock until it is answered: a rejection (a clock not
/// running, paused by a director meanwhile, or stopped) is logged and dropped, since the same
/// command would be refused again; no answer is tried again with the same command id.
async fn send_to_clock(commands: &Commands, order: Order, shutdown: &CancellationToken) -> bool {
    let tournament = order.tournament();
    let answered = match &order {
        Order::ClockPause(r) => commands.send_until_answered(clock::verbs::PAUSE, r, RETRY, shutdown).await.map(|a| a.map(|_| ())),
        Order::ClockResume(r) => commands.send_until_answered(clock::verbs::RESUME, r, RETRY, shutdown).await.map(|a| a.map(|_| ())),
        Order::Payouts(_) | Order::StopShared(_) => return true,
    };
    match answered {
        None => false,
        Some(Ok(())) => true,
        Some(Err(e)) => {
            tracing::info!(%tournament, error = %e, "clock command for a deal not applied");
            true
        }
    }
}
