//! Dynamic programming over the set of players already placed.
//!
//! `reach[A]` is the probability that the players of `A` take the first `|A|` places, in any
//! order. From `A`, player `i ∉ A` takes place `|A| + 1` with probability
//! `reach[A] · s_i / (S − s(A))`, which is both that player's share of the place and a share of
//! `reach[A ∪ {i}]`. Sets are visited in increasing bit order, so every subset of a set is done
//! before it. Only sets smaller than the number of places are expanded.

/// Place probabilities (row per player, `places` columns). `stacks.len()` must be small enough
/// for `2ⁿ` floats (the caller checks).
pub(super) fn place_probabilities(stacks: &[u64], places: usize) -> Vec<f64> {
    let n = stacks.len();
    let total: u128 = stacks.iter().map(|&s| u128::from(s)).sum();
    let mut cells = vec![0.0; n * places];
    if places == 0 {
        return cells;
    }
    let mut reach = vec![0.0f64; 1 << n];
    reach[0] = 1.0;
    for set in 0..reach.len() {
        let placed = set.count_ones() as usize;
        let here = reach[set];
        if placed >= places || here == 0.0 {
            continue;
        }
        // Chips not yet placed, exactly, then once to a float.
        let placed_chips: u128 = (0..n).filter(|&i| set & (1 << i) != 0).map(|i| u128::from(stacks[i])).sum();
        let scale = here / (total - placed_chips) as f64;
        for (i, &stack) in stacks.iter().enumerate() {
            if set & (1 << i) != 0 {
                continue;
            }
            let share = scale * stack as f64;
            cells[i * places + placed] += share;
            if placed + 1 < places {
                reach[set | (1 << i)] += share;
            }
        }
    }
    cells
}
