//! Payouts by example and by property: every table sums to its pool, every split to its places.

use crate::payout_table::{first_prize_share_bps, generate, nice, paid_places, PayoutError, PayoutTable};
use crate::standings::{award, rank, AcrossTables, Bust, EqualStacks, Finish, Ordering};
use floor_events::EntryNo;
use proptest::prelude::*;

const POKERSTARS: Ordering = Ordering { equal_stacks: EqualStacks::Split, across_tables: AcrossTables::ByStack };
const NATURAL8: Ordering = Ordering { equal_stacks: EqualStacks::SeatOrder, across_tables: AcrossTables::ByStack };
const WSOP: Ordering = Ordering { equal_stacks: EqualStacks::Split, across_tables: AcrossTables::Tie };

fn bust(entry: u32, stack: u64, table: u32, seat_order: u32) -> Bust {
    Bust { entry: EntryNo(entry), stack_at_start: stack, table, seat_order }
}

#[test]
fn nice_amounts_keep_three_significant_digits() {
    assert_eq!(nice(1_234_567), 1_230_000);
    assert_eq!(nice(1_005), 1_000);
    assert_eq!(nice(999), 999);
    assert_eq!(nice(7), 7);
}

#[test]
fn fifteen_percent_of_the_field_is_paid_within_the_cap() {
    assert_eq!(paid_places(1_000, 1_500, 9_500), 150);
    assert_eq!(paid_places(250_000, 1_500, 9_500), 37_500);
    assert_eq!(paid_places(3, 1_500, 9_500), 1);
    assert_eq!(paid_places(2, 9_900, 9_500), 1, "never more than the max share of the entries");
}

#[test]
fn first_prize_share_falls_as_more_places_are_paid() {
    let shares: Vec<u32> = (1..200_000).step_by(97).map(first_prize_share_bps).collect();
    assert!(shares.windows(2).all(|w| w[1] <= w[0]));
    assert_eq!(first_prize_share_bps(1), 10_000);
}

#[test]
fn a_single_place_takes_the_whole_pool() {
    assert_eq!(generate(12_345, 1, 100).unwrap().bands, vec![crate::Band { from: 1, to: 1, amount: 12_345 }]);
}

#[test]
fn a_thousand_entry_field_pays_150_places_summing_to_the_pool() {
    // EUR 10 buy-ins, EUR 10,000 pool, minimum cash 1.5 buy-ins.
    let table = generate(1_000_000, 150, 1_500).unwrap();
    assert_eq!(table.total(), 1_000_000);
    assert_eq!(table.places(), 150);
    assert!(table.prize(1) > table.prize(2) && table.prize(150) >= 1_500);
    let first_share = table.prize(1) * 10_000 / 1_000_000;
    assert!((1_400..=1_700).contains(&first_share), "first prize {first_share} bps, curve says ~1,550");
}

#[test]
fn a_pool_too_small_for_the_minimum_cash_is_refused() {
    assert_eq!(generate(1_000, 10, 200), Err(PayoutError::PoolTooSmall { pool: 1_000, places: 10, min_prize: 200 }));
}

#[test]
fn a_fixed_table_must_sum_to_the_pool_and_descend() {
    assert!(PayoutTable::fixed(&[500, 300, 200], 1_000).is_ok());
    assert_eq!(PayoutTable::fixed(&[500, 300, 100], 1_000), Err(PayoutError::DoesNotSumToPool { table: 900, pool: 1_000 }));
    assert_eq!(PayoutTable::fixed(&[300, 500, 200], 1_000), Err(PayoutError::NotDescending { place: 2 }));
    assert_eq!(PayoutTable::fixed(&[], 0), Err(PayoutError::Empty));
}

#[test]
fn three_busts_in_one_hand_rank_by_starting_stack_and_equal_stacks_split() {
    // Five left; three bust in one hand with 5,000 / 3,000 / 3,000 at the start of the hand:
    // the 5,000 stack takes 3rd, the two 3,000 stacks share 4th and 5th (PokerStars).
    let table = PayoutTable::fixed(&[5_000, 2_500, 1_200, 800, 501], 10_001).unwrap();
    let finishes = rank(5, vec![bust(7, 3_000, 1, 4), bust(8, 5_000, 1, 2), bust(9, 3_000, 1, 1)], POKERSTARS);
    assert_eq!(
        finishes,
        vec![
            Finish { entry: EntryNo(8), place: 3, shared: 1 },
            Finish { entry: EntryNo(9), place: 4, shared: 2 },
            Finish { entry: EntryNo(7), place: 4, shared: 2 },
        ]
    );
    // (800 + 501) / 2 = 650 r 1: the odd cent goes to the earlier seat (seat order 1: entry 9).
    assert_eq!(award(&table, &finishes), vec![(EntryNo(8), 1_200), (EntryNo(9), 651), (EntryNo(7), 650)]);
}

