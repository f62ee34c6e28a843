//! The console's HTML: the login, the list with the create forms, one tournament with its
//! tables and actions. No script: every action is a small form that posts and gets a page back.
//!
//! As on the players' pages, every text that came from a user (tournament, player and director
//! names, reasons, a service's message) goes through [`escape`].

use super::form::{Action, Template};
use crate::clock::ClockStatus;
use crate::domain::{LobbyDocument, LobbyState};
use crate::html::legacy::{instant, name, state_badge};
use crate::html::{csp_hash, duration, escape, STYLE};

use crate::seat_pages::Held;
use chrono::{DateTime, Utc};
use floor_events::TournamentId;
use std::fmt::Write;

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

/// The console pages' Content-Security-Policy: no script at all, their own style (inline, by
/// hash), forms to this origin only.
pub fn policy() -> &'static str {
    static POLICY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "default-src 'none'; style-src {}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            csp_hash(&format!("\n{STYLE}{CONSOLE_STYLE}"))
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

fn notice(notice: Option<&Notice>) -> String {
    match notice {
        None => String::new(),
        Some(Notice::Done(what)) => format!("<p class=\"notice ok\" role=\"status\">{}</p>\n", escape(what)),
        Some(Notice::Failed { code, message }) => format!(
            "<p class=\"notice error\" role=\"alert\"><strong>Refused: <code>{}</code></strong> {}</p>\n",
            escape(code),
            escape(message)
        ),
    }
}

/// A console page: `title` escaped here, `body` already HTML.
pub fn frame(title: &str, signed: Option<&Signed>, body: &str) -> String {
    let who = match signed {
        Some(s) => format!(
            "<form method=\"post\" action=\"/console/logout\"><span class=\"muted\">{} · </span><input type=\"hidden\" name=\"form_token\" value=\"{}\"><button>Log out</button></form>",
            name(s.director),
            escape(s.form_token)
        ),
        None => String::new(),
    };
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{} · Floor console</title>\n<style>\n{STYLE}{CONSOLE_STYLE}</style>\n</head>\n<body>\n<header class=\"top\"><a href=\"/console\">Floor console</a> · <a href=\"/\">lobby</a>{who}</header>\n{body}\n</body>\n</html>\n",
        escape(title)
    )
}

/// The page every console route answers when no credential was given at start.
pub fn disabled() -> String {
    frame(
        "Console disabled",
        None,
        "<h1>The console is disabled</h1>\n<p>No director password was given at start. Start Floor with <code>FLOOR_CONSOLE_PASSWORD</code> (or <code>--console-password-file</code>) to use it.</p>\n",
    )
}

/// The login form, with what went wrong last time.
pub fn login(problem: Option<&str>) -> String {
    let problem = problem.map(|p| format!("<p class=\"notice error\" role=\"alert\">{}</p>\n", escape(p))).unwrap_or_default();
    frame(
        "Sign in",
        None,
        &format!(
            "<h1>Director sign-in</h1>\n{problem}<form class=\"stack\" method=\"post\" action=\"/console/login\">\n<label>Your name (recorded with every action) <input name=\"director\" required maxlength=\"60\" autocomplete=\"username\"></label>\n<label>Console password <input name=\"password\" type=\"password\" required autocomplete=\"current-password\"></label>\n<label>Recovery code (only while sign-in is closed to everyone: the code in the log) <input name=\"recovery_code\" autocomplete=\"one-time-code\"></label>\n<button>Sign in</button>\n</form>\n"
        ),
    )
}

/// A page that only says something (refused, not found).
pub fn message(title: &str, signed: Option<&Signed>, text: &str) -> String {
    frame(title, signed, &format!("<h1>{}</h1>\n<p>{}</p>\n<p><a href=\"/console\">Console</a></p>\n", escape(title), escape(text)))
}

fn hidden(signed: &Signed) -> String {
    format!(
        "<input type=\"hidden\" name=\"form_token\" value=\"{}\"><input type=\"hidden\" name=\"command_id\" value=\"{}\">",
        escape(signed.form_token),
        uuid::Uuid::now_v7()
    )
}

