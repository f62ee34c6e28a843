//! The abort decider case by case, and the cancellation rules by property: for random
//! tournament states and every profile, the statements sum exactly to the money distributed,
//! nobody's line is negative or empty, and entries in the money never get less than the prize
//! their place already guaranteed. Plus the snapshot's refusals and the 250,000-entry run.

use crate::cancellation::cancel;
use crate::domain::{AbortAggregate, AbortCommand as C, AbortEvent as E, AbortState, Stage, SuspendReason};
use crate::error::codes;
use crate::rules::fixtures::*;
use crate::snapshot::{prize, AgreedDeal, Bounty, DealPart, Entry, Format, Snapshot, Standing, Tables, Tally};
use crate::statement::{Case, LineKind, Method, Pot};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::payouts::PrizeBand;
use floor_events::{EntryNo, RuleProfile};
use floor_rules::payout_table::generate;
use floor_runtime::spec::given;
use proptest::prelude::*;

fn t0() -> DateTime<Utc> {
    "2027-03-14T20:00:00Z".parse().unwrap()
}

fn secs(s: i64) -> DateTime<Utc> {
    t0() + Duration::seconds(s)
}

fn director(reason: &str) -> SuspendReason {
    SuspendReason::Director { reason: reason.into() }
}

fn cancel_cmd(at: DateTime<Utc>) -> C {
    C::Cancel {
        reason: "the table servers are down".into(),
        cause: None,
        profile: RuleProfile::SvenskaSpel2012,
        method: Method::Rulebook,
        snapshot: Box::new(field_of_10(MULTI, &[7_000, 3_000])),
        at,
        stored: None,
        stage: Stage::InPlay,
    }
}

fn suspended(at: DateTime<Utc>) -> E {
    E::Suspended { reason: director("tables silent"), at }
}

// ---------------------------------------------------------------------------------------------
// The decider.

#[test]
fn a_director_suspends_and_resumes() {
    given::<AbortAggregate>(vec![])
        .when(C::Suspend { reason: director("servers restarting"), at: secs(0) })
        .then(vec![E::Suspended { reason: director("servers restarting"), at: secs(0) }]);
    given::<AbortAggregate>(vec![suspended(secs(0))])
        .when(C::Resume { at: secs(90) })
        .then(vec![E::Resumed { suspended_at: secs(0), at: secs(90) }]);
}

#[test]
fn floor_suspends_when_tables_fall_silent() {
    let reason = SuspendReason::TablesSilent { silent: 12, tables: 40, seconds: 60 };
    given::<AbortAggregate>(vec![])
        .when(C::Suspend { reason: reason.clone(), at: secs(0) })
        .then(vec![E::Suspended { reason, at: secs(0) }]);
    let impossible = SuspendReason::TablesSilent { silent: 41, tables: 40, seconds: 60 };
    given::<AbortAggregate>(vec![]).when(C::Suspend { reason: impossible, at: secs(0) }).then_reject(floor_events::codes::INVALID_FIELD);
}

#[test]
fn suspend_twice_resume_unsuspended_and_resume_in_the_past_are_refused() {
    given::<AbortAggregate>(vec![suspended(secs(0))])
        .when(C::Suspend { reason: director("again"), at: secs(5) })
        .then_reject(codes::ALREADY_SUSPENDED);
    given::<AbortAggregate>(vec![]).when(C::Resume { at: secs(5) }).then_reject(codes::NOT_SUSPENDED);
    given::<AbortAggregate>(vec![suspended(secs(10))]).when(C::Resume { at: secs(5) }).then_reject(codes::BEFORE_SUSPENSION);
    given::<AbortAggregate>(vec![])
        .when(C::Suspend { reason: director("  "), at: secs(0) })
        .then_reject(floor_events::codes::REASON_REQUIRED);
}

#[test]
fn a_suspended_tournament_is_cancelled_with_every_statement_pinned() {
    let events = given::<AbortAggregate>(vec![suspended(secs(0))]).when(cancel_cmd(secs(600))).accepted();
    let [E::Cancelled { cancellation, snapshot, at, .. }] = events.as_slice() else { panic!("{events:?}") };
    assert_eq!(*at, secs(600));
    assert_eq!(cancellation.statements.len(), 2);
    assert_eq!(snapshot.entries[0].chips(), Some(7_000), "the chips used are in the event");
    assert!(cancellation.books.balanced());
    let state = events.into_iter().fold(AbortState::default(), AbortAggregate::apply_event);
    assert_eq!(state, AbortState::Cancelled { at: secs(600) });
}

