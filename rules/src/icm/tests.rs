//! ICM by example and by property: the exact methods agree with each other (and the race and
//! the transposed method with closed forms where the subset method cannot go), every row and
//! column of place probabilities sums to 1, the money sums to the prizes exactly, and the
//! cents are the race's wherever both run (issue 41).

use super::*;
use proptest::prelude::*;

/// Largest difference between two tables of the same shape.
fn max_difference(a: &PlaceProbabilities, b: &PlaceProbabilities) -> f64 {
    assert_eq!((a.players(), a.places()), (b.players(), b.places()));
    a.cells.iter().zip(&b.cells).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// Worst distance from 1 of any player's total over all places and of any place's total over
/// all players (rows only when every place is asked for).
fn worst_total(table: &PlaceProbabilities) -> f64 {
    let mut worst: f64 = 0.0;
    for place in 1..=table.places() {
        let column: f64 = (0..table.players()).map(|i| table.get(i, place)).sum();
        worst = worst.max((column - 1.0).abs());
    }
    if table.places() == table.players() {
        for i in 0..table.players() {
            worst = worst.max((table.row(i).iter().sum::<f64>() - 1.0).abs());
        }
    }
    worst
}

fn stacks_strategy(players: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(1u64..=10_000_000, players)
}

#[test]
fn three_players_5000_3000_2000_for_50_30_20_get_the_classic_figures() {
    // Given 10,000 chips as 5,000 / 3,000 / 2,000 and prizes $50 / $30 / $20 (in cents).
    let stacks = [5_000, 3_000, 2_000];
    let prizes = [5_000, 3_000, 2_000];
    // When ICM is computed by every method.
    // Then, by hand:
    //   1st: A 5/10 = .5, B .3, C .2.
    //   2nd: A = .3·5/7 + .2·5/8 = 15/70 + 10/80 = 19/56 ≈ .339286;
    //        B = .5·3/5 + .2·3/8 = .3 + .075 = .375;
    //        C = .5·2/5 + .3·2/7 = .2 + 6/70 = 2/7 ≈ .285714.
    //   3rd: the rest of each row: A 9/56 ≈ .160714, B .325, C 18/35 ≈ .514286.
    //   Equity ($): A = 25 + 30·19/56 + 20·9/56 = 25 + 750/56 = 38.392857…
    //               B = 15 + 11.25 + 6.5 = 32.75
    //               C = 10 + 30·2/7 + 20·18/35 = 10 + 60/7 + 72/7 = 202/7 = 28.857142…
    //   Cents: 3839.2857, 3275.0000, 2885.7143 → whole cents 3839 + 3275 + 2885 = 9,999; the
    //   last cent goes to the largest remainder (.7143, C): 3839 / 3275 / 2886 = 10,000.
    let expected = [[0.5, 19.0 / 56.0, 9.0 / 56.0], [0.3, 0.375, 0.325], [0.2, 2.0 / 7.0, 18.0 / 35.0]];
    for method in [Method::Permutations, Method::Subsets, Method::Race, Method::Auto] {
        let table = place_probabilities(&stacks, 3, method).expect("field");
        for (i, row) in expected.iter().enumerate() {
            for (p, want) in row.iter().enumerate() {
                assert!((table.get(i, p + 1) - want).abs() < 1e-12, "{method:?}: player {i}, place {}", p + 1);
            }
        }
        let equity = equities(&stacks, &prizes, method).expect("field");
        for (got, want) in equity.iter().zip([3_839.285_714_285_714, 3_275.0, 2_885.714_285_714_286]) {
            assert!((got - want).abs() < 1e-8, "{method:?}: {got} vs {want}");
        }
    }
    assert_eq!(amounts(&stacks, &prizes), Ok(vec![3839, 3275, 2886]));
}

#[test]
fn two_players_split_first_and_second_by_chips() {
    // 3,000 against 1,000 for 70 / 30: the leader wins 3/4 of the time, 70·.75 + 30·.25 = 60.
    let table = place_probabilities(&[3_000, 1_000], 2, Method::Race).expect("field");
    assert!((table.get(0, 1) - 0.75).abs() < 1e-12);
    assert_eq!(amounts(&[3_000, 1_000], &[7_000, 3_000]), Ok(vec![6_000, 4_000]));
}

#[test]
fn bad_fields_are_refused_with_their_codes() {
    let code = |r: Result<PlaceProbabilities, IcmError>| r.expect_err("refused").code();
    assert_eq!(code(place_probabilities(&[], 0, Method::Auto)), "icm_no_players");
    assert_eq!(code(place_probabilities(&[5, 0, 3], 2, Method::Auto)), "icm_zero_stack");
    assert_eq!(code(place_probabilities(&[5, 3], 3, Method::Auto)), "icm_more_places_than_players");
    assert_eq!(code(place_probabilities(&[1; 11], 3, Method::Permutations)), "icm_field_too_large");
    assert_eq!(code(place_probabilities(&[1; 21], 3, Method::Subsets)), "icm_field_too_large");
    assert_eq!(code(place_probabilities(&vec![1; 2_000], 501, Method::Race)), "icm_field_too_large");
    let big = vec![1; 20_000];
    assert_eq!(equities(&big, &vec![1; 801], Method::Transposed).expect_err("refused").code(), "icm_field_too_large");
    assert_eq!(amounts(&big, &vec![1; 801]).expect_err("refused").code(), "icm_field_too_large");
    assert_eq!(equities(&[5, 3, 2], &[10, 20], Method::Auto).expect_err("refused").code(), "icm_prizes_not_descending");
    assert_eq!(amounts(&[5, 3], &[u64::MAX, 1]).expect_err("refused").code(), "icm_prizes_overflow");
}

#[test]
fn no_places_is_an_empty_table_and_no_money() {
    let table = place_probabilities(&[5, 3], 0, Method::Race).expect("field");
    assert_eq!((table.players(), table.places()), (2, 0));
    assert_eq!(amounts(&[5, 3], &[]), Ok(vec![0, 0]));
}

#[test]
fn every_method_agrees_with_every_order_on_seven_players_to_1e_9() {
    // Uneven stacks, from a short stack of 1 big blind to a chip leader of 90.
    let stacks = [90_000, 41_000, 41_000, 17_500, 9_000, 2_600, 1_000];
    for places in 1..=7 {
        let reference = place_probabilities(&stacks, places, Method::Permutations).expect("field");
        for method in [Method::Subsets, Method::Race] {
            let table = place_probabilities(&stacks, places, method).expect("field");
            let gap = max_difference(&reference, &table);
            assert!(gap < 1e-9, "{method:?}, {places} places: {gap:e}");
        }
    }
}

#[test]
fn the_race_matches_subsets_on_a_20_player_field_with_a_million_to_one_spread() {
    let mut stacks: Vec<u64> = (0..19).map(|i| 1_000 + 97_531 * i * i).collect();
    stacks.push(1_000_000_000);
    let reference = place_probabilities(&stacks, 20, Method::Subsets).expect("field");
    let race = place_probabilities(&stacks, 20, Method::Race).expect("field");
    let gap = max_difference(&reference, &race);
    assert!(gap < 1e-10, "{gap:e}");
    assert!(worst_total(&race) < 1e-10);
}

#[test]
fn equal_stacks_share_every_place_equally_in_a_field_of_300() {
    // Symmetry: each of 300 equal stacks finishes in each place with probability 1/300.
    let table = place_probabilities(&[1_500; 300], 40, Method::Race).expect("field");
    let worst = table.cells.iter().map(|p| (p - 1.0 / 300.0).abs()).fold(0.0, f64::max);
    assert!(worst < 1e-12, "{worst:e}");
}

#[test]
fn the_race_gives_the_closed_form_first_and_second_places_for_400_players() {
    // P(i 1st) = s_i / S; P(i 2nd) = Σ_{j≠i} (s_j / S) · s_i / (S − s_j).
    let stacks: Vec<u64> = (0..400u64).map(|i| 2_000 + (i * 7_919) % 50_000).collect();
    let table = place_probabilities(&stacks, 60, Method::Race).expect("field");
    let total: f64 = stacks.iter().map(|&s| s as f64).sum();
    let mut worst: f64 = 0.0;
    for (i, &si) in stacks.iter().enumerate() {
        let si = si as f64;
        let second: f64 =
            stacks.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &sj)| (sj as f64 / total) * si / (total - sj as f64)).sum();
        worst = worst.max((table.get(i, 1) - si / total).abs()).max((table.get(i, 2) - second).abs());
    }
    assert!(worst < 1e-12, "{worst:e}");
    assert!(worst_total(&table) < 1e-10, "{:e}", worst_total(&table));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn subsets_and_the_race_agree_with_every_order(stacks in stacks_strategy(1..=7), places in 0usize..=7) {
        let places = places.min(stacks.len());
        let reference = place_probabilities(&stacks, places, Method::Permutations).expect("field");
        for method in [Method::Subsets, Method::Race] {
            let table = place_probabilities(&stacks, places, method).expect("field");
            prop_assert!(max_difference(&reference, &table) < 1e-9, "{:?}", method);
        }
    }

    #[test]
    fn the_race_agrees_with_subsets_on_larger_fields(stacks in stacks_strategy(8..=14), places in 1usize..=14) {
        let places = places.min(stacks.len());
        let reference = place_probabilities(&stacks, places, Method::Subsets).expect("field");
        let race = place_probabilities(&stacks, places, Method::Race).expect("field");
        prop_assert!(max_difference(&reference, &race) < 1e-9);
    }

    #[test]
    fn every_player_and_every_place_totals_one(stacks in stacks_strategy(1..=30)) {
        let table = place_probabilities(&stacks, stacks.len(), Method::Auto).expect("field");
        prop_assert!(worst_total(&table) < 1e-9, "{:e}", worst_total(&table));
    }

    #[test]
    fn equal_stacks_have_equal_equity_and_bigger_stacks_more(
        stacks in stacks_strategy(2..=12),
        prizes in prop::collection::vec(0u64..1_000_000, 1..=12),
    ) {
        let mut stacks = stacks;
        stacks.push(stacks[0]);
        let mut prizes = prizes;
        prizes.sort_unstable_by(|a, b| b.cmp(a));
        prizes.truncate(stacks.len());
        let equity = equities(&stacks, &prizes, Method::Auto).expect("field");
        let last = stacks.len() - 1;
        prop_assert!((equity[0] - equity[last]).abs() <= 1e-9 * prizes[0].max(1) as f64);
        for i in 0..stacks.len() {
            for j in 0..stacks.len() {
                if stacks[i] > stacks[j] {
                    prop_assert!(equity[i] >= equity[j] - 1e-9 * prizes[0].max(1) as f64);
                }
            }
        }
    }

    #[test]
    fn icm_cents_sum_to_the_prizes_and_follow_the_stacks(
        stacks in stacks_strategy(2..=40),
        prizes in prop::collection::vec(0u64..100_000_000, 0..=40),
    ) {
        let mut prizes = prizes;
        prizes.sort_unstable_by(|a, b| b.cmp(a));
        prizes.truncate(stacks.len());
        let paid = amounts(&stacks, &prizes).expect("field");
        prop_assert_eq!(paid.iter().sum::<u64>(), prizes.iter().sum::<u64>());
        for i in 0..stacks.len() {
            for j in 0..stacks.len() {
                if stacks[i] > stacks[j] {
                    prop_assert!(paid[i] >= paid[j], "{} chips got {}, {} chips got {}", stacks[i], paid[i], stacks[j], paid[j]);
                }
            }
        }
    }
}

