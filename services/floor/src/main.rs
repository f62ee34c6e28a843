//! `floor`: run the platform, one service, or a director command. `main → run → ExitCode`.

use clap::Parser;
use floor::cli::{
    BountyCommand, BubbleCommand, Cli, ClockCommand, Command, LotteryCommand, Preset, PurchaseArgs, RebuysCommand, ScheduleCommand,
    ShootoutCommand, SimFormat, TableCheckArgs, TicketCommand, TournamentCommand,
};
use floor::director::{self, Director, Failure};
use floor::exit::Exit;
use floor::startup::{stop_signal, Nats, Platform, PlatformConfig};
use floor_events::clock::{self, BlindStructure};
use floor_events::registration::{self, CancelTournament, StartTournament};
use floor_events::schedule::{self, AddTemplate, ListTemplates, RemoveTemplate};
use floor_events::{abort, codes, subjects, CommandId, PlayerId, TournamentId};
use serde_json::Value;
use std::process::ExitCode;
use steering::*;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let serving = matches!(cli.command, Command::Run { .. } | Command::Registration | Command::Lobby { .. });
    // `floor sim` hosts the whole platform in-process unless NATS_URL is set: it needs every core.
    let hosting = serving || matches!(cli.command, Command::Sim { .. });
    // Services narrate their life; one-shot director commands print only their answer.
    let default_filter = if serving { "info,async_nats=warn" } else { "warn" };
    let format = match floor::logging::Format::parse(std::env::var(floor::logging::FORMAT_VAR).ok().as_deref()) {
        Ok(format) => format,
        Err(message) => {
            eprintln!("floor: {message}");
            return Exit::Usage.into();
        }
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("FLOOR_LOG").unwrap_or_else(|_| default_filter.into());
    floor::logging::init(format, filter, std::io::stderr);
    let runtime = if hosting {
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

/// Prints one piece of a command's answer on stdout (`line`: with a newline). A reader that
/// stops early (`floor … | head`) ends the command quietly, exit 0, as Unix tools do, instead of
/// the panic `println!` has on a broken pipe. SIGPIPE stays ignored (Rust's default), so a
/// connection to NATS that breaks mid-write is an error with a message, never a silent death.
fn answer(text: std::fmt::Arguments, line: bool) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_fmt(text).and_then(|()| if line { stdout.write_all(b"\n") } else { Ok(()) }).and_then(|()| stdout.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("floor: cannot write the answer: {e}");
            std::process::exit(1);
        }
    }
}

/// `println!` for answers, through [`answer`].
macro_rules! say {
    ($($arg:tt)*) => { answer(format_args!($($arg)*), true) };
}

// After `say!`, which it uses.
mod steering;

