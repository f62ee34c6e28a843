//! Helpers that start the world for end-to-end tests and benchmarks: a real nats-server per test
//! (free loopback port, temporary directory) and the platform on its own runtime, so a test can
//! stop it cleanly or kill it mid-flight.
//!
//! Every wait here waits on an event (a KV watch, a reply, a readiness signal) with a deadline;
//! nothing sleeps to synchronise.

use async_nats::jetstream;
use floor::startup::{Nats, Platform, PlatformConfig};
use floor_events::clock::{BlindStructure, ClockEvent, Level, Step, Structure};
use floor_events::registration::{verbs, CreateTournament, Register, TournamentEvent};
use floor_events::table::{BustReport, Instruction, PotWon, Report, SeatStack, TableInstruction, TableReport};
use floor_events::tournament::{Fee, Start, TournamentDefinition};
use floor_events::{subjects, CommandId, Currency, Money, PlayerId, Reply, TournamentId};
use floor_runtime::bootstrap::{self, Backbone};
use floor_runtime::store::StoredCommit;
use floor_runtime::{JetStreamStore, NatsServer};
use futures::StreamExt;
use serde::Serialize;
use serde_json::Value;
use std::net::SocketAddr;
use std::time::Duration;

/// How long any wait in a test may take before it fails.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// The platform on a runtime of its own.
pub struct RunningPlatform {
    runtime: Option<tokio::runtime::Runtime>,
    http: Option<SocketAddr>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    stopped: Option<tokio::sync::oneshot::Receiver<()>>,
}

impl RunningPlatform {
    /// Starts registration and lobby (with HTTP on a free port) on `nats`.
    pub async fn start(nats: Nats) -> Self {
        Self::start_with(nats, true).await
    }

    /// Starts the platform; `lobby: false` runs registration alone (a second instance).
    pub async fn start_with(nats: Nats, lobby: bool) -> Self {
        let http = lobby.then(|| SocketAddr::from(([127, 0, 0, 1], 0)));
        let config = if lobby { PlatformConfig::all(nats, http) } else { PlatformConfig::only(nats, None, &["registration"]) };
        Self::start_config(config).await
    }

