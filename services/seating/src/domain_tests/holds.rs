//! Tables stopped by another service (`domain/holds.rs`): a suspension's pause and resume over
//! hand-for-hand's hold, a cancellation's close, and every command that tells all tables
//! stored in parts.

use super::*;

/// A suspension pauses every table; hand-for-hand going on meanwhile keeps the pause (its
/// `resume` is followed by the `pause` again); resuming play holds a held table again and
/// sends it the `deal_hand`s it has not dealt.
#[test]
fn a_suspension_pauses_every_table_and_its_resume_keeps_hand_for_hand_s_hold() {
    let (_, mut floor, _) = six_at_two_tables(22);
    let told = |events: &[SeatingEvent]| -> Vec<(u32, Instruction)> {
        events
            .iter()
            .filter_map(|e| {
                if let SeatingEvent::Instructed { instruction } = e {
                    Some((instruction.table, instruction.instruction.clone()))
                } else {
                    None
                }
            })
            .collect()
    };
    let tables: Vec<u32> = floor.state.room.tables().map(|t| t.number).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let (one, two) = (tables[0], tables[1]);
    let pause = Instruction::Pause { reason: "tournament suspended: power cut".into() };

    let paused = floor.run(C::Suspend { reason: "tournament suspended: power cut".into() });
    assert_eq!(told(&paused), vec![(one, pause.clone()), (two, pause.clone())]);
    assert!(floor.run(C::Suspend { reason: "again".into() }).is_empty(), "suspended already");

    // Hand-for-hand starts and releases hand 1 to table one while suspended.
    floor.run(C::HandForHand { instruction: Instruction::HoldForDeal, tables: vec![] });
    floor.run(C::HandForHand { instruction: Instruction::DealHand { hand: 1 }, tables: vec![one] });
    let resumed = floor.run(C::ResumePlay);
    assert_eq!(
        told(&resumed),
        vec![
            (one, Instruction::Resume),
            (one, Instruction::HoldForDeal),
            (one, Instruction::DealHand { hand: 1 }),
            (two, Instruction::Resume),
            (two, Instruction::HoldForDeal),
        ],
        "held again, with the deal_hand it has not dealt"
    );
    assert!(floor.state.paused.is_empty() && floor.state.suspended.is_none());
    assert_eq!(floor.state.held[&one].credits, 1);

    // Suspended again; hand-for-hand ends meanwhile: its resume is followed by the pause.
    floor.run(C::Suspend { reason: "tournament suspended: power cut".into() });
    let ended = floor.run(C::HandForHand { instruction: Instruction::Resume, tables: vec![] });
    assert_eq!(told(&ended), vec![(one, Instruction::Resume), (one, pause.clone()), (two, Instruction::Resume), (two, pause)]);
    assert!(floor.state.held.is_empty());
    assert_eq!(floor.state.paused.len(), 2, "still suspended");
    let resumed = floor.run(C::ResumePlay);
    assert_eq!(told(&resumed), vec![(one, Instruction::Resume), (two, Instruction::Resume)]);

    // A late entry while suspended: the table opened for it is paused too.
    floor.run(C::Suspend { reason: "tournament suspended: power cut".into() });
    let late = floor.run(C::Join { entry: EntryNo(7), player: PlayerId::parse("p7").unwrap(), seed: [0; 32] });
    let opened: Vec<u32> = told(&late).iter().filter(|(_, i)| matches!(i, Instruction::OpenTable { .. })).map(|(t, _)| *t).collect();
    for table in &opened {
        assert!(told(&late).contains(&(*table, Instruction::Pause { reason: "tournament suspended: power cut".into() })), "{late:?}");
    }
    assert!(!opened.is_empty() && opened.iter().all(|t| floor.state.paused.contains(t)), "{late:?}");

    // Cancelled: every table is closed, once; a report after it is refused.
    let open: std::collections::BTreeSet<u32> = floor.state.room.tables().map(|t| t.number).collect();
    let closed = floor.run(C::CloseTables);
    assert_eq!(told(&closed), open.into_iter().map(|t| (t, Instruction::CloseTable)).collect::<Vec<_>>());
    assert!(floor.state.room.tables().next().is_none() && floor.state.paused.is_empty());
    assert!(floor.run(C::CloseTables).is_empty(), "closed already");
}

