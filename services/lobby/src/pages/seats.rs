//! Who sits where, served: the seat map and the player search, as pages and as JSON, from the
//! in-memory copy of bucket [`crate::seat_map::BUCKET`] ([`crate::cache::seats::SeatCache`]).
//!
//! | route | what |
//! |---|---|
//! | `GET /tournaments/{id}/tables?page=` | the open tables, seat by seat with stacks; recent moves and closed tables with their reasons (a page) |
//! | `GET /tournaments/{id}/players?name=` | the entries whose player name holds `name`: table, seat, stack, or out (a page) |
//! | `GET /api/tournaments/{id}/tables?page=&per_page=` | the same tables, JSON |
//! | `GET /api/tournaments/{id}/players?name=` | the same search, JSON |

use super::html::{document, facts, Text};
use super::html_error;
use super::money::grouped;
use crate::cache::seats::{Held, SEARCH_LIMIT};
use crate::cache::LobbyCache;
use crate::listing::{Page, Query};
use crate::respond::{bad_path, echoed, error, html, json, not_shown, path_id, NotShown};
use crate::seat_map::{Closure, Found, RecentMove, SeatsSummary, ShootoutProgress, TableDoc};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use floor_events::seating::MoveReason;
use floor_events::{Currency, TournamentId};
use maud::{html, Markup, Render};
use serde::Serialize;

/// The longest name a search takes (a player id is at most 64 characters).
pub const SEARCH_MOST: usize = 64;
/// Tables per page of the seat map.
pub const TABLES_PER_PAGE: u32 = 30;

/// The URL parameters of the seat map and the search.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct SeatParams {
    page: Option<String>,
    per_page: Option<String>,
    name: Option<String>,
    limit: Option<String>,
}

/// Chip leaders shown by default, and at most (issue 39).
pub const LEADERS: usize = 10;
/// The most chip leaders one answer lists.
pub const LEADERS_MOST: usize = 100;

fn leaders_limit(p: &SeatParams) -> Result<usize, String> {
    match p.limit.as_deref().map(str::trim) {
        None | Some("") => Ok(LEADERS),
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=LEADERS_MOST).contains(&n) => Ok(n),
            _ => Err(format!("limit must be a whole number from 1 to {LEADERS_MOST}; got {:?}", echoed(text))),
        },
    }
}

/// `GET /api/tournaments/{id}/leaders`: the biggest stacks at the open tables.
#[derive(Serialize)]
struct LeadersJson {
    tournament_id: TournamentId,
    leaders: Vec<crate::leaders::Leader>,
}

pub(crate) async fn api_leaders(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<SeatParams>, QueryRejection>,
) -> Response {
    let (t, _, limit) = match seat_request(&cache, id, given, |p| leaders_limit(&p)).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    let held = cache.seats().get(t).unwrap_or_default();
    let leaders = crate::leaders::leaders(held.tables.values(), limit);
    json(StatusCode::OK, serde_json::to_vec(&LeadersJson { tournament_id: t, leaders }).expect("leaders serialize"))
}

/// The tournament a path names, known to the lobby: its id, name and currency.
async fn tournament(cache: &LobbyCache, id: Result<Path<String>, PathRejection>) -> Result<(TournamentId, String, Currency), Response> {
    let id = path_id(id).map_err(bad_path)?;
    let doc = cache.document(&id).await.map_err(|why| not_shown(&id, why))?;
    Ok((doc.tournament_id, doc.name, doc.buy_in.currency))
}

/// Each entry found that sits nowhere (out, or the winner) with its place and prize, from the
/// results ([`crate::results`], issue 39): one chunk read per thousand entries concerned.
async fn placed(cache: &LobbyCache, t: TournamentId, currency: Currency, found: &mut [Found]) {
    let keys: std::collections::BTreeSet<String> =
        found.iter().filter(|f| f.table.is_none()).map(|f| crate::results::entry_key(t, f.entry)).collect();
    for key in keys {
        let chunk = cache.results_chunk(&key).await;
        for f in found.iter_mut().filter(|f| f.table.is_none()) {
            if let Some(a) = chunk.of(f.entry) {
                (f.place, f.shared, f.prize) = (Some(a.place), Some(a.shared), Some(floor_events::Money::new(a.amount, currency)));
            }
        }
    }
}

