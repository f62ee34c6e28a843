//! `floor sim --format satellite` (issue 36): a target and its satellite, end to end over the
//! public protocol.
//!
//! 1. The target is created first (the sim's own freezeout at EUR 10 + 1, scheduled an hour
//!    ahead so it is open while the satellite plays, room for the whole field and the seats).
//! 2. The satellite is created for it: EUR 2 + 0.20 an entry, the seat value the target's entry
//!    price (EUR 11), so `--entrants N` buy ⌊2N ÷ 11⌋ seats (60 buy 10, EUR 10 left over for
//!    11th). Its players (`sat-1` …) register and it plays in lockstep until registration stops
//!    it with as many entries left as seats (000 §16.7) and seating closes its tables.
//! 3. Its books are read once payouts has paid every place, then the simulator waits for the
//!    satellites policy (KV `floor-checkpoints` key `satellites-policy`, see
//!    [`lockstep::policy_settled`]) to have acted on the satellite's logs: a ticket issued for
//!    each seat and each seat registered in the target, paid by its ticket. The winners the
//!    registration log names (`tournament_finished.shared_by`) must be exactly the players the
//!    target's log registered with a ticket of this satellite.
//! 4. The target's ordinary players (`sim-1` …) register, the simulator starts it and plays it
//!    to a winner; its books are read as any run's.
//!
//! The summary line is the target's, as for every format, with the satellite's figures under
//! `satellite` (its seats, tickets, the winners registered, and its own books): both books
//! must balance on their own, the seat values being a prize paid out by one and an entry paid in
//! to the other.

use super::*;
use floor_events::money::Money;
use floor_events::payouts::Books;
use floor_events::registration::TournamentEvent;
use floor_events::satellites::{SatelliteEvent, SatelliteTerms};
use floor_events::tournament::{Fee, Start};
use floor_events::Currency;
use std::collections::BTreeSet;

/// The satellites policy's checkpoint key (`floor_satellites::service::POLICY_NAME`).
pub const SATELLITES_POLICY: &str = "satellites-policy";

/// A satellite's entry: EUR 2 to the pool and EUR 0.20 fee.
const SATELLITE_BUY_IN: u64 = 200;
const SATELLITE_FEE: u64 = 20;

/// The satellite part of the summary line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SatelliteSummary {
    /// The satellite.
    pub tournament_id: TournamentId,
    /// Its target (the summary line's own tournament).
    pub target: TournamentId,
    /// Players who entered the satellite.
    pub entrants: u32,
    /// What one seat is worth (minor units): the target's entry price.
    pub seat_value: u64,
    /// Seats its pool bought: ⌊pool ÷ seat value⌋.
    pub seats: u32,
    /// The pool beyond whole seats, paid in cash to the place after the last seat.
    pub leftover: u64,
    /// Players left when play stopped (registration's `shared_by`): one per whole seat.
    pub stopped_with: u32,
    /// Seats paid in cash instead: players out in the same hand tied across the last seats
    /// (TDA RP-8 A: the hand-for-hand announcement hand's busts share their places) share those
    /// seats' prizes with the leftover, split in cash, which is no whole seat.
    pub seats_split_in_cash: u32,
    /// Tickets the satellites service issued.
    pub tickets_issued: u32,
    /// Tickets spent on a seat in the target.
    pub tickets_spent: u32,
    /// Seats the target refused (kept as tickets).
    pub seats_refused: u32,
    /// Entries of the target paid by this satellite's tickets.
    pub entered_by_ticket: u32,
    /// The seat winners are exactly the target's entries paid by this satellite's tickets.
    pub winners_registered: bool,
    /// The seat winners, by account name.
    pub winners: Vec<String>,
    /// Hands dealt in the satellite.
    pub hands: u64,
    /// Players moved in it.
    pub moves: u64,
    /// Its books once paid (the target's are the line's own `books`).
    pub books: Books,
    /// `--format steps` (000 §16.13): its level in the tree (1: it feeds the top).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    /// `--format steps`: the step below it, whose winners entered it by their tickets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub below: Option<Box<SatelliteSummary>>,
}

