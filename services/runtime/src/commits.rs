//! Reading a commit the way every reader in a service must: decode it once into its
//! aggregate's events, and when it does not decode, say so with the reader, subject and
//! sequence, and go on with the next (one bad commit never stops a reader).

use floor_events::commit::Commit;

/// The commit stored on `subject` at `sequence`, decoded; `None`, logged, when it does not
/// decode. `reader` names who skips it (`rebuys`, `clock-policy`, …) in the log line.
pub fn decode(reader: &'static str, subject: &str, sequence: u64, body: &[u8]) -> Option<Commit> {
    match Commit::decode(subject, body) {
        Ok(commit) => Some(commit),
        Err(e) => {
            tracing::warn!(reader, subject, sequence, error = %e, "undecodable commit skipped");
            None
        }
    }
}
