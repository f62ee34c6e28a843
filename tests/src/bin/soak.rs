//! The soak (issue 18): kill any service at any moment, many times, in a large rebuy
//! tournament, and measure what it costs.
//!
//! Every service runs in its own `floor run --only <service>` process (the release binary next
//! to this one, or `--floor PATH`) against one nats-server with `sync_interval: always`, as an
//! operator runs Floor; `floor sim --standings` plays through `NATS_URL` with a fixed tournament
//! id and test seed key (`FLOOR_SEED_KEY`), so every run plays the same tournament. First one
//! run undisturbed; then each disturbed run, on a fresh server, kills one service with SIGKILL
//! every `--every` seconds (a seeded schedule: every service once in a drawn order, then drawn
//! at random) and starts it again at once.
//!
//! Figures: kills and restarts; the time from a kill to serving again (the new process's first
//! reply to `$SRV.PING`; for seating, which has no endpoint, its "caught up" log line; for the
//! lobby, its "running" line); the longest stall (the longest gap between the sim's progress
//! lines while it plays; it prints at most one a second); and whether each run finished and
//! equalled the undisturbed one (winner, hands, moves, tables broken, books, every standing).
//!
//! A Rust binary rather than a shell script: it times `$SRV.PING` replies with async-nats to the
//! millisecond (no `nats` CLI needed), draws the kill schedule from a seed, compares the JSON
//! summaries field by field, and kills every process it started when it ends (drop guards).
//!
//! Usage: `cargo build --release -p floor && cargo run --release -p floor-tests --bin floor-soak --
//! [--entrants 10000] [--format rebuy] [--runs 3] [--every 2-5] [--seed 7] [--minutes 60]
//! [--start-after S] [--floor PATH] [--kill scheduler,payouts] [--write docs/reliability.md]`.
//! `--kill` limits the services killed (every service still runs): a restart figure for one
//! service at a field size.
//!
//! For restart times at scale (issue 16: every service back within 2 s of a `kill -9` in the
//! middle of a 250,000-entrant tournament) the undisturbed run is not needed:
//! `--no-baseline` plays only the disturbed runs (nothing to compare them with), and
//! `--no-fsync` runs nats-server without `sync_interval: always`, as the other 250,000-entrant
//! figures in `docs/benchmarks.md` do; `--first-kill-after S` lets the field register before the
//! first kill; `--write-section` names the section written.

use floor_runtime::server::{self, NatsServer, ServerOptions};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Every registered service, each in its own process (bounties and abort too, though the
/// formats played here pay no bounty and cancel nothing: they read the tournament's log all
/// the same, and their restart is measured with the others'). From the registry, so a new
/// service is soaked without being listed here.
fn services() -> Vec<&'static str> {
    floor_events::registry::names()
}

/// What `floor run` logs once every service it runs is serving ("Floor service is running", or
/// with the lobby "Floor is running; lobby at …").
const SERVING: &str = " is running";

/// What seating logs once its runners have read the log (it has no endpoint to ping).
const SEATING_CAUGHT_UP: &str = "seating runners caught up";

/// Seating's draw key in every run (a test setting).
const SEED_KEY: &str = "test:50a650a650a650a650a650a650a650a650a650a650a650a650a650a650a650a6";

/// The tournament every run plays.
const TOURNAMENT: &str = "7e57ab1e-0000-4000-8000-00000050a618";

/// How long a start or a restart may take before the soak gives up on it.
const START_DEADLINE: Duration = Duration::from_secs(120);

/// The summary fields a disturbed run must share with the undisturbed one.
const COMPARED: [&str; 6] = ["winner", "hands", "moves", "tables_broken", "books", "standings"];

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

/// What to run.
#[derive(Debug, Clone)]
struct Soak {
    floor: PathBuf,
    entrants: u32,
    format: String,
    runs: u32,
    every: (f64, f64),
    seed: u64,
    budget: Duration,
    start_after: Option<String>,
    /// Play the undisturbed run first, to compare every disturbed run with it.
    baseline: bool,
    /// nats-server fsyncs every write before acknowledging it.
    sync_always: bool,
    /// No kill before this long into a run (a large field registers first).
    first_kill_after: Duration,
    /// The services killed (`--kill`; default: every one).
    killed: Vec<&'static str>,
}

fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

/// The options that take a value, and the flags.
const OPTIONS: [&str; 12] = [
    "--entrants",
    "--format",
    "--runs",
    "--every",
    "--seed",
    "--minutes",
    "--start-after",
    "--floor",
    "--kill",
    "--first-kill-after",
    "--write",
    "--write-section",
];
const FLAGS: [&str; 2] = ["--no-baseline", "--no-fsync"];

const USAGE: &str = "usage: floor-soak [--entrants 10000] [--format rebuy] [--runs 3] [--every 2-5] [--seed 7] \
[--minutes 60] [--start-after S] [--first-kill-after S] [--floor PATH] [--kill scheduler,payouts] \
[--no-baseline] [--no-fsync] [--write docs/reliability.md] [--write-section soak]";

/// `--help` prints the usage; an option this binary does not know (a typo would otherwise
/// start an hour-long soak with the defaults) or one missing its value is refused.
fn check_args() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        if a == "--help" || a == "-h" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        if OPTIONS.contains(&a.as_str()) {
            if rest.next().is_none() {
                eprintln!("floor-soak: {a} needs a value\n{USAGE}");
                std::process::exit(2);
            }
        } else if !FLAGS.contains(&a.as_str()) {
            eprintln!("floor-soak: unknown argument {a:?}\n{USAGE}");
            std::process::exit(2);
        }
    }
}

impl Soak {
    fn from_args() -> Self {
        let every = arg("--every").unwrap_or_else(|| "2-5".into());
        let (low, high) = every.split_once('-').unwrap_or((&every, &every));
        let number = |s: &str| s.parse::<f64>().unwrap_or_else(|_| panic!("--every takes seconds as MIN-MAX, not {every:?}"));
        let floor = arg("--floor").map(PathBuf::from).unwrap_or_else(|| std::env::current_exe().expect("own path").with_file_name("floor"));
        assert!(floor.is_file(), "no floor binary at {} (cargo build --release -p floor, or --floor PATH)", floor.display());
        Self {
            floor,
            entrants: arg("--entrants").map_or(10_000, |v| v.parse().expect("--entrants N")),
            format: arg("--format").unwrap_or_else(|| "rebuy".into()),
            runs: arg("--runs").map_or(3, |v| v.parse().expect("--runs N")),
            every: (number(low), number(high)),
            seed: arg("--seed").map_or(7, |v| v.parse().expect("--seed N")),
            budget: Duration::from_secs(60 * arg("--minutes").map_or(60, |v| v.parse::<u64>().expect("--minutes N"))),
            start_after: arg("--start-after"),
            baseline: !flag("--no-baseline"),
            sync_always: !flag("--no-fsync"),
            first_kill_after: Duration::from_secs(arg("--first-kill-after").map_or(0, |v| v.parse().expect("--first-kill-after SECONDS"))),
            killed: match arg("--kill") {
                None => services(),
                Some(list) => list
                    .split(',')
                    .map(|name| {
                        services()
                            .into_iter()
                            .find(|s| *s == name)
                            .unwrap_or_else(|| panic!("--kill: no service {name:?} in {:?}", services()))
                    })
                    .collect(),
            },
        }
    }

    /// The command line of the sim, for the report.
    fn command_line(&self) -> String {
        let mut line = format!(
            "cargo run --release -p floor-tests --bin floor-soak -- --entrants {} --format {} --runs {} --every {}-{} --seed {}",
            self.entrants, self.format, self.runs, self.every.0, self.every.1, self.seed
        );
        if let Some(s) = &self.start_after {
            line.push_str(&format!(" --start-after {s}"));
        }
        if self.killed.len() < services().len() {
            line.push_str(&format!(" --kill {}", self.killed.join(",")));
        }
        if !self.baseline {
            line.push_str(" --no-baseline");
        }
        if !self.sync_always {
            line.push_str(" --no-fsync");
        }
        if !self.first_kill_after.is_zero() {
            line.push_str(&format!(" --first-kill-after {}", self.first_kill_after.as_secs()));
        }
        line
    }
}

/// One kill and what followed.
#[derive(Debug, Clone)]
struct Kill {
    service: &'static str,
    /// From SIGKILL to the new process serving (`None`: it never did).
    serving_again: Option<Duration>,
}

