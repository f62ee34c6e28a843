//! The projection runner: folds commits into a read model.
//!
//! - On `FLOOR_EVENTS` it reads through a follow ([`crate::follow::start_from`]): from its
//!   checkpoint on its own ordered consumer, then from the process's one tail of the log
//!   ([`crate::tail`]), so the server delivers each new commit to the process once however many
//!   views it runs. On another stream (the table protocol's) it reads through a durable pull
//!   consumer (`projection-<name>`), created at start from the checkpoint, with cumulative
//!   acks (`AckPolicy::All`) sent only after the view and its checkpoint are stored. One runner
//!   writes a view at a time.
//! - The checkpoint (last applied stream sequence) lives in KV bucket `floor-checkpoints`, and
//!   commits at or below it are skipped, so redelivery is harmless: the view is idempotent by
//!   stream sequence. What the view reads is recorded beside it ([`crate::readers`]).
//! - [`ProjectionRunner::rebuild`] drops the view, replays the whole stream through an ordered
//!   consumer (the fastest way to read a stream) and then resumes live from where the replay
//!   ended. Any view can be thrown away and rebuilt.
//!
//! The fold itself ([`Projection::apply`]) is pure and synchronous; storing is batched in
//! [`Projection::flush`], once per batch rather than once per event.
//!
//! No view dies of one commit ([`crate::health`]): a commit on an event subject that is not a
//! readable commit, or whose `apply` panics, is recorded in the health view, its subject is set
//! aside (its later commits are skipped by this view, also after a restart), and the runner
//! goes on with every other aggregate. A panicking `flush` is a failed step: logged and retried.

use crate::bootstrap::Backbone;
use crate::commits::Stored;
use crate::error::Error;
use crate::follow::{self, Following};
use crate::health::Reader;
use crate::readers::{self, Reads};
use crate::tail::{Delivered, Shared};
use async_nats::jetstream::consumer::{pull, AckPolicy, Consumer, DeliverPolicy};
use async_nats::jetstream::kv;
use async_nats::jetstream::stream::DirectGetErrorKind;
use async_nats::jetstream::stream::Stream;
use floor_events::subjects;
use futures::StreamExt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What went wrong running a projection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectionErrorKind {
    /// Reading the stream or the consumer failed.
    Read,
    /// Storing the view or the checkpoint failed.
    Write,
}

impl std::fmt::Display for ProjectionErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Read => "cannot read events",
            Self::Write => "cannot store the view",
        })
    }
}

/// Error running a projection.
pub type ProjectionError = Error<ProjectionErrorKind>;

/// A read model folded from commits.
pub trait Projection: Send + 'static {
    /// Names the durable consumer and the checkpoint key; never change it once deployed.
    fn name(&self) -> &'static str;

    /// Subjects it reads, e.g. `floor.ev.tournament.*`.
    fn filters(&self) -> Vec<String>;

    /// Folds one commit into the in-memory view. Pure: no IO, no clock. A commit it cannot
    /// decode is logged and skipped, never fatal: one bad message must not stop every lobby.
    fn apply(&mut self, commit: Stored<'_>);

    /// Stores what changed since the last flush. Called before the checkpoint moves.
    fn flush(&mut self) -> impl Future<Output = Result<(), ProjectionError>> + Send;

    /// Forgets the view, in memory and in storage, before a rebuild.
    fn reset(&mut self) -> impl Future<Output = Result<(), ProjectionError>> + Send;

    /// Whether what it has folded since the last flush is worth gathering more for (the
    /// runner's linger): a view storing documents, or a policy pooling registrations, is; a
    /// policy holding an instruction every table waits for is not, and is stored at once.
    fn lingers(&self) -> bool {
        true
    }
}

/// How long a live step gathers commits before storing the view: short enough that nobody
/// watching a lobby notices, long enough that a busy stream is stored in batches.
pub const DEFAULT_LINGER: Duration = Duration::from_millis(20);

/// The first wait before a failed step is tried again; it doubles up to [`RETRY_MOST`].
pub const RETRY_FIRST: Duration = Duration::from_millis(250);
/// The longest wait between two tries of a failed step.
pub const RETRY_MOST: Duration = Duration::from_secs(4);

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Step {
    /// Commits applied (after skipping those at or below the checkpoint).
    pub applied: usize,
    /// Commits still waiting in the consumer after this step.
    pub pending: u64,
    /// The checkpoint after this step.
    pub checkpoint: u64,
}

