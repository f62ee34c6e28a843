//! Lottery sit & gos started and drawn over NATS (issue 37; 000 §16.10 "Twister"): on one
//! platform against a fresh nats-server, GAMES three-seat sit & gos without a lottery (the
//! baseline) and then GAMES with the published table `bench-spin-1`, each created and filled by
//! three registrations, GAMES_IN_FLIGHT at a time. One follower on seating's, the lottery's and
//! payouts' logs stamps, per game, when its seats are drawn (`tables_drawn`), its multiplier
//! drawn (`prize_drawn`) and its payout table locked (`payout_table_locked`: at the start for a
//! plain sit & go, on the draw for a lottery game). A game has started when its seats are drawn
//! and its table is locked; its start is timed from the reply to the registration that filled
//! it.
//!
//! Figures: each phase's games started per second (the first filling registration to the last
//! game started), the lottery's draws per second (the same span, to the last `prize_drawn`),
//! the start's p50 and p99 in both phases, and the draw's share of a game's start: the lottery
//! game's start less the plain one's, over the lottery game's (medians), beside the median time
//! from the filling registration to `prize_drawn`.
//!
//! Usage: `lottery-bench [--games N] [--in-flight N] [--write docs/benchmarks.md]`.

use floor_events::lottery::{LotteryEvent, LotteryPrize, LotteryTerms};
use floor_events::payouts::PayoutEvent;
use floor_events::seating::SeatingEvent;
use floor_events::tournament::TournamentDefinition;
use floor_events::{subjects, Reply, TournamentId};
use floor_tests::{heads_up, ten_minute_levels, write_bench_section, World};
use futures::StreamExt;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// When a game's events arrived.
#[derive(Debug, Default, Clone, Copy)]
struct Stamps {
    filled: Option<Instant>,
    seated: Option<Instant>,
    drawn: Option<Instant>,
    locked: Option<Instant>,
}

impl Stamps {
    /// From the filling registration's reply to seats drawn and the table locked.
    fn start(&self) -> Option<Duration> {
        Some(self.seated?.max(self.locked?).saturating_duration_since(self.filled?))
    }
}

type Board = Arc<Mutex<HashMap<uuid::Uuid, Stamps>>>;

/// A Spin & Go style table (per million): ×2 most of the time, up to ×1,000; its expected pool
/// is under the three buy-ins.
fn table() -> LotteryTerms {
    let row = |multiplier, per_million, split: &[u32]| LotteryPrize { multiplier, per_million, split_bps: split.to_vec() };
    LotteryTerms {
        version: "bench-spin-1".into(),
        prizes: vec![
            row(1_000, 10, &[8_000, 1_000, 1_000]),
            row(100, 100, &[8_000, 1_000, 1_000]),
            row(25, 5_000, &[8_000, 1_000, 1_000]),
            row(10, 20_000, &[10_000]),
            row(6, 70_000, &[10_000]),
            row(4, 150_000, &[10_000]),
            row(2, 754_890, &[10_000]),
        ],
    }
}

fn game(lottery: bool) -> TournamentDefinition {
    TournamentDefinition {
        name: if lottery { "Bench lottery".into() } else { "Bench sit & go".into() },
        capacity: 3,
        min_players: 3,
        table_size: 3,
        lottery: lottery.then(table),
        ..heads_up(ten_minute_levels())
    }
}

/// Stamps each game's seat draw, multiplier and payout table as the commits arrive.
async fn follow(world: &World, board: Board) -> tokio::task::JoinHandle<()> {
    use subjects::aggregate::{LOTTERY, PAYOUTS, SEATING};
    let filters = [SEATING, LOTTERY, PAYOUTS].iter().map(|a| subjects::event_filter(a)).collect();
    let mut commits = floor_runtime::follow::follow(&world.backbone, filters, |_| {}).await.expect("follow the logs");
    tokio::spawn(async move {
        while let Some(message) = commits.next().await {
            let Ok(message) = message else { continue };
            let now = Instant::now();
            let subject = message.subject.as_str();
            let mut parts = subject.split('.');
            let (Some(aggregate), Some(id)) = (parts.nth(2), parts.next()) else { continue };
            let Ok(id) = id.parse::<uuid::Uuid>() else { continue };
            let payload = &message.payload;
            let stamp: Option<fn(&mut Stamps, Instant)> = match aggregate {
                a if a == SEATING => floor_events::record::decode_commit::<SeatingEvent>(payload)
                    .ok()
                    .filter(|e| e.iter().any(|e| matches!(e, SeatingEvent::TablesDrawn { .. })))
                    .map(|_| (|s: &mut Stamps, at| s.seated = s.seated.or(Some(at))) as fn(&mut Stamps, Instant)),
                a if a == LOTTERY => floor_events::record::decode_commit::<LotteryEvent>(payload)
                    .ok()
                    .filter(|e| e.iter().any(|e| matches!(e, LotteryEvent::PrizeDrawn(_))))
                    .map(|_| (|s: &mut Stamps, at| s.drawn = s.drawn.or(Some(at))) as fn(&mut Stamps, Instant)),
                a if a == PAYOUTS => floor_events::record::decode_commit::<PayoutEvent>(payload)
                    .ok()
                    .filter(|e| e.iter().any(|e| matches!(e, PayoutEvent::PayoutTableLocked { .. })))
                    .map(|_| (|s: &mut Stamps, at| s.locked = s.locked.or(Some(at))) as fn(&mut Stamps, Instant)),
                _ => None,
            };
            if let Some(stamp) = stamp {
                stamp(board.lock().expect("board").entry(id).or_default(), now);
            }
        }
    })
}

