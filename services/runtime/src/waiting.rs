//! What a tournament waits on: the service whose reader has not taken a commit the tournament
//! needs, and since when (issue 18: "where a stall can still happen, Floor says so").
//!
//! # What "waits on" means
//!
//! A tournament waits on service X since T when a commit on one of the tournament's subjects,
//! stored at T, matches the filters of a reader X runs, the reader's checkpoint is below the
//! commit's sequence (it has not taken it), and T is at least [`WAITING_AFTER`] ago. T is the
//! *first* such commit's time, so a reader that keeps falling behind while commits keep coming
//! still shows since when it has been behind.
//!
//! Readers are whatever keeps a checkpoint in KV `floor-checkpoints` (key = the reader's name),
//! projections and policies alike, so a new checkpointed reader is watched without being listed
//! anywhere; what it reads is what it recorded at its start in KV `floor-readers`
//! ([`crate::readers`]); the service is [`floor_events::registry::service_of_reader`]. Everything is read from the
//! store, never from a consumer's pending counts (`sim/lockstep.rs` says why): the checkpoint
//! against the next stored commit after it (a direct get), and how many follow it (the
//! `Nats-Num-Pending` a batched direct get answers with, nats-server ≥ 2.11; an older server
//! answers without it, and the count then says "at least 1").
//!
//! # Layout
//!
//! - [`waiting_on`]: the pure decision, over what the store says ([`Untaken`]) and now.
//! - [`observe`]: reads the store and decides; `floor status` calls it on demand, the lobby
//!   every [`LOBBY_EVERY`].

use async_nats::jetstream::{self, stream::Stream};
use chrono::{DateTime, Utc};
use floor_events::{registry, subjects};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use uuid::Uuid;

/// How long a commit may stay untaken before its tournament is said to wait: longer than a
/// reader's batch linger and store (tens of milliseconds), shorter than anyone's patience.
pub const WAITING_AFTER: Duration = Duration::from_secs(2);

/// How often the lobby looks.
pub const LOBBY_EVERY: Duration = Duration::from_secs(1);

/// What the store says about one reader on one of a tournament's subjects (a subject, or a
/// filter narrowed to the tournament: `floor.table.<t>.*.out`): the first commit it has not
/// taken and how many there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untaken {
    /// The reader (its checkpoint's key).
    pub reader: String,
    /// The subject (or narrowed filter) the commits are on; it names the tournament.
    pub subject: String,
    /// Stream sequence of the first commit after the reader's checkpoint.
    pub first_sequence: u64,
    /// When the store stored it.
    pub stored_at: DateTime<Utc>,
    /// Commits on the subject after the checkpoint (at least 1).
    pub commits: u64,
}

/// One service a tournament waits on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wait {
    /// The service (`floor run --only <service>` starts it).
    pub service: String,
    /// Its reader that has not taken the commits.
    pub reader: String,
    /// When the first commit it has not taken was stored.
    pub since: DateTime<Utc>,
    /// Commits of this tournament it has not taken.
    pub behind_by_commits: u64,
}

/// A tournament that waits, and on what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentWait {
    /// The tournament.
    pub tournament: Uuid,
    /// What it waits on, longest first.
    pub waiting_on: Vec<Wait>,
}

/// Whether a commit stored at `stored_at` and still untaken at `now` has waited long enough to
/// say so.
pub fn is_late(stored_at: DateTime<Utc>, now: DateTime<Utc>, threshold: Duration) -> bool {
    chrono::Duration::from_std(threshold).is_ok_and(|threshold| now - stored_at >= threshold)
}

/// Aggregates whose id is a tournament's.
const PER_TOURNAMENT: [&str; 5] = [
    subjects::aggregate::TOURNAMENT,
    subjects::aggregate::CLOCK,
    subjects::aggregate::SEATING,
    subjects::aggregate::PAYOUTS,
    subjects::aggregate::REBUYS,
];

/// Where a subject (or filter) names its tournament: `floor.ev.<aggregate>.<t>` (an aggregate
/// whose id is a tournament's) or `floor.table.<t>.…`.
fn tournament_token(tokens: &[&str]) -> Option<usize> {
    match tokens {
        ["floor", "ev", aggregate, _] if PER_TOURNAMENT.contains(aggregate) => Some(3),
        ["floor", "table", _, ..] => Some(2),
        _ => None,
    }
}