impl SatelliteSummary {
    /// This satellite and every step below it, top first (what `--audit` reads).
    pub fn tournaments(&self) -> Vec<TournamentId> {
        let mut all = vec![self.tournament_id];
        all.extend(self.below.iter().flat_map(|b| b.tournaments()));
        all
    }
}

/// The satellite of the target `t`: an id that follows from the target's, so a seed repeats
/// both tournaments.
pub fn satellite_of(t: TournamentId) -> TournamentId {
    TournamentId(uuid::Uuid::from_u128(t.0.as_u128() ^ 0x5a7e_111e_0000_0000_0000_0000_0000_0036))
}

/// The target: the sim's own freezeout for the whole field plus the seats, scheduled an hour
/// ahead (the simulator starts it once both fields are in), no late registration, its entry
/// costing `seat_value` (ten elevenths to the pool, the rest the fee: EUR 10 + 1 for EUR 11).
fn target_definition(config: &SimConfig, seat_value: Money, now: chrono::DateTime<chrono::Utc>) -> TournamentDefinition {
    let fee = Money::new(seat_value.amount / 11, seat_value.currency);
    TournamentDefinition {
        name: format!("Simulation {} target ({} players)", config.seed, config.entrants),
        start: Start::At(now + chrono::Duration::hours(1)),
        buy_in: Money::new(seat_value.amount - fee.amount, seat_value.currency),
        fee: Fee::OnTop(fee),
        capacity: config.entrants.saturating_mul(2),
        min_players: 2,
        late_registration_until: None,
        ..definition::own(config, now)
    }
}

/// Creates the target of the satellite `satellite` (a file's satellite that leaves its target
/// to whoever creates it, `examples/satellite.toml`): one whose entry costs `seat_value`, its id
/// following from the satellite's.
///
/// # Errors
/// A rejected command.
pub(super) async fn create_target(
    backbone: &Backbone,
    config: &SimConfig,
    satellite: TournamentId,
    seat_value: Money,
) -> Result<TournamentId, String> {
    let target = satellite_of(satellite);
    let definition = target_definition(config, seat_value, chrono::Utc::now());
    let create = CreateTournament { command_id: CommandId(target.0), tournament_id: Some(target), definition };
    request(backbone, verbs::CREATE_TOURNAMENT.name(), &create).await?;
    Ok(target)
}

/// A satellite's winner: registration's, the first of the entries left at the stop (000 §16.7).
///
/// # Errors
/// A log that cannot be read, or no `tournament_finished` in it.
pub(super) async fn finished_by(backbone: &Backbone, satellite: TournamentId) -> Result<String, String> {
    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, satellite.0);
    let log = floor_runtime::JetStreamStore::new(backbone).load::<TournamentEvent>(&subject, 0).await.map_err(|e| e.to_string())?;
    log.into_iter()
        .flat_map(|c| c.events)
        .find_map(|e| if let TournamentEvent::TournamentFinished(f) = e { Some(f.player.to_string()) } else { None })
        .ok_or_else(|| "the satellite's tables closed and registration has not finished it".into())
}

