//! Many clients at once: capacity holds, retries apply once, racing writers never both win.

use floor_events::payouts::{verbs as payouts, BooksRequest};
use floor_events::registration::TournamentEvent;
use floor_events::{codes, subjects, CommandId, Reply};
use floor_runtime::store::StoreErrorKind;
use floor_runtime::JetStreamStore;
use floor_tests::{freezeout, RunningPlatform, World};
use futures::future::join_all;

fn entries(commits: &[floor_runtime::store::StoredCommit<TournamentEvent>]) -> usize {
    commits.iter().flat_map(|c| &c.events).filter(|e| matches!(e, TournamentEvent::EntryRegistered(_))).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_registrations_fill_the_field_and_never_exceed_it() {
    let world = World::start().await;
    let tournament = world.create(freezeout(700)).await;

    let replies = join_all((0..1_000).map(|i| world.register(tournament, format!("player{i:04}")))).await;

    let accepted = replies.iter().filter(|r| matches!(r, Reply::Ok(_))).count();
    let full = replies.iter().filter(|r| matches!(r, Reply::Error(e) if e.code == codes::FIELD_FULL)).count();
    assert_eq!((accepted, full), (700, 300), "every request is either accepted or refused as full");
    let commits = world.commits(tournament).await;
    assert_eq!(entries(&commits), 700, "exactly the accepted registrations are in the log");
    // Payouts answers books from memory, but never older than the log when asked.
    let books = world.request(subjects::service::PAYOUTS, payouts::BOOKS.name(), &BooksRequest { tournament_id: tournament }).await;
    let Reply::Ok(books) = books else { panic!("books: {books:?}") };
    assert_eq!((books["entries"].as_u64(), books["paid_in"].as_u64()), (Some(700), Some(700 * 1_100)), "{books}");
    let doc = world.lobby_when(tournament, |d| d["entrants"] == 700).await;
    assert_eq!(doc["unique_players"], 700);
    assert_eq!(doc["books"]["paid_in"]["amount"], 700 * 1_100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_command_is_applied_once_even_after_a_restart() {
    let mut world = World::start().await;
    let mut definition = freezeout(10);
    definition.entry_model = floor_events::tournament::EntryModel::MultiEntry { max_live_entries: 5 };
    let tournament = world.create(definition).await;
    let command_id = CommandId::new();

    let first = world.register_as(command_id, tournament, "alice").await;
    let again = world.register_as(command_id, tournament, "alice").await;
    world.restart_platform().await;
    let after_restart = world.register_as(command_id, tournament, "alice").await;

    let Reply::Ok(first) = first else { panic!("first registration rejected: {first:?}") };
    assert_eq!(again, Reply::Ok(first.clone()), "a retry answers with the original entry");
    assert_eq!(after_restart, Reply::Ok(first), "so does a retry after a restart");
    assert_eq!(entries(&world.commits(tournament).await), 1, "multi-entry would allow more: the command id stopped it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_writers_racing_on_one_aggregate_never_both_win() {
    let world = World::start().await;
    let tournament = world.create(freezeout(10)).await;
    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, tournament.0);
    let store = JetStreamStore::new(&world.backbone);
    let last = store.last_sequence(&subject).await.unwrap();
    let event: Vec<TournamentEvent> = Vec::new();

    let (a, b) =
        tokio::join!(store.append(&subject, CommandId::new(), last, &event), store.append(&subject, CommandId::new(), last, &event));

    let outcomes = [a.map(|_| ()).map_err(|e| e.kind()), b.map(|_| ()).map_err(|e| e.kind())];
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1, "{outcomes:?}");
    assert!(outcomes.contains(&Err(StoreErrorKind::WrongLastSequence)), "the loser is told to reload: {outcomes:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_service_instances_racing_for_the_last_seat_seat_one_player() {
    let world = World::start().await;
    let second = RunningPlatform::start_with(world.joined(), false).await;
    let mut results = Vec::new();
    for round in 0..20 {
        let tournament = world.create(freezeout(2)).await;
        assert!(matches!(world.register(tournament, "first").await, Reply::Ok(_)));
        // Both instances serve the same queue group; concurrent requests land on either.
        let racers = join_all((0..8).map(|i| world.register(tournament, format!("racer{round}-{i}")))).await;
        let won = racers.iter().filter(|r| matches!(r, Reply::Ok(_))).count();
        results.push(won);
        assert_eq!(entries(&world.commits(tournament).await), 2, "round {round}: capacity 2 holds");
    }
    assert!(results.iter().all(|&w| w == 1), "exactly one racer wins each round: {results:?}");
    second.stop().await;
}

/// A reader of the log (seating's outbox) can see a commit the moment it is stored, before the
/// command that stored it has finished what it does after (seating sends the commit's table
/// instructions in `execute_then`'s `then`). `quiet` is how that reader waits for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_returns_only_once_the_command_that_stored_a_commit_has_finished_with_it() {
    use floor_registration::{TournamentAggregate, TournamentCommand};
    use floor_runtime::AggregateHost;
    use futures::{FutureExt, StreamExt};
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    let host = AggregateHost::<TournamentAggregate>::new(JetStreamStore::new(&backbone));
    let id = floor_events::TournamentId::new();
    assert!(host.quiet(id.0).now_or_never().is_some(), "no command ever ran on it: at once");
    let mut stored = backbone.client.subscribe(subjects::event_subject(subjects::aggregate::TOURNAMENT, id.0)).await.expect("subscribe");
    floor_runtime::bootstrap::sync_with_server(&backbone.client).await.expect("subscribed");

    let (finish, finished) = tokio::sync::oneshot::channel::<()>();
    let create = TournamentCommand::Create { tournament_id: id, definition: Box::new(freezeout(10)), at: chrono::Utc::now() };
    let running = tokio::spawn({
        let host = host.clone();
        async move { host.execute_then(id.0, CommandId::new(), create, |_| finished.map(|_| "sent")).await }
    });
    stored.next().await.expect("the commit is stored");
    let mut quiet = Box::pin(host.quiet(id.0));
    assert!(quiet.as_mut().now_or_never().is_none(), "the command that stored the commit is still finishing with it");
    finish.send(()).expect("the command waits");
    quiet.await;
    let (outcome, after) = running.await.expect("command task");
    assert!(matches!(outcome, Ok(Ok(_))), "{outcome:?}");
    assert_eq!(after, Some("sent"));
}
