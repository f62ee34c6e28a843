//! The protocol rules a table server is held to, and a pure checker that judges a recorded
//! exchange against them: instructions Floor's side sent, messages seen on report subjects, and
//! waits that ran out. No IO and no clock: the driver ([`super`]) feeds it, tests feed it
//! recorded exchanges.
//!
//! The checker keeps Floor's view of each table (who sits where with how many chips, what was
//! sent and confirmed, whether the table may deal) the way the seating service does, and every
//! report is judged against that view. A report that breaks one rule is still taken for what its
//! body says, so one fault shows as one failed rule rather than a cascade.

use floor_events::table::{Instruction, Report, SeatNo, SeatStack, TableInstruction, TableReport};
use floor_events::{EntryNo, TournamentId};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One protocol rule (docs/table-servers.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Reports decode.
    Decodes,
    /// Subject and body agree.
    Subject,
    /// `Nats-Msg-Id` and report ids.
    ReportId,
    /// No hand before the first blinds.
    WaitsForBlinds,
    /// A table that may deal does.
    Deals,
    /// Hand numbers and start/finish pairs.
    HandOrder,
    /// Only seated players, in their seats, with chips.
    DealtSeated,
    /// Starting stacks are the chips Floor knows.
    StacksAgree,
    /// Every dealt-in player once in stacks or busts.
    Accounted,
    /// No chips made or lost.
    ChipsConserved,
    /// Busts add up.
    BustsAddUp,
    /// Seat and chip changes are confirmed.
    Confirms,
    /// Only sequences sent are confirmed.
    ConfirmsKnown,
    /// Applied in sequence order.
    SequenceOrder,
    /// An instruction delivered twice is applied once.
    Duplicates,
    /// A removed player is not dealt again.
    RemovedOut,
    /// Hand-for-hand.
    HoldForDeal,
    /// Pause and resume.
    Pause,
    /// A closed table deals no more.
    Closed,
    /// A closed table still applies what follows its `close_table`.
    AfterClose,
    /// A player at zero moved (a rebuy period) is let go, seated at zero and rebought there.
    MovedAtZero,
}

impl Rule {
    /// Every rule, in the order they are listed.
    pub const ALL: [Rule; 21] = [
        Rule::Decodes,
        Rule::Subject,
        Rule::ReportId,
        Rule::WaitsForBlinds,
        Rule::Deals,
        Rule::HandOrder,
        Rule::DealtSeated,
        Rule::StacksAgree,
        Rule::Accounted,
        Rule::ChipsConserved,
        Rule::BustsAddUp,
        Rule::Confirms,
        Rule::ConfirmsKnown,
        Rule::SequenceOrder,
        Rule::Duplicates,
        Rule::RemovedOut,
        Rule::HoldForDeal,
        Rule::Pause,
        Rule::Closed,
        Rule::AfterClose,
        Rule::MovedAtZero,
    ];

