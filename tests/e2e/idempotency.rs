//! Issue 17, reproduction 5: a command id is bound to the request it was first stored for. The
//! same id with other content (another player, another verb) is refused as `command_id_reused`
//! and writes nothing; the same request again, even reordered, after a restart or from a
//! second instance, is answered with its first result; derived commands (no request) and
//! commits from before digests are answered as duplicates, as they always were.

use crate::esrs_store::{Counted, Tally};
use floor_events::registration::{verbs, Unregister};
use floor_events::{codes, subjects, CommandId, PlayerId, Reply};
use floor_runtime::host::HostErrorKind;
use floor_runtime::store::CommandDigest;
use floor_runtime::{AggregateHost, JetStreamStore};
use floor_tests::{freezeout, World};

#[track_caller]
fn assert_reused(reply: &Reply<serde_json::Value>, case: &str) {
    match reply {
        Reply::Error(e) => assert_eq!(e.code, codes::COMMAND_ID_REUSED, "{case}: {}", e.message),
        Reply::Ok(v) => panic!("{case}: answered as the first command: {v}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_id_reused_for_another_request_is_refused_and_writes_nothing() {
    let mut world = World::start_configured(|c| {
        c.skip("scheduler");
        c.skip("seating");
        c.skip("payouts");
        c.skip("rebuys");
        // It configures every tournament it sees created: an event this test does not count.
        c.skip("bubble");
    })
    .await;
    let tournament = world.create(freezeout(100)).await;
    let id = CommandId::new();
    let first = world.register_as(id, tournament, "alice").await;
    let before = world.last_sequence().await;

    let another_player = world.register_as(id, tournament, "bob").await;
    let another_verb = world
        .send(
            verbs::UNREGISTER.name(),
            &Unregister { command_id: id, tournament_id: tournament, player: PlayerId::parse("alice").unwrap(), entry: None },
        )
        .await;
    let another_tournament = world.register_as(id, world.create(freezeout(100)).await, "alice").await;
    let retried = world.register_as(id, tournament, "alice").await;
    let reordered = world
        .send_raw(
            verbs::REGISTER.name(),
            format!(r#"{{ "player": "alice", "tournament_id": "{tournament}", "command_id": "{id}" }}"#).into_bytes(),
        )
        .await;

    assert!(matches!(&first, Reply::Ok(v) if v["entry"] == 1 && v["player"] == "alice"), "{first:?}");
    assert_reused(&another_player, "register for another player");
    assert_reused(&another_verb, "unregister with a register's id");
    assert_reused(&another_tournament, "register into another tournament");
    assert_eq!(retried, first, "an honest retry gets the first answer");
    assert_eq!(reordered, first, "key order and spacing are not content");
    let after = world.last_sequence().await;
    assert_eq!(after, before + 1, "only the second tournament's creation was stored");
    let entries = world.commits(tournament).await.into_iter().flat_map(|c| c.events).count();
    assert_eq!(entries, 2, "created and alice's entry, nothing else");

    // A restarted service knows the digest from the commit's header, not from memory.
    world.restart_platform().await;
    assert_reused(&world.register_as(id, tournament, "bob").await, "after a restart");
    assert_eq!(world.register_as(id, tournament, "alice").await, first, "an honest retry after a restart");
}

fn tally_subject(id: uuid::Uuid) -> String {
    subjects::event_subject(<Tally as esrs::Aggregate>::NAME, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_binds_ids_to_requests_but_not_derived_commands_or_old_commits() {
    let (_nats, backbone) = floor_tests::backbone_alone().await;
    let store = JetStreamStore::new(&backbone);
    let (here, elsewhere) = (AggregateHost::<Tally>::new(store.clone()), AggregateHost::<Tally>::new(store.clone()));
    let aggregate = uuid::Uuid::new_v4();
    let request = |chips: u64| Some(CommandDigest::of_request("tally", "add", format!(r#"{{"chips":{chips}}}"#).as_bytes()));
    let (asked, derived, old) = (CommandId::new(), CommandId::new(), CommandId::new());

    // A request's commit, asked again with the same and with other content, here and by a second
    // instance that learns of the id only through a conflict.
    let first = here.execute_for(aggregate, asked, request(2), 2).await.expect("stored").expect("accepted");
    elsewhere.execute_for(aggregate, CommandId::new(), None, 1).await.expect("stored").expect("accepted");
    let same = here.execute_for(aggregate, asked, request(2), 2).await.expect("stored").expect("accepted");
    let other = here.execute_for(aggregate, asked, request(5), 5).await.expect_err("another request");
    let other_elsewhere =
        AggregateHost::<Tally>::new(store.clone()).execute_for(aggregate, asked, request(5), 5).await.expect_err("loaded");
    // A derived command (no digest) stored, then repeated with and without one.
    here.execute_for(aggregate, derived, None, 7).await.expect("stored").expect("accepted");
    let derived_again = here.execute_for(aggregate, derived, None, 7).await.expect("stored").expect("accepted");
    let derived_asked = here.execute_for(aggregate, derived, request(9), 9).await.expect("stored").expect("accepted");
    // A commit stored before digests were: no header.
    let last = store.last_sequence(&tally_subject(aggregate)).await.expect("last");
    store.append(&tally_subject(aggregate), old, last, &[Counted::Added { chips: 11 }]).await.expect("appended");
    let old_again =
        AggregateHost::<Tally>::new(store.clone()).execute_for(aggregate, old, request(3), 3).await.expect("stored").expect("ok");
    // Inside a request, `execute` (the signature every service calls) binds the id on its own.
    let served = CommandId::new();
    let within = |chips: u64, verb: &'static str| {
        let host = here.clone();
        floor_runtime::host::serving_request("tally", verb, format!(r#"{{"chips":{chips}}}"#).into(), async move {
            host.execute(aggregate, served, chips).await
        })
    };
    within(4, "add").await.expect("stored").expect("accepted");
    let within_again = within(4, "add").await.expect("stored").expect("accepted");
    let within_other_verb = within(4, "remove").await.expect_err("another verb");

    assert_eq!((first.duplicate, same.duplicate, same.sequence, same.events.clone()), (false, true, first.sequence, first.events));
    assert_eq!(other.kind(), HostErrorKind::CommandIdReused);
    assert_eq!(other_elsewhere.kind(), HostErrorKind::CommandIdReused);
    assert!(derived_again.duplicate && derived_asked.duplicate, "no digest stored: answered as before");
    assert!(old_again.duplicate && old_again.events == vec![Counted::Added { chips: 11 }], "an old commit: answered as before");
    assert!(within_again.duplicate);
    assert_eq!(within_other_verb.kind(), HostErrorKind::CommandIdReused);
    let log: Vec<floor_runtime::store::StoredCommit<Counted>> = store.load(&tally_subject(aggregate), 0).await.expect("log");
    let chips: Vec<u64> = log.iter().flat_map(|c| &c.events).map(|Counted::Added { chips }| *chips).collect();
    assert_eq!(chips, vec![2, 1, 7, 11, 4], "every refusal wrote nothing");
    assert_eq!(log.iter().map(|c| c.digest.is_some()).collect::<Vec<_>>(), vec![true, false, false, false, true]);
}

/// Registration snapshots its tournaments; what a restart reads from one must still answer a
/// retried registration with its entry, refuse its id for another request, and number the next
/// entry after the last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_from_a_registration_snapshot_still_knows_every_command_id() {
    use futures::StreamExt;
    let mut world = World::start_configured(|c| {
        c.skip("scheduler");
        c.skip("seating");
        c.skip("bubble");
        c.registration_snapshot_every = 4;
    })
    .await;
    let snapshots = world.backbone.jetstream.get_object_store(subjects::SNAPSHOT_BUCKET).await.expect("snapshot bucket");
    let mut stored = snapshots.watch().await.expect("watching the snapshots");
    let tournament = world.create(freezeout(100)).await;
    let id = CommandId::new();
    let first = world.register_as(id, tournament, "alice").await;
    for player in ["bob", "carol", "dave", "erin", "frank", "grace"] {
        assert!(matches!(world.register_as(CommandId::new(), tournament, player).await, Reply::Ok(_)), "{player} enters");
    }
    let name = format!(
        "{}.{}",
        floor_registration::domain::SNAPSHOT_VERSION,
        subjects::event_subject(subjects::aggregate::TOURNAMENT, tournament.0)
    );
    // Eight commits, one snapshot every four: wait for the second (it holds all seven entries).
    let second = async {
        let mut seen = 0;
        while seen < 2 {
            let info = stored.next().await.expect("the watch goes on").expect("an object's info");
            seen += usize::from(info.name == name && !info.deleted);
        }
    };
    // A guard, not a synchronisation: without snapshots the watch would wait for ever.
    tokio::time::timeout(std::time::Duration::from_secs(60), second).await.expect("registration stored two snapshots");

    world.restart_platform().await;
    assert_eq!(world.register_as(id, tournament, "alice").await, first, "an honest retry after a restart");
    assert_reused(&world.register_as(id, tournament, "bob").await, "alice's id for bob after a restart");
    let next = world.register_as(CommandId::new(), tournament, "heidi").await;
    assert!(matches!(&next, Reply::Ok(v) if v["entry"] == 8), "the entries go on from the snapshot: {next:?}");
    let again = world.register_as(CommandId::new(), tournament, "carol").await;
    assert!(matches!(&again, Reply::Error(e) if e.code == codes::ALREADY_REGISTERED), "{again:?}");
}
