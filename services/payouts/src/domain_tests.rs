//! The payouts aggregate, given/when/then: rulebook cases, bad input, and the property that
//! for any field and any bust order the books balance to the cent and every paid place is paid
//! once.

use crate::books::books;
use crate::domain::{Eliminated, Field, PayoutCommand as C, PayoutState, PayoutsAggregate, PayoutsError};
use esrs::Aggregate;
use floor_events::payouts::{LockCause, PayoutEvent, PlaceAward};
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::{EntryKind, EntryRegistered, TournamentEvent};
use floor_events::tournament::EntryLedger;
use floor_events::{Currency, EntryNo, Money, PlayerId, RuleProfile, TournamentId};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashSet};

pub(crate) fn eur(amount: u64) -> Money {
    Money::new(amount, Currency::EUR)
}

pub(crate) fn field(entries: u32, each: u64, guarantee: Option<u64>) -> Field {
    Field {
        entries,
        contributions: eur(u64::from(entries) * each),
        guarantee: guarantee.map(eur),
        profile: RuleProfile::Tda2024,
        fixed: None,
        ordering: None,
        seat_value: None,
    }
}

pub(crate) fn player(entry: u32) -> PlayerId {
    PlayerId::parse(&format!("p{entry}")).unwrap()
}

pub(crate) fn out(entry: u32, stack_at_start: u64) -> Eliminated {
    Eliminated { entry: EntryNo(entry), player: player(entry), stack_at_start, table: 1, seat_order: entry }
}

/// Given these events, when this command: the new events, or the refusal.
pub(crate) fn given(events: &[PayoutEvent]) -> PayoutState {
    events.iter().cloned().fold(PayoutState::default(), PayoutsAggregate::apply_event)
}

pub(crate) fn when(state: &PayoutState, command: C) -> Result<Vec<PayoutEvent>, PayoutsError> {
    PayoutsAggregate::handle_command(state, command)
}

pub(crate) fn awards(events: &[PayoutEvent]) -> Vec<PlaceAward> {
    events.iter().flat_map(|e| if let PayoutEvent::PlacesAwarded { awards, .. } = e { awards.clone() } else { vec![] }).collect()
}

pub(crate) fn lock(f: &Field) -> Vec<PayoutEvent> {
    when(&PayoutState::default(), C::Lock { field: f.clone(), cause: LockCause::Started }).unwrap()
}

/// `practice.md` §1.4 (PokerStars): three players out in one hand take places by the chips
/// they started it with; the two with equal stacks share their two places and split the prizes.
#[test]
fn a_three_way_bust_is_ranked_by_starting_stacks_and_equal_stacks_split_their_prizes() {
    let f = field(60, 1_000, None);
    let locked = lock(&f);
    let PayoutEvent::PayoutTableLocked { places, ref bands, .. } = locked[0] else { panic!("locked") };
    assert_eq!(places, 9);
    let prize = |place: u32| bands.iter().find(|b| (b.from..=b.to).contains(&place)).unwrap().amount;
    let state = given(&locked);

    let events = when(
        &state,
        C::Award {
            field: f,
            players_left_before: 5,
            eliminated: vec![out(7, 3_000), out(8, 5_000), out(9, 3_000)],
            winner: None,
            hand_for_hand: None,
        },
    )
    .unwrap();

    let paid: BTreeMap<u32, (u32, u32, u64)> = awards(&events).iter().map(|a| (a.entry.0, (a.place, a.shared, a.amount))).collect();
    assert_eq!(paid[&8], (3, 1, prize(3)), "the bigger stack finishes third");
    let split = prize(4) + prize(5);
    assert_eq!((paid[&7].0, paid[&7].1), (4, 2), "entries 7 and 9 share places 4 and 5");
    assert_eq!((paid[&9].0, paid[&9].1), (4, 2));
    assert_eq!(paid[&7].2 + paid[&9].2, split, "the split pays both places, to the cent");
    assert!(paid[&7].2.abs_diff(paid[&9].2) <= 1, "and evenly: the odd cent to the first in entry order");
    assert!(paid[&7].2 >= paid[&9].2);
}

