//! Who sits where, served: the seat map and the player search, as pages and as JSON, from an
//! in-memory copy of bucket [`crate::seat_map::BUCKET`] that a KV watch keeps current.
//!
//! | route | what |
//! |---|---|
//! | `GET /tournaments/{id}/tables?page=` | the open tables, seat by seat with stacks; recent moves and closed tables with their reasons (a page) |
//! | `GET /tournaments/{id}/players?name=` | the entries whose player name holds `name`: table, seat, stack, or out (a page) |
//! | `GET /api/tournaments/{id}/tables?page=&per_page=` | the same tables, JSON |
//! | `GET /api/tournaments/{id}/players?name=` | the same search, JSON |

use crate::html::legacy::facts;
use crate::html::{escape, page};
use crate::http::{bad_path, error, html, html_error, json, not_shown, path_id, LobbyCache, NotShown};
use crate::listing::{Page, Query};
use crate::money::grouped;
use crate::seat_map::{search, Closure, Found, Key, RecentMove, RosterChunk, SeatsSummary, TableDoc};
use async_nats::jetstream::kv;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use floor_events::seating::MoveReason;
use floor_events::TournamentId;
use futures::StreamExt;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The most entries a search answers.
pub const SEARCH_LIMIT: usize = 50;
/// The longest name a search takes (a player id is at most 64 characters).
pub const SEARCH_MOST: usize = 64;
/// Tables per page of the seat map.
pub const TABLES_PER_PAGE: u32 = 30;

/// One tournament's seat map as the bucket holds it.
#[derive(Debug, Default, Clone)]
pub struct Held {
    /// The summary, once stored.
    pub summary: Option<SeatsSummary>,
    /// Open tables.
    pub tables: BTreeMap<u32, TableDoc>,
    /// Roster parts.
    pub roster: BTreeMap<u32, RosterChunk>,
}

/// How long a request waits for the cache to hold what the bucket already has.
pub const CATCH_UP: Duration = Duration::from_secs(1);

/// Tournament → its seat map, as last seen in the bucket.
#[derive(Clone)]
pub struct SeatCache {
    // std RwLock: held only to copy in or out, never across an await.
    held: Arc<RwLock<HashMap<TournamentId, Held>>>,
    /// The bucket, to read a summary's newest revision (absent: a cache that stays empty).
    bucket: Option<kv::Store>,
    /// The newest revision the cache holds.
    applied: tokio::sync::watch::Receiver<u64>,
}

impl Default for SeatCache {
    fn default() -> Self {
        Self { held: Arc::default(), bucket: None, applied: tokio::sync::watch::channel(0).1 }
    }
}

impl SeatCache {
    /// Starts watching the bucket (current values first, then changes) until `shutdown`.
    ///
    /// # Errors
    /// When the watch cannot be started.
    pub async fn watch(bucket: kv::Store, shutdown: CancellationToken) -> Result<Self, kv::WatchError> {
        let (applied, revision) = tokio::sync::watch::channel(0);
        let cache = Self { held: Arc::default(), bucket: Some(bucket.clone()), applied: revision };
        let mut entries = bucket.watch_all_from_revision(1).await?;
        let held = cache.held.clone();
        tokio::spawn(async move {
            loop {
                let entry = tokio::select! {
                    _ = shutdown.cancelled() => break,
                    entry = entries.next() => entry,
                };
                match entry {
                    Some(Ok(entry)) => {
                        if let Some(key) = Key::parse(&entry.key) {
                            let put = entry.operation == kv::Operation::Put;
                            keep(&mut held.write().expect("seat cache poisoned"), key, put.then_some(&entry.value[..]));
                        }
                        applied.send_replace(entry.revision);
                    }
                    Some(Err(e)) => tracing::warn!(error = %e, "seat-map watch"),
                    None => break,
                }
            }
        });
        Ok(cache)
    }

    /// One tournament's seat map, copied out.
    pub fn get(&self, tournament: TournamentId) -> Option<Held> {
        self.held.read().expect("seat cache poisoned").get(&tournament).cloned()
    }

