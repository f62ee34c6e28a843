//! Wiring: three runners around the seating aggregate, each on a durable consumer with a
//! checkpoint, so a crash loses nothing and repeats nothing that matters.
//!
//! - **policy**: tournament, clock, rebuys, bubble, abort and shootout events → seating commands
//!   ([`crate::policy`]).
//! - **reports**: table reports from `floor.table.<t>.<table>.out` (stream `FLOOR_TABLES`) →
//!   the aggregate, in stream order, each with a command id derived from the report.
//! - **outbox**: the aggregate's `instructed` events → `floor.table.<t>.<table>.in`, with
//!   `Nats-Msg-Id` = `instruction:<tournament>.<table>.<sequence>` (reports use their own ids,
//!   in the same stream, so the two must never collide); eliminations → registration's
//!   `eliminate_entry` (its answer checked: only recorded counts). Published before the checkpoint
//!   moves: at least once, and recognisable; what fails is sent again on the runner's timer.
//!   Rejected reports → `floor.table.<t>.<table>.rejected`, with `Nats-Msg-Id` =
//!   `rejection:<tournament>.<table>.<stream sequence of the commit>`, so the table that sent
//!   a report hears why it was rejected without reading the tournament's seating log.
//!
//! The policy and reports runners publish each commit's instructions themselves as soon as it
//! is stored ([`crate::publishing`]); the outbox publishes only what they could not.

use crate::commands::SeatingError;
use crate::domain::{SeatingAggregate, SeatingCommand, SNAPSHOT_VERSION};
use crate::policy::{
    enqueue, react_to_abort, react_to_bubble, react_to_clock, react_to_rebuys, react_to_shootout, react_to_tournament, split_pool, Queued,
    SeedKey,
};
use crate::publishing::{self, InFlight, Publisher};
use crate::reports;
use floor_events::commit::{Commit, Events};
use floor_events::registration::{self, EliminateEntry, Recorded};
use floor_events::seating::SeatingEvent;
use floor_events::table::{rejections_subject, TableInstruction, TableRejection};
use floor_events::{codes, subjects, CommandId, EntryNo, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::commits::Stored;
use floor_runtime::endpoint::Verbs;
use floor_runtime::host::HostErrorKind;
use floor_runtime::projection::{Projection, ProjectionError, ProjectionErrorKind, ProjectionRunner};
use floor_runtime::shell::{Context, Service};
use floor_runtime::snapshot::Snapshots;
use floor_runtime::{AggregateHost, CommandError, CommandErrorKind, Commands, DomainError, JetStreamStore};
use futures::StreamExt;
use std::collections::{HashSet, VecDeque};
use std::time::Duration;

/// Eliminations sent to registration at once by the outbox.
const ELIMINATING: usize = 64;
/// Instructions published at once by the outbox.
const PUBLISHING: usize = 256;
/// A tournament's seating is snapshotted every this many commits: a restart folds at most
/// this many after reading the snapshot. At 250,000 entrants a snapshot is tens of megabytes
/// and takes a fraction of a second to encode, under the aggregate's lock.
pub const SNAPSHOT_EVERY: u64 = 10_000;
/// Command ids a snapshot keeps: those of the last this many stream sequences. Retries come
/// from a runner's unacknowledged tail, a few thousand commits at most.
const SNAPSHOT_IDS: u64 = 100_000;

fn write<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Write, e)
}

fn read<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e)
}

/// The seating service: its runners, started on a tracker. It has no verbs: table servers
/// speak to it over JetStream, and it reacts to the log.
#[derive(Clone, Copy, Debug)]
pub struct SeatingService;

impl Service for SeatingService {
    type Error = ProjectionError;

