//! Seating decision time at record size: 253,698 entrants on nine-handed tables (≈ 28,200
//! tables), players busting one hand at a time at random tables; every `decide` after a bust is
//! timed. Pure code, no NATS: this is the "inside the service" part of issue 3's target
//! (p99 ≤ 1 ms at 28,000 tables).
//!
//! Usage: `seating-bench [--entrants N] [--busts N] [--write docs/benchmarks.md]`.

use floor_events::EntryNo;
use floor_seating::balancing::{decide, BalanceWhen, Mover, Rules};
use floor_seating::draw::initial_seating;
use floor_seating::Room;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(|v| v.parse().expect("a number")).unwrap_or(default)
    };
    let entrants = arg("--entrants", 253_698);
    let busts = arg("--busts", 20_000);
    let rules = Rules { table_size: 9, when: BalanceWhen::DifferenceAboveOne, mover: Mover::DueBigBlind, shootout: false };
    let entries: Vec<EntryNo> = (1..=entrants as u32).map(EntryNo).collect();
    let start = Instant::now();
    let mut tables = Room::new(initial_seating(&entries, 9, &[42; 32]));
    eprintln!("seat draw: {} entrants on {} tables in {:?}", entrants, tables.len(), start.elapsed());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let numbers: Vec<u32> = tables.tables().map(|t| t.number).collect();
    let mut samples = Vec::with_capacity(busts);
    let mut moves = 0;
    for hand in 0..busts {
        let number = loop {
            let n = numbers[rng.random_range(0..numbers.len())];
            if tables.table(n).is_some_and(|t| t.count() >= 2) {
                break n;
            }
        };
        let seat = tables.table(number).expect("table").occupied().next().expect("player").0;
        tables.vacate(number, seat);
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&(hand as u64).to_le_bytes());
        let t = Instant::now();
        let decision = decide(&mut tables, &rules, &seed);
        samples.push(t.elapsed());
        moves += decision.moves.len();
    }
    samples.sort();
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize];
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let table = format!(
        "| figure | p50 | p99 | max | run | target |\n|---|---|---|---|---|---|\n\
         | seating decision after a bust, {entrants} entrants, {} → {} tables (pure, in process) | {:.1} µs | {:.1} µs | {:.0} µs | {busts} busts, {moves} moves | p99 ≤ 1 ms: {} |\n",
        numbers.len(),
        tables.len(),
        us(pct(0.5)),
        us(pct(0.99)),
        us(*samples.last().expect("samples")),
        if pct(0.99) <= Duration::from_millis(1) { "met" } else { "**missed**" },
    );
    println!("{table}");
    if let Some(path) = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1)) {
        let body = format!("_Last run: `make bench` (`seating-bench`)._\n\n{table}");
        floor_tests::write_bench_section(path, "seating-bench", "## Seating (issue 3)", &body).expect("write benchmarks");
    }
}
