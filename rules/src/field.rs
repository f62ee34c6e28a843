//! The payout table a field locks: the pool (contributions topped up to the guarantee), the
//! overlay, and the places paid by profile.
//!
//! The payouts service locks this table and the lobby projects it while the field still grows,
//! both through [`table_for`], so the lobby never shows a table the service would not lock for
//! that field.
//!
//! Spec: `../shared/spec/README.md` §1 (guarantees), §7 and §9 (satellites: a field with a
//! `seat_value` pays seats, [`crate::satellite::table`], issue 36); `practice.md` §4.4 (payout
//! generators); 003 App. 1 b ix (the 95 % cap on prize money: [`prize_cap`]).
//!
//! # 003 App. 1 b ix: a cap on money, not on places (issue 38)
//!
//! "ix. Garantované turnaje U těchto turnajů je fond výher garantován určitou pevnou minimální
//! částkou při zachování požadavků uvedených v 59 ZHH, tj. že před zahájením turnaje dojde
//! k uhrazení vkladů účastníků hazardní hry odpovídajícím nejméně 50 % předem stanovené minimální
//! výše výhry, a v případě, že souhrn vkladů bude vyšší než předem stanovená výše výhry,
//! Provozovatel nevyplatí na výhrách více než 95 % z úhrnné výše všech vkladů."
//!
//! (ix. Guaranteed tournaments. In these tournaments the prize fund is guaranteed at a fixed
//! minimum amount while keeping the requirements of § 59 of the Gambling Act, i.e. that before
//! the start of the tournament the participants' stakes paid in come to at least 50 % of the
//! predetermined minimum prize, and, where the sum of the stakes is higher than the
//! predetermined prize, the operator will not pay out in prizes more than 95 % of the total of
//! all stakes.)
//!
//! - **Stakes** ("vklady") are what 003's definitions say: "Vklad: jakékoliv plnění opravňující
//!   k účasti na hazardní hře; jedná se zejména o […] buy-in a rebuy při pokerových turnajích"
//!   (a stake is any payment entitling one to take part, notably the buy-in and rebuy in poker
//!   tournaments), and "Buy-in: […] skládá se ze dvou částí: (i) částky, která se […] stane
//!   součástí prize poolu […], a (ii) provize, kterou si ponechá Provozovatel" (the buy-in has two
//!   parts: the amount that becomes part of the prize pool, and the commission the operator
//!   keeps). So the stakes are everything paid in, **fees included**: buy-ins, re-entries,
//!   rebuys and add-ons (an add-on is one more rebuy), less refunds: the books' `paid_in`
//!   ([`Stakes::paid_in`]).
//! - **Prizes** ("výhry") are every prize paid: the payout table's pool and, in a bounty
//!   tournament, the bounty pool, which is paid out as prizes too. The cap on the table's pool
//!   is therefore 95 % of the stakes less the bounty pool.
//! - **When**: only a guaranteed tournament ("U těchto turnajů", in these tournaments) whose
//!   stakes are **higher** than the guarantee ("vyšší než": strictly). Without a guarantee the
//!   sentence has nothing to compare with and the pool is the prize-pool parts, as 003's
//!   definition of the buy-in says. With stakes at or below the guarantee, the guarantee is paid.
//! - **The rule as written**: with stakes just above the guarantee (between G and G / 0.95),
//!   95 % of them is less than the guarantee, and the cap wins: the sentence says the operator
//!   "nevyplatí" (will not pay) more, and the guarantee is made "při zachování požadavků" (while
//!   keeping the requirements). Floor follows the text; it is the operator's to set a guarantee
//!   and a fee that make sense together.
//! - **Rounding**: the cap is `⌊stakes × 9,500 / 10,000⌋` minor units, in `u128`, rounded down
//!   so the prizes never exceed 95 %; the bounty pool is taken off it saturating at zero. The
//!   pool is then `min(max(contributions, guarantee), cap)`; the overlay is what the pool holds
//!   beyond the contributions (zero when capped below them); what the cap keeps out of the
//!   contributions is the operator's, as the fee is (the payouts books count it so).
//! - **The 50 % condition** is a condition on the start, not on the table: see
//!   [`guarantee_requirement_met`]. Floor used to read "95 %" as a cap on the number of places
//!   paid (95 % of the entries), which never binds at the 15 % paid and capped nothing.

