//! Why a cancellation cannot be computed, each with a stable snake_case code.
//!
//! The codes are the contract's (`floor_events::codes`), re-exported in [`codes`].

use floor_events::{Currency, EntryNo, RuleProfile};

/// The abort service's stable codes (in the contract, `floor_events::codes`).
pub mod codes {
    pub use floor_events::codes::{
        ALREADY_SUSPENDED, BEFORE_SUSPENSION, BOOKS_DO_NOT_BALANCE, BOUNTIES_DO_NOT_ADD_UP, CANCELLATION_TOO_LARGE,
        DEAL_AMOUNTS_DO_NOT_MATCH_PLAYERS, DUPLICATE_ENTRY, INVALID_PLACE, INVALID_PRIZE_TABLE, LEDGER_DOES_NOT_ADD_UP, METHOD_NOT_OFFERED,
        NOBODY_REMAINING, NOT_SUSPENDED, NOT_YET_AVAILABLE,
    };
}

/// Why a cancellation cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CancelError {
    /// Every entry is out.
    #[error("no entry is still in: the tournament is decided")]
    NobodyRemaining,
    /// Two entries with one number.
    #[error("entry {0} appears twice")]
    DuplicateEntry(EntryNo),
    /// Money in another currency.
    #[error("entry {entry} paid in another currency than the tournament's {currency}")]
    CurrencyMismatch {
        /// The entry.
        entry: EntryNo,
        /// The tournament's currency.
        currency: Currency,
    },
    /// A purchase's lines do not add up.
    #[error("entry {0}: paid in is not fee + prize pool, or the bounty part exceeds the prize-pool line")]
    LedgerDoesNotAddUp(EntryNo),
    /// The bounty figures do not add up.
    #[error("bounty cash paid and bounties on heads exceed the bounty money paid in")]
    BountiesDoNotAddUp,
    /// The payout table is malformed.
    #[error("the payout table is not contiguous and descending at place {place}")]
    InvalidPrizeTable {
        /// The first place at fault.
        place: u32,
    },
    /// An eliminated entry's place is impossible.
    #[error("entry {0}: its place is not below every entry still in")]
    InvalidPlace(EntryNo),
    /// A sum beyond Floor's bounds.
    #[error("an amount or a sum is beyond Floor's bounds (2^53 - 1 minor units)")]
    TooLarge,
    /// Chips beyond 64 bits.
    #[error("the chips in play do not fit 64 bits")]
    ChipsTooLarge,
    /// The profile offers one formula.
    #[error("{} does not offer {method}", profile.name())]
    MethodNotOffered {
        /// The profile.
        profile: RuleProfile,
        /// The method asked for.
        method: &'static str,
    },
    /// Planned, not built.
    #[error("{0} is not available yet")]
    NotYetAvailable(&'static str),
    /// ICM refused its input (a remaining entry without chips, too many players × places).
    #[error("ICM: {1}")]
    Icm(&'static str, String),
    /// The statements would not balance.
    #[error("the statements do not balance the books: {0}")]
    Unbalanced(String),
    /// An agreed deal's parts are not one per entry still in.
    #[error("the agreed deal does not match the entries still in: {0}")]
    DealDoesNotMatch(String),
}

impl CancelError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        use floor_events::codes as wire;
        match self {
            Self::NobodyRemaining => codes::NOBODY_REMAINING,
            Self::DuplicateEntry(_) => codes::DUPLICATE_ENTRY,
            Self::CurrencyMismatch { .. } => wire::CURRENCY_MISMATCH,
            Self::LedgerDoesNotAddUp(_) => codes::LEDGER_DOES_NOT_ADD_UP,
            Self::BountiesDoNotAddUp => codes::BOUNTIES_DO_NOT_ADD_UP,
            Self::InvalidPrizeTable { .. } => codes::INVALID_PRIZE_TABLE,
            Self::InvalidPlace(_) => codes::INVALID_PLACE,
            Self::TooLarge => wire::AMOUNT_TOO_LARGE,
            Self::ChipsTooLarge => wire::CHIPS_TOO_LARGE,
            Self::MethodNotOffered { .. } => codes::METHOD_NOT_OFFERED,
            Self::NotYetAvailable(_) => codes::NOT_YET_AVAILABLE,
            Self::Icm(code, _) => code,
            Self::Unbalanced(_) => codes::BOOKS_DO_NOT_BALANCE,
            Self::DealDoesNotMatch(_) => codes::DEAL_AMOUNTS_DO_NOT_MATCH_PLAYERS,
        }
    }
}