async fn run(cli: Cli) -> Result<(), Failure> {
    let nats = |insecure: bool| match std::env::var("NATS_URL") {
        Ok(url) if !url.trim().is_empty() => Nats::Url(url),
        _ if insecure => Nats::EmbeddedOpen(cli.data.clone()),
        _ => Nats::Embedded(cli.data.clone()),
    };
    // One service alone, joining NATS_URL or the `floor run` of this directory with its
    // service credential (`bootstrap::join`); said at once when there is neither.
    let joined = || -> Result<Nats, Failure> {
        floor_runtime::bootstrap::url_to_join(&cli.data)
            .map(|_| Nats::Local(cli.data.clone()))
            .map_err(|e| Failure { message: e.to_string(), exit: Exit::Unavailable })
    };
    match &cli.command {
        Command::Run { http, only, console, server, insecure_nats } => {
            let mut config = PlatformConfig {
                seed_key: test_seed_key_from_env()?,
                console: console_config(console)?,
                http_server: server.settings(),
                ..PlatformConfig::all(nats(*insecure_nats), Some(*http))
            };
            if !only.is_empty() {
                config.services.retain(|s| only.iter().any(|o| o == s));
            }
            if !config.runs(subjects::service::LOBBY) {
                config.http = None;
            }
            serve(config).await
        }
        Command::Registration => serve(PlatformConfig::only(joined()?, None, &[subjects::service::REGISTRATION])).await,
        Command::Lobby { http, console, server } => {
            let config = PlatformConfig {
                console: console_config(console)?,
                http_server: server.settings(),
                ..PlatformConfig::only(joined()?, Some(*http), &[subjects::service::LOBBY])
            };
            serve(config).await
        }
        Command::Tournament(TournamentCommand::Create { file, target }) => {
            let definition = director::with_target(director::read_definition(file)?, target.map(TournamentId), file)?;
            let id = Director::connect(&cli.data).await?.create_tournament(definition).await?;
            say!("{id}");
            Ok(())
        }
        Command::Tournament(TournamentCommand::List) => {
            let docs = Director::connect(&cli.data).await?.lobby().await?;
            if docs.is_empty() {
                eprintln!("no tournaments yet: floor tournament create --file examples/sunday-major.toml");
            }
            docs.iter().for_each(|d| say!("{}", director::list_line(d)));
            Ok(())
        }
        Command::Tournament(TournamentCommand::Show { tournament }) => {
            let doc = Director::connect(&cli.data).await?.tournament(*tournament).await?;
            say!("{}", serde_json::to_string_pretty(&doc).expect("json"));
            Ok(())
        }
        Command::Tournament(TournamentCommand::Start { tournament, now }) => {
            let request = StartTournament { command_id: CommandId::new(), tournament_id: TournamentId(*tournament), now: *now };
            print_reply(
                director(&cli)
                    .await?
                    .request(subjects::service::REGISTRATION, registration::verbs::START_TOURNAMENT.name(), &request)
                    .await?,
            )
        }
        Command::Tournament(TournamentCommand::Cancel { tournament, reason, method, cause }) => {
            cancel_tournament(&cli, TournamentId(*tournament), reason, method, cause.as_deref()).await
        }
        Command::Tournament(TournamentCommand::Suspend { tournament, reason }) => {
            let request = abort::Suspend { command_id: CommandId::new(), tournament_id: TournamentId(*tournament), reason: reason.clone() };
            print_reply(director(&cli).await?.request(subjects::service::ABORT, abort::verbs::SUSPEND.name(), &request).await?)
        }
        Command::Tournament(TournamentCommand::Resume { tournament }) => {
            let request = abort::AbortRequest { command_id: CommandId::new(), tournament_id: TournamentId(*tournament) };
            print_reply(director(&cli).await?.request(subjects::service::ABORT, abort::verbs::RESUME.name(), &request).await?)
        }
        Command::Tournament(TournamentCommand::Statement { tournament, player }) => {
            let player = match player {
                Some(p) => Some(PlayerId::parse(p).map_err(|e| Failure { message: format!("player: {e}"), exit: Exit::Usage })?),
                None => None,
            };
            statements(&cli, TournamentId(*tournament), player).await
        }
        Command::Tournament(TournamentCommand::Books { tournament, json }) => {
            let request = floor_events::payouts::BooksRequest { tournament_id: TournamentId(*tournament) };
            let books =
                director(&cli).await?.request(subjects::service::PAYOUTS, floor_events::payouts::verbs::BOOKS.name(), &request).await?;
            match floor::deal::books_lines(&books).filter(|_| !*json) {
                Some(lines) => {
                    lines.iter().for_each(|line| say!("{line}"));
                    Ok(())
                }
                None => print_reply(books),
            }
        }
        Command::Clock(command) => clock_command(&cli, command).await,
        Command::Bubble(command) => bubble_command(&cli, command).await,
        Command::Bounty(command) => bounty_command(&cli, command).await,
        Command::Ticket(command) => ticket_command(&cli, command).await,
        Command::Shootout(command) => shootout_command(&cli, command).await,
        Command::Lottery(command) => lottery_command(&cli, command).await,
        Command::Deal(command) => match floor::deal::run(&director(&cli).await?, command).await? {
            floor::deal::Answer::Json(reply) => print_reply(reply),
            floor::deal::Answer::Lines(lines) => {
                lines.iter().for_each(|line| say!("{line}"));
                Ok(())
            }
        },
        Command::Status => status(&cli).await,
        Command::Audit { all: true, since: Some(since), report, json, .. } => audit_all(&cli, *since, report.as_deref(), *json).await,
        Command::Audit { tournament, file, report, json, .. } => audit(&cli, *tournament, file.as_deref(), report.as_deref(), *json).await,
        Command::Export { tournament } => {
            let commits = read_log(&cli, *tournament).await?;
            say!("{}", floor::export::to_lines(&commits).trim_end_matches('\n'));
            Ok(())
        }
        Command::Sim {
            entrants,
            seed,
            profile,
            table_size,
            format,
            tournament_id,
            seed_key,
            start_after,
            standings,
            free,
            hand_for_hand_from,
            cancel_at,
            suspend_at,
            hand_every,
            structure,
            structure_file,
            http,
            console,
            definition,
            audit,
        } => {
            let definition = definition.as_deref().map(director::read_definition).transpose()?;
            // Issue 37's formats are definitions of the simulator's own.
            let kind = match format {
                SimFormat::Shootout => Some(floor::sim::formats::Kind::Shootout),
                SimFormat::Don => Some(floor::sim::formats::Kind::Don),
                SimFormat::Lottery => Some(floor::sim::formats::Kind::Lottery),
                _ => None,
            };
            if kind.is_some() && definition.is_some() {
                return Err(Failure {
                    message: "--format shootout|don|lottery plays a definition of its own: not with --definition".into(),
                    exit: Exit::Usage,
                });
            }
            // A sit & go starts when full: its capacity, unless asked otherwise.
            let sit_and_go = definition.as_ref().filter(|d| d.start == floor_events::tournament::Start::SitAndGo);
            let entrants =
                entrants.unwrap_or_else(|| kind.map_or_else(|| sit_and_go.map_or(100, |d| d.capacity), |k| k.default_entrants()));
            if let Some(d) = &definition {
                floor::sim::fits(d, entrants).map_err(|message| Failure { message, exit: Exit::Usage })?;
            }
            let asked = SimArgs {
                entrants,
                seed: *seed,
                profile,
                table_size: *table_size,
                rebuys: *format == SimFormat::Rebuy,
                bounty: match format {
                    SimFormat::Ko => floor::sim::bounty_terms("ko"),
                    SimFormat::Pko => floor::sim::bounty_terms("pko"),
                    SimFormat::Mystery => floor::sim::bounty_terms("mystery"),
                    _ => None,
                },
                satellite: *format == SimFormat::Satellite,
                steps: *format == SimFormat::Steps,
                flights: *format == SimFormat::Flights,
                kind,
                tournament_id: tournament_id.map(TournamentId),
                seed_key: seed_key.map(|k| k.0),
                start_after: start_after.map(std::time::Duration::from_secs),
                standings: *standings,
                free: *free,
                hand_for_hand_from: *hand_for_hand_from,
                cancel_at: *cancel_at,
                suspend_at: *suspend_at,
                watchable: match hand_every {
                    Some(hand_every) => Some(floor::sim::Watchable {
                        hand_every: *hand_every,
                        structure: match (structure, structure_file) {
                            (Some(p), _) => Some(preset(*p)),
                            (None, Some(file)) => Some(BlindStructure::Custom(director::read_toml(file)?)),
                            (None, None) => None,
                        },
                    }),
                    None => None,
                },
                http: *http,
                console: match http {
                    Some(_) => console_config(console)?,
                    None => None,
                },
                definition,
                audit: *audit,
            };
            simulate(asked).await
        }
        Command::TableCheck(args) => table_check(args).await,
        Command::Completions { shell } => {
            let mut script = Vec::new();
            floor::manual::completions(*shell, &mut script);
            answer(format_args!("{}", String::from_utf8_lossy(&script)), false);
            Ok(())
        }
        Command::Man { dir: None } => {
            let mut page = Vec::new();
            floor::manual::man(&mut page).map_err(|e| Failure { message: format!("man: {e}"), exit: Exit::Usage })?;
            answer(format_args!("{}", String::from_utf8_lossy(&page)), false);
            Ok(())
        }
        Command::Man { dir: Some(dir) } => {
            let written = floor::manual::man_pages(dir)
                .map_err(|e| Failure { message: format!("man --dir {}: {e}", dir.display()), exit: Exit::Usage })?;
            say!("{} pages in {}", written.len(), dir.display());
            Ok(())
        }
        Command::Credentials(command) => floor::credentials::run(&cli.data, command).await,
        Command::SimTables { tournament, fault, seed } => {
            let unavailable = |m: String| Failure { message: m, exit: Exit::Unavailable };
            // Simulated tables of a local platform: its service credential (they stand in for
            // every table of the tournament); with NATS_URL, the environment's.
            let (url, credentials) =
                floor_runtime::bootstrap::join(&cli.data, floor_runtime::roles::Role::Service).map_err(|e| unavailable(e.to_string()))?;
            let client = floor_runtime::bootstrap::connect_with(&url, &credentials).await.map_err(|e| unavailable(e.to_string()))?;
            let shutdown = tokio_util::sync::CancellationToken::new();
            let stop = shutdown.clone();
            tokio::spawn(async move {
                stop_signal().await;
                stop.cancel();
            });
            let jetstream = async_nats::jetstream::new(client);
            floor::table_check::builtin::serve(jetstream, TournamentId(*tournament), *fault, *seed, shutdown).await.map_err(unavailable)
        }
        Command::Rebuy(args) => purchase(&cli, floor_events::rebuys::verbs::REBUY.name(), args).await,
        Command::Decline(args) => purchase(&cli, floor_events::rebuys::verbs::DECLINE.name(), args).await,
        Command::AddOn(args) => purchase(&cli, floor_events::rebuys::verbs::ADD_ON.name(), args).await,
        Command::Rebuys(command) => {
            use floor_events::rebuys::{verbs, DirectorRequest};
            let (verb, tournament) = match command {
                RebuysCommand::End { tournament } => (verbs::END_REBUYS.name(), tournament),
                RebuysCommand::EndAddOns { tournament } => (verbs::END_ADD_ONS.name(), tournament),
            };
            let request = DirectorRequest { command_id: CommandId::new(), tournament_id: TournamentId(*tournament) };
            print_reply(director(&cli).await?.request(subjects::service::REBUYS, verb, &request).await?)
        }
        Command::Schedule(command) => schedule_command(&cli, command).await,
        Command::Register { tournament, player, json } => {
            let player = parse_player(player)?;
            let entry = Director::connect(&cli.data).await?.register(TournamentId(*tournament), player).await?;
            let entry = serde_json::to_value(&entry).expect("json");
            match floor::deal::registered_line(&entry).filter(|_| !*json) {
                Some(line) => say!("{line}"),
                None => say!("{entry}"),
            }
            Ok(())
        }
        Command::Limits { player, per_day, per_week, per_month } => {
            let player = parse_player(player)?;
            let limits = floor_events::player::EntryLimits { per_day: *per_day, per_week: *per_week, per_month: *per_month };
            let request = floor_events::player::SetPlayerLimits { command_id: CommandId::new(), player, limits };
            let verb = floor_events::registration::verbs::SET_PLAYER_LIMITS.name();
            print_reply(director(&cli).await?.request(subjects::service::REGISTRATION, verb, &request).await?)
        }
        Command::Exclude { player, period } => {
            let request = floor_events::player::ExcludePlayer {
                command_id: CommandId::new(),
                player: parse_player(player)?,
                period: (*period).into(),
            };
            let verb = floor_events::registration::verbs::EXCLUDE_PLAYER.name();
            print_reply(director(&cli).await?.request(subjects::service::REGISTRATION, verb, &request).await?)
        }
        Command::Unregister { tournament, player } => {
            let player = parse_player(player)?;
            let recorded = Director::connect(&cli.data).await?.unregister(TournamentId(*tournament), player).await?;
            say!("{recorded}");
            Ok(())
        }
    }
}

