//! The rebuys decider, case by case (the rulebooks' own cases) and by property.

use crate::domain::{Period, RebuyCommand as C, RebuysAggregate, Who};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::codes;
use floor_events::rebuys::{ClosedCause, Forgone, RebuyEvent as E};
use floor_events::tournament::{AddOnTerms, RebuyCondition, RebuyTerms};
use floor_events::{Currency, EntryNo, Money, PlayerId, TournamentId};
use floor_runtime::spec::given;
use proptest::prelude::*;

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

fn t0() -> DateTime<Utc> {
    "2026-12-06T18:00:00Z".parse().unwrap()
}

fn secs(s: i64) -> DateTime<Utc> {
    t0() + Duration::seconds(s)
}

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn who(name: &str) -> Who {
    Who { player: player(name), entry: None }
}

/// EUR 10 rebuys for 10,000 chips, two per entry, 30 s to decide; an EUR 10 add-on for 15,000.
fn rebuy_terms(condition: RebuyCondition) -> RebuyTerms {
    RebuyTerms { price: eur(1_000), fee: eur(100), chips: 10_000, max_per_entry: 2, condition, offer_seconds: 30 }
}

fn add_on_terms() -> AddOnTerms {
    AddOnTerms { price: eur(1_000), fee: eur(0), chips: 15_000 }
}

/// Configured with rebuys and an add-on; ana (entry 1) and ben (entry 2) in; started.
fn started(condition: RebuyCondition) -> Vec<E> {
    vec![
        E::RebuysConfigured { tournament_id: TournamentId::new(), rebuy: Some(rebuy_terms(condition)), add_on: Some(add_on_terms()) },
        E::EntryJoined { entry: EntryNo(1), player: player("ana") },
        E::EntryJoined { entry: EntryNo(2), player: player("ben") },
        E::RebuyPeriodOpened { at: t0() },
    ]
}

fn offered(entry: u32, name: &str, at: i64, taken: u32) -> E {
    E::RebuyOffered { entry: EntryNo(entry), player: player(name), until: secs(at + 30), taken }
}

fn taken(entry: u32, name: &str, number: u32, at: i64) -> E {
    E::RebuyTaken {
        entry: EntryNo(entry),
        player: player(name),
        number,
        chips: 10_000,
        ledger: rebuy_terms(RebuyCondition::AtZero).ledger(),
        at: secs(at),
    }
}

#[test]
fn a_stack_at_zero_in_the_rebuy_period_is_offered_a_rebuy_not_eliminated() {
    // 000 §16.7, 002 §2.6: not eliminated while a rebuy is possible; the offer has a deadline.
    given::<RebuysAggregate>(started(RebuyCondition::AtZero))
        .when(C::Bust { entry: EntryNo(1), at: secs(60) })
        .then(vec![offered(1, "ana", 60, 0)]);
}

/// Issue 22: an offer's time stops while play does. Suspended at 70 s and resumed at 200 s: ana's
/// offer (made at 60 s, 20 s left at the suspension) is made again until 220 s; ben's, made
/// during the suspension at 90 s, gets its whole 30 s from the resume; an offer already past
/// its deadline when play stopped is left to lapse.
#[test]
fn a_suspension_gives_each_open_offer_back_the_time_it_had_left() {
    let mut history = started(RebuyCondition::AtZero);
    history.extend([offered(1, "ana", 60, 0), offered(2, "ben", 90, 0)]);
    given::<RebuysAggregate>(history.clone()).when(C::Extend { suspended_at: secs(70), resumed_at: secs(200) }).then(vec![
        E::RebuyOffered { entry: EntryNo(1), player: player("ana"), until: secs(220), taken: 0 },
        E::RebuyOffered { entry: EntryNo(2), player: player("ben"), until: secs(230), taken: 0 },
    ]);
    given::<RebuysAggregate>(history).when(C::Extend { suspended_at: secs(100), resumed_at: secs(200) }).then(vec![E::RebuyOffered {
        entry: EntryNo(2),
        player: player("ben"),
        until: secs(220),
        taken: 0,
    }]);
}

