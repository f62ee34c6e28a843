//! The director console (issue 23): a login with the password given at start, every action a
//! command whose event names the director, the state of every table, names shown as text; and
//! without a valid session (none, forged, expired, or a form from another session) every action
//! is refused and nothing is written.

use floor_events::clock::ClockEvent;
use floor_events::seating::SeatingEvent;
use floor_events::table::Report;
use floor_events::tournament::TournamentDefinition;
use floor_events::{Reply, TournamentId};
use floor_lobby::console::auth::PasswordHash;
use floor_lobby::console::ConsoleConfig;
use floor_tests::{freezeout, heads_up, http_request, ten_minute_levels, World, DEADLINE};
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PASSWORD: &str = "right horse battery";
const SCRIPT_NAME: &str = "<script>alert(1)</script>";

/// The console with few PBKDF2 rounds (a debug build hashes slowly) and 12-hour sessions.
fn console() -> ConsoleConfig {
    ConsoleConfig {
        credential: PasswordHash::with_iterations(PASSWORD, 1_000).expect("a long password"),
        session_ttl: chrono::Duration::hours(12),
        recovery_code: None,
    }
}

/// One HTTP/1.1 exchange: status, the headers (names lowercased) and the body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

async fn exchange(http: SocketAddr, method: &str, path: &str, cookie: Option<&str>, form: &[(&str, &str)]) -> Answer {
    let body: String = form.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect::<Vec<_>>().join("&");
    let cookie = cookie.map(|c| format!("Cookie: {c}\r\n")).unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {http}\r\n{cookie}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(http).await.expect("connect to the lobby");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    tokio::time::timeout(DEADLINE, stream.read_to_end(&mut response)).await.expect("response in time").expect("read");
    let response = String::from_utf8(response).expect("UTF-8");
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status line");
    let headers =
        head.lines().skip(1).filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_lowercase(), v.trim().to_owned())).collect();
    Answer { status, headers, body: body.to_owned() }
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// Signs in as `director`: the `Cookie` header value and the session's form token.
async fn sign_in(http: SocketAddr, director: &str) -> (String, String) {
    let answer = exchange(http, "POST", "/console/login", None, &[("director", director), ("password", PASSWORD)]).await;
    assert_eq!((answer.status, answer.header("location")), (303, Some("/console")), "{}", answer.body);
    let set = answer.header("set-cookie").expect("a session cookie");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/console", "Max-Age=43200"] {
        assert!(set.contains(attribute), "{attribute} in {set}");
    }
    let cookie = set.split(';').next().expect("name=value").to_owned();
    let index = exchange(http, "GET", "/console", Some(&cookie), &[]).await;
    assert_eq!(index.status, 200);
    (cookie, field(&index.body, "form_token"))
}

/// The value of the first hidden field `name` in `html`.
fn field(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker).unwrap_or_else(|| panic!("no field {name}")) + marker.len();
    html[start..].split('"').next().expect("value").to_owned()
}