async fn purchase(cli: &Cli, verb: &str, args: &PurchaseArgs) -> Result<(), Failure> {
    let request = floor_events::rebuys::Purchase {
        command_id: CommandId::new(),
        tournament_id: TournamentId(args.tournament),
        player: parse_player(&args.player)?,
        entry: args.entry.map(floor_events::EntryNo),
    };
    print_reply(director(cli).await?.request(subjects::service::REBUYS, verb, &request).await?)
}

/// `FLOOR_SEED_KEY` for `floor run` (a test setting; see [`floor::cli::test_seed_key`]).
fn test_seed_key_from_env() -> Result<Option<[u8; 32]>, Failure> {
    let value = std::env::var("FLOOR_SEED_KEY").ok();
    let key = floor::cli::test_seed_key(value.as_deref()).map_err(|m| Failure { message: m, exit: Exit::Usage })?;
    if key.is_some() {
        tracing::warn!("seating uses the test seed key in FLOOR_SEED_KEY: every draw is predictable to whoever knows it");
    }
    Ok(key)
}

/// The clock's preset for a CLI preset.
fn preset(p: Preset) -> BlindStructure {
    BlindStructure::Preset(match p {
        Preset::Standard => clock::Preset::Standard,
        Preset::Turbo => clock::Preset::Turbo,
        Preset::HyperTurbo => clock::Preset::HyperTurbo,
        Preset::DeepStack => clock::Preset::DeepStack,
        Preset::ShortStack => clock::Preset::ShortStack,
    })
}

