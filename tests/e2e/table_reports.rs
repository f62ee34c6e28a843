//! Table reports that are not what they say (issue 19): a report is its subject's, or it is
//! rejected where that table can see it; unreadable messages leave a rejection too; each
//! rejection names the rule that failed, and the table hears of it on its own rejection subject.

use floor_events::seating::SeatingEvent;
use floor_events::table::{Instruction, Report, SeatStack, TableInstruction, TableRejection, TableReport};
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{codes, subjects, Reply, TournamentId};
use floor_tests::{freezeout, World};
use std::time::Duration;

/// A sit & go of `players` at tables of `table_size`: it starts (and draws its seats) when full.
fn sit_and_go(players: u32, table_size: u8) -> TournamentDefinition {
    TournamentDefinition {
        start: Start::SitAndGo,
        capacity: players,
        min_players: players,
        table_size,
        guarantee: None,
        ..freezeout(players)
    }
}

/// Creates a sit & go, fills it, and returns it with every seat instruction of its draw.
async fn seated(world: &World, players: &[&str], table_size: u8) -> (TournamentId, Vec<(u32, SeatStack)>) {
    let t = world.create(sit_and_go(players.len() as u32, table_size)).await;
    for player in players {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    let seats = |i: &[TableInstruction]| i.iter().filter(|i| matches!(i.instruction, Instruction::SeatPlayer { .. })).count();
    let all = world.instructions_when(t, |i| seats(i) == players.len()).await;
    let seated = all
        .into_iter()
        .filter_map(|i| match i.instruction {
            Instruction::SeatPlayer { entry, seat, stack, .. } => Some((i.table, SeatStack { seat, entry, chips: stack })),
            _ => None,
        })
        .collect();
    (t, seated)
}

/// Publishes raw bytes on a table's report subject, as a table server would.
async fn publish(world: &World, subject_tournament: TournamentId, subject_table: u32, id: &str, body: Vec<u8>) {
    let message = async_nats::jetstream::message::PublishMessage::build().payload(body.into()).message_id(id);
    let subject = floor_events::table::reports_subject(subject_tournament, subject_table);
    world.jetstream().send_publish(subject, message).await.expect("publish").await.expect("ack");
}

fn body(t: TournamentId, table: u32, id: &str, report: Report) -> Vec<u8> {
    serde_json::to_vec(&TableReport { tournament_id: t, table, report_id: id.into(), report }).expect("report")
}

/// Waits until the seating log of `t` holds an event `wanted` accepts, and returns it.
async fn seating_event(world: &World, t: TournamentId, wanted: impl Fn(&SeatingEvent) -> bool) -> SeatingEvent {
    let subject = subjects::event_subject(subjects::aggregate::SEATING, t.0);
    let find = |payload: &[u8]| floor_events::record::decode_commit::<SeatingEvent>(payload).ok().and_then(|e| e.into_iter().find(&wanted));
    let mut found = None;
    let mut following = floor_runtime::follow::follow(&world.backbone, vec![subject], |m| {
        if found.is_none() {
            found = find(&m.payload);
        }
    })
    .await
    .expect("follow");
    while found.is_none() {
        let Ok(next) = tokio::time::timeout(Duration::from_secs(10), following.next()).await else {
            panic!("tournament {t}: no such seating event");
        };
        found = find(&next.expect("connection").expect("message").payload);
    }
    found.expect("found")
}

/// The rejection of report `id` in `t`'s seating log: (table, code, reason).
async fn rejection(world: &World, t: TournamentId, id: &str) -> (u32, String, String) {
    let event = seating_event(world, t, |e| matches!(e, SeatingEvent::ReportRejected { report_id, .. } if report_id == id)).await;
    let SeatingEvent::ReportRejected { table, code, reason, .. } = event else { unreachable!() };
    (table, code, reason)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_whose_body_names_another_table_than_its_subject_is_rejected_on_the_subject_table() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let (ours, our_seats) = seated(&world, &["ana", "ben"], 9).await;
    let (theirs, _) = seated(&world, &["cleo", "dan"], 9).await;
    let stacks: Vec<SeatStack> = our_seats.iter().map(|s| s.1).collect();
    let hand_1 = || Report::HandStarted { hand: 1, button: stacks[0].seat, stacks: stacks.clone(), deal_hand: None };

    // Their table 1 publishes a hand of our table 1.
    publish(&world, theirs, 1, "foreign-1", body(ours, 1, "foreign-1", hand_1())).await;
    let (table, code, reason) = rejection(&world, theirs, "foreign-1").await;
    assert_eq!((table, code.as_str()), (1, codes::SUBJECT_MISMATCH), "{reason}");
    assert!(reason.contains(&ours.to_string()), "the reason names both: {reason}");
    // Our table 2 (none exists) publishes a hand of our table 1.
    publish(&world, ours, 2, "wrong-table-1", body(ours, 1, "wrong-table-1", hand_1())).await;
    let (table, code, _) = rejection(&world, ours, "wrong-table-1").await;
    assert_eq!((table, code.as_str()), (2, codes::SUBJECT_MISMATCH));
    // Neither was applied to our table 1: its hand 1 is still to come, and fits.
    publish(&world, ours, 1, "ours-1", body(ours, 1, "ours-1", hand_1())).await;
    seating_event(&world, ours, |e| matches!(e, SeatingEvent::HandStarted { table: 1, hand: 1, .. })).await;

    // A tournament without seating: rejected where its table can see it, not dropped.
    let nowhere = TournamentId(uuid::Uuid::now_v7());
    publish(&world, nowhere, 1, "nowhere-1", body(nowhere, 1, "nowhere-1", hand_1())).await;
    let (table, code, _) = rejection(&world, nowhere, "nowhere-1").await;
    assert_eq!((table, code.as_str()), (1, codes::UNKNOWN_TOURNAMENT));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_reports_are_recorded_as_rejected_on_the_subject_table() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let (t, _) = seated(&world, &["ana", "ben"], 9).await;
    let unknown_type = format!(r#"{{"tournament_id":"{t}","table":1,"report_id":"odd-type","report":{{"type":"hand_exploded"}}}}"#);
    let negative = format!(
        r#"{{"tournament_id":"{t}","table":1,"report_id":"negative","report":{{"type":"hand_started","hand":1,"button":1,"stacks":[{{"seat":1,"entry":1,"chips":-5}}]}}}}"#
    );
    publish(&world, t, 1, "m1", b"{not json".to_vec()).await;
    publish(&world, t, 1, "m2", unknown_type.into_bytes()).await;
    publish(&world, t, 1, "m3", negative.into_bytes()).await;
    for id in ["", "odd-type", "negative"] {
        let (table, code, reason) = rejection(&world, t, id).await;
        assert_eq!((table, code.as_str()), (1, codes::MALFORMED_REPORT), "{id:?}: {reason}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejection_names_the_rule_that_failed() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let (t, seats) = seated(&world, &["ana", "ben", "cleo", "dan"], 2).await;
    let at = |table: u32| seats.iter().filter(|s| s.0 == table).map(|s| s.1).collect::<Vec<_>>();
    let (one, two) = (at(1), at(2));
    assert_eq!((one.len(), two.len()), (2, 2), "two tables of two: {seats:?}");

    // An entry of table 2, in table 1's hand, in a seat that is free there.
    let free = (1..=2).map(floor_events::table::SeatNo).find(|s| !one.iter().any(|o| o.seat == *s));
    let stranger = SeatStack { seat: free.unwrap_or(one[0].seat), ..two[0] };
    let stacks = vec![one[0], stranger];
    publish(
        &world,
        t,
        1,
        "stranger",
        body(t, 1, "stranger", Report::HandStarted { hand: 1, button: one[0].seat, stacks, deal_hand: None }),
    )
    .await;
    let (_, code, reason) = rejection(&world, t, "stranger").await;
    assert_eq!(code, codes::UNKNOWN_PLAYER, "{reason}");
    assert_eq!(reason, format!("entry {} does not sit at table 1", two[0].entry));

    // A finish without a start.
    let finish = Report::HandFinished { hand: 1, stacks: one.clone(), busts: vec![] };
    publish(&world, t, 1, "no-start", body(t, 1, "no-start", finish)).await;
    let (_, code, reason) = rejection(&world, t, "no-start").await;
    assert_eq!(code, codes::HAND_NOT_STARTED, "{reason}");
}

/// The next `n` rejections on table `table`'s own rejection subject, from its start.
async fn rejections_told(world: &World, t: TournamentId, table: u32, n: usize) -> Vec<TableRejection> {
    use futures::StreamExt;
    let filter_subject = floor_events::table::rejections_subject(t, table);
    let config = async_nats::jetstream::consumer::pull::OrderedConfig { filter_subject, ..Default::default() };
    let consumer = world.backbone.tables.create_consumer(config).await.expect("consumer");
    let mut messages = consumer.messages().await.expect("messages");
    let mut told = Vec::new();
    while told.len() < n {
        let Ok(next) = tokio::time::timeout(Duration::from_secs(10), messages.next()).await else {
            panic!("table {table} was told of {told:?} only");
        };
        told.push(serde_json::from_slice(&next.expect("stream").expect("message").payload).expect("a rejection"));
    }
    told
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_is_told_of_its_own_rejected_reports_on_its_rejection_subject() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let (t, seats) = seated(&world, &["ana", "ben", "cleo", "dan"], 2).await;
    let two: Vec<SeatStack> = seats.iter().filter(|s| s.0 == 2).map(|s| s.1).collect();

    let finish = |stacks: Vec<SeatStack>| Report::HandFinished { hand: 1, stacks, busts: vec![] };
    publish(&world, t, 1, "t1-no-start", body(t, 1, "t1-no-start", finish(vec![]))).await;
    publish(&world, t, 1, "t1-garbage", b"{not json".to_vec()).await;
    publish(&world, t, 2, "t2-no-start", body(t, 2, "t2-no-start", finish(two))).await;

    let one = rejections_told(&world, t, 1, 2).await;
    let told: Vec<(u32, &str, &str)> = one.iter().map(|r| (r.table, r.report_id.as_str(), r.code.as_str())).collect();
    assert_eq!(told, [(1, "t1-no-start", codes::HAND_NOT_STARTED), (1, "", codes::MALFORMED_REPORT)]);
    assert!(one.iter().all(|r| r.tournament_id == t && !r.reason.is_empty()), "{one:?}");
    let two = rejections_told(&world, t, 2, 1).await;
    assert_eq!((two[0].table, two[0].report_id.as_str(), two[0].code.as_str()), (2, "t2-no-start", codes::HAND_NOT_STARTED));
    // The log says the same: the subject is a copy of `report_rejected`, not another judgement.
    let (table, code, reason) = rejection(&world, t, "t2-no-start").await;
    assert_eq!((table, code, reason), (2, two[0].code.clone(), two[0].reason.clone()));
}
