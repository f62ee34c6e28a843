//! Deals, given/when/then (issue 22): propose, accept, reject; the bad input the issue names
//! (a proposer not remaining, custom amounts not adding up, an accept twice) refused with a
//! code and no event; an elimination voiding a proposal; and, once agreed, every elimination
//! paid its share with the books closing to the cent, also for random deals (proptest).

use crate::books::books;
use crate::deal::{Proposal, Remaining, MIN_LEFT_TO_PLAY_FOR_BPS};
use crate::domain::{PayoutCommand as C, PayoutsError};
use crate::domain_tests::{awards, eur, field, given, lock, out, player, registered, when};
use floor_events::payouts::{CustomAmount, DealMethod, DealMethodKind, DealShare, DealVoidReason, PayoutEvent};
use floor_events::registration::TournamentEvent;
use floor_events::{codes, Currency, EntryNo, Money, TournamentId};
use floor_runtime::DomainError;
use proptest::prelude::*;

const ENTRIES: u32 = 30;
const EACH: u64 = 1_000;

/// Thirty entries of 10.00, the table locked, entries 1 to 27 out one by one: 28, 29 and 30
/// are left (3,000, 2,000 and 1,000 chips), with places 1 to 3 unpaid.
fn three_left() -> Vec<PayoutEvent> {
    play_down_to(ENTRIES, EACH, 3)
}

/// `entries` of `each`, locked, and the first entries out one by one until `left` remain.
fn play_down_to(entries: u32, each: u64, left: u32) -> Vec<PayoutEvent> {
    let f = field(entries, each, None);
    let mut log = lock(&f);
    for entry in 1..=entries - left {
        let command = C::Award {
            field: f.clone(),
            players_left_before: entries - entry + 1,
            eliminated: vec![out(entry, 100)],
            winner: None,
            hand_for_hand: None,
        };
        log.extend(when(&given(&log), command).unwrap());
    }
    log
}

fn remaining() -> Vec<Remaining> {
    [(28, 3_000), (29, 2_000), (30, 1_000)]
        .into_iter()
        .map(|(e, chips)| Remaining { entry: EntryNo(e), player: player(e), chips })
        .collect()
}

fn propose(by: u32, method: DealMethod, left: Option<u64>) -> C {
    C::ProposeDeal(Proposal {
        proposer: player(by),
        remaining: remaining(),
        method,
        left_to_play_for: left.map(eur),
        min_left_bps: MIN_LEFT_TO_PLAY_FOR_BPS,
        ends_tournament: false,
        bounties: false,
    })
}

fn accept(by: u32) -> C {
    C::AcceptDeal { player: player(by) }
}

fn code(refused: Result<Vec<PayoutEvent>, PayoutsError>) -> &'static str {
    refused.expect_err("refused").code()
}

fn shares(events: &[PayoutEvent]) -> Vec<DealShare> {
    events
        .iter()
        .find_map(|e| if let PayoutEvent::DealProposed { shares, .. } = e { Some(shares.clone()) } else { None })
        .expect("a proposal")
}

/// The unpaid prizes of [`three_left`]: places 1 to 3.
fn unpaid(log: &[PayoutEvent]) -> u64 {
    let state = given(log);
    let (table, pool) = state.table.as_ref().unwrap();
    assert_eq!(pool.amount - state.prizes_paid, (1..=3).map(|p| table.prize(p)).sum::<u64>());
    pool.amount - state.prizes_paid
}