#[test]
fn the_offer_taken_adds_chips_and_writes_its_ledger_lines() {
    let mut history = started(RebuyCondition::AtZero);
    history.push(offered(1, "ana", 60, 0));
    let events = given::<RebuysAggregate>(history).when(C::Rebuy { who: who("ana"), stack: Some(0), at: secs(70) }).accepted();
    assert_eq!(events, vec![taken(1, "ana", 1, 70)]);
    let E::RebuyTaken { ledger, .. } = &events[0] else { unreachable!() };
    assert_eq!(
        (ledger.paid_in, ledger.fee, ledger.prize_pool),
        (eur(1_100), eur(100), eur(1_000)),
        "price to the pool, fee to the operator"
    );
}

#[test]
fn declined_or_lapsed_offers_end_the_entry_and_a_lapse_after_a_rebuy_is_nothing() {
    let mut history = started(RebuyCondition::AtZero);
    history.push(offered(1, "ana", 60, 0));
    given::<RebuysAggregate>(history.clone())
        .when(C::Decline { who: who("ana") })
        .then(vec![E::RebuyForgone { entry: EntryNo(1), reason: Forgone::Declined }]);
    given::<RebuysAggregate>(history.clone())
        .when(C::Lapse { entry: EntryNo(1), until: secs(90) })
        .then(vec![E::RebuyForgone { entry: EntryNo(1), reason: Forgone::Lapsed }]);
    history.push(taken(1, "ana", 1, 70));
    given::<RebuysAggregate>(history).when(C::Lapse { entry: EntryNo(1), until: secs(90) }).then(vec![]);
}

#[test]
fn the_cap_ends_the_entry_at_its_next_bust_and_refuses_a_rebuy_past_it() {
    let mut history = started(RebuyCondition::AtZero);
    history.extend([offered(1, "ana", 60, 0), taken(1, "ana", 1, 70), offered(1, "ana", 200, 1), taken(1, "ana", 2, 210)]);
    given::<RebuysAggregate>(history.clone())
        .when(C::Bust { entry: EntryNo(1), at: secs(400) })
        .then(vec![E::RebuyForgone { entry: EntryNo(1), reason: Forgone::CapReached }]);
    given::<RebuysAggregate>(history)
        .when(C::Rebuy { who: who("ana"), stack: Some(0), at: secs(400) })
        .then_reject(codes::REBUY_CAP_REACHED);
}

#[test]
fn a_rebuy_after_the_period_is_refused_and_open_offers_end_with_it_when_no_add_on_follows() {
    let mut history = started(RebuyCondition::AtZero);
    history[0] = E::RebuysConfigured { tournament_id: TournamentId::new(), rebuy: Some(rebuy_terms(RebuyCondition::AtZero)), add_on: None };
    history.push(offered(2, "ben", 60, 0));
    given::<RebuysAggregate>(history.clone()).when(C::EndRebuys { at: secs(80) }).then(vec![
        E::RebuyPeriodEnded { at: secs(80), add_on_open: false },
        E::RebuyForgone { entry: EntryNo(2), reason: Forgone::PeriodOver },
    ]);
    history.push(E::RebuyPeriodEnded { at: secs(80), add_on_open: false });
    given::<RebuysAggregate>(history.clone())
        .when(C::Rebuy { who: who("ana"), stack: Some(0), at: secs(90) })
        .then_reject(codes::REBUY_PERIOD_CLOSED);
    given::<RebuysAggregate>(history).when(C::AddOn { who: who("ana"), at: secs(90) }).then_reject(codes::NOT_OFFERED);
}

