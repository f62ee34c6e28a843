//! Deals (issue 22), against a real nats-server: a four-handed sit & go is played down to three;
//! one of them proposes an ICM deal over NATS with the chips the table reported, the clock
//! pauses ("deal discussion"), the bad requests the issue names get their codes and store
//! nothing, the platform is killed and restarted mid-discussion, the other two accept, the
//! clock runs again, and the eliminations after that pay the agreed amounts, the winner's with
//! what was left to play for; the books close to the cent. A second tournament is cancelled
//! after its deal, and the cancellation pays the agreed amounts.

use floor_events::clock::ClockEvent;
use floor_events::payouts::{Books, DealAnswer, DealMethod, DealQuery, DealStage, DealStatus, PayoutEvent, ProposeDeal};
use floor_events::registration::TournamentEvent;
use floor_events::table::{BustReport, PotWon, Report, SeatStack};
use floor_events::{codes, subjects, CommandId, Money, PlayerId, Reply, TournamentId};
use floor_tests::{four_handed, recorded, refusal_code, World};
use serde_json::Value;
use std::time::Duration;

const NAMES: [&str; 4] = ["ann", "bob", "cat", "dan"];

/// A tournament's payouts commits as they are stored (from when it is made).
struct PayoutsWatch(floor_runtime::follow::Following);

impl PayoutsWatch {
    async fn start(world: &World, t: TournamentId) -> Self {
        let subject = subjects::event_subject(subjects::aggregate::PAYOUTS, t.0);
        Self(floor_runtime::follow::follow(&world.backbone, vec![subject], |_| {}).await.expect("follow payouts"))
    }

    /// The next payouts event `wanted` takes (the deadline fails the test).
    async fn next_where(&mut self, wanted: impl Fn(&PayoutEvent) -> bool) -> PayoutEvent {
        let wait = async {
            while let Some(message) = self.0.next().await {
                let events: Vec<PayoutEvent> = floor_events::record::decode_commit(&message.expect("readable").payload).expect("payouts");
                if let Some(e) = events.into_iter().find(|e| wanted(e)) {
                    return e;
                }
            }
            panic!("payouts follow ended");
        };
        tokio::time::timeout(Duration::from_secs(20), wait).await.expect("payouts event in time")
    }
}

fn player(entry: floor_events::EntryNo) -> PlayerId {
    PlayerId::parse(NAMES[entry.0 as usize - 1]).unwrap()
}

async fn payouts(world: &World, verb: &str, request: &impl serde::Serialize) -> Reply<Value> {
    world.request(subjects::service::PAYOUTS, verb, request).await
}

