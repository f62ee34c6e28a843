//! Dividing an amount to the minor unit: the remainder rule every cancellation uses.
//!
//! **Largest remainder, ties by entry number.** Each share is first rounded down:
//! `⌊amount × wᵢ / W⌋` (an equal share is the case `wᵢ = 1`, `W = n`). The minor units this
//! leaves (fewer than the number of sharers, as the fractions sum to less than `n`) go one each
//! to the shares with the largest dropped fraction `amount × wᵢ mod W`; on equal fractions, to
//! the lower entry number. The callers pass sharers in entry-number order, so "lower index" is
//! "lower entry number". The shares then sum to the amount exactly, and the same inputs give
//! the same shares on every machine (integer arithmetic in `u128`, no floats).
//!
//! Cost: O(n) for the shares plus O(n) expected to pick the remainders (a selection, not a
//! sort), so a cancellation of 250,000 entries divides in milliseconds.

/// One share: the rounded-down part, and whether it got one minor unit of the remainder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    /// The share, remainder included.
    pub amount: u64,
    /// It got one minor unit of the remainder.
    pub extra: bool,
}

/// `amount` divided equally among `n` sharers (in entry-number order): the first
/// `amount mod n` get one minor unit more.
pub fn equal(amount: u64, n: usize) -> Vec<Share> {
    if n == 0 {
        return Vec::new();
    }
    let base = amount / n as u64;
    let left = (amount % n as u64) as usize;
    (0..n).map(|i| Share { amount: base + u64::from(i < left), extra: i < left }).collect()
}

/// `amount` divided in proportion to `weights` (in entry-number order), largest remainder
/// first, ties to the lower index. With every weight zero (nobody holds a chip) the division
/// is equal, so the amount is still paid out in full.
pub fn by_weight(amount: u64, weights: &[u64]) -> Vec<Share> {
    let total: u128 = weights.iter().map(|&w| u128::from(w)).sum();
    if total == 0 {
        return equal(amount, weights.len());
    }
    let mut paid: u64 = 0;
    let mut shares = Vec::with_capacity(weights.len());
    let mut fractions = Vec::with_capacity(weights.len());
    for (i, &w) in weights.iter().enumerate() {
        let exact = u128::from(amount) * u128::from(w);
        // ⌊amount × w / W⌋ ≤ amount, so it fits u64.
        let base = (exact / total) as u64;
        paid += base;
        shares.push(Share { amount: base, extra: false });
        fractions.push((exact % total, i));
    }
    let left = (amount - paid) as usize;
    if left > 0 {
        // Largest fraction first, lower index on a tie: the `left` first in this order win.
        let order = |a: &(u128, usize), b: &(u128, usize)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        if left < fractions.len() {
            fractions.select_nth_unstable_by(left - 1, order);
        }
        for &(_, i) in &fractions[..left] {
            shares[i].amount += 1;
            shares[i].extra = true;
        }
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn amounts(shares: &[Share]) -> Vec<u64> {
        shares.iter().map(|s| s.amount).collect()
    }

    #[test]
    fn equal_shares_give_the_odd_cents_to_the_lowest_entries() {
        // 100 cents among 3: 33 each, 1 left, to the first.
        assert_eq!(amounts(&equal(100, 3)), [34, 33, 33]);
        assert_eq!(amounts(&equal(5, 7)), [1, 1, 1, 1, 1, 0, 0]);
        assert!(equal(7, 0).is_empty());
    }

    #[test]
    fn chip_shares_give_the_odd_cents_to_the_largest_remainders() {
        // 100 cents by 1:1:1 → 33.33 each → 33, 33, 33 + 1 to the first (tie, lowest entry).
        assert_eq!(amounts(&by_weight(100, &[1, 1, 1])), [34, 33, 33]);
        // 10 cents by 5:3:2 → 5, 3, 2 exactly.
        assert_eq!(amounts(&by_weight(10, &[5, 3, 2])), [5, 3, 2]);
        // 10 cents by 1:2:4 (W = 7): 1.43, 2.86, 5.71 → 1, 2, 5 = 8; fractions 3/7, 6/7, 5/7:
        // the two cents go to the second (6/7) and the third (5/7).
        assert_eq!(amounts(&by_weight(10, &[1, 2, 4])), [1, 3, 6]);
        // Nobody holds a chip: equal.
        assert_eq!(amounts(&by_weight(10, &[0, 0, 0])), [4, 3, 3]);
    }

    proptest! {
        #[test]
        fn shares_sum_to_the_amount_and_stay_within_a_cent_of_the_exact_share(
            amount in 0u64..(1 << 53),
            weights in prop::collection::vec(0u64..1_000_000_000_000, 1..60),
        ) {
            let shares = by_weight(amount, &weights);
            prop_assert_eq!(shares.iter().map(|s| s.amount).sum::<u64>(), amount);
            let total: u128 = weights.iter().map(|&w| u128::from(w)).sum();
            for (s, &w) in shares.iter().zip(&weights) {
                let floor = (u128::from(amount) * u128::from(w)).checked_div(total).map_or(amount / weights.len() as u64, |f| f as u64);
                prop_assert!(s.amount == floor || s.amount == floor + 1);
                prop_assert_eq!(s.extra, s.amount == floor + 1);
            }
            let eq = equal(amount, weights.len());
            prop_assert_eq!(eq.iter().map(|s| s.amount).sum::<u64>(), amount);
        }
    }
}
