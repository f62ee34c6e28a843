//! Issue 37: double or nothing (the satellite's equal-prize stop, paid in cash) and lottery sit &
//! gos (the table locked on the lottery aggregate's draw), given/when/then through the policy
//! and the aggregate, and money in = money out for random fields and draws.
//!
//! 003 App. 1 b xi: "V turnaji typu Double or Nothing Sit & Go vyhrává polovina účastníků
//! hazardní hry dvojnásobek buy-inu. Turnaj končí v okamžiku, kdy je vyřazena polovina jeho
//! účastníků; druhá polovina má potom nárok na výhru." (half the participants win twice the
//! buy-in; the tournament ends the moment half are out, the other half then entitled to a
//! prize.) 004 §4.36.16 says the same of "Sázející". Twice the buy-in is twice the prize-pool
//! part here, the fee not included (`floor_rules::satellite`'s module doc says why).

use crate::books::books;
use crate::domain::{PayoutCommand, PayoutState, PayoutsAggregate, PayoutsError};
use crate::policy::{Order, Policy};
use esrs::Aggregate;
use floor_events::bubble::BubbleEvent;
use floor_events::lottery::{LotteryEvent, LotteryPrize, LotteryTerms, PrizeDrawn};
use floor_events::payouts::{Books, PayoutEvent, PlaceAward};
use floor_events::registration::StopShared;
use floor_events::registration::{
    EntryKind, EntryRegistered, StartCause, Survivor, TournamentCreated, TournamentEvent, TournamentFinished, TournamentStarted,
};
use floor_events::seating::SeatingEvent;
use floor_events::shootouts::CutTerms;
use floor_events::tournament::{Fee, Start, TournamentDefinition};
use floor_events::{Currency, EntryNo, Money, PlayerId, TournamentId};
use proptest::prelude::*;

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

fn at() -> chrono::DateTime<chrono::Utc> {
    "2027-01-10T18:00:00Z".parse().unwrap()
}

fn player(entry: u32) -> PlayerId {
    PlayerId::parse(&format!("p{entry}")).unwrap()
}

/// A sit & go of `capacity` seats at `part` + `fee`, cut at `fraction`.
fn cut(capacity: u32, fraction: u32, part: u64, fee: u64) -> TournamentDefinition {
    TournamentDefinition {
        name: "Double or Nothing".into(),
        start: Start::SitAndGo,
        buy_in: eur(part),
        fee: Fee::OnTop(eur(fee)),
        capacity,
        min_players: capacity,
        cut: Some(CutTerms { fraction }),
        ..TournamentDefinition::example()
    }
}

/// Three seats at EUR 10 + 1 with a published table: x2 (75 %), x3 (20 %), x10 (5 %, the
/// winner 80 %, second 20 %).
fn lottery() -> TournamentDefinition {
    let row = |multiplier: u32, per_million: u32, split_bps: Vec<u32>| LotteryPrize { multiplier, per_million, split_bps };
    TournamentDefinition {
        name: "Lottery".into(),
        start: Start::SitAndGo,
        buy_in: eur(1_000),
        fee: Fee::OnTop(eur(100)),
        capacity: 3,
        min_players: 3,
        lottery: Some(LotteryTerms {
            version: "spin-1".into(),
            prizes: vec![row(2, 750_000, vec![10_000]), row(3, 200_000, vec![10_000]), row(10, 50_000, vec![8_000, 2_000])],
        }),
        ..TournamentDefinition::example()
    }
}

/// Registration's log of `definition` filled: created, every seat taken, started.
fn filled(t: TournamentId, definition: &TournamentDefinition) -> Vec<TournamentEvent> {
    let mut events =
        vec![TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition: definition.clone(), at: at() })];
    for e in 1..=definition.capacity {
        events.push(TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(e),
            player: player(e),
            kind: EntryKind::Registration,
            new_player: true,
            ledger: definition.entry_ledger(),
            at: at(),
            ticket: None,
        }));
    }
    let started = TournamentStarted { entries: definition.capacity, cause: StartCause::LastSeatFilled, at: at() };
    events.push(TournamentEvent::TournamentStarted(started));
    events
}

