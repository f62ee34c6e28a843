//! Hand-for-hand on the bubble: the settings a tournament runs it under, the director's requests,
//! and the bubble aggregate's events (`floor.ev.bubble.<tournament_id>`).
//!
//! Spec: `../shared/spec/README.md` §5; `practice.md` §1.2 (TDA RP-8) and §1.4 (simultaneous
//! eliminations); 000 §16.8–16.9, 002 §2.3, 004 §4.35.
//!
//! Near the money every table deals its next hand only when every table has finished the
//! current one. The announcement ([`BubbleEvent::HandForHandStarted`]) sends `hold_for_deal` to
//! every table; each finishes the hand it is playing (hand 0, the announcement hand); then hand 1
//! is released to every table together ([`BubbleEvent::HandReleased`], `deal_hand {hand: 1}`),
//! and so on. A hand is complete ([`BubbleEvent::HandCompleted`]) when every table has
//! finished it; its busts, at every table, are one simultaneous group, ranked by the settings.
//! It ends ([`BubbleEvent::HandForHandEnded`]) when the bubble bursts, when one table is left,
//! or when a director stops it; the tables are told `resume`.
//!
//! Hand numbers: `hand` is the hand-for-hand hand (0 = the announcement hand, then 1, 2, …), the
//! same at every table; `table_hand` is the table's own hand number from its reports.

use crate::ids::{CommandId, EntryNo, TournamentId};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most players before the bubble a trigger may name (004 §4.35 leaves the number open).
pub const MAX_PLAYERS_BEFORE: u32 = 1_000;
/// Most seconds the clock may lose per hand-for-hand hand (TDA RP-8 B–D: at most 3 minutes).
pub const MAX_DEDUCTION_SECONDS: u32 = 180;
/// The deduction TDA recommends per hand-for-hand hand (RP-8 B–D: 2 minutes).
pub const RECOMMENDED_DEDUCTION_SECONDS: u32 = 120;

/// Verbs of the bubble service: `floor.cmd.bubble.<verb>` (the director's).
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// The director starts hand-for-hand now (the announcement).
    pub const START: Verb<BubbleRequest, BubbleRecorded> = Verb::new(service::BUBBLE, "start");
    /// The director ends hand-for-hand now: every table deals freely again.
    pub const STOP: Verb<BubbleRequest, BubbleRecorded> = Verb::new(service::BUBBLE, "stop");
    /// The director stops waiting for slow or silent tables: the hand completes without them.
    pub const RELEASE_WITHOUT: Verb<ReleaseWithout, BubbleRecorded> = Verb::new(service::BUBBLE, "release_without");
    /// The director holds the next release (every table keeps holding).
    pub const PAUSE: Verb<PauseBubble, BubbleRecorded> = Verb::new(service::BUBBLE, "pause");
    /// The director lets releases go on again.
    pub const RESUME: Verb<BubbleRequest, BubbleRecorded> = Verb::new(service::BUBBLE, "resume");
}

/// A director's request on one tournament's bubble.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BubbleRequest {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
}

/// Complete the current hand without waiting for these tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseWithout {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The tables not waited for; empty: every table that still owes the hand.
    #[serde(default)]
    pub tables: Vec<u32>,
}

/// Hold the next release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PauseBubble {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Why, for the players and the audit trail (bounded like a clock pause's reason).
    #[serde(default)]
    pub reason: String,
}

/// The reply to every bubble verb: the events the command stored (none when it changed nothing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BubbleRecorded {
    /// The events, in order.
    pub events: Vec<BubbleEvent>,
}

// ---------------------------------------------------------------------------------------------
// Settings.

/// When hand-for-hand starts on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Trigger {
    /// When the players left are at most the boundary plus `players`: 1 under TDA practice, 2
    /// under 002 §2.3 ("one or two more than the prizes"), a configured number under 004 §4.35.
    PlayersBeforeBubble {
        /// Players above the boundary, 1 to [`MAX_PLAYERS_BEFORE`].
        players: u32,
    },
    /// Never on its own: only a director starts it.
    Director,
}