/// The console's configuration from `--console-password-file` or FLOOR_CONSOLE_PASSWORD
/// (hashed here; the text is dropped); `None` when neither is given.
fn console_config(args: &floor::cli::ConsoleArgs) -> Result<Option<floor_lobby::console::ConsoleConfig>, Failure> {
    let usage = |m: String| Failure { message: m, exit: Exit::Usage };
    let password = match &args.console_password_file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| usage(format!("--console-password-file {}: {e}", path.display())))?;
            Some(text.lines().next().unwrap_or("").to_owned())
        }
        None => std::env::var("FLOOR_CONSOLE_PASSWORD").ok(),
    };
    // None: the console is disabled, which `serve` says once the platform runs.
    let Some(password) = password else { return Ok(None) };
    let mut config = floor_lobby::console::ConsoleConfig::with_password(&password).map_err(|e| usage(e.to_string()))?;
    config.session_ttl = chrono::Duration::hours(args.console_session_hours.into());
    Ok(Some(config))
}

/// What `floor sim` was asked.
struct SimArgs<'a> {
    /// `--audit`: audit the log once played.
    audit: bool,
    entrants: u32,
    seed: u64,
    profile: &'a str,
    table_size: u8,
    rebuys: bool,
    bounty: Option<floor_events::bounties::BountyTerms>,
    tournament_id: Option<TournamentId>,
    seed_key: Option<[u8; 32]>,
    start_after: Option<std::time::Duration>,
    standings: bool,
    free: bool,
    hand_for_hand_from: Option<u32>,
    cancel_at: Option<u32>,
    suspend_at: Option<u32>,
    watchable: Option<floor::sim::Watchable>,
    /// Serve the lobby of the sim's own platform here, every service running.
    http: Option<std::net::SocketAddr>,
    console: Option<floor_lobby::console::ConsoleConfig>,
    /// `--definition`: a tournament to play instead of the sim's own.
    definition: Option<floor_events::tournament::TournamentDefinition>,
    /// `--format satellite`: a satellite and its target.
    satellite: bool,
    /// `--format steps`: a step tree and its top (issue 36).
    steps: bool,
    /// `--format flights`: three Day 1s and their Day 2 (issue 36).
    flights: bool,
    /// `--format shootout|don|lottery` (issue 37).
    kind: Option<floor::sim::formats::Kind>,
}

