//! The satellite decider and policy, case by case and by property.

use crate::domain::{seat_registration_id, Finisher, SatelliteAggregate, SatelliteCommand as C, SatelliteState};
use crate::policy::{issue_id, refund_id, Memory, Policy};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::payouts::{PayoutEvent, PlaceAward};
use floor_events::registration::{CancellationReason, EntryRegistered, EntryUnregistered, Refund, TournamentCancelled, TournamentEvent};
use floor_events::satellites::{
    ConversionCause, IfRegistered, SatelliteEvent as E, SatellitePrize, SatelliteTerms, SeatPassedDown, SeatRefused, SpendingFailed,
    TicketConverted, TicketExpired, TicketIssued, TicketRef, TicketRefunded, TicketSpending, TicketSpent, TicketState,
};
use floor_events::tournament::{EntryLedger, TournamentDefinition};
use floor_events::{codes, CommandId, Currency, EntryNo, Money, PlayerId, TournamentId};
use floor_runtime::spec::given;
use proptest::prelude::*;
use uuid::Uuid;

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

fn satellite() -> TournamentId {
    TournamentId(Uuid::from_u128(0x5a7e_0000_0000_7000_8000_0000_0000_0001))
}

fn target() -> TournamentId {
    TournamentId(Uuid::from_u128(0x7a76_0000_0000_7000_8000_0000_0000_0002))
}

fn ticket(entry: u32) -> TicketRef {
    TicketRef { satellite: satellite(), entry: EntryNo(entry) }
}

/// EUR 109 seats (the target's EUR 100 + 9), won as seats.
fn terms() -> SatelliteTerms {
    SatelliteTerms {
        target: target(),
        seat_value: eur(10_900),
        prize: SatellitePrize::Seat,
        leftover: Default::default(),
        if_registered: IfRegistered::KeepTicket,
        ..SatelliteTerms::new(target(), eur(10_900))
    }
}

fn issue(entry: u32, name: &str) -> C {
    C::Issue {
        ticket: ticket(entry),
        player: player(name),
        value: eur(10_900),
        target: target(),
        place: entry,
        prize: SatellitePrize::Seat,
        expires: None,
        at: t0(),
    }
}

fn issued(entry: u32, name: &str) -> E {
    E::TicketIssued(TicketIssued {
        ticket: ticket(entry),
        player: player(name),
        value: eur(10_900),
        target: target(),
        place: entry,
        prize: SatellitePrize::Seat,
        at: t0(),
        expires: None,
    })
}

fn spend(entry: u32, name: &str) -> C {
    C::Spend {
        ticket: ticket(entry),
        player: player(name),
        tournament: target(),
        command_id: seat_registration_id(ticket(entry)),
        any_of_same_value: false,
        at: secs(1),
    }
}

fn spending(entry: u32) -> E {
    E::TicketSpending(TicketSpending {
        ticket: ticket(entry),
        tournament: target(),
        command_id: seat_registration_id(ticket(entry)),
        at: secs(1),
    })
}

fn spent(entry: u32, on: u32) -> E {
    E::TicketSpent(TicketSpent { ticket: ticket(entry), tournament: target(), entry: EntryNo(on), at: secs(2) })
}

#[test]
fn a_seat_won_is_a_ticket_issued_once() {
    given::<SatelliteAggregate>(vec![]).when(issue(1, "ana")).then(vec![issued(1, "ana")]);
    given::<SatelliteAggregate>(vec![issued(1, "ana")]).when(issue(1, "ana")).then(vec![]);
}

#[test]
fn a_ticket_is_spent_by_its_holder_once() {
    given::<SatelliteAggregate>(vec![issued(1, "ana")]).when(spend(1, "ana")).then(vec![spending(1)]);
    given::<SatelliteAggregate>(vec![issued(1, "ana"), spending(1)]).when(spend(1, "ana")).then_reject(codes::TICKET_SPENT);
    given::<SatelliteAggregate>(vec![issued(1, "ana"), spending(1), spent(1, 7)]).when(spend(1, "ana")).then_reject(codes::TICKET_SPENT);
    given::<SatelliteAggregate>(vec![issued(1, "ana")]).when(spend(1, "ben")).then_reject(codes::TICKET_NOT_YOURS);
    given::<SatelliteAggregate>(vec![issued(1, "ana")]).when(spend(2, "ana")).then_reject(codes::UNKNOWN_TICKET);
}

#[test]
fn registration_s_answer_ends_the_spend_and_a_late_one_stores_nothing() {
    let history = vec![issued(1, "ana"), spending(1)];
    given::<SatelliteAggregate>(history.clone())
        .when(C::Spent { ticket: ticket(1), tournament: target(), entry: EntryNo(7), at: secs(2) })
        .then(vec![spent(1, 7)]);
    // The same answer again (a restart finishing it): nothing more.
    let mut done = history.clone();
    done.push(spent(1, 7));
    given::<SatelliteAggregate>(done)
        .when(C::Spent { ticket: ticket(1), tournament: target(), entry: EntryNo(7), at: secs(3) })
        .then(vec![]);
    // Spent in another tournament than the one it is being spent on: not this spend's answer.
    given::<SatelliteAggregate>(history.clone())
        .when(C::Spent { ticket: ticket(1), tournament: satellite(), entry: EntryNo(7), at: secs(2) })
        .then(vec![]);
    let failed = C::SpendFailed { ticket: ticket(1), code: codes::TICKET_VALUE_MISMATCH.into(), reason: "costs more".into(), at: secs(2) };
    given::<SatelliteAggregate>(history).when(failed.clone()).then(vec![E::SpendingFailed(SpendingFailed {
        ticket: ticket(1),
        code: codes::TICKET_VALUE_MISMATCH.into(),
        reason: "costs more".into(),
        at: secs(2),
    })]);
    given::<SatelliteAggregate>(vec![issued(1, "ana")]).when(failed).then(vec![]);
}

