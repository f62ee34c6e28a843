//! Every tournament's books and last deal, kept in memory as the payouts service follows the log, so a
//! `books` request is a lookup, not a read of the tournament's whole log.
//!
//! The view remembers the last stream sequence it folded. A request first asks the stream for
//! the last commit on the tournament's subjects and waits until the view has folded that far:
//! an answer is never older than the log was when the question was asked.

use crate::books::Sums;
use floor_events::bounties::BountyEvent;
use floor_events::payouts::{Books, DealMethodKind, DealShare, DealStage, DealStatus, PayoutEvent};
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::TournamentEvent;
use floor_events::{Currency, PlayerId, TournamentId};
use std::collections::HashMap;

/// The books of every tournament in the log (a few hundred bytes each, paid ones included).
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BooksView {
    tournaments: HashMap<TournamentId, Sums>,
}

impl BooksView {
    /// Folds a registration commit.
    pub fn on_tournament(&mut self, id: TournamentId, events: &[TournamentEvent]) {
        let sums = self.tournaments.entry(id).or_default();
        events.iter().for_each(|e| sums.apply_registration(e));
    }

    /// Folds a rebuys commit.
    pub fn on_rebuys(&mut self, id: TournamentId, events: &[RebuyEvent]) {
        let sums = self.tournaments.entry(id).or_default();
        events.iter().for_each(|e| sums.apply_purchase(e));
    }

    /// Folds a payouts commit.
    pub fn on_payouts(&mut self, id: TournamentId, events: &[PayoutEvent]) {
        let sums = self.tournaments.entry(id).or_default();
        events.iter().for_each(|e| sums.apply_payout(e));
    }

    /// Folds a bounties commit.
    pub fn on_bounties(&mut self, id: TournamentId, events: &[BountyEvent]) {
        let sums = self.tournaments.entry(id).or_default();
        events.iter().for_each(|e| sums.apply_bounty(e));
    }

    /// Folds an abort commit (a cancellation in play closes the books).
    pub fn on_abort(&mut self, id: TournamentId, events: &[floor_events::abort::AbortEvent]) {
        let sums = self.tournaments.entry(id).or_default();
        events.iter().for_each(|e| sums.apply_abort(e));
    }

    /// Every tournament whose books do not reconcile, with why.
    pub fn unbalanced(&self) -> Vec<Books> {
        let mut all: Vec<Books> =
            self.tournaments.iter().filter(|(_, s)| s.is_created()).map(|(id, s)| s.books(*id)).filter(|b| !b.balanced).collect();
        all.sort_by_key(|b| b.tournament_id);
        all
    }

    /// The books of `id`; `None` when the log has no such tournament.
    pub fn books(&self, id: TournamentId) -> Option<Books> {
        let sums = self.tournaments.get(&id).filter(|s| s.is_created())?;
        Some(sums.books(id))
    }
}

/// Every tournament's last deal, for `floor.cmd.payouts.deal`.
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DealsView {
    deals: HashMap<TournamentId, DealRecord>,
}

/// One tournament's last deal as its events tell it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct DealRecord {
    stage: DealStage,
    proposer: PlayerId,
    method: DealMethodKind,
    shares: Vec<DealShare>,
    left_to_play_for: u64,
    pool: u64,
    accepted: Vec<PlayerId>,
    #[serde(default)]
    ends_tournament: bool,
}

impl DealsView {
    /// Folds a payouts commit.
    pub fn on_payouts(&mut self, id: TournamentId, events: &[PayoutEvent]) {
        for e in events {
            match e {
                PayoutEvent::DealProposed { proposer, method, shares, left_to_play_for, pool, ends_tournament } => {
                    let record = DealRecord {
                        stage: DealStage::Proposed,
                        proposer: proposer.clone(),
                        method: *method,
                        shares: shares.clone(),
                        left_to_play_for: *left_to_play_for,
                        pool: *pool,
                        accepted: vec![proposer.clone()],
                        ends_tournament: *ends_tournament,
                    };
                    self.deals.insert(id, record);
                }
                PayoutEvent::DealAccepted { player } => {
                    if let Some(d) = self.deals.get_mut(&id) {
                        d.accepted.push(player.clone());
                    }
                }
                PayoutEvent::DealRejected { .. } => self.set_stage(id, DealStage::Rejected),
                PayoutEvent::DealVoided { .. } => self.set_stage(id, DealStage::Voided),
                PayoutEvent::DealAgreed { .. } => self.set_stage(id, DealStage::Agreed),
                _ => {}
            }
        }
    }

