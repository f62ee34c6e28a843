//! The console's HTML: the login, the list with the create forms, one tournament with its
//! tables and actions. Every action is a small form that posts and gets a page back; the one
//! script is the lobby's own ([`SCRIPT`]): a tournament's live part (clock with its time left,
//! field, payouts, rebuys, hand-for-hand) follows the same feed as the players' page.
//!
//! As on the players' pages, every text that came from a user (tournament, player and director
//! names, reasons, a service's message) is written as [`Text`] (escaped by
//! [`crate::pages::html::escape`]), in pages written with `maud`.

use super::form::{Action, Template};
use crate::cache::seats::Held;
use crate::document::clock::ClockStatus;
use crate::document::{LobbyDocument, LobbyState};
use crate::pages::html::{csp_hash, duration, instant, name, Text, SCRIPT, STYLE};
use crate::pages::list::state_badge;
use chrono::{DateTime, Utc};
use floor_events::TournamentId;
use maud::{html, Markup, PreEscaped, Render};

/// A table is "silent" on the page after this long without a report.
pub const SILENT_AFTER: chrono::Duration = chrono::Duration::seconds(60);

/// Extra style for the console's forms and notices.
const CONSOLE_STYLE: &str = "form.inline { display: inline-flex; gap: .35rem; margin: .2rem .5rem .2rem 0; align-items: center; }\n\
form.stack { display: grid; gap: .35rem; max-width: 40rem; }\n\
textarea { width: 100%; min-height: 8rem; font-family: monospace; }\n\
.notice { padding: .5rem .75rem; border-radius: .35rem; margin: .5rem 0; }\n\
.notice.ok { background: #0a7d4f22; }\n\
.notice.error { background: #c0392b22; }\n\
.silent { color: #c0392b; font-weight: 700; }\n\
header.top form { display: inline; float: right; }\n";

/// The console pages' Content-Security-Policy: their own style and the lobby's script (inline,
/// by hash), the live feed and forms to this origin only.
pub fn policy() -> &'static str {
    static POLICY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "default-src 'none'; style-src {}; script-src {}; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            csp_hash(&format!("\n{STYLE}{CONSOLE_STYLE}")),
            csp_hash(&format!("\n{SCRIPT}"))
        )
    });
    &POLICY
}

/// Who is signed in, for the page header and the forms.
pub struct Signed<'a> {
    /// The director's name.
    pub director: &'a str,
    /// The session's form token.
    pub form_token: &'a str,
}

/// What the last action did, shown on top of the page that answers it.
pub enum Notice {
    /// Done.
    Done(String),
    /// Refused or failed: a stable code and the service's words.
    Failed {
        /// The code (`clock_not_running`, `unavailable`, `invalid_field`…).
        code: String,
        /// The message.
        message: String,
    },
}

fn notice(notice: Option<&Notice>) -> Markup {
    html! {
        @match notice {
            None => {}
            Some(Notice::Done(what)) => { p class="notice ok" role="status" { (Text(what)) } "\n" }
            Some(Notice::Failed { code, message }) => {
                p class="notice error" role="alert" { strong { "Refused: " code { (Text(code)) } } " " (Text(message)) }
                "\n"
            }
        }
    }
}

/// A console page: `title` and `body`, in the frame with the style [`policy`] names.
pub fn frame(title: &str, signed: Option<&Signed>, body: impl Render) -> String {
    html! {
        (PreEscaped("<!doctype html>\n"))
        html lang="en" {
            "\n"
            head {
                "\n" meta charset="utf-8";
                "\n" meta name="viewport" content="width=device-width, initial-scale=1";
                "\n" title { (Text(title)) " · Floor console" }
                "\n" style { "\n" (PreEscaped(STYLE)) (PreEscaped(CONSOLE_STYLE)) }
                "\n"
            }
            "\n"
            body {
                "\n"
                header class="top" {
                    a href="/console" { "Floor console" } " · " a href="/" { "lobby" }
                    @if let Some(s) = signed {
                        form method="post" action="/console/logout" {
                            span class="muted" { (name(s.director)) " · " }
                            input type="hidden" name="form_token" value=(Text(s.form_token));
                            button { "Log out" }
                        }
                    }
                }
                "\n" (body)
                "\n" script { "\n" (PreEscaped(SCRIPT)) }
                "\n"
            }
            "\n"
        }
        "\n"
    }
    .into_string()
}

