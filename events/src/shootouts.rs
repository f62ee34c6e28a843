//! Shootouts and double or nothing (issue 37): the definition's [`ShootoutTerms`] and
//! [`CutTerms`] sections, the shootout aggregate's events (`floor.ev.shootout.<tournament id>`)
//! and the shootouts service's requests. Spec §9; 003 App. 1 b ii and b xi, 004 §4.36.3 and
//! §4.36.16.
//!
//! - **A shootout**: each table of a round plays until `advance` players are left (one, unless
//!   the definition says otherwise), with no balancing and no table breaking; when every table of
//!   the round has its winners, the winners are drawn afresh onto the next round's tables, until
//!   one table is left, which plays to a winner.
//! - **Double or nothing** (a cut): a sit & go that stops when the field is down to
//!   `capacity ÷ fraction` players; each of them is paid the same, `fraction` × an entry's
//!   prize-pool part (2: double or nothing, 3: triple up). The stop is the satellite's
//!   (000 §16.7: every player left has the same prize), with cash instead of seats.

use crate::codes;
use crate::ids::{CommandId, EntryNo, TournamentId};
use crate::tournament::{DefinitionError, FixedPayouts, Start, TournamentDefinition};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Verbs of the shootouts service: `floor.cmd.shootouts.<verb>`.
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// A shootout's bracket: rounds, tables, winners so far.
    pub const BRACKET: Verb<BracketOf, Bracket> = Verb::new(service::SHOOTOUTS, "bracket");
}

/// The shootout section of a tournament definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShootoutTerms {
    /// Players who advance from each table (1: the table's winner).
    #[serde(default = "one")]
    pub advance: u32,
    /// What happens when the field does not fill every table of the first round.
    #[serde(default)]
    pub short_field: ShortField,
    /// Whether the next round starts with the stacks the winners ended with, or afresh.
    #[serde(default)]
    pub stacks: RoundStacks,
    /// Prizes per round reached and for each table won ("arena", 004 §4.36.3), instead of a
    /// generated table; `None`: the payout table as any tournament's (or `payout_table`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prizes: Option<ShootoutPrizes>,
    /// Scheduled rounds (a round a day): the earliest start of round 2, round 3, … in order.
    /// A round's draw waits for the last table of the round before and for its start; a round
    /// not listed starts as soon as the round before is complete (continuous, the default).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_starts: Vec<DateTime<Utc>>,
}

impl ShootoutTerms {
    /// One winner per table, uneven first-round tables, stacks carried, the ordinary payout
    /// table, continuous rounds; `advance` players go on from each table.
    pub fn new(advance: u32) -> Self {
        Self { advance, short_field: ShortField::Uneven, stacks: RoundStacks::Carry, prizes: None, round_starts: Vec::new() }
    }

    /// The earliest start of round `round` (2 or more), if the definition schedules it.
    pub fn round_start(&self, round: u32) -> Option<DateTime<Utc>> {
        let index = usize::try_from(round.checked_sub(2)?).ok()?;
        self.round_starts.get(index).copied()
    }

    /// The payout table of a field of `field` entries at tables of `table_size`, when the
    /// definition pays per round reached ([`ShootoutPrizes`]); `None` otherwise.
    pub fn payouts(&self, table_size: u8, field: u32) -> Option<FixedPayouts> {
        let prizes = self.prizes.as_ref()?;
        Some(prizes.table(&rounds(field, table_size, self.short_field)))
    }
}

/// Players in each round of a shootout with one winner per table, first round first, down to
/// the final table: `field` entries at tables of `table_size` (after a trim, the full tables'
/// players), byes going straight to round 2. The last round is one table.
pub fn rounds(field: u32, table_size: u8, short_field: ShortField) -> Vec<u32> {
    let size = u32::from(table_size).max(2);
    let mut field = match short_field {
        ShortField::Trim if field >= size => field - trimmed(field, table_size),
        _ => field,
    };
    let mut rounds = vec![field];
    let mut byes = match short_field {
        ShortField::Byes => byes(field, table_size),
        _ => 0,
    };
    while field > size || byes > 0 {
        field = (field - byes).div_ceil(size) + byes;
        byes = 0;
        rounds.push(field);
        if rounds.len() > 64 {
            break;
        }
    }
    rounds
}

