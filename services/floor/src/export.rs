//! `floor export <tournament>` (issue 42): a tournament's commits as JSON lines, one commit a
//! line — `{"schema_version":1,"subject":"floor.ev.<aggregate>.<id>","sequence":…,"time":…,"previous":"<hash>","body":[…]}`
//! — which `floor audit --file` audits without a running platform, hash chains included.
//!
//! `body` is the last field and holds the commit's body byte for byte as stored (it is JSON),
//! so its hash can be recomputed from the export; `previous` is the hash it carries
//! (`Floor-Prev-Hash`, absent for a legacy commit). A line whose body is not where it was
//! written (a line re-serialized by a tool that sorts keys) is read through its JSON, and its
//! chain then says so.

use floor_audit::LogCommit;
use serde::{Deserialize, Serialize};

/// One exported line, but its body.
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
    /// The hash of its aggregate's previous commit it carries; `None` for a legacy commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

/// Where a line's own body starts: its last field.
const BODY: &str = ",\"body\":";

/// The JSON lines of `commits`, each ending with a newline.
pub fn to_lines(commits: &[LogCommit]) -> String {
    let mut out = String::new();
    for c in commits {
        let line = Line {
            schema_version: floor_events::record::CURRENT_VERSION,
            subject: c.subject.clone(),
            sequence: c.sequence,
            time: c.time,
            previous: c.previous.clone(),
        };
        let head = serde_json::to_string(&line).expect("a line serializes");
        out.push_str(head.strip_suffix('}').expect("an object"));
        out.push_str(BODY);
        // The body as stored when it is JSON (as every commit is); otherwise as a string (the
        // audit reports it undecodable, and its hash differs).
        match std::str::from_utf8(&c.body).ok().filter(|text| serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()) {
            Some(text) if !text.contains('\n') => out.push_str(text),
            _ => out.push_str(&serde_json::to_string(&String::from_utf8_lossy(&c.body)).expect("a string serializes")),
        }
        out.push_str("}\n");
    }
    out
}

/// The commits of an export; an error names the line that does not parse.
pub fn from_lines(text: &str) -> Result<Vec<LogCommit>, String> {
    let mut commits = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = |e: serde_json::Error| format!("line {}: {e}", n + 1);
        let json: serde_json::Value = serde_json::from_str(line).map_err(at)?;
        let head: Line = serde_json::from_value(json.clone()).map_err(at)?;
        // The first `,"body":` outside a string (a string's quotes are escaped) is the key.
        let raw = line.find(BODY).map(|i| line[i + BODY.len()..].trim_end()).and_then(|rest| rest.strip_suffix('}'));
        let body = match (raw, json.get("body")) {
            (Some(raw), Some(value)) if serde_json::from_str::<serde_json::Value>(raw).ok().as_ref() == Some(value) => match value {
                serde_json::Value::String(s) => s.clone().into_bytes(),
                _ => raw.as_bytes().to_vec(),
            },
            (_, Some(serde_json::Value::String(s))) => s.clone().into_bytes(),
            (_, Some(value)) => serde_json::to_vec(value).expect("JSON serializes"),
            (_, None) => return Err(format!("line {}: no body", n + 1)),
        };
        commits.push(LogCommit { subject: head.subject, sequence: head.sequence, time: head.time, body, previous: head.previous });
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
            body: br#"[{"v":1,"type":"tournament_paid","prizes_paid":{"currency":"EUR","amount":300}}]"#.to_vec(),
            previous: Some(floor_audit::chain::GENESIS.to_owned()),
        }];
        let back = from_lines(&to_lines(&commits)).unwrap();
        assert_eq!(back[0].sequence, 7);
        assert_eq!(back[0].subject, commits[0].subject);
        assert_eq!(back[0].body, commits[0].body, "byte for byte, keys in their stored order");
        assert_eq!(back[0].previous, commits[0].previous);
        assert!(floor_audit::audit(&back).checks[0].ok, "its chain holds");
        assert!(from_lines("{}\n").unwrap_err().starts_with("line 1"));
        // A line re-serialized (keys sorted: the body first) reads through its JSON.
        let sorted: serde_json::Value = serde_json::from_str(to_lines(&commits).trim()).unwrap();
        let back = from_lines(&serde_json::to_string(&sorted).unwrap()).unwrap();
        assert_eq!(serde_json::from_slice::<serde_json::Value>(&back[0].body).unwrap()[0]["prizes_paid"]["amount"], 300);
    }
}
