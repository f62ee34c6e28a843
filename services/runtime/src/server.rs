//! A nats-server child process.
//!
//! Two users: `floor run` without `NATS_URL` starts one with JetStream under `./data/` (the
//! embedded default), and every test that touches the backbone starts its own on a free loopback
//! port with a temporary directory, never the shared server on 4222. `restart()` keeps port and
//! directory, so crash tests can kill the server and bring the same one back.
//!
//! A server belongs to the process that started it: on Linux the child asks the kernel for
//! SIGTERM when its parent dies (`PR_SET_PDEATHSIG`), so a `kill -9` of `floor run` (or of a
//! test) does not leave a nats-server running on its store. The kernel sends that signal when
//! the *thread* that forked the child ends, not the process: children are therefore forked by
//! one thread kept for the life of the process ([`spawn_bound_to_process`]), never by a test's
//! thread or one of tokio's blocking threads, which come and go. [`is_nats_server_for`],
//! [`stop_process`] and [`wait_for_exit`] find and stop a server some earlier process left
//! behind anyway (another OS, or one that outlived its signal).

use crate::error::Error;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

/// The oldest nats-server Floor runs on: 2.9 has a broken per-subject check on replicated
/// streams, and async-nats cannot create KV buckets on it.
pub const MIN_VERSION: (u32, u32) = (2, 10);

/// What went wrong starting a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerErrorKind {
    /// No nats-server binary was found.
    NotFound,
    /// The binary found is older than [`MIN_VERSION`].
    TooOld,
    /// It was started but did not accept connections in time, or exited.
    NotReady,
    /// Files or processes could not be created.
    Io,
}

impl std::fmt::Display for ServerErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::NotFound => "no nats-server found (set FLOOR_NATS_SERVER, put nats-server >= 2.10 next to floor or on PATH, or run `make tools` in a checkout)",
            Self::TooOld => "nats-server is older than 2.10 (run `make tools` to install the pinned one into .tools/bin)",
            Self::NotReady => "nats-server did not become ready",
            Self::Io => "cannot start nats-server",
        })
    }
}

/// Error starting or finding a server.
pub type ServerError = Error<ServerErrorKind>;

/// How to start a server.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The nats-server binary.
    pub binary: PathBuf,
    /// Directory for the config file, logs and the JetStream store (`<dir>/jetstream`).
    pub dir: PathBuf,
    /// Loopback port; 0 picks a free one.
    pub port: u16,
    /// fsync every write (`sync_interval: always`): what a single production node needs so an
    /// acknowledged command survives power loss. Tests leave it off; crash tests kill the
    /// process, not the machine, and the OS keeps what was written.
    pub sync_always: bool,
    /// More configuration, written after the rest (authorization, accounts, TLS: issue 34).
    pub extra: String,
}

/// A running nats-server child. Dropping it kills the process.
pub struct NatsServer {
    child: Option<Child>,
    options: ServerOptions,
    port: u16,
    _temp: Option<tempfile::TempDir>,
}

impl NatsServer {
    /// Starts a server for a test: free port, fresh temporary directory, no fsync.
    ///
    /// # Errors
    /// See [`ServerErrorKind`].
    pub fn start_temp() -> Result<Self, ServerError> {
        let temp =
            tempfile::Builder::new().prefix("floor-nats-").tempdir().map_err(|e| ServerError::with_source(ServerErrorKind::Io, e))?;
        let options =
            ServerOptions { binary: find_binary()?, dir: temp.path().to_owned(), port: 0, sync_always: false, extra: String::new() };
        let mut server = Self::start(options)?;
        server._temp = Some(temp);
        Ok(server)
    }

    /// Starts a server for a test as [`NatsServer::start_temp`] does, with `extra` in its
    /// configuration (an `authorization` block, accounts, TLS).
    ///
    /// # Errors
    /// See [`ServerErrorKind`].
    pub fn start_temp_with(extra: &str) -> Result<Self, ServerError> {
        let temp =
            tempfile::Builder::new().prefix("floor-nats-").tempdir().map_err(|e| ServerError::with_source(ServerErrorKind::Io, e))?;
        let options =
            ServerOptions { binary: find_binary()?, dir: temp.path().to_owned(), port: 0, sync_always: false, extra: extra.to_owned() };
        let mut server = Self::start(options)?;
        server._temp = Some(temp);
        Ok(server)
    }

