//! Crashes and rebuilds: nothing acknowledged is lost, and any view can be rebuilt from the log.

use floor_events::registration::TournamentEvent;
use floor_events::{codes, Reply};
use floor_lobby::LobbyProjection;
use floor_runtime::projection::ProjectionRunner;
use floor_tests::{freezeout, World};
use futures::stream::{FuturesUnordered, StreamExt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_services_mid_stream_loses_nothing_acknowledged() {
    let mut world = World::start().await;
    let tournaments = [world.create(freezeout(1_000)).await, world.create(freezeout(1_000)).await];
    let mut in_flight: FuturesUnordered<_> = (0..600)
        .map(|i| {
            let tournament = tournaments[i % 2];
            let world = &world;
            async move { (tournament, format!("p{i}"), world.register(tournament, &format!("p{i}")).await) }
        })
        .collect();
    // Let some registrations be acknowledged, then crash the services with the rest in flight.
    let mut acknowledged = Vec::new();
    while let Some((tournament, player, reply)) = in_flight.next().await {
        if let Reply::Ok(_) = reply {
            acknowledged.push((tournament, player));
        }
        if acknowledged.len() == 150 {
            break;
        }
    }
    drop(in_flight);
    world.kill_platform();
    world.restart_platform().await;

    for (tournament, player) in &acknowledged {
        match world.register(*tournament, player).await {
            Reply::Error(e) => {
                assert_eq!(e.code, codes::ALREADY_REGISTERED, "{player} was acknowledged, so the restarted service knows them")
            }
            Reply::Ok(v) => panic!("{player} was acknowledged before the crash but registered again: {v}"),
        }
    }
    for tournament in tournaments {
        let in_log = world
            .commits(tournament)
            .await
            .iter()
            .flat_map(|c| c.events.clone())
            .filter(|e| matches!(e, TournamentEvent::EntryRegistered(_)))
            .count();
        let acked = acknowledged.iter().filter(|(t, _)| *t == tournament).count();
        assert!(in_log >= acked, "log has {in_log} entries, {acked} were acknowledged");
        let doc = world.lobby_when(tournament, |d| d["entrants"] == in_log).await;
        assert_eq!(doc["unique_players"], in_log, "the lobby after the restart matches the log");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_projection_dropped_and_rebuilt_from_zero_equals_the_live_one() {
    let world = World::start().await;
    let mut ids = Vec::new();
    for capacity in [50, 80, 120] {
        let tournament = world.create(freezeout(capacity)).await;
        for i in 0..60 {
            let _ = world.register(tournament, &format!("p{i}")).await;
        }
        ids.push((tournament, capacity.min(60)));
    }
    let _ = world
        .send(floor_events::registration::verbs::UNREGISTER.name(), &serde_json::json!({"tournament_id": ids[0].0, "player": "p3"}))
        .await;
    for &(tournament, _) in &ids[1..] {
        let _ = world.lobby_when(tournament, |d| d["entrants"] == 60).await;
    }
    let _ = world.lobby_when(ids[0].0, |d| d["entrants"] == 49).await;
    let live = world.lobby_documents().await;

    let mut runner = ProjectionRunner::new(&world.backbone, LobbyProjection::load(&world.backbone).await.unwrap()).await.unwrap();
    let replayed = runner.rebuild().await.unwrap();

    assert!(replayed >= 3 + 169, "every tournament commit was replayed ({replayed})");
    let rebuilt = world.lobby_documents().await;
    assert_eq!(rebuilt, live, "the rebuilt lobby equals the live one, document for document");
}

/// Counts the commits on its own subjects; stores nothing.
struct Counting(u64);

impl floor_runtime::projection::Projection for Counting {
    fn name(&self) -> &'static str {
        "test-counting"
    }

    fn filters(&self) -> Vec<String> {
        vec!["floor.ev.counted.*".into()]
    }

    fn apply(&mut self, _commit: floor_runtime::commits::Stored<'_>) {
        self.0 += 1;
    }

    async fn flush(&mut self) -> Result<(), floor_runtime::projection::ProjectionError> {
        Ok(())
    }

    async fn reset(&mut self) -> Result<(), floor_runtime::projection::ProjectionError> {
        self.0 = 0;
        Ok(())
    }
}

/// nats-server acknowledges a publish before it tells the stream's consumers, so a consumer can
/// look idle while the store already holds a commit its writer has the ack for. A catch-up
/// must not stop there: every commit stored before the call is applied when it returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catch_up_applies_every_commit_stored_before_it_even_one_stored_a_moment_ago() {
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    let mut runner = ProjectionRunner::new(&backbone, Counting(0)).await.expect("runner");
    runner.catch_up().await.expect("caught up on nothing");
    let subject = floor_events::subjects::event_subject("counted", uuid::Uuid::new_v4());
    for stored in 1..=300u64 {
        let ack = backbone.jetstream.publish(subject.clone(), r#"[{"v":1,"type":"counted"}]"#.into()).await.expect("publish");
        let sequence = ack.await.expect("stored").sequence;
        let checkpoint = runner.catch_up().await.expect("caught up");
        assert_eq!(
            (runner.projection().0, checkpoint),
            (stored, sequence),
            "after {stored} commits, the last at {sequence}, the catch-up stopped at {checkpoint}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuild_with_nothing_on_the_views_subjects_returns_at_once() {
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    let elsewhere = floor_events::subjects::event_subject("elsewhere", uuid::Uuid::new_v4());
    backbone.jetstream.publish(elsewhere, r#"[{"v":1,"type":"other"}]"#.into()).await.expect("publish").await.expect("stored");
    let mut runner = ProjectionRunner::new(&backbone, Counting(0)).await.expect("runner");
    let rebuilt = tokio::time::timeout(std::time::Duration::from_secs(10), runner.rebuild()).await;
    assert_eq!(rebuilt.expect("the rebuild returns").expect("rebuilt"), 0, "nothing to replay");
    assert_eq!(runner.projection().0, 0);
}
