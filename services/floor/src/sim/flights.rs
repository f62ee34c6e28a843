//! `floor sim --format flights` (issue 36; 004 §4.36.11–13): three Day 1s into one Day 2, end
//! to end over the public protocol.
//!
//! 1. The Day 2 is created first: the sim's own freezeout, scheduled two hours ahead (open while
//!    the Day 1s play), room for every Day 1 survivor, no late registration.
//! 2. Three Day 1s (A, B, C) are created for it, each at EUR 10 + 1, stopping at 25 % of its
//!    field, carrying by the rule given (the command line: best stack forward, 004 §4.36.12;
//!    the e2e also plays stack builder, §4.36.13). Each takes `--entrants` players: the first
//!    third of them (`fl-1` …) play all three Day 1s, the rest are the Day 1's own
//!    (`fl-a-1` …). Each Day 1 is started, played in lockstep until registration stops it at its
//!    share and seating closes its tables, then the simulator waits for the flights policy
//!    (KV `floor-checkpoints` key `flights-policy`) to have carried its survivors into the
//!    Day 2 (`register_carried`; the Day 2's registration applies the rule), and for payouts to
//!    have paid its pool over (`pool_transferred`, both books).
//! 3. The Day 2 is started: a fresh seat draw of the carried entries, each with its carried
//!    stack, played in lockstep to a winner, its one prize pool (the three Day 1s' pools) paid.
//!
//! The summary line is the Day 2's, as for every format, with `flights`: each Day 1's field,
//! survivors and books (its pool transferred out, nothing held), the Day 2's entries carried per
//! Day 1, the stacks replaced and forfeited.

use super::*;
use floor_events::flights::{Carry, CarryOutcome, FlightTerms};
use floor_events::money::Money;
use floor_events::registration::TournamentEvent;
use floor_events::seating::SeatingEvent;
use floor_events::tournament::{Fee, Start};
use floor_events::Currency;

/// The flights policy's checkpoint key (`floor_satellites::flights::POLICY_NAME`).
pub const FLIGHTS_POLICY: &str = "flights-policy";

/// The share of each Day 1's field that goes through: 25 %.
pub const SHARE_BPS: u32 = 2_500;

/// One Day 1 in the summary line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Day1Summary {
    /// The Day 1.
    pub tournament_id: TournamentId,
    /// Players who entered it.
    pub entrants: u32,
    /// Entries left at its stop (registration's `shared_by`): ⌈entrants × 25 %⌉.
    pub stopped_at: u32,
    /// Of those, the ones with chips: the survivors (004 §4.36.11: every player *not out* in
    /// Day 1 goes on). A player out in the hand that reached the share, at another table, is
    /// named in `shared_by` (registration stops on the first elimination that reaches it) but
    /// has no chips and is not carried.
    pub survivors: u32,
    /// Its stacks the Day 2 recorded (`entry_carried`), forfeited ones included.
    pub carried: u32,
    /// Hands dealt.
    pub hands: u64,
    /// Its books: its pool transferred out to the Day 2, nothing held.
    pub books: Books,
}

/// The flights part of the summary line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlightsSummary {
    /// The Day 2 (the line's own tournament).
    pub day2: TournamentId,
    /// The carry rule.
    pub carry: Carry,
    /// Each Day 1, in the order played.
    pub day1s: Vec<Day1Summary>,
    /// The Day 2's entries (one per player carried).
    pub day2_entries: u32,
    /// Stacks that replaced a smaller one (best stack forward).
    pub replaced: u32,
    /// Stacks added to a player's (stack builder).
    pub added: u32,
    /// Stacks forfeited (no larger than the one held).
    pub forfeited: u32,
    /// Chips the Day 2 started with: the sum of its entries' carried stacks.
    pub day2_chips: u64,
    /// The Day 2's pool is exactly the Day 1s' pools transferred.
    pub one_prize_pool: bool,
}

/// The Day 1s of the Day 2 `t`: ids that follow from the Day 2's, so a seed repeats them.
pub fn day1s_of(t: TournamentId) -> [TournamentId; 3] {
    [1u128, 2, 3].map(|n| TournamentId(uuid::Uuid::from_u128(t.0.as_u128() ^ (0xf11_9470_0000_0000_0000_0000_0000_0000 + n))))
}

/// The Day 2: the sim's own freezeout two hours ahead, room for every survivor.
fn day2_definition(config: &SimConfig, now: chrono::DateTime<chrono::Utc>) -> TournamentDefinition {
    TournamentDefinition {
        name: format!("Simulation {} Day 2", config.seed),
        start: Start::At(now + chrono::Duration::hours(2)),
        capacity: config.entrants.saturating_mul(3),
        min_players: 2,
        late_registration_until: None,
        ..definition::own(config, now)
    }
}

