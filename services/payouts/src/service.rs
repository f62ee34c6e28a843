//! Wiring: the policy follows the log and drives the payouts aggregates; the
//! `floor.cmd.payouts.books` endpoint sums a tournament's books from its log on request.
//!
//! The policy keeps its memory only in the process (rebuilt from the log at every start, like
//! the scheduler's plan): commands carry ids derived from the commit they come from, so reading
//! the log again after a crash re-sends commands the aggregate already has, and it answers them
//! from its history without a second event. Paid tournaments are skipped.

use crate::books::books;
use crate::domain::PayoutsAggregate;
use crate::policy::{Order, Policy};
use bytes::Bytes;
use floor_events::clock::ClockEvent;
use floor_events::payouts::{verbs, BooksRequest, PayoutEvent};
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::TournamentEvent;
use floor_events::seating::SeatingEvent;
use floor_events::{codes, record, subjects, ErrorBody, Reply, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::endpoint::{self, CommandHandler, EndpointError};
use floor_runtime::follow::{follow, Following};
use floor_runtime::projection::ProjectionError;
use floor_runtime::store::StoredCommit;
use floor_runtime::{AggregateHost, JetStreamStore};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Wait before trying a command again after the store failed.
const RETRY: Duration = Duration::from_millis(500);

/// The payouts service. Cheap to clone.
#[derive(Clone)]
pub struct PayoutsService {
    store: JetStreamStore,
}

impl PayoutsService {
    /// Reads the log into the policy, runs what it still owes, and follows on `tracker`.
    ///
    /// # Errors
    /// When the stream cannot be read.
    pub async fn start(backbone: &Backbone, shutdown: CancellationToken, tracker: &TaskTracker) -> Result<Self, ProjectionError> {
        let filters = [
            subjects::aggregate::TOURNAMENT,
            subjects::aggregate::CLOCK,
            subjects::aggregate::SEATING,
            subjects::aggregate::REBUYS,
            subjects::aggregate::PAYOUTS,
        ]
        .iter()
        .map(|a| subjects::event_filter(a))
        .collect();
        let mut policy = Policy::default();
        let mut owed = Vec::new();
        let following = follow(backbone, filters, |m| {
            let sequence = m.info().map(|i| i.stream_sequence).unwrap_or(0);
            owed.extend(fold(&mut policy, &m.subject, sequence, &m.payload));
        })
        .await?;
        // Orders for tournaments paid later in the log are done already.
        owed.retain(|(t, ..)| !policy.is_paid(*t));
        let store = JetStreamStore::new(backbone);
        let host = AggregateHost::<PayoutsAggregate>::new(store.clone());
        tracker.spawn(run(host, policy, owed, following, shutdown));
        Ok(Self { store })
    }

    /// Serves the books until `shutdown`; `ready` fires once requests are being taken.
    ///
    /// # Errors
    /// When the endpoint cannot be registered.
    pub async fn serve(
        self,
        client: async_nats::Client,
        shutdown: CancellationToken,
        ready: Option<tokio::sync::oneshot::Sender<()>>,
    ) -> Result<(), EndpointError> {
        let description = "Floor payouts: payout tables, places, prizes and books";
        endpoint::serve(client, subjects::service::PAYOUTS, description, &verbs::ALL, self, shutdown, ready).await
    }

    /// The books of a tournament, from its log.
    async fn books(&self, tournament_id: TournamentId) -> Reply<floor_events::payouts::Books> {
        let load = |aggregate| subjects::event_subject(aggregate, tournament_id.0);
        let registration: Vec<StoredCommit<TournamentEvent>> = match self.store.load(&load(subjects::aggregate::TOURNAMENT), 0).await {
            Ok(commits) => commits,
            Err(e) => return Reply::Error(ErrorBody::new(codes::UNAVAILABLE, e.to_string())),
        };
        if registration.is_empty() {
            return Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("no tournament {tournament_id}")));
        }
        let purchases: Vec<StoredCommit<RebuyEvent>> = match self.store.load(&load(subjects::aggregate::REBUYS), 0).await {
            Ok(commits) => commits,
            Err(e) => return Reply::Error(ErrorBody::new(codes::UNAVAILABLE, e.to_string())),
        };
        let payouts: Vec<StoredCommit<PayoutEvent>> = match self.store.load(&load(subjects::aggregate::PAYOUTS), 0).await {
            Ok(commits) => commits,
            Err(e) => return Reply::Error(ErrorBody::new(codes::UNAVAILABLE, e.to_string())),
        };
        Reply::Ok(books(
            tournament_id,
            registration.iter().flat_map(|c| &c.events),
            purchases.iter().flat_map(|c| &c.events),
            payouts.iter().flat_map(|c| &c.events),
        ))
    }
}

