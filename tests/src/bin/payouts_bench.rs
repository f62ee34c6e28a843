//! Payout table and final standings at record size (issue 5): a 250,000-entry pool with 37,500
//! paid places generated and rounded, then every finishing place ranked and paid, busts in
//! groups of one to three with ties. Pure code, in process.
//!
//! Usage: `payouts-bench [--write docs/benchmarks.md]`.

use esrs::Aggregate;
use floor_events::payouts::LockCause;
use floor_events::{Currency, EntryNo, Money, PlayerId, RuleProfile};
use floor_payouts::domain::{Eliminated, Field, PayoutCommand, PayoutState, PayoutsAggregate};
use floor_rules::{award, generate, paid_places, rank, AcrossTables, Bust, EqualStacks, Ordering};
use std::time::{Duration, Instant};

fn main() {
    let entries = 250_000u32;
    let pool = u64::from(entries) * 1_000;
    let places = paid_places(entries, 1_500, 9_500);
    let mut table_runs = Vec::new();
    let mut table = None;
    for _ in 0..5 {
        let start = Instant::now();
        table = Some(generate(pool, places, 1_500).expect("table"));
        table_runs.push(start.elapsed());
    }
    let table = table.expect("generated");
    table_runs.sort();

    let ordering = Ordering { equal_stacks: EqualStacks::Split, across_tables: AcrossTables::ByStack };
    let start = Instant::now();
    let mut remaining = entries;
    let mut paid = 0u64;
    let mut next = 1u32;
    let mut state = 12_345u64;
    while remaining > 1 {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let group = (1 + (state >> 33) % 3).min(u64::from(remaining - 1)) as u32;
        let busts: Vec<Bust> = (0..group)
            .map(|k| Bust { entry: EntryNo(next + k), stack_at_start: 100 * (1 + (state >> (40 + k)) % 3), table: 1, seat_order: k })
            .collect();
        next += group;
        paid += award(&table, &rank(remaining, busts, ordering)).iter().map(|(_, p)| p).sum::<u64>();
        remaining -= group;
    }
    paid += table.prize(1);
    let standings = start.elapsed();
    assert_eq!(paid, pool, "the whole pool is paid");

    // The same field through the payouts aggregate, as the service runs it: one command per
    // hand (decide + apply), the table locked first, the winner paid last.
    let field = Field {
        entries,
        contributions: Money::new(pool, Currency::EUR),
        guarantee: None,
        profile: RuleProfile::Tda2024,
        fixed: None,
        ordering: None,
        seat_value: None,
    };
    let start = Instant::now();
    let mut aggregate = PayoutState::default();
    let run = |state: PayoutState, command| {
        let events = PayoutsAggregate::handle_command(&state, command).expect("accepted");
        events.into_iter().fold(state, PayoutsAggregate::apply_event)
    };
    aggregate = run(aggregate, PayoutCommand::Lock { field: field.clone(), cause: LockCause::Started });
    let (mut remaining, mut next, mut commands, mut after_winner) = (entries, 1u32, 1u32, Duration::ZERO);
    while remaining > 1 {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let group = (1 + (state >> 33) % 3).min(u64::from(remaining - 1)) as u32;
        let eliminated: Vec<Eliminated> = (0..group)
            .map(|k| Eliminated {
                entry: EntryNo(next + k),
                player: PlayerId::parse(&format!("p{}", next + k)).expect("valid"),
                stack_at_start: 100 * (1 + (state >> (40 + k)) % 3),
                table: 1,
                seat_order: k,
            })
            .collect();
        let winner = (remaining - group == 1).then(|| (EntryNo(entries), PlayerId::parse("winner").expect("valid")));
        let last = Instant::now();
        aggregate = run(
            aggregate,
            PayoutCommand::Award { field: field.clone(), players_left_before: remaining, eliminated, winner, hand_for_hand: None },
        );
        after_winner = last.elapsed();
        next += group;
        remaining -= group;
        commands += 1;
    }
    let through_aggregate = start.elapsed();
    assert!(aggregate.paid && aggregate.prizes_paid == pool, "the aggregate pays the whole pool");

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let verdict = |d: Duration, limit: Duration| if d <= limit { "met" } else { "**missed**" };
    let report = format!(
        "| figure | measured | target |\n|---|---|---|\n\
         | payout table, {entries} entries, {places} places, {} bands (median of 5) | {:.1} ms | ≤ 100 ms: {} |\n\
         | standings and payouts for all {entries} entries | {:.1} ms | ≤ 1 s: {} |\n\
         | the same through the payouts aggregate, {commands} commands (decide + apply) | {:.1} ms | ≤ 1 s: {} |\n\
         | the last command (the winner's hand), once the winner is known | {:.3} ms | ≤ 1 s: {} |\n",
        table.bands.len(),
        ms(table_runs[2]),
        verdict(table_runs[2], Duration::from_millis(100)),
        ms(standings),
        verdict(standings, Duration::from_secs(1)),
        ms(through_aggregate),
        verdict(through_aggregate, Duration::from_secs(1)),
        ms(after_winner),
        verdict(after_winner, Duration::from_secs(1)),
    );
    println!("{report}");
    let args: Vec<String> = std::env::args().collect();
    if let Some(path) = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1)) {
        let body = format!("_Last run: `make bench` (`payouts-bench`), pure code in process._\n\n{report}");
        floor_tests::write_bench_section(path, "payouts-bench", "## Payouts (issue 5)", &body).expect("write benchmarks");
    }
}
