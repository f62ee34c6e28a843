//! Money as players read it: the one formatting rule every page of the lobby uses.
//!
//! An amount is integer minor units of an ISO 4217 currency. It is shown with the currency's
//! number of minor digits (two for most, none for the yen, three for the Kuwaiti dinar), the
//! whole part grouped by thousands with commas, and the currency's symbol in front when it has
//! a well-known one (`€10.00`, `$1,250.00`, `£0.50`, `¥500`); otherwise the code after the
//! amount (`1,000.00 SEK`). No float is involved: digits are cut from the integer.

use floor_events::{Currency, Money};

/// ISO 4217 currencies whose minor unit is not the cent, with their minor digits. Every other
/// code has two (ISO 4217's list, "minor unit" column).
const MINOR_DIGITS: &[(&str, u32)] = &[
    ("BIF", 0),
    ("CLP", 0),
    ("DJF", 0),
    ("GNF", 0),
    ("ISK", 0),
    ("JPY", 0),
    ("KMF", 0),
    ("KRW", 0),
    ("PYG", 0),
    ("RWF", 0),
    ("UGX", 0),
    ("VND", 0),
    ("VUV", 0),
    ("XAF", 0),
    ("XOF", 0),
    ("XPF", 0),
    ("BHD", 3),
    ("IQD", 3),
    ("JOD", 3),
    ("KWD", 3),
    ("LYD", 3),
    ("OMR", 3),
    ("TND", 3),
    ("CLF", 4),
    ("UYW", 4),
];

/// Symbols written before the amount.
const SYMBOLS: &[(&str, &str)] = &[("EUR", "€"), ("USD", "$"), ("GBP", "£"), ("JPY", "¥"), ("INR", "₹"), ("ILS", "₪")];

/// The number of minor digits of `currency` (ISO 4217).
pub fn minor_digits(currency: Currency) -> u32 {
    MINOR_DIGITS.iter().find(|(code, _)| *code == currency.as_str()).map_or(2, |(_, digits)| *digits)
}

/// `money` as players read it (see the module documentation): `€10.00`, `1,000.00 SEK`.
pub fn format(money: Money) -> String {
    let digits = minor_digits(money.currency);
    let unit = 10u64.pow(digits);
    let (whole, minor) = (money.amount / unit, money.amount % unit);
    let mut number = grouped(whole);
    if digits > 0 {
        number.push('.');
        number.push_str(&format!("{minor:0width$}", width = digits as usize));
    }
    match SYMBOLS.iter().find(|(code, _)| *code == money.currency.as_str()) {
        Some((_, symbol)) => format!("{symbol}{number}"),
        None => format!("{number} {}", money.currency),
    }
}

/// `n` with commas between groups of three digits: `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn money(amount: u64, code: &str) -> Money {
        Money::new(amount, Currency::parse(code).unwrap())
    }

    #[test]
    fn amounts_show_in_their_currencys_minor_digits_with_its_symbol_or_code() {
        let cases = [
            ("ten euros: 1000 cents", money(1_000, "EUR"), "€10.00"),
            ("a fee of one euro", money(100, "EUR"), "€1.00"),
            ("fifty cents", money(50, "EUR"), "€0.50"),
            ("nothing", money(0, "EUR"), "€0.00"),
            ("a guarantee of 250,000 euros", money(25_000_000, "EUR"), "€250,000.00"),
            ("dollars", money(125_000, "USD"), "$1,250.00"),
            ("the yen has no minor unit", money(500, "JPY"), "¥500"),
            ("the dinar has three", money(1_500, "KWD"), "1.500 KWD"),
            ("no symbol: the code after", money(100_000, "SEK"), "1,000.00 SEK"),
            ("the largest amount", money(u64::MAX, "EUR"), "€184,467,440,737,095,516.15"),
        ];
        for (case, amount, shown) in cases {
            assert_eq!(format(amount), shown, "{case}");
        }
    }

    proptest! {
        /// The digits shown are the amount's digits: removing the symbol, commas and point
        /// gives back the integer (no rounding, no float).
        #[test]
        fn the_digits_are_the_amount(amount in any::<u64>(), code in prop::sample::select(vec!["EUR", "JPY", "KWD", "CZK"])) {
            let shown = format(money(amount, code));
            let digits: String = shown.chars().filter(char::is_ascii_digit).collect();
            let expected = format!("{amount:0width$}", width = minor_digits(Currency::parse(code).unwrap()) as usize + 1);
            prop_assert_eq!(digits, expected);
        }
    }
}
