//! The lobby's bounties section (issue 21): the terms, the bounty pool, what was paid so far,
//! each remaining entry's bounty (knockout and progressive knockout), the mystery envelopes left
//! and the target once it may be shown.
//!
//! The pool is computed from the definition's terms as entries, re-entries and rebuys come in
//! (the function the bounties service writes its lines with), so the prize pool beside it leaves
//! the bounty parts out at once; everything else is folded from the bounties log.
//!
//! A document is stored whole in KV (and NATS caps a message at 1 MB), so the remaining bounties
//! are listed while the field is at most [`MAX_LISTED`] entries; a larger field shows the
//! pool, the payments and the largest bounty collected so far, not every head. A hidden target
//! is never in the document (clients can watch the bucket): it appears once eliminated.

use floor_events::bounties::{BountyEvent, BountyTerms, EnvelopeTier, Envelopes, MysteryStage};
use floor_events::{EntryNo, Money, PlayerId};
use serde::{Deserialize, Serialize};

/// Most entries whose bounties the section lists.
pub const MAX_LISTED: usize = 2_000;

/// One remaining entry's bounty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemainingBounty {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// Its bounty (minor units): what its elimination pays.
    pub bounty: u64,
}

/// Bounties, as players see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyBounties {
    /// knockout, progressive, mystery or target.
    pub kind: String,
    /// The bounty share of each net buy-in, basis points.
    pub share_bps: u32,
    /// Progressive knockout: the eliminator's cash share, basis points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cash_share_bps: Option<u32>,
    /// Mystery: the published envelopes (shares of the pool) and when the draws begin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub envelopes: Vec<EnvelopeTier>,
    /// Mystery: when the draws begin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<MysteryStage>,
    /// The bounty pool: the bounty parts of entries, re-entries and rebuys, less refunds.
    pub pool: Money,
    /// Bounty money paid out so far (at eliminations, and the winner's).
    pub paid_so_far: Money,
    /// Eliminations recorded.
    pub knockouts: u32,
    /// Each remaining entry's bounty (knockout and progressive knockout), while the field is at
    /// most [`MAX_LISTED`] entries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remaining: Vec<RemainingBounty>,
    /// `remaining` lists every remaining entry (false for a larger field).
    pub listed: bool,
    /// The largest bounty an entry has collected onto its head (progressive knockout), minor
    /// units.
    pub largest_collected: u64,
    /// The mystery stage is open.
    pub stage_open: bool,
    /// Mystery envelopes left, largest first (once the stage is open).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub envelopes_left: Vec<Envelopes>,
    /// The target, when public or once eliminated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<PlayerId>,
    /// The winner's bounty is paid: the pool is settled.
    pub settled: bool,
}

impl LobbyBounties {
    /// The section of a tournament with these terms, in its buy-in's currency.
    pub fn new(terms: &BountyTerms, currency: floor_events::Currency) -> Self {
        let (target, cash_share_bps, envelopes, stage) = match terms {
            BountyTerms::Target { player, public, .. } => (public.then(|| player.clone()), None, vec![], None),
            BountyTerms::Progressive { cash_share_bps, .. } => (None, Some(*cash_share_bps), vec![], None),
            BountyTerms::Mystery { envelopes, stage, .. } => (None, None, envelopes.clone(), Some(*stage)),
            BountyTerms::Knockout { .. } => (None, None, vec![], None),
        };
        let zero = Money::zero(currency);
        Self {
            kind: terms.kind().to_owned(),
            share_bps: terms.share_bps(),
            cash_share_bps,
            envelopes,
            stage,
            pool: zero,
            paid_so_far: zero,
            knockouts: 0,
            remaining: Vec::new(),
            listed: true,
            largest_collected: 0,
            stage_open: false,
            envelopes_left: Vec::new(),
            target,
            settled: false,
        }
    }

    /// The bounty part of a purchase's prize-pool line: what leaves the prize pool for the
    /// bounty pool.
    pub fn part(&self, prize_pool: Money) -> Money {
        let part = prize_pool.share_bps(self.share_bps);
        if part.amount > prize_pool.amount {
            prize_pool
        } else {
            part
        }
    }

    /// An entry's or rebuy's bounty part came in.
    pub fn paid_in(&mut self, part: Money) {
        self.pool = self.pool.checked_add(part).unwrap_or(self.pool);
    }

    /// A refunded entry's bounty part went back.
    pub fn refunded(&mut self, part: Money) {
        self.pool = self.pool.checked_sub(part).unwrap_or(self.pool);
    }

    fn headed(&self) -> bool {
        self.kind == "knockout" || self.kind == "progressive"
    }

    fn head(&mut self, entry: EntryNo) -> Option<&mut RemainingBounty> {
        self.remaining.iter_mut().find(|r| r.entry == entry)
    }

