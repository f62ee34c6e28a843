//! The tournament decider, case by case (rulebook examples) and by property.

use crate::domain::{TournamentAggregate, TournamentCommand as C, TournamentState};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::codes;
use floor_events::registration::*;
use floor_events::tournament::{EntryLedger, EntryModel, Fee, Start, TournamentDefinition};
use floor_events::{Currency, EntryNo, Money, PlayerId, RuleProfile, TournamentId};
use floor_runtime::spec::given;
use proptest::prelude::*;

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

fn at(s: &str) -> DateTime<Utc> {
    s.parse().expect("RFC 3339")
}

/// Created 1 December; starts 6 December 18:00; late registration until 19:00.
const CREATED: &str = "2026-12-01T12:00:00Z";
const BEFORE_START: &str = "2026-12-06T17:00:00Z";
const LATE: &str = "2026-12-06T18:30:00Z";
const AFTER_DEADLINE: &str = "2026-12-06T19:00:00Z";

fn definition() -> TournamentDefinition {
    TournamentDefinition {
        name: "Spec".into(),
        start: Start::At(at("2026-12-06T18:00:00Z")),
        buy_in: eur(2_000),
        fee: Fee::OnTop(eur(200)),
        capacity: 3,
        late_registration_until: Some(at(AFTER_DEADLINE)),
        ..TournamentDefinition::example()
    }
}

fn p(name: &str) -> PlayerId {
    PlayerId::parse(name).expect("player")
}

fn created(def: TournamentDefinition) -> TournamentEvent {
    TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: TournamentId(uuid_zero()), definition: def, at: at(CREATED) })
}

fn uuid_zero() -> uuid::Uuid {
    uuid::Uuid::nil()
}

/// 001 Art. 7: "20 kn + 2 kn": 22 paid, 2 to the operator, 20 to the prize pool.
fn ledger() -> EntryLedger {
    EntryLedger { paid_in: eur(2_200), fee: eur(200), prize_pool: eur(2_000) }
}

fn registered(entry: u32, player: &str, kind: EntryKind, new_player: bool, when: &str) -> TournamentEvent {
    TournamentEvent::EntryRegistered(EntryRegistered {
        entry: EntryNo(entry),
        player: p(player),
        kind,
        new_player,
        ledger: ledger(),
        at: at(when),
        ticket: None,
    })
}

fn eliminated(entry: u32, player: &str) -> TournamentEvent {
    TournamentEvent::EntryEliminated(EntryEliminated { entry: EntryNo(entry), player: p(player), at: at(LATE) })
}

fn register(player: &str, when: &str) -> C {
    C::Register { player: p(player), at: at(when) }
}

fn with_model(model: EntryModel) -> TournamentDefinition {
    TournamentDefinition { entry_model: model, capacity: 10, ..definition() }
}

#[test]
fn creating_a_valid_tournament_records_its_definition() {
    let command = C::Create { tournament_id: TournamentId(uuid_zero()), definition: Box::new(definition()), at: at(CREATED) };
    given::<TournamentAggregate>(vec![]).when(command).then(vec![created(definition())]);
}

#[test]
fn creating_twice_or_breaking_a_rule_is_refused() {
    let create =
        |def: TournamentDefinition| C::Create { tournament_id: TournamentId(uuid_zero()), definition: Box::new(def), at: at(CREATED) };
    given::<TournamentAggregate>(vec![created(definition())]).when(create(definition())).then_reject(codes::TOURNAMENT_EXISTS);
    given::<TournamentAggregate>(vec![])
        .when(create(TournamentDefinition { table_size: 12, ..definition() }))
        .then_reject(codes::INVALID_DEFINITION);
    // 000 §16.1: fee at most 15 % of the buy-in and EUR 50; buy-in at most EUR 500.
    let win2day = TournamentDefinition { profile: RuleProfile::Win2day, buy_in: eur(10_000), fee: Fee::OnTop(eur(1_600)), ..definition() };
    given::<TournamentAggregate>(vec![]).when(create(win2day.clone())).then_reject(codes::FEE_TOO_HIGH);
    let too_big = TournamentDefinition { buy_in: eur(50_001), fee: Fee::OnTop(eur(0)), ..win2day };
    given::<TournamentAggregate>(vec![]).when(create(too_big)).then_reject(codes::BUY_IN_TOO_HIGH);
}

#[test]
fn registration_pays_buy_in_plus_fee_and_records_both_lines() {
    given::<TournamentAggregate>(vec![created(definition())]).when(register("ana", BEFORE_START)).then(vec![registered(
        1,
        "ana",
        EntryKind::Registration,
        true,
        BEFORE_START,
    )]);
}

#[test]
fn registration_happens_only_inside_its_window() {
    let opens_later = TournamentDefinition { registration_opens: Some(at("2026-12-05T00:00:00Z")), ..definition() };
    given::<TournamentAggregate>(vec![created(opens_later)])
        .when(register("ana", "2026-12-04T17:00:00Z"))
        .then_reject(codes::REGISTRATION_NOT_OPEN);
    given::<TournamentAggregate>(vec![created(definition())]).when(register("ana", AFTER_DEADLINE)).then_reject(codes::REGISTRATION_CLOSED);
    let no_late = TournamentDefinition { late_registration_until: None, ..definition() };
    given::<TournamentAggregate>(vec![created(no_late)]).when(register("ana", LATE)).then_reject(codes::REGISTRATION_CLOSED);
}

#[test]
fn after_the_start_an_entry_is_a_late_registration() {
    given::<TournamentAggregate>(vec![created(definition())]).when(register("ana", LATE)).then(vec![registered(
        1,
        "ana",
        EntryKind::LateRegistration,
        true,
        LATE,
    )]);
}

#[test]
fn a_full_field_refuses_newcomers_but_tells_an_entrant_they_are_in() {
    let full = vec![
        created(definition()),
        registered(1, "ana", EntryKind::Registration, true, BEFORE_START),
        registered(2, "ben", EntryKind::Registration, true, BEFORE_START),
        registered(3, "cleo", EntryKind::Registration, true, BEFORE_START),
    ];
    given::<TournamentAggregate>(full.clone()).when(register("dan", BEFORE_START)).then_reject(codes::FIELD_FULL);
    given::<TournamentAggregate>(full).when(register("ana", BEFORE_START)).then_reject(codes::ALREADY_REGISTERED);
}

#[test]
fn a_freezeout_allows_no_second_entry_even_after_elimination() {
    let history = vec![created(definition()), registered(1, "ana", EntryKind::Registration, true, BEFORE_START), eliminated(1, "ana")];
    given::<TournamentAggregate>(history).when(register("ana", LATE)).then_reject(codes::RE_ENTRY_NOT_ELIGIBLE);
}

