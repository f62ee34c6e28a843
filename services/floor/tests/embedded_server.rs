//! `floor run` owns its data directory and its nats-server (issue 17, reproduction 4), tested
//! on the built binary as an operator runs it (`make run`), with real processes: a `kill -9`
//! takes its nats-server with it, a second `floor run` on the same directory is refused at once
//! naming the first, and a server an earlier run left behind is stopped before a new one
//! starts on the same store.
//!
//! Here rather than in `tests/`: Cargo hands the path of a package's binary
//! (`CARGO_BIN_EXE_floor`) only to that package's own integration tests.

use floor_runtime::bootstrap::{self, lock_path, recorded_url_path, server_pid_path};
use floor_runtime::credentials::{role_file, Credentials};
use floor_runtime::roles::Role;
use floor_runtime::server::{self, is_running, wait_for_exit, NatsServer, ServerOptions};
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long any wait here may take before the test fails.
const DEADLINE: Duration = Duration::from_secs(60);

/// What `floor run` logs once every service it runs is serving.
const SERVING: &str = "Floor service is running";

/// A `floor run` child process and the lines of its stderr as they come.
struct FloorRun {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

/// `floor run` on `data` with the embedded server, registration only (the lightest platform
/// that still takes the store), no colours in its log.
fn floor_run(data: &Path) -> FloorRun {
    floor_run_only(data, "registration")
}

/// `floor run --only <services>` on `data` with the embedded server (every service: `""`).
fn floor_run_only(data: &Path, services: &str) -> FloorRun {
    // Every service: the lobby among them, on a port of its own choosing.
    let only: &[&str] = if services.is_empty() { &["--http", "127.0.0.1:0"] } else { &["--only", services] };
    let mut child = Command::new(env!("CARGO_BIN_EXE_floor"))
        .arg("run")
        .args(only)
        .arg("--data")
        .arg(data)
        .env_remove("NATS_URL")
        .env("FLOOR_LOG", "info,async_nats=warn")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("floor starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    FloorRun { child, lines, seen: Vec::new() }
}

impl FloorRun {
    /// Waits for a stderr line holding `text`; panics with everything seen if none comes.
    fn wait_for_line(&mut self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let left = DEADLINE.checked_sub(start.elapsed()).unwrap_or_default();
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(_) => panic!("no line with {text:?} from floor run; it said:\n{}", self.seen.join("\n")),
            }
        }
    }

    /// Everything on stderr until the process ends, and its exit code; panics if it does not
    /// end by itself.
    fn finish(mut self) -> (Option<i32>, String) {
        assert!(wait_for_exit(self.child.id(), DEADLINE), "floor run did not exit");
        let status = self.child.wait().expect("exit status");
        self.seen.extend(self.lines.try_iter());
        // The reader thread may still hold the last line for a moment after the exit.
        if let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
            self.seen.extend(self.lines.try_iter());
        }
        (status.code(), self.seen.join("\n"))
    }
}

impl Drop for FloorRun {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn recorded_pid(data: &Path) -> u32 {
    std::fs::read_to_string(server_pid_path(data)).expect("nats.pid written").trim().parse().expect("a pid")
}

fn recorded_port(data: &Path) -> u16 {
    let url = std::fs::read_to_string(recorded_url_path(data)).expect("nats.url written");
    url.trim().rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port")
}

#[test]
fn kill_9_of_floor_run_takes_its_nats_server_with_it() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut floor = floor_run(data.path());
    floor.wait_for_line(SERVING);
    let (server_pid, port) = (recorded_pid(data.path()), recorded_port(data.path()));
    assert!(is_running(server_pid), "its nats-server runs");

    floor.child.kill().expect("kill -9");
    floor.child.wait().expect("reaped");

    assert!(wait_for_exit(server_pid, Duration::from_secs(20)), "nats-server {server_pid} outlived its floor run");
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "nothing listens on its port");
}

#[test]
fn a_second_floor_run_on_the_same_data_directory_is_refused_naming_the_first() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut first = floor_run(data.path());
    first.wait_for_line(SERVING);
    let server_pid = recorded_pid(data.path());

    let (code, said) = floor_run(data.path()).finish();

    assert_eq!(code, Some(3), "exit 3, the platform cannot be started: {said}");
    assert_eq!(said.lines().count(), 1, "one line: {said}");
    assert!(said.contains(&format!("pid {}", first.child.id())), "names the process holding it: {said}");
    assert!(said.contains(&lock_path(data.path()).display().to_string()), "and the lock file: {said}");
    assert!(is_running(server_pid) && recorded_pid(data.path()) == server_pid, "the first run's server is untouched");
}

