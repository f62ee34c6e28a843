//! Property tests: random tournaments, random bust sequences (multi-way busts included), every
//! seating decision checked against the rules it must keep.

use crate::balancing::{apply, apply_move, decide, final_table_size, owed, tables_needed, BalanceWhen, Mover, Reason, Rules};
use crate::draw::initial_seating;
use crate::room::Room;
use crate::table::Table;
use floor_events::EntryNo;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;

fn seed_from(n: u64) -> [u8; 32] {
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&n.to_le_bytes());
    seed
}

/// Replays `decision` on `before`, checking each move against the table as it was at that moment.
fn check_moves(before: &Room, decision: &crate::Decision, rules: &Rules) -> Result<Room, TestCaseError> {
    let mut replay = before.clone();
    for &(table, seats) in &decision.resized {
        replay.resize(table, seats);
    }
    for m in &decision.moves {
        let from = replay.table(m.from_table).expect("source table");
        let to = replay.table(m.to_table).expect("destination table");
        prop_assert_eq!(from.seats[m.from_seat].map(|o| o.entry), Some(m.entry), "the mover sits where the move says");
        prop_assert!(to.seats[m.to_seat].is_none(), "the destination seat is empty");
        prop_assert_eq!(m.wait_for_button, !to.may_seat(m.to_seat), "a seat between small blind and button waits for the button");
        if let Reason::Balance { from_count, to_count } = m.reason {
            prop_assert_eq!((from.count(), to.count()), (from_count, to_count), "the move carries the counts that justified it");
            if rules.mover == Mover::DueBigBlind {
                prop_assert_eq!(from.due_big_blind(), Some(m.from_seat), "the player due the big blind moves (TDA R11-A)");
                if let Some(&worst) = to.worst_seats().first() {
                    prop_assert_eq!(m.to_seat, worst, "to the worst position");
                    let mut after = to.clone();
                    after.seats[m.to_seat] = Some(crate::table::Occupant { entry: m.entry, moves: 0 });
                    if after.count() >= 3 {
                        prop_assert_ne!(
                            after.next_positions().map(|p| p.small_blind),
                            Some(m.to_seat),
                            "never the small blind (TDA R11-A)"
                        );
                    }
                }
            }
        }
        apply_move(&mut replay, m);
    }
    for &table in &decision.closed {
        replay.close(table);
    }
    Ok(replay)
}

fn seated(room: &Room) -> Vec<EntryNo> {
    let mut all: Vec<EntryNo> = room.tables().flat_map(|t| t.occupied().map(|(_, o)| o.entry)).collect();
    all.sort();
    all
}

