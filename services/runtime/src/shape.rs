//! The log's shape (issue 34): the streams, key-value buckets and object stores Floor creates,
//! compared with what the server holds now. Anyone allowed to manage streams could make
//! `FLOOR_EVENTS` keep ten messages, lift `deny_delete`, age the lobby out or delete a bucket;
//! JetStream would do it, and Floor would go on serving a log that silently loses what it
//! acknowledged. So the platform checks the shape at every start (a difference refuses to
//! serve: [`crate::bootstrap::ensure_backbone`]) and `floor status` reports it.
//!
//! [`differences`] is pure (the configuration read, the one expected); [`observe`] reads the
//! server.

use async_nats::jetstream::{self, stream};
use floor_events::subjects;
use std::time::Duration;

/// What kind of JetStream store a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A stream Floor reads and writes itself.
    Stream,
    /// A key-value bucket (stream `KV_<bucket>`).
    KeyValue,
    /// An object store (stream `OBJ_<bucket>`).
    ObjectStore,
}

/// One store as Floor created it: the settings a change of which loses or exposes data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The bucket's or stream's name as Floor names it.
    pub name: String,
    /// Its kind.
    pub kind: Kind,
    /// The stream's configuration as Floor asks for it.
    pub config: stream::Config,
}

impl Expected {
    /// The JetStream stream behind it.
    pub fn stream_name(&self) -> String {
        match self.kind {
            Kind::Stream => self.name.clone(),
            Kind::KeyValue => format!("KV_{}", self.name),
            Kind::ObjectStore => format!("OBJ_{}", self.name),
        }
    }
}

/// `None`, 0 and negative limits all mean "no limit" on the server.
fn limit(n: i64) -> Option<i64> {
    (n > 0).then_some(n)
}

fn limit_i32(n: i32) -> Option<i32> {
    (n > 0).then_some(n)
}

fn shown<T: std::fmt::Debug>(v: Option<T>) -> String {
    v.map_or_else(|| "no limit".to_owned(), |v| format!("{v:?}"))
}

/// What differs between the store as it is (`actual`, `None` when it is gone) and as Floor
/// created it, one line each, naming the store and the setting.
pub fn differences(expected: &Expected, actual: Option<&stream::Config>) -> Vec<String> {
    let name = expected.stream_name();
    let Some(actual) = actual else {
        return vec![format!("{name}: missing (deleted?)")];
    };
    let want = &expected.config;
    let mut found = Vec::new();
    let mut differs = |what: &str, is: String, was: String| found.push(format!("{name}: {what} is {is}, Floor created it with {was}"));
    if limit(actual.max_messages) != limit(want.max_messages) {
        differs("max_msgs", shown(limit(actual.max_messages)), shown(limit(want.max_messages)));
    }
    if limit(actual.max_bytes) != limit(want.max_bytes) {
        differs("max_bytes", shown(limit(actual.max_bytes)), shown(limit(want.max_bytes)));
    }
    if limit(actual.max_messages_per_subject) != limit(want.max_messages_per_subject) {
        differs("max_msgs_per_subject", shown(limit(actual.max_messages_per_subject)), shown(limit(want.max_messages_per_subject)));
    }
    if limit_i32(actual.max_message_size) != limit_i32(want.max_message_size) {
        differs("max_msg_size", shown(limit_i32(actual.max_message_size)), shown(limit_i32(want.max_message_size)));
    }
    let age = |d: Duration| (!d.is_zero()).then_some(d);
    if age(actual.max_age) != age(want.max_age) {
        differs("max_age", shown(age(actual.max_age)), shown(age(want.max_age)));
    }
    if actual.retention != want.retention {
        differs("retention", format!("{:?}", actual.retention), format!("{:?}", want.retention));
    }
    if actual.storage != want.storage {
        differs("storage", format!("{:?}", actual.storage), format!("{:?}", want.storage));
    }
    if actual.discard != want.discard {
        differs("discard", format!("{:?}", actual.discard), format!("{:?}", want.discard));
    }
    for (what, is, was) in [
        ("deny_delete", actual.deny_delete, want.deny_delete),
        ("deny_purge", actual.deny_purge, want.deny_purge),
        ("sealed", actual.sealed, want.sealed),
        ("allow_direct", actual.allow_direct, want.allow_direct),
    ] {
        if is != was {
            differs(what, is.to_string(), was.to_string());
        }
    }
    if expected.kind == Kind::Stream && actual.subjects != want.subjects {
        differs("subjects", format!("{:?}", actual.subjects), format!("{:?}", want.subjects));
    }
    if actual.num_replicas.max(1) < want.num_replicas.max(1) {
        differs("replicas", actual.num_replicas.max(1).to_string(), want.num_replicas.max(1).to_string());
    }
    found
}

