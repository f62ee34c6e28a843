//! Floor's bounds on the amounts and chips of a definition, so that no later sum can wrap
//! (issue 17: a buy-in and fee of `i64::MAX` were accepted and the books wrapped and still said
//! balanced).
//!
//! - every price and fee (buy-in, fee, rebuy, add-on) at most [`MAX_AMOUNT`] minor units;
//! - every stack (starting stack, a rebuy's or an add-on's chips) at most [`MAX_CHIPS`];
//! - the most money the tournament can take in all ([`TournamentDefinition::most_money`]: every
//!   seat sold, every rebuy and add-on bought, the guarantee paid) and the most chips it can put
//!   in play ([`TournamentDefinition::most_chips`]) at most [`MAX_TOTAL`] (2^53 − 1), computed
//!   with checked arithmetic;
//! - a fee never above the prize-pool part it comes with (entry, rebuy, add-on): under every
//!   profile. win2day (15 % of the buy-in, 000 §16.1) and reel-cz (2–17 % of what is paid, 003)
//!   are stricter still; for the others a fee above the buy-in is taken for what it nearly always
//!   is, a typo (20 + 200 for 200 + 20).
//!
//! Every running sum of the books is a sum of lines bounded by these, so it fits by construction.

use super::{DefinitionError, Fee, TournamentDefinition};
use crate::codes;
use crate::money::{Money, MAX_AMOUNT, MAX_TOTAL};

/// The largest stack a definition may give at once (starting stack, a rebuy's or an add-on's
/// chips): 10^12.
pub const MAX_CHIPS: u64 = 1_000_000_000_000;

fn refuse(code: &'static str, field: &'static str, message: String) -> Result<(), DefinitionError> {
    Err(DefinitionError { code, field, message })
}

impl TournamentDefinition {
    /// The most money the tournament can take in all, in minor units: every seat (`capacity`
    /// counts re-entries) paid, each entry taking every rebuy and the add-on, plus the
    /// guarantee. `None` when that does not fit a `u64`.
    pub fn most_money(&self) -> Option<u64> {
        let mut per_entry = self.entry_ledger().paid_in.amount;
        if let Some(rebuy) = self.rebuy {
            let one = rebuy.price.amount.checked_add(rebuy.fee.amount)?;
            per_entry = per_entry.checked_add(one.checked_mul(u64::from(rebuy.max_per_entry))?)?;
        }
        if let Some(add_on) = self.add_on {
            per_entry = per_entry.checked_add(add_on.price.amount)?.checked_add(add_on.fee.amount)?;
        }
        let guarantee = self.guarantee.map_or(0, |g| g.amount);
        per_entry.checked_mul(u64::from(self.capacity))?.checked_add(guarantee)
    }

    /// The most chips the tournament can put in play: every seat's starting stack, every rebuy
    /// and the add-on. `None` when that does not fit a `u64`.
    pub fn most_chips(&self) -> Option<u64> {
        let mut per_entry = self.starting_stack;
        if let Some(rebuy) = self.rebuy {
            per_entry = per_entry.checked_add(rebuy.chips.checked_mul(u64::from(rebuy.max_per_entry))?)?;
        }
        if let Some(add_on) = self.add_on {
            per_entry = per_entry.checked_add(add_on.chips)?;
        }
        per_entry.checked_mul(u64::from(self.capacity))
    }

    /// Each amount and stack within its bound, fees within their prize-pool parts, and the
    /// totals within [`MAX_TOTAL`].
    pub(super) fn validate_bounds(&self) -> Result<(), DefinitionError> {
        let on_top = match self.fee {
            Fee::OnTop(fee) => Some(fee),
            Fee::ShareOfBuyIn { .. } => None,
        };
        let amounts = [
            ("buy_in", Some(self.buy_in)),
            ("fee", on_top),
            ("rebuy", self.rebuy.map(|r| r.price)),
            ("rebuy", self.rebuy.map(|r| r.fee)),
            ("add_on", self.add_on.map(|a| a.price)),
            ("add_on", self.add_on.map(|a| a.fee)),
        ];
        for (field, amount) in amounts {
            if let Some(amount) = amount.filter(|m| m.amount > MAX_AMOUNT) {
                let most = Money::new(MAX_AMOUNT, amount.currency);
                return refuse(codes::AMOUNT_TOO_LARGE, field, format!("{amount} is above Floor's largest amount, {most}"));
            }
        }
        let stacks = [
            ("starting_stack", Some(self.starting_stack)),
            ("rebuy", self.rebuy.map(|r| r.chips)),
            ("add_on", self.add_on.map(|a| a.chips)),
        ];
        for (field, chips) in stacks {
            if let Some(chips) = chips.filter(|&c| c > MAX_CHIPS) {
                return refuse(codes::CHIPS_TOO_LARGE, field, format!("{chips} chips is above Floor's largest stack, {MAX_CHIPS}"));
            }
        }
        self.validate_fees_within_prize_pool()?;
        let currency = self.buy_in.currency;
        if self.most_money().is_none_or(|m| m > MAX_TOTAL) {
            let most = Money::new(MAX_TOTAL, currency);
            return refuse(
                codes::AMOUNT_TOO_LARGE,
                "capacity",
                format!("{} entries, each with every rebuy and add-on, plus the guarantee, come to more than {most}", self.capacity),
            );
        }
        if self.most_chips().is_none_or(|c| c > MAX_TOTAL) {
            return refuse(
                codes::CHIPS_TOO_LARGE,
                "capacity",
                format!("{} entries, each with every rebuy and add-on, would put more than {MAX_TOTAL} chips in play", self.capacity),
            );
        }
        Ok(())
    }

