//! Payouts as players see them in the lobby: the payout table (projected from the field while
//! it can still change, then the locked one), the places paid, and who has cashed.
//!
//! The projection is the payouts service's own table function (`floor_rules::field`) applied to the field as the
//! lobby knows it, so the lobby never shows a table the service would not lock for that field.

use floor_events::payouts::{DealMethodKind, DealShare, PayoutEvent, PlaceAward, PrizeBand};
use floor_events::Money;
use floor_events::PlayerId;
use floor_rules::field::{table_with_stakes, Field, Stakes};
use serde::{Deserialize, Serialize};

/// Cashes kept in a document.
const LATEST: usize = 10;
/// Places shown as the final table's.
const FINAL_TABLE: u32 = 10;

/// The payouts section of a lobby document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyPayouts {
    /// The table is final; before, it is the projection for the field so far.
    pub locked: bool,
    /// Entries the table is for.
    pub entries: u32,
    /// Places paid.
    pub places_paid: u32,
    /// What the table pays out in total.
    pub pool: Money,
    /// Prizes by place, first place first.
    pub bands: Vec<PrizeBand>,
    /// Players who have cashed so far.
    pub cashes: u32,
    /// The last cashes, newest first (a field of 250,000 pays 37,500 places: a document holds
    /// the latest few; every finisher is kept beside it, in [`crate::results`], issue 39).
    pub latest_cashes: Vec<PlaceAward>,
    /// The final table's places, once awarded, best first.
    pub final_table: Vec<PlaceAward>,
    /// Every paid place has been paid.
    pub paid: bool,
    /// A deal under discussion or agreed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal: Option<LobbyDeal>,
}

impl LobbyPayouts {
    /// The table the field so far would lock, with its stakes (everything paid in, and the
    /// bounty pool), so that a guaranteed `reel-cz` table is capped as payouts will lock it
    /// (003 App. 1 b ix: `floor_rules::field::prize_cap`).
    pub fn projected(field: &Field, stakes: Stakes) -> Option<Self> {
        let entries = field.entries;
        let (table, pool, _) = table_with_stakes(field, Some(stakes)).ok()?;
        let bands = table.bands.iter().map(|b| PrizeBand { from: b.from, to: b.to, amount: b.amount }).collect();
        Some(Self {
            locked: false,
            entries,
            places_paid: table.places(),
            pool,
            bands,
            cashes: 0,
            latest_cashes: Vec::new(),
            final_table: Vec::new(),
            paid: false,
            deal: None,
        })
    }

    /// Folds one payouts event.
    pub fn evolve(mut self, event: &PayoutEvent) -> Self {
        match event {
            PayoutEvent::PayoutTableLocked { entries, pool, places, bands, .. } => {
                self.locked = true;
                self.entries = *entries;
                self.pool = *pool;
                self.places_paid = *places;
                self.bands = bands.clone();
            }
            PayoutEvent::PlacesAwarded { awards, .. } => {
                for a in awards.iter().filter(|a| a.amount > 0) {
                    self.cashes += 1;
                    self.latest_cashes.insert(0, a.clone());
                    self.latest_cashes.truncate(LATEST);
                    if a.place <= FINAL_TABLE {
                        self.final_table.push(a.clone());
                        self.final_table.sort_by_key(|a| (a.place, a.entry));
                    }
                }
            }
            PayoutEvent::TournamentPaid { .. } => self.paid = true,
            PayoutEvent::DealProposed { proposer, method, shares, left_to_play_for, ends_tournament, .. } => {
                self.deal = Some(LobbyDeal {
                    agreed: false,
                    proposer: Some(proposer.clone()),
                    method: Some(*method),
                    shares: shares.clone(),
                    accepted: vec![proposer.clone()],
                    left_to_play_for: *left_to_play_for,
                    ends_tournament: *ends_tournament,
                });
            }
            PayoutEvent::DealAccepted { player } => {
                if let Some(deal) = self.deal.as_mut().filter(|d| !d.agreed && !d.accepted.contains(player)) {
                    deal.accepted.push(player.clone());
                }
            }
            PayoutEvent::DealRejected { .. } | PayoutEvent::DealVoided { .. } => self.deal = None,
            PayoutEvent::DealAgreed { shares, left_to_play_for, ends_tournament } => {
                let deal = self.deal.take().unwrap_or_default();
                let (shares, left_to_play_for, ends_tournament) = (shares.clone(), *left_to_play_for, *ends_tournament);
                self.deal = Some(LobbyDeal { agreed: true, shares, left_to_play_for, ends_tournament, ..deal });
            }
            // A flight's pool paid over (issue 36): the lobby's flight section shows it.
            PayoutEvent::PoolTransferred(_) => {}
        }
        self
    }
}

