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
use crate::tournament::{DefinitionError, Start, TournamentDefinition};
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
}

fn one() -> u32 {
    1
}

/// A field that does not fill the first round's tables (004 §4.36.3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShortField {
    /// Tables as even as the draw can make them (004: uneven first-round tables).
    #[default]
    Uneven,
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
