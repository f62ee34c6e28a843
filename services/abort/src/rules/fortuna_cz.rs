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

#[cfg(test)]
mod tests {
    use crate::cancellation::cancel;
    use crate::rules::fixtures::*;
    use crate::statement::{Case, LineKind::*, Method, Rule};
    use floor_events::RuleProfile::FortunaCz2024;

    /// Case A, the seed's worked example: 100 × (90 + 10 Provize), pool 9,000, 15 paid, 20 left.
    fn twenty_left() -> crate::snapshot::Snapshot {
        // Entry 1 holds 10 % of the chips (100,000 of 1,000,000); entries 2–19 47,500 each,
        // entry 20 45,000: 100,000 + 18 × 47,500 + 45,000 = 1,000,000.
        let mut chips = vec![47_500; 20];
        chips[0] = 100_000;
        chips[19] = 45_000;
        field_of_100(&chips)
    }

    #[test]
    fn before_the_money_buy_ins_back_then_half_equally_half_by_chips() {
        let c = cancel(&twenty_left(), FortunaCz2024, Method::Rulebook).unwrap();
        // Buy-ins back: 20 × 9,000 = 180,000 from the pool, the Provize 1,000 from the fees.
        // Remaining pool 900,000 − 180,000 = 720,000: 360,000 equally = 18,000 each; 360,000
        // by chips: 10 % = 36,000. "A player holding 10 % of the chips gets 360 + 180 = 540
        // on top of the 90 refund" (004 §2.6).
        assert_eq!(c.case, Case::FortunaBeforeTheMoney);
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (RefundBuyIn, 9_000), (EqualShare, 18_000), (ChipShare, 36_000)]);
        // 360,000 × 47,500 / 1,000,000 = 17,100; × 45,000 = 16,200.
        assert_eq!(lines(&c, 2)[3], (ChipShare, 17_100));
        assert_eq!(lines(&c, 20)[3], (ChipShare, 16_200));
        assert!(c.statements.iter().flat_map(|s| &s.lines).all(|l| l.rule == Rule::Fortuna4_37_2));
        assert!(c.books.balanced());
    }

    #[test]
    fn a_guaranteed_event_pays_collected_money_during_late_registration_and_the_guarantee_after() {
        // Given the same field with a €10,000 guarantee (collected: 9,000).
        let mut s = twenty_left();
        s.guarantee = Some(1_000_000);
        s.buying_open = true;
        let during = cancel(&s, FortunaCz2024, Method::Rulebook).unwrap();
        // During late registration: the collected 900,000, as without a guarantee.
        assert_eq!((during.pool, during.books.overlay), (900_000, 0));
        assert_eq!(lines(&during, 1)[2], (EqualShare, 18_000));
        s.buying_open = false;
        let after = cancel(&s, FortunaCz2024, Method::Rulebook).unwrap();
        // After: 1,000,000 − 180,000 = 820,000; 410,000 / 20 = 20,500 each; 10 % of 410,000.
        assert_eq!((after.pool, after.books.overlay), (1_000_000, 100_000));
        assert_eq!(lines(&after, 1), [(RefundFee, 1_000), (RefundBuyIn, 9_000), (EqualShare, 20_500), (ChipShare, 41_000)]);
        assert!(after.books.balanced());
    }

    #[test]
    fn in_the_money_buy_ins_back_the_prize_for_place_n_then_the_rest_fifty_fifty() {
        // 6 left ("6 remain → each gets the 6th-place prize": 49,500); places 7–15 paid
        // 40,500 + 31,500 + 27,000 + 6 × 7,500 = 144,000. Open 756,000; refunds 6 × 9,000 =
        // 54,000; place prizes 297,000; rest 405,000: 202,500 / 6 = 33,750 each, 202,500 by
        // chips 40 / 25 / 15 / 10 / 6 / 4 % = 81,000 / 50,625 / 30,375 / 20,250 / 12,150 / 8,100.
        let c = cancel(&field_of_100(&[400_000, 250_000, 150_000, 100_000, 60_000, 40_000]), FortunaCz2024, Method::Rulebook).unwrap();
        assert_eq!(c.case, Case::FortunaInTheMoney);
        assert_eq!(
            lines(&c, 1),
            [(RefundFee, 1_000), (RefundBuyIn, 9_000), (PlacePrize, 49_500), (EqualShare, 33_750), (ChipShare, 81_000)]
        );
        assert_eq!(total(&c, 2), 1_000 + 9_000 + 49_500 + 33_750 + 50_625);
        assert_eq!(total(&c, 6), 1_000 + 9_000 + 49_500 + 33_750 + 8_100);
        assert_eq!(c.books.prizes_already_paid, 144_000);
        assert_eq!(c.books.operator_cover, 0);
        assert!(c.books.balanced());
    }

    #[test]
    fn heads_up_gives_both_buy_ins_back() {
        let entries = vec![still_in(1, paid(1_000, 50, 0), 3_000), still_in(2, paid(1_000, 50, 0), 1_000)];
        let c = cancel(&snapshot(SIT_AND_GO, entries, &[2_000]), FortunaCz2024, Method::Rulebook).unwrap();
        assert_eq!(c.case, Case::FortunaHeadsUp);
        assert_eq!(lines(&c, 1), [(RefundFee, 50), (RefundBuyIn, 1_000)]);
        assert_eq!(lines(&c, 2), [(RefundFee, 50), (RefundBuyIn, 1_000)]);
        assert_eq!(c.books.fees_kept, 0);
    }

    #[test]
    fn a_sit_and_go_shares_what_the_players_out_paid_in_equally() {
        // Given a 6-seat sit & go at €10 + €1, 3 paid (3,000 / 1,800 / 1,200); 2 left, the
        // third paid 1,200. Buy-ins back (1,000 + 100 each); the rest 6,000 − 1,200 − 2,000 =
        // 2,800 equally: 1,400 each, no chips involved.
        let entries = (1..=6)
            .map(|no| {
                if no <= 2 {
                    still_in(no, paid(1_000, 100, 0), 9_000 * u64::from(no))
                } else {
                    out(no, paid(1_000, 100, 0), no, if no == 3 { 1_200 } else { 0 })
                }
            })
            .collect();
        let c = cancel(&snapshot(SIT_AND_GO, entries, &[3_000, 1_800, 1_200]), FortunaCz2024, Method::Rulebook).unwrap();
        assert_eq!(c.case, Case::FortunaSitAndGo);
        assert_eq!(lines(&c, 1), [(RefundFee, 100), (RefundBuyIn, 1_000), (EqualShare, 1_400)]);
        assert_eq!(lines(&c, 2), [(RefundFee, 100), (RefundBuyIn, 1_000), (EqualShare, 1_400)]);
        // 2,500 each ≥ 1,800, the prize for place 2: no top-up.
        assert!(c.books.balanced());
    }

    #[test]
    fn when_the_owed_amounts_exceed_the_pool_the_operator_covers_them() {
        // A flat table: 10 × €100 + €10, 3 places of 33,334 / 33,333 / 33,333; 3 left. Buy-ins
        // back 30,000 + place prizes 3 × 33,333 = 129,999 > the open 100,000: nothing is left
        // to share and the operator adds 29,999.
        let mut s = field_of_10(MULTI, &[1, 1, 1]);
        s.prizes = prizes(&[33_334, 33_333, 33_333]);
        let c = cancel(&s, FortunaCz2024, Method::Rulebook).unwrap();
        assert_eq!(lines(&c, 1), [(RefundFee, 1_000), (RefundBuyIn, 10_000), (PlacePrize, 33_333)]);
        assert_eq!(c.books.operator_cover, 29_999);
        assert!(c.books.balanced());
    }
}