    /// Starts the three runners on the tracker, each caught up with its stream first.
    ///
    /// # Errors
    /// When a stream or the secrets bucket cannot be read.
    ///
    /// The context's seed key fixes the draws (a simulation that must repeat itself); otherwise
    /// the one in the `floor-secrets` bucket is used, created on first start. A tournament's
    /// seating is snapshotted every [`SNAPSHOT_EVERY`] commits unless the context says less.
    async fn start(cx: &Context<'_>) -> Result<Self, ProjectionError> {
        let (backbone, shutdown, tracker) = (cx.backbone, cx.shutdown.clone(), cx.tracker);
        let snapshot_every = cx.snapshot_every.unwrap_or(SNAPSHOT_EVERY);
        let key = match cx.seed_key {
            Some(key) => SeedKey(key),
            None => SeedKey(floor_runtime::secrets::seed_key(backbone).await?),
        };
        let snapshots = backbone.jetstream.get_object_store(subjects::SNAPSHOT_BUCKET).await.map_err(read)?;
        let snapshots = Snapshots::json(snapshots, SNAPSHOT_VERSION, snapshot_every).keeping_ids_of(SNAPSHOT_IDS);
        let host = AggregateHost::<SeatingAggregate>::new(JetStreamStore::new(backbone)).with_snapshots(snapshots);
        let publisher = Publisher::new(backbone.jetstream.clone());
        let outbox = Outbox {
            backbone: backbone.clone(),
            host: host.clone(),
            publisher: publisher.clone(),
            commands: Commands::new(backbone.client.clone()),
            instructions: Vec::new(),
            rejections: Vec::new(),
            eliminated: Vec::new(),
        };
        // Every runner's flush is idempotent (derived command ids, message ids), so each stores
        // its checkpoint while it already works on what came next.
        let mut outbox = ProjectionRunner::new(backbone, outbox).await?.with_linger(Duration::ZERO).with_pipelined_checkpoints();
        let queue = |host: &AggregateHost<SeatingAggregate>| Queue {
            host: host.clone(),
            publisher: publisher.clone(),
            queued: VecDeque::new(),
            key: key.clone(),
        };
        // The policy gathers for the default linger while registrations wait to be pooled:
        // arriving one by one, they are joined to the pool a batch at a time. Anything else it
        // queued is run at once ([`Policy::lingers`]).
        let mut policy =
            ProjectionRunner::new(backbone, Policy { queue: queue(&host), key: key.clone() }).await?.with_pipelined_checkpoints();
        let reports = Reports { queue: queue(&host), key };
        let mut reports = ProjectionRunner::on_stream(backbone, backbone.tables.clone(), reports)
            .await?
            .with_linger(Duration::ZERO)
            .with_pipelined_checkpoints();
        let started = std::time::Instant::now();
        let ms = |since: std::time::Instant| since.elapsed().as_millis() as u64;
        policy.catch_up().await?;
        let policy_ms = ms(started);
        reports.catch_up().await?;
        let reports_ms = ms(started);
        outbox.catch_up().await?;
        tracing::info!(ms = ms(started), policy_ms, reports_ms, "seating runners caught up");
        tracker.spawn(policy.run(shutdown.clone()));
        tracker.spawn(reports.run(shutdown.clone()));
        tracker.spawn(outbox.run(shutdown));
        Ok(Self)
    }

    /// None.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::SEATING)
    }
}

/// Seating commands waiting to run, in order, and how to run them.
struct Queue {
    host: AggregateHost<SeatingAggregate>,
    publisher: Publisher,
    queued: VecDeque<Queued>,
    /// Seeds the late seats of a pool split after the start.
    key: SeedKey,
}

impl Queue {
    fn push(&mut self, tournament: TournamentId, command_id: CommandId, command: SeatingCommand) {
        enqueue(&mut self.queued, tournament, command_id, command);
    }

    /// Runs the queued commands in order; a rejection is logged (the command was not needed
    /// or not possible), a failure keeps the rest queued so the checkpoint does not move past
    /// them. Each new commit's instructions are sent as it is stored; their acknowledgements
    /// are awaited together at the end.
    ///
    /// A draw too large for one commit continues part after part until it is complete; each
    /// part's command id is derived from the tournament and the part's number, so a replayed
    /// start walks the parts already stored and then draws the rest.
    async fn run(&mut self) -> Result<(), ProjectionError> {
        let mut in_flight = InFlight::default();
        let result = self.run_sending(&mut in_flight).await;
        in_flight.confirm().await;
        result
    }

