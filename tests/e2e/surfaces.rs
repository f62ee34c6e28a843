//! What directors and players touch: the lobby over HTTP, the director commands, player limits,
//! and the refusal of a too-old nats-server.

use floor::director::{read_definition, Director};
use floor_events::player::{EntryLimits, SetPlayerLimits};
use floor_events::registration::verbs;
use floor_events::{codes, CommandId, PlayerId, Reply};
use floor_runtime::bootstrap::{self, BootstrapErrorKind};
use floor_tests::{freezeout, http_get, http_request, World};
use std::path::Path;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registration_shows_up_in_the_lobby_over_http() {
    let world = World::start().await;
    let tournament = world.create(freezeout(100)).await;
    assert!(matches!(world.register(tournament, "alice").await, Reply::Ok(_)));
    world.lobby_when(tournament, |d| d["entrants"] == 1).await;
    let http = world.platform().http().expect("lobby serves HTTP");

    let (status, body) = http_get(http, &format!("/api/tournaments/{tournament}")).await;
    let (list_status, list) = http_get(http, "/api/tournaments").await;
    let (missing, error) = http_get(http, &format!("/api/tournaments/{}", floor_events::TournamentId::new())).await;

    assert_eq!(status, 200);
    let doc: serde_json::Value = serde_json::from_str(&body).expect("json document");
    assert_eq!((doc["entrants"].as_u64(), doc["unique_players"].as_u64()), (Some(1), Some(1)));
    assert_eq!(doc["prize_pool"]["overlay"]["amount"], 100_000 - 1_000);
    assert_eq!(list_status, 200);
    // Issue 23: the list is paged: the documents under `tournaments`, with the page's numbers.
    let list: serde_json::Value = serde_json::from_str(&list).expect("json list");
    assert_eq!((list["tournaments"].as_array().map(Vec::len), list["total"].as_u64()), (Some(1), Some(1)));
    assert_eq!(missing, 404);
    let error: serde_json::Value = serde_json::from_str(&error).expect("json error");
    assert_eq!(error["error"]["code"], codes::UNKNOWN_TOURNAMENT);
}

/// The lobby stores its documents in batches, so a tournament can be in the log a few
/// milliseconds before the lobby has it. Read at once, it is still shown, never unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_read_over_http_the_moment_it_is_created_is_shown() {
    let world = World::start().await;
    let http = world.platform().http().expect("lobby serves HTTP");
    for _ in 0..5 {
        let tournament = world.create(freezeout(100)).await;
        let (status, body) = http_get(http, &format!("/api/tournaments/{tournament}")).await;
        assert_eq!(status, 200, "{body}");
        let doc: serde_json::Value = serde_json::from_str(&body).expect("json document");
        assert_eq!(doc["tournament_id"], tournament.to_string());
    }
    let (status, _) = http_get(http, "/api/tournaments/not-a-uuid").await;
    assert_eq!(status, 404, "an id that cannot be a tournament is unknown at once");
}

