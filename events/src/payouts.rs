//! The payouts aggregate (`floor.ev.payouts.<tournament_id>`): the payout table, locked once the
//! field is final, every finishing place with what it pays, and the moment every paid place is
//! paid. The books request on `floor.cmd.payouts.books` sums a tournament's money at any time.

use crate::ids::{EntryNo, PlayerId, TournamentId};
use crate::money::{Currency, Money};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Verbs of the payouts service: `floor.cmd.payouts.<verb>`.
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// A tournament's books.
    pub const BOOKS: Verb<BooksRequest, Books> = Verb::new(service::PAYOUTS, "books");
}

/// Equal prizes over a range of places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PrizeBand {
    /// First place of the range (1 = winner).
    pub from: u32,
    /// Last place of the range, inclusive.
    pub to: u32,
    /// Minor units paid to each place in the range.
    pub amount: u64,
}

/// Why the payout table was locked when it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LockCause {
    /// The tournament started with no late registration: the field was final.
    Started,
    /// Late registration (and re-entry) closed.
    LateRegistrationClosed,
    /// A player was about to finish in the money while late registration was still open: the
    /// table is locked with the field as it is, so nobody is paid from a table that changes.
    ReachedTheMoney,
    /// The rebuy period and the add-on break are over (and late registration closed): the
    /// pool stops growing.
    BuyingOver,
}

/// One finishing place and what it pays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlaceAward {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// Best place of the range the entry shares (1 = winner).
    pub place: u32,
    /// How many share the range (1 = alone): their prizes are summed and split.
    pub shared: u32,
    /// Minor units paid to this entry (0 out of the money).
    pub amount: u64,
}

/// The payouts aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PayoutEvent {
    /// The payout table, final: places and amounts sum to `pool` exactly.
    PayoutTableLocked {
        /// Entries in the field (re-entries count).
        entries: u32,
        /// What the entries put into the prize pool.
        contributions: Money,
        /// The guarantee, when there is one.
        guarantee: Option<Money>,
        /// What the operator adds to reach the guarantee (zero without a shortfall).
        overlay: Money,
        /// The pool paid out: contributions + overlay.
        pool: Money,
        /// Paid places.
        places: u32,
        /// Prizes by place, first place first.
        bands: Vec<PrizeBand>,
        /// Why now.
        cause: LockCause,
    },
    /// Players eliminated in one hand (or the winner) took these places.
    PlacesAwarded {
        /// Players in the tournament before this hand's eliminations.
        players_left_before: u32,
        /// One per player, best place first.
        awards: Vec<PlaceAward>,
    },
    /// The last opponent is out: every paid place has been awarded.
    TournamentPaid {
        /// Sum of every award: equals the pool.
        prizes_paid: Money,
    },
}

/// Ask for a tournament's books.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BooksRequest {
    /// The tournament.
    pub tournament_id: TournamentId,
}

/// A tournament's money, summed from the ledger lines and the payouts log. All amounts in minor
/// units of `currency`.
///
/// Always: `paid_in + overlay == fees + prize_pool + bounty_pool`. Once `finished`: `prize_pool
/// == prizes_paid`. Once `bounties_settled`: `bounty_pool == bounties_paid` (and the bounties
/// log's own lines make the same pool). `balanced` says all hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Books {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The currency.
    pub currency: Currency,
    /// Entries accepted (re-entries count), less those refunded.
    pub entries: u32,
    /// Rebuys bought.
    #[serde(default)]
    pub rebuys: u32,
    /// Add-ons bought.
    #[serde(default)]
    pub add_ons: u32,
    /// What players paid, less refunds.
    pub paid_in: u64,
    /// The operator's fees, less refunds.
    pub fees: u64,
    /// What entries, rebuys and add-ons put into the prize pool, less refunds and less the bounty
    /// parts.
    pub contributions: u64,
    /// What the operator added to meet the guarantee (known once the table is locked).
    pub overlay: u64,
    /// The prize pool: contributions + overlay.
    pub prize_pool: u64,
    /// Prizes awarded so far.
    pub prizes_paid: u64,
    /// Every paid place has been paid.
    pub finished: bool,
    /// The bounty pool: the bounty parts of entries, re-entries and rebuys, less refunds (zero
    /// without bounties).
    #[serde(default)]
    pub bounty_pool: u64,
    /// Bounty money paid out so far: bounties at eliminations and the winner's.
    #[serde(default)]
    pub bounties_paid: u64,
    /// The winner's bounty is recorded: the bounty pool is settled.
    #[serde(default)]
    pub bounties_settled: bool,
    /// The identities above hold to the minor unit.
    pub balanced: bool,
    /// Why `balanced` is false: a sum that does not fit, a refund of more than was paid, or
    /// the identity that fails. Absent when balanced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbalanced: Option<String>,
}