/// A Day 1 of `day2`: scheduled an hour ahead (started once its field is in), EUR 10 + 1,
/// stopping at [`SHARE_BPS`] of its field, carrying by `carry`.
fn day1_definition(
    config: &SimConfig,
    day2: TournamentId,
    letter: char,
    carry: Carry,
    now: chrono::DateTime<chrono::Utc>,
) -> TournamentDefinition {
    TournamentDefinition {
        name: format!("Simulation {} Day 1{}", config.seed, letter.to_ascii_uppercase()),
        start: Start::At(now + chrono::Duration::hours(1)),
        buy_in: Money::new(1_000, Currency::EUR),
        fee: Fee::OnTop(Money::new(100, Currency::EUR)),
        min_players: 2,
        late_registration_until: None,
        flight: Some(FlightTerms { day2, survivors_share_bps: SHARE_BPS, carry, one_day1_at_a_time: false }),
        ..definition::own(config, now)
    }
}

/// The players of one Day 1: the first third play every Day 1, the rest only this one.
fn players(letter: char, entrants: u32) -> Vec<PlayerId> {
    let shared = entrants / 3;
    (1..=entrants)
        .map(|i| match i <= shared {
            true => format!("fl-{i}"),
            false => format!("fl-{letter}-{}", i - shared),
        })
        .map(|name| PlayerId::parse(&name).expect("valid"))
        .collect()
}

/// The Day 1's stop: the entries registration named at it (`shared_by`), and how many of
/// them seating last recorded with chips (the survivors the flights policy carries).
async fn survivors(backbone: &Backbone, day1: TournamentId) -> Result<(u32, u32), String> {
    let store = floor_runtime::JetStreamStore::new(backbone);
    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, day1.0);
    let log = store.load::<TournamentEvent>(&subject, 0).await.map_err(|e| e.to_string())?;
    let named = log
        .into_iter()
        .flat_map(|c| c.events)
        .find_map(|e| if let TournamentEvent::TournamentFinished(f) = e { Some(f.shared_by) } else { None })
        .ok_or("the Day 1's tables closed and registration has not stopped it")?;
    let subject = subjects::event_subject(subjects::aggregate::SEATING, day1.0);
    let seating = store.load::<SeatingEvent>(&subject, 0).await.map_err(|e| e.to_string())?;
    // The stacks as the flights policy reads them (what it carries).
    let mut stacks = std::collections::HashMap::new();
    for commit in &seating {
        floor_satellites::flights::fold_stacks(&mut stacks, &commit.events);
    }
    let with_chips = named.iter().filter(|s| stacks.get(&s.entry).is_some_and(|c| *c > 0)).count();
    Ok((named.len() as u32, with_chips as u32))
}

