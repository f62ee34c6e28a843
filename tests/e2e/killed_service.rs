//! `floor sim` and the director's CLI outlive a killed service (issue 18, items 2–5): the sim's
//! lockstep settles after a restart with nothing new to take; a command sent while its service
//! is down or dying is sent again with the same id and stored once; the sim's scheduled field is
//! in before a scheduler starts it; the same seed, tournament id and test seed key repeat a
//! tournament on another platform.

use floor::director::{Director, Patience, Unanswered, Waiting};
use floor::sim::lockstep::{Lockstep, STALL};
use floor::sim::{self, SimConfig, Summary};
use floor::startup::{Nats, PlatformConfig};
use floor_events::registration::TournamentEvent;
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{subjects, CommandId, PlayerId, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::store::StoredCommit;
use floor_tests::{RunningPlatform, World, DEADLINE};
use futures::StreamExt;
use std::collections::BTreeMap;
use std::time::Duration;

/// A key written the way `FLOOR_SEED_KEY` takes it.
const TEST_KEY: &str = "test:5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

/// Seating alone, with a fixed key, against `url`.
async fn seating(nats: Nats) -> RunningPlatform {
    let config = PlatformConfig { seed_key: Some([42; 32]), ..PlatformConfig::only(nats, None, &["seating"]) };
    RunningPlatform::start_config(config).await
}

/// A sit & go for `seats` players.
fn sit_and_go(seats: u32) -> TournamentDefinition {
    TournamentDefinition {
        start: Start::SitAndGo,
        capacity: seats,
        min_players: seats,
        late_registration_until: None,
        guarantee: None,
        ..floor_tests::freezeout(seats)
    }
}

/// Issue 18, item 2: a seating restarted between two rounds recreates its consumers from its
/// checkpoints and, with nothing new to take, acknowledges nothing; nats-server then reports
/// their ack floors as 0, and a lockstep that trusted them waited for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lockstep_settles_after_seating_restarts_with_nothing_new_to_take() {
    let world = World::start_configured(|c| {
        c.skip("seating");
        c.skip("scheduler");
    })
    .await;
    let first = seating(world.joined()).await;
    let t = world.create(sit_and_go(2)).await;
    for player in ["ana", "bo"] {
        assert!(world.register(t, player).await.into_result().is_ok(), "{player} registered");
    }
    // The draw, its instructions stored and every runner caught up with them.
    let mut lockstep = Lockstep::new(&world.backbone, t).await.expect("lockstep");
    tokio::time::timeout(DEADLINE, lockstep.settled(&world.backbone)).await.expect("settled in time").expect("settled");
    let mut tables = BTreeMap::new();
    lockstep.drain(&world.backbone, &mut tables).await.expect("instructions");
    assert_eq!(tables.len(), 1, "two players drawn to one table");

    first.stop().await;
    let _second = seating(world.joined()).await;
    // The policy reads the process's tail now, not a consumer of its own: its checkpoint is
    // all the store has of it.
    let checkpoints = world.backbone.jetstream.get_key_value(floor_events::subjects::CHECKPOINT_BUCKET).await.expect("checkpoints");
    eprintln!("the restarted policy's checkpoint: {:?}", checkpoints.get("seating-policy").await.expect("read"));

    // Nothing new happened: the lockstep must see that at once, not after a stall.
    let settled = tokio::time::timeout(STALL / 3, lockstep.settled(&world.backbone)).await;
    assert!(matches!(settled, Ok(Ok(()))), "the lockstep settles with a restarted seating that has nothing to take: {settled:?}");
}

/// A tournament's log.
async fn tournament_log(backbone: &Backbone, t: TournamentId) -> Vec<StoredCommit<TournamentEvent>> {
    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, t.0);
    floor_runtime::JetStreamStore::new(backbone).load(&subject, 0).await.expect("the tournament's log")
}

/// Collects what a director hears while a service keeps it waiting.
fn listening() -> (impl Fn(&Waiting) + Send + Sync + 'static, tokio::sync::mpsc::UnboundedReceiver<Waiting>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    (move |w: &Waiting| drop(tx.send(w.clone())), rx)
}

