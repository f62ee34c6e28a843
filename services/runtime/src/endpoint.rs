//! Command endpoints: request/reply on `floor.cmd.<service>.<verb>`, served with the NATS
//! micro-services API (so `$SRV.PING|INFO|STATS` work) in the service's queue group, so
//! instances scale out.
//!
//! Every reply is `{"ok": …}` or `{"error": {"code", "message"}}`. Decoding a request maps each
//! kind of bad input to its own code: broken JSON → `malformed_json`, a missing or mistyped field
//! → `invalid_field`, a negative amount → `negative_amount`. A bad request never reaches the
//! domain, so it never writes an event.

use crate::error::Error;
use async_nats::service::ServiceExt;
use bytes::Bytes;
use floor_events::money::NEGATIVE_AMOUNT_MARK;
use floor_events::registry::{self, ServiceInfo};
use floor_events::{codes, subjects, ErrorBody, Reply, Verb};
use futures::future::BoxFuture;
use futures::StreamExt;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::Arc;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Requests handled at once per service instance; more wait in NATS's buffers. Bounds memory
/// under a burst while keeping every aggregate's queue fed.
const IN_FLIGHT: usize = 8_192;

/// What went wrong starting an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointErrorKind {
    /// The service or an endpoint could not be registered with NATS.
    Register,
    /// The handlers differ from the service's verbs in the registry.
    Undeclared,
}

impl std::fmt::Display for EndpointErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Register => "cannot register the command endpoint",
            Self::Undeclared => "the handlers differ from the registry",
        })
    }
}

/// Error starting an endpoint.
pub type EndpointError = Error<EndpointErrorKind>;

/// Decodes a request body, mapping each kind of bad input to its stable code.
///
/// # Errors
/// `malformed_json`, `negative_amount` or `invalid_field`.
pub fn decode<T: DeserializeOwned>(payload: &[u8]) -> Result<T, ErrorBody> {
    serde_json::from_slice(payload).map_err(|e| {
        use serde_json::error::Category;
        let code = match e.classify() {
            Category::Syntax | Category::Eof | Category::Io => codes::MALFORMED_JSON,
            Category::Data if e.to_string().contains(NEGATIVE_AMOUNT_MARK) => codes::NEGATIVE_AMOUNT,
            Category::Data => codes::INVALID_FIELD,
        };
        ErrorBody::new(code, e.to_string())
    })
}

/// Encodes a reply.
pub fn encode<T: Serialize>(reply: &Reply<T>) -> Bytes {
    // Replies are plain data; serializing them cannot fail.
    serde_json::to_vec(reply).expect("reply serializes").into()
}

/// A boxed handler: the shared service state and the request body in, the encoded reply out.
type Handler<S> = Arc<dyn Fn(S, Bytes) -> BoxFuture<'static, Bytes> + Send + Sync>;

/// A service's verbs and what handles each: declared once, served by [`Verbs::serve`].
///
/// Each verb is the typed [`Verb`] from the contract: the endpoint decodes its request type
/// (bad input gets its code and never reaches the handler) and encodes its reply type, so a
/// handler is plain `async fn(state, Request) -> Reply<Response>`.
///
/// ```no_run
/// # use floor_runtime::endpoint::Verbs;
/// # use floor_events::{payouts::{verbs, Books, BooksRequest}, Reply, ErrorBody};
/// # #[derive(Clone)] struct Payouts;
/// # impl Payouts { async fn books(&self, _: BooksRequest) -> Reply<Books> { Reply::Error(ErrorBody::new("unavailable", "")) } }
/// let verbs = Verbs::new("payouts").verb(verbs::BOOKS, |payouts: Payouts, request| async move { payouts.books(request).await });
/// ```
pub struct Verbs<S> {
    service: &'static str,
    handlers: HashMap<&'static str, Handler<S>>,
}

