//! `floor sim`: one whole tournament, registration to winner, through the public protocol.
//!
//! It creates a sit & go for N players (a scheduled tournament above 360, started once the
//! field is in), registers them, and plays every table as a table server would
//! ([`floor_seating::simulated`]): instructions in on `floor.table.<t>.<table>.in`, reports
//! out on `…out` in stream `FLOOR_TABLES`, each with `Nats-Msg-Id` = its report id. Hands are
//! seeded random all-ins, so stacks bust, sometimes several in one hand, sometimes in split pots.
//!
//! Play goes in rounds: every open table applies what it was told and deals one hand; then the
//! simulator waits until Floor has taken every report and stored every instruction (the
//! seating runners have acknowledged everything the log holds; see [`lockstep`]) before the
//! next round. That lockstep makes a run repeat itself for a seed (on a fresh platform, where
//! the draw's key comes from the seed too) and keeps the simulator from running ahead of Floor.
//! The tournament has no blind structure: blinds do not change simulated outcomes, and level
//! changes would arrive at wall-clock moments and break the repetition.
//!
//! With rebuys (`--format rebuy`), a player whose stack reaches zero keeps the seat; once Floor
//! has offered the rebuy, the simulated player takes it (seven times in ten) or declines, and
//! the tables hold that round so nobody misses a hand (TDA R27). After [`REBUY_ROUNDS`] rounds
//! the simulator, as the director, ends the rebuy period; every player still seated decides on
//! the add-on (eight in ten take it) and the break ends.
//!
//! With bounties (`--format ko|pko|mystery`, [`bounty_terms`]), the tournament is a freezeout
//! whose buy-ins carry a bounty part; the bounties service pays each elimination as the hand's
//! pots divided the eliminated chips, and the run ends once the payouts log says every place is
//! paid *and* the bounties log has the winner's bounty: the books then show the bounty pool paid
//! out to the cent, and the summary line counts the bounties ([`BountySummary`]).
//!
//! Every run plays through the bubble hand for hand: the definition has a `hand_for_hand`
//! section (the profile's rules, the clock left alone: the tournament has no blind structure),
//! so near the money Floor holds every table (`hold_for_deal`) and releases one hand at a time
//! (`deal_hand`), and the simulated tables obey. The summary line says when it started and
//! ended (players left) and how many hands it took ([`HandForHandSummary`]).
//!
//! With `--hand-every` ([`Watchable`], `make demo`) the tables deal as with `--free`, a hand
//! every few seconds each, and with `--structure` the tournament has a blind structure, so the
//! lobby shows levels changing, tables breaking and players busting as they happen.
//!
//! With `--free` ([`free`]) there are no rounds: every table deals at its own random pace, so
//! hands are in progress when the hold arrives and tables finish a released hand at different
//! moments, as real table servers do. Such a run does not repeat for a seed, and the summary
//! says so (`"reproducible": false`).
//!
//! With a definition from a file (`floor sim --definition`, [`SimConfig::definition`]) it plays
//! that tournament instead (`sim/definition.rs`), its times moved to now: its structure runs on
//! the clock, hand-for-hand only if the file asks for it, and with late registration part of the
//! field enters between rounds until registration closes (`sim/late.rs`).
//!
//! With `--format satellite` ([`satellite`], issue 36) it plays a target and its satellite: the
//! satellite to its seats, its winners registered in the target by the satellites service, then
//! the target to a winner; the summary line is the target's, with the satellite's under
//! `satellite`.
//!
//! With `--format shootout|don|lottery` ([`formats`], issue 37) it plays a shootout (rounds of
//! tables played to their winners, each round drawn afresh), a double or nothing (stopped when
//! half the field is left) or a lottery sit & go (its prize pool drawn when the seats fill), as
//! a definition of its own; the line then has the rounds, the cut or the draw.
//!
//! Its players and tables are clients Floor ships: a command its service does not answer (the
//! service killed with it in flight, or restarting) is sent again with the same command id
//! ([`crate::director::send`]), so a run outlives a killed service.

