//! Table reports that do not fit the state are rejected, each with its own code.

use crate::domain::reporting::{check_finished, check_started};
use crate::domain::{SeatingAggregate, SeatingCommand, SeatingState};
use crate::reports::HandInPlay;
use crate::room::Room;
use crate::table::{Occupant, Table};
use esrs::Aggregate;
use floor_events::codes;
use floor_events::table::{BustReport, PotWon, Report, SeatNo, SeatStack, TableReport};
use floor_events::{EntryNo, TournamentId};
use proptest::prelude::*;

/// Table 1, seats 1–4 hold entries 1–4 with 1,000 chips each; no hand dealt yet.
fn world() -> SeatingState {
    let mut table = Table::new(1, 9);
    let mut state = SeatingState {
        tournament_id: Some(TournamentId(uuid::Uuid::from_u128(1))),
        table_size: 9,
        starting_stack: 1_000,
        ..SeatingState::default()
    };
    for i in 0..4 {
        let entry = EntryNo(i as u32 + 1);
        table.seats[i] = Some(Occupant { entry, moves: 0 });
        state.located.insert(entry, (1, i));
        state.play.chips.insert(entry, 1_000);
    }
    state.room = Room::new([table]);
    state
}

/// The button of the hands below: seat 1, where entry 1 sits.
const BUTTON: SeatNo = SeatNo(1);

fn stack(seat: u8, entry: u32, chips: u64) -> SeatStack {
    SeatStack { seat: SeatNo(seat), entry: EntryNo(entry), chips }
}

fn started(state: &mut SeatingState) {
    state.play.in_play.insert(1, HandInPlay { hand: 1, stacks: (1..=4).map(|e| (EntryNo(e), 1_000)).collect() });
}

/// Entry 4 busts; its 1,000 chips go to entry 1.
fn good_finish() -> (Vec<SeatStack>, Vec<BustReport>) {
    let stacks = vec![stack(1, 1, 2_000), stack(2, 2, 1_000), stack(3, 3, 1_000)];
    let busts = vec![BustReport {
        entry: EntryNo(4),
        stack_at_start: 1_000,
        pots: vec![PotWon { winners: vec![EntryNo(1)], chips: 1_000 }],
        best_high_hand: None,
    }];
    (stacks, busts)
}

#[track_caller]
fn rejected<T: std::fmt::Debug>(result: Result<T, crate::reports::Rejection>, code: &str) {
    match result {
        Ok(v) => panic!("accepted {v:?}, expected {code}"),
        Err(r) => assert_eq!(r.code(), code, "{r:?}"),
    }
}

#[test]
fn a_hand_that_fits_is_accepted() {
    let state = world();
    let four = vec![stack(1, 1, 1_000), stack(2, 2, 1_000), stack(3, 3, 1_000), stack(4, 4, 1_000)];
    let report = Report::HandStarted { hand: 1, button: BUTTON, stacks: four, deal_hand: None };
    let report = TableReport { tournament_id: state.tournament_id.unwrap(), table: 1, report_id: "h1".into(), report };
    let events = SeatingAggregate::handle_command(&state, SeatingCommand::Report { report, seed: [0; 32] }).unwrap();
    let state = events.into_iter().fold(state, SeatingAggregate::apply_event);
    let hand = &state.play.in_play[&1];
    assert_eq!(hand.stacks.len(), 4);
    let (stacks, busts) = good_finish();
    check_finished(&state, 1, 1, &stacks, &busts).unwrap();
}

#[test]
fn hand_started_reports_that_do_not_fit_are_rejected() {
    let state = world();
    rejected(check_started(&state, 7, 1, BUTTON, &[], None), codes::UNKNOWN_TABLE);
    rejected(check_started(&state, 1, 3, BUTTON, &[], None), codes::HAND_OUT_OF_ORDER);
    rejected(check_started(&state, 1, 1, BUTTON, &[stack(1, 9, 1_000)], None), codes::UNKNOWN_PLAYER);
    rejected(check_started(&state, 1, 1, BUTTON, &[stack(2, 1, 1_000)], None), codes::WRONG_SEAT);
    rejected(check_started(&state, 1, 1, BUTTON, &[stack(1, 1, 1_500)], None), codes::STACK_MISMATCH);
    let mut busy = state.clone();
    started(&mut busy);
    rejected(check_started(&busy, 1, 2, BUTTON, &[], None), codes::HAND_OUT_OF_ORDER);
}

#[test]
fn hand_finished_reports_that_do_not_fit_are_rejected() {
    let mut state = world();
    started(&mut state);
    let (stacks, busts) = good_finish();

    rejected(check_finished(&state, 1, 2, &stacks, &busts), codes::HAND_OUT_OF_ORDER);
    let created = vec![stack(1, 1, 2_001), stack(2, 2, 1_000), stack(3, 3, 1_000)];
    rejected(check_finished(&state, 1, 1, &created, &busts), codes::CHIPS_NOT_CONSERVED);
    let stranger = vec![stack(1, 1, 2_000), stack(2, 2, 1_000), stack(3, 3, 1_000), stack(5, 9, 1)];
    rejected(check_finished(&state, 1, 1, &stranger, &busts), codes::UNKNOWN_PLAYER);
    rejected(check_finished(&state, 1, 1, &stacks[..2], &busts), codes::PLAYER_UNACCOUNTED);
    let short_pot = vec![BustReport { pots: vec![PotWon { winners: vec![EntryNo(1)], chips: 900 }], ..busts[0].clone() }];
    rejected(check_finished(&state, 1, 1, &stacks, &short_pot), codes::BUST_DOES_NOT_ADD_UP);
    let ghost_winner = vec![BustReport { pots: vec![PotWon { winners: vec![EntryNo(4)], chips: 1_000 }], ..busts[0].clone() }];
    rejected(check_finished(&state, 1, 1, &stacks, &ghost_winner), codes::BUST_DOES_NOT_ADD_UP);
    let zero = vec![stack(1, 1, 2_000), stack(2, 2, 1_000), stack(3, 3, 1_000), stack(4, 4, 0)];
    rejected(check_finished(&state, 1, 1, &zero, &[]), codes::PLAYER_UNACCOUNTED);
}