/// Issue 20: a tournament that sets its own ranking (`hand_for_hand.ordering`: WSOP's tie across
/// tables) is paid by it, as the bubble ranks the hand, not by its profile's (TDA: by stack).
#[test]
fn a_tournaments_own_ordering_ranks_busts_at_different_tables_as_the_bubble_does() {
    use floor_events::bubble::{AcrossTables, EliminationOrdering, EqualStacks};
    let by_profile = field(60, 1_000, None);
    let tie = Field {
        ordering: Some(EliminationOrdering { across_tables: AcrossTables::Tie, equal_stacks: EqualStacks::Split }),
        ..by_profile.clone()
    };
    let state = given(&lock(&by_profile));
    let busts = || vec![Eliminated { table: 1, ..out(7, 3_000) }, Eliminated { table: 2, ..out(8, 5_000) }];
    let places = |f: Field| -> BTreeMap<u32, (u32, u32)> {
        let events =
            when(&state, C::Award { field: f, players_left_before: 5, eliminated: busts(), winner: None, hand_for_hand: None }).unwrap();
        awards(&events).iter().map(|a| (a.entry.0, (a.place, a.shared))).collect()
    };
    assert_eq!(places(by_profile), BTreeMap::from([(8, (4, 1)), (7, (5, 1))]), "TDA's profile: the bigger stack finishes ahead");
    assert_eq!(places(tie), BTreeMap::from([(8, (4, 2)), (7, (4, 2))]), "the tournament's tie: both share places 4 and 5");
}

/// Issue 20, TDA RP-8 A ("50 paid, 52 left, three bust on the announcement hand: all three share
/// the 50th-place payout"): busts of hand-for-hand hand 0 share every place of the group,
/// whatever their stacks and tables, split by the remainder rule to the cent; the award says
/// which hand it was.
#[test]
fn busts_on_the_announcement_hand_share_their_places_whatever_their_stacks() {
    let f = field(61, 1_000, None);
    let locked = lock(&f);
    let PayoutEvent::PayoutTableLocked { places, ref bands, .. } = locked[0] else { panic!("locked") };
    let prize = |place: u32| bands.iter().find(|b| (b.from..=b.to).contains(&place)).map_or(0, |b| b.amount);
    let state = given(&locked);
    // Places paid + 2 left, three out: places paid ..= paid + 2, only the first of them paid.
    let left = places + 2;
    let busts = vec![out(7, 9_000), Eliminated { table: 2, ..out(8, 1_000) }, Eliminated { table: 3, ..out(9, 4_000) }];
    let events =
        when(&state, C::Award { field: f, players_left_before: left, eliminated: busts, winner: None, hand_for_hand: Some(0) }).unwrap();
    let [PayoutEvent::PlacesAwarded { awards, hand_for_hand, .. }] = &events[..] else { panic!("{events:?}") };
    assert_eq!(*hand_for_hand, Some(0));
    assert!(awards.iter().all(|a| (a.place, a.shared) == (places, 3)), "all three share: {awards:?}");
    let total = prize(places) + prize(places + 1) + prize(places + 2);
    assert!(total % 3 != 0, "a total that does not divide, for the remainder rule: {total}");
    assert_eq!(awards.iter().map(|a| a.amount).sum::<u64>(), total, "the group is paid what its places pay");
    assert_eq!(awards[0].entry, EntryNo(7), "the odd cent first to the biggest stack (the remainder order)");
    assert!(awards.iter().all(|a| a.amount.abs_diff(total / 3) <= 1));
}

#[test]
fn a_guarantee_tops_up_a_short_pool_and_the_overlay_is_recorded() {
    let locked = lock(&field(10, 1_000, Some(50_000)));
    let PayoutEvent::PayoutTableLocked { overlay, pool, ref bands, .. } = locked[0] else { panic!("locked") };
    assert_eq!((overlay, pool), (eur(40_000), eur(50_000)));
    assert_eq!(bands.iter().map(|b| u64::from(b.to - b.from + 1) * b.amount).sum::<u64>(), 50_000);
}

#[test]
fn a_second_lock_changes_nothing() {
    let f = field(10, 1_000, None);
    let state = given(&lock(&f));
    assert_eq!(when(&state, C::Lock { field: field(12, 1_000, None), cause: LockCause::LateRegistrationClosed }).unwrap(), vec![]);
}