/// Folds one commit into the policy; returns the commands it calls for.
fn fold(policy: &mut Policy, subject: &str, sequence: u64, body: &[u8]) -> Vec<Order> {
    let Some((aggregate, id)) = subjects::parse_event_subject(subject) else { return vec![] };
    let t = TournamentId(id);
    let folded = match aggregate {
        subjects::aggregate::TOURNAMENT => record::decode_commit::<TournamentEvent>(body).map(|e| policy.on_tournament(t, &e)),
        subjects::aggregate::CLOCK => record::decode_commit::<ClockEvent>(body).map(|e| policy.on_clock(t, &e)),
        subjects::aggregate::SEATING => record::decode_commit::<SeatingEvent>(body).map(|e| policy.on_seating(t, sequence, &e)),
        subjects::aggregate::REBUYS => record::decode_commit::<RebuyEvent>(body).map(|e| policy.on_rebuys(t, &e)),
        subjects::aggregate::PAYOUTS => record::decode_commit::<PayoutEvent>(body).map(|e| {
            policy.on_payouts(t, &e);
            vec![]
        }),
        _ => Ok(vec![]),
    };
    folded.unwrap_or_else(|e| {
        tracing::warn!(subject, sequence, error = %e, "payouts skipped an undecodable commit");
        vec![]
    })
}

/// Runs what is owed, then follows the log, running each new order in log order.
async fn run(
    host: AggregateHost<PayoutsAggregate>,
    mut policy: Policy,
    owed: Vec<Order>,
    mut following: Following,
    shutdown: CancellationToken,
) {
    for order in owed {
        if !execute(&host, order, &shutdown).await {
            return;
        }
    }
    loop {
        let message = tokio::select! {
            _ = shutdown.cancelled() => return,
            next = following.next() => match next {
                Some(Ok(message)) => message,
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "payouts following the log");
                    continue;
                }
                None => return,
            },
        };
        let sequence = message.info().map(|i| i.stream_sequence).unwrap_or(0);
        for order in fold(&mut policy, &message.subject, sequence, &message.payload) {
            if !execute(&host, order, &shutdown).await {
                return;
            }
        }
    }
}

/// Runs one order until the store takes it. `false` on shutdown.
async fn execute(host: &AggregateHost<PayoutsAggregate>, (tournament, command_id, command): Order, shutdown: &CancellationToken) -> bool {
    host.execute_reaction(tournament.0, command_id, command, RETRY, shutdown).await
}

impl CommandHandler for PayoutsService {
    async fn handle(&self, verb: &'static str, payload: Bytes) -> Bytes {
        match verb {
            verbs::BOOKS => match endpoint::decode::<BooksRequest>(&payload) {
                Ok(request) => endpoint::encode(&self.books(request.tournament_id).await),
                Err(e) => endpoint::encode::<()>(&Reply::Error(e)),
            },
            other => endpoint::encode::<()>(&Reply::Error(ErrorBody::new(codes::UNKNOWN_VERB, format!("no verb {other:?}")))),
        }
    }
}
