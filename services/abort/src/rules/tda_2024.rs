//! `tda-2024`: the TDA defaults and common online practice (`practice.md` §3.1), where the
//! rulebooks are silent. The TDA rules themselves have no cancellation rule; the methods are
//! PokerStars' published ones (https://www.pokerstars.com/poker/tournaments/rules/cancellations/),
//! which other operators follow (GG, iPoker, Bovada: `practice.md` §3.1–3.2).
//!
//! - **Rollback**: every entry, eliminated or not, gets back everything it paid: buy-in and
//!   fee, rebuys, add-ons, bounty parts. Prizes and bounties already paid are kept; the operator
//!   covers them (`operator_cover`).
//! - **Roll-forward, before the money** (entries still in > paid places): each entry still in
//!   gets its fees back, then the open prize pool is shared 50 % equally and 50 % by chips.
//!   PokerStars' example: $9,000 pool, 100 left, 37,500 of 300,000 chips → $45 + $562.50.
//! - **Roll-forward, in the money**: fees back, the next unpaid prize (the prize for place N)
//!   to each, then the rest of the open pool by chips (Bovada/Bodog/Ignition/Everygame; GG's
//!   EU article: "the next payout to each remaining player, then the rest").
//! - **ICM**: not available yet (exact ICM is being written in floor-rules): `not_yet_available`.
//!
//! Bounties on a roll-forward: [`crate::cancellation::Builder::bounties`] (each keeps the bounty
//! on their own head: PokerStars refunds "the KO bounty").

use crate::cancellation::{owed_then_rest, Builder, Plan};
use crate::error::CancelError;
use crate::statement::{Case, Method, Rule};

/// Cancels by `method`: roll-forward by default.
///
/// # Errors
/// `not_yet_available` for ICM.
pub fn cancel(b: &mut Builder, method: Method) -> Result<Plan, CancelError> {
    match method {
        Method::Rollback => Ok(rollback(b, Rule::TdaRollback, Case::Rollback)),
        Method::Rulebook | Method::RollForward => roll_forward(b),
        Method::Icm => Err(CancelError::NotYetAvailable("icm")),
    }
}

/// Every entry gets back everything it paid, under `rule` (also 001 Art. 15's refund).
pub fn rollback(b: &mut Builder, rule: Rule, case: Case) -> Plan {
    let t = b.t;
    for &i in &t.all {
        b.refund_everything(i, rule);
    }
    Plan {
        method: Method::Rollback,
        case,
        decided_under: None,
        pool: t.contributions,
        prize_money: t.contributions,
        bounty_money: t.bounty_paid_in,
    }
}

/// Fees back to the entries still in; 50/50 before the money, next unpaid prize plus chips in it.
///
/// # Errors
/// `amount_too_large` when N × the place prize does not fit.
pub fn roll_forward(b: &mut Builder) -> Result<Plan, CancelError> {
    let t = b.t;
    let rule = Rule::TdaRollForward;
    for &i in &t.remaining {
        b.refund_fees(i, rule);
    }
    let pool = t.pool();
    let open = t.open_prize_money(pool);
    let (case, prize_money) = if t.in_the_money() {
        let owed = b.place_prizes(rule)?;
        let (prize_money, rest) = owed_then_rest(open, owed);
        b.by_chips(rule, rest);
        (Case::RollForwardInTheMoney, prize_money)
    } else {
        b.fifty_fifty(rule, open);
        (Case::RollForwardBeforeTheMoney, open)
    };
    let bounty_money = b.bounties();
    Ok(Plan { method: Method::RollForward, case, decided_under: None, pool, prize_money, bounty_money })
}
