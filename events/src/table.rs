//! The table-server protocol: what Floor tells a table, and what a table reports.
//!
//! - Floor → table on `floor.table.<tournament>.<table>.in`: [`TableInstruction`]s, numbered per
//!   table from 1 (`sequence`), so a table server that restarts resumes after the last one it
//!   applied and recognises a duplicate.
//! - Table → Floor on `floor.table.<tournament>.<table>.out`: [`TableReport`]s, published with
//!   `Nats-Msg-Id` = `report_id`, so a report sent twice is stored once.
//!
//! - Floor → table on `floor.table.<tournament>.<table>.rejected`: a [`TableRejection`] for
//!   every report from that table Floor rejected, so a table server learns of it without
//!   reading the tournament's seating log.
//!
//! All three live on a JetStream stream. Seats are numbered from 1; chips are whole numbers.

use crate::ids::{EntryNo, PlayerId, TournamentId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Subject of a table's instructions.
pub fn instructions_subject(tournament: TournamentId, table: u32) -> String {
    format!("floor.table.{tournament}.{table}.in")
}

/// Subject of a table's reports.
pub fn reports_subject(tournament: TournamentId, table: u32) -> String {
    format!("floor.table.{tournament}.{table}.out")
}

/// The `Nats-Msg-Id` a table server publishes a report with: `<tournament>.<table>.<report_id>`
/// (issue 33, defect 4). The stream's duplicate window is one for every tournament and table,
/// and a `report_id` is unique only within its tournament: scoped, two tournaments whose tables
/// number their reports alike can never drop each other's.
pub fn report_message_id(tournament: TournamentId, table: u32, report_id: &str) -> String {
    format!("{tournament}.{table}.{report_id}")
}

/// Subject of the rejections of a table's reports.
pub fn rejections_subject(tournament: TournamentId, table: u32) -> String {
    format!("floor.table.{tournament}.{table}.rejected")
}

/// A seat at a table, from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct SeatNo(pub u8);

/// One instruction to one table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TableInstruction {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The table.
    pub table: u32,
    /// Per-table number, from 1, without gaps.
    pub sequence: u64,
    /// What to do.
    pub instruction: Instruction,
}

/// What a table is told. Seat changes take effect at the next hand boundary, never mid-hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Instruction {
    /// A new table with this many seats.
    OpenTable {
        /// Seats.
        seats: u8,
    },
    /// Seat a player with a stack.
    SeatPlayer {
        /// The entry.
        entry: EntryNo,
        /// Whose entry.
        player: PlayerId,
        /// Where.
        seat: SeatNo,
        /// Chips.
        stack: u64,
        /// The seat lies between the small blind and the button: deal this player in only once
        /// the button has passed (TDA R8-A, R10-A).
        wait_for_button: bool,
    },
    /// Take a player off the table after the current hand.
    RemovePlayer {
        /// The entry.
        entry: EntryNo,
        /// Why.
        reason: Removal,
    },
    /// Blinds and ante from the next hand on (TDA R23).
    Blinds {
        /// Level number.
        level: u32,
        /// Small blind.
        small_blind: u64,
        /// Big blind.
        big_blind: u64,
        /// Ante per player, or the big-blind ante when `big_blind_ante`.
        ante: u64,
        /// The big blind posts the ante for everyone (TDA RP-11).
        big_blind_ante: bool,
    },
    /// Add chips to a player's stack before the next hand: a rebuy or an add-on. A player at
    /// zero chips with a rebuy offered is dealt in again from the next hand (TDA R27).
    AddChips {
        /// The entry.
        entry: EntryNo,
        /// Chips to add.
        chips: u64,
    },
    /// A player at zero chips is offered a rebuy until `until`: keep the seat, and hold the
    /// next hand until Floor sends `add_chips` or `remove_player` for them, or `until` passes, so
    /// nobody misses a hand to rebuy (TDA R27).
    RebuyOffered {
        /// The entry.
        entry: EntryNo,
        /// The offer lapses then.
        until: chrono::DateTime<chrono::Utc>,
    },
    /// Stop dealing after the current hand.
    Pause {
        /// Why, for the players.
        reason: String,
    },
    /// Deal again.
    Resume,
    /// Hand-for-hand: after the current hand, deal only on [`Instruction::DealHand`].
    HoldForDeal,
    /// Hand-for-hand: deal hand `hand` now.
    DealHand {
        /// The hand to deal.
        hand: u64,
    },
    /// The table is finished (broken or the tournament is over).
    CloseTable,
    /// A break of the clock's structure began (spec §4; 003 App. 1 b vii): finish the hand in
    /// play, then deal no hand until the next `blinds` (the level after the break). `ends_at`
    /// is when it is due to end, for the players: a director may end it sooner or add time,
    /// and the `blinds` that follow are what ends it.
    TakeBreak {
        /// The break's number (1 for the first).
        number: u32,
        /// When it is due to end.
        ends_at: chrono::DateTime<chrono::Utc>,
    },
    /// TDA 2024 RP-7: "dealers hold the push 90 s before a scheduled break or level change":
    /// start no new hand until `until` (the level change or break) or the next `blinds`,
    /// `take_break`, `clock_paused` or `clock_resumed`, whichever comes first. A hand in play
    /// is finished.
    HoldPush {
        /// The scheduled end of the step.
        until: chrono::DateTime<chrono::Utc>,
    },
    /// The director paused the clock (spec §4: "pause/resume by the director"): finish the
    /// hand in play, then deal no hand until `clock_resumed`. `reason` is the director's, for
    /// the players.
    ClockPaused {
        /// Why.
        reason: String,
        /// Milliseconds left in the step.
        remaining_ms: u64,
    },
    /// The clock runs again: deal again (unless a `pause`, a hand-for-hand hold or a break
    /// still holds the table). The step now ends at `ends_at`.
    ClockResumed {
        /// When the step now ends.
        ends_at: chrono::DateTime<chrono::Utc>,
    },
}

