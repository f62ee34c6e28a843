//! The HTML every lobby page shares: escaping, the page frame with its style and script
//! (`assets/`, embedded in the binary: no build step), and the small pieces several pages use
//! (money, instants, counts).
//!
//! The pages are written with `maud` (issue 35): markup checked at compile time, and every
//! value escaped unless it says otherwise. Every piece of text that came from a user
//! (tournament and player names, a director's reasons) is written as [`Text`], which escapes
//! it with [`escape`] (maud's own escaping leaves `'`, a carriage return and the hidden
//! characters as they are): a name like
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
use maud::{html, Markup, PreEscaped, Render};

/// The lobby's style sheet.
pub const STYLE: &str = include_str!("../../assets/lobby.css");
/// The lobby's script: instants in the viewer's time zone, countdowns, and the live feed.
pub const SCRIPT: &str = include_str!("../../assets/lobby.js");

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
    escape_to(text, &mut out);
    out
}

fn escape_to(text: &str, out: &mut String) {
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
}

/// User-given text in a page, as element content or attribute value: escaped by [`escape`].
#[derive(Debug, Clone, Copy)]
pub struct Text<'a>(pub &'a str);

impl Render for Text<'_> {
    fn render_to(&self, buffer: &mut String) {
        escape_to(self.0, buffer);
    }
}

/// A name or other user-given text as an element's content: escaped, and in a `<bdi>` (its
/// direction isolated from the text around it) unless it is plain ASCII, which holds no letter
/// written right to left and no control that could turn the text around.
pub fn name(text: &str) -> Markup {
    html! {
        @if text.is_ascii() { (Text(text)) } @else { bdi { (Text(text)) } }
    }
}

/// `'sha256-…'` of `text`, as a Content-Security-Policy source.
pub fn csp_hash(text: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(text.as_bytes())))
}

/// The Content-Security-Policy of the players' pages: their own style and script (inline, by
/// hash: exactly the text [`document`] writes between the tags), the live feed and forms from
/// the same origin, no frames, plugins or base URL.
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
    document(title, PreEscaped(body))
}

/// A whole page: `title` and `body`, in the frame with the style and script whose hashes
/// [`page_policy`] names.
pub fn document(title: &str, body: impl Render) -> String {
    html! {
        (PreEscaped("<!doctype html>\n"))
        html lang="en" {
            "\n"
            head {
                "\n" meta charset="utf-8";
                "\n" meta name="viewport" content="width=device-width, initial-scale=1";
                "\n" title { (Text(title)) " · Floor lobby" }
                "\n" style { "\n" (PreEscaped(STYLE)) }
                "\n"
            }
            "\n"
            body {
                "\n" header class="top" { a href="/" { "Floor lobby" } }
                "\n" (body)
                "\n" script { "\n" (PreEscaped(SCRIPT)) }
                "\n"
            }
            "\n"
        }
        "\n"
    }
    .into_string()
}

/// A unit variant's serde name as words (`chip_share` → "chip share"); anything else: nothing.
pub fn words<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(|s| s.replace('_', " "))).unwrap_or_default()
}

/// Money by the one rule ([`super::money::format`]).
pub fn money(amount: Money) -> Markup {
    html! { (Text(&super::money::format(amount))) }
}

/// An instant: UTC text in the page, which the script rewrites in the viewer's time zone.
pub fn instant(at: DateTime<Utc>) -> Markup {
    html! {
        time datetime=(at.to_rfc3339_opts(SecondsFormat::Secs, true)) data-local { (at.format("%Y-%m-%d %H:%M UTC")) }
    }
}

/// Time left until `ends_at`, counting down in the page; `now` gives the text before the script
/// runs.
pub fn countdown(ends_at: DateTime<Utc>, now: DateTime<Utc>) -> Markup {
    let ms = u64::try_from((ends_at - now).num_milliseconds()).unwrap_or(0);
    html! {
        span class="countdown" data-ends-at=(ends_at.to_rfc3339_opts(SecondsFormat::Millis, true)) { (duration(ms)) }
    }
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

/// A definition list from `(label, value)` rows.
pub fn facts(rows: &[(&str, Markup)]) -> Markup {
    html! {
        dl class="facts" {
            @for (label, value) in rows { dt { (label) } dd { (value) } }
        }
    }
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
        assert_eq!(name("محمد <b>").into_string(), "<bdi>محمد &lt;b&gt;</bdi>", "right-to-left letters are kept, isolated");
        assert_eq!(name("Ana <b>").into_string(), "Ana &lt;b&gt;", "plain ASCII needs no isolation");
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
        let shown = countdown(now + chrono::TimeDelta::seconds(90), now).into_string();
        assert!(shown.contains("data-ends-at=\"2027-01-10T18:01:30.000Z\"") && shown.contains(">1:30<"), "{shown}");
        assert!(countdown(now - chrono::TimeDelta::seconds(5), now).into_string().contains(">0:00<"), "an end in the past shows zero");
    }
}

