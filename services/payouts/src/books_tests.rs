//! The books' tests: the sums, the identities, and the reconciliation (issue 33).

use super::*;
use floor_events::registration::{EntryKind, EntryRegistered, EntryUnregistered};
use floor_events::{EntryNo, Money, PlayerId};
use proptest::prelude::*;

fn line(paid_in: u64, fee: u64) -> EntryLedger {
    let eur = |a| Money::new(a, Currency::EUR);
    EntryLedger { paid_in: eur(paid_in), fee: eur(fee), prize_pool: eur(paid_in.wrapping_sub(fee)) }
}

fn registered(entry: u32, ledger: EntryLedger) -> TournamentEvent {
    TournamentEvent::EntryRegistered(EntryRegistered {
        entry: EntryNo(entry),
        player: PlayerId::parse(&format!("p{entry}")).unwrap(),
        kind: EntryKind::Registration,
        new_player: true,
        ledger,
        at: "2027-01-10T18:00:00Z".parse().unwrap(),
        ticket: None,
    })
}

/// Issue 17, reproduction 2: three entries of `i64::MAX` + `i64::MAX` wrapped `paid_in` to
/// 18446744073709551610 and the books still said balanced. A log like that can no longer be
/// written (definitions are bounded); if one is read, the books say why they do not balance.
#[test]
fn sums_that_would_wrap_never_balance() {
    let huge = 9_223_372_036_854_775_807u64;
    let entry = EntryLedger {
        paid_in: Money::new(huge.wrapping_add(huge), Currency::EUR),
        fee: Money::new(huge, Currency::EUR),
        prize_pool: Money::new(huge, Currency::EUR),
    };
    let log: Vec<TournamentEvent> = (1..=3).map(|n| registered(n, entry)).collect();
    let b = books(TournamentId::new(), &log, [], []);
    assert!(!b.balanced, "{b:?}");
    assert!(b.unbalanced.is_some());
    let b = books(TournamentId::new(), &[registered(1, line(u64::MAX, 0)), registered(2, line(1, 0))], [], []);
    assert!(!b.balanced && b.unbalanced.is_some(), "{b:?}");
    assert_eq!(b.paid_in, u64::MAX, "the line that would wrap is not taken");
}

#[test]
fn a_refund_of_more_than_was_paid_unbalances_the_books() {
    let refund = TournamentEvent::EntryUnregistered(EntryUnregistered {
        entry: EntryNo(1),
        player: PlayerId::parse("p1").unwrap(),
        refund: line(5_000, 500),
        by_operator: false,
        player_left: true,
        at: "2027-01-10T18:00:00Z".parse().unwrap(),
    });
    let b = books(TournamentId::new(), &[registered(1, line(1_100, 100)), refund], [], []);
    assert!(!b.balanced && b.unbalanced.is_some(), "{b:?}");
    let b = books(TournamentId::new(), &[registered(1, line(1_100, 100))], [], []);
    assert!(b.balanced && b.unbalanced.is_none(), "{b:?}");
}

/// Issue 21: a progressive knockout's books. Three entries of 10.00 + 1.00 at a 50 % bounty
/// share: 15.00 to the prize pool, 15.00 to the bounty pool; a rebuy adds 5.00 to each;
/// an add-on only to the prize pool.
#[test]
fn a_bounty_tournaments_prize_pool_leaves_out_the_bounty_parts_and_the_bounty_pool_is_paid_out_to_the_cent() {
    use floor_events::bounties::{BountyEvent, PaidInBy};
    use floor_events::registration::TournamentCreated;
    let t = TournamentId::new();
    let definition = serde_json::from_str(
        r#"{"name": "PKO", "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
            "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
            "capacity": 100, "min_players": 2, "entry_model": {"kind": "freezeout"}, "profile": "tda-2024",
            "bounty": {"kind": "progressive", "share_bps": 5001}}"#,
    )
    .unwrap();
    let created =
        TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition, at: "2027-01-01T00:00:00Z".parse().unwrap() });
    let mut sums = Sums::default();
    sums.apply_registration(&created);
    (1..=3).for_each(|e| sums.apply_registration(&registered(e, line(1_100, 100))));
    sums.apply_purchase(&crate::domain_tests::bought(1, false, 1_000, 100));
    sums.apply_purchase(&crate::domain_tests::bought(2, true, 1_000, 0));
    let b = sums.books(t);
    // 50.01 % of 10.00 is 5.001: 5.00 to the bounty pool, the cent's tenth stays in the prize pool.
    assert_eq!((b.paid_in, b.fees, b.bounty_pool, b.contributions), (5_400, 400, 2_000, 3_000), "{b:?}");
    assert!(b.balanced, "paid in = fees + prize pool + bounty pool: {b:?}");

    let eur = |a| Money::new(a, Currency::EUR);
    let p = |e: u32| PlayerId::parse(&format!("p{e}")).unwrap();
    for (entry, amount, by) in
        [(1, 500, PaidInBy::Entry), (2, 500, PaidInBy::Entry), (3, 500, PaidInBy::Entry), (1, 500, PaidInBy::Rebuy { number: 1 })]
    {
        sums.apply_bounty(&BountyEvent::BountyPaidIn { entry: EntryNo(entry), player: p(entry), by, amount: eur(amount) });
    }
    let paid = BountyEvent::BountyPaid {
        to: EntryNo(1),
        player: p(1),
        eliminated: EntryNo(3),
        eliminated_player: p(3),
        cash: eur(250),
        added_to_own: eur(250),
    };
    sums.apply_bounty(&paid);
    assert_eq!((sums.books(t).bounties_paid, sums.books(t).bounties_settled), (250, false));
    let mut short = sums.clone();
    sums.apply_bounty(&BountyEvent::WinnerBounty { entry: EntryNo(1), player: p(1), own: eur(1_250), left_over: eur(500) });
    let b = sums.books(t);
    assert!(b.balanced && b.bounties_settled && b.bounties_paid == 2_000, "{b:?}");
    short.apply_bounty(&BountyEvent::WinnerBounty { entry: EntryNo(1), player: p(1), own: eur(1_250), left_over: eur(499) });
    let b = short.books(t);
    assert!(!b.balanced && b.unbalanced.is_some(), "a cent short at the end: {b:?}");
}

