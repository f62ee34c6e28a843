//! Flights (issue 36): several Day 1 tournaments feed one Day 2. The definition's
//! [`FlightTerms`] section of a Day 1 and the events that carry a Day 1's survivors into its
//! Day 2. 004 §4.36.11–13; the rules over them are `floor_rules::flight`.
//!
//! The rulebook's words (004, Fortuna's rules):
//!
//! - §4.36.11 *Flight*: "Flight turnaj je rozdělen na několik fází, které jsou označeny jako Day1.
//!   Všichni Sázející, kteří během Day1 fáze nevypadli jsou poté spojeni do další fáze turnaje,
//!   označené jako Day2." (A flight tournament is divided into several phases marked Day1. All the
//!   players who were not eliminated during a Day1 phase are then joined in the next phase of the
//!   tournament, marked Day2.) → [`Carry::FirstStack`]: one Day 1 per player counts.
//! - §4.36.12 *Best Stack Forward*: "Sázejícím je ale umožněno zaregistrovat se postupně do
//!   několika Day1 fází a do Day2 fáze pak Sázející postupuje s takovým počtem hracích žetonů,
//!   který odpovídá jeho nejlepšímu výsledku ze všech Day1 fází." (Players may register one after
//!   another in several Day1 phases, and go on to Day2 with the chips of their best result of
//!   all the Day1 phases.) → [`Carry::BestStack`].
//! - §4.36.13 *Stack Builder*: "… postupuje s takovým počtem hracích žetonů, který odpovídá
//!   součtu jeho výsledků ze všech Day1 fází." (… go on with the chips of the sum of their
//!   results of all the Day1 phases.) → [`Carry::StackBuilder`].
//!
//! - **Where a Day 1 stops**: the rulebook says only "not eliminated during a Day1 phase"; the
//!   issue's "plays to a configured share of its field": [`FlightTerms::survivors_share_bps`] of
//!   the entries (rounded up, at least one), checked once registration has closed.
//! - **Money**: a Day 1 pays no prizes. Its whole prize pool is paid out to its Day 2 as a
//!   transfer both books show ([`PoolTransferred`]: paid out by the Day 1, paid in to the Day 2);
//!   one prize pool is paid, in the Day 2.
//! - **At once in two Day 1s**: [`FlightTerms::one_day1_at_a_time`] (default: allowed). Not
//!   enforced yet, so a definition that sets it is refused rather than silently ignored.

use crate::ids::{CommandId, EntryNo, PlayerId, TournamentId};
use crate::money::Money;
use crate::tournament::{DefinitionError, Start, TournamentDefinition};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The flight section of a Day 1's definition: its survivors go on to `day2`. Checked against
/// the Day 2 when the Day 1 is created (it exists and has not started), as a satellite's target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlightTerms {
    /// The Day 2 this Day 1 feeds: an ordinary scheduled tournament.
    pub day2: TournamentId,
    /// The share of the Day 1's field that goes through, in basis points (1,500 = 15 %): play
    /// stops once the entries left are no more than ⌈entries × share⌉ (at least one).
    pub survivors_share_bps: u32,
    /// How a player who survives several Day 1s goes on (the Day 2's Day 1s name the same rule).
    #[serde(default)]
    pub carry: Carry,
    /// Whether a player may be in two of the flight's Day 1s at once (registered and not yet out
    /// of one while registering in another). Default: allowed.
    #[serde(default)]
    pub one_day1_at_a_time: bool,
}

/// How the stacks of a player who survived more than one Day 1 go on to the Day 2
/// (004 §4.36.11–13).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Carry {
    /// The first Day 1 a player survives counts; a later survival's stack is forfeited.
    #[default]
    FirstStack,
    /// Best stack forward: the largest Day 1 stack; the others are forfeited.
    BestStack,
    /// Stack builder: the sum of the player's Day 1 stacks.
    StackBuilder,
}

/// One survivor of a Day 1 and the stack it ends with (seating's last reported stack).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Survivor {
    /// The player.
    pub player_id: PlayerId,
    /// The player's entry in the Day 1.
    pub entry_no: EntryNo,
    /// Chips at the Day 1's stop.
    pub stack: u64,
}

/// A Day 1 reached its share and ended: its survivors and their stacks, in the order the
/// flight policy carries them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Day1Finished {
    /// The Day 1.
    pub day1: TournamentId,
    /// The Day 2 it feeds.
    pub day2: TournamentId,
    /// Every survivor, with its stack.
    pub survivors: Vec<Survivor>,
}

/// A Day 1's prize pool paid over to its Day 2 (payouts' `pool_transferred`, recorded in both
/// tournaments' payouts logs when the Day 1 stops): the Day 1's books pay it out, the Day 2's
/// take it in, and its payout table is locked on its own contributions and its Day 1s' pools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PoolTransferred {
    /// The Day 1 paying.
    pub day1: TournamentId,
    /// The Day 2 paid.
    pub day2: TournamentId,
    /// The Day 1's whole prize pool.
    pub amount: Money,
}

/// Carry one survivor of a Day 1 into its Day 2 (registration's `register_carried`, sent only
/// by the satellites service's flights policy, its command id derived from the Day 1 and the
/// entry: `flights-carry:<day1>:<entry>`). The Day 2 takes it without a buy-in (the money was
/// paid into the Day 1, whose pool is paid over whole) and applies `carry` itself, so the
/// outcome depends only on what the Day 2 has recorded, whatever the order the Day 1s finish
/// in or a restart resends. Refused with the Day 2's own codes: `tournament_started` once its
/// draw is made, `registration_closed` past its deadline, `field_full` at its capacity (a new
/// player only), `tournament_cancelled`, `tournament_finished`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterCarried {
    /// Idempotency key: derived from the Day 1 and its entry.
    #[serde(default)]
    pub command_id: CommandId,
    /// The Day 2.
    pub tournament_id: TournamentId,
    /// The player.
    pub player: PlayerId,
    /// The Day 1 survived.
    pub day1: TournamentId,
    /// The player's entry in it.
    pub day1_entry: crate::ids::EntryNo,
    /// The chips it ended the Day 1 with (more than zero).
    pub chips: u64,
    /// The Day 1's carry rule (004 §4.36.11–13).
    #[serde(default)]
    pub carry: Carry,
}

