//! Issue 23's figure: many Server-Sent Events clients watching one tournament while `floor sim`
//! plays it, against one raw KV watcher of the same document in the same run.
//!
//! Each run starts a nats-server, `floor run` (the whole platform, lobby HTTP included) and
//! `floor sim` against it. A raw watcher follows the tournament's key in KV `floor-lobby`; once
//! the document exists, `--clients` plain-socket clients open `GET /api/tournaments/{id}/events`.
//! For every revision the raw watcher saw, the delay is from the time the server stored it (the
//! KV message's timestamp) to the raw watcher receiving it, and to the moment the *last* client
//! holds it or a newer revision (a feed skips to the newest document by design). The platform's
//! CPU share is `floor run`'s user + system time over the run's wall time, read from `/proc`,
//! in a run without clients and one with them.
//!
//! With `--lobby-apart` the lobby runs as its own process (`floor lobby`) beside `floor run
//! --only` every other service: the lobby's tasks then do not queue behind the services' work
//! on one runtime.
//!
//! `cargo build --release -p floor -p floor-tests --bins && target/release/lobby-sse-bench
//! [--entrants 10000] [--clients 1000] [--lobby-apart] [--write docs/benchmarks.md]`

use floor_runtime::server::{self, NatsServer, ServerOptions};
use futures::StreamExt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use tokio::io::AsyncWriteExt;

const TOURNAMENT: &str = "7e57ab1e-0000-4000-8000-0000005ee001";

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

/// A child killed when dropped.
struct Guarded(Child);

impl Drop for Guarded {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// CPU seconds (user + system) of a process so far.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = rest.split_whitespace().skip(11).take(2).filter_map(|f| f.parse().ok()).collect();
    // Clock ticks are 100 a second on Linux here (sysconf(_SC_CLK_TCK)).
    fields.iter().sum::<u64>() as f64 / 100.0
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("its address").port()
}