/// Registration's stop: `tournament_finished` shared by `left`, the first the winner.
fn shared_by(left: &[u32]) -> TournamentEvent {
    let survivors: Vec<Survivor> = left.iter().map(|&e| Survivor { entry: EntryNo(e), player: player(e) }).collect();
    TournamentEvent::TournamentFinished(TournamentFinished {
        winner: survivors[0].entry,
        player: survivors[0].player.clone(),
        at: at(),
        shared_by: survivors,
    })
}

/// One hand's busts at table 1, as seating stores them: smallest starting stack first.
fn hand(busts: &[(u32, u64)], players_left_before: u32) -> Vec<SeatingEvent> {
    let mut busts = busts.to_vec();
    busts.sort_by_key(|&(entry, stack)| (stack, entry));
    busts
        .iter()
        .zip(1u32..)
        .map(|(&(entry, stack), n)| SeatingEvent::EntryEliminated {
            entry: EntryNo(entry),
            players_left: players_left_before - n,
            stack_at_start: Some(stack),
            table: Some(1),
        })
        .collect()
}

/// The payouts aggregate's log, run as the service runs the policy's orders (and its own
/// events fed back to the policy).
#[derive(Default)]
struct Run {
    policy: Policy,
    log: Vec<PayoutEvent>,
    sequence: u64,
    /// The equal-prize stops the policy sent registration (issues 36/37).
    stops: Vec<StopShared>,
}

impl Run {
    fn state(&self) -> PayoutState {
        self.log.iter().cloned().fold(PayoutState::default(), PayoutsAggregate::apply_event)
    }

    fn orders(&mut self, t: TournamentId, orders: Vec<Order>) {
        for order in orders {
            if let Order::StopShared(stop) = &order {
                self.stops.push(stop.clone());
            }
            let Order::Payouts((_, _, command)) = order else { continue };
            let events = PayoutsAggregate::handle_command(&self.state(), command).expect("the aggregate takes the policy's command");
            self.sequence += 1;
            let more = self.policy.on_payouts(t, self.sequence, &events);
            self.log.extend(events);
            self.orders(t, more);
        }
    }

    fn registration(&mut self, t: TournamentId, events: &[TournamentEvent]) {
        let orders = self.policy.on_tournament(t, events);
        self.orders(t, orders);
    }

    fn seating(&mut self, t: TournamentId, events: &[SeatingEvent]) {
        self.sequence += 1;
        let orders = self.policy.on_seating(t, self.sequence, events);
        self.orders(t, orders);
    }

    fn bubble(&mut self, t: TournamentId, events: &[BubbleEvent]) {
        self.sequence += 1;
        let orders = self.policy.on_bubble(t, self.sequence, events);
        self.orders(t, orders);
    }

    /// Registration records the policy's one stop as `stop_shared` does: `tournament_finished`
    /// shared by the survivors in the order given.
    fn registration_stops(&mut self, t: TournamentId) -> Vec<u32> {
        let [stop] = &self.stops[..] else { panic!("one stop: {:?}", self.stops) };
        assert_eq!(stop.command_id, floor_events::CommandId::derived(&format!("payouts-stop:{t}")));
        let survivors: Vec<u32> = stop.survivors.iter().map(|e| e.0).collect();
        self.registration(t, &[shared_by(&survivors)]);
        survivors
    }

    fn lottery(&mut self, t: TournamentId, events: &[LotteryEvent]) {
        let orders = self.policy.on_lottery(t, events);
        self.orders(t, orders);
    }

    fn awards(&self) -> Vec<PlaceAward> {
        self.log.iter().flat_map(|e| if let PayoutEvent::PlacesAwarded { awards, .. } = e { awards.clone() } else { vec![] }).collect()
    }

    fn paid(&self, entry: u32) -> u64 {
        self.awards().iter().filter(|a| a.entry == EntryNo(entry)).map(|a| a.amount).sum()
    }

    fn books(&self, t: TournamentId, registration: &[TournamentEvent]) -> Books {
        books(t, registration, [], &self.log)
    }
}