/// The page every console route answers when no credential was given at start.
pub fn disabled() -> String {
    frame(
        "Console disabled",
        None,
        html! {
            h1 { "The console is disabled" }
            "\n"
            p {
                "No director password was given at start. Start Floor with " code { "FLOOR_CONSOLE_PASSWORD" }
                " (or " code { "--console-password-file" } ") to use it."
            }
            "\n"
        },
    )
}

/// The login form, with what went wrong last time.
pub fn login(problem: Option<&str>) -> String {
    frame(
        "Sign in",
        None,
        html! {
            h1 { "Director sign-in" }
            "\n"
            @if let Some(problem) = problem { p class="notice error" role="alert" { (Text(problem)) } "\n" }
            form class="stack" method="post" action="/console/login" {
                "\n"
                label { "Your name (recorded with every action) " input name="director" required maxlength="60" autocomplete="username"; }
                "\n"
                label { "Console password " input name="password" type="password" required autocomplete="current-password"; }
                "\n"
                label {
                    "Recovery code (only while sign-in is closed to everyone: the code in the log) "
                    input name="recovery_code" autocomplete="one-time-code";
                }
                "\n"
                button { "Sign in" }
                "\n"
            }
            "\n"
        },
    )
}

/// A page that only says something (refused, not found).
pub fn message(title: &str, signed: Option<&Signed>, text: &str) -> String {
    frame(
        title,
        signed,
        html! {
            h1 { (Text(title)) } "\n" p { (Text(text)) } "\n" p { a href="/console" { "Console" } } "\n"
        },
    )
}

fn hidden(signed: &Signed) -> Markup {
    html! {
        input type="hidden" name="form_token" value=(Text(signed.form_token));
        input type="hidden" name="command_id" value=(uuid::Uuid::now_v7());
    }
}

/// `GET /console`: every tournament, and the create forms.
pub fn index(docs: &[std::sync::Arc<LobbyDocument>], signed: &Signed, last: Option<&Notice>, now: DateTime<Utc>) -> String {
    let body = html! {
        h1 { "Tournaments" }
        "\n"
        (notice(last))
        @if docs.is_empty() {
            p class="muted" { "No tournament yet: create one below." }
            "\n"
        } @else {
            table {
                thead {
                    tr { th { "Tournament" } th { "State" } th { "Start" } th class="num" { "Entries" } th class="num" { "Left" } }
                }
                tbody {
                    "\n"
                    @for doc in docs {
                        tr {
                            td { a href={ "/console/tournaments/" (doc.tournament_id) } { (name(&doc.name)) } }
                            td { (state_badge(doc, now)) }
                            td {
                                @match doc.start {
                                    Some(at) => { (instant(at)) }
                                    None => { "when full" }
                                }
                            }
                            td class="num" { (doc.entrants) }
                            td class="num" { (doc.live_entries) }
                        }
                        "\n"
                    }
                }
            }
            "\n"
        }
        h2 { "Create a tournament" }
        "\n"
        form class="stack" method="post" action="/console/tournaments" {
            (hidden(signed))
            "\n"
            label {
                "Template "
                select name="template" {
                    @for (_, value, label) in Template::ALL { option value=(value) { (label) } }
                }
            }
            "\n"
            label { "Name " input name="name" maxlength="200"; }
            "\n"
            label { "Starts in (minutes; a sit & go starts when full) " input name="start_in_minutes" type="number" min="1" value="30"; }
            "\n"
            label {
                "…or paste a whole definition: TOML, as in " code { "examples/*.toml" } " (a start like "
                code { "start = { in_minutes = 120 }" } " is counted from now), or JSON "
                textarea name="definition" {}
            }
            "\n"
            button { "Create" }
            "\n"
        }
        "\n"
        h2 { "Add a schedule" }
        "\n"
        form class="stack" method="post" action="/console/schedules" {
            (hidden(signed))
            "\n"
            label {
                "Recurring template (JSON, the fields of " code { "examples/schedules/*.toml" } ") "
                textarea name="template" required {}
            }
            "\n"
            button { "Add schedule" }
            "\n"
        }
        "\n"
    };
    frame("Tournaments", Some(signed), body)
}

/// When each open table last reported, read beside the fold.
pub type LastReports = std::collections::BTreeMap<u32, DateTime<Utc>>;

