//! Connecting to NATS and making sure the backbone exists.
//!
//! With `NATS_URL` (one URL or a comma-separated cluster list) Floor joins that server; without
//! it, `floor run` starts an embedded nats-server under `./data/` and records its URL in
//! `./data/nats.url` so director commands in the same directory find it with no flags.
//! Creating the stream and buckets is idempotent: every service calls [`ensure_backbone`] at start.

use crate::credentials::Credentials;
use crate::error::Error;
use crate::health::Health;
use crate::server::{self, NatsServer, ServerOptions, MIN_VERSION};
use crate::tail::Tail;
use async_nats::jetstream::{self, kv, object_store, stream};
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
    /// Another `floor run` holds the data directory (its lock file names the process).
    DataDirInUse,
    /// The NATS credentials given (environment) cannot be used: no connection was tried.
    Credentials,
    /// The server refused the credentials (or their absence): authorization violation.
    Unauthorized,
    /// TLS was asked for and could not be set up with the server.
    Tls,
    /// A stream or bucket is not as Floor created it (a limit, a deny flag, gone: issue 34).
    StoreChanged,
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
            Self::DataDirInUse => "the data directory is in use by another `floor run` (stop it, or give this one another --data)",
            Self::Credentials => "the NATS credentials given cannot be used",
            Self::Unauthorized => "NATS refused the credentials",
            Self::Tls => "TLS with NATS failed",
            Self::StoreChanged => "Floor's streams or buckets are not as Floor created them; refusing to serve a log that may lose what it acknowledged (restore the settings named, or move to a store Floor created)",
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
    /// The process's live tail of `FLOOR_EVENTS`, shared by every follow ([`crate::tail`]).
    pub tail: Tail,
}

/// Connects to a URL or comma-separated list of cluster URLs with the environment's
/// credentials ([`Credentials::from_env`]) and checks the server version.
///
/// # Errors
/// `InvalidUrl`, `Credentials`, `Unauthorized`, `Tls`, `Connect` or `ServerTooOld`.
pub async fn connect(urls: &str) -> Result<async_nats::Client, BootstrapError> {
    let credentials = Credentials::from_env().map_err(|e| BootstrapError::with_source(BootstrapErrorKind::Credentials, e))?;
    connect_with(urls, &credentials).await
}

/// Connects as [`connect`] does, with these credentials. A refusal is one error naming what
/// was tried (never a secret), not a retry loop.
///
/// # Errors
/// As [`connect`].
pub async fn connect_with(urls: &str, credentials: &Credentials) -> Result<async_nats::Client, BootstrapError> {
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
    let options = async_nats::ConnectOptions::new().name("floor").connection_timeout(Duration::from_secs(5));
    let options = credentials.apply(options).await.map_err(|e| BootstrapError::with_source(BootstrapErrorKind::Credentials, e))?;
    let client = options.connect(addrs).await.map_err(|e| {
        use async_nats::ConnectErrorKind as K;
        let tried = format!("{e} (at {urls}, with {})", credentials.describe());
        let kind = match e.kind() {
            K::AuthorizationViolation => BootstrapErrorKind::Unauthorized,
            K::Tls => BootstrapErrorKind::Tls,
            _ => BootstrapErrorKind::Connect,
        };
        BootstrapError::with_source(kind, tried)
    })?;
    let version = client.server_info().version;
    match server::parse_version(&version) {
        Some(v) if v >= MIN_VERSION => Ok(client),
        _ => Err(BootstrapError::with_source(BootstrapErrorKind::ServerTooOld, format!("server reports {version}"))),
    }
}

/// `FLOOR_TABLES`' duplicate window (issue 33, defect 4): as short as nats-server takes (100 ms).
/// The window is one for the whole stream, across tournaments, and table servers were told to
/// send their `report_id`, unique only within its tournament, as `Nats-Msg-Id`: two tournaments
/// whose tables number their reports alike (`t4-h1-start`) lost each other's reports within a
/// 2-minute window. The contract now scopes the id (`floor_events::table::report_message_id`);
/// the short window keeps a table server that still sends the bare id from losing a report to
/// another tournament's, unless both are sent within the same 100 ms. Floor does not need the
/// stream to drop repeats: seating knows each report by tournament, table and `report_id` (sent
/// again, it is applied once), and tables know each instruction by its per-table `sequence`.
pub const TABLES_DUPLICATE_WINDOW: Duration = Duration::from_millis(100);