/// 003 App. 1 b xi / 004 §4.36.16: a 10-seat double or nothing at EUR 10 + 1 locks five places
/// of EUR 20 at its start; the fifth out stops it and each of the five left is paid EUR 20.
#[test]
fn app_1_b_xi_a_double_or_nothing_pays_its_five_survivors_twice_the_prize_pool_part_and_the_books_balance() {
    let (mut run, t) = (Run::default(), TournamentId::new());
    let registration = filled(t, &cut(10, 2, 1_000, 100));
    // Given the full field started: the table locks as five places of 2 × 1,000.
    run.registration(t, &registration);
    let Some(PayoutEvent::PayoutTableLocked { pool, places, bands, .. }) = run.log.first() else { panic!("{:?}", run.log) };
    assert_eq!((pool.amount, *places), (10_000, 5));
    assert_eq!(bands, &vec![floor_events::payouts::PrizeBand { from: 1, to: 5, amount: 2_000 }]);
    // When five go out, one a hand, and registration stops it with the five left.
    for (n, entry) in [2u32, 4, 6, 8, 10].into_iter().enumerate() {
        run.seating(t, &hand(&[(entry, 500)], 10 - n as u32));
    }
    run.registration(t, &[shared_by(&[1, 3, 5, 7, 9])]);
    // Then the five out are paid nothing, each survivor 2,000, the tournament is paid.
    for entry in [2, 4, 6, 8, 10] {
        assert_eq!(run.paid(entry), 0);
    }
    for entry in [1, 3, 5, 7, 9] {
        assert_eq!(run.paid(entry), 2_000, "entry {entry}");
    }
    let b = run.books(t, &registration);
    assert!(b.finished && b.balanced, "{b:?}");
    assert_eq!((b.paid_in, b.fees, b.prize_pool, b.prizes_paid, b.overlay, b.held), (11_000, 1_000, 10_000, 10_000, 0, 0));
}

/// A third wins triple: nine seats at fraction 3 pay three places of three parts each.
#[test]
fn a_third_wins_triple_nine_seats_pay_three_survivors_three_parts_each() {
    let (mut run, t) = (Run::default(), TournamentId::new());
    let registration = filled(t, &cut(9, 3, 1_000, 100));
    run.registration(t, &registration);
    for entry in 1..=6u32 {
        run.seating(t, &hand(&[(entry, 500)], 10 - entry));
    }
    run.registration(t, &[shared_by(&[8, 7, 9])]);
    let survivors: Vec<(u32, u32, u64)> = run.awards().iter().filter(|a| a.amount > 0).map(|a| (a.entry.0, a.place, a.amount)).collect();
    assert_eq!(survivors, [(8, 1, 3_000), (7, 2, 3_000), (9, 3, 3_000)]);
    let b = run.books(t, &registration);
    assert!(b.finished && b.balanced, "{b:?}");
}

/// 004 §4.36.16 "Turnaj končí v okamžiku, kdy je vyřazena polovina": two out in one hand
/// across the cut. Seating ranks the hand smallest stack first: the smaller stack takes 6th
/// (nothing), the bigger 5th (a prize); registration stops at the smaller one's elimination,
/// naming the bigger among the survivors, whose place payouts has already given.
#[test]
fn section_4_36_16_a_double_bust_across_the_cut_pays_the_bigger_stack_and_the_books_balance() {
    let (mut run, t) = (Run::default(), TournamentId::new());
    let registration = filled(t, &cut(10, 2, 1_000, 100));
    run.registration(t, &registration);
    for (n, entry) in [1u32, 2, 5, 6].into_iter().enumerate() {
        run.seating(t, &hand(&[(entry, 500)], 10 - n as u32));
    }
    // When one hand busts entry 3 (800 chips) and entry 4 (2,500 chips) with six left.
    run.seating(t, &hand(&[(4, 2_500), (3, 800)], 6));
    // And registration stops at entry 3's elimination: entry 4 is a survivor.
    run.registration(t, &[shared_by(&[4, 7, 8, 9, 10])]);
    // Then entry 3 is 6th with nothing, entry 4 5th with 2,000, the other four 2,000 each.
    let place = |entry: u32| run.awards().iter().find(|a| a.entry == EntryNo(entry)).map(|a| (a.place, a.amount));
    assert_eq!(place(3), Some((6, 0)));
    assert_eq!(place(4), Some((5, 2_000)));
    for entry in 7..=10 {
        assert_eq!(run.paid(entry), 2_000);
    }
    assert_eq!(run.awards().len(), 10, "every entry placed once");
    let b = run.books(t, &registration);
    assert!(b.finished && b.balanced, "{b:?}");
    assert_eq!(b.prizes_paid, 10_000);
}

