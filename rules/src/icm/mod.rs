//! The Independent Chip Model (Malmuth-Harville): how likely each player is to finish in each
//! paid place, what that is worth, and the same in whole cents.
//!
//! Spec: `../shared/spec/practice.md` §4.1–4.3; issue 22 ("Deals"); the abort service's
//! `tda-2024` rule offers ICM as an option (`../shared/spec/README.md` §10).
//!
//! # The model
//!
//! Malmuth-Harville: a player wins with probability stack / all chips; given the players
//! already placed, each next place goes to one of the others in proportion to their stacks.
//! The probability of a finishing order (best first) `σ` is `∏_j s_σj / (S − Σ_{l<j} s_σl)`.
//! A player's equity is `Σ_p P(player finishes p-th) × prize_p`.
//!
//! # Methods (all exact up to floating-point rounding)
//!
//! - [`Method::Permutations`] (`permutations.rs`): every finishing order, one by one. The
//!   reference the others are tested against, and the benchmark's baseline; `n!` orders, so at
//!   most [`MAX_PERMUTATION_PLAYERS`].
//! - [`Method::Subsets`] (`subsets.rs`): dynamic programming over the set of players placed so
//!   far, `O(Σ_{j<k} C(n, j) · n)` time and `2ⁿ` memory, at most [`MAX_SUBSET_PLAYERS`].
//! - [`Method::Race`] (`race.rs`): the exponential race. Malmuth-Harville's order is the order
//!   in which independent exponential clocks with rates proportional to the stacks ring, so
//!   `P(i finishes p-th) = ∫ w_i e^{−w_i t} · P(exactly p − 1 other clocks rang by t) dt`. The
//!   second factor is a coefficient of `∏_{j≠i} (e^{−w_j t} + (1 − e^{−w_j t}) x)`, computed for
//!   every player at once by a product tree truncated at the number of places (`products.rs`),
//!   and the integral by adaptive Gauss-Kronrod quadrature in `log t`. Within `1e-15` of the
//!   subset method; 1,000 players and 150 places in about 0.3 s (issue 22 allows 5 s), and
//!   faster than subsets from about 13 players (`docs/benchmarks.md`).
//! - [`Method::Transposed`] (`transposed.rs`, issue 41): the same integral with the prizes
//!   folded into the products, so each quadrature node yields one number per player (a
//!   transposed product tree) instead of a row of `k` place probabilities: equities only. Up to
//!   [`MAX_TRANSPOSED_CELLS`] (`players × places`; 10,000 × 1,500 took 2.9 s on the shared
//!   2-core VM under load, where issue 41 asks for 1 s: `docs/benchmarks.md`).
//! - [`Method::Auto`]: subsets up to [`AUTO_SUBSET_PLAYERS`] players, the race above (for
//!   place tables and [`equities`]; [`amounts`] takes the transposed method above).
//!
//! # Error
//!
//! The race and the transposed method are each within [`EQUITY_ERROR`] of the prizes' total of
//! the exact equity, and their equities sum to the prizes within [`EQUITY_SUM_ERROR`] of it
//! (a bound held by the tests, not proved: see [`EQUITY_ERROR`]).
//!
//! # Money
//!
//! [`amounts`] turns equities (subsets up to [`AUTO_SUBSET_PLAYERS`] players, the transposed
//! method above, the race where the transposed method leaves a cent in doubt) into cents that sum exactly to the prizes: the largest-remainder
//! rule of [`crate::cents`] (whole cents of each equity first, the cents left one each to the
//! largest remainders compared to a millionth of a cent, equal remainders to the larger stack
//! and then to the earlier player). The amounts are then handed out in stack order (the
//! largest to the largest stack, equal stacks in list order): equity grows with the stack, so
//! this moves a cent only where floating-point noise put it against the model, and rounding
//! never pays a bigger stack less. A cent is in doubt when moving every equity by the error
//! bound could move a share across a whole cent or change who gets the cents left over; then
//! the race decides, so the cents are the race's (the method before issue 41) wherever it runs
//! (a property test). A service stores the amounts it decided and never
//! recomputes them on replay (floats can differ in their last bits between platforms).

mod permutations;
mod products;
mod race;
mod subsets;
mod transposed;

#[cfg(test)]
mod tests;

use floor_events::codes;

