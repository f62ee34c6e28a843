//! The registry says what each service reads (issue 35), and the running platform agrees.
//!
//! Every checkpointed reader (a `ProjectionRunner`'s projection, a `PolicyRunner`'s policy)
//! announces at start, in KV `floor-readers` under its name, the stream and filters it reads
//! (`floor_runtime::readers::announce`). A reader belongs to the service
//! `registry::service_of_reader` names: the registry's `READERS` entry (`lobby`, `seat-map` →
//! lobby; `clock-policy` → clock; `seating-policy`, `-reports`, `-outbox` → seating), else the
//! service its name starts with, up to the first `-` (`abort-policy` → abort,
//! `registration-policy` → registration). The aggregates a service's readers filter on
//! (`floor.ev.<aggregate>.*` or `.>`, and seating's `floor.table.*.*.out` on `FLOOR_TABLES`, the
//! registry's `TABLE_REPORTS`), with what its follows read (below), must be the registry's
//! `reads` for it, no more and no fewer.

use floor_events::registry::{self, TABLE_REPORTS};
use floor_events::subjects::{self, aggregate, service};
use floor_runtime::readers::Reads;
use floor_tests::{World, DEADLINE};
use futures::StreamExt;
use std::collections::{BTreeMap, BTreeSet};

/// What the services read through a follow (`floor_runtime::follow`): in memory, from the start
/// of the log at every start, with no checkpoint, so it announces nothing. Kept here by hand;
/// the test fails if the registry lists a read that neither a reader nor one of these makes.
const FOLLOWS: &[(&str, &[&str], &str)] = &[
    (
        service::REGISTRATION,
        &[aggregate::PLAYER, aggregate::ABORT],
        "registration-limits: players with limits and suspended tournaments (services/registration/src/service.rs)",
    ),
    (service::CLOCK, &[aggregate::CLOCK], "the clocks' timetable (services/clock/src/service.rs)"),
];

/// What one reader's record says it reads, as the registry names reads; `Err` the filter that
/// names none.
fn read_of(reads: &Reads, filter: &str) -> Result<String, String> {
    let aggregate = match reads.stream.as_str() {
        subjects::EVENTS_STREAM => subjects::filter_aggregate(filter),
        subjects::TABLES_STREAM if filter == "floor.table.*.*.out" => Some(TABLE_REPORTS),
        _ => None,
    };
    match aggregate {
        Some(a) if !a.contains(['.', '*', '>']) => Ok(a.to_owned()),
        _ => Err(format!("{filter} on {}", reads.stream)),
    }
}

/// What the platform says each service reads, from every reader's record and the follows.
#[derive(Debug, Default, PartialEq)]
struct Found {
    /// Service → what its readers and follows read.
    reads: BTreeMap<String, BTreeSet<String>>,
    /// Readers that belong to no registered service.
    unmapped: BTreeSet<String>,
    /// Filters that name no aggregate: `reader: filter on stream`.
    unparsed: BTreeSet<String>,
}

fn found(readers: &BTreeMap<String, Reads>) -> Found {
    let names = registry::names();
    let mut found = Found::default();
    for name in names.iter() {
        found.reads.insert((*name).to_owned(), BTreeSet::new());
    }
    for (service, reads, _) in FOLLOWS {
        found.reads.entry((*service).to_owned()).or_default().extend(reads.iter().map(|r| (*r).to_owned()));
    }
    for (reader, reads) in readers {
        let service = registry::service_of_reader(reader);
        if !names.contains(&service.as_str()) {
            found.unmapped.insert(reader.clone());
            continue;
        }
        for filter in &reads.filters {
            match read_of(reads, filter) {
                Ok(read) => drop(found.reads.entry(service.clone()).or_default().insert(read)),
                Err(unparsed) => drop(found.unparsed.insert(format!("{reader}: {unparsed}"))),
            }
        }
    }
    found
}

/// What the registry says each service reads.
fn registered() -> Found {
    let reads = registry::services().iter().map(|s| (s.name.to_owned(), s.reads.iter().map(|r| (*r).to_owned()).collect())).collect();
    Found { reads, ..Found::default() }
}

/// Issue 35: for every registered service, what its readers announce (and its follows read) is
/// the registry's `reads`, and every reader the registry names (`READERS`) announces itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_service_reads_what_the_registry_says() {
    let world = World::start().await;
    let bucket = world.jetstream().get_key_value(subjects::READERS_BUCKET).await.expect("the readers' bucket");
    let mut watch = bucket.watch_with_history(">").await.expect("watch the readers");
    let expected = registered();
    let named: BTreeSet<&str> = registry::READERS.iter().map(|r| r.name).collect();
    // Every reader announces as it starts; the lobby's seat map starts in the background after
    // the platform says it is ready. Read records until the platform agrees with the registry,
    // or the deadline, and then say where they differ.
    let mut readers: BTreeMap<String, Reads> = BTreeMap::new();
    let agree = |readers: &BTreeMap<String, Reads>| {
        found(readers) == expected && named.iter().all(|name| readers.contains_key(&floor_runtime::health::key(name)))
    };
    let waited = tokio::time::timeout(DEADLINE, async {
        while let Some(entry) = watch.next().await {
            let entry = entry.expect("a reader's record");
            match serde_json::from_slice::<Reads>(&entry.value) {
                Ok(reads) => drop(readers.insert(entry.key.clone(), reads)),
                Err(_) => drop(readers.remove(&entry.key)),
            }
            if agree(&readers) {
                return;
            }
        }
    })
    .await;
    if waited.is_ok() {
        return;
    }
    let found = found(&readers);
    let mut wrong = Vec::new();
    if !found.unmapped.is_empty() {
        wrong.push(format!("readers of no registered service (name them in registry::READERS): {:?}", found.unmapped));
    }
    if !found.unparsed.is_empty() {
        wrong.push(format!("filters that name no aggregate: {:?}", found.unparsed));
    }
    for (service, registered) in &expected.reads {
        let read = found.reads.get(service).cloned().unwrap_or_default();
        let unlisted: Vec<&String> = read.difference(registered).collect();
        let unread: Vec<&String> = registered.difference(&read).collect();
        if !unlisted.is_empty() || !unread.is_empty() {
            wrong.push(format!("{service}: read but not in the registry's reads {unlisted:?}; in its reads but read by none {unread:?}"));
        }
    }
    let silent: Vec<&&str> = named.iter().filter(|name| !readers.contains_key(&floor_runtime::health::key(name))).collect();
    if !silent.is_empty() {
        wrong.push(format!("registry::READERS entries that announced nothing: {silent:?}"));
    }
    panic!("the registry disagrees with the platform's readers:\n{}\nrecords: {readers:#?}", wrong.join("\n"));
}
