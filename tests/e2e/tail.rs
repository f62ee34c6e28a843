//! The process's tail of the log (issue 16): follows in one process take live commits from one
//! consumer, and each still sees exactly the commits on its own filters, in order, once, also
//! after falling further behind than the tail keeps.

use floor_runtime::bootstrap::Backbone;
use floor_runtime::follow::{follow, follow_from, Following};
use floor_runtime::tail::CAPACITY;
use futures::future::join_all;

/// Stores `n` commits, alternating between `subjects`; returns their sequences per subject.
async fn store(backbone: &Backbone, subjects: &[String], n: usize) -> Vec<(String, u64)> {
    let mut stored = Vec::with_capacity(n);
    // In rounds: the client holds at most so many publishes waiting for their acks.
    for round in (0..n).collect::<Vec<_>>().chunks(500) {
        let mut acks = Vec::with_capacity(round.len());
        for i in round {
            let subject = subjects[i % subjects.len()].clone();
            let ack = backbone.jetstream.publish(subject.clone(), r#"[{"v":1,"type":"counted"}]"#.into()).await.expect("publish");
            acks.push(async move { (subject, ack.await.expect("stored").sequence) });
        }
        stored.extend(join_all(acks).await);
    }
    stored
}

/// The next `n` commits a follow hands out: subject and sequence.
async fn take(following: &mut Following, n: usize) -> Vec<(String, u64)> {
    let mut seen = Vec::with_capacity(n);
    while seen.len() < n {
        let next = tokio::time::timeout(std::time::Duration::from_secs(30), following.next()).await;
        let message = next.unwrap_or_else(|_| panic!("only {} of {n} commits came", seen.len())).expect("open").expect("readable");
        let sequence = message.info().expect("a stored commit").stream_sequence;
        seen.push((message.subject.to_string(), sequence));
    }
    seen
}

fn subject(aggregate: &str) -> String {
    floor_events::subjects::event_subject(aggregate, uuid::Uuid::new_v4())
}

fn only(stored: &[(String, u64)], subjects: &[&String]) -> Vec<(String, u64)> {
    let mut wanted: Vec<_> = stored.iter().filter(|(s, _)| subjects.contains(&s)).cloned().collect();
    wanted.sort_by_key(|(_, sequence)| *sequence);
    wanted
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follows_in_one_process_each_see_their_own_commits_once_in_order() {
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    let (tally, other) = (subject("tally"), subject("other"));
    let before = store(&backbone, &[tally.clone(), other.clone()], 10).await;
    let mut caught_up = Vec::new();
    let mut tallies = follow(&backbone, vec![floor_events::subjects::event_filter("tally")], |m| caught_up.push(m.subject.to_string()))
        .await
        .expect("follows");
    assert_eq!(caught_up.len(), 5, "the catch-up reads the commits on its filter stored before it");
    let mut everything = follow(&backbone, vec!["floor.ev.>".into()], |_| {}).await.expect("follows");
    // A follow from a sequence (a policy's snapshot) reads nothing before it.
    let from = before[6].1;
    let mut later = follow_from(&backbone, "test-later", vec!["floor.ev.>".into()], from, |_| {}).await.expect("follows");

    let live = store(&backbone, &[tally.clone(), other.clone()], 40).await;
    assert_eq!(take(&mut tallies, 20).await, only(&live, &[&tally]));
    assert_eq!(take(&mut everything, 40).await, only(&live, &[&tally, &other]));
    assert_eq!(take(&mut later, 40).await, only(&live, &[&tally, &other]), "the catch-up's commits are not handed out again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follow_further_behind_than_the_tail_keeps_loses_nothing() {
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    let (tally, other) = (subject("tally"), subject("other"));
    let mut tallies = follow(&backbone, vec![floor_events::subjects::event_filter("tally")], |_| {}).await.expect("follows");
    let mut everything = follow(&backbone, vec!["floor.ev.>".into()], |_| {}).await.expect("follows");
    // Neither takes anything while more commits are stored than the tail keeps for them.
    let n = CAPACITY + 2_000;
    let live = store(&backbone, &[tally.clone(), other.clone()], n).await;
    assert_eq!(take(&mut everything, n).await, only(&live, &[&tally, &other]), "every commit, once, in order");
    let expected = only(&live, &[&tally]);
    assert_eq!(take(&mut tallies, expected.len()).await, expected, "every commit on its filter, once, in order");
    // And both are back on the tail: new commits reach them.
    let more = store(&backbone, std::slice::from_ref(&tally), 3).await;
    assert_eq!(take(&mut tallies, 3).await, more);
    assert_eq!(take(&mut everything, 3).await, more);
}
