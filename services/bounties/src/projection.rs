//! The books' read model of a tournament's bounties, folded from its bounty events. Pure and
//! replayable: `Bounties::default()` then [`Bounties::apply`] per commit, in order; then
//! [`Bounties::books`]: what came into the bounty pool, what went back, what was paid out, and
//! what is left.
//!
//! What players see of the bounties is the lobby's own fold (`services/lobby/src/document/bounties.rs`);
//! the bounties service keeps no lobby view of its own (issue 35).

use floor_events::bounties::BountyEvent;

/// One tournament's bounties as the books see them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bounties {
    books: BountyBooks,
}

/// The bounty pool's books, in minor units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BountyBooks {
    /// Paid into the bounty pool (entries, re-entries, rebuys).
    pub paid_in: u64,
    /// Paid back (refunds before the start).
    pub refunded: u64,
    /// Paid out in cash: bounties at eliminations and the winner's.
    pub paid_out: u64,
    /// Moved onto eliminators' own bounties (progressive knockout): still in the pool.
    pub added_to_heads: u64,
}

impl BountyBooks {
    /// What is left in the pool: zero once the tournament is won.
    pub fn balance(&self) -> u64 {
        self.paid_in.saturating_sub(self.refunded).saturating_sub(self.paid_out)
    }
}

impl Bounties {
    /// Folds one commit's events.
    pub fn apply(&mut self, events: &[BountyEvent]) {
        for e in events {
            self.apply_one(e);
        }
    }

    fn apply_one(&mut self, event: &BountyEvent) {
        use BountyEvent::*;
        match event {
            BountyPaidIn { amount, .. } => self.books.paid_in += amount.amount,
            BountyRefunded { amount, .. } => self.books.refunded += amount.amount,
            BountyPaid { cash, added_to_own, .. } => {
                self.books.paid_out += cash.amount;
                self.books.added_to_heads += added_to_own.amount;
            }
            WinnerBounty { own, left_over, .. } => self.books.paid_out += own.amount + left_over.amount,
            BountiesConfigured { .. }
            | TargetNamed { .. }
            | TargetEliminated { .. }
            | MysteryStageStarted { .. }
            | EnvelopeDrawn { .. }
            | EntryKnockedOut { .. }
            | BountiesStarted { .. }
            | TargetAbsent { .. }
            | MysterySeedRevealed { .. } => {}
        }
    }

    /// The books' view.
    pub fn books(&self) -> BountyBooks {
        self.books
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::bounties::{BountyTerms, PaidInBy};
    use floor_events::{Currency, EntryNo, Money, PlayerId, TournamentId};

    fn eur(cents: u64) -> Money {
        Money::new(cents, Currency::EUR)
    }

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    #[test]
    fn the_books_count_what_came_in_what_was_paid_and_what_moved_onto_heads() {
        let paid_in =
            |entry, name| BountyEvent::BountyPaidIn { entry: EntryNo(entry), player: p(name), by: PaidInBy::Entry, amount: eur(1_000) };
        let mut pko = Bounties::default();
        pko.apply(&[
            BountyEvent::BountiesConfigured {
                tournament_id: TournamentId::new(),
                terms: BountyTerms::Progressive { share_bps: 5_000, cash_share_bps: 5_000 },
                currency: Currency::EUR,
            },
            paid_in(1, "ana"),
            paid_in(2, "ben"),
            paid_in(3, "cleo"),
            BountyEvent::EntryKnockedOut { entry: EntryNo(3), player: p("cleo"), bounty: eur(1_000), unclaimed: false },
            BountyEvent::BountyPaid {
                to: EntryNo(1),
                player: p("ana"),
                eliminated: EntryNo(3),
                eliminated_player: p("cleo"),
                cash: eur(500),
                added_to_own: eur(500),
            },
        ]);
        assert_eq!(pko.books(), BountyBooks { paid_in: 3_000, refunded: 0, paid_out: 500, added_to_heads: 500 });
        assert_eq!(pko.books().balance(), 2_500, "the heads left: 1,500 + 1,000");
    }
}
