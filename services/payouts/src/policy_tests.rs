//! The payouts policy, given/when/then: when the table locks, hand-for-hand's busts held and
//! awarded as one group, deals pausing the clock, the stacks the tables reported.

use super::*;
use crate::domain_tests::bought;
use floor_events::registration::{EntryKind, EntryRegistered, StartCause, TournamentCreated, TournamentStarted};
use floor_events::tournament::{purchase_ledger, AddOnTerms, Fee, RebuyCondition, RebuyTerms, Start, TournamentDefinition};
use floor_events::Currency;

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

fn at() -> chrono::DateTime<chrono::Utc> {
    "2027-01-10T18:00:00Z".parse().unwrap()
}

/// A sit & go of three with EUR 10 rebuys and add-on; created, filled and started.
fn started(policy: &mut Policy, t: TournamentId) -> Vec<Order> {
    started_with(policy, t, None)
}

fn definition(bounty: Option<floor_events::bounties::BountyTerms>) -> TournamentDefinition {
    TournamentDefinition {
        name: "Rebuy".into(),
        start: Start::SitAndGo,
        starting_stack: 1_000,
        buy_in: eur(1_000),
        fee: Fee::OnTop(eur(100)),
        capacity: 3,
        min_players: 3,
        rebuy: Some(RebuyTerms {
            price: eur(1_000),
            fee: eur(100),
            chips: 1_000,
            max_per_entry: 1,
            condition: RebuyCondition::AtZero,
            offer_seconds: 30,
        }),
        add_on: Some(AddOnTerms { price: eur(1_000), fee: eur(0), chips: 1_000 }),
        bounty,
        ..TournamentDefinition::example()
    }
}

fn created(t: TournamentId, definition: TournamentDefinition) -> TournamentEvent {
    TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition, at: at() })
}

/// `definition` created, `entries` players registered at EUR 10 + 1, and started.
fn filled(t: TournamentId, definition: TournamentDefinition, entries: u32) -> Vec<TournamentEvent> {
    let mut events = vec![created(t, definition)];
    for e in 1..=entries {
        events.push(TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(e),
            player: PlayerId::parse(&format!("p{e}")).unwrap(),
            kind: EntryKind::Registration,
            new_player: true,
            ledger: purchase_ledger(eur(1_000), eur(100)),
            at: at(),
            ticket: None,
        }));
    }
    events.push(TournamentEvent::TournamentStarted(TournamentStarted { entries, cause: StartCause::LastSeatFilled, at: at() }));
    events
}

fn started_with(policy: &mut Policy, t: TournamentId, bounty: Option<floor_events::bounties::BountyTerms>) -> Vec<Order> {
    policy.on_tournament(t, &filled(t, definition(bounty), 3))
}

#[test]
fn with_rebuys_the_table_locks_when_buying_is_over_on_the_whole_pool() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    assert!(started(&mut policy, t).is_empty(), "not at the start: the pool still grows");
    let rebuy = bought(1, false, 1_000, 100);
    assert!(policy.on_rebuys(t, &[rebuy, RebuyEvent::RebuyPeriodEnded { at: at(), add_on_open: true }]).is_empty(), "the add-on follows");
    let add_on = bought(2, true, 1_000, 0);
    let orders = policy.on_rebuys(t, &[add_on, RebuyEvent::AddOnsClosed { at: at() }]);
    let [Order::Payouts((_, _, PayoutCommand::Lock { field, cause }))] = &orders[..] else { panic!("one lock: {orders:?}") };
    assert_eq!(*cause, LockCause::BuyingOver);
    assert_eq!((field.entries, field.contributions), (3, eur(5_000)), "three entries, a rebuy and an add-on");
}

/// Issue 21: a knockout tournament's payout table divides the prize pool without the
/// bounty parts (entries and rebuys carry one, an add-on none).
#[test]
fn a_bounty_tournaments_table_is_locked_on_the_prize_pool_without_the_bounties() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started_with(&mut policy, t, Some(floor_events::bounties::BountyTerms::Knockout { share_bps: 2_500 }));
    let rebuy = bought(1, false, 1_000, 100);
    let add_on = bought(2, true, 1_000, 0);
    let orders = policy.on_rebuys(
        t,
        &[rebuy, RebuyEvent::RebuyPeriodEnded { at: at(), add_on_open: true }, add_on, RebuyEvent::AddOnsClosed { at: at() }],
    );
    let [Order::Payouts((_, _, PayoutCommand::Lock { field, .. }))] = &orders[..] else { panic!("one lock: {orders:?}") };
    assert_eq!(field.contributions, eur(5_000 - 4 * 250), "four bounty parts of 2.50 stay out of the prize pool");
}

