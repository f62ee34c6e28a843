//! A satellite's seats (issue 36): how many whole seats its pool buys, the table that pays them,
//! and when play stops. Registration (the stop) and payouts (the table) use the same functions,
//! so they never disagree on the number of seats.
//!
//! - **Seats** = ⌊pool ÷ seat value⌋ (`../shared/spec/README.md` §9; 002 §2.7: "Alla vinster
//!   utbetalas med marker, förutom vid så kallade satellitturneringar i vilka vinst kan utgöras
//!   av inträde i en annan turnering": every prize is paid in chips, except in so-called
//!   satellite tournaments, in which the prize can be entry into another tournament).
//! - **The leftover**, `pool − seats × seat value`, is paid to the next place after the last seat
//!   in cash ([`floor_events::satellites::Leftover::NextPlace`]), so the table pays the whole pool
//!   to the cent.
//! - **The stop** (000 §16.7): "Alternativ kann ein Turnier auch dann enden, wenn alle
//!   Spielteilnehmer den gleichen Geldgewinnrang erreicht haben" (alternatively a tournament may
//!   also end when every player has reached the same prize rank): play ends when the entries
//!   left are no more than the seats, each of them holding the same prize, a seat.

use crate::payout_table::{Band, PayoutTable};

/// Whole seats a pool buys: ⌊pool ÷ seat value⌋ (0 for a seat value of 0, which a definition
/// refuses).
pub fn seats(pool: u64, seat_value: u64) -> u32 {
    u32::try_from(pool.checked_div(seat_value).unwrap_or(0)).unwrap_or(u32::MAX)
}

/// What the pool holds beyond whole seats.
pub fn leftover(pool: u64, seat_value: u64) -> u64 {
    pool.checked_rem(seat_value).unwrap_or(pool)
}

/// The satellite's payout table: the seat value to places 1 … seats, the leftover (if any) to
/// the next place. Sums to the pool exactly. A pool below one seat pays it all to first place
/// in cash (no seat: the leftover is the whole pool).
pub fn table(pool: u64, seat_value: u64) -> PayoutTable {
    let seats = seats(pool, seat_value);
    let rest = leftover(pool, seat_value);
    let mut bands = Vec::new();
    if seats > 0 {
        bands.push(Band { from: 1, to: seats, amount: seat_value });
    }
    if rest > 0 {
        let place = seats.saturating_add(1);
        bands.push(Band { from: place, to: place, amount: rest });
    }
    PayoutTable { bands }
}

/// Play stops (000 §16.7): the field is closed and no more entries are left than seats. A pool
/// below one seat plays to a winner like any tournament.
pub fn stops(live_entries: u32, pool: u64, seat_value: u64) -> bool {
    let seats = seats(pool, seat_value);
    seats > 0 && live_entries <= seats
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_pool_of_ten_entries_of_eleven_buys_one_seat_of_one_hundred_and_nine_and_pays_the_rest_to_second() {
        // 000 §16.7 / README §9: seats = ⌊pool ÷ (target buy-in + fee)⌋.
        let table = table(1_100, 1_090);
        assert_eq!(table.bands, vec![Band { from: 1, to: 1, amount: 1_090 }, Band { from: 2, to: 2, amount: 10 }]);
        assert_eq!(seats(1_100, 1_090), 1);
    }

    #[test]
    fn an_exact_pool_pays_only_seats() {
        let table = table(3_300, 1_100);
        assert_eq!(table.bands, vec![Band { from: 1, to: 3, amount: 1_100 }]);
        assert!(stops(3, 3_300, 1_100));
        assert!(!stops(4, 3_300, 1_100));
    }

    #[test]
    fn a_pool_below_one_seat_pays_cash_and_plays_to_a_winner() {
        assert_eq!(table(500, 1_100).bands, vec![Band { from: 1, to: 1, amount: 500 }]);
        assert!(!stops(1, 500, 1_100));
    }

    proptest! {
        #[test]
        fn the_table_pays_the_whole_pool_to_the_cent(pool in 0u64..u64::MAX / 2, seat in 1u64..u64::MAX / 2) {
            let table = table(pool, seat);
            prop_assert_eq!(table.bands.iter().map(|b| u128::from(b.to - b.from + 1) * u128::from(b.amount)).sum::<u128>(), u128::from(pool));
        }
    }
}
