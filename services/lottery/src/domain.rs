//! The lottery aggregate: one per lottery sit & go (`floor.ev.lottery.<tournament id>`), holding
//! its draw's commitment and its draw. Pure: the time, the seed and the commitment come in the
//! commands (the service derives them from the platform's seed key).
//!
//! - **Commit** (when the game is created): stores `draw_committed` with the table's version and
//!   SHA-256 of the seed, once. The same commitment again stores nothing (a replay); another
//!   one is refused (`seed_mismatch`): a game has one seed, published before the draw.
//! - **Draw** (when the last seat fills): only after the commitment (`unknown_tournament`
//!   before it), with a seed whose SHA-256 is the commitment (`seed_mismatch`) and the table of
//!   the committed version (`invalid_definition`); stores `prize_drawn` with the number, the
//!   multiplier, the pool, the prizes and the seed revealed ([`crate::draw`]), once. The same
//!   seed again stores nothing.
//!
//! The command carries the table and the buy-in (the definition's, which the policy read from
//! the tournament's creation): the aggregate's own events hold only the version, and the draw
//! checks the table against it.

use crate::draw::{self, commitment, hex, Seed};
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::lottery::{DrawCommitted, LotteryEvent, LotteryTerms, PrizeDrawn};
use floor_events::{codes, subjects, Money};

/// The lottery aggregate.
pub struct LotteryAggregate;

/// What the lottery aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LotteryCommand {
    /// Publish the commitment to the game's seed.
    Commit {
        /// The table's version.
        version: String,
        /// SHA-256 of the seed, lower-case hex.
        commitment: String,
        /// When.
        at: DateTime<Utc>,
    },
    /// Draw the multiplier with the committed seed.
    Draw {
        /// The published table (the definition's).
        terms: LotteryTerms,
        /// The definition's buy-in: the pool is the multiplier × this.
        buy_in: Money,
        /// The seed: its SHA-256 must be the commitment.
        seed: Seed,
        /// When.
        at: DateTime<Utc>,
    },
}

/// Why the lottery aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LotteryError {
    /// A draw before any commitment.
    #[error("no draw is committed for this game")]
    NotCommitted,
    /// A seed (or a second commitment) that is not the committed one.
    #[error("the seed does not match the published commitment")]
    SeedMismatch,
    /// A commitment that is not 64 lower-case hex digits, or a version the table would refuse.
    #[error("{1}")]
    Invalid(&'static str, String),
    /// A table of another version than the committed one.
    #[error("the table is version {drawn}, the commitment was published for version {committed}")]
    VersionMismatch {
        /// The committed version.
        committed: String,
        /// The command's table's version.
        drawn: String,
    },
    /// The table cannot be drawn from.
    #[error(transparent)]
    Table(#[from] draw::DrawError),
}

impl floor_runtime::DomainError for LotteryError {
    fn code(&self) -> &'static str {
        match self {
            Self::NotCommitted => codes::UNKNOWN_TOURNAMENT,
            Self::SeedMismatch => codes::SEED_MISMATCH,
            Self::Invalid(code, _) => code,
            Self::VersionMismatch { .. } => codes::INVALID_DEFINITION,
            Self::Table(e) => e.code(),
        }
    }
}

/// One game's draw, folded from its events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LotteryState {
    /// The commitment, once published.
    pub committed: Option<DrawCommitted>,
    /// The draw, once made.
    pub drawn: Option<PrizeDrawn>,
}

/// Whether `text` is a SHA-256 as lower-case hex (64 digits).
fn is_digest(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Aggregate for LotteryAggregate {
    const NAME: &'static str = subjects::aggregate::LOTTERY;
    type State = LotteryState;
    type Command = LotteryCommand;
    type Event = LotteryEvent;
    type Error = LotteryError;

    fn handle_command(state: &LotteryState, command: LotteryCommand) -> Result<Vec<LotteryEvent>, LotteryError> {
        match command {
            LotteryCommand::Commit { version, commitment, at } => {
                if let Some(committed) = &state.committed {
                    return if committed.commitment == commitment { Ok(vec![]) } else { Err(LotteryError::SeedMismatch) };
                }
                floor_events::text::TABLE_VERSION.check(&version).map_err(|e| LotteryError::Invalid(e.code, e.message))?;
                if !is_digest(&commitment) {
                    return Err(LotteryError::Invalid(
                        codes::INVALID_FIELD,
                        "the commitment is SHA-256 as 64 lower-case hex digits".into(),
                    ));
                }
                Ok(vec![LotteryEvent::DrawCommitted(DrawCommitted { version, commitment, at })])
            }
            LotteryCommand::Draw { terms, buy_in, seed, at } => {
                let committed = state.committed.as_ref().ok_or(LotteryError::NotCommitted)?;
                if hex(&commitment(&seed)) != committed.commitment {
                    return Err(LotteryError::SeedMismatch);
                }
                if state.drawn.is_some() {
                    return Ok(vec![]);
                }
                if terms.version != committed.version {
                    return Err(LotteryError::VersionMismatch { committed: committed.version.clone(), drawn: terms.version });
                }
                let drawn = draw::draw(&terms, buy_in, &seed)?;
                Ok(vec![LotteryEvent::PrizeDrawn(PrizeDrawn {
                    version: terms.version,
                    number: drawn.number,
                    multiplier: drawn.multiplier,
                    pool: drawn.pool,
                    prizes: drawn.prizes,
                    seed: hex(&seed),
                    at,
                })])
            }
        }
    }

    fn apply_event(mut state: LotteryState, event: LotteryEvent) -> LotteryState {
        match event {
            LotteryEvent::DrawCommitted(e) => {
                state.committed.get_or_insert(e);
            }
            LotteryEvent::PrizeDrawn(e) => {
                state.drawn.get_or_insert(e);
            }
        }
        state
    }
}
