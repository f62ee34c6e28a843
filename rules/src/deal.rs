//! The money of a deal: how the prizes the last players have not yet won are divided when they
//! all agree to stop playing for them (issue 22, "Deals").
//!
//! Spec: `../shared/spec/README.md` §7 (004 §4.35, 000 §16.8: every remaining player agrees;
//! ICM, chip chop, equal; an optional amount left to play for; play continues and the agreed
//! amounts are paid at each elimination); `practice.md` §3.1–3.3 (PokerStars deals, BetMGM's
//! chip-chop formula, MSPT's "at least 10 % left to play for").
//!
//! # The pool and what is left to play for
//!
//! The pool is the sum of the unpaid prizes, place 1 first (fewer prizes than players on the
//! bubble: the places below pay nothing). An amount left to play for is kept out of the split
//! and goes to the winner on top of their share. It comes out of first prize, so it is at most
//! first prize minus second prize (first place, less it, still pays at least second), and at
//! least the house's minimum share of the pool ([`DealTerms::min_left_bps`], rounded up to a
//! cent); the rest, the money dealt, is split by the method.
//!
//! # Methods
//!
//! - **ICM**: each player's Malmuth-Harville equity ([`crate::icm`]) in the prizes with first
//!   prize reduced by the amount left to play for. Since the winner also takes that amount,
//!   each player's share plus their chance of winning times it is their ICM equity in the
//!   full prizes: leaving money to play for moves nobody's expectation.
//! - **Chip chop** (BetMGM: `NP + (R − n·NP) · c / C`): every player first gets the next unpaid
//!   prize `NP` (the prize of place `n`, what the next player out would win; 0 on the bubble),
//!   then the rest of the money dealt in proportion to chips. It can pay the chip leader more
//!   than first prize (GGPoker's objection, `practice.md` §3.2); players who agree to it accept
//!   that.
//! - **Equal**: the money dealt in equal parts.
//! - **Custom**: the amounts the players agreed, one per player, which must add up to the money
//!   dealt.
//!
//! Cents: [`crate::cents`]'s largest-remainder rule (whole cents first, the cents left one each
//! to the largest remainders, equal remainders to the larger stack, then the earlier player in
//! the list), so the amounts and what is left to play for add up to the pool exactly.

use crate::{cents, icm};
use floor_events::codes;
use std::collections::BTreeSet;

#[cfg(test)]
mod tests;

/// A remaining player: who (an entry number, or any key) and their chips.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealPlayer<K> {
    /// Who.
    pub player: K,
    /// Their stack.
    pub chips: u64,
}

/// How the money dealt is split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DealMethod {
    /// By Malmuth-Harville equity.
    Icm,
    /// The next unpaid prize each, then the rest by chips.
    ChipChop,
    /// Equal parts.
    Equal,
    /// Agreed amounts, one per player in the players' order.
    Custom(Vec<u64>),
}

/// What the players agreed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealTerms {
    /// How the money dealt is split.
    pub method: DealMethod,
    /// Kept out of the split for the winner, if any.
    pub left_to_play_for: Option<u64>,
    /// The house's least amount left to play for when any is, in basis points of the pool
    /// (0: no minimum; MSPT: 1,000).
    pub min_left_bps: u32,
}

/// The agreed money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deal<K> {
    /// Each player's amount, in the players' order.
    pub amounts: Vec<(K, u64)>,
    /// Kept for the winner (0 if none).
    pub left_to_play_for: u64,
    /// The unpaid prizes' total: the amounts plus what is left to play for.
    pub pool: u64,
}