    async fn run_sending(&mut self, in_flight: &mut InFlight) -> Result<(), ProjectionError> {
        while let Some((tournament, command_id, command)) = self.queued.front().cloned() {
            if in_flight.len() >= publishing::DIRECT_AT_MOST {
                // Never hold more acknowledgement permits than that (see DIRECT_AT_MOST).
                std::mem::take(in_flight).confirm().await;
            }
            let next_part = match command {
                SeatingCommand::Start { .. } => Some(1),
                SeatingCommand::ContinueDraw { part } => Some(part + 1),
                _ => None,
            };
            let pool = matches!(command, SeatingCommand::JoinPool { .. });
            // Told to many tables, a part at a time: the same command again until a part stores
            // nothing, each part's id derived from the one before (a replay walks the parts
            // stored, then tells the tables left).
            let more = command.in_parts().then(|| (CommandId::derived(&format!("{command_id}:more")), command.clone()));
            let publisher = &self.publisher;
            let (outcome, _) =
                self.host.execute_then(tournament.0, command_id, command, |committed| publisher.send(&committed.events, in_flight)).await;
            match outcome {
                Ok(Err(SeatingError::AlreadyStarted)) if pool => {
                    // Registered after the draw: each entry needs a seat, one join at a time. The
                    // pool is still at the front of the queue (only a copy was run).
                    if let Some((_, _, SeatingCommand::JoinPool { entries })) = self.queued.pop_front() {
                        for queued in split_pool(tournament, entries, &self.key).into_iter().rev() {
                            self.queued.push_front(queued);
                        }
                    }
                }
                Ok(Ok(committed)) => {
                    self.queued.pop_front();
                    if let (Some(part), false) = (next_part, committed.events.is_empty()) {
                        let id = CommandId::derived(&format!("seating-draw-part:{tournament}:{part}"));
                        self.queued.push_front((tournament, id, SeatingCommand::ContinueDraw { part }));
                    }
                    if let (Some((id, again)), false) = (more, committed.events.is_empty()) {
                        self.queued.push_front((tournament, id, again));
                    }
                }
                Ok(Err(rejection)) => {
                    tracing::info!(%tournament, code = rejection.code(), "seating command not applied: {rejection}");
                    self.queued.pop_front();
                }
                // Seating with a poison commit is set aside: reacting again cannot help (issue 17).
                Err(e) if e.kind() == HostErrorKind::SetAside => {
                    tracing::error!(%tournament, error = %e, "seating command dropped");
                    self.queued.pop_front();
                }
                Err(e) => return Err(write(e)),
            }
        }
        Ok(())
    }
}

struct Policy {
    queue: Queue,
    key: SeedKey,
}

impl Projection for Policy {
    fn name(&self) -> &'static str {
        "seating-policy"
    }

    fn filters(&self) -> Vec<String> {
        [
            subjects::aggregate::TOURNAMENT,
            subjects::aggregate::CLOCK,
            subjects::aggregate::REBUYS,
            subjects::aggregate::BUBBLE,
            subjects::aggregate::ABORT,
            subjects::aggregate::SHOOTOUT,
        ]
        .iter()
        .map(|a| subjects::event_filter(a))
        .collect()
    }

    fn apply(&mut self, stored: Stored<'_>) {
        let Some(commit) = stored.commit("seating-policy") else { return };
        let tournament = commit.tournament();
        let reactions: Vec<(CommandId, SeatingCommand)> = match &commit.events {
            Events::Rebuys(events) => events.iter().filter_map(|e| react_to_rebuys(tournament, e, &self.key)).collect(),
            Events::Clock(events) => events.iter().filter_map(|e| react_to_clock(tournament, e)).collect(),
            Events::Bubble(events) => events.iter().filter_map(|e| react_to_bubble(tournament, e)).collect(),
            Events::Abort(events) => events.iter().filter_map(|e| react_to_abort(tournament, e)).collect(),
            Events::Tournament(events) => events.iter().flat_map(|e| react_to_tournament(tournament, e, &self.key)).collect(),
            Events::Shootout(events) => events.iter().flat_map(|e| react_to_shootout(tournament, e, &self.key)).collect(),
            _ => vec![],
        };
        for (id, command) in reactions {
            self.queue.push(tournament, id, command);
        }
    }

    async fn flush(&mut self) -> Result<(), ProjectionError> {
        self.queue.run().await
    }

    async fn reset(&mut self) -> Result<(), ProjectionError> {
        self.queue.queued.clear();
        Ok(())
    }

    /// Only registrations waiting to be pooled are worth waiting for: a release under
    /// hand-for-hand, blinds or a move is run at once (every table of a hand-for-hand hand
    /// waited out the whole linger on each release, 20 ms a hand: `bubble-bench`).
    fn lingers(&self) -> bool {
        !self.queue.queued.is_empty() && self.queue.queued.iter().all(|(_, _, c)| matches!(c, SeatingCommand::JoinPool { .. }))
    }
}

