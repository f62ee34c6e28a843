//! Wiring: the `floor.cmd.scheduler.<verb>` endpoint and the timer that creates and starts
//! tournaments.
//!
//! The scheduler owns templates only. Tournaments belong to registration, so the scheduler
//! creates and starts them the way a director would: with registration's commands over NATS,
//! each with an id derived from what it does, so a restart or a second scheduler changes
//! nothing. Templates and tournaments are folded from the log into [`Schedules`] by a
//! [`PolicyRunner`]: a restart reads its snapshot and the commits after it (not every
//! registration ever made), and builds the [`Plan`] from it at the instant of the start.

use crate::domain::{ScheduleAggregate, ScheduleCommand};
use crate::policy::{Change, Creation, Plan, Schedules};

use chrono::{DateTime, Utc};
use floor_events::commit::Events;
use floor_events::registration::{self, CreateTournament, StartTournament};
use floor_events::schedule::{verbs, AddTemplate, ListTemplates, RemoveTemplate, ScheduleEvent, TemplateAddedReply, TemplateSummary};
use floor_events::{codes, subjects, CommandId, Reply, TournamentId};
use floor_runtime::endpoint::Verbs;
use floor_runtime::policy::{PolicyConfig, PolicyRunner, Stored};
use floor_runtime::projection::ProjectionError;
use floor_runtime::shell::{Context, Service};
use floor_runtime::sync::lock;
use floor_runtime::{reply, AggregateHost, Clock, Commands, JetStreamStore};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long an action registration did not take waits before it is tried again.
const RETRY: chrono::Duration = chrono::Duration::seconds(1);
/// Longest sleep without looking at the plan (a template added on another instance arrives as
/// an event and wakes the timer anyway).
const IDLE: Duration = Duration::from_secs(60);

/// The policy runner's name (its snapshot and checkpoint).
pub const POLICY_NAME: &str = "scheduler-policy";
/// The version of [`Schedules`]' stored form: a snapshot of another version is not read (the
/// log is folded from the start instead).
const MEMORY_VERSION: &str = "schedules-1";

/// How the scheduler reads the log: templates and tournaments, snapshotted at the runtime's
/// default cadence.
pub fn policy_config() -> PolicyConfig {
    let filters = vec![subjects::event_filter(subjects::aggregate::SCHEDULE), subjects::event_filter(subjects::aggregate::TOURNAMENT)];
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters)
}

impl floor_runtime::policy::Policy for Schedules {
    /// What the commit changed, for the plan; the scheduler's commands come from the plan and
    /// the clock, not from commits.
    type Order = Change;

    fn react(&mut self, commit: Stored<'_>) -> Vec<Change> {
        let Some(decoded) = commit.commit("scheduler") else { return vec![] };
        let changes = match &decoded.events {
            Events::Schedule(events) => vec![Change::Schedule(events.clone())],
            Events::Tournament(events) => Change::of_tournament(TournamentId(decoded.id), events),
            _ => vec![],
        };
        changes.iter().for_each(|change| self.apply(change));
        changes
    }
}

/// The scheduler service. Cheap to clone.
#[derive(Clone)]
pub struct SchedulerService {
    host: AggregateHost<ScheduleAggregate>,
    // std Mutex: never held across an await.
    plan: Arc<Mutex<Plan>>,
    commands: Commands,
    clock: Arc<dyn Clock>,
}

/// Error starting the service.
pub type StartError = ProjectionError;

impl Service for SchedulerService {
    type Error = StartError;

    /// Builds the plan from the log and starts the timer on the tracker.
    ///
    /// # Errors
    /// When the stream cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, StartError> {
        let (backbone, clock, shutdown, tracker) = (cx.backbone, cx.clock.clone(), cx.shutdown.clone(), cx.tracker);
        let mut started = PolicyRunner::<Schedules>::start(backbone, policy_config()).await?;
        let schedules = lock(&started.runner.memory()).clone();
        // The snapshot and the tail are in `schedules` already; the plan begins now.
        let plan = Arc::new(Mutex::new(Plan::restore(&schedules, clock.now())));
        started.runner.executed(started.runner.folded());
        let service =
            Self { host: AggregateHost::new(JetStreamStore::new(backbone)), plan, commands: Commands::new(backbone.client.clone()), clock };
        tracker.spawn(service.clone().run_timer(started.runner, shutdown));
        Ok(service)
    }

    /// The verbs: add, remove and list templates.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::SCHEDULER)
            .verb(verbs::ADD_TEMPLATE, |s: Self, r| async move { s.add(r).await })
            .verb(verbs::REMOVE_TEMPLATE, |s: Self, r| async move { s.remove(r).await })
            .verb(verbs::LIST_TEMPLATES, |s: Self, r| async move { s.list(r) })
    }
}

