//! A satellite's rules in the tournament decider (issue 36, `../shared/spec/README.md` §9,
//! 000 §16.7). Pure, as the rest of the decider.
//!
//! - **Its target** ([`TargetFacts`], [`check_target`]): a satellite is created only for a
//!   target that exists, has not started (no start recorded, its start time not come), is not
//!   cancelled or finished, costs more than the satellite, and whose entry costs the
//!   satellite's seat value. The service reads the target's state and passes what the decider
//!   needs in the command; the decider judges.
//! - **Steps** (000 §16.13: "Turniere können auf mehreren Stufen in einer hierarchischen,
//!   schmaler werdenden Baumstruktur ausgerichtet werden […] Start- und Anmeldegebühren steigen
//!   mit zunehmender Stufe in der Hierarchie an. Der Preis eines Turniers auf einer bestimmten
//!   Stufe kann der Start- und Anmeldegebühr zum Turnier auf der nächsthöheren Stufe
//!   entsprechen"; 002 §2.3 T-8.1–T-8.3, the same in Swedish): a satellite of a satellite is a
//!   step, and the links make a tree whose levels rise in buy-in plus fee: a step costing as
//!   much as the step above or more is refused (`satellite_costs_too_much`, no event: the
//!   definition's own check against its seat value, and [`check_target`]'s against what the
//!   target costs). **Exactly one top, no cycle**, by construction: every satellite names one
//!   target, the target must exist when the satellite is created and a tournament is created
//!   once (`tournament_exists`), so a link always points at an older tournament and every
//!   chain of links ends at one tournament that is no satellite, the top; a step cannot name
//!   itself or a step below it (none of them exists yet). A step's level is its number of links
//!   to the top (`floor_events::satellites::level`).
//! - **The stop** ([`with_stop`], [`stop_shared`]): once the field is closed (the start
//!   recorded without late registration, or `registration_closed` recorded, and play begun),
//!   play stops as soon as no more entries are left than the pool buys seats
//!   ([`floor_rules::satellite::stops`]): `tournament_finished` names every survivor
//!   (`shared_by`), each winning a seat. Where no hand's busts are ranked (the start, a sit &
//!   go's last seat, a close of registration) registration decides it, in the same decision,
//!   once. At an elimination with two seats or more ([`stopped_by_payouts`]) payouts decides
//!   it (issues 36/37): it ranks the stop's hand by the profile's rule and sends `stop_shared`
//!   with the survivors; registration records eliminations as they come and never a one-winner
//!   finish then. With one seat the stop is the last one left, decided here as before.
//! - **Double or nothing** (issue 37; 003 App. 1 b xi, 004 §4.36.16: "Turnaj končí v okamžiku,
//!   kdy je vyřazena polovina jeho účastníků; druhá polovina má potom nárok na výhru", the
//!   tournament ends the moment half its participants are out, the other half then entitled
//!   to a prize) is the same stop with the cut's equal prize
//!   ([`floor_rules::satellite::equal_prize`]: `fraction` × an entry's prize-pool part). A sit &
//!   go is full at its start, so its pool buys `capacity ÷ fraction` prizes and it stops when
//!   that many entries are left (a third wins triple: 9 seats at 3 stop at 3).
//! - **Players out in one hand, across the stop.** Their eliminations reach registration in
//!   any order (seating's outbox sends them concurrently; one hand-for-hand hand's busts at
//!   several tables in report order), so registration does not rank them: payouts does, by
//!   chips at the start of the hand (a hand-for-hand hand at every table together, equal stacks
//!   as the profile's rule says), and names the survivors: the remaining entries and the hand's
//!   busts it places within the equal places. A tie straddling the cut is split in cash and is
//!   no survivor. An eliminated survivor is allowed in `stop_shared`; eliminations after the
//!   stop are refused (`tournament_finished`).

use crate::domain::{EntryStatus, RegistrationError, TournamentState};
use chrono::{DateTime, Utc};
use floor_events::flights::FlightTerms;
use floor_events::registration::{Survivor, TournamentEvent, TournamentFinished};
use floor_events::satellites::SatelliteTerms;
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{EntryNo, Money, TournamentId};