/// Prizes per round reached and "arena" prizes for tables won (004 §4.36.3: "Sázející, který u
/// svého hracího stolu zůstal jako poslední (tzn. „vyhrál svůj stůl“), může v Shootouts
/// turnajích typu „Arena“ získat dílčí Výhru. Další Výhry jsou udělovány za umístění na
/// placených (výherních) pozicích … Přesné rozdělení Výher, a to zda jsou udělovány také Výhry
/// za „výhru stolu“, je specifické pro každý jednotlivý Shootouts turnaj": the last player at
/// a table may win a partial prize in an "arena" shootout; further prizes go to paid places;
/// each shootout sets its own split, and whether tables won pay). Shares are of the prize
/// pool, in basis points; shown in the lobby before entering (003 App. 1 b ii: "tato informace
/// je vždy zobrazena před vstupem do turnaje").
///
/// A player out in round `r` (who reached it and won no table of it) is paid
/// `reached_bps[r - 1]` (past the list's end, its last) plus `table_win_bps` for each of the `r - 1`
/// tables they won; the winner is paid the rest of the pool, so the table pays the pool
/// exactly. With one winner per table a round's players are known from the field
/// ([`rounds`]), so the table is fixed at the start, as any tournament's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShootoutPrizes {
    /// Each player out in round 1, 2, …: their share of the pool, in basis points (never less
    /// in a later round; rounds past the list's end are paid its last).
    #[serde(default)]
    pub reached_bps: Vec<u32>,
    /// "Arena": each table won pays its winner this share of the pool (0: none).
    #[serde(default)]
    pub table_win_bps: u32,
}

impl ShootoutPrizes {
    /// Each paid place's share of the pool, place 1 (the winner: the rest of the pool) first,
    /// for rounds of `rounds` players; places paid nothing are left off.
    pub fn table(&self, rounds: &[u32]) -> FixedPayouts {
        let mut shares = Vec::new();
        let mut paid: u64 = 0;
        // Places from the last round back to the first: the better places first.
        for (i, window) in rounds.iter().enumerate().rev() {
            let round = i as u32 + 1;
            let next = rounds.get(i + 1).copied().unwrap_or(1);
            let out = window.saturating_sub(next);
            let each = u64::from(self.each_out_in(round));
            for _ in 0..out {
                shares.push(each as u32);
                paid += each;
            }
        }
        while shares.last() == Some(&0) {
            shares.pop();
        }
        let winner = 10_000u64.saturating_sub(paid) as u32;
        shares.insert(0, winner);
        FixedPayouts { shares_bps: shares }
    }

    /// A player out in round `round`'s share: the round's, and one table-win prize for each
    /// table they won before it.
    pub fn each_out_in(&self, round: u32) -> u32 {
        // Past the list's end, its last share: a later round never pays less.
        let index = (round.saturating_sub(1) as usize).min(self.reached_bps.len().saturating_sub(1));
        let reached = self.reached_bps.get(index).copied().unwrap_or(0);
        reached.saturating_add(self.table_win_bps.saturating_mul(round.saturating_sub(1)))
    }

    /// What every prize but the winner's takes for a field of `rounds`, in basis points (u64:
    /// never overflows).
    fn others_bps(&self, rounds: &[u32]) -> u64 {
        rounds
            .iter()
            .enumerate()
            .map(|(i, players)| {
                let next = rounds.get(i + 1).copied().unwrap_or(1);
                u64::from(players.saturating_sub(next)) * u64::from(self.each_out_in(i as u32 + 1))
            })
            .sum()
    }
}

fn one() -> u32 {
    1
}

