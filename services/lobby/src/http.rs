//! The lobby over HTTP: pages for players and the JSON API.
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the tournament list as a page ([`crate::list_page`]) |
//! | `GET /tournaments/{id}` | one tournament as a page ([`crate::tournament_page`]) |
//! | `GET /tournaments/{id}/events` | its live part, rendered, at every new revision (SSE) |
//! | `GET /api` | this list, as text |
//! | `GET /api/tournaments?state=&format=&page=&per_page=` | one page of the list, JSON |
//! | `GET /api/tournaments/{id}` | one document |
//! | `GET /api/tournaments/{id}/structure` | its blind structure ([`crate::structures`]) |
//! | `GET /api/tournaments/{id}/events` | its document at every new revision (SSE, [`crate::live`]) |
//! | `GET /tournaments/{id}/tables`, `/players?name=`, and the same under `/api` | who sits where, and the player search ([`crate::seat_pages`]) |
//! | `GET /tournaments/{id}/statement?player=`, and the same under `/api` | a cancelled tournament's statement for one player, from the abort service ([`crate::statements`]) |
//! | `GET /api/health` | readers' poison commits, what tournaments wait on |
//! | `GET /api/openapi.json` | the OpenAPI document of this JSON API ([`crate::openapi`]) |
//! | `/console/…` | the director console ([`crate::console`]) |
//!
//! The list is served from an in-memory copy of bucket `floor-lobby` that a KV watch keeps
//! current, so it never waits on NATS and any number of HTTP instances can run beside one
//! projection; the same watch feeds the live feeds. One tournament is read from the bucket
//! itself (one KV get, a fraction of a millisecond): a player who just registered sees their
//! entry in the next read, never an older copy the watch has not caught up with. The cache
//! answers if NATS does not.
//!
//! The projection stores its documents in batches (up to 20 ms), so a tournament created a
//! moment ago can be in the log and not yet in the bucket. A request for it waits for its first
//! document (up to [`FIRST_DOCUMENT`]) instead of answering `unknown_tournament`: a script that
//! creates a tournament and reads it at once sees it.

use crate::domain::LobbyDocument;
use crate::listing::{Page, Query, QueryError};
use crate::live::{Feed, Feeds, Revision};
use async_nats::jetstream::{self, kv};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use floor_events::subjects;
use floor_runtime::Clock;
use futures::{Stream, StreamExt};
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a request for a tournament already in the log waits for the lobby to show it.
pub const FIRST_DOCUMENT: Duration = Duration::from_secs(2);

/// One document as the cache holds it: its JSON and revision, and the document itself when it
/// reads as one (to filter, order and render the list without decoding it per request).
#[derive(Clone)]
struct Shown {
    json: bytes::Bytes,
    doc: Option<Arc<LobbyDocument>>,
}

/// Tournament id → its document, as last seen in the bucket.
#[derive(Clone)]
pub struct LobbyCache {
    // std RwLock: held only to copy in or out, never across an await.
    docs: Arc<RwLock<BTreeMap<String, Shown>>>,
    bucket: kv::Store,
    /// Each tournament's structure.
    structures: kv::Store,
    /// The event stream, to tell a tournament not yet shown from one that does not exist.
    events: jetstream::stream::Stream,
    /// To read the readers' health (KV `floor-health`) for `GET /api/health`.
    jetstream: jetstream::Context,
    /// What each tournament waits on, as last looked at.
    waits: crate::waiting::Waits,
    /// The live feeds, fed by the cache's watch.
    feeds: Feeds,
    /// What "now" is for late registration and countdowns.
    clock: Arc<dyn Clock>,
    /// Ends the live feeds when the server stops.
    shutdown: CancellationToken,
    /// Who sits where ([`crate::seat_pages`]).
    seats: crate::seat_pages::SeatCache,
}

/// Why a tournament has no document in the lobby.
#[derive(Debug, PartialEq, Eq)]
pub enum NotShown {
    /// Nothing in the log either (or not a tournament id at all).
    Unknown,
    /// Created, and the lobby did not show it within the time given.
    NotYet,
}

/// A tournament's document from the bucket; for a tournament in the log that the projection has
/// not stored yet, the first one it stores within `patience`.
///
/// # Errors
/// [`NotShown`]; a bucket or stream that does not answer counts as `Unknown` (first read) or
/// `NotYet` (the wait).
pub async fn document(
    bucket: &kv::Store,
    events: &jetstream::stream::Stream,
    id: &str,
    patience: Duration,
) -> Result<bytes::Bytes, NotShown> {
    match bucket.get(id).await {
        Ok(Some(doc)) => Ok(doc),
        _ => first_document(bucket, events, id, patience).await.map(|r| r.json),
    }
}

