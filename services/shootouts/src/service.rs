//! Wiring: the `floor.cmd.shootouts.<verb>` endpoint and the policy following the log on the
//! checkpointed [`PolicyRunner`]: each order (a round started or completed) decided on the
//! shootout's aggregate until stored, its id derived from the round, so a restart between two
//! rounds forms the next one exactly once.

use crate::domain::ShootoutAggregate;
use crate::policy::{Memory, Order};
use floor_events::shootouts::{verbs, Bracket, BracketOf};
use floor_events::{codes, subjects, ErrorBody, Reply};
use floor_runtime::endpoint::Verbs;
use floor_runtime::policy::{PolicyConfig, PolicyRunner};
use floor_runtime::projection::ProjectionError;
use floor_runtime::shell::{Context, Service};
use floor_runtime::sync::lock;
use floor_runtime::{AggregateHost, JetStreamStore, RETRY};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "shootouts-policy";

/// The shape of [`Memory`] in snapshots: change it whenever that shape or meaning changes.
const MEMORY_VERSION: &str = "shootouts-1";

/// The subjects the shootouts policy reads: registration (shootouts, their entries, the
/// start), seating (each round's tables and their winners) and the shootouts' own rounds (the
/// bracket).
pub fn filters() -> Vec<String> {
    use subjects::aggregate::{SEATING, SHOOTOUT, TOURNAMENT};
    [TOURNAMENT, SEATING, SHOOTOUT].iter().map(|a| subjects::event_filter(a)).collect()
}

/// How the shootouts policy runs: its name, memory version and subjects.
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters())
}

/// The shootouts service. Cheap to clone.
#[derive(Clone)]
pub struct ShootoutsService {
    host: AggregateHost<ShootoutAggregate>,
    /// Shared with the follower: the verb reads the brackets from it. A std mutex: never held
    /// across an await.
    memory: Arc<Mutex<Memory>>,
    shutdown: CancellationToken,
}

impl Service for ShootoutsService {
    type Error = ProjectionError;

    /// Reads the last snapshot and the log after it, runs what is still owed, and follows on
    /// the tracker.
    ///
    /// # Errors
    /// When the stream cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, ProjectionError> {
        let started = PolicyRunner::<Memory>::start(cx.backbone, policy_config()).await?;
        let service = Self {
            host: AggregateHost::new(JetStreamStore::new(cx.backbone)),
            memory: started.runner.memory(),
            shutdown: cx.shutdown.clone(),
        };
        cx.tracker.spawn(service.clone().run(started.runner, started.owed));
        cx.tracker.spawn(service.clone().scheduled_rounds());
        Ok(service)
    }

    /// A shootout's bracket.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::SHOOTOUTS).verb(verbs::BRACKET, |s: Self, r: BracketOf| async move { s.bracket(&r) })
    }
}

impl ShootoutsService {
    async fn run(self, runner: PolicyRunner<Memory>, owed: Vec<Order>) {
        let shutdown = self.shutdown.clone();
        runner.drive(owed, &shutdown, |order| self.execute(order)).await;
    }

    /// Scheduled rounds (issue 37): once a second, the rounds whose start has come (the
    /// policy decides with the time given; its ids are the round's, so a round started by a
    /// replay too is stored once).
    async fn scheduled_rounds(self) {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = self.shutdown.cancelled() => return,
                _ = tick.tick() => {}
            }
            let due = lock(&self.memory).policy.due(chrono::Utc::now());
            for order in due {
                if !self.execute(order).await {
                    return;
                }
            }
        }
    }

    /// Runs one order until the store takes it (a rejection is logged and final). `false` on
    /// shutdown.
    async fn execute(&self, (tournament, command_id, command): Order) -> bool {
        self.host.execute_reaction(tournament.0, command_id, command, RETRY, &self.shutdown).await
    }

    /// Rounds so far (none before the start of a shootout that exists).
    fn bracket(&self, r: &BracketOf) -> Reply<Bracket> {
        let memory = lock(&self.memory);
        match memory.brackets.bracket(r.tournament_id) {
            Some(bracket) => Reply::Ok(bracket),
            None if memory.policy.shootout(r.tournament_id).is_some() => {
                Reply::Ok(Bracket { tournament_id: r.tournament_id, rounds: vec![] })
            }
            None => {
                Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("{} is no shootout (or not one seen yet)", r.tournament_id)))
            }
        }
    }
}