/// Most players [`Method::Permutations`] takes (`10!` = 3,628,800 orders).
pub const MAX_PERMUTATION_PLAYERS: usize = 10;
/// Most players [`Method::Subsets`] takes (`2²⁰` probabilities, 8 MiB).
pub const MAX_SUBSET_PLAYERS: usize = 20;
/// Most `players × places` [`Method::Race`] takes: its cost grows with it (1,000 players and
/// 150 places is 150,000), and a pure function must not run for minutes.
pub const MAX_RACE_CELLS: usize = 1_000_000;
/// Largest field [`Method::Auto`] gives to the subset method; bigger fields go to the race.
pub const AUTO_SUBSET_PLAYERS: usize = 12;
/// Most `players × places` [`Method::Transposed`] takes: 10,000 players and 1,500 places (a big
/// field's final thousands) fit; its time grows with `players × min(players, places)`.
pub const MAX_TRANSPOSED_CELLS: usize = 16_000_000;

/// How place probabilities are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Subsets for small fields, the race for the others.
    #[default]
    Auto,
    /// Every finishing order (reference and benchmark baseline).
    Permutations,
    /// Dynamic programming over the set of players placed so far.
    Subsets,
    /// The exponential-race integral.
    Race,
    /// The exponential race with the prizes folded into the products (`transposed.rs`):
    /// equities without the place table, for thousands of players. [`place_probabilities`]
    /// with it computes the table by [`Method::Race`].
    Transposed,
}

/// Why ICM cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IcmError {
    /// No stacks.
    #[error("ICM needs at least one player")]
    NoPlayers,
    /// A player without chips is out, not in the model.
    #[error("player {player} has no chips")]
    ZeroStack {
        /// Index of the player in the input.
        player: usize,
    },
    /// More places (prizes) than players: each place needs a player.
    #[error("{places} places for {players} players")]
    MorePlacesThanPlayers {
        /// Places asked for.
        places: usize,
        /// Players.
        players: usize,
    },
    /// A place pays more than the place above it.
    #[error("place {place} pays more than the place above it")]
    PrizesNotDescending {
        /// The first place (1 = winner) paying more than the one above it.
        place: usize,
    },
    /// The prizes add up to more than a `u64` holds.
    #[error("the prizes add up to more than a u64 holds")]
    PrizesOverflow,
    /// The field is too large for the method asked for.
    #[error("{players} players and {places} places are too many for {method:?}")]
    FieldTooLarge {
        /// Players.
        players: usize,
        /// Places.
        places: usize,
        /// The method asked for.
        method: Method,
    },
}

impl IcmError {
    /// The stable code (`floor_events::codes`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::NoPlayers => codes::ICM_NO_PLAYERS,
            Self::ZeroStack { .. } => codes::ICM_ZERO_STACK,
            Self::MorePlacesThanPlayers { .. } => codes::ICM_MORE_PLACES_THAN_PLAYERS,
            Self::PrizesNotDescending { .. } => codes::ICM_PRIZES_NOT_DESCENDING,
            Self::PrizesOverflow => codes::ICM_PRIZES_OVERFLOW,
            Self::FieldTooLarge { .. } => codes::ICM_FIELD_TOO_LARGE,
        }
    }
}

/// Each player's probability of finishing in each of the first `places` places.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaceProbabilities {
    players: usize,
    places: usize,
    /// Row per player (input order), column per place (first place first).
    cells: Vec<f64>,
}

impl PlaceProbabilities {
    /// Players (rows).
    pub fn players(&self) -> usize {
        self.players
    }

    /// Places (columns).
    pub fn places(&self) -> usize {
        self.places
    }

    /// The probability that `player` (input index) finishes `place`-th, `place` from 1.
    ///
    /// # Panics
    /// If either is out of range.
    pub fn get(&self, player: usize, place: usize) -> f64 {
        assert!((1..=self.places).contains(&place), "place {place} out of 1..={}", self.places);
        self.cells[player * self.places + place - 1]
    }

    /// One player's probabilities, first place first.
    pub fn row(&self, player: usize) -> &[f64] {
        &self.cells[player * self.places..(player + 1) * self.places]
    }

    /// Each player's expected prize, `Σ_p P(p) × prizes[p]`, for prizes of the first places
    /// (missing places pay nothing, extra prizes are ignored).
    pub fn equities(&self, prizes: &[u64]) -> Vec<f64> {
        (0..self.players()).map(|i| self.row(i).iter().zip(prizes).map(|(&p, &prize)| p * prize as f64).sum()).collect()
    }
}

/// Checks stacks (at least one, none zero) and the number of places (at most the players).
fn check_field(stacks: &[u64], places: usize) -> Result<(), IcmError> {
    if stacks.is_empty() {
        return Err(IcmError::NoPlayers);
    }
    if let Some(player) = stacks.iter().position(|&s| s == 0) {
        return Err(IcmError::ZeroStack { player });
    }
    if places > stacks.len() {
        return Err(IcmError::MorePlacesThanPlayers { places, players: stacks.len() });
    }
    Ok(())
}