/// Once the satellite is paid: waits for the satellites policy to have acted on its logs, reads
/// its seats and tickets, and checks that its winners are exactly the target's entries paid by
/// its tickets.
///
/// # Errors
/// A stall, or winners that did not reach the target.
pub(super) async fn reached_target(
    backbone: &Backbone,
    satellite: TournamentId,
    terms: &SatelliteTerms,
    entrants: u32,
    played: (u64, u64),
    books: Books,
    standings: &[PlaceAward],
) -> Result<SatelliteSummary, String> {
    let seat_value = terms.seat_value;
    let seats = floor_rules::satellite::seats(books.prize_pool, seat_value.amount);
    let leftover = floor_rules::satellite::leftover(books.prize_pool, seat_value.amount);
    let subjects: Vec<String> = [subjects::aggregate::TOURNAMENT, subjects::aggregate::PAYOUTS, subjects::aggregate::SATELLITE]
        .iter()
        .map(|a| subjects::event_subject(a, satellite.0))
        .collect();
    lockstep::policy_settled(backbone, SATELLITES_POLICY, &subjects).await?;
    // A whole seat is an award of exactly the seat value (the satellites service's rule); the
    // seats tied across the cut are split in cash among those tied.
    let whole = standings.iter().filter(|a| a.amount == seat_value.amount).count() as u32;
    let seen = seats_taken(backbone, satellite, terms.target, whole).await?;
    let winners: BTreeSet<String> = seen.shared_by.iter().cloned().collect();
    let by_ticket: BTreeSet<String> = seen.entered.iter().cloned().collect();
    let summary = SatelliteSummary {
        tournament_id: satellite,
        target: terms.target,
        entrants,
        seat_value: seat_value.amount,
        seats,
        leftover,
        stopped_with: seen.shared_by.len() as u32,
        seats_split_in_cash: seats.saturating_sub(whole),
        tickets_issued: seen.issued,
        tickets_spent: seen.spent,
        seats_refused: seen.refused,
        entered_by_ticket: seen.entered.len() as u32,
        winners_registered: !winners.is_empty() && winners == by_ticket && winners.len() as u32 == whole,
        winners: winners.iter().cloned().collect(),
        hands: played.0,
        moves: played.1,
        books,
        level: None,
        below: None,
    };
    if !summary.winners_registered {
        let seated: Vec<String> = standings
            .iter()
            .filter(|a| a.amount >= seat_value.amount)
            .map(|a| format!("{} {}{}", a.place, a.player, if a.shared > 1 { format!(" (shared by {})", a.shared) } else { String::new() }))
            .collect();
        // The survivors registration names that did not reach the target, as payouts placed them.
        let missing: Vec<String> = winners
            .difference(&by_ticket)
            .map(|p| match standings.iter().find(|a| a.player.as_str() == p) {
                Some(a) => format!("{p}: place {} of {} shared, paid {}", a.place, a.shared, a.amount),
                None => format!("{p}: no place awarded"),
            })
            .collect();
        return Err(format!(
            "the satellite's winners did not all reach the target: {seats} seats, {} left at the stop (shared_by), {} entered the \
             target by ticket, tickets issued {} spent {} refused {}, payouts awarded the seat value to {} places; not in the \
             target: {missing:?}; shared_by {:?}; seats awarded {seated:?}",
            seen.shared_by.len(),
            seen.entered.len(),
            seen.issued,
            seen.spent,
            seen.refused,
            seated.len(),
            seen.shared_by,
        ));
    }
    Ok(summary)
}

/// The satellite: a sit & go (a field above 360 scheduled an hour ahead, started once in) at
/// EUR 2 + 0.20 whose seats are entries to `target`, worth `seat_value`.
fn satellite_definition(
    config: &SimConfig,
    target: TournamentId,
    seat_value: Money,
    now: chrono::DateTime<chrono::Utc>,
) -> TournamentDefinition {
    let own = definition::own(config, now);
    // A field above a sit & go's is scheduled an hour ahead, as the target, and started once in,
    // with no late registration: the stop waits for the field to close (000 §16.7).
    let start = match own.start {
        Start::SitAndGo => Start::SitAndGo,
        Start::At(_) => Start::At(now + chrono::Duration::hours(1)),
    };
    TournamentDefinition {
        name: format!("Simulation {} satellite ({} players)", config.seed, config.entrants),
        start,
        late_registration_until: None,
        buy_in: Money::new(SATELLITE_BUY_IN, Currency::EUR),
        fee: Fee::OnTop(Money::new(SATELLITE_FEE, Currency::EUR)),
        satellite: Some(SatelliteTerms::new(target, seat_value)),
        ..own
    }
}

