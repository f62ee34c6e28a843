//! Wiring: the policy follows the log and drives the payouts aggregates; the same reading keeps
//! every tournament's books in memory for the `floor.cmd.payouts.books` endpoint.
//!
//! The policy keeps its memory only in the process (rebuilt from the log at every start, like
//! the scheduler's plan): commands carry ids derived from the commit they come from, so reading
//! the log again after a crash re-sends commands the aggregate already has, and it answers them
//! from its history without a second event. Paid tournaments are skipped.

use crate::domain::PayoutsAggregate;
use crate::policy::{Order, Policy};
use crate::projection::BooksView;
use floor_events::commit::Events;
use floor_events::payouts::{verbs, Books, BooksRequest};
use floor_events::{codes, subjects, ErrorBody, Reply, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::commits;
use floor_runtime::endpoint::{EndpointError, Verbs};
use floor_runtime::follow::{follow, Following};
use floor_runtime::projection::ProjectionError;
use floor_runtime::{AggregateHost, JetStreamStore};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Wait before trying a command again after the store failed.
const RETRY: Duration = Duration::from_millis(500);

/// How long a `books` request waits for the view to reach the log as it was when asked.
const BOOKS_WAIT: Duration = Duration::from_secs(5);

/// The payouts service. Cheap to clone.
#[derive(Clone)]
pub struct PayoutsService {
    store: JetStreamStore,
    books: SharedBooks,
}

/// The books view, shared by the task that follows the log and the endpoint.
#[derive(Clone)]
struct SharedBooks {
    view: Arc<Mutex<BooksView>>,
    /// The last stream sequence folded into the view.
    folded: watch::Receiver<u64>,
}

/// The follower's side of [`SharedBooks`]: folds each commit, then says how far it has read.
struct Reader {
    policy: Policy,
    view: Arc<Mutex<BooksView>>,
    folded: watch::Sender<u64>,
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
        let view = Arc::new(Mutex::new(BooksView::default()));
        let (folded, folded_rx) = watch::channel(0);
        let mut reader = Reader { policy: Policy::default(), view: view.clone(), folded };
        let mut owed = Vec::new();
        let following = follow(backbone, filters, |m| owed.extend(reader.fold(m))).await?;
        // Orders for tournaments paid later in the log are done already.
        owed.retain(|(t, ..)| !reader.policy.is_paid(*t));
        let store = JetStreamStore::new(backbone);
        let host = AggregateHost::<PayoutsAggregate>::new(store.clone());
        tracker.spawn(run(host, reader, owed, following, shutdown));
        Ok(Self { store, books: SharedBooks { view, folded: folded_rx } })
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
        let [registration, purchases, payouts] =
            [subjects::aggregate::TOURNAMENT, subjects::aggregate::REBUYS, subjects::aggregate::PAYOUTS]
                .map(|aggregate| subjects::event_subject(aggregate, tournament_id.0));
        let last = tokio::try_join!(
            self.store.last_sequence(&registration),
            self.store.last_sequence(&purchases),
            self.store.last_sequence(&payouts),
        );
        let (registration, purchases, payouts) = match last {
            Ok(last) => last,
            Err(e) => return Reply::Error(ErrorBody::new(codes::UNAVAILABLE, e.to_string())),
        };
        if registration == 0 {
            return Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("no tournament {tournament_id}")));
        }
        let needed = registration.max(purchases).max(payouts);
        let mut folded = self.books.folded.clone();
        if tokio::time::timeout(BOOKS_WAIT, folded.wait_for(|&f| f >= needed)).await.is_err() {
            let at = *folded.borrow();
            let message = format!("payouts is still reading the log (at sequence {at}, these books need {needed}); ask again shortly");
            return Reply::Error(ErrorBody::new(codes::UNAVAILABLE, message));
        }
        let books = self.books.view.lock().expect("books view lock").books(tournament_id);
        match books {
            Some(books) => Reply::Ok(books),
            None => Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("no tournament {tournament_id}"))),
        }
    }
}

impl Reader {
    /// Folds one commit into the books and the policy; returns the commands the policy calls for.
    fn fold(&mut self, message: &async_nats::jetstream::Message) -> Vec<Order> {
        let sequence = message.info().map(|i| i.stream_sequence).unwrap_or(0);
        let orders = self.fold_commit(&message.subject, sequence, &message.payload);
        self.folded.send_replace(sequence);
        orders
    }

    fn fold_commit(&mut self, subject: &str, sequence: u64, body: &[u8]) -> Vec<Order> {
        let Some(commit) = commits::decode("payouts", subject, sequence, body) else { return vec![] };
        let t = commit.tournament();
        let (policy, view) = (&mut self.policy, &self.view);
        let books = || view.lock().expect("books view lock");
        match commit.events {
            Events::Tournament(e) => {
                books().on_tournament(t, &e);
                policy.on_tournament(t, &e)
            }
            Events::Clock(e) => policy.on_clock(t, &e),
            Events::Seating(e) => policy.on_seating(t, sequence, &e),
            Events::Rebuys(e) => {
                books().on_rebuys(t, &e);
                policy.on_rebuys(t, &e)
            }
            Events::Payouts(e) => {
                books().on_payouts(t, &e);
                policy.on_payouts(t, &e);
                vec![]
            }
            _ => vec![],
        }
    }
}

/// Runs what is owed, then follows the log, running each new order in log order.
async fn run(
    host: AggregateHost<PayoutsAggregate>,
    mut reader: Reader,
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
        for order in following.guard(&message, || reader.fold(&message)).unwrap_or_default() {
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