/// Checks prizes: non-increasing, summing within a `u64`.
///
/// # Returns
/// Their sum.
fn check_prizes(prizes: &[u64]) -> Result<u64, IcmError> {
    if let Some(i) = prizes.windows(2).position(|w| w[1] > w[0]) {
        return Err(IcmError::PrizesNotDescending { place: i + 2 });
    }
    prizes.iter().try_fold(0u64, |sum, &p| sum.checked_add(p)).ok_or(IcmError::PrizesOverflow)
}

/// Which method runs, once `Auto` is resolved, or why none can.
fn resolve(method: Method, players: usize, places: usize) -> Result<Method, IcmError> {
    let chosen = match method {
        Method::Auto if players <= AUTO_SUBSET_PLAYERS => Method::Subsets,
        Method::Auto => Method::Race,
        other => other,
    };
    let fits = match chosen {
        Method::Permutations => players <= MAX_PERMUTATION_PLAYERS,
        Method::Subsets => players <= MAX_SUBSET_PLAYERS,
        Method::Race | Method::Auto => players.saturating_mul(places) <= MAX_RACE_CELLS,
        Method::Transposed => players.saturating_mul(places) <= MAX_TRANSPOSED_CELLS,
    };
    if fits {
        Ok(chosen)
    } else {
        Err(IcmError::FieldTooLarge { players, places, method })
    }
}

/// Malmuth-Harville place probabilities for the first `places` places.
///
/// # Errors
/// No players, a zero stack, more places than players, or a field too large for `method`.
pub fn place_probabilities(stacks: &[u64], places: usize, method: Method) -> Result<PlaceProbabilities, IcmError> {
    check_field(stacks, places)?;
    // The transposed method has no table: the race computes it.
    let method = if method == Method::Transposed { Method::Race } else { method };
    let cells = match resolve(method, stacks.len(), places)? {
        Method::Permutations => permutations::place_probabilities(stacks, places),
        Method::Subsets => subsets::place_probabilities(stacks, places),
        Method::Race | Method::Auto | Method::Transposed => race::place_probabilities(stacks, places),
    };
    Ok(PlaceProbabilities { players: stacks.len(), places, cells })
}

/// Each player's ICM equity (expected prize, in the prizes' unit) for prizes by place, first
/// place first; there may be fewer prizes than players.
///
/// # Errors
/// As [`place_probabilities`], and prizes that go up from one place to the next or overflow.
pub fn equities(stacks: &[u64], prizes: &[u64], method: Method) -> Result<Vec<f64>, IcmError> {
    check_prizes(prizes)?;
    if method == Method::Transposed {
        check_field(stacks, prizes.len())?;
        resolve(method, stacks.len(), prizes.len())?;
        return Ok(transposed::equities(stacks, prizes));
    }
    Ok(place_probabilities(stacks, prizes.len(), method)?.equities(prizes))
}

/// ICM equities in whole cents, summing exactly to the prizes' total by the rule in the module
/// docs: subsets up to [`AUTO_SUBSET_PLAYERS`] players, [`Method::Transposed`] above, and the
/// race (the method before it) wherever the transposed equities are too close to a rounding
/// decision for [`EQUITY_ERROR`] to settle it and the race can run. So the cents are the
/// race's wherever both run.
///
/// # Errors
/// As [`equities`] (for the transposed method above [`AUTO_SUBSET_PLAYERS`] players).
pub fn amounts(stacks: &[u64], prizes: &[u64]) -> Result<Vec<u64>, IcmError> {
    let total = check_prizes(prizes)?;
    if stacks.len() <= AUTO_SUBSET_PLAYERS {
        return Ok(cents_of(total, &equities(stacks, prizes, Method::Subsets)?, stacks));
    }
    let fast = equities(stacks, prizes, Method::Transposed)?;
    if settled(total, &fast, stacks) || resolve(Method::Race, stacks.len(), prizes.len()).is_err() {
        return Ok(cents_of(total, &fast, stacks));
    }
    Ok(cents_of(total, &equities(stacks, prizes, Method::Race)?, stacks))
}

/// The cents rule on equities: largest remainders, then stack order.
fn cents_of(total: u64, equities: &[f64], stacks: &[u64]) -> Vec<u64> {
    // Equities are positive when anything is paid (someone finishes first), so the split by
    // reals always has something to split by; the split by chips is never used, but keeps
    // the sum exact whatever happens.
    let split = crate::cents::split_by_reals(total, equities, stacks)
        .or_else(|| crate::cents::split_by_integers(total, stacks, stacks))
        .unwrap_or_else(|| vec![0; stacks.len()]);
    in_stack_order(split, stacks)
}

