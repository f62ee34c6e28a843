//! Wiring: the `floor.cmd.registration.<verb>` endpoint, the aggregate hosts, the clock.
//!
//! No rules here: decode, stamp the time, hand to the aggregate, encode the reply.

use crate::domain::{TournamentAggregate, TournamentCommand, TournamentState, SNAPSHOT_VERSION};
use crate::limits::{PlayerAggregate, PlayerCommand};
use crate::policy::{closing_filters, ClosingPolicy, Order, RegistrationSaga, Step, CLOSING_POLICY, CLOSING_POLICY_MEMORY};
use crate::projection::LimitedPlayers;
use crate::satellite::{target_of, TargetFacts};
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::commit::{Commit, Events};
use floor_events::player::{PlayerEvent, SetPlayerLimits};
use floor_events::registration::*;
use floor_events::satellites::TicketRef;
use floor_events::{subjects, CommandId, ErrorBody, Money, PlayerId, Reply, RuleProfile, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::commits::Stored;
use floor_runtime::endpoint::Verbs;
use floor_runtime::follow::follow;
use floor_runtime::policy::{PolicyConfig, PolicyRunner};
use floor_runtime::shell::{Context, Service};
use floor_runtime::snapshot::Snapshots;
use floor_runtime::tail::Delivered;
use floor_runtime::RETRY;
use floor_runtime::{reply, AggregateHost, Clock, JetStreamStore};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The registration service. Cheap to clone.
#[derive(Clone)]
pub struct RegistrationService {
    inner: Arc<Inner>,
}

struct Inner {
    tournaments: AggregateHost<TournamentAggregate>,
    players: AggregateHost<PlayerAggregate>,
    // std RwLock: read on every registration, written when a limit is set; never held across an
    // await.
    limited: Arc<RwLock<LimitedPlayers>>,
    // The event store, to read a tournament's definition (its first commit) for its profile.
    store: JetStreamStore,
    events: async_nats::jetstream::stream::Stream,
    // Tournament → its rulebook, read once per tournament (a definition never changes).
    profiles: RwLock<HashMap<TournamentId, RuleProfile>>,
    // The tournaments' snapshots, read to fold a satellite's target (issue 36) from its last
    // snapshot rather than its first commit.
    snapshots: Snapshots<TournamentState>,
    clock: Arc<dyn Clock>,
}

/// Error starting the service.
pub type StartError = floor_runtime::projection::ProjectionError;

/// A tournament is snapshotted every this many commits. A 250,000-entrant freezeout stores
/// about half a million (every entry, then every elimination); folding them all at the first
/// command after a restart kept the eliminations of a killed registration waiting for longer
/// than a table notices. With a snapshot a restart folds at most this many.
///
/// Every command id is kept in the snapshot (no window, unlike seating): a registration
/// retried with its id must be answered with its entry, however late, never entered twice.
pub const SNAPSHOT_EVERY: u64 = 25_000;

impl Service for RegistrationService {
    type Error = StartError;

    /// Builds the service: hosts for both aggregates (a tournament snapshotted every
    /// [`SNAPSHOT_EVERY`] commits unless the context says less) and the set of players with
    /// limits, caught up with the stream before the first command is served and followed after;
    /// and registration's policy.
    ///
    /// # Errors
    /// When the player events or the snapshot bucket cannot be read.
    async fn start(cx: &Context<'_>) -> Result<Self, StartError> {
        let (backbone, shutdown, tracker) = (cx.backbone, cx.shutdown.clone(), cx.tracker);
        let store = JetStreamStore::new(backbone);
        let limited = Arc::new(RwLock::new(LimitedPlayers::default()));
        follow_limits(backbone, limited.clone(), shutdown.clone(), tracker).await?;
        let bucket = backbone.jetstream.get_object_store(subjects::SNAPSHOT_BUCKET).await.map_err(|e| {
            floor_runtime::projection::ProjectionError::with_source(floor_runtime::projection::ProjectionErrorKind::Read, e)
        })?;
        let every = cx.snapshot_every.unwrap_or(SNAPSHOT_EVERY);
        let snapshots = Snapshots::json(bucket.clone(), SNAPSHOT_VERSION, every);
        let tournaments = AggregateHost::new(store.clone()).with_snapshots(snapshots);
        run_closing_policy(backbone, tournaments.clone(), shutdown, tracker).await?;
        Ok(Self {
            inner: Arc::new(Inner {
                tournaments,
                players: AggregateHost::new(store.clone()),
                limited,
                store,
                events: backbone.events.clone(),
                profiles: RwLock::default(),
                snapshots: Snapshots::json(bucket, SNAPSHOT_VERSION, every),
                clock: cx.clock.clone(),
            }),
        })
    }

    /// The verbs. Each is stamped with the service's time and handed to an aggregate.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::REGISTRATION)
            .verb(verbs::CREATE_TOURNAMENT, |s: Self, r| async move { s.create_tournament(r).await })
            .verb(verbs::REGISTER, |s: Self, r: Register| async move { s.register(r.command_id, r.tournament_id, r.player, None).await })
            .verb(verbs::REGISTER_WITH_TICKET, |s: Self, r: RegisterWithTicket| async move {
                s.register(r.command_id, r.tournament_id, r.player, Some((r.ticket, r.value))).await
            })
            .verb(verbs::SET_PLAYER_LIMITS, |s: Self, r| async move { s.set_player_limits(r).await })
            .verb(verbs::EXCLUDE_PLAYER, |s: Self, r| async move { s.exclude_player(r).await })
            .verb(verbs::UNREGISTER, |s: Self, r: Unregister| async move {
                s.tournament_command(r.command_id, r.tournament_id, |at| TournamentCommand::Unregister {
                    player: r.player,
                    entry: r.entry,
                    at,
                })
                .await
            })
            .verb(verbs::REFUSE_PLAYER, |s: Self, r: RefusePlayer| async move {
                s.tournament_command(r.command_id, r.tournament_id, |at| TournamentCommand::RefusePlayer {
                    player: r.player,
                    reason: r.reason,
                    at,
                })
                .await
            })
            .verb(verbs::KEEP_APART, |s: Self, r: KeepApart| async move {
                s.tournament_command(r.command_id, r.tournament_id, |at| TournamentCommand::KeepApart { players: r.players, at }).await
            })
            .verb(verbs::ELIMINATE_ENTRY, |s: Self, r: EliminateEntry| async move {
                s.tournament_command(r.command_id, r.tournament_id, |at| TournamentCommand::EliminateEntry { entry: r.entry, at }).await
            })
            .verb(verbs::STOP_SHARED, |s: Self, r: StopShared| async move {
                s.tournament_command(r.command_id, r.tournament_id, |at| TournamentCommand::StopShared {
                    survivors: r.survivors,
                    deal: r.deal,
                    at,
                })
                .await
            })
            .verb(verbs::REGISTER_CARRIED, |s: Self, r: floor_events::flights::RegisterCarried| async move {
                s.tournament_command(r.command_id, r.tournament_id, |at| TournamentCommand::RegisterCarried {
                    player: r.player,
                    day1: r.day1,
                    day1_entry: r.day1_entry,
                    chips: r.chips,
                    carry: r.carry,
                    at,
                })
                .await
            })
            .verb(verbs::START_TOURNAMENT, |s: Self, r: StartTournament| async move {
                s.tournament_command(r.command_id, r.tournament_id, |at| TournamentCommand::Start { at, now: r.now }).await
            })
            .verb(verbs::CANCEL_TOURNAMENT, |s: Self, r: CancelTournament| async move {
                s.tournament_command(r.command_id, r.tournament_id, |at| TournamentCommand::Cancel { reason: r.reason, at }).await
            })
    }
}