/// Registers `count` players named `<prefix>-<i>` in `t`, one at a time (entry numbers follow
/// player numbers).
async fn register_field(
    backbone: &Backbone,
    t: TournamentId,
    profile: RuleProfile,
    prefix: &str,
    count: u32,
    progress: &mut impl FnMut(&Progress),
) -> Result<(), String> {
    for i in 1..=count {
        let player = PlayerId::parse(&format!("{prefix}-{i}")).expect("valid");
        limits_first(backbone, profile, &player).await?;
        let register = Register { command_id: CommandId::derived(&format!("sim:{t}:{prefix}:{i}")), tournament_id: t, player };
        request(backbone, verbs::REGISTER.name(), &register).await?;
        progress(&Progress::Registering { registered: i, entrants: count });
    }
    Ok(())
}

/// Plays both tournaments (see the module's documentation).
///
/// # Errors
/// A rejected command, a stall, or a satellite whose winners did not reach the target.
pub(super) async fn run(backbone: &Backbone, config: &SimConfig, mut progress: impl FnMut(&Progress)) -> Result<Summary, String> {
    if config.free || config.watchable.is_some() || config.definition.is_some() || config.rebuys || config.bounty.is_some() {
        return Err("--format satellite plays the sim's own satellite and target in lockstep: not with --free, --hand-every or \
                    --definition"
            .into());
    }
    if config.cancel_at.is_some() || config.suspend_at.is_some() {
        return Err("--format satellite plays both tournaments to their end: not with --cancel-at or --suspend-at".into());
    }
    let seat_value = Money::new(1_100, Currency::EUR);
    if u64::from(config.entrants) * SATELLITE_BUY_IN < seat_value.amount {
        return Err(format!(
            "--format satellite: {} entries of EUR 2 do not buy one seat of EUR 11; give --entrants 6 or more",
            config.entrants
        ));
    }
    let started = Instant::now();
    let now = chrono::Utc::now();
    let target = config.tournament_id;
    let satellite = satellite_of(target);
    let created = create_target(backbone, config, satellite, seat_value).await?;
    debug_assert_eq!(created, target);

    // The satellite, to its stop.
    let satellite_def = satellite_definition(config, target, seat_value, now);
    let terms = satellite_def.satellite.expect("a satellite");
    let scheduled = satellite_def.scheduled_start();
    let create = CreateTournament { command_id: CommandId(satellite.0), tournament_id: Some(satellite), definition: satellite_def };
    request(backbone, verbs::CREATE_TOURNAMENT.name(), &create).await?;
    register_field(backbone, satellite, config.profile, "sat", config.entrants, &mut progress).await?;
    if scheduled.is_some() {
        start_now(backbone, satellite).await?;
    }
    let satellite_config = SimConfig { tournament_id: satellite, ..config.clone() };
    let lockstep = Lockstep::new(backbone, satellite).await?;
    let played = rounds(backbone, &satellite_config, lockstep, None, None, started, &mut progress).await?;
    let (books, standings, _) = paid_books(backbone, satellite, false).await?;
    // The satellites policy issues a ticket per seat and registers each winner in the target.
    let satellite_summary =
        reached_target(backbone, satellite, &terms, config.entrants, (played.hands, played.moves), books, &standings).await?;
    target_to_winner(backbone, config, satellite_summary, started, &mut progress).await
}

