//! `GET /`: the tournament list as a page: filters by state and format, start times in the
//! viewer's time zone, buy-in and fee, entrants, the prize pool with guarantee and overlay, and
//! pages.

use crate::domain::{LobbyDocument, LobbyState};
use crate::html::{escape, instant, money, page};
use crate::listing::{late_registration_open, Format, Page, Query, StateFilter};
use chrono::{DateTime, Utc};
use std::fmt::Write;

/// The list page for `query`, showing `shown` (one page of the filtered list), judged at `now`.
pub fn render(shown: &Page<std::sync::Arc<LobbyDocument>>, query: &Query, now: DateTime<Utc>) -> String {
    let mut body = String::from("<h1>Tournaments</h1>\n");
    body.push_str(&filters(query));
    if shown.items.is_empty() {
        body.push_str("<p class=\"muted\">No tournament here.</p>\n");
    } else {
        body.push_str(
            "<table class=\"tournaments\">\n<thead><tr><th>Start</th><th>Tournament</th><th>State</th><th class=\"num\">Buy-in</th><th class=\"num\">Entrants</th><th class=\"num\">Prize pool</th></tr></thead>\n<tbody>\n",
        );
        for doc in &shown.items {
            body.push_str(&row(doc, now));
        }
        body.push_str("</tbody>\n</table>\n");
    }
    body.push_str(&pager(shown, query));
    page("Tournaments", &body)
}

fn filters(query: &Query) -> String {
    let link = |q: Query, label: &str, on: bool| {
        format!("<a href=\"/?{}\"{}>{}</a>", escape(&q.to_url_query(1)), if on { " class=\"on\"" } else { "" }, escape(label))
    };
    let mut out = String::from("<nav class=\"filters\">State: ");
    out.push_str(&link(Query { state: None, ..*query }, "All", query.state.is_none()));
    for state in StateFilter::ALL {
        out.push_str(&link(Query { state: Some(state), ..*query }, state.label(), query.state == Some(state)));
    }
    out.push_str("</nav>\n<nav class=\"filters\">Format: ");
    out.push_str(&link(Query { format: None, ..*query }, "All", query.format.is_none()));
    for format in Format::ALL {
        out.push_str(&link(Query { format: Some(format), ..*query }, format.label(), query.format == Some(format)));
    }
    out.push_str("</nav>\n");
    out
}

/// The state players read: late registration is a running tournament still open to entries.
pub fn state_badge(doc: &LobbyDocument, now: DateTime<Utc>) -> String {
    let (class, label) = match doc.state {
        LobbyState::Running if late_registration_open(doc, now) => ("late_registration", "Late registration"),
        LobbyState::Registering => ("registering", "Registering"),
        LobbyState::Running => ("running", "Running"),
        LobbyState::Finished => ("finished", "Finished"),
        LobbyState::Cancelled => ("cancelled", "Cancelled"),
    };
    format!("<span class=\"badge {class}\">{label}</span>")
}

/// The formats as words: "Scheduled · Re-entry · Bounty".
pub fn formats(doc: &LobbyDocument) -> String {
    Format::ALL.into_iter().filter(|f| f.matches(doc)).map(Format::label).collect::<Vec<_>>().join(" · ")
}

fn row(doc: &LobbyDocument, now: DateTime<Utc>) -> String {
    let start = match doc.start {
        Some(at) => instant(at),
        None => "when full".to_owned(),
    };
    let pool = &doc.prize_pool;
    let mut prize = money(pool.total);
    if let Some(guarantee) = pool.guarantee {
        let _ = write!(prize, "<br><span class=\"muted\">{} guaranteed", money(guarantee));
        if pool.overlay.amount > 0 {
            let _ = write!(prize, ", overlay {}", money(pool.overlay));
        }
        prize.push_str("</span>");
    }
    format!(
        "<tr><td>{start}</td><td><a href=\"/tournaments/{id}\">{name}</a><br><span class=\"muted\">{formats}</span></td><td>{state}</td><td class=\"num\">{buy_in} + {fee}</td><td class=\"num\">{entrants} / {capacity}</td><td class=\"num\">{prize}</td></tr>\n",
        id = doc.tournament_id,
        name = crate::html::name(&doc.name),
        formats = escape(&formats(doc)),
        state = state_badge(doc, now),
        buy_in = money(doc.buy_in),
        fee = money(doc.fee),
        entrants = doc.entrants,
        capacity = doc.capacity,
    )
}

fn pager<T>(shown: &Page<T>, query: &Query) -> String {
    let mut out = String::from("<nav class=\"pager\">");
    if let Some(previous) = shown.previous() {
        let _ = write!(out, "<a rel=\"prev\" href=\"/?{}\">← Previous</a>", escape(&query.to_url_query(previous)));
    }
    let _ = write!(out, "<span>Page {} of {} ({} tournaments)</span>", shown.page, shown.pages, shown.total);
    if let Some(next) = shown.next() {
        let _ = write!(out, "<a rel=\"next\" href=\"/?{}\">Next →</a>", escape(&query.to_url_query(next)));
    }
    out.push_str("</nav>\n");
    out
}