/// A JSON request on the seat map: the tournament the path names (or its 400 or 404), what
/// `read` takes from the query (or 400 `invalid_field`), and the seat map caught up with the
/// tournament's seating log.
async fn seat_request<T>(
    cache: &LobbyCache,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<SeatParams>, QueryRejection>,
    read: impl FnOnce(SeatParams) -> Result<T, String>,
) -> Result<(TournamentId, Currency, T), Response> {
    let (t, _, currency) = tournament(cache, id).await?;
    let read =
        params(given).and_then(read).map_err(|message| error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, message))?;
    cache.seats().caught_up(t).await;
    Ok((t, currency, read))
}

fn params(given: Result<axum::extract::Query<SeatParams>, QueryRejection>) -> Result<SeatParams, String> {
    given.map(|axum::extract::Query(p)| p).map_err(|r| r.body_text())
}

fn tables_page(held: &Held, p: &SeatParams, per_page_default: u32) -> Result<Page<TableDoc>, String> {
    let per_page = p.per_page.clone().or_else(|| Some(per_page_default.to_string()));
    let query = Query::parse(None, None, p.page.as_deref(), per_page.as_deref()).map_err(|e| e.to_string())?;
    Ok(Page::of(held.tables.values().cloned().collect(), query.page, query.per_page))
}

fn search_name(p: &SeatParams) -> Result<String, String> {
    let name = p.name.as_deref().unwrap_or("").trim();
    if name.chars().count() > SEARCH_MOST {
        return Err(format!("name must be at most {SEARCH_MOST} characters; got {}", name.chars().count()));
    }
    Ok(name.to_owned())
}

/// `GET /api/tournaments/{id}/tables`.
#[derive(Serialize)]
struct TablesJson<'a> {
    tournament_id: TournamentId,
    summary: Option<&'a SeatsSummary>,
    tables: &'a [TableDoc],
    page: u32,
    per_page: u32,
    total: usize,
    pages: u32,
}

pub(crate) async fn api_tables(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<SeatParams>, QueryRejection>,
) -> Response {
    let (t, _, p) = match seat_request(&cache, id, given, Ok).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    let held = cache.seats().get(t).unwrap_or_default();
    let shown = match tables_page(&held, &p, crate::listing::DEFAULT_PER_PAGE) {
        Ok(shown) => shown,
        Err(message) => return error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, message),
    };
    let body = TablesJson {
        tournament_id: t,
        summary: held.summary.as_ref(),
        tables: &shown.items,
        page: shown.page,
        per_page: shown.per_page,
        total: shown.total,
        pages: shown.pages,
    };
    json(StatusCode::OK, serde_json::to_vec(&body).expect("tables serialize"))
}

/// `GET /api/tournaments/{id}/players`.
#[derive(Serialize)]
struct PlayersJson {
    tournament_id: TournamentId,
    name: String,
    found: Vec<Found>,
}

pub(crate) async fn api_players(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<SeatParams>, QueryRejection>,
) -> Response {
    let (t, currency, name) = match seat_request(&cache, id, given, |p| search_name(&p)).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    let mut found = cache.seats().search(t, &name);
    placed(&cache, t, currency, &mut found).await;
    json(StatusCode::OK, serde_json::to_vec(&PlayersJson { tournament_id: t, name, found }).expect("search serializes"))
}