use crate::payout_table::{generate, paid_places, PayoutError, PayoutTable};
use floor_events::bubble::EliminationOrdering;
use floor_events::tournament::FixedPayouts;
use floor_events::{Currency, Money, RuleProfile};

/// Share of the entries paid (15 %, common online practice: `practice.md` §4.4), basis points.
pub const PAID_SHARE_BPS: u32 = 1_500;

/// The field as the log says it is at some point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Entries accepted, less those refunded.
    pub entries: u32,
    /// Their prize-pool contributions.
    pub contributions: Money,
    /// The guarantee.
    pub guarantee: Option<Money>,
    /// The rule profile (paid places, how simultaneous busts rank).
    pub profile: RuleProfile,
    /// The director's own table, if the definition has one.
    pub fixed: Option<FixedPayouts>,
    /// How players out in the same hand rank, when the tournament's definition sets its own
    /// (`hand_for_hand.ordering`, as the bubble ranks them); `None`: the profile's.
    pub ordering: Option<EliminationOrdering>,
    /// A satellite's seat value in minor units of the pool's currency (the definition's
    /// `satellite.seat_value`, issue 36): the table is then seats, not a generated table
    /// ([`crate::satellite::table`]: the seat value to places 1 … ⌊pool ÷ seat value⌋, the
    /// leftover to the next place; 000 §16.7, README §9). A double or nothing's equal prize
    /// (`fraction` × an entry's prize-pool part, issue 37) pays by the same table: fill it from
    /// [`crate::satellite::equal_prize`]. `None`: an ordinary tournament.
    pub seat_value: Option<u64>,
}

impl Field {
    /// How players out in the same hand rank: the tournament's own ordering, else its
    /// profile's ([`RuleProfile::hand_for_hand`]), the one the bubble ranks a hand by too.
    pub fn ordering(&self) -> EliminationOrdering {
        self.ordering.unwrap_or(self.profile.hand_for_hand().ordering)
    }
}

/// Why a field has no table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// The guarantee is in another currency than the buy-ins.
    #[error("the guarantee is in {guarantee}, the prize pool in {pool}")]
    CurrencyMismatch {
        /// The guarantee's currency.
        guarantee: Currency,
        /// The pool's.
        pool: Currency,
    },
}

/// 003 App. 1 b ix's stakes ("vklady") of a field: what the players paid in, fees included, less
/// refunds, and the part of it the bounty pool pays out as prizes (module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stakes {
    /// Everything paid in, minor units: buy-ins, re-entries, rebuys and add-ons with their fees,
    /// less refunds (the books' `paid_in`).
    pub paid_in: u64,
    /// Of it, the bounty pool (paid out as bounties, prizes too).
    pub bounty_pool: u64,
}

/// The cap 95 % of the stakes puts on prize money, basis points (003 App. 1 b ix).
pub const REEL_CZ_PRIZE_CAP_BPS: u64 = 9_500;

/// The most the payout table may pay under 003 App. 1 b ix, when the cap applies: a `reel-cz`
/// tournament with a guarantee whose stakes exceed it. Then `⌊stakes × 95 %⌋` less the bounty
/// pool (saturating), in minor units; `None` when no cap applies (module doc).
pub fn prize_cap(field: &Field, stakes: Stakes) -> Option<u64> {
    if field.profile != RuleProfile::ReelCz {
        return None;
    }
    // "v případě, že souhrn vkladů bude vyšší než předem stanovená výše výhry": the cap applies
    // when the sum of the stakes is higher than the guaranteed prize, in a guaranteed
    // tournament only ("U těchto turnajů").
    let guarantee = field.guarantee?;
    if stakes.paid_in <= guarantee.amount {
        return None;
    }
    // "nevyplatí na výhrách více než 95 % z úhrnné výše všech vkladů": rounded down, so never
    // more than 95 %. u128: stakes × 9,500 cannot overflow, and the result fits a u64.
    let cap = u128::from(stakes.paid_in) * u128::from(REEL_CZ_PRIZE_CAP_BPS) / 10_000;
    let cap = u64::try_from(cap).unwrap_or(u64::MAX);
    Some(cap.saturating_sub(stakes.bounty_pool))
}

