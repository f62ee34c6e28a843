//! Read models of a tournament's bounties, folded from its bounty events. Pure and replayable:
//! `Bounties::default()` then [`Bounties::apply`] per commit, in order.
//!
//! - the lobby's view ([`Bounties::lobby`]): each remaining entry's bounty (knockout and
//!   progressive knockout), the bounties paid so far, the mystery envelopes left, and the target
//!   when it is public (or once eliminated);
//! - the books' view ([`Bounties::books`]): what came into the bounty pool, what went back,
//!   what was paid out, and what is left.

use floor_events::bounties::{BountyEvent, BountyTerms, Envelopes};
use floor_events::{EntryNo, PlayerId};
use std::collections::BTreeMap;

/// One tournament's bounties as the read side sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bounties {
    terms: Option<BountyTerms>,
    heads: BTreeMap<EntryNo, (PlayerId, u64)>,
    target: Option<(PlayerId, bool)>,
    target_eliminated: bool,
    envelopes_left: Vec<Envelopes>,
    stage_open: bool,
    books: BountyBooks,
    knockouts: u32,
    winner: Option<EntryNo>,
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

/// What the lobby shows of a tournament's bounties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LobbyBounties {
    /// knockout, progressive, mystery or target.
    pub kind: &'static str,
    /// Each remaining entry's bounty, minor units (knockout, progressive knockout).
    pub remaining: Vec<(EntryNo, PlayerId, u64)>,
    /// Bounty money paid out so far, minor units.
    pub paid_so_far: u64,
    /// Eliminations recorded.
    pub knockouts: u32,
    /// Mystery envelopes left (once the stage is open), largest first.
    pub envelopes_left: Vec<Envelopes>,
    /// The mystery stage is open.
    pub stage_open: bool,
    /// The target, when public or once eliminated.
    pub target: Option<PlayerId>,
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
        let headed = matches!(self.terms, Some(BountyTerms::Knockout { .. } | BountyTerms::Progressive { .. }));
        match event {
            BountiesConfigured { terms, .. } => {
                if let BountyTerms::Target { player, public, .. } = terms {
                    self.target = Some((player.clone(), *public));
                }
                self.terms = Some(terms.clone());
            }
            BountyPaidIn { entry, player, amount, .. } => {
                self.books.paid_in += amount.amount;
                let head = self.heads.entry(*entry).or_insert((player.clone(), 0));
                if headed {
                    head.1 += amount.amount;
                }
            }
            BountyRefunded { entry, amount } => {
                self.books.refunded += amount.amount;
                self.heads.remove(entry);
            }
            TargetNamed { player, public } => self.target = Some((player.clone(), *public)),
            TargetEliminated { .. } => self.target_eliminated = true,
            MysteryStageStarted { envelopes, .. } => {
                self.stage_open = true;
                self.envelopes_left = envelopes.clone();
            }
            EnvelopeDrawn { value, .. } => {
                if let Some(i) = self.envelopes_left.iter().position(|e| e.value == *value) {
                    crate::mystery::open(&mut self.envelopes_left, i);
                }
            }
            EntryKnockedOut { entry, .. } => {
                self.knockouts += 1;
                self.heads.remove(entry);
            }
            BountyPaid { to, cash, added_to_own, .. } => {
                self.books.paid_out += cash.amount;
                self.books.added_to_heads += added_to_own.amount;
                if let Some(head) = self.heads.get_mut(to) {
                    head.1 += added_to_own.amount;
                }
            }
            WinnerBounty { entry, own, left_over, .. } => {
                self.books.paid_out += own.amount + left_over.amount;
                self.winner = Some(*entry);
                if let Some(head) = self.heads.get_mut(entry) {
                    head.1 = 0;
                }
            }
            BountiesStarted { .. } | TargetAbsent { .. } | MysterySeedRevealed { .. } => {}
        }
    }

    /// The books' view.
    pub fn books(&self) -> BountyBooks {
        self.books
    }

    /// The lobby's view; `None` for a tournament without bounties.
    pub fn lobby(&self) -> Option<LobbyBounties> {
        let terms = self.terms.as_ref()?;
        let headed = matches!(terms, BountyTerms::Knockout { .. } | BountyTerms::Progressive { .. });
        Some(LobbyBounties {
            kind: terms.kind(),
            remaining: if headed { self.heads.iter().map(|(e, (p, h))| (*e, p.clone(), *h)).collect() } else { vec![] },
            paid_so_far: self.books.paid_out,
            knockouts: self.knockouts,
            envelopes_left: self.envelopes_left.clone(),
            stage_open: self.stage_open,
            target: self.target.as_ref().filter(|(_, public)| *public || self.target_eliminated).map(|(p, _)| p.clone()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::bounties::PaidInBy;
    use floor_events::{Currency, Money, TournamentId};

    fn eur(cents: u64) -> Money {
        Money::new(cents, Currency::EUR)
    }

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    #[test]
    fn the_lobby_shows_each_remaining_bounty_what_was_paid_and_a_hidden_target_only_once_it_falls() {
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
        let lobby = pko.lobby().unwrap();
        assert_eq!(lobby.remaining, vec![(EntryNo(1), p("ana"), 1_500), (EntryNo(2), p("ben"), 1_000)]);
        assert_eq!((lobby.paid_so_far, lobby.knockouts), (500, 1));
        assert_eq!(pko.books(), BountyBooks { paid_in: 3_000, refunded: 0, paid_out: 500, added_to_heads: 500 });
        assert_eq!(pko.books().balance(), 2_500, "the heads left: 1,500 + 1,000");

        let mut target = Bounties::default();
        target.apply(&[
            BountyEvent::BountiesConfigured {
                tournament_id: TournamentId::new(),
                terms: BountyTerms::Target { share_bps: 2_000, player: p("ben"), public: false },
                currency: Currency::EUR,
            },
            paid_in(1, "ana"),
            paid_in(2, "ben"),
        ]);
        assert_eq!(target.lobby().unwrap().target, None, "hidden");
        assert!(target.lobby().unwrap().remaining.is_empty(), "a target bounty is not on every head");
        target.apply(&[BountyEvent::TargetEliminated { entry: EntryNo(2), player: p("ben"), prize: eur(2_000) }]);
        assert_eq!(target.lobby().unwrap().target, Some(p("ben")));
        assert_eq!(Bounties::default().lobby(), None);
    }
}
