//! Lottery sit & gos (issue 37; 000 §16.10 "Twister", the format online rooms call Spin & Go):
//! the definition's [`LotteryTerms`] (a published, versioned prize table), the lottery
//! aggregate's events (`floor.ev.lottery.<tournament id>`) and the lottery service's requests.
//!
//! When the last seat fills, a multiplier is drawn from the table with the audited seed
//! (its commitment published when the tournament is created, the seed revealed with the draw,
//! as seating's seat draw and the mystery envelopes are): the prize pool is the multiplier × the
//! buy-in, split among places as the drawn row says. The operator's side of each game (the
//! entries' prize-pool parts less the drawn pool: positive when it keeps, negative when it adds)
//! is in the books.

use crate::codes;
use crate::ids::CommandId;
use crate::money::Money;
use crate::tournament::{DefinitionError, Start, TournamentDefinition};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Verbs of the lottery service: `floor.cmd.lottery.<verb>`.
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// A director compares the drawn frequencies with the published ones, over every game of a
    /// table version.
    pub const FREQUENCIES: Verb<FrequenciesOf, Frequencies> = Verb::new(service::LOTTERY, "frequencies");
}

/// Probabilities are given per million draws.
pub const PER_MILLION: u32 = 1_000_000;

/// The lottery section of a tournament definition: the published prize table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LotteryTerms {
    /// The table's published version (shown in the lobby; the frequency query groups by it).
    pub version: String,
    /// The rows: each multiplier with its probability and split.
    pub prizes: Vec<LotteryPrize>,
}

/// One row of a published prize table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LotteryPrize {
    /// The prize pool is this many times the buy-in.
    pub multiplier: u32,
    /// Draws per million that give this row.
    pub per_million: u32,
    /// Each place's share of the drawn pool, in basis points, first place first (10,000 in all).
    pub split_bps: Vec<u32>,
}

/// The lottery section against the rest of the definition: a sit & go; probabilities that sum to
/// one million per million; each split 10,000 bp, descending, no more places than seats; and an
/// expected pool no larger than what the players pay in.
///
/// # Errors
/// The first rule broken, with the field.
pub fn validate(definition: &TournamentDefinition) -> Result<(), DefinitionError> {
    let Some(terms) = &definition.lottery else { return Ok(()) };
    let invalid = |message: String| DefinitionError { code: codes::INVALID_DEFINITION, field: "lottery", message };
    if definition.start != Start::SitAndGo {
        return Err(invalid("a lottery game is a sit & go: the draw is made when its seats fill".into()));
    }
    crate::text::TABLE_VERSION.check(&terms.version).map_err(|e| invalid(e.message))?;
    if terms.prizes.is_empty() || terms.prizes.len() > 64 {
        return Err(invalid("a prize table has 1 to 64 rows".into()));
    }
    let total: u64 = terms.prizes.iter().map(|p| u64::from(p.per_million)).sum();
    if total != u64::from(PER_MILLION) {
        return Err(DefinitionError {
            code: codes::LOTTERY_ODDS_NOT_ONE,
            field: "lottery",
            message: format!("the probabilities sum to {total} per million, not {PER_MILLION}"),
        });
    }
    for (row, prize) in terms.prizes.iter().enumerate() {
        if prize.multiplier == 0 {
            return Err(invalid(format!("row {}: the multiplier must be at least 1", row + 1)));
        }
        let split: u64 = prize.split_bps.iter().map(|&b| u64::from(b)).sum();
        if split != 10_000 || prize.split_bps.windows(2).any(|w| w[1] > w[0]) {
            return Err(invalid(format!("row {}: the split must be 10,000 bp in all, first place first, descending", row + 1)));
        }
        if prize.split_bps.is_empty() || prize.split_bps.len() > definition.capacity as usize {
            return Err(invalid(format!("row {}: 1 to {} places (the seats)", row + 1, definition.capacity)));
        }
    }
    // The expected pool, in millionths of the buy-in, against what the seats pay in.
    let expected: u128 = terms.prizes.iter().map(|p| u128::from(p.per_million) * u128::from(p.multiplier)).sum::<u128>()
        * u128::from(definition.buy_in.amount);
    let paid_in = u128::from(definition.entry_ledger().paid_in.amount) * u128::from(definition.capacity) * u128::from(PER_MILLION);
    if expected > paid_in {
        return Err(DefinitionError {
            code: codes::LOTTERY_PAYS_MORE_THAN_IN,
            field: "lottery",
            message: "the table's expected prize pool is more than the players pay in".into(),
        });
    }
    if definition.bounty.is_some() || definition.payout_table.is_some() || definition.satellite.is_some() || definition.cut.is_some() {
        return Err(invalid("a lottery game pays its drawn pool by its table: no bounty, fixed table, satellite or cut".into()));
    }
    if definition.rebuy.is_some() || definition.add_on.is_some() {
        return Err(invalid("a lottery game has no rebuys".into()));
    }
    Ok(())
}

/// A table version's games.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrequenciesOf {
    /// The table's version.
    pub version: String,
    /// Idempotency key (unused by a query; accepted for symmetry).
    #[serde(default)]
    pub command_id: CommandId,
}

/// Drawn against published frequencies of one table version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Frequencies {
    /// The version.
    pub version: String,
    /// Games drawn.
    pub games: u64,
    /// Per multiplier: published per million, and how many games drew it.
    pub rows: Vec<FrequencyRow>,
}

/// One multiplier's published and drawn frequency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FrequencyRow {
    /// The multiplier.
    pub multiplier: u32,
    /// Published, per million.
    pub per_million: u32,
    /// Games that drew it.
    pub drawn: u64,
}

/// The lottery aggregate's events: `floor.ev.lottery.<tournament id>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LotteryEvent {
    /// See [`DrawCommitted`].
    DrawCommitted(DrawCommitted),
    /// See [`PrizeDrawn`].
    PrizeDrawn(PrizeDrawn),
}

crate::tagged::tagged_events!(LotteryEvent {
    DrawCommitted => "draw_committed",
    PrizeDrawn => "prize_drawn",
});

/// The commitment to the seed of the game's draw, published when the game is created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DrawCommitted {
    /// The table's version.
    pub version: String,
    /// SHA-256 of the seed, lower-case hex.
    pub commitment: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// The multiplier drawn when the seats filled: the prize pool and each place's prize.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PrizeDrawn {
    /// The table's version.
    pub version: String,
    /// The number drawn, 0 .. 1,000,000 (the row whose cumulative range holds it wins).
    pub number: u32,
    /// The row's multiplier.
    pub multiplier: u32,
    /// The prize pool: multiplier × buy-in.
    pub pool: Money,
    /// Each place's prize, first place first; sums to `pool`.
    pub prizes: Vec<u64>,
    /// The seed, revealed: lower-case hex; SHA-256 of it is the commitment.
    pub seed: String,
    /// When.
    pub at: DateTime<Utc>,
}
