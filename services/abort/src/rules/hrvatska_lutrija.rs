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
