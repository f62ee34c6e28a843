//! Connecting to NATS and making sure the backbone exists.
//!
//! With `NATS_URL` (one URL or a comma-separated cluster list) Floor joins that server; without
//! it, `floor run` starts an embedded nats-server under `./data/` and records its URL in
//! `./data/nats.url` so director commands in the same directory find it with no flags.
//! Creating the stream and buckets is idempotent: every service calls [`ensure_backbone`] at start.

use crate::error::Error;
use crate::health::Health;
use crate::server::{self, NatsServer, ServerOptions, MIN_VERSION};
use async_nats::jetstream::{self, kv, stream};
use async_nats::ServerAddr;
use floor_events::subjects;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What went wrong reaching the backbone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BootstrapErrorKind {
    /// `NATS_URL` or the recorded URL is not a NATS address.
    InvalidUrl,
    /// No server answered.
    Connect,
    /// The server is older than 2.10.
    ServerTooOld,
    /// The server does not have JetStream enabled.
    NoJetStream,
    /// The stream or a bucket could not be created (or exists with an incompatible config).
    Setup,
    /// Neither `NATS_URL` nor a running `floor run` in this directory.
    NothingToJoin,
    /// The embedded server could not be started.
    Embedded,
}

impl std::fmt::Display for BootstrapErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::InvalidUrl => "invalid NATS URL",
            Self::Connect => "cannot connect to NATS",
            Self::ServerTooOld => "nats-server is older than 2.10, which Floor needs (2.9 breaks per-subject checks on replicated streams and KV creation); upgrade it, or unset NATS_URL to use the embedded server",
            Self::NoJetStream => "JetStream is not enabled on this nats-server (start it with -js)",
            Self::Setup => "cannot create Floor's stream or buckets",
            Self::NothingToJoin => "no NATS_URL and no `floor run` recorded in ./data/nats.url: start `make run` (or `floor run`) in this directory first, or set NATS_URL",
            Self::Embedded => "cannot start the embedded nats-server",
        })
    }
}

/// Error reaching or preparing the backbone.
pub type BootstrapError = Error<BootstrapErrorKind>;

/// A connection with the backbone ready: stream and buckets exist.
#[derive(Clone)]
pub struct Backbone {
    /// Core NATS, for request/reply.
    pub client: async_nats::Client,
    /// JetStream, for the event store and KV.
    pub jetstream: jetstream::Context,
    /// The `FLOOR_EVENTS` stream.
    pub events: stream::Stream,
    /// The `FLOOR_TABLES` stream: instructions to tables and their reports.
    pub tables: stream::Stream,
    /// The readers' health: poison commits survived, aggregates set aside ([`crate::health`]).
    pub health: Health,
}

/// Connects to a URL or comma-separated list of cluster URLs and checks the server version.
///
/// # Errors
/// `InvalidUrl`, `Connect` or `ServerTooOld`.
pub async fn connect(urls: &str) -> Result<async_nats::Client, BootstrapError> {
    let addrs = urls
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|u| u.parse::<ServerAddr>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| BootstrapError::with_source(BootstrapErrorKind::InvalidUrl, e))?;
    if addrs.is_empty() {
        return Err(BootstrapError::with_source(BootstrapErrorKind::InvalidUrl, "empty"));
    }
    let client = async_nats::ConnectOptions::new()
        .name("floor")
        .connection_timeout(Duration::from_secs(5))
        .connect(addrs)
        .await
        .map_err(|e| BootstrapError::with_source(BootstrapErrorKind::Connect, e))?;
    let version = client.server_info().version;
    match server::parse_version(&version) {
        Some(v) if v >= MIN_VERSION => Ok(client),
        _ => Err(BootstrapError::with_source(BootstrapErrorKind::ServerTooOld, format!("server reports {version}"))),
    }
}