/// While late registration is open the table waits; busts far from the money finish unpaid,
/// and the first bust that reaches the money locks the table with the field as it is.
#[test]
fn with_late_registration_open_the_table_locks_when_a_bust_reaches_the_money() {
    let f = field(100, 1_000, None);
    let early = when(
        &PayoutState::default(),
        C::Award { field: f.clone(), players_left_before: 100, eliminated: vec![out(1, 500)], winner: None, hand_for_hand: None },
    )
    .unwrap();
    assert_eq!(awards(&early)[0].amount, 0);
    assert!(!early.iter().any(|e| matches!(e, PayoutEvent::PayoutTableLocked { .. })));

    let state = given(&early);
    let bubble =
        when(&state, C::Award { field: f, players_left_before: 15, eliminated: vec![out(2, 500)], winner: None, hand_for_hand: None })
            .unwrap();
    assert!(matches!(bubble[0], PayoutEvent::PayoutTableLocked { cause: LockCause::ReachedTheMoney, places: 15, .. }));
    assert!(awards(&bubble)[0].amount > 0, "15th of 100 is paid");
}

#[test]
fn an_entry_placed_twice_or_a_tournament_paid_twice_is_refused_with_no_event() {
    let f = field(3, 1_000, None);
    let state = given(&lock(&f));
    let first = when(
        &state,
        C::Award { field: f.clone(), players_left_before: 3, eliminated: vec![out(1, 10)], winner: None, hand_for_hand: None },
    )
    .unwrap();
    let log = [lock(&f), first].concat();
    let state = given(&log);
    let again = when(
        &state,
        C::Award { field: f.clone(), players_left_before: 2, eliminated: vec![out(1, 10)], winner: None, hand_for_hand: None },
    );
    assert_eq!(again, Err(PayoutsError::AlreadyPlaced(EntryNo(1))));

    let last = when(
        &state,
        C::Award {
            field: f.clone(),
            players_left_before: 2,
            eliminated: vec![out(2, 10)],
            winner: Some((EntryNo(3), player(3))),
            hand_for_hand: None,
        },
    )
    .unwrap();
    assert!(matches!(last.last(), Some(PayoutEvent::TournamentPaid { prizes_paid }) if *prizes_paid == eur(3_000)));
    let state = given(&[log, last].concat());
    let after = when(
        &state,
        C::Award { field: f, players_left_before: 1, eliminated: vec![], winner: Some((EntryNo(3), player(3))), hand_for_hand: None },
    );
    assert_eq!(after, Err(PayoutsError::AlreadyPaid));
}

#[test]
fn more_players_out_than_were_in_is_refused() {
    let f = field(3, 1_000, None);
    let refused = when(
        &given(&lock(&f)),
        C::Award { field: f, players_left_before: 1, eliminated: vec![out(1, 1), out(2, 1)], winner: None, hand_for_hand: None },
    );
    assert!(matches!(refused, Err(PayoutsError::MorePlayersOutThanIn { .. })));
}

/// A director's fixed table (50/30/20 %) is locked as it is, on the pool with the overlay, to the
/// cent: rounding cents go to first place.
#[test]
fn a_fixed_table_is_locked_on_the_pool_and_pays_it_to_the_cent() {
    let fixed = floor_events::tournament::FixedPayouts { shares_bps: vec![5_000, 3_000, 2_000] };
    let f = Field { fixed: Some(fixed), ..field(7, 1_433, Some(10_001)) };
    let locked = lock(&f);
    let PayoutEvent::PayoutTableLocked { places, ref bands, pool, overlay, .. } = locked[0] else { panic!("locked") };
    assert_eq!((places, pool, overlay), (3, eur(10_031), eur(0)), "7 x 14.33 = 100.31 is above the guarantee");
    let amounts: Vec<u64> = bands.iter().map(|b| b.amount).collect();
    assert_eq!(amounts, vec![5_016, 3_009, 2_006], "50 % of 10,031 is 5,015.5: the rounding cent goes to first");
    assert_eq!(amounts.iter().sum::<u64>(), 10_031);
}

pub(crate) fn registered(entry: u32, each: u64, fee: u64) -> TournamentEvent {
    TournamentEvent::EntryRegistered(EntryRegistered {
        entry: EntryNo(entry),
        player: player(entry),
        kind: EntryKind::Registration,
        new_player: true,
        ledger: EntryLedger { paid_in: eur(each + fee), fee: eur(fee), prize_pool: eur(each) },
        at: "2027-01-10T18:00:00Z".parse().unwrap(),
        ticket: None,
    })
}