async fn page_tournament(
    cache: &LobbyCache,
    id: Result<Path<String>, PathRejection>,
) -> Result<(TournamentId, String, Currency), Response> {
    let Ok(Path(id)) = id else { return Err(html_error(StatusCode::BAD_REQUEST, "not a tournament id")) };
    match cache.document(&id).await {
        Ok(doc) => Ok((doc.tournament_id, doc.name, doc.buy_in.currency)),
        Err(NotShown::Unknown) => Err(html_error(StatusCode::NOT_FOUND, &format!("No tournament {}.", echoed(&id)))),
        Err(NotShown::NotYet) => Err(html_error(StatusCode::SERVICE_UNAVAILABLE, "This tournament is just created; reload in a moment.")),
    }
}

/// `GET /tournaments/{id}/tables`: the seat map page.
pub(crate) async fn tables_html(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<SeatParams>, QueryRejection>,
) -> Response {
    let (t, name, _) = match page_tournament(&cache, id).await {
        Ok(t) => t,
        Err(answer) => return answer,
    };
    cache.seats().caught_up(t).await;
    let held = cache.seats().get(t).unwrap_or_default();
    match params(given).and_then(|p| tables_page(&held, &p, TABLES_PER_PAGE)) {
        Ok(shown) => {
            let leaders = crate::leaders::leaders(held.tables.values(), LEADERS);
            html(StatusCode::OK, render_tables(t, &name, held.summary.as_ref(), &leaders, &shown))
        }
        Err(message) => html_error(StatusCode::BAD_REQUEST, &message),
    }
}

/// `GET /tournaments/{id}/players`: the search page.
pub(crate) async fn players_html(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<SeatParams>, QueryRejection>,
) -> Response {
    let (t, name, currency) = match page_tournament(&cache, id).await {
        Ok(t) => t,
        Err(answer) => return answer,
    };
    match params(given).and_then(|p| search_name(&p)) {
        Ok(wanted) => {
            cache.seats().caught_up(t).await;
            let mut found = cache.seats().search(t, &wanted);
            placed(&cache, t, currency, &mut found).await;
            html(StatusCode::OK, render_search(t, &name, &wanted, &found))
        }
        Err(message) => html_error(StatusCode::BAD_REQUEST, &message),
    }
}

/// The search form, as the tournament page and the seat map show it.
pub fn search_form(t: TournamentId, value: &str) -> Markup {
    html! {
        form id="player-search" method="get" action={ "/tournaments/" (t) "/players" } {
            label { "Find a player " input name="name" value=(Text(value)) maxlength=(SEARCH_MOST) placeholder="player name" required; }
            " "
            button type="submit" { "Search" }
        }
        "\n"
    }
}

fn player(p: Option<&floor_events::PlayerId>) -> Markup {
    html! {
        @match p {
            Some(p) => { (super::html::name(p.as_str())) }
            None => { span class="muted" { "unknown" } }
        }
    }
}

fn reason(r: &MoveReason) -> String {
    match r {
        MoveReason::Balance { from_count, to_count } => format!("balancing ({from_count} players against {to_count})"),
        MoveReason::Break { players_left, tables_needed } => {
            format!("table broken ({players_left} players left need {tables_needed} tables)")
        }
        MoveReason::FinalTable { players_left, seats } => format!("final table ({players_left} players, {seats} seats)"),
    }
}

fn closure(c: &Closure) -> String {
    match c {
        Closure::Broken { players_left, tables_needed } => format!("broken: {players_left} players left need {tables_needed} tables"),
        Closure::FinalTable { players_left } => format!("combined into the final table ({players_left} players)"),
        Closure::TournamentOver => "the tournament is over".to_owned(),
        Closure::Won { round } => format!("won in round {round}: its winners wait for the next round's draw"),
    }
}

