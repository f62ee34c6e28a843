//! The trust boundary's cost (issue 34): `register` latency on a platform whose nats-server has
//! Floor's roles (every process joined with its credential, each publish checked against its
//! permissions) against the same platform on a server without access control, in one process,
//! on the same machine, rounds alternating open, secure, open, secure so that drift shows. The
//! target: the secure p50 within 1.1× of the open one.
//!
//! Usage: `auth-bench [--commands N] [--rounds R] [--write docs/benchmarks.md]`.

use floor_events::Reply;
use floor_tests::{freezeout, World};
use std::time::{Duration, Instant};

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

async fn register_latency(secure: bool, n: usize) -> Vec<Duration> {
    let skip = |c: &mut floor::startup::PlatformConfig| c.skip("scheduler");
    let world = if secure { World::start_configured(skip).await } else { World::start_open_configured(skip).await };
    let t = world.create(freezeout(1_000_000)).await;
    for i in 0..200 {
        assert!(matches!(world.register(t, format!("warm{i}")).await, Reply::Ok(_)));
    }
    let mut samples = Vec::with_capacity(n);
    for i in 0..n {
        let start = Instant::now();
        let reply = world.register(t, format!("p{i}")).await;
        samples.push(start.elapsed());
        assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
    }
    samples
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let commands: usize = arg("--commands").map(|s| s.parse().expect("--commands N")).unwrap_or(3_000);
    let rounds: usize = arg("--rounds").map(|s| s.parse().expect("--rounds R")).unwrap_or(2);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let (mut open, mut secure) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        eprintln!("round {round}: {commands} registrations open, then {commands} with the roles…");
        open.extend(runtime.block_on(register_latency(false, commands)));
        secure.extend(runtime.block_on(register_latency(true, commands)));
    }
    let (o50, o99) = (percentile(&mut open, 0.5), percentile(&mut open, 0.99));
    let (s50, s99) = (percentile(&mut secure, 0.5), percentile(&mut secure, 0.99));
    let ratio = micros(s50) / micros(o50);
    let table = format!(
        "| figure | no access control | Floor's roles | ratio | target |\n|---|---|---|---|---|\n\
         | `register` p50 | {:.0} µs | {:.0} µs | {ratio:.2}× | ≤ 1.1× — {} |\n\
         | `register` p99 | {:.0} µs | {:.0} µs | {:.2}× | — |\n\n\
         {} registrations each way, in {rounds} alternating rounds, one process, fresh servers.\n",
        micros(o50),
        micros(s50),
        if ratio <= 1.1 { "met" } else { "not met" },
        micros(o99),
        micros(s99),
        micros(s99) / micros(o99),
        commands * rounds,
    );
    println!("{table}");
    if let Some(path) = arg("--write") {
        let body = format!("_Last run: {}, `make bench` (`auth-bench`)._\n\n{table}", chrono::Utc::now().format("%Y-%m-%d %H:%M UTC"));
        floor_tests::write_bench_section(&path, "auth-bench", "## The trust boundary's cost (issue 34)", &body).expect("write benchmarks");
    }
}
