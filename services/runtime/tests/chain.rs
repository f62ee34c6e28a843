//! The hash chain (issue 42) against a real nats-server: each commit carries the hash of its
//! aggregate's previous commit, across stores (a restart) and after a stale writer's conflict,
//! and a legacy commit (no header) is chained onto as it is.

use floor_events::{subjects, CommandId};
use floor_runtime::bootstrap;
use floor_runtime::server::NatsServer;
use floor_runtime::store::chain::{commit_hash, GENESIS, PREVIOUS_HASH_HEADER};
use floor_runtime::store::StoreErrorKind;
use floor_runtime::JetStreamStore;

/// Every commit on `subject`: (what it carries, its own hash).
async fn chain(backbone: &bootstrap::Backbone, subject: &str, last: u64) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut next = 1;
    while next <= last {
        let Ok(message) = backbone.events.direct_get_next_for_subject(subject, Some(next)).await else { break };
        let carried = message.headers.get(PREVIOUS_HASH_HEADER).map_or(String::new(), |v| v.as_str().to_owned());
        let hash = commit_hash(subject, &carried, &message.payload);
        out.push((carried, hash));
        next = message.sequence + 1;
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_commit_carries_its_predecessors_hash_across_restarts_conflicts_and_legacy_commits() {
    let nats = NatsServer::start_temp().expect("nats-server starts (run `make tools` if none is installed)");
    let client = bootstrap::connect(&nats.url()).await.expect("connect");
    let backbone = bootstrap::ensure_backbone(client).await.expect("backbone");
    let subject = subjects::event_subject("payouts", uuid::Uuid::new_v4());
    let event = |n: u64| serde_json::json!({"v": 1, "type": "n", "n": n});

    let first = JetStreamStore::new(&backbone);
    let a = first.append(&subject, CommandId::new(), 0, &[event(1)]).await.expect("first commit");
    let b = first.append(&subject, CommandId::new(), a.sequence, &[event(2)]).await.expect("second commit");
    // Another aggregate's commit between: each subject has its own chain.
    let other = subjects::event_subject("payouts", uuid::Uuid::new_v4());
    first.append(&other, CommandId::new(), 0, &[event(9)]).await.expect("another aggregate");
    // A restart: a new store knows no head and reads the last commit back.
    let restarted = JetStreamStore::new(&backbone);
    let c = restarted.append(&subject, CommandId::new(), b.sequence, &[event(3)]).await.expect("after a restart");
    // The first store is stale now: refused, then appends after the commit it did not make.
    let stale = first.append(&subject, CommandId::new(), b.sequence, &[event(4)]).await.expect_err("stale");
    assert_eq!(stale.kind(), StoreErrorKind::WrongLastSequence);
    let d = first.append(&subject, CommandId::new(), c.sequence, &[event(4)]).await.expect("after the conflict");
    // A commit stored before chains (no header) is chained onto as it is.
    let legacy = backbone
        .jetstream
        .publish(subject.clone(), serde_json::to_vec(&[event(5)]).unwrap().into())
        .await
        .expect("legacy publish")
        .await
        .expect("legacy stored");
    let e = restarted.append(&subject, CommandId::new(), legacy.sequence, &[event(6)]).await.expect("after a legacy commit");

    let links = chain(&backbone, &subject, e.sequence).await;
    assert_eq!(links.len(), 6);
    assert_eq!(links[0].0, GENESIS, "the first commit carries the genesis");
    for (n, pair) in links.windows(2).enumerate() {
        match n {
            3 => assert_eq!(pair[1].0, "", "the legacy commit carries nothing"),
            _ => assert_eq!(pair[1].0, pair[0].1, "commit {} carries the hash of commit {}", n + 2, n + 1),
        }
    }
    assert_eq!(chain(&backbone, &other, e.sequence).await[0].0, GENESIS);
    assert!(d.sequence > c.sequence);
}

/// The chain's cost on the append, in one run on one server: `JetStreamStore::append` (the chain
/// header, its hash, a head kept per subject) against the publish the append made before chains
/// (the same message without the header), alternating which goes first, on 16 subjects; and the first append
/// after a restart (a direct get of the last commit). Prints the figures; not a pass/fail test:
/// `cargo test -p floor-runtime --release --test chain -- --ignored --nocapture append_cost`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement"]
async fn append_cost() {
    use async_nats::jetstream::message::PublishMessage;
    use std::time::{Duration, Instant};
    let nats = NatsServer::start_temp().expect("nats-server");
    let backbone = bootstrap::ensure_backbone(bootstrap::connect(&nats.url()).await.expect("connect")).await.expect("backbone");
    let store = JetStreamStore::new(&backbone);
    let rounds = 2_000;
    let body = serde_json::json!({"type": "entry_registered", "entry": 17, "player": "ana", "ledger": {"paid_in": {"amount": 11000, "currency": "EUR"}}});
    let (mut chained, mut plain, mut cold) = (Vec::new(), Vec::new(), Vec::new());
    let mut last: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    for round in 0..rounds {
        let mut kinds = [("chained", format!("floor.ev.bench.c{}", round % 16)), ("plain", format!("floor.ev.bench.p{}", round % 16))];
        if round % 2 == 1 {
            kinds.reverse();
        }
        for (kind, subject) in kinds {
            let expected = last.get(&subject).copied().unwrap_or(0);
            let started = Instant::now();
            let sequence = match kind {
                "chained" => store.append(&subject, CommandId::new(), expected, &[&body]).await.expect("append").sequence,
                _ => {
                    let message = PublishMessage::build()
                        .payload(floor_events::record::encode_commit(&[&body]).into())
                        .message_id(CommandId::new().to_string())
                        .expected_last_subject_sequence(expected)
                        .header(subjects::SCHEMA_HEADER, floor_events::record::CURRENT_VERSION.to_string().as_str());
                    backbone.jetstream.send_publish(subject.clone(), message).await.expect("publish").await.expect("ack").sequence
                }
            };
            match kind {
                "chained" => chained.push(started.elapsed()),
                _ => plain.push(started.elapsed()),
            }
            last.insert(subject, sequence);
        }
        if round % 20 == 0 {
            // A restart: a store with no heads reads the last commit back.
            let subject = format!("floor.ev.bench.c{}", round % 16);
            let started = Instant::now();
            let fresh = JetStreamStore::new(&backbone);
            let appended = fresh.append(&subject, CommandId::new(), last[&subject], &[&body]).await.expect("append");
            cold.push(started.elapsed());
            last.insert(subject, appended.sequence);
        }
    }
    let p = |samples: &mut Vec<Duration>, q: f64| {
        samples.sort();
        samples[((samples.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1e6
    };
    println!(
        "append p50/p99 µs: chained {:.0}/{:.0}, before chains {:.0}/{:.0}; first after a restart {:.0}/{:.0} ({} rounds)",
        p(&mut chained, 0.5),
        p(&mut chained, 0.99),
        p(&mut plain, 0.5),
        p(&mut plain, 0.99),
        p(&mut cold, 0.5),
        p(&mut cold, 0.99),
        rounds
    );
}