/// The variable that says how many copies JetStream keeps of every stream, bucket and object
/// store Floor creates (issue 40): 1 (the default) on one nats-server, 3 on a 3-node cluster
/// (each write acknowledged once a majority of the copies has it). Read when a store is
/// created; a store that exists keeps its own count (raise it with `nats stream edit
/// <stream> --replicas 3`), and one with fewer copies than asked is refused at start
/// ([`crate::shape`]).
pub const REPLICAS_VAR: &str = "FLOOR_REPLICAS";

/// The most copies JetStream keeps of a stream.
pub const MAX_REPLICAS: usize = 5;

/// The number of copies `FLOOR_REPLICAS` asks for: unset or empty is 1.
///
/// # Errors
/// Anything but a whole number from 1 to [`MAX_REPLICAS`], naming the variable.
pub fn parse_replicas(value: Option<&str>) -> Result<usize, String> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else { return Ok(1) };
    match value.parse::<usize>() {
        Ok(n) if (1..=MAX_REPLICAS).contains(&n) => Ok(n),
        _ => {
            Err(format!("{REPLICAS_VAR}={value:?}: the number of copies of each stream, from 1 to {MAX_REPLICAS} (3 on a 3-node cluster)"))
        }
    }
}

/// The number of copies this process creates stores with: `FLOOR_REPLICAS`, 1 when unset (an
/// unusable value is refused by [`ensure_backbone`] before anything is created).
pub fn replicas() -> usize {
    parse_replicas(std::env::var(REPLICAS_VAR).ok().as_deref()).unwrap_or(1)
}

/// The event log: `floor.ev.>` on file, nothing aged out, no message deleted or purged.
pub fn events_config() -> stream::Config {
    stream::Config {
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
        num_replicas: replicas(),
        ..Default::default()
    }
}

/// The tables' stream: instructions, reports and rejections, on file, kept.
pub fn tables_config() -> stream::Config {
    stream::Config {
        name: subjects::TABLES_STREAM.to_owned(),
        subjects: vec![subjects::TABLES_SUBJECTS.to_owned()],
        storage: stream::StorageType::File,
        retention: stream::RetentionPolicy::Limits,
        duplicate_window: TABLES_DUPLICATE_WINDOW,
        allow_direct: true,
        num_replicas: replicas(),
        ..Default::default()
    }
}

/// The key-value buckets every process makes sure of at start, with their descriptions.
pub const BUCKETS: [(&str, &str); 6] = [
    (subjects::LOBBY_BUCKET, "Floor lobby: one document per tournament"),
    (subjects::CHECKPOINT_BUCKET, "Floor projection checkpoints"),
    (subjects::READERS_BUCKET, "Floor readers: the stream and filters each checkpointed reader reads"),
    (subjects::SECRETS_BUCKET, "Floor secrets: seed keys for auditable draws"),
    (subjects::HEALTH_BUCKET, "Floor health: poison commits readers survived, aggregates set aside"),
    (subjects::BOOKS_BUCKET, "Floor books that do not reconcile: one key per tournament, with why"),
];

/// The object stores every process makes sure of at start.
pub const OBJECT_STORES: [(&str, &str); 2] = [
    (subjects::CANCELLATIONS_BUCKET, "Floor cancellations too large for one message, whole: the log's own data"),
    (subjects::SNAPSHOT_BUCKET, "Floor aggregate snapshots: a cache of the log, rebuilt from it if lost"),
];

