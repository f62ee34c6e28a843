//! Hand-for-hand release at scale (issue 20): from the last table's `hand_finished` published
//! to every table holding `deal_hand` for the next hand, through the running platform, against
//! the floor of any barrier on this backbone measured on the same server in the same run.
//! Target: p99 ≤ 2× the floor's p99.
//!
//! It fills a freezeout of `9 × tables` players (started by the director, as `start_tournament
//! --now`), waits for the draw, then plays as the table servers: every table deals and finishes
//! its hand 1 with nobody out, and the director starts hand-for-hand (`floor bubble start`).
//! Every table is between hands, so hand 0 is complete at once and `deal_hand {hand: 1}` goes to
//! every table. For each hand k every table reports `hand_started {deal_hand: k}`, and every
//! table but one `hand_finished`; once the bubble has taken all of those and the readers on the
//! path are idle, the last table's `hand_finished` is published and the clock runs until every
//! table has received `deal_hand {hand: k + 1}`. One sample per hand; the last table is a
//! different one each time. Nobody busts, so the bubble never bursts; the director stops it at
//! the end.
//!
//! The floor ([`Relay`]): what any barrier must do between the last report and the release,
//! with nothing decided. A durable consumer takes the report from the tables stream, appends one
//! commit (the release: a `hand_released` naming every table, on an event subject no service
//! reads) with the per-subject check the store uses, publishes one instruction per table to the
//! tables stream and awaits every acknowledgement. Its clock runs from the report's publish to
//! the last instruction received, the same ends as Floor's. One relay sample is taken right
//! before each Floor sample, with the platform idle, so both see the same machine.
//!
//! `--clock deduct` (the default) runs a definition without a `hand_for_hand` section: a
//! director's start under the profile's settings (TDA: the clock loses 120 s per hand, so the
//! clock service runs). `--clock normal` gives the definition `hand_for_hand {trigger: director,
//! clock: normal}`: the barrier alone.
//!
//! Usage: `bubble-bench [--tables N] [--hands N] [--clock deduct|normal] [--write docs/benchmarks.md]`.

use async_nats::jetstream::message::PublishMessage;
use async_nats::Subscriber;
use floor_events::bubble::{self, BubbleEvent, BubbleRequest, HandForHandClock, HandForHandSettings, Trigger};
use floor_events::clock::{BlindStructure, Structure};
use floor_events::registration::{verbs, Register, StartTournament};
use floor_events::seating::SeatingEvent;
use floor_events::table::{Instruction, Report, SeatStack, TableInstruction, TableReport};
use floor_events::tournament::TournamentDefinition;
use floor_events::{subjects, CommandId, PlayerId, Reply, TournamentId};
use floor_tests::{freezeout, level, recorded, World};
use futures::StreamExt;
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

/// How long the registrations and the draw may take before the bench gives up.
const PATIENCE: Duration = Duration::from_secs(900);
/// How long one step of a hand may take.
const STEP: Duration = Duration::from_secs(120);
/// A blind level long enough that the deduction (120 s a hand) never ends it during the run:
/// a new level would send `blinds` to every table in the middle of the measurement.
const DAY: u32 = 86_400;
/// Reports in flight at once while the tables play (each table's own in order).
const TABLES_AT_ONCE: usize = 64;
/// Relay samples thrown away before the first kept one.
const RELAY_WARM_UP: usize = 5;

fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// p50, p99 and max of `samples`.
fn spread(samples: &[Duration]) -> (Duration, Duration, Duration) {
    (percentile(samples, 0.5), percentile(samples, 0.99), percentile(samples, 1.0))
}

/// The clock under hand-for-hand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ClockMode {
    /// No `hand_for_hand` section: the profile's (TDA: deduct 120 s a hand).
    Deduct,
    /// `hand_for_hand {trigger: director, clock: normal}`.
    Normal,
}

