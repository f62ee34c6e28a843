//! The simulator's lockstep with Floor: between two rounds, wait until Floor has taken every
//! report and stored every instruction that follows from them, then hand the tables all of it.
//!
//! Every "is it done?" question here is answered from the store, never from a consumer's
//! `num_pending`. nats-server acknowledges a publish before it tells the stream's consumers
//! about the new message (the acknowledgement leaves, then a signal queue bumps each
//! consumer's pending count on another goroutine), so a consumer can report nothing pending
//! for a message its publisher already holds the acknowledgement of. Measured on nats-server
//! 2.12.8: after 193 of 5,000 acknowledged publishes, a consumer-info round trip still did
//! not count the message. The simulator used to trust those counts: about one run in a
//! hundred, a table dealt its next hand before a move reached it, and a seed no longer
//! repeated its tournament.
//!
//! What is sound instead:
//! - how far a runner has *taken* its stream (its checkpoint, stored only after what it
//!   produced is stored; see `taken`) against the last sequence the store holds on the subjects it reads;
//! - for the tables' inbox, the store's next instruction after the last one received
//!   (a direct get), with the consumer used only to fetch them in bulk;
//! - with rebuys, how far the rebuys policy has acted (its checkpoint, KV `floor-checkpoints`
//!   key `rebuys-policy`, stored once the commands a commit called for are stored) against the
//!   same subjects plus seating's. Without it the simulated players answered offers while the
//!   rebuys service was still reacting to the round's busts: an entry at its rebuy cap is forgone
//!   by that reaction alone, and when it landed after some players' answers (a rebuys service
//!   restarting, say) seating eliminated in another order, balanced tables differently, and a
//!   disturbed run became another tournament (issue 18).
//! - how far the bubble policy has acted (KV key `bubble-policy`) against the tournament's,
//!   seating's and the bubble's own subjects: hand-for-hand's hold, each release and the end
//!   are the bubble policy's reaction to seating's commits (then to its own), and the
//!   instructions to the tables are seating's policy's reaction to the bubble's events. The
//!   payouts subjects it reads too are left out: only the locked table's paid places matter
//!   to it, locked at the start of a sit & go and never waited for by the tables.
//!
//! - with `--format satellite` ([`policy_settled`]), how far the satellites policy has acted
//!   (KV key `satellites-policy`) against the satellite's tournament, payouts and satellite
//!   subjects, before the simulator reads whether the seats reached the target: a ticket per
//!   seat is its reaction to payouts' awards, and each seat's registration in the target its
//!   reaction to its own ticket; registering the target's own field or starting it before then
//!   would race the seats (a seat refused as `tournament_started`, entry numbers by timing).
//!
//! - for a shootout ([`Lockstep::with_shootout`], issue 37), how far the shootouts policy has
//!   acted (KV key `shootouts-policy`) against the tournament's, seating's and the shootout's
//!   own subjects, and seating's policy against the shootout's too: a round ends with every
//!   table closed (`table_won`, `close_table`), and the next one exists only once the shootouts
//!   policy has read the last table won (`round_completed`, `round_started`) and seating has
//!   drawn it (`round_drawn`, the tables' `seat_player`). Without it the simulator would see
//!   every table closed and end the run between two rounds.
//!
//! [`Lockstep::acted_on`] is the same reading for one report, without waiting for Floor to be
//! quiet: `floor sim --free`'s tables deal their next hand once Floor has acted on their last.