use crate::director::{self, Patience};
use floor_events::bounties::{BountyEvent, BountyTerms, EnvelopeTier, MysteryStage};
use floor_events::bubble::BubbleEvent;
use floor_events::payouts::{Books, PayoutEvent, PlaceAward};
use floor_events::registration::{verbs, CreateTournament, Register, StartTournament};
use floor_events::table::TableReport;
use floor_events::tournament::TournamentDefinition;
use floor_events::{codes, subjects, CommandId, ErrorBody, PlayerId, RuleProfile, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_seating::simulated::SimTable;
use rand::SeedableRng;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

mod books;
mod definition;
pub mod flights;
pub mod formats;
pub mod free;
mod interruption;
mod late;
pub mod lockstep;
mod players;
pub mod satellite;
mod summary;

use books::{finish, paid_books, Paid};
pub use definition::{fits, late_registration_end_points, moved_to_now};
pub use flights::FlightsSummary;
use interruption::{cancel, cancellation, suspend, Suspension};
use late::LateEntries;
use lockstep::{Lockstep, STALL};
use players::SimPlayers;
pub use satellite::SatelliteSummary;
pub use summary::{BountySummary, CancelledSummary, HandForHandSummary, LateSummary, Summary};

/// What to simulate.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Players.
    pub entrants: u32,
    /// Seed of the hands (and, on a fresh platform, of the draw).
    pub seed: u64,
    /// Seats per table.
    pub table_size: u8,
    /// Rule profile.
    pub profile: RuleProfile,
    /// The tournament's id.
    pub tournament_id: TournamentId,
    /// Rebuys (two per entry) and an add-on.
    pub rebuys: bool,
    /// Bounty terms ([`bounty_terms`]), if any.
    pub bounty: Option<BountyTerms>,
    /// For a field too large for a sit & go: from creating the tournament to its scheduled
    /// start, by which the simulator must have registered every player (see
    /// [`START_AFTER_ON_OWN_PLATFORM`] and [`start_after_on_a_shared_platform`]).
    pub start_after: Duration,
    /// Tables deal at their own pace ([`free`]) instead of in lockstep rounds: not reproducible
    /// by seed.
    pub free: bool,
    /// Hand-for-hand starts this many players before the bubble (the definition's trigger);
    /// `None`: the profile's (one or two).
    pub hand_for_hand_from: Option<u32>,
    /// Cancel the tournament once at most this many players are left (between two lockstep
    /// rounds, so a seed cancels at the same moment every time): the abort service's `cancel`
    /// with the profile's own formula; the summary then has the cancellation instead of a
    /// winner. `None`: played to the end.
    pub cancel_at: Option<u32>,
    /// Suspend the tournament once at most this many players are left (between two lockstep
    /// rounds): the abort service's `suspend`. Nobody deals until every table has been paused
    /// and then resumed (by a director's `resume`, or a test), however long that takes, so the
    /// rounds, and the tournament, are those of an uninterrupted run. `None`: never.
    pub suspend_at: Option<u32>,
    /// A pace people can watch ([`Watchable`]): hands seconds apart, levels on a blind
    /// structure. `None`: as fast as Floor takes them, no structure.
    pub watchable: Option<Watchable>,
    /// A tournament definition to play instead of the simulator's own (`floor sim --definition
    /// FILE`, the TOML `floor tournament create --file` reads): its format, structure, rules and
    /// entry model as written (`rebuys`, `bounty`, `table_size`, `profile` and
    /// `hand_for_hand_from` are then the definition's), its times moved to now
    /// ([`moved_to_now`]: the start `start_after` ahead). With late registration, part of the
    /// field enters during play (`sim/late.rs`). `None`: the simulator's own.
    pub definition: Option<TournamentDefinition>,
    /// `--format satellite` ([`satellite`], issue 36): a satellite of `entrants` players is
    /// played to its seats, then its target (`tournament_id`) with the seat winners and
    /// `entrants` more to a winner.
    pub satellite: bool,
    /// `--format steps` ([`satellite::run_steps`], issue 36): with `satellite`, a step below the
    /// satellite (step 1 into step 2 into the target), each played to its seats in turn.
    pub steps: bool,
    /// `--format flights` ([`flights`], issue 36): three Day 1s of `entrants` players each
    /// played to their share, their survivors carried into the Day 2 (`tournament_id`), which
    /// is played to a winner, under this carry rule (`floor sim --format flights`: best stack
    /// forward). `None`: no flight.
    pub flights: Option<floor_events::flights::Carry>,
}