#[test]
fn a_nats_server_left_on_the_data_directory_is_stopped_before_a_new_one_starts() {
    let data = tempfile::tempdir().expect("temp dir");
    let binary = server::find_binary().expect("nats-server (run `make tools`)");
    // A server on this directory's store, as a crash might leave one, recorded where floor run
    // records its own.
    let options = ServerOptions { binary, dir: data.path().join("nats"), port: 0, sync_always: false, extra: String::new() };
    let mut leftover = NatsServer::start(options).expect("leftover server starts");
    let leftover_pid = leftover.pid().expect("running");
    std::fs::write(server_pid_path(data.path()), format!("{leftover_pid}\n")).expect("pid file");

    let mut floor = floor_run(data.path());
    let stopping = floor.wait_for_line("left running");
    floor.wait_for_line(SERVING);
    let server_pid = recorded_pid(data.path());

    assert!(stopping.contains(&leftover_pid.to_string()), "the line names the server it stops: {stopping}");
    assert!(!is_running(leftover_pid), "the leftover is stopped");
    assert_ne!(server_pid, leftover_pid);
    assert!(is_running(server_pid), "floor run's own server serves the store");
    leftover.kill();
}

#[test]
fn a_director_command_piped_into_a_reader_that_stops_ends_quietly() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut floor = floor_run(data.path());
    floor.wait_for_line(SERVING);

    // `floor status | head -0`: the reader is gone before anything is printed.
    let mut status = Command::new(env!("CARGO_BIN_EXE_floor"))
        .args(["status", "--data"])
        .arg(data.path())
        .env_remove("NATS_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("floor status starts");
    drop(status.stdout.take());
    let said = status.wait_with_output().expect("floor status ends");
    let stderr = String::from_utf8_lossy(&said.stderr);

    assert!(!stderr.contains("panicked"), "no panic on a closed pipe: {stderr}");
    assert_ne!(said.status.code(), Some(101), "not the exit code of a panic: {stderr}");
}

