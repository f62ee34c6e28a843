//! Moves the table protocol gets wrong when play overtakes them, and confirmations and buttons
//! that do not fit (issue 19, defects 2, 3 and 6), played by hand against a real nats-server:
//! a bust in the hand during which its player is moved is told to the table that reported it;
//! a player moved again before the source lets them go is told, logged and seated where they
//! actually go; an `instruction_applied` for nothing sent or for an instruction that takes no
//! confirmation, and a button on an empty seat, are rejected.

use floor_events::seating::SeatingEvent;
use floor_events::table::{BustReport, Instruction, PotWon, Removal, Report, SeatNo, SeatStack, TableInstruction, TableReport};
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{codes, subjects, EntryNo, Reply, TournamentId};
use floor_tests::{freezeout, World};
use std::time::Duration;

const PLAYERS: [&str; 9] = ["ana", "ben", "cleo", "dan", "eve", "fay", "gus", "hal", "ivy"];

/// A sit & go of `players` at tables of `table_size`, filled: it draws its seats at once.
/// Returns it with every seat of the draw, by table.
async fn drawn(world: &World, players: usize, table_size: u8) -> (TournamentId, Vec<(u32, SeatStack)>) {
    let definition = TournamentDefinition {
        start: Start::SitAndGo,
        capacity: players as u32,
        min_players: players as u32,
        table_size,
        guarantee: None,
        // These tests are about how a move reaches the tables, written when every profile
        // balanced at a difference above one; TDA 2024 (the fixture's profile) now waits until a
        // table is three short (R11-D), so they choose the old rule themselves.
        seating: Some(floor_events::profile::SeatingSettings {
            balance: Some(floor_events::profile::Balance::DifferenceAboveOne),
            mover: None,
        }),
        ..freezeout(players as u32)
    };
    let t = world.create(definition).await;
    for player in &PLAYERS[..players] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    let seats = |i: &[TableInstruction]| i.iter().filter(|i| matches!(i.instruction, Instruction::SeatPlayer { .. })).count();
    let all = world.instructions_when(t, |i| seats(i) == players).await;
    let seated = all
        .into_iter()
        .filter_map(|i| match i.instruction {
            Instruction::SeatPlayer { entry, seat, stack, .. } => Some((i.table, SeatStack { seat, entry, chips: stack })),
            _ => None,
        })
        .collect();
    (t, seated)
}

fn at(seats: &[(u32, SeatStack)], table: u32) -> Vec<SeatStack> {
    seats.iter().filter(|s| s.0 == table).map(|s| s.1).collect()
}

/// Publishes `report` from `table` of `t` as a table server would (report id = `id`).
async fn report(world: &World, t: TournamentId, table: u32, id: &str, report: Report) {
    let body = serde_json::to_vec(&TableReport { tournament_id: t, table, report_id: id.into(), report }).expect("report");
    let message = async_nats::jetstream::message::PublishMessage::build().payload(body.into()).message_id(id);
    let subject = floor_events::table::reports_subject(t, table);
    world.jetstream().send_publish(subject, message).await.expect("publish").await.expect("ack");
}

fn started(stacks: &[SeatStack]) -> Report {
    Report::HandStarted { hand: 1, button: stacks[0].seat, stacks: stacks.to_vec(), deal_hand: None }
}

/// Hand 1 dealt to `dealt` ends: `winner` takes every chip of `busted`.
fn finished(dealt: &[SeatStack], winner: EntryNo, busted: &[EntryNo]) -> Report {
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
    Report::HandFinished { hand: 1, stacks, busts }
}

/// The `remove_player {moved}` instructions of `entry` (or of anyone, with `None`) among
/// `instructions`: (table, sequence, entry, destination table, destination seat).
fn moves(instructions: &[TableInstruction], who: Option<EntryNo>) -> Vec<(u32, u64, EntryNo, u32, SeatNo)> {
    instructions
        .iter()
        .filter_map(|i| match i.instruction {
            Instruction::RemovePlayer { entry, reason: Removal::Moved { to_table, to_seat } } if who.is_none_or(|w| w == entry) => {
                Some((i.table, i.sequence, entry, to_table, to_seat))
            }
            _ => None,
        })
        .collect()
}

