//! One service shell (issue 35): what a service's start is given ([`Context`]) and what the
//! platform needs of it ([`Service`]): a start that catches up and spawns its loops, then its
//! verbs served. `floor run` starts every service through it, one line each in
//! `services/floor/src/startup.rs`; `docs/adding-a-service.md` shows an implementation.

use crate::bootstrap::Backbone;
use crate::endpoint::Verbs;
use crate::Clock;
use std::future::Future;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// What every service's start is given.
pub struct Context<'a> {
    /// NATS and JetStream, with Floor's streams and buckets made.
    pub backbone: &'a Backbone,
    /// The clock commands are stamped with (tests control it).
    pub clock: Arc<dyn Clock>,
    /// A fixed seed key for seeded draws (`floor sim`, to repeat a tournament); `None`: the
    /// platform's, from `floor-secrets` ([`crate::secrets::seed_key`]).
    pub seed_key: Option<[u8; 32]>,
    /// Aggregates snapshot every this many commits; `None`: the service's own cadence (tests
    /// make it small).
    pub snapshot_every: Option<u64>,
    /// Cancelled when the platform stops: every loop the service spawned ends.
    pub shutdown: CancellationToken,
    /// Where the service spawns its loops; the platform waits for them at the stop.
    pub tracker: &'a TaskTracker,
}

impl<'a> Context<'a> {
    /// The platform's defaults: the system clock, the stored seed key, each service's own
    /// snapshot cadence (benchmarks and tests that start one service alone).
    pub fn new(backbone: &'a Backbone, shutdown: CancellationToken, tracker: &'a TaskTracker) -> Self {
        Self { backbone, clock: Arc::new(crate::SystemClock), seed_key: None, snapshot_every: None, shutdown, tracker }
    }
}

/// A Floor service, as the platform starts it.
pub trait Service: Clone + Send + Sync + Sized + 'static {
    /// Why it could not start.
    type Error: std::fmt::Display;

    /// Reads what it must (its snapshots, the log since), runs what it still owes, spawns its
    /// loops on `cx.tracker`, and returns once it can take commands.
    fn start(cx: &Context<'_>) -> impl Future<Output = Result<Self, Self::Error>> + Send;

    /// The verbs it serves on `floor.cmd.<service>.<verb>`, exactly the registry's
    /// (`floor_events::registry`); none for a service that only reacts (seating: table servers
    /// speak to it over JetStream).
    fn verbs() -> Verbs<Self>;
}