#[test]
fn re_entry_needs_an_elimination_and_stops_at_the_cap() {
    // 004 §4.36.5: a new entry after elimination, within the window, capped.
    let def = with_model(EntryModel::ReEntry { max_entries: 2 });
    let first = vec![created(def.clone()), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    given::<TournamentAggregate>(first.clone()).when(register("ana", LATE)).then_reject(codes::ALREADY_REGISTERED);
    let mut out = first;
    out.push(eliminated(1, "ana"));
    given::<TournamentAggregate>(out.clone()).when(register("ana", LATE)).then(vec![registered(2, "ana", EntryKind::ReEntry, false, LATE)]);
    out.push(registered(2, "ana", EntryKind::ReEntry, false, LATE));
    out.push(eliminated(2, "ana"));
    given::<TournamentAggregate>(out).when(register("ana", LATE)).then_reject(codes::RE_ENTRY_CAP_REACHED);
}

#[test]
fn multi_entry_allows_live_entries_up_to_its_cap() {
    let def = with_model(EntryModel::MultiEntry { max_live_entries: 2 });
    let one = vec![created(def), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    given::<TournamentAggregate>(one.clone()).when(register("ana", BEFORE_START)).then(vec![registered(
        2,
        "ana",
        EntryKind::MultiEntry,
        false,
        BEFORE_START,
    )]);
    let mut two = one;
    two.push(registered(2, "ana", EntryKind::MultiEntry, false, BEFORE_START));
    given::<TournamentAggregate>(two).when(register("ana", BEFORE_START)).then_reject(codes::MULTI_ENTRY_CAP_REACHED);
}

#[test]
fn unregistering_refunds_exactly_what_was_paid() {
    let history = vec![created(definition()), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    given::<TournamentAggregate>(history.clone()).when(C::Unregister { player: p("ana"), entry: None, at: at(BEFORE_START) }).then(vec![
        TournamentEvent::EntryUnregistered(EntryUnregistered {
            entry: EntryNo(1),
            player: p("ana"),
            refund: ledger(),
            by_operator: false,
            player_left: true,
            at: at(BEFORE_START),
        }),
    ]);
    given::<TournamentAggregate>(history)
        .when(C::Unregister { player: p("ana"), entry: None, at: at(LATE) })
        .then_reject(codes::TOURNAMENT_STARTED);
}

#[test]
fn fortuna_registrations_are_final() {
    // 004: "registrations are final".
    let def = TournamentDefinition { profile: RuleProfile::FortunaCz2024, ..definition() };
    let history = vec![created(def), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    given::<TournamentAggregate>(history)
        .when(C::Unregister { player: p("ana"), entry: None, at: at(BEFORE_START) })
        .then_reject(codes::UNREGISTER_NOT_ALLOWED);
}

/// 001 Art. 4: "Jede Zahlung, die geleistet wurde, kann nicht rückgängig gemacht werden" (a
/// payment once made cannot be reversed): a player cannot unregister for a refund; the
/// operator's own refunds (a tournament below its minimum, a cancellation) still go back.
#[test]
fn hrvatska_lutrija_registrations_are_final_but_a_tournament_below_its_minimum_still_refunds() {
    let def = TournamentDefinition { profile: RuleProfile::HrvatskaLutrija2017, min_players: 2, ..definition() };
    let history = vec![created(def), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    given::<TournamentAggregate>(history.clone())
        .when(C::Unregister { player: p("ana"), entry: None, at: at(BEFORE_START) })
        .then_reject(codes::UNREGISTER_NOT_ALLOWED);
    let events = given::<TournamentAggregate>(history).when(C::Start { at: at("2026-12-06T18:00:00Z"), now: false }).accepted();
    assert!(matches!(events.as_slice(), [TournamentEvent::TournamentCancelled(c)] if c.refunds.len() == 1), "{events:?}");
}

#[test]
fn a_refused_player_is_refunded_before_the_start_and_cannot_come_back() {
    // 001 Art. 20: the operator may restrict a player's participation.
    let history = vec![created(definition()), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    let events = given::<TournamentAggregate>(history.clone())
        .when(C::RefusePlayer { player: p("ana"), reason: "operator decision".into(), at: at(BEFORE_START) })
        .accepted();
    assert!(matches!(&events[1], TournamentEvent::EntryUnregistered(e) if e.by_operator && e.player_left && e.refund == ledger()));
    let mut refused = history;
    refused.extend(events);
    given::<TournamentAggregate>(refused).when(register("ana", BEFORE_START)).then_reject(codes::PLAYER_REFUSED);
}

#[test]
fn players_kept_apart_cannot_both_enter() {
    // 001 Art. 20: two or more players may be refused participation in the same tournament.
    let apart = TournamentEvent::PlayersKeptApart(PlayersKeptApart { players: vec![p("ana"), p("ben")], at: at(CREATED) });
    let history = vec![created(definition()), apart, registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    given::<TournamentAggregate>(history.clone()).when(register("ben", BEFORE_START)).then_reject(codes::PLAYER_KEPT_APART);
    given::<TournamentAggregate>(history).when(register("cleo", BEFORE_START)).accepted();
}

/// Issue 19: the elimination that leaves one live entry in a started tournament finishes it,
/// with that entry as the winner; before the start, or with two left, nothing more happens.
#[test]
fn the_last_elimination_finishes_the_tournament_with_its_winner() {
    let started = TournamentEvent::TournamentStarted(TournamentStarted { entries: 3, cause: StartCause::Scheduled, at: at(START) });
    let mut history = vec![created(definition())];
    history.extend(
        ["ana", "ben", "cleo"].iter().enumerate().map(|(i, p)| registered(i as u32 + 1, p, EntryKind::Registration, true, BEFORE_START)),
    );
    history.push(started);
    given::<TournamentAggregate>(history.clone())
        .when(C::EliminateEntry { entry: EntryNo(2), at: at(LATE) })
        .then(vec![eliminated(2, "ben")]);
    history.push(eliminated(2, "ben"));
    let events = given::<TournamentAggregate>(history).when(C::EliminateEntry { entry: EntryNo(1), at: at(LATE) }).accepted();
    let winner = TournamentFinished { winner: EntryNo(3), player: p("cleo"), at: at(LATE), shared_by: vec![] };
    assert_eq!(events, vec![eliminated(1, "ana"), TournamentEvent::TournamentFinished(winner)]);
}

#[test]
fn an_entry_is_eliminated_once() {
    let history = vec![created(definition()), registered(1, "ana", EntryKind::Registration, true, BEFORE_START), eliminated(1, "ana")];
    given::<TournamentAggregate>(history.clone())
        .when(C::EliminateEntry { entry: EntryNo(1), at: at(LATE) })
        .then_reject(codes::ENTRY_ALREADY_ELIMINATED);
    given::<TournamentAggregate>(history).when(C::EliminateEntry { entry: EntryNo(9), at: at(LATE) }).then_reject(codes::UNKNOWN_ENTRY);
}

#[test]
fn a_sit_and_go_starts_in_the_commit_that_fills_its_last_seat_and_then_takes_nobody() {
    let sng = TournamentDefinition { start: Start::SitAndGo, late_registration_until: None, capacity: 2, min_players: 2, ..definition() };
    let one_seat_left = vec![created(sng), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    given::<TournamentAggregate>(one_seat_left.clone()).when(register("ben", BEFORE_START)).then(vec![
        registered(2, "ben", EntryKind::Registration, true, BEFORE_START),
        TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::LastSeatFilled, at: at(BEFORE_START) }),
    ]);
    let full = given::<TournamentAggregate>(one_seat_left.clone()).when(register("ben", BEFORE_START)).accepted();
    let history: Vec<_> = one_seat_left.into_iter().chain(full).collect();
    given::<TournamentAggregate>(history.clone()).when(register("cleo", BEFORE_START)).then_reject(codes::FIELD_FULL);
    given::<TournamentAggregate>(history).when(C::Start { at: at(LATE), now: false }).then_reject(codes::STARTS_WHEN_FULL);
}

const START: &str = "2026-12-06T18:00:00Z";

#[test]
fn at_its_start_time_a_tournament_with_the_minimum_starts() {
    let history = vec![
        created(definition()),
        registered(1, "ana", EntryKind::Registration, true, BEFORE_START),
        registered(2, "ben", EntryKind::Registration, true, BEFORE_START),
    ];
    given::<TournamentAggregate>(history.clone()).when(C::Start { at: at(BEFORE_START), now: false }).then_reject(codes::TOO_EARLY);
    given::<TournamentAggregate>(history.clone())
        .when(C::Start { at: at(START), now: false })
        .then(vec![TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(START) })]);
    let mut started = history;
    started.push(TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(START) }));
    given::<TournamentAggregate>(started.clone()).when(C::Start { at: at(LATE), now: false }).then_reject(codes::TOURNAMENT_STARTED);
    given::<TournamentAggregate>(started).when(C::Cancel { reason: "storm".into(), at: at(LATE) }).then_reject(codes::TOURNAMENT_STARTED);
}

/// Issue 19: a director starts a scheduled tournament now, before its time, once the minimum
/// is met; below it the early start is refused and nothing is cancelled.
#[test]
fn a_director_starts_a_tournament_now_once_the_minimum_is_met() {
    let one = vec![created(definition()), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    given::<TournamentAggregate>(one.clone()).when(C::Start { at: at(BEFORE_START), now: true }).then_reject(codes::TOO_FEW_ENTRIES);
    let mut two = one;
    two.push(registered(2, "ben", EntryKind::Registration, true, BEFORE_START));
    given::<TournamentAggregate>(two).when(C::Start { at: at(BEFORE_START), now: true }).then(vec![TournamentEvent::TournamentStarted(
        TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(BEFORE_START) },
    )]);
}

/// A tournament without late registration closes its field when it starts, also when a director
/// started it before its time: an entry after that start would come after payouts locked the
/// prize table at the start, its money in no prize (found in session 24: the field stayed open
/// until the scheduled time). With late registration the deadline still rules.
#[test]
fn a_tournament_without_late_registration_started_early_takes_no_more_entries() {
    let freezeout = TournamentDefinition { late_registration_until: None, ..definition() };
    let started = |def: TournamentDefinition| {
        vec![
            created(def),
            registered(1, "ana", EntryKind::Registration, true, BEFORE_START),
            registered(2, "ben", EntryKind::Registration, true, BEFORE_START),
            TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(BEFORE_START) }),
        ]
    };
    let after_the_early_start = "2026-12-06T17:05:00Z";
    given::<TournamentAggregate>(started(freezeout)).when(register("cat", after_the_early_start)).then_reject(codes::REGISTRATION_CLOSED);
    let events = given::<TournamentAggregate>(started(definition())).when(register("cat", after_the_early_start)).accepted();
    assert!(matches!(events.as_slice(), [TournamentEvent::EntryRegistered(r)] if r.kind == EntryKind::LateRegistration), "{events:?}");
}