#[test]
fn the_add_on_is_open_to_a_player_at_zero_chips_at_the_break_ending_the_rebuy_period() {
    // 002 §2.3: the add-on is for every player still in, even at zero chips.
    let mut history = started(RebuyCondition::AtZero);
    history.push(offered(2, "ben", 60, 0));
    given::<RebuysAggregate>(history.clone())
        .when(C::EndRebuys { at: secs(80) })
        .then(vec![E::RebuyPeriodEnded { at: secs(80), add_on_open: true }]);
    history.push(E::RebuyPeriodEnded { at: secs(80), add_on_open: true });
    let add_on = |entry, name: &str| E::AddOnTaken {
        entry: EntryNo(entry),
        player: player(name),
        chips: 15_000,
        ledger: add_on_terms().ledger(),
        at: secs(90),
    };
    given::<RebuysAggregate>(history.clone()).when(C::AddOn { who: who("ben"), at: secs(90) }).then(vec![add_on(2, "ben")]);
    given::<RebuysAggregate>(history.clone()).when(C::AddOn { who: who("ana"), at: secs(90) }).then(vec![add_on(1, "ana")]);
    history.push(add_on(1, "ana"));
    given::<RebuysAggregate>(history.clone()).when(C::AddOn { who: who("ana"), at: secs(95) }).then_reject(codes::ADD_ON_TAKEN);
    // Ben never took it: the break's end is his elimination.
    given::<RebuysAggregate>(history)
        .when(C::EndAddOns { at: secs(400) })
        .then(vec![E::AddOnsClosed { at: secs(400) }, E::RebuyForgone { entry: EntryNo(2), reason: Forgone::PeriodOver }]);
}

#[test]
fn the_rebuy_period_cannot_end_before_the_start_and_ending_it_twice_is_nothing() {
    let configured = started(RebuyCondition::AtZero)[..3].to_vec();
    given::<RebuysAggregate>(configured).when(C::EndRebuys { at: secs(0) }).then_reject(codes::REBUY_PERIOD_CLOSED);
    let mut ended = started(RebuyCondition::AtZero);
    ended.push(E::RebuyPeriodEnded { at: secs(80), add_on_open: true });
    given::<RebuysAggregate>(ended).when(C::EndRebuys { at: secs(90) }).then(vec![]);
}

#[test]
fn before_the_break_the_add_on_is_closed_and_a_stranger_has_no_entry() {
    given::<RebuysAggregate>(started(RebuyCondition::AtZero))
        .when(C::AddOn { who: who("ana"), at: secs(10) })
        .then_reject(codes::ADD_ON_CLOSED);
    given::<RebuysAggregate>(started(RebuyCondition::AtZero))
        .when(C::Rebuy { who: who("zoe"), stack: Some(0), at: secs(10) })
        .then_reject(codes::NOT_REGISTERED);
    given::<RebuysAggregate>(vec![]).when(C::Rebuy { who: who("zoe"), stack: None, at: secs(10) }).then_reject(codes::UNKNOWN_TOURNAMENT);
}

#[test]
fn at_zero_only_under_002_but_at_or_below_a_count_under_003() {
    // 002 §2.3: only at zero; with chips left there is no offer to take.
    given::<RebuysAggregate>(started(RebuyCondition::AtZero))
        .when(C::Rebuy { who: who("ana"), stack: Some(4_000), at: secs(10) })
        .then_reject(codes::REBUY_NOT_ALLOWED);
    // 003: "chips ≤ X" between hands.
    let below = RebuyCondition::AtOrBelow { chips: 5_000 };
    given::<RebuysAggregate>(started(below))
        .when(C::Rebuy { who: who("ana"), stack: Some(4_000), at: secs(10) })
        .then(vec![taken(1, "ana", 1, 10)]);
    given::<RebuysAggregate>(started(below))
        .when(C::Rebuy { who: who("ana"), stack: Some(5_001), at: secs(10) })
        .then_reject(codes::REBUY_NOT_ALLOWED);
    given::<RebuysAggregate>(started(below))
        .when(C::Rebuy { who: who("ana"), stack: None, at: secs(10) })
        .then_reject(codes::REBUY_NOT_ALLOWED);
}

