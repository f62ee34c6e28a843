//! Random draws that decide seats, seeded and auditable.
//!
//! A draw's seed is committed before the draw (its SHA-256 published in an event) and revealed
//! after, so anyone can recompute the draw and check the seed was not chosen to fit the result.
//! The generator is ChaCha20 (`rand_chacha`): the same seed gives the same draw on every
//! platform and every version of this code that keeps the algorithm below.

use crate::room::Room;
use crate::table::{Occupant, Seat, Table};
use floor_events::EntryNo;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

/// A draw's seed: 32 bytes.
pub type Seed = [u8; 32];

/// The commitment published before a draw: SHA-256 of the seed.
pub fn commitment(seed: &Seed) -> [u8; 32] {
    Sha256::digest(seed).into()
}

/// The generator for a seed.
pub fn rng(seed: &Seed) -> ChaCha20Rng {
    ChaCha20Rng::from_seed(*seed)
}

/// The start-of-tournament seat draw (TDA R7): as few tables as needed, filled as evenly as
/// possible (sizes differ by at most one), every entry at a random seat.
///
/// Procedure (the audit recomputes exactly this): shuffle the entries; deal them round-robin to
/// tables 1..=T; at each table shuffle the seat indices and give the k-th entry dealt there the
/// k-th seat.
pub fn initial_seating(entries: &[EntryNo], table_size: usize, seed: &Seed) -> Vec<Table> {
    let mut rng = rng(seed);
    let tables = entries.len().div_ceil(table_size).max(1);
    let mut order = entries.to_vec();
    order.shuffle(&mut rng);
    let mut dealt: Vec<Vec<EntryNo>> = vec![Vec::new(); tables];
    for (i, entry) in order.into_iter().enumerate() {
        dealt[i % tables].push(entry);
    }
    dealt
        .into_iter()
        .enumerate()
        .map(|(i, entries)| {
            let mut table = Table::new(i as u32 + 1, table_size);
            let mut seats: Vec<Seat> = (0..table_size).collect();
            seats.shuffle(&mut rng);
            for (entry, seat) in entries.into_iter().zip(seats) {
                table.seats[seat] = Some(Occupant { entry, moves: 0 });
            }
            table
        })
        .collect()
}

/// A late registration's or re-entry's seat (TDA 2024 R8-A: they "draw table and seat from the
/// same seat pool, by the same process, as new players at that time"): a random open seat at
/// one of the tables the balancing rule lets take one more player, `allowed` being the
/// difference in players it lets stand (`balancing::allowed`): within one, the shortest tables
/// only; under "three short", also those one above them. `None` when every table is full (a new
/// table opens).
///
/// Procedure (the audit recomputes exactly this, from the seed `entry_seated` reveals): the
/// tables with at most `fewest + allowed - 1` players and an empty seat, by number; their
/// empty seats, table by table, seat by seat; one chosen by ChaCha20 seeded with `seed`
/// (`IndexedRandom::choose`). A seat between the small blind and the button is drawn like any
/// other; the player waits for the button there (R8-A: "dealt in except between the small blind
/// and the button").
pub fn late_seat(room: &Room, allowed: usize, seed: &Seed) -> Option<(u32, Seat)> {
    let fewest = room.table(room.shortest()?)?.count();
    let open: Vec<(u32, Seat)> = room
        .with_at_most(fewest + allowed.max(1) - 1)
        .into_iter()
        .filter_map(|n| room.table(n))
        .flat_map(|t| (0..t.seats.len()).filter(|&s| t.seats[s].is_none()).map(move |s| (t.number, s)))
        .collect();
    open.choose(&mut rng(seed)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_draw_and_another_seed_another() {
        let entries: Vec<EntryNo> = (1..=100).map(EntryNo).collect();
        let a = initial_seating(&entries, 9, &[7; 32]);
        assert_eq!(a, initial_seating(&entries, 9, &[7; 32]));
        assert_ne!(a, initial_seating(&entries, 9, &[8; 32]));
    }

    #[test]
    fn tables_are_as_few_and_as_even_as_possible() {
        let entries: Vec<EntryNo> = (1..=100).map(EntryNo).collect();
        let tables = initial_seating(&entries, 9, &[1; 32]);
        assert_eq!(tables.len(), 12);
        let counts: Vec<usize> = tables.iter().map(Table::count).collect();
        assert!(counts.iter().all(|&c| c == 8 || c == 9), "{counts:?}");
        assert_eq!(counts.iter().sum::<usize>(), 100);
    }

    #[test]
    fn the_commitment_is_sha256_of_the_seed() {
        // SHA-256 of 32 zero bytes.
        let hex: String = commitment(&[0; 32]).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
    }

    /// TDA 2024 R8-A: a late entry draws "from the same seat pool, by the same process, as new
    /// players". Given tables of 9, 8 and 8 (9-handed), when late entries are seated within
    /// one, then each takes a random empty seat at table 2 or 3 (never the full table, never
    /// always the same seat), the seed deciding; under "three short" (tables of 9, 7 and 8),
    /// the tables of 7 and 8 both draw; every table full: none (a new table opens).
    #[test]
    fn tda_r8_a_a_late_entry_draws_a_random_open_seat_at_a_table_balancing_allows() {
        let room = |counts: &[usize]| {
            Room::new(counts.iter().enumerate().map(|(i, &n)| {
                let mut t = Table::new(i as u32 + 1, 9);
                for s in 0..n {
                    t.seats[s] = Some(Occupant { entry: EntryNo(i as u32 * 10 + s as u32), moves: 0 });
                }
                t
            }))
        };
        let within_one = room(&[9, 8, 8]);
        let drawn: std::collections::BTreeSet<(u32, Seat)> = (0..64u8).filter_map(|n| late_seat(&within_one, 1, &[n; 32])).collect();
        assert_eq!(drawn, [(2, 8), (3, 8)].into(), "the open seats of the shortest tables, each drawn by some seed");
        assert_eq!(late_seat(&within_one, 1, &[5; 32]), late_seat(&within_one, 1, &[5; 32]), "the seed decides");
        let three_short = room(&[9, 7, 8]);
        let tables: std::collections::BTreeSet<u32> =
            (0..64u8).filter_map(|n| late_seat(&three_short, 2, &[n; 32])).map(|(t, _)| t).collect();
        assert_eq!(tables, [2, 3].into());
        let spread = room(&[3, 3]);
        let seats: std::collections::BTreeSet<(u32, Seat)> = (0..64u8).filter_map(|n| late_seat(&spread, 1, &[n; 32])).collect();
        assert!(seats.len() > 6, "any open seat, not the worst one: {seats:?}");
        assert_eq!(late_seat(&room(&[9, 9]), 1, &[0; 32]), None, "every table full: a new table");
    }
}