    /// Starts a server with these options and waits until it accepts connections.
    ///
    /// # Errors
    /// See [`ServerErrorKind`].
    pub fn start(mut options: ServerOptions) -> Result<Self, ServerError> {
        let io = |e| ServerError::with_source(ServerErrorKind::Io, e);
        std::fs::create_dir_all(&options.dir).map_err(io)?;
        if options.port == 0 {
            options.port = free_port().map_err(io)?;
        }
        let mut server = Self { child: None, port: options.port, options, _temp: None };
        server.spawn()?;
        Ok(server)
    }

    fn spawn(&mut self) -> Result<(), ServerError> {
        let io = |e| ServerError::with_source(ServerErrorKind::Io, e);
        let dir = &self.options.dir;
        let config = config_path(dir);
        let store = dir.join("jetstream");
        let sync = if self.options.sync_always { "\n  sync_interval: always" } else { "" };
        std::fs::write(
            &config,
            format!(
                "# Written by Floor; rewritten at every start.\nlisten: \"127.0.0.1:{}\"\nserver_name: floor_{}\njetstream {{\n  store_dir: {:?}{sync}\n}}\n{}",
                self.port,
                self.port,
                store.display().to_string(),
                self.options.extra
            ),
        )
        .map_err(io)?;
        let log = std::fs::File::create(dir.join("nats-server.log")).map_err(io)?;
        let mut command = Command::new(&self.options.binary);
        command.arg("-c").arg(&config).stdin(Stdio::null()).stdout(log.try_clone().map_err(io)?).stderr(log);
        // A process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group) reaches
        // floor, which stops its services and then this server, last, not the server at once.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = spawn_bound_to_process(command).map_err(io)?;
        self.child = Some(child);
        self.wait_ready(Duration::from_secs(20))
    }

    /// Waits until the port accepts TCP connections: nats-server opens its client port only
    /// after JetStream has recovered its store, so a connection means ready.
    fn wait_ready(&mut self, deadline: Duration) -> Result<(), ServerError> {
        let start = Instant::now();
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        loop {
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(ServerError::with_source(
                        ServerErrorKind::NotReady,
                        format!("exited with {status}; see {}", self.options.dir.join("nats-server.log").display()),
                    ));
                }
            }
            if start.elapsed() > deadline {
                return Err(ServerError::with_source(ServerErrorKind::NotReady, format!("port {} not open after {deadline:?}", self.port)));
            }
            // Readiness of a child process has no event to wait on; poll the port briefly.
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The process id of the running server (`None` once killed or stopped).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The directory holding its store, config and log.
    pub fn dir(&self) -> &Path {
        &self.options.dir
    }