/// The ranking a tournament's definition sets goes with every award; without one, the
/// profile's.
#[test]
fn an_award_carries_the_definitions_own_ordering() {
    use floor_events::bubble::{AcrossTables, EliminationOrdering, EqualStacks, HandForHandSettings};
    let tie = EliminationOrdering { across_tables: AcrossTables::Tie, equal_stacks: EqualStacks::SeatOrder };
    for (own, expected) in [(None, RuleProfile::Tda2024.hand_for_hand().ordering), (Some(tie), tie)] {
        let (mut policy, t) = (Policy::default(), TournamentId::new());
        let settings = HandForHandSettings { ordering: own, ..Default::default() };
        let mut events = vec![created(t, TournamentDefinition { hand_for_hand: Some(settings), ..definition(None) })];
        events.push(TournamentEvent::TournamentStarted(TournamentStarted { entries: 3, cause: StartCause::LastSeatFilled, at: at() }));
        policy.on_tournament(t, &events);
        let orders = policy.on_seating(t, 5, &[out(3, 2, 1)]);
        let [Order::Payouts((_, _, PayoutCommand::Award { field, .. }))] = &orders[..] else { panic!("{orders:?}") };
        assert_eq!(field.ordering(), expected);
    }
}

fn out(entry: u32, players_left: u32, table: u32) -> SeatingEvent {
    SeatingEvent::EntryEliminated { entry: EntryNo(entry), players_left, stack_at_start: Some(500), table: Some(table) }
}

/// Hand-for-hand started with 4 left, a bubble of 2, tables 1 and 2 both dealing.
fn hand_for_hand_started(cause: floor_events::bubble::StartCause) -> BubbleEvent {
    BubbleEvent::HandForHandStarted { cause, players_left: 4, boundary: 2, tables: vec![1, 2], dealing: vec![1, 2], at: at() }
}

fn released(hand: u64) -> BubbleEvent {
    BubbleEvent::HandReleased { hand, tables: vec![1, 2, 3], at: at() }
}

fn completed(hand: u64) -> BubbleEvent {
    BubbleEvent::HandCompleted { hand, players_left_before: 0, placed: vec![], at: at() }
}

fn ended(players_left: u32) -> BubbleEvent {
    BubbleEvent::HandForHandEnded { cause: floor_events::bubble::EndCause::Director, players_left, at: at() }
}

fn awarded(orders: &[Order]) -> Vec<(u32, Vec<u32>, CommandId)> {
    orders
        .iter()
        .filter_map(|o| match o {
            Order::Payouts((_, id, PayoutCommand::Award { players_left_before, eliminated, .. })) => {
                Some((*players_left_before, eliminated.iter().map(|e| e.entry.0).collect(), *id))
            }
            _ => None,
        })
        .collect()
}

/// Issue 20: players out in one hand-for-hand hand at different tables are one award, made
/// when the bubble says the hand is complete, with players left counted by seating.
#[test]
fn hand_for_hand_busts_at_different_tables_are_awarded_as_one_group_when_the_hand_completes() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    // Given hand 1 released, when two tables each report a bust in it,
    assert!(policy.on_bubble(t, 10, &[completed(0), released(1)]).is_empty());
    assert!(policy.on_seating(t, 11, &[out(3, 2, 1)]).is_empty(), "held for the hand");
    assert!(policy.on_seating(t, 12, &[out(2, 1, 2)]).is_empty(), "held for the hand");
    // then the hand's completion awards both together, places 3 and 2 from three players left.
    let orders = policy.on_bubble(t, 13, &[completed(1)]);
    assert_eq!(awarded(&orders), vec![(3, vec![3, 2], CommandId::derived(&format!("payouts-award-hand:{t}:13:0")))]);
    assert!(policy.on_bubble(t, 14, &[ended(1)]).is_empty(), "nothing held any more");
}

/// Busts between a hand's completion and the next release (a forgone rebuy) are awarded as
/// seating stores them; a director's start holds from its event, since nothing in the log
/// before it says it is coming (a bust of hand 0 stored before the start is paid apart).
#[test]
fn busts_outside_a_released_hand_are_awarded_at_once_and_a_directors_start_holds_from_its_event() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    assert_eq!(awarded(&policy.on_seating(t, 9, &[out(5, 4, 1)])).len(), 1, "before the start: at once");
    assert!(policy.on_bubble(t, 10, &[hand_for_hand_started(floor_events::bubble::StartCause::Director)]).is_empty());
    assert!(policy.on_seating(t, 11, &[out(4, 3, 1)]).is_empty(), "hand 0: held");
    let orders = policy.on_bubble(t, 12, &[completed(0)]);
    assert_eq!(hands(&orders), vec![Some(0)]);
    assert_eq!(awarded(&policy.on_seating(t, 13, &[out(3, 2, 2)])).len(), 1, "between hands: at once");
}

