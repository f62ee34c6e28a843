//! Issue 17 over NATS: what a new user typed that broke Floor or its books is refused with its
//! own code, writes no event, and is never echoed back whole.

use floor_events::clock::verbs as clock_verbs;
use floor_events::registration::{verbs, CancelTournament, CreateTournament};
use floor_events::schedule::verbs as schedule_verbs;
use floor_events::{codes, subjects, CommandId, Reply, TournamentId};
use floor_tests::{freezeout, World};
use serde_json::{json, Value};

#[track_caller]
fn assert_code(reply: &Reply<Value>, code: &str, case: &str) {
    match reply {
        Reply::Error(e) => {
            assert_eq!(e.code, code, "{case}: {}", e.message);
            assert!(e.message.len() < 1_000, "{case}: {} bytes of message", e.message.len());
        }
        Reply::Ok(v) => panic!("{case}: accepted: {v}"),
    }
}

fn create(definition: Value) -> Value {
    json!({ "command_id": CommandId::new(), "definition": definition })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn money_time_text_and_ids_that_broke_floor_get_their_codes_and_write_nothing() {
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.skip("seating");
        c.skip("payouts");
        // It configures every tournament it sees created: an event this test does not count.
        c.skip("bubble");
    })
    .await;
    let open = world.create(freezeout(10)).await;
    let before = world.last_sequence().await;
    let sane = serde_json::to_value(freezeout(10)).expect("definition");
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut d = sane.clone();
        edit(&mut d);
        create(d)
    };
    let huge = "x".repeat(500_000);
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "buy-in and fee of i64::MAX",
            with(&|d| {
                d["buy_in"]["amount"] = json!(i64::MAX);
                d["fee"]["on_top"]["amount"] = json!(i64::MAX);
            }),
            codes::AMOUNT_TOO_LARGE,
        ),
        (
            "buy-in and fee of u64::MAX",
            with(&|d| {
                d["buy_in"]["amount"] = json!(u64::MAX);
                d["fee"]["on_top"]["amount"] = json!(u64::MAX);
            }),
            codes::AMOUNT_TOO_LARGE,
        ),
        ("starting stack of u64::MAX", with(&|d| d["starting_stack"] = json!(u64::MAX)), codes::CHIPS_TOO_LARGE),
        ("a fee above the buy-in", with(&|d| d["fee"]["on_top"]["amount"] = json!(5_000)), codes::FEE_TOO_HIGH),
        (
            "currency XYZ",
            with(&|d| {
                for field in ["buy_in", "guarantee"] {
                    d[field]["currency"] = json!("XYZ");
                }
                d["fee"]["on_top"]["currency"] = json!("XYZ");
            }),
            codes::UNKNOWN_CURRENCY,
        ),
        ("a start in the past", with(&|d| d["start"] = json!({"at": "2020-01-01T00:00:00Z"})), codes::START_IN_THE_PAST),
        ("a name with escape codes", with(&|d| d["name"] = json!("Sunday\u{1b}[2J\nMajor")), codes::CONTROL_CHARACTER),
        ("a name of half a megabyte", with(&|d| d["name"] = json!(huge)), codes::TEXT_TOO_LONG),
        (
            "the nil UUID as tournament id",
            json!({ "command_id": CommandId::new(), "tournament_id": uuid::Uuid::nil(), "definition": sane }),
            codes::INVALID_FIELD,
        ),
    ];
    for (case, request, code) in &cases {
        assert_code(&world.send(verbs::CREATE_TOURNAMENT.name(), request).await, code, case);
    }
    let cancel = |reason: &str| CancelTournament { command_id: CommandId::new(), tournament_id: open, reason: reason.to_owned() };
    assert_code(&world.send(verbs::CANCEL_TOURNAMENT.name(), &cancel("")).await, codes::REASON_REQUIRED, "cancel --reason \"\"");
    assert_code(&world.send(verbs::CANCEL_TOURNAMENT.name(), &cancel(&huge)).await, codes::TEXT_TOO_LONG, "a 500 kB reason");
    let bad_name = world.send(verbs::REGISTER.name(), &json!({"tournament_id": open, "player": huge})).await;
    assert_code(&bad_name, codes::INVALID_FIELD, "a 500 kB player name");

    let clock = |verb: &'static str, body: Value| {
        let world = &world;
        async move { world.request(subjects::service::CLOCK, verb, &body).await }
    };
    let unknown = TournamentId::new();
    assert_code(
        &clock(clock_verbs::PAUSE.name(), json!({"tournament_id": unknown})).await,
        codes::UNKNOWN_TOURNAMENT,
        "pause an unknown clock",
    );
    assert_eq!(world.last_sequence().await, before, "no rejected command wrote an event");

    let duplicate = CreateTournament { command_id: CommandId::new(), tournament_id: None, definition: freezeout(10) };
    assert!(matches!(world.send(verbs::CREATE_TOURNAMENT.name(), &duplicate).await, Reply::Ok(_)), "a sane definition still goes in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schedule_every_second_is_refused_and_writes_nothing() {
    let world = World::start_configured(|c| c.skip("seating")).await;
    let before = world.last_sequence().await;
    let template = |cron: &str| {
        json!({ "template": {
            "cron": cron, "time_zone": "Europe/Vienna",
            "tournament": {
                "name": "Flood", "table_size": 9, "starting_stack": 10000,
                "buy_in": { "amount": 500, "currency": "EUR" }, "fee": { "on_top": { "amount": 50, "currency": "EUR" } },
                "capacity": 90, "min_players": 2
            }
        }})
    };
    for cron in ["* * * * * *", "*/5 * * * * *", "0 */4 * * * *"] {
        let reply = world.request(subjects::service::SCHEDULER, schedule_verbs::ADD_TEMPLATE.name(), &template(cron)).await;
        assert_code(&reply, codes::SCHEDULE_TOO_FREQUENT, cron);
    }
    assert_eq!(world.last_sequence().await, before, "no template stored, no tournament created");
}
