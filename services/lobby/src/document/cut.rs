//! The lobby's double-or-nothing section (issue 37; 003 App. 1 b xi, 004 §4.36.16): the cut,
//! stated before registration. Play stops when the field is down to `capacity ÷ fraction`
//! players; each of them is paid the same, `fraction` × an entry's prize-pool part
//! (`floor_rules::satellite::equal_prize`, the amount registration's stop and payouts' table
//! use). The fee is not part of the prize: "twice the buy-in" is twice what goes to the pool.
//!
//! Once registration records the stop (`tournament_finished` with `shared_by`), the section
//! says how many shared it.

use floor_events::registration::TournamentEvent;
use floor_events::tournament::TournamentDefinition;
use floor_events::Money;
use serde::{Deserialize, Serialize};

/// The cut section of a lobby document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyCut {
    /// 2: double or nothing; 3: a third wins triple.
    pub fraction: u32,
    /// Players paid when play stops: `capacity ÷ fraction`.
    pub survivors: u32,
    /// What each of them is paid: `fraction` × an entry's prize-pool part.
    pub prize: Money,
    /// Whether the fee is part of the prize (it is not: the prize is the prize-pool parts').
    pub fee_included: bool,
    /// Players who shared the prize once play stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_by: Option<u32>,
}

impl LobbyCut {
    /// The section of a definition with a cut; `None` for any other.
    pub fn new(definition: &TournamentDefinition) -> Option<Self> {
        let cut = definition.cut.as_ref()?;
        let part = definition.entry_ledger().prize_pool;
        let prize = floor_rules::satellite::equal_prize(definition).unwrap_or(Money::zero(part.currency));
        Some(Self {
            fraction: cut.fraction,
            survivors: definition.capacity.checked_div(cut.fraction).unwrap_or(0),
            prize,
            fee_included: false,
            shared_by: None,
        })
    }

    /// Folds one tournament event: the stop.
    pub fn evolve(mut self, event: &TournamentEvent) -> Self {
        if let TournamentEvent::TournamentFinished(finished) = event {
            self.shared_by = Some((finished.shared_by.len() as u32).max(1));
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::LobbyDocument;
    use floor_events::registration::{Survivor, TournamentFinished};
    use floor_events::shootouts::CutTerms;
    use floor_events::tournament::{Fee, Start};
    use floor_events::{Currency, EntryNo, PlayerId, TournamentId};

    fn eur(c: u64) -> Money {
        Money::new(c, Currency::EUR)
    }

    fn at() -> chrono::DateTime<chrono::Utc> {
        "2027-01-10T17:00:00Z".parse().unwrap()
    }

    fn don(capacity: u32, fraction: u32) -> TournamentDefinition {
        TournamentDefinition {
            name: "DoN".into(),
            start: Start::SitAndGo,
            capacity,
            min_players: capacity,
            table_size: 10,
            buy_in: eur(1_000),
            fee: Fee::OnTop(eur(80)),
            late_registration_until: None,
            cut: Some(CutTerms { fraction }),
            ..TournamentDefinition::example()
        }
    }

    /// 003 App. 1 b xi: ten seats, five paid twice the €10 that went to the pool (the €0.80
    /// fee is not part of it); a third wins triple on nine seats.
    #[test]
    fn the_cut_states_the_survivors_and_the_prize_before_registration() {
        let doc = LobbyDocument::created(TournamentId::new(), &don(10, 2), at(), 1);
        let cut = doc.cut.clone().expect("a cut section");
        assert_eq!((cut.fraction, cut.survivors, cut.prize, cut.fee_included, cut.shared_by), (2, 5, eur(2_000), false, None));
        let triple = LobbyCut::new(&don(9, 3)).unwrap();
        assert_eq!((triple.survivors, triple.prize), (3, eur(3_000)));
        assert!(LobbyCut::new(&TournamentDefinition::example()).is_none());
    }

    #[test]
    fn the_projected_table_is_the_cut_and_the_stop_says_how_many_shared() {
        use floor_events::payouts::PrizeBand;
        use floor_events::registration::{EntryKind, EntryRegistered};
        use floor_events::tournament::purchase_ledger;
        let mut doc = LobbyDocument::created(TournamentId::new(), &don(10, 2), at(), 1);
        for entry in 1..=10 {
            doc = doc.evolve(&TournamentEvent::EntryRegistered(EntryRegistered {
                entry: EntryNo(entry),
                player: PlayerId::parse(&format!("p{entry}")).unwrap(),
                kind: EntryKind::Registration,
                new_player: true,
                ledger: purchase_ledger(eur(1_000), eur(80)),
                at: at(),
                ticket: None,
            }));
        }
        let projected = doc.projected_payouts().expect("a projection");
        assert_eq!(projected.bands, vec![PrizeBand { from: 1, to: 5, amount: 2_000 }], "five paid €20 each, as payouts locks it");
        let survivor = |e: u32| Survivor { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap() };
        doc = doc.evolve(&TournamentEvent::TournamentFinished(TournamentFinished {
            winner: EntryNo(2),
            player: PlayerId::parse("p2").unwrap(),
            at: at(),
            shared_by: [2, 4, 5, 7, 9].into_iter().map(survivor).collect(),
        }));
        assert_eq!(doc.cut.as_ref().and_then(|c| c.shared_by), Some(5));
    }
}