/// Creates (or finds) the event stream and the KV buckets.
///
/// # Errors
/// `NoJetStream` or `Setup`.
pub async fn ensure_backbone(client: async_nats::Client) -> Result<Backbone, BootstrapError> {
    let jetstream = jetstream::new(client.clone());
    let setup = |e: String| BootstrapError::with_source(BootstrapErrorKind::Setup, e);
    parse_replicas(std::env::var(REPLICAS_VAR).ok().as_deref()).map_err(setup)?;
    jetstream.query_account().await.map_err(|e| BootstrapError::with_source(BootstrapErrorKind::NoJetStream, e))?;
    let events =
        jetstream.get_or_create_stream(events_config()).await.map_err(|e| setup(format!("stream {}: {e}", subjects::EVENTS_STREAM)))?;
    let mut tables =
        jetstream.get_or_create_stream(tables_config()).await.map_err(|e| setup(format!("stream {}: {e}", subjects::TABLES_STREAM)))?;
    // A store created before issue 33 has the 2-minute window that dropped one tournament's
    // reports as another's duplicates: narrow it (the only setting Floor changes in place).
    let window = tables.cached_info().config.duplicate_window;
    if window != TABLES_DUPLICATE_WINDOW {
        let mut config = tables.cached_info().config.clone();
        config.duplicate_window = TABLES_DUPLICATE_WINDOW;
        jetstream.update_stream(config).await.map_err(|e| setup(format!("stream {}: {e}", subjects::TABLES_STREAM)))?;
        tracing::info!(stream = subjects::TABLES_STREAM, from = ?window, to = ?TABLES_DUPLICATE_WINDOW, "narrowed the duplicate window");
        tables =
            jetstream.get_stream(subjects::TABLES_STREAM).await.map_err(|e| setup(format!("stream {}: {e}", subjects::TABLES_STREAM)))?;
    }
    for (bucket, description) in BUCKETS {
        key_value(&jetstream, bucket, description).await.map_err(setup)?;
    }
    for (bucket, description) in OBJECT_STORES {
        object_store(&jetstream, bucket, description).await.map_err(setup)?;
    }
    // The log's shape (issue 34): a store that is not as Floor created it is not served.
    let changed = crate::shape::observe(&jetstream, &crate::shape::expected()).await.map_err(setup)?;
    if !changed.is_empty() {
        return Err(BootstrapError::with_source(BootstrapErrorKind::StoreChanged, changed.join("; ")));
    }
    let health =
        jetstream.get_key_value(subjects::HEALTH_BUCKET).await.map_err(|e| setup(format!("bucket {}: {e}", subjects::HEALTH_BUCKET)))?;
    let tail = Tail::new(events.clone());
    Ok(Backbone { client, jetstream, events, tables, health: Health::new(health), tail })
}

/// The key-value bucket `bucket` (one value per key, on file), created with `description` if
/// it does not exist yet. Another process creating it at the same moment is not an error: the
/// bucket it created is returned.
///
/// # Errors
/// When the bucket can neither be read nor created: the reason, naming the bucket.
pub async fn key_value(jetstream: &jetstream::Context, bucket: &str, description: &str) -> Result<kv::Store, String> {
    let config = kv::Config {
        bucket: bucket.to_owned(),
        description: description.to_owned(),
        history: 1,
        storage: stream::StorageType::File,
        num_replicas: replicas(),
        ..Default::default()
    };
    key_value_as(jetstream, config).await
}

/// The key-value bucket `config.bucket`, created as `config` says if it does not exist yet (an
/// existing one is used as it is); another process creating it at the same moment is not an
/// error, as for [`key_value`]. A config that names no more than one copy gets
/// [`replicas`].
///
/// # Errors
/// When the bucket can neither be read nor created: the reason, naming the bucket.
pub async fn key_value_as(jetstream: &jetstream::Context, mut config: kv::Config) -> Result<kv::Store, String> {
    config.num_replicas = config.num_replicas.max(replicas());
    let bucket = config.bucket.clone();
    if let Ok(store) = jetstream.get_key_value(&bucket).await {
        return Ok(store);
    }
    match jetstream.create_key_value(config).await {
        Ok(store) => Ok(store),
        Err(e) => jetstream.get_key_value(&bucket).await.map_err(|_| format!("bucket {bucket}: {e}")),
    }
}

/// The object store `bucket` (on file), created with `description` if it does not exist yet;
/// another process creating it at the same moment is not an error, as for [`key_value`].
///
/// # Errors
/// When the store can neither be read nor created: the reason, naming it.
pub async fn object_store(jetstream: &jetstream::Context, bucket: &str, description: &str) -> Result<object_store::ObjectStore, String> {
    if let Ok(store) = jetstream.get_object_store(bucket).await {
        return Ok(store);
    }
    let created = jetstream
        .create_object_store(object_store::Config {
            bucket: bucket.to_owned(),
            description: Some(description.to_owned()),
            storage: stream::StorageType::File,
            num_replicas: replicas(),
            ..Default::default()
        })
        .await;
    match created {
        Ok(store) => Ok(store),
        Err(e) => jetstream.get_object_store(bucket).await.map_err(|_| format!("object store {bucket}: {e}")),
    }
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

/// Where a local command joins, and as whom: `NATS_URL` with the environment's credentials, or
/// the `floor run` of `data_dir` with the credential of `role` kept there (issue 34).
///
/// # Errors
/// `NothingToJoin`, or credentials that cannot be used.
pub fn join(data_dir: &Path, role: crate::roles::Role) -> Result<(String, Credentials), BootstrapError> {
    let url = url_to_join(data_dir)?;
    let from_env = std::env::var("NATS_URL").is_ok_and(|u| !u.trim().is_empty());
    let credentials = if from_env { Credentials::from_env() } else { Credentials::for_role(data_dir, role) };
    Ok((url, credentials.map_err(|e| BootstrapError::with_source(BootstrapErrorKind::Credentials, e))?))
}

/// Where `floor run` records the embedded server's process id, so the next run on the same
/// directory can find a server a crash left running.
pub fn server_pid_path(data_dir: &Path) -> PathBuf {
    data_dir.join("nats.pid")
}

/// The lock file of a data directory: exclusively locked (`flock`) by the `floor run` that
/// uses the directory, and holding its process id.
pub fn lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join("floor.lock")
}

