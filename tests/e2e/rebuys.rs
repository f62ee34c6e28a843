//! Rebuys end to end: `floor sim --format rebuy` plays a tournament where players rebuy at zero
//! chips and take the add-on at the break, and it ends with balanced books and the payouts in the
//! lobby; requests that do not fit get their own codes and write nothing.

use floor::sim::{self, SimConfig};
use floor_events::rebuys::{verbs, DirectorRequest, Purchase, RebuyEvent};
use floor_events::table::{Instruction, Removal, TableInstruction};
use floor_events::tournament::{AddOnTerms, RebuyCondition, RebuyTerms, Start};
use floor_events::{codes, subjects, CommandId, Currency, Money, PlayerId, Reply, TournamentId};
use floor_runtime::JetStreamStore;
use floor_tests::{freezeout, World};

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

/// A heads-up sit & go with one EUR 10 + 1 rebuy per entry, offered for `offer_seconds`.
fn heads_up_with_rebuys(offer_seconds: u32, add_on: Option<AddOnTerms>) -> floor_events::tournament::TournamentDefinition {
    floor_events::tournament::TournamentDefinition {
        start: Start::SitAndGo,
        capacity: 2,
        min_players: 2,
        guarantee: None,
        rebuy: Some(RebuyTerms {
            price: eur(1_000),
            fee: eur(100),
            chips: 10_000,
            max_per_entry: 1,
            condition: RebuyCondition::AtZero,
            offer_seconds,
        }),
        add_on,
        ..freezeout(2)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuy_tournament_ends_with_balanced_books_and_its_payouts_in_the_lobby() {
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some([42; 32]);
    })
    .await;
    let entrants = 60;
    let t = TournamentId(uuid::Uuid::from_u128(0x5eb0));
    let config = SimConfig { rebuys: true, ..SimConfig::new(entrants, 9, t) };
    let summary = sim::run(&world.backbone, &config, |_| {}).await.unwrap_or_else(|e| panic!("rebuy sim: {e}"));
    let b = &summary.books;
    assert!(b.finished && b.balanced, "{b:?}");
    assert!(b.rebuys > 0 && b.add_ons > 0, "simulated players rebuy and add on: {b:?}");
    let (rebuys, add_ons) = (u64::from(b.rebuys), u64::from(b.add_ons));
    assert_eq!(
        b.paid_in,
        u64::from(entrants) * 1_100 + rebuys * 1_100 + add_ons * 1_000,
        "EUR 10 + 1 per entry and rebuy, EUR 10 per add-on"
    );
    assert_eq!(b.fees, (u64::from(entrants) + rebuys) * 100);
    assert_eq!((b.prize_pool, b.prizes_paid), (b.contributions, b.contributions));
    assert_eq!(b.contributions, (u64::from(entrants) + rebuys + add_ons) * 1_000);

    // The payout table was locked once buying was over, on the whole pool, and the lobby says so.
    let doc = world.lobby_when(t, |d| d["payouts"]["paid"] == true && d["rebuys"]["period"] == "over").await;
    assert_eq!(doc["payouts"]["locked"], true);
    assert_eq!(doc["payouts"]["pool"]["amount"], b.contributions);
    assert_eq!(doc["prize_pool"]["total"]["amount"], b.contributions);
    assert_eq!((doc["rebuys"]["rebuys"].as_u64(), doc["rebuys"]["add_ons"].as_u64()), (Some(rebuys), Some(add_ons)));
    assert_eq!(doc["rebuys"]["offers"].as_array().map(Vec::len), Some(0), "no offer left open");
    assert_eq!(doc["payouts"]["final_table"][0]["player"], summary.winner.as_str());

    // Every rebuy was offered first, at zero chips, and none went past its cap of two.
    let subject = subjects::event_subject(subjects::aggregate::REBUYS, t.0);
    let log: Vec<RebuyEvent> = JetStreamStore::new(&world.backbone)
        .load::<RebuyEvent>(&subject, 0)
        .await
        .expect("rebuys log")
        .into_iter()
        .flat_map(|c| c.events)
        .collect();
    let mut offered = std::collections::HashSet::new();
    for e in &log {
        match e {
            RebuyEvent::RebuyOffered { entry, .. } => assert!(offered.insert(*entry), "one open offer per entry"),
            RebuyEvent::RebuyTaken { entry, number, .. } => {
                assert!(offered.remove(entry), "entry {entry} rebought without an offer");
                assert!(*number <= 2);
            }
            RebuyEvent::RebuyForgone { entry, .. } => {
                offered.remove(entry);
            }
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rebuy_and_add_on_requests_that_do_not_fit_get_their_codes_and_write_nothing() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let definition = heads_up_with_rebuys(30, Some(AddOnTerms { price: eur(1_000), fee: eur(0), chips: 15_000 }));
    let t = world.create(definition).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    let subject = subjects::event_subject(subjects::aggregate::REBUYS, t.0);
    let store = JetStreamStore::new(&world.backbone);
    // The sit & go started when full: the rebuys service opens the period from the log.
    let opens = |body: &[u8]| {
        floor_events::record::decode_commit::<RebuyEvent>(body)
            .is_ok_and(|events| events.iter().any(|e| matches!(e, RebuyEvent::RebuyPeriodOpened { .. })))
    };
    let mut open = false;
    let mut following =
        floor_runtime::follow::follow(&world.backbone, vec![subject.clone()], |m| open |= opens(&m.payload)).await.expect("follow");
    while !open {
        let next =
            tokio::time::timeout(std::time::Duration::from_secs(10), following.next()).await.expect("the rebuy period opens at the start");
        open = opens(&next.expect("connection").expect("message").payload);
    }
    let buy = |verb: &'static str, player: &str| {
        let request = Purchase { command_id: CommandId::new(), tournament_id: t, player: PlayerId::parse(player).unwrap(), entry: None };
        let world = &world;
        async move { world.request(subjects::service::REBUYS, verb, &request).await }
    };
    let director = |verb: &'static str| {
        let request = DirectorRequest { command_id: CommandId::new(), tournament_id: t };
        let world = &world;
        async move { world.request(subjects::service::REBUYS, verb, &request).await }
    };
    let before = store.load::<RebuyEvent>(&subject, 0).await.expect("log").len();
    let refused = [
        ("a player not in the tournament", buy(verbs::REBUY.name(), "zoe").await, codes::NOT_REGISTERED),
        ("a rebuy with chips left (002: only at zero)", buy(verbs::REBUY.name(), "ana").await, codes::REBUY_NOT_ALLOWED),
        ("an add-on before the break", buy(verbs::ADD_ON.name(), "ana").await, codes::ADD_ON_CLOSED),
        ("declining with chips left", buy(verbs::DECLINE.name(), "ben").await, codes::REBUY_NOT_ALLOWED),
    ];
    for (case, reply, code) in refused {
        assert!(matches!(&reply, Reply::Error(e) if e.code == code), "{case}: {reply:?}");
    }
    assert_eq!(store.load::<RebuyEvent>(&subject, 0).await.expect("log").len(), before, "refusals write nothing");

    assert!(matches!(director(verbs::END_REBUYS.name()).await, Reply::Ok(_)));
    assert!(matches!(buy(verbs::ADD_ON.name(), "ana").await, Reply::Ok(_)), "the add-on at the break");
    let before = store.load::<RebuyEvent>(&subject, 0).await.expect("log").len();
    let refused = [
        ("an add-on twice", buy(verbs::ADD_ON.name(), "ana").await, codes::ADD_ON_TAKEN),
        ("a rebuy after the period", buy(verbs::REBUY.name(), "ben").await, codes::REBUY_PERIOD_CLOSED),
    ];
    for (case, reply, code) in refused {
        assert!(matches!(&reply, Reply::Error(e) if e.code == code), "{case}: {reply:?}");
    }
    assert_eq!(store.load::<RebuyEvent>(&subject, 0).await.expect("log").len(), before, "refusals write nothing");

    // A freezeout has no rebuys service state at all.
    let plain = world.create(freezeout(10)).await;
    let request = Purchase { command_id: CommandId::new(), tournament_id: plain, player: PlayerId::parse("ana").unwrap(), entry: None };
    let reply = world.request(subjects::service::REBUYS, verbs::ADD_ON.name(), &request).await;
    assert!(matches!(&reply, Reply::Error(e) if e.code == codes::UNKNOWN_TOURNAMENT), "{reply:?}");
}

