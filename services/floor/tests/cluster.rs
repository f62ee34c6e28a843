//! Floor on a 3-node JetStream cluster (issue 40), as an operator runs it: three nats-servers on
//! loopback (free ports, temporary stores, `sync_interval: always`, the service role of issue
//! 34), `floor run` joined to all three through `NATS_URL` with `FLOOR_REPLICAS=3`, and `floor
//! sim` joined the same way.
//!
//! The same tournament (seed, tournament id and test seed key) is played three times, each on
//! fresh servers: on one nats-server (the reference), on the cluster undisturbed, and on the
//! cluster while the nodes die: SIGKILL to the node leading `FLOOR_EVENTS` mid-tournament,
//! restarted once another node leads; later SIGKILL to a node that leads nothing of the log,
//! restarted at once. Every run must finish with balanced books and equal the reference: winner,
//! hands, moves, tables broken, the books to the cent, every standing; and each log (subject)
//! must hold as many events as on one server, no command stored twice: none lost, none doubled.
//! (Commits are not compared: seating puts the reports that arrive together into one commit, so
//! their number follows timing; the events in them do not.)
//!
//! The kills are timed on the undisturbed run (a fraction of how long it took); whether a kill
//! fell inside the tournament is asserted from the sim's progress, not from timings.
//!
//! Here rather than in `tests/`: Cargo hands the path of a package's binary
//! (`CARGO_BIN_EXE_floor`) only to that package's own integration tests.

