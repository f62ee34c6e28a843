//! The bubble decider, case by case (the rulebooks' own cases) and by property.

use crate::domain::{BubbleAggregate, BubbleCommand as C, BubbleState, FieldNow, Phase};
use crate::ranking;
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::bubble::{
    AcrossTables, BubbleEvent as E, EliminationOrdering, EndCause, EqualStacks, HandBust, HandForHandRules, HandForHandSettings, Placed,
    StartCause, Trigger,
};
use floor_events::{codes, EntryNo, RuleProfile, TournamentId};
use floor_rules::payout_table::{Band, PayoutTable};
use floor_runtime::spec::given;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn t0() -> DateTime<Utc> {
    "2026-12-06T20:00:00Z".parse().unwrap()
}

fn secs(s: i64) -> DateTime<Utc> {
    t0() + Duration::seconds(s)
}

fn rules(profile: RuleProfile) -> HandForHandRules {
    profile.hand_for_hand()
}

fn configured(rules: HandForHandRules) -> E {
    E::BubbleConfigured { tournament_id: TournamentId::new(), rules }
}

fn field(players_left: u32, boundary: u32, tables: &[u32]) -> FieldNow {
    FieldNow { players_left, boundary, tables: tables.to_vec(), dealing: tables.to_vec() }
}

fn bust(entry: u32, table: u32, stack: u64) -> HandBust {
    HandBust { entry: EntryNo(entry), table, stack_at_start: stack, seat_order: entry }
}

/// Folds `history` and decides `command`, returning the events (panics on a rejection).
fn decide(history: &[E], command: C) -> Vec<E> {
    given::<BubbleAggregate>(history.to_vec()).when(command).accepted()
}

/// Configured under `rules`; 18 paid; hand-for-hand announced at 19 left over tables 1–3, each
/// with a hand in progress (hand 0).
fn announced(rules: HandForHandRules) -> Vec<E> {
    let mut history = vec![configured(rules)];
    let events = decide(&history, C::Field { field: field(19, 18, &[1, 2, 3]), at: secs(0) });
    history.extend(events);
    history
}

/// `history` with every table of hand 0 finished without busts and hand 1 released to 1–3.
fn at_hand_one(rules: HandForHandRules) -> Vec<E> {
    let mut history = announced(rules);
    for table in 1..=3 {
        let events = decide(&history, C::Finished { table, table_hand: 100 + u64::from(table), busts: vec![], at: secs(10) });
        history.extend(events);
    }
    history.extend(decide(&history, C::Release { tables: vec![1, 2, 3], at: secs(20) }));
    for table in 1..=3 {
        history.extend(decide(&history, C::Dealt { table, table_hand: 200 + u64::from(table), crossing: false, at: secs(21) }));
    }
    history
}

fn finish(history: &mut Vec<E>, table: u32, busts: Vec<HandBust>) -> Vec<E> {
    let events = decide(history, C::Finished { table, table_hand: 200 + u64::from(table), busts, at: secs(30) });
    history.extend(events.clone());
    events
}

fn completed(events: &[E]) -> Vec<Placed> {
    events
        .iter()
        .find_map(|e| if let E::HandCompleted { placed, .. } = e { Some(placed.clone()) } else { None })
        .expect("the hand completed")
}

fn places(placed: &[Placed]) -> Vec<(u32, u32, u32)> {
    placed.iter().map(|p| (p.bust.entry.0, p.place, p.shared)).collect()
}

/// 18 paid; place 18 pays 100.01, place 17 pays 150.00.
fn payout_table() -> PayoutTable {
    PayoutTable {
        bands: vec![
            Band { from: 1, to: 16, amount: 1_000_000 },
            Band { from: 17, to: 17, amount: 15_000 },
            Band { from: 18, to: 18, amount: 10_001 },
        ],
    }
}

