//! A stored commit as every reader in a service takes it: subject, sequence, the server's time,
//! the body, and its typed decode, made once per process however many readers read it (the
//! first reader that asks decodes it, the others share the result: [`Delivered::commit`]).
//! A commit that does not decode is logged with the reader, subject and sequence, and the
//! reader goes on with the next (one bad commit never stops a reader).

use crate::tail::Delivered;
use chrono::{DateTime, Utc};
use floor_events::commit::Commit;

/// One stored commit as a view or a policy reads it.
#[derive(Clone, Copy)]
pub struct Stored<'a> {
    /// `floor.ev.<aggregate>.<id>` (or a table's report subject, on the tables stream).
    pub subject: &'a str,
    /// Its stream sequence.
    pub sequence: u64,
    /// When the store took it (the server's time: the same at every read).
    pub at: DateTime<Utc>,
    /// The commit's body.
    pub body: &'a [u8],
    delivered: &'a Delivered,
}

impl<'a> Stored<'a> {
    /// The commit a follow or the tail handed out.
    pub fn of(delivered: &'a Delivered) -> Self {
        Self {
            subject: delivered.subject.as_str(),
            sequence: delivered.sequence(),
            at: delivered.at(),
            body: &delivered.payload,
            delivered,
        }
    }

    /// Whether it is a readable commit (checked once for the whole process:
    /// [`Delivered::readable`]).
    ///
    /// # Errors
    /// Why it is not.
    pub fn readable(&self) -> Result<(), &'a str> {
        self.delivered.readable()
    }

    /// Its events, typed by aggregate, decoded once for the whole process; `None`, logged, when
    /// it does not decode. `reader` names who skips it (`rebuys`, `clock-policy`, …) in the log
    /// line.
    pub fn commit(&self, reader: &'static str) -> Option<&'a Commit> {
        match self.delivered.commit() {
            Ok(commit) => Some(commit),
            Err(error) => {
                tracing::warn!(reader, subject = self.subject, sequence = self.sequence, error, "undecodable commit skipped");
                None
            }
        }
    }
}

impl std::fmt::Debug for Stored<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stored")
            .field("subject", &self.subject)
            .field("sequence", &self.sequence)
            .field("at", &self.at)
            .field("bytes", &self.body.len())
            .finish()
    }
}
