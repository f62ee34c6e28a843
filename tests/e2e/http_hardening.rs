//! The lobby's HTTP server as a trust boundary (issue 34): sign-in guessing counted when it
//! starts, per client, with a ceiling over all clients and a recovery code; a header-read
//! timeout and a connection limit; security headers on every answer; every error the server
//! makes itself in JSON; names with bidi overrides shown neutralised and refused in the
//! console's forms; HTTPS with rustls.

use floor_lobby::console::auth::PasswordHash;
use floor_lobby::console::guard::{RecoveryCode, GLOBAL_FREE_FAILURES};
use floor_lobby::console::ConsoleConfig;
use floor_lobby::server::HttpSettings;
use floor_tests::{heads_up, ten_minute_levels, World, DEADLINE};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PASSWORD: &str = "right horse battery";
const RECOVERY: &str = "feed-beef-0000-1234-abcd";

/// The console with `rounds` PBKDF2 rounds and a recovery code known to the test.
fn console(rounds: u32) -> ConsoleConfig {
    ConsoleConfig {
        credential: PasswordHash::with_iterations(PASSWORD, rounds).expect("a long password"),
        session_ttl: chrono::Duration::hours(12),
        recovery_code: Some(RecoveryCode::given(RECOVERY)),
    }
}

/// An answer read to its end: status, headers (names lowercased), body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The `{"error":{"code","message"}}` envelope's code, checking the content type.
    fn error_code(&self) -> String {
        assert_eq!(self.header("content-type"), Some("application/json"), "{self:?}");
        let body: serde_json::Value = serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("JSON: {e}: {self:?}"));
        assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "a message: {self:?}");
        body["error"]["code"].as_str().expect("a code").to_owned()
    }
}

fn parse(response: &[u8]) -> Answer {
    let response = String::from_utf8_lossy(response);
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("a status line: {head:?}"));
    let headers =
        head.lines().skip(1).filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_lowercase(), v.trim().to_owned())).collect();
    Answer { status, headers, body: body.to_owned() }
}

/// Sends `request` as it is and reads the answer to the end of the connection.
async fn raw(http: SocketAddr, request: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(http).await.expect("connect to the lobby");
    stream.write_all(request).await.expect("send");
    read_answer(&mut stream).await
}

async fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut response = Vec::new();
    tokio::time::timeout(DEADLINE, stream.read_to_end(&mut response)).await.expect("an answer in time").expect("read");
    parse(&response)
}