/// Why a deal cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// Fewer than two players.
    #[error("a deal needs at least two players, not {players}")]
    NeedsTwoPlayers {
        /// Players given.
        players: usize,
    },
    /// A player is named twice.
    #[error("player {index} is named twice")]
    DuplicatePlayer {
        /// Index of the second mention.
        index: usize,
    },
    /// A player has no chips.
    #[error("player {index} has no chips")]
    ZeroStack {
        /// Index in the players.
        index: usize,
    },
    /// More unpaid prizes than players.
    #[error("{prizes} unpaid prizes for {players} players")]
    MorePrizesThanPlayers {
        /// Unpaid prizes.
        prizes: usize,
        /// Players.
        players: usize,
    },
    /// A place pays more than the place above it.
    #[error("place {place} pays more than the place above it")]
    PrizesNotDescending {
        /// The first place (1 = winner) paying more than the one above it.
        place: usize,
    },
    /// The unpaid prizes overflow a `u64`.
    #[error("the unpaid prizes add up to more than a u64 holds")]
    PoolOverflow,
    /// The amount left to play for is outside `min ..= max`.
    #[error("{amount} left to play for is outside {min}..={max}")]
    LeftToPlayForOutOfRange {
        /// Asked for.
        amount: u64,
        /// The house's minimum.
        min: u64,
        /// First prize minus second prize.
        max: u64,
    },
    /// Custom amounts that do not add up to the money dealt.
    #[error("the amounts add up to {sum}, the money dealt is {dealt}")]
    AmountsDoNotSum {
        /// Their sum.
        sum: u128,
        /// The pool less what is left to play for.
        dealt: u64,
    },
    /// Custom amounts, not one per player.
    #[error("{amounts} amounts for {players} players")]
    AmountsDoNotMatchPlayers {
        /// Amounts given.
        amounts: usize,
        /// Players.
        players: usize,
    },
    /// ICM cannot be computed for this field (too large).
    #[error(transparent)]
    Icm(#[from] icm::IcmError),
}

impl DealError {
    /// The stable code (`floor_events::codes`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::NeedsTwoPlayers { .. } => codes::DEAL_NEEDS_TWO_PLAYERS,
            Self::DuplicatePlayer { .. } => codes::DEAL_DUPLICATE_PLAYER,
            Self::ZeroStack { .. } => codes::DEAL_ZERO_STACK,
            Self::MorePrizesThanPlayers { .. } => codes::DEAL_MORE_PRIZES_THAN_PLAYERS,
            Self::PrizesNotDescending { .. } => codes::DEAL_PRIZES_NOT_DESCENDING,
            Self::PoolOverflow => codes::DEAL_POOL_OVERFLOW,
            Self::LeftToPlayForOutOfRange { .. } => codes::DEAL_LEFT_TO_PLAY_FOR_OUT_OF_RANGE,
            Self::AmountsDoNotSum { .. } => codes::DEAL_AMOUNTS_DO_NOT_SUM,
            Self::AmountsDoNotMatchPlayers { .. } => codes::DEAL_AMOUNTS_DO_NOT_MATCH_PLAYERS,
            Self::Icm(e) => e.code(),
        }
    }
}

/// The amounts of a deal among `players` over the `unpaid` prizes (place 1 first).
///
/// # Errors
/// Fewer than two players, a player named twice or without chips, more prizes than players,
/// prizes going up or overflowing, an amount left to play for out of range, custom amounts
/// that do not fit, or an ICM field too large.
pub fn deal<K: Clone + Ord>(players: &[DealPlayer<K>], unpaid: &[u64], terms: &DealTerms) -> Result<Deal<K>, DealError> {
    let pool = check(players, unpaid)?;
    let left = left_to_play_for(unpaid, pool, terms)?;
    let dealt = pool - left;
    let stacks: Vec<u64> = players.iter().map(|p| p.chips).collect();
    let amounts = match &terms.method {
        DealMethod::Icm => by_icm(&stacks, unpaid, left, dealt)?,
        DealMethod::ChipChop => chip_chop(&stacks, unpaid, dealt)?,
        DealMethod::Equal => split_exactly(dealt, &vec![1; stacks.len()], &stacks),
        DealMethod::Custom(amounts) => custom(amounts, stacks.len(), dealt)?,
    };
    let amounts = players.iter().zip(amounts).map(|(p, amount)| (p.player.clone(), amount)).collect();
    Ok(Deal { amounts, left_to_play_for: left, pool })
}

