//! Health: the poison commits Floor's readers survived, and the aggregates they set aside.
//!
//! A reader (a projection, a policy, an in-memory follow) that meets a commit it cannot decode
//! or cannot apply (undecodable JSON, a schema version from a newer Floor, an event whose fold
//! panics) does not die of it: one tournament's bad commit must not stop every other
//! tournament. It records the commit here (logged with subject and sequence), sets that one
//! aggregate (its subject) aside, skips every later commit on that subject, and keeps serving the
//! others. What it had folded of that aggregate is not trusted any more, which is why nothing
//! of it is applied again until an operator has looked.
//!
//! Each reader's record is kept in memory and stored in the KV bucket
//! [`floor_events::subjects::HEALTH_BUCKET`], one key per reader, so `floor status` in any
//! process reads the whole platform's health, and a reader that restarts past a poison commit
//! (its checkpoint moved on) still knows what it set aside.

use async_nats::jetstream::kv;
use floor_events::{record, subjects};
use futures::{StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// How many of a reader's most recent poison commits its record keeps.
pub const LAST_KEPT: usize = 10;

/// One commit a reader could not decode or apply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoisonCommit {
    /// The reader that met it.
    pub reader: String,
    /// Its subject: `floor.ev.<aggregate>.<id>`.
    pub subject: String,
    /// Its stream sequence.
    pub sequence: u64,
    /// Why it could not be read or applied.
    pub error: String,
}

/// What one reader survived.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReaderHealth {
    /// The reader's name (a projection's name, or `follow:<filters>`).
    pub reader: String,
    /// Poison commits met so far (each set its subject aside).
    pub poison_commits: u64,
    /// Subjects whose later commits this reader skips.
    pub set_aside: BTreeSet<String>,
    /// The last [`LAST_KEPT`] poison commits, oldest first.
    pub last: Vec<PoisonCommit>,
    /// Snapshots of this reader's state that could not be read, so it folded the log from the
    /// start instead ([`crate::policy`]): slower starts, nothing lost.
    #[serde(default)]
    pub unreadable_snapshots: u64,
}

#[derive(Default)]
struct Entry {
    health: ReaderHealth,
    /// Changed since last stored.
    dirty: bool,
}

/// The platform's health: every reader's record, shared by the readers of one connection.
/// Cheap to clone.
#[derive(Clone, Default)]
pub struct Health {
    bucket: Option<kv::Store>,
    // std Mutex: held only to read or update a record, never across an await.
    readers: Arc<Mutex<HashMap<String, Entry>>>,
}

/// The KV key of a reader: its name with anything a key cannot hold replaced by `_`.
pub fn key(reader: &str) -> String {
    reader.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// The text of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic without a message".to_owned())
}

/// Runs `f`, turning a panic into an error that says so. For folds of stored commits only:
/// whatever `f` was changing is not trusted afterwards, and the caller sets it aside.
///
/// # Errors
/// The panic's message.
pub fn catch<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| format!("fold panicked: {}", panic_message(&*payload)))
}

/// Whether a body on an event subject is a commit this build can read at all: a JSON array of
/// records with a known schema version whose numbers are all 64-bit integers. Bodies on other subjects (the table protocol's) are the
/// reader's own business.
///
/// # Errors
/// Why it is not.
pub fn check_commit(subject: &str, body: &[u8]) -> Result<(), String> {
    if !subject.starts_with("floor.ev.") {
        return Ok(());
    }
    record::decode_commit::<Integers>(body).map(|_| ()).map_err(|e| e.to_string())
}

/// Any JSON whose numbers are all integers a `u64` or `i64` holds. Floor stores no fractions
/// (money is integer minor units, chips are `u64`), so a number beyond those bounds (read by
/// JSON as a float) is an event whose numbers overflow, whichever reader meets it.
struct Integers;

impl<'de> serde::Deserialize<'de> for Integers {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IntegersVisitor)
    }
}

struct IntegersVisitor;

