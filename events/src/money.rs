//! Money in integer minor units with a currency code. Never floats.
//!
//! Amounts decode from JSON integers; a negative number is refused at decode time with a message
//! containing [`NEGATIVE_AMOUNT_MARK`], which the command endpoint maps to the stable code
//! `negative_amount` (rather than a generic type error), because "you sent −5" deserves its own
//! answer.

use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize};
use std::fmt;

/// The text every "negative amount" decode error contains.
pub const NEGATIVE_AMOUNT_MARK: &str = "negative amount";

/// The largest price or fee Floor accepts, in minor units: 10^12 (ten billion euros). Checked
/// when a tournament is defined (`docs/reliability.md`), so sums of many such amounts stay far
/// from `u64::MAX`.
pub const MAX_AMOUNT: u64 = 1_000_000_000_000;

/// The largest sum Floor lets a tournament reach, in minor units (or chips): 2^53 − 1. Every
/// total is exact as a JSON number in any client, JavaScript included, and far below `u64::MAX`,
/// so no sum in the books can wrap. A definition whose most money in all (every seat, rebuy and
/// add-on bought, the guarantee paid) would pass it is refused.
pub const MAX_TOTAL: u64 = (1 << 53) - 1;

/// Active ISO 4217 currency codes a tournament may be played for: national currencies and the
/// regional ones (XAF, XCD, XOF, XPF). Left out on purpose: precious metals (XAU, XAG, XPD, XPT),
/// fund and accounting units (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW, XBA–XBD, XDR, XSU,
/// XUA), testing and "no currency" (XTS, XXX). Sorted, for a binary search.
pub const ISO_4217: [&str; 159] = [
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT", "BGN", "BHD", "BIF", "BMD", "BND", "BOB",
    "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHF", "CLP", "CNY", "COP", "CRC", "CUC", "CUP", "CVE", "CZK", "DJF", "DKK",
    "DOP", "DZD", "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HTG",
    "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT",
    "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MYR",
    "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB",
    "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SLL", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS",
    "TMT", "TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "UYU", "UZS", "VED", "VES", "VND", "VUV", "WST", "XAF", "XCD",
    "XOF", "XPF", "YER", "ZAR", "ZMW", "ZWG", "ZWL",
];

/// An ISO 4217 currency code: three upper-case ASCII letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(into = "String")]
pub struct Currency([u8; 3]);

impl Currency {
    /// The euro.
    pub const EUR: Currency = Currency(*b"EUR");

    /// Parses a three-letter upper-case code.
    pub fn parse(code: &str) -> Result<Self, String> {
        let bytes = code.as_bytes();
        if bytes.len() == 3 && bytes.iter().all(u8::is_ascii_uppercase) {
            Ok(Currency([bytes[0], bytes[1], bytes[2]]))
        } else {
            Err(format!("currency must be three upper-case letters (ISO 4217), got {}", crate::text::quote(code)))
        }
    }

    /// Whether this is an active ISO 4217 currency ([`ISO_4217`]).
    ///
    /// Decoding checks only the shape (three upper-case letters), so events stored before this
    /// rule still read; a new tournament's definition is checked against the list.
    pub fn is_iso_4217(&self) -> bool {
        ISO_4217.binary_search(&self.as_str()).is_ok()
    }

    /// The code as text.
    pub fn as_str(&self) -> &str {
        // Constructed only from ASCII upper-case letters.
        std::str::from_utf8(&self.0).unwrap_or("???")
    }
}

impl JsonSchema for Currency {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Currency".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217 currency code"})
    }
}

