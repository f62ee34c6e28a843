//! The HTML every lobby page shares: escaping, the page frame with its style and script
//! (`assets/`, embedded in the binary: no build step), and the small pieces several pages use
//! (money, instants, counts).
//!
//! Every piece of text that came from a user (tournament and player names, a director's
//! reasons) goes through [`escape`] and nothing else writes it: a name like
//! `<script>alert(1)</script>` is shown as those characters.

use chrono::{DateTime, SecondsFormat, Utc};
use floor_events::Money;
use std::fmt::Write;

/// The lobby's style sheet.
pub const STYLE: &str = include_str!("../assets/lobby.css");
/// The lobby's script: instants in the viewer's time zone, countdowns, and the live feed.
pub const SCRIPT: &str = include_str!("../assets/lobby.js");

/// `text` safe in HTML text and in a quoted attribute: `& < > " '` become entities, and a
/// carriage return (which a Server-Sent Events line cannot carry) its character reference.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
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

    proptest::proptest! {
        /// Whatever a name holds, its escaped form has no character that opens markup or ends
        /// an attribute, and reads back as the name.
        #[test]
        fn escaped_text_opens_no_markup_and_reads_back(text in "\\PC*|[<>&\"'\r a-z]*") {
            let escaped = escape(&text);
            proptest::prop_assert!(!escaped.contains(['<', '>', '"', '\'', '\r']));
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
