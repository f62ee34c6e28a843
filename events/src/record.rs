//! How events are stored: one commit (NATS message) per command, holding the JSON array of the
//! events it produced, each tagged with its type and schema version:
//!
//! ```json
//! [{"v":1,"type":"entry_registered","entry":3,"player":"alice", "...": "..."}]
//! ```
//!
//! Old shapes are upcast here, on read, and never rewritten; domain code only knows the current
//! shape.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The schema version this build writes.
pub const CURRENT_VERSION: u16 = 1;

/// One stored event: its schema version and the event itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord<E> {
    /// Schema version of `event`.
    pub v: u16,
    /// The event, tagged by `type`.
    #[serde(flatten)]
    pub event: E,
}

/// Why a stored commit could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The bytes are not a commit of this aggregate's events.
    #[error("undecodable commit: {0}")]
    Decode(#[from] serde_json::Error),
    /// Written by a newer Floor than this one.
    #[error("event schema version {0} is newer than this build understands ({CURRENT_VERSION}); upgrade Floor")]
    TooNew(u16),
}

/// Encodes the events of one command as a commit body.
pub fn encode_commit<E: Serialize>(events: &[E]) -> Vec<u8> {
    #[derive(Serialize)]
    struct Ref<'a, E> {
        v: u16,
        #[serde(flatten)]
        event: &'a E,
    }
    let records: Vec<Ref<'_, E>> = events.iter().map(|event| Ref { v: CURRENT_VERSION, event }).collect();
    // Serializing plain data to a Vec cannot fail.
    serde_json::to_vec(&records).expect("events serialize")
}

/// Decodes a commit body into current-shape events, upcasting older versions.
///
/// Each event is read straight into `E`, which ignores the `v` beside its tag. (Reading through
/// [`EventRecord`], whose `flatten` buffers every field once more before the tagged enum buffers
/// them again, made decoding the larger part of every projection's fold.) The version is read
/// from the `{"v":N,` this module writes first, or from the whole object when a writer put it
/// elsewhere.
///
/// # Errors
/// [`RecordError`] when the body is not a commit or comes from a newer schema.
pub fn decode_commit<E: DeserializeOwned>(body: &[u8]) -> Result<Vec<E>, RecordError> {
    let records: Vec<&serde_json::value::RawValue> = serde_json::from_slice(body)?;
    records
        .into_iter()
        .map(|record| match version(record.get())? {
            // Version 1 is the only shape so far; an upcast arm goes here when version 2 arrives.
            1 => Ok(serde_json::from_str(record.get())?),
            v => Err(RecordError::TooNew(v)),
        })
        .collect()
}

/// The `v` of one stored event.
fn version(record: &str) -> Result<u16, serde_json::Error> {
    #[derive(Deserialize)]
    struct Version {
        v: u16,
    }
    if let Some(digits) = record.strip_prefix(r#"{"v":"#).and_then(|rest| rest.split_once(',')).map(|(v, _)| v) {
        if let Ok(v) = digits.parse() {
            return Ok(v);
        }
    }
    Ok(serde_json::from_str::<Version>(record)?.v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Ev {
        Happened { n: u32 },
    }

    #[test]
    fn commits_round_trip_and_carry_their_version() {
        let body = encode_commit(&[Ev::Happened { n: 1 }, Ev::Happened { n: 2 }]);
        assert_eq!(std::str::from_utf8(&body).unwrap(), r#"[{"v":1,"type":"happened","n":1},{"v":1,"type":"happened","n":2}]"#);
        assert_eq!(decode_commit::<Ev>(&body).unwrap(), vec![Ev::Happened { n: 1 }, Ev::Happened { n: 2 }]);
    }

    #[test]
    fn a_newer_schema_is_refused_not_misread() {
        let err = decode_commit::<Ev>(br#"[{"v":9,"type":"happened","n":1}]"#).unwrap_err();
        assert!(matches!(err, RecordError::TooNew(9)));
        let err = decode_commit::<Ev>(br#"[{"type":"happened","n":1,"v":12}]"#).unwrap_err();
        assert!(matches!(err, RecordError::TooNew(12)), "the version wherever it stands");
    }

    #[test]
    fn the_version_is_read_wherever_it_stands_and_is_required() {
        let moved = br#"[{"type":"happened","n":1,"v":1}, {"n":2, "v" : 1, "type":"happened"}]"#;
        assert_eq!(decode_commit::<Ev>(moved).unwrap(), vec![Ev::Happened { n: 1 }, Ev::Happened { n: 2 }]);
        assert!(matches!(decode_commit::<Ev>(br#"[{"type":"happened","n":1}]"#), Err(RecordError::Decode(_))), "no version");
        assert!(matches!(decode_commit::<Ev>(br#"[{"v":1,"type":"other"}]"#), Err(RecordError::Decode(_))), "unknown type");
        assert!(matches!(decode_commit::<Ev>(br#"{"v":1,"type":"happened","n":1}"#), Err(RecordError::Decode(_))), "not an array");
        assert!(decode_commit::<Ev>(b"[]").unwrap().is_empty());
    }
}
