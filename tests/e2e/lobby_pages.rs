//! The players' lobby over HTTP (issue 23): the pages with names shown as text, the list paged
//! and filtered, the structure as its own resource, and the live feeds (Server-Sent Events) that
//! deliver each new document.

use floor_events::clock::{BlindStructure, Preset};
use floor_events::registration::{verbs, CancelTournament};
use floor_events::{codes, CommandId, Reply};
use floor_tests::{freezeout, http_get, http_request, World, DEADLINE};
use serde_json::Value;
use std::net::SocketAddr;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

const SCRIPT_NAME: &str = "<script>alert(1)</script>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_show_html_in_names_and_reasons_as_text() {
    let world = World::start().await;
    let tournament = world.create(floor_events::tournament::TournamentDefinition { name: SCRIPT_NAME.into(), ..freezeout(100) }).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    cancel_and_see_it_listed(&world, http, tournament, "<img src=x onerror=alert(2)>").await;

    let (list_status, content_type, list) = http_request(http, "GET", "/").await;
    let (page_status, page_type, page) = http_request(http, "GET", &format!("/tournaments/{tournament}")).await;
    let (missing, _, not_found) = http_request(http, "GET", &format!("/tournaments/{}", uuid::Uuid::new_v4())).await;

    assert_eq!((list_status, content_type.as_str()), (200, "text/html; charset=utf-8"));
    assert_eq!((page_status, page_type.as_str()), (200, "text/html; charset=utf-8"));
    for (which, html) in [("list", &list), ("tournament page", &page)] {
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{which}: the name is shown as text");
        assert!(!html.contains(SCRIPT_NAME), "{which}: the name never appears as markup");
    }
    assert!(page.contains("&lt;img src=x onerror=alert(2)&gt;") && !page.contains("<img"), "the cancellation reason is text");
    assert!(list.contains("€10.00 + €1.00"), "buy-in and fee as money");
    assert!(page.contains("€1,000.00"), "the guarantee as money");
    assert!(page.contains(&format!("data-events=\"/tournaments/{tournament}/events\"")), "the page follows its live feed");
    assert_eq!(missing, 404);
    assert!(not_found.contains("No tournament"), "{not_found}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_is_paged_and_filtered() {
    let world = World::start().await;
    let mut created = Vec::new();
    for _ in 0..5 {
        created.push(world.create(freezeout(100)).await);
    }
    let cancelled = created[4];
    let http = world.platform().http().expect("lobby serves HTTP");
    cancel_and_see_it_listed(&world, http, cancelled, "venue closed").await;
    let get = |path: &'static str| async move {
        let (status, body) = http_get(http, path).await;
        (status, serde_json::from_str::<Value>(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}")))
    };

    let (_, first) = get("/api/tournaments?per_page=2").await;
    let (_, last) = get("/api/tournaments?per_page=2&page=3").await;
    let (_, registering) = get("/api/tournaments?state=registering").await;
    let (_, cancelled_only) = get("/api/tournaments?state=cancelled&format=freezeout").await;
    let (_, sit_and_go) = get("/api/tournaments?format=sit_and_go").await;
    let (bad_state, bad) = get("/api/tournaments?state=open").await;
    let (too_many, _) = get("/api/tournaments?per_page=1000").await;
    let (_, defaults) = get("/api/tournaments").await;

    // 5 tournaments, 2 a page: pages of 2, 2 and 1.
    assert_eq!(
        (first["total"].as_u64(), first["pages"].as_u64(), first["tournaments"].as_array().map(Vec::len)),
        (Some(5), Some(3), Some(2))
    );
    assert_eq!(first["next"], "/api/tournaments?page=2&per_page=2");
    assert_eq!((last["tournaments"].as_array().map(Vec::len), &last["next"]), (Some(1), &Value::Null));
    assert_eq!(last["tournaments"][0]["tournament_id"], cancelled.to_string(), "cancelled tournaments come last");
    assert_eq!(registering["total"], 4);
    assert_eq!(cancelled_only["total"], 1);
    assert_eq!(sit_and_go["total"], 0);
    assert_eq!((bad_state, &bad["error"]["code"]), (400, &Value::from(codes::INVALID_FIELD)));
    assert_eq!(too_many, 400, "at most 100 a page");
    assert_eq!((defaults["page"].as_u64(), defaults["per_page"].as_u64()), (Some(1), Some(25)));
    assert!(defaults["tournaments"][0]["waiting_on"].is_array(), "each document as GET /api/tournaments/{{id}} serves it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_structure_is_its_own_resource_and_not_in_the_document() {
    let world = World::start().await;
    let with = world
        .create(floor_events::tournament::TournamentDefinition { structure: Some(BlindStructure::Preset(Preset::Turbo)), ..freezeout(100) })
        .await;
    let without = world.create(freezeout(100)).await;
    let doc = world.lobby_when(with, |d| d["clock"]["status"] == "waiting").await;
    let http = world.platform().http().expect("lobby serves HTTP");

    let (status, body) = http_get(http, &format!("/api/tournaments/{with}/structure")).await;
    let (none, error) = http_get(http, &format!("/api/tournaments/{without}/structure")).await;
    let (unknown, _) = http_get(http, &format!("/api/tournaments/{}/structure", uuid::Uuid::new_v4())).await;
    let (_, page) = http_get(http, &format!("/tournaments/{with}")).await;

    assert_eq!(status, 200, "{body}");
    let structure: Value = serde_json::from_str(&body).expect("structure JSON");
    let levels = structure["steps"].as_array().expect("steps");
    assert!(levels.len() > 10, "the whole sheet: {} steps", levels.len());
    assert!(doc["clock"].get("structure").is_none(), "the document leaves the sheet out");
    assert!(doc["clock"]["next_blinds"].is_object(), "and keeps what players read now");
    assert_eq!((none, serde_json::from_str::<Value>(&error).expect("json")["error"]["code"].clone()), (404, Value::from(codes::NOT_FOUND)));
    assert_eq!(unknown, 404);
    assert!(page.contains("<section id=\"structure\">"), "the page shows the sheet");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_feeds_deliver_a_new_document_after_a_registration() {
    let mut world = World::start().await;
    let tournament = world.create(freezeout(100)).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let mut json = Feed::open(http, &format!("/api/tournaments/{tournament}/events")).await;
    let mut page = Feed::open(http, &format!("/tournaments/{tournament}/events")).await;

    let now: Value = serde_json::from_str(&json.next_event().await.data).expect("a document");
    assert!(matches!(world.register(tournament, "alice").await, Reply::Ok(_)));
    let after = json.until(|e| serde_json::from_str::<Value>(&e.data).is_ok_and(|d| d["entrants"] == 1)).await;
    let rendered = page.until(|e| e.data.contains("1 of 1 entries")).await;

    assert_eq!((now["entrants"].as_u64(), now["tournament_id"].as_str()), (Some(0), Some(tournament.to_string().as_str())));
    assert_eq!(after.event, "document");
    assert!(after.id.parse::<u64>().is_ok(), "the id is the KV revision: {}", after.id);
    assert!(rendered.data.contains("<h1>E2E Freezeout</h1>"), "the page's live part, rendered");
    let (unknown, _, _) = http_request(http, "GET", &format!("/api/tournaments/{}/events", uuid::Uuid::new_v4())).await;
    assert_eq!(unknown, 404, "no feed for a tournament that does not exist");

    // A clean stop does not wait for the clients still watching: their feeds end.
    let started = std::time::Instant::now();
    world.platform.take().expect("running").stop().await;
    assert!(started.elapsed() < DEADLINE / 3, "the platform stopped in {:?} with feeds open", started.elapsed());
    json.ended().await;
}

/// Issue 39: the clock screen follows the tournament over the page's own feed (`?view=clock`)
/// to its end; the results keep every finisher with place and prize, the search shows the
/// loser's place and the winner as winner, and the seat map counts nobody as waiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_screen_follows_the_tournament_and_the_results_keep_every_finisher() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = world.create(floor_tests::heads_up(floor_tests::ten_minute_levels())).await;
    let http = world.platform().http().expect("lobby serves HTTP");
    let (status, screen) = http_get(http, &format!("/tournaments/{t}/clock")).await;
    assert_eq!(status, 200);
    assert!(screen.contains(&format!("data-events=\"/tournaments/{t}/events?view=clock\"")), "{screen}");
    let (bad_view, _) = http_get(http, &format!("/tournaments/{t}/events?view=nope")).await;
    assert_eq!(bad_view, 400, "an unknown view is refused");
    let (_, page) = http_get(http, &format!("/tournaments/{t}")).await;
    assert!(page.contains(&format!("href=\"/tournaments/{t}/clock\"")) && page.contains(&format!("href=\"/tournaments/{t}/results\"")));

    let mut feed = Feed::open(http, &format!("/tournaments/{t}/events?view=clock")).await;
    let first = feed.next_event().await;
    assert!(first.data.contains("screen-level") && !first.data.contains("<html"), "the screen's live part: {}", first.data);
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    feed.until(|e| e.data.contains(">Level 1<") && e.data.contains("2 / 2")).await;
    let (winner, loser) = world.first_hand_busts_the_second(t).await;
    feed.until(|e| e.data.contains(">Finished<") && e.data.contains("1 / 2")).await;

    let doc = world.lobby_when(t, |d| d["payouts"]["paid"] == true).await;
    let (status, body) = http_get(http, &format!("/api/tournaments/{t}/results")).await;
    assert_eq!(status, 200, "{body}");
    let results: Value = serde_json::from_str(&body).expect("JSON");
    let finishers = results["finishers"].as_array().expect("finishers");
    let places: Vec<(u64, u64)> = finishers.iter().map(|f| (f["place"].as_u64().unwrap(), f["entry"].as_u64().unwrap())).collect();
    assert_eq!(places, [(1, u64::from(winner.entry.0)), (2, u64::from(loser.entry.0))], "{body}");
    assert_eq!(finishers[0]["prize"]["amount"], doc["payouts"]["bands"][0]["amount"], "the winner's prize: {body}");
    assert_eq!((results["page"].as_u64(), results["pages"].as_u64(), results["entrants"].as_u64()), (Some(1), Some(1), Some(2)));
    let (bad_page, _) = http_get(http, &format!("/api/tournaments/{t}/results?page=0")).await;
    assert_eq!(bad_page, 400);
    let (status, html) = http_get(http, &format!("/tournaments/{t}/results")).await;
    assert!(status == 200 && html.contains("<td>1st</td>") && html.contains("<td>2nd</td>"), "{html}");

    for name in ["ana", "ben"] {
        let (_, body) = http_get(http, &format!("/api/tournaments/{t}/players?name={name}")).await;
        let found: Value = serde_json::from_str(&body).expect("JSON");
        let hit = &found["found"][0];
        let expected = if hit["entry"].as_u64() == Some(u64::from(winner.entry.0)) { 1 } else { 2 };
        assert_eq!(hit["place"].as_u64(), Some(expected), "{name}: {body}");
        assert!(hit["prize"]["currency"].is_string(), "{name}: {body}");
    }
    let summary = world.seat_summary_when(t, |s| s.winner.is_some()).await;
    assert_eq!((summary.waiting, summary.out), (0, 1), "the winner is not waiting for a seat: {summary:?}");
}

/// Cancels a tournament and returns once the lobby's list shows it cancelled.
///
/// The list is the lobby's cache, which follows the bucket; a live feed is published from the
/// cache once the cache has a revision. A feed that shows the cancellation means the list has it
/// and everything stored before it (no sleep, no polling).
async fn cancel_and_see_it_listed(world: &World, http: SocketAddr, tournament: floor_events::TournamentId, reason: &str) {
    let mut feed = Feed::open(http, &format!("/api/tournaments/{tournament}/events")).await;
    feed.next_event().await;
    let cancel = CancelTournament { command_id: CommandId::new(), tournament_id: tournament, reason: reason.into() };
    assert!(matches!(world.send(verbs::CANCEL_TOURNAMENT.name(), &cancel).await, Reply::Ok(_)));
    feed.until(|e| e.data.contains("\"state\":\"cancelled\"")).await;
}

/// One Server-Sent Event.
#[derive(Debug, Default)]
struct SseEvent {
    event: String,
    id: String,
    data: String,
}

/// A Server-Sent Events client over a plain socket: HTTP/1.1 with a chunked body, read event by
/// event, each read bounded by the deadline.
struct Feed {
    reader: BufReader<tokio::net::TcpStream>,
    text: String,
}

impl Feed {
    async fn open(addr: SocketAddr, path: &str) -> Self {
        let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect to the lobby");
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
        stream.write_all(request.as_bytes()).await.expect("send");
        let mut reader = BufReader::new(stream);
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            tokio::time::timeout(DEADLINE, reader.read_line(&mut line)).await.expect("headers in time").expect("read");
            if line == "\r\n" || line.is_empty() {
                break;
            }
            head.push(line.trim().to_ascii_lowercase());
        }
        assert!(head[0].contains(" 200 "), "{head:?}");
        assert!(head.contains(&"content-type: text/event-stream".to_owned()), "{head:?}");
        assert!(head.contains(&"transfer-encoding: chunked".to_owned()), "{head:?}");
        Self { reader, text: String::new() }
    }

    /// The next chunk of the body, or `None` at its end (or when the connection closes).
    async fn chunk(&mut self) -> Option<String> {
        let mut size = String::new();
        if self.reader.read_line(&mut size).await.ok()? == 0 {
            return None;
        }
        let size = usize::from_str_radix(size.trim(), 16).expect("chunk size");
        let mut body = vec![0; size + 2];
        self.reader.read_exact(&mut body).await.ok()?;
        body.truncate(size);
        (size > 0).then(|| String::from_utf8(body).expect("UTF-8"))
    }

    async fn next_event(&mut self) -> SseEvent {
        let read = async {
            loop {
                if let Some(end) = self.text.find("\n\n") {
                    let block: String = self.text.drain(..end + 2).collect();
                    let mut event = SseEvent::default();
                    let mut data = Vec::new();
                    for line in block.lines() {
                        match line.split_once(':') {
                            Some(("event", v)) => event.event = v.trim_start().to_owned(),
                            Some(("id", v)) => event.id = v.trim_start().to_owned(),
                            Some(("data", v)) => data.push(v.strip_prefix(' ').unwrap_or(v).to_owned()),
                            _ => {} // a comment (keep-alive)
                        }
                    }
                    if !data.is_empty() {
                        event.data = data.join("\n");
                        return event;
                    }
                } else {
                    let chunk = self.chunk().await.expect("the feed is open");
                    self.text.push_str(&chunk);
                }
            }
        };
        tokio::time::timeout(DEADLINE, read).await.expect("an event in time")
    }

    async fn until(&mut self, wanted: impl Fn(&SseEvent) -> bool) -> SseEvent {
        let deadline = tokio::time::Instant::now() + DEADLINE;
        loop {
            let event = tokio::time::timeout_at(deadline, self.next_event()).await.expect("the wanted event in time");
            if wanted(&event) {
                return event;
            }
        }
    }

    async fn ended(&mut self) {
        let end = async { while self.chunk().await.is_some() {} };
        tokio::time::timeout(DEADLINE, end).await.expect("the feed ends");
    }
}

