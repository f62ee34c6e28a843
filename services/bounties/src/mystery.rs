//! Mystery bounty envelopes: their values, and the seeded draw that opens one per elimination.
//! Pure.
//!
//! Audit, as the seat draw does it (`floor-seating`'s `draw.rs`): the seed's SHA-256 is
//! published when the stage starts ([`floor_events::bounties::BountyEvent::MysteryStageStarted`]),
//! before any draw, and the seed is revealed when the tournament is won. With the seed and the
//! stage's envelopes anyone recomputes every draw with [`draw`]; a seed that does not match the
//! commitment is refused.
//!
//! **Values.** Each envelope is worth its tier's share of the pool, rounded down to the minor
//! unit; the cents left go one each to the envelopes from the largest down. The envelopes then
//! sum to the pool exactly.
//!
//! **A draw.** Draw `k` (from 1) takes ChaCha20 seeded with `SHA-256(seed ‖ "envelope" ‖ k as 4
//! bytes big-endian)`, draws `r` uniformly from `0..n` (n = envelopes left) and opens the
//! envelope at position `r` of the envelopes left, largest value first. Each draw depends only
//! on the seed, its number and what is left, so a replay of the log draws the same envelopes.

use floor_events::bounties::{EnvelopeTier, Envelopes};
use floor_events::Money;
pub use floor_runtime::encoding::{hex, unhex};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

/// A draw seed: 32 bytes.
pub type Seed = [u8; 32];

/// The commitment published before the draws: SHA-256 of the seed.
pub fn commitment(seed: &Seed) -> [u8; 32] {
    Sha256::digest(seed).into()
}

/// The envelopes dividing `pool`, largest value first (module docs: the remainder rule). Tiers
/// are taken largest share first; the shares must sum to 10,000 basis points (the definition
/// checks it), so the values sum to `pool`.
pub fn envelopes(pool: Money, tiers: &[EnvelopeTier]) -> Vec<Envelopes> {
    let mut tiers = tiers.to_vec();
    tiers.sort_by_key(|t| std::cmp::Reverse(t.share_bps));
    let base = |t: &EnvelopeTier| (u128::from(pool.amount) * u128::from(t.share_bps) / 10_000) as u64;
    let shared: u64 = tiers.iter().map(|t| base(t).saturating_mul(u64::from(t.count))).fold(0, u64::saturating_add);
    let mut odd = pool.amount.saturating_sub(shared);
    let mut out: Vec<Envelopes> = Vec::new();
    let mut push = |value: u64, count: u32| {
        if count == 0 {
            return;
        }
        match out.last_mut() {
            Some(last) if last.value.amount == value => last.count += count,
            _ => out.push(Envelopes { value: Money::new(value, pool.currency), count }),
        }
    };
    for t in &tiers {
        let plus = odd.min(u64::from(t.count)) as u32;
        odd -= u64::from(plus);
        push(base(t) + 1, plus);
        push(base(t), t.count - plus);
    }
    out
}

/// The generator of draw `number`.
fn rng(seed: &Seed, number: u32) -> ChaCha20Rng {
    let mut hash = Sha256::new();
    hash.update(seed);
    hash.update(b"envelope");
    hash.update(number.to_be_bytes());
    ChaCha20Rng::from_seed(hash.finalize().into())
}

/// Draw `number` (from 1) among the envelopes `left`: the index in `left` of the envelope
/// opened, or `None` when none is left.
pub fn draw(seed: &Seed, number: u32, left: &[Envelopes]) -> Option<usize> {
    let total: u64 = left.iter().map(|e| u64::from(e.count)).sum();
    if total == 0 {
        return None;
    }
    let mut r = rng(seed, number).random_range(0..total);
    for (i, e) in left.iter().enumerate() {
        if r < u64::from(e.count) {
            return Some(i);
        }
        r -= u64::from(e.count);
    }
    None
}

