//! Every finisher, place and prize (issue 39), as a page and as JSON, a page of
//! [`PLACES_PER_CHUNK`] places at a time, best first, from the results the projection keeps
//! beside the document ([`crate::results`]): the document itself keeps only the latest cashes
//! and the final table, so it does not grow with the field.
//!
//! | route | what |
//! |---|---|
//! | `GET /tournaments/{id}/results?page=` | places `(page-1)·500+1 … page·500` (a page) |
//! | `GET /api/tournaments/{id}/results?page=` | the same, JSON |

use super::html::{document, money, name};
use super::html_error;
use super::money::grouped;
use crate::cache::LobbyCache;
use crate::document::LobbyDocument;
use crate::respond::{bad_path, echoed, error, html, json, not_shown, path_id, NotShown};
use crate::results::{ordinal, page_key, PLACES_PER_CHUNK};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use floor_events::payouts::PlaceAward;
use floor_events::{EntryNo, Money, PlayerId, TournamentId};
use maud::html;
use serde::Serialize;

/// The URL parameters of the results.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct ResultsParams {
    page: Option<String>,
}

/// One finisher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finisher {
    /// Place (from 1).
    pub place: u32,
    /// Players who shared it (out in the same hand).
    pub shared: u32,
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// What the place paid (zero out of the money).
    pub prize: Money,
}

/// One page of the results.
#[derive(Debug, Serialize)]
pub struct Results {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// This page (from 1).
    pub page: u32,
    /// Pages for the field (entries / places per page, rounded up; at least 1).
    pub pages: u32,
    /// Places per page.
    pub per_page: u32,
    /// Entries in the field.
    pub entrants: u32,
    /// Entries still in.
    pub live_entries: u32,
    /// Places the payout table pays (absent before it has one).
    pub places_paid: Option<u32>,
    /// The finishers of this page's places so far, best first (places are awarded from the
    /// last up: a page fills as players go out).
    pub finishers: Vec<Finisher>,
}

/// Pages of the results for `doc`'s field.
pub fn pages(doc: &LobbyDocument) -> u32 {
    doc.entrants.max(1).div_ceil(PLACES_PER_CHUNK)
}

fn page_param(given: Result<axum::extract::Query<ResultsParams>, QueryRejection>) -> Result<u32, String> {
    let axum::extract::Query(p) = given.map_err(|r| r.body_text())?;
    match p.page.as_deref() {
        None => Ok(1),
        Some(text) => match text.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!("page must be a whole number from 1; got {}", echoed(text))),
        },
    }
}

/// Page `page` of `doc`'s results, read from the cache's results bucket.
async fn results(cache: &LobbyCache, doc: &LobbyDocument, page: u32) -> Results {
    let currency = doc.buy_in.currency;
    let finishers = if page <= pages(doc) {
        cache.results_chunk(&page_key(doc.tournament_id, page)).await.finishers.iter().map(|a| finisher(a, currency)).collect()
    } else {
        vec![]
    };
    Results {
        tournament_id: doc.tournament_id,
        page,
        pages: pages(doc),
        per_page: PLACES_PER_CHUNK,
        entrants: doc.entrants,
        live_entries: doc.live_entries,
        places_paid: doc.payouts.as_ref().map(|p| p.places_paid),
        finishers,
    }
}

fn finisher(a: &PlaceAward, currency: floor_events::Currency) -> Finisher {
    Finisher { place: a.place, shared: a.shared, entry: a.entry, player: a.player.clone(), prize: Money::new(a.amount, currency) }
}

/// `GET /api/tournaments/{id}/results`.
pub(crate) async fn api_results(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<ResultsParams>, QueryRejection>,
) -> Response {
    let id = match path_id(id) {
        Ok(id) => id,
        Err(rejection) => return bad_path(rejection),
    };
    let doc = match cache.document(&id).await {
        Ok(doc) => doc,
        Err(why) => return not_shown(&id, why),
    };
    let page = match page_param(given) {
        Ok(page) => page,
        Err(message) => return error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, message),
    };
    let shown = results(&cache, &doc, page).await;
    json(StatusCode::OK, serde_json::to_vec(&shown).expect("results serialize"))
}

/// `GET /tournaments/{id}/results`: the results page.
pub(crate) async fn results_html(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<ResultsParams>, QueryRejection>,
) -> Response {
    let Ok(Path(id)) = id else { return html_error(StatusCode::BAD_REQUEST, "not a tournament id") };
    let doc = match cache.document(&id).await {
        Ok(doc) => doc,
        Err(NotShown::Unknown) => return html_error(StatusCode::NOT_FOUND, &format!("No tournament {}.", echoed(&id))),
        Err(NotShown::NotYet) => {
            return html_error(StatusCode::SERVICE_UNAVAILABLE, "This tournament is just created; reload in a moment.")
        }
    };
    match page_param(given) {
        Ok(page) => {
            let shown = results(&cache, &doc, page).await;
            html(StatusCode::OK, render(&doc.name, &shown))
        }
        Err(message) => html_error(StatusCode::BAD_REQUEST, &message),
    }
}

