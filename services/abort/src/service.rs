//! Wiring: the `floor.cmd.abort.<verb>` endpoint for directors, and the policy following the
//! log on the checkpointed [`PolicyRunner`].
//!
//! The memory ([`Memory`]) folds registration, seating, rebuys, payouts, bounties and the abort
//! aggregate's own commits into one [`TournamentView`] per tournament: a cancel builds its
//! snapshot from it (chips at the start of each table's interrupted hand), and `statement`
//! answers from it. A cancellation of more than [`INLINE_ENTRIES_AT_MOST`] entries is kept whole
//! in the object store ([`subjects::CANCELLATIONS_BUCKET`]) before the command is sent, and the
//! `statement` verb reads it from there (checked against its SHA-256) once, then from memory.
//! The abort aggregate's events cause no orders since issue 33 ([`crate::policy`]): the clock,
//! rebuys, registration and seating read the abort log themselves.

use crate::domain::{cancelled_event, AbortAggregate, AbortCommand, AbortEvent, Stage, StoredCancellation, SuspendReason};
use crate::policy::{watchdog, Order, Watchdog};
use crate::projection::{TournamentView, Unavailable};
use crate::snapshot::{Format, Snapshot, Tables};
use crate::statement::{Method, Statement};
use async_nats::jetstream::object_store::ObjectStore;
use floor_events::abort::{
    verbs, AbortRecorded, AbortRequest, Cancel, StatementRequest, Statements, StoredEncoding, Suspend, STATEMENTS_PER_PAGE,
};
use floor_events::commit::Events;
use floor_events::{codes, subjects, CommandId, Currency, ErrorBody, Reply, TournamentId};
use floor_runtime::encoding::hex;
use floor_runtime::endpoint::Verbs;
use floor_runtime::folded::Folded;
use floor_runtime::policy::{PolicyConfig, PolicyRunner, Stored};
use floor_runtime::projection::{ProjectionError, ProjectionErrorKind};
use floor_runtime::shell::{Context, Service};
use floor_runtime::sync::lock;
use floor_runtime::{reply, AggregateHost, Clock, DomainError, JetStreamStore};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// How often the watchdog looks at the tables' silence and the suspensions' length.
const WATCH_EVERY: chrono::Duration = chrono::Duration::seconds(5);

/// The policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "abort-policy";

/// Entries still in up to which a cancellation is one message (about 700 bytes each against the
/// 900,000 of [`crate::domain::MAX_CANCELLED_BYTES`]); more, and it is kept in the object store.
pub const INLINE_ENTRIES_AT_MOST: usize = 1_000;

/// The shape of [`Memory`] in snapshots: change it whenever that shape or meaning changes.
const MEMORY_VERSION: &str = "abort-4";

/// The abort service. Cheap to clone.
#[derive(Clone)]
pub struct AbortService {
    host: AggregateHost<AbortAggregate>,
    /// Shared with the follower. A std mutex: never held across an await.
    memory: Arc<Mutex<Memory>>,
    clock: Arc<dyn Clock>,
    /// Cancellations too large for one message, whole.
    cancellations: ObjectStore,
    /// The statements of stored cancellations read so far (a std mutex: never held across an
    /// await).
    loaded: Arc<Mutex<HashMap<TournamentId, Arc<Vec<Statement>>>>>,
    /// The policy's reader: which tournaments' logs hold a commit it could not apply.
    reader: floor_runtime::health::Reader,
    /// How far the memory has read the log: every verb answers from a memory that has read
    /// what was stored before it was asked.
    folded: Folded,
}

/// What the log says, folded: one view per tournament.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Memory {
    /// By tournament.
    pub tournaments: BTreeMap<TournamentId, TournamentView>,
}

impl floor_runtime::policy::Policy for Memory {
    type Order = Order;

    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit("abort") else { return vec![] };
        let (t, at) = (decoded.tournament(), commit.at);
        let view = self.tournaments.entry(t).or_default();
        match &decoded.events {
            Events::Tournament(e) => view.on_tournament(e),
            Events::Seating(e) => {
                view.on_seating(e);
                view.silence.on_seating(at, e);
            }
            Events::Rebuys(e) => view.on_rebuys(e),
            Events::Payouts(e) => view.on_payouts(e),
            Events::Bounties(e) => view.on_bounties(e),
            Events::Bubble(e) => view.silence.on_bubble(at, e),
            Events::Abort(e) => {
                view.on_abort(e);
                view.silence.on_abort(at, e);
                return vec![];
            }
            Events::Clock(e) => {
                view.silence.on_clock(at, e);
                return vec![];
            }
            _ => {}
        }
        vec![]
    }
}