#[test]
fn the_trigger_announces_hand_for_hand_at_paid_places_plus_the_profile_s_number() {
    // TDA: paid + 1. 18 paid: 20 left is not yet, 19 is.
    let history = vec![configured(rules(RuleProfile::Tda2024))];
    given::<BubbleAggregate>(history.clone()).when(C::Field { field: field(20, 18, &[1, 2]), at: secs(0) }).then(vec![]);
    given::<BubbleAggregate>(history.clone()).when(C::Field { field: field(19, 18, &[1, 2]), at: secs(0) }).then(vec![
        E::HandForHandStarted {
            cause: StartCause::Trigger,
            players_left: 19,
            boundary: 18,
            tables: vec![1, 2],
            dealing: vec![1, 2],
            at: secs(0),
        },
    ]);
    // 002 §2.3: one or two more than the prizes: 20 left is hand-for-hand.
    let svenska = vec![configured(rules(RuleProfile::SvenskaSpel2012))];
    let events = decide(&svenska, C::Field { field: field(20, 18, &[1, 2]), at: secs(0) });
    assert!(matches!(events[..], [E::HandForHandStarted { players_left: 20, .. }]), "{events:?}");
    // At or past the bubble there is nothing to start.
    given::<BubbleAggregate>(history).when(C::Field { field: field(18, 18, &[1, 2]), at: secs(0) }).then(vec![]);
}

#[test]
fn at_one_table_hand_for_hand_is_a_no_op() {
    let history = vec![configured(rules(RuleProfile::Tda2024))];
    given::<BubbleAggregate>(history.clone()).when(C::Field { field: field(19, 18, &[4]), at: secs(0) }).then(vec![]);
    given::<BubbleAggregate>(history).when(C::Start { field: field(19, 18, &[4]), at: secs(0) }).then(vec![]);
    // And when breaking leaves one table between hands, it ends instead of releasing.
    let mut history = announced(rules(RuleProfile::Tda2024));
    for table in 1..=3 {
        history.extend(decide(&history, C::Finished { table, table_hand: 1, busts: vec![], at: secs(5) }));
    }
    given::<BubbleAggregate>(history).when(C::Release { tables: vec![2], at: secs(9) }).then(vec![E::HandForHandEnded {
        cause: EndCause::OneTable,
        players_left: 19,
        at: secs(9),
    }]);
}

#[test]
fn two_busts_at_different_tables_in_one_hand_are_ranked_by_starting_stack_under_pokerstars() {
    let mut history = at_hand_one(rules(RuleProfile::ReelCz));
    assert!(finish(&mut history, 1, vec![bust(11, 1, 4_000)]).len() == 1, "two tables still owe hand 1");
    finish(&mut history, 2, vec![]);
    let events = finish(&mut history, 3, vec![bust(12, 3, 9_000)]);
    let placed = completed(&events);
    assert_eq!(places(&placed), vec![(12, 18, 1), (11, 19, 1)], "more chips at the start of the hand finishes higher");
    assert_eq!(ranking::award(&payout_table(), &placed).unwrap(), vec![(EntryNo(12), 10_001), (EntryNo(11), 0)]);
    assert!(matches!(events.last(), Some(E::HandForHandEnded { cause: EndCause::Burst, players_left: 17, .. })), "{events:?}");
}

/// WSOP's rule (a definition's `ordering`), on TDA's other settings: busts at different tables
/// in one hand tie.
fn wsop() -> HandForHandRules {
    let tie = EliminationOrdering { across_tables: AcrossTables::Tie, equal_stacks: EqualStacks::Split };
    HandForHandRules { ordering: tie, ..rules(RuleProfile::Tda2024) }
}

#[test]
fn two_busts_at_different_tables_tie_and_split_under_wsop_with_the_remainder_rule() {
    // WSOP's rule, a definition's choice: different tables, same hand: tie and split.
    let mut history = at_hand_one(wsop());
    finish(&mut history, 1, vec![bust(11, 1, 4_000)]);
    finish(&mut history, 3, vec![]);
    let placed = completed(&finish(&mut history, 2, vec![bust(12, 2, 9_000)]));
    assert_eq!(places(&placed), vec![(12, 18, 2), (11, 18, 2)]);
    // Places 18 and 19: 100.01 + 0 over two: the odd cent to the bigger stack.
    let paid = ranking::award(&payout_table(), &placed).unwrap();
    assert_eq!(paid, vec![(EntryNo(12), 5_001), (EntryNo(11), 5_000)]);
    assert_eq!(paid.iter().map(|p| p.1).sum::<u64>(), 10_001, "money in = money out, to the cent");
}