impl RegistrationService {
    /// Creates a tournament. A satellite's target (issue 36) is read first from its log and
    /// handed to the decider, which judges it: the decider stays pure, and the target's state
    /// is the one its own commits hold now. A target that starts between the read and the
    /// creation is not seen; the satellite's seats are then refused by the target and stay
    /// tickets (nothing won is lost).
    async fn create_tournament(&self, request: CreateTournament) -> Reply<TournamentCreatedReply> {
        let tournament_id = request.tournament_id.unwrap_or(TournamentId(request.command_id.0));
        let (definition, at) = (Box::new(request.definition), self.inner.clock.now());
        let command = match target_of(&definition) {
            Some(target) => match self.target_facts(target).await {
                Ok(target) => TournamentCommand::CreateSatellite { tournament_id, definition, target, at },
                Err(e) => return Reply::Error(e),
            },
            None => TournamentCommand::Create { tournament_id, definition, at },
        };
        let outcome = self.inner.tournaments.execute(tournament_id.0, request.command_id, command).await;
        reply(outcome, |_| TournamentCreatedReply { tournament_id })
    }

    /// Runs the registration saga ([`RegistrationSaga`]): its steps, each answer fed back.
    ///
    /// A player with limits is counted before the entry is decided, and the count released when
    /// the tournament refuses. While play is suspended (issue 35) the tournament is asked first
    /// whether it holds registration ([`TournamentCommand::CheckHold`], which stores nothing),
    /// so a held registration counts nothing, as when the endpoint refused it; and the same
    /// command id sent again after the resume counts then (a count taken and released under
    /// that id would be answered from the player's history, and the entry not counted). A
    /// suspension stored between the check and the entry is refused by the tournament and the
    /// count released.
    ///
    /// The count carries the tournament's rulebook ([`PlayerCommand::under`]): under
    /// svenska-spel-2012 the player aggregate counts calendar days, weeks and months in Swedish
    /// time and defers raised limits (002 §2.3 T-2.2, T-2.4). The profile is read here because
    /// only the tournament's log holds it and the player aggregate decides alone.
    ///
    /// A registration paid by a satellite's ticket (`ticket`, with what it is worth: issue 36)
    /// takes the same steps, limits counted alike; only its entry is decided as
    /// [`TournamentCommand::RegisterWithTicket`].
    async fn register(
        &self,
        command_id: CommandId,
        tournament_id: TournamentId,
        player: PlayerId,
        ticket: Option<(TicketRef, Money)>,
    ) -> Reply<Registered> {
        let now = self.inner.clock.now();
        let profile = match self.profile_of(tournament_id).await {
            Ok(profile) => profile,
            Err(e) => return Reply::Error(e),
        };
        // A player's tournaments are counted when they set limits, and always under a rulebook
        // that requires limits before a tournament (002 §2.3 "Innan en Kund tillåts delta i en
        // turnering måste han också sätta gränser för hur många turneringar han ska få delta
        // i"): the player aggregate then refuses one without them (`limits_not_set`).
        let has_limits = self.inner.limited.read().expect("limited players poisoned").contains(&player)
            || profile.is_some_and(crate::limits::calendar_limits);
        if has_limits {
            // Only the hold answers here: every other refusal comes, as before, after the count.
            let check = self.inner.tournaments.execute(tournament_id.0, command_id, TournamentCommand::CheckHold { at: now }).await;
            if let Reply::Error(e) = reply(check, |_| ()) {
                if e.code == floor_events::codes::TOURNAMENT_SUSPENDED {
                    return Reply::Error(e);
                }
            }
        }
        let (mut saga, mut step) = RegistrationSaga::start(command_id, player.clone(), tournament_id, now, has_limits);
        let mut answer = None;
        loop {
            step = match step {
                Step::Count(id, count) => {
                    let count = match profile {
                        Some(profile) => count.under(profile),
                        None => count,
                    };
                    match reply(self.inner.players.execute(player.aggregate_id(), id, count).await, |c| {
                        !c.events.is_empty() && !c.duplicate
                    }) {
                        Reply::Ok(newly) => saga.counted(newly),
                        Reply::Error(e) => return Reply::Error(e),
                    }
                }
                Step::Register => {
                    let (player, at) = (player.clone(), saga.at());
                    let command = match ticket {
                        Some((ticket, value)) => TournamentCommand::RegisterWithTicket { player, ticket, value, at },
                        None => TournamentCommand::Register { player, at },
                    };
                    let outcome = self.inner.tournaments.execute(tournament_id.0, command_id, command).await;
                    let registered = reply(outcome, |c| registered(tournament_id, c.events)).and_then_ok();
                    let next = saga.registered(matches!(registered, Reply::Ok(_)));
                    answer = Some(registered);
                    next
                }
                Step::Release(id, release) => {
                    if let Err(e) = self.inner.players.execute(player.aggregate_id(), id, release).await {
                        tracing::warn!(%player, %tournament_id, error = %e, "limit count not released; it will expire with its window");
                    }
                    Step::Done
                }
                Step::Done => break,
            };
        }
        answer.unwrap_or_else(|| Reply::Error(ErrorBody::new(floor_events::codes::UNAVAILABLE, "registration stored no entry")))
    }