/// Seating's draw: every entry of 1 ..= `capacity` joins with 5,000 chips.
fn seated(capacity: u32) -> Vec<SeatingEvent> {
    (1..=capacity).map(|e| SeatingEvent::EntryJoined { entry: EntryNo(e), player: player(e), stack: 5_000 }).collect()
}

/// One bust at `table`, `players_left` after it, out with `stack` chips at the start of the hand.
fn bust(entry: u32, stack: u64, table: u32, players_left: u32) -> SeatingEvent {
    SeatingEvent::EntryEliminated { entry: EntryNo(entry), players_left, stack_at_start: Some(stack), table: Some(table) }
}

/// A 20-seat double or nothing (ten prizes of 2,000) seated at two tables, entries 1 … 9 out
/// one a hand: eleven left (10 … 20), one above the cut.
fn twenty_with_eleven_left(run: &mut Run, t: TournamentId) -> Vec<TournamentEvent> {
    let registration = filled(t, &cut(20, 2, 1_000, 100));
    run.registration(t, &registration);
    run.seating(t, &seated(20));
    for entry in 1..=9u32 {
        run.seating(t, &[bust(entry, 500, 1 + entry % 2, 20 - entry)]);
    }
    assert!(run.stops.is_empty(), "no stop above the cut: {:?}", run.stops);
    registration
}

fn released(hand: u64) -> BubbleEvent {
    BubbleEvent::HandReleased { hand, tables: vec![1, 2], at: at() }
}

fn completed(hand: u64) -> BubbleEvent {
    BubbleEvent::HandCompleted { hand, players_left_before: 0, placed: vec![], at: at() }
}

/// Issues 36/37, the stop's hand hand-for-hand: entry 12 (5,000 chips at the start) is out at
/// table 1 and entry 11 (800) at table 2 in the same hand, eleven left before it and ten prizes.
/// Payouts holds both until the bubble completes the hand and ranks them together by chips:
/// entry 12 is 10th (a prize, a survivor), entry 11 is 11th (nothing), whichever table's report
/// was stored first. Registration, told the busts in arrival order, would have stopped at the
/// first and named the second a survivor: payouts decides the stop and names the survivors.
#[test]
fn a_hand_for_hand_hand_across_the_cut_gives_the_prize_to_the_bigger_stack_whatever_the_arrival_order() {
    for bigger_first in [true, false] {
        let (mut run, t) = (Run::default(), TournamentId::new());
        let registration = twenty_with_eleven_left(&mut run, t);
        // Given hand 4 released at both tables.
        run.bubble(t, &[released(4)]);
        // When the tables report their busts in either order.
        let (first, second) =
            if bigger_first { (bust(12, 5_000, 1, 10), bust(11, 800, 2, 9)) } else { (bust(11, 800, 2, 10), bust(12, 5_000, 1, 9)) };
        run.seating(t, &[first]);
        run.seating(t, &[second]);
        assert!(run.stops.is_empty() && run.awards().len() == 9, "held until the hand completes");
        // And the bubble completes the hand.
        run.bubble(t, &[completed(4)]);
        // Then payouts stops it: the nine at the tables and entry 12, ranked 10th.
        let survivors = run.registration_stops(t);
        assert_eq!(survivors, [10, 13, 14, 15, 16, 17, 18, 19, 20, 12], "bigger first: {bigger_first}");
        let place = |entry: u32| run.awards().iter().find(|a| a.entry == EntryNo(entry)).map(|a| (a.place, a.amount));
        assert_eq!((place(12), place(11)), (Some((10, 2_000)), Some((11, 0))));
        for entry in survivors {
            assert_eq!(run.paid(entry), 2_000, "entry {entry}");
        }
        assert_eq!(run.awards().len(), 20, "every entry placed once");
        // And nothing is awarded after the stop.
        run.seating(t, &[bust(10, 500, 1, 8)]);
        assert_eq!(run.awards().len(), 20);
        let b = run.books(t, &registration);
        assert!(b.finished && b.balanced && b.prizes_paid == 20_000, "{b:?}");
    }
}