/// Creates (or finds) the event stream and the KV buckets.
///
/// # Errors
/// `NoJetStream` or `Setup`.
pub async fn ensure_backbone(client: async_nats::Client) -> Result<Backbone, BootstrapError> {
    let jetstream = jetstream::new(client.clone());
    let setup = |e: String| BootstrapError::with_source(BootstrapErrorKind::Setup, e);
    jetstream.query_account().await.map_err(|e| BootstrapError::with_source(BootstrapErrorKind::NoJetStream, e))?;
    let events = jetstream
        .get_or_create_stream(stream::Config {
            name: subjects::EVENTS_STREAM.to_owned(),
            subjects: vec![subjects::EVENTS_SUBJECTS.to_owned()],
            storage: stream::StorageType::File,
            // The log is the source of truth: never age anything out.
            retention: stream::RetentionPolicy::Limits,
            // Retried commands within this window are recognised by Nats-Msg-Id.
            duplicate_window: Duration::from_secs(120),
            // Aggregate loads and conflict catch-up read single subjects without a consumer.
            allow_direct: true,
            deny_delete: true,
            deny_purge: true,
            ..Default::default()
        })
        .await
        .map_err(|e| setup(format!("stream {}: {e}", subjects::EVENTS_STREAM)))?;
    let tables = jetstream
        .get_or_create_stream(stream::Config {
            name: subjects::TABLES_STREAM.to_owned(),
            subjects: vec![subjects::TABLES_SUBJECTS.to_owned()],
            storage: stream::StorageType::File,
            retention: stream::RetentionPolicy::Limits,
            // A report or instruction sent twice within this window is stored once; beyond it,
            // its per-table sequence or report id tells.
            duplicate_window: Duration::from_secs(120),
            allow_direct: true,
            ..Default::default()
        })
        .await
        .map_err(|e| setup(format!("stream {}: {e}", subjects::TABLES_STREAM)))?;
    for (bucket, description) in [
        (subjects::LOBBY_BUCKET, "Floor lobby: one document per tournament"),
        (subjects::CHECKPOINT_BUCKET, "Floor projection checkpoints"),
        (subjects::SECRETS_BUCKET, "Floor secrets: seed keys for auditable draws"),
        (subjects::HEALTH_BUCKET, "Floor health: poison commits readers survived, aggregates set aside"),
    ] {
        if jetstream.get_key_value(bucket).await.is_err() {
            jetstream
                .create_key_value(kv::Config {
                    bucket: bucket.to_owned(),
                    description: description.to_owned(),
                    history: 1,
                    storage: stream::StorageType::File,
                    ..Default::default()
                })
                .await
                .map_err(|e| setup(format!("bucket {bucket}: {e}")))?;
        }
    }
    if jetstream.get_object_store(subjects::SNAPSHOT_BUCKET).await.is_err() {
        jetstream
            .create_object_store(async_nats::jetstream::object_store::Config {
                bucket: subjects::SNAPSHOT_BUCKET.to_owned(),
                description: Some("Floor aggregate snapshots: a cache of the log, rebuilt from it if lost".to_owned()),
                storage: stream::StorageType::File,
                ..Default::default()
            })
            .await
            .map_err(|e| setup(format!("object store {}: {e}", subjects::SNAPSHOT_BUCKET)))?;
    }
    let health =
        jetstream.get_key_value(subjects::HEALTH_BUCKET).await.map_err(|e| setup(format!("bucket {}: {e}", subjects::HEALTH_BUCKET)))?;
    Ok(Backbone { client, jetstream, events, tables, health: Health::new(health) })
}

/// Where `floor run` records the embedded server's URL.
pub fn recorded_url_path(data_dir: &Path) -> PathBuf {
    data_dir.join("nats.url")
}

/// The NATS URL to use: `NATS_URL`, else the one `floor run` recorded in `data_dir`.
///
/// # Errors
/// `NothingToJoin` when neither exists.
pub fn url_to_join(data_dir: &Path) -> Result<String, BootstrapError> {
    if let Ok(url) = std::env::var("NATS_URL") {
        if !url.trim().is_empty() {
            return Ok(url);
        }
    }
    std::fs::read_to_string(recorded_url_path(data_dir))
        .map(|s| s.trim().to_owned())
        .map_err(|_| BootstrapError::new(BootstrapErrorKind::NothingToJoin))
}

/// The embedded server of `floor run`: JetStream in `<data_dir>/nats`, fsync on every write, its
/// URL recorded in `<data_dir>/nats.url` until dropped. Reuses the previous port when free, so
/// clients that cached the URL keep working across restarts.
pub struct EmbeddedServer {
    server: NatsServer,
    url_file: PathBuf,
}

impl EmbeddedServer {
    /// Starts it.
    ///
    /// # Errors
    /// `Embedded`, with the reason (no binary, too old, port busy…).
    pub fn start(data_dir: &Path) -> Result<Self, BootstrapError> {
        let embedded = |e| BootstrapError::with_source(BootstrapErrorKind::Embedded, e);
        let url_file = recorded_url_path(data_dir);
        let previous_port = std::fs::read_to_string(&url_file)
            .ok()
            .and_then(|u| u.trim().rsplit(':').next().and_then(|p| p.parse::<u16>().ok()))
            .filter(|p| std::net::TcpListener::bind(("127.0.0.1", *p)).is_ok());
        let options = ServerOptions {
            binary: server::find_binary().map_err(embedded)?,
            dir: data_dir.join("nats"),
            port: previous_port.unwrap_or(0),
            sync_always: true,
        };
        let server = NatsServer::start(options).map_err(embedded)?;
        std::fs::write(&url_file, format!("{}\n", server.url()))
            .map_err(|e| BootstrapError::with_source(BootstrapErrorKind::Embedded, e))?;
        Ok(Self { server, url_file })
    }

    /// Its URL.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// Stops the server gracefully and forgets the recorded URL.
    pub fn stop(mut self) {
        self.server.stop();
        let _ = std::fs::remove_file(&self.url_file);
    }
}

impl Drop for EmbeddedServer {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.url_file);
    }
}

/// Waits until nats-server has processed everything this connection sent before (subscriptions
/// above all), by sending a message to ourselves through the server.
///
/// async-nats's `Client::flush` only empties the local write buffer; it is not a round trip. A
/// service that announces "ready" after `flush` can still get requests answered with "no
/// responders" for a moment (seen in about 5 % of fresh subscriptions here).
///
/// # Errors
/// `Connect` when the echo does not come back within 10 s.
pub async fn sync_with_server(client: &async_nats::Client) -> Result<(), BootstrapError> {
    use futures::StreamExt;
    let failed = |e: String| BootstrapError::with_source(BootstrapErrorKind::Connect, e);
    let inbox = client.new_inbox();
    let mut echo = client.subscribe(inbox.clone()).await.map_err(|e| failed(e.to_string()))?;
    client.publish(inbox, bytes::Bytes::new()).await.map_err(|e| failed(e.to_string()))?;
    match tokio::time::timeout(Duration::from_secs(10), echo.next()).await {
        Ok(Some(_)) => Ok(()),
        _ => Err(failed("no echo from the server within 10 s".into())),
    }
}