#[test]
fn a_deal_proposed_and_accepted_by_every_remaining_player_is_agreed() {
    let mut log = three_left();
    let pool = unpaid(&log);

    let proposed = when(&given(&log), propose(28, DealMethod::Icm, None)).unwrap();
    let [PayoutEvent::DealProposed { proposer, method: DealMethodKind::Icm, shares, left_to_play_for: 0, pool: dealt, .. }] = &proposed[..]
    else {
        panic!("{proposed:?}")
    };
    assert_eq!((proposer, *dealt), (&player(28), pool));
    assert_eq!(shares.iter().map(|s| s.amount).sum::<u64>(), pool, "every unpaid cent is dealt");
    assert!(shares[0].amount > shares[1].amount && shares[1].amount > shares[2].amount, "ICM pays the bigger stack more");
    log.extend(proposed.clone());

    let first = when(&given(&log), accept(29)).unwrap();
    assert_eq!(first, vec![PayoutEvent::DealAccepted { player: player(29) }]);
    log.extend(first);
    let last = when(&given(&log), accept(30)).unwrap();
    assert_eq!(
        last,
        vec![
            PayoutEvent::DealAccepted { player: player(30) },
            PayoutEvent::DealAgreed { shares: shares.clone(), left_to_play_for: 0, ends_tournament: false }
        ]
    );
    log.extend(last);
    assert!(given(&log).deal.is_some_and(|d| d.agreed));
    assert_eq!(code(when(&given(&log), propose(29, DealMethod::Equal, None))), codes::DEAL_ALREADY_AGREED);
    assert_eq!(code(when(&given(&log), accept(29))), codes::DEAL_ALREADY_AGREED);
}

#[test]
fn a_rejected_deal_is_off_and_another_can_be_proposed() {
    let mut log = three_left();
    log.extend(when(&given(&log), propose(28, DealMethod::ChipChop, None)).unwrap());
    assert_eq!(code(when(&given(&log), propose(29, DealMethod::Equal, None))), codes::DEAL_ALREADY_PROPOSED);

    let rejected = when(&given(&log), C::RejectDeal { player: player(30) }).unwrap();
    assert_eq!(rejected, vec![PayoutEvent::DealRejected { player: player(30) }]);
    log.extend(rejected);
    assert_eq!(given(&log).deal, None);
    assert_eq!(code(when(&given(&log), accept(29))), codes::NO_DEAL_PROPOSED);
    assert!(when(&given(&log), propose(29, DealMethod::Equal, None)).is_ok());
}

#[test]
fn an_accept_twice_and_the_proposers_own_accept_are_refused_with_no_event() {
    let mut log = three_left();
    log.extend(when(&given(&log), propose(28, DealMethod::Equal, None)).unwrap());
    assert_eq!(code(when(&given(&log), accept(28))), codes::DEAL_ALREADY_ACCEPTED, "proposing is accepting");
    log.extend(when(&given(&log), accept(29)).unwrap());
    assert_eq!(code(when(&given(&log), accept(29))), codes::DEAL_ALREADY_ACCEPTED);
}

#[test]
fn a_proposer_or_an_answer_from_someone_not_remaining_is_refused() {
    let mut log = three_left();
    assert_eq!(code(when(&given(&log), propose(1, DealMethod::Equal, None))), codes::NOT_REMAINING, "entry 1 is out");
    assert_eq!(code(when(&given(&log), propose(42, DealMethod::Equal, None))), codes::NOT_REMAINING, "never in");
    log.extend(when(&given(&log), propose(28, DealMethod::Equal, None)).unwrap());
    assert_eq!(code(when(&given(&log), accept(2))), codes::NOT_REMAINING);
    assert_eq!(code(when(&given(&log), C::RejectDeal { player: player(2) })), codes::NOT_REMAINING);
}

