//! The lobby's satellite section (issue 36): what a satellite's players see of the seats they
//! play for. Its target (the id, and the name when the lobby saw the target created first), the
//! seat value, how many seats the pool guarantees so far (⌊pool ÷ seat value⌋, from the entries'
//! prize-pool contributions until payouts locks the table, then from the locked pool), the
//! leftover the next place is paid in cash, whether a seat is registered at once or is a ticket,
//! and what the satellite's own log says of the seats won: tickets issued, seats taken in the
//! target, seats the target refused (kept as tickets), tickets spent and refunded.
//!
//! A target shows the other side in its own document: `entered_by_ticket`, the entries whose
//! `entry_registered` names a ticket ([`LobbyDocument::evolve`](super::LobbyDocument::evolve)).
//!
//! Pure folds, like every section: the seats follow the document's own books and the satellite
//! aggregate's events (`floor.ev.satellite.<satellite id>`), never another service's KV.

use floor_events::satellites::{SatelliteEvent, SatellitePrize, SatelliteTerms};
use floor_events::{Money, TournamentId};
use serde::{Deserialize, Serialize};

/// The satellite section of a lobby document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbySatellite {
    /// The tournament the seats are for.
    pub target: TournamentId,
    /// Its name, when the lobby knew the target as the satellite was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_name: Option<String>,
    /// What one seat is worth: an entry to the target.
    pub seat_value: Money,
    /// A seat registered in the target at once, or a ticket to spend.
    pub prize: SatellitePrize,
    /// Seats the pool pays so far: ⌊pool ÷ seat value⌋ (the locked pool's once locked).
    pub seats: u32,
    /// What the pool holds beyond whole seats: paid in cash to the place after the last seat.
    pub leftover: Money,
    /// The seats are final (payouts locked the table).
    pub locked: bool,
    /// Seats won so far: tickets the satellite issued.
    pub tickets_issued: u32,
    /// Tickets that paid for an entry (a seat taken at once, or a ticket spent later), less
    /// those refunded back to their holders.
    pub tickets_spent: u32,
    /// Seats the target refused (full, closed, the winner already in): kept as tickets.
    pub seats_refused: u32,
    /// Entries paid by a ticket that their tournament refunded: the tickets are back.
    pub tickets_refunded: u32,
    /// Seats whose winner was already registered in the target, passed down to the next
    /// finisher (the winner's ticket void, a new one issued): counted once in `tickets_issued`.
    #[serde(default, skip_serializing_if = "super::is_zero")]
    pub seats_passed_down: u32,
    /// Its level in its step tree (000 §16.13): 1 when its target is the top, 2 for a step
    /// into such a satellite, and so on (its target is then the next step); 0 when the lobby
    /// did not know the target as the satellite was created.
    #[serde(default, skip_serializing_if = "super::is_zero")]
    pub level: u32,
}

impl super::LobbyDocument {
    /// Sets a satellite's level in its step tree: one above its target's (a target that is no
    /// satellite is the top, level 0). `None`: the target is not known.
    pub fn with_step_level(mut self, target_level: Option<u32>) -> Self {
        if let (Some(s), Some(above)) = (self.satellite.as_mut(), target_level) {
            s.level = above.saturating_add(1);
        }
        self
    }
}

impl LobbySatellite {
    /// The section of a satellite with these terms, before any entry.
    pub fn new(terms: &SatelliteTerms, target_name: Option<String>) -> Self {
        Self {
            target: terms.target,
            target_name,
            seat_value: terms.seat_value,
            prize: terms.prize,
            seats: 0,
            leftover: Money::zero(terms.seat_value.currency),
            locked: false,
            tickets_issued: 0,
            tickets_spent: 0,
            seats_refused: 0,
            tickets_refunded: 0,
            seats_passed_down: 0,
            level: 0,
        }
    }

    /// The seats and the leftover of a pool (`floor_rules::satellite`, as registration's stop
    /// and payouts' table count them). Once locked, only the locked pool changes them.
    pub fn with_pool(mut self, pool: Money, locked: bool) -> Self {
        if self.locked && !locked {
            return self;
        }
        self.locked |= locked;
        self.seats = floor_rules::satellite::seats(pool.amount, self.seat_value.amount);
        self.leftover = Money::new(floor_rules::satellite::leftover(pool.amount, self.seat_value.amount), pool.currency);
        self
    }

