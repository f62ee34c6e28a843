//! The scheduler end to end: recurring templates create each occurrence once, however many
//! schedulers race, and a tournament below its minimum at its start time is cancelled and
//! refunded.

use floor::startup::PlatformConfig;
use floor_events::registration::{CancellationReason, TournamentEvent};
use floor_events::schedule::verbs;
use floor_events::tournament::Start;
use floor_events::{codes, subjects, Reply, TournamentId};
use floor_runtime::follow::follow;
use floor_scheduler::occurrence_id;
use floor_tests::{RunningPlatform, World};
use serde_json::json;
use std::collections::HashMap;

fn template(cron: &str, zone: &str) -> serde_json::Value {
    json!({ "template": {
        "cron": cron,
        "time_zone": zone,
        "registration_lead_minutes": 1,
        "tournament": {
            "name": "Every five minutes", "table_size": 9, "starting_stack": 10000,
            "buy_in": { "amount": 500, "currency": "EUR" }, "fee": { "on_top": { "amount": 50, "currency": "EUR" } },
            "capacity": 90, "min_players": 2, "structure": { "preset": "hyper_turbo" }
        }
    }})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_schedulers_racing_create_each_occurrence_once_and_cancel_it_below_the_minimum() {
    // Starts come at least five minutes apart (issue 17), so the platform runs on a clock the
    // test moves: both schedulers create the hour ahead at once, then the clock jumps to the
    // first start.
    let clock = floor_runtime::ManualClock::new(chrono::Utc::now());
    let world = World::start_configured(|c| c.clock = std::sync::Arc::new(clock.clone())).await;
    let mut config = PlatformConfig::only(world.joined(), None, &["scheduler"]);
    config.clock = std::sync::Arc::new(clock.clone());
    let second = RunningPlatform::start_config(config).await;

    let mut every_five_minutes = template("0 */5 * * * *", "Europe/Vienna");
    every_five_minutes["template"]["registration_lead_minutes"] = json!(60);
    let added = match world.request(subjects::service::SCHEDULER, verbs::ADD_TEMPLATE.name(), &every_five_minutes).await {
        Reply::Ok(v) => v,
        Reply::Error(e) => panic!("template refused: {e}"),
    };
    let template_id: uuid::Uuid = serde_json::from_value(added["template_id"].clone()).expect("template id");
    let first_start: chrono::DateTime<chrono::Utc> = serde_json::from_value(added["upcoming"][0].clone()).expect("a next start");
    let first = TournamentId(occurrence_id(template_id, first_start));

    // Nobody registers: at its start time the first occurrence is cancelled, with the reason.
    // The schedulers' timers sleep on real time; a new tournament's commit wakes them to read
    // the clock that has moved.
    world.lobby_when(first, |_| true).await;
    clock.set(first_start);
    world.create(floor_tests::freezeout(10)).await;
    let doc = world.lobby_when(first, |d| d["state"] == "cancelled").await;
    assert_eq!(doc["cancellation"]["kind"], "below_minimum");
    let cancelled = world.commits(first).await.into_iter().flat_map(|c| c.events).find_map(|e| match e {
        TournamentEvent::TournamentCancelled(c) => Some(c),
        _ => None,
    });
    let cancelled = cancelled.expect("cancellation in the log");
    assert_eq!(cancelled.reason, CancellationReason::BelowMinimum { entries: 0, min_players: 2 });
    assert_eq!(cancelled.at.timestamp(), first_start.timestamp(), "cancelled at its start time");

    // Both schedulers created the hour's occurrences; each exists once, under its own id.
    let mut created: HashMap<TournamentId, usize> = HashMap::new();
    let filters = vec![subjects::event_filter(subjects::aggregate::TOURNAMENT)];
    follow(&world.backbone, filters, |message| {
        let events: Vec<TournamentEvent> = floor_events::record::decode_commit(&message.payload).expect("tournament commit");
        for event in events {
            if let TournamentEvent::TournamentCreated(c) = event {
                if c.definition.name == floor_tests::freezeout(2).name {
                    continue; // the tournament that woke the timers
                }
                let Start::At(start) = c.definition.start else { panic!("an occurrence has a start time") };
                assert_eq!(c.tournament_id.0, occurrence_id(template_id, start), "id = UUID v5 (template, start)");
                *created.entry(c.tournament_id).or_default() += 1;
            }
        }
    })
    .await
    .expect("log readable");
    assert!(created.len() >= 10, "an hour ahead of a five-minute cron holds about 12 occurrences, found {}", created.len());
    assert!(created.values().all(|&n| n == 1), "an occurrence was created twice: {created:?}");
    second.stop().await;
}

/// Issue 16: the scheduler reads the log through a policy runner, so a restart reads its
/// snapshot and the commits after it instead of every registration ever made. What it must
/// still know after a restart: the templates, and the occurrences waiting for their start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_scheduler_starts_from_its_snapshot_and_still_starts_what_waits() {
    let clock = floor_runtime::ManualClock::new(chrono::Utc::now());
    let world = World::start_configured(|c| {
        c.clock = std::sync::Arc::new(clock.clone());
        c.services.remove("scheduler");
    })
    .await;
    let scheduler = || {
        let mut config = PlatformConfig::only(world.joined(), None, &["scheduler"]);
        config.clock = std::sync::Arc::new(clock.clone());
        RunningPlatform::start_config(config)
    };
    let first_scheduler = scheduler().await;
    let mut every_five_minutes = template("0 */5 * * * *", "Europe/Vienna");
    every_five_minutes["template"]["registration_lead_minutes"] = json!(30);
    let added = match world.request(subjects::service::SCHEDULER, verbs::ADD_TEMPLATE.name(), &every_five_minutes).await {
        Reply::Ok(v) => v,
        Reply::Error(e) => panic!("template refused: {e}"),
    };
    let template_id: uuid::Uuid = serde_json::from_value(added["template_id"].clone()).expect("template id");
    let first_start: chrono::DateTime<chrono::Utc> = serde_json::from_value(added["upcoming"][0].clone()).expect("a next start");
    let first = TournamentId(occurrence_id(template_id, first_start));
    world.lobby_when(first, |_| true).await;
    // A clean stop stores the memory: templates and the tournaments waiting for their start.
    first_scheduler.stop().await;
    let snapshots = world.backbone.jetstream.get_object_store(subjects::SNAPSHOT_BUCKET).await.expect("snapshot bucket");
    let object = format!("policy.{}.schedules-1", floor_scheduler::service::POLICY_NAME);
    snapshots.info(&object).await.expect("the scheduler stored its snapshot when it stopped");

    // Registrations arrive while no scheduler runs; the restarted one reads them as its tail.
    let busy = world.create(floor_tests::freezeout(10)).await;
    for n in 0..5 {
        assert!(matches!(world.register(busy, format!("p{n}")).await, Reply::Ok(_)));
    }
    let second_scheduler = scheduler().await;
    clock.set(first_start);
    // Its timer sleeps on real time; a commit wakes it to read the clock that has moved.
    assert!(matches!(world.register(busy, "p5").await, Reply::Ok(_)));
    let doc = world.lobby_when(first, |d| d["state"] == "cancelled").await;
    assert_eq!(doc["cancellation"]["kind"], "below_minimum", "the restarted scheduler started the occurrence it found waiting");
    second_scheduler.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_templates_and_clock_commands_get_their_codes_and_write_nothing() {
    // Without seating, whose reactions to a new tournament would write events while we count.
    let world = World::start_configured(|c| {
        c.skip("seating");
        // It configures every tournament it sees created: an event this test does not count.
        c.skip("bubble");
    })
    .await;
    let tournament = world.create(floor_tests::freezeout(10)).await.to_string();
    let clock = |verb: &'static str, body: serde_json::Value| {
        let world = &world;
        async move { world.request(subjects::service::CLOCK, verb, &body).await }
    };
    use floor_events::clock::verbs as clock_verbs;
    assert!(matches!(
        clock(clock_verbs::SET_STRUCTURE.name(), json!({"tournament_id": tournament, "structure": {"preset": "turbo"}})).await,
        Reply::Ok(_)
    ));
    assert!(matches!(clock(clock_verbs::START.name(), json!({"tournament_id": tournament})).await, Reply::Ok(_)));
    let before = world.last_sequence().await;

    let decreasing = json!({"tournament_id": tournament, "structure": {"custom": {"steps": [
        {"kind": "level", "small_blind": 100, "big_blind": 200, "seconds": 600},
        {"kind": "level", "small_blind": 50, "big_blind": 100, "seconds": 600}
    ]}}});
    let scheduler = |body: serde_json::Value| {
        let world = &world;
        async move { world.request(subjects::service::SCHEDULER, verbs::ADD_TEMPLATE.name(), &body).await }
    };
    let cases = [
        ("invalid cron", scheduler(template("every day at seven", "Europe/Vienna")).await, codes::INVALID_CRON),
        ("unknown time zone", scheduler(template("0 0 19 * * *", "Europe/Atlantis")).await, codes::UNKNOWN_TIME_ZONE),
        ("decreasing blinds", clock(clock_verbs::SET_STRUCTURE.name(), decreasing).await, codes::CLOCK_ALREADY_STARTED),
        ("resume a running clock", clock(clock_verbs::RESUME.name(), json!({"tournament_id": tournament})).await, codes::CLOCK_RUNNING),
        (
            "skip past the structure",
            clock(clock_verbs::SKIP_TO_LEVEL.name(), json!({"tournament_id": tournament, "level": 999})).await,
            codes::UNKNOWN_LEVEL,
        ),
        ("malformed json", clock(clock_verbs::PAUSE.name(), json!("not an object")).await, codes::INVALID_FIELD),
    ];
    for (case, reply, code) in &cases {
        match reply {
            Reply::Error(e) => assert_eq!(&e.code, code, "{case}: {}", e.message),
            Reply::Ok(v) => panic!("{case}: accepted: {v}"),
        }
    }
    // A structure that breaks a rule, on a clock not started yet.
    let fresh = world.create(floor_tests::freezeout(10)).await.to_string();
    let decreasing = json!({"tournament_id": fresh, "structure": {"custom": {"steps": [
        {"kind": "level", "small_blind": 100, "big_blind": 200, "seconds": 600},
        {"kind": "level", "small_blind": 50, "big_blind": 100, "seconds": 600}
    ]}}});
    let before_fresh = world.last_sequence().await;
    match clock(clock_verbs::SET_STRUCTURE.name(), decreasing).await {
        Reply::Error(e) => {
            assert_eq!(e.code, codes::INVALID_STRUCTURE);
            assert!(e.message.contains("step 2"), "the message names the step: {}", e.message);
        }
        Reply::Ok(v) => panic!("decreasing blinds accepted: {v}"),
    }
    assert_eq!(world.last_sequence().await, before_fresh, "no rejected structure wrote an event");
    assert!(before < before_fresh, "only the second tournament's creation came between");
}