#[test]
fn custom_amounts_must_add_up_to_the_unpaid_prizes_and_name_each_remaining_player_once() {
    let log = three_left();
    let pool = unpaid(&log);
    let custom = |amounts: &[(u32, u64)]| DealMethod::Custom {
        amounts: amounts.iter().map(|&(e, a)| CustomAmount { player: player(e), entry: None, amount: eur(a) }).collect(),
    };
    let third = given(&log).table.unwrap().0.prize(3);
    let state = given(&log);
    assert_eq!(
        code(when(&state, propose(28, custom(&[(28, pool / 2), (29, pool / 4), (30, pool / 4 - 1)]), None))),
        codes::DEAL_AMOUNTS_DO_NOT_SUM
    );
    assert_eq!(code(when(&state, propose(28, custom(&[(28, pool / 2), (29, pool / 2)]), None))), codes::DEAL_AMOUNTS_DO_NOT_MATCH_PLAYERS);
    assert_eq!(
        code(when(&state, propose(28, custom(&[(28, pool / 2), (28, 0), (29, pool / 2)]), None))),
        codes::DEAL_AMOUNTS_DO_NOT_MATCH_PLAYERS
    );
    assert_eq!(
        code(when(&state, propose(28, custom(&[(28, pool - 2 * third + 1), (29, third), (30, third - 1)]), None))),
        codes::DEAL_BELOW_GUARANTEED_PRIZE,
        "third place is paid whatever happens"
    );
    let other_currency = DealMethod::Custom {
        amounts: [(28, pool - 2 * third), (29, third), (30, third)]
            .iter()
            .map(|&(e, a)| CustomAmount { player: player(e), entry: None, amount: Money::new(a, Currency::parse("SEK").unwrap()) })
            .collect(),
    };
    assert_eq!(code(when(&state, propose(28, other_currency, None))), codes::CURRENCY_MISMATCH);

    let fair = when(&state, propose(28, custom(&[(30, third), (28, pool - 2 * third), (29, third)]), None)).unwrap();
    let amounts: Vec<(u32, u64)> = shares(&fair).iter().map(|s| (s.entry.0, s.amount)).collect();
    assert_eq!(amounts, vec![(28, pool - 2 * third), (29, third), (30, third)], "in the order of the remaining entries");
}

#[test]
fn what_is_left_to_play_for_is_at_least_ten_percent_and_at_most_first_less_second() {
    let log = three_left();
    let pool = unpaid(&log);
    let state = given(&log);
    let table = &state.table.as_ref().unwrap().0;
    let max = table.prize(1) - table.prize(2);
    let min = pool.div_ceil(10);
    assert!(min <= max, "this table leaves room: {min}..={max}");
    assert_eq!(code(when(&state, propose(28, DealMethod::Equal, Some(min - 1)))), codes::DEAL_LEFT_TO_PLAY_FOR_OUT_OF_RANGE);
    assert_eq!(code(when(&state, propose(28, DealMethod::Equal, Some(max + 1)))), codes::DEAL_LEFT_TO_PLAY_FOR_OUT_OF_RANGE);
    let proposed = when(&state, propose(28, DealMethod::Equal, Some(min))).unwrap();
    assert_eq!(shares(&proposed).iter().map(|s| s.amount).sum::<u64>() + min, pool);
}

#[test]
fn a_deal_before_the_table_is_locked_or_after_the_tournament_is_paid_is_refused() {
    assert_eq!(code(when(&given(&[]), propose(28, DealMethod::Equal, None))), codes::DEAL_TABLE_NOT_LOCKED);
    let mut log = play_down_to(3, EACH, 2);
    let f = field(3, EACH, None);
    log.extend(
        when(
            &given(&log),
            C::Award {
                field: f,
                players_left_before: 2,
                eliminated: vec![out(2, 1)],
                winner: Some((EntryNo(3), player(3))),
                hand_for_hand: None,
            },
        )
        .unwrap(),
    );
    assert_eq!(code(when(&given(&log), propose(3, DealMethod::Equal, None))), codes::ALREADY_PAID);
}

#[test]
fn an_elimination_while_a_deal_is_discussed_voids_it_and_pays_the_table() {
    let mut log = three_left();
    log.extend(when(&given(&log), propose(28, DealMethod::Equal, None)).unwrap());
    let table = given(&log).table.unwrap().0;
    let f = field(ENTRIES, EACH, None);
    let bust = when(
        &given(&log),
        C::Award { field: f, players_left_before: 3, eliminated: vec![out(30, 1_000)], winner: None, hand_for_hand: None },
    )
    .unwrap();
    assert_eq!(bust[0], PayoutEvent::DealVoided { reason: DealVoidReason::Elimination });
    assert_eq!(awards(&bust)[0].amount, table.prize(3), "third place, as the table pays it");
    log.extend(bust);
    assert_eq!(given(&log).deal, None);
    assert_eq!(code(when(&given(&log), accept(29))), codes::NO_DEAL_PROPOSED);
}

