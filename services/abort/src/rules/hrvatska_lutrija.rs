//! `hrvatska-lutrija-2017` (seed 001), Art. 15 (T-26): when the operator's fault interrupts a
//! tournament it cannot continue, "das für dieses Turnier eingezahlte Geld" (the money paid in
//! for this tournament) goes back to each player's account: no chip-count split, no payout by
//! place.
//!
//! Floor's reading (`docs/abort.md`, decisions):
//! - "money paid in" is everything: buy-in, fee, rebuys, add-ons and their fees, bounty parts
//!   (001 Art. 7: fees on rebuys and add-ons too); a freeroll entry paid nothing and gets nothing;
//! - every entry is refunded, eliminated or not: each paid in for this tournament;
//! - prizes already credited (Art. 11 credits them at once) are kept: the operator covers them;
//! - Art. 21 (force majeure: no liability) is not a payout rule: a cancellation Floor records
//!   always refunds, whatever its cause;
//! - an entry in the money is lifted to the prize for place N (the place prize floor) when its
//!   refund is less: nobody still in leaves with less than the player just eliminated.
//!
//! So this is the rollback, cited to Art. 15. The rulebook offers no other method.

use crate::cancellation::{Builder, Plan};
use crate::error::CancelError;
use crate::rules::tda_2024;
use crate::statement::{Case, Method, Rule};
use floor_events::RuleProfile;

/// Refunds everything paid in, to every entry.
///
/// # Errors
/// `method_not_offered` for any method but the rulebook's (or rollback, which is the same).
pub fn cancel(b: &mut Builder, method: Method) -> Result<Plan, CancelError> {
    match method {
        Method::Rulebook | Method::Rollback => {
            let plan = tda_2024::rollback(b, Rule::HrvatskaLutrijaArt15, Case::HrvatskaLutrijaRefund);
            Ok(Plan { method: Method::Rulebook, ..plan })
        }
        other => Err(CancelError::MethodNotOffered { profile: RuleProfile::HrvatskaLutrija2017, method: other.name() }),
    }
}

#[cfg(test)]
mod tests {
    use crate::cancellation::cancel;
    use crate::error::codes;
    use crate::rules::fixtures::*;
    use crate::statement::{Case, LineKind::*, Method, Rule};
    use floor_events::RuleProfile::HrvatskaLutrija2017;

    #[test]
    fn everything_paid_in_goes_back_to_every_entry() {
        // Given 10 entries at €100 + €10, 5 out before the money, 5 left; entry 4 rebought
        // (€100 + €10 fee: 001 Art. 7) and took the add-on (€100, no fee).
        let mut s = field_of_10(MULTI, &[3_000, 2_000, 2_000, 2_000, 1_000]);
        s.entries[3].rebuys = vec![paid(10_000, 1_000, 0)];
        s.entries[3].add_ons = vec![paid(10_000, 0, 0)];
        let c = cancel(&s, HrvatskaLutrija2017, Method::Rulebook).unwrap();
        assert_eq!(c.case, Case::HrvatskaLutrijaRefund);
        // Fees 1,000 + 1,000; buy-in 10,000; rebuy 10,000; add-on 10,000: 32,000.
        assert_eq!(lines(&c, 4), [(RefundFee, 2_000), (RefundBuyIn, 10_000), (RefundRebuys, 10_000), (RefundAddOns, 10_000)]);
        assert_eq!(total(&c, 9), 11_000, "out, and refunded too");
        assert!(c.statements.iter().flat_map(|s| &s.lines).all(|l| l.rule == Rule::HrvatskaLutrijaArt15));
        assert_eq!((c.books.fees_kept, c.books.statements, c.books.operator_cover), (0, 131_000, 0));
    }

    #[test]
    fn in_the_money_a_refund_below_the_place_prize_is_lifted_to_it() {
        // 2 left, the third paid 20,000 (kept). Refunds 11,000 each; the prize for place 2 is
        // 30,000: 19,000 more each, from the operator with the 20,000 already paid.
        let c = cancel(&field_of_10(MULTI, &[7_000, 3_000]), HrvatskaLutrija2017, Method::Rulebook).unwrap();
        assert_eq!(lines(&c, 2), [(RefundFee, 1_000), (RefundBuyIn, 10_000), (PlacePrizeTopUp, 19_000)]);
        // 110,000 in + 58,000 = 0 fees kept + 20,000 paid + 148,000 statements.
        assert_eq!((c.books.operator_cover, c.books.statements), (58_000, 148_000));
        assert!(c.books.balanced());
    }

    #[test]
    fn a_freeroll_refunds_nothing() {
        let entries = (1..=4).map(|no| if no <= 2 { still_in(no, paid(0, 0, 0), 10) } else { out(no, paid(0, 0, 0), no, 0) }).collect();
        let c = cancel(&snapshot(MULTI, entries, &[]), HrvatskaLutrija2017, Method::Rulebook).unwrap();
        assert!(c.statements.is_empty());
        assert!(c.books.balanced());
    }

    #[test]
    fn the_rulebook_offers_no_roll_forward() {
        let err = cancel(&field_of_10(MULTI, &[7_000, 3_000]), HrvatskaLutrija2017, Method::RollForward).unwrap_err();
        assert_eq!(err.code(), codes::METHOD_NOT_OFFERED);
    }
}