/// Spec §1 (004 §4.36.4): below the minimum at the start time, the tournament is cancelled and
/// every entry refunded in full, fee included; unregistered entries were refunded already.
#[test]
fn below_the_minimum_at_its_start_time_it_is_cancelled_and_every_live_entry_refunded() {
    let history = vec![
        created(TournamentDefinition { min_players: 3, ..definition() }),
        registered(1, "ana", EntryKind::Registration, true, BEFORE_START),
        registered(2, "ben", EntryKind::Registration, true, BEFORE_START),
        TournamentEvent::EntryUnregistered(EntryUnregistered {
            entry: EntryNo(2),
            player: p("ben"),
            refund: ledger(),
            by_operator: false,
            player_left: true,
            at: at(BEFORE_START),
        }),
        registered(3, "cleo", EntryKind::Registration, true, BEFORE_START),
    ];
    let refund = |entry, player: &str| Refund { entry: EntryNo(entry), player: p(player), refund: ledger() };
    let cancellation = TournamentEvent::TournamentCancelled(TournamentCancelled {
        reason: CancellationReason::BelowMinimum { entries: 2, min_players: 3 },
        refunds: vec![refund(1, "ana"), refund(3, "cleo")],
        at: at(START),
    });
    given::<TournamentAggregate>(history.clone()).when(C::Start { at: at(START), now: false }).then(vec![cancellation.clone()]);
    let mut cancelled = history;
    cancelled.push(cancellation);
    given::<TournamentAggregate>(cancelled.clone()).when(register("dan", BEFORE_START)).then_reject(codes::TOURNAMENT_CANCELLED);
    given::<TournamentAggregate>(cancelled).when(C::Start { at: at(LATE), now: false }).then_reject(codes::TOURNAMENT_CANCELLED);
}

#[test]
fn the_director_cancels_before_the_start_with_refunds() {
    let history = vec![created(definition()), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    given::<TournamentAggregate>(history).when(C::Cancel { reason: "venue closed".into(), at: at(BEFORE_START) }).then(vec![
        TournamentEvent::TournamentCancelled(TournamentCancelled {
            reason: CancellationReason::Director { reason: "venue closed".into() },
            refunds: vec![Refund { entry: EntryNo(1), player: p("ana"), refund: ledger() }],
            at: at(BEFORE_START),
        }),
    ]);
}

#[test]
fn nothing_but_creation_is_possible_before_creation() {
    given::<TournamentAggregate>(vec![]).when(register("ana", BEFORE_START)).then_reject(codes::UNKNOWN_TOURNAMENT);
}

#[derive(Debug, Clone)]
enum Op {
    Register(u8),
    Unregister(u8),
    Eliminate(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![4 => (0u8..12).prop_map(Op::Register), 1 => (0u8..12).prop_map(Op::Unregister), 2 => (0u8..40).prop_map(Op::Eliminate)]
}

fn model() -> impl Strategy<Value = EntryModel> {
    prop_oneof![
        Just(EntryModel::Freezeout),
        (2u32..4).prop_map(|max_entries| EntryModel::ReEntry { max_entries }),
        (1u32..3).prop_map(|max_live_entries| EntryModel::MultiEntry { max_live_entries }),
    ]
}

/// What a state looks like from outside, for comparing a live state with a replayed one.
fn summary(state: &TournamentState) -> (Vec<(PlayerId, String)>, u32) {
    (state.entries.iter().map(|e| (e.player.clone(), format!("{:?}", e.status))).collect(), state.counted)
}

proptest! {
    /// Capacity holds, rejections change nothing, replay gives the same state, and the books of
    /// every entry balance to the cent, whatever the order of registrations, withdrawals and
    /// eliminations.
    #[test]
    fn random_histories_keep_the_rules(model in model(), capacity in 1u32..15, ops in prop::collection::vec(op(), 0..80)) {
        let def = TournamentDefinition { entry_model: model, capacity: capacity.max(2), ..definition() };
        let mut state = TournamentAggregate::apply_event(TournamentState::default(), created(def.clone()));
        let mut log = vec![created(def.clone())];
        let (mut paid, mut refunded) = (0u64, 0u64);
        for op in ops {
            let when = if matches!(op, Op::Unregister(_)) { BEFORE_START } else { LATE };
            let command = match op {
                Op::Register(n) => register(&format!("p{n}"), when),
                Op::Unregister(n) => C::Unregister { player: p(&format!("p{n}")), entry: None, at: at(when) },
                Op::Eliminate(n) => C::EliminateEntry { entry: EntryNo(u32::from(n) + 1), at: at(when) },
            };
            let before = summary(&state);
            match TournamentAggregate::handle_command(&state, command) {
                Err(_) => prop_assert_eq!(summary(&state), before, "a rejection changes nothing"),
                Ok(events) => {
                    for event in events {
                        match &event {
                            TournamentEvent::EntryRegistered(e) => paid += e.ledger.paid_in.amount,
                            TournamentEvent::EntryUnregistered(e) => refunded += e.refund.paid_in.amount,
                            _ => {}
                        }
                        log.push(event.clone());
                        state = TournamentAggregate::apply_event(state, event);
                    }
                }
            }
            prop_assert!(state.counted <= def.capacity, "capacity {} exceeded: {}", def.capacity, state.counted);
            if def.entry_model == EntryModel::Freezeout {
                for entries in state.by_player.values() {
                    let kept = entries.iter().filter(|no| state.entries[no.0 as usize - 1].status != crate::domain::EntryStatus::Unregistered).count();
                    prop_assert!(kept <= 1, "a freezeout player holds {} entries", kept);
                }
            }
        }
        let replayed = log.into_iter().fold(TournamentState::default(), TournamentAggregate::apply_event);
        prop_assert_eq!(summary(&replayed), summary(&state), "replaying the log gives the same state");
        let kept: u64 = state.entries.iter().filter(|e| e.status != crate::domain::EntryStatus::Unregistered).map(|e| e.ledger.paid_in.amount).sum();
        prop_assert_eq!(paid - refunded, kept, "money in minus refunds equals what the kept entries paid");
        for e in &state.entries {
            prop_assert_eq!(e.ledger.paid_in.amount, e.ledger.fee.amount + e.ledger.prize_pool.amount);
        }
    }
}

#[test]
fn the_time_helpers_agree_with_the_definition() {
    assert!(at(LATE) > at("2026-12-06T18:00:00Z") && at(LATE) < at(AFTER_DEADLINE));
    assert_eq!(at(BEFORE_START) + Duration::hours(1), at("2026-12-06T18:00:00Z"));
}

/// Issue 17, reproduction 6: a start in the past was accepted, and the tournament then cancelled
/// at once below its minimum.
#[test]
fn a_tournament_whose_start_has_passed_is_not_created() {
    let create = |start: &str, now: &str| C::Create {
        tournament_id: TournamentId::new(),
        definition: Box::new(TournamentDefinition { start: Start::At(at(start)), late_registration_until: None, ..definition() }),
        at: at(now),
    };
    given::<TournamentAggregate>(vec![]).when(create(START, LATE)).then_reject(codes::START_IN_THE_PAST);
    given::<TournamentAggregate>(vec![]).when(create(START, START)).then_reject(codes::START_IN_THE_PAST);
    given::<TournamentAggregate>(vec![]).when(create(START, BEFORE_START)).accepted();
}

/// Issue 17, reproduction 8: reasons took control characters and any length, and an empty
/// cancellation reason was accepted.
#[test]
fn reasons_are_bounded_printable_and_a_cancellation_gives_one() {
    let history = vec![created(definition()), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    let cancel = |reason: String| C::Cancel { reason, at: at(BEFORE_START) };
    given::<TournamentAggregate>(history.clone()).when(cancel(String::new())).then_reject(codes::REASON_REQUIRED);
    given::<TournamentAggregate>(history.clone()).when(cancel(" \u{a0} ".into())).then_reject(codes::REASON_REQUIRED);
    given::<TournamentAggregate>(history.clone()).when(cancel("x".repeat(1 << 20))).then_reject(codes::TEXT_TOO_LONG);
    given::<TournamentAggregate>(history.clone()).when(cancel("storm\n\u{1b}[2J".into())).then_reject(codes::CONTROL_CHARACTER);
    let refuse = |reason: &str| C::RefusePlayer { player: p("ana"), reason: reason.into(), at: at(BEFORE_START) };
    given::<TournamentAggregate>(history.clone()).when(refuse("\u{7}")).then_reject(codes::CONTROL_CHARACTER);
    given::<TournamentAggregate>(history).when(refuse("")).accepted();
}

/// Issue 17, reproduction 2: amounts that would wrap the books are refused at creation, so three
/// registrations can never wrap them.
#[test]
fn amounts_that_could_wrap_the_books_are_refused_at_creation() {
    let huge = 9_223_372_036_854_775_807;
    let create = |def: TournamentDefinition| C::Create { tournament_id: TournamentId::new(), definition: Box::new(def), at: at(CREATED) };
    given::<TournamentAggregate>(vec![])
        .when(create(TournamentDefinition { buy_in: eur(huge), fee: Fee::OnTop(eur(huge)), ..definition() }))
        .then_reject(codes::AMOUNT_TOO_LARGE);
    given::<TournamentAggregate>(vec![])
        .when(create(TournamentDefinition { starting_stack: u64::MAX, ..definition() }))
        .then_reject(codes::CHIPS_TOO_LARGE);
    given::<TournamentAggregate>(vec![])
        .when(create(TournamentDefinition { buy_in: eur(1_000), fee: Fee::OnTop(eur(5_000)), ..definition() }))
        .then_reject(codes::FEE_TOO_HIGH);
}

/// Issue 33, defect 1: the clock ends the late-registration level (level 6 in every preset)
/// before the definition's deadline. Registration records the close in its own log, after
/// every entry it sold, and sells no entry after it, whatever the deadline says.
#[test]
fn the_end_of_the_late_registration_level_closes_registration_before_the_deadline() {
    let started = TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(START) });
    let history = vec![
        created(definition()),
        registered(1, "ana", EntryKind::Registration, true, BEFORE_START),
        registered(2, "ben", EntryKind::Registration, true, BEFORE_START),
        started,
    ];
    let close = C::CloseRegistration { cause: RegistrationCloseCause::LateRegistrationLevel, at: at(LATE) };
    let closed =
        TournamentEvent::RegistrationClosed(RegistrationClosed { cause: RegistrationCloseCause::LateRegistrationLevel, at: at(LATE) });
    given::<TournamentAggregate>(history.clone()).when(close.clone()).then(vec![closed.clone()]);
    let mut after = history.clone();
    after.push(closed.clone());
    // Before the deadline (19:00), yet closed.
    given::<TournamentAggregate>(after.clone()).when(register("cleo", LATE)).then_reject(codes::REGISTRATION_CLOSED);
    // Closed once: a second close (another instance, a cancellation in play) stores nothing.
    given::<TournamentAggregate>(after.clone()).when(close).then(vec![]);
    let cancelled = C::CloseRegistration { cause: RegistrationCloseCause::PlayCancelled, at: at(LATE) };
    given::<TournamentAggregate>(after).when(cancelled).then(vec![]);
}

/// A cancellation in play closes late registration for good; a finished tournament sells
/// nothing; a tournament without late registration has nothing to close (its start closed it).
#[test]
fn a_cancellation_in_play_or_the_end_closes_registration_for_good() {
    let started = TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(START) });
    let history = vec![
        created(definition()),
        registered(1, "ana", EntryKind::Registration, true, BEFORE_START),
        registered(2, "ben", EntryKind::Registration, true, BEFORE_START),
        started.clone(),
    ];
    let cancelled = C::CloseRegistration { cause: RegistrationCloseCause::PlayCancelled, at: at(LATE) };
    let closed = TournamentEvent::RegistrationClosed(RegistrationClosed { cause: RegistrationCloseCause::PlayCancelled, at: at(LATE) });
    given::<TournamentAggregate>(history.clone()).when(cancelled.clone()).then(vec![closed.clone()]);
    let mut after = history.clone();
    after.push(closed);
    given::<TournamentAggregate>(after).when(register("cleo", LATE)).then_reject(codes::REGISTRATION_CLOSED);

    let mut finished = history.clone();
    finished.push(eliminated(1, "ana"));
    finished.push(TournamentEvent::TournamentFinished(TournamentFinished {
        winner: EntryNo(2),
        player: p("ben"),
        at: at(LATE),
        shared_by: vec![],
    }));
    given::<TournamentAggregate>(finished.clone()).when(register("cleo", LATE)).then_reject(codes::TOURNAMENT_FINISHED);
    given::<TournamentAggregate>(finished).when(cancelled.clone()).then(vec![]);

    let no_late = TournamentDefinition { late_registration_until: None, ..definition() };
    given::<TournamentAggregate>(vec![created(no_late), started]).when(cancelled).then(vec![]);
}