/// The subjects the abort policy reads.
pub fn filters() -> Vec<String> {
    use subjects::aggregate as a;
    [a::TOURNAMENT, a::SEATING, a::REBUYS, a::PAYOUTS, a::BOUNTIES, a::BUBBLE, a::ABORT, a::CLOCK]
        .iter()
        .map(|a| subjects::event_filter(a))
        .collect()
}

/// How the abort policy runs: its name, memory version and subjects.
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters())
}

fn refused(u: Unavailable) -> Reply<AbortRecorded> {
    Reply::Error(ErrorBody::new(u.code, u.message))
}

impl Service for AbortService {
    type Error = ProjectionError;

    /// Reads the last snapshot and the log after it into the memory, runs what is still owed,
    /// and follows on the tracker; the watchdog looks at the tables' silence.
    async fn start(cx: &Context<'_>) -> Result<Self, ProjectionError> {
        let (backbone, clock, shutdown) = (cx.backbone, cx.clock.clone(), cx.shutdown.clone());
        let cancellations = backbone.jetstream.get_object_store(subjects::CANCELLATIONS_BUCKET).await.map_err(|e| {
            ProjectionError::with_source(ProjectionErrorKind::Read, format!("object store {}: {e}", subjects::CANCELLATIONS_BUCKET))
        })?;
        let started = PolicyRunner::<Memory>::start(backbone, policy_config()).await?;
        let memory = started.runner.memory();
        let reader = backbone.health.reader(POLICY_NAME).await;
        let host = AggregateHost::new(JetStreamStore::new(backbone));
        let folded = started.runner.reads();
        let service = Self { host, memory, clock, cancellations, loaded: Arc::default(), reader, folded };
        cx.tracker.spawn(service.clone().watch(shutdown.clone()));
        cx.tracker.spawn(service.clone().run(started.runner, started.owed, shutdown));
        Ok(service)
    }

    /// The director's verbs: suspend, resume, cancel, statement.
    fn verbs() -> Verbs<Self> {
        Verbs::new(subjects::service::ABORT)
            .verb(verbs::SUSPEND, |s: Self, r: Suspend| async move { s.suspend(r).await })
            .verb(verbs::RESUME, |s: Self, r: AbortRequest| async move { s.resume(r).await })
            .verb(verbs::CANCEL, |s: Self, r: Cancel| async move { s.cancel(r).await })
            .verb(verbs::STATEMENT, |s: Self, r: StatementRequest| async move { s.statements(r).await })
    }
}

impl AbortService {
    async fn suspend(&self, r: Suspend) -> Reply<AbortRecorded> {
        let at = self.clock.now();
        if let Err(e) = self.caught_up(r.tournament_id).await {
            return Reply::Error(e);
        }
        if let Err(u) = self.in_play(r.tournament_id) {
            return refused(u);
        }
        let command = AbortCommand::Suspend { reason: SuspendReason::Director { reason: r.reason }, at };
        self.answer(r.tournament_id, r.command_id, command).await
    }

    async fn resume(&self, r: AbortRequest) -> Reply<AbortRecorded> {
        let at = self.clock.now();
        if let Err(e) = self.caught_up(r.tournament_id).await {
            return Reply::Error(e);
        }
        if let Err(u) = self.in_play(r.tournament_id) {
            return refused(u);
        }
        self.answer(r.tournament_id, r.command_id, AbortCommand::Resume { at }).await
    }

    /// Waits until the memory has read every log of the tournament a verb answers from, as far
    /// as it went when asked: a cancellation built before the fold of the last eliminations,
    /// rebuys or bounty payments would pay players already out and miss money already paid.
    async fn caught_up(&self, tournament: TournamentId) -> Result<(), ErrorBody> {
        use subjects::aggregate as a;
        self.folded.caught_up(tournament, &[a::SEATING, a::REBUYS, a::PAYOUTS, a::BOUNTIES, a::ABORT]).await
    }

    /// A tournament the service knows, started and not over.
    fn in_play(&self, tournament: TournamentId) -> Result<(), Unavailable> {
        lock(&self.memory).tournaments.get(&tournament).map_or_else(unknown, TournamentView::in_play)
    }

