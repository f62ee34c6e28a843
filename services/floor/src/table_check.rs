//! `floor table-check`: a conformance suite for table servers (issue 19).
//!
//! It plays Floor's side of the table protocol (docs/table-servers.md) against a table server
//! under test, over NATS: it publishes scripted instructions on one test tournament's table
//! subjects exactly as the seating service does (stream `FLOOR_TABLES`, `Nats-Msg-Id`
//! `instruction:<tournament>.<table>.<sequence>`), reads every report published on
//! `floor.table.*.*.out`, and judges each against the protocol's rules.
//!
//! # Layout
//!
//! - [`rules`]: the rules (id and one-line statement) and the pure checker that judges a
//!   recorded exchange.
//! - [`scenarios`]: the scripted exchanges.
//! - [`builtin`]: Floor's simulated tables as a table server under test (`--builtin`), with
//!   faults to inject.
//! - this file: the driver (NATS in and out, waits with deadlines) and the output.

pub mod builtin;
pub mod rules;
pub mod scenarios;

use async_nats::jetstream::message::PublishMessage;
use floor_events::table::{instructions_subject, Instruction, Removal, TableInstruction};
use floor_events::{EntryNo, TournamentId};
use futures::StreamExt;
use rules::{Checker, Rule, Seen, TableView, Verdict};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use tokio::time::Instant;

/// How the check runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The test tournament whose tables the table server serves.
    pub tournament: TournamentId,
    /// How long to wait for anything the table must do.
    pub timeout: Duration,
    /// How long to wait for the table server's first confirmation (it may still be starting).
    pub start_timeout: Duration,
    /// How long to watch for what a table must not do (deal while held, before blinds…).
    pub quiet: Duration,
}

/// Why the check could not run (a rule broken is not an error: see [`Outcome`]).
#[derive(Debug, thiserror::Error)]
#[error("table-check: {0}")]
pub struct CheckError(pub String);

fn nats<E: std::fmt::Display>(e: E) -> CheckError {
    CheckError(e.to_string())
}

/// Floor's side of the exchange: publishes instructions, reads reports, feeds the checker.
pub struct Driver {
    jetstream: async_nats::jetstream::Context,
    reports: async_nats::Subscriber,
    checker: Checker,
    config: Config,
    next: BTreeMap<u32, u64>,
    /// A table whose first player at zero is left waiting for Floor's word (a rebuy to come),
    /// and who that is once there is one; every other bust is eliminated at once.
    spare: Option<(u32, Option<EntryNo>)>,
    /// Players at zero left waiting for Floor's word wherever they sit (the spare, taken).
    kept: BTreeSet<EntryNo>,
}

impl Driver {
    /// Subscribes to reports; call before the table server may publish any.
    ///
    /// # Errors
    /// The subscription fails.
    pub async fn new(client: async_nats::Client, config: Config) -> Result<Self, CheckError> {
        // A core subscription sees every publish, a second one with a reused report id too,
        // which the stream would drop without a word.
        let reports = client.subscribe("floor.table.*.*.out").await.map_err(nats)?;
        client.flush().await.map_err(nats)?;
        let jetstream = async_nats::jetstream::new(client);
        Ok(Self {
            jetstream,
            reports,
            checker: Checker::new(config.tournament),
            config,
            next: BTreeMap::new(),
            spare: None,
            kept: BTreeSet::new(),
        })
    }

    /// The tournament.
    pub fn tournament(&self) -> TournamentId {
        self.config.tournament
    }

    /// The tables sent anything, in order.
    pub fn tables(&self) -> Vec<u32> {
        self.next.keys().copied().collect()
    }

    /// Floor's view of a table now.
    pub fn view(&self, table: u32) -> TableView {
        self.checker.table(table)
    }

    /// Leaves the first player at zero at `table` waiting for Floor's word (not eliminated), for
    /// [`Driver::take_spare`] to rebuy or move.
    pub fn keep_spare(&mut self, table: u32) {
        self.spare = Some((table, None));
    }

