//! `floor sim --format shootout|don|lottery` (issue 37): the definitions the simulator plays for
//! the three formats, and what the summary line says of each, read from the logs once the
//! tournament is paid.
//!
//! - **shootout**: a freezeout whose tables are never balanced or broken; each table plays to
//!   its winner, the shootouts service starts the next round with them and seating draws it
//!   afresh. The lockstep waits for the shootouts policy too ([`super::lockstep`]): between
//!   rounds every table is closed, and the next round exists only once the policy has read the
//!   last `table_won`. The line has the rounds (entries, advancing) from the shootout log.
//! - **don**: a sit & go (ten seats unless `--entrants` says otherwise) with a cut of 2: play
//!   stops when half the field is left, each paid twice the buy-in's prize-pool part. The line
//!   has the cut, the players who shared it and what each was paid.
//! - **lottery**: a three-seat sit & go (unless `--entrants` says otherwise) with the published
//!   table [`LOTTERY_TABLE`]: the lottery service commits a seed when the game is created and
//!   draws the multiplier when its seats fill; payouts locks the drawn pool. The line has the
//!   multiplier drawn, the pool and whether SHA-256 of the revealed seed is the commitment.
//!
//! A file's definition with one of these sections (`floor sim --definition examples/….toml`)
//! gets the same line.

use super::*;
use floor_events::lottery::{LotteryEvent, LotteryPrize, LotteryTerms};
use floor_events::registration::TournamentEvent;
use floor_events::shootouts::{CutTerms, ShootoutEvent, ShootoutTerms};
use floor_events::tournament::{EntryModel, Fee, Start};
use floor_events::{Currency, Money};

/// The shootouts policy's checkpoint key (`floor_shootouts::service::POLICY_NAME`).
pub const SHOOTOUTS_POLICY: &str = "shootouts-policy";
/// The lottery policy's checkpoint key (`floor_lottery::service::POLICY_NAME`).
pub const LOTTERY_POLICY: &str = "lottery-policy";

/// Which of the three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A shootout.
    Shootout,
    /// Double or nothing.
    Don,
    /// A lottery sit & go.
    Lottery,
}

impl Kind {
    /// Players the format seats unless told otherwise: a 9-max shootout of 81 (9 tables, then
    /// the final), a 10-seat double or nothing, a 3-seat lottery game.
    pub fn default_entrants(self) -> u32 {
        match self {
            Kind::Shootout => 81,
            Kind::Don => 10,
            Kind::Lottery => 3,
        }
    }
}

/// The simulator's published lottery table, version `sim-spin-1`: per million, the pool as a
/// multiple of the buy-in and its split by place. Its expected pool is 2.87 buy-ins of the 3.15
/// a three-seat game's players pay in (fees included); below ×25 first place takes the pool.
pub fn lottery_table() -> LotteryTerms {
    let row = |multiplier, per_million, split: &[u32]| LotteryPrize { multiplier, per_million, split_bps: split.to_vec() };
    LotteryTerms {
        version: "sim-spin-1".into(),
        prizes: vec![
            row(1_000, 10, &[8_000, 1_000, 1_000]),
            row(100, 100, &[8_000, 1_000, 1_000]),
            row(25, 5_000, &[8_000, 1_000, 1_000]),
            row(10, 20_000, &[10_000]),
            row(6, 70_000, &[10_000]),
            row(4, 150_000, &[10_000]),
            row(2, 754_890, &[10_000]),
        ],
    }
}

/// The published table's name, for the module docs.
pub const LOTTERY_TABLE: &str = "sim-spin-1";