    /// Waits (up to [`CATCH_UP`]) until the cache holds the tournament's summary the bucket
    /// holds now, so a reader who saw a seat change in KV finds it here too. The summary is
    /// stored after the tables and roster parts it counts, so those are in as well.
    pub async fn caught_up(&self, tournament: TournamentId) {
        let Some(bucket) = &self.bucket else { return };
        let Ok(Some(entry)) = bucket.entry(crate::seat_map::summary_key(tournament)).await else { return };
        let mut applied = self.applied.clone();
        let _ = tokio::time::timeout(CATCH_UP, applied.wait_for(|a| *a >= entry.revision)).await;
    }

    /// One tournament's summary.
    pub fn summary(&self, tournament: TournamentId) -> Option<SeatsSummary> {
        self.held.read().expect("seat cache poisoned").get(&tournament).and_then(|h| h.summary.clone())
    }

    /// The entries of `tournament` whose player name holds `name`.
    pub fn search(&self, tournament: TournamentId, name: &str) -> Vec<Found> {
        let held = self.held.read().expect("seat cache poisoned");
        let Some(map) = held.get(&tournament) else { return vec![] };
        search(map.roster.values(), map.tables.values(), name, SEARCH_LIMIT)
    }
}

/// Folds one bucket entry (`None`: deleted) into what is held. An unreadable document is left
/// out and logged.
fn keep(held: &mut HashMap<TournamentId, Held>, key: Key, value: Option<&[u8]>) {
    fn read<T: serde::de::DeserializeOwned>(value: &[u8]) -> Option<T> {
        serde_json::from_slice(value).map_err(|e| tracing::warn!(error = %e, "unreadable seat-map document")).ok()
    }
    match key {
        Key::Summary(t) => held.entry(t).or_default().summary = value.and_then(read),
        Key::Table(t, n) => {
            let map = held.entry(t).or_default();
            match value.and_then(read) {
                Some(table) => drop(map.tables.insert(n, table)),
                None => drop(map.tables.remove(&n)),
            }
        }
        Key::Roster(t, k) => {
            let map = held.entry(t).or_default();
            match value.and_then(read) {
                Some(chunk) => drop(map.roster.insert(k, chunk)),
                None => drop(map.roster.remove(&k)),
            }
        }
    }
}

/// The URL parameters of the seat map and the search.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct SeatParams {
    page: Option<String>,
    per_page: Option<String>,
    name: Option<String>,
}

/// The tournament a path names, known to the lobby: its id and name.
async fn tournament(cache: &LobbyCache, id: Result<Path<String>, PathRejection>) -> Result<(TournamentId, String), Response> {
    let id = path_id(id).map_err(bad_path)?;
    let doc = cache.document(&id).await.map_err(|why| not_shown(&id, why))?;
    Ok((doc.tournament_id, doc.name))
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
    let (t, _) = match tournament(&cache, id).await {
        Ok(t) => t,
        Err(answer) => return answer,
    };
    cache.seats().caught_up(t).await;
    let held = cache.seats().get(t).unwrap_or_default();
    let shown = match params(given).and_then(|p| tables_page(&held, &p, crate::listing::DEFAULT_PER_PAGE)) {
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
    let (t, _) = match tournament(&cache, id).await {
        Ok(t) => t,
        Err(answer) => return answer,
    };
    let name = match params(given).and_then(|p| search_name(&p)) {
        Ok(name) => name,
        Err(message) => return error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, message),
    };
    cache.seats().caught_up(t).await;
    let found = cache.seats().search(t, &name);
    json(StatusCode::OK, serde_json::to_vec(&PlayersJson { tournament_id: t, name, found }).expect("search serializes"))
}

