//! The seating aggregate's events (`floor.ev.seating.<tournament_id>`): who sits where, every
//! report a table sent (accepted or rejected), every move with its reason, and every
//! instruction to a table, numbered per table. The instructions are published to the tables
//! from these events (an outbox), so an instruction is never sent that the log does not hold,
//! and never lost once the log holds it.

use crate::ids::{EntryNo, PlayerId, TournamentId};
use crate::shootouts::{RoundStacks, ShortField};
use crate::table::{BustReport, SeatNo, SeatStack, TableInstruction};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An entry at a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatedEntry {
    /// The seat, from 1.
    pub seat: SeatNo,
    /// The entry.
    pub entry: EntryNo,
}

/// One table of the start-of-play draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DrawnTable {
    /// The table number, from 1.
    pub table: u32,
    /// Who sits where.
    pub seats: Vec<SeatedEntry>,
}

/// Why a player moved, with the numbers that justified it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MoveReason {
    /// Balancing (TDA R11): players at the source and destination tables before the move.
    Balance {
        /// Players at the source table before the move.
        from_count: u32,
        /// Players at the destination table before the move.
        to_count: u32,
    },
    /// The source table broke (TDA R10-B).
    Break {
        /// Players left in the tournament.
        players_left: u32,
        /// Tables those players need.
        tables_needed: u32,
    },
    /// Tables combined into the final table (RP-9).
    FinalTable {
        /// Players left.
        players_left: u32,
        /// Seats at the final table.
        seats: u32,
    },
}

