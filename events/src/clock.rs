//! The blind-level clock: structures, director commands and the clock aggregate's events
//! (`floor.ev.clock.<tournament_id>`).
//!
//! Spec: `../shared/spec/README.md` §4; TDA R23 (a new level applies from the next hand), RP-7
//! (push held 90 s before a break or level change).

use crate::ids::{CommandId, TournamentId};
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

/// Structure families (003: turbo levels of 5–6 minutes against 10–15; 004 §4.36.7–10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// 15-minute levels.
    Standard,
    /// 6-minute levels.
    Turbo,
    /// 3-minute levels.
    HyperTurbo,
    /// 20-minute levels.
    DeepStack,
    /// The standard starting blinds with 10-minute levels, for a smaller starting stack
    /// (004 §4.36.8: "s nižším počtem hracích žetonů při zachování počáteční výše Blinds", fewer
    /// chips with the starting blinds kept).
    ShortStack,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 5] = [Preset::Standard, Preset::Turbo, Preset::HyperTurbo, Preset::DeepStack, Preset::ShortStack];
}

/// The blind structure a tournament names in its definition: a preset or its own steps.
///
/// In TOML: `structure = { preset = "turbo" }`, or a `[structure.custom]` table with `steps`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BlindStructure {
    /// One of the presets.
    Preset(Preset),
    /// The tournament's own structure.
    Custom(Structure),
}

/// Verbs of the clock service: `floor.cmd.clock.<verb>`.
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// Give a clock its blind structure.
    pub const SET_STRUCTURE: Verb<SetStructure, ClockRecorded> = Verb::new(service::CLOCK, "set_structure");
    /// Start the clock.
    pub const START: Verb<ClockRequest, ClockRecorded> = Verb::new(service::CLOCK, "start");
    /// Pause the clock, with a reason shown to players.
    pub const PAUSE: Verb<PauseClock, ClockRecorded> = Verb::new(service::CLOCK, "pause");
    /// Resume a paused clock.
    pub const RESUME: Verb<ClockRequest, ClockRecorded> = Verb::new(service::CLOCK, "resume");
    /// Add (or take) time from the current step.
    pub const ADJUST_TIME: Verb<AdjustTime, ClockRecorded> = Verb::new(service::CLOCK, "adjust_time");
    /// Jump to a level.
    pub const SKIP_TO_LEVEL: Verb<SkipToLevel, ClockRecorded> = Verb::new(service::CLOCK, "skip_to_level");
    /// End the current break early.
    pub const END_BREAK: Verb<ClockRequest, ClockRecorded> = Verb::new(service::CLOCK, "end_break");
}

/// A clock command that needs nothing but the tournament: start, resume, end a break.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockRequest {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
}

/// Give (or replace, before the start) a tournament's structure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetStructure {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The structure.
    pub structure: BlindStructure,
}

/// Pause the clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PauseClock {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Why, for the audit trail and the players.
    #[serde(default)]
    pub reason: String,
}

/// Add time to the current level or break; negative removes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdjustTime {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Seconds to add; negative removes.
    pub seconds: i64,
}

/// Jump to a level (1-based level number).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkipToLevel {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The level number, from 1.
    pub level: u32,
}

/// Reply to every clock verb: the events the command stored (none when it changed nothing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClockRecorded {
    /// The events, in order.
    pub events: Vec<ClockEvent>,
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
        /// The blinds from the next hand on, for a level; absent for a break. Carried so tables
        /// and the lobby need not look the structure up.
        #[serde(default)]
        blinds: Option<Level>,
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
    /// Dealers hold the push: no new hand starts at any table until `until` (the scheduled
    /// level change or break) or the clock's next event, whichever comes first (TDA RP-7).
    PushHeld {
        /// The step whose end is near (0-based).
        step: u32,
        /// When the hold began: `push_hold_seconds` before the step's end.
        at: DateTime<Utc>,
        /// The step's scheduled end.
        until: DateTime<Utc>,
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
    /// The tournament is over (its winner is known) or cancelled (before its start, or in play:
    /// issue 33): the clock stops for good, no step starts after it and no director command
    /// changes it.
    Stopped {
        /// When.
        at: DateTime<Utc>,
    },
    /// Play is suspended (the abort aggregate's `suspended`, issue 33): the clock is held. Only
    /// the resume of play ([`ClockEvent::PlayResumed`]) starts it again; a director's resume,
    /// skip, end of break or start is refused meanwhile (`tournament_suspended`). A running
    /// clock is paused in the same commit, just before it (`paused`, reason "suspended: …");
    /// a clock paused already, or not started, stays as it is.
    PlaySuspended {
        /// When play stopped.
        at: DateTime<Utc>,
        /// This commit paused the clock (it was running): the resume of play resumes it. A
        /// clock a director had paused before the suspension stays paused after it.
        paused_clock: bool,
    },
    /// Play resumed: the hold is over. A clock the suspension paused is resumed in the same
    /// commit, just before it (`resumed`).
    PlayResumed {
        /// When play started again.
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
