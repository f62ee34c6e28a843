//! Payout tables generated from the prize pool: integer arithmetic only, exactly the pool.
//!
//! Method (after Musco, Sviridenko & Thaler, arXiv:1601.04203, `practice.md` §4.4), made
//! integer-only so the same inputs give the same table on every machine (no `powf`, whose last
//! bits differ between libms):
//!
//! 1. **Ideal curve.** Every paid place gets the minimum prize `E`; the rest `D = pool - K·E` is
//!    shared by weights `w_i = 1/(i + c)` (fixed point, `u128`). The offset `c` is found by
//!    binary search so first place gets [`first_prize_share_bps`] of the pool (or as close as
//!    the curve allows). Larger `c` is flatter.
//! 2. **Buckets.** Places 1–9 are paid one by one; after that, equal prizes over rank ranges
//!    that grow with the rank (9 places, then about a fifth of the rank reached), each the
//!    average of the ideal prizes it covers.
//! 3. **Nice amounts.** Each prize is rounded down to three significant digits (1,234,567 →
//!    1,230,000 minor units), which never breaks the descending order.
//! 4. **Remainder rule.** What rounding left over (under 1 % of the pool) goes to places 1–9 in
//!    proportion to their prizes, rounded down, and the last minor units to first place. The
//!    table then sums to the pool exactly.

use std::fmt;

/// Equal prize over a range of places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    /// First place of the range (1 = winner).
    pub from: u32,
    /// Last place of the range, inclusive.
    pub to: u32,
    /// Minor units paid to each place in the range.
    pub amount: u64,
}

/// A payout table: bands from first place down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutTable {
    /// Bands, first place first, contiguous from 1 to the last paid place.
    pub bands: Vec<Band>,
}

/// Why a table cannot be made or accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayoutError {
    /// The pool cannot pay the minimum prize to every paid place.
    PoolTooSmall {
        /// Pool, minor units.
        pool: u64,
        /// Places asked for.
        places: u32,
        /// Minimum prize asked for.
        min_prize: u64,
    },
    /// A fixed table does not sum to the pool.
    DoesNotSumToPool {
        /// What the table pays.
        table: u64,
        /// The pool.
        pool: u64,
    },
    /// A fixed table pays a place more than a better place.
    NotDescending {
        /// The first place paid more than the one above it.
        place: u32,
    },
    /// No places.
    Empty,
}

impl fmt::Display for PayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PoolTooSmall { pool, places, min_prize } => {
                write!(f, "a pool of {pool} cannot pay {places} places at least {min_prize} each")
            }
            Self::DoesNotSumToPool { table, pool } => write!(f, "the table pays {table}, the pool is {pool}"),
            Self::NotDescending { place } => write!(f, "place {place} is paid more than the place above it"),
            Self::Empty => f.write_str("a payout table needs at least one place"),
        }
    }
}

impl std::error::Error for PayoutError {}

impl PayoutTable {
    /// Places paid.
    pub fn places(&self) -> u32 {
        self.bands.last().map_or(0, |b| b.to)
    }

    /// The prize of one place (0 outside the money).
    pub fn prize(&self, place: u32) -> u64 {
        self.bands.iter().find(|b| (b.from..=b.to).contains(&place)).map_or(0, |b| b.amount)
    }

    /// What the whole table pays.
    pub fn total(&self) -> u64 {
        self.bands.iter().map(|b| u64::from(b.to - b.from + 1) * b.amount).sum()
    }

    /// A fixed table (from a director's TOML), one amount per place, checked against the pool.
    ///
    /// # Errors
    /// `Empty`, `NotDescending` or `DoesNotSumToPool`.
    pub fn fixed(amounts: &[u64], pool: u64) -> Result<Self, PayoutError> {
        if amounts.is_empty() {
            return Err(PayoutError::Empty);
        }
        if let Some(i) = amounts.windows(2).position(|w| w[1] > w[0]) {
            return Err(PayoutError::NotDescending { place: i as u32 + 2 });
        }
        let table: u64 = amounts.iter().sum();
        if table != pool {
            return Err(PayoutError::DoesNotSumToPool { table, pool });
        }
        Ok(Self { bands: amounts.iter().enumerate().map(|(i, &amount)| Band { from: i as u32 + 1, to: i as u32 + 1, amount }).collect() })
    }
}

/// Places paid for a field: `share_bps` of the entries (15 % is common), rounded up, at least
/// one, at most `max_share_bps` of the entries. (No profile caps the places: 003's 95 % is a
/// cap on prize money, `crate::field::prize_cap`, issue 38.)
pub fn paid_places(entries: u32, share_bps: u32, max_share_bps: u32) -> u32 {
    let wanted = (u64::from(entries) * u64::from(share_bps)).div_ceil(10_000);
    let cap = u64::from(entries) * u64::from(max_share_bps) / 10_000;
    wanted.min(cap).max(1) as u32
}