/// What the Day 2 did with one carried Day 1 stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CarryOutcome {
    /// The player's first stack here: a new Day 2 entry.
    Registered,
    /// Best stack forward: a larger stack replaces the one held (the smaller forfeited).
    Replaced {
        /// The stack given up.
        forfeited: u64,
    },
    /// Stack builder: added to the player's Day 2 stack.
    Added,
    /// Not carried: first stack forward after a first survival, or best stack forward no
    /// larger than the stack held. The entry's stack is unchanged.
    Forfeited,
}

/// A Day 1 survivor's stack reached its Day 2 (`entry_carried`, in the Day 2's registration
/// log): a new entry paid by its Day 1 (nothing paid here), or an existing one whose stack the
/// carry rule changed or kept. Seating seats the entry at the Day 2's draw with `stack`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EntryCarried {
    /// The Day 2 entry (new when `outcome` is `registered`).
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// The Day 1 the stack comes from.
    pub day1: TournamentId,
    /// The entry there.
    pub day1_entry: EntryNo,
    /// The chips it ended the Day 1 with.
    pub chips: u64,
    /// The Day 2 entry's stack now.
    pub stack: u64,
    /// What the carry rule did.
    pub outcome: CarryOutcome,
    /// The player had no other entry in the Day 2 (a new unique player).
    pub new_player: bool,
    /// When.
    pub at: DateTime<Utc>,
}

/// The flight section against the rest of the Day 1's definition: a share of 1 … 10,000 bp; a
/// scheduled tournament (a sit & go's field is its seats: no flight); no prizes of its own (no
/// bounty, fixed table, satellite, shootout, cut or lottery).
///
/// # Errors
/// The first rule broken, with the field `flight`.
pub fn validate(definition: &TournamentDefinition) -> Result<(), DefinitionError> {
    let Some(terms) = &definition.flight else { return Ok(()) };
    let invalid = |message: &str| DefinitionError { code: crate::codes::INVALID_DEFINITION, field: "flight", message: message.into() };
    if terms.survivors_share_bps == 0 || terms.survivors_share_bps > 10_000 {
        return Err(invalid("the survivors' share is 1 to 10,000 basis points of the field"));
    }
    if definition.start == Start::SitAndGo {
        return Err(invalid("a Day 1 is a scheduled tournament"));
    }
    // Not enforced yet (registration would need to know, at a Day 1's registration, whether the
    // player is still in another Day 1 of the same Day 2): refused rather than accepted and
    // ignored.
    if terms.one_day1_at_a_time {
        return Err(invalid("one_day1_at_a_time is not enforced yet: leave it out (a player may be in several Day 1s at once)"));
    }
    if definition.bounty.is_some()
        || definition.payout_table.is_some()
        || definition.satellite.is_some()
        || definition.shootout.is_some()
        || definition.cut.is_some()
        || definition.lottery.is_some()
    {
        return Err(invalid("a Day 1 pays no prizes of its own: no bounty, fixed table, satellite, shootout, cut or lottery"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day1(terms: FlightTerms) -> TournamentDefinition {
        TournamentDefinition { flight: Some(terms), ..TournamentDefinition::example() }
    }

    fn terms() -> FlightTerms {
        FlightTerms { day2: TournamentId::new(), survivors_share_bps: 1_500, carry: Carry::BestStack, one_day1_at_a_time: false }
    }

    #[test]
    fn a_day1_with_a_share_is_valid() {
        assert_eq!(validate(&day1(terms())), Ok(()));
    }

    #[test]
    fn a_share_of_nothing_or_more_than_the_field_is_refused() {
        for bps in [0, 10_001] {
            let err = validate(&day1(FlightTerms { survivors_share_bps: bps, ..terms() })).unwrap_err();
            assert_eq!((err.code, err.field), (crate::codes::INVALID_DEFINITION, "flight"));
        }
    }

    #[test]
    fn one_day1_at_a_time_is_refused_until_it_is_enforced() {
        let err = validate(&day1(FlightTerms { one_day1_at_a_time: true, ..terms() })).unwrap_err();
        assert_eq!(err.field, "flight");
        assert!(err.message.contains("not enforced yet"), "{err:?}");
    }

    #[test]
    fn a_sit_and_go_day1_is_refused() {
        let definition = TournamentDefinition { start: Start::SitAndGo, ..day1(terms()) };
        assert_eq!(validate(&definition).unwrap_err().field, "flight");
    }

    #[test]
    fn the_terms_read_with_their_defaults() {
        let id = TournamentId::new();
        let json = format!(r#"{{"day2":"{id}","survivors_share_bps":1500}}"#);
        let read: FlightTerms = serde_json::from_str(&json).unwrap();
        assert_eq!((read.carry, read.one_day1_at_a_time), (Carry::FirstStack, false));
        let json = format!(r#"{{"day2":"{id}","survivors_share_bps":1500,"carry":"stack_builder"}}"#);
        assert_eq!(serde_json::from_str::<FlightTerms>(&json).unwrap().carry, Carry::StackBuilder);
    }
}