/// `floor <args…> --data <data>`: its exit code and everything it printed.
fn floor_command(data: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_floor"))
        .args(args)
        .arg("--data")
        .arg(data)
        .env_remove("NATS_URL")
        .stdin(Stdio::null())
        .output()
        .expect("floor runs");
    (out.status.code(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// The director's hand-for-hand and bounty verbs are `floor` subcommands that reach their
/// services: each answers with its own code, not an unknown verb or a CLI error.
#[test]
fn the_bubble_and_bounty_verbs_reach_their_services_from_the_cli() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut floor = floor_run_only(data.path(), "registration,bubble,bounties");
    floor.wait_for_line(SERVING);
    let nobody = uuid::Uuid::new_v4().to_string();
    for args in [
        vec!["bubble", "start", &nobody],
        vec!["bubble", "stop", &nobody],
        vec!["bubble", "pause", &nobody, "--reason", "dinner"],
        vec!["bubble", "resume", &nobody],
        vec!["bubble", "release-without", &nobody, "3", "4"],
        vec!["bounty", "start-mystery-stage", &nobody],
        vec!["bounty", "name-target", &nobody, "alice", "--public"],
    ] {
        let (code, said) = floor_command(data.path(), &args);
        assert_ne!(code, Some(0), "`floor {}` on a tournament nobody created succeeded: {said}", args.join(" "));
        assert!(
            said.contains("unknown_tournament") || said.contains("not_in_hand_for_hand"),
            "`floor {}` answers with the service's code: {said}",
            args.join(" ")
        );
    }
}

/// `floor tournament suspend|resume|cancel|statement` reach the abort service (cancel through
/// registration first: it answers `unknown_tournament` for a tournament nobody created, and
/// only `tournament_started` sends a cancel on to abort), each with the service's own code.
#[test]
fn the_abort_verbs_reach_their_service_from_the_cli() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut floor = floor_run_only(data.path(), "registration,abort");
    floor.wait_for_line(SERVING);
    let nobody = uuid::Uuid::new_v4().to_string();
    for args in [
        vec!["tournament", "suspend", &nobody, "--reason", "power cut"],
        vec!["tournament", "resume", &nobody],
        vec!["tournament", "cancel", &nobody, "--reason", "venue closed", "--method", "roll-forward"],
        vec!["tournament", "statement", &nobody],
        vec!["tournament", "statement", &nobody, "alice"],
    ] {
        let (code, said) = floor_command(data.path(), &args);
        assert_eq!(code, Some(1), "`floor {}` on a tournament nobody created is a rejection: {said}", args.join(" "));
        assert!(said.contains("unknown_tournament"), "`floor {}` answers with the service's code: {said}", args.join(" "));
    }
    let (code, said) = floor_command(data.path(), &["tournament", "cancel", &nobody, "--reason", "x", "--method", "coin-flip"]);
    assert_eq!(code, Some(2), "an unknown method is a usage error: {said}");
}

/// Issue 34: anyone who could manage streams set `max_msgs: 10` on `FLOOR_EVENTS` (events gone,
/// later registrations vanished) or deleted it (after a restart the platform was empty), and
/// Floor served on. Now `floor run` checks the log's shape and the streams' births against what
/// the data directory recorded, and refuses to serve, naming what changed.
#[test]
fn a_log_given_a_limit_or_deleted_and_made_again_is_refused_at_the_next_start() {
    for (change, says) in [("limit", "FLOOR_EVENTS: max_msgs is 10"), ("delete", "FLOOR_EVENTS was made again")] {
        let data = tempfile::tempdir().expect("temp dir");
        let mut run = floor_run(data.path());
        run.wait_for_line(SERVING);
        let url = std::fs::read_to_string(recorded_url_path(data.path())).expect("nats.url written");
        // Someone who holds the operators' credential (the admin role may manage streams).
        let admin = Credentials::from_env_file(&role_file(data.path(), Role::Admin)).expect("the admin credential");
        tokio::runtime::Runtime::new().expect("runtime").block_on(async move {
            let client = bootstrap::connect_with(url.trim(), &admin).await.expect("connect");
            let jetstream = async_nats::jetstream::new(client);
            if change == "limit" {
                let mut config = jetstream.get_stream("FLOOR_EVENTS").await.expect("stream").cached_info().config.clone();
                config.max_messages = 10;
                jetstream.update_stream(config).await.expect("the server takes the change");
            } else {
                jetstream.delete_stream("FLOOR_EVENTS").await.expect("the server deletes it");
            }
        });
        drop(run);
        let (code, said) = floor_run(data.path()).finish();
        assert_eq!(code, Some(3), "{change}: refused: {said}");
        assert!(said.contains(says), "{change}: names what changed: {said}");
    }
}

/// Issue 34: `floor run` without `NATS_URL` is secure by default. Its data directory holds one
/// credential per role, readable by its owner only; a stranger who reaches the port without
/// one is refused; a director's command from the same directory finds its credential as it
/// finds the URL (the CLI tests above pass through it), and `--insecure-nats` opens the server
/// for development only, with a warning.
#[test]
fn the_embedded_server_takes_only_the_credentials_of_its_data_directory() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().expect("temp dir");
    let mut run = floor_run(data.path());
    run.wait_for_line(SERVING);
    let dir = std::fs::metadata(data.path().join("credentials")).expect("the credentials directory").permissions().mode();
    assert_eq!(dir & 0o777, 0o700, "the directory: owner only");
    for role in [Role::Service, Role::Admin, Role::Director, Role::Reader] {
        let mode = std::fs::metadata(role_file(data.path(), role)).expect("the role's credential").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{role:?}: owner only");
    }
    let url = std::fs::read_to_string(recorded_url_path(data.path())).expect("nats.url written");
    let refused = tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(async { bootstrap::connect_with(url.trim(), &Credentials::none()).await.expect_err("a stranger is refused") });
    assert_eq!(refused.kind(), bootstrap::BootstrapErrorKind::Unauthorized, "{refused}");
    let (code, said) = floor_command(data.path(), &["status"]);
    assert_eq!(code, Some(0), "the director's status from the directory: {said}");
    assert!(said.contains("\"healthy\": true"), "{said}");
}