impl SimConfig {
    /// A freezeout of `entrants` at tables of nine under `tda-2024`, on the simulator's own
    /// platform ([`START_AFTER_ON_OWN_PLATFORM`]), in lockstep, as fast as Floor takes it: what
    /// `floor sim` plays unless told otherwise. Change a field with `SimConfig { …, ..new }`.
    pub fn new(entrants: u32, seed: u64, tournament_id: TournamentId) -> Self {
        Self {
            entrants,
            seed,
            table_size: 9,
            profile: RuleProfile::Tda2024,
            tournament_id,
            rebuys: false,
            bounty: None,
            start_after: START_AFTER_ON_OWN_PLATFORM,
            free: false,
            hand_for_hand_from: None,
            cancel_at: None,
            suspend_at: None,
            watchable: None,
            definition: None,
            satellite: false,
            steps: false,
            flights: None,
        }
    }
}

/// `floor sim --hand-every … --structure …` (`make demo`): a tournament a person can watch in
/// the lobby, levels changing, tables breaking, players busting.
#[derive(Debug, Clone, PartialEq)]
pub struct Watchable {
    /// Each table deals a hand about this often (at random from half of it to one and a half),
    /// each at its own pace ([`free`]).
    pub hand_every: Duration,
    /// The blind structure: the clock starts with the tournament and levels change on its
    /// timer (the platform must run the clock service).
    pub structure: Option<floor_events::clock::BlindStructure>,
}

/// The start of a scheduled field on the simulator's own platform: a moment after creation. No
/// scheduler runs there, so the simulator itself starts the tournament once every player is
/// registered, however long that took (those registered after the time are recorded as late
/// registrations, drawn with the others).
pub const START_AFTER_ON_OWN_PLATFORM: Duration = Duration::from_secs(1);

/// The start of a scheduled field on a platform joined through `NATS_URL`.
///
/// A scheduler there starts the tournament at its time and, below its minimum (every entrant),
/// cancels it; registration refuses a director's start before the time (`too_early`), so the
/// time must be set, when creating, after registering can end: 5 s and 5 ms per entrant. That is
/// about six times the 0.85 ms a registration took against `NATS_URL` with 2,000 entrants
/// (issue 18) and 2.6 times the slowest measured (250,000 in 7 min 50 s, in one process with the
/// platform). The simulator then waits for the time and starts it, unless the scheduler did.
pub fn start_after_on_a_shared_platform(entrants: u32) -> Duration {
    Duration::from_secs(5) + Duration::from_millis(5) * entrants
}

/// The bounty terms `floor sim --format ko|pko|mystery` plays: a knockout of 25 % of the net
/// buy-in; a progressive knockout of 50 %, half of each bounty in cash; a mystery bounty of 50 %
/// whose stage opens with 9 players left (or at the start, for a smaller field), eight envelopes:
/// one of 30 % of the pool and seven of 10 %.
pub fn bounty_terms(kind: &str) -> Option<BountyTerms> {
    match kind {
        "ko" => Some(BountyTerms::Knockout { share_bps: 2_500 }),
        "pko" => Some(BountyTerms::Progressive { share_bps: 5_000, cash_share_bps: 5_000 }),
        "mystery" => Some(BountyTerms::Mystery {
            share_bps: 5_000,
            envelopes: vec![EnvelopeTier { share_bps: 3_000, count: 1 }, EnvelopeTier { share_bps: 1_000, count: 7 }],
            stage: MysteryStage::PlayersLeft { players: 9 },
        }),
        _ => None,
    }
}

/// Progress, for the terminal.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// Players registered so far (one at a time, so entry numbers follow player numbers).
    Registering {
        /// Registered so far.
        registered: u32,
        /// Of how many.
        entrants: u32,
    },
    /// After a round of play at every table.
    Playing {
        /// Players with chips.
        players_left: usize,
        /// Tables open.
        tables: usize,
        /// Hands so far.
        hands: u64,
        /// Hands per second so far.
        hands_per_s: f64,
    },
}

/// Reports published before their acks are awaited; well below the JetStream context's limit of
/// 5,000 unacknowledged publishes, which the in-process platform shares.
const ACK_WINDOW: usize = 1_000;

/// Sit & go fields stop at 360 (003, 004 §4.36.2); larger fields are scheduled
/// [`SimConfig::start_after`] ahead and started once every player is registered.
const LARGEST_SIT_AND_GO: u32 = 360;

/// Rounds of play in the rebuy period of a `--format rebuy` run.
pub const REBUY_ROUNDS: u64 = 12;