    /// Folds one event of the satellite's own log.
    pub fn evolve(mut self, event: &SatelliteEvent) -> Self {
        match event {
            SatelliteEvent::TicketIssued(_) => self.tickets_issued += 1,
            SatelliteEvent::TicketSpent(_) => self.tickets_spent += 1,
            SatelliteEvent::SeatRefused(_) => self.seats_refused += 1,
            SatelliteEvent::TicketRefunded(_) => {
                self.tickets_refunded += 1;
                self.tickets_spent = self.tickets_spent.saturating_sub(1);
            }
            // The winner's ticket is void and the next finisher's, issued with it, takes the
            // seat: one seat awarded, not two.
            SatelliteEvent::SeatPassedDown(_) => {
                self.seats_passed_down += 1;
                self.tickets_issued = self.tickets_issued.saturating_sub(1);
            }
            // In flight, or back with its holder: nothing a player counts.
            SatelliteEvent::TicketSpending(_) | SatelliteEvent::SpendingFailed(_) => {}
            // Ended unspent (issue 36): the seat was won all the same.
            SatelliteEvent::TicketExpired(_) | SatelliteEvent::TicketConverted(_) => {}
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::LobbyDocument;
    use floor_events::payouts::{LockCause, PayoutEvent, PrizeBand};
    use floor_events::registration::{EntryKind, EntryRegistered, TournamentEvent};
    use floor_events::satellites::{SeatRefused, TicketIssued, TicketRef, TicketRefunded, TicketSpent};
    use floor_events::tournament::{EntryLedger, Fee, Start, TournamentDefinition};
    use floor_events::{Currency, EntryNo, PlayerId};

    fn eur(c: u64) -> Money {
        Money::new(c, Currency::EUR)
    }

    fn at() -> chrono::DateTime<chrono::Utc> {
        "2027-01-10T17:00:00Z".parse().unwrap()
    }

    /// A €11 satellite (€10 + €1 fee) to a target whose entry costs €109.
    fn satellite(target: TournamentId) -> TournamentDefinition {
        TournamentDefinition {
            name: "Satellite".into(),
            start: Start::At("2027-01-10T18:00:00Z".parse().unwrap()),
            buy_in: eur(1_000),
            fee: Fee::OnTop(eur(100)),
            satellite: Some(SatelliteTerms::new(target, eur(10_900))),
            ..TournamentDefinition::example()
        }
    }

    fn registered(entry: u32, ticket: Option<TicketRef>) -> TournamentEvent {
        TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(entry),
            player: PlayerId::parse(&format!("p{entry}")).unwrap(),
            kind: EntryKind::Registration,
            new_player: true,
            ledger: EntryLedger { paid_in: eur(1_100), fee: eur(100), prize_pool: eur(1_000) },
            at: at(),
            ticket,
        })
    }

    fn ticket(satellite: TournamentId, entry: u32) -> TicketRef {
        TicketRef { satellite, entry: EntryNo(entry) }
    }

    /// 000 §16.7 / spec §9: 25 entries of €10 make €250, two seats of €109 and €32 left over
    /// for third place; the projected table is the seat table, not the profile's percentages.
    #[test]
    fn the_seats_follow_the_pool_and_the_projected_table_pays_seats_then_the_leftover() {
        let target = TournamentId::new();
        let mut doc = LobbyDocument::created(TournamentId::new(), &satellite(target), at(), 1);
        let s = doc.satellite.clone().expect("a satellite section");
        assert_eq!((s.target, s.seat_value, s.seats, s.prize), (target, eur(10_900), 0, SatellitePrize::Seat));
        for entry in 1..=25 {
            doc = doc.evolve(&registered(entry, None));
        }
        let s = doc.satellite.as_ref().unwrap();
        assert_eq!((s.seats, s.leftover, s.locked), (2, eur(3_200), false));
        let projected = doc.projected_payouts().expect("a projection");
        assert_eq!(projected.pool, eur(25_000));
        assert_eq!(
            projected.bands,
            vec![PrizeBand { from: 1, to: 2, amount: 10_900 }, PrizeBand { from: 3, to: 3, amount: 3_200 }],
            "two seats, the leftover to third"
        );
        assert_eq!(projected.places_paid, 3);
    }

