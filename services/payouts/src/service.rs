//! Wiring: the policy follows the log and drives the payouts aggregates; the same reading keeps
//! every tournament's books in memory for the `floor.cmd.payouts.books` endpoint.
//!
//! The policy's memory and the books are one value run by [`PolicyRunner`]: stored as a snapshot
//! with the sequence it has read up to (once every payouts command it called for is stored), so
//! a restart reads the snapshot and the commits after it, and runs again only their commands.
//! Those carry ids derived from the commit they come from: a command the aggregate already has
//! is answered from its history without a second event. Paid tournaments are skipped.

use crate::domain::PayoutsAggregate;
use crate::policy::{Order, Policy};
use crate::projection::BooksView;
use floor_events::commit::Events;
use floor_events::payouts::{verbs, Books, BooksRequest};
use floor_events::{codes, subjects, ErrorBody, Reply, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::commits;
use floor_runtime::endpoint::{EndpointError, Verbs};
use floor_runtime::policy::{PolicyConfig, PolicyRunner, Stored};
use floor_runtime::projection::ProjectionError;
use floor_runtime::{AggregateHost, JetStreamStore};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Wait before trying a command again after the store failed.
const RETRY: Duration = Duration::from_millis(500);

/// How long a `books` request waits for the view to reach the log as it was when asked.
const BOOKS_WAIT: Duration = Duration::from_secs(5);

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "payouts-policy";

/// The shape of [`Memory`] in snapshots: change it whenever that shape or meaning changes.
const MEMORY_VERSION: &str = "payouts-2";

/// The payouts service. Cheap to clone.
#[derive(Clone)]
pub struct PayoutsService {
    store: JetStreamStore,
    books: SharedBooks,
}

/// The books view, shared by the task that follows the log and the endpoint.
#[derive(Clone)]
struct SharedBooks {
    memory: Arc<Mutex<Memory>>,
    /// The last stream sequence folded into the view.
    folded: watch::Receiver<u64>,
}

/// What the payouts service folds from the log: the policy's memory and the books.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// The policy.
    pub policy: Policy,
    /// Every tournament's books.
    pub books: BooksView,
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

impl PayoutsService {
    /// Reads the log into the policy, runs what it still owes, and follows on `tracker`.
    ///
    /// # Errors
    /// When the stream cannot be read.
    pub async fn start(backbone: &Backbone, shutdown: CancellationToken, tracker: &TaskTracker) -> Result<Self, ProjectionError> {
        Self::start_with(backbone, policy_config(), shutdown, tracker).await
    }

    /// [`PayoutsService::start`] with the policy's snapshot cadence given (tests).
    ///
    /// # Errors
    /// When the stream cannot be read.
    pub async fn start_with(
        backbone: &Backbone,
        config: PolicyConfig,
        shutdown: CancellationToken,
        tracker: &TaskTracker,
    ) -> Result<Self, ProjectionError> {
        let mut started = PolicyRunner::<Memory>::start(backbone, config).await?;
        let memory = started.runner.memory();
        {
            // Orders for tournaments paid later in the log are done already.
            let memory = memory.lock().unwrap_or_else(PoisonError::into_inner);
            started.owed.retain(|(t, ..)| !memory.policy.is_paid(*t));
        }
        let (folded, folded_rx) = watch::channel(started.runner.folded());
        let store = JetStreamStore::new(backbone);
        let host = AggregateHost::<PayoutsAggregate>::new(store.clone());
        tracker.spawn(run(host, started.runner, started.owed, folded, shutdown));
        Ok(Self { store, books: SharedBooks { memory, folded: folded_rx } })
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
        Self::verbs().serve(self, client, shutdown, ready).await
    }

    /// The verbs: `books`.
    pub fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::PAYOUTS)
            .verb(verbs::BOOKS, |payouts: Self, request: BooksRequest| async move { payouts.books(request.tournament_id).await })
    }

    /// The books of a tournament, from the view once it has read as far as the log went on
    /// the tournament's subjects when asked.
    async fn books(&self, tournament_id: TournamentId) -> Reply<Books> {
        let [registration, purchases, payouts, bounties] =
            [subjects::aggregate::TOURNAMENT, subjects::aggregate::REBUYS, subjects::aggregate::PAYOUTS, subjects::aggregate::BOUNTIES]
                .map(|aggregate| subjects::event_subject(aggregate, tournament_id.0));
        let last = tokio::try_join!(
            self.store.last_sequence(&registration),
            self.store.last_sequence(&purchases),
            self.store.last_sequence(&payouts),
            self.store.last_sequence(&bounties),
        );
        let (registration, purchases, payouts, bounties) = match last {
            Ok(last) => last,
            Err(e) => return Reply::Error(ErrorBody::new(codes::UNAVAILABLE, e.to_string())),
        };
        if registration == 0 {
            return Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("no tournament {tournament_id}")));
        }
        let needed = registration.max(purchases).max(payouts).max(bounties);
        let mut folded = self.books.folded.clone();
        if tokio::time::timeout(BOOKS_WAIT, folded.wait_for(|&f| f >= needed)).await.is_err() {
            let at = *folded.borrow();
            let message = format!("payouts is still reading the log (at sequence {at}, these books need {needed}); ask again shortly");
            return Reply::Error(ErrorBody::new(codes::UNAVAILABLE, message));
        }
        let books = self.books.memory.lock().unwrap_or_else(PoisonError::into_inner).books.books(tournament_id);
        match books {
            Some(books) => Reply::Ok(books),
            None => Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("no tournament {tournament_id}"))),
        }
    }
}

impl floor_runtime::policy::Policy for Memory {
    type Order = Order;

    /// Folds one commit into the books and the policy; returns the commands the policy calls for.
    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commits::decode("payouts", commit.subject, commit.sequence, commit.body) else { return vec![] };
        let t = decoded.tournament();
        let (policy, books) = (&mut self.policy, &mut self.books);
        match decoded.events {
            Events::Tournament(e) => {
                books.on_tournament(t, &e);
                policy.on_tournament(t, &e)
            }
            Events::Clock(e) => policy.on_clock(t, &e),
            Events::Seating(e) => policy.on_seating(t, commit.sequence, &e),
            Events::Rebuys(e) => {
                books.on_rebuys(t, &e);
                policy.on_rebuys(t, &e)
            }
            Events::Payouts(e) => {
                books.on_payouts(t, &e);
                policy.on_payouts(t, &e);
                vec![]
            }
            Events::Bounties(e) => {
                books.on_bounties(t, &e);
                vec![]
            }
            _ => vec![],
        }
    }
}

/// Runs what is owed, then each new commit's orders in log order ([`PolicyRunner::drive`]);
/// `folded` tells the books' readers how far the log is folded.
async fn run(
    host: AggregateHost<PayoutsAggregate>,
    runner: PolicyRunner<Memory>,
    owed: Vec<Order>,
    folded: watch::Sender<u64>,
    shutdown: CancellationToken,
) {
    let folded = |sequence| {
        folded.send_replace(sequence);
    };
    runner.drive(owed, &shutdown, folded, |order| execute(&host, order, &shutdown)).await;
}

/// Runs one order until the store takes it. `false` on shutdown.
async fn execute(host: &AggregateHost<PayoutsAggregate>, (tournament, command_id, command): Order, shutdown: &CancellationToken) -> bool {
    host.execute_reaction(tournament.0, command_id, command, RETRY, shutdown).await
}