/// The bubble: the number of players left at which it bursts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Boundary {
    /// The money: the places the payout table pays.
    #[default]
    Money,
    /// A number of players left: a satellite's seats, or a pay jump the director chose.
    PlayersLeft {
        /// Players left when it bursts, at least 1.
        players: u32,
    },
}

/// The clock while hand-for-hand lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HandForHandClock {
    /// The clock runs as usual.
    Normal,
    /// TDA RP-8 B–D: the clock stops while hand-for-hand lasts and loses `seconds` per hand
    /// played, hand by hand (120 recommended, at most [`MAX_DEDUCTION_SECONDS`]).
    Deduct {
        /// Seconds taken off the clock per hand-for-hand hand.
        seconds: u32,
    },
}

/// How busts of the same hand-for-hand hand at different tables are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AcrossTables {
    /// By chips at the start of the hand, as if at one table (PokerStars, WPT Gold).
    ByStack,
    /// They tie and split the places' prizes (WSOP 2011, as announced).
    Tie,
}

/// How equal starting stacks are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EqualStacks {
    /// They share the places and split their prizes (PokerStars).
    Split,
    /// The first seat left of the button finishes ahead (Natural8).
    SeatOrder,
}

/// The ordering of simultaneous eliminations (`practice.md` §1.4). At one table every source
/// orders by chips at the start of the hand, so only these two axes are settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EliminationOrdering {
    /// Busts at different tables in the same hand-for-hand hand.
    pub across_tables: AcrossTables,
    /// Equal starting stacks.
    pub equal_stacks: EqualStacks,
}

/// A tournament's own hand-for-hand settings (`hand_for_hand` in its definition). What it leaves
/// out comes from the rule profile ([`crate::RuleProfile::hand_for_hand`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandForHandSettings {
    /// When it starts.
    #[serde(default)]
    pub trigger: Option<Trigger>,
    /// Where the bubble is.
    #[serde(default)]
    pub boundary: Option<Boundary>,
    /// The clock meanwhile.
    #[serde(default)]
    pub clock: Option<HandForHandClock>,
    /// How simultaneous busts rank.
    #[serde(default)]
    pub ordering: Option<EliminationOrdering>,
}

/// The hand-for-hand hand that is the one each table was playing when hand-for-hand was
/// announced: its busts share their places (TDA RP-8 A).
pub const ANNOUNCEMENT_HAND: u64 = 0;

/// The settings in force: the profile's, with the tournament's own on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HandForHandRules {
    /// When it starts.
    pub trigger: Trigger,
    /// Where the bubble is.
    pub boundary: Boundary,
    /// The clock meanwhile.
    pub clock: HandForHandClock,
    /// How simultaneous busts rank.
    pub ordering: EliminationOrdering,
}

impl HandForHandRules {
    /// These rules with `own`'s settings on top.
    pub fn with(self, own: Option<HandForHandSettings>) -> Self {
        let Some(own) = own else { return self };
        Self {
            trigger: own.trigger.unwrap_or(self.trigger),
            boundary: own.boundary.unwrap_or(self.boundary),
            clock: own.clock.unwrap_or(self.clock),
            ordering: own.ordering.unwrap_or(self.ordering),
        }
    }
}