#[test]
fn a_seat_the_target_refuses_stays_a_ticket_its_winner_can_spend() {
    let refused = E::SeatRefused(SeatRefused { ticket: ticket(1), code: "tournament_full".into(), reason: "full".into(), at: secs(2) });
    given::<SatelliteAggregate>(vec![issued(1, "ana"), spending(1)])
        .when(C::SeatRefused { ticket: ticket(1), code: "tournament_full".into(), reason: "full".into(), pass_down: vec![], at: secs(2) })
        .then(vec![refused.clone()]);
    let after = given::<SatelliteAggregate>(vec![issued(1, "ana"), spending(1), refused.clone()]);
    let held = after.state().view(ticket(1)).unwrap();
    assert_eq!(held.state, TicketState::Issued);
    assert_eq!(held.player, player("ana"), "the ticket stays with the winner");
    assert_eq!(held.seat_refused.as_deref(), Some("tournament_full: full"));
    after.when(spend(1, "ana")).then(vec![spending(1)]);
}

fn finisher(entry: u32, name: &str, place: u32) -> Finisher {
    Finisher { entry: EntryNo(entry), player: player(name), place }
}

fn refused(entry: u32, code: &str, pass_down: Vec<Finisher>) -> C {
    C::SeatRefused { ticket: ticket(entry), code: code.into(), reason: "no".into(), pass_down, at: secs(2) }
}

/// The seat passed from `from` to `to` (`name`, `place`): the new ticket, then the void.
fn passed(from: u32, to: u32, name: &str, place: u32) -> Vec<E> {
    vec![
        E::TicketIssued(TicketIssued {
            ticket: ticket(to),
            player: player(name),
            value: eur(10_900),
            target: target(),
            place,
            prize: SatellitePrize::Seat,
            at: secs(2),
            expires: None,
        }),
        E::SeatPassedDown(SeatPassedDown {
            ticket: ticket(from),
            to: ticket(to),
            player: player(name),
            place,
            code: codes::ALREADY_REGISTERED.into(),
            reason: "no".into(),
            at: secs(2),
        }),
    ]
}

/// Issue 36, the winner already registered in the target, `pass_down`: ana (1st) and ben (2nd)
/// won the two seats; ana is already in the target. Her seat goes to the next finisher below
/// the last seat who holds no ticket: cleo (3rd, who was paid the leftover), ben's other entry
/// (5th) never, as ben holds a seat. Her ticket is void, cleo's is issued in the same commit;
/// ana's ticket cannot be spent. Cleo already registered too: the seat goes on to dan (4th).
/// Nobody left to take it: the winner keeps the ticket, as with `keep_ticket` (no finishers).
#[test]
fn a_seat_refused_to_a_winner_already_registered_passes_down_to_the_next_finisher_holding_none() {
    let won = vec![issued(1, "ana"), issued(2, "ben"), spending(1)];
    let below = || vec![finisher(5, "ben", 3), finisher(3, "cleo", 3), finisher(4, "dan", 4)];
    given::<SatelliteAggregate>(won.clone()).when(refused(1, codes::ALREADY_REGISTERED, below())).then(passed(1, 3, "cleo", 3));

    let mut after = won.clone();
    after.extend(passed(1, 3, "cleo", 3));
    let state = given::<SatelliteAggregate>(after.clone()).state().clone();
    let (ana, cleo) = (state.view(ticket(1)).unwrap(), state.view(ticket(3)).unwrap());
    assert_eq!((ana.state, ana.passed_to), (TicketState::PassedDown, Some(ticket(3))), "ana's ticket is void");
    assert_eq!(ana.seat_refused.as_deref(), Some("already_registered: no"));
    assert_eq!((cleo.state, cleo.passed_from, cleo.player.clone()), (TicketState::Issued, Some(ticket(1)), player("cleo")));
    assert_eq!(state.tickets.values().filter(|t| t.state != TicketState::PassedDown).count(), 2, "still two seats");
    given::<SatelliteAggregate>(after.clone()).when(spend(1, "ana")).then_reject(codes::TICKET_PASSED_DOWN);
    // The refusal told again (a restart): the spend is over, nothing more.
    given::<SatelliteAggregate>(after.clone()).when(refused(1, codes::ALREADY_REGISTERED, below())).then(vec![]);

    // Cleo's seat is taken in turn, and she is already in: dan.
    after.push(spending(3));
    given::<SatelliteAggregate>(after.clone()).when(refused(3, codes::ALREADY_REGISTERED, below())).then(passed(3, 4, "dan", 4));
    after.extend(passed(3, 4, "dan", 4));
    after.push(spending(4));
    // Dan too, and nobody below: dan keeps the ticket.
    given::<SatelliteAggregate>(after).when(refused(4, codes::ALREADY_REGISTERED, below())).then(vec![E::SeatRefused(SeatRefused {
        ticket: ticket(4),
        code: codes::ALREADY_REGISTERED.into(),
        reason: "no".into(),
        at: secs(2),
    })]);

    // keep_ticket (no finishers given): the seat stays ana's ticket.
    given::<SatelliteAggregate>(won).when(refused(1, codes::ALREADY_REGISTERED, vec![])).then(vec![E::SeatRefused(SeatRefused {
        ticket: ticket(1),
        code: codes::ALREADY_REGISTERED.into(),
        reason: "no".into(),
        at: secs(2),
    })]);
}

fn spend_on(entry: u32, name: &str, on: TournamentId, any_of_same_value: bool) -> C {
    C::Spend {
        ticket: ticket(entry),
        player: player(name),
        tournament: on,
        command_id: CommandId::derived("x"),
        any_of_same_value,
        at: secs(1),
    }
}

/// Issue 36: a ticket pays its target always, another tournament only where its satellite's
/// terms allow it (`any_of_same_value`; that the entry there costs exactly the ticket's value
/// is registration's `ticket_value_mismatch`). Refused: `ticket_wrong_tournament`, no event.
#[test]
fn a_ticket_pays_its_target_and_another_tournament_only_where_the_terms_allow() {
    let other = TournamentId(Uuid::from_u128(0x07e5));
    let spending_on = |on: TournamentId| {
        E::TicketSpending(TicketSpending { ticket: ticket(1), tournament: on, command_id: CommandId::derived("x"), at: secs(1) })
    };
    given::<SatelliteAggregate>(vec![issued(1, "ana")]).when(spend_on(1, "ana", target(), false)).then(vec![spending_on(target())]);
    given::<SatelliteAggregate>(vec![issued(1, "ana")]).when(spend_on(1, "ana", other, false)).then_reject(codes::TICKET_WRONG_TOURNAMENT);
    given::<SatelliteAggregate>(vec![issued(1, "ana")]).when(spend_on(1, "ana", other, true)).then(vec![spending_on(other)]);
    // The holder's and the state's refusals come first.
    given::<SatelliteAggregate>(vec![issued(1, "ana")]).when(spend_on(1, "ben", other, false)).then_reject(codes::TICKET_NOT_YOURS);
    given::<SatelliteAggregate>(vec![issued(1, "ana"), spending(1), spent(1, 7)])
        .when(spend_on(1, "ana", other, false))
        .then_reject(codes::TICKET_SPENT);
}