    /// What the decider needs of a satellite's target: its state folded from its last snapshot
    /// and the commits after it; `None` when no such tournament is stored.
    async fn target_facts(&self, target: TournamentId) -> Result<Option<TargetFacts>, ErrorBody> {
        let unavailable = |e: String| ErrorBody::new(floor_events::codes::UNAVAILABLE, format!("reading the satellite's target: {e}"));
        let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, target.0);
        let (mut state, after) = match self.inner.snapshots.load(&subject).await {
            Ok(Some(restored)) => (restored.state, restored.sequence),
            Ok(None) => (TournamentState::default(), 0),
            Err(e) => {
                tracing::warn!(%subject, error = %e, "snapshot ignored; folding the target's whole log");
                (TournamentState::default(), 0)
            }
        };
        let commits = self.inner.store.load::<TournamentEvent>(&subject, after).await.map_err(|e| unavailable(e.to_string()))?;
        for commit in commits {
            state = commit.events.into_iter().fold(state, TournamentAggregate::apply_event);
        }
        Ok(TargetFacts::of(&state))
    }

    /// The rulebook of `tournament_id`, from its first commit (its creation), kept once read;
    /// `None` when no such tournament is stored (its decider then refuses the entry).
    async fn profile_of(&self, tournament_id: TournamentId) -> Result<Option<RuleProfile>, ErrorBody> {
        if let Some(profile) = self.inner.profiles.read().expect("profiles poisoned").get(&tournament_id) {
            return Ok(Some(*profile));
        }
        let unavailable = |e: String| ErrorBody::new(floor_events::codes::UNAVAILABLE, format!("reading the tournament's rulebook: {e}"));
        let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, tournament_id.0);
        let first = match self.inner.events.direct_get_next_for_subject(&subject, Some(1)).await {
            Ok(message) => message.sequence,
            Err(e) if e.kind() == async_nats::jetstream::stream::DirectGetErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(unavailable(e.to_string())),
        };
        let commit = self.inner.store.commit_at::<TournamentEvent>(first).await.map_err(|e| unavailable(e.to_string()))?;
        let profile = commit.events.iter().find_map(|e| match e {
            TournamentEvent::TournamentCreated(created) => Some(created.definition.profile),
            _ => None,
        });
        if let Some(profile) = profile {
            self.inner.profiles.write().expect("profiles poisoned").insert(tournament_id, profile);
        }
        Ok(profile)
    }

    /// Executes the tournament command `make` builds with the service's time now.
    async fn tournament_command(
        &self,
        command_id: CommandId,
        tournament_id: TournamentId,
        make: impl FnOnce(DateTime<Utc>) -> TournamentCommand,
    ) -> Reply<Recorded> {
        let command = make(self.inner.clock.now());
        let outcome = self.inner.tournaments.execute(tournament_id.0, command_id, command).await;
        reply(outcome, |c| Recorded { events: c.events })
    }

    async fn set_player_limits(&self, request: SetPlayerLimits) -> Reply<Vec<PlayerEvent>> {
        let SetPlayerLimits { command_id, player, limits } = request;
        let command = PlayerCommand::SetLimits { player: player.clone(), limits, at: self.inner.clock.now() };
        self.player_command(command_id, player, command).await
    }

    /// A player's self-exclusion (002 §2.3); this process checks them at once (another
    /// registration instance once its follow reads the commit).
    async fn exclude_player(&self, request: floor_events::player::ExcludePlayer) -> Reply<Vec<PlayerEvent>> {
        let floor_events::player::ExcludePlayer { command_id, player, period } = request;
        let command = PlayerCommand::Exclude { player: player.clone(), period, at: self.inner.clock.now() };
        self.player_command(command_id, player, command).await
    }

    /// A command of the player aggregate; what it stored is folded into `limited` at once.
    async fn player_command(&self, command_id: CommandId, player: PlayerId, command: PlayerCommand) -> Reply<Vec<PlayerEvent>> {
        let outcome = self.inner.players.execute(player.aggregate_id(), command_id, command).await;
        let answer = reply(outcome, |c| c.events);
        if let Reply::Ok(events) = &answer {
            let mut limited = self.inner.limited.write().expect("limited players poisoned");
            events.iter().for_each(|e| limited.apply(e));
        }
        answer
    }
}

