//! The draw of a lottery sit & go: the number, the row, the pool and the prizes. Pure.
//!
//! 000 §16.10: "Bei der Turnier Variante „Twister“ entscheidet ein Zufallszahlengenerator über
//! das auszuspielenden Preisgeld. Die Höhe und Gewinnwahrscheinlichkeiten des Preisgeldes werden
//! auf der Homepage der Gesellschaft veröffentlicht." (a random number generator decides the
//! prize money; its amounts and probabilities are published). The published table is the
//! definition's [`LotteryTerms`]; the generator is this file, and anyone can run it again:
//!
//! **Audit.** The seed's SHA-256 ([`commitment`]) is published when the game is created
//! (`draw_committed`), before any player can know the draw; the seed itself is revealed with the
//! draw (`prize_drawn`). With the seed, the table and the buy-in, [`draw`] gives the same number,
//! multiplier and prizes again; a seed whose SHA-256 is not the commitment is refused.
//!
//! **The number** ([`number`]): a uniform integer in `0 .. 1,000,000` by rejection sampling.
//! Block `k` (from 0) is `SHA-256(seed ‖ "lottery-number" ‖ k as 4 bytes big-endian)`; its
//! first 4 bytes, big-endian, are `x`. When `x < 4,294,000,000` (the largest multiple of
//! 1,000,000 not above 2^32) the number is `x mod 1,000,000`: each of the million numbers has
//! exactly 4,294 values of `x`, so none is more likely than another (no modulo bias). Otherwise
//! (probability 967,296 / 2^32 ≈ 0.02 %) block `k + 1` is tried.
//!
//! **The row** ([`row`]): the rows' probabilities per million, in the table's order, cover
//! `0 .. 1,000,000` one after the other; the row whose range holds the number wins (row `i`
//! holds `[p_0 + … + p_{i-1}, p_0 + … + p_i)`), so row `i` is drawn with probability
//! `p_i / 1,000,000` exactly.
//!
//! **The pool** is the row's multiplier × the buy-in (checked; in the buy-in's currency; at most
//! [`MAX_TOTAL`]). **The prizes** ([`split`]): each place's `split_bps` of the pool, rounded
//! down to the minor unit, and the cents left go to first place, so they sum to the pool.

use floor_events::lottery::{LotteryPrize, LotteryTerms, PER_MILLION};
use floor_events::money::MAX_TOTAL;
use floor_events::{codes, Money};
use sha2::{Digest, Sha256};

pub use floor_runtime::encoding::{hex, unhex};

/// A draw seed: 32 bytes.
pub type Seed = [u8; 32];

/// The largest multiple of a million not above 2^32: values of `x` at or above it are rejected.
pub const ACCEPT_BELOW: u32 = (u32::MAX / PER_MILLION) * PER_MILLION;

/// The commitment published before the draw: SHA-256 of the seed.
pub fn commitment(seed: &Seed) -> [u8; 32] {
    Sha256::digest(seed).into()
}