/// Six players at two tables, hand-for-hand from two players before a bubble of two (a
/// satellite's seats): the trigger is reached at four left.
fn near_the_bubble(policy: &mut Policy, t: TournamentId, trigger: floor_events::bubble::Trigger) {
    use floor_events::bubble::{Boundary, HandForHandSettings};
    let settings =
        HandForHandSettings { trigger: Some(trigger), boundary: Some(Boundary::PlayersLeft { players: 2 }), ..Default::default() };
    let definition = TournamentDefinition { hand_for_hand: Some(settings), rebuy: None, add_on: None, ..definition(None) };
    let rules = definition.hand_for_hand_rules();
    policy.on_tournament(t, &filled(t, definition, 6));
    policy.on_bubble(t, 2, &[BubbleEvent::BubbleConfigured { tournament_id: t, rules }]);
    policy.on_seating(t, 3, &[SeatingEvent::TableOpened { table: 1, seats: 9 }, SeatingEvent::TableOpened { table: 2, seats: 9 }]);
}

fn hands(orders: &[Order]) -> Vec<Option<u64>> {
    orders
        .iter()
        .filter_map(|o| match o {
            Order::Payouts((_, _, PayoutCommand::Award { hand_for_hand, .. })) => Some(*hand_for_hand),
            _ => None,
        })
        .collect()
}

/// Issue 20, RP-8 A: the busts of the hand in which hand-for-hand is announced are one group,
/// held from the commit whose bust reaches the trigger (the bubble decides there, by the same
/// rule) and awarded when the bubble completes hand 0, however the bubble's start and the
/// tables' finishes interleave in the log.
#[test]
fn the_announcement_hands_busts_are_held_from_the_triggers_commit_and_awarded_together() {
    use floor_events::bubble::Trigger;
    for start_first in [false, true] {
        let (mut policy, t) = (Policy::default(), TournamentId::new());
        near_the_bubble(&mut policy, t, Trigger::PlayersBeforeBubble { players: 2 });
        assert_eq!(hands(&policy.on_seating(t, 10, &[out(6, 5, 1)])), vec![None], "five left: not yet");
        assert_eq!(hands(&policy.on_seating(t, 11, &[out(5, 4, 2)])), vec![None], "the trigger's own bust is before hand 0");
        let start = hand_for_hand_started(floor_events::bubble::StartCause::Trigger);
        if start_first {
            assert!(policy.on_bubble(t, 12, std::slice::from_ref(&start)).is_empty());
        }
        assert!(policy.on_seating(t, 13, &[out(4, 3, 1)]).is_empty(), "hand 0 at table 1: held");
        assert!(policy.on_seating(t, 14, &[out(3, 2, 2)]).is_empty(), "hand 0 at table 2: held");
        if !start_first {
            assert!(policy.on_bubble(t, 15, &[start]).is_empty());
        }
        let orders = policy.on_bubble(t, 16, &[completed(0)]);
        assert_eq!(awarded(&orders), vec![(4, vec![4, 3], CommandId::derived(&format!("payouts-award-hand:{t}:16:0")))]);
        assert_eq!(hands(&orders), vec![Some(0)], "the award says which hand-for-hand hand");
    }
}

/// The trigger starts nothing at one table, or when only a director starts hand-for-hand: no
/// bust waits for a hand 0 that never comes.
#[test]
fn no_announcement_hand_is_held_at_one_table_or_under_a_directors_trigger() {
    use floor_events::bubble::Trigger;
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    near_the_bubble(&mut policy, t, Trigger::PlayersBeforeBubble { players: 2 });
    policy.on_seating(t, 10, &[out(6, 5, 1)]);
    assert_eq!(hands(&policy.on_seating(t, 11, &[out(5, 4, 2), SeatingEvent::TableClosed { table: 2 }])), vec![None]);
    assert_eq!(hands(&policy.on_seating(t, 12, &[out(4, 3, 1)])), vec![None], "one table: awarded at once");

    let (mut policy, t) = (Policy::default(), TournamentId::new());
    near_the_bubble(&mut policy, t, Trigger::Director);
    policy.on_seating(t, 10, &[out(6, 5, 1)]);
    policy.on_seating(t, 11, &[out(5, 4, 2)]);
    assert_eq!(hands(&policy.on_seating(t, 12, &[out(4, 3, 1)])), vec![None], "a director's trigger: awarded at once");
}