async fn simulate(asked: SimArgs<'_>) -> Result<(), Failure> {
    let SimArgs { entrants, seed, profile, table_size, rebuys, .. } = asked;
    let bounty = asked.bounty.clone();
    let usage = |m: String| Failure { message: m, exit: Exit::Usage };
    // `--format shootout|don|lottery` (issue 37): the simulator's own definition, played as a
    // file's is.
    let own = match asked.kind {
        Some(kind) => {
            let profile = serde_json::from_value(Value::String(profile.to_owned())).map_err(|e| usage(format!("--profile: {e}")))?;
            let shape =
                floor::sim::SimConfig { table_size, profile, ..floor::sim::SimConfig::new(entrants, seed, TournamentId::default()) };
            Some(floor::sim::formats::definition(kind, &shape, chrono::Utc::now()).map_err(usage)?)
        }
        None => None,
    };
    let file = asked.definition.as_ref().or(own.as_ref());
    let rebuys_played = rebuys || file.is_some_and(|d| d.rebuy.is_some());
    let unavailable = |m: String| Failure { message: m, exit: Exit::Unavailable };
    let profile: floor_events::RuleProfile =
        serde_json::from_value(Value::String(profile.to_owned())).map_err(|e| usage(format!("--profile: {e}")))?;
    let joined = std::env::var("NATS_URL").ok().filter(|u| !u.trim().is_empty());
    if joined.is_some() && asked.http.is_some() {
        return Err(usage("--http serves the sim's own platform; with NATS_URL the platform's `floor run` serves its lobby".into()));
    }
    if joined.is_none() && asked.suspend_at.is_some() {
        return Err(usage(
            "--suspend-at waits for a director's resume: run it against a platform (NATS_URL) where `floor tournament resume` reaches it"
                .into(),
        ));
    }
    if asked.watchable.is_some() && rebuys_played {
        return Err(usage("--hand-every plays freezeouts (with or without bounties)".into()));
    }
    if joined.is_some() && asked.seed_key.is_some() {
        return Err(usage(
            "--seed-key sets the key of the sim's own platform; with NATS_URL the draws use the key of the platform's seating \
             (FLOOR_SEED_KEY on its `floor run`)"
                .into(),
        ));
    }
    // A fresh platform of its own: the tournament id and the draw's key follow from the seed.
    let scratch = tempfile::tempdir().map_err(|e| unavailable(e.to_string()))?;
    let digest = |what: &str| -> [u8; 32] {
        use sha2::Digest;
        sha2::Sha256::digest(format!("floor-sim:{what}:{seed}").as_bytes()).into()
    };
    let (platform, tournament_id, start_after) = match &joined {
        Some(_) => (
            None,
            // A fresh id (`Default` is `TournamentId::new`): one platform plays an id once.
            asked.tournament_id.unwrap_or_default(),
            asked.start_after.unwrap_or_else(|| floor::sim::start_after_on_a_shared_platform(entrants)),
        ),
        None => {
            let services: Vec<&str> = {
                use subjects::service::*;
                let mut services = vec![REGISTRATION, SEATING, PAYOUTS, REBUYS, BUBBLE];
                if bounty.is_some() || file.is_some_and(|d| d.bounty.is_some()) {
                    services.push(BOUNTIES);
                }
                // Issue 36: the satellites service carries a flight's survivors too.
                if asked.satellite || asked.steps || asked.flights || file.is_some_and(|d| d.satellite.is_some() || d.flight.is_some()) {
                    services.retain(|s| *s != BOUNTIES);
                    services.push(SATELLITES);
                }
                // Issue 37: a shootout's rounds and a lottery game's draw.
                if file.is_some_and(|d| d.shootout.is_some()) {
                    services.push(SHOOTOUTS);
                }
                if file.is_some_and(|d| d.lottery.is_some()) {
                    services.push(LOTTERY);
                }
                services
            };
            let services: &[&str] = &services;
            let nats = Nats::Embedded(scratch.path().to_owned());
            let config = PlatformConfig {
                seed_key: Some(asked.seed_key.unwrap_or_else(|| digest("key"))),
                console: asked.console.clone(),
                // Watched in the lobby: every service, the clock's levels and the console too.
                ..match asked.http {
                    Some(http) => PlatformConfig::all(nats, Some(http)),
                    // A blind structure needs the clock: its levels, and the end of late registration.
                    None if asked.watchable.as_ref().is_some_and(|w| w.structure.is_some())
                        || file.is_some_and(|d| d.structure.is_some()) =>
                    {
                        let mut config = PlatformConfig::only(nats, None, services);
                        config.services.insert(subjects::service::CLOCK);
                        if asked.cancel_at.is_some() {
                            config.services.insert(subjects::service::ABORT);
                        }
                        config
                    }
                    // Suspending or cancelling needs the abort service, and the clock it tells.
                    None if asked.cancel_at.is_some() || asked.suspend_at.is_some() => {
                        let mut config = PlatformConfig::only(nats, None, services);
                        config.services.extend([subjects::service::ABORT, subjects::service::CLOCK]);
                        config
                    }
                    None => PlatformConfig::only(nats, None, services),
                }
            };
            let platform = Platform::build(config).await.map_err(startup_failure)?;
            if let Some(addr) = platform.http_addr() {
                eprintln!("lobby: http://{addr}/");
                match asked.console {
                    Some(_) => eprintln!("director console: http://{addr}/console (the password you gave; any name)"),
                    None => eprintln!("director console: disabled (no FLOOR_CONSOLE_PASSWORD)"),
                }
            }
            let id = uuid::Uuid::from_slice(&digest("tournament")[..16]).expect("16 bytes");
            let start_after = asked.start_after.unwrap_or(floor::sim::START_AFTER_ON_OWN_PLATFORM);
            (Some(platform), asked.tournament_id.unwrap_or(TournamentId(id)), start_after)
        }
    };
    let backbone = match (&platform, &joined) {
        (Some(p), _) => p.backbone().clone(),
        (None, Some(url)) => {
            let client = floor_runtime::bootstrap::connect(url).await.map_err(|e| unavailable(e.to_string()))?;
            floor_runtime::bootstrap::ensure_backbone(client).await.map_err(|e| unavailable(e.to_string()))?
        }
        (None, None) => unreachable!("one or the other"),
    };
    use floor::sim::Progress;
    let config = floor::sim::SimConfig {
        entrants,
        seed,
        table_size,
        profile,
        tournament_id,
        rebuys,
        bounty,
        start_after,
        free: asked.free,
        hand_for_hand_from: asked.hand_for_hand_from,
        cancel_at: asked.cancel_at,
        suspend_at: asked.suspend_at,
        watchable: asked.watchable.clone(),
        definition: file.cloned(),
        satellite: asked.satellite || asked.steps,
        steps: asked.steps,
        flights: asked.flights.then_some(floor_events::flights::Carry::BestStack),
    };
    let mut shown = std::time::Instant::now();
    let simulated = floor::sim::run(&backbone, &config, |p| {
        let last = matches!(p, Progress::Registering { registered, entrants } if registered == entrants);
        if shown.elapsed() >= std::time::Duration::from_secs(1) || last {
            shown = std::time::Instant::now();
            match p {
                Progress::Registering { registered, entrants } => eprintln!("registered {registered:>7} of {entrants}"),
                Progress::Playing { players_left, tables, hands, hands_per_s } => {
                    eprintln!("players left {players_left:>7}  tables {tables:>6}  hands {hands:>9}  ({hands_per_s:.0} hands/s)")
                }
            }
        }
    });
    // Ctrl-C (or SIGTERM) while it plays: stop the platform in order (the services, then the
    // embedded nats-server, which a terminal's Ctrl-C does not reach: it runs in a process group
    // of its own) and exit 0, as after the tournament's end.
    let summary = tokio::select! {
        summary = simulated => summary,
        () = stop_signal() => {
            eprintln!("floor sim: stopped (Ctrl-C) before the tournament's end; stopping the platform");
            if let Some(platform) = platform {
                platform.stop().await;
            }
            return Ok(());
        }
    };
    let mut audited_ok = true;
    let summary = match summary {
        Ok(mut summary) => {
            if !asked.standings {
                summary.standings.clear();
            }
            let mut line = serde_json::to_value(&summary).expect("json");
            if asked.audit {
                // Issue 42: the log audited before the platform stops (docs/audit.md).
                let mut audited = vec![tournament_id];
                audited.extend(summary.satellite.iter().flat_map(|s| s.tournaments()));
                audited.extend(summary.flights.iter().flat_map(|f| f.day1s.iter().map(|d| d.tournament_id)));
                let mut reports = serde_json::Map::new();
                for t in audited {
                    // Read before the platform stops; a read that fails is reported, not returned
                    // early (the platform still stops below).
                    let commits = match floor::audit::read(&backbone.jetstream, t.0).await {
                        Ok(commits) => commits,
                        Err(e) => {
                            audited_ok = false;
                            reports.insert(t.to_string(), serde_json::json!({"ok": false, "error": e}));
                            continue;
                        }
                    };
                    let report = floor::audit::report(&commits);
                    audited_ok &= report.ok;
                    let differences: Vec<_> = report
                        .checks
                        .iter()
                        .flat_map(|c| {
                            c.differences
                                .iter()
                                .map(move |d| serde_json::json!({"check": c.name, "message": d.message, "sequences": d.sequences}))
                        })
                        .collect();
                    reports
                        .insert(t.to_string(), serde_json::json!({"ok": report.ok, "commits": report.commits, "differences": differences}));
                }
                line["audit"] = Value::Object(reports);
            }
            say!("{}", serde_json::to_string(&line).expect("json"));
            Ok(())
        }
        Err(e) => Err(e),
    };
    if let Some(platform) = platform {
        if let (Some(addr), Ok(())) = (platform.http_addr(), &summary) {
            // The finishers, the payouts and the console stay to be looked at.
            eprintln!("the tournament is over; the lobby stays at http://{addr}/ until Ctrl-C");
            platform.run_until_stopped(stop_signal()).await;
        } else {
            platform.stop().await;
        }
    }
    summary.map_err(|m| Failure { message: m, exit: Exit::Rejected })?;
    match audited_ok {
        true => Ok(()),
        false => Err(Failure { message: "audit: differences found (the line's `audit`)".to_owned(), exit: Exit::Rejected }),
    }
}

