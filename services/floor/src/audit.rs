//! `floor audit <tournament>` and `floor export <tournament>` (issue 42): read every commit of one
//! tournament from FLOOR_EVENTS (every subject `floor.ev.*.<tournament>`) in stream order, with
//! the hash each carries (`Floor-Prev-Hash`), and hand them to `floor-audit`, the independent
//! replayer; [`stream_chains`] verifies every chain of the whole stream and the stored anchor
//! (`floor status`). docs/audit.md says what it checks.

use async_nats::jetstream::consumer::pull::OrderedConfig;
pub use floor_audit::chain;
use floor_audit::chain::{Anchor, Chains, Verifier};
pub use floor_audit::{Check, Difference, LogCommit, Report};
use floor_events::subjects;
use futures::StreamExt;
use serde::Serialize;

/// Every commit of `tournament`, in stream order, with its sequence, time and carried hash.
///
/// # Errors
/// The stream or its consumer could not be read.
pub async fn read(jetstream: &async_nats::jetstream::Context, tournament: uuid::Uuid) -> Result<Vec<LogCommit>, String> {
    let mut commits = Vec::new();
    each_commit(jetstream, &format!("floor.ev.*.{tournament}"), |c| commits.push(c)).await?;
    Ok(commits)
}

/// Hands every commit on `filter` to `take`, in stream order, from an ordered consumer (one
/// commit in memory at a time).
///
/// # Errors
/// The stream or its consumer could not be read.
pub async fn each_commit(jetstream: &async_nats::jetstream::Context, filter: &str, mut take: impl FnMut(LogCommit)) -> Result<u64, String> {
    let stream = jetstream.get_stream(subjects::EVENTS_STREAM).await.map_err(|e| format!("stream {}: {e}", subjects::EVENTS_STREAM))?;
    let mut consumer = stream
        .create_consumer(OrderedConfig { filter_subject: filter.to_owned(), ..Default::default() })
        .await
        .map_err(|e| format!("consumer: {e}"))?;
    let pending = consumer.info().await.map_err(|e| format!("consumer: {e}"))?.num_pending;
    if pending == 0 {
        return Ok(0);
    }
    let mut read = 0;
    let mut messages = consumer.messages().await.map_err(|e| format!("consumer: {e}"))?;
    while let Some(message) = tokio::time::timeout(std::time::Duration::from_secs(30), messages.next())
        .await
        .map_err(|_| format!("no commit in 30 s after {read} of {filter}"))?
    {
        let message = message.map_err(|e| format!("consumer: {e}"))?;
        let info = message.info().map_err(|e| format!("commit info: {e}"))?;
        let nanos = info.published.unix_timestamp_nanos();
        let time = chrono::DateTime::from_timestamp_nanos(i64::try_from(nanos).unwrap_or(i64::MAX));
        let last = info.pending == 0;
        let previous = message.headers.as_ref().and_then(|h| h.get(chain::HEADER)).map(|v| v.as_str().to_owned());
        take(LogCommit {
            subject: message.subject.to_string(),
            sequence: info.stream_sequence,
            time,
            body: message.payload.to_vec(),
            previous,
        });
        read += 1;
        if last {
            break;
        }
    }
    Ok(read)
}

/// The stream sequences FLOOR_EVENTS reports deleted (a Floor stream denies deletes, so any is
/// someone's doing): what tells a removed commit from an altered one.
///
/// # Errors
/// The stream's info could not be read.
pub async fn deleted(jetstream: &async_nats::jetstream::Context) -> Result<Vec<u64>, String> {
    #[derive(serde::Deserialize)]
    struct Info {
        state: State,
    }
    #[derive(serde::Deserialize)]
    struct State {
        #[serde(default)]
        deleted: Vec<u64>,
    }
    let subject = format!("STREAM.INFO.{}", subjects::EVENTS_STREAM);
    let reply: async_nats::jetstream::response::Response<Info> =
        jetstream.request(subject, &serde_json::json!({ "deleted_details": true })).await.map_err(|e| format!("stream info: {e}"))?;
    match reply {
        async_nats::jetstream::response::Response::Ok(info) => Ok(info.state.deleted),
        async_nats::jetstream::response::Response::Err { error } => Err(format!("stream info: {error}")),
    }
}