/// Issue 34: `floor credentials table` issues a credential for one tournament's tables; it
/// stores that tournament's reports and nothing of another's, and `floor credentials revoke`
/// ends it: the server refuses it from then on.
#[test]
fn a_table_credential_reports_for_its_tournament_until_it_is_revoked() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut run = floor_run(data.path());
    run.wait_for_line(SERVING);
    let t = uuid::Uuid::now_v7();
    let (code, said) = floor_command(data.path(), &["credentials", "table", "--tournament", &t.to_string()]);
    assert_eq!(code, Some(0), "{said}");
    let value = |key: &str| said.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_else(|| panic!("{key} in {said}")).to_owned();
    let (user, password) = (value("NATS_USER="), value("NATS_PASSWORD="));
    let url = std::fs::read_to_string(recorded_url_path(data.path())).expect("nats.url written");
    let table =
        Credentials { auth: floor_runtime::credentials::Auth::UserPassword { user: user.clone(), password }, ..Credentials::none() };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let client = bootstrap::connect_with(url.trim(), &table).await.expect("the table connects");
        let mut jetstream = async_nats::jetstream::new(client);
        jetstream.set_timeout(Duration::from_millis(1_500));
        let stored = jetstream.publish(format!("floor.table.{t}.3.out"), "{}".into()).await.expect("sent").await;
        assert!(stored.is_ok(), "its tournament's report is stored: {stored:?}");
        let other = uuid::Uuid::now_v7();
        let refused = jetstream.publish(format!("floor.table.{other}.3.out"), "{}".into()).await.expect("sent").await;
        assert!(refused.is_err(), "another tournament's report is not");
    });
    let (code, said) = floor_command(data.path(), &["credentials", "revoke", &user]);
    assert_eq!(code, Some(0), "{said}");
    let refused = runtime.block_on(async { bootstrap::connect_with(url.trim(), &table).await.err() });
    let refused = refused.expect("revoked: refused");
    assert_eq!(refused.kind(), bootstrap::BootstrapErrorKind::Unauthorized, "{refused}");
    let (code, _) = floor_command(data.path(), &["credentials", "revoke", &user]);
    assert_eq!(code, Some(1), "revoked once");
}

/// Issue 34: `floor sim-tables` deals a tournament's tables holding nothing but a table
/// credential of that tournament in its environment, as `docs/security.md` tells a table
/// server's author: the nine-seat sit & go of `examples/` is played to its winner, and the
/// books balance.
#[test]
fn floor_sim_tables_deals_a_sit_and_go_to_its_winner_with_a_table_credential() {
    use futures::StreamExt;
    let data = tempfile::tempdir().expect("temp dir");
    let mut run = floor_run_only(data.path(), "");
    run.wait_for_line("Floor is running; lobby at");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sit-and-go-9.toml");
    let (code, said) = floor_command(data.path(), &["tournament", "create", "--file", example]);
    assert_eq!(code, Some(0), "{said}");
    let t = said.trim().to_owned();
    let (code, said) = floor_command(data.path(), &["credentials", "table", "--tournament", &t]);
    assert_eq!(code, Some(0), "{said}");
    let value = |key: &str| said.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_else(|| panic!("{key} in {said}")).to_owned();
    let url = std::fs::read_to_string(recorded_url_path(data.path())).expect("nats.url written");
    let mut tables = Command::new(env!("CARGO_BIN_EXE_floor"))
        .args(["sim-tables", "--tournament", &t])
        .env("NATS_URL", url.trim())
        .env("NATS_USER", value("NATS_USER="))
        .env("NATS_PASSWORD", value("NATS_PASSWORD="))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("floor sim-tables starts");
    for p in 1..=9 {
        let (code, said) = floor_command(data.path(), &["register", &t, &format!("p{p}")]);
        assert_eq!(code, Some(0), "p{p}: {said}");
    }
    // The lobby's document, read with the lobby reader's credential, until it says finished.
    let reader = Credentials::from_env_file(&role_file(data.path(), Role::Reader)).expect("the reader's credential");
    let finished = tokio::runtime::Runtime::new().expect("runtime").block_on(async {
        let client = bootstrap::connect_with(url.trim(), &reader).await.expect("connect");
        let lobby = async_nats::jetstream::new(client).get_key_value("floor-lobby").await.expect("the lobby bucket");
        let mut watch = lobby.watch_with_history(&t).await.expect("watch");
        let wait = async {
            while let Some(entry) = watch.next().await {
                let doc: serde_json::Value = serde_json::from_slice(&entry.expect("entry").value).unwrap_or_default();
                if doc["state"] == "finished" {
                    return doc;
                }
            }
            panic!("the lobby watch ended");
        };
        tokio::time::timeout(Duration::from_secs(240), wait).await
    });
    let _ = tables.kill();
    let output = tables.wait_with_output().expect("sim-tables output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let doc = finished.unwrap_or_else(|_| panic!("the sit & go did not finish; sim-tables said:\n{stderr}"));
    assert!(!stderr.contains("ermission"), "no permission refused: {stderr}");
    assert_eq!(doc["entrants"], 9, "{doc}");
    let (code, said) = floor_command(data.path(), &["status"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("\"healthy\": true"), "the books balance: {said}");
}
