//! `GET /tournaments/{id}/clock`: the clock screen for the room's TV or projector (issue 39),
//! no sign-in, full-screen, readable from across a room: level, blinds and ante, time left,
//! next level, break countdown, players left, average stack, prize pool and the payouts.
//!
//! Everything on it comes from the lobby document, as the tournament page's does. [`screen`]
//! renders the part that changes; the page frames it once and the tournament's live feed sends
//! it again at every revision (`GET /tournaments/{id}/events?view=clock`: the same feed as the
//! tournament page's, rendered as the screen). The page's script counts the time down between
//! revisions, as on the tournament page.

use super::html::{countdown, document, duration, money, name, Text};
use super::html_error;
use super::money::grouped;
use super::tournament::{blinds, chips_in_play};
use crate::cache::LobbyCache;
use crate::document::clock::ClockStatus;
use crate::document::{LobbyDocument, LobbyState};
use crate::respond::{echoed, html, NotShown};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Utc};
use floor_events::Money;
use maud::{html, Markup};

/// Payout bands the screen lists at most (a room reads the top of the table; the rest is
/// summed up in one line).
pub const BANDS_SHOWN: usize = 8;

/// `GET /tournaments/{id}/clock`: the clock screen.
pub(crate) async fn clock_html(State(cache): State<LobbyCache>, id: Result<Path<String>, PathRejection>) -> Response {
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
    html(StatusCode::OK, render(&doc, cache.clock.now()))
}

/// The whole screen page.
pub fn render(doc: &LobbyDocument, now: DateTime<Utc>) -> String {
    let id = doc.tournament_id;
    document(
        &format!("{}: clock", doc.name),
        html! {
            main id="live" class="clock-screen" data-events={ "/tournaments/" (id) "/events?view=clock" } { "\n" (screen_markup(doc, now)) }
            "\n"
            p class="screen-foot muted" {
                a href={ "/tournaments/" (id) } { "Back to the tournament" } " · "
                span id="live-status" { "connecting…" }
            }
            "\n"
        },
    )
}

/// The part of the screen that changes with the document: what the page frames and the feed
/// sends with `?view=clock`.
pub fn screen(doc: &LobbyDocument, now: DateTime<Utc>) -> String {
    screen_markup(doc, now).into_string()
}

fn screen_markup(doc: &LobbyDocument, now: DateTime<Utc>) -> Markup {
    let clock = doc.clock.as_ref();
    let over = matches!(doc.state, LobbyState::Finished | LobbyState::Cancelled);
    let heading = match (doc.state, clock) {
        (LobbyState::Finished, _) => "Finished".to_owned(),
        (LobbyState::Cancelled, _) => "Cancelled".to_owned(),
        (_, Some(c)) => match (c.on_break, c.level) {
            (Some(n), _) => format!("Break {n}"),
            (None, Some(level)) => format!("Level {level}"),
            (None, None) => "Not started".to_owned(),
        },
        (_, None) => "Not started".to_owned(),
    };
    let now_blinds = clock.filter(|c| c.on_break.is_none() && !over).and_then(|c| c.blinds.as_ref());
    let next_blinds = clock.filter(|_| !over).and_then(|c| c.next_blinds.as_ref());
    let suspended = doc.play.suspended.as_ref();
    html! {
        h1 class="screen-name" { (name(&doc.name)) }
        "\n"
        div class="screen-main" id="screen-clock" data-step=[clock.and_then(|c| c.step)] {
            p class="screen-level" id="screen-level" { (heading) }
            p class="screen-time" id="screen-time" {
                @match clock.map(|c| c.status) {
                    _ if over => { "—" }
                    Some(ClockStatus::Running) => {
                        @if let Some(ends) = clock.and_then(|c| c.step_ends_at) { (countdown(ends, now)) } @else { "—" }
                    }
                    Some(ClockStatus::Paused) => {
                        span class="countdown" { (clock.and_then(|c| c.paused_remaining_ms).map(duration).unwrap_or_default()) }
                        " " span class="badge paused" { "Paused" @if let Some(r) = clock.and_then(|c| c.paused_reason.as_ref()) { ": " (Text(r)) } }
                    }
                    Some(ClockStatus::Waiting) | None => { span class="screen-wait" { "waiting for the start" } }
                    Some(ClockStatus::Stopped) => { "—" }
                }
            }
            @if let Some(b) = now_blinds {
                p class="screen-blinds" id="screen-blinds" {
                    span class="screen-label" { "Blinds " }
                    (grouped(b.small_blind)) " / " (grouped(b.big_blind))
                    @if b.ante > 0 { span class="screen-ante" { " ante " (grouped(b.ante)) @if b.big_blind_ante { " (BB)" } } }
                }
            }
            @if let Some(s) = suspended {
                p class="screen-notice" id="screen-suspended" { "Play is suspended: " (Text(&s.reason)) }
            }
        }
        "\n"
        div class="screen-side" {
            dl class="screen-facts" {
                @if let Some(next) = next_blinds {
                    dt { "Next level" } dd id="screen-next" { (blinds(next)) }
                }
                @if let Some(at) = clock.filter(|c| c.status == ClockStatus::Running && !over).and_then(|c| c.next_break_at) {
                    dt { "Next break" } dd id="screen-break" { "in " (countdown(at, now)) }
                }
                dt { "Players left" } dd id="screen-players" { (grouped(doc.live_entries.into())) " / " (grouped(doc.entrants.into())) }
                @if doc.live_entries > 0 && doc.state != LobbyState::Registering {
                    dt { "Average stack" } dd id="screen-average" { (grouped(chips_in_play(doc) / u64::from(doc.live_entries))) }
                }
                dt { "Prize pool" } dd id="screen-pool" { (money(doc.payouts.as_ref().map_or(doc.prize_pool.total, |p| p.pool))) }
            }
            (payouts(doc))
        }
        "\n"
    }
}