    fn validate_fees_within_prize_pool(&self) -> Result<(), DefinitionError> {
        let entry = self.entry_ledger();
        let purchases = [
            ("fee", Some((entry.fee, entry.prize_pool))),
            ("rebuy", self.rebuy.map(|r| (r.fee, r.price))),
            ("add_on", self.add_on.map(|a| (a.fee, a.price))),
        ];
        for (field, (fee, pool)) in purchases.into_iter().filter_map(|(f, p)| p.map(|p| (f, p))) {
            if fee.amount > pool.amount {
                return refuse(codes::FEE_TOO_HIGH, field, format!("the fee {fee} is above the {pool} it puts in the prize pool"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::super::{AddOnTerms, RebuyCondition, RebuyTerms};
    use super::*;
    use crate::money::Currency;

    fn eur(amount: u64) -> Money {
        Money::new(amount, Currency::EUR)
    }

    fn rejected(def: TournamentDefinition) -> (&'static str, &'static str) {
        let err = def.validate().expect_err("refused");
        (err.code, err.field)
    }

    /// Issue 17, reproduction 2: a buy-in and an on-top fee of `i64::MAX` were accepted.
    #[test]
    fn amounts_above_the_bound_are_refused_before_any_sum_is_taken() {
        let huge = 9_223_372_036_854_775_807;
        let def = TournamentDefinition { buy_in: eur(huge), fee: Fee::OnTop(eur(huge)), ..sample() };
        assert_eq!(rejected(def), (codes::AMOUNT_TOO_LARGE, "buy_in"));
        let def = TournamentDefinition { buy_in: eur(u64::MAX), fee: Fee::OnTop(eur(u64::MAX)), ..sample() };
        assert_eq!(rejected(def), (codes::AMOUNT_TOO_LARGE, "buy_in"));
        let def = TournamentDefinition { buy_in: eur(MAX_AMOUNT), fee: Fee::OnTop(eur(MAX_AMOUNT + 1)), ..sample() };
        assert_eq!(rejected(def), (codes::AMOUNT_TOO_LARGE, "fee"));
        let def = TournamentDefinition { guarantee: Some(eur(u64::MAX)), ..sample() };
        assert_eq!(rejected(def), (codes::AMOUNT_TOO_LARGE, "capacity"));
    }

    #[test]
    fn a_starting_stack_of_u64_max_is_refused() {
        assert_eq!(rejected(TournamentDefinition { starting_stack: u64::MAX, ..sample() }), (codes::CHIPS_TOO_LARGE, "starting_stack"));
        let def = TournamentDefinition { starting_stack: MAX_CHIPS, capacity: 10_000, ..sample() };
        assert_eq!(rejected(def), (codes::CHIPS_TOO_LARGE, "capacity"), "10,000 stacks of 10^12 are more than 2^53 chips");
        assert_eq!(TournamentDefinition { starting_stack: MAX_CHIPS, capacity: 9_000, ..sample() }.validate(), Ok(()));
    }

    #[test]
    fn the_most_money_in_all_must_fit_however_many_amounts_are_each_allowed() {
        // Each amount is allowed; their product with the capacity is not.
        let def =
            TournamentDefinition { buy_in: eur(MAX_AMOUNT), fee: Fee::OnTop(eur(0)), capacity: u32::MAX, guarantee: None, ..sample() };
        assert_eq!(rejected(def.clone()), (codes::AMOUNT_TOO_LARGE, "capacity"));
        let rebuy = RebuyTerms {
            price: eur(1_000),
            fee: eur(100),
            chips: 1_000,
            max_per_entry: u32::MAX,
            condition: RebuyCondition::AtZero,
            offer_seconds: 30,
        };
        let def = TournamentDefinition { capacity: 1_000_000, buy_in: eur(1_000), rebuy: Some(rebuy), ..def };
        assert_eq!(rejected(def.clone()), (codes::AMOUNT_TOO_LARGE, "capacity"), "4 billion rebuys per entry");
        let fits = TournamentDefinition { rebuy: Some(RebuyTerms { max_per_entry: 3, ..rebuy }), ..def };
        assert_eq!(fits.validate(), Ok(()));
        assert_eq!(fits.most_money(), Some(1_000_000 * (1_000 + 3 * 1_100)));
    }

    /// Issue 17, reproduction 10: decided per profile in `docs/reliability.md`.
    #[test]
    fn a_fee_above_its_prize_pool_part_is_refused_under_every_profile() {
        for profile in crate::RuleProfile::ALL {
            let def = TournamentDefinition { buy_in: eur(1_000), fee: Fee::OnTop(eur(1_001)), guarantee: None, profile, ..sample() };
            assert_eq!(def.validate().unwrap_err().code, codes::FEE_TOO_HIGH, "{profile}");
        }
        let half = TournamentDefinition { fee: Fee::ShareOfBuyIn { basis_points: 5_001 }, ..sample() };
        assert_eq!(rejected(half), (codes::FEE_TOO_HIGH, "fee"));
        assert_eq!(TournamentDefinition { fee: Fee::ShareOfBuyIn { basis_points: 5_000 }, ..sample() }.validate(), Ok(()));
        let add_on = AddOnTerms { price: eur(1_000), fee: eur(2_000), chips: 1_000 };
        assert_eq!(rejected(TournamentDefinition { add_on: Some(add_on), ..sample() }), (codes::FEE_TOO_HIGH, "add_on"));
        let freeroll = TournamentDefinition { buy_in: eur(0), fee: Fee::OnTop(eur(0)), guarantee: None, ..sample() };
        assert_eq!(freeroll.validate(), Ok(()), "a freeroll pays no fee (001)");
    }
}