/// A request with `extra` header lines (each ending in CRLF) and a form body.
fn request(method: &str, path: &str, extra: &str, body: &str) -> Vec<u8> {
    format!(
        "{method} {path} HTTP/1.1\r\nHost: lobby\r\n{extra}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

fn form(fields: &[(&str, &str)]) -> String {
    fields.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect::<Vec<_>>().join("&")
}

/// A sign-in from `client` (an `X-Forwarded-For` address; `None`: none sent).
async fn sign_in(http: SocketAddr, client: Option<&str>, password: &str, recovery: &str) -> Answer {
    let extra = client.map(|c| format!("X-Forwarded-For: {c}\r\n")).unwrap_or_default();
    let body = form(&[("director", "Ana"), ("password", password), ("recovery_code", recovery)]);
    raw(http, &request("POST", "/console/login", &extra, &body)).await
}

/// 100 wrong passwords sent at once, on 100 connections opened first: the first is checked
/// (PBKDF2, a good part of a second with these rounds) and answered 401; the 99 others arrive
/// while it runs and are answered 429 with a `Retry-After`, none hashed. Before issue 34 each
/// was hashed (5 answered 401, the rest 429 after their check). A right password then gets in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_a_hundred_wrong_passwords_is_one_check_and_ninety_nine_refusals() {
    let world = World::start_configured(|c| c.console = Some(console(300_000))).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let wrong = request("POST", "/console/login", "", &form(&[("director", "Mallory"), ("password", "wrong horse battery")]));
    let mut connections = Vec::new();
    for _ in 0..100 {
        connections.push(TcpStream::connect(http).await.expect("connect"));
    }
    let sent = Instant::now();
    for stream in &mut connections {
        stream.write_all(&wrong).await.expect("send");
    }
    let sending = sent.elapsed();
    let answers = futures::future::join_all(connections.iter_mut().map(read_answer)).await;

    let checked = answers.iter().filter(|a| a.status == 401).count();
    let waiting: Vec<&Answer> = answers.iter().filter(|a| a.status == 429).collect();
    eprintln!("burst: sent in {sending:?}, answered in {:?}: {checked} checked, {} told to wait", sent.elapsed(), waiting.len());
    assert_eq!((checked, waiting.len()), (1, 99), "one check; the others refused before hashing");
    assert!(waiting.iter().all(|a| a.header("retry-after") == Some("1")), "each told when to try again");
    let right = sign_in(http, None, PASSWORD, "").await;
    assert_eq!((right.status, right.header("location")), (303, Some("/console")), "the director gets in: {}", right.body);
}

/// Behind a trusted proxy, each `X-Forwarded-For` address is its own client: one guessing does
/// not keep another out. Fifty wrong passwords from fifty addresses close sign-in for everyone,
/// and then only the recovery code lets the director in; the code is spent by that sign-in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_guessing_does_not_keep_another_out_and_the_recovery_code_opens_a_closed_sign_in() {
    // Time stands still: the waits are what the guard says, not less by the test's own time.
    let clock = floor_runtime::ManualClock::new(chrono::Utc::now());
    let world = World::start_configured(|c| {
        c.console = Some(console(1_000));
        c.http_server = HttpSettings { trusted_proxies: vec!["127.0.0.1".parse().unwrap()], ..HttpSettings::default() };
        c.clock = std::sync::Arc::new(clock.clone());
    })
    .await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let mallory = Some("203.0.113.66");
    for _ in 0..5 {
        assert_eq!(sign_in(http, mallory, "wrong horse battery", "").await.status, 401);
    }
    assert_eq!(sign_in(http, mallory, "wrong horse battery", "").await.status, 429, "mallory's sixth closes sign-in for mallory");
    assert_eq!(sign_in(http, mallory, PASSWORD, RECOVERY).await.status, 429, "the recovery code does not pass mallory's own wait");
    let ana = sign_in(http, Some("198.51.100.7"), PASSWORD, "").await;
    assert_eq!(ana.status, 303, "another address signs in: {}", ana.body);

    for n in 0..GLOBAL_FREE_FAILURES {
        assert_eq!(sign_in(http, Some(&format!("192.0.2.{n}")), "wrong horse battery", "").await.status, 401);
    }
    let last = sign_in(http, Some("192.0.2.200"), "wrong horse battery", "").await;
    assert_eq!(last.status, 429, "the 51st wrong password from anywhere closes sign-in for everyone");
    let director = Some("198.51.100.8");
    let closed = sign_in(http, director, PASSWORD, "").await;
    assert_eq!((closed.status, closed.header("retry-after")), (429, Some("15")));
    assert!(closed.body.contains("recovery code"), "{}", closed.body);
    assert_eq!(sign_in(http, director, PASSWORD, "0000-0000-0000-0000-0000").await.status, 401, "a wrong code");
    let recovered = sign_in(http, director, PASSWORD, &RECOVERY.to_uppercase()).await;
    assert_eq!(recovered.status, 303, "the code opens it: {}", recovered.body);
    assert!(recovered.header("set-cookie").is_some_and(|c| c.contains("HttpOnly") && !c.contains("Secure")), "plain HTTP: no Secure");
    assert_eq!(sign_in(http, Some("198.51.100.9"), PASSWORD, "").await.status, 303, "a right password opened it for everyone");
}

/// Without a trusted proxy, `X-Forwarded-For` is the client's own words: ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_trusted_proxy_a_forwarded_for_header_changes_nothing() {
    let world = World::start_configured(|c| c.console = Some(console(1_000))).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    for n in 0..6 {
        sign_in(http, Some(&format!("203.0.113.{n}")), "wrong horse battery", "").await;
    }
    assert_eq!(sign_in(http, Some("198.51.100.7"), PASSWORD, "").await.status, 429, "the same peer, whatever it claims");
}