    /// Kills the process at once (SIGKILL): a crash, not a shutdown.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops gracefully (SIGTERM lets JetStream flush), waiting up to 10 s before killing.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(10) {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the process and starts it again on the same port with the same store.
    ///
    /// # Errors
    /// See [`ServerErrorKind`].
    pub fn restart(&mut self) -> Result<(), ServerError> {
        self.kill();
        self.spawn()
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The config file of a server whose directory is `dir` (rewritten at every start).
pub fn config_path(dir: &Path) -> PathBuf {
    dir.join("nats-server.conf")
}

/// A request to the spawning thread: the command, and where to send the child.
type SpawnRequest = (Command, mpsc::Sender<std::io::Result<Child>>);

/// Starts `command` as a child that dies with this process.
///
/// On Linux the child sets `PR_SET_PDEATHSIG` (SIGTERM, so nats-server closes its store as on
/// a normal stop) before it executes the binary, and exits at once if its parent is already
/// gone (the window between fork and `prctl`). Because the kernel sends the signal when the
/// forking *thread* ends, the fork happens on one thread started for it and never ended; a
/// caller on a thread that ends (a test, `spawn_blocking`) would otherwise have its server
/// killed under it. Elsewhere it is a plain spawn.
///
/// # Errors
/// The spawn's.
pub fn spawn_bound_to_process(mut command: Command) -> std::io::Result<Child> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: runs in the forked child before exec; prctl and getppid are async-signal-safe
        // and nothing here allocates.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::getppid() as u32 != parent {
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    static SPAWNER: OnceLock<Option<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (requests, incoming) = mpsc::channel::<SpawnRequest>();
        // The sender lives in the static, so this thread lives as long as the process.
        std::thread::Builder::new()
            .name("floor-child-spawner".into())
            .spawn(move || {
                for (mut command, reply) in incoming {
                    let _ = reply.send(command.spawn());
                }
            })
            .ok()
            .map(|_| requests)
    });
    let Some(spawner) = spawner else { return command.spawn() };
    let (reply, child) = mpsc::channel();
    spawner.send((command, reply)).map_err(|_| std::io::Error::other("the spawning thread is gone"))?;
    child.recv().map_err(|_| std::io::Error::other("the spawning thread is gone"))?
}

/// Whether process `pid` is running (not exited, not a zombie waiting to be reaped).
pub fn is_running(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        // /proc/<pid>/stat: "pid (comm) state …"; the command name may hold spaces and parens.
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => {
                stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()).is_some_and(|state| state != "Z" && state != "X")
            }
            Err(_) => false,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        // SAFETY: signal 0 only checks that the process exists.
        unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
    }
}

/// Whether process `pid` is a running nats-server started with the config file `config`: its
/// command line names a `nats-server` binary and, after `-c`/`--config`, that file. Checked
/// before stopping a process named in a pid file, whose number the OS may have given to
/// another process since. Linux only (reads `/proc`); elsewhere `false`.
pub fn is_nats_server_for(pid: u32, config: &Path) -> bool {
    if !cfg!(target_os = "linux") || !is_running(pid) {
        return false;
    }
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let args: Vec<PathBuf> =
        cmdline.split(|&b| b == 0).filter(|a| !a.is_empty()).map(|a| PathBuf::from(String::from_utf8_lossy(a).into_owned())).collect();
    let is_nats = args.first().and_then(|a| a.file_name()).is_some_and(|name| name.to_string_lossy().contains("nats-server"));
    let Some(theirs) = args.windows(2).find(|w| w[0].as_os_str() == "-c" || w[0].as_os_str() == "--config").map(|w| w[1].clone()) else {
        return false;
    };
    let theirs = match std::fs::read_link(format!("/proc/{pid}/cwd")) {
        Ok(cwd) if theirs.is_relative() => cwd.join(theirs),
        _ => theirs,
    };
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    is_nats && same(&theirs, config)
}

/// Stops a process that is not this one's child: SIGTERM, up to `grace` for it to exit, then
/// SIGKILL. `true` once it has exited.
pub fn stop_process(pid: u32, grace: Duration) -> bool {
    // SAFETY: plain signals to a process id checked by the caller.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
    if wait_for_exit(pid, grace) {
        return true;
    }
    // SAFETY: as above.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    wait_for_exit(pid, Duration::from_secs(5))
}

/// Waits until process `pid` (any process, not only a child) has exited, at most `deadline`;
/// `true` if it has. On Linux it waits on a pidfd, which the kernel makes readable when the
/// process exits; elsewhere it looks every 10 ms.
pub fn wait_for_exit(pid: u32, deadline: Duration) -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        if fd >= 0 {
            let fd = fd as libc::c_int;
            let mut poll = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
            let millis = deadline.as_millis().min(i32::MAX as u128) as libc::c_int;
            // SAFETY: one valid pollfd; the descriptor is ours and closed right after.
            let ready = unsafe { libc::poll(&mut poll, 1, millis) };
            unsafe { libc::close(fd) };
            return ready > 0 || !is_running(pid);
        }
    }
    let start = Instant::now();
    while is_running(pid) {
        if start.elapsed() > deadline {
            return false;
        }
        // No exit event to wait on here (no pidfd): look again shortly.
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Asks the OS for a free loopback port.
pub fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Where [`find_binary`] looks for nats-server: what it reads from the environment, passed in so
/// the order is a pure function ([`Lookup::candidates`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lookup {
    /// `$FLOOR_NATS_SERVER`, when set (and not empty).
    pub configured: Option<PathBuf>,
    /// The directory of the running executable (`floor`, or a test binary).
    pub exe_dir: Option<PathBuf>,
    /// The current directory.
    pub current_dir: Option<PathBuf>,
    /// `$PATH`.
    pub path: Option<std::ffi::OsString>,
}

