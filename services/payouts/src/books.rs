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
//! `paid_in + overlay = fees + prize_pool + bounty_pool + capped`, and at the end
//! `bounty_pool = bounties_paid`.
//!
//! **The 95 % cap** (`reel-cz`, 003 App. 1 b ix, issue 38: "Provozovatel nevyplatí na výhrách
//! více než 95 % z úhrnné výše všech vkladů", the operator will not pay out in prizes more than
//! 95 % of all stakes): a locked table whose pool is below its contributions plus overlay was
//! capped; `capped`, the difference, is the operator's, as the fees are, and the prize pool the
//! books expect paid out is the capped one (`floor_rules::field::prize_cap`).
//!
//! **A lottery sit & go** (issue 37, 000 §16.10): its table is locked from the draw, whose pool
//! is the multiplier × the buy-in, not the contributions. Drawn above them, the difference is the
//! operator's money in, as an overlay (`overlay`); drawn below, the operator keeps it
//! (`lottery_kept`, counted as the fees are): `paid_in + overlay = fees + prize_pool + capped +
//! lottery_kept`, to the cent, either way, and the prize pool the books expect paid out is the
//! drawn one. (The books' reply has no line of its own for it yet: it is `contributions +
//! overlay − prize_pool`.)
//!
//! Every sum is checked. Definitions are bounded so that no sum of a valid log can leave a
//! `u64` (`floor_events::tournament::bounds`), but the books never trust that: a line that
//! would wrap a sum, or a refund of more than was paid, is recorded as the books' fault, and the
//! books then say `balanced: false` with that reason rather than a wrapped figure that happens
//! to balance (issue 17, reproduction 2).

use floor_events::abort::AbortEvent;
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
    /// Refunds paid (gross: `paid_in` is net of them).
    #[serde(default)]
    pub refunded: u64,
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
        match (sums, self.refunded.checked_add(line.paid_in.amount)) {
            ((Some(paid_in), Some(fees), Some(contributions), Some(bounty_pool)), Some(refunded)) => {
                (self.paid_in, self.fees, self.contributions, self.bounty_pool) = (paid_in, fees, contributions, bounty_pool);
                self.refunded = refunded;
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
            // A flight's Day 2 entry carried from a Day 1 (issue 36): an entry of the field,
            // paid in its Day 1 (whose pool comes over whole: `pool_transferred`).
            TournamentEvent::EntryCarried(carried) if carried.outcome == floor_events::flights::CarryOutcome::Registered => {
                self.entries = self.entries.saturating_add(1);
            }
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
    /// How the tournament ended, when it did by a cancellation.
    #[serde(default)]
    cancelled: Option<Cancelled>,
    /// The first money that moved after the tournament was over (a purchase, an award): the
    /// books then do not reconcile, whatever the sums say.
    #[serde(default)]
    after_end: Option<String>,
    /// What 003's 95 % cap kept out of the locked pool (contributions + overlay − pool): the
    /// operator's, as the fees are.
    #[serde(default)]
    capped: u64,
    /// A lottery sit & go (issue 37): its pool is drawn, not contributed.
    #[serde(default)]
    lottery: bool,
    /// What a lottery game's draw left of the contributions (contributions − drawn pool, when
    /// the draw is below them): the operator's, as the fees are. A draw above them is the
    /// overlay, the operator's money in.
    #[serde(default)]
    lottery_kept: u64,
    /// A flight's Day 1 (issue 36): its pool goes to its Day 2, not to prizes.
    #[serde(default)]
    day1: bool,
    /// A Day 2's Day 1 pools paid over to it (money in); a Day 1's pool paid over (money out),
    /// `Some` once transferred (the Day 1 is then over).
    #[serde(default)]
    transferred_in: u64,
    #[serde(default)]
    transferred_out: Option<u64>,
}

/// A cancellation, as the books take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Cancelled {
    /// Registration's, before the start: every live entry refunded in full.
    BeforeStart,
    /// The abort service's, in play: what its books claim, to be checked against these.
    InPlay {
        /// The paid in the cancellation's snapshot held.
        paid_in: u64,
        /// Operator money in: the overlay it counted and any cover beyond the pool.
        operator_in: u64,
        /// Fees the operator keeps.
        fees_kept: u64,
        /// The statements' sum.
        statements: u64,
    },
}

impl Sums {
    /// Whether the tournament's creation has been folded (it sets the currency): a tournament
    /// known only from other logs has no books.
    pub fn is_created(&self) -> bool {
        self.ledger.currency.is_some()
    }

    /// Whether the tournament is over: paid (and its bounties settled, if it has any) or
    /// cancelled.
    fn over(&self) -> bool {
        self.cancelled.is_some()
            || self.transferred_out.is_some()
            || (self.finished && (self.ledger.bounty.is_none() || self.bounties_settled))
    }

