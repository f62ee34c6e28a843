//! A second client in another language (issue 19): `examples/python-table-server`, written from
//! `docs/table-servers.md` and `schemas/` alone, deals a whole sit & go of 18 at tables of six
//! (three tables, so players move and tables break) against the platform, to a winner.
//!
//! The test installs the example's pinned `nats-py` into a venv under the target dir (once per
//! change of `requirements.txt`). Without `python3` it says so loudly and passes; CI has it.

use floor_events::clock::{BlindStructure, Level, Step, Structure};
use floor_events::payouts::Books;
use floor_events::seating::SeatingEvent;
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{subjects, Reply, TournamentId};
use floor_runtime::JetStreamStore;
use floor_tests::{freezeout, World};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Players, all seated at the start: three tables of six.
const PLAYERS: u32 = 18;
/// How long the example may take to deal the tournament (it gives up by itself before that).
const PLAY_TIMEOUT: Duration = Duration::from_secs(240);

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python-table-server")
}

/// The venv with the example's requirements, made or remade when they changed; `None` without
/// python3. The tests of this file run in parallel in one process: one makes the venv while the
/// other waits (two at once removed each other's half-made venv on a clean CI machine).
fn venv() -> Option<PathBuf> {
    static MAKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _making = MAKING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if std::process::Command::new("python3").arg("--version").output().is_err() {
        return None;
    }
    let requirements = std::fs::read_to_string(example_dir().join("requirements.txt")).expect("requirements.txt");
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-table-server-venv");
    let stamp = venv.join("requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(requirements.as_str()) {
        let _ = std::fs::remove_dir_all(&venv);
        let made = std::process::Command::new("python3").args(["-m", "venv"]).arg(&venv).status().expect("python3 -m venv");
        assert!(made.success(), "python3 -m venv {venv:?} failed (Debian: apt-get install python3-venv)");
        let installed = std::process::Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
            .arg(example_dir().join("requirements.txt"))
            .status()
            .expect("pip");
        assert!(installed.success(), "pip install -r examples/python-table-server/requirements.txt failed");
        std::fs::write(&stamp, requirements).expect("stamp");
    }
    Some(venv)
}

/// A sit & go of 18 at tables of six, with a clock of long levels (so `blinds` arrive and stay).
fn sit_and_go() -> TournamentDefinition {
    let level = |small_blind, big_blind, ante| Step::Level(Level { small_blind, big_blind, ante, big_blind_ante: false, seconds: 600 });
    let structure = Structure {
        steps: vec![level(50, 100, 10), level(100, 200, 20)],
        late_registration_levels: None,
        rebuys_until_break: None,
        push_hold_seconds: 0,
    };
    TournamentDefinition {
        start: Start::SitAndGo,
        capacity: PLAYERS,
        min_players: PLAYERS,
        table_size: 6,
        guarantee: None,
        structure: Some(BlindStructure::Custom(structure)),
        ..freezeout(PLAYERS)
    }
}