    /// Its short id, as printed.
    pub fn id(self) -> &'static str {
        match self {
            Rule::Decodes => "decodes",
            Rule::Subject => "subject",
            Rule::ReportId => "report-id",
            Rule::WaitsForBlinds => "waits-for-blinds",
            Rule::Deals => "deals",
            Rule::HandOrder => "hand-order",
            Rule::DealtSeated => "dealt-seated",
            Rule::StacksAgree => "stacks-agree",
            Rule::Accounted => "accounted",
            Rule::ChipsConserved => "chips-conserved",
            Rule::BustsAddUp => "busts-add-up",
            Rule::Confirms => "confirms",
            Rule::ConfirmsKnown => "confirms-known",
            Rule::SequenceOrder => "sequence-order",
            Rule::Duplicates => "duplicates",
            Rule::RemovedOut => "removed-out",
            Rule::HoldForDeal => "hold-for-deal",
            Rule::Pause => "pause",
            Rule::Closed => "closed",
            Rule::AfterClose => "after-close",
            Rule::MovedAtZero => "moved-at-zero",
        }
    }

    /// The rule in one line.
    pub fn statement(self) -> &'static str {
        match self {
            Rule::Decodes => "every message on a report subject is a TableReport (schemas/tables/report.json)",
            Rule::Subject => "a report is published on floor.table.<tournament>.<table>.out of the tournament and table its body names",
            Rule::ReportId => {
                "a report carries Nats-Msg-Id = <tournament>.<table>.<report_id>; its report_id does not start with `instruction:` and names no other report"
            }
            Rule::WaitsForBlinds => "a table deals no hand before its first blinds instruction",
            Rule::Deals => {
                "with blinds and two or more players with chips, not paused or held, and no player at zero waiting for Floor's word, \
                 a table deals them in"
            }
            Rule::HandOrder => {
                "hands are numbered 1, 2, 3… per table; hand_finished finishes the hand in play; no hand starts while one is in play"
            }
            Rule::DealtSeated => "hand_started lists only players seated at the table, each once, in their seats, with chips",
            Rule::StacksAgree => {
                "hand_started gives each player the chips Floor knows: seat_player's stack (a moved player's too), then the last \
                 hand_finished, plus add_chips once applied"
            }
            Rule::Accounted => "hand_finished lists every dealt-in player once, in stacks (chips > 0) or in busts, and no one else",
            Rule::ChipsConserved => "a hand ends with as many chips as it started with",
            Rule::BustsAddUp => {
                "a bust's stack_at_start is its chips at the hand's start, its pots add up to it, and their winners were dealt in"
            }
            Rule::Confirms => {
                "remove_player and add_chips are each confirmed with instruction_applied (seat_player may be; nothing else is)"
            }
            Rule::ConfirmsKnown => {
                "instruction_applied names only a sequence Floor sent to that table, of a seat_player, remove_player or add_chips"
            }
            Rule::SequenceOrder => {
                "instructions are applied in sequence order, not arrival order: none is confirmed while an earlier one is missing \
                 or an earlier remove_player or add_chips unconfirmed"
            }
            Rule::Duplicates => "an instruction delivered twice is applied once and confirmed once",
            Rule::RemovedOut => "a player is never dealt in at a table after it confirmed their remove_player",
            Rule::HoldForDeal => "after hold_for_deal a table deals only when told deal_hand, one hand each time",
            Rule::Pause => "after pause a table deals no hand until resume",
            Rule::Closed => "after close_table a table deals no more hands",
            Rule::AfterClose => {
                "after close_table a table still reads its instructions: it confirms a remove_player that follows (a player moved \
                 again, or busted in its last hand) and takes a rebuy_offered"
            }
            Rule::MovedAtZero => {
                "a player at zero awaiting a rebuy may be moved: the source confirms the remove_player {moved}, the destination \
                 seats them with stack 0, deals them nothing, and deals them in after add_chips"
            }
        }
    }

    /// Instructions that must be confirmed with `instruction_applied` (docs/table-servers.md,
    /// "Which instructions need `instruction_applied`"). A `seat_player` may be confirmed too:
    /// Floor accepts it and waits for nothing.
    pub fn needs_confirmation(instruction: &Instruction) -> bool {
        matches!(instruction, Instruction::RemovePlayer { .. } | Instruction::AddChips { .. })
    }
}

/// Something the checker saw, in the order it was seen.
#[derive(Debug, Clone)]
pub enum Seen {
    /// Floor's side published an instruction (`again`: a second delivery of a sequence already
    /// sent, with another message id, as after the stream's duplicate window).
    Sent {
        /// The instruction.
        instruction: TableInstruction,
        /// Delivered again.
        again: bool,
    },
    /// A message on a report subject.
    Report {
        /// Its subject.
        subject: String,
        /// Its `Nats-Msg-Id` header.
        msg_id: Option<String>,
        /// Its body.
        payload: Vec<u8>,
    },
    /// The driver waited for something the table did not do.
    Missed {
        /// The rule that asked for it.
        rule: Rule,
        /// At which table.
        table: u32,
        /// What was awaited.
        what: String,
    },
}

/// One broken rule, with the exchange that broke it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// At which table, when one.
    pub table: Option<u32>,
    /// What went wrong.
    pub what: String,
    /// The last messages of that table's exchange, the offending one last (`→` Floor to table,
    /// `←` table to Floor).
    pub exchange: Vec<String>,
}