/// Waits until the rebuys log of `t` has an event `wanted` accepts.
async fn rebuys_log_until(world: &World, t: TournamentId, wanted: impl Fn(&RebuyEvent) -> bool) -> RebuyEvent {
    let subject = subjects::event_subject(subjects::aggregate::REBUYS, t.0);
    let mut found = None;
    let mut following = floor_runtime::follow::follow(&world.backbone, vec![subject], |m| {
        if found.is_none() {
            found = floor_events::record::decode_commit::<RebuyEvent>(&m.payload).ok().and_then(|e| e.into_iter().find(&wanted));
        }
    })
    .await
    .expect("follow");
    while found.is_none() {
        let next = tokio::time::timeout(std::time::Duration::from_secs(15), following.next()).await.expect("the event comes");
        let message = next.expect("connection").expect("message");
        found = floor_events::record::decode_commit::<RebuyEvent>(&message.payload).ok().and_then(|e| e.into_iter().find(&wanted));
    }
    found.expect("found")
}

/// Nothing acknowledged is lost: the platform dies while a rebuy is offered; after the restart
/// the offer still lapses at its deadline, and the lapse eliminates the player and ends the
/// heads-up with a winner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_offer_lapses_at_its_deadline_even_across_a_restart_and_the_entry_is_out() {
    let mut world = World::start_configured(|c| c.skip("scheduler")).await;
    let definition = heads_up_with_rebuys(2, None);
    let t = world.create(definition).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    let (_, loser) = world.first_hand_busts_the_second(t).await;

    // The bust is offered a rebuy, and the table is told so it can hold its next hand.
    let offer = rebuys_log_until(&world, t, |e| matches!(e, RebuyEvent::RebuyOffered { .. })).await;
    let RebuyEvent::RebuyOffered { entry, until, .. } = offer else { unreachable!() };
    assert_eq!(entry, loser.entry);
    let told = |i: &[TableInstruction]| i.iter().any(|i| matches!(i.instruction, Instruction::RebuyOffered { entry: e, .. } if e == entry));
    world.instructions_when(t, told).await;

    world.restart_platform().await;
    let lapsed = rebuys_log_until(&world, t, |e| matches!(e, RebuyEvent::RebuyForgone { .. })).await;
    assert_eq!(lapsed, RebuyEvent::RebuyForgone { entry, reason: floor_events::rebuys::Forgone::Lapsed });
    assert!(chrono::Utc::now() >= until, "not before its deadline");
    let removed = |i: &[TableInstruction]| {
        i.iter().any(|i| matches!(i.instruction, Instruction::RemovePlayer { entry: e, reason: Removal::Eliminated } if e == entry))
    };
    let closed = |i: &[TableInstruction]| removed(i) && i.iter().any(|i| matches!(i.instruction, Instruction::CloseTable));
    world.instructions_when(t, closed).await;
    let doc = world.lobby_when(t, |d| d["live_entries"] == 1).await;
    assert_eq!(doc["rebuys"]["offers"].as_array().map(Vec::len), Some(0));
}

