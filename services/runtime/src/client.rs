//! The typed client for service-to-service commands: send a contract [`Verb`], get its reply
//! type back, or an error whose kind says whether trying again can help.
//!
//! A reply is `{"ok": …}` or `{"error": {"code", …}}`; a caller that only checked "did an answer
//! come" took `unavailable` for success (seating's eliminations were lost that way). Here a
//! rejection is an error of kind [`CommandErrorKind::Rejected`] carrying its code, and the codes
//! that mean "not now" (`unavailable`, `conflict`), silence and no responders are
//! [`CommandErrorKind::Unavailable`]: the caller retries with the same command id, which the
//! service answers once.

use crate::error::Error;
use floor_events::{codes, ErrorBody, Reply, Verb};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::time::Duration;

/// How long a command waits for its reply by default: long enough for a store under load, short
/// enough that a dead instance is noticed and the command sent again.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// What went wrong sending a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandErrorKind {
    /// The service answered with a rejection: a stable code, no event. Trying again gives the
    /// same answer.
    Rejected(ErrorBody),
    /// No answer (no responders, time-out, the connection) or an answer meaning "not now"
    /// (`unavailable`, `conflict`): the command may or may not be stored. Send it again with the
    /// same command id.
    Unavailable,
    /// The answer is not the verb's reply type: a version mismatch between services.
    BadReply,
}

impl std::fmt::Display for CommandErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Rejected(body) => write!(f, "rejected: {body}"),
            Self::Unavailable => f.write_str("service unavailable"),
            Self::BadReply => f.write_str("reply not understood"),
        }
    }
}

/// Error sending a command.
pub type CommandError = Error<CommandErrorKind>;

impl CommandError {
    /// The rejection's code, if the service rejected the command.
    pub fn code(&self) -> Option<&str> {
        match &self.kind_ref() {
            CommandErrorKind::Rejected(body) => Some(&body.code),
            _ => None,
        }
    }

    /// Whether sending the same command again can succeed.
    pub fn is_retryable(&self) -> bool {
        self.kind_ref() == &CommandErrorKind::Unavailable
    }
}

/// Sends commands to Floor's services. Cheap to clone.
#[derive(Clone)]
pub struct Commands {
    client: async_nats::Client,
    timeout: Duration,
}

impl Commands {
    /// A client on `client`, waiting [`DEFAULT_TIMEOUT`] for each reply.
    pub fn new(client: async_nats::Client) -> Self {
        Self { client, timeout: DEFAULT_TIMEOUT }
    }

    /// The same client, waiting `timeout` for each reply.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sends `request` to `verb` and returns its reply.
    ///
    /// # Errors
    /// `Rejected` with the service's code; `Unavailable` when nobody answered in time or the
    /// answer was `unavailable` or `conflict`; `BadReply` when the answer does not decode.
    pub async fn send<Req: Serialize, Rep: DeserializeOwned>(&self, verb: Verb<Req, Rep>, request: &Req) -> Result<Rep, CommandError> {
        // Requests are plain data; serializing them cannot fail.
        let payload = serde_json::to_vec(request).expect("request serializes");
        let unavailable = |e: String| CommandError::with_source(CommandErrorKind::Unavailable, format!("{verb}: {e}"));
        let message = match tokio::time::timeout(self.timeout, self.client.request(verb.subject(), payload.into())).await {
            Ok(Ok(message)) => message,
            Ok(Err(e)) => return Err(unavailable(e.to_string())),
            Err(_) => return Err(unavailable(format!("no answer within {:?}", self.timeout))),
        };
        match serde_json::from_slice::<Reply<Rep>>(&message.payload) {
            Ok(Reply::Ok(reply)) => Ok(reply),
            Ok(Reply::Error(body)) => Err(classify(body)),
            Err(e) => Err(CommandError::with_source(CommandErrorKind::BadReply, format!("{verb}: {e}"))),
        }
    }

    /// Sends `request` to `verb` until it is answered: no answer (or `unavailable`, `conflict`)
    /// is logged and tried again with the same request every `retry`. `None` when `shutdown`
    /// came first; otherwise the reply, or the error that trying again would not change (a
    /// rejection, a reply not understood).
    pub async fn send_until_answered<Req: Serialize, Rep: DeserializeOwned>(
        &self,
        verb: Verb<Req, Rep>,
        request: &Req,
        retry: Duration,
        shutdown: &tokio_util::sync::CancellationToken,
    ) -> Option<Result<Rep, CommandError>> {
        loop {
            match self.send(verb, request).await {
                Err(e) if e.is_retryable() => {
                    tracing::warn!(error = %e, "command not answered; trying again");
                    tokio::select! {
                        _ = shutdown.cancelled() => return None,
                        _ = tokio::time::sleep(retry) => {}
                    }
                }
                answered => return Some(answered),
            }
        }
    }
}

/// Whether an error code says "not now" (the service could not decide; the same command id may
/// succeed later) rather than "no".
pub fn is_retryable_code(code: &str) -> bool {
    code == codes::UNAVAILABLE || code == codes::CONFLICT
}

/// A rejection, or "not now" for the codes that say the service could not decide.
pub fn classify(body: ErrorBody) -> CommandError {
    if is_retryable_code(&body.code) {
        CommandError::with_source(CommandErrorKind::Unavailable, body)
    } else {
        CommandError::new(CommandErrorKind::Rejected(body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unavailable_and_conflict_are_worth_retrying_and_rejections_are_not() {
        let unavailable = classify(ErrorBody::new(codes::UNAVAILABLE, "store down"));
        assert!(unavailable.is_retryable());
        assert_eq!(unavailable.code(), None);
        assert!(classify(ErrorBody::new(codes::CONFLICT, "busy")).is_retryable());
        let rejected = classify(ErrorBody::new(codes::ENTRY_ALREADY_ELIMINATED, "out"));
        assert!(!rejected.is_retryable());
        assert_eq!(rejected.code(), Some(codes::ENTRY_ALREADY_ELIMINATED));
    }
}