/// Every difference between the server's stores and `expected`, as [`differences`] says.
///
/// # Errors
/// The server could not be asked (not: a store is missing, which is a difference).
pub async fn observe(jetstream: &jetstream::Context, expected: &[Expected]) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    for e in expected {
        let name = e.stream_name();
        match jetstream.get_stream(&name).await {
            Ok(s) => found.extend(differences(e, Some(&s.cached_info().config))),
            Err(err) => match err.kind() {
                jetstream::context::GetStreamErrorKind::JetStream(js) if js.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND => {
                    found.extend(differences(e, None))
                }
                _ => return Err(format!("stream {name}: {err}")),
            },
        }
    }
    Ok(found)
}

/// The stores Floor's bootstrap creates, as it creates them ([`crate::bootstrap`]).
pub fn expected() -> Vec<Expected> {
    let mut all = vec![
        Expected { name: subjects::EVENTS_STREAM.to_owned(), kind: Kind::Stream, config: crate::bootstrap::events_config() },
        Expected { name: subjects::TABLES_STREAM.to_owned(), kind: Kind::Stream, config: crate::bootstrap::tables_config() },
    ];
    all.extend(crate::bootstrap::BUCKETS.iter().map(|(bucket, _)| Expected {
        name: (*bucket).to_owned(),
        kind: Kind::KeyValue,
        config: stream::Config {
            max_messages_per_subject: 1,
            storage: stream::StorageType::File,
            discard: stream::DiscardPolicy::New,
            deny_delete: true,
            allow_direct: true,
            num_replicas: crate::bootstrap::replicas(),
            ..Default::default()
        },
    }));
    all.extend(crate::bootstrap::OBJECT_STORES.iter().map(|(bucket, _)| Expected {
        name: (*bucket).to_owned(),
        kind: Kind::ObjectStore,
        config: stream::Config {
            storage: stream::StorageType::File,
            discard: stream::DiscardPolicy::New,
            allow_direct: true,
            num_replicas: crate::bootstrap::replicas(),
            ..Default::default()
        },
    }));
    all
}

/// The stores whose loss loses what Floor acknowledged or keeps secret: a data directory
/// records when each was made, so one deleted and made again (empty) is noticed.
pub const RECORDED: [&str; 3] = [subjects::EVENTS_STREAM, subjects::TABLES_STREAM, "KV_floor-secrets"];

/// When each of the [`RECORDED`] stores was made, as a data directory keeps it.
pub type Births = std::collections::BTreeMap<String, chrono::DateTime<chrono::Utc>>;

/// The stores made again since `recorded` (their birth differs), one line each. A store the
/// record does not name yet is not a difference (it is recorded from now on).
pub fn reborn(recorded: &Births, now: &Births) -> Vec<String> {
    recorded
        .iter()
        .filter_map(|(name, was)| match now.get(name) {
            Some(is) if is != was => {
                Some(format!("{name} was made again at {is}; the one this data directory served was made at {was}: what it held is gone"))
            }
            None => Some(format!("{name}: missing (deleted?)")),
            _ => None,
        })
        .collect()
}