#[tokio::test]
async fn three_players_agree_an_icm_deal_over_nats_the_clock_pauses_and_the_eliminations_pay_the_agreed_amounts() {
    let mut world = World::start().await;
    let DownToThree { t, mut clock, mut log, seats, three } = down_to_three(&world).await;
    let (leader, middle, short) = (three[0], three[1], three[2]);
    assert_eq!((leader.chips, middle.chips, short.chips), (20_000, 12_000, 8_000));

    // The chip leader proposes ICM with 10 % of the unpaid prizes left to play for (the pool is
    // 4 × 10 EUR and one place is paid: 40.00 unpaid, 4.00 left).
    let propose = ProposeDeal {
        command_id: CommandId::new(),
        tournament_id: t,
        player: player(leader.entry),
        method: DealMethod::Icm,
        left_to_play_for: Some(Money::new(400, floor_events::Currency::EUR)),
        ends_tournament: false,
    };
    let proposed = recorded::<PayoutEvent>(payouts(&world, "propose_deal", &propose).await);
    let [PayoutEvent::DealProposed { shares, left_to_play_for: 400, pool: 4_000, .. }] = proposed.as_slice() else {
        panic!("{proposed:?}")
    };
    let mut chips: Vec<(u32, u64)> = shares.iter().map(|s| (s.entry.0, s.chips)).collect();
    chips.sort_unstable();
    let mut table = vec![(leader.entry.0, 20_000), (middle.entry.0, 12_000), (short.entry.0, 8_000)];
    table.sort_unstable();
    assert_eq!(chips, table, "the chips the table reported");
    assert_eq!(shares.iter().map(|s| s.amount).sum::<u64>(), 3_600, "the rest of the pool, to the cent");
    let amount = |entry| shares.iter().find(|s| s.entry == entry).unwrap().amount;
    assert!(amount(leader.entry) > amount(middle.entry) && amount(middle.entry) > amount(short.entry), "ICM: more chips, more money");
    let shares = shares.clone();
    // The clock pauses while the deal is discussed.
    let (paused, _) = clock.next_where(|e| matches!(e, ClockEvent::Paused { .. })).await;
    assert!(matches!(&paused, ClockEvent::Paused { reason, .. } if reason == "deal discussion"), "{paused:?}");

    // Bad input: a second proposal, an answer from the player who is out, the proposer's
    // accept twice: codes, nothing stored.
    // (The payouts log's last commit: seating and the clock may still be storing their own.)
    let payouts_log = subjects::event_subject(subjects::aggregate::PAYOUTS, t.0);
    let store = floor_runtime::JetStreamStore::new(&world.backbone);
    let before = store.last_sequence(&payouts_log).await.expect("payouts log");
    let answer = |who: PlayerId| DealAnswer { command_id: CommandId::new(), tournament_id: t, player: who };
    let again = ProposeDeal { command_id: CommandId::new(), player: player(middle.entry), ..propose.clone() };
    assert_eq!(refusal_code(&payouts(&world, "propose_deal", &again).await), codes::DEAL_ALREADY_PROPOSED);
    assert_eq!(refusal_code(&payouts(&world, "accept_deal", &answer(player(seats[1].entry))).await), codes::NOT_REMAINING);
    assert_eq!(refusal_code(&payouts(&world, "accept_deal", &answer(player(leader.entry))).await), codes::DEAL_ALREADY_ACCEPTED);
    let elsewhere = DealAnswer { tournament_id: TournamentId::new(), ..answer(player(middle.entry)) };
    assert_eq!(refusal_code(&payouts(&world, "accept_deal", &elsewhere).await), codes::UNKNOWN_TOURNAMENT);
    assert_eq!(store.last_sequence(&payouts_log).await.expect("payouts log"), before, "refusals store nothing");

    // The platform dies mid-discussion and comes back: the proposal and its acceptances hold.
    world.kill_platform();
    world.restart_platform().await;
    assert_eq!(refusal_code(&payouts(&world, "accept_deal", &answer(player(leader.entry))).await), codes::DEAL_ALREADY_ACCEPTED);

    // The other two accept: agreed, and the clock runs again.
    assert_eq!(
        recorded::<PayoutEvent>(payouts(&world, "accept_deal", &answer(player(middle.entry))).await),
        vec![PayoutEvent::DealAccepted { player: player(middle.entry) }]
    );
    let last = recorded::<PayoutEvent>(payouts(&world, "accept_deal", &answer(player(short.entry))).await);
    assert!(matches!(last.last(), Some(PayoutEvent::DealAgreed { left_to_play_for: 400, .. })), "{last:?}");
    clock.next_where(|e| matches!(e, ClockEvent::Resumed { .. })).await;
    // `deal` answers once the payouts memory has read the log as far as it went when asked.
    let status = match payouts(&world, "deal", &DealQuery { tournament_id: t }).await {
        Reply::Ok(v) => serde_json::from_value::<DealStatus>(v).expect("deal status"),
        other => panic!("{other:?}"),
    };
    assert_eq!((status.stage, status.waiting_for.len(), status.accepted.len()), (DealStage::Agreed, 0, 3));

    // Play on: the chip leader goes out third, the short stack wins.
    let two = world.bust(t, 2, &three, short, leader).await;
    let seat_of = |entry| two.iter().copied().find(|s: &SeatStack| s.entry == entry).unwrap();
    world.bust(t, 3, &two, seat_of(short.entry), seat_of(middle.entry)).await;
    log.next_where(|e| matches!(e, PayoutEvent::TournamentPaid { .. })).await;

    let books = match payouts(&world, "books", &floor_events::payouts::BooksRequest { tournament_id: t }).await {
        Reply::Ok(v) => serde_json::from_value::<Books>(v).expect("books"),
        other => panic!("{other:?}"),
    };
    assert!(books.finished && books.balanced, "{books:?}");
    assert_eq!((books.prize_pool, books.prizes_paid), (4_000, 4_000));

    let awards: Vec<_> = awards_in_log(&world, t).await;
    let share = |entry: floor_events::EntryNo| shares.iter().find(|s| s.entry == entry).unwrap().amount;
    assert!(awards.contains(&(leader.entry.0, 3, share(leader.entry))), "{awards:?}");
    assert!(awards.contains(&(middle.entry.0, 2, share(middle.entry))), "{awards:?}");
    assert!(awards.contains(&(short.entry.0, 1, share(short.entry) + 400)), "the winner's share and what was left: {awards:?}");
    // Anyone's audit checks each award after the deal against the agreed share (issue 42).
    let report = floor::audit::report(&floor::audit::read(&world.backbone.jetstream, t.0).await.expect("the log"));
    assert!(report.ok, "{}", report.summary());
}