/// Bound on how far an equity from [`Method::Race`] or [`Method::Transposed`] is from the exact
/// Malmuth-Harville value, as a fraction of the prizes' total: `|equity − exact| ≤
/// EQUITY_ERROR · Σ prizes` for each player. Not proved: the quadratures' own estimates are
/// far looser (1e-9 of a probability per panel for the race, 1e-8 of the first prize for the
/// transposed method, and the 15-point results kept are far better than that). It is the bound
/// the tests hold both methods to, against each other, the subset method, every finishing
/// order and closed forms, with a margin of about 50 over the worst difference measured
/// (2e-16 of the prizes; `docs/benchmarks.md`).
pub const EQUITY_ERROR: f64 = 1e-14;
/// Bound on `|Σ equities − Σ prizes|` as a fraction of the prizes' total, for both methods
/// (the worst measured is 1.2e-13, 1,000 players and 1,000 places, transposed). [`amounts`]
/// uses the transposed method's own, measured, plus this for the race's.
pub const EQUITY_SUM_ERROR: f64 = 1e-12;

/// Whether the cents rule gives the same cents for every equities within the bounds of
/// [`EQUITY_ERROR`] of these (so the race would give the same as these). Follows
/// `cents::split_by_reals`: each share `total · e_i / Σ e` may move by `2ε · total` (each
/// method's error) plus `share · (|Σ e / total − 1| + ε_Σ)` (the sums' errors) plus rounding;
/// it is settled when no share can cross a whole cent and the players who get the cents left
/// over are the same whatever the shares.
fn settled(total: u64, equities: &[f64], stacks: &[u64]) -> bool {
    const STEPS: f64 = 1_000_000.0; // `cents::REMAINDER_STEPS`
    let sum: f64 = equities.iter().map(|&e| if e.is_finite() && e > 0.0 { e } else { 0.0 }).sum();
    if sum.is_nan() || sum <= 0.0 || equities.iter().any(|e| !e.is_finite()) {
        return false;
    }
    let pool = total as f64;
    // This method's own sum error, measured.
    let drift = (sum / pool - 1.0).abs();
    let mut wholes: u128 = 0;
    // (lowest remainder, highest remainder) in millionths of a cent, per player.
    let mut remainders = Vec::with_capacity(equities.len());
    for &e in equities {
        let e = e.max(0.0);
        let share = (pool * (e / sum)).min(pool);
        let slack = 2.0 * EQUITY_ERROR * pool + share * (drift + EQUITY_SUM_ERROR) + 8.0 * f64::EPSILON * pool;
        let (low, high) = ((share - slack).max(0.0), (share + slack).min(pool));
        let whole = share.floor();
        if low.floor() != whole || high.floor() != whole {
            return false;
        }
        wholes += whole as u128;
        remainders.push((((low - whole) * STEPS).round() as u64, ((high - whole) * STEPS).round() as u64));
    }
    let Some(left) = u128::from(total).checked_sub(wholes) else {
        return false;
    };
    let players = equities.len();
    let extra = (left % players as u128) as usize;
    if extra == 0 {
        return true;
    }
    // The order of `split_by_reals`: remainder, then the larger stack, then the earlier player.
    let key = |i: usize, remainder: u64| (remainder, stacks[i], std::cmp::Reverse(i));
    let mut order: Vec<usize> = (0..players).collect();
    order.sort_by(|&a, &b| key(b, remainders[b].0).cmp(&key(a, remainders[a].0)));
    let (given, not) = order.split_at(extra);
    let weakest_given = given.iter().map(|&i| key(i, remainders[i].0)).min();
    let strongest_not = not.iter().map(|&i| key(i, remainders[i].1)).max();
    weakest_given > strongest_not
}

/// Gives the largest amount to the largest stack, the next to the next, equal stacks in list
/// order. Under Malmuth-Harville with non-increasing prizes equity grows with the stack, so this
/// only moves a cent that floating-point noise (or a tie broken the other way) put against
/// that order; the sum is unchanged.
pub(crate) fn in_stack_order(mut amounts: Vec<u64>, stacks: &[u64]) -> Vec<u64> {
    let mut players: Vec<usize> = (0..stacks.len()).collect();
    players.sort_by(|&a, &b| stacks[b].cmp(&stacks[a]).then(a.cmp(&b)));
    let mut sorted = amounts.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    // Equal stacks share their run of amounts in list order: the earlier gets the larger.
    for (&player, amount) in players.iter().zip(sorted) {
        amounts[player] = amount;
    }
    amounts
}
