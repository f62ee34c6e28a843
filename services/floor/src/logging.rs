//! Where `floor` logs, and in what shape (issue 40): human lines on stderr by default, or one
//! JSON object per line with `FLOOR_LOG_FORMAT=json`, for journald, a container runtime or a
//! log shipper. A line logged while a command is handled carries the command's span: its
//! service, verb, `command_id` and `tournament_id` ([`floor_runtime::endpoint`]).
//!
//! ```text
//! {"timestamp":"…","level":"WARN","message":"reply not sent","service":"seating","verb":"report","error":"…",
//!  "target":"floor_runtime::endpoint","span":{"command_id":"…","service":"seating","tournament_id":"…","verb":"report","name":"command"}}
//! ```

use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::EnvFilter;

/// The variable naming the format.
pub const FORMAT_VAR: &str = "FLOOR_LOG_FORMAT";

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// tracing's human lines (the default).
    Text,
    /// One JSON object per line: the event's fields flattened, the innermost span's under `span`.
    Json,
}

impl Format {
    /// The format `FLOOR_LOG_FORMAT` names: unset or empty is text.
    ///
    /// # Errors
    /// Anything but `text` or `json` (any case), naming the variable.
    pub fn parse(value: Option<&str>) -> Result<Self, String> {
        match value.map(str::trim).unwrap_or_default().to_ascii_lowercase().as_str() {
            "" | "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            other => Err(format!("{FORMAT_VAR}={other:?}: text or json")),
        }
    }
}

/// Installs the process's subscriber: `filter` (FLOOR_LOG's directives) in `format`, to `writer`.
pub fn init<W>(format: Format, filter: EnvFilter, writer: W)
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer);
    match format {
        Format::Text => builder.init(),
        Format::Json => builder.json().flatten_event(true).with_current_span(true).with_span_list(false).init(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn the_format_is_text_unless_json_is_asked_and_anything_else_is_refused() {
        assert_eq!(Format::parse(None), Ok(Format::Text));
        assert_eq!(Format::parse(Some("")), Ok(Format::Text));
        assert_eq!(Format::parse(Some("text")), Ok(Format::Text));
        assert_eq!(Format::parse(Some(" JSON ")), Ok(Format::Json));
        let refused = Format::parse(Some("xml")).expect_err("xml");
        assert!(refused.contains("FLOOR_LOG_FORMAT") && refused.contains("xml"), "{refused}");
    }

    /// Lines written into a buffer the test reads.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("buffer").extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_json_line_is_one_object_with_the_events_fields_and_the_commands_ids() {
        let buffer = Buffer::default();
        let writer = buffer.clone();
        // The process-wide subscriber is installed once per test binary: this test is its only user.
        init(Format::Json, EnvFilter::new("info"), move || writer.clone());
        let (command_id, tournament_id) = ("0190f0a0-0000-7000-8000-000000000001", "0190f0a0-0000-7000-8000-000000000002");
        tracing::info_span!("command", service = "seating", verb = "report", command_id, tournament_id).in_scope(|| {
            tracing::warn!(table = 4, "reply not sent");
        });
        tracing::info!("outside any command");

        let text = String::from_utf8(buffer.0.lock().expect("buffer").clone()).expect("utf-8");
        let lines: Vec<serde_json::Value> =
            text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not one JSON object ({e}): {l}"))).collect();
        assert_eq!(lines.len(), 2, "{text}");
        let (inside, outside) = (&lines[0], &lines[1]);
        assert_eq!((&inside["level"], &inside["message"], &inside["table"]), (&"WARN".into(), &"reply not sent".into(), &4.into()));
        assert_eq!(inside["span"]["command_id"], command_id);
        assert_eq!(inside["span"]["tournament_id"], tournament_id);
        assert_eq!(inside["span"]["verb"], "report");
        assert!(outside.get("span").is_none(), "no command, no span: {outside}");
        assert!(inside["timestamp"].is_string());
    }
}