    /// Notes the first money that moved after the end.
    fn moved_after_end(&mut self, what: impl FnOnce() -> String) {
        if self.cancelled.is_some() || self.finished {
            let when = if self.cancelled.is_some() { "the cancellation" } else { "the tournament was paid" };
            self.after_end.get_or_insert_with(|| format!("{} after {when}", what()));
        }
    }

    /// Folds one registration event.
    pub fn apply_registration(&mut self, event: &TournamentEvent) {
        if let TournamentEvent::EntryRegistered(e) = event {
            self.moved_after_end(|| format!("entry {} bought for {}", e.entry, e.ledger.paid_in));
        }
        self.ledger.apply(event);
        if let TournamentEvent::TournamentCreated(created) = event {
            self.lottery = created.definition.lottery.is_some();
            self.day1 = created.definition.flight.is_some();
        }
        if let TournamentEvent::TournamentCancelled(_) = event {
            self.cancelled.get_or_insert(Cancelled::BeforeStart);
        }
    }

    /// Folds one rebuys event.
    pub fn apply_purchase(&mut self, event: &RebuyEvent) {
        match event {
            RebuyEvent::RebuyTaken { ledger, .. } => self.moved_after_end(|| format!("a rebuy of {}", ledger.paid_in)),
            RebuyEvent::AddOnTaken { ledger, .. } => self.moved_after_end(|| format!("an add-on of {}", ledger.paid_in)),
            _ => {}
        }
        self.ledger.apply_purchase(event);
    }

    /// Folds one abort event: a cancellation in play closes the books with its statements.
    pub fn apply_abort(&mut self, event: &AbortEvent) {
        if let AbortEvent::Cancelled { cancellation, .. } = event {
            self.cancelled_in_play(&cancellation.books);
        }
    }

    /// A cancellation in play with these books: what they claim is taken as the end, to be
    /// checked against the ledgers (`reconcile`).
    fn cancelled_in_play(&mut self, b: &floor_events::abort::statement::Books) {
        {
            let operator_in = b.overlay.checked_add(b.operator_cover);
            match operator_in {
                Some(operator_in) => {
                    let claimed = Cancelled::InPlay { paid_in: b.paid_in, operator_in, fees_kept: b.fees_kept, statements: b.statements };
                    self.cancelled.get_or_insert(claimed);
                }
                None => self.ledger.fail(format!("the cancellation's operator money does not fit in {}", u64::MAX)),
            }
        }
    }