/// Sends a command as a table server or a player would: while its service does not answer
/// (killed, restarting, `unavailable`), again with the same command id ([`director::send`]).
/// The outer error is a command never answered; the inner one, the service's rejection.
async fn ask<T: Serialize>(
    backbone: &Backbone,
    service: &str,
    verb: &str,
    body: &T,
) -> Result<Result<serde_json::Value, ErrorBody>, String> {
    let payload = serde_json::to_vec(body).expect("request serializes");
    let tell = |waiting: &director::Waiting| tracing::warn!("{waiting}");
    match director::send(&backbone.client, service, verb, payload.into(), &Patience::SIMULATOR, tell).await {
        Ok(reply) => Ok(reply.into_result()),
        Err(failure) => Err(failure.message),
    }
}

/// [`ask`], with a rejection as an error too.
async fn command<T: Serialize>(backbone: &Backbone, service: &str, verb: &str, body: &T) -> Result<serde_json::Value, String> {
    ask(backbone, service, verb, body).await?.map_err(|e| format!("{verb}: {}: {}", e.code, e.message))
}

/// A registration command.
async fn request<T: Serialize>(backbone: &Backbone, verb: &str, body: &T) -> Result<serde_json::Value, String> {
    command(backbone, subjects::service::REGISTRATION, verb, body).await
}

/// Under a rulebook that requires a player's tournament limits before any tournament (002 §2.3,
/// svenska-spel-2012), a simulated player sets them before registering: generous ones (the
/// simulator plays tournaments; the limits have tests of their own), once per player and
/// platform (the command id follows from the name).
async fn limits_first(backbone: &Backbone, profile: RuleProfile, player: &PlayerId) -> Result<(), String> {
    use floor_events::player::{EntryLimits, SetPlayerLimits};
    if !floor_registration::limits::calendar_limits(profile) {
        return Ok(());
    }
    let generous = Some(100_000);
    let limits = EntryLimits { per_day: generous, per_week: generous, per_month: generous };
    let set = SetPlayerLimits { command_id: CommandId::derived(&format!("sim-limits:{player}")), player: player.clone(), limits };
    request(backbone, verbs::SET_PLAYER_LIMITS.name(), &set).await.map(drop)
}

