//! Poison commits (issue 17): no reader dies of one commit. A commit nobody can decode or apply
//! is recorded in the health view, its aggregate is set aside, and every other tournament goes
//! on being served, also after a restart.

use floor_events::{codes, subjects, Reply};
use floor_runtime::health::{self, ReaderHealth};
use floor_runtime::projection::{Projection, ProjectionError, ProjectionRunner};
use floor_tests::{backbone_alone, freezeout, World};
use futures::StreamExt;
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(20);

/// Writes `body` straight to the stream on `floor.ev.<aggregate>.<id>`, as a broken writer
/// (or a hand-edited store) would, and returns its stream sequence.
async fn poison(jetstream: &async_nats::jetstream::Context, aggregate: &str, id: uuid::Uuid, body: &'static [u8]) -> u64 {
    let subject = subjects::event_subject(aggregate, id);
    jetstream.publish(subject, body.into()).await.expect("published").await.expect("stored").sequence
}

/// Waits until reader `reader`'s stored health record satisfies `ready` (`>`: any reader's).
async fn health_when(jetstream: &async_nats::jetstream::Context, reader: &str, ready: impl Fn(&ReaderHealth) -> bool) -> ReaderHealth {
    let bucket = jetstream.get_key_value(subjects::HEALTH_BUCKET).await.expect("health bucket");
    let key = if reader == ">" { ">".to_owned() } else { health::key(reader) };
    let mut watch = bucket.watch_with_history(key).await.expect("watch");
    let wait = async {
        while let Some(entry) = watch.next().await {
            let entry = entry.expect("watch entry");
            if let Ok(record) = serde_json::from_slice::<ReaderHealth>(&entry.value) {
                if ready(&record) {
                    return record;
                }
            }
        }
        panic!("health watch ended");
    };
    tokio::time::timeout(DEADLINE, wait).await.expect("health record reached the expected state in time")
}

