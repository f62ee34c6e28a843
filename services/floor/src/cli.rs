//! The command line.

use clap::{Parser, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;

/// Floor: poker tournament orchestration on NATS JetStream.
///
/// Without NATS_URL, `floor run` starts its own nats-server with JetStream in ./data/ and the
/// other commands find it there.
#[derive(Debug, Parser)]
#[command(name = "floor", version)]
pub struct Cli {
    /// Where the embedded nats-server keeps its data and records its URL.
    #[arg(long, global = true, default_value = "data", env = "FLOOR_DATA")]
    pub data: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run every service in this process (embedded NATS unless NATS_URL is set).
    Run {
        /// HTTP address of the lobby.
        #[arg(long, env = "FLOOR_HTTP", default_value = "127.0.0.1:8080")]
        http: SocketAddr,
    },
    /// Run the registration service alone (for scale-out; needs NATS_URL or a `floor run`).
    Registration,
    /// Run the lobby alone: projection and HTTP.
    Lobby {
        /// HTTP address of the lobby.
        #[arg(long, env = "FLOOR_HTTP", default_value = "127.0.0.1:8080")]
        http: SocketAddr,
    },
    /// Tournaments: create, list, show.
    #[command(subcommand)]
    Tournament(TournamentCommand),
    /// Register a player for a tournament (a re-entry or another multi-entry where allowed).
    Register {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Player account name.
        player: String,
    },
    /// Withdraw a player's registration before the start, with a full refund.
    Unregister {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Player account name.
        player: String,
    },
}

/// `floor tournament …`
#[derive(Debug, Subcommand)]
pub enum TournamentCommand {
    /// Create a tournament from a TOML definition; prints its id.
    Create {
        /// The definition (see examples/).
        #[arg(long)]
        file: PathBuf,
    },
    /// List tournaments from the lobby.
    List,
    /// Show one tournament's lobby document as JSON.
    Show {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }
}