/// A field that does not fill the first round's tables (004 §4.36.3: "Pokud nebude Shootout
/// plně obsazen, některé hrací stoly v prvním kole mohou mít více Sázejících než jiné", if a
/// shootout is not full, some first-round tables may have more players than others). The
/// definition chooses, and the lobby states it before registration (003 App. 1 b ii).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShortField {
    /// Tables as even as the draw can make them (004: uneven first-round tables).
    #[default]
    Uneven,
    /// Full first-round tables; the players over them ([`byes`]: the field modulo the table
    /// size) are drawn at random, with the start-of-play draw's committed seed, and go straight
    /// to round 2 (seating's `byes_drawn`).
    Byes,
    /// Full first-round tables; the last registrants over them ([`trimmed`]) are withdrawn at
    /// the start and refunded in full (registration's `entry_unregistered`, by the operator).
    Trim,
}

/// Players given a bye to round 2 when `field` players start at tables of `table_size`
/// ([`ShortField::Byes`]): those over the full tables, none when the field fills no table (a
/// single table is the whole shootout).
pub fn byes(field: u32, table_size: u8) -> u32 {
    let size = u32::from(table_size).max(1);
    if field < size {
        0
    } else {
        field % size
    }
}

/// Entries withdrawn and refunded at the start when `field` players start at tables of
/// `table_size` ([`ShortField::Trim`]): the last registrants over the full tables, none when
/// the field fills no table.
pub fn trimmed(field: u32, table_size: u8) -> u32 {
    byes(field, table_size)
}

/// The stacks a round starts with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoundStacks {
    /// The stacks the winners ended their table with.
    #[default]
    Carry,
    /// The definition's starting stack again.
    Reset,
}

/// Double or nothing and its variants: play stops when `capacity ÷ fraction` players are left,
/// each paid `fraction` × an entry's prize-pool part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CutTerms {
    /// 2: double or nothing (half the field wins); 3: a third wins triple.
    pub fraction: u32,
}

/// The shootout and cut sections against the rest of the definition.
///
/// # Errors
/// The first rule broken, with the field.
pub fn validate(definition: &TournamentDefinition) -> Result<(), DefinitionError> {
    let invalid = |field: &'static str, message: String| DefinitionError { code: codes::INVALID_DEFINITION, field, message };
    if let Some(terms) = &definition.shootout {
        if terms.advance == 0 || terms.advance >= u32::from(definition.table_size) {
            return Err(invalid("shootout", format!("advance must be 1..{} (fewer than a table's seats)", definition.table_size)));
        }
        if definition.late_registration_until.is_some() || definition.rebuy.is_some() || definition.add_on.is_some() {
            return Err(invalid("shootout", "a shootout has no late registration and no rebuys (003, 004 §4.36.3)".into()));
        }
        if definition.satellite.is_some() || definition.cut.is_some() {
            return Err(invalid("shootout", "a shootout is not also a satellite or a double or nothing".into()));
        }
        if let Some(prizes) = &terms.prizes {
            validate_prizes(definition, terms, prizes)?;
        }
        if terms.round_starts.windows(2).any(|w| w[1] <= w[0]) {
            return Err(invalid("shootout", "round_starts are the starts of rounds 2, 3, … in order".into()));
        }
        if let (Start::At(start), Some(first)) = (definition.start, terms.round_starts.first()) {
            if *first <= start {
                return Err(invalid("shootout", format!("round 2 cannot start ({first}) before the shootout does ({start})")));
            }
        }
        // A sit & go starts with its capacity: trimming would refund players it seated.
        if terms.short_field == ShortField::Trim
            && definition.start == Start::SitAndGo
            && trimmed(definition.capacity, definition.table_size) > 0
        {
            return Err(invalid(
                "shootout",
                format!(
                    "a sit & go of {} seats at tables of {} would trim players who filled it: give a capacity of full tables",
                    definition.capacity, definition.table_size
                ),
            ));
        }
    }
    if let Some(cut) = &definition.cut {
        if definition.start != Start::SitAndGo {
            return Err(invalid("cut", "double or nothing is a sit & go".into()));
        }
        if cut.fraction < 2 || cut.fraction > definition.capacity {
            return Err(invalid("cut", format!("fraction must be 2..={} (the capacity)", definition.capacity)));
        }
        if !definition.capacity.is_multiple_of(cut.fraction) {
            return Err(invalid(
                "cut",
                format!("{} seats do not split into {} equal parts: an odd field is refused", definition.capacity, cut.fraction),
            ));
        }
        if definition.satellite.is_some() || definition.bounty.is_some() || definition.payout_table.is_some() {
            return Err(invalid("cut", "double or nothing pays its whole pool equally: no satellite, bounty or fixed table".into()));
        }
        if definition.rebuy.is_some() || definition.add_on.is_some() {
            return Err(invalid("cut", "double or nothing has no rebuys".into()));
        }
    }
    Ok(())
}