/// One director action as the audit bucket holds it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Audited {
    /// When it was asked for.
    pub at: DateTime<Utc>,
    /// Who (the name given at login).
    pub director: String,
    /// The action (`pause`, `create`, …).
    pub action: String,
    /// The tournament, when the action has one.
    pub tournament_id: Option<TournamentId>,
    /// The command id: the commit it made has it as `Nats-Msg-Id`.
    pub command_id: uuid::Uuid,
    /// The reason given, if any.
    #[serde(default)]
    pub reason: Option<String>,
}

/// `GET /console/tournaments/{id}`: the tournament, its clock, its tables, the actions and
/// who did what.
pub fn tournament(
    doc: &LobbyDocument,
    tables: &Held,
    reports: &LastReports,
    audit: &[Audited],
    signed: &Signed,
    last: Option<&Notice>,
    now: DateTime<Utc>,
) -> String {
    let id = doc.tournament_id;
    let body = html! {
        (notice(last))
        p {
            (state_badge(doc, now)) " · " (doc.entrants) " entries, " (doc.live_entries) " left · "
            a href={ "/tournaments/" (id) } { "players' page" } " · "
            a href={ "/tournaments/" (id) "/clock" } { "clock screen" }
        }
        "\n"
        // The players' live part (clock and time left, field, payouts and their table, rebuys,
        // hand-for-hand, why play is suspended), replaced at every revision by the lobby's script.
        div id="live" data-events={ "/console/tournaments/" (id) "/events" } { (PreEscaped(crate::pages::tournament::live(doc, now))) }
        p class="muted" id="live-status" { "connecting…" }
        "\n"
        (actions(doc, signed))
        (tables_section(tables, reports, now))
        (audit_section(audit))
    };
    frame(&doc.name, Some(signed), body)
}

fn actions(doc: &LobbyDocument, signed: &Signed) -> Markup {
    let id = doc.tournament_id;
    let form = |action: &str, fields: Markup, label: &str| {
        debug_assert!(Action::NAMES.contains(&action));
        html! {
            form class="inline" method="post" action={ "/console/tournaments/" (id) "/" (action) } {
                (hidden(signed)) (fields) button { (label) }
            }
            "\n"
        }
    };
    let reason = || html! { input name="reason" placeholder="reason" required maxlength="450"; };
    let nothing = || html! {};
    let player = |entry: bool| {
        html! {
            input name="player" placeholder="player account" required maxlength="64" pattern="[A-Za-z0-9_.@\\-]+";
            @if entry { input name="entry" type="number" min="1" placeholder="entry (optional)"; }
        }
    };
    html! {
        section id="actions" {
            h2 { "Actions" }
            "\n"
            @match doc.state {
                LobbyState::Registering => {
                    (form("start", nothing(), "Start now"))
                    (form("cancel", reason(), "Cancel and refund"))
                }
                LobbyState::Running => {
                    @let suspended = doc.play.suspended.is_some();
                    @let add_time = form("add_time", html! { input name="seconds" type="number" value="60" required; }, "Add seconds");
                    div {
                        "Clock: "
                        @if doc.clock.as_ref().is_some_and(|c| c.status == ClockStatus::Stopped) {
                            span class="muted" { "stopped for good" }
                        } @else if suspended {
                            // Issue 33: only resuming play restarts a clock a suspension holds (the
                            // clock refuses the rest); added time starts nothing, so it stays.
                            span class="muted" { "held while play is suspended: Resume play restarts it" } " "
                            (add_time)
                        } @else {
                            (form("pause", reason(), "Pause"))
                            (form("resume", nothing(), "Resume"))
                            (add_time)
                            (form("skip", html! { input name="level" type="number" min="1" required placeholder="level"; }, "Skip to level"))
                            (form("end_break", nothing(), "End break"))
                        }
                    }
                    "\n"
                    div {
                        "Play: "
                        @if suspended {
                            (form("resume_play", nothing(), "Resume play"))
                        } @else {
                            (form("suspend", reason(), "Suspend"))
                        }
                        (form(
                            "cancel",
                            html! {
                                (reason())
                                select name="cause" title="whose fault (001 Art. 15, 21)" {
                                    option value="" { "cause not said" }
                                    option value="operator-fault" { "operator fault" }
                                    option value="force-majeure" { "force majeure" }
                                }
                                input type="hidden" name="in_play" value="true";
                            },
                            "Cancel (statements)",
                        ))
                    }
                    "\n"
                }
                LobbyState::Finished | LobbyState::Cancelled => { p class="muted" { "Over: nothing to do." } "\n" }
            }
            @if matches!(doc.state, LobbyState::Registering | LobbyState::Running) {
                div id="desk" {
                    "Desk: "
                    (form("register", player(false), "Register"))
                    (form("unregister", player(true), "Unregister"))
                    (form("rebuy", player(true), "Rebuy"))
                    (form("add_on", player(true), "Add-on"))
                    @if doc.state == LobbyState::Running { (form("end_rebuys", nothing(), "End rebuys")) }
                }
                "\n"
                div id="player-limits" {
                    "Player: "
                    (form(
                        "limits",
                        html! {
                            (player(false))
                            input name="per_day" type="number" min="0" placeholder="per day";
                            input name="per_week" type="number" min="0" placeholder="per week";
                            input name="per_month" type="number" min="0" placeholder="per month";
                        },
                        "Set limits",
                    ))
                    (form(
                        "exclude",
                        html! {
                            (player(false))
                            select name="period" {
                                option value="twelve_hours" { "12 hours" }
                                option value="one_week" { "a week" }
                                option value="one_month" { "a month" }
                                option value="three_months" { "3 months" }
                                option value="six_months" { "6 months" }
                                option value="one_year" { "a year" }
                            }
                        },
                        "Exclude",
                    ))
                }
                "\n"
            }
            @if doc.state == LobbyState::Running {
                div id="deal-controls" {
                    "Deal: "
                    (form(
                        "deal_propose",
                        html! {
                            (player(false))
                            select name="method" {
                                option value="icm" { "ICM" }
                                option value="chip_chop" { "chip chop" }
                                option value="equal" { "equal" }
                            }
                            label { input type="checkbox" name="ends_tournament" value="true"; " ends the tournament" }
                        },
                        "Propose",
                    ))
                    (form("deal_accept", player(false), "Accept"))
                    (form("deal_reject", player(false), "Reject"))
                }
                "\n"
                div id="hfh-controls" {
                    "Hand-for-hand: "
                    (form("hfh_start", nothing(), "Start"))
                    (form("hfh_pause", reason(), "Pause"))
                    (form("hfh_resume", nothing(), "Resume"))
                    (form("hfh_stop", nothing(), "Stop"))
                }
                "\n"
            }
            div id="books-action" { (form("books", nothing(), "Show the books")) }
        }
        "\n"
    }
}

