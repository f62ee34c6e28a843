//! `make bench`: Floor's command path and projection rebuild against raw JetStream, measured in
//! one run against one fresh nats-server, reported as ratios.
//!
//! - latency: p50 of a raw JetStream publish with the per-subject check (the baseline) vs p50 of
//!   a `register` command end to end (request → decide → persist → reply);
//! - throughput: 16 raw concurrent writers vs 16 concurrent clients on 16 tournaments;
//! - for reading both: a bare command (request → append → reply, nothing decided), the floor
//!   that the design's request/reply commands over JetStream put under any implementation;
//! - rebuild: a raw ordered-consumer replay of the tournament commits vs rebuilding the lobby
//!   projection from zero over the same commits.
//!
//! Usage: `floor-bench [--commands N] [--without seating,payouts,rebuys,clock,scheduler] [--write docs/benchmarks.md]`.

use async_nats::jetstream::consumer::pull;
use async_nats::jetstream::message::PublishMessage;
use floor_events::{subjects, CommandId, Reply, TournamentId};
use floor_lobby::LobbyProjection;
use floor_runtime::projection::ProjectionRunner;
use floor_tests::{freezeout, World};
use futures::StreamExt;
use std::time::{Duration, Instant};

const CLIENTS: usize = 16;

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

struct Figures {
    commands: usize,
    echo_p50: Duration,
    append_p50: Duration,
    host_p50: Duration,
    raw_p50: Duration,
    raw_p99: Duration,
    cmd_p50: Duration,
    cmd_p99: Duration,
    bare_p50: Duration,
    raw_rate: f64,
    cmd_rate: f64,
    bare_rate: f64,
    tournament_replay_rate: f64,
    replay_rate: f64,
    rebuild_rate: f64,
    raw_replayed: u64,
    replayed: u64,
}

/// What the raw writers and the bare commands append.
const COMMIT: &[u8] = br#"[{"v":1,"type":"bench"}]"#;

async fn raw_publish(world: &World, subject: &str, expected: u64) -> u64 {
    let message = PublishMessage::build()
        .payload(COMMIT.to_vec().into())
        .message_id(CommandId::new().to_string())
        .expected_last_subject_sequence(expected);
    world.jetstream().send_publish(subject.to_owned(), message).await.expect("publish").await.expect("ack").sequence
}

/// Core NATS request/reply to an echo responder on its own connection: the floor under any
/// request/reply command, for reading the figures (not a target).
async fn echo_latency(world: &World, n: usize) -> Vec<Duration> {
    let responder = async_nats::connect(world.nats.url()).await.expect("connect");
    let mut requests = responder.subscribe("bench.echo").await.expect("subscribe");
    floor_runtime::bootstrap::sync_with_server(&responder).await.expect("responder subscribed");
    let echo = tokio::spawn(async move {
        while let Some(message) = requests.next().await {
            if let Some(reply) = message.reply {
                let _ = responder.publish(reply, message.payload).await;
            }
        }
    });
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        world.backbone.client.request("bench.echo", "ping".into()).await.expect("echo");
        samples.push(start.elapsed());
    }
    echo.abort();
    samples
}

/// A responder that does what every Floor command must and nothing more: it takes a request,
/// appends a fixed commit to the subject the request names (with the per-subject check, as the
/// baseline does) and replies once the stream has acknowledged it. The design fixes both halves
/// (commands by request/reply, facts in JetStream), so this is the floor under any command:
/// Floor's figures are read against it as well as against the raw publish. Own connection,
/// one task per request (requests from several clients overlap, as Floor's do).
async fn bare_responder(world: &World) -> tokio::task::JoinHandle<()> {
    let responder = async_nats::connect(world.nats.url()).await.expect("connect");
    let mut requests = responder.subscribe("bench.bare").await.expect("subscribe");
    floor_runtime::bootstrap::sync_with_server(&responder).await.expect("responder subscribed");
    let jetstream = async_nats::jetstream::new(responder.clone());
    tokio::spawn(async move {
        while let Some(request) = requests.next().await {
            let (responder, jetstream) = (responder.clone(), jetstream.clone());
            tokio::spawn(async move {
                let Some(reply) = request.reply else { return };
                let text = std::str::from_utf8(&request.payload).expect("utf-8");
                let (subject, expected) = text.split_once(' ').expect("subject and sequence");
                let message = PublishMessage::build()
                    .payload(COMMIT.to_vec().into())
                    .message_id(CommandId::new().to_string())
                    .expected_last_subject_sequence(expected.parse().expect("sequence"));
                let ack = jetstream.send_publish(subject.to_owned(), message).await.expect("publish").await.expect("ack");
                let _ = responder.publish(reply, ack.sequence.to_string().into()).await;
            });
        }
    })
}

