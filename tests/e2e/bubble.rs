//! Hand-for-hand on the bubble (issue 20), against a real nats-server: the trigger holds every
//! table, hands are released to every table together only once every table finished the last
//! one, bad reports and a release outside hand-for-hand get their codes, and a restart in the
//! middle releases no hand twice.

use floor_events::bubble::{self, Boundary, BubbleEvent, HandForHandClock, HandForHandSettings, Trigger};
use floor_events::seating::SeatingEvent;
use floor_events::table::{BustReport, Instruction, PotWon, Report, SeatStack, TableInstruction, TableReport};
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{codes, subjects, CommandId, Reply, TournamentId};
use floor_runtime::JetStreamStore;
use floor_tests::{freezeout, World};
use std::collections::BTreeMap;

/// Six players at two tables of three; hand-for-hand starts with five left and the bubble
/// bursts at four (a satellite's seats, so the paid places do not matter), on a normal clock.
fn bubble_sit_and_go() -> TournamentDefinition {
    let settings = HandForHandSettings {
        trigger: Some(Trigger::PlayersBeforeBubble { players: 1 }),
        boundary: Some(Boundary::PlayersLeft { players: 4 }),
        clock: Some(HandForHandClock::Normal),
        ordering: None,
    };
    TournamentDefinition {
        start: Start::SitAndGo,
        capacity: 6,
        min_players: 6,
        table_size: 3,
        guarantee: None,
        hand_for_hand: Some(settings),
        ..freezeout(6)
    }
}

async fn report(world: &World, t: TournamentId, table: u32, id: &str, report: Report) {
    let body = serde_json::to_vec(&TableReport { tournament_id: t, table, report_id: id.into(), report }).expect("report");
    let message = async_nats::jetstream::message::PublishMessage::build().payload(body.into()).message_id(id);
    let subject = floor_events::table::reports_subject(t, table);
    world.jetstream().send_publish(subject, message).await.expect("publish").await.expect("ack");
}

/// A hand at `table` from `seats` (each player's stack now), dealt on `deal_hand` if given:
/// started, then finished, the first seat taking the second's chips when `bust`.
async fn play(world: &World, t: TournamentId, table: u32, (hand, deal_hand): (u64, Option<u64>), seats: &mut Vec<SeatStack>, bust: bool) {
    let tag = format!("{t}-{table}-{hand}");
    report(world, t, table, &format!("{tag}-start"), Report::HandStarted { hand, button: seats[0].seat, stacks: seats.clone(), deal_hand })
        .await;
    let mut busts = vec![];
    if bust {
        let loser = seats.remove(1);
        seats[0].chips += loser.chips;
        let pots = vec![PotWon { winners: vec![seats[0].entry], chips: loser.chips }];
        busts.push(BustReport { entry: loser.entry, stack_at_start: loser.chips, pots, best_high_hand: None });
    }
    report(world, t, table, &format!("{tag}-end"), Report::HandFinished { hand, stacks: seats.clone(), busts }).await;
}

fn count(instructions: &[TableInstruction], table: u32, wanted: &Instruction) -> usize {
    instructions.iter().filter(|i| i.table == table && &i.instruction == wanted).count()
}