/// Equal stacks straddling the cut (the profile's rule: equal stacks share and split their
/// places): entries 11 and 12 out in one hand-for-hand hand with 800 chips each share 10th and
/// 11th, each paid half a prize in cash, and neither is a survivor: the nine left are.
#[test]
fn equal_stacks_straddling_the_cut_split_in_cash_and_are_not_survivors() {
    let (mut run, t) = (Run::default(), TournamentId::new());
    let registration = twenty_with_eleven_left(&mut run, t);
    run.bubble(t, &[released(4)]);
    run.seating(t, &[bust(12, 800, 1, 10)]);
    run.seating(t, &[bust(11, 800, 2, 9)]);
    run.bubble(t, &[completed(4)]);
    let survivors = run.registration_stops(t);
    assert_eq!(survivors, [10, 13, 14, 15, 16, 17, 18, 19, 20]);
    let place = |entry: u32| run.awards().iter().find(|a| a.entry == EntryNo(entry)).map(|a| (a.place, a.shared, a.amount));
    assert_eq!((place(11), place(12)), (Some((10, 2, 1_000)), Some((10, 2, 1_000))));
    for entry in survivors {
        assert_eq!(run.paid(entry), 2_000, "entry {entry}");
    }
    let b = run.books(t, &registration);
    assert!(b.finished && b.balanced && b.prizes_paid == 20_000, "{b:?}");
}

/// 004 §4.36.16, a double bust at one table across the cut, the bigger stack stored first (as
/// an outbox may send them): payouts ranks by chips at the start of the hand, stops, and names
/// the bigger stack with the four left; the smaller is 6th with nothing.
#[test]
fn a_double_or_nothing_double_bust_names_the_bigger_stack_a_survivor_whatever_the_order() {
    let (mut run, t) = (Run::default(), TournamentId::new());
    let registration = filled(t, &cut(10, 2, 1_000, 100));
    run.registration(t, &registration);
    run.seating(t, &seated(10));
    for (n, entry) in [1u32, 2, 5, 6].into_iter().enumerate() {
        run.seating(t, &[bust(entry, 500, 1, 9 - n as u32)]);
    }
    assert!(run.stops.is_empty());
    run.seating(t, &[bust(4, 2_500, 1, 5), bust(3, 800, 1, 4)]);
    let survivors = run.registration_stops(t);
    assert_eq!(survivors, [7, 8, 9, 10, 4]);
    let place = |entry: u32| run.awards().iter().find(|a| a.entry == EntryNo(entry)).map(|a| (a.place, a.amount));
    assert_eq!((place(4), place(3)), (Some((5, 2_000)), Some((6, 0))));
    let b = run.books(t, &registration);
    assert!(b.finished && b.balanced && b.prizes_paid == 10_000, "{b:?}");
}

/// Four seats, two prizes, three left: one hand busts the last two opponents (the bigger
/// stored first), so seating's commit has a winner. The award pays the winner and the bigger
/// stack a prize each, the smaller nothing, and the tournament is paid; the stop names the
/// winner and the bigger stack, so registration finishes it shared as it was paid.
#[test]
fn a_hand_that_leaves_a_winner_across_the_cut_still_stops_shared_by_the_winner_and_the_bigger_stack() {
    let (mut run, t) = (Run::default(), TournamentId::new());
    let registration = filled(t, &cut(4, 2, 1_000, 100));
    run.registration(t, &registration);
    run.seating(t, &seated(4));
    run.seating(t, &[bust(1, 5_000, 1, 3)]);
    run.seating(t, &[bust(3, 7_500, 1, 2), bust(2, 2_500, 1, 1), SeatingEvent::TournamentWon { entry: EntryNo(4) }]);
    let [stop] = &run.stops[..] else { panic!("{:?}", run.stops) };
    assert_eq!(stop.survivors, [EntryNo(4), EntryNo(3)]);
    let place = |entry: u32| run.awards().iter().find(|a| a.entry == EntryNo(entry)).map(|a| (a.place, a.amount));
    assert_eq!((place(4), place(3), place(2), place(1)), (Some((1, 2_000)), Some((2, 2_000)), Some((3, 0)), Some((4, 0))));
    // Registration's finish changes nothing: the tournament is paid.
    run.registration(t, &[shared_by(&[4, 3])]);
    assert_eq!(run.awards().len(), 4);
    let b = run.books(t, &registration);
    assert!(b.finished && b.balanced && b.prizes_paid == 4_000, "{b:?}");
}