/// Why the platform could not start: its HTTP address in use is a usage error naming the
/// setting that chooses it (not exit 3, "NATS unreachable"); anything else is an outage.
fn startup_failure(e: floor::startup::StartupError) -> Failure {
    use floor::startup::StartupError;
    match &e {
        StartupError::Lobby(floor_lobby::service::LobbyError::Listen(addr, io)) if io.kind() == std::io::ErrorKind::AddrInUse => Failure {
            message: format!(
                "the lobby's HTTP address {addr} is in use (another floor or make demo?): choose another with --http or \
                 FLOOR_HTTP (make demo: DEMO_HTTP=127.0.0.1:8081), or stop what listens there"
            ),
            exit: Exit::Usage,
        },
        _ => Failure { message: format!("{e:#}"), exit: Exit::Unavailable },
    }
}

/// `floor table-check`: NATS (NATS_URL or a server of its own), the table server under test
/// (built in, started with `--exec`, or started by the user), the check, the verdicts.
async fn table_check(args: &TableCheckArgs) -> Result<(), Failure> {
    use floor::table_check::{self, builtin, Config};
    use std::time::Duration;
    let unavailable = |m: String| Failure { message: m, exit: Exit::Unavailable };
    let joined = std::env::var("NATS_URL").ok().filter(|u| !u.trim().is_empty());
    let (url, _server) = match joined {
        Some(url) => (url, None),
        None => {
            let server = floor_runtime::server::NatsServer::start_temp().map_err(|e| unavailable(e.to_string()))?;
            eprintln!("table-check: nats-server at {}", server.url());
            (server.url(), Some(server))
        }
    };
    let client = floor_runtime::bootstrap::connect(&url).await.map_err(|e| unavailable(e.to_string()))?;
    let backbone = floor_runtime::bootstrap::ensure_backbone(client).await.map_err(|e| unavailable(e.to_string()))?;
    let tournament = args.tournament.map(TournamentId).unwrap_or_default();
    let yourself = !args.builtin && args.exec.is_none();
    let timeout = Duration::from_secs(args.timeout);
    let config = Config {
        tournament,
        timeout,
        // Time to start a table server by hand.
        start_timeout: if yourself { timeout.max(Duration::from_secs(120)) } else { timeout },
        quiet: Duration::from_millis(args.quiet_ms),
    };
    let shutdown = tokio_util::sync::CancellationToken::new();
    let served =
        args.builtin.then(|| tokio::spawn(builtin::serve(backbone.jetstream.clone(), tournament, args.fault, 1, shutdown.clone())));
    let mut child = match &args.exec {
        Some(command) => {
            let mut shell = std::process::Command::new("sh");
            shell
                .arg("-c")
                .arg(command)
                .env("NATS_URL", &url)
                .env("FLOOR_TOURNAMENT", tournament.to_string())
                .stdin(std::process::Stdio::null());
            // Its own process group, so stopping it stops what the shell started too; and
            // stopped with this process if that dies first.
            #[cfg(unix)]
            std::os::unix::process::CommandExt::process_group(&mut shell, 0);
            Some(floor_runtime::server::spawn_bound_to_process(shell).map_err(|e| unavailable(format!("--exec {command:?}: {e}")))?)
        }
        None => None,
    };
    if yourself {
        eprintln!(
            "table-check: start the table server under test now, serving every table of the tournament:\n  \
             NATS_URL={url} FLOOR_TOURNAMENT={tournament}\n(waiting up to {} s for its first report)",
            config.start_timeout.as_secs()
        );
    }
    let outcome = table_check::run(backbone.client.clone(), config).await;
    shutdown.cancel();
    if let Some(Ok(Err(e))) = match served {
        Some(s) => Some(s.await),
        None => None,
    } {
        eprintln!("table-check: the built-in tables stopped: {e}");
    }
    if let Some(child) = child.as_mut() {
        stop_group(child);
    }
    let outcome = outcome.map_err(|e| unavailable(e.to_string()))?;
    if args.json {
        say!("{}", serde_json::to_string(&outcome).expect("json"));
    } else {
        answer(format_args!("{}", outcome.text()), false);
    }
    match outcome.passed {
        true => Ok(()),
        false => Err(Failure { message: format!("the table server broke {}", outcome.failed().join(", ")), exit: Exit::Rejected }),
    }
}