    /// Starts the platform as `config` says.
    pub async fn start_config(config: PlatformConfig) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        let (ready, is_ready) = tokio::sync::oneshot::channel();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (done, stopped) = tokio::sync::oneshot::channel();
        runtime.spawn(async move {
            let platform = Platform::build(config).await.expect("platform starts");
            let _ = ready.send(platform.http_addr());
            platform
                .run_until_stopped(async move {
                    let _ = stop_rx.await;
                })
                .await;
            let _ = done.send(());
        });
        let http = tokio::time::timeout(DEADLINE, is_ready).await.expect("platform ready in time").expect("platform started");
        Self { runtime: Some(runtime), http, stop: Some(stop), stopped: Some(stopped) }
    }

    /// The lobby's HTTP address.
    pub fn http(&self) -> Option<SocketAddr> {
        self.http
    }

    /// A crash: every task dropped where it stands, no drain, no goodbye.
    pub fn kill(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }

    /// A clean stop: in-flight commands answered, projections stopped, NATS drained.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(stopped) = self.stopped.take() {
            let _ = tokio::time::timeout(DEADLINE, stopped).await;
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for RunningPlatform {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A fresh nats-server with Floor's streams and buckets and a client on it, and no platform:
/// for tests and benches of one piece of the runtime or one service.
pub async fn backbone_alone() -> (NatsServer, Backbone) {
    let nats = NatsServer::start_temp().expect("nats-server starts (run `make tools` if none is installed)");
    let client = bootstrap::connect(&nats.url()).await.expect("connect");
    let backbone = bootstrap::ensure_backbone(client).await.expect("backbone");
    (nats, backbone)
}

/// A nats-server, the platform on it, and a client to talk to both.
pub struct World {
    /// The server (dropped last: it kills the process).
    pub nats: NatsServer,
    /// The platform, while running.
    pub platform: Option<RunningPlatform>,
    /// A test client.
    pub backbone: Backbone,
    /// What the platform runs (again, after a restart).
    config: PlatformConfig,
    /// The service's credential on the server (none on an open one).
    pub service: floor_runtime::credentials::Credentials,
}

impl World {
    /// Starts a fresh server and the platform on it.
    pub async fn start() -> Self {
        Self::start_configured(|_| {}).await
    }

    /// Starts a fresh server and the platform, every service but what `adjust` switches off.
    /// The server has the roles of Floor's trust boundary (issue 34): the platform and the test
    /// client join as the service ([`World::joined`] for more processes).
    pub async fn start_configured(adjust: impl FnOnce(&mut PlatformConfig)) -> Self {
        Self::start_as(true, Vec::new(), adjust).await.0
    }

    /// As [`World::start_configured`], on a server with no access control (what a table
    /// server written before issue 34 meets on a development platform, `--insecure-nats`).
    pub async fn start_open_configured(adjust: impl FnOnce(&mut PlatformConfig)) -> Self {
        Self::start_as(false, Vec::new(), adjust).await.0
    }

    /// Starts a secure world with the table credentials made for `tables` (the server knows
    /// no other), returned for the table servers of the test.
    pub async fn start_secure(tables: Vec<floor_runtime::roles::TableScope>) -> (Self, Vec<floor_runtime::roles::User>) {
        Self::start_as(true, tables, |_| {}).await
    }

    async fn start_as(
        secure: bool,
        tables: Vec<floor_runtime::roles::TableScope>,
        adjust: impl FnOnce(&mut PlatformConfig),
    ) -> (Self, Vec<floor_runtime::roles::User>) {
        use floor_runtime::credentials::{Auth, Credentials};
        use floor_runtime::roles::{authorization, Role, User};
        let password = || format!("{}", uuid::Uuid::new_v4().simple());
        let service = User { user: "floor-service".into(), password: password(), role: Role::Service, scope: None };
        let tables: Vec<User> = tables
            .into_iter()
            .enumerate()
            .map(|(i, scope)| User { user: format!("table-{i}"), password: password(), role: Role::Table, scope: Some(scope) })
            .collect();
        let users: Vec<User> = std::iter::once(service.clone()).chain(tables.iter().cloned()).collect();
        let (nats, service) = match secure {
            true => (
                NatsServer::start_temp_with(&authorization(&users)).expect("nats-server starts (run `make tools` if none is installed)"),
                Credentials { auth: Auth::UserPassword { user: service.user, password: service.password }, ..Credentials::none() },
            ),
            false => (NatsServer::start_temp().expect("nats-server starts (run `make tools` if none is installed)"), Credentials::none()),
        };
        let mut config = PlatformConfig::all(Nats::Joined(nats.url(), service.clone()), Some(SocketAddr::from(([127, 0, 0, 1], 0))));
        adjust(&mut config);
        let platform = RunningPlatform::start_config(config.clone()).await;
        let client = bootstrap::connect_with(&nats.url(), &service).await.expect("connect");
        let backbone = bootstrap::ensure_backbone(client).await.expect("backbone");
        (Self { nats, platform: Some(platform), backbone, config, service }, tables)
    }

    /// How another process of the test joins the server, as the service.
    pub fn joined(&self) -> Nats {
        Nats::Joined(self.nats.url(), self.service.clone())
    }

    /// Creates a tournament with the id `t` (panics on rejection).
    pub async fn create_as(&self, t: TournamentId, definition: TournamentDefinition) {
        let request = CreateTournament { command_id: CommandId(t.0), tournament_id: Some(t), definition };
        if let Reply::Error(e) = self.send(verbs::CREATE_TOURNAMENT.name(), &request).await {
            panic!("create rejected: {e}");
        }
    }

    /// The platform (panics if it was killed and not restarted).
    pub fn platform(&self) -> &RunningPlatform {
        self.platform.as_ref().expect("platform running")
    }

    /// Kills the platform mid-flight.
    pub fn kill_platform(&mut self) {
        if let Some(p) = self.platform.take() {
            p.kill();
        }
    }

    /// Starts the platform again on the same server.
    pub async fn restart_platform(&mut self) {
        self.kill_platform();
        self.platform = Some(RunningPlatform::start_config(self.config.clone()).await);
    }

    /// Sends raw bytes to a registration verb and returns the decoded reply.
    pub async fn send_raw(&self, verb: &str, payload: Vec<u8>) -> Reply<Value> {
        self.request_raw(subjects::service::REGISTRATION, verb, payload).await
    }

    /// Sends a request to any service's verb.
    pub async fn request<T: Serialize>(&self, service: &str, verb: &str, request: &T) -> Reply<Value> {
        self.request_raw(service, verb, serde_json::to_vec(request).expect("request serializes")).await
    }

    /// Sends a request to any service's verb again while it is refused with `code` (a service
    /// that has not read that far in the log yet: a tournament's start, a player's place), and
    /// returns the first other answer. No polling on a timer: after a refusal it waits until the
    /// service has read every commit of the request's tournament stored so far
    /// ([`World::read_by`]), and, when it had, for the tournament's next commit (only a new fact
    /// can change the answer). The answer comes, or the test fails at [`DEADLINE`].
    pub async fn request_once_read<T: Serialize>(&self, service: &str, verb: &str, request: &T, code: &str) -> Reply<Value> {
        let tournament = serde_json::to_value(request)
            .ok()
            .and_then(|v| v.get("tournament_id").cloned())
            .and_then(|id| serde_json::from_value::<TournamentId>(id).ok());
        let started = std::time::Instant::now();
        let mut seen = self.last_commit(tournament).await;
        loop {
            let reply = self.request(service, verb, request).await;
            if !matches!(&reply, Reply::Error(e) if e.code == code) {
                return reply;
            }
            assert!(started.elapsed() < DEADLINE, "{service}.{verb} still refused with {code} after {DEADLINE:?}");
            match tournament {
                Some(t) if !self.read_by(service, t, seen).await => seen = self.next_commit(t, seen).await,
                Some(_) => {}
                // No tournament to watch: a short pause, bounded by the deadline.
                None => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    /// The last commit stored on any of `t`'s subjects (every aggregate), 0 for none; with no
    /// tournament, the stream's last.
    async fn last_commit(&self, t: Option<TournamentId>) -> u64 {
        let mut stream = self.backbone.jetstream.get_stream(subjects::EVENTS_STREAM).await.expect("the events stream");
        let info = stream.info().await.expect("stream info");
        let Some(t) = t else { return info.state.last_sequence };
        let mut last = 0;
        for aggregate in floor_events::registry::services().iter().flat_map(|s| s.writes.iter().map(|a| a.name)) {
            if let Ok(message) = stream.direct_get_last_for_subject(subjects::event_subject(aggregate, t.0)).await {
                last = last.max(message.sequence);
            }
        }
        last
    }

    /// Waits until every checkpointed reader of `service` (as `floor-readers` and
    /// `floor_events::registry::service_of_reader` say) has taken every commit of `t` it reads
    /// up to stream sequence `upto`: its checkpoint in `floor-checkpoints` at or past the last
    /// such commit. Returns whether it had to wait for any.
    pub async fn read_by(&self, service: &str, t: TournamentId, upto: u64) -> bool {
        let js = &self.backbone.jetstream;
        let stream = js.get_stream(subjects::EVENTS_STREAM).await.expect("the events stream");
        let checkpoints = js.get_key_value(subjects::CHECKPOINT_BUCKET).await.expect("checkpoints");
        let readers = floor_runtime::readers::all(js).await.expect("the readers' records");
        let names: Vec<String> = checkpoints.keys().await.expect("keys").filter_map(|k| async move { k.ok() }).collect().await;
        let mut waited = false;
        for name in names {
            let Some(reads) = readers.get(&floor_runtime::health::key(&name)) else { continue };
            if floor_events::registry::service_of_reader(&name) != service || reads.stream != subjects::EVENTS_STREAM {
                continue;
            }
            let last = floor_runtime::readers::last_commit_of(&stream, reads, t.0).await.min(upto);
            if last == 0 {
                continue;
            }
            let taken = floor_runtime::readers::taken(&checkpoints, &name, last);
            let had_to = tokio::time::timeout(DEADLINE, taken).await.ok().flatten();
            waited |= had_to.unwrap_or_else(|| panic!("{name} did not take commit {last} of {t} in time"));
        }
        waited
    }

    /// Waits for the first commit on any of `t`'s subjects after stream sequence `after`;
    /// returns its sequence.
    async fn next_commit(&self, t: TournamentId, after: u64) -> u64 {
        let stream = self.backbone.jetstream.get_stream(subjects::EVENTS_STREAM).await.expect("the events stream");
        let consumer = stream
            .create_consumer(jetstream::consumer::pull::OrderedConfig {
                filter_subject: format!("floor.ev.*.{t}"),
                deliver_policy: jetstream::consumer::DeliverPolicy::ByStartSequence { start_sequence: after + 1 },
                ..Default::default()
            })
            .await
            .expect("a consumer of the tournament's commits");
        let mut messages = consumer.messages().await.expect("messages");
        let next = tokio::time::timeout(DEADLINE, messages.next()).await.expect("a new commit of the tournament in time");
        next.expect("the consumer ended").expect("a commit").info().expect("its info").stream_sequence
    }

    async fn request_raw(&self, service: &str, verb: &str, payload: Vec<u8>) -> Reply<Value> {
        let subject = subjects::command_subject(service, verb);
        let reply = tokio::time::timeout(DEADLINE, self.backbone.client.request(subject, payload.into()))
            .await
            .expect("reply in time")
            .expect("request sent");
        serde_json::from_slice(&reply.payload).expect("reply is a Reply")
    }

    /// Sends a request to a registration verb.
    pub async fn send<T: Serialize>(&self, verb: &str, request: &T) -> Reply<Value> {
        self.send_raw(verb, serde_json::to_vec(request).expect("request serializes")).await
    }

    /// Creates a tournament and returns its id (panics on rejection).
    pub async fn create(&self, definition: TournamentDefinition) -> TournamentId {
        let command_id = CommandId::new();
        let request = CreateTournament { command_id, tournament_id: None, definition };
        match self.send(verbs::CREATE_TOURNAMENT.name(), &request).await {
            Reply::Ok(_) => TournamentId(command_id.0),
            Reply::Error(e) => panic!("create rejected: {e}"),
        }
    }

    /// Registers a player with a fresh command id.
    pub async fn register(&self, tournament_id: TournamentId, player: impl AsRef<str>) -> Reply<Value> {
        self.register_as(CommandId::new(), tournament_id, player).await
    }

    /// Registers a player with a given command id (for retries).
    pub async fn register_as(&self, command_id: CommandId, tournament_id: TournamentId, player: impl AsRef<str>) -> Reply<Value> {
        let request = Register { command_id, tournament_id, player: PlayerId::parse(player.as_ref()).expect("valid player") };
        self.send(verbs::REGISTER.name(), &request).await
    }

    /// Every commit of a tournament, from the log.
    pub async fn commits(&self, tournament_id: TournamentId) -> Vec<StoredCommit<TournamentEvent>> {
        let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, tournament_id.0);
        JetStreamStore::new(&self.backbone).load(&subject, 0).await.expect("log readable")
    }

    /// The lobby's seat-map summary of `t` (KV `floor-lobby-tables`) once it satisfies `done`.
    pub async fn seat_summary_when(
        &self,
        t: TournamentId,
        done: impl Fn(&floor_lobby::seat_map::SeatsSummary) -> bool,
    ) -> floor_lobby::seat_map::SeatsSummary {
        let bucket = floor_lobby::seat_map_store::bucket(self.jetstream()).await.expect("the seat-map bucket");
        let mut watch = bucket.watch_with_history(floor_lobby::seat_map::summary_key(t)).await.expect("watch the summary");
        let found = async {
            while let Some(Ok(entry)) = watch.next().await {
                if let Ok(summary) = serde_json::from_slice(&entry.value) {
                    if done(&summary) {
                        return summary;
                    }
                }
            }
            panic!("the seat-map watch ended");
        };
        tokio::time::timeout(DEADLINE, found).await.expect("the seat map shows it in time")
    }

    /// Every clock event of a tournament, from the log.
    pub async fn clock_events(&self, tournament_id: TournamentId) -> Vec<ClockEvent> {
        let subject = subjects::event_subject(subjects::aggregate::CLOCK, tournament_id.0);
        let commits: Vec<StoredCommit<ClockEvent>> = JetStreamStore::new(&self.backbone).load(&subject, 0).await.expect("log readable");
        commits.into_iter().flat_map(|c| c.events).collect()
    }

    /// Follows a tournament's clock commits as they are stored (from now on).
    ///
    /// Reads the stream, not the subject: a plain subscriber also sees a publish the stream
    /// refused (a stale writer's) and can see a stored one before a read of the log does.
    pub async fn watch_clock(&self, tournament_id: TournamentId) -> ClockWatch {
        let subject = subjects::event_subject(subjects::aggregate::CLOCK, tournament_id.0);
        let commits = floor_runtime::follow::follow(&self.backbone, vec![subject], |_| {}).await.expect("follow the clock");
        ClockWatch { commits }
    }

    /// The last sequence of the whole event stream (to prove a rejection wrote nothing).
    pub async fn last_sequence(&self) -> u64 {
        let mut stream = self.backbone.events.clone();
        stream.info().await.expect("stream info").state.last_sequence
    }

    /// Waits until the lobby document of `tournament_id` satisfies `ready`, and returns it.
    pub async fn lobby_when(&self, tournament_id: TournamentId, ready: impl Fn(&Value) -> bool) -> Value {
        let bucket = self.backbone.jetstream.get_key_value(subjects::LOBBY_BUCKET).await.expect("lobby bucket");
        let mut watch = bucket.watch_with_history(tournament_id.to_string()).await.expect("watch");
        let wait = async {
            while let Some(entry) = watch.next().await {
                let entry = entry.expect("watch entry");
                if let Ok(doc) = serde_json::from_slice::<Value>(&entry.value) {
                    if ready(&doc) {
                        return doc;
                    }
                }
            }
            panic!("lobby watch ended");
        };
        tokio::time::timeout(DEADLINE, wait).await.expect("lobby reached the expected state in time")
    }

    /// Every lobby document in KV, by tournament id.
    pub async fn lobby_documents(&self) -> std::collections::BTreeMap<String, Value> {
        use futures::TryStreamExt;
        let bucket = self.backbone.jetstream.get_key_value(subjects::LOBBY_BUCKET).await.expect("lobby bucket");
        let keys: Vec<String> = bucket.keys().await.expect("keys").try_collect().await.expect("keys");
        let mut docs = std::collections::BTreeMap::new();
        for key in keys {
            if let Some(v) = bucket.get(&key).await.expect("get") {
                docs.insert(key, serde_json::from_slice(&v).expect("json"));
            }
        }
        docs
    }

    /// Every instruction Floor has stored for `t`'s tables so far, read until `enough` says it
    /// has what it needs (10 s without a new one fails the test).
    pub async fn instructions_when(&self, t: TournamentId, enough: impl Fn(&[TableInstruction]) -> bool) -> Vec<TableInstruction> {
        let filter_subject = format!("floor.table.{t}.*.in");
        let consumer = self
            .backbone
            .tables
            .create_consumer(jetstream::consumer::pull::OrderedConfig { filter_subject, ..Default::default() })
            .await
            .expect("consumer");
        let mut messages = consumer.messages().await.expect("messages");
        let mut got = Vec::new();
        while !enough(&got) {
            let next = tokio::time::timeout(Duration::from_secs(10), messages.next())
                .await
                .unwrap_or_else(|_| panic!("instructions stalled at {got:?}"));
            got.push(serde_json::from_slice(&next.expect("stream").expect("message").payload).expect("an instruction"));
        }
        got
    }

    /// The seats and stacks of the first `players` the draw seated in `t`.
    pub async fn seated(&self, t: TournamentId, players: usize) -> Vec<SeatStack> {
        let seated =
            |i: &[TableInstruction]| i.iter().filter(|i| matches!(i.instruction, Instruction::SeatPlayer { .. })).count() >= players;
        self.instructions_when(t, seated)
            .await
            .into_iter()
            .filter_map(|i| match i.instruction {
                Instruction::SeatPlayer { entry, seat, stack, .. } => Some(SeatStack { seat, entry, chips: stack }),
                _ => None,
            })
            .take(players)
            .collect()
    }

    /// Heads-up at table 1 of `t`: the first seated player busts the second in hand 1, which the
    /// table reports as started and finished. Returns (winner, loser) as they were seated.
    pub async fn first_hand_busts_the_second(&self, t: TournamentId) -> (SeatStack, SeatStack) {
        let seated = self.seated(t, 2).await;
        let (winner, loser) = (seated[0], seated[1]);
        self.report(t, "h1-start", Report::HandStarted { hand: 1, button: winner.seat, stacks: seated.clone(), deal_hand: None }).await;
        self.report(t, "h1-end", busts(1, winner, loser)).await;
        (winner, loser)
    }

    /// One hand at table 1 of `t` (reported as started and finished, ids `h<hand>-start` and
    /// `h<hand>-end`): `winner` takes `loser`'s whole stack and `loser` is out. `seats` are the
    /// table's stacks before the hand; returns them after it.
    pub async fn bust(&self, t: TournamentId, hand: u64, seats: &[SeatStack], winner: SeatStack, loser: SeatStack) -> Vec<SeatStack> {
        self.report(
            t,
            &format!("h{hand}-start"),
            Report::HandStarted { hand, button: winner.seat, stacks: seats.to_vec(), deal_hand: None },
        )
        .await;
        let report = BustReport {
            entry: loser.entry,
            stack_at_start: loser.chips,
            pots: vec![PotWon { winners: vec![winner.entry], chips: loser.chips }],
            best_high_hand: None,
        };
        let after: Vec<SeatStack> = seats
            .iter()
            .filter(|s| s.entry != loser.entry)
            .map(|s| if s.entry == winner.entry { SeatStack { chips: s.chips + loser.chips, ..*s } } else { *s })
            .collect();
        self.report(t, &format!("h{hand}-end"), Report::HandFinished { hand, stacks: after.clone(), busts: vec![report] }).await;
        after
    }

    /// `t`'s books, once the payouts service has read every commit of `t` stored so far.
    pub async fn books(&self, t: TournamentId) -> floor_events::payouts::Books {
        self.read_by(subjects::service::PAYOUTS, t, u64::MAX).await;
        match self.request(subjects::service::PAYOUTS, "books", &floor_events::payouts::BooksRequest { tournament_id: t }).await {
            Reply::Ok(v) => serde_json::from_value(v).expect("books"),
            Reply::Error(e) => panic!("books refused: {e:?}"),
        }
    }

    /// Publishes `report` from table 1 of `t` with `id` as its report id, as a table server would.
    pub async fn report(&self, t: TournamentId, id: &str, report: Report) {
        let body = serde_json::to_vec(&TableReport { tournament_id: t, table: 1, report_id: id.into(), report }).expect("report");
        let id = floor_events::table::report_message_id(t, 1, id);
        let message = jetstream::message::PublishMessage::build().payload(body.into()).message_id(id);
        self.jetstream().send_publish(floor_events::table::reports_subject(t, 1), message).await.expect("publish").await.expect("ack");
    }
    /// The JetStream context of the test client.
    pub fn jetstream(&self) -> &jetstream::Context {
        &self.backbone.jetstream
    }
}

/// A tournament's clock commits, each with the instant it was received.
pub struct ClockWatch {
    commits: floor_runtime::follow::Following,
}

impl ClockWatch {
    /// Waits for the next clock event that satisfies `wanted`; returns it with when it arrived.
    pub async fn next_where(&mut self, wanted: impl Fn(&ClockEvent) -> bool) -> (ClockEvent, chrono::DateTime<chrono::Utc>) {
        let wait = async {
            while let Some(message) = self.commits.next().await {
                let received = chrono::Utc::now();
                let message = message.expect("clock commit readable");
                let events: Vec<ClockEvent> = floor_events::record::decode_commit(&message.payload).expect("clock commit");
                if let Some(event) = events.into_iter().find(|e| wanted(e)) {
                    return (event, received);
                }
            }
            panic!("clock subscription ended");
        };
        tokio::time::timeout(DEADLINE, wait).await.expect("clock event in time")
    }
}

/// Hand `hand` finished heads-up: `winner` took every chip of `loser`, who is out.
pub fn busts(hand: u64, winner: SeatStack, loser: SeatStack) -> Report {
    let bust = BustReport {
        entry: loser.entry,
        stack_at_start: loser.chips,
        pots: vec![PotWon { winners: vec![winner.entry], chips: loser.chips }],
        best_high_hand: None,
    };
    let after = vec![SeatStack { chips: winner.chips + loser.chips, ..winner }];
    Report::HandFinished { hand, stacks: after, busts: vec![bust] }
}

/// The code of a refusal; panics on an answer.
#[track_caller]
pub fn refusal_code(reply: &Reply<Value>) -> &str {
    match reply {
        Reply::Error(e) => &e.code,
        Reply::Ok(v) => panic!("expected a refusal, got {v}"),
    }
}

/// The events a service's reply recorded (`{"events": [...]}`); panics on a refusal.
#[track_caller]
pub fn recorded<E: serde::de::DeserializeOwned>(reply: Reply<Value>) -> Vec<E> {
    match reply {
        Reply::Ok(v) => serde_json::from_value(v["events"].clone()).expect("the reply's events"),
        Reply::Error(e) => panic!("refused: {e:?}"),
    }
}

/// A blind level of `seconds`, no ante.
pub fn level(small_blind: u64, big_blind: u64, seconds: u32) -> Step {
    Step::Level(Level { small_blind, big_blind, ante: 0, big_blind_ante: false, seconds })
}

/// Two ten-minute levels (100/200, 200/400): a clock that does not move during a test.
pub fn ten_minute_levels() -> Vec<Step> {
    vec![level(100, 200, 600), level(200, 400, 600)]
}

/// A two-seat sit & go with its own structure: it starts, and its clock with it, when the
/// second player registers.
pub fn heads_up(steps: Vec<Step>) -> TournamentDefinition {
    let structure = Structure { steps, late_registration_levels: None, rebuys_until_break: None, push_hold_seconds: 0 };
    TournamentDefinition {
        start: Start::SitAndGo,
        capacity: 2,
        min_players: 2,
        guarantee: None,
        structure: Some(BlindStructure::Custom(structure)),
        ..freezeout(2)
    }
}

/// A four-seat sit & go at one table, EUR 10 + 1 (minor units: 1,000 + 100), no guarantee,
/// one level of an hour (the clock runs from the start); only a director starts hand-for-hand,
/// so no report is held.
pub fn four_handed() -> TournamentDefinition {
    let hand_for_hand =
        floor_events::bubble::HandForHandSettings { trigger: Some(floor_events::bubble::Trigger::Director), ..Default::default() };
    TournamentDefinition { capacity: 4, min_players: 4, hand_for_hand: Some(hand_for_hand), ..heads_up(vec![level(50, 100, 3_600)]) }
}

/// A scheduled freezeout starting tomorrow, EUR 10 + 1, room for `capacity`.
pub fn freezeout(capacity: u32) -> TournamentDefinition {
    let start = chrono::Utc::now() + chrono::Duration::days(1);
    TournamentDefinition {
        name: "E2E Freezeout".into(),
        start: Start::At(start),
        buy_in: Money::new(1_000, Currency::EUR),
        fee: Fee::OnTop(Money::new(100, Currency::EUR)),
        capacity,
        guarantee: Some(Money::new(100_000, Currency::EUR)),
        ..TournamentDefinition::example()
    }
}

/// A plain HTTP/1.1 GET (no client library needed for a test): status code and body.
pub async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect to the lobby");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = String::new();
    tokio::time::timeout(DEADLINE, stream.read_to_string(&mut response)).await.expect("response in time").expect("read");
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status line");
    let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

/// A plain HTTP/1.1 request with any method and a raw (already percent-encoded) path: status
/// code, `Content-Type` (empty when absent) and body.
pub async fn http_request(addr: SocketAddr, method: &str, path: &str) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect to the lobby");
    let request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    tokio::time::timeout(DEADLINE, stream.read_to_end(&mut response)).await.expect("response in time").expect("read");
    let response = String::from_utf8(response).expect("a UTF-8 response");
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status line");
    let content_type = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-type"))
        .map(|(_, value)| value.trim().to_owned())
        .unwrap_or_default();
    (status, content_type, body.to_owned())
}

/// Replaces the section of a benchmarks document between `<!-- name -->` and `<!-- /name -->`
/// with `body`, keeping everything else; appends `heading` and the section when it is missing.
/// Each bench binary owns one section, so `make bench` can run them all into one file.
pub fn write_bench_section(path: &str, name: &str, heading: &str, body: &str) -> std::io::Result<()> {
    let (begin, end) = (format!("<!-- {name} -->"), format!("<!-- /{name} -->"));
    let section = format!("{begin}\n{body}{end}");
    let doc = std::fs::read_to_string(path).unwrap_or_default();
    let doc = match (doc.find(&begin), doc.find(&end)) {
        (Some(a), Some(b)) if a < b => format!("{}{section}{}", &doc[..a], &doc[b + end.len()..]),
        _ => format!("{doc}\n{heading}\n\n{section}\n"),
    };
    std::fs::write(path, doc)
}

/// One aggregate's commits of one tournament as they are stored (from the first), decoded as
/// `E`: a test waits on the event it needs instead of sleeping.
pub struct EventWatch<E> {
    /// The commits stored before the watch began, oldest first.
    history: std::collections::VecDeque<bytes::Bytes>,
    commits: floor_runtime::follow::Following,
    seen: std::marker::PhantomData<E>,
}

impl World {
    /// Follows `aggregate`'s subject of `tournament_id` from its first commit.
    pub async fn watch_events<E: serde::de::DeserializeOwned>(&self, aggregate: &str, tournament_id: TournamentId) -> EventWatch<E> {
        let subject = subjects::event_subject(aggregate, tournament_id.0);
        let mut history = std::collections::VecDeque::new();
        let commits = floor_runtime::follow::follow(&self.backbone, vec![subject], |d| history.push_back(d.payload.clone()))
            .await
            .expect("follow the log");
        EventWatch { history, commits, seen: std::marker::PhantomData }
    }
}

impl<E: serde::de::DeserializeOwned> EventWatch<E> {
    /// Waits for the next event `wanted` takes (the deadline fails the test).
    pub async fn next_where(&mut self, wanted: impl Fn(&E) -> bool) -> E {
        let wait = async {
            loop {
                let payload = match self.history.pop_front() {
                    Some(stored) => stored,
                    None => match self.commits.next().await {
                        Some(message) => message.expect("commit readable").payload.clone(),
                        None => panic!("the follow ended"),
                    },
                };
                let events: Vec<E> = floor_events::record::decode_commit(&payload).expect("a commit of the aggregate");
                if let Some(event) = events.into_iter().find(|e| wanted(e)) {
                    return event;
                }
            }
        };
        tokio::time::timeout(DEADLINE, wait).await.expect("the event in time")
    }
}
