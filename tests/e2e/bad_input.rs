//! Bad input gets its own error code and writes no event.

use floor_events::payouts::verbs as payouts;
use floor_events::registration::{verbs, EliminateEntry};
use floor_events::tournament::{EntryModel, Start};
use floor_events::{codes, subjects, CommandId, EntryNo, Reply, TournamentId};
use floor_tests::{freezeout, World};
use serde_json::json;

#[track_caller]
fn assert_code(reply: &Reply<serde_json::Value>, code: &str, case: &str) {
    match reply {
        Reply::Error(e) => assert_eq!(e.code, code, "{case}: {}", e.message),
        Reply::Ok(v) => panic!("{case}: accepted: {v}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_kind_of_bad_input_gets_its_own_code_and_no_event() {
    // Without the scheduler (it would start, here cancel, the tournament whose start passed)
    // seating and payouts (their reactions to the set-up would write events while the test counts them):
    // this test is about registration alone.
    // The platform's clock starts two hours back, so the tournament whose registration is to be
    // closed can be created before its start (a start in the past is refused, issue 17), then
    // moves to now.
    let clock = floor_runtime::ManualClock::new(chrono::Utc::now() - chrono::Duration::hours(2));
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.skip("seating");
        c.skip("payouts");
        // It configures every tournament it sees created: an event this test does not count.
        c.skip("bubble");
        c.clock = std::sync::Arc::new(clock.clone());
    })
    .await;
    let open = world.create(freezeout(2)).await;
    let mut past = freezeout(10);
    past.start = Start::At(chrono::Utc::now() - chrono::Duration::hours(1));
    let closed = world.create(past).await;
    clock.set(chrono::Utc::now());
    let mut reentry = freezeout(10);
    reentry.entry_model = EntryModel::ReEntry { max_entries: 2 };
    let capped = world.create(reentry).await;
    for (player, expect_ok) in [("alice", true), ("bob", true)] {
        assert_eq!(matches!(world.register(open, player).await, Reply::Ok(_)), expect_ok);
    }
    assert!(matches!(world.register(capped, "carol").await, Reply::Ok(_)));
    let eliminate = |entry| EliminateEntry { command_id: CommandId::new(), tournament_id: capped, entry: EntryNo(entry) };
    assert!(matches!(world.send(verbs::ELIMINATE_ENTRY.name(), &eliminate(1)).await, Reply::Ok(_)));
    assert!(matches!(world.register(capped, "carol").await, Reply::Ok(_)), "one re-entry is allowed");
    assert!(matches!(world.send(verbs::ELIMINATE_ENTRY.name(), &eliminate(2)).await, Reply::Ok(_)));
    let out_of_freezeout = EliminateEntry { command_id: CommandId::new(), tournament_id: open, entry: EntryNo(1) };
    assert!(matches!(world.send(verbs::ELIMINATE_ENTRY.name(), &out_of_freezeout).await, Reply::Ok(_)), "alice is out of the freezeout");
    let before = world.last_sequence().await;
    let mut short_table = freezeout(10);
    short_table.payout_table = Some(floor_events::tournament::FixedPayouts { shares_bps: vec![5_000, 3_000] });
    let short_table =
        floor_events::registration::CreateTournament { command_id: CommandId::new(), tournament_id: None, definition: short_table };

    let mut negative = serde_json::to_value(floor_events::registration::CreateTournament {
        command_id: CommandId::new(),
        tournament_id: None,
        definition: freezeout(10),
    })
    .unwrap();
    negative["definition"]["buy_in"]["amount"] = json!(-500);

    let cases: Vec<(&str, Reply<serde_json::Value>, &str)> = vec![
        ("unknown tournament", world.register(TournamentId::new(), "dave").await, codes::UNKNOWN_TOURNAMENT),
        ("registration closed", world.register(closed, "dave").await, codes::REGISTRATION_CLOSED),
        ("field full", world.register(open, "dave").await, codes::FIELD_FULL),
        ("second entry in a freezeout", world.register(open, "bob").await, codes::ALREADY_REGISTERED),
        ("re-entry past its cap", world.register(capped, "carol").await, codes::RE_ENTRY_CAP_REACHED),
        ("re-entry into a freezeout", world.register(open, "alice").await, codes::RE_ENTRY_NOT_ELIGIBLE),
        (
            "a payout table that does not pay the pool",
            world.send(verbs::CREATE_TOURNAMENT.name(), &short_table).await,
            codes::INVALID_DEFINITION,
        ),
        ("malformed JSON", world.send_raw(verbs::REGISTER.name(), b"{\"tournament_id\": ".to_vec()).await, codes::MALFORMED_JSON),
        (
            "wrong types",
            world.send(verbs::REGISTER.name(), &json!({"tournament_id": 42, "player": ["not", "a", "name"]})).await,
            codes::INVALID_FIELD,
        ),
        ("negative amounts", world.send(verbs::CREATE_TOURNAMENT.name(), &negative).await, codes::NEGATIVE_AMOUNT),
        (
            "invalid player name",
            world.send(verbs::REGISTER.name(), &json!({"tournament_id": open, "player": "no spaces allowed"})).await,
            codes::INVALID_FIELD,
        ),
        (
            "unregister nobody",
            world.send(verbs::UNREGISTER.name(), &json!({"tournament_id": open, "player": "zed"})).await,
            codes::NOT_REGISTERED,
        ),
        ("eliminate twice", world.send(verbs::ELIMINATE_ENTRY.name(), &eliminate(2)).await, codes::ENTRY_ALREADY_ELIMINATED),
    ];

    for (case, reply, code) in &cases {
        assert_code(reply, code, case);
    }
    assert_eq!(world.last_sequence().await, before, "no rejected command wrote an event");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn books_of_an_unknown_tournament_or_a_malformed_request_get_their_codes() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let books = |body: serde_json::Value| {
        let world = &world;
        async move { world.request(subjects::service::PAYOUTS, payouts::BOOKS.name(), &body).await }
    };
    assert_code(&books(json!({"tournament_id": TournamentId::new()})).await, codes::UNKNOWN_TOURNAMENT, "unknown tournament");
    assert_code(&books(json!({"tournament": "x"})).await, codes::INVALID_FIELD, "no tournament id");
    assert_code(&books(json!({"tournament_id": 7})).await, codes::INVALID_FIELD, "wrong type");
}
