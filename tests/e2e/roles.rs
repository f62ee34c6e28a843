//! Issue 34: the roles of Floor's trust boundary against a real nats-server with the
//! `authorization` block Floor writes (`floor_runtime::roles`): each attack of the issue, by the
//! role a stranger could hold, refused by the server, and nothing changes in the log.

use async_nats::jetstream;
use floor_events::subjects;
use floor_runtime::bootstrap;
use floor_runtime::credentials::{Auth, Credentials};
use floor_runtime::roles::{authorization, Role, TableScope, User};
use floor_runtime::server::NatsServer;
use futures::StreamExt;
use std::time::Duration;
use tokio::sync::mpsc;

fn user(role: Role, scope: Option<TableScope>) -> User {
    let name = match &scope {
        Some(s) => format!("table-{}-{}", s.tournament, s.table.map_or("all".to_owned(), |n| n.to_string())),
        None => role.name().to_owned(),
    };
    User { user: name, password: format!("{}-pass-0b5e", role.name()), role, scope }
}

/// A client with a role's credentials that hears the server's permission violations.
struct As {
    client: async_nats::Client,
    jetstream: jetstream::Context,
    violations: mpsc::UnboundedReceiver<String>,
}

impl As {
    async fn connect(url: &str, who: &User) -> Self {
        let (send, violations) = mpsc::unbounded_channel();
        let options = async_nats::ConnectOptions::with_user_and_password(who.user.clone(), who.password.clone())
            .request_timeout(Some(Duration::from_millis(1_500)))
            .event_callback(move |event| {
                let send = send.clone();
                async move {
                    if let async_nats::Event::ServerError(e) = event {
                        let _ = send.send(e.to_string());
                    }
                }
            });
        let client = options.connect(url).await.expect("connects with its credentials");
        let mut jetstream = jetstream::new(client.clone());
        jetstream.set_timeout(Duration::from_millis(1_500));
        Self { client, jetstream, violations }
    }

