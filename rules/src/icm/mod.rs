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
//! - [`Method::Auto`]: subsets up to [`AUTO_SUBSET_PLAYERS`] players, the race above.
//!
//! # Money
//!
//! [`amounts`] turns equities into cents that sum exactly to the prizes: the largest-remainder
//! rule of [`crate::cents`] (whole cents of each equity first, the cents left one each to the
//! largest remainders compared to a millionth of a cent, equal remainders to the larger stack
//! and then to the earlier player). The amounts are then handed out in stack order (the
//! largest to the largest stack, equal stacks in list order): equity grows with the stack, so
//! this moves a cent only where floating-point noise put it against the model, and rounding
//! never pays a bigger stack less. A service stores the amounts it decided and never
//! recomputes them on replay (floats can differ in their last bits between platforms).

mod permutations;
mod products;
mod race;
mod subsets;

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
    let cells = match resolve(method, stacks.len(), places)? {
        Method::Permutations => permutations::place_probabilities(stacks, places),
        Method::Subsets => subsets::place_probabilities(stacks, places),
        Method::Race | Method::Auto => race::place_probabilities(stacks, places),
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
    Ok(place_probabilities(stacks, prizes.len(), method)?.equities(prizes))
}

/// ICM equities in whole cents, summing exactly to the prizes' total by the rule in the module
/// docs (method [`Method::Auto`]).
///
/// # Errors
/// As [`equities`].
pub fn amounts(stacks: &[u64], prizes: &[u64]) -> Result<Vec<u64>, IcmError> {
    let total = check_prizes(prizes)?;
    let equities = equities(stacks, prizes, Method::Auto)?;
    // Equities are positive when anything is paid (someone finishes first), so the split by
    // reals always has something to split by; the split by chips is never used, but keeps
    // the sum exact whatever happens.
    let split = crate::cents::split_by_reals(total, &equities, stacks)
        .or_else(|| crate::cents::split_by_integers(total, stacks, stacks))
        .unwrap_or_else(|| vec![0; stacks.len()]);
    Ok(in_stack_order(split, stacks))
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