/// Plays a whole tournament down to one player; checks every decision.
fn play(entrants: u32, table_size: usize, when: BalanceWhen, mover: Mover, seed: u64) -> Result<(), TestCaseError> {
    let rules = Rules { table_size, when, mover, shootout: false };
    let entries: Vec<EntryNo> = (1..=entrants).map(EntryNo).collect();
    let mut tables = Room::new(initial_seating(&entries, table_size, &seed_from(seed)));
    let mut alive: BTreeSet<EntryNo> = entries.into_iter().collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let allowed = if when == BalanceWhen::DifferenceAboveOne { 1 } else { 2 };
    let mut hand = 0u64;
    while alive.len() > 1 {
        hand += 1;
        // A hand at one table with at least two players: the button moves, some players bust.
        let playing: Vec<u32> = tables.tables().filter(|t| t.count() >= 2).map(|t| t.number).collect();
        prop_assert!(!playing.is_empty(), "someone can always play a hand");
        let number = playing[rng.random_range(0..playing.len())];
        let table = tables.table(number).expect("table");
        let button = table.next_positions().map(|p| p.button);
        let max_busts = (table.count() - 1).min(3);
        let busts = rng.random_range(0..=max_busts);
        let seats: Vec<usize> = table.occupied().map(|(s, _)| s).collect();
        tables.set_button(number, button);
        for &seat in seats.iter().take(busts) {
            let out = tables.vacate(number, seat).expect("occupied");
            alive.remove(&out.entry);
        }

        let before = tables.clone();
        let was_owed = owed(&tables, &rules);
        let decision = decide(&mut tables, &rules, &seed_from(seed.wrapping_add(hand)));
        prop_assert_eq!(was_owed, decision != crate::Decision::default(), "owed() says exactly when decide() has work");
        prop_assert!(!owed(&tables, &rules), "a decision leaves nothing owed");

        let replayed = check_moves(&before, &decision, &rules)?;
        prop_assert_eq!(&replayed, &tables, "replaying the decision gives the same tables");
        let mut again = before.clone();
        apply(&mut again, &decision);
        prop_assert_eq!(&again, &tables, "apply() replays a stored decision exactly");
        prop_assert_eq!(seated(&tables), alive.iter().copied().collect::<Vec<_>>(), "nobody lost, nobody seated twice");
        let players = alive.len();
        prop_assert_eq!(tables.len(), tables_needed(players, table_size), "as few tables as the players need");
        let counts: Vec<usize> = tables.tables().map(Table::count).collect();
        let (max, min) = (counts.iter().max().copied().unwrap_or(0), counts.iter().min().copied().unwrap_or(0));
        prop_assert!(max - min <= allowed, "table sizes {counts:?} differ by more than {allowed}");
        if tables.len() == 1 && players > table_size {
            let final_table = tables.tables().next().expect("final table");
            prop_assert_eq!(final_table.seats.len(), final_table_size(table_size), "RP-9 final table size");
        }
        prop_assert!(tables.tables().all(|t| t.count() <= t.seats.len()));
        prop_assert_eq!(tables.players(), players, "the room's count agrees");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn tda_balancing_holds_its_invariants_through_whole_tournaments(
        entrants in 2u32..400, table_size in 2usize..=10, seed in any::<u64>(),
    ) {
        play(entrants, table_size, BalanceWhen::DifferenceAboveOne, Mover::DueBigBlind, seed)?;
    }

    #[test]
    fn three_short_balancing_keeps_tables_within_two(
        entrants in 2u32..400, table_size in 6usize..=10, seed in any::<u64>(),
    ) {
        play(entrants, table_size, BalanceWhen::ThreeShort, Mover::DueBigBlind, seed)?;
    }

    #[test]
    fn pokerstars_style_balancing_holds_the_same_invariants(
        entrants in 2u32..400, table_size in 2usize..=10, seed in any::<u64>(),
    ) {
        play(entrants, table_size, BalanceWhen::DifferenceAboveOne, Mover::LeastMoved, seed)?;
    }
}

#[test]
fn a_field_of_five_thousand_plays_down_to_one_with_every_decision_checked() {
    play(5_000, 9, BalanceWhen::DifferenceAboveOne, Mover::DueBigBlind, 2026).unwrap();
}

#[test]
fn two_tables_of_five_combine_into_a_nine_handed_final_table() {
    // RP-9: 9-handed event, 10 players on two tables of 5; one bust leaves 9 → one table of 9.
    let rules = Rules { table_size: 9, when: BalanceWhen::DifferenceAboveOne, mover: Mover::DueBigBlind, shootout: false };
    let entries: Vec<EntryNo> = (1..=10).map(EntryNo).collect();
    let mut tables = Room::new(initial_seating(&entries, 9, &[3; 32]));
    assert_eq!(tables.tables().map(Table::count).collect::<Vec<_>>(), vec![5, 5]);
    let out = tables.table(1).unwrap().occupied().next().unwrap().0;
    tables.vacate(1, out);

    let decision = decide(&mut tables, &rules, &[4; 32]);

    assert_eq!(tables.len(), 1);
    let final_table = tables.tables().next().unwrap();
    assert_eq!((final_table.count(), final_table.seats.len()), (9, 9));
    assert!(decision.moves.iter().all(|m| matches!(m.reason, Reason::FinalTable { players_left: 9, seats: 9 })));
}

#[test]
fn six_max_combines_two_tables_of_four_into_a_seven_handed_final_table() {
    let rules = Rules { table_size: 6, when: BalanceWhen::DifferenceAboveOne, mover: Mover::DueBigBlind, shootout: false };
    let entries: Vec<EntryNo> = (1..=8).map(EntryNo).collect();
    let mut tables = Room::new(initial_seating(&entries, 6, &[5; 32]));
    let out = tables.table(2).unwrap().occupied().next().unwrap().0;
    tables.vacate(2, out);

    decide(&mut tables, &rules, &[6; 32]);

    let final_table = tables.tables().next().unwrap();
    assert_eq!((tables.len(), final_table.count(), final_table.seats.len()), (1, 7, 7));
}

#[test]
fn shootout_tables_are_never_balanced() {
    let rules = Rules { table_size: 9, when: BalanceWhen::DifferenceAboveOne, mover: Mover::DueBigBlind, shootout: true };
    let entries: Vec<EntryNo> = (1..=18).map(EntryNo).collect();
    let mut tables = Room::new(initial_seating(&entries, 9, &[9; 32]));
    for seat in tables.table(1).unwrap().occupied().map(|(s, _)| s).take(6).collect::<Vec<_>>() {
        tables.vacate(1, seat);
    }
    let before = tables.clone();

    let decision = decide(&mut tables, &rules, &[1; 32]);

    assert!(decision.moves.is_empty() && decision.closed.is_empty());
    assert_eq!(tables, before);
}
