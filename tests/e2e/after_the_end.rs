//! Issue 33: after the end, and while play stands. A tournament cancelled in play sells no
//! rebuy or add-on and its clock is stopped for good; a suspended tournament's clock restarts
//! only with the resume of play, never with a director's `clock resume`. Each refusal has its
//! code and writes nothing.

use floor_events::abort::{self, AbortEvent};
use floor_events::clock::{verbs as clock_verbs, AdjustTime, ClockEvent, ClockRequest, PauseClock, SkipToLevel};
use floor_events::rebuys::{verbs, ClosedCause, DirectorRequest, Purchase, RebuyEvent};
use floor_events::tournament::{AddOnTerms, RebuyCondition, RebuyTerms, TournamentDefinition};
use floor_events::{codes, subjects, CommandId, Currency, Money, PlayerId, Reply, TournamentId};
use floor_runtime::JetStreamStore;
use floor_tests::{heads_up, recorded, refusal_code, ten_minute_levels, World};
use serde_json::Value;

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

/// A heads-up sit & go with ten-minute levels, one EUR 10 + 1 rebuy per entry at zero chips
/// (offered for ten minutes: nothing lapses during the test), and an EUR 10 add-on.
fn heads_up_with_rebuys_and_add_on() -> TournamentDefinition {
    TournamentDefinition {
        rebuy: Some(RebuyTerms {
            price: eur(1_000),
            fee: eur(100),
            chips: 10_000,
            max_per_entry: 1,
            condition: RebuyCondition::AtZero,
            offer_seconds: 600,
        }),
        add_on: Some(AddOnTerms { price: eur(1_000), fee: eur(0), chips: 15_000 }),
        ..heads_up(ten_minute_levels())
    }
}

/// The rebuys log of `t`, as stored.
async fn rebuys_log(world: &World, t: TournamentId) -> Vec<RebuyEvent> {
    let subject = subjects::event_subject(subjects::aggregate::REBUYS, t.0);
    JetStreamStore::new(&world.backbone)
        .load::<RebuyEvent>(&subject, 0)
        .await
        .expect("rebuys log")
        .into_iter()
        .flat_map(|c| c.events)
        .collect()
}

/// Waits until the rebuys log of `t` has an event `wanted` accepts (following the stream, from
/// its start).
async fn rebuys_log_until(world: &World, t: TournamentId, wanted: impl Fn(&RebuyEvent) -> bool) -> RebuyEvent {
    let subject = subjects::event_subject(subjects::aggregate::REBUYS, t.0);
    let decode = |payload: &[u8]| floor_events::record::decode_commit::<RebuyEvent>(payload).ok().and_then(|e| e.into_iter().find(&wanted));
    let mut found = None;
    let mut following =
        floor_runtime::follow::follow(&world.backbone, vec![subject], |m| found = found.take().or_else(|| decode(&m.payload)))
            .await
            .expect("follow the rebuys log");
    while found.is_none() {
        let next = tokio::time::timeout(std::time::Duration::from_secs(15), following.next()).await.expect("the rebuys event comes");
        found = decode(&next.expect("connection").expect("message").payload);
    }
    found.expect("found")
}

/// Cancels `t` in play through the abort service, asking again while it has not read the start
/// or cannot build the snapshot yet (it never guesses); returns its events.
async fn cancel_in_play(world: &World, t: TournamentId) -> Vec<AbortEvent> {
    let cancel = abort::Cancel {
        command_id: CommandId::new(),
        tournament_id: t,
        reason: "the venue closes".into(),
        method: floor_events::abort::statement::Method::default(),
        cause: None,
    };
    let mut reply = world.request_once_read(subjects::service::ABORT, "cancel", &cancel, codes::TOURNAMENT_NOT_STARTED).await;
    if matches!(&reply, Reply::Error(e) if e.code == codes::SNAPSHOT_UNAVAILABLE) {
        reply = world.request_once_read(subjects::service::ABORT, "cancel", &cancel, codes::SNAPSHOT_UNAVAILABLE).await;
    }
    recorded(reply)
}

fn purchase(t: TournamentId, player: &str) -> Purchase {
    Purchase { command_id: CommandId::new(), tournament_id: t, player: PlayerId::parse(player).unwrap(), entry: None }
}

