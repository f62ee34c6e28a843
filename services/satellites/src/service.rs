//! Wiring: the `floor.cmd.satellites.<verb>` endpoint, the policy following the log on the
//! checkpointed [`PolicyRunner`], and the one path that spends a ticket.
//!
//! **Spending a ticket** (a seat won, or a player's `spend_ticket`): `spend` on the satellite
//! aggregate (the ticket is `spending`, with the command id registration is sent), then
//! registration's `register_with_ticket` with that command id, sent until answered, then the
//! answer stored: `spent` with the entry, or the refusal (`spending_failed` for a player's
//! spend, `seat_refused` for a seat: the winner keeps the ticket). Registration answers a
//! repeated command id from its history, so a spend interrupted by a crash is finished at the
//! next start ([`Views::unfinished`]: every ticket still `spending` is asked for again with its
//! recorded command id), and the entry is registered once.
//!
//! **A seat refused to a winner already registered** (`already_registered`) in a satellite that
//! passes such seats down: the refusal is stored with the satellite's finishers below its seats
//! ([`crate::policy::Policy::pass_down`]), and the aggregate voids the ticket and issues one to
//! the first finisher holding none; the policy reads that commit and the new ticket's seat is
//! taken as any other (and passed down again if that finisher is already registered too).
//!
//! **A seat** is spent as soon as its ticket is issued: the policy's issue order runs, then the
//! spend, with an id derived from the ticket (`satellites-seat:<satellite>:<entry>`). When the
//! order runs again after a restart, the spend is answered from the aggregate's history
//! (nothing new) and the start's recovery has finished it if it was left spending: the seat is
//! asked for once, and never again after the target refused it or the ticket came back.

use crate::domain::{seat_registration_id, spend_registration_id, SatelliteAggregate, SatelliteCommand, SatelliteError, SatelliteState};
use crate::policy::{Memory, Order};
use crate::projection::Unfinished;
use esrs::Aggregate;
use floor_events::registration::{self, RegisterWithTicket};
use floor_events::satellites::{
    verbs, ConversionCause, ConvertTicket, ExpireTickets, SatelliteEvent, SatelliteOf, SatellitePrize, SpendTicket, TicketRef, TicketView,
    TicketsOf,
};
use floor_events::{codes, subjects, CommandId, ErrorBody, Money, PlayerId, Reply, TournamentId};
use floor_runtime::endpoint::Verbs;
use floor_runtime::host::{HostError, HostErrorKind};
use floor_runtime::policy::{PolicyConfig, PolicyRunner};
use floor_runtime::projection::ProjectionError;
use floor_runtime::shell::{Context, Service};
use floor_runtime::sync::lock;
use floor_runtime::RETRY;
use floor_runtime::{AggregateHost, Clock, CommandErrorKind, Commands, Committed, DomainError, JetStreamStore};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "satellites-policy";

/// The shape of [`Memory`] in snapshots: change it whenever that shape or meaning changes.
const MEMORY_VERSION: &str = "satellites-3";

/// The subjects the satellites policy reads: registration (definitions, entries paid by
/// tickets, refunds), payouts (the seats won) and the satellites' own tickets (the read model).
pub fn filters() -> Vec<String> {
    use subjects::aggregate::{PAYOUTS, SATELLITE, TOURNAMENT};
    [TOURNAMENT, PAYOUTS, SATELLITE].iter().map(|a| subjects::event_filter(a)).collect()
}

/// How the satellites policy runs: its name, memory version and subjects, snapshotted at the
/// runtime's default cadence.
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters())
}

/// The satellites service. Cheap to clone.
#[derive(Clone)]
pub struct SatellitesService {
    host: AggregateHost<SatelliteAggregate>,
    store: JetStreamStore,
    /// Shared with the follower: the verbs read the views from it. A std mutex: never held
    /// across an await.
    memory: Arc<Mutex<Memory>>,
    clock: Arc<dyn Clock>,
    commands: Commands,
    shutdown: CancellationToken,
}

/// Which spend a ticket is in: a seat won, or a player's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spending {
    Seat,
    Player,
}

/// How a spend ended.
enum Ended {
    /// Registered: the entry.
    Spent,
    /// Refused by registration: its answer.
    Refused(ErrorBody),
    /// An answer this build does not understand (another version of registration): whether
    /// the entry was registered is not known, so the ticket stays `spending` (held, never
    /// spent twice) and the next start asks again.
    NotUnderstood,
    /// The platform is stopping: the ticket stays `spending` for the next start.
    Stopping,
}