/// What the decider needs to know of a satellite's target when the satellite is created, read
/// by the service from the target's own log (the registration service hosts every tournament).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetFacts {
    /// The target's start.
    pub start: Start,
    /// `tournament_started` was recorded.
    pub start_recorded: bool,
    /// `tournament_cancelled` was recorded.
    pub cancelled: bool,
    /// `tournament_finished` was recorded.
    pub finished: bool,
    /// What one entry to the target costs (buy-in plus fee).
    pub paid_in: Money,
}

impl TargetFacts {
    /// The facts of a tournament's state; `None` when no such tournament was created.
    pub fn of(state: &TournamentState) -> Option<Self> {
        let created = state.created.as_ref()?;
        Some(Self {
            start: created.definition.start,
            start_recorded: state.start_recorded,
            cancelled: state.cancelled,
            finished: state.finished,
            paid_in: created.definition.entry_ledger().paid_in,
        })
    }

    /// Why no seat can be won for it at `at`, if none can.
    fn closed(&self, at: DateTime<Utc>) -> Option<&'static str> {
        let started = self.start_recorded || matches!(self.start, Start::At(start) if at >= start);
        if self.cancelled {
            Some("was cancelled")
        } else if self.finished {
            Some("is finished")
        } else if started {
            Some("has started")
        } else {
            None
        }
    }
}

/// A satellite's target, checked at its creation: it exists (`target` is what the service read
/// of it, `None` when nothing), is open at `at`, an entry to it costs more than one to the
/// satellite (`own`: the satellite's buy-in plus fee; a step's fees rise with its level, 000
/// §16.13, 002 §2.3 T-8.2), and it costs the seat value (the prize of a step is the buy-in and
/// fee of the next step up, T-8.3).
pub fn check_target(terms: &SatelliteTerms, own: Money, target: Option<&TargetFacts>, at: DateTime<Utc>) -> Result<(), RegistrationError> {
    let Some(facts) = target else { return Err(RegistrationError::UnknownTarget(terms.target)) };
    if let Some(why) = facts.closed(at) {
        return Err(RegistrationError::TargetNotOpen(terms.target, why));
    }
    if own.currency == facts.paid_in.currency && own.amount >= facts.paid_in.amount {
        return Err(RegistrationError::StepDoesNotRise { target: terms.target, step: own, above: facts.paid_in });
    }
    if facts.paid_in != terms.seat_value {
        return Err(RegistrationError::SeatValueMismatch { target: terms.target, seat_value: terms.seat_value, entry: facts.paid_in });
    }
    Ok(())
}

/// A flight's Day 2, checked at a Day 1's creation as a satellite's target (issue 36): it
/// exists and has not started, finished or been cancelled. A Day 1 pays its pool over whole,
/// so no price is compared.
pub fn check_day2(terms: &FlightTerms, day2: Option<&TargetFacts>, at: DateTime<Utc>) -> Result<(), RegistrationError> {
    let Some(facts) = day2 else { return Err(RegistrationError::UnknownDay2(terms.day2)) };
    if let Some(why) = facts.closed(at) {
        return Err(RegistrationError::Day2NotOpen(terms.day2, why));
    }
    Ok(())
}

/// The target named by a definition (a satellite's target, a Day 1's Day 2), for the service to
/// read before the creation.
pub fn target_of(definition: &TournamentDefinition) -> Option<TournamentId> {
    definition.satellite.map(|terms| terms.target).or(definition.flight.map(|terms| terms.day2))
}

