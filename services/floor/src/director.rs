//! Director commands: requests to a running platform over NATS.
//!
//! They find the platform the way `floor run` was started: `NATS_URL` when set, otherwise the
//! URL the embedded server recorded in `<data>/nats.url`.
//!
//! A command whose service does not answer (killed with the command in flight, restarting, or
//! `unavailable`) is sent again with the same command id until it is answered ([`send`],
//! [`Patience`]): the service stores it once. The simulator's players and tables use the same.

use crate::exit::Exit;
use bytes::Bytes;
use floor_events::registration::{verbs, CreateTournament, Register, Unregister};
use floor_events::tournament::TournamentDefinition;
use floor_events::{subjects, CommandId, ErrorBody, PlayerId, Reply, TournamentId};
use floor_lobby::http::NotShown;
use floor_runtime::bootstrap;
use futures::TryStreamExt;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A director command failed: what to print and how to exit.
#[derive(Debug)]
pub struct Failure {
    /// One line for stderr.
    pub message: String,
    /// The exit code.
    pub exit: Exit,
}

impl Failure {
    fn new(exit: Exit, message: impl Into<String>) -> Self {
        Self { message: message.into(), exit }
    }
}

impl From<ErrorBody> for Failure {
    fn from(e: ErrorBody) -> Self {
        Failure::new(Exit::Rejected, format!("{}: {}", e.code, e.message))
    }
}

/// The lobby's reader: its checkpoint key and its record in `floor-readers`.
const LOBBY_READER: &str = "lobby";

/// How long a director's command waits for the lobby to show its effect.
pub const SHOWN_WITHIN: Duration = Duration::from_secs(5);

/// A connection to a running platform.
pub struct Director {
    client: async_nats::Client,
    patience: Patience,
    /// Hears when a command waits for its service (the CLI prints it).
    tell: Arc<dyn Fn(&Waiting) + Send + Sync>,
}

impl Director {
    /// Connects to the platform for `data_dir`.
    ///
    /// # Errors
    /// `Unavailable` with a line saying what to start.
    pub async fn connect(data_dir: &Path) -> Result<Self, Failure> {
        let (url, credentials) =
            bootstrap::join(data_dir, floor_runtime::roles::Role::Director).map_err(|e| Failure::new(Exit::Unavailable, e.to_string()))?;
        Self::join(&url, &credentials).await
    }

    /// Connects to the platform at `url` with `credentials`, waiting for services as
    /// [`Patience::DIRECTOR`] says and telling stderr when one keeps it waiting.
    ///
    /// # Errors
    /// `Unavailable` with a line saying what to start.
    pub async fn join(url: &str, credentials: &floor_runtime::credentials::Credentials) -> Result<Self, Failure> {
        let client = bootstrap::connect_with(url, credentials).await.map_err(|e| {
            let hint = match e.kind() {
                bootstrap::BootstrapErrorKind::Unauthorized => "",
                _ => "; is `floor run` still running?",
            };
            Failure::new(Exit::Unavailable, format!("{e}{hint}"))
        })?;
        Ok(Self { client, patience: Patience::DIRECTOR, tell: Arc::new(|waiting| eprintln!("floor: {waiting}")) })
    }

    /// Waits for services as `patience` says, telling `tell` when one keeps it waiting.
    pub fn with_patience(self, patience: Patience, tell: impl Fn(&Waiting) + Send + Sync + 'static) -> Self {
        Self { patience, tell: Arc::new(tell), ..self }
    }

    /// Sends one command and returns its `ok` payload; a service that does not answer is asked
    /// again with the same command id ([`send`]).
    ///
    /// # Errors
    /// The platform's rejection (`Rejected`), or unavailability.
    ///
    /// A command on a tournament answers once the lobby shows its effect ([`Director::shown`]),
    /// so the next `floor tournament list` or `show` reads it.
    pub async fn request<T: Serialize, R: DeserializeOwned>(&self, service: &str, verb: &str, body: &T) -> Result<R, Failure> {
        let payload = serde_json::to_vec(body).expect("request serializes");
        let reply = send(&self.client, service, verb, payload.into(), &self.patience, |w| (self.tell)(w)).await?.into_result()?;
        let tournament =
            serde_json::to_value(body).ok().and_then(|v| serde_json::from_value::<TournamentId>(v.get("tournament_id")?.clone()).ok());
        if let Some(t) = tournament {
            self.shown(t).await;
        }
        serde_json::from_value(reply).map_err(|e| {
            Failure::new(Exit::Unavailable, format!("unreadable reply from {}: {e}", subjects::command_subject(service, verb)))
        })
    }