/// One run of the tournament.
#[derive(Debug)]
struct Run {
    summary: Option<Value>,
    failure: Option<String>,
    took: Duration,
    kills: Vec<Kill>,
    /// The longest gap between two progress lines while playing, and when it began.
    longest_stall: (Duration, Duration),
}

fn main() {
    check_args();
    let soak = Soak::from_args();
    let work = tempfile::Builder::new().prefix("floor-soak-").tempdir().expect("temp dir");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let begun = Instant::now();

    let undisturbed = soak.baseline.then(|| {
        eprintln!("undisturbed run: {} entrants, {}", soak.entrants, soak.format);
        let undisturbed = runtime.block_on(play(&soak, work.path(), "undisturbed", None));
        report_run("undisturbed", &undisturbed);
        if undisturbed.summary.is_none() {
            panic!("the undisturbed run failed: {}", undisturbed.failure.clone().unwrap_or_default());
        }
        undisturbed
    });
    let mut disturbed = Vec::new();
    for run in 1..=soak.runs {
        // Bounded in time: a run takes about as long as the undisturbed one, plus its restarts.
        let expected = undisturbed.as_ref().map_or(Duration::ZERO, |u| u.took.mul_f64(1.5));
        if run > 1 && begun.elapsed() + expected > soak.budget {
            eprintln!("time budget spent after {} disturbed runs", run - 1);
            break;
        }
        let label = format!("disturbed-{run}");
        eprintln!("{label}");
        let result = runtime.block_on(play(&soak, work.path(), &label, Some(soak.seed ^ (0x50a6 + u64::from(run)))));
        report_run(&label, &result);
        disturbed.push(result);
    }

    let body = figures(&soak, undisturbed.as_ref(), &disturbed);
    println!("{body}");
    if let Some(path) = arg("--write") {
        let section = arg("--write-section").unwrap_or_else(|| "soak".into());
        floor_tests::write_bench_section(&path, &section, "## Kill any service", &body).expect("write the figures");
        eprintln!("wrote {path}");
    }
}

fn report_run(label: &str, run: &Run) {
    match (&run.summary, &run.failure) {
        (Some(s), _) => eprintln!(
            "{label}: {:.1} s, {} kills, longest stall {:.2} s; winner {}, hands {}, balanced {}",
            run.took.as_secs_f64(),
            run.kills.len(),
            run.longest_stall.0.as_secs_f64(),
            s["winner"],
            s["hands"],
            s["books"]["balanced"]
        ),
        (None, failure) => eprintln!("{label}: FAILED after {:.1} s: {}", run.took.as_secs_f64(), failure.clone().unwrap_or_default()),
    }
}