/// Render time of every page from a fixed document (issue 35): each page rendered 10,000 times,
/// the median per render. `cargo test --release -p floor-lobby --lib render_bench -- --ignored
/// --nocapture`; with `RENDER_DUMP=dir`, each page is also written there, to compare outputs.
#[cfg(test)]
mod render_bench {
    use crate::cache::seats::Held;
    use crate::console::pages::{self, Audited, LastReports, Notice, Signed};
    use crate::document::clock::LobbyClock;
    use crate::document::{LobbyDocument, LobbyState};
    use crate::listing::{Page, Query};
    use crate::seat_map::{ClosedTable, Closure, Found, Occupant, RecentMove, SeatsSummary, TableDoc};
    use chrono::{DateTime, Utc};
    use floor_events::abort::statement::{Books, Inputs, Line, LineKind, Rule, Statement};
    use floor_events::abort::Statements;
    use floor_events::clock::{ClockEvent, Preset, StepCause};
    use floor_events::payouts::{PayoutEvent, PlaceAward};
    use floor_events::seating::MoveReason;
    use floor_events::tournament::TournamentDefinition;
    use floor_events::{Currency, EntryNo, PlayerId, TournamentId};
    use std::sync::Arc;
    use std::time::Instant;

    const RENDERS: usize = 10_000;

    fn t0() -> DateTime<Utc> {
        "2027-01-10T18:00:00Z".parse().unwrap()
    }

    fn document(n: u128, name: &str) -> LobbyDocument {
        let definition: TournamentDefinition = serde_json::from_value(serde_json::json!({
            "name": name, "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
            "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
            "capacity": 100, "min_players": 2, "entry_model": {"kind": "freezeout"}, "profile": "tda-2024",
            "guarantee": {"amount": 100000, "currency": "EUR"},
        }))
        .unwrap();
        let mut doc = LobbyDocument::created(TournamentId(uuid::Uuid::from_u128(n)), &definition, t0(), 1);
        let structure = floor_rules::structure::preset(Preset::Standard);
        let clock = LobbyClock::new(structure).evolve(&ClockEvent::StepStarted {
            step: 0,
            number: 1,
            at: t0(),
            ends_at: t0() + chrono::TimeDelta::minutes(15),
            cause: StepCause::Start,
            blinds: None,
        });
        doc.clock = Some(clock);
        doc.state = LobbyState::Running;
        doc.entrants = 45;
        doc.live_entries = 30;
        doc.unique_players = 45;
        doc.payouts = doc.projected_payouts();
        for (entry, place, amount) in [(7, 45, 0), (4, 44, 0), (9, 43, 0)] {
            doc = doc.evolve_payouts(&PayoutEvent::PlacesAwarded {
                players_left_before: place,
                awards: vec![PlaceAward {
                    entry: EntryNo(entry),
                    player: PlayerId::parse(&format!("player{entry}")).unwrap(),
                    place,
                    shared: 1,
                    amount,
                }],
                hand_for_hand: None,
            });
        }
        doc
    }

    fn table(n: u32) -> TableDoc {
        TableDoc {
            table: n,
            seats: (1..=9u8)
                .map(|seat| Occupant {
                    seat,
                    entry: EntryNo(n * 10 + u32::from(seat)),
                    player: PlayerId::parse(&format!("player{n}x{seat}")).ok(),
                    chips: 10_000 + u64::from(seat) * 137,
                })
                .collect(),
            last_hand: Some(12),
            hand_running: true,
            hands: 11,
        }
    }