/// A seated player as Floor sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seated {
    /// The seat.
    pub seat: SeatNo,
    /// Chips as last reported (or as seated).
    pub chips: u64,
    /// Chips added by `add_chips` not yet confirmed.
    pub pending: u64,
    /// A `remove_player` sent, not yet confirmed.
    pub leaving: bool,
}

/// A table's hand in play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InPlay {
    /// Its number.
    pub hand: u64,
    /// Who was dealt in, with their chips.
    pub stacks: BTreeMap<EntryNo, u64>,
}

/// Dealing stopped by an instruction: how many more hands may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stop {
    /// Hands allowed by `deal_hand`.
    pub credits: u64,
    /// Hands that may have started before the table read the instruction, if it was dealing.
    pub racing: u64,
}

/// Floor's view of one table.
#[derive(Debug, Clone, Default)]
pub struct TableView {
    /// Instructions sent, by sequence.
    pub sent: BTreeMap<u64, Instruction>,
    /// Sequences delivered a second time.
    pub again: BTreeSet<u64>,
    /// Sequences confirmed.
    pub confirmed: BTreeSet<u64>,
    /// Blinds sent.
    pub blinds: bool,
    /// Who sits here.
    pub seated: BTreeMap<EntryNo, Seated>,
    /// Players whose removal the table confirmed, with their chips then.
    pub removed: BTreeMap<EntryNo, u64>,
    /// The last hand started.
    pub started: u64,
    /// The last hand finished.
    pub finished: u64,
    /// The hand in play.
    pub in_play: Option<InPlay>,
    /// The last hand each entry was dealt into here.
    pub last_dealt: BTreeMap<EntryNo, u64>,
    /// Held for hand-for-hand.
    pub held: Option<Stop>,
    /// Paused.
    pub paused: Option<Stop>,
    /// Closed.
    pub closed: Option<Stop>,
    /// The sequence of the table's `close_table`.
    pub closed_at: Option<u64>,
    log: Vec<String>,
}

impl TableView {
    /// Entries seated with chips.
    pub fn with_chips(&self) -> impl Iterator<Item = (EntryNo, &Seated)> {
        self.seated.iter().filter(|(_, s)| s.chips > 0 && !s.leaving).map(|(e, s)| (*e, s))
    }

    /// Sequences sent that must be confirmed and are not yet.
    pub fn unconfirmed(&self) -> impl Iterator<Item = u64> + '_ {
        self.sent.iter().filter(|(s, i)| Rule::needs_confirmation(i) && !self.confirmed.contains(s)).map(|(s, _)| *s)
    }

    /// Entries seated at zero, not leaving.
    pub fn at_zero(&self) -> impl Iterator<Item = EntryNo> + '_ {
        self.seated.iter().filter(|(_, s)| s.chips == 0 && s.pending == 0 && !s.leaving).map(|(e, _)| *e)
    }

    /// Hands a dealing table may start after Floor sent a stop (`pause`, `hold_for_deal`,
    /// `close_table`) and before the instruction reaches it: a table reads its instructions
    /// between hands, and how many hands it deals meanwhile is the delivery's latency, not the
    /// table server's choice (two hands on a loaded 2-core machine, where a simulated hand takes
    /// microseconds). A table that ignores the stop deals on, well past this.
    fn racing(&self) -> u64 {
        if self.started > 0 {
            IN_FLIGHT_HANDS
        } else {
            0
        }
    }
}

/// See [`TableView::racing`].
const IN_FLIGHT_HANDS: u64 = 3;

/// Lines of a table's exchange kept with a finding.
const CONTEXT: usize = 8;
/// Findings kept per rule (the rest are counted).
const KEPT: usize = 5;

/// The checker: Floor's view of every table of one tournament, and what broke.
#[derive(Debug, Clone)]
pub struct Checker {
    tournament: TournamentId,
    tables: BTreeMap<u32, TableView>,
    reports: BTreeMap<String, TableReport>,
    findings: BTreeMap<Rule, (Vec<Finding>, usize)>,
}

/// A rule and how it fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// Its id.
    pub id: &'static str,
    /// The rule.
    pub statement: &'static str,
    /// No failure.
    pub passed: bool,
    /// How many times it broke.
    pub failed: usize,
    /// The first few failures.
    pub failures: Vec<Finding>,
}

fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

