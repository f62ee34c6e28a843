//! Draws per second (issue 37's performance note, the decider's part): 10,000 three-seat lottery
//! games, each committed and drawn through the lottery aggregate exactly as the service does it
//! (the seed derived from a key and the game, sealed into the policy's orders, the commitment
//! checked, the draw made, the events folded), timed; and the part of it the draw itself (the
//! seed's SHA-256 and the number's rejection sampling) takes.
//!
//! `cargo test -p floor-lottery --release --test draws -- --nocapture` prints the figures; the
//! test checks only what every game must hold (a draw per game, prizes summing to the pool), so
//! it is never flaky. The end-to-end figure the issue asks for (10,000 games started over NATS,
//! the draw's share of a game's start) needs a bench binary in `tests/` and is not measured here.

use esrs::Aggregate;
use floor_events::lottery::{LotteryEvent, LotteryPrize, LotteryTerms};
use floor_events::registration::{StartCause, TournamentCreated, TournamentEvent, TournamentStarted};
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{Currency, Money, TournamentId};
use floor_lottery::{draw, LotteryAggregate, LotteryState, Policy, SeedKey};
use std::time::Instant;

const GAMES: u128 = 10_000;

fn table() -> LotteryTerms {
    LotteryTerms {
        version: "bench-1".into(),
        prizes: vec![
            LotteryPrize { multiplier: 1_000, per_million: 1, split_bps: vec![8_000, 1_000, 1_000] },
            LotteryPrize { multiplier: 100, per_million: 99, split_bps: vec![8_000, 1_000, 1_000] },
            LotteryPrize { multiplier: 10, per_million: 19_900, split_bps: vec![10_000] },
            LotteryPrize { multiplier: 5, per_million: 80_000, split_bps: vec![10_000] },
            LotteryPrize { multiplier: 3, per_million: 300_000, split_bps: vec![10_000] },
            LotteryPrize { multiplier: 2, per_million: 600_000, split_bps: vec![10_000] },
        ],
    }
}

#[test]
fn ten_thousand_games_committed_and_drawn() {
    let key = SeedKey([42; 32]);
    let at = "2026-12-06T18:00:00Z".parse().unwrap();
    let definition = TournamentDefinition {
        start: Start::SitAndGo,
        capacity: 3,
        min_players: 3,
        buy_in: Money::new(1_000, Currency::EUR),
        guarantee: None,
        lottery: Some(table()),
        ..TournamentDefinition::example()
    };
    let games: Vec<TournamentId> = (0..GAMES).map(|i| TournamentId(uuid::Uuid::from_u128(i + 1))).collect();

    let started = Instant::now();
    let mut policy = Policy::default();
    let mut drawn = 0u64;
    let mut paid = 0u64;
    for &t in &games {
        let created = TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition: definition.clone(), at });
        let start = TournamentEvent::TournamentStarted(TournamentStarted { entries: 3, cause: StartCause::LastSeatFilled, at });
        let mut orders = policy.on_tournament(t, &[created]);
        orders.extend(policy.on_tournament(t, &[start]));
        let mut state = LotteryState::default();
        for order in orders {
            let (_, _, command) = key.seal(order);
            for e in LotteryAggregate::handle_command(&state, command).expect("accepted") {
                if let LotteryEvent::PrizeDrawn(d) = &e {
                    assert_eq!(d.prizes.iter().sum::<u64>(), d.pool.amount);
                    drawn += 1;
                    paid += d.pool.amount;
                }
                state = LotteryAggregate::apply_event(state, e);
            }
        }
    }
    let whole = started.elapsed();
    assert_eq!(u128::from(drawn), GAMES);
    assert_eq!(policy.waiting(), 0);

    // The draw alone: the seed's commitment and the number, for the same seeds.
    let seeds: Vec<draw::Seed> = games.iter().map(|&t| key.lottery(t)).collect();
    let started = Instant::now();
    let mut check = 0u64;
    for seed in &seeds {
        check ^= u64::from(draw::commitment(seed)[0]) ^ u64::from(draw::number(seed));
    }
    let alone = started.elapsed();
    std::hint::black_box(check);

    let per_second = GAMES as f64 / whole.as_secs_f64();
    println!(
        "{GAMES} games committed and drawn through the decider in {:.1} ms: {per_second:.0} draws/s; \
         the draw itself (SHA-256 of the seed, the number) {:.1} ms, {:.0} % of it; mean pool {:.2} buy-ins",
        whole.as_secs_f64() * 1e3,
        alone.as_secs_f64() * 1e3,
        100.0 * alone.as_secs_f64() / whole.as_secs_f64(),
        paid as f64 / drawn as f64 / 1_000.0,
    );
}