/// `X-Frame-Options`, `nosniff`, `no-referrer` and a Content-Security-Policy on the pages, the
/// JSON API, the live feeds, the console and the errors; the pages' policy allows their own
/// inline style and script by hash and nothing inline else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_carries_the_security_headers() {
    let world = World::start_configured(|c| c.console = Some(console(1_000))).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let tournament = world.create(heads_up(ten_minute_levels())).await;
    world.lobby_when(tournament, |_| true).await;
    let paths = [
        "/".to_owned(),
        format!("/tournaments/{tournament}"),
        format!("/tournaments/{tournament}/tables"),
        "/api/tournaments".to_owned(),
        format!("/api/tournaments/{tournament}"),
        "/console/login".to_owned(),
        "/no/such/path".to_owned(),
        "/api/tournaments?page=x".to_owned(),
    ];
    for path in &paths {
        let answer = raw(http, &request("GET", path, "", "")).await;
        assert_eq!(answer.header("x-frame-options"), Some("DENY"), "{path}");
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(answer.header("referrer-policy"), Some("no-referrer"), "{path}");
        let policy = answer.header("content-security-policy").unwrap_or_else(|| panic!("{path}: a policy"));
        assert!(policy.contains("frame-ancestors 'none'") && policy.contains("default-src 'none'"), "{path}: {policy}");
        assert!(!policy.contains("unsafe-inline"), "{path}: {policy}");
    }
    let page = raw(http, &request("GET", &format!("/tournaments/{tournament}"), "", "")).await;
    let policy = page.header("content-security-policy").expect("a policy");
    assert!(policy.contains("script-src 'sha256-") && policy.contains("connect-src 'self'"), "{policy}");

    // The live feeds: the head only (the feed stays open).
    for path in [format!("/api/tournaments/{tournament}/events"), format!("/tournaments/{tournament}/events")] {
        let mut stream = TcpStream::connect(http).await.expect("connect");
        stream.write_all(&request("GET", &path, "", "")).await.expect("send");
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            tokio::time::timeout(DEADLINE, stream.read_exact(&mut byte)).await.expect("a head in time").expect("read");
            head.push(byte[0]);
        }
        let answer = parse(&head);
        assert_eq!(answer.header("content-type"), Some("text/event-stream"), "{path}");
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(answer.header("content-security-policy"), Some("default-src 'none'; frame-ancestors 'none'"), "{path}");
    }
}

/// Every error the server makes itself is the JSON envelope: a body over the limit (declared,
/// or sent in chunks), a URI too long, a head too large or with too many fields, a path segment
/// axum cannot decode, a method not allowed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_the_server_makes_itself_is_json() {
    let world = World::start_configured(|c| c.console = Some(console(1_000))).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let big = "x".repeat(100 * 1024);
    let declared = raw(http, &request("POST", "/console/login", "", &big)).await;
    assert_eq!((declared.status, declared.error_code()), (413, "body_too_large".to_owned()));

    let mut chunked = b"POST /console/login HTTP/1.1\r\nHost: lobby\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".to_vec();
    for _ in 0..100 {
        chunked.extend_from_slice(format!("400\r\n{}\r\n", "y".repeat(1024)).as_bytes());
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let streamed = raw(http, &chunked).await;
    assert_eq!((streamed.status, streamed.error_code()), (413, "body_too_large".to_owned()), "axum's own limit, rewritten");

    let long = raw(http, &request("GET", &format!("/api/tournaments?state={}", "r".repeat(17_000)), "", "")).await;
    assert_eq!((long.status, long.error_code()), (414, "uri_too_long".to_owned()));
    let huge = raw(http, &request("GET", "/api/tournaments", &format!("X-Big: {}\r\n", "h".repeat(40 * 1024)), "")).await;
    assert_eq!((huge.status, huge.error_code()), (431, "headers_too_large".to_owned()));
    let many: String = (0..150).map(|n| format!("X-Field-{n}: {n}\r\n")).collect();
    let crowded = raw(http, &request("GET", "/api/tournaments", &many, "")).await;
    assert_eq!((crowded.status, crowded.error_code()), (431, "headers_too_large".to_owned()));

    let undecodable = raw(http, &request("GET", "/console/tournaments/%FF", "", "")).await;
    assert_eq!((undecodable.status, undecodable.error_code()), (400, "bad_request".to_owned()), "axum's own rejection");
    for (method, path) in [("DELETE", "/api/tournaments"), ("PUT", "/console/login"), ("DELETE", "/console"), ("POST", "/")] {
        let answer = raw(http, &request(method, path, "", "")).await;
        assert_eq!((answer.status, answer.error_code()), (405, "method_not_allowed".to_owned()), "{method} {path}");
        assert!(answer.header("allow").is_some(), "{method} {path}: Allow");
    }
}