    /// Waits for the server's permission violation naming `subject`.
    async fn refused(&mut self, subject: &str) {
        let wait = async {
            while let Some(e) = self.violations.recv().await {
                if e.contains("Permissions Violation") && e.contains(subject) {
                    return;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), wait).await.unwrap_or_else(|_| panic!("no permission violation for {subject}"));
    }
}

struct Platform {
    nats: NatsServer,
    backbone: bootstrap::Backbone,
    t: uuid::Uuid,
}

async fn platform(users: &[User]) -> Platform {
    let nats = NatsServer::start_temp_with(&authorization(users)).expect("nats-server starts with the roles");
    let service = &users[0];
    let credentials =
        Credentials { auth: Auth::UserPassword { user: service.user.clone(), password: service.password.clone() }, ..Credentials::none() };
    let client = bootstrap::connect_with(&nats.url(), &credentials).await.expect("the service connects");
    let backbone = bootstrap::ensure_backbone(client).await.expect("the service makes the backbone");
    Platform { nats, backbone, t: uuid::Uuid::now_v7() }
}

async fn last_sequence(backbone: &bootstrap::Backbone) -> u64 {
    backbone.jetstream.get_stream(subjects::EVENTS_STREAM).await.expect("stream").cached_info().state.last_sequence
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stranger_without_credentials_is_not_let_in() {
    let p = platform(&[user(Role::Service, None)]).await;
    let e = bootstrap::connect_with(&p.nats.url(), &Credentials::none()).await.expect_err("refused");
    assert_eq!(e.kind(), bootstrap::BootstrapErrorKind::Unauthorized, "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_director_sends_commands_but_cannot_write_the_log_serve_commands_read_secrets_or_change_the_store() {
    let director = user(Role::Director, None);
    let p = platform(&[user(Role::Service, None), director.clone()]).await;
    let before = last_sequence(&p.backbone).await;
    let mut d = As::connect(&p.nats.url(), &director).await;

    // A director command goes out (no service here: nobody answers, but the server took it).
    let asked = d.client.request("floor.cmd.clock.pause", "{}".into()).await;
    assert!(matches!(&asked, Err(e) if e.kind() == async_nats::RequestErrorKind::NoResponders), "{asked:?}");
    // … but not a verb only services send.
    d.client.publish("floor.cmd.registration.eliminate_entry", "{}".into()).await.expect("sent");
    d.refused("floor.cmd.registration.eliminate_entry").await;

    // Forge an event.
    d.client.publish(format!("floor.ev.tournament.{}", p.t), "[]".into()).await.expect("sent");
    d.refused("floor.ev.tournament").await;
    // Join a service's queue group and answer its commands.
    let _ = d.client.queue_subscribe("floor.cmd.registration.register", "floor-registration".into()).await;
    d.refused("floor.cmd.registration.register").await;
    // Read the seed key.
    let secrets = d.jetstream.get_key_value(subjects::SECRETS_BUCKET).await.expect("its info is visible (floor status)");
    assert!(secrets.get(subjects::SEED_KEY).await.is_err(), "its key is not");
    d.refused("$JS.API.DIRECT.GET.KV_floor-secrets").await;
    // Shrink the log or delete it.
    let mut config = p.backbone.jetstream.get_stream(subjects::EVENTS_STREAM).await.expect("stream").cached_info().config.clone();
    config.max_messages = 10;
    assert!(d.jetstream.update_stream(config).await.is_err());
    d.refused("$JS.API.STREAM.UPDATE.FLOOR_EVENTS").await;
    assert!(d.jetstream.delete_stream(subjects::EVENTS_STREAM).await.is_err());
    d.refused("$JS.API.STREAM.DELETE.FLOOR_EVENTS").await;
    // Overwrite a lobby document.
    d.client.publish(format!("$KV.{}.{}", subjects::LOBBY_BUCKET, p.t), "{}".into()).await.expect("sent");
    d.refused("$KV.floor-lobby").await;

    // Take, or delete, the consumer seating reads the tables' reports with.
    let tables = p.backbone.jetstream.get_stream(subjects::TABLES_STREAM).await.expect("the tables' stream");
    let durable = floor_runtime::roles::FLOOR_TABLE_CONSUMERS[0];
    let config = jetstream::consumer::pull::Config { durable_name: Some(durable.into()), ..Default::default() };
    tables.get_or_create_consumer::<jetstream::consumer::pull::Config>(durable, config).await.expect("the service makes it");
    assert!(d.jetstream.get_stream(subjects::TABLES_STREAM).await.expect("info").delete_consumer(durable).await.is_err());
    d.refused(&format!("$JS.API.CONSUMER.DELETE.FLOOR_TABLES.{durable}")).await;

    // It reads what a director reads: the lobby, and the log and the tables' reports, as
    // `floor status` does to say who waits on whom (it timed out on the reports before).
    let lobby = d.jetstream.get_key_value(subjects::LOBBY_BUCKET).await.expect("the lobby bucket");
    assert!(lobby.get("nothing-here").await.expect("a read").is_none());
    let report = format!("floor.table.{}.1.out", p.t);
    p.backbone.jetstream.publish(report.clone(), "{}".into()).await.expect("sent").await.expect("stored");
    let read = d.jetstream.get_stream(subjects::TABLES_STREAM).await.expect("info").direct_get_last_for_subject(&report).await;
    assert!(read.is_ok(), "a direct get of a report, as floor status makes: {read:?}");

    d.client.flush().await.expect("flush");
    assert_eq!(last_sequence(&p.backbone).await, before, "nothing reached the log");
    let shape = floor_runtime::shape::observe(&p.backbone.jetstream, &floor_runtime::shape::expected()).await.expect("shape");
    assert!(shape.is_empty(), "the store is as Floor made it: {shape:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_reports_for_its_own_tournament_only_and_cannot_touch_floors_consumer() {
    let p0 = uuid::Uuid::now_v7();
    let table = user(Role::Table, Some(TableScope { tournament: p0, table: Some(4) }));
    let mut p = platform(&[user(Role::Service, None), table.clone()]).await;
    p.t = p0;
    let mut tb = As::connect(&p.nats.url(), &table).await;

    // Its own report is stored.
    let ack = tb.jetstream.publish(format!("floor.table.{}.4.out", p.t), "{}".into()).await.expect("published");
    ack.await.expect("stored");
    // Another table's, or another tournament's, is not.
    tb.client.publish(format!("floor.table.{}.5.out", p.t), "{}".into()).await.expect("sent");
    tb.refused(&format!("floor.table.{}.5.out", p.t)).await;
    let other = uuid::Uuid::now_v7();
    tb.client.publish(format!("floor.table.{other}.4.out"), "{}".into()).await.expect("sent");
    tb.refused(&format!("floor.table.{other}.4.out")).await;
    // Nor an event, nor a command.
    tb.client.publish(format!("floor.ev.seating.{}", p.t), "[]".into()).await.expect("sent");
    tb.refused("floor.ev.seating").await;
    tb.client.publish("floor.cmd.payouts.accept_deal", "{}".into()).await.expect("sent");
    tb.refused("floor.cmd.payouts.accept_deal").await;

    // Its durable consumer on its own instructions works.
    let stream = tb.jetstream.get_stream(subjects::TABLES_STREAM).await.expect("the tables stream");
    let mine = jetstream::consumer::pull::Config {
        durable_name: Some("table-4".into()),
        filter_subject: format!("floor.table.{}.4.in", p.t),
        ..Default::default()
    };
    stream.create_consumer(mine).await.expect("its own consumer");
    // One on another tournament's instructions is refused.
    let theirs = jetstream::consumer::pull::Config {
        durable_name: Some("peek".into()),
        filter_subject: format!("floor.table.{other}.4.in"),
        ..Default::default()
    };
    assert!(stream.create_consumer(theirs).await.is_err());
    tb.refused("$JS.API.CONSUMER.CREATE.FLOOR_TABLES.peek").await;
    // Floor's own consumer of every report: not readable, not deletable.
    tb.client.publish("$JS.API.CONSUMER.DELETE.FLOOR_TABLES.seating-reports", "".into()).await.expect("sent");
    tb.refused("$JS.API.CONSUMER.DELETE.FLOOR_TABLES.seating-reports").await;
    // Nor listen to the tables' subjects around the stream.
    let _sub = tb.client.subscribe(format!("floor.table.{}.4.in", p.t)).await.expect("a subscribe call");
    tb.refused(&format!("floor.table.{}.4.in", p.t)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_reader_reads_documents_and_writes_nothing() {
    let reader = user(Role::Reader, None);
    let p = platform(&[user(Role::Service, None), reader.clone()]).await;
    let lobby = p.backbone.jetstream.get_key_value(subjects::LOBBY_BUCKET).await.expect("lobby");
    lobby.put(p.t.to_string(), "{\"name\":\"Sunday\"}".into()).await.expect("the service writes");
    let mut r = As::connect(&p.nats.url(), &reader).await;
    let bucket = r.jetstream.get_key_value(subjects::LOBBY_BUCKET).await.expect("the reader sees the lobby");
    let doc = bucket.get(p.t.to_string()).await.expect("a read").expect("the document");
    assert_eq!(&doc[..], b"{\"name\":\"Sunday\"}");
    let mut watch = bucket.watch_with_history(p.t.to_string()).await.expect("a watch");
    assert!(watch.next().await.is_some(), "the watch hands the document");
    r.client.publish(format!("$KV.{}.{}", subjects::LOBBY_BUCKET, p.t), "{}".into()).await.expect("sent");
    r.refused("$KV.floor-lobby").await;
    assert!(r.jetstream.get_key_value(subjects::HEALTH_BUCKET).await.is_err(), "nothing else is visible");
}
