//! Tests: late registrations and re-entries (TDA 2024 R8-A: "Sold full stacks. They draw table
//! and seat from the same seat pool, by the same process, as new players at that time").

use super::*;
use floor_events::profile::SeatingRules;

fn run(state: &mut SeatingState, command: SeatingCommand) -> Vec<SeatingEvent> {
    let events = SeatingAggregate::handle_command(state, command).expect("accepted");
    for event in events.clone() {
        *state = SeatingAggregate::apply_event(std::mem::take(state), event);
    }
    events
}

fn player(e: u32) -> PlayerId {
    PlayerId::parse(&format!("p{e}")).unwrap()
}

/// `entrants` players drawn onto 9-handed tables, under `balancing`.
fn drawn(balancing: SeatingRules, entrants: u32) -> SeatingState {
    let mut state = SeatingState::default();
    let tournament_id = TournamentId(uuid::Uuid::from_u128(38));
    run(&mut state, SeatingCommand::Configure { tournament_id, table_size: 9, starting_stack: 25_000, rebuys: false, balancing });
    for e in 1..=entrants {
        run(&mut state, SeatingCommand::Join { entry: EntryNo(e), player: player(e), seed: [0; 32] });
    }
    run(&mut state, SeatingCommand::Start { seed: [9; 32], at: DateTime::<Utc>::from_timestamp(1_800_000_000, 0).unwrap() });
    state
}

/// Given a tournament in play with tables of 9 and 8, when a late entry joins with a seed, then
/// it is sold the full starting stack (the seat instruction carries 25,000 chips), takes the
/// open seat the published procedure draws from that seed at the table balancing allows (the
/// table of 8), and the seed is revealed in `entry_seated` so the seat can be recomputed.
#[test]
fn tda_r8_a_a_late_entry_gets_the_full_starting_stack_and_a_drawn_seat() {
    let mut state = drawn(SeatingRules::WITHIN_ONE, 17);
    let counts: Vec<usize> = state.room.tables().map(Table::count).collect();
    assert_eq!(counts, vec![9, 8]);
    let room = state.room.clone();
    let seed = [42; 32];
    let events = run(&mut state, SeatingCommand::Join { entry: EntryNo(18), player: player(18), seed });
    assert!(events.contains(&SeatingEvent::EntryJoined { entry: EntryNo(18), player: player(18), stack: 25_000 }));
    let (table, seat) = crate::draw::late_seat(&room, 1, &seed).expect("an open seat");
    assert_eq!(table, 2, "the table of 8: balancing allows no tenth player at the table of 9");
    let seated = events.iter().find_map(|e| match e {
        SeatingEvent::EntrySeated { entry, table, seat, seed, .. } => Some((*entry, *table, *seat, seed.clone())),
        _ => None,
    });
    assert_eq!(seated, Some((EntryNo(18), table, seat_no(seat), Some(hex(&seed)))));
    let stack = events.iter().find_map(|e| match e {
        SeatingEvent::Instructed { instruction } => match &instruction.instruction {
            Instruction::SeatPlayer { entry: EntryNo(18), stack, .. } => Some(*stack),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(stack, Some(25_000), "the full starting stack, as any new player's");
}

/// Different seeds seat late entries at different open seats: not always the worst seat of the
/// shortest table, as Floor did before (issue 38).
#[test]
fn late_entries_seeded_differently_take_different_seats() {
    let state = drawn(SeatingRules::WITHIN_ONE, 12);
    let seats: BTreeSet<(u32, SeatNo)> = (0..32u8)
        .flat_map(|n| {
            SeatingAggregate::handle_command(&state, SeatingCommand::Join { entry: EntryNo(18), player: player(18), seed: [n; 32] })
        })
        .flatten()
        .filter_map(|e| if let SeatingEvent::EntrySeated { table, seat, .. } = e { Some((table, seat)) } else { None })
        .collect();
    assert!(seats.len() > 1, "{seats:?}");
    assert!(seats.iter().all(|&(table, _)| table == 1 || table == 2), "two tables of 6: {seats:?}");
}