impl Service for SatellitesService {
    type Error = ProjectionError;

    /// Reads the last snapshot and the log after it into the policy and the views, finishes
    /// every spend a crash left open, runs what is still owed, and follows on the tracker.
    ///
    /// # Errors
    /// When the stream cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, ProjectionError> {
        let started = PolicyRunner::<Memory>::start(cx.backbone, policy_config()).await?;
        let memory = started.runner.memory();
        let unfinished = lock(&memory).views.unfinished();
        let store = JetStreamStore::new(cx.backbone);
        let service = Self {
            host: AggregateHost::new(store.clone()),
            store,
            memory,
            clock: cx.clock.clone(),
            commands: Commands::new(cx.backbone.client.clone()),
            shutdown: cx.shutdown.clone(),
        };
        cx.tracker.spawn(service.clone().run(started.runner, started.owed, unfinished));
        // Flights (issue 36): the Day 1s' survivors carried into their Day 2s.
        crate::flights::start(cx.backbone, cx.tracker, cx.shutdown.clone()).await?;
        Ok(service)
    }

    /// A player's spend; a player's tickets; one satellite.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::SATELLITES)
            .verb(verbs::SPEND_TICKET, |s: Self, r: SpendTicket| async move { s.spend_ticket(r).await })
            .verb(verbs::TICKETS, |s: Self, r: TicketsOf| async move { Reply::Ok(lock(&s.memory).views.tickets_of(&r.player)) })
            .verb(verbs::SATELLITE, |s: Self, r: SatelliteOf| async move {
                match lock(&s.memory).views.satellite(r.tournament_id) {
                    Some(view) => Reply::Ok(view),
                    None => Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("{} is no satellite", r.tournament_id))),
                }
            })
            .verb(verbs::CONVERT_TICKET, |s: Self, r: ConvertTicket| async move { s.convert_ticket(r).await })
            .verb(verbs::EXPIRE_TICKETS, |s: Self, r: ExpireTickets| async move { s.expire_tickets(r).await })
    }
}

impl SatellitesService {
    /// Finishes the spends a crash left open, runs what is owed, then each new commit's orders
    /// in log order ([`PolicyRunner::drive`]).
    async fn run(self, runner: PolicyRunner<Memory>, owed: Vec<Order>, unfinished: Vec<Unfinished>) {
        for open in unfinished {
            let kind = if open.command_id == seat_registration_id(open.ticket) { Spending::Seat } else { Spending::Player };
            tracing::info!(ticket = %open.ticket, tournament = %open.tournament, "finishing a spend left open");
            if let Ended::Stopping = self.register(open.ticket, open.player, open.value, open.tournament, open.command_id, kind).await {
                return;
            }
        }
        let shutdown = self.shutdown.clone();
        runner.drive(owed, &shutdown, |order| self.execute(order)).await;
    }

    /// Runs one order until it is stored (or refused); a seat's ticket is then spent on its
    /// target. `false` on shutdown.
    async fn execute(&self, (satellite, command_id, command): Order) -> bool {
        let seat = match &command {
            SatelliteCommand::Issue { ticket, player, value, target, prize: SatellitePrize::Seat, .. } => {
                Some((*ticket, player.clone(), *value, *target))
            }
            _ => None,
        };
        if self.until_decided(satellite, command_id, command).await.is_none() {
            return false;
        }
        match seat {
            Some((ticket, player, value, target)) => self.take_seat(ticket, player, value, target).await,
            None => true,
        }
    }

    /// The seat a ticket was won as: spent on the target at once. A spend already stored (the
    /// order run again after a restart) is not sent again here: the start finished it if it
    /// was left open. `false` on shutdown.
    async fn take_seat(&self, ticket: TicketRef, player: PlayerId, value: Money, target: TournamentId) -> bool {
        let spend_id = CommandId::derived(&format!("satellites-seat:{}:{}", ticket.satellite, ticket.entry.0));
        let register_id = seat_registration_id(ticket);
        let spend = SatelliteCommand::Spend {
            ticket,
            player: player.clone(),
            tournament: target,
            command_id: register_id,
            any_of_same_value: false,
            at: self.clock.now(),
        };
        match self.until_decided(ticket.satellite, spend_id, spend).await {
            None => false,
            Some(Some(committed)) if !committed.duplicate && !committed.events.is_empty() => {
                !matches!(self.register(ticket, player, value, target, register_id, Spending::Seat).await, Ended::Stopping)
            }
            Some(_) => true,
        }
    }

