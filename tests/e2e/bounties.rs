//! Bounties end to end (issue 21): `floor sim --format pko` and `--format mystery` play to the
//! end with the bounty pool in the books and paid out to the cent; the bounties service killed
//! mid-tournament and started again pays every bounty exactly once.

use floor::sim::{self, BountySummary, SimConfig, Summary};
use floor::startup::{Nats, PlatformConfig};
use floor_events::bounties::BountyEvent;
use floor_events::{subjects, TournamentId};
use floor_runtime::JetStreamStore;
use floor_tests::{RunningPlatform, World, DEADLINE};
use std::time::Duration;

const KEY: [u8; 32] = [42; 32];

fn config(entrants: u32, seed: u64, t: TournamentId, kind: &str) -> SimConfig {
    SimConfig { bounty: sim::bounty_terms(kind), ..SimConfig::new(entrants, seed, t) }
}

async fn play(world: &World, config: &SimConfig) -> Summary {
    sim::run(&world.backbone, config, |_| {}).await.unwrap_or_else(|e| panic!("bounty sim: {e}"))
}

/// The bounties log of `t`, event by event.
async fn bounty_log(world: &World, t: TournamentId) -> Vec<BountyEvent> {
    let subject = subjects::event_subject(subjects::aggregate::BOUNTIES, t.0);
    JetStreamStore::new(&world.backbone)
        .load::<BountyEvent>(&subject, 0)
        .await
        .expect("bounties log")
        .into_iter()
        .flat_map(|c| c.events)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_progressive_knockout_sim_ends_with_the_bounty_pool_paid_out_to_the_cent() {
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some(KEY);
    })
    .await;
    let (entrants, t) = (40, TournamentId(uuid::Uuid::from_u128(0xb0b0)));
    let summary = play(&world, &config(entrants, 3, t, "pko")).await;
    let b = &summary.books;
    assert!(b.finished && b.bounties_settled && b.balanced, "{b:?}");
    // EUR 10 + 1, half of the 10 to the bounty pool.
    assert_eq!((b.paid_in, b.fees, b.contributions, b.bounty_pool), (40 * 1_100, 40 * 100, 40 * 500, 40 * 500), "{b:?}");
    assert_eq!(b.bounties_paid, b.bounty_pool);
    assert_eq!(b.prizes_paid, b.contributions, "the prize pool paid is the one without the bounties");
    let bounties = summary.bounties.as_ref().expect("bounties in the summary");
    assert_eq!((bounties.kind.as_str(), bounties.pool, bounties.paid), ("progressive", b.bounty_pool, b.bounty_pool));
    assert!(bounties.knockouts_paid >= 1 && bounties.winner > 0, "{bounties:?}");
    // Every entry but the winner was knocked out once.
    let log = bounty_log(&world, t).await;
    let knocked: Vec<_> =
        log.iter().filter_map(|e| if let BountyEvent::EntryKnockedOut { entry, .. } = e { Some(*entry) } else { None }).collect();
    let unique: std::collections::BTreeSet<_> = knocked.iter().collect();
    assert_eq!((knocked.len(), unique.len()), (39, 39));

    // The lobby: the prize pool without the bounties, the bounty pool paid out.
    let doc = world.lobby_when(t, |d| d["bounties"]["settled"] == true && d["payouts"]["paid"] == true).await;
    assert_eq!(doc["prize_pool"]["total"]["amount"], b.contributions);
    assert_eq!(doc["bounties"]["pool"]["amount"], b.bounty_pool);
    assert_eq!(doc["bounties"]["paid_so_far"]["amount"], b.bounties_paid);
    assert_eq!(doc["bounties"]["knockouts"], 39);
    assert_eq!(doc["payouts"]["pool"]["amount"], b.contributions, "the table was locked on the prize pool alone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mystery_sim_exhausts_the_pool_and_its_revealed_seed_matches_the_commitment() {
    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some(KEY);
    })
    .await;
    let t = TournamentId(uuid::Uuid::from_u128(0x3e7));
    let summary = play(&world, &config(30, 5, t, "mystery")).await;
    let b = &summary.books;
    assert!(b.finished && b.bounties_settled && b.balanced, "{b:?}");
    assert_eq!((b.bounty_pool, b.bounties_paid), (30 * 500, 30 * 500), "the pool is exhausted: {b:?}");
    let bounties = summary.bounties.as_ref().expect("bounties");
    assert_eq!(bounties.envelopes, 8, "{bounties:?}");
    assert!(bounties.drawn >= 1 && bounties.drawn <= 8, "{bounties:?}");
    assert_eq!(bounties.seed_matches_commitment, Some(true));
    let log = bounty_log(&world, t).await;
    let stage = log.iter().position(|e| matches!(e, BountyEvent::MysteryStageStarted { .. })).expect("the stage started");
    assert!(!log[..stage].iter().any(|e| matches!(e, BountyEvent::BountyPaid { .. })), "no bounty before the stage");
}