impl HandForHandSettings {
    /// Checks the bounds: players before the bubble 1–[`MAX_PLAYERS_BEFORE`], a boundary of at
    /// least one player, a deduction of 1–[`MAX_DEDUCTION_SECONDS`] seconds (TDA RP-8).
    ///
    /// # Errors
    /// Why, for a definition's `invalid_definition` on `hand_for_hand`.
    pub fn check(&self) -> Result<(), String> {
        if let Some(Trigger::PlayersBeforeBubble { players }) = self.trigger {
            if !(1..=MAX_PLAYERS_BEFORE).contains(&players) {
                return Err(format!("trigger: players before the bubble must be 1-{MAX_PLAYERS_BEFORE}, got {players}"));
            }
        }
        if let Some(Boundary::PlayersLeft { players: 0 }) = self.boundary {
            return Err("boundary: the bubble bursts with at least 1 player left".into());
        }
        if let Some(HandForHandClock::Deduct { seconds }) = self.clock {
            if !(1..=MAX_DEDUCTION_SECONDS).contains(&seconds) {
                return Err(format!(
                    "clock: the deduction must be 1-{MAX_DEDUCTION_SECONDS} seconds per hand (TDA RP-8: at most 3 minutes), got {seconds}"
                ));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Events.

/// Why hand-for-hand started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StartCause {
    /// The players left reached the trigger.
    Trigger,
    /// A director started it.
    Director,
}

/// Why hand-for-hand ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndCause {
    /// The bubble burst: players left ≤ the boundary.
    Burst,
    /// One table is left: every hand is in step by itself (002 §2.3).
    OneTable,
    /// A director stopped it.
    Director,
}

/// A player out in a hand-for-hand hand, as the table reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HandBust {
    /// The entry.
    pub entry: EntryNo,
    /// The table.
    pub table: u32,
    /// Chips at the start of the hand (ranks simultaneous busts).
    pub stack_at_start: u64,
    /// Seat order for the hand: 0 for the first seat left of the button, and so on (Natural8's
    /// tie-break, and the remainder rule's).
    pub seat_order: u32,
}

/// A player's finishing place in a hand-for-hand hand: places `place ..= place + shared - 1`,
/// shared with the others in the same range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Placed {
    /// The bust.
    pub bust: HandBust,
    /// Best place of the range (1 = winner).
    pub place: u32,
    /// How many share the range (1 = alone): their prizes are summed and split.
    pub shared: u32,
}