/// Registration's policy: the clock's end of the level and a cancellation in play each call for
/// one close with an id derived from the tournament and the cause, so a replay or a second
/// instance stores it once; nothing else in those logs does.
#[test]
fn the_policy_closes_registration_on_the_clocks_close_and_on_a_cancellation_in_play() {
    use crate::policy::closes;
    use floor_events::clock::ClockEvent;
    use floor_events::commit::Events;
    let t = TournamentId::new();
    let clock = Events::Clock(vec![ClockEvent::LateRegistrationClosed { at: at(LATE) }]);
    let orders = closes(t, &clock);
    assert!(
        matches!(&orders[..], [(id, _, C::CloseRegistration { cause: RegistrationCloseCause::LateRegistrationLevel, .. })] if *id == t),
        "{orders:?}"
    );
    assert_eq!(closes(t, &clock)[0].1, orders[0].1, "the same cause, the same command id");
    let resumed = Events::Abort(vec![floor_events::abort::AbortEvent::Resumed { suspended_at: at(START), at: at(LATE) }]);
    assert!(closes(t, &resumed).is_empty());
}

fn suspended(when: &str) -> TournamentEvent {
    TournamentEvent::PlaySuspended(PlaySuspended { at: at(when) })
}

fn resumed(when: &str) -> TournamentEvent {
    TournamentEvent::PlayResumed(PlayResumed { at: at(when) })
}

/// A tournament in play with late registration open: ana and ben in, started at 18:00.
fn in_play() -> Vec<TournamentEvent> {
    vec![
        created(definition()),
        registered(1, "ana", EntryKind::Registration, true, BEFORE_START),
        registered(2, "ben", EntryKind::Registration, true, BEFORE_START),
        TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(START) }),
    ]
}

/// Issue 35: the decider holds registration while play is suspended, from its own log (as the
/// endpoint did from the abort log before): a registration is refused with
/// `tournament_suspended` and stores nothing; after the resume the same registration is sold.
#[test]
fn while_play_is_suspended_a_registration_is_refused_and_after_the_resume_it_is_sold() {
    let mut history = in_play();
    history.push(suspended(START));
    given::<TournamentAggregate>(history.clone()).when(register("cleo", LATE)).then_reject(codes::TOURNAMENT_SUSPENDED);
    // Before everything else the tournament would say, as the endpoint answered: a player
    // already in hears that registration holds.
    given::<TournamentAggregate>(history.clone()).when(register("ana", LATE)).then_reject(codes::TOURNAMENT_SUSPENDED);
    given::<TournamentAggregate>(history.clone()).when(C::CheckHold { at: at(LATE) }).then_reject(codes::TOURNAMENT_SUSPENDED);
    // Eliminations still pass: a hand finished at the suspension has its busts.
    given::<TournamentAggregate>(history.clone()).when(C::EliminateEntry { entry: EntryNo(1), at: at(LATE) }).then(vec![
        eliminated(1, "ana"),
        TournamentEvent::TournamentFinished(TournamentFinished { winner: EntryNo(2), player: p("ben"), at: at(LATE), shared_by: vec![] }),
    ]);

    history.push(resumed(LATE));
    given::<TournamentAggregate>(history.clone()).when(register("cleo", LATE)).then(vec![registered(
        3,
        "cleo",
        EntryKind::LateRegistration,
        true,
        LATE,
    )]);
    given::<TournamentAggregate>(history).when(C::CheckHold { at: at(LATE) }).then(vec![]);
    given::<TournamentAggregate>(in_play()).when(C::CheckHold { at: at(LATE) }).then(vec![]);
}

