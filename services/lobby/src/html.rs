//! The HTML every lobby page shares: escaping, the page frame with its style and script
//! (`assets/`, embedded in the binary: no build step), and the small pieces several pages use
//! (money, instants, counts).
//!
//! Every piece of text that came from a user (tournament and player names, a director's
//! reasons) goes through [`escape`] and nothing else writes it: a name like
//! `<script>alert(1)</script>` is shown as those characters. Characters that are invisible or
//! change the direction of the text around them (bidi overrides and isolates, zero-width
//! characters: [`is_hidden`]) are shown as `�` (issue 34), so a name cannot pass for another or
//! turn the rest of a line around; and names are set in `<bdi>` ([`name`]), so a right-to-left
//! name stays within its own span.
//!
//! The pages' style and script are inline; [`page_policy`] allows exactly them, by their
//! SHA-256, and nothing else inline.

use chrono::{DateTime, SecondsFormat, Utc};
use floor_events::Money;
use std::fmt::Write;

/// The lobby's style sheet.
pub const STYLE: &str = include_str!("../assets/lobby.css");
/// The lobby's script: instants in the viewer's time zone, countdowns, and the live feed.
pub const SCRIPT: &str = include_str!("../assets/lobby.js");

/// Whether `c` is invisible or changes the direction of the text around it: the bidi
/// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the marks (U+200E,
/// U+200F, U+061C), the zero-width characters (U+200B–U+200D, U+2060–U+2064, U+FEFF), the
/// Mongolian vowel separator (U+180E) and the deprecated format characters (U+206A–U+206F).
pub fn is_hidden(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}')
}

/// What a hidden character ([`is_hidden`]) is shown as.
pub const HIDDEN_SHOWN_AS: char = '\u{FFFD}';

/// `text` safe in HTML text and in a quoted attribute: `& < > " '` become entities, a carriage
/// return (which a Server-Sent Events line cannot carry) its character reference, and a hidden
/// character ([`is_hidden`]) [`HIDDEN_SHOWN_AS`].
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            c if is_hidden(c) => out.push(HIDDEN_SHOWN_AS),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
    out
}

/// A name or other user-given text as an element's content: escaped, and in a `<bdi>` (its
/// direction isolated from the text around it) unless it is plain ASCII, which holds no letter
/// written right to left and no control that could turn the text around.
pub fn name(text: &str) -> String {
    if text.is_ascii() {
        escape(text)
    } else {
        format!("<bdi>{}</bdi>", escape(text))
    }
}

/// `'sha256-…'` of `text`, as a Content-Security-Policy source.
pub fn csp_hash(text: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(text.as_bytes())))
}

/// The Content-Security-Policy of the players' pages: their own style and script (inline, by
/// hash), the live feed and forms from the same origin, no frames, plugins or base URL.
pub fn page_policy() -> &'static str {
    static POLICY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "default-src 'none'; style-src {}; script-src {}; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            csp_hash(&format!("\n{STYLE}")),
            csp_hash(&format!("\n{SCRIPT}"))
        )
    });
    &POLICY
}

/// A whole page: `title` (escaped here) and `body` (already HTML).
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{} · Floor lobby</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<header class=\"top\"><a href=\"/\">Floor lobby</a></header>\n{body}\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n",
        escape(title)
    )
}

/// A unit variant's serde name as words (`chip_share` → "chip share"); anything else: nothing.
pub fn words<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(|s| s.replace('_', " "))).unwrap_or_default()
}

/// Money by the one rule ([`crate::money::format`]).
pub fn money(amount: Money) -> String {
    escape(&crate::money::format(amount))
}

/// An instant: UTC text in the page, which the script rewrites in the viewer's time zone.
pub fn instant(at: DateTime<Utc>) -> String {
    format!("<time datetime=\"{}\" data-local>{}</time>", at.to_rfc3339_opts(SecondsFormat::Secs, true), at.format("%Y-%m-%d %H:%M UTC"))
}

/// Time left until `ends_at`, counting down in the page; `now` gives the text before the script
/// runs.
pub fn countdown(ends_at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let ms = u64::try_from((ends_at - now).num_milliseconds()).unwrap_or(0);
    format!("<span class=\"countdown\" data-ends-at=\"{}\">{}</span>", ends_at.to_rfc3339_opts(SecondsFormat::Millis, true), duration(ms))
}