fn cancelled_before_start(refunds: Vec<(u32, EntryLedger)>) -> TournamentEvent {
    use floor_events::registration::{CancellationReason, Refund, TournamentCancelled};
    TournamentEvent::TournamentCancelled(TournamentCancelled {
        reason: CancellationReason::Director { reason: "storm".into() },
        refunds: refunds
            .into_iter()
            .map(|(e, refund)| Refund { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap(), refund })
            .collect(),
        at: "2027-01-10T18:00:00Z".parse().unwrap(),
    })
}

fn created() -> (TournamentId, Sums) {
    let t = TournamentId::new();
    let mut sums = Sums::default();
    sums.apply_registration(&TournamentEvent::TournamentCreated(floor_events::registration::TournamentCreated {
        tournament_id: t,
        definition: serde_json::from_str(
            r#"{"name": "R", "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
                "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
                "capacity": 100, "min_players": 2, "entry_model": {"kind": "freezeout"}, "profile": "tda-2024"}"#,
        )
        .unwrap(),
        at: "2027-01-01T00:00:00Z".parse().unwrap(),
    }));
    (t, sums)
}

/// Issue 33, defect 5: a `tournament_cancelled` with an empty refund list, published into the
/// log, left 33.00 paid in, nothing refunded, and `balanced: true`. The reconciliation counts
/// what was paid in against what went out: the players' money is still held after the end.
#[test]
fn a_cancellation_before_the_start_that_refunds_nobody_does_not_reconcile() {
    let (t, mut sums) = created();
    (1..=3).for_each(|e| sums.apply_registration(&registered(e, line(1_100, 100))));
    let mut forged = sums.clone();
    forged.apply_registration(&cancelled_before_start(vec![]));
    let b = forged.books(t);
    assert!(!b.balanced, "{b:?}");
    let why = b.unbalanced.unwrap();
    assert!(why.contains("3000") && why.contains("3 entries without a refund"), "{why}");
    assert_eq!(b.held, 3_000, "the fees are kept, the rest is held");

    sums.apply_registration(&cancelled_before_start((1..=3).map(|e| (e, line(1_100, 100))).collect()));
    let b = sums.books(t);
    assert!(b.balanced && b.held == 0 && b.refunded == 3_300 && b.paid_in == 0, "every cent back: {b:?}");
}