/// `GET /console`: every tournament, and the create forms.
pub fn index(docs: &[std::sync::Arc<LobbyDocument>], signed: &Signed, last: Option<&Notice>, now: DateTime<Utc>) -> String {
    let mut body = String::from("<h1>Tournaments</h1>\n");
    body.push_str(&notice(last));
    if docs.is_empty() {
        body.push_str("<p class=\"muted\">No tournament yet: create one below.</p>\n");
    } else {
        body.push_str("<table><thead><tr><th>Tournament</th><th>State</th><th>Start</th><th class=\"num\">Entries</th><th class=\"num\">Left</th></tr></thead><tbody>\n");
        for doc in docs {
            let _ = writeln!(
                body,
                "<tr><td><a href=\"/console/tournaments/{id}\">{name}</a></td><td>{state}</td><td>{start}</td><td class=\"num\">{entrants}</td><td class=\"num\">{left}</td></tr>",
                id = doc.tournament_id,
                name = name(&doc.name),
                state = state_badge(doc, now),
                start = doc.start.map_or_else(|| "when full".to_owned(), instant),
                entrants = doc.entrants,
                left = doc.live_entries,
            );
        }
        body.push_str("</tbody></table>\n");
    }
    let options: String =
        Template::ALL.iter().map(|(_, value, label)| format!("<option value=\"{value}\">{}</option>", escape(label))).collect();
    let _ = write!(
        body,
        "<h2>Create a tournament</h2>\n<form class=\"stack\" method=\"post\" action=\"/console/tournaments\">{create}\n<label>Template <select name=\"template\">{options}</select></label>\n<label>Name <input name=\"name\" maxlength=\"200\"></label>\n<label>Starts in (minutes; a sit &amp; go starts when full) <input name=\"start_in_minutes\" type=\"number\" min=\"1\" value=\"30\"></label>\n<label>…or paste a whole definition (JSON, the fields of <code>examples/*.toml</code>) <textarea name=\"definition\"></textarea></label>\n<button>Create</button>\n</form>\n\
<h2>Add a schedule</h2>\n<form class=\"stack\" method=\"post\" action=\"/console/schedules\">{schedule}\n<label>Recurring template (JSON, the fields of <code>examples/schedules/*.toml</code>) <textarea name=\"template\" required></textarea></label>\n<button>Add schedule</button>\n</form>\n",
        create = hidden(signed),
        schedule = hidden(signed),
    );
    frame("Tournaments", Some(signed), &body)
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
    let mut body = format!(
        "<h1>{name}</h1>\n<p>{state} · {entrants} entries, {left} left · <a href=\"/tournaments/{id}\">players' page</a></p>\n",
        name = name(&doc.name),
        state = state_badge(doc, now),
        entrants = doc.entrants,
        left = doc.live_entries,
    );
    body.push_str(&notice(last));
    // Suspended (by a director, or by Floor when tables fell silent) or cancelled in play: why.
    body.push_str(&crate::tournament_page::play_section(doc).into_string());
    if let Some(clock) = &doc.clock {
        body.push_str(&crate::tournament_page::clock_section(clock, now).into_string());
    }
    body.push_str(&actions(doc, signed));
    body.push_str(&tables_section(tables, reports, now));
    body.push_str(&audit_section(audit));
    frame(&doc.name, Some(signed), &body)
}

fn actions(doc: &LobbyDocument, signed: &Signed) -> String {
    let id = doc.tournament_id;
    let form = |action: &str, fields: &str, label: &str| {
        debug_assert!(Action::NAMES.contains(&action));
        format!(
            "<form class=\"inline\" method=\"post\" action=\"/console/tournaments/{id}/{action}\">{}{fields}<button>{label}</button></form>\n",
            hidden(signed)
        )
    };
    let reason = "<input name=\"reason\" placeholder=\"reason\" required maxlength=\"450\">";
    let mut out = String::from("<section id=\"actions\"><h2>Actions</h2>\n");
    match doc.state {
        LobbyState::Registering => {
            out.push_str(&form("start", "", "Start now"));
            out.push_str(&form("cancel", reason, "Cancel and refund"));
        }
        LobbyState::Running => {
            let suspended = doc.play.suspended.is_some();
            let add_time = form("add_time", "<input name=\"seconds\" type=\"number\" value=\"60\" required>", "Add seconds");
            out.push_str("<div>Clock: ");
            if doc.clock.as_ref().is_some_and(|c| c.status == ClockStatus::Stopped) {
                out.push_str("<span class=\"muted\">stopped for good</span>");
            } else if suspended {
                // Issue 33: only resuming play restarts a clock a suspension holds (the clock
                // refuses the rest); added time starts nothing, so it stays.
                out.push_str("<span class=\"muted\">held while play is suspended: Resume play restarts it</span> ");
                out.push_str(&add_time);
            } else {
                out.push_str(&form("pause", reason, "Pause"));
                out.push_str(&form("resume", "", "Resume"));
                out.push_str(&add_time);
                out.push_str(&form(
                    "skip",
                    "<input name=\"level\" type=\"number\" min=\"1\" required placeholder=\"level\">",
                    "Skip to level",
                ));
                out.push_str(&form("end_break", "", "End break"));
            }
            out.push_str("</div>\n<div>Play: ");
            if suspended {
                out.push_str(&form("resume_play", "", "Resume play"));
            } else {
                out.push_str(&form("suspend", reason, "Suspend"));
            }
            let cause = "<select name=\"cause\" title=\"whose fault (001 Art. 15, 21)\"><option value=\"\">cause not said</option>\
                <option value=\"operator-fault\">operator fault</option><option value=\"force-majeure\">force majeure</option></select>";
            out.push_str(&form(
                "cancel",
                &format!("{reason}{cause}<input type=\"hidden\" name=\"in_play\" value=\"true\">"),
                "Cancel (statements)",
            ));
            out.push_str("</div>\n");
        }
        LobbyState::Finished | LobbyState::Cancelled => out.push_str("<p class=\"muted\">Over: nothing to do.</p>\n"),
    }
    out.push_str("</section>\n");
    out
}

