//! Hand-for-hand played through a whole tournament: the bubble's releases as seating's policy
//! sends them, against simulated tables that obey the hold (issue 20, "balancing between
//! hand-for-hand hands").

use super::*;
use std::collections::BTreeSet;

/// Tables holding a released `deal_hand` they have not dealt yet.
fn owing(state: &SeatingState) -> BTreeSet<u32> {
    state.held.iter().filter(|(_, held)| held.credits > 0).map(|(&table, _)| table).collect()
}

/// Nothing in play, every release dealt, every move confirmed: the bubble may release the next
/// hand.
fn settled(state: &SeatingState) -> bool {
    state.play.in_play.is_empty() && owing(state).is_empty() && state.leaving.is_empty()
}

/// Hand-for-hand from the first hand to the winner: once the room is settled, every open table
/// is told `deal_hand {k}`. No decision moves a player from or to a table that holds a released
/// hand it has not dealt, or closes one (the table would deal that hand with players who left,
/// or after its close, and the bubble would not count it); every table told deals hand k
/// exactly once; the decisions that waited are taken by the end of the hand, and one player
/// wins.
fn plays_hand_for_hand_to_the_end(entrants: u32, table_size: u8, run_seed: u64) -> Result<(), TestCaseError> {
    let (tournament_id, mut floor, mut room) = drawn(entrants, table_size, run_seed, false);
    let hold = floor.run(C::HandForHand { instruction: Instruction::HoldForDeal, tables: vec![] });
    room.deliver(&hold);
    let mut hand = 0u64;
    let mut released: BTreeSet<u32> = BTreeSet::new();
    let mut dealt: BTreeMap<u32, u32> = BTreeMap::new();
    let mut decisions = 0u64;
    for _ in 0..2_000_000u64 {
        if floor.state.winner.is_some() {
            break;
        }
        if settled(&floor.state) {
            for table in &released {
                prop_assert_eq!(dealt.get(table).copied().unwrap_or(0), 1, "table {} deals hand {} once", table, hand);
            }
            // Before the first release nothing has waited: a draw of 9 at 8-max seats two
            // tables, which the first finished hand combines into a nine-handed final table.
            prop_assert!(
                hand == 0 || !crate::balancing::owed(&floor.state.room, &floor.state.rules()),
                "nothing waits once hand {hand} is over"
            );
            hand += 1;
            released = floor.state.room.tables().map(|t| t.number).collect();
            dealt.clear();
            let release =
                floor.run(C::HandForHand { instruction: Instruction::DealHand { hand }, tables: released.iter().copied().collect() });
            room.deliver(&release);
        }
        let open: Vec<u32> = room.tables.iter().filter(|(_, t)| !t.closed).map(|(&n, _)| n).collect();
        prop_assert!(!open.is_empty(), "tables left while no winner");
        let number = *open.choose(&mut room.rng).expect("a table");
        // A table server reads every instruction that has arrived before it deals (the hold
        // reaches it between two hands at the latest), unlike `Room::step`'s tables, which
        // may deal several hands on instructions still on the wire.
        let table = room.tables.get_mut(&number).expect("table");
        let mut reports = Vec::new();
        if !table.finish_hand(tournament_id, number, &mut room.rng, &mut reports) {
            table.apply(tournament_id, number, usize::MAX, &mut reports);
            table.start_hand(tournament_id, number, &mut reports);
        }
        for report in reports {
            decisions += 1;
            let before = owing(&floor.state);
            let events = floor.run(C::Report { report: report.clone(), seed: seed(decisions) });
            let won = events.iter().any(|e| matches!(e, SeatingEvent::TournamentWon { .. }));
            for e in &events {
                match e {
                    SeatingEvent::ReportRejected { code, reason, .. } => {
                        return Err(TestCaseError::fail(format!("a well-behaved table was rejected: {code}: {reason}\n{report:?}")));
                    }
                    SeatingEvent::PlayerMoved { from_table, to_table, .. } => {
                        prop_assert!(!before.contains(from_table) && !before.contains(to_table), "{e:?} while {before:?} owe hand {hand}");
                    }
                    SeatingEvent::TableClosed { table } if !won => {
                        prop_assert!(!before.contains(table), "table {table} closed while it owes hand {hand}");
                    }
                    SeatingEvent::HandStarted { table, crossing: false, .. } if released.contains(table) => {
                        *dealt.entry(*table).or_default() += 1;
                    }
                    _ => {}
                }
            }
            room.deliver(&events);
        }
    }
    prop_assert!(floor.state.winner.is_some(), "the tournament ends");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn hand_for_hand_never_moves_a_player_from_or_to_a_table_that_owes_a_released_hand(
        entrants in 4u32..120, table_size in 3u8..=9, run_seed in any::<u64>(),
    ) {
        plays_hand_for_hand_to_the_end(entrants, table_size, run_seed)?;
    }
}