/// The target, with the satellite's winners (registered by their tickets) and its own field
/// (`sim-1` …), to a winner; the summary line.
async fn target_to_winner(
    backbone: &Backbone,
    config: &SimConfig,
    satellite_summary: SatelliteSummary,
    started: Instant,
    mut progress: impl FnMut(&Progress),
) -> Result<Summary, String> {
    let target = config.tournament_id;
    // The target, with the winners and its own field, to a winner.
    register_field(backbone, target, config.profile, "sim", config.entrants, &mut progress).await?;
    start_now(backbone, target).await?;
    let target_config = SimConfig { tournament_id: target, ..config.clone() };
    let lockstep = Lockstep::new(backbone, target).await?;
    let Played { tables, hands, moves, broken, rounds: began, .. } =
        rounds(backbone, &target_config, lockstep, None, None, started, &mut progress).await?;
    let survivors: Vec<String> = tables.values().flat_map(|t| t.seats.values().map(|(_, player, _)| player.to_string())).collect();
    let [winner] = &survivors[..] else { return Err(format!("the target's tables ended with {} players seated", survivors.len())) };
    let (books, standings, _) = paid_books(backbone, target, false).await?;
    let hand_for_hand = bubble_log(backbone, target, &began).await?;
    let events = backbone.events.clone().info().await.map_err(|e| e.to_string())?.state.last_sequence;
    Ok(Summary {
        entrants: config.entrants + satellite_summary.entered_by_ticket,
        late: LateSummary::default(),
        winner: winner.clone(),
        hands,
        moves,
        tables_broken: broken,
        events,
        wall_s: started.elapsed().as_secs_f64(),
        books,
        standings,
        bounties: None,
        hand_for_hand,
        cancelled: None,
        pace: "lockstep",
        reproducible: true,
        satellite: Some(satellite_summary),
        flights: None,
        formats: Default::default(),
    })
}

/// Step 1's id: follows from step 2's (the `--format satellite` satellite of the target).
pub fn step_below(t: TournamentId) -> TournamentId {
    TournamentId(uuid::Uuid::from_u128(t.0.as_u128() ^ 0x57e9_0001_0000_0000_0000_0000_0000_0036))
}

/// Step 1 (`--format steps`): EUR 0.40 + 0.04 an entry, seats worth step 2's entry (EUR 2.20).
const STEP1_BUY_IN: u64 = 40;
const STEP1_FEE: u64 = 4;