/// Each place's prize from a split: shares of the pool rounded down, the remainder to first.
fn prizes(pool: u64, split_bps: &[u32]) -> Vec<u64> {
    let mut prizes: Vec<u64> = split_bps.iter().map(|&b| (u128::from(pool) * u128::from(b) / 10_000) as u64).collect();
    let rest = pool - prizes.iter().sum::<u64>();
    prizes[0] += rest;
    prizes
}

fn drawn(multiplier: u32, split_bps: &[u32]) -> LotteryEvent {
    let pool = u64::from(multiplier) * 1_000;
    LotteryEvent::PrizeDrawn(PrizeDrawn {
        version: "spin-1".into(),
        number: 0,
        multiplier,
        pool: eur(pool),
        prizes: prizes(pool, split_bps),
        seed: "00".into(),
        at: at(),
    })
}

/// 000 §16.10 ("Twister"), issue 37: a lottery game's table is its draw. Nothing locks at the
/// start; a bust before the draw waits for it; the draw locks the drawn pool and prizes, then
/// the waiting bust is awarded; a second draw changes nothing. Above break-even (x10: 10,000
/// drawn against 3,000 contributed) the operator adds 7,000 as overlay; below it (x2: 2,000)
/// the operator keeps 1,000. Either way the books balance to the cent.
#[test]
fn section_16_10_a_lottery_table_locks_on_its_draw_above_and_below_break_even_and_the_books_balance() {
    lottery().validate().expect("a valid lottery definition");
    for (multiplier, split, overlay, kept) in [(10u32, vec![8_000, 2_000], 7_000u64, 0u64), (2, vec![10_000], 0, 1_000)] {
        let (mut run, t) = (Run::default(), TournamentId::new());
        let registration = filled(t, &lottery());
        // Given the game started: no table yet.
        run.registration(t, &registration);
        assert!(run.log.is_empty(), "no lock before the draw: {:?}", run.log);
        // When entry 1 busts before the draw: it waits.
        run.seating(t, &hand(&[(1, 500)], 3));
        assert!(run.log.is_empty(), "nobody is paid from a table the draw did not make: {:?}", run.log);
        // And the draw comes: the table locks on it, then the bust is awarded.
        run.lottery(t, &[drawn(multiplier, &split)]);
        let pool = u64::from(multiplier) * 1_000;
        let [PayoutEvent::PayoutTableLocked { pool: locked, overlay: o, contributions, .. }, PayoutEvent::PlacesAwarded { awards, .. }] =
            &run.log[..]
        else {
            panic!("{:?}", run.log)
        };
        assert_eq!((locked.amount, o.amount, contributions.amount), (pool, overlay, 3_000));
        assert!(matches!(run.log[0], PayoutEvent::PayoutTableLocked { cause: floor_events::payouts::LockCause::LotteryDrawn, .. }));
        assert_eq!((awards[0].entry, awards[0].place), (EntryNo(1), 3));
        // And a second draw changes nothing.
        run.lottery(t, &[drawn(3, &[10_000])]);
        assert_eq!(run.log.len(), 2);
        // When the game is played out.
        let mut last = hand(&[(2, 1_000)], 2);
        last.push(SeatingEvent::TournamentWon { entry: EntryNo(3) });
        run.seating(t, &last);
        // Then the drawn prizes are paid by place and the books balance.
        let expected = prizes(pool, &split);
        assert_eq!(run.paid(3), expected[0]);
        assert_eq!(run.paid(2), expected.get(1).copied().unwrap_or(0));
        assert_eq!(run.paid(1), 0);
        let b = run.books(t, &registration);
        assert!(b.finished && b.balanced, "{b:?}");
        assert_eq!(
            (b.paid_in, b.fees, b.contributions, b.overlay, b.prize_pool, b.prizes_paid, b.held),
            (3_300, 300, 3_000, overlay, pool, pool, 0)
        );
        assert_eq!(b.contributions + b.overlay - b.prize_pool, kept, "what the operator kept of the contributions");
        assert_eq!(b.lottery_kept, kept, "the books say what the draw left the operator");
    }
}