/// Defect 2 as the books see it: an add-on sold after a cancellation in play is money in
/// that nothing pays out, and is named.
#[test]
fn a_purchase_after_a_cancellation_in_play_is_named_and_does_not_reconcile() {
    let (t, mut sums) = created();
    (1..=3).for_each(|e| sums.apply_registration(&registered(e, line(1_100, 100))));
    // Tda-2024, everything back but the fees: 3 × 10.00 in statements, 3.00 kept.
    let claimed = floor_events::abort::statement::Books {
        paid_in: 3_300,
        fees: 300,
        contributions: 3_000,
        fees_kept: 300,
        refunds: 3_000,
        statements: 3_000,
        ..Default::default()
    };
    sums.cancelled_in_play(&claimed);
    let b = sums.books(t);
    assert!(b.balanced && b.held == 0 && b.statements == 3_000, "{b:?}");

    let mut short = created().1;
    (1..=3).for_each(|e| short.apply_registration(&registered(e, line(1_100, 100))));
    short.cancelled_in_play(&floor_events::abort::statement::Books { statements: 2_999, refunds: 2_999, ..claimed });
    let b = short.books(t);
    assert!(!b.balanced && b.unbalanced.as_deref().unwrap().contains("1 paid in"), "a cent short: {b:?}");

    sums.apply_purchase(&crate::domain_tests::bought(1, true, 1_000, 0));
    let b = sums.books(t);
    assert!(!b.balanced, "{b:?}");
    assert!(b.unbalanced.as_deref().unwrap().contains("add-on of 10.00 EUR after the cancellation"), "{b:?}");
}

/// A tournament paid to the end holds nothing; a prize award it never paid leaves money
/// held, and more paid out than came in is short.
#[test]
fn paid_out_more_than_paid_in_is_short() {
    let (t, mut sums) = created();
    (1..=2).for_each(|e| sums.apply_registration(&registered(e, line(1_100, 100))));
    let award = |amount| PayoutEvent::PlacesAwarded {
        players_left_before: 2,
        awards: vec![floor_events::payouts::PlaceAward {
            entry: EntryNo(1),
            player: PlayerId::parse("p1").unwrap(),
            place: 1,
            shared: 1,
            amount,
        }],
        hand_for_hand: None,
    };
    let mut over = sums.clone();
    over.apply_payout(&award(2_001));
    let b = over.books(t);
    assert!(!b.balanced && b.unbalanced.as_deref().unwrap().contains("1 short"), "{b:?}");
    sums.apply_payout(&award(2_000));
    sums.apply_payout(&PayoutEvent::TournamentPaid { prizes_paid: Money::new(2_000, Currency::EUR) });
    let b = sums.books(t);
    assert!(b.balanced && b.held == 0, "{b:?}");
}

/// How a random tournament ends.
#[derive(Debug, Clone, Copy)]
enum Ending {
    Paid,
    CancelledBeforeStart,
    CancelledInPlay,
}

/// How the log is damaged, if at all.
#[derive(Debug, Clone, Copy)]
enum Damage {
    None,
    /// One cent fewer goes out than should.
    CentShort,
    /// A rebuy is sold after the end.
    PurchaseAfterTheEnd,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Issue 33: over random tournaments (entries at any price, withdrawals, rebuys and
    /// add-ons, ended by payment, a cancellation before the start or one in play), the books
    /// reconcile to the cent exactly when every cent paid in went out; one cent short, or a
    /// purchase after the end, never reconciles.
    #[test]
    fn the_books_reconcile_exactly_when_every_cent_in_went_out(
        entries in prop::collection::vec((1u64..100_000, 0u64..10_000), 1..30),
        withdrawn in prop::collection::vec(any::<bool>(), 30),
        purchases in prop::collection::vec((any::<bool>(), 1u64..50_000, 0u64..5_000), 0..20),
        ending in prop_oneof![Just(Ending::Paid), Just(Ending::CancelledBeforeStart), Just(Ending::CancelledInPlay)],
        damage in prop_oneof![Just(Damage::None), Just(Damage::CentShort), Just(Damage::PurchaseAfterTheEnd)],
    ) {
        let (t, mut sums) = created();
        let lines: Vec<EntryLedger> = entries.iter().map(|&(pool, fee)| line(pool + fee, fee)).collect();
        let mut live = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let e = i as u32 + 1;
            sums.apply_registration(&registered(e, *l));
            live.push((e, *l));
        }
        for (i, (e, l)) in live.clone().into_iter().enumerate() {
            if withdrawn[i] && i > 0 {
                sums.apply_registration(&TournamentEvent::EntryUnregistered(floor_events::registration::EntryUnregistered {
                    entry: EntryNo(e),
                    player: PlayerId::parse(&format!("p{e}")).unwrap(),
                    refund: l,
                    by_operator: false,
                    player_left: true,
                    at: "2027-01-10T17:00:00Z".parse().unwrap(),
                }));
                live.retain(|(x, _)| *x != e);
            }
        }
        let in_play = !matches!(ending, Ending::CancelledBeforeStart);
        if in_play {
            for &(add_on, price, fee) in &purchases {
                sums.apply_purchase(&crate::domain_tests::bought(1, add_on, price, fee));
            }
        }
        let cent = u64::from(matches!(damage, Damage::CentShort));
        let before = sums.books(t);
        let held = before.paid_in - before.fees;
        match ending {
            Ending::Paid => {
                let award = PayoutEvent::PlacesAwarded {
                    players_left_before: 1,
                    awards: vec![floor_events::payouts::PlaceAward {
                        entry: EntryNo(1), player: PlayerId::parse("p1").unwrap(), place: 1, shared: 1, amount: held - cent,
                    }],
                    hand_for_hand: None,
                };
                sums.apply_payout(&award);
                sums.apply_payout(&PayoutEvent::TournamentPaid { prizes_paid: Money::new(held - cent, Currency::EUR) });
            }
            Ending::CancelledBeforeStart => {
                let mut refunds = live.clone();
                if cent == 1 {
                    refunds[0].1.paid_in = Money::new(refunds[0].1.paid_in.amount - 1, Currency::EUR);
                    refunds[0].1.prize_pool = Money::new(refunds[0].1.prize_pool.amount - 1, Currency::EUR);
                }
                sums.apply_registration(&cancelled_before_start(refunds));
            }
            Ending::CancelledInPlay => sums.cancelled_in_play(&floor_events::abort::statement::Books {
                paid_in: before.paid_in,
                fees: before.fees,
                contributions: before.contributions,
                fees_kept: before.fees,
                refunds: held - cent,
                statements: held - cent,
                ..Default::default()
            }),
        }
        if matches!(damage, Damage::PurchaseAfterTheEnd) {
            sums.apply_purchase(&crate::domain_tests::bought(1, false, 1_000, 100));
        }
        let b = sums.books(t);
        match damage {
            Damage::None => prop_assert!(b.balanced && b.held == 0, "{:?}", b),
            _ => prop_assert!(!b.balanced && b.unbalanced.is_some(), "{:?}", b),
        }
    }
}