/// Defect 2: after a cancellation in play, the rebuy the bust was offered, a decline, and the
/// add-on of a tournament at its add-on break are refused with `tournament_cancelled`, and the
/// rebuys log holds no purchase (before issue 33: `add_on_taken`, EUR 10 charged, and
/// `add_chips` to a closed table).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue_33_a_tournament_cancelled_in_play_sells_no_rebuy_or_add_on() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;

    // One busts in the rebuy period and is offered a rebuy; the tournament is cancelled.
    let offered = world.create(heads_up_with_rebuys_and_add_on()).await;
    // The other is at its add-on break (the director ended the rebuy period) when cancelled.
    let at_the_break = world.create(heads_up_with_rebuys_and_add_on()).await;
    for t in [offered, at_the_break] {
        for player in ["ana", "ben"] {
            assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
        }
    }
    let (_, loser) = world.first_hand_busts_the_second(offered).await;
    let RebuyEvent::RebuyOffered { entry, player: bust, .. } =
        rebuys_log_until(&world, offered, |e| matches!(e, RebuyEvent::RebuyOffered { .. })).await
    else {
        unreachable!()
    };
    assert_eq!(entry, loser.entry, "the bust is offered a rebuy");
    rebuys_log_until(&world, at_the_break, |e| matches!(e, RebuyEvent::RebuyPeriodOpened { .. })).await;
    let end_rebuys = DirectorRequest { command_id: CommandId::new(), tournament_id: at_the_break };
    let ended = world.request(subjects::service::REBUYS, verbs::END_REBUYS.name(), &end_rebuys).await;
    assert!(matches!(recorded::<RebuyEvent>(ended).as_slice(), [RebuyEvent::RebuyPeriodEnded { add_on_open: true, .. }]));

    for t in [offered, at_the_break] {
        let cancelled = cancel_in_play(&world, t).await;
        assert!(matches!(cancelled.as_slice(), [AbortEvent::Cancelled { .. }]), "{cancelled:?}");
        // The rebuys policy reads the cancellation and closes buying, for good.
        let closed = rebuys_log_until(&world, t, |e| matches!(e, RebuyEvent::PurchasesClosed { .. })).await;
        assert!(matches!(closed, RebuyEvent::PurchasesClosed { cause: ClosedCause::Cancelled, .. }), "{closed:?}");
    }

    let refused = [
        ("the rebuy offered before the cancellation", offered, verbs::REBUY.name(), bust.as_str().to_owned()),
        ("declining it", offered, verbs::DECLINE.name(), bust.as_str().to_owned()),
        ("the add-on at the break", at_the_break, verbs::ADD_ON.name(), "ana".to_owned()),
        ("a rebuy after the break", at_the_break, verbs::REBUY.name(), "ben".to_owned()),
    ];
    for (case, t, verb, player) in refused {
        let before = rebuys_log(&world, t).await;
        let reply = world.request(subjects::service::REBUYS, verb, &purchase(t, &player)).await;
        assert_eq!(refusal_code(&reply), codes::TOURNAMENT_CANCELLED, "{case}: {reply:?}");
        assert_eq!(rebuys_log(&world, t).await, before, "{case}: nothing written");
    }
    for t in [offered, at_the_break] {
        let log = rebuys_log(&world, t).await;
        let after = log.iter().skip_while(|e| !matches!(e, RebuyEvent::PurchasesClosed { .. }));
        assert_eq!(after.count(), 1, "nothing after the close: {log:?}");
        assert!(!log.iter().any(|e| matches!(e, RebuyEvent::RebuyTaken { .. } | RebuyEvent::AddOnTaken { .. })), "nothing sold: {log:?}");
    }
    // The players' page says buying is over.
    world.lobby_when(at_the_break, |d| d["state"] == "cancelled" && d["rebuys"]["period"] == "over").await;
}

/// Sends a director's clock verb.
async fn clock(world: &World, verb: &str, request: &impl serde::Serialize) -> Reply<Value> {
    world.request(subjects::service::CLOCK, verb, request).await
}

/// Every director clock verb on `t`, each with a new command id.
async fn every_clock_verb(world: &World, t: TournamentId) -> Vec<(&'static str, Reply<Value>)> {
    let request = || ClockRequest { command_id: CommandId::new(), tournament_id: t };
    vec![
        ("resume", clock(world, clock_verbs::RESUME.name(), &request()).await),
        (
            "add time",
            clock(world, clock_verbs::ADJUST_TIME.name(), &AdjustTime { command_id: CommandId::new(), tournament_id: t, seconds: 60 })
                .await,
        ),
        (
            "skip",
            clock(world, clock_verbs::SKIP_TO_LEVEL.name(), &SkipToLevel { command_id: CommandId::new(), tournament_id: t, level: 2 })
                .await,
        ),
        ("end a break", clock(world, clock_verbs::END_BREAK.name(), &request()).await),
        ("start", clock(world, clock_verbs::START.name(), &request()).await),
        (
            "pause",
            clock(world, clock_verbs::PAUSE.name(), &PauseClock { command_id: CommandId::new(), tournament_id: t, reason: "late".into() })
                .await,
        ),
    ]
}