/// `entry`'s `seat_player` instructions among `instructions`: (table, seat).
fn seatings(instructions: &[TableInstruction], who: EntryNo) -> Vec<(u32, SeatNo)> {
    instructions
        .iter()
        .filter_map(|i| match i.instruction {
            Instruction::SeatPlayer { entry, seat, .. } if entry == who => Some((i.table, seat)),
            _ => None,
        })
        .collect()
}

/// `t`'s seating log, read until `enough` says it holds what the test waits for (10 s without
/// a new commit fails the test).
async fn seating_log_when(world: &World, t: TournamentId, enough: impl Fn(&[SeatingEvent]) -> bool) -> Vec<SeatingEvent> {
    let subject = subjects::event_subject(subjects::aggregate::SEATING, t.0);
    let mut log = Vec::new();
    let read = |payload: &[u8], log: &mut Vec<SeatingEvent>| {
        log.extend(floor_events::record::decode_commit::<SeatingEvent>(payload).expect("a seating commit"))
    };
    let mut following =
        floor_runtime::follow::follow(&world.backbone, vec![subject], |m| read(&m.payload, &mut log)).await.expect("follow");
    while !enough(&log) {
        let Ok(next) = tokio::time::timeout(Duration::from_secs(10), following.next()).await else {
            panic!("tournament {t}: the seating log stalled at {log:?}");
        };
        read(&next.expect("connection").expect("message").payload, &mut log);
    }
    log
}