/// Runs one tournament to its winner; `progress` hears after every round.
///
/// # Errors
/// A rejected command, an unreachable platform, or a stall.
pub async fn run(backbone: &Backbone, config: &SimConfig, mut progress: impl FnMut(&Progress)) -> Result<Summary, String> {
    if config.entrants < 2 {
        return Err("a tournament needs at least 2 entrants".into());
    }
    if config.satellite && config.steps {
        return satellite::run_steps(backbone, config, progress).await;
    }
    if config.satellite {
        return satellite::run(backbone, config, progress).await;
    }
    if let Some(carry) = config.flights {
        return flights::run(backbone, config, carry, progress).await;
    }
    if (config.free || config.watchable.is_some()) && (config.cancel_at.is_some() || config.suspend_at.is_some()) {
        return Err("--cancel-at and --suspend-at act between lockstep rounds: not with --free or --hand-every".into());
    }
    let mut plan = definition::plan(config, chrono::Utc::now())?;
    if (config.free || config.watchable.is_some()) && plan.definition.shootout.is_some() {
        return Err("a shootout plays in lockstep rounds: between two of its rounds every table is closed until the next is \
                    drawn, which --free and --hand-every would take for the end"
            .into());
    }
    if (config.free || config.watchable.is_some()) && plan.rebuys {
        return Err("--free plays freezeouts (with or without bounties): the simulated players answer rebuy offers between the \
                    lockstep's rounds"
            .into());
    }
    let started = Instant::now();
    let t = config.tournament_id;
    // The rebuys log, followed from before the tournament exists.
    let mut rebuys = match plan.rebuys {
        true => Some(SimPlayers::follow(backbone, t, plan.add_on).await?),
        false => None,
    };
    // A satellite's file that leaves its target to whoever creates it (examples/satellite.toml):
    // the simulator creates one whose entry costs the seat value.
    if let Some(terms) = plan.definition.satellite.as_mut().filter(|s| s.target.0 == director::TARGET_PLACEHOLDER) {
        terms.target = satellite::create_target(backbone, config, t, terms.seat_value).await?;
    }
    // A flight's Day 1 file that leaves its Day 2 to whoever creates it (examples/flights-day1.toml,
    // issue 36): the simulator creates one (the satellite's target, at the Day 1's price).
    let price = plan.definition.entry_ledger().paid_in;
    if let Some(terms) = plan.definition.flight.as_mut().filter(|f| f.day2.0 == director::TARGET_PLACEHOLDER) {
        terms.day2 = satellite::create_target(backbone, config, t, price).await?;
    }
    let scheduled = plan.definition.scheduled_start();
    let create = CreateTournament { command_id: CommandId(t.0), tournament_id: Some(t), definition: plan.definition.clone() };
    request(backbone, verbs::CREATE_TOURNAMENT.name(), &create).await?;
    // One at a time: entry numbers follow player numbers, so a seed repeats its tournament.
    for i in 1..=plan.early {
        let player = PlayerId::parse(&format!("sim-{i}")).expect("valid");
        limits_first(backbone, plan.definition.profile, &player).await?;
        let register = Register { command_id: CommandId::derived(&format!("sim:{t}:{i}")), tournament_id: t, player };
        match ask(backbone, subjects::service::REGISTRATION, verbs::REGISTER.name(), &register).await? {
            Ok(_) => {}
            Err(e) if e.code == codes::TOURNAMENT_CANCELLED && scheduled.is_some() => {
                return Err(format!(
                    "the tournament was cancelled at its start time with {} of {} players registered: registering took longer \
                     than the {} s before the start (--start-after gives it more)",
                    i - 1,
                    config.entrants,
                    config.start_after.as_secs()
                ))
            }
            Err(e) => return Err(format!("{}: {}: {}", verbs::REGISTER.name(), e.code, e.message)),
        }
        progress(&Progress::Registering { registered: i, entrants: plan.early });
    }
    match scheduled {
        Some(_) if plan.start_now => start_now(backbone, t).await?,
        Some(start) => start_at(backbone, t, start).await?,
        None => {}
    }
    let mut late = plan
        .late_entries
        .then(|| LateEntries::new(t, plan.early, config.entrants, plan.skip_to, plan.re_entry, config.seed).under(plan.definition.profile));

    let mut lockstep = Lockstep::new(backbone, t).await?;
    if plan.rebuys {
        lockstep = lockstep.with_rebuys();
    }
    if plan.definition.shootout.is_some() {
        lockstep = lockstep.with_shootout();
    }
    let played = match config.free || config.watchable.is_some() {
        true => free::play(backbone, config, lockstep, started, &mut progress).await?,
        false => rounds(backbone, config, lockstep, rebuys.as_mut(), late.as_mut(), started, &mut progress).await?,
    };
    let late = late.map(|l| l.figures()).unwrap_or_default();
    let Played { tables, hands, moves, broken, rounds, cancelled_with } = played;
    let (winner, books, standings, bounties, cancelled) = match cancelled_with {
        Some((players_left, took)) => {
            // Cancelled: no winner and nothing more to pay; the books as payouts has them, and
            // the cancellation's own statements and books.
            let (books, standings, _) = finish(backbone, t, Paid::read_log(backbone, t).await?, None).await?;
            (String::new(), books, standings, None, Some(cancellation(backbone, t, players_left, took).await?))
        }
        None => {
            let d = &plan.definition;
            let winner = match d.satellite.is_some() || d.cut.is_some() || d.shootout.is_some() || d.flight.is_some() {
                // A satellite stops with an entry left per seat (000 §16.7), double or nothing
                // at its cut, and a shootout's won tables close with their winners still seated
                // (issue 37): registration's winner.
                true => satellite::finished_by(backbone, t).await?,
                false => {
                    let survivors: Vec<String> =
                        tables.values().flat_map(|t| t.seats.values().map(|(_, player, _)| player.to_string())).collect();
                    let [winner] = &survivors[..] else {
                        return Err(format!("the tables ended with {} players seated", survivors.len()));
                    };
                    winner.clone()
                }
            };
            let (books, standings, bounties) = match d.flight.is_some() {
                // A Day 1 (issue 36) pays no place: its books once its pool went to its Day 2.
                true => (flights::books_when(backbone, t, |b| b.transferred_out > 0 || b.prize_pool == 0).await?, vec![], None),
                false => paid_books(backbone, t, plan.bounty).await?,
            };
            (winner, books, standings, bounties, None)
        }
    };
    // A satellite's seats reach its target (`--definition` of a satellite; `--format satellite`
    // plays its own in `sim/satellite.rs`).
    let satellite = match (&plan.definition.satellite, &cancelled) {
        (Some(terms), None) => {
            let entrants = plan.early + late.late_entries;
            Some(satellite::reached_target(backbone, t, terms, entrants, (hands, moves), books.clone(), &standings).await?)
        }
        _ => None,
    };
    let formats = match &cancelled {
        None => formats::read(backbone, t, &plan.definition, &standings).await?,
        Some(_) => formats::FormatSummary::default(),
    };
    let hand_for_hand = bubble_log(backbone, t, &rounds).await?;
    let events = backbone.events.clone().info().await.map_err(|e| e.to_string())?.state.last_sequence;
    Ok(Summary {
        entrants: plan.early + late.late_entries,
        late,
        winner,
        hands,
        moves,
        tables_broken: broken,
        events,
        wall_s: started.elapsed().as_secs_f64(),
        books,
        standings,
        bounties,
        hand_for_hand,
        cancelled,
        satellite,
        flights: None,
        formats,
        pace: if config.watchable.is_some() {
            "watchable"
        } else if config.free {
            "free"
        } else {
            "lockstep"
        },
        reproducible: plan.reproducible,
    })
}