/// A lottery game whose draw never comes (its service down) waits: nothing is locked or paid,
/// even once a winner is known; a draw whose prizes do not sum to its pool is no draw.
#[test]
fn a_lottery_game_without_its_draw_waits_and_a_draw_that_does_not_add_up_locks_nothing() {
    let (mut run, t) = (Run::default(), TournamentId::new());
    run.registration(t, &filled(t, &lottery()));
    run.seating(t, &hand(&[(1, 500)], 3));
    let mut last = hand(&[(2, 1_000)], 2);
    last.push(SeatingEvent::TournamentWon { entry: EntryNo(3) });
    run.seating(t, &last);
    assert!(run.log.is_empty());
    let LotteryEvent::PrizeDrawn(good) = drawn(2, &[10_000]) else { unreachable!() };
    let bad = PrizeDrawn { prizes: vec![1_999], ..good.clone() };
    run.lottery(t, &[LotteryEvent::PrizeDrawn(bad.clone())]);
    assert!(run.log.is_empty(), "a draw that does not add up is ignored");
    // The aggregate refuses it too.
    let field = crate::domain_tests::field(3, 1_000, None);
    let refused =
        PayoutsAggregate::handle_command(&PayoutState::default(), PayoutCommand::LockDrawn { field, pool: bad.pool, prizes: bad.prizes });
    assert!(matches!(refused, Err(PayoutsError::DrawDoesNotSum { .. })), "{refused:?}");
    // Once the draw comes, the three places are paid in log order and the game is paid.
    run.lottery(t, &[LotteryEvent::PrizeDrawn(good)]);
    assert_eq!(run.awards().iter().map(|a| (a.entry.0, a.place, a.amount)).collect::<Vec<_>>(), [(1, 3, 0), (2, 2, 0), (3, 1, 2_000)]);
    assert!(run.log.iter().any(|e| matches!(e, PayoutEvent::TournamentPaid { .. })));
}

