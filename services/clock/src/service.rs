//! Wiring: the `floor.cmd.clock.<verb>` endpoint, the timer, and the reactions to tournaments.
//!
//! - Director commands are stamped with the time and handed to the clock aggregate.
//! - The timer follows every clock's events into a [`Timetable`] (rebuilt from the log at each
//!   start, so a restarted service picks up where the events say) and, when a step change is
//!   due, sends the aggregate a tick. The tick's id is derived from the clock and the due
//!   instant, so two instances ticking the same change store it once.
//! - The policy runner follows tournament and abort events ([`crate::policy`]) through a durable
//!   consumer with a checkpoint: a structure for a new tournament, a start when it starts, a
//!   stop when it ends or is cancelled; a hold while play is suspended (issue 33).

use crate::domain::{ClockAggregate, ClockCommand};
use crate::policy;
use crate::projection::Timetable;
use chrono::{DateTime, Utc};
use floor_events::clock::{verbs, AdjustTime, BlindStructure, ClockRecorded, ClockRequest, PauseClock, SetStructure, SkipToLevel};
use floor_events::commit::{Commit, Events};
use floor_events::{subjects, CommandId, Reply, TournamentId};
use floor_rules::structure::preset;
use floor_runtime::commits::Stored;
use floor_runtime::endpoint::Verbs;
use floor_runtime::follow::{follow, Following};
use floor_runtime::host::HostErrorKind;
use floor_runtime::policy::{PolicyConfig, PolicyRunner};
use floor_runtime::projection::ProjectionError;
use floor_runtime::shell::{Context, Service};
use floor_runtime::tail::Delivered;
use floor_runtime::{reply, AggregateHost, Clock, JetStreamStore, RETRY};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Ticks stored at once. Many clocks can change level in the same second (tournaments start on
/// the hour); their appends overlap instead of queueing behind each other.
const TICKS_IN_FLIGHT: usize = 512;

/// Longest sleep with no step change due (a new clock arrives as an event and wakes the timer).
const IDLE: chrono::Duration = chrono::Duration::hours(1);

/// How long a tick that could not be stored waits before it is tried again.
const TICK_RETRY: chrono::Duration = chrono::Duration::seconds(1);

/// The clock service. Cheap to clone.
#[derive(Clone)]
pub struct ClockService {
    host: AggregateHost<ClockAggregate>,
    clock: Arc<dyn Clock>,
}

/// Error starting the service.
pub type StartError = ProjectionError;

impl Service for ClockService {
    type Error = StartError;

    /// Builds the service and starts its timer and its policy runner on the tracker; both have
    /// caught up with the stream when this returns.
    ///
    /// # Errors
    /// When the stream cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, StartError> {
        let (backbone, clock, shutdown, tracker) = (cx.backbone, cx.clock.clone(), cx.shutdown.clone(), cx.tracker);
        let service = Self { host: AggregateHost::new(JetStreamStore::new(backbone)), clock };
        let mut timetable = Timetable::default();
        let following =
            follow(backbone, vec![subjects::event_filter(subjects::aggregate::CLOCK)], |message| fold(&mut timetable, message)).await?;
        tracker.spawn(service.clone().run_timer(timetable, following, shutdown.clone(), tracker.clone()));
        let started = PolicyRunner::<Reactions>::start(backbone, policy_config()).await?;
        let reacting = service.clone();
        tracker.spawn(async move {
            // A director may have got there first (started the clock by hand, say): the host
            // logs the rejection and goes on; a clock set aside drops its reaction (issue 17).
            let execute = |(tournament, command_id, command): Order| {
                let (host, shutdown) = (reacting.host.clone(), shutdown.clone());
                async move { host.execute_reaction(tournament.0, command_id, command, RETRY, &shutdown).await }
            };
            started.runner.drive(started.owed, &shutdown.clone(), execute).await;
        });
        Ok(service)
    }

    /// The director's verbs. Each is stamped with the service's time and handed to the clock.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::CLOCK)
            .verb(verbs::SET_STRUCTURE, |s: Self, r: SetStructure| async move {
                let structure = match r.structure {
                    BlindStructure::Preset(kind) => preset(kind),
                    BlindStructure::Custom(custom) => custom,
                };
                s.execute(r.tournament_id, r.command_id, ClockCommand::SetStructure { structure }).await
            })
            .verb(verbs::START, |s: Self, r: ClockRequest| async move {
                s.stamped(r.tournament_id, r.command_id, |at| ClockCommand::Start { at }).await
            })
            .verb(verbs::RESUME, |s: Self, r: ClockRequest| async move {
                s.stamped(r.tournament_id, r.command_id, |at| ClockCommand::Resume { at }).await
            })
            .verb(verbs::END_BREAK, |s: Self, r: ClockRequest| async move {
                s.stamped(r.tournament_id, r.command_id, |at| ClockCommand::EndBreak { at }).await
            })
            .verb(verbs::PAUSE, |s: Self, r: PauseClock| async move {
                s.stamped(r.tournament_id, r.command_id, |at| ClockCommand::Pause { at, reason: r.reason }).await
            })
            .verb(verbs::ADJUST_TIME, |s: Self, r: AdjustTime| async move {
                s.stamped(r.tournament_id, r.command_id, |at| ClockCommand::AdjustTime { seconds: r.seconds, at }).await
            })
            .verb(verbs::SKIP_TO_LEVEL, |s: Self, r: SkipToLevel| async move {
                s.stamped(r.tournament_id, r.command_id, |at| ClockCommand::SkipToLevel { level: r.level, at }).await
            })
    }
}