/// The definition `--format shootout|don|lottery` plays for `entrants`: EUR 10 + 1, no blind
/// structure (blinds do not change simulated outcomes), hand for hand off (a shootout table or
/// a sit & go that stops does not play a bubble).
///
/// # Errors
/// A field the format cannot seat (a shootout that fits one table, a cut that does not divide
/// the field, a lottery game of more seats than the table), in words naming `--entrants`.
pub fn definition(kind: Kind, config: &SimConfig, now: chrono::DateTime<chrono::Utc>) -> Result<TournamentDefinition, String> {
    let entrants = config.entrants;
    let eur = |c| Money::new(c, Currency::EUR);
    let base = TournamentDefinition {
        name: String::new(),
        start: Start::SitAndGo,
        table_size: config.table_size,
        starting_stack: 10_000,
        buy_in: eur(1_000),
        fee: Fee::OnTop(eur(100)),
        capacity: entrants,
        min_players: entrants,
        late_registration_until: None,
        entry_model: EntryModel::Freezeout,
        profile: config.profile,
        ..TournamentDefinition::example()
    };
    let definition = match kind {
        Kind::Shootout => {
            if entrants <= u32::from(config.table_size) {
                return Err(format!(
                    "a shootout of {entrants} at tables of {} is one table: give --entrants above the table size",
                    config.table_size
                ));
            }
            // A sit & go up to 360, scheduled above (the sim starts it once the field is in).
            let start = match entrants <= LARGEST_SIT_AND_GO {
                true => Start::SitAndGo,
                false => Start::At(now + chrono::Duration::from_std(config.start_after).unwrap_or(chrono::Duration::days(1))),
            };
            TournamentDefinition {
                name: format!("Shootout {} ({entrants} players)", config.seed),
                start,
                shootout: Some(ShootoutTerms::new(1)),
                ..base
            }
        }
        Kind::Don => {
            if !entrants.is_multiple_of(2) || entrants > LARGEST_SIT_AND_GO {
                return Err(format!(
                    "double or nothing halves its field: --entrants {entrants} must be even, at most {LARGEST_SIT_AND_GO}"
                ));
            }
            TournamentDefinition {
                name: format!("Double or nothing {} ({entrants} players)", config.seed),
                table_size: config.table_size.max(u8::try_from(entrants.min(10)).unwrap_or(10)),
                cut: Some(CutTerms { fraction: 2 }),
                ..base
            }
        }
        Kind::Lottery => {
            if entrants > u32::from(config.table_size) {
                return Err(format!("a lottery game is one table: --entrants {entrants} must fit a table of {}", config.table_size));
            }
            TournamentDefinition {
                name: format!("Lottery {} ({entrants} players)", config.seed),
                table_size: u8::try_from(entrants).unwrap_or(3),
                fee: Fee::OnTop(eur(50)),
                lottery: Some(lottery_table()),
                ..base
            }
        }
    };
    definition.validate().map_err(|e| format!("the {kind:?} definition for {entrants} players: {}: {}", e.field, e.message))?;
    Ok(definition)
}

/// What the summary line says of the three formats (each absent for any other tournament).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FormatSummary {
    /// A shootout's rounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shootout: Option<ShootoutSummary>,
    /// Double or nothing's stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutSummary>,
    /// A lottery game's draw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lottery: Option<LotterySummary>,
}

/// A shootout's rounds, from its log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShootoutSummary {
    /// Each round: its number, the entries that started it and those that advanced.
    pub rounds: Vec<RoundSummary>,
}

/// One shootout round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RoundSummary {
    /// 1 for the first.
    pub round: u32,
    /// Entries that started it.
    pub entries: u32,
    /// Entries that won it (the last round: 1, the winner).
    pub advancing: u32,
}

/// Double or nothing's stop, from registration's and payouts' logs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CutSummary {
    /// 2: double or nothing.
    pub fraction: u32,
    /// Players left when play stopped (registration's `shared_by`).
    pub shared_by: u32,
    /// The equal prize each was meant to get (minor units).
    pub prize: u64,
    /// Whether every survivor was paid exactly that.
    pub survivors_paid_the_prize: bool,
}

/// A lottery game's draw, from its log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LotterySummary {
    /// The published table's version.
    pub version: String,
    /// The number drawn, 0 .. 1,000,000.
    pub number: u32,
    /// The multiplier drawn.
    pub multiplier: u32,
    /// The prize pool drawn (minor units): multiplier × buy-in.
    pub pool: u64,
    /// Each place's prize, first first.
    pub prizes: Vec<u64>,
    /// SHA-256 of the revealed seed is the commitment published when the game was created.
    pub seed_matches_commitment: bool,
}

fn text<E: ToString>(e: E) -> String {
    e.to_string()
}

async fn log<E: serde::de::DeserializeOwned>(backbone: &Backbone, aggregate: &str, t: TournamentId) -> Result<Vec<E>, String> {
    let subject = subjects::event_subject(aggregate, t.0);
    let commits = floor_runtime::JetStreamStore::new(backbone).load::<E>(&subject, 0).await.map_err(text)?;
    Ok(commits.into_iter().flat_map(|c| c.events).collect())
}