#[test]
fn cents_are_handed_out_in_stack_order_equal_stacks_in_list_order() {
    // Amounts 3, 5, 4 for stacks 10, 20, 10: the 5 to the 20, then 4 and 3 to the two 10s in
    // list order.
    assert_eq!(in_stack_order(vec![3, 5, 4], &[10, 20, 10]), vec![4, 5, 3]);
}

#[test]
fn the_race_holds_on_stacks_from_one_chip_to_ten_trillion() {
    // Rates from 7e-20 to 0.7: the race's range runs to t ≈ 1e21 for the last place.
    let stacks = [1, 2, 1_000, 1_000_000, 1_000_000_000, 1_000_000_000_000, 3_000_000_000_000, 10_000_000_000_000];
    let reference = place_probabilities(&stacks, 8, Method::Permutations).expect("field");
    let race = place_probabilities(&stacks, 8, Method::Race).expect("field");
    assert!(max_difference(&reference, &race) < 1e-9, "{:e}", max_difference(&reference, &race));
    let huge = [u64::MAX, u64::MAX - 1, u64::MAX / 2];
    let table = place_probabilities(&huge, 3, Method::Race).expect("field");
    assert!(max_difference(&place_probabilities(&huge, 3, Method::Subsets).expect("field"), &table) < 1e-9);
}