/// Defect 3, after the end: the clock of a tournament cancelled in play stops for good; a
/// director's resume, added time, skip, end of break, start or pause is refused with
/// `clock_stopped` and writes nothing; the lobby shows the clock stopped (before issue 33 it
/// was paused, and `clock resume` set it running in a cancelled tournament).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue_33_a_tournament_cancelled_in_play_stops_its_clock_for_good() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = world.create(heads_up(ten_minute_levels())).await;
    let mut watch = world.watch_clock(t).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    watch.next_where(|e| matches!(e, ClockEvent::StepStarted { .. })).await;

    assert!(matches!(cancel_in_play(&world, t).await.as_slice(), [AbortEvent::Cancelled { .. }]));
    watch.next_where(|e| matches!(e, ClockEvent::Stopped { .. })).await;

    let before = world.clock_events(t).await;
    for (verb, reply) in every_clock_verb(&world, t).await {
        assert_eq!(refusal_code(&reply), codes::CLOCK_STOPPED, "{verb}: {reply:?}");
    }
    assert_eq!(world.clock_events(t).await, before, "refusals write nothing");
    world.lobby_when(t, |d| d["state"] == "cancelled" && d["clock"]["status"] == "stopped").await;
}

/// Defect 3, while play stands: a suspension holds the clock. A director's resume, skip, end of
/// break or start is refused with `tournament_suspended` and writes nothing (before issue 33
/// `clock resume` restarted the blinds while every table was paused); added time is taken (it
/// starts nothing); the resume of play resumes the clock, which then runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue_33_only_the_resume_of_play_restarts_a_suspended_tournament_s_clock() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = world.create(heads_up(ten_minute_levels())).await;
    let mut watch = world.watch_clock(t).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    watch.next_where(|e| matches!(e, ClockEvent::StepStarted { .. })).await;

    let suspend = abort::Suspend { command_id: CommandId::new(), tournament_id: t, reason: "the card room's network".into() };
    let suspended = world.request_once_read(subjects::service::ABORT, "suspend", &suspend, codes::TOURNAMENT_NOT_STARTED).await;
    assert!(matches!(recorded::<AbortEvent>(suspended).as_slice(), [AbortEvent::Suspended { .. }]));
    let (held, _) = watch.next_where(|e| matches!(e, ClockEvent::PlaySuspended { .. })).await;
    assert!(matches!(held, ClockEvent::PlaySuspended { paused_clock: true, .. }), "the running clock paused: {held:?}");
    let paused = world.clock_events(t).await;
    assert!(
        paused.iter().any(|e| matches!(e, ClockEvent::Paused { reason, .. } if reason == "suspended: the card room's network")),
        "{paused:?}"
    );

    let before = world.clock_events(t).await;
    for (verb, reply) in every_clock_verb(&world, t).await {
        let expected = match verb {
            "add time" => continue,
            // Paused already, by the suspension.
            "pause" => codes::CLOCK_PAUSED,
            _ => codes::TOURNAMENT_SUSPENDED,
        };
        assert_eq!(refusal_code(&reply), expected, "{verb}: {reply:?}");
    }
    let after: Vec<ClockEvent> = world.clock_events(t).await.into_iter().skip(before.len()).collect();
    assert!(matches!(after.as_slice(), [ClockEvent::TimeAdjusted { seconds: 60, .. }]), "only the added time is written: {after:?}");

    let resume = abort::AbortRequest { command_id: CommandId::new(), tournament_id: t };
    let resumed = world.request(subjects::service::ABORT, "resume", &resume).await;
    assert!(matches!(recorded::<AbortEvent>(resumed).as_slice(), [AbortEvent::Resumed { .. }]));
    watch.next_where(|e| matches!(e, ClockEvent::PlayResumed { .. })).await;
    let log = world.clock_events(t).await;
    let last_two: Vec<_> = log.iter().rev().take(2).collect();
    assert!(
        matches!(last_two.as_slice(), [ClockEvent::PlayResumed { .. }, ClockEvent::Resumed { .. }]),
        "the resume of play resumed the clock: {log:?}"
    );
    let request = ClockRequest { command_id: CommandId::new(), tournament_id: t };
    assert_eq!(refusal_code(&clock(&world, clock_verbs::RESUME.name(), &request).await), codes::CLOCK_RUNNING, "it runs");
    world.lobby_when(t, |d| d["play"]["suspended"].is_null() && d["clock"]["status"] == "running").await;
}
