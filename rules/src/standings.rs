//! Finishing places, including players eliminated in the same hand, and what each is paid.
//!
//! TDA 2024 has no rule for simultaneous eliminations (`practice.md` §1.4), so the profile picks:
//! - PokerStars: the player who started the hand with more chips finishes higher; equal
//!   starting stacks share the places and split their prizes; in hand-for-hand, busts in the same
//!   synchronised hand at different tables count as simultaneous and are ranked the same way;
//! - Natural8: equal starting stacks are ordered by seat, the first seat left of the button
//!   finishing ahead;
//! - WSOP: busts in the same hand at different tables tie and split (within a table, chips still
//!   order them). When a group spans several tables under this rule, the whole group shares.
//!
//! Shared places split the sum of their prizes equally; the minor units that do not divide go one
//! each to the group's members in order of starting stack, then seat order, then entry number
//! (the documented remainder rule), so every cent is paid and the split is reproducible.

use crate::payout_table::PayoutTable;
use floor_events::bubble::{self, EliminationOrdering};
use floor_events::table::SeatNo;
use floor_events::EntryNo;

/// How equal starting stacks are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EqualStacks {
    /// They share the places and split the prizes (PokerStars).
    Split,
    /// The earlier seat after the button finishes ahead (Natural8).
    SeatOrder,
}

/// How busts of the same hand-for-hand hand at different tables are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcrossTables {
    /// By starting stack, as if at one table (PokerStars).
    ByStack,
    /// They tie and split (WSOP).
    Tie,
}

/// The profile's ordering of simultaneous eliminations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ordering {
    /// Equal stacks.
    pub equal_stacks: EqualStacks,
    /// Different tables, same hand-for-hand hand.
    pub across_tables: AcrossTables,
}

/// A tournament's setting (the contract's words) as the ranking reads it: the bubble and payouts
/// rank the same hand the same way.
impl From<EliminationOrdering> for Ordering {
    fn from(o: EliminationOrdering) -> Self {
        Ordering {
            equal_stacks: match o.equal_stacks {
                bubble::EqualStacks::Split => EqualStacks::Split,
                bubble::EqualStacks::SeatOrder => EqualStacks::SeatOrder,
            },
            across_tables: match o.across_tables {
                bubble::AcrossTables::ByStack => AcrossTables::ByStack,
                bubble::AcrossTables::Tie => AcrossTables::Tie,
            },
        }
    }
}

/// A player out in this hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bust {
    /// The entry.
    pub entry: EntryNo,
    /// Chips at the start of the hand.
    pub stack_at_start: u64,
    /// The table.
    pub table: u32,
    /// Seat order for the hand: 0 for the first seat left of the button, and so on.
    pub seat_order: u32,
}

/// Seat order for a hand: 0 for the first seat left of the button, the button last (the
/// numbers keep the order round the table; only their order means anything).
pub fn seat_order(seat: SeatNo, button: SeatNo) -> u32 {
    match seat.0.wrapping_sub(button.0) {
        0 => u32::from(u8::MAX),
        d => u32::from(d) - 1,
    }
}

/// Where a player finished: places `place ..= place + shared - 1`, shared with the others in
/// the same range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finish {
    /// The entry.
    pub entry: EntryNo,
    /// Best place of the range (1 = winner).
    pub place: u32,
    /// How many share the range (1 = alone).
    pub shared: u32,
}

/// Places for a group that shares every one of its places whatever the stacks: the busts of the
/// hand in which hand-for-hand was announced (TDA RP-8 A: "3 bust on the announcement hand, all
/// 3 share the 50th-place payout"), in the remainder order.
pub fn rank_together(remaining_before: u32, mut busts: Vec<Bust>) -> Vec<Finish> {
    let n = busts.len() as u32;
    let best = remaining_before + 1 - n;
    busts.sort_by(remainder_order);
    busts.iter().map(|b| Finish { entry: b.entry, place: best, shared: n }).collect()
}

/// Places for a group of players eliminated together when `remaining_before` players were left
/// (so the group takes places `remaining_before - n + 1 ..= remaining_before`).
pub fn rank(remaining_before: u32, mut busts: Vec<Bust>, ordering: Ordering) -> Vec<Finish> {
    let n = busts.len() as u32;
    let best = remaining_before + 1 - n;
    let tables = {
        let mut t: Vec<u32> = busts.iter().map(|b| b.table).collect();
        t.sort_unstable();
        t.dedup();
        t.len()
    };
    if ordering.across_tables == AcrossTables::Tie && tables > 1 {
        return rank_together(remaining_before, busts);
    }
    busts.sort_by(|a, b| match ordering.equal_stacks {
        EqualStacks::Split => b.stack_at_start.cmp(&a.stack_at_start).then_with(|| remainder_order(a, b)),
        EqualStacks::SeatOrder => b.stack_at_start.cmp(&a.stack_at_start).then(a.seat_order.cmp(&b.seat_order)),
    });
    let mut finishes = Vec::with_capacity(busts.len());
    let mut i = 0;
    while i < busts.len() {
        let mut j = i + 1;
        if ordering.equal_stacks == EqualStacks::Split {
            while j < busts.len() && busts[j].stack_at_start == busts[i].stack_at_start {
                j += 1;
            }
        }
        let shared = (j - i) as u32;
        finishes.extend(busts[i..j].iter().map(|b| Finish { entry: b.entry, place: best + i as u32, shared }));
        i = j;
    }
    finishes
}

/// Who gets the odd minor units of a split first: more chips, then earlier seat, then entry.
fn remainder_order(a: &Bust, b: &Bust) -> std::cmp::Ordering {
    b.stack_at_start.cmp(&a.stack_at_start).then(a.seat_order.cmp(&b.seat_order)).then(a.entry.cmp(&b.entry))
}

/// What each finisher of one group is paid. `finishes` must be in the order [`rank`] returns
/// them (the remainder order within each shared range).
pub fn award(table: &PayoutTable, finishes: &[Finish]) -> Vec<(EntryNo, u64)> {
    let mut paid = Vec::with_capacity(finishes.len());
    let mut i = 0;
    while i < finishes.len() {
        let Finish { place, shared, .. } = finishes[i];
        let group = &finishes[i..(i + shared as usize).min(finishes.len())];
        let total: u64 = (place..place + shared).map(|p| table.prize(p)).sum();
        let (each, odd) = (total / u64::from(shared), total % u64::from(shared));
        for (k, f) in group.iter().enumerate() {
            paid.push((f.entry, each + u64::from((k as u64) < odd)));
        }
        i += group.len();
    }
    paid
}