/// The tournament a subject belongs to, if any.
pub fn tournament_of(subject: &str) -> Option<Uuid> {
    let tokens: Vec<&str> = subject.split('.').collect();
    Uuid::parse_str(tokens[tournament_token(&tokens)?]).ok()
}

/// `filter` narrowed to one tournament's subjects (`floor.ev.seating.*` →
/// `floor.ev.seating.<t>`, `floor.table.*.*.out` → `floor.table.<t>.*.out`); `None` when the
/// filter cannot match that tournament or does not say which token is the tournament.
pub fn narrow(filter: &str, tournament: Uuid) -> Option<String> {
    let mut tokens: Vec<String> = filter.split('.').map(str::to_owned).collect();
    let at = tournament_token(&tokens.iter().map(String::as_str).collect::<Vec<_>>())?;
    let id = tournament.to_string();
    if tokens[..at].iter().any(|t| t == ">") || !(tokens[at] == "*" || tokens[at] == id) {
        return None;
    }
    tokens[at] = id;
    Some(tokens.join("."))
}

/// Which tournaments wait on which services, from what the store says readers have not taken.
///
/// An entry per tournament and reader whose first untaken commit is at least `threshold` old
/// at `now` (earlier ones are a reader at work): since that commit, behind by every commit of
/// the tournament it has not taken. Tournaments in id order, each one's waits longest first.
pub fn waiting_on(untaken: &[Untaken], now: DateTime<Utc>, threshold: Duration) -> Vec<TournamentWait> {
    let mut waits: BTreeMap<Uuid, BTreeMap<String, Wait>> = BTreeMap::new();
    for u in untaken {
        let Some(tournament) = tournament_of(&u.subject) else { continue };
        let for_reader = waits.entry(tournament).or_default().entry(u.reader.clone()).or_insert_with(|| Wait {
            service: registry::service_of_reader(&u.reader),
            reader: u.reader.clone(),
            since: u.stored_at,
            behind_by_commits: 0,
        });
        for_reader.since = for_reader.since.min(u.stored_at);
        for_reader.behind_by_commits += u.commits.max(1);
    }
    waits
        .into_iter()
        .filter_map(|(tournament, readers)| {
            let mut waiting_on: Vec<Wait> = readers.into_values().filter(|w| is_late(w.since, now, threshold)).collect();
            waiting_on.sort_by(|a, b| a.since.cmp(&b.since).then_with(|| a.reader.cmp(&b.reader)));
            (!waiting_on.is_empty()).then_some(TournamentWait { tournament, waiting_on })
        })
        .collect()
}

/// A reader as the store knows it.
struct ReaderPosition {
    name: String,
    checkpoint: u64,
    stream: Stream,
    filters: Vec<String>,
}

/// The first commit on `filter` at or after `from`, with how many match from there: a batched
/// direct get (one message), read from the store itself.
async fn first_from(
    jetstream: &jetstream::Context,
    stream: &str,
    filter: &str,
    from: u64,
) -> Result<Option<(u64, DateTime<Utc>, u64)>, String> {
    let request = serde_json::json!({ "seq": from, "next_by_subj": filter, "batch": 1 });
    let subject = format!("$JS.API.DIRECT.GET.{stream}");
    let message =
        jetstream.client().request(subject, serde_json::to_vec(&request).expect("json").into()).await.map_err(|e| e.to_string())?;
    if message.status.is_some_and(|s| s == async_nats::StatusCode::NOT_FOUND) {
        return Ok(None);
    }
    let pending = message.headers.as_ref().and_then(|h| h.get_last("Nats-Num-Pending")).and_then(|v| v.as_str().parse::<u64>().ok());
    let stored = jetstream::message::StreamMessage::try_from(message).map_err(|e| format!("{stream} {filter}: {e}"))?;
    let at = DateTime::<Utc>::from_timestamp_nanos(i64::try_from(stored.time.unix_timestamp_nanos()).unwrap_or(i64::MAX));
    // `Nats-Num-Pending` counts the matching messages after this one; a server without batched
    // gets sends none, and one is all that is known.
    Ok(Some((stored.sequence, at, pending.map_or(1, |p| p + 1))))
}