fn rejected<'a>(log: &'a [SeatingEvent], id: &str) -> Option<&'a str> {
    log.iter().find_map(|e| match e {
        SeatingEvent::ReportRejected { report_id, code, .. } if report_id == id => Some(code.as_str()),
        _ => None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_busts_in_the_hand_during_which_floor_moves_them_is_eliminated_at_the_table_that_reported_it() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let (t, seats) = drawn(&world, 6, 3).await;
    let (one, two) = (at(&seats, 1), at(&seats, 2));
    report(&world, t, 1, "t1-h1-start", started(&one)).await;
    report(&world, t, 2, "t2-h1-start", started(&two)).await;
    // Table 1 loses two players: balancing moves a player of table 2, which is still dealing.
    report(&world, t, 1, "t1-h1-end", finished(&one, one[0].entry, &[one[1].entry, one[2].entry])).await;
    let told = world.instructions_when(t, |i| !moves(i, None).is_empty()).await;
    let [(2, sequence, mover, 1, _)] = moves(&told, None)[..] else { panic!("one move from table 2 to 1: {told:?}") };

    // The mover busts in that hand.
    let winner = two.iter().find(|s| s.entry != mover).expect("an opponent").entry;
    report(&world, t, 2, "t2-h1-end", finished(&two, winner, &[mover])).await;
    let eliminated = |i: &TableInstruction| {
        i.table == 2 && matches!(i.instruction, Instruction::RemovePlayer { entry, reason: Removal::Eliminated } if entry == mover)
    };
    let told = world.instructions_when(t, |i| i.iter().any(eliminated)).await;
    // Table 2 lets the player go; a report after it shows seating has taken that confirmation.
    report(&world, t, 2, "t2-ack", Report::InstructionApplied { sequence }).await;
    report(&world, t, 1, "probe", Report::HandFinished { hand: 2, stacks: vec![], busts: vec![] }).await;
    let log = seating_log_when(&world, t, |log| rejected(log, "probe").is_some()).await;

    let elimination = told.iter().position(eliminated).expect("told");
    assert!(told[elimination].sequence > sequence, "the elimination replaces the move: {told:?}");
    assert_eq!(rejected(&log, "t2-ack"), None, "the move's confirmation is taken");
    assert!(!log.iter().any(|e| matches!(e, SeatingEvent::MoveConfirmed { entry } if *entry == mover)), "{log:?}");
    let seated_by_floor = log.iter().any(|e| {
        matches!(e, SeatingEvent::Instructed { instruction } if matches!(instruction.instruction, Instruction::SeatPlayer { entry, .. } if entry == mover) && instruction.table != 2)
    });
    assert!(!seated_by_floor, "the destination never seats an eliminated player: {log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_moved_again_before_the_source_lets_them_go_is_logged_told_and_seated_where_they_actually_go() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let (t, seats) = drawn(&world, 9, 3).await;
    let (one, two, three) = (at(&seats, 1), at(&seats, 2), at(&seats, 3));
    for (table, stacks) in [(1, &one), (2, &two), (3, &three)] {
        report(&world, t, table, &format!("t{table}-h1-start"), started(stacks)).await;
    }
    // Table 3 loses two players: a player of table 1, still dealing, is moved there.
    report(&world, t, 3, "t3-h1-end", finished(&three, three[0].entry, &[three[1].entry, three[2].entry])).await;
    let told = world.instructions_when(t, |i| !moves(i, None).is_empty()).await;
    let [(1, _, mover, 3, _)] = moves(&told, None)[..] else { panic!("one move from table 1 to 3: {told:?}") };
    // Table 2 loses one: three tables of two, and table 3, the mover's destination, breaks.
    report(&world, t, 2, "t2-h1-end", finished(&two, two[0].entry, &[two[1].entry])).await;
    let told = world.instructions_when(t, |i| i.iter().any(|i| i.table == 3 && matches!(i.instruction, Instruction::CloseTable))).await;
    // Table 1 ends its hand and lets the player go, confirming the first removal it was sent.
    let (_, first, ..) = moves(&told, Some(mover))[0];
    report(&world, t, 1, "t1-h1-end", finished(&one, one[0].entry, &[])).await;
    report(&world, t, 1, "t1-ack", Report::InstructionApplied { sequence: first }).await;
    let told = world.instructions_when(t, |i| seatings(i, mover).len() == 2).await;

    let removals = moves(&told, Some(mover));
    let seated = seatings(&told, mover)[1];
    assert!(removals.iter().all(|r| r.0 == 1), "only the table the player sits at is told: {removals:?}");
    let last = removals.last().expect("removals");
    assert_eq!((last.3, last.4), seated, "the last removal names where the player sits: {removals:?}");
    assert_ne!(seated.0, 3, "not at the broken table");
    let log =
        seating_log_when(&world, t, |log| log.iter().any(|e| matches!(e, SeatingEvent::MoveConfirmed { entry } if *entry == mover))).await;
    let logged: Vec<(u32, u32, SeatNo)> = log
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::PlayerMoved { entry, from_table, to_table, to_seat, .. } if *entry == mover => {
                Some((*from_table, *to_table, *to_seat))
            }
            _ => None,
        })
        .collect();
    assert!(logged.iter().all(|m| m.0 == 1), "every player_moved names the table the player leaves: {logged:?}");
    assert_eq!(logged.last().map(|m| (m.1, m.2)), Some(seated), "the last player_moved names where the player sits: {logged:?}");
    assert_eq!(logged.len(), removals.len(), "one removal per player_moved: {logged:?} {removals:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_button_on_an_empty_seat_and_confirmations_of_what_was_never_sent_or_takes_none_are_rejected() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let (t, seats) = drawn(&world, 3, 9).await;
    let one = at(&seats, 1);
    // `open_table` takes no confirmation, like `blinds` (the unit test in
    // services/seating/src/move_tests.rs confirms a `blinds` too).
    let told = world.instructions_when(t, |i| i.len() >= 4).await;
    let open = told.iter().find(|i| matches!(i.instruction, Instruction::OpenTable { .. })).expect("open_table").sequence;
    let seat = told.iter().find(|i| matches!(i.instruction, Instruction::SeatPlayer { .. })).expect("a seat").sequence;
    let empty = (1..=9).map(SeatNo).find(|s| !one.iter().any(|o| o.seat == *s)).expect("an empty seat");

    report(&world, t, 1, "empty-button", Report::HandStarted { hand: 1, button: empty, stacks: one.clone(), deal_hand: None }).await;
    report(&world, t, 1, "never-sent", Report::InstructionApplied { sequence: 99_999 }).await;
    report(&world, t, 1, "open-table", Report::InstructionApplied { sequence: open }).await;
    report(&world, t, 1, "seat", Report::InstructionApplied { sequence: seat }).await;
    report(&world, t, 1, "hand-1", started(&one)).await;
    let log = seating_log_when(&world, t, |log| log.iter().any(|e| matches!(e, SeatingEvent::HandStarted { .. }))).await;

    assert_eq!(rejected(&log, "empty-button"), Some(codes::BUTTON_ON_EMPTY_SEAT));
    assert_eq!(rejected(&log, "never-sent"), Some(codes::UNKNOWN_INSTRUCTION));
    assert_eq!(rejected(&log, "open-table"), Some(codes::INSTRUCTION_NOT_CONFIRMED));
    assert_eq!(rejected(&log, "seat"), None, "a seat_player may be confirmed");
}