/// Creates and fills `games` games, `in_flight` at a time; returns their ids.
async fn play(world: &World, board: &Board, games: usize, in_flight: usize, lottery: bool) -> Vec<TournamentId> {
    futures::stream::iter(0..games)
        .map(|_| async {
            let t = world.create(game(lottery)).await;
            for (i, p) in ["ann", "bob", "cat"].iter().enumerate() {
                match world.register(t, p).await {
                    Reply::Ok(_) if i == 2 => board.lock().expect("board").entry(t.0).or_default().filled = Some(Instant::now()),
                    Reply::Ok(_) => {}
                    Reply::Error(e) => panic!("{p} refused in {t}: {e}"),
                }
            }
            t
        })
        .buffer_unordered(in_flight)
        .collect()
        .await
}

/// Waits until every game has started (and, a lottery game, has its draw), at most `limit`.
async fn started(board: &Board, games: &[TournamentId], lottery: bool, limit: Duration) -> usize {
    let deadline = Instant::now() + limit;
    loop {
        let done = {
            let board = board.lock().expect("board");
            games.iter().filter(|t| board.get(&t.0).is_some_and(|s| s.start().is_some() && (!lottery || s.drawn.is_some()))).count()
        };
        if done == games.len() || Instant::now() > deadline {
            return done;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

struct Phase {
    games: usize,
    started: usize,
    span: Duration,
    draws_span: Duration,
    p50: Duration,
    p99: Duration,
    draw_p50: Option<Duration>,
}

fn phase(board: &Board, games: &[TournamentId], started: usize) -> Phase {
    let board = board.lock().expect("board");
    let stamps: Vec<Stamps> = games.iter().filter_map(|t| board.get(&t.0).copied()).collect();
    let first = stamps.iter().filter_map(|s| s.filled).min().expect("a game filled");
    let last = stamps.iter().filter_map(|s| s.seated?.max(s.locked?).into()).max().unwrap_or(first);
    let last_draw = stamps.iter().filter_map(|s| s.drawn).max().unwrap_or(first);
    let mut starts: Vec<Duration> = stamps.iter().filter_map(Stamps::start).collect();
    starts.sort();
    let mut draws: Vec<Duration> = stamps.iter().filter_map(|s| Some(s.drawn?.saturating_duration_since(s.filled?))).collect();
    draws.sort();
    let pct = |v: &[Duration], p: f64| v.get(((v.len().max(1) - 1) as f64 * p) as usize).copied().unwrap_or_default();
    Phase {
        games: games.len(),
        started,
        span: last.saturating_duration_since(first),
        draws_span: last_draw.saturating_duration_since(first),
        p50: pct(&starts, 0.5),
        p99: pct(&starts, 0.99),
        draw_p50: (!draws.is_empty()).then(|| pct(&draws, 0.5)),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let games: usize = arg("--games").map_or(10_000, |v| v.parse().expect("--games N"));
    let in_flight: usize = arg("--in-flight").map_or(32, |v| v.parse().expect("--in-flight N"));
    let write = arg("--write");
    let limit = Duration::from_secs(1_800);

    let world = World::start().await;
    let board: Board = Arc::default();
    let follower = follow(&world, board.clone()).await;

    eprintln!("lottery-bench: {games} plain three-seat sit & gos (the baseline)");
    let plain = play(&world, &board, games, in_flight, false).await;
    let plain_started = started(&board, &plain, false, limit).await;
    let baseline = phase(&board, &plain, plain_started);
    eprintln!("lottery-bench: {games} lottery sit & gos");
    let drawn = play(&world, &board, games, in_flight, true).await;
    let drawn_started = started(&board, &drawn, true, limit).await;
    let lottery = phase(&board, &drawn, drawn_started);
    follower.abort();

    let per_s = |n: usize, d: Duration| n as f64 / d.as_secs_f64().max(1e-9);
    let share = lottery.p50.saturating_sub(baseline.p50).as_secs_f64() / lottery.p50.as_secs_f64().max(1e-9);
    let draw_p50 = lottery.draw_p50.unwrap_or_default();
    let body = format!(
        "_`cargo run --release -p floor-tests --bin lottery-bench -- --games {games} --in-flight {in_flight}`: one platform on a fresh nats-server, \
         {games} three-seat sit & gos without a lottery, then {games} with the published table `bench-spin-1`, {in_flight} games created and filled at a time \
         (create, three registrations); a game has started when its seats are drawn and its payout table locked (a lottery game's on its draw), timed from \
         the reply to the registration that filled it._\n\n\
         | phase | games started | games/s | start p50 | start p99 | to `prize_drawn` p50 | draws/s |\n|---|---|---|---|---|---|---|\n\
         | baseline: no lottery | {} of {} | {:.0} | {} | {} | — | — |\n\
         | lottery sit & gos | {} of {} | {:.0} | {} | {} | {} | {:.0} |\n\n\
         The draw's share of a game's start (medians, the lottery game's start less the plain one's, over the lottery game's): {:.0} %.\n",
        baseline.started,
        baseline.games,
        per_s(baseline.started, baseline.span),
        ms(baseline.p50),
        ms(baseline.p99),
        lottery.started,
        lottery.games,
        per_s(lottery.started, lottery.span),
        ms(lottery.p50),
        ms(lottery.p99),
        ms(draw_p50),
        per_s(lottery.started, lottery.draws_span),
        share * 100.0,
    );
    println!("{body}");
    if let Some(path) = write {
        write_bench_section(&path, "lottery-bench", "### Lottery sit & gos over NATS (issue 37)", &body).expect("write the benchmarks");
    }
    world.platform.expect("running").stop().await;
}
