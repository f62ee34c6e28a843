//! `floor audit` (issue 42): a tournament played on the platform audits ok from its log; its
//! export, one prize altered, is reported with the altered commit's sequence; a copy of the store
//! rewritten with an admin's rights (a commit injected, altered, deleted, reordered, a seat draw's
//! seed changed and the chains forged again) is reported with the sequences; and `floor sim`'s
//! formats, played on the platform, audit ok.

use async_nats::jetstream;
use floor::audit::{chain, report as audit, LogCommit};
use floor::sim::{
    self,
    formats::{self, Kind},
    SimConfig,
};
use floor_events::payouts::PayoutEvent;
use floor_events::{subjects, TournamentId};
use floor_tests::{heads_up, ten_minute_levels, World};
use futures::StreamExt;

/// The tournament's log once payouts has recorded `tournament_paid`.
async fn paid_log(world: &World, t: TournamentId) -> Vec<LogCommit> {
    let mut payouts = world.watch_events::<PayoutEvent>(subjects::aggregate::PAYOUTS, t).await;
    payouts.next_where(|e| matches!(e, PayoutEvent::TournamentPaid { .. })).await;
    floor::audit::read(world.jetstream(), t.0).await.expect("the log reads")
}

/// The tournament's log once the abort service's cancellation is in it.
async fn cancelled_log(world: &World, t: TournamentId) -> Vec<LogCommit> {
    let mut abort = world.watch_events::<floor_events::abort::AbortEvent>(subjects::aggregate::ABORT, t).await;
    abort.next_where(|e| matches!(e, floor_events::abort::AbortEvent::Cancelled { .. })).await;
    floor::audit::read(world.jetstream(), t.0).await.expect("the log reads")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_played_tournament_audits_ok_and_an_altered_prize_in_its_export_is_found() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = world.create(heads_up(ten_minute_levels())).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, floor_events::Reply::Ok(_)), "{player} registers");
    }
    world.first_hand_busts_the_second(t).await;
    let commits = paid_log(&world, t).await;
    let report = audit(&commits);
    assert!(report.ok, "{}", report.summary());
    let subjects: std::collections::BTreeSet<&str> = commits.iter().map(|c| c.subject.split('.').nth(2).unwrap()).collect();
    assert!(subjects.contains("tournament") && subjects.contains("seating") && subjects.contains("payouts"), "{subjects:?}");
    let draws = report.checks.iter().find(|c| c.name == "draws").unwrap();
    assert!(draws.ok);

    // The export, the winner's prize raised by one cent in its line.
    let lines = floor::export::to_lines(&commits);
    let mut altered = None;
    let text: Vec<String> = lines
        .lines()
        .map(|line| {
            let mut json: serde_json::Value = serde_json::from_str(line).unwrap();
            let sequence = json["sequence"].as_u64().unwrap();
            for event in json["body"].as_array_mut().unwrap() {
                if altered.is_none() && event["type"] == "places_awarded" {
                    for award in event["awards"].as_array_mut().unwrap() {
                        if award["place"] == 1 {
                            award["amount"] = serde_json::json!(award["amount"].as_u64().unwrap() + 1);
                            altered = Some(sequence);
                        }
                    }
                }
            }
            serde_json::to_string(&json).unwrap()
        })
        .collect();
    let altered = altered.expect("the winner's award is exported");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, text.join("\n") + "\n").unwrap();
    let read = floor::export::from_lines(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(read.len(), commits.len());
    let (summary, ok) = floor::audit::render(&read, &[], false);
    assert!(!ok, "{summary}");
    let report = audit(&read);
    let named: Vec<u64> = report.checks.iter().flat_map(|c| c.differences.iter().flat_map(|d| d.sequences.clone())).collect();
    assert!(named.contains(&altered), "the altered commit {altered} is named: {summary}");
    eprintln!("{summary}");
}

async fn sim_world() -> World {
    World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some([42; 32]);
    })
    .await
}