impl Checker {
    /// A checker for one tournament's tables.
    pub fn new(tournament: TournamentId) -> Self {
        Self { tournament, tables: BTreeMap::new(), reports: BTreeMap::new(), findings: BTreeMap::new() }
    }

    /// Floor's view of a table.
    pub fn table(&self, table: u32) -> TableView {
        self.tables.get(&table).cloned().unwrap_or_default()
    }

    /// Every table with Floor's view of it.
    pub fn tables(&self) -> impl Iterator<Item = (u32, &TableView)> {
        self.tables.iter().map(|(t, v)| (*t, v))
    }

    /// Whether no rule broke.
    pub fn passed(&self) -> bool {
        self.findings.is_empty()
    }

    /// Every rule with its failures.
    pub fn verdicts(&self) -> Vec<Verdict> {
        Rule::ALL
            .iter()
            .map(|&rule| {
                let (failures, failed) = self.findings.get(&rule).cloned().unwrap_or_default();
                Verdict { id: rule.id(), statement: rule.statement(), passed: failed == 0, failed, failures }
            })
            .collect()
    }

    /// The rules that broke.
    pub fn failed(&self) -> BTreeSet<Rule> {
        self.findings.keys().copied().collect()
    }

    fn fail(&mut self, rule: Rule, table: Option<u32>, what: String) {
        let exchange = table.and_then(|t| self.tables.get(&t)).map(|v| v.log.iter().rev().take(CONTEXT).rev().cloned().collect());
        let (kept, count) = self.findings.entry(rule).or_default();
        *count += 1;
        if kept.len() < KEPT {
            kept.push(Finding { rule, table, what, exchange: exchange.unwrap_or_default() });
        }
    }

    fn log(&mut self, table: u32, line: String) {
        self.tables.entry(table).or_default().log.push(line);
    }

    /// Takes one thing seen.
    pub fn observe(&mut self, seen: &Seen) {
        match seen {
            Seen::Sent { instruction, again } => self.sent(instruction, *again),
            Seen::Report { subject, msg_id, payload } => self.report(subject, msg_id.as_deref(), payload),
            Seen::Missed { rule, table, what } => {
                self.log(*table, format!("… {what}: not seen"));
                self.fail(*rule, Some(*table), what.clone());
            }
        }
    }

    fn sent(&mut self, i: &TableInstruction, again: bool) {
        let again_mark = if again { " (again)" } else { "" };
        self.log(i.table, format!("→ #{}{again_mark} {}", i.sequence, json(&i.instruction)));
        let view = self.tables.entry(i.table).or_default();
        if again {
            view.again.insert(i.sequence);
            return;
        }
        view.sent.insert(i.sequence, i.instruction.clone());
        let racing = view.racing();
        match &i.instruction {
            Instruction::Blinds { .. } => view.blinds = true,
            Instruction::SeatPlayer { entry, seat, stack, .. } => {
                view.removed.remove(entry);
                view.seated.insert(*entry, Seated { seat: *seat, chips: *stack, pending: 0, leaving: false });
            }
            Instruction::RemovePlayer { entry, .. } => {
                if let Some(s) = view.seated.get_mut(entry) {
                    s.leaving = true;
                }
            }
            Instruction::AddChips { entry, chips } => {
                if let Some(s) = view.seated.get_mut(entry) {
                    s.pending += chips;
                }
            }
            Instruction::HoldForDeal => view.held = Some(Stop { credits: 0, racing }),
            Instruction::DealHand { .. } => view.held.get_or_insert_with(Stop::default).credits += 1,
            Instruction::Pause { .. } => view.paused = Some(Stop { credits: 0, racing }),
            // `resume` also ends hand-for-hand (docs/table-servers.md, item 8).
            Instruction::Resume => {
                view.paused = None;
                view.held = None;
            }
            Instruction::CloseTable => {
                view.closed = Some(Stop { credits: 0, racing });
                view.closed_at.get_or_insert(i.sequence);
            }
            Instruction::OpenTable { .. } | Instruction::RebuyOffered { .. } => {}
            // The clock at the tables (issue 38): not checked by table-check yet.
            Instruction::TakeBreak { .. }
            | Instruction::HoldPush { .. }
            | Instruction::ClockPaused { .. }
            | Instruction::ClockResumed { .. } => {}
        }
    }