/// The document leaves the structure out, so after a restart the lobby takes it back from its
/// own resource: the clock started after the restart still shows its blinds and the next level.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_restart_the_lobby_folds_the_clock_with_the_structure_it_stored() {
    let mut world = World::start().await;
    let t = world
        .create(floor_events::tournament::TournamentDefinition { structure: Some(BlindStructure::Preset(Preset::Turbo)), ..freezeout(100) })
        .await;
    world.lobby_when(t, |d| d["clock"]["status"] == "waiting").await;

    world.restart_platform().await;
    let start = serde_json::json!({"tournament_id": t.to_string()});
    let started = world.request(floor_events::subjects::service::CLOCK, floor_events::clock::verbs::START.name(), &start).await;
    assert!(matches!(started, Reply::Ok(_)), "{started:?}");
    let doc = world.lobby_when(t, |d| d["clock"]["level"] == 1).await;

    let http = world.platform().http().expect("lobby serves HTTP");
    let (status, structure) = http_get(http, &format!("/api/tournaments/{t}/structure")).await;
    let structure: Value = serde_json::from_str(&structure).expect("structure JSON");
    assert_eq!(status, 200);
    assert_eq!(doc["clock"]["blinds"], structure["steps"][0].as_object().map(without_kind).expect("a level"), "{doc}");
    assert_eq!(doc["clock"]["next_blinds"]["big_blind"], structure["steps"][1]["big_blind"], "{doc}");
}

/// A structure step as the document's blinds show it (without the step's `kind` tag).
fn without_kind(step: &serde_json::Map<String, Value>) -> Value {
    Value::Object(step.iter().filter(|(k, _)| k.as_str() != "kind").map(|(k, v)| (k.clone(), v.clone())).collect())
}
