//! Issue 34: the log's shape is checked. A stream given a limit or an age, or a
//! deleted bucket makes every process refuse to start on the store (`StoreChanged`, naming what
//! changed) and `floor status` unhealthy; a store as Floor made it has no difference.

use floor_events::subjects;
use floor_runtime::bootstrap::{self, BootstrapErrorKind};
use floor_runtime::shape;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_changed_behind_floors_back_is_refused_at_start_and_named() {
    let (nats, backbone) = floor_tests::backbone_alone().await;
    let found = shape::observe(&backbone.jetstream, &shape::expected()).await.expect("observe");
    assert!(found.is_empty(), "as Floor made it: {found:?}");

    // As a stranger with stream rights did in issue 34: keep ten events, for an hour. (The
    // server itself refuses to lift deny_delete once set.)
    let mut config = backbone.jetstream.get_stream(subjects::EVENTS_STREAM).await.expect("stream").cached_info().config.clone();
    (config.max_messages, config.max_age) = (10, std::time::Duration::from_secs(3_600));
    backbone.jetstream.update_stream(config).await.expect("the server takes it");
    backbone.jetstream.delete_key_value(subjects::HEALTH_BUCKET).await.expect("and deletes a bucket");

    let found = shape::observe(&backbone.jetstream, &shape::expected()).await.expect("observe");
    assert!(found.iter().any(|d| d.contains("FLOOR_EVENTS: max_msgs is 10")), "{found:?}");
    assert!(found.iter().any(|d| d.contains("FLOOR_EVENTS: max_age is 3600s")), "{found:?}");
    assert!(found.iter().any(|d| d == "KV_floor-health: missing (deleted?)"), "{found:?}");

    let client = bootstrap::connect(&nats.url()).await.expect("connect");
    let e = bootstrap::ensure_backbone(client).await.err().expect("refused");
    assert_eq!(e.kind(), BootstrapErrorKind::StoreChanged, "{e}");
    assert!(e.to_string().contains("FLOOR_EVENTS: max_msgs is 10"), "{e}");
}