/// First prize as a share of the pool, in basis points, by places paid. Small fields use fixed
/// shares; larger ones follow 5,090 · K^-0.26 (≈ 28 % at 10 paid, 8.5 % at 1,000, 3.3 % at
/// 37,500: in line with large online fields), tabulated and interpolated linearly so no float
/// is involved.
pub fn first_prize_share_bps(places: u32) -> u32 {
    const SMALL: [u32; 10] = [10_000, 10_000, 6_500, 5_000, 4_000, 3_400, 3_000, 2_750, 2_550, 2_400];
    const CURVE: [(u32, u32); 13] = [
        (10, 2_800),
        (20, 2_337),
        (50, 1_841),
        (100, 1_537),
        (200, 1_284),
        (500, 1_012),
        (1_000, 845),
        (2_000, 706),
        (5_000, 556),
        (10_000, 464),
        (20_000, 388),
        (50_000, 306),
        (100_000, 255),
    ];
    if places < 10 {
        return SMALL[places as usize];
    }
    for pair in CURVE.windows(2) {
        let ((k0, s0), (k1, s1)) = (pair[0], pair[1]);
        if places <= k1 {
            return s0 - (s0 - s1) * (places - k0) / (k1 - k0);
        }
    }
    CURVE[CURVE.len() - 1].1
}

/// Fixed-point scale of the weights.
const SCALE: u128 = 1_000_000_000_000_000;

/// Weight of place `i` for offset `c` (thousandths): `SCALE / (i + c)`.
fn weight(i: u32, c_milli: u64) -> u128 {
    SCALE * 1_000 / (u128::from(i) * 1_000 + u128::from(c_milli))
}

/// Generates the table for `pool` minor units over `places` places, nobody below `min_prize`.
///
/// # Errors
/// `Empty` for zero places; `PoolTooSmall` when `places · min_prize > pool`.
pub fn generate(pool: u64, places: u32, min_prize: u64) -> Result<PayoutTable, PayoutError> {
    if places == 0 {
        return Err(PayoutError::Empty);
    }
    let floor_total = u64::from(places).checked_mul(min_prize).filter(|&t| t <= pool);
    let Some(floor_total) = floor_total else { return Err(PayoutError::PoolTooSmall { pool, places, min_prize }) };
    let ideal = ideal_prizes(pool, places, min_prize, pool - floor_total);
    let mut bands = bucket(&ideal);
    spend_remainder(&mut bands, pool);
    Ok(PayoutTable { bands })
}

/// Stage 1: the ideal prize of every place (rounded down to the minor unit).
fn ideal_prizes(pool: u64, places: u32, min_prize: u64, distributable: u64) -> Vec<u64> {
    let target_first = u128::from(pool) * u128::from(first_prize_share_bps(places)) / 10_000;
    let first_for = |c: u64| {
        let total: u128 = (1..=places).map(|i| weight(i, c)).sum();
        (total, u128::from(min_prize) + u128::from(distributable) * weight(1, c) / total)
    };
    // The smallest offset whose first prize is not above the target (first prize falls as the
    // offset grows); offsets are searched up to 10^12 thousandths, beyond which the curve is flat.
    let (mut low, mut high) = (0u64, 1_000_000_000_000_000u64);
    if first_for(low).1 > target_first {
        while low < high {
            let mid = low + (high - low) / 2;
            if first_for(mid).1 > target_first {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
    }
    let (total, _) = first_for(low);
    (1..=places).map(|i| min_prize + (u128::from(distributable) * weight(i, low) / total) as u64).collect()
}

/// Stage 2 and 3: equal prizes over rank ranges, each rounded down to a nice amount.
fn bucket(ideal: &[u64]) -> Vec<Band> {
    let places = ideal.len() as u32;
    let mut bands = Vec::new();
    let mut from = 1u32;
    while from <= places {
        let size = if from <= 9 { 1 } else { 9u32.max(from / 5) };
        let to = (from + size - 1).min(places);
        let covered = &ideal[(from - 1) as usize..to as usize];
        let average = covered.iter().map(|&p| u128::from(p)).sum::<u128>() / covered.len() as u128;
        bands.push(Band { from, to, amount: nice(average as u64) });
        from = to + 1;
    }
    bands
}

/// Rounds down to three significant digits.
pub fn nice(amount: u64) -> u64 {
    let mut step = 1u64;
    while amount / step >= 1_000 {
        step *= 10;
    }
    amount / step * step
}

/// Stage 4: the rounding remainder to places 1–9 by their prizes, the last units to the winner.
fn spend_remainder(bands: &mut [Band], pool: u64) {
    let paid: u64 = bands.iter().map(|b| u64::from(b.to - b.from + 1) * b.amount).sum();
    let mut left = pool - paid;
    let top: Vec<usize> = (0..bands.len()).take_while(|&i| bands[i].to <= 9 && bands[i].from == bands[i].to).collect();
    let top_total: u128 = top.iter().map(|&i| u128::from(bands[i].amount)).sum();
    let share = left;
    for &i in &top {
        // Zero prizes (a zero pool) share nothing; the winner takes what is left below.
        let add = (u128::from(share) * u128::from(bands[i].amount)).checked_div(top_total).unwrap_or(0) as u64;
        bands[i].amount += add;
        left -= add;
    }
    bands[0].amount += left;
}
