//! `floor audit --report FILE.html` (issue 42): one self-contained page per tournament an auditor
//! can read without Floor: the result and every difference with its commits, the chains, the
//! rules profile (the definition as created), the draws with their commitments, the payouts,
//! and the timeline of commits. Built with maud, which escapes every value it writes (a player
//! name or a body holding `<script>` is text on the page, never markup).
//!
//! It reads the log as JSON (each event's `type` and fields) rather than through the contract's
//! types, so a commit this build cannot decode still shows on the timeline.

use crate::{LogCommit, Report};
use maud::{html, Markup, DOCTYPE};
use serde_json::Value;

/// Timeline rows written before the rest is summed up in one line.
const TIMELINE_ROWS: usize = 5_000;

fn events(c: &LogCommit) -> Vec<Value> {
    match serde_json::from_slice::<Value>(&c.body) {
        Ok(Value::Array(events)) => events,
        _ => Vec::new(),
    }
}

fn kind(e: &Value) -> &str {
    e.get("type").and_then(Value::as_str).unwrap_or("?")
}

fn aggregate(subject: &str) -> &str {
    subject.split('.').nth(2).unwrap_or(subject)
}

fn money(v: &Value) -> String {
    match (v.get("amount").and_then(Value::as_u64), v.get("currency").and_then(Value::as_str)) {
        (Some(amount), Some(currency)) => format!("{}.{:02} {currency}", amount / 100, amount % 100),
        _ => v.to_string(),
    }
}

/// The page for `tournament`'s `commits` and their `report`.
pub fn page(tournament: &str, commits: &[LogCommit], report: &Report) -> String {
    let mut sorted: Vec<&LogCommit> = commits.iter().collect();
    sorted.sort_by_key(|c| c.sequence);
    let decoded: Vec<(&LogCommit, Vec<Value>)> = sorted.iter().map(|c| (*c, events(c))).collect();
    let definition =
        decoded.iter().flat_map(|(_, es)| es.iter()).find(|e| kind(e) == "tournament_created").and_then(|e| e.get("definition"));
    let name = definition.and_then(|d| d.get("name")).and_then(Value::as_str).unwrap_or(tournament);
    let markup: Markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "Audit of " (name) }
                style { (STYLE) }
            }
            body {
                h1 { "Audit of " (name) }
                p { "Tournament " code { (tournament) } ", " (report.commits) " commits, audited by floor-audit "
                    (env!("CARGO_PKG_VERSION")) ": " strong class=(if report.ok { "ok" } else { "bad" }) { (if report.ok { "ok" } else { "DIFFERENCES" }) } }
                h2 { "Reconciliation" }
                table {
                    tr { th { "check" } th { "result" } th { "difference" } th { "commits (stream sequences)" } }
                    @for check in &report.checks {
                        @if check.ok {
                            tr { td { (check.name) } td class="ok" { "ok" } td {} td {} }
                        }
                        @for d in &check.differences {
                            tr { td { (check.name) } td class="bad" { "difference" } td { (d.message) }
                                td { (d.sequences.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")) } }
                        }
                    }
                }
                p { "Hash chains: " (report.chained) " commits chained, " (report.legacy) " legacy (stored before hash chains, not verifiable)." }
                h2 { "Rules profile" }
                @match definition {
                    Some(d) => pre { (serde_json::to_string_pretty(d).unwrap_or_default()) },
                    None => p { "No tournament_created in the log." },
                }
                h2 { "Draws and their commitments" }
                (draws(&decoded))
                h2 { "Payouts" }
                (payouts(&decoded))
                h2 { "Timeline" }
                (timeline(&decoded))
            }
        }
    };
    markup.into_string()
}

