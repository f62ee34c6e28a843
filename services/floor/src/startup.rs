//! Build, then run: connect (or start the embedded server), prepare the backbone, start the
//! chosen services (in the registry's order, each by its [`starter`]); then wait for a stop signal and shut down in order (stop taking commands,
//! let in-flight ones finish, stop projections, drain NATS, stop the embedded server).

use floor_abort::AbortService;
use floor_bounties::BountiesService;
use floor_bubble::BubbleService;
use floor_clock::ClockService;
use floor_events::registry;
use floor_lottery::LotteryService;
use floor_payouts::service::PayoutsService;
use floor_rebuys::RebuysService;
use floor_registration::RegistrationService;
use floor_runtime::bootstrap::{self, Access, Backbone, BootstrapError, EmbeddedServer};
use floor_runtime::credentials::{role_file, Credentials};
use floor_runtime::endpoint::Verbs;
use floor_runtime::roles::Role;
use floor_runtime::shell::{Context, Service};
use floor_runtime::Clock;
use floor_satellites::SatellitesService;
use floor_scheduler::service::SchedulerService;
use floor_seating::service::SeatingService;
use floor_shootouts::ShootoutsService;
use futures::future::BoxFuture;
use std::collections::BTreeSet;
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
    /// Start an embedded nats-server with its data in this directory, secure: the roles of
    /// issue 34, with their credentials kept in the directory (`docs/security.md`).
    Embedded(PathBuf),
    /// The same, open to anyone who reaches its port: development only (`--insecure-nats`).
    EmbeddedOpen(PathBuf),
    /// Join as `bootstrap::join` says for this data directory: `NATS_URL` with the environment's
    /// credentials, or the `floor run` there (its recorded URL) with the service credential it
    /// keeps (`floor registration`, `floor lobby` beside it).
    Local(PathBuf),
    /// Join this server with these credentials (tests, and whoever holds them in memory).
    Joined(String, Credentials),
}

/// What to start.
#[derive(Clone)]
pub struct PlatformConfig {
    /// NATS to use.
    pub nats: Nats,
    /// The services to run, by their names in [`registry`] (`registration`, `lobby`, …).
    pub services: BTreeSet<&'static str>,
    /// Fix the seed key seating's draws and the mystery bounty draws derive their seeds from
    /// (`floor sim`, to repeat a tournament); otherwise the stored one.
    pub seed_key: Option<[u8; 32]>,
    /// Seating snapshots a tournament every this many commits (tests make it small).
    pub seating_snapshot_every: u64,
    /// Registration snapshots a tournament every this many commits (tests make it small).
    pub registration_snapshot_every: u64,
    /// Serve the lobby over HTTP here (port 0 picks a free one).
    pub http: Option<SocketAddr>,
    /// The director console on the lobby's HTTP server; `None`: disabled (no credential).
    pub console: Option<floor_lobby::console::ConsoleConfig>,
    /// How the lobby serves HTTP: limits, trusted proxies, TLS.
    pub http_server: floor_lobby::server::HttpSettings,
    /// The clock services stamp commands with.
    pub clock: Arc<dyn Clock>,
}

impl PlatformConfig {
    /// Every service in the registry, with the system clock.
    pub fn all(nats: Nats, http: Option<SocketAddr>) -> Self {
        Self {
            nats,
            services: registry::names().into_iter().collect(),
            seed_key: None,
            seating_snapshot_every: floor_seating::service::SNAPSHOT_EVERY,
            registration_snapshot_every: floor_registration::service::SNAPSHOT_EVERY,
            http,
            console: None,
            http_server: floor_lobby::server::HttpSettings::default(),
            clock: Arc::new(floor_runtime::SystemClock),
        }
    }

    /// The services named, and no other.
    ///
    /// # Panics
    /// When a name is not in the registry (a typo in code; the CLI checks what users type).
    pub fn only(nats: Nats, http: Option<SocketAddr>, names: &[&str]) -> Self {
        let mut config = Self::all(nats, http);
        config.services.retain(|s| names.contains(s));
        assert_eq!(config.services.len(), names.len(), "{names:?}: not every name is a service in the registry");
        config
    }

    /// Whether it runs `service`.
    pub fn runs(&self, service: &str) -> bool {
        self.services.contains(service)
    }

    /// Leaves `service` out.
    pub fn skip(&mut self, service: &str) {
        self.services.remove(service);
    }
}

fn credentials_error(e: floor_runtime::credentials::CredentialsError) -> bootstrap::BootstrapError {
    bootstrap::BootstrapError::with_source(bootstrap::BootstrapErrorKind::Credentials, e)
}