fn tables_section(tables: &Held, reports: &LastReports, now: DateTime<Utc>) -> String {
    let closed = tables.summary.as_ref().map_or(0, |s| s.tables_closed);
    let mut out = format!(
        "<section id=\"tables\"><h2>Tables</h2><p class=\"muted\">{} open, {closed} closed · <a href=\"/tournaments/{}/tables\">seat map</a></p>\n",
        tables.tables.len(),
        tables.summary.as_ref().map(|s| s.tournament_id.to_string()).unwrap_or_default(),
    );
    if tables.tables.is_empty() {
        out.push_str("</section>\n");
        return out;
    }
    out.push_str(
        "<table><thead><tr><th>Table</th><th>Players</th><th>Last hand</th><th>Last report</th><th>Silent for</th></tr></thead><tbody>\n",
    );
    for (number, table) in &tables.tables {
        let players: Vec<String> = table
            .seats
            .iter()
            .map(|o| {
                let who = o.player.as_ref().map_or_else(|| format!("entry {}", o.entry), |p| p.as_str().to_owned());
                format!("{}: {} ({})", o.seat, name(&who), crate::money::grouped(o.chips))
            })
            .collect();
        let hand = match (table.last_hand, table.hand_running) {
            (Some(hand), false) => format!("#{hand} finished"),
            (Some(hand), true) => format!("#{hand} in play"),
            (None, _) => "none yet".to_owned(),
        };
        let (last, silent) = match reports.get(number) {
            Some(at) => {
                let quiet = now - *at;
                let text = duration(u64::try_from(quiet.num_milliseconds()).unwrap_or(0));
                let silent = if quiet >= SILENT_AFTER { format!("<span class=\"silent\">silent {text}</span>") } else { text };
                (instant_seconds(*at), silent)
            }
            None => ("never".to_owned(), "<span class=\"silent\">no report yet</span>".to_owned()),
        };
        let _ = writeln!(
            out,
            "<tr><td>{number}</td><td>{} <span class=\"muted\">· {} seated</span></td><td>{hand}</td><td>{last}</td><td>{silent}</td></tr>",
            players.join(", "),
            table.seats.len()
        );
    }
    out.push_str("</tbody></table></section>\n");
    out
}

/// An instant to the second, in UTC.
fn instant_seconds(at: DateTime<Utc>) -> String {
    format!("<time datetime=\"{}\">{}</time>", at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true), at.format("%H:%M:%S UTC"))
}

fn audit_section(audit: &[Audited]) -> String {
    let mut out = String::from("<section id=\"audit\"><h2>Director actions</h2>\n");
    if audit.is_empty() {
        out.push_str("<p class=\"muted\">None from the console yet.</p></section>\n");
        return out;
    }
    out.push_str("<table><thead><tr><th>When</th><th>Who</th><th>Action</th><th>Reason</th><th>Command id</th></tr></thead><tbody>\n");
    for a in audit {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            instant_seconds(a.at),
            name(&a.director),
            escape(&a.action),
            escape(a.reason.as_deref().unwrap_or("")),
            a.command_id
        );
    }
    out.push_str("</tbody></table></section>\n");
    out
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
        assert!(notice(Some(&failed)).contains("&lt;img src=x&gt;"));
        assert!(login(Some("<i>")).contains("&lt;i&gt;"));
    }

    /// Issue 33: the clock's Resume (and skip, end of break, pause) is not offered while play
    /// is suspended: only Resume play restarts it; after the end nothing is.
    #[test]
    fn a_suspended_tournament_offers_resume_play_and_no_clock_resume_and_an_ended_one_nothing() {
        use crate::clock::LobbyClock;
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
        let offered = |doc: &LobbyDocument, action: &str| actions(doc, &signed).contains(&format!("/{action}\""));

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
        assert!(actions(&doc, &signed).contains("Over: nothing to do"));
    }
}
