//! Deals by example (worked by hand in the comments) and by property: every method's amounts
//! plus what is left to play for add up to the pool exactly, and under ICM and chip chop a
//! bigger stack never gets less.

use super::*;
use proptest::prelude::*;

fn players(stacks: &[u64]) -> Vec<DealPlayer<u32>> {
    stacks.iter().enumerate().map(|(i, &chips)| DealPlayer { player: i as u32 + 1, chips }).collect()
}

fn terms(method: DealMethod, left: Option<u64>) -> DealTerms {
    DealTerms { method, left_to_play_for: left, min_left_bps: 1_000 }
}

fn amounts(deal: &Deal<u32>) -> Vec<u64> {
    deal.amounts.iter().map(|&(_, a)| a).collect()
}

/// Three players, 5,000 / 3,000 / 2,000 chips, $50 / $30 / $20 unpaid (in cents).
const STACKS: [u64; 3] = [5_000, 3_000, 2_000];
const UNPAID: [u64; 3] = [5_000, 3_000, 2_000];

#[test]
fn an_icm_deal_pays_the_classic_figures() {
    // Given the three players and nothing left to play for.
    // When they deal by ICM.
    let deal = deal(&players(&STACKS), &UNPAID, &terms(DealMethod::Icm, None)).expect("deal");
    // Then (icm/tests.rs works them out): $38.392857, $32.75, $28.857143 → whole cents
    // 3839 + 3275 + 2885 = 9,999, the last cent to the largest remainder (.714, the short stack).
    assert_eq!(deal.amounts, vec![(1, 3_839), (2, 3_275), (3, 2_886)]);
    assert_eq!((deal.left_to_play_for, deal.pool), (0, 10_000));
}

#[test]
fn a_chip_chop_pays_the_next_prize_then_the_rest_by_chips() {
    // Given the three players; the next unpaid prize (3rd place) is $20.
    // When they chop by chips.
    let deal = deal(&players(&STACKS), &UNPAID, &terms(DealMethod::ChipChop, None)).expect("deal");
    // Then each gets $20, and the rest, $100 − 3 × $20 = $40, goes 5:3:2: $20, $12, $8.
    assert_eq!(amounts(&deal), vec![4_000, 3_200, 2_800]);
}

#[test]
fn an_equal_split_gives_the_odd_cent_to_the_bigger_stack() {
    // $100 in three: 3333 each and one cent over, to the biggest stack.
    let deal = deal(&players(&STACKS), &UNPAID, &terms(DealMethod::Equal, None)).expect("deal");
    assert_eq!(amounts(&deal), vec![3_334, 3_333, 3_333]);
}

#[test]
fn money_left_to_play_for_comes_out_of_first_prize() {
    // Given $10 left to play for: 10 % of $100 (the house minimum), at most $50 − $30 = $20.
    let left = Some(1_000);
    // When they chop by chips: $20 each, then $100 − $10 − $60 = $30 by chips: $15, $9, $6.
    let chop = deal(&players(&STACKS), &UNPAID, &terms(DealMethod::ChipChop, left)).expect("deal");
    assert_eq!(amounts(&chop), vec![3_500, 2_900, 2_600]);
    // When they deal by ICM on $40 / $30 / $20: the ICM figures less P(1st) × $10:
    //   A: 38.392857 − 5 = 33.392857, B: 32.75 − 3 = 29.75, C: 28.857143 − 2 = 26.857143
    //   → 3339 + 2975 + 2685 = 8,999, the last cent to C (.714): 3339 / 2975 / 2686.
    let icm = deal(&players(&STACKS), &UNPAID, &terms(DealMethod::Icm, left)).expect("deal");
    assert_eq!(amounts(&icm), vec![3_339, 2_975, 2_686]);
    // Then both keep $10 out, and the amounts and it make the pool.
    for d in [&chop, &icm] {
        assert_eq!(d.left_to_play_for, 1_000);
        assert_eq!(amounts(d).iter().sum::<u64>() + d.left_to_play_for, d.pool);
    }
}

