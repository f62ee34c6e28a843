//! A tournament's books, summed from its log: the ledger lines registration wrote for every
//! entry and refund, those the rebuys service wrote for every rebuy and add-on, the payouts log
//! and the bounties log. Pure: the service folds commits into a [`Sums`] per tournament as they
//! arrive.
//!
//! **Bounties.** In a tournament with bounty terms, each entry's, re-entry's and rebuy's
//! prize-pool line is split: its bounty part (the terms' share, rounded down:
//! [`BountyTerms::bounty_part`], the same function the bounties service writes its lines with)
//! goes to the bounty pool, the rest to the prize pool; an add-on carries no bounty. The split is
//! computed from the definition, not read from the bounties log, so the payout table, locked
//! from the prize pool, never waits for (or races) the bounties service. The bounties log gives
//! what was paid out, and its own ledger lines, which must be the same bounty pool once the
//! bounties are settled:
//! `paid_in + overlay = fees + prize_pool + bounty_pool`, and at the end
//! `bounty_pool = bounties_paid`.
//!
//! Every sum is checked. Definitions are bounded so that no sum of a valid log can leave a
//! `u64` (`floor_events::tournament::bounds`), but the books never trust that: a line that
//! would wrap a sum, or a refund of more than was paid, is recorded as the books' fault, and the
//! books then say `balanced: false` with that reason rather than a wrapped figure that happens
//! to balance (issue 17, reproduction 2).

use floor_events::bounties::{BountyEvent, BountyTerms};
use floor_events::payouts::{Books, PayoutEvent};
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::TournamentEvent;
use floor_events::tournament::EntryLedger;
use floor_events::{Currency, TournamentId};