/// An unregister is held the same way before the start; after the resume the entry is
/// withdrawn and refunded.
#[test]
fn while_play_is_suspended_an_unregister_is_refused_and_after_the_resume_it_is_refunded() {
    let unregister = C::Unregister { player: p("ana"), entry: None, at: at(BEFORE_START) };
    let mut history = vec![created(definition()), registered(1, "ana", EntryKind::Registration, true, BEFORE_START)];
    history.push(suspended(BEFORE_START));
    given::<TournamentAggregate>(history.clone()).when(unregister.clone()).then_reject(codes::TOURNAMENT_SUSPENDED);
    // Held before the profile's answer too, as the endpoint held it.
    let fortuna = TournamentDefinition { profile: RuleProfile::FortunaCz2024, ..definition() };
    given::<TournamentAggregate>(vec![created(fortuna), suspended(BEFORE_START)])
        .when(unregister.clone())
        .then_reject(codes::TOURNAMENT_SUSPENDED);
    history.push(resumed(BEFORE_START));
    given::<TournamentAggregate>(history).when(unregister).then(vec![TournamentEvent::EntryUnregistered(EntryUnregistered {
        entry: EntryNo(1),
        player: p("ana"),
        refund: ledger(),
        by_operator: false,
        player_left: true,
        at: at(BEFORE_START),
    })]);
}

/// What a resume would not change is answered as without the suspension: registration closed
/// for good (the end of the late-registration level, a cancellation in play, the deadline, the
/// end), an unregister after the start. So after a cancellation in play, which ends no
/// suspension in this log, registration answers as it did when the endpoint forgot the
/// suspension at the cancellation.
#[test]
fn what_a_resume_would_not_open_is_answered_as_closed_while_suspended() {
    let mut history = in_play();
    history.push(suspended(START));
    let mut cancelled = history.clone();
    cancelled.push(TournamentEvent::RegistrationClosed(RegistrationClosed { cause: RegistrationCloseCause::PlayCancelled, at: at(LATE) }));
    given::<TournamentAggregate>(cancelled.clone()).when(register("cleo", LATE)).then_reject(codes::REGISTRATION_CLOSED);
    given::<TournamentAggregate>(cancelled.clone()).when(C::CheckHold { at: at(LATE) }).then(vec![]);
    given::<TournamentAggregate>(history.clone()).when(register("cleo", AFTER_DEADLINE)).then_reject(codes::REGISTRATION_CLOSED);
    // Unregistering after the start is refused for good, suspended or not.
    let unregister = C::Unregister { player: p("ana"), entry: None, at: at(LATE) };
    given::<TournamentAggregate>(history.clone()).when(unregister.clone()).then_reject(codes::TOURNAMENT_STARTED);
    given::<TournamentAggregate>(cancelled).when(unregister).then_reject(codes::TOURNAMENT_STARTED);

    let mut finished = history.clone();
    finished.push(eliminated(1, "ana"));
    finished.push(TournamentEvent::TournamentFinished(TournamentFinished {
        winner: EntryNo(2),
        player: p("ben"),
        at: at(LATE),
        shared_by: vec![],
    }));
    given::<TournamentAggregate>(finished.clone()).when(register("cleo", LATE)).then_reject(codes::TOURNAMENT_FINISHED);
    // A suspension read after the end stores nothing.
    let mut over = in_play();
    over.extend(finished[finished.len() - 2..].iter().cloned());
    given::<TournamentAggregate>(over).when(C::Suspend { at: at(LATE) }).then(vec![]);

    // A sit & go under way is full for good.
    let sng = TournamentDefinition { start: Start::SitAndGo, capacity: 2, late_registration_until: None, ..definition() };
    let sng_history = vec![
        created(sng),
        registered(1, "ana", EntryKind::Registration, true, BEFORE_START),
        registered(2, "ben", EntryKind::Registration, true, BEFORE_START),
        TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::LastSeatFilled, at: at(BEFORE_START) }),
        suspended(LATE),
    ];
    given::<TournamentAggregate>(sng_history).when(register("cleo", LATE)).then_reject(codes::FIELD_FULL);
}

/// Suspending twice records one `play_suspended`; a resume without a suspension records
/// nothing; a suspension after the resume is recorded again.
#[test]
fn suspend_and_resume_are_recorded_once_each() {
    let history = in_play();
    given::<TournamentAggregate>(history.clone()).when(C::Suspend { at: at(START) }).then(vec![suspended(START)]);
    given::<TournamentAggregate>(history.clone()).when(C::Resume { at: at(LATE) }).then(vec![]);
    let mut held = history.clone();
    held.push(suspended(START));
    given::<TournamentAggregate>(held.clone()).when(C::Suspend { at: at(LATE) }).then(vec![]);
    given::<TournamentAggregate>(held.clone()).when(C::Resume { at: at(LATE) }).then(vec![resumed(LATE)]);
    held.push(resumed(LATE));
    given::<TournamentAggregate>(held.clone()).when(C::Resume { at: at(LATE) }).then(vec![]);
    given::<TournamentAggregate>(held).when(C::Suspend { at: at(LATE) }).then(vec![suspended(LATE)]);
    // Before its creation there is nothing to hold.
    given::<TournamentAggregate>(vec![]).when(C::Suspend { at: at(LATE) }).then_reject(codes::UNKNOWN_TOURNAMENT);
}

/// Registration's policy turns the abort service's suspension and resume into `suspend` and
/// `resume` on the tournament, with ids derived from the suspension's instant: the same
/// events read again give the same ids, another suspension other ids.
#[test]
fn the_policy_holds_registration_on_a_suspension_and_opens_it_on_the_resume() {
    use crate::policy::{closes, holds};
    use floor_events::abort::{AbortEvent, SuspendReason};
    use floor_events::commit::Events;
    let t = TournamentId::new();
    let suspension = |when: &str| AbortEvent::Suspended { reason: SuspendReason::Director { reason: "power cut".into() }, at: at(when) };
    let resume = |since: &str, when: &str| AbortEvent::Resumed { suspended_at: at(since), at: at(when) };
    let orders = holds(t, &Events::Abort(vec![suspension(START), resume(START, LATE)]));
    assert!(
        matches!(&orders[..], [(a, _, C::Suspend { at: s }), (b, _, C::Resume { at: r })] if *a == t && *b == t && *s == at(START) && *r == at(LATE)),
        "{orders:?}"
    );
    assert_ne!(orders[0].1, orders[1].1, "a suspension and its resume are two commands");
    let again = holds(t, &Events::Abort(vec![suspension(START), resume(START, LATE)]));
    assert_eq!(again, orders, "read again, the same commands");
    let later = holds(t, &Events::Abort(vec![suspension(AFTER_DEADLINE), resume(AFTER_DEADLINE, AFTER_DEADLINE)]));
    assert!(later[0].1 != orders[0].1 && later[1].1 != orders[1].1, "another suspension, other ids");
    assert!(closes(t, &Events::Abort(vec![suspension(START), resume(START, LATE)])).is_empty(), "a suspension closes nothing");
    assert_ne!(holds(TournamentId::new(), &Events::Abort(vec![suspension(START)]))[0].1, orders[0].1, "another tournament, another id");
}

// Satellites (issue 36): `../shared/spec/README.md` §9 (seats = ⌊pool ÷ (target buy-in + fee)⌋,
// a satellite's prize is an entry into its target) and 000 §16.7 ("Alternativ kann ein Turnier
// auch dann enden, wenn alle Spielteilnehmer den gleichen Geldgewinnrang erreicht haben": play
// ends when every player left has reached the same prize).

use crate::satellite::TargetFacts;
use floor_events::satellites::{SatelliteTerms, TicketRef};

/// The target's id in these cases.
fn target_id() -> TournamentId {
    TournamentId(uuid::Uuid::from_u128(36))
}

/// A satellite of `definition()`'s shape: 10 + 1 (1,000 to the pool), seats worth `seat_value`
/// (the target's buy-in plus fee), no late registration, room for 20.
fn satellite(seat_value: u64) -> TournamentDefinition {
    TournamentDefinition {
        name: "Satellite".into(),
        buy_in: eur(1_000),
        fee: Fee::OnTop(eur(100)),
        capacity: 20,
        late_registration_until: None,
        satellite: Some(SatelliteTerms::new(target_id(), eur(seat_value))),
        ..definition()
    }
}

/// The target as the service reads it: open, an entry costing `paid_in`.
fn open_target(paid_in: u64) -> TargetFacts {
    TargetFacts {
        start: Start::At(at("2026-12-20T18:00:00Z")),
        start_recorded: false,
        cancelled: false,
        finished: false,
        paid_in: eur(paid_in),
    }
}

fn create_satellite(def: TournamentDefinition, target: Option<TargetFacts>) -> C {
    C::CreateSatellite { tournament_id: TournamentId(uuid_zero()), definition: Box::new(def), target, at: at(CREATED) }
}

/// One entry of the satellite (1,100 paid: 100 fee, 1,000 to the pool).
fn satellite_entry(entry: u32, when: &str) -> TournamentEvent {
    TournamentEvent::EntryRegistered(EntryRegistered {
        entry: EntryNo(entry),
        player: p(&format!("p{entry}")),
        kind: EntryKind::Registration,
        new_player: true,
        ledger: EntryLedger { paid_in: eur(1_100), fee: eur(100), prize_pool: eur(1_000) },
        at: at(when),
        ticket: None,
    })
}