/// Issue 18, item 3: a command sent while no instance of its service runs is answered once one
/// starts, and stored once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_sent_while_its_service_is_down_is_stored_once_when_it_starts() {
    let (nats, backbone) = floor_tests::backbone_alone().await;
    let (tell, mut told) = listening();
    let patience = Patience { tell_after: Duration::from_millis(100), ..Patience::DIRECTOR };
    let director = Director::join(&nats.url(), &floor_runtime::credentials::Credentials::none())
        .await
        .expect("director")
        .with_patience(patience, tell);
    let create = tokio::spawn(async move { director.create_tournament(floor_tests::freezeout(10)).await });

    let waiting = tokio::time::timeout(DEADLINE, told.recv()).await.expect("told in time").expect("told");
    assert_eq!(waiting.service, subjects::service::REGISTRATION);
    assert_eq!(waiting.last, Some(Unanswered::NoResponders), "nothing serves registration yet");
    let _platform = RunningPlatform::start_config(PlatformConfig::only(Nats::Url(nats.url()), None, &["registration"])).await;

    let t = tokio::time::timeout(DEADLINE, create).await.expect("in time").expect("task").unwrap_or_else(|f| panic!("{}", f.message));
    let commits = tournament_log(&backbone, t).await;
    assert_eq!(commits.len(), 1, "created once: {commits:?}");
    assert!(matches!(commits[0].events[..], [TournamentEvent::TournamentCreated(_)]));
}

/// A service that never comes: the director gives up at its deadline, as unavailable (exit 3),
/// not at the first `no responders` and not never.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_whose_service_never_starts_fails_as_unavailable_at_the_deadline() {
    let (nats, _backbone) = floor_tests::backbone_alone().await;
    let (tell, mut told) = listening();
    let patience = Patience { deadline: Duration::from_millis(1_500), tell_after: Duration::from_millis(500), ..Patience::DIRECTOR };
    let director = Director::join(&nats.url(), &floor_runtime::credentials::Credentials::none())
        .await
        .expect("director")
        .with_patience(patience, tell);
    let asked = std::time::Instant::now();
    let failure = director.create_tournament(floor_tests::freezeout(10)).await.expect_err("nobody answers");
    let waited = asked.elapsed();
    assert_eq!(failure.exit, floor::exit::Exit::Unavailable, "{}", failure.message);
    assert!(waited >= patience.deadline && waited <= patience.deadline + patience.attempt, "gave up after {waited:?}");
    let waiting = told.try_recv().expect("told once it waited more than a moment");
    assert!(waiting.attempts > 1, "sent again before giving up: {waiting:?}");
    assert!(told.try_recv().is_err(), "told once");
}

/// Issue 18, item 3: a service that took a command and died before answering (here a subscriber
/// that swallows the request and goes away) leaves the caller waiting one attempt; the command is
/// then sent again, with the same command id, and the service that starts stores it once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_its_service_died_with_is_sent_again_with_the_same_id() {
    let (nats, backbone) = floor_tests::backbone_alone().await;
    let subject = subjects::command_subject(subjects::service::REGISTRATION, floor_events::registration::verbs::REGISTER.name());
    let mut dying = backbone.client.subscribe(subject).await.expect("subscribe");
    floor_runtime::bootstrap::sync_with_server(&backbone.client).await.expect("subscribed");

    let registration = PlatformConfig::only(Nats::Url(nats.url()), None, &["registration"]);
    let platform = RunningPlatform::start_config(registration.clone()).await;
    let t = Director::join(&nats.url(), &floor_runtime::credentials::Credentials::none())
        .await
        .expect("director")
        .create_tournament(floor_tests::freezeout(10))
        .await;
    let t = t.unwrap_or_else(|f| panic!("{}", f.message));
    platform.stop().await;

    let (tell, _told) = listening();
    let patience = Patience { attempt: Duration::from_millis(500), ..Patience::DIRECTOR };
    let director = Director::join(&nats.url(), &floor_runtime::credentials::Credentials::none())
        .await
        .expect("director")
        .with_patience(patience, tell);
    let register = tokio::spawn(async move { director.register(t, PlayerId::parse("ana").expect("valid")).await });
    let swallowed = tokio::time::timeout(DEADLINE, dying.next()).await.expect("the request arrives").expect("a request");
    drop(dying);
    let _platform = RunningPlatform::start_config(registration).await;

    let entry = tokio::time::timeout(DEADLINE, register).await.expect("in time").expect("task");
    let entry = entry.unwrap_or_else(|f| panic!("{}", f.message));
    assert_eq!(entry.entry.0, 1);
    let sent: floor_events::registration::Register = serde_json::from_slice(&swallowed.payload).expect("a register request");
    let commits = tournament_log(&backbone, t).await;
    let registered: Vec<Option<CommandId>> = commits
        .iter()
        .filter(|c| c.events.iter().any(|e| matches!(e, TournamentEvent::EntryRegistered(_))))
        .map(|c| c.command_id)
        .collect();
    assert_eq!(registered, vec![Some(sent.command_id)], "one entry, stored under the command id first sent");
}

