//! Splitting an amount of minor units (cents) by weights so that the parts sum to it exactly:
//! the largest-remainder rule, used by every deal method (`deal`) and by ICM money (`icm`).
//!
//! # The rule
//!
//! 1. Each player's ideal share is `total × weight / Σ weights`.
//! 2. Each player first gets the whole cents of their share (rounded down).
//! 3. The cents left over (fewer than the number of players) go one each to the players with
//!    the largest fractional remainders; equal remainders go first to the larger stack, then to
//!    the player earlier in the list.
//!
//! With integer weights (chips, equal shares) step 1 is exact (`u128`). With real weights (ICM
//! equities, which are probabilities) the remainders are compared to a millionth of a cent, so
//! two players whose equities differ only by floating-point noise count as a tie and the stack,
//! then the list order, decides. If that noise ever makes the rounded-down cents add up to more
//! than the total, the surplus is taken back one cent each from the smallest remainders (the
//! reverse order). Either way the parts sum to the total exactly.
//!
//! Floats are reproducible on one build and platform, not across every `libm`, so a service
//! stores the amounts it decided and never recomputes them on replay.

/// How finely real remainders are compared: a millionth of a cent.
const REMAINDER_STEPS: f64 = 1_000_000.0;

/// Splits `total` in proportion to integer `weights` (chips, or ones for an equal split).
/// `stacks` breaks ties between equal remainders (larger first), then the list order.
///
/// # Returns
/// One amount per weight, summing to `total`; `None` when every weight is zero and `total` is
/// not (nothing to split by), or when `stacks` is not as long as `weights`.
pub fn split_by_integers(total: u64, weights: &[u64], stacks: &[u64]) -> Option<Vec<u64>> {
    if stacks.len() != weights.len() {
        return None;
    }
    let sum: u128 = weights.iter().map(|&w| u128::from(w)).sum();
    if sum == 0 {
        return (total == 0).then(|| vec![0; weights.len()]);
    }
    let mut amounts = Vec::with_capacity(weights.len());
    let mut remainders = Vec::with_capacity(weights.len());
    for &w in weights {
        let scaled = u128::from(total) * u128::from(w);
        // A share is at most `total`, so it fits a u64.
        amounts.push((scaled / sum) as u64);
        remainders.push(scaled % sum);
    }
    let given: u128 = amounts.iter().map(|&a| u128::from(a)).sum();
    let left = u128::from(total) - given;
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| remainders[b].cmp(&remainders[a]).then(stacks[b].cmp(&stacks[a])).then(a.cmp(&b)));
    // Fewer than one cent per player is left: each remainder is below one cent.
    for &i in order.iter().take(left as usize) {
        amounts[i] += 1;
    }
    Some(amounts)
}