/// A shootout's round in play (issue 37): each table's players left, or its winners.
pub fn shootout_round(progress: &ShootoutProgress) -> Markup {
    if progress.round == 0 {
        return html! { p { "Shootout: the first round is drawn when play starts." } "\n" };
    }
    let tables = progress.tables.len();
    html! {
        h3 { "Round " (progress.round) }
        p {
            (grouped(progress.won() as u64)) " of " (grouped(tables as u64)) " tables won"
            @if progress.between_rounds() { " · every table has its winners: the next round is being drawn" }
            @else if tables > 1 { " · the round ends when its last table is won" }
            @else { " · the final table" }
        }
        "\n"
        ul class="round" {
            @for t in &progress.tables {
                li {
                    "Table " (t.table) ": "
                    @match &t.winners {
                        Some(winners) => {
                            "won by "
                            @for (i, w) in winners.iter().enumerate() {
                                @if i > 0 { ", " }
                                (player(w.player.as_ref())) " (entry " (w.entry.0) ")"
                            }
                        }
                        None => { (t.players) " of " (t.drawn) " players left" }
                    }
                }
            }
        }
        "\n"
        @if let Some(seed) = &progress.seed {
            p class="muted" { "This round's draw seed: " code { (seed) } }
            "\n"
        }
        @if let Some(c) = progress.next_commitment.as_ref().filter(|_| tables > 1) {
            p class="muted" { "The next round's draw is committed: SHA-256 " code { (c) } }
            "\n"
        }
    }
}

/// Recent moves and closed tables, newest first, at most `most` of each.
pub fn moves_and_closures(summary: &SeatsSummary, most: usize) -> Markup {
    html! {
        @if !summary.moves.is_empty() {
            h3 { "Recent moves" }
            ul class="moves" {
                @for RecentMove { entry, player: who, from, to, reason: why } in summary.moves.iter().take(most) {
                    li {
                        (player(who.as_ref())) " (entry " (entry.0) ") from table " (from.0) " seat " (from.1)
                        " to table " (to.0) " seat " (to.1) ": " (reason(why))
                    }
                }
            }
            "\n"
        }
        @if !summary.closed.is_empty() {
            h3 { "Closed tables" }
            ul class="closed" {
                @for c in summary.closed.iter().take(most) {
                    li { "Table " (c.table) ": " (closure(&c.closure)) }
                }
            }
            "\n"
        }
    }
}

/// The tables section of the tournament page: counts, a link to the seat map, the last few
/// moves and closures (the search form is the page's own, outside its live part).
pub fn tables_section(t: TournamentId, summary: Option<&SeatsSummary>) -> Markup {
    html! {
        section id="tables" {
            h2 { "Tables" }
            "\n"
            @match summary {
                Some(s) => {
                    p {
                        (grouped(s.tables.len() as u64)) " open · " (grouped(u64::from(s.seated))) " seated · "
                        (grouped(u64::from(s.waiting))) " waiting for a seat · " (grouped(u64::from(s.out))) " out · "
                        a href={ "/tournaments/" (t) "/tables" } { "who sits where" }
                    }
                    "\n"
                    @if let Some(progress) = &s.shootout { (shootout_round(progress)) }
                    (moves_and_closures(s, 5))
                }
                None => { p class="muted" { "No seats yet." } "\n" }
            }
        }
        "\n"
    }
}