/// A late table's busts (a table the director stopped waiting for) are a group of their own,
/// below every other bust held for the hand; the others are awarded at its completion.
#[test]
fn a_late_tables_busts_are_their_own_group_below_the_hands_other_busts() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    policy.on_bubble(t, 10, &[released(2)]);
    assert!(policy.on_seating(t, 11, &[out(7, 6, 1)]).is_empty());
    assert!(policy.on_seating(t, 12, &[out(6, 5, 3)]).is_empty(), "the late table's bust, held until the bubble says");
    assert!(policy.on_seating(t, 13, &[out(5, 4, 2)]).is_empty());
    let late = BubbleEvent::LateBustsPlaced {
        hand: 1,
        players_left_before: 7,
        placed: vec![floor_events::bubble::Placed {
            bust: floor_events::bubble::HandBust { entry: EntryNo(6), table: 3, stack_at_start: 500, seat_order: 0 },
            place: 7,
            shared: 1,
        }],
    };
    assert_eq!(
        awarded(&policy.on_bubble(t, 14, &[late])),
        vec![(7, vec![6], CommandId::derived(&format!("payouts-award-hand:{t}:14:0")))],
        "place 7: below the hand's two others"
    );
    assert_eq!(
        awarded(&policy.on_bubble(t, 15, &[completed(2)])),
        vec![(6, vec![7, 5], CommandId::derived(&format!("payouts-award-hand:{t}:15:0")))],
        "places 6 and 5"
    );
}

/// Whatever ends hand for hand, nothing stays held: its end awards what is held, a winner
/// awards it before its own award, and after the end each seating commit is awarded at once.
#[test]
fn held_eliminations_are_awarded_at_the_end_of_hand_for_hand_and_before_a_winner() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    policy.on_bubble(t, 10, &[released(1)]);
    assert!(policy.on_seating(t, 11, &[out(3, 2, 1)]).is_empty());
    assert_eq!(
        awarded(&policy.on_bubble(t, 12, &[ended(2)])),
        vec![(3, vec![3], CommandId::derived(&format!("payouts-award-hand:{t}:12:0")))]
    );
    let after = policy.on_seating(t, 13, &[out(2, 1, 1), SeatingEvent::TournamentWon { entry: EntryNo(1) }]);
    assert_eq!(awarded(&after), vec![(2, vec![2], CommandId::derived(&format!("payouts-award:{t}:13")))]);

    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    policy.on_bubble(t, 10, &[released(1)]);
    assert!(policy.on_seating(t, 11, &[out(3, 2, 1)]).is_empty());
    let won = policy.on_seating(t, 12, &[out(2, 1, 2), SeatingEvent::TournamentWon { entry: EntryNo(1) }]);
    assert_eq!(
        awarded(&won),
        vec![
            (3, vec![3], CommandId::derived(&format!("payouts-award-held:{t}:12"))),
            (2, vec![2], CommandId::derived(&format!("payouts-award:{t}:12")))
        ],
        "the held bust first, then the winner's hand"
    );
}

fn share(entry: u32) -> floor_events::payouts::DealShare {
    floor_events::payouts::DealShare { entry: EntryNo(entry), player: PlayerId::parse(&format!("p{entry}")).unwrap(), chips: 1, amount: 1 }
}

/// Issue 22: the clock pauses while a deal is discussed and runs again once it is settled,
/// with ids derived from the payouts commit; a clock a director paused is left to them.
#[test]
fn a_deal_under_discussion_pauses_the_clock_and_its_end_resumes_it() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    let proposed = PayoutEvent::DealProposed {
        proposer: PlayerId::parse("p1").unwrap(),
        method: floor_events::payouts::DealMethodKind::Equal,
        shares: vec![share(1), share(2)],
        left_to_play_for: 0,
        pool: 2,
        ends_tournament: false,
    };
    let orders = policy.on_payouts(t, 40, std::slice::from_ref(&proposed));
    let [Order::ClockPause(pause)] = &orders[..] else { panic!("{orders:?}") };
    assert_eq!((pause.tournament_id, pause.reason.as_str()), (t, DEAL_PAUSE_REASON));
    assert_eq!(pause.command_id, CommandId::derived(&format!("payouts-deal-clock-pause:{t}:40:0")));
    assert_eq!(policy.on_payouts(t, 40, std::slice::from_ref(&proposed)), orders, "a replay orders the same command");

    let rejected = policy.on_payouts(t, 41, &[PayoutEvent::DealRejected { player: PlayerId::parse("p2").unwrap() }]);
    assert!(matches!(&rejected[..], [Order::ClockResume(r)] if r.tournament_id == t));

    // A director's pause before the proposal: the deal neither pauses nor resumes.
    let paused = ClockEvent::Paused { at: at(), remaining_ms: 1_000, reason: "dinner".into() };
    policy.on_clock(t, &[paused]);
    assert!(policy.on_payouts(t, 42, std::slice::from_ref(&proposed)).is_empty());
    let agreed = PayoutEvent::DealAgreed { shares: vec![share(1), share(2)], left_to_play_for: 0, ends_tournament: false };
    assert!(policy.on_payouts(t, 43, &[agreed]).is_empty());
}

