//! Wiring: the `floor.cmd.rebuys.<verb>` endpoint for players and directors, the policy
//! following the log, and the timer that lets unanswered offers lapse.
//!
//! The policy's memory and the offers are one value run by [`PolicyRunner`]: stored as a
//! snapshot with the sequence it has read up to (once every command it called for is stored), so
//! a restart reads the snapshot and the commits after it. The commands they cause carry ids
//! derived from what caused them, so running the tail's again after a crash re-sends commands
//! the aggregate already holds, and it answers them from its history without a second event.

use crate::domain::{RebuyCommand, RebuysAggregate, Who};
use crate::policy::{Order, Policy};
use crate::projection::Offers;
use floor_events::commit::Events;
use floor_events::rebuys::{verbs, DirectorRequest, Purchase, RebuysRecorded};
use floor_events::{subjects, CommandId, Reply, TournamentId};
use floor_runtime::endpoint::Verbs;
use floor_runtime::folded::Folded;
use floor_runtime::policy::{PolicyConfig, PolicyRunner, Stored};
use floor_runtime::projection::ProjectionError;
use floor_runtime::shell::{Context, Service};
use floor_runtime::sync::lock;
use floor_runtime::RETRY;
use floor_runtime::{reply, AggregateHost, Clock, JetStreamStore};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "rebuys-policy";

/// The shape of [`Memory`] in snapshots: change it whenever that shape or meaning changes.
const MEMORY_VERSION: &str = "rebuys-2";

/// The rebuys service. Cheap to clone.
#[derive(Clone)]
pub struct RebuysService {
    host: AggregateHost<RebuysAggregate>,
    /// Shared with the follower: the endpoint reads stacks from it. A std mutex: never held
    /// across an await.
    memory: Arc<Mutex<Memory>>,
    clock: Arc<dyn Clock>,
    /// How far the memory has read the log: a rebuy's stack is read once it has read seating's
    /// log as far as it went when asked.
    folded: Folded,
}

/// What the log says, folded: the policy's orders and the offers' deadlines.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    /// The policy.
    pub policy: Policy,
    /// The open offers.
    pub offers: Offers,
}

impl floor_runtime::policy::Policy for Memory {
    type Order = Order;

    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit("rebuys") else { return vec![] };
        let t = decoded.tournament();
        match &decoded.events {
            Events::Tournament(e) => self.policy.on_tournament(t, e),
            Events::Seating(e) => self.policy.on_seating(t, commit.sequence, commit.at, e),
            Events::Clock(e) => self.policy.on_clock(t, e),
            Events::Rebuys(e) => {
                self.offers.apply(t, e);
                vec![]
            }
            Events::Abort(e) => {
                self.offers.apply_abort(t, e);
                self.policy.on_abort(t, e)
            }
            _ => vec![],
        }
    }
}

/// The subjects the rebuys policy reads.
pub fn filters() -> Vec<String> {
    use subjects::aggregate::{ABORT, CLOCK, REBUYS, SEATING, TOURNAMENT};
    [TOURNAMENT, SEATING, CLOCK, REBUYS, ABORT].iter().map(|a| subjects::event_filter(a)).collect()
}

/// How the rebuys policy runs: its name, memory version and subjects, snapshotted at the
/// runtime's default cadence.
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters())
}

impl Service for RebuysService {
    type Error = ProjectionError;

    /// Reads the last snapshot and the log after it into the policy and the offers, runs what
    /// is still owed, and follows on the tracker.
    ///
    /// # Errors
    /// When the stream cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, ProjectionError> {
        let (backbone, clock, shutdown, tracker) = (cx.backbone, cx.clock.clone(), cx.shutdown.clone(), cx.tracker);
        let mut started = PolicyRunner::<Memory>::start(backbone, policy_config()).await?;
        let memory = started.runner.memory();
        {
            let memory = lock(&memory);
            // The close of buying runs even for a tournament over (issue 33): it is what refuses
            // a purchase after the end.
            started.owed.retain(|(t, _, command)| !memory.policy.is_over(*t) || matches!(command, RebuyCommand::Close { .. }));
        }
        let folded = started.runner.reads();
        let service = Self { host: AggregateHost::new(JetStreamStore::new(backbone)), memory, clock, folded };
        tracker.spawn(service.clone().run(started.runner, started.owed, shutdown));
        Ok(service)
    }

    /// The verbs: a player's rebuy, decline and add-on; the director's end of either period.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::REBUYS)
            .verb(verbs::REBUY, |s: Self, p: Purchase| async move { s.purchase(p, Kind::Rebuy).await })
            .verb(verbs::DECLINE, |s: Self, p: Purchase| async move { s.purchase(p, Kind::Decline).await })
            .verb(verbs::ADD_ON, |s: Self, p: Purchase| async move { s.purchase(p, Kind::AddOn).await })
            .verb(verbs::END_REBUYS, |s: Self, r: DirectorRequest| async move {
                let at = s.clock.now();
                s.answer(r.tournament_id, r.command_id, RebuyCommand::EndRebuys { at }).await
            })
            .verb(verbs::END_ADD_ONS, |s: Self, r: DirectorRequest| async move {
                let at = s.clock.now();
                s.answer(r.tournament_id, r.command_id, RebuyCommand::EndAddOns { at }).await
            })
    }
}

