//! The conformance table (`docs/conformance.md`, issue 38) cannot drift from the code: every row
//! that says a rule is `enforced` names the Rust test that checks it, as
//! `path/to/file.rs::test_function_name` (the path from the workspace root), and this test fails
//! when that file or that test function does not exist. It also checks that every status is one
//! of `enforced`, `delegated` or `not yet (issue N)`, that a row not yet enforced names no test,
//! and that each of the six profiles has its section.
//!
//! The table is read as Markdown: a profile's section is a `## ` heading naming the profile in
//! backticks; every line of that section that starts with `|` is a table row, the header row
//! (`| section | rule | status | test |`) and the separator row excepted.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The six profiles, by the names tournament files use (`events/src/profile.rs`).
const PROFILES: [&str; 6] = ["win2day", "hrvatska-lutrija-2017", "svenska-spel-2012", "reel-cz", "fortuna-cz-2024", "tda-2024"];

/// The columns of every table, in order.
const HEADER: [&str; 4] = ["section", "rule", "status", "test"];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("rules/ sits in the workspace root").to_path_buf()
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Status {
    Enforced,
    Delegated,
    NotYet { issue: u32 },
}

#[derive(Debug, Clone)]
struct Row {
    /// 1-based line in the document.
    line: usize,
    profile: String,
    section: String,
    status: Status,
    /// The test column, backticks removed.
    test: String,
}

/// Splits a Markdown table line into its trimmed cells (no escaped pipes are used in the table).
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

fn is_separator(cells: &[String]) -> bool {
    cells.iter().all(|c| !c.is_empty() && c.chars().all(|ch| ch == '-' || ch == ':' || ch == ' '))
}

fn parse_status(cell: &str) -> Result<Status, String> {
    match cell {
        "enforced" => return Ok(Status::Enforced),
        "delegated" => return Ok(Status::Delegated),
        _ => {}
    }
    if let Some(rest) = cell.strip_prefix("not yet (issue ").and_then(|r| r.strip_suffix(')')) {
        if let Ok(issue) = rest.parse::<u32>() {
            return Ok(Status::NotYet { issue });
        }
    }
    Err(format!("status {cell:?} is none of `enforced`, `delegated`, `not yet (issue N)`"))
}

/// Which profile a `## ` heading opens, if any: the first profile named in backticks.
fn heading_profile(heading: &str) -> Option<&'static str> {
    PROFILES.iter().copied().find(|p| heading.contains(&format!("`{p}`")))
}

/// Every table row of every profile section, and every malformed row as a message.
fn parse(doc: &str) -> (Vec<Row>, Vec<String>, BTreeMap<&'static str, usize>) {
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    let mut sections: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut profile: Option<&'static str> = None;
    for (i, line) in doc.lines().enumerate() {
        let n = i + 1;
        if let Some(heading) = line.strip_prefix("## ") {
            profile = heading_profile(heading);
            if let Some(p) = profile {
                *sections.entry(p).or_default() += 1;
            }
            continue;
        }
        if line.starts_with("# ") {
            profile = None;
            continue;
        }
        let Some(p) = profile else { continue };
        if !line.trim_start().starts_with('|') {
            continue;
        }
        let cells = cells(line);
        if is_separator(&cells) {
            continue;
        }
        if cells.iter().map(|c| c.to_lowercase()).eq(HEADER.iter().map(|h| h.to_string())) {
            continue;
        }
        if cells.len() != HEADER.len() {
            problems.push(format!("line {n} ({p}): {} cells, the table has {}", cells.len(), HEADER.len()));
            continue;
        }
        if cells[0].is_empty() || cells[1].is_empty() {
            problems.push(format!("line {n} ({p}): the section and the rule must be given"));
        }
        let status = match parse_status(&cells[2]) {
            Ok(s) => s,
            Err(e) => {
                problems.push(format!("line {n} ({p}): {e}"));
                continue;
            }
        };
        rows.push(Row { line: n, profile: p.to_string(), section: cells[0].clone(), status, test: cells[3].replace('`', "") });
    }
    (rows, problems, sections)
}