use async_nats::jetstream::consumer::{pull, AckPolicy, Consumer, DeliverPolicy};
use async_nats::jetstream::kv;
use async_nats::jetstream::stream::{DirectGetErrorKind, Stream};
use floor_events::table::TableInstruction;
use floor_events::{subjects, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_runtime::JetStreamStore;
use floor_seating::simulated::SimTable;
use futures::StreamExt;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// How long Floor may stay silent before the simulation gives up.
pub const STALL: Duration = Duration::from_secs(15);

/// `read`, asked again every 100 ms while it fails, for up to [`STALL`]: a 3-node cluster whose
/// node leading a stream died answers no read or publish on it until the others elect a new
/// leader, a few seconds (issue 40, `tests/cluster.rs` of the floor package).
///
/// # Errors
/// The last failure, once STALL has passed.
pub async fn patiently<T, F, Fut>(mut read: F) -> Result<T, String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    let since = Instant::now();
    loop {
        match read().await {
            Ok(value) => return Ok(value),
            Err(e) if since.elapsed() < STALL => tracing::debug!(error = %e, "the store did not answer; asking again"),
            Err(e) => return Err(e),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Passes of [`Lockstep::acted_on`] after seating has taken the report.
const PASSES: u32 = 3;

/// A stall's message: which runner has not moved.
fn stalled(taken: &Taken) -> String {
    format!(
        "Floor has made no progress with the tables in {} s (are the seating and bubble services running?); checkpoints: \
         seating-policy {:?}, seating-reports {:?}, seating-outbox {:?}, bubble-policy {:?}{}",
        STALL.as_secs(),
        taken.policy,
        taken.reports,
        taken.outbox,
        taken.bubble,
        taken.shootouts.map(|s| format!(", shootouts-policy {s}")).unwrap_or_default()
    )
}

/// One tournament's lockstep: where the simulator's reports and the tables' instructions are.
pub struct Lockstep {
    tournament: TournamentId,
    /// The runners' checkpoints (KV `floor-checkpoints`).
    checkpoints: kv::Store,
    /// The tables' instructions: a consumer of our own, no acks, to fetch them in bulk.
    instructions: Consumer<pull::Config>,
    /// Its filter, for asking the store what follows.
    filter: String,
    /// Stream sequence of the last instruction handed to a table.
    received: u64,
    /// Stream sequence of the last report the simulator published (acknowledged).
    reported: u64,
    /// Whether the rebuys policy must have acted on everything stored too.
    rebuys: bool,
    /// Whether the shootouts policy must have acted on everything stored too (issue 37).
    shootout: bool,
}

/// The bubble policy's checkpoint key (`floor_bubble::service::POLICY_NAME`).
const BUBBLE_POLICY: &str = "bubble-policy";

/// Where the store is on the subjects of one tournament that Floor's runners react to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stored {
    tournament: u64,
    clock: u64,
    rebuys: u64,
    seating: u64,
    bubble: u64,
    /// The shootout's own subject (0 for any other tournament).
    shootout: u64,
}

/// How far each runner has taken the log (`None`: nothing says yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Taken {
    policy: Option<u64>,
    reports: Option<u64>,
    outbox: Option<u64>,
    rebuys: Option<u64>,
    bubble: Option<u64>,
    /// The shootouts policy (only asked for a shootout).
    shootouts: Option<u64>,
}

impl Stored {
    /// Whether every runner has acted on everything stored here (and the reports runner on
    /// every report up to `reported`).
    fn taken_by(&self, taken: &Taken, reported: u64, rebuys: bool, shootout: bool) -> bool {
        let Self { tournament, clock, rebuys: rebuy_log, seating, bubble, shootout: shootout_log } = *self;
        taken.policy.is_some_and(|p| p >= tournament.max(clock).max(rebuy_log).max(bubble).max(shootout_log))
            && taken.reports.is_some_and(|r| r >= reported)
            && taken.outbox.is_some_and(|o| o >= seating)
            && (!rebuys || taken.rebuys.is_some_and(|r| r >= tournament.max(clock).max(rebuy_log).max(seating)))
            && taken.bubble.is_some_and(|b| b >= tournament.max(seating).max(bubble))
            && (!shootout || taken.shootouts.is_some_and(|s| s >= tournament.max(seating).max(shootout_log)))
    }
}

fn text<E: ToString>(e: E) -> String {
    e.to_string()
}

/// The stream sequence up to which the seating runner `runner` has taken everything it reads:
/// applied, and what that caused stored. `None` while nothing says (the runner never ran).
///
/// The runner's checkpoint (KV `floor-checkpoints`, key = the runner's name) says it. The
/// projection runner stores it after the batch's flush has stored what the batch caused and
/// before it acknowledges the batch; at every start it resumes after it, and never acts on a
/// commit at or below it again. It is the runner's own record of what is done, and it outlives
/// the runner's process and its consumer.
///
/// What is not enough alone: the durable consumer's *ack floor*. A runner recreates its consumer
/// at every start, from the checkpoint, and nats-server reports a new consumer's ack floor as 0
/// until its first acknowledgement: a runner restarted between two rounds, with nothing new to
/// acknowledge, looked as if it had taken nothing (issue 18: `delivered 4418 ack_floor 0
/// pending 0`), and the lockstep waited for ever. Nor `delivered ≥ stored && num_ack_pending
/// == 0`: sound while the consumer exists, but it trusts the server's accounting of a consumer
/// created at a start sequence (the accounting the ack floor got wrong) and fails while the
/// consumer is being recreated, when the checkpoint still holds.
///
/// The ack floor is still read, as a second witness, for a runner on a durable consumer (the
/// reports runner, on the tables' stream; the runners on the log read the process's tail and
/// have none): it is never ahead of the checkpoint (the checkpoint is stored first), so it can
/// only help when the checkpoint cannot be read.
async fn taken(stream: &Stream, checkpoints: &kv::Store, runner: &str) -> Option<u64> {
    let (checkpoint, consumer) = futures::join!(checkpoints.get(runner), stream.consumer_info(format!("projection-{runner}")));
    let checkpoint = checkpoint.ok().flatten().and_then(|v| std::str::from_utf8(&v).ok()?.parse::<u64>().ok());
    let acknowledged = consumer.ok().map(|info| info.ack_floor.stream_sequence);
    checkpoint.max(acknowledged)
}

/// Waits until the policy `runner` (its checkpoint, KV `floor-checkpoints`) has acted on
/// everything stored on `subjects`, the store read again after: its reactions land on subjects
/// it reads, so only a pass in which nothing new was stored proves it done.
///
/// # Errors
/// A stall (neither the store nor the checkpoint moved for [`STALL`]), or a store that cannot be
/// read.
pub async fn policy_settled(backbone: &Backbone, runner: &str, subjects: &[String]) -> Result<(), String> {
    let checkpoints = backbone.jetstream.get_key_value(subjects::CHECKPOINT_BUCKET).await.map_err(text)?;
    let store = JetStreamStore::new(backbone);
    let last = || async {
        let mut last = 0;
        for subject in subjects {
            last = last.max(store.last_sequence(subject).await.map_err(text)?);
        }
        Ok::<u64, String>(last)
    };
    let (mut seen, mut moved_at, mut pause) = (None, Instant::now(), Duration::from_millis(1));
    loop {
        let stored = patiently(&last).await?;
        let took = taken(&backbone.events, &checkpoints, runner).await;
        if took.is_some_and(|t| t >= stored) && patiently(&last).await? == stored {
            return Ok(());
        }
        if Some((stored, took)) != seen {
            (seen, moved_at) = (Some((stored, took)), Instant::now());
        } else if moved_at.elapsed() > STALL {
            return Err(format!(
                "{runner} has not acted on the tournament's commits in {} s (is its service running?): checkpoint {took:?}, \
                 last commit {stored}",
                STALL.as_secs()
            ));
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

impl Lockstep {
    /// Starts reading the tournament's instructions from the start of the stream. Create it once
    /// the field is in: registering 250,000 players can take longer than the server keeps an
    /// idle consumer.
    ///
    /// # Errors
    /// When the consumer or the checkpoint bucket cannot be had.
    pub async fn new(backbone: &Backbone, tournament: TournamentId) -> Result<Self, String> {
        let checkpoints = backbone.jetstream.get_key_value(subjects::CHECKPOINT_BUCKET).await.map_err(text)?;
        let filter = format!("floor.table.{tournament}.*.in");
        let instructions = backbone
            .tables
            .create_consumer(pull::Config {
                filter_subject: filter.clone(),
                ack_policy: AckPolicy::None,
                deliver_policy: DeliverPolicy::All,
                inactive_threshold: Duration::from_secs(300),
                ..Default::default()
            })
            .await
            .map_err(text)?;
        Ok(Self { tournament, checkpoints, instructions, filter, received: 0, reported: 0, rebuys: false, shootout: false })
    }

    /// Also waits, at every settling, until the rebuys policy has acted on everything stored
    /// (a tournament with rebuys: busts are offered or forgone before any player answers).
    pub fn with_rebuys(mut self) -> Self {
        self.rebuys = true;
        self
    }

    /// Also waits, at every settling, until the shootouts policy has acted on everything stored
    /// (a shootout: the next round is started, and drawn, before the simulator looks at the
    /// tables again).
    pub fn with_shootout(mut self) -> Self {
        self.shootout = true;
        self
    }

    /// A report the store acknowledged at `sequence`.
    pub fn reported(&mut self, sequence: u64) {
        self.reported = self.reported.max(sequence);
    }

    /// Where the store is, on the subjects of this tournament that seating, the rebuys policy
    /// and the bubble policy read.
    async fn stored(&self, backbone: &Backbone) -> Result<Stored, String> {
        patiently(|| self.stored_once(backbone)).await
    }

    /// [`Lockstep::stored`], asked once.
    async fn stored_once(&self, backbone: &Backbone) -> Result<Stored, String> {
        let t = self.tournament.0;
        let [tournament, clock, rebuys, seating, bubble, shootout] = [
            subjects::aggregate::TOURNAMENT,
            subjects::aggregate::CLOCK,
            subjects::aggregate::REBUYS,
            subjects::aggregate::SEATING,
            subjects::aggregate::BUBBLE,
            subjects::aggregate::SHOOTOUT,
        ]
        .map(|aggregate| subjects::event_subject(aggregate, t));
        let store = JetStreamStore::new(backbone);
        let shootout_log = async {
            match self.shootout {
                true => store.last_sequence(&shootout).await,
                false => Ok(0),
            }
        };
        let (tournament, clock, rebuys, seating, bubble, shootout) = futures::try_join!(
            store.last_sequence(&tournament),
            store.last_sequence(&clock),
            store.last_sequence(&rebuys),
            store.last_sequence(&seating),
            store.last_sequence(&bubble),
            shootout_log
        )
        .map_err(text)?;
        Ok(Stored { tournament, clock, rebuys, seating, bubble, shootout })
    }

    /// How far each runner has taken the log, read concurrently.
    async fn taken(&self, backbone: &Backbone) -> Taken {
        let rebuys_policy = async {
            match self.rebuys {
                true => taken(&backbone.events, &self.checkpoints, floor_rebuys::service::POLICY_NAME).await,
                false => None,
            }
        };
        let shootouts_policy = async {
            match self.shootout {
                true => taken(&backbone.events, &self.checkpoints, super::formats::SHOOTOUTS_POLICY).await,
                false => None,
            }
        };
        let (policy, reports, outbox, rebuys, bubble, shootouts) = futures::join!(
            taken(&backbone.events, &self.checkpoints, "seating-policy"),
            taken(&backbone.tables, &self.checkpoints, "seating-reports"),
            taken(&backbone.events, &self.checkpoints, "seating-outbox"),
            rebuys_policy,
            taken(&backbone.events, &self.checkpoints, BUBBLE_POLICY),
            shootouts_policy
        );
        Taken { policy, reports, outbox, rebuys, bubble, shootouts }
    }

    /// Waits until Floor has taken every report and stored every instruction that follows.
    ///
    /// Work flows in a circle: reports and other services' events make seating commits, whose
    /// instructions the outbox stores and whose eliminations it sends to registration, which
    /// seating's policy reads; seating's commits make the bubble's, which seating's policy
    /// turns into instructions. So a pass reads where the store is, checks every runner has
    /// taken everything up to there, and reads the store again: only a pass in which nothing
    /// new was stored proves everything is done.
    ///
    /// A large field keeps the runners busy for longer than [`STALL`] (the draw of 28,000
    /// tables, which the policy stores part after part before it acknowledges the start; the
    /// 310,000 instructions of a 250,000-entrant draw, which the outbox publishes in one batch
    /// before it acknowledges any), so only a wait in which no runner takes anything new,
    /// the log does not grow, and nothing is stored for the tables for that long is a
    /// stall. The runners are asked less often the longer the wait: asking every millisecond
    /// loads the server doing the work.
    ///
    /// # Errors
    /// A stall (nothing moved for [`STALL`]), or a store that cannot be read.
    pub async fn settled(&mut self, backbone: &Backbone) -> Result<(), String> {
        self.settled_after(backbone, self.reported).await
    }

    /// [`Lockstep::settled`], with the last report the simulator published (acknowledged) at
    /// `reported`.
    ///
    /// # Errors
    /// A stall (nothing moved for [`STALL`]), or a store that cannot be read.
    pub async fn settled_after(&self, backbone: &Backbone, reported: u64) -> Result<(), String> {
        let (mut seen, mut moved_at, mut pause) = (None, Instant::now(), Duration::from_millis(1));
        loop {
            let stored = self.stored(backbone).await?;
            // Each group of reads concurrently, the groups in order: store, runners, store.
            let taken = self.taken(backbone).await;
            if stored.taken_by(&taken, reported, self.rebuys, self.shootout) && self.stored(backbone).await? == stored {
                return Ok(());
            }
            // Anything stored for the tables (cheaper than asking for this tournament's subjects).
            let instructed = backbone.tables.get_info().await.ok().map(|i| i.state.last_sequence);
            let state = Some((stored, taken, instructed));
            if state != seen {
                (seen, moved_at) = (state, Instant::now());
            } else if moved_at.elapsed() > STALL {
                return Err(stalled(&taken));
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// Waits until Floor has acted on the report the store acknowledged at `report`: seating
    /// has taken it, and [`PASSES`] times over, every runner has taken what the store held
    /// when the pass began. That covers the longest chain a report starts (seating's commit;
    /// the bubble's reaction, a start or a completed hand; the bubble's reaction to its own
    /// event, a release; seating's instructions for it). Unlike [`Lockstep::settled`] it never
    /// waits for the log to stop growing: other tables go on playing meanwhile.
    ///
    /// # Errors
    /// A stall (no runner moved for [`STALL`]), or a store that cannot be read.
    pub async fn acted_on(&self, backbone: &Backbone, report: u64) -> Result<(), String> {
        let mut target: Option<Stored> = None;
        let mut passes = 0;
        let (mut seen, mut moved_at, mut pause) = (None, Instant::now(), Duration::from_millis(1));
        loop {
            let taken = self.taken(backbone).await;
            let done = match &target {
                None => taken.reports.is_some_and(|r| r >= report),
                Some(stored) => stored.taken_by(&taken, report, self.rebuys, self.shootout),
            };
            if done {
                if passes == PASSES {
                    return Ok(());
                }
                passes += 1;
                target = Some(self.stored(backbone).await?);
                pause = Duration::from_millis(1);
                continue;
            }
            if Some(taken) != seen {
                (seen, moved_at) = (Some(taken), Instant::now());
            } else if moved_at.elapsed() > STALL {
                return Err(stalled(&taken));
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }

    /// The tournament's instructions as they arrive (`floor sim --free`), each with its stream
    /// sequence, from the start of the stream.
    ///
    /// # Errors
    /// When the consumer cannot be read.
    pub async fn arriving(&self) -> Result<async_nats::jetstream::consumer::pull::Stream, String> {
        self.instructions.messages().await.map_err(text)
    }

    /// The stream sequence of the first instruction to `table` stored after stream sequence
    /// `after`, if any.
    ///
    /// # Errors
    /// When the store cannot be read.
    pub async fn stored_after(&self, backbone: &Backbone, table: u32, after: u64) -> Result<Option<u64>, String> {
        let subject = format!("floor.table.{}.{table}.in", self.tournament);
        match backbone.tables.direct_get_next_for_subject(&subject, Some(after + 1)).await {
            Ok(message) => Ok(Some(message.sequence)),
            Err(e) if e.kind() == DirectGetErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{subject}: {e}")),
        }
    }

    /// Hands the tables every instruction stored after stream sequence `after`, read one by one
    /// from the store (the few a run ends with).
    ///
    /// # Errors
    /// When the store cannot be read, or an instruction is unreadable.
    pub async fn fetch_after(&self, backbone: &Backbone, mut after: u64, tables: &mut BTreeMap<u32, SimTable>) -> Result<(), String> {
        loop {
            match backbone.tables.direct_get_next_for_subject(&self.filter, Some(after + 1)).await {
                Ok(message) => {
                    after = message.sequence;
                    let instruction: TableInstruction = serde_json::from_slice(&message.payload).map_err(text)?;
                    tables.entry(instruction.table).or_default().receive(instruction);
                }
                Err(e) if e.kind() == DirectGetErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(format!("{}: {e}", self.filter)),
            }
        }
    }

    /// Hands the tables every instruction stored so far.
    ///
    /// # Errors
    /// When the store or the consumer cannot be read, or an instruction is unreadable.
    pub async fn drain(&mut self, backbone: &Backbone, tables: &mut BTreeMap<u32, SimTable>) -> Result<(), String> {
        loop {
            // The store says whether anything follows; the consumer's count only sizes the pull.
            match backbone.tables.direct_get_next_for_subject(&self.filter, Some(self.received + 1)).await {
                Ok(_) => {}
                Err(e) if e.kind() == DirectGetErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(format!("{}: {e}", self.filter)),
            }
            let hint = self.instructions.info().await.map_err(text)?.num_pending;
            // Batches of a thousand (a few hundred KiB) with an expiry: one pull for the ten
            // thousand instructions of a large draw (6 MiB) never completed, and a pull that
            // loses its end marker must not wait forever.
            let mut batch = self
                .instructions
                .batch()
                .max_messages(hint.clamp(1, 1_000) as usize)
                .expires(Duration::from_secs(5))
                .messages()
                .await
                .map_err(text)?;
            while let Some(message) = batch.next().await {
                let message = message.map_err(text)?;
                self.received = self.received.max(message.info().map_err(text)?.stream_sequence);
                let instruction: TableInstruction = serde_json::from_slice(&message.payload).map_err(text)?;
                tables.entry(instruction.table).or_default().receive(instruction);
            }
        }
    }
}