/// Where a runner's commits come from.
enum Source {
    /// `FLOOR_EVENTS`: a follow from the checkpoint, its own consumer and then the process's
    /// tail (`None` until the next step starts it, from the checkpoint).
    Log(Option<Box<Following>>),
    /// Another stream: a durable consumer, recreated from the checkpoint at every start.
    Durable(Box<Durable>),
}

/// A durable consumer and its messages, each made when first needed.
#[derive(Default)]
struct Durable {
    consumer: Option<Consumer<pull::Config>>,
    messages: Option<pull::Stream>,
}

/// Runs one projection. Tests drive it with [`ProjectionRunner::step`]; services call `run`.
pub struct ProjectionRunner<P: Projection> {
    projection: P,
    backbone: Backbone,
    stream: Stream,
    checkpoints: kv::Store,
    checkpoint: u64,
    source: Source,
    batch: usize,
    /// How long a step waits for more commits after the first before flushing.
    linger: Duration,
    /// Whether the checkpoint and the ack are stored while the next step runs.
    pipelined: bool,
    /// The previous step's checkpoint and ack, while in flight (pipelined runners only).
    storing: Option<tokio::task::JoinHandle<Result<(), ProjectionError>>>,
    /// Where poison commits are recorded, and the subjects this view set aside.
    reader: Reader,
}

fn read<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Read, e)
}
fn write<E: Into<Box<dyn std::error::Error + Send + Sync>>>(e: E) -> ProjectionError {
    ProjectionError::with_source(ProjectionErrorKind::Write, e)
}

/// The durable consumer of the runner of view `name` on a stream other than the log:
/// `projection-<name>`.
pub fn durable_name(name: &str) -> String {
    format!("projection-{name}")
}

impl<P: Projection> ProjectionRunner<P> {
    /// Prepares the runner: reads the checkpoint.
    ///
    /// # Errors
    /// `Read` when the checkpoint bucket cannot be read.
    pub async fn new(backbone: &Backbone, projection: P) -> Result<Self, ProjectionError> {
        Self::on_stream(backbone, backbone.events.clone(), projection).await
    }

    /// Prepares a runner on another stream (the table protocol's, say).
    ///
    /// # Errors
    /// `Read` when the checkpoint bucket cannot be read.
    pub async fn on_stream(backbone: &Backbone, stream: Stream, projection: P) -> Result<Self, ProjectionError> {
        let checkpoints = backbone.jetstream.get_key_value(subjects::CHECKPOINT_BUCKET).await.map_err(read)?;
        let checkpoint = match checkpoints.get(projection.name()).await.map_err(read)? {
            Some(v) => std::str::from_utf8(&v).ok().and_then(|s| s.parse().ok()).unwrap_or(0),
            None => 0,
        };
        let reader = backbone.health.reader(projection.name()).await;
        let stream_name = stream.cached_info().config.name.clone();
        let reads = Reads { stream: stream_name.clone(), filters: projection.filters() };
        readers::announce(&backbone.jetstream, projection.name(), &reads).await;
        let source = match stream_name == subjects::EVENTS_STREAM {
            true => Source::Log(None),
            false => Source::Durable(Box::default()),
        };
        Ok(Self {
            projection,
            backbone: backbone.clone(),
            reader,
            stream,
            checkpoints,
            checkpoint,
            source,
            batch: 2_000,
            linger: DEFAULT_LINGER,
            pipelined: false,
            storing: None,
        })
    }

    /// Sets how long a step gathers commits after the first before storing the view
    /// ([`DEFAULT_LINGER`]); zero stores after whatever has already arrived.
    pub fn with_linger(mut self, linger: Duration) -> Self {
        self.linger = linger;
        self
    }

    /// Stores the checkpoint and acknowledges while the next step already runs, instead of
    /// before it: two round trips off the path of every commit that arrives on its own.
    ///
    /// Only for views whose flush is idempotent beyond the checkpoint (commands with derived
    /// ids, publishes with message ids): after a crash the last step's commits may come again.
    pub fn with_pipelined_checkpoints(mut self) -> Self {
        self.pipelined = true;
        self
    }

    /// The last stream sequence applied.
    pub fn checkpoint(&self) -> u64 {
        self.checkpoint
    }

    /// The projection, to inspect its view.
    pub fn projection(&self) -> &P {
        &self.projection
    }