/// A definition without a lottery section ignores a stray draw; a double or nothing's table is
/// never a draw.
#[test]
fn a_draw_for_a_game_that_is_no_lottery_orders_nothing() {
    let (mut run, t) = (Run::default(), TournamentId::new());
    run.registration(t, &filled(t, &cut(4, 2, 1_000, 100)));
    assert_eq!(run.log.len(), 1, "locked at the start");
    assert!(run.policy.on_lottery(t, &[drawn(10, &[10_000])]).is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Money in = money out for any double or nothing: any capacity the fraction divides, any
    /// part and fee, any bust order in hands of one to three with stacks that tie. Registration
    /// stops at the first elimination (smallest stack first) that leaves capacity ÷ fraction;
    /// payouts places the hand's busts by stack and every survivor not placed; the pool is paid
    /// exactly, every entry placed once, no more than capacity ÷ fraction paid.
    #[test]
    fn a_double_or_nothing_pays_its_whole_pool_whatever_the_busts(
        share in 1u32..8,
        fraction in 2u32..5,
        part in 1u64..100_000,
        fee in 0u64..10_000,
        order in any::<u64>(),
        stacks in proptest::collection::vec((1usize..4, proptest::collection::vec(1u64..4, 3)), 40),
    ) {
        let capacity = share * fraction;
        let (mut run, t) = (Run::default(), TournamentId::new());
        let registration = filled(t, &cut(capacity, fraction, part, fee));
        run.registration(t, &registration);
        // A shuffled bust order, by the seed.
        let mut live: Vec<u32> = (1..=capacity).collect();
        let mut seed = order;
        for i in (1..live.len()).rev() {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            live.swap(i, (seed >> 33) as usize % (i + 1));
        }
        let mut hands = stacks.into_iter();
        let mut stopped = false;
        while !stopped {
            let (size, chips) = hands.next().unwrap_or((1, vec![1, 1, 1]));
            let n = size.min(live.len() - 1);
            let busts: Vec<(u32, u64)> = live[live.len() - n..].iter().zip(chips).map(|(&e, c)| (e, c)).collect();
            run.seating(t, &hand(&busts, live.len() as u32));
            // Registration: one by one, smallest stack first, until the stop.
            let mut ordered = busts.clone();
            ordered.sort_by_key(|&(entry, stack)| (stack, entry));
            for (entry, _) in ordered {
                live.retain(|&e| e != entry);
                if live.len() as u32 <= share {
                    stopped = true;
                    break;
                }
            }
        }
        live.sort_unstable();
        run.registration(t, &[shared_by(&live)]);
        let awards = run.awards();
        prop_assert_eq!(awards.len() as u32, capacity, "every entry placed once");
        let mut placed: Vec<u32> = awards.iter().map(|a| a.entry.0).collect();
        placed.sort_unstable();
        placed.dedup();
        prop_assert_eq!(placed.len() as u32, capacity);
        prop_assert!(awards.iter().filter(|a| a.amount > 0).count() as u32 <= share + 2, "{:?}", awards);
        let b = run.books(t, &registration);
        prop_assert!(b.finished && b.balanced, "{:?}", b);
        prop_assert_eq!(b.prizes_paid, u64::from(capacity) * part);
    }

    /// Money in = money out for any lottery draw: any multiplier and split, the draw before or
    /// after any number of busts; the operator's side is the overlay or what it keeps.
    #[test]
    fn a_lottery_game_balances_whatever_its_draw(
        seats in 2u32..7,
        part in 1u64..100_000,
        fee in 0u64..10_000,
        multiplier in 1u32..1_000,
        cuts in proptest::collection::vec(1u32..10_000, 0..3),
        busts_before in 0u32..7,
    ) {
        let mut cuts: Vec<u32> = cuts.into_iter().take(seats as usize - 1).collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut bounds = vec![0];
        bounds.extend(cuts);
        bounds.push(10_000);
        let mut split: Vec<u32> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
        split.sort_unstable_by(|a, b| b.cmp(a));
        let definition = TournamentDefinition {
            buy_in: eur(part),
            fee: Fee::OnTop(eur(fee)),
            capacity: seats,
            min_players: seats,
            ..lottery()
        };
        let (mut run, t) = (Run::default(), TournamentId::new());
        let registration = filled(t, &definition);
        run.registration(t, &registration);
        let pool = u64::from(multiplier) * part;
        let draw = LotteryEvent::PrizeDrawn(PrizeDrawn {
            version: "spin-1".into(),
            number: 0,
            multiplier,
            pool: eur(pool),
            prizes: prizes(pool, &split),
            seed: "00".into(),
            at: at(),
        });
        let mut left = seats;
        for entry in 1..seats {
            if entry == busts_before.min(seats - 1) + 1 {
                run.lottery(t, std::slice::from_ref(&draw));
            }
            let mut events = hand(&[(entry, 100)], left);
            left -= 1;
            if left == 1 {
                events.push(SeatingEvent::TournamentWon { entry: EntryNo(seats) });
            }
            run.seating(t, &events);
        }
        run.lottery(t, &[draw]);
        let b = run.books(t, &registration);
        prop_assert!(b.finished && b.balanced, "{:?}", b);
        prop_assert_eq!((b.prize_pool, b.prizes_paid), (pool, pool));
        prop_assert_eq!(b.overlay, pool.saturating_sub(u64::from(seats) * part));
        prop_assert_eq!(b.paid_in + b.overlay, b.fees + b.prize_pool + (b.contributions + b.overlay - b.prize_pool));
    }
}