/// For a tournament the bucket had no document for: the first one the projection stores
/// within `patience`, if the tournament is in the log.
async fn first_document(
    bucket: &kv::Store,
    events: &jetstream::stream::Stream,
    id: &str,
    patience: Duration,
) -> Result<Revision, NotShown> {
    // Only a well-formed id becomes part of a subject (no wildcards from a URL).
    let Ok(uuid) = uuid::Uuid::parse_str(id) else { return Err(NotShown::Unknown) };
    if events.direct_get_last_for_subject(subjects::event_subject(subjects::aggregate::TOURNAMENT, uuid)).await.is_err() {
        return Err(NotShown::Unknown);
    }
    // With history: a document stored since the read above comes first.
    let Ok(mut watch) = bucket.watch_with_history(id).await else { return Err(NotShown::NotYet) };
    let first = async {
        while let Some(Ok(entry)) = watch.next().await {
            if entry.operation == kv::Operation::Put {
                return Some(Revision::new(entry.revision, entry.value));
            }
        }
        None
    };
    tokio::time::timeout(patience, first).await.ok().flatten().ok_or(NotShown::NotYet)
}

impl LobbyCache {
    /// Starts watching the bucket (current values first, then changes) until `shutdown`; each
    /// change also goes to the tournament's live feed.
    ///
    /// # Errors
    /// When the watch cannot be started.
    pub async fn watch(
        bucket: kv::Store,
        structures: kv::Store,
        events: jetstream::stream::Stream,
        jetstream: jetstream::Context,
        clock: Arc<dyn Clock>,
        shutdown: CancellationToken,
    ) -> Result<Self, kv::WatchError> {
        let cache = Self {
            docs: Arc::default(),
            bucket: bucket.clone(),
            structures,
            events,
            jetstream,
            waits: Default::default(),
            feeds: Feeds::default(),
            clock,
            shutdown: shutdown.clone(),
            seats: Default::default(),
        };
        let mut entries = bucket.watch_all_from_revision(1).await?;
        let (docs, feeds) = (cache.docs.clone(), cache.feeds.clone());
        tokio::spawn(async move {
            loop {
                let entry = tokio::select! {
                    _ = shutdown.cancelled() => break,
                    entry = entries.next() => entry,
                };
                match entry {
                    Some(Ok(entry)) => match entry.operation {
                        kv::Operation::Put => {
                            // Decoded once here, not per request; outside the lock.
                            let doc = serde_json::from_slice::<LobbyDocument>(&entry.value).ok().map(Arc::new);
                            let revision = Revision::new(entry.revision, entry.value.clone());
                            docs.write().expect("lobby cache poisoned").insert(entry.key.clone(), Shown { json: entry.value, doc });
                            // After the cache has it: a client that saw this revision on its feed
                            // finds it, and every earlier one, in the list.
                            feeds.publish(&entry.key, revision);
                        }
                        kv::Operation::Delete | kv::Operation::Purge => {
                            docs.write().expect("lobby cache poisoned").remove(&entry.key);
                        }
                    },
                    Some(Err(e)) => tracing::warn!(error = %e, "lobby watch"),
                    None => break,
                }
            }
        });
        Ok(cache)
    }

    /// Serves `seats` as who sits where (a cache that stays empty otherwise).
    pub fn with_seats(self, seats: crate::seat_pages::SeatCache) -> Self {
        Self { seats, ..self }
    }

    /// Who sits where.
    pub fn seats(&self) -> &crate::seat_pages::SeatCache {
        &self.seats
    }

    /// A client for the services' commands, on the cache's connection.
    pub fn commands(&self) -> floor_runtime::client::Commands {
        floor_runtime::client::Commands::new(self.jetstream.client())
    }

    /// What each tournament waits on, as the lobby last looked.
    pub fn waits(&self) -> crate::waiting::Waits {
        self.waits.clone()
    }

