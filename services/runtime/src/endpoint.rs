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
use floor_events::{codes, subjects, ErrorBody, Reply};
use futures::StreamExt;
use serde::de::DeserializeOwned;
use serde::Serialize;
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
}

impl std::fmt::Display for EndpointErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cannot register the command endpoint")
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

/// Handles one command request: the verb and the body in, the encoded reply out.
pub trait CommandHandler: Clone + Send + Sync + 'static {
    /// Handles `payload` sent to `verb`.
    fn handle(&self, verb: &'static str, payload: Bytes) -> impl Future<Output = Bytes> + Send;
}

/// Serves `verbs` of `service` until `shutdown`, then stops taking requests and waits for those
/// in flight to be answered. `ready` fires once every endpoint is subscribed on the server.
///
/// # Errors
/// `Register` if NATS refuses the service or an endpoint.
pub async fn serve<H: CommandHandler>(
    client: async_nats::Client,
    service: &'static str,
    description: &str,
    verbs: &[&'static str],
    handler: H,
    shutdown: CancellationToken,
    ready: Option<tokio::sync::oneshot::Sender<()>>,
) -> Result<(), EndpointError> {
    let register = |e| EndpointError::with_source(EndpointErrorKind::Register, e);
    let nats_service = client
        .service_builder()
        .description(description)
        .queue_group(format!("floor-{service}"))
        .start(format!("floor-{service}"), env!("CARGO_PKG_VERSION"))
        .await
        .map_err(register)?;
    let group = nats_service.group(format!("{}.{service}", subjects::COMMAND_PREFIX));
    let mut endpoints = Vec::with_capacity(verbs.len());
    for &verb in verbs {
        let endpoint = group.endpoint(verb).await.map_err(register)?;
        endpoints.push(endpoint.map(move |request| (verb, request)).boxed());
    }
    let mut requests = futures::stream::select_all(endpoints);
    // Ready only once the server has the subscriptions (a flush is not a round trip).
    crate::bootstrap::sync_with_server(&client).await.map_err(|e| EndpointError::with_source(EndpointErrorKind::Register, e))?;
    if let Some(ready) = ready {
        let _ = ready.send(());
    }
    let in_flight = Arc::new(Semaphore::new(IN_FLIGHT));
    let tracker = TaskTracker::new();
    loop {
        let (verb, request) = tokio::select! {
            _ = shutdown.cancelled() => break,
            next = requests.next() => match next { Some(next) => next, None => break },
        };
        let Ok(permit) = in_flight.clone().acquire_owned().await else { break };
        let handler = handler.clone();
        tracker.spawn(async move {
            // Every command the handler executes is bound to what this caller sent.
            let payload = request.message.payload.clone();
            let reply = crate::host::serving_request(service, verb, payload.clone(), handler.handle(verb, payload)).await;
            if let Err(e) = request.respond(Ok(reply)).await {
                tracing::warn!(verb, error = %e, "reply not sent");
            }
            drop(permit);
        });
    }
    drop(requests);
    let _ = nats_service.stop().await;
    tracker.close();
    tracker.wait().await;
    Ok(())
}