/// A freezeout for `entrants` with a running clock of day-long levels. Without a structure the
/// clock service has no clock to pause or deduct from; with one, both modes run the same
/// services and differ only in the deduction.
fn definition(entrants: u32, clock: ClockMode) -> TournamentDefinition {
    let structure = Structure {
        steps: vec![level(100, 200, DAY), level(200, 400, DAY)],
        late_registration_levels: None,
        rebuys_until_break: None,
        push_hold_seconds: 0,
    };
    let hand_for_hand = match clock {
        ClockMode::Deduct => None,
        ClockMode::Normal => {
            Some(HandForHandSettings { trigger: Some(Trigger::Director), clock: Some(HandForHandClock::Normal), ..Default::default() })
        }
    };
    TournamentDefinition {
        capacity: entrants,
        min_players: 2,
        guarantee: None,
        structure: Some(BlindStructure::Custom(structure)),
        hand_for_hand,
        ..freezeout(entrants)
    }
}

async fn publish_report(world: &World, report: &TableReport) {
    let subject = floor_events::table::reports_subject(report.tournament_id, report.table);
    let message = PublishMessage::build()
        .payload(serde_json::to_vec(report).expect("report serializes").into())
        .message_id(floor_events::table::report_message_id(report.tournament_id, report.table, &report.report_id));
    world.jetstream().send_publish(subject, message).await.expect("publish").await.expect("ack");
}

/// Each table's reports in order, many tables at once: tables play side by side.
async fn publish_reports(world: &World, by_table: Vec<Vec<TableReport>>) {
    futures::stream::iter(by_table)
        .map(|reports| async move {
            for report in &reports {
                publish_report(world, report).await;
            }
        })
        .buffer_unordered(TABLES_AT_ONCE)
        .collect::<Vec<()>>()
        .await;
}

/// A hand at `table` with its `seats` (sorted by seat), dealt on `deal_hand` under
/// hand-for-hand: started, and (when `finish`) finished with every stack as it was. Nobody
/// busts, so the chips add up and the bubble never bursts.
fn hand(t: TournamentId, table: u32, number: u64, deal_hand: Option<u64>, seats: &[SeatStack], finish: bool) -> Vec<TableReport> {
    let report = |what: &str, report| TableReport { tournament_id: t, table, report_id: format!("bench-{table}-{number}-{what}"), report };
    let button = seats[(number as usize - 1) % seats.len()].seat;
    let mut reports = vec![report("start", Report::HandStarted { hand: number, button, stacks: seats.to_vec(), deal_hand })];
    if finish {
        reports.push(report("end", Report::HandFinished { hand: number, stacks: seats.to_vec(), busts: vec![] }));
    }
    reports
}

/// An instruction as a table reads it.
fn instruction(message: Option<async_nats::Message>) -> TableInstruction {
    serde_json::from_slice(&message.expect("subscription open").payload).expect("an instruction")
}

/// A seating commit's events; a rejected report stops the bench (a bug in the bench's tables,
/// or in seating, either way no figure).
fn seating_events(commit: Option<async_nats::Message>) -> Vec<SeatingEvent> {
    let events: Vec<SeatingEvent> =
        floor_events::record::decode_commit(&commit.expect("subscription open").payload).expect("a seating commit");
    for e in &events {
        if let SeatingEvent::ReportRejected { table, report_id, code, reason } = e {
            panic!("seating rejected {report_id} from table {table}: {code}: {reason}");
        }
    }
    events
}

fn bubble_events(commit: Option<async_nats::Message>) -> Vec<BubbleEvent> {
    floor_events::record::decode_commit(&commit.expect("subscription open").payload).expect("a bubble commit")
}

/// The tournament's tables' instructions and its seating and bubble logs, as they are stored.
struct Watch {
    instructions: Subscriber,
    seating: Subscriber,
    bubble: Subscriber,
}

impl Watch {
    async fn start(world: &World, t: TournamentId) -> Self {
        let client = &world.backbone.client;
        let instructions = client.subscribe(format!("floor.table.{t}.*.in")).await.expect("subscribe");
        let seating = client.subscribe(subjects::event_subject(subjects::aggregate::SEATING, t.0)).await.expect("subscribe");
        let bubble = client.subscribe(subjects::event_subject(subjects::aggregate::BUBBLE, t.0)).await.expect("subscribe");
        floor_runtime::bootstrap::sync_with_server(client).await.expect("subscribed");
        Self { instructions, seating, bubble }
    }