#[test]
fn a_refunded_ticket_entry_gives_the_ticket_back_to_spend_again() {
    let refunded = E::TicketRefunded(TicketRefunded { ticket: ticket(1), tournament: target(), at: secs(5) });
    let history = vec![issued(1, "ana"), spending(1), spent(1, 7)];
    given::<SatelliteAggregate>(history.clone())
        .when(C::Refund { ticket: ticket(1), tournament: target(), cash: false, at: secs(5) })
        .then(vec![refunded.clone()]);
    // A refund of another tournament is not this ticket's.
    given::<SatelliteAggregate>(history.clone())
        .when(C::Refund { ticket: ticket(1), tournament: satellite(), cash: false, at: secs(5) })
        .then(vec![]);
    let mut back = history;
    back.push(refunded);
    given::<SatelliteAggregate>(back.clone())
        .when(C::Refund { ticket: ticket(1), tournament: target(), cash: false, at: secs(6) })
        .then(vec![]);
    given::<SatelliteAggregate>(back).when(spend(1, "ana")).then(vec![spending(1)]);
    // Unregistered before the spend's answer was stored: the refund ends the spend.
    let refunded_early = E::TicketRefunded(TicketRefunded { ticket: ticket(1), tournament: target(), at: secs(2) });
    given::<SatelliteAggregate>(vec![issued(1, "ana"), spending(1)])
        .when(C::Refund { ticket: ticket(1), tournament: target(), cash: false, at: secs(2) })
        .then(vec![refunded_early.clone()]);
    given::<SatelliteAggregate>(vec![issued(1, "ana"), spending(1), refunded_early])
        .when(C::Spent { ticket: ticket(1), tournament: target(), entry: EntryNo(7), at: secs(3) })
        .then(vec![]);
}

// The policy.

fn created(t: TournamentId, satellite: Option<SatelliteTerms>) -> TournamentEvent {
    let mut definition = TournamentDefinition::example();
    definition.satellite = satellite;
    TournamentEvent::TournamentCreated(floor_events::registration::TournamentCreated { tournament_id: t, definition, at: t0() })
}

fn award(entry: u32, name: &str, place: u32, shared: u32, amount: u64) -> PlaceAward {
    PlaceAward { entry: EntryNo(entry), player: player(name), place, shared, amount }
}

fn awarded(awards: Vec<PlaceAward>) -> PayoutEvent {
    PayoutEvent::PlacesAwarded { players_left_before: 5, awards, hand_for_hand: None }
}

#[test]
fn each_award_of_the_seat_value_is_a_ticket_and_cash_is_none() {
    let mut policy = Policy::default();
    assert!(policy.on_tournament(satellite(), &[created(satellite(), Some(terms()))]).is_empty());
    // The three survivors at the stop win a seat each; the place after them the leftover; a
    // tie sharing the last seat and the leftover is paid cash (no whole seat).
    let orders = policy.on_payouts(
        satellite(),
        secs(9),
        &[awarded(vec![
            award(3, "cleo", 1, 1, 10_900),
            award(1, "ana", 2, 1, 10_900),
            award(2, "ben", 3, 1, 10_900),
            award(4, "dan", 4, 1, 800),
        ])],
    );
    let issued: Vec<(CommandId, TicketRef, u32)> = orders
        .iter()
        .map(|(on, id, c)| {
            assert_eq!(*on, satellite());
            match c {
                C::Issue { ticket, place, prize, value, target: t, .. } => {
                    assert_eq!((*prize, *value, *t), (SatellitePrize::Seat, eur(10_900), target()));
                    (*id, *ticket, *place)
                }
                other => panic!("{other:?}"),
            }
        })
        .collect();
    assert_eq!(
        issued,
        vec![
            (issue_id(satellite(), EntryNo(3)), ticket(3), 1),
            (issue_id(satellite(), EntryNo(1)), ticket(1), 2),
            (issue_id(satellite(), EntryNo(2)), ticket(2), 3)
        ]
    );
    let tie = [awarded(vec![award(5, "eva", 3, 2, 5_850), award(6, "finn", 3, 2, 5_850)])];
    assert!(policy.on_payouts(satellite(), secs(10), &tie).is_empty(), "a split seat is cash");
    assert!(policy.on_payouts(target(), secs(11), &[awarded(vec![award(1, "ana", 1, 1, 10_900)])]).is_empty(), "no satellite");
}

#[test]
fn a_refunded_entry_paid_by_a_ticket_gives_the_ticket_back() {
    let mut policy = Policy::default();
    let registered = |entry: u32, name: &str, ticket: Option<TicketRef>| {
        TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(entry),
            player: player(name),
            kind: floor_events::registration::EntryKind::Registration,
            new_player: true,
            ledger: EntryLedger { paid_in: eur(10_900), fee: eur(900), prize_pool: eur(10_000) },
            at: t0(),
            ticket,
        })
    };
    let unregistered = |entry: u32, name: &str| {
        TournamentEvent::EntryUnregistered(EntryUnregistered {
            entry: EntryNo(entry),
            player: player(name),
            refund: EntryLedger { paid_in: eur(10_900), fee: eur(900), prize_pool: eur(10_000) },
            by_operator: false,
            player_left: true,
            at: secs(30),
        })
    };
    assert!(policy
        .on_tournament(
            target(),
            &[registered(7, "ana", Some(ticket(1))), registered(8, "zoe", None), registered(9, "ben", Some(ticket(2)))]
        )
        .is_empty());
    let orders = policy.on_tournament(target(), &[unregistered(7, "ana"), unregistered(8, "zoe")]);
    assert_eq!(
        orders,
        vec![(
            satellite(),
            refund_id(target(), EntryNo(7)),
            C::Refund { ticket: ticket(1), tournament: target(), cash: false, at: secs(30) }
        )]
    );
    let cancelled = TournamentEvent::TournamentCancelled(TournamentCancelled {
        reason: CancellationReason::Director { reason: "no room".into() },
        refunds: vec![Refund {
            entry: EntryNo(9),
            player: player("ben"),
            refund: EntryLedger { paid_in: eur(10_900), fee: eur(900), prize_pool: eur(10_000) },
        }],
        at: secs(60),
    });
    let orders = policy.on_tournament(target(), &[cancelled]);
    assert_eq!(
        orders,
        vec![(
            satellite(),
            refund_id(target(), EntryNo(9)),
            C::Refund { ticket: ticket(2), tournament: target(), cash: false, at: secs(60) }
        )]
    );
}

