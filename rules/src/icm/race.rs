//! Exact Malmuth-Harville for large fields: the exponential race (`practice.md` §4.1, §4.3).
//!
//! Give player `i` an exponential clock of rate `w_i = s_i / S` (the rates sum to 1). The
//! first clock to ring is player `i`'s with probability `w_i`, and by memorylessness each next
//! one is among the rest in proportion to their rates: the order in which the clocks ring is
//! exactly Malmuth-Harville's finishing order (first to ring, first place). So
//!
//! ```text
//! P(i finishes p-th) = ∫₀^∞ w_i e^{−w_i t} · [x^{p−1}] ∏_{j≠i} (e^{−w_j t} + (1 − e^{−w_j t}) x) dt
//! ```
//!
//! (player `i`'s clock rings at `t` while exactly `p − 1` others have rung). At each node the
//! coefficients for every player come from one product tree (`products.rs`), with
//! `1 − e^{−wt}` as `−expm1(−wt)` so small rates keep their digits.
//!
//! # Quadrature
//!
//! In `u = ln t` the integrand `t · w_i e^{−w_i t} · …` is smooth and dies off at both ends,
//! but its features range from broad (first place, over tens of units of `u`) to narrow (place
//! `p` lives on a width of about `1/√p` around `ln p`). Adaptive Gauss-Kronrod (7 Gauss points
//! inside 15 Kronrod points) spends nodes only where they are narrow: a panel is kept when its
//! two rules agree, for every player and place, within [`TOLERANCE`] (shared in proportion to
//! width), and halved otherwise. The 15-point rule is far more accurate than that difference,
//! which estimates the 7-point rule's error: against the subset method the race is within
//! `1e-15`. Early in the race only the first few places can have happened, so each node keeps
//! only the places a Chernoff bound says can carry mass ([`relevant_places`]).
//!
//! # Range
//!
//! - Below `t = 10⁻¹⁶`: the probability that any clock rang by `t` is at most
//!   `Σ w_i t = t`, so all places together lose at most `10⁻¹⁶`.
//! - Above `t_hi`: a player can still take one of the first `k` places after `t` only if fewer
//!   than `k` clocks rang by `t`, so all of them together lose at most `k · P(N(t) < k)`,
//!   read off the full product; `t_hi` is the first point of a ladder in `u` (step ½) where
//!   that is below `10⁻¹⁶`.

use super::products::Products;

/// Places whose probability of being reached at a node is below `e^{−CUT}` (`10⁻³⁰`) are left
/// out of that node.
const CUT: f64 = 69.0;
/// A panel is kept when its 7- and 15-point rules agree within this (shared by width). That
/// difference estimates the 7-point rule's error; the 15-point result kept is far better:
/// 1,000 players and 150 places differ by 6e-18 from a run with 1e-14 here.
const TOLERANCE: f64 = 1e-9;
/// Mass allowed outside the range, each end.
pub(super) const TAIL: f64 = 1e-16;
/// The initial panels are at most this wide in `u`.
pub(super) const INITIAL_WIDTH: f64 = 4.0;
/// Narrower panels are kept whatever their estimate (a guard against endless halving).
pub(super) const MIN_WIDTH: f64 = 1e-6;

/// Kronrod nodes on [−1, 1] (positive half, descending; the last is the centre). Even indices
/// are Kronrod-only, odd ones are also the 7 Gauss-Legendre nodes.
#[allow(clippy::excessive_precision)] // as published (QUADPACK's qk15), rounded by the compiler
pub(super) const NODES: [f64; 8] = [
    0.991_455_371_120_812_639_206_854_697_526_329,
    0.949_107_912_342_758_524_526_189_684_047_851,
    0.864_864_423_359_769_072_789_712_788_640_926,
    0.741_531_185_599_394_439_863_864_773_280_788,
    0.586_087_235_467_691_130_294_144_845_693_013,
    0.405_845_151_377_397_166_906_606_412_076_961,
    0.207_784_955_007_898_467_600_689_403_773_245,
    0.0,
];
/// Kronrod weights, for [`NODES`].
#[allow(clippy::excessive_precision)] // as published (QUADPACK's qk15), rounded by the compiler
pub(super) const KRONROD: [f64; 8] = [
    0.022_935_322_010_529_224_963_732_008_058_970,
    0.063_092_092_629_978_553_290_700_663_189_204,
    0.104_790_010_322_250_183_839_876_322_541_518,
    0.140_653_259_715_525_918_745_189_590_510_238,
    0.169_004_726_639_267_902_826_583_426_598_550,
    0.190_350_578_064_785_409_913_256_402_421_014,
    0.204_432_940_075_298_892_414_161_999_234_649,
    0.209_482_141_084_727_828_012_999_174_891_714,
];
/// Gauss weights, for the odd [`NODES`] (0 at the Kronrod-only ones).
#[allow(clippy::excessive_precision)] // as published (QUADPACK's qk15), rounded by the compiler
pub(super) const GAUSS: [f64; 8] = [
    0.0,
    0.129_484_966_168_869_693_270_611_432_679_082,
    0.0,
    0.279_705_391_489_276_667_901_467_771_423_780,
    0.0,
    0.381_830_050_505_118_944_950_369_775_488_975,
    0.0,
    0.417_959_183_673_469_387_755_102_040_816_327,
];