/// Running sums of one tournament's money.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ledger {
    /// The currency (of the buy-in).
    pub currency: Option<Currency>,
    /// Entries less refunds.
    pub entries: u32,
    /// Paid in less refunds.
    pub paid_in: u64,
    /// Fees less refunds.
    pub fees: u64,
    /// Prize-pool contributions less refunds (and less their bounty parts).
    pub contributions: u64,
    /// The tournament's bounty terms, if it has bounties.
    #[serde(default)]
    pub bounty: Option<BountyTerms>,
    /// The bounty parts of entries, re-entries and rebuys, less refunds.
    #[serde(default)]
    pub bounty_pool: u64,
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
        self.buy(line, true);
    }

    /// A line's prize-pool part split into (prize pool, bounty pool): the bounty part only for
    /// a purchase that carries one (entries and rebuys, not add-ons) in a bounty tournament.
    fn split(&self, line: &EntryLedger, carries_bounty: bool) -> (u64, u64) {
        let bounty = match (&self.bounty, carries_bounty) {
            (Some(terms), true) => terms.bounty_part(line.prize_pool).amount.min(line.prize_pool.amount),
            _ => 0,
        };
        (line.prize_pool.amount - bounty, bounty)
    }

    /// Adds a purchase's lines, all of them or none.
    fn buy(&mut self, line: &EntryLedger, carries_bounty: bool) {
        let (prize_pool, bounty) = self.split(line, carries_bounty);
        let sums = (
            self.paid_in.checked_add(line.paid_in.amount),
            self.fees.checked_add(line.fee.amount),
            self.contributions.checked_add(prize_pool),
            self.bounty_pool.checked_add(bounty),
        );
        match sums {
            (Some(paid_in), Some(fees), Some(contributions), Some(bounty_pool)) => {
                (self.paid_in, self.fees, self.contributions, self.bounty_pool) = (paid_in, fees, contributions, bounty_pool)
            }
            _ => self.fail(format!("a purchase of {} would take the sums past {}", line.paid_in, u64::MAX)),
        }
    }

    /// Takes a refund's lines back out, all of them or none.
    fn refund(&mut self, line: &EntryLedger) {
        self.entries = self.entries.saturating_sub(1);
        let (prize_pool, bounty) = self.split(line, true);
        let sums = (
            self.paid_in.checked_sub(line.paid_in.amount),
            self.fees.checked_sub(line.fee.amount),
            self.contributions.checked_sub(prize_pool),
            self.bounty_pool.checked_sub(bounty),
        );
        match sums {
            (Some(paid_in), Some(fees), Some(contributions), Some(bounty_pool)) => {
                (self.paid_in, self.fees, self.contributions, self.bounty_pool) = (paid_in, fees, contributions, bounty_pool)
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
            TournamentEvent::TournamentCreated(created) => {
                self.currency = Some(created.definition.buy_in.currency);
                self.bounty = created.definition.bounty.clone();
            }
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
                self.buy(ledger, true);
            }
            RebuyEvent::AddOnTaken { ledger, .. } => {
                self.add_ons += 1;
                self.buy(ledger, false);
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
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sums {
    ledger: Ledger,
    overlay: u64,
    prizes_paid: u64,
    finished: bool,
    /// The bounties log: its paid-in lines less refunds, what it paid out, whether the winner's
    /// bounty is recorded (the pool settled).
    #[serde(default)]
    bounty_lines: u64,
    #[serde(default)]
    bounties_paid: u64,
    #[serde(default)]
    bounties_settled: bool,
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
            // A deal moves no money by itself: its amounts are paid as places are awarded.
            _ => {}
        }
    }

    /// Folds one bounties event.
    pub fn apply_bounty(&mut self, event: &BountyEvent) {
        let (lines, paid) = (self.bounty_lines, self.bounties_paid);
        let sums = match event {
            BountyEvent::BountyPaidIn { amount, .. } => (lines.checked_add(amount.amount), Some(paid)),
            BountyEvent::BountyRefunded { amount, .. } => (lines.checked_sub(amount.amount), Some(paid)),
            BountyEvent::BountyPaid { cash, .. } => (Some(lines), paid.checked_add(cash.amount)),
            BountyEvent::WinnerBounty { own, left_over, .. } => {
                self.bounties_settled = true;
                (Some(lines), paid.checked_add(own.amount).and_then(|p| p.checked_add(left_over.amount)))
            }
            _ => return,
        };
        match sums {
            (Some(lines), Some(paid)) => (self.bounty_lines, self.bounties_paid) = (lines, paid),
            _ => self.ledger.fail(format!("the bounty line {event:?} does not fit the bounty sums")),
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
        let money_out = ledger.fees.checked_add(prize_pool).and_then(|m| m.checked_add(ledger.bounty_pool)).ok_or_else(too_large)?;
        if money_in != money_out {
            return Err(format!("paid in + overlay is {money_in}, fees + prize pool + bounty pool is {money_out}"));
        }
        if self.finished && prize_pool != self.prizes_paid {
            return Err(format!("the prize pool is {prize_pool} but {} was paid out", self.prizes_paid));
        }
        if self.bounties_settled {
            let pool = ledger.bounty_pool;
            if self.bounty_lines != pool {
                return Err(format!("the bounty pool is {pool} but the bounties log's lines say {}", self.bounty_lines));
            }
            if self.bounties_paid != pool {
                return Err(format!("the bounty pool is {pool} but {} bounty money was paid out", self.bounties_paid));
            }
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
            bounty_pool: ledger.bounty_pool,
            bounties_paid: self.bounties_paid,
            bounties_settled: self.bounties_settled,
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

    /// Issue 21: a progressive knockout's books. Three entries of 10.00 + 1.00 at a 50 % bounty
    /// share: 15.00 to the prize pool, 15.00 to the bounty pool; a rebuy adds 5.00 to each;
    /// an add-on only to the prize pool.
    #[test]
    fn a_bounty_tournaments_prize_pool_leaves_out_the_bounty_parts_and_the_bounty_pool_is_paid_out_to_the_cent() {
        use floor_events::bounties::{BountyEvent, PaidInBy};
        use floor_events::registration::TournamentCreated;
        let t = TournamentId::new();
        let definition = serde_json::from_str(
            r#"{"name": "PKO", "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
                "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
                "capacity": 100, "min_players": 2, "entry_model": {"kind": "freezeout"}, "profile": "tda-2024",
                "bounty": {"kind": "progressive", "share_bps": 5001}}"#,
        )
        .unwrap();
        let created = TournamentEvent::TournamentCreated(TournamentCreated {
            tournament_id: t,
            definition,
            at: "2027-01-01T00:00:00Z".parse().unwrap(),
        });
        let mut sums = Sums::default();
        sums.apply_registration(&created);
        (1..=3).for_each(|e| sums.apply_registration(&registered(e, line(1_100, 100))));
        sums.apply_purchase(&crate::domain_tests::bought(1, false, 1_000, 100));
        sums.apply_purchase(&crate::domain_tests::bought(2, true, 1_000, 0));
        let b = sums.books(t);
        // 50.01 % of 10.00 is 5.001: 5.00 to the bounty pool, the cent's tenth stays in the prize pool.
        assert_eq!((b.paid_in, b.fees, b.bounty_pool, b.contributions), (5_400, 400, 2_000, 3_000), "{b:?}");
        assert!(b.balanced, "paid in = fees + prize pool + bounty pool: {b:?}");

        let eur = |a| Money::new(a, Currency::EUR);
        let p = |e: u32| PlayerId::parse(&format!("p{e}")).unwrap();
        for (entry, amount, by) in
            [(1, 500, PaidInBy::Entry), (2, 500, PaidInBy::Entry), (3, 500, PaidInBy::Entry), (1, 500, PaidInBy::Rebuy { number: 1 })]
        {
            sums.apply_bounty(&BountyEvent::BountyPaidIn { entry: EntryNo(entry), player: p(entry), by, amount: eur(amount) });
        }
        let paid = BountyEvent::BountyPaid {
            to: EntryNo(1),
            player: p(1),
            eliminated: EntryNo(3),
            eliminated_player: p(3),
            cash: eur(250),
            added_to_own: eur(250),
        };
        sums.apply_bounty(&paid);
        assert_eq!((sums.books(t).bounties_paid, sums.books(t).bounties_settled), (250, false));
        let mut short = sums.clone();
        sums.apply_bounty(&BountyEvent::WinnerBounty { entry: EntryNo(1), player: p(1), own: eur(1_250), left_over: eur(500) });
        let b = sums.books(t);
        assert!(b.balanced && b.bounties_settled && b.bounties_paid == 2_000, "{b:?}");
        short.apply_bounty(&BountyEvent::WinnerBounty { entry: EntryNo(1), player: p(1), own: eur(1_250), left_over: eur(499) });
        let b = short.books(t);
        assert!(!b.balanced && b.unbalanced.is_some(), "a cent short at the end: {b:?}");
    }
}