#[test]
fn cancel_twice_and_anything_after_a_cancel_is_refused() {
    let cancelled = given::<AbortAggregate>(vec![]).when(cancel_cmd(secs(0))).accepted();
    given::<AbortAggregate>(cancelled.clone()).when(cancel_cmd(secs(1))).then_reject(floor_events::codes::TOURNAMENT_CANCELLED);
    given::<AbortAggregate>(cancelled.clone()).when(C::Resume { at: secs(1) }).then_reject(floor_events::codes::TOURNAMENT_CANCELLED);
    given::<AbortAggregate>(cancelled)
        .when(C::Suspend { reason: director("x"), at: secs(1) })
        .then_reject(floor_events::codes::TOURNAMENT_CANCELLED);
}

#[test]
fn a_cancel_without_a_reason_or_with_a_method_the_profile_lacks_records_nothing() {
    let C::Cancel { snapshot, profile, .. } = cancel_cmd(secs(0)) else { unreachable!() };
    let blank = C::Cancel {
        reason: " ".into(),
        cause: None,
        profile,
        method: Method::Rulebook,
        snapshot: snapshot.clone(),
        at: secs(0),
        stored: None,
        stage: Stage::InPlay,
    };
    given::<AbortAggregate>(vec![]).when(blank).then_reject(floor_events::codes::REASON_REQUIRED);
    let rollback = C::Cancel {
        reason: "down".into(),
        cause: None,
        profile,
        method: Method::Rollback,
        snapshot: snapshot.clone(),
        at: secs(0),
        stored: None,
        stage: Stage::InPlay,
    };
    given::<AbortAggregate>(vec![]).when(rollback).then_reject(codes::METHOD_NOT_OFFERED);
    given::<AbortAggregate>(vec![suspended(secs(10))]).when(cancel_cmd(secs(5))).then_reject(codes::BEFORE_SUSPENSION);
}

/// 001 Art. 15 and Art. 21: under hrvatska-lutrija-2017 a cancellation records whose fault it
/// is, or is refused; the refund is the same, and under force majeure the cancellation says it
/// was the operator's decision (Art. 21), not an obligation.
#[test]
fn hrvatska_lutrija_needs_the_cause_and_records_it() {
    let under = |cause| {
        let C::Cancel { snapshot, .. } = cancel_cmd(secs(0)) else { unreachable!() };
        let reason = "the data centre flooded".to_owned();
        let (profile, method, at, stored) = (RuleProfile::HrvatskaLutrija2017, Method::Rulebook, secs(0), None);
        C::Cancel { reason, cause, profile, method, snapshot, at, stored, stage: Stage::InPlay }
    };
    given::<AbortAggregate>(vec![]).when(under(None)).then_reject(floor_events::codes::CAUSE_REQUIRED);
    let decided = |cause| match given::<AbortAggregate>(vec![]).when(under(Some(cause))).accepted().as_slice() {
        [E::Cancelled { cancellation, cause: recorded, .. }] => (cancellation.case, cancellation.decided_under, *recorded),
        other => panic!("{other:?}"),
    };
    use crate::domain::CancelCause::{ForceMajeure, OperatorFault};
    use crate::statement::Rule;
    assert_eq!(decided(OperatorFault), (Case::HrvatskaLutrijaRefund, None, Some(OperatorFault)));
    assert_eq!(decided(ForceMajeure), (Case::HrvatskaLutrijaRefund, Some(Rule::HrvatskaLutrijaArt21), Some(ForceMajeure)));
    // Under another profile the cause is recorded and changes nothing.
    let C::Cancel { snapshot, profile, method, at, stored, reason, .. } = cancel_cmd(secs(0)) else { unreachable!() };
    let with = C::Cancel { reason, cause: Some(ForceMajeure), profile, method, snapshot, at, stored, stage: Stage::InPlay };
    let events = given::<AbortAggregate>(vec![]).when(with).accepted();
    assert!(matches!(events.as_slice(), [E::Cancelled { cause: Some(ForceMajeure), .. }]));
}

