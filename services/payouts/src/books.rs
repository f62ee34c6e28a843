//! A tournament's books, summed from its log: the ledger lines registration wrote for every
//! entry and refund, those the rebuys service wrote for every rebuy and add-on, and the payouts
//! log. Pure: the service folds commits into a [`Sums`] per tournament as they arrive.
//!
//! Every sum is checked. Definitions are bounded so that no sum of a valid log can leave a
//! `u64` (`floor_events::tournament::bounds`), but the books never trust that: a line that
//! would wrap a sum, or a refund of more than was paid, is recorded as the books' fault, and the
//! books then say `balanced: false` with that reason rather than a wrapped figure that happens
//! to balance (issue 17, reproduction 2).

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
    /// The first line the sums could not take (it would have wrapped a sum, or refunded more
    /// than was paid). Once set, the books are not balanced, whatever the sums say.
    pub fault: Option<String>,
}

impl Ledger {
    fn add(&mut self, line: &EntryLedger) {
        self.entries = self.entries.saturating_add(1);
        self.buy(line);
    }

    /// Adds a purchase's lines, all three or none.
    fn buy(&mut self, line: &EntryLedger) {
        let sums = (
            self.paid_in.checked_add(line.paid_in.amount),
            self.fees.checked_add(line.fee.amount),
            self.contributions.checked_add(line.prize_pool.amount),
        );
        match sums {
            (Some(paid_in), Some(fees), Some(contributions)) => {
                (self.paid_in, self.fees, self.contributions) = (paid_in, fees, contributions)
            }
            _ => self.fail(format!("a purchase of {} would take the sums past {}", line.paid_in, u64::MAX)),
        }
    }

    /// Takes a refund's lines back out, all three or none.
    fn refund(&mut self, line: &EntryLedger) {
        self.entries = self.entries.saturating_sub(1);
        let sums = (
            self.paid_in.checked_sub(line.paid_in.amount),
            self.fees.checked_sub(line.fee.amount),
            self.contributions.checked_sub(line.prize_pool.amount),
        );
        match sums {
            (Some(paid_in), Some(fees), Some(contributions)) => {
                (self.paid_in, self.fees, self.contributions) = (paid_in, fees, contributions)
            }
            _ => self.fail(format!("a refund of {} is more than was paid in", line.paid_in)),
        }
    }

    /// Records the first fault; a damaged log must not stop the books from being read.
    fn fail(&mut self, reason: String) {
        self.fault.get_or_insert(reason);
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
            PayoutEvent::PlacesAwarded { awards, .. } => {
                let paid = awards.iter().try_fold(self.prizes_paid, |sum, a| sum.checked_add(a.amount));
                match paid {
                    Some(paid) => self.prizes_paid = paid,
                    None => self.ledger.fail(format!("prizes awarded would take the prizes paid past {}", u64::MAX)),
                }
            }
            PayoutEvent::TournamentPaid { .. } => self.finished = true,
        }
    }

    /// Whether the books balance, and if not, why: `Err(reason)`.
    fn balance(&self) -> Result<(), String> {
        let ledger = &self.ledger;
        if let Some(fault) = &ledger.fault {
            return Err(fault.clone());
        }
        let too_large = || format!("a sum of the books does not fit in {}", u64::MAX);
        let prize_pool = ledger.contributions.checked_add(self.overlay).ok_or_else(too_large)?;
        let money_in = ledger.paid_in.checked_add(self.overlay).ok_or_else(too_large)?;
        let money_out = ledger.fees.checked_add(prize_pool).ok_or_else(too_large)?;
        if money_in != money_out {
            return Err(format!("paid in + overlay is {money_in}, fees + prize pool is {money_out}"));
        }
        if self.finished && prize_pool != self.prizes_paid {
            return Err(format!("the prize pool is {prize_pool} but {} was paid out", self.prizes_paid));
        }
        Ok(())
    }

    /// The books so far.
    pub fn books(&self, tournament_id: TournamentId) -> Books {
        let ledger = &self.ledger;
        let prize_pool = ledger.contributions.saturating_add(self.overlay);
        let balance = self.balance();
        let balanced = balance.is_ok();
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
            unbalanced: balance.err(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::registration::{EntryKind, EntryRegistered, EntryUnregistered};
    use floor_events::{EntryNo, Money, PlayerId};

    fn line(paid_in: u64, fee: u64) -> EntryLedger {
        let eur = |a| Money::new(a, Currency::EUR);
        EntryLedger { paid_in: eur(paid_in), fee: eur(fee), prize_pool: eur(paid_in.wrapping_sub(fee)) }
    }

    fn registered(entry: u32, ledger: EntryLedger) -> TournamentEvent {
        TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(entry),
            player: PlayerId::parse(&format!("p{entry}")).unwrap(),
            kind: EntryKind::Registration,
            new_player: true,
            ledger,
            at: "2027-01-10T18:00:00Z".parse().unwrap(),
        })
    }

    /// Issue 17, reproduction 2: three entries of `i64::MAX` + `i64::MAX` wrapped `paid_in` to
    /// 18446744073709551610 and the books still said balanced. A log like that can no longer be
    /// written (definitions are bounded); if one is read, the books say why they do not balance.
    #[test]
    fn sums_that_would_wrap_never_balance() {
        let huge = 9_223_372_036_854_775_807u64;
        let entry = EntryLedger {
            paid_in: Money::new(huge.wrapping_add(huge), Currency::EUR),
            fee: Money::new(huge, Currency::EUR),
            prize_pool: Money::new(huge, Currency::EUR),
        };
        let log: Vec<TournamentEvent> = (1..=3).map(|n| registered(n, entry)).collect();
        let b = books(TournamentId::new(), &log, [], []);
        assert!(!b.balanced, "{b:?}");
        assert!(b.unbalanced.is_some());
        let b = books(TournamentId::new(), &[registered(1, line(u64::MAX, 0)), registered(2, line(1, 0))], [], []);
        assert!(!b.balanced && b.unbalanced.is_some(), "{b:?}");
        assert_eq!(b.paid_in, u64::MAX, "the line that would wrap is not taken");
    }

    #[test]
    fn a_refund_of_more_than_was_paid_unbalances_the_books() {
        let refund = TournamentEvent::EntryUnregistered(EntryUnregistered {
            entry: EntryNo(1),
            player: PlayerId::parse("p1").unwrap(),
            refund: line(5_000, 500),
            by_operator: false,
            player_left: true,
            at: "2027-01-10T18:00:00Z".parse().unwrap(),
        });
        let b = books(TournamentId::new(), &[registered(1, line(1_100, 100)), refund], [], []);
        assert!(!b.balanced && b.unbalanced.is_some(), "{b:?}");
        let b = books(TournamentId::new(), &[registered(1, line(1_100, 100))], [], []);
        assert!(b.balanced && b.unbalanced.is_none(), "{b:?}");
    }
}