    /// Where this view records poison commits and the subjects it set aside.
    pub fn reader(&self) -> &Reader {
        &self.reader
    }

    /// Folds one commit, unless it is poison or its subject is set aside ([`Reader::guard`]).
    fn apply(&mut self, commit: Stored<'_>) {
        let projection = &mut self.projection;
        self.reader.guard_readable(commit.subject, commit.sequence, commit.readable(), || projection.apply(commit));
    }

    /// Folds one commit a follow handed out (it found it readable): only a set-aside subject or
    /// a panicking fold stops it ([`Reader::fold_checked`]).
    fn apply_checked(&mut self, commit: Stored<'_>) {
        let projection = &mut self.projection;
        self.reader.fold_checked(commit.subject, commit.sequence, || projection.apply(commit));
    }

    /// Stores the view; a panic in the projection's flush is a failed step, never the end of
    /// the runner (nothing is acknowledged, so the batch is stored again or comes again).
    async fn flush(&mut self) -> Result<(), ProjectionError> {
        use futures::FutureExt;
        let flushed = std::panic::AssertUnwindSafe(self.projection.flush()).catch_unwind().await;
        self.reader.publish().await;
        flushed.unwrap_or_else(|_| Err(write("the view's flush panicked")))
    }

    fn durable_name(&self) -> String {
        durable_name(self.projection.name())
    }

    /// Forgets where the source was: the next step reads again from the checkpoint.
    fn reset_source(&mut self) {
        self.source = match self.source {
            Source::Log(_) => Source::Log(None),
            Source::Durable(_) => Source::Durable(Box::default()),
        };
    }