/// `ms` as `h:mm:ss` or `m:ss`.
pub fn duration(ms: u64) -> String {
    let s = ms / 1_000;
    let (h, m, s) = (s / 3_600, s / 60 % 60, s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// A definition list from `(label, value HTML)` rows.
pub fn facts(rows: &[(&str, String)]) -> String {
    let mut out = String::from("<dl class=\"facts\">");
    for (label, value) in rows {
        let _ = write!(out, "<dt>{}</dt><dd>{value}</dd>", escape(label));
    }
    out.push_str("</dl>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_a_name_is_text() {
        assert_eq!(escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(escape("a \"b\" & 'c'\r\n"), "a &quot;b&quot; &amp; &#39;c&#39;&#13;\n");
        assert!(page("<b>", "").contains("<title>&lt;b&gt; · Floor lobby</title>"));
    }

    #[test]
    fn bidi_overrides_and_zero_width_characters_are_shown_neutralised() {
        let spoof = "admin\u{202E}gnp.exe\u{200B}\u{2066}x\u{FEFF}";
        assert_eq!(escape(spoof), "admin\u{FFFD}gnp.exe\u{FFFD}\u{FFFD}x\u{FFFD}");
        assert_eq!(name("محمد <b>"), "<bdi>محمد &lt;b&gt;</bdi>", "right-to-left letters are kept, isolated");
        assert_eq!(name("Ana <b>"), "Ana &lt;b&gt;", "plain ASCII needs no isolation");
        for c in [
            '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{200B}',
            '\u{200C}', '\u{200D}', '\u{200E}', '\u{200F}', '\u{2060}', '\u{FEFF}', '\u{061C}',
        ] {
            assert!(is_hidden(c), "{:04X}", c as u32);
        }
        for c in ['a', 'é', 'م', ' ', '\u{00A0}', '😀'] {
            assert!(!is_hidden(c), "{c}");
        }
    }

    #[test]
    fn the_page_policy_allows_exactly_the_pages_own_style_and_script() {
        let page = page("t", "");
        let inline = |open: &str, close: &str| {
            let start = page.find(open).expect("opened") + open.len();
            page[start..start + page[start..].find(close).expect("closed")].to_owned()
        };
        let policy = page_policy();
        assert!(policy.contains(&format!("style-src {};", csp_hash(&inline("<style>", "</style>")))), "{policy}");
        assert!(policy.contains(&format!("script-src {};", csp_hash(&inline("<script>", "</script>")))), "{policy}");
        assert!(!policy.contains("unsafe-inline") && policy.contains("frame-ancestors 'none'"));
        // The published example: SHA-256 of "" is 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=.
        assert_eq!(csp_hash(""), "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
    }

    proptest::proptest! {
        /// Whatever a name holds, its escaped form has no character that opens markup or ends
        /// an attribute, nor one hidden, and reads back as the name with its hidden characters
        /// shown.
        #[test]
        fn escaped_text_opens_no_markup_and_reads_back(text in "\\PC*|[<>&\"'\r a-z\u{202E}\u{200B}\u{2066}\u{FEFF}]*") {
            let escaped = escape(&text);
            proptest::prop_assert!(!escaped.contains(['<', '>', '"', '\'', '\r']));
            proptest::prop_assert!(!escaped.chars().any(is_hidden));
            let text: String = text.chars().map(|c| if is_hidden(c) { HIDDEN_SHOWN_AS } else { c }).collect();
            let back = escaped.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&#13;", "\r").replace("&amp;", "&");
            proptest::prop_assert_eq!(back, text);
        }
    }

    #[test]
    fn durations_and_countdowns_read_as_clocks() {
        assert_eq!((duration(0), duration(61_999), duration(3_600_000 + 5_000)), ("0:00".into(), "1:01".into(), "1:00:05".into()));
        let now: DateTime<Utc> = "2027-01-10T18:00:00Z".parse().unwrap();
        let shown = countdown(now + chrono::TimeDelta::seconds(90), now);
        assert!(shown.contains("data-ends-at=\"2027-01-10T18:01:30.000Z\"") && shown.contains(">1:30<"), "{shown}");
        assert!(countdown(now - chrono::TimeDelta::seconds(5), now).contains(">0:00<"), "an end in the past shows zero");
    }
}