/// Six players registered and drawn at two tables of three: each table's number and its
/// players in seat order.
async fn seated_six(world: &World, t: TournamentId) -> [(u32, Vec<SeatStack>); 2] {
    for p in ["ann", "bob", "cat", "dan", "eve", "fay"] {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    let seats = |i: &[TableInstruction]| i.iter().filter(|i| matches!(i.instruction, Instruction::SeatPlayer { .. })).count();
    let mut tables: BTreeMap<u32, Vec<SeatStack>> = BTreeMap::new();
    for i in world.instructions_when(t, |i| seats(i) == 6).await {
        if let Instruction::SeatPlayer { entry, seat, stack, .. } = i.instruction {
            tables.entry(i.table).or_default().push(SeatStack { seat, entry, chips: stack });
        }
    }
    let numbers: Vec<u32> = tables.keys().copied().collect();
    assert_eq!(numbers.len(), 2, "two tables of three");
    [numbers[0], numbers[1]].map(|n| {
        let mut seated = tables[&n].clone();
        seated.sort_by_key(|s| s.seat);
        (n, seated)
    })
}

/// Waits until every table in `tables` has been told `wanted`.
async fn told(world: &World, t: TournamentId, tables: &[u32], wanted: Instruction) -> Vec<TableInstruction> {
    world.instructions_when(t, |i| tables.iter().all(|&table| count(i, table, &wanted) >= 1)).await
}

/// The rejection seating recorded for report `report_id`, waiting for it.
async fn rejection(world: &World, t: TournamentId, report_id: &str) -> String {
    // Waits on the seating log itself (its history, then what comes), not on a timer.
    let mut log = world.watch_events::<SeatingEvent>(subjects::aggregate::SEATING, t).await;
    let rejected = log.next_where(|e| matches!(e, SeatingEvent::ReportRejected { report_id: id, .. } if id == report_id)).await;
    let SeatingEvent::ReportRejected { code, .. } = rejected else { unreachable!("matched above") };
    code
}

async fn bubble_log(world: &World, t: TournamentId) -> Vec<BubbleEvent> {
    let subject = subjects::event_subject(subjects::aggregate::BUBBLE, t.0);
    let commits: Vec<floor_runtime::store::StoredCommit<BubbleEvent>> =
        JetStreamStore::new(&world.backbone).load(&subject, 0).await.expect("bubble log");
    commits.into_iter().flat_map(|c| c.events).collect()
}

#[tokio::test]
async fn hand_for_hand_holds_every_table_releases_together_survives_a_restart_and_ends_at_the_bubble() {
    let mut world = World::start().await;
    let t = world.create(bubble_sit_and_go()).await;
    let [(a, mut at_a), (b, mut at_b)] = seated_six(&world, t).await;

    // Outside hand-for-hand a director's release is refused, and stores nothing.
    let before = world.last_sequence().await;
    let release = bubble::ReleaseWithout { command_id: CommandId::new(), tournament_id: t, tables: vec![] };
    let refused = world.request(subjects::service::BUBBLE, "release_without", &release).await;
    assert!(matches!(&refused, Reply::Error(e) if e.code == codes::NOT_IN_HAND_FOR_HAND), "{refused:?}");
    assert_eq!(world.last_sequence().await, before, "a refused release writes nothing");

    // Table B is dealing its hand 1 when table A's hand 1 busts a player: five left, one above
    // the bubble: hand-for-hand. B's hand in progress is hand 0; A holds at once.
    report(&world, t, b, "b-1-start", Report::HandStarted { hand: 1, button: at_b[0].seat, stacks: at_b.clone(), deal_hand: None }).await;
    play(&world, t, a, (1, None), &mut at_a, true).await;
    told(&world, t, &[a, b], Instruction::HoldForDeal).await;
    let lobby = world.lobby_when(t, |d| d["hand_for_hand"]["on"] == true).await;
    assert_eq!(lobby["hand_for_hand"]["hand"], 0);
    assert_eq!(lobby["hand_for_hand"]["waiting"][0]["table"], b, "the table still owing hand 0 is named: {lobby}");

    // Bad input: a finish for a hand not released; B finishes hand 0 and deals again while held.
    report(&world, t, a, "a-bogus-finish", Report::HandFinished { hand: 2, stacks: at_a.clone(), busts: vec![] }).await;
    assert_eq!(rejection(&world, t, "a-bogus-finish").await, codes::HAND_NOT_RELEASED);
    report(&world, t, b, "b-1-end", Report::HandFinished { hand: 1, stacks: at_b.clone(), busts: vec![] }).await;
    let released = told(&world, t, &[a, b], Instruction::DealHand { hand: 1 }).await;
    assert!(released.iter().all(|i| i.instruction != Instruction::DealHand { hand: 2 }));
    // B deals its hand-for-hand hand 1 (its own hand 2) on deal_hand 1.
    report(&world, t, b, "b-2-start", Report::HandStarted { hand: 2, button: at_b[1].seat, stacks: at_b.clone(), deal_hand: Some(1) })
        .await;
    let lobby = world.lobby_when(t, |d| d["hand_for_hand"]["hand"] == 1).await;
    assert_eq!(lobby["hand_for_hand"]["waiting"].as_array().map(Vec::len), Some(2), "both tables owe hand 1: {lobby}");

    // The platform dies while hand 1 is out, and comes back.
    world.restart_platform().await;

    // B's hand 2 (its hand-for-hand hand 1) was dealt above; A deals its hand 1 now. Hand 2 goes
    // out only when both finished.
    report(&world, t, b, "b-2-end", Report::HandFinished { hand: 2, stacks: at_b.clone(), busts: vec![] }).await;
    play(&world, t, a, (2, Some(1)), &mut at_a, false).await;
    told(&world, t, &[a, b], Instruction::DealHand { hand: 2 }).await;

    // Hand 2: B busts a player: four left, the bubble bursts; every table resumes.
    play(&world, t, a, (3, Some(2)), &mut at_a, false).await;
    play(&world, t, b, (3, Some(2)), &mut at_b, true).await;
    let all = told(&world, t, &[a, b], Instruction::Resume).await;
    let lobby = world.lobby_when(t, |d| d["hand_for_hand"]["on"] == false && d["hand_for_hand"]["ended"] == "burst").await;
    assert!(lobby["hand_for_hand"]["waiting"].as_array().is_some_and(Vec::is_empty));

    // Each instruction once per table, restart or not.
    for table in [a, b] {
        for wanted in [Instruction::HoldForDeal, Instruction::DealHand { hand: 1 }, Instruction::DealHand { hand: 2 }, Instruction::Resume]
        {
            assert_eq!(count(&all, table, &wanted), 1, "table {table}: {wanted:?} once");
        }
    }
    // From the bubble's log: each hand released once, and only after every table finished the
    // one before.
    let log = bubble_log(&world, t).await;
    let mut owed: Vec<u32> = vec![b];
    let mut released = vec![];
    for e in &log {
        match e {
            BubbleEvent::TableFinished { table, late: false, .. } => owed.retain(|x| x != table),
            BubbleEvent::HandReleased { hand, tables, .. } => {
                assert!(owed.is_empty(), "hand {hand} released while {owed:?} owed the last one");
                released.push(*hand);
                owed = tables.clone();
            }
            _ => {}
        }
    }
    assert_eq!(released, vec![1, 2], "{log:?}");
    assert!(matches!(log.last(), Some(BubbleEvent::HandForHandEnded { cause: bubble::EndCause::Burst, players_left: 4, .. })), "{log:?}");

    // After the burst: a director's release is refused again.
    let release = bubble::ReleaseWithout { command_id: CommandId::new(), tournament_id: t, tables: vec![] };
    let refused = world.request(subjects::service::BUBBLE, "release_without", &release).await;
    assert!(matches!(&refused, Reply::Error(e) if e.code == codes::NOT_IN_HAND_FOR_HAND), "{refused:?}");
}

/// A table that deals while held is refused with `table_held`.
#[tokio::test]
async fn a_table_dealing_while_held_is_refused() {
    let world = World::start().await;
    let t = world.create(bubble_sit_and_go()).await;
    let [(a, mut at_a), (b, at_b)] = seated_six(&world, t).await;
    report(&world, t, b, "b-1-start", Report::HandStarted { hand: 1, button: at_b[0].seat, stacks: at_b.clone(), deal_hand: None }).await;
    play(&world, t, a, (1, None), &mut at_a, true).await;
    told(&world, t, &[a, b], Instruction::HoldForDeal).await;
    // A had no hand in progress at the announcement: its next deal may have crossed the hold
    // (that hand is its hand 0), once. Dealing again before deal_hand is refused.
    play(&world, t, a, (2, None), &mut at_a, false).await;
    report(&world, t, a, "a-held-start", Report::HandStarted { hand: 3, button: at_a[0].seat, stacks: at_a.clone(), deal_hand: None })
        .await;
    assert_eq!(rejection(&world, t, "a-held-start").await, codes::TABLE_HELD);
}

/// Under the TDA deduction the bubble tells the clock at the announcement and at every hand;
/// with the clock service down it goes on after `CLOCK_PATIENCE` (2 s) and the tables still
/// get their hand (before, the release waited on the clock for as long as it was down, and
/// with it every tournament the bubble service serves).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_clock_service_down_the_deduction_waits_and_the_hand_is_released() {
    let world = World::start_configured(|c| c.skip("clock")).await;
    let mut definition = bubble_sit_and_go();
    if let Some(settings) = definition.hand_for_hand.as_mut() {
        settings.clock = Some(HandForHandClock::Deduct { seconds: 120 });
    }
    let t = world.create(definition).await;
    let [(a, mut at_a), (b, _)] = seated_six(&world, t).await;
    // A's bust leaves five: hand-for-hand, B between hands, so hand 0 is complete at once; the
    // clock is to be paused and 120 s taken off, and nobody answers for the clock.
    play(&world, t, a, (1, None), &mut at_a, true).await;
    told(&world, t, &[a, b], Instruction::DealHand { hand: 1 }).await;
}
