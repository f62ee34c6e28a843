//! The console's routes: check the session (and the form token of a post), then read the
//! lobby's documents and logs, or send one command and show its answer.

use super::form::{self, Action, Fields, FormError};
use super::guard::{ClientKey, Refusal};
use super::pages::{self, Audited, LastReports, Notice, Signed};
use super::{auth::Session, Console};
use crate::cache::seats::Held;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use floor_events::{abort, bubble, clock, codes, payouts, rebuys, registration, schedule, CommandId, TournamentId};
use floor_runtime::{CommandError, CommandErrorKind};
use futures::TryStreamExt;
use std::net::SocketAddr;

/// The session cookie.
const COOKIE: &str = "floor_console";

/// The lobby's reader, whose checkpoint says what its documents hold.
const LOBBY_READER: &str = "lobby";

/// How long an action's page waits for the lobby to show its effect.
const SHOWN_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// The most director actions a tournament's page lists (the newest).
const AUDIT_SHOWN: usize = 50;

pub(super) fn router(console: Console) -> Router {
    Router::new()
        .route("/console", get(index))
        .route("/console/", get(index))
        .route("/console/login", get(login_page).post(login))
        .route("/console/logout", post(logout))
        .route("/console/tournaments", post(create))
        .route("/console/schedules", post(add_schedule))
        .route("/console/tournaments/{id}", get(tournament))
        .route("/console/tournaments/{id}/events", get(live_events))
        .route("/console/tournaments/{id}/{action}", post(act))
        .with_state(console)
}

/// An HTML answer the browser must not keep or frame.
fn page(status: StatusCode, body: String) -> Response {
    let mut response = (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(pages::policy()));
    response
}

fn see_other(to: &str) -> Response {
    (StatusCode::SEE_OTHER, [(header::LOCATION, to.to_owned())]).into_response()
}

fn disabled() -> Response {
    page(StatusCode::NOT_FOUND, pages::disabled())
}

/// The token of the session cookie, if the request has one: every `Cookie` header parsed by
/// the `cookie` crate (RFC 6265 pairs, `;`-separated, whitespace trimmed; a pair that does not
/// parse is skipped).
fn cookie_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == COOKIE)
        .and_then(|c| c.value_raw())
}

impl Console {
    /// The session of this request, if it has a live one.
    async fn session(&self, headers: &HeaderMap) -> Option<Session> {
        self.sessions.check(cookie_token(headers)?, self.clock.now()).await
    }

    /// A post's session and fields: refused (nothing sent, nothing written) without a live
    /// session, or with a form token that is not the session's.
    async fn authorize(&self, headers: &HeaderMap, body: &[u8]) -> Result<(Session, Fields), Refused> {
        if self.credential.is_none() {
            return Err(Refused::Disabled);
        }
        let session = self.session(headers).await.ok_or(Refused::NoSession)?;
        let fields = Fields::parse(body).map_err(Refused::BadForm)?;
        if !session.form_token_is(fields.text("form_token")) {
            return Err(Refused::NotThisSession);
        }
        Ok((session, fields))
    }

    /// Records who asked for what, before the command goes out. The bucket is the console's
    /// own, so a record that cannot be written stops the action: no command without its record.
    async fn audit(
        &self,
        session: &Session,
        action: &str,
        tournament: Option<TournamentId>,
        command_id: CommandId,
        reason: Option<&str>,
    ) -> Result<(), Notice> {
        let Some(bucket) = &self.audit else { return Ok(()) };
        let record = Audited {
            at: self.clock.now(),
            director: session.director.clone(),
            action: action.to_owned(),
            tournament_id: tournament,
            command_id: command_id.0,
            reason: reason.map(str::to_owned),
        };
        let key = format!("{}.{}", tournament.map_or_else(|| "platform".to_owned(), |t| t.to_string()), command_id.0);
        let value = serde_json::to_vec(&record).expect("an audit record serializes");
        bucket.put(key, value.into()).await.map(|_| ()).map_err(|e| Notice::Failed {
            code: codes::UNAVAILABLE.to_owned(),
            message: format!("the audit record could not be written ({e}); nothing was sent"),
        })
    }