/// `events`, decided on `state`, with the satellite's stop (000 §16.7) when they bring it:
/// the field closed, play begun and no more entries left than seats. The stop replaces a plain
/// `tournament_finished` the events hold (the last elimination's), so the tournament finishes
/// once. A tournament without a satellite section gets its events back untouched.
pub fn with_stop(
    state: &TournamentState,
    definition: &TournamentDefinition,
    mut events: Vec<TournamentEvent>,
    at: DateTime<Utc>,
) -> Vec<TournamentEvent> {
    // A satellite's seat value, or a double or nothing's fraction × prize-pool part (issue 37):
    // the same stop, one amount.
    // A flight's Day 1 (issue 36) stops at its share of the field: registration's own stop, as
    // a Day 1 pays no prizes and so has no ranking to agree with.
    let prize = floor_rules::satellite::equal_prize(definition);
    let share = definition.flight.map(|terms| terms.survivors_share_bps);
    if prize.is_none() && share.is_none() {
        return events;
    }
    if state.finished || state.cancelled {
        return events;
    }
    let mut change = Change::default();
    for event in &events {
        match event {
            TournamentEvent::EntryRegistered(e) => {
                change.live_added = change.live_added.saturating_add(1);
                change.pool_added = change.pool_added.saturating_add(e.ledger.prize_pool.amount);
            }
            TournamentEvent::EntryEliminated(e) => change.out.push(e.entry),
            TournamentEvent::EntryUnregistered(e) => {
                change.out.push(e.entry);
                change.unregistered += 1;
                change.pool_removed = change.pool_removed.saturating_add(e.refund.prize_pool.amount);
            }
            TournamentEvent::TournamentStarted(_) => change.started = true,
            TournamentEvent::RegistrationClosed(_) => change.closed = true,
            TournamentEvent::TournamentCancelled(_) => return events,
            _ => {}
        }
    }
    if !(change.started || change.closed || !change.out.is_empty()) {
        return events;
    }
    let started = state.start_recorded || change.started;
    let closed = state.registration_closed.is_some() || change.closed || !crate::domain::has_late_registration(definition);
    if !(started && closed) {
        return events;
    }
    // Counted first, listed only at the stop: a large satellite's eliminations copy no field.
    let stored_live = state.entries.iter().filter(|e| e.status == EntryStatus::Live).count();
    let live = u32::try_from(stored_live).unwrap_or(u32::MAX).saturating_add(change.live_added);
    let live = live.saturating_sub(u32::try_from(change.out.len()).unwrap_or(u32::MAX));
    let stops = match (prize, share) {
        (Some(prize), _) => floor_rules::satellite::stops(live, pool(state, definition, &change), prize.amount),
        (None, Some(share)) => floor_rules::flight::stops(live, field(state, &change), share, true),
        (None, None) => false,
    };
    if !stops {
        return events;
    }
    let survivors = survivors(state, &events);
    let Some(first) = survivors.first() else { return events };
    events.retain(|e| !matches!(e, TournamentEvent::TournamentFinished(_)));
    let finished = TournamentFinished { winner: first.entry, player: first.player.clone(), at, shared_by: survivors };
    events.push(TournamentEvent::TournamentFinished(finished));
    events
}

/// Whether the stop is payouts' to decide (issues 36/37): a tournament with an equal prize whose
/// pool buys two of them or more. Payouts ranks a hand's busts by the profile's rule (chips at
/// the start of the hand; one hand-for-hand hand at every table together), which the order
/// eliminations reach registration need not follow; it sends `stop_shared` with the survivors.
/// An elimination then records the entry out and nothing more (no one-winner finish: the stop
/// comes with at least two left). With one equal prize the stop is the last one left, and
/// registration finishes it as before ([`with_stop`]).
///
/// Only once the field is closed and play has begun, as the stop itself: before, the seats may
/// still grow and payouts does not stop, so the last opponent's elimination finishes it with one
/// winner as in any tournament.
pub fn stopped_by_payouts(state: &TournamentState, definition: &TournamentDefinition) -> bool {
    let Some(prize) = floor_rules::satellite::equal_prize(definition) else { return false };
    let closed = state.registration_closed.is_some() || !crate::domain::has_late_registration(definition);
    state.start_recorded && closed && floor_rules::satellite::seats(pool(state, definition, &Change::default()), prize.amount) >= 2
}

