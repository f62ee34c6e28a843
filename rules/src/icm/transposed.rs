//! ICM equities without the place table: the exponential race with the prizes folded into the
//! products (a transposed product tree), for fields of thousands of players.
//!
//! # The integral
//!
//! As in `race.rs`: player `i`'s clock rings at rate `w_i = s_i / S`, and
//!
//! ```text
//! equity_i = Σ_p prize_p · P(i finishes p-th)
//!          = ∫₀^∞ w_i e^{−w_i t} · Σ_m g_m [x^m] ∏_{j≠i} (a_j + b_j x) dt,   g_m = prize_{m+1},
//! ```
//!
//! with `a_j = e^{−w_j t}` (clock `j` has not rung by `t`) and `b_j = 1 − a_j`. The race
//! computes every coefficient of every leave-one-out product (a table of `n × k` numbers per
//! node of the quadrature) and weighs them by the prizes afterwards; here the prizes are
//! weighed in first, so each node yields one number per player (the method of Sarose, "Fast
//! tournament equity computation via generating-function quadrature", github.com/Sarose550/ICM;
//! learnt from the paper's description, written anew).
//!
//! # The tree
//!
//! Up: each node of a balanced tree over the players holds the product of its players' factors,
//! truncated at the places that can carry mass (`relevant_places` of `race.rs`); leaves are
//! blocks of a few players multiplied one by one. Down: a node receives `G_v[m] = Σ_p g_p
//! [x^p] (x^m · the product of every factor outside v)`; a child's is its parent's correlated
//! with its sibling's product, `G_c[m] = Σ_l G_v[m + l] · P_sibling[l]`, and only the first
//! `|c|` entries are needed (the child's own factors but one have degree `|c| − 1`). In a block
//! the prefix products are kept and a suffix is carried down transposed (`R[m] ← a_j R[m] +
//! b_j R[m + 1]`), so player `j`'s number is `⟨prefix_j, R⟩`. Every number is a sum of
//! products of non-negative numbers: nothing cancels, so the relative rounding error of each
//! is at most about `(depth + k) · 2⁻⁵³`.
//!
//! Cost per node, `n` players and `k` places: about `1.5 · n · min(n, k)` multiply-adds when
//! every place is live (schoolbook products), far fewer early in the race, when few places
//! are. Not done (issue 41's notes): FFT products at the top levels, and dropping the low
//! coefficients late in the race, as the high ones are dropped early.
//!
//! # Quadrature and error
//!
//! Two segments: `t ∈ [0, 1]` in `t` itself (the rates sum to 1, so at most one clock is
//! expected to have rung and the integrand is smooth), then `u = ln t` up to the end of
//! `race.rs` (all `k` places filled but for `10⁻¹⁶`). In `u` the first panels are cut to the
//! integrand's own scale, [`FEATURES`] standard deviations of the number of rung clocks
//! (adaptive halving alone can accept a panel whose nodes all miss a narrow feature), then
//! the same adaptive Gauss-Kronrod (7/15) as the race, over one value per player: a panel is
//! kept when its two rules agree within [`TOLERANCE`] of the first prize (shared by width)
//! for every player. The 15-point result kept is far better than that estimate: see
//! [`super::EQUITY_ERROR`] for the bound stated and tested (within 2e-16 of the prizes of the
//! race measured; `docs/benchmarks.md`).
//!
//! Where the processor has AVX2 and FMA (checked at run time) the products use 4-wide fused
//! multiply-adds, so the last bits can differ between processors; services store the amounts
//! they decide (`mod.rs`).

use super::race::{relevant_places, GAUSS, INITIAL_WIDTH, KRONROD, MIN_WIDTH, NODES, TAIL};

/// A panel is kept when its 7- and 15-point rules agree within this fraction of the first
/// prize (shared by width), for every player. That difference estimates the 7-point rule's
/// error; the 15-point result kept is far better (see [`super::EQUITY_ERROR`]).
const TOLERANCE: f64 = 1e-8;

/// Initial panels span at most this many standard deviations of the number of rung clocks.
const FEATURES: f64 = 8.0;
/// Initial panels are at least this wide in `u`.
const MIN_PANEL: f64 = 1e-3;

/// Terms below this are skipped: they cannot matter next to a total of 1, and subnormal
/// arithmetic is slow.
const NEGLIGIBLE: f64 = 1e-200;