    fn report(&mut self, subject: &str, msg_id: Option<&str>, payload: &[u8]) {
        let on = parse_subject(subject);
        let ours = on.is_some_and(|(t, _)| t == self.tournament.0.to_string());
        let subject_table = on.filter(|_| ours).map(|(_, table)| table);
        let report = match serde_json::from_slice::<TableReport>(payload) {
            Ok(r) => r,
            Err(e) => {
                if let Some(table) = subject_table {
                    self.log(table, format!("← {subject}: {}", String::from_utf8_lossy(payload)));
                    self.fail(Rule::Decodes, Some(table), format!("not a report: {e}"));
                }
                return;
            }
        };
        let body_ours = report.tournament_id == self.tournament;
        if !ours && !body_ours {
            return;
        }
        let table = if body_ours { report.table } else { subject_table.unwrap_or(report.table) };
        self.log(table, format!("← {} {}", report.report_id, json(&report.report)));
        if !ours || subject_table != Some(report.table) || !body_ours {
            self.fail(
                Rule::Subject,
                Some(table),
                format!(
                    "report {} names tournament {} table {} but came on {subject}",
                    report.report_id, report.tournament_id, report.table
                ),
            );
            if !body_ours {
                return;
            }
        }
        // Scoped by tournament and table (issue 33, defect 4): the stream's duplicate window is
        // one for every tournament, and a bare report id collides with another tournament's.
        let scoped = floor_events::table::report_message_id(report.tournament_id, report.table, &report.report_id);
        if msg_id != Some(scoped.as_str()) {
            self.fail(Rule::ReportId, Some(table), format!("report {} came with Nats-Msg-Id {msg_id:?}, not {scoped:?}", report.report_id));
        }
        if report.report_id.is_empty() || report.report_id.starts_with("instruction:") {
            self.fail(Rule::ReportId, Some(table), format!("report id {:?} is empty or Floor's (`instruction:`)", report.report_id));
        }
        match self.reports.get(&report.report_id) {
            // A republish: the stream stores it once, Floor applies it once.
            Some(before) if *before == report => return,
            Some(_) => {
                self.fail(Rule::ReportId, Some(table), format!("report id {} names two different reports", report.report_id));
                return;
            }
            None => {
                self.reports.insert(report.report_id.clone(), report.clone());
            }
        }
        match &report.report {
            Report::HandStarted { hand, stacks, deal_hand, .. } => self.hand_started(table, *hand, stacks, *deal_hand),
            Report::HandFinished { hand, stacks, busts } => self.hand_finished(table, *hand, stacks, busts),
            Report::InstructionApplied { sequence } => self.applied(table, *sequence),
        }
    }