/// A two-seat sit & go with ten-minute levels, named as a script.
fn heads_up_named_as_a_script() -> TournamentDefinition {
    TournamentDefinition { name: SCRIPT_NAME.into(), ..heads_up(ten_minute_levels()) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_director_signs_in_pauses_the_clock_with_a_reason_and_the_event_names_them() {
    let world = World::start_configured(|c| c.console = Some(console())).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let tournament = world.create(heads_up_named_as_a_script()).await;
    let mut clock = world.watch_clock(tournament).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(tournament, player).await, Reply::Ok(_)), "{player} registers");
    }
    clock.next_where(|e| matches!(e, ClockEvent::StepStarted { .. })).await;
    let seated = world.seated(tournament, 2).await;
    let seating = floor_events::subjects::event_subject(floor_events::subjects::aggregate::SEATING, tournament.0);
    let mut seating = floor_runtime::follow::follow(&world.backbone, vec![seating], |_| {}).await.expect("follow seating");
    world.report(tournament, "h1-start", Report::HandStarted { hand: 1, button: seated[0].seat, stacks: seated, deal_hand: None }).await;
    // The page shows the lobby's seat map: wait until seating has taken the report, then until
    // the seat map has folded that commit.
    let taken = async {
        while let Some(message) = seating.next().await {
            let message = message.expect("readable");
            let events: Vec<SeatingEvent> = floor_events::record::decode_commit(&message.payload).expect("a seating commit");
            if events.iter().any(|e| matches!(e, SeatingEvent::HandStarted { .. })) {
                return message.info().expect("a stream message").stream_sequence;
            }
        }
        panic!("the seating follow ended");
    };
    let started = tokio::time::timeout(DEADLINE, taken).await.expect("seating takes the report in time");
    world.seat_summary_when(tournament, |s| s.last_sequence >= started).await;

    let wrong = exchange(http, "POST", "/console/login", None, &[("director", "Mallory"), ("password", "wrong horse battery")]).await;
    let (cookie, _) = sign_in(http, "Ana <TD>").await;
    let page = exchange(http, "GET", &format!("/console/tournaments/{tournament}"), Some(&cookie), &[]).await;
    let (form_token, command_id) = (field(&page.body, "form_token"), field(&page.body, "command_id"));
    let paused = exchange(
        http,
        "POST",
        &format!("/console/tournaments/{tournament}/pause"),
        Some(&cookie),
        &[("form_token", &form_token), ("command_id", &command_id), ("reason", "dinner <b>break</b>")],
    )
    .await;
    let no_such_level = exchange(
        http,
        "POST",
        &format!("/console/tournaments/{tournament}/skip"),
        Some(&cookie),
        &[("form_token", &form_token), ("level", "9")],
    )
    .await;

    assert_eq!(wrong.status, 401, "a wrong password is refused");
    assert!(wrong.header("set-cookie").is_none(), "and opens no session");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !page.body.contains(SCRIPT_NAME), "the name is text");
    assert!(page.body.contains("1 open, 0 closed"), "the table of the draw");
    assert!(page.body.contains("#1 in play"), "its last hand");
    assert!(page.body.contains("ana (") && page.body.contains("ben ("), "its players");
    assert!(!page.body.contains("no report yet"), "it has reported");
    assert_eq!(paused.status, 200, "{}", paused.body);
    assert!(paused.body.contains("Clock paused"));
    assert!(paused.body.contains("Ana &lt;TD&gt;") && !paused.body.contains("Ana <TD>"), "who did it, as text");
    let pause = world.clock_events(tournament).await.into_iter().find_map(|e| match e {
        ClockEvent::Paused { reason, .. } => Some(reason),
        _ => None,
    });
    assert_eq!(pause.as_deref(), Some("dinner <b>break</b> (director: Ana <TD>)"), "the event names the director");
    assert!(paused.body.contains("dinner &lt;b&gt;break&lt;/b&gt;"), "the reason is shown as text");
    assert_eq!(no_such_level.status, 422, "a rejection is shown with its code: {}", no_such_level.body);
    assert!(no_such_level.body.contains("Refused: <code>"), "{}", no_such_level.body);

    // Suspend play from the console, once the abort service has read the tournament so far (its
    // start among it): the director's page then says play is suspended, and why.
    let suspend = |command_id: String| {
        let (cookie, form_token) = (cookie.clone(), form_token.clone());
        async move {
            let path = format!("/console/tournaments/{tournament}/suspend");
            let fields = [("form_token", form_token.as_str()), ("command_id", command_id.as_str()), ("reason", "storm over the venue")];
            exchange(http, "POST", &path, Some(&cookie), &fields).await
        }
    };
    world.read_by(floor_events::subjects::service::ABORT, tournament, u64::MAX).await;
    let suspended = suspend(uuid::Uuid::new_v4().to_string()).await;
    assert_eq!(suspended.status, 200, "{}", suspended.body);
    world.lobby_when(tournament, |d| d["play"]["suspended"].is_object()).await;
    let page = exchange(http, "GET", &format!("/console/tournaments/{tournament}"), Some(&cookie), &[]).await;
    assert!(page.body.contains("Play is suspended") && page.body.contains("storm over the venue"), "{}", page.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_director_creates_a_tournament_from_a_template_and_the_lobby_lists_it() {
    let world = World::start_configured(|c| c.console = Some(console())).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let (cookie, form_token) = sign_in(http, "Ana").await;
    let command_id = uuid::Uuid::new_v4().to_string();

    let created = exchange(
        http,
        "POST",
        "/console/tournaments",
        Some(&cookie),
        &[
            ("form_token", &form_token),
            ("command_id", &command_id),
            ("template", "turbo_freezeout"),
            ("name", SCRIPT_NAME),
            ("start_in_minutes", "30"),
        ],
    )
    .await;

    assert_eq!(created.status, 200, "{}", created.body);
    let tournament = TournamentId(command_id.parse().expect("uuid"));
    let doc = world.lobby_when(tournament, |_| true).await;
    assert_eq!(doc["name"], SCRIPT_NAME);
    assert!(created.body.contains("Created &lt;script&gt;"), "{}", created.body);
    // Its console page reads the bucket itself (the list reads the cache its watch fills, a
    // moment later).
    let page = exchange(http, "GET", &format!("/console/tournaments/{tournament}"), Some(&cookie), &[]).await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !page.body.contains(SCRIPT_NAME));
    assert!(page.body.contains("Start now"), "a registering tournament can be started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_valid_session_every_action_is_refused_and_nothing_is_written() {
    let manual = floor_runtime::ManualClock::new(chrono::Utc::now());
    // No bubble: it writes an event for every tournament created, and this test counts events.
    let world = World::start_configured(|c| {
        c.console = Some(console());
        c.clock = std::sync::Arc::new(manual.clone());
        c.skip("bubble");
    })
    .await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let tournament = world.create(freezeout(100)).await;
    world.lobby_when(tournament, |_| true).await;
    let (cookie, form_token) = sign_in(http, "Ana").await;
    let (_, other_form_token) = sign_in(http, "Ben").await;
    let before = world.last_sequence().await;
    let cancel = format!("/console/tournaments/{tournament}/cancel");
    let forged = format!("floor_console={}", "ab".repeat(32));
    let attempt = |cookie: Option<String>, token: String| {
        let cancel = cancel.clone();
        async move {
            let cancelled = exchange(http, "POST", &cancel, cookie.as_deref(), &[("form_token", &token), ("reason", "venue closed")]).await;
            let created = exchange(
                http,
                "POST",
                "/console/tournaments",
                cookie.as_deref(),
                &[("form_token", &token), ("template", "sit_and_go_9"), ("name", "Sneaky"), ("start_in_minutes", "5")],
            )
            .await;
            (cancelled.status, created.status)
        }
    };

    let no_cookie = attempt(None, form_token.clone()).await;
    let forged_cookie = attempt(Some(forged), form_token.clone()).await;
    let another_sessions_form = attempt(Some(cookie.clone()), other_form_token).await;
    let no_form_token = attempt(Some(cookie.clone()), String::new()).await;
    manual.advance(chrono::Duration::hours(12));
    let expired = attempt(Some(cookie.clone()), form_token).await;
    let expired_page = exchange(http, "GET", "/console", Some(&cookie), &[]).await;

    assert_eq!(no_cookie, (401, 401));
    assert_eq!(forged_cookie, (401, 401));
    assert_eq!(another_sessions_form, (403, 403), "a form token of another session (CSRF)");
    assert_eq!(no_form_token, (403, 403));
    assert_eq!(expired, (401, 401), "a session ends after its 12 hours");
    assert_eq!((expired_page.status, expired_page.header("location")), (303, Some("/console/login")));
    assert_eq!(world.last_sequence().await, before, "nothing was written");
    let audit = world.jetstream().get_key_value(floor_lobby::console::AUDIT_BUCKET).await.expect("audit bucket");
    let mut keys = audit.keys().await.expect("keys");
    assert!(futures::StreamExt::next(&mut keys).await.is_none(), "no director action recorded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_password_at_start_the_console_is_disabled_and_the_lobby_serves() {
    let world = World::start().await;
    let http = world.platform().http().expect("lobby serves HTTP");

    let index = exchange(http, "GET", "/console", None, &[]).await;
    let login = exchange(http, "POST", "/console/login", None, &[("director", "Ana"), ("password", "")]).await;
    let (lobby, _, _) = http_request(http, "GET", "/").await;

    assert_eq!(index.status, 404);
    assert!(index.body.contains("console is disabled"), "{}", index.body);
    assert_eq!(login.status, 404);
    assert!(login.header("set-cookie").is_none());
    assert_eq!(lobby, 200);
}

/// Sessions are kept in the KV bucket `floor-console-sessions`, not in the lobby's memory: a
/// director signed in before the platform is killed and started again is still signed in,
/// with the same form token; after logging out, the same cookie opens nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_outlives_a_restart_of_the_lobby_and_a_logout_ends_it() {
    let mut world = World::start_configured(|c| c.console = Some(console())).await;
    let (cookie, form_token) = sign_in(world.platform().http().expect("lobby serves HTTP"), "Ana").await;
    world.restart_platform().await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let index = exchange(http, "GET", "/console", Some(&cookie), &[]).await;
    assert_eq!(index.status, 200, "still signed in after the restart: {}", index.body);
    assert_eq!(field(&index.body, "form_token"), form_token, "the same session");
    let out = exchange(http, "POST", "/console/logout", Some(&cookie), &[("form_token", &form_token)]).await;
    assert_eq!((out.status, out.header("location")), (303, Some("/console/login")), "{}", out.body);
    let after = exchange(http, "GET", "/console", Some(&cookie), &[]).await;
    assert_eq!((after.status, after.header("location")), (303, Some("/console/login")), "signed out");
}

/// Guessing the password: five wrong tries are answered "wrong password"; from the sixth,
/// sign-in closes for that address for 15 s (then 30, 60, … up to five minutes), and while it is
/// closed even the right password from there opens no session (other addresses:
/// `http_hardening`). Once the wait is over (a test clock moved on), the right
/// password signs in and the count starts again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_close_sign_in_for_a_growing_wait() {
    let manual = floor_runtime::ManualClock::new(chrono::Utc::now());
    let world = World::start_configured(|c| {
        c.console = Some(console());
        c.clock = std::sync::Arc::new(manual.clone());
    })
    .await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let guess = |password: &'static str| async move {
        exchange(http, "POST", "/console/login", None, &[("director", "Mallory"), ("password", password)]).await
    };
    for _ in 0..5 {
        assert_eq!(guess("wrong horse battery").await.status, 401);
    }
    let sixth = guess("wrong horse battery").await;
    assert_eq!((sixth.status, sixth.header("retry-after")), (429, Some("15")), "{}", sixth.body);
    assert!(sixth.body.contains("sign-in is closed for 15 s"), "{}", sixth.body);
    let right_too_soon = guess(PASSWORD).await;
    assert_eq!(right_too_soon.status, 429, "closed for this address, the right password included");
    assert!(right_too_soon.header("set-cookie").is_none(), "no session");

    manual.advance(chrono::Duration::seconds(15));
    sign_in(http, "Ana").await;
    assert_eq!(guess("wrong horse battery").await.status, 401, "a right password started the count again");
}