    /// Every seat of the draw, by table.
    async fn draw(&mut self, entrants: usize) -> BTreeMap<u32, Vec<SeatStack>> {
        let mut seats: BTreeMap<u32, Vec<SeatStack>> = BTreeMap::new();
        let mut seated = 0;
        while seated < entrants {
            let i = instruction(self.instructions.next().await);
            if let Instruction::SeatPlayer { entry, seat, stack, .. } = i.instruction {
                seats.entry(i.table).or_default().push(SeatStack { seat, entry, chips: stack });
                seated += 1;
            }
        }
        for s in seats.values_mut() {
            s.sort_by_key(|s| s.seat.0);
        }
        seats
    }

    /// Until seating has stored `hand` finished at `tables` tables.
    async fn finished_at(&mut self, tables: usize, hand: u64) {
        let mut done = HashSet::new();
        while done.len() < tables {
            for e in seating_events(self.seating.next().await) {
                if let SeatingEvent::HandFinished { table, hand: h, .. } = e {
                    if h == hand {
                        done.insert(table);
                    }
                }
            }
        }
    }

    /// Until the bubble has taken hand-for-hand hand `hand` dealt at `dealt` tables and
    /// finished at `finished`, the seating log read meanwhile for rejections.
    async fn bubble_took(&mut self, hand: u64, dealt: usize, finished: usize) {
        let (mut d, mut f) = (HashSet::new(), HashSet::new());
        while d.len() < dealt || f.len() < finished {
            tokio::select! {
                events = self.bubble.next() => for e in bubble_events(events) {
                    match e {
                        BubbleEvent::TableDealt { table, hand: h, .. } if h == hand => { d.insert(table); }
                        BubbleEvent::TableFinished { table, hand: h, .. } if h == hand => { f.insert(table); }
                        BubbleEvent::HandForHandEnded { cause, .. } => panic!("hand-for-hand ended ({cause:?}) during hand {hand}"),
                        _ => {}
                    }
                },
                commit = self.seating.next() => { seating_events(commit); }
            }
        }
    }

    /// Until every one of `tables` tables holds `wanted`. Returns the copies that came twice
    /// (the outbox publishing again what the command path sent: the stream keeps one).
    async fn every_table_told(&mut self, tables: usize, wanted: &Instruction) -> usize {
        let mut told = HashSet::new();
        let mut twice = 0;
        while told.len() < tables {
            let i = instruction(self.instructions.next().await);
            if &i.instruction == wanted && !told.insert(i.table) {
                twice += 1;
            }
        }
        twice
    }

