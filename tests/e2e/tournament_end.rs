//! A tournament's start outside `floor sim` (issue 19): a director starts a scheduled
//! tournament now, before its time.

use floor_events::registration::{verbs, StartTournament, TournamentEvent};
use floor_events::{codes, CommandId, Reply, TournamentId};
use floor_tests::{freezeout, World};

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