/// A format: the sim's own freezeout, adjusted.
type Adjust = fn(SimConfig) -> SimConfig;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sim_formats_audit_ok() {
    let world = sim_world().await;
    let formats: [(&str, Adjust); 5] = [
        ("freezeout", |c| c),
        ("rebuy", |c| SimConfig { rebuys: true, ..c }),
        ("ko", |c| SimConfig { bounty: sim::bounty_terms("ko"), ..c }),
        ("pko", |c| SimConfig { bounty: sim::bounty_terms("pko"), ..c }),
        ("mystery", |c| SimConfig { bounty: sim::bounty_terms("mystery"), ..c }),
    ];
    let mut configs: Vec<(String, SimConfig)> = Vec::new();
    for (n, (format, adjust)) in formats.into_iter().enumerate() {
        let t = TournamentId(uuid::Uuid::from_u128(0x42a0d17 << 64 | n as u128));
        configs.push((format.to_owned(), adjust(SimConfig::new(20, 7 + n as u64, t))));
    }
    // Issue 37's formats: the simulator's own definitions, as `floor sim --format` plays them.
    for (n, (format, kind, entrants)) in
        [("shootout", Kind::Shootout, 27), ("don", Kind::Don, 10), ("lottery", Kind::Lottery, 3)].into_iter().enumerate()
    {
        let t = TournamentId(uuid::Uuid::from_u128(0x42a0d37 << 64 | n as u128));
        let shape = SimConfig::new(entrants, 11 + n as u64, t);
        let definition = formats::definition(kind, &shape, chrono::Utc::now()).unwrap_or_else(|e| panic!("{format}: {e}"));
        configs.push((format.to_owned(), SimConfig { definition: Some(definition), ..shape }));
    }
    // Cancelled in play (the abort service's statements, docs/abort.md).
    for (n, (format, bounty)) in [("cancelled", None), ("cancelled ko", sim::bounty_terms("ko"))].into_iter().enumerate() {
        let t = TournamentId(uuid::Uuid::from_u128(0x42a0dca << 64 | n as u128));
        configs.push((format.to_owned(), SimConfig { cancel_at: Some(8), bounty, ..SimConfig::new(20, 23 + n as u64, t) }));
    }
    let t = TournamentId(uuid::Uuid::from_u128(0x42a0d36 << 64));
    configs.push(("satellite".to_owned(), SimConfig { satellite: true, ..SimConfig::new(20, 17, t) }));
    let mut failed = Vec::new();
    for (format, config) in configs {
        let summary = sim::run(&world.backbone, &config, |_| {}).await.unwrap_or_else(|e| panic!("{format}: {e}"));
        let cancelled = config.cancel_at.is_some();
        assert!(cancelled || summary.books.finished, "{format}: {:?}", summary.books);
        let mut audited = vec![(format.clone(), config.tournament_id)];
        if let Some(satellite) = &summary.satellite {
            audited.push((format!("{format} (the satellite)"), satellite.tournament_id));
        }
        for (name, t) in audited {
            let log = match cancelled {
                true => cancelled_log(&world, t).await,
                false => paid_log(&world, t).await,
            };
            if name.ends_with("(the satellite)") {
                assert!(log.iter().any(|c| String::from_utf8_lossy(&c.body).contains("\"ticket_issued\"")), "the tickets are audited");
            }
            let report = audit(&log);
            eprintln!("{name}: {} commits, {}", report.commits, if report.ok { "ok" } else { "DIFFERENCES" });
            if !report.ok {
                failed.push(format!("{name}:\n{}", report.summary()));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// One stored message of FLOOR_EVENTS, as a copy of the store keeps it.
#[derive(Clone)]
struct Stored {
    subject: String,
    headers: async_nats::HeaderMap,
    payload: bytes::Bytes,
}

impl Stored {
    fn previous(&self) -> Option<String> {
        self.headers.get(chain::HEADER).map(|v| v.as_str().to_owned())
    }
    fn hash(&self) -> String {
        chain::commit_hash(&self.subject, self.previous().as_deref().unwrap_or(""), &self.payload)
    }
    fn with(&self, previous: Option<&str>, payload: bytes::Bytes) -> Self {
        let mut headers = async_nats::HeaderMap::new();
        for (name, values) in self.headers.iter() {
            if AsRef::<str>::as_ref(name) != chain::HEADER {
                for v in values {
                    headers.append(name.as_ref(), v.as_str());
                }
            }
        }
        if let Some(p) = previous {
            headers.insert(chain::HEADER, p);
        }
        Self { subject: self.subject.clone(), headers, payload }
    }
}

/// Every message of FLOOR_EVENTS, in stream order.
async fn whole_store(js: &jetstream::Context) -> Vec<Stored> {
    let stream = js.get_stream(floor_events::subjects::EVENTS_STREAM).await.expect("stream");
    let last = stream.get_info().await.expect("info").state.last_sequence;
    let consumer = stream.create_consumer(jetstream::consumer::pull::OrderedConfig::default()).await.expect("consumer");
    let mut messages = consumer.messages().await.expect("messages");
    let mut out = Vec::new();
    while let Some(m) = messages.next().await {
        let m = m.expect("message");
        let sequence = m.info().expect("info").stream_sequence;
        out.push(Stored { subject: m.subject.to_string(), headers: m.headers.clone().unwrap_or_default(), payload: m.payload.clone() });
        if sequence >= last {
            break;
        }
    }
    out
}

/// The store rewritten: an admin deletes the stream (its deny-delete cannot be lifted) and
/// makes it again, deletes allowed, in memory (a stream made again on file right after its
/// deletion was seen to come back with the old messages), storing `messages` in this order with
/// fresh message ids (none taken for a duplicate). Returns the sequence before the first: message
/// `i` gets `base + i + 1`.
async fn rewrite(js: &jetstream::Context, messages: &[Stored]) -> u64 {
    let name = floor_events::subjects::EVENTS_STREAM;
    assert!(js.delete_stream(name).await.expect("stream deleted").success, "stream deleted");
    let config = jetstream::stream::Config {
        deny_delete: false,
        storage: jetstream::stream::StorageType::Memory,
        ..floor_runtime::bootstrap::events_config()
    };
    let mut stream = js.create_stream(config).await.expect("stream made again");
    let base = stream.info().await.expect("info").state.last_sequence;
    for m in messages {
        let mut headers = async_nats::HeaderMap::new();
        for (name, values) in m.headers.iter() {
            let name: &str = name.as_ref();
            if !name.starts_with("Nats-") {
                for v in values {
                    headers.append(name, v.as_str());
                }
            }
        }
        headers.insert("Nats-Msg-Id", uuid::Uuid::new_v4().to_string().as_str());
        let ack = js.publish_with_headers(m.subject.clone(), headers, m.payload.clone()).await.expect("publish").await.expect("stored");
        assert!(!ack.duplicate, "stored, not taken for a duplicate");
    }
    assert_eq!(stream.info().await.expect("info").state.last_sequence, base + messages.len() as u64);
    base
}

/// Every difference of `t`'s audit: (check, message, sequences).
async fn differences(js: &jetstream::Context, t: TournamentId) -> Vec<(String, String, Vec<u64>)> {
    let commits = floor::audit::read(js, t.0).await.expect("the log reads");
    let deleted = floor::audit::deleted(js).await.expect("stream info");
    let report = floor_audit_with(&commits, &deleted);
    report.checks.into_iter().flat_map(|c| c.differences.into_iter().map(move |d| (c.name.clone(), d.message, d.sequences))).collect()
}

fn floor_audit_with(commits: &[LogCommit], deleted: &[u64]) -> floor::audit::Report {
    let (json, _) = floor::audit::render(commits, deleted, true);
    serde_json::from_str(&json).expect("the report reads back")
}

/// Positions (in `store`) of two commits of one subject of `t` with a commit of it after them.
fn middle_of_a_chain(store: &[Stored], t: TournamentId, aggregate: &str) -> (usize, usize) {
    let subject = floor_events::subjects::event_subject(aggregate, t.0);
    let at: Vec<usize> = store.iter().enumerate().filter(|(_, m)| m.subject == subject).map(|(i, _)| i).collect();
    assert!(at.len() >= 3, "{subject}: {} commits", at.len());
    (at[at.len() - 3], at[at.len() - 2])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commits_injected_altered_deleted_or_reordered_in_a_copy_of_the_store_are_reported_with_their_sequences() {
    // An open server: the test client has an admin's rights over the streams.
    let mut world = World::start_open_configured(|c| c.skip("scheduler")).await;
    let t = world.create(heads_up(ten_minute_levels())).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, floor_events::Reply::Ok(_)), "{player} registers");
    }
    world.first_hand_busts_the_second(t).await;
    let commits = paid_log(&world, t).await;
    let report = audit(&commits);
    assert!(report.ok, "{}", report.summary());
    assert_eq!((report.chained, report.legacy), (commits.len(), 0), "every commit the platform stored carries its chain");
    world.kill_platform();
    let js = world.jetstream().clone();
    let original = whole_store(&js).await;
    assert!(differences(&js, t).await.is_empty());

    // Injected: a commit carrying its predecessor's hash, between two commits of the tournament.
    let (before, after) = middle_of_a_chain(&original, t, "tournament");
    let mut injected = original.clone();
    injected.insert(before + 1, original[after].with(Some(&original[before].hash()), original[after].payload.clone()));
    let base = rewrite(&js, &injected).await;
    let found = differences(&js, t).await;
    let at = base + before as u64 + 2;
    assert!(found.iter().any(|(check, m, s)| check == "chain" && m.contains("injected") && s.contains(&at)), "injected at {at}: {found:?}");

    // Altered: one byte more in a commit's body (still the same events).
    let mut altered = original.clone();
    let mut body = altered[before].payload.to_vec();
    body.push(b' ');
    altered[before] = altered[before].with(altered[before].previous().as_deref(), body.into());
    let base = rewrite(&js, &altered).await;
    let found = differences(&js, t).await;
    let at = base + before as u64 + 1;
    assert!(found.iter().any(|(check, m, s)| check == "chain" && m.contains("altered") && s.contains(&at)), "altered at {at}: {found:?}");

    // Deleted: JetStream's message delete on the store as it was.
    let base = rewrite(&js, &original).await;
    let stream = js.get_stream(floor_events::subjects::EVENTS_STREAM).await.expect("stream");
    let at = base + before as u64 + 1;
    assert!(stream.delete_message(at).await.expect("deleted"), "deleted");
    let found = differences(&js, t).await;
    assert!(found.iter().any(|(check, m, s)| check == "chain" && m.contains("removed") && s.contains(&at)), "removed at {at}: {found:?}");

    // Reordered: two commits of the tournament stored the other way round.
    let mut reordered = original.clone();
    reordered.swap(before, after);
    let base = rewrite(&js, &reordered).await;
    let found = differences(&js, t).await;
    let at = base + before as u64 + 1;
    assert!(
        found.iter().any(|(check, m, s)| check == "chain" && m.contains("reordered") && s.contains(&at)),
        "reordered at {at}: {found:?}"
    );

    // A seat draw whose seed is not its commitment's, every chain forged again after it: the
    // chains hold, the draw does not.
    let drawn = original.iter().position(|m| String::from_utf8_lossy(&m.payload).contains("\"tables_drawn\"")).expect("a draw");
    let text = String::from_utf8_lossy(&original[drawn].payload).into_owned();
    let seed_at = text.find("\"seed\":\"").expect("a seed") + 8;
    let mut forged_text = text.clone();
    let first = &text[seed_at..seed_at + 1];
    forged_text.replace_range(seed_at..seed_at + 1, if first == "0" { "1" } else { "0" });
    let mut forged: Vec<Stored> = original.clone();
    forged[drawn] = forged[drawn].with(forged[drawn].previous().as_deref(), forged_text.into_bytes().into());
    let mut heads: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for m in &mut forged {
        if let Some(head) = heads.get(&m.subject) {
            *m = m.with(Some(head), m.payload.clone());
        }
        heads.insert(m.subject.clone(), m.hash());
    }
    let base = rewrite(&js, &forged).await;
    let found = differences(&js, t).await;
    let at = base + drawn as u64 + 1;
    assert!(found.iter().all(|(check, ..)| check != "chain"), "the chains were forged again: {found:?}");
    assert!(found.iter().any(|(check, m, s)| check == "draws" && m.contains("seat draw") && s.contains(&at)), "draw at {at}: {found:?}");
}
