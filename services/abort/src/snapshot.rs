//! The tournament at the moment of cancellation, checked and summed.
//!
//! The snapshot's types are the contract's ([`floor_events::abort::snapshot`], pinned in the
//! `cancelled` event) and are re-exported here; [`Tally`] checks a snapshot once and sums it:
//! the rules read only checked figures.

use crate::error::CancelError;
use floor_events::money::MAX_TOTAL;
use floor_events::payouts::PrizeBand;
use floor_rules::payout_table::{Band, PayoutTable};

pub use floor_events::abort::snapshot::{AgreedDeal, Bounty, DealPart, Entry, Format, Paid, Snapshot, Standing, Tables};

/// A snapshot, checked and summed. Every figure fits Floor's bounds ([`MAX_TOTAL`]).
#[derive(Debug, Clone)]
pub struct Tally<'a> {
    /// The snapshot.
    pub snapshot: &'a Snapshot,
    /// Its payout table.
    pub table: PayoutTable,
    /// Indices of the entries still in, in entry-number order (the remainder rule's tie order).
    pub remaining: Vec<usize>,
    /// Indices of every entry, in entry-number order.
    pub all: Vec<usize>,
    /// Entries out.
    pub eliminated: u32,
    /// Chips of the entries still in.
    pub chips_in_play: u64,
    /// Everything paid in.
    pub paid_in: u64,
    /// Every fee.
    pub fees: u64,
    /// Prize-pool parts net of bounty parts: the collected prize pool.
    pub contributions: u64,
    /// Bounty parts.
    pub bounty_paid_in: u64,
    /// Bounty cash already paid.
    pub bounties_paid: u64,
    /// Bounties on the heads of entries still in.
    pub heads: u64,
    /// Prizes already paid to entries out.
    pub prizes_paid: u64,
    /// An agreed deal's amount for each entry still in, in the order of `remaining`.
    pub deal: Option<Vec<u64>>,
    /// A flight's Day 2: the Day 1s' pools in its prize pool.
    pub transferred_in: u64,
    /// Chips every entry brought from the Day 1s.
    pub carried_chips: u64,
}

fn add(a: u64, b: u64) -> Result<u64, CancelError> {
    a.checked_add(b).filter(|s| *s <= MAX_TOTAL).ok_or(CancelError::TooLarge)
}

impl<'a> Tally<'a> {
    /// Checks and sums a snapshot.
    ///
    /// # Errors
    /// `nobody_remaining`, `duplicate_entry`, `currency_mismatch`, `ledger_does_not_add_up`,
    /// `bounties_do_not_add_up`, `invalid_prize_table`, `invalid_place`, `amount_too_large`,
    /// `chips_too_large`.
    pub fn of(snapshot: &'a Snapshot) -> Result<Self, CancelError> {
        let table = prize_table(&snapshot.prizes)?;
        let mut all: Vec<usize> = (0..snapshot.entries.len()).collect();
        // Snapshots usually list entries in order: check before sorting.
        if !snapshot.entries.windows(2).all(|w| w[0].entry <= w[1].entry) {
            all.sort_unstable_by_key(|&i| snapshot.entries[i].entry);
        }
        if let Some(w) = all.windows(2).find(|w| snapshot.entries[w[0]].entry == snapshot.entries[w[1]].entry) {
            return Err(CancelError::DuplicateEntry(snapshot.entries[w[0]].entry));
        }
        let remaining: Vec<usize> = all.iter().copied().filter(|&i| snapshot.entries[i].chips().is_some()).collect();
        if remaining.is_empty() {
            return Err(CancelError::NobodyRemaining);
        }
        let n = remaining.len() as u64;
        let mut t = Tally {
            snapshot,
            table,
            eliminated: (all.len() - remaining.len()) as u32,
            remaining,
            all,
            chips_in_play: 0,
            paid_in: 0,
            fees: 0,
            contributions: 0,
            bounty_paid_in: 0,
            bounties_paid: 0,
            heads: 0,
            prizes_paid: 0,
            deal: None,
            transferred_in: add(snapshot.transferred_in, 0)?,
            carried_chips: 0,
        };
        for e in &snapshot.entries {
            for p in e.purchases() {
                let l = &p.ledger;
                if [l.paid_in, l.fee, l.prize_pool].iter().any(|m| m.currency != snapshot.currency) {
                    return Err(CancelError::CurrencyMismatch { entry: e.entry, currency: snapshot.currency });
                }
                if l.fee.amount.checked_add(l.prize_pool.amount) != Some(l.paid_in.amount) || p.bounty > l.prize_pool.amount {
                    return Err(CancelError::LedgerDoesNotAddUp(e.entry));
                }
                t.paid_in = add(t.paid_in, l.paid_in.amount)?;
                t.fees = add(t.fees, l.fee.amount)?;
                t.contributions = add(t.contributions, p.pool_part())?;
                t.bounty_paid_in = add(t.bounty_paid_in, p.bounty)?;
            }
            t.bounties_paid = add(t.bounties_paid, e.bounty.collected)?;
            t.carried_chips = t.carried_chips.checked_add(e.carried_chips).ok_or(CancelError::ChipsTooLarge)?;
            match e.standing {
                Standing::Remaining { chips } => {
                    t.chips_in_play = t.chips_in_play.checked_add(chips).ok_or(CancelError::ChipsTooLarge)?;
                    t.heads = add(t.heads, e.bounty.head)?;
                }
                Standing::Eliminated { place, prize } => {
                    // Out before everyone still in: places below theirs, within the field.
                    if u64::from(place) <= n || place as usize > snapshot.entries.len() {
                        return Err(CancelError::InvalidPlace(e.entry));
                    }
                    t.prizes_paid = add(t.prizes_paid, prize)?;
                }
            }
        }
        if let Some(g) = snapshot.guarantee {
            add(g, 0)?;
        }
        add(t.contributions, t.transferred_in)?;
        // A Day 2's pools go to the stacks that came from the Day 1s: no pool without one.
        if t.transferred_in > 0 && t.carried_chips == 0 {
            return Err(CancelError::LedgerDoesNotAddUp(snapshot.entries[t.all[0]].entry));
        }
        let balance = t.bounty_paid_in.checked_sub(t.bounties_paid).ok_or(CancelError::BountiesDoNotAddUp)?;
        if t.heads > balance {
            return Err(CancelError::BountiesDoNotAddUp);
        }
        if let Some(deal) = &snapshot.deal {
            t.deal = Some(t.deal_parts(deal)?);
        }
        Ok(t)
    }