    /// The documents that pass `query`'s filters now, in the list's order, paged.
    fn select(&self, query: &Query) -> Page<(String, bytes::Bytes, Option<Arc<LobbyDocument>>)> {
        let now = self.clock.now();
        let docs = self.docs.read().expect("lobby cache poisoned");
        let filtered = query.state.is_some() || query.format.is_some();
        let mut chosen: Vec<(String, bytes::Bytes, Option<Arc<LobbyDocument>>)> = docs
            .iter()
            // A document that does not read (written by a newer lobby, say) is listed only
            // unfiltered, last.
            .filter(|(_, s)| s.doc.as_ref().map_or(!filtered, |d| query.matches(d, now)))
            .map(|(id, s)| (id.clone(), s.json.clone(), s.doc.clone()))
            .collect();
        drop(docs);
        chosen.sort_by(|a, b| match (&a.2, &b.2) {
            (Some(x), Some(y)) => crate::listing::order(x, y),
            (x, y) => y.is_some().cmp(&x.is_some()).then_with(|| a.0.cmp(&b.0)),
        });
        Page::of(chosen, query.page, query.per_page)
    }

    /// One page of the list as JSON: `{"tournaments": […], "page", "per_page", "total",
    /// "pages", "next"}`, `next` the URL of the next page or `null`.
    fn list(&self, query: &Query) -> Vec<u8> {
        let page = self.select(query);
        let mut body = Vec::with_capacity(page.items.iter().map(|d| d.1.len() + 1).sum::<usize>() + 200);
        body.extend_from_slice(b"{\"tournaments\":[");
        for (i, (id, json, _)) in page.items.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            body.extend_from_slice(&self.waits.document(id, json));
        }
        let meta = serde_json::json!({
            "page": page.page,
            "per_page": page.per_page,
            "total": page.total,
            "pages": page.pages,
            "next": page.next().map(|n| format!("/api/tournaments?{}", query.to_url_query(n))),
        });
        // The object's fields after the list: `{"page":…}` without its opening brace.
        let meta = serde_json::to_vec(&meta).expect("page fields serialize");
        body.extend_from_slice(b"],");
        body.extend_from_slice(&meta[1..]);
        body
    }

    /// One tournament's newest revision, waiting for a tournament just created
    /// ([`first_document`]); from the cache when the bucket does not answer.
    async fn get(&self, id: &str) -> Result<Revision, NotShown> {
        if uuid::Uuid::parse_str(id).is_err() {
            // Not a tournament id (and perhaps not a valid key): nothing to ask the bucket.
            return Err(NotShown::Unknown);
        }
        match self.bucket.entry(id).await {
            Ok(Some(entry)) if entry.operation == kv::Operation::Put => Ok(Revision::new(entry.revision, entry.value)),
            Ok(_) => first_document(&self.bucket, &self.events, id, FIRST_DOCUMENT).await,
            Err(e) => {
                tracing::warn!(error = %e, "lobby read from the cache: the bucket did not answer");
                let docs = self.docs.read().expect("lobby cache poisoned");
                docs.get(id).map(|s| Revision::new(0, s.json.clone())).ok_or(NotShown::Unknown)
            }
        }
    }

    /// Every document that reads, in the list's order (the console's list: a director sees
    /// them all, unpaged).
    pub(crate) fn documents(&self) -> Vec<Arc<LobbyDocument>> {
        let docs = self.docs.read().expect("lobby cache poisoned");
        let mut all: Vec<Arc<LobbyDocument>> = docs.values().filter_map(|s| s.doc.clone()).collect();
        drop(docs);
        all.sort_by(|a, b| crate::listing::order(a, b));
        all
    }

    /// One tournament's newest document (see [`LobbyCache::get`]).
    pub(crate) async fn document(&self, id: &str) -> Result<LobbyDocument, NotShown> {
        let revision = self.get(id).await?;
        serde_json::from_slice(&revision.json).map_err(|_| NotShown::NotYet)
    }

    /// A tournament's structure, if it has one.
    async fn structure(&self, id: &str) -> Option<bytes::Bytes> {
        self.structures.get(id).await.ok().flatten()
    }
}

pub(crate) fn json(status: StatusCode, body: impl Into<axum::body::Body>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}

/// The longest piece of a request's path an error message repeats: enough to recognise a
/// mistyped id, never a megabyte of someone's URL.
const ECHOED: usize = 80;

/// Every error the lobby answers: `{"error":{"code","message"}}` as `application/json`, the
/// envelope of every command reply. The body is serialized, never formatted by hand: a path
/// holding a quote or a non-ASCII letter once came back as Rust's escapes, which JSON cannot read.
pub(crate) fn error(status: StatusCode, code: &str, message: String) -> Response {
    let body = floor_events::Reply::<()>::Error(floor_events::ErrorBody::new(code, message));
    // An error body is two strings; serializing it cannot fail.
    json(status, serde_json::to_vec(&body).expect("error body serializes"))
}