impl ClockService {
    /// The number of clocks the host keeps in memory.
    pub fn live_clocks(&self) -> usize {
        self.host.live_count()
    }

    /// Executes the command `make` builds with the service's time now.
    async fn stamped(
        &self,
        tournament: TournamentId,
        command_id: CommandId,
        make: impl FnOnce(DateTime<Utc>) -> ClockCommand,
    ) -> Reply<ClockRecorded> {
        self.execute(tournament, command_id, make(self.clock.now())).await
    }

    async fn execute(&self, tournament: TournamentId, command_id: CommandId, command: ClockCommand) -> Reply<ClockRecorded> {
        reply(self.host.execute(tournament.0, command_id, command).await, |c| ClockRecorded { events: c.events })
    }

    /// Waits for the earliest due step change, ticks every clock due, and folds the events the
    /// clocks store (from this instance or any other) back into the timetable.
    async fn run_timer(self, mut timetable: Timetable, mut following: Following, shutdown: CancellationToken, tracker: TaskTracker) {
        let in_flight = Arc::new(Semaphore::new(TICKS_IN_FLIGHT));
        let failed: Arc<Mutex<Vec<TournamentId>>> = Arc::default();
        loop {
            let wake = timetable.next_wakeup().unwrap_or_else(|| self.clock.now() + IDLE);
            tokio::select! {
                _ = shutdown.cancelled() => break,
                next = following.next() => match next {
                    Some(Ok(message)) => {
                        following.guard(&message, || fold(&mut timetable, &message));
                    }
                    Some(Err(e)) => tracing::warn!(error = %e, "following clock events"),
                    None => break,
                },
                _ = self.clock.sleep_until(wake) => {}
            }
            let now = self.clock.now();
            for tournament in failed.lock().expect("failed ticks poisoned").drain(..) {
                timetable.retry(tournament, now + TICK_RETRY);
            }
            for (tournament, due) in timetable.due(now) {
                let Ok(permit) = in_flight.clone().acquire_owned().await else { break };
                let (service, failed) = (self.clone(), failed.clone());
                tracker.spawn(async move {
                    let command = ClockCommand::Tick { now: service.clock.now() };
                    let outcome = service.host.execute(tournament.0, policy::tick_command_id(tournament, due), command).await;
                    match outcome {
                        // A clock with a poison commit is set aside: ticking again cannot help.
                        Err(e) if e.kind() == HostErrorKind::SetAside => tracing::error!(%tournament, error = %e, "clock tick dropped"),
                        Err(e) => {
                            tracing::warn!(%tournament, error = %e, "clock tick not stored; retrying");
                            failed.lock().expect("failed ticks poisoned").push(tournament);
                        }
                        Ok(_) => {}
                    }
                    drop(permit);
                });
            }
        }
    }
}

fn fold(timetable: &mut Timetable, message: &Delivered) {
    if let Some(Commit { id, events: Events::Clock(events) }) = Stored::of(message).commit("clock-timer") {
        timetable.apply(TournamentId(*id), events);
    }
}

/// The clock's reactions to the tournament's life and to play's ([`policy`]), on the
/// checkpointed [`PolicyRunner`] like every other service's (issue 35): each commit's commands
/// are stored before the checkpoint moves past it, so none is lost to a crash. Both logs are
/// read in one order, so a suspension is never applied before the start that preceded it.
/// Nothing is remembered between commits: the snapshot is empty.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Reactions;

/// A clock command a reaction calls for, with its derived id.
type Order = (TournamentId, CommandId, ClockCommand);

impl floor_runtime::policy::Policy for Reactions {
    type Order = Order;

    fn react(&mut self, stored: Stored<'_>) -> Vec<Order> {
        let Some(Commit { id, events }) = stored.commit(POLICY_NAME) else { return vec![] };
        let tournament = TournamentId(*id);
        let reactions: Vec<_> = match events {
            Events::Tournament(events) => events.iter().filter_map(|e| policy::react(tournament, e)).collect(),
            Events::Abort(events) => events.iter().filter_map(|e| policy::react_to_abort(tournament, e)).collect(),
            _ => return vec![],
        };
        reactions.into_iter().map(|(command_id, command)| (tournament, command_id, command)).collect()
    }
}

/// The policy's name: its checkpoint key and health record (the projection runner's before it).
pub const POLICY_NAME: &str = "clock-policy";

/// The shape of [`Reactions`] in snapshots.
const MEMORY_VERSION: &str = "clock-1";

/// How the clock's policy runs: its name, memory version and subjects.
pub fn policy_config() -> PolicyConfig {
    let filters = vec![subjects::event_filter(subjects::aggregate::TOURNAMENT), subjects::event_filter(subjects::aggregate::ABORT)];
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters)
}
