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
//! - **ICM** (the option practice §3 mentions): fees back, then each prize still open (places
//!   1..=N, N the entries still in, at most the places paid) shared by Malmuth-Harville equity
//!   on the chips (`floor_rules::icm`, exact), in cents by the documented remainder rule; what
//!   the prizes leave of the open pool (a guarantee, a table paying less than the pool) by chips.
//!
//! Bounties on a roll-forward: [`crate::cancellation::Builder::bounties`] (each keeps the bounty
//! on their own head: PokerStars refunds "the KO bounty").

use crate::cancellation::{owed_then_rest, Builder, Plan};
use crate::error::CancelError;
use crate::statement::{Case, Method, Rule};

/// Cancels by `method`: roll-forward by default.
///
/// # Errors
/// As [`roll_forward`] and [`icm`].
pub fn cancel(b: &mut Builder, method: Method) -> Result<Plan, CancelError> {
    match method {
        Method::Rollback => Ok(rollback(b, Rule::TdaRollback, Case::Rollback)),
        Method::Rulebook | Method::RollForward => roll_forward(b),
        Method::Icm => icm(b),
    }
}

/// Fees back to the entries still in; the open prizes by ICM; the rest of the open pool by chips.
///
/// # Errors
/// `icm_*` when ICM refuses the stacks; `amount_too_large`.
pub fn icm(b: &mut Builder) -> Result<Plan, CancelError> {
    let t = b.t;
    let rule = Rule::TdaIcm;
    for &i in &t.remaining {
        b.refund_fees(i, rule);
    }
    let pool = t.pool();
    let open = t.open_prize_money(pool);
    let owed = b.by_icm(rule)?;
    let (prize_money, rest) = owed_then_rest(open, owed);
    b.by_chips(rule, rest);
    let case = if t.in_the_money() { Case::RollForwardInTheMoney } else { Case::RollForwardBeforeTheMoney };
    let bounty_money = b.bounties();
    Ok(Plan { method: Method::Icm, case, decided_under: None, pool, prize_money, bounty_money })
}