fn passing_down() -> SatelliteTerms {
    SatelliteTerms { if_registered: IfRegistered::PassDown, ..terms() }
}

/// A satellite that passes seats down remembers its places below the seats as payouts awards
/// them (the leftover's and those out of the money), and gives them, best place first, for a
/// seat refused as `already_registered` only: a full, closed or cancelled target leaves the
/// seat a ticket. A satellite that keeps tickets gives none. The commit that passed a seat down
/// is ordered issued again, so the new ticket's seat is taken from the checkpointed log.
#[test]
fn a_satellite_that_passes_seats_down_gives_its_finishers_below_the_seats_for_a_winner_already_registered() {
    let mut policy = Policy::default();
    let keeps = TournamentId(Uuid::from_u128(0x6ee9));
    policy.on_tournament(satellite(), &[created(satellite(), Some(passing_down()))]);
    policy.on_tournament(keeps, &[created(keeps, Some(terms()))]);
    for t in [satellite(), keeps] {
        assert!(policy.on_payouts(t, secs(1), &[awarded(vec![award(4, "dan", 4, 1, 0)])]).is_empty());
        assert!(policy.on_payouts(t, secs(2), &[awarded(vec![award(3, "cleo", 3, 1, 800)])]).is_empty());
        let seats = policy.on_payouts(t, secs(3), &[awarded(vec![award(1, "ana", 1, 1, 10_900), award(2, "ben", 2, 1, 10_900)])]);
        assert_eq!(seats.len(), 2);
    }
    assert_eq!(policy.pass_down(satellite(), codes::ALREADY_REGISTERED), vec![finisher(3, "cleo", 3), finisher(4, "dan", 4)]);
    for code in [codes::TOURNAMENT_CANCELLED, codes::FIELD_FULL, codes::REGISTRATION_CLOSED] {
        assert!(policy.pass_down(satellite(), code).is_empty(), "{code}: the seat stays a ticket");
    }
    assert!(policy.pass_down(keeps, codes::ALREADY_REGISTERED).is_empty(), "keep_ticket");

    let orders = policy.on_satellite(satellite(), &passed(1, 3, "cleo", 3));
    assert_eq!(
        orders,
        vec![(
            satellite(),
            issue_id(satellite(), EntryNo(3)),
            C::Issue {
                ticket: ticket(3),
                player: player("cleo"),
                value: eur(10_900),
                target: target(),
                place: 3,
                prize: SatellitePrize::Seat,
                expires: None,
                at: secs(2)
            }
        )]
    );
    assert!(policy.on_satellite(satellite(), &[issued(1, "ana"), spending(1), spent(1, 7)]).is_empty());
    // Issued again, the ticket passed down stores nothing more.
    let mut history = vec![issued(1, "ana"), issued(2, "ben"), spending(1)];
    history.extend(passed(1, 3, "cleo", 3));
    given::<SatelliteAggregate>(history).when(orders[0].2.clone()).then(vec![]);
}

/// Issue 36, the target cancelled: every entry of it paid by a ticket is refunded in kind (the
/// ticket back, issued, to spend again), the cash entries are not the satellites' business; a
/// seat won after the target was cancelled is refused by registration and stays its winner's
/// ticket with the target's code, even where seats pass down.
#[test]
fn the_target_cancelled_gives_every_ticket_back_and_a_seat_won_after_stays_a_ticket() {
    let mut policy = Policy::default();
    policy.on_tournament(satellite(), &[created(satellite(), Some(passing_down()))]);
    let ledger = EntryLedger { paid_in: eur(10_900), fee: eur(900), prize_pool: eur(10_000) };
    let registered = |entry: u32, name: &str, ticket: Option<TicketRef>| {
        TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(entry),
            player: player(name),
            kind: floor_events::registration::EntryKind::Registration,
            new_player: true,
            ledger,
            at: t0(),
            ticket,
        })
    };
    policy.on_tournament(
        target(),
        &[registered(7, "ana", Some(ticket(1))), registered(8, "zoe", None), registered(9, "ben", Some(ticket(2)))],
    );
    let cancelled = TournamentEvent::TournamentCancelled(TournamentCancelled {
        reason: CancellationReason::Director { reason: "no room".into() },
        refunds: [(7, "ana"), (8, "zoe"), (9, "ben")]
            .into_iter()
            .map(|(e, p)| Refund { entry: EntryNo(e), player: player(p), refund: ledger })
            .collect(),
        at: secs(60),
    });
    let orders = policy.on_tournament(target(), std::slice::from_ref(&cancelled));
    assert_eq!(
        orders,
        vec![
            (
                satellite(),
                refund_id(target(), EntryNo(7)),
                C::Refund { ticket: ticket(1), tournament: target(), cash: false, at: secs(60) }
            ),
            (
                satellite(),
                refund_id(target(), EntryNo(9)),
                C::Refund { ticket: ticket(2), tournament: target(), cash: false, at: secs(60) }
            ),
        ]
    );
    assert!(policy.on_tournament(target(), &[cancelled]).is_empty(), "refunded once");

    let mut history = vec![issued(1, "ana"), issued(2, "ben"), spending(1), spent(1, 7), spending(2), spent(2, 9)];
    for (i, (_, _, refund)) in orders.into_iter().enumerate() {
        let t = ticket(i as u32 + 1);
        given::<SatelliteAggregate>(history.clone()).when(refund).then(vec![E::TicketRefunded(TicketRefunded {
            ticket: t,
            tournament: target(),
            at: secs(60),
        })]);
        history.push(E::TicketRefunded(TicketRefunded { ticket: t, tournament: target(), at: secs(60) }));
    }
    let state = given::<SatelliteAggregate>(history).state().clone();
    assert!(state.tickets.values().all(|t| t.state == TicketState::Issued && t.spent_on.is_none()), "every ticket back: {state:?}");

    // A seat won after: the cancelled target refuses it; no finisher is offered; a ticket.
    let pass_down = policy.pass_down(satellite(), codes::TOURNAMENT_CANCELLED);
    assert!(pass_down.is_empty());
    let after = vec![issued(3, "cleo"), spending(3)];
    let refusal =
        E::SeatRefused(SeatRefused { ticket: ticket(3), code: codes::TOURNAMENT_CANCELLED.into(), reason: "no".into(), at: secs(2) });
    given::<SatelliteAggregate>(after.clone()).when(refused(3, codes::TOURNAMENT_CANCELLED, pass_down)).then(vec![refusal.clone()]);
    let held = given::<SatelliteAggregate>([after, vec![refusal]].concat()).state().view(ticket(3)).unwrap();
    assert_eq!((held.state, held.seat_refused.as_deref()), (TicketState::Issued, Some("tournament_cancelled: no")));
}

