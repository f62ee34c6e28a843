//! The rules on recorded exchanges: the docs' worked exchange passes every rule, and each
//! exchange broken in one way fails exactly the rule it breaks.

use super::*;
use floor_events::table::{report_message_id, reports_subject, BustReport, PotWon, Removal};
use floor_events::PlayerId;

fn t() -> TournamentId {
    TournamentId(uuid::Uuid::from_u128(0x0191_e0c2))
}

/// An exchange being recorded: Floor's instructions and the table's reports, in order.
struct Exchange {
    checker: Checker,
    sequences: BTreeMap<u32, u64>,
    reports: u64,
}

fn stack(seat: u8, entry: u32, chips: u64) -> SeatStack {
    SeatStack { seat: SeatNo(seat), entry: EntryNo(entry), chips }
}

fn seat(entry: u32, seat: u8, stack: u64) -> Instruction {
    let player = PlayerId::parse(&format!("p{entry}")).unwrap();
    Instruction::SeatPlayer { entry: EntryNo(entry), player, seat: SeatNo(seat), stack, wait_for_button: false }
}

fn blinds() -> Instruction {
    Instruction::Blinds { level: 1, small_blind: 25, big_blind: 50, ante: 0, big_blind_ante: false }
}

fn bust(entry: u32, chips: u64, winner: u32) -> BustReport {
    BustReport {
        entry: EntryNo(entry),
        stack_at_start: chips,
        pots: vec![PotWon { winners: vec![EntryNo(winner)], chips }],
        best_high_hand: None,
    }
}

fn started(hand: u64, stacks: Vec<SeatStack>) -> Report {
    Report::HandStarted { hand, button: stacks[0].seat, stacks, deal_hand: None }
}

fn finished(hand: u64, stacks: Vec<SeatStack>, busts: Vec<BustReport>) -> Report {
    Report::HandFinished { hand, stacks, busts }
}

impl Exchange {
    fn new() -> Self {
        Self { checker: Checker::new(t()), sequences: BTreeMap::new(), reports: 0 }
    }

    /// Floor sends the table its next instruction; returns its sequence.
    fn send(&mut self, table: u32, instruction: Instruction) -> u64 {
        let sequence = self.sequences.entry(table).or_default();
        *sequence += 1;
        let instruction = TableInstruction { tournament_id: t(), table, sequence: *sequence, instruction };
        self.checker.observe(&Seen::Sent { instruction, again: false });
        *sequence
    }

    fn again(&mut self, table: u32, sequence: u64, instruction: Instruction) {
        let instruction = TableInstruction { tournament_id: t(), table, sequence, instruction };
        self.checker.observe(&Seen::Sent { instruction, again: true });
    }

    /// The table reports on `subject`.
    fn report_on(&mut self, subject: String, table: u32, report: Report) {
        self.reports += 1;
        let report = TableReport { tournament_id: t(), table, report_id: format!("r{}", self.reports), report };
        let payload = serde_json::to_vec(&report).unwrap();
        let msg_id = floor_events::table::report_message_id(report.tournament_id, report.table, &report.report_id);
        self.checker.observe(&Seen::Report { subject, msg_id: Some(msg_id), payload });
    }

    fn report(&mut self, table: u32, report: Report) {
        self.report_on(reports_subject(t(), table), table, report);
    }

    fn applied(&mut self, table: u32, sequence: u64) {
        self.report(table, Report::InstructionApplied { sequence });
    }

    /// Table 4 of the docs' worked exchange, up to hand 1's end: ana (12), ben (17), cleo (23);
    /// ben busts to ana.
    fn worked() -> Self {
        let mut x = Self::new();
        x.send(4, Instruction::OpenTable { seats: 9 });
        for (entry, s) in [(12, 1), (17, 4), (23, 7)] {
            let sequence = x.send(4, seat(entry, s, 10_000));
            x.applied(4, sequence);
        }
        x.send(4, blinds());
        x.report(4, started(1, vec![stack(1, 12, 10_000), stack(4, 17, 10_000), stack(7, 23, 10_000)]));
        x.report(4, finished(1, vec![stack(1, 12, 20_000), stack(7, 23, 10_000)], vec![bust(17, 10_000, 12)]));
        x
    }

    #[track_caller]
    fn fails_only(&self, rule: Rule) {
        assert_eq!(self.checker.failed(), BTreeSet::from([rule]), "{:#?}", self.checker.verdicts());
    }

    #[track_caller]
    fn passes(&self) {
        assert!(self.checker.passed(), "{:#?}", self.checker.verdicts());
    }
}