#[test]
fn a_player_with_two_live_entries_must_name_one() {
    let mut history = started(RebuyCondition::AtZero);
    history.push(E::EntryJoined { entry: EntryNo(3), player: player("ana") });
    history.push(offered(3, "ana", 60, 0));
    given::<RebuysAggregate>(history.clone())
        .when(C::Rebuy { who: who("ana"), stack: None, at: secs(70) })
        .then_reject(codes::ENTRY_AMBIGUOUS);
    let named = Who { player: player("ana"), entry: Some(EntryNo(3)) };
    given::<RebuysAggregate>(history).when(C::Rebuy { who: named, stack: None, at: secs(70) }).then(vec![taken(3, "ana", 1, 70)]);
}

/// Issue 33: after a cancellation (registration's before the start, the abort's in play) no
/// rebuy, add-on or decline is sold, with the cancellation's code and no event; an offer open
/// then neither lapses nor ends the entry; the director's end of a period is refused too.
#[test]
fn issue_33_after_a_cancellation_nothing_is_bought_declined_or_lapsed() {
    let mut history = started(RebuyCondition::AtZero);
    history.push(offered(2, "ben", 60, 0));
    given::<RebuysAggregate>(history.clone())
        .when(C::Close { cause: ClosedCause::Cancelled, at: secs(70) })
        .then(vec![E::PurchasesClosed { cause: ClosedCause::Cancelled, at: secs(70) }]);
    history.push(E::PurchasesClosed { cause: ClosedCause::Cancelled, at: secs(70) });
    let refused = [
        ("the rebuy offered before", C::Rebuy { who: who("ben"), stack: Some(0), at: secs(80) }),
        ("a decline", C::Decline { who: who("ben") }),
        ("an add-on", C::AddOn { who: who("ana"), at: secs(80) }),
        ("the director's end of rebuys", C::EndRebuys { at: secs(80) }),
        ("the director's end of add-ons", C::EndAddOns { at: secs(80) }),
    ];
    for (case, command) in refused {
        assert_eq!(
            RebuysAggregate::handle_command(&state_of(&history), command).map_err(|e| floor_runtime::DomainError::code(&e)),
            Err(codes::TOURNAMENT_CANCELLED),
            "{case}"
        );
    }
    let nothing = [
        C::Lapse { entry: EntryNo(2), until: secs(90) },
        C::Bust { entry: EntryNo(1), at: secs(80) },
        C::Close { cause: ClosedCause::Cancelled, at: secs(90) },
        C::Suspend { at: secs(90) },
        C::Extend { suspended_at: secs(50), resumed_at: secs(90) },
    ];
    for command in nothing {
        given::<RebuysAggregate>(history.clone()).when(command).then(vec![]);
    }
}

/// Issue 33: the add-on break is open when the tournament ends: the add-on is refused with the
/// end's own code.
#[test]
fn issue_33_after_the_end_the_add_on_is_refused_as_finished() {
    let mut history = started(RebuyCondition::AtZero);
    history.extend([
        E::RebuyPeriodEnded { at: secs(80), add_on_open: true },
        E::PurchasesClosed { cause: ClosedCause::Finished, at: secs(90) },
    ]);
    given::<RebuysAggregate>(history.clone()).when(C::AddOn { who: who("ana"), at: secs(95) }).then_reject(codes::TOURNAMENT_FINISHED);
    given::<RebuysAggregate>(history)
        .when(C::Rebuy { who: who("ana"), stack: Some(0), at: secs(95) })
        .then_reject(codes::TOURNAMENT_FINISHED);
}

