//! Exact ICM (issue 22, "Deals"): what each Malmuth-Harville method costs, and how far apart
//! they are, in one process on one core.
//!
//! - A 9-player final table, 9 places: the subset method (and the race) against the baseline,
//!   every one of the 9! finishing orders enumerated.
//! - 20 players, 20 places: the race against the subset method at its largest.
//! - 1,000 players, 150 places (a generated payout table): the race alone, checked against the
//!   closed forms for first and second place and by every place's probabilities summing to 1;
//!   then the equities in cents, which must sum to the pool exactly.
//!
//! Usage: `icm-bench [--runs N] [--write docs/benchmarks.md]`.

use floor_rules::icm::{self, Method, PlaceProbabilities};
use std::time::{Duration, Instant};

/// Median time of `runs` calls, and the last result.
fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        last = Some(f());
        times.push(start.elapsed());
    }
    times.sort_unstable();
    (times[times.len() / 2], last.expect("at least one run"))
}

fn table(stacks: &[u64], places: usize, method: Method) -> PlaceProbabilities {
    icm::place_probabilities(stacks, places, method).expect("a valid field")
}

fn max_difference(a: &PlaceProbabilities, b: &PlaceProbabilities) -> f64 {
    let mut worst: f64 = 0.0;
    for i in 0..a.players() {
        for (x, y) in a.row(i).iter().zip(b.row(i)) {
            worst = worst.max((x - y).abs());
        }
    }
    worst
}

fn show(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1_000.0 {
        format!("{micros:.0} µs")
    } else if micros < 1e6 {
        format!("{:.1} ms", micros / 1e3)
    } else {
        format!("{:.2} s", micros / 1e6)
    }
}

fn met(d: Duration, target: Duration) -> &'static str {
    if d <= target {
        "met"
    } else {
        "**misses target**"
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let runs: usize = arg("--runs").map(|v| v.parse().expect("a number")).unwrap_or(5);

    // A final table from 1 to 30 big blinds-ish: uneven, no two alike.
    let nine = [1_200_000, 950_000, 800_000, 610_000, 440_000, 300_000, 210_000, 120_000, 40_000];
    let (permutations_time, reference) = timed(runs, || table(&nine, 9, Method::Permutations));
    let (subsets_time, subsets) = timed(runs * 20, || table(&nine, 9, Method::Subsets));
    let (race_nine_time, race_nine) = timed(runs * 20, || table(&nine, 9, Method::Race));

    let twenty: Vec<u64> = (0..20u64).map(|i| 1_000 + 97_531 * i * i).collect();
    let (subsets_twenty_time, subsets_twenty) = timed(runs, || table(&twenty, 20, Method::Subsets));
    let (race_twenty_time, race_twenty) = timed(runs, || table(&twenty, 20, Method::Race));

    // 1,000 stacks from 1,000 to 201,000 chips, 150 places of a generated table.
    let field: Vec<u64> = (0..1_000u64).map(|i| 1_000 + (i * 7_919 + i * i * 31) % 200_000).collect();
    let pool = 100_000_000; // $1,000,000 in cents
    let payout = floor_rules::payout_table::generate(pool, 150, 100_000).expect("a table");
    let prizes: Vec<u64> = (1..=150).map(|p| payout.prize(p)).collect();
    let (race_large_time, large) = timed(runs.min(3), || table(&field, 150, Method::Race));
    let total: f64 = field.iter().map(|&s| s as f64).sum();
    let (mut closed_form, mut column) = (0.0f64, 0.0f64);
    for (i, &si) in field.iter().enumerate() {
        let si = si as f64;
        let second: f64 =
            field.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &sj)| (sj as f64 / total) * si / (total - sj as f64)).sum();
        closed_form = closed_form.max((large.get(i, 1) - si / total).abs()).max((large.get(i, 2) - second).abs());
    }
    for place in 1..=150 {
        column = column.max(((0..field.len()).map(|i| large.get(i, place)).sum::<f64>() - 1.0).abs());
    }
    let (cents_time, cents) = timed(1, || icm::amounts(&field, &prizes).expect("amounts"));
    let exact = cents.iter().sum::<u64>() == prizes.iter().sum::<u64>();

    let ratio = permutations_time.as_secs_f64() / subsets_time.as_secs_f64();
    let report = format!(
        "| figure | baseline: every order (9! = 362,880) | Floor | ratio | target |\n\
         |---|---|---|---|---|\n\
         | 9 players, 9 places, subset method | {} | {} | {ratio:.0}× faster | ≤ 1 ms: {} |\n\
         | 9 players, 9 places, exponential race | {} | {} | {:.0}× faster | ≤ 1 ms: {} |\n\
         | 9 players: largest difference from every order | | subsets {:.1e}, race {:.1e} | | ≤ 1e-9 |\n\
         | 20 players, 20 places: subsets / race | | {} / {} (differ by {:.1e}) | | reported |\n\
         | 1,000 players, 150 places, exponential race | (no exact baseline) | {} | | ≤ 5 s on one core: {} |\n\
         | 1,000 players: worst place total off 1; worst 1st/2nd off the closed form | | {column:.1e}; {closed_form:.1e} | | ≤ 1e-9 |\n\
         | 1,000 players: equities in cents (race + largest remainder) | | {}, sum {} | | exact |\n",
        show(permutations_time),
        show(subsets_time),
        met(subsets_time, Duration::from_millis(1)),
        show(permutations_time),
        show(race_nine_time),
        permutations_time.as_secs_f64() / race_nine_time.as_secs_f64(),
        met(race_nine_time, Duration::from_millis(1)),
        max_difference(&reference, &subsets),
        max_difference(&reference, &race_nine),
        show(subsets_twenty_time),
        show(race_twenty_time),
        max_difference(&subsets_twenty, &race_twenty),
        show(race_large_time),
        met(race_large_time, Duration::from_secs(5)),
        show(cents_time),
        if exact { "exact" } else { "**not exact**" },
    );
    println!("{report}");
    if let Some(path) = arg("--write") {
        let body = format!(
            "Command: `cargo run --release -p floor-tests --bin icm-bench -- --runs {runs} --write docs/benchmarks.md` \
             (pure code, one thread; medians of {runs} runs, ×20 for the 9-player methods, at most 3 for 1,000 players)\n\n{report}"
        );
        floor_tests::write_bench_section(&path, "icm-bench", "## Deals and ICM (issue 22)", &body).expect("write benchmarks");
    }
}