impl From<Currency> for String {
    fn from(c: Currency) -> String {
        c.as_str().to_owned()
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Currency::parse(&s).map_err(de::Error::custom)
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An amount of money: integer minor units (cents) of one currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Money {
    /// Minor units (for EUR: cents). Never negative.
    #[serde(deserialize_with = "non_negative")]
    pub amount: u64,
    /// ISO 4217 code.
    pub currency: Currency,
}

impl Money {
    /// `amount` minor units of `currency`.
    pub const fn new(amount: u64, currency: Currency) -> Self {
        Self { amount, currency }
    }

    /// Zero of a currency.
    pub const fn zero(currency: Currency) -> Self {
        Self { amount: 0, currency }
    }

    /// `self + other`, refusing mixed currencies and overflow.
    pub fn checked_add(self, other: Money) -> Option<Money> {
        (self.currency == other.currency)
            .then(|| self.amount.checked_add(other.amount))
            .flatten()
            .map(|amount| Money::new(amount, self.currency))
    }

    /// `self - other`, refusing mixed currencies and results below zero.
    pub fn checked_sub(self, other: Money) -> Option<Money> {
        (self.currency == other.currency)
            .then(|| self.amount.checked_sub(other.amount))
            .flatten()
            .map(|amount| Money::new(amount, self.currency))
    }

    /// The share `basis_points / 10_000` of this amount, rounded down to the minor unit.
    ///
    /// Rounding down is the documented remainder rule for shares: the remainder stays with the
    /// larger part (for a fee share, with the prize pool).
    pub fn share_bps(self, basis_points: u32) -> Money {
        let part = (u128::from(self.amount) * u128::from(basis_points)) / 10_000;
        Money::new(part as u64, self.currency)
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02} {}", self.amount / 100, self.amount % 100, self.currency)
    }
}

/// Decodes a non-negative integer, refusing negatives with [`NEGATIVE_AMOUNT_MARK`].
///
/// Used for money and chip counts alike.
pub fn non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct NonNegative;
    impl de::Visitor<'_> for NonNegative {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a non-negative integer")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("{NEGATIVE_AMOUNT_MARK}: {v}")))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
            if v < 0.0 {
                Err(E::custom(format!("{NEGATIVE_AMOUNT_MARK}: {v}")))
            } else {
                Err(E::custom(format!("expected an integer number of minor units, got {v}")))
            }
        }
    }
    d.deserialize_any(NonNegative)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_amounts_are_refused_with_the_mark() {
        let err = serde_json::from_str::<Money>(r#"{"amount": -5, "currency": "EUR"}"#).unwrap_err();
        assert!(err.to_string().contains(NEGATIVE_AMOUNT_MARK));
        let err = serde_json::from_str::<Money>(r#"{"amount": 1.5, "currency": "EUR"}"#).unwrap_err();
        assert!(!err.to_string().contains(NEGATIVE_AMOUNT_MARK));
    }

    #[test]
    fn currency_must_be_iso_shaped() {
        assert!(serde_json::from_str::<Money>(r#"{"amount": 5, "currency": "eur"}"#).is_err());
        let m: Money = serde_json::from_str(r#"{"amount": 1050, "currency": "EUR"}"#).unwrap();
        assert_eq!(m.to_string(), "10.50 EUR");
    }

    #[test]
    fn only_active_iso_4217_currencies_are_known() {
        assert!(ISO_4217.windows(2).all(|w| w[0] < w[1]), "sorted and without repeats");
        for code in ["EUR", "USD", "SEK", "CZK", "GBP", "XOF", "ZWL", "AED"] {
            assert!(Currency::parse(code).unwrap().is_iso_4217(), "{code}");
        }
        for code in ["XYZ", "XAU", "XXX", "XTS", "AAA", "HRK"] {
            assert!(!Currency::parse(code).unwrap().is_iso_4217(), "{code}");
        }
    }

    #[test]
    fn the_largest_total_is_exact_in_a_double_and_holds_many_of_the_largest_amounts() {
        assert_eq!(MAX_TOTAL as f64 as u64, MAX_TOTAL);
        assert_ne!((MAX_TOTAL + 2) as f64 as u64, MAX_TOTAL + 2, "past 2^53 a double loses units");
        let largest_prices_in_a_full_total = MAX_TOTAL / MAX_AMOUNT;
        assert_eq!(largest_prices_in_a_full_total, 9_007);
    }

    #[test]
    fn shares_round_down_and_never_exceed_the_whole() {
        let m = Money::new(999, Currency::EUR);
        assert_eq!(m.share_bps(1_000).amount, 99);
        assert_eq!(m.share_bps(10_000).amount, 999);
        assert!(m.checked_sub(Money::new(1_000, Currency::EUR)).is_none());
        assert!(m.checked_add(Money::new(1, Currency::parse("USD").unwrap())).is_none());
    }
}