impl Lookup {
    /// This process's environment.
    pub fn from_env() -> Self {
        Self {
            configured: std::env::var_os("FLOOR_NATS_SERVER").filter(|v| !v.is_empty()).map(PathBuf::from),
            exe_dir: std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_path_buf)),
            current_dir: std::env::current_dir().ok(),
            path: std::env::var_os("PATH"),
        }
    }

    /// The binaries to try, in order:
    ///
    /// 1. `$FLOOR_NATS_SERVER`: when set it is the only candidate (a wrong override is an error,
    ///    not a reason to run some other server);
    /// 2. `nats-server` next to the executable (a release unpacked with its server);
    /// 3. `.tools/bin/nats-server` in the current directory or one of its parents (where
    ///    `make tools` installs the pinned server in a checkout);
    /// 4. `nats-server` in each directory of `$PATH`.
    ///
    /// Nothing is compiled in from the machine that built the binary: a copied `floor` finds
    /// only servers its user put in one of these places.
    pub fn candidates(&self) -> Vec<PathBuf> {
        if let Some(configured) = &self.configured {
            return vec![configured.clone()];
        }
        let mut candidates: Vec<PathBuf> = Vec::new();
        candidates.extend(self.exe_dir.iter().map(|d| d.join("nats-server")));
        if let Some(cwd) = &self.current_dir {
            candidates.extend(cwd.ancestors().map(|d| d.join(".tools/bin/nats-server")));
        }
        if let Some(path) = &self.path {
            candidates.extend(std::env::split_paths(path).map(|d| d.join("nats-server")));
        }
        candidates
    }
}

/// Finds a nats-server >= 2.10 in the places [`Lookup::candidates`] lists, for this process.
///
/// # Errors
/// [`ServerErrorKind::NotFound`] (naming `$FLOOR_NATS_SERVER` when it is set and is no
/// nats-server) or [`ServerErrorKind::TooOld`] (naming the version found).
pub fn find_binary() -> Result<PathBuf, ServerError> {
    let lookup = Lookup::from_env();
    let found = find_binary_among(lookup.candidates());
    match (&lookup.configured, found) {
        (Some(configured), Err(e)) if e.kind() == ServerErrorKind::NotFound => Err(ServerError::with_source(
            ServerErrorKind::NotFound,
            format!("FLOOR_NATS_SERVER={} is not a nats-server", configured.display()),
        )),
        (_, found) => found,
    }
}

/// The first of `candidates` that is a nats-server >= 2.10 (by its `--version`).
///
/// # Errors
/// [`ServerErrorKind::NotFound`] when none is a nats-server, [`ServerErrorKind::TooOld`]
/// (naming the last too old one and its version) when those found are all older.
pub fn find_binary_among(candidates: impl IntoIterator<Item = PathBuf>) -> Result<PathBuf, ServerError> {
    let mut too_old = None;
    for candidate in candidates.into_iter().filter(|c| c.is_file()) {
        match binary_version(&candidate) {
            Some(v) if v >= MIN_VERSION => return Ok(candidate),
            Some(v) => too_old = Some(format!("{} is v{}.{}", candidate.display(), v.0, v.1)),
            None => {}
        }
    }
    Err(match too_old {
        Some(found) => ServerError::with_source(ServerErrorKind::TooOld, found),
        None => ServerError::new(ServerErrorKind::NotFound),
    })
}

