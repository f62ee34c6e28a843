//! Shootouts (issue 37), against a real nats-server: a six-player sit & go on three-seat
//! tables is a double shootout. The start-of-play draw seats two tables of three (round 1);
//! each plays, with no balancing and no breaking, until one player is left (003 App. 1 b ii:
//! "Dokud u stolu nesedí poslední účastník hazardní hry, zůstává účastník hazardní hry u svého
//! původního stolu"); the round waits for its last table; the two winners are drawn afresh
//! onto a final table with the stacks they won (round 2, drawn once), which plays to the
//! tournament's winner (004 §4.36.3: "osm (8) vítězů se přesune k finálovému hracímu stolu,
//! kde se bude hrát až do určení jednoho konečného vítěze"). The books balance; the `bracket`
//! verb shows both rounds. The platform killed between the rounds and restarted forms round 2
//! exactly once.

use floor_events::payouts::{Books, BooksRequest};
use floor_events::registration::TournamentEvent;
use floor_events::seating::{DrawnTable, SeatingEvent};
use floor_events::shootouts::{Bracket, BracketOf, ShootoutEvent, ShootoutTerms};
use floor_events::table::{self, BustReport, Instruction, PotWon, Report, SeatStack, TableReport};
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{subjects, CommandId, EntryNo, Reply, TournamentId};
use floor_tests::{heads_up, ten_minute_levels, World};

const NAMES: [&str; 6] = ["ann", "bob", "cat", "dan", "eve", "fay"];

/// A six-seat sit & go on three-seat tables, each table's one winner going on.
fn double_shootout() -> TournamentDefinition {
    TournamentDefinition {
        name: "E2E Shootout".into(),
        start: Start::SitAndGo,
        capacity: 6,
        min_players: 6,
        table_size: 3,
        late_registration_until: None,
        rebuy: None,
        add_on: None,
        shootout: Some(ShootoutTerms::new(1)),
        ..heads_up(ten_minute_levels())
    }
}

/// Publishes `report` from `table` of `t`, as that table's server would.
async fn report(world: &World, t: TournamentId, number: u32, id: &str, report: Report) {
    use async_nats::jetstream::message::PublishMessage;
    let body = serde_json::to_vec(&TableReport { tournament_id: t, table: number, report_id: id.into(), report }).expect("report");
    let message = PublishMessage::build().payload(body.into()).message_id(table::report_message_id(t, number, id));
    world.jetstream().send_publish(table::reports_subject(t, number), message).await.expect("publish").await.expect("ack");
}

/// One hand at a table: its first seat's player wins every other player's stack; they are out.
/// Returns the winner.
async fn first_seat_takes_all(world: &World, t: TournamentId, drawn: &DrawnTable, chips: u64) -> EntryNo {
    let stacks: Vec<SeatStack> = drawn.seats.iter().map(|s| SeatStack { seat: s.seat, entry: s.entry, chips }).collect();
    let winner = stacks[0];
    let id = |what: &str| format!("t{}-h1-{what}", drawn.table);
    report(
        world,
        t,
        drawn.table,
        &id("start"),
        Report::HandStarted { hand: 1, button: winner.seat, stacks: stacks.clone(), deal_hand: None },
    )
    .await;
    let busts: Vec<BustReport> = stacks[1..]
        .iter()
        .map(|loser| BustReport {
            entry: loser.entry,
            stack_at_start: loser.chips,
            pots: vec![PotWon { winners: vec![winner.entry], chips: loser.chips }],
            best_high_hand: None,
        })
        .collect();
    let after = vec![SeatStack { chips: chips * stacks.len() as u64, ..winner }];
    report(world, t, drawn.table, &id("end"), Report::HandFinished { hand: 1, stacks: after, busts }).await;
    winner.entry
}

