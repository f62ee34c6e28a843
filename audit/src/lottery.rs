//! The lottery's draw recomputed from its revealed seed (issue 42), with this crate's own code,
//! from the published method (`services/lottery/src/draw.rs`'s module docs): the number is the
//! first block `SHA-256(seed ‖ "lottery-number" ‖ k as 4 bytes big-endian)` whose first 4 bytes,
//! big-endian, are below 4,294,000,000, modulo 1,000,000; the row is the one whose cumulative
//! odds (per million, in the table's order) hold it; the pool is its multiplier × the buy-in;
//! each place gets its `split_bps` of the pool rounded down, the cents left to first place.

use floor_events::lottery::{LotteryTerms, PrizeDrawn};
use sha2::{Digest, Sha256};

const MILLION: u32 = 1_000_000;
const ACCEPT_BELOW: u32 = 4_294_000_000;

fn seed_bytes(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect()
}

fn number(seed: &[u8]) -> u32 {
    for k in 0u32.. {
        let mut h = Sha256::new();
        h.update(seed);
        h.update(b"lottery-number");
        h.update(k.to_be_bytes());
        let d = h.finalize();
        let x = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
        if x < ACCEPT_BELOW {
            return x % MILLION;
        }
    }
    0
}

/// What `drawn` should say given the published `terms` and the `buy_in` (minor units): each
/// field that differs, as a sentence.
pub fn differences(terms: &LotteryTerms, buy_in: u64, drawn: &PrizeDrawn) -> Vec<String> {
    let Some(seed) = seed_bytes(&drawn.seed) else { return vec![format!("the seed {:?} is not hex", drawn.seed)] };
    let n = number(&seed);
    let mut upto = 0u64;
    let Some(row) = terms.prizes.iter().find(|p| {
        upto += u64::from(p.per_million);
        u64::from(n) < upto
    }) else {
        return vec![format!("the number {n} is past the table's odds")];
    };
    let mut found = Vec::new();
    if drawn.number != n {
        found.push(format!("the seed draws number {n}, the log says {}", drawn.number));
    }
    if drawn.multiplier != row.multiplier {
        found.push(format!("number {n} is the row of multiplier {}, the log says {}", row.multiplier, drawn.multiplier));
    }
    let Some(pool) = buy_in.checked_mul(u64::from(row.multiplier)) else { return found };
    if drawn.pool.amount != pool {
        found.push(format!("{} × the buy-in {buy_in} is {pool}, the log's pool {}", row.multiplier, drawn.pool.amount));
    }
    let mut prizes: Vec<u64> = row.split_bps.iter().map(|&bps| (u128::from(pool) * u128::from(bps) / 10_000) as u64).collect();
    let shared: u64 = prizes.iter().sum();
    if let Some(first) = prizes.first_mut() {
        *first += pool.saturating_sub(shared);
    }
    if drawn.prizes != prizes {
        found.push(format!("the pool {pool} splits as {prizes:?}, the log's prizes {:?}", drawn.prizes));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::lottery::LotteryPrize;
    use floor_events::{Currency, Money};

    fn terms() -> LotteryTerms {
        let row = |multiplier, per_million, split_bps: &[u32]| LotteryPrize { multiplier, per_million, split_bps: split_bps.to_vec() };
        LotteryTerms {
            version: "t1".into(),
            prizes: vec![row(2, 600_000, &[10_000]), row(5, 399_000, &[10_000]), row(100, 1_000, &[8_000, 2_000])],
        }
    }

    /// What the lottery service draws for a seed, worked by hand from the method: the test
    /// finds the row by the number and builds the event the service would store.
    fn drawn(seed: &str) -> PrizeDrawn {
        let n = number(&seed_bytes(seed).unwrap());
        let (multiplier, prizes) = match n {
            0..600_000 => (2, vec![2_000]),
            600_000..999_000 => (5, vec![5_000]),
            _ => (100, vec![80_000, 20_000]),
        };
        PrizeDrawn {
            version: "t1".into(),
            number: n,
            multiplier,
            pool: Money { amount: prizes.iter().sum(), currency: Currency::EUR },
            prizes,
            seed: seed.into(),
            at: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_draw_the_seed_gives_holds_and_a_changed_multiplier_or_prize_is_found() {
        let seed = "07".repeat(32);
        let d = drawn(&seed);
        assert!(differences(&terms(), 1_000, &d).is_empty(), "{:?}", differences(&terms(), 1_000, &d));
        let richer = PrizeDrawn { multiplier: d.multiplier + 1, ..d.clone() };
        assert!(differences(&terms(), 1_000, &richer).iter().any(|m| m.contains("multiplier")));
        let mut moved = d.clone();
        moved.prizes[0] += 1;
        assert!(differences(&terms(), 1_000, &moved).iter().any(|m| m.contains("splits")));
        assert!(!differences(&terms(), 1_001, &d).is_empty(), "another buy-in, another pool");
    }
}