    /// An agreed deal's amounts in the order of `remaining`: exactly one part per entry still
    /// in, none for anybody else.
    fn deal_parts(&self, deal: &AgreedDeal) -> Result<Vec<u64>, CancelError> {
        let entries = &self.snapshot.entries;
        let mut parts = vec![None; self.remaining.len()];
        let mut sum = add(deal.left_to_play_for, 0)?;
        for part in &deal.parts {
            let k = self
                .remaining
                .binary_search_by_key(&part.entry, |&i| entries[i].entry)
                .map_err(|_| CancelError::DealDoesNotMatch(format!("entry {} has a part of the deal and is not still in", part.entry)))?;
            if parts[k].replace(part.amount).is_some() {
                return Err(CancelError::DealDoesNotMatch(format!("entry {} has two parts of the deal", part.entry)));
            }
            sum = add(sum, part.amount)?;
        }
        parts
            .into_iter()
            .zip(&self.remaining)
            .map(|(part, &i)| {
                part.ok_or_else(|| {
                    CancelError::DealDoesNotMatch(format!("entry {} is still in and has no part of the deal", entries[i].entry))
                })
            })
            .collect()
    }

    /// Entries still in.
    pub fn n(&self) -> u32 {
        self.remaining.len() as u32
    }

    /// Places paid by the table.
    pub fn paid_places(&self) -> u32 {
        self.table.places()
    }

    /// Every entry still in is sure of a prize: remaining ≤ paid places.
    pub fn in_the_money(&self) -> bool {
        self.n() <= self.paid_places()
    }

    /// The prize for place N (N = entries still in): the lowest prize not yet awarded, what each
    /// of them is sure of. Zero outside the money.
    pub fn place_prize(&self) -> u64 {
        prize(&self.table, self.n())
    }

    /// The pool the roll-forward rules divide: the collected prize pool (a Day 2's with the
    /// Day 1s' pools it holds), topped up to the guarantee once the field is final (no late
    /// registration, re-entry or rebuys open: 004 §4.37.2, applied by Floor to every profile;
    /// `docs/abort.md`).
    pub fn pool(&self) -> u64 {
        let collected = self.collected();
        match self.snapshot.guarantee {
            Some(g) if !self.snapshot.buying_open => collected.max(g),
            _ => collected,
        }
    }

    /// The prize pool as collected: the entries' prize-pool parts and the Day 1s' pools.
    /// Checked to fit by [`Tally::of`].
    pub fn collected(&self) -> u64 {
        self.contributions + self.transferred_in
    }

    /// What is left of a pool once the prizes already paid are taken out.
    pub fn open_prize_money(&self, pool: u64) -> u64 {
        pool.saturating_sub(self.prizes_paid)
    }

    /// Bounty money still in the bounty pool.
    pub fn bounty_balance(&self) -> u64 {
        self.bounty_paid_in - self.bounties_paid
    }

    /// The entry at an index.
    pub fn entry(&self, i: usize) -> &Entry {
        &self.snapshot.entries[i]
    }

    /// The whole field is two entries: a heads-up tournament (004 §4.37.1).
    pub fn heads_up(&self) -> bool {
        self.snapshot.entries.len() == 2
    }
}

/// The prize of one place, by binary search over the contiguous bands (0 outside the money).
pub fn prize(table: &PayoutTable, place: u32) -> u64 {
    let i = table.bands.partition_point(|b| b.to < place);
    table.bands.get(i).filter(|b| b.from <= place).map_or(0, |b| b.amount)
}

/// The payout table, checked: contiguous from place 1, never paying a place more than a better
/// one, within Floor's bounds.
fn prize_table(bands: &[PrizeBand]) -> Result<PayoutTable, CancelError> {
    let mut next = 1u32;
    let mut previous = u64::MAX;
    let mut total = 0u64;
    for b in bands {
        if b.from != next || b.to < b.from || b.amount > previous {
            return Err(CancelError::InvalidPrizeTable { place: next });
        }
        let places = u64::from(b.to - b.from + 1);
        total = places.checked_mul(b.amount).and_then(|t| add(total, t).ok()).ok_or(CancelError::TooLarge)?;
        next = b.to.checked_add(1).ok_or(CancelError::InvalidPrizeTable { place: b.to })?;
        previous = b.amount;
    }
    Ok(PayoutTable { bands: bands.iter().map(|b| Band { from: b.from, to: b.to, amount: b.amount }).collect() })
}