/// Equities of every method that takes the field, against a reference, as a fraction of the
/// prizes' total.
fn equity_gap(stacks: &[u64], prizes: &[u64], method: Method, reference: Method) -> f64 {
    let pool: u64 = prizes.iter().sum();
    let got = equities(stacks, prizes, method).expect("field");
    let want = equities(stacks, prizes, reference).expect("field");
    got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / pool.max(1) as f64
}

/// The cents the race gives (today's `amounts` above the subset method's players).
fn race_amounts(stacks: &[u64], prizes: &[u64]) -> Vec<u64> {
    let total = prizes.iter().sum();
    cents_of(total, &equities(stacks, prizes, Method::Race).expect("field"), stacks)
}

fn prizes_strategy(most: usize) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0u64..2_000_000_000, 1..=most).prop_map(|mut p| {
        p.sort_unstable_by(|a, b| b.cmp(a));
        p
    })
}

#[test]
fn the_transposed_method_gives_the_closed_forms_for_3000_players() {
    // Prizes 1, 1, 0, …: equity = P(1st) + P(2nd) = s_i/S + Σ_{j≠i} (s_j/S) · s_i/(S − s_j).
    let stacks: Vec<u64> = (0..3_000u64).map(|i| 2_000 + (i * 7_919) % 50_000).collect();
    let mut prizes = vec![1_000_000, 1_000_000];
    prizes.extend(std::iter::repeat_n(0, 40));
    let got = equities(&stacks, &prizes, Method::Transposed).expect("field");
    let total: f64 = stacks.iter().map(|&s| s as f64).sum();
    let mut worst: f64 = 0.0;
    for (i, &si) in stacks.iter().enumerate() {
        let si = si as f64;
        let second: f64 =
            stacks.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &sj)| (sj as f64 / total) * si / (total - sj as f64)).sum();
        worst = worst.max((got[i] / 1_000_000.0 - (si / total + second)).abs());
    }
    // As a fraction of the prizes' total (2,000,000).
    assert!(worst / 2.0 < EQUITY_ERROR, "{worst:e}");
    let sum: f64 = got.iter().sum();
    assert!((sum / 2_000_000.0 - 1.0).abs() < EQUITY_SUM_ERROR, "{:e}", sum / 2_000_000.0 - 1.0);
}