#[test]
fn the_docs_worked_exchange_passes_every_rule() {
    let mut x = Exchange::worked();
    let out = x.send(4, Instruction::RemovePlayer { entry: EntryNo(17), reason: Removal::Eliminated });
    let dan = x.send(4, seat(5, 2, 8_450));
    x.applied(4, out);
    x.applied(4, dan);
    x.report(4, started(2, vec![stack(1, 12, 20_000), stack(2, 5, 8_450), stack(7, 23, 10_000)]));
    x.report(4, finished(2, vec![stack(1, 12, 20_000), stack(2, 5, 8_450), stack(7, 23, 10_000)], vec![]));
    x.passes();
    let verdicts = x.checker.verdicts();
    assert_eq!(verdicts.len(), Rule::ALL.len());
    assert!(verdicts.iter().all(|v| v.passed && v.failures.is_empty()));
}

#[test]
fn a_report_on_another_tables_subject_breaks_only_subject() {
    let mut x = Exchange::worked();
    x.report_on(reports_subject(t(), 5), 4, started(2, vec![stack(1, 12, 20_000), stack(7, 23, 10_000)]));
    x.fails_only(Rule::Subject);
    let finding = &x.checker.verdicts().into_iter().find(|v| v.id == "subject").unwrap().failures[0];
    assert_eq!(finding.table, Some(4));
    assert!(finding.exchange.last().unwrap().starts_with("← r"), "the offending report closes the exchange: {finding:?}");
}

#[test]
fn a_chip_made_in_a_hand_breaks_only_chips_conserved() {
    let mut x = Exchange::worked();
    x.report(4, started(2, vec![stack(1, 12, 20_000), stack(7, 23, 10_000)]));
    x.report(4, finished(2, vec![stack(1, 12, 20_001), stack(7, 23, 10_000)], vec![]));
    // The next hand starts from what the table reported: no second failure.
    x.report(4, started(3, vec![stack(1, 12, 20_001), stack(7, 23, 10_000)]));
    x.fails_only(Rule::ChipsConserved);
}

#[test]
fn a_hand_before_blinds_breaks_only_waits_for_blinds() {
    let mut x = Exchange::new();
    for (entry, s) in [(1, 1), (2, 2)] {
        let sequence = x.send(1, seat(entry, s, 100));
        x.applied(1, sequence);
    }
    x.report(1, started(1, vec![stack(1, 1, 100), stack(2, 2, 100)]));
    x.fails_only(Rule::WaitsForBlinds);
}

#[test]
fn held_tables_deal_one_hand_per_deal_hand() {
    let mut x = Exchange::worked();
    x.send(4, Instruction::HoldForDeal);
    let both = || vec![stack(1, 12, 20_000), stack(7, 23, 10_000)];
    // The table was dealing: a few hands may start before the hold reaches it.
    let racing = super::IN_FLIGHT_HANDS;
    for hand in 2..2 + racing {
        x.report(4, started(hand, both()));
        x.report(4, finished(hand, both(), vec![]));
    }
    let dealt = 2 + racing;
    x.send(4, Instruction::DealHand { hand: 1 });
    let on_deal_hand = |hand, k| match started(hand, both()) {
        Report::HandStarted { hand, button, stacks, .. } => Report::HandStarted { hand, button, stacks, deal_hand: Some(k) },
        other => other,
    };
    x.report(4, on_deal_hand(dealt, 1));
    x.report(4, finished(dealt, both(), vec![]));
    x.passes();
    x.report(4, started(dealt + 1, both()));
    x.fails_only(Rule::HoldForDeal);
}

#[test]
fn a_deal_on_a_deal_hand_that_does_not_name_it_breaks_hold_for_deal() {
    let mut x = Exchange::worked();
    x.send(4, Instruction::HoldForDeal);
    let both = || vec![stack(1, 12, 20_000), stack(7, 23, 10_000)];
    for hand in 2..2 + super::IN_FLIGHT_HANDS {
        x.report(4, started(hand, both()));
        x.report(4, finished(hand, both(), vec![]));
    }
    x.send(4, Instruction::DealHand { hand: 1 });
    x.report(4, started(2 + super::IN_FLIGHT_HANDS, both()));
    x.fails_only(Rule::HoldForDeal);
}

#[test]
fn a_paused_or_closed_table_that_deals_breaks_that_rule() {
    for (stop, rule) in [(Instruction::Pause { reason: String::new() }, Rule::Pause), (Instruction::CloseTable, Rule::Closed)] {
        let mut x = Exchange::new();
        x.send(1, stop);
        let sequence = x.send(1, seat(1, 1, 100));
        x.applied(1, sequence);
        let sequence = x.send(1, seat(2, 2, 100));
        x.applied(1, sequence);
        x.send(1, blinds());
        x.report(1, started(1, vec![stack(1, 1, 100), stack(2, 2, 100)]));
        x.fails_only(rule);
    }
}

