//! After a deal (Floor's rule, `docs/abort.md` "After a deal"): the players still in agreed how
//! the unpaid prizes are divided (payouts' `deal_agreed`), and each elimination since paid the
//! agreed amount instead of the table's prize. A cancellation honours the agreement the same
//! way: the agreed amount stands where the profile's in-the-money rule puts the prize for
//! place N, and everything else follows the profile.
//!
//! - **Fees** to the entries still in as the profile's own rule gives them back: every fee
//!   (`tda-2024`, `reel-cz`, `win2day`, `svenska-spel-2012`), the buy-in's fee (`fortuna-cz-2024`).
//! - **The agreed amount** to each entry still in (`deal_share`, cited as `floor abort: agreed
//!   deal`).
//! - **The rest** of the open pool (what the deal left to play for, and anything the pool holds
//!   beyond the deal) by the profile's in-the-money rule for what is left after the prize for
//!   place N: by chips (`tda-2024`, `reel-cz`, `svenska-spel-2012`), equally (`win2day`), half
//!   equally and half by chips (`fortuna-cz-2024`).
//! - **Bounties** as on every roll-forward ([`Builder::bounties`]).
//!
//! The profile's own rule runs first: it refuses a method the profile does not offer, and a
//! rule that gives everything back (a rollback, 001 Art. 15) pays no deal: it stands as it is.
//! No place prize floor is added after a deal: the agreed amounts replaced the table's prizes,
//! and each entry still in gets at least its own.

use crate::cancellation::{owed_then_rest, Builder, Plan};
use crate::error::CancelError;
use crate::statement::{Case, Inputs, LineKind, Method, Rule};
use floor_events::RuleProfile;

/// Cancels a tournament whose players still in agreed a deal (`b.t.deal` is set) by `method`,
/// which the profile's own rule has accepted.
///
/// # Errors
/// `amount_too_large` when the agreed amounts do not fit.
pub fn cancel(b: &mut Builder, profile: RuleProfile, method: Method) -> Result<Plan, CancelError> {
    let t = b.t;
    let parts = t.deal.as_deref().unwrap_or_default();
    let rule = profile_rule(profile);
    for &i in &t.remaining {
        match profile {
            RuleProfile::FortunaCz2024 => b.refund_buy_in_fee(i, rule),
            _ => b.refund_fees(i, rule),
        };
    }
    let pool = t.pool();
    let open = t.open_prize_money(pool);
    let mut owed = 0u64;
    for (&i, &amount) in t.remaining.iter().zip(parts) {
        owed = owed.checked_add(amount).ok_or(CancelError::TooLarge)?;
        b.line(i, LineKind::DealShare, Rule::FloorDeal, amount, Inputs { pot: amount, ..Inputs::default() });
    }
    let (prize_money, rest) = owed_then_rest(open, owed);
    match profile {
        RuleProfile::Win2day => b.equal(rule, rest),
        RuleProfile::FortunaCz2024 => b.fifty_fifty(rule, rest),
        _ => b.by_chips(rule, rest),
    }
    let bounty_money = b.bounties();
    Ok(Plan { method, case: Case::AfterDeal, decided_under: Some(rule), pool, prize_money, bounty_money })
}

/// The rule the profile's in-the-money cancellation cites.
fn profile_rule(profile: RuleProfile) -> Rule {
    match profile {
        RuleProfile::Win2day => Rule::Win2day16_12,
        RuleProfile::HrvatskaLutrija2017 => Rule::HrvatskaLutrijaArt15,
        RuleProfile::SvenskaSpel2012 => Rule::SvenskaSpel2_8,
        RuleProfile::ReelCz => Rule::ReelCzGp10,
        RuleProfile::FortunaCz2024 => Rule::Fortuna4_37_2,
        RuleProfile::Tda2024 => Rule::TdaRollForward,
    }
}

#[cfg(test)]
mod tests {
    use crate::cancellation::cancel;
    use crate::error::codes;
    use crate::rules::fixtures::*;
    use crate::snapshot::{AgreedDeal, DealPart, Snapshot};
    use crate::statement::{Case, LineKind::*, Method, Rule};
    use floor_events::{EntryNo, RuleProfile};

    /// 002 §2.8's field of 10 (€100 + €10, 3 paid: 500 / 300 / 200) at its final three, holding
    /// 50,000 / 30,000 / 20,000 chips, who agreed a deal of €450 / €300 / €200 and left €50 to
    /// play for: the €1,000 of places 1–3.
    fn dealt(parts: &[(u32, u64)], left_to_play_for: u64) -> Snapshot {
        let mut s = field_of_10(MULTI, &[50_000, 30_000, 20_000]);
        let parts = parts.iter().map(|&(entry, amount)| DealPart { entry: EntryNo(entry), amount }).collect();
        s.deal = Some(AgreedDeal { parts, left_to_play_for });
        s
    }

    fn agreed() -> Snapshot {
        dealt(&[(1, 45_000), (2, 30_000), (3, 20_000)], 5_000)
    }