pub(crate) fn render_tables(
    t: TournamentId,
    name: &str,
    summary: Option<&SeatsSummary>,
    leaders: &[crate::leaders::Leader],
    shown: &Page<TableDoc>,
) -> String {
    let counts = summary.map(|s| {
        [
            ("Tables open", grouped(s.tables.len() as u64).render()),
            ("Seated", grouped(u64::from(s.seated)).render()),
            ("Waiting for a seat", grouped(u64::from(s.waiting)).render()),
            ("Out", grouped(u64::from(s.out)).render()),
        ]
    });
    document(
        &format!("{name}: tables"),
        html! {
            h1 { (super::html::name(name)) ": tables" }
            "\n"
            p { a href={ "/tournaments/" (t) } { "Back to the tournament" } }
            "\n"
            @if let Some(counts) = &counts { (facts(counts)) }
            (search_form(t, ""))
            @if shown.total == 0 {
                p class="muted" { "No table is open." }
                "\n"
            }
            @if !leaders.is_empty() {
                section id="leaders" {
                    h2 { "Chip leaders" }
                    table {
                        thead { tr { th class="num" { "#" } th { "Player" } th class="num" { "Chips" } th { "Table, seat" } } }
                        tbody {
                            @for l in leaders {
                                tr {
                                    td class="num" { (l.rank) }
                                    td { (player(l.player.as_ref())) }
                                    td class="num" { (grouped(l.chips)) }
                                    td { "table " (l.table) ", seat " (l.seat) }
                                }
                            }
                        }
                    }
                    p class="muted" { "JSON: " a href={ "/api/tournaments/" (t) "/leaders?limit=" (LEADERS_MOST) } { "the top " (LEADERS_MOST) } }
                }
                "\n"
            }
            @for table in &shown.items {
                section class="table" id={ "table-" (table.table) } {
                    h2 { "Table " (table.table) }
                    p class="muted" {
                        @match (table.last_hand, table.hand_running) {
                            (Some(h), true) => { "hand " (h) " in play" }
                            (Some(h), false) => { "hand " (h) " finished" }
                            (None, _) => { "no hand yet" }
                        }
                        " · " (grouped(table.hands)) " hands · " (table.seats.len()) " players · " (grouped(table.chips())) " chips"
                    }
                    "\n"
                    table {
                        thead { tr { th class="num" { "Seat" } th { "Player" } th class="num" { "Entry" } th class="num" { "Chips" } } }
                        tbody {
                            @for o in &table.seats {
                                tr {
                                    td class="num" { (o.seat) }
                                    td { (player(o.player.as_ref())) }
                                    td class="num" { (o.entry.0) }
                                    td class="num" { (grouped(o.chips)) }
                                }
                            }
                        }
                    }
                }
                "\n"
            }
            @if shown.pages > 1 {
                nav class="pages" {
                    "page " (shown.page) " of " (shown.pages)
                    @if let Some(p) = shown.previous() { " · " a href={ "/tournaments/" (t) "/tables?page=" (p) } { "previous" } }
                    @if let Some(p) = shown.next() { " · " a href={ "/tournaments/" (t) "/tables?page=" (p) } { "next" } }
                }
                "\n"
            }
            @if let Some(s) = summary { (moves_and_closures(s, usize::MAX)) }
            p class="muted" { "JSON: " a href={ "/api/tournaments/" (t) "/tables" } { "tables" } }
            "\n"
        },
    )
}

