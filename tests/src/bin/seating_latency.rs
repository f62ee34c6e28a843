//! Report → move: from a table's "hand finished" published to the move instruction it causes
//! arriving, through the running seating service, against a raw JetStream publish round trip
//! measured on the same server in the same run (issue 3: p99 ≤ 5× the raw round trip).
//!
//! It fills a sit & go of `9 × tables` players, waits for the draw, then plays as the table
//! servers: at one untouched full table after another it reports hand 1 with two players
//! busting. Seven players against nine elsewhere (or a field that now fits on one table fewer)
//! makes seating move someone: the clock stops when the first `remove_player … moved`
//! instruction of the tournament arrives. Each sample uses a fresh table, so every report is
//! one the service has to decide on at full size. The hand's "started" report is published and
//! recorded first, as at a real table where the hand takes a minute; the clock covers only the
//! "finished" report.
//!
//! For reading beside it, the same path with nothing decided ([`bare_relay`]): a report stored
//! and consumed, a commit appended, an instruction published and received.
//!
//! Usage: `seating-latency [--tables N] [--samples N] [--open] [--write docs/benchmarks.md]` (`--open`: a server without
//! access control, to compare with the roles of issue 34).

use async_nats::jetstream::message::PublishMessage;
use floor_events::registration::{verbs, CreateTournament, Register, StartTournament};
use floor_events::seating::SeatingEvent;
use floor_events::table::{BustReport, Instruction, PotWon, Removal, Report, SeatStack, TableInstruction, TableReport};
use floor_events::tournament::Start;
use floor_events::{subjects, CommandId, PlayerId, Reply, TournamentId};
use floor_runtime::store::StoredCommit;
use floor_runtime::JetStreamStore;
use floor_tests::{freezeout, World};
use futures::{FutureExt, StreamExt};
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

/// How long any one step may take before the bench gives up.
const PATIENCE: Duration = Duration::from_secs(600);

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Raw JetStream publish round trips (publish, await the ack) on a subject of the event
/// stream no aggregate uses: the baseline.
async fn raw_round_trips(world: &World, n: usize) -> Vec<Duration> {
    let subject = subjects::event_subject("bench", uuid::Uuid::new_v4());
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let message = PublishMessage::build().payload(br#"[{"v":1,"type":"bench"}]"#.to_vec().into());
        let start = Instant::now();
        world.jetstream().send_publish(subject.clone(), message).await.expect("publish").await.expect("ack");
        samples.push(start.elapsed());
    }
    samples
}

/// A path from a report to an instruction with nothing decided, for reading beside Floor's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Relay {
    /// What seating does: report stored and consumed → commit appended → instruction stored.
    StoreDecision,
    /// A design that stores no decision of its own, the instruction being the record: report
    /// stored and consumed → instruction stored.
    InstructionOnly,
    /// Nothing durable on the relay's side (a core subscription hears the report as it is
    /// stored, nothing is acknowledged or replayed): report stored → instruction stored. No
    /// design that keeps reports and instructions on streams goes below this.
    Heard,
}

impl Relay {
    fn name(self) -> &'static str {
        match self {
            Relay::StoreDecision => "store-decision",
            Relay::InstructionOnly => "instruction-only",
            Relay::Heard => "heard",
        }
    }

    /// Where its "reports" go and its "instructions" come out, on the tables stream.
    fn subjects(self) -> (String, String) {
        let name = self.name();
        (format!("floor.table.bench.{name}.report"), format!("floor.table.bench.{name}.instruction"))
    }
}

