//! The lobby over HTTP, on top of everything else: the routes, the JSON API's own handlers (the
//! list, one document, its structure, the live feeds, health) and the layers every answer
//! passes. The pages are in [`crate::pages`]; the router imports them, never the other way.
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the tournament list as a page ([`crate::pages::list`]) |
//! | `GET /tournaments/{id}` | one tournament as a page ([`crate::pages::tournament`]) |
//! | `GET /tournaments/{id}/events` | its live part, rendered, at every new revision (SSE); `?view=clock`: the clock screen's |
//! | `GET /tournaments/{id}/results?page=`, and the same under `/api` | every finisher, place and prize, 500 places a page ([`crate::pages::results`]) |
//! | `GET /tournaments/{id}/clock` | the clock screen for the room's TV, live ([`crate::pages::clock`]) |
//! | `GET /api` | this list, as text |
//! | `GET /api/tournaments?state=&format=&page=&per_page=` | one page of the list, JSON |
//! | `GET /api/tournaments/{id}` | one document |
//! | `GET /api/tournaments/{id}/structure` | its blind structure ([`crate::structures`]) |
//! | `GET /api/tournaments/{id}/events` | its document at every new revision (SSE, [`crate::live`]) |
//! | `GET /tournaments/{id}/tables`, `/players?name=`, and the same under `/api` | who sits where, and the player search ([`crate::pages::seats`]) |
//! | `GET /tournaments/{id}/statement?player=`, and the same under `/api` | a cancelled tournament's statement for one player, from the abort service ([`crate::pages::statements`]) |
//! | `GET /api/health` | readers' poison commits, what tournaments wait on |
//! | `GET /api/openapi.json` | the OpenAPI document of this JSON API ([`crate::openapi`]) |
//! | `/console/…` | the director console ([`crate::console`]) |
//!
//! Everything is served from [`LobbyCache`] ([`crate::cache`]): the list from its in-memory
//! copy of bucket `floor-lobby`, one tournament from the bucket itself.

use crate::cache::LobbyCache;
use crate::document::LobbyDocument;
use crate::live::{Feed, Revision};
use crate::pages::list::{list_query, ListParams};
use crate::respond::{bad_path, echoed, error, json, not_shown, path_id};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures::{Stream, StreamExt};
use std::time::Duration;

async fn list(State(cache): State<LobbyCache>, params: Result<axum::extract::Query<ListParams>, QueryRejection>) -> Response {
    match list_query(params) {
        Ok(query) => json(StatusCode::OK, cache.list(&query)),
        Err(message) => error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, message),
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

/// Which page a tournament's rendered feed is for.
#[derive(Debug, Default, serde::Deserialize)]
struct View {
    view: Option<String>,
}

/// `GET /tournaments/{id}/events`: the page's live part, rendered, at every revision; with
/// `?view=clock`, the clock screen's ([`crate::pages::clock`], issue 39).
async fn page_events(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    view: Result<axum::extract::Query<View>, QueryRejection>,
) -> Response {
    match view.as_ref().map(|v| v.view.as_deref()) {
        Ok(None | Some("page")) => {}
        Ok(Some("clock")) => {
            return feed(cache, id, |cache, _, revision| {
                revision.framed(Feed::Clock, |revision| {
                    let doc: LobbyDocument = serde_json::from_slice(&revision.json).ok()?;
                    let screen = crate::pages::clock::screen(&doc, cache.clock.now());
                    Some(crate::live::frame("document", revision.revision, &screen))
                })
            })
            .await
        }
        _ => return error(StatusCode::BAD_REQUEST, floor_events::codes::INVALID_FIELD, "view must be page or clock".to_owned()),
    }
    feed(cache, id, |cache, _, revision| {
        // Rendered once per revision for every client of the tournament. `now` only sets the
        // countdowns' text until the page's script takes over.
        revision.framed(Feed::Page, |revision| {
            let doc: LobbyDocument = serde_json::from_slice(&revision.json).ok()?;
            let seats = cache.seats.summary(doc.tournament_id);
            let live = crate::pages::tournament::live_with_tables(&doc, seats.as_ref(), cache.clock.now());
            Some(crate::live::frame("document", revision.revision, &live))
        })
    })
    .await
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
GET /tournaments/{id}/clock             the clock screen for the room's TV or projector (a page, live)
GET /tournaments/{id}/results?page=    every finisher, place and prize, 500 places a page (a page)
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
GET /api/tournaments/{id}/results?page= every finisher, place and prize: places (page-1)*500+1 to page*500
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
        .route("/", get(crate::pages::list::list_html))
        .route("/tournaments/{id}", get(crate::pages::tournament::tournament_html))
        .route("/tournaments/{id}/events", get(page_events))
        .route("/tournaments/{id}/clock", get(crate::pages::clock::clock_html))
        .route("/tournaments/{id}/results", get(crate::pages::results::results_html))
        .route("/tournaments/{id}/tables", get(crate::pages::seats::tables_html))
        .route("/tournaments/{id}/players", get(crate::pages::seats::players_html))
        .route("/tournaments/{id}/statement", get(crate::pages::statements::statement_html))
        .route("/api", get(api_index))
        .route("/api/tournaments", get(list))
        .route("/api/tournaments/{id}", get(one))
        .route("/api/tournaments/{id}/structure", get(structure))
        .route("/api/tournaments/{id}/events", get(events))
        .route("/api/tournaments/{id}/tables", get(crate::pages::seats::api_tables))
        .route("/api/tournaments/{id}/players", get(crate::pages::seats::api_players))
        .route("/api/tournaments/{id}/leaders", get(crate::pages::seats::api_leaders))
        .route("/api/tournaments/{id}/results", get(crate::pages::results::api_results))
        .route("/api/tournaments/{id}/statement", get(crate::pages::statements::api_statement))
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