#[test]
fn confirming_a_sequence_never_sent_breaks_only_confirms_known() {
    let mut x = Exchange::worked();
    x.applied(4, 99_999);
    x.fails_only(Rule::ConfirmsKnown);
}

#[test]
fn a_removed_player_dealt_again_breaks_only_removed_out() {
    let mut x = Exchange::worked();
    let away = x.send(4, Instruction::RemovePlayer { entry: EntryNo(23), reason: Removal::Moved { to_table: 2, to_seat: SeatNo(3) } });
    // Dealt once more before the table confirms: allowed (the move waits for the hand).
    x.report(4, started(2, vec![stack(1, 12, 20_000), stack(7, 23, 10_000)]));
    x.report(4, finished(2, vec![stack(1, 12, 19_000), stack(7, 23, 11_000)], vec![]));
    x.applied(4, away);
    x.passes();
    assert_eq!(x.checker.table(4).removed.get(&EntryNo(23)), Some(&11_000), "the stack to move is the last one reported");
    x.report(4, started(3, vec![stack(1, 12, 19_000), stack(7, 23, 11_000)]));
    x.fails_only(Rule::RemovedOut);
}

#[test]
fn confirming_out_of_sequence_breaks_only_sequence_order() {
    let mut x = Exchange::worked();
    let seated = x.send(4, seat(7, 9, 500));
    let removed = x.send(4, Instruction::RemovePlayer { entry: EntryNo(7), reason: Removal::Eliminated });
    x.applied(4, removed);
    x.applied(4, seated);
    x.fails_only(Rule::SequenceOrder);
}

#[test]
fn chips_added_twice_for_one_instruction_break_only_duplicates() {
    let mut x = Exchange::worked();
    let add = Instruction::AddChips { entry: EntryNo(23), chips: 5_000 };
    let sequence = x.send(4, add.clone());
    x.again(4, sequence, add);
    x.applied(4, sequence);
    x.report(4, started(2, vec![stack(1, 12, 20_000), stack(7, 23, 15_000)]));
    x.passes();
    x.report(4, finished(2, vec![stack(1, 12, 20_000), stack(7, 23, 15_000)], vec![]));
    x.applied(4, sequence);
    x.fails_only(Rule::Duplicates);
    let mut y = Exchange::worked();
    let add = Instruction::AddChips { entry: EntryNo(23), chips: 5_000 };
    let sequence = y.send(4, add.clone());
    y.again(4, sequence, add);
    y.applied(4, sequence);
    y.report(4, started(2, vec![stack(1, 12, 20_000), stack(7, 23, 20_000)]));
    y.fails_only(Rule::Duplicates);
}

#[test]
fn hand_results_that_do_not_add_up_break_their_rules() {
    let both = || vec![stack(1, 12, 20_000), stack(7, 23, 10_000)];
    let cases: Vec<(Report, Rule)> = vec![
        (finished(2, vec![stack(1, 12, 30_000)], vec![]), Rule::Accounted),
        (finished(2, vec![stack(1, 12, 30_000), stack(7, 23, 0)], vec![]), Rule::Accounted),
        (finished(2, vec![stack(1, 12, 30_000)], vec![BustReport { stack_at_start: 9_000, ..bust(23, 10_000, 12) }]), Rule::BustsAddUp),
        (finished(2, vec![stack(1, 12, 30_000)], vec![bust(23, 10_000, 17)]), Rule::BustsAddUp),
        (finished(3, both(), vec![]), Rule::HandOrder),
    ];
    for (report, rule) in cases {
        let mut x = Exchange::worked();
        x.report(4, started(2, both()));
        x.report(4, report.clone());
        x.fails_only(rule);
    }
}

#[test]
fn hand_starts_that_do_not_fit_break_their_rules() {
    let cases: Vec<(Report, Rule)> = vec![
        (started(3, vec![stack(1, 12, 20_000), stack(7, 23, 10_000)]), Rule::HandOrder),
        (started(2, vec![stack(1, 12, 20_000), stack(6, 23, 10_000)]), Rule::DealtSeated),
        (started(2, vec![stack(1, 12, 20_000), stack(4, 17, 0)]), Rule::DealtSeated),
        (started(2, vec![stack(1, 12, 20_000), stack(5, 99, 10_000)]), Rule::DealtSeated),
        (started(2, vec![stack(1, 12, 20_000), stack(7, 23, 9_000)]), Rule::StacksAgree),
    ];
    for (report, rule) in cases {
        let mut x = Exchange::worked();
        x.report(4, report.clone());
        x.fails_only(rule);
    }
}