    /// Folds one payouts event.
    pub fn apply_payout(&mut self, event: &PayoutEvent) {
        match event {
            PayoutEvent::PayoutTableLocked { overlay, contributions, pool, .. } => {
                self.overlay = overlay.amount;
                // 003 App. 1 b ix: a pool below its contributions and overlay was capped; a
                // lottery game's below them was drawn so (issue 37).
                let below = contributions.amount.saturating_add(overlay.amount).saturating_sub(pool.amount);
                if self.lottery {
                    self.lottery_kept = below;
                } else {
                    self.capped = below;
                }
            }
            PayoutEvent::PlacesAwarded { awards, .. } => {
                if self.cancelled.is_some() {
                    self.moved_after_end(|| format!("{} places awarded", awards.len()));
                }
                let paid = awards.iter().try_fold(self.prizes_paid, |sum, a| sum.checked_add(a.amount));
                match paid {
                    Some(paid) => self.prizes_paid = paid,
                    None => self.ledger.fail(format!("prizes awarded would take the prizes paid past {}", u64::MAX)),
                }
            }
            PayoutEvent::TournamentPaid { .. } => self.finished = true,
            // Issue 36: out of a Day 1, into its Day 2.
            PayoutEvent::PoolTransferred(transfer) if self.day1 => {
                self.moved_after_end(|| format!("a pool of {} transferred", transfer.amount));
                self.transferred_out = Some(transfer.amount.amount);
            }
            PayoutEvent::PoolTransferred(transfer) => {
                self.moved_after_end(|| format!("a Day 1 pool of {} transferred in", transfer.amount));
                match self.transferred_in.checked_add(transfer.amount.amount) {
                    Some(sum) => self.transferred_in = sum,
                    None => self.ledger.fail(format!("a transfer of {} would take the sums past {}", transfer.amount, u64::MAX)),
                }
            }
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
        let prize_pool =
            ledger.contributions.checked_add(self.overlay).and_then(|p| p.checked_add(self.transferred_in)).ok_or_else(too_large)?;
        let prize_pool =
            prize_pool.checked_sub(self.capped).ok_or_else(|| format!("the cap kept {} of a prize pool of {prize_pool}", self.capped))?;
        let prize_pool = prize_pool
            .checked_sub(self.lottery_kept)
            .ok_or_else(|| format!("the lottery draw kept {} of a prize pool of {prize_pool}", self.lottery_kept))?;
        let money_in = ledger.paid_in.checked_add(self.overlay).and_then(|m| m.checked_add(self.transferred_in)).ok_or_else(too_large)?;
        let money_out = ledger
            .fees
            .checked_add(prize_pool)
            .and_then(|m| m.checked_add(ledger.bounty_pool))
            .and_then(|m| m.checked_add(self.capped))
            .and_then(|m| m.checked_add(self.lottery_kept))
            .ok_or_else(too_large)?;
        if money_in != money_out {
            return Err(format!("paid in + overlay is {money_in}, fees + prize pool + bounty pool + capped + lottery kept is {money_out}"));
        }
        if self.finished && prize_pool != self.prizes_paid {
            return Err(format!("the prize pool is {prize_pool} but {} was paid out", self.prizes_paid));
        }
        if let Some(out) = self.transferred_out.filter(|out| *out != prize_pool || self.prizes_paid != 0) {
            return Err(format!("the Day 1's prize pool is {prize_pool} but {out} went to its Day 2 and {} to prizes", self.prizes_paid));
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
        self.reconcile()
    }

    /// Money in against money out (issue 33, defect 5), from the ledger lines as each service
    /// wrote them, never from another service's totals: what a cancellation claims is checked
    /// against them. Nothing is paid out that was not paid in; once the tournament is over,
    /// nothing is held, and nothing moved after the end.
    fn reconcile(&self) -> Result<(), String> {
        if let Some(after) = &self.after_end {
            return Err(after.clone());
        }
        let (money_in, money_out) = self.flows();
        let held = money_in - money_out;
        if held < 0 {
            return Err(format!("{money_out} paid out is more than the {money_in} paid in: {} short", -held));
        }
        match self.cancelled {
            Some(Cancelled::BeforeStart) if self.ledger.entries > 0 || held != 0 => Err(format!(
                "cancelled before the start, but {held} of the players' money was not refunded ({} entries without a refund)",
                self.ledger.entries
            )),
            Some(Cancelled::InPlay { paid_in, .. }) if paid_in != self.ledger.paid_in => Err(format!(
                "the cancellation's snapshot holds {paid_in} paid in, the ledgers {}: {} bought outside it",
                self.ledger.paid_in,
                i128::from(self.ledger.paid_in) - i128::from(paid_in)
            )),
            Some(_) if held != 0 => Err(format!("cancelled, but {held} paid in was neither refunded, paid out nor kept")),
            None if self.over() && held != 0 => Err(format!("paid to the end, but {held} paid in is still held")),
            _ => Ok(()),
        }
    }

    /// (money in, money out), wide enough for any sums: paid in (net of refunds), the overlay
    /// and operator cover in; fees kept, prizes and bounties paid and statements out.
    fn flows(&self) -> (i128, i128) {
        let ledger = &self.ledger;
        // Kept by the operator: the fees, and what 003's 95 % cap kept out of the pool (a
        // cancellation in play says itself what it kept).
        let (operator_in, kept, statements) = match self.cancelled {
            Some(Cancelled::InPlay { operator_in, fees_kept, statements, .. }) => (operator_in, i128::from(fees_kept), statements),
            _ => (self.overlay, i128::from(ledger.fees) + i128::from(self.capped) + i128::from(self.lottery_kept), 0),
        };
        let money_in = i128::from(ledger.paid_in) + i128::from(operator_in) + i128::from(self.transferred_in);
        let money_out = kept
            + i128::from(self.prizes_paid)
            + i128::from(self.bounties_paid)
            + i128::from(statements)
            + i128::from(self.transferred_out.unwrap_or(0));
        (money_in, money_out)
    }

    /// The books so far.
    pub fn books(&self, tournament_id: TournamentId) -> Books {
        let ledger = &self.ledger;
        let prize_pool = ledger
            .contributions
            .saturating_add(self.overlay)
            .saturating_add(self.transferred_in)
            .saturating_sub(self.capped)
            .saturating_sub(self.lottery_kept);
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
            refunded: ledger.refunded,
            statements: match self.cancelled {
                Some(Cancelled::InPlay { statements, .. }) => statements,
                _ => 0,
            },
            held: {
                let (money_in, money_out) = self.flows();
                u64::try_from(money_in - money_out).unwrap_or(0)
            },
            lottery_kept: self.lottery_kept,
            transferred_in: self.transferred_in,
            transferred_out: self.transferred_out.unwrap_or(0),
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
#[path = "books_tests.rs"]
mod tests;