/// One bare command: append to `subject` after `expected`, through the responder.
async fn bare_command(world: &World, subject: &str, expected: u64) -> u64 {
    let reply = world.backbone.client.request("bench.bare", format!("{subject} {expected}").into()).await.expect("bare command");
    std::str::from_utf8(&reply.payload).expect("utf-8").parse().expect("sequence")
}

/// The store's append alone, and the aggregate host alone (in process, no request hop): where a
/// command's time goes, for reading the figures.
async fn component_latency(world: &World, n: usize) -> (Vec<Duration>, Vec<Duration>) {
    use floor_registration::{TournamentAggregate, TournamentCommand};
    use floor_runtime::{AggregateHost, JetStreamStore};
    let store = JetStreamStore::new(&world.backbone);
    let subject = format!("floor.ev.bench.{}", uuid::Uuid::now_v7());
    let mut appends = Vec::with_capacity(n);
    let mut last = 0;
    let sample = floor_events::registration::TournamentEvent::PlayersKeptApart(floor_events::registration::PlayersKeptApart {
        players: (0..12).map(|i| floor_events::PlayerId::parse(&format!("some-player-name-{i}")).expect("player")).collect(),
        at: chrono::Utc::now(),
    });
    let events = vec![sample];
    eprintln!("append body: {} bytes", floor_events::record::encode_commit(&events).len());
    for _ in 0..n {
        let start = Instant::now();
        last = store.append(&subject, CommandId::new(), last, &events).await.expect("append").sequence;
        appends.push(start.elapsed());
    }
    let host = AggregateHost::<TournamentAggregate>::new(store);
    let id = TournamentId::new();
    let create = TournamentCommand::Create { tournament_id: id, definition: Box::new(freezeout(1_000_000)), at: chrono::Utc::now() };
    host.execute(id.0, CommandId::new(), create).await.expect("host").expect("created");
    let mut executes = Vec::with_capacity(n);
    for i in 0..n {
        let player = floor_events::PlayerId::parse(&format!("host{i}")).expect("player");
        let command = TournamentCommand::Register { player, at: chrono::Utc::now() };
        let start = Instant::now();
        host.execute(id.0, CommandId::new(), command).await.expect("host").expect("registered");
        executes.push(start.elapsed());
    }
    (appends, executes)
}

/// Sequential writes, each on its own new subject: `write` stores one commit on a subject after
/// the given sequence and returns its own (a raw publish, or a bare command).
async fn write_latency(n: usize, write: impl AsyncFn(&str, u64) -> u64) -> Vec<Duration> {
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let subject = format!("floor.ev.bench.{}", uuid::Uuid::now_v7());
        let start = Instant::now();
        write(&subject, 0).await;
        samples.push(start.elapsed());
    }
    samples
}

async fn register_latency(world: &World, tournament: TournamentId, series: &str, n: usize) -> Vec<Duration> {
    let mut samples = Vec::with_capacity(n);
    for i in 0..n {
        let start = Instant::now();
        let reply = world.register(tournament, format!("{series}{i}")).await;
        samples.push(start.elapsed());
        assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
    }
    samples
}