    /// Waits, at most [`SHOWN_WITHIN`], until the lobby has taken every commit of `t` stored so
    /// far on the subjects it reads (its checkpoint in `floor-checkpoints` at or past the last
    /// of them: it stores the documents first), so that the next read shows what a command
    /// did (issue 39: `floor register …; floor tournament list` showed 0 entries). Best effort:
    /// on a platform that never ran a lobby it returns at once; a lobby that keeps it waiting
    /// gets one line on stderr, and the command's answer stands.
    pub async fn shown(&self, t: TournamentId) {
        let js = async_nats::jetstream::new(self.client.clone());
        let (Ok(checkpoints), Ok(stream)) =
            (js.get_key_value(subjects::CHECKPOINT_BUCKET).await, js.get_stream(subjects::EVENTS_STREAM).await)
        else {
            return;
        };
        let Some(reads) = floor_runtime::readers::of(&js, LOBBY_READER).await else { return };
        let last = floor_runtime::readers::last_commit_of(&stream, &reads, t.0).await;
        if last == 0 {
            return;
        }
        let taken = floor_runtime::readers::taken(&checkpoints, LOBBY_READER, last);
        if !matches!(tokio::time::timeout(SHOWN_WITHIN, taken).await, Ok(Some(_))) {
            eprintln!("floor: done; the lobby has not shown it yet (is the lobby running?)");
        }
    }

    /// Creates a tournament from a definition.
    ///
    /// # Errors
    /// The platform's rejection, or unavailability.
    pub async fn create_tournament(&self, definition: TournamentDefinition) -> Result<TournamentId, Failure> {
        let command_id = CommandId::new();
        let request = CreateTournament { command_id, tournament_id: Some(TournamentId(command_id.0)), definition };
        let reply: floor_events::registration::TournamentCreatedReply =
            self.request(subjects::service::REGISTRATION, verbs::CREATE_TOURNAMENT.name(), &request).await?;
        Ok(reply.tournament_id)
    }

    /// Registers a player.
    ///
    /// # Errors
    /// The platform's rejection, or unavailability.
    pub async fn register(&self, tournament_id: TournamentId, player: PlayerId) -> Result<floor_events::registration::Registered, Failure> {
        let request = Register { command_id: CommandId::new(), tournament_id, player };
        self.request(subjects::service::REGISTRATION, verbs::REGISTER.name(), &request).await
    }

    /// Withdraws a player's latest live entry.
    ///
    /// # Errors
    /// The platform's rejection, or unavailability.
    pub async fn unregister(&self, tournament_id: TournamentId, player: PlayerId) -> Result<serde_json::Value, Failure> {
        let request = Unregister { command_id: CommandId::new(), tournament_id, player, entry: None };
        self.request(subjects::service::REGISTRATION, verbs::UNREGISTER.name(), &request).await
    }

    /// One tournament's lobby document; a tournament created a moment ago is waited for (the
    /// lobby stores in batches).
    ///
    /// # Errors
    /// `Rejected` (`unknown_tournament`) for a tournament not in the log; `Unavailable`.
    pub async fn tournament(&self, id: uuid::Uuid) -> Result<serde_json::Value, Failure> {
        let unavailable = |e: String| Failure::new(Exit::Unavailable, e);
        let js = async_nats::jetstream::new(self.client.clone());
        let bucket = js.get_key_value(subjects::LOBBY_BUCKET).await.map_err(|e| unavailable(e.to_string()))?;
        let events = js.get_stream(subjects::EVENTS_STREAM).await.map_err(|e| unavailable(e.to_string()))?;
        match floor_lobby::http::document(&bucket, &events, &id.to_string(), floor_lobby::http::FIRST_DOCUMENT).await {
            Ok(doc) => serde_json::from_slice(&doc).map_err(|e| unavailable(e.to_string())),
            Err(NotShown::Unknown) => Err(Failure::new(Exit::Rejected, format!("unknown_tournament: no tournament {id}"))),
            Err(NotShown::NotYet) => {
                Err(unavailable(format!("unavailable: tournament {id} is created; the lobby has not shown it yet, try again")))
            }
        }
    }

