//! The chip leaders (issue 39): the biggest stacks at the open tables, from the seat map, for
//! the players' lobby (`GET /api/tournaments/{id}/leaders`, the tables page).

use crate::seat_map::{Occupant, TableDoc};
use floor_events::{EntryNo, PlayerId};
use serde::Serialize;

/// One of the chip leaders (issue 39): an entry seated at an open table with its chips after its
/// table's last hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Leader {
    /// From 1; equal stacks share the better rank (1, 2, 2, 4).
    pub rank: u32,
    /// The entry.
    pub entry: EntryNo,
    /// Whose (absent only when seating never said).
    pub player: Option<PlayerId>,
    /// Chips after its table's last hand.
    pub chips: u64,
    /// Where it sits.
    pub table: u32,
    /// Its seat.
    pub seat: u8,
}

/// The `n` biggest stacks at the open tables, biggest first, equal stacks by entry number:
/// a partial selection, so a field of 250,000 is not sorted whole for ten names.
pub fn leaders<'a>(tables: impl IntoIterator<Item = &'a TableDoc>, n: usize) -> Vec<Leader> {
    let mut all: Vec<(&Occupant, u32)> = tables.into_iter().flat_map(|t| t.seats.iter().map(move |o| (o, t.table))).collect();
    let order = |a: &(&Occupant, u32), b: &(&Occupant, u32)| b.0.chips.cmp(&a.0.chips).then(a.0.entry.cmp(&b.0.entry));
    if n == 0 {
        return vec![];
    }
    if all.len() > n {
        all.select_nth_unstable_by(n - 1, order);
        all.truncate(n);
    }
    all.sort_unstable_by(order);
    let mut leaders: Vec<Leader> = Vec::with_capacity(all.len());
    for (i, (o, table)) in all.into_iter().enumerate() {
        let rank = match leaders.last() {
            Some(last) if last.chips == o.chips => last.rank,
            _ => i as u32 + 1,
        };
        leaders.push(Leader { rank, entry: o.entry, player: o.player.clone(), chips: o.chips, table, seat: o.seat });
    }
    leaders
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seat_map::test_table;

    /// Biggest first; equal stacks by entry number, sharing the better rank; at most `n`; every
    /// table's seats; nothing asked, nothing given.
    #[test]
    fn the_biggest_stacks_first_equal_ones_by_entry_sharing_a_rank() {
        let tables = [
            test_table(1, &[(1, 4, "dan", 9_000), (2, 2, "bea", 30_000), (3, 7, "gus", 12_000)]),
            test_table(2, &[(1, 3, "cy", 12_000), (4, 1, "al", 500), (5, 9, "ivy", 41_000)]),
        ];
        let top: Vec<(u32, u32, u64, u32, u8)> =
            leaders(&tables, 4).into_iter().map(|l| (l.rank, l.entry.0, l.chips, l.table, l.seat)).collect();
        assert_eq!(top, vec![(1, 9, 41_000, 2, 5), (2, 2, 30_000, 1, 2), (3, 3, 12_000, 2, 1), (3, 7, 12_000, 1, 3)]);
        assert_eq!(leaders(&tables, 100).len(), 6, "everyone, when fewer than asked");
        assert_eq!(leaders(&tables, 100).last().map(|l| l.entry.0), Some(1));
        assert!(leaders(&tables, 0).is_empty());
        assert_eq!(leaders(&tables, 1)[0].player.as_ref().map(|p| p.as_str()), Some("ivy"));
    }
}
