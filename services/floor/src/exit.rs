//! Exit codes of `floor`, so scripts can tell a rejection from an outage.

use std::process::ExitCode;

/// Why `floor` stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done.
    Success = 0,
    /// The platform rejected the command (the error code is printed); for `floor table-check`,
    /// the table server broke a rule.
    Rejected = 1,
    /// Bad arguments or an unreadable file.
    Usage = 2,
    /// NATS or the platform could not be reached or started; for `floor run`, also when another
    /// `floor run` holds the data directory (the one line printed names its pid).
    Unavailable = 3,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e as u8)
    }
}