/// Starts registration's policy ([`ClosingPolicy`]): caught up with the log before the first
/// command is served, then following on `tracker`. Its orders run on the service's own
/// tournament host; a rejection (a tournament cancelled before its start) is the end of it.
async fn run_closing_policy(
    backbone: &Backbone,
    tournaments: AggregateHost<TournamentAggregate>,
    shutdown: CancellationToken,
    tracker: &TaskTracker,
) -> Result<(), StartError> {
    let config = PolicyConfig::new(CLOSING_POLICY, CLOSING_POLICY_MEMORY, closing_filters());
    let started = PolicyRunner::<ClosingPolicy>::start(backbone, config).await?;
    tracker.spawn(async move {
        let execute = |(tournament, id, command): Order| {
            let (tournaments, shutdown) = (tournaments.clone(), shutdown.clone());
            async move { tournaments.execute_reaction(tournament.0, id, command, RETRY, &shutdown).await }
        };
        started.runner.drive(started.owed, &shutdown, execute).await;
    });
    Ok(())
}

/// The reply to a registration: the entry it created (or, for a retry, created before).
fn registered(tournament_id: TournamentId, events: Vec<TournamentEvent>) -> Option<Registered> {
    events.into_iter().find_map(|e| match e {
        TournamentEvent::EntryRegistered(e) => {
            Some(Registered { tournament_id, entry: e.entry, player: e.player, kind: e.kind, ledger: e.ledger })
        }
        _ => None,
    })
}