impl Instruction {
    /// Whether the clock sends it (`take_break`, `hold_push`, `clock_paused`, `clock_resumed`):
    /// each goes to every open table, and the last one in force to a table that opens later.
    pub fn from_clock(&self) -> bool {
        matches!(self, Self::TakeBreak { .. } | Self::HoldPush { .. } | Self::ClockPaused { .. } | Self::ClockResumed { .. })
    }
}

/// Why a player leaves a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Removal {
    /// Moved to another table (balancing, breaking, final table).
    Moved {
        /// Destination table.
        to_table: u32,
        /// Destination seat.
        to_seat: SeatNo,
    },
    /// Out of the tournament.
    Eliminated,
}

/// One report from one table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TableReport {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The table.
    pub table: u32,
    /// The table server's id for this report (also `Nats-Msg-Id`).
    pub report_id: String,
    /// What happened.
    pub report: Report,
}

/// A report Floor rejected, told to the table whose report subject it came on. The same
/// rejection is the `report_rejected` event in the tournament's seating log; nothing else
/// changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TableRejection {
    /// The tournament the report's subject names.
    pub tournament_id: TournamentId,
    /// The table the report's subject names.
    pub table: u32,
    /// The rejected report's `report_id` (`""` when an unreadable body had none).
    pub report_id: String,
    /// Which rule the report broke: a stable code (`hand_out_of_order`, `stack_mismatch`, …).
    pub code: String,
    /// The rule in words, with the numbers (for people; match on `code`).
    pub reason: String,
}

/// What a table reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Report {
    /// A hand began.
    HandStarted {
        /// The table's hand number, rising by one per hand.
        hand: u64,
        /// The button's seat.
        button: SeatNo,
        /// Everyone dealt in, with their chips before the blinds.
        stacks: Vec<SeatStack>,
        /// Hand-for-hand: the `hand` of the `deal_hand` this deal answers. Required for a deal
        /// on a `deal_hand`: a deal without it while held is the one that crossed the hold
        /// (dealt before `hold_for_deal` reached a table between hands), and is refused
        /// (`table_held`) from a table that had a hand in progress at the hold or has dealt
        /// since.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deal_hand: Option<u64>,
    },
    /// A hand ended.
    HandFinished {
        /// The hand.
        hand: u64,
        /// Everyone still seated with chips, after the hand.
        stacks: Vec<SeatStack>,
        /// Players whose stack reached zero in this hand.
        busts: Vec<BustReport>,
    },
    /// An instruction was applied (seat moves confirm here).
    InstructionApplied {
        /// Its sequence number.
        sequence: u64,
    },
}

/// A player's chips in a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatStack {
    /// The seat.
    pub seat: SeatNo,
    /// Who sits there.
    pub entry: EntryNo,
    /// Chips.
    pub chips: u64,
}

/// A stack that reached zero: who had it, and who won its chips, pot by pot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BustReport {
    /// The entry.
    pub entry: EntryNo,
    /// Its chips when the hand started (ranks simultaneous busts).
    pub stack_at_start: u64,
    /// The pots its chips went to; their `chips` sum to `stack_at_start`.
    pub pots: Vec<PotWon>,
    /// In hi/lo games, who had the best high hand (takes a knockout bounty).
    #[serde(default)]
    pub best_high_hand: Option<EntryNo>,
}

/// Chips of a busted player won in one pot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PotWon {
    /// Who won (several for a split pot).
    pub winners: Vec<EntryNo>,
    /// How many of the busted player's chips were in this pot.
    pub chips: u64,
}
