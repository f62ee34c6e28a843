//! A flight's Day 2 cancelled (issue 36; `docs/abort.md`, "A flight's Day 2"): its entries
//! were carried from the Day 1s with no buy-in here, its prize pool is the Day 1s' pools
//! (payouts' `pool_transferred`). Cases worked by hand, in euro cents.

use super::fixtures::*;
use crate::cancellation::cancel;
use crate::snapshot::{Entry, Snapshot};
use crate::statement::{Case, LineKind::*, Method, Rule};
use floor_events::RuleProfile::*;

/// Three entries carried with 30,000, 20,000 and 10,000 chips, nothing paid here, two Day 1s'
/// pools of 3,000 and 3,000 (EUR 60) in, nobody out, no table locked yet (before the start).
fn day2_before_the_start() -> Snapshot {
    let carried = |no: u32, chips: u64| Entry { carried_chips: chips, ..still_in(no, paid(0, 0, 0), chips) };
    Snapshot { transferred_in: 6_000, ..snapshot(MULTI, vec![carried(1, 30_000), carried(2, 20_000), carried(3, 10_000)], &[]) }
}

/// Given the Day 2 before its start, when cancelled under tda-2024's roll-forward: no fee to
/// give back (none was paid here), the whole 6,000 before the money: 3,000 equally (1,000
/// each) and 3,000 by chips of 60,000 (1,500 / 1,000 / 500). Books: 6,000 came from the Day
/// 1s, 6,000 in statements.
#[test]
fn a_day2_cancelled_before_its_start_rolls_the_day1_pools_forward() {
    let c = cancel(&day2_before_the_start(), Tda2024, Method::Rulebook).unwrap();
    assert_eq!(c.case, Case::RollForwardBeforeTheMoney);
    assert_eq!(c.pool, 6_000);
    assert_eq!(lines(&c, 1), [(EqualShare, 1_000), (ChipShare, 1_500)]);
    assert_eq!(lines(&c, 2), [(EqualShare, 1_000), (ChipShare, 1_000)]);
    assert_eq!(lines(&c, 3), [(EqualShare, 1_000), (ChipShare, 500)]);
    let b = c.books;
    assert_eq!((b.paid_in, b.transferred_in, b.overlay, b.operator_cover, b.statements), (0, 6_000, 0, 0, 6_000));
    assert!(b.balanced());
}

/// Rolled back, each entry gets back what it paid: it paid with the stack it brought, so the
/// Day 1s' pools go by carried chips, 3,000 / 2,000 / 1,000, under Floor's flight rule.
#[test]
fn a_day2_rolled_back_pays_the_day1_pools_by_the_stacks_carried() {
    let c = cancel(&day2_before_the_start(), Tda2024, Method::Rollback).unwrap();
    assert_eq!(lines(&c, 1), [(FlightShare, 3_000)]);
    assert_eq!(lines(&c, 3), [(FlightShare, 1_000)]);
    let line = &c.statement(&player(2)).unwrap().lines[0];
    assert_eq!((line.rule, line.inputs.pot, line.inputs.weight, line.inputs.of), (Rule::FloorFlight, 6_000, Some(20_000), Some(60_000)));
    assert!(c.books.balanced() && c.books.transferred_in == 6_000 && c.books.refunds == 0, "{:?}", c.books);
}

/// In play, an entry out since the start brought its stack too: in a rollback it gets its
/// share of the Day 1s' pools back (as everyone gets back what they paid); under a
/// roll-forward the pools are the prize pool the entries still in share.
#[test]
fn in_play_the_day1_pools_follow_the_profile_s_rule() {
    let mut s = day2_before_the_start();
    s.entries[2] = Entry { carried_chips: 10_000, ..out(3, paid(0, 0, 0), 3, 0) };
    s.entries[0].standing = crate::snapshot::Standing::Remaining { chips: 40_000 };
    let back = cancel(&s, Tda2024, Method::Rollback).unwrap();
    assert_eq!(total(&back, 3), 1_000, "its share by the 10,000 it brought");
    let forward = cancel(&s, Tda2024, Method::RollForward).unwrap();
    assert_eq!(total(&forward, 3), 0, "out: nothing rolls forward to it");
    assert_eq!(total(&forward, 1) + total(&forward, 2), 6_000);
    // Every profile balances it, the pools whole.
    for profile in floor_events::RuleProfile::ALL {
        let c = cancel(&s, profile, Method::Rulebook).unwrap();
        assert!(c.books.balanced() && c.books.transferred_in == 6_000, "{profile:?}: {:?}", c.books);
    }
}

/// A snapshot that says pools came in but no entry brought a stack cannot say who they are
/// for: refused, nothing decided.
#[test]
fn pools_in_without_a_carried_stack_are_refused() {
    let mut s = day2_before_the_start();
    for e in &mut s.entries {
        e.carried_chips = 0;
    }
    assert_eq!(cancel(&s, Tda2024, Method::Rulebook).unwrap_err().code(), floor_events::codes::LEDGER_DOES_NOT_ADD_UP);
}
