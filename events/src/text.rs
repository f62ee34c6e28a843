//! Text a stranger types: tournament names and the reasons directors give (cancel, pause,
//! refuse). One check for all of it, so every such field has a maximum length, holds no control
//! characters (they corrupt terminals, logs and lobby lists: issue 17) and, where a reason is
//! required, is not blank.
//!
//! | field | at most (characters) | blank |
//! |---|---|---|
//! | tournament name ([`TOURNAMENT_NAME`]) | 100 | refused (`invalid_definition`) |
//! | cancellation reason ([`CANCEL_REASON`]) | 500 | refused (`reason_required`) |
//! | pause reason ([`PAUSE_REASON`]) | 500 | allowed |
//! | refusal reason ([`REFUSAL_REASON`]) | 500 | allowed |
//!
//! Player names are [`crate::PlayerId`]s (64 characters of `[A-Za-z0-9_.@-]`), checked at
//! decode time. An error quotes at most [`QUOTED_CHARS`] characters of the bad value, so a
//! megabyte of text is never echoed back.

use crate::codes;

/// How much of a bad value an error message quotes.
pub const QUOTED_CHARS: usize = 40;

/// The rules of one text field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRule {
    /// The field's name, as the error names it.
    pub field: &'static str,
    /// Most characters (Unicode scalar values) it may hold.
    pub max_chars: usize,
    /// The code for a blank value (empty or only white space); `None`: blank is allowed.
    pub blank: Option<&'static str>,
}

/// A tournament's display name.
pub const TOURNAMENT_NAME: TextRule = TextRule { field: "name", max_chars: 100, blank: Some(codes::INVALID_DEFINITION) };
/// Why a director cancels a tournament: players are told, so it is required.
pub const CANCEL_REASON: TextRule = TextRule { field: "reason", max_chars: 500, blank: Some(codes::REASON_REQUIRED) };
/// Why the clock is paused (audit trail).
pub const PAUSE_REASON: TextRule = TextRule { field: "reason", max_chars: 500, blank: None };
/// Why the operator refuses a player (audit trail).
pub const REFUSAL_REASON: TextRule = TextRule { field: "reason", max_chars: 500, blank: None };
/// A lottery prize table's published version (issue 37).
pub const TABLE_VERSION: TextRule = TextRule { field: "version", max_chars: 64, blank: Some(codes::INVALID_DEFINITION) };

/// A text that breaks its field's rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct TextError {
    /// Stable code: `text_too_long`, `control_character`, or the rule's blank code.
    pub code: &'static str,
    /// The field at fault.
    pub field: &'static str,
    /// Why, quoting at most [`QUOTED_CHARS`] characters of the value.
    pub message: String,
}

impl TextRule {
    /// Checks `value` against the rule.
    ///
    /// # Errors
    /// The first rule broken: too long, a control character (tabs and newlines included), or
    /// blank where the field is required.
    pub fn check(&self, value: &str) -> Result<(), TextError> {
        let error = |code, message: String| Err(TextError { code, field: self.field, message });
        // Counting stops one past the limit: a megabyte is not walked to say it is too long.
        if value.chars().nth(self.max_chars).is_some() {
            return error(codes::TEXT_TOO_LONG, format!("at most {} characters, got {}", self.max_chars, quote(value)));
        }
        if let Some((i, c)) = value.chars().enumerate().find(|(_, c)| c.is_control()) {
            return error(
                codes::CONTROL_CHARACTER,
                format!("control character U+{:04X} at character {} of {}", u32::from(c), i + 1, quote(value)),
            );
        }
        match self.blank {
            Some(code) if value.trim().is_empty() => error(code, "must not be empty".into()),
            _ => Ok(()),
        }
    }
}

/// `value` for an error message: debug-quoted (control characters escaped), cut after
/// [`QUOTED_CHARS`] characters with the length of the whole.
pub fn quote(value: &str) -> String {
    match value.char_indices().nth(QUOTED_CHARS) {
        None => format!("{value:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &value[..cut], value.len()),
    }
}

/// The most characters of an error message made from a decoder's own words (which may quote
/// the input).
pub const MAX_MESSAGE_CHARS: usize = 300;

/// `message` cut after [`MAX_MESSAGE_CHARS`] characters: for messages that may quote a
/// stranger's input, such as a decoder's.
pub fn shorten(message: String) -> String {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => message,
        Some((cut, _)) => format!("{}… ({} bytes in all)", &message[..cut], message.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_broken_rule_has_its_code() {
        let cases = [
            ("too long", TOURNAMENT_NAME, "x".repeat(101), codes::TEXT_TOO_LONG),
            ("a newline", TOURNAMENT_NAME, "Sunday\nMajor".to_owned(), codes::CONTROL_CHARACTER),
            ("an escape sequence", REFUSAL_REASON, "\u{1b}[31mred".to_owned(), codes::CONTROL_CHARACTER),
            ("a tab", PAUSE_REASON, "a\tb".to_owned(), codes::CONTROL_CHARACTER),
            ("blank name", TOURNAMENT_NAME, "   ".to_owned(), codes::INVALID_DEFINITION),
            ("empty cancel reason", CANCEL_REASON, String::new(), codes::REASON_REQUIRED),
            ("a megabyte", CANCEL_REASON, "é".repeat(1 << 20), codes::TEXT_TOO_LONG),
        ];
        for (case, rule, value, code) in cases {
            assert_eq!(rule.check(&value).unwrap_err().code, code, "{case}");
        }
    }

    #[test]
    fn what_fits_passes_and_blank_is_fine_where_optional() {
        assert_eq!(TOURNAMENT_NAME.check(&"é".repeat(100)), Ok(()), "characters, not bytes");
        assert_eq!(CANCEL_REASON.check("venue closed"), Ok(()));
        assert_eq!(PAUSE_REASON.check(""), Ok(()));
        assert_eq!(REFUSAL_REASON.check(""), Ok(()));
    }

    #[test]
    fn a_huge_value_is_never_echoed_whole() {
        let err = CANCEL_REASON.check(&"x".repeat(1 << 20)).unwrap_err();
        assert!(err.message.len() < 200, "{} bytes of message", err.message.len());
        let err = TOURNAMENT_NAME.check(&format!("{}\u{7}", "é".repeat(99))).unwrap_err();
        assert!(err.message.len() < 200, "{}", err.message);
        assert!(shorten("y".repeat(1 << 20)).len() < 400);
        assert_eq!(shorten("short".into()), "short");
    }
}
