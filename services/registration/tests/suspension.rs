//! Issue 35, against a real nats-server (started by the test; `make tools` installs one): the
//! registration service alone, with the abort service's suspension and resume written straight
//! into the abort log. A player with limits asking to register while play is suspended is
//! refused before anything is counted against their limits, and the same registration (same
//! command id) after the resume takes the entry and counts the tournament once.

use floor_events::abort::{AbortEvent, SuspendReason};
use floor_events::player::{EntryLimits, PlayerEvent, SetPlayerLimits};
use floor_events::registration::{verbs, CreateTournament, Register, TournamentEvent, Unregister};
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{codes, subjects, CommandId, PlayerId, Reply, TournamentId};
use floor_registration::RegistrationService;
use floor_runtime::shell::{Context, Service};
use floor_runtime::{bootstrap, Backbone, JetStreamStore, NatsServer};
use futures::StreamExt;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

async fn request<T: Serialize>(backbone: &Backbone, verb: &str, body: &T) -> Reply<Value> {
    let subject = subjects::command_subject(subjects::service::REGISTRATION, verb);
    let payload = serde_json::to_vec(body).expect("request encodes");
    let reply = tokio::time::timeout(Duration::from_secs(10), backbone.client.request(subject, payload.into()))
        .await
        .expect("reply in time")
        .expect("request sent");
    serde_json::from_slice(&reply.payload).expect("a reply")
}

fn code(reply: &Reply<Value>) -> &str {
    match reply {
        Reply::Error(e) => &e.code,
        Reply::Ok(v) => panic!("accepted: {v}"),
    }
}

async fn log<E: DeserializeOwned>(backbone: &Backbone, subject: &str) -> Vec<E> {
    let commits = JetStreamStore::new(backbone).load::<E>(subject, 0).await.expect("log readable");
    commits.into_iter().flat_map(|c| c.events).collect()
}

/// Waits until the tournament's log holds an event `wanted` takes (registration's policy has
/// read the abort log that far): its commits, history first, then as they are stored.
async fn until_recorded(backbone: &Backbone, t: TournamentId, wanted: impl Fn(&TournamentEvent) -> bool) {
    use async_nats::jetstream::consumer::pull::OrderedConfig;
    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, t.0);
    let stream = backbone.jetstream.get_stream(subjects::EVENTS_STREAM).await.expect("the events stream");
    let consumer = stream.create_consumer(OrderedConfig { filter_subject: subject, ..Default::default() }).await.expect("a consumer");
    let mut commits = consumer.messages().await.expect("messages");
    let found = async {
        while let Some(message) = commits.next().await {
            let message = message.expect("a commit");
            let commit = floor_events::commit::Commit::decode(&message.subject, &message.payload).expect("a tournament commit");
            if let floor_events::commit::Events::Tournament(events) = commit.events {
                if events.iter().any(&wanted) {
                    return;
                }
            }
        }
        panic!("the commits ended");
    };
    tokio::time::timeout(Duration::from_secs(30), found).await.expect("registration's policy recorded it in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_registration_counts_nothing_against_limits_and_its_retry_after_the_resume_counts_once() {
    let nats = NatsServer::start_temp().expect("nats-server starts (run `make tools` if none is installed)");
    let client = bootstrap::connect(&nats.url()).await.expect("connect");
    let backbone = bootstrap::ensure_backbone(client).await.expect("backbone");
    let (shutdown, tracker) = (CancellationToken::new(), TaskTracker::new());
    let service = RegistrationService::start(&Context::new(&backbone, shutdown.clone(), &tracker)).await.expect("registration starts");
    let (ready, serving) = tokio::sync::oneshot::channel();
    let client = backbone.client.clone();
    let stop = shutdown.clone();
    tokio::spawn(async move { RegistrationService::verbs().serve(service, client, stop, Some(ready)).await });
    serving.await.expect("registration serves");

    let t = TournamentId::new();
    let definition =
        TournamentDefinition { start: Start::At(chrono::Utc::now() + chrono::Duration::days(1)), ..TournamentDefinition::example() };
    let create = CreateTournament { command_id: CommandId::new(), tournament_id: Some(t), definition };
    assert!(matches!(request(&backbone, verbs::CREATE_TOURNAMENT.name(), &create).await, Reply::Ok(_)));
    let lim = PlayerId::parse("lim").expect("player");
    let limits = SetPlayerLimits {
        command_id: CommandId::new(),
        player: lim.clone(),
        limits: EntryLimits { per_day: Some(3), ..EntryLimits::default() },
    };
    assert!(matches!(request(&backbone, verbs::SET_PLAYER_LIMITS.name(), &limits).await, Reply::Ok(_)));
    let early = Register { command_id: CommandId::new(), tournament_id: t, player: PlayerId::parse("early").expect("player") };
    assert!(matches!(request(&backbone, verbs::REGISTER.name(), &early).await, Reply::Ok(_)));

    // The abort service suspends play; registration's policy records it in the tournament's log.
    let abort = subjects::event_subject(subjects::aggregate::ABORT, t.0);
    let store = JetStreamStore::new(&backbone);
    let since = chrono::Utc::now();
    let suspended = AbortEvent::Suspended { reason: SuspendReason::Director { reason: "power cut".into() }, at: since };
    let first = store.append(&abort, CommandId::new(), 0, &[suspended]).await.expect("suspension stored");
    until_recorded(&backbone, t, |e| matches!(e, TournamentEvent::PlaySuspended(_))).await;

    let player_log = subjects::event_subject(subjects::aggregate::PLAYER, lim.aggregate_id());
    let held = Register { command_id: CommandId::new(), tournament_id: t, player: lim.clone() };
    assert_eq!(code(&request(&backbone, verbs::REGISTER.name(), &held).await), codes::TOURNAMENT_SUSPENDED);
    let unregister = Unregister { command_id: CommandId::new(), tournament_id: t, player: early.player.clone(), entry: None };
    assert_eq!(code(&request(&backbone, verbs::UNREGISTER.name(), &unregister).await), codes::TOURNAMENT_SUSPENDED);
    let counts = log::<PlayerEvent>(&backbone, &player_log).await;
    assert!(matches!(counts.as_slice(), [PlayerEvent::PlayerLimitsSet(_)]), "a held registration counts nothing: {counts:?}");

    // The resume: the same registration, sent again, takes the entry and counts it once.
    let resumed = AbortEvent::Resumed { suspended_at: since, at: chrono::Utc::now() };
    store.append(&abort, CommandId::new(), first.sequence, &[resumed]).await.expect("resume stored");
    until_recorded(&backbone, t, |e| matches!(e, TournamentEvent::PlayResumed(_))).await;
    let entry = request(&backbone, verbs::REGISTER.name(), &held).await;
    assert!(matches!(entry, Reply::Ok(_)), "{entry:?}");
    assert!(matches!(request(&backbone, verbs::REGISTER.name(), &held).await, Reply::Ok(_)), "and again, from the history");
    assert!(matches!(request(&backbone, verbs::UNREGISTER.name(), &unregister).await, Reply::Ok(_)), "withdrawn after the resume");
    let counts = log::<PlayerEvent>(&backbone, &player_log).await;
    assert!(
        matches!(counts.as_slice(), [PlayerEvent::PlayerLimitsSet(_), PlayerEvent::TournamentCounted(c)] if c.tournament_id == t),
        "counted once, never released: {counts:?}"
    );

    shutdown.cancel();
    tracker.close();
    tracker.wait().await;
}