#[test]
fn after_a_deal_each_elimination_pays_the_agreed_amount_and_the_books_close_to_the_cent() {
    let mut log = three_left();
    let pool = unpaid(&log);
    let left = pool.div_ceil(10);
    log.extend(when(&given(&log), propose(29, DealMethod::ChipChop, Some(left))).unwrap());
    let agreed = shares(&log);
    log.extend(when(&given(&log), accept(28)).unwrap());
    log.extend(when(&given(&log), accept(30)).unwrap());

    // The chip leader goes out first, the short stack wins.
    let f = field(ENTRIES, EACH, None);
    log.extend(
        when(
            &given(&log),
            C::Award { field: f.clone(), players_left_before: 3, eliminated: vec![out(28, 3_000)], winner: None, hand_for_hand: None },
        )
        .unwrap(),
    );
    log.extend(
        when(
            &given(&log),
            C::Award {
                field: f,
                players_left_before: 2,
                eliminated: vec![out(29, 2_000)],
                winner: Some((EntryNo(30), player(30))),
                hand_for_hand: None,
            },
        )
        .unwrap(),
    );
    let paid: Vec<(u32, u32, u64)> = awards(&log).iter().filter(|a| a.entry.0 >= 28).map(|a| (a.entry.0, a.place, a.amount)).collect();
    let share = |e: u32| agreed.iter().find(|s| s.entry.0 == e).unwrap().amount;
    assert_eq!(paid, vec![(28, 3, share(28)), (29, 2, share(29)), (30, 1, share(30) + left)]);

    let registration: Vec<TournamentEvent> = (1..=ENTRIES).map(|e| registered(e, EACH, 100)).collect();
    let b = books(TournamentId(uuid::Uuid::nil()), &registration, &[], &log);
    assert!(b.finished && b.balanced, "{b:?}");
    assert_eq!(b.prizes_paid, b.prize_pool);
}

/// A random deal: entries, each one's contribution, how many are left and their chips, the
/// method, what is left to play for (percent of its range), the order they go out in, a seed.
type RandomDeal = (u32, u64, u32, Vec<u64>, u8, Option<u8>, Vec<u32>, u64);