/// Payouts' stop (`stop_shared`): `tournament_finished` with the first survivor as winner and
/// `shared_by` every survivor in the order given. Refused after a finish (`Finished`), for a
/// tournament without an equal prize (`NoEqualPrize`), without survivors or with one twice
/// (`BadSurvivors`), and for an entry the tournament does not have or that was unregistered
/// (`UnknownEntry`). An eliminated survivor is allowed: payouts ranked it above the cut in the
/// stop's hand, whose busts reach registration in any order.
pub fn stop_shared(
    state: &TournamentState,
    definition: &TournamentDefinition,
    survivors: &[EntryNo],
    deal: bool,
    at: DateTime<Utc>,
) -> Result<Vec<TournamentEvent>, RegistrationError> {
    // A deal may end any tournament (000 §16.8 "Ein Turnier kann auch durch einen Turnierdeal
    // enden"; 004 §4.35 "pokud se na tom dohodnou všichni Sázející"); otherwise only an equal
    // prize's stop shares the finish.
    if !deal && floor_rules::satellite::equal_prize(definition).is_none() {
        return Err(RegistrationError::NoEqualPrize);
    }
    if state.finished {
        return Err(RegistrationError::Finished);
    }
    let mut seen = std::collections::HashSet::new();
    let mut shared_by = Vec::with_capacity(survivors.len());
    for &no in survivors {
        if !seen.insert(no) {
            return Err(RegistrationError::BadSurvivors("an entry named twice"));
        }
        let entry = (no.0 as usize).checked_sub(1).and_then(|i| state.entries.get(i));
        match entry {
            Some(e) if e.status != EntryStatus::Unregistered => shared_by.push(Survivor { entry: no, player: e.player.clone() }),
            _ => return Err(RegistrationError::UnknownEntry(no)),
        }
    }
    let Some(first) = shared_by.first() else { return Err(RegistrationError::BadSurvivors("none named")) };
    let finished = TournamentFinished { winner: first.entry, player: first.player.clone(), at, shared_by: shared_by.clone() };
    Ok(vec![TournamentEvent::TournamentFinished(finished)])
}

/// A Day 1's field (issue 36): every entry it took, re-entries included, less those withdrawn.
fn field(state: &TournamentState, change: &Change) -> u32 {
    let stored = state.entries.iter().filter(|e| e.status != EntryStatus::Unregistered).count();
    let unregistered = u32::try_from(change.unregistered).unwrap_or(u32::MAX);
    u32::try_from(stored).unwrap_or(u32::MAX).saturating_add(change.live_added).saturating_sub(unregistered)
}

/// What a decision's events change of the field.
#[derive(Default)]
struct Change {
    live_added: u32,
    pool_added: u64,
    pool_removed: u64,
    out: Vec<EntryNo>,
    unregistered: usize,
    started: bool,
    closed: bool,
}

/// Every entry live after `events`, in ascending entry number.
fn survivors(state: &TournamentState, events: &[TournamentEvent]) -> Vec<Survivor> {
    let out = |no: EntryNo| {
        events.iter().any(|e| match e {
            TournamentEvent::EntryEliminated(e) => e.entry == no,
            TournamentEvent::EntryUnregistered(e) => e.entry == no,
            _ => false,
        })
    };
    let stored = state
        .entries
        .iter()
        .zip(1u32..)
        .filter(|(e, _)| e.status == EntryStatus::Live)
        .map(|(e, no)| Survivor { entry: EntryNo(no), player: e.player.clone() });
    let new = events.iter().filter_map(|e| match e {
        TournamentEvent::EntryRegistered(e) => Some(Survivor { entry: e.entry, player: e.player.clone() }),
        _ => None,
    });
    let mut survivors: Vec<Survivor> = stored.chain(new).filter(|s| !out(s.entry)).collect();
    survivors.sort_by_key(|s| s.entry);
    survivors
}

/// The satellite's prize pool after the change: what every counted (not unregistered) entry put
/// in the pool, or the guarantee if more. Saturating: a pool is bounded far below `u64::MAX`.
fn pool(state: &TournamentState, definition: &TournamentDefinition, change: &Change) -> u64 {
    let stored = state
        .entries
        .iter()
        .filter(|e| e.status != EntryStatus::Unregistered)
        .fold(0u64, |sum, e| sum.saturating_add(e.ledger.prize_pool.amount));
    let pool = stored.saturating_add(change.pool_added).saturating_sub(change.pool_removed);
    pool.max(definition.guarantee.map_or(0, |g| g.amount))
}