fn out(entry: u32) -> TournamentEvent {
    TournamentEvent::EntryEliminated(EntryEliminated { entry: EntryNo(entry), player: p(&format!("p{entry}")), at: at(LATE) })
}

fn eliminate(entry: u32) -> C {
    C::EliminateEntry { entry: EntryNo(entry), at: at(LATE) }
}

/// The satellite `def` with `entries` registered before the start, and started.
fn started_satellite(def: TournamentDefinition, entries: u32) -> Vec<TournamentEvent> {
    let mut history = vec![created(def)];
    history.extend((1..=entries).map(|n| satellite_entry(n, BEFORE_START)));
    history.push(TournamentEvent::TournamentStarted(TournamentStarted { entries, cause: StartCause::Scheduled, at: at(START) }));
    history
}

/// The stop's `tournament_finished`: every entry of `left`, the first the winner.
fn shared_by(left: &[u32], when: &str) -> TournamentEvent {
    let survivors: Vec<Survivor> = left.iter().map(|&n| Survivor { entry: EntryNo(n), player: p(&format!("p{n}")) }).collect();
    TournamentEvent::TournamentFinished(TournamentFinished {
        winner: survivors[0].entry,
        player: survivors[0].player.clone(),
        at: at(when),
        shared_by: survivors,
    })
}

/// README §9: a satellite names an open target whose entry costs its seat value; created so.
#[test]
fn readme_9_a_satellite_of_an_open_target_at_its_price_is_created() {
    given::<TournamentAggregate>(vec![])
        .when(create_satellite(satellite(3_300), Some(open_target(3_300))))
        .then(vec![created(satellite(3_300))]);
    // A satellite of a satellite is a satellite like another (its steps come later).
    let facts = TargetFacts { paid_in: eur(3_300), ..open_target(0) };
    given::<TournamentAggregate>(vec![]).when(create_satellite(satellite(3_300), Some(facts))).accepted();
}

/// README §9: no seat can be won for a tournament that does not exist; nothing is stored.
#[test]
fn readme_9_a_satellite_of_an_unknown_target_is_refused() {
    given::<TournamentAggregate>(vec![]).when(create_satellite(satellite(3_300), None)).then_reject(codes::UNKNOWN_TARGET);
    // Created without the target's facts (the plain create), a satellite's target is unknown.
    let plain = C::Create { tournament_id: TournamentId(uuid_zero()), definition: Box::new(satellite(3_300)), at: at(CREATED) };
    given::<TournamentAggregate>(vec![]).when(plain).then_reject(codes::UNKNOWN_TARGET);
}

/// README §9: a seat is an entry to come: a target under way, over or cancelled has none.
#[test]
fn readme_9_a_satellite_of_a_started_cancelled_or_finished_target_is_refused() {
    let refused = |facts: TargetFacts| {
        given::<TournamentAggregate>(vec![]).when(create_satellite(satellite(3_300), Some(facts))).then_reject(codes::TARGET_NOT_OPEN)
    };
    refused(TargetFacts { start_recorded: true, ..open_target(3_300) });
    // Its start time has come at the satellite's creation, recorded or not.
    refused(TargetFacts { start: Start::At(at(CREATED)), ..open_target(3_300) });
    refused(TargetFacts { cancelled: true, ..open_target(3_300) });
    refused(TargetFacts { finished: true, ..open_target(3_300) });
    // A sit & go target is open until its last seat starts it.
    given::<TournamentAggregate>(vec![])
        .when(create_satellite(satellite(3_300), Some(TargetFacts { start: Start::SitAndGo, ..open_target(3_300) })))
        .accepted();
}

/// README §9: a seat is worth what an entry to the target costs, buy-in plus fee; another
/// amount is refused naming both.
#[test]
fn readme_9_a_seat_value_other_than_the_targets_price_is_refused_naming_both() {
    given::<TournamentAggregate>(vec![])
        .when(create_satellite(satellite(3_300), Some(open_target(3_000))))
        .then_reject(codes::SEAT_VALUE_MISMATCH);
    let error =
        TournamentAggregate::handle_command(&TournamentState::default(), create_satellite(satellite(3_300), Some(open_target(3_000))))
            .expect_err("refused");
    let message = error.to_string();
    assert!(message.contains(&eur(3_300).to_string()) && message.contains(&eur(3_000).to_string()), "{message}");
}

/// The facts the service hands over are the target's own log, folded.
#[test]
fn the_targets_facts_are_read_from_its_log() {
    let mut target = vec![created(definition())];
    assert_eq!(TargetFacts::of(&TournamentState::default()), None, "no log: no target");
    let state = given::<TournamentAggregate>(target.clone()).state().clone();
    assert_eq!(TargetFacts::of(&state).map(|f| (f.paid_in, f.start_recorded)), Some((eur(2_200), false)));
    target.push(TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(START) }));
    let state = given::<TournamentAggregate>(target).state().clone();
    assert!(TargetFacts::of(&state).is_some_and(|f| f.start_recorded));
}

fn ticket() -> TicketRef {
    TicketRef { satellite: TournamentId(uuid::Uuid::from_u128(7)), entry: EntryNo(3) }
}

fn with_ticket(player: &str, value: Money, when: &str) -> C {
    C::RegisterWithTicket { player: p(player), ticket: ticket(), value, at: at(when) }
}

/// README §9: a satellite's seat is an entry to the target paid by the ticket: the usual lines,
/// the ticket named on the entry.
#[test]
fn readme_9_a_ticket_worth_an_entry_registers_with_the_ticket_on_the_entry() {
    let TournamentEvent::EntryRegistered(cash) = registered(1, "ana", EntryKind::Registration, true, BEFORE_START) else { unreachable!() };
    given::<TournamentAggregate>(vec![created(definition())])
        .when(with_ticket("ana", eur(2_200), BEFORE_START))
        .then(vec![TournamentEvent::EntryRegistered(EntryRegistered { ticket: Some(ticket()), ..cash })]);
}

/// A ticket worth another amount (or in another currency) than an entry pays for none; and a
/// ticket registration is refused as any registration is, and pays one entry once.
#[test]
fn readme_9_a_ticket_of_another_value_is_refused_and_otherwise_as_a_registration() {
    let open = vec![created(definition())];
    given::<TournamentAggregate>(open.clone()).when(with_ticket("ana", eur(2_000), BEFORE_START)).then_reject(codes::TICKET_VALUE_MISMATCH);
    given::<TournamentAggregate>(open.clone())
        .when(with_ticket("ana", Money::new(2_200, Currency::parse("SEK").expect("currency")), BEFORE_START))
        .then_reject(codes::TICKET_VALUE_MISMATCH);
    given::<TournamentAggregate>(open.clone()).when(with_ticket("ana", eur(2_200), AFTER_DEADLINE)).then_reject(codes::REGISTRATION_CLOSED);
    let mut entered = open;
    entered.push(TournamentEvent::EntryRegistered(EntryRegistered {
        ticket: Some(ticket()),
        ..match registered(1, "ana", EntryKind::Registration, true, BEFORE_START) {
            TournamentEvent::EntryRegistered(e) => e,
            _ => unreachable!(),
        }
    }));
    given::<TournamentAggregate>(entered.clone()).when(with_ticket("ana", eur(2_200), BEFORE_START)).then_reject(codes::ALREADY_REGISTERED);
    given::<TournamentAggregate>(entered).when(with_ticket("ben", eur(2_200), BEFORE_START)).then_reject(codes::TICKET_SPENT);
}

/// 000 §16.7, README §9: ten entries, a seat worth 3.3 entries' pool: 3 seats (10,000 ÷ 3,300).
/// Payouts decides the stop (issues 36/37: it ranks the stop's hand): an elimination below it
/// records the entry out and nothing more, even the one that leaves 3; payouts' `stop_shared`
/// finishes it shared by the survivors it names, winner first.
#[test]
fn section_16_7_a_satellite_of_ten_with_three_seats_stops_when_three_are_left() {
    let mut history = started_satellite(satellite(3_300), 10);
    for n in [1, 2, 3, 4, 5, 6, 9] {
        given::<TournamentAggregate>(history.clone()).when(eliminate(n)).then(vec![out(n)]);
        history.push(out(n));
    }
    given::<TournamentAggregate>(history.clone()).when(stop(&[7, 8, 10])).then(vec![shared_by(&[7, 8, 10], LATE)]);
    history.push(shared_by(&[7, 8, 10], LATE));
    // The winners are not eliminated after the stop, and the stop is recorded once.
    given::<TournamentAggregate>(history.clone()).when(eliminate(7)).then_reject(codes::TOURNAMENT_FINISHED);
    given::<TournamentAggregate>(history.clone()).when(stop(&[7, 8, 10])).then_reject(codes::TOURNAMENT_FINISHED);
    given::<TournamentAggregate>(history)
        .when(C::CloseRegistration { cause: RegistrationCloseCause::LateRegistrationLevel, at: at(LATE) })
        .then(vec![]);
}