/// Runs the example on `t` (with `credential` in its environment, if any), registers the
/// players, and returns its output and the summary it printed last.
async fn deal(
    venv: &Path,
    world: &World,
    t: TournamentId,
    credential: Option<&floor_runtime::roles::User>,
) -> (std::process::Output, Value) {
    // The table server starts before the draw: it finds its tables as they open.
    let mut command = tokio::process::Command::new(venv.join("bin/python"));
    command
        .arg(example_dir().join("table_server.py"))
        .args(["--nats", &world.nats.url(), "--tournament", &t.to_string(), "--seed", "7"])
        .args(["--timeout", &(PLAY_TIMEOUT.as_secs() - 20).to_string()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    if let Some(user) = credential {
        command.env("NATS_USER", &user.user).env("NATS_PASSWORD", &user.password);
    }
    let client = command.spawn().expect("the example starts");
    for i in 1..=PLAYERS {
        assert!(matches!(world.register(t, format!("py{i}")).await, Reply::Ok(_)), "py{i} registers");
    }
    let output = tokio::time::timeout(PLAY_TIMEOUT, client.wait_with_output()).await.expect("the example ends").expect("its output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary: Value = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no summary: {stdout}\nstderr: {}", String::from_utf8_lossy(&output.stderr)));
    (output, summary)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_example_table_server_deals_a_tournament_to_its_winner() {
    let Some(venv) = tokio::task::spawn_blocking(venv).await.expect("venv") else {
        eprintln!("\n\n*** SKIPPED the_python_example_table_server_deals_a_tournament_to_its_winner: no python3 on PATH ***\n");
        return;
    };
    // A development platform with no access control (`--insecure-nats`): the example needs no
    // credential there. With one: the test below.
    let world = World::start_open_configured(|c| c.skip("scheduler")).await;
    let t = world.create(sit_and_go()).await;
    let (output, summary) = deal(&venv, &world, t, None).await;
    assert!(output.status.success(), "the example failed: {summary}");
    assert_eq!(summary["finished"], true, "{summary}");
    assert_eq!(summary["rejections"], json!([]), "no report of the example was rejected");
    assert_eq!(summary["tables"], 3, "{summary}");
    assert_eq!(summary["tables_closed"], 3, "two tables broken, the final table closed: {summary}");
    assert!(summary["moves"].as_u64() > Some(0), "players were moved: {summary}");
    assert_eq!(summary["eliminated"], PLAYERS - 1, "{summary}");

    // Floor's side: the tournament is finished and paid, its books balance, and its seating log
    // holds no rejection and names the winner the example saw last.
    let lobby = world.lobby_when(t, |d| d["state"] == "finished" && d["payouts"]["paid"] == true).await;
    assert_eq!(lobby["live_entries"], 1);
    let reply = world.request(subjects::service::PAYOUTS, "books", &json!({ "tournament_id": t })).await;
    let Reply::Ok(books) = reply else { panic!("books: {reply:?}") };
    let books: Books = serde_json::from_value(books).expect("books");
    assert!(books.finished && books.balanced, "{books:?}");
    assert_eq!((books.entries, books.prizes_paid), (PLAYERS, books.prize_pool));
    let log = JetStreamStore::new(&world.backbone)
        .load::<SeatingEvent>(&subjects::event_subject(subjects::aggregate::SEATING, t.0), 0)
        .await
        .expect("seating log");
    let events: Vec<SeatingEvent> = log.into_iter().flat_map(|c| c.events).collect();
    let rejected: Vec<&SeatingEvent> = events.iter().filter(|e| matches!(e, SeatingEvent::ReportRejected { .. })).collect();
    assert!(rejected.is_empty(), "{rejected:?}");
    let winner = events.iter().find_map(|e| if let SeatingEvent::TournamentWon { entry } = e { Some(entry.0) } else { None });
    assert_eq!(winner.map(u64::from), summary["winner"].as_u64(), "{summary}");
    let hands = events.iter().filter(|e| matches!(e, SeatingEvent::HandFinished { .. })).count();
    assert_eq!(Some(hands as u64), summary["hands"].as_u64(), "every hand dealt was taken");
}

/// Issue 34: the same example with the trust boundary on. It holds a table credential for its
/// tournament only (`NATS_USER`/`NATS_PASSWORD`, as `floor credentials table` prints it) and
/// still deals the tournament to its winner: its reports, its own consumers and nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_example_deals_a_tournament_with_a_table_credential_of_its_own() {
    let Some(venv) = tokio::task::spawn_blocking(venv).await.expect("venv") else {
        eprintln!("\n\n*** SKIPPED the_python_example_deals_a_tournament_with_a_table_credential_of_its_own: no python3 ***\n");
        return;
    };
    let t = TournamentId::new();
    let scope = floor_runtime::roles::TableScope { tournament: t.0, table: None };
    let (world, tables) = World::start_secure(vec![scope]).await;
    world.create_as(t, sit_and_go()).await;
    let (output, summary) = deal(&venv, &world, t, Some(&tables[0])).await;
    assert!(output.status.success(), "the example failed: {summary}");
    assert_eq!((summary["finished"].clone(), summary["rejections"].clone()), (json!(true), json!([])), "{summary}");
    world.lobby_when(t, |d| d["state"] == "finished" && d["payouts"]["paid"] == true).await;
}