/// The markdown the soak prints and writes.
fn figures(soak: &Soak, undisturbed: Option<&Run>, runs: &[Run]) -> String {
    let secs = |d: Duration| format!("{:.2} s", d.as_secs_f64());
    let mut out = format!("Command: `cargo build --release -p floor && {}`\n\n", soak.command_line());
    out.push_str("| run | took | kills | restarts serving again | kill → serving: median / max | longest stall (at) | finished, books balanced | equals the undisturbed run |\n|---|---|---|---|---|---|---|---|\n");
    let reference = undisturbed.and_then(|u| u.summary.as_ref());
    if let (Some(undisturbed), Some(reference)) = (undisturbed, reference) {
        out.push_str(&format!(
            "| undisturbed | {} | 0 | | | {} ({}) | {} | |\n",
            secs(undisturbed.took),
            secs(undisturbed.longest_stall.0),
            secs(undisturbed.longest_stall.1),
            balanced(reference)
        ));
    }
    let mut all: Vec<Duration> = Vec::new();
    let mut per_service: std::collections::BTreeMap<&str, Vec<Duration>> = Default::default();
    let (mut finished, mut equal, mut worst_stall) = (0, 0, Duration::ZERO);
    for (i, run) in runs.iter().enumerate() {
        let mut times: Vec<Duration> = run.kills.iter().filter_map(|k| k.serving_again).collect();
        for kill in &run.kills {
            per_service.entry(kill.service).or_default().extend(kill.serving_again);
        }
        all.extend(&times);
        times.sort();
        let differs: Vec<&str> = match (&run.summary, reference) {
            (Some(s), Some(reference)) => COMPARED.into_iter().filter(|f| s[*f] != reference[*f]).collect(),
            (Some(_), None) => vec![],
            (None, _) => COMPARED.to_vec(),
        };
        finished += usize::from(run.summary.is_some());
        equal += usize::from(run.summary.is_some() && differs.is_empty());
        worst_stall = worst_stall.max(run.longest_stall.0);
        out.push_str(&format!(
            "| disturbed {} | {} | {} | {} | {} / {} | {} ({}) | {} | {} |\n",
            i + 1,
            secs(run.took),
            run.kills.len(),
            times.len(),
            times.get(times.len() / 2).map_or("-".into(), |d| secs(*d)),
            times.last().map_or("-".into(), |d| secs(*d)),
            secs(run.longest_stall.0),
            secs(run.longest_stall.1),
            match (&run.summary, &run.failure) {
                (Some(s), _) => balanced(s),
                (None, f) => format!("**no**: {}", f.clone().unwrap_or_default().replace('|', "/")),
            },
            if run.summary.is_none() || reference.is_none() {
                "-".into()
            } else if differs.is_empty() {
                "yes".to_string()
            } else {
                format!("**no**: {}", differs.join(", "))
            },
        ));
    }
    all.sort();
    let kills: usize = runs.iter().map(|r| r.kills.len()).sum();
    out.push_str("\n| service | kills | kill → serving again: median / max |\n|---|---|---|\n");
    for (service, mut times) in per_service {
        times.sort();
        let median = times.get(times.len() / 2).map_or("-".into(), |d| secs(*d));
        out.push_str(&format!("| {service} | {} | {median} / {} |\n", times.len(), times.last().map_or("-".into(), |d| secs(*d))));
    }
    let max_restart = all.last().copied().unwrap_or_default();
    let goal = worst_stall <= Duration::from_secs(2) + max_restart;
    out.push_str(&format!(
        "\n{} entrants, {} format; {} disturbed runs, {kills} kills ({} served again), one every {}–{} s. {finished} of {} finished, \
         {}. Longest stall {} against a goal of 2 s plus the slowest restart ({}): {}. \
         Stalls are gaps between the sim's progress lines while it plays (at most one a second, so 1 s is no stall); the \
         undisturbed run's longest was {}.\n",
        soak.entrants,
        soak.format,
        runs.len(),
        all.len(),
        soak.every.0,
        soak.every.1,
        runs.len(),
        if reference.is_some() { format!("{equal} equalled the undisturbed run") } else { "no undisturbed run to compare with".into() },
        secs(worst_stall),
        secs(max_restart),
        if goal { "met" } else { "**missed**" },
        undisturbed.map_or("not played".into(), |u| secs(u.longest_stall.0)),
    ));
    out
}

fn balanced(summary: &Value) -> String {
    let books = &summary["books"];
    if books["finished"] == Value::Bool(true) && books["balanced"] == Value::Bool(true) {
        "yes".into()
    } else {
        format!("**no**: {books}")
    }
}

/// A child killed when dropped, so nothing outlives the soak, pass or fail.
struct Guarded(Child);

impl Drop for Guarded {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `floor run --only <service>` process and the log lines that say it is ready.
struct ServiceProcess {
    name: &'static str,
    /// Killed with the platform (or by a kill).
    _child: Guarded,
    ready: mpsc::UnboundedReceiver<&'static str>,
}

/// One platform: a nats-server and every service in its own process.
struct Platform<'a> {
    soak: &'a Soak,
    logs: PathBuf,
    services: Vec<ServiceProcess>,
    client: async_nats::Client,
    // Last: dropped after the services.
    _nats: NatsServer,
    _store: tempfile::TempDir,
}