#[test]
fn the_views_show_a_player_s_tickets_and_a_satellite_s() {
    let mut memory = Memory::default();
    memory.views.apply_tournament(satellite(), &[created(satellite(), Some(terms()))]);
    memory.views.apply_satellite(&[issued(1, "ana"), issued(2, "ben")]);
    memory.views.apply_satellite(&[spending(1)]);
    assert_eq!(memory.views.unfinished().len(), 1, "ana's spend has no answer yet");
    memory.views.apply_satellite(&[spent(1, 7)]);
    assert!(memory.views.unfinished().is_empty());
    let ana = memory.views.tickets_of(&player("ana"));
    assert_eq!(ana.len(), 1);
    assert_eq!((ana[0].state, ana[0].spent_on), (TicketState::Spent, Some((target(), EntryNo(7)))));
    let view = memory.views.satellite(satellite()).unwrap();
    assert_eq!(view.terms, terms());
    assert_eq!(view.tickets.iter().map(|t| t.ticket).collect::<Vec<_>>(), vec![ticket(1), ticket(2)]);
    assert!(memory.views.satellite(target()).is_none(), "no satellite");
    let json = serde_json::to_string(&memory).unwrap();
    assert_eq!(serde_json::from_str::<Memory>(&json).unwrap(), memory, "the snapshot reads back");
}

// Ticket life (issue 36): expiry, conversion to cash, the target cancelled as cash.

fn expiring(entry: u32, name: &str, expires: DateTime<Utc>) -> E {
    let E::TicketIssued(issued) = issued(entry, name) else { unreachable!() };
    E::TicketIssued(TicketIssued { expires: Some(expires), ..issued })
}

fn convert(entry: u32, name: &str, allowed: bool, at: DateTime<Utc>) -> C {
    C::Convert { ticket: ticket(entry), holder: Some(player(name)), cause: ConversionCause::Holder, allowed, at }
}

/// Issue 36: a ticket carries an expiry (the terms' `ticket_valid_days` after its issue). Given
/// ana's ticket expiring at 18:30, when she spends it at 18:30 it is refused (`ticket_expired`,
/// no event) though nothing recorded it expired; at 18:29:59 it is spent. The operator's
/// `expire` as of 18:29 records nothing; as of 18:30 it records the ticket expired (the
/// command's time, not the clock's), and only tickets held: ben's, being spent, is not
/// expired, and cleo's, without expiry, never is. An expired ticket cannot be spent or
/// converted, and a second `expire` records nothing.
#[test]
fn a_ticket_past_its_expiry_cannot_be_spent_and_is_recorded_expired_as_of_the_command_s_time() {
    let expires = secs(30 * 60);
    let history = vec![expiring(1, "ana", expires), expiring(2, "ben", expires), issued(3, "cleo"), spending(2)];
    let spend_at = |at: DateTime<Utc>| C::Spend {
        ticket: ticket(1),
        player: player("ana"),
        tournament: target(),
        command_id: seat_registration_id(ticket(1)),
        any_of_same_value: false,
        at,
    };
    given::<SatelliteAggregate>(history.clone()).when(spend_at(expires)).then_reject(codes::TICKET_EXPIRED);
    given::<SatelliteAggregate>(history.clone()).when(spend_at(expires - Duration::seconds(1))).accepted();
    given::<SatelliteAggregate>(history.clone()).when(C::Expire { as_of: expires - Duration::minutes(1) }).then(vec![]);
    let expired = E::TicketExpired(TicketExpired { ticket: ticket(1), value: eur(10_900), expires, at: secs(3_600) });
    given::<SatelliteAggregate>(history.clone()).when(C::Expire { as_of: secs(3_600) }).then(vec![expired.clone()]);
    let after = [history, vec![expired]].concat();
    given::<SatelliteAggregate>(after.clone()).when(spend_at(secs(10))).then_reject(codes::TICKET_EXPIRED);
    given::<SatelliteAggregate>(after.clone()).when(convert(1, "ana", true, secs(10))).then_reject(codes::TICKET_EXPIRED);
    given::<SatelliteAggregate>(after.clone()).when(C::Expire { as_of: secs(7_200) }).then(vec![]);
    let state = given::<SatelliteAggregate>(after).state().clone();
    assert_eq!(state.view(ticket(1)).map(|v| (v.state, v.expires)), Some((TicketState::Expired, Some(expires))));
    assert_eq!(state.ledger().expired, 10_900);
}

