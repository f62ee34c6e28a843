//! A tournament's books, summed from its log: the ledger lines registration wrote for every
//! entry and refund, and the payouts log. Pure: the service loads the two subjects and folds.

use floor_events::payouts::{Books, PayoutEvent};
use floor_events::registration::TournamentEvent;
use floor_events::tournament::EntryLedger;
use floor_events::{Currency, TournamentId};

/// Running sums of one tournament's money.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    /// The currency (of the buy-in).
    pub currency: Option<Currency>,
    /// Entries less refunds.
    pub entries: u32,
    /// Paid in less refunds.
    pub paid_in: u64,
    /// Fees less refunds.
    pub fees: u64,
    /// Prize-pool contributions less refunds.
    pub contributions: u64,
}

impl Ledger {
    fn add(&mut self, line: &EntryLedger) {
        self.entries += 1;
        self.paid_in += line.paid_in.amount;
        self.fees += line.fee.amount;
        self.contributions += line.prize_pool.amount;
    }

    fn refund(&mut self, line: &EntryLedger) {
        self.entries = self.entries.saturating_sub(1);
        // Saturating: a refund never exceeds what was paid, and a damaged log must not stop
        // the books from being read.
        self.paid_in = self.paid_in.saturating_sub(line.paid_in.amount);
        self.fees = self.fees.saturating_sub(line.fee.amount);
        self.contributions = self.contributions.saturating_sub(line.prize_pool.amount);
    }

    /// Folds one registration event.
    pub fn apply(&mut self, event: &TournamentEvent) {
        match event {
            TournamentEvent::TournamentCreated(created) => self.currency = Some(created.definition.buy_in.currency),
            TournamentEvent::EntryRegistered(entry) => self.add(&entry.ledger),
            TournamentEvent::EntryUnregistered(left) => self.refund(&left.refund),
            TournamentEvent::TournamentCancelled(cancelled) => {
                for r in &cancelled.refunds {
                    self.refund(&r.refund);
                }
            }
            _ => {}
        }
    }
}

/// The books of `tournament_id` from its registration events and its payout events.
pub fn books<'a>(
    tournament_id: TournamentId,
    registration: impl IntoIterator<Item = &'a TournamentEvent>,
    payouts: impl IntoIterator<Item = &'a PayoutEvent>,
) -> Books {
    let mut ledger = Ledger::default();
    for e in registration {
        ledger.apply(e);
    }
    let (mut overlay, mut prizes_paid, mut finished) = (0, 0, false);
    for e in payouts {
        match e {
            PayoutEvent::PayoutTableLocked { overlay: o, .. } => overlay = o.amount,
            PayoutEvent::PlacesAwarded { awards, .. } => prizes_paid += awards.iter().map(|a| a.amount).sum::<u64>(),
            PayoutEvent::TournamentPaid { .. } => finished = true,
        }
    }
    let prize_pool = ledger.contributions + overlay;
    let balanced = ledger.paid_in + overlay == ledger.fees + prize_pool && (!finished || prize_pool == prizes_paid);
    Books {
        tournament_id,
        currency: ledger.currency.unwrap_or(Currency::EUR),
        entries: ledger.entries,
        paid_in: ledger.paid_in,
        fees: ledger.fees,
        contributions: ledger.contributions,
        overlay,
        prize_pool,
        prizes_paid,
        finished,
        balanced,
    }
}
