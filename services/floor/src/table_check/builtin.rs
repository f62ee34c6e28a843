//! Floor's own simulated tables ([`floor_seating::simulated::SimTable`]) as a table server under
//! test: `floor table-check --builtin`. It serves every table of one tournament over NATS, as an
//! outside table server would: instructions from stream `FLOOR_TABLES` (an ordered consumer on
//! `floor.table.<tournament>.*.in`), applied in `sequence` order between hands; one hand per
//! table every [`HAND_TIME`] once blinds have arrived, unless paused, held for hand-for-hand
//! (then one hand per `deal_hand`) or closed; reports published with `Nats-Msg-Id` = `<tournament>.<table>.<report id>`.
//!
//! A [`Fault`] breaks one protocol rule on purpose, so the suite can show it catches it.

use async_nats::jetstream::consumer::pull::OrderedConfig;
use async_nats::jetstream::message::PublishMessage;
use floor_events::table::{reports_subject, Instruction, Report, TableInstruction, TableReport};
use floor_events::{subjects, EntryNo, TournamentId};
use floor_seating::simulated::SimTable;
use futures::StreamExt;
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a simulated hand takes: the tables deal one hand each per tick.
pub const HAND_TIME: Duration = Duration::from_millis(10);

/// One rule broken on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Fault {
    /// Publishes each report on another table's subject (breaks `subject`).
    WrongSubject,
    /// Gives the winner of every hand one chip more (breaks `chips-conserved`).
    CreatesChips,
    /// Ignores hold_for_deal and deal_hand (breaks `hold-for-deal`).
    DealsWhileHeld,
    /// Deals as soon as two players sit, blinds or not (breaks `waits-for-blinds`).
    DealsBeforeBlinds,
    /// Also confirms a sequence never sent, 99999 (breaks `confirms-known`).
    ConfirmsUnknown,
    /// Confirms remove_player but keeps the player (breaks `removed-out`).
    KeepsRemoved,
}

/// One simulated table and what else lets it deal (the simulated table keeps the hold, the
/// `deal_hand`s and the pause itself).
#[derive(Default)]
struct Served {
    sim: SimTable,
    blinds: bool,
    confirmed_unknown: bool,
}

impl Served {
    /// Between hands: applies what arrived in sequence order, then deals one hand if it may.
    fn step(&mut self, t: TournamentId, table: u32, fault: Option<Fault>, rng: &mut impl rand::Rng, out: &mut Vec<TableReport>) {
        // What the instructions about to be applied say about blinds (the simulated table
        // keeps the rest: seats, chips, the hold, the pause).
        let first = self.sim.applied + 1;
        for (next, i) in (first..).zip(self.sim.inbox.iter_mut()) {
            if i.sequence != next {
                break;
            }
            match &i.instruction {
                Instruction::Blinds { .. } => self.blinds = true,
                Instruction::RemovePlayer { entry, .. } if fault == Some(Fault::KeepsRemoved) => {
                    // Still confirmed, never done: the simulated table confirms chips added,
                    // and no chips change nothing.
                    i.instruction = Instruction::AddChips { entry: *entry, chips: 0 };
                }
                _ => {}
            }
        }
        self.sim.apply(t, table, usize::MAX, out);
        if fault == Some(Fault::ConfirmsUnknown) && !self.confirmed_unknown && self.sim.applied > 0 {
            self.confirmed_unknown = true;
            self.sim.reports += 1;
            let report_id = format!("report:{t}.{table}.{}", self.sim.reports);
            out.push(TableReport { tournament_id: t, table, report_id, report: Report::InstructionApplied { sequence: 99_999 } });
        }
        if fault == Some(Fault::DealsWhileHeld) {
            self.sim.held = false;
        }
        let blinds = self.blinds || fault == Some(Fault::DealsBeforeBlinds);
        if !blinds {
            return;
        }
        if self.sim.start_hand(t, table, out) {
            self.sim.finish_hand(t, table, rng, out);
            if fault == Some(Fault::CreatesChips) {
                self.create_a_chip(out);
            }
        }
    }

    fn create_a_chip(&mut self, out: &mut [TableReport]) {
        let Some(TableReport { report: Report::HandFinished { stacks, .. }, .. }) = out.last_mut() else { return };
        let Some(first) = stacks.first_mut() else { return };
        first.chips += 1;
        let entry: EntryNo = first.entry;
        if let Some(seat) = self.sim.seats.values_mut().find(|(e, ..)| *e == entry) {
            seat.2 += 1;
        }
    }
}

/// Serves every table of `tournament` until `shutdown`.
///
/// # Errors
/// NATS failing: the stream or its consumer cannot be had, or a publish is not acknowledged.
pub async fn serve(
    jetstream: async_nats::jetstream::Context,
    tournament: TournamentId,
    fault: Option<Fault>,
    seed: u64,
    shutdown: CancellationToken,
) -> Result<(), String> {
    let stream = jetstream.get_stream(subjects::TABLES_STREAM).await.map_err(|e| e.to_string())?;
    // Named, so the create names its filter in its subject: what a table credential may create
    // (its own tournament's instructions only, issue 34; docs/security.md).
    let name = format!("sim-tables-{}", uuid::Uuid::new_v4().simple());
    let consumer = stream
        .create_consumer(OrderedConfig { name: Some(name), filter_subject: format!("floor.table.{tournament}.*.in"), ..Default::default() })
        .await
        .map_err(|e| e.to_string())?;
    let mut instructions = consumer.messages().await.map_err(|e| e.to_string())?;
    let mut tables: BTreeMap<u32, Served> = BTreeMap::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut tick = tokio::time::interval(HAND_TIME);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return Ok(()),
            message = instructions.next() => {
                let message = message.ok_or("the instructions' consumer ended")?.map_err(|e| e.to_string())?;
                // Not an instruction: nothing to apply (Floor never sends one).
                if let Ok(instruction) = serde_json::from_slice::<TableInstruction>(&message.payload) {
                    if instruction.tournament_id == tournament {
                        tables.entry(instruction.table).or_default().sim.receive(instruction);
                    }
                }
            }
            _ = tick.tick() => {
                let mut out = Vec::new();
                // A closed table still applies what follows its close (a `remove_player`, a
                // `rebuy_offered`); it deals nothing (rule `after-close`).
                for (&number, served) in tables.iter_mut() {
                    served.step(tournament, number, fault, &mut rng, &mut out);
                }
                publish(&jetstream, fault, &out).await?;
            }
        }
    }
}

async fn publish(jetstream: &async_nats::jetstream::Context, fault: Option<Fault>, reports: &[TableReport]) -> Result<(), String> {
    let mut acks = Vec::with_capacity(reports.len());
    for report in reports {
        let table = if fault == Some(Fault::WrongSubject) { report.table + 100 } else { report.table };
        let message = PublishMessage::build()
            .payload(serde_json::to_vec(report).expect("report serializes").into())
            .message_id(floor_events::table::report_message_id(report.tournament_id, report.table, &report.report_id));
        acks.push(jetstream.send_publish(reports_subject(report.tournament_id, table), message).await.map_err(|e| e.to_string())?);
    }
    for ack in acks {
        ack.await.map_err(|e| e.to_string())?;
    }
    Ok(())
}