/// Checks the players and the prizes.
///
/// # Returns
/// The pool.
fn check<K: Ord>(players: &[DealPlayer<K>], unpaid: &[u64]) -> Result<u64, DealError> {
    if players.len() < 2 {
        return Err(DealError::NeedsTwoPlayers { players: players.len() });
    }
    let mut seen = BTreeSet::new();
    for (index, p) in players.iter().enumerate() {
        if !seen.insert(&p.player) {
            return Err(DealError::DuplicatePlayer { index });
        }
        if p.chips == 0 {
            return Err(DealError::ZeroStack { index });
        }
    }
    if unpaid.len() > players.len() {
        return Err(DealError::MorePrizesThanPlayers { prizes: unpaid.len(), players: players.len() });
    }
    if let Some(i) = unpaid.windows(2).position(|w| w[1] > w[0]) {
        return Err(DealError::PrizesNotDescending { place: i + 2 });
    }
    unpaid.iter().try_fold(0u64, |sum, &p| sum.checked_add(p)).ok_or(DealError::PoolOverflow)
}

/// The amount left to play for, checked against `min ..= max` (module docs).
fn left_to_play_for(unpaid: &[u64], pool: u64, terms: &DealTerms) -> Result<u64, DealError> {
    let Some(amount) = terms.left_to_play_for else { return Ok(0) };
    let (first, second) = (unpaid.first().copied().unwrap_or(0), unpaid.get(1).copied().unwrap_or(0));
    let max = first - second;
    // Rounded up: "at least 10 %" of 1,005 cents is 101 cents. At most the pool, so a u64.
    let min = (u128::from(pool) * u128::from(terms.min_left_bps)).div_ceil(10_000).min(u128::from(pool)) as u64;
    if amount < min || amount > max {
        return Err(DealError::LeftToPlayForOutOfRange { amount, min, max });
    }
    Ok(amount)
}

/// Splits `total` by integer weights; the weights here are never all zero (chips are positive,
/// equal shares are ones), and a failure would only ever be a zero total.
fn split_exactly(total: u64, weights: &[u64], stacks: &[u64]) -> Vec<u64> {
    cents::split_by_integers(total, weights, stacks).unwrap_or_else(|| vec![0; weights.len()])
}

/// ICM in the prizes with first prize less what is left to play for.
fn by_icm(stacks: &[u64], unpaid: &[u64], left: u64, dealt: u64) -> Result<Vec<u64>, DealError> {
    let mut prizes = unpaid.to_vec();
    if let Some(first) = prizes.first_mut() {
        // At most first − second (checked), so the prizes stay non-increasing.
        *first -= left;
    }
    let equities = icm::place_probabilities(stacks, prizes.len(), icm::Method::Auto)?.equities(&prizes);
    let split = cents::split_by_reals(dealt, &equities, stacks).unwrap_or_else(|| split_exactly(dealt, stacks, stacks));
    Ok(icm::in_stack_order(split, stacks))
}

/// The next unpaid prize each, then the rest by chips.
fn chip_chop(stacks: &[u64], unpaid: &[u64], dealt: u64) -> Result<Vec<u64>, DealError> {
    let n = stacks.len();
    let next = unpaid.get(n - 1).copied().unwrap_or(0);
    // The money dealt covers n × next: first − left ≥ second ≥ next, and every other prize is
    // at least next (checked here all the same).
    let floor = (n as u64).checked_mul(next).filter(|&f| f <= dealt).ok_or(DealError::PoolOverflow)?;
    let rest = split_exactly(dealt - floor, stacks, stacks);
    Ok(rest.into_iter().map(|r| r + next).collect())
}

/// Custom amounts, one per player, adding up to the money dealt.
fn custom(amounts: &[u64], players: usize, dealt: u64) -> Result<Vec<u64>, DealError> {
    if amounts.len() != players {
        return Err(DealError::AmountsDoNotMatchPlayers { amounts: amounts.len(), players });
    }
    let sum: u128 = amounts.iter().map(|&a| u128::from(a)).sum();
    if sum != u128::from(dealt) {
        return Err(DealError::AmountsDoNotSum { sum, dealt });
    }
    Ok(amounts.to_vec())
}