/// The audit of `commits` (`floor_audit::audit`).
pub fn report(commits: &[LogCommit]) -> Report {
    floor_audit::audit(commits)
}

/// The report of `commits` (with the stream's `deleted` sequences): its readable summary or its
/// JSON, and whether it is ok.
pub fn render(commits: &[LogCommit], deleted: &[u64], json: bool) -> (String, bool) {
    let report = floor_audit::audit_with(commits, deleted);
    let text = match json {
        true => serde_json::to_string_pretty(&report).expect("the report serializes") + "\n",
        false => report.summary(),
    };
    (text, report.ok)
}

/// Every chain of the whole stream, and the stored anchor recomputed (`floor status`).
#[derive(Debug, Serialize)]
pub struct StreamChains {
    /// Commits read.
    pub commits: u64,
    /// Commits carrying their predecessor's hash.
    pub chained: usize,
    /// Commits stored before chains (read as legacy, not verifiable).
    pub legacy: usize,
    /// Every break, gap, injected, altered, removed or reordered commit.
    pub differences: Vec<Difference>,
    /// The anchor stored in KV, if any, and whether the log still gives it.
    pub anchor: Option<AnchorCheck>,
}

/// The stored anchor against the log.
#[derive(Debug, Serialize)]
pub struct AnchorCheck {
    /// What KV holds.
    pub stored: Anchor,
    /// The running hash recomputed from the log up to the stored sequence.
    pub recomputed: Anchor,
    /// Whether they are the same.
    pub ok: bool,
}

/// Streams the whole of FLOOR_EVENTS through the chain verifier and the anchor's fold, and
/// compares the anchor stored in KV (`floor-checkpoints`, key `anchor`).
///
/// # Errors
/// The stream could not be read.
pub async fn stream_chains(jetstream: &async_nats::jetstream::Context) -> Result<StreamChains, String> {
    let stored = stored_anchor(jetstream).await;
    let mut verifier = Verifier::default();
    let mut running = Anchor::default();
    let mut at_stored = None;
    let commits = each_commit(jetstream, "floor.ev.>", |c| {
        let hash = verifier.push(&c.subject, c.sequence, c.previous.as_deref(), &c.body);
        running.step(c.sequence, &hash);
        if stored.as_ref().is_some_and(|s| s.sequence == c.sequence) {
            at_stored = Some(running.clone());
        }
    })
    .await?;
    let deleted = deleted(jetstream).await?;
    let Chains { chained, legacy, differences } = verifier.finish(&deleted);
    let anchor = stored.map(|stored| {
        let recomputed = at_stored.unwrap_or_else(|| running.clone());
        AnchorCheck { ok: recomputed == stored, stored, recomputed }
    });
    Ok(StreamChains { commits, chained, legacy, differences, anchor })
}

/// The anchor the platform stored last, if any.
pub async fn stored_anchor(jetstream: &async_nats::jetstream::Context) -> Option<Anchor> {
    let bucket = jetstream.get_key_value(subjects::CHECKPOINT_BUCKET).await.ok()?;
    let value = bucket.get(floor_runtime::store::anchor::ANCHOR_KEY).await.ok()??;
    serde_json::from_slice(&value).ok()
}

/// `--since`: a date (`2026-11-01`, midnight UTC) or an RFC 3339 time.
///
/// # Errors
/// Neither.
pub fn parse_since(text: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(date.and_hms_opt(0, 0, 0).expect("midnight").and_utc());
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.to_utc())
        .map_err(|e| format!("--since {text:?}: a date (2026-11-01) or an RFC 3339 time ({e})"))
}