fn a_deal() -> impl Strategy<Value = RandomDeal> {
    (4u32..60, 100u64..5_000, 2u32..7).prop_flat_map(|(entries, each, left)| {
        let left = left.min(entries);
        (
            Just(entries),
            Just(each),
            Just(left),
            proptest::collection::vec(1u64..100_000, left as usize),
            0u8..4,
            proptest::option::of(0u8..=100),
            proptest::collection::vec(0u32..1_000, left as usize),
            any::<u64>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Issue 22: money in = money out to the cent with a deal, whatever the method, the amount
    /// left to play for and the order the remaining players go out in; each is paid its share.
    #[test]
    fn with_any_deal_the_books_balance_to_the_cent((entries, each, left, chips, method, left_pct, order, seed) in a_deal()) {
        let mut log = play_down_to(entries, each, left);
        let state = given(&log);
        let (table, pool) = state.table.clone().unwrap();
        let unpaid = pool.amount - state.prizes_paid;
        let remaining: Vec<Remaining> = (entries - left + 1..=entries)
            .zip(&chips)
            .map(|(e, &c)| Remaining { entry: EntryNo(e), player: player(e), chips: c })
            .collect();
        let room = table.prize(1) - table.prize(2);
        let min = unpaid.div_ceil(10);
        let left_to_play_for = left_pct.filter(|_| min <= room).map(|p| min + (room - min) * u64::from(p) / 100);
        let dealt = unpaid - left_to_play_for.unwrap_or(0);
        let guaranteed = if table.places() >= left { table.prize(left) } else { 0 };
        let method = match method {
            0 => DealMethod::Icm,
            1 => DealMethod::ChipChop,
            2 => DealMethod::Equal,
            _ => {
                // The guarantee each, the rest to one player picked by the seed.
                let lucky = (seed % u64::from(left)) as usize;
                let amounts = remaining.iter().enumerate().map(|(i, r)| {
                    let extra = if i == lucky { dealt - guaranteed * u64::from(left) } else { 0 };
                    CustomAmount { player: r.player.clone(), entry: None, amount: eur(guaranteed + extra) }
                }).collect();
                DealMethod::Custom { amounts }
            }
        };
        let proposal = Proposal { proposer: remaining[0].player.clone(), remaining: remaining.clone(), method, left_to_play_for: left_to_play_for.map(eur), min_left_bps: MIN_LEFT_TO_PLAY_FOR_BPS, ends_tournament: false, bounties: false };
        log.extend(when(&given(&log), C::ProposeDeal(proposal)).unwrap());
        let agreed = shares(&log);
        prop_assert_eq!(agreed.iter().map(|s| s.amount).sum::<u64>() + left_to_play_for.unwrap_or(0), unpaid);
        prop_assert!(agreed.iter().all(|s| s.amount >= guaranteed));
        for r in &remaining[1..] {
            log.extend(when(&given(&log), C::AcceptDeal { player: r.player.clone() }).unwrap());
        }
        prop_assert!(given(&log).deal.is_some_and(|d| d.agreed));

        // They go out in an order the strategy picks; the last one wins.
        let mut still: Vec<u32> = remaining.iter().map(|r| r.entry.0).collect();
        still.sort_by_key(|e| order[(e - (entries - left + 1)) as usize]);
        let f = field(entries, each, None);
        while still.len() > 1 {
            let gone = still.remove(0);
            let winner = (still.len() == 1).then(|| (EntryNo(still[0]), player(still[0])));
            let command = C::Award { field: f.clone(), players_left_before: still.len() as u32 + 1, eliminated: vec![out(gone, 1)], winner, hand_for_hand: None };
            log.extend(when(&given(&log), command).unwrap());
        }
        for a in awards(&log).iter().filter(|a| a.entry.0 > entries - left) {
            let share = agreed.iter().find(|s| s.entry == a.entry).unwrap().amount;
            let expected = if a.place == 1 { share + left_to_play_for.unwrap_or(0) } else { share };
            prop_assert_eq!(a.amount, expected);
        }
        let registration: Vec<TournamentEvent> = (1..=entries).map(|e| registered(e, each, 10)).collect();
        let b = books(TournamentId(uuid::Uuid::nil()), &registration, &[], &log);
        prop_assert!(b.finished && b.balanced, "{:?}", b);
        prop_assert_eq!(b.prizes_paid, b.prize_pool);
    }
}

/// One step of a random deal discussion among entries 28, 29 and 30 (and 1, who is out).
#[derive(Debug, Clone)]
enum Step {
    Propose(u32, u8),
    Accept(u32),
    Reject(u32),
    Bust(u32),
}

fn step() -> impl Strategy<Value = Step> {
    let who = prop_oneof![Just(1u32), Just(28u32), Just(29u32), Just(30u32)];
    prop_oneof![
        (who.clone(), 0u8..4).prop_map(|(w, m)| Step::Propose(w, m)),
        who.clone().prop_map(Step::Accept),
        who.clone().prop_map(Step::Reject),
        who.prop_map(Step::Bust),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any order of proposals, answers and busts (from remaining players and from one who is
    /// out) never panics, and once one player is left every entry is placed once and every
    /// cent of the pool is paid: with a deal agreed, voided, rejected or none.
    #[test]
    fn any_discussion_never_panics_and_the_books_close(steps in proptest::collection::vec(step(), 0..24)) {
        let mut log = three_left();
        let mut still: Vec<u32> = vec![28, 29, 30];
        let f = field(ENTRIES, EACH, None);
        for s in steps {
            if still.len() < 2 {
                break;
            }
            let command = match s {
                Step::Propose(by, m) => {
                    let method = [DealMethod::Icm, DealMethod::ChipChop, DealMethod::Equal, DealMethod::Equal][m as usize].clone();
                    let remaining = remaining().into_iter().filter(|r| still.contains(&r.entry.0)).collect();
                    C::ProposeDeal(Proposal { proposer: player(by), remaining, method, left_to_play_for: None, min_left_bps: MIN_LEFT_TO_PLAY_FOR_BPS, ends_tournament: false, bounties: false })
                }
                Step::Accept(by) => accept(by),
                Step::Reject(by) => C::RejectDeal { player: player(by) },
                Step::Bust(e) if still.contains(&e) => {
                    still.retain(|&x| x != e);
                    let winner = (still.len() == 1).then(|| (EntryNo(still[0]), player(still[0])));
                    C::Award { field: f.clone(), players_left_before: still.len() as u32 + 1, eliminated: vec![out(e, 1)], winner, hand_for_hand: None }
                }
                Step::Bust(_) => continue,
            };
            if let Ok(events) = when(&given(&log), command) {
                log.extend(events);
            }
        }
        while still.len() > 1 {
            let e = still.remove(0);
            let winner = (still.len() == 1).then(|| (EntryNo(still[0]), player(still[0])));
            let command = C::Award { field: f.clone(), players_left_before: still.len() as u32 + 1, eliminated: vec![out(e, 1)], winner, hand_for_hand: None };
            log.extend(when(&given(&log), command).unwrap());
        }
        let registration: Vec<TournamentEvent> = (1..=ENTRIES).map(|e| registered(e, EACH, 100)).collect();
        let b = books(TournamentId(uuid::Uuid::nil()), &registration, &[], &log);
        prop_assert!(b.finished && b.balanced, "{:?}", b);
        prop_assert_eq!(awards(&log).len() as u32, ENTRIES, "every entry placed once");
    }
}

/// 000 §16.8 ("Ein Turnier kann auch durch einen Turnierdeal enden"), 004 §4.35: a deal that
/// ends the tournament keeps nothing to play for (`invalid_field`); agreed, it says so, and the
/// shared finish registration then records (the biggest stack first) pays each its agreed
/// amount in places 1 … 3, every unpaid cent, and the tournament is paid.
#[test]
fn a_deal_that_ends_the_tournament_pays_each_its_amount_at_the_shared_finish() {
    let mut log = three_left();
    let pool = unpaid(&log);
    let ending = |left: Option<u64>| match propose(28, DealMethod::ChipChop, left) {
        C::ProposeDeal(p) => C::ProposeDeal(Proposal { ends_tournament: true, ..p }),
        _ => unreachable!(),
    };
    assert_eq!(code(when(&given(&log), ending(Some(pool / 10)))), codes::INVALID_FIELD);
    // A bounty tournament's deal plays on: the bounties on the heads still in need their knockouts.
    let with_bounties = match ending(None) {
        C::ProposeDeal(p) => C::ProposeDeal(Proposal { bounties: true, ..p }),
        _ => unreachable!(),
    };
    assert_eq!(code(when(&given(&log), with_bounties)), codes::INVALID_FIELD);
    let proposed = when(&given(&log), ending(None)).unwrap();
    assert!(matches!(&proposed[..], [PayoutEvent::DealProposed { ends_tournament: true, .. }]), "{proposed:?}");
    log.extend(proposed);
    log.extend(when(&given(&log), accept(29)).unwrap());
    let agreed = when(&given(&log), accept(30)).unwrap();
    let Some(PayoutEvent::DealAgreed { shares, ends_tournament: true, left_to_play_for: 0 }) = agreed.last().cloned() else {
        panic!("{agreed:?}")
    };
    log.extend(agreed);
    let survivors = [28, 29, 30].map(|e| (EntryNo(e), player(e))).to_vec();
    let paid = when(&given(&log), C::Shared { field: field(ENTRIES, EACH, None), survivors }).unwrap();
    let [PayoutEvent::PlacesAwarded { awards, .. }, PayoutEvent::TournamentPaid { .. }] = &paid[..] else { panic!("{paid:?}") };
    let got: Vec<(u32, u32, u64)> = awards.iter().map(|a| (a.entry.0, a.place, a.amount)).collect();
    let expected: Vec<(u32, u32, u64)> = shares.iter().zip(1..).map(|(s, place)| (s.entry.0, place, s.amount)).collect();
    assert_eq!(got, expected, "places by chips, each the agreed amount");
    assert_eq!(awards.iter().map(|a| a.amount).sum::<u64>(), pool, "every unpaid cent");
}
