//! `floor table-check` (issue 19) against Floor's own simulated tables, each test on a
//! nats-server of its own: the built-in tables pass every rule, and each one broken on purpose
//! fails exactly the rule it breaks.
//!
//! Here rather than in `tests/`: Cargo hands the path of a package's binary
//! (`CARGO_BIN_EXE_floor`) only to that package's own integration tests.

use floor::table_check::builtin::{self, Fault};
use floor::table_check::{self, Config, Outcome};
use floor_events::TournamentId;
use floor_runtime::server::NatsServer;
use std::process::Command;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

fn config(tournament: TournamentId) -> Config {
    Config { tournament, timeout: Duration::from_secs(20), start_timeout: Duration::from_secs(20), quiet: Duration::from_millis(300) }
}

/// The check against the built-in tables with `fault`, on a fresh nats-server.
async fn check(fault: Option<Fault>) -> Outcome {
    let server = NatsServer::start_temp().expect("nats-server (FLOOR_NATS_SERVER)");
    let client = floor_runtime::bootstrap::connect(&server.url()).await.expect("connects");
    let backbone = floor_runtime::bootstrap::ensure_backbone(client).await.expect("streams");
    let tournament = TournamentId::new();
    let shutdown = CancellationToken::new();
    let tables = tokio::spawn(builtin::serve(backbone.jetstream.clone(), tournament, fault, 7, shutdown.clone()));
    let outcome = table_check::run(backbone.client.clone(), config(tournament)).await.expect("the check runs");
    shutdown.cancel();
    tables.await.expect("the tables' task").expect("the tables served");
    outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floors_simulated_tables_pass_every_rule() {
    let outcome = check(None).await;
    assert!(outcome.passed, "{}", outcome.text());
    assert_eq!(outcome.rules.len(), floor::table_check::rules::Rule::ALL.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_broken_table_server_fails_exactly_the_rule_it_breaks() {
    let cases = [
        (Fault::WrongSubject, "subject"),
        (Fault::CreatesChips, "chips-conserved"),
        (Fault::DealsWhileHeld, "hold-for-deal"),
        (Fault::DealsBeforeBlinds, "waits-for-blinds"),
        (Fault::ConfirmsUnknown, "confirms-known"),
        (Fault::KeepsRemoved, "removed-out"),
    ];
    for (fault, rule) in cases {
        let outcome = check(Some(fault)).await;
        assert_eq!(outcome.failed(), vec![rule], "{fault:?}:\n{}", outcome.text());
    }
}

/// The command as a user runs it, joined to a nats-server through NATS_URL. The table server
/// is a process of its own it starts (`--exec`, told NATS_URL and FLOOR_TOURNAMENT): exit code
/// 0 and every rule passed in its JSON, and the table server stopped at the end. With a fault,
/// exit code 1 naming the rule, text by default, with the exchange that broke it.
#[test]
fn the_command_exits_0_only_when_every_rule_passes() {
    let server = NatsServer::start_temp().expect("nats-server (FLOOR_NATS_SERVER)");
    let floor = env!("CARGO_BIN_EXE_floor");
    let run = |args: &[&str]| {
        Command::new(floor)
            .arg("table-check")
            .args(args)
            .args(["--timeout", "20"])
            .env("NATS_URL", server.url())
            .env("NO_COLOR", "1")
            .output()
            .expect("floor table-check runs")
    };
    let tournament = TournamentId::new().to_string();
    let exec = format!("{floor} sim-tables --seed 3");
    let passing = run(&["--exec", &exec, "--tournament", &tournament, "--json"]);
    let stdout = String::from_utf8_lossy(&passing.stdout);
    assert_eq!(passing.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&passing.stderr));
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!((json["passed"].as_bool(), json["tournament"].as_str()), (Some(true), Some(tournament.as_str())));
    let rules = json["rules"].as_array().expect("rules");
    assert!(rules.len() >= 15 && rules.iter().all(|r| r["passed"] == true), "{json}");
    let still_serving = Command::new("pgrep").args(["-f", &format!("{floor} sim-tables --seed 3")]).output().expect("pgrep");
    assert!(!still_serving.status.success(), "the table server under test outlived the check");

    let broken = run(&["--builtin", "--fault", "creates-chips"]);
    let stdout = String::from_utf8_lossy(&broken.stdout);
    assert_eq!(broken.status.code(), Some(1), "{stdout}");
    let failed: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(failed.len(), 1, "{stdout}");
    assert!(failed[0].contains("chips-conserved"), "{stdout}");
    assert!(stdout.contains("← report:"), "a failure shows the exchange that broke it: {stdout}");
}