#[test]
fn the_transposed_method_holds_on_stacks_from_one_chip_to_ten_trillion() {
    let mut stacks = vec![1, 2, 1_000, 1_000_000, 1_000_000_000, 1_000_000_000_000, 3_000_000_000_000, 10_000_000_000_000];
    stacks.extend((0..9).map(|i| 77 + i * 1_000_003));
    let prizes = [50_000, 30_000, 20_000, 10_000, 10_000, 5_000, 1_000, 1_000, 1];
    assert!(equity_gap(&stacks, &prizes, Method::Transposed, Method::Subsets) < EQUITY_ERROR);
    assert!(equity_gap(&stacks, &prizes, Method::Race, Method::Subsets) < EQUITY_ERROR);
    let huge = [u64::MAX, u64::MAX - 1, u64::MAX / 2];
    assert!(equity_gap(&huge, &[3, 2, 1], Method::Transposed, Method::Permutations) < EQUITY_ERROR);
}

#[test]
fn a_share_on_a_cent_boundary_is_not_settled_and_a_clear_one_is() {
    // 300 cents between two players: 150.25 / 149.75 leave one cent, to the larger remainder.
    assert!(settled(300, &[150.25, 149.75], &[20, 10]));
    // Equal remainders: the larger stack, whatever the error (it cannot move a millionth).
    assert!(settled(300, &[150.5, 149.5], &[20, 10]));
    // A whole cent: the error could take a share below it.
    assert!(!settled(300, &[150.0, 150.0], &[20, 10]));
    // Remainders half a millionth of a cent from rounding either way, at the cut-off: the
    // error decides who gets the cent left over.
    assert!(!settled(300, &[150.500_000_5, 149.499_999_5], &[10, 20]));
}