    /// The player at zero kept by [`Driver::keep_spare`], if one busted; from now on every other
    /// bust is eliminated at once. That player is kept waiting (wherever they sit) until
    /// [`Driver::release`].
    pub fn take_spare(&mut self) -> Option<EntryNo> {
        let entry = self.spare.take().and_then(|(_, entry)| entry);
        self.kept.extend(entry);
        entry
    }

    /// Floor's word on `entry` is given (chips added): a later bust is answered as any other.
    pub fn release(&mut self, entry: EntryNo) {
        self.kept.remove(&entry);
    }

    /// Floor's word on every player at zero, as in a freezeout: `remove_player {eliminated}` as
    /// soon as the `hand_finished` is seen (at a closed table too: a bust in its last hand),
    /// except the one [`Driver::keep_spare`] keeps.
    async fn answer_busts(&mut self) -> Result<(), CheckError> {
        let mut out = Vec::new();
        for (table, view) in self.checker.tables() {
            for entry in view.at_zero().filter(|e| !self.kept.contains(e)) {
                match &mut self.spare {
                    Some((t, kept @ None)) if *t == table => *kept = Some(entry),
                    Some((t, Some(kept))) if *t == table && *kept == entry => {}
                    _ => out.push((table, entry)),
                }
            }
        }
        for (table, entry) in out {
            self.send(table, Instruction::RemovePlayer { entry, reason: Removal::Eliminated }).await?;
        }
        Ok(())
    }

    /// Numbers the table's next instruction without sending it.
    pub fn number(&mut self, table: u32, instruction: Instruction) -> TableInstruction {
        let sequence = self.next.entry(table).or_default();
        *sequence += 1;
        TableInstruction { tournament_id: self.config.tournament, table, sequence: *sequence, instruction }
    }

    /// Sends the table its next instruction; returns its sequence.
    ///
    /// # Errors
    /// The stream does not acknowledge it.
    pub async fn send(&mut self, table: u32, instruction: Instruction) -> Result<u64, CheckError> {
        let numbered = self.number(table, instruction);
        self.publish(&numbered, false).await?;
        Ok(numbered.sequence)
    }

    /// Publishes a numbered instruction as Floor does; `again`: a second delivery, with another
    /// message id (as after the stream's duplicate window), so the stream stores it again.
    ///
    /// # Errors
    /// The stream does not acknowledge it.
    pub async fn publish(&mut self, i: &TableInstruction, again: bool) -> Result<(), CheckError> {
        self.checker.observe(&Seen::Sent { instruction: i.clone(), again });
        let id = format!("instruction:{}.{}.{}{}", i.tournament_id, i.table, i.sequence, if again { ".again" } else { "" });
        let message = PublishMessage::build().payload(serde_json::to_vec(i).expect("instruction serializes").into()).message_id(id);
        let ack = self.jetstream.send_publish(instructions_subject(i.tournament_id, i.table), message).await.map_err(nats)?;
        ack.await.map_err(nats)?;
        Ok(())
    }

    /// Reads reports until `until`; returns early once `done` holds of the table's view.
    async fn read_until(&mut self, until: Instant, table: u32, done: impl Fn(&TableView) -> bool) -> Result<bool, CheckError> {
        loop {
            if done(&self.checker.table(table)) {
                return Ok(true);
            }
            match tokio::time::timeout_at(until, self.reports.next()).await {
                Err(_) => return Ok(false),
                Ok(None) => return Err(CheckError("the NATS connection closed".into())),
                Ok(Some(message)) => {
                    let msg_id = message.headers.as_ref().and_then(|h| h.get("Nats-Msg-Id")).map(|v| v.as_str().to_owned());
                    let seen = Seen::Report { subject: message.subject.to_string(), msg_id, payload: message.payload.to_vec() };
                    self.checker.observe(&seen);
                    self.answer_busts().await?;
                }
            }
        }
    }

    /// Waits (up to the timeout) until `done` holds of the table's view; if it never does,
    /// `rule` fails with `what`. Returns whether it held.
    ///
    /// # Errors
    /// NATS failing.
    pub async fn wait(&mut self, rule: Rule, table: u32, what: &str, done: impl Fn(&TableView) -> bool) -> Result<bool, CheckError> {
        self.wait_for(self.config.timeout, rule, table, what, done).await
    }