#[test]
fn money_left_to_play_for_out_of_range_is_refused() {
    for (left, min, max) in [(999, 1_000, 2_000), (2_001, 1_000, 2_000)] {
        let refused = deal(&players(&STACKS), &UNPAID, &terms(DealMethod::Equal, Some(left))).expect_err("out of range");
        assert_eq!(refused, DealError::LeftToPlayForOutOfRange { amount: left, min, max });
        assert_eq!(refused.code(), "deal_left_to_play_for_out_of_range");
    }
    // "At least 10 %" of $100.05 is rounded up to $10.01.
    let unpaid = [5_005, 3_000, 2_000];
    let refused = deal(&players(&STACKS), &unpaid, &terms(DealMethod::Equal, Some(1_000))).expect_err("below 10 %");
    assert_eq!(refused, DealError::LeftToPlayForOutOfRange { amount: 1_000, min: 1_001, max: 2_005 });
}

#[test]
fn custom_amounts_must_add_up_to_the_money_dealt() {
    let ok = deal(&players(&STACKS), &UNPAID, &terms(DealMethod::Custom(vec![4_500, 3_000, 2_500]), None)).expect("deal");
    assert_eq!(amounts(&ok), vec![4_500, 3_000, 2_500]);
    let short = deal(&players(&STACKS), &UNPAID, &terms(DealMethod::Custom(vec![4_500, 3_000, 2_499]), None)).expect_err("short");
    assert_eq!(short, DealError::AmountsDoNotSum { sum: 9_999, dealt: 10_000 });
    assert_eq!(short.code(), "deal_amounts_do_not_sum");
    // With $10 left to play for, the amounts make $90.
    let with_left = terms(DealMethod::Custom(vec![4_500, 3_000, 2_500]), Some(1_000));
    assert_eq!(deal(&players(&STACKS), &UNPAID, &with_left).expect_err("sums to the pool").code(), "deal_amounts_do_not_sum");
    let two = deal(&players(&STACKS), &UNPAID, &terms(DealMethod::Custom(vec![5_000, 5_000]), None)).expect_err("two amounts");
    assert_eq!(two.code(), "deal_amounts_do_not_match_players");
}

#[test]
fn bad_tables_are_refused_with_their_codes() {
    let code = |stacks: &[u64], unpaid: &[u64]| deal(&players(stacks), unpaid, &terms(DealMethod::Icm, None)).expect_err("refused").code();
    assert_eq!(code(&[5_000], &[5_000]), "deal_needs_two_players");
    assert_eq!(code(&[5_000, 0], &[5_000, 2_000]), "deal_zero_stack");
    assert_eq!(code(&[5_000, 3_000], &[5_000, 3_000, 2_000]), "deal_more_prizes_than_players");
    assert_eq!(code(&[5_000, 3_000], &[3_000, 5_000]), "deal_prizes_not_descending");
    assert_eq!(code(&[5_000, 3_000], &[u64::MAX, 1]), "deal_pool_overflow");
    let twice = vec![DealPlayer { player: 7, chips: 10 }, DealPlayer { player: 7, chips: 20 }];
    let refused = deal(&twice, &[30, 10], &terms(DealMethod::Equal, None)).expect_err("named twice");
    assert_eq!((refused.code(), refused), ("deal_duplicate_player", DealError::DuplicatePlayer { index: 1 }));
}

#[test]
fn a_deal_on_the_bubble_chops_everything_by_chips() {
    // Four players, three prizes: the next player out wins nothing, so the chop is all chips:
    // $100 as 4:3:2:1.
    let deal = deal(&players(&[4_000, 3_000, 2_000, 1_000]), &UNPAID, &terms(DealMethod::ChipChop, None)).expect("deal");
    assert_eq!(amounts(&deal), vec![4_000, 3_000, 2_000, 1_000]);
}