/// Issue 22: an offer does not lapse while play is suspended, and the resume makes it again
/// with its time. The platform's clock is the test's. Play is suspended while the first hand is
/// dealt; the hand's bust is offered a rebuy (60 s) during the suspension; two minutes pass,
/// past the offer's deadline, and nothing lapses; the resume makes the offer again, its whole
/// minute from the resume, and it lapses then. (The rebuys service reads the log in order: it
/// knows of the suspension before it makes the offer.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offer_does_not_lapse_while_play_is_suspended_and_the_resume_gives_its_time_back() {
    use floor_events::abort::{self, AbortEvent};
    let manual = floor_runtime::ManualClock::new(chrono::Utc::now());
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.clock = std::sync::Arc::new(manual.clone());
    })
    .await;
    let t = world.create(heads_up_with_rebuys(60, None)).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    world.seated(t, 2).await;
    let suspend = abort::Suspend { command_id: CommandId::new(), tournament_id: t, reason: "the card room's network".into() };
    let suspended = world.request_once_read(subjects::service::ABORT, "suspend", &suspend, codes::TOURNAMENT_NOT_STARTED).await;
    assert!(matches!(suspended, Reply::Ok(_)), "{suspended:?}");
    // The hand in progress at the suspension finishes with a bust: offered a rebuy.
    world.first_hand_busts_the_second(t).await;
    let RebuyEvent::RebuyOffered { entry, until, .. } = rebuys_log_until(&world, t, |e| matches!(e, RebuyEvent::RebuyOffered { .. })).await
    else {
        unreachable!()
    };
    manual.advance(chrono::Duration::minutes(2));
    assert!(floor_runtime::Clock::now(&manual) > until, "past the offer's deadline");
    let resume = abort::AbortRequest { command_id: CommandId::new(), tournament_id: t };
    let resumed = match world.request(subjects::service::ABORT, "resume", &resume).await {
        Reply::Ok(v) => serde_json::from_value::<abort::AbortRecorded>(v).expect("recorded").events,
        other => panic!("{other:?}"),
    };
    let [AbortEvent::Resumed { at: resumed_at, .. }] = resumed.as_slice() else { panic!("{resumed:?}") };

    let again = rebuys_log_until(&world, t, |e| matches!(e, RebuyEvent::RebuyOffered { until: u, .. } if *u > until)).await;
    let RebuyEvent::RebuyOffered { entry: again_entry, until: again_until, .. } = again else { unreachable!() };
    assert_eq!(again_entry, entry);
    assert_eq!(again_until, *resumed_at + chrono::Duration::seconds(60), "made during the suspension: its whole minute, from the resume");
    let subject = subjects::event_subject(subjects::aggregate::REBUYS, t.0);
    let log: Vec<RebuyEvent> =
        JetStreamStore::new(&world.backbone).load(&subject, 0).await.expect("rebuys log").into_iter().flat_map(|c| c.events).collect();
    assert!(!log.iter().any(|e| matches!(e, RebuyEvent::RebuyForgone { .. })), "nothing lapsed while suspended: {log:?}");

    manual.advance(chrono::Duration::seconds(61));
    let lapsed = rebuys_log_until(&world, t, |e| matches!(e, RebuyEvent::RebuyForgone { .. })).await;
    assert_eq!(lapsed, RebuyEvent::RebuyForgone { entry, reason: floor_events::rebuys::Forgone::Lapsed });
}