impl<'de> serde::de::Visitor<'de> for IntegersVisitor {
    type Value = Integers;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JSON whose numbers are 64-bit integers")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Integers, E> {
        Ok(Integers)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Integers, E> {
        Ok(Integers)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Integers, E> {
        Ok(Integers)
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Integers, E> {
        Err(E::custom(format_args!("number {v} is not a 64-bit integer: it overflows every field Floor stores")))
    }
    fn visit_str<E>(self, _: &str) -> Result<Integers, E> {
        Ok(Integers)
    }
    fn visit_unit<E>(self) -> Result<Integers, E> {
        Ok(Integers)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Integers, A::Error> {
        while seq.next_element::<Integers>()?.is_some() {}
        Ok(Integers)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Integers, A::Error> {
        while map.next_entry::<serde::de::IgnoredAny, Integers>()?.is_some() {}
        Ok(Integers)
    }
}

impl Health {
    /// Health stored in `bucket` (and in memory).
    pub fn new(bucket: kv::Store) -> Self {
        Self { bucket: Some(bucket), readers: Arc::default() }
    }

    /// Health kept in memory only (tests, tools).
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// The reader called `name`, with what it set aside before (read from the bucket once per
    /// process).
    pub async fn reader(&self, name: &str) -> Reader {
        let known = self.readers.lock().expect("health poisoned").contains_key(name);
        if !known {
            let stored = match &self.bucket {
                Some(bucket) => match bucket.get(key(name)).await {
                    Ok(Some(bytes)) => serde_json::from_slice::<ReaderHealth>(&bytes).ok(),
                    Ok(None) => None,
                    Err(e) => {
                        tracing::warn!(reader = name, error = %e, "health record not read; starting from none");
                        None
                    }
                },
                None => None,
            };
            let mut readers = self.readers.lock().expect("health poisoned");
            let entry = readers.entry(name.to_owned()).or_default();
            if let Some(stored) = stored {
                entry.health.poison_commits = entry.health.poison_commits.max(stored.poison_commits);
                entry.health.unreadable_snapshots = entry.health.unreadable_snapshots.max(stored.unreadable_snapshots);
                entry.health.set_aside.extend(stored.set_aside);
                if entry.health.last.is_empty() {
                    entry.health.last = stored.last;
                }
            }
            entry.health.reader = name.to_owned();
        }
        Reader { name: name.to_owned(), health: self.clone() }
    }

    /// The record of reader `name` as this process knows it.
    pub fn of(&self, name: &str) -> Option<ReaderHealth> {
        self.readers.lock().expect("health poisoned").get(name).map(|e| e.health.clone())
    }
}

/// The platform's health as `floor status` and the lobby's `GET /api/health` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// No reader met a poison commit.
    pub healthy: bool,
    /// Poison commits met, over every reader.
    pub poison_commits: u64,
    /// Every reader's record.
    pub readers: Vec<ReaderHealth>,
    /// Tournaments that wait on a service, and since when ([`crate::waiting`]); empty when
    /// nothing waits. Filled by whoever shows the status (`floor status`, the lobby).
    #[serde(default)]
    pub waiting: Vec<crate::waiting::TournamentWait>,
    /// Tournaments whose books do not reconcile, each with why ([`unbalanced_books`]); filled by
    /// `floor status` (any makes the platform unhealthy).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unbalanced_books: Vec<floor_events::payouts::Books>,
    /// Where the streams and buckets are not as Floor created them ([`crate::shape`]); filled
    /// by `floor status` (any makes the platform unhealthy).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub store: Vec<String>,
}

/// The platform's health, from the bucket.
///
/// # Errors
/// The bucket cannot be read.
pub async fn status(jetstream: &async_nats::jetstream::Context) -> Result<Status, String> {
    let readers = stored(jetstream).await?;
    let poison_commits = readers.iter().map(|r| r.poison_commits).sum();
    Ok(Status {
        healthy: poison_commits == 0,
        poison_commits,
        readers,
        waiting: Vec::new(),
        unbalanced_books: Vec::new(),
        store: Vec::new(),
    })
}

/// The tournaments whose books do not reconcile, as the payouts service wrote them to
/// [`subjects::BOOKS_BUCKET`] (issue 33); a value that does not decode is logged and left out.
///
/// # Errors
/// The bucket cannot be read.
pub async fn unbalanced_books(jetstream: &async_nats::jetstream::Context) -> Result<Vec<floor_events::payouts::Books>, String> {
    let bucket = jetstream.get_key_value(subjects::BOOKS_BUCKET).await.map_err(|e| e.to_string())?;
    let keys: Vec<String> = bucket.keys().await.map_err(|e| e.to_string())?.try_collect().await.map_err(|e| e.to_string())?;
    let mut books = Vec::with_capacity(keys.len());
    for key in keys {
        if let Some(value) = bucket.get(&key).await.map_err(|e| e.to_string())? {
            match serde_json::from_slice(&value) {
                Ok(b) => books.push(b),
                Err(e) => tracing::warn!(key, error = %e, "unreadable books record"),
            }
        }
    }
    Ok(books)
}

/// Every reader's stored record, from the bucket (what `floor status` shows).
///
/// # Errors
/// The bucket cannot be read.
pub async fn stored(jetstream: &async_nats::jetstream::Context) -> Result<Vec<ReaderHealth>, String> {
    let bucket = jetstream.get_key_value(subjects::HEALTH_BUCKET).await.map_err(|e| e.to_string())?;
    let mut keys = bucket.keys().await.map_err(|e| e.to_string())?;
    let mut names = Vec::new();
    while let Some(key) = keys.next().await {
        names.push(key.map_err(|e| e.to_string())?);
    }
    names.sort();
    let mut records = Vec::new();
    for name in names {
        if let Some(bytes) = bucket.get(&name).await.map_err(|e| e.to_string())? {
            match serde_json::from_slice::<ReaderHealth>(&bytes) {
                Ok(record) => records.push(record),
                Err(e) => tracing::warn!(key = %name, error = %e, "health record unreadable"),
            }
        }
    }
    Ok(records)
}

/// One reader's view of [`Health`]: what it set aside, and where it records poison. Cheap to
/// clone.
#[derive(Clone)]
pub struct Reader {
    name: String,
    health: Health,
}

impl Reader {
    /// A reader whose record stays in memory (tests).
    pub fn in_memory(name: &str) -> Self {
        Self { name: name.to_owned(), health: Health::in_memory() }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// This reader's record as this process knows it.
    pub fn health_record(&self) -> Option<ReaderHealth> {
        self.health.of(&self.name)
    }

    /// Whether this reader has set `subject` aside.
    pub fn is_set_aside(&self, subject: &str) -> bool {
        self.health.readers.lock().expect("health poisoned").get(&self.name).is_some_and(|e| e.health.set_aside.contains(subject))
    }

    /// Records a poison commit and sets its subject aside. Logged at `error`: somebody must look.
    pub fn record(&self, subject: &str, sequence: u64, error: &str) {
        tracing::error!(reader = %self.name, subject, sequence, error, "poison commit: aggregate set aside, every other one still served");
        let mut readers = self.health.readers.lock().expect("health poisoned");
        let entry = readers.entry(self.name.clone()).or_default();
        entry.health.reader.clone_from(&self.name);
        if entry.health.set_aside.insert(subject.to_owned()) {
            entry.health.poison_commits += 1;
            entry.health.last.push(PoisonCommit {
                reader: self.name.clone(),
                subject: subject.to_owned(),
                sequence,
                error: error.chars().take(500).collect(),
            });
            let over = entry.health.last.len().saturating_sub(LAST_KEPT);
            entry.health.last.drain(..over);
            entry.dirty = true;
        }
    }

    /// Records a snapshot of this reader's state that could not be read (logged at `warn`: the
    /// reader folds the log from the start instead, which is slower but loses nothing).
    pub fn record_unreadable_snapshot(&self, error: &str) {
        tracing::warn!(reader = %self.name, error, "snapshot unreadable; folding the log from the start");
        let mut readers = self.health.readers.lock().expect("health poisoned");
        let entry = readers.entry(self.name.clone()).or_default();
        entry.health.reader.clone_from(&self.name);
        entry.health.unreadable_snapshots += 1;
        entry.dirty = true;
    }

    /// Folds one commit with `fold`, unless its subject is set aside (skipped: `None`), it is
    /// not a readable commit, or `fold` panics (both recorded, the subject set aside: `None`).
    pub fn guard<R>(&self, subject: &str, sequence: u64, body: &[u8], fold: impl FnOnce() -> R) -> Option<R> {
        if self.is_set_aside(subject) {
            return None;
        }
        self.guard_readable(subject, sequence, check_commit(subject, body).as_ref().map(|_| ()).map_err(String::as_str), fold)
    }

    /// As [`Reader::guard`], with whether the commit is readable already found out (once for
    /// every reader in the process: [`crate::tail::Delivered::readable`]).
    pub fn guard_readable<R>(&self, subject: &str, sequence: u64, readable: Result<(), &str>, fold: impl FnOnce() -> R) -> Option<R> {
        if self.is_set_aside(subject) {
            return None;
        }
        match readable.map_err(str::to_owned).and_then(|()| catch(fold)) {
            Ok(folded) => Some(folded),
            Err(error) => {
                self.record(subject, sequence, &error);
                None
            }
        }
    }

    /// As [`Reader::guard`], for a commit already found readable (a follow's
    /// [`crate::follow::Following::next`] checked it): a set-aside subject is skipped, a
    /// panicking fold recorded and its subject set aside. Saves reading the body twice.
    pub fn fold_checked<R>(&self, subject: &str, sequence: u64, fold: impl FnOnce() -> R) -> Option<R> {
        if self.is_set_aside(subject) {
            return None;
        }
        match catch(fold) {
            Ok(folded) => Some(folded),
            Err(error) => {
                self.record(subject, sequence, &error);
                None
            }
        }
    }

    /// Stores this reader's record if it changed. A failure is logged and tried again at the
    /// next call: health is a report, never a reason to stop reading.
    pub async fn publish(&self) {
        let Some(bucket) = &self.health.bucket else { return };
        let bytes = {
            let mut readers = self.health.readers.lock().expect("health poisoned");
            let Some(entry) = readers.get_mut(&self.name).filter(|e| e.dirty) else { return };
            entry.dirty = false;
            serde_json::to_vec(&entry.health).expect("health encodes")
        };
        if let Err(e) = bucket.put(key(&self.name), bytes.into()).await {
            tracing::warn!(reader = %self.name, error = %e, "health record not stored; trying again later");
            if let Some(entry) = self.health.readers.lock().expect("health poisoned").get_mut(&self.name) {
                entry.dirty = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUBJECT: &str = "floor.ev.tournament.0195c0de-0000-7000-8000-000000000001";
    const OTHER: &str = "floor.ev.tournament.0195c0de-0000-7000-8000-000000000002";

    #[test]
    fn a_panicking_fold_sets_its_subject_aside_and_the_others_go_on() {
        let reader = Reader::in_memory("lobby");
        let good = br#"[{"v":1,"type":"anything"}]"#;
        assert_eq!(reader.guard(SUBJECT, 1, good, || 1), Some(1));
        assert_eq!(reader.guard(SUBJECT, 2, good, || -> i32 { panic!("overflow") }), None);
        assert_eq!(reader.guard(SUBJECT, 3, good, || 3), None, "later commits of a set-aside subject are skipped");
        assert_eq!(reader.guard(OTHER, 4, good, || 4), Some(4), "other aggregates are still served");
        let record = reader.health.of("lobby").expect("recorded");
        assert_eq!(record.poison_commits, 1);
        assert_eq!(record.last[0].sequence, 2);
        assert!(record.last[0].error.contains("overflow"));
    }

    #[test]
    fn undecodable_and_too_new_commits_are_poison_before_any_fold() {
        let reader = Reader::in_memory("follow");
        let mut folded = 0;
        let overflow = br#"[{"v":1,"type":"chips_bought","chips":18446744073709551616}]"#;
        for (n, body) in [&b"{not json"[..], br#"[{"v":99,"type":"x"}]"#, b"[1", overflow, br#"[{"v":1,"n":1.5}]"#].into_iter().enumerate()
        {
            let subject = format!("floor.ev.clock.0195c0de-0000-7000-8000-00000000000{n}");
            assert_eq!(reader.guard(&subject, n as u64, body, || folded += 1), None);
        }
        assert_eq!(folded, 0);
        assert_eq!(reader.health.of("follow").expect("recorded").poison_commits, 5);
        let extremes = br#"[{"v":1,"a":18446744073709551615,"b":-9223372036854775808,"c":[{"d":null}]}]"#;
        assert_eq!(reader.guard("floor.ev.clock.x", 9, extremes, || 1), Some(1), "the largest integers are readable");
    }

    #[test]
    fn table_protocol_bodies_are_not_checked_as_commits() {
        let reader = Reader::in_memory("reports");
        assert_eq!(reader.guard("floor.table.t.1.out", 1, b"{\"report\":1}", || 7), Some(7));
    }

    #[test]
    fn keys_hold_only_what_kv_accepts() {
        assert_eq!(key("follow:floor.ev.clock.*,floor.ev.tournament.*"), "follow_floor_ev_clock___floor_ev_tournament__");
    }
}