/// The lines of the three formats, once the tournament is paid: the policies have acted on
/// every commit, then the logs are read. A draw whose seed does not hash to its commitment, or a
/// shootout whose rounds do not end with one winner, is an error.
///
/// # Errors
/// A stall of a policy, an unreadable log, or a log that breaks the format's rules.
pub async fn read(
    backbone: &Backbone,
    t: TournamentId,
    definition: &TournamentDefinition,
    standings: &[PlaceAward],
) -> Result<FormatSummary, String> {
    let subject = |aggregate: &str| subjects::event_subject(aggregate, t.0);
    let mut summary = FormatSummary::default();
    if definition.shootout.is_some() {
        let subjects = [subjects::aggregate::TOURNAMENT, subjects::aggregate::SEATING, subjects::aggregate::SHOOTOUT].map(subject);
        lockstep::policy_settled(backbone, SHOOTOUTS_POLICY, &subjects).await?;
        let events: Vec<ShootoutEvent> = log(backbone, subjects::aggregate::SHOOTOUT, t).await?;
        let mut rounds: Vec<RoundSummary> = Vec::new();
        for event in events {
            match event {
                ShootoutEvent::RoundStarted(s) => {
                    rounds.push(RoundSummary { round: s.round, entries: s.entries.len() as u32, advancing: 0 })
                }
                ShootoutEvent::RoundCompleted(c) => {
                    if let Some(r) = rounds.iter_mut().find(|r| r.round == c.round) {
                        r.advancing = c.advancing.len() as u32;
                    }
                }
            }
        }
        let chained = rounds.windows(2).all(|w| w[1].entries == w[0].advancing && w[1].round == w[0].round + 1);
        if rounds.is_empty() || !chained || rounds.last().is_some_and(|r| r.advancing != 1) {
            return Err(format!("the shootout's rounds do not go from the field to one winner: {rounds:?}"));
        }
        summary.shootout = Some(ShootoutSummary { rounds });
    }
    if let Some(cut) = &definition.cut {
        let events: Vec<TournamentEvent> = log(backbone, subjects::aggregate::TOURNAMENT, t).await?;
        let shared = events
            .iter()
            .find_map(|e| if let TournamentEvent::TournamentFinished(f) = e { Some(f.shared_by.clone()) } else { None })
            .ok_or("double or nothing ended and registration has not finished it")?;
        let prize = floor_rules::satellite::equal_prize(definition).map_or(0, |m| m.amount);
        let paid = |entry| standings.iter().filter(|a| a.entry == entry).map(|a| a.amount).sum::<u64>();
        let survivors_paid_the_prize = !shared.is_empty() && shared.iter().all(|s| paid(s.entry) == prize);
        summary.cut = Some(CutSummary { fraction: cut.fraction, shared_by: shared.len() as u32, prize, survivors_paid_the_prize });
    }
    if definition.lottery.is_some() {
        let subjects = [subjects::aggregate::TOURNAMENT, subjects::aggregate::LOTTERY].map(subject);
        lockstep::policy_settled(backbone, LOTTERY_POLICY, &subjects).await?;
        let events: Vec<LotteryEvent> = log(backbone, subjects::aggregate::LOTTERY, t).await?;
        let commitment = events.iter().find_map(|e| if let LotteryEvent::DrawCommitted(c) = e { Some(c.commitment.clone()) } else { None });
        let drawn = events
            .iter()
            .find_map(|e| if let LotteryEvent::PrizeDrawn(d) = e { Some(d.clone()) } else { None })
            .ok_or("the lottery game was played and its prize never drawn")?;
        let seed_matches_commitment =
            commitment.is_some_and(|c| floor_lobby::document::lottery::seed_hash(&drawn.seed).is_some_and(|h| h == c));
        summary.lottery = Some(LotterySummary {
            version: drawn.version,
            number: drawn.number,
            multiplier: drawn.multiplier,
            pool: drawn.pool.amount,
            prizes: drawn.prizes,
            seed_matches_commitment,
        });
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(entrants: u32, table_size: u8) -> SimConfig {
        SimConfig { table_size, ..SimConfig::new(entrants, 7, TournamentId::new()) }
    }

    #[test]
    fn each_format_is_a_definition_the_platform_takes() {
        let now = chrono::Utc::now();
        for (kind, entrants, size) in
            [(Kind::Shootout, 81, 9), (Kind::Shootout, 9, 3), (Kind::Shootout, 500, 9), (Kind::Don, 10, 9), (Kind::Lottery, 3, 9)]
        {
            let d = definition(kind, &config(entrants, size), now).unwrap_or_else(|e| panic!("{kind:?} {entrants}: {e}"));
            assert_eq!(d.capacity, entrants);
        }
        assert!(definition(Kind::Shootout, &config(9, 9), now).is_err(), "one table is no shootout");
        assert!(definition(Kind::Don, &config(9, 9), now).is_err(), "an odd field");
        assert!(definition(Kind::Lottery, &config(10, 9), now).is_err(), "more than a table");
        let terms = lottery_table();
        assert_eq!(terms.prizes.iter().map(|p| p.per_million).sum::<u32>(), floor_events::lottery::PER_MILLION);
        assert_eq!(terms.version, LOTTERY_TABLE);
    }
}