/// Place probabilities (row per player, `places` columns) by the exponential race.
pub(super) fn place_probabilities(stacks: &[u64], places: usize) -> Vec<f64> {
    let n = stacks.len();
    if places == 0 {
        return Vec::new();
    }
    let total: u128 = stacks.iter().map(|&s| u128::from(s)).sum();
    let rates: Vec<f64> = stacks.iter().map(|&s| s as f64 / total as f64).collect();
    let mut race = Race { rates, places, tree: Products::new(n, places), a: vec![0.0; n], b: vec![0.0; n] };
    let (lo, hi) = (TAIL.ln(), race.upper_end());
    let mut cells = vec![0.0; n * places];
    let (mut kronrod, mut gauss) = (vec![0.0; n * places], vec![0.0; n * places]);
    let panels = ((hi - lo) / INITIAL_WIDTH).ceil().max(1.0) as usize;
    let step = (hi - lo) / panels as f64;
    let mut todo: Vec<(f64, f64)> = (0..panels).rev().map(|j| (lo + j as f64 * step, lo + (j + 1) as f64 * step)).collect();
    while let Some((from, to)) = todo.pop() {
        let (centre, half) = ((from + to) / 2.0, (to - from) / 2.0);
        kronrod.fill(0.0);
        gauss.fill(0.0);
        for (j, &x) in NODES.iter().enumerate() {
            race.add_node(centre + half * x, KRONROD[j], GAUSS[j], &mut kronrod, &mut gauss);
            if x != 0.0 {
                race.add_node(centre - half * x, KRONROD[j], GAUSS[j], &mut kronrod, &mut gauss);
            }
        }
        let error = kronrod.iter().zip(&gauss).map(|(k, g)| (k - g).abs()).fold(0.0, f64::max) * half;
        if error <= TOLERANCE * (to - from) / (hi - lo) || to - from < MIN_WIDTH {
            for (cell, k) in cells.iter_mut().zip(&kronrod) {
                *cell += k * half;
            }
        } else {
            todo.push((centre, to));
            todo.push((from, centre));
        }
    }
    cells
}

/// How many of the first places can get more than `e^{−`[`CUT`]`}` of mass at a time when `μ`
/// clocks are expected to have rung: by Chernoff's bound for sums of independent Bernoulli
/// variables, `P(N ≥ m) ≤ e^{−μ} (eμ/m)^m` for `m > μ`. A player's term for place `m + 1` is at
/// most `t w_i P(N = m)`, so dropping the places past that point changes nothing at the
/// precision kept; early in the race (few clocks rung) it saves most of the work.
pub(super) fn relevant_places(expected: f64, places: usize) -> usize {
    let mut m = expected.ceil().max(1.0);
    while (m as usize) < places {
        if m * (std::f64::consts::E * expected / m).ln() - expected < -CUT {
            return m as usize;
        }
        m += 1.0;
    }
    places
}

/// The integrand's pieces, reused from node to node.
struct Race {
    rates: Vec<f64>,
    places: usize,
    tree: Products,
    /// `e^{−w_j t}`: clock `j` has not rung by `t`.
    a: Vec<f64>,
    /// `1 − e^{−w_j t}`: it has.
    b: Vec<f64>,
}

impl Race {
    /// Sets every factor for time `t` and multiplies up, keeping the places that can matter.
    fn at(&mut self, t: f64) {
        let mut expected = 0.0;
        for ((a, b), &w) in self.a.iter_mut().zip(self.b.iter_mut()).zip(&self.rates) {
            *a = (-w * t).exp();
            *b = -(-w * t).exp_m1();
            expected += *b;
        }
        self.tree.build(&self.a, &self.b, relevant_places(expected, self.places));
    }

    /// The first `u` of a ladder from `ln k − 1` (step ½) where `k · P(fewer than k rang) ≤`
    /// [`TAIL`]. Rates are at least `1/(n · 2⁶⁴)`, so the ladder ends below `u ≈ 60`; it is
    /// cut at 200 all the same.
    fn upper_end(&mut self) -> f64 {
        let k = self.places as f64;
        let mut u = k.ln() - 1.0;
        while u < 200.0 {
            self.at(u.exp());
            if k * self.tree.root().iter().sum::<f64>() <= TAIL {
                break;
            }
            u += 0.5;
        }
        u
    }

    /// Adds the integrand at `u = ln t` (times `dt/du = t`) to both rules' sums.
    fn add_node(&mut self, u: f64, kronrod_weight: f64, gauss_weight: f64, kronrod: &mut [f64], gauss: &mut [f64]) {
        let t = u.exp();
        self.at(t);
        let Self { rates, places, tree, a, .. } = self;
        let places = *places;
        tree.leave_one_out(|i, others| {
            let density = t * rates[i] * a[i];
            let row = i * places;
            for (p, &c) in others.iter().enumerate() {
                let value = density * c;
                kronrod[row + p] += kronrod_weight * value;
                gauss[row + p] += gauss_weight * value;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule pair on `∫_{−1}^{1} x^d dx`: Kronrod exact to degree 22, Gauss to 13.
    #[test]
    fn the_rules_integrate_polynomials_exactly_to_their_degree() {
        for degree in 0..=22 {
            let exact = if degree % 2 == 1 { 0.0 } else { 2.0 / (degree as f64 + 1.0) };
            let (mut k, mut g) = (0.0, 0.0);
            for (j, &x) in NODES.iter().enumerate() {
                let f = x.powi(degree) + if x != 0.0 { (-x).powi(degree) } else { 0.0 };
                k += KRONROD[j] * f;
                g += GAUSS[j] * f;
            }
            assert!((k - exact).abs() < 1e-14, "Kronrod, degree {degree}: {k} vs {exact}");
            if degree <= 13 {
                assert!((g - exact).abs() < 1e-14, "Gauss, degree {degree}: {g} vs {exact}");
            }
        }
    }
}
