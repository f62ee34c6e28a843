//! A cancelled tournament's statement for one player, asked of the abort service (which holds
//! the statements pinned by the cancellation) and shown line by line: what each line pays, the
//! rule it cites, its formula and the figures it was applied to (issue 22).
//!
//! | route | what |
//! |---|---|
//! | `GET /tournaments/{id}/statement?player=` | the player's statement (a page) |
//! | `GET /api/tournaments/{id}/statement?player=` | the abort service's `Statements` reply for that player, JSON |
//!
//! One player per request, by the exact player name (a player id): the statements of a large
//! field are up to a megabyte, and a name is what a player knows. A player the cancellation
//! owed nothing (out before it) has no statement: `statements` is empty, and the page says so.
//! The abort service down: 503 `unavailable`; a tournament not cancelled: 409 `not_cancelled`.

use super::html::{document, facts, instant, money, words, Text};
use super::html_error;
use crate::cache::LobbyCache;
use crate::respond::{bad_path, echoed, error, html, json, not_shown, path_id, NotShown};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use floor_events::abort::statement::{Line, Statement};
use floor_events::abort::{verbs, StatementRequest, Statements};
use floor_events::money::{Currency, Money};
use floor_events::{codes, PlayerId, TournamentId};
use floor_runtime::client::{CommandErrorKind, Commands};
use maud::{html, Markup};
use serde::Deserialize;

/// `?player=`.
#[derive(Debug, Default, Deserialize)]
pub struct StatementParams {
    /// The player's name, exactly as registered.
    pub player: Option<String>,
}

/// Why a statement cannot be shown: an HTTP status, a stable code and words for a person.
#[derive(Debug, PartialEq, Eq)]
pub struct Refused {
    /// The HTTP status.
    pub status: StatusCode,
    /// The code (`floor_events::codes`).
    pub code: String,
    /// Why.
    pub message: String,
}

/// The player named by `?player=`.
///
/// # Errors
/// 400 `invalid_field`: missing, or not a player id.
pub fn player(given: Result<Query<StatementParams>, QueryRejection>) -> Result<PlayerId, Refused> {
    let invalid = |message: String| Refused { status: StatusCode::BAD_REQUEST, code: codes::INVALID_FIELD.into(), message };
    let Query(params) = given.map_err(|r| invalid(r.body_text()))?;
    let name = params.player.unwrap_or_default();
    if name.trim().is_empty() {
        return Err(invalid("player: the player's name is required".into()));
    }
    PlayerId::parse(name.trim()).map_err(|e| invalid(format!("player: {e}")))
}

/// The abort service's answer for one player.
///
/// # Errors
/// Its rejection (`not_cancelled` as 409, `unknown_tournament` as 404, any other as 400), 503
/// `unavailable` when it does not answer, 502 when its answer does not decode.
pub async fn ask(commands: &Commands, tournament_id: TournamentId, player: PlayerId) -> Result<Statements, Refused> {
    let request = StatementRequest { tournament_id, player: Some(player), after: None, limit: None };
    commands.send(verbs::STATEMENT, &request).await.map_err(|e| match e.kind_ref() {
        CommandErrorKind::Rejected(body) => {
            let status = match body.code.as_str() {
                codes::NOT_CANCELLED => StatusCode::CONFLICT,
                codes::UNKNOWN_TOURNAMENT => StatusCode::NOT_FOUND,
                _ => StatusCode::BAD_REQUEST,
            };
            Refused { status, code: body.code.clone(), message: body.message.clone() }
        }
        CommandErrorKind::Unavailable => Refused {
            status: StatusCode::SERVICE_UNAVAILABLE,
            code: codes::UNAVAILABLE.into(),
            message: "the abort service, which holds the statements, did not answer; try again".into(),
        },
        CommandErrorKind::BadReply => Refused {
            status: StatusCode::BAD_GATEWAY,
            code: codes::UNAVAILABLE.into(),
            message: format!("the abort service's answer was not understood: {e}"),
        },
    })
}

