//! The blind-level clock: structures, director commands and the clock aggregate's events
//! (`floor.ev.clock.<tournament_id>`).
//!
//! Spec: `../shared/spec/README.md` §4; TDA R23 (a new level applies from the next hand), RP-7
//! (push held 90 s before a break or level change).

use crate::money::non_negative;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One blind level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Level {
    /// Small blind.
    #[serde(deserialize_with = "non_negative")]
    pub small_blind: u64,
    /// Big blind.
    #[serde(deserialize_with = "non_negative")]
    pub big_blind: u64,
    /// Ante per player, or the big-blind ante when `big_blind_ante`.
    #[serde(default, deserialize_with = "non_negative")]
    pub ante: u64,
    /// The big blind posts the ante for the table (TDA RP-11).
    #[serde(default)]
    pub big_blind_ante: bool,
    /// Length in seconds.
    pub seconds: u32,
}

/// A step of a structure: a level or a break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Step {
    /// Play at these blinds.
    Level(Level),
    /// No play.
    Break {
        /// Length in seconds.
        seconds: u32,
        /// Chips of this denomination and below are raced off (TDA R24).
        #[serde(default)]
        color_up: Option<u64>,
    },
}

impl Step {
    /// Length in seconds.
    pub fn seconds(&self) -> u32 {
        match self {
            Step::Level(l) => l.seconds,
            Step::Break { seconds, .. } => *seconds,
        }
    }
}

/// A tournament's blind structure and the windows tied to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Structure {
    /// Levels and breaks in order. After the last step, the last level continues.
    pub steps: Vec<Step>,
    /// Late registration and re-entry close at the end of this level (1-based level number).
    #[serde(default)]
    pub late_registration_levels: Option<u32>,
    /// The rebuy period ends at this break (1-based break number); the add-on is offered then.
    #[serde(default)]
    pub rebuys_until_break: Option<u32>,
    /// Hold the push this many seconds before a level change or break (RP-7 suggests 90).
    #[serde(default)]
    pub push_hold_seconds: u32,
}

/// The clock aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClockEvent {
    /// The clock got its structure.
    StructureSet {
        /// The structure.
        structure: Structure,
    },
    /// A step (level or break) began; it ends at `ends_at` unless the director changes it.
    StepStarted {
        /// Index into the structure's steps (0-based).
        step: u32,
        /// Level number (1-based) for a level, break number for a break.
        number: u32,
        /// When it began.
        at: DateTime<Utc>,
        /// When it is due to end.
        ends_at: DateTime<Utc>,
        /// Why: the timer, a skip, or a break ended early.
        cause: StepCause,
    },
    /// The director paused the clock.
    Paused {
        /// When.
        at: DateTime<Utc>,
        /// Milliseconds left in the step.
        remaining_ms: u64,
        /// Why (director's words), for the audit trail.
        reason: String,
    },
    /// The director resumed it.
    Resumed {
        /// When.
        at: DateTime<Utc>,
        /// The step now ends then.
        ends_at: DateTime<Utc>,
    },
    /// The director added (or, negative, removed) time in the current step.
    TimeAdjusted {
        /// Seconds added; negative removes.
        seconds: i64,
        /// When.
        at: DateTime<Utc>,
    },
    /// Late registration and re-entry are closed from now on.
    LateRegistrationClosed {
        /// When.
        at: DateTime<Utc>,
    },
    /// The rebuy period is over; the add-on is offered during this break.
    RebuyPeriodEnded {
        /// When.
        at: DateTime<Utc>,
    },
}

/// Why a step began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepCause {
    /// The clock started.
    Start,
    /// The previous step's time ran out.
    Timer,
    /// The director skipped to it.
    Skip,
    /// The director ended a break early.
    BreakEndedEarly,
}