/// The results page.
pub fn render(tournament: &str, r: &Results) -> String {
    let t = r.tournament_id;
    let first = (r.page - 1).saturating_mul(PLACES_PER_CHUNK) + 1;
    let last = r.page.saturating_mul(PLACES_PER_CHUNK).min(r.entrants.max(1));
    document(
        &format!("{tournament}: results"),
        html! {
            h1 { (name(tournament)) ": results" }
            "\n"
            p { a href={ "/tournaments/" (t) } { "Back to the tournament" } }
            "\n"
            p id="results-summary" {
                (grouped(r.entrants.into())) " entries · " (grouped(r.live_entries.into())) " still in"
                @if let Some(paid) = r.places_paid { " · " (grouped(paid.into())) " places paid" }
                " · places " (grouped(first.into())) "–" (grouped(last.into()))
            }
            "\n"
            @if r.finishers.is_empty() {
                p class="muted" id="no-finisher" { "No finisher in these places yet: places are awarded from the last up, as players go out." }
                "\n"
            } @else {
                table class="results" id="results" {
                    thead { tr { th { "Place" } th { "Player" } th class="num" { "Entry" } th class="num" { "Prize" } } }
                    tbody {
                        @for f in &r.finishers {
                            tr {
                                td { (ordinal(f.place)) @if f.shared > 1 { " (shared by " (f.shared) ")" } }
                                td { (name(f.player.as_str())) }
                                td class="num" { (f.entry.0) }
                                td class="num" { @if f.prize.amount > 0 { (money(f.prize)) } @else { span class="muted" { "–" } } }
                            }
                        }
                    }
                }
                "\n"
            }
            @if r.pages > 1 {
                nav class="pages" {
                    "page " (r.page) " of " (r.pages)
                    @if r.page > 1 { " · " a href={ "/tournaments/" (t) "/results?page=" (r.page.min(r.pages + 1) - 1) } { "previous" } }
                    @if r.page < r.pages { " · " a href={ "/tournaments/" (t) "/results?page=" (r.page + 1) } { "next" } }
                }
                "\n"
            }
            p class="muted" { "JSON: " a href={ "/api/tournaments/" (t) "/results?page=" (r.page) } { "results" } }
            "\n"
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finisher(place: u32, shared: u32, entry: u32, player: &str, prize: u64) -> Finisher {
        Finisher {
            place,
            shared,
            entry: EntryNo(entry),
            player: PlayerId::parse(player).unwrap(),
            prize: Money::new(prize, floor_events::Currency::EUR),
        }
    }

    fn shown(page: u32, finishers: Vec<Finisher>) -> Results {
        Results {
            tournament_id: TournamentId(uuid::Uuid::from_u128(3)),
            page,
            pages: 3,
            per_page: PLACES_PER_CHUNK,
            entrants: 1_200,
            live_entries: 0,
            places_paid: Some(180),
            finishers,
        }
    }

    #[test]
    fn every_finisher_shows_place_player_and_prize_and_the_pages_link_on() {
        let page = render(
            "<b>Sunday</b>",
            &shown(1, vec![finisher(1, 1, 9, "ana", 90_000), finisher(2, 1, 4, "bo", 50_000), finisher(181, 1, 7, "cy", 0)]),
        );
        assert!(page.contains("&lt;b&gt;Sunday&lt;/b&gt;: results") && !page.contains("<b>Sunday"), "the name is text");
        assert!(page.contains("<td>1st</td><td>ana</td><td class=\"num\">9</td><td class=\"num\">€900.00</td>"), "{page}");
        assert!(page.contains("<td>181st</td><td>cy</td>") && page.contains("class=\"muted\">–<"), "out of the money: no prize");
        assert!(page.contains("1,200 entries") && page.contains("180 places paid") && page.contains("places 1–500"), "{page}");
        assert!(page.contains("page 1 of 3") && page.contains("results?page=2\">next<") && !page.contains("previous"), "{page}");
        let last = render("Sunday", &shown(3, vec![finisher(1_100, 2, 12, "dee", 0)]));
        assert!(last.contains("places 1,001–1,200") && last.contains("1100th (shared by 2)"), "{last}");
        assert!(last.contains("results?page=2\">previous<") && !last.contains(">next<"), "{last}");
        let empty = render("Sunday", &shown(1, vec![]));
        assert!(empty.contains("No finisher in these places yet"), "{empty}");
    }
}