pub(crate) fn render_search(t: TournamentId, name: &str, wanted: &str, found: &[Found]) -> String {
    document(
        &format!("{name}: find a player"),
        html! {
            h1 { (super::html::name(name)) ": find a player" }
            "\n"
            p { a href={ "/tournaments/" (t) } { "Back to the tournament" } }
            "\n"
            (search_form(t, wanted))
            @if wanted.is_empty() {
                p class="muted" { "Type a name." }
                "\n"
            } @else if found.is_empty() {
                p id="no-hit" { "No entry of a player named like “" (Text(wanted)) "”." }
                "\n"
            } @else {
                table class="players" {
                    thead {
                        tr {
                            th { "Player" } th class="num" { "Entry" } th class="num" { "Table" } th class="num" { "Seat" }
                            th class="num" { "Chips" } th { "Finished" }
                        }
                    }
                    tbody {
                        @for f in found {
                            tr class="player-hit" {
                                td class="player" { (super::html::name(f.player.as_str())) }
                                td class="num entry" { (f.entry.0) }
                                @match (f.out, f.table, f.seat) {
                                    (true, ..) => { td class="num table" { "out" } td class="num seat" {} td class="num chips" {} }
                                    (false, Some(table), Some(seat)) => {
                                        td class="num table" { a href={ "/tournaments/" (t) "/tables#table-" (table) } { (table) } }
                                        td class="num seat" { (seat) }
                                        td class="num chips" { @if let Some(chips) = f.chips { (grouped(chips)) } }
                                    }
                                    (false, ..) if f.place.is_some() => {
                                        td class="num table" { "winner" } td class="num seat" {} td class="num chips" {}
                                    }
                                    (false, ..) => {
                                        td class="num table" { "waiting for a seat" } td class="num seat" {} td class="num chips" {}
                                    }
                                }
                                td class="finish" {
                                    @if let (Some(place), Some(prize)) = (f.place, f.prize) {
                                        (crate::results::ordinal(place))
                                        @if f.shared.is_some_and(|n| n > 1) { " (shared by " (f.shared.unwrap_or(1)) ")" }
                                        " · "
                                        @if prize.amount > 0 { (super::html::money(prize)) } @else { "no prize" }
                                    }
                                }
                            }
                        }
                    }
                }
                "\n"
                @if found.len() == SEARCH_LIMIT {
                    p class="muted" { "The first " (SEARCH_LIMIT) " entries; type more of the name." }
                    "\n"
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seat_map::test_table as table;
    use floor_events::{EntryNo, PlayerId};

    fn t() -> TournamentId {
        TournamentId(uuid::Uuid::from_u128(9))
    }

    #[test]
    fn names_are_text_on_both_pages_and_a_hit_names_its_table_and_seat() {
        let evil = "<script>alert(1)</script>";
        let shown = Page::of(vec![table(7, &[(2, 11, "bo", 12_345)])], 1, 30);
        let page = render_tables(t(), evil, None, &[], &shown);
        assert!(!page.contains(evil) && page.contains("&lt;script&gt;"));
        assert!(page.contains("id=\"table-7\"") && page.contains("12,345"), "{page}");
        let found = [Found {
            entry: EntryNo(11),
            player: PlayerId::parse("bo").unwrap(),
            out: false,
            table: Some(7),
            seat: Some(2),
            chips: Some(12_345),
            place: None,
            shared: None,
            prize: None,
        }];
        let page = render_search(t(), evil, "\"><img src=x onerror=alert(1)>", &found);
        assert!(!page.contains("<img src=x"), "the typed name is text too");
        assert!(
            page.contains("<td class=\"num table\"><a href=\"/tournaments/") && page.contains("<td class=\"num seat\">2</td>"),
            "{page}"
        );
    }

    #[test]
    fn an_entry_out_or_waiting_says_so() {
        let found = [
            Found {
                entry: EntryNo(1),
                player: PlayerId::parse("ann").unwrap(),
                out: true,
                table: None,
                seat: None,
                chips: None,
                place: None,
                shared: None,
                prize: None,
            },
            Found {
                entry: EntryNo(2),
                player: PlayerId::parse("anna").unwrap(),
                out: false,
                table: None,
                seat: None,
                chips: None,
                place: None,
                shared: None,
                prize: None,
            },
        ];
        let page = render_search(t(), "Daily", "ann", &found);
        assert!(page.contains(">out<") && page.contains(">waiting for a seat<"), "{page}");
        assert!(!page.contains("no prize"), "not placed: no place shown");
    }

    /// Issue 39: a busted player's search result shows their place and prize, the winner's
    /// says winner, not waiting for a seat.
    #[test]
    fn a_placed_entry_shows_its_place_and_prize() {
        let eur = |c: u64| floor_events::Money::new(c, Currency::EUR);
        let hit = |entry: u32, player: &str, out: bool, place: u32, shared: u32, prize: u64| Found {
            entry: EntryNo(entry),
            player: PlayerId::parse(player).unwrap(),
            out,
            table: None,
            seat: None,
            chips: None,
            place: Some(place),
            shared: Some(shared),
            prize: Some(eur(prize)),
        };
        let found = [hit(1, "ann", true, 37, 1, 1_250), hit(2, "anna", false, 1, 1, 90_000), hit(3, "annie", true, 150, 2, 0)];
        let page = render_search(t(), "Daily", "ann", &found);
        assert!(page.contains("<td class=\"finish\">37th · €12.50</td>"), "{page}");
        assert!(page.contains(">winner<") && page.contains("1st · €900.00") && !page.contains("waiting for a seat"), "{page}");
        assert!(page.contains("150th (shared by 2) · no prize"), "{page}");
    }
}