fn draws(decoded: &[(&LogCommit, Vec<Value>)]) -> Markup {
    html! {
        table {
            tr { th { "sequence" } th { "time" } th { "aggregate" } th { "event" } th { "commitment (SHA-256 of the seed)" } th { "seed revealed" } th { "SHA-256 of the seed" } }
            @for (c, es) in decoded {
                @for e in es {
                    @let commitment = e.get("commitment").and_then(Value::as_str);
                    @let seed = e.get("seed").and_then(Value::as_str);
                    @if commitment.is_some() || seed.is_some() {
                        tr {
                            td { (c.sequence) } td { (c.time.to_rfc3339()) } td { (aggregate(&c.subject)) } td { (kind(e)) }
                            td { code { (commitment.unwrap_or("")) } }
                            td { code { (seed.unwrap_or("")) } }
                            td { code { (seed.and_then(crate::seed_hash).unwrap_or_default()) } }
                        }
                    }
                }
            }
        }
    }
}

fn payouts(decoded: &[(&LogCommit, Vec<Value>)]) -> Markup {
    let of = |t: &str| decoded.iter().flat_map(|(c, es)| es.iter().filter(move |e| kind(e) == t).map(move |e| (*c, e))).collect::<Vec<_>>();
    html! {
        @for (c, e) in of("payout_table_locked") {
            p { "Payout table locked at sequence " (c.sequence) ": pool " (e.get("pool").map(money).unwrap_or_default())
                ", contributions " (e.get("contributions").map(money).unwrap_or_default())
                ", overlay " (e.get("overlay").map(money).unwrap_or_default()) "." }
        }
        table {
            tr { th { "place" } th { "shared by" } th { "entry" } th { "player" } th { "amount (minor units)" } th { "sequence" } }
            @for (c, e) in of("places_awarded") {
                @for a in e.get("awards").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
                    tr { td { (a["place"]) } td { (a["shared"]) } td { (a["entry"]) } td { (a["player"].as_str().unwrap_or("")) }
                        td { (a["amount"]) } td { (c.sequence) } }
                }
            }
        }
        @for (c, e) in of("deal_agreed") {
            p { "Deal agreed at sequence " (c.sequence) ": " code { (e.to_string()) } }
        }
        @for (c, e) in of("tournament_paid") {
            p { "Tournament paid at sequence " (c.sequence) ": " (e.get("prizes_paid").map(money).unwrap_or_default()) "." }
        }
    }
}

fn timeline(decoded: &[(&LogCommit, Vec<Value>)]) -> Markup {
    html! {
        table {
            tr { th { "sequence" } th { "time" } th { "aggregate" } th { "events" } }
            @for (c, es) in decoded.iter().take(TIMELINE_ROWS) {
                tr { td { (c.sequence) } td { (c.time.to_rfc3339()) } td { (aggregate(&c.subject)) }
                    td { (es.iter().map(kind).collect::<Vec<_>>().join(", ")) } }
            }
        }
        @if decoded.len() > TIMELINE_ROWS {
            p { (decoded.len() - TIMELINE_ROWS) " more commits (the export holds them all)." }
        }
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:1em 0}\
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}code,pre{font-size:.85em}\
pre{background:#f6f6f6;padding:1em;overflow:auto}.ok{color:#060}.bad{color:#a00;font-weight:bold}";

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn commit(sequence: u64, body: &str) -> LogCommit {
        LogCommit { subject: "floor.ev.payouts.t".into(), sequence, time: Utc::now(), body: body.as_bytes().to_vec(), previous: None }
    }

    #[test]
    fn what_the_log_says_is_escaped_on_the_page() {
        let log = vec![
            commit(
                1,
                r#"[{"v":1,"type":"places_awarded","awards":[{"place":1,"shared":1,"entry":1,"player":"<script>alert(1)</script>","amount":300}]}]"#,
            ),
            commit(2, r#"[{"v":1,"type":"draw_committed","commitment":"<b>x</b>"}]"#),
        ];
        let report = crate::audit(&log);
        let page = page("t", &log, &report);
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!page.contains("<b>x</b>") && page.contains("&lt;b&gt;x&lt;/b&gt;"));
        assert!(page.contains("Reconciliation") && page.contains("places_awarded"));
    }
}