/// A four-handed sit & go down to three, followed: its clock's and payouts' commits.
struct DownToThree {
    t: TournamentId,
    clock: floor_tests::ClockWatch,
    log: PayoutsWatch,
    /// The four seats drawn.
    seats: Vec<SeatStack>,
    /// The three left, chip leader first.
    three: Vec<SeatStack>,
}

/// Creates a four-handed sit & go, registers the four, waits for the clock, and plays hand 1:
/// the first seat busts the second, the third wins 2,000 from the fourth; 20,000, 12,000 and
/// 8,000 chips are left.
async fn down_to_three(world: &World) -> DownToThree {
    let t: TournamentId = world.create(four_handed()).await;
    let mut clock = world.watch_clock(t).await;
    let mut log = PayoutsWatch::start(world, t).await;
    for p in NAMES {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    let seats = world.seated(t, 4).await;
    clock.next_where(|e| matches!(e, ClockEvent::StepStarted { .. })).await;
    world.report(t, "h1-start", Report::HandStarted { hand: 1, button: seats[0].seat, stacks: seats.clone(), deal_hand: None }).await;
    let (s0, s1, s2, s3) = (seats[0], seats[1], seats[2], seats[3]);
    let out = BustReport {
        entry: s1.entry,
        stack_at_start: s1.chips,
        pots: vec![PotWon { winners: vec![s0.entry], chips: s1.chips }],
        best_high_hand: None,
    };
    let three = vec![SeatStack { chips: 20_000, ..s0 }, SeatStack { chips: 12_000, ..s2 }, SeatStack { chips: 8_000, ..s3 }];
    world.report(t, "h1-end", Report::HandFinished { hand: 1, stacks: three.clone(), busts: vec![out] }).await;
    log.next_where(|e| matches!(e, PayoutEvent::PlacesAwarded { players_left_before: 4, .. })).await;
    DownToThree { t, clock, log, seats, three }
}

/// Issue 22: a cancellation after an agreed deal honours it. The three agree an equal deal
/// with 4.00 left to play for (36.00 split: 12.00 each), the chip leader goes out third and is
/// paid 12.00, then the tournament is cancelled: each of the two still in gets the fee back,
/// the 12.00 agreed, and the 4.00 left to play for by chips (the leader's 20,000 went to the
/// short stack: 28,000 against 12,000 → 2.80 and 1.20). No place prize instead of the deal.
#[tokio::test]
async fn a_tournament_cancelled_after_a_deal_pays_the_agreed_amounts() {
    use floor_events::abort::statement::{Case, LineKind, Rule};
    use floor_events::abort::{self, AbortEvent};
    let world = World::start().await;
    let DownToThree { t, mut log, three, .. } = down_to_three(&world).await;
    let (leader, middle, short) = (three[0], three[1], three[2]);
    let propose = ProposeDeal {
        command_id: CommandId::new(),
        tournament_id: t,
        player: player(leader.entry),
        method: DealMethod::Equal,
        left_to_play_for: Some(Money::new(400, floor_events::Currency::EUR)),
        ends_tournament: false,
    };
    recorded::<PayoutEvent>(payouts(&world, "propose_deal", &propose).await);
    for who in [middle, short] {
        let answer = DealAnswer { command_id: CommandId::new(), tournament_id: t, player: player(who.entry) };
        recorded::<PayoutEvent>(payouts(&world, "accept_deal", &answer).await);
    }
    log.next_where(|e| matches!(e, PayoutEvent::DealAgreed { .. })).await;
    let two = world.bust(t, 2, &three, short, leader).await;
    log.next_where(|e| matches!(e, PayoutEvent::PlacesAwarded { players_left_before: 3, .. })).await;
    assert_eq!(two.iter().map(|s| s.chips).sum::<u64>(), 40_000);

    let cancel = abort::Cancel {
        command_id: CommandId::new(),
        tournament_id: t,
        reason: "the venue closes".into(),
        method: Default::default(),
        cause: None,
    };
    // Asked again until the abort service has read the bust's place.
    let reply = world.request_once_read(subjects::service::ABORT, "cancel", &cancel, codes::SNAPSHOT_UNAVAILABLE).await;
    let events = recorded::<AbortEvent>(reply);
    let [AbortEvent::Cancelled { cancellation, snapshot, .. }] = events.as_slice() else { panic!("{events:?}") };
    assert_eq!(cancellation.case, Case::AfterDeal, "{cancellation:?}");
    assert_eq!(snapshot.deal.as_ref().map(|d| (d.parts.len(), d.left_to_play_for)), Some((2, 400)));
    let lines = |entry| -> Vec<(LineKind, Rule, u64)> {
        cancellation.statements.iter().flat_map(|s| &s.lines).filter(|l| l.entry == entry).map(|l| (l.kind, l.rule, l.amount)).collect()
    };
    let fee = 100;
    assert_eq!(
        lines(short.entry),
        [
            (LineKind::RefundFee, Rule::TdaRollForward, fee),
            (LineKind::DealShare, Rule::FloorDeal, 1_200),
            (LineKind::ChipShare, Rule::TdaRollForward, 280)
        ]
    );
    assert_eq!(
        lines(middle.entry),
        [
            (LineKind::RefundFee, Rule::TdaRollForward, fee),
            (LineKind::DealShare, Rule::FloorDeal, 1_200),
            (LineKind::ChipShare, Rule::TdaRollForward, 120)
        ]
    );
    assert!(cancellation.books.balanced(), "{:?}", cancellation.books);
    assert_eq!(cancellation.books.prizes_already_paid, 1_200, "the leader's agreed amount, paid when it went out");
}

/// Every award of `t`'s payouts log: (entry, place, amount).
async fn awards_in_log(world: &World, t: TournamentId) -> Vec<(u32, u32, u64)> {
    let subject = subjects::event_subject(subjects::aggregate::PAYOUTS, t.0);
    let commits: Vec<floor_runtime::store::StoredCommit<PayoutEvent>> =
        floor_runtime::JetStreamStore::new(&world.backbone).load(&subject, 0).await.expect("payouts log");
    commits
        .into_iter()
        .flat_map(|c| c.events)
        .flat_map(|e| if let PayoutEvent::PlacesAwarded { awards, .. } = e { awards } else { vec![] })
        .map(|a| (a.entry.0, a.place, a.amount))
        .collect()
}

/// 000 §16.8 "Ein Turnier kann auch durch einen Turnierdeal enden" and 004 §4.35 (the
/// tournament runs until it has a winner "nebo pokud se na tom dohodnou všichni Sázející", or
/// the players all agree): three players agree a chip chop that ends the tournament. Keeping
/// money to play for is refused (`invalid_field`, nothing stored); agreed, registration
/// finishes it shared by the three (the biggest stack first), payouts places them by chips and
/// pays each the agreed amount, the clock stops, the tables close, and the books balance.
#[tokio::test]
async fn three_players_agree_a_deal_that_ends_the_tournament_and_each_is_paid_the_agreed_amount() {
    let world = World::start().await;
    let DownToThree { t, mut clock, mut log, three, .. } = down_to_three(&world).await;
    let (leader, middle, short) = (three[0], three[1], three[2]);
    let keeping = ProposeDeal {
        command_id: CommandId::new(),
        tournament_id: t,
        player: player(leader.entry),
        method: DealMethod::ChipChop,
        left_to_play_for: Some(Money::new(400, floor_events::Currency::EUR)),
        ends_tournament: true,
    };
    assert_eq!(refusal_code(&payouts(&world, "propose_deal", &keeping).await), codes::INVALID_FIELD, "nothing left to play for");
    let propose = ProposeDeal { command_id: CommandId::new(), left_to_play_for: None, ..keeping };
    let proposed = recorded::<PayoutEvent>(payouts(&world, "propose_deal", &propose).await);
    let [PayoutEvent::DealProposed { shares, ends_tournament: true, left_to_play_for: 0, .. }] = proposed.as_slice() else {
        panic!("{proposed:?}")
    };
    let shares = shares.clone();
    for who in [middle, short] {
        let answer = DealAnswer { command_id: CommandId::new(), tournament_id: t, player: player(who.entry) };
        recorded::<PayoutEvent>(payouts(&world, "accept_deal", &answer).await);
    }
    // Registration finishes it, shared by the three, the chip leader first.
    let mut registration = world.watch_events::<TournamentEvent>(subjects::aggregate::TOURNAMENT, t).await;
    let TournamentEvent::TournamentFinished(finished) =
        registration.next_where(|e| matches!(e, TournamentEvent::TournamentFinished(_))).await
    else {
        unreachable!()
    };
    let order: Vec<u32> = finished.shared_by.iter().map(|s| s.entry.0).collect();
    assert_eq!(order, vec![leader.entry.0, middle.entry.0, short.entry.0], "by chips: 20,000, 12,000, 8,000");
    assert_eq!(finished.winner, leader.entry);
    // Payouts places them by chips, each paid the agreed amount, and the tournament is paid.
    log.next_where(|e| matches!(e, PayoutEvent::TournamentPaid { .. })).await;
    let awards = awards_in_log(&world, t).await;
    let share = |entry: floor_events::EntryNo| shares.iter().find(|s| s.entry == entry).unwrap().amount;
    for (place, seat) in [(1, leader), (2, middle), (3, short)] {
        assert!(awards.contains(&(seat.entry.0, place, share(seat.entry))), "place {place}: {awards:?}");
    }
    // The clock stops with the finish; the table is closed.
    clock.next_where(|e| matches!(e, ClockEvent::Stopped { .. })).await;
    world.instructions_when(t, |i| i.iter().any(|i| i.instruction == floor_events::table::Instruction::CloseTable)).await;
    let books = match payouts(&world, "books", &floor_events::payouts::BooksRequest { tournament_id: t }).await {
        Reply::Ok(v) => serde_json::from_value::<Books>(v).expect("books"),
        other => panic!("{other:?}"),
    };
    assert!(books.finished && books.balanced && books.held == 0, "{books:?}");
    assert_eq!((books.prize_pool, books.prizes_paid), (4_000, 4_000));

    // Anyone's audit (issue 42): ok; with one place paid a cent more than its agreed share (an
    // altered export), the difference names the deal.
    let commits = floor::audit::read(&world.backbone.jetstream, t.0).await.expect("the log");
    let report = floor::audit::report(&commits);
    assert!(report.ok, "{}", report.summary());
    let altered: Vec<String> = floor::export::to_lines(&commits)
        .lines()
        .map(|line| {
            let mut json: Value = serde_json::from_str(line).unwrap();
            for event in json["body"].as_array_mut().unwrap() {
                if event["type"] == "places_awarded" {
                    for award in event["awards"].as_array_mut().unwrap() {
                        if award["place"] == 2 {
                            award["amount"] = serde_json::json!(award["amount"].as_u64().unwrap() + 1);
                        }
                    }
                }
            }
            serde_json::to_string(&json).unwrap()
        })
        .collect();
    let read = floor::export::from_lines(&(altered.join("\n") + "\n")).expect("the altered export reads");
    let summary = floor::audit::report(&read).summary();
    assert!(
        summary.contains(&format!(
            "entry {} paid {} after the deal, which agreed {}",
            middle.entry,
            share(middle.entry) + 1,
            share(middle.entry)
        )),
        "{summary}"
    );
}
