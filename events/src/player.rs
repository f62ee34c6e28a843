//! The player aggregate: responsible-gaming limits on how many tournaments a player enters per
//! day, week and month (002 §2.3), kept on `floor.ev.player.<uuid v5 of the player id>`.
//!
//! A tournament counts once, when the player's first entry into it is accepted; re-entries and
//! further play in a tournament already counted never hit the limit ("a tournament entered before
//! a limit was hit can be finished").

use crate::ids::{CommandId, PlayerId, TournamentId};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Tournament-count limits; `None` means no limit for that window. How they count depends on the
/// tournament's rulebook: under svenska-spel-2012 (002 §2.3) per calendar day, calendar week
/// (Monday to Sunday) and calendar month in Swedish time, a raise applying from the next period
/// and a lowering at once, and all three must be set before a tournament; under the others the
/// windows are rolling (a day is the 24 hours before the registration, a week 7 days, a month 30
/// days) and a change applies at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntryLimits {
    /// Tournaments per day (rolling 24 hours, or a calendar day under svenska-spel-2012).
    #[serde(default)]
    pub per_day: Option<u32>,
    /// Tournaments per week (rolling 7 days, or a calendar week under svenska-spel-2012).
    #[serde(default)]
    pub per_week: Option<u32>,
    /// Tournaments per month (rolling 30 days, or a calendar month under svenska-spel-2012).
    #[serde(default)]
    pub per_month: Option<u32>,
}

/// Set (or lift, with all `None`) a player's own limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetPlayerLimits {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The player.
    pub player: PlayerId,
    /// The new limits.
    pub limits: EntryLimits,
}

/// The player aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PlayerEvent {
    /// See [`PlayerLimitsSet`].
    PlayerLimitsSet(PlayerLimitsSet),
    /// See [`TournamentCounted`].
    TournamentCounted(TournamentCounted),
    /// See [`TournamentUncounted`].
    TournamentUncounted(TournamentUncounted),
}

/// The player's limits changed (under svenska-spel-2012 a raise takes effect from the next
/// period of its kind).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlayerLimitsSet {
    /// Who.
    pub player: PlayerId,
    /// The limits now in force.
    pub limits: EntryLimits,
    /// When.
    pub at: DateTime<Utc>,
}

/// A tournament now counts against the player's limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TournamentCounted {
    /// Who.
    pub player: PlayerId,
    /// Which tournament.
    pub tournament_id: TournamentId,
    /// When (the registration's time; windows are measured from it).
    pub at: DateTime<Utc>,
}

/// A counted tournament no longer counts: the registration it was counted for was refused or
/// withdrawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TournamentUncounted {
    /// Who.
    pub player: PlayerId,
    /// Which tournament.
    pub tournament_id: TournamentId,
    /// When.
    pub at: DateTime<Utc>,
}