use floor_events::subjects;
use floor_runtime::credentials::{Auth, Credentials};
use floor_runtime::server::{self, NatsServer, ServerOptions};
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The service's credential on the test's servers (a test's own, made for it).
const SERVICE_USER: &str = "floor-service";
const SERVICE_PASSWORD: &str = "cluster-test-40c1";

/// Seating's draw key for every run, as `FLOOR_SEED_KEY` takes it (a test setting).
const SEED_KEY: &str = "test:40c140c140c140c140c140c140c140c140c140c140c140c140c140c140c140c1";

/// The tournament every run plays.
const TOURNAMENT: &str = "7e57ab1e-0000-4000-8000-000000000040";

/// A sit & go (at most 360): no scheduled start, so no wall-clock moment in the tournament.
const ENTRANTS: u32 = 180;

/// Seed of the hands, the draw and the simulated players' decisions.
const SEED: u64 = 40;

/// What `floor run` logs once every service it runs is serving.
const SERVING: &str = " is running";

/// How long any one wait may take before the test fails: a start, an election, a whole run.
const DEADLINE: Duration = Duration::from_secs(180);

/// The cluster, undisturbed, plays the tournament as one server does (`make test`).
#[test]
fn a_tournament_on_a_three_node_cluster_equals_the_one_on_one_server() {
    compare(false);
}

/// The same while the log's leader and then a follower die. Left to `make soak`, not `make
/// test`: in 1 of 5 runs here the platform made no progress for the simulator's
/// stall limit after the leader's death (the election itself takes 10 s), and why is not
/// found yet (docs/operations.md).
#[test]
#[ignore = "1 of 5 runs so far stalled after the leader's death (docs/operations.md); make soak runs it"]
fn a_tournament_on_a_three_node_cluster_whose_leader_and_a_follower_die_equals_the_one_on_one_server() {
    compare(true);
}

/// Plays the reference on one server, then the cluster undisturbed, then (`disturb`) the
/// cluster while its nodes die, and compares (see the module's doc).
fn compare(disturb: bool) {
    let work = Work(tempfile::Builder::new().prefix("floor-cluster-").tempdir().expect("temp dir").keep());
    eprintln!("logs in {} (kept when the test fails)", work.path().display());

    let reference = {
        let mut platform = Platform::start(work.path(), "one-server", Nodes::One);
        let run = platform.play(|_, _| {});
        platform.assert_no_panic();
        run
    };
    let undisturbed = {
        let mut platform = Platform::start(work.path(), "cluster", Nodes::Three);
        platform.assert_replicated();
        let run = platform.play(|_, _| {});
        platform.assert_no_panic();
        run
    };
    let disturbed = disturb.then(|| {
        let mut platform = Platform::start(work.path(), "cluster-disturbed", Nodes::Three);
        let took = undisturbed.took;
        let mut kills = Vec::new();
        let run = platform.play(|platform, started| {
            // The leader of the log, a quarter of the way in; a follower, at half.
            kills.push(platform.kill_leader_and_restart(started + took.mul_f64(0.25)));
            kills.push(platform.kill_follower_and_restart(started + took.mul_f64(0.50)));
        });
        platform.assert_no_panic();
        platform.assert_replicated();
        (run, kills)
    });
    let (disturbed, kills) = match disturbed {
        Some((run, kills)) => (Some(run), kills),
        None => (None, Vec::new()),
    };
    let mut runs = vec![("one server", &reference), ("cluster", &undisturbed)];
    runs.extend(disturbed.as_ref().map(|run| ("disturbed", run)));
    let took: Vec<String> = runs.iter().map(|(name, run)| format!("{name} {:.1} s", run.took.as_secs_f64())).collect();
    eprintln!("{}", took.join("; "));
    for kill in &kills {
        eprintln!("  {kill}");
    }

    for &(name, run) in &runs {
        let books = &run.summary["books"];
        assert_eq!((&books["finished"], &books["balanced"]), (&Value::Bool(true), &Value::Bool(true)), "{name} books: {books}");
        let standings = run.summary["standings"].as_array().map_or(0, Vec::len);
        assert_eq!(standings, ENTRANTS as usize, "{name}: one standing per entry");
        let differs: Vec<String> = ["winner", "hands", "moves", "tables_broken", "books", "standings"]
            .into_iter()
            .filter(|f| run.summary[*f] != reference.summary[*f])
            .map(|f| format!("{f}: one server {} {name} {}", brief(&reference.summary[f]), brief(&run.summary[f])))
            .collect();
        assert!(differs.is_empty(), "{name} differs from the run on one server:\n{}", differs.join("\n"));
    }
    // No event lost or doubled: each log (subject) holds as many events in every run (and
    // `events` found no command stored twice).
    let counts: Vec<String> = runs.iter().map(|(name, run)| format!("{name} {}", run.events.values().sum::<u64>())).collect();
    eprintln!("events: {}", counts.join(", "));
    let subjects: std::collections::BTreeSet<&String> = runs.iter().flat_map(|(_, run)| run.events.keys()).collect();
    let differs: Vec<String> = subjects
        .into_iter()
        .filter(|s| runs.iter().any(|(_, run)| run.events.get(*s) != reference.events.get(*s)))
        .map(|s| {
            let each: Vec<String> = runs.iter().map(|(name, run)| format!("{name} {}", run.events.get(s).copied().unwrap_or(0))).collect();
            format!("{s}: {}", each.join(", "))
        })
        .collect();
    assert!(differs.is_empty(), "events lost or doubled in FLOOR_EVENTS:\n{}", differs.join("\n"));
    for kill in &kills {
        assert!(kill.during, "the kill fell outside the tournament: {kill}");
    }
}

/// A value short enough for a failure's message (standings run to hundreds of entries).
fn brief(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// One node or three.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nodes {
    One,
    Three,
}

/// A node killed and restarted.
struct Kill {
    /// What it was: the log's leader or a follower.
    role: &'static str,
    /// Its server name.
    node: String,
    /// How long after the sim started.
    at: Duration,
    /// Whether the sim was still playing then (not finished).
    during: bool,
    /// How long until another node led the log (leader killed), or zero.
    elected: Duration,
}

impl std::fmt::Display for Kill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:>6.2} s  {} {} killed", self.at.as_secs_f64(), self.role, self.node)?;
        if !self.elected.is_zero() {
            write!(f, ", another node led after {:.2} s", self.elected.as_secs_f64())?;
        }
        if !self.during {
            write!(f, " (after the sim ended)")?;
        }
        Ok(())
    }
}

/// One finished `floor sim`: its summary line, how long it took, and the commits each subject
/// of the log holds.
struct Run {
    summary: Value,
    took: Duration,
    events: std::collections::BTreeMap<String, u64>,
}

/// The servers, one `floor run` with every service, and a connection of the test's own to ask
/// the cluster who leads. Dropping it kills every process it started, pass or fail.
struct Platform {
    logs: PathBuf,
    label: &'static str,
    floor: Option<Guarded>,
    runtime: tokio::runtime::Runtime,
    jetstream: async_nats::jetstream::Context,
    /// The sim, while it plays: its summary arrives here when it ends.
    ended: Option<mpsc::Receiver<String>>,
    started: Instant,
    // Last: dropped after `floor run`.
    nodes: Vec<NatsServer>,
}