/// A deal among the remaining players: under discussion, or agreed (then each later
/// elimination is paid its share, and the places awarded show it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyDeal {
    /// Every remaining player accepted.
    pub agreed: bool,
    /// Who proposed it.
    #[serde(default)]
    pub proposer: Option<PlayerId>,
    /// How the money was split.
    #[serde(default)]
    pub method: Option<DealMethodKind>,
    /// Each remaining entry's share, in minor units of the pool's currency.
    pub shares: Vec<DealShare>,
    /// Who has accepted so far (the proposer first).
    #[serde(default)]
    pub accepted: Vec<PlayerId>,
    /// Minor units left to play for, paid to the winner on top of their share.
    pub left_to_play_for: u64,
    /// Once agreed, the deal ends the tournament (000 §16.8, 004 §4.35).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ends_tournament: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::payouts::LockCause;
    use floor_events::{Currency, EntryNo, PlayerId, RuleProfile};

    fn field(entries: u32, contributions: Money, guarantee: Option<Money>) -> Field {
        Field { entries, contributions, guarantee, profile: RuleProfile::Tda2024, fixed: None, ordering: None, seat_value: None }
    }

    fn eur(amount: u64) -> Money {
        Money::new(amount, Currency::EUR)
    }

    fn cash(entry: u32, place: u32, amount: u64) -> PlaceAward {
        PlaceAward { entry: EntryNo(entry), player: PlayerId::parse(&format!("p{entry}")).unwrap(), place, shared: 1, amount }
    }

    /// 003 App. 1 b ix: a guaranteed reel-cz field whose stakes exceed the guarantee is
    /// projected capped at 95 % of the stakes, as payouts will lock it: €1,000 paid in against a
    /// €500 guarantee pays at most €950, not the €1,000 the pool holds; a tda field is not capped.
    #[test]
    fn a_guaranteed_reel_cz_projection_is_capped_as_the_locked_table_will_be() {
        let reel = Field { profile: RuleProfile::ReelCz, ..field(100, eur(100_000), Some(eur(50_000))) };
        let stakes = Stakes { paid_in: 100_000, bounty_pool: 0 };
        let capped = LobbyPayouts::projected(&reel, stakes).unwrap();
        assert_eq!(capped.pool, eur(95_000), "95 % of the stakes");
        let tda = field(100, eur(100_000), Some(eur(50_000)));
        assert_eq!(LobbyPayouts::projected(&tda, stakes).unwrap().pool, eur(100_000), "no cap outside reel-cz");
    }

    #[test]
    fn the_projection_follows_the_field_until_the_locked_table_replaces_it() {
        let projected = LobbyPayouts::projected(&field(100, eur(100_000), Some(eur(150_000))), Stakes::default()).unwrap();
        assert!(!projected.locked);
        assert_eq!((projected.places_paid, projected.pool), (15, eur(150_000)), "15 % paid; the guarantee makes the pool");
        let locked = projected.evolve(&PayoutEvent::PayoutTableLocked {
            entries: 120,
            contributions: eur(120_000),
            guarantee: Some(eur(150_000)),
            overlay: eur(30_000),
            pool: eur(150_000),
            places: 18,
            bands: vec![PrizeBand { from: 1, to: 18, amount: 150_000 / 18 }],
            cause: LockCause::LateRegistrationClosed,
        });
        assert!(locked.locked);
        assert_eq!((locked.entries, locked.places_paid), (120, 18));
    }

    #[test]
    fn cashes_are_counted_the_latest_kept_and_the_final_table_listed_best_first() {
        let mut payouts = LobbyPayouts::projected(&field(100, eur(100_000), None), Stakes::default()).unwrap();
        for (i, place) in (1..=15).rev().enumerate() {
            let awards = vec![cash(i as u32 + 1, place, 1_000 * u64::from(16 - place)), cash(100 + i as u32, place + 20, 0)];
            payouts = payouts.evolve(&PayoutEvent::PlacesAwarded { players_left_before: place, awards, hand_for_hand: None });
        }
        assert_eq!(payouts.cashes, 15, "out-of-the-money places are not cashes");
        assert_eq!(payouts.latest_cashes.len(), LATEST);
        assert_eq!(payouts.latest_cashes[0].place, 1, "newest first");
        let places: Vec<u32> = payouts.final_table.iter().map(|a| a.place).collect();
        assert_eq!(places, (1..=10).collect::<Vec<_>>());
    }
}