/// The books (`payouts.books`) in one line, for the notice that answers "Show the books".
pub fn books_line(b: &floor_events::payouts::Books) -> String {
    let m = |cents: u64| crate::pages::money::format(floor_events::Money::new(cents, b.currency));
    format!(
        "{} entries, {} rebuys, {} add-ons; paid in {}, fees {}, overlay {}, prize pool {}, prizes paid {}, bounty pool {}; {}{}",
        b.entries,
        b.rebuys,
        b.add_ons,
        m(b.paid_in),
        m(b.fees),
        m(b.overlay),
        m(b.prize_pool),
        m(b.prizes_paid),
        m(b.bounty_pool),
        if b.balanced { "balanced" } else { "NOT balanced" },
        if b.finished { ", every paid place paid" } else { "" },
    )
}

fn tables_section(tables: &Held, reports: &LastReports, now: DateTime<Utc>) -> Markup {
    let closed = tables.summary.as_ref().map_or(0, |s| s.tables_closed);
    html! {
        section id="tables" {
            h2 { "Tables" }
            p class="muted" {
                (tables.tables.len()) " open, " (closed) " closed · "
                a href={ "/tournaments/" (tables.summary.as_ref().map(|s| s.tournament_id.to_string()).unwrap_or_default()) "/tables" } { "seat map" }
            }
            "\n"
            @if !tables.tables.is_empty() {
                table {
                    thead {
                        tr { th { "Table" } th { "Players" } th { "Last hand" } th { "Last report" } th { "Silent for" } }
                    }
                    tbody {
                        "\n"
                        @for (number, table) in &tables.tables {
                            tr {
                                td { (number) }
                                td {
                                    @for (i, o) in table.seats.iter().enumerate() {
                                        @if i > 0 { ", " }
                                        (o.seat) ": "
                                        @match &o.player {
                                            Some(p) => { (name(p.as_str())) }
                                            None => { "entry " (o.entry) }
                                        }
                                        " (" (crate::pages::money::grouped(o.chips)) ")"
                                    }
                                    " " span class="muted" { "· " (table.seats.len()) " seated" }
                                }
                                td {
                                    @match (table.last_hand, table.hand_running) {
                                        (Some(hand), false) => { "#" (hand) " finished" }
                                        (Some(hand), true) => { "#" (hand) " in play" }
                                        (None, _) => { "none yet" }
                                    }
                                }
                                @match reports.get(number) {
                                    Some(at) => {
                                        @let quiet = now - *at;
                                        @let text = duration(u64::try_from(quiet.num_milliseconds()).unwrap_or(0));
                                        td { (instant_seconds(*at)) }
                                        td { @if quiet >= SILENT_AFTER { span class="silent" { "silent " (text) } } @else { (text) } }
                                    }
                                    None => { td { "never" } td { span class="silent" { "no report yet" } } }
                                }
                            }
                            "\n"
                        }
                    }
                }
            }
        }
        "\n"
    }
}