/// Undecodable JSON on the tournament, an unknown schema version on the clock, a number no
/// `u64` holds on the seating subject.
const UNDECODABLE: &[u8] = b"{\"v\":1,\"type\":\"entry_registe";
const TOO_NEW: &[u8] = br#"[{"v":99,"type":"clock_started","at":"2030-01-01T00:00:00Z"}]"#;
const OVERFLOWING: &[u8] = br#"[{"v":1,"type":"chips_bought","entry":1,"chips":18446744073709551616}]"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poison_commits_of_one_tournament_leave_every_other_one_running_and_a_restart_works() {
    let mut world = World::start().await;
    let poisoned = world.create(freezeout(100)).await;
    let healthy = world.create(freezeout(100)).await;
    assert!(matches!(world.register(poisoned, "alice").await, Reply::Ok(_)));
    assert!(matches!(world.register(healthy, "alice").await, Reply::Ok(_)));
    let _ = world.lobby_when(poisoned, |d| d["entrants"] == 1).await;

    let js = world.jetstream().clone();
    let tournament_poison = poison(&js, subjects::aggregate::TOURNAMENT, poisoned.0, UNDECODABLE).await;
    poison(&js, subjects::aggregate::CLOCK, poisoned.0, TOO_NEW).await;
    poison(&js, subjects::aggregate::SEATING, poisoned.0, OVERFLOWING).await;

    // The other tournament is served: registrations, and its lobby document follows them.
    for player in ["bob", "carol"] {
        assert!(matches!(world.register(healthy, player).await, Reply::Ok(_)), "{player} registers for the healthy tournament");
    }
    let _ = world.lobby_when(healthy, |d| d["entrants"] == 3).await;

    // The poisoned tournament is set aside: a command gets a clear code and writes nothing.
    match world.register(poisoned, "dave").await {
        Reply::Error(e) => assert_eq!(e.code, codes::AGGREGATE_SET_ASIDE, "{}", e.message),
        Reply::Ok(v) => panic!("a command on a set-aside aggregate was decided: {v}"),
    }
    // (Other services go on writing for the healthy tournament: the poisoned subject is checked.)
    let store = floor_runtime::JetStreamStore::new(&world.backbone);
    let tournament_subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, poisoned.0);
    assert_eq!(store.last_sequence(&tournament_subject).await.unwrap(), tournament_poison, "no event for a set-aside aggregate");

    // The health view counts them: the lobby met the tournament's and the clock's.
    let lobby = health_when(&js, "lobby", |r| r.poison_commits == 2).await;
    assert!(lobby.set_aside.contains(&tournament_subject), "{lobby:?}");
    assert!(lobby.last.iter().any(|p| p.subject == tournament_subject && p.sequence == tournament_poison), "{lobby:?}");
    let seating_subject = subjects::event_subject(subjects::aggregate::SEATING, poisoned.0);
    let reader_of_seating = health_when(&js, ">", |r| r.set_aside.contains(&seating_subject)).await;
    assert!(reader_of_seating.last.iter().any(|p| p.error.contains("overflow")), "{reader_of_seating:?}");
    let everyone = health::stored(&js).await.expect("health readable");
    assert!(everyone.iter().map(|r| r.poison_commits).sum::<u64>() >= 3, "floor status sums them: {everyone:?}");
    let addr = world.platform().http().expect("the lobby serves HTTP");
    let (code, body) = floor_tests::http_get(addr, "/api/health").await;
    assert_eq!(code, 200, "{body}");
    let shown: health::Status = serde_json::from_str(&body).expect("a health status");
    assert!(!shown.healthy && shown.poison_commits >= 3, "the lobby shows the poison too: {shown:?}");

    // A restart reads the whole log again, poison included, and starts.
    world.kill_platform();
    world.restart_platform().await;
    assert!(matches!(world.register(healthy, "erin").await, Reply::Ok(_)), "served after the restart");
    let _ = world.lobby_when(healthy, |d| d["entrants"] == 4).await;
    let lobby = health_when(&js, "lobby", |r| r.poison_commits == 2).await;
    assert!(lobby.set_aside.contains(&tournament_subject), "what was set aside stays aside after a restart");
    match world.register(poisoned, "dave").await {
        Reply::Error(e) => assert_eq!(e.code, codes::AGGREGATE_SET_ASIDE, "{}", e.message),
        Reply::Ok(v) => panic!("a command on a set-aside aggregate was decided after the restart: {v}"),
    }
    let doc = world.lobby_documents().await;
    assert_eq!(doc[&poisoned.to_string()]["entrants"], 1, "the set-aside tournament's document is left as it was");
}

/// A projection that panics on any commit whose body says `boom`, and on a flush while told to.
#[derive(Default)]
struct Fragile {
    folded: Vec<(String, u64)>,
    flush_panics: bool,
}

