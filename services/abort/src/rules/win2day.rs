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