    #[test]
    fn the_locked_pool_fixes_the_seats_and_the_satellites_log_counts_what_was_won() {
        let id = TournamentId::new();
        let mut doc = LobbyDocument::created(id, &satellite(TournamentId::new()), at(), 1);
        for entry in 1..=22 {
            doc = doc.evolve(&registered(entry, None));
        }
        doc = doc.evolve_payouts(&PayoutEvent::PayoutTableLocked {
            entries: 22,
            contributions: eur(22_000),
            guarantee: None,
            overlay: eur(0),
            pool: eur(22_000),
            places: 3,
            bands: vec![PrizeBand { from: 1, to: 2, amount: 10_900 }, PrizeBand { from: 3, to: 3, amount: 200 }],
            cause: LockCause::LateRegistrationClosed,
        });
        let issued = |entry: u32| {
            SatelliteEvent::TicketIssued(TicketIssued {
                ticket: ticket(id, entry),
                player: PlayerId::parse(&format!("p{entry}")).unwrap(),
                value: eur(10_900),
                target: TournamentId::new(),
                place: 1,
                prize: SatellitePrize::Seat,
                at: at(),
                expires: None,
            })
        };
        let target = TournamentId::new();
        for event in [
            issued(4),
            issued(9),
            SatelliteEvent::TicketSpent(TicketSpent { ticket: ticket(id, 4), tournament: target, entry: EntryNo(31), at: at() }),
            SatelliteEvent::SeatRefused(SeatRefused {
                ticket: ticket(id, 9),
                code: "already_registered".into(),
                reason: "p9 is in".into(),
                at: at(),
            }),
            SatelliteEvent::TicketRefunded(TicketRefunded { ticket: ticket(id, 4), tournament: target, at: at() }),
        ] {
            doc = doc.evolve_satellite(&event);
        }
        // A late entry after the lock changes nothing the players were promised.
        doc = doc.evolve(&registered(23, None));
        let s = doc.satellite.as_ref().unwrap();
        assert_eq!((s.seats, s.leftover, s.locked), (2, eur(200), true));
        assert_eq!((s.tickets_issued, s.tickets_spent, s.seats_refused, s.tickets_refunded), (2, 0, 1, 1));
    }

    #[test]
    fn a_target_counts_the_entries_paid_by_a_ticket_and_an_ordinary_tournament_has_no_section() {
        let definition = TournamentDefinition {
            name: "Target".into(),
            start: Start::At("2027-01-12T18:00:00Z".parse().unwrap()),
            ..TournamentDefinition::example()
        };
        let mut doc = LobbyDocument::created(TournamentId::new(), &definition, at(), 1);
        assert!(doc.satellite.is_none());
        let from = TournamentId::new();
        for (entry, paid) in [(1, Some(ticket(from, 3))), (2, None), (3, Some(ticket(from, 8)))] {
            doc = doc.evolve(&registered(entry, paid));
        }
        assert_eq!((doc.entrants, doc.entered_by_ticket), (3, 2));
        let json = serde_json::to_value(&doc).unwrap();
        assert_eq!(json["entered_by_ticket"], 2);
        assert!(json.get("satellite").is_none(), "absent for a tournament that is not a satellite");
    }

    /// Issue 36's pass-down: the winner's ticket is void and the next finisher's issued with it
    /// takes the seat: one seat awarded, one passed down.
    #[test]
    fn a_seat_passed_down_is_one_seat_awarded() {
        use floor_events::satellites::SeatPassedDown;
        let id = TournamentId::new();
        let mut doc = LobbyDocument::created(id, &satellite(TournamentId::new()), at(), 1);
        let issued = |entry: u32| {
            SatelliteEvent::TicketIssued(TicketIssued {
                ticket: ticket(id, entry),
                player: PlayerId::parse(&format!("p{entry}")).unwrap(),
                value: eur(10_900),
                target: TournamentId::new(),
                place: 1,
                prize: SatellitePrize::Seat,
                at: at(),
                expires: None,
            })
        };
        let passed = SatelliteEvent::SeatPassedDown(SeatPassedDown {
            ticket: ticket(id, 4),
            to: ticket(id, 9),
            player: PlayerId::parse("p9").unwrap(),
            place: 3,
            code: "already_registered".into(),
            reason: "p4 is in".into(),
            at: at(),
        });
        for event in [issued(4), passed, issued(9)] {
            doc = doc.evolve_satellite(&event);
        }
        let s = doc.satellite.as_ref().unwrap();
        assert_eq!((s.tickets_issued, s.seats_passed_down), (1, 1));
        assert_eq!(serde_json::to_value(s).unwrap()["seats_passed_down"], 1);
    }
}