/// Hand-for-hand as the bubble's log tells it.
async fn bubble_log(
    backbone: &Backbone,
    t: TournamentId,
    rounds: &[chrono::DateTime<chrono::Utc>],
) -> Result<Option<HandForHandSummary>, String> {
    let subject = subjects::event_subject(subjects::aggregate::BUBBLE, t.0);
    let log = floor_runtime::JetStreamStore::new(backbone).load::<BubbleEvent>(&subject, 0).await.map_err(|e| e.to_string())?;
    let events: Vec<BubbleEvent> = log.into_iter().flat_map(|c| c.events).collect();
    Ok(HandForHandSummary::read(&events, rounds))
}

/// What the tables did.
pub struct Played {
    /// Every table as it ended.
    pub tables: BTreeMap<u32, SimTable>,
    /// Hands dealt.
    pub hands: u64,
    /// Players moved away from a table.
    pub moves: u64,
    /// Tables closed with nobody left seated.
    pub broken: u64,
    /// When each lockstep round began (empty at the tables' own pace).
    pub rounds: Vec<chrono::DateTime<chrono::Utc>>,
    /// The simulator cancelled the tournament with this many players left (`--cancel-at`), and
    /// how long the cancel command took.
    pub cancelled_with: Option<(u32, Duration)>,
}

