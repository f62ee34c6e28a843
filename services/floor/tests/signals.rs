//! Stopping `floor sim --http` as a user does (issue 39): Ctrl-C at a terminal sends SIGINT to
//! the whole foreground process group. The sim stops its services and then its embedded
//! nats-server (which runs in a process group of its own, so the signal does not kill it
//! first) and exits 0. A lobby address already in use is a usage error (exit 2) naming the
//! settings that choose it, not "NATS unreachable" (exit 3).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn floor() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_floor"));
    command.env("NO_COLOR", "1").env_remove("NATS_URL").env_remove("FLOOR_HTTP").stdin(Stdio::null());
    // The tests run floor in a scratch directory, where the checkout's `.tools/bin` (which
    // `make tools` fills) is not among the current directory's parents: name it, unless the
    // caller chose a server.
    let pinned = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/bin/nats-server");
    if std::env::var_os("FLOOR_NATS_SERVER").is_none() && pinned.exists() {
        command.env("FLOOR_NATS_SERVER", pinned);
    }
    command
}

#[test]
fn ctrl_c_stops_a_sim_with_a_lobby_in_order_and_exits_0() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("addr").port();
    let mut child = floor()
        .args(["sim", "--entrants", "60", "--hand-every", "3", "--seed", "3", "--http", &format!("127.0.0.1:{port}")])
        .current_dir(scratch.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // A process group of its own, as a shell gives a foreground job: the signal goes to it all.
        .process_group(0)
        .spawn()
        .expect("floor sim starts");
    let (lines, seen) = mpsc::channel();
    let stderr = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let mut said = Vec::new();
    // Playing: the lobby is up and the first progress line is out.
    loop {
        let line = seen.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("no progress line: {said:?}"));
        let playing = line.starts_with("players left");
        said.push(line);
        if playing {
            break;
        }
    }
    // SAFETY: a signal to the process group of a child this test started and has not reaped.
    unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGINT) };
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "floor sim still running 20 s after SIGINT: {said:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    said.extend(seen.try_iter());
    assert_eq!(status.code(), Some(0), "{said:?}");
    assert!(said.iter().any(|l| l.contains("stopped (Ctrl-C)")), "{said:?}");
}

#[test]
fn a_lobby_address_in_use_is_a_usage_error_naming_the_setting() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = taken.local_addr().expect("addr").to_string();
    let out = floor().args(["sim", "--entrants", "10", "--http", &addr]).current_dir(scratch.path()).output().expect("floor sim runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&addr) && stderr.contains("--http") && stderr.contains("FLOOR_HTTP") && stderr.contains("DEMO_HTTP"),
        "{stderr}"
    );
}
