//! Lottery sit & gos (issue 37; 000 §16.10 "Twister"), against a real nats-server: a three-seat
//! game with a published prize table is created, and its draw committed (`draw_committed`, SHA-256
//! of the seed) before anyone registers; the third registration fills it, it starts, and the
//! multiplier is drawn (`prize_drawn`, the seed revealed): SHA-256 of the revealed seed is the
//! commitment, the number falls in the drawn row's range of the table, the pool is the multiplier
//! × the buy-in and the prizes sum to it; the `frequencies` verb counts the game. Played to a
//! winner, payouts pays the drawn prizes by place (its table locked on `prize_drawn`) and the
//! books balance: a draw below the contributions is the operator's, one above them its overlay.
//! Killed after the commitment and restarted, the platform commits once and draws once.

use floor_events::lottery::{verbs, DrawCommitted, Frequencies, FrequenciesOf, LotteryEvent, LotteryPrize, LotteryTerms, PrizeDrawn};
use floor_events::payouts::PayoutEvent;
use floor_events::tournament::TournamentDefinition;
use floor_events::{subjects, CommandId, Reply, TournamentId};
use floor_runtime::encoding::{hex, unhex};
use floor_runtime::JetStreamStore;
use floor_tests::{heads_up, ten_minute_levels, World};

const VERSION: &str = "e2e-spin-1";

/// A Spin & Go style table: ×2 most of the time (winner takes all), ×10 sometimes, ×100 rarely
/// (split 80 / 10 / 10).
fn table() -> LotteryTerms {
    LotteryTerms {
        version: VERSION.into(),
        prizes: vec![
            LotteryPrize { multiplier: 100, per_million: 1_000, split_bps: vec![8_000, 1_000, 1_000] },
            LotteryPrize { multiplier: 10, per_million: 49_000, split_bps: vec![10_000] },
            LotteryPrize { multiplier: 3, per_million: 250_000, split_bps: vec![10_000] },
            LotteryPrize { multiplier: 2, per_million: 700_000, split_bps: vec![10_000] },
        ],
    }
}

/// A three-seat lottery sit & go at EUR 10 + 1.
fn lottery_game() -> TournamentDefinition {
    TournamentDefinition {
        name: "E2E Lottery".into(),
        capacity: 3,
        min_players: 3,
        lottery: Some(table()),
        ..heads_up(ten_minute_levels())
    }
}

async fn lottery_log(world: &World, t: TournamentId) -> Vec<LotteryEvent> {
    let subject = subjects::event_subject(subjects::aggregate::LOTTERY, t.0);
    let commits = JetStreamStore::new(&world.backbone).load::<LotteryEvent>(&subject, 0).await.expect("the lottery log");
    commits.into_iter().flat_map(|c| c.events).collect()
}

/// The draw against its commitment and the published table.
fn check_draw(committed: &DrawCommitted, drawn: &PrizeDrawn, definition: &TournamentDefinition) {
    assert_eq!((committed.version.as_str(), drawn.version.as_str()), (VERSION, VERSION));
    let seed = unhex(&drawn.seed).expect("the seed revealed as 32 bytes of hex");
    assert_eq!(hex(&floor_seating::draw::commitment(&seed)), committed.commitment, "SHA-256 of the revealed seed is the commitment");
    assert!(drawn.number < 1_000_000);
    // The row whose cumulative range holds the number is the row drawn.
    let mut upto = 0;
    let row = table()
        .prizes
        .into_iter()
        .find(|p| {
            upto += p.per_million;
            drawn.number < upto
        })
        .expect("a row holds the number");
    assert_eq!(drawn.multiplier, row.multiplier);
    assert_eq!(drawn.pool.amount, u64::from(row.multiplier) * definition.buy_in.amount);
    assert_eq!(drawn.pool.currency, definition.buy_in.currency);
    assert_eq!(drawn.prizes.len(), row.split_bps.len());
    assert_eq!(drawn.prizes.iter().sum::<u64>(), drawn.pool.amount, "the prizes are the pool to the cent");
}