/// Checks the stores against the record at `path` (a file of the data directory) and records
/// any not recorded yet. `Err` lists the stores made again; `floor run` then refuses to serve
/// (remove the file to serve the new, empty store on purpose).
///
/// # Errors
/// A store made again, or the record or the server cannot be read.
pub async fn check_births(jetstream: &jetstream::Context, path: &std::path::Path) -> Result<(), String> {
    let mut now = Births::new();
    for name in RECORDED {
        let s = jetstream.get_stream(name).await.map_err(|e| format!("stream {name}: {e}"))?;
        let created = s.cached_info().created;
        let created = chrono::DateTime::from_timestamp(created.unix_timestamp(), created.nanosecond()).unwrap_or_default();
        now.insert(name.to_owned(), created);
    }
    let recorded: Births = match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Births::new(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let gone = reborn(&recorded, &now);
    if !gone.is_empty() {
        return Err(format!("{} (record: {}; remove it to serve the new store on purpose)", gone.join("; "), path.display()));
    }
    if recorded.len() < now.len() {
        let mut all = now;
        all.extend(recorded);
        std::fs::write(path, serde_json::to_vec_pretty(&all).expect("births serialize")).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events() -> Expected {
        expected().into_iter().find(|e| e.name == subjects::EVENTS_STREAM).expect("FLOOR_EVENTS")
    }

    #[test]
    fn the_stream_as_created_has_no_difference_and_the_servers_unlimited_minus_one_is_no_limit() {
        let e = events();
        let mut as_served = e.config.clone();
        (as_served.max_messages, as_served.max_bytes, as_served.max_messages_per_subject) = (-1, -1, -1);
        as_served.max_message_size = -1;
        assert_eq!(differences(&e, Some(&as_served)), Vec::<String>::new());
    }

    /// Issue 34: a stranger set `max_msgs: 10` on `FLOOR_EVENTS` (2,419 events gone, later
    /// acknowledged registrations vanished, `healthy: true` throughout), lifted the deny flags
    /// or deleted the stream.
    #[test]
    fn a_limit_a_lifted_deny_flag_fewer_replicas_or_a_missing_store_is_named() {
        let e = events();
        let changed = stream::Config { max_messages: 10, deny_delete: false, max_age: Duration::from_secs(60), ..e.config.clone() };
        let found = differences(&e, Some(&changed));
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].contains("FLOOR_EVENTS: max_msgs is 10, Floor created it with no limit"), "{found:?}");
        assert!(found.iter().any(|d| d.contains("deny_delete is false")), "{found:?}");
        assert!(found.iter().any(|d| d.contains("max_age is 60s")), "{found:?}");
        let replicated = Expected { config: stream::Config { num_replicas: 3, ..e.config.clone() }, ..e.clone() };
        assert!(differences(&replicated, Some(&e.config))[0].contains("replicas is 1"));
        assert!(differences(&e, Some(&stream::Config { num_replicas: 3, ..e.config.clone() })).is_empty(), "more replicas: fine");
        assert_eq!(differences(&e, None), vec!["FLOOR_EVENTS: missing (deleted?)".to_owned()]);
        let secrets = expected().into_iter().find(|e| e.name == subjects::SECRETS_BUCKET).expect("secrets");
        assert_eq!(differences(&secrets, None), vec!["KV_floor-secrets: missing (deleted?)".to_owned()]);
    }

    /// Issue 34: the stream deleted, and after a restart the platform was empty. A store made
    /// again has another birth than the one the data directory recorded.
    #[test]
    fn a_store_made_again_is_named_and_one_not_recorded_yet_is_not() {
        let at = |s: &str| s.parse::<chrono::DateTime<chrono::Utc>>().unwrap();
        let recorded: Births = [("FLOOR_EVENTS".to_owned(), at("2026-11-01T10:00:00Z"))].into();
        let same: Births =
            [("FLOOR_EVENTS".to_owned(), at("2026-11-01T10:00:00Z")), ("FLOOR_TABLES".to_owned(), at("2026-11-02T10:00:00Z"))].into();
        assert!(reborn(&recorded, &same).is_empty());
        let again: Births = [("FLOOR_EVENTS".to_owned(), at("2026-11-28T16:00:00Z"))].into();
        let found = reborn(&recorded, &again);
        assert!(found[0].starts_with("FLOOR_EVENTS was made again at 2026-11-28 16:00:00 UTC"), "{found:?}");
        assert_eq!(reborn(&recorded, &Births::new()), vec!["FLOOR_EVENTS: missing (deleted?)".to_owned()]);
    }
}