/// Issue 38 at the desk (002 §2.3): a director sets a player's limits and records their
/// self-exclusion from the console; registration then refuses the excluded player
/// (`self_excluded`) and the answer page says until when.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_director_records_a_players_limits_and_self_exclusion_at_the_desk() {
    let world = World::start_configured(|c| c.console = Some(console())).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let t = world.create(freezeout(100)).await;
    world.lobby_when(t, |d| d["state"] == "registering").await;
    let (cookie, form_token) = sign_in(http, "Ana").await;
    let post = |action: &'static str, fields: Vec<(&'static str, &'static str)>| {
        let (cookie, form_token) = (cookie.clone(), form_token.clone());
        async move {
            let command_id = uuid::Uuid::new_v4().to_string();
            let mut all = vec![("form_token", form_token.as_str()), ("command_id", command_id.as_str())];
            all.extend(fields.iter().copied());
            exchange(http, "POST", &format!("/console/tournaments/{t}/{action}"), Some(&cookie), &all).await
        }
    };
    let limits = post("limits", vec![("player", "erik"), ("per_day", "2"), ("per_week", "5"), ("per_month", "")]).await;
    assert_eq!(limits.status, 200, "{}", limits.body);
    assert!(limits.body.contains("Limits set for erik"), "{}", limits.body);
    let excluded = post("exclude", vec![("player", "erik"), ("period", "one_week")]).await;
    assert_eq!(excluded.status, 200, "{}", excluded.body);
    assert!(excluded.body.contains("erik excluded from every tournament") && excluded.body.contains("until "), "{}", excluded.body);
    let refused = world.register(t, "erik").await;
    assert!(matches!(&refused, Reply::Error(e) if e.code == floor_events::codes::SELF_EXCLUDED), "{refused:?}");
    let bad = post("exclude", vec![("player", "erik"), ("period", "forever")]).await;
    assert_eq!(bad.status, 400, "a period the rulebook does not name: {}", bad.body);
}