/// Each player's equity for `prizes` (first place first, non-increasing, at most one per
/// player), in the prizes' unit.
pub(super) fn equities(stacks: &[u64], prizes: &[u64]) -> Vec<f64> {
    let n = stacks.len();
    let places = prizes.iter().rposition(|&p| p > 0).map_or(0, |last| last + 1);
    if places == 0 || n == 0 {
        return vec![0.0; n];
    }
    let top = prizes[0] as f64;
    let weights: Vec<f64> = prizes[..places].iter().map(|&p| p as f64 / top).collect();
    let total: u128 = stacks.iter().map(|&s| u128::from(s)).sum();
    let rates: Vec<f64> = stacks.iter().map(|&s| s as f64 / total as f64).collect();
    let mut race = Race { rates, places, weights, tree: Tree::new(n, places), a: vec![0.0; n], b: vec![0.0; n], h: vec![0.0; n] };
    // Two segments: `t` in `[0, 1]` (at most one clock is expected to have rung by `t = 1`,
    // the rates summing to 1: the integrand is smooth in `t`), then `u = ln t` up to the end.
    let segments = [(0.0, 1.0, false), (0.0, race.upper_end(), true)];
    let mut sums = vec![0.0; n];
    let (mut kronrod, mut gauss) = (vec![0.0; n], vec![0.0; n]);
    for (lo, hi, log) in segments {
        let share = TOLERANCE / segments.len() as f64 / (hi - lo);
        let mut todo = if log { race.panels(lo, hi) } else { vec![(lo, hi)] };
        todo.reverse();
        while let Some((from, to)) = todo.pop() {
            let (centre, half) = ((from + to) / 2.0, (to - from) / 2.0);
            kronrod.fill(0.0);
            gauss.fill(0.0);
            for (j, &x) in NODES.iter().enumerate() {
                race.add_node(centre + half * x, log, KRONROD[j], GAUSS[j], &mut kronrod, &mut gauss);
                if x != 0.0 {
                    race.add_node(centre - half * x, log, KRONROD[j], GAUSS[j], &mut kronrod, &mut gauss);
                }
            }
            let error = kronrod.iter().zip(&gauss).map(|(k, g)| (k - g).abs()).fold(0.0, f64::max) * half;
            if error <= share * (to - from) || to - from < MIN_WIDTH {
                for (sum, k) in sums.iter_mut().zip(&kronrod) {
                    *sum += k * half;
                }
            } else {
                todo.push((centre, to));
                todo.push((from, centre));
            }
        }
    }
    sums.iter().map(|s| s * top).collect()
}

/// The integrand's pieces, reused from node to node.
struct Race {
    rates: Vec<f64>,
    places: usize,
    /// Prizes by place over the first prize.
    weights: Vec<f64>,
    tree: Tree,
    a: Vec<f64>,
    b: Vec<f64>,
    /// Each player's weighed leave-one-out sum at the current node.
    h: Vec<f64>,
}

impl Race {
    /// Sets every factor for time `t`; returns how many places are kept.
    fn set(&mut self, t: f64) -> usize {
        let mut expected = 0.0;
        for ((a, b), &w) in self.a.iter_mut().zip(self.b.iter_mut()).zip(&self.rates) {
            // One transcendental each: whichever of the two is at least ½ is taken as 1 − the
            // other, losing nothing relative to its size.
            let x = w * t;
            if x < std::f64::consts::LN_2 {
                *b = -(-x).exp_m1();
                *a = 1.0 - *b;
            } else {
                *a = (-x).exp();
                *b = 1.0 - *a;
            }
            expected += *b;
        }
        relevant_places(expected, self.places)
    }

    /// The first panels in `u = ln t` over `[lo, hi]`: each at most [`FEATURES`] times the
    /// width in `u` over which the number of rung clocks moves by one standard deviation
    /// (`√(σ² + 1) / (t · dμ/dt)`, at its left end), and at most [`INITIAL_WIDTH`]. Adaptive
    /// halving alone can miss a feature narrower than a panel: both rules agree on a panel whose
    /// nodes all fall beside it.
    fn panels(&self, lo: f64, hi: f64) -> Vec<(f64, f64)> {
        let mut panels = Vec::new();
        let mut u = lo;
        while u < hi {
            let t = u.exp();
            let (mut variance, mut flow) = (0.0, 0.0);
            for &w in &self.rates {
                let a = (-w * t).exp();
                variance += a * (1.0 - a);
                flow += t * w * a;
            }
            let width = (FEATURES * (variance + 1.0).sqrt() / flow.max(1e-300)).clamp(MIN_PANEL, INITIAL_WIDTH);
            let to = if hi - u < 1.5 * width { hi } else { u + width };
            panels.push((u, to));
            u = to;
        }
        panels
    }