fn config(entrants: u32, seed: u64, tournament_id: TournamentId) -> SimConfig {
    SimConfig { start_after: sim::start_after_on_a_shared_platform(entrants), ..SimConfig::new(entrants, seed, tournament_id) }
}

/// Issue 18, item 4: against a platform with a scheduler, the sim's scheduled field is in
/// before its start time, even when registering is slow (here: held 1.5 s after the first
/// player, longer than the second the sim used to leave before the start).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_platform_with_a_scheduler_the_sims_field_is_in_before_its_start() {
    let world = World::start_configured(|c| c.seed_key = Some([42; 32])).await;
    let t = TournamentId(uuid::Uuid::from_u128(0x5c4ed));
    let config = config(361, 5, t);
    let summary = sim::run(&world.backbone, &config, |p| {
        if matches!(p, sim::Progress::Registering { registered: 1, .. }) {
            // Registering slowly: this task stops, the platform (its own runtime) goes on.
            std::thread::sleep(Duration::from_millis(1_500));
        }
    })
    .await
    .unwrap_or_else(|e| panic!("the sim against a platform with a scheduler: {e}"));
    assert_eq!(summary.entrants, 361);
    assert!(summary.books.finished && summary.books.balanced, "{:?}", summary.books);
    let events: Vec<TournamentEvent> = world.commits(t).await.into_iter().flat_map(|c| c.events).collect();
    assert!(!events.iter().any(|e| matches!(e, TournamentEvent::TournamentCancelled(_))), "not cancelled below its minimum");
    let started: Vec<u32> =
        events.iter().filter_map(|e| if let TournamentEvent::TournamentStarted(s) = e { Some(s.entries) } else { None }).collect();
    assert_eq!(started, vec![361], "started once, with the whole field");
}

/// Issue 18, item 5: two platforms whose seating has the same test seed key (as `FLOOR_SEED_KEY`
/// gives `floor run`), each with a scheduler, and the sim joined to each with the same seed and
/// tournament id: the same tournament. (One platform cannot play one tournament id twice.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_seed_tournament_id_and_test_seed_key_repeat_a_tournament_on_another_platform() {
    let key = floor::cli::test_seed_key(Some(TEST_KEY)).expect("a test key");
    assert!(key.is_some());
    let t = TournamentId(uuid::Uuid::from_u128(0x2e9ea7));
    let mut played: Vec<Summary> = Vec::new();
    for _ in 0..2 {
        let world = World::start_configured(|c| c.seed_key = key).await;
        played.push(sim::run(&world.backbone, &config(150, 3, t), |_| {}).await.unwrap_or_else(|e| panic!("sim: {e}")));
    }
    let [a, b] = &played[..] else { unreachable!("two runs") };
    eprintln!("winners {} and {}; hands {} and {}", a.winner, b.winner, a.hands, b.hands);
    assert_eq!(
        (&a.winner, a.hands, a.moves, a.tables_broken, &a.books),
        (&b.winner, b.hands, b.moves, b.tables_broken, &b.books),
        "the same seed, tournament id and seed key: the same tournament"
    );
}