/// The protocol's floor, without Floor: what seating must do between a report and a move,
/// with nothing decided. A durable pull consumer set up as seating's reports runner's takes
/// each "report" from the tables stream, appends a commit to an event subject (with the
/// per-subject check, [`Relay::StoreDecision`] only), publishes an "instruction" to the tables
/// stream, awaits the acks and acknowledges the report. [`Relay::Heard`] takes the report from
/// a core subscription instead.
async fn bare_relay(world: &World, relay: Relay) -> tokio::task::JoinHandle<()> {
    use async_nats::jetstream::consumer::{pull, AckPolicy};
    let name = relay.name();
    let (reports_subject, instructions_subject) = relay.subjects();
    let jetstream = world.jetstream().clone();
    if relay == Relay::Heard {
        let mut reports = world.backbone.client.subscribe(reports_subject).await.expect("relay subscription");
        floor_runtime::bootstrap::sync_with_server(&world.backbone.client).await.expect("subscribed");
        return tokio::spawn(async move {
            while let Some(report) = reports.next().await {
                let instruction = PublishMessage::build().payload(report.payload.clone());
                jetstream.send_publish(instructions_subject.clone(), instruction).await.expect("publish").await.expect("published");
            }
        });
    }
    let consumer = world
        .backbone
        .tables
        .create_consumer(pull::Config {
            durable_name: Some(format!("bench-relay-{name}")),
            filter_subject: reports_subject,
            ack_policy: AckPolicy::All,
            ..Default::default()
        })
        .await
        .expect("relay consumer");
    let mut reports = consumer.messages().await.expect("relay messages");
    tokio::spawn(async move {
        let decisions = subjects::event_subject("bench", uuid::Uuid::new_v4());
        let mut last = 0;
        while let Some(Ok(report)) = reports.next().await {
            if relay == Relay::StoreDecision {
                let decision =
                    PublishMessage::build().payload(br#"[{"v":1,"type":"bench"}]"#.to_vec().into()).expected_last_subject_sequence(last);
                last = jetstream.send_publish(decisions.clone(), decision).await.expect("append").await.expect("appended").sequence;
            }
            let instruction = PublishMessage::build().payload(report.payload.clone());
            jetstream.send_publish(instructions_subject.clone(), instruction).await.expect("publish").await.expect("published");
            report.double_ack().await.expect("ack");
        }
    })
}

/// Bare relay round trips: report published → instruction received, `n` of them, each after
/// the same 50 ms of quiet the bench leaves between its reports.
async fn bare_relay_latency(world: &World, relay: Relay, n: usize) -> Vec<Duration> {
    let task = bare_relay(world, relay).await;
    let (reports, instructions) = relay.subjects();
    let mut instructions = world.backbone.client.subscribe(instructions).await.expect("subscribe");
    floor_runtime::bootstrap::sync_with_server(&world.backbone.client).await.expect("subscribed");
    let mut samples = Vec::with_capacity(n);
    for i in 0..n + 20 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let report = PublishMessage::build().payload(i.to_string().into_bytes().into());
        let start = Instant::now();
        world.jetstream().send_publish(reports.clone(), report).await.expect("publish").await.expect("ack");
        let arrived = tokio::time::timeout(Duration::from_secs(30), instructions.next()).await.expect("relayed").expect("open");
        assert_eq!(arrived.payload, i.to_string().as_bytes(), "the relay keeps order");
        // The first twenty warm the relay up.
        if i >= 20 {
            samples.push(start.elapsed());
        }
    }
    task.abort();
    samples
}

/// The last events of a tournament's seating log (to say why a move did not come).
async fn last_seating_events(world: &World, t: TournamentId) -> Vec<SeatingEvent> {
    let subject = subjects::event_subject(subjects::aggregate::SEATING, t.0);
    let commits: Vec<StoredCommit<SeatingEvent>> = JetStreamStore::new(&world.backbone).load(&subject, 0).await.expect("seating log");
    let events: Vec<SeatingEvent> = commits.into_iter().flat_map(|c| c.events).collect();
    events[events.len().saturating_sub(60)..].to_vec()
}