/// Why the platform could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// NATS could not be reached or prepared.
    #[error(transparent)]
    Backbone(#[from] BootstrapError),
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
        let (url, embedded, credentials) = match &config.nats {
            Nats::Url(url) => (url.clone(), None, Credentials::from_env().map_err(credentials_error)?),
            Nats::Local(dir) => {
                let (url, credentials) = bootstrap::join(dir, Role::Service)?;
                (url, None, credentials)
            }
            Nats::Joined(url, credentials) => (url.clone(), None, credentials.clone()),
            Nats::Embedded(dir) | Nats::EmbeddedOpen(dir) => {
                let open = matches!(config.nats, Nats::EmbeddedOpen(_));
                let server = EmbeddedServer::start_with(dir, if open { Access::Open } else { Access::Roles })?;
                let credentials = match open {
                    true => Credentials::none(),
                    false => Credentials::from_env_file(&role_file(dir, Role::Service)).map_err(credentials_error)?,
                };
                (server.url(), Some(server), credentials)
            }
        };
        let client = bootstrap::connect_with(&url, &credentials).await?;
        let backbone = bootstrap::ensure_backbone(client).await?;
        if let Nats::Embedded(dir) | Nats::EmbeddedOpen(dir) = &config.nats {
            // The embedded store's streams as this directory knows them (issue 34): one deleted
            // and made again empty is refused, not served.
            floor_runtime::shape::check_births(&backbone.jetstream, &dir.join("store.json"))
                .await
                .map_err(|e| bootstrap::BootstrapError::with_source(bootstrap::BootstrapErrorKind::StoreChanged, e))?;
        }
        let shutdown = CancellationToken::new();
        let tracker = TaskTracker::new();
        let mut http = None;
        let started = Started { backbone: &backbone, config: &config, shutdown: &shutdown, tracker: &tracker };
        for service in registry::services() {
            if config.runs(service.name) {
                let start = starter(service.name).ok_or(StartupError::Service(service.name, "no starter for it in startup.rs".into()))?;
                if let Some(addr) = start(&started).await? {
                    http = Some(addr);
                }
            }
        }
        // The running anchor over the log (issue 42, floor_runtime::store::anchor).
        tracker.spawn(floor_runtime::store::anchor::run(backbone.clone(), shutdown.clone()));
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

/// What a service starts with.
struct Started<'a> {
    backbone: &'a Backbone,
    config: &'a PlatformConfig,
    shutdown: &'a CancellationToken,
    tracker: &'a TaskTracker,
}

/// Starts one service: its runners on the tracker and its endpoint, if it has verbs; returns
/// the lobby's HTTP address for the lobby.
type Start = for<'a> fn(&'a Started<'a>) -> BoxFuture<'a, Result<Option<SocketAddr>, StartupError>>;

/// How to start the service `name` of the registry.
fn starter(name: &str) -> Option<Start> {
    use floor_events::subjects::service;
    let start: Start = match name {
        service::LOBBY => |s| {
            Box::pin(async move {
                Ok(floor_lobby::service::start(
                    s.backbone,
                    s.config.http,
                    &s.config.http_server,
                    s.config.console.clone(),
                    s.config.clock.clone(),
                    s.shutdown.clone(),
                    s.tracker,
                )
                .await?)
            })
        },
        service::REGISTRATION => |s| Box::pin(shell::<RegistrationService>(s, Some(s.config.registration_snapshot_every))),
        service::SEATING => |s| Box::pin(shell::<SeatingService>(s, Some(s.config.seating_snapshot_every))),
        service::CLOCK => |s| Box::pin(shell::<ClockService>(s, None)),
        service::PAYOUTS => |s| Box::pin(shell::<PayoutsService>(s, None)),
        service::REBUYS => |s| Box::pin(shell::<RebuysService>(s, None)),
        service::BOUNTIES => |s| Box::pin(shell::<BountiesService>(s, None)),
        service::BUBBLE => |s| Box::pin(shell::<BubbleService>(s, None)),
        service::ABORT => |s| Box::pin(shell::<AbortService>(s, None)),
        service::SCHEDULER => |s| Box::pin(shell::<SchedulerService>(s, None)),
        service::SATELLITES => |s| Box::pin(shell::<SatellitesService>(s, None)),
        service::SHOOTOUTS => |s| Box::pin(shell::<ShootoutsService>(s, None)),
        service::LOTTERY => |s| Box::pin(shell::<LotteryService>(s, None)),
        _ => return None,
    };
    Some(start)
}

/// Starts `S` through the service shell (`snapshot_every` given to its aggregates' snapshots,
/// or its own cadence), then serves its verbs, if it has any.
async fn shell<S: Service>(s: &Started<'_>, snapshot_every: Option<u64>) -> Result<Option<SocketAddr>, StartupError> {
    let cx = Context {
        backbone: s.backbone,
        clock: s.config.clock.clone(),
        seed_key: s.config.seed_key,
        snapshot_every,
        shutdown: s.shutdown.clone(),
        tracker: s.tracker,
    };
    let verbs = S::verbs();
    let service = S::start(&cx).await.map_err(|e| StartupError::Service(verbs.service(), e.to_string()))?;
    match verbs.is_empty() {
        true => Ok(None),
        false => serve(s, verbs, service).await,
    }
}

/// Serves `verbs` for `state` on the tracker; returns once it takes requests.
async fn serve<S: Clone + Send + Sync + 'static>(
    started: &Started<'_>,
    verbs: Verbs<S>,
    state: S,
) -> Result<Option<SocketAddr>, StartupError> {
    let name = verbs.service();
    let (ready, is_ready) = tokio::sync::oneshot::channel();
    let served = verbs.serve(state, started.backbone.client.clone(), started.shutdown.clone(), Some(ready));
    started.tracker.spawn(async move {
        if let Err(e) = served.await {
            tracing::error!(service = name, error = %e, "endpoint stopped");
        }
    });
    is_ready.await.map_err(|_| StartupError::Service(name, "endpoint did not start".into()))?;
    Ok(None)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_service_in_the_registry_can_be_started() {
        for name in registry::names() {
            assert!(starter(name).is_some(), "{name} is in the registry but startup.rs cannot start it");
        }
    }

    #[test]
    fn every_service_with_verbs_handles_exactly_its_verbs() {
        RegistrationService::verbs().check().expect("registration");
        ClockService::verbs().check().expect("clock");
        PayoutsService::verbs().check().expect("payouts");
        RebuysService::verbs().check().expect("rebuys");
        BubbleService::verbs().check().expect("bubble");
        SchedulerService::verbs().check().expect("scheduler");
        BountiesService::verbs().check().expect("bounties");
        AbortService::verbs().check().expect("abort");
        SeatingService::verbs().check().expect("seating: none");
    }
}
