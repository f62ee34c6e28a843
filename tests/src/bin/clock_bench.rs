//! Ten thousand tournament clocks in one process (issue 4): how late each level change is
//! published after its scheduled instant, and the memory each running clock costs.
//!
//! - Floor: the clock service on a fresh nats-server; N clocks get a structure and start (as
//!   fast as the endpoint takes them, so their level changes spread over that span); a
//!   subscriber on `floor.ev.clock.>` notes when each timer-driven `step_started` arrives and
//!   subtracts the instant the step was due (`at`).
//! - Baseline, same process and server: N tokio timers due at the same spread of instants,
//!   each doing one raw JetStream publish when it fires, measured the same way. The ratio says
//!   what the clock adds over "a timer and an append".
//! - Memory: resident set before the clocks and after they run, divided by N (the nats-server
//!   is another process and not counted).
//!
//! Usage: `clock-bench [--clocks N] [--level-seconds S] [--write docs/benchmarks.md]`.

use chrono::{DateTime, Utc};
use floor_clock::ClockService;
use floor_events::clock::{verbs, ClockEvent, ClockRequest, Level, SetStructure, Step, StepCause, Structure};
use floor_events::{subjects, CommandId, Reply, TournamentId};
use floor_runtime::bootstrap;
use floor_runtime::shell::{Context, Service};
use futures::StreamExt;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    statm.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()).unwrap_or(0) * 4096
}

fn percentile(samples: &mut [i64], p: f64) -> i64 {
    samples.sort_unstable();
    samples.get(((samples.len().max(1) - 1) as f64 * p).round() as usize).copied().unwrap_or(0)
}

fn structure(level_seconds: u32) -> Structure {
    let steps = (1..=8u64)
        .map(|i| Step::Level(Level { small_blind: 50 * i, big_blind: 100 * i, ante: 0, big_blind_ante: false, seconds: level_seconds }))
        .collect();
    Structure { steps, late_registration_levels: None, rebuys_until_break: None, push_hold_seconds: 0 }
}