/// The service user alone, as an authorization block.
fn authorization() -> String {
    floor_runtime::roles::authorization(&[floor_runtime::roles::User {
        user: SERVICE_USER.into(),
        password: SERVICE_PASSWORD.into(),
        role: floor_runtime::roles::Role::Service,
        scope: None,
    }])
}

/// `n` servers: one alone, or three routed to each other as the cluster `floor`, each fsyncing
/// every write as deploy/nats/cluster.conf does.
fn start_nodes(dir: &Path, nodes: Nodes) -> Vec<NatsServer> {
    let binary = server::find_binary().expect("nats-server (run `make tools` or set FLOOR_NATS_SERVER)");
    let count = if nodes == Nodes::One { 1 } else { 3 };
    let ports: Vec<(u16, u16)> =
        (0..count).map(|_| (server::free_port().expect("a free port"), server::free_port().expect("a free port"))).collect();
    let routes: Vec<String> = ports.iter().map(|(_, route)| format!("\"nats-route://127.0.0.1:{route}\"")).collect();
    ports
        .iter()
        .enumerate()
        .map(|(i, (client, route))| {
            let cluster = match nodes {
                Nodes::One => String::new(),
                Nodes::Three => {
                    format!("cluster {{\n  name: floor\n  listen: \"127.0.0.1:{route}\"\n  routes: [{}]\n}}\n", routes.join(", "))
                }
            };
            NatsServer::start(ServerOptions {
                binary: binary.clone(),
                dir: dir.join(format!("n{}", i + 1)),
                port: *client,
                sync_always: nodes == Nodes::Three,
                extra: format!("{cluster}{}", authorization()),
            })
            .expect("nats-server starts")
        })
        .collect()
}

