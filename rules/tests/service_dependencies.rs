//! The crate graph stays a star: every service crate depends only on `floor-events` (the wire
//! contract), `floor-rules` (pure rules several services share) and `floor-runtime` (the
//! backbone), never on another service crate (issue 16). What two services both need moves into
//! `rules/`, so a service can be changed, tested and deployed without another's internals.
//!
//! Exempt: `services/floor` (the binary that runs them all) and `services/runtime` itself.

use std::fs;
use std::path::{Path, PathBuf};

/// Floor crates a service crate may depend on.
const ALLOWED: [&str; 3] = ["floor-events", "floor-rules", "floor-runtime"];

/// Directories under `services/` that are not service crates.
const EXEMPT: [&str; 2] = ["floor", "runtime"];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("rules/ sits in the workspace root").to_path_buf()
}

/// Every `floor-*` dependency of a manifest, in any dependency table (normal, dev, build, and
/// their target-specific forms), named with the table it sits in.
fn floor_dependencies(manifest: &toml::Table) -> Vec<(String, String)> {
    const TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables: Vec<(String, &toml::Table)> =
        TABLES.iter().filter_map(|t| manifest.get(*t).and_then(toml::Value::as_table).map(|d| (t.to_string(), d))).collect();
    if let Some(targets) = manifest.get("target").and_then(toml::Value::as_table) {
        for (cfg, target) in targets {
            for t in TABLES {
                if let Some(d) = target.get(t).and_then(toml::Value::as_table) {
                    tables.push((format!("target.{cfg}.{t}"), d));
                }
            }
        }
    }
    let mut found = Vec::new();
    for (table, deps) in tables {
        for (name, spec) in deps {
            // `package = "…"` renames a dependency: judge the crate, not the alias.
            let package = spec.get("package").and_then(toml::Value::as_str).unwrap_or(name);
            if package.starts_with("floor-") || package == "floor" {
                found.push((table.clone(), package.to_string()));
            }
        }
    }
    found
}

fn read_manifest(path: &Path) -> toml::Table {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse().unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn no_service_crate_depends_on_another_service_crate() {
    let services = workspace_root().join("services");
    let mut checked = Vec::new();
    let mut offending = Vec::new();
    let mut dirs: Vec<_> = fs::read_dir(&services).expect("services/").map(|e| e.expect("entry").path()).collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let path = dir.join("Cargo.toml");
        if EXEMPT.contains(&name.as_str()) || !path.is_file() {
            continue;
        }
        let manifest = read_manifest(&path);
        let crate_name = manifest.get("package").and_then(|p| p.get("name")).and_then(toml::Value::as_str).unwrap_or(&name).to_string();
        for (table, dependency) in floor_dependencies(&manifest) {
            if !ALLOWED.contains(&dependency.as_str()) {
                offending.push(format!("{crate_name} → {dependency} ([{table}] in services/{name}/Cargo.toml)"));
            }
        }
        checked.push(crate_name);
    }
    assert!(checked.len() >= 7, "found only {checked:?} under services/: is the layout still services/<name>/Cargo.toml?");
    assert!(
        offending.is_empty(),
        "service crates may depend only on {ALLOWED:?}; move what they share into rules/:\n  {}",
        offending.join("\n  ")
    );
}

#[test]
fn the_rules_crate_depends_on_the_contract_alone() {
    let manifest = read_manifest(&Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    let floor: Vec<_> = floor_dependencies(&manifest).into_iter().filter(|(table, _)| table == "dependencies").collect();
    assert_eq!(floor, vec![("dependencies".to_string(), "floor-events".to_string())], "rules are pure: no runtime, no service");
}

/// The check itself: an edge written the ways Cargo allows is found.
#[test]
fn a_dependency_on_a_service_crate_is_found_however_it_is_written() {
    let manifest: toml::Table = r#"
        [dependencies]
        floor-events.workspace = true
        floor-clock = { path = "../clock" }
        payouts = { package = "floor-payouts", path = "../payouts" }
        [dev-dependencies]
        floor-seating.workspace = true
        [target.'cfg(unix)'.dependencies]
        floor-lobby.workspace = true
    "#
    .parse()
    .unwrap();
    let mut found: Vec<String> = floor_dependencies(&manifest).into_iter().map(|(_, d)| d).collect();
    found.sort();
    assert_eq!(found, ["floor-clock", "floor-events", "floor-lobby", "floor-payouts", "floor-seating"]);
}

/// `floor audit`'s replayer (issue 42) recomputes what the services recorded: its folds are its
/// own, so it may read the contract and the pure rules, never a service crate (nor the runtime).
#[test]
fn the_audit_crate_depends_on_the_contract_and_the_rules_alone() {
    let manifest = read_manifest(&workspace_root().join("audit").join("Cargo.toml"));
    let mut floor: Vec<String> = floor_dependencies(&manifest).into_iter().map(|(_, d)| d).collect();
    floor.sort();
    floor.dedup();
    let allowed = ["floor-events", "floor-rules"];
    let offending: Vec<&String> = floor.iter().filter(|d| !allowed.contains(&d.as_str())).collect();
    assert!(
        offending.is_empty(),
        "floor-audit may depend only on {allowed:?}, found {offending:?}: write the fold in audit/, share a pure rule through rules/"
    );
    assert!(floor.contains(&"floor-events".to_string()), "floor-audit reads the contract: {floor:?}");
}
