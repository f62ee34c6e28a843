//! Leave-one-out products of linear factors, truncated: for every player `i` at once, the
//! coefficients of `x⁰ … x^{len−1}` in `∏_{j≠i} (a_j + b_j x)`.
//!
//! A product tree: each node holds the product of the factors below it (the up pass); walking
//! down, a child's complement is its parent's complement times its sibling's product, so a leaf
//! ends with the product of every other factor. Every coefficient is a sum of products of
//! non-negative numbers (the factors are probabilities), so nothing cancels: no division and no
//! subtraction, unlike dividing each factor out of the full product, which loses everything
//! where `b > a`. Only coefficients below `len` are kept, and a coefficient below `len` of a
//! product only needs those of its factors, so truncating loses nothing.
//!
//! Cost per evaluation, `n` factors and `k = len`: about `n · k · log₂ k` multiply-adds down and
//! less up; memory `2 · leaves · k` floats for the products (leaves: `n` rounded up to a power
//! of two) and `k · log₂ n` for the walk.

/// The tree for a fixed number of factors and of kept coefficients.
pub(super) struct Products {
    /// Real factors; leaves past them are padding (the factor 1).
    factors: usize,
    /// Leaves: the next power of two.
    leaves: usize,
    /// Room for coefficients per node.
    len: usize,
    /// Coefficients kept in this evaluation (at most `len`).
    keep: usize,
    /// Node `v` (1 = root, children `2v` and `2v + 1`, leaves from `leaves`) at `v · len`.
    up: Vec<f64>,
    /// One complement per depth for the walk down.
    walk: Vec<f64>,
}

impl Products {
    /// A tree for `factors ≥ 1` factors keeping `len ≥ 1` coefficients.
    pub(super) fn new(factors: usize, len: usize) -> Self {
        let leaves = factors.next_power_of_two();
        let depths = leaves.trailing_zeros() as usize + 1;
        Self { factors, leaves, len, keep: len, up: vec![0.0; 2 * leaves * len], walk: vec![0.0; depths * len] }
    }

    /// How many coefficients node `v` can have below `keep`: its leaves plus one.
    fn cap(&self, v: usize) -> usize {
        let depth = v.ilog2();
        (self.leaves >> depth).saturating_add(1).min(self.keep)
    }

    /// Sets factor `j` to `a[j] + b[j] x` and multiplies up to the root, keeping the first
    /// `keep` coefficients (at most the `len` of [`Products::new`]; fewer when the caller knows
    /// the higher ones are negligible).
    pub(super) fn build(&mut self, a: &[f64], b: &[f64], keep: usize) {
        self.keep = keep.clamp(1, self.len);
        let len = self.len;
        for leaf in 0..self.leaves {
            let at = (self.leaves + leaf) * len;
            let node = &mut self.up[at..at + self.keep.min(2)];
            let (constant, linear) = if leaf < self.factors { (a[leaf], b[leaf]) } else { (1.0, 0.0) };
            node[0] = constant;
            if let Some(x) = node.get_mut(1) {
                *x = linear;
            }
        }
        for v in (1..self.leaves).rev() {
            let (cap, child_cap) = (self.cap(v), self.cap(2 * v));
            let (head, tail) = self.up.split_at_mut(2 * v * len);
            let out = &mut head[v * len..v * len + cap];
            multiply(&tail[..child_cap], &tail[len..len + child_cap], out);
        }
    }

    /// The kept coefficients of the product of every factor (after [`Products::build`]).
    pub(super) fn root(&self) -> &[f64] {
        &self.up[self.len..self.len + self.cap(1)]
    }

    /// Calls `each(i, coefficients)` for every factor `i` with the kept coefficients of the
    /// product of all the others (after [`Products::build`]); missing high coefficients are 0.
    pub(super) fn leave_one_out(&mut self, mut each: impl FnMut(usize, &[f64])) {
        let tree = Walk { factors: self.factors, leaves: self.leaves, len: self.len, keep: self.keep, up: &self.up };
        self.walk[0] = 1.0;
        tree.descend(&mut self.walk, 1, 1, &mut each);
    }
}