#[test]
fn three_busts_at_three_tables_by_each_profile_s_rule() {
    let natural8 = EliminationOrdering { across_tables: AcrossTables::ByStack, equal_stacks: EqualStacks::SeatOrder };
    // (entry, best place, sharers) per bust, best first.
    type Places = Vec<(u32, u32, u32)>;
    let cases: [(&str, HandForHandRules, Places); 3] = [
        // Two equal stacks share places 18–19 and split their prizes; the short stack is 20th.
        // Within a shared range, the remainder order: equal stacks, so seat order (12 before 13).
        ("pokerstars", rules(RuleProfile::ReelCz), vec![(12, 18, 2), (13, 18, 2), (11, 20, 1)]),
        ("wsop", wsop(), vec![(12, 18, 3), (13, 18, 3), (11, 18, 3)]),
        // Natural8: the equal stacks are ordered by seat (bust() seats entry 12 before 13).
        ("natural8", HandForHandRules { ordering: natural8, ..rules(RuleProfile::Tda2024) }, vec![(12, 18, 1), (13, 19, 1), (11, 20, 1)]),
    ];
    for (name, rules, expected) in cases {
        // 20 left at hand 1 this time (trigger 2 before the bubble).
        let rules = HandForHandRules { trigger: Trigger::PlayersBeforeBubble { players: 2 }, ..rules };
        let mut history = vec![configured(rules)];
        history.extend(decide(&history, C::Field { field: field(20, 18, &[1, 2, 3]), at: secs(0) }));
        for table in 1..=3 {
            history.extend(decide(&history, C::Finished { table, table_hand: 1, busts: vec![], at: secs(5) }));
        }
        history.extend(decide(&history, C::Release { tables: vec![1, 2, 3], at: secs(6) }));
        for table in 1..=3 {
            history.extend(decide(&history, C::Dealt { table, table_hand: 200 + u64::from(table), crossing: false, at: secs(7) }));
        }
        finish(&mut history, 1, vec![bust(11, 1, 1_000)]);
        finish(&mut history, 2, vec![bust(12, 2, 5_000)]);
        let placed = completed(&finish(&mut history, 3, vec![bust(13, 3, 5_000)]));
        assert_eq!(places(&placed), expected, "{name}");
        let paid: u64 = ranking::award(&payout_table(), &placed).unwrap().iter().map(|p| p.1).sum();
        assert_eq!(paid, 10_001, "{name}: places 18–20 pay 100.01 in all, to the cent");
    }
}

#[test]
fn busts_on_the_announcement_hand_share_the_place_rp_8_a() {
    // TDA RP-8 A: 50 paid, 52 left, three bust on the announcement hand: all three share the
    // 50th-place payout, whatever their stacks.
    let mut history = vec![configured(rules(RuleProfile::ReelCz))];
    let rules_two = HandForHandSettings { trigger: Some(Trigger::PlayersBeforeBubble { players: 2 }), ..Default::default() };
    history[0] = configured(rules(RuleProfile::ReelCz).with(Some(rules_two)));
    history.extend(decide(&history, C::Field { field: field(52, 50, &[1, 2, 3]), at: secs(0) }));
    history
        .extend(decide(&history, C::Finished { table: 1, table_hand: 9, busts: vec![bust(1, 1, 100), bust(2, 1, 70_000)], at: secs(3) }));
    history.extend(decide(&history, C::Finished { table: 2, table_hand: 4, busts: vec![], at: secs(4) }));
    let events = decide(&history, C::Finished { table: 3, table_hand: 7, busts: vec![bust(3, 3, 2_000)], at: secs(5) });
    let placed = completed(&events);
    assert_eq!(places(&placed), vec![(2, 50, 3), (3, 50, 3), (1, 50, 3)]);
    let fifty = PayoutTable { bands: vec![Band { from: 1, to: 50, amount: 10_000 }] };
    let paid = ranking::award(&fifty, &placed).unwrap();
    assert_eq!(
        paid,
        vec![(EntryNo(2), 3_334), (EntryNo(3), 3_333), (EntryNo(1), 3_333)],
        "a third of 50th each, the odd cent to the bigger stack"
    );
    assert!(matches!(events.last(), Some(E::HandForHandEnded { cause: EndCause::Burst, players_left: 49, .. })));
}

