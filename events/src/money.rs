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
            Err(format!("currency must be three upper-case letters (ISO 4217), got {code:?}"))
        }
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
    fn shares_round_down_and_never_exceed_the_whole() {
        let m = Money::new(999, Currency::EUR);
        assert_eq!(m.share_bps(1_000).amount, 99);
        assert_eq!(m.share_bps(10_000).amount, 999);
        assert!(m.checked_sub(Money::new(1_000, Currency::EUR)).is_none());
        assert!(m.checked_add(Money::new(1, Currency::parse("USD").unwrap())).is_none());
    }
}
