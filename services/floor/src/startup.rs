//! Build, then run: connect (or start the embedded server), prepare the backbone, start the
//! chosen services; then wait for a stop signal and shut down in order (stop taking commands,
//! let in-flight ones finish, stop projections, drain NATS, stop the embedded server).

use floor_clock::ClockService;
use floor_registration::RegistrationService;
use floor_runtime::bootstrap::{self, Backbone, BootstrapError, EmbeddedServer};
use floor_runtime::Clock;
use floor_scheduler::service::SchedulerService;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Which NATS to use.
#[derive(Debug, Clone)]
pub enum Nats {
    /// Join this server or cluster (`NATS_URL`, comma-separated for several).
    Url(String),
    /// Start an embedded nats-server with its data in this directory.
    Embedded(PathBuf),
}

/// What to start.
#[derive(Clone)]
pub struct PlatformConfig {
    /// NATS to use.
    pub nats: Nats,
    /// Run the registration service.
    pub registration: bool,
    /// Run the lobby projection.
    pub lobby: bool,
    /// Run the clock service (timers, director clock commands).
    pub clock_service: bool,
    /// Run the scheduler (recurring templates, scheduled starts).
    pub scheduler: bool,
    /// Run seating (draws, balancing, the table-server protocol).
    pub seating: bool,
    /// Run payouts (payout tables, places, prizes, books).
    pub payouts: bool,
    /// Run rebuys (rebuy offers, rebuys, add-ons).
    pub rebuys: bool,
    /// Fix seating's seed key (`floor sim`, to repeat a tournament); otherwise the stored one.
    pub seed_key: Option<[u8; 32]>,
    /// Seating snapshots a tournament every this many commits (tests make it small).
    pub seating_snapshot_every: u64,
    /// Serve the lobby over HTTP here (port 0 picks a free one).
    pub http: Option<SocketAddr>,
    /// The clock services stamp commands with.
    pub clock: Arc<dyn Clock>,
}

impl PlatformConfig {
    /// Every service, with the system clock.
    pub fn all(nats: Nats, http: Option<SocketAddr>) -> Self {
        Self {
            nats,
            registration: true,
            lobby: true,
            clock_service: true,
            scheduler: true,
            seating: true,
            payouts: true,
            rebuys: true,
            seed_key: None,
            seating_snapshot_every: floor_seating::service::SNAPSHOT_EVERY,
            http,
            clock: Arc::new(floor_runtime::SystemClock),
        }
    }

    /// No service but those `choose` switches on.
    pub fn only(nats: Nats, http: Option<SocketAddr>, choose: impl FnOnce(&mut Self)) -> Self {
        let mut config = Self {
            registration: false,
            lobby: false,
            clock_service: false,
            scheduler: false,
            seating: false,
            payouts: false,
            rebuys: false,
            ..Self::all(nats, http)
        };
        choose(&mut config);
        config
    }
}