    fn hand_started(&mut self, table: u32, hand: u64, stacks: &[SeatStack], deal_hand: Option<u64>) {
        let mut view = self.tables.entry(table).or_default().clone();
        let mut fails = Vec::new();
        if let Some(in_play) = &view.in_play {
            fails.push((Rule::HandOrder, format!("hand {hand} starts while hand {} is in play", in_play.hand)));
        }
        if hand != view.started + 1 {
            fails.push((Rule::HandOrder, format!("hand {hand} follows hand {}", view.started)));
        }
        if !view.blinds {
            fails.push((Rule::WaitsForBlinds, format!("hand {hand} dealt before any blinds")));
        }
        if let Some(stop) = view.held.as_mut() {
            // A deal on a `deal_hand` names it; one that does not is taken for a deal that
            // crossed the hold.
            match deal_hand {
                Some(_) if stop.credits > 0 => stop.credits -= 1,
                Some(k) => {
                    fails.push((Rule::HoldForDeal, format!("hand {hand} dealt on deal_hand {{{k}}}, which was not sent or was used")))
                }
                None if stop.racing > 0 => stop.racing -= 1,
                None if stop.credits > 0 => {
                    stop.credits -= 1;
                    fails.push((
                        Rule::HoldForDeal,
                        format!("hand {hand} dealt on a deal_hand without naming it (deal_hand in hand_started)"),
                    ));
                }
                None => fails.push((Rule::HoldForDeal, format!("hand {hand} dealt while held (hold_for_deal) with no deal_hand left"))),
            }
        }
        let held = view.held;
        let mut gates = [(view.paused, Rule::Pause, "paused"), (view.closed, Rule::Closed, "closed")];
        for (stop, rule, why) in gates.iter_mut() {
            if let Some(stop) = stop {
                if stop.credits > 0 {
                    stop.credits -= 1;
                } else if stop.racing > 0 {
                    stop.racing -= 1;
                } else {
                    fails.push((*rule, format!("hand {hand} dealt while {why}")));
                }
            }
        }
        let mut dealt = BTreeMap::new();
        for s in stacks {
            if dealt.insert(s.entry, s.chips).is_some() {
                fails.push((Rule::DealtSeated, format!("entry #{} listed twice in hand {hand}", s.entry.0)));
                continue;
            }
            if view.removed.contains_key(&s.entry) {
                fails.push((Rule::RemovedOut, format!("entry #{} dealt into hand {hand} after its removal was confirmed", s.entry.0)));
                continue;
            }
            let Some(seated) = view.seated.get(&s.entry) else {
                fails.push((Rule::DealtSeated, format!("entry #{} dealt into hand {hand} but not seated here", s.entry.0)));
                continue;
            };
            if seated.seat != s.seat {
                fails.push((Rule::DealtSeated, format!("entry #{} in seat {}, seated in seat {}", s.entry.0, s.seat.0, seated.seat.0)));
            }
            if s.chips == 0 {
                fails.push((Rule::DealtSeated, format!("entry #{} dealt in with no chips", s.entry.0)));
            } else if s.chips != seated.chips && s.chips != seated.chips + seated.pending {
                let twice = view.sent.iter().any(|(seq, i)| {
                    view.again.contains(seq)
                        && matches!(i, Instruction::AddChips { entry, chips } if *entry == s.entry && s.chips == seated.chips + seated.pending + chips)
                });
                let rule = if twice { Rule::Duplicates } else { Rule::StacksAgree };
                fails.push((rule, format!("entry #{} starts hand {hand} with {}, Floor knows {}", s.entry.0, s.chips, seated.chips)));
            }
        }
        for (rule, what) in fails {
            self.fail(rule, Some(table), what);
        }
        let view = self.tables.entry(table).or_default();
        view.held = held;
        view.paused = gates[0].0;
        view.closed = gates[1].0;
        view.started = view.started.max(hand);
        for entry in dealt.keys() {
            view.last_dealt.insert(*entry, hand);
        }
        view.in_play = Some(InPlay { hand, stacks: dealt });
    }

