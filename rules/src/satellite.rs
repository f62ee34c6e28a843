//! A satellite's seats (issue 36): how many whole seats its pool buys, the table that pays them,
//! and when play stops. Registration and payouts (the table, and the stop at a hand's busts:
//! issues 36/37) use the same functions, so they never disagree on the number of seats.
//!
//! **The equal-prize stop** ([`equal_prize`], issue 37): a satellite and a double or nothing
//! are one rule with two prizes. Each has an amount every survivor of the stop is paid (a
//! satellite's seat value; a cut's `fraction` × an entry's prize-pool part, in cash), the table
//! pays that amount to places 1 … ⌊pool ÷ amount⌋ ([`table`]), and play stops once no more
//! entries are left than those places ([`stops`]). A double or nothing of `capacity` seats, full
//! at its start (a sit & go), has a pool of `capacity` × the part, so it pays
//! `capacity ÷ fraction` places (the definition refuses a capacity `fraction` does not divide)
//! and stops when that many are left.
//!
//! **Double or nothing, as the rulebooks say it.** 003 App. 1 b xi: "V turnaji typu Double or
//! Nothing Sit & Go vyhrává polovina účastníků hazardní hry dvojnásobek buy-inu. Turnaj končí
//! v okamžiku, kdy je vyřazena polovina jeho účastníků; druhá polovina má potom nárok na
//! výhru." (In a Double or Nothing Sit & Go half of the participants win twice the buy-in. The
//! tournament ends the moment half of its participants are eliminated; the other half is then
//! entitled to a prize.) 004 §4.36.16 says the same: "V turnaji typu Double or Nothing vyhrává
//! polovina Sázejících dvojnásobek Buy-inu. Turnaj končí v okamžiku, kdy je vyřazena polovina
//! jeho Sázejících; druhá polovina má potom nárok na Výhru."
//!
//! - **Is the fee in "twice the buy-in"?** As the texts define the word, yes: 003's "Buy-in
//!   částka, kterou účastník musí předem vsadit, aby se mohl účastnit turnajové hry; skládá se
//!   ze dvou částí: (i) částky, která se po uhrazení buy-inu stane součástí prize poolu daného
//!   turnaje, a (ii) provize, kterou si ponechá Provozovatel" (the buy-in is what a participant
//!   stakes to take part; it has two parts: the amount that becomes part of the prize pool, and
//!   the commission the operator keeps), and 004's "Buy-in se skládá ze dvou částí, a to
//!   částky, která se po uhrazení Buy-inu stane součástí Prize poolu daného turnaje a Provize".
//!   Read literally, half the field paid twice what each paid in, fee included, is more than
//!   the pool holds by the whole field's fees. **Floor pays `fraction` × the prize-pool part**
//!   (the buy-in *less* the fee: a EUR 10 + 1 double or nothing pays EUR 20), which is the
//!   whole pool and what the contract (`floor_events::shootouts::CutTerms`) says; the fee is
//!   not included. An operator bound by the literal text would add the fees back as an overlay
//!   (a guarantee of `capacity` × buy-in with fee): the same rule then pays more places of the
//!   same prize, not a larger prize, so it is not offered that way.
//! - **"končí v okamžiku, kdy je vyřazena polovina"** (it ends the moment half are out): the
//!   stop is checked at every award of a hand's busts, and the one that leaves no more than
//!   `capacity ÷ fraction` ends it. Payouts decides it (issues 36/37), as it ranks the hand: its
//!   busts by chips at the start of the hand (one hand-for-hand hand at every table together),
//!   so a bigger stack out in the same hand as the last one cut keeps its prize, whatever order
//!   the eliminations reached registration in, and the cut is never crossed; equal stacks
//!   across it split their places in cash.
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
use floor_events::tournament::TournamentDefinition;
use floor_events::Money;