/// The exclusive lock of one process on a data directory, held until dropped (and released
/// by the kernel when the process dies, `kill -9` included, so a crash never leaves it
/// taken). Two nats-servers on one JetStream store corrupt it; this is what keeps a second
/// `floor run` from starting one.
pub struct DataDirLock {
    // Held for its lock; never read again. Opened close-on-exec (std's default), so the
    // nats-server child does not inherit it and cannot keep the directory locked after us.
    _file: std::fs::File,
}

impl DataDirLock {
    /// Takes the lock on `data_dir` (creating the directory), or says who holds it.
    ///
    /// # Errors
    /// `DataDirInUse` naming the holder's process id; `Embedded` when the directory or the
    /// lock file cannot be created.
    pub fn acquire(data_dir: &Path) -> Result<Self, BootstrapError> {
        use std::io::Write;
        let embedded = |e| BootstrapError::with_source(BootstrapErrorKind::Embedded, e);
        std::fs::create_dir_all(data_dir).map_err(embedded)?;
        let path = lock_path(data_dir);
        // Not truncated on open: the holder's pid must stay readable to the process refused.
        let mut file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(embedded)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let holder = std::fs::read_to_string(&path).ok().and_then(|s| s.trim().parse::<u32>().ok());
                let held = match holder {
                    Some(pid) => format!("pid {pid} holds {}", path.display()),
                    None => format!("another process holds {}", path.display()),
                };
                return Err(BootstrapError::with_source(BootstrapErrorKind::DataDirInUse, held));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(embedded(e)),
        }
        file.set_len(0).map_err(embedded)?;
        file.write_all(format!("{}\n", std::process::id()).as_bytes()).map_err(embedded)?;
        Ok(Self { _file: file })
    }
}

/// Stops a nats-server that an earlier `floor run` on `data_dir` left running (its pid in
/// `nats.pid`, its command line naming this directory's config), so two servers never share
/// the store. Called with the directory's lock held, so the recorded server is nobody's.
///
/// # Errors
/// `Embedded` when it is still running after SIGTERM, 10 s and SIGKILL.
fn stop_leftover_server(data_dir: &Path) -> Result<(), BootstrapError> {
    let pid_file = server_pid_path(data_dir);
    let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|s| s.trim().parse::<u32>().ok()) else { return Ok(()) };
    if server::is_nats_server_for(pid, &server::config_path(&data_dir.join("nats"))) {
        tracing::warn!(pid, data = %data_dir.display(), "stopping the nats-server an earlier `floor run` left running on this data directory");
        if !server::stop_process(pid, Duration::from_secs(10)) {
            return Err(BootstrapError::with_source(
                BootstrapErrorKind::Embedded,
                format!("nats-server pid {pid}, left by an earlier `floor run` on {}, does not stop", data_dir.display()),
            ));
        }
    }
    let _ = std::fs::remove_file(&pid_file);
    Ok(())
}

/// Who may use the embedded server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The roles of issue 34, with the credentials in the data directory (the default).
    Roles,
    /// Anyone who reaches its port: development only (`--insecure-nats`), with a warning.
    Open,
}

/// The embedded server of `floor run`: JetStream in `<data_dir>/nats`, fsync on every write, its
/// URL recorded in `<data_dir>/nats.url` and its pid in `<data_dir>/nats.pid` until dropped.
/// Reuses the previous port when free, so clients that cached the URL keep working across
/// restarts.
///
/// It owns the directory: it takes [`DataDirLock`] first (a second `floor run` there is
/// refused, naming the first), then stops a server a crashed run left behind, then starts its
/// own, which dies with this process ([`server::spawn_bound_to_process`]).
pub struct EmbeddedServer {
    server: NatsServer,
    url_file: PathBuf,
    pid_file: PathBuf,
    /// Declared last: released only after the server is stopped.
    _lock: DataDirLock,
}