#[test]
fn bad_input_gets_its_code_and_no_event() {
    let history = at_hand_one(rules(RuleProfile::Tda2024));
    // A hand_finished for a hand that was not released to the table (its own number differs).
    given::<BubbleAggregate>(history.clone())
        .when(C::Finished { table: 1, table_hand: 999, busts: vec![], at: secs(30) })
        .then_reject(codes::HAND_NOT_RELEASED);
    // A table dealing while held: it finished hand 1; hand 2 is not released.
    let mut held = history.clone();
    finish(&mut held, 1, vec![]);
    given::<BubbleAggregate>(held.clone())
        .when(C::Dealt { table: 1, table_hand: 202, crossing: false, at: secs(31) })
        .then_reject(codes::TABLE_HELD);
    given::<BubbleAggregate>(held.clone())
        .when(C::Finished { table: 1, table_hand: 201, busts: vec![], at: secs(31) })
        .then_reject(codes::HAND_NOT_RELEASED);
    // A second deal in the same hand.
    given::<BubbleAggregate>(history.clone())
        .when(C::Dealt { table: 2, table_hand: 203, crossing: false, at: secs(31) })
        .then_reject(codes::TABLE_HELD);
    // Release while tables owe the hand.
    given::<BubbleAggregate>(held).when(C::Release { tables: vec![1, 2, 3], at: secs(31) }).then_reject(codes::HAND_IN_PROGRESS);
    // A table not in hand-for-hand; a bust reported twice or at another table.
    given::<BubbleAggregate>(history.clone())
        .when(C::Dealt { table: 9, table_hand: 1, crossing: false, at: secs(31) })
        .then_reject(codes::UNKNOWN_TABLE);
    given::<BubbleAggregate>(history.clone())
        .when(C::Finished { table: 1, table_hand: 201, busts: vec![bust(5, 1, 1), bust(5, 1, 1)], at: secs(31) })
        .then_reject(codes::ENTRY_ALREADY_ELIMINATED);
    given::<BubbleAggregate>(history.clone())
        .when(C::Finished { table: 1, table_hand: 201, busts: vec![bust(5, 2, 1)], at: secs(31) })
        .then_reject(codes::INVALID_FIELD);
    let eleven: Vec<HandBust> = (1..=11).map(|e| bust(e, 1, 1)).collect();
    given::<BubbleAggregate>(history.clone())
        .when(C::Finished { table: 1, table_hand: 201, busts: eleven, at: secs(31) })
        .then_reject(codes::INVALID_FIELD);
    // A director release for a tournament not in hand-for-hand; a bubble never configured.
    let idle = vec![configured(rules(RuleProfile::Tda2024))];
    for command in [
        C::Release { tables: vec![1, 2], at: secs(1) },
        C::ReleaseWithout { tables: vec![], at: secs(1) },
        C::Pause { reason: "dinner".into(), at: secs(1) },
        C::Resume { at: secs(1) },
        C::Stop { at: secs(1) },
        C::Dealt { table: 1, table_hand: 1, crossing: false, at: secs(1) },
        C::Finished { table: 1, table_hand: 1, busts: vec![], at: secs(1) },
    ] {
        given::<BubbleAggregate>(idle.clone()).when(command).then_reject(codes::NOT_IN_HAND_FOR_HAND);
    }
    given::<BubbleAggregate>(vec![]).when(C::Stop { at: secs(1) }).then_reject(codes::UNKNOWN_TOURNAMENT);
    given::<BubbleAggregate>(history.clone())
        .when(C::Start { field: field(19, 18, &[1, 2]), at: secs(1) })
        .then_reject(codes::HAND_FOR_HAND_RUNNING);
    given::<BubbleAggregate>(history).when(C::Pause { reason: "a\u{1b}[2J".into(), at: secs(1) }).then_reject(codes::CONTROL_CHARACTER);
}

