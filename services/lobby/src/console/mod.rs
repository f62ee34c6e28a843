//! The director console: server-rendered pages under `/console` on the lobby's HTTP server,
//! behind a login, that send the directors' commands over NATS with the typed client
//! ([`floor_runtime::Commands`]) and the verbs of `floor_events`, as `floor` on the command line
//! does.
//!
//! | route | what |
//! |---|---|
//! | `GET /console/login`, `POST /console/login` | the login form; a session cookie |
//! | `POST /console/logout` | ends the session |
//! | `GET /console` | every tournament, and the forms to create one (template or pasted definition) and add a schedule |
//! | `POST /console/tournaments` | create a tournament |
//! | `POST /console/schedules` | add a recurring template (scheduler) |
//! | `GET /console/tournaments/{id}` | one tournament: clock, every table (players, last hand, last report, silent since), the actions, who did what |
//! | `GET /console/tournaments/{id}/events` | its live part, rendered, at every revision (SSE) |
//! | `POST /console/tournaments/{id}/{action}` | one action ([`form::Action`]): the clock, start, suspend, cancel; the desk's register, unregister, rebuy, add-on; hand-for-hand's start, pause, resume, stop; the books |
//!
//! **After an action** (issue 39) the page that answers says what the reply held (an entry's
//! number and charge, the events recorded, the books) or the refusal's code and message, and
//! shows the tournament after it: the handler waits, a few seconds at most, until the lobby's
//! reader has taken every commit of the tournament (as `floor`'s `Director::shown`). The page's
//! live part (clock and time left, field, payouts, rebuys, hand-for-hand) then follows the
//! lobby's document as the players' page does (its own feed, behind the session, and the
//! lobby's script).
//!
//! **Create** reads a pasted definition as TOML (an `examples/*.toml` file as it is, relative
//! starts resolved) or JSON ([`form::pasted_definition`]), by the CLI's own reading
//! (`floor_rules::definition_file`).
//!
//! **Login** ([`auth`], [`guard`]): the password given at start (never a default: without one every
//! console route answers that the console is disabled, and the rest of the lobby serves), kept
//! only as its PBKDF2 hash and compared in constant time; a session is a random token in an
//! `HttpOnly`, `SameSite=Strict` cookie that expires ([`ConsoleConfig::session_ttl`]), on the
//! platform's clock. Every form carries the session's form token as well (CSRF), and a
//! request without a valid session or token is refused before anything is sent or written.
//!
//! **Who did it**: the director's name, given at login, goes into the `reason` of every command
//! that has one (pause, cancel, suspend: `"dinner break (director: Ana)"`), which the services
//! store in the event; and every action is recorded, before its command is sent, in KV
//! `floor-console-audit` (key `<tournament>.<command id>`: director, action, when), where the
//! command id ties it to the commit the command made (`Nats-Msg-Id`). An `actor` field on every
//! director command would put it in the events themselves: a contract change across services,
//! proposed in docs/architecture.md ("Console").
//!
//! # Layout
//!
//! - [`auth`]: password hash, sessions.
//! - [`guard`]: wrong passwords: per-client waits, a ceiling over all clients, the recovery code.
//! - [`form`]: urlencoded bodies, the actions, templates.
//! - [`pages`]: the HTML.
//! - [`handlers`]: the routes.

pub mod action;
pub mod auth;
pub mod form;
pub mod guard;
mod handlers;
pub mod pages;

use crate::cache::LobbyCache;
use async_nats::jetstream::{self, kv};
use auth::{PasswordHash, Sessions};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::{Clock, Commands};
use guard::{LoginGuard, RecoveryCode};
use std::sync::Arc;

/// How long a console session lasts unless configured otherwise.
pub const SESSION_TTL: chrono::Duration = chrono::Duration::hours(12);

/// The bucket of director actions.
pub const AUDIT_BUCKET: &str = "floor-console-audit";

/// The KV bucket of the directors' sessions: the SHA-256 of each token → director, end, form
/// token.
pub const SESSIONS_BUCKET: &str = "floor-console-sessions";

/// The console's settings, given at start.
#[derive(Debug, Clone)]
pub struct ConsoleConfig {
    /// The director credential, hashed.
    pub credential: PasswordHash,
    /// How long a session lasts.
    pub session_ttl: chrono::Duration,
    /// The recovery code ([`guard`]); `None`: a fresh one, made and logged at start.
    pub recovery_code: Option<RecoveryCode>,
}