/// Plays in lockstep rounds until every table is closed: in each round every open table
/// applies what it was told and deals one hand if it may; then the simulator waits for Floor
/// ([`Lockstep::settled`]). A round in which no table may deal (all held for hand-for-hand,
/// or waiting for a move) waits for Floor's next instruction.
///
/// A round reports every table's `hand_started` first, then every `hand_finished`: when a
/// bust in it starts hand-for-hand, the tables after it in the round are dealing in the log
/// too, and owe the announcement hand. Had each table started and finished in turn, they
/// would have been between hands at the announcement, their deals in the same round would have
/// crossed the hold, and whether Floor counted such a deal as the announcement hand or the
/// first released one would have depended on timing (a seed would no longer repeat).
async fn rounds(
    backbone: &Backbone,
    config: &SimConfig,
    mut lockstep: Lockstep,
    mut rebuys: Option<&mut SimPlayers>,
    mut late: Option<&mut LateEntries>,
    started: Instant,
    progress: &mut impl FnMut(&Progress),
) -> Result<Played, String> {
    let t = config.tournament_id;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(config.seed);
    let mut tables: BTreeMap<u32, SimTable> = BTreeMap::new();
    let (mut hands, mut moves, mut broken) = (0u64, 0u64, 0u64);
    let mut waiting_since: Option<Instant> = None;
    let (mut rounds, mut buying) = (0u64, rebuys.is_some());
    let mut cancelled_with = None;
    let mut suspension = Suspension::default();
    let mut began = Vec::new();
    // Players taken off a table for a move and not yet seated at their new one.
    let mut moving: std::collections::BTreeSet<floor_events::EntryNo> = Default::default();
    loop {
        lockstep.settled(backbone).await?;
        lockstep.drain(backbone, &mut tables).await?;
        let mut reports = Vec::new();
        // The simulator's own suspension: until every table has been told to pause and then to
        // resume, what Floor sends waits in the inboxes; then the round it stopped before is
        // dealt as it would have been, and the inboxes are applied after it, in order.
        let resuming = suspension.resumed_in_inboxes(&tables);
        suspension.over |= resuming;
        let suspended = suspension.holds();
        for (&number, table) in tables.iter_mut() {
            if table.closed || suspended || resuming {
                continue;
            }
            let stepped = table.apply(t, number, usize::MAX, &mut reports);
            moves += stepped.moved;
            moving.extend(stepped.moved_out);
            if stepped.closed && table.seats.is_empty() {
                broken += 1;
            }
        }
        // Players at zero are answered before anyone deals again, and the rebuy period ends
        // between rounds: either way the tables hold this round (nobody misses a hand).
        let mut held = false;
        if let Some(players) = rebuys.as_deref_mut() {
            held = players.answer_offers(backbone, &tables, &mut rng).await?;
            if !held && buying && rounds >= REBUY_ROUNDS {
                players.break_for_add_ons(backbone, &tables, &mut rng).await?;
                buying = false;
                held = true;
            }
        }
        // Late entries come between rounds (the round after, Floor seats them).
        if let Some(late) = late.as_deref_mut().filter(|_| cancelled_with.is_none()) {
            late.between_rounds(backbone, rounds, !buying).await?;
        }
        // Between two rounds, no hand in progress: every table's chips are those of its next
        // hand's start. Once cancelled, nobody deals; the tables close as Floor tells them.
        // The players left are those seated and those on their way to a new seat (a table
        // broken in the last round: counted, they are still in).
        moving.retain(|e| !tables.values().any(|t| t.seats.values().any(|(seated, ..)| seated == e)));
        let seated: usize = tables.values().filter(|t| !t.closed).map(|t| t.seats.len()).sum::<usize>() + moving.len();
        if let (Some(at), None) = (config.cancel_at, cancelled_with) {
            if seated > 0 && seated <= at as usize {
                let took = cancel(backbone, t).await?;
                cancelled_with = Some((seated as u32, took));
            }
        }
        if let Some(at) = config.suspend_at {
            if !suspension.asked && seated > 0 && seated <= at as usize {
                suspend(backbone, t).await?;
                suspension.asked = true;
            }
        }
        let suspended = suspension.holds();
        let may_deal = cancelled_with.is_none() && !suspended && tables.values().any(SimTable::may_deal);
        if !held && reports.is_empty() && !may_deal {
            if !tables.is_empty() && tables.values().all(|t| t.closed) {
                break;
            }
            // Nothing to do until Floor speaks (the draw, a move, a hand-for-hand release):
            // wait for its next instruction; a suspension lasts as long as it lasts.
            let waited = waiting_since.get_or_insert_with(Instant::now).elapsed();
            if waited > STALL && !suspension.paused_in_inboxes(&tables) {
                return Err(format!(
                    "no instruction from Floor in {} s; {}; {}",
                    STALL.as_secs(),
                    waiting(&tables),
                    rejections(backbone, t).await
                ));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
            continue;
        }
        waiting_since = None;
        if !held && may_deal {
            rounds += 1;
            began.push(chrono::Utc::now());
            let dealing: Vec<u32> = tables.iter_mut().filter_map(|(&n, table)| table.start_hand(t, n, &mut reports).then_some(n)).collect();
            for number in dealing {
                if let Some(table) = tables.get_mut(&number) {
                    table.finish_hand(t, number, &mut rng, &mut reports);
                    hands += 1;
                }
            }
            if let Some(late) = late.as_deref_mut() {
                late.observe(&reports, &tables);
            }
        }
        publish(backbone, &reports, |sequence| lockstep.reported(sequence)).await?;
        let open = tables.values().filter(|t| !t.closed).count();
        progress(&Progress::Playing {
            players_left: seated,
            tables: open,
            hands,
            hands_per_s: hands as f64 / started.elapsed().as_secs_f64(),
        });
    }
    Ok(Played { tables, hands, moves, broken, rounds: began, cancelled_with })
}

/// Publishes reports in order, acknowledged a window at a time; `acked` hears each one's stream
/// sequence.
///
/// The JetStream context allows 5,000 unacknowledged publishes and then makes the next one
/// wait, so publishing a whole round of a large field before awaiting any ack stalled every
/// publisher sharing the context (the in-process platform's appends included).
async fn publish(backbone: &Backbone, reports: &[TableReport], mut acked: impl FnMut(u64)) -> Result<(), String> {
    for window in reports.chunks(ACK_WINDOW) {
        // A cluster electing a new leader of the tables' stream (a node died) acknowledges
        // nothing for a few seconds (issue 40): the window is sent again, each report with its
        // message id, as a table server does (seating applies a report once however often it
        // comes), until the stream answers or STALL has passed.
        let sequences = lockstep::patiently(|| publish_window(backbone, window)).await?;
        sequences.into_iter().for_each(&mut acked);
    }
    Ok(())
}

/// Publishes `window` and waits for every acknowledgement: their stream sequences.
async fn publish_window(backbone: &Backbone, window: &[TableReport]) -> Result<Vec<u64>, String> {
    let mut acks = Vec::with_capacity(window.len());
    for report in window {
        let subject = floor_events::table::reports_subject(report.tournament_id, report.table);
        let message = async_nats::jetstream::message::PublishMessage::build()
            .payload(serde_json::to_vec(report).expect("report serializes").into())
            .message_id(floor_events::table::report_message_id(report.tournament_id, report.table, &report.report_id));
        acks.push(backbone.jetstream.send_publish(subject, message).await.map_err(|e| e.to_string())?);
    }
    let mut sequences = Vec::with_capacity(acks.len());
    for ack in acks {
        sequences.push(ack.await.map_err(|e| e.to_string())?.sequence);
    }
    Ok(sequences)
}

/// Starts a scheduled tournament now, before its time (a file's definition: the minimum is in).
async fn start_now(backbone: &Backbone, t: TournamentId) -> Result<(), String> {
    let begin = StartTournament { command_id: CommandId::derived(&format!("sim-start:{t}")), tournament_id: t, now: true };
    match ask(backbone, subjects::service::REGISTRATION, verbs::START_TOURNAMENT.name(), &begin).await? {
        // Started by a scheduler first (its time came while the players registered).
        Ok(_) => Ok(()),
        Err(e) if e.code == codes::TOURNAMENT_STARTED => Ok(()),
        Err(e) => Err(format!("{}: {}: {}", verbs::START_TOURNAMENT.name(), e.code, e.message)),
    }
}

/// Starts a scheduled tournament at its time, the field in: registration refuses a start before
/// it (`too_early`), and a scheduler on the platform may start it first.
async fn start_at(backbone: &Backbone, t: TournamentId, start: chrono::DateTime<chrono::Utc>) -> Result<(), String> {
    let begin = StartTournament { command_id: CommandId::derived(&format!("sim-start:{t}")), tournament_id: t, now: false };
    // Another machine's clock may be a little behind ours: a start refused as too early is
    // asked again, for a while (a refusal stores nothing, so the command id may be reused).
    tokio::time::sleep((start - chrono::Utc::now()).to_std().unwrap_or_default()).await;
    let asked = Instant::now();
    loop {
        match ask(backbone, subjects::service::REGISTRATION, verbs::START_TOURNAMENT.name(), &begin).await? {
            Err(e) if e.code == codes::TOO_EARLY && asked.elapsed() < STALL => tokio::time::sleep(Duration::from_millis(100)).await,
            Ok(_) => return Ok(()),
            // Started by the scheduler first.
            Err(e) if e.code == codes::TOURNAMENT_STARTED => return Ok(()),
            Err(e) => return Err(format!("{}: {}: {}", verbs::START_TOURNAMENT.name(), e.code, e.message)),
        }
    }
}

/// The open tables, for a stall's message.
fn waiting(tables: &BTreeMap<u32, SimTable>) -> String {
    let open: Vec<String> = tables
        .iter()
        .filter(|(_, t)| !t.closed)
        .take(20)
        .map(|(n, t)| {
            format!(
                "table {n}: {} seated, applied {}, queued {:?}{}",
                t.seats.len(),
                t.applied,
                t.inbox.iter().map(|i| i.sequence).collect::<Vec<_>>(),
                match (t.held, t.released.len()) {
                    (true, credits) => format!(", held for hand-for-hand with {credits} deal_hand left"),
                    (false, _) => String::new(),
                }
            )
        })
        .collect();
    open.join("; ")
}

/// The reports Floor rejected, for a stall's message.
async fn rejections(backbone: &Backbone, t: TournamentId) -> String {
    use floor_events::seating::SeatingEvent;
    let subject = subjects::event_subject(subjects::aggregate::SEATING, t.0);
    let store = floor_runtime::JetStreamStore::new(backbone);
    let Ok(commits) = store.load::<SeatingEvent>(&subject, 0).await else { return "seating log unreadable".into() };
    let rejected: Vec<String> = commits
        .iter()
        .flat_map(|c| c.events.iter())
        .filter_map(|e| match e {
            SeatingEvent::ReportRejected { table, report_id, code, reason } => Some(format!("table {table} {report_id}: {code}: {reason}")),
            _ => None,
        })
        .take(5)
        .collect();
    format!("rejected reports: {}", if rejected.is_empty() { "none".into() } else { rejected.join("; ") })
}