    /// A cancel: the snapshot from the memory as the log stands now. A tournament cancelled
    /// already goes to the aggregate with an empty snapshot: it answers a replay of the same
    /// command from its history, and refuses any other with `tournament_cancelled`, before
    /// reading the snapshot. A tournament not started is registration's to cancel, unless
    /// registration cannot: its log holds a commit no reader can apply (this policy's reader
    /// set it aside). Then this is the way out: every entry the log recorded gets back what it
    /// paid.
    async fn cancel(&self, r: Cancel) -> Reply<AbortRecorded> {
        let at = self.clock.now();
        if let Err(e) = self.caught_up(r.tournament_id).await {
            return Reply::Error(e);
        }
        let registration_log = subjects::event_subject(subjects::aggregate::TOURNAMENT, r.tournament_id.0);
        let built = {
            let memory = lock(&self.memory);
            match memory.tournaments.get(&r.tournament_id) {
                Some(view) if view.abort.cancelled.is_some() => match view.currency {
                    Some(currency) => Ok((view.profile.unwrap_or_default(), empty_snapshot(currency), Stage::InPlay)),
                    None => unknown(),
                },
                Some(view) if !view.started && self.reader.is_set_aside(&registration_log) => {
                    view.snapshot_before_the_start().map(|(profile, snapshot)| (profile, snapshot, Stage::BeforeTheStart))
                }
                Some(view) => view.snapshot(at).map(|(profile, snapshot)| (profile, snapshot, Stage::InPlay)),
                None => unknown(),
            }
        };
        let (profile, snapshot, stage) = match built {
            Ok(built) => built,
            Err(u) => return refused(u),
        };
        let stored = match snapshot.entries.len() > INLINE_ENTRIES_AT_MOST {
            true => match self.store(&r, &snapshot, profile, at, stage).await {
                Ok(stored) => Some(stored),
                Err(refused) => return Reply::Error(refused),
            },
            false => None,
        };
        let command = AbortCommand::Cancel {
            reason: r.reason,
            cause: r.cause,
            profile,
            method: r.method,
            snapshot: Box::new(snapshot),
            at,
            stored,
            stage,
        };
        self.answer(r.tournament_id, r.command_id, command).await
    }

    /// Keeps the whole `cancelled` event of a cancellation too large for one message in the
    /// object store, named by the tournament and its SHA-256; the command then names it. A
    /// cancel tried again stores its object again (the same name when nothing changed); an
    /// object whose command was refused or lost stays, unreferenced.
    async fn store(
        &self,
        r: &Cancel,
        snapshot: &Snapshot,
        profile: floor_events::RuleProfile,
        at: chrono::DateTime<chrono::Utc>,
        stage: Stage,
    ) -> Result<StoredCancellation, ErrorBody> {
        let started = std::time::Instant::now();
        // Computing, encoding and hashing take most of a second at 250,000 entries: off the
        // async workers the other services share.
        let (t, entries) = (r.tournament_id, snapshot.entries.len());
        let (reason, cause, method, snapshot) = (r.reason.clone(), r.cause, r.method, Box::new(snapshot.clone()));
        let encode = move || {
            let event = cancelled_event(reason, cause, snapshot, profile, method, at, stage)
                .map_err(|e| ErrorBody::new(e.code(), e.to_string()))?;
            let computed = started.elapsed();
            let AbortEvent::Cancelled { cancellation, .. } = &event else { unreachable!("cancelled_event gives a cancelled event") };
            let statements = cancellation.statements.len();
            let failed = |e: String| ErrorBody::new(codes::UNAVAILABLE, format!("encoding the cancellation: {e}"));
            // serde_json writes a few bytes at a time: gathered into 64 KiB before the encoder.
            let mut lz4 = std::io::BufWriter::with_capacity(1 << 16, lz4_flex::frame::FrameEncoder::new(Vec::new()));
            serde_json::to_writer(&mut lz4, &event).map_err(|e| failed(e.to_string()))?;
            let lz4 = lz4.into_inner().map_err(|e| failed(e.to_string()))?;
            let bytes = lz4.finish().map_err(|e| failed(e.to_string()))?;
            let encoded = started.elapsed();
            let sha256 = hex(&Sha256::digest(&bytes));
            Ok::<_, ErrorBody>((bytes, sha256, statements, computed, encoded, started.elapsed()))
        };
        let (bytes, sha256, statements, computed, encoded, hashed) = tokio::task::spawn_blocking(encode)
            .await
            .map_err(|e| ErrorBody::new(codes::UNAVAILABLE, format!("computing the cancellation: {e}")))??;
        let object = format!("{t}.{sha256}");
        self.cancellations
            .put(object.as_str(), &mut bytes.as_slice())
            .await
            .map_err(|e| ErrorBody::new(codes::UNAVAILABLE, format!("storing the cancellation {object}: {e}")))?;
        let ms = |d: std::time::Duration| d.as_millis() as u64;
        tracing::info!(
            tournament = %t,
            object,
            bytes = bytes.len(),
            computed_ms = ms(computed),
            encoded_ms = ms(encoded),
            hashed_ms = ms(hashed),
            stored_ms = ms(started.elapsed()),
            "cancellation stored whole"
        );
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let encoding = StoredEncoding::JsonLz4;
        Ok(StoredCancellation {
            object,
            encoding,
            sha256,
            bytes: bytes.len() as u64,
            entries: count(entries),
            statements: count(statements),
        })
    }