/// Block `k` of the seed: the 4 bytes `x` of the module docs.
pub fn block(seed: &Seed, k: u32) -> u32 {
    let mut hash = Sha256::new();
    hash.update(seed);
    hash.update(b"lottery-number");
    hash.update(k.to_be_bytes());
    let digest = hash.finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// The number drawn with `seed`: uniform in `0 .. 1,000,000` (module docs). The first block
/// accepted decides; that 2^32 blocks in a row are all rejected has probability (0.000225)^(2^32),
/// which is zero for any purpose, and would give 0.
pub fn number(seed: &Seed) -> u32 {
    (0..=u32::MAX).map(|k| block(seed, k)).find(|&x| x < ACCEPT_BELOW).map_or(0, |x| x % PER_MILLION)
}

/// The index of the row whose cumulative range holds `number`; `None` when the rows' odds do
/// not reach past it (a table that does not sum to a million).
pub fn row(prizes: &[LotteryPrize], number: u32) -> Option<usize> {
    let mut upto = 0u64;
    for (i, prize) in prizes.iter().enumerate() {
        upto += u64::from(prize.per_million);
        if u64::from(number) < upto {
            return Some(i);
        }
    }
    None
}

/// Each place's prize, first place first: `split_bps` of `pool` rounded down, the cents left to
/// first place. Sums to `pool` when the split is 10,000 bp in all (the table's check).
pub fn split(pool: u64, split_bps: &[u32]) -> Vec<u64> {
    let mut prizes: Vec<u64> = split_bps.iter().map(|&bps| (u128::from(pool) * u128::from(bps) / 10_000) as u64).collect();
    let shared: u64 = prizes.iter().sum();
    if let Some(first) = prizes.first_mut() {
        *first += pool.saturating_sub(shared);
    }
    prizes
}

/// What a seed draws from a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drawn {
    /// The number, `0 .. 1,000,000`.
    pub number: u32,
    /// The row's index in the table.
    pub row: usize,
    /// The row's multiplier.
    pub multiplier: u32,
    /// Multiplier × buy-in.
    pub pool: Money,
    /// Each place's prize, first place first; sums to `pool`.
    pub prizes: Vec<u64>,
}

/// Why a table cannot be drawn from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    /// The odds do not sum to one million per million.
    #[error("the probabilities sum to {0} per million, not 1,000,000")]
    OddsNotOne(u64),
    /// A row's split is not 10,000 bp in all over 1 to 64 places.
    #[error("row {0}: the split must be 10,000 bp in all over 1 to 64 places")]
    Split(usize),
    /// The pool would pass the largest total Floor keeps.
    #[error("a pool of {0} × the buy-in is more than Floor keeps")]
    PoolTooLarge(u32),
}

impl DrawError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::OddsNotOne(_) => codes::LOTTERY_ODDS_NOT_ONE,
            Self::Split(_) => codes::INVALID_DEFINITION,
            Self::PoolTooLarge(_) => codes::AMOUNT_TOO_LARGE,
        }
    }
}

/// The table's own checks, again at the draw (the definition was checked at its creation; the
/// decider does not trust a command's table): odds summing to a million, each split 10,000 bp.
///
/// # Errors
/// The first rule broken.
pub fn check(terms: &LotteryTerms) -> Result<(), DrawError> {
    let total: u64 = terms.prizes.iter().map(|p| u64::from(p.per_million)).sum();
    if total != u64::from(PER_MILLION) {
        return Err(DrawError::OddsNotOne(total));
    }
    for (i, prize) in terms.prizes.iter().enumerate() {
        let bps: u64 = prize.split_bps.iter().map(|&b| u64::from(b)).sum();
        if bps != 10_000 || prize.split_bps.is_empty() || prize.split_bps.len() > 64 {
            return Err(DrawError::Split(i + 1));
        }
    }
    Ok(())
}

/// The pool a row pays: multiplier × buy-in, in the buy-in's currency.
///
/// # Errors
/// [`DrawError::PoolTooLarge`] past [`MAX_TOTAL`].
pub fn pool(multiplier: u32, buy_in: Money) -> Result<Money, DrawError> {
    buy_in
        .amount
        .checked_mul(u64::from(multiplier))
        .filter(|&amount| amount <= MAX_TOTAL)
        .map(|amount| Money::new(amount, buy_in.currency))
        .ok_or(DrawError::PoolTooLarge(multiplier))
}

/// The draw: the number from the seed, its row, the pool and the prizes (module docs).
///
/// # Errors
/// A table that does not pass [`check`], or a pool too large.
pub fn draw(terms: &LotteryTerms, buy_in: Money, seed: &Seed) -> Result<Drawn, DrawError> {
    check(terms)?;
    let number = number(seed);
    let row = row(&terms.prizes, number).ok_or(DrawError::OddsNotOne(0))?;
    let prize = &terms.prizes[row];
    let pool = pool(prize.multiplier, buy_in)?;
    let prizes = split(pool.amount, &prize.split_bps);
    Ok(Drawn { number, row, multiplier: prize.multiplier, pool, prizes })
}

