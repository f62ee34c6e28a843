//! `GET /`: the tournament list as a page: filters by state and format, start times in the
//! viewer's time zone, buy-in and fee, entrants, the prize pool with guarantee and overlay, and
//! pages.

use super::html::{document, instant, money, name, Text};
use super::html_error;
use crate::cache::LobbyCache;
use crate::document::{LobbyDocument, LobbyState};
use crate::listing::{late_registration_open, Format, Page, Query, QueryError, StateFilter};
use crate::respond::html;
use axum::extract::rejection::QueryRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Utc};
use maud::{html, Markup};
use std::sync::Arc;

/// The list's URL parameters, as given (parsed by [`Query::parse`], so a wrong value gets the
/// lobby's own error).
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct ListParams {
    state: Option<String>,
    format: Option<String>,
    page: Option<String>,
    per_page: Option<String>,
}

pub(crate) fn list_query(params: Result<axum::extract::Query<ListParams>, QueryRejection>) -> Result<Query, String> {
    let axum::extract::Query(p) = params.map_err(|r| r.body_text())?;
    Query::parse(p.state.as_deref(), p.format.as_deref(), p.page.as_deref(), p.per_page.as_deref()).map_err(|e: QueryError| e.to_string())
}

/// `GET /`: the list page.
pub(crate) async fn list_html(
    State(cache): State<LobbyCache>,
    params: Result<axum::extract::Query<ListParams>, QueryRejection>,
) -> Response {
    let query = match list_query(params) {
        Ok(query) => query,
        Err(message) => return html_error(StatusCode::BAD_REQUEST, &message),
    };
    let selected = cache.select(&query);
    let docs: Vec<Arc<LobbyDocument>> = selected.items.iter().filter_map(|(_, _, doc)| doc.clone()).collect();
    let shown = Page { items: docs, page: selected.page, per_page: selected.per_page, total: selected.total, pages: selected.pages };
    html(StatusCode::OK, render(&shown, &query, cache.clock.now()))
}

/// The list page for `query`, showing `shown` (one page of the filtered list), judged at `now`.
pub fn render(shown: &Page<std::sync::Arc<LobbyDocument>>, query: &Query, now: DateTime<Utc>) -> String {
    document(
        "Tournaments",
        html! {
            h1 { "Tournaments" } "\n"
            (filters(query))
            @if shown.items.is_empty() {
                p class="muted" { "No tournament here." } "\n"
            } @else {
                table class="tournaments" {
                    "\n"
                    thead {
                        tr {
                            th { "Start" } th { "Tournament" } th { "State" } th class="num" { "Buy-in" }
                            th class="num" { "Entrants" } th class="num" { "Prize pool" }
                        }
                    }
                    "\n"
                    tbody { "\n" @for doc in &shown.items { (row(doc, now)) } }
                    "\n"
                }
                "\n"
            }
            (pager(shown, query))
        },
    )
}

fn filters(query: &Query) -> Markup {
    let link = |q: Query, label: &str, on: bool| {
        html! { a href={ "/?" (Text(&q.to_url_query(1))) } class=[on.then_some("on")] { (label) } }
    };
    html! {
        nav class="filters" {
            "State: "
            (link(Query { state: None, ..*query }, "All", query.state.is_none()))
            @for state in StateFilter::ALL {
                (link(Query { state: Some(state), ..*query }, state.label(), query.state == Some(state)))
            }
        }
        "\n"
        nav class="filters" {
            "Format: "
            (link(Query { format: None, ..*query }, "All", query.format.is_none()))
            @for format in Format::ALL {
                (link(Query { format: Some(format), ..*query }, format.label(), query.format == Some(format)))
            }
        }
        "\n"
    }
}

/// The state players read: late registration is a running tournament still open to entries.
pub fn state_badge(doc: &LobbyDocument, now: DateTime<Utc>) -> Markup {
    let (class, label) = match doc.state {
        LobbyState::Running if late_registration_open(doc, now) => ("late_registration", "Late registration"),
        LobbyState::Registering => ("registering", "Registering"),
        LobbyState::Running => ("running", "Running"),
        LobbyState::Finished => ("finished", "Finished"),
        LobbyState::Cancelled => ("cancelled", "Cancelled"),
    };
    html! { span class={ "badge " (class) } { (label) } }
}

/// The formats as words: "Scheduled · Re-entry · Bounty".
pub fn formats(doc: &LobbyDocument) -> String {
    Format::ALL.into_iter().filter(|f| f.matches(doc)).map(Format::label).collect::<Vec<_>>().join(" · ")
}

fn row(doc: &LobbyDocument, now: DateTime<Utc>) -> Markup {
    let pool = &doc.prize_pool;
    html! {
        tr {
            td {
                @match doc.start {
                    Some(at) => { (instant(at)) }
                    None => { "when full" }
                }
            }
            td {
                a href={ "/tournaments/" (doc.tournament_id) } { (name(&doc.name)) }
                br;
                span class="muted" { (Text(&formats(doc))) }
            }
            td { (state_badge(doc, now)) }
            td class="num" { (money(doc.buy_in)) " + " (money(doc.fee)) }
            td class="num" { (doc.entrants) " / " (doc.capacity) }
            td class="num" {
                (money(pool.total))
                @if let Some(guarantee) = pool.guarantee {
                    br;
                    span class="muted" {
                        (money(guarantee)) " guaranteed"
                        @if pool.overlay.amount > 0 { ", overlay " (money(pool.overlay)) }
                    }
                }
            }
        }
        "\n"
    }
}

fn pager<T>(shown: &Page<T>, query: &Query) -> Markup {
    html! {
        nav class="pager" {
            @if let Some(previous) = shown.previous() {
                a rel="prev" href={ "/?" (Text(&query.to_url_query(previous))) } { "← Previous" }
            }
            span { "Page " (shown.page) " of " (shown.pages) " (" (shown.total) " tournaments)" }
            @if let Some(next) = shown.next() {
                a rel="next" href={ "/?" (Text(&query.to_url_query(next))) } { "Next →" }
            }
        }
        "\n"
    }
}