/// `floor sim --format steps` (issue 36; 000 §16.13, 002 §2.3 T-8.1–T-8.3): a tree of three
/// levels, each costing more than the one below, each step's prize the entry of the next.
///
/// 1. The target (EUR 10 + 1) is created, then step 2 (the `--format satellite` satellite, EUR
///    2 + 0.20, seats of EUR 11), scheduled an hour ahead with room for its field and step 1's
///    winners, then step 1 (EUR 0.40 + 0.04, seats of EUR 2.20) for step 2.
/// 2. Step 1's field (`step-1` …) plays to its seats; the satellites service seats its winners
///    in step 2 by their tickets (checked as for a satellite).
/// 3. Step 2's own field (`sat-1` …) registers, the simulator starts it, it plays to its seats,
///    its winners are seated in the target.
/// 4. The target plays to a winner as with `--format satellite`. The line's `satellite` is step
///    2 (level 1), with step 1 (level 2) under `below`; each tournament's books balance on their
///    own.
///
/// # Errors
/// A rejected command, a stall, or a step whose winners did not reach the next level.
pub(super) async fn run_steps(backbone: &Backbone, config: &SimConfig, mut progress: impl FnMut(&Progress)) -> Result<Summary, String> {
    if config.free || config.watchable.is_some() || config.definition.is_some() || config.rebuys || config.bounty.is_some() {
        return Err("--format steps plays the sim's own step tree in lockstep: not with --free, --hand-every or --definition".into());
    }
    if config.cancel_at.is_some() || config.suspend_at.is_some() {
        return Err("--format steps plays every level to its end: not with --cancel-at or --suspend-at".into());
    }
    let (top_seat, step_seat) = (Money::new(1_100, Currency::EUR), Money::new(SATELLITE_BUY_IN + SATELLITE_FEE, Currency::EUR));
    if u64::from(config.entrants) * STEP1_BUY_IN < step_seat.amount {
        return Err(format!(
            "--format steps: {} entries of EUR 0.40 do not buy one seat of EUR 2.20; give --entrants 6 or more",
            config.entrants
        ));
    }
    let started = Instant::now();
    let now = chrono::Utc::now();
    let target = config.tournament_id;
    let (step2, step1) = (satellite_of(target), step_below(satellite_of(target)));
    create_target(backbone, config, step2, top_seat).await?;
    // Step 2: scheduled, with room for its own field and step 1's winners.
    let step2_def = TournamentDefinition {
        start: Start::At(now + chrono::Duration::hours(1)),
        capacity: config.entrants.saturating_mul(2),
        min_players: 2,
        ..satellite_definition(config, target, top_seat, now)
    };
    let step2_terms = step2_def.satellite.expect("a satellite");
    let create = CreateTournament { command_id: CommandId(step2.0), tournament_id: Some(step2), definition: step2_def };
    request(backbone, verbs::CREATE_TOURNAMENT.name(), &create).await?;
    // Step 1, for step 2.
    let step1_def = TournamentDefinition {
        name: format!("Simulation {} step 1 ({} players)", config.seed, config.entrants),
        buy_in: Money::new(STEP1_BUY_IN, Currency::EUR),
        fee: Fee::OnTop(Money::new(STEP1_FEE, Currency::EUR)),
        ..satellite_definition(config, step2, step_seat, now)
    };
    let step1_terms = step1_def.satellite.expect("a satellite");
    let scheduled = step1_def.scheduled_start();
    let create = CreateTournament { command_id: CommandId(step1.0), tournament_id: Some(step1), definition: step1_def };
    request(backbone, verbs::CREATE_TOURNAMENT.name(), &create).await?;

    // Step 1, to its seats in step 2.
    register_field(backbone, step1, config.profile, "step", config.entrants, &mut progress).await?;
    if scheduled.is_some() {
        start_now(backbone, step1).await?;
    }
    let lockstep = Lockstep::new(backbone, step1).await?;
    let played =
        rounds(backbone, &SimConfig { tournament_id: step1, ..config.clone() }, lockstep, None, None, started, &mut progress).await?;
    let (books, standings, _) = paid_books(backbone, step1, false).await?;
    let mut below = reached_target(backbone, step1, &step1_terms, config.entrants, (played.hands, played.moves), books, &standings).await?;
    below.level = Some(2);

    // Step 2, with its own field and step 1's winners, to its seats in the target.
    register_field(backbone, step2, config.profile, "sat", config.entrants, &mut progress).await?;
    start_now(backbone, step2).await?;
    let lockstep = Lockstep::new(backbone, step2).await?;
    let played =
        rounds(backbone, &SimConfig { tournament_id: step2, ..config.clone() }, lockstep, None, None, started, &mut progress).await?;
    let (books, standings, _) = paid_books(backbone, step2, false).await?;
    let entrants = config.entrants + below.entered_by_ticket;
    let mut summary = reached_target(backbone, step2, &step2_terms, entrants, (played.hands, played.moves), books, &standings).await?;
    summary.level = Some(1);
    summary.below = Some(Box::new(below));
    target_to_winner(backbone, config, summary, started, &mut progress).await
}

/// What the logs say of the seats: the satellite's survivors, its tickets, and the target's
/// entries paid by them.
#[derive(Debug, Default)]
struct Seats {
    shared_by: Vec<String>,
    issued: u32,
    spent: u32,
    refused: u32,
    /// Players of the target's entries paid by this satellite's tickets.
    entered: Vec<String>,
}

