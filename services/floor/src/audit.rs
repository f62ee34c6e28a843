//! `floor audit <tournament>` and `floor export <tournament>` (issue 42): read every commit of one
//! tournament from FLOOR_EVENTS (every subject `floor.ev.*.<tournament>`) in stream order, and
//! hand them to `floor-audit`, the independent replayer. docs/audit.md says what it checks.

use async_nats::jetstream::consumer::pull::OrderedConfig;
pub use floor_audit::{Check, Difference, LogCommit, Report};
use floor_events::subjects;
use futures::StreamExt;

/// Every commit of `tournament`, in stream order, with its sequence and time.
///
/// # Errors
/// The stream or its consumer could not be read.
pub async fn read(jetstream: &async_nats::jetstream::Context, tournament: uuid::Uuid) -> Result<Vec<LogCommit>, String> {
    let stream = jetstream.get_stream(subjects::EVENTS_STREAM).await.map_err(|e| format!("stream {}: {e}", subjects::EVENTS_STREAM))?;
    let mut consumer = stream
        .create_consumer(OrderedConfig { filter_subject: format!("floor.ev.*.{tournament}"), ..Default::default() })
        .await
        .map_err(|e| format!("consumer: {e}"))?;
    let pending = consumer.info().await.map_err(|e| format!("consumer: {e}"))?.num_pending;
    let mut commits = Vec::with_capacity(pending as usize);
    if pending == 0 {
        return Ok(commits);
    }
    let mut messages = consumer.messages().await.map_err(|e| format!("consumer: {e}"))?;
    while let Some(message) = tokio::time::timeout(std::time::Duration::from_secs(30), messages.next())
        .await
        .map_err(|_| format!("no commit in 30 s after {} of {tournament}", commits.len()))?
    {
        let message = message.map_err(|e| format!("consumer: {e}"))?;
        let info = message.info().map_err(|e| format!("commit info: {e}"))?;
        let nanos = info.published.unix_timestamp_nanos();
        let time = chrono::DateTime::from_timestamp_nanos(i64::try_from(nanos).unwrap_or(i64::MAX));
        let last = info.pending == 0;
        commits.push(LogCommit {
            subject: message.subject.to_string(),
            sequence: info.stream_sequence,
            time,
            body: message.payload.to_vec(),
        });
        if last {
            break;
        }
    }
    Ok(commits)
}

/// The audit of `commits` (`floor_audit::audit`).
pub fn report(commits: &[LogCommit]) -> Report {
    floor_audit::audit(commits)
}

/// The report of `commits`: its readable summary or its JSON, and whether it is ok.
pub fn render(commits: &[LogCommit], json: bool) -> (String, bool) {
    let report = floor_audit::audit(commits);
    let text = match json {
        true => serde_json::to_string_pretty(&report).expect("the report serializes") + "\n",
        false => report.summary(),
    };
    (text, report.ok)
}