impl SchedulerService {
    async fn run_timer(self, mut runner: PolicyRunner<Schedules>, shutdown: CancellationToken) {
        loop {
            let next = self.plan.lock().expect("plan poisoned").next_wakeup();
            let idle = self.clock.now() + chrono::Duration::from_std(IDLE).expect("a minute fits");
            let wake = next.map_or(idle, |at| at.min(idle));
            tokio::select! {
                _ = shutdown.cancelled() => break,
                next = runner.next() => match next {
                    Some(Ok((sequence, changes))) => {
                        let now = self.clock.now();
                        let mut plan = self.plan.lock().expect("plan poisoned");
                        changes.iter().for_each(|change| plan.apply(change, now));
                        drop(plan);
                        // Nothing to execute: a commit is taken once the plan has it.
                        runner.executed(sequence);
                    }
                    Some(Err(e)) => tracing::warn!(error = %e, "following schedules and tournaments"),
                    None => break,
                },
                _ = self.clock.sleep_until(wake) => {}
            }
            let now = self.clock.now();
            let (creations, starts) = {
                let mut plan = self.plan.lock().expect("plan poisoned");
                (plan.creations_due(now), plan.starts_due(now))
            };
            for creation in creations {
                self.create(creation).await;
            }
            for tournament in starts {
                if !self.start_tournament(tournament).await {
                    self.plan.lock().expect("plan poisoned").retry_start(tournament, self.clock.now() + RETRY);
                }
            }
        }
        // A clean stop leaves a snapshot: the next start reads no tail.
        runner.snapshot_now().await;
    }

    /// Creates an occurrence's tournament; its id and command id are the occurrence id, so it
    /// is created once however often this runs.
    async fn create(&self, creation: Creation) {
        let Creation { template_id, tournament_id, definition } = creation;
        let request = CreateTournament { command_id: CommandId(tournament_id.0), tournament_id: Some(tournament_id), definition };
        for _ in 0..5 {
            match self.commands.send(registration::verbs::CREATE_TOURNAMENT, &request).await {
                Ok(_) => return,
                Err(e) if e.code() == Some(codes::TOURNAMENT_EXISTS) => return,
                Err(e) if e.is_retryable() => {
                    tracing::warn!(%template_id, %tournament_id, error = %e, "registration did not take the occurrence; retrying");
                    tokio::time::sleep(RETRY.to_std().expect("positive")).await
                }
                Err(e) => {
                    tracing::warn!(%template_id, %tournament_id, error = %e, "occurrence refused by registration");
                    return;
                }
            }
        }
        tracing::error!(%template_id, %tournament_id, "registration did not answer; occurrence not created");
    }

    /// Asks registration to start a tournament (or cancel it below the minimum). `false` when
    /// registration did not answer (or could not decide): the plan tries again.
    async fn start_tournament(&self, tournament_id: TournamentId) -> bool {
        let request = StartTournament { command_id: CommandId::derived(&format!("start:{tournament_id}")), tournament_id, now: false };
        match self.commands.send(registration::verbs::START_TOURNAMENT, &request).await {
            Ok(_) => true,
            Err(e) if e.is_retryable() => {
                tracing::warn!(%tournament_id, error = %e, "registration did not start the tournament; retrying");
                false
            }
            Err(e) => {
                // Started already (a sit & go, another scheduler) or cancelled: nothing to do.
                tracing::info!(%tournament_id, error = %e, "start not needed");
                true
            }
        }
    }

    async fn remove(&self, RemoveTemplate { command_id, template_id }: RemoveTemplate) -> Reply<Vec<ScheduleEvent>> {
        let at = self.clock.now();
        let outcome = self.host.execute(template_id, command_id, ScheduleCommand::Remove { template_id, at }).await;
        let answer = reply(outcome, |c| c.events);
        if let Reply::Ok(events) = &answer {
            self.plan.lock().expect("plan poisoned").apply_schedule(events, at);
        }
        answer
    }

    fn list(&self, ListTemplates { upcoming }: ListTemplates) -> Reply<Vec<TemplateSummary>> {
        let count = upcoming.unwrap_or(3).min(100) as usize;
        let list = self.plan.lock().expect("plan poisoned").templates(self.clock.now(), count);
        Reply::Ok(list.into_iter().map(|(template_id, template, upcoming)| TemplateSummary { template_id, template, upcoming }).collect())
    }

    async fn add(&self, request: AddTemplate) -> Reply<TemplateAddedReply> {
        let AddTemplate { command_id, template_id, template } = request;
        let template_id = template_id.unwrap_or(command_id.0);
        let at = self.clock.now();
        let outcome = self.host.execute(template_id, command_id, ScheduleCommand::Add { template_id, template, at }).await;
        match reply(outcome, |c| c.events) {
            Reply::Ok(events) => {
                self.plan.lock().expect("plan poisoned").apply_schedule(&events, at);
                let upcoming = self.upcoming(template_id, at, 3);
                Reply::Ok(TemplateAddedReply { template_id, upcoming })
            }
            Reply::Error(e) => Reply::Error(e),
        }
    }

    fn upcoming(&self, template_id: uuid::Uuid, now: DateTime<Utc>, count: usize) -> Vec<DateTime<Utc>> {
        let plan = self.plan.lock().expect("plan poisoned");
        plan.templates(now, count).into_iter().find(|(id, ..)| *id == template_id).map(|(.., next)| next).unwrap_or_default()
    }
}