    /// Asks registration to register `player` in `tournament`, paid by the ticket (sent until
    /// answered), and stores the answer on the ticket.
    async fn register(
        &self,
        ticket: TicketRef,
        player: PlayerId,
        value: Money,
        tournament: TournamentId,
        command_id: CommandId,
        kind: Spending,
    ) -> Ended {
        let request = RegisterWithTicket { command_id, tournament_id: tournament, player, ticket, value };
        let answer = self.commands.send_until_answered(registration::verbs::REGISTER_WITH_TICKET, &request, RETRY, &self.shutdown).await;
        let at = self.clock.now();
        let (command, ended) = match answer {
            None => return Ended::Stopping,
            Some(Ok(registered)) => (SatelliteCommand::Spent { ticket, tournament, entry: registered.entry, at }, Ended::Spent),
            Some(Err(e)) => {
                let CommandErrorKind::Rejected(body) = e.kind() else {
                    tracing::error!(%ticket, %tournament, error = %e, "registration's answer not understood: the ticket stays held");
                    return Ended::NotUnderstood;
                };
                let (code, reason) = (body.code.clone(), body.message.clone());
                let command = match kind {
                    Spending::Seat => {
                        let pass_down = lock(&self.memory).policy.pass_down(ticket.satellite, &code);
                        SatelliteCommand::SeatRefused { ticket, code, reason, pass_down, at }
                    }
                    Spending::Player => SatelliteCommand::SpendFailed { ticket, code, reason, at },
                };
                (command, Ended::Refused(body))
            }
        };
        let answer_id = CommandId::derived(&format!("satellites-answer:{}", command_id.0));
        match self.until_decided(ticket.satellite, answer_id, command).await {
            None => Ended::Stopping,
            Some(_) => ended,
        }
    }

    /// Decides a command on a satellite's aggregate as a derived command (bound to no
    /// request), trying again while the store fails. `None` on shutdown; `Some(None)` when it
    /// was not applied (refused, or the aggregate set aside: logged).
    async fn until_decided(
        &self,
        satellite: TournamentId,
        command_id: CommandId,
        command: SatelliteCommand,
    ) -> Option<Option<Committed<SatelliteEvent>>> {
        loop {
            match self.host.execute_for(satellite.0, command_id, None, command.clone()).await {
                Ok(Ok(committed)) => return Some(Some(committed)),
                Ok(Err(rejection)) => {
                    tracing::info!(%satellite, code = rejection.code(), "satellite command not applied: {rejection}");
                    return Some(None);
                }
                Err(e) if e.kind() == HostErrorKind::SetAside => {
                    tracing::error!(%satellite, error = %e, "satellite command not applied: aggregate set aside");
                    return Some(None);
                }
                Err(e) => {
                    tracing::warn!(%satellite, error = %e, "satellite command not stored; trying again");
                    tokio::select! {
                        _ = self.shutdown.cancelled() => return None,
                        _ = tokio::time::sleep(RETRY) => {}
                    }
                }
            }
        }
    }

    /// A player spends a ticket: `spend`, registration, the answer; the ticket as it stands.
    async fn spend_ticket(&self, SpendTicket { command_id, ticket, player, tournament_id }: SpendTicket) -> Reply<TicketView> {
        let register_id = spend_registration_id(ticket, command_id);
        let any_of_same_value = lock(&self.memory).policy.terms(ticket.satellite).is_some_and(|t| t.any_of_same_value);
        let spend = SatelliteCommand::Spend {
            ticket,
            player: player.clone(),
            tournament: tournament_id,
            command_id: register_id,
            any_of_same_value,
            at: self.clock.now(),
        };
        let committed = match self.host.execute(ticket.satellite.0, command_id, spend).await {
            Ok(Ok(committed)) => committed,
            Ok(Err(rejection)) => return Reply::Error(ErrorBody::new(rejection.code(), rejection.to_string())),
            Err(e) => return Reply::Error(failure(e)),
        };
        // The spend this request stored (now, or before: a retry), with the command it sends.
        let (tournament, register_id) = committed
            .events
            .iter()
            .find_map(|e| match e {
                SatelliteEvent::TicketSpending(s) if s.ticket == ticket => Some((s.tournament, s.command_id)),
                _ => None,
            })
            .unwrap_or((tournament_id, register_id));
        let state = match self.state(ticket.satellite).await {
            Ok(state) => state,
            Err(e) => return Reply::Error(failure(e)),
        };
        let Some(held) = state.tickets.get(&ticket) else {
            return Reply::Error(ErrorBody::new(codes::UNKNOWN_TICKET, format!("no ticket {ticket}")));
        };
        // A retry of a spend already answered is answered with the ticket as it stands.
        if held.spending == Some((tournament, register_id)) {
            match self.register(ticket, player, held.value, tournament, register_id, Spending::Player).await {
                Ended::Spent => {}
                Ended::Refused(body) => return Reply::Error(body),
                Ended::Stopping | Ended::NotUnderstood => {
                    return Reply::Error(ErrorBody::new(
                        codes::UNAVAILABLE,
                        "registration's answer is not stored yet: the spend finishes at the service's next start",
                    ))
                }
            }
        }
        match self.state(ticket.satellite).await {
            Ok(state) => state
                .view(ticket)
                .map_or_else(|| Reply::Error(ErrorBody::new(codes::UNKNOWN_TICKET, format!("no ticket {ticket}"))), Reply::Ok),
            Err(e) => Reply::Error(failure(e)),
        }
    }