    /// As in `race.rs`: the first `u` of a ladder from `ln k − 1` (step ½) where `k · P(fewer
    /// than k rang) ≤` [`TAIL`], cut at 200.
    fn upper_end(&mut self) -> f64 {
        let k = self.places as f64;
        let mut u = k.ln() - 1.0;
        while u < 200.0 {
            let keep = self.set(u.exp());
            self.tree.build(&self.a, &self.b, keep, true);
            if k * self.tree.root().iter().sum::<f64>() <= TAIL {
                break;
            }
            u += 0.5;
        }
        u
    }

    /// Adds the integrand at `u = ln t` (times `dt/du = t`) to both rules' sums.
    fn add_node(&mut self, x: f64, log: bool, kronrod_weight: f64, gauss_weight: f64, kronrod: &mut [f64], gauss: &mut [f64]) {
        // `x` is `ln t` (times `dt/du = t`) or `t` itself.
        let (t, jacobian) = if log { (x.exp(), x.exp()) } else { (x, 1.0) };
        let keep = self.set(t);
        self.tree.build(&self.a, &self.b, keep, false);
        self.tree.weigh(&self.a, &self.b, &self.weights, &mut self.h);
        for (i, &h) in self.h.iter().enumerate() {
            let value = jacobian * self.rates[i] * self.a[i] * h;
            kronrod[i] += kronrod_weight * value;
            gauss[i] += gauss_weight * value;
        }
    }
}

/// A node of the tree: players `lo..hi`, its children (none for a block), and where its
/// product's coefficients start in [`Tree::up`].
#[derive(Debug, Clone, Copy)]
struct Node {
    lo: usize,
    hi: usize,
    kids: Option<(usize, usize)>,
    at: usize,
}

impl Node {
    fn count(&self) -> usize {
        self.hi - self.lo
    }
}

/// The product tree and its scratch space, built once per field.
struct Tree {
    /// Pre-order: a parent before its children, so children have larger indices.
    nodes: Vec<Node>,
    /// Coefficients kept at most (the places).
    len: usize,
    /// Coefficients kept in this evaluation.
    keep: usize,
    /// Node products, `min(count + 1, len)` room each.
    up: Vec<f64>,
    /// Room for `G` at each depth.
    down: Vec<f64>,
    /// A block's prefix products.
    prefix: Vec<f64>,
    /// A block's transposed suffix (one spare zero at the end).
    suffix: Vec<f64>,
}

impl Tree {
    fn new(factors: usize, len: usize) -> Self {
        // Blocks: a block costs about 3 · min(block, len) per player, every level above it
        // about 3 · len² / block per player; 4 · len balances them for few places.
        let block = (4 * len).clamp(16, 256);
        let mut nodes = Vec::new();
        let mut used = 0;
        let depth = add_node(&mut nodes, 0, factors, block, len, &mut used);
        Self {
            nodes,
            len,
            keep: len,
            up: vec![0.0; used],
            down: vec![0.0; (depth + 1) * len],
            prefix: vec![0.0; block.min(factors) * len],
            suffix: vec![0.0; len + 1],
        }
    }

    /// How many coefficients `node`'s product keeps in this evaluation.
    fn cap(&self, node: &Node) -> usize {
        (node.count() + 1).min(self.keep)
    }

    /// Multiplies up, keeping `keep` coefficients; the root's product only `with_root` (the
    /// walk down never reads it).
    fn build(&mut self, a: &[f64], b: &[f64], keep: usize, with_root: bool) {
        self.keep = keep.clamp(1, self.len);
        for id in (0..self.nodes.len()).rev() {
            let node = self.nodes[id];
            if id == 0 && !with_root && node.kids.is_some() {
                continue;
            }
            let cap = self.cap(&node);
            match node.kids {
                None => {
                    let out = &mut self.up[node.at..node.at + cap];
                    out.fill(0.0);
                    out[0] = 1.0;
                    for (j, (&aj, &bj)) in a[node.lo..node.hi].iter().zip(&b[node.lo..node.hi]).enumerate() {
                        // Multiply by aj + bj·x in place, from the top (coefficients past the
                        // product so far are still 0).
                        for m in (1..(j + 2).min(cap)).rev() {
                            out[m] = out[m] * aj + out[m - 1] * bj;
                        }
                        out[0] *= aj;
                    }
                }
                Some((left, right)) => {
                    let (l, r) = (self.nodes[left], self.nodes[right]);
                    let (cl, cr) = (self.cap(&l), self.cap(&r));
                    let (head, tail) = self.up.split_at_mut(l.at);
                    let out = &mut head[node.at..node.at + cap];
                    let rl = r.at - l.at;
                    multiply(&tail[..cl], &tail[rl..rl + cr], out);
                }
            }
        }
    }