/// Issue 39: a director's write is visible to the next read. `floor register …` then `floor
/// tournament show` (or `list`) right after showed the entries from before: the lobby stores in
/// batches. A command on a tournament now answers once the lobby has taken its commit, so each
/// read here, made the moment the write answered, already shows it, with no waiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directors_write_is_visible_to_the_next_read() {
    let world = World::start().await;
    let director = Director::join(&world.nats.url(), &world.service).await.expect("director joins");
    let t = director.create_tournament(floor_tests::freezeout(100)).await.expect("created");
    for (i, player) in ["ann", "ben", "cat"].into_iter().enumerate() {
        director.register(t, PlayerId::parse(player).unwrap()).await.expect("registered");
        let shown = director.tournament(t.0).await.expect("shown");
        assert_eq!(shown["entrants"], i + 1, "the read right after the write: {shown}");
        let listed = director.lobby().await.expect("listed");
        let doc = listed.iter().find(|d| d["tournament_id"] == t.to_string()).expect("listed");
        assert_eq!(doc["entrants"], i + 1, "the list right after the write");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn director_commands_find_the_platform_from_the_recorded_url() {
    let world = World::start().await;
    let data = tempfile::tempdir().expect("temp dir");
    std::fs::write(bootstrap::recorded_url_path(data.path()), format!("{}\n", world.nats.url())).expect("url file");
    // The credential the directory keeps (issue 34): here the world's service user.
    let floor_runtime::credentials::Auth::UserPassword { user, password } = &world.service.auth else { panic!("a secure world") };
    let director = floor_runtime::credentials::role_file(data.path(), floor_runtime::roles::Role::Director);
    std::fs::create_dir_all(director.parent().expect("dir")).expect("credentials dir");
    std::fs::write(director, format!("NATS_USER={user}\nNATS_PASSWORD={password}\n")).expect("credential file");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/sunday-major.toml");

    let director = Director::connect(data.path()).await.expect("director connects");
    let tournament = director.create_tournament(read_definition(&example).expect("example reads")).await.expect("created");
    let shown = director.tournament(tournament.0).await.expect("shown the moment it is created");
    let unknown = director.tournament(uuid::Uuid::new_v4()).await.expect_err("no such tournament");
    let entry = director.register(tournament, PlayerId::parse("alice").unwrap()).await.expect("registered");
    let again = director.register(tournament, PlayerId::parse("alice").unwrap()).await;

    assert_eq!(shown["name"], "Sunday Major");
    assert!(unknown.message.starts_with(codes::UNKNOWN_TOURNAMENT), "{}", unknown.message);
    assert_eq!(entry.entry.0, 1);
    assert!(again.unwrap_err().message.starts_with(codes::ALREADY_REGISTERED));
    world.lobby_when(tournament, |d| d["entrants"] == 1 && d["name"] == "Sunday Major").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_at_their_daily_limit_is_refused_but_may_finish_what_they_entered() {
    let world = World::start().await;
    let mut re_entry = freezeout(100);
    re_entry.entry_model = floor_events::tournament::EntryModel::ReEntry { max_entries: 3 };
    let first = world.create(re_entry).await;
    let second = world.create(freezeout(100)).await;
    let limits = SetPlayerLimits {
        command_id: CommandId::new(),
        player: PlayerId::parse("carol").unwrap(),
        limits: EntryLimits { per_day: Some(1), per_week: None, per_month: None },
    };
    assert!(matches!(world.send(verbs::SET_PLAYER_LIMITS.name(), &limits).await, Reply::Ok(_)));

    let entered = world.register(first, "carol").await;
    let refused = world.register(second, "carol").await;
    let eliminate =
        floor_events::registration::EliminateEntry { command_id: CommandId::new(), tournament_id: first, entry: floor_events::EntryNo(1) };
    assert!(matches!(world.send(verbs::ELIMINATE_ENTRY.name(), &eliminate).await, Reply::Ok(_)));
    let re_entered = world.register(first, "carol").await;

    assert!(matches!(entered, Reply::Ok(_)), "{entered:?}");
    assert!(matches!(refused, Reply::Error(ref e) if e.code == codes::ENTRY_LIMIT_REACHED), "{refused:?}");
    assert!(matches!(re_entered, Reply::Ok(_)), "a re-entry into a counted tournament is not a new tournament: {re_entered:?}");
}

/// Issue 38, 002 §2.3: "Innan en Kund tillåts delta i en turnering måste han också sätta
/// gränser för hur många turneringar han ska få delta i" (before a customer may take part in a
/// tournament, they must set limits per day, calendar week and calendar month). In a
/// svenska-spel-2012 tournament a player without them is refused (`limits_not_set`, no entry
/// stored); with only a daily one still refused; with all three, entered. Another profile's
/// tournament takes a player without limits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_svenska_spel_a_player_sets_limits_before_a_first_tournament() {
    let world = World::start().await;
    let svenska = world
        .create(floor_events::tournament::TournamentDefinition { profile: floor_events::RuleProfile::SvenskaSpel2012, ..freezeout(100) })
        .await;
    let tda = world.create(freezeout(100)).await;
    let set = |per_week, per_month| SetPlayerLimits {
        command_id: CommandId::new(),
        player: PlayerId::parse("dora").unwrap(),
        limits: EntryLimits { per_day: Some(2), per_week, per_month },
    };
    let refused = world.register(svenska, "dora").await;
    assert!(matches!(&refused, Reply::Error(e) if e.code == codes::LIMITS_NOT_SET), "{refused:?}");
    assert!(world
        .commits(svenska)
        .await
        .iter()
        .flat_map(|c| &c.events)
        .all(|e| !matches!(e, floor_events::registration::TournamentEvent::EntryRegistered(_))));
    assert!(matches!(world.register(tda, "dora").await, Reply::Ok(_)), "tda-2024 asks for no limits");

    assert!(matches!(world.send(verbs::SET_PLAYER_LIMITS.name(), &set(None, None)).await, Reply::Ok(_)));
    let daily_only = world.register(svenska, "dora").await;
    assert!(matches!(&daily_only, Reply::Error(e) if e.code == codes::LIMITS_NOT_SET), "day, week and month: {daily_only:?}");
    assert!(matches!(world.send(verbs::SET_PLAYER_LIMITS.name(), &set(Some(5), Some(10))).await, Reply::Ok(_)));
    let entered = world.register(svenska, "dora").await;
    assert!(matches!(entered, Reply::Ok(_)), "{entered:?}");
}

/// Issue 16: this test used to return early unless Debian's nats-server 2.9 happened to be
/// installed. It now always runs, against fakes of an old server: a binary whose `--version`
/// says v2.9.10 (what `floor run` finds on disk), and a listener that greets like a 2.9.10
/// server (what `NATS_URL` can point at).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nats_server_older_than_2_10_is_refused_with_a_reason() {
    use floor_runtime::server::{self, ServerErrorKind};
    let dir = tempfile::tempdir().expect("temp dir");
    let old = dir.path().join("nats-server");
    std::fs::write(&old, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'nats-server: v2.9.10'; exit 0; fi\nexit 1\n")
        .expect("fake binary");
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("executable");
    let url = old_server_greeting("2.9.10").await;

    let found = server::binary_version(&old);
    let not_started = server::find_binary_among([old.clone()]).expect_err("a 2.9 binary is not used");
    let refused = bootstrap::connect(&url).await.expect_err("2.9 must be refused");

    assert_eq!(found, Some((2, 9)));
    assert_eq!(not_started.kind(), ServerErrorKind::TooOld);
    assert!(not_started.to_string().contains("v2.9") && not_started.to_string().contains("2.10"), "names both: {not_started}");
    assert_eq!(refused.kind(), BootstrapErrorKind::ServerTooOld);
    assert!(refused.to_string().contains("2.10"), "the message says what is needed: {refused}");
}

/// A listener that speaks just enough of the NATS protocol to be connected to (INFO with
/// `version`, PONG to the client's PING) and nothing more; returns its URL.
async fn old_server_greeting(version: &'static str) -> String {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let info = format!(
                    "INFO {{\"server_id\":\"FAKE\",\"server_name\":\"fake\",\"version\":\"{version}\",\"proto\":1,\"host\":\"127.0.0.1\",\"port\":{port},\"headers\":true,\"max_payload\":1048576}}\r\n"
                );
                write.write_all(info.as_bytes()).await.ok()?;
                let mut lines = BufReader::new(read).lines();
                while let Some(line) = lines.next_line().await.ok()? {
                    if line.starts_with("PING") {
                        write.write_all(b"PONG\r\n").await.ok()?;
                    }
                }
                Some(())
            });
        }
    });
    format!("nats://127.0.0.1:{port}")
}

