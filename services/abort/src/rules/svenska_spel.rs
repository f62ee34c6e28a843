//! `svenska-spel-2012` (seed 002, "Spelregler Poker" 2012-10-23), §2.8 "Tekniska avbrott och
//! andra störningar" (p13–14). The registration fee ("anmälningsavgift") is the operator's; the
//! start fees ("startavgifter") are the prize pool, exactly (§2.2 T-1.2, T-1.3).
//!
//! - **T-12.1, single table**: every customer still in gets the registration fee back, and they
//!   "dela turneringens sammanlagda prispott lika mellan sig": share the pool equally.
//! - **T-12.2, multi-table**: every customer still in gets the registration fee back, and
//!   - **(A)** "Har ingen Kund ännu blivit utslagen återbetalas alla startavgifter": nobody out
//!     yet, every start fee is refunded;
//!   - **(B)** at least one out and more left than prizes: the pool in two halves, one shared
//!     equally, one "i förhållande till värdet av de marker" (by chips);
//!   - **(C)** no more left than prizes: those out keep the prizes they qualified for; each
//!     customer still in "först den lägsta återstående vinsten" (first the lowest remaining
//!     prize: the prize for place N), then the rest of the pool by chips.
//!
//! Floor's reading (`docs/abort.md`): (A) takes precedence whatever the count; "fees" are every
//! fee the entry paid; in (A) every start fee is refunded, rebuys' and add-ons' too (each costs
//! "an amount equal to the start fee"), and bounty parts, which are start-fee money; the single
//! table shares the pool less the prizes already paid (Floor pays a place at elimination, there
//! is nothing to claw back); chips are those at the start of the interrupted hand (T-12.5:
//! bets in unfinished hands go back).

use crate::cancellation::{owed_then_rest, Builder, Plan};
use crate::error::CancelError;
use crate::snapshot::Tables;
use crate::statement::{Case, Method, Rule};
use floor_events::RuleProfile;

/// Cancels under §2.8.
///
/// # Errors
/// `method_not_offered` for any method but the rulebook's; `amount_too_large` when N × the
/// place prize does not fit.
pub fn cancel(b: &mut Builder, method: Method) -> Result<Plan, CancelError> {
    if method != Method::Rulebook {
        return Err(CancelError::MethodNotOffered { profile: RuleProfile::SvenskaSpel2012, method: method.name() });
    }
    let t = b.t;
    let rule = Rule::SvenskaSpel2_8;
    if t.snapshot.format.tables == Tables::Multi && t.eliminated == 0 {
        // (A): every entry is still in; all start fees and registration fees back.
        for &i in &t.all {
            b.refund_everything(i, rule);
        }
        let (pool, prize_money, bounty_money) = (t.contributions, t.contributions, t.bounty_paid_in);
        return Ok(Plan { method, case: Case::SvenskaSpelNobodyOut, decided_under: None, pool, prize_money, bounty_money });
    }
    for &i in &t.remaining {
        b.refund_fees(i, rule);
    }
    let pool = t.pool();
    let open = t.open_prize_money(pool);
    let (case, prize_money) = match t.snapshot.format.tables {
        Tables::Single => {
            b.equal(rule, open);
            (Case::SvenskaSpelSingleTable, open)
        }
        Tables::Multi if !t.in_the_money() => {
            b.fifty_fifty(rule, open);
            (Case::SvenskaSpelBeforeTheMoney, open)
        }
        Tables::Multi => {
            let owed = b.place_prizes(rule)?;
            let (prize_money, rest) = owed_then_rest(open, owed);
            b.by_chips(rule, rest);
            (Case::SvenskaSpelInTheMoney, prize_money)
        }
    };
    let bounty_money = b.bounties();
    Ok(Plan { method, case, decided_under: None, pool, prize_money, bounty_money })
}