/// Writes per second from [`CLIENTS`] writers, each on its own subject, each waiting for its
/// previous write (see [`write_latency`]).
async fn write_throughput(per_client: usize, write: impl AsyncFn(&str, u64) -> u64) -> f64 {
    let start = Instant::now();
    let write = &write;
    let writers = (0..CLIENTS).map(|_| async move {
        let subject = format!("floor.ev.bench.{}", uuid::Uuid::now_v7());
        let mut last = 0;
        for _ in 0..per_client {
            last = write(&subject, last).await;
        }
    });
    futures::future::join_all(writers).await;
    (CLIENTS * per_client) as f64 / start.elapsed().as_secs_f64()
}

async fn register_throughput(world: &World, tournaments: &[TournamentId], per_client: usize) -> f64 {
    let start = Instant::now();
    let clients = tournaments.iter().enumerate().map(|(c, &t)| async move {
        for i in 0..per_client {
            let reply = world.register(t, format!("tp{c}-{i}")).await;
            assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
        }
    });
    futures::future::join_all(clients).await;
    (tournaments.len() * per_client) as f64 / start.elapsed().as_secs_f64()
}

/// Seating commits in the log so far (every tournament).
async fn seating_commits(world: &World) -> u64 {
    let mut counted = 0;
    let mut subjects =
        world.backbone.events.info_with_subjects(subjects::event_filter(subjects::aggregate::SEATING)).await.expect("stream info");
    while let Some(Ok((_, count))) = subjects.next().await {
        counted += count as u64;
    }
    counted
}

/// Reads every commit on `filters` with an ordered consumer, touching each payload.
async fn raw_replay(world: &World, filters: Vec<String>) -> (u64, f64) {
    let consumer = world
        .backbone
        .events
        .create_consumer(pull::OrderedConfig { filter_subjects: filters, ..Default::default() })
        .await
        .expect("ordered consumer");
    let start = Instant::now();
    let mut messages = consumer.messages().await.expect("messages");
    let (mut count, mut bytes) = (0u64, 0usize);
    while let Some(message) = messages.next().await {
        let message = message.expect("message");
        bytes += message.payload.len();
        count += 1;
        if message.info().expect("info").pending == 0 {
            break;
        }
    }
    std::hint::black_box(bytes);
    (count, count as f64 / start.elapsed().as_secs_f64())
}

/// Waits until every reader of the platform has taken every commit (the store's own answer,
/// `waiting::observe` with no threshold), so the rebuild is measured alone, not beside the live
/// views still taking the registrations. Says how long that took.
async fn settle(world: &World) {
    let start = Instant::now();
    loop {
        let later = chrono::Utc::now() + chrono::Duration::hours(1);
        let waits = floor_runtime::waiting::observe(world.jetstream(), later, Duration::ZERO).await.expect("observed");
        if waits.is_empty() || start.elapsed() > Duration::from_secs(120) {
            eprintln!(
                "the platform took the registrations {:.2} s after the last reply (waiting: {})",
                start.elapsed().as_secs_f64(),
                waits.len()
            );
            return;
        }
        tokio::task::yield_now().await;
    }
}

async fn rebuild(world: &World) -> (u64, f64) {
    let projection = LobbyProjection::load(&world.backbone).await.expect("lobby");
    let mut runner = ProjectionRunner::new(&world.backbone, projection).await.expect("runner");
    let start = Instant::now();
    let replayed = runner.rebuild().await.expect("rebuild");
    (replayed, replayed as f64 / start.elapsed().as_secs_f64())
}