/// An instant to the second, in UTC.
fn instant_seconds(at: DateTime<Utc>) -> Markup {
    html! { time datetime=(at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)) { (at.format("%H:%M:%S UTC")) } }
}

fn audit_section(audit: &[Audited]) -> Markup {
    html! {
        section id="audit" {
            h2 { "Director actions" }
            "\n"
            @if audit.is_empty() {
                p class="muted" { "None from the console yet." }
            } @else {
                table {
                    thead {
                        tr { th { "When" } th { "Who" } th { "Action" } th { "Reason" } th { "Command id" } }
                    }
                    tbody {
                        "\n"
                        @for a in audit {
                            tr {
                                td { (instant_seconds(a.at)) }
                                td { (name(&a.director)) }
                                td { (Text(&a.action)) }
                                td { (Text(a.reason.as_deref().unwrap_or(""))) }
                                td { code { (a.command_id) } }
                            }
                            "\n"
                        }
                    }
                }
            }
        }
        "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_messages_are_text_on_every_console_page() {
        let signed = Signed { director: "<b>Ana</b>", form_token: "t\"oken" };
        let page = frame("<script>x</script>", Some(&signed), "");
        assert!(page.contains("&lt;b&gt;Ana&lt;/b&gt;") && page.contains("t&quot;oken") && !page.contains("<script>x"));
        let failed = Notice::Failed { code: "clock_not_running".into(), message: "<img src=x>".into() };
        assert!(notice(Some(&failed)).into_string().contains("&lt;img src=x&gt;"));
        assert!(login(Some("<i>")).contains("&lt;i&gt;"));
    }

    /// Issue 33: the clock's Resume (and skip, end of break, pause) is not offered while play
    /// is suspended: only Resume play restarts it; after the end nothing is.
    #[test]
    fn a_suspended_tournament_offers_resume_play_and_no_clock_resume_and_an_ended_one_nothing() {
        use crate::document::clock::LobbyClock;
        use floor_events::clock::{ClockEvent, StepCause};
        let definition: floor_events::tournament::TournamentDefinition = serde_json::from_value(serde_json::json!({
            "name": "Daily", "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
            "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
            "capacity": 100, "min_players": 2, "entry_model": {"kind": "freezeout"}, "profile": "tda-2024",
        }))
        .unwrap();
        let t0: DateTime<Utc> = "2027-01-10T18:00:00Z".parse().unwrap();
        let mut doc = LobbyDocument::created(TournamentId::new(), &definition, t0, 1);
        let structure = floor_rules::structure::preset(floor_events::clock::Preset::Standard);
        let running = LobbyClock::new(structure).evolve(&ClockEvent::StepStarted {
            step: 0,
            number: 1,
            at: t0,
            ends_at: t0 + chrono::TimeDelta::minutes(15),
            cause: StepCause::Start,
            blinds: None,
        });
        doc.clock = Some(running.clone());
        doc.state = LobbyState::Running;
        let signed = Signed { director: "Ana", form_token: "t" };
        let offered = |doc: &LobbyDocument, action: &str| actions(doc, &signed).into_string().contains(&format!("/{action}\""));

        for action in ["pause", "resume", "add_time", "skip", "end_break", "suspend", "cancel"] {
            assert!(offered(&doc, action), "in play: {action}");
        }
        assert!(!offered(&doc, "resume_play"), "nothing to resume while play runs");

        let at = t0 + chrono::TimeDelta::minutes(5);
        doc = doc.evolve_abort(&floor_events::abort::AbortEvent::Suspended {
            reason: floor_events::abort::SuspendReason::Director { reason: "storm".into() },
            at,
        });
        for action in ["resume_play", "add_time", "cancel"] {
            assert!(offered(&doc, action), "suspended: {action}");
        }
        for action in ["resume", "skip", "end_break", "pause", "suspend"] {
            assert!(!offered(&doc, action), "suspended: no {action}");
        }

        doc.clock = Some(running.evolve(&ClockEvent::Stopped { at }));
        assert!(!["pause", "resume", "add_time", "skip", "end_break"].iter().any(|a| offered(&doc, a)), "a stopped clock: nothing");
        doc.state = LobbyState::Cancelled;
        assert!(actions(&doc, &signed).into_string().contains("Over: nothing to do"));
    }

    /// Issue 39: the desk's and hand-for-hand's forms are offered while they can apply, every
    /// action's form names an action that parses and carries the session's form token (CSRF)
    /// and a command id, and the tournament page's live part follows the console's own feed.
    #[test]
    fn every_desk_form_carries_the_form_token_and_names_an_action() {
        let definition =
            Template::TurboFreezeout.definition("Daily".into(), "2027-01-10T18:00:00Z".parse().unwrap(), chrono::Duration::minutes(5));
        let t0: DateTime<Utc> = "2027-01-10T17:00:00Z".parse().unwrap();
        let mut doc = LobbyDocument::created(TournamentId::new(), &definition, t0, 1);
        let signed = Signed { director: "Ana", form_token: "tok" };
        for (state, desk, hfh) in
            [(LobbyState::Registering, true, false), (LobbyState::Running, true, true), (LobbyState::Finished, false, false)]
        {
            doc.state = state;
            let html = actions(&doc, &signed).into_string();
            let forms = html.matches("<form").count();
            assert_eq!(html.matches("name=\"form_token\" value=\"tok\"").count(), forms, "{state:?}: every form has the token");
            assert_eq!(html.matches("name=\"command_id\"").count(), forms, "{state:?}: every form has a command id");
            for action in html.split(&format!("/console/tournaments/{}/", doc.tournament_id)).skip(1) {
                let name = action.split('"').next().unwrap();
                assert!(Action::NAMES.contains(&name), "{state:?}: {name}");
            }
            assert_eq!(html.contains("/register\""), desk, "{state:?}");
            assert_eq!(html.contains("/rebuy\""), desk, "{state:?}");
            assert_eq!(html.contains("/limits\"") && html.contains("/exclude\""), desk, "{state:?}: a player's limits and exclusion");
            assert_eq!(html.contains("/hfh_start\""), hfh, "{state:?}");
            assert_eq!(html.contains("/deal_propose\"") && html.contains("/deal_accept\""), hfh, "{state:?}: deals while running");
            assert!(html.contains("/books\""), "{state:?}: the books are always there");
        }
        let page = tournament(&doc, &Held::default(), &LastReports::new(), &[], &signed, None, t0);
        assert!(page.contains(&format!("data-events=\"/console/tournaments/{}/events\"", doc.tournament_id)));
        assert!(page.contains("<script>"), "the lobby's script, which the policy names");
        assert!(policy().contains("script-src 'sha256-") && policy().contains("connect-src 'self'"));
    }

    #[test]
    fn the_books_read_in_one_line_in_the_currency() {
        let books: floor_events::payouts::Books = serde_json::from_value(serde_json::json!({
            "tournament_id": TournamentId::new(), "currency": "EUR", "entries": 30, "rebuys": 2, "add_ons": 1,
            "paid_in": 33000, "fees": 3000, "contributions": 30000, "overlay": 0, "prize_pool": 30000,
            "prizes_paid": 0, "finished": false, "bounty_pool": 0, "bounties_paid": 0, "bounties_settled": false,
            "refunded": 0, "statements": 0, "held": 30000, "lottery_kept": 0, "balanced": true,
        }))
        .unwrap();
        let line = books_line(&books);
        assert!(line.starts_with("30 entries, 2 rebuys, 1 add-ons; paid in "), "{line}");
        assert!(line.contains("300") && line.ends_with("; balanced"), "{line}");
    }
}