/// Whether `source` defines a test function `name`: `fn name` followed by `(` or `<`, with a test
/// attribute (`#[test]`, `#[tokio::test…]`, …) among the attributes and comments just above it,
/// or inside a `proptest!` block.
fn defines_test(source: &str, name: &str) -> bool {
    let lines: Vec<&str> = source.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(at) = line.find(&format!("fn {name}")) else { continue };
        let after = &line[at + 3 + name.len()..];
        if !(after.starts_with('(') || after.starts_with('<')) {
            continue;
        }
        let before = &line[..at];
        if !before.split_whitespace().all(|w| ["pub", "pub(crate)", "async", "const", "unsafe"].contains(&w)) {
            continue;
        }
        let mut j = i;
        while j > 0 {
            j -= 1;
            let above = lines[j].trim();
            if is_test_attribute(above) {
                return true;
            }
            if !(above.starts_with('#') || above.starts_with("//")) {
                break;
            }
        }
        // A proptest! block: the nearest `proptest!` above the function, with no top-level item
        // (a line starting in column 0 other than a closing brace) in between.
        let mut k = i;
        while k > 0 {
            k -= 1;
            if lines[k].contains("proptest!") {
                return true;
            }
            if lines[k].starts_with(|c: char| c.is_alphanumeric()) {
                break;
            }
        }
    }
    false
}

/// `#[test]`, `#[tokio::test]`, `#[tokio::test(flavor = …)]` and the like; not `#[cfg(test)]`.
fn is_test_attribute(line: &str) -> bool {
    let Some(inner) = line.strip_prefix("#[").and_then(|l| l.strip_suffix(']')) else { return false };
    let path = inner.split('(').next().unwrap_or(inner).trim();
    path == "test" || path.ends_with("::test")
}

/// The tests a row names: `path.rs::name`, several separated by commas.
fn named_tests(test: &str) -> Vec<(String, String)> {
    test.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| match t.rsplit_once("::") {
            Some((path, name)) => (path.trim().to_string(), name.trim().to_string()),
            None => (String::new(), t.to_string()),
        })
        .collect()
}

/// A delegated row that names a document in this repository (`docs/x.md (Heading)`): the file
/// must exist and, when a heading is named in parentheses, hold a `#` heading of that name.
fn check_document(root: &Path, test: &str) -> Option<String> {
    let path = test.split_whitespace().next().filter(|p| p.ends_with(".md") && p.starts_with("docs/"))?;
    let text = match fs::read_to_string(root.join(path)) {
        Ok(text) => text,
        Err(e) => return Some(format!("{path}: {e}")),
    };
    let heading = test.split_once('(').and_then(|(_, rest)| rest.strip_suffix(')'))?;
    let found = text.lines().any(|l| l.starts_with('#') && l.trim_start_matches('#').trim() == heading);
    (!found).then(|| format!("{path} has no heading {heading:?}"))
}

/// Every problem with the rows: an enforced row without a test that exists, a row not yet
/// enforced that names a Rust test, a profile without its section.
fn check(root: &Path, doc: &str) -> (Vec<Row>, Vec<String>) {
    let (rows, mut problems, sections) = parse(doc);
    for p in PROFILES {
        match sections.get(p) {
            None => problems.push(format!("profile {p}: no `## ` section names it in backticks")),
            Some(n) if *n > 1 => problems.push(format!("profile {p}: {n} sections name it; one is wanted")),
            Some(_) => {}
        }
        if !rows.iter().any(|r| r.profile == p) {
            problems.push(format!("profile {p}: its section has no rows"));
        }
    }
    for row in &rows {
        let at = format!("line {} ({}, {})", row.line, row.profile, row.section);
        match row.status {
            Status::Enforced => {
                let tests = named_tests(&row.test);
                if tests.is_empty() {
                    problems.push(format!("{at}: enforced, but names no test"));
                }
                for (path, name) in tests {
                    if path.is_empty() || !path.ends_with(".rs") || path.starts_with('/') || path.split('/').any(|c| c == "..") {
                        problems.push(format!("{at}: {:?} is not `path/to/file.rs::test_function_name`", row.test));
                        continue;
                    }
                    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        problems.push(format!("{at}: {name:?} is not a function name"));
                        continue;
                    }
                    match fs::read_to_string(root.join(&path)) {
                        Err(e) => problems.push(format!("{at}: {path}: {e}")),
                        Ok(source) if !defines_test(&source, &name) => {
                            problems.push(format!("{at}: {path} has no test `fn {name}`"));
                        }
                        Ok(_) => {}
                    }
                }
            }
            Status::Delegated => {
                if row.test.contains(".rs::") {
                    problems.push(format!("{at}: delegated, but names a Rust test; name the document that delegates it, or —"));
                }
                if let Some(problem) = check_document(root, &row.test) {
                    problems.push(format!("{at}: {problem}"));
                }
            }
            Status::NotYet { .. } => {
                if row.test != "—" && row.test != "-" {
                    problems.push(format!("{at}: not yet enforced, so its test column is —, not {:?}", row.test));
                }
            }
        }
    }
    (rows, problems)
}