    /// The last table's finish, timed: published → `deal_hand {next}` at every table.
    async fn release(&mut self, world: &World, finish: &TableReport, tables: usize, next: u64) -> Release {
        let wanted = Instruction::DealHand { hand: next };
        // Seating's commit of the `deal_hand`s, found by its first event without decoding a
        // thousand instructions on the bench's share of the machine while it measures.
        let pattern = format!(r#"{{"type":"deal_hand","hand":{next}}}"#);
        let mut seating = Vec::new();
        let mut told = HashSet::new();
        let (mut released, mut instructed, mut first) = (None, None, None);
        let start = Instant::now();
        publish_report(world, finish).await;
        let published = start.elapsed();
        while told.len() < tables || released.is_none() || instructed.is_none() {
            // The logs' commits first: their arrival times split the path.
            tokio::select! {
                biased;
                commit = self.bubble.next(), if released.is_none() => {
                    if bubble_events(commit).iter().any(|e| matches!(e, BubbleEvent::HandReleased { hand, .. } if *hand == next)) {
                        released = Some(start.elapsed());
                    }
                }
                commit = self.seating.next(), if instructed.is_none() => {
                    let commit = commit.expect("subscription open");
                    if commit.payload.windows(pattern.len()).take(512).any(|w| w == pattern.as_bytes()) {
                        instructed = Some(start.elapsed());
                    }
                    seating.push(commit);
                }
                message = self.instructions.next() => {
                    let i = instruction(message);
                    if i.instruction == wanted {
                        first.get_or_insert_with(|| start.elapsed());
                        told.insert(i.table);
                    }
                }
            }
        }
        let total = start.elapsed();
        // Read after the clock stopped: a rejected report still stops the bench.
        for commit in seating {
            seating_events(Some(commit));
        }
        let or_total = |d: Option<Duration>| d.unwrap_or(total);
        Release { published, released: or_total(released), instructed: or_total(instructed), first: or_total(first), total }
    }
}

/// One release, split.
struct Release {
    /// The report acknowledged by the stream.
    published: Duration,
    /// The bubble's `hand_released` received.
    released: Duration,
    /// Seating's commit of the `deal_hand` instructions received.
    instructed: Duration,
    /// The first table's `deal_hand` received.
    first: Duration,
    /// Every table's.
    total: Duration,
}

/// Until `reader`'s checkpoint (KV `floor-checkpoints`) has passed the last commit on
/// `subject`: the reader has taken, and acted on, everything there.
async fn caught_up(world: &World, reader: &str, subject: &str) {
    let Ok(last) = world.backbone.events.direct_get_last_for_subject(subject).await else { return };
    let bucket = world.jetstream().get_key_value(subjects::CHECKPOINT_BUCKET).await.expect("checkpoints");
    let mut watch = bucket.watch_with_history(reader).await.expect("watch the checkpoint");
    let wait = async {
        while let Some(entry) = watch.next().await {
            let entry = entry.expect("watch entry");
            if std::str::from_utf8(&entry.value).ok().and_then(|v| v.parse::<u64>().ok()).is_some_and(|c| c >= last.sequence) {
                return;
            }
        }
        panic!("checkpoint watch ended");
    };
    tokio::time::timeout(STEP, wait).await.unwrap_or_else(|_| panic!("{reader} did not take {subject} up to {}", last.sequence));
}

/// Every reader on the release's path has taken the tournament's commits so far, so the
/// timed report meets an idle platform, as the relay's does: the bubble's policy and
/// seating's (which turns a release into instructions) the bubble's log, seating's outbox
/// seating's log.
async fn idle(world: &World, t: TournamentId) {
    let bubble = subjects::event_subject(subjects::aggregate::BUBBLE, t.0);
    let seating = subjects::event_subject(subjects::aggregate::SEATING, t.0);
    caught_up(world, "bubble-policy", &bubble).await;
    caught_up(world, "bubble-policy", &seating).await;
    caught_up(world, "seating-policy", &bubble).await;
    caught_up(world, "seating-outbox", &seating).await;
}

/// Where the relay's reports go and its instructions come out, on the tables stream, outside
/// every tournament's subjects (`floor.table.<t>.<table>.{in,out}` have five tokens).
const RELAY_REPORTS: &str = "floor.table.bench.release.report";
const RELAY_INSTRUCTIONS: &str = "floor.table.bench.release.*.in";

fn relay_instructions(table: u32) -> String {
    format!("floor.table.bench.release.{table}.in")
}

/// The floor of any barrier, without Floor: per report, one commit and one instruction per
/// table, nothing decided.
struct Relay {
    task: tokio::task::JoinHandle<()>,
    instructions: Subscriber,
    /// When the relay had every instruction's acknowledgement, per report.
    acked: tokio::sync::mpsc::UnboundedReceiver<Instant>,
    tables: usize,
    sent: usize,
}

impl Relay {
    /// A durable pull consumer set up as seating's reports runner's takes each "report" from
    /// the tables stream, appends a `hand_released` commit naming every table to an event
    /// subject (with the expected last subject sequence, as the store appends), publishes a
    /// `deal_hand` to every table with its message id (as seating's outbox does), awaits every
    /// acknowledgement, and acknowledges the report.
    async fn start(world: &World, tables: Vec<u32>) -> Self {
        use async_nats::jetstream::consumer::{pull, AckPolicy};
        let consumer = world
            .backbone
            .tables
            .create_consumer(pull::Config {
                durable_name: Some("bench-release-relay".into()),
                filter_subject: RELAY_REPORTS.into(),
                ack_policy: AckPolicy::All,
                ..Default::default()
            })
            .await
            .expect("relay consumer");
        let instructions = world.backbone.client.subscribe(RELAY_INSTRUCTIONS).await.expect("subscribe");
        floor_runtime::bootstrap::sync_with_server(&world.backbone.client).await.expect("subscribed");
        let mut reports = consumer.messages().await.expect("relay messages");
        let jetstream = world.jetstream().clone();
        let (acked_tx, acked) = tokio::sync::mpsc::unbounded_channel();
        let count = tables.len();
        let task = tokio::spawn(async move {
            // Not on a bubble subject: seating's and the bubble's policies read those, and a
            // relay commit there opened seating's linger window just before Floor's sample.
            let log = subjects::event_subject("bench", uuid::Uuid::new_v4());
            let relay_t = TournamentId::new();
            let mut last = 0;
            let mut hand = 0;
            while let Some(Ok(report)) = reports.next().await {
                hand += 1;
                let release = BubbleEvent::HandReleased { hand, tables: tables.clone(), at: chrono::Utc::now() };
                let commit = PublishMessage::build()
                    .payload(floor_events::record::encode_commit(&[release]).into())
                    .expected_last_subject_sequence(last);
                last = jetstream.send_publish(log.clone(), commit).await.expect("append").await.expect("appended").sequence;
                let mut acks = Vec::with_capacity(tables.len());
                for &table in &tables {
                    let i = TableInstruction { tournament_id: relay_t, table, sequence: hand, instruction: Instruction::DealHand { hand } };
                    let message = PublishMessage::build()
                        .payload(serde_json::to_vec(&i).expect("instruction serializes").into())
                        .message_id(format!("instruction:{relay_t}.{table}.{hand}"));
                    acks.push(jetstream.send_publish(relay_instructions(table), message).await.expect("publish"));
                }
                for ack in futures::future::join_all(acks.into_iter().map(std::future::IntoFuture::into_future)).await {
                    ack.expect("instruction stored");
                }
                let _ = acked_tx.send(Instant::now());
                report.double_ack().await.expect("ack");
            }
        });
        Self { task, instructions, acked, tables: count, sent: 0 }
    }