#[cfg(test)]
mod steps {
    //! Step satellites (000 §16.13; 002 §2.3 T-8.1–T-8.3), given/when/then on the tournament
    //! decider: a tree of three levels, each step's prize the entry of the next one up.

    use super::*;
    use crate::domain::{TournamentAggregate, TournamentCommand as C};
    use floor_events::codes;
    use floor_events::registration::TournamentEvent;
    use floor_events::tournament::Fee;
    use floor_events::Currency;
    use floor_runtime::spec::given;

    fn eur(cents: u64) -> Money {
        Money::new(cents, Currency::EUR)
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().expect("an instant")
    }

    fn id(n: u128) -> TournamentId {
        TournamentId(uuid::Uuid::from_u128(n))
    }

    /// A tournament of `buy_in` + `fee` starting on `day` of December 2026, a step of `target`
    /// (whose entry costs `seat`) when there is one.
    fn level(name: &str, buy_in: u64, fee: u64, day: u32, target: Option<(TournamentId, u64)>) -> TournamentDefinition {
        TournamentDefinition {
            name: name.into(),
            start: Start::At(at(&format!("2026-12-{day:02}T18:00:00Z"))),
            buy_in: eur(buy_in),
            fee: Fee::OnTop(eur(fee)),
            satellite: target.map(|(t, seat)| SatelliteTerms::new(t, eur(seat))),
            ..TournamentDefinition::example()
        }
    }

    /// The top: EUR 100 + 9; step 2: EUR 10 + 0.90 (seats of 109); step 1: EUR 1 + 0.09 (seats
    /// of 10.90).
    fn top() -> TournamentDefinition {
        level("Top", 10_000, 900, 20, None)
    }
    fn step2() -> TournamentDefinition {
        level("Step 2", 1_000, 90, 13, Some((id(1), 10_900)))
    }
    fn step1() -> TournamentDefinition {
        level("Step 1", 100, 9, 6, Some((id(2), 1_090)))
    }

    const NOW: &str = "2026-12-01T12:00:00Z";

    fn create(tournament: TournamentId, definition: TournamentDefinition, target: Option<TargetFacts>) -> C {
        C::CreateSatellite { tournament_id: tournament, definition: Box::new(definition), target, at: at(NOW) }
    }

    /// The log of a tournament created with `definition`.
    fn created(tournament: TournamentId, definition: TournamentDefinition) -> Vec<TournamentEvent> {
        vec![TournamentEvent::TournamentCreated(floor_events::registration::TournamentCreated {
            tournament_id: tournament,
            definition,
            at: at(NOW),
        })]
    }

    /// What the service reads of a tournament created with `definition`.
    fn facts(tournament: TournamentId, definition: TournamentDefinition) -> TargetFacts {
        TargetFacts::of(given::<TournamentAggregate>(created(tournament, definition)).state()).expect("created")
    }

    /// 000 §16.13 ("Der Preis eines Turniers auf einer bestimmten Stufe kann der Start- und
    /// Anmeldegebühr zum Turnier auf der nächsthöheren Stufe entsprechen") and 002 §2.3 T-8.3
    /// ("Vinst i turnering på viss nivå kan vara start- och anmälningsavgift till turnering på
    /// närmast högre nivå"): given a top of EUR 109, when step 2 (EUR 10.90, seats of 109) and
    /// step 1 (EUR 1.09, seats of 10.90, the entry of step 2) are created, then each is stored,
    /// and each level costs more than the one below (T-8.2).
    #[test]
    fn section_16_13_a_three_level_tree_each_prize_the_entry_of_the_next_level_is_created() {
        let top_facts = facts(id(1), top());
        let events = given::<TournamentAggregate>(vec![]).when(create(id(2), step2(), Some(top_facts))).accepted();
        assert!(
            matches!(&events[..], [TournamentEvent::TournamentCreated(c)] if c.definition.satellite.is_some_and(|t| t.target == id(1)))
        );
        let step2_facts = facts(id(2), step2());
        assert_eq!(step2_facts.paid_in, eur(1_090));
        given::<TournamentAggregate>(vec![]).when(create(id(3), step1(), Some(step2_facts))).accepted();
        assert!(step1().entry_ledger().paid_in.amount < step2().entry_ledger().paid_in.amount);
        assert!(step2().entry_ledger().paid_in.amount < top().entry_ledger().paid_in.amount);
    }

