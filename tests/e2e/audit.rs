//! `floor audit` (issue 42): a tournament played on the platform audits ok from its log; its
//! export, one prize altered, is reported with the altered commit's sequence; and `floor sim`'s
//! formats, played on the platform, audit ok.

use floor::audit::{report as audit, LogCommit};
use floor::sim::{
    self,
    formats::{self, Kind},
    SimConfig,
};
use floor_events::TournamentId;
use floor_tests::{heads_up, ten_minute_levels, World};
use std::time::{Duration, Instant};

/// The tournament's log once payouts has recorded `tournament_paid`.
async fn paid_log(world: &World, t: TournamentId) -> Vec<LogCommit> {
    log_with(world, t, "\"tournament_paid\"").await
}

/// The tournament's log once a commit holds `marker`.
async fn log_with(world: &World, t: TournamentId, marker: &str) -> Vec<LogCommit> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let commits = floor::audit::read(world.jetstream(), t.0).await.expect("the log reads");
        if commits.iter().any(|c| String::from_utf8_lossy(&c.body).contains(marker)) {
            return commits;
        }
        assert!(Instant::now() < deadline, "no {marker} in {} commits", commits.len());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_played_tournament_audits_ok_and_an_altered_prize_in_its_export_is_found() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let t = world.create(heads_up(ten_minute_levels())).await;
    for player in ["ana", "ben"] {
        assert!(matches!(world.register(t, player).await, floor_events::Reply::Ok(_)), "{player} registers");
    }
    world.first_hand_busts_the_second(t).await;
    let commits = paid_log(&world, t).await;
    let report = audit(&commits);
    assert!(report.ok, "{}", report.summary());
    let subjects: std::collections::BTreeSet<&str> = commits.iter().map(|c| c.subject.split('.').nth(2).unwrap()).collect();
    assert!(subjects.contains("tournament") && subjects.contains("seating") && subjects.contains("payouts"), "{subjects:?}");
    let draws = report.checks.iter().find(|c| c.name == "draws").unwrap();
    assert!(draws.ok);

    // The export, the winner's prize raised by one cent in its line.
    let lines = floor::export::to_lines(&commits);
    let mut altered = None;
    let text: Vec<String> = lines
        .lines()
        .map(|line| {
            let mut json: serde_json::Value = serde_json::from_str(line).unwrap();
            let sequence = json["sequence"].as_u64().unwrap();
            for event in json["body"].as_array_mut().unwrap() {
                if altered.is_none() && event["type"] == "places_awarded" {
                    for award in event["awards"].as_array_mut().unwrap() {
                        if award["place"] == 1 {
                            award["amount"] = serde_json::json!(award["amount"].as_u64().unwrap() + 1);
                            altered = Some(sequence);
                        }
                    }
                }
            }
            serde_json::to_string(&json).unwrap()
        })
        .collect();
    let altered = altered.expect("the winner's award is exported");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, text.join("\n") + "\n").unwrap();
    let read = floor::export::from_lines(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(read.len(), commits.len());
    let (summary, ok) = floor::audit::render(&read, false);
    assert!(!ok, "{summary}");
    let report = audit(&read);
    let named: Vec<u64> = report.checks.iter().flat_map(|c| c.differences.iter().flat_map(|d| d.sequences.clone())).collect();
    assert!(named.contains(&altered), "the altered commit {altered} is named: {summary}");
    eprintln!("{summary}");
}

async fn sim_world() -> World {
    World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some([42; 32]);
    })
    .await
}

/// A format: the sim's own freezeout, adjusted.
type Adjust = fn(SimConfig) -> SimConfig;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sim_formats_audit_ok() {
    let world = sim_world().await;
    let formats: [(&str, Adjust); 5] = [
        ("freezeout", |c| c),
        ("rebuy", |c| SimConfig { rebuys: true, ..c }),
        ("ko", |c| SimConfig { bounty: sim::bounty_terms("ko"), ..c }),
        ("pko", |c| SimConfig { bounty: sim::bounty_terms("pko"), ..c }),
        ("mystery", |c| SimConfig { bounty: sim::bounty_terms("mystery"), ..c }),
    ];
    let mut configs: Vec<(String, SimConfig)> = Vec::new();
    for (n, (format, adjust)) in formats.into_iter().enumerate() {
        let t = TournamentId(uuid::Uuid::from_u128(0x42a0d17 << 64 | n as u128));
        configs.push((format.to_owned(), adjust(SimConfig::new(20, 7 + n as u64, t))));
    }
    // Issue 37's formats: the simulator's own definitions, as `floor sim --format` plays them.
    for (n, (format, kind, entrants)) in
        [("shootout", Kind::Shootout, 27), ("don", Kind::Don, 10), ("lottery", Kind::Lottery, 3)].into_iter().enumerate()
    {
        let t = TournamentId(uuid::Uuid::from_u128(0x42a0d37 << 64 | n as u128));
        let shape = SimConfig::new(entrants, 11 + n as u64, t);
        let definition = formats::definition(kind, &shape, chrono::Utc::now()).unwrap_or_else(|e| panic!("{format}: {e}"));
        configs.push((format.to_owned(), SimConfig { definition: Some(definition), ..shape }));
    }
    // Cancelled in play (the abort service's statements, docs/abort.md).
    for (n, (format, bounty)) in [("cancelled", None), ("cancelled ko", sim::bounty_terms("ko"))].into_iter().enumerate() {
        let t = TournamentId(uuid::Uuid::from_u128(0x42a0dca << 64 | n as u128));
        configs.push((format.to_owned(), SimConfig { cancel_at: Some(8), bounty, ..SimConfig::new(20, 23 + n as u64, t) }));
    }
    let t = TournamentId(uuid::Uuid::from_u128(0x42a0d36 << 64));
    configs.push(("satellite".to_owned(), SimConfig { satellite: true, ..SimConfig::new(20, 17, t) }));
    let mut failed = Vec::new();
    for (format, config) in configs {
        let summary = sim::run(&world.backbone, &config, |_| {}).await.unwrap_or_else(|e| panic!("{format}: {e}"));
        let cancelled = config.cancel_at.is_some();
        assert!(cancelled || summary.books.finished, "{format}: {:?}", summary.books);
        let mut audited = vec![(format.clone(), config.tournament_id)];
        if let Some(satellite) = &summary.satellite {
            audited.push((format!("{format} (the satellite)"), satellite.tournament_id));
        }
        for (name, t) in audited {
            let log = match cancelled {
                true => log_with(&world, t, "\"cancelled\"").await,
                false => paid_log(&world, t).await,
            };
            if name.ends_with("(the satellite)") {
                assert!(log.iter().any(|c| String::from_utf8_lossy(&c.body).contains("\"ticket_issued\"")), "the tickets are audited");
            }
            let report = audit(&log);
            eprintln!("{name}: {} commits, {}", report.commits, if report.ok { "ok" } else { "DIFFERENCES" });
            if !report.ok {
                failed.push(format!("{name}:\n{}", report.summary()));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
