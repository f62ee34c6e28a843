//! The reply envelope of every command: `{"ok": …}` or `{"error": {"code": …, "message": …}}`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A command's reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reply<T> {
    /// The command was accepted; its events are durable.
    Ok(T),
    /// The command was rejected or failed; `code` says why.
    Error(ErrorBody),
}

/// Why a command was not applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    /// A stable code from [`crate::codes`].
    pub code: String,
    /// A human explanation; may change between versions.
    pub message: String,
}

impl ErrorBody {
    /// An error body with the given stable code and explanation.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self { code: code.to_owned(), message: message.into() }
    }
}

impl<T> Reply<T> {
    /// Turns the reply into a `Result`, for clients.
    pub fn into_result(self) -> Result<T, ErrorBody> {
        match self {
            Reply::Ok(value) => Ok(value),
            Reply::Error(error) => Err(error),
        }
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ErrorBody {}