fn stop(survivors: &[u32]) -> C {
    C::StopShared { survivors: survivors.iter().map(|&n| EntryNo(n)).collect(), deal: false, at: at(LATE) }
}

/// Issues 36/37, `stop_shared`: the survivors in payouts' order (the winner first), an entry
/// eliminated already allowed (payouts ranked it above the cut in the stop's hand, whose busts
/// reach registration in any order); refused for an entry the tournament does not have or that
/// was unregistered, for none or one named twice, and for a tournament without an equal prize.
#[test]
fn stop_shared_names_payouts_survivors_eliminated_ones_too_and_refuses_what_is_not_a_stop() {
    let mut history = started_satellite(satellite(3_300), 10);
    for n in 1..=7 {
        history.push(out(n));
    }
    // Entry 7 was eliminated before entry 6's bust reached registration; payouts ranked it
    // above the cut (the bigger stack of the hand): it shares the seats.
    given::<TournamentAggregate>(history.clone()).when(stop(&[10, 8, 9, 7])).then(vec![shared_by(&[10, 8, 9, 7], LATE)]);
    given::<TournamentAggregate>(history.clone()).when(stop(&[8, 11])).then_reject(codes::UNKNOWN_ENTRY);
    given::<TournamentAggregate>(history.clone()).when(stop(&[8, 8])).then_reject(codes::INVALID_FIELD);
    given::<TournamentAggregate>(history).when(stop(&[])).then_reject(codes::INVALID_FIELD);
    // An ordinary tournament plays to one winner.
    let plain = TournamentDefinition { cut: None, ..cut(4, 2) };
    given::<TournamentAggregate>(full_cut(plain.clone())).when(stop(&[1, 2])).then_reject(codes::INVALID_FIELD);
    // Unless the remaining players agreed a deal that ends it (000 §16.8 "Ein Turnier kann auch
    // durch einen Turnierdeal enden", 004 §4.35): payouts' stop names them, the biggest stack first.
    let deal = C::StopShared { survivors: vec![EntryNo(2), EntryNo(1)], deal: true, at: at(LATE) };
    given::<TournamentAggregate>(full_cut(plain)).when(deal).then(vec![shared_by(&[2, 1], LATE)]);
    // An unregistered entry is no survivor.
    let mut open = vec![created(satellite(3_300))];
    open.extend((1..=2).map(|n| satellite_entry(n, BEFORE_START)));
    open.push(TournamentEvent::EntryUnregistered(EntryUnregistered {
        entry: EntryNo(2),
        player: p("p2"),
        refund: entry_of(satellite_entry(2, BEFORE_START)).ledger,
        by_operator: false,
        player_left: true,
        at: at(BEFORE_START),
    }));
    given::<TournamentAggregate>(open).when(stop(&[1, 2])).then_reject(codes::UNKNOWN_ENTRY);
}

/// 000 §16.7: with late registration the field is not closed at the start: entries may still
/// come and the seats grow, so play goes on below the seats until registration closes, and
/// stops at the close.
#[test]
fn section_16_7_a_satellite_with_late_registration_stops_at_the_close_not_before() {
    let late = TournamentDefinition { late_registration_until: Some(at(AFTER_DEADLINE)), ..satellite(3_300) };
    // Seven entries: 7,000 buys 2 seats.
    let mut history = started_satellite(late, 7);
    for n in 1..=5 {
        given::<TournamentAggregate>(history.clone()).when(eliminate(n)).then(vec![out(n)]);
        history.push(out(n));
    }
    let closed =
        TournamentEvent::RegistrationClosed(RegistrationClosed { cause: RegistrationCloseCause::LateRegistrationLevel, at: at(LATE) });
    given::<TournamentAggregate>(history)
        .when(C::CloseRegistration { cause: RegistrationCloseCause::LateRegistrationLevel, at: at(LATE) })
        .then(vec![closed, shared_by(&[6, 7], LATE)]);
}

/// 000 §16.7 at the start: a guarantee of three seats and three entries: every entry has its
/// seat before a card is dealt.
#[test]
fn section_16_7_a_satellite_whose_guarantee_seats_everyone_stops_at_its_start() {
    let guaranteed = TournamentDefinition { guarantee: Some(eur(9_900)), ..satellite(3_300) };
    let mut history = vec![created(guaranteed)];
    history.extend((1..=3).map(|n| satellite_entry(n, BEFORE_START)));
    let started = TournamentEvent::TournamentStarted(TournamentStarted { entries: 3, cause: StartCause::Scheduled, at: at(START) });
    given::<TournamentAggregate>(history).when(C::Start { at: at(START), now: false }).then(vec![started, shared_by(&[1, 2, 3], START)]);
}

/// 000 §16.7 needs a prize to share: a pool below one seat (3,000 against 3,300) pays cash and
/// plays to one winner, as any tournament.
#[test]
fn section_16_7_a_satellite_below_one_seat_plays_to_one_winner() {
    let mut history = started_satellite(satellite(3_300), 3);
    given::<TournamentAggregate>(history.clone()).when(eliminate(1)).then(vec![out(1)]);
    history.push(out(1));
    let winner = TournamentFinished { winner: EntryNo(3), player: p("p3"), at: at(LATE), shared_by: vec![] };
    given::<TournamentAggregate>(history).when(eliminate(2)).then(vec![out(2), TournamentEvent::TournamentFinished(winner)]);
}

// Double or nothing (issue 37): the satellite's stop with the cut's equal prize.

/// A double or nothing (or, with `fraction` 3, a triple up) sit & go of `capacity` seats at
/// 10 + 1 (1,000 to the pool), as `satellite()`'s entries pay.
fn cut(capacity: u32, fraction: u32) -> TournamentDefinition {
    TournamentDefinition {
        name: "Double or Nothing".into(),
        start: Start::SitAndGo,
        buy_in: eur(1_000),
        fee: Fee::OnTop(eur(100)),
        capacity,
        min_players: capacity,
        late_registration_until: None,
        cut: Some(floor_events::shootouts::CutTerms { fraction }),
        ..definition()
    }
}

/// The cut `def` full: its `capacity` entries registered, the last seat starting it.
fn full_cut(def: TournamentDefinition) -> Vec<TournamentEvent> {
    let capacity = def.capacity;
    let mut history = vec![created(def)];
    history.extend((1..=capacity).map(|n| satellite_entry(n, BEFORE_START)));
    history.push(TournamentEvent::TournamentStarted(TournamentStarted {
        entries: capacity,
        cause: StartCause::LastSeatFilled,
        at: at(BEFORE_START),
    }));
    history
}

/// 003 App. 1 b xi: "vyhrává polovina účastníků hazardní hry dvojnásobek buy-inu. Turnaj končí
/// v okamžiku, kdy je vyřazena polovina jeho účastníků; druhá polovina má potom nárok na výhru"
/// (half the participants win twice the buy-in; it ends the moment half are out, the other
/// half then entitled to a prize). 004 §4.36.16 says the same. Ten seats: the fifth
/// elimination stops play, the five left sharing the end, the lowest entry first.
#[test]
fn app_1_b_xi_a_ten_seat_double_or_nothing_stops_when_five_are_left() {
    // Given a full 10-seat double or nothing, its last seat filled (the start stops nothing).
    let mut history = vec![created(cut(10, 2))];
    history.extend((1..=9).map(|n| satellite_entry(n, BEFORE_START)));
    let started =
        TournamentEvent::TournamentStarted(TournamentStarted { entries: 10, cause: StartCause::LastSeatFilled, at: at(BEFORE_START) });
    given::<TournamentAggregate>(history.clone()).when(register("p10", BEFORE_START)).then(vec![
        TournamentEvent::EntryRegistered(EntryRegistered { player: p("p10"), ..entry_of(satellite_entry(10, BEFORE_START)) }),
        started.clone(),
    ]);
    let mut history = full_cut(cut(10, 2));
    // When five are eliminated, registration records each out and nothing more: payouts
    // decides the stop (issues 36/37).
    for n in [2, 4, 6, 8, 10] {
        given::<TournamentAggregate>(history.clone()).when(eliminate(n)).then(vec![out(n)]);
        history.push(out(n));
    }
    // Then payouts' stop finishes it, shared by the five left.
    given::<TournamentAggregate>(history.clone()).when(stop(&[1, 3, 5, 7, 9])).then(vec![shared_by(&[1, 3, 5, 7, 9], LATE)]);
    history.push(shared_by(&[1, 3, 5, 7, 9], LATE));
    // And nobody left is eliminated after: each keeps the prize.
    given::<TournamentAggregate>(history).when(eliminate(1)).then_reject(codes::TOURNAMENT_FINISHED);
}