/// The payout table's first bands, and how many places it pays.
fn payouts(doc: &LobbyDocument) -> Markup {
    let Some(p) = doc.payouts.as_ref().filter(|p| !p.bands.is_empty()) else { return html! {} };
    let currency = p.pool.currency;
    html! {
        table class="screen-payouts" id="screen-payouts" {
            caption { (grouped(p.places_paid.into())) " places paid" @if !p.locked { " (projected)" } }
            tbody {
                @for band in p.bands.iter().take(BANDS_SHOWN) {
                    tr {
                        td { @if band.from == band.to { (band.from) } @else { (band.from) "–" (band.to) } }
                        td class="num" { (money(Money::new(band.amount, currency))) }
                    }
                }
                @if p.bands.len() > BANDS_SHOWN {
                    tr { td colspan="2" class="muted" { "… to place " (grouped(p.places_paid.into())) } }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::clock::{ClockEvent, Step, StepCause, Structure};

    use crate::pages::fixtures::{doc, level, t0};

    fn running(name: &str) -> LobbyDocument {
        let mut doc = doc(name);
        let structure = Structure {
            steps: vec![level(100, 200, 0), level(200, 400, 400), Step::Break { seconds: 300, color_up: None }],
            late_registration_levels: None,
            rebuys_until_break: None,
            push_hold_seconds: 0,
        };
        doc = doc.evolve_clock(&ClockEvent::StructureSet { structure });
        doc = doc.evolve_clock(&ClockEvent::StepStarted {
            step: 0,
            number: 1,
            at: t0(),
            ends_at: t0() + chrono::TimeDelta::minutes(10),
            cause: StepCause::Start,
            blinds: None,
        });
        doc.state = LobbyState::Running;
        doc.entrants = 40;
        doc.live_entries = 25;
        doc
    }

    #[test]
    fn the_screen_shows_level_blinds_time_next_level_break_field_and_pool() {
        let doc = running("<b>Sunday</b>");
        let page = render(&doc, t0() + chrono::TimeDelta::seconds(90));
        assert!(page.contains("&lt;b&gt;Sunday&lt;/b&gt;") && !page.contains("<b>Sunday"), "the name is text");
        assert!(page.contains(&format!("data-events=\"/tournaments/{}/events?view=clock\"", doc.tournament_id)), "{page}");
        assert!(page.contains(">Level 1<"), "{page}");
        assert!(page.contains("data-ends-at=\"2027-01-10T18:10:00.000Z\">8:30<"), "time left counts down in the page: {page}");
        assert!(page.contains("100 / 200"), "blinds now");
        assert!(page.contains("200 / 400, ante 400 (big blind ante)"), "the next level: {page}");
        assert!(page.contains("id=\"screen-break\">in <span class=\"countdown\" data-ends-at=\"2027-01-10T18:20:00.000Z\""), "{page}");
        assert!(page.contains("25 / 40"), "players left of the entries");
        assert!(page.contains("16,000"), "average stack: 40 × 10,000 / 25");
        assert!(page.contains("€1,000.00"), "the pool is the guarantee");
        assert!(page.contains(&format!("href=\"/tournaments/{}\"", doc.tournament_id)), "back to the tournament");
    }

    #[test]
    fn a_pause_a_break_and_the_end_read_as_such() {
        let doc = running("Daily");
        let paused = doc.clone().evolve_clock(&ClockEvent::Paused { at: t0(), remaining_ms: 754_000, reason: "<i>chip race</i>".into() });
        let shown = screen(&paused, t0());
        assert!(shown.contains(">12:34<") && shown.contains("Paused: &lt;i&gt;chip race&lt;/i&gt;"), "{shown}");
        let mut finished = doc;
        finished.state = LobbyState::Finished;
        finished.live_entries = 1;
        let shown = screen(&finished, t0());
        assert!(shown.contains(">Finished<") && !shown.contains("Next level") && !shown.contains("data-ends-at"), "{shown}");
    }

    #[test]
    fn the_payouts_show_the_top_of_the_table_and_how_many_places_it_pays() {
        let mut doc = running("Daily");
        doc.entrants = 200;
        doc.payouts = doc.projected_payouts();
        let shown = screen(&doc, t0());
        let p = doc.payouts.as_ref().unwrap();
        assert!(shown.contains(&format!("{} places paid (projected)", p.places_paid)), "{shown}");
        if p.bands.len() > BANDS_SHOWN {
            assert!(shown.contains("… to place"), "{shown}");
        }
        assert!(shown.contains("<td>1</td>"), "{shown}");
    }
}