/// The platform, less the services named in `without` (for reading where the time goes; `make
/// bench` runs it whole).
async fn measure(commands: usize, without: &str) -> Figures {
    let world = World::start_configured(|c| {
        for name in without.split(',') {
            match name {
                "" => {}
                name if floor_events::registry::names().contains(&name) => c.skip(name),
                other => panic!("--without: no service {other:?} (names: {:?})", floor_events::registry::names()),
            }
        }
    })
    .await;
    let big = world.create(freezeout(1_000_000)).await;
    let mut tournaments = Vec::new();
    for _ in 0..CLIENTS {
        tournaments.push(world.create(freezeout(1_000_000)).await);
    }
    // Warm up both paths (connections, aggregate tasks, server caches).
    let raw = async |subject: &str, expected| raw_publish(&world, subject, expected).await;
    let bare = async |subject: &str, expected| bare_command(&world, subject, expected).await;
    write_latency(200, raw).await;
    register_latency(&world, big, "warm", 200).await;
    for &t in &tournaments {
        assert!(matches!(world.register(t, "warmup").await, Reply::Ok(_)));
    }

    eprintln!("latency: {commands} raw publishes, then {commands} register commands…");
    let mut echo = echo_latency(&world, commands).await;
    let (mut append, mut host) = component_latency(&world, commands).await;
    let responder = bare_responder(&world).await;
    write_latency(200, bare).await;
    let mut raw_samples = write_latency(commands, raw).await;
    let mut bare_samples = write_latency(commands, bare).await;
    let mut cmd = register_latency(&world, big, "lat", commands).await;
    let per_client = commands / CLIENTS * 2;
    eprintln!("throughput: {CLIENTS} raw writers, {CLIENTS} bare-command clients, then {CLIENTS} clients on {CLIENTS} tournaments, {per_client} each…");
    let raw_rate = write_throughput(per_client, raw).await;
    let bare_rate = write_throughput(per_client, bare).await;
    let seating_before = seating_commits(&world).await;
    let cmd_rate = register_throughput(&world, &tournaments, per_client).await;
    eprintln!("{} registrations made {} seating commits", CLIENTS * per_client, seating_commits(&world).await - seating_before);
    responder.abort();
    settle(&world).await;
    eprintln!("rebuild: raw ordered replay, then lobby rebuild…");
    // The baseline reads what the lobby reads, as it reads it: its four subjects through one
    // consumer (a consumer with several filters costs the server more per message than one
    // with a single filter; the tournament subjects alone are shown for reading).
    let (_, tournament_replay_rate) = raw_replay(&world, vec![subjects::event_filter(subjects::aggregate::TOURNAMENT)]).await;
    let lobby_filters = floor_runtime::projection::Projection::filters(&LobbyProjection::load(&world.backbone).await.expect("lobby"));
    let (raw_replayed, replay_rate) = raw_replay(&world, lobby_filters).await;
    let (replayed, rebuild_rate) = rebuild(&world).await;
    let figures = Figures {
        commands,
        echo_p50: percentile(&mut echo, 0.5),
        append_p50: percentile(&mut append, 0.5),
        host_p50: percentile(&mut host, 0.5),
        raw_p50: percentile(&mut raw_samples, 0.5),
        raw_p99: percentile(&mut raw_samples, 0.99),
        cmd_p50: percentile(&mut cmd, 0.5),
        cmd_p99: percentile(&mut cmd, 0.99),
        bare_p50: percentile(&mut bare_samples, 0.5),
        raw_rate,
        cmd_rate,
        bare_rate,
        tournament_replay_rate,
        replay_rate,
        rebuild_rate,
        raw_replayed,
        replayed,
    };
    drop(world);
    figures
}