#[test]
fn the_cancelled_event_reads_back_as_written() {
    let events = given::<AbortAggregate>(vec![]).when(cancel_cmd(secs(0))).accepted();
    let json = serde_json::to_string(&events).unwrap();
    assert!(json.contains(r#""rule":"svenska-spel-2012 §2.8""#), "lines cite their rule: {json:.300}");
    let back: Vec<E> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, events);
}

// ---------------------------------------------------------------------------------------------
// The snapshot's refusals.

#[test]
fn impossible_snapshots_are_refused_with_their_codes() {
    let ok = field_of_10(MULTI, &[7_000, 3_000]);
    let code = |s: &Snapshot| Tally::of(s).map(|_| ()).unwrap_err().code();
    let mut s = ok.clone();
    s.entries.retain(|e| e.chips().is_none());
    assert_eq!(code(&s), codes::NOBODY_REMAINING);
    let mut s = ok.clone();
    s.entries[1].entry = EntryNo(1);
    assert_eq!(code(&s), codes::DUPLICATE_ENTRY);
    let mut s = ok.clone();
    s.entries[0].buy_in.ledger.paid_in = eur(1);
    assert_eq!(code(&s), codes::LEDGER_DOES_NOT_ADD_UP);
    let mut s = ok.clone();
    s.entries[0].buy_in.ledger.fee = floor_events::Money::new(1_000, floor_events::Currency::parse("SEK").unwrap());
    assert_eq!(code(&s), floor_events::codes::CURRENCY_MISMATCH);
    let mut s = ok.clone();
    s.entries[0].bounty = Bounty { head: 1, collected: 0 };
    assert_eq!(code(&s), codes::BOUNTIES_DO_NOT_ADD_UP);
    let mut s = ok.clone();
    s.prizes = prizes(&[100, 200]);
    assert_eq!(code(&s), codes::INVALID_PRIZE_TABLE);
    let mut s = ok.clone();
    s.prizes = vec![PrizeBand { from: 2, to: 3, amount: 5 }];
    assert_eq!(code(&s), codes::INVALID_PRIZE_TABLE);
    let mut s = ok.clone();
    s.entries[5].standing = Standing::Eliminated { place: 2, prize: 0 };
    assert_eq!(code(&s), codes::INVALID_PLACE);
    let mut s = ok.clone();
    s.entries[0].buy_in = paid(1 << 53, 0, 0);
    assert_eq!(code(&s), floor_events::codes::AMOUNT_TOO_LARGE);
    let mut s = ok;
    s.entries[0].standing = Standing::Remaining { chips: u64::MAX };
    assert_eq!(code(&s), floor_events::codes::CHIPS_TOO_LARGE);
}

// ---------------------------------------------------------------------------------------------
// Properties over random tournaments.

/// One random entry: still in?, chips, rebuys, add-on, who collected its bounty (if out: an
/// index among those still in, or nobody), knockout or progressive, a re-entry of the player
/// before it.
type RawEntry = (bool, u64, u32, bool, u16, u8, bool);

fn raw_entry() -> impl Strategy<Value = RawEntry> {
    (any::<bool>(), prop_oneof![Just(0u64), 1u64..5_000_000], 0u32..3, any::<bool>(), any::<u16>(), 0u8..3, prop::bool::weighted(0.2))
}

prop_compose! {
    fn tournament()(
        raw in prop::collection::vec(raw_entry(), 2..40),
        price in (0u64..60_000, 0u64..6_000, prop_oneof![Just(0u64), 1_000u64..=10_000]),
        table in (0u32..=100, any::<bool>(), prop::collection::vec(1u64..200_000, 40)),
        guarantee in proptest::option::of(0u64..4_000_000),
        buying_open in any::<bool>(),
        format in (any::<bool>(), any::<bool>(), prop::bool::weighted(0.1)),
        deal in (prop::bool::weighted(0.3), prop::collection::vec(0u64..1_000, 40), 0u64..=20),
        flight in proptest::option::of((1u64..3_000_000, prop::collection::vec(prop_oneof![Just(0u64), 1u64..400_000], 40))),
    ) -> Snapshot {
        let (prize_pool, fee, bounty_bps) = price;
        let purchase = || paid(prize_pool, fee, prize_pool * bounty_bps / 10_000);
        let mut entries: Vec<Entry> = Vec::new();
        for (i, &(still, chips, rebuys, add_on, _, _, re_entry)) in raw.iter().enumerate() {
            let no = i as u32 + 1;
            let mut e = still_in(no, purchase(), chips);
            if re_entry && i > 0 {
                e.player = entries[i - 1].player.clone();
            }
            e.rebuys = vec![purchase(); rebuys as usize];
            e.add_ons = if add_on { vec![paid(prize_pool, 0, 0)] } else { vec![] };
            e.bounty.head = e.purchases().map(|p| p.bounty).sum();
            if !still && i > 0 {
                e.standing = Standing::Eliminated { place: 0, prize: 0 };
            }
            entries.push(e);
        }
        let n = entries.len() as u32;
        let left: Vec<usize> = (0..entries.len()).filter(|&i| entries[i].chips().is_some()).collect();
        // Places: the last entries out finished best.
        let mut place = n;
        let contributions: u64 = entries.iter().flat_map(|e| e.purchases()).map(|p| p.pool_part()).sum();
        let (share, generated, flat) = table;
        let places = n * share / 100;
        let mut amounts: Vec<u64> = flat[..places as usize].to_vec();
        amounts.sort_unstable_by(|a, b| b.cmp(a));
        let mut bands = prizes(&amounts);
        if generated {
            let pool = guarantee.map_or(contributions, |g| g.max(contributions));
            if let Ok(t) = generate(pool, places, 0) {
                bands = t.bands.iter().map(|b| PrizeBand { from: b.from, to: b.to, amount: b.amount }).collect();
            }
        }
        let bands_table = floor_rules::PayoutTable { bands: bands.iter().map(|b| floor_rules::Band { from: b.from, to: b.to, amount: b.amount }).collect() };
        for i in 0..entries.len() {
            if entries[i].chips().is_some() {
                continue;
            }
            let (_, _, _, _, pick, kind, _) = raw[i];
            entries[i].standing = Standing::Eliminated { place, prize: prize(&bands_table, place) };
            let bounty = std::mem::take(&mut entries[i].bounty.head);
            // Its bounty: collected by one still in (knockout: all in cash; progressive: half
            // in cash, half onto the collector's head), or unclaimed.
            if kind > 0 {
                let collector = left[pick as usize % left.len()];
                let cash = if kind == 1 { bounty } else { bounty / 2 };
                entries[collector].bounty.collected += cash;
                entries[collector].bounty.head += bounty - cash;
            }
            place -= 1;
        }
        let tables = if format.0 { Tables::Single } else { Tables::Multi };
        // In the money, sometimes a deal: the open pool less up to 20 % left to play for,
        // split by random weights (the remainder to the first entry still in).
        let (dealing, weights, kept_pct) = deal;
        let deal = (dealing && left.len() as u32 <= places).then(|| {
            let pool = match guarantee { Some(g) if !buying_open => g.max(contributions), _ => contributions };
            let prizes_paid: u64 = entries.iter().map(|e| match e.standing { Standing::Eliminated { prize, .. } => prize, _ => 0 }).sum();
            let open = pool.saturating_sub(prizes_paid);
            let left_to_play_for = open * kept_pct / 100;
            let weights = &weights[..left.len()];
            let of: u64 = weights.iter().sum::<u64>().max(1);
            let dealt = open - left_to_play_for;
            let mut parts: Vec<DealPart> =
                left.iter().zip(weights).map(|(&i, &w)| DealPart { entry: entries[i].entry, amount: dealt * w / of }).collect();
            parts[0].amount += dealt - parts.iter().map(|p| p.amount).sum::<u64>();
            AgreedDeal { parts, left_to_play_for }
        });
        // A flight's Day 2 (issue 36): the Day 1s' pools paid in, and the stacks entries brought
        // (some bought here, with none).
        let transferred_in = match flight {
            Some((pools, carried)) => {
                for (e, chips) in entries.iter_mut().zip(carried) {
                    e.carried_chips = chips;
                }
                entries[0].carried_chips = entries[0].carried_chips.max(1);
                pools
            }
            None => 0,
        };
        Snapshot {
            currency: floor_events::Currency::EUR,
            format: Format { tables, sit_and_go: format.1, twister: format.2 },
            entries,
            prizes: bands,
            guarantee,
            buying_open,
            deal,
            transferred_in,
        }
    }
}

/// Methods a profile offers for this snapshot, besides ICM.
fn offered(profile: RuleProfile, s: &Snapshot) -> Vec<Method> {
    let single = s.format.tables == Tables::Single && !s.format.twister;
    match profile {
        RuleProfile::Tda2024 | RuleProfile::ReelCz => vec![Method::Rulebook, Method::Rollback, Method::RollForward, Method::Icm],
        RuleProfile::Win2day if !single => vec![Method::Rulebook, Method::Rollback, Method::RollForward],
        RuleProfile::HrvatskaLutrija2017 => vec![Method::Rulebook, Method::Rollback],
        _ => vec![Method::Rulebook],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn statements_balance_to_the_cent_and_never_leave_an_entry_in_the_money_below_its_place_prize_or_agreed_amount(s in tournament()) {
        // Figures recomputed here, independently of the crate.
        let paid_in: u64 = s.entries.iter().flat_map(|e| e.purchases()).map(|p| p.ledger.paid_in.amount).sum();
        let contributions: u64 = s.entries.iter().flat_map(|e| e.purchases()).map(|p| p.pool_part()).sum();
        let bounty_in: u64 = s.entries.iter().flat_map(|e| e.purchases()).map(|p| p.bounty).sum();
        let bounties_paid: u64 = s.entries.iter().map(|e| e.bounty.collected).sum();
        let prizes_paid: u64 = s.entries.iter().map(|e| match e.standing { Standing::Eliminated { prize, .. } => prize, _ => 0 }).sum();
        let left = s.entries.iter().filter(|e| e.chips().is_some()).count() as u32;
        let places = s.prizes.last().map_or(0, |b| b.to);
        let place_prize = s.prizes.iter().find(|b| (b.from..=b.to).contains(&left)).map_or(0, |b| b.amount);
        // A Day 2's pool holds its Day 1s' pools too.
        let collected = contributions + s.transferred_in;
        let pool = match s.guarantee { Some(g) if !s.buying_open => g.max(collected), _ => collected };
        for profile in RuleProfile::ALL {
            for method in [Method::Rulebook, Method::Rollback, Method::RollForward, Method::Icm] {
                let result = cancel(&s, profile, method);
                if !offered(profile, &s).contains(&method) {
                    let code = result.unwrap_err().code();
                    prop_assert!(code == codes::METHOD_NOT_OFFERED || code == codes::NOT_YET_AVAILABLE, "{profile:?} {method:?}: {code}");
                    continue;
                }
                let c = result.map_err(|e| TestCaseError::fail(format!("{profile:?} {method:?}: {e}")))?;
                let b = c.books;
                prop_assert!(b.balanced(), "{profile:?} {method:?}: {b:?}");
                prop_assert_eq!((b.paid_in, b.prizes_already_paid, b.bounties_already_paid), (paid_in, prizes_paid, bounties_paid));
                prop_assert_eq!(b.transferred_in, s.transferred_in);
                let mut sums = [0u64; 3];
                let mut by_entry: std::collections::BTreeMap<EntryNo, u64> = Default::default();
                for st in &c.statements {
                    prop_assert_eq!(st.total, st.lines.iter().map(|l| l.amount).sum::<u64>());
                    for l in &st.lines {
                        prop_assert!(l.amount > 0, "an empty line");
                        let entry = s.entries.iter().find(|e| e.entry == l.entry).unwrap();
                        prop_assert_eq!(&entry.player, &st.player, "a line on another player's statement");
                        sums[match l.kind.pot() { Pot::Fees => 0, Pot::PrizePool => 1, Pot::Bounties => 2 }] += l.amount;
                        if l.kind.pot() != Pot::Bounties {
                            *by_entry.entry(l.entry).or_default() += l.amount;
                        }
                    }
                }
                prop_assert_eq!(sums.iter().sum::<u64>(), b.statements, "statements sum to the money distributed");
                let refund_all = c.case.refunds_everything();
                if refund_all {
                    prop_assert!(sums[1] >= collected, "every prize-pool part back, and the Day 1s' pools to the carried stacks");
                    let flight: u64 = c.statements.iter().flat_map(|st| &st.lines).filter(|l| l.kind == LineKind::FlightShare).map(|l| l.amount).sum();
                    prop_assert_eq!(flight, s.transferred_in, "the Day 1s' pools, whole, by carried stacks");
                    prop_assert_eq!(sums[2], bounty_in, "every bounty part back");
                } else {
                    prop_assert_eq!(c.pool, pool);
                    prop_assert!(sums[1] + prizes_paid >= pool, "the open pool is distributed");
                    prop_assert_eq!(sums[2], bounty_in - bounties_paid, "the bounty pool is distributed");
                }
                prop_assert_eq!(b.overlay, c.pool - collected);
                if profile == RuleProfile::SvenskaSpel2012 && s.format.tables == Tables::Single && s.deal.is_none() {
                    // 002 §2.8 T-12.1 (issue 38): the remaining customers "dela turneringens
                    // sammanlagda prispott lika mellan sig", the whole pool, prizes already paid
                    // or not; the operator covers those (before: only the pool less them).
                    prop_assert_eq!(c.case, Case::SvenskaSpelSingleTable);
                    let lines = c.statements.iter().flat_map(|st| &st.lines);
                    let top_ups: u64 = lines.filter(|l| l.kind == LineKind::PlacePrizeTopUp).map(|l| l.amount).sum();
                    prop_assert_eq!(sums[1] - top_ups, pool, "the whole pool, shared");
                    prop_assert!(b.operator_cover >= prizes_paid, "prizes already paid are the operator's: {:?}", b);
                }
                if let (Some(deal), false) = (&s.deal, refund_all) {
                    // After a deal, each entry still in gets at least its agreed amount.
                    prop_assert_eq!(c.case, Case::AfterDeal);
                    for part in &deal.parts {
                        let got = by_entry.get(&part.entry).copied().unwrap_or(0);
                        prop_assert!(got >= part.amount, "{profile:?} {method:?}: entry {} got {got} < {}", part.entry, part.amount);
                    }
                } else if left <= places {
                    for e in s.entries.iter().filter(|e| e.chips().is_some()) {
                        let got = by_entry.get(&e.entry).copied().unwrap_or(0);
                        prop_assert!(got >= place_prize, "{profile:?} {method:?}: entry {} got {got} < {place_prize}", e.entry);
                    }
                }
                // The order entries come in changes nothing.
                let mut reversed = s.clone();
                reversed.entries.reverse();
                prop_assert_eq!(&cancel(&reversed, profile, method).unwrap(), &c);
            }
        }
    }

    /// Before the start, whatever the field held: each entry's statement is exactly what it
    /// paid in, under every profile, and the books balance with nothing kept.
    #[test]
    fn before_the_start_each_entry_gets_back_exactly_what_it_paid(s in tournament()) {
        let unstarted: Vec<Entry> = s
            .entries
            .iter()
            .map(|e| Entry { standing: Standing::Remaining { chips: 0 }, bounty: Bounty::default(), ..e.clone() })
            .collect();
        // Not a Day 2 here (its pools are below): what each entry paid, exactly.
        let s = Snapshot { entries: unstarted, transferred_in: 0, ..s };
        for profile in RuleProfile::ALL {
            let c = crate::cancellation::cancel_before_the_start(&s, profile, Method::Rulebook)
                .map_err(|e| TestCaseError::fail(format!("{profile:?}: {e}")))?;
            prop_assert!(c.books.balanced() && c.books.fees_kept == 0 && c.books.operator_cover == 0, "{profile:?}: {:?}", c.books);
            let mut by_entry: std::collections::BTreeMap<EntryNo, u64> = Default::default();
            for l in c.statements.iter().flat_map(|st| &st.lines) {
                *by_entry.entry(l.entry).or_default() += l.amount;
            }
            for e in &s.entries {
                let paid_in: u64 = e.purchases().map(|p| p.ledger.paid_in.amount).sum();
                prop_assert_eq!(by_entry.get(&e.entry).copied().unwrap_or(0), paid_in, "{:?} entry {}", profile, e.entry);
            }
        }
    }

    #[test]
    fn a_names_prefix_never_orders_it_against_the_names_order(a in "[A-Za-z0-9_.@-]{1,24}", b in "[A-Za-z0-9_.@-]{1,24}") {
        let (pa, pb) = (floor_events::PlayerId::parse(&a).unwrap(), floor_events::PlayerId::parse(&b).unwrap());
        let (ka, kb) = (crate::cancellation::name_prefix(&pa), crate::cancellation::name_prefix(&pb));
        prop_assert!(ka == kb || (ka < kb) == (pa < pb));
    }

    #[test]
    fn random_commands_never_panic_and_replay_to_the_same_state(steps in prop::collection::vec((0u8..3, 0i64..100), 0..20)) {
        let mut events: Vec<E> = Vec::new();
        let mut state = AbortState::default();
        for (what, at) in steps {
            let command = match what {
                0 => C::Suspend { reason: director("trouble"), at: secs(at) },
                1 => C::Resume { at: secs(at) },
                _ => cancel_cmd(secs(at)),
            };
            if let Ok(new) = AbortAggregate::handle_command(&state, command) {
                for e in new {
                    state = AbortAggregate::apply_event(state, e.clone());
                    events.push(e);
                }
            }
        }
        let replayed = events.iter().cloned().fold(AbortState::default(), AbortAggregate::apply_event);
        prop_assert_eq!(replayed, state);
        let cancels = events.iter().filter(|e| matches!(e, E::Cancelled { .. })).count();
        prop_assert!(cancels <= 1, "cancelled {} times", cancels);
    }
}

/// A field of `n` entries still in (names of 8 characters, chips all different), as a cancel
/// command under tda-2024's roll-forward.
fn cancel_field_of(n: u32) -> C {
    let entries = (1..=n).map(|no| still_in(no, paid(1_000, 100, 0), u64::from(no) * 37)).collect();
    C::Cancel {
        reason: "the table servers are down".into(),
        cause: None,
        profile: RuleProfile::Tda2024,
        method: Method::Rulebook,
        snapshot: Box::new(snapshot(MULTI, entries, &[])),
        at: t0(),
        stored: None,
        stage: Stage::InPlay,
    }
}

/// One `cancelled` event is one NATS message: above `MAX_CANCELLED_BYTES` encoded, the cancel is
/// refused (`cancellation_too_large`) and nothing is recorded. Measured here: each entry still
/// in costs its snapshot entry and its statement (a fee line, an equal share, a chip share).
#[test]
fn a_cancelled_event_too_large_for_one_message_is_refused() {
    let size = |n| match AbortAggregate::handle_command(&AbortState::Running, cancel_field_of(n)) {
        Ok(events) => serde_json::to_vec(&events[0]).unwrap().len(),
        Err(e) => panic!("{n} entries: {e}"),
    };
    let (small, large) = (size(100), size(1_000));
    let per_entry = (large - small) / 900;
    println!("cancelled event: {small} bytes for 100 entries, {large} for 1,000: {per_entry} bytes per entry");
    let fits = crate::domain::MAX_CANCELLED_BYTES / per_entry;
    assert!(fits >= 1_000, "{fits} entries fit");
    let too_many = u32::try_from(fits * 2).unwrap();
    let refused = AbortAggregate::handle_command(&AbortState::Running, cancel_field_of(too_many)).unwrap_err();
    assert_eq!(floor_runtime::DomainError::code(&refused), codes::CANCELLATION_TOO_LARGE);
}

/// The same field kept whole in the object store first (the service's part): the command names
/// it, and the event keeps the reference, the books and the counts, without the snapshot's
/// entries and the statements, so it fits one message; the event kept whole is exactly
/// [`crate::domain::cancelled_event`] of the command. A reference whose counts are not this
/// cancellation's is refused (`invalid_field`), nothing recorded.
#[test]
fn a_cancellation_kept_in_the_object_store_is_one_small_event_that_names_it() {
    use crate::domain::{cancelled_event, StoredCancellation};
    let C::Cancel { reason, profile, method, snapshot, at, .. } = cancel_field_of(3_000) else { unreachable!() };
    let whole = cancelled_event(reason.clone(), None, snapshot.clone(), profile, method, at, Stage::InPlay).unwrap();
    let E::Cancelled { cancellation: whole_cancellation, .. } = &whole else { unreachable!() };
    let stored = StoredCancellation {
        object: "t.abc".into(),
        encoding: floor_events::abort::StoredEncoding::JsonLz4,
        sha256: "abc".into(),
        bytes: 1,
        entries: 3_000,
        statements: 3_000,
    };
    let command = |stored| C::Cancel {
        reason: reason.clone(),
        cause: None,
        profile,
        method,
        snapshot: snapshot.clone(),
        at,
        stored: Some(stored),
        stage: Stage::InPlay,
    };

    let events = AbortAggregate::handle_command(&AbortState::Running, command(stored.clone())).unwrap();
    let [E::Cancelled { snapshot: kept, cancellation, stored: reference, .. }] = &events[..] else { panic!("{events:?}") };
    assert_eq!(reference.as_ref(), Some(&stored));
    assert!(kept.entries.is_empty() && cancellation.statements.is_empty());
    assert_eq!((cancellation.books, cancellation.remaining), (whole_cancellation.books, whole_cancellation.remaining));
    assert!(serde_json::to_vec(&events[0]).unwrap().len() < 10_000, "one small message");

    let wrong = StoredCancellation { statements: 2_999, ..stored };
    let refused = AbortAggregate::handle_command(&AbortState::Running, command(wrong)).unwrap_err();
    assert_eq!(floor_runtime::DomainError::code(&refused), floor_events::codes::INVALID_FIELD);
}

// ---------------------------------------------------------------------------------------------
// Scale: 250,000 entries still in (issue 22: ≤ 1 s after the command, statements included).

/// 300,000 entries, 250,000 still in with chips from 37 to 370,000 (many distinct remainders),
/// each with a knockout bounty; 45,000 paid places (before the money).
fn quarter_million() -> Snapshot {
    let entries: Vec<Entry> = (1..=300_000u32)
        .map(|no| {
            if no <= 250_000 {
                let mut e = still_in(no, paid(1_000, 100, 500), u64::from(no % 10_000 + 1) * 37);
                e.bounty.head = 500;
                e
            } else {
                // Out before the money; its bounty collected by entry 1.
                out(no, paid(1_000, 100, 500), no, 0)
            }
        })
        .collect();
    let mut s = snapshot(MULTI, entries, &[]);
    s.entries[0].bounty.collected = 50_000 * 500;
    let table = generate(300_000 * 500, 45_000, 0).unwrap();
    s.prizes = table.bands.iter().map(|b| PrizeBand { from: b.from, to: b.to, amount: b.amount }).collect();
    s
}

/// The cancellation runs and balances for 250,000 entries still in. Not timed here (debug
/// builds); `time_a_cancellation_of_250_000` measures it.
#[test]
fn a_cancellation_of_250_000_entries_still_in_runs_and_balances() {
    let s = quarter_million();
    for profile in [RuleProfile::Tda2024, RuleProfile::FortunaCz2024] {
        let c = cancel(&s, profile, Method::Rulebook).unwrap();
        assert_eq!(c.statements.len(), 250_000);
        assert!(c.books.balanced());
    }
}

/// Nanoseconds this thread has run on a CPU (Linux `schedstat`): on a shared machine the wall
/// clock also counts the time other processes held the cores.
fn on_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

/// `cargo test --release -p floor-abort time_a_cancellation -- --ignored --nocapture`: the
/// figure in `docs/abort.md` (best of 5, wall clock and time on a CPU).
#[test]
#[ignore = "a measurement, run in release"]
fn time_a_cancellation_of_250_000() {
    let s = quarter_million();
    for profile in RuleProfile::ALL {
        let (mut wall, mut cpu) = (u128::MAX, u64::MAX);
        for _ in 0..5 {
            let (start, cpu_start) = (std::time::Instant::now(), on_cpu_ns());
            let c = cancel(&s, profile, Method::Rulebook).unwrap();
            wall = wall.min(start.elapsed().as_micros());
            if let (Some(a), Some(b)) = (cpu_start, on_cpu_ns()) {
                cpu = cpu.min((b - a) / 1_000);
            }
            assert!(c.books.balanced());
        }
        println!(
            "{:<22} 250,000 still in of 300,000: best of 5 {:>6.1} ms wall, {:>6.1} ms on a CPU",
            profile.name(),
            wall as f64 / 1e3,
            cpu as f64 / 1e3
        );
    }
}

/// Issue 34's way out, before the start (`Stage::BeforeTheStart`, Floor's rule, cited
/// `floor abort: before the start`): every entry gets back exactly what it paid, whatever the
/// profile, its cause or the table and guarantee the snapshot carries (none applies before a
/// start); the books balance with no overlay and no operator cover.
#[test]
fn before_the_start_everything_paid_in_goes_back_under_every_profile() {
    use crate::statement::Rule;
    let entries = vec![still_in(1, paid(1_000, 100, 0), 0), still_in(2, paid(1_000, 100, 0), 0), still_in(3, paid(1_000, 150, 0), 0)];
    let with_a_guarantee = Snapshot { guarantee: Some(100_000), ..snapshot(MULTI, entries, &[60_000, 40_000]) };
    for profile in RuleProfile::ALL {
        let command = C::Cancel {
            reason: "a commit no reader can apply".into(),
            cause: None,
            profile,
            method: Method::Rulebook,
            snapshot: Box::new(with_a_guarantee.clone()),
            at: secs(0),
            stored: None,
            stage: Stage::BeforeTheStart,
        };
        let events = given::<AbortAggregate>(vec![]).when(command).accepted();
        let [E::Cancelled { cancellation: c, .. }] = events.as_slice() else { panic!("{events:?}") };
        assert_eq!(c.case, Case::BeforeStart, "{profile:?}");
        let totals: Vec<u64> = c.statements.iter().map(|s| s.total).collect();
        assert_eq!(totals, [1_100, 1_100, 1_150], "{profile:?}: each its own paid in");
        assert!(c.statements.iter().flat_map(|s| &s.lines).all(|l| l.rule == Rule::FloorBeforeStart));
        assert!(c.books.balanced() && c.books.overlay == 0 && c.books.operator_cover == 0, "{profile:?}: {:?}", c.books);
        assert_eq!((c.books.paid_in, c.books.statements, c.books.fees_kept), (3_350, 3_350, 0));
    }
}

/// Before the start there is one way to cancel: a method that shares by chips or ICM is refused
/// (`method_not_offered`), nothing recorded; a tournament nobody entered is cancelled with no
/// statement; a blank reason is refused as in play.
#[test]
fn before_the_start_offers_only_the_refund_and_cancels_an_empty_field() {
    let before = |method, entries: Vec<Entry>, reason: &str| C::Cancel {
        reason: reason.into(),
        cause: None,
        profile: RuleProfile::Tda2024,
        method,
        snapshot: Box::new(snapshot(MULTI, entries, &[])),
        at: secs(0),
        stored: None,
        stage: Stage::BeforeTheStart,
    };
    let one = || vec![still_in(1, paid(1_000, 100, 0), 0)];
    for method in [Method::RollForward, Method::Icm] {
        given::<AbortAggregate>(vec![]).when(before(method, one(), "down")).then_reject(codes::METHOD_NOT_OFFERED);
    }
    given::<AbortAggregate>(vec![]).when(before(Method::Rulebook, one(), " ")).then_reject(floor_events::codes::REASON_REQUIRED);
    let events = given::<AbortAggregate>(vec![]).when(before(Method::Rollback, vec![], "nobody came")).accepted();
    let [E::Cancelled { cancellation: c, .. }] = events.as_slice() else { panic!("{events:?}") };
    assert_eq!((c.case, c.statements.len(), c.books.paid_in), (Case::BeforeStart, 0, 0));
    assert!(c.books.balanced());
}