    #[test]
    fn the_agreed_amounts_stand_and_what_was_left_to_play_for_goes_by_chips() {
        let c = cancel(&agreed(), RuleProfile::Tda2024, Method::Rulebook).unwrap();
        assert_eq!((c.case, c.decided_under), (Case::AfterDeal, Some(Rule::TdaRollForward)));
        // Fee back, the agreed amount, and €50 by chips: 50 % / 30 % / 20 % → 2,500 / 1,500 / 1,000.
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (DealShare, 45_000), (ChipShare, 2_500)]);
        assert_eq!(lines(&c, 2), [(RefundFee, 1_000), (DealShare, 30_000), (ChipShare, 1_500)]);
        assert_eq!(lines(&c, 3), [(RefundFee, 1_000), (DealShare, 20_000), (ChipShare, 1_000)]);
        let line = &c.statement(&player(1)).unwrap().lines[1];
        assert_eq!((line.rule, line.inputs.pot), (Rule::FloorDeal, 45_000));
        assert_eq!(c.books.distributed, 100_000, "the open pool, all of it");
        assert!(c.books.balanced());
        assert_eq!(c.books.operator_cover, 0);
    }

    #[test]
    fn the_rest_follows_each_profile_s_own_in_the_money_rule() {
        let s = agreed();
        // win2day §16.12: the rest equally (5,000 / 3 = 1,666 rest 2: entries 1 and 2 get one more).
        let w = cancel(&s, RuleProfile::Win2day, Method::Rulebook).unwrap();
        assert_eq!(lines(&w, 3), [(RefundFee, 1_000), (DealShare, 20_000), (EqualShare, 1_666)]);
        assert_eq!(lines(&w, 1), [(RefundFee, 1_000), (DealShare, 45_000), (EqualShare, 1_667)]);
        // fortuna §4.37.2: the buy-in's fee, then half equally (834 / 833 / 833) and half by chips.
        let f = cancel(&s, RuleProfile::FortunaCz2024, Method::Rulebook).unwrap();
        assert_eq!(lines(&f, 1), [(RefundFee, 1_000), (DealShare, 45_000), (EqualShare, 834), (ChipShare, 1_250)]);
        assert_eq!(lines(&f, 3), [(RefundFee, 1_000), (DealShare, 20_000), (EqualShare, 833), (ChipShare, 500)]);
        // svenska-spel and reel-cz: by chips, as tda-2024.
        for profile in [RuleProfile::SvenskaSpel2012, RuleProfile::ReelCz] {
            let c = cancel(&s, profile, Method::Rulebook).unwrap();
            assert_eq!((c.case, lines(&c, 2)), (Case::AfterDeal, vec![(RefundFee, 1_000), (DealShare, 30_000), (ChipShare, 1_500)]));
        }
        for c in [w, f] {
            assert!(c.books.balanced());
        }
    }

    /// A deal below the table's prize for a place is the players' choice: no top-up to the
    /// prize for place 3 (€200) for the player who agreed €100.
    #[test]
    fn a_custom_deal_below_a_place_s_prize_gets_no_top_up() {
        let s = dealt(&[(1, 60_000), (2, 30_000), (3, 10_000)], 0);
        let c = cancel(&s, RuleProfile::Tda2024, Method::Rulebook).unwrap();
        assert_eq!(lines(&c, 3), [(RefundFee, 1_000), (DealShare, 10_000)]);
        assert_eq!(c.books.operator_cover, 0);
    }

    /// A refund of everything gives everything back, deal or no deal: 001 Art. 15 and a rollback.
    #[test]
    fn a_refund_of_everything_pays_no_deal() {
        let s = agreed();
        let hr = cancel(&s, RuleProfile::HrvatskaLutrija2017, Method::Rulebook).unwrap();
        assert_eq!(hr.case, Case::HrvatskaLutrijaRefund);
        let rollback = cancel(&s, RuleProfile::Tda2024, Method::Rollback).unwrap();
        assert_eq!(rollback.case, Case::Rollback);
        for c in [hr, rollback] {
            assert!(c.statements.iter().flat_map(|s| &s.lines).all(|l| l.kind != DealShare));
            assert!(c.books.balanced());
        }
    }

    #[test]
    fn parts_that_are_not_one_per_entry_still_in_are_refused() {
        for (case, s) in [
            ("a part for an entry out", dealt(&[(1, 45_000), (2, 30_000), (3, 20_000), (5, 0)], 5_000)),
            ("no part for entry 3", dealt(&[(1, 65_000), (2, 30_000)], 5_000)),
            ("two parts for entry 2", dealt(&[(1, 45_000), (2, 15_000), (2, 15_000), (3, 20_000)], 5_000)),
        ] {
            let e = cancel(&s, RuleProfile::Tda2024, Method::Rulebook).unwrap_err();
            assert_eq!(e.code(), codes::DEAL_AMOUNTS_DO_NOT_MATCH_PLAYERS, "{case}: {e}");
        }
        let e = cancel(&dealt(&[(1, u64::MAX), (2, 30_000), (3, 20_000)], 5_000), RuleProfile::Tda2024, Method::Rulebook).unwrap_err();
        assert_eq!(e.code(), floor_events::codes::AMOUNT_TOO_LARGE);
    }
}