impl<S: Clone + Send + Sync + 'static> Verbs<S> {
    /// No verbs yet, for `service` (a name in [`floor_events::registry`]).
    pub fn new(service: &'static str) -> Self {
        Self { service, handlers: HashMap::new() }
    }

    /// Handles `verb` with `handler`.
    ///
    /// # Panics
    /// When `verb` belongs to another service, or is handled twice: a wiring mistake, caught by
    /// the first test that builds the service.
    pub fn verb<Req, Rep, F, Fut>(mut self, verb: Verb<Req, Rep>, handler: F) -> Self
    where
        Req: DeserializeOwned + Send + 'static,
        Rep: Serialize + 'static,
        F: Fn(S, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Reply<Rep>> + Send + 'static,
    {
        assert_eq!(verb.service(), self.service, "{verb} handled by the {} service", self.service);
        let handler = Arc::new(handler);
        let boxed: Handler<S> = Arc::new(move |state: S, payload: Bytes| {
            let handler = handler.clone();
            Box::pin(async move {
                match decode::<Req>(&payload) {
                    Ok(request) => encode(&handler(state, request).await),
                    Err(e) => encode::<()>(&Reply::Error(e)),
                }
            })
        });
        let previous = self.handlers.insert(verb.name(), boxed);
        assert!(previous.is_none(), "{verb} handled twice");
        self
    }

    /// The service these verbs belong to.
    pub fn service(&self) -> &'static str {
        self.service
    }

    /// No verb at all: a service that only reacts has no endpoint to serve.
    pub fn is_empty(&self) -> bool {
        self.handlers.is_empty()
    }

    /// The reply to `payload` sent to `verb`: the handler's, or `unknown_verb`.
    pub async fn handle(&self, state: S, verb: &str, payload: Bytes) -> Bytes {
        match self.handlers.get(verb) {
            Some(handler) => handler(state, payload).await,
            None => encode::<()>(&Reply::Error(ErrorBody::new(codes::UNKNOWN_VERB, format!("no verb {verb:?} in {}", self.service)))),
        }
    }

    /// Checks the handlers against the registry: every verb it lists is handled, and no other.
    ///
    /// # Errors
    /// `Undeclared` naming the difference.
    pub fn check(&self) -> Result<ServiceInfo, EndpointError> {
        let undeclared = |what: String| EndpointError::with_source(EndpointErrorKind::Undeclared, what);
        let info = registry::service(self.service).ok_or_else(|| undeclared(format!("no service {:?} in the registry", self.service)))?;
        let declared: HashSet<&str> = info.verbs.iter().map(|v| v.name).collect();
        let handled: HashSet<&str> = self.handlers.keys().copied().collect();
        if declared != handled {
            let mut missing: Vec<_> = declared.difference(&handled).collect();
            let mut extra: Vec<_> = handled.difference(&declared).collect();
            missing.sort();
            extra.sort();
            return Err(undeclared(format!("{}: verbs without a handler {missing:?}, handlers without a verb {extra:?}", self.service)));
        }
        Ok(info)
    }

    /// Serves every verb for `state` until `shutdown`, then stops taking requests and waits for
    /// those in flight to be answered. `ready` fires once every endpoint is subscribed on the
    /// server.
    ///
    /// Served with the NATS micro-services API (`$SRV.PING|INFO|STATS`) as `floor-<service>`, in
    /// the queue group `floor-<service>` so instances share the load.
    ///
    /// # Errors
    /// `Undeclared` if the handlers differ from the registry's verbs; `Register` if NATS refuses
    /// the service or an endpoint.
    pub async fn serve(
        self,
        state: S,
        client: async_nats::Client,
        shutdown: CancellationToken,
        ready: Option<tokio::sync::oneshot::Sender<()>>,
    ) -> Result<(), EndpointError> {
        let info = self.check()?;
        let service = self.service;
        let register = |e| EndpointError::with_source(EndpointErrorKind::Register, e);
        let nats_service = client
            .service_builder()
            .description(info.description)
            .queue_group(format!("floor-{service}"))
            .start(format!("floor-{service}"), env!("CARGO_PKG_VERSION"))
            .await
            .map_err(register)?;
        let group = nats_service.group(format!("{}.{service}", subjects::COMMAND_PREFIX));
        let mut endpoints = Vec::with_capacity(info.verbs.len());
        for verb in info.verb_names() {
            let endpoint = group.endpoint(verb).await.map_err(register)?;
            endpoints.push(endpoint.map(move |request| (verb, request)).boxed());
        }
        let mut requests = futures::stream::select_all(endpoints);
        // Ready only once the server has the subscriptions (a flush is not a round trip).
        crate::bootstrap::sync_with_server(&client).await.map_err(|e| EndpointError::with_source(EndpointErrorKind::Register, e))?;
        if let Some(ready) = ready {
            let _ = ready.send(());
        }
        let verbs = Arc::new(self);
        let in_flight = Arc::new(Semaphore::new(IN_FLIGHT));
        let tracker = TaskTracker::new();
        loop {
            let (verb, request) = tokio::select! {
                _ = shutdown.cancelled() => break,
                next = requests.next() => match next { Some(next) => next, None => break },
            };
            let Ok(permit) = in_flight.clone().acquire_owned().await else { break };
            let (verbs, state) = (verbs.clone(), state.clone());
            let payload = request.message.payload.clone();
            // Every line logged while it is handled names the command (issue 40: FLOOR_LOG_FORMAT=json).
            let ids = CommandIds::of(&payload);
            let span = tracing::info_span!(
                "command",
                service,
                verb,
                command_id = ids.command_id.as_deref(),
                tournament_id = ids.tournament_id.as_deref()
            );
            tracker.spawn(tracing::Instrument::instrument(
                async move {
                    // Every command the handler executes is bound to what this caller sent
                    // (`command_id_reused` for an id stored before for another request).
                    let reply = crate::host::serving_request(service, verb, payload.clone(), verbs.handle(state, verb, payload)).await;
                    if let Err(e) = request.respond(Ok(reply)).await {
                        tracing::warn!(service, verb, error = %e, "reply not sent");
                    }
                    drop(permit);
                },
                span,
            ));
        }
        drop(requests);
        let _ = nats_service.stop().await;
        tracker.close();
        tracker.wait().await;
        Ok(())
    }
}