async fn frequencies(world: &World, t: TournamentId) -> Frequencies {
    // The lottery policy has read the draw (its checkpoint past the tournament's last commit).
    world.read_by(subjects::service::LOTTERY, t, world.last_sequence().await).await;
    let request = FrequenciesOf { version: VERSION.into(), command_id: CommandId::new() };
    match world.request(subjects::service::LOTTERY, verbs::FREQUENCIES.name(), &request).await {
        Reply::Ok(v) => serde_json::from_value(v).expect("frequencies"),
        Reply::Error(e) => panic!("frequencies refused: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lottery_sit_and_go_commits_its_draw_at_creation_and_draws_when_its_last_seat_fills() {
    let world = World::start().await;
    let definition = lottery_game();
    let t = world.create(definition.clone()).await;
    let mut watch = world.watch_events::<LotteryEvent>(subjects::aggregate::LOTTERY, t).await;
    let LotteryEvent::DrawCommitted(committed) = watch.next_where(|e| matches!(e, LotteryEvent::DrawCommitted(_))).await else {
        unreachable!()
    };
    // Published before anyone registers: nothing drawn yet.
    assert_eq!(lottery_log(&world, t).await.len(), 1);
    for p in ["ann", "bob", "cat"] {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    let LotteryEvent::PrizeDrawn(drawn) = watch.next_where(|e| matches!(e, LotteryEvent::PrizeDrawn(_))).await else { unreachable!() };
    check_draw(&committed, &drawn, &definition);
    let log = lottery_log(&world, t).await;
    assert_eq!(log, vec![LotteryEvent::DrawCommitted(committed), LotteryEvent::PrizeDrawn(drawn.clone())]);

    let f = frequencies(&world, t).await;
    assert_eq!((f.version.as_str(), f.games), (VERSION, 1));
    let published: Vec<(u32, u32)> = f.rows.iter().map(|r| (r.multiplier, r.per_million)).collect();
    assert_eq!(published, table().prizes.iter().map(|p| (p.multiplier, p.per_million)).collect::<Vec<_>>());
    for row in &f.rows {
        assert_eq!(row.drawn, u64::from(row.multiplier == drawn.multiplier), "×{}", row.multiplier);
    }

    // Played to a winner: the third out, then the second; the winner is left.
    let seats = world.seated(t, 3).await;
    let two = world.bust(t, 1, &seats, seats[0], seats[2]).await;
    world.bust(t, 2, &two, two[0], two[1]).await;
    let mut payouts = world.watch_events::<PayoutEvent>(subjects::aggregate::PAYOUTS, t).await;
    payouts.next_where(|e| matches!(e, PayoutEvent::TournamentPaid { .. })).await;
    let subject = subjects::event_subject(subjects::aggregate::PAYOUTS, t.0);
    let paid: Vec<(u32, u64)> = JetStreamStore::new(&world.backbone)
        .load::<PayoutEvent>(&subject, 0)
        .await
        .expect("the payouts log")
        .into_iter()
        .flat_map(|c| c.events)
        .flat_map(|e| match e {
            PayoutEvent::PlacesAwarded { awards, .. } => awards.into_iter().map(|a| (a.place, a.amount)).collect(),
            _ => vec![],
        })
        .collect();
    for (place, prize) in drawn.prizes.iter().enumerate() {
        let place = place as u32 + 1;
        assert_eq!(paid.iter().filter(|(p, _)| *p == place).map(|(_, a)| a).sum::<u64>(), *prize, "place {place}: {paid:?}");
    }
    assert_eq!(paid.iter().map(|(_, a)| a).sum::<u64>(), drawn.pool.amount, "the drawn pool is paid out: {paid:?}");
    let b = world.books(t).await;
    assert!(b.balanced, "the books balance: {b:?}");
    assert!(b.finished, "every place paid: {b:?}");
    assert_eq!((b.entries, b.paid_in, b.fees, b.contributions), (3, 3_300, 300, 3_000), "{b:?}");
    assert_eq!((b.prize_pool, b.prizes_paid), (drawn.pool.amount, drawn.pool.amount), "the drawn pool: {b:?}");
    assert_eq!(b.overlay, drawn.pool.amount.saturating_sub(3_000), "a draw above the contributions is the operator's overlay: {b:?}");
    assert_eq!(b.held, 0, "{b:?}");
}

#[tokio::test]
async fn killed_after_the_commitment_the_platform_commits_once_and_draws_once() {
    let mut world = World::start().await;
    let definition = lottery_game();
    let t = world.create(definition.clone()).await;
    let mut watch = world.watch_events::<LotteryEvent>(subjects::aggregate::LOTTERY, t).await;
    let LotteryEvent::DrawCommitted(committed) = watch.next_where(|e| matches!(e, LotteryEvent::DrawCommitted(_))).await else {
        unreachable!()
    };
    world.kill_platform();
    world.restart_platform().await;
    for p in ["ann", "bob", "cat"] {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    let LotteryEvent::PrizeDrawn(drawn) = watch.next_where(|e| matches!(e, LotteryEvent::PrizeDrawn(_))).await else { unreachable!() };
    check_draw(&committed, &drawn, &definition);
    // Restarted again after the draw: the log is read again, and nothing is added.
    world.restart_platform().await;
    let f = frequencies(&world, t).await;
    assert_eq!(f.games, 1, "the game counted once");
    assert_eq!(lottery_log(&world, t).await, vec![LotteryEvent::DrawCommitted(committed), LotteryEvent::PrizeDrawn(drawn)]);
}
