//! The policy runner (issue 16): a policy restarted after its snapshot folds only the commits
//! after it, a kill between snapshots loses no order and applies none twice, and a damaged
//! snapshot is a fold from the first commit. A small counting policy stands in for payouts and
//! rebuys; its orders are publishes with a message id derived from their cause, so the store
//! takes each once, as an aggregate takes a reaction once.

use floor_runtime::bootstrap::Backbone;
use floor_runtime::policy::{Policy, PolicyConfig, PolicyRunner, Stored};
use floor_runtime::snapshot;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

const NAME: &str = "test-tally";

/// Counts commits per subject; every commit calls for one order (its sequence).
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Tally {
    by_subject: BTreeMap<String, u64>,
    last: u64,
}

impl Policy for Tally {
    type Order = u64;

    fn react(&mut self, commit: Stored<'_>) -> Vec<u64> {
        *self.by_subject.entry(commit.subject.to_owned()).or_default() += 1;
        self.last = commit.sequence;
        vec![commit.sequence]
    }
}

fn config(version: &'static str, every: u64) -> PolicyConfig {
    PolicyConfig::new(NAME, version, vec![floor_events::subjects::event_filter("tally")]).snapshot_every(every, Duration::from_secs(3600))
}

/// Stores `n` commits on two tally subjects.
async fn commit(backbone: &Backbone, n: usize) {
    let subjects = [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()].map(|id| floor_events::subjects::event_subject("tally", id));
    for i in 0..n {
        let ack = backbone.jetstream.publish(subjects[i % 2].clone(), r#"[{"v":1,"type":"counted"}]"#.into()).await.expect("publish");
        ack.await.expect("stored");
    }
}

/// Runs an order: a publish whose message id is derived from its cause (the store keeps one).
async fn execute(backbone: &Backbone, order: u64) {
    let message = async_nats::jetstream::message::PublishMessage::build().payload("done".into()).message_id(format!("tally-order-{order}"));
    backbone.jetstream.send_publish("floor.ev.tallied.orders", message).await.expect("publish").await.expect("stored");
}

/// The orders the store holds (each message once: duplicates are refused by message id).
async fn executed_in_store(backbone: &Backbone) -> u64 {
    use async_nats::jetstream::consumer::pull::OrderedConfig;
    // A consumer created now counts from the store itself.
    let config = OrderedConfig { filter_subject: "floor.ev.tallied.orders".into(), ..Default::default() };
    let mut consumer = backbone.events.create_consumer(config).await.expect("consumer");
    consumer.info().await.expect("info").num_pending
}

/// Follows `n` commits live, running each one's orders, then telling the runner.
async fn follow_and_execute(backbone: &Backbone, runner: &mut PolicyRunner<Tally>, n: usize) {
    for _ in 0..n {
        let (sequence, orders) = runner.next().await.expect("open").expect("readable");
        for order in orders {
            execute(backbone, order).await;
        }
        runner.executed(sequence);
    }
}

fn memory(runner: &PolicyRunner<Tally>) -> Tally {
    let memory = runner.memory();
    let memory = memory.lock().expect("memory");
    Tally { by_subject: memory.by_subject.clone(), last: memory.last }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_restarted_after_its_snapshot_folds_only_the_commits_after_it() {
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    commit(&backbone, 50).await;
    let started = PolicyRunner::<Tally>::start(&backbone, config("v1", 1_000_000)).await.expect("start");
    assert_eq!((started.snapshot, started.replayed, started.owed.len()), (None, 50, 50), "no snapshot: the whole log");
    let mut runner = started.runner;
    runner.executed(runner.folded());
    runner.snapshot_now().await;
    let snapshot_at = runner.folded();
    drop(runner);

    commit(&backbone, 20).await;
    let restarted = PolicyRunner::<Tally>::start(&backbone, config("v1", 1_000_000)).await.expect("restart");
    assert_eq!(restarted.snapshot, Some(snapshot_at), "the snapshot is read");
    assert_eq!(restarted.replayed, 20, "only the commits after the snapshot are folded");
    assert_eq!(restarted.owed.len(), 20, "only their orders are run again");

    let from_zero = PolicyRunner::<Tally>::start(&backbone, config("v2-none-stored", 1_000_000)).await.expect("from zero");
    assert_eq!(from_zero.replayed, 70);
    assert_eq!(memory(&restarted.runner), memory(&from_zero.runner), "snapshot + tail equals a fold from zero");
    assert_eq!(memory(&restarted.runner).by_subject.values().sum::<u64>(), 70);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_killed_between_snapshots_loses_no_order_and_applies_none_twice() {
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    commit(&backbone, 30).await;
    // A snapshot every 7 commits, so the kill falls between two.
    let started = PolicyRunner::<Tally>::start(&backbone, config("v1", 7)).await.expect("start");
    let mut runner = started.runner;
    for order in started.owed {
        execute(&backbone, order).await;
    }
    runner.executed(runner.folded());
    runner.stored().await;

    commit(&backbone, 30).await;
    follow_and_execute(&backbone, &mut runner, 20).await;
    // Ten more folded, their orders never run: the process dies here, nothing stored on the way out.
    let mut unexecuted = BTreeSet::new();
    for _ in 0..10 {
        let (sequence, orders) = runner.next().await.expect("open").expect("readable");
        assert_eq!(orders, vec![sequence]);
        unexecuted.insert(sequence);
    }
    let last_executed = runner.folded() - 10;
    runner.stored().await;
    drop(runner);

    let restarted = PolicyRunner::<Tally>::start(&backbone, config("v1", 7)).await.expect("restart");
    let snapshot = restarted.snapshot.expect("a snapshot was stored on the way");
    assert!(snapshot <= last_executed, "a snapshot never passes an order not yet run ({snapshot} > {last_executed})");
    let owed: BTreeSet<u64> = restarted.owed.iter().copied().collect();
    assert!(unexecuted.is_subset(&owed), "every order not run before the kill is owed again: {unexecuted:?} not in {owed:?}");
    assert!(owed.iter().all(|&o| o > snapshot), "nothing before the snapshot is run again");
    for order in restarted.owed {
        execute(&backbone, order).await;
    }
    assert_eq!(executed_in_store(&backbone).await, 60, "each commit's order is stored exactly once");
    assert_eq!(memory(&restarted.runner).by_subject.values().sum::<u64>(), 60, "and each commit is folded once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_policy_snapshot_is_a_fold_from_the_first_commit() {
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    commit(&backbone, 25).await;
    let bucket = backbone.jetstream.get_object_store(floor_events::subjects::SNAPSHOT_BUCKET).await.expect("bucket");
    snapshot::store(&bucket, &format!("policy.{NAME}.v1"), b"{\"version\":\"v1\",\"sequence\":20,\"state\":{\"by_subj")
        .await
        .expect("stored");

    let started = PolicyRunner::<Tally>::start(&backbone, config("v1", 1_000_000)).await.expect("a damaged snapshot is no reason to stop");
    assert_eq!((started.snapshot, started.replayed, started.owed.len()), (None, 25, 25), "folded from the first commit");
    assert_eq!(memory(&started.runner).by_subject.values().sum::<u64>(), 25);
    let record = backbone.health.of(NAME).expect("the reader has a health record");
    assert_eq!(record.unreadable_snapshots, 1, "the unreadable snapshot is counted: {record:?}");
    assert_eq!(record.poison_commits, 0, "and is not poison");
}

/// An endpoint answering from a policy's memory waits for the memory to have read what was
/// stored before the question (`floor_runtime::folded`): a tournament with no registration log
/// is unknown; a commit stored but not yet folded makes the answer wait, and `unavailable` when
/// the memory does not catch up in time (never an answer from the older memory); once folded,
/// the same question is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_from_a_policy_memory_waits_until_it_has_read_the_log_as_it_stood() {
    use floor_events::{codes, subjects, TournamentId};
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    let filters = [subjects::aggregate::TOURNAMENT, subjects::aggregate::SEATING].map(subjects::event_filter).to_vec();
    let started = PolicyRunner::<Tally>::start(&backbone, PolicyConfig::new("test-folded", "v1", filters)).await.expect("start");
    let mut runner = started.runner;
    let folded = runner.reads();
    let t = TournamentId::new();
    let unknown = folded.caught_up(t, &[]).await.expect_err("no log");
    assert_eq!(unknown.code, codes::UNKNOWN_TOURNAMENT, "{unknown:?}");

    let subject = subjects::event_subject(subjects::aggregate::TOURNAMENT, t.0);
    let ack = backbone.jetstream.publish(subject, r#"[{"v":1,"type":"counted"}]"#.into()).await.expect("publish");
    let stored = ack.await.expect("stored").sequence;
    // Not folded yet (nobody called `next`): the answer waits, then says so.
    let behind = folded.caught_up(t, &[subjects::aggregate::SEATING]).await.expect_err("the memory is behind");
    assert_eq!(behind.code, codes::UNAVAILABLE, "{behind:?}");
    assert!(behind.message.contains(&format!("needs {stored}")) && behind.message.contains("test-folded"), "{behind:?}");
    assert!(folded.at() < stored);

    let (sequence, _) = runner.next().await.expect("open").expect("readable");
    assert_eq!(sequence, stored);
    folded.caught_up(t, &[subjects::aggregate::SEATING]).await.expect("caught up once folded");
    assert_eq!(folded.at(), stored);
    // A commit no reader can apply, last in the log: read (skipped, nothing ordered), so the
    // question that needs it is answered (the abort service's way out of a poisoned
    // tournament waited for it for good).
    let ack = backbone.jetstream.publish(subjects::event_subject(subjects::aggregate::TOURNAMENT, t.0), "not json".into()).await;
    let poison = ack.expect("publish").await.expect("stored").sequence;
    let (sequence, orders) = runner.next().await.expect("open").expect("readable");
    assert_eq!((sequence, orders.len()), (poison, 0), "the poison is read, nothing ordered");
    folded.caught_up(t, &[subjects::aggregate::SEATING]).await.expect("caught up past the poison");
    // A log the policy does not read would never be caught up with: named, not waited for.
    let unread = folded.caught_up(t, &[subjects::aggregate::PAYOUTS]).await.expect_err("not read");
    assert!(unread.message.contains("does not read floor.ev.payouts."), "{unread:?}");
}