    /// Every lobby document.
    ///
    /// # Errors
    /// Unavailability.
    pub async fn lobby(&self) -> Result<Vec<serde_json::Value>, Failure> {
        let unavailable = |e: String| Failure::new(Exit::Unavailable, e);
        let js = async_nats::jetstream::new(self.client.clone());
        let bucket = js.get_key_value(subjects::LOBBY_BUCKET).await.map_err(|e| unavailable(e.to_string()))?;
        let keys: Vec<String> =
            bucket.keys().await.map_err(|e| unavailable(e.to_string()))?.try_collect().await.map_err(|e| unavailable(e.to_string()))?;
        let mut docs = Vec::with_capacity(keys.len());
        for key in keys {
            if let Some(value) = bucket.get(&key).await.map_err(|e| unavailable(e.to_string()))? {
                docs.push(serde_json::from_slice(&value).map_err(|e| unavailable(e.to_string()))?);
            }
        }
        Ok(docs)
    }
}

/// How a client Floor ships waits for a service that does not answer: the sim's players and
/// tables, and the director's commands.
///
/// A service killed with a command in flight never answers it, and while no instance runs, the
/// server answers `no responders` at once. Either way the client sends the same request again,
/// with the same command id, after a pause that doubles up to `longest_pause`, until
/// `deadline`: the service stores a command id once and answers a repeat with the original
/// commit, so a command sent twice counts once. An `unavailable` or `conflict` answer (the store
/// or the aggregate was busy; nothing or the same thing is stored) is retried the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// How long one attempt waits for its reply before sending the request again: what a
    /// command in flight when its service died costs. A reply that comes later goes to an
    /// inbox nobody reads, and the repeat is answered instead (by then from the stored commit).
    pub attempt: Duration,
    /// How long the command may take in all, retries included: no attempt starts after it
    /// (the last one starts at it, and may wait `attempt` beyond it).
    pub deadline: Duration,
    /// The pause after the first unanswered attempt.
    pub first_pause: Duration,
    /// The longest pause between two attempts.
    pub longest_pause: Duration,
    /// After waiting this long the caller is told (once), so a person at a terminal knows why
    /// nothing happens.
    pub tell_after: Duration,
}

impl Patience {
    /// The director's commands: a person waits, and is told after a second.
    pub const DIRECTOR: Patience = Patience {
        attempt: Duration::from_secs(2),
        deadline: Duration::from_secs(30),
        first_pause: Duration::from_millis(50),
        longest_pause: Duration::from_secs(1),
        tell_after: Duration::from_secs(1),
    };

    /// The simulated players and tables: long enough for any service to restart, even in the
    /// middle of a large field.
    pub const SIMULATOR: Patience = Patience { deadline: Duration::from_secs(60), ..Patience::DIRECTOR };
}

/// Why an attempt got no answer that settles the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unanswered {
    /// No reply within the attempt's time: the service may have died with the request.
    NoReply,
    /// Nothing takes the request: no instance of the service is running.
    NoResponders,
    /// The service answered `unavailable` or `conflict`: nothing (or the same thing) is stored.
    Busy(ErrorBody),
    /// The request could not be sent (the connection is re-establishing itself, say).
    NotSent(String),
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoReply => f.write_str("no reply"),
            Self::NoResponders => f.write_str("no instance running"),
            Self::Busy(e) => write!(f, "{}: {}", e.code, e.message),
            Self::NotSent(e) => write!(f, "not sent: {e}"),
        }
    }
}

/// A command still waiting for its service, as the caller hears of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// The service asked (`rebuys`).
    pub service: String,
    /// The verb (`rebuy`).
    pub verb: String,
    /// Attempts so far.
    pub attempts: u32,
    /// Since the first attempt.
    pub waited: Duration,
    /// How the last attempt went; `None` while the first is still waiting for its reply.
    pub last: Option<Unanswered>,
    /// How long the caller goes on trying.
    pub deadline: Duration,
}

impl std::fmt::Display for Waiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (service, verb, deadline) = (&self.service, &self.verb, self.deadline.as_secs());
        match &self.last {
            None => write!(f, "{service} service not answering {verb} yet, retrying for up to {deadline} s…"),
            Some(last) => write!(f, "{service} service not answering {verb} ({last}), retrying for up to {deadline} s…"),
        }
    }
}