    async fn statements(&self, r: StatementRequest) -> Reply<Statements> {
        if let Err(e) = self.folded.caught_up(r.tournament_id, &[subjects::aggregate::ABORT]).await {
            return Reply::Error(e);
        }
        let (reason, at, books, stored) = {
            let memory = lock(&self.memory);
            let Some(view) = memory.tournaments.get(&r.tournament_id).filter(|v| v.profile.is_some()) else {
                return Reply::Error(ErrorBody::new(codes::UNKNOWN_TOURNAMENT, "no such tournament"));
            };
            let (Some((reason, at)), Some(books)) = (&view.abort.cancelled, view.abort.books) else {
                return Reply::Error(ErrorBody::new(codes::NOT_CANCELLED, "the tournament was not cancelled: it has no statements"));
            };
            if view.abort.stored.is_none() {
                let (statements, players, next) = page(&view.abort.statements, &r);
                return Reply::Ok(Statements {
                    tournament_id: r.tournament_id,
                    reason: reason.clone(),
                    at: *at,
                    books,
                    statements,
                    players,
                    next,
                });
            }
            (reason.clone(), *at, books, view.abort.stored.clone())
        };
        let all = match self.load(r.tournament_id, stored.as_ref()).await {
            Ok(all) => all,
            Err(e) => return Reply::Error(e),
        };
        let (statements, players, next) = page(&all, &r);
        Reply::Ok(Statements { tournament_id: r.tournament_id, reason, at, books, statements, players, next })
    }

    /// The statements of a stored cancellation: from memory once read, else from the object
    /// store, checked against the SHA-256 the log recorded.
    async fn load(&self, t: TournamentId, stored: Option<&StoredCancellation>) -> Result<Arc<Vec<Statement>>, ErrorBody> {
        if let Some(all) = lock(&self.loaded).get(&t) {
            return Ok(all.clone());
        }
        let stored = stored.ok_or_else(|| ErrorBody::new(codes::NOT_CANCELLED, "no stored cancellation"))?;
        let unavailable = |what: String| ErrorBody::new(codes::UNAVAILABLE, format!("the cancellation {}: {what}", stored.object));
        let mut object = self.cancellations.get(&stored.object).await.map_err(|e| unavailable(e.to_string()))?;
        let mut bytes = Vec::with_capacity(usize::try_from(stored.bytes).unwrap_or(0).min(1 << 30));
        tokio::io::AsyncReadExt::read_to_end(&mut object, &mut bytes).await.map_err(|e| unavailable(e.to_string()))?;
        let sha256 = stored.sha256.clone();
        // Hashing and decoding 181 MB (250,000 entries) is most of a second: off the async workers.
        let decode = move || {
            if hex(&Sha256::digest(&bytes)) != sha256 {
                return Err("its SHA-256 is not the one the log recorded".to_owned());
            }
            // The one encoding there is: JSON in the LZ4 frame format.
            let mut json = Vec::new();
            std::io::Read::read_to_end(&mut lz4_flex::frame::FrameDecoder::new(bytes.as_slice()), &mut json).map_err(|e| e.to_string())?;
            match serde_json::from_slice::<AbortEvent>(&json).map_err(|e| e.to_string())? {
                AbortEvent::Cancelled { cancellation, .. } => Ok(cancellation.statements),
                _ => Err("not a cancellation".to_owned()),
            }
        };
        let statements = tokio::task::spawn_blocking(decode).await.map_err(|e| unavailable(e.to_string()))?.map_err(unavailable)?;
        let all = Arc::new(statements);
        lock(&self.loaded).insert(t, all.clone());
        Ok(all)
    }

