//! `floor sim` through the bubble (issue 20): every sim plays hand-for-hand near the money, in
//! lockstep rounds and at the tables' own pace (`--free`), and the logs show the barrier held.
//!
//! Checked from the seating log (what the tables were told and what they did, in the order
//! Floor took it) and the bubble's log (which table hand was which hand-for-hand hand), from
//! the first `deal_hand` to the burst:
//! - every table told `deal_hand {hand: k}` deals exactly one hand on it, and no other table
//!   deals one: every active table plays the same hand-for-hand hands;
//! - a held table deals only on a `deal_hand`, but for one deal that crossed the hold (seating
//!   marks it: it named no `deal_hand`), which is the table's announcement hand, or, read by the
//!   bubble after the announcement hand was complete, a late one outside the barrier, its busts
//!   a group of their own;
//! - no table starts hand k + 1, and no `deal_hand {hand: k + 1}` is sent, before every table
//!   has finished hand k (hand 0: the hands the bubble counted as the announcement hand);
//! - the bubble's log counts the same table hands as the same hand-for-hand hands, and ends at
//!   the burst; no report was rejected.

use floor::sim::{self, SimConfig, Summary};
use floor_events::bubble::{BubbleEvent, EndCause};
use floor_events::seating::SeatingEvent;
use floor_events::table::Instruction;
use floor_events::{subjects, TournamentId};
use floor_runtime::JetStreamStore;
use floor_tests::World;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// A sit & go whose hand-for-hand starts `from` players before the bubble, so several hands
/// are played hand for hand (the sim's all-in hands bust someone at most tables every hand).
fn config(entrants: u32, seed: u64, table_size: u8, from: u32, free: bool) -> SimConfig {
    let tournament_id = TournamentId(uuid::Uuid::from_u128(0xb0bb1e << 64 | u128::from(seed) << 32 | u128::from(entrants)));
    SimConfig { table_size, free, hand_for_hand_from: Some(from), ..SimConfig::new(entrants, seed, tournament_id) }
}

async fn world() -> World {
    World::start_configured(|c| {
        c.skip("scheduler");
        c.seed_key = Some([20; 32]);
    })
    .await
}

/// What the barrier looked like: hand-for-hand hands released, tables at the first release.
#[derive(Debug)]
struct Barrier {
    hands: u64,
    tables_at_first: usize,
    crossed: usize,
}