/// `GET /api/tournaments/{id}/statement?player=`.
pub(crate) async fn api_statement(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<Query<StatementParams>, QueryRejection>,
) -> Response {
    let id = match path_id(id) {
        Ok(id) => id,
        Err(rejection) => return bad_path(rejection),
    };
    let doc = match cache.document(&id).await {
        Ok(doc) => doc,
        Err(why) => return not_shown(&id, why),
    };
    let answer = match player(given) {
        Ok(player) => ask(&cache.commands(), doc.tournament_id, player).await,
        Err(refused) => Err(refused),
    };
    match answer {
        Ok(statements) => json(StatusCode::OK, serde_json::to_vec(&statements).expect("statements serialize")),
        Err(r) => error(r.status, &r.code, r.message),
    }
}

/// `GET /tournaments/{id}/statement?player=`.
pub(crate) async fn statement_html(
    State(cache): State<LobbyCache>,
    id: Result<Path<String>, PathRejection>,
    given: Result<Query<StatementParams>, QueryRejection>,
) -> Response {
    let Ok(Path(id)) = id else { return html_error(StatusCode::BAD_REQUEST, "not a tournament id") };
    let doc = match cache.document(&id).await {
        Ok(doc) => doc,
        Err(NotShown::Unknown) => return html_error(StatusCode::NOT_FOUND, &format!("No tournament {}.", echoed(&id))),
        Err(NotShown::NotYet) => {
            return html_error(StatusCode::SERVICE_UNAVAILABLE, "This tournament is just created; reload in a moment.")
        }
    };
    let asked = match player(given) {
        Ok(player) => ask(&cache.commands(), doc.tournament_id, player.clone()).await.map(|s| (player, s)),
        Err(refused) => Err(refused),
    };
    match asked {
        Ok((player, statements)) => {
            html(StatusCode::OK, render(doc.tournament_id, &doc.name, doc.prize_pool.collected.currency, &player, &statements))
        }
        Err(r) => html_error(r.status, &r.message),
    }
}

/// The form that asks for a statement, as the tournament page shows it once play is cancelled.
pub fn statement_form(t: TournamentId, value: &str) -> Markup {
    html! {
        form id="statement-form" method="get" action={ "/tournaments/" (t) "/statement" } {
            label { "Your statement " input name="player" value=(Text(value)) maxlength="64" placeholder="player name" required; }
            " "
            button type="submit" { "Show" }
        }
        "\n"
    }
}

/// The statement page.
pub fn render(t: TournamentId, name: &str, currency: Currency, player: &PlayerId, statements: &Statements) -> String {
    let cancelled = [("Cancelled", html! { (Text(&statements.reason)) " at " (instant(statements.at)) })];
    document(
        &format!("Statement of {} · {name}", player.as_str()),
        html! {
            h1 { "Statement of " (super::html::name(player.as_str())) }
            "\n"
            p { a href={ "/tournaments/" (t) } { (super::html::name(name)) } }
            "\n"
            (facts(&cancelled))
            @match statements.statements.iter().find(|s| &s.player == player) {
                Some(statement) => { (lines(statement, currency)) }
                None => {
                    p id="no-statement" {
                        "No statement for " (super::html::name(player.as_str()))
                        ": the cancellation owed them nothing (out before it), or they did not play. Names are matched exactly."
                    }
                    "\n"
                }
            }
            (statement_form(t, player.as_str()))
        },
    )
}

/// A statement's total and its lines, each with its rule, formula and figures.
fn lines(statement: &Statement, currency: Currency) -> Markup {
    let cash = |amount: u64| money(Money { amount, currency });
    html! {
        p id="statement-total" { "Total: " strong { (cash(statement.total)) } }
        "\n"
        table id="statement-lines" {
            thead { tr { th { "Entry" } th { "What" } th class="num" { "Amount" } th { "Rule" } th { "How" } } }
            tbody {
                "\n"
                @for line in &statement.lines {
                    tr {
                        td { "#" (line.entry.0) }
                        td { (Text(&words(&line.kind))) }
                        td class="num" { (cash(line.amount)) }
                        td { (Text(&serde_json::to_value(line.rule).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default())) }
                        td { span class="muted" { (Text(line.kind.formula())) } br; (Text(&figures(line, currency))) }
                    }
                    "\n"
                }
            }
        }
        "\n"
    }
}

