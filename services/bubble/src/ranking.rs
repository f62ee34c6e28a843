//! Places for the busts of one hand-for-hand hand, and what each is paid. Pure.
//!
//! Every bust in hand-for-hand hand k, at any table, happened at the same moment (000 §16.8
//! excludes hand-for-hand from "ranked by elimination time"). The group takes the places
//! `players_left_before - n + 1 ..= players_left_before` and is ranked by the tournament's
//! [`EliminationOrdering`] (`practice.md` §1.4):
//!
//! - across tables `by_stack` (PokerStars): more chips at the start of the hand finishes higher;
//!   `tie` (WSOP): busts at different tables share the group's places;
//! - equal stacks `split` (PokerStars): they share their places; `seat_order` (Natural8): the
//!   first seat left of the button finishes ahead.
//!
//! The announcement hand (hand 0) is different: TDA RP-8 A has everyone out in it share the
//! places, whatever their stacks ("3 bust on the announcement hand, all 3 share the 50th-place
//! payout").
//!
//! Ranking by stack and ties reuse [`floor_rules::standings`], the rule payouts applies to one
//! table's simultaneous busts, so both services rank alike.
//!
//! # Remainder rule
//!
//! Shared places split the sum of their prizes equally, rounded down to the minor unit; the
//! minor units left over go one each to the sharers in the remainder order: more chips at the
//! start of the hand first, then seat order, then entry number (as [`floor_rules::standings`]).
//! So the group is paid exactly the sum of its places' prizes, to the cent, and the split is the
//! same on every replay.

use floor_events::bubble::{EliminationOrdering, HandBust, Placed};
use floor_events::EntryNo;
use floor_rules::payout_table::PayoutTable;
use floor_rules::standings::{self, Bust, Ordering};

pub use floor_events::bubble::ANNOUNCEMENT_HAND;

/// Places for the busts of hand `hand` when `players_left_before` were in, best place first
/// (within a shared range, in the remainder order).
///
/// Returns `None` when there are more busts than players (the decider refuses that before).
pub fn rank(hand: u64, players_left_before: u32, busts: &[HandBust], o: EliminationOrdering) -> Option<Vec<Placed>> {
    let n = u32::try_from(busts.len()).ok()?;
    if n == 0 {
        return Some(vec![]);
    }
    players_left_before.checked_sub(n)?;
    let input: Vec<Bust> =
        busts.iter().map(|b| Bust { entry: b.entry, stack_at_start: b.stack_at_start, table: b.table, seat_order: b.seat_order }).collect();
    let finishes = if hand == ANNOUNCEMENT_HAND {
        standings::rank_together(players_left_before, input)
    } else {
        standings::rank(players_left_before, input, Ordering::from(o))
    };
    finishes
        .into_iter()
        .map(|f| busts.iter().find(|b| b.entry == f.entry).map(|&bust| Placed { bust, place: f.place, shared: f.shared }))
        .collect()
}