/// The equal prize a stop pays each survivor (module doc), if the definition has one: a
/// satellite's seat value, or a cut's `fraction` × an entry's prize-pool part (double or
/// nothing: twice the buy-in less the fee). `None` for any other tournament, and for a cut
/// whose prize would not fit a `u64` (a definition's bounds keep amounts far below that).
///
/// Registration's stop ([`stops`]) and payouts' table ([`table`], through
/// [`crate::field::Field::seat_value`]) both take the amount from here.
pub fn equal_prize(definition: &TournamentDefinition) -> Option<Money> {
    if let Some(terms) = &definition.satellite {
        return Some(terms.seat_value);
    }
    let cut = definition.cut.as_ref()?;
    let part = definition.entry_ledger().prize_pool;
    part.amount.checked_mul(u64::from(cut.fraction)).map(|amount| Money::new(amount, part.currency))
}

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

    fn double_or_nothing(capacity: u32, fraction: u32) -> TournamentDefinition {
        TournamentDefinition {
            start: floor_events::tournament::Start::SitAndGo,
            capacity,
            min_players: capacity,
            cut: Some(floor_events::shootouts::CutTerms { fraction }),
            ..TournamentDefinition::example()
        }
    }

    /// 003 App. 1 b xi / 004 §4.36.16: "vyhrává polovina […] dvojnásobek buy-inu" (half win
    /// twice the buy-in). A EUR 10 + 1 entry puts 1,000 in the pool: the prize is 2,000, the
    /// fee not included (module doc); ten seats pay five places and stop when five are left.
    #[test]
    fn a_double_or_nothing_pays_twice_the_prize_pool_part_to_half_the_field() {
        let don = double_or_nothing(10, 2);
        assert_eq!(don.validate(), Ok(()));
        let prize = equal_prize(&don).expect("a cut has an equal prize");
        assert_eq!(prize, Money::new(2_000, floor_events::Currency::EUR));
        let pool = 10 * don.entry_ledger().prize_pool.amount;
        assert_eq!(table(pool, prize.amount).bands, vec![Band { from: 1, to: 5, amount: 2_000 }]);
        assert!(!stops(6, pool, prize.amount));
        assert!(stops(5, pool, prize.amount));
    }

    /// A third wins triple: nine seats, three places of three parts each; with a fee taken as a
    /// share of the buy-in, the part is the buy-in less it.
    #[test]
    fn a_third_wins_triple_from_the_same_rule() {
        let triple =
            TournamentDefinition { fee: floor_events::tournament::Fee::ShareOfBuyIn { basis_points: 1_000 }, ..double_or_nothing(9, 3) };
        assert_eq!(triple.validate(), Ok(()));
        let prize = equal_prize(&triple).expect("a cut");
        assert_eq!(prize.amount, 3 * 900);
        let pool = 9 * 900;
        assert_eq!(table(pool, prize.amount).bands, vec![Band { from: 1, to: 3, amount: 2_700 }]);
        assert!(!stops(4, pool, prize.amount) && stops(3, pool, prize.amount));
    }

    /// A satellite's equal prize is its seat value; an ordinary tournament has none.
    #[test]
    fn a_satellite_s_equal_prize_is_its_seat_value_and_a_freezeout_has_none() {
        let seat = Money::new(1_100, floor_events::Currency::EUR);
        let satellite = TournamentDefinition {
            satellite: Some(floor_events::satellites::SatelliteTerms::new(floor_events::TournamentId::new(), seat)),
            ..TournamentDefinition::example()
        };
        assert_eq!(equal_prize(&satellite), Some(seat));
        assert_eq!(equal_prize(&TournamentDefinition::example()), None);
    }

    proptest! {
        /// Every full double or nothing (any capacity `fraction` divides, any part) pays
        /// `capacity ÷ fraction` places of `fraction` parts, exactly its pool, and stops there.
        #[test]
        fn a_full_cut_pays_capacity_over_fraction_places_of_its_whole_pool(
            share in 1u32..=60,
            fraction in 2u32..=6,
            part in 1u64..10_000_000,
        ) {
            let capacity = share * fraction;
            let pool = u64::from(capacity) * part;
            let prize = part * u64::from(fraction);
            let t = table(pool, prize);
            prop_assert_eq!(t.bands.clone(), vec![Band { from: 1, to: share, amount: prize }]);
            prop_assert_eq!(t.total(), pool);
            prop_assert!(stops(share, pool, prize) && !stops(share + 1, pool, prize));
        }

        #[test]
        fn the_table_pays_the_whole_pool_to_the_cent(pool in 0u64..u64::MAX / 2, seat in 1u64..u64::MAX / 2) {
            let table = table(pool, seat);
            prop_assert_eq!(table.bands.iter().map(|b| u128::from(b.to - b.from + 1) * u128::from(b.amount)).sum::<u128>(), u128::from(pool));
        }
    }
}