/// The bubble aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BubbleEvent {
    /// The tournament's settings.
    BubbleConfigured {
        /// The tournament.
        tournament_id: TournamentId,
        /// The settings in force.
        rules: HandForHandRules,
    },
    /// Hand-for-hand is announced: every table finishes the hand it is playing (hand 0), then
    /// holds (`hold_for_deal`). Players out in hand 0 share their places (RP-8 A).
    HandForHandStarted {
        /// Why.
        cause: StartCause,
        /// Players left at the announcement.
        players_left: u32,
        /// Players left at which the bubble bursts (0 for a director's start past the bubble: it
        /// ends only by the director or at one table).
        boundary: u32,
        /// The tables in play, all told to hold.
        tables: Vec<u32>,
        /// Those with a hand in progress: each owes hand 0. The others hold at once.
        dealing: Vec<u32>,
        /// When.
        at: DateTime<Utc>,
    },
    /// A table began its hand-for-hand hand.
    TableDealt {
        /// The table.
        table: u32,
        /// The hand-for-hand hand.
        hand: u64,
        /// The table's own hand number for it.
        table_hand: u64,
        /// A deal that crossed the hold, read after the announcement hand was complete: a late
        /// announcement hand, its busts placed as a group of their own; the table still owes
        /// every hand released to it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        crossing: bool,
        /// When.
        at: DateTime<Utc>,
    },
    /// A table finished its hand-for-hand hand and holds.
    TableFinished {
        /// The table.
        table: u32,
        /// The hand-for-hand hand.
        hand: u64,
        /// The table's own hand number.
        table_hand: u64,
        /// Players out in it.
        busts: Vec<HandBust>,
        /// The director had stopped waiting for it: its busts are a group of their own.
        late: bool,
        /// When.
        at: DateTime<Utc>,
    },
    /// The director stopped waiting for these tables for `hand`.
    TablesExcused {
        /// The hand.
        hand: u64,
        /// The tables.
        tables: Vec<u32>,
        /// When.
        at: DateTime<Utc>,
    },
    /// A table closed (broken or the tournament over): it owes nothing.
    TableLeft {
        /// The table.
        table: u32,
    },
    /// Every table finished hand `hand` (or was excused): its busts are ranked as one group.
    HandCompleted {
        /// The hand-for-hand hand.
        hand: u64,
        /// Players left before its busts.
        players_left_before: u32,
        /// Its busts with their places, best place first (the remainder order within a shared
        /// range).
        placed: Vec<Placed>,
        /// When.
        at: DateTime<Utc>,
    },
    /// A late table's busts (a table the director stopped waiting for), ranked as one group.
    LateBustsPlaced {
        /// The hand-for-hand hand they were out in.
        hand: u64,
        /// Players left before them.
        players_left_before: u32,
        /// Their places.
        placed: Vec<Placed>,
    },
    /// Hand `hand` is released: `deal_hand {hand}` to these tables, together.
    HandReleased {
        /// The hand-for-hand hand.
        hand: u64,
        /// The tables, each owing it.
        tables: Vec<u32>,
        /// When.
        at: DateTime<Utc>,
    },
    /// The director holds the next release.
    Paused {
        /// Why.
        reason: String,
        /// When.
        at: DateTime<Utc>,
    },
    /// Releases go on again.
    Resumed {
        /// When.
        at: DateTime<Utc>,
    },
    /// Hand-for-hand is over: every table deals freely again (`resume`).
    HandForHandEnded {
        /// Why.
        cause: EndCause,
        /// Players left.
        players_left: u32,
        /// When.
        at: DateTime<Utc>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tournament_s_own_settings_override_only_what_they_name() {
        let profile = crate::RuleProfile::Tda2024.hand_for_hand();
        let own = HandForHandSettings { trigger: Some(Trigger::PlayersBeforeBubble { players: 5 }), ..Default::default() };
        let rules = profile.with(Some(own));
        assert_eq!(rules.trigger, Trigger::PlayersBeforeBubble { players: 5 });
        assert_eq!((rules.boundary, rules.clock, rules.ordering), (profile.boundary, profile.clock, profile.ordering));
        assert_eq!(profile.with(None), profile);
    }

    #[test]
    fn settings_out_of_bounds_are_refused() {
        let bad = [
            HandForHandSettings { trigger: Some(Trigger::PlayersBeforeBubble { players: 0 }), ..Default::default() },
            HandForHandSettings { trigger: Some(Trigger::PlayersBeforeBubble { players: 1_001 }), ..Default::default() },
            HandForHandSettings { boundary: Some(Boundary::PlayersLeft { players: 0 }), ..Default::default() },
            HandForHandSettings { clock: Some(HandForHandClock::Deduct { seconds: 0 }), ..Default::default() },
            HandForHandSettings { clock: Some(HandForHandClock::Deduct { seconds: 181 }), ..Default::default() },
        ];
        for s in bad {
            assert!(s.check().is_err(), "{s:?}");
        }
        let ok = HandForHandSettings {
            trigger: Some(Trigger::Director),
            boundary: Some(Boundary::PlayersLeft { players: 3 }),
            clock: Some(HandForHandClock::Deduct { seconds: 180 }),
            ordering: Some(EliminationOrdering { across_tables: AcrossTables::Tie, equal_stacks: EqualStacks::SeatOrder }),
        };
        assert_eq!(ok.check(), Ok(()));
    }

    #[test]
    fn settings_read_from_toml_shaped_json() {
        let json = r#"{"trigger": {"kind": "players_before_bubble", "players": 2},
                       "clock": {"kind": "deduct", "seconds": 120},
                       "ordering": {"across_tables": "tie", "equal_stacks": "split"}}"#;
        let s: HandForHandSettings = serde_json::from_str(json).unwrap();
        assert_eq!(s.trigger, Some(Trigger::PlayersBeforeBubble { players: 2 }));
        assert_eq!(s.boundary, None);
        assert!(serde_json::from_str::<HandForHandSettings>(r#"{"trigers": null}"#).is_err(), "unknown fields are refused");
    }
}