#[test]
fn unreadable_reports_and_wrong_ids_break_decodes_and_report_id() {
    let mut x = Exchange::worked();
    x.checker.observe(&Seen::Report { subject: reports_subject(t(), 4), msg_id: None, payload: b"{not json".to_vec() });
    x.fails_only(Rule::Decodes);
    let mut y = Exchange::worked();
    // r1 was the first seat's confirmation (#2): the same report again is a republish…
    let report = TableReport { tournament_id: t(), table: 4, report_id: "r1".into(), report: Report::InstructionApplied { sequence: 2 } };
    let payload = serde_json::to_vec(&report).unwrap();
    y.checker.observe(&Seen::Report { subject: reports_subject(t(), 4), msg_id: Some(report_message_id(t(), 4, "r1")), payload });
    y.passes();
    // … and the same id for another report is not.
    let report = TableReport { report: Report::InstructionApplied { sequence: 3 }, ..report };
    let payload = serde_json::to_vec(&report).unwrap();
    y.checker.observe(&Seen::Report { subject: reports_subject(t(), 4), msg_id: Some(report_message_id(t(), 4, "r1")), payload });
    y.fails_only(Rule::ReportId);
    let mut z = Exchange::worked();
    let report = TableReport { report_id: "fresh".into(), ..report };
    let payload = serde_json::to_vec(&report).unwrap();
    z.checker.observe(&Seen::Report { subject: reports_subject(t(), 4), msg_id: Some("other".into()), payload });
    z.fails_only(Rule::ReportId);
    // The bare report id, as the contract said before issue 33, is not scoped either.
    let mut bare = Exchange::worked();
    let report = TableReport { report_id: "bare".into(), ..report };
    let payload = serde_json::to_vec(&report).unwrap();
    bare.checker.observe(&Seen::Report { subject: reports_subject(t(), 4), msg_id: Some("bare".into()), payload });
    bare.fails_only(Rule::ReportId);
}

#[test]
fn a_wait_that_ran_out_fails_its_rule_and_reports_of_other_tournaments_are_not_ours() {
    let mut x = Exchange::worked();
    let stranger = TournamentId(uuid::Uuid::from_u128(9));
    let report =
        TableReport { tournament_id: stranger, table: 4, report_id: "s1".into(), report: Report::InstructionApplied { sequence: 1 } };
    let payload = serde_json::to_vec(&report).unwrap();
    x.checker.observe(&Seen::Report { subject: reports_subject(stranger, 4), msg_id: Some("s1".into()), payload });
    x.passes();
    x.checker.observe(&Seen::Missed { rule: Rule::Confirms, table: 4, what: "instruction_applied for #[9]".into() });
    x.fails_only(Rule::Confirms);
}

#[test]
fn every_rule_is_listed_in_the_table_server_docs() {
    let docs = include_str!("../../../../docs/table-servers.md");
    let section = docs.split("## Checking your table server").nth(1).expect("docs/table-servers.md has the section");
    for rule in Rule::ALL {
        assert!(section.contains(&format!("| `{}` |", rule.id())), "rule {} is not in the docs' table", rule.id());
    }
    let listed = section.lines().filter(|l| l.starts_with("| `")).count();
    assert_eq!(listed, Rule::ALL.len(), "the docs list a rule the check does not have");
}

/// docs/table-servers.md, "Which instructions need `instruction_applied`": a `seat_player`
/// need not be confirmed (Floor waits for nothing), and a later removal confirmed while the
/// seat is not breaks no rule; confirming an instruction that takes no confirmation does.
#[test]
fn seats_need_no_confirmation_and_blinds_take_none() {
    let mut x = Exchange::new();
    x.send(1, Instruction::OpenTable { seats: 9 });
    x.send(1, seat(1, 1, 100));
    let away = x.send(1, Instruction::RemovePlayer { entry: EntryNo(1), reason: Removal::Eliminated });
    x.applied(1, away);
    x.passes();
    let blinds_at = x.send(1, blinds());
    x.applied(1, blinds_at);
    x.fails_only(Rule::ConfirmsKnown);
}

/// A closed table still takes a `remove_player` after its `close_table` and may confirm it.
#[test]
fn a_removal_after_the_close_is_confirmed_without_breaking_a_rule() {
    let mut x = Exchange::worked();
    x.send(4, Instruction::CloseTable);
    let away = x.send(4, Instruction::RemovePlayer { entry: EntryNo(23), reason: Removal::Moved { to_table: 2, to_seat: SeatNo(3) } });
    x.applied(4, away);
    x.passes();
}