#[test]
fn a_director_stops_waiting_for_a_silent_table_and_its_late_busts_are_a_group_of_their_own() {
    let mut history = at_hand_one(rules(RuleProfile::ReelCz));
    finish(&mut history, 1, vec![]);
    finish(&mut history, 2, vec![]);
    given::<BubbleAggregate>(history.clone()).when(C::ReleaseWithout { tables: vec![1], at: secs(90) }).then_reject(codes::TABLE_NOT_OWED);
    let events = decide(&history, C::ReleaseWithout { tables: vec![], at: secs(90) });
    assert_eq!(events[0], E::TablesExcused { hand: 1, tables: vec![3], at: secs(90) });
    assert!(matches!(events[1], E::HandCompleted { hand: 1, .. }));
    history.extend(events);
    // Hand 2 goes to tables 1 and 2 only: table 3 still plays hand 1.
    let events = decide(&history, C::Release { tables: vec![1, 2, 3], at: secs(91) });
    assert_eq!(events, vec![E::HandReleased { hand: 2, tables: vec![1, 2], at: secs(91) }]);
    history.extend(events);
    // Table 3 reports its hand 1 late: its bust is placed on its own, and it holds.
    let events = decide(&history, C::Finished { table: 3, table_hand: 203, busts: vec![bust(31, 3, 700)], at: secs(95) });
    assert!(
        matches!(&events[..], [E::TableFinished { late: true, hand: 1, .. }, E::LateBustsPlaced { hand: 1, players_left_before: 19, .. }]),
        "{events:?}"
    );
    assert_eq!(events.len(), 2, "18 left, but hand 2 is still owed: its completion looks at the bubble");
    history.extend(events);
    given::<BubbleAggregate>(history)
        .when(C::Dealt { table: 3, table_hand: 204, crossing: false, at: secs(96) })
        .then_reject(codes::TABLE_HELD);
}

#[test]
fn a_paused_bubble_releases_nothing_until_it_resumes_and_a_director_stop_ends_it_for_good() {
    let mut history = announced(rules(RuleProfile::Tda2024));
    history.extend(decide(&history, C::Pause { reason: "floor call at table 2".into(), at: secs(1) }));
    for table in 1..=3 {
        history.extend(decide(&history, C::Finished { table, table_hand: 5, busts: vec![], at: secs(2) }));
    }
    given::<BubbleAggregate>(history.clone())
        .when(C::Release { tables: vec![1, 2, 3], at: secs(3) })
        .then_reject(codes::HAND_FOR_HAND_PAUSED);
    history.extend(decide(&history, C::Resume { at: secs(4) }));
    assert!(matches!(decide(&history, C::Release { tables: vec![1, 2, 3], at: secs(5) })[..], [E::HandReleased { hand: 1, .. }]));
    history.extend(decide(&history, C::Stop { at: secs(6) }));
    // The trigger does not start it again; the director may.
    given::<BubbleAggregate>(history.clone()).when(C::Field { field: field(19, 18, &[1, 2, 3]), at: secs(7) }).then(vec![]);
    let events = decide(&history, C::Start { field: field(19, 18, &[1, 2]), at: secs(8) });
    assert!(matches!(events[..], [E::HandForHandStarted { cause: StartCause::Director, .. }]));
}

#[test]
fn an_idle_table_at_the_announcement_holds_at_once_but_may_finish_a_hand_the_hold_did_not_reach() {
    let mut history = vec![configured(rules(RuleProfile::Tda2024))];
    let f = FieldNow { players_left: 19, boundary: 18, tables: vec![1, 2], dealing: vec![1] };
    history.extend(decide(&history, C::Field { field: f, at: secs(0) }));
    // Table 2 had no hand in progress; its deal crossed the hold: that hand is its hand 0.
    history.extend(decide(&history, C::Dealt { table: 2, table_hand: 8, crossing: true, at: secs(1) }));
    let events = decide(&history, C::Finished { table: 1, table_hand: 3, busts: vec![], at: secs(2) });
    assert_eq!(events.len(), 1, "table 2 owes hand 0 now");
    history.extend(events);
    let events = decide(&history, C::Finished { table: 2, table_hand: 8, busts: vec![], at: secs(3) });
    assert!(matches!(events[..], [E::TableFinished { .. }, E::HandCompleted { hand: 0, .. }]));
    // Every table between hands: hand 0 is complete at once.
    let all_idle = FieldNow { players_left: 19, boundary: 18, tables: vec![1, 2], dealing: vec![] };
    let events = decide(&[configured(rules(RuleProfile::Tda2024))], C::Field { field: all_idle, at: secs(0) });
    assert!(matches!(events[..], [E::HandForHandStarted { .. }, E::HandCompleted { hand: 0, .. }]));
}

