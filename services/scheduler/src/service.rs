//! Wiring: the `floor.cmd.scheduler.<verb>` endpoint and the timer that creates and starts
//! tournaments.
//!
//! The scheduler owns templates only. Tournaments belong to registration, so the scheduler
//! creates and starts them the way a director would: with registration's commands over NATS,
//! each with an id derived from what it does, so a restart or a second scheduler changes
//! nothing. Templates and tournaments are followed from the log into a [`Plan`] at every start.

use crate::domain::{ScheduleAggregate, ScheduleCommand};
use crate::policy::{Creation, Plan};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use floor_events::registration::{self, CreateTournament, StartTournament, TournamentEvent};
use floor_events::schedule::{verbs, AddTemplate, ListTemplates, RemoveTemplate, ScheduleEvent, TemplateAddedReply, TemplateSummary};
use floor_events::{codes, record, subjects, CommandId, ErrorBody, Reply, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::endpoint::{self, CommandHandler, EndpointError};
use floor_runtime::follow::{follow, Following};
use floor_runtime::projection::ProjectionError;
use floor_runtime::{reply, AggregateHost, Clock, JetStreamStore};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How long to wait for registration before trying again.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an action registration did not take waits before it is tried again.
const RETRY: chrono::Duration = chrono::Duration::seconds(1);
/// Longest sleep without looking at the plan (a template added on another instance arrives as
/// an event and wakes the timer anyway).
const IDLE: Duration = Duration::from_secs(60);

/// The scheduler service. Cheap to clone.
#[derive(Clone)]
pub struct SchedulerService {
    host: AggregateHost<ScheduleAggregate>,
    // std Mutex: never held across an await.
    plan: Arc<Mutex<Plan>>,
    client: async_nats::Client,
    clock: Arc<dyn Clock>,
}

/// Error starting the service.
pub type StartError = ProjectionError;

impl SchedulerService {
    /// Builds the plan from the log and starts the timer on `tracker`.
    ///
    /// # Errors
    /// When the stream cannot be read.
    pub async fn start(
        backbone: &Backbone,
        clock: Arc<dyn Clock>,
        shutdown: CancellationToken,
        tracker: &TaskTracker,
    ) -> Result<Self, StartError> {
        let plan = Arc::new(Mutex::new(Plan::default()));
        let now = clock.now();
        let filters = vec![subjects::event_filter(subjects::aggregate::SCHEDULE), subjects::event_filter(subjects::aggregate::TOURNAMENT)];
        let following = follow(backbone, filters, |message| fold(&plan, &message.subject, &message.payload, now)).await?;
        let service = Self { host: AggregateHost::new(JetStreamStore::new(backbone)), plan, client: backbone.client.clone(), clock };
        tracker.spawn(service.clone().run_timer(following, shutdown));
        Ok(service)
    }

    /// Serves director commands until `shutdown`; `ready` fires once requests are being taken.
    ///
    /// # Errors
    /// When the endpoint cannot be registered.
    pub async fn serve(
        self,
        client: async_nats::Client,
        shutdown: CancellationToken,
        ready: Option<tokio::sync::oneshot::Sender<()>>,
    ) -> Result<(), EndpointError> {
        let description = "Floor scheduler: recurring tournaments";
        endpoint::serve(client, subjects::service::SCHEDULER, description, &verbs::ALL, self, shutdown, ready).await
    }

    async fn run_timer(self, mut following: Following, shutdown: CancellationToken) {
        loop {
            let next = self.plan.lock().expect("plan poisoned").next_wakeup();
            let wait = next.map_or(IDLE, |at| (at - self.clock.now()).to_std().unwrap_or(Duration::ZERO).min(IDLE));
            tokio::select! {
                _ = shutdown.cancelled() => break,
                next = following.next() => match next {
                    Some(Ok(message)) => fold(&self.plan, &message.subject, &message.payload, self.clock.now()),
                    Some(Err(e)) => tracing::warn!(error = %e, "following schedules and tournaments"),
                    None => break,
                },
                _ = tokio::time::sleep(wait) => {}
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
    }

    /// Creates an occurrence's tournament; its id and command id are the occurrence id, so it
    /// is created once however often this runs.
    async fn create(&self, creation: Creation) {
        let Creation { template_id, tournament_id, definition } = creation;
        let request = CreateTournament { command_id: CommandId(tournament_id.0), tournament_id: Some(tournament_id), definition };
        for _ in 0..5 {
            match self.registration(registration::verbs::CREATE_TOURNAMENT, &request).await {
                Some(Reply::Ok(_)) => return,
                Some(Reply::Error(e)) if e.code == codes::TOURNAMENT_EXISTS => return,
                Some(Reply::Error(e)) => {
                    tracing::warn!(%template_id, %tournament_id, code = e.code, message = e.message, "occurrence refused by registration");
                    return;
                }
                None => tokio::time::sleep(RETRY.to_std().expect("positive")).await,
            }
        }
        tracing::error!(%template_id, %tournament_id, "registration did not answer; occurrence not created");
    }

    /// Asks registration to start a tournament (or cancel it below the minimum). `false` when
    /// registration did not answer.
    async fn start_tournament(&self, tournament_id: TournamentId) -> bool {
        let request = StartTournament { command_id: CommandId::derived(&format!("start:{tournament_id}")), tournament_id };
        match self.registration(registration::verbs::START_TOURNAMENT, &request).await {
            Some(Reply::Ok(_)) => true,
            Some(Reply::Error(e)) => {
                // Started already (a sit & go, another scheduler) or cancelled: nothing to do.
                tracing::info!(%tournament_id, code = e.code, "start not needed: {}", e.message);
                true
            }
            None => false,
        }
    }

    async fn registration<T: serde::Serialize>(&self, verb: &str, body: &T) -> Option<Reply<serde_json::Value>> {
        let subject = subjects::command_subject(subjects::service::REGISTRATION, verb);
        let payload = serde_json::to_vec(body).expect("request serializes");
        match tokio::time::timeout(REQUEST_TIMEOUT, self.client.request(subject, payload.into())).await {
            Ok(Ok(message)) => serde_json::from_slice(&message.payload).ok(),
            Ok(Err(e)) => {
                tracing::warn!(verb, error = %e, "registration unavailable");
                None
            }
            Err(_) => None,
        }
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

fn fold(plan: &Mutex<Plan>, subject: &str, body: &[u8], now: DateTime<Utc>) {
    let Some((aggregate, id)) = subjects::parse_event_subject(subject) else { return };
    let mut plan = plan.lock().expect("plan poisoned");
    let folded = if aggregate == subjects::aggregate::SCHEDULE {
        record::decode_commit::<ScheduleEvent>(body).map(|events| plan.apply_schedule(&events, now))
    } else {
        record::decode_commit::<TournamentEvent>(body).map(|events| plan.apply_tournament(TournamentId(id), &events))
    };
    if let Err(e) = folded {
        tracing::warn!(subject, error = %e, "scheduler skipped an undecodable commit");
    }
}

impl CommandHandler for SchedulerService {
    async fn handle(&self, verb: &'static str, payload: Bytes) -> Bytes {
        macro_rules! decoded {
            ($t:ty) => {
                match endpoint::decode::<$t>(&payload) {
                    Ok(request) => request,
                    Err(e) => return endpoint::encode::<()>(&Reply::Error(e)),
                }
            };
        }
        match verb {
            verbs::ADD_TEMPLATE => endpoint::encode(&self.add(decoded!(AddTemplate)).await),
            verbs::REMOVE_TEMPLATE => {
                let RemoveTemplate { command_id, template_id } = decoded!(RemoveTemplate);
                let at = self.clock.now();
                let outcome = self.host.execute(template_id, command_id, ScheduleCommand::Remove { template_id, at }).await;
                let answer = reply(outcome, |c| c.events);
                if let Reply::Ok(events) = &answer {
                    self.plan.lock().expect("plan poisoned").apply_schedule(events, at);
                }
                endpoint::encode(&answer)
            }
            verbs::LIST_TEMPLATES => {
                let ListTemplates { upcoming } = decoded!(ListTemplates);
                let count = upcoming.unwrap_or(3).min(100) as usize;
                let list = self.plan.lock().expect("plan poisoned").templates(self.clock.now(), count);
                let summaries: Vec<TemplateSummary> =
                    list.into_iter().map(|(template_id, template, upcoming)| TemplateSummary { template_id, template, upcoming }).collect();
                endpoint::encode(&Reply::Ok(summaries))
            }
            other => endpoint::encode::<()>(&Reply::Error(ErrorBody::new(codes::UNKNOWN_VERB, format!("no verb {other:?}")))),
        }
    }
}
