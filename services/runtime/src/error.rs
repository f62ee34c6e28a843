//! `Error<Kind>`: an error with a kind the caller matches on, and an optional source.
//!
//! Conditions handled in normal operation (a conflict, a server too old) are kinds, never an
//! opaque "other", so callers decide by `kind()` and never by message text.

use std::fmt;

/// An error of kind `K`, with the lower-level error that caused it.
pub struct Error<K> {
    kind: K,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl<K: Clone> Error<K> {
    /// An error of this kind, with no source.
    pub fn new(kind: K) -> Self {
        Self { kind, source: None }
    }

    /// An error of this kind caused by `source`.
    pub fn with_source<S>(kind: K, source: S) -> Self
    where
        S: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    {
        Self { kind, source: Some(source.into()) }
    }

    /// What went wrong, to match on.
    pub fn kind(&self) -> K {
        self.kind.clone()
    }

    /// What went wrong, borrowed (for kinds that carry data).
    pub fn kind_ref(&self) -> &K {
        &self.kind
    }
}

impl<K: fmt::Display> fmt::Display for Error<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(source) => write!(f, "{}: {}", self.kind, source),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl<K: fmt::Debug> fmt::Debug for Error<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error").field("kind", &self.kind).field("source", &self.source).finish()
    }
}

impl<K: fmt::Debug + fmt::Display> std::error::Error for Error<K> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|s| &**s as &(dyn std::error::Error + 'static))
    }
}
