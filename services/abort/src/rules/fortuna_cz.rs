//! `fortuna-cz-2024` (seed 004, FORTUNA game plan "Živá hra", 2024-01-30), Annex 4.37
//! "Předčasně ukončené turnaje": a tournament cancelled "z jakýchkoli důvodů" (for any reason)
//! whose final ranking cannot be determined pays the players not yet eliminated ("zbývající
//! účastníci") as follows.
//!
//! - **4.37.1, two participants (heads-up)**: "Každý z obou Sázejících dostane zpět zaplacený
//!   Buy-in": each gets the Buy-in back.
//! - **4.37.2, multi-table**: case A, more left than paid positions: each gets the Buy-in back,
//!   then the remaining Prize pool 50 % equally and 50 % by chips "v momentě zrušení turnaje";
//!   case B, every player left is sure of a prize: Buy-in back, the prize for the place equal to
//!   the number left ("6 remain → each gets the 6th-place prize"), then the rest 50/50. A
//!   guaranteed tournament still in late registration or rebuys divides the money actually
//!   collected, not the guarantee; after that phase, the guarantee.
//! - **4.37.3, sit & go**: each gets the Buy-in back, and the part of the Prize pool paid in by
//!   the players already out is shared "rovným dílem" (equally). No chip component.
//!
//! Floor's reading (`docs/abort.md`):
//! - "Buy-in" is prize-pool part plus Provize (4.1): both go back, the prize-pool part from the
//!   pool, the Provize from the operator's fees; rebuys and add-ons are not refunded (the text
//!   says only "Buy-in") and stay in the pool the formula divides;
//! - "the remaining Prize pool" is the pool less prizes already paid, less the Buy-in refunds
//!   and, in case B, the place prizes; when those owed amounts exceed the pool (a flat table, a
//!   guarantee not yet owed) the operator covers the difference and nothing is left to share;
//! - heads-up means a field of two entries (a heads-up sit & go), not a multi-table tournament
//!   down to two, which is 4.37.2; what a heads-up pool holds beyond the two Buy-ins (rebuys)
//!   is shared equally;
//! - the sit & go's "part paid in by those out" is what is left of the pool after the refunds
//!   and the prizes already paid (their money, and any rebuys), shared equally;
//! - the guarantee rule of 4.37.2 is applied to every format (Floor does the same for every
//!   profile: [`crate::snapshot::Tally::pool`]).

use crate::cancellation::{owed_then_rest, Builder, Plan};
use crate::error::CancelError;
use crate::statement::{Case, Method, Rule};
use floor_events::RuleProfile;

/// Cancels under 4.37.
///
/// # Errors
/// `method_not_offered` for any method but the rulebook's; `amount_too_large` when the owed
/// amounts do not fit.
pub fn cancel(b: &mut Builder, method: Method) -> Result<Plan, CancelError> {
    if method != Method::Rulebook {
        return Err(CancelError::MethodNotOffered { profile: RuleProfile::FortunaCz2024, method: method.name() });
    }
    let t = b.t;
    let rule = if t.heads_up() {
        Rule::Fortuna4_37_1
    } else if t.snapshot.format.sit_and_go {
        Rule::Fortuna4_37_3
    } else {
        Rule::Fortuna4_37_2
    };
    let mut refunded = 0u64;
    for &i in &t.remaining {
        b.refund_buy_in_fee(i, rule);
        refunded = refunded.checked_add(b.refund_buy_in(i, rule)).ok_or(CancelError::TooLarge)?;
    }
    let pool = t.pool();
    let open = t.open_prize_money(pool);
    let (case, prize_money) = match rule {
        Rule::Fortuna4_37_1 | Rule::Fortuna4_37_3 => {
            let (prize_money, rest) = owed_then_rest(open, refunded);
            b.equal(rule, rest);
            (if rule == Rule::Fortuna4_37_1 { Case::FortunaHeadsUp } else { Case::FortunaSitAndGo }, prize_money)
        }
        _ if t.in_the_money() => {
            let owed = refunded.checked_add(b.place_prizes(rule)?).ok_or(CancelError::TooLarge)?;
            let (prize_money, rest) = owed_then_rest(open, owed);
            b.fifty_fifty(rule, rest);
            (Case::FortunaInTheMoney, prize_money)
        }
        _ => {
            let (prize_money, rest) = owed_then_rest(open, refunded);
            b.fifty_fifty(rule, rest);
            (Case::FortunaBeforeTheMoney, prize_money)
        }
    };
    let bounty_money = b.bounties();
    Ok(Plan { method, case, decided_under: None, pool, prize_money, bounty_money })
}
