//! Regression: a service that says "ready" must be reachable at once. async-nats's `flush` is
//! not a server round trip, so a request right after `subscribe` + `flush` on another connection
//! got "no responders" about one time in twenty; `sync_with_server` is.

use floor_runtime::bootstrap::sync_with_server;
use floor_runtime::NatsServer;
use futures::StreamExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_is_reachable_as_soon_as_sync_with_server_returns() {
    let nats = NatsServer::start_temp().expect("nats-server");
    let requester = async_nats::connect(nats.url()).await.expect("connect");
    let mut no_responders = 0;
    for i in 0..200 {
        let responder = async_nats::connect(nats.url()).await.expect("connect");
        let subject = format!("readiness.{i}");
        let mut requests = responder.subscribe(subject.clone()).await.expect("subscribe");
        sync_with_server(&responder).await.expect("sync");
        let answer = tokio::spawn(async move {
            if let Some(request) = requests.next().await {
                let _ = responder.publish(request.reply.expect("reply subject"), "pong".into()).await;
                // Empty the local buffer before the connection is dropped.
                let _ = responder.flush().await;
            }
        });
        if let Err(e) = requester.request(subject, "ping".into()).await {
            assert_eq!(e.kind(), async_nats::RequestErrorKind::NoResponders, "unexpected error {e}");
            no_responders += 1;
        }
        answer.await.ok();
    }
    assert_eq!(no_responders, 0, "requests that found nobody subscribed");
}
