//! Wiring: the `floor.cmd.lottery.<verb>` endpoint, and the policy following the log on the
//! checkpointed [`PolicyRunner`].
//!
//! The policy's memory (with the frequencies) is stored as a snapshot with the sequence it has
//! read up to, once every command it called for is stored, so a restart reads the snapshot and
//! the commits after it. Its commands carry ids derived from the game, so running the tail's
//! orders again after a crash is answered from the aggregate's history: a game is committed
//! once and drawn once.
//!
//! The seeds come from the platform's key in the `floor-secrets` bucket
//! ([`floor_runtime::secrets::seed_key`], the key seating and bounties derive theirs from), or
//! the context's fixed key (a simulation that must repeat itself); they are put into each order
//! just before it runs ([`SeedKey::seal`]), never into the snapshot.

use crate::domain::LotteryAggregate;
use crate::policy::{Memory, Order, SeedKey};
use floor_events::lottery::{verbs, FrequenciesOf};
use floor_events::subjects;
use floor_runtime::endpoint::Verbs;
use floor_runtime::policy::{PolicyConfig, PolicyRunner};
use floor_runtime::projection::ProjectionError;
use floor_runtime::shell::{Context, Service};
use floor_runtime::sync::lock;
use floor_runtime::RETRY;
use floor_runtime::{AggregateHost, JetStreamStore};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "lottery-policy";

/// The shape of [`Memory`] in snapshots: change it whenever that shape or meaning changes.
const MEMORY_VERSION: &str = "lottery-1";

/// The subjects the lottery policy reads: registration (the games' tables, their starts) and
/// the lottery's own draws (the frequencies).
pub fn filters() -> Vec<String> {
    use subjects::aggregate::{LOTTERY, TOURNAMENT};
    [TOURNAMENT, LOTTERY].iter().map(|a| subjects::event_filter(a)).collect()
}

/// How the lottery policy runs: its name, memory version and subjects, snapshotted at the
/// runtime's default cadence.
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters())
}

/// The lottery service. Cheap to clone.
#[derive(Clone)]
pub struct LotteryService {
    host: AggregateHost<LotteryAggregate>,
    key: Arc<SeedKey>,
    /// Shared with the follower: the verb reads the frequencies from it. A std mutex: never
    /// held across an await.
    memory: Arc<Mutex<Memory>>,
}

impl Service for LotteryService {
    type Error = ProjectionError;

    /// Reads the last snapshot and the log after it into the policy and the frequencies, runs
    /// what is still owed, and follows on the tracker.
    ///
    /// # Errors
    /// When the stream or the secrets bucket cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, ProjectionError> {
        let key = match cx.seed_key {
            Some(key) => SeedKey(key),
            None => SeedKey(floor_runtime::secrets::seed_key(cx.backbone).await?),
        };
        let started = PolicyRunner::<Memory>::start(cx.backbone, policy_config()).await?;
        let service =
            Self { host: AggregateHost::new(JetStreamStore::new(cx.backbone)), key: Arc::new(key), memory: started.runner.memory() };
        cx.tracker.spawn(service.clone().run(started.runner, started.owed, cx.shutdown.clone()));
        Ok(service)
    }

    /// The director's comparison of drawn with published frequencies.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::LOTTERY)
            .verb(verbs::FREQUENCIES, |s: Self, r: FrequenciesOf| async move { lock(&s.memory).frequencies.answer(&r) })
    }
}

impl LotteryService {
    /// Runs what is owed, then each new commit's orders in log order ([`PolicyRunner::drive`]).
    async fn run(self, runner: PolicyRunner<Memory>, owed: Vec<Order>, shutdown: CancellationToken) {
        runner.drive(owed, &shutdown, |order| self.execute(order, &shutdown)).await;
    }

    /// Runs one order, sealed with its seed, until the store takes it (a refusal is logged).
    /// `false` on shutdown.
    async fn execute(&self, order: Order, shutdown: &CancellationToken) -> bool {
        let (t, command_id, command) = self.key.seal(order);
        self.host.execute_reaction(t.0, command_id, command, RETRY, shutdown).await
    }
}
