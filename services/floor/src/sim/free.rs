//! `floor sim --free`: the simulated tables deal at their own pace, not in rounds.
//!
//! Every table is a task of its own. Instructions reach it as they arrive from the stream (one
//! reader for the tournament hands each to its table and wakes it); between hands it applies
//! them in sequence order, then, if it may deal ([`SimTable::may_deal`]: not held for
//! hand-for-hand without a `deal_hand`, not paused, two players with chips), it waits a random
//! moment, starts a hand, plays it for a random time and finishes it. So tables are in the
//! middle of a hand when `hold_for_deal` arrives (their hand 0), and finish a released hand at
//! different moments: the barrier is exercised as real table servers exercise it. Nothing here
//! repeats for a seed.
//!
//! At a watchable pace (`floor sim --hand-every`, [`super::Watchable`]) a hand lasts seconds
//! instead of milliseconds, so a person can follow the tournament in the lobby.
//!
//! One thing keeps the pace of real tables, whose hands take minutes while Floor takes
//! milliseconds: right before each deal a table waits until Floor has acted on everything
//! stored so far ([`Lockstep::acted_on`]: its own last report, and what the store held at each
//! pass) and every instruction stored for the table has reached it. Without that wait a
//! simulated table could deal before a `hold_for_deal` stored a moment earlier reached it: Floor
//! refuses such a deal (`table_held`) when the table was dealing at the hold, and when it was
//! not, the deal crossed the hold, which the bubble counts as the table's announcement hand
//! only while that hand is not complete (docs/bubble.md, "Still to do"). Other tables play on
//! meanwhile. The wait narrows that window to the last pass; it does not close it.

use super::lockstep::{Lockstep, STALL};
use super::{publish, rejections, waiting, Played, Progress, SimConfig};
use floor_events::table::{TableInstruction, TableReport};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::sync::lock;
use floor_seating::simulated::SimTable;
use futures::StreamExt;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{watch, Notify};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Longest wait of a table between two hands (drawn uniformly from zero).
const MOST_BETWEEN_HANDS: Duration = Duration::from_millis(5);

/// Shortest and longest hand (drawn uniformly): longer than Floor takes to act on a report
/// here, so a table is often in the middle of a hand when hand-for-hand starts.
const SHORTEST_HAND: Duration = Duration::from_millis(5);
const LONGEST_HAND: Duration = Duration::from_millis(40);

/// How often the simulator looks at the tables for the end, progress and a stall.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// One table and what wakes its task.
struct Dealer {
    sim: SimTable,
    wake: Arc<Notify>,
}

/// What the table tasks, the reader and the simulator share.
struct Room {
    backbone: Backbone,
    lockstep: Lockstep,
    config: SimConfig,
    tables: Mutex<BTreeMap<u32, Dealer>>,
    /// Stream sequence of the last instruction handed to a table.
    received: watch::Sender<u64>,
    /// Stream sequence of the last report published.
    reported: AtomicU64,
    /// The table tasks.
    tasks: TaskTracker,
    hands: AtomicU64,
    moves: AtomicU64,
    broken: AtomicU64,
    /// The last report published or instruction received, for a stall.
    last_activity: Mutex<Instant>,
    /// The first failure of a task; the run ends with it.
    failure: Mutex<Option<String>>,
    stop: CancellationToken,
}

impl Room {
    fn active(&self) {
        *lock(&self.last_activity) = Instant::now();
    }

    fn fail(&self, message: String) {
        lock(&self.failure).get_or_insert(message);
        self.stop.cancel();
    }

    /// Publishes a table's reports in order; the stream sequence of the last.
    async fn publish(&self, reports: &[TableReport]) -> Result<Option<u64>, String> {
        let mut last = None;
        publish(&self.backbone, reports, |sequence| last = Some(sequence)).await?;
        if let Some(sequence) = last {
            self.reported.fetch_max(sequence, Ordering::Relaxed);
            self.active();
        }
        Ok(last)
    }

    /// Sleeps, unless the run stops first (`false`).
    async fn pause(&self, duration: Duration) -> bool {
        tokio::select! {
            () = self.stop.cancelled() => false,
            () = tokio::time::sleep(duration) => true,
        }
    }

    /// Waits until Floor has acted on the report stored at `report` and every instruction
    /// stored for `table` since has been handed to it.
    async fn floor_acted_on(&self, table: u32, report: u64) -> Result<(), String> {
        self.lockstep.acted_on(&self.backbone, report).await?;
        let mut received = self.received.subscribe();
        loop {
            let after = *received.borrow_and_update();
            let Some(stored) = self.lockstep.stored_after(&self.backbone, table, after).await? else { return Ok(()) };
            tokio::select! {
                () = self.stop.cancelled() => return Ok(()),
                got = tokio::time::timeout(STALL, received.wait_for(|&r| r >= stored)) => match got {
                    Ok(Ok(_)) => {}
                    Ok(Err(_)) => return Ok(()),
                    Err(_) => return Err(format!("instruction {stored} for table {table} stored but not delivered in {} s", STALL.as_secs())),
                },
            }
        }
    }

