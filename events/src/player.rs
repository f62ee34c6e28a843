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

/// Tournament-count limits; `None` means no limit for that window. Windows are rolling: a day is
/// the 24 hours before the registration, a week 7 days, a month 30 days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntryLimits {
    /// Tournaments per rolling 24 hours.
    #[serde(default)]
    pub per_day: Option<u32>,
    /// Tournaments per rolling 7 days.
    #[serde(default)]
    pub per_week: Option<u32>,
    /// Tournaments per rolling 30 days.
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

/// The player's limits changed.
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
