//! When hand-for-hand starts by itself (issue 20), as one rule for every service that must know.
//!
//! The bubble decides with it at the seating commit whose bust reaches the trigger; payouts,
//! reading the same log in the same order, knows from that same commit that the busts stored
//! after it are the announcement hand's (RP-8 A: they share their places), without waiting for
//! the bubble's `hand_for_hand_started`, which may be stored after some of them.

use crate::field::{places_at_most, Field};
use floor_events::bubble::{Boundary, HandForHandRules, Trigger};
use floor_events::tournament::FixedPayouts;
use floor_events::{Currency, Money, RuleProfile};

/// What the boundary is counted from while the payout table may not be locked yet.
#[derive(Debug, Clone, Copy)]
pub struct FieldSoFar<'a> {
    /// Entries sold so far (registrations less refunds).
    pub entries: u32,
    /// The tournament's rule profile.
    pub profile: RuleProfile,
    /// A director's fixed payout table, if any.
    pub fixed: Option<&'a FixedPayouts>,
}

/// Players left at which the bubble bursts: a satellite's seats or a pay jump when the rules set
/// one; else the places the locked payout table pays (`paid_places`); until it is locked, the
/// places the field so far would pay.
pub fn boundary(rules: &HandForHandRules, paid_places: Option<u32>, field: FieldSoFar<'_>) -> u32 {
    match rules.boundary {
        Boundary::PlayersLeft { players } => players,
        Boundary::Money => paid_places.unwrap_or_else(|| {
            places_at_most(&Field {
                entries: field.entries,
                contributions: Money::new(0, Currency::EUR),
                guarantee: None,
                profile: field.profile,
                fixed: field.fixed.cloned(),
                ordering: None,
                seat_value: None,
            })
        }),
    }
}

/// The places the money boundary counts from once payouts has locked its table (`places` paid
/// from `pool`): for a tournament with an equal prize (`equal_prize`, minor units: a
/// satellite's seat, a double or nothing's cut; issues 36/37,
/// [`crate::satellite::equal_prize`]) its equal places, ⌊pool ÷ prize⌋ (the seats), not the
/// places paid, which include the leftover's place after the last seat: hand-for-hand then
/// runs until the stop, and the stop's hand is dealt in step at every table. A pool below one
/// equal prize, and any other tournament, count from the places paid. The bubble and payouts
/// both read the lock through it, so they agree on when hand-for-hand starts.
pub fn locked_places(places: u32, pool: u64, equal_prize: Option<u64>) -> u32 {
    match equal_prize.map(|prize| crate::satellite::seats(pool, prize)) {
        Some(seats) if seats > 0 => seats.min(places),
        _ => places,
    }
}

/// Whether `players_left` is within the trigger's reach: above the boundary, at most the rules'
/// number of players before it. Never under a director's trigger.
pub fn within_reach(rules: &HandForHandRules, players_left: u32, boundary: u32) -> bool {
    match rules.trigger {
        Trigger::PlayersBeforeBubble { players } => players_left > boundary && players_left <= boundary.saturating_add(players),
        Trigger::Director => false,
    }
}

/// Whether the trigger starts hand-for-hand here: within reach, at two tables or more (at one
/// table every hand is in step by itself). The caller knows whether it is idle (not running, not
/// ended, not stopped by a director).
pub fn trigger_starts(rules: &HandForHandRules, players_left: u32, boundary: u32, tables: usize) -> bool {
    tables >= 2 && within_reach(rules, players_left, boundary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(trigger: Trigger, boundary: Boundary) -> HandForHandRules {
        HandForHandRules { trigger, boundary, ..RuleProfile::Tda2024.hand_for_hand() }
    }

    #[test]
    fn the_trigger_reaches_from_the_boundary_plus_its_players_down_to_one_above_it() {
        let r = rules(Trigger::PlayersBeforeBubble { players: 2 }, Boundary::Money);
        let reach: Vec<u32> = (45..=56).filter(|&left| within_reach(&r, left, 50)).collect();
        assert_eq!(reach, vec![51, 52]);
        assert!(trigger_starts(&r, 52, 50, 2));
        assert!(!trigger_starts(&r, 52, 50, 1), "one table is in step by itself");
        assert!(!trigger_starts(&r, 53, 50, 9));
        assert!(!within_reach(&r, u32::MAX, u32::MAX), "nothing is above u32::MAX");
        assert!(within_reach(&rules(Trigger::PlayersBeforeBubble { players: 1000 }, Boundary::Money), u32::MAX, u32::MAX - 1));
    }

    /// Issues 36/37: a satellite of 10 seats and a leftover pays 11 places; hand-for-hand counts
    /// from the 10 seats, so it runs until the stop. A double or nothing's places are its
    /// prizes; a pool below one seat, and a tournament without an equal prize, count the places.
    #[test]
    fn an_equal_prize_counts_the_boundary_from_its_seats_not_the_leftover_place() {
        assert_eq!(locked_places(11, 10 * 1_090 + 500, Some(1_090)), 10);
        assert_eq!(locked_places(5, 10_000, Some(2_000)), 5);
        assert_eq!(locked_places(1, 500, Some(1_090)), 1);
        assert_eq!(locked_places(15, 100_000, None), 15);
    }

    #[test]
    fn a_directors_trigger_never_starts_by_itself() {
        let r = rules(Trigger::Director, Boundary::Money);
        assert!((0..100).all(|left| !trigger_starts(&r, left, 50, 10)));
    }

    #[test]
    fn the_boundary_is_the_seats_then_the_locked_table_then_the_field_so_far() {
        let field = FieldSoFar { entries: 1000, profile: RuleProfile::Tda2024, fixed: None };
        let seats = rules(Trigger::PlayersBeforeBubble { players: 1 }, Boundary::PlayersLeft { players: 7 });
        assert_eq!(boundary(&seats, Some(150), field), 7);
        let money = rules(Trigger::PlayersBeforeBubble { players: 1 }, Boundary::Money);
        assert_eq!(boundary(&money, Some(150), field), 150);
        let estimated = boundary(&money, None, field);
        assert!(estimated > 0 && estimated < 1000, "the places the field so far would pay: {estimated}");
    }
}