/// The figures a line's formula was applied to, as text.
fn figures(line: &Line, currency: Currency) -> String {
    let i = &line.inputs;
    let mut parts = vec![format!("pot {}", super::money::format(Money { amount: i.pot, currency }))];
    if let Some(weight) = i.weight {
        parts.push(format!("weight {}", super::money::grouped(weight)));
    }
    if let Some(of) = i.of {
        parts.push(format!("of {}", super::money::grouped(of)));
    }
    if let Some(place) = i.place {
        parts.push(format!("place {place}"));
    }
    if i.extra {
        parts.push("+1 minor unit of the remainder".into());
    }
    parts.join(", ")
}
#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::abort::statement::{Books, Inputs, LineKind, Rule};
    use floor_events::EntryNo;

    fn statements(player: &str) -> Statements {
        let line = |kind, amount, inputs| Line { entry: EntryNo(3), kind, rule: Rule::TdaRollback, amount, inputs };
        Statements {
            tournament_id: TournamentId(uuid::Uuid::nil()),
            reason: "power cut <b>".into(),
            at: "2026-11-25T20:00:00Z".parse().unwrap(),
            books: Books::default(),
            statements: vec![Statement {
                player: PlayerId::parse(player).unwrap(),
                total: 1_234,
                lines: vec![
                    line(LineKind::RefundFee, 100, Inputs { pot: 100, ..Inputs::default() }),
                    line(LineKind::ChipShare, 1_134, Inputs { pot: 4_300, weight: Some(2_500), of: Some(9_000), place: None, extra: true }),
                ],
            }],
            players: 1,
            next: None,
        }
    }

    #[test]
    fn the_page_shows_every_line_with_its_figures_and_escapes_what_the_director_typed() {
        let player = PlayerId::parse("ana.b").unwrap();
        let shown =
            render(TournamentId(uuid::Uuid::nil()), "Sunday <Million>", Currency::parse("EUR").unwrap(), &player, &statements("ana.b"));
        assert!(shown.contains("Statement of ana.b") && shown.contains("Sunday &lt;Million&gt;"), "{shown}");
        assert!(shown.contains("power cut &lt;b&gt;") && !shown.contains("<b>"), "{shown}");
        assert!(shown.contains("Total: <strong>€12.34</strong>"), "{shown}");
        assert!(shown.contains("chip share") && shown.contains("weight 2,500, of 9,000, +1 minor unit"), "{shown}");
        assert!(shown.contains("€11.34"), "{shown}");
    }

    #[test]
    fn a_player_the_cancellation_owed_nothing_is_told_so() {
        let player = PlayerId::parse("bo").unwrap();
        let mut none = statements("ana");
        none.statements.clear();
        let shown = render(TournamentId(uuid::Uuid::nil()), "Daily", Currency::parse("EUR").unwrap(), &player, &none);
        assert!(shown.contains("id=\"no-statement\"") && shown.contains("No statement for bo"), "{shown}");
    }

    #[test]
    fn the_player_is_required_and_must_be_a_player_id() {
        let given = |player: Option<&str>| Ok(Query(StatementParams { player: player.map(str::to_owned) }));
        assert_eq!(player(given(None)).unwrap_err().code, codes::INVALID_FIELD);
        assert_eq!(player(given(Some("   "))).unwrap_err().status, StatusCode::BAD_REQUEST);
        assert!(player(given(Some(&"x".repeat(10_000)))).is_err(), "longer than a player id");
        assert_eq!(player(given(Some(" ana "))).unwrap().as_str(), "ana");
    }
}