    /// Read your own write: waits, at most [`SHOWN_WITHIN`], until the lobby's reader has taken
    /// every commit of `t` stored so far (as `floor`'s `Director::shown` does), so the page that
    /// answers an action shows the tournament after it. The lobby's document is read from its
    /// bucket, which the reader writes before its checkpoint.
    async fn shown(&self, t: TournamentId) {
        let js = &self.backbone.jetstream;
        let Ok(checkpoints) = js.get_key_value(floor_events::subjects::CHECKPOINT_BUCKET).await else { return };
        let Some(reads) = floor_runtime::readers::of(js, LOBBY_READER).await else { return };
        let last = floor_runtime::readers::last_commit_of(&self.backbone.events, &reads, t.0).await;
        if last == 0 {
            return;
        }
        let taken = floor_runtime::readers::taken(&checkpoints, LOBBY_READER, last);
        if !matches!(tokio::time::timeout(SHOWN_WITHIN, taken).await, Ok(Some(_))) {
            tracing::warn!(%t, "console: the lobby has not shown the action's effect yet; the page may show the state before it");
            return;
        }
        // The list is built from the cache, which the bucket's watch fills a moment after.
        self.cache.caught_up(&t.to_string(), SHOWN_WITHIN).await;
    }

    /// The newest director actions on `tournament`.
    async fn audited(&self, tournament: TournamentId) -> Vec<Audited> {
        let Some(bucket) = &self.audit else { return Vec::new() };
        let prefix = format!("{tournament}.");
        let Ok(keys) = bucket.keys().await else { return Vec::new() };
        let keys: Vec<String> = keys.try_filter(|k| std::future::ready(k.starts_with(&prefix))).try_collect().await.unwrap_or_default();
        let mut records = Vec::new();
        for key in keys {
            if let Ok(Some(value)) = bucket.get(&key).await {
                records.extend(serde_json::from_slice::<Audited>(&value).ok());
            }
        }
        records.sort_by_key(|r| std::cmp::Reverse(r.at));
        records.truncate(AUDIT_SHOWN);
        records
    }

    /// The tables of `tournament`, as the lobby's seat map holds them
    /// ([`crate::cache::seats::SeatCache`]), and when each open one last reported.
    async fn tables(&self, tournament: TournamentId) -> (Held, LastReports) {
        let seats = self.cache.seats();
        seats.caught_up(tournament).await;
        let tables = seats.get(tournament).unwrap_or_default();
        let mut reports = LastReports::new();
        for &number in tables.tables.keys() {
            let subject = floor_events::table::reports_subject(tournament, number);
            if let Ok(message) = self.backbone.tables.direct_get_last_for_subject(subject).await {
                let nanos = i64::try_from(message.time.unix_timestamp_nanos()).unwrap_or(i64::MAX);
                reports.insert(number, chrono::DateTime::from_timestamp_nanos(nanos));
            }
        }
        (tables, reports)
    }

    async fn tournament_page(&self, session: &Session, id: &str, last: Option<Notice>, status: StatusCode) -> Response {
        let signed = Signed { director: &session.director, form_token: &session.form_token };
        let doc = match self.cache.document(id).await {
            Ok(doc) => doc,
            Err(_) => {
                return page(StatusCode::NOT_FOUND, pages::message("No such tournament", Some(&signed), &format!("No tournament {id}.")))
            }
        };
        let (tables, reports) = self.tables(doc.tournament_id).await;
        let audit = self.audited(doc.tournament_id).await;
        page(status, pages::tournament(&doc, &tables, &reports, &audit, &signed, last.as_ref(), self.clock.now()))
    }

    fn index_page(&self, session: &Session, last: Option<Notice>, status: StatusCode) -> Response {
        let signed = Signed { director: &session.director, form_token: &session.form_token };
        page(status, pages::index(&self.cache.documents(), &signed, last.as_ref(), self.clock.now()))
    }
}

/// Why a post is refused before anything is done.
#[derive(Debug)]
enum Refused {
    /// No credential was given at start.
    Disabled,
    /// No session cookie, or one that is forged, closed or expired.
    NoSession,
    /// The body does not read as a form.
    BadForm(FormError),
    /// The form token is absent or another session's (CSRF).
    NotThisSession,
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        match self {
            Self::Disabled => disabled(),
            Self::NoSession => {
                page(StatusCode::UNAUTHORIZED, pages::message("Sign in first", None, "No valid session: sign in again. Nothing was done."))
            }
            Self::BadForm(e) => page(StatusCode::BAD_REQUEST, pages::message("Bad form", None, &e.to_string())),
            Self::NotThisSession => {
                page(StatusCode::FORBIDDEN, pages::message("Refused", None, "The form is not from this session. Nothing was done."))
            }
        }
    }
}