/// 000 §16.8, 004 §4.35: a deal agreed to end the tournament asks registration to finish it,
/// shared by the deal's entries, the biggest stack first (ties by entry), once: its id is the
/// tournament's. No clock resume: the finish stops it.
#[test]
fn a_deal_that_ends_the_tournament_asks_registration_to_stop_it_by_chips() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    let with = |entry: u32, chips: u64| floor_events::payouts::DealShare { chips, ..share(entry) };
    let shares = vec![with(1, 5_000), with(2, 9_000), with(3, 5_000)];
    let agreed = PayoutEvent::DealAgreed { shares, left_to_play_for: 0, ends_tournament: true };
    let orders = policy.on_payouts(t, 50, std::slice::from_ref(&agreed));
    let [Order::StopShared(stop)] = &orders[..] else { panic!("{orders:?}") };
    assert_eq!(stop.survivors, vec![EntryNo(2), EntryNo(1), EntryNo(3)]);
    assert!(stop.deal);
    assert_eq!(stop.command_id, CommandId::derived(&format!("payouts-deal-stop:{t}")));
}

#[test]
fn the_remaining_entries_carry_the_chips_the_tables_reported() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    let joined = |e: u32| SeatingEvent::EntryJoined { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap(), stack: 1_000 };
    let seat = |e: u32, chips: u64| floor_events::table::SeatStack { seat: floor_events::table::SeatNo(e as u8), entry: EntryNo(e), chips };
    policy.on_seating(t, 1, &[joined(1), joined(2), joined(3)]);
    policy.on_seating(
        t,
        2,
        &[SeatingEvent::HandFinished { table: 1, hand: 1, stacks: vec![seat(1, 1_500), seat(2, 500), seat(3, 1_000)], busts: vec![] }],
    );
    policy.on_seating(t, 3, &[SeatingEvent::ChipsAtTable { entry: EntryNo(2), chips: 1_000 }]);
    policy.on_seating(
        t,
        4,
        &[SeatingEvent::EntryEliminated { entry: EntryNo(3), players_left: 2, stack_at_start: Some(1), table: Some(1) }],
    );
    let remaining = policy.remaining(t).unwrap();
    let chips: Vec<(u32, u64)> = remaining.iter().map(|(e, _, c)| (e.0, *c)).collect();
    assert_eq!(chips, vec![(1, 1_500), (2, 1_500)], "entry 2's add-on counts; entry 3 is out");
}

/// Issue 20: under `seat_order` (Natural8) equal stacks out in the same hand finish by seat, the
/// first seat left of the button ahead, as the bubble ranks them: each elimination carries its
/// seat order in the hand it went out in (entry 3 on seat 9 and entry 2 on seat 2, button on 8:
/// seat 9 is first to act).
#[test]
fn an_elimination_carries_its_seat_order_in_the_hand_it_went_out_in() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    let seat = |e: u32, s: u8| floor_events::table::SeatStack { seat: floor_events::table::SeatNo(s), entry: EntryNo(e), chips: 500 };
    let hand = SeatingEvent::HandStarted {
        table: 1,
        hand: 7,
        button: floor_events::table::SeatNo(8),
        stacks: vec![seat(1, 8), seat(2, 2), seat(3, 9)],
        crossing: false,
    };
    policy.on_seating(t, 4, &[hand]);
    let orders = policy.on_seating(t, 5, &[out(2, 2, 1), out(3, 1, 1), SeatingEvent::TournamentWon { entry: EntryNo(1) }]);
    let [Order::Payouts((_, _, PayoutCommand::Award { eliminated, .. }))] = &orders[..] else { panic!("{orders:?}") };
    let orders: Vec<(u32, u32)> = eliminated.iter().map(|e| (e.entry.0, e.seat_order)).collect();
    let after_button = |s: u8| seat_order(floor_events::table::SeatNo(s), floor_events::table::SeatNo(8));
    assert_eq!(orders, vec![(2, after_button(2)), (3, after_button(9))]);
    assert!(after_button(9) < after_button(2), "seat 9 acts first after the button on 8, seat 2 third");
}