impl EmbeddedServer {
    /// Starts it.
    ///
    /// # Errors
    /// `DataDirInUse` when another process holds the directory; `Embedded`, with the reason (no
    /// binary, too old, port busy, a leftover server that does not stop…).
    pub fn start(data_dir: &Path) -> Result<Self, BootstrapError> {
        Self::start_with(data_dir, Access::Roles)
    }

    /// Starts it as [`EmbeddedServer::start`] does, with the roles of issue 34 or, for
    /// development only, open to anyone who reaches its port ([`Access::Open`]).
    ///
    /// # Errors
    /// As [`EmbeddedServer::start`]; the credentials' files cannot be written.
    pub fn start_with(data_dir: &Path, access: Access) -> Result<Self, BootstrapError> {
        let embedded = |e| BootstrapError::with_source(BootstrapErrorKind::Embedded, e);
        let lock = DataDirLock::acquire(data_dir)?;
        // Absolute from here on: the server's command line then names its config in a form
        // the next run can compare with, from any working directory.
        let data_dir = &data_dir.canonicalize().map_err(|e| BootstrapError::with_source(BootstrapErrorKind::Embedded, e))?;
        stop_leftover_server(data_dir)?;
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
            extra: match access {
                Access::Roles => {
                    crate::local_users::ensure(data_dir).map_err(|e| BootstrapError::with_source(BootstrapErrorKind::Embedded, e))?;
                    "include \"auth.conf\"\n".to_owned()
                }
                Access::Open => {
                    tracing::warn!("the embedded nats-server takes anyone who reaches its port (--insecure-nats): for development only");
                    String::new()
                }
            },
        };
        let server = NatsServer::start(options).map_err(embedded)?;
        let pid_file = server_pid_path(data_dir);
        let pid = server.pid().map(|p| p.to_string()).unwrap_or_default();
        std::fs::write(&pid_file, format!("{pid}\n")).map_err(|e| BootstrapError::with_source(BootstrapErrorKind::Embedded, e))?;
        std::fs::write(&url_file, format!("{}\n", server.url()))
            .map_err(|e| BootstrapError::with_source(BootstrapErrorKind::Embedded, e))?;
        Ok(Self { server, url_file, pid_file, _lock: lock })
    }

    /// Its URL.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The nats-server's process id.
    pub fn pid(&self) -> Option<u32> {
        self.server.pid()
    }

    /// Stops the server gracefully and forgets the recorded URL and pid.
    pub fn stop(mut self) {
        self.server.stop();
        let _ = std::fs::remove_file(&self.pid_file);
        let _ = std::fs::remove_file(&self.url_file);
    }
}

impl Drop for EmbeddedServer {
    fn drop(&mut self) {
        // The server itself is killed by its own drop, right after.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_replicas_is_one_unless_set_and_refused_outside_one_to_five() {
        assert_eq!(parse_replicas(None), Ok(1));
        assert_eq!(parse_replicas(Some("")), Ok(1));
        assert_eq!(parse_replicas(Some(" 3 ")), Ok(3));
        assert_eq!(parse_replicas(Some("5")), Ok(5));
        for bad in ["0", "6", "-1", "three", "3.0"] {
            let refused = parse_replicas(Some(bad)).expect_err(bad);
            assert!(refused.contains("FLOOR_REPLICAS") && refused.contains(bad), "{refused}");
        }
    }

    #[test]
    fn a_locked_data_directory_is_refused_naming_its_holder_until_released() {
        let data = tempfile::tempdir().expect("temp dir");
        let held = DataDirLock::acquire(data.path()).expect("first lock");

        let refused = DataDirLock::acquire(data.path()).err().expect("second lock refused");
        drop(held);
        let again = DataDirLock::acquire(data.path());

        assert_eq!(refused.kind(), BootstrapErrorKind::DataDirInUse);
        assert!(refused.to_string().contains(&format!("pid {}", std::process::id())), "names the holder: {refused}");
        assert!(again.is_ok(), "released with its holder");
    }

    #[test]
    fn a_pid_file_naming_no_nats_server_of_this_directory_stops_nothing() {
        let data = tempfile::tempdir().expect("temp dir");
        // This test process: running, but not a nats-server on this directory's config.
        std::fs::write(server_pid_path(data.path()), format!("{}\n", std::process::id())).expect("pid file");

        stop_leftover_server(data.path()).expect("nothing to stop");

        assert!(server::is_running(std::process::id()));
        assert!(!server_pid_path(data.path()).exists(), "the stale pid file is gone");
    }
}