/// The seating aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SeatingEvent {
    /// Seats per table for this tournament.
    SeatingConfigured {
        /// The tournament.
        tournament_id: TournamentId,
        /// Seats per table.
        table_size: u8,
        /// Chips each entry starts with.
        starting_stack: u64,
        /// The tournament has rebuys: while the rebuy period lasts, a stack that reaches zero
        /// keeps its seat until the rebuys service decides.
        #[serde(default)]
        rebuys: bool,
        /// The balancing rules (the definition's, on top of its profile's). Absent in logs
        /// stored before a tournament could choose: balancing within one, the player due the
        /// big blind moving ([`crate::profile::SeatingRules::WITHIN_ONE`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        balancing: Option<crate::profile::SeatingRules>,
    },
    /// The rebuy period is over: a stack that reaches zero from now on is out at once.
    RebuysEnded,
    /// Chips bought (rebuy or add-on) for an entry, on their way to its table.
    ChipsBought {
        /// The entry.
        entry: EntryNo,
        /// Chips.
        chips: u64,
    },
    /// The table applied `add_chips`: the entry's stack holds them from its next hand.
    ChipsAtTable {
        /// The entry.
        entry: EntryNo,
        /// Chips.
        chips: u64,
    },
    /// An entry will need a seat.
    EntryJoined {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// Its chips.
        stack: u64,
    },
    /// An entry was withdrawn before the draw.
    EntryLeft {
        /// The entry.
        entry: EntryNo,
    },
    /// The seed of the start-of-play draw is fixed: its SHA-256, published before the draw.
    DrawCommitted {
        /// SHA-256 of the seed, hex.
        commitment: String,
    },
    /// The start-of-play draw, or the next part of a large one (a draw is stored in parts of at
    /// most 100 tables, each one NATS message); the seed is revealed, so anyone can recompute it.
    TablesDrawn {
        /// The seed, hex; its SHA-256 is the earlier commitment.
        seed: String,
        /// Tables in the whole draw.
        #[serde(default)]
        total_tables: u32,
        /// The tables of this part.
        tables: Vec<DrawnTable>,
        /// When.
        at: DateTime<Utc>,
    },
    /// A late entry took a seat.
    EntrySeated {
        /// The entry.
        entry: EntryNo,
        /// The table.
        table: u32,
        /// The seat.
        seat: SeatNo,
        /// Dealt in only once the button has passed (TDA R8-A, R10-A).
        wait_for_button: bool,
        /// The seed of the seat's draw, hex (TDA R8-A: a random open seat at a table balancing
        /// allows; the procedure is `floor_seating::draw::late_seat`), revealed so anyone can
        /// recompute it. Absent when a new table was opened for the entry (seat 1), and in logs
        /// stored before late seats were drawn (issue 38: the worst seat at the shortest table).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed: Option<String>,
    },
    /// A table opened (late registration) or grew (the final table).
    TableOpened {
        /// The table.
        table: u32,
        /// Its seats.
        seats: u8,
    },
    /// A table reported a hand's start, and it fitted.
    HandStarted {
        /// The table.
        table: u32,
        /// The hand.
        hand: u64,
        /// The button.
        button: SeatNo,
        /// Everyone dealt in, chips before the blinds.
        stacks: Vec<SeatStack>,
        /// Hand-for-hand: a deal that crossed the hold (the table was between hands when
        /// `hold_for_deal` was sent, and this deal does not answer a `deal_hand`). It uses no
        /// `deal_hand`; the hand-for-hand hand it belongs to is the bubble's to say.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        crossing: bool,
    },
    /// A table reported a hand's end, and it fitted.
    HandFinished {
        /// The table.
        table: u32,
        /// The hand.
        hand: u64,
        /// Everyone with chips after the hand.
        stacks: Vec<SeatStack>,
        /// Stacks that reached zero.
        busts: Vec<BustReport>,
    },
    /// A report did not fit and changed nothing.
    ReportRejected {
        /// The table.
        table: u32,
        /// The table server's report id.
        report_id: String,
        /// Stable code.
        code: String,
        /// Why.
        reason: String,
    },
    /// A stack reached zero at the table (in a rebuy tournament the player may still rebuy).
    StackReachedZero {
        /// The entry.
        entry: EntryNo,
        /// The table.
        table: u32,
        /// The hand.
        hand: u64,
        /// Its chips when the hand started (ranks simultaneous busts).
        stack_at_start: u64,
    },
    /// The entry is out of the tournament.
    EntryEliminated {
        /// The entry.
        entry: EntryNo,
        /// Players still in after it.
        players_left: u32,
        /// Its chips when the hand in which it reached zero started, when that hand was
        /// recorded in an earlier commit (a rebuy offer came between); absent when the
        /// `stack_reached_zero` is in the same commit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stack_at_start: Option<u64>,
        /// The table it busted at, likewise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        table: Option<u32>,
    },
    /// A player moves to another seat (applied by the source table at its next hand boundary).
    PlayerMoved {
        /// Who.
        entry: EntryNo,
        /// From table.
        from_table: u32,
        /// From seat.
        from_seat: SeatNo,
        /// To table.
        to_table: u32,
        /// To seat.
        to_seat: SeatNo,
        /// Dealt in only once the button has passed.
        wait_for_button: bool,
        /// Why.
        reason: MoveReason,
    },
    /// The source table has let a moving player go; the destination seats them now.
    MoveConfirmed {
        /// Who.
        entry: EntryNo,
    },
    /// A table closed (broken, or the tournament is over).
    TableClosed {
        /// The table.
        table: u32,
    },
    /// Blinds from the next hand on, at every table.
    BlindsSet {
        /// Level number.
        level: u32,
        /// Small blind.
        small_blind: u64,
        /// Big blind.
        big_blind: u64,
        /// Ante.
        ante: u64,
        /// Big-blind ante.
        big_blind_ante: bool,
    },
    /// An instruction to a table, numbered per table: the outbox publishes it.
    Instructed {
        /// The instruction.
        instruction: TableInstruction,
    },
    /// One player has all the chips.
    TournamentWon {
        /// The winning entry.
        entry: EntryNo,
    },
    /// The tournament is a shootout (issue 37, 003 App. 1 b ii, 004 §4.36.3): its tables are
    /// never balanced or broken; each table of a round plays until `advance` players are left
    /// ([`SeatingEvent::TableWon`]), and the winners are drawn afresh onto the next round's
    /// tables ([`SeatingEvent::RoundDrawn`]). Recorded with `seating_configured`.
    ShootoutConfigured {
        /// Players who advance from each table of a round that is not the last.
        advance: u32,
        /// Whether a round's players keep the stacks they won with, or start afresh.
        stacks: RoundStacks,
        /// A field that does not fill the first round's tables: uneven tables, or byes.
        #[serde(default)]
        short_field: ShortField,
    },
    /// A shootout's first-round byes (issue 37, `short_field = "byes"`): the players over the
    /// full first-round tables, drawn with the start-of-play draw's seed (revealed in the
    /// `tables_drawn` that follows), go straight to round 2. Procedure (the audit recomputes
    /// exactly this): the field in entry order, shuffled by ChaCha20 seeded with SHA-256 of
    /// `"byes"` and the seed's 32 bytes; the first `field mod table size` are the byes; the
    /// others are drawn onto full tables as any start-of-play draw.
    ByesDrawn {
        /// The entries given a bye, in entry order.
        entries: Vec<EntryNo>,
    },
    /// The seed of a shootout round's draw is fixed (issue 37): its SHA-256, published when the
    /// round before starts, before anyone knows who will play in it.
    RoundDrawCommitted {
        /// The round whose draw it seeds (2 or more: the first is the start-of-play draw).
        round: u32,
        /// SHA-256 of the seed, hex.
        commitment: String,
    },
    /// A shootout round's draw (round 2 or more; the first is `tables_drawn`): the entries the
    /// shootout aggregate's `round_started` names, drawn afresh onto new tables numbered after
    /// every table before. The seed is revealed, so anyone can recompute it; the stacks are in
    /// the `seat_player` instructions.
    RoundDrawn {
        /// The round.
        round: u32,
        /// The seed, hex; its SHA-256 is the round's `round_draw_committed`.
        seed: String,
        /// The round's tables.
        tables: Vec<DrawnTable>,
        /// When.
        at: DateTime<Utc>,
    },
    /// A shootout table of a round that is not the last is down to its winners (`advance`
    /// players, or fewer when simultaneous busts crossed the line): it stops (`close_table`)
    /// and its winners wait for the next round's draw. The last round's single table records
    /// it too, with the tournament's winner.
    TableWon {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// Who is left at it, in seat order.
        winners: Vec<EntryNo>,
    },
}
