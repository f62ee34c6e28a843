//! The checked-in `schemas/` must equal what the Rust types generate. `make schemas` rewrites them
//! (`FLOOR_UPDATE_SCHEMAS=1`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

fn checked_in(dir: &Path, base: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            checked_in(&path, base, out);
        } else {
            out.insert(path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn checked_in_schemas_match_the_rust_types() {
    let dir = schemas_dir();
    let files = floor_events::schema::files();
    if std::env::var("FLOOR_UPDATE_SCHEMAS").is_ok_and(|v| v == "1") {
        let _ = std::fs::remove_dir_all(&dir);
        for (path, content) in &files {
            let target = dir.join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, content).unwrap();
        }
        return;
    }
    let mut stale = BTreeSet::new();
    checked_in(&dir, &dir, &mut stale);
    for (path, content) in &files {
        let on_disk = std::fs::read_to_string(dir.join(path)).unwrap_or_default();
        assert!(on_disk == *content, "schemas/{path} differs from the Rust types: run `make schemas` and commit the result");
        stale.remove(path);
    }
    assert!(stale.is_empty(), "schemas/ has files no type generates: {stale:?}; run `make schemas`");
}