/// Collects `(received − due)` in microseconds for timer-driven level changes until `until`.
async fn lateness(client: async_nats::Client, until: tokio::time::Instant) -> Vec<i64> {
    let mut changes = client.subscribe("floor.ev.clock.>").await.expect("subscribe");
    bootstrap::sync_with_server(&client).await.expect("subscribed");
    let mut late = Vec::new();
    while let Ok(Some(message)) = tokio::time::timeout_at(until, changes.next()).await {
        let received = Utc::now();
        let Ok(events) = floor_events::record::decode_commit::<ClockEvent>(&message.payload) else { continue };
        for event in events {
            if let ClockEvent::StepStarted { at, cause: StepCause::Timer, .. } = event {
                late.push((received - at).num_microseconds().unwrap_or(i64::MAX));
            }
        }
    }
    late
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let clocks: usize = arg("--clocks").map(|v| v.parse().expect("a number")).unwrap_or(10_000);
    let level_seconds: u32 = arg("--level-seconds").map(|v| v.parse().expect("a number")).unwrap_or(10);

    let (server, backbone) = floor_tests::backbone_alone().await;
    let (shutdown, tracker) = (CancellationToken::new(), TaskTracker::new());
    let service = ClockService::start(&Context::new(&backbone, shutdown.clone(), &tracker)).await.expect("clock service");
    let (ready, is_ready) = tokio::sync::oneshot::channel();
    tracker.spawn(ClockService::verbs().serve(service.clone(), backbone.client.clone(), shutdown.clone(), Some(ready)));
    is_ready.await.expect("endpoint ready");
    let rss_before = rss_bytes();

    // Start every clock; the span it takes spreads their level changes.
    let watch_until = tokio::time::Instant::now() + Duration::from_secs(u64::from(level_seconds) * 3);
    let observer = tokio::spawn(lateness(backbone.client.clone(), watch_until));
    let started = std::time::Instant::now();
    let client = backbone.client.clone();
    let mut starts: Vec<DateTime<Utc>> = futures::stream::iter(0..clocks)
        .map(|_| {
            let client = client.clone();
            async move {
                let tournament_id = TournamentId::new();
                let send =
                    |verb: &str, body: Vec<u8>| client.request(subjects::command_subject(subjects::service::CLOCK, verb), body.into());
                let set = SetStructure {
                    command_id: CommandId::new(),
                    tournament_id,
                    structure: floor_events::clock::BlindStructure::Custom(structure(level_seconds)),
                };
                send(verbs::SET_STRUCTURE.name(), serde_json::to_vec(&set).unwrap()).await.expect("structure");
                let start = ClockRequest { command_id: CommandId::new(), tournament_id };
                let reply = send(verbs::START.name(), serde_json::to_vec(&start).unwrap()).await.expect("start");
                match serde_json::from_slice::<Reply<serde_json::Value>>(&reply.payload).expect("reply") {
                    Reply::Ok(v) => serde_json::from_value::<DateTime<Utc>>(v["events"][0]["at"].clone()).expect("start instant"),
                    Reply::Error(e) => panic!("start refused: {e}"),
                }
            }
        })
        .buffer_unordered(256)
        .collect()
        .await;
    let start_span = started.elapsed();
    eprintln!("{clocks} clocks started in {start_span:?}; watching level changes for {}s", level_seconds * 3);
    let mut floor_late = observer.await.expect("observer");
    let rss_after = rss_bytes();
    let live = service.live_clocks();
    shutdown.cancel();

    // Baseline: the same instants, a tokio timer and one raw JetStream publish each.
    let jetstream = backbone.jetstream.clone();
    jetstream
        .create_stream(async_nats::jetstream::stream::Config {
            name: "BENCH_TIMERS".into(),
            subjects: vec!["bench.timer.>".into()],
            ..Default::default()
        })
        .await
        .expect("baseline stream");
    starts.sort();
    let offset = Utc::now() + chrono::Duration::seconds(2) - starts[0];
    let dues: Vec<DateTime<Utc>> = starts.iter().map(|s| *s + offset + chrono::Duration::seconds(i64::from(level_seconds))).collect();
    let last_due = *dues.last().expect("dues");
    let until = tokio::time::Instant::now() + (last_due - Utc::now()).to_std().unwrap_or_default() + Duration::from_secs(2);
    let baseline_observer = {
        let client = backbone.client.clone();
        tokio::spawn(async move {
            let mut fired = client.subscribe("bench.timer.>").await.expect("subscribe");
            bootstrap::sync_with_server(&client).await.expect("subscribed");
            let mut late = Vec::new();
            while let Ok(Some(message)) = tokio::time::timeout_at(until, fired.next()).await {
                let due: DateTime<Utc> = serde_json::from_slice(&message.payload).expect("due instant");
                late.push((Utc::now() - due).num_microseconds().unwrap_or(i64::MAX));
            }
            late
        })
    };
    for (i, due) in dues.into_iter().enumerate() {
        let jetstream = jetstream.clone();
        tokio::spawn(async move {
            tokio::time::sleep((due - Utc::now()).to_std().unwrap_or_default()).await;
            let ack = jetstream.publish(format!("bench.timer.{i}"), serde_json::to_vec(&due).unwrap().into()).await.expect("publish");
            ack.await.expect("ack");
        });
    }
    let mut baseline_late = baseline_observer.await.expect("baseline observer");

    let ms = |us: i64| us as f64 / 1000.0;
    let (f50, f99, fmax) = (percentile(&mut floor_late, 0.5), percentile(&mut floor_late, 0.99), *floor_late.iter().max().unwrap_or(&0));
    let (b50, b99) = (percentile(&mut baseline_late, 0.5), percentile(&mut baseline_late, 0.99));
    let met = f99 <= 50_000;
    let (f50, f99, fmax, b50, b99) = (ms(f50), ms(f99), ms(fmax), ms(b50), ms(b99));
    let per_clock = rss_after.saturating_sub(rss_before) as f64 / clocks as f64;
    let rate = clocks as f64 / start_span.as_secs_f64();
    let table = format!(
        "| figure | Floor | baseline: timer + raw JetStream publish | ratio | target |\n|---|---|---|---|---|\n\
         | level change published after its instant, p50 | {f50:.1} ms | {b50:.1} ms | | |\n\
         | level change published after its instant, p99 | {f99:.1} ms (max {fmax:.1} ms) | {b99:.1} ms | {:.1}× | p99 ≤ 50 ms: {} |\n\
         | memory per running clock (resident, service process) | {:.1} KiB | | | reported |\n\n\
         {clocks} clocks of {level_seconds}-second levels, {} level changes measured; clocks started at {rate:.0}/s over {:.1} s, so level changes \
         arrived at about that rate; {live} clocks live in the service.\n",
        f99 / b99.max(0.001),
        if met { "met" } else { "**missed**" },
        per_clock / 1024.0,
        floor_late.len(),
        start_span.as_secs_f64(),
    );
    println!("{table}");
    if let Some(path) = arg("--write") {
        let body = format!("Command: `cargo run --release -p floor-tests --bin clock-bench -- --clocks {clocks} --level-seconds {level_seconds}`\n\n{table}");
        floor_tests::write_bench_section(&path, "clock-bench", "## Clock (issue 4)", &body).expect("write benchmarks");
        eprintln!("wrote {path}");
    }
    tracker.close();
    drop(server);
}
