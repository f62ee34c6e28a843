//! The one binary's library: how the platform starts, and the director's commands.
//!
//! # Layout
//!
//! - [`cli`]: the command line (clap derive; doc comments are the help).
//! - [`startup`]: `Platform::build` connects (or starts the embedded nats-server), prepares the
//!   backbone and starts the chosen services; `run_until_stopped` waits for a signal and shuts
//!   down in order. `floor run`, `floor <service>` and the end-to-end tests share it.
//! - [`director`]: `floor tournament create|list|show`, `floor register`: requests to a running
//!   platform.
//! - [`deal`]: `floor deal propose|accept|reject|show`: deals through the payouts service.
//! - [`sim`]: `floor sim`: a whole tournament played by simulated table servers over NATS.
//! - [`table_check`]: `floor table-check`: a conformance suite for table servers, and Floor's
//!   simulated tables as a table server to check.
//! - [`audit`], [`export`]: `floor audit` and `floor export`: one tournament's log read and
//!   audited by `floor-audit` (issue 42).
//! - [`exit`]: exit codes.

pub mod audit;
pub mod cli;
pub mod credentials;
pub mod deal;
pub mod director;
pub mod exit;
pub mod export;
pub mod logging;
pub mod manual;
pub mod sim;
pub mod startup;
pub mod table_check;