/// Every checkpointed reader, with what it reads (as it recorded it). A reader that has not
/// recorded what it reads, or on a stream not here, is left out of this look.
async fn readers(jetstream: &jetstream::Context, streams: &[Stream]) -> Result<Vec<ReaderPosition>, String> {
    let bucket = jetstream.get_key_value(subjects::CHECKPOINT_BUCKET).await.map_err(|e| e.to_string())?;
    let reads = crate::readers::all(jetstream).await?;
    let mut keys = bucket.keys().await.map_err(|e| e.to_string())?;
    let mut names = Vec::new();
    while let Some(key) = keys.next().await {
        names.push(key.map_err(|e| e.to_string())?);
    }
    let mut readers = Vec::new();
    for name in names {
        let Some(what) = reads.get(&crate::health::key(&name)) else { continue };
        let Some(stream) = streams.iter().find(|s| s.cached_info().config.name == what.stream) else { continue };
        let Some(checkpoint) = bucket.get(&name).await.map_err(|e| e.to_string())? else { continue };
        let Some(checkpoint) = std::str::from_utf8(&checkpoint).ok().and_then(|s| s.parse::<u64>().ok()) else { continue };
        readers.push(ReaderPosition { name, checkpoint, stream: stream.clone(), filters: what.filters.clone() });
    }
    Ok(readers)
}

/// The subjects the store holds on `filter`.
async fn stored_subjects(stream: &Stream, filter: &str) -> Result<BTreeSet<String>, String> {
    let mut subjects = stream.info_with_subjects(filter).await.map_err(|e| e.to_string())?;
    let mut found = BTreeSet::new();
    while let Some(entry) = subjects.next().await {
        found.insert(entry.map_err(|e| e.to_string())?.0);
    }
    Ok(found)
}

/// Reads the store and says which tournaments wait on which services at `now`.
///
/// Per reader and filter, one direct get finds the first commit after its checkpoint; only a
/// reader whose first untaken commit is late costs more (its filter's subjects, and a get per
/// tournament on them).
///
/// # Errors
/// The store cannot be read.
pub async fn observe(jetstream: &jetstream::Context, now: DateTime<Utc>, threshold: Duration) -> Result<Vec<TournamentWait>, String> {
    let mut streams = Vec::new();
    for name in [subjects::EVENTS_STREAM, subjects::TABLES_STREAM] {
        if let Ok(stream) = jetstream.get_stream(name).await {
            streams.push(stream);
        }
    }
    let mut untaken = Vec::new();
    for reader in readers(jetstream, &streams).await? {
        let stream_name = reader.stream.cached_info().config.name.clone();
        let from = reader.checkpoint + 1;
        for filter in &reader.filters {
            let Some((_, first_at, _)) = first_from(jetstream, &stream_name, filter, from).await? else { continue };
            if !is_late(first_at, now, threshold) {
                continue;
            }
            let tournaments: BTreeSet<Uuid> =
                stored_subjects(&reader.stream, filter).await?.iter().filter_map(|s| tournament_of(s)).collect();
            for tournament in tournaments {
                let Some(narrowed) = narrow(filter, tournament) else { continue };
                if let Some((first_sequence, stored_at, commits)) = first_from(jetstream, &stream_name, &narrowed, from).await? {
                    untaken.push(Untaken { reader: reader.name.clone(), subject: narrowed, first_sequence, stored_at, commits });
                }
            }
        }
    }
    Ok(waiting_on(&untaken, now, threshold))
}

#[cfg(test)]
mod tests {
    use super::*;