fn entry_of(event: TournamentEvent) -> EntryRegistered {
    match event {
        TournamentEvent::EntryRegistered(e) => e,
        _ => unreachable!("an entry"),
    }
}

/// Issue 37, variants from the same rule: "a third wins triple". Nine seats at fraction 3
/// stop when three are left.
#[test]
fn a_third_wins_triple_nine_seats_stop_at_three() {
    let mut history = full_cut(cut(9, 3));
    for n in 1..=6 {
        given::<TournamentAggregate>(history.clone()).when(eliminate(n)).then(vec![out(n)]);
        history.push(out(n));
    }
    given::<TournamentAggregate>(history).when(stop(&[7, 8, 9])).then(vec![shared_by(&[7, 8, 9], LATE)]);
}

/// 004 §4.36.16: "Turnaj končí v okamžiku, kdy je vyřazena polovina jeho Sázejících" (it ends
/// the moment half its players are out): two players out in one hand across the cut. Their
/// eliminations reach registration in any order (seating sends them concurrently), so
/// registration does not rank them: both are recorded out, the bigger stack (entry 4, 2,500
/// chips) first here, and payouts, which ranks the hand by chips at its start, names entry 4
/// among the survivors (issues 36/37): the cut is never crossed, whatever the arrival order.
#[test]
fn section_4_36_16_a_double_bust_across_the_cut_puts_out_the_smaller_stack_and_the_bigger_keeps_the_prize() {
    // Given a 10-seat double or nothing with six left (entries 3, 4 and 7 … 10).
    let mut history = full_cut(cut(10, 2));
    for n in [1, 2, 5, 6] {
        history.push(out(n));
    }
    // When one hand busts entry 4 (the bigger stack, arriving first) and entry 3.
    given::<TournamentAggregate>(history.clone()).when(eliminate(4)).then(vec![out(4)]);
    history.push(out(4));
    given::<TournamentAggregate>(history.clone()).when(eliminate(3)).then(vec![out(3)]);
    history.push(out(3));
    // Then payouts' stop names entry 4 with the four left: it shares the end with its prize.
    given::<TournamentAggregate>(history.clone()).when(stop(&[7, 8, 9, 10, 4])).then(vec![shared_by(&[7, 8, 9, 10, 4], LATE)]);
    history.push(shared_by(&[7, 8, 9, 10, 4], LATE));
    given::<TournamentAggregate>(history.clone()).when(eliminate(7)).then_reject(codes::TOURNAMENT_FINISHED);
    let state = given::<TournamentAggregate>(history).state().clone();
    assert!(state.finished);
    assert_eq!(state.entries.iter().filter(|e| e.status == crate::domain::EntryStatus::Live).count(), 4);
}

/// A double or nothing is not a satellite: no target is asked for, and an ordinary sit & go
/// (no cut) still plays to one winner.
#[test]
fn a_double_or_nothing_needs_no_target_and_a_plain_sit_and_go_plays_to_one_winner() {
    given::<TournamentAggregate>(vec![])
        .when(C::Create { tournament_id: TournamentId(uuid_zero()), definition: Box::new(cut(10, 2)), at: at(CREATED) })
        .then(vec![created(cut(10, 2))]);
    let plain = TournamentDefinition { cut: None, ..cut(4, 2) };
    let mut history = full_cut(plain);
    history.extend([out(1), out(2)]);
    let winner = TournamentFinished { winner: EntryNo(4), player: p("p4"), at: at(LATE), shared_by: vec![] };
    given::<TournamentAggregate>(history).when(eliminate(3)).then(vec![out(3), TournamentEvent::TournamentFinished(winner)]);
}

// Flights (issue 36; 004 §4.36.11–13): a Day 1 names its Day 2, checked at its creation as a
// satellite's target (the same read of the Day 2's log, the same codes).

use floor_events::flights::{Carry, FlightTerms};

fn day1() -> TournamentDefinition {
    TournamentDefinition {
        name: "Day 1A".into(),
        late_registration_until: None,
        flight: Some(FlightTerms { day2: target_id(), survivors_share_bps: 1_500, carry: Carry::BestStack, one_day1_at_a_time: false }),
        ..definition()
    }
}

/// 004 §4.36.11: a Day 1 of an open Day 2 is created; its price need not be the Day 2's (its
/// whole pool is paid over, not a seat).
#[test]
fn flight_a_day1_of_an_open_day2_is_created() {
    given::<TournamentAggregate>(vec![]).when(create_satellite(day1(), Some(open_target(99_999)))).then(vec![created(day1())]);
}

/// A Day 2 that does not exist, or has started, finished or been cancelled, feeds no Day 1:
/// refused with the satellite's codes, nothing stored.
#[test]
fn flight_a_day1_of_an_unknown_or_started_day2_is_refused() {
    given::<TournamentAggregate>(vec![]).when(create_satellite(day1(), None)).then_reject(codes::UNKNOWN_TARGET);
    let plain = C::Create { tournament_id: TournamentId(uuid_zero()), definition: Box::new(day1()), at: at(CREATED) };
    given::<TournamentAggregate>(vec![]).when(plain).then_reject(codes::UNKNOWN_TARGET);
    for facts in [
        TargetFacts { start_recorded: true, ..open_target(0) },
        TargetFacts { start: Start::At(at(CREATED)), ..open_target(0) },
        TargetFacts { cancelled: true, ..open_target(0) },
        TargetFacts { finished: true, ..open_target(0) },
    ] {
        given::<TournamentAggregate>(vec![]).when(create_satellite(day1(), Some(facts))).then_reject(codes::TARGET_NOT_OPEN);
    }
}

/// A share outside 1 … 10,000 bp is an invalid definition.
#[test]
fn flight_a_day1_with_no_share_is_refused() {
    let mut def = day1();
    def.flight.as_mut().expect("flight").survivors_share_bps = 0;
    given::<TournamentAggregate>(vec![]).when(create_satellite(def, Some(open_target(0)))).then_reject(codes::INVALID_DEFINITION);
}

/// A Day 1 of the satellite's shape (20 seats, no late registration) at 15 %.
fn started_day1(entries: u32) -> Vec<TournamentEvent> {
    let def = TournamentDefinition { buy_in: eur(1_000), fee: Fee::OnTop(eur(100)), capacity: 20, ..day1() };
    started_satellite(def, entries)
}

/// The Day 1's stop: 10 entries at 15 % send ⌈1.5⌉ = 2 through. Out to 3 left, play goes on; the
/// elimination that leaves 2 ends the Day 1 with both survivors (`shared_by`), the first named
/// the "winner" (a Day 1 pays no prizes: no ranking to agree with, registration stops it).
#[test]
fn flight_a_day1_stops_at_its_share_of_the_field() {
    let mut history = started_day1(10);
    history.extend((1..=7).map(out));
    given::<TournamentAggregate>(history.clone()).when(eliminate(8)).then(vec![out(8), shared_by(&[9, 10], LATE)]);
    // Before the share, an elimination is only an elimination.
    let mut early = started_day1(10);
    early.extend((1..=6).map(out));
    given::<TournamentAggregate>(early).when(eliminate(7)).then(vec![out(7)]);
    // After the stop, the survivors keep their stacks: no more eliminations.
    history.extend([out(8), shared_by(&[9, 10], LATE)]);
    given::<TournamentAggregate>(history).when(eliminate(9)).then_reject(codes::TOURNAMENT_FINISHED);
}

/// A Day 1 whose field is already within its share when play begins stops at its start.
#[test]
fn flight_a_day1_within_its_share_at_the_start_stops_there() {
    let def = TournamentDefinition {
        buy_in: eur(1_000),
        fee: Fee::OnTop(eur(100)),
        capacity: 20,
        flight: Some(FlightTerms { survivors_share_bps: 10_000, ..day1().flight.expect("flight") }),
        ..day1()
    };
    let mut history = vec![created(def)];
    history.extend((1..=2).map(|n| satellite_entry(n, BEFORE_START)));
    let start = C::Start { at: at(START), now: false };
    let events = TournamentAggregate::handle_command(&given::<TournamentAggregate>(history).state().clone(), start).expect("started");
    assert!(matches!(events.last(), Some(TournamentEvent::TournamentFinished(f)) if f.shared_by.len() == 2), "{events:?}");
}
