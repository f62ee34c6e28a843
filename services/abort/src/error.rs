//! Why a cancellation cannot be computed, each with a stable snake_case code.
//!
//! The codes that are new with this service are constants here ([`codes`]) until the service is
//! wired: then they move to `floor_events::codes` with the rest of the abort contract. Codes that
//! already exist there (currency, bounds, text) are reused.

use floor_events::{Currency, EntryNo, RuleProfile};

/// Stable codes new with the abort service (they join `floor_events::codes` when it is wired).
pub mod codes {
    /// Every entry is out: nothing to cancel, the tournament is decided.
    pub const NOBODY_REMAINING: &str = "nobody_remaining";
    /// Two entries of the snapshot have the same number.
    pub const DUPLICATE_ENTRY: &str = "duplicate_entry";
    /// A purchase's lines do not add up (paid in ≠ fee + prize pool, or a bounty part larger
    /// than the prize-pool line).
    pub const LEDGER_DOES_NOT_ADD_UP: &str = "ledger_does_not_add_up";
    /// Bounty cash paid out exceeds what was paid in, or the bounties on heads exceed the pool.
    pub const BOUNTIES_DO_NOT_ADD_UP: &str = "bounties_do_not_add_up";
    /// The payout table is not contiguous from place 1, or pays a place more than a better one.
    pub const INVALID_PRIZE_TABLE: &str = "invalid_prize_table";
    /// An eliminated entry's place is not below every entry still in, or beyond the field.
    pub const INVALID_PLACE: &str = "invalid_place";
    /// The profile does not offer this method (a rulebook with one fixed formula).
    pub const METHOD_NOT_OFFERED: &str = "method_not_offered";
    /// The method is planned and not built yet (ICM: exact ICM is being written in floor-rules).
    pub const NOT_YET_AVAILABLE: &str = "not_yet_available";
    /// The statements would not balance the books (a bug: nothing is recorded).
    pub const BOOKS_DO_NOT_BALANCE: &str = "books_do_not_balance";
    /// The tournament is suspended already.
    pub const ALREADY_SUSPENDED: &str = "already_suspended";
    /// Resume without a suspension.
    pub const NOT_SUSPENDED: &str = "not_suspended";
    /// A time earlier than the suspension it ends.
    pub const BEFORE_SUSPENSION: &str = "before_suspension";
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
        }
    }
}
