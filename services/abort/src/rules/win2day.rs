//! `win2day` (seed 000, "Ergänzungsspielbedingung Poker Room"), §15 with §16.11–16.12.
//!
//! - **§16.11, single-table tournament (not Twister)**: "Alle noch im Spiel befindlichen
//!   Spielteilnehmer erhalten ihre Anmeldegebühr zurückerstattet und teilen den verbleibenden
//!   Gewinnpot unter sich zu gleichen Teilen auf": every player still in gets the fee back and
//!   the remaining prize pool is shared equally, whatever the chips. "Remaining" = the pool less
//!   the prizes already awarded; players already out get nothing more.
//! - **§16.12, multi-table tournament or Twister**: the refund rules are published on the
//!   operator's homepage (not in the document); in the money, "das noch offene Preisgeld" is
//!   paid "wie oben beschrieben" so that every player gets at least the prize of their rank at
//!   the abort.
//!
//! Floor's reading (`docs/abort.md`):
//! - "as described above" is §16.11's rule, so by default the multi-table rule is §16.11's: fee
//!   back and the open prize money equally; in the money written as the prize for place N
//!   (the rank's prize, which §16.12 guarantees) plus an equal share of the rest, which is the
//!   same equal split with the guarantee visible;
//! - §16.12 leaves the refund rules to the homepage, so the operator may pick the TDA rollback
//!   or roll-forward instead for a multi-table tournament (`decided_under` = §16.12); the
//!   single-table rule is fixed.

use crate::cancellation::{owed_then_rest, Builder, Plan};
use crate::error::CancelError;
use crate::rules::tda_2024;
use crate::snapshot::Tables;
use crate::statement::{Case, Method, Rule};
use floor_events::RuleProfile;

/// Cancels under §16.11 (single table) or §16.12 (multi-table, Twister).
///
/// # Errors
/// `method_not_offered` for another method on a single table, or ICM;
/// `amount_too_large` when N × the place prize does not fit.
pub fn cancel(b: &mut Builder, method: Method) -> Result<Plan, CancelError> {
    let format = b.t.snapshot.format;
    let single_table = format.tables == Tables::Single && !format.twister;
    let not_offered = |method: Method| Err(CancelError::MethodNotOffered { profile: RuleProfile::Win2day, method: method.name() });
    match method {
        Method::Rulebook if single_table => Ok(single(b)),
        Method::Rulebook => multi(b),
        Method::Rollback | Method::RollForward if !single_table => {
            let plan = tda_2024::cancel(b, method)?;
            Ok(Plan { decided_under: Some(Rule::Win2day16_12), ..plan })
        }
        other => not_offered(other),
    }
}

/// §16.11: fee back, the open prize money equally.
fn single(b: &mut Builder) -> Plan {
    let t = b.t;
    let rule = Rule::Win2day16_11;
    for &i in &t.remaining {
        b.refund_fees(i, rule);
    }
    let pool = t.pool();
    let open = t.open_prize_money(pool);
    b.equal(rule, open);
    let bounty_money = b.bounties();
    Plan { method: Method::Rulebook, case: Case::Win2daySingleTable, decided_under: None, pool, prize_money: open, bounty_money }
}

/// §16.12: fee back; before the money the open prize money equally, in the money the prize
/// for place N and the rest equally.
fn multi(b: &mut Builder) -> Result<Plan, CancelError> {
    let t = b.t;
    let rule = Rule::Win2day16_12;
    for &i in &t.remaining {
        b.refund_fees(i, rule);
    }
    let pool = t.pool();
    let open = t.open_prize_money(pool);
    let (case, prize_money) = if t.in_the_money() {
        let owed = b.place_prizes(rule)?;
        let (prize_money, rest) = owed_then_rest(open, owed);
        b.equal(rule, rest);
        (Case::Win2dayMultiTableInTheMoney, prize_money)
    } else {
        b.equal(rule, open);
        (Case::Win2dayMultiTableBeforeTheMoney, open)
    };
    let bounty_money = b.bounties();
    Ok(Plan { method: Method::Rulebook, case, decided_under: None, pool, prize_money, bounty_money })
}