#[test]
fn every_enforced_row_names_a_test_that_exists() {
    let root = workspace_root();
    let path = root.join("docs/conformance.md");
    let doc = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (rows, problems) = check(&root, &doc);
    assert!(problems.is_empty(), "docs/conformance.md: {} problem(s):\n{}", problems.len(), problems.join("\n"));
    let mut counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for r in &rows {
        let s = match r.status {
            Status::Enforced => "enforced",
            Status::Delegated => "delegated",
            Status::NotYet { .. } => "not yet",
        };
        *counts.entry((r.profile.clone(), s)).or_default() += 1;
    }
    for ((p, s), n) in &counts {
        println!("{p}: {n} {s}");
    }
    assert!(rows.iter().any(|r| r.status == Status::Enforced), "the table enforces nothing");
}

/// The checker itself: a missing test, a missing file, a bad status, a test on a row not yet
/// enforced and a missing profile are each found, and all of them at once.
#[test]
fn the_checker_finds_every_kind_of_drift() {
    let root = workspace_root();
    let mut doc = String::from("# Conformance\n\n");
    for p in PROFILES {
        doc.push_str(&format!("## `{p}`\n\n| section | rule | status | test |\n|---|---|---|---|\n"));
        doc.push_str("| §1 | a rule | enforced | `rules/tests/conformance.rs::the_checker_finds_every_kind_of_drift` |\n");
        doc.push_str("| §2 | a rule | delegated | spec README §11 |\n| §3 | a rule | not yet (issue 36) | — |\n\n");
    }
    let (rows, problems) = check(&root, &doc);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(rows.len(), 18);

    let broken = doc
        .replacen("conformance.rs::the_checker_finds_every_kind_of_drift", "conformance.rs::a_test_nobody_wrote", 1)
        .replacen("conformance.rs::the_checker", "missing.rs::the_checker", 1)
        .replacen("| delegated |", "| done |", 1)
        .replacen("| not yet (issue 36) | — |", "| not yet (issue 36) | `rules/src/lib.rs::x` |", 1)
        .replacen("## `tda-2024`", "## tda", 1)
        .replacen(
            "| §2 | a rule | delegated | spec README §11 |",
            "| §2 | a rule | delegated | `docs/table-servers.md` (No such heading) |",
            1,
        );
    let (_, problems) = check(&root, &broken);
    let all = problems.join("\n");
    assert!(all.contains("has no test `fn a_test_nobody_wrote`"), "{all}");
    assert!(all.contains("rules/tests/missing.rs"), "{all}");
    assert!(all.contains("\"done\" is none of"), "{all}");
    assert!(all.contains("its test column is —"), "{all}");
    assert!(all.contains("profile tda-2024: no `## ` section"), "{all}");
    assert!(all.contains("docs/table-servers.md has no heading \"No such heading\""), "{all}");
    // the six above, and tda-2024's rows, which no section holds
    assert_eq!(problems.len(), 7, "{all}");

    // Test attributes, and what only looks like one.
    for (line, test) in [
        ("#[test]", true),
        ("#[tokio::test]", true),
        ("#[tokio::test(flavor = \"multi_thread\", worker_threads = 2)]", true),
        ("#[cfg(test)]", false),
        ("#[test_case(1)]", false),
        ("#[path = \"policy_tests.rs\"]", false),
    ] {
        assert_eq!(is_test_attribute(line), test, "{line}");
    }
    let cfg_test_helper = "#[cfg(test)]\nfn sample() {}\n#[test]\nfn real() {}\n";
    assert!(!defines_test(cfg_test_helper, "sample") && defines_test(cfg_test_helper, "real"));

    // A helper that is not a test does not count.
    let helper = doc.replacen("conformance.rs::the_checker_finds_every_kind_of_drift", "conformance.rs::workspace_root", 1);
    let (_, problems) = check(&root, &helper);
    assert_eq!(problems.len(), 1, "{problems:?}");
}