/// What one run measured.
struct Run {
    clients: usize,
    wall: Duration,
    cpu: f64,
    /// This process's CPU over the run: the clients' (and the raw watcher's) reading.
    clients_cpu: f64,
    revisions: usize,
    raw: Vec<Duration>,
    all: Vec<Duration>,
    /// Revisions some client never held (or a newer one) by the end.
    missed: usize,
    /// Bytes every client read, together.
    bytes: u64,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// What one client received: each revision, with when; and the bytes it read.
type Received = Arc<Mutex<(Vec<(u64, SystemTime)>, u64)>>;

/// One SSE client: each revision it received, with when. It stands in for a browser on another
/// machine, so it does as little as it can here: it reads into one buffer and looks only for
/// the `id:` lines (no line is copied out; the documents' bytes are counted and dropped).
async fn client(addr: SocketAddr, path: String, got: Received) {
    use tokio::io::AsyncReadExt;
    let Ok(mut stream) = tokio::net::TcpStream::connect(addr).await else { return };
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    if stream.write_all(request.as_bytes()).await.is_err() {
        return;
    }
    let mut buffer = vec![0u8; 1 << 16];
    // Bytes of the buffer not yet looked at: an `id:` line cut by a read waits for the next one.
    let mut kept = 0;
    loop {
        let Ok(n) = stream.read(&mut buffer[kept..]).await else { return };
        if n == 0 {
            return;
        }
        let now = SystemTime::now();
        let end = kept + n;
        let mut log = got.lock().expect("client log");
        log.1 += n as u64;
        // Every complete line; what follows the last newline is kept for the next read.
        let complete = buffer[..end].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        for line in buffer[..complete].split(|&b| b == b'\n') {
            if let Some(id) = line.strip_prefix(b"id: ") {
                if let Some(revision) = std::str::from_utf8(id).ok().and_then(|id| id.trim().parse::<u64>().ok()) {
                    log.0.push((revision, now));
                }
            }
        }
        drop(log);
        buffer.copy_within(complete..end, 0);
        kept = end - complete;
        if kept == buffer.len() {
            // A line longer than the buffer is a document's `data:`: nothing to look for in it.
            kept = 0;
        }
    }
}

async fn run(floor: &PathBuf, entrants: u32, clients: usize, lobby_apart: bool) -> Run {
    let store = tempfile::Builder::new().prefix("floor-sse-").tempdir().expect("temp dir");
    let options = ServerOptions {
        binary: server::find_binary().expect("nats-server"),
        dir: store.path().join("nats"),
        port: 0,
        sync_always: false,
        extra: String::new(),
    };
    let nats = NatsServer::start(options).expect("nats-server starts");
    let http: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("address");
    let quiet = |c: &mut Command| {
        c.env("NATS_URL", nats.url())
            .env("FLOOR_LOG", "warn")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
    };
    let mut platform = Command::new(floor);
    platform.args(["run", "--http", &http.to_string(), "--data"]).arg(store.path().join("data"));
    if lobby_apart {
        platform.args(["--only", "registration,clock,seating,payouts,rebuys,bounties,bubble,abort,scheduler"]);
    }
    quiet(&mut platform);
    let platform = Guarded(platform.spawn().expect("floor run"));
    // With --lobby-apart the lobby is its own process (`floor lobby`), as it can be deployed.
    let lobby = lobby_apart.then(|| {
        let mut lobby = Command::new(floor);
        lobby.args(["lobby", "--http", &http.to_string(), "--data"]).arg(store.path().join("data"));
        quiet(&mut lobby);
        Guarded(lobby.spawn().expect("floor lobby"))
    });
    let pids: Vec<u32> = std::iter::once(platform.0.id()).chain(lobby.as_ref().map(|l| l.0.id())).collect();
    let platform_cpu = || pids.iter().map(|&pid| cpu_seconds(pid)).sum::<f64>();

    let client_nats = async_nats::connect(nats.url()).await.expect("connect");
    let jetstream = async_nats::jetstream::new(client_nats);
    // The lobby creates its bucket at start: wait for it, and for its HTTP.
    let bucket = loop {
        if let Ok(bucket) = jetstream.get_key_value(floor_events::subjects::LOBBY_BUCKET).await {
            if tokio::net::TcpStream::connect(http).await.is_ok() {
                break bucket;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut raw = bucket.watch(TOURNAMENT).await.expect("watch the document");

    let mut sim = Command::new(floor);
    sim.args(["sim", "--entrants", &entrants.to_string(), "--tournament-id", TOURNAMENT, "--seed", "7"]);
    quiet(&mut sim);
    let sim_log = store.path().join("sim.log");
    sim.stderr(std::fs::File::create(&sim_log).expect("sim log"));
    let sim = Guarded(sim.spawn().expect("floor sim"));
    let (begun, cpu_before, own_before) = (Instant::now(), platform_cpu(), cpu_seconds(std::process::id()));

    // (revision, stored, received) for every revision the raw watcher saw.
    let mut seen: Vec<(u64, SystemTime, SystemTime)> = Vec::new();
    let logs: Vec<Received> = (0..clients).map(|_| Arc::default()).collect();
    let mut measured_from = None;
    let sim = Arc::new(Mutex::new(sim));
    let done = {
        let sim = sim.clone();
        tokio::task::spawn_blocking(move || loop {
            if let Ok(Some(status)) = sim.lock().expect("sim").0.try_wait() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(200));
        })
    };
    tokio::pin!(done);
    loop {
        tokio::select! {
            status = &mut done => {
                let status = status.expect("the sim's waiter");
                assert!(status.success(), "floor sim failed ({status}):\n{}", std::fs::read_to_string(&sim_log).unwrap_or_default());
                break;
            }
            entry = raw.next() => {
                let Some(Ok(entry)) = entry else { break };
                let stored = SystemTime::from(entry.created);
                seen.push((entry.revision, stored, SystemTime::now()));
                if measured_from.is_none() {
                    // The document exists: the clients can open their feeds.
                    for log in &logs {
                        tokio::spawn(client(http, format!("/api/tournaments/{TOURNAMENT}/events"), log.clone()));
                    }
                    measured_from = Some(entry.revision);
                }
            }
        }
    }
    let (wall, cpu, clients_cpu) = (begun.elapsed(), platform_cpu() - cpu_before, cpu_seconds(std::process::id()) - own_before);
    drop(lobby);
    drop(platform);

    // Revisions after the clients had a second to connect.
    let settle = seen.first().map(|s| s.2 + Duration::from_secs(1));
    let measured: Vec<&(u64, SystemTime, SystemTime)> = seen.iter().filter(|s| settle.is_some_and(|t| s.2 >= t)).collect();
    let bytes: u64 = logs.iter().map(|l| l.lock().expect("client log").1).sum();
    let logs: Vec<Vec<(u64, SystemTime)>> = logs.iter().map(|l| l.lock().expect("client log").0.clone()).collect();
    let mut raw_delays = Vec::new();
    let mut all_delays = Vec::new();
    let mut missed = 0;
    for (revision, stored, received) in &measured {
        raw_delays.push(received.duration_since(*stored).unwrap_or_default());
        if clients == 0 {
            continue;
        }
        let last = logs.iter().map(|log| {
            let i = log.partition_point(|(r, _)| r < revision);
            log.get(i).map(|(_, at)| *at)
        });
        match last.collect::<Option<Vec<SystemTime>>>() {
            Some(times) => all_delays.push(times.into_iter().max().unwrap_or(*stored).duration_since(*stored).unwrap_or_default()),
            None => missed += 1,
        }
    }
    raw_delays.sort();
    all_delays.sort();
    Run { clients, wall, cpu, clients_cpu, revisions: measured.len(), raw: raw_delays, all: all_delays, missed, bytes }
}

fn main() {
    let floor = arg("--floor").map(PathBuf::from).unwrap_or_else(|| std::env::current_exe().expect("own path").with_file_name("floor"));
    assert!(floor.is_file(), "no floor binary at {} (cargo build --release -p floor, or --floor PATH)", floor.display());
    let entrants: u32 = arg("--entrants").map_or(10_000, |v| v.parse().expect("--entrants N"));
    let clients: usize = arg("--clients").map_or(1_000, |v| v.parse().expect("--clients N"));
    let lobby_apart = std::env::args().any(|a| a == "--lobby-apart");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let mut runs = Vec::new();
    for watchers in [0, clients] {
        eprintln!("run: {entrants} entrants, {watchers} SSE clients");
        let run = runtime.block_on(run(&floor, entrants, watchers, lobby_apart));
        eprintln!("  {:.0} s, platform CPU {:.1} s, {} revisions", run.wall.as_secs_f64(), run.cpu, run.revisions);
        runs.push(run);
    }
    let mut body = format!(
        "`cargo build --release -p floor -p floor-tests --bins && target/release/lobby-sse-bench --entrants {entrants} --clients {clients}{}` \
         ({} cores; nats-server, {}, `floor sim` and the clients on one machine)\n\n\
         | SSE clients | wall | platform CPU | CPU share | clients' CPU | revisions | raw watcher p50 / p99 (ms) | every client p50 / p99 (ms) | p99 ratio | revisions a client never held | bytes a client read per revision |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
        if lobby_apart { " --lobby-apart" } else { "" },
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        if lobby_apart { "`floor run` without the lobby, `floor lobby` (platform CPU: both)" } else { "`floor run`" }
    );
    for r in &runs {
        let (raw50, raw99) = (percentile(&r.raw, 0.5), percentile(&r.raw, 0.99));
        let (all50, all99) = (percentile(&r.all, 0.5), percentile(&r.all, 0.99));
        let ratio = if r.clients == 0 || raw99.is_zero() {
            "–".to_owned()
        } else {
            format!("{:.2}×", all99.as_secs_f64() / raw99.as_secs_f64())
        };
        let clients = if r.clients == 0 { "–".to_owned() } else { format!("{} / {}", ms(all50), ms(all99)) };
        let per_revision = match r.clients {
            0 => "–".to_owned(),
            n => format!("{}", r.bytes / n as u64 / r.revisions.max(1) as u64),
        };
        body.push_str(&format!(
            "| {} | {:.0} s | {:.1} s | {:.0} % | {:.1} s | {} | {} / {} | {clients} | {ratio} | {} | {per_revision} |\n",
            r.clients,
            r.wall.as_secs_f64(),
            r.cpu,
            100.0 * r.cpu / r.wall.as_secs_f64(),
            r.clients_cpu,
            r.revisions,
            ms(raw50),
            ms(raw99),
            r.missed
        ));
    }
    println!("{body}");
    if let Some(path) = arg("--write") {
        floor_tests::write_bench_section(&path, "lobby-sse", "## Lobby live feeds: SSE clients against a raw KV watcher (issue 23)", &body)
            .expect("write the figures");
        eprintln!("wrote {path}");
    }
}