/// Every event of `aggregate`'s log of `t` stored so far.
async fn log<E: serde::de::DeserializeOwned>(world: &World, aggregate: &str, t: TournamentId) -> Vec<E> {
    use futures::StreamExt;
    let stream = world.jetstream().get_stream(subjects::EVENTS_STREAM).await.expect("events");
    let subject = subjects::event_subject(aggregate, t.0);
    let last = stream.direct_get_last_for_subject(&subject).await.expect("a last commit").sequence;
    let consumer = stream
        .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig { filter_subject: subject, ..Default::default() })
        .await
        .expect("consumer");
    let mut messages = consumer.messages().await.expect("messages");
    let mut events = Vec::new();
    loop {
        let message = messages.next().await.expect("a commit").expect("readable");
        let sequence = message.info().expect("info").stream_sequence;
        events.extend(floor_events::record::decode_commit::<E>(&message.payload).expect("a commit of the aggregate"));
        if sequence >= last {
            return events;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_shootout_is_played_table_by_table_to_a_winner_and_a_restart_between_rounds_forms_round_two_once() {
    let mut world = World::start_configured(|c| c.skip("scheduler")).await;
    let definition = double_shootout();
    let chips = definition.starting_stack;
    let t = world.create(definition).await;
    let mut seating = world.watch_events::<SeatingEvent>(subjects::aggregate::SEATING, t).await;
    let mut rounds = world.watch_events::<ShootoutEvent>(subjects::aggregate::SHOOTOUT, t).await;
    for p in NAMES {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }

    // Round 1: the start-of-play draw, two tables of three.
    let SeatingEvent::TablesDrawn { tables, .. } = seating.next_where(|e| matches!(e, SeatingEvent::TablesDrawn { .. })).await else {
        unreachable!()
    };
    assert_eq!(tables.iter().map(|t| t.seats.len()).collect::<Vec<_>>(), vec![3, 3]);
    let ShootoutEvent::RoundStarted(first) = rounds.next_where(|e| matches!(e, ShootoutEvent::RoundStarted(_))).await else {
        unreachable!()
    };
    assert_eq!((first.round, first.entries.len()), (1, 6));

    // Table 1 finishes first: it is won and closed; the round waits for table 2, untouched.
    let first_winner = first_seat_takes_all(&world, t, &tables[0], chips).await;
    let won = seating.next_where(|e| matches!(e, SeatingEvent::TableWon { .. })).await;
    assert_eq!(won, SeatingEvent::TableWon { round: 1, table: 1, winners: vec![first_winner] });

    // Table 2 finishes: the round is complete. The platform is killed as soon as seating has
    // stored the win, before or after the shootouts policy acted, and restarted.
    let second_winner = first_seat_takes_all(&world, t, &tables[1], chips).await;
    let won = seating.next_where(|e| matches!(e, SeatingEvent::TableWon { .. })).await;
    assert_eq!(won, SeatingEvent::TableWon { round: 1, table: 2, winners: vec![second_winner] });
    world.kill_platform();
    world.restart_platform().await;

    // Round 2: the two winners, drawn afresh onto a final table numbered after the first
    // round's, each with the stack they won their table with.
    let mut advancing = vec![first_winner, second_winner];
    advancing.sort();
    let ShootoutEvent::RoundStarted(second) = rounds.next_where(|e| matches!(e, ShootoutEvent::RoundStarted(s) if s.round == 2)).await
    else {
        unreachable!()
    };
    assert_eq!(second.entries, advancing);
    let SeatingEvent::RoundDrawn { round: 2, tables: finals, .. } =
        seating.next_where(|e| matches!(e, SeatingEvent::RoundDrawn { .. })).await
    else {
        panic!("round 2 is drawn")
    };
    assert_eq!(finals.len(), 1);
    assert_eq!(finals[0].table, 3);
    let mut seated: Vec<EntryNo> = finals[0].seats.iter().map(|s| s.entry).collect();
    seated.sort();
    assert_eq!(seated, advancing);

    // The final table plays to the winner.
    let champion = first_seat_takes_all(&world, t, &finals[0], chips * 3).await;
    let won = seating.next_where(|e| matches!(e, SeatingEvent::TournamentWon { .. })).await;
    assert_eq!(won, SeatingEvent::TournamentWon { entry: champion });
    let completed = rounds.next_where(|e| matches!(e, ShootoutEvent::RoundCompleted(c) if c.round == 2)).await;
    let ShootoutEvent::RoundCompleted(completed) = completed else { unreachable!() };
    assert_eq!(completed.advancing, vec![champion]);

    // Registration finishes the tournament with the champion; its books balance.
    let mut tournament = world.watch_events::<TournamentEvent>(subjects::aggregate::TOURNAMENT, t).await;
    let TournamentEvent::TournamentFinished(finished) =
        tournament.next_where(|e| matches!(e, TournamentEvent::TournamentFinished(_))).await
    else {
        unreachable!()
    };
    assert_eq!(finished.winner, champion);
    world.read_by("payouts", t, world.last_sequence().await).await;
    let books: Books = match world.request(subjects::service::PAYOUTS, "books", &BooksRequest { tournament_id: t }).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("books"),
        Reply::Error(e) => panic!("books refused: {e:?}"),
    };
    assert!(books.balanced, "the shootout's books: {books:?}");

    // Round 2 was formed exactly once, its seed committed before and revealed with its draw.
    let rounds_log: Vec<ShootoutEvent> = log(&world, subjects::aggregate::SHOOTOUT, t).await;
    let starts: Vec<u32> =
        rounds_log.iter().filter_map(|e| if let ShootoutEvent::RoundStarted(s) = e { Some(s.round) } else { None }).collect();
    assert_eq!(starts, vec![1, 2], "each round started once: {rounds_log:?}");
    let seating_events: Vec<SeatingEvent> = log(&world, subjects::aggregate::SEATING, t).await;
    let draws = seating_events.iter().filter(|e| matches!(e, SeatingEvent::RoundDrawn { .. })).count();
    assert_eq!(draws, 1, "round 2 drawn once");
    let committed = seating_events.iter().position(|e| matches!(e, SeatingEvent::RoundDrawCommitted { round: 2, .. }));
    let drawn = seating_events.iter().position(|e| matches!(e, SeatingEvent::RoundDrawn { .. }));
    assert!(committed < drawn && committed.is_some(), "the seed is committed before the draw");
    assert!(!seating_events.iter().any(|e| matches!(e, SeatingEvent::PlayerMoved { .. })), "no balancing");
    // The carried stacks: each finalist is seated with the chips of their whole table.
    let final_stacks: Vec<u64> = seating_events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Instructed { instruction } if instruction.table == 3 => match instruction.instruction {
                Instruction::SeatPlayer { stack, .. } => Some(stack),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(final_stacks, vec![chips * 3; 2]);

    // The bracket: both rounds, with their entries and winners.
    world.read_by("shootouts", t, world.last_sequence().await).await;
    let request = BracketOf { tournament_id: t, command_id: CommandId::new() };
    let bracket: Bracket = match world.request(subjects::service::SHOOTOUTS, "bracket", &request).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("a bracket"),
        Reply::Error(e) => panic!("bracket refused: {e:?}"),
    };
    assert_eq!(bracket.rounds.len(), 2);
    assert_eq!(bracket.rounds[0].entries.len(), 6);
    assert_eq!(bracket.rounds[0].advancing.as_ref(), Some(&advancing));
    assert_eq!(bracket.rounds[1].advancing, Some(vec![champion]));
}

/// A shootout of `capacity` at 9-max with this short field and prizes per round reached.
fn short_field_shootout(
    capacity: u32,
    start: Start,
    short_field: floor_events::shootouts::ShortField,
    table_win_bps: u32,
) -> TournamentDefinition {
    use floor_events::shootouts::ShootoutPrizes;
    let prizes = ShootoutPrizes { reached_bps: vec![0, 500], table_win_bps };
    TournamentDefinition {
        name: "E2E Short field".into(),
        start,
        capacity,
        min_players: if start == Start::SitAndGo { capacity } else { 2 },
        table_size: 9,
        shootout: Some(ShootoutTerms { short_field, prizes: Some(prizes), ..ShootoutTerms::new(1) }),
        ..double_shootout()
    }
}

/// A field that does not fill the tables, end to end with `floor sim` (issue 37): 20 players at
/// 9-max with `byes` play two full tables, the two byes joining the two table winners in a final
/// of four; with `trim` (a scheduled start, 20 of 81 registered) the last two registrants are
/// refunded in full at the start and 18 play two tables, then a heads-up final. Each pays per
/// round reached (004 §4.36.3): the final table's others 5 % of the pool each (and, trimmed,
/// 2 % more for the table each won: "arena"), the winner the rest; every entrant plays, has a
/// bye or is refunded, and the books balance to the cent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_field_with_byes_or_trimmed_plays_its_rounds_and_pays_per_round_reached() {
    use floor::sim::{self, SimConfig};
    use floor_events::shootouts::ShortField;
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some([7; 32]);
    })
    .await;
    let tomorrow = Start::At(chrono::Utc::now() + chrono::Duration::days(1));
    let cases = [
        (
            ShortField::Byes,
            short_field_shootout(20, Start::SitAndGo, ShortField::Byes, 0),
            vec![(20, 4), (4, 1)],
            0u64,
            vec![500, 500, 500],
        ),
        (ShortField::Trim, short_field_shootout(81, tomorrow, ShortField::Trim, 200), vec![(18, 2), (2, 1)], 2, vec![700]),
    ];
    for (n, (short, definition, rounds, refunded, others_bps)) in cases.into_iter().enumerate() {
        let t = TournamentId(uuid::Uuid::from_u128(0x5400_0b7e_0000 + n as u128));
        let config = SimConfig { definition: Some(definition.clone()), ..SimConfig::new(20, 31 + n as u64, t) };
        let summary = sim::run(&world.backbone, &config, |_| {}).await.unwrap_or_else(|e| panic!("{short:?}: {e}"));
        let played: Vec<(u32, u32)> =
            summary.formats.shootout.as_ref().expect("a shootout").rounds.iter().map(|r| (r.entries, r.advancing)).collect();
        assert_eq!(played, rounds, "{short:?}");
        let books = &summary.books;
        assert!(books.balanced, "{short:?}: {books:?}");
        assert_eq!(books.refunded, refunded * definition.entry_ledger().paid_in.amount, "{short:?}: the trimmed are refunded in full");
        assert_eq!(books.entries + refunded as u32, 20, "{short:?}: every entrant plays, has a bye or is refunded");
        let pool = books.prize_pool;
        let mut paid: Vec<u64> = summary.standings.iter().filter(|a| a.amount > 0).map(|a| a.amount).collect();
        paid.sort_unstable_by(|a, b| b.cmp(a));
        let others: Vec<u64> = others_bps.iter().map(|&bps| pool * bps / 10_000).collect();
        let winner = pool - others.iter().sum::<u64>();
        assert_eq!(paid, [vec![winner], others].concat(), "{short:?}: paid per round reached");
        assert_eq!(summary.standings.iter().map(|a| a.amount).sum::<u64>(), pool, "{short:?}: money in = money out");
    }
}