impl ConsoleConfig {
    /// The console with `password` (hashed here) and sessions of [`SESSION_TTL`].
    ///
    /// # Errors
    /// A password too short ([`auth::CredentialError`]).
    pub fn with_password(password: &str) -> Result<Self, auth::CredentialError> {
        Ok(Self { credential: PasswordHash::new(password)?, session_ttl: SESSION_TTL, recovery_code: None })
    }
}

/// What the console's handlers share. Cheap to clone.
#[derive(Clone)]
pub struct Console {
    /// `None`: the console is disabled (no credential given at start).
    credential: Option<Arc<PasswordHash>>,
    sessions: Arc<Sessions>,
    logins: Arc<LoginGuard>,
    /// Proxies whose `X-Forwarded-For` names the client signing in.
    trusted_proxies: Arc<[std::net::IpAddr]>,
    /// The session cookie is `Secure` (the lobby serves HTTPS).
    secure_cookie: bool,
    cache: LobbyCache,
    commands: Commands,
    backbone: Backbone,
    audit: Option<kv::Store>,
    clock: Arc<dyn Clock>,
}

impl Console {
    /// The console for `config` (`None`: disabled) on `backbone`, its tournaments read from
    /// `cache`, behind the server of `http`. Logs the recovery code once.
    pub async fn new(
        config: Option<ConsoleConfig>,
        cache: LobbyCache,
        backbone: &Backbone,
        clock: Arc<dyn Clock>,
        http: &crate::server::HttpSettings,
    ) -> Result<Self, String> {
        let audit = match config {
            Some(_) => Some(audit_bucket(&backbone.jetstream).await?),
            None => None,
        };
        let ttl = config.as_ref().map_or(SESSION_TTL, |c| c.session_ttl);
        let sessions = match config {
            Some(_) => Sessions::kept_in(ttl, sessions_bucket(&backbone.jetstream, ttl).await?),
            None => Sessions::new(ttl),
        };
        let code = config.as_ref().and_then(|c| c.recovery_code.clone()).unwrap_or_default();
        if config.is_some() {
            log_recovery_code(&code);
        }
        Ok(Self {
            credential: config.map(|c| Arc::new(c.credential)),
            sessions: Arc::new(sessions),
            logins: Arc::new(LoginGuard::new(&code)),
            trusted_proxies: http.trusted_proxies.clone().into(),
            secure_cookie: http.tls.is_some(),
            cache,
            commands: Commands::new(backbone.client.clone()),
            backbone: backbone.clone(),
            audit,
            clock,
        })
    }

    /// The console's routes (to merge into the lobby's router).
    pub fn router(self) -> axum::Router {
        handlers::router(self)
    }
}

/// Logs the recovery code: the one place it is ever written. At warn, so a `floor sim` or a
/// quiet log level still shows it.
fn log_recovery_code(code: &RecoveryCode) {
    tracing::warn!(
        recovery_code = code.reveal(),
        "console: the recovery code, to sign in while too many wrong passwords from everywhere keep sign-in closed (spent by a sign-in; the next one is logged then)"
    );
}

/// The sessions' bucket, created on first use with entries that live as long as a session (the
/// stream removes each once it has ended); created by another lobby with another session time,
/// it is used as it is (each session still carries its own end).
async fn sessions_bucket(jetstream: &jetstream::Context, ttl: chrono::Duration) -> Result<kv::Store, String> {
    let config = kv::Config {
        bucket: SESSIONS_BUCKET.to_owned(),
        description: "Floor console: the directors' sessions, by the SHA-256 of their token".to_owned(),
        history: 1,
        max_age: ttl.to_std().unwrap_or(std::time::Duration::from_secs(12 * 3_600)),
        storage: jetstream::stream::StorageType::File,
        ..Default::default()
    };
    floor_runtime::bootstrap::key_value_as(jetstream, config).await
}

/// The audit bucket, created on first use (the console is its only writer).
async fn audit_bucket(jetstream: &jetstream::Context) -> Result<kv::Store, String> {
    floor_runtime::bootstrap::key_value(jetstream, AUDIT_BUCKET, "Floor console: who did each director action").await
}