/// Issue 33: while play is suspended nothing is bought or declined (`tournament_suspended`,
/// no event) and no offer lapses; the resume opens buying again, with the offers made again.
#[test]
fn issue_33_during_a_suspension_nothing_is_bought_and_the_resume_opens_buying_again() {
    let mut history = started(RebuyCondition::AtZero);
    history.push(offered(1, "ana", 60, 0));
    given::<RebuysAggregate>(history.clone()).when(C::Suspend { at: secs(70) }).then(vec![E::PlaySuspended { at: secs(70) }]);
    history.push(E::PlaySuspended { at: secs(70) });
    given::<RebuysAggregate>(history.clone())
        .when(C::Rebuy { who: who("ana"), stack: Some(0), at: secs(75) })
        .then_reject(codes::TOURNAMENT_SUSPENDED);
    given::<RebuysAggregate>(history.clone()).when(C::Decline { who: who("ana") }).then_reject(codes::TOURNAMENT_SUSPENDED);
    given::<RebuysAggregate>(history.clone()).when(C::Lapse { entry: EntryNo(1), until: secs(90) }).then(vec![]);
    given::<RebuysAggregate>(history.clone()).when(C::Suspend { at: secs(80) }).then(vec![]);
    let mut at_the_break = history.clone();
    at_the_break.push(E::RebuyPeriodEnded { at: secs(72), add_on_open: true });
    given::<RebuysAggregate>(at_the_break).when(C::AddOn { who: who("ben"), at: secs(75) }).then_reject(codes::TOURNAMENT_SUSPENDED);

    // Resumed at 200 s: ana's offer had 20 s left; buying is open again.
    let resumed =
        vec![E::RebuyOffered { entry: EntryNo(1), player: player("ana"), until: secs(220), taken: 0 }, E::PlayResumed { at: secs(200) }];
    given::<RebuysAggregate>(history.clone()).when(C::Extend { suspended_at: secs(70), resumed_at: secs(200) }).then(resumed.clone());
    history.extend(resumed);
    given::<RebuysAggregate>(history).when(C::Rebuy { who: who("ana"), stack: Some(0), at: secs(210) }).then(vec![taken(1, "ana", 1, 210)]);
}

/// Issue 33: a log from before these events replays as it did: no suspension is known, so the
/// resume makes the offers again without a `play_resumed`, and buying is open.
#[test]
fn issue_33_an_old_log_without_the_new_events_replays_and_buys_as_before() {
    let mut history = started(RebuyCondition::AtZero);
    history.push(offered(1, "ana", 60, 0));
    let state = state_of(&history);
    assert_eq!((state.closed, state.suspended), (None, false));
    given::<RebuysAggregate>(history.clone())
        .when(C::Extend { suspended_at: secs(70), resumed_at: secs(200) })
        .then(vec![E::RebuyOffered { entry: EntryNo(1), player: player("ana"), until: secs(220), taken: 0 }]);
    given::<RebuysAggregate>(history).when(C::Rebuy { who: who("ana"), stack: Some(0), at: secs(70) }).then(vec![taken(1, "ana", 1, 70)]);
}

fn state_of(history: &[E]) -> crate::RebuyState {
    history.iter().cloned().fold(Default::default(), RebuysAggregate::apply_event)
}

/// One random step of a tournament's rebuy life.
#[derive(Debug, Clone)]
enum Step {
    Bust(u32),
    Rebuy(u32),
    Decline(u32),
    Lapse(u32),
    EndRebuys,
    AddOn(u32),
    EndAddOns,
    Suspend,
    Resume,
    Close(ClosedCause),
}

fn step() -> impl Strategy<Value = Step> {
    let entry = 1u32..6;
    prop_oneof![
        4 => entry.clone().prop_map(Step::Bust),
        4 => entry.clone().prop_map(Step::Rebuy),
        1 => entry.clone().prop_map(Step::Decline),
        1 => entry.clone().prop_map(Step::Lapse),
        1 => Just(Step::EndRebuys),
        3 => entry.prop_map(Step::AddOn),
        1 => Just(Step::EndAddOns),
        1 => Just(Step::Suspend),
        2 => Just(Step::Resume),
        1 => prop_oneof![Just(ClosedCause::Cancelled), Just(ClosedCause::Finished)].prop_map(Step::Close),
    ]
}

