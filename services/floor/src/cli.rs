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

/// `floor credentials …`.
#[derive(Debug, Subcommand)]
pub enum CredentialsCommand {
    /// Make the roles' credentials for nats-servers of your own (a cluster, issue 40): one
    /// `credentials/<role>.env` per role (mode 0600, made once, kept after) and the servers'
    /// `authorization` block, `nats/auth.conf`, in --data. Include that file in every server's
    /// configuration; give each process the file of its role (`floor run`: service.env).
    Init,
    /// Issue a table credential: it may publish the reports of the tournament's tables (or of
    /// one table) and read their instructions, nothing else. Prints `NATS_USER=…` and
    /// `NATS_PASSWORD=…` for the table server's environment.
    Table {
        /// The tournament.
        #[arg(long)]
        tournament: uuid::Uuid,
        /// One table only.
        #[arg(long)]
        table: Option<u32>,
    },
    /// The table credentials issued and not revoked (users and scopes, no passwords).
    List,
    /// Revoke a table credential: the server closes its connections and refuses it from now on.
    Revoke {
        /// Its user name (as `table` printed it, or `list` shows it).
        user: String,
    },
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run every service in this process (embedded NATS unless NATS_URL is set).
    ///
    /// Without NATS_URL, floor starts a nats-server (>= 2.10; older ones are refused) with
    /// JetStream in ./data/. It uses FLOOR_NATS_SERVER when set (and nothing else), otherwise
    /// the first of: nats-server next to the floor executable, .tools/bin/nats-server in the
    /// current directory or a parent (`make tools` installs it there), nats-server on PATH.
    Run {
        /// HTTP address of the lobby.
        #[arg(long, env = "FLOOR_HTTP", default_value = "127.0.0.1:8080")]
        http: SocketAddr,
        /// Run only these services (comma-separated); default: all. The names are the
        /// registry's: lobby, registration, clock, seating, payouts, rebuys, bounties, bubble,
        /// abort, satellites, scheduler (every one is listed below as a possible value).
        #[arg(long, value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(floor_events::registry::names()))]
        only: Vec<String>,
        /// The director console.
        #[command(flatten)]
        console: ConsoleArgs,
        /// The lobby's HTTP server: HTTPS, trusted proxies, connections.
        #[command(flatten)]
        server: floor_lobby::flags::HttpArgs,
        /// Development only: the embedded nats-server takes anyone who reaches its port, with
        /// no credentials (Floor warns at start). Without it, the roles of docs/security.md.
        #[arg(long, env = "FLOOR_INSECURE_NATS")]
        insecure_nats: bool,
    },
    /// Run the registration service alone (for scale-out; needs NATS_URL or a `floor run`).
    Registration,
    /// Run the lobby alone: projection and HTTP.
    Lobby {
        /// HTTP address of the lobby.
        #[arg(long, env = "FLOOR_HTTP", default_value = "127.0.0.1:8080")]
        http: SocketAddr,
        /// The director console.
        #[command(flatten)]
        console: ConsoleArgs,
        /// The lobby's HTTP server: HTTPS, trusted proxies, connections.
        #[command(flatten)]
        server: floor_lobby::flags::HttpArgs,
    },
    /// Tournaments: create, list, show, start, cancel, suspend, resume, statement, books.
    #[command(subcommand)]
    Tournament(TournamentCommand),
    /// Table credentials for the embedded server of this data directory (docs/security.md):
    /// issue one for a tournament's tables (or one table), list them, revoke one; or make the
    /// roles' credentials for servers of your own (init).
    #[command(subcommand)]
    Credentials(CredentialsCommand),
    /// Register a player for a tournament (a re-entry or another multi-entry where allowed).
    Register {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Player account name.
        player: String,
        /// Print the entry as JSON (amounts in minor units, with their currency) instead of a
        /// line with amounts in the currency's units.
        #[arg(long)]
        json: bool,
    },
    /// Set a player's tournament limits: how many tournaments per day, week and month (002 §2.3:
    /// under svenska-spel-2012 all three are required before a first tournament, counted per
    /// calendar day, week and month in Swedish time; a lower limit applies at once, a higher one
    /// from the next period). A limit left out is none.
    Limits {
        /// Player account name.
        player: String,
        /// Tournaments per day.
        #[arg(long)]
        per_day: Option<u32>,
        /// Tournaments per week.
        #[arg(long)]
        per_week: Option<u32>,
        /// Tournaments per month.
        #[arg(long)]
        per_month: Option<u32>,
    },
    /// A player shuts themselves out of every tournament, at once, for a period nobody can
    /// shorten (002 §2.3): registration refuses them (`self_excluded`) until it ends; what they
    /// entered before plays on.
    Exclude {
        /// Player account name.
        player: String,
        /// For how long.
        #[arg(long = "for", value_enum)]
        period: ExclusionArg,
    },
    /// Withdraw a player's registration before the start, with a full refund.
    Unregister {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Player account name.
        player: String,
    },
    /// Buy a rebuy for a player: at zero chips while the offer is open, or at or below the
    /// tournament's limit where its profile allows (reel-cz: "chips ≤ X").
    Rebuy(PurchaseArgs),
    /// Decline the rebuy offered (or, at zero chips in the add-on break, the add-on): the entry
    /// is eliminated.
    Decline(PurchaseArgs),
    /// Buy the add-on for a player, in the break that ends the rebuy period.
    AddOn(PurchaseArgs),
    /// Satellite tickets: a player's tickets, one satellite's or one ticket, spending one
    /// (docs: examples/satellite.toml).
    #[command(subcommand)]
    Ticket(TicketCommand),
    /// Shootouts: a shootout's bracket (docs: examples/shootout.toml).
    #[command(subcommand)]
    Shootout(ShootoutCommand),
    /// Lottery sit & gos: drawn against published frequencies (docs: examples/lottery.toml).
    #[command(subcommand)]
    Lottery(LotteryCommand),
    /// Rebuy periods: director commands.
    #[command(subcommand)]
    Rebuys(RebuysCommand),
    /// The blind clock of a tournament: director commands.
    #[command(subcommand)]
    Clock(ClockCommand),
    /// Hand-for-hand on the bubble: director commands (docs/bubble.md).
    #[command(subcommand)]
    Bubble(BubbleCommand),
    /// Bounties: director commands (docs/bounties.md).
    #[command(subcommand)]
    Bounty(BountyCommand),
    /// Deals: the remaining players divide the unpaid prizes (docs/architecture.md, Deals).
    #[command(subcommand)]
    Deal(DealCommand),
    /// Recurring tournaments: add, list, remove templates.
    #[command(subcommand)]
    Schedule(ScheduleCommand),
    /// The platform's health: poison commits its readers survived (commits they could not
    /// decode or apply) and the aggregates they set aside, read from KV `floor-health`; and
    /// under `waiting`, each tournament that waits on a service: the service, its reader, since
    /// when, and by how many commits it is behind (a commit untaken for 2 s or more).
    Status,
    /// Audit one tournament (issue 42, docs/audit.md): verify its commits' hash chains and
    /// replay every commit of it with code apart from the services', and print `ok` or each
    /// difference with the commits (stream sequences) involved. Exit code 0 when ok, 1 on any
    /// difference.
    Audit {
        /// The tournament, read from the running platform's log.
        #[arg(required_unless_present_any = ["file", "all"], conflicts_with_all = ["file", "all"])]
        tournament: Option<uuid::Uuid>,
        /// Audit an export (`floor export`) instead, without a running platform.
        #[arg(long, conflicts_with = "all")]
        file: Option<PathBuf>,
        /// Every tournament with commits since --since, one after the other, a line each
        /// (progress on stderr).
        #[arg(long, requires = "since")]
        all: bool,
        /// With --all: a date (2026-11-01) or an RFC 3339 time.
        #[arg(long, value_parser = crate::audit::parse_since)]
        since: Option<chrono::DateTime<chrono::Utc>>,
        /// Also write an HTML report an auditor can read: this file for one tournament, this
        /// directory (one `<tournament>.html` each) with --all.
        #[arg(long)]
        report: Option<PathBuf>,
        /// The report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write every commit of one tournament to stdout as JSON lines (subject, sequence, time,
    /// body, schema version), which `floor audit --file` audits without a running platform.
    Export {
        /// The tournament.
        tournament: uuid::Uuid,
    },
    /// Play a whole tournament with simulated table servers and print a JSON summary line.
    ///
    /// Without NATS_URL it starts the whole platform itself (in a temporary directory), so
    /// one command shows a whole tournament; the same seed then gives the same tournament.
    Sim {
        /// Players (default 100; with a sit & go's --definition, its capacity; 81 for a shootout, 10
        /// for double or nothing, 3 for a lottery game).
        #[arg(long)]
        entrants: Option<u32>,
        /// Seed of the hands and the draw.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Rule profile.
        #[arg(long, default_value = "tda-2024", value_parser = clap::builder::PossibleValuesParser::new(floor_events::RuleProfile::ALL.map(|p| p.name())))]
        profile: String,
        /// Seats per table.
        #[arg(long, default_value_t = 9)]
        table_size: u8,
        /// Tournament format: a freezeout, rebuys (two per entry) and an add-on taken by
        /// simulated players, a freezeout with knockout, progressive knockout or mystery
        /// bounties, a satellite played to its seats and then its target to a winner, or
        /// (issue 37) a shootout, a double or nothing or a lottery sit & go.
        #[arg(long, value_enum, default_value_t = SimFormat::Freezeout)]
        format: SimFormat,
        /// The tournament's id (default: from the seed on the sim's own platform, a fresh one
        /// with NATS_URL). With NATS_URL, the same id and seed on platforms whose seating has
        /// the same FLOOR_SEED_KEY play the same tournament.
        #[arg(long)]
        tournament_id: Option<uuid::Uuid>,
        /// A test seed key for the draws of the sim's own platform, as 64 hex digits (`test:`
        /// in front allowed): give the same as FLOOR_SEED_KEY to compare with a run against
        /// NATS_URL. Default: from the seed. Not with NATS_URL (the platform's seating has its
        /// own key).
        #[arg(long, value_parser = parse_sim_seed_key)]
        seed_key: Option<SeedKeyArg>,
        /// Fields above 360 are scheduled: seconds from creating the tournament to its start,
        /// by which every player must be registered. Default: 1 on the sim's own platform;
        /// with NATS_URL (where a scheduler starts it at its time, and cancels it if the field
        /// is not in) 5 plus 0.005 per entrant.
        #[arg(long)]
        start_after: Option<u64>,
        /// Add every finishing place to the summary line (`standings`: entry, player, place,
        /// places shared, prize), so two runs can be compared to the cent.
        #[arg(long)]
        standings: bool,
        /// Tables deal at their own random pace, each on its own, instead of in lockstep
        /// rounds, so hand-for-hand's barrier meets tables finishing at different moments. Not
        /// reproducible by seed (the summary says `"reproducible": false`). Freezeouts only
        /// (with or without bounties).
        #[arg(long)]
        free: bool,
        /// Start hand-for-hand this many players before the bubble (default: the profile's
        /// trigger, one or two), so more hands are played hand for hand.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
        hand_for_hand_from: Option<u32>,
        /// Cancel the tournament (the abort service, the profile's own formula) once at most
        /// this many players are left, between two rounds, and print the cancellation's
        /// statements and books instead of a winner. Lockstep only.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        cancel_at: Option<u32>,
        /// Suspend the tournament once at most this many players are left, between two rounds:
        /// the tables pause, and play goes on when a director resumes it (`floor tournament
        /// resume`), as if never stopped. Lockstep only, with NATS_URL (a platform a director
        /// can reach).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        suspend_at: Option<u32>,
        /// A pace to watch: each table deals a hand about every this many seconds (e.g. 3), each
        /// at its own pace as with --free. Freezeouts only (with or without bounties).
        #[arg(long, value_parser = parse_hand_every)]
        hand_every: Option<std::time::Duration>,
        /// A blind structure (a clock preset), so levels change while the tournament plays
        /// (with --hand-every; the sim's own platform then runs the clock).
        #[arg(long, value_enum, requires = "hand_every", conflicts_with = "structure_file")]
        structure: Option<Preset>,
        /// A blind structure from a file (`[[steps]]` tables; see examples/structures/), as
        /// --structure.
        #[arg(long, requires = "hand_every")]
        structure_file: Option<PathBuf>,
        /// Serve the lobby of the sim's own platform here (every service running; the director
        /// console too, with FLOOR_CONSOLE_PASSWORD or --console-password-file), and keep
        /// serving after the winner until Ctrl-C. Not with NATS_URL (that platform has its own).
        #[arg(long)]
        http: Option<SocketAddr>,
        /// The director console, with --http.
        #[command(flatten)]
        console: ConsoleArgs,
        /// Play this tournament definition (TOML, as `floor tournament create --file`; see
        /// examples/) instead of the sim's own, moved to now (the start --start-after ahead).
        /// With late registration, two thirds of the field enter before the start, the rest in
        /// play until registration closes (the sim skips the clock past the late level).
        #[arg(long, conflicts_with_all = ["format", "profile", "table_size", "hand_for_hand_from", "structure", "structure_file"])]
        definition: Option<PathBuf>,
        /// Audit the tournament (and a satellite's satellite) from its log once played, before
        /// the platform stops (`floor audit`, docs/audit.md): the line gets `audit` (`ok` and the
        /// differences); exit code 1 on any difference.
        #[arg(long)]
        audit: bool,
    },
    /// Check a table server against the table protocol (docs/table-servers.md): play Floor's
    /// side with scripted instructions on a test tournament's tables and list every rule with
    /// pass or fail. Exit code 0 only if every rule passes.
    ///
    /// NATS: NATS_URL, or a nats-server of its own (its URL is printed). The table server under
    /// test serves every table of the tournament FLOOR_TOURNAMENT on that NATS.
    TableCheck(TableCheckArgs),
    /// Print the completion script for a shell, generated from this command line: e.g.
    /// `floor completions bash > ~/.local/share/bash-completion/completions/floor`,
    /// `floor completions zsh > ~/.zfunc/_floor`, `floor completions fish >
    /// ~/.config/fish/completions/floor.fish`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page floor(1), generated from this command line (`floor man | man -l
    /// -`); with --dir, write it and one page per subcommand (floor-tournament-create.1…) there.
    Man {
        /// Write floor.1 and every subcommand's page into this directory instead.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Serve every table of one tournament with Floor's simulated tables, as an outside table
    /// server would (NATS_URL, FLOOR_TOURNAMENT), until stopped: what `floor table-check
    /// --builtin` checks, as a process of its own (`floor table-check --exec "floor sim-tables"`).
    SimTables {
        /// The tournament.
        #[arg(long, env = "FLOOR_TOURNAMENT")]
        tournament: uuid::Uuid,
        /// Break one protocol rule on purpose.
        #[arg(long, value_enum)]
        fault: Option<crate::table_check::builtin::Fault>,
        /// Seed of the hands.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// The director console (`/console` on the lobby's HTTP server).
///
/// Its password comes from FLOOR_CONSOLE_PASSWORD or, better (no environment to leak), from a
/// file: `--console-password-file`. There is no default: without one the console answers that
/// it is disabled and the rest of the lobby serves. A password shorter than 8 characters is
/// refused and Floor does not start. Only its hash is kept.
#[derive(Debug, Clone, clap::Args)]
pub struct ConsoleArgs {
    /// A file whose first line is the console's password (or the password itself in
    /// FLOOR_CONSOLE_PASSWORD; without either the console is disabled).
    #[arg(long, env = "FLOOR_CONSOLE_PASSWORD_FILE")]
    pub console_password_file: Option<PathBuf>,
    /// How long a console session lasts, in hours.
    #[arg(long, env = "FLOOR_CONSOLE_SESSION_HOURS", default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=168))]
    pub console_session_hours: u32,
}

/// `floor table-check`.
#[derive(Debug, clap::Args)]
pub struct TableCheckArgs {
    /// Check Floor's own simulated tables, run in this process.
    #[arg(long, conflicts_with = "exec")]
    pub builtin: bool,
    /// With --builtin: break one rule on purpose (to see the check catch it).
    #[arg(long, requires = "builtin", value_enum)]
    pub fault: Option<crate::table_check::builtin::Fault>,
    /// Start the table server under test with this shell command, with NATS_URL and
    /// FLOOR_TOURNAMENT in its environment; it is stopped at the end. Without --exec or
    /// --builtin, start it yourself: the command prints what to set.
    #[arg(long)]
    pub exec: Option<String>,
    /// The test tournament's id (default: a fresh one).
    #[arg(long)]
    pub tournament: Option<uuid::Uuid>,
    /// Print the result as one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Seconds to wait for anything the table server must do.
    #[arg(long, default_value_t = 10)]
    pub timeout: u64,
    /// Milliseconds to watch for what a table must not do (deal before blinds, while held…).
    #[arg(long, default_value_t = 300)]
    pub quiet_ms: u64,
}

/// A seed key given on the command line or in `FLOOR_SEED_KEY`: 32 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedKeyArg(pub [u8; 32]);

/// The prefix that marks a seed key as a test setting.
pub const TEST_KEY_PREFIX: &str = "test:";

fn hex_key(hex: &str) -> Result<[u8; 32], String> {
    let digits = hex.trim();
    if digits.len() != 64 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("a seed key is 64 hex digits, not {} characters", digits.chars().count()));
    }
    Ok(floor_runtime::encoding::unhex(digits).expect("64 hex digits"))
}

/// `--hand-every`: seconds, from 0.1 to 600 (`3`, `2.5`).
///
/// # Errors
/// Not a number of seconds in that range.
pub fn parse_hand_every(value: &str) -> Result<std::time::Duration, String> {
    match value.trim_end_matches('s').parse::<f64>() {
        Ok(seconds) if (0.1..=600.0).contains(&seconds) => Ok(std::time::Duration::from_secs_f64(seconds)),
        _ => Err(format!("{value:?}: seconds from 0.1 to 600, e.g. 3")),
    }
}

/// `floor sim --seed-key`: 64 hex digits, `test:` in front allowed (the form FLOOR_SEED_KEY
/// takes), so one string serves both.
///
/// # Errors
/// Anything but 64 hex digits.
pub fn parse_sim_seed_key(value: &str) -> Result<SeedKeyArg, String> {
    hex_key(value.strip_prefix(TEST_KEY_PREFIX).unwrap_or(value)).map(SeedKeyArg)
}

/// `FLOOR_SEED_KEY`, read by `floor run`: the key seating derives its draws and decisions from,
/// instead of the one kept in KV `floor-secrets`.
///
/// A test setting only: whoever knows the key can compute every draw, so it must be written as
/// `test:` and 64 hex digits, and anything else (a key without the mark included) is refused
/// rather than used or ignored. Unset or empty: `None`, the platform's own secret key.
///
/// # Errors
/// A value without the `test:` mark, or not 64 hex digits after it.
pub fn test_seed_key(value: Option<&str>) -> Result<Option<[u8; 32]>, String> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else { return Ok(None) };
    let Some(hex) = value.strip_prefix(TEST_KEY_PREFIX) else {
        return Err(format!(
            "FLOOR_SEED_KEY is a test setting (it makes every draw predictable to whoever knows it): write it as \
             {TEST_KEY_PREFIX}<64 hex digits>, or unset it"
        ));
    };
    hex_key(hex).map(Some).map_err(|e| format!("FLOOR_SEED_KEY: {e}"))
}

/// The format `floor sim` plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SimFormat {
    /// One entry, no rebuys.
    Freezeout,
    /// Rebuys in the first part, then the add-on.
    Rebuy,
    /// Knockout bounties: 25 % of each buy-in on the entry's head.
    Ko,
    /// Progressive knockout: 50 % of each buy-in, half of each bounty collected in cash.
    Pko,
    /// Mystery bounties: 50 % of each buy-in into eight envelopes drawn from 9 players left.
    Mystery,
    /// A satellite and its target: the satellite plays until as many players are left as its
    /// pool buys seats, its winners are registered in the target by their tickets, then the
    /// target plays to a winner with them and ordinary entries.
    Satellite,
    /// Step satellites (issue 36, 000 §16.13): a three-level tree, step 1 (EUR 0.40 + 0.04)
    /// into step 2 (EUR 2 + 0.20) into the target (EUR 10 + 1), each step's winners seated in
    /// the next by their tickets, then the target to a winner.
    Steps,
    /// Flights (issue 36): three Day 1s, each played to a quarter of its field, their survivors
    /// carried into one Day 2 (best stack forward), which plays to a winner with the Day 1s'
    /// pools.
    Flights,
    /// A shootout (issue 37): each table plays to its winner, the winners drawn afresh onto
    /// the next round's tables, until one table plays to the winner.
    Shootout,
    /// Double or nothing (issue 37): a sit & go that stops when half the field is left, each
    /// paid twice the buy-in.
    Don,
    /// A lottery sit & go (issue 37): three seats, the prize pool drawn from a published table
    /// with an audited seed when they fill.
    Lottery,
}