/// Reads the logs until every seat has its ticket and every ticket is spent or refused, or
/// [`STALL`] passes without change (then what it saw: the caller names what is missing).
async fn seats_taken(backbone: &Backbone, satellite: TournamentId, target: TournamentId, seats: u32) -> Result<Seats, String> {
    let store = floor_runtime::JetStreamStore::new(backbone);
    let (mut last, mut moved_at) = (None, Instant::now());
    loop {
        let mut seen = Seats::default();
        let log = |aggregate: &str, t: TournamentId| subjects::event_subject(aggregate, t.0);
        let finished =
            store.load::<TournamentEvent>(&log(subjects::aggregate::TOURNAMENT, satellite), 0).await.map_err(|e| e.to_string())?;
        for event in finished.into_iter().flat_map(|c| c.events) {
            if let TournamentEvent::TournamentFinished(f) = event {
                seen.shared_by = f.shared_by.iter().map(|s| s.player.to_string()).collect();
            }
        }
        let tickets = store.load::<SatelliteEvent>(&log(subjects::aggregate::SATELLITE, satellite), 0).await.map_err(|e| e.to_string())?;
        for event in tickets.into_iter().flat_map(|c| c.events) {
            match event {
                SatelliteEvent::TicketIssued(_) => seen.issued += 1,
                SatelliteEvent::TicketSpent(_) => seen.spent += 1,
                SatelliteEvent::SeatRefused(_) => seen.refused += 1,
                _ => {}
            }
        }
        let entries = store.load::<TournamentEvent>(&log(subjects::aggregate::TOURNAMENT, target), 0).await.map_err(|e| e.to_string())?;
        for event in entries.into_iter().flat_map(|c| c.events) {
            if let TournamentEvent::EntryRegistered(e) = event {
                if e.ticket.is_some_and(|t| t.satellite == satellite) {
                    seen.entered.push(e.player.to_string());
                }
            }
        }
        if seen.issued >= seats && seen.spent + seen.refused >= seen.issued && !seen.shared_by.is_empty() {
            return Ok(seen);
        }
        let state = (seen.shared_by.len(), seen.issued, seen.spent, seen.refused, seen.entered.len());
        if Some(state) != last {
            (last, moved_at) = (Some(state), Instant::now());
        } else if moved_at.elapsed() > STALL {
            // Nothing more comes: the caller says what is missing.
            tracing::warn!(seats, issued = seen.issued, "the satellite's seats stopped short of the target for {} s", STALL.as_secs());
            return Ok(seen);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_satellite_costs_less_than_its_target_and_its_seat_is_the_targets_entry() {
        let config = SimConfig::new(60, 7, TournamentId(uuid::Uuid::from_u128(36)));
        let now = "2027-01-10T17:00:00Z".parse().unwrap();
        let seat_value = Money::new(1_100, Currency::EUR);
        let target = target_definition(&config, seat_value, now);
        assert_eq!(target.entry_ledger().paid_in, seat_value, "EUR 10 + 1");
        let major = target_definition(&config, Money::new(10_900, Currency::EUR), now);
        assert_eq!(major.entry_ledger().paid_in.amount, 10_900, "any seat value: the file's");
        let satellite = satellite_definition(&config, config.tournament_id, seat_value, now);
        satellite.validate_at(now).expect("a valid satellite");
        target.validate_at(now).expect("a valid target");
        assert_eq!(satellite.start, Start::SitAndGo, "60 players: a sit & go");
        assert!(target.capacity >= 60 + 10, "room for the field and the seats");
        let pool = 60 * SATELLITE_BUY_IN;
        assert_eq!(
            (floor_rules::satellite::seats(pool, seat_value.amount), floor_rules::satellite::leftover(pool, seat_value.amount)),
            (10, 1_000)
        );
        assert_ne!(satellite_of(config.tournament_id), config.tournament_id);
        let large = SimConfig::new(400, 7, config.tournament_id);
        let scheduled = satellite_definition(&large, config.tournament_id, seat_value, now);
        scheduled.validate_at(now).expect("a valid scheduled satellite");
        assert_eq!((scheduled.late_registration_until, scheduled.min_players), (None, 400), "closed at its start, all in");
    }

    /// `--format steps`: each level costs more than the one below and its seat is the next
    /// level's entry (000 §16.13, 002 §2.3 T-8.2, T-8.3); 60 step-1 players buy 10 seats.
    #[test]
    fn each_step_costs_more_than_the_one_below_and_its_seat_is_the_next_level_s_entry() {
        let step2_entry = SATELLITE_BUY_IN + SATELLITE_FEE;
        assert!(STEP1_BUY_IN + STEP1_FEE < step2_entry && step2_entry < 1_100);
        assert_eq!(floor_rules::satellite::seats(60 * STEP1_BUY_IN, step2_entry), 10);
        let t = TournamentId(uuid::Uuid::from_u128(36));
        let ids = [t, satellite_of(t), step_below(satellite_of(t))];
        assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2], "three tournaments");
    }
}