#[test]
fn a_large_field_deals_by_icm_through_the_race() {
    // 40 players (beyond the subset method's reach in Auto), 9 prizes.
    let stacks: Vec<u64> = (0..40).map(|i| 10_000 + 1_379 * i).collect();
    let unpaid = [30_000, 20_000, 14_000, 10_000, 8_000, 6_000, 5_000, 4_000, 3_000];
    let deal = deal(&players(&stacks), &unpaid, &terms(DealMethod::Icm, None)).expect("deal");
    assert_eq!(amounts(&deal).iter().sum::<u64>(), unpaid.iter().sum::<u64>());
    assert!(amounts(&deal).windows(2).all(|w| w[0] <= w[1]), "stacks grow down the list, so do the amounts");
}

/// Random tables: 2–9 players, non-increasing prizes for at most every player, a method and
/// maybe an amount left to play for within range.
fn table() -> impl Strategy<Value = (Vec<u64>, Vec<u64>, u8, u16)> {
    (2usize..=9)
        .prop_flat_map(|n| {
            (prop::collection::vec(1u64..=50_000_000, n), prop::collection::vec(0u64..=10_000_000_000, 0..=n), 0u8..3, any::<u16>())
        })
        .prop_map(|(stacks, mut prizes, method, left)| {
            prizes.sort_unstable_by(|a, b| b.cmp(a));
            (stacks, prizes, method, left)
        })
}

proptest! {
    #[test]
    fn every_deal_adds_up_to_the_pool_and_pays_bigger_stacks_no_less((stacks, unpaid, method, left) in table()) {
        let method = [DealMethod::Icm, DealMethod::ChipChop, DealMethod::Equal][usize::from(method)].clone();
        let (first, second) = (unpaid.first().copied().unwrap_or(0), unpaid.get(1).copied().unwrap_or(0));
        // Some amount between 0 and first − second, or none.
        let left = (left % 2 == 1).then(|| (first - second) / 65_536 * u64::from(left));
        let terms = DealTerms { method: method.clone(), left_to_play_for: left, min_left_bps: 0 };
        let deal = deal(&players(&stacks), &unpaid, &terms).expect("a valid table");
        let paid = amounts(&deal);
        prop_assert_eq!(paid.iter().sum::<u64>() + deal.left_to_play_for, unpaid.iter().sum::<u64>());
        if method != DealMethod::Equal {
            for i in 0..stacks.len() {
                for j in 0..stacks.len() {
                    if stacks[i] > stacks[j] {
                        prop_assert!(paid[i] >= paid[j], "{:?}: {} chips got {}, {} chips got {}", method, stacks[i], paid[i], stacks[j], paid[j]);
                    }
                }
            }
        }
        if method == DealMethod::ChipChop {
            let next = unpaid.get(stacks.len() - 1).copied().unwrap_or(0);
            prop_assert!(paid.iter().all(|&a| a >= next), "a chop pays everyone at least the next prize");
        }
    }

    #[test]
    fn custom_amounts_are_taken_exactly_when_they_add_up((stacks, unpaid, _method, cut) in table()) {
        let pool: u64 = unpaid.iter().sum();
        // The pool cut into one piece per player at an arbitrary point, last piece the rest.
        let mut custom = vec![0; stacks.len()];
        custom[0] = pool / 65_536 * u64::from(cut);
        custom[stacks.len() - 1] = pool - custom[0];
        let ok = deal(&players(&stacks), &unpaid, &terms(DealMethod::Custom(custom.clone()), None)).expect("adds up");
        prop_assert_eq!(amounts(&ok), custom.clone());
        custom[0] += 1;
        let refused = deal(&players(&stacks), &unpaid, &terms(DealMethod::Custom(custom), None)).expect_err("one cent over");
        prop_assert_eq!(refused.code(), "deal_amounts_do_not_sum");
    }
}
