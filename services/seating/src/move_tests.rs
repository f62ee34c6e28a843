//! Moves that meet a bust or another move before the source table lets the player go, and
//! confirmations and buttons that do not fit (issue 19, defects 2, 3 and 6), played on the
//! aggregate report by report.

use crate::domain::{SeatingAggregate, SeatingCommand as C, SeatingState};
use crate::draw::Seed;
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::seating::SeatingEvent;
use floor_events::table::{BustReport, Instruction, PotWon, Removal, Report, SeatNo, SeatStack, TableReport};
use floor_events::{codes, EntryNo, PlayerId, TournamentId};

const STACK: u64 = 1_000;

struct Floor {
    state: SeatingState,
    log: Vec<SeatingEvent>,
    reports: u32,
}

impl Floor {
    /// `entrants` drawn at tables of `table_size`, every table between hands.
    fn started(entrants: u32, table_size: u8) -> Self {
        let mut floor = Floor { state: SeatingState::default(), log: Vec::new(), reports: 0 };
        let tournament_id = TournamentId(uuid::Uuid::nil());
        floor.run(C::Configure {
            tournament_id,
            table_size,
            starting_stack: STACK,
            rebuys: false,
            balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
        });
        for e in 1..=entrants {
            floor.run(C::Join { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap(), seed: [0; 32] });
        }
        let at: DateTime<Utc> = "2027-01-10T18:00:00Z".parse().unwrap();
        floor.run(C::Start { seed: [7; 32], at });
        floor
    }

    fn run(&mut self, command: C) -> Vec<SeatingEvent> {
        let events = SeatingAggregate::handle_command(&self.state, command).expect("accepted");
        for e in &events {
            self.state = SeatingAggregate::apply_event(std::mem::take(&mut self.state), e.clone());
        }
        self.log.extend(events.iter().cloned());
        events
    }

    fn report(&mut self, table: u32, report: Report) -> Vec<SeatingEvent> {
        self.reports += 1;
        let report = TableReport { tournament_id: TournamentId(uuid::Uuid::nil()), table, report_id: format!("r{}", self.reports), report };
        let seed: Seed = [self.reports as u8; 32];
        self.run(C::Report { report, seed })
    }

    /// Who sits at `table` now, with their chips.
    fn at(&self, table: u32) -> Vec<SeatStack> {
        let seated = self.state.room.table(table).expect("open table").occupied();
        seated.map(|(s, o)| SeatStack { seat: SeatNo(s as u8 + 1), entry: o.entry, chips: self.state.play.chips[&o.entry] }).collect()
    }

    /// Deals hand `hand` at `table` to everyone there.
    fn start(&mut self, table: u32, hand: u64) -> Vec<SeatStack> {
        let stacks = self.at(table);
        let events = self.report(table, Report::HandStarted { hand, button: stacks[0].seat, stacks: stacks.clone(), deal_hand: None });
        assert!(matches!(&events[..], [SeatingEvent::HandStarted { .. }]), "{events:?}");
        stacks
    }

    /// Finishes `hand` at `table`, dealt to `dealt`: `winner` takes every chip of `busted`.
    fn finish(&mut self, table: u32, hand: u64, dealt: &[SeatStack], winner: EntryNo, busted: &[EntryNo]) -> Vec<SeatingEvent> {
        let won: u64 = dealt.iter().filter(|s| busted.contains(&s.entry)).map(|s| s.chips).sum();
        let stacks = dealt
            .iter()
            .filter(|s| !busted.contains(&s.entry))
            .map(|s| SeatStack { chips: s.chips + if s.entry == winner { won } else { 0 }, ..*s })
            .collect();
        let busts = dealt
            .iter()
            .filter(|s| busted.contains(&s.entry))
            .map(|s| BustReport {
                entry: s.entry,
                stack_at_start: s.chips,
                pots: vec![PotWon { winners: vec![winner], chips: s.chips }],
                best_high_hand: None,
            })
            .collect();
        let events = self.report(table, Report::HandFinished { hand, stacks, busts });
        assert!(matches!(events.first(), Some(SeatingEvent::HandFinished { .. })), "{events:?}");
        events
    }
}

/// Every `remove_player {moved}` in `events`: (table, sequence, entry, reason).
fn moves(events: &[SeatingEvent]) -> Vec<(u32, u64, EntryNo, Removal)> {
    removals(events).into_iter().filter(|r| matches!(r.3, Removal::Moved { .. })).collect()
}