/// Sends one command to `service` and returns its reply, repeating the request as [`Patience`]
/// says while the service cannot answer. `waiting` hears once, when the wait passes
/// `patience.tell_after` (during an attempt, too).
///
/// The reply may be an error: a rejection is the service's answer and is not repeated.
///
/// # Errors
/// `Unavailable` when the deadline passes without an answer, or a reply cannot be read.
pub async fn send(
    client: &async_nats::Client,
    service: &str,
    verb: &str,
    payload: Bytes,
    patience: &Patience,
    mut waiting: impl FnMut(&Waiting),
) -> Result<Reply<serde_json::Value>, Failure> {
    let subject = subjects::command_subject(service, verb);
    let started = Instant::now();
    let tell_at = tokio::time::Instant::from_std(started + patience.tell_after);
    let (mut attempts, mut pause, mut last) = (0u32, patience.first_pause, None::<Unanswered>);
    let mut tell = |attempts: u32, last: &Option<Unanswered>| {
        let (service, verb, deadline) = (service.to_owned(), verb.to_owned(), patience.deadline);
        waiting(&Waiting { service, verb, attempts, waited: started.elapsed(), last: last.clone(), deadline });
    };
    let mut told = false;
    loop {
        attempts += 1;
        let attempt = tokio::time::timeout(patience.attempt, client.request(subject.clone(), payload.clone()));
        tokio::pin!(attempt);
        // The person waiting hears of it after a moment, even while an attempt still waits.
        let outcome = loop {
            if told {
                break attempt.await;
            }
            tokio::select! {
                outcome = &mut attempt => break outcome,
                _ = tokio::time::sleep_until(tell_at) => {
                    told = true;
                    tell(attempts, &last);
                }
            }
        };
        let unanswered = match outcome {
            Err(_elapsed) => Unanswered::NoReply,
            Ok(Err(e)) => match e.kind() {
                async_nats::RequestErrorKind::NoResponders => Unanswered::NoResponders,
                async_nats::RequestErrorKind::TimedOut => Unanswered::NoReply,
                async_nats::RequestErrorKind::Other => Unanswered::NotSent(e.to_string()),
                // Sending it again would not change these.
                async_nats::RequestErrorKind::InvalidSubject | async_nats::RequestErrorKind::MaxPayloadExceeded => {
                    return Err(Failure::new(Exit::Unavailable, format!("{subject}: {e}")))
                }
            },
            Ok(Ok(message)) => {
                let reply: Reply<serde_json::Value> = serde_json::from_slice(&message.payload)
                    .map_err(|e| Failure::new(Exit::Unavailable, format!("unreadable reply from {subject}: {e}")))?;
                match reply {
                    Reply::Error(e) if floor_runtime::client::is_retryable_code(&e.code) => Unanswered::Busy(e),
                    reply => return Ok(reply),
                }
            }
        };
        let waited = started.elapsed();
        if waited >= patience.deadline {
            let message = match unanswered {
                Unanswered::NoResponders => {
                    format!("no {service} service is running (nothing answered {subject} in {} s)", waited.as_secs())
                }
                last => format!("{service} did not answer {verb} in {} s ({attempts} attempts; last: {last})", waited.as_secs()),
            };
            return Err(Failure::new(Exit::Unavailable, message));
        }
        last = Some(unanswered);
        if !told && waited >= patience.tell_after {
            told = true;
            tell(attempts, &last);
        }
        // The last attempt starts at the deadline.
        tokio::time::sleep(pause.min(patience.deadline - waited)).await;
        pause = (pause * 2).min(patience.longest_pause);
    }
}

