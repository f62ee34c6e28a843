//! Table reports as they arrive: read off their subject ([`receive`]), and why one is
//! rejected ([`Rejection`], with its stable code). Whether a report fits what Floor knows is
//! the decider's to check, before it changes anything: `domain/reporting.rs` holds every check
//! of a hand's start and finish.

use floor_events::codes;
use floor_events::table::{SeatNo, TableReport};
use floor_events::{CommandId, EntryNo, TournamentId};
use std::collections::{BTreeMap, HashMap};

/// A decoder's message is cut to this many characters in a rejection's reason.
const ERROR_CHARS: usize = 200;

/// A message read from a table's report subject, `floor.table.<tournament>.<table>.out`: the
/// subject says which table sent it (per-tournament NATS permissions rest on that), so the body
/// must agree with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The tournament the subject names: whose seating records the outcome.
    pub tournament: TournamentId,
    /// The table the subject names.
    pub table: u32,
    /// Derived from the report (or, for an unreadable one, its place in the stream).
    pub command_id: CommandId,
    /// The report, or why it is refused before any rule of play is checked (with its
    /// `report_id` when the body had one).
    pub report: Result<TableReport, (String, Rejection)>,
}

/// Reads one message from the reports stream. `None` when the subject is not a table's
/// report subject (no tournament and table to record anything on).
pub fn receive(subject: &str, sequence: u64, body: &[u8]) -> Option<Received> {
    let rest = subject.strip_prefix("floor.table.")?.strip_suffix(".out")?;
    let (tournament, table) = rest.split_once('.')?;
    let tournament = TournamentId(uuid::Uuid::parse_str(tournament).ok()?);
    let table: u32 = table.parse().ok()?;
    let received = |command_id: String, report| Some(Received { tournament, table, command_id: CommandId::derived(&command_id), report });
    match serde_json::from_slice::<TableReport>(body) {
        Ok(report) if report.tournament_id == tournament && report.table == table => {
            let id = format!("seating-report:{tournament}:{table}:{}", report.report_id);
            received(id, Ok(report))
        }
        Ok(report) => {
            let why = Rejection::SubjectMismatch {
                subject_tournament: tournament,
                subject_table: table,
                body_tournament: report.tournament_id,
                body_table: report.table,
            };
            received(format!("seating-report-refused:{subject}:{}", report.report_id), Err((report.report_id, why)))
        }
        Err(e) => {
            let report_id = serde_json::from_slice::<serde_json::Value>(body)
                .ok()
                .and_then(|v| v.get("report_id").and_then(|id| id.as_str()).map(String::from))
                .unwrap_or_default();
            let why = Rejection::Malformed { sequence, error: e.to_string().chars().take(ERROR_CHARS).collect() };
            received(format!("seating-report-unreadable:{subject}:{sequence}"), Err((report_id, why)))
        }
    }
}