proptest! {
    /// Whatever happens: no entry rebuys past its cap, takes two add-ons, or buys outside its
    /// period, during a suspension or after the end (issue 33); every purchase's ledger lines
    /// add up (paid in = fee + pool); and replaying the log gives the live state.
    #[test]
    fn caps_periods_and_ledgers_hold_and_a_replay_gives_the_same_state(steps in prop::collection::vec(step(), 1..80)) {
        let names = ["", "ana", "ben", "cleo", "dan", "eva"];
        let mut log = started(RebuyCondition::AtZero);
        for (n, name) in names.iter().enumerate().skip(3) {
            log.push(E::EntryJoined { entry: EntryNo(n as u32), player: player(name) });
        }
        let mut state = log.iter().cloned().fold(Default::default(), RebuysAggregate::apply_event);
        for (i, s) in steps.into_iter().enumerate() {
            let at = secs(i as i64 * 10);
            let command = match s {
                Step::Bust(e) => C::Bust { entry: EntryNo(e), at },
                Step::Rebuy(e) => C::Rebuy { who: who(names[e as usize]), stack: Some(0), at },
                Step::Decline(e) => C::Decline { who: who(names[e as usize]) },
                Step::Lapse(e) => C::Lapse { entry: EntryNo(e), until: state.entries.get(&EntryNo(e)).and_then(|x| x.offer_until).unwrap_or(at) },
                Step::EndRebuys => C::EndRebuys { at },
                Step::AddOn(e) => C::AddOn { who: who(names[e as usize]), at },
                Step::EndAddOns => C::EndAddOns { at },
                Step::Suspend => C::Suspend { at },
                Step::Resume => C::Extend { suspended_at: at - Duration::seconds(5), resumed_at: at },
                Step::Close(cause) => C::Close { cause, at },
            };
            let (period, held) = (state.period, state.closed.is_some() || state.suspended);
            let Ok(events) = RebuysAggregate::handle_command(&state, command) else { continue };
            for e in &events {
                match e {
                    E::RebuyTaken { .. } | E::AddOnTaken { .. } | E::RebuyForgone { reason: Forgone::Declined | Forgone::Lapsed, .. } if held => {
                        prop_assert!(false, "{:?} while suspended or after the end", e);
                    }
                    E::RebuyTaken { number, ledger, .. } => {
                        prop_assert_eq!(period, Period::Rebuys);
                        prop_assert!(*number <= 2, "past the cap");
                        prop_assert_eq!(ledger.paid_in.amount, ledger.fee.amount + ledger.prize_pool.amount);
                    }
                    E::AddOnTaken { entry, ledger, .. } => {
                        prop_assert_eq!(period, Period::AddOns);
                        prop_assert!(!state.entries[entry].add_on, "a second add-on");
                        prop_assert_eq!(ledger.paid_in.amount, ledger.fee.amount + ledger.prize_pool.amount);
                    }
                    // A forgone rebuy is an elimination: the entry leaves (seating says so).
                    _ => {}
                }
            }
            for e in events {
                let out = if let E::RebuyForgone { entry, .. } = &e { Some(*entry) } else { None };
                log.push(e.clone());
                state = RebuysAggregate::apply_event(state, e);
                if let Some(entry) = out {
                    log.push(E::EntryOut { entry });
                    state = RebuysAggregate::apply_event(state, E::EntryOut { entry });
                }
            }
        }
        let replayed = log.into_iter().fold(Default::default(), RebuysAggregate::apply_event);
        prop_assert_eq!(format!("{:?}", replayed.entries), format!("{:?}", state.entries));
        prop_assert_eq!(replayed.period, state.period);
        prop_assert_eq!((replayed.closed, replayed.suspended), (state.closed, state.suspended));
    }
}
