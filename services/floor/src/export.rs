//! `floor export <tournament>` (issue 42): a tournament's commits as JSON lines, one commit a
//! line — `{"schema_version":1,"subject":"floor.ev.<aggregate>.<id>","sequence":…,"time":…,"body":[…]}`
//! — which `floor audit --file` audits without a running platform.
//!
//! Not yet: the audit report and the commits' hashes in the same archive (tamper evidence is
//! issue 42's second part; docs/audit.md).

use floor_audit::LogCommit;
use serde::{Deserialize, Serialize};

/// One exported line.
#[derive(Debug, Serialize, Deserialize)]
pub struct Line {
    /// The event schema version of the Floor that exported it (`floor_events::record::CURRENT_VERSION`).
    pub schema_version: u16,
    /// `floor.ev.<aggregate>.<id>`.
    pub subject: String,
    /// The stream sequence.
    pub sequence: u64,
    /// When the stream stored it.
    pub time: chrono::DateTime<chrono::Utc>,
    /// The commit's body: its JSON array of events.
    pub body: serde_json::Value,
}

/// The JSON lines of `commits`, each ending with a newline.
pub fn to_lines(commits: &[LogCommit]) -> String {
    let mut out = String::new();
    for c in commits {
        // A body that is not JSON is exported as a string (the audit reports it undecodable).
        let body =
            serde_json::from_slice(&c.body).unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(&c.body).into_owned()));
        let line = Line {
            schema_version: floor_events::record::CURRENT_VERSION,
            subject: c.subject.clone(),
            sequence: c.sequence,
            time: c.time,
            body,
        };
        out.push_str(&serde_json::to_string(&line).expect("a line serializes"));
        out.push('\n');
    }
    out
}

/// The commits of an export; an error names the line that does not parse.
pub fn from_lines(text: &str) -> Result<Vec<LogCommit>, String> {
    let mut commits = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line: Line = serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let body = match line.body {
            serde_json::Value::String(s) => s.into_bytes(),
            json => serde_json::to_vec(&json).expect("JSON serializes"),
        };
        commits.push(LogCommit { subject: line.subject, sequence: line.sequence, time: line.time, body });
    }
    Ok(commits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_reads_back_as_it_was_written() {
        let commits = vec![LogCommit {
            subject: format!("floor.ev.payouts.{}", uuid::Uuid::new_v4()),
            sequence: 7,
            time: chrono::Utc::now(),
            body: br#"[{"v":1,"type":"tournament_paid","prizes_paid":{"amount":300,"currency":"EUR"}}]"#.to_vec(),
        }];
        let back = from_lines(&to_lines(&commits)).unwrap();
        assert_eq!(back[0].sequence, 7);
        assert_eq!(back[0].subject, commits[0].subject);
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&back[0].body).unwrap(),
            serde_json::from_slice::<serde_json::Value>(&commits[0].body).unwrap()
        );
        assert!(from_lines("{}\n").unwrap_err().starts_with("line 1"));
    }
}
