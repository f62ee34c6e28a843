//! The reference method: every finishing order, one at a time, with its Malmuth-Harville
//! probability `∏_j s_σj / (chips not yet placed)`. `n!` orders: tests and the benchmark's
//! baseline only.

/// Place probabilities (row per player, `places` columns) by enumerating every full order.
pub(super) fn place_probabilities(stacks: &[u64], places: usize) -> Vec<f64> {
    let total: u128 = stacks.iter().map(|&s| u128::from(s)).sum();
    let mut cells = vec![0.0; stacks.len() * places];
    let mut order = Vec::with_capacity(stacks.len());
    walk(stacks, places, &mut order, 0, total, 1.0, &mut cells);
    cells
}

/// Extends `order` by each player not in it; at a full order, credits its probability to the
/// place each player took.
fn walk(stacks: &[u64], places: usize, order: &mut Vec<usize>, used: u64, left: u128, probability: f64, cells: &mut [f64]) {
    if order.len() == stacks.len() {
        for (place, &player) in order.iter().enumerate().take(places) {
            cells[player * places + place] += probability;
        }
        return;
    }
    for (player, &stack) in stacks.iter().enumerate() {
        if used & (1 << player) != 0 {
            continue;
        }
        order.push(player);
        let next = probability * (stack as f64 / left as f64);
        walk(stacks, places, order, used | (1 << player), left - u128::from(stack), next, cells);
        order.pop();
    }
}