#[cfg(test)]
mod tests {
    use crate::cancellation::cancel;
    use crate::error::codes;
    use crate::rules::fixtures::*;
    use crate::snapshot::Format;
    use crate::statement::{Case, LineKind::*, Method, Rule};
    use floor_events::RuleProfile::Win2day;

    /// 000 §2.10's illustration: 6 players, €10 + €1, 2 paid, abort with 4 left, nothing paid
    /// yet: pool 60.00, each of the 4 gets 1.00 + 15.00 = 16.00; the 2 out get nothing.
    #[test]
    fn single_table_fee_back_and_the_pool_equally() {
        let entries = (1..=6)
            .map(|no| if no <= 4 { still_in(no, paid(1_000, 100, 0), 500 * u64::from(no)) } else { out(no, paid(1_000, 100, 0), no, 0) })
            .collect();
        let c = cancel(&snapshot(SINGLE, entries, &[3_900, 2_100]), Win2day, Method::Rulebook).unwrap();
        assert_eq!(c.case, Case::Win2daySingleTable);
        assert!((1..=4).all(|no| lines(&c, no) == [(RefundFee, 100), (EqualShare, 1_500)]));
        assert_eq!(total(&c, 5), 0);
        assert!(c.books.balanced());
    }

    #[test]
    fn multi_table_in_the_money_pays_each_at_least_their_rank_then_equally() {
        // 6 left of 100: open 900,000 − 144,000 (places 7–15) = 756,000; the prize for place
        // 6 is 49,500 each (297,000), the rest 459,000 equally = 76,500: 126,000 each, which is
        // the equal split 756,000 / 6, with the rank's prize visible.
        let c = cancel(&field_of_100(&[400_000, 250_000, 150_000, 100_000, 60_000, 40_000]), Win2day, Method::Rulebook).unwrap();
        assert_eq!(c.case, Case::Win2dayMultiTableInTheMoney);
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (PlacePrize, 49_500), (EqualShare, 76_500)]);
        assert_eq!(lines(&c, 6), lines(&c, 1), "chips do not count");
        assert!(c.books.balanced());
    }

    #[test]
    fn multi_table_before_the_money_shares_the_pool_equally_by_default() {
        let c = cancel(&field_of_100(&[50_000; 20]), Win2day, Method::Rulebook).unwrap();
        assert_eq!(c.case, Case::Win2dayMultiTableBeforeTheMoney);
        assert_eq!(lines(&c, 20), [(RefundFee, 1_000), (EqualShare, 45_000)]);
    }

    #[test]
    fn twister_falls_under_the_multi_table_rule() {
        let entries = (1..=3).map(|no| still_in(no, paid(1_000, 100, 0), 500)).collect();
        let twister = Format { twister: true, ..SINGLE };
        let c = cancel(&snapshot(twister, entries, &[3_000]), Win2day, Method::Rulebook).unwrap();
        assert!(c.statements.iter().flat_map(|s| &s.lines).all(|l| l.rule == Rule::Win2day16_12));
    }

    #[test]
    fn the_published_refund_rules_of_a_multi_table_tournament_may_be_a_tda_method() {
        let c = cancel(&field_of_100(&[50_000; 20]), Win2day, Method::Rollback).unwrap();
        assert_eq!((c.case, c.decided_under), (Case::Rollback, Some(Rule::Win2day16_12)));
        let entries = (1..=3).map(|no| still_in(no, paid(1_000, 100, 0), 500)).collect();
        let err = cancel(&snapshot(SINGLE, entries, &[3_000]), Win2day, Method::Rollback).unwrap_err();
        assert_eq!(err.code(), codes::METHOD_NOT_OFFERED, "§16.11 is fixed");
    }
}