/// The bounties service alone, with the test key, against `url`.
async fn bounties_alone(nats: Nats) -> RunningPlatform {
    let config = PlatformConfig { seed_key: Some(KEY), ..PlatformConfig::only(nats, None, &["bounties"]) };
    RunningPlatform::start_config(config).await
}

/// The same tournament twice, on two platforms: once undisturbed, once with the bounties service
/// killed (no goodbye, no snapshot) while eliminations go on, and started again later. Every
/// bounty is paid, once, to the same collectors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bounties_service_killed_and_restarted_mid_tournament_pays_every_bounty_exactly_once() {
    let (entrants, seed, t) = (60, 11, TournamentId(uuid::Uuid::from_u128(0xdeadb0)));
    let undisturbed = {
        let world = World::start_configured(|c| {
            c.skip("scheduler");
            c.seed_key = Some(KEY);
        })
        .await;
        play(&world, &config(entrants, seed, t, "pko")).await
    };

    let world = World::start_configured(|c| {
        c.skip("scheduler");
        c.skip("bounties");
        c.seed_key = Some(KEY);
    })
    .await;
    let bounties = bounties_alone(world.joined()).await;
    let (left_tx, mut left) = tokio::sync::watch::channel(entrants as usize);
    let backbone = world.backbone.clone();
    let cfg = config(entrants, seed, t, "pko");
    let run = tokio::spawn(async move {
        sim::run(&backbone, &cfg, |p| {
            if let sim::Progress::Playing { players_left, .. } = p {
                left_tx.send_replace(*players_left);
            }
        })
        .await
    });
    tokio::time::timeout(DEADLINE, left.wait_for(|&l| l <= 45)).await.expect("play goes on").expect("sim running");
    bounties.kill();
    // Eliminations while it is down: the policy must take them from its checkpoint on.
    tokio::time::timeout(DEADLINE, left.wait_for(|&l| l <= 25)).await.expect("play goes on").expect("sim running");
    let _bounties = bounties_alone(world.joined()).await;
    let disturbed =
        tokio::time::timeout(Duration::from_secs(120), run).await.expect("the sim ends").expect("joined").unwrap_or_else(|e| panic!("{e}"));

    assert_eq!(disturbed.winner, undisturbed.winner, "the same tournament");
    let b = &disturbed.books;
    assert!(b.finished && b.bounties_settled && b.balanced && b.bounties_paid == b.bounty_pool, "{b:?}");
    let (before, after): (&BountySummary, &BountySummary) = (undisturbed.bounties.as_ref().unwrap(), disturbed.bounties.as_ref().unwrap());
    assert_eq!(after.payments_made, before.payments_made, "the same payments, in the same order, none twice");
    assert_eq!((after.paid, after.winner, after.knockouts_paid), (before.paid, before.winner, before.knockouts_paid));
    let log = bounty_log(&world, t).await;
    let knocked: Vec<_> =
        log.iter().filter_map(|e| if let BountyEvent::EntryKnockedOut { entry, .. } = e { Some(*entry) } else { None }).collect();
    assert_eq!(knocked.len(), entrants as usize - 1, "each elimination recorded once");
}