    /// The durable consumer of a runner on another stream than the log.
    async fn consumer(
        stream: &Stream,
        name: String,
        filters: Vec<String>,
        checkpoint: u64,
    ) -> Result<Consumer<pull::Config>, ProjectionError> {
        // The checkpoint, not the server's cursor, says where the view is. Recreating the
        // durable at every start means messages a crashed instance had in flight are
        // delivered again at once instead of after `ack_wait`. (One writer per view.)
        let _ = stream.delete_consumer(&name).await;
        stream
            .get_or_create_consumer(
                &name,
                pull::Config {
                    durable_name: Some(name.clone()),
                    filter_subjects: filters,
                    deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: checkpoint + 1 },
                    ack_policy: AckPolicy::All,
                    max_ack_pending: 100_000,
                    ack_wait: Duration::from_secs(60),
                    ..Default::default()
                },
            )
            .await
            .map_err(read)
    }

    /// Readies the source to deliver (a follow, or a durable consumer's messages), from the
    /// checkpoint.
    async fn ready(&mut self) -> Result<(), ProjectionError> {
        let (name, filters, checkpoint) = (self.durable_name(), self.projection.filters(), self.checkpoint);
        match &mut self.source {
            Source::Log(following @ None) => {
                *following = Some(Box::new(follow::start_from(&self.backbone, self.projection.name(), filters, checkpoint + 1).await?));
            }
            Source::Durable(durable) if durable.messages.is_none() => {
                if durable.consumer.is_none() {
                    durable.consumer = Some(Self::consumer(&self.stream, name, filters, checkpoint).await?);
                }
                let stream = durable.consumer.as_ref().expect("consumer set above").stream().max_messages_per_batch(self.batch);
                durable.messages = Some(stream.messages().await.map_err(read)?);
            }
            _ => {}
        }
        Ok(())
    }

    /// The next commit, waiting at most until `until` (`None`: only one already there). `Ok(None)`
    /// when none came in time.
    async fn next(&mut self, until: Option<tokio::time::Instant>) -> Result<Option<Shared>, ProjectionError> {
        use futures::FutureExt;
        let next = async {
            match &mut self.source {
                Source::Log(Some(following)) => match following.next().await {
                    Some(message) => message.map(Some),
                    None => Err(read("the connection is gone")),
                },
                Source::Durable(durable) => match durable.messages.as_mut() {
                    Some(messages) => match messages.next().await {
                        Some(message) => message.map(|m| Some(Arc::new(Delivered::new(m)))).map_err(read),
                        None => Err(read("consumer stream ended")),
                    },
                    None => Err(read("the source is not ready")),
                },
                _ => Err(read("the source is not ready")),
            }
        };
        match until {
            // Not even a zero wait on a timer: tokio rounds deadlines up to its next
            // millisecond tick, which put up to a millisecond on every lone commit.
            None => next.now_or_never().unwrap_or(Ok(None)),
            Some(until) => tokio::time::timeout_at(until, next).await.unwrap_or(Ok(None)),
        }
    }

    /// Commits known to wait in the source after this step.
    fn pending(&self, last: &Shared) -> u64 {
        match &self.source {
            Source::Log(Some(following)) => following.pending(),
            _ => last.pending(),
        }
    }

    /// Applies at most one batch: waits up to `wait` for the first commit, then gathers more for
    /// at most the linger time (up to the batch size), so the view lags the stream by at most
    /// the linger plus one store.
    ///
    /// # Errors
    /// `Read` or `Write`; nothing is acknowledged then, so the batch comes again.
    pub async fn step(&mut self, wait: Duration) -> Result<Step, ProjectionError> {
        self.ready().await?;
        let Some(first) = self.next(Some(tokio::time::Instant::now() + wait)).await? else {
            return Ok(Step { applied: 0, pending: 0, checkpoint: self.checkpoint });
        };
        // Folded as they come, so the projection can say whether to wait for more.
        let mut applied = self.take(&first)?;
        let mut last = first;
        let mut received = 1;
        // Gather a batch: what has already arrived, then whatever arrives within `linger`. One
        // flush (documents, checkpoint, ack: three round trips) then serves the whole batch
        // instead of every commit, which under a stream of single commands tripled the server
        // work per command.
        let gather_until = tokio::time::Instant::now() + self.linger;
        while received < self.batch {
            let next = match self.next(None).await? {
                Some(next) => Some(next),
                None if self.linger.is_zero() || !self.projection.lingers() => None,
                None => self.next(Some(gather_until)).await?,
            };
            let Some(next) = next else { break };
            applied += self.take(&next)?;
            last = next;
            received += 1;
        }
        let pending = self.pending(&last);
        self.flush().await?;
        // Then the checkpoint; on a durable consumer a cumulative ack, confirmed by the server:
        // everything up to this message is applied and stored.
        let (checkpoints, name, checkpoint) = (self.checkpoints.clone(), self.projection.name(), self.checkpoint);
        let acked = matches!(self.source, Source::Durable(_)).then_some(last);
        let store = async move {
            checkpoints.put(name, checkpoint.to_string().into()).await.map_err(write)?;
            match acked {
                Some(message) => message.double_ack().await.map_err(write),
                None => Ok(()),
            }
        };
        // In order: the previous step's store lands before this one starts.
        self.stored().await?;
        if self.pipelined {
            self.storing = Some(tokio::spawn(store));
        } else {
            store.await?;
        }
        Ok(Step { applied, pending, checkpoint: self.checkpoint })
    }

    /// Folds one received commit unless it is at or below the checkpoint; how many it folded
    /// (0 or 1). A commit a follow handed out was found readable there and is not read again.
    fn take(&mut self, message: &Shared) -> Result<usize, ProjectionError> {
        let commit = Stored::of(message);
        let sequence = commit.sequence;
        if sequence <= self.checkpoint {
            return Ok(0);
        }
        match self.source {
            Source::Log(_) => self.apply_checked(commit),
            Source::Durable(_) => self.apply(commit),
        }
        self.checkpoint = sequence;
        Ok(1)
    }

    /// Waits for a pipelined store still in flight.
    async fn stored(&mut self) -> Result<(), ProjectionError> {
        match self.storing.take() {
            Some(storing) => storing.await.map_err(write)?,
            None => Ok(()),
        }
    }

    async fn store_checkpoint(&mut self) -> Result<(), ProjectionError> {
        self.flush().await?;
        self.checkpoints.put(self.projection.name(), self.checkpoint.to_string().into()).await.map_err(write)?;
        Ok(())
    }

    /// Steps until the consumer has nothing left to deliver and nothing unacknowledged: the
    /// view has caught up with the stream as of the call.
    ///
    /// # Errors
    /// As [`ProjectionRunner::step`].
    pub async fn catch_up(&mut self) -> Result<u64, ProjectionError> {
        // The stream as of the call: commits that keep arriving while it catches up are the
        // live run's, or a busy stream (tables reporting throughout a restart) would keep the
        // catch-up, and the start of everything after it, going for as long as play goes on.
        let target = self.stream.get_info().await.map_err(read)?.state.last_sequence;
        loop {
            self.stored().await?;
            if self.checkpoint >= target {
                return Ok(self.checkpoint);
            }
            // Not what a consumer counts: nats-server acknowledges a publish before it signals
            // the stream's consumers, so a consumer (or the tail) can look idle while the store
            // holds a commit its writer has the ack for. The store itself says.
            if !self.stored_up_to(target).await? {
                return Ok(self.checkpoint);
            }
            self.step(Duration::from_millis(500)).await?;
        }
    }

    /// Whether the store holds a commit on this view's subjects after its checkpoint and at or
    /// before `target` (a direct get per filter, read from the store itself).
    async fn stored_up_to(&mut self, target: u64) -> Result<bool, ProjectionError> {
        // `&mut`: the runner is not `Sync` (a consumer's message stream is not).
        let (stream, from) = (self.stream.clone(), self.checkpoint + 1);
        for filter in self.projection.filters() {
            match stream.direct_get_next_for_subject(&filter, Some(from)).await {
                Ok(next) if next.sequence <= target => return Ok(true),
                Ok(_) => {}
                Err(e) if e.kind() == DirectGetErrorKind::NotFound => {}
                Err(e) => return Err(read(e)),
            }
        }
        Ok(false)
    }

    /// Drops the view and rebuilds it from the first commit, then resumes live from there.
    /// Returns the number of commits applied.
    ///
    /// # Errors
    /// `Read` or `Write`.
    pub async fn rebuild(&mut self) -> Result<u64, ProjectionError> {
        let _ = self.stored().await;
        self.reset_source();
        let name = self.durable_name();
        let _ = self.stream.delete_consumer(&name).await;
        self.projection.reset().await?;
        self.checkpoint = 0;
        let target = self.stream.get_info().await.map_err(read)?.state.last_sequence;
        let mut applied = 0;
        if target > 0 {
            let mut replay = self
                .stream
                .create_consumer(pull::OrderedConfig { filter_subjects: self.projection.filters(), ..Default::default() })
                .await
                .map_err(read)?;
            // A new consumer counts what it has to deliver from the store itself. With nothing on
            // the view's subjects, waiting for a first message would wait for ever.
            let nothing = replay.info().await.map_err(read)?.num_pending == 0;
            let mut messages = replay.messages().await.map_err(read)?;
            while let Some(message) = if nothing { None } else { messages.next().await } {
                let message = Delivered::new(message.map_err(read)?);
                self.apply(Stored::of(&message));
                self.checkpoint = message.sequence();
                applied += 1;
                if message.pending() == 0 {
                    break;
                }
            }
        }
        self.store_checkpoint().await?;
        Ok(applied)
    }

    /// Runs live until `shutdown`; errors are logged and retried on a timer.
    ///
    /// A step that failed in its flush has already folded its commits into the view (and, for a
    /// policy, queued their commands): the next attempt flushes again, after [`RETRY_FIRST`]
    /// doubling up to [`RETRY_MOST`], whether or not anything new arrives. Waiting for the next
    /// commit instead stalled a tournament whose last eliminations were the failed ones.
    pub async fn run(mut self, shutdown: CancellationToken) {
        let mut owed = false;
        let mut retry = RETRY_FIRST;
        loop {
            let step = tokio::select! {
                _ = shutdown.cancelled() => break,
                step = self.step_or_retry(owed) => step,
            };
            match step {
                Ok(()) => {
                    owed = false;
                    retry = RETRY_FIRST;
                }
                Err(e) => {
                    tracing::warn!(projection = self.projection.name(), error = %e, retry_ms = retry.as_millis() as u64, "projection step failed; retrying");
                    owed = true;
                    self.storing = None;
                    self.reset_source();
                    tokio::select! {
                        _ = shutdown.cancelled() => break,
                        _ = tokio::time::sleep(retry) => {}
                    }
                    retry = (retry * 2).min(RETRY_MOST);
                }
            }
        }
        // The last step's checkpoint, so a clean stop repeats nothing at the next start.
        let _ = self.stored().await;
    }

    /// The next step, or, after a failure, the flush (and checkpoint) still owed.
    async fn step_or_retry(&mut self, owed: bool) -> Result<(), ProjectionError> {
        if owed {
            self.store_checkpoint().await
        } else {
            self.step(Duration::from_secs(1)).await.map(|_| ())
        }
    }
}
