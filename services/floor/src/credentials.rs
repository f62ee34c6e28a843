//! `floor credentials`: table credentials for the embedded server of a data directory (issue
//! 34; `docs/security.md`). Issuing one writes it into the server's authorization block and
//! has the running server reload it; the command returns once the server takes the new
//! credential, so a table server started right after it connects.

use crate::cli::CredentialsCommand;
use crate::director::Failure;
use crate::exit::Exit;
use floor_runtime::credentials::{Auth, Credentials};
use floor_runtime::local_users;
use floor_runtime::roles::{TableScope, User};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long an issued credential may take to be taken by the reloaded server.
const RELOAD_WAIT: Duration = Duration::from_secs(10);

/// Runs one `floor credentials` command.
///
/// # Errors
/// `Usage` for a directory without a secure embedded server, `Unavailable` when its files or
/// server cannot be reached.
pub async fn run(data_dir: &Path, command: &CredentialsCommand) -> Result<(), Failure> {
    let unavailable = |m: String| Failure { message: m, exit: Exit::Unavailable };
    if !matches!(command, CredentialsCommand::Init) && !local_users::auth_file(data_dir).exists() {
        return Err(Failure {
            message: format!(
                "{} has no embedded server with credentials: start `floor run` there first (credentials for a server of your own are issued by its operator)",
                data_dir.display()
            ),
            exit: Exit::Usage,
        });
    }
    match command {
        CredentialsCommand::Table { tournament, table } => {
            let user = local_users::issue_table(data_dir, TableScope { tournament: *tournament, table: *table }).map_err(unavailable)?;
            taken(data_dir, &user).await.map_err(unavailable)?;
            let scope = table.map_or_else(|| format!("every table of {tournament}"), |n| format!("table {n} of {tournament}"));
            println!("# A table credential for {scope} (floor credentials revoke {} ends it).", user.user);
            println!("NATS_USER={}\nNATS_PASSWORD={}", user.user, user.password);
            Ok(())
        }
        CredentialsCommand::List => {
            let listed: Vec<serde_json::Value> = local_users::tables(data_dir)
                .map_err(unavailable)?
                .into_iter()
                .map(|u| serde_json::json!({"user": u.user, "scope": u.scope}))
                .collect();
            println!("{}", serde_json::to_string_pretty(&listed).expect("json"));
            Ok(())
        }
        CredentialsCommand::Revoke { user } => match local_users::revoke_table(data_dir, user).map_err(unavailable)? {
            true => {
                println!("revoked {user}");
                Ok(())
            }
            false => Err(Failure { message: format!("no table credential {user:?} (floor credentials list)"), exit: Exit::Rejected }),
        },
        CredentialsCommand::Init => {
            // Issue 40: the roles for servers of the operator's own (`make cluster`, deploy/).
            let users = local_users::ensure(data_dir).map_err(unavailable)?;
            println!("# Include in every nats-server's configuration: {}", local_users::auth_file(data_dir).display());
            for user in users.iter().filter(|u| u.scope.is_none()) {
                println!("{}={}", user.role.name(), floor_runtime::credentials::role_file(data_dir, user.role).display());
            }
            Ok(())
        }
    }
}

/// Waits until the directory's running server takes `user`'s credential (it reloads its
/// configuration on the signal `issue_table` sent); no server running: nothing to wait for.
async fn taken(data_dir: &Path, user: &User) -> Result<(), String> {
    let Ok(url) = floor_runtime::bootstrap::url_to_join(data_dir) else { return Ok(()) };
    let credentials =
        Credentials { auth: Auth::UserPassword { user: user.user.clone(), password: user.password.clone() }, ..Credentials::none() };
    let start = Instant::now();
    loop {
        match floor_runtime::bootstrap::connect_with(&url, &credentials).await {
            Ok(client) => {
                let _ = client.drain().await;
                return Ok(());
            }
            Err(e) if e.kind() == floor_runtime::bootstrap::BootstrapErrorKind::Unauthorized && start.elapsed() < RELOAD_WAIT => {
                // The reload has no event a client can wait on: try again shortly.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) if e.kind() == floor_runtime::bootstrap::BootstrapErrorKind::Connect => return Ok(()),
            Err(e) => return Err(format!("the server did not take the new credential: {e}")),
        }
    }
}