/// 003 App. 1 b ix (issue 38): "v případě, že souhrn vkladů bude vyšší než předem stanovená
/// výše výhry, Provozovatel nevyplatí na výhrách více než 95 % z úhrnné výše všech vkladů"
/// (where the sum of the stakes is higher than the predetermined prize, the operator will not
/// pay out in prizes more than 95 % of the total of all stakes). Stakes ("vklady") are what the
/// players paid in, fees included (003: the buy-in is the prize-pool part and the commission).
#[test]
fn a_reel_cz_guaranteed_table_pays_at_most_95_percent_of_the_stakes_and_the_books_balance() {
    use crate::domain::{PayoutState, PayoutsAggregate};
    use esrs::Aggregate;
    // Given a reel-cz sit & go of three guaranteeing EUR 20, buy-in EUR 10 of which a 3 % fee
    // (003 allows 2–17 %): stakes EUR 30, contributions EUR 29.10, 95 % of the stakes EUR 28.50.
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    let definition = TournamentDefinition {
        profile: RuleProfile::ReelCz,
        fee: Fee::ShareOfBuyIn { basis_points: 300 },
        guarantee: Some(eur(2_000)),
        rebuy: None,
        add_on: None,
        ..definition(None)
    };
    definition.validate().expect("a valid reel-cz definition");
    let mut registration = vec![created(t, definition.clone())];
    for e in 1..=3 {
        registration.push(TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(e),
            player: PlayerId::parse(&format!("p{e}")).unwrap(),
            kind: EntryKind::Registration,
            new_player: true,
            ledger: definition.entry_ledger(),
            at: at(),
            ticket: None,
        }));
    }
    registration.push(TournamentEvent::TournamentStarted(TournamentStarted { entries: 3, cause: StartCause::LastSeatFilled, at: at() }));
    // When it starts (the table locks) and is played to the end.
    let orders = policy.on_tournament(t, &registration);
    let [Order::Payouts((_, _, lock))] = &orders[..] else { panic!("one lock: {orders:?}") };
    let PayoutCommand::WithStakes { stakes, command } = lock else { panic!("the lock carries the stakes: {lock:?}") };
    assert_eq!((stakes.paid_in, stakes.bounty_pool), (3_000, 0), "everything paid in, fees included");
    assert!(matches!(**command, PayoutCommand::Lock { .. }), "{command:?}");
    let run = |log: &mut Vec<PayoutEvent>, command: PayoutCommand| {
        let state = log.iter().cloned().fold(PayoutState::default(), PayoutsAggregate::apply_event);
        log.extend(PayoutsAggregate::handle_command(&state, command).unwrap());
    };
    let mut log = Vec::new();
    run(&mut log, lock.clone());
    let orders = policy.on_seating(t, 10, &[out(1, 2, 1)]);
    let [Order::Payouts((_, _, award))] = &orders[..] else { panic!("one award: {orders:?}") };
    assert!(matches!(award, PayoutCommand::WithStakes { .. }), "awards carry the stakes too: {award:?}");
    run(&mut log, award.clone());
    let orders = policy.on_seating(t, 11, &[out(2, 1, 1), SeatingEvent::TournamentWon { entry: EntryNo(3) }]);
    let [Order::Payouts((_, _, last))] = &orders[..] else { panic!("the last award: {orders:?}") };
    run(&mut log, last.clone());
    // Then the pool is EUR 28.50, not the EUR 29.10 contributed, and no overlay.
    let Some(PayoutEvent::PayoutTableLocked { pool, overlay, contributions, .. }) = log.first() else { panic!("{log:?}") };
    assert_eq!((pool.amount, overlay.amount, contributions.amount), (2_850, 0, 2_910));
    // And the books balance: the EUR 0.60 the cap kept is the operator's, as the fees are.
    let b = crate::books::books(t, &registration, [], &log);
    assert!(b.finished && b.balanced, "{b:?}");
    assert_eq!((b.paid_in, b.fees, b.contributions, b.prize_pool, b.prizes_paid, b.held), (3_000, 90, 2_910, 2_850, 2_850, 0));
}