#[test]
fn a_deal_that_crossed_the_hold_read_after_hand_0_is_a_late_hand_0_and_the_table_still_owes_its_release() {
    let mut history = vec![configured(rules(RuleProfile::Tda2024))];
    let f = FieldNow { players_left: 19, boundary: 17, tables: vec![1, 2], dealing: vec![1] };
    history.extend(decide(&history, C::Start { field: f, at: secs(0) }));
    // Table 1 finishes hand 0 before table 2's crossing deal is read: hand 0 is complete.
    let events = decide(&history, C::Finished { table: 1, table_hand: 3, busts: vec![], at: secs(1) });
    assert!(matches!(events[..], [E::TableFinished { .. }, E::HandCompleted { hand: 0, .. }]), "{events:?}");
    history.extend(events);
    history.extend(decide(&history, C::Release { tables: vec![1, 2], at: secs(2) }));
    let events = decide(&history, C::Dealt { table: 2, table_hand: 8, crossing: true, at: secs(3) });
    assert_eq!(events, vec![E::TableDealt { table: 2, hand: 0, table_hand: 8, crossing: true, at: secs(3) }]);
    history.extend(events);
    given::<BubbleAggregate>(history.clone())
        .when(C::Dealt { table: 2, table_hand: 9, crossing: true, at: secs(3) })
        .then_reject(codes::TABLE_HELD);
    history.extend(decide(&history, C::Dealt { table: 1, table_hand: 4, crossing: false, at: secs(4) }));
    // A table dealing its released hand has no deal before the hold left to report.
    given::<BubbleAggregate>(history.clone())
        .when(C::Dealt { table: 1, table_hand: 5, crossing: true, at: secs(4) })
        .then_reject(codes::TABLE_HELD);
    // The crossing hand's bust is a group of its own, below everyone still in.
    let events = decide(&history, C::Finished { table: 2, table_hand: 8, busts: vec![bust(21, 2, 500)], at: secs(5) });
    assert!(
        matches!(&events[..], [E::TableFinished { late: true, hand: 0, .. }, E::LateBustsPlaced { hand: 0, players_left_before: 19, placed }] if places(placed) == vec![(21, 19, 1)]),
        "{events:?}"
    );
    history.extend(events);
    // Table 2 still owes hand 1: hand 1 completes only when it has dealt and finished it.
    let events = decide(&history, C::Finished { table: 1, table_hand: 4, busts: vec![], at: secs(6) });
    assert_eq!(events.len(), 1, "table 2 owes hand 1: {events:?}");
    history.extend(events);
    history.extend(decide(&history, C::Dealt { table: 2, table_hand: 9, crossing: false, at: secs(7) }));
    let events = decide(&history, C::Finished { table: 2, table_hand: 9, busts: vec![bust(22, 2, 900)], at: secs(8) });
    assert!(
        matches!(&events[..], [E::TableFinished { hand: 1, late: false, .. }, E::HandCompleted { hand: 1, players_left_before: 18, placed, .. }, E::HandForHandEnded { cause: EndCause::Burst, players_left: 17, .. }] if places(placed) == vec![(22, 18, 1)]),
        "{events:?}"
    );
}

/// One random step while hand-for-hand runs.
#[derive(Debug, Clone)]
enum Step {
    Deal(u32),
    Cross(u32),
    Finish(u32, bool),
    Release,
    Excuse(u32),
    Close(u32),
    Pause,
    Resume,
}

fn step() -> impl Strategy<Value = Step> {
    let table = 1u32..6;
    prop_oneof![
        6 => table.clone().prop_map(Step::Deal),
        1 => table.clone().prop_map(Step::Cross),
        6 => (table.clone(), prop::bool::weighted(0.15)).prop_map(|(t, b)| Step::Finish(t, b)),
        4 => Just(Step::Release),
        1 => table.clone().prop_map(Step::Excuse),
        1 => table.prop_map(Step::Close),
        1 => Just(Step::Pause),
        2 => Just(Step::Resume),
    ]
}