/// At most [`ECHOED`] characters of `text`, marked when cut.
pub fn echoed(text: &str) -> String {
    match text.char_indices().nth(ECHOED) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The list's URL parameters, as given (parsed by [`Query::parse`], so a wrong value gets the
/// lobby's own error).
#[derive(Debug, Default, serde::Deserialize)]
struct ListParams {
    state: Option<String>,
    format: Option<String>,
    page: Option<String>,
    per_page: Option<String>,
}

fn list_query(params: Result<axum::extract::Query<ListParams>, QueryRejection>) -> Result<Query, String> {
    let axum::extract::Query(p) = params.map_err(|r| r.body_text())?;
    Query::parse(p.state.as_deref(), p.format.as_deref(), p.page.as_deref(), p.per_page.as_deref()).map_err(|e: QueryError| e.to_string())
}

async fn list(State(cache): State<LobbyCache>, params: Result<axum::extract::Query<ListParams>, QueryRejection>) -> Response {
    match list_query(params) {
        Ok(query) => json(StatusCode::OK, cache.list(&query)),
        Err(message) => error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, message),
    }
}

/// The tournament id from the path.
pub(crate) fn path_id(id: Result<Path<String>, PathRejection>) -> Result<String, PathRejection> {
    id.map(|Path(id)| id)
}

/// The answer to a path segment that does not decode (percent-escapes that are not UTF-8, say):
/// it names no tournament.
pub(crate) fn bad_path(rejection: PathRejection) -> Response {
    error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, rejection.body_text())
}

pub(crate) fn not_shown(id: &str, why: NotShown) -> Response {
    match why {
        NotShown::NotYet => error(
            StatusCode::SERVICE_UNAVAILABLE,
            floor_events::codes::UNAVAILABLE,
            format!("tournament {} is created; the lobby has not shown it yet, try again", echoed(id)),
        ),
        NotShown::Unknown => error(StatusCode::NOT_FOUND, floor_events::codes::UNKNOWN_TOURNAMENT, format!("no tournament {}", echoed(id))),
    }
}

async fn one(State(cache): State<LobbyCache>, id: Result<Path<String>, PathRejection>) -> Response {
    let id = match path_id(id) {
        Ok(id) => id,
        Err(rejection) => return bad_path(rejection),
    };
    match cache.get(&id).await {
        Ok(doc) => json(StatusCode::OK, cache.waits.document(&id, &doc.json)),
        Err(why) => not_shown(&id, why),
    }
}

async fn structure(State(cache): State<LobbyCache>, id: Result<Path<String>, PathRejection>) -> Response {
    let id = match path_id(id) {
        Ok(id) => id,
        Err(rejection) => return bad_path(rejection),
    };
    if let Err(why) = cache.get(&id).await {
        return not_shown(&id, why);
    }
    match cache.structure(&id).await {
        Some(structure) => json(StatusCode::OK, structure),
        None => error(StatusCode::NOT_FOUND, floor_events::codes::NOT_FOUND, format!("tournament {} has no structure yet", echoed(&id))),
    }
}

