//! A tournament's two ends outside `floor sim` (issue 19): a director starts a scheduled
//! tournament now, before its time; and when the last opponent busts the tournament is finished
//! everywhere (registration's log, the lobby) and its clock stops.

use floor_events::clock::ClockEvent;
use floor_events::registration::{verbs, StartTournament, TournamentEvent};
use floor_events::{codes, CommandId, Reply, TournamentId};
use floor_tests::{freezeout, heads_up, ten_minute_levels, World};

fn start(t: TournamentId, now: bool) -> StartTournament {
    StartTournament { command_id: CommandId::new(), tournament_id: t, now }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_director_starts_a_scheduled_tournament_now_once_its_minimum_is_met() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = world.create(freezeout(10)).await; // starts tomorrow, minimum 2
    assert!(matches!(world.register(t, "ana").await, Reply::Ok(_)));
    let reply = world.send(verbs::START_TOURNAMENT.name(), &start(t, true)).await;
    assert!(matches!(&reply, Reply::Error(e) if e.code == codes::TOO_FEW_ENTRIES), "below the minimum: {reply:?}");
    assert!(matches!(world.register(t, "ben").await, Reply::Ok(_)), "nothing was cancelled: ben still registers");
    let reply = world.send(verbs::START_TOURNAMENT.name(), &start(t, false)).await;
    assert!(matches!(&reply, Reply::Error(e) if e.code == codes::TOO_EARLY), "without now: {reply:?}");
    // A request written before the flag existed still decodes (and is too early).
    let old = serde_json::json!({"command_id": CommandId::new(), "tournament_id": t});
    let reply = world.send(verbs::START_TOURNAMENT.name(), &old).await;
    assert!(matches!(&reply, Reply::Error(e) if e.code == codes::TOO_EARLY), "an old request: {reply:?}");

    let reply = world.send(verbs::START_TOURNAMENT.name(), &start(t, true)).await;
    assert!(matches!(reply, Reply::Ok(_)), "now: {reply:?}");
    world.lobby_when(t, |d| d["state"] == "running").await;
    let started = world.commits(t).await.into_iter().flat_map(|c| c.events).any(|e| matches!(e, TournamentEvent::TournamentStarted(_)));
    assert!(started);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_last_opponent_busts_the_tournament_is_finished_and_its_clock_stops() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = world.create(heads_up(ten_minute_levels())).await;
    let mut clock = world.watch_clock(t).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    let (winner, _) = world.first_hand_busts_the_second(t).await;

    let (stopped, _) = clock.next_where(|e| matches!(e, ClockEvent::Stopped { .. })).await;
    let doc = world.lobby_when(t, |d| d["state"] == "finished" && d["clock"]["status"] == "stopped").await;
    assert_eq!(doc["live_entries"], 1);
    let finished = world
        .commits(t)
        .await
        .into_iter()
        .flat_map(|c| c.events)
        .find_map(|e| match e {
            TournamentEvent::TournamentFinished(f) => Some(f),
            _ => None,
        })
        .expect("registration records the end");
    assert_eq!(finished.winner, winner.entry);
    assert_eq!(stopped, ClockEvent::Stopped { at: finished.at }, "the clock stops when the tournament ends");
    // A stopped clock takes no more director commands.
    let pause = serde_json::json!({"command_id": CommandId::new(), "tournament_id": t, "reason": "late"});
    let reply = world.request(floor_events::subjects::service::CLOCK, floor_events::clock::verbs::PAUSE.name(), &pause).await;
    assert!(matches!(&reply, Reply::Error(e) if e.code == codes::CLOCK_STOPPED), "{reply:?}");
}