/// The tournament files of `dir` (its `*.toml`, not its folders), sorted: what `floor
/// tournament create --file` and `floor sim --definition` read (the examples' tests use it).
///
/// # Errors
/// `dir` or one of its entries cannot be read.
pub fn tournament_files(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() && path.extension().is_some_and(|x| x == "toml") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Reads a tournament definition from TOML. TOML datetimes (quoted or not) become RFC 3339.
///
/// # Errors
/// `Usage` naming the file and the problem.
pub fn read_definition(path: &Path) -> Result<TournamentDefinition, Failure> {
    read_definition_at(path, chrono::Utc::now())
}

/// [`read_definition`] as of `now`: a file may give its start relative to when it is read, so
/// an example never expires (`start = { in_minutes = 120 }`, and then `late_registration_until
/// = { minutes_after_start = 60 }`, `registration_opens = { minutes_before_start = 30 }`); the
/// definition sent carries absolute times, as the contract has them. The start is rounded up to
/// the minute.
///
/// # Errors
/// `Usage` naming the file and the problem.
pub fn read_definition_at(path: &Path, now: chrono::DateTime<chrono::Utc>) -> Result<TournamentDefinition, Failure> {
    let usage = |m: String| Failure::new(Exit::Usage, format!("{}: {m}", path.display()));
    let mut value = read_toml::<serde_json::Value>(path)?;
    floor_rules::definition_file::resolve_relative_times(&mut value, now).map_err(usage)?;
    serde_json::from_value(value).map_err(|e| usage(e.to_string()))
}

/// Reads any request body from TOML (a definition, a schedule template, a structure).
///
/// # Errors
/// `Usage` naming the file and the problem.
pub fn read_toml<T: DeserializeOwned>(path: &Path) -> Result<T, Failure> {
    let usage = |m: String| Failure::new(Exit::Usage, format!("{}: {m}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| usage(e.to_string()))?;
    let value: toml::Value = toml::from_str(&text).map_err(|e| usage(e.to_string()))?;
    serde_json::from_value(floor_rules::definition_file::toml_to_json(value)).map_err(|e| usage(e.to_string()))
}

/// The target a satellite's file leaves for `floor tournament create --target` to give
/// (examples/satellite.toml: a target's id is known only once it is created).
pub const TARGET_PLACEHOLDER: uuid::Uuid = uuid::Uuid::nil();

/// A definition with its satellite's target (or its flight's Day 2) as `--target` gives it
/// (issue 36): the flag replaces the file's `[satellite] target` (`[flight] day2`); a file whose target is still
/// [`TARGET_PLACEHOLDER`] needs the flag, and the flag needs a `[satellite]` section.
///
/// # Errors
/// `Usage` naming the file and what to give.
pub fn with_target(
    mut definition: TournamentDefinition,
    target: Option<TournamentId>,
    path: &Path,
) -> Result<TournamentDefinition, Failure> {
    let usage = |m: String| Failure::new(Exit::Usage, format!("{}: {m}", path.display()));
    // A flight's Day 1 (issue 36, examples/flights-day1.toml) names its Day 2 the same way.
    if let Some(terms) = definition.flight.as_mut() {
        match target {
            Some(day2) => terms.day2 = day2,
            None if terms.day2.0 == TARGET_PLACEHOLDER => {
                return Err(usage(format!(
                    "[flight] day2 is the placeholder {TARGET_PLACEHOLDER}: give the Day 2's id with --target <id> (the id \
                     `floor tournament create` printed for it)"
                )))
            }
            None => {}
        }
        return Ok(definition);
    }
    match (definition.satellite.as_mut(), target) {
        (Some(terms), Some(target)) => terms.target = target,
        (None, Some(_)) => return Err(usage("--target is a satellite's target, and this file has no [satellite] section".into())),
        (Some(terms), None) if terms.target.0 == TARGET_PLACEHOLDER => {
            return Err(usage(format!(
                "[satellite] target is the placeholder {TARGET_PLACEHOLDER}: give the target's id with --target <id> (the id \
                 `floor tournament create` printed for it, or `floor tournament list` shows)"
            )))
        }
        (_, None) => {}
    }
    Ok(definition)
}

/// One line per ticket for `floor ticket list` and `show`: the ticket, its state, its value,
/// its target, and what became of it.
pub fn ticket_line(ticket: &floor_events::satellites::TicketView) -> String {
    use floor_events::satellites::TicketState;
    let state = match ticket.state {
        TicketState::Issued => "issued",
        TicketState::Spending => "spending",
        TicketState::Spent => "spent",
        TicketState::PassedDown => "passed down",
        TicketState::Expired => "expired",
        TicketState::Converted => "converted",
    };
    let mut line = format!("{}  {:<8}  {}  {}  for {}", ticket.ticket, state, ticket.player, ticket.value, ticket.target);
    if let Some((tournament, entry)) = ticket.spent_on {
        line.push_str(&format!("  spent on {tournament} entry {}", entry.0));
    }
    if let Some(from) = &ticket.passed_from {
        line.push_str(&format!("  (the seat of {from}, passed down)"));
    }
    match (&ticket.passed_to, &ticket.seat_refused) {
        (Some(to), _) => line.push_str(&format!("  (void: the winner was already registered; the seat passed down to {to})")),
        (None, Some(reason)) => line.push_str(&format!("  (the seat was refused: {reason}; spend it with floor ticket spend)")),
        (None, None) => {}
    }
    line
}

/// `floor ticket show <satellite id>`: the satellite's terms, then one line per ticket.
pub fn satellite_lines(view: &floor_events::satellites::SatelliteView) -> Vec<String> {
    use floor_events::satellites::SatellitePrize;
    let prize = match view.terms.prize {
        SatellitePrize::Seat => "a seat, registered in the target at once",
        SatellitePrize::Ticket => "a ticket to spend",
    };
    let mut lines = vec![
        format!("satellite {}", view.tournament_id),
        format!("target    {}", view.terms.target),
        format!("seat      {} ({prize})", view.terms.seat_value),
        format!("tickets   {}", view.tickets.len()),
    ];
    lines.extend(view.tickets.iter().map(ticket_line));
    lines
}

/// `floor shootout bracket` (issue 37): the shootout, then one line per round: its entries and,
/// once complete, who advanced (a round still in play says so).
pub fn bracket_lines(bracket: &floor_events::shootouts::Bracket) -> Vec<String> {
    let entries = |list: &[floor_events::EntryNo]| list.iter().map(|e| e.0.to_string()).collect::<Vec<_>>().join(" ");
    let mut lines = vec![format!("shootout {}", bracket.tournament_id)];
    if bracket.rounds.is_empty() {
        lines.push("no round yet: round 1 starts with the field when the shootout starts".into());
    }
    for round in &bracket.rounds {
        lines.push(match &round.advancing {
            Some(advancing) if advancing.len() == 1 => {
                format!("round {}  {} entries  won by entry {}", round.round, round.entries.len(), advancing[0].0)
            }
            Some(advancing) => {
                format!("round {}  {} entries  {} advanced: {}", round.round, round.entries.len(), advancing.len(), entries(advancing))
            }
            None => format!("round {}  {} entries  in play: {}", round.round, round.entries.len(), entries(&round.entries)),
        });
    }
    lines
}

/// `floor lottery frequencies` (issue 37): the version and games, then one line per multiplier:
/// published odds, the games expected to draw it, the games that did.
pub fn frequency_lines(frequencies: &floor_events::lottery::Frequencies) -> Vec<String> {
    let per_million = f64::from(floor_events::lottery::PER_MILLION);
    let games = frequencies.games;
    let mut lines = vec![
        format!("table {}  {games} game{} drawn", frequencies.version, if games == 1 { "" } else { "s" }),
        format!("{:>10}  {:>12}  {:>12}  {:>10}  {:>10}", "multiplier", "published", "expected", "drawn", "drawn %"),
    ];
    for row in &frequencies.rows {
        let published = f64::from(row.per_million) / per_million;
        let drawn = if games == 0 { 0.0 } else { row.drawn as f64 / games as f64 };
        lines.push(format!(
            "{:>10}  {:>11.4}%  {:>12.1}  {:>10}  {:>9.4}%",
            format!("x{}", row.multiplier),
            published * 100.0,
            published * games as f64,
            row.drawn,
            drawn * 100.0
        ));
    }
    lines
}

/// One line per tournament for `floor tournament list`.
pub fn list_line(doc: &serde_json::Value) -> String {
    let s = |k: &str| doc.get(k).and_then(|v| v.as_str()).unwrap_or("-").to_owned();
    let n = |k: &str| doc.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
    let total = doc.pointer("/prize_pool/total/amount").and_then(|v| v.as_u64()).unwrap_or(0);
    let currency = doc.pointer("/prize_pool/total/currency").and_then(|v| v.as_str()).unwrap_or("");
    format!(
        "{}  {:<28} {:<12} {:>6} entries {:>6} players  pool {}.{:02} {}",
        s("tournament_id"),
        s("name"),
        s("state"),
        n("entrants"),
        n("unique_players"),
        total / 100,
        total % 100,
        currency
    )
}

/// One line per template for `floor schedule list`.
pub fn template_line(summary: &serde_json::Value) -> String {
    let s = |p: &str| summary.pointer(p).and_then(|v| v.as_str()).unwrap_or("-").to_owned();
    let next: Vec<&str> = summary.get("upcoming").and_then(|v| v.as_array()).into_iter().flatten().filter_map(|v| v.as_str()).collect();
    format!(
        "{}  {:<28} {:<16} {:<16} next {}",
        s("/template_id"),
        s("/template/tournament/name"),
        s("/template/cron"),
        s("/template/time_zone"),
        next.join(", ")
    )
}

/// Every statement of a cancelled tournament (or one player's), asked page by page with `ask`
/// (a reply is one message: [`floor_events::abort::STATEMENTS_PER_PAGE`] at most), as one reply.
///
/// # Errors
/// The first page `ask` fails to get.
pub async fn every_statement<E, F, Fut>(
    tournament_id: floor_events::TournamentId,
    player: Option<floor_events::PlayerId>,
    mut ask: F,
) -> Result<floor_events::abort::Statements, E>
where
    F: FnMut(floor_events::abort::StatementRequest) -> Fut,
    Fut: std::future::Future<Output = Result<floor_events::abort::Statements, E>>,
{
    let mut after = None;
    let mut all: Option<floor_events::abort::Statements> = None;
    loop {
        let page = ask(floor_events::abort::StatementRequest { tournament_id, player: player.clone(), after, limit: None }).await?;
        after = page.next.clone();
        match all.as_mut() {
            Some(all) => all.statements.extend(page.statements),
            None => all = Some(page),
        }
        if after.is_none() {
            let mut all = all.expect("a page was read");
            all.next = None;
            return Ok(all);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_tournament_file_is_a_valid_definition() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let def = read_definition(&path).unwrap_or_else(|f| panic!("{}", f.message));
                def.validate().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                seen += 1;
            }
        }
        assert!(seen >= 3, "examples/ should hold several tournaments, found {seen}");
    }

    /// Issue 39: the shipped examples started on fixed dates in January 2027 and would have been
    /// refused from then on. Their starts are relative: created on any date, each is valid and
    /// starts in the future, with its late registration after its start.
    #[test]
    fn every_example_can_be_created_on_any_date() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        for now in ["2026-11-28T19:07:13Z", "2027-06-01T00:00:00Z", "2031-03-01T12:00:00Z"] {
            let now: chrono::DateTime<chrono::Utc> = now.parse().unwrap();
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "toml") {
                    let def = read_definition_at(&path, now).unwrap_or_else(|f| panic!("{}", f.message));
                    def.validate_at(now).unwrap_or_else(|e| panic!("{} on {now}: {e}", path.display()));
                    if let Some(start) = def.scheduled_start() {
                        assert!(start > now, "{}: starts after it is created", path.display());
                    }
                }
            }
        }
    }

    /// Issue 36: examples/satellite.toml leaves its target to `--target`; without it the
    /// placeholder is refused by name, and `--target` on a file without a satellite too.
    #[test]
    fn a_satellites_target_comes_from_the_flag_when_the_file_leaves_the_placeholder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let file = dir.join("satellite.toml");
        let definition = read_definition(&file).unwrap_or_else(|f| panic!("{}", f.message));
        assert_eq!(definition.satellite.map(|s| s.target.0), Some(TARGET_PLACEHOLDER));
        let refused = with_target(definition.clone(), None, &file).unwrap_err();
        assert!(refused.message.contains("--target"), "{}", refused.message);
        let target = TournamentId::new();
        let given = with_target(definition, Some(target), &file).expect("a target given");
        assert_eq!(given.satellite.map(|s| s.target), Some(target));
        let major = read_definition(&dir.join("sunday-major.toml")).unwrap_or_else(|f| panic!("{}", f.message));
        assert!(with_target(major.clone(), Some(target), &file).is_err(), "not a satellite");
        assert_eq!(with_target(major.clone(), None, &file).map(|d| d.satellite.is_none()).ok(), Some(true));
        // The example's seat is an entry to the shipped major it names in its comments.
        let seat = read_definition(&file).unwrap_or_else(|f| panic!("{}", f.message)).satellite.expect("satellite").seat_value;
        assert_eq!(seat, major.entry_ledger().paid_in, "seat_value = Sunday Major's buy-in + fee");
    }

    /// `floor ticket list` and `show` (issue 36): the ticket as `spend` takes it, its state, its
    /// value as money, its target, and what became of it.
    #[test]
    fn a_ticket_line_reads_as_money_and_states_what_became_of_it() {
        use floor_events::satellites::{SatelliteView, TicketRef, TicketState, TicketView};
        use floor_events::{Currency, EntryNo, Money, PlayerId};
        let (satellite, target) = (TournamentId::new(), TournamentId::new());
        let ticket = TicketView {
            ticket: TicketRef { satellite, entry: EntryNo(7) },
            player: PlayerId::parse("ana").unwrap(),
            value: Money::new(10_900, Currency::EUR),
            target,
            state: TicketState::Issued,
            spent_on: None,
            seat_refused: Some("field_full: the field is full".into()),
            passed_to: None,
            passed_from: None,
            expires: None,
        };
        let line = ticket_line(&ticket);
        assert!(line.starts_with(&format!("{satellite}/7  issued")), "{line}");
        assert!(line.contains("ana  109.00 EUR  for ") && line.contains("the seat was refused: field_full"), "{line}");
        let spent = TicketView { state: TicketState::Spent, spent_on: Some((target, EntryNo(31))), seat_refused: None, ..ticket.clone() };
        assert!(ticket_line(&spent).ends_with(&format!("spent on {target} entry 31")), "{}", ticket_line(&spent));
        // Issue 36's pass-down: the winner's ticket is void, the next finisher's names it.
        let to = TicketRef { satellite, entry: EntryNo(9) };
        let void = TicketView {
            state: TicketState::PassedDown,
            passed_to: Some(to),
            seat_refused: Some("already_registered".into()),
            ..ticket.clone()
        };
        assert!(
            ticket_line(&void).contains("passed down  ana") && ticket_line(&void).contains(&format!("passed down to {to}")),
            "{}",
            ticket_line(&void)
        );
        let heir = TicketView { ticket: to, passed_from: Some(ticket.ticket), seat_refused: None, ..ticket.clone() };
        assert!(ticket_line(&heir).contains(&format!("the seat of {satellite}/7, passed down")), "{}", ticket_line(&heir));
        let view = SatelliteView {
            tournament_id: satellite,
            terms: floor_events::satellites::SatelliteTerms::new(target, Money::new(10_900, Currency::EUR)),
            tickets: vec![spent],
            ledger: Default::default(),
            level: 1,
            top: Some(target),
        };
        let lines = satellite_lines(&view);
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert!(lines[2].contains("109.00 EUR (a seat, registered in the target at once)"), "{lines:?}");
    }

    /// Issue 37: a bracket reads round by round (the winners, a round in play, the winner);
    /// frequencies read as the published odds beside the games drawn.
    #[test]
    fn a_bracket_and_frequencies_read_as_lines() {
        use floor_events::lottery::{Frequencies, FrequencyRow};
        use floor_events::shootouts::{Bracket, BracketRound};
        use floor_events::EntryNo;
        let t = TournamentId::new();
        let e = |list: &[u32]| list.iter().copied().map(EntryNo).collect::<Vec<_>>();
        let bracket = Bracket {
            tournament_id: t,
            rounds: vec![
                BracketRound { round: 1, entries: e(&[1, 2, 3, 4, 5, 6]), advancing: Some(e(&[2, 6])) },
                BracketRound { round: 2, entries: e(&[2, 6]), advancing: None },
            ],
        };
        assert_eq!(
            bracket_lines(&bracket),
            [format!("shootout {t}"), "round 1  6 entries  2 advanced: 2 6".into(), "round 2  2 entries  in play: 2 6".into()]
        );
        let done = Bracket { tournament_id: t, rounds: vec![BracketRound { round: 2, entries: e(&[2, 6]), advancing: Some(e(&[6])) }] };
        assert_eq!(bracket_lines(&done)[1], "round 2  2 entries  won by entry 6");
        assert!(bracket_lines(&Bracket { tournament_id: t, rounds: vec![] })[1].starts_with("no round yet"));
        let frequencies = Frequencies {
            version: "spin-1".into(),
            games: 1_000,
            rows: vec![
                FrequencyRow { multiplier: 10, per_million: 100_000, drawn: 97 },
                FrequencyRow { multiplier: 2, per_million: 900_000, drawn: 903 },
            ],
        };
        let lines = frequency_lines(&frequencies);
        assert_eq!(lines[0], "table spin-1  1000 games drawn");
        assert!(
            lines[2].contains("x10") && lines[2].contains("10.0000%") && lines[2].contains("100.0") && lines[2].contains(" 97 "),
            "{}",
            lines[2]
        );
        assert!(lines[3].contains("x2") && lines[3].contains("90.3000%"), "{}", lines[3]);
    }

    #[test]
    fn every_example_schedule_and_structure_file_is_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let toml_files = |sub: &str| -> Vec<std::path::PathBuf> {
            let mut files: Vec<_> = std::fs::read_dir(dir.join(sub)).unwrap().map(|e| e.unwrap().path()).collect();
            files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
            files
        };
        for path in toml_files("schedules") {
            let template: floor_events::schedule::ScheduleTemplate = read_toml(&path).unwrap_or_else(|f| panic!("{}", f.message));
            let start = "2027-06-01T17:00:00Z".parse().unwrap();
            floor_scheduler::domain::occurrence_definition(&template, start).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        for path in toml_files("structures") {
            let structure: floor_events::clock::Structure = read_toml(&path).unwrap_or_else(|f| panic!("{}", f.message));
            floor_rules::structure::validate(&structure).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}