fn report(f: &Figures, server: &str) -> String {
    let latency_ratio = micros(f.cmd_p50) / micros(f.raw_p50);
    let throughput_ratio = f.cmd_rate / f.raw_rate;
    let rebuild_ratio = f.rebuild_rate / f.replay_rate;
    let verdict = |ok: bool| if ok { "meets target" } else { "**misses target**" };
    format!(
        "| figure | baseline (raw JetStream) | Floor | ratio | target |\n\
         |---|---|---|---|---|\n\
         | command latency p50 | {:.0} µs (publish + per-subject check) | {:.0} µs (`register` end to end) | {:.2}× | ≤ 2× — {} |\n\
         | command latency p99 | {:.0} µs | {:.0} µs | {:.2}× | — |\n\
         | core request/reply echo p50 (for reading, not a target) | — | {:.0} µs | — | — |\n\
         | store append p50 / host execute p50, in process (for reading) | — | {:.0} µs / {:.0} µs | — | — |\n\
         | bare command p50: request → append → reply, nothing decided, the floor of any command in this design (for reading) | {:.0} µs | {:.0} µs | {:.2}× | — |\n\
         | `register` p50 against the bare command (for reading) | {:.0} µs | {:.0} µs | {:.2}× | — |\n\
         | throughput, {CLIENTS} concurrent | {:.0} publishes/s ({CLIENTS} writers) | {:.0} registrations/s ({CLIENTS} tournaments) | {:.0} % | ≥ 50 % — {} |\n\
         | bare commands, {CLIENTS} concurrent (for reading) | {:.0} publishes/s | {:.0} bare commands/s | {:.0} % | — |\n\
         | registrations against bare commands (for reading) | {:.0} bare commands/s | {:.0} registrations/s | {:.0} % | — |\n\
         | replay / rebuild | {:.0} commits/s (ordered consumer on the lobby's 4 subjects, {} commits) | {:.0} commits/s (lobby rebuild, {} commits) | {:.0} % | ≥ 70 % — {} |\n\
         | replay of the tournament subjects alone (for reading) | {:.0} commits/s (ordered consumer, 1 subject) | — | {:.0} % | — |\n\n\
         {} sequential commands per latency series; nats-server {server}, single node, file storage, default fsync.\n",
        micros(f.raw_p50),
        micros(f.cmd_p50),
        latency_ratio,
        verdict(latency_ratio <= 2.0),
        micros(f.raw_p99),
        micros(f.cmd_p99),
        micros(f.cmd_p99) / micros(f.raw_p99),
        micros(f.echo_p50),
        micros(f.append_p50),
        micros(f.host_p50),
        micros(f.raw_p50),
        micros(f.bare_p50),
        micros(f.bare_p50) / micros(f.raw_p50),
        micros(f.bare_p50),
        micros(f.cmd_p50),
        micros(f.cmd_p50) / micros(f.bare_p50),
        f.raw_rate,
        f.cmd_rate,
        throughput_ratio * 100.0,
        verdict(throughput_ratio >= 0.5),
        f.raw_rate,
        f.bare_rate,
        f.bare_rate / f.raw_rate * 100.0,
        f.bare_rate,
        f.cmd_rate,
        f.cmd_rate / f.bare_rate * 100.0,
        f.replay_rate,
        f.raw_replayed,
        f.rebuild_rate,
        f.replayed,
        rebuild_ratio * 100.0,
        verdict(rebuild_ratio >= 0.7),
        f.tournament_replay_rate,
        f.rebuild_rate / f.tournament_replay_rate * 100.0,
        f.commands,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let commands: usize = arg("--commands").map(|s| s.parse().expect("--commands N")).unwrap_or(5_000);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let without = arg("--without").unwrap_or_default();
    assert!(without.is_empty() || arg("--write").is_none(), "--write records the whole platform only");
    let figures = runtime.block_on(measure(commands, &without));
    let server = floor_runtime::server::find_binary()
        .ok()
        .and_then(|b| floor_runtime::server::binary_version(&b))
        .map(|(a, b)| format!("{a}.{b}"))
        .unwrap_or_else(|| "?".into());
    let table = report(&figures, &server);
    println!("{table}");
    if let Some(path) = arg("--write") {
        let machine = format!("{} cores, {}", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0), std::env::consts::ARCH);
        let body = format!("_Last run: {}, {machine}, `make bench`._\n\n{table}", chrono::Utc::now().format("%Y-%m-%d %H:%M UTC"));
        floor_tests::write_bench_section(&path, "floor-bench:backbone", "## Backbone and registration (issue 2)", &body)
            .expect("write benchmarks");
        eprintln!("updated the issue-2 section of {path}");
    }
}