/// 004 §4.36.4: "Výhru představuje částka ve výši Buy-inu do předem stanoveného většího
/// turnaje. Sázející může Výhru použít dle jeho uvážení, není vázána pouze na vstup do dalšího
/// turnaje" (the win is an amount equal to the buy-in of a set larger tournament; the player
/// may use it as they wish, it is not bound to entering the next tournament). Under FORTUNA's
/// profile every satellite's ticket is convertible; elsewhere only where the terms say so.
/// Given ana's held ticket, when she converts it where allowed, then `ticket_converted` pays
/// her its value, once; refused: not allowed (`ticket_not_convertible`), another player's
/// (`ticket_not_yours`), a ticket that paid an entry, a ticket converted already. A converted
/// ticket cannot be spent. The ledger shows it as cash paid.
#[test]
fn section_4_36_4_a_held_ticket_is_converted_to_cash_at_its_value_where_the_satellite_allows_it() {
    assert!(terms().under(floor_events::RuleProfile::FortunaCz2024).convertible);
    assert!(!terms().under(floor_events::RuleProfile::Tda2024).convertible);
    let history = vec![issued(1, "ana"), issued(2, "ben"), spending(2), spent(2, 7)];
    given::<SatelliteAggregate>(history.clone()).when(convert(1, "ana", false, secs(5))).then_reject(codes::TICKET_NOT_CONVERTIBLE);
    given::<SatelliteAggregate>(history.clone()).when(convert(1, "ben", true, secs(5))).then_reject(codes::TICKET_NOT_YOURS);
    given::<SatelliteAggregate>(history.clone()).when(convert(2, "ben", true, secs(5))).then_reject(codes::TICKET_NOT_CONVERTIBLE);
    let converted = E::TicketConverted(TicketConverted {
        ticket: ticket(1),
        player: player("ana"),
        value: eur(10_900),
        cause: ConversionCause::Holder,
        at: secs(5),
    });
    given::<SatelliteAggregate>(history.clone()).when(convert(1, "ana", true, secs(5))).then(vec![converted.clone()]);
    let after = [history, vec![converted]].concat();
    given::<SatelliteAggregate>(after.clone()).when(convert(1, "ana", true, secs(6))).then_reject(codes::TICKET_NOT_CONVERTIBLE);
    given::<SatelliteAggregate>(after.clone()).when(spend(1, "ana")).then_reject(codes::TICKET_SPENT);
    let ledger = given::<SatelliteAggregate>(after).state().ledger();
    assert_eq!((ledger.issued, ledger.converted, ledger.spent, ledger.held), (21_800, 10_900, 10_900, 0));
    assert!(ledger.balanced());
}

/// Issue 36, the target cancelled under `if_target_cancelled = "cash"`: each entry paid by a
/// ticket is refunded and the ticket converted to cash in the same commit; every ticket held
/// for the target is converted; a seat won after the cancellation (refused with
/// `tournament_cancelled`) is converted. Each conversion's id is derived from the ticket, so a
/// restart converts once. Under the default (`ticket_back`) nothing is converted.
#[test]
fn the_target_cancelled_refunds_its_tickets_as_cash_where_the_satellite_says_so() {
    let cash = SatelliteTerms { if_target_cancelled: floor_events::satellites::IfTargetCancelled::Cash, ..terms() };
    let mut memory = Memory::default();
    let react = |memory: &mut Memory, t: TournamentId, events: Vec<TournamentEvent>| {
        memory.views.apply_tournament(t, &events);
        let mut orders = memory.policy.on_tournament(t, &events);
        orders.extend(memory.on_cancelled_for_test(t, &events));
        orders
    };
    react(&mut memory, satellite(), vec![created(satellite(), Some(cash))]);
    memory.views.apply_satellite(&[issued(1, "ana"), issued(2, "ben"), spending(1), spent(1, 7)]);
    let ledger = EntryLedger { paid_in: eur(10_900), fee: eur(900), prize_pool: eur(10_000) };
    let registered = TournamentEvent::EntryRegistered(EntryRegistered {
        entry: EntryNo(7),
        player: player("ana"),
        kind: floor_events::registration::EntryKind::Registration,
        new_player: true,
        ledger,
        at: t0(),
        ticket: Some(ticket(1)),
    });
    react(&mut memory, target(), vec![registered]);
    let cancelled = TournamentEvent::TournamentCancelled(TournamentCancelled {
        reason: CancellationReason::Director { reason: "no room".into() },
        refunds: vec![Refund { entry: EntryNo(7), player: player("ana"), refund: ledger }],
        at: secs(60),
    });
    let orders = react(&mut memory, target(), vec![cancelled]);
    let converted = |entry: u32, name: &str| {
        E::TicketConverted(TicketConverted {
            ticket: ticket(entry),
            player: player(name),
            value: eur(10_900),
            cause: ConversionCause::TargetCancelled,
            at: secs(60),
        })
    };
    assert_eq!(
        orders,
        vec![
            (satellite(), refund_id(target(), EntryNo(7)), C::Refund { ticket: ticket(1), tournament: target(), cash: true, at: secs(60) }),
            (
                satellite(),
                crate::policy::convert_id(ticket(2)),
                C::Convert { ticket: ticket(2), holder: None, cause: ConversionCause::TargetCancelled, allowed: true, at: secs(60) }
            ),
        ]
    );
    let history = vec![issued(1, "ana"), issued(2, "ben"), spending(1), spent(1, 7)];
    given::<SatelliteAggregate>(history.clone())
        .when(orders[0].2.clone())
        .then(vec![E::TicketRefunded(TicketRefunded { ticket: ticket(1), tournament: target(), at: secs(60) }), converted(1, "ana")]);
    given::<SatelliteAggregate>(history.clone()).when(orders[1].2.clone()).then(vec![converted(2, "ben")]);
    // Sent again after a restart: nothing more.
    given::<SatelliteAggregate>([history, vec![converted(2, "ben")]].concat()).when(orders[1].2.clone()).then(vec![]);
    // A seat refused by the cancelled target is converted.
    let refusal = vec![E::SeatRefused(SeatRefused {
        ticket: ticket(3),
        code: codes::TOURNAMENT_CANCELLED.into(),
        reason: "no".into(),
        at: secs(90),
    })];
    let orders = memory.refused_for_test(satellite(), &refusal);
    assert_eq!(orders.len(), 1);
    // The default gives tickets back in kind: nothing converted.
    let mut kind = Memory::default();
    react(&mut kind, satellite(), vec![created(satellite(), Some(terms()))]);
    kind.views.apply_satellite(&[issued(2, "ben")]);
    assert!(kind.refused_for_test(satellite(), &refusal).is_empty());
}

// By property.

#[derive(Debug, Clone)]
enum Step {
    Issue(u32, usize),
    Spend(u32, usize, bool, bool),
    Spent(u32, bool, u32),
    SpendFailed(u32),
    /// Refused, with finishers (entry, player) to pass the seat down to (empty: kept).
    SeatRefused(u32, Vec<(u32, usize)>),
    Refund(u32, bool),
}