async fn page_tournament(cache: &LobbyCache, id: Result<Path<String>, PathRejection>) -> Result<(TournamentId, String), Response> {
    let Ok(Path(id)) = id else { return Err(html_error(StatusCode::BAD_REQUEST, "not a tournament id")) };
    match cache.document(&id).await {
        Ok(doc) => Ok((doc.tournament_id, doc.name)),
        Err(NotShown::Unknown) => Err(html_error(StatusCode::NOT_FOUND, &format!("No tournament {}.", crate::http::echoed(&id)))),
        Err(NotShown::NotYet) => Err(html_error(StatusCode::SERVICE_UNAVAILABLE, "This tournament is just created; reload in a moment.")),
    }
}

/// `GET /tournaments/{id}/tables`: the seat map page.
pub(crate) async fn tables_html(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<SeatParams>, QueryRejection>,
) -> Response {
    let (t, name) = match page_tournament(&cache, id).await {
        Ok(t) => t,
        Err(answer) => return answer,
    };
    cache.seats().caught_up(t).await;
    let held = cache.seats().get(t).unwrap_or_default();
    match params(given).and_then(|p| tables_page(&held, &p, TABLES_PER_PAGE)) {
        Ok(shown) => html(StatusCode::OK, render_tables(t, &name, held.summary.as_ref(), &shown)),
        Err(message) => html_error(StatusCode::BAD_REQUEST, &message),
    }
}

/// `GET /tournaments/{id}/players`: the search page.
pub(crate) async fn players_html(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<axum::extract::Query<SeatParams>, QueryRejection>,
) -> Response {
    let (t, name) = match page_tournament(&cache, id).await {
        Ok(t) => t,
        Err(answer) => return answer,
    };
    match params(given).and_then(|p| search_name(&p)) {
        Ok(wanted) => {
            cache.seats().caught_up(t).await;
            let found = cache.seats().search(t, &wanted);
            html(StatusCode::OK, render_search(t, &name, &wanted, &found))
        }
        Err(message) => html_error(StatusCode::BAD_REQUEST, &message),
    }
}

/// The search form, as the tournament page and the seat map show it.
pub fn search_form(t: TournamentId, value: &str) -> String {
    format!(
        "<form id=\"player-search\" method=\"get\" action=\"/tournaments/{t}/players\"><label>Find a player <input name=\"name\" value=\"{}\" maxlength=\"{SEARCH_MOST}\" placeholder=\"player name\" required></label> <button type=\"submit\">Search</button></form>\n",
        escape(value)
    )
}

fn player(p: Option<&floor_events::PlayerId>) -> String {
    p.map_or_else(|| "<span class=\"muted\">unknown</span>".to_owned(), |p| crate::html::legacy::name(p.as_str()))
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
    }
}

/// Recent moves and closed tables, newest first, at most `most` of each.
pub fn moves_and_closures(summary: &SeatsSummary, most: usize) -> String {
    let mut out = String::new();
    if !summary.moves.is_empty() {
        out.push_str("<h3>Recent moves</h3><ul class=\"moves\">");
        for m in summary.moves.iter().take(most) {
            let RecentMove { entry, player: who, from, to, reason: why } = m;
            let _ = write!(
                out,
                "<li>{} (entry {}) from table {} seat {} to table {} seat {}: {}</li>",
                player(who.as_ref()),
                entry.0,
                from.0,
                from.1,
                to.0,
                to.1,
                escape(&reason(why))
            );
        }
        out.push_str("</ul>\n");
    }
    if !summary.closed.is_empty() {
        out.push_str("<h3>Closed tables</h3><ul class=\"closed\">");
        for c in summary.closed.iter().take(most) {
            let _ = write!(out, "<li>Table {}: {}</li>", c.table, escape(&closure(&c.closure)));
        }
        out.push_str("</ul>\n");
    }
    out
}