impl Platform {
    /// Fresh servers, JetStream answering on every one, then `floor run` serving.
    fn start(work: &Path, label: &'static str, nodes: Nodes) -> Self {
        let logs = work.join(label);
        std::fs::create_dir_all(&logs).expect("log dir");
        let nodes = start_nodes(&logs, nodes);
        let urls = nodes.iter().map(NatsServer::url).collect::<Vec<_>>().join(",");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let jetstream = runtime.block_on(async {
            let credentials = Credentials {
                auth: Auth::UserPassword { user: SERVICE_USER.into(), password: SERVICE_PASSWORD.into() },
                ..Credentials::none()
            };
            let client = floor_runtime::bootstrap::connect_with(&urls, &credentials).await.expect("the test connects");
            let jetstream = async_nats::jetstream::new(client);
            // A cluster's JetStream answers once its nodes have elected a meta leader; there is
            // no event to wait on from outside, so ask until it answers.
            let since = Instant::now();
            while let Err(e) = jetstream.query_account().await {
                assert!(since.elapsed() < DEADLINE, "JetStream ({label}) did not answer within {DEADLINE:?}: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            jetstream
        });
        let mut platform = Self { logs, label, floor: None, runtime, jetstream, ended: None, started: Instant::now(), nodes };
        platform.start_floor(&urls);
        platform
    }

    fn log_path(&self, name: &str) -> PathBuf {
        self.logs.join(format!("{name}.log"))
    }

    fn urls(&self) -> String {
        self.nodes.iter().map(NatsServer::url).collect::<Vec<_>>().join(",")
    }

    /// Starts `floor run` (every service) and waits until it serves.
    fn start_floor(&mut self, urls: &str) {
        let replicas = if self.nodes.len() == 3 { "3" } else { "1" };
        let mut child = Command::new(env!("CARGO_BIN_EXE_floor"))
            .args(["run", "--http", "127.0.0.1:0", "--data"])
            .arg(self.logs.join("floor-data"))
            .env("NATS_URL", urls)
            .env("NATS_USER", SERVICE_USER)
            .env("NATS_PASSWORD", SERVICE_PASSWORD)
            .env("FLOOR_REPLICAS", replicas)
            .env("FLOOR_SEED_KEY", SEED_KEY)
            .env("FLOOR_LOG", "info,async_nats=warn")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("floor starts");
        let stderr = child.stderr.take().expect("stderr piped");
        let mut log = File::create(self.log_path("floor")).expect("log file");
        let (tell, serving) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = writeln!(log, "{line}");
                if line.contains(SERVING) {
                    let _ = tell.send(());
                }
            }
        });
        self.floor = Some(Guarded(child));
        if serving.recv_timeout(DEADLINE).is_err() {
            panic!("floor run ({}) did not serve within {DEADLINE:?}:\n{}", self.label, self.tail("floor"));
        }
    }

    /// Every stream and bucket Floor made has three copies, one per node.
    fn assert_replicated(&self) {
        let mut streams = vec![subjects::EVENTS_STREAM.to_owned(), subjects::TABLES_STREAM.to_owned()];
        streams.extend(floor_runtime::bootstrap::BUCKETS.iter().map(|(b, _)| format!("KV_{b}")));
        streams.extend(floor_runtime::bootstrap::OBJECT_STORES.iter().map(|(b, _)| format!("OBJ_{b}")));
        for name in streams {
            let info = self.patiently(&name, || async {
                let mut stream = self.jetstream.get_stream(&name).await.map_err(|e| e.to_string())?;
                stream.info().await.cloned().map_err(|e| e.to_string())
            });
            assert_eq!(info.config.num_replicas, 3, "{name} ({}) keeps {} copies", self.label, info.config.num_replicas);
        }
    }

    /// Every subject of the log with the events its commits hold (a service may put several
    /// reports' events in one commit, more or fewer as they arrive: commits are not compared,
    /// events are); a command stored twice on one subject fails the test.
    fn events(&self) -> std::collections::BTreeMap<String, u64> {
        let backbone = self.patiently("the backbone", || async {
            floor_runtime::bootstrap::ensure_backbone(self.jetstream.client()).await.map_err(|e| e.to_string())
        });
        let store = floor_runtime::JetStreamStore::new(&backbone);
        let subjects: Vec<String> = self.patiently("FLOOR_EVENTS' subjects", || async {
            use futures::TryStreamExt;
            let stream = self.jetstream.get_stream(subjects::EVENTS_STREAM).await.map_err(|e| e.to_string())?;
            let subjects = stream.info_with_subjects(">").await.map_err(|e| e.to_string())?;
            subjects.map_ok(|(subject, _)| subject).try_collect().await.map_err(|e| e.to_string())
        });
        let mut events = std::collections::BTreeMap::new();
        for subject in subjects {
            let commits = self.patiently(&subject, || async { store.load::<Value>(&subject, 0).await.map_err(|e| e.to_string()) });
            let mut commands = std::collections::HashSet::new();
            for commit in &commits {
                if let Some(id) = &commit.command_id {
                    assert!(commands.insert(*id), "{subject} ({}): command {id:?} stored twice", self.label);
                }
            }
            events.insert(subject, commits.iter().map(|c| c.events.len() as u64).sum());
        }
        events
    }

    /// `ask`, asked again while it fails (a node restarted after a kill answers nothing until
    /// it has caught up; the connection may be moving to another node), for up to [`DEADLINE`].
    fn patiently<T, F, Fut>(&self, what: &str, ask: F) -> T
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<T, String>>,
    {
        let since = Instant::now();
        loop {
            match self.runtime.block_on(ask()) {
                Ok(answer) => return answer,
                Err(e) if since.elapsed() < DEADLINE => eprintln!("{} ({}): {e}; asking again", what, self.label),
                Err(e) => panic!("{what} ({}): {e}", self.label),
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The `FLOOR_EVENTS` leader's server name and its followers', as the cluster says now
    /// (`None` while it elects).
    fn leadership(&self) -> Option<(String, Vec<String>)> {
        self.runtime.block_on(async {
            let mut stream = self.jetstream.get_stream(subjects::EVENTS_STREAM).await.ok()?;
            let info = stream.info().await.ok()?;
            let cluster = info.cluster.clone()?;
            Some((cluster.leader?, cluster.replicas.iter().map(|p| p.name.clone()).collect()))
        })
    }

    /// The node of a server name (`floor_<port>`, as [`NatsServer`] names them).
    fn node(&self, name: &str) -> usize {
        self.nodes.iter().position(|n| format!("floor_{}", n.port()) == name).unwrap_or_else(|| panic!("no node {name}"))
    }

    /// Waits until `at` or the sim's end; whether the sim still plays.
    fn until(&mut self, at: Instant) -> bool {
        let ended = self.ended.as_ref().expect("the sim plays");
        match ended.recv_timeout(at.saturating_duration_since(Instant::now())) {
            Ok(out) => {
                // Put back for `play` to read.
                let (tell, again) = mpsc::channel();
                let _ = tell.send(out);
                self.ended = Some(again);
                false
            }
            Err(_) => true,
        }
    }

    /// At `at`, SIGKILL to the node leading `FLOOR_EVENTS`; once another leads, it restarts.
    fn kill_leader_and_restart(&mut self, at: Instant) -> Kill {
        let during = self.until(at);
        let (leader, _) = self.wait_for_leadership(|_| true);
        let node = self.node(&leader);
        let killed = Instant::now();
        self.nodes[node].kill();
        let (new, _) = self.wait_for_leadership(|l| l != leader);
        let elected = killed.elapsed();
        self.nodes[node].restart().expect("the old leader restarts");
        eprintln!("{}: leader {leader} killed, {new} leads after {:.2} s", self.label, elected.as_secs_f64());
        Kill { role: "leader", node: leader, at: killed - self.started, during, elected }
    }

    /// At `at`, SIGKILL to a node that does not lead `FLOOR_EVENTS`, restarted at once.
    fn kill_follower_and_restart(&mut self, at: Instant) -> Kill {
        let during = self.until(at);
        let (_, followers) = self.wait_for_leadership(|_| true);
        let follower = followers.first().cloned().expect("a follower");
        let node = self.node(&follower);
        let killed = Instant::now();
        self.nodes[node].kill();
        self.nodes[node].restart().expect("the follower restarts");
        Kill { role: "follower", node: follower, at: killed - self.started, during, elected: Duration::ZERO }
    }

    /// Asks until the log has a leader `accept` takes (an election has no event to wait on
    /// from outside the cluster).
    fn wait_for_leadership(&self, accept: impl Fn(&str) -> bool) -> (String, Vec<String>) {
        let since = Instant::now();
        loop {
            if let Some((leader, followers)) = self.leadership() {
                if accept(&leader) {
                    return (leader, followers);
                }
            }
            assert!(since.elapsed() < DEADLINE, "{}: no leader of the log within {DEADLINE:?}", self.label);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Plays the tournament with `floor sim`; `disturb` runs while it plays (given the moment
    /// the sim started), then the summary is read.
    fn play(&mut self, disturb: impl FnOnce(&mut Self, Instant)) -> Run {
        let mut sim = Guarded(
            Command::new(env!("CARGO_BIN_EXE_floor"))
                .args(["sim", "--entrants", &ENTRANTS.to_string(), "--seed", &SEED.to_string(), "--tournament-id", TOURNAMENT])
                .arg("--standings")
                .env("NATS_URL", self.urls())
                .env("NATS_USER", SERVICE_USER)
                .env("NATS_PASSWORD", SERVICE_PASSWORD)
                .env("NO_COLOR", "1")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(File::create(self.log_path("sim")).expect("sim log"))
                .spawn()
                .expect("floor sim starts"),
        );
        self.started = Instant::now();
        let mut stdout = sim.0.stdout.take().expect("stdout piped");
        let (tell, ended) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = String::new();
            let _ = stdout.read_to_string(&mut out);
            let _ = tell.send(out);
        });
        self.ended = Some(ended);
        disturb(self, self.started);
        let out = self
            .ended
            .take()
            .expect("the sim's end")
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("floor sim ({}) did not finish within {DEADLINE:?}:\n{}", self.label, self.tail("sim")));
        let took = self.started.elapsed();
        let status = sim.0.wait().expect("sim exit status");
        assert!(status.success(), "floor sim ({}) failed with {status}:\n{}", self.label, self.tail("sim"));
        let line = out.lines().last().unwrap_or_default();
        let summary = serde_json::from_str(line).unwrap_or_else(|e| panic!("the sim's last line is its summary ({e}): {out}"));
        let events = self.events();
        Run { summary, took, events }
    }

    /// `floor run` logged no panic.
    fn assert_no_panic(&self) {
        let log = std::fs::read_to_string(self.log_path("floor")).unwrap_or_default();
        assert!(!log.contains("panicked"), "floor run ({}) panicked:\n{log}", self.label);
    }

    /// The last lines of a process's log, for a failure's message.
    fn tail(&self, name: &str) -> String {
        let log = std::fs::read_to_string(self.log_path(name)).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

/// The test's directory: removed when the test passes, kept with its logs when it fails.
struct Work(PathBuf);

impl Work {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A child killed when dropped.
struct Guarded(Child);

impl Drop for Guarded {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
