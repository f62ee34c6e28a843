//! The embedded server's users (issue 34): `floor run` without `NATS_URL` is secure by default.
//! Its data directory holds one credential per role (`credentials/<role>.env`, mode 0600,
//! random 64-hex-digit passwords made once), the table credentials issued so far
//! (`credentials/tables.json`), and the server's `authorization` block made from them
//! (`nats/auth.conf`, included by the server's config). Every local command finds its
//! credential there as it finds the URL ([`crate::bootstrap::join`]). Issuing or revoking a
//! table credential rewrites the block and tells the running server to reload it (SIGHUP):
//! a revoked table's connection is closed by the server.

use crate::roles::{authorization, Role, TableScope, User};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The roles every secure data directory has a credential for.
pub const ROLES: [Role; 4] = [Role::Service, Role::Admin, Role::Director, Role::Reader];

/// The file of the table credentials issued.
pub fn tables_file(data_dir: &Path) -> PathBuf {
    data_dir.join("credentials").join("tables.json")
}

/// The server's authorization block, next to its config.
pub fn auth_file(data_dir: &Path) -> PathBuf {
    data_dir.join("nats").join("auth.conf")
}

/// A fresh password: 256 random bits from the OS (two UUID v4s), as hex.
fn password() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

/// Writes `contents` to `path` readable by its owner only (0600), replacing it whole.
fn write_private(path: &Path, contents: &[u8]) -> Result<(), String> {
    let dir = path.parent().ok_or_else(|| format!("{}: no directory", path.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    #[cfg(unix)]
    if dir.ends_with("credentials") {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let temp = path.with_extension("tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&temp).map_err(|e| format!("{}: {e}", temp.display()))?;
    file.write_all(contents).and_then(|()| file.sync_all()).map_err(|e| format!("{}: {e}", temp.display()))?;
    std::fs::rename(&temp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The user of a role file, made (with a fresh password) when missing.
fn role_user(data_dir: &Path, role: Role) -> Result<User, String> {
    let file = crate::credentials::role_file(data_dir, role);
    if !file.exists() {
        let user = format!("floor-{}", role.name());
        let body = format!(
            "# Floor's {} credential for the embedded server of this directory (issue 34). Keep it secret.\nNATS_USER={user}\nNATS_PASSWORD={}\n",
            role.name(),
            password()
        );
        write_private(&file, body.as_bytes())?;
    }
    let credentials = crate::credentials::Credentials::from_env_file(&file).map_err(|e| e.to_string())?;
    match credentials.auth {
        crate::credentials::Auth::UserPassword { user, password } => Ok(User { user, password, role, scope: None }),
        _ => Err(format!("{}: not a user and password", file.display())),
    }
}

/// The table credentials issued and not revoked.
pub fn tables(data_dir: &Path) -> Result<Vec<User>, String> {
    let file = tables_file(data_dir);
    match std::fs::read(&file) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", file.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("{}: {e}", file.display())),
    }
}

/// Every user of the directory's server (the roles' made when missing), and writes the
/// server's authorization block from them.
///
/// # Errors
/// A file that cannot be read or written.
pub fn ensure(data_dir: &Path) -> Result<Vec<User>, String> {
    let mut users = ROLES.iter().map(|r| role_user(data_dir, *r)).collect::<Result<Vec<_>, _>>()?;
    users.extend(tables(data_dir)?);
    write_private(&auth_file(data_dir), authorization(&users).as_bytes())?;
    Ok(users)
}

/// Issues a table credential for `scope`, writes it into the server's block and reloads the
/// server of `data_dir` (when it runs).
///
/// # Errors
/// A file that cannot be read or written, or a server that cannot be told.
pub fn issue_table(data_dir: &Path, scope: TableScope) -> Result<User, String> {
    let mut issued = tables(data_dir)?;
    let name = match scope.table {
        Some(n) => format!("table-{}-{n}-{}", scope.tournament, &uuid::Uuid::new_v4().simple().to_string()[..8]),
        None => format!("tables-{}-{}", scope.tournament, &uuid::Uuid::new_v4().simple().to_string()[..8]),
    };
    let user = User { user: name, password: password(), role: Role::Table, scope: Some(scope) };
    issued.push(user.clone());
    write_private(&tables_file(data_dir), &serde_json::to_vec_pretty(&issued).expect("users serialize"))?;
    ensure(data_dir)?;
    reload(data_dir)?;
    Ok(user)
}

/// Revokes the table credential `user`: out of the block, the server reloaded, its connections
/// closed by the server. `false` when no such credential was issued.
///
/// # Errors
/// As [`issue_table`].
pub fn revoke_table(data_dir: &Path, user: &str) -> Result<bool, String> {
    let mut issued = tables(data_dir)?;
    let before = issued.len();
    issued.retain(|u| u.user != user);
    if issued.len() == before {
        return Ok(false);
    }
    write_private(&tables_file(data_dir), &serde_json::to_vec_pretty(&issued).expect("users serialize"))?;
    ensure(data_dir)?;
    reload(data_dir)?;
    Ok(true)
}

/// Tells the directory's running nats-server to reload its configuration (SIGHUP to the pid
/// `floor run` recorded). No server running: nothing to tell (the next start reads the block).
///
/// # Errors
/// The signal could not be sent.
pub fn reload(data_dir: &Path) -> Result<(), String> {
    let Ok(pid) = std::fs::read_to_string(crate::bootstrap::server_pid_path(data_dir)) else { return Ok(()) };
    let Ok(pid) = pid.trim().parse::<i32>() else { return Ok(()) };
    if !crate::server::is_running(pid as u32) {
        return Ok(());
    }
    // SAFETY: kill(2) with a pid read from our own record and a constant signal.
    let sent = unsafe { libc::kill(pid, libc::SIGHUP) };
    if sent == 0 {
        Ok(())
    } else {
        Err(format!("cannot tell nats-server (pid {pid}) to reload: {}", std::io::Error::last_os_error()))
    }
}