/// `(major, minor)` of a nats-server binary, from `--version`.
pub fn binary_version(binary: &Path) -> Option<(u32, u32)> {
    let out = Command::new(binary).arg("--version").output().ok()?;
    parse_version(&String::from_utf8_lossy(&out.stdout))
}

/// Parses `(major, minor)` out of text like `nats-server: v2.12.8` or `2.10.4`.
pub fn parse_version(text: &str) -> Option<(u32, u32)> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let mut parts = text[start..].split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_from_server_output() {
        assert_eq!(parse_version("nats-server: v2.12.8\n"), Some((2, 12)));
        assert_eq!(parse_version("2.9.10"), Some((2, 9)));
        assert_eq!(parse_version("garbage"), None);
        assert!(parse_version("v2.9.10").unwrap() < MIN_VERSION);
    }

    fn lookup() -> Lookup {
        Lookup {
            configured: None,
            exe_dir: Some("/opt/floor/bin".into()),
            current_dir: Some("/home/ana/floor".into()),
            path: Some("/usr/local/bin:/usr/bin".into()),
        }
    }

    #[test]
    fn nats_server_is_looked_for_next_to_floor_then_in_tools_bin_then_on_path() {
        let candidates = lookup().candidates();

        let expected: Vec<PathBuf> = [
            "/opt/floor/bin/nats-server",
            "/home/ana/floor/.tools/bin/nats-server",
            "/home/ana/.tools/bin/nats-server",
            "/home/.tools/bin/nats-server",
            "/.tools/bin/nats-server",
            "/usr/local/bin/nats-server",
            "/usr/bin/nats-server",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(candidates, expected);
    }

    #[test]
    fn floor_nats_server_when_set_is_the_only_candidate() {
        let set = Lookup { configured: Some("/srv/nats/nats-server".into()), ..lookup() };

        assert_eq!(set.candidates(), vec![PathBuf::from("/srv/nats/nats-server")]);
    }

    #[test]
    fn no_candidate_comes_from_the_machine_that_built_floor() {
        let nothing = Lookup::default();
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");

        assert!(nothing.candidates().is_empty());
        assert!(!lookup().candidates().iter().any(|c| c.starts_with(&workspace)), "{:?}", lookup().candidates());
    }

    #[test]
    fn a_configured_path_that_is_no_nats_server_is_not_found_not_replaced() {
        let missing = PathBuf::from("/nonexistent/floor-test/nats-server");

        let err = find_binary_among(Lookup { configured: Some(missing.clone()), ..lookup() }.candidates()).expect_err("missing");

        assert_eq!(err.kind(), ServerErrorKind::NotFound);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod process_tests {
    use super::*;

    /// PR_SET_PDEATHSIG fires when the thread that forked the child ends. A server started
    /// from a thread that ends (a test's, a blocking task's) must outlive that thread.
    #[test]
    fn a_child_started_from_a_thread_that_ends_outlives_the_thread() {
        let child = std::thread::spawn(|| {
            let mut sleep = Command::new("sleep");
            sleep.arg("30");
            spawn_bound_to_process(sleep).expect("spawned")
        })
        .join()
        .expect("thread");
        let pid = child.id();

        let exited = wait_for_exit(pid, Duration::from_millis(500));

        assert!(!exited, "the child was killed when the thread that asked for it ended");
        assert!(stop_process(pid, Duration::from_secs(5)), "stopped");
        let mut child = child;
        let _ = child.wait();
    }

    #[test]
    fn only_a_nats_server_with_that_config_is_recognised() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut sleep = Command::new("sleep");
        sleep.arg("30");
        let mut child = spawn_bound_to_process(sleep).expect("spawned");

        assert!(!is_nats_server_for(child.id(), &config_path(dir.path())), "a sleep is no nats-server");
        assert!(!is_nats_server_for(std::process::id(), &config_path(dir.path())));
        let _ = child.kill();
        let _ = child.wait();
        assert!(!is_running(child.id()));
    }
}