    /// 000 §16.13 ("Start- und Anmeldegebühren steigen mit zunehmender Stufe in der Hierarchie
    /// an") and 002 §2.3 T-8.2 ("Start- och anmälningsavgifterna ökar med nivå i hierarkin"):
    /// a step whose buy-in plus fee does not rise above the step below it is refused with
    /// `satellite_costs_too_much` and nothing is stored: one costing its own seat (the step
    /// above's entry), one costing more, and one naming a cheaper step above than its seat says.
    #[test]
    fn section_16_13_a_step_whose_buy_in_and_fee_do_not_rise_is_refused() {
        let step2_facts = facts(id(2), step2());
        // As much as the step above: EUR 10 + 0.90 for seats of EUR 10.90.
        let flat = level("Flat", 1_000, 90, 6, Some((id(2), 1_090)));
        given::<TournamentAggregate>(vec![]).when(create(id(3), flat, Some(step2_facts))).then_reject(codes::SATELLITE_COSTS_TOO_MUCH);
        // More than the step above.
        let falling = level("Falling", 2_000, 100, 6, Some((id(2), 1_090)));
        given::<TournamentAggregate>(vec![]).when(create(id(3), falling, Some(step2_facts))).then_reject(codes::SATELLITE_COSTS_TOO_MUCH);
        // Its seat says EUR 20 but the step above costs EUR 10.90, less than this step's EUR
        // 11: the fees fall, which is said before the seat value's mismatch.
        let below = level("Below", 1_000, 100, 6, Some((id(2), 2_000)));
        given::<TournamentAggregate>(vec![])
            .when(create(id(3), below.clone(), Some(step2_facts)))
            .then_reject(codes::SATELLITE_COSTS_TOO_MUCH);
        let error = check_target(&below.satellite.expect("a step"), below.entry_ledger().paid_in, Some(&step2_facts), at(NOW))
            .expect_err("refused");
        assert!(matches!(error, RegistrationError::StepDoesNotRise { .. }), "{error:?}");
        assert!(error.to_string().contains("T-8.2"), "{error}");
    }

    /// 002 §2.3 T-8.1 ("med endast en turnering på högsta nivån": with only one tournament at
    /// the top level) and 000 §16.13's "schmaler werdende Baumstruktur" (a narrowing tree): a
    /// step names one tournament that exists already, and a tournament is created once, so no
    /// step can name itself or a step below it (a cycle would need one of them to exist before
    /// itself): naming itself is `unknown_target` (nothing to read) and, its log holding its
    /// creation, `tournament_exists`; nothing is stored either way. Every chain of links ends
    /// at the one top (`floor_events::satellites::level`).
    #[test]
    fn t_8_1_a_step_cannot_name_itself_or_a_step_below_so_the_tree_has_one_top() {
        let own = level("Loop", 100, 9, 6, Some((id(3), 1_090)));
        given::<TournamentAggregate>(vec![]).when(create(id(3), own.clone(), None)).then_reject(codes::UNKNOWN_TARGET);
        given::<TournamentAggregate>(vec![]).when(create(id(3), step1(), Some(facts(id(2), step2())))).accepted();
        let stored = created(id(3), step1());
        let itself = TargetFacts::of(given::<TournamentAggregate>(stored.clone()).state());
        given::<TournamentAggregate>(stored).when(create(id(3), own, itself)).then_reject(codes::TOURNAMENT_EXISTS);
        // The levels of the tree: the top 0, step 2 one link below it, step 1 two.
        let links = |t: TournamentId| match t {
            t if t == id(3) => step1().satellite.map(|s| s.target),
            t if t == id(2) => step2().satellite.map(|s| s.target),
            _ => None,
        };
        assert_eq!(floor_events::satellites::level(id(1), links), (0, id(1)));
        assert_eq!(floor_events::satellites::level(id(2), links), (1, id(1)));
        assert_eq!(floor_events::satellites::level(id(3), links), (2, id(1)));
    }
}