    /// A holder converts a held ticket to cash at its value, where the satellite allows it
    /// (004 §4.36.4); the ticket as it stands.
    async fn convert_ticket(&self, ConvertTicket { command_id, ticket, player }: ConvertTicket) -> Reply<TicketView> {
        let allowed = lock(&self.memory).policy.terms(ticket.satellite).is_some_and(|t| t.convertible);
        let convert =
            SatelliteCommand::Convert { ticket, holder: Some(player), cause: ConversionCause::Holder, allowed, at: self.clock.now() };
        match self.host.execute(ticket.satellite.0, command_id, convert).await {
            Ok(Ok(_)) => {}
            Ok(Err(rejection)) => return Reply::Error(ErrorBody::new(rejection.code(), rejection.to_string())),
            Err(e) => return Reply::Error(failure(e)),
        }
        match self.state(ticket.satellite).await {
            Ok(state) => state
                .view(ticket)
                .map_or_else(|| Reply::Error(ErrorBody::new(codes::UNKNOWN_TICKET, format!("no ticket {ticket}"))), Reply::Ok),
            Err(e) => Reply::Error(failure(e)),
        }
    }

    /// The operator records a satellite's tickets expired as of the time it gives; the tickets
    /// recorded expired by this request.
    async fn expire_tickets(&self, ExpireTickets { command_id, tournament_id, as_of }: ExpireTickets) -> Reply<Vec<TicketView>> {
        if lock(&self.memory).policy.terms(tournament_id).is_none() {
            return Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, format!("{tournament_id} is no satellite")));
        }
        let committed = match self.host.execute(tournament_id.0, command_id, SatelliteCommand::Expire { as_of }).await {
            Ok(Ok(committed)) => committed,
            Ok(Err(rejection)) => return Reply::Error(ErrorBody::new(rejection.code(), rejection.to_string())),
            Err(e) => return Reply::Error(failure(e)),
        };
        let state = match self.state(tournament_id).await {
            Ok(state) => state,
            Err(e) => return Reply::Error(failure(e)),
        };
        let expired = committed.events.iter().filter_map(|e| match e {
            SatelliteEvent::TicketExpired(x) => state.view(x.ticket),
            _ => None,
        });
        Reply::Ok(expired.collect())
    }

    /// A satellite's tickets as its log stands now (read from the store, not the views, which
    /// follow the log a moment later).
    async fn state(&self, satellite: TournamentId) -> Result<SatelliteState, HostError> {
        let subject = subjects::event_subject(subjects::aggregate::SATELLITE, satellite.0);
        let commits =
            self.store.load::<SatelliteEvent>(&subject, 0).await.map_err(|e| HostError::with_source(HostErrorKind::Unavailable, e))?;
        Ok(commits.into_iter().flat_map(|c| c.events).fold(SatelliteState::default(), SatelliteAggregate::apply_event))
    }
}

/// A failure of the store as the reply's error (`reply`'s codes: the one place outcomes become
/// reply codes).
fn failure(e: HostError) -> ErrorBody {
    match floor_runtime::reply(Err::<Result<Committed<SatelliteEvent>, SatelliteError>, _>(e), |_| ()) {
        Reply::Error(body) => body,
        Reply::Ok(()) => ErrorBody::new(codes::UNAVAILABLE, "the event store failed"),
    }
}
