//! `svenska-spel-2012` (seed 002, "Spelregler Poker" 2012-10-23), §2.8 "Tekniska avbrott och
//! andra störningar" (p13–14). The registration fee ("anmälningsavgift") is the operator's; the
//! start fees ("startavgifter") are the prize pool, exactly (§2.2 T-1.2, T-1.3).
//!
//! - **T-12.1, single table**: "Skulle Svenska Spels spelsystem upphöra att fungera under
//!   pågående enbordsturnering avbryts allt spel. Alla kvarvarande Kunder får tillbaka sina
//!   anmälningsavgifter och får dela turneringens sammanlagda prispott lika mellan sig." (Should
//!   Svenska Spel's system stop working during a single-table tournament, all play is aborted.
//!   All remaining customers get their registration fees back and share the tournament's total
//!   prize pool equally between them.) "Sammanlagda prispott" is defined in §2.2: "Summan av
//!   startavgifterna är lika med turneringens sammanlagda prispott" (the sum of the start fees
//!   equals the tournament's total prize pool): the **whole** pool, not what is left of it.
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
//! table shares the whole pool, as T-12.1 says (issue 38): a prize Floor already paid at an
//! elimination is not clawed back (T-12.1 gives the eliminated nothing, and takes nothing from
//! them either), so the operator covers it (`operator_cover` in the books: the pool is shared
//! once among those still in and the prizes already paid come on top); chips are those at the
//! start of the interrupted hand (T-12.5: bets in unfinished hands go back).

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
        b.flight_shares(Rule::FloorFlight);
        let (pool, prize_money, bounty_money) = (t.collected(), t.collected(), t.bounty_paid_in);
        return Ok(Plan { method, case: Case::SvenskaSpelNobodyOut, decided_under: None, pool, prize_money, bounty_money });
    }
    for &i in &t.remaining {
        b.refund_fees(i, rule);
    }
    let pool = t.pool();
    let open = t.open_prize_money(pool);
    let (case, prize_money) = match t.snapshot.format.tables {
        // T-12.1: "dela turneringens sammanlagda prispott lika mellan sig", the whole pool;
        // prizes already paid stay paid, the operator covers them.
        Tables::Single => {
            b.equal(rule, pool);
            (Case::SvenskaSpelSingleTable, pool)
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

#[cfg(test)]
mod tests {
    use crate::cancellation::cancel;
    use crate::error::codes;
    use crate::rules::fixtures::*;
    use crate::statement::{Case, LineKind::*, Method};
    use floor_events::RuleProfile::SvenskaSpel2012;

    /// T-12.1: fee back, the pool equally, chips irrelevant; the odd öre to the lowest entries.
    #[test]
    fn single_table_shares_the_pool_equally_whatever_the_chips() {
        // Given 7 entries at 100 kr start fee + 10 kr registration fee (öre): pool 70,000,
        // 2 paid (45,500 / 24,500); entries 2, 5 and 7 still in, nobody paid yet.
        let entries = (1..=7)
            .map(|no| match no {
                2 | 5 | 7 => still_in(no, paid(10_000, 1_000, 0), u64::from(no) * 1_000),
                _ => out(no, paid(10_000, 1_000, 0), 4 + no % 4, 0),
            })
            .collect();
        let c = cancel(&snapshot(SINGLE, entries, &[45_500, 24_500]), SvenskaSpel2012, Method::Rulebook).unwrap();
        // Then 70,000 / 3 = 23,333 rest 1: entry 2 (the lowest number) gets 23,334.
        assert_eq!(c.case, Case::SvenskaSpelSingleTable);
        assert_eq!(lines(&c, 2), [(RefundFee, 1_000), (EqualShare, 23_334)]);
        assert_eq!(lines(&c, 5), [(RefundFee, 1_000), (EqualShare, 23_333)]);
        assert_eq!(lines(&c, 7), [(RefundFee, 1_000), (EqualShare, 23_333)]);
        assert!(c.statement(&player(1)).is_none(), "out: neither fee nor prize");
        assert!(c.books.balanced());
    }

    /// T-12.1 (issue 38): "Alla kvarvarande Kunder får tillbaka sina anmälningsavgifter och får
    /// dela turneringens sammanlagda prispott lika mellan sig" (all remaining customers get
    /// their registration fees back and share the tournament's total prize pool equally):
    /// the whole pool, even when a place was already paid; the operator covers that prize.
    #[test]
    fn single_table_shares_the_whole_pool_even_after_a_prize_was_paid() {
        // Given a single table of 7 entries at 100 kr start fee + 10 kr registration fee (öre):
        // pool 70,000, 3 paid (35,000 / 21,000 / 14,000); entry 4 went out third and was paid
        // 14,000; entries 2 and 5 are still in, the rest out without a prize.
        let entries = (1..=7)
            .map(|no| match no {
                2 | 5 => still_in(no, paid(10_000, 1_000, 0), u64::from(no) * 1_000),
                4 => out(no, paid(10_000, 1_000, 0), 3, 14_000),
                _ => out(no, paid(10_000, 1_000, 0), [7, 0, 6, 0, 0, 5, 4][no as usize - 1], 0),
            })
            .collect();
        // When Svenska Spel's system stops and the tournament is cancelled under §2.8.
        let c = cancel(&snapshot(SINGLE, entries, &[35_000, 21_000, 14_000]), SvenskaSpel2012, Method::Rulebook).unwrap();
        // Then the two still in share the whole 70,000 (35,000 each, chips irrelevant), not
        // the 56,000 left after the third prize, each with the 10 kr fee back.
        assert_eq!(c.case, Case::SvenskaSpelSingleTable);
        assert_eq!(c.pool, 70_000);
        assert_eq!(lines(&c, 2), [(RefundFee, 1_000), (EqualShare, 35_000)]);
        assert_eq!(lines(&c, 5), [(RefundFee, 1_000), (EqualShare, 35_000)]);
        assert!(c.statement(&player(4)).is_none(), "the third keeps the 140 kr paid, nothing more");
        // And the books balance with the operator covering the prize already paid: 77,000 in +
        // 14,000 cover = fees kept 5,000 + prizes paid 14,000 + statements 72,000.
        let b = c.books;
        assert_eq!(
            (b.paid_in, b.operator_cover, b.fees_kept, b.prizes_already_paid, b.statements),
            (77_000, 14_000, 5_000, 14_000, 72_000)
        );
        assert!(b.balanced());
    }

    /// T-12.2 (A): nobody out, every start fee (rebuys' and add-ons' too) and fee back.
    #[test]
    fn multi_table_with_nobody_out_refunds_everything() {
        // Given 10 entries still in; entry 3 rebought (100 kr, no fee) and took the add-on
        // (100 kr).
        let mut s = field_of_10(MULTI, &[1_000; 10]);
        s.entries[2].rebuys = vec![paid(10_000, 0, 0)];
        s.entries[2].add_ons = vec![paid(10_000, 0, 0)];
        let c = cancel(&s, SvenskaSpel2012, Method::Rulebook).unwrap();
        assert_eq!(c.case, Case::SvenskaSpelNobodyOut);
        assert_eq!(lines(&c, 3), [(RefundFee, 1_000), (RefundBuyIn, 10_000), (RefundRebuys, 10_000), (RefundAddOns, 10_000)]);
        assert_eq!(total(&c, 1), 11_000);
        assert_eq!((c.books.fees_kept, c.books.statements), (0, 130_000));
    }

    /// T-12.2 (B): P/(2N) each plus P/2 × chips/Σchips.
    #[test]
    fn multi_table_before_the_money_splits_half_equally_half_by_chips() {
        // Given 10 entries, 3 paid, 5 out (no prize), 5 left with 40,000 / 25,000 / 15,000 /
        // 12,000 / 8,000 chips (100,000). P = 100,000.
        let c = cancel(&field_of_10(MULTI, &[40_000, 25_000, 15_000, 12_000, 8_000]), SvenskaSpel2012, Method::Rulebook).unwrap();
        // Then 50,000 / 5 = 10,000 each; 50,000 × 40,000 / 100,000 = 20,000 … 4,000.
        assert_eq!(c.case, Case::SvenskaSpelBeforeTheMoney);
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (EqualShare, 10_000), (ChipShare, 20_000)]);
        assert_eq!(lines(&c, 5), [(RefundFee, 1_000), (EqualShare, 10_000), (ChipShare, 4_000)]);
        assert!(c.books.balanced());
    }

    /// T-12.2 (C), the seed's own illustration: P = 1000, 500 / 300 / 200, 2 left.
    #[test]
    fn multi_table_in_the_money_pays_the_lowest_remaining_prize_then_chips() {
        // The third keeps 200; each of the 2 gets 300 (the 2nd prize); R = 1000 − 200 − 600 =
        // 200 by chips 7,000 : 3,000 → 140 / 60. In öre, with the 10 kr fee back.
        let c = cancel(&field_of_10(MULTI, &[7_000, 3_000]), SvenskaSpel2012, Method::Rulebook).unwrap();
        assert_eq!(c.case, Case::SvenskaSpelInTheMoney);
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (PlacePrize, 30_000), (ChipShare, 14_000)]);
        assert_eq!(lines(&c, 2), [(RefundFee, 1_000), (PlacePrize, 30_000), (ChipShare, 6_000)]);
        assert!(c.statement(&player(3)).is_none(), "the third keeps the 200 already paid, nothing more");
        // Books: 110,000 in = fees kept 8,000 + prizes paid 20,000 + statements 82,000.
        assert_eq!((c.books.fees_kept, c.books.prizes_already_paid, c.books.statements), (8_000, 20_000, 82_000));
        assert!(c.books.balanced());
    }

    #[test]
    fn the_rulebook_has_one_formula() {
        let err = cancel(&field_of_10(MULTI, &[7_000, 3_000]), SvenskaSpel2012, Method::Rollback).unwrap_err();
        assert_eq!(err.code(), codes::METHOD_NOT_OFFERED);
    }
}