impl RebuysService {
    /// Runs what is owed, then follows the log: each new commit's orders in log order (the
    /// runner's checkpoint moves once they are stored), and each offer whose deadline passes
    /// lapses.
    async fn run(self, mut runner: PolicyRunner<Memory>, owed: Vec<Order>, shutdown: CancellationToken) {
        for order in owed {
            if !self.execute(order, &shutdown).await {
                return;
            }
        }
        runner.executed(runner.folded());
        loop {
            let next_deadline = lock(&self.memory).offers.next_deadline();
            let wake = next_deadline.unwrap_or_else(|| self.clock.now() + chrono::Duration::hours(1));
            let (folded, orders) = tokio::select! {
                _ = shutdown.cancelled() => break,
                next = runner.next() => match next {
                    Some(Ok((sequence, orders))) => (Some(sequence), orders),
                    Some(Err(e)) => {
                        tracing::warn!(error = %e, "rebuys following the log");
                        continue;
                    }
                    None => break,
                },
                _ = self.clock.sleep_until(wake) => {
                    let now = self.clock.now();
                    let lapsed = lock(&self.memory).offers.lapsed(now);
                    let orders = lapsed.into_iter().map(|(t, entry, until)| {
                        let id = CommandId::derived(&format!("rebuys-lapse:{t}:{}:{}", entry.0, until.timestamp_millis()));
                        (t, id, RebuyCommand::Lapse { entry, until })
                    }).collect();
                    (None, orders)
                }
            };
            for order in orders {
                if !self.execute(order, &shutdown).await {
                    return;
                }
            }
            if let Some(sequence) = folded {
                runner.executed(sequence);
            }
        }
        // A clean stop leaves a snapshot of everything executed: the next start reads no tail.
        runner.snapshot_now().await;
    }

    /// Runs one order until the store takes it. `false` on shutdown.
    async fn execute(&self, (tournament, command_id, command): Order, shutdown: &CancellationToken) -> bool {
        self.host.execute_reaction(tournament.0, command_id, command, RETRY, shutdown).await
    }

    async fn answer(&self, tournament: TournamentId, command_id: CommandId, command: RebuyCommand) -> Reply<RebuysRecorded> {
        reply(self.host.execute(tournament.0, command_id, command).await, |c| RebuysRecorded { events: c.events })
    }
}

/// What a player buys (or declines).
enum Kind {
    Rebuy,
    Decline,
    AddOn,
}

impl RebuysService {
    async fn purchase(&self, Purchase { command_id, tournament_id, player, entry }: Purchase, kind: Kind) -> Reply<RebuysRecorded> {
        let at = self.clock.now();
        let who = Who { player, entry };
        let command = match kind {
            Kind::Rebuy => {
                // The stack for an "at or below" condition, as seating last recorded it: not
                // a stack older than the last hand stored (a player who just won above the
                // limit is refused).
                if let Err(e) = self.folded.caught_up(tournament_id, &[subjects::aggregate::SEATING]).await {
                    return Reply::Error(e);
                }
                let stack = lock(&self.memory).policy.stack_of(tournament_id, &who.player, who.entry);
                RebuyCommand::Rebuy { who, stack, at }
            }
            Kind::Decline => RebuyCommand::Decline { who },
            Kind::AddOn => RebuyCommand::AddOn { who, at },
        };
        self.answer(tournament_id, command_id, command).await
    }
}