trait AndThenOk<T> {
    fn and_then_ok(self) -> Reply<T>;
}

impl<T> AndThenOk<T> for Reply<Option<T>> {
    /// A committed registration always holds its entry; if not, say so rather than reply `null`.
    fn and_then_ok(self) -> Reply<T> {
        match self {
            Reply::Ok(Some(v)) => Reply::Ok(v),
            Reply::Ok(None) => Reply::Error(ErrorBody::new(floor_events::codes::UNAVAILABLE, "registration stored no entry")),
            Reply::Error(e) => Reply::Error(e),
        }
    }
}

/// Reads every player event into `limited`, returns once caught up with the stream as it was,
/// and keeps following in a background task until `shutdown`.
async fn follow_limits(
    backbone: &Backbone,
    limited: Arc<RwLock<LimitedPlayers>>,
    shutdown: CancellationToken,
    tracker: &TaskTracker,
) -> Result<(), StartError> {
    let apply = move |message: &Delivered| {
        if let Some(Commit { events: Events::Player(events), .. }) = Stored::of(message).commit("registration-limits") {
            events.iter().for_each(|e| limited.write().expect("limited players poisoned").apply(e))
        }
    };
    let filters = vec![subjects::event_filter(subjects::aggregate::PLAYER)];
    let mut following = follow(backbone, filters, &apply).await?;
    tracker.spawn(async move {
        loop {
            let next = tokio::select! {
                _ = shutdown.cancelled() => break,
                next = following.next() => next,
            };
            match next {
                Some(Ok(message)) => {
                    following.guard(&message, || apply(&message));
                }
                Some(Err(e)) => tracing::warn!(error = %e, "following player limits"),
                None => break,
            }
        }
    });
    Ok(())
}