/// A field and a bust order: groups of players out in one hand, with stacks that often tie.
fn tournament() -> impl Strategy<Value = (u32, u64, u64, Option<u64>, Vec<Vec<u64>>)> {
    (2u32..400, 1u64..5_000, 0u64..500, proptest::option::of(0u64..2_000_000)).prop_flat_map(|(entries, each, fee, guarantee)| {
        let groups = proptest::collection::vec(proptest::collection::vec(1u64..4, 1..4), entries as usize);
        (Just(entries), Just(each), Just(fee), Just(guarantee), groups)
    })
}

/// Rebuys and add-ons bought: (rebuys, add-on) per entry, a rebuy's price and fee, an add-on's.
type Purchases = (Vec<(u32, bool)>, (u64, u64), (u64, u64));

fn purchases(entries: u32) -> impl Strategy<Value = Purchases> {
    (proptest::collection::vec((0u32..4, any::<bool>()), entries as usize), (0u64..5_000, 0u64..500), (0u64..5_000, 0u64..500))
}

pub(crate) fn bought(entry: u32, add_on: bool, price: u64, fee: u64) -> RebuyEvent {
    let ledger = floor_events::tournament::purchase_ledger(eur(price), eur(fee));
    let at = "2027-01-10T18:30:00Z".parse().unwrap();
    if add_on {
        RebuyEvent::AddOnTaken { entry: EntryNo(entry), player: player(entry), chips: 1, ledger, at }
    } else {
        RebuyEvent::RebuyTaken { entry: EntryNo(entry), player: player(entry), number: 1, chips: 1, ledger, at }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Money in = money out to the cent, every place from 1 to the last is awarded once, and
    /// nobody is placed twice, whatever the field, the guarantee and the ties.
    #[test]
    fn the_books_balance_and_every_place_is_paid_once(
        ((entries, each, fee, guarantee, groups), (bought_by, rebuy, add_on)) in tournament().prop_flat_map(|t| { let n = t.0; (Just(t), purchases(n)) })
    ) {
        let mut purchases = Vec::new();
        for (i, &(rebuys, add)) in bought_by.iter().enumerate() {
            let entry = i as u32 + 1;
            purchases.extend((0..rebuys).map(|_| bought(entry, false, rebuy.0, rebuy.1)));
            if add {
                purchases.push(bought(entry, true, add_on.0, add_on.1));
            }
        }
        let rebuys: u64 = bought_by.iter().map(|b| u64::from(b.0)).sum();
        let add_ons = bought_by.iter().filter(|b| b.1).count() as u64;
        let contributions = u64::from(entries) * each + rebuys * rebuy.0 + add_ons * add_on.0;
        let f = Field { contributions: eur(contributions), ..field(entries, each, guarantee) };
        let mut log = lock(&f);
        let mut left = entries;
        let mut next = 1u32;
        let mut groups = groups.into_iter();
        while left > 1 {
            let stacks = groups.next().unwrap_or_else(|| vec![1]);
            let n = (stacks.len() as u32).min(left - 1);
            let eliminated: Vec<Eliminated> = stacks.iter().take(n as usize).enumerate().map(|(i, &s)| out(next + i as u32, s)).collect();
            next += n;
            let winner = (left - n == 1).then(|| (EntryNo(entries), player(entries)));
            let events = when(&given(&log), C::Award { field: f.clone(), players_left_before: left, eliminated, winner, hand_for_hand: None }).unwrap();
            log.extend(events);
            left -= n;
        }
        let placed: Vec<PlaceAward> = awards(&log);
        prop_assert_eq!(placed.len() as u32, entries);
        prop_assert_eq!(placed.iter().map(|a| a.entry).collect::<HashSet<_>>().len() as u32, entries, "nobody placed twice");
        let mut places: Vec<u32> = placed.iter().flat_map(|a| a.place..a.place + a.shared).collect();
        places.sort_unstable();
        places.dedup();
        prop_assert_eq!(places, (1..=entries).collect::<Vec<_>>(), "every place taken");

        let registration: Vec<TournamentEvent> = (1..=entries).map(|e| registered(e, each, fee)).collect();
        let b = books(TournamentId(uuid::Uuid::nil()), &registration, &purchases, &log);
        prop_assert!(b.finished);
        prop_assert!(b.balanced, "{b:?}");
        prop_assert_eq!(b.paid_in + b.overlay, b.fees + b.prize_pool);
        prop_assert_eq!(b.prize_pool, b.prizes_paid);
        prop_assert_eq!(b.prize_pool, contributions + b.overlay);
        prop_assert_eq!((u64::from(b.rebuys), u64::from(b.add_ons)), (rebuys, add_ons));
        prop_assert_eq!(b.paid_in, u64::from(entries) * (each + fee) + rebuys * (rebuy.0 + rebuy.1) + add_ons * (add_on.0 + add_on.1));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// 003 App. 1 b ix (issue 38): "v případě, že souhrn vkladů bude vyšší než předem stanovená
    /// výše výhry, Provozovatel nevyplatí na výhrách více než 95 % z úhrnné výše všech vkladů"
    /// (where the sum of the stakes is higher than the guaranteed prize, the operator will not
    /// pay out in prizes more than 95 % of all stakes). Whatever the field, the fee and the
    /// guarantee of a reel-cz tournament: above the guarantee the prizes paid are at most 95 %
    /// of the stakes (fees included), at or below it the guarantee is paid, and the books
    /// balance to the cent with nothing held.
    #[test]
    fn reel_cz_prizes_stay_within_95_percent_of_the_stakes_and_the_books_balance(
        entries in 2u32..120, each in 1u64..5_000, fee in 0u64..500, guarantee in 0u64..1_000_000,
    ) {
        // Given a reel-cz field with a guarantee, locked with its stakes.
        let f = Field { profile: RuleProfile::ReelCz, ..field(entries, each, Some(guarantee)) };
        let paid_in = u64::from(entries) * (each + fee);
        let stakes = floor_rules::field::Stakes { paid_in, bounty_pool: 0 };
        let lock = C::WithStakes { stakes, command: Box::new(C::Lock { field: f.clone(), cause: LockCause::Started }) };
        let mut log = when(&PayoutState::default(), lock).unwrap();
        // When it is played to the end, one bust a hand.
        for left in (2..=entries).rev() {
            let winner = (left == 2).then(|| (EntryNo(entries), player(entries)));
            let award = C::Award { field: f.clone(), players_left_before: left, eliminated: vec![out(entries + 1 - left, 1)], winner, hand_for_hand: None };
            let events = when(&given(&log), award).unwrap();
            log.extend(events);
        }
        // Then the prizes keep to the cap and the books balance.
        let registration: Vec<TournamentEvent> = (1..=entries).map(|e| registered(e, each, fee)).collect();
        let b = books(TournamentId(uuid::Uuid::nil()), &registration, [], &log);
        prop_assert!(b.finished && b.balanced, "{:?}", b);
        prop_assert_eq!((b.held, b.prize_pool), (0, b.prizes_paid));
        if paid_in > guarantee {
            prop_assert!(u128::from(b.prizes_paid) * 100 <= u128::from(paid_in) * 95, "{:?}", b);
            prop_assert!(u128::from(b.prizes_paid + 1) * 100 > u128::from(paid_in) * 95 || b.prizes_paid == b.contributions.max(guarantee), "capped no lower than 95 %, else the contributions or the guarantee: {:?}", b);
        } else {
            prop_assert_eq!(b.prizes_paid, guarantee, "the guarantee, stakes at or below it");
        }
    }
}

/// A satellite of `entries` contributing `each`, seats worth `seat` (issue 36).
pub(crate) fn satellite(entries: u32, each: u64, seat: u64, guarantee: Option<u64>) -> Field {
    Field { seat_value: Some(seat), ..field(entries, each, guarantee) }
}

pub(crate) fn survivors(entries: &[u32]) -> Vec<(EntryNo, PlayerId)> {
    entries.iter().map(|&e| (EntryNo(e), player(e))).collect()
}

/// Issue 36 (README §9: seats = ⌊pool ÷ seat value⌋; 000 §16.7: "Alternativ kann ein Turnier
/// auch dann enden, wenn alle Spielteilnehmer den gleichen Geldgewinnrang erreicht haben": a
/// tournament may also end when every player has reached the same prize rank).
#[test]
fn a_satellite_stopped_at_its_seats_pays_every_survivor_a_seat_and_the_books_balance() {
    // Given a satellite of 10 entries at €10 + €1 (pool €100), seats worth €33: its table
    // locks as three seats and €1 to fourth.
    let f = satellite(10, 1_000, 3_300, None);
    let mut log = lock(&f);
    let PayoutEvent::PayoutTableLocked { places, ref bands, pool, .. } = log[0] else { panic!("locked") };
    assert_eq!((places, pool), (4, eur(10_000)));
    assert_eq!(
        bands,
        &vec![
            floor_events::payouts::PrizeBand { from: 1, to: 3, amount: 3_300 },
            floor_events::payouts::PrizeBand { from: 4, to: 4, amount: 100 }
        ]
    );
    // And entries 1 … 7 busted one a hand, down to three left: 10th … 5th unpaid, 4th €1.
    for entry in 1..=7u32 {
        let award = C::Award {
            field: f.clone(),
            players_left_before: 11 - entry,
            eliminated: vec![out(entry, 500)],
            winner: None,
            hand_for_hand: None,
        };
        log.extend(when(&given(&log), award).unwrap());
    }
    assert_eq!(
        awards(&log).iter().map(|a| (a.place, a.amount)).collect::<Vec<_>>(),
        [(10, 0), (9, 0), (8, 0), (7, 0), (6, 0), (5, 0), (4, 100)]
    );

    // When registration stops it with entries 9, 8 and 10 left (the winner first).
    let shared = when(&given(&log), C::Shared { field: f, survivors: survivors(&[9, 8, 10]) }).unwrap();

    // Then every survivor takes a place, 1 … 3 in that order, each the seat value, unshared;
    // and the tournament is paid: the whole pool.
    let [PayoutEvent::PlacesAwarded { players_left_before: 3, awards: seats, hand_for_hand: None }, PayoutEvent::TournamentPaid { prizes_paid }] =
        &shared[..]
    else {
        panic!("{shared:?}")
    };
    let paid: Vec<(u32, u32, u32, u64)> = seats.iter().map(|a| (a.entry.0, a.place, a.shared, a.amount)).collect();
    assert_eq!(paid, [(9, 1, 1, 3_300), (8, 2, 1, 3_300), (10, 3, 1, 3_300)]);
    assert_eq!(*prizes_paid, eur(10_000));
    log.extend(shared);
    let registration: Vec<TournamentEvent> = (1..=10).map(|e| registered(e, 1_000, 100)).collect();
    let b = books(TournamentId(uuid::Uuid::nil()), &registration, [], &log);
    assert!(b.finished && b.balanced, "{b:?}");
    assert_eq!((b.prize_pool, b.prizes_paid, b.paid_in, b.fees), (10_000, 10_000, 11_000, 1_000));

    // And the tournament paid, a second stop or a late award is refused, writing nothing.
    assert_eq!(
        when(&given(&log), C::Shared { field: satellite(10, 1_000, 3_300, None), survivors: survivors(&[9, 8, 10]) }),
        Err(PayoutsError::AlreadyPaid)
    );
}

/// A bust at another table stored before registration's stop reached seating: that survivor
/// has its place already (a seat, here) and the others take the places left, 1 … n.
#[test]
fn a_survivor_placed_before_the_stop_keeps_its_place_and_the_others_take_the_places_above() {
    let f = satellite(10, 1_000, 3_300, None);
    let mut log = lock(&f);
    for entry in 1..=7u32 {
        let award = C::Award {
            field: f.clone(),
            players_left_before: 11 - entry,
            eliminated: vec![out(entry, 500)],
            winner: None,
            hand_for_hand: None,
        };
        log.extend(when(&given(&log), award).unwrap());
    }
    // Entry 8 busts third at another table before the stop names it a survivor.
    let third = C::Award { field: f.clone(), players_left_before: 3, eliminated: vec![out(8, 500)], winner: None, hand_for_hand: None };
    log.extend(when(&given(&log), third).unwrap());
    let shared = when(&given(&log), C::Shared { field: f, survivors: survivors(&[9, 8, 10]) }).unwrap();
    let placed: Vec<(u32, u32, u64)> = awards(&shared).iter().map(|a| (a.entry.0, a.place, a.amount)).collect();
    assert_eq!(placed, [(9, 1, 3_300), (10, 2, 3_300)]);
    log.extend(shared);
    let registration: Vec<TournamentEvent> = (1..=10).map(|e| registered(e, 1_000, 100)).collect();
    let b = books(TournamentId(uuid::Uuid::nil()), &registration, [], &log);
    assert!(b.finished && b.balanced && b.prize_pool == b.prizes_paid, "{b:?}");
    // A survivor named twice is refused.
    let twice = when(&PayoutState::default(), C::Shared { field: satellite(10, 1_000, 3_300, None), survivors: survivors(&[9, 9]) });
    assert_eq!(twice, Err(PayoutsError::AlreadyPlaced(EntryNo(9))));
}

/// The table not locked yet when the stop comes (it always is in practice: the stop needs the
/// field closed): it is locked on the field first, then the survivors are paid from it.
#[test]
fn a_stop_before_the_lock_locks_the_seats_first() {
    let f = satellite(4, 1_000, 1_500, None);
    let events = when(&PayoutState::default(), C::Shared { field: f, survivors: survivors(&[1, 2]) }).unwrap();
    assert!(matches!(events[0], PayoutEvent::PayoutTableLocked { cause: LockCause::ReachedTheMoney, places: 3, .. }), "{events:?}");
    assert_eq!(awards(&events).iter().map(|a| a.amount).collect::<Vec<_>>(), [1_500, 1_500]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Money in = money out for any satellite (issue 36): played down by random groups of busts
    /// until no more entries are left than seats, then stopped with every survivor sharing; or,
    /// with a pool below one seat, to a winner. With or without a guarantee (one that buys more
    /// seats than entries pays each entry a seat). Every place paid once, the books balance.
    #[test]
    fn a_satellite_s_books_balance_whatever_the_field_and_the_busts(
        entries in 2u32..200,
        each in 1u64..5_000,
        fee in 0u64..500,
        seat_factor in 1u64..20,
        extra in 1u64..5_000,
        guarantee in proptest::option::of(0u64..2_000_000),
        groups in proptest::collection::vec(proptest::collection::vec(1u64..4, 1..4), 200),
    ) {
        // A seat costs more than an entry (the definition refuses otherwise).
        let seat = each + fee + each * seat_factor + extra;
        let f = satellite(entries, each, seat, guarantee);
        // Registration stops on the pool topped up to the guarantee (floor_rules::satellite::stops).
        let pool = (u64::from(entries) * each).max(guarantee.unwrap_or(0));
        let seats = floor_rules::satellite::seats(pool, seat);
        let mut log = lock(&f);
        let mut left = entries;
        let mut next = 1u32;
        let mut groups = groups.into_iter();
        while left > 1 && !floor_rules::satellite::stops(left, pool, seat) {
            let stacks = groups.next().unwrap_or_else(|| vec![1]);
            let n = (stacks.len() as u32).min(left - 1);
            let eliminated: Vec<Eliminated> = stacks.iter().take(n as usize).enumerate().map(|(i, &s)| out(next + i as u32, s)).collect();
            next += n;
            let winner = (left - n == 1).then(|| (EntryNo(entries), player(entries)));
            log.extend(when(&given(&log), C::Award { field: f.clone(), players_left_before: left, eliminated, winner, hand_for_hand: None }).unwrap());
            left -= n;
        }
        if left > 1 || awards(&log).len() < entries as usize {
            prop_assert!(seats > 0 && left <= seats);
            let shared = when(&given(&log), C::Shared { field: f.clone(), survivors: (next..=entries).map(|e| (EntryNo(e), player(e))).collect() }).unwrap();
            prop_assert!(awards(&shared).iter().all(|a| a.amount == seat && a.shared == 1), "every survivor a seat: {:?}", shared);
            log.extend(shared);
        }
        let placed = awards(&log);
        let mut places: Vec<u32> = placed.iter().flat_map(|a| a.place..a.place + a.shared).collect();
        places.sort_unstable();
        places.dedup();
        prop_assert_eq!(placed.len() as u32, entries, "every entry placed once");
        prop_assert_eq!(places, (1..=entries).collect::<Vec<_>>(), "every place taken");
        let registration: Vec<TournamentEvent> = (1..=entries).map(|e| registered(e, each, fee)).collect();
        let b = books(TournamentId(uuid::Uuid::nil()), &registration, [], &log);
        prop_assert!(b.finished && b.balanced, "{:?}", b);
        prop_assert_eq!(b.prize_pool, b.prizes_paid);
        prop_assert_eq!(b.prize_pool, u64::from(entries) * each + b.overlay);
    }
}