impl<'a> Platform<'a> {
    async fn start(soak: &'a Soak, logs: PathBuf) -> Result<Platform<'a>, String> {
        std::fs::create_dir_all(&logs).map_err(|e| e.to_string())?;
        let store = tempfile::Builder::new().prefix("floor-soak-nats-").tempdir().map_err(|e| e.to_string())?;
        // As an operator runs a single node: every write fsynced before it is acknowledged (unless
        // `--no-fsync`).
        let options = ServerOptions {
            binary: server::find_binary().map_err(|e| e.to_string())?,
            dir: store.path().to_owned(),
            port: 0,
            sync_always: soak.sync_always,
            extra: String::new(),
        };
        let nats = NatsServer::start(options).map_err(|e| e.to_string())?;
        let client = async_nats::connect(nats.url()).await.map_err(|e| e.to_string())?;
        let mut platform = Platform { soak, logs, services: Vec::new(), client, _nats: nats, _store: store };
        let mut started: Vec<ServiceProcess> = services().into_iter().map(|s| platform.spawn(s)).collect::<Result<_, _>>()?;
        for service in &mut started {
            wait_for(service, SERVING).await.map_err(|e| format!("{e}:\n{}", tail(&platform.log_path(service.name))))?;
        }
        platform.services = started;
        Ok(platform)
    }

    fn url(&self) -> String {
        self._nats.url()
    }

    fn log_path(&self, name: &str) -> PathBuf {
        self.logs.join(format!("{name}.log"))
    }

    fn spawn(&self, name: &'static str) -> Result<ServiceProcess, String> {
        let mut child = Command::new(&self.soak.floor)
            .args(["run", "--only", name, "--http", "127.0.0.1:0", "--data"])
            .arg(self.logs.join(format!("{name}-data")))
            .env("NATS_URL", self.url())
            .env("FLOOR_SEED_KEY", SEED_KEY)
            .env("FLOOR_LOG", "info,async_nats=warn")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("floor run --only {name}: {e}"))?;
        let stderr = child.stderr.take().expect("stderr piped");
        let mut log = File::options().create(true).append(true).open(self.log_path(name)).map_err(|e| e.to_string())?;
        let (tell, ready) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = writeln!(log, "{line}");
                for needle in [SERVING, SEATING_CAUGHT_UP] {
                    if line.contains(needle) {
                        let _ = tell.send(needle);
                    }
                }
            }
        });
        Ok(ServiceProcess { name, _child: Guarded(child), ready })
    }

    /// SIGKILL to `name`, started again at once; returns the time until it serves again.
    async fn kill_and_restart(&mut self, name: &'static str) -> Result<Duration, String> {
        let i = self.services.iter().position(|s| s.name == name).expect("a service of the platform");
        let killed = Instant::now();
        drop(self.services.remove(i));
        let mut new = self.spawn(name)?;
        let serving = match name {
            "seating" => wait_for(&mut new, SEATING_CAUGHT_UP).await,
            "lobby" => wait_for(&mut new, SERVING).await,
            _ => self.ping(name).await,
        };
        let took = killed.elapsed();
        self.services.push(new);
        serving.map(|()| took).map_err(|e| format!("{e}:\n{}", tail(&self.log_path(name))))
    }

    /// Waits for the first reply to `$SRV.PING.floor-<name>`. Asked every 5 ms: a reply is the
    /// only sign of an endpoint serving, and 5 ms is the resolution of the figure.
    async fn ping(&self, name: &str) -> Result<(), String> {
        let subject = format!("$SRV.PING.floor-{name}");
        let start = Instant::now();
        while start.elapsed() < START_DEADLINE {
            let asked = tokio::time::timeout(Duration::from_millis(250), self.client.request(subject.clone(), "".into())).await;
            if let Ok(Ok(_)) = asked {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Err(format!("{name} answered no $SRV.PING in {START_DEADLINE:?}"))
    }
}

async fn wait_for(service: &mut ServiceProcess, needle: &'static str) -> Result<(), String> {
    let deadline = tokio::time::Instant::now() + START_DEADLINE;
    loop {
        match tokio::time::timeout_at(deadline, service.ready.recv()).await {
            Ok(Some(said)) if said == needle => return Ok(()),
            Ok(Some(_)) => {}
            Ok(None) => return Err(format!("{} exited before logging {needle:?}", service.name)),
            Err(_) => return Err(format!("{} did not log {needle:?} in {START_DEADLINE:?}", service.name)),
        }
    }
}

fn tail(path: &Path) -> String {
    let log = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// Plays the tournament once on a fresh platform; with a kill seed, kills a service every
/// `soak.every` seconds (after the last restart serves) until the sim ends.
async fn play(soak: &Soak, work: &Path, label: &str, kill_seed: Option<u64>) -> Run {
    let started = Instant::now();
    let failed = |failure: String, kills: Vec<Kill>| Run {
        summary: None,
        failure: Some(failure),
        took: started.elapsed(),
        kills,
        longest_stall: (Duration::ZERO, Duration::ZERO),
    };
    let mut platform = match Platform::start(soak, work.join(label)).await {
        Ok(p) => p,
        Err(e) => return failed(format!("the platform did not start: {e}"), Vec::new()),
    };
    let mut command = Command::new(&soak.floor);
    command
        .args(["sim", "--entrants", &soak.entrants.to_string(), "--seed", &soak.seed.to_string(), "--format", &soak.format])
        .args(["--tournament-id", TOURNAMENT, "--standings"])
        .env("NATS_URL", platform.url())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(s) = &soak.start_after {
        command.args(["--start-after", s]);
    }
    let mut sim = match command.spawn() {
        Ok(child) => Guarded(child),
        Err(e) => return failed(format!("floor sim: {e}"), Vec::new()),
    };
    let started = Instant::now();
    // Progress lines with the moment each arrived; the summary when stdout closes (the sim ended).
    let progress: Arc<Mutex<Vec<(Duration, String)>>> = Arc::default();
    let (stderr, mut stdout) = (sim.0.stderr.take().expect("piped"), sim.0.stdout.take().expect("piped"));
    let sim_log = platform.log_path("sim");
    let heard = progress.clone();
    std::thread::spawn(move || {
        let mut log = File::create(sim_log).ok();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(log) = log.as_mut() {
                let _ = writeln!(log, "{line}");
            }
            heard.lock().expect("progress").push((started.elapsed(), line));
        }
    });
    let (tell, mut ended) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        let _ = tell.send(out);
    });

    let mut kills = Vec::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(kill_seed.unwrap_or_default());
    // Every service once, in a drawn order, then any.
    let mut first_round = soak.killed.clone();
    first_round.shuffle(&mut rng);
    let mut first_wait = soak.first_kill_after;
    let out = loop {
        let wait = match kill_seed {
            Some(_) => std::mem::take(&mut first_wait) + Duration::from_secs_f64(rng.random_range(soak.every.0..=soak.every.1)),
            None => Duration::MAX,
        };
        match tokio::time::timeout(wait, ended.recv()).await {
            Ok(out) => break out.unwrap_or_default(),
            Err(_) => {
                let service = match first_round.is_empty() {
                    true => soak.killed[rng.random_range(0..soak.killed.len())],
                    false => first_round.remove(0),
                };
                let at = started.elapsed();
                let serving_again = match platform.kill_and_restart(service).await {
                    Ok(d) => Some(d),
                    Err(e) => {
                        eprintln!("{label}: {service} did not serve again: {e}");
                        None
                    }
                };
                eprintln!(
                    "{label}: killed {service} at {:.1} s; serving again after {}",
                    at.as_secs_f64(),
                    serving_again.map_or("never".into(), |d| format!("{:.2} s", d.as_secs_f64()))
                );
                kills.push(Kill { service, serving_again });
            }
        }
    };
    let took = started.elapsed();
    let status = sim.0.wait().map_err(|e| e.to_string());
    let longest_stall = longest_gap(&progress.lock().expect("progress"));
    let summary = out.lines().last().and_then(|l| serde_json::from_str::<Value>(l).ok());
    match (status, summary) {
        (Ok(s), Some(summary)) if s.success() => Run { summary: Some(summary), failure: None, took, kills, longest_stall },
        (status, _) => {
            let said = tail(&platform.log_path("sim"));
            Run { summary: None, failure: Some(format!("{status:?}: {said}")), took, kills, longest_stall }
        }
    }
}

/// The longest gap between two progress lines of play (`players left …`), and when it began.
fn longest_gap(lines: &[(Duration, String)]) -> (Duration, Duration) {
    let playing: Vec<Duration> = lines.iter().filter(|(_, l)| l.contains("players left")).map(|(at, _)| *at).collect();
    playing.windows(2).map(|w| (w[1] - w[0], w[0])).max().unwrap_or_default()
}