/// `floor shootout …`: shootouts (issue 37), through the shootouts service.
#[derive(Debug, Subcommand)]
pub enum ShootoutCommand {
    /// A shootout's bracket: every round so far, its entries and, once complete, who advanced.
    Bracket {
        /// The shootout's id.
        tournament: uuid::Uuid,
        /// Print the service's answer as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `floor lottery …`: lottery sit & gos (issue 37), through the lottery service.
#[derive(Debug, Subcommand)]
pub enum LotteryCommand {
    /// Every game of a published table version: each multiplier's published odds beside how
    /// often it was drawn.
    Frequencies {
        /// The table's version (the definition's `[lottery] version`).
        version: String,
        /// Print the service's answer as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `floor ticket …`: satellite tickets (issue 36), through the satellites service.
#[derive(Debug, Subcommand)]
pub enum TicketCommand {
    /// A player's tickets, every state: issued (to spend), spending, spent.
    List {
        /// Player account name.
        #[arg(long)]
        player: String,
        /// Print the service's answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// One ticket (`<satellite id>/<entry>`, as `list` prints it), or one satellite (its id
    /// alone): its target, seat value and every ticket it issued.
    Show {
        /// `<satellite id>/<entry>`, or `<satellite id>`.
        ticket: String,
        /// Print the service's answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Spend a ticket: register its holder in a tournament, paid by the ticket (its target, or
    /// one whose entry costs what the ticket is worth).
    Spend {
        /// `<satellite id>/<entry>`.
        ticket: String,
        /// The ticket's holder.
        #[arg(long)]
        player: String,
        /// The tournament to enter.
        #[arg(long)]
        tournament: uuid::Uuid,
    },
    /// Convert a held ticket to cash at its value, where its satellite allows it (issue 36;
    /// always under FORTUNA, 004 §4.36.4).
    Convert {
        /// `<satellite id>/<entry>`.
        ticket: String,
        /// The ticket's holder.
        #[arg(long)]
        player: String,
    },
    /// Record a satellite's held tickets expired as of a time (issue 36): every one whose
    /// expiry is at or before it.
    Expire {
        /// The satellite's id.
        satellite: uuid::Uuid,
        /// As of when (RFC 3339, e.g. 2026-12-31T00:00:00Z).
        #[arg(long)]
        as_of: chrono::DateTime<chrono::Utc>,
    },
}

/// Who buys: a player, and which entry when they hold several.
#[derive(Debug, clap::Args)]
pub struct PurchaseArgs {
    /// Tournament id.
    pub tournament: uuid::Uuid,
    /// Player account name.
    pub player: String,
    /// The entry number, when the player holds several live entries.
    #[arg(long)]
    pub entry: Option<u32>,
}

/// `floor rebuys …`.
#[derive(Debug, Subcommand)]
pub enum RebuysCommand {
    /// End the rebuy period now (the add-on is offered); the clock does this at its break.
    End {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
    /// End the add-on break now; the clock does this when the next level starts.
    EndAddOns {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
}

/// `floor bubble …`: every command is recorded as an event (the audit trail).
#[derive(Debug, Subcommand)]
pub enum BubbleCommand {
    /// Start hand-for-hand now (any tournament; a `hand_for_hand` section also starts it by
    /// itself near the bubble).
    Start {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
    /// End hand-for-hand now: every table deals freely again.
    Stop {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
    /// Stop waiting for these tables in the current hand (their busts are placed later, as a
    /// group of their own).
    ReleaseWithout {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Table numbers.
        #[arg(required = true, num_args = 1..)]
        tables: Vec<u32>,
    },
    /// Hold the next release (the hand in progress finishes).
    Pause {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Why (recorded, shown to players).
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Release hands again.
    Resume {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
}

/// `floor deal …`: every answer is recorded as an event of the payouts log.
#[derive(Debug, Subcommand)]
pub enum DealCommand {
    /// A remaining player proposes a deal (proposing is their acceptance); the clock pauses
    /// until every remaining player accepts or one rejects. The chips are the tables' reports.
    Propose {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// How the unpaid prizes are divided.
        #[arg(long, value_enum)]
        method: DealMethodArg,
        /// Custom amounts, one per remaining player: `p1=123.45,p2=67.80` (`p1#4=…` names
        /// entry 4 of a player with several entries still in).
        #[arg(long, value_delimiter = ',', required_if_eq("method", "custom"))]
        amounts: Vec<String>,
        /// Kept out of the split for the winner, in the tournament's currency (`100.00`).
        #[arg(long)]
        left_to_play_for: Option<String>,
        /// Once every remaining player accepts, the deal ends the tournament: each is paid the
        /// agreed amount and placed by chips (000 §16.8, 004 §4.35); nothing left to play for.
        #[arg(long, conflicts_with = "left_to_play_for")]
        ends_tournament: bool,
        /// The proposing player.
        #[arg(long)]
        player: String,
    },
    /// A remaining player accepts the deal under discussion.
    Accept {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// The player.
        #[arg(long)]
        player: String,
    },
    /// A remaining player rejects it: the deal is off and the clock runs again.
    Reject {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// The player.
        #[arg(long)]
        player: String,
    },
    /// The tournament's last deal: each player's amount, who accepted, who is awaited.
    Show {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
}

/// How a deal divides the money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DealMethodArg {
    /// Malmuth-Harville ICM equity.
    Icm,
    /// The next unpaid prize each, the rest by chips.
    ChipChop,
    /// Equal parts.
    Equal,
    /// The amounts given with --amounts.
    Custom,
}

/// `floor bounty …`.
#[derive(Debug, Subcommand)]
pub enum BountyCommand {
    /// Name (or rename) the target of a target bounty before the start.
    NameTarget {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// The target's player account name.
        player: String,
        /// Tell the players who it is (otherwise hidden until they are out).
        #[arg(long)]
        public: bool,
    },
    /// Start the mystery bounty stage now (a stage the tournament's trigger does not reach).
    StartMysteryStage {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
}

/// `floor clock …`: every command is recorded as an event (the audit trail).
#[derive(Debug, Subcommand)]
pub enum ClockCommand {
    /// Give the clock a structure before the start: a preset or a TOML file.
    Structure {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// A preset: standard, turbo, hyper-turbo, deep-stack, short-stack.
        #[arg(long, conflicts_with = "file", required_unless_present = "file")]
        preset: Option<Preset>,
        /// A structure file (`[[steps]]` tables; see examples/structures/).
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Start level 1 now (a tournament's clock normally starts with the tournament).
    Start {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
    /// Pause the clock.
    Pause {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Why (recorded, shown to players).
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Resume a paused clock.
    Resume {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
    /// Add time to the current level or break (negative removes time).
    AddTime {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Seconds to add; negative removes.
        #[arg(allow_hyphen_values = true)]
        seconds: i64,
    },
    /// Jump to a level.
    Skip {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Level number, from 1.
        level: u32,
    },
    /// End the current break now.
    EndBreak {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
}

/// Structure presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    /// 15-minute levels.
    Standard,
    /// 6-minute levels.
    Turbo,
    /// 3-minute levels.
    HyperTurbo,
    /// 20-minute levels.
    DeepStack,
    /// 10-minute levels starting four levels up.
    ShortStack,
}

/// `floor schedule …`
#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// Add a recurring template from TOML (see examples/schedules/); prints its id and next starts.
    Add {
        /// The template.
        #[arg(long)]
        file: PathBuf,
    },
    /// List templates with their next starts.
    List,
    /// Remove a template; tournaments already created stay.
    Remove {
        /// Template id.
        template: uuid::Uuid,
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
        /// A satellite's target: replaces the file's `[satellite] target` (examples/satellite.toml
        /// leaves it as the placeholder 00000000-0000-0000-0000-000000000000 for this flag).
        #[arg(long)]
        target: Option<uuid::Uuid>,
    },
    /// List tournaments from the lobby.
    List,
    /// Show one tournament's lobby document as JSON.
    Show {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
    /// Start a scheduled tournament now that its time has come (the scheduler does this by
    /// itself); below the minimum it is cancelled and refunded. With `--now`, before its time
    /// (below the minimum that is refused with `too_few_entries`, and nothing changes).
    Start {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Start before the start time.
        #[arg(long)]
        now: bool,
    },
    /// Cancel a tournament. Before its start every entry is refunded (registration); once it
    /// has started the abort service pays every player by the profile's rule, with a statement
    /// each (`floor tournament statement`).
    Cancel {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Why (recorded, shown to players).
        #[arg(long)]
        reason: String,
        /// After the start, where the profile offers a choice: `rollback`, `roll-forward` or
        /// `icm` (`rulebook`: the profile's own formula).
        #[arg(long, default_value = "rulebook")]
        method: String,
        /// After the start: whose fault the end of play is, `operator-fault` or
        /// `force-majeure` (recorded; required under hrvatska-lutrija-2017, Art. 15 and 21).
        #[arg(long)]
        cause: Option<String>,
    },
    /// Suspend a tournament in play: the clock pauses until `floor tournament resume`.
    Suspend {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Why (shown to players).
        #[arg(long)]
        reason: String,
    },
    /// Resume a suspended tournament where it stopped.
    Resume {
        /// Tournament id.
        tournament: uuid::Uuid,
    },
    /// A cancelled tournament's statements: every player's, or one player's.
    Statement {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// One player's only.
        player: Option<String>,
    },
    /// The books: paid in, fees, prize pool, overlay, prizes paid, and whether they balance.
    Books {
        /// Tournament id.
        tournament: uuid::Uuid,
        /// Print the books as JSON (amounts in minor units, with `currency`) instead of lines
        /// with amounts in the currency's units.
        #[arg(long)]
        json: bool,
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

    const HEX: &str = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";

    #[test]
    fn floor_seed_key_is_taken_only_as_a_test_setting() {
        let key = test_seed_key(Some(&format!("test:{HEX}"))).expect("a marked key").expect("set");
        assert_eq!((key[0], key[1], key[15], key[31]), (0x00, 0x11, 0xff, 0xff));
        assert_eq!(test_seed_key(None), Ok(None), "unset: the platform's own key");
        assert_eq!(test_seed_key(Some("  ")), Ok(None), "empty: the platform's own key");
        assert!(test_seed_key(Some(HEX)).is_err(), "a key without the test mark is refused, not used");
        assert!(test_seed_key(Some("test:abc")).is_err(), "too short");
        assert!(test_seed_key(Some(&format!("test:{}", HEX.replace('0', "g")))).is_err(), "not hex");
    }

    #[test]
    fn sim_seed_key_takes_the_same_string_as_floor_seed_key() {
        let plain = parse_sim_seed_key(HEX).expect("plain hex");
        assert_eq!(parse_sim_seed_key(&format!("test:{HEX}")), Ok(plain));
        assert_eq!(test_seed_key(Some(&format!("test:{HEX}"))), Ok(Some(plain.0)));
        assert!(parse_sim_seed_key("xyz").is_err());
    }

    #[test]
    fn a_watchable_pace_is_seconds_from_a_tenth_to_ten_minutes() {
        assert_eq!(parse_hand_every("3"), Ok(std::time::Duration::from_secs(3)));
        assert_eq!(parse_hand_every("2.5s"), Ok(std::time::Duration::from_millis(2_500)));
        for wrong in ["0", "0.05", "601", "soon", "-3", "NaN"] {
            assert!(parse_hand_every(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn the_demo_and_the_console_options_parse() {
        let cli = Cli::try_parse_from([
            "floor",
            "sim",
            "--entrants",
            "200",
            "--hand-every",
            "3",
            "--structure-file",
            "examples/structures/demo.toml",
            "--http",
            "127.0.0.1:8080",
        ])
        .expect("make demo's command line");
        let Command::Sim { hand_every, structure_file, http, .. } = cli.command else { panic!("sim") };
        assert_eq!((hand_every, http.map(|h| h.port())), (Some(std::time::Duration::from_secs(3)), Some(8080)));
        assert!(structure_file.is_some());
        assert!(Cli::try_parse_from(["floor", "sim", "--structure", "turbo"]).is_err(), "a structure needs --hand-every");
        let file = Cli::try_parse_from(["floor", "sim", "--definition", "examples/sunday-major.toml"]).expect("--definition");
        assert!(matches!(file.command, Command::Sim { definition: Some(_), entrants: None, .. }));
        assert!(Cli::try_parse_from(["floor", "sim", "--definition", "f.toml", "--format", "rebuy"]).is_err(), "the file's format");
        let run = Cli::try_parse_from(["floor", "run", "--console-password-file", "/run/secrets/console", "--console-session-hours", "8"])
            .expect("floor run with a console");
        let Command::Run { console, .. } = run.command else { panic!("run") };
        assert_eq!((console.console_session_hours, console.console_password_file.is_some()), (8, true));
        assert!(Cli::try_parse_from(["floor", "lobby", "--console-session-hours", "0"]).is_err(), "a session of at least an hour");
    }
}

/// `floor exclude --for`: the periods of 002 §2.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExclusionArg {
    /// Twelve hours.
    #[value(name = "12h")]
    TwelveHours,
    /// A week.
    Week,
    /// A month.
    Month,
    /// Three months.
    #[value(name = "3-months")]
    ThreeMonths,
    /// Six months.
    #[value(name = "6-months")]
    SixMonths,
    /// A year.
    Year,
}

impl From<ExclusionArg> for floor_events::player::ExclusionPeriod {
    fn from(arg: ExclusionArg) -> Self {
        use floor_events::player::ExclusionPeriod as P;
        match arg {
            ExclusionArg::TwelveHours => P::TwelveHours,
            ExclusionArg::Week => P::OneWeek,
            ExclusionArg::Month => P::OneMonth,
            ExclusionArg::ThreeMonths => P::ThreeMonths,
            ExclusionArg::SixMonths => P::SixMonths,
            ExclusionArg::Year => P::OneYear,
        }
    }
}
