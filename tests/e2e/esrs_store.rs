//! `EsrsStore`: esrs's own `AggregateManager` on Floor's JetStream event store (issue 16, "Also
//! fix"), with a tally aggregate small enough to read at a glance. Floor's services use the
//! aggregate host instead; this proves the adapter for code that wants esrs's manager.

use esrs::manager::AggregateManager;
use esrs::{Aggregate, AggregateState};
use floor_events::subjects;
use floor_runtime::store::{EsrsStore, StoreErrorKind, StoredCommit};
use floor_runtime::JetStreamStore;
use serde::{Deserialize, Serialize};

/// Chips counted into a tally; adding nothing is refused. (Also the aggregate of the host's
/// idempotency tests, `idempotency.rs`.)
pub(crate) struct Tally;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Counted {
    Added { chips: u64 },
}

#[derive(Debug)]
pub(crate) struct NothingToAdd;

impl floor_runtime::DomainError for NothingToAdd {
    fn code(&self) -> &'static str {
        "nothing_to_add"
    }
}

impl std::fmt::Display for NothingToAdd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("nothing to add")
    }
}

impl std::error::Error for NothingToAdd {}

impl Aggregate for Tally {
    const NAME: &'static str = "test_tally";
    type State = u64;
    type Command = u64;
    type Event = Counted;
    type Error = NothingToAdd;

    fn handle_command(_total: &u64, chips: u64) -> Result<Vec<Counted>, NothingToAdd> {
        if chips == 0 {
            return Err(NothingToAdd);
        }
        Ok(vec![Counted::Added { chips }])
    }

    fn apply_event(total: u64, Counted::Added { chips }: Counted) -> u64 {
        total + chips
    }
}

fn manager(backbone: &floor_runtime::Backbone) -> AggregateManager<EsrsStore<Tally>> {
    AggregateManager::new(EsrsStore::new(JetStreamStore::new(backbone)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_esrs_aggregate_manager_runs_on_the_jetstream_store() {
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    let (here, elsewhere) = (manager(&backbone), manager(&backbone));
    let new = AggregateState::<u64>::new();
    let id = *new.id();

    // A new aggregate, then one loaded back (by this manager and by another, as another
    // process would).
    let first = here.handle_command(new, 2).await.expect("stored").expect("accepted");
    let loaded = here.load(id).await.expect("loads").expect("exists");
    let second = here.handle_command(loaded, 3).await.expect("stored").expect("accepted");
    let refused = here.handle_command(here.load(id).await.unwrap().unwrap(), 0).await.expect("no store error");
    let seen_elsewhere = elsewhere.load(id).await.expect("loads").expect("exists");

    assert_eq!((first, second), (2, 5));
    assert!(refused.is_err(), "a rejection is the inner error");
    assert_eq!(*seen_elsewhere.inner(), 5);
    assert_eq!(*seen_elsewhere.sequence_number(), 2, "esrs counts events");
    let subject = subjects::event_subject(Tally::NAME, id);
    let log: Vec<StoredCommit<Counted>> = JetStreamStore::new(&backbone).load(&subject, 0).await.expect("log");
    let events: Vec<Counted> = log.into_iter().flat_map(|c| c.events).collect();
    assert_eq!(events, vec![Counted::Added { chips: 2 }, Counted::Added { chips: 3 }], "the rejection wrote nothing");

    // Two writers from the same loaded state: the second is stale and must not be stored.
    let again = elsewhere.handle_command(seen_elsewhere, 10).await.expect("stored").expect("accepted");
    let stale_here = here.load(id).await.unwrap().unwrap();
    let stale_elsewhere_state = elsewhere.load(id).await.unwrap().unwrap();
    here.handle_command(stale_here, 1).await.expect("stored").expect("accepted");
    let conflict = elsewhere.handle_command(stale_elsewhere_state, 100).await.expect_err("stale across processes");
    let lost_update = {
        let (a, b) = (here.load(id).await.unwrap().unwrap(), here.load(id).await.unwrap().unwrap());
        here.handle_command(a, 20).await.expect("stored").expect("accepted");
        here.handle_command(b, 1_000).await
    };

    assert_eq!(again, 15);
    assert_eq!(conflict.kind(), StoreErrorKind::WrongLastSequence);
    assert!(
        matches!(&lost_update, Err(e) if e.kind() == StoreErrorKind::WrongLastSequence),
        "a stale state in the same process is refused too, not stored over newer commits: {lost_update:?}"
    );
    assert_eq!(*here.load(id).await.unwrap().unwrap().inner(), 2 + 3 + 10 + 1 + 20, "every accepted command, once");

    // Locking serialises writers in one process; the log is append-only.
    let locked = here.lock_and_load(id).await.expect("locks and loads");
    assert!(locked.is_some(), "exists");
    let state = locked.unwrap();
    assert_eq!(here.handle_command(state, 4).await.expect("stored").expect("accepted"), 40);
    assert!(here.delete(id).await.is_err(), "nothing is ever deleted from the log");
}