    /// The root's kept coefficients (after a build `with_root`).
    fn root(&self) -> &[f64] {
        let root = self.nodes[0];
        &self.up[root.at..root.at + self.cap(&root)]
    }

    /// `h[i] = Σ_m weights[m] [x^m] ∏_{j≠i} (a_j + b_j x)` for every player (after a build).
    fn weigh(&mut self, a: &[f64], b: &[f64], weights: &[f64], h: &mut [f64]) {
        let root = self.nodes[0];
        let need = root.count().min(self.keep).min(weights.len());
        let Self { nodes, keep, up, down, prefix, suffix, len, .. } = self;
        let walk = Walk { nodes, keep: *keep, len: *len, up, a, b };
        let (here, below) = down.split_at_mut(*len);
        here[..need].copy_from_slice(&weights[..need]);
        walk.descend(0, &here[..need], below, prefix, suffix, h);
    }
}

/// Adds the subtree of players `lo..hi` in pre-order; returns its depth.
fn add_node(nodes: &mut Vec<Node>, lo: usize, hi: usize, block: usize, len: usize, used: &mut usize) -> usize {
    let id = nodes.len();
    nodes.push(Node { lo, hi, kids: None, at: *used });
    *used += (hi - lo + 1).min(len);
    if hi - lo <= block {
        return 0;
    }
    let mid = lo + (hi - lo) / 2;
    let left = nodes.len();
    let dl = add_node(nodes, lo, mid, block, len, used);
    let right = nodes.len();
    let dr = add_node(nodes, mid, hi, block, len, used);
    nodes[id].kids = Some((left, right));
    1 + dl.max(dr)
}

/// The read-only part of the tree during the walk down.
struct Walk<'a> {
    nodes: &'a [Node],
    keep: usize,
    len: usize,
    up: &'a [f64],
    a: &'a [f64],
    b: &'a [f64],
}

impl Walk<'_> {
    fn cap(&self, node: &Node) -> usize {
        (node.count() + 1).min(self.keep)
    }

    /// `g` is node `id`'s `G` (its first `min(count, keep)` entries, fewer when the prizes
    /// stop); `below` is room for the depths under it.
    fn descend(&self, id: usize, g: &[f64], below: &mut [f64], prefix: &mut [f64], suffix: &mut [f64], h: &mut [f64]) {
        let node = self.nodes[id];
        match node.kids {
            None => self.block(&node, g, prefix, suffix, h),
            Some((left, right)) => {
                let (here, deeper) = below.split_at_mut(self.len);
                for (child, sibling) in [(left, right), (right, left)] {
                    let (c, s) = (self.nodes[child], self.nodes[sibling]);
                    let need = c.count().min(self.keep).min(g.len());
                    let product = &self.up[s.at..s.at + self.cap(&s)];
                    correlate(g, product, &mut here[..need]);
                    self.descend(child, &here[..need], deeper, prefix, suffix, h);
                }
            }
        }
    }

    /// A block of players multiplied one by one: prefix products kept, the suffix carried
    /// down transposed.
    fn block(&self, node: &Node, g: &[f64], prefix: &mut [f64], suffix: &mut [f64], h: &mut [f64]) {
        let (lo, count, width) = (node.lo, node.count(), g.len());
        if width == 0 {
            h[lo..node.hi].fill(0.0);
            return;
        }
        // prefix row j: the product of the block's players before j, `min(j + 1, width)` long.
        let row = |j: usize| j * width;
        prefix[0] = 1.0;
        for j in 1..count {
            let (before, here) = prefix.split_at_mut(row(j));
            let previous = &before[row(j - 1)..row(j - 1) + j.min(width)];
            let out = &mut here[..(j + 1).min(width)];
            let (aj, bj) = (self.a[lo + j - 1], self.b[lo + j - 1]);
            out[0] = previous[0] * aj;
            for m in 1..out.len() {
                let lower = previous[m - 1] * bj;
                out[m] = if m < previous.len() { previous[m] * aj + lower } else { lower };
            }
        }
        suffix[..width].copy_from_slice(g);
        suffix[width] = 0.0;
        for j in (0..count).rev() {
            let p = &prefix[row(j)..row(j) + (j + 1).min(width)];
            h[lo + j] = p.iter().zip(&suffix[..p.len()]).map(|(x, y)| x * y).sum();
            let (aj, bj) = (self.a[lo + j], self.b[lo + j]);
            let reach = j.min(width);
            for m in 0..reach {
                suffix[m] = aj * suffix[m] + bj * suffix[m + 1];
            }
        }
    }
}