/// What hyper answers before a request reaches the lobby: a head beyond 64 KiB is 431 and a
/// request line that is not HTTP is 400, each with an empty body (hyper writes them itself;
/// docs/security.md). Measured here so the document stays true.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_hyper_answers_itself_is_an_empty_431_or_400() {
    let world = World::start().await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let enormous = format!("GET /api/tournaments HTTP/1.1\r\nHost: lobby\r\nX-Big: {}\r\n\r\n", "h".repeat(70 * 1024));
    let mut stream = TcpStream::connect(http).await.expect("connect");
    // hyper answers once it has read 64 KiB, perhaps before the rest is written.
    let _ = stream.write_all(enormous.as_bytes()).await;
    let too_large = read_answer(&mut stream).await;
    assert_eq!((too_large.status, too_large.header("content-length"), too_large.body.as_str()), (431, Some("0"), ""), "{too_large:?}");
    let garbage = raw(http, b"NOT HTTP AT ALL\r\n\r\n").await;
    assert_eq!((garbage.status, garbage.header("content-length"), garbage.body.as_str()), (400, Some("0"), ""), "{garbage:?}");
}

/// A client that does not finish its request head within the header-read timeout is
/// disconnected (half a second here; 10 s by default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_finish_its_head_in_time_is_disconnected() {
    let world = World::start_configured(|c| {
        c.http_server = HttpSettings { header_read_timeout: Duration::from_millis(500), ..HttpSettings::default() }
    })
    .await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let mut slow = TcpStream::connect(http).await.expect("connect");
    let started = Instant::now();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: lobby\r\n").await.expect("half a head");
    let mut rest = Vec::new();
    let ended = tokio::time::timeout(DEADLINE, slow.read_to_end(&mut rest)).await.expect("disconnected in time");
    assert!(ended.is_err() || rest.is_empty() || parse(&rest).status == 408, "nothing served: {:?}", String::from_utf8_lossy(&rest));
    assert!(started.elapsed() >= Duration::from_millis(450), "not before the timeout: {:?}", started.elapsed());
}

/// Beyond the connection limit a new connection waits: it is served once one of the open ones
/// ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_the_connection_limit_a_new_connection_waits_for_a_free_slot() {
    let world = World::start_configured(|c| c.http_server = HttpSettings { max_connections: 2, ..HttpSettings::default() }).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let keep_alive = b"GET /api HTTP/1.1\r\nHost: lobby\r\n\r\n";
    let mut open = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(http).await.expect("connect");
        // Served, then kept alive: the connection holds its slot.
        stream.write_all(keep_alive).await.expect("send");
        let mut first = [0u8; 12];
        tokio::time::timeout(DEADLINE, stream.read_exact(&mut first)).await.expect("served in time").expect("read");
        assert_eq!(&first, b"HTTP/1.1 200");
        open.push(stream);
    }
    let mut third = TcpStream::connect(http).await.expect("the kernel accepts the connection");
    third.write_all(&request("GET", "/api", "", "")).await.expect("send");
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(500), third.read(&mut byte)).await;
    assert!(early.is_err(), "not served while both slots are taken");
    drop(open.pop());
    let served = read_answer(&mut third).await;
    assert_eq!(served.status, 200, "served once a slot is free");
}

/// A name with a bidi override and a zero-width space, as it could be in a stored document, is
/// shown with the characters replaced and isolated in `<bdi>`; the console refuses them in its
/// own forms, saying which character.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_with_a_bidi_override_is_shown_neutralised_and_refused_in_the_console() {
    let world = World::start_configured(|c| c.console = Some(console(1_000))).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let tournament = world.create(heads_up(ten_minute_levels())).await;
    let mut doc = world.lobby_when(tournament, |_| true).await;
    doc["name"] = serde_json::Value::from("Sunday\u{202E}rojaM\u{200B} Open");
    let bucket = world.jetstream().get_key_value(floor_events::subjects::LOBBY_BUCKET).await.expect("lobby bucket");
    bucket.put(tournament.to_string(), serde_json::to_vec(&doc).expect("JSON").into()).await.expect("stored");

    let page = raw(http, &request("GET", &format!("/tournaments/{tournament}"), "", "")).await;
    assert_eq!(page.status, 200);
    assert!(!page.body.contains('\u{202E}') && !page.body.contains('\u{200B}'), "no hidden character in the page");
    assert!(page.body.contains("<h1><bdi>Sunday\u{FFFD}rojaM\u{FFFD} Open</bdi></h1>"), "shown, marked and isolated");

    let login = raw(http, &request("POST", "/console/login", "", &form(&[("director", "Ana\u{202E}"), ("password", PASSWORD)]))).await;
    assert_eq!(login.status, 400);
    assert!(login.body.contains("U+202E") && login.header("set-cookie").is_none(), "{}", login.body);
}
