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

/// How long a player shuts themselves out of every tournament (002 §2.3: "i tolv timmar, en
/// vecka, en månad, tre månader, sex månader eller ett år").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExclusionPeriod {
    /// Twelve hours.
    TwelveHours,
    /// A week (7 days).
    OneWeek,
    /// A calendar month from now.
    OneMonth,
    /// Three calendar months.
    ThreeMonths,
    /// Six calendar months.
    SixMonths,
    /// A year (twelve calendar months).
    OneYear,
}

impl ExclusionPeriod {
    /// When an exclusion from `at` ends; `None` past the calendar's end.
    pub fn until(self, at: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let months = |n| at.checked_add_months(chrono::Months::new(n));
        match self {
            Self::TwelveHours => at.checked_add_signed(chrono::Duration::hours(12)),
            Self::OneWeek => at.checked_add_signed(chrono::Duration::days(7)),
            Self::OneMonth => months(1),
            Self::ThreeMonths => months(3),
            Self::SixMonths => months(6),
            Self::OneYear => months(12),
        }
    }
}

/// A player shuts themselves out of every tournament for `period`, at once (002 §2.3: "frivilligt
/// och med omedelbar verkan stänga av sig själv från allt pokerspel"). Nobody can lift it before
/// it ends; a longer one extends it. Under every rulebook: it is the player's own choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExcludePlayer {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The player.
    pub player: PlayerId,
    /// For how long.
    pub period: ExclusionPeriod,
}

/// The player aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PlayerEvent {
    /// See [`PlayerLimitsSet`].
    PlayerLimitsSet(PlayerLimitsSet),
    /// See [`PlayerExcluded`].
    PlayerExcluded(PlayerExcluded),
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

/// The player shut themselves out of every tournament until `until`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlayerExcluded {
    /// Who.
    pub player: PlayerId,
    /// The period chosen.
    pub period: ExclusionPeriod,
    /// Registration refuses them until then.
    pub until: DateTime<Utc>,
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