    fn hand_finished(&mut self, table: u32, hand: u64, stacks: &[SeatStack], busts: &[floor_events::table::BustReport]) {
        let view = self.tables.entry(table).or_default();
        let in_play = view.in_play.take();
        view.finished = hand;
        // Whatever else is wrong, the chips are what the table says now.
        for s in stacks {
            if let Some(seated) = view.seated.get_mut(&s.entry) {
                seated.chips = s.chips;
            }
        }
        for b in busts {
            if let Some(seated) = view.seated.get_mut(&b.entry) {
                seated.chips = 0;
            }
        }
        let Some(in_play) = in_play else {
            self.fail(Rule::HandOrder, Some(table), format!("hand {hand} finished, but no hand is in play"));
            return;
        };
        let mut fails = Vec::new();
        if in_play.hand != hand {
            fails.push((Rule::HandOrder, format!("hand {hand} finished while hand {} is in play", in_play.hand)));
        }
        let mut seen = BTreeMap::<EntryNo, u32>::new();
        for e in stacks.iter().map(|s| s.entry).chain(busts.iter().map(|b| b.entry)) {
            *seen.entry(e).or_default() += 1;
        }
        for (entry, times) in &seen {
            if !in_play.stacks.contains_key(entry) {
                fails.push((Rule::Accounted, format!("entry #{} in hand {hand}'s result was not dealt in", entry.0)));
            } else if *times > 1 {
                fails.push((Rule::Accounted, format!("entry #{} listed {times} times in hand {hand}'s result", entry.0)));
            }
        }
        for entry in in_play.stacks.keys().filter(|e| !seen.contains_key(e)) {
            fails.push((Rule::Accounted, format!("entry #{} was dealt into hand {hand} and is neither in stacks nor busts", entry.0)));
        }
        for s in stacks.iter().filter(|s| s.chips == 0) {
            fails.push((Rule::Accounted, format!("entry #{} ends hand {hand} in stacks with 0 chips", s.entry.0)));
        }
        let before: u128 = in_play.stacks.values().map(|&c| u128::from(c)).sum();
        let after: u128 = stacks.iter().map(|s| u128::from(s.chips)).sum();
        if before != after {
            fails.push((Rule::ChipsConserved, format!("hand {hand} started with {before} chips and ended with {after}")));
        }
        for b in busts {
            let pots: u128 = b.pots.iter().map(|p| u128::from(p.chips)).sum();
            if let Some(&start) = in_play.stacks.get(&b.entry) {
                if start != b.stack_at_start {
                    fails.push((
                        Rule::BustsAddUp,
                        format!("entry #{} busts with stack_at_start {}, started with {start}", b.entry.0, b.stack_at_start),
                    ));
                }
            }
            if pots != u128::from(b.stack_at_start) {
                fails.push((Rule::BustsAddUp, format!("entry #{}'s pots add up to {pots}, not {}", b.entry.0, b.stack_at_start)));
            }
            for w in b.pots.iter().flat_map(|p| &p.winners).filter(|w| !in_play.stacks.contains_key(w)) {
                fails.push((Rule::BustsAddUp, format!("entry #{}'s chips won by entry #{}, not dealt in", b.entry.0, w.0)));
            }
        }
        for (rule, what) in fails {
            self.fail(rule, Some(table), what);
        }
    }

    fn applied(&mut self, table: u32, sequence: u64) {
        let view = self.tables.entry(table).or_default().clone();
        let Some(instruction) = view.sent.get(&sequence) else {
            self.fail(Rule::ConfirmsKnown, Some(table), format!("instruction_applied for #{sequence}, never sent to table {table}"));
            return;
        };
        if !matches!(instruction, Instruction::SeatPlayer { .. } | Instruction::RemovePlayer { .. } | Instruction::AddChips { .. }) {
            let what = format!("instruction_applied for #{sequence}, {}, which takes none (instruction_not_confirmed)", json(instruction));
            self.fail(Rule::ConfirmsKnown, Some(table), what);
            return;
        }
        if view.confirmed.contains(&sequence) {
            if view.again.contains(&sequence) {
                self.fail(Rule::Duplicates, Some(table), format!("#{sequence} confirmed again after its second delivery"));
            }
            return;
        }
        // A confirmation after a later one's: applied after it (a seat confirmed after the
        // removal that follows it).
        if let Some(later) = view.confirmed.range(sequence + 1..).next() {
            self.fail(Rule::SequenceOrder, Some(table), format!("#{sequence} confirmed after #{later}"));
        }
        let earlier = (1..sequence).find(|k| view.sent.get(k).is_none_or(|i| Rule::needs_confirmation(i) && !view.confirmed.contains(k)));
        if let Some(k) = earlier {
            let why = if view.sent.contains_key(&k) { "unconfirmed" } else { "not even sent" };
            self.fail(Rule::SequenceOrder, Some(table), format!("#{sequence} confirmed while #{k} is {why}"));
        }
        let instruction = instruction.clone();
        let view = self.tables.entry(table).or_default();
        view.confirmed.insert(sequence);
        match instruction {
            Instruction::RemovePlayer { entry, .. } => {
                if let Some(s) = view.seated.remove(&entry) {
                    view.removed.insert(entry, s.chips);
                }
            }
            Instruction::AddChips { entry, chips } => {
                if let Some(s) = view.seated.get_mut(&entry) {
                    s.chips += chips;
                    s.pending = s.pending.saturating_sub(chips);
                }
            }
            _ => {}
        }
    }
}

/// `floor.table.<tournament>.<table>.out` → (tournament, table).
fn parse_subject(subject: &str) -> Option<(&str, u32)> {
    let mut parts = subject.split('.');
    let (Some("floor"), Some("table"), Some(t), Some(table), Some("out"), None) =
        (parts.next(), parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    Some((t, table.parse().ok()?))
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