#[test]
fn icm_cents_for_1000_players_are_the_race_s_and_1024_players_all_paid_sum_exactly() {
    // 1,000 players, 200 places paid.
    let stacks: Vec<u64> = (0..1_000u64).map(|i| 1_000 + (i * 7_919 + i * i * 31) % 200_000).collect();
    let prizes: Vec<u64> = (0..200u64).map(|p| 10_000_000 / (p + 1) + 100).collect();
    assert_eq!(amounts(&stacks, &prizes).expect("field"), race_amounts(&stacks, &prizes));
    // 1,024 × 1,024 is past the race and computed by the transposed method alone.
    let stacks: Vec<u64> = (0..1_024u64).map(|i| 1_000 + (i * 7_919) % 90_000).collect();
    let prizes: Vec<u64> = (0..1_024u64).map(|p| 5_000_000 / (p + 1)).collect();
    let paid = amounts(&stacks, &prizes).expect("field");
    assert_eq!(paid.iter().sum::<u64>(), prizes.iter().sum::<u64>());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Issue 41: the cents are today's (the race's) on every field both methods take.
    #[test]
    fn icm_cents_are_the_race_s_to_the_cent(
        stacks in stacks_strategy(13..=60),
        prizes in prizes_strategy(60),
    ) {
        let mut prizes = prizes;
        prizes.truncate(stacks.len());
        prop_assert_eq!(amounts(&stacks, &prizes).expect("field"), race_amounts(&stacks, &prizes));
    }

    /// The stated bound, both large-field methods against the subset method.
    #[test]
    fn the_transposed_method_and_the_race_are_within_the_stated_bound(
        stacks in stacks_strategy(2..=14),
        prizes in prizes_strategy(14),
    ) {
        let mut prizes = prizes;
        prizes.truncate(stacks.len());
        prop_assume!(prizes.iter().sum::<u64>() > 0);
        for method in [Method::Transposed, Method::Race] {
            let gap = equity_gap(&stacks, &prizes, method, Method::Subsets);
            prop_assert!(gap < EQUITY_ERROR, "{:?}: {:e}", method, gap);
        }
    }

    /// Between each other on larger fields, and the sum against the prizes.
    #[test]
    fn the_transposed_method_agrees_with_the_race_on_larger_fields(
        stacks in stacks_strategy(15..=100),
        prizes in prizes_strategy(100),
    ) {
        let mut prizes = prizes;
        prizes.truncate(stacks.len());
        let pool: u64 = prizes.iter().sum();
        prop_assume!(pool > 0);
        prop_assert!(equity_gap(&stacks, &prizes, Method::Transposed, Method::Race) < 2.0 * EQUITY_ERROR);
        let sum: f64 = equities(&stacks, &prizes, Method::Transposed).expect("field").iter().sum();
        prop_assert!((sum / pool as f64 - 1.0).abs() < EQUITY_SUM_ERROR, "{:e}", sum / pool as f64 - 1.0);
    }
}
