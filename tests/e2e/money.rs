//! Issue 33: the ways money was lost, each reproduced as a user would meet it, through the
//! platform's own commands and the table protocol.

use floor_events::clock::{verbs as clock_verbs, BlindStructure, ClockEvent, Preset, SkipToLevel};
use floor_events::payouts::PayoutEvent;
use floor_events::registration::{verbs, RegistrationCloseCause, StartTournament, TournamentEvent};
use floor_events::tournament::TournamentDefinition;
use floor_events::{codes, subjects, CommandId, Reply};
use floor_tests::{freezeout, refusal_code, World};

/// Defect 1: the definition's deadline (tomorrow) outlived the structure's late-registration
/// level (level 6 of the standard preset). Skipping to level 7 used to leave registration open
/// while payouts locked its table: entries were sold into a pool the locked table never paid.
/// Now the end of the level closes registration in registration's own log, the next entry is
/// refused, and the table locks with every entry sold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_the_late_registration_level_closes_registration_and_the_locked_table_holds_every_entry() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let base = freezeout(100);
    let start = base.scheduled_start().expect("scheduled");
    let definition = TournamentDefinition {
        late_registration_until: Some(start + chrono::Duration::days(1)),
        structure: Some(BlindStructure::Preset(Preset::Standard)),
        guarantee: None,
        ..base
    };
    let t = world.create(definition).await;
    let mut tournament = world.watch_events::<TournamentEvent>(subjects::aggregate::TOURNAMENT, t).await;
    let mut payouts = world.watch_events::<PayoutEvent>(subjects::aggregate::PAYOUTS, t).await;
    let mut clock = world.watch_clock(t).await;
    for player in ["ana", "ben", "cleo"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    let start_now = StartTournament { command_id: CommandId::new(), tournament_id: t, now: true };
    assert!(matches!(world.send(verbs::START_TOURNAMENT.name(), &start_now).await, Reply::Ok(_)));
    clock.next_where(|e| matches!(e, ClockEvent::StepStarted { .. })).await;
    assert!(matches!(world.register(t, "dora").await, Reply::Ok(_)), "late registration is open at level 1");

    let skip = SkipToLevel { command_id: CommandId::new(), tournament_id: t, level: 7 };
    let reply = world.request(subjects::service::CLOCK, clock_verbs::SKIP_TO_LEVEL.name(), &skip).await;
    assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
    clock.next_where(|e| matches!(e, ClockEvent::LateRegistrationClosed { .. })).await;
    let closed = tournament.next_where(|e| matches!(e, TournamentEvent::RegistrationClosed(_))).await;
    let TournamentEvent::RegistrationClosed(closed) = closed else { unreachable!() };
    assert_eq!(closed.cause, RegistrationCloseCause::LateRegistrationLevel);

    let reply = world.register(t, "eve").await;
    assert_eq!(refusal_code(&reply), codes::REGISTRATION_CLOSED, "before the deadline, after the level: {reply:?}");
    let locked = payouts.next_where(|e| matches!(e, PayoutEvent::PayoutTableLocked { .. })).await;
    let PayoutEvent::PayoutTableLocked { entries, contributions, pool, .. } = locked else { unreachable!() };
    assert_eq!((entries, contributions.amount, pool.amount), (4, 4_000, 4_000), "every entry sold is in the locked table");
}

/// Defect 4: `report_id`s are unique within a tournament (docs/table-servers.md), and table
/// servers sent them as `Nats-Msg-Id`; the stream's duplicate window is one for every
/// tournament, so a second tournament whose table numbered its reports alike lost them (and, in
/// one run, was refunded as if nobody had played). Two heads-up sit & gos whose tables send the
/// same report ids, `h1-start` and `h1-end`, interleaved as two table servers would, each with
/// the contract's `Nats-Msg-Id` (`<tournament>.<table>.<report_id>`), both play to their winner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tournaments_whose_tables_send_the_same_report_ids_both_play_to_the_end() {
    use floor_events::table::Report;
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let mut tournaments = Vec::new();
    for _ in 0..2 {
        let t = world.create(floor_tests::heads_up(floor_tests::ten_minute_levels())).await;
        for player in ["ana", "ben"] {
            assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
        }
        let seated = world.seated(t, 2).await;
        let log = world.watch_events::<TournamentEvent>(subjects::aggregate::TOURNAMENT, t).await;
        tournaments.push((t, seated, log));
    }
    for (t, seated, _) in &tournaments {
        world
            .report(*t, "h1-start", Report::HandStarted { hand: 1, button: seated[0].seat, stacks: seated.clone(), deal_hand: None })
            .await;
    }
    for (t, seated, _) in &tournaments {
        world.report(*t, "h1-end", floor_tests::busts(1, seated[0], seated[1])).await;
    }
    for (t, seated, mut log) in tournaments {
        let TournamentEvent::TournamentFinished(f) = log.next_where(|e| matches!(e, TournamentEvent::TournamentFinished(_))).await else {
            unreachable!()
        };
        assert_eq!(f.winner, seated[0].entry, "{t} played to its winner");
        world.lobby_when(t, |d| d["state"] == "finished").await;
    }
}

/// Defect 5: the books believed any well-formed event. A `tournament_cancelled` with an empty
/// refund list, published straight into the log, left 33.00 paid in, nothing refunded and
/// `balanced: true`. The books now reconcile what was paid in against what went out: they say
/// the players' money was not refunded, and `floor status` names the tournament (KV
/// `floor-books`) and is no longer healthy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_cancellation_that_refunds_nobody_unbalances_the_books_and_floor_status_says_so() {
    use floor_events::payouts::{verbs as payouts, Books, BooksRequest};
    use floor_events::registration::{CancellationReason, TournamentCancelled};
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = world.create(freezeout(10)).await;
    for player in ["ana", "ben", "cleo"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    let forged = TournamentEvent::TournamentCancelled(TournamentCancelled {
        reason: CancellationReason::Director { reason: "forged".into() },
        refunds: vec![],
        at: chrono::Utc::now(),
    });
    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, t.0);
    let body = floor_events::record::encode_commit(&[forged]);
    world.jetstream().publish(subject, body.into()).await.expect("publish").await.expect("stored");

    let bucket = world.jetstream().get_key_value(subjects::BOOKS_BUCKET).await.expect("the books bucket");
    let mut watch = bucket.watch_with_history(t.to_string()).await.expect("watch");
    let entry = tokio::time::timeout(floor_tests::DEADLINE, futures::StreamExt::next(&mut watch))
        .await
        .expect("payouts reports the books in time")
        .expect("an entry")
        .expect("readable");
    let reported: Books = serde_json::from_slice(&entry.value).expect("books");
    assert!(!reported.balanced, "{reported:?}");
    let why = reported.unbalanced.clone().unwrap_or_default();
    assert!(why.contains("not refunded") && why.contains("3 entries without a refund"), "{why}");

    let reply = world.request(subjects::service::PAYOUTS, payouts::BOOKS.name(), &BooksRequest { tournament_id: t }).await;
    let Reply::Ok(books) = reply else { panic!("{reply:?}") };
    let books: Books = serde_json::from_value(books).expect("books");
    assert!(!books.balanced && books.paid_in == 3_300 && books.refunded == 0 && books.held == 3_000, "{books:?}");

    let status = floor_runtime::health::unbalanced_books(world.jetstream()).await.expect("status");
    assert_eq!(status.iter().map(|b| b.tournament_id).collect::<Vec<_>>(), vec![t], "floor status names it");
}