    /// Applies what has arrived at a table (between hands); its confirmations, whether it may
    /// deal now, and whether anything is left to do there.
    fn apply(&self, number: u32) -> (Vec<TableReport>, bool, bool) {
        let t = self.config.tournament_id;
        let mut tables = lock(&self.tables);
        let Some(dealer) = tables.get_mut(&number) else { return (vec![], false, false) };
        let mut reports = Vec::new();
        let stepped = dealer.sim.apply(t, number, usize::MAX, &mut reports);
        self.moves.fetch_add(stepped.moved, Ordering::Relaxed);
        if stepped.closed && dealer.sim.seats.is_empty() {
            self.broken.fetch_add(1, Ordering::Relaxed);
        }
        (reports, dealer.sim.may_deal(), !dealer.sim.closed || !dealer.sim.seats.is_empty())
    }

    /// Starts a hand at a table, if it may and nothing it has not applied is waiting.
    fn start(&self, number: u32) -> Option<Vec<TableReport>> {
        let mut tables = lock(&self.tables);
        let sim = &mut tables.get_mut(&number)?.sim;
        if sim.inbox.front().is_some_and(|i| i.sequence == sim.applied + 1) {
            return None;
        }
        let mut reports = Vec::new();
        sim.start_hand(self.config.tournament_id, number, &mut reports).then_some(reports)
    }

    fn finish(&self, number: u32, rng: &mut impl Rng) -> Vec<TableReport> {
        let mut tables = lock(&self.tables);
        let mut reports = Vec::new();
        if let Some(dealer) = tables.get_mut(&number) {
            if dealer.sim.finish_hand(self.config.tournament_id, number, rng, &mut reports) {
                self.hands.fetch_add(1, Ordering::Relaxed);
            }
        }
        reports
    }

    /// One table's life: apply, deal, report, until the run stops.
    async fn deal_at(self: Arc<Self>, number: u32, wake: Arc<Notify>) {
        // Seeded per table; the run still differs from one time to the next, by timing.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.config.seed ^ u64::from(number).rotate_left(32));
        if let Err(e) = self.dealing(number, &wake, &mut rng).await {
            self.fail(format!("table {number}: {e}"));
        }
    }

    async fn dealing(&self, number: u32, wake: &Notify, rng: &mut impl Rng) -> Result<(), String> {
        // The stream sequence of this table's last report.
        let mut last = 0;
        while !self.stop.is_cancelled() {
            let (confirmations, may_deal, _) = self.apply(number);
            last = self.publish(&confirmations).await?.unwrap_or(last);
            if !may_deal {
                // Held, paused, short-handed or closed: until Floor says something.
                tokio::select! {
                    () = self.stop.cancelled() => return Ok(()),
                    () = wake.notified() => {}
                }
                continue;
            }
            let (between, hand) = self.pace(rng);
            if !self.pause(between).await {
                return Ok(());
            }
            // Right before the deal: Floor has acted on everything so far, a hold included.
            self.floor_acted_on(number, last).await?;
            // Whatever arrived meanwhile is applied first (the loop comes back here).
            let Some(started) = self.start(number) else { continue };
            last = self.publish(&started).await?.unwrap_or(last);
            if !self.pause(hand).await {
                // Stopping mid-hand: only at the end of a run that failed elsewhere.
                return Ok(());
            }
            let finished = self.finish(number, rng);
            last = self.publish(&finished).await?.unwrap_or(last);
        }
        Ok(())
    }

    /// The wait before the next deal and how long the hand takes: a few milliseconds each, or
    /// at a watchable pace ([`super::Watchable::hand_every`]) a hand of half to one and a half
    /// times the pace, the deal at once.
    fn pace(&self, rng: &mut impl Rng) -> (Duration, Duration) {
        match &self.config.watchable {
            Some(w) => (Duration::ZERO, rng.random_range(w.hand_every / 2..=w.hand_every * 3 / 2)),
            None => (rng.random_range(Duration::ZERO..=MOST_BETWEEN_HANDS), rng.random_range(SHORTEST_HAND..=LONGEST_HAND)),
        }
    }