/// Issue 36 (004 §4.36.11): a Day 1's pool paid over to its Day 2 is money out of the Day 1 (it
/// is then over: nothing held) and money in to the Day 2, inside its prize pool; the Day 2 paying
/// that pool out holds nothing either. Both books balance.
#[test]
fn a_day1_pool_transferred_balances_both_books() {
    use floor_events::flights::{Carry, FlightTerms, PoolTransferred};
    use floor_events::payouts::PlaceAward;
    use floor_events::registration::TournamentCreated;
    use floor_events::tournament::TournamentDefinition;
    let (day1, day2) = (TournamentId::new(), TournamentId::new());
    let eur = |a| Money::new(a, Currency::EUR);
    let created = |t, flight| {
        TournamentEvent::TournamentCreated(TournamentCreated {
            tournament_id: t,
            definition: TournamentDefinition { flight, ..TournamentDefinition::example() },
            at: "2027-01-10T18:00:00Z".parse().unwrap(),
        })
    };
    let terms = FlightTerms { day2, survivors_share_bps: 5_000, carry: Carry::BestStack, one_day1_at_a_time: false };
    let transfer = PayoutEvent::PoolTransferred(PoolTransferred { day1, day2, amount: eur(2_000) });
    let day1_log = [created(day1, Some(terms)), registered(1, line(1_100, 100)), registered(2, line(1_100, 100))];
    let before = books(day1, &day1_log, [], []);
    assert_eq!((before.held, before.balanced), (2_200 - 200, true), "held until it stops: {before:?}");
    let b = books(day1, &day1_log, [], [&transfer]);
    assert!(b.balanced, "{b:?}");
    assert_eq!((b.transferred_out, b.held, b.prizes_paid), (2_000, 0, 0), "{b:?}");
    // The Day 2: no entry bought; the pool comes in and is paid out.
    let award = PlaceAward { entry: EntryNo(1), player: PlayerId::parse("p1").unwrap(), place: 1, shared: 1, amount: 2_000 };
    let paid = [
        transfer.clone(),
        PayoutEvent::PlacesAwarded { players_left_before: 1, awards: vec![award], hand_for_hand: None },
        PayoutEvent::TournamentPaid { prizes_paid: eur(2_000) },
    ];
    let b = books(day2, &[created(day2, None)], [], &paid);
    assert!(b.balanced && b.finished, "{b:?}");
    assert_eq!((b.transferred_in, b.prize_pool, b.prizes_paid, b.held, b.paid_in), (2_000, 2_000, 2_000, 0, 0), "{b:?}");
    // A Day 1 that paid a prize besides its transfer does not balance.
    let award = PlaceAward { entry: EntryNo(1), player: PlayerId::parse("p1").unwrap(), place: 1, shared: 1, amount: 1 };
    let wrong = [transfer, PayoutEvent::PlacesAwarded { players_left_before: 2, awards: vec![award], hand_for_hand: None }];
    assert!(!books(day1, &day1_log, [], &wrong).balanced);
}