/// 003 App. 1 b ix's condition on a guarantee: "před zahájením turnaje dojde k uhrazení vkladů
/// účastníků hazardní hry odpovídajícím nejméně 50 % předem stanovené minimální výše výhry"
/// (before the start, the stakes paid in come to at least 50 % of the guaranteed prize).
/// `paid_in_before_start` is the stakes (fees included, module doc) paid in when the tournament
/// starts. True for every other profile and for a tournament without a guarantee.
///
/// The sentence names no consequence; the guarantee is made "při zachování požadavků" (while
/// keeping the requirements), so a guaranteed `reel-cz` tournament below it cannot start as
/// guaranteed: registration's start cancels it at its start time, every entry refunded
/// (`guarantee_not_met`, issue 38), when this is false.
pub fn guarantee_requirement_met(profile: RuleProfile, guarantee: Option<Money>, paid_in_before_start: u64) -> bool {
    match (profile, guarantee) {
        // At least half: 2 × paid ≥ guarantee, exact in u128.
        (RuleProfile::ReelCz, Some(g)) => u128::from(paid_in_before_start) * 2 >= u128::from(g.amount),
        _ => true,
    }
}

/// The payout table for a field, and its pool and overlay, without its stakes: no 95 % cap
/// (003 App. 1 b ix) is applied, as none can be computed. [`table_with_stakes`] is the rule;
/// this is it for a caller that does not know the stakes yet (the lobby's projection).
///
/// # Errors
/// `CurrencyMismatch` when the guarantee is in another currency.
pub fn table_for(field: &Field) -> Result<(PayoutTable, Money, u64), FieldError> {
    table_with_stakes(field, None)
}

/// The payout table for a field, and its pool and overlay.
///
/// The pool is the contributions, topped up to the guarantee, and, under `reel-cz` with
/// `stakes` given, at most [`prize_cap`] (003 App. 1 b ix); the overlay is what the pool holds
/// beyond the contributions. Paid places: [`PAID_SHARE_BPS`] of the entries. The smallest prize
/// is at least one entry's contribution where the pool allows it (no cash below the buy-in),
/// else anything.
///
/// # Errors
/// `CurrencyMismatch` when the guarantee is in another currency.
pub fn table_with_stakes(field: &Field, stakes: Option<Stakes>) -> Result<(PayoutTable, Money, u64), FieldError> {
    let currency = field.contributions.currency;
    let guaranteed = match field.guarantee {
        Some(g) if g.currency != currency && field.entries > 0 => {
            return Err(FieldError::CurrencyMismatch { guarantee: g.currency, pool: currency });
        }
        Some(g) => g.amount,
        None => 0,
    };
    let uncapped = field.contributions.amount.max(guaranteed);
    let pool = match stakes.and_then(|s| prize_cap(field, s)) {
        Some(cap) => uncapped.min(cap),
        None => uncapped,
    };
    let overlay = pool.saturating_sub(field.contributions.amount);
    if let Some(seat_value) = field.seat_value {
        // A satellite (issue 36; README §9, 000 §16.7): seats of the seat value from the whole
        // pool, the leftover in cash to the next place; sums to the pool exactly.
        let pool = satellite_pool(field, pool, seat_value);
        let overlay = pool.saturating_sub(field.contributions.amount);
        return Ok((crate::satellite::table(pool, seat_value), Money::new(pool, currency), overlay));
    }
    if let Some(fixed) = &field.fixed {
        // Validated with the definition (whole pool, descending), so this cannot fail; an empty
        // table would pay nothing and leave the books unbalanced for all to see.
        let table = PayoutTable::fixed(&fixed.amounts(pool), pool).unwrap_or(PayoutTable { bands: vec![] });
        return Ok((table, Money::new(pool, currency), overlay));
    }
    let places = paid_places(field.entries, PAID_SHARE_BPS, 10_000);
    let min_prize = field.contributions.amount.checked_div(u64::from(field.entries)).unwrap_or(0);
    let table = generate(pool, places, min_prize).or_else(|_| generate(pool, places, 0)).unwrap_or_else(|e| match e {
        PayoutError::Empty
        | PayoutError::PoolTooSmall { .. }
        | PayoutError::DoesNotSumToPool { .. }
        | PayoutError::NotDescending { .. } => PayoutTable { bands: vec![] },
    });
    Ok((table, Money::new(pool, currency), overlay))
}

