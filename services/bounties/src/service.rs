//! Wiring: the `floor.cmd.bounties.<verb>` endpoint for directors, and the policy following the
//! log.
//!
//! The policy's memory is run by [`PolicyRunner`]: stored as a snapshot with the sequence it has
//! read up to (once every command it called for is stored), so a restart reads the snapshot and
//! the commits after it. The commands carry ids derived from what caused them, so running the
//! tail's again after a crash re-sends commands the aggregate already holds, and it answers them
//! from its history without a second event: every bounty is paid once.
//!
//! The mystery draws' seed comes from the platform's key in the `floor-secrets` bucket
//! ([`floor_runtime::secrets::seed_key`]: the key seating derives its draw seed from,
//! [`subjects::SEED_KEY`]); it is put into each order just before it runs ([`SeedKey::seal`]),
//! never into the snapshot.

use crate::domain::{BountiesAggregate, BountyCommand};
use crate::policy::{Order, Policy, SeedKey};
use floor_events::bounties::{verbs, BountiesRecorded, DirectorRequest, NameTarget, StageTrigger};
use floor_events::commit::Events;
use floor_events::{subjects, Reply};
use floor_runtime::endpoint::Verbs;
use floor_runtime::policy::{PolicyConfig, PolicyRunner, Stored};
use floor_runtime::projection::ProjectionError;
use floor_runtime::shell::{Context, Service};
use floor_runtime::sync::lock;
use floor_runtime::RETRY;
use floor_runtime::{reply, AggregateHost, Clock, JetStreamStore};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "bounties-policy";

/// The shape of [`Policy`] in snapshots: change it whenever that shape or meaning changes.
/// `bounties-2`: reads the bubble's commits too (its burst starts an `in_the_money` mystery stage).
const MEMORY_VERSION: &str = "bounties-2";

/// The bounties service. Cheap to clone.
#[derive(Clone)]
pub struct BountiesService {
    host: AggregateHost<BountiesAggregate>,
    key: Arc<SeedKey>,
    clock: Arc<dyn Clock>,
}

impl floor_runtime::policy::Policy for Policy {
    type Order = Order;

    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit("bounties") else { return vec![] };
        let t = decoded.tournament();
        match &decoded.events {
            Events::Tournament(e) => self.on_tournament(t, e),
            Events::Rebuys(e) => self.on_rebuys(t, e),
            Events::Seating(e) => self.on_seating(t, commit.at, e),
            Events::Clock(e) => self.on_clock(t, e),
            Events::Bounties(e) => {
                self.on_bounties(t, e);
                vec![]
            }
            Events::Bubble(e) => self.on_bubble(t, e),
            _ => vec![],
        }
    }
}

/// The subjects the bounties policy reads.
pub fn filters() -> Vec<String> {
    [
        subjects::aggregate::TOURNAMENT,
        subjects::aggregate::REBUYS,
        subjects::aggregate::SEATING,
        subjects::aggregate::CLOCK,
        subjects::aggregate::BOUNTIES,
        subjects::aggregate::BUBBLE,
    ]
    .iter()
    .map(|a| subjects::event_filter(a))
    .collect()
}

/// How the bounties policy runs: its name, memory version and subjects, snapshotted at the
/// runtime's default cadence.
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters())
}

impl Service for BountiesService {
    type Error = ProjectionError;

    /// Reads the last snapshot and the log after it into the policy, runs what is still owed,
    /// and follows on the tracker. The context's seed key fixes the draws (a simulation that
    /// must repeat itself); otherwise the platform's, from the `floor-secrets` bucket.
    ///
    /// # Errors
    /// When the stream or the secrets bucket cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, ProjectionError> {
        let backbone = cx.backbone;
        let key = match cx.seed_key {
            Some(key) => SeedKey(key),
            None => SeedKey(floor_runtime::secrets::seed_key(backbone).await?),
        };
        let started = PolicyRunner::<Policy>::start(backbone, policy_config()).await?;
        let memory = started.runner.memory();
        let owed = lock(&memory).still_owed(started.owed);
        let host = AggregateHost::new(JetStreamStore::new(backbone));
        let service = Self { host, key: Arc::new(key), clock: cx.clock.clone() };
        cx.tracker.spawn(service.clone().run(started.runner, owed, cx.shutdown.clone()));
        Ok(service)
    }

    /// The verbs: the director names a target, or starts a mystery stage now.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::BOUNTIES)
            .verb(verbs::NAME_TARGET, |s: Self, r: NameTarget| async move {
                let command = BountyCommand::NameTarget { player: r.player, public: r.public };
                s.answer((r.tournament_id, r.command_id, command)).await
            })
            .verb(verbs::START_MYSTERY_STAGE, |s: Self, r: DirectorRequest| async move {
                let at = s.clock.now();
                // The commitment is sealed in below, from the same key the draws use.
                let command = BountyCommand::StartStage { trigger: StageTrigger::Director, commitment: [0; 32], at };
                s.answer((r.tournament_id, r.command_id, command)).await
            })
    }
}

impl BountiesService {
    /// Runs what is owed, then each new commit's orders in log order ([`PolicyRunner::drive`]).
    async fn run(self, runner: PolicyRunner<Policy>, owed: Vec<Order>, shutdown: CancellationToken) {
        runner.drive(owed, &shutdown, |order| self.execute(order, &shutdown)).await;
    }

    /// Runs one order, sealed with its seed, until the store takes it. `false` on shutdown.
    async fn execute(&self, order: Order, shutdown: &CancellationToken) -> bool {
        let (tournament, command_id, command) = self.key.seal(order);
        self.host.execute_reaction(tournament.0, command_id, command, RETRY, shutdown).await
    }

    async fn answer(&self, order: Order) -> Reply<BountiesRecorded> {
        let (tournament, command_id, command) = self.key.seal(order);
        reply(self.host.execute(tournament.0, command_id, command).await, |c| BountiesRecorded { events: c.events })
    }
}