struct Reports {
    queue: Queue,
    key: SeedKey,
}

impl Projection for Reports {
    fn name(&self) -> &'static str {
        "seating-reports"
    }

    fn filters(&self) -> Vec<String> {
        vec!["floor.table.*.*.out".into()]
    }

    fn apply(&mut self, stored: Stored<'_>) {
        let (subject, sequence) = (stored.subject, stored.sequence);
        let Some(received) = reports::receive(subject, sequence, stored.body) else {
            tracing::warn!(subject, sequence, "a message outside any table's report subject skipped");
            return;
        };
        let (tournament, command_id) = (received.tournament, received.command_id);
        let command = match received.report {
            Ok(report) => {
                let seed = self.key.decision(tournament, report.table, &report.report_id);
                SeatingCommand::Report { report, seed }
            }
            Err((report_id, why)) => SeatingCommand::RefuseReport { table: received.table, report_id, why },
        };
        self.queue.push(tournament, command_id, command);
    }

    async fn flush(&mut self) -> Result<(), ProjectionError> {
        self.queue.run().await
    }

    async fn reset(&mut self) -> Result<(), ProjectionError> {
        self.queue.queued.clear();
        Ok(())
    }
}

struct Outbox {
    backbone: Backbone,
    /// The runners' host: the outbox waits on it until a tournament's command path has sent
    /// what it sends ([`crate::publishing`]).
    host: AggregateHost<SeatingAggregate>,
    publisher: Publisher,
    commands: Commands,
    instructions: Vec<TableInstruction>,
    /// Rejections to tell their tables, each with the stream sequence of its commit (the
    /// message id, so a replayed commit's rejection is stored once).
    rejections: Vec<(u64, TableRejection)>,
    eliminated: Vec<(TournamentId, EntryNo)>,
}

/// What registration's answer to an elimination means for the outbox: recorded (now or
/// before) is done; no answer, `unavailable` or `conflict` is an error, so the batch stays
/// owed and is sent again on the runner's retry timer. Any other rejection would be the same
/// however often it was sent, and holding the outbox for it would hold every table's
/// instructions behind it, so it is logged as an error and dropped.
fn eliminated(answer: Result<Recorded, CommandError>, tournament: TournamentId, entry: EntryNo) -> Result<(), ProjectionError> {
    match answer {
        Ok(_) => Ok(()),
        Err(e) if e.code() == Some(codes::ENTRY_ALREADY_ELIMINATED) => Ok(()),
        // The tournament ended first: a shared stop (a satellite's seats, a double or nothing,
        // a Day 1's share, a deal that ends it) or a cancellation, with a hand still finishing
        // at another table. Expected: nothing to record, nothing wrong (issue 37).
        Err(e) if [codes::TOURNAMENT_FINISHED, codes::TOURNAMENT_CANCELLED].map(Some).contains(&e.code()) => {
            tracing::info!(%tournament, entry = entry.0, reason = %e, "elimination after the tournament ended: nothing to record");
            Ok(())
        }
        Err(e) if matches!(e.kind_ref(), CommandErrorKind::Rejected(_)) => {
            tracing::error!(%tournament, entry = entry.0, error = %e, "registration refused an elimination; not sent again");
            Ok(())
        }
        Err(e) => Err(write(e)),
    }
}

