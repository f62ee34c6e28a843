//! A tournament's books, summed from its log: the ledger lines registration wrote for every
//! entry and refund, those the rebuys service wrote for every rebuy and add-on, and the payouts
//! log. Pure: the service folds commits into a [`Sums`] per tournament as they arrive.

use floor_events::payouts::{Books, PayoutEvent};
use floor_events::rebuys::RebuyEvent;
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
    /// Rebuys bought.
    pub rebuys: u32,
    /// Add-ons bought.
    pub add_ons: u32,
}

impl Ledger {
    fn add(&mut self, line: &EntryLedger) {
        self.entries += 1;
        self.buy(line);
    }

    fn buy(&mut self, line: &EntryLedger) {
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

    /// Folds one rebuys event: rebuys and add-ons pay in like entries, without being entries.
    pub fn apply_purchase(&mut self, event: &RebuyEvent) {
        match event {
            RebuyEvent::RebuyTaken { ledger, .. } => {
                self.rebuys += 1;
                self.buy(ledger);
            }
            RebuyEvent::AddOnTaken { ledger, .. } => {
                self.add_ons += 1;
                self.buy(ledger);
            }
            _ => {}
        }
    }
}

/// One tournament's books as a running sum: the ledger, and what the payouts log says.
///
/// The payouts service keeps one per tournament, folded as commits arrive, so a `books`
/// request is answered from memory instead of by reading the tournament's whole log (half a
/// million commits at 250,000 entrants).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sums {
    ledger: Ledger,
    overlay: u64,
    prizes_paid: u64,
    finished: bool,
}

impl Sums {
    /// Whether the tournament's creation has been folded (it sets the currency): a tournament
    /// known only from other logs has no books.
    pub fn is_created(&self) -> bool {
        self.ledger.currency.is_some()
    }

    /// Folds one registration event.
    pub fn apply_registration(&mut self, event: &TournamentEvent) {
        self.ledger.apply(event);
    }

    /// Folds one rebuys event.
    pub fn apply_purchase(&mut self, event: &RebuyEvent) {
        self.ledger.apply_purchase(event);
    }

    /// Folds one payouts event.
    pub fn apply_payout(&mut self, event: &PayoutEvent) {
        match event {
            PayoutEvent::PayoutTableLocked { overlay, .. } => self.overlay = overlay.amount,
            PayoutEvent::PlacesAwarded { awards, .. } => self.prizes_paid += awards.iter().map(|a| a.amount).sum::<u64>(),
            PayoutEvent::TournamentPaid { .. } => self.finished = true,
        }
    }

    /// The books so far.
    pub fn books(&self, tournament_id: TournamentId) -> Books {
        let ledger = &self.ledger;
        let prize_pool = ledger.contributions + self.overlay;
        let balanced = ledger.paid_in + self.overlay == ledger.fees + prize_pool && (!self.finished || prize_pool == self.prizes_paid);
        Books {
            tournament_id,
            currency: ledger.currency.unwrap_or(Currency::EUR),
            entries: ledger.entries,
            rebuys: ledger.rebuys,
            add_ons: ledger.add_ons,
            paid_in: ledger.paid_in,
            fees: ledger.fees,
            contributions: ledger.contributions,
            overlay: self.overlay,
            prize_pool,
            prizes_paid: self.prizes_paid,
            finished: self.finished,
            balanced,
        }
    }
}

/// The books of `tournament_id` from its registration, rebuys and payout events.
pub fn books<'a>(
    tournament_id: TournamentId,
    registration: impl IntoIterator<Item = &'a TournamentEvent>,
    purchases: impl IntoIterator<Item = &'a RebuyEvent>,
    payouts: impl IntoIterator<Item = &'a PayoutEvent>,
) -> Books {
    let mut sums = Sums::default();
    registration.into_iter().for_each(|e| sums.apply_registration(e));
    purchases.into_iter().for_each(|e| sums.apply_purchase(e));
    payouts.into_iter().for_each(|e| sums.apply_payout(e));
    sums.books(tournament_id)
}