/// A satellite's pool: `pool` (the contributions topped up to the guarantee, capped where 003
/// caps it), except that a table never pays more places than the field has entries (as
/// [`paid_places`] never does): a guarantee that buys at least as many seats as there are
/// entries pays every entry a seat ("every survivor gets a seat", README §9) and nothing more;
/// the seats nobody can take, and a leftover with no place to go to, are not paid, so the
/// overlay is only what those seats need. Never below the contributions (they are the
/// players' money, paid out whole).
fn satellite_pool(field: &Field, pool: u64, seat_value: u64) -> u64 {
    if u64::from(crate::satellite::seats(pool, seat_value)) < u64::from(field.entries) {
        return pool;
    }
    let seats_for_all = u64::from(field.entries).saturating_mul(seat_value);
    pool.min(seats_for_all.max(field.contributions.amount))
}

/// The places [`table_for`] would pay, at most, without building the table. A satellite's:
/// its seats and the leftover's place, for the pool uncapped (003's cap only lowers the pool,
/// so never more places).
pub fn places_at_most(field: &Field) -> u32 {
    if let Some(seat_value) = field.seat_value {
        let pool = match field.guarantee {
            Some(g) if g.currency == field.contributions.currency => field.contributions.amount.max(g.amount),
            _ => field.contributions.amount,
        };
        let pool = satellite_pool(field, pool, seat_value);
        let leftover = u32::from(crate::satellite::leftover(pool, seat_value) > 0);
        return crate::satellite::seats(pool, seat_value).saturating_add(leftover);
    }
    match &field.fixed {
        Some(fixed) => fixed.shares_bps.len() as u32,
        None => paid_places(field.entries, PAID_SHARE_BPS, 10_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eur(amount: u64) -> Money {
        Money::new(amount, Currency::EUR)
    }

    /// `entries` buy-ins of €10 paid in, `fee_bps` of it the fee (003: a share of the buy-in).
    fn field(profile: RuleProfile, entries: u32, fee_bps: u64, guarantee: Option<u64>) -> (Field, Stakes) {
        let paid_in = u64::from(entries) * 1_000;
        let contributions = u64::from(entries) * (1_000 - 1_000 * fee_bps / 10_000);
        let field = Field {
            entries,
            contributions: eur(contributions),
            guarantee: guarantee.map(eur),
            profile,
            fixed: None,
            ordering: None,
            seat_value: None,
        };
        (field, Stakes { paid_in, bounty_pool: 0 })
    }

    /// 003 App. 1 b ix: "v případě, že souhrn vkladů bude vyšší než předem stanovená výše
    /// výhry, Provozovatel nevyplatí na výhrách více než 95 % z úhrnné výše všech vkladů" (where
    /// the sum of the stakes is higher than the predetermined prize, the operator will not pay
    /// out in prizes more than 95 % of the total of all stakes).
    #[test]
    fn reel_cz_prizes_never_exceed_95_percent_of_the_stakes_above_the_guarantee() {
        // Given a reel-cz tournament guaranteeing €1,000 with 200 buy-ins of €10 at a 3 % fee
        // (accepted: 003 allows 2–17 %): stakes €2,000 (fees included), contributions €1,940.
        let (field, stakes) = field(RuleProfile::ReelCz, 200, 300, Some(100_000));
        assert_eq!(field.contributions.amount, 194_000);
        // When the payout table is computed with its stakes.
        let (table, pool, overlay) = table_with_stakes(&field, Some(stakes)).unwrap();
        // Then the prizes are 95 % of the stakes, €1,900, not the €1,940 contributed; no overlay.
        assert_eq!(pool, eur(190_000));
        assert_eq!(table.total(), 190_000);
        assert_eq!(overlay, 0);
        assert_eq!(prize_cap(&field, stakes), Some(190_000));
        // And the places paid are 15 % of the entries, whatever the cap (it is on money).
        assert_eq!(table.places(), 30);
    }

    /// "souhrn vkladů bude vyšší než předem stanovená výše výhry": at or below the guarantee no
    /// cap applies and the guarantee is paid in full.
    #[test]
    fn reel_cz_pays_the_guarantee_when_the_stakes_do_not_exceed_it() {
        // Given €1,000 guaranteed and 100 buy-ins of €10 at 3 %: stakes €1,000, exactly it.
        let (field, stakes) = field(RuleProfile::ReelCz, 100, 300, Some(100_000));
        // When the table is computed, then the pool is the guarantee, €30 of it overlay.
        let (table, pool, overlay) = table_with_stakes(&field, Some(stakes)).unwrap();
        assert_eq!((pool, overlay, table.total()), (eur(100_000), 3_000, 100_000));
        assert_eq!(prize_cap(&field, stakes), None);
    }

    /// The text as written: just above the guarantee, 95 % of the stakes is below it, and the
    /// operator "nevyplatí" (will not pay) more than that.
    #[test]
    fn reel_cz_caps_below_the_guarantee_when_the_stakes_only_just_exceed_it() {
        // Given €1,000 guaranteed, 101 buy-ins of €10 at 3 %: stakes €1,010, contributions
        // €979.70.
        let (field, stakes) = field(RuleProfile::ReelCz, 101, 300, Some(100_000));
        // When the table is computed, then the pool is ⌊€1,010 × 95 %⌋ = €959.50.
        let (table, pool, overlay) = table_with_stakes(&field, Some(stakes)).unwrap();
        assert_eq!((pool, overlay, table.total()), (eur(95_950), 0, 95_950));
    }

    /// Rounding: down to the minor unit, so the prizes never exceed 95 %; the bounty pool,
    /// paid out as prizes too, counts against the cap.
    #[test]
    fn the_cap_rounds_down_and_counts_the_bounty_pool() {
        let (field, _) = field(RuleProfile::ReelCz, 200, 300, Some(100_000));
        // 100,001 × 0.95 = 95,000.95 → 95,000.
        assert_eq!(prize_cap(&field, Stakes { paid_in: 100_001, bounty_pool: 0 }), Some(95_000));
        assert_eq!(prize_cap(&field, Stakes { paid_in: 200_000, bounty_pool: 50_000 }), Some(140_000));
        assert_eq!(prize_cap(&field, Stakes { paid_in: 200_000, bounty_pool: 199_000 }), Some(0));
        assert_eq!(prize_cap(&field, Stakes { paid_in: u64::MAX, bounty_pool: 0 }), Some((u128::from(u64::MAX) * 95 / 100) as u64));
    }

    /// "U těchto turnajů" (in these tournaments): guaranteed reel-cz tournaments only; other
    /// profiles, a reel-cz tournament without a guarantee, and a caller without stakes keep the
    /// whole contributions.
    #[test]
    fn no_cap_without_a_reel_cz_guarantee() {
        for (profile, guarantee) in
            [(RuleProfile::Tda2024, Some(100_000)), (RuleProfile::FortunaCz2024, Some(100_000)), (RuleProfile::ReelCz, None)]
        {
            let (field, stakes) = field(profile, 200, 300, guarantee);
            let (_, pool, _) = table_with_stakes(&field, Some(stakes)).unwrap();
            assert_eq!(pool, eur(194_000), "{profile:?} {guarantee:?}");
        }
        let (field, _) = field(RuleProfile::ReelCz, 200, 300, Some(100_000));
        assert_eq!(table_for(&field).unwrap().1, eur(194_000), "no stakes, no cap");
    }

    /// A director's own table is the capped pool's too.
    #[test]
    fn a_fixed_table_shares_the_capped_pool() {
        let (mut field, stakes) = field(RuleProfile::ReelCz, 200, 300, Some(100_000));
        field.fixed = Some(FixedPayouts { shares_bps: vec![6_000, 4_000] });
        let (table, pool, _) = table_with_stakes(&field, Some(stakes)).unwrap();
        assert_eq!((pool.amount, table.prize(1), table.prize(2)), (190_000, 114_000, 76_000));
    }

    /// 003 App. 1 b ix: "před zahájením turnaje dojde k uhrazení vkladů účastníků hazardní hry
    /// odpovídajícím nejméně 50 % předem stanovené minimální výše výhry" (before the start,
    /// stakes of at least 50 % of the guaranteed prize are paid in).
    #[test]
    fn a_reel_cz_guarantee_needs_half_of_it_paid_in_before_the_start() {
        let g = Some(eur(100_000));
        assert!(guarantee_requirement_met(RuleProfile::ReelCz, g, 50_000));
        assert!(!guarantee_requirement_met(RuleProfile::ReelCz, g, 49_999));
        assert!(guarantee_requirement_met(RuleProfile::ReelCz, Some(eur(100_001)), 50_001));
        assert!(!guarantee_requirement_met(RuleProfile::ReelCz, Some(eur(100_001)), 50_000));
        assert!(guarantee_requirement_met(RuleProfile::ReelCz, None, 0));
        assert!(guarantee_requirement_met(RuleProfile::FortunaCz2024, g, 0));
    }

    /// A satellite of `entries` at €10 contributed each, seats worth `seat` (issue 36).
    fn satellite(entries: u32, seat: u64, guarantee: Option<u64>) -> Field {
        Field { seat_value: Some(seat), ..field(RuleProfile::Tda2024, entries, 0, guarantee).0 }
    }

    /// README §9 / 000 §16.7: seats = ⌊pool ÷ seat value⌋, each paid the seat value, the
    /// leftover in cash to the next place; the lobby's projection (`table_for`) and the lock
    /// (`table_with_stakes`) give the same table.
    #[test]
    fn a_satellite_s_table_is_its_seats_and_the_leftover_to_the_next_place() {
        // Given 10 entries contributing €10 each (€100) and seats worth €33.
        let field = satellite(10, 3_300, None);
        // When its table is computed.
        let (table, pool, overlay) = table_for(&field).unwrap();
        // Then three seats of €33 and €1 to fourth, the whole pool, no overlay.
        assert_eq!(
            table.bands,
            vec![crate::payout_table::Band { from: 1, to: 3, amount: 3_300 }, crate::payout_table::Band { from: 4, to: 4, amount: 100 }]
        );
        assert_eq!((pool, overlay, table.total()), (eur(10_000), 0, 10_000));
        assert_eq!(places_at_most(&field), 4);
        assert_eq!(table_with_stakes(&field, Some(Stakes { paid_in: 11_000, bounty_pool: 0 })).unwrap().0, table);
    }

    /// The pool is the contributions topped up to the guarantee, as for any tournament: a
    /// guarantee buys whole seats too.
    #[test]
    fn a_guaranteed_satellite_pays_seats_from_the_guaranteed_pool() {
        let field = satellite(10, 3_300, Some(13_200));
        let (table, pool, overlay) = table_for(&field).unwrap();
        assert_eq!(table.bands, vec![crate::payout_table::Band { from: 1, to: 4, amount: 3_300 }]);
        assert_eq!((pool, overlay), (eur(13_200), 3_200));
        assert_eq!(places_at_most(&field), 4);
    }

    /// A guarantee that buys more seats than there are entries: every entry a seat, no more
    /// (no place beyond the field, as no table pays one); the overlay is what those seats need.
    #[test]
    fn a_guarantee_above_the_field_pays_every_entry_a_seat_and_no_more() {
        // Given 3 entries (€30 contributed) and €100 guaranteed with seats worth €33: the
        // guarantee buys three seats and €1 for a fourth place nobody can take.
        let field = satellite(3, 3_300, Some(10_000));
        let (table, pool, overlay) = table_for(&field).unwrap();
        // Then three seats, the pool what they cost, the overlay what they need beyond €30.
        assert_eq!(table.bands, vec![crate::payout_table::Band { from: 1, to: 3, amount: 3_300 }]);
        assert_eq!((pool, overlay, places_at_most(&field)), (eur(9_900), 6_900, 3));
        // And with two entries, two seats.
        let (table, pool, _) = table_for(&satellite(2, 3_300, Some(10_000))).unwrap();
        assert_eq!((table.places(), pool), (2, eur(6_600)));
        // And with four, the guaranteed pool as it is: three seats and €1 to fourth.
        let (table, pool, _) = table_for(&satellite(4, 3_300, Some(10_000))).unwrap();
        assert_eq!((table.places(), table.prize(4), pool), (4, 100, eur(10_000)));
    }

    proptest::proptest! {
        /// Money in = money out: a satellite's table pays exactly its pool, and never more
        /// places than `places_at_most` says, nor than the field has entries.
        #[test]
        fn a_satellite_table_pays_its_pool_to_the_cent(
            entries in 0u32..5_000,
            each in 1u64..100_000,
            seat in 1u64..10_000_000,
            guarantee in proptest::option::of(0u64..1_000_000_000),
        ) {
            let field = Field {
                seat_value: Some(seat),
                contributions: eur(u64::from(entries) * each),
                ..satellite(entries, seat, guarantee)
            };
            let (table, pool, _) = table_for(&field).unwrap();
            proptest::prop_assert_eq!(table.total(), pool.amount);
            proptest::prop_assert!(table.places() <= places_at_most(&field));
            proptest::prop_assert!(pool.amount >= field.contributions.amount);
            if each < seat {
                // A seat costs more than an entry (as a definition requires): no place beyond the field.
                proptest::prop_assert!(table.places() <= entries.max(1), "{:?} for {} entries", table, entries);
                proptest::prop_assert_eq!(table.prize(1), if pool.amount >= seat { seat } else { pool.amount });
            }
        }
    }
}