/// How the lobby answers for a tournament it has no document for: unknown when the log has
/// none either, the first document when it comes, "not yet" when it does not come in time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_waits_for_a_created_tournaments_first_document_and_only_for_that() {
    use floor_lobby::http::{document, NotShown};
    use std::time::Duration;
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    let bucket = backbone.jetstream.get_key_value(floor_events::subjects::LOBBY_BUCKET).await.expect("lobby bucket");
    let id = uuid::Uuid::new_v4();
    let patience = Duration::from_secs(30);

    assert_eq!(document(&bucket, &backbone.events, &id.to_string(), patience).await, Err(NotShown::Unknown), "not in the log");
    assert_eq!(document(&bucket, &backbone.events, "floor.>", patience).await, Err(NotShown::Unknown), "not a tournament id");

    let created = floor_events::subjects::event_subject(floor_events::subjects::aggregate::TOURNAMENT, id);
    backbone.jetstream.publish(created, r#"[{"v":1,"type":"created"}]"#.into()).await.expect("publish").await.expect("stored");
    let not_yet = document(&bucket, &backbone.events, &id.to_string(), Duration::from_millis(100)).await;
    assert_eq!(not_yet, Err(NotShown::NotYet), "in the log, no document within the time given");

    let waiting = tokio::spawn({
        let (bucket, events) = (bucket.clone(), backbone.events.clone());
        async move { document(&bucket, &events, &id.to_string(), patience).await }
    });
    bucket.put(id.to_string(), r#"{"entrants":0}"#.into()).await.expect("the lobby stores it");
    let shown = waiting.await.expect("task").expect("shown once stored");
    assert_eq!(&shown[..], br#"{"entrants":0}"#);
}

/// Issue 17, reproduction 7: every error the lobby answers over HTTP is JSON in the reply
/// envelope, `{"error":{"code","message"}}` with `application/json`, whatever the path holds
/// (a quote and a non-ASCII letter came back as Rust escapes) and for the router's own answers
/// (404 and 405 had an empty body and no content type).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_http_error_is_json_with_a_code() {
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.skip("seating");
        c.skip("payouts");
        c.skip("rebuys");
        c.skip("clock");
    })
    .await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let long = format!("/api/tournaments/{}", "x".repeat(10_000));
    let cases: Vec<(&str, &str, &str, u16, &str)> = vec![
        ("a quote in the id", "GET", "/api/tournaments/it%27s", 404, codes::UNKNOWN_TOURNAMENT),
        ("a non-ASCII id", "GET", "/api/tournaments/%C3%A9", 404, codes::UNKNOWN_TOURNAMENT),
        ("a backslash and a control character", "GET", "/api/tournaments/a%5C%22%0A", 404, codes::UNKNOWN_TOURNAMENT),
        ("an id that is not UTF-8", "GET", "/api/tournaments/%FF%FE", 400, codes::INVALID_FIELD),
        ("a 10 kB id", "GET", &long, 404, codes::UNKNOWN_TOURNAMENT),
        ("no such path", "GET", "/api/players", 404, codes::NOT_FOUND),
        ("below a tournament", "GET", "/api/tournaments/x/y", 404, codes::NOT_FOUND),
        ("a write to the list", "POST", "/api/tournaments", 405, codes::METHOD_NOT_ALLOWED),
        ("a delete of a tournament", "DELETE", "/api/tournaments/it%27s", 405, codes::METHOD_NOT_ALLOWED),
    ];

    for (case, method, path, status, code) in cases {
        let (got, content_type, body) = http_request(http, method, path).await;
        assert_eq!(got, status, "{case}: {body}");
        assert_eq!(content_type, "application/json", "{case}");
        let error: serde_json::Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{case}: not JSON ({e}): {body}"));
        assert_eq!(error["error"]["code"], code, "{case}");
        let message = error["error"]["message"].as_str().unwrap_or_else(|| panic!("{case}: no message: {body}"));
        assert!(message.len() < 1_000, "{case}: the message does not repeat the whole path ({} bytes)", message.len());
    }
}