    /// [`Driver::wait`] with the start timeout: the table server may still be starting.
    ///
    /// # Errors
    /// NATS failing.
    pub async fn wait_start(&mut self, rule: Rule, table: u32, what: &str, done: impl Fn(&TableView) -> bool) -> Result<bool, CheckError> {
        self.wait_for(self.config.start_timeout, rule, table, what, done).await
    }

    async fn wait_for(
        &mut self,
        timeout: Duration,
        rule: Rule,
        table: u32,
        what: &str,
        done: impl Fn(&TableView) -> bool,
    ) -> Result<bool, CheckError> {
        let held = self.read_until(Instant::now() + timeout, table, done).await?;
        if !held {
            self.checker.observe(&Seen::Missed { rule, table, what: what.to_owned() });
        }
        Ok(held)
    }

    /// Waits until every one of `sequences` at `table` is confirmed.
    ///
    /// # Errors
    /// NATS failing.
    pub async fn confirmed(&mut self, table: u32, sequences: &[u64]) -> Result<bool, CheckError> {
        self.confirmed_under(Rule::Confirms, table, sequences).await
    }

    /// [`Driver::confirmed`], a miss breaking `rule`.
    ///
    /// # Errors
    /// NATS failing.
    pub async fn confirmed_under(&mut self, rule: Rule, table: u32, sequences: &[u64]) -> Result<bool, CheckError> {
        let what = format!("instruction_applied for #{sequences:?}");
        let all = sequences.to_vec();
        self.wait(rule, table, &what, move |v| all.iter().all(|s| v.confirmed.contains(s))).await
    }

    /// Reads every report for the quiet window: the time a table has to do what it must not.
    ///
    /// # Errors
    /// NATS failing.
    pub async fn quiet(&mut self) -> Result<(), CheckError> {
        self.read_until(Instant::now() + self.config.quiet, 0, |_| false).await.map(|_| ())
    }

    /// Every rule with its verdict.
    pub fn outcome(&self) -> Outcome {
        Outcome { tournament: self.config.tournament, passed: self.checker.passed(), rules: self.checker.verdicts() }
    }
}

/// The check's result.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The test tournament.
    pub tournament: TournamentId,
    /// Every rule passed.
    pub passed: bool,
    /// Every rule.
    pub rules: Vec<Verdict>,
}

impl Outcome {
    /// The ids of the rules that failed.
    pub fn failed(&self) -> Vec<&'static str> {
        self.rules.iter().filter(|r| !r.passed).map(|r| r.id).collect()
    }

    /// For people: one line per rule, each failure under it with its exchange.
    pub fn text(&self) -> String {
        let failed = self.rules.iter().filter(|r| !r.passed).count();
        let mut out = format!(
            "table-check, tournament {}: {} rules, {} passed, {failed} failed\n",
            self.tournament,
            self.rules.len(),
            self.rules.len() - failed
        );
        for rule in &self.rules {
            out += &format!("{} {:<17} {}\n", if rule.passed { "pass" } else { "FAIL" }, rule.id, rule.statement);
            // The first failure with the exchange that broke it; the others in a line each
            // (`--json` has every one's exchange).
            for (k, f) in rule.failures.iter().enumerate() {
                let table = f.table.map(|t| format!("table {t}: ")).unwrap_or_default();
                out += &format!("       {table}{}\n", f.what);
                for line in f.exchange.iter().filter(|_| k == 0) {
                    out += &format!("           {line}\n");
                }
            }
            if rule.failed > rule.failures.len() {
                out += &format!("       … and {} more\n", rule.failed - rule.failures.len());
            }
        }
        out
    }
}

/// Runs every scenario against the table server serving `config.tournament` on `client`'s
/// NATS (which must have Floor's streams: [`floor_runtime::bootstrap::ensure_backbone`]).
///
/// # Errors
/// NATS failing; a rule broken is an [`Outcome`] that did not pass.
pub async fn run(client: async_nats::Client, config: Config) -> Result<Outcome, CheckError> {
    let mut driver = Driver::new(client, config).await?;
    scenarios::play(&mut driver).await?;
    Ok(driver.outcome())
}