/// How often an idle feed sends a comment, so proxies keep it open and a client that went
/// away is noticed.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `frames`, with a comment whenever nothing was sent for [`KEEP_ALIVE`].
fn kept_alive(frames: impl Stream<Item = bytes::Bytes> + Send + 'static) -> impl Stream<Item = bytes::Bytes> + Send + 'static {
    let quiet = tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
    futures::stream::unfold((Box::pin(frames), quiet), |(mut frames, mut quiet)| async move {
        tokio::select! {
            frame = frames.next() => frame.map(|frame| {
                quiet.reset();
                (frame, (frames, quiet))
            }),
            _ = quiet.tick() => Some((bytes::Bytes::from_static(b":\n\n"), (frames, quiet))),
        }
    })
}

/// A tournament's live feed: its document now, then at every new revision, each turned into an
/// event by `event` (once per revision for all clients: [`Revision::framed`]), until the client
/// goes away or the server stops.
async fn feed(
    cache: LobbyCache,
    id: Result<Path<String>, PathRejection>,
    event: impl Fn(&LobbyCache, &str, &Revision) -> Option<bytes::Bytes> + Send + Sync + 'static,
) -> Response {
    let id = match path_id(id) {
        Ok(id) => id,
        Err(rejection) => return bad_path(rejection),
    };
    // Listen before reading, so no revision falls between the two.
    let watching = crate::live::Watching::new(&cache.feeds, &id);
    let first = match cache.get(&id).await {
        Ok(first) => first,
        Err(why) => return not_shown(&id, why),
    };
    let frames = crate::live::revisions(first, watching, cache.shutdown.clone())
        .filter_map(move |revision| std::future::ready(event(&cache, &id, &revision)));
    let body = axum::body::Body::from_stream(kept_alive(frames).map(Ok::<_, std::convert::Infallible>));
    ([(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// `GET /api/tournaments/{id}/events`: `event: document`, `id:` the KV revision, `data:` the
/// document's JSON (with `waiting_on`, as `GET /api/tournaments/{id}` serves it).
async fn events(State(cache): State<LobbyCache>, id: Result<Path<String>, PathRejection>) -> Response {
    feed(cache, id, |cache, id, revision| {
        revision.framed(Feed::Json, |revision| {
            let json = cache.waits.document(id, &revision.json);
            // The projection's JSON is one line; serde never writes a raw line break into it.
            let text = String::from_utf8(json).ok()?;
            Some(crate::live::frame("document", revision.revision, &text))
        })
    })
    .await
}

/// `GET /tournaments/{id}/events`: the page's live part, rendered, at every revision.
async fn page_events(State(cache): State<LobbyCache>, id: Result<Path<String>, PathRejection>) -> Response {
    feed(cache, id, |cache, _, revision| {
        // Rendered once per revision for every client of the tournament. `now` only sets the
        // countdowns' text until the page's script takes over.
        revision.framed(Feed::Page, |revision| {
            let doc: LobbyDocument = serde_json::from_slice(&revision.json).ok()?;
            let seats = cache.seats.summary(doc.tournament_id);
            let live = crate::tournament_page::live_with_tables(&doc, seats.as_ref(), cache.clock.now());
            Some(crate::live::frame("document", revision.revision, &live))
        })
    })
    .await
}

pub(crate) fn html(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

pub(crate) fn html_error(status: StatusCode, message: &str) -> Response {
    let body = format!("<h1>{}</h1>\n<p>{}</p>\n<p><a href=\"/\">All tournaments</a></p>\n", status, crate::html::escape(message));
    html(status, crate::html::page(status.canonical_reason().unwrap_or("Error"), &body))
}

/// `GET /`: the list page.
async fn list_page(State(cache): State<LobbyCache>, params: Result<axum::extract::Query<ListParams>, QueryRejection>) -> Response {
    let query = match list_query(params) {
        Ok(query) => query,
        Err(message) => return html_error(StatusCode::BAD_REQUEST, &message),
    };
    let selected = cache.select(&query);
    let docs: Vec<Arc<LobbyDocument>> = selected.items.iter().filter_map(|(_, _, doc)| doc.clone()).collect();
    let shown = Page { items: docs, page: selected.page, per_page: selected.per_page, total: selected.total, pages: selected.pages };
    html(StatusCode::OK, crate::list_page::render(&shown, &query, cache.clock.now()))
}

/// `GET /tournaments/{id}`: the tournament page.
async fn tournament_page(State(cache): State<LobbyCache>, id: Result<Path<String>, PathRejection>) -> Response {
    let Ok(Path(id)) = id else { return html_error(StatusCode::BAD_REQUEST, "not a tournament id") };
    let revision = match cache.get(&id).await {
        Ok(revision) => revision,
        Err(NotShown::Unknown) => return html_error(StatusCode::NOT_FOUND, &format!("No tournament {}.", echoed(&id))),
        Err(NotShown::NotYet) => {
            return html_error(StatusCode::SERVICE_UNAVAILABLE, "This tournament is just created; reload in a moment.")
        }
    };
    let Ok(doc) = serde_json::from_slice::<LobbyDocument>(&revision.json) else {
        return html_error(StatusCode::INTERNAL_SERVER_ERROR, "This tournament's document does not read.");
    };
    let structure = cache.structure(&id).await.and_then(|s| serde_json::from_slice(&s).ok());
    cache.seats.caught_up(doc.tournament_id).await;
    let seats = cache.seats.summary(doc.tournament_id);
    html(StatusCode::OK, crate::tournament_page::render(&doc, structure.as_ref(), seats.as_ref(), cache.clock.now()))
}

/// The platform's health: every reader's poison commits and what it set aside (as `floor
/// status` prints it).
async fn health(State(cache): State<LobbyCache>) -> Response {
    match floor_runtime::health::status(&cache.jetstream).await {
        // A status is plain data; serializing it cannot fail.
        Ok(status) => {
            let status = floor_runtime::health::Status { waiting: cache.waits.all(), ..status };
            json(StatusCode::OK, serde_json::to_vec(&status).expect("health serializes"))
        }
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, floor_events::codes::UNAVAILABLE, format!("health not readable: {e}")),
    }
}

/// What `GET /api` answers, and what an unknown path's error points to.
const ROUTES: &str = "Floor lobby

GET /                                   the tournament list (a page)
GET /tournaments/{id}                   one tournament (a page, live)
GET /tournaments/{id}/tables            who sits where (a page): ?page=
GET /tournaments/{id}/players?name=     find a player's entries, table, seat and stack (a page)
GET /tournaments/{id}/statement?player= a cancelled tournament's statement for one player (a page)
GET /api/tournaments                    the list: ?state=registering|late_registration|running|finished|cancelled
                                        &format=sit_and_go|scheduled|freezeout|re_entry|multi_entry|rebuy|bounty
                                        &page=1&per_page=25 (at most 100)
GET /api/tournaments/{id}               one tournament
GET /api/tournaments/{id}/structure     its blind structure
GET /api/tournaments/{id}/events        its document at every change (Server-Sent Events)
GET /api/tournaments/{id}/tables        its open tables, seat by seat with stacks: ?page=1&per_page=25
GET /api/tournaments/{id}/players?name= entries whose player name holds name: table, seat, stack
GET /api/tournaments/{id}/statement?player= that player's statement, its lines and the books (cancelled in play)
GET /api/health                         poison commits the readers survived, what tournaments wait on
GET /api/openapi.json                   this JSON API as an OpenAPI 3.1 document
GET /console                            the director console (a login; disabled without a password at start)
";

/// Any path the lobby does not serve.
async fn no_route(uri: Uri) -> Response {
    error(
        StatusCode::NOT_FOUND,
        floor_events::codes::NOT_FOUND,
        format!("no such path {}; GET /api lists what the lobby serves", echoed(uri.path())),
    )
}

/// A path the lobby serves, asked with a method it does not answer (the lobby only reads).
async fn wrong_method(method: Method, uri: Uri) -> Response {
    let mut answer = error(
        StatusCode::METHOD_NOT_ALLOWED,
        floor_events::codes::METHOD_NOT_ALLOWED,
        format!("{method} {} is not served; the lobby answers GET only", echoed(uri.path())),
    );
    answer.headers_mut().insert(header::ALLOW, header::HeaderValue::from_static("GET,HEAD"));
    answer
}

async fn api_index() -> Response {
    ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], ROUTES).into_response()
}

/// The lobby's routes. Every error of the JSON API, the router's own included (no such path, a
/// method the lobby does not answer), is JSON in the command reply's envelope, and so is every
/// error the framework makes itself ([`crate::layers`]); the pages answer their own errors as
/// pages. Every answer carries the security headers; a body is read up to `body_limit` bytes.
pub fn router(cache: LobbyCache, console: Router, body_limit: usize) -> Router {
    Router::new()
        .route("/", get(list_page))
        .route("/tournaments/{id}", get(tournament_page))
        .route("/tournaments/{id}/events", get(page_events))
        .route("/tournaments/{id}/tables", get(crate::seat_pages::tables_html))
        .route("/tournaments/{id}/players", get(crate::seat_pages::players_html))
        .route("/tournaments/{id}/statement", get(crate::statements::statement_html))
        .route("/api", get(api_index))
        .route("/api/tournaments", get(list))
        .route("/api/tournaments/{id}", get(one))
        .route("/api/tournaments/{id}/structure", get(structure))
        .route("/api/tournaments/{id}/events", get(events))
        .route("/api/tournaments/{id}/tables", get(crate::seat_pages::api_tables))
        .route("/api/tournaments/{id}/players", get(crate::seat_pages::api_players))
        .route("/api/tournaments/{id}/statement", get(crate::statements::api_statement))
        .route("/api/health", get(health))
        .route("/api/openapi.json", get(crate::openapi::serve))
        .with_state(cache)
        .merge(console)
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .layer(crate::layers::body_limit(body_limit))
        .layer(axum::middleware::from_fn(move |request, next| crate::layers::limits(body_limit, request, next)))
        // Outermost: the size checks' answers get the headers too.
        .layer(axum::middleware::from_fn(crate::layers::harden))
}