/// A satellite of ten at EUR 10 + 1, seats worth EUR 33 (issue 36): created, filled, started.
fn satellite_started(policy: &mut Policy, t: TournamentId) -> Vec<Order> {
    use floor_events::satellites::SatelliteTerms;
    let terms = SatelliteTerms::new(TournamentId::new(), eur(3_300));
    let definition = TournamentDefinition {
        name: "Satellite".into(),
        start: Start::SitAndGo,
        buy_in: eur(1_000),
        fee: Fee::OnTop(eur(100)),
        capacity: 10,
        min_players: 10,
        satellite: Some(terms),
        ..TournamentDefinition::example()
    };
    policy.on_tournament(t, &filled(t, definition, 10))
}

fn shared_by(entries: &[u32]) -> TournamentEvent {
    use floor_events::registration::{Survivor, TournamentFinished};
    let survivors: Vec<Survivor> =
        entries.iter().map(|&e| Survivor { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap() }).collect();
    TournamentEvent::TournamentFinished(TournamentFinished {
        winner: survivors[0].entry,
        player: survivors[0].player.clone(),
        at: at(),
        shared_by: survivors,
    })
}

/// Issue 36 (000 §16.7, README §9): a satellite's table is locked as its seats; when
/// registration stops it with the survivors sharing the seats, what hand-for-hand held is
/// awarded first, then one `Shared` names every survivor, winner first; seating's and the
/// bubble's commits after the stop award nothing, and the stop read again orders nothing.
#[test]
fn a_satellite_locks_its_seats_and_its_shared_finish_pays_every_survivor() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    // Given a satellite of ten started: its table locks with the seat value in the field.
    let orders = satellite_started(&mut policy, t);
    let [Order::Payouts((_, _, PayoutCommand::Lock { field, .. }))] = &orders[..] else { panic!("{orders:?}") };
    assert_eq!((field.seat_value, field.contributions), (Some(3_300), eur(10_000)));
    let (table, pool, _) = floor_rules::field::table_for(field).unwrap();
    assert_eq!((table.places(), table.prize(1), table.prize(3), table.prize(4), pool), (4, 3_300, 3_300, 100, eur(10_000)));
    // And six busts, one a hand, then hand-for-hand: hand 1 released, entry 7 out in it (held).
    for entry in 1..=6u32 {
        assert_eq!(awarded(&policy.on_seating(t, 10 + u64::from(entry), &[out(entry, 10 - entry, 1)])).len(), 1);
    }
    assert!(policy.on_bubble(t, 30, &[released(1)]).is_empty());
    assert!(policy.on_seating(t, 31, &[out(7, 3, 2)]).is_empty(), "held for hand 1's award");

    // When registration stops it with entries 9, 8 and 10 left.
    let orders = policy.on_tournament(t, &[shared_by(&[9, 8, 10])]);

    // Then the held bust is awarded (4th, the leftover), then every survivor in one command.
    let [Order::Payouts((_, held_id, PayoutCommand::Award { players_left_before: 4, eliminated, hand_for_hand: Some(1), .. })), Order::Payouts((_, id, PayoutCommand::Shared { field, survivors }))] =
        &orders[..]
    else {
        panic!("{orders:?}")
    };
    assert_eq!(eliminated.iter().map(|e| e.entry.0).collect::<Vec<_>>(), [7]);
    assert_eq!(*held_id, CommandId::derived(&format!("payouts-award-held:{t}:shared")));
    assert_eq!(*id, CommandId::derived(&format!("payouts-shared:{t}")));
    assert_eq!(field.seat_value, Some(3_300));
    assert_eq!(
        survivors.iter().map(|(e, p)| (e.0, p.to_string())).collect::<Vec<_>>(),
        [(9, "p9".into()), (8, "p8".into()), (10, "p10".into())]
    );

    // And a hand that finished after the stop, the bubble's completion, the stop again: nothing.
    assert!(policy.on_seating(t, 40, &[out(8, 2, 1), SeatingEvent::TournamentWon { entry: EntryNo(9) }]).is_empty());
    assert!(policy.on_bubble(t, 41, &[completed(1)]).is_empty());
    assert!(policy.on_tournament(t, &[shared_by(&[9, 8, 10])]).is_empty());
}