/// The ids a request names at its top level, for its log span; none when it names none (or is
/// not JSON: the handler answers that).
#[derive(Debug, Default, PartialEq, Eq, serde::Deserialize)]
struct CommandIds {
    #[serde(default)]
    command_id: Option<String>,
    #[serde(default)]
    tournament_id: Option<String>,
}

impl CommandIds {
    fn of(payload: &[u8]) -> Self {
        serde_json::from_slice(payload).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::payouts::{verbs, Books, BooksRequest};

    #[derive(Clone)]
    struct Payouts;

    async fn books(_: Payouts, _: BooksRequest) -> Reply<Books> {
        Reply::Error(ErrorBody::new(codes::UNAVAILABLE, "not yet"))
    }

    async fn not_yet<Request, Answer>(_: Payouts, _: Request) -> Reply<Answer> {
        Reply::Error(ErrorBody::new(codes::UNAVAILABLE, "not yet"))
    }

    fn code(reply: &[u8]) -> String {
        let reply: Reply<serde_json::Value> = serde_json::from_slice(reply).expect("a reply");
        reply.into_result().expect_err("an error").code
    }

    #[tokio::test]
    async fn a_verb_decodes_its_request_and_answers_bad_input_with_its_code() {
        let verbs = Verbs::new("payouts").verb(verbs::BOOKS, books);
        assert_eq!(code(&verbs.handle(Payouts, "books", Bytes::from_static(b"{")).await), codes::MALFORMED_JSON);
        assert_eq!(code(&verbs.handle(Payouts, "books", Bytes::from_static(b"{}")).await), codes::INVALID_FIELD);
        let request = format!(r#"{{"tournament_id":"{}"}}"#, uuid::Uuid::now_v7());
        assert_eq!(code(&verbs.handle(Payouts, "books", request.into()).await), codes::UNAVAILABLE, "the handler answered");
        assert_eq!(code(&verbs.handle(Payouts, "nonsense", Bytes::new()).await), codes::UNKNOWN_VERB);
    }

    #[test]
    fn a_commands_span_names_its_command_and_tournament_when_the_request_does() {
        let ids = CommandIds::of(br#"{"command_id":"c-1","tournament_id":"t-1","player":{"name":"ann"}}"#);
        assert_eq!(ids, CommandIds { command_id: Some("c-1".into()), tournament_id: Some("t-1".into()) });
        assert_eq!(CommandIds::of(br#"{"tournament_id":"t-1"}"#).command_id, None);
        assert_eq!(CommandIds::of(b"not json"), CommandIds::default());
        assert_eq!(CommandIds::of(br#"{"command_id":7}"#), CommandIds::default(), "an id of another type: none, and the handler says why");
    }

    #[test]
    fn the_handlers_must_match_the_registry() {
        let every = Verbs::new("payouts")
            .verb(verbs::BOOKS, books)
            .verb(verbs::PROPOSE_DEAL, not_yet)
            .verb(verbs::ACCEPT_DEAL, not_yet)
            .verb(verbs::REJECT_DEAL, not_yet)
            .verb(verbs::DEAL, not_yet);
        assert!(every.check().is_ok());
        let deals = Verbs::new("payouts").verb(verbs::BOOKS, books).check().expect_err("the deal verbs have no handler");
        assert!(deals.to_string().contains("propose_deal"), "{deals}");
        let missing = Verbs::<Payouts>::new("payouts").check().expect_err("books has no handler");
        assert_eq!(missing.kind(), EndpointErrorKind::Undeclared);
        assert!(missing.to_string().contains("books"), "{missing}");
        let unknown = Verbs::<Payouts>::new("no-such-service").check().expect_err("not in the registry");
        assert_eq!(unknown.kind(), EndpointErrorKind::Undeclared);
    }

    #[test]
    #[should_panic(expected = "handled by the registration service")]
    fn a_verb_of_another_service_is_a_wiring_mistake() {
        let _ = Verbs::<Payouts>::new("registration").verb(verbs::BOOKS, books);
    }
}