/// The read-only part of the tree during the walk down.
struct Walk<'a> {
    factors: usize,
    leaves: usize,
    len: usize,
    keep: usize,
    up: &'a [f64],
}

impl Walk<'_> {
    /// `walk` starts with the first `known` coefficients of node `v`'s complement; the rest of
    /// it is room for the complements below.
    fn descend(&self, walk: &mut [f64], v: usize, known: usize, each: &mut impl FnMut(usize, &[f64])) {
        let len = self.len;
        if v >= self.leaves {
            each(v - self.leaves, &walk[..known]);
            return;
        }
        let (here, below) = walk.split_at_mut(len);
        let complement = &here[..known];
        let leaf_depth = self.leaves.trailing_zeros();
        for (child, sibling) in [(2 * v, 2 * v + 1), (2 * v + 1, 2 * v)] {
            // A subtree of padding only has no factor to report.
            let first_leaf = child << (leaf_depth - child.ilog2());
            if first_leaf - self.leaves >= self.factors {
                continue;
            }
            let sibling_cap = ((self.leaves >> sibling.ilog2()) + 1).min(self.keep);
            let next = (known + sibling_cap - 1).min(self.keep);
            multiply(complement, &self.up[sibling * len..sibling * len + sibling_cap], &mut below[..next]);
            self.descend(below, child, next, each);
        }
    }
}

/// `out = x · y`, keeping the first `out.len()` coefficients. The shorter factor is the outer
/// loop, so the inner one (which vectorises) is long; terms below `10⁻²⁰⁰` are skipped (they
/// cannot matter next to a total of 1, and subnormal arithmetic is slow).
fn multiply(x: &[f64], y: &[f64], out: &mut [f64]) {
    let (outer, inner) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    out.fill(0.0);
    let keep = out.len();
    for (i, &xi) in outer.iter().enumerate().take(keep) {
        if xi < 1e-200 {
            continue;
        }
        let reach = (keep - i).min(inner.len());
        for (o, &yj) in out[i..i + reach].iter_mut().zip(&inner[..reach]) {
            *o += xi * yj;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same coefficients by multiplying every other factor in turn.
    fn naive(a: &[f64], b: &[f64], skip: usize, len: usize) -> Vec<f64> {
        let mut poly = vec![1.0];
        for j in (0..a.len()).filter(|&j| j != skip) {
            let mut next = vec![0.0; poly.len() + 1];
            for (m, &c) in poly.iter().enumerate() {
                next[m] += c * a[j];
                next[m + 1] += c * b[j];
            }
            poly = next;
        }
        poly.resize(len.max(poly.len()), 0.0);
        poly.truncate(len);
        poly
    }

    #[test]
    fn every_leave_one_out_product_matches_multiplying_the_others() {
        for factors in [1, 2, 3, 5, 8, 13] {
            for len in [1, 2, 4, 20] {
                let a: Vec<f64> = (0..factors).map(|j| 0.1 + 0.07 * j as f64).collect();
                let b: Vec<f64> = a.iter().map(|x| 1.0 - x).collect();
                let mut tree = Products::new(factors, len);
                tree.build(&a, &b, len);
                let mut seen = vec![false; factors];
                tree.leave_one_out(|i, got| {
                    seen[i] = true;
                    let want = naive(&a, &b, i, len);
                    for (m, w) in want.iter().enumerate() {
                        let g = got.get(m).copied().unwrap_or(0.0);
                        assert!((g - w).abs() < 1e-15, "factors {factors}, len {len}, i {i}, x^{m}: {g} vs {w}");
                    }
                });
                assert!(seen.iter().all(|&s| s), "every factor reported");
                let root = naive(&a, &b, usize::MAX, len);
                for (m, w) in root.iter().enumerate() {
                    assert!((tree.root().get(m).copied().unwrap_or(0.0) - w).abs() < 1e-15);
                }
            }
        }
    }
}