/// Every entry gets back everything it paid, under `rule` (also 001 Art. 15's refund).
pub fn rollback(b: &mut Builder, rule: Rule, case: Case) -> Plan {
    let t = b.t;
    for &i in &t.all {
        b.refund_everything(i, rule);
    }
    b.flight_shares(Rule::FloorFlight);
    Plan {
        method: Method::Rollback,
        case,
        decided_under: None,
        pool: t.collected(),
        prize_money: t.collected(),
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

#[cfg(test)]
mod tests {
    use crate::cancellation::cancel;
    use crate::rules::fixtures::*;
    use crate::snapshot::{Bounty, Standing};
    use crate::statement::{Case, LineKind::*, Method, Rule};
    use floor_events::RuleProfile::Tda2024;

    /// PokerStars' published example (practice §3.1): a $9,000 pool, 100 left, 37,500 of
    /// 300,000 chips → $45 + $562.50.
    #[test]
    fn the_pokerstars_example_pays_45_dollars_equally_and_562_50_by_chips() {
        // Given 120 entries at $75 + $7.50 fee: pool 120 × 7,500 = 900,000 cents; 20 out
        // before the money (15 paid), 100 left; entry 1 holds 37,500 chips, entries 2–99
        // 2,650 each, entry 100 2,800: 37,500 + 98 × 2,650 + 2,800 = 300,000.
        let mut entries = Vec::new();
        for no in 1..=120 {
            let chips = match no {
                1 => 37_500,
                100 => 2_800,
                _ => 2_650,
            };
            entries.push(if no <= 100 { still_in(no, paid(7_500, 750, 0), chips) } else { out(no, paid(7_500, 750, 0), no, 0) });
        }
        let c = cancel(&snapshot(MULTI, entries, &TABLE_9000), Tda2024, Method::Rulebook).unwrap();
        // When rolled forward before the money: half of 900,000 = 450,000 equally, 4,500 each;
        // half by chips, 450,000 × 37,500 / 300,000 = 56,250; plus the $7.50 fee back.
        assert_eq!(c.case, Case::RollForwardBeforeTheMoney);
        assert_eq!(lines(&c, 1), [(RefundFee, 750), (EqualShare, 4_500), (ChipShare, 56_250)]);
        // 450,000 × 2,650 / 300,000 = 3,975; × 2,800 / 300,000 = 4,200: no remainder.
        assert_eq!(lines(&c, 2), [(RefundFee, 750), (EqualShare, 4_500), (ChipShare, 3_975)]);
        assert_eq!(total(&c, 100), 750 + 4_500 + 4_200);
        assert_eq!(total(&c, 101), 0, "out before the money: nothing more");
        // Books: 120 × 8,250 = 990,000 in; fees kept 20 × 750 = 15,000; statements
        // 100 × 750 + 900,000 = 975,000.
        assert_eq!((c.books.paid_in, c.books.fees_kept, c.books.statements), (990_000, 15_000, 975_000));
        assert!(c.books.balanced());
        let line = &c.statement(&player(1)).unwrap().lines[2];
        assert_eq!(
            (line.rule, line.inputs.pot, line.inputs.weight, line.inputs.of),
            (Rule::TdaRollForward, 450_000, Some(37_500), Some(300_000))
        );
    }

    #[test]
    fn in_the_money_each_gets_the_next_unpaid_prize_then_the_rest_by_chips() {
        // Given 10 entries at €100 + €10, pool 100,000, 3 paid (50,000 / 30,000 / 20,000),
        // 3 left, nobody paid yet: remaining = paid places.
        let c = cancel(&field_of_10(MULTI, &[5_000, 3_000, 2_000]), Tda2024, Method::RollForward).unwrap();
        // Then each: fee 1,000, prize for place 3 = 20,000, and the rest 100,000 − 60,000 =
        // 40,000 by chips: 20,000 / 12,000 / 8,000.
        assert_eq!(c.case, Case::RollForwardInTheMoney);
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (PlacePrize, 20_000), (ChipShare, 20_000)]);
        assert_eq!(total(&c, 3), 1_000 + 20_000 + 8_000);
        assert_eq!(c.books.operator_cover, 0);
        assert!(c.books.balanced());
    }

    #[test]
    fn two_left_in_the_money_share_what_the_third_place_did_not_take() {
        // 2 left, the third paid 20,000: open 80,000; each 30,000 (place 2), rest 20,000 by
        // chips 7,000 : 3,000 → 14,000 / 6,000.
        let c = cancel(&field_of_10(MULTI, &[7_000, 3_000]), Tda2024, Method::Rulebook).unwrap();
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (PlacePrize, 30_000), (ChipShare, 14_000)]);
        assert_eq!(lines(&c, 2), [(RefundFee, 1_000), (PlacePrize, 30_000), (ChipShare, 6_000)]);
        assert_eq!(c.books.prizes_already_paid, 20_000);
        assert!(c.books.balanced());
    }

    #[test]
    fn nobody_out_yet_rolls_forward_the_whole_pool() {
        // 10 left of 10, chips equal: fee back, 50,000 equally (5,000 each), 50,000 by chips
        // (5,000 each): each gets exactly what they paid, 11,000.
        let c = cancel(&field_of_10(MULTI, &[1_000; 10]), Tda2024, Method::Rulebook).unwrap();
        assert!((1..=10).all(|no| total(&c, no) == 11_000));
        assert_eq!(c.books.fees_kept, 0);
    }

    #[test]
    fn rollback_refunds_every_entry_and_the_operator_covers_prizes_already_paid() {
        // 2 left; the third was paid 20,000. Every entry, out or in, gets its 11,000 back.
        let c = cancel(&field_of_10(MULTI, &[7_000, 3_000]), Tda2024, Method::Rollback).unwrap();
        assert_eq!(c.case, Case::Rollback);
        assert_eq!(lines(&c, 9), [(RefundFee, 1_000), (RefundBuyIn, 10_000)]);
        // The two still in would get 11,000 < 30,000, the prize for place 2: lifted to it.
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (RefundBuyIn, 10_000), (PlacePrizeTopUp, 19_000)]);
        // Operator: the 20,000 already paid + 2 × 19,000 top-ups.
        assert_eq!(c.books.operator_cover, 58_000);
        assert!(c.books.balanced());
    }

    /// Given 10 entries (pool €1,000, 500 / 300 / 200), entries 3..10 out and entry 3 paid
    /// €200; when the last two, 7,000 and 3,000 chips, are cancelled by ICM: fees back, and the
    /// open prizes €500 + €300 by Malmuth-Harville. P(entry 1 first) = 7,000 / 10,000 = 0.7, so
    /// entry 1: 0.7 × 50,000 + 0.3 × 30,000 = 44,000; entry 2: 0.3 × 50,000 + 0.7 × 30,000 =
    /// 36,000. The prizes are the whole open pool (100,000 − 20,000 paid): nothing by chips.
    #[test]
    fn icm_shares_the_open_prizes_by_malmuth_harville_equity() {
        let c = cancel(&field_of_10(MULTI, &[7_000, 3_000]), Tda2024, Method::Icm).unwrap();
        assert_eq!(c.case, Case::RollForwardInTheMoney);
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (IcmEquity, 44_000)]);
        assert_eq!(lines(&c, 2), [(RefundFee, 1_000), (IcmEquity, 36_000)]);
        assert!(c.books.balanced());
        let line = &c.statement(&player(1)).unwrap().lines[1];
        assert_eq!((line.rule, line.inputs.pot, line.inputs.weight, line.inputs.of), (Rule::TdaIcm, 80_000, Some(7_000), Some(10_000)));
        // An entry still in without a chip finishes below every stack: the stack takes first
        // prize by ICM, the empty one second (then lifted to nothing more: it is place 2's).
        let c = cancel(&field_of_10(MULTI, &[7_000, 0]), Tda2024, Method::Icm).unwrap();
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (IcmEquity, 50_000)]);
        assert_eq!(lines(&c, 2), [(RefundFee, 1_000), (EqualShare, 30_000)]);
        assert!(c.books.balanced());
    }

    /// A knockout tournament: bounties on heads go back, what nobody holds is shared.
    #[test]
    fn a_bounty_tournament_returns_each_own_bounty_and_shares_the_unclaimed_one() {
        // Given 10 entries at €100 (€50 of it bounty) + €10: pool 50,000, bounty pool 50,000;
        // entries 7–10 out before the money (3 paid); entry 1 collected the bounties of 7 and
        // 8 (10,000), entry 2 that of 9 (5,000); 10's was unclaimed (removed by the director).
        let chips = [30_000, 20_000, 15_000, 15_000, 10_000, 10_000];
        let mut s = field_of_10(MULTI, &chips);
        for e in &mut s.entries {
            e.buy_in = paid(10_000, 1_000, 5_000);
            if matches!(e.standing, Standing::Remaining { .. }) {
                e.bounty.head = 5_000;
            }
        }
        s.entries[0].bounty = Bounty { head: 5_000, collected: 10_000 };
        s.entries[1].bounty = Bounty { head: 5_000, collected: 5_000 };
        s.prizes = prizes(&[25_000, 15_000, 10_000]);
        let c = cancel(&s, Tda2024, Method::Rulebook).unwrap();
        // Then the pool: 25,000 equally = 6 × 4,166 + 4 → entries 1–4 get 4,167; 25,000 by
        // chips of 100,000: 7,500 / 5,000 / 3,750 / 3,750 / 2,500 / 2,500. Bounties: own
        // 5,000 each; the unclaimed 5,000 = 6 × 833 + 2 → entries 1–2 get 834.
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (EqualShare, 4_167), (ChipShare, 7_500), (OwnBounty, 5_000), (BountyShare, 834)]);
        assert_eq!(lines(&c, 6), [(RefundFee, 1_000), (EqualShare, 4_166), (ChipShare, 2_500), (OwnBounty, 5_000), (BountyShare, 833)]);
        // Books: 110,000 in = fees kept 4,000 + bounties paid 15,000 + statements 91,000.
        assert_eq!((c.books.fees_kept, c.books.bounties_already_paid, c.books.statements), (4_000, 15_000, 91_000));
        assert!(c.books.balanced());
    }
}