/// `left` after opening one envelope at `index`: its count less one, and a value with none left
/// removed.
pub fn open(left: &mut Vec<Envelopes>, index: usize) {
    if let Some(e) = left.get_mut(index) {
        e.count = e.count.saturating_sub(1);
        if e.count == 0 {
            left.remove(index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::Currency;
    use proptest::prelude::*;

    fn eur(amount: u64) -> Money {
        Money::new(amount, Currency::EUR)
    }

    #[test]
    fn values_sum_to_the_pool_with_the_cents_left_on_the_largest_envelopes() {
        let tiers = [
            EnvelopeTier { share_bps: 500, count: 8 },
            EnvelopeTier { share_bps: 2_000, count: 1 },
            EnvelopeTier { share_bps: 1_000, count: 4 },
        ];
        // EUR 1,000.07: rounded down 200.01 + 4 × 100.00 + 8 × 50.00 = 1,000.01; the 6 cents
        // left go to the largest first: 200.02, 4 × 100.01, one 50.01.
        let e = envelopes(eur(100_007), &tiers);
        assert_eq!(
            e,
            vec![
                Envelopes { value: eur(20_002), count: 1 },
                Envelopes { value: eur(10_001), count: 4 },
                Envelopes { value: eur(5_001), count: 1 },
                Envelopes { value: eur(5_000), count: 7 },
            ]
        );
        assert_eq!(e.iter().map(|e| e.value.amount * u64::from(e.count)).sum::<u64>(), 100_007);
    }

    #[test]
    fn the_commitment_is_sha256_of_the_seed_and_hex_round_trips() {
        assert_eq!(hex(&commitment(&[0; 32])), "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
        let seed = [0xab; 32];
        assert_eq!(unhex(&hex(&seed)), Some(seed));
        assert_eq!(unhex("ab"), None);
        assert_eq!(unhex(&"zz".repeat(32)), None);
    }

    #[test]
    fn a_draw_depends_on_the_seed_and_its_number() {
        let left = vec![Envelopes { value: eur(100), count: 500 }, Envelopes { value: eur(1), count: 500 }];
        let draws = |seed: &Seed| (1..=20).map(|k| draw(seed, k, &left)).collect::<Vec<_>>();
        assert_eq!(draws(&[1; 32]), draws(&[1; 32]));
        assert_ne!(draws(&[1; 32]), draws(&[2; 32]));
        assert_eq!(draw(&[1; 32], 1, &[]), None);
    }

    proptest! {
        /// Whatever the tiers and pool: the values sum to the pool, largest first, and drawing
        /// every envelope empties the pool exactly at the last draw.
        #[test]
        fn envelopes_sum_to_the_pool_and_every_draw_empties_it_exactly(
            pool in 0u64..(1 << 53),
            cuts in prop::collection::vec(1u32..2_000, 1..6),
            seed in any::<[u8; 32]>(),
        ) {
            // Turn the cuts into tiers of 1-3 envelopes whose shares sum to 10,000.
            let mut tiers = Vec::new();
            let mut left = 10_000u32;
            for (i, c) in cuts.iter().enumerate() {
                let count = (i as u32 % 3) + 1;
                let share = (c / count).max(1);
                if share * count < left {
                    tiers.push(EnvelopeTier { share_bps: share, count });
                    left -= share * count;
                }
            }
            tiers.push(EnvelopeTier { share_bps: left, count: 1 });
            let mut e = envelopes(Money::new(pool, Currency::EUR), &tiers);
            prop_assert_eq!(e.iter().map(|x| x.value.amount * u64::from(x.count)).sum::<u64>(), pool);
            prop_assert!(e.windows(2).all(|w| w[0].value.amount > w[1].value.amount));
            let count: u32 = tiers.iter().map(|t| t.count).sum();
            let mut paid = 0;
            for k in 1..=count {
                let i = draw(&seed, k, &e).expect("an envelope is left");
                paid += e[i].value.amount;
                open(&mut e, i);
            }
            prop_assert!(e.is_empty());
            prop_assert_eq!(paid, pool);
        }
    }
}