/// Every tournament with a commit of its tournament aggregate stored at or after `since`, in
/// the order of its first such commit (read without bodies).
///
/// # Errors
/// The stream could not be read.
pub async fn tournaments_since(
    jetstream: &async_nats::jetstream::Context,
    since: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<uuid::Uuid>, String> {
    let stream = jetstream.get_stream(subjects::EVENTS_STREAM).await.map_err(|e| format!("stream {}: {e}", subjects::EVENTS_STREAM))?;
    let filter = format!("floor.ev.{}.*", subjects::aggregate::TOURNAMENT);
    let mut consumer = stream
        .create_consumer(OrderedConfig { filter_subject: filter, headers_only: true, ..Default::default() })
        .await
        .map_err(|e| format!("consumer: {e}"))?;
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    if consumer.info().await.map_err(|e| format!("consumer: {e}"))?.num_pending == 0 {
        return Ok(found);
    }
    let mut messages = consumer.messages().await.map_err(|e| format!("consumer: {e}"))?;
    while let Some(message) = tokio::time::timeout(std::time::Duration::from_secs(30), messages.next())
        .await
        .map_err(|_| "no tournament commit in 30 s".to_owned())?
    {
        let message = message.map_err(|e| format!("consumer: {e}"))?;
        let info = message.info().map_err(|e| format!("commit info: {e}"))?;
        let nanos = info.published.unix_timestamp_nanos();
        let time = chrono::DateTime::from_timestamp_nanos(i64::try_from(nanos).unwrap_or(i64::MAX));
        let last = info.pending == 0;
        if time >= since {
            if let Some(id) = message.subject.rsplit('.').next().and_then(|id| uuid::Uuid::parse_str(id).ok()) {
                if seen.insert(id) {
                    found.push(id);
                }
            }
        }
        if last {
            break;
        }
    }
    Ok(found)
}

/// `floor audit --all --since …`: every tournament of the period audited in turn (one log in
/// memory at a time), a line each on stdout (`<id>: ok (n commits, m legacy)`, or its summary
/// with every difference),
/// progress through `progress`; with `reports`, an HTML report per tournament in that
/// directory (`<id>.html`). Returns (tournaments audited, tournaments with differences).
///
/// # Errors
/// The stream could not be read, or a report not written.
pub async fn all_since(
    jetstream: &async_nats::jetstream::Context,
    since: chrono::DateTime<chrono::Utc>,
    json: bool,
    reports: Option<&std::path::Path>,
    mut out: impl FnMut(&str),
    progress: impl Fn(&str),
) -> Result<(usize, usize), String> {
    let tournaments = tournaments_since(jetstream, since).await?;
    let deleted = deleted(jetstream).await?;
    progress(&format!("{} tournament(s) with commits since {since}", tournaments.len()));
    let mut failed = 0;
    for (n, t) in tournaments.iter().enumerate() {
        let commits = read(jetstream, *t).await?;
        let report = floor_audit::audit_with(&commits, &deleted);
        failed += usize::from(!report.ok);
        progress(&format!(
            "[{}/{}] {t}: {} commits, {}",
            n + 1,
            tournaments.len(),
            report.commits,
            if report.ok { "ok" } else { "DIFFERENCES" }
        ));
        match json {
            true => out(&serde_json::json!({ "tournament": t, "report": report }).to_string()),
            false if report.ok => out(&format!("{t}: ok ({} commits, {} legacy)", report.commits, report.legacy)),
            false => out(&format!("{t}: {}", report.summary().trim_end())),
        }
        if let Some(dir) = reports {
            write_report(&dir.join(format!("{t}.html")), &t.to_string(), &commits, &report)?;
        }
    }
    Ok((tournaments.len(), failed))
}

/// Writes the HTML report of one tournament (`floor_audit::html`).
///
/// # Errors
/// The file could not be written.
pub fn write_report(path: &std::path::Path, tournament: &str, commits: &[LogCommit], report: &Report) -> Result<(), String> {
    std::fs::write(path, floor_audit::html::page(tournament, commits, report)).map_err(|e| format!("{}: {e}", path.display()))
}