/// Splits `total` in proportion to real `weights` (ICM equities), by the rule in the module
/// docs. Negative or non-finite weights count as zero.
///
/// # Returns
/// One amount per weight, summing to `total`; `None` when no weight is positive and `total` is
/// not zero, or when `stacks` is not as long as `weights`.
pub fn split_by_reals(total: u64, weights: &[f64], stacks: &[u64]) -> Option<Vec<u64>> {
    if stacks.len() != weights.len() {
        return None;
    }
    let clean: Vec<f64> = weights.iter().map(|&w| if w.is_finite() && w > 0.0 { w } else { 0.0 }).collect();
    let sum: f64 = clean.iter().sum();
    if sum <= 0.0 {
        return (total == 0).then(|| vec![0; weights.len()]);
    }
    let mut amounts = Vec::with_capacity(clean.len());
    let mut remainders = Vec::with_capacity(clean.len());
    for &w in &clean {
        let share = (total as f64 * (w / sum)).min(total as f64);
        let whole = share.floor();
        amounts.push(whole as u64);
        remainders.push(((share - whole) * REMAINDER_STEPS).round() as u64);
    }
    let mut order: Vec<usize> = (0..clean.len()).collect();
    order.sort_by(|&a, &b| remainders[b].cmp(&remainders[a]).then(stacks[b].cmp(&stacks[a])).then(a.cmp(&b)));
    let given: u128 = amounts.iter().map(|&a| u128::from(a)).sum();
    let total_wide = u128::from(total);
    if given <= total_wide {
        let mut left = total_wide - given;
        // Float noise could leave a few more cents than players; go round again.
        while left > 0 {
            for &i in &order {
                if left == 0 {
                    break;
                }
                amounts[i] += 1;
                left -= 1;
            }
        }
    } else {
        let mut surplus = given - total_wide;
        while surplus > 0 {
            for &i in order.iter().rev() {
                if surplus == 0 {
                    break;
                }
                if amounts[i] > 0 {
                    amounts[i] -= 1;
                    surplus -= 1;
                }
            }
        }
    }
    Some(amounts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn leftover_cents_go_to_the_largest_remainders() {
        // 100 by 1:1:1 = 33.33 each: the one cent left goes to the largest stack on the tie.
        assert_eq!(split_by_integers(100, &[1, 1, 1], &[10, 30, 20]), Some(vec![33, 34, 33]));
        // 7 cents by 5:3:2: 3.5, 2.1 and 1.4; the whole cents 3 + 2 + 1 = 6, and the last cent
        // goes to the largest remainder (0.5, the first player).
        assert_eq!(split_by_integers(7, &[5, 3, 2], &[5, 3, 2]), Some(vec![4, 2, 1]));
    }

    #[test]
    fn equal_remainders_and_stacks_go_in_list_order() {
        assert_eq!(split_by_integers(5, &[1, 1, 1], &[7, 7, 7]), Some(vec![2, 2, 1]));
        assert_eq!(split_by_reals(5, &[1.0, 1.0, 1.0], &[7, 7, 7]), Some(vec![2, 2, 1]));
    }

    #[test]
    fn real_remainders_within_a_millionth_of_a_cent_tie() {
        // 1.0 and 1.0 + 1e-12: the same to a millionth of a cent, so the bigger stack (the
        // second player) gets the odd cent, not the one with the noisily larger weight.
        assert_eq!(split_by_reals(3, &[1.0 + 1e-12, 1.0], &[10, 20]), Some(vec![1, 2]));
    }

    #[test]
    fn nothing_to_split_by_is_refused_unless_nothing_is_split() {
        assert_eq!(split_by_integers(10, &[0, 0], &[1, 1]), None);
        assert_eq!(split_by_integers(0, &[0, 0], &[1, 1]), Some(vec![0, 0]));
        assert_eq!(split_by_reals(10, &[0.0, f64::NAN], &[1, 1]), None);
        assert_eq!(split_by_reals(10, &[1.0], &[1, 1]), None, "one stack per weight");
    }

    proptest! {
        #[test]
        fn integer_splits_sum_exactly_and_follow_the_weights(
            total in 0u64..=u64::MAX,
            weights in prop::collection::vec(0u64..=u64::MAX, 1..20),
        ) {
            prop_assume!(weights.iter().any(|&w| w > 0));
            let amounts = split_by_integers(total, &weights, &weights).expect("weights");
            prop_assert_eq!(amounts.iter().map(|&a| u128::from(a)).sum::<u128>(), u128::from(total));
            for i in 0..weights.len() {
                for j in 0..weights.len() {
                    if weights[i] > weights[j] {
                        prop_assert!(amounts[i] >= amounts[j], "a bigger weight never gets less");
                    }
                }
            }
        }

        #[test]
        fn real_splits_sum_exactly_and_stay_within_a_cent_of_the_ideal(
            total in 0u64..1_000_000_000_000,
            weights in prop::collection::vec(0.0f64..1e6, 1..20),
        ) {
            prop_assume!(weights.iter().any(|&w| w > 0.0));
            let stacks = vec![1; weights.len()];
            let amounts = split_by_reals(total, &weights, &stacks).expect("weights");
            prop_assert_eq!(amounts.iter().sum::<u64>(), total);
            let sum: f64 = weights.iter().sum();
            for (a, w) in amounts.iter().zip(&weights) {
                let ideal = total as f64 * w / sum;
                prop_assert!((*a as f64 - ideal).abs() < 1.0 + ideal * 1e-12, "{a} vs {ideal}");
            }
        }
    }
}