#[test]
fn natural8_breaks_equal_stacks_by_seat_order() {
    let finishes = rank(6, vec![bust(1, 2_000, 1, 3), bust(2, 2_000, 1, 0)], NATURAL8);
    assert_eq!(finishes, vec![Finish { entry: EntryNo(2), place: 5, shared: 1 }, Finish { entry: EntryNo(1), place: 6, shared: 1 }]);
}

#[test]
fn wsop_ties_busts_at_different_tables_in_the_same_hand_for_hand_hand() {
    let finishes = rank(52, vec![bust(1, 9_000, 1, 0), bust(2, 1_000, 2, 0), bust(3, 4_000, 3, 5)], WSOP);
    assert!(finishes.iter().all(|f| f.place == 50 && f.shared == 3));
    // PokerStars ranks the same busts by starting stack.
    let by_stack = rank(52, vec![bust(1, 9_000, 1, 0), bust(2, 1_000, 2, 0), bust(3, 4_000, 3, 5)], POKERSTARS);
    assert_eq!(by_stack.iter().map(|f| (f.entry.0, f.place)).collect::<Vec<_>>(), vec![(1, 50), (3, 51), (2, 52)]);
}

proptest! {
    #[test]
    fn generated_tables_sum_to_the_pool_and_descend(pool in 1_000u64..10_000_000_000, places in 1u32..3_000, min_share in 0u64..90) {
        let min_prize = pool / u64::from(places) * min_share / 100;
        let table = generate(pool, places, min_prize).unwrap();
        prop_assert_eq!(table.total(), pool, "pays exactly the pool");
        prop_assert_eq!(table.places(), places);
        prop_assert_eq!(table.bands[0].from, 1);
        for pair in table.bands.windows(2) {
            prop_assert_eq!(pair[1].from, pair[0].to + 1, "bands are contiguous");
            prop_assert!(pair[1].amount <= pair[0].amount, "prizes never rise down the table");
        }
        prop_assert!(table.prize(places) >= nice(min_prize), "the last place gets the minimum cash (to three digits)");
    }

    /// A whole tournament busting in random groups (ties included): every entry finishes once,
    /// every place from 1 to the field is taken once, and the prizes paid sum to the pool.
    #[test]
    fn a_whole_tournament_pays_the_pool_to_the_cent(
        entries in 2u32..300, pool in 10_000u64..100_000_000, seed in any::<u64>(), ordering in 0u8..3,
    ) {
        let ordering = [POKERSTARS, NATURAL8, WSOP][ordering as usize];
        let places = paid_places(entries, 1_500, 9_500);
        let table = generate(pool, places, 0).unwrap();
        let mut rng = seed;
        let mut next = move |m: u64| { rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407); (rng >> 33) % m };
        let mut alive: Vec<u32> = (1..=entries).collect();
        let mut finishes = Vec::new();
        while alive.len() > 1 {
            let group = (1 + next(3) as usize).min(alive.len() - 1);
            let busts: Vec<Bust> = (0..group)
                .map(|k| {
                    let entry = alive.remove(next(alive.len() as u64) as usize);
                    bust(entry, 100 * (1 + next(4)), 1 + next(2) as u32, k as u32)
                })
                .collect();
            let ranked = rank(alive.len() as u32 + group as u32, busts, ordering);
            finishes.extend(award(&table, &ranked));
        }
        finishes.extend(award(&table, &[Finish { entry: EntryNo(alive[0]), place: 1, shared: 1 }]));
        let mut seen: Vec<u32> = finishes.iter().map(|(e, _)| e.0).collect();
        seen.sort_unstable();
        prop_assert_eq!(seen, (1..=entries).collect::<Vec<_>>(), "every entry finishes exactly once");
        prop_assert_eq!(finishes.iter().map(|(_, paid)| paid).sum::<u64>(), pool, "the pool is paid to the cent");
    }
}

#[test]
fn a_record_field_pays_37500_places_summing_to_the_pool() {
    // 250,000 entries at USD 0.01 .. or any currency: 37,500 places, minimum cash 1.5 buy-ins.
    let places = paid_places(250_000, 1_500, 9_500);
    let table = generate(250_000 * 1_000, places, 1_500).unwrap();
    assert_eq!((table.places(), table.total()), (37_500, 250_000_000));
    assert!(table.bands.len() < 100, "equal prizes over rank ranges keep the table readable: {} bands", table.bands.len());
}