/// The tables section of the tournament page: counts, a link to the seat map, the last few
/// moves and closures (the search form is the page's own, outside its live part).
pub fn tables_section(t: TournamentId, summary: Option<&SeatsSummary>) -> String {
    let mut out = String::from("<section id=\"tables\"><h2>Tables</h2>\n");
    match summary {
        Some(s) => {
            let _ = writeln!(
                out,
                "<p>{} open · {} seated · {} waiting for a seat · {} out · <a href=\"/tournaments/{t}/tables\">who sits where</a></p>",
                grouped(s.tables.len() as u64),
                grouped(u64::from(s.seated)),
                grouped(u64::from(s.waiting)),
                grouped(u64::from(s.out))
            );
            out.push_str(&moves_and_closures(s, 5));
        }
        None => out.push_str("<p class=\"muted\">No seats yet.</p>\n"),
    }
    out.push_str("</section>\n");
    out
}

pub(crate) fn render_tables(t: TournamentId, name: &str, summary: Option<&SeatsSummary>, shown: &Page<TableDoc>) -> String {
    let mut body =
        format!("<h1>{}: tables</h1>\n<p><a href=\"/tournaments/{t}\">Back to the tournament</a></p>\n", crate::html::legacy::name(name));
    if let Some(s) = summary {
        body.push_str(&facts(&[
            ("Tables open", grouped(s.tables.len() as u64)),
            ("Seated", grouped(u64::from(s.seated))),
            ("Waiting for a seat", grouped(u64::from(s.waiting))),
            ("Out", grouped(u64::from(s.out))),
        ]));
    }
    body.push_str(&search_form(t, ""));
    if shown.total == 0 {
        body.push_str("<p class=\"muted\">No table is open.</p>\n");
    }
    for table in &shown.items {
        let hand = match (table.last_hand, table.hand_running) {
            (Some(h), true) => format!("hand {h} in play"),
            (Some(h), false) => format!("hand {h} finished"),
            (None, _) => "no hand yet".to_owned(),
        };
        let _ = write!(
            body,
            "<section class=\"table\" id=\"table-{n}\"><h2>Table {n}</h2><p class=\"muted\">{} · {} hands · {} players · {} chips</p>\n<table><thead><tr><th class=\"num\">Seat</th><th>Player</th><th class=\"num\">Entry</th><th class=\"num\">Chips</th></tr></thead><tbody>",
            hand,
            grouped(table.hands),
            table.seats.len(),
            grouped(table.chips()),
            n = table.table,
        );
        for o in &table.seats {
            let _ = write!(
                body,
                "<tr><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                o.seat,
                player(o.player.as_ref()),
                o.entry.0,
                grouped(o.chips)
            );
        }
        body.push_str("</tbody></table></section>\n");
    }
    if shown.pages > 1 {
        let mut nav = format!("<nav class=\"pages\">page {} of {}", shown.page, shown.pages);
        if let Some(p) = shown.previous() {
            let _ = write!(nav, " · <a href=\"/tournaments/{t}/tables?page={p}\">previous</a>");
        }
        if let Some(p) = shown.next() {
            let _ = write!(nav, " · <a href=\"/tournaments/{t}/tables?page={p}\">next</a>");
        }
        nav.push_str("</nav>\n");
        body.push_str(&nav);
    }
    if let Some(s) = summary {
        body.push_str(&moves_and_closures(s, usize::MAX));
    }
    let _ = writeln!(body, "<p class=\"muted\">JSON: <a href=\"/api/tournaments/{t}/tables\">tables</a></p>");
    page(&format!("{name}: tables"), &body)
}

