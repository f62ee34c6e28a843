//! The payout table a field locks: the pool (contributions topped up to the guarantee), the
//! overlay, and the places paid by profile.
//!
//! The payouts service locks this table and the lobby projects it while the field still grows,
//! both through [`table_for`], so the lobby never shows a table the service would not lock for
//! that field.
//!
//! Spec: `../shared/spec/README.md` §7; `practice.md` §4.4 (payout generators); 003 (at most
//! 95 % of the entries paid).

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

/// Most of the entries a profile lets be paid: REEL (003) pays at most 95 %.
fn max_share_bps(profile: RuleProfile) -> u32 {
    match profile {
        RuleProfile::ReelCz => 9_500,
        _ => 10_000,
    }
}

/// The payout table for a field, and its pool and overlay.
///
/// The pool is the contributions, topped up to the guarantee; the overlay is the top-up. Paid
/// places: [`PAID_SHARE_BPS`] of the entries. The smallest prize is at least one entry's
/// contribution where the pool allows it (no cash below the buy-in), else anything.
///
/// # Errors
/// `CurrencyMismatch` when the guarantee is in another currency.
pub fn table_for(field: &Field) -> Result<(PayoutTable, Money, u64), FieldError> {
    let currency = field.contributions.currency;
    let guaranteed = match field.guarantee {
        Some(g) if g.currency != currency && field.entries > 0 => {
            return Err(FieldError::CurrencyMismatch { guarantee: g.currency, pool: currency });
        }
        Some(g) => g.amount,
        None => 0,
    };
    let pool = field.contributions.amount.max(guaranteed);
    let overlay = pool - field.contributions.amount;
    if let Some(fixed) = &field.fixed {
        // Validated with the definition (whole pool, descending), so this cannot fail; an empty
        // table would pay nothing and leave the books unbalanced for all to see.
        let table = PayoutTable::fixed(&fixed.amounts(pool), pool).unwrap_or(PayoutTable { bands: vec![] });
        return Ok((table, Money::new(pool, currency), overlay));
    }
    let places = paid_places(field.entries, PAID_SHARE_BPS, max_share_bps(field.profile));
    let min_prize = field.contributions.amount.checked_div(u64::from(field.entries)).unwrap_or(0);
    let table = generate(pool, places, min_prize).or_else(|_| generate(pool, places, 0)).unwrap_or_else(|e| match e {
        PayoutError::Empty
        | PayoutError::PoolTooSmall { .. }
        | PayoutError::DoesNotSumToPool { .. }
        | PayoutError::NotDescending { .. } => PayoutTable { bands: vec![] },
    });
    Ok((table, Money::new(pool, currency), overlay))
}

/// The places [`table_for`] would pay, at most, without building the table.
pub fn places_at_most(field: &Field) -> u32 {
    match &field.fixed {
        Some(fixed) => fixed.shares_bps.len() as u32,
        None => paid_places(field.entries, PAID_SHARE_BPS, max_share_bps(field.profile)),
    }
}