/// The seed a counter stands for in tests and benches: `SHA-256("lottery-test-seed" ‖ i)`.
#[doc(hidden)]
pub fn counter_seed(i: u64) -> Seed {
    let mut hash = Sha256::new();
    hash.update(b"lottery-test-seed");
    hash.update(i.to_be_bytes());
    hash.finalize().into()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use floor_events::lottery::validate;
    use floor_events::tournament::{Start, TournamentDefinition};
    use floor_events::Currency;
    use proptest::prelude::*;

    fn eur(cents: u64) -> Money {
        Money::new(cents, Currency::EUR)
    }

    fn prize(multiplier: u32, per_million: u32, split_bps: &[u32]) -> LotteryPrize {
        LotteryPrize { multiplier, per_million, split_bps: split_bps.to_vec() }
    }

    /// A Spin & Go style table for three seats (per million; the expected multiplier is 2.7234,
    /// under the 3 buy-ins the seats pay in).
    pub(crate) fn table() -> LotteryTerms {
        LotteryTerms {
            version: "spin-2026-1".into(),
            prizes: vec![
                prize(1_000, 1, &[8_000, 1_000, 1_000]),
                prize(100, 99, &[8_000, 1_000, 1_000]),
                prize(25, 900, &[10_000]),
                prize(10, 19_000, &[10_000]),
                prize(5, 80_000, &[10_000]),
                prize(3, 300_000, &[10_000]),
                prize(2, 600_000, &[10_000]),
            ],
        }
    }

    fn definition(terms: LotteryTerms) -> TournamentDefinition {
        TournamentDefinition {
            start: Start::SitAndGo,
            capacity: 3,
            min_players: 3,
            buy_in: eur(1_000),
            guarantee: None,
            lottery: Some(terms),
            ..TournamentDefinition::example()
        }
    }

    #[test]
    fn the_table_is_a_valid_definition_and_one_that_does_not_sum_to_one_is_refused() {
        let d = definition(table());
        assert_eq!(validate(&d), Ok(()), "the test's table is a valid definition");
        let mut short = table();
        short.prizes[6].per_million -= 1;
        let refused = validate(&definition(short.clone())).unwrap_err();
        assert_eq!(refused.code, codes::LOTTERY_ODDS_NOT_ONE);
        assert_eq!(check(&short), Err(DrawError::OddsNotOne(999_999)));
        assert_eq!(draw(&short, eur(1_000), &[0; 32]).unwrap_err().code(), codes::LOTTERY_ODDS_NOT_ONE);
        let mut long = table();
        long.prizes[0].per_million += 1;
        assert_eq!(validate(&definition(long.clone())).unwrap_err().code, codes::LOTTERY_ODDS_NOT_ONE);
        assert_eq!(check(&long), Err(DrawError::OddsNotOne(1_000_001)));
    }

    #[test]
    fn a_table_that_pays_more_than_is_paid_in_is_refused() {
        let mut generous = table();
        generous.prizes[6].multiplier = 4; // ×4 at 60 %: expected 3.92 buy-ins against 3 seats paid in
        assert_eq!(validate(&definition(generous)).unwrap_err().code, codes::LOTTERY_PAYS_MORE_THAN_IN);
    }

    #[test]
    fn a_split_that_is_not_ten_thousand_bp_is_refused_at_the_draw() {
        let mut bad = table();
        bad.prizes[0].split_bps = vec![8_000, 1_000];
        assert_eq!(check(&bad), Err(DrawError::Split(1)));
        assert_eq!(DrawError::Split(1).code(), codes::INVALID_DEFINITION);
    }

    #[test]
    fn the_split_sums_to_the_pool_with_the_cents_left_to_first_place() {
        // 3,333 × 80 % = 2,666.4 → 2,666; 10 % = 333.3 → 333 twice; the 1 cent left to first.
        assert_eq!(split(3_333, &[8_000, 1_000, 1_000]), vec![2_667, 333, 333]);
        // 1,001 in thirds: 333 each, 2 cents left to first.
        assert_eq!(split(1_001, &[3_334, 3_333, 3_333]), vec![335, 333, 333]);
        assert_eq!(split(100_000, &[8_000, 1_000, 1_000]), vec![80_000, 10_000, 10_000]);
        assert_eq!(split(7, &[10_000]), vec![7]);
        assert_eq!(split(0, &[5_000, 5_000]), vec![0, 0]);
    }

    #[test]
    fn rows_cover_the_million_in_order() {
        let t = table();
        assert_eq!(row(&t.prizes, 0), Some(0));
        assert_eq!(row(&t.prizes, 1), Some(1));
        assert_eq!(row(&t.prizes, 99), Some(1));
        assert_eq!(row(&t.prizes, 100), Some(2));
        assert_eq!(row(&t.prizes, 399_999), Some(5));
        assert_eq!(row(&t.prizes, 400_000), Some(6));
        assert_eq!(row(&t.prizes, 999_999), Some(6));
        assert_eq!(row(&t.prizes, 1_000_000), None);
    }

    #[test]
    fn the_pool_is_the_multiplier_times_the_buy_in_checked() {
        assert_eq!(pool(25, eur(1_000)), Ok(eur(25_000)));
        assert_eq!(pool(u32::MAX, Money::new(1_000_000_000_000, Currency::EUR)), Err(DrawError::PoolTooLarge(u32::MAX)));
        assert_eq!(pool(u32::MAX, Money::new(u64::MAX, Currency::EUR)), Err(DrawError::PoolTooLarge(u32::MAX)));
    }

    #[test]
    fn the_number_takes_the_first_accepted_block_and_a_rejected_block_is_skipped() {
        assert_eq!(ACCEPT_BELOW, 4_294_000_000);
        // Among the fixed seeds, those whose first block is rejected take their second.
        let rejected: Vec<Seed> = (0..40_000).map(counter_seed).filter(|s| block(s, 0) >= ACCEPT_BELOW).collect();
        assert!(!rejected.is_empty(), "about 9 in 40,000 first blocks are rejected");
        for seed in &rejected {
            let second = block(seed, 1);
            if second < ACCEPT_BELOW {
                assert_eq!(number(seed), second % PER_MILLION);
            }
        }
        let seed = counter_seed(0);
        assert!(block(&seed, 0) < ACCEPT_BELOW);
        assert_eq!(number(&seed), block(&seed, 0) % PER_MILLION);
    }

    #[test]
    fn a_draw_is_reproduced_from_its_seed() {
        let seed = counter_seed(7);
        let drawn = draw(&table(), eur(1_000), &seed).unwrap();
        assert_eq!(draw(&table(), eur(1_000), &seed).unwrap(), drawn);
        assert_eq!(drawn.multiplier, table().prizes[drawn.row].multiplier);
        assert_eq!(drawn.pool, eur(1_000 * u64::from(drawn.multiplier)));
        assert_eq!(drawn.prizes.iter().sum::<u64>(), drawn.pool.amount);
        assert_eq!(unhex(&hex(&seed)), Some(seed));
    }

    /// The drawn frequencies over a fixed list of 20,000 seeds (counter seeds 0..20,000) match
    /// the published table: Pearson's chi-square over the rows, the rarest rows pooled so each
    /// class expects at least 5 games (the rule for the chi-square approximation), stays below
    /// the 0.999 quantile of its distribution; and every row's count is within 5 standard
    /// deviations of what it expects (binomial, `sqrt(n p (1 - p))`). The seeds are fixed, so
    /// the test gives the same answer every run: it fails only if the method is biased (or on
    /// a fixed, knowable unlucky list, which these bounds make a 1-in-1,000 event at most, and
    /// this list is not one).
    #[test]
    fn drawn_frequencies_over_fixed_seeds_match_the_published_table() {
        const GAMES: u64 = 20_000;
        let t = table();
        let mut drawn = vec![0u64; t.prizes.len()];
        for i in 0..GAMES {
            drawn[draw(&t, eur(1_000), &counter_seed(i)).unwrap().row] += 1;
        }
        assert_eq!(drawn.iter().sum::<u64>(), GAMES);
        let n = GAMES as f64;
        // Per row: within 5 standard deviations.
        for (prize, &count) in t.prizes.iter().zip(&drawn) {
            let p = f64::from(prize.per_million) / 1e6;
            let (mean, sd) = (n * p, (n * p * (1.0 - p)).sqrt());
            assert!((count as f64 - mean).abs() <= 5.0 * sd.max(1.0), "×{}: {count} drawn, {mean:.1} expected", prize.multiplier);
        }
        // Chi-square: rows pooled from the rarest until each class expects ≥ 5.
        let mut classes: Vec<(f64, u64)> = Vec::new();
        let (mut expected, mut observed) = (0.0, 0u64);
        for (prize, &count) in t.prizes.iter().zip(&drawn) {
            expected += n * f64::from(prize.per_million) / 1e6;
            observed += count;
            if expected >= 5.0 {
                classes.push((expected, observed));
                (expected, observed) = (0.0, 0);
            }
        }
        if let Some(last) = classes.last_mut() {
            last.0 += expected;
            last.1 += observed;
        }
        let chi2: f64 = classes.iter().map(|&(e, o)| (o as f64 - e).powi(2) / e).sum();
        let freedom = classes.len() - 1;
        // 0.999 quantiles of chi-square for 1..=6 degrees of freedom.
        let bound = [10.828, 13.816, 16.266, 18.467, 20.515, 22.458][freedom - 1];
        assert!(chi2 < bound, "chi-square {chi2:.3} over {freedom} degrees of freedom, bound {bound}: {drawn:?}");
    }

    /// The number itself is uniform: 20,000 fixed seeds into 10 equal bins of 100,000 numbers,
    /// chi-square below the 0.999 quantile for 9 degrees of freedom (27.877).
    #[test]
    fn the_number_is_uniform_over_fixed_seeds() {
        let mut bins = [0u64; 10];
        for i in 0..20_000 {
            bins[(number(&counter_seed(i)) / 100_000) as usize] += 1;
        }
        let chi2: f64 = bins.iter().map(|&o| (o as f64 - 2_000.0).powi(2) / 2_000.0).sum();
        assert!(chi2 < 27.877, "chi-square {chi2:.3}: {bins:?}");
    }

    proptest! {
        /// Whatever the pool and split: the prizes sum to the pool, and no place gets more than
        /// its share rounded up by what the rounding left.
        #[test]
        fn prizes_sum_to_the_pool(pool in 0u64..=MAX_TOTAL, cuts in prop::collection::vec(1u32..5_000, 0..8)) {
            let mut bps = Vec::new();
            let mut left = 10_000u32;
            for c in cuts {
                if c < left {
                    bps.push(c);
                    left -= c;
                }
            }
            bps.push(left);
            bps.sort_unstable_by(|a, b| b.cmp(a));
            let prizes = split(pool, &bps);
            prop_assert_eq!(prizes.iter().sum::<u64>(), pool);
            prop_assert_eq!(prizes.len(), bps.len());
            for (i, (&p, &b)) in prizes.iter().zip(&bps).enumerate().skip(1) {
                prop_assert_eq!(p, (u128::from(pool) * u128::from(b) / 10_000) as u64, "place {}", i + 1);
            }
        }

        /// Any seed draws a row of the table, and its prizes sum to its pool.
        #[test]
        fn any_seed_draws_a_row(seed in any::<[u8; 32]>()) {
            let drawn = draw(&table(), eur(1_000), &seed).unwrap();
            prop_assert!(drawn.number < PER_MILLION);
            prop_assert_eq!(drawn.prizes.iter().sum::<u64>(), drawn.pool.amount);
        }
    }
}