    /// One relay: report published → every instruction received; and → every acknowledgement
    /// in at the relay.
    async fn sample(&mut self, world: &World) -> (Duration, Duration) {
        self.sent += 1;
        let report =
            PublishMessage::build().payload(self.sent.to_string().into_bytes().into()).message_id(format!("bench-release-{}", self.sent));
        let start = Instant::now();
        world.jetstream().send_publish(RELAY_REPORTS, report).await.expect("publish").await.expect("ack");
        let all = async {
            for _ in 0..self.tables {
                self.instructions.next().await.expect("subscription open");
            }
        };
        tokio::time::timeout(STEP, all).await.expect("relayed");
        let total = start.elapsed();
        let acked = tokio::time::timeout(STEP, self.acked.recv()).await.expect("relay acknowledged").expect("relay running");
        (total, acked.duration_since(start))
    }
}

/// The director's bubble verb `verb` on `t`.
async fn director(world: &World, verb: &str, t: TournamentId) -> Vec<BubbleEvent> {
    let request = BubbleRequest { command_id: CommandId::new(), tournament_id: t };
    recorded(world.request(subjects::service::BUBBLE, verb, &request).await)
}

/// The number after `name` on the command line.
fn number(args: &[String], name: &str, default: usize) -> usize {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(|v| v.parse().expect("a number")).unwrap_or(default)
}

/// The machine's cores.
fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
}