/// Why the platform could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// NATS could not be reached or prepared.
    #[error(transparent)]
    Backbone(#[from] BootstrapError),
    /// The registration service could not start.
    #[error("registration: {0}")]
    Registration(String),
    /// The lobby could not start.
    #[error(transparent)]
    Lobby(#[from] floor_lobby::service::LobbyError),
    /// Another service could not start.
    #[error("{0}: {1}")]
    Service(&'static str, String),
}

/// A started platform.
pub struct Platform {
    backbone: Backbone,
    embedded: Option<EmbeddedServer>,
    http: Option<SocketAddr>,
    shutdown: CancellationToken,
    tracker: TaskTracker,
}

impl Platform {
    /// Starts everything `config` asks for; returns once services are serving.
    ///
    /// # Errors
    /// See [`StartupError`].
    pub async fn build(config: PlatformConfig) -> Result<Self, StartupError> {
        let (url, embedded) = match &config.nats {
            Nats::Url(url) => (url.clone(), None),
            Nats::Embedded(dir) => {
                let server = EmbeddedServer::start(dir)?;
                (server.url(), Some(server))
            }
        };
        let client = bootstrap::connect(&url).await?;
        let backbone = bootstrap::ensure_backbone(client).await?;
        let shutdown = CancellationToken::new();
        let tracker = TaskTracker::new();
        let mut http = None;
        if config.lobby {
            http = floor_lobby::service::start(&backbone, config.http, shutdown.clone(), &tracker).await?;
        }
        if config.registration {
            let service = RegistrationService::build(&backbone, config.clock.clone(), shutdown.clone(), tracker.clone())
                .await
                .map_err(|e| StartupError::Registration(e.to_string()))?;
            let (client, token) = (backbone.client.clone(), shutdown.clone());
            serve("registration", &tracker, |ready| async move { service.serve(client, token, Some(ready)).await }).await?;
        }
        if config.clock_service {
            let service = ClockService::start(&backbone, config.clock.clone(), shutdown.clone(), &tracker)
                .await
                .map_err(|e| StartupError::Service("clock", e.to_string()))?;
            let (client, token) = (backbone.client.clone(), shutdown.clone());
            serve("clock", &tracker, |ready| async move { service.serve(client, token, Some(ready)).await }).await?;
        }
        if config.seating {
            let key = config.seed_key.map(floor_seating::policy::SeedKey);
            floor_seating::service::SeatingService::start(&backbone, key, config.seating_snapshot_every, shutdown.clone(), &tracker)
                .await
                .map_err(|e| StartupError::Service("seating", e.to_string()))?;
        }
        if config.payouts {
            let service = floor_payouts::service::PayoutsService::start(&backbone, shutdown.clone(), &tracker)
                .await
                .map_err(|e| StartupError::Service("payouts", e.to_string()))?;
            let (client, token) = (backbone.client.clone(), shutdown.clone());
            serve("payouts", &tracker, |ready| async move { service.serve(client, token, Some(ready)).await }).await?;
        }
        if config.rebuys {
            let service = floor_rebuys::RebuysService::start(&backbone, config.clock.clone(), shutdown.clone(), &tracker)
                .await
                .map_err(|e| StartupError::Service("rebuys", e.to_string()))?;
            let (client, token) = (backbone.client.clone(), shutdown.clone());
            serve("rebuys", &tracker, |ready| async move { service.serve(client, token, Some(ready)).await }).await?;
        }
        if config.scheduler {
            let service = SchedulerService::start(&backbone, config.clock.clone(), shutdown.clone(), &tracker)
                .await
                .map_err(|e| StartupError::Service("scheduler", e.to_string()))?;
            let (client, token) = (backbone.client.clone(), shutdown.clone());
            serve("scheduler", &tracker, |ready| async move { service.serve(client, token, Some(ready)).await }).await?;
        }
        Ok(Self { backbone, embedded, http, shutdown, tracker })
    }

    /// The lobby's HTTP address, if it serves HTTP.
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http
    }

    /// The NATS connection the platform uses.
    pub fn backbone(&self) -> &Backbone {
        &self.backbone
    }

    /// Runs until `signal` completes, then shuts down in order.
    pub async fn run_until_stopped(self, signal: impl Future<Output = ()>) {
        signal.await;
        self.stop().await;
    }

    /// Shuts down: stop serving, finish in-flight commands, stop tasks, drain NATS, stop the
    /// embedded server.
    pub async fn stop(self) {
        self.shutdown.cancel();
        self.tracker.close();
        self.tracker.wait().await;
        let _ = self.backbone.client.drain().await;
        if let Some(server) = self.embedded {
            server.stop();
        }
    }
}

/// Runs a service's endpoint on `tracker`; returns once it takes requests.
async fn serve<F, Fut>(name: &'static str, tracker: &TaskTracker, endpoint: F) -> Result<(), StartupError>
where
    F: FnOnce(tokio::sync::oneshot::Sender<()>) -> Fut,
    Fut: Future<Output = Result<(), floor_runtime::endpoint::EndpointError>> + Send + 'static,
{
    let (ready, is_ready) = tokio::sync::oneshot::channel();
    let served = endpoint(ready);
    tracker.spawn(async move {
        if let Err(e) = served.await {
            tracing::error!(service = name, error = %e, "endpoint stopped");
        }
    });
    is_ready.await.map_err(|_| StartupError::Service(name, "endpoint did not start".into()))
}

/// Completes on Ctrl-C or SIGTERM.
pub async fn stop_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