    fn set_stage(&mut self, id: TournamentId, stage: DealStage) {
        if let Some(d) = self.deals.get_mut(&id) {
            d.stage = stage;
        }
    }

    /// The last deal of `id`, its amounts in `currency`; `None` when none was proposed.
    pub fn status(&self, id: TournamentId, currency: Currency) -> Option<DealStatus> {
        let d = self.deals.get(&id)?;
        let mut waiting_for: Vec<PlayerId> = Vec::new();
        if d.stage == DealStage::Proposed {
            for s in &d.shares {
                if !d.accepted.contains(&s.player) && !waiting_for.contains(&s.player) {
                    waiting_for.push(s.player.clone());
                }
            }
        }
        Some(DealStatus {
            tournament_id: id,
            currency,
            stage: d.stage,
            proposer: d.proposer.clone(),
            method: d.method,
            shares: d.shares.clone(),
            left_to_play_for: d.left_to_play_for,
            pool: d.pool,
            accepted: d.accepted.clone(),
            waiting_for,
            ends_tournament: d.ends_tournament,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::books::books;
    use crate::domain_tests::{bought, registered};
    use floor_events::payouts::PlaceAward;
    use floor_events::registration::TournamentCreated;
    use floor_events::{Currency, EntryNo, Money, PlayerId};

    fn created(t: TournamentId) -> TournamentEvent {
        let definition = serde_json::from_str(
            r#"{"name": "Books", "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
                "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
                "capacity": 100, "min_players": 2, "entry_model": {"kind": "freezeout"}, "profile": "tda-2024"}"#,
        )
        .unwrap();
        TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition, at: "2027-01-01T00:00:00Z".parse().unwrap() })
    }

    #[test]
    fn a_tournament_not_in_the_log_has_no_books() {
        let mut view = BooksView::default();
        let t = TournamentId::new();
        assert_eq!(view.books(t), None);
        // Purchases alone (a damaged log) do not make a tournament.
        view.on_rebuys(t, &[bought(1, false, 500, 50)]);
        assert_eq!(view.books(t), None);
    }

    #[test]
    fn the_view_answers_like_a_fold_of_the_whole_log() {
        let t = TournamentId::new();
        let mut view = BooksView::default();
        let registration: Vec<TournamentEvent> = std::iter::once(created(t)).chain((1..=3).map(|e| registered(e, 1_000, 100))).collect();
        let purchases = vec![bought(1, false, 1_000, 100), bought(2, true, 500, 0)];
        let award = |entry: u32, place: u32, amount: u64| PlaceAward {
            entry: EntryNo(entry),
            player: PlayerId::parse(&format!("p{entry}")).unwrap(),
            place,
            shared: 1,
            amount,
        };
        let payouts = vec![
            PayoutEvent::PlacesAwarded { players_left_before: 3, awards: vec![award(3, 3, 0)], hand_for_hand: None },
            PayoutEvent::PlacesAwarded {
                players_left_before: 2,
                awards: vec![award(2, 2, 1_500), award(1, 1, 3_000)],
                hand_for_hand: None,
            },
            PayoutEvent::TournamentPaid { prizes_paid: Money::new(4_500, Currency::EUR) },
        ];

        view.on_tournament(t, &registration[..1]);
        assert_eq!(view.books(t).map(|b| (b.entries, b.paid_in)), Some((0, 0)), "created: nothing paid in yet");
        view.on_tournament(t, &registration[1..]);
        view.on_rebuys(t, &purchases);
        view.on_payouts(t, &payouts[..1]);
        view.on_payouts(t, &payouts[1..]);

        let expected = books(t, &registration, &purchases, &payouts);
        assert_eq!(view.books(t), Some(expected.clone()));
        assert_eq!((expected.entries, expected.rebuys, expected.add_ons), (3, 1, 1));
        assert_eq!((expected.prize_pool, expected.prizes_paid, expected.finished, expected.balanced), (4_500, 4_500, true, true));
    }
}
