//! Where a stall can still happen, Floor says so (issue 18): with a service stopped while a
//! tournament needs it, the lobby (`waiting_on` in the tournament's JSON, `waiting` in
//! `GET /api/health`) and `floor status` (`waiting::observe`, the function it calls) name the
//! service, its reader and since when; started again, the entry goes. Time is the test's
//! (`ManualClock`): nothing is said before a commit has waited `WAITING_AFTER` on that clock.

use floor::startup::{Nats, PlatformConfig};
use floor_events::{subjects, Reply, TournamentId};
use floor_runtime::waiting::{self, TournamentWait, WAITING_AFTER};
use floor_runtime::{Clock, ManualClock};
use floor_tests::{freezeout, http_get, RunningPlatform, World, DEADLINE};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;

/// The clock service alone, on the test's clock.
async fn clock_service(nats: Nats, clock: &ManualClock) -> RunningPlatform {
    let config = PlatformConfig { clock: Arc::new(clock.clone()), ..PlatformConfig::only(nats, None, &["clock"]) };
    RunningPlatform::start_config(config).await
}

/// The lobby's JSON for `t` once `ready` holds (asked again at once while not: each answer is
/// a round trip, and the lobby looks again only when the test moves its clock).
async fn lobby_until(http: SocketAddr, path: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let wait = async {
        loop {
            let (status, body) = http_get(http, path).await;
            assert_eq!(status, 200, "{body}");
            let value: Value = serde_json::from_str(&body).expect("json");
            if ready(&value) {
                return value;
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(DEADLINE, wait).await.expect("the lobby said it in time")
}

/// Waits until reader `reader`'s checkpoint is at least `sequence` (a KV watch).
async fn taken_up_to(js: &async_nats::jetstream::Context, reader: &str, sequence: u64) {
    use futures::StreamExt;
    let bucket = js.get_key_value(subjects::CHECKPOINT_BUCKET).await.expect("checkpoints");
    let mut watch = bucket.watch_with_history(reader).await.expect("watch");
    let wait = async {
        while let Some(entry) = watch.next().await {
            let entry = entry.expect("watch entry");
            if std::str::from_utf8(&entry.value).ok().and_then(|v| v.parse::<u64>().ok()).is_some_and(|c| c >= sequence) {
                return;
            }
        }
        panic!("checkpoint watch ended");
    };
    tokio::time::timeout(DEADLINE, wait).await.expect("the reader took it in time");
}

/// Waits until every reader but the clock's has taken every commit of `t` (the store's own
/// answer, [`waiting::observe`] with no threshold and a `now` after every commit).
async fn settled_but_the_clock(js: &async_nats::jetstream::Context, t: TournamentId) {
    let wait = async {
        loop {
            let later = chrono::Utc::now() + chrono::Duration::hours(1);
            let all = waiting::observe(js, later, std::time::Duration::ZERO).await.expect("observed");
            if waits_of(&all, t).iter().all(|w| w.reader == "clock-policy") {
                return;
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(DEADLINE, wait).await.expect("every reader but the clock's took the tournament's commits in time");
}

fn waits_of(all: &[TournamentWait], t: TournamentId) -> Vec<waiting::Wait> {
    all.iter().filter(|w| w.tournament == t.0).flat_map(|w| w.waiting_on.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_service_is_named_with_since_when_by_the_lobby_and_floor_status_until_it_runs_again() {
    let manual = ManualClock::new(chrono::Utc::now());
    let world = World::start_configured(|c| {
        c.skip("clock");
        c.skip("scheduler");
        c.clock = Arc::new(manual.clone());
    })
    .await;
    let http = world.platform().http().expect("the lobby serves HTTP");
    let js = world.jetstream().clone();
    let clock = clock_service(world.joined(), &manual).await;
    let t = world.create(freezeout(10)).await;
    assert!(matches!(world.register(t, "ana").await, Reply::Ok(_)));
    let path = format!("/api/tournaments/{}", t.0);
    let doc = lobby_until(http, &path, |d| d["entrants"] == 1).await;
    assert_eq!(doc["waiting_on"], serde_json::json!([]), "nothing waits while every service runs: {doc}");

    // Given: the clock stopped, and a registration its policy has not taken.
    clock.stop().await;
    for player in ["bo", "cy"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registered");
    }
    let checkpoints = js.get_key_value(subjects::CHECKPOINT_BUCKET).await.expect("checkpoints");
    let taken: u64 =
        String::from_utf8(checkpoints.get("clock-policy").await.expect("read").expect("clock-policy has a checkpoint").to_vec())
            .expect("utf-8")
            .parse()
            .expect("a sequence");
    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, t.0);
    let events = js.get_stream(subjects::EVENTS_STREAM).await.expect("stream");
    let first = events.direct_get_next_for_subject(&subject, Some(taken + 1)).await.expect("a commit the clock has not taken");
    let since = chrono::DateTime::<chrono::Utc>::from_timestamp_nanos(first.time.unix_timestamp_nanos() as i64);
    let behind = world.commits(t).await.iter().filter(|c| c.sequence > taken).count() as u64;
    assert!(behind >= 2, "two registrations untaken (the count comes from the store's batched get)");

    // Every other reader has taken it (and seating's outbox what its policy stored after): on
    // the test's clock, moved on by a minute below, a reader at work would look stalled too.
    let registered = world.commits(t).await.last().expect("the last registration").sequence;
    taken_up_to(&js, "lobby", registered).await;
    taken_up_to(&js, "seating-policy", registered).await;
    let seating = subjects::event_subject(subjects::aggregate::SEATING, t.0);
    if let Ok(last) = events.direct_get_last_for_subject(&seating).await {
        taken_up_to(&js, "seating-outbox", last.sequence).await;
        // The lobby's seat map (issue 23) folds seating's commits too.
        taken_up_to(&js, "seat-map", last.sequence).await;
    }
    // And whatever those readers stored in turn (a seating commit a bubble commit asked for,
    // say) is taken too: the store itself, looked at with no threshold, says only the clock's
    // reader has anything of the tournament left.
    settled_but_the_clock(&js, t).await;

    // When: not yet WAITING_AFTER on the test's clock, nothing is said.
    let now = manual.now();
    assert!(now < since + chrono::Duration::from_std(WAITING_AFTER).unwrap(), "the test's clock started before the commit");
    let status = waiting::observe(&js, now, WAITING_AFTER).await.expect("observed");
    assert_eq!(waits_of(&status, t), vec![], "a commit younger than the threshold is a reader at work");

    // When: a minute later.
    manual.advance(chrono::Duration::seconds(60));
    let expected = vec![waiting::Wait { service: "clock".into(), reader: "clock-policy".into(), since, behind_by_commits: behind }];
    // Then `floor status` names the clock.
    let status = waiting::observe(&js, manual.now(), WAITING_AFTER).await.expect("observed");
    assert_eq!(waits_of(&status, t), expected, "floor status: {status:?}");
    // And so does the lobby, in the tournament's JSON, the list and its health.
    let doc = lobby_until(http, &path, |d| d["waiting_on"].as_array().is_some_and(|w| !w.is_empty())).await;
    let shown: Vec<waiting::Wait> = serde_json::from_value(doc["waiting_on"].clone()).expect("waits");
    assert_eq!(shown, expected, "{doc}");
    let (_, list) = http_get(http, "/api/tournaments").await;
    let list: Value = serde_json::from_str(&list).expect("json");
    // The list is paged (issue 23): the documents are under `tournaments`.
    assert_eq!(list["tournaments"][0]["waiting_on"], doc["waiting_on"], "{list}");
    let health = lobby_until(http, "/api/health", |h| h["waiting"].as_array().is_some_and(|w| !w.is_empty())).await;
    let health: Vec<TournamentWait> = serde_json::from_value(health["waiting"].clone()).expect("waits");
    assert_eq!(waits_of(&health, t), expected);

    // When: the clock runs again (it catches up before it serves) and time moves on.
    let _clock = clock_service(world.joined(), &manual).await;
    manual.advance(chrono::Duration::seconds(2));
    // Then nothing waits any more.
    let status = waiting::observe(&js, manual.now(), WAITING_AFTER).await.expect("observed");
    assert_eq!(waits_of(&status, t), vec![], "floor status: {status:?}");
    let doc = lobby_until(http, &path, |d| d["waiting_on"] == serde_json::json!([])).await;
    assert_eq!(doc["entrants"], 3, "{doc}");
}

/// A policy (payouts', on the policy runner, with no consumer of its own) is watched as a
/// projection is: what it reads is what it recorded at its start (KV `floor-readers`). Before
/// that record, `floor status` never named a stopped payouts, rebuys or bubble service.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_policy_service_is_named_too() {
    let world = World::start_configured(|c| {
        c.skip("payouts");
        c.skip("scheduler");
    })
    .await;
    let js = world.jetstream().clone();
    let payouts = RunningPlatform::start_config(PlatformConfig::only(world.joined(), None, &["payouts"])).await;
    let t = world.create(freezeout(10)).await;
    assert!(matches!(world.register(t, "ana").await, Reply::Ok(_)));
    let registered = world.commits(t).await.last().expect("the registration").sequence;
    taken_up_to(&js, "payouts-policy", registered).await;

    // Given payouts stopped and a registration it has not taken,
    payouts.stop().await;
    assert!(matches!(world.register(t, "bo").await, Reply::Ok(_)));
    // when looked at a minute later,
    let later = chrono::Utc::now() + chrono::Duration::seconds(60);
    let status = waiting::observe(&js, later, WAITING_AFTER).await.expect("observed");
    // then the tournament waits on payouts, behind by that registration at least (and what
    // seating stored for it, which payouts reads too).
    let waits = waits_of(&status, t);
    let payouts_waits: Vec<&waiting::Wait> = waits.iter().filter(|w| w.service == "payouts").collect();
    assert_eq!(payouts_waits.iter().map(|w| w.reader.as_str()).collect::<Vec<_>>(), ["payouts-policy"], "floor status: {status:?}");
    assert!(payouts_waits[0].behind_by_commits >= 1, "{status:?}");
}
