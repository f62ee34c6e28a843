//! Fuzzing what a director's files and a browser reach (issue 17): tournament, schedule and
//! structure TOML as `floor` reads them, and the lobby's HTTP paths on a running platform.
//! Nothing may panic: a file is read or refused with a usage error, a path is answered.
//!
//! Seeded (ChaCha8), so a failure names its seed and case; `PROPTEST_CASES` sets the number of
//! cases, as for the proptest targets (`services/runtime/tests/fuzz.rs`), so `make fuzz` runs
//! these longer too.

use floor::director::{read_definition, read_toml};
use floor_events::{clock, schedule};
use floor_tests::{http_get, World};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn cases(default: usize) -> usize {
    std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(default)
}

/// Flips, cuts, duplicates and inserts a few bytes; sometimes puts an extreme number in.
fn mutate(rng: &mut ChaCha8Rng, seed: &[u8]) -> Vec<u8> {
    const EXTREMES: [&str; 8] =
        ["9223372036854775807", "-9223372036854775808", "18446744073709551616", "1e400", "-0", "nan", "\"\"", "\"\\u0000\""];
    let mut bytes = seed.to_vec();
    for _ in 0..rng.random_range(1..6) {
        if bytes.is_empty() {
            bytes.push(rng.random());
            continue;
        }
        let at = rng.random_range(0..bytes.len());
        match rng.random_range(0..6) {
            0 => bytes[at] = rng.random(),
            1 => drop(bytes.remove(at)),
            2 => bytes.insert(at, rng.random()),
            3 => bytes.truncate(at),
            4 => {
                let end = (at + rng.random_range(1..64)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
            _ => {
                // Replace the number (or word) at `at` with an extreme one.
                let end = bytes[at..].iter().position(|b| !b.is_ascii_alphanumeric()).map_or(bytes.len(), |n| at + n);
                let extreme = EXTREMES[rng.random_range(0..EXTREMES.len())].as_bytes().to_vec();
                bytes.splice(at..end, extreme);
            }
        }
    }
    bytes
}

#[test]
fn fuzz_director_toml_files_are_read_or_refused_never_a_panic() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let examples: Vec<(&str, Vec<u8>)> = [
        "sunday-major.toml",
        "daily-turbo-reentry.toml",
        "rebuy-turbo.toml",
        "sit-and-go-9.toml",
        "schedules/daily-vienna.toml",
        "structures/deep-evening.toml",
    ]
    .into_iter()
    .map(|name| (name, std::fs::read(format!("{root}/{name}")).expect("example")))
    .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("fuzz.toml");
    // Every example is valid as it stands: mutations start from real files.
    // A definition is read as the CLI reads it: its relative times resolved (issue 39).
    assert!(read_definition(std::path::Path::new(&format!("{root}/sunday-major.toml"))).is_ok());
    assert!(read_toml::<schedule::ScheduleTemplate>(std::path::Path::new(&format!("{root}/schedules/daily-vienna.toml"))).is_ok());
    assert!(read_toml::<clock::Structure>(std::path::Path::new(&format!("{root}/structures/deep-evening.toml"))).is_ok());
    let seed = 17;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut read, mut refused) = (0, 0);
    for case in 0..cases(256) {
        let bytes = if case % 8 == 7 {
            (0..rng.random_range(0..256)).map(|_| rng.random()).collect()
        } else {
            let (_, example) = &examples[case % examples.len()];
            mutate(&mut rng, example)
        };
        std::fs::write(&file, &bytes).expect("write");
        let outcome = std::panic::catch_unwind(|| {
            [
                read_definition(&file).is_ok(),
                read_toml::<schedule::ScheduleTemplate>(&file).is_ok(),
                read_toml::<clock::Structure>(&file).is_ok(),
            ]
        });
        let outcome =
            outcome.unwrap_or_else(|_| panic!("seed {seed} case {case}: a TOML file panicked: {}", String::from_utf8_lossy(&bytes)));
        if outcome.iter().any(|ok| *ok) {
            read += 1;
        } else {
            refused += 1;
        }
    }
    assert!(refused > 0, "mutations that break a file are refused ({read} read)");
}

/// A request target: a known route or random segments, with percent-escapes of any byte.
fn path(rng: &mut ChaCha8Rng) -> String {
    const PREFIXES: [&str; 6] = ["/", "/api/", "/api/tournaments/", "/api/tournaments", "//", "/tournaments/"];
    const CHARS: &[u8] = b"abcdefABCDEF0123456789-._~!$&'()*+,;=:@/?#%";
    let mut path = PREFIXES[rng.random_range(0..PREFIXES.len())].to_owned();
    for _ in 0..rng.random_range(0..40) {
        if rng.random_range(0..4) == 0 {
            path.push_str(&format!("%{:02X}", rng.random::<u8>()));
        } else {
            path.push(CHARS[rng.random_range(0..CHARS.len())] as char);
        }
    }
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzz_lobby_http_paths_are_answered_never_a_panic() {
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.skip("seating");
    })
    .await;
    let addr = world.platform().http().expect("lobby http");
    let seed = 17;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for case in 0..cases(256).min(5_000) {
        let path = path(&mut rng);
        // A panic behind a route drops the connection: `http_get` then finds no status line.
        let (status, body) = http_get(addr, &path).await;
        assert!(status < 500 || status == 503, "seed {seed} case {case}: GET {path} answered {status}: {body}");
    }
    let (status, _) = http_get(addr, "/api/tournaments").await;
    assert_eq!(status, 200, "the lobby still answers after the fuzz");
}