    /// Folds one bounties event.
    pub fn evolve(mut self, event: &BountyEvent) -> Self {
        let add = |a: Money, b: Money| a.checked_add(b).unwrap_or(a);
        match event {
            BountyEvent::BountyPaidIn { entry, player, amount, .. } if self.headed() && self.listed => {
                let full = self.remaining.len() >= MAX_LISTED;
                match self.head(*entry) {
                    Some(head) => head.bounty = head.bounty.saturating_add(amount.amount),
                    None if !full => self.remaining.push(RemainingBounty { entry: *entry, player: player.clone(), bounty: amount.amount }),
                    None => {
                        self.listed = false;
                        self.remaining = Vec::new();
                    }
                }
            }
            BountyEvent::BountyRefunded { entry, .. } | BountyEvent::EntryKnockedOut { entry, .. } => {
                self.remaining.retain(|r| r.entry != *entry);
                if matches!(event, BountyEvent::EntryKnockedOut { .. }) {
                    self.knockouts += 1;
                }
            }
            BountyEvent::BountyPaid { to, cash, added_to_own, .. } => {
                self.paid_so_far = add(self.paid_so_far, *cash);
                if let Some(head) = self.head(*to) {
                    head.bounty = head.bounty.saturating_add(added_to_own.amount);
                }
                if added_to_own.amount > 0 {
                    let collected = self.head(*to).map_or(added_to_own.amount, |h| h.bounty);
                    self.largest_collected = self.largest_collected.max(collected);
                }
            }
            BountyEvent::WinnerBounty { own, left_over, .. } => {
                self.paid_so_far = add(add(self.paid_so_far, *own), *left_over);
                self.remaining.clear();
                self.settled = true;
            }
            BountyEvent::TargetNamed { player, public } => self.target = public.then(|| player.clone()),
            BountyEvent::TargetEliminated { player, .. } => self.target = Some(player.clone()),
            BountyEvent::MysteryStageStarted { envelopes, .. } => {
                self.stage_open = true;
                self.envelopes_left = envelopes.clone();
            }
            BountyEvent::EnvelopeDrawn { value, .. } => {
                if let Some(tier) = self.envelopes_left.iter_mut().find(|e| e.value == *value) {
                    tier.count = tier.count.saturating_sub(1);
                }
                self.envelopes_left.retain(|e| e.count > 0);
            }
            _ => {}
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::document::LobbyDocument;
    use floor_events::bounties::{BountyEvent, BountyTerms, PaidInBy};
    use floor_events::registration::{EntryKind, EntryRegistered, EntryUnregistered, TournamentEvent};
    use floor_events::tournament::{purchase_ledger, TournamentDefinition};
    use floor_events::{Currency, EntryNo, Money, PlayerId, TournamentId};

    fn eur(c: u64) -> Money {
        Money::new(c, Currency::EUR)
    }

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    fn doc(bounty: BountyTerms) -> LobbyDocument {
        let definition: TournamentDefinition = serde_json::from_value(serde_json::json!({
            "name": "PKO", "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
            "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
            "capacity": 100, "min_players": 2, "entry_model": {"kind": "freezeout"}, "profile": "tda-2024",
            "bounty": bounty,
        }))
        .unwrap();
        let at = "2027-01-01T00:00:00Z".parse().unwrap();
        let mut doc = LobbyDocument::created(TournamentId::new(), &definition, at, 1);
        for (e, name) in [(1, "ana"), (2, "ben"), (3, "cleo")] {
            doc = doc.evolve(&TournamentEvent::EntryRegistered(EntryRegistered {
                entry: EntryNo(e),
                player: p(name),
                kind: EntryKind::Registration,
                new_player: true,
                ledger: purchase_ledger(eur(1_000), eur(100)),
                at,
                ticket: None,
            }));
        }
        doc
    }

    #[test]
    fn the_prize_pool_leaves_the_bounty_parts_out_and_each_remaining_bounty_grows_with_what_it_collects() {
        let mut doc = doc(BountyTerms::Progressive { share_bps: 5_000, cash_share_bps: 5_000 });
        assert_eq!(doc.prize_pool.collected, eur(1_500), "three entries, half of each 10.00 to the bounties");
        assert_eq!(doc.bounties.as_ref().unwrap().pool, eur(1_500));
        let paid_in =
            |e: u32, name: &str| BountyEvent::BountyPaidIn { entry: EntryNo(e), player: p(name), by: PaidInBy::Entry, amount: eur(500) };
        for e in [
            paid_in(1, "ana"),
            paid_in(2, "ben"),
            paid_in(3, "cleo"),
            BountyEvent::EntryKnockedOut { entry: EntryNo(3), player: p("cleo"), bounty: eur(500), unclaimed: false },
            BountyEvent::BountyPaid {
                to: EntryNo(1),
                player: p("ana"),
                eliminated: EntryNo(3),
                eliminated_player: p("cleo"),
                cash: eur(250),
                added_to_own: eur(250),
            },
        ] {
            doc = doc.evolve_bounties(&e);
        }
        let b = doc.bounties.as_ref().unwrap();
        let heads: Vec<(u32, u64)> = b.remaining.iter().map(|r| (r.entry.0, r.bounty)).collect();
        assert_eq!(heads, vec![(1, 750), (2, 500)]);
        assert_eq!((b.paid_so_far, b.knockouts, b.largest_collected), (eur(250), 1, 750));
    }

    #[test]
    fn a_refund_takes_its_bounty_part_back_and_a_hidden_target_is_not_in_the_document_until_it_falls() {
        let mut doc = doc(BountyTerms::Target { share_bps: 2_000, player: p("ben"), public: false });
        doc = doc.evolve(&TournamentEvent::EntryUnregistered(EntryUnregistered {
            entry: EntryNo(3),
            player: p("cleo"),
            refund: purchase_ledger(eur(1_000), eur(100)),
            by_operator: false,
            player_left: true,
            at: "2027-01-02T00:00:00Z".parse().unwrap(),
        }));
        assert_eq!((doc.prize_pool.collected, doc.bounties.as_ref().unwrap().pool), (eur(1_600), eur(400)));
        let json = serde_json::to_string(&doc).unwrap();
        assert!(!json.contains("\"ben\""), "the hidden target is not published: {json}");
        doc = doc.evolve_bounties(&BountyEvent::TargetEliminated { entry: EntryNo(2), player: p("ben"), prize: eur(400) });
        assert_eq!(doc.bounties.as_ref().unwrap().target, Some(p("ben")));
    }
}