    /// Hands each instruction to its table as it arrives, starting a task for a new table.
    async fn read(self: Arc<Self>, mut arriving: async_nats::jetstream::consumer::pull::Stream) {
        loop {
            let message = tokio::select! {
                () = self.stop.cancelled() => return,
                message = arriving.next() => message,
            };
            let message = match message {
                Some(Ok(message)) => message,
                Some(Err(e)) => return self.fail(format!("reading instructions: {e}")),
                None => return self.fail("the instructions' consumer ended".into()),
            };
            let sequence = match message.info() {
                Ok(info) => info.stream_sequence,
                Err(e) => return self.fail(format!("reading instructions: {e}")),
            };
            let instruction: TableInstruction = match serde_json::from_slice(&message.payload) {
                Ok(i) => i,
                Err(e) => return self.fail(format!("an unreadable instruction at {sequence}: {e}")),
            };
            let number = instruction.table;
            let (wake, new) = {
                let mut tables = lock(&self.tables);
                let new = !tables.contains_key(&number);
                let dealer = tables.entry(number).or_insert_with(|| Dealer { sim: SimTable::default(), wake: Arc::new(Notify::new()) });
                dealer.sim.receive(instruction);
                (dealer.wake.clone(), new)
            };
            if new {
                self.tasks.spawn(self.clone().deal_at(number, wake.clone()));
            }
            wake.notify_one();
            self.received.send_replace(sequence);
            self.active();
        }
    }

    /// Every table as it is now.
    fn snapshot(&self) -> BTreeMap<u32, SimTable> {
        lock(&self.tables).iter().map(|(&n, d)| (n, d.sim.clone())).collect()
    }
}

/// Plays until every table is closed, each table at its own pace.
///
/// # Errors
/// A stall (no report and no instruction for [`STALL`]), a table whose publish failed, or a
/// store that cannot be read.
pub async fn play(
    backbone: &Backbone,
    config: &SimConfig,
    lockstep: Lockstep,
    started: Instant,
    progress: &mut impl FnMut(&Progress),
) -> Result<Played, String> {
    let arriving = lockstep.arriving().await?;
    let room = Arc::new(Room {
        backbone: backbone.clone(),
        lockstep,
        config: config.clone(),
        tables: Mutex::new(BTreeMap::new()),
        received: watch::Sender::new(0),
        reported: AtomicU64::new(0),
        tasks: TaskTracker::new(),
        hands: AtomicU64::new(0),
        moves: AtomicU64::new(0),
        broken: AtomicU64::new(0),
        last_activity: Mutex::new(Instant::now()),
        failure: Mutex::new(None),
        stop: CancellationToken::new(),
    });
    let reader = tokio::spawn(room.clone().read(arriving));
    let outcome = watch_the_room(&room, started, progress).await;
    // Every table is closed (none is in a hand: a table closes between hands), or the run
    // failed: the tasks stop at their next wait.
    room.stop.cancel();
    let _ = reader.await;
    room.tasks.close();
    room.tasks.wait().await;
    outcome?;
    let failure = lock(&room.failure).clone();
    if let Some(failure) = failure {
        return Err(failure);
    }
    // The end: Floor quiet, and every instruction it stored applied (a `remove_player` may
    // follow a `close_table`).
    room.lockstep.settled_after(backbone, room.reported.load(Ordering::Relaxed)).await?;
    let mut tables = room.snapshot();
    let received = *room.received.borrow();
    room.lockstep.fetch_after(backbone, received, &mut tables).await?;
    let t = config.tournament_id;
    let mut reports = Vec::new();
    for (&number, table) in tables.iter_mut() {
        let stepped = table.apply(t, number, usize::MAX, &mut reports);
        room.moves.fetch_add(stepped.moved, Ordering::Relaxed);
    }
    publish(backbone, &reports, |_| {}).await?;
    Ok(Played {
        tables,
        hands: room.hands.load(Ordering::Relaxed),
        moves: room.moves.load(Ordering::Relaxed),
        broken: room.broken.load(Ordering::Relaxed),
        rounds: Vec::new(),
        cancelled_with: None,
    })
}

/// Watches the tables until every one is closed, a task failed, or nothing happened for
/// [`STALL`]; tells `progress`.
async fn watch_the_room(room: &Room, started: Instant, progress: &mut impl FnMut(&Progress)) -> Result<(), String> {
    loop {
        tokio::time::sleep(LOOK_EVERY).await;
        let failure = lock(&room.failure).clone();
        if let Some(failure) = failure {
            return Err(failure);
        }
        let tables = room.snapshot();
        let hands = room.hands.load(Ordering::Relaxed);
        let players_left = tables.values().filter(|t| !t.closed).map(|t| t.seats.len()).sum();
        let open = tables.values().filter(|t| !t.closed).count();
        progress(&Progress::Playing { players_left, tables: open, hands, hands_per_s: hands as f64 / started.elapsed().as_secs_f64() });
        if !tables.is_empty() && open == 0 {
            return Ok(());
        }
        let quiet = lock(&room.last_activity).elapsed();
        // At a watchable pace a director may pause the clock or suspend play for as long as
        // they like: quiet is not a stall there.
        if quiet > STALL && room.config.watchable.is_none() {
            return Err(format!(
                "nothing reported and no instruction from Floor in {} s; {}; {}",
                STALL.as_secs(),
                waiting(&tables),
                rejections(&room.backbone, room.config.tournament_id).await
            ));
        }
    }
}