/// Checks the barrier from the logs (the module's doc); panics with what broke.
fn check_barrier(seating: &[(u64, SeatingEvent)], bubble: &[BubbleEvent]) -> Barrier {
    // The bubble's count: (table, table hand) → hand-for-hand hand.
    let mut counted: HashMap<(u32, u64), u64> = HashMap::new();
    // Crossing deals the bubble read after hand 0 was complete: outside the barrier.
    let mut late: BTreeSet<(u32, u64)> = BTreeSet::new();
    for e in bubble {
        match e {
            BubbleEvent::TableDealt { table, table_hand, crossing: true, .. } => {
                late.insert((*table, *table_hand));
            }
            BubbleEvent::TableDealt { table, hand, table_hand, .. } | BubbleEvent::TableFinished { table, hand, table_hand, .. } => {
                counted.insert((*table, *table_hand), *hand);
            }
            _ => {}
        }
    }
    let mut held: BTreeSet<u32> = BTreeSet::new();
    let mut credits: HashMap<u32, VecDeque<u64>> = HashMap::new();
    let mut told: BTreeMap<u64, Vec<(usize, u32)>> = BTreeMap::new();
    // (table, table hand) → hand-for-hand hand, by the deal_hand it used.
    let mut dealt_on: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    // (table, table hand) → where in the log it started and finished.
    let mut starts: HashMap<(u32, u64), usize> = HashMap::new();
    let mut finishes: HashMap<(u32, u64), usize> = HashMap::new();
    // The announcement hand as the tables played it: the hand in play when the hold reached a
    // table, or a deal that crossed it.
    let mut zero: BTreeSet<(u32, u64)> = BTreeSet::new();
    let mut in_play: HashMap<u32, u64> = HashMap::new();
    let mut crossed = 0;
    // Table → where in the log it was closed (broken between hands, or the end).
    let mut closed: HashMap<u32, usize> = HashMap::new();
    let mut broken = Vec::new();
    for (at, (_, event)) in seating.iter().enumerate() {
        match event {
            SeatingEvent::Instructed { instruction } => match instruction.instruction {
                Instruction::HoldForDeal => {
                    held.insert(instruction.table);
                    if let Some(&hand) = in_play.get(&instruction.table) {
                        zero.insert((instruction.table, hand));
                    }
                }
                Instruction::DealHand { hand } => {
                    credits.entry(instruction.table).or_default().push_back(hand);
                    told.entry(hand).or_default().push((at, instruction.table));
                }
                Instruction::Resume => {
                    held.remove(&instruction.table);
                    credits.remove(&instruction.table);
                }
                _ => {}
            },
            SeatingEvent::HandStarted { table, hand, crossing, .. } => {
                starts.insert((*table, *hand), at);
                in_play.insert(*table, *hand);
                if *crossing {
                    crossed += 1;
                    if !late.contains(&(*table, *hand)) {
                        zero.insert((*table, *hand));
                    }
                } else if held.contains(table) {
                    match credits.get_mut(table).and_then(VecDeque::pop_front) {
                        Some(k) => {
                            dealt_on.insert((*table, *hand), k);
                        }
                        None => broken.push(format!("table {table} dealt its hand {hand} while held, with no deal_hand left")),
                    }
                }
            }
            SeatingEvent::TableClosed { table } => {
                closed.insert(*table, at);
                // Seating defers a break or move that touches a table holding a released hand
                // it has not dealt (docs/bubble.md, "Balancing between hand-for-hand hands").
                if let Some(owed) = credits.get(table).filter(|owed| !owed.is_empty()) {
                    broken.push(format!("table {table} was closed while it held deal_hand {owed:?}, not dealt"));
                }
            }
            SeatingEvent::HandFinished { table, hand, .. } => {
                finishes.insert((*table, *hand), at);
                in_play.remove(table);
            }
            SeatingEvent::ReportRejected { table, report_id, code, reason } => {
                broken.push(format!("table {table}'s report {report_id} was rejected: {code}: {reason}"))
            }
            _ => {}
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    let released: Vec<u64> = told.keys().copied().collect();
    assert_eq!(released, (1..=released.len() as u64).collect::<Vec<_>>(), "hands released in order, none skipped");
    for (&k, tables) in &told {
        // Every active table plays exactly the released hand, once (a table broken before it
        // dealt it is not active any more).
        let mut played: Vec<u32> = dealt_on.iter().filter(|(_, &h)| h == k).map(|(&(t, _), _)| t).collect();
        played.sort_unstable();
        let mut to: Vec<u32> = tables
            .iter()
            .filter(|&&(told_at, t)| played.contains(&t) || closed.get(&t).is_none_or(|&c| c <= told_at))
            .map(|&(_, t)| t)
            .collect();
        to.sort_unstable();
        assert_eq!(
            played,
            to,
            "hand {k}: the tables that dealt it are the tables it was released to, each once; the bubble's log:\n{}",
            of_table(bubble.iter(), 0)
        );
        for (&(table, table_hand), _) in dealt_on.iter().filter(|(_, &h)| h == k) {
            assert_eq!(
                counted.get(&(table, table_hand)),
                Some(&k),
                "the bubble counts table {table}'s hand {table_hand} as hand {k}; its log:\n{}\nseating, table {table}:\n{}",
                of_table(bubble.iter(), table),
                of_table(seating.iter().map(|(_, e)| e), table)
            );
            assert!(finishes.contains_key(&(table, table_hand)), "table {table} finished hand {k}");
        }
        // The barrier: nothing of hand k before every table finished hand k - 1.
        let before: Vec<usize> = match k {
            1 => counted
                .iter()
                .filter(|(key, &h)| h == 0 && !late.contains(key))
                .map(|(key, _)| key)
                .chain(zero.iter().filter(|key| !late.contains(key)))
                .map(|key| finishes.get(key).copied().unwrap_or(usize::MAX))
                .collect(),
            _ => dealt_on.iter().filter(|(_, &h)| h == k - 1).filter_map(|(key, _)| finishes.get(key).copied()).collect(),
        };
        let last_finish = before.iter().copied().max().unwrap_or(0);
        let first_told = tables.iter().map(|&(at, _)| at).min().expect("told");
        let first_start = dealt_on.iter().filter(|(_, &h)| h == k).filter_map(|(key, _)| starts.get(key).copied()).min();
        assert!(
            first_told > last_finish,
            "deal_hand {{hand: {k}}} sent (event {first_told}) before hand {} finished (event {last_finish})",
            k - 1
        );
        assert!(
            first_start.is_some_and(|s| s > last_finish),
            "a table started hand {k} (event {first_start:?}) before every table finished hand {} (event {last_finish})",
            k - 1
        );
    }
    let ended = bubble.iter().find_map(|e| if let BubbleEvent::HandForHandEnded { cause, .. } = e { Some(*cause) } else { None });
    assert_eq!(ended, Some(EndCause::Burst), "hand-for-hand ends when the bubble bursts");
    Barrier { hands: released.len() as u64, tables_at_first: told.get(&1).map_or(0, Vec::len), crossed }
}

/// The events of a log that name `table` (0: all), one JSON line each, for a failure's message.
fn of_table<'a, E: serde::Serialize + 'a>(events: impl Iterator<Item = &'a E>, table: u32) -> String {
    let lines = events.map(|e| serde_json::to_value(e).expect("an event encodes"));
    let lines = lines.filter(|v| {
        table == 0 || v.to_string().contains(&format!("\"table\":{table},")) || v.to_string().contains(&format!("\"table\":{table}}}"))
    });
    lines.map(|v| v.to_string()).collect::<Vec<_>>().join("\n")
}

async fn logs(world: &World, t: TournamentId) -> (Vec<(u64, SeatingEvent)>, Vec<BubbleEvent>) {
    let store = JetStreamStore::new(&world.backbone);
    let seating = store.load::<SeatingEvent>(&subjects::event_subject(subjects::aggregate::SEATING, t.0), 0).await.expect("seating log");
    let bubble = store.load::<BubbleEvent>(&subjects::event_subject(subjects::aggregate::BUBBLE, t.0), 0).await.expect("bubble log");
    (
        seating.into_iter().flat_map(|c| c.events.into_iter().map(move |e| (c.sequence, e))).collect(),
        bubble.into_iter().flat_map(|c| c.events).collect(),
    )
}

/// Plays one sim to its winner and checks the bubble from the logs and the summary line.
async fn play_through_the_bubble(world: &World, config: &SimConfig) -> Summary {
    let summary = match sim::run(&world.backbone, config, |_| {}).await {
        Ok(s) => s,
        Err(e) => {
            // A stall says which tables wait; the logs say on what.
            let (seating, bubble) = logs(world, config.tournament_id).await;
            for e in &bubble {
                eprintln!("bubble log: {}", serde_json::to_string(e).unwrap());
            }
            for (q, e) in seating.iter().rev().take(60).rev() {
                eprintln!("seating log, last events: {q} {}", serde_json::to_string(e).unwrap());
            }
            panic!("sim of {}: {e}", config.entrants)
        }
    };
    assert!(summary.books.finished && summary.books.balanced, "{:?}", summary.books);
    let (seating, bubble) = logs(world, config.tournament_id).await;
    let barrier = check_barrier(&seating, &bubble);
    let h = summary.hand_for_hand.clone().expect("the summary reports hand-for-hand");
    eprintln!(
        "{} entrants, tables of {}, {}: {} hands hand for hand from {} players left ({} tables, {} dealing, {} crossed the hold) \
         to {:?} in {:.2} s",
        config.entrants,
        config.table_size,
        summary.pace,
        barrier.hands,
        h.started_with,
        h.tables,
        h.dealing,
        barrier.crossed,
        h.ended_with,
        h.wall_s.unwrap_or_default()
    );
    assert_eq!(h.hands, barrier.hands, "the summary counts the hands released");
    assert!(h.started_with > h.boundary && h.ended_with.is_some_and(|l| l <= h.boundary), "from above the money to in it: {h:?}");
    assert_eq!(h.ended_by.as_deref(), Some("burst"));
    assert!(barrier.hands >= 2 && barrier.tables_at_first >= 3, "several hands at several tables: {barrier:?}");
    assert_eq!((summary.pace, summary.reproducible), if config.free { ("free", false) } else { ("lockstep", true) });
    if !config.free {
        check_one_award_per_hand(world, config.tournament_id, &bubble).await;
    }
    summary
}

/// Payouts awards each hand-for-hand hand's busts, at every table, as one group (issue 20):
/// every entry the bubble placed in a completed hand k is in one `places_awarded` with the
/// others of that hand, at the same place and share, and the award names hand k. The
/// announcement hand (0) included: its busts share their places (RP-8 A), and payouts holds
/// them from the trigger's commit (`services/payouts/src/policy.rs`). Checked in lockstep, where
/// no deal crosses the hold.
/// An award's hand-for-hand hand, and (entry, place, shared) for each of its players.
type HandAward = (Option<u64>, Vec<(u32, u32, u32)>);

async fn check_one_award_per_hand(world: &World, t: TournamentId, bubble: &[BubbleEvent]) {
    use floor_events::payouts::PayoutEvent;
    let store = JetStreamStore::new(&world.backbone);
    let payouts = store.load::<PayoutEvent>(&subjects::event_subject(subjects::aggregate::PAYOUTS, t.0), 0).await.expect("payouts log");
    let awards: Vec<HandAward> = payouts
        .into_iter()
        .flat_map(|c| c.events)
        .filter_map(|e| match e {
            PayoutEvent::PlacesAwarded { awards, hand_for_hand, .. } => {
                Some((hand_for_hand, awards.iter().map(|a| (a.entry.0, a.place, a.shared)).collect()))
            }
            _ => None,
        })
        .collect();
    let (mut grouped, mut announcement) = (0, 0);
    for e in bubble {
        let BubbleEvent::HandCompleted { hand, placed, .. } = e else { continue };
        let Some(first) = placed.first() else { continue };
        let (award_hand, award) = awards
            .iter()
            .find(|(_, a)| a.iter().any(|(entry, ..)| *entry == first.bust.entry.0))
            .unwrap_or_else(|| panic!("hand {hand}: entry {} placed by the bubble, never awarded", first.bust.entry.0));
        assert_eq!(*award_hand, Some(*hand), "the award of hand {hand}'s busts names it: {award:?}");
        for p in placed {
            assert!(
                award.contains(&(p.bust.entry.0, p.place, p.shared)),
                "hand {hand}: the bubble placed {p:?}; payouts awarded it apart or elsewhere: {award:?}"
            );
        }
        grouped += usize::from(placed.iter().map(|p| p.bust.table).collect::<BTreeSet<_>>().len() > 1);
        announcement += if *hand == 0 { placed.len() } else { 0 };
    }
    eprintln!("{grouped} hand-for-hand hands with busts at several tables, each awarded as one group; {announcement} out on the announcement hand");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floor_sim_in_lockstep_plays_the_bubble_hand_for_hand_and_every_table_deals_the_same_hands() {
    let world = world().await;
    // Seed 25: six players out on the announcement hand, at several tables (they share). Seed
    // 21: a table broken while dealing a released hand, whose bust in it still counts.
    for seed in [25, 21] {
        play_through_the_bubble(&world, &config(300, seed, 6, 12, false)).await;
    }
}

/// At the tables' own pace a table may deal in the moment between the bust that starts
/// hand-for-hand and its hold reaching it, and that deal may be read after the announcement hand
/// is complete, or after the table's first `deal_hand` was sent: it is a late announcement hand
/// of its own (`crossing`), and the table still deals every hand released to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floor_sim_free_plays_the_bubble_hand_for_hand_with_tables_at_their_own_pace() {
    let world = world().await;
    for (entrants, seed) in [(150, 21), (300, 22)] {
        play_through_the_bubble(&world, &config(entrants, seed, 6, 12, true)).await;
    }
}