#[test]
fn a_finish_without_a_start_and_a_player_of_another_table_say_which_rule_failed() {
    let mut state = world();
    let (stacks, busts) = good_finish();
    let never_started = check_finished(&state, 1, 1, &stacks, &busts).unwrap_err();
    assert_eq!(never_started.code(), codes::HAND_NOT_STARTED, "{never_started}");
    // Seated somewhere else: seat 1 of table 2.
    state.room.open(Table::new(2, 9));
    state.room.seat(2, 0, Occupant { entry: EntryNo(64), moves: 0 });
    state.located.insert(EntryNo(64), (2, 0));
    state.play.chips.insert(EntryNo(64), 1_000);
    let elsewhere = check_started(&state, 1, 1, BUTTON, &[stack(5, 64, 1_000)], None).unwrap_err();
    assert_eq!((elsewhere.code(), elsewhere.to_string().as_str()), (codes::UNKNOWN_PLAYER, "entry #64 does not sit at table 1"));
}

#[test]
fn a_report_is_its_subjects_or_it_is_refused() {
    use crate::reports::receive;
    let (ours, theirs) = (TournamentId(uuid::Uuid::from_u128(1)), TournamentId(uuid::Uuid::from_u128(2)));
    let report = |t, table| {
        let report = Report::InstructionApplied { sequence: 1 };
        serde_json::to_vec(&TableReport { tournament_id: t, table, report_id: "r1".into(), report }).unwrap()
    };
    let subject = |t: TournamentId, table: u32| floor_events::table::reports_subject(t, table);
    let fits = receive(&subject(ours, 7), 1, &report(ours, 7)).unwrap();
    assert!(fits.report.is_ok() && fits.tournament == ours && fits.table == 7);
    for (t, table) in [(theirs, 7), (ours, 8)] {
        let refused = receive(&subject(t, table), 2, &report(ours, 7)).unwrap();
        let (id, why) = refused.report.unwrap_err();
        assert_eq!((refused.tournament, refused.table, id.as_str(), why.code()), (t, table, "r1", codes::SUBJECT_MISMATCH));
    }
    for body in [&b"{not json"[..], br#"{"report_id":"x","report":{"type":"nope"}}"#] {
        let refused = receive(&subject(ours, 7), 3, body).unwrap();
        assert_eq!(refused.report.unwrap_err().1.code(), codes::MALFORMED_REPORT);
    }
    // The same unreadable message read again (a replay) is the same command; another one is not.
    let once = receive(&subject(ours, 7), 3, b"x").unwrap().command_id;
    assert_eq!(receive(&subject(ours, 7), 3, b"x").unwrap().command_id, once);
    assert_ne!(receive(&subject(ours, 7), 4, b"x").unwrap().command_id, once);
    assert!(receive("floor.table.not-a-uuid.7.out", 5, &report(ours, 7)).is_none());
}

proptest! {
    /// Random chip flows among four players (busts included) conserve chips and are accepted;
    /// the same report with one chip added anywhere is rejected.
    #[test]
    fn conserving_hands_pass_and_a_created_chip_fails(flows in prop::collection::vec((0usize..4, 0usize..4, 0u64..1_000), 0..12), bump in 0usize..4) {
        let mut state = world();
        started(&mut state);
        let mut chips = [1_000u64; 4];
        for (from, to, amount) in flows {
            let moved = amount.min(chips[from]);
            chips[from] -= moved;
            chips[to] += moved;
        }
        // Everyone who hit zero busts; their starting chips went to the biggest survivor.
        let leader = (0..4).max_by_key(|&i| chips[i]).unwrap();
        let stacks: Vec<SeatStack> = (0..4).filter(|&i| chips[i] > 0).map(|i| stack(i as u8 + 1, i as u32 + 1, chips[i])).collect();
        let busts: Vec<BustReport> = (0..4).filter(|&i| chips[i] == 0).map(|i| BustReport {
            entry: EntryNo(i as u32 + 1),
            stack_at_start: 1_000,
            pots: vec![PotWon { winners: vec![EntryNo(leader as u32 + 1)], chips: 1_000 }],
            best_high_hand: None,
        }).collect();
        prop_assert!(check_finished(&state, 1, 1, &stacks, &busts).is_ok());
        let mut bumped = stacks.clone();
        let i = bump % bumped.len();
        bumped[i].chips += 1;
        prop_assert_eq!(check_finished(&state, 1, 1, &bumped, &busts).unwrap_err().code(), codes::CHIPS_NOT_CONSERVED);
    }
}