impl Projection for Fragile {
    fn name(&self) -> &'static str {
        "fragile"
    }

    fn filters(&self) -> Vec<String> {
        vec![subjects::event_filter("fragile")]
    }

    fn apply(&mut self, commit: floor_runtime::commits::Stored<'_>) {
        assert!(!commit.body.windows(4).any(|w| w == b"boom"), "evolve cannot hold this commit");
        self.folded.push((commit.subject.to_owned(), commit.sequence));
    }

    async fn flush(&mut self) -> Result<(), ProjectionError> {
        assert!(!self.flush_panics, "the view cannot be stored");
        Ok(())
    }

    async fn reset(&mut self) -> Result<(), ProjectionError> {
        self.folded.clear();
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_projection_whose_apply_panics_sets_that_aggregate_aside_and_folds_the_others() {
    let (_nats, backbone) = backbone_alone().await;
    let js = backbone.jetstream.clone();
    let (bad, good) = (uuid::Uuid::now_v7(), uuid::Uuid::now_v7());
    let fine: &'static [u8] = br#"[{"v":1,"type":"fine"}]"#;
    poison(&js, "fragile", bad, fine).await;
    let boom = poison(&js, "fragile", bad, br#"[{"v":1,"type":"boom"}]"#).await;
    poison(&js, "fragile", bad, fine).await;
    poison(&js, "fragile", good, fine).await;

    let mut runner = ProjectionRunner::new(&backbone, Fragile::default()).await.expect("runner");
    let checkpoint = runner.catch_up().await.expect("a panicking apply does not stop the runner");
    assert_eq!(checkpoint, backbone.events.clone().info().await.unwrap().state.last_sequence, "caught up past the poison");
    let bad_subject = subjects::event_subject("fragile", bad);
    let good_subject = subjects::event_subject("fragile", good);
    let folded: Vec<&str> = runner.projection().folded.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(folded, [bad_subject.as_str(), good_subject.as_str()], "the bad aggregate's later commit is skipped, the other folded");
    let record = health_when(&js, "fragile", |r| r.poison_commits == 1).await;
    assert_eq!((record.last[0].subject.as_str(), record.last[0].sequence), (bad_subject.as_str(), boom));

    // After a restart past the poison, the set-aside aggregate stays aside.
    poison(&js, "fragile", bad, fine).await;
    poison(&js, "fragile", good, fine).await;
    let mut restarted = ProjectionRunner::new(&backbone, Fragile::default()).await.expect("runner");
    restarted.catch_up().await.expect("caught up");
    let folded: Vec<&str> = restarted.projection().folded.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(folded, [good_subject.as_str()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_flush_is_a_failed_step_not_a_dead_runner() {
    let (_nats, backbone) = backbone_alone().await;
    poison(&backbone.jetstream, "fragile", uuid::Uuid::now_v7(), br#"[{"v":1,"type":"fine"}]"#).await;
    let mut runner = ProjectionRunner::new(&backbone, Fragile { flush_panics: true, ..Fragile::default() }).await.expect("runner");
    let failed = runner.step(DEADLINE).await;
    assert!(failed.is_err(), "the panic is an error of the step");
    assert_eq!(runner.checkpoint(), 1, "the commit was folded; its checkpoint is owed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follow_survives_poison_in_its_catch_up_and_after() {
    let (_nats, backbone) = backbone_alone().await;
    let js = backbone.jetstream.clone();
    let (bad, good) = (uuid::Uuid::now_v7(), uuid::Uuid::now_v7());
    let fine: &'static [u8] = br#"[{"v":1,"type":"fine"}]"#;
    poison(&js, "fragile", bad, UNDECODABLE).await;
    poison(&js, "fragile", good, br#"[{"v":1,"type":"boom"}]"#).await;
    let third = uuid::Uuid::now_v7();
    poison(&js, "fragile", third, fine).await;
    let mut seen = Vec::new();
    let mut following = floor_runtime::follow::follow(&backbone, vec![subjects::event_filter("fragile")], |m| {
        assert!(!m.payload.windows(4).any(|w| w == b"boom"), "evolve cannot hold this commit");
        seen.push(m.subject.to_string());
    })
    .await
    .expect("a follow starts whatever the log holds");
    assert_eq!(seen, [subjects::event_subject("fragile", third)]);

    // Live: poison and set-aside subjects are not handed out; the next good commit is.
    poison(&js, "fragile", third, TOO_NEW).await;
    poison(&js, "fragile", bad, fine).await;
    let last = poison(&js, "fragile", good, fine).await;
    let other = uuid::Uuid::now_v7();
    let expected = poison(&js, "fragile", other, fine).await;
    let next = tokio::time::timeout(DEADLINE, following.next()).await.expect("in time").expect("open").expect("readable");
    assert_eq!(next.subject.as_str(), subjects::event_subject("fragile", other), "sequence {last} skipped");
    assert_eq!(next.info().unwrap().stream_sequence, expected);
    let record = following.reader().health_record().expect("recorded");
    assert_eq!(record.poison_commits, 3, "{record:?}");
}

/// A counter whose `apply_event` cannot hold a step past 3: the decider bug of an aggregate that
/// accepts what its evolve cannot hold.
struct Counter;

#[derive(Debug)]
struct NoRejection;

impl std::fmt::Display for NoRejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}
impl std::error::Error for NoRejection {}
impl floor_runtime::DomainError for NoRejection {
    fn code(&self) -> &'static str {
        "never"
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Stepped {
    Stepped { by: u8 },
}

impl esrs::Aggregate for Counter {
    const NAME: &'static str = "counter";
    type State = u8;
    type Command = u8;
    type Event = Stepped;
    type Error = NoRejection;

    fn handle_command(_: &u8, by: u8) -> Result<Vec<Stepped>, NoRejection> {
        Ok(vec![Stepped::Stepped { by }])
    }

    fn apply_event(count: u8, Stepped::Stepped { by }: Stepped) -> u8 {
        assert!(by <= 3, "a step this large overflows the counter");
        count + by
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aggregate_whose_apply_event_panics_while_loading_is_set_aside_and_the_others_served() {
    use floor_events::CommandId;
    use floor_runtime::host::{AggregateHost, HostErrorKind};
    use floor_runtime::JetStreamStore;
    let (_nats, backbone) = backbone_alone().await;
    let store = JetStreamStore::new(&backbone);
    let (bad, good) = (uuid::Uuid::now_v7(), uuid::Uuid::now_v7());
    // Stored by another writer (or an older build): the step this build's evolve cannot hold.
    store.append(&subjects::event_subject("counter", bad), CommandId::new(), 0, &[Stepped::Stepped { by: 200 }]).await.expect("stored");

    let host = AggregateHost::<Counter>::new(store);
    let outcome = host.execute(bad, CommandId::new(), 1).await;
    assert_eq!(outcome.expect_err("not decided").kind(), HostErrorKind::SetAside);
    let reply = floor_runtime::reply(host.execute(bad, CommandId::new(), 1).await, |_| ());
    match reply {
        Reply::Error(e) => assert_eq!(e.code, codes::AGGREGATE_SET_ASIDE),
        Reply::Ok(()) => panic!("a set-aside aggregate decided a command"),
    }
    assert!(matches!(host.execute(good, CommandId::new(), 1).await, Ok(Ok(_))), "every other aggregate is served");
    assert_eq!(backbone.events.clone().info().await.unwrap().state.messages, 2, "nothing stored for the set-aside aggregate");
}

/// Issue 34: a tournament in play whose log holds a commit no reader can apply (8 bytes of
/// non-JSON, once published by a stranger) answered `aggregate_set_aside` to every command,
/// the director's cancel included, for good. The way out is the abort service's cancel: its
/// own aggregate is not the one set aside, so it cancels from what is known (every commit
/// before the poison), pays by the profile's rule, the tables close and the books reconcile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_in_play_set_aside_by_a_poison_commit_can_still_be_cancelled_and_paid() {
    use floor_events::abort::statement::Method;
    use floor_events::abort::Cancel;
    use floor_events::payouts::{Books, BooksRequest};
    let world = World::start().await;
    let t = world.create(floor_tests::four_handed()).await;
    for p in ["ann", "bob", "cat", "dan"] {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    world.seated(t, 4).await;
    let js = world.jetstream().clone();
    poison(&js, subjects::aggregate::TOURNAMENT, t.0, b"not json").await;
    let _ = health_when(&js, ">", |r| r.set_aside.iter().any(|s| s.ends_with(&t.to_string()))).await;

    let cancel = Cancel {
        command_id: floor_events::CommandId::new(),
        tournament_id: t,
        reason: "a commit no reader can apply (director: Ana)".into(),
        method: Method::default(),
        cause: None,
    };
    let reply = world.request_once_read(subjects::service::ABORT, "cancel", &cancel, codes::SNAPSHOT_UNAVAILABLE).await;
    assert!(matches!(reply, Reply::Ok(_)), "the abort service cancels from what is known: {reply:?}");
    let doc = world.lobby_when(t, |d| d["state"] == "cancelled").await;
    assert!(doc["play"].to_string().contains("a commit no reader can apply"), "{doc}");
    let books = world.request(subjects::service::PAYOUTS, "books", &BooksRequest { tournament_id: t }).await;
    let Reply::Ok(books) = books else { panic!("{books:?}") };
    let books: Books = serde_json::from_value(books).expect("books");
    assert!(books.balanced && books.held == 0, "every cent in went out: {books:?}");
}

/// Issue 34: before the start, registration cancels a tournament (every entry refunded); but a
/// tournament whose registration log holds a commit no reader can apply answers
/// `aggregate_set_aside` to registration's cancel. The way out is the abort service's cancel:
/// its policy set the same log aside, so it cancels from what the log recorded before the
/// poison, every entry gets back exactly what it paid (no guarantee applies before the start),
/// the reason is recorded, and the books reconcile. A tournament not started whose log is sound
/// is still registration's to cancel: the abort service refuses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_not_started_set_aside_by_a_poison_commit_can_still_be_cancelled_and_refunded() {
    use floor_events::abort::statement::{Case, Method, Rule};
    use floor_events::abort::{AbortEvent, Cancel, Statements};
    use floor_events::payouts::{Books, BooksRequest};
    use floor_events::registration::{verbs, CancelTournament};
    let world = World::start().await;
    let sound = world.create(freezeout(10)).await;
    let t = world.create(freezeout(10)).await;
    for p in ["ann", "bob", "cat"] {
        assert!(matches!(world.register(t, p).await, Reply::Ok(_)), "{p} registers");
    }
    let js = world.jetstream().clone();
    poison(&js, subjects::aggregate::TOURNAMENT, t.0, b"not json").await;
    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, t.0);
    let _ = health_when(&js, "abort-policy", |r| r.set_aside.contains(&subject)).await;

    let by_registration = CancelTournament { command_id: floor_events::CommandId::new(), tournament_id: t, reason: "poisoned".into() };
    let reply = world.request(verbs::CANCEL_TOURNAMENT.service(), verbs::CANCEL_TOURNAMENT.name(), &by_registration).await;
    assert!(matches!(&reply, Reply::Error(e) if e.code == codes::AGGREGATE_SET_ASIDE), "registration cannot: {reply:?}");

    let cancel = |tournament_id| Cancel {
        command_id: floor_events::CommandId::new(),
        tournament_id,
        reason: "a commit no reader can apply (director: Ana)".into(),
        method: Method::default(),
        cause: None,
    };
    let refused = world.request(subjects::service::ABORT, "cancel", &cancel(sound)).await;
    assert!(matches!(&refused, Reply::Error(e) if e.code == codes::TOURNAMENT_NOT_STARTED), "a sound log is registration's: {refused:?}");

    let reply = world.request(subjects::service::ABORT, "cancel", &cancel(t)).await;
    let Reply::Ok(recorded) = reply else { panic!("the abort service cancels from what is known: {reply:?}") };
    let events: Vec<AbortEvent> = serde_json::from_value(recorded["events"].clone()).expect("events");
    let [AbortEvent::Cancelled { cancellation, reason, .. }] = events.as_slice() else { panic!("{events:?}") };
    assert_eq!((cancellation.case, reason.as_str()), (Case::BeforeStart, "a commit no reader can apply (director: Ana)"));
    assert_eq!((cancellation.books.paid_in, cancellation.books.statements, cancellation.books.overlay), (3_300, 3_300, 0));

    let statements = world.request(subjects::service::ABORT, "statement", &serde_json::json!({ "tournament_id": t })).await;
    let Reply::Ok(statements) = statements else { panic!("{statements:?}") };
    let statements: Statements = serde_json::from_value(statements).expect("statements");
    let paid: Vec<(String, u64)> = statements.statements.iter().map(|s| (s.player.to_string(), s.total)).collect();
    assert_eq!(paid, [("ann".to_owned(), 1_100), ("bob".to_owned(), 1_100), ("cat".to_owned(), 1_100)], "each gets back what it paid");
    assert!(statements.statements.iter().flat_map(|s| &s.lines).all(|l| l.rule == Rule::FloorBeforeStart));

    let doc = world.lobby_when(t, |d| d["state"] == "cancelled").await;
    assert!(doc.to_string().contains("a commit no reader can apply"), "{doc}");
    let books = world.request(subjects::service::PAYOUTS, "books", &BooksRequest { tournament_id: t }).await;
    let Reply::Ok(books) = books else { panic!("{books:?}") };
    let books: Books = serde_json::from_value(books).expect("books");
    assert!(books.balanced && books.held == 0, "every cent in went out: {books:?}");
}