    /// The watchdog: every [`WATCH_EVERY`] of the service's clock, Floor's own suspension of
    /// each tournament whose tables fell silent, and the cancellation of each suspended past
    /// its profile's limit ([`watchdog`]). A refusal (a director acted first, a snapshot not
    /// ready) is logged; the next look decides again.
    async fn watch(self, shutdown: CancellationToken) {
        loop {
            let next = self.clock.now() + WATCH_EVERY;
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = self.clock.sleep_until(next) => {}
            }
            let now = self.clock.now();
            let due: Vec<(TournamentId, Watchdog)> =
                lock(&self.memory).tournaments.iter().filter_map(|(&t, view)| watchdog(t, view, now).map(|w| (t, w))).collect();
            for (t, due) in due {
                let reply = match due {
                    Watchdog::Suspend { command_id, reason } => {
                        tracing::warn!(tournament = %t, ?reason, "tables silent: suspending");
                        self.answer(t, command_id, AbortCommand::Suspend { reason, at: now }).await
                    }
                    Watchdog::Cancel { command_id, reason } => {
                        tracing::warn!(tournament = %t, reason, "suspended past the profile's limit: cancelling");
                        self.cancel(Cancel { command_id, tournament_id: t, reason, method: Method::Rulebook, cause: None }).await
                    }
                };
                if let Reply::Error(e) = reply {
                    tracing::info!(tournament = %t, code = e.code, message = e.message, "the watchdog's command was refused");
                }
            }
        }
    }

    /// Runs what is owed, then each new commit's orders in log order ([`PolicyRunner::drive`]).
    async fn run(self, runner: PolicyRunner<Memory>, owed: Vec<Order>, shutdown: CancellationToken) {
        runner.drive(owed, &shutdown, |order| self.execute(order, &shutdown)).await;
    }

    /// Runs one order: there are none (the clock reads the abort log itself since issue 33).
    async fn execute(&self, order: Order, _shutdown: &CancellationToken) -> bool {
        match order {}
    }

    async fn answer(&self, tournament: TournamentId, command_id: CommandId, command: AbortCommand) -> Reply<AbortRecorded> {
        reply(self.host.execute(tournament.0, command_id, command).await, |c| AbortRecorded { events: c.events })
    }
}

fn unknown<T>() -> Result<T, Unavailable> {
    Err(Unavailable { code: codes::UNKNOWN_TOURNAMENT, message: "no such tournament".into() })
}

/// What a cancel carries once the tournament is cancelled (never read: the aggregate refuses
/// first).
fn empty_snapshot(currency: Currency) -> Snapshot {
    Snapshot {
        currency,
        format: Format { tables: Tables::Multi, sit_and_go: false, twister: false },
        entries: vec![],
        prizes: vec![],
        guarantee: None,
        buying_open: false,
        deal: None,
        transferred_in: 0,
    }
}

/// What `r` asks of `all` (sorted by player): one player's statement, or a page of at most
/// [`STATEMENTS_PER_PAGE`] after `r.after`; with how many players there are in all, and where the
/// next page starts.
fn page(all: &[Statement], r: &StatementRequest) -> (Vec<Statement>, u32, Option<floor_events::PlayerId>) {
    let players = u32::try_from(all.len()).unwrap_or(u32::MAX);
    if let Some(player) = &r.player {
        let one = all.binary_search_by(|s| s.player.cmp(player)).ok().map(|i| all[i].clone());
        return (one.into_iter().collect(), players, None);
    }
    let limit = r.limit.unwrap_or(STATEMENTS_PER_PAGE).clamp(1, STATEMENTS_PER_PAGE) as usize;
    let start = r.after.as_ref().map_or(0, |after| all.partition_point(|s| &s.player <= after));
    let page: Vec<Statement> = all[start..].iter().take(limit).cloned().collect();
    let next = (start + page.len() < all.len()).then(|| page.last().map(|s| s.player.clone())).flatten();
    (page, players, next)
}