    fn summary(t: TournamentId) -> SeatsSummary {
        SeatsSummary {
            tournament_id: t,
            tables: vec![1, 2, 3, 4],
            seated: 30,
            waiting: 0,
            out: 15,
            moves: (0..5)
                .map(|i| RecentMove {
                    entry: EntryNo(i),
                    player: PlayerId::parse(&format!("mover{i}")).ok(),
                    from: (5, 2),
                    to: (1, 3),
                    reason: MoveReason::Balance { from_count: 6, to_count: 8 },
                })
                .collect(),
            closed: vec![ClosedTable { table: 5, closure: Closure::Broken { players_left: 30, tables_needed: 4 } }],
            tables_closed: 1,
            winner: None,
            shootout: None,
            last_sequence: 9,
        }
    }

    fn median(mut times: Vec<u128>) -> u128 {
        times.sort_unstable();
        times[times.len() / 2]
    }

    fn time(page: &str, mut render: impl FnMut() -> String) {
        let shown = render();
        if let Ok(dir) = std::env::var("RENDER_DUMP") {
            std::fs::write(format!("{dir}/{page}.html"), &shown).unwrap();
        }
        let times: Vec<u128> = (0..RENDERS)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(render());
                started.elapsed().as_nanos()
            })
            .collect();
        println!("{page:<22} {:>9.1} µs  ({} bytes)", median(times) as f64 / 1_000.0, shown.len());
    }

    #[test]
    #[ignore = "a benchmark: run in release with --ignored --nocapture"]
    fn render_bench() {
        let doc = document(1, "Sunday Million <b>");
        let t = doc.tournament_id;
        let docs: Vec<Arc<LobbyDocument>> = (0..20).map(|i| Arc::new(document(i + 1, &format!("Daily {i}")))).collect();
        let structure = floor_rules::structure::preset(Preset::Standard);
        let seats = summary(t);
        let query = Query::default();
        let tables: Vec<TableDoc> = (1..=4).map(table).collect();
        let shown = Page::of(tables.clone(), 1, 30);
        let found: Vec<Found> = (1..=9u8)
            .map(|seat| Found {
                entry: EntryNo(u32::from(seat)),
                player: PlayerId::parse(&format!("player1x{seat}")).unwrap(),
                out: false,
                table: Some(1),
                seat: Some(seat),
                chips: Some(10_000),
                place: None,
                shared: None,
                prize: None,
            })
            .collect();
        let player = PlayerId::parse("ana.b").unwrap();
        let line = |kind, amount, inputs| Line { entry: EntryNo(3), kind, rule: Rule::TdaRollback, amount, inputs };
        let statements = Statements {
            tournament_id: t,
            reason: "power cut <b>".into(),
            at: t0(),
            books: Books::default(),
            statements: vec![Statement {
                player: player.clone(),
                total: 1_234,
                lines: vec![
                    line(LineKind::RefundFee, 100, Inputs { pot: 100, ..Inputs::default() }),
                    line(LineKind::ChipShare, 1_134, Inputs { pot: 4_300, weight: Some(2_500), of: Some(9_000), place: None, extra: true }),
                ],
            }],
            players: 1,
            next: None,
        };
        let signed = Signed { director: "Ana", form_token: "0123456789abcdef" };
        let held = Held { summary: Some(seats.clone()), tables: tables.iter().map(|t| (t.table, t.clone())).collect(), ..Held::default() };
        let reports: LastReports = (1..=4).map(|n| (n, t0() - chrono::TimeDelta::seconds(i64::from(n) * 30))).collect();
        let audit: Vec<Audited> = (0..10)
            .map(|i| Audited {
                at: t0(),
                director: "Ana".into(),
                action: "pause".into(),
                tournament_id: Some(t),
                command_id: uuid::Uuid::from_u128(i),
                reason: Some("dinner".into()),
            })
            .collect();
        let done = Notice::Done("Clock paused".into());

        time("list", || crate::pages::list::render(&Page::of(docs.clone(), 1, 20), &query, t0()));
        time("tournament", || crate::pages::tournament::render(&doc, Some(&structure), Some(&seats), t0()));
        time("statement", || crate::pages::statements::render(t, &doc.name, Currency::EUR, &player, &statements));
        time("seat_map", || crate::pages::seats::render_tables(t, &doc.name, Some(&seats), &[], &shown));
        time("player_search", || crate::pages::seats::render_search(t, &doc.name, "player1", &found));
        time("console_login", || pages::login(Some("Wrong password.")));
        time("console_index", || pages::index(&docs, &signed, Some(&done), t0()));
        time("console_tournament", || pages::tournament(&doc, &held, &reports, &audit, &signed, Some(&done), t0()));
    }
}