/// Stops a child started in a process group of its own, and everything in that group: SIGTERM,
/// up to 5 s to exit, then SIGKILL; then reaps it.
fn stop_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // The group's id is the child's pid (`process_group(0)`); a negative pid names the group.
        let group = -(child.id() as libc::pid_t);
        // SAFETY: plain signals to the group of a child this process started and has not reaped.
        unsafe { libc::kill(group, libc::SIGTERM) };
        if !floor_runtime::server::wait_for_exit(child.id(), std::time::Duration::from_secs(5)) {
            // SAFETY: as above.
            unsafe { libc::kill(group, libc::SIGKILL) };
        }
    }
    #[cfg(not(unix))]
    let _ = child.kill();
    let _ = child.wait();
}

/// JetStream of the running platform for `cli.data`, signed in as a director (what `floor status`
/// and `floor audit` read the log and the buckets with).
async fn director_jetstream(cli: &Cli) -> Result<async_nats::jetstream::Context, Failure> {
    let unavailable = |message: String| Failure { message, exit: Exit::Unavailable };
    let (url, credentials) =
        floor_runtime::bootstrap::join(&cli.data, floor_runtime::roles::Role::Director).map_err(|e| unavailable(e.to_string()))?;
    let client = floor_runtime::bootstrap::connect_with(&url, &credentials)
        .await
        .map_err(|e| unavailable(format!("{e} (is `floor run` still running?)")))?;
    Ok(async_nats::jetstream::new(client))
}

/// Every commit of `tournament` in the running platform's log (director credentials).
async fn read_log(cli: &Cli, tournament: uuid::Uuid) -> Result<Vec<floor_audit::LogCommit>, Failure> {
    let jetstream = director_jetstream(cli).await?;
    let commits = floor::audit::read(&jetstream, tournament).await.map_err(|message| Failure { message, exit: Exit::Unavailable })?;
    if commits.is_empty() {
        return Err(Failure { message: format!("no commit of tournament {tournament} in the log"), exit: Exit::Usage });
    }
    Ok(commits)
}

