//! The service skeleton: commands one service sends another check the answer's code, and what
//! failed is sent again on a timer, not when the next commit happens to arrive.

use floor_events::registration::verbs;
use floor_events::seating::SeatingEvent;
use floor_events::{subjects, CommandId, EntryNo, TournamentId};
use floor_runtime::shell::{Context, Service};
use floor_runtime::JetStreamStore;
use floor_seating::service::SeatingService;
use floor_tests::backbone_alone;
use futures::StreamExt;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Issue 16 ("Also fix") and issue 18 (1): registration answering `unavailable` must not count as
/// the elimination recorded, and the outbox must send it again by itself, late in a tournament
/// when no further commit comes to wake it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elimination_answered_unavailable_is_sent_again_until_registration_records_it() {
    let (_nats, backbone) = backbone_alone().await;
    // Registration stands in: the first answer is `unavailable`, the second records it.
    let mut eliminations = backbone.client.subscribe(verbs::ELIMINATE_ENTRY.subject()).await.expect("subscribe");
    let (shutdown, tracker) = (CancellationToken::new(), TaskTracker::new());
    let cx = Context { seed_key: Some([7; 32]), ..Context::new(&backbone, shutdown.clone(), &tracker) };
    SeatingService::start(&cx).await.expect("seating starts");

    let tournament = TournamentId::new();
    let busted = SeatingEvent::EntryEliminated { entry: EntryNo(3), players_left: 5, stack_at_start: None, table: None };
    let subject = subjects::event_subject(subjects::aggregate::SEATING, tournament.0);
    JetStreamStore::new(&backbone).append(&subject, CommandId::new(), 0, &[busted]).await.expect("the bust is stored");

    let first = next(&mut eliminations, "the outbox's first try").await;
    let reply = br#"{"error":{"code":"unavailable","message":"the event store is down"}}"#;
    backbone.client.publish(first.reply.clone().expect("a request"), reply.as_slice().into()).await.expect("answer");
    let again = next(&mut eliminations, "the retry, with no new commit to wake the outbox").await;
    assert_eq!(again.payload, first.payload, "the same command, so registration applies it once");
    let recorded = br#"{"ok":{"events":[]}}"#;
    backbone.client.publish(again.reply.clone().expect("a request"), recorded.as_slice().into()).await.expect("answer");
    backbone.client.flush().await.expect("flush");

    shutdown.cancel();
    tracker.close();
    tracker.wait().await;
}

async fn next(requests: &mut async_nats::Subscriber, what: &str) -> async_nats::Message {
    let next = tokio::time::timeout(Duration::from_secs(20), requests.next()).await;
    next.unwrap_or_else(|_| panic!("{what}: no eliminate_entry request within 20 s")).expect("subscription open")
}