/// Whether this processor has AVX2 and FMA (checked once).
fn wide() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static WIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *WIDE.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `out = x · y`, keeping the first `out.len()` coefficients (as in `products.rs`), with
/// 4-wide fused multiply-adds where the processor has them.
fn multiply(x: &[f64], y: &[f64], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if wide() {
        // SAFETY: the processor has AVX2 and FMA (checked just above).
        unsafe { multiply_wide(x, y, out) };
        return;
    }
    multiply_with(x, y, out, |a, b, c| a * b + c);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn multiply_wide(x: &[f64], y: &[f64], out: &mut [f64]) {
    multiply_with(x, y, out, f64::mul_add);
}

#[inline(always)]
fn multiply_with(x: &[f64], y: &[f64], out: &mut [f64], fma: impl Fn(f64, f64, f64) -> f64) {
    let (outer, inner) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    out.fill(0.0);
    let keep = out.len();
    for (i, &xi) in outer.iter().enumerate().take(keep) {
        if xi < NEGLIGIBLE {
            continue;
        }
        let reach = (keep - i).min(inner.len());
        for (o, &yj) in out[i..i + reach].iter_mut().zip(&inner[..reach]) {
            *o = fma(xi, yj, *o);
        }
    }
}

/// `out[m] = Σ_l g[m + l] · p[l]` (terms with `m + l` past `g` are 0).
fn correlate(g: &[f64], p: &[f64], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if wide() {
        // SAFETY: the processor has AVX2 and FMA (checked just above).
        unsafe { correlate_wide(g, p, out) };
        return;
    }
    correlate_with(g, p, out, |a, b, c| a * b + c);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn correlate_wide(g: &[f64], p: &[f64], out: &mut [f64]) {
    correlate_with(g, p, out, f64::mul_add);
}

#[inline(always)]
fn correlate_with(g: &[f64], p: &[f64], out: &mut [f64], fma: impl Fn(f64, f64, f64) -> f64) {
    out.fill(0.0);
    for (l, &pl) in p.iter().enumerate().take(g.len()) {
        if pl < NEGLIGIBLE {
            continue;
        }
        let reach = out.len().min(g.len() - l);
        for (o, &gm) in out[..reach].iter_mut().zip(&g[l..l + reach]) {
            *o = fma(pl, gm, *o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Σ_m w[m] [x^m] ∏_{j≠i} (a_j + b_j x)` by multiplying every other factor in turn.
    fn naive(a: &[f64], b: &[f64], skip: usize, weights: &[f64]) -> f64 {
        let mut poly = vec![1.0];
        for j in (0..a.len()).filter(|&j| j != skip) {
            let mut next = vec![0.0; poly.len() + 1];
            for (m, &c) in poly.iter().enumerate() {
                next[m] += c * a[j];
                next[m + 1] += c * b[j];
            }
            poly = next;
        }
        poly.iter().zip(weights).map(|(c, w)| c * w).sum()
    }

    #[test]
    fn every_weighed_leave_one_out_sum_matches_multiplying_the_others() {
        for factors in [1, 2, 3, 5, 16, 17, 40, 100, 333] {
            for len in [1, 2, 4, 20, 64] {
                let len = len.min(factors);
                let a: Vec<f64> = (0..factors).map(|j| 0.05 + 0.9 * ((j * 37 % 101) as f64 / 101.0)).collect();
                let b: Vec<f64> = a.iter().map(|x| 1.0 - x).collect();
                let weights: Vec<f64> = (0..len).map(|m| 1.0 / (1.0 + m as f64)).collect();
                let mut tree = Tree::new(factors, len);
                tree.build(&a, &b, len, true);
                let mut h = vec![0.0; factors];
                tree.weigh(&a, &b, &weights, &mut h);
                for (i, got) in h.iter().enumerate() {
                    let want = naive(&a, &b, i, &weights);
                    assert!((got - want).abs() < 1e-13, "factors {factors}, len {len}, i {i}: {got} vs {want}");
                }
            }
        }
    }
}