proptest! {
    /// Whatever order the reports come in: no hand is released before every table finished
    /// (or was excused from) the one before; a table is released each hand once and deals it
    /// once; the field never drops under the busts; replaying the log gives the live state.
    #[test]
    fn no_table_gets_hand_k_plus_1_before_all_finished_hand_k_and_a_replay_gives_the_same_state(
        steps in prop::collection::vec(step(), 1..120),
    ) {
        let ten_before = HandForHandRules { trigger: Trigger::PlayersBeforeBubble { players: 10 }, ..rules(RuleProfile::ReelCz) };
        let mut log = vec![configured(ten_before)];
        let mut state: BubbleState = log.iter().cloned().fold(BubbleState::default(), BubbleAggregate::apply_event);
        let start = C::Field { field: FieldNow { players_left: 40, boundary: 30, tables: vec![1, 2, 3, 4, 5], dealing: vec![1, 2, 3] }, at: secs(0) };
        let mut next_table_hand: BTreeMap<u32, u64> = (1..=5).map(|t| (t, 100)).collect();
        let mut dealt_in_hand: BTreeMap<u32, Option<u64>> = BTreeMap::new();
        let mut entry = 0u32;
        let mut open: Vec<u32> = vec![1, 2, 3, 4, 5];
        let announced = BubbleAggregate::handle_command(&state, start).unwrap();
        prop_assert_eq!(announced.len(), 1, "40 left, 30 paid, 10 before: announced");
        for e in announced {
            log.push(e.clone());
            state = BubbleAggregate::apply_event(state, e);
        }
        for (i, s) in steps.into_iter().enumerate() {
            let at = secs(i as i64 + 1);
            let command = match s {
                Step::Deal(t) => {
                    let h = next_table_hand.entry(t).or_default();
                    *h += 1;
                    C::Dealt { table: t, table_hand: *h, crossing: false, at }
                }
                // Tables 4 and 5 were between hands at the announcement: a deal may cross.
                Step::Cross(t) => {
                    let h = next_table_hand.entry(t).or_default();
                    *h += 1;
                    C::Dealt { table: t, table_hand: *h, crossing: true, at }
                }
                Step::Finish(t, busted) => {
                    let busts = if busted { entry += 1; vec![bust(entry, t, u64::from(entry) * 100)] } else { vec![] };
                    C::Finished { table: t, table_hand: next_table_hand[&t], busts, at }
                }
                Step::Release => C::Release { tables: open.clone(), at },
                Step::Excuse(t) => C::ReleaseWithout { tables: vec![t], at },
                Step::Close(t) => { open.retain(|&o| o != t); C::TableClosed { table: t, at } }
                Step::Pause => C::Pause { reason: String::new(), at },
                Step::Resume => C::Resume { at },
            };
            let before = state.clone();
            let Ok(events) = BubbleAggregate::handle_command(&state, command) else {
                continue;
            };
            for e in &events {
                match e {
                    E::HandReleased { hand, tables, .. } => {
                        let r = before.running().expect("released while running");
                        prop_assert!(r.complete && r.owed.is_empty(), "hand {} released while {:?} owe hand {}", hand, r.owed, r.hand);
                        prop_assert_eq!(*hand, r.hand + 1);
                        for t in tables {
                            prop_assert!(!r.excused.contains_key(t), "table {} still plays an earlier hand", t);
                        }
                        dealt_in_hand = tables.iter().map(|&t| (t, None)).collect();
                    }
                    E::TableDealt { table, table_hand, hand, .. } if *hand > 0 && before.running().is_some_and(|r| r.hand == *hand && !r.excused.contains_key(table)) => {
                        let slot = dealt_in_hand.get_mut(table);
                        prop_assert!(slot.as_ref().is_some_and(|s| s.is_none()), "table {} dealt hand {} twice or unreleased", table, hand);
                        *slot.unwrap() = Some(*table_hand);
                    }
                    E::HandCompleted { players_left_before, placed, .. } => {
                        prop_assert!(placed.len() as u32 <= *players_left_before);
                    }
                    _ => {}
                }
            }
            for e in events {
                log.push(e.clone());
                state = BubbleAggregate::apply_event(state, e);
            }
            if state.phase == Phase::Over {
                break;
            }
        }
        let replayed = log.into_iter().fold(BubbleState::default(), BubbleAggregate::apply_event);
        prop_assert_eq!(replayed, state);
    }
}
