//! Random draws that decide seats, seeded and auditable.
//!
//! A draw's seed is committed before the draw (its SHA-256 published in an event) and revealed
//! after, so anyone can recompute the draw and check the seed was not chosen to fit the result.
//! The generator is ChaCha20 (`rand_chacha`): the same seed gives the same draw on every
//! platform and every version of this code that keeps the algorithm below.

use crate::table::{Occupant, Seat, Table};
use floor_events::EntryNo;
use rand::seq::SliceRandom;
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
}