/// Issue 38, 002 §2.3: a player shuts themselves out of every tournament for twelve hours
/// (`floor exclude --for 12h`): registration refuses them (`self_excluded`, nothing stored);
/// twelve hours later (the platform's clock moved) they may enter again; and a week's exclusion
/// is not shortened by a later twelve hours' one (`already_excluded`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_self_excluded_player_is_refused_until_the_exclusion_ends() {
    use floor_events::player::{ExcludePlayer, ExclusionPeriod};
    let manual = floor_runtime::ManualClock::new(chrono::Utc::now());
    let world = World::start_configured(|c| c.clock = std::sync::Arc::new(manual.clone())).await;
    let t = world.create(freezeout(100)).await;
    let exclude = |period| ExcludePlayer { command_id: CommandId::new(), player: PlayerId::parse("erik").unwrap(), period };
    assert!(matches!(world.send(verbs::EXCLUDE_PLAYER.name(), &exclude(ExclusionPeriod::TwelveHours)).await, Reply::Ok(_)));
    let refused = world.register(t, "erik").await;
    assert!(matches!(&refused, Reply::Error(e) if e.code == codes::SELF_EXCLUDED), "{refused:?}");
    assert!(world
        .commits(t)
        .await
        .iter()
        .flat_map(|c| &c.events)
        .all(|e| !matches!(e, floor_events::registration::TournamentEvent::EntryRegistered(_))));
    manual.advance(chrono::Duration::hours(12));
    let entered = world.register(t, "erik").await;
    assert!(matches!(entered, Reply::Ok(_)), "twelve hours later: {entered:?}");
    // A week's exclusion is never shortened by a twelve hours' one.
    assert!(matches!(world.send(verbs::EXCLUDE_PLAYER.name(), &exclude(ExclusionPeriod::OneWeek)).await, Reply::Ok(_)));
    let shorter = world.send(verbs::EXCLUDE_PLAYER.name(), &exclude(ExclusionPeriod::TwelveHours)).await;
    assert!(matches!(&shorter, Reply::Error(e) if e.code == codes::ALREADY_EXCLUDED), "{shorter:?}");
}
