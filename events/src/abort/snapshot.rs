//! The tournament at the moment of cancellation: what every cancellation rule reads, pinned in
//! the `cancelled` event.
//!
//! Who paid what (buy-in, fee, rebuys, add-ons, bounty parts), who is still in with how many
//! chips at the start of their table's interrupted hand (bets of unfinished hands go back: 000
//! §15, 002 §2.8 T-12.5, practice §3.1 "ESC Online"), who is out with the prize already paid,
//! the payout table, the guarantee, whether the field can still grow, and the format. Money
//! reuses the contract's types: [`EntryLedger`] per purchase (what the registration and rebuys
//! events record) and [`PrizeBand`] for the payout table (what the payouts service locks).
//! The abort service checks and sums it (`floor_abort::Tally`).

use crate::payouts::PrizeBand;
use crate::tournament::EntryLedger;
use crate::{Currency, EntryNo, PlayerId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The tournament at cancellation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// The currency of every amount.
    pub currency: Currency,
    /// Single- or multi-table, sit & go, Twister.
    pub format: Format,
    /// Every entry accepted and not refunded before the start (re-entries are entries).
    pub entries: Vec<Entry>,
    /// The payout table (locked, or the one the field has now), first place first, contiguous
    /// from place 1; empty when nothing is paid yet.
    #[serde(default)]
    pub prizes: Vec<PrizeBand>,
    /// The guarantee, if any, in minor units of `currency`.
    #[serde(default)]
    pub guarantee: Option<u64>,
    /// Late registration, re-entry or rebuys are still open: the pool is not final (004 §4.37.2
    /// pays only the money collected then, not the guarantee).
    #[serde(default)]
    pub buying_open: bool,
    /// The deal the players still in agreed (payouts' `deal_agreed`), if any: their agreed
    /// amounts replace the table's prizes (`docs/abort.md`, "After a deal").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal: Option<AgreedDeal>,
    /// A flight's Day 2: the Day 1s' pools paid into its prize pool, minor units (issue 36).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub transferred_in: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A deal every remaining player agreed, as it stands at the cancellation: one part per entry
/// still in (the entries out since the deal were paid their parts already).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgreedDeal {
    /// Each entry still in and what the deal pays it when it goes out, minor units.
    pub parts: Vec<DealPart>,
    /// What the deal kept out of the split, to be played for (paid to the winner).
    #[serde(default)]
    pub left_to_play_for: u64,
}

/// One entry's part of an agreed deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DealPart {
    /// The entry.
    pub entry: EntryNo,
    /// Its agreed amount, minor units.
    pub amount: u64,
}

/// How the tournament is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Format {
    /// One table or several.
    pub tables: Tables,
    /// Starts when full rather than at a scheduled time (004 §4.36.2, §4.37.3).
    #[serde(default)]
    pub sit_and_go: bool,
    /// win2day "Twister": a random prize pool (000 §16.10), cancelled under the multi-table rule.
    #[serde(default)]
    pub twister: bool,
}

/// One table or several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tables {
    /// A single-table tournament (000 §16.7, 002 §2.8 T-12.1).
    Single,
    /// A multi-table tournament.
    Multi,
}

/// One entry and its money.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// What the entry itself cost (registration, late registration, re-entry, multi-entry).
    pub buy_in: Paid,
    /// Each rebuy bought.
    #[serde(default)]
    pub rebuys: Vec<Paid>,
    /// Each add-on bought.
    #[serde(default)]
    pub add_ons: Vec<Paid>,
    /// Still in, or out.
    pub standing: Standing,
    /// Its bounty: what is on its head, what it collected.
    #[serde(default)]
    pub bounty: Bounty,
    /// A flight's Day 2 entry: the chips it brought from its Day 1s (its weight in the Day 1s'
    /// pools; 0 for an entry bought in the Day 2).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub carried_chips: u64,
}

/// One purchase: its ledger lines, and the part of its prize-pool line that went to the bounty
/// pool (the bounties service's `bounty_paid_in`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Paid {
    /// What was paid and where it went.
    pub ledger: EntryLedger,
    /// The bounty part of `ledger.prize_pool`, minor units.
    #[serde(default)]
    pub bounty: u64,
}

/// Still in, or out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "standing", rename_all = "snake_case")]
pub enum Standing {
    /// Not eliminated: chips at the start of the table's interrupted hand (zero for a player
    /// who could still rebuy).
    Remaining {
        /// Chips.
        chips: u64,
    },
    /// Out, in this place, with this prize already paid (zero outside the money).
    Eliminated {
        /// Best place of the range it shares (1 = winner).
        place: u32,
        /// Minor units already paid for the place.
        prize: u64,
    },
}

/// An entry's bounty as the bounties service has it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bounty {
    /// What its elimination would pay (knockout, progressive knockout); zero otherwise and once
    /// eliminated.
    #[serde(default)]
    pub head: u64,
    /// Bounty cash already paid to it.
    #[serde(default)]
    pub collected: u64,
}

impl Entry {
    /// Chips, for an entry still in.
    pub fn chips(&self) -> Option<u64> {
        match self.standing {
            Standing::Remaining { chips } => Some(chips),
            Standing::Eliminated { .. } => None,
        }
    }

    /// Every purchase: buy-in, rebuys, add-ons.
    pub fn purchases(&self) -> impl Iterator<Item = &Paid> {
        std::iter::once(&self.buy_in).chain(&self.rebuys).chain(&self.add_ons)
    }
}

impl Paid {
    /// The part of the prize-pool line that stayed in the prize pool (not the bounty's).
    pub fn pool_part(&self) -> u64 {
        self.ledger.prize_pool.amount.saturating_sub(self.bounty)
    }
}