    const T1: &str = "0195c0de-0000-7000-8000-000000000001";
    const T2: &str = "0195c0de-0000-7000-8000-000000000002";

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_900_000_000 + seconds, 0).expect("instant")
    }

    fn untaken(reader: &str, subject: String, first_sequence: u64, stored: i64, commits: u64) -> Untaken {
        Untaken { reader: reader.into(), subject, first_sequence, stored_at: at(stored), commits }
    }

    fn ev(aggregate: &str, t: &str) -> String {
        format!("floor.ev.{aggregate}.{t}")
    }

    #[test]
    fn given_a_commit_untaken_for_longer_than_the_threshold_then_its_tournament_waits_on_the_readers_service() {
        // Given: clock-policy has not taken T1's tournament commit stored at 0 (3 commits).
        let given = [untaken("clock-policy", ev("tournament", T1), 40, 0, 3)];
        // When: looked at 2 s later (the threshold).
        let waits = waiting_on(&given, at(2), WAITING_AFTER);
        // Then: T1 waits on the clock since 0, behind by 3.
        assert_eq!(
            waits,
            vec![TournamentWait {
                tournament: T1.parse().unwrap(),
                waiting_on: vec![Wait { service: "clock".into(), reader: "clock-policy".into(), since: at(0), behind_by_commits: 3 }],
            }]
        );
    }

    #[test]
    fn given_a_commit_untaken_for_less_than_the_threshold_then_nothing_waits() {
        let given = [untaken("clock-policy", ev("tournament", T1), 40, 0, 1)];
        assert_eq!(waiting_on(&given, at(1), WAITING_AFTER), vec![]);
        assert_eq!(waiting_on(&[], at(100), WAITING_AFTER), vec![], "nothing untaken, nothing waits");
    }

    #[test]
    fn given_one_reader_behind_on_several_subjects_then_one_entry_since_the_oldest_counting_all() {
        let given = [
            untaken("seating-policy", ev("clock", T1), 50, 5, 2),
            untaken("seating-policy", ev("tournament", T1), 41, 1, 4),
            untaken("seating-reports", format!("floor.table.{T1}.*.out"), 900, 3, 7),
            untaken("lobby", ev("payouts", T2), 60, 9, 1),
        ];
        let waits = waiting_on(&given, at(10), WAITING_AFTER);
        assert_eq!(waits.len(), 1, "T2's payouts commit is 1 s old: {waits:?}");
        assert_eq!(waits[0].tournament, T1.parse::<Uuid>().unwrap());
        let seen: Vec<(&str, &str, DateTime<Utc>, u64)> =
            waits[0].waiting_on.iter().map(|w| (w.service.as_str(), w.reader.as_str(), w.since, w.behind_by_commits)).collect();
        assert_eq!(seen, vec![("seating", "seating-policy", at(1), 6), ("seating", "seating-reports", at(3), 7)], "longest first");
    }

    #[test]
    fn a_reader_not_in_the_registry_goes_by_its_prefix_and_subjects_of_no_tournament_are_ignored() {
        let given = [
            untaken("payouts-policy", ev("seating", T2), 70, 0, 1),
            untaken("scheduler-plan", format!("floor.ev.schedule.{T1}"), 71, 0, 1),
            untaken("registration-limits", format!("floor.ev.player.{T1}"), 72, 0, 1),
        ];
        let waits = waiting_on(&given, at(60), WAITING_AFTER);
        assert_eq!(waits.len(), 1, "{waits:?}");
        assert_eq!((waits[0].tournament, waits[0].waiting_on[0].service.as_str()), (T2.parse().unwrap(), "payouts"));
    }

    #[test]
    fn filters_narrow_to_one_tournament_only_where_they_can_match_it() {
        let t: Uuid = T1.parse().unwrap();
        assert_eq!(narrow("floor.ev.seating.*", t), Some(ev("seating", T1)));
        assert_eq!(narrow("floor.table.*.*.out", t), Some(format!("floor.table.{T1}.*.out")));
        assert_eq!(narrow(&ev("clock", T1), t), Some(ev("clock", T1)));
        assert_eq!(narrow(&ev("clock", T2), t), None, "another tournament's subject");
        assert_eq!(narrow("floor.ev.player.*", t), None, "player ids are not tournaments");
        assert_eq!(narrow("floor.ev.>", t), None);
        assert_eq!(tournament_of(&format!("floor.table.{T2}.7.out")), Some(T2.parse().unwrap()));
        assert_eq!(tournament_of("floor.ev.tournament.not-a-uuid"), None);
    }
}