fn step() -> impl Strategy<Value = Step> {
    let entry = 1u32..5;
    let who = 0usize..3;
    prop_oneof![
        2 => (entry.clone(), who.clone()).prop_map(|(e, w)| Step::Issue(e, w)),
        3 => (entry.clone(), who.clone(), any::<bool>(), any::<bool>()).prop_map(|(e, w, t, a)| Step::Spend(e, w, t, a)),
        1 => (entry.clone(), any::<bool>(), 1u32..20).prop_map(|(e, t, n)| Step::Spent(e, t, n)),
        1 => entry.clone().prop_map(Step::SpendFailed),
        3 => (entry.clone(), prop::collection::vec((1u32..9, who), 0..5)).prop_map(|(e, below)| Step::SeatRefused(e, below)),
        1 => (entry, any::<bool>()).prop_map(|(e, t)| Step::Refund(e, t)),
    ]
}

#[derive(Debug, Clone)]
enum Life {
    /// Entry, holder, minutes of validity (none: never expires).
    Issue(u32, usize, Option<u32>),
    Spend(u32, usize, bool),
    Spent(u32, bool, u32),
    SpendFailed(u32),
    /// Entry, tournament, as cash (the target cancelled, `cash`).
    Refund(u32, bool, bool),
    /// Minutes ahead of now the expiry is recorded as of.
    Expire(u32),
    /// Entry, who asks, whether the satellite allows it.
    Convert(u32, usize, bool),
    ConvertCancelled(u32),
    Restart,
}

fn life() -> impl Strategy<Value = Life> {
    let entry = 1u32..6;
    let who = 0usize..3;
    prop_oneof![
        3 => (entry.clone(), who.clone(), prop::option::of(0u32..600)).prop_map(|(e, w, d)| Life::Issue(e, w, d)),
        3 => (entry.clone(), who.clone(), any::<bool>()).prop_map(|(e, w, t)| Life::Spend(e, w, t)),
        2 => (entry.clone(), any::<bool>(), 1u32..20).prop_map(|(e, t, n)| Life::Spent(e, t, n)),
        1 => entry.clone().prop_map(Life::SpendFailed),
        2 => (entry.clone(), any::<bool>(), any::<bool>()).prop_map(|(e, t, c)| Life::Refund(e, t, c)),
        1 => (0u32..600).prop_map(Life::Expire),
        2 => (entry.clone(), who, any::<bool>()).prop_map(|(e, w, a)| Life::Convert(e, w, a)),
        1 => entry.prop_map(Life::ConvertCancelled),
        1 => Just(Life::Restart),
    ]
}