/// A command's answer as a notice, and the status the page is served with.
fn answered<T>(result: Result<T, CommandError>, done: String) -> (Option<Notice>, StatusCode) {
    match result {
        Ok(_) => (Some(Notice::Done(done)), StatusCode::OK),
        Err(e) => {
            let (code, message, status) = match e.kind_ref() {
                CommandErrorKind::Rejected(body) => (body.code.clone(), body.message.clone(), StatusCode::UNPROCESSABLE_ENTITY),
                CommandErrorKind::Unavailable => (
                    codes::UNAVAILABLE.to_owned(),
                    format!("{e}; send the same form again (it is the same command, stored once)"),
                    StatusCode::SERVICE_UNAVAILABLE,
                ),
                CommandErrorKind::BadReply => ("bad_reply".to_owned(), e.to_string(), StatusCode::BAD_GATEWAY),
            };
            (Some(Notice::Failed { code, message }), status)
        }
    }
}

fn form_failed(e: FormError) -> (Option<Notice>, StatusCode) {
    (Some(Notice::Failed { code: codes::INVALID_FIELD.to_owned(), message: e.to_string() }), StatusCode::BAD_REQUEST)
}

async fn index(State(console): State<Console>, headers: HeaderMap) -> Response {
    if console.credential.is_none() {
        return disabled();
    }
    match console.session(&headers).await {
        Some(session) => console.index_page(&session, None, StatusCode::OK),
        None => see_other("/console/login"),
    }
}

async fn login_page(State(console): State<Console>) -> Response {
    if console.credential.is_none() {
        return disabled();
    }
    page(StatusCode::OK, pages::login(None))
}

async fn login(State(console): State<Console>, ConnectInfo(peer): ConnectInfo<SocketAddr>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(credential) = console.credential.clone() else { return disabled() };
    let fields = match Fields::parse(&body) {
        Ok(fields) => fields,
        Err(e) => return page(StatusCode::BAD_REQUEST, pages::login(Some(&e.to_string()))),
    };
    let director = match fields.required("director", 60) {
        Ok(name) => name,
        Err(_) => return page(StatusCode::BAD_REQUEST, pages::login(Some("Give your name: it is recorded with every action."))),
    };
    let forwarded = headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
    let client = ClientKey::of_request(peer.ip(), forwarded, &console.trusted_proxies);
    // Reserved before the password is hashed, and counted now (see `guard`).
    let attempt = match console.logins.begin(client, console.clock.now(), Some(fields.text("recovery_code"))) {
        Ok(attempt) => attempt,
        Err(refusal) => {
            tracing::debug!(director, %client, ?refusal, "console: a sign-in refused before its password was looked at");
            return refused(&refusal);
        }
    };
    let password = fields.raw("password").to_owned();
    // PBKDF2 takes a fraction of a second: off the async workers.
    let verified = tokio::task::spawn_blocking(move || credential.verify(&password)).await.unwrap_or(false);
    if !verified {
        drop(attempt);
        let closed = console.logins.closed_for(client, console.clock.now());
        tracing::warn!(director, %client, closed_seconds = closed.map(|w| w.num_seconds()), "console: a sign-in with a wrong password");
        return match closed {
            Some(wait) => closed_page(wait, "Too many wrong passwords"),
            None => page(StatusCode::UNAUTHORIZED, pages::login(Some("Wrong password."))),
        };
    }
    if let Some(next) = attempt.succeeded(console.clock.now()) {
        tracing::warn!(director, %client, "console: signed in with the recovery code, which is now spent");
        super::log_recovery_code(&next);
    }
    let (token, session) = match console.sessions.open(&director, console.clock.now()).await {
        Ok(opened) => opened,
        Err(e) => {
            tracing::warn!(director, error = %e, "console: a sign-in whose session could not be stored");
            return page(StatusCode::SERVICE_UNAVAILABLE, pages::login(Some("Signing in is not possible right now; try again.")));
        }
    };
    tracing::info!(director, until = %session.expires_at, "console: signed in");
    let cookie = session_cookie(&token, console.sessions.ttl().num_seconds(), console.secure_cookie);
    let mut response = see_other("/console");
    response.headers_mut().insert(header::SET_COOKIE, HeaderValue::from_str(&cookie).expect("a hex token is a header value"));
    response
}