/// 003 App. 1 b) x and 004 §4.36.2: a Sit & Go seats from 2 to 360 players and starts when full.
/// The rulebooks' bounds are the cases: 2 and 360 seats are accepted, 1 and 361 refused.
#[test]
fn a_sit_and_go_seats_2_to_360() {
    use floor_events::profile::RuleProfile;
    use floor_events::tournament::{Start, TournamentDefinition};
    for profile in [RuleProfile::ReelCz, RuleProfile::FortunaCz2024] {
        let sit_and_go = |seats: u32| TournamentDefinition {
            start: Start::SitAndGo,
            capacity: seats,
            min_players: seats.max(2),
            profile,
            ..TournamentDefinition::example()
        };
        for seats in [2, 9, 180, 360] {
            assert_eq!(sit_and_go(seats).validate(), Ok(()), "{profile}: {seats} seats");
        }
        for seats in [1, 361, 1_000] {
            let err = sit_and_go(seats).validate().expect_err("outside 2-360");
            assert_eq!(err.code, floor_events::codes::INVALID_DEFINITION, "{profile}: {seats} seats");
            assert!(["capacity", "min_players"].contains(&err.field), "{profile}: {seats} seats: {}", err.field);
        }
    }
}

/// 004 §4.36.10 "Variable Length": the periods without a blind increase have different lengths.
/// A structure of 20-, 15- and 10-minute levels around a break loads, validates and keeps each
/// level's own length.
#[test]
fn a_variable_length_structure_keeps_each_level_s_own_length() {
    use floor_events::clock::Step;
    let text = r#"
        [[steps]]
        kind = "level"
        small_blind = 10
        big_blind = 20
        seconds = 1200
        [[steps]]
        kind = "level"
        small_blind = 20
        big_blind = 40
        seconds = 900
        [[steps]]
        kind = "break"
        seconds = 300
        [[steps]]
        kind = "level"
        small_blind = 30
        big_blind = 60
        seconds = 600
    "#;
    let structure = floor_rules::structure::from_toml(text).expect("a variable-length structure is valid");
    floor_rules::structure::validate(&structure).expect("and validates");
    let lengths: Vec<u32> = structure
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Level(l) => Some(l.seconds),
            Step::Break { .. } => None,
        })
        .collect();
    assert_eq!(lengths, vec![1_200, 900, 600]);
}

/// 003 GP §2: the tournament fee is "v rozmezí 2 a 17 %" (between 2 and 17 %) of the buy-in; the
/// seed's own case: a fee of 1 % or 18 % is refused, 2 % and 17 % are the ends of the range.
#[test]
fn a_reel_cz_fee_is_two_to_seventeen_percent_of_the_buy_in() {
    use floor_events::codes;
    use floor_events::money::{Currency, Money};
    use floor_events::profile::RuleProfile;
    use floor_events::tournament::{Fee, TournamentDefinition};
    // A buy-in of EUR 1,000, so a basis point of it is a whole cent and no rounding hides one.
    let with_fee = |basis_points: u32| TournamentDefinition {
        profile: RuleProfile::ReelCz,
        buy_in: Money::new(100_000, Currency::EUR),
        fee: Fee::ShareOfBuyIn { basis_points },
        ..TournamentDefinition::example()
    };
    for bps in [200, 500, 1_000, 1_700] {
        assert_eq!(with_fee(bps).validate(), Ok(()), "{bps} bps");
    }
    for (bps, code) in [(100, codes::FEE_TOO_LOW), (199, codes::FEE_TOO_LOW), (1_701, codes::FEE_TOO_HIGH), (1_800, codes::FEE_TOO_HIGH)] {
        assert_eq!(with_fee(bps).validate().map_err(|e| (e.code, e.field)), Err((code, "fee")), "{bps} bps");
    }
    // On top of the buy-in, a share no whole basis point gives: EUR 170.09 of EUR 1,000.00 paid
    // in is 17.009 %, above the range (a rounded-down share once let it through as 17.00 %).
    let on_top = |fee: u64| TournamentDefinition {
        profile: RuleProfile::ReelCz,
        buy_in: Money::new(100_000 - fee, Currency::EUR),
        fee: Fee::OnTop(Money::new(fee, Currency::EUR)),
        ..TournamentDefinition::example()
    };
    assert_eq!(on_top(17_000).validate(), Ok(()), "17.000 %");
    let refused = on_top(17_009).validate().unwrap_err();
    assert_eq!((refused.code, refused.field), (codes::FEE_TOO_HIGH, "fee"));
    assert!(refused.message.contains("17.009 %"), "{}", refused.message);
}