/// `floor audit`: the running platform's log of one tournament, or an export; exit 1 on any
/// difference (issue 42).
async fn audit(
    cli: &Cli,
    tournament: Option<uuid::Uuid>,
    file: Option<&std::path::Path>,
    html: Option<&std::path::Path>,
    json: bool,
) -> Result<(), Failure> {
    let (commits, deleted) = match (file, tournament) {
        (Some(path), _) => {
            let usage = |message: String| Failure { message, exit: Exit::Usage };
            let text = std::fs::read_to_string(path).map_err(|e| usage(format!("{}: {e}", path.display())))?;
            (floor::export::from_lines(&text).map_err(|e| usage(format!("{}: {e}", path.display())))?, Vec::new())
        }
        (None, Some(tournament)) => {
            let deleted = floor::audit::deleted(&director_jetstream(cli).await?).await;
            (read_log(cli, tournament).await?, deleted.map_err(|message| Failure { message, exit: Exit::Unavailable })?)
        }
        (None, None) => return Err(Failure { message: "audit: a tournament or --file".to_owned(), exit: Exit::Usage }),
    };
    let (text, ok) = floor::audit::render(&commits, &deleted, json);
    say!("{}", text.trim_end_matches('\n'));
    if let Some(path) = html {
        let name = tournament.map_or_else(
            || commits.first().map_or(String::new(), |c| c.subject.rsplit('.').next().unwrap_or("").to_owned()),
            |t| t.to_string(),
        );
        let report = floor_audit::audit_with(&commits, &deleted);
        floor::audit::write_report(path, &name, &commits, &report).map_err(|message| Failure { message, exit: Exit::Usage })?;
    }
    match ok {
        true => Ok(()),
        false => Err(Failure { message: "audit: differences found".to_owned(), exit: Exit::Rejected }),
    }
}

/// `floor audit --all --since …`: every tournament of the period, a line each, progress on
/// stderr; exit 1 if any has a difference (issue 42).
async fn audit_all(cli: &Cli, since: chrono::DateTime<chrono::Utc>, reports: Option<&std::path::Path>, json: bool) -> Result<(), Failure> {
    let jetstream = director_jetstream(cli).await?;
    if let Some(dir) = reports {
        std::fs::create_dir_all(dir).map_err(|e| Failure { message: format!("{}: {e}", dir.display()), exit: Exit::Usage })?;
    }
    let (audited, failed) = floor::audit::all_since(
        &jetstream,
        since,
        json,
        reports,
        |line| {
            say!("{line}");
        },
        |line| eprintln!("{line}"),
    )
    .await
    .map_err(|message| Failure { message, exit: Exit::Unavailable })?;
    match failed {
        0 => Ok(()),
        _ => Err(Failure { message: format!("audit: {failed} of {audited} tournament(s) with differences"), exit: Exit::Rejected }),
    }
}

/// `floor status`: every reader's health record, whether any commit was poison, and which
/// tournaments wait on which service since when.
async fn status(cli: &Cli) -> Result<(), Failure> {
    let unavailable = |message: String| Failure { message, exit: Exit::Unavailable };
    let jetstream = director_jetstream(cli).await?;
    let mut status = floor_runtime::health::status(&jetstream).await.map_err(unavailable)?;
    status.unbalanced_books = floor_runtime::health::unbalanced_books(&jetstream).await.map_err(unavailable)?;
    status.store = floor_runtime::shape::observe(&jetstream, &floor_runtime::shape::expected()).await.map_err(unavailable)?;
    status.healthy &= status.unbalanced_books.is_empty() && status.store.is_empty();
    status.waiting = floor_runtime::waiting::observe(&jetstream, chrono::Utc::now(), floor_runtime::waiting::WAITING_AFTER)
        .await
        .map_err(unavailable)?;
    // Issue 42: every aggregate's hash chain and the stored anchor (docs/audit.md).
    let chains = floor::audit::stream_chains(&jetstream).await.map_err(unavailable)?;
    status.healthy &= chains.differences.is_empty() && chains.anchor.as_ref().is_none_or(|a| a.ok);
    let mut reply = serde_json::to_value(status).expect("health serializes");
    reply["chains"] = serde_json::to_value(chains).expect("chains serialize");
    print_reply(reply)
}

async fn serve(config: PlatformConfig) -> Result<(), Failure> {
    let console = config.console.is_some();
    let platform = Platform::build(config).await.map_err(startup_failure)?;
    match platform.http_addr() {
        Some(addr) => {
            let console = match console {
                true => format!("director console: http://{addr}/console"),
                false => "director console disabled: no FLOOR_CONSOLE_PASSWORD or --console-password-file".to_owned(),
            };
            tracing::info!("Floor is running; lobby at http://{addr}/ (JSON API: http://{addr}/api; {console}) (Ctrl-C stops)")
        }
        None => tracing::info!("Floor service is running (Ctrl-C stops)"),
    }
    platform.run_until_stopped(stop_signal()).await;
    tracing::info!("stopped cleanly");
    Ok(())
}