/// Found cancelling 250,000 entrants: a command that tells every table something (blinds, a
/// suspension, its resume, a cancellation's close) was one commit of 5.7 MB at 27,778 tables,
/// past NATS' 1 MiB, and seating could never store it. Now each is stored in parts of at most
/// [`TABLES_PER_COMMIT`] tables, each part one message, and the parts together tell every table
/// exactly once; a part after the last stores nothing.
#[test]
fn commands_to_every_table_are_stored_in_parts_each_within_one_message() {
    use std::collections::BTreeSet;
    let (_, mut floor, _) = drawn(15_000, 6, 5, false);
    let tables: BTreeSet<u32> = floor.state.room.tables().map(|t| t.number).collect();
    assert_eq!(tables.len(), 2_500);
    let in_parts = |floor: &mut Floor, command: C| -> (usize, Vec<u32>) {
        let (mut parts, mut told) = (0, Vec::new());
        loop {
            let stored = floor.run(command.clone());
            if stored.is_empty() {
                return (parts, told);
            }
            parts += 1;
            let bytes = serde_json::to_vec(&stored).expect("encodes").len();
            assert!(bytes < 1_000_000, "part {parts} of {command:?}: {bytes} bytes");
            told.extend(stored.iter().filter_map(|e| match e {
                SeatingEvent::Instructed { instruction } => Some(instruction.table),
                _ => None,
            }));
        }
    };
    let every_table_once = |told: Vec<u32>| {
        let once: BTreeSet<u32> = told.iter().copied().collect();
        told.len() == tables.len() && once == tables
    };
    let blinds = C::Blinds { level: 2, small_blind: 100, big_blind: 200, ante: 25, big_blind_ante: false };
    let (parts, told) = in_parts(&mut floor, blinds.clone());
    assert!(parts == 3 && every_table_once(told), "blinds: {parts} parts");
    assert!(matches!(floor.state.blinds, Some(Instruction::Blinds { level: 2, .. })));
    assert!(floor.run(blinds).is_empty(), "told already");
    let (parts, told) = in_parts(&mut floor, C::Suspend { reason: "tournament suspended: power cut".into() });
    assert!(parts == 3 && every_table_once(told) && floor.state.paused.len() == 2_500, "suspend: {parts} parts");
    let (parts, told) = in_parts(&mut floor, C::ResumePlay);
    assert!(parts == 3 && every_table_once(told) && floor.state.paused.is_empty(), "resume: {parts} parts");
    let (parts, told) = in_parts(&mut floor, C::CloseTables);
    assert!(parts == 3 && every_table_once(told) && floor.state.room.tables().next().is_none(), "close: {parts} parts");
}