pub(crate) fn render_search(t: TournamentId, name: &str, wanted: &str, found: &[Found]) -> String {
    let mut body = format!(
        "<h1>{}: find a player</h1>\n<p><a href=\"/tournaments/{t}\">Back to the tournament</a></p>\n",
        crate::html::legacy::name(name)
    );
    body.push_str(&search_form(t, wanted));
    if wanted.is_empty() {
        body.push_str("<p class=\"muted\">Type a name.</p>\n");
    } else if found.is_empty() {
        let _ = writeln!(body, "<p id=\"no-hit\">No entry of a player named like “{}”.</p>", escape(wanted));
    } else {
        body.push_str("<table class=\"players\"><thead><tr><th>Player</th><th class=\"num\">Entry</th><th class=\"num\">Table</th><th class=\"num\">Seat</th><th class=\"num\">Chips</th></tr></thead><tbody>");
        for f in found {
            let (table, seat, chips) = match (f.out, f.table, f.seat, f.chips) {
                (true, ..) => ("out".to_owned(), String::new(), String::new()),
                (false, Some(table), Some(seat), chips) => (
                    format!("<a href=\"/tournaments/{t}/tables#table-{table}\">{table}</a>"),
                    seat.to_string(),
                    chips.map(grouped).unwrap_or_default(),
                ),
                (false, ..) => ("waiting for a seat".to_owned(), String::new(), String::new()),
            };
            let _ = write!(
                body,
                "<tr class=\"player-hit\"><td class=\"player\">{}</td><td class=\"num entry\">{}</td><td class=\"num table\">{table}</td><td class=\"num seat\">{seat}</td><td class=\"num chips\">{chips}</td></tr>",
                crate::html::legacy::name(f.player.as_str()),
                f.entry.0
            );
        }
        body.push_str("</tbody></table>\n");
        if found.len() == SEARCH_LIMIT {
            let _ = writeln!(body, "<p class=\"muted\">The first {SEARCH_LIMIT} entries; type more of the name.</p>");
        }
    }
    page(&format!("{name}: find a player"), &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seat_map::{table_key, Occupant};
    use floor_events::{EntryNo, PlayerId};

    fn t() -> TournamentId {
        TournamentId(uuid::Uuid::from_u128(9))
    }

    fn table(n: u32, seats: &[(u8, u32, &str, u64)]) -> TableDoc {
        TableDoc {
            table: n,
            seats: seats
                .iter()
                .map(|(seat, entry, p, chips)| Occupant {
                    seat: *seat,
                    entry: EntryNo(*entry),
                    player: PlayerId::parse(p).ok(),
                    chips: *chips,
                })
                .collect(),
            last_hand: Some(4),
            hand_running: true,
            hands: 3,
        }
    }

    #[test]
    fn the_cache_keeps_puts_and_forgets_deletes() {
        let mut held = HashMap::new();
        let doc = serde_json::to_vec(&table(3, &[(1, 1, "ana", 500)])).unwrap();
        keep(&mut held, Key::parse(&table_key(t(), 3)).unwrap(), Some(&doc));
        assert_eq!(held[&t()].tables[&3].seats[0].chips, 500);
        keep(&mut held, Key::Table(t(), 3), Some(b"not json"));
        assert!(held[&t()].tables.is_empty(), "an unreadable document is left out, not kept stale");
        keep(&mut held, Key::Table(t(), 3), Some(&doc));
        keep(&mut held, Key::Table(t(), 3), None);
        assert!(held[&t()].tables.is_empty(), "a closed table's key is deleted");
    }

    #[test]
    fn names_are_text_on_both_pages_and_a_hit_names_its_table_and_seat() {
        let evil = "<script>alert(1)</script>";
        let shown = Page::of(vec![table(7, &[(2, 11, "bo", 12_345)])], 1, 30);
        let page = render_tables(t(), evil, None, &shown);
        assert!(!page.contains(evil) && page.contains("&lt;script&gt;"));
        assert!(page.contains("id=\"table-7\"") && page.contains("12,345"), "{page}");
        let found = [Found {
            entry: EntryNo(11),
            player: PlayerId::parse("bo").unwrap(),
            out: false,
            table: Some(7),
            seat: Some(2),
            chips: Some(12_345),
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
            Found { entry: EntryNo(1), player: PlayerId::parse("ann").unwrap(), out: true, table: None, seat: None, chips: None },
            Found { entry: EntryNo(2), player: PlayerId::parse("anna").unwrap(), out: false, table: None, seat: None, chips: None },
        ];
        let page = render_search(t(), "Daily", "ann", &found);
        assert!(page.contains(">out<") && page.contains(">waiting for a seat<"), "{page}");
    }
}
