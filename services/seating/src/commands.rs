//! What the seating aggregate is asked to do, and why it says no. (A table report that does
//! not fit is not an error: the aggregate records it as `report_rejected`.)

use crate::draw::Seed;
use chrono::{DateTime, Utc};
use floor_events::shootouts::ShootoutTerms;
use floor_events::table::TableReport;
use floor_events::{codes, EntryNo, PlayerId, TournamentId};

/// What seating is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatingCommand {
    /// Set the tournament and its table size (at creation).
    Configure {
        /// The tournament.
        tournament_id: TournamentId,
        /// Seats per table.
        table_size: u8,
        /// Chips each entry starts with.
        starting_stack: u64,
        /// The tournament has rebuys: a stack that reaches zero keeps its seat until
        /// [`SeatingCommand::Eliminate`] or [`SeatingCommand::AddChips`] (000 §16.7).
        rebuys: bool,
        /// When tables are balanced and who moves (the definition's, on top of its
        /// profile's: `TournamentDefinition::seating_rules`).
        balancing: floor_events::profile::SeatingRules,
    },
    /// The tournament is a shootout (issue 37; sent after [`SeatingCommand::Configure`], before
    /// the draw): its tables are never balanced or broken, each table of a round that is not
    /// the last stops when `advance` players are left.
    ConfigureShootout {
        /// The definition's shootout section.
        terms: ShootoutTerms,
    },
    /// Fix the seed of a shootout round's draw (its SHA-256 is published when the round before
    /// starts, before anyone knows who will play in it).
    CommitRound {
        /// The round the seed draws (2 or more).
        round: u32,
        /// SHA-256 of the seed.
        commitment: [u8; 32],
    },
    /// A shootout round starts (the shootout aggregate's `round_started`, round 2 or more):
    /// draw its entries, the winners of the round before, afresh onto new tables.
    DrawRound {
        /// The round.
        round: u32,
        /// Its entries.
        entries: Vec<EntryNo>,
        /// The seed committed for it.
        seed: Seed,
        /// Now.
        at: DateTime<Utc>,
    },
    /// An entry needs a seat (before the start: at the draw; after: now), with the starting
    /// stack.
    Join {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// The seed of its seat's draw, after the start (TDA R8-A; `draw::late_seat`). Unused
        /// before the start, when the entry joins the pool the start-of-play draw seats.
        seed: Seed,
    },
    /// A flight's Day 2 entry carried from its Day 1s (issue 36): it joins the seat pool with
    /// its carried `stack`, not the starting stack, and is seated by the Day 2's draw. A
    /// carried entry whose stack changed before the draw (best stack forward, stack builder)
    /// joins again with the new stack. Refused once the seats are drawn.
    JoinCarried {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// Its Day 2 stack.
        stack: u64,
    },
    /// Entries registered before the start join the seat pool, in one commit (the policy
    /// gathers a batch's registrations into one). Refused once the seats are drawn: each entry
    /// then needs a seat of its own, one [`SeatingCommand::Join`] at a time.
    JoinPool {
        /// The entries and whose they are, in entry order.
        entries: Vec<(EntryNo, PlayerId)>,
    },
    /// An entry was withdrawn before the start.
    Leave {
        /// The entry.
        entry: EntryNo,
    },
    /// Fix the draw's seed before the draw: its SHA-256 is published.
    CommitDraw {
        /// SHA-256 of the seed.
        commitment: [u8; 32],
    },
    /// The tournament started: draw the seats.
    Start {
        /// The seed committed earlier.
        seed: Seed,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Draw the next part of a large start-of-play draw (nothing when it is complete).
    ContinueDraw {
        /// Which part this is (1 after the start's): it names the command, so each is stored
        /// once; the aggregate draws whatever part comes next.
        part: u32,
    },
    /// Blinds for the next hand at every table.
    Blinds {
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
    /// The clock's break, push hold, pause or resume (spec §4, TDA RP-7) to every open table, a
    /// part at a time: `take_break`, `hold_push`, `clock_paused` or `clock_resumed` (only to the
    /// tables told `clock_paused`).
    Clock {
        /// The instruction ([`Instruction::from_clock`]).
        instruction: floor_events::table::Instruction,
    },
    /// The rebuy period is over: stacks that reach zero from now on are out at once.
    EndRebuys,
    /// Chips bought (rebuy or add-on): to the entry's table for its next hand.
    AddChips {
        /// The entry.
        entry: EntryNo,
        /// Chips.
        chips: u64,
    },
    /// Tell the table a player at zero is offered a rebuy until `until` (it holds its next hand).
    OfferRebuy {
        /// The entry.
        entry: EntryNo,
        /// The offer lapses then.
        until: DateTime<Utc>,
    },
    /// An entry at zero chips is out: its rebuy was declined, lapsed, or not possible.
    Eliminate {
        /// The entry.
        entry: EntryNo,
        /// Seed for breaking draws.
        seed: Seed,
    },
    /// A message on a table's report subject that is refused before any rule of play is
    /// checked (unreadable, or its body names another table than its subject): recorded as
    /// rejected on the table the subject names.
    RefuseReport {
        /// The table the subject names.
        table: u32,
        /// The body's `report_id`, or empty when it has none.
        report_id: String,
        /// Why.
        why: crate::reports::Rejection,
    },
    /// Hand-for-hand (the bubble service's events): `hold_for_deal` to every open table,
    /// `deal_hand {hand}` to the tables named, or `resume` to every held table, each numbered
    /// in its table's sequence. Tables that are closed or not held are left out; nothing to
    /// send is no event.
    HandForHand {
        /// `hold_for_deal`, `deal_hand` or `resume`.
        instruction: floor_events::table::Instruction,
        /// For `deal_hand`: the tables released.
        tables: Vec<u32>,
    },
    /// The tournament is suspended (the abort service's event): `pause {reason}` to every
    /// open table not paused yet.
    Suspend {
        /// Shown at the tables.
        reason: String,
    },
    /// Play resumes after a suspension: `resume` to every paused table, and to a table under
    /// hand-for-hand's hold its hold and unplayed `deal_hand`s again.
    ResumePlay,
    /// Play is over without a winner: the tournament is cancelled in play (the abort service's
    /// event), or a satellite stopped with its survivors sharing the seats (registration's
    /// `tournament_finished` with `shared_by`, issue 36). Every table is closed.
    CloseTables,
    /// A table's report, with the seed for any draw the decision after it needs.
    Report {
        /// The report.
        report: TableReport,
        /// Seed for breaking draws.
        seed: Seed,
    },
}

/// Tables one commit instructs at most for a command that tells every table something
/// (blinds, hand-for-hand, a suspension, its resume, a cancellation's close). Each instruction
/// stored is about 200 bytes, and a commit is one NATS message (1 MiB): at 27,778 tables
/// (250,000 entrants) one commit of them all was 5.7 MB and seating could never store it. Such a
/// command tells the tables it has not told yet, this many at a time; the policy sends it again
/// (its next part) until a part stores nothing ([`SeatingCommand::in_parts`]).
pub const TABLES_PER_COMMIT: usize = 1_000;

impl SeatingCommand {
    /// Whether the command tells many tables at once, [`TABLES_PER_COMMIT`] per commit: sent
    /// again until it stores nothing.
    pub fn in_parts(&self) -> bool {
        matches!(
            self,
            Self::Blinds { .. }
                | Self::Clock { .. }
                | Self::HandForHand { .. }
                | Self::Suspend { .. }
                | Self::ResumePlay
                | Self::CloseTables
        )
    }
}

/// Why seating said no. (A report that does not fit is not an error: it is recorded as
/// `report_rejected`.)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeatingError {
    /// Configure first.
    #[error("seating is not configured for this tournament")]
    NotConfigured,
    /// The draw was made.
    #[error("the seats are drawn already")]
    AlreadyStarted,
    /// The seed does not match the commitment.
    #[error("the seed does not match the published commitment")]
    SeedMismatch,
    /// Fewer than two entries.
    #[error("{0} entries cannot start")]
    TooFewEntries(usize),
    /// No such live entry.
    #[error("no live entry {0}")]
    UnknownEntry(EntryNo),
    /// Only an entry at zero chips can be eliminated by command.
    #[error("entry {0} still has chips or a seat in play")]
    StillInPlay(EntryNo),
    /// A shootout's command for a tournament that is no shootout.
    #[error("this tournament is no shootout")]
    NotAShootout,
    /// A round is drawn only once every table of the round before has its winners.
    #[error("round {round} cannot be drawn: round {playing} is still being played")]
    RoundNotOver {
        /// The round asked for.
        round: u32,
        /// The round being played.
        playing: u32,
    },
    /// A round's entries are the winners of the round before.
    #[error("entry {0} did not win its table in the round before")]
    NotAWinner(EntryNo),
    /// A round after the first is drawn in one commit (one NATS message): at most
    /// `ROUND_TABLES_AT_MOST` tables.
    #[error("round of {0} tables is more than one commit holds")]
    RoundTooLarge(usize),
}

impl floor_runtime::DomainError for SeatingError {
    fn code(&self) -> &'static str {
        match self {
            Self::NotConfigured => codes::UNKNOWN_TOURNAMENT,
            Self::AlreadyStarted => codes::TOURNAMENT_STARTED,
            Self::SeedMismatch => codes::SEED_MISMATCH,
            Self::TooFewEntries(_) => codes::TOO_FEW_ENTRIES,
            Self::UnknownEntry(_) => codes::UNKNOWN_ENTRY,
            Self::StillInPlay(_) => codes::STILL_IN_PLAY,
            Self::NotAShootout => codes::INVALID_DEFINITION,
            Self::RoundNotOver { .. } => codes::CONFLICT,
            Self::NotAWinner(_) => codes::UNKNOWN_ENTRY,
            Self::RoundTooLarge(_) => codes::INVALID_FIELD,
        }
    }
}
