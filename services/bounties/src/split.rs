//! One bounty divided among the players who won the eliminated player's chips. Pure.
//!
//! The rules (spec §8, practice §3.1, 004 §4.36.15):
//!
//! - **As the pots did.** The table reports, for a bust, each pot the eliminated player's chips
//!   went to, with its winners (`floor_events::table::BustReport::pots`). Each pot's part of the
//!   bounty is in proportion to the eliminated player's chips in it, and a pot's part is shared
//!   equally by its winners (a chopped pot chops the bounty).
//! - **The covering rule** follows: a player who did not cover the eliminated stack was in only
//!   the pots their stack reached (the main pot), so they share only those pots' parts.
//! - **Hi/lo.** When the report names the best high hand, that player takes the whole knockout
//!   (004 §4.36.15: "the bounty always goes to the player with the best high hand").
//! - **Remainder rule.** Amounts are rounded down to the minor unit in two steps. First, between
//!   pots: the cents left go one each to the pots with the largest remainder of
//!   `bounty × chips ÷ all chips`, the earlier pot (the main pot) first on a tie. Then, within a
//!   pot: the cents left go one each to its winners in the order the table listed them (table
//!   servers list winners as they deal the odd chip: first left of the button first). So every
//!   cent is paid, and the same report always divides the same way.

use floor_events::table::PotWon;
use floor_events::EntryNo;

/// What one eliminator collects of a bounty, in minor units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    /// The eliminator.
    pub entry: EntryNo,
    /// Minor units.
    pub amount: u64,
}

/// Why a report cannot divide a bounty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// A pot without winners.
    #[error("a pot of {0} chips has no winner")]
    PotWithoutWinner(u64),
    /// A pot names the same winner twice.
    #[error("entry {0} is named twice among one pot's winners")]
    WinnerTwice(EntryNo),
    /// The eliminated entry is among the winners.
    #[error("entry {0} is among the winners of its own chips")]
    OwnChips(EntryNo),
    /// The best high hand won none of the pots.
    #[error("the best high hand, entry {0}, won none of the pots")]
    BestHighHandWonNothing(EntryNo),
}

/// Checks that a report can divide a bounty of `eliminated`: every pot has winners, each named
/// once, none of them the eliminated entry, and a best high hand among them.
///
/// # Errors
/// The first [`SplitError`] found.
pub fn check(eliminated: EntryNo, pots: &[PotWon], best_high_hand: Option<EntryNo>) -> Result<(), SplitError> {
    for pot in pots {
        if pot.winners.is_empty() {
            return Err(SplitError::PotWithoutWinner(pot.chips));
        }
        for (i, w) in pot.winners.iter().enumerate() {
            if *w == eliminated {
                return Err(SplitError::OwnChips(eliminated));
            }
            if pot.winners[..i].contains(w) {
                return Err(SplitError::WinnerTwice(*w));
            }
        }
    }
    if let Some(best) = best_high_hand {
        if !pots.iter().any(|p| p.winners.contains(&best)) {
            return Err(SplitError::BestHighHandWonNothing(best));
        }
    }
    Ok(())
}

/// Every entry that won a part of the eliminated player's chips, in the order the report first
/// names them.
pub fn eliminators(pots: &[PotWon]) -> Vec<EntryNo> {
    let mut seen = Vec::new();
    for w in pots.iter().flat_map(|p| &p.winners) {
        if !seen.contains(w) {
            seen.push(*w);
        }
    }
    seen
}