/// Issue 36 (000 §16.7): a satellite stopped with its survivors sharing the seats. The policy
/// sends `CloseTables` (registration's `tournament_finished` with `shared_by`): every open table
/// is closed, `close_table` numbered in its own sequence; after it a hand still in play counts
/// for nothing (its finish is refused, `tournament_finished`, and nobody is eliminated), no
/// hand starts, and the command again stores nothing.
#[test]
fn a_satellite_s_shared_finish_closes_every_table_and_refuses_the_hands_after_it() {
    use floor_events::table::{BustReport, PotWon};
    let (tournament_id, mut floor, mut room) = six_at_two_tables(23);
    let tables: Vec<u32> = room.tables.keys().copied().collect();
    let (one, two) = (tables[0], tables[1]);
    // Given table one dealing a hand and table two between hands.
    let mut reports = Vec::new();
    for table in [one, two] {
        room.tables.get_mut(&table).unwrap().apply(tournament_id, table, usize::MAX, &mut reports);
    }
    assert!(room.tables.get_mut(&one).unwrap().start_hand(tournament_id, one, &mut reports));
    for r in reports.drain(..) {
        let events = floor.run(C::Report { report: r, seed: seed(1) });
        assert!(!events.iter().any(|e| matches!(e, SeatingEvent::ReportRejected { .. })), "{events:?}");
    }
    let dealt = room.tables[&one].in_hand.clone().expect("a hand in play");
    let sequences = floor.state.sequences.clone();

    // When the satellite stops with all six left sharing the seats.
    let closed = floor.run(C::CloseTables);

    // Then each table is closed and told so, next in its own sequence.
    let told: Vec<(u32, u64, Instruction)> = closed
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Instructed { instruction } => Some((instruction.table, instruction.sequence, instruction.instruction.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(told, vec![(one, sequences[&one] + 1, Instruction::CloseTable), (two, sequences[&two] + 1, Instruction::CloseTable)]);
    let table_closed: Vec<u32> =
        closed.iter().filter_map(|e| if let SeatingEvent::TableClosed { table } = e { Some(*table) } else { None }).collect();
    assert_eq!(table_closed, vec![one, two]);
    assert!(floor.state.over() && floor.state.room.is_empty() && floor.state.entries.len() == 6);
    assert!(floor.run(C::CloseTables).is_empty(), "closed already");

    // And the hand in play finishing with a bust is refused: nobody who shares the end is out.
    let (busted, winner) = (dealt[0], dealt[1]);
    let mut stacks: Vec<SeatStack> = dealt[1..].to_vec();
    stacks[0].chips += busted.chips;
    let bust = BustReport {
        entry: busted.entry,
        stack_at_start: busted.chips,
        pots: vec![PotWon { winners: vec![winner.entry], chips: busted.chips }],
        best_high_hand: None,
    };
    let hand = room.tables[&one].hand;
    let finish = TableReport {
        tournament_id,
        table: one,
        report_id: "late-finish".into(),
        report: Report::HandFinished { hand, stacks, busts: vec![bust] },
    };
    let events = floor.run(C::Report { report: finish, seed: seed(2) });
    assert!(matches!(&events[..], [SeatingEvent::ReportRejected { code, .. }] if code == codes::TOURNAMENT_FINISHED), "{events:?}");
    assert!(floor.state.entries.contains_key(&busted.entry) && floor.state.winner.is_none());
    // And so is a hand started after the end.
    let start = TableReport {
        tournament_id,
        table: two,
        report_id: "late-start".into(),
        report: Report::HandStarted { hand: 1, button: SeatNo(1), stacks: vec![], deal_hand: None },
    };
    let events = floor.run(C::Report { report: start, seed: seed(3) });
    assert!(matches!(&events[..], [SeatingEvent::ReportRejected { code, .. }] if code == codes::TOURNAMENT_FINISHED), "{events:?}");
}

/// After a shared finish a source table may still confirm a move decided before it: the player
/// is let go (`move_confirmed`), and no closed table is told to seat them.
#[test]
fn a_move_confirmed_after_the_shared_finish_seats_nobody() {
    use floor_events::seating::MoveReason;
    use floor_events::table::{Removal, TableInstruction};
    let (tournament_id, mut floor, _) = drawn(5, 3, 24, false);
    let full = floor.state.room.tables().find(|t| t.count() == 3).expect("a table of three").number;
    let short = floor.state.room.tables().find(|t| t.count() == 2).expect("a table of two");
    let (to_table, to_seat) = (short.number, short.seats.iter().position(Option::is_none).expect("an empty seat"));
    let (from_seat, occupant) = floor.state.room.table(full).unwrap().occupied().next().expect("a player");
    let entry = occupant.entry;
    // Given a move decided and its removal sent to the source table (as balancing records them).
    let sequence = floor.state.sequences[&full] + 1;
    let moved = [
        SeatingEvent::PlayerMoved {
            entry,
            from_table: full,
            from_seat: SeatNo(from_seat as u8 + 1),
            to_table,
            to_seat: SeatNo(to_seat as u8 + 1),
            wait_for_button: false,
            reason: MoveReason::Balance { from_count: 3, to_count: 2 },
        },
        SeatingEvent::Instructed {
            instruction: TableInstruction {
                tournament_id,
                table: full,
                sequence,
                instruction: Instruction::RemovePlayer { entry, reason: Removal::Moved { to_table, to_seat: SeatNo(to_seat as u8 + 1) } },
            },
        },
    ];
    for e in moved {
        floor.state = SeatingAggregate::apply_event(std::mem::take(&mut floor.state), e);
    }
    // And the satellite stopped: every table closed.
    floor.run(C::CloseTables);
    assert!(floor.state.over());
    // When the source confirms the removal.
    let confirm = TableReport { tournament_id, table: full, report_id: "confirm".into(), report: Report::InstructionApplied { sequence } };
    let events = floor.run(C::Report { report: confirm, seed: seed(1) });
    // Then the player is let go, and seated at no table.
    assert_eq!(events, vec![SeatingEvent::MoveConfirmed { entry }]);
}