/// The books of `t` once `done` holds of them, asked again until then (payouts records a
/// Day 1's transfer from its policy, a moment after the stop).
pub(super) async fn books_when(backbone: &Backbone, t: TournamentId, done: impl Fn(&Books) -> bool) -> Result<Books, String> {
    use floor_events::payouts::{verbs as payouts, BooksRequest};
    let asked = Instant::now();
    loop {
        let books = command(backbone, subjects::service::PAYOUTS, payouts::BOOKS.name(), &BooksRequest { tournament_id: t }).await?;
        let books: Books = serde_json::from_value(books).map_err(|e| format!("books: {e}"))?;
        if done(&books) {
            return Ok(books);
        }
        if asked.elapsed() > STALL {
            return Err(format!("the books of {t} did not reach the end in {} s: {books:?}", STALL.as_secs()));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Plays the flight (see the module's documentation).
///
/// # Errors
/// A rejected command, a stall, or a Day 1 whose survivors did not reach the Day 2.
pub(super) async fn run(
    backbone: &Backbone,
    config: &SimConfig,
    carry: Carry,
    mut progress: impl FnMut(&Progress),
) -> Result<Summary, String> {
    if config.free || config.watchable.is_some() || config.definition.is_some() || config.rebuys || config.bounty.is_some() {
        return Err("--format flights plays the sim's own Day 1s and Day 2 in lockstep: not with --free, --hand-every or \
                    --definition"
            .into());
    }
    if config.cancel_at.is_some() || config.suspend_at.is_some() {
        return Err("--format flights plays every tournament to its end: not with --cancel-at or --suspend-at".into());
    }
    if config.entrants < 6 {
        return Err("--format flights: each Day 1 needs 6 players or more (--entrants)".into());
    }
    let started = Instant::now();
    let now = chrono::Utc::now();
    let day2 = config.tournament_id;
    let create = CreateTournament { command_id: CommandId(day2.0), tournament_id: Some(day2), definition: day2_definition(config, now) };
    request(backbone, verbs::CREATE_TOURNAMENT.name(), &create).await?;

    let mut day1s = Vec::new();
    let mut pools = 0u64;
    for (day1, letter) in day1s_of(day2).into_iter().zip(['a', 'b', 'c']) {
        let definition = day1_definition(config, day2, letter, carry, now);
        let create = CreateTournament { command_id: CommandId(day1.0), tournament_id: Some(day1), definition };
        request(backbone, verbs::CREATE_TOURNAMENT.name(), &create).await?;
        for (i, player) in players(letter, config.entrants).into_iter().enumerate() {
            limits_first(backbone, config.profile, &player).await?;
            let register = Register { command_id: CommandId::derived(&format!("sim:{day1}:{player}")), tournament_id: day1, player };
            request(backbone, verbs::REGISTER.name(), &register).await?;
            progress(&Progress::Registering { registered: i as u32 + 1, entrants: config.entrants });
        }
        start_now(backbone, day1).await?;
        let day1_config = SimConfig { tournament_id: day1, ..config.clone() };
        let lockstep = Lockstep::new(backbone, day1).await?;
        let played = rounds(backbone, &day1_config, lockstep, None, None, started, &mut progress).await?;
        let (stopped_at, survivors) = survivors(backbone, day1).await?;
        // The flights policy has carried its survivors (each answered by the Day 2).
        let read: Vec<String> =
            [subjects::aggregate::TOURNAMENT, subjects::aggregate::SEATING].iter().map(|a| subjects::event_subject(a, day1.0)).collect();
        lockstep::policy_settled(backbone, FLIGHTS_POLICY, &read).await?;
        let books = books_when(backbone, day1, |b| b.transferred_out > 0 || b.prize_pool == 0).await?;
        pools += books.transferred_out;
        day1s.push(Day1Summary {
            tournament_id: day1,
            entrants: config.entrants,
            stopped_at,
            survivors,
            carried: 0,
            hands: played.hands,
            books,
        });
    }

    // The Day 2: what was carried, then its draw and play to a winner.
    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, day2.0);
    let log = floor_runtime::JetStreamStore::new(backbone).load::<TournamentEvent>(&subject, 0).await.map_err(|e| e.to_string())?;
    let (mut entries, mut replaced, mut added, mut forfeited) = (0u32, 0u32, 0u32, 0u32);
    let mut stacks: BTreeMap<u32, u64> = BTreeMap::new();
    for event in log.into_iter().flat_map(|c| c.events) {
        let TournamentEvent::EntryCarried(carried) = event else { continue };
        if let Some(d) = day1s.iter_mut().find(|d| d.tournament_id == carried.day1) {
            d.carried += 1;
        }
        match carried.outcome {
            CarryOutcome::Registered => entries += 1,
            CarryOutcome::Replaced { .. } => replaced += 1,
            CarryOutcome::Forfeited => forfeited += 1,
            CarryOutcome::Added => added += 1,
        }
        stacks.insert(carried.entry.0, carried.stack);
    }
    if entries < 2 {
        return Err(format!("the Day 1s carried {entries} entries into the Day 2: it cannot start"));
    }
    start_now(backbone, day2).await?;
    let day2_config = SimConfig { tournament_id: day2, ..config.clone() };
    let lockstep = Lockstep::new(backbone, day2).await?;
    let Played { tables, hands, moves, broken, rounds: began, .. } =
        rounds(backbone, &day2_config, lockstep, None, None, started, &mut progress).await?;
    let survivors: Vec<String> = tables.values().flat_map(|t| t.seats.values().map(|(_, player, _)| player.to_string())).collect();
    let [winner] = &survivors[..] else {
        return Err(format!("the Day 2's tables ended with {} players seated", survivors.len()));
    };
    let (books, standings, _) = paid_books(backbone, day2, false).await?;
    let hand_for_hand = bubble_log(backbone, day2, &began).await?;
    let events = backbone.events.clone().info().await.map_err(|e| e.to_string())?.state.last_sequence;
    let flights = FlightsSummary {
        day2,
        carry,
        day2_entries: entries,
        replaced,
        added,
        forfeited,
        day2_chips: stacks.values().sum(),
        one_prize_pool: books.transferred_in == pools && books.prize_pool == pools + books.contributions + books.overlay,
        day1s,
    };
    Ok(Summary {
        entrants: entries,
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
        satellite: None,
        flights: Some(flights),
        formats: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Day 1s are valid Day 1s of the Day 2, a third of their players play all three, and
    /// their ids follow from the Day 2's.
    #[test]
    fn three_day1s_of_one_day2() {
        let config = SimConfig::new(60, 7, TournamentId(uuid::Uuid::from_u128(36)));
        let now = "2027-01-10T17:00:00Z".parse().unwrap();
        let day2 = day2_definition(&config, now);
        day2.validate_at(now).expect("a valid Day 2");
        let day1 = day1_definition(&config, config.tournament_id, 'a', Carry::StackBuilder, now);
        day1.validate_at(now).expect("a valid Day 1");
        assert!(day2.capacity >= 3 * floor_rules::flight::survivors(60, SHARE_BPS));
        let (a, b) = (players('a', 60), players('b', 60));
        assert_eq!(a.iter().filter(|p| b.contains(p)).count(), 20);
        let ids = day1s_of(config.tournament_id);
        assert!(ids.iter().all(|id| *id != config.tournament_id) && ids[0] != ids[1] && ids[1] != ids[2]);
    }
}