/// The session cookie: only for `/console`, never to scripts or other sites, for the session's
/// time; `Secure` (HTTPS only) when the lobby serves HTTPS.
fn session_cookie(token: &str, max_age: i64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}={token}; Path=/console; HttpOnly; SameSite=Strict; Max-Age={max_age}{secure}")
}

/// A sign-in refused before its password was looked at: 429 with the wait, in seconds, in
/// `Retry-After` and on the page (401 for a wrong recovery code).
fn refused(refusal: &Refusal) -> Response {
    match refusal {
        Refusal::ClientClosed(wait) => closed_page(*wait, "Too many wrong passwords"),
        Refusal::Closed(wait) => {
            closed_page(*wait, "Too many wrong passwords from everywhere (the recovery code in the log at start lets the director in)")
        }
        Refusal::Checking => closed_page(refusal.retry_after(), "A sign-in from your address is being checked"),
        Refusal::Busy => closed_page(refusal.retry_after(), "Too many sign-ins at once"),
        Refusal::WrongRecoveryCode => page(StatusCode::UNAUTHORIZED, pages::login(Some("Wrong recovery code."))),
    }
}

/// Sign-in closed for `wait`, and why: 429 with the wait, in seconds, in `Retry-After` and on
/// the page.
fn closed_page(wait: chrono::Duration, why: &str) -> Response {
    let seconds = wait.num_seconds().max(1);
    let text = format!("{why}: sign-in is closed for {seconds} s. Try again after that.");
    let mut response = page(StatusCode::TOO_MANY_REQUESTS, pages::login(Some(&text)));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

async fn logout(State(console): State<Console>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(refused) = console.authorize(&headers, &body).await {
        return refused.into_response();
    }
    if let Some(token) = cookie_token(&headers) {
        console.sessions.close(token).await;
    }
    let mut response = see_other("/console/login");
    let expired = format!("{COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0");
    response.headers_mut().insert(header::SET_COOKIE, HeaderValue::from_str(&expired).expect("header value"));
    response
}

async fn tournament(State(console): State<Console>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if console.credential.is_none() {
        return disabled();
    }
    match console.session(&headers).await {
        Some(session) => console.tournament_page(&session, &id, None, StatusCode::OK).await,
        None => see_other("/console/login"),
    }
}

/// `GET /console/tournaments/{id}/events`: the tournament page's live part (the players' page's:
/// clock and time left, field, payouts, rebuys, hand-for-hand), rendered at every revision of the
/// lobby's document (SSE), for a signed-in director. The players' tables summary is left out:
/// the console's own tables section says more.
async fn live_events(State(console): State<Console>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    use futures::StreamExt;
    if console.credential.is_none() {
        return disabled();
    }
    if console.session(&headers).await.is_none() {
        return page(StatusCode::UNAUTHORIZED, pages::message("Sign in first", None, "No valid session: sign in again."));
    }
    if uuid::Uuid::parse_str(&id).is_err() {
        return page(StatusCode::NOT_FOUND, pages::message("No such tournament", None, "Not a tournament id."));
    }
    // Listen before reading, so no revision falls between the two.
    let watching = crate::live::Watching::new(&console.cache.feeds, &id);
    let Ok(first) = console.cache.get(&id).await else {
        return page(StatusCode::NOT_FOUND, pages::message("No such tournament", None, &format!("No tournament {id}.")));
    };
    let clock = console.clock.clone();
    let frames = crate::live::revisions(first, watching, console.cache.shutdown.clone()).filter_map(move |revision| {
        let doc = serde_json::from_slice::<crate::document::LobbyDocument>(&revision.json).ok();
        let frame = doc.map(|doc| crate::live::frame("document", revision.revision, &crate::pages::tournament::live(&doc, clock.now())));
        std::future::ready(frame)
    });
    let body = axum::body::Body::from_stream(frames.map(Ok::<_, std::convert::Infallible>));
    let mut response = (StatusCode::OK, [(header::CONTENT_TYPE, "text/event-stream")], body).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn create(State(console): State<Console>, headers: HeaderMap, body: Bytes) -> Response {
    let (session, fields) = match console.authorize(&headers, &body).await {
        Ok(authorized) => authorized,
        Err(refused) => return refused.into_response(),
    };
    let (last, status) = match (form::creation(&fields, console.clock.now()), fields.command_id()) {
        (Ok(definition), Ok(command_id)) => {
            let tournament_id = TournamentId(command_id.0);
            if let Err(failed) = console.audit(&session, "create", Some(tournament_id), command_id, None).await {
                (Some(failed), StatusCode::SERVICE_UNAVAILABLE)
            } else {
                let name = definition.name.clone();
                let request = registration::CreateTournament { command_id, tournament_id: Some(tournament_id), definition };
                let sent = console.commands.send(registration::verbs::CREATE_TOURNAMENT, &request).await;
                tracing::info!(director = session.director, %tournament_id, ok = sent.is_ok(), "console: create");
                if sent.is_ok() {
                    console.shown(tournament_id).await;
                }
                answered(sent, format!("Created {name} ({tournament_id})"))
            }
        }
        (Err(e), _) | (_, Err(e)) => form_failed(e),
    };
    console.index_page(&session, last, status)
}

async fn add_schedule(State(console): State<Console>, headers: HeaderMap, body: Bytes) -> Response {
    let (session, fields) = match console.authorize(&headers, &body).await {
        Ok(authorized) => authorized,
        Err(refused) => return refused.into_response(),
    };
    let template = serde_json::from_str::<schedule::ScheduleTemplate>(fields.text("template"))
        .map_err(|e| FormError { field: "template", message: e.to_string() });
    let (last, status) = match (template, fields.command_id()) {
        (Ok(template), Ok(command_id)) => match console.audit(&session, "add_schedule", None, command_id, None).await {
            Err(failed) => (Some(failed), StatusCode::SERVICE_UNAVAILABLE),
            Ok(()) => {
                let request = schedule::AddTemplate { command_id, template_id: None, template };
                let sent = console.commands.send(schedule::verbs::ADD_TEMPLATE, &request).await;
                let done = match &sent {
                    Ok(reply) => format!("Schedule {} added; next starts: {:?}", reply.template_id, reply.upcoming),
                    Err(_) => String::new(),
                };
                answered(sent, done)
            }
        },
        (Err(e), _) | (_, Err(e)) => form_failed(e),
    };
    console.index_page(&session, last, status)
}

async fn act(State(console): State<Console>, headers: HeaderMap, Path((id, name)): Path<(String, String)>, body: Bytes) -> Response {
    let (session, fields) = match console.authorize(&headers, &body).await {
        Ok(authorized) => authorized,
        Err(refused) => return refused.into_response(),
    };
    let Ok(tournament_id) = uuid::Uuid::parse_str(&id).map(TournamentId) else {
        return page(StatusCode::NOT_FOUND, pages::message("No such tournament", None, "Not a tournament id."));
    };
    let (last, status) = match (Action::parse(&name, &fields), fields.command_id()) {
        (Ok(action), Ok(command_id)) => {
            let reason = action.reason().map(str::to_owned);
            // The books are a read: nothing to record.
            let audited = match action {
                Action::Books => Ok(()),
                _ => console.audit(&session, &name, Some(tournament_id), command_id, reason.as_deref()).await,
            };
            match audited {
                Err(failed) => (Some(failed), StatusCode::SERVICE_UNAVAILABLE),
                Ok(()) => {
                    let done = action.done();
                    let sent = send(&console, &session, action, tournament_id, command_id).await;
                    tracing::info!(director = session.director, %tournament_id, action = name, %command_id, ok = sent.is_ok(), "console: action");
                    if sent.is_ok() {
                        console.shown(tournament_id).await;
                    }
                    let said = match &sent {
                        Ok(what) if !what.is_empty() => format!("{done}: {what}"),
                        _ => done,
                    };
                    answered(sent, said)
                }
            }
        }
        (Err(e), _) | (_, Err(e)) => form_failed(e),
    };
    console.tournament_page(&session, &id, last, status).await
}

/// Sends the action's command and says what its reply holds (empty: nothing more than done).
async fn send(
    console: &Console,
    session: &Session,
    action: Action,
    t: TournamentId,
    command_id: CommandId,
) -> Result<String, CommandError> {
    let c = &console.commands;
    let signed = |reason: &str| form::signed(reason, &session.director);
    match action {
        Action::Start => c
            .send(registration::verbs::START_TOURNAMENT, &registration::StartTournament { command_id, tournament_id: t, now: true })
            .await
            .map(nothing),
        Action::Pause { reason } => {
            c.send(clock::verbs::PAUSE, &clock::PauseClock { command_id, tournament_id: t, reason: signed(&reason) }).await.map(nothing)
        }
        Action::Resume => c.send(clock::verbs::RESUME, &clock::ClockRequest { command_id, tournament_id: t }).await.map(nothing),
        Action::AddTime { seconds } => {
            c.send(clock::verbs::ADJUST_TIME, &clock::AdjustTime { command_id, tournament_id: t, seconds }).await.map(nothing)
        }
        Action::SkipToLevel { level } => {
            c.send(clock::verbs::SKIP_TO_LEVEL, &clock::SkipToLevel { command_id, tournament_id: t, level }).await.map(nothing)
        }
        Action::EndBreak => c.send(clock::verbs::END_BREAK, &clock::ClockRequest { command_id, tournament_id: t }).await.map(nothing),
        Action::Cancel { reason, in_play: false, cause } => {
            let before = registration::CancelTournament { command_id, tournament_id: t, reason: signed(&reason) };
            match c.send(registration::verbs::CANCEL_TOURNAMENT, &before).await {
                // A flight's Day 2 holding its Day 1s' pools (issue 36): the abort service
                // cancels it and pays them (another command, so another id).
                Err(e) if e.code() == Some(floor_events::codes::CANCEL_THROUGH_ABORT) => {
                    let cancel = abort::Cancel {
                        command_id: CommandId::derived(&format!("console-day2-cancel:{}", command_id.0)),
                        tournament_id: t,
                        reason: signed(&reason),
                        method: Default::default(),
                        cause,
                    };
                    c.send(abort::verbs::CANCEL, &cancel).await.map(nothing)
                }
                other => other.map(nothing),
            }
        }
        Action::Cancel { reason, in_play: true, cause } => c
            .send(
                abort::verbs::CANCEL,
                &abort::Cancel { command_id, tournament_id: t, reason: signed(&reason), method: Default::default(), cause },
            )
            .await
            .map(nothing),
        Action::Suspend { reason } => {
            c.send(abort::verbs::SUSPEND, &abort::Suspend { command_id, tournament_id: t, reason: signed(&reason) }).await.map(nothing)
        }
        Action::ResumePlay => c.send(abort::verbs::RESUME, &abort::AbortRequest { command_id, tournament_id: t }).await.map(nothing),
        Action::Register { player } => {
            c.send(registration::verbs::REGISTER, &registration::Register { command_id, tournament_id: t, player }).await.map(|r| {
                let m = crate::pages::money::format;
                format!(
                    "entry {} ({}), paid {} (fee {}, prize pool {})",
                    r.entry,
                    serde_json::to_value(r.kind).ok().and_then(|k| k.as_str().map(str::to_owned)).unwrap_or_default().replace('_', " "),
                    m(r.ledger.paid_in),
                    m(r.ledger.fee),
                    m(r.ledger.prize_pool)
                )
            })
        }
        Action::Unregister { player, entry } => c
            .send(registration::verbs::UNREGISTER, &registration::Unregister { command_id, tournament_id: t, player, entry })
            .await
            .map(|r| recorded(r.events.len())),
        Action::Rebuy { player, entry } => c
            .send(rebuys::verbs::REBUY, &rebuys::Purchase { command_id, tournament_id: t, player, entry })
            .await
            .map(|r| recorded(r.events.len())),
        Action::AddOn { player, entry } => c
            .send(rebuys::verbs::ADD_ON, &rebuys::Purchase { command_id, tournament_id: t, player, entry })
            .await
            .map(|r| recorded(r.events.len())),
        Action::EndRebuys => c
            .send(rebuys::verbs::END_REBUYS, &rebuys::DirectorRequest { command_id, tournament_id: t })
            .await
            .map(|r| recorded(r.events.len())),
        Action::HandForHandStart => {
            c.send(bubble::verbs::START, &bubble::BubbleRequest { command_id, tournament_id: t }).await.map(|r| bubbled(&r))
        }
        Action::HandForHandStop => {
            c.send(bubble::verbs::STOP, &bubble::BubbleRequest { command_id, tournament_id: t }).await.map(|r| bubbled(&r))
        }
        Action::HandForHandPause { reason } => c
            .send(bubble::verbs::PAUSE, &bubble::PauseBubble { command_id, tournament_id: t, reason: signed(&reason) })
            .await
            .map(|r| bubbled(&r)),
        Action::HandForHandResume => {
            c.send(bubble::verbs::RESUME, &bubble::BubbleRequest { command_id, tournament_id: t }).await.map(|r| bubbled(&r))
        }
        Action::Books => c.send(payouts::verbs::BOOKS, &payouts::BooksRequest { tournament_id: t }).await.map(|b| pages::books_line(&b)),
        Action::DealPropose { player, method, ends_tournament } => {
            let propose = payouts::ProposeDeal { command_id, tournament_id: t, player, method, left_to_play_for: None, ends_tournament };
            c.send(payouts::verbs::PROPOSE_DEAL, &propose).await.map(|r| deal_line(&r.events))
        }
        Action::DealAccept { player } => {
            let answer = payouts::DealAnswer { command_id, tournament_id: t, player };
            c.send(payouts::verbs::ACCEPT_DEAL, &answer).await.map(|r| deal_line(&r.events))
        }
        Action::Limits { player, limits } => {
            let set = floor_events::player::SetPlayerLimits { command_id, player, limits };
            c.send(registration::verbs::SET_PLAYER_LIMITS, &set).await.map(nothing)
        }
        Action::Exclude { player, period } => {
            let exclude = floor_events::player::ExcludePlayer { command_id, player, period };
            c.send(registration::verbs::EXCLUDE_PLAYER, &exclude).await.map(|events| {
                events
                    .iter()
                    .find_map(|e| match e {
                        floor_events::player::PlayerEvent::PlayerExcluded(x) => {
                            Some(format!("until {}", x.until.format("%Y-%m-%d %H:%M UTC")))
                        }
                        _ => None,
                    })
                    .unwrap_or_default()
            })
        }
        Action::DealReject { player } => {
            let answer = payouts::DealAnswer { command_id, tournament_id: t, player };
            c.send(payouts::verbs::REJECT_DEAL, &answer).await.map(|r| deal_line(&r.events))
        }
    }
}

/// A deal's answer in words: each share once proposed, and whether it is agreed.
fn deal_line(events: &[payouts::PayoutEvent]) -> String {
    use payouts::PayoutEvent as E;
    let mut said = Vec::new();
    for e in events {
        match e {
            E::DealProposed { shares, .. } => {
                let parts: Vec<String> =
                    shares.iter().map(|s| format!("{} {}", s.player, crate::pages::money::grouped(s.amount))).collect();
                said.push(format!("shares (minor units): {}", parts.join(", ")));
            }
            E::DealAgreed { ends_tournament: true, .. } => said.push("agreed by everyone: the tournament ends".into()),
            E::DealAgreed { .. } => said.push("agreed by everyone".into()),
            E::DealRejected { .. } => said.push("the deal is off".into()),
            _ => {}
        }
    }
    said.join("; ")
}

fn nothing<T>(_: T) -> String {
    String::new()
}

fn recorded(events: usize) -> String {
    format!("{events} event{} recorded", if events == 1 { "" } else { "s" })
}

fn bubbled(reply: &bubble::BubbleRecorded) -> String {
    match serde_json::to_value(reply).ok().and_then(|v| v.get("events").and_then(|e| e.as_array()).map(Vec::len)) {
        Some(0) => "nothing changed (already so)".into(),
        Some(n) => recorded(n),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_secure_when_the_lobby_serves_https() {
        assert_eq!(session_cookie("ab", 60, false), "floor_console=ab; Path=/console; HttpOnly; SameSite=Strict; Max-Age=60");
        assert_eq!(session_cookie("ab", 60, true), "floor_console=ab; Path=/console; HttpOnly; SameSite=Strict; Max-Age=60; Secure");
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_static("theme=dark; floor_console=abc123; other=1"));
        assert_eq!(cookie_token(&headers), Some("abc123"));
        let mut none = HeaderMap::new();
        none.insert(header::COOKIE, HeaderValue::from_static("floor_console_x=1"));
        assert_eq!(cookie_token(&none), None);
    }
}
