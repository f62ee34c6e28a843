//! `floor`: run the platform, one service, or a director command. `main → run → ExitCode`.

use clap::Parser;
use floor::cli::{Cli, Command, TournamentCommand};
use floor::director::{self, Director, Failure};
use floor::exit::Exit;
use floor::startup::{stop_signal, Nats, Platform, PlatformConfig};
use floor_events::{PlayerId, TournamentId};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let serving = matches!(cli.command, Command::Run { .. } | Command::Registration | Command::Lobby { .. });
    // Services narrate their life; one-shot director commands print only their answer.
    let default_filter = if serving { "info,async_nats=warn" } else { "warn" };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("FLOOR_LOG").unwrap_or_else(|_| default_filter.into()))
        .with_writer(std::io::stderr)
        .init();
    let runtime = if serving {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    };
    let runtime = runtime.expect("tokio runtime");
    match runtime.block_on(run(cli)) {
        Ok(()) => Exit::Success.into(),
        Err(failure) => {
            eprintln!("floor: {}", failure.message);
            failure.exit.into()
        }
    }
}

async fn run(cli: Cli) -> Result<(), Failure> {
    let nats = || match std::env::var("NATS_URL") {
        Ok(url) if !url.trim().is_empty() => Nats::Url(url),
        _ => Nats::Embedded(cli.data.clone()),
    };
    let joined = || -> Result<Nats, Failure> {
        floor_runtime::bootstrap::url_to_join(&cli.data)
            .map(Nats::Url)
            .map_err(|e| Failure { message: e.to_string(), exit: Exit::Unavailable })
    };
    match &cli.command {
        Command::Run { http } => serve(PlatformConfig::all(nats(), Some(*http))).await,
        Command::Registration => serve(PlatformConfig { lobby: false, http: None, ..PlatformConfig::all(joined()?, None) }).await,
        Command::Lobby { http } => serve(PlatformConfig { registration: false, ..PlatformConfig::all(joined()?, Some(*http)) }).await,
        Command::Tournament(TournamentCommand::Create { file }) => {
            let definition = director::read_definition(file)?;
            let id = Director::connect(&cli.data).await?.create_tournament(definition).await?;
            println!("{id}");
            Ok(())
        }
        Command::Tournament(TournamentCommand::List) => {
            let docs = Director::connect(&cli.data).await?.lobby().await?;
            if docs.is_empty() {
                eprintln!("no tournaments yet: floor tournament create --file examples/sunday-major.toml");
            }
            docs.iter().for_each(|d| println!("{}", director::list_line(d)));
            Ok(())
        }
        Command::Tournament(TournamentCommand::Show { tournament }) => {
            let id = tournament.to_string();
            let docs = Director::connect(&cli.data).await?.lobby().await?;
            let doc = docs
                .into_iter()
                .find(|d| d.get("tournament_id").and_then(|v| v.as_str()) == Some(id.as_str()))
                .ok_or_else(|| Failure { message: format!("unknown_tournament: no tournament {id} in the lobby"), exit: Exit::Rejected })?;
            println!("{}", serde_json::to_string_pretty(&doc).expect("json"));
            Ok(())
        }
        Command::Register { tournament, player } => {
            let player = parse_player(player)?;
            let entry = Director::connect(&cli.data).await?.register(TournamentId(*tournament), player).await?;
            println!("{}", serde_json::to_string(&entry).expect("json"));
            Ok(())
        }
        Command::Unregister { tournament, player } => {
            let player = parse_player(player)?;
            let recorded = Director::connect(&cli.data).await?.unregister(TournamentId(*tournament), player).await?;
            println!("{recorded}");
            Ok(())
        }
    }
}

fn parse_player(name: &str) -> Result<PlayerId, Failure> {
    PlayerId::parse(name).map_err(|m| Failure { message: m, exit: Exit::Usage })
}

async fn serve(config: PlatformConfig) -> Result<(), Failure> {
    let platform = Platform::build(config).await.map_err(|e| Failure { message: format!("{e:#}"), exit: Exit::Unavailable })?;
    match platform.http_addr() {
        Some(addr) => tracing::info!("Floor is running; lobby at http://{addr}/api/tournaments (Ctrl-C stops)"),
        None => tracing::info!("Floor service is running (Ctrl-C stops)"),
    }
    platform.run_until_stopped(stop_signal()).await;
    tracing::info!("stopped cleanly");
    Ok(())
}