impl Projection for Outbox {
    fn name(&self) -> &'static str {
        "seating-outbox"
    }

    fn filters(&self) -> Vec<String> {
        vec![subjects::event_filter(subjects::aggregate::SEATING)]
    }

    fn apply(&mut self, stored: Stored<'_>) {
        let sequence = stored.sequence;
        let Some(Commit { id, events: Events::Seating(events) }) = stored.commit("seating-outbox") else {
            return;
        };
        let tournament = TournamentId(*id);
        for event in events {
            match event {
                SeatingEvent::Instructed { instruction } => self.instructions.push(instruction.clone()),
                SeatingEvent::EntryEliminated { entry, .. } => self.eliminated.push((tournament, *entry)),
                SeatingEvent::ReportRejected { table, report_id, code, reason } => {
                    let (table, report_id, code, reason) = (*table, report_id.clone(), code.clone(), reason.clone());
                    self.rejections.push((sequence, TableRejection { tournament_id: tournament, table, report_id, code, reason }));
                }
                _ => {}
            }
        }
    }

    async fn flush(&mut self) -> Result<(), ProjectionError> {
        let tournaments: HashSet<TournamentId> = self.instructions.iter().map(|i| i.tournament_id).collect();
        for tournament in tournaments {
            self.host.quiet(tournament.0).await;
        }
        let mut unpublished = Vec::new();
        for i in &self.instructions {
            if !self.publisher.published(i).await {
                unpublished.push(publishing::message(i));
            }
        }
        for (sequence, r) in &self.rejections {
            let message = async_nats::jetstream::message::PublishMessage::build()
                .payload(serde_json::to_vec(r).expect("rejection serializes").into())
                .message_id(format!("rejection:{}.{}.{sequence}", r.tournament_id, r.table));
            unpublished.push((rejections_subject(r.tournament_id, r.table), message));
        }
        let jetstream = self.backbone.jetstream.clone();
        let publishes = unpublished.into_iter().map(|(subject, message)| {
            let jetstream = jetstream.clone();
            async move {
                let ack = jetstream.send_publish(subject, message).await.map_err(write)?;
                ack.await.map(|_| ()).map_err(write)
            }
        });
        let acks: Vec<Result<(), ProjectionError>> =
            futures::stream::iter(publishes.collect::<Vec<_>>()).buffered(PUBLISHING).collect().await;
        acks.into_iter().collect::<Result<Vec<()>, _>>()?;
        self.instructions.clear();
        self.rejections.clear();
        // Concurrently: a round of play at 18,000 tables eliminates thousands, and one request
        // at a time (a round trip and a registration commit each) kept the outbox busy for
        // tens of seconds after a restart. Each has an id derived from its entry, so a retry
        // after a partial failure is answered, not applied twice.
        let requests = self.eliminated.iter().map(|&(tournament_id, entry)| {
            let request =
                EliminateEntry { command_id: CommandId::derived(&format!("eliminate:{tournament_id}:{}", entry.0)), tournament_id, entry };
            let commands = self.commands.clone();
            async move { eliminated(commands.send(registration::verbs::ELIMINATE_ENTRY, &request).await, tournament_id, entry) }
        });
        let answers: Vec<Result<(), ProjectionError>> =
            futures::stream::iter(requests.collect::<Vec<_>>()).buffer_unordered(ELIMINATING).collect().await;
        answers.into_iter().collect::<Result<Vec<()>, _>>()?;
        self.eliminated.clear();
        Ok(())
    }

    async fn reset(&mut self) -> Result<(), ProjectionError> {
        self.instructions.clear();
        self.rejections.clear();
        self.eliminated.clear();
        Ok(())
    }
}