/// Why a report was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// No such table.
    #[error("no table {0}")]
    UnknownTable(u32),
    /// Hand number does not follow.
    #[error("hand {got} reported, hand {expected} expected")]
    HandOutOfOrder {
        /// The hand Floor expects.
        expected: u64,
        /// The hand reported.
        got: u64,
    },
    /// Not at this table, or not dealt in.
    #[error("entry {0} is not at this table or not in this hand")]
    UnknownPlayer(EntryNo),
    /// Seated, but at another table.
    #[error("entry {entry} does not sit at table {table}")]
    NotAtTable {
        /// Who.
        entry: EntryNo,
        /// The table that reported them.
        table: u32,
    },
    /// A hand finished that was never started at this table.
    #[error("hand {0} finished, but no hand was started at this table")]
    NotStarted(u64),
    /// The body names another tournament or table than the subject it was published on.
    #[error("published on table {subject_table} of tournament {subject_tournament}, the report names table {body_table} of tournament {body_tournament}")]
    SubjectMismatch {
        /// The subject's tournament.
        subject_tournament: TournamentId,
        /// The subject's table.
        subject_table: u32,
        /// The body's tournament.
        body_tournament: TournamentId,
        /// The body's table.
        body_table: u32,
    },
    /// Not a report at all (not JSON, unknown type, a negative number…).
    #[error("not a report (stream sequence {sequence}): {error}")]
    Malformed {
        /// Where it is in the stream.
        sequence: u64,
        /// What the decoder said, shortened.
        error: String,
    },
    /// The tournament has no seating (never created, or not one of Floor's).
    #[error("tournament {0} has no seating")]
    UnknownTournament(TournamentId),
    /// Floor has someone else (or nobody) in that seat.
    #[error("entry {0} does not sit in seat {seat}", seat = .1.0)]
    WrongSeat(EntryNo, SeatNo),
    /// Starting stack differs from Floor's.
    #[error("entry {entry} has {expected} chips, the report says {got}")]
    StackMismatch {
        /// Who.
        entry: EntryNo,
        /// Floor's count.
        expected: u64,
        /// The report's count.
        got: u64,
    },
    /// More or fewer chips after the hand than before.
    #[error("{before} chips were dealt in and {after} came out")]
    ChipsNotConserved {
        /// Chips dealt in.
        before: u64,
        /// Chips after.
        after: u64,
    },
    /// A bust's pots do not add up, or name a winner who was not in the hand.
    #[error("the pots of entry {0}'s bust do not add up to its stack, or name a winner not in the hand")]
    BustDoesNotAddUp(EntryNo),
    /// A player dealt in is missing from the result, listed twice, or kept with no chips.
    #[error("entry {0} is missing from the result, listed twice, or kept with no chips")]
    Unaccounted(EntryNo),
    /// The button is on a seat where no player of the table sits.
    #[error("the button is on seat {seat}, where nobody sits", seat = .0.0)]
    ButtonOnEmptySeat(SeatNo),
    /// An `instruction_applied` for a sequence never sent to the table.
    #[error("instruction {sequence} was never sent to this table (the last sent is {sent})")]
    UnknownInstruction {
        /// The sequence confirmed.
        sequence: u64,
        /// The last sequence sent to the table.
        sent: u64,
    },
    /// An `instruction_applied` for an instruction that takes no confirmation.
    #[error("instruction {0} takes no instruction_applied: only seat_player, remove_player and add_chips are confirmed")]
    NotConfirmed(u64),
    /// Hand-for-hand: the table dealt while held (`hold_for_deal`, no `deal_hand` left).
    #[error("table {0} dealt hand {1} while held: hand-for-hand, deal only on deal_hand")]
    TableHeld(u32, u64),
    /// Hand-for-hand: a finish for a hand the table was not dealing (not released to it).
    #[error("hand {0} finished, but it is not the hand-for-hand hand released to this table")]
    HandNotReleased(u64),
    /// Play is over without a winner and every table is closed: a satellite stopped with its
    /// survivors sharing the seats (issue 36, 000 §16.7), or a cancellation in play. A hand
    /// still in play then counts for nothing (its bets go back), and none starts.
    #[error("the tournament is over ({0} entries left share the end): hand {1} is not played")]
    TournamentOver(usize, u64),
}

impl Rejection {
    /// The stable code recorded with the rejection.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownTable(_) => codes::UNKNOWN_TABLE,
            Self::HandOutOfOrder { .. } => codes::HAND_OUT_OF_ORDER,
            Self::UnknownPlayer(_) | Self::NotAtTable { .. } => codes::UNKNOWN_PLAYER,
            Self::NotStarted(_) => codes::HAND_NOT_STARTED,
            Self::SubjectMismatch { .. } => codes::SUBJECT_MISMATCH,
            Self::Malformed { .. } => codes::MALFORMED_REPORT,
            Self::UnknownTournament(_) => codes::UNKNOWN_TOURNAMENT,
            Self::WrongSeat(..) => codes::WRONG_SEAT,
            Self::StackMismatch { .. } => codes::STACK_MISMATCH,
            Self::ChipsNotConserved { .. } => codes::CHIPS_NOT_CONSERVED,
            Self::BustDoesNotAddUp(_) => codes::BUST_DOES_NOT_ADD_UP,
            Self::Unaccounted(_) => codes::PLAYER_UNACCOUNTED,
            Self::ButtonOnEmptySeat(_) => codes::BUTTON_ON_EMPTY_SEAT,
            Self::UnknownInstruction { .. } => codes::UNKNOWN_INSTRUCTION,
            Self::NotConfirmed(_) => codes::INSTRUCTION_NOT_CONFIRMED,
            Self::TableHeld(..) => codes::TABLE_HELD,
            Self::HandNotReleased(_) => codes::HAND_NOT_RELEASED,
            Self::TournamentOver(..) => codes::TOURNAMENT_FINISHED,
        }
    }
}

/// A hand in progress at a table: who was dealt in, with what.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HandInPlay {
    /// The hand number.
    pub hand: u64,
    /// Chips of each player dealt in, at the start.
    pub stacks: BTreeMap<EntryNo, u64>,
}

/// What Floor knows about play at the tables: chips per entry and each table's hands.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Play {
    /// Chips of every seated entry, between hands.
    pub chips: HashMap<EntryNo, u64>,
    /// Last hand finished, per table.
    pub last_hand: HashMap<u32, u64>,
    /// Hand in progress, per table.
    pub in_play: HashMap<u32, HandInPlay>,
}