/// The one-minute load average: other work on a shared machine moves every absolute time.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tables = number(&args, "--tables", 1_000);
    let hands = number(&args, "--hands", 30);
    let clock = match args.iter().position(|a| a == "--clock").and_then(|i| args.get(i + 1)).map(String::as_str) {
        None | Some("deduct") => ClockMode::Deduct,
        Some("normal") => ClockMode::Normal,
        Some(other) => panic!("--clock deduct|normal, not {other}"),
    };
    assert!(tables >= 2 && hands >= 1, "hand-for-hand needs two tables and a hand");
    let entrants = 9 * tables;
    let load_before = load();
    // The services on the release's path and those that read every commit as they would in
    // play (bounties, rebuys, abort); not the lobby, payouts or the scheduler, as in
    // seating-latency. The clock runs: under the TDA deduction the bubble pauses it and takes
    // time off at every hand, and its policy runs those commands before the release, so
    // without a clock service no hand is ever released.
    let world = World::start_configured(|c| {
        c.skip("lobby");
        c.skip("payouts");
        c.skip("scheduler");
        c.seed_key = Some([20; 32]);
    })
    .await;

    let t = world.create(definition(entrants as u32, clock)).await;
    let mut watch = Watch::start(&world, t).await;
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
    let begin = StartTournament { command_id: CommandId::new(), tournament_id: t, now: true };
    assert!(matches!(world.send(verbs::START_TOURNAMENT.name(), &begin).await, Reply::Ok(_)), "tournament started");
    let seats = tokio::time::timeout(PATIENCE, watch.draw(entrants)).await.expect("the draw arrived");
    assert_eq!(seats.len(), tables, "{entrants} players at tables of nine");
    eprintln!("drawn: {} tables, {:.1} s after the start of registration", seats.len(), started.elapsed().as_secs_f64());

    // Hand 1 everywhere, as in play: nobody out.
    publish_reports(&world, seats.iter().map(|(&n, s)| hand(t, n, 1, None, s, true)).collect()).await;
    tokio::time::timeout(PATIENCE, watch.finished_at(tables, 1)).await.expect("hand 1 finished everywhere");
    // The director's start reads the field from the bubble policy's memory: a table whose
    // finish it has not folded yet counts as dealing, and if that finish is stored before the
    // start the table owes hand 0 for ever (the policy forwards reports to the aggregate only
    // once it has read the start back; seen with a start sent among 200 tables' finishes).
    idle(&world, t).await;
    eprintln!("hand 1 played at every table, {:.1} s", started.elapsed().as_secs_f64());

    let announced = Instant::now();
    let events = director(&world, bubble::verbs::START.name(), t).await;
    let dealing = events.iter().find_map(|e| match e {
        BubbleEvent::HandForHandStarted { dealing, .. } => Some(dealing.len()),
        _ => None,
    });
    assert_eq!(dealing, Some(0), "hand-for-hand started with every table between hands: {events:?}");
    assert!(events.iter().any(|e| matches!(e, BubbleEvent::HandCompleted { hand: 0, .. })), "hand 0 complete at once: {events:?}");
    let mut twice =
        tokio::time::timeout(STEP, watch.every_table_told(tables, &Instruction::DealHand { hand: 1 })).await.expect("hand 1 released");
    let first_release = announced.elapsed();
    eprintln!("director's start → deal_hand 1 at every table: {:.1} ms", ms(first_release));

    let numbers: Vec<u32> = seats.keys().copied().collect();
    let mut relay = Relay::start(&world, numbers.clone()).await;
    for _ in 0..RELAY_WARM_UP {
        relay.sample(&world).await;
    }
    let (mut floor, mut floor_acked) = (Vec::with_capacity(hands), Vec::with_capacity(hands));
    let mut releases = Vec::with_capacity(hands);
    for k in 1..=hands as u64 {
        // Table hand k + 1 is hand-for-hand hand k. The last table to finish moves round.
        let last = numbers[(k as usize - 1) % numbers.len()];
        let number = k + 1;
        publish_reports(&world, seats.iter().map(|(&n, s)| hand(t, n, number, Some(k), s, n != last)).collect()).await;
        tokio::time::timeout(STEP, watch.bubble_took(k, tables, tables - 1)).await.expect("the bubble took the hand");
        idle(&world, t).await;
        let (relayed, acked) = relay.sample(&world).await;
        floor.push(relayed);
        floor_acked.push(acked);
        let finish = hand(t, last, number, Some(k), &seats[&last], true).pop().expect("the finish");
        let Ok(release) = tokio::time::timeout(STEP, watch.release(&world, &finish, tables, k + 1)).await else {
            panic!("deal_hand {} not at every table {STEP:?} after table {last}'s finish", k + 1);
        };
        eprintln!(
            "hand {k}: relay {:.1} ms; Floor {:.1} ms (acked {:.1}, released {:.1}, instructions stored {:.1}, first deal_hand {:.1})",
            ms(relayed),
            ms(release.total),
            ms(release.published),
            ms(release.released),
            ms(release.instructed),
            ms(release.first)
        );
        releases.push(release);
    }
    let stopped = director(&world, bubble::verbs::STOP.name(), t).await;
    assert!(stopped.iter().any(|e| matches!(e, BubbleEvent::HandForHandEnded { .. })), "stopped: {stopped:?}");
    twice += tokio::time::timeout(STEP, watch.every_table_told(tables, &Instruction::Resume)).await.expect("every table resumed");
    relay.task.abort();
    let load_after = load();

    let total: Vec<Duration> = releases.iter().map(|r| r.total).collect();
    let released: Vec<Duration> = releases.iter().map(|r| r.released).collect();
    let instructed: Vec<Duration> = releases.iter().map(|r| r.instructed).collect();
    let first: Vec<Duration> = releases.iter().map(|r| r.first).collect();
    let published: Vec<Duration> = releases.iter().map(|r| r.published).collect();
    let (floor_p50, floor_p99, floor_max) = spread(&floor);
    let (p50, p99, max) = spread(&total);
    let ratio = p99.as_secs_f64() / floor_p99.as_secs_f64();
    let row = |what: &str, samples: &[Duration], run: &str, target: &str| {
        let (p50, p99, max) = spread(samples);
        format!("| {what} | {:.2} ms | {:.2} ms | {:.2} ms | {run} | {target} |\n", ms(p50), ms(p99), ms(max))
    };
    let clock_name = match clock {
        ClockMode::Deduct => "no `hand_for_hand` section: TDA, the clock loses 120 s a hand",
        ClockMode::Normal => "`hand_for_hand {trigger: director, clock: normal}`",
    };
    let mut table = String::from("| figure | p50 | p99 | max | run | target |\n|---|---|---|---|---|---|\n");
    table += &row(
        &format!(
            "the floor of any barrier, without Floor: report stored and consumed → one commit appended (a `hand_released` naming {tables} tables, expected last subject sequence) → {tables} instructions stored → the last received"
        ),
        &floor,
        &format!("{hands} relays, each just before a Floor sample"),
        "",
    );
    table += &row(
        &format!("of which: report published → the relay has all {tables} acknowledgements"),
        &floor_acked,
        &format!("{hands} relays"),
        "",
    );
    table +=
        &row("of which: last table's `hand_finished` published → acknowledged by the stream", &published, &format!("{hands} hands"), "");
    table += &row("of which: … → the bubble's `hand_released` received", &released, &format!("{hands} hands"), "");
    table += &row("of which: … → seating's commit of the `deal_hand` instructions received", &instructed, &format!("{hands} hands"), "");
    table += &row("of which: … → the first table's `deal_hand` received", &first, &format!("{hands} hands"), "");
    table += &format!(
        "| last table's `hand_finished` published → `deal_hand` for the next hand received at every one of {tables} tables, {entrants} entrants ({clock_name}) | {:.2} ms | {:.2} ms | {:.2} ms | {hands} hands | p99 ≤ 2× the floor's p99: {ratio:.1}×, {} |\n",
        ms(p50),
        ms(p99),
        ms(max),
        if ratio <= 2.0 { "met" } else { "**missed**" },
    );
    table += &format!(
        "| director's start → `deal_hand 1` at every table (for reading: `hold_for_deal` and `deal_hand` to {tables} tables) | {:.2} ms | | | 1 start | |\n",
        ms(first_release)
    );
    println!("{table}");
    println!(
        "floor p50/p99/max {:.2}/{:.2}/{:.2} ms; Floor {:.2}/{:.2}/{:.2} ms; p99 ratio {ratio:.2}×, p50 ratio {:.2}×",
        ms(floor_p50),
        ms(floor_p99),
        ms(floor_max),
        ms(p50),
        ms(p99),
        ms(max),
        p50.as_secs_f64() / floor_p50.as_secs_f64()
    );
    eprintln!(
        "instructions received twice (hold, deals, resume): {twice}; {} cores, load average {load_before} at the start, {load_after} at the end",
        cores()
    );
    if let Some(path) = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1)) {
        let command =
            std::iter::once("target/release/bubble-bench".to_owned()).chain(args.iter().skip(1).cloned()).collect::<Vec<_>>().join(" ");
        let body = format!(
            "_Last run: {} UTC, on the shared {}-core VM (load average {load_before} at the start, {load_after} at the end), platform and bench in one process, one fresh nats-server._\n\n\
             Command: `cargo build --release -p floor-tests --bin bubble-bench && {command}`\n\n\
             Both sides are timed from a report's publish (its acknowledgement inside) to the last of {tables} instructions received by a core subscription. One relay sample is taken right before each Floor sample, with every reader on Floor's path caught up; absolute times move with other work on the VM, the two sides taking turns in the same conditions. With {hands} samples each, p99 is the slowest sample.\n\n{table}",
            chrono::Utc::now().format("%Y-%m-%d %H:%M"),
            cores(),
        );
        let heading = format!("## Hand-for-hand release at {tables} tables (issue 20)");
        floor_tests::write_bench_section(path, "bubble-bench", &heading, &body).expect("write benchmarks");
    }
}