async fn publish_report(world: &World, report: &TableReport) {
    let subject = floor_events::table::reports_subject(report.tournament_id, report.table);
    let message = PublishMessage::build()
        .payload(serde_json::to_vec(report).expect("report serializes").into())
        .message_id(floor_events::table::report_message_id(report.tournament_id, report.table, &report.report_id));
    world.jetstream().send_publish(subject, message).await.expect("publish").await.expect("ack");
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(|v| v.parse().expect("a number")).unwrap_or(default)
    };
    let tables = arg("--tables", 1_000);
    let samples = arg("--samples", 200);
    let entrants = 9 * tables;
    // The platform behind Floor's roles (issue 34), or with `--open` on a server without access
    // control: the trust boundary's cost on report → move.
    let skip = |c: &mut floor::startup::PlatformConfig| {
        c.skip("payouts");
        c.skip("lobby");
        c.skip("scheduler");
        c.skip("clock");
    };
    let world = match args.iter().any(|a| a == "--open") {
        true => World::start_open_configured(skip).await,
        false => World::start_configured(skip).await,
    };

    // Every instruction of the tournament, from before the first registration.
    let t = TournamentId::new();
    let mut instructions = world.backbone.client.subscribe(format!("floor.table.{t}.*.in")).await.expect("subscribe");
    // The seating log, to split the path: report → decision stored → instruction received.
    let mut commits = world.backbone.client.subscribe(subjects::event_subject(subjects::aggregate::SEATING, t.0)).await.expect("subscribe");
    floor_runtime::bootstrap::sync_with_server(&world.backbone.client).await.expect("subscribed");

    // A scheduled start a moment after the registrations should be done (a sit & go seats at
    // most 360); the bench starts it itself, as the scheduler would.
    let mut definition = freezeout(entrants as u32);
    let start_at = chrono::Utc::now() + chrono::Duration::milliseconds(2_000 + entrants as i64 / 2);
    definition.start = Start::At(start_at);
    definition.late_registration_until = Some(start_at + chrono::Duration::hours(1));
    definition.min_players = 2;
    definition.guarantee = None;
    let create = CreateTournament { command_id: CommandId(t.0), tournament_id: Some(t), definition };
    assert!(matches!(world.send(verbs::CREATE_TOURNAMENT.name(), &create).await, Reply::Ok(_)), "tournament created");
    let started = Instant::now();
    let registered = futures::stream::iter(1..=entrants)
        .map(|i| {
            let world = &world;
            async move {
                let player = PlayerId::parse(&format!("p{i}")).expect("valid");
                let request = Register { command_id: CommandId::new(), tournament_id: t, player };
                matches!(world.send(verbs::REGISTER.name(), &request).await, Reply::Ok(_))
            }
        })
        .buffer_unordered(64)
        .filter(|ok| std::future::ready(*ok))
        .count()
        .await;
    assert_eq!(registered, entrants, "every registration accepted");
    eprintln!("{entrants} registered in {:.1} s", started.elapsed().as_secs_f64());
    tokio::time::sleep((start_at - chrono::Utc::now()).to_std().unwrap_or_default()).await;
    let begin = StartTournament { command_id: CommandId::new(), tournament_id: t, now: false };
    assert!(matches!(world.send(verbs::START_TOURNAMENT.name(), &begin).await, Reply::Ok(_)), "tournament started");

    // The draw: who sits where, with what.
    let mut seats: BTreeMap<u32, Vec<SeatStack>> = BTreeMap::new();
    let mut seated = 0;
    let draw = async {
        while seated < entrants {
            let message = instructions.next().await.expect("subscription open");
            let i: TableInstruction = serde_json::from_slice(&message.payload).expect("an instruction");
            if let Instruction::SeatPlayer { entry, seat, stack, .. } = i.instruction {
                seats.entry(i.table).or_default().push(SeatStack { seat, entry, chips: stack });
                seated += 1;
            }
        }
    };
    tokio::time::timeout(PATIENCE, draw).await.expect("the draw arrived");
    eprintln!("drawn: {} tables, {:.1} s after the start of registration", seats.len(), started.elapsed().as_secs_f64());

    let raw = raw_round_trips(&world, samples * 5).await;
    let mut relays = Vec::new();
    for relay in [Relay::StoreDecision, Relay::InstructionOnly, Relay::Heard] {
        relays.push((relay, bare_relay_latency(&world, relay, samples).await));
    }
    while commits.next().now_or_never().flatten().is_some() {}
    let mut decided = Vec::with_capacity(samples);
    let mut quiet_raw = Vec::with_capacity(samples);

    let mut touched: HashSet<u32> = HashSet::new();
    let mut latencies = Vec::with_capacity(samples);
    let mut reasons: BTreeMap<&'static str, usize> = BTreeMap::new();
    let candidates: Vec<u32> = seats.iter().filter(|(_, s)| s.len() == 9).map(|(&n, _)| n).collect();
    let mut candidates = candidates.into_iter();
    while latencies.len() < samples {
        let Some(table) = candidates.find(|n| !touched.contains(n)) else { break };
        touched.insert(table);
        let mut stacks = seats[&table].clone();
        stacks.sort_by_key(|s| s.seat.0);
        let start = TableReport {
            tournament_id: t,
            table,
            report_id: format!("bench-{table}-1-start"),
            report: Report::HandStarted { hand: 1, button: stacks[0].seat, stacks: stacks.clone(), deal_hand: None },
        };
        // The hand starts, and is recorded, well before it finishes: at a real table a hand
        // takes a minute, so its "finished" report never queues behind its "started".
        publish_report(&world, &start).await;
        let recorded = async {
            loop {
                let commit = commits.next().await.expect("subscription open");
                let events: Vec<SeatingEvent> = floor_events::record::decode_commit(&commit.payload).expect("a seating commit");
                if events.iter().any(|e| matches!(e, SeatingEvent::HandStarted { table: n, .. } if *n == table)) {
                    return;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(30), recorded).await.expect("hand started recorded");
        // A raw round trip in the conditions the report meets, right before it: the baseline
        // of each sample, beside the hot loop's.
        let raw_start = Instant::now();
        let raw_subject = subjects::event_subject("bench", t.0);
        let message = PublishMessage::build().payload(br#"[{"v":1,"type":"bench"}]"#.to_vec().into());
        world.jetstream().send_publish(raw_subject, message).await.expect("publish").await.expect("ack");
        quiet_raw.push(raw_start.elapsed());
        // The first two seats bust; their chips go to the third.
        let busted: Vec<SeatStack> = stacks[..2].to_vec();
        let winner = stacks[2].entry;
        let mut after: Vec<SeatStack> = stacks[2..].to_vec();
        after[0].chips += busted.iter().map(|b| b.chips).sum::<u64>();
        let busts = busted
            .iter()
            .map(|b| BustReport {
                entry: b.entry,
                stack_at_start: b.chips,
                pots: vec![PotWon { winners: vec![winner], chips: b.chips }],
                best_high_hand: None,
            })
            .collect();
        let finish = TableReport {
            tournament_id: t,
            table,
            report_id: format!("bench-{table}-1-end"),
            report: Report::HandFinished { hand: 1, stacks: after, busts },
        };
        while commits.next().now_or_never().flatten().is_some() {}
        let sent = Instant::now();
        publish_report(&world, &finish).await;
        let mut stored = None;
        // Every move is confirmed (`instruction_applied`) as a table server would at its next
        // hand boundary, so no player is between tables when the next sample starts: a player
        // still in transit who is chosen to move again gets no second removal (the source was
        // told already), and the sample would wait for an instruction that never comes.
        let mut moves: Vec<(u32, u64)> = Vec::new();
        let moved = async {
            loop {
                let message = tokio::select! {
                    message = instructions.next() => message.expect("subscription open"),
                    commit = commits.next(), if stored.is_none() => {
                        let commit = commit.expect("subscription open");
                        let events: Vec<SeatingEvent> = floor_events::record::decode_commit(&commit.payload).expect("a seating commit");
                        if events.iter().any(|e| matches!(e, SeatingEvent::HandFinished { .. })) {
                            stored = Some(sent.elapsed());
                        }
                        continue;
                    }
                };
                let i: TableInstruction = serde_json::from_slice(&message.payload).expect("an instruction");
                touched.insert(i.table);
                if let Instruction::RemovePlayer { reason: Removal::Moved { to_table, .. }, .. } = i.instruction {
                    touched.insert(to_table);
                    moves.push((i.table, i.sequence));
                    return sent.elapsed();
                }
            }
        };
        let Ok(latency) = tokio::time::timeout(Duration::from_secs(30), moved).await else {
            let tail: Vec<String> = last_seating_events(&world, t).await.iter().map(|e| format!("{e:?}")).collect();
            panic!("no move 30 s after the busts at table {table}; the seating log ends with\n{}", tail.join("\n"));
        };
        latencies.push(latency);
        decided.push(stored.unwrap_or(latency));
        // The rest of this decision's instructions (a break moves a whole table), each move
        // confirmed, until every moved player is seated at the destination and all is quiet.
        let mut confirmed = 0;
        let mut seated = 0;
        let settle = async {
            loop {
                for &(from, sequence) in &moves[confirmed..] {
                    let ack = TableReport {
                        tournament_id: t,
                        table: from,
                        report_id: format!("bench-{from}-ack-{sequence}"),
                        report: Report::InstructionApplied { sequence },
                    };
                    publish_report(&world, &ack).await;
                }
                confirmed = moves.len();
                let quiet = if seated < confirmed { Duration::from_secs(30) } else { Duration::from_millis(50) };
                let Ok(Some(message)) = tokio::time::timeout(quiet, instructions.next()).await else { break };
                let i: TableInstruction = serde_json::from_slice(&message.payload).expect("an instruction");
                touched.insert(i.table);
                let kind = match i.instruction {
                    Instruction::RemovePlayer { reason: Removal::Moved { to_table, .. }, .. } => {
                        touched.insert(to_table);
                        moves.push((i.table, i.sequence));
                        "further moves"
                    }
                    Instruction::SeatPlayer { .. } => {
                        seated += 1;
                        "moved players seated"
                    }
                    Instruction::CloseTable => "tables closed",
                    _ => "other instructions",
                };
                *reasons.entry(kind).or_default() += 1;
            }
        };
        settle.await;
        if seated != moves.len() {
            let tail: Vec<String> = last_seating_events(&world, t).await.iter().map(|e| format!("{e:?}")).collect();
            panic!(
                "sample {}, table {table}: {} moves confirmed, {seated} seated at their destination; the seating log ends with\n{}",
                latencies.len(),
                moves.len(),
                tail.join("\n")
            );
        }
    }

    let n = latencies.len();
    let (mut raw, mut latencies) = (raw, latencies);
    let (raw_p50, raw_p99) = (percentile(&mut raw, 0.5), percentile(&mut raw, 0.99));
    let (move_p50, move_p99) = (percentile(&mut latencies, 0.5), percentile(&mut latencies, 0.99));
    let (quiet_p50, quiet_p99) = (percentile(&mut quiet_raw, 0.5), percentile(&mut quiet_raw, 0.99));
    let (decided_p50, decided_p99) = (percentile(&mut decided, 0.5), percentile(&mut decided, 0.99));
    let ratio = move_p99.as_secs_f64() / raw_p99.as_secs_f64();
    let mut table = format!(
        "| figure | p50 | p99 | run | target |\n|---|---|---|---|---|\n\
         | raw JetStream publish round trip (baseline) | {:.3} ms | {:.3} ms | {} publishes | |\n\
         | raw round trip just before each report (each sample's own baseline) | {:.3} ms | {:.3} ms | {n} publishes | |\n",
        ms(raw_p50),
        ms(raw_p99),
        raw.len(),
        ms(quiet_p50),
        ms(quiet_p99),
    );
    let mut floor_p99 = Duration::ZERO;
    for (relay, mut relayed) in relays {
        let (p50, p99) = (percentile(&mut relayed, 0.5), percentile(&mut relayed, 0.99));
        let path = match relay {
            Relay::StoreDecision => {
                floor_p99 = p99;
                "the protocol's floor without Floor: report stored and consumed → commit appended → instruction stored and received, nothing decided"
            }
            Relay::InstructionOnly => "the same with no decision stored, the instruction its own record: report stored and consumed → instruction stored and received",
            Relay::Heard => "the same with nothing durable between: report stored and heard by a core subscription → instruction stored and received",
        };
        table += &format!(
            "| {path} (for reading) | {:.3} ms | {:.3} ms | {} relays | p99 {:.1}× the baseline p99, {:.1}× each sample's own |\n",
            ms(p50),
            ms(p99),
            relayed.len(),
            p99.as_secs_f64() / raw_p99.as_secs_f64(),
            p99.as_secs_f64() / quiet_p99.as_secs_f64(),
        );
    }
    table += &format!(
        "| of which: report published → seating decision stored | {:.3} ms | {:.3} ms | {n} reports | |\n\
         | hand finished with two busts published → move instruction received, {} tables, {entrants} entrants | {:.3} ms | {:.3} ms | {n} reports | p99 ≤ 5× baseline p99: {:.1}× (against each sample's own baseline {:.1}×; against the floor's p99 {:.1}×), {} |\n",
        ms(decided_p50),
        ms(decided_p99),
        seats.len(),
        ms(move_p50),
        ms(move_p99),
        ratio,
        move_p99.as_secs_f64() / quiet_p99.as_secs_f64(),
        move_p99.as_secs_f64() / floor_p99.as_secs_f64(),
        if ratio <= 5.0 { "met" } else { "**missed**" },
    );
    println!("{table}");
    eprintln!("after the first move of each decision: {reasons:?}");
    if let Some(path) = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1)) {
        let body = format!(
            "_Last run: `make bench` (`seating-latency --tables {tables}`), platform and bench in one process, one fresh nats-server._\n\n{table}"
        );
        floor_tests::write_bench_section(path, "seating-latency", "## Seating (issue 3)", &body).expect("write benchmarks");
    }
}
