//! Wiring: the `floor.cmd.rebuys.<verb>` endpoint for players and directors, the policy
//! following the log, and the timer that lets unanswered offers lapse.
//!
//! The policy and the offers are kept only in memory, rebuilt from the log at every start (like
//! the payouts policy): the commands they cause carry ids derived from what caused them, so
//! reading the log again after a crash re-sends commands the aggregate already holds, and it
//! answers them from its history without a second event.

use crate::domain::{RebuyCommand, RebuysAggregate, Who};
use crate::policy::{Order, Policy};
use crate::projection::Offers;
use async_nats::jetstream::Message;
use chrono::{DateTime, Utc};
use floor_events::commit::Events;
use floor_events::rebuys::{verbs, DirectorRequest, Purchase, RebuysRecorded};
use floor_events::{subjects, CommandId, Reply, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::commits;
use floor_runtime::endpoint::{EndpointError, Verbs};
use floor_runtime::follow::{follow, Following};
use floor_runtime::projection::ProjectionError;
use floor_runtime::{reply, AggregateHost, Clock, JetStreamStore};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Wait before trying a command again after the store failed.
const RETRY: Duration = Duration::from_millis(500);

/// The rebuys service. Cheap to clone.
#[derive(Clone)]
pub struct RebuysService {
    host: AggregateHost<RebuysAggregate>,
    /// Shared with the follower: the endpoint reads stacks from it. A std mutex: never held
    /// across an await.
    policy: Arc<Mutex<Policy>>,
    clock: Arc<dyn Clock>,
}

/// What the log says, folded: the policy's orders and the offers' deadlines.
struct Memory {
    policy: Arc<Mutex<Policy>>,
    offers: Offers,
}

impl Memory {
    fn fold(&mut self, message: &Message) -> Vec<Order> {
        let info = message.info().ok();
        let sequence = info.as_ref().map(|i| i.stream_sequence).unwrap_or(0);
        let stored = info.map(|i| DateTime::<Utc>::from_timestamp_nanos(i.published.unix_timestamp_nanos() as i64)).unwrap_or_default();
        let Some(commit) = commits::decode("rebuys", &message.subject, sequence, &message.payload) else { return vec![] };
        let t = commit.tournament();
        let mut policy = self.policy.lock().expect("rebuys policy poisoned");
        match commit.events {
            Events::Tournament(e) => policy.on_tournament(t, &e),
            Events::Seating(e) => policy.on_seating(t, sequence, stored, &e),
            Events::Clock(e) => policy.on_clock(t, &e),
            Events::Rebuys(e) => {
                self.offers.apply(t, &e);
                vec![]
            }
            _ => vec![],
        }
    }
}

impl RebuysService {
    /// Reads the log into the policy and the offers, runs what is still owed, and follows on
    /// `tracker`.
    ///
    /// # Errors
    /// When the stream cannot be read.
    pub async fn start(
        backbone: &Backbone,
        clock: Arc<dyn Clock>,
        shutdown: CancellationToken,
        tracker: &TaskTracker,
    ) -> Result<Self, ProjectionError> {
        let filters =
            [subjects::aggregate::TOURNAMENT, subjects::aggregate::SEATING, subjects::aggregate::CLOCK, subjects::aggregate::REBUYS]
                .iter()
                .map(|a| subjects::event_filter(a))
                .collect();
        let policy = Arc::new(Mutex::new(Policy::default()));
        let mut memory = Memory { policy: policy.clone(), offers: Offers::default() };
        let mut owed = Vec::new();
        let following = follow(backbone, filters, |m| owed.extend(memory.fold(m))).await?;
        {
            let policy = policy.lock().expect("rebuys policy poisoned");
            owed.retain(|(t, ..)| !policy.is_over(*t));
        }
        let service = Self { host: AggregateHost::new(JetStreamStore::new(backbone)), policy, clock };
        tracker.spawn(service.clone().run(memory, owed, following, shutdown));
        Ok(service)
    }

    /// Serves players' and directors' requests until `shutdown`; `ready` fires once requests
    /// are being taken.
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

    /// The verbs: a player's rebuy, decline and add-on; the director's end of either period.
    pub fn verbs() -> Verbs<Self> {
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

    /// Runs what is owed, then follows the log: each new commit's orders in log order, and each
    /// offer whose deadline passes lapses.
    async fn run(self, mut memory: Memory, owed: Vec<Order>, mut following: Following, shutdown: CancellationToken) {
        for order in owed {
            if !self.execute(order, &shutdown).await {
                return;
            }
        }
        loop {
            let wake = memory.offers.next_deadline().unwrap_or_else(|| self.clock.now() + chrono::Duration::hours(1));
            let orders = tokio::select! {
                _ = shutdown.cancelled() => return,
                next = following.next() => match next {
                    Some(Ok(message)) => following.guard(&message, || memory.fold(&message)).unwrap_or_default(),
                    Some(Err(e)) => {
                        tracing::warn!(error = %e, "rebuys following the log");
                        continue;
                    }
                    None => return,
                },
                _ = self.clock.sleep_until(wake) => {
                    let now = self.clock.now();
                    memory.offers.lapsed(now).into_iter().map(|(t, entry, until)| {
                        let id = CommandId::derived(&format!("rebuys-lapse:{t}:{}:{}", entry.0, until.timestamp_millis()));
                        (t, id, RebuyCommand::Lapse { entry, until })
                    }).collect()
                }
            };
            for order in orders {
                if !self.execute(order, &shutdown).await {
                    return;
                }
            }
        }
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
                // The stack for an "at or below" condition, as seating last recorded it.
                let stack = {
                    let policy = self.policy.lock().expect("rebuys policy poisoned");
                    policy.stack_of(tournament_id, &who.player, who.entry)
                };
                RebuyCommand::Rebuy { who, stack, at }
            }
            Kind::Decline => RebuyCommand::Decline { who },
            Kind::AddOn => RebuyCommand::AddOn { who, at },
        };
        self.answer(tournament_id, command_id, command).await
    }
}