/// Every `remove_player` in `events`: (table, sequence, entry, reason).
fn removals(events: &[SeatingEvent]) -> Vec<(u32, u64, EntryNo, Removal)> {
    events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Instructed { instruction: i } => match &i.instruction {
                Instruction::RemovePlayer { entry, reason } => Some((i.table, i.sequence, *entry, *reason)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Every `seat_player` of `entry` in `events`: (table, seat).
fn seatings(events: &[SeatingEvent], who: EntryNo) -> Vec<(u32, SeatNo)> {
    events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Instructed { instruction: i } => match &i.instruction {
                Instruction::SeatPlayer { entry, seat, .. } if *entry == who => Some((i.table, *seat)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn rejection(events: &[SeatingEvent]) -> &str {
    match events {
        [SeatingEvent::ReportRejected { code, .. }] => code,
        _ => panic!("not one rejection: {events:?}"),
    }
}

#[test]
fn a_player_who_busts_in_the_hand_during_which_they_are_moved_is_eliminated_at_the_source_and_never_seated() {
    let mut floor = Floor::started(6, 3);
    let (one, two) = (floor.start(1, 1), floor.start(2, 1));
    // Table 1 loses two players: balancing moves one of table 2's, who is still in its hand.
    let events = floor.finish(1, 1, &one, one[0].entry, &[one[1].entry, one[2].entry]);
    let [(2, moved_at, mover, Removal::Moved { to_table: 1, .. })] = moves(&events)[..] else { panic!("{events:?}") };
    // ... and busts in it.
    let winner = two.iter().find(|s| s.entry != mover).unwrap().entry;
    let events = floor.finish(2, 1, &two, winner, &[mover]);

    let told = removals(&events);
    assert!(told.contains(&(2, moved_at + 1, mover, Removal::Eliminated)), "the source table hears the elimination: {told:?}");
    let confirmed = floor.report(2, Report::InstructionApplied { sequence: moved_at });
    assert!(confirmed.is_empty(), "the move's confirmation is taken and seats nobody: {confirmed:?}");
    assert_eq!(seatings(&floor.log, mover).len(), 1, "only the draw seated entry {mover}");
}

#[test]
fn a_player_moved_again_before_the_source_lets_them_go_is_told_and_logged_where_they_will_sit() {
    let mut floor = Floor::started(9, 3);
    let (one, two, three) = (floor.start(1, 1), floor.start(2, 1), floor.start(3, 1));
    // Table 3 loses two players: one of table 1 (in its hand) is moved there.
    let events = floor.finish(3, 1, &three, three[0].entry, &[three[1].entry, three[2].entry]);
    let [(1, _, mover, Removal::Moved { to_table: 3, .. })] = moves(&events)[..] else { panic!("{events:?}") };
    // Table 2 loses one: three tables of two, and table 3 (the mover's destination) breaks.
    let events = floor.finish(2, 1, &two, two[0].entry, &[two[1].entry]);
    assert!(events.contains(&SeatingEvent::TableClosed { table: 3 }), "{events:?}");

    let again = moves(&events).into_iter().filter(|r| r.2 == mover).collect::<Vec<_>>();
    let [(1, _, _, Removal::Moved { to_table, to_seat })] = again[..] else { panic!("table 1 is told the new destination: {events:?}") };
    assert_ne!(to_table, 3);
    let moved: Vec<_> = floor
        .log
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::PlayerMoved { entry, from_table, to_table, to_seat, .. } if *entry == mover => {
                Some((*from_table, *to_table, *to_seat))
            }
            _ => None,
        })
        .collect();
    assert_eq!(moved.len(), 2, "{moved:?}");
    assert!(moved.iter().all(|m| m.0 == 1), "every move is from the table the player sits at: {moved:?}");
    assert_eq!(moved[1], (1, to_table, to_seat), "the last move names the new destination");
    // Table 1 ends its hand and lets the player go (confirming the first removal): they sit
    // where the last removal said.
    floor.finish(1, 1, &one, one[0].entry, &[]);
    let first = moves(&floor.log).into_iter().find(|r| r.2 == mover).unwrap();
    floor.report(1, Report::InstructionApplied { sequence: first.1 });
    assert_eq!(seatings(&floor.log, mover).last(), Some(&(to_table, to_seat)));
}

#[test]
fn a_button_on_an_empty_seat_and_confirmations_of_what_was_never_sent_or_needs_none_are_rejected() {
    let mut floor = Floor::started(3, 9);
    let stacks = floor.at(1);
    let empty = (1..=9).map(SeatNo).find(|s| !stacks.iter().any(|o| o.seat == *s)).unwrap();
    let events = floor.report(1, Report::HandStarted { hand: 1, button: empty, stacks: stacks.clone(), deal_hand: None });
    assert_eq!(rejection(&events), codes::BUTTON_ON_EMPTY_SEAT);
    floor.run(C::Blinds { level: 1, small_blind: 25, big_blind: 50, ante: 0, big_blind_ante: false });
    let last = floor.state.sequences[&1];
    assert_eq!(rejection(&floor.report(1, Report::InstructionApplied { sequence: 99_999 })), codes::UNKNOWN_INSTRUCTION);
    assert_eq!(rejection(&floor.report(1, Report::InstructionApplied { sequence: 0 })), codes::UNKNOWN_INSTRUCTION);
    assert_eq!(rejection(&floor.report(2, Report::InstructionApplied { sequence: 1 })), codes::UNKNOWN_INSTRUCTION);
    assert_eq!(rejection(&floor.report(1, Report::InstructionApplied { sequence: last })), codes::INSTRUCTION_NOT_CONFIRMED, "blinds");
    assert_eq!(rejection(&floor.report(1, Report::InstructionApplied { sequence: 1 })), codes::INSTRUCTION_NOT_CONFIRMED, "open_table");

    assert!(floor.report(1, Report::InstructionApplied { sequence: 2 }).is_empty(), "a seat_player may be confirmed");
    let events = floor.report(1, Report::HandStarted { hand: 1, button: stacks[1].seat, stacks, deal_hand: None });
    assert!(matches!(&events[..], [SeatingEvent::HandStarted { .. }]), "{events:?}");
}
