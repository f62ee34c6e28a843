//! Floor's backbone: everything services share to run on NATS JetStream.
//!
//! # Layout
//!
//! - [`clock`]: the wall clock, and a manual one for tests.
//! - [`error`]: `Error<Kind>`, one small kind enum per operation.
//! - [`server`]: a nats-server child process: the embedded default of `floor run`, and the
//!   per-test servers (free loopback port, temporary directory, restart for crash tests).
//! - [`bootstrap`]: connect (`NATS_URL` or the embedded server), refuse servers older than 2.10,
//!   create the stream and buckets idempotently.
//! - [`store`]: the event store on JetStream: one subject per aggregate, one message per
//!   command, optimistic concurrency, idempotent command ids; plus esrs's `EventStore` trait.
//! - [`host`]: keeps live aggregates in memory, one async mutex each (commands queue on it in
//!   arrival order), so a command costs one JetStream round trip; reloads and retries on conflict.
//! - [`snapshot`]: aggregate snapshots in the `floor-snapshots` object store, so a restart
//!   reads one object and the commits after it.
//! - [`endpoint`]: a service's verbs declared once (`Verbs`), served on
//!   `floor.cmd.<service>.<verb>` with typed requests, replies and error codes.
//! - [`encoding`]: lower-case hex (`hex`, `unhex`) of digests, commitments, seeds and keys.
//! - [`commits`]: a stored commit as every reader takes it (`Stored`), its typed decode made
//!   once per process and shared, what does not decode logged.
//! - [`client`]: the typed client for service-to-service commands (a rejection or `unavailable`
//!   is an error, never a success).
//! - [`secrets`]: the platform's seed key in KV `floor-secrets`, made once, shared by seating
//!   and bounties.
//! - [`spec`]: given / when / then for testing deciders.
//! - [`follow`]: read a subject's commits from the start (or a given sequence) into memory,
//!   then follow new ones.
//! - [`tail`]: the process's one live consumer of the log, whose commits every follow in the
//!   process shares once it has caught up.
//! - [`policy`]: the policy runner: a pure `react(commit) -> orders` whose memory is stored as a
//!   snapshot at a sequence where every order is executed, with its checkpoint in KV; a start
//!   reads the snapshot and the commits after it.
//! - [`health`]: poison commits readers survived and the aggregates they set aside, kept in KV
//!   `floor-health` for `floor status`; the one place a reader's fold is guarded.
//! - [`projection`]: the projection runner: the log's tail (or a durable consumer on another
//!   stream), checkpoint by stream sequence, idempotent, rebuildable from zero.
//! - [`sync`]: the poison-tolerant `lock` of a `std::sync::Mutex` every service uses.
//! - [`readers`]: what each checkpointed reader reads, in KV `floor-readers`, for `waiting`.
//! - [`waiting`]: which service a tournament waits on and since when (a reader that has not
//!   taken its commits), for `floor status` and the lobby.
#![deny(missing_docs)]

pub mod bootstrap;
pub mod client;
pub mod clock;
pub mod commits;
pub mod credentials;
pub mod encoding;
pub mod endpoint;
pub mod error;
pub mod folded;
pub mod follow;
pub mod health;
pub mod host;
pub mod local_users;
pub mod policy;
pub mod projection;
pub mod readers;
pub mod roles;
pub mod secrets;
pub mod server;
pub mod shape;
pub mod shell;
pub mod snapshot;
pub mod spec;
pub mod store;
pub mod sync;
pub mod tail;
pub mod waiting;

pub use bootstrap::{connect, ensure_backbone, Backbone};
pub use client::{CommandError, CommandErrorKind, Commands};
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::Error;
pub use health::Health;
pub use host::{reply, AggregateHost, Committed, DomainError, RETRY};
pub use server::NatsServer;
pub use store::JetStreamStore;