/// Divides `bounty` minor units as the report's pots divided the eliminated stack (module docs
/// give the rules). The shares sum to `bounty` exactly; no pots means nobody won the chips and
/// the result is empty.
///
/// # Errors
/// What [`check`] finds.
pub fn split(bounty: u64, eliminated: EntryNo, pots: &[PotWon], best_high_hand: Option<EntryNo>) -> Result<Vec<Share>, SplitError> {
    check(eliminated, pots, best_high_hand)?;
    if pots.is_empty() {
        return Ok(vec![]);
    }
    if let Some(best) = best_high_hand {
        return Ok(vec![Share { entry: best, amount: bounty }]);
    }
    let mut shares: Vec<Share> = Vec::new();
    for (pot, part) in pots.iter().zip(pot_parts(bounty, pots)) {
        let n = pot.winners.len() as u64;
        let (each, mut odd) = (part / n, part % n);
        for w in &pot.winners {
            let extra = u64::from(odd > 0);
            odd -= extra;
            match shares.iter_mut().find(|s| s.entry == *w) {
                Some(s) => s.amount += each + extra,
                None => shares.push(Share { entry: *w, amount: each + extra }),
            }
        }
    }
    Ok(shares)
}

/// Each pot's part of `bounty`, in proportion to its chips (equal parts when no pot holds a
/// chip), rounded down, the cents left to the largest remainders, the earlier pot first.
fn pot_parts(bounty: u64, pots: &[PotWon]) -> Vec<u64> {
    let all: u128 = pots.iter().map(|p| u128::from(p.chips)).sum();
    let weight = |p: &PotWon| if all == 0 { 1 } else { u128::from(p.chips) };
    let total = if all == 0 { pots.len() as u128 } else { all };
    // bounty ≤ 2^64 and a weight ≤ 2^64: the product fits in a u128.
    let exact: Vec<(u64, u128)> = pots
        .iter()
        .map(|p| {
            let numerator = u128::from(bounty) * weight(p);
            ((numerator / total) as u64, numerator % total)
        })
        .collect();
    let mut parts: Vec<u64> = exact.iter().map(|(part, _)| *part).collect();
    let left = bounty - parts.iter().sum::<u64>();
    let mut order: Vec<usize> = (0..pots.len()).collect();
    order.sort_by(|&a, &b| exact[b].1.cmp(&exact[a].1).then(a.cmp(&b)));
    for &i in order.iter().take(left as usize) {
        parts[i] += 1;
    }
    parts
}

