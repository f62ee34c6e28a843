//! Wiring: the lobby's two projection runners (documents, seat maps) and the HTTP server.

use crate::cache::seats::SeatCache;
use crate::cache::LobbyCache;
use crate::projection::LobbyProjection;
use crate::router::router;
use crate::seat_map_store::SeatMapProjection;
use floor_events::subjects;
use floor_runtime::bootstrap::Backbone;
use floor_runtime::projection::ProjectionRunner;
use floor_runtime::Clock;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Error starting the lobby.
#[derive(Debug, thiserror::Error)]
pub enum LobbyError {
    /// The projection could not start.
    #[error("lobby projection: {0}")]
    Projection(#[from] floor_runtime::projection::ProjectionError),
    /// The bucket could not be watched.
    #[error("lobby bucket: {0}")]
    Bucket(String),
    /// The HTTP address is taken or invalid.
    #[error("cannot listen on {0}: {1}")]
    Listen(SocketAddr, std::io::Error),
    /// The TLS certificate or key could not be used.
    #[error("lobby TLS: {0}")]
    Tls(#[from] crate::server::TlsError),
}

/// Loads the seat map's view (retrying while the bucket or the stream cannot be read), catches
/// it up and runs it until `shutdown`.
async fn run_seat_map(backbone: Backbone, shutdown: CancellationToken) {
    let started = std::time::Instant::now();
    let mut wait = floor_runtime::projection::RETRY_FIRST;
    let runner = loop {
        let loaded = async {
            let mut runner = ProjectionRunner::new(&backbone, SeatMapProjection::load(&backbone.jetstream).await?).await?;
            runner.catch_up().await?;
            Ok::<_, floor_runtime::projection::ProjectionError>(runner)
        };
        let error = tokio::select! {
            _ = shutdown.cancelled() => return,
            loaded = loaded => match loaded {
                Ok(runner) => break runner,
                Err(e) => e,
            },
        };
        tracing::warn!(error = %error, retry_ms = wait.as_millis() as u64, "seat map view not started; trying again");
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).min(floor_runtime::projection::RETRY_MOST);
    };
    tracing::info!(ms = started.elapsed().as_millis() as u64, "seat map view caught up");
    runner.run(shutdown).await;
}

/// Starts the projection (catching up before returning) and, if `http` is given, the HTTP
/// server under `settings` ([`crate::server`]), with a look at what tournaments wait on every
/// second of `clock`, and the director console under `/console` (disabled when `console` is
/// `None`). Both run on `tracker` until `shutdown`. Returns the address HTTP listens on.
///
/// # Errors
/// See [`LobbyError`].
pub async fn start(
    backbone: &Backbone,
    http: Option<SocketAddr>,
    settings: &crate::server::HttpSettings,
    console: Option<crate::console::ConsoleConfig>,
    clock: Arc<dyn Clock>,
    shutdown: CancellationToken,
    tracker: &TaskTracker,
) -> Result<Option<SocketAddr>, LobbyError> {
    // The documents' view catches up before the lobby serves. The seat map's view loads in the
    // background: it must read its whole bucket to fold on (every open table's and roster
    // part's document, 20,223 of them among 28,030 messages at 250,000 entrants: 0.7-1.5 s of a
    // restart on a busy machine), while the pages read that bucket through their own cache and
    // serve what it holds at once; the view then brings it up to date as it would have anyway.
    let started = std::time::Instant::now();
    let mut documents = ProjectionRunner::new(backbone, LobbyProjection::load(backbone).await?).await?;
    let loaded_ms = started.elapsed().as_millis() as u64;
    documents.catch_up().await?;
    tracker.spawn(documents.run(shutdown.clone()));
    tracing::info!(ms = started.elapsed().as_millis() as u64, loaded_ms, "lobby documents caught up");
    tracker.spawn(run_seat_map(backbone.clone(), shutdown.clone()));
    let Some(addr) = http else { return Ok(None) };
    let bucket = backbone.jetstream.get_key_value(subjects::LOBBY_BUCKET).await.map_err(|e| LobbyError::Bucket(e.to_string()))?;
    let structures = crate::structures::bucket(&backbone.jetstream).await.map_err(LobbyError::Bucket)?;
    let seats_bucket = crate::seat_map_store::bucket(&backbone.jetstream).await.map_err(LobbyError::Bucket)?;
    let (cache, seats) = tokio::try_join!(
        async {
            LobbyCache::watch(bucket, structures, backbone.events.clone(), backbone.jetstream.clone(), clock.clone(), shutdown.clone())
                .await
                .map_err(|e| LobbyError::Bucket(e.to_string()))
        },
        async { SeatCache::watch(seats_bucket, shutdown.clone()).await.map_err(|e| LobbyError::Bucket(e.to_string())) }
    )?;
    let results = crate::results::bucket(&backbone.jetstream).await.map_err(LobbyError::Bucket)?;
    let cache = cache.with_seats(seats).with_results(results);
    tracing::info!(ms = started.elapsed().as_millis() as u64, "lobby caches watching");
    tracker.spawn(crate::waiting::run(backbone.jetstream.clone(), clock.clone(), cache.waits(), shutdown.clone()));
    // Before anything listens: a certificate that does not load stops the start.
    let tls = settings.tls.as_ref().map(crate::server::tls_acceptor).transpose()?;
    let console = crate::console::Console::new(console, cache.clone(), backbone, clock, settings).await.map_err(LobbyError::Bucket)?;
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| LobbyError::Listen(addr, e))?;
    let bound = listener.local_addr().map_err(|e| LobbyError::Listen(addr, e))?;
    let app = router(cache, console.router(), settings.body_limit);
    let settings = settings.clone();
    tracker.spawn(async move { crate::server::serve(listener, app, &settings, tls, shutdown).await });
    Ok(Some(bound))
}