/// What each of one group's players is paid from `table`, in the order of `placed` (as
/// [`rank`] returns it). Checked: `None` if a sum would not fit (it cannot for a table that
/// sums to a pool within Floor's bounds).
pub fn award(table: &PayoutTable, placed: &[Placed]) -> Option<Vec<(EntryNo, u64)>> {
    let mut paid = Vec::with_capacity(placed.len());
    let mut i = 0;
    while i < placed.len() {
        let Placed { place, shared, .. } = placed[i];
        let end = i.checked_add(usize::try_from(shared.max(1)).ok()?)?.min(placed.len());
        let group = &placed[i..end];
        let mut total: u64 = 0;
        for p in place..place.checked_add(shared)? {
            total = total.checked_add(table.prize(p))?;
        }
        let sharers = u64::from(shared.max(1));
        let (each, odd) = (total / sharers, total % sharers);
        for (k, p) in group.iter().enumerate() {
            paid.push((p.bust.entry, each + u64::from((k as u64) < odd)));
        }
        i = end;
    }
    Some(paid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::bubble::{AcrossTables, EqualStacks};
    use floor_rules::payout_table::Band;
    use proptest::prelude::*;

    fn bust(entry: u32, table: u32, stack: u64, seat_order: u32) -> HandBust {
        HandBust { entry: EntryNo(entry), table, stack_at_start: stack, seat_order }
    }

    const STARS: EliminationOrdering = EliminationOrdering { across_tables: AcrossTables::ByStack, equal_stacks: EqualStacks::Split };
    const WSOP: EliminationOrdering = EliminationOrdering { across_tables: AcrossTables::Tie, equal_stacks: EqualStacks::Split };
    const NATURAL8: EliminationOrdering =
        EliminationOrdering { across_tables: AcrossTables::ByStack, equal_stacks: EqualStacks::SeatOrder };

    fn places(placed: &[Placed]) -> Vec<(u32, u32, u32)> {
        placed.iter().map(|p| (p.bust.entry.0, p.place, p.shared)).collect()
    }

    /// 18 paid, 20 left: places 19 and 20 are out of the money, 18 pays 1,000.01 and 17 1,200.
    fn table() -> PayoutTable {
        PayoutTable {
            bands: vec![
                Band { from: 1, to: 16, amount: 500_000 },
                Band { from: 17, to: 17, amount: 120_000 },
                Band { from: 18, to: 18, amount: 100_001 },
            ],
        }
    }

    #[test]
    fn pokerstars_ranks_two_tables_by_starting_stack() {
        let busts = [bust(1, 1, 3_000, 2), bust(2, 2, 5_000, 0)];
        assert_eq!(places(&rank(1, 19, &busts, STARS).unwrap()), vec![(2, 18, 1), (1, 19, 1)]);
    }

    #[test]
    fn wsop_ties_busts_at_different_tables_and_splits_to_the_cent() {
        let busts = [bust(1, 1, 3_000, 2), bust(2, 2, 5_000, 0), bust(3, 3, 5_000, 1)];
        let placed = rank(2, 20, &busts, WSOP).unwrap();
        // Remainder order: the bigger stacks first, then seat order.
        assert_eq!(places(&placed), vec![(2, 18, 3), (3, 18, 3), (1, 18, 3)]);
        let paid = award(&table(), &placed).unwrap();
        // 100,001 + 0 + 0 over three: 33,334 + 33,334 + 33,333.
        assert_eq!(paid, vec![(EntryNo(2), 33_334), (EntryNo(3), 33_334), (EntryNo(1), 33_333)]);
    }

    #[test]
    fn equal_stacks_split_or_go_by_seat() {
        let busts = [bust(1, 1, 4_000, 3), bust(2, 2, 4_000, 1), bust(3, 2, 9_000, 5)];
        assert_eq!(places(&rank(1, 20, &busts, STARS).unwrap()), vec![(3, 18, 1), (2, 19, 2), (1, 19, 2)]);
        assert_eq!(places(&rank(1, 20, &busts, NATURAL8).unwrap()), vec![(3, 18, 1), (2, 19, 1), (1, 20, 1)]);
    }

    #[test]
    fn everyone_out_on_the_announcement_hand_shares_whatever_the_rule() {
        // TDA RP-8 A: 50 paid, 52 left, three bust on the announcement hand: all three share
        // the 50th-place payout.
        let busts = [bust(7, 1, 100, 0), bust(8, 2, 90_000, 4), bust(9, 3, 2_000, 1)];
        for o in [STARS, WSOP, NATURAL8] {
            let placed = rank(ANNOUNCEMENT_HAND, 52, &busts, o).unwrap();
            assert_eq!(places(&placed), vec![(8, 50, 3), (9, 50, 3), (7, 50, 3)]);
        }
        let fifty = PayoutTable { bands: vec![Band { from: 1, to: 50, amount: 10_000 }] };
        let paid = award(&fifty, &rank(0, 52, &busts, STARS).unwrap()).unwrap();
        assert_eq!(paid, vec![(EntryNo(8), 3_334), (EntryNo(9), 3_333), (EntryNo(7), 3_333)], "a third of place 50 each, to the cent");
    }

    #[test]
    fn more_busts_than_players_is_no_ranking() {
        assert_eq!(rank(1, 1, &[bust(1, 1, 1, 0), bust(2, 2, 1, 0)], STARS), None);
        assert_eq!(rank(1, 0, &[], STARS), Some(vec![]));
    }

    fn any_ordering() -> impl Strategy<Value = EliminationOrdering> {
        prop_oneof![Just(STARS), Just(WSOP), Just(NATURAL8)]
    }

    proptest! {
        /// Whatever the busts and the rule: every place of the group is taken exactly once, and
        /// the group is paid exactly what its places pay, to the minor unit.
        #[test]
        fn a_group_takes_its_places_once_and_is_paid_exactly_their_prizes(
            stacks in prop::collection::vec((1u32..6, 1u64..5, 0u32..9), 1..12),
            hand in 0u64..3,
            left in 12u32..40,
            prizes in prop::collection::vec(0u64..1_000_000_007, 1..40),
            o in any_ordering(),
        ) {
            let busts: Vec<HandBust> = stacks.iter().enumerate().map(|(i, &(t, s, seat))| bust(i as u32 + 1, t, s * 1_000, seat)).collect();
            let mut sorted = prizes.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let table = PayoutTable { bands: sorted.iter().enumerate().map(|(i, &a)| Band { from: i as u32 + 1, to: i as u32 + 1, amount: a }).collect() };
            let placed = rank(hand, left, &busts, o).unwrap();
            let mut covered: Vec<u32> = placed.iter().flat_map(|p| p.place..p.place + p.shared).collect();
            covered.sort_unstable();
            covered.dedup();
            let n = busts.len() as u32;
            prop_assert_eq!(covered, (left - n + 1..=left).collect::<Vec<_>>());
            let paid: u64 = award(&table, &placed).unwrap().iter().map(|(_, a)| a).sum();
            let owed: u64 = (left - n + 1..=left).map(|p| table.prize(p)).sum();
            prop_assert_eq!(paid, owed);
        }
    }
}