/// A progressive knockout share: `(cash, added to the collector's own bounty)`. The cash part
/// is rounded down; the cent left goes onto the collector's head, so it stays in the bounty pool.
pub fn progressive(amount: u64, cash_share_bps: u32) -> (u64, u64) {
    let cash = (u128::from(amount) * u128::from(cash_share_bps) / 10_000) as u64;
    (cash, amount - cash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pot(winners: &[u32], chips: u64) -> PotWon {
        PotWon { winners: winners.iter().map(|&w| EntryNo(w)).collect(), chips }
    }

    fn shares(list: &[(u32, u64)]) -> Vec<Share> {
        list.iter().map(|&(e, amount)| Share { entry: EntryNo(e), amount }).collect()
    }

    #[test]
    fn one_winner_takes_it_all_and_a_chopped_pot_chops_the_bounty_odd_cent_to_the_first_listed() {
        assert_eq!(split(1_000, EntryNo(9), &[pot(&[1], 500)], None), Ok(shares(&[(1, 1_000)])));
        assert_eq!(split(1_001, EntryNo(9), &[pot(&[2, 1], 500)], None), Ok(shares(&[(2, 501), (1, 500)])));
    }

    #[test]
    fn a_short_stack_shares_only_the_main_pot_it_covered() {
        // Entry 9 busts with 1,000 chips: 400 in the main pot won by the short stack 1 (who had
        // 400), 600 in the side pot won by 2.
        let pots = [pot(&[1], 400), pot(&[2], 600)];
        assert_eq!(split(5_000, EntryNo(9), &pots, None), Ok(shares(&[(1, 2_000), (2, 3_000)])));
    }

    #[test]
    fn cents_between_pots_go_to_the_largest_remainder_then_the_main_pot() {
        // 100 cents over chips 1:1:1 → 33.33 each; the cent left goes to the main pot.
        let pots = [pot(&[1], 1), pot(&[2], 1), pot(&[3], 1)];
        assert_eq!(split(100, EntryNo(9), &pots, None), Ok(shares(&[(1, 34), (2, 33), (3, 33)])));
        // 100 over 1:2 → 33.33 and 66.67: the cent goes to the larger remainder, the side pot.
        assert_eq!(split(100, EntryNo(9), &[pot(&[1], 1), pot(&[2], 2)], None), Ok(shares(&[(1, 33), (2, 67)])));
    }

    #[test]
    fn the_best_high_hand_takes_the_whole_knockout_in_hi_lo() {
        let pots = [pot(&[1, 2], 1_000)];
        assert_eq!(split(777, EntryNo(9), &pots, Some(EntryNo(2))), Ok(shares(&[(2, 777)])));
        assert_eq!(split(777, EntryNo(9), &pots, Some(EntryNo(3))), Err(SplitError::BestHighHandWonNothing(EntryNo(3))));
    }

    #[test]
    fn reports_that_cannot_divide_a_bounty_are_refused() {
        assert_eq!(split(1, EntryNo(9), &[pot(&[], 5)], None), Err(SplitError::PotWithoutWinner(5)));
        assert_eq!(split(1, EntryNo(9), &[pot(&[1, 1], 5)], None), Err(SplitError::WinnerTwice(EntryNo(1))));
        assert_eq!(split(1, EntryNo(9), &[pot(&[9], 5)], None), Err(SplitError::OwnChips(EntryNo(9))));
        assert_eq!(split(1, EntryNo(9), &[], None), Ok(vec![]), "nobody won the chips");
    }

    #[test]
    fn progressive_halves_round_the_cash_down_and_keep_the_cent_on_the_head() {
        assert_eq!(progressive(1_001, 5_000), (500, 501));
        assert_eq!(progressive(1_000, 3_000), (300, 700));
        assert_eq!(progressive(1, 7_500), (0, 1));
    }

    fn pots() -> impl Strategy<Value = Vec<PotWon>> {
        let winners = prop::sample::subsequence((1u32..=9).collect::<Vec<_>>(), 1..=4).prop_shuffle();
        prop::collection::vec((winners, 0u64..1_000_000_000), 0..5)
            .prop_map(|pots| pots.into_iter().map(|(w, chips)| PotWon { winners: w.into_iter().map(EntryNo).collect(), chips }).collect())
    }

    proptest! {
        /// Every cent is paid, only to pot winners, and the same report divides the same way.
        #[test]
        fn shares_sum_to_the_bounty_and_go_only_to_winners(bounty in 0u64..(1 << 53), pots in pots()) {
            let result = split(bounty, EntryNo(10), &pots, None).unwrap();
            let winners = eliminators(&pots);
            if pots.is_empty() {
                prop_assert!(result.is_empty());
            } else {
                prop_assert_eq!(result.iter().map(|s| s.amount).sum::<u64>(), bounty);
            }
            prop_assert!(result.iter().all(|s| winners.contains(&s.entry)));
            prop_assert_eq!(result, split(bounty, EntryNo(10), &pots, None).unwrap());
        }

        /// A winner's share is within a cent per pot of the exact proportional amount.
        #[test]
        fn shares_are_proportional_to_the_chips_within_a_cent_per_pot(bounty in 0u64..1_000_000_000, pots in pots()) {
            prop_assume!(pots.iter().any(|p| p.chips > 0));
            let all: u128 = pots.iter().map(|p| u128::from(p.chips)).sum();
            for s in split(bounty, EntryNo(10), &pots, None).unwrap() {
                let exact: f64 = pots.iter().filter(|p| p.winners.contains(&s.entry))
                    .map(|p| bounty as f64 * p.chips as f64 / all as f64 / p.winners.len() as f64).sum();
                let pots_in = pots.iter().filter(|p| p.winners.contains(&s.entry)).count() as f64;
                prop_assert!((s.amount as f64 - exact).abs() <= 2.0 * pots_in + 1e-6, "{} vs {exact}", s.amount);
            }
        }
    }
}