/// Prizes per round reached: one winner per table (the rounds' sizes are then known from the
/// field), shares that never fall from a round to a later one, and, for every field the
/// capacity allows, every other prize below the winner's and all of them inside the pool.
fn validate_prizes(definition: &TournamentDefinition, terms: &ShootoutTerms, prizes: &ShootoutPrizes) -> Result<(), DefinitionError> {
    let invalid = |message: String| DefinitionError { code: codes::INVALID_DEFINITION, field: "shootout.prizes", message };
    if terms.advance != 1 {
        return Err(invalid("prizes per round reached need one winner per table (advance = 1)".into()));
    }
    if definition.payout_table.is_some() {
        return Err(invalid("a shootout pays by its rounds or by payout_table, not both".into()));
    }
    if prizes.table_win_bps > 0 && terms.short_field == ShortField::Byes {
        return Err(invalid("a bye wins no table: table-win prizes need uneven or trimmed first-round tables".into()));
    }
    if prizes.reached_bps.windows(2).any(|w| w[1] < w[0]) {
        return Err(invalid("a later round never pays less than an earlier one".into()));
    }
    if prizes.reached_bps.iter().chain([&prizes.table_win_bps]).any(|&bps| bps > 10_000) {
        return Err(invalid("a share is at most 10000 basis points (the pool)".into()));
    }
    // The most any field pays the others is the full field's (every round as large as it can
    // be); each field up to the capacity is checked, as the field is only known at the start.
    for field in 2..=definition.capacity.min(100_000) {
        let rounds = rounds(field, definition.table_size, terms.short_field);
        let others = prizes.others_bps(&rounds);
        let last = rounds.len() as u32;
        let best_other = (1..=last).map(|r| prizes.each_out_in(r)).max().unwrap_or(0);
        if others > 10_000 || 10_000 - others < u64::from(best_other) {
            return Err(invalid(format!(
                "with {field} entries the prizes other than the winner's take {others} of 10000 basis points: the winner must be paid the most"
            )));
        }
    }
    Ok(())
}

/// One shootout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BracketOf {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Idempotency key (unused by a query; accepted for symmetry).
    #[serde(default)]
    pub command_id: CommandId,
}

/// A shootout's bracket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Bracket {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Every round so far, first first.
    pub rounds: Vec<BracketRound>,
}

/// One round of a bracket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BracketRound {
    /// 1 for the first.
    pub round: u32,
    /// The entries that started it.
    pub entries: Vec<EntryNo>,
    /// The entries that won it, once it is complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advancing: Option<Vec<EntryNo>>,
}

/// The shootout aggregate's events: `floor.ev.shootout.<tournament id>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ShootoutEvent {
    /// See [`RoundStarted`].
    RoundStarted(RoundStarted),
    /// See [`RoundCompleted`].
    RoundCompleted(RoundCompleted),
}

crate::tagged::tagged_events!(ShootoutEvent {
    RoundStarted => "round_started",
    RoundCompleted => "round_completed",
});

/// A round starts with these entries: seating draws them onto the round's tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RoundStarted {
    /// 1 for the first.
    pub round: u32,
    /// Its entries.
    pub entries: Vec<EntryNo>,
    /// When.
    pub at: DateTime<Utc>,
}

/// Every table of the round has its winners.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RoundCompleted {
    /// The round.
    pub round: u32,
    /// Who advances.
    pub advancing: Vec<EntryNo>,
    /// When.
    pub at: DateTime<Utc>,
}