proptest! {
    /// Whatever happens, seats passed down in the mix: nothing panics, every ticket is in
    /// exactly one state consistent with what it holds (spending names where, spent names the
    /// entry, void names the ticket its seat went to, which names it back, issued none), a
    /// ticket is issued once, a seat passes only to a player holding no ticket, the tickets not
    /// void are exactly the seats issued (none doubled, none lost), and replaying the log gives
    /// the live state.
    #[test]
    fn random_commands_never_panic_and_every_ticket_is_in_one_state(steps in prop::collection::vec(step(), 1..80)) {
        let names = ["ana", "ben", "cleo"];
        let tournaments = [target(), TournamentId(Uuid::from_u128(3))];
        let mut state = SatelliteState::default();
        let mut log = Vec::new();
        let mut seats = 0usize;
        for (i, s) in steps.into_iter().enumerate() {
            let at = secs(i as i64);
            let command = match s {
                Step::Issue(e, w) => C::Issue { ticket: ticket(e), player: player(names[w]), value: eur(10_900), target: target(), place: e, prize: SatellitePrize::Ticket, expires: None, at },
                Step::Spend(e, w, t, any) => C::Spend { ticket: ticket(e), player: player(names[w]), tournament: tournaments[usize::from(t)], command_id: CommandId::derived(&format!("{i}")), any_of_same_value: any, at },
                Step::Spent(e, t, n) => C::Spent { ticket: ticket(e), tournament: tournaments[usize::from(t)], entry: EntryNo(n), at },
                Step::SpendFailed(e) => C::SpendFailed { ticket: ticket(e), code: "x".into(), reason: "y".into(), at },
                Step::SeatRefused(e, below) => C::SeatRefused {
                    ticket: ticket(e),
                    code: "x".into(),
                    reason: "y".into(),
                    pass_down: below.into_iter().map(|(f, w)| Finisher { entry: EntryNo(f), player: player(names[w]), place: f }).collect(),
                    at,
                },
                Step::Refund(e, t) => C::Refund { ticket: ticket(e), tournament: tournaments[usize::from(t)], cash: false, at },
            };
            let Ok(events) = SatelliteAggregate::handle_command(&state, command) else { continue };
            for e in &events {
                match e {
                    E::TicketIssued(issued) => {
                        prop_assert!(!state.tickets.contains_key(&issued.ticket), "issued twice");
                        let passed = events.iter().any(|p| matches!(p, E::SeatPassedDown(p) if p.to == issued.ticket));
                        if passed {
                            prop_assert!(state.tickets.values().all(|t| t.player != issued.player), "a seat passed to a holder");
                        } else {
                            seats += 1;
                        }
                    }
                    E::SeatPassedDown(p) => {
                        prop_assert_eq!(state.tickets[&p.ticket].state, TicketState::Spending, "only a seat being taken passes down");
                    }
                    _ => {}
                }
            }
            log.extend(events.iter().cloned());
            state = events.into_iter().fold(state, SatelliteAggregate::apply_event);
            for (r, t) in &state.tickets {
                match t.state {
                    TicketState::Issued => prop_assert!(t.spending.is_none() && t.spent_on.is_none() && t.passed_to.is_none()),
                    TicketState::Spending => prop_assert!(t.spending.is_some() && t.spent_on.is_none() && t.passed_to.is_none()),
                    TicketState::Spent => prop_assert!(t.spending.is_none() && t.spent_on.is_some() && t.passed_to.is_none()),
                    TicketState::PassedDown => {
                        prop_assert!(t.spending.is_none() && t.spent_on.is_none());
                        let to = t.passed_to.expect("a void ticket names where its seat went");
                        prop_assert_eq!(state.tickets[&to].passed_from, Some(*r), "passed to a ticket that names it");
                    }
                    TicketState::Expired | TicketState::Converted => prop_assert!(t.spending.is_none() && t.passed_to.is_none()),
                }
            }
            // No seat doubled or lost: every seat issued is held by exactly one ticket that is
            // not void, whatever was passed down.
            let live = state.tickets.values().filter(|t| t.state != TicketState::PassedDown).count();
            prop_assert_eq!(live, seats);
        }
        let replayed = log.into_iter().fold(SatelliteState::default(), SatelliteAggregate::apply_event);
        prop_assert_eq!(replayed, state);
    }

    /// Issue 36, ticket life: over random histories of issue (some tickets expiring), spend
    /// and its answers, refunds (in kind or, the target cancelled, as cash), expiry as of a
    /// random time, conversion by a holder (allowed or not) or by the platform, with restarts
    /// (the state rebuilt from the log, and the last command sent again, as a restarted service
    /// does): every ticket is in exactly one state and a final one (void, expired, converted)
    /// never changes; an expired ticket is never spent or converted after its expiry; and
    /// money in = money out to the cent: the seats issued (the satellite's seat prizes) are
    /// exactly the value held, being spent, spent, converted (paid in cash) and expired, each
    /// ticket in one line ([`TicketLedger`]).
    #[test]
    fn every_ticket_ends_in_one_state_and_money_in_equals_money_out_through_restarts(
        steps in prop::collection::vec(life(), 1..100),
    ) {
        let names = ["ana", "ben", "cleo"];
        let tournaments = [target(), TournamentId(Uuid::from_u128(3))];
        let mut state = SatelliteState::default();
        let mut log: Vec<E> = Vec::new();
        let mut seats = 0u64;
        let mut last: Option<C> = None;
        for (i, s) in steps.into_iter().enumerate() {
            let at = secs(i as i64 * 60);
            let command = match s {
                Life::Issue(e, w, days) => C::Issue {
                    ticket: ticket(e),
                    player: player(names[w]),
                    value: eur(10_900),
                    target: target(),
                    place: e,
                    prize: SatellitePrize::Ticket,
                    expires: days.map(|d| at + Duration::minutes(i64::from(d))),
                    at,
                },
                Life::Spend(e, w, t) => C::Spend { ticket: ticket(e), player: player(names[w]), tournament: tournaments[usize::from(t)], command_id: CommandId::derived(&format!("{i}")), any_of_same_value: true, at },
                Life::Spent(e, t, n) => C::Spent { ticket: ticket(e), tournament: tournaments[usize::from(t)], entry: EntryNo(n), at },
                Life::SpendFailed(e) => C::SpendFailed { ticket: ticket(e), code: "x".into(), reason: "y".into(), at },
                Life::Refund(e, t, cash) => C::Refund { ticket: ticket(e), tournament: tournaments[usize::from(t)], cash, at },
                Life::Expire(ahead) => C::Expire { as_of: at + Duration::minutes(i64::from(ahead)) },
                Life::Convert(e, w, allowed) => C::Convert { ticket: ticket(e), holder: Some(player(names[w])), cause: ConversionCause::Holder, allowed, at },
                Life::ConvertCancelled(e) => C::Convert { ticket: ticket(e), holder: None, cause: ConversionCause::TargetCancelled, allowed: true, at },
                Life::Restart => {
                    // The service restarts: its state is its log replayed, and it sends its
                    // last command again (a derived id's retry).
                    state = log.iter().cloned().fold(SatelliteState::default(), SatelliteAggregate::apply_event);
                    match last.clone() {
                        Some(C::Issue { .. }) | Some(C::Expire { .. }) | Some(C::Refund { .. }) => last.clone().expect("some"),
                        _ => continue,
                    }
                }
            };
            let before = state.clone();
            last = Some(command.clone());
            let Ok(events) = SatelliteAggregate::handle_command(&state, command.clone()) else { continue };
            if matches!(command, C::Issue { .. }) && !events.is_empty() {
                seats += 10_900;
            }
            state = events.iter().cloned().fold(state, SatelliteAggregate::apply_event);
            log.extend(events.iter().cloned());
            for (r, was) in &before.tickets {
                let now = &state.tickets[r];
                if matches!(was.state, TicketState::PassedDown | TicketState::Expired | TicketState::Converted) {
                    prop_assert_eq!(now.state, was.state, "a final state never changes");
                }
                if now.state != was.state && matches!(now.state, TicketState::Spending | TicketState::Converted) {
                    let moved_at = match &command { C::Spend { at, .. } | C::Convert { at, .. } | C::Refund { at, .. } => *at, _ => t0() };
                    let by_refund = matches!(command, C::Refund { .. });
                    prop_assert!(by_refund || !was.expired_at(moved_at), "an expired ticket spent or converted");
                }
            }
            for e in &events {
                if let E::TicketExpired(x) = e {
                    prop_assert!(matches!(&command, C::Expire { as_of } if *as_of >= x.expires), "expired before its time");
                }
            }
            let ledger = state.ledger();
            prop_assert!(ledger.balanced(), "{:?}", ledger);
            prop_assert_eq!(ledger.issued - ledger.void, seats, "money in = money out: {:?}", ledger);
        }
        let replayed = log.into_iter().fold(SatelliteState::default(), SatelliteAggregate::apply_event);
        prop_assert_eq!(replayed, state);
    }

    /// `apply_event` takes any event, of a ticket it knows or not, without panicking.
    #[test]
    fn apply_event_never_panics(entries in prop::collection::vec(0u32..4, 0..30)) {
        let mut state = SatelliteState::default();
        for (i, e) in entries.into_iter().enumerate() {
            let event = match i % 7 {
                0 => issued(e, "ana"),
                1 => spending(e),
                2 => spent(e, e),
                3 => E::SpendingFailed(SpendingFailed { ticket: ticket(e), code: "x".into(), reason: "y".into(), at: t0() }),
                4 => E::SeatRefused(SeatRefused { ticket: ticket(e), code: "x".into(), reason: "y".into(), at: t0() }),
                5 => E::SeatPassedDown(SeatPassedDown { ticket: ticket(e), to: ticket(e + 1), player: player("ben"), place: 3, code: "x".into(), reason: "y".into(), at: t0() }),
                _ => E::TicketRefunded(TicketRefunded { ticket: ticket(e), tournament: target(), at: t0() }),
            };
            state = SatelliteAggregate::apply_event(state, event);
        }
    }
}
