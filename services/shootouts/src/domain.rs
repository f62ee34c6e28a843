//! The shootout aggregate (`floor.ev.shootout.<tournament id>`): one per shootout, its rounds
//! in order. Pure: time comes in the commands.
//!
//! A round starts with its entries (`round_started`; round 1 with the field at the start,
//! each later round with exactly the winners of the round before) and completes with the
//! entries that won its tables (`round_completed`, fewer than started it). Seating draws each
//! round after the first when it reads its start; the shootouts policy records a round's
//! completion when seating has recorded a winner at every table of it (003 App. 1 b ii: "V
//! případě, že na tomto stole vyhraje, pokračuje k dalšímu stolu a celý proces se znovu
//! opakuje s ostatními účastníky hazardní hry, kteří vyhráli na svých původních stolech": a
//! player who wins their table goes on to the next, and the process repeats with the others
//! who won theirs).

use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::shootouts::{BracketRound, RoundCompleted, RoundStarted, ShootoutEvent};
use floor_events::{codes, subjects, EntryNo};
use serde::{Deserialize, Serialize};

/// Most entries a round may name (a shootout of a million players is far beyond any table
/// room Floor serves); bounds what `apply_event` holds.
pub const MAX_ENTRIES: usize = 1_000_000;

/// The shootout aggregate.
pub struct ShootoutAggregate;

/// A shootout's rounds so far, first first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShootoutState {
    /// Every round started, with its winners once complete.
    pub rounds: Vec<BracketRound>,
}

impl ShootoutState {
    /// The round being played or last played.
    pub fn last(&self) -> Option<&BracketRound> {
        self.rounds.last()
    }
}

/// What the shootout aggregate is told (by the shootouts policy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShootoutCommand {
    /// A round starts with these entries.
    StartRound {
        /// 1 for the first.
        round: u32,
        /// Its entries.
        entries: Vec<EntryNo>,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Every table of the round has its winners.
    CompleteRound {
        /// The round.
        round: u32,
        /// Who advances (the last round: the winner).
        advancing: Vec<EntryNo>,
        /// Now.
        at: DateTime<Utc>,
    },
}

/// Why the shootout aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShootoutError {
    /// Rounds go in order: the next one starts once the one before is complete.
    #[error("round {got} is out of order: the next round is {expected}")]
    RoundOutOfOrder {
        /// The round that may be started or completed now.
        expected: u32,
        /// The round asked for.
        got: u32,
    },
    /// A round needs two entries, each named once.
    #[error("a round needs at least two distinct entries (and at most {MAX_ENTRIES}), got {0}")]
    TooFewEntries(usize),
    /// A later round's entries are exactly the winners of the round before.
    #[error("round {0}'s entries are not the winners of the round before")]
    NotTheWinners(u32),
    /// Winners are entries of the round, each once, fewer than started it.
    #[error("entry {0} did not play this round")]
    NotInRound(EntryNo),
    /// At least one player wins a round, and not everyone.
    #[error("a round is won by at least one of its entries and fewer than all of them")]
    NoProgress,
    /// The same round was recorded with other entries or winners.
    #[error("round {0} was recorded otherwise")]
    Recorded(u32),
    /// The last round had one winner: the shootout is over.
    #[error("the shootout is over")]
    Over,
}

impl floor_runtime::DomainError for ShootoutError {
    fn code(&self) -> &'static str {
        match self {
            Self::RoundOutOfOrder { .. } | Self::Recorded(_) | Self::Over => codes::CONFLICT,
            Self::TooFewEntries(_) => codes::TOO_FEW_ENTRIES,
            Self::NotTheWinners(_) | Self::NotInRound(_) => codes::UNKNOWN_ENTRY,
            Self::NoProgress => codes::INVALID_FIELD,
        }
    }
}

/// Sorted and without repeats.
fn distinct(entries: &[EntryNo]) -> Vec<EntryNo> {
    let mut sorted = entries.to_vec();
    sorted.sort();
    sorted.dedup();
    sorted
}

impl Aggregate for ShootoutAggregate {
    const NAME: &'static str = subjects::aggregate::SHOOTOUT;
    type State = ShootoutState;
    type Command = ShootoutCommand;
    type Event = ShootoutEvent;
    type Error = ShootoutError;

    fn handle_command(state: &ShootoutState, command: ShootoutCommand) -> Result<Vec<ShootoutEvent>, ShootoutError> {
        match command {
            ShootoutCommand::StartRound { round, entries, at } => {
                let entries = distinct(&entries);
                // Started already: the same start again is answered with nothing new.
                if let Some(recorded) = state.rounds.iter().find(|r| r.round == round) {
                    return if recorded.entries == entries { Ok(vec![]) } else { Err(ShootoutError::Recorded(round)) };
                }
                let expected = state.last().map_or(1, |r| r.round.saturating_add(1));
                if round != expected {
                    return Err(ShootoutError::RoundOutOfOrder { expected, got: round });
                }
                if entries.len() < 2 || entries.len() > MAX_ENTRIES {
                    return Err(ShootoutError::TooFewEntries(entries.len()));
                }
                if let Some(before) = state.last() {
                    match &before.advancing {
                        None => return Err(ShootoutError::RoundOutOfOrder { expected: before.round, got: round }),
                        Some(winners) if winners.len() < 2 => return Err(ShootoutError::Over),
                        Some(winners) if *winners != entries => return Err(ShootoutError::NotTheWinners(round)),
                        Some(_) => {}
                    }
                }
                Ok(vec![ShootoutEvent::RoundStarted(RoundStarted { round, entries, at })])
            }
            ShootoutCommand::CompleteRound { round, advancing, at } => {
                let advancing = distinct(&advancing);
                let Some(last) = state.last() else { return Err(ShootoutError::RoundOutOfOrder { expected: 1, got: round }) };
                if let Some(recorded) = state.rounds.iter().find(|r| r.round == round && r.advancing.is_some()) {
                    return if recorded.advancing.as_ref() == Some(&advancing) { Ok(vec![]) } else { Err(ShootoutError::Recorded(round)) };
                }
                if round != last.round {
                    return Err(ShootoutError::RoundOutOfOrder { expected: last.round, got: round });
                }
                if let Some(&stranger) = advancing.iter().find(|e| last.entries.binary_search(e).is_err()) {
                    return Err(ShootoutError::NotInRound(stranger));
                }
                if advancing.is_empty() || advancing.len() >= last.entries.len() {
                    return Err(ShootoutError::NoProgress);
                }
                Ok(vec![ShootoutEvent::RoundCompleted(RoundCompleted { round, advancing, at })])
            }
        }
    }

    fn apply_event(mut state: ShootoutState, event: ShootoutEvent) -> ShootoutState {
        match event {
            ShootoutEvent::RoundStarted(started) => {
                if !state.rounds.iter().any(|r| r.round == started.round) {
                    state.rounds.push(BracketRound { round: started.round, entries: started.entries, advancing: None });
                }
            }
            ShootoutEvent::RoundCompleted(completed) => {
                if let Some(round) = state.rounds.iter_mut().find(|r| r.round == completed.round) {
                    round.advancing = Some(completed.advancing);
                }
            }
        }
        state
    }
}