/// A `tournament_finished` without `shared_by` (one winner) orders nothing, as before issue 36:
/// the winner is paid from seating's `tournament_won`.
#[test]
fn a_finish_with_one_winner_orders_nothing() {
    let (mut policy, t) = (Policy::default(), TournamentId::new());
    started(&mut policy, t);
    let finished = floor_events::registration::TournamentFinished {
        winner: EntryNo(1),
        player: PlayerId::parse("p1").unwrap(),
        at: at(),
        shared_by: vec![],
    };
    assert!(policy.on_tournament(t, &[TournamentEvent::TournamentFinished(finished)]).is_empty());
    let orders = policy.on_seating(t, 12, &[out(2, 1, 1), SeatingEvent::TournamentWon { entry: EntryNo(1) }]);
    assert!(matches!(&orders[..], [Order::Payouts((_, _, PayoutCommand::Award { winner: Some(_), .. }))]), "{orders:?}");
}

/// Issue 36 (004 §4.36.11): a flight's Day 1 pays no prizes, its whole pool goes to its Day 2:
/// no table is locked at its start, no bust is awarded, and its stop at its share (registration's
/// `tournament_finished` with `shared_by`) pays no survivor: it orders its pool transferred, in
/// both payouts logs (the Day 1's and the Day 2's), once.
#[test]
fn a_day1_locks_no_table_awards_no_bust_and_pays_no_survivor() {
    use floor_events::flights::{Carry, FlightTerms, PoolTransferred};
    let (mut policy, t, day2) = (Policy::default(), TournamentId::new(), TournamentId::new());
    let day1 = TournamentDefinition {
        flight: Some(FlightTerms { day2, survivors_share_bps: 2_000, carry: Carry::BestStack, one_day1_at_a_time: false }),
        ..TournamentDefinition::example()
    };
    assert!(policy.on_tournament(t, &filled(t, day1, 10)).is_empty(), "no table locked");
    for entry in 1..=8u32 {
        assert!(policy.on_seating(t, u64::from(entry), &[out(entry, 10 - entry, 1)]).is_empty(), "no award");
    }
    assert!(policy.on_bubble(t, 20, &[released(1)]).is_empty());
    let orders = policy.on_tournament(t, &[shared_by(&[9, 10])]);
    let transfer = PoolTransferred { day1: t, day2, amount: eur(10 * 1_000) };
    let sent: Vec<(TournamentId, PayoutCommand)> = orders
        .into_iter()
        .map(|o| match o {
            Order::Payouts((on, _, command)) => (on, command),
            other => panic!("only transfers: {other:?}"),
        })
        .collect();
    assert_eq!(sent, vec![(t, PayoutCommand::TransferPool(transfer.clone())), (day2, PayoutCommand::TransferPool(transfer))]);
}

/// Issue 36: a Day 2's table is locked on its own entries' contributions and its Day 1s' pools;
/// its field counts the entries carried in.
#[test]
fn a_day2_locks_its_table_on_its_day1s_pools() {
    use floor_events::flights::{Carry, CarryOutcome, EntryCarried, FlightTerms};
    let (mut policy, day1, day2) = (Policy::default(), TournamentId::new(), TournamentId::new());
    let day2_def = TournamentDefinition { late_registration_until: None, ..TournamentDefinition::example() };
    policy.on_tournament(day2, &[created(day2, day2_def)]);
    let day1_def = TournamentDefinition {
        flight: Some(FlightTerms { day2, survivors_share_bps: 2_000, carry: Carry::StackBuilder, one_day1_at_a_time: false }),
        ..TournamentDefinition::example()
    };
    policy.on_tournament(day1, &filled(day1, day1_def, 10));
    policy.on_tournament(day1, &[shared_by(&[9, 10])]);
    let carried: Vec<TournamentEvent> = [9u32, 10]
        .iter()
        .zip(1u32..)
        .map(|(&from, entry)| {
            TournamentEvent::EntryCarried(EntryCarried {
                entry: EntryNo(entry),
                player: PlayerId::parse(&format!("p{from}")).unwrap(),
                day1,
                day1_entry: EntryNo(from),
                chips: 5_000,
                stack: 5_000,
                outcome: CarryOutcome::Registered,
                new_player: true,
                at: at(),
            })
        })
        .collect();
    policy.on_tournament(day2, &carried);
    let started = TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at() });
    let orders = policy.on_tournament(day2, &[started]);
    let locked = orders.iter().find_map(|o| match o {
        Order::Payouts((on, _, PayoutCommand::Lock { field, .. })) if *on == day2 => Some(field.clone()),
        _ => None,
    });
    let field = locked.expect("the Day 2's table locked at its start");
    assert_eq!((field.entries, field.contributions), (2, eur(10_000)), "two carried entries, the Day 1's EUR 100 pool");
}
