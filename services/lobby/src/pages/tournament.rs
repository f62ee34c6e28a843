//! `GET /tournaments/{id}`: one tournament as a page. [`live`] renders the part that changes
//! (clock, field, prize pool, payouts, finishers, rebuys, hand-for-hand, bounties); the page
//! frames it once, and the live feed (`GET /tournaments/{id}/events`) sends it again, rendered
//! by the same function, at every new revision of the document.

use super::html::{countdown, document, duration, facts, instant, money, name, words, Text};
use super::html_error;
use super::list::{formats, state_badge};
use super::money::grouped;
use crate::cache::LobbyCache;
use crate::document::clock::{ClockStatus, LobbyClock};
use crate::document::{LobbyDocument, LobbyState};
use crate::respond::{echoed, html, NotShown};
use crate::seat_map::SeatsSummary;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Utc};
use floor_events::clock::{Step, Structure};
use floor_events::registration::CancellationReason;
use floor_events::Money;
use maud::{html, Markup, Render};

/// `GET /tournaments/{id}`: the tournament page.
pub(crate) async fn tournament_html(State(cache): State<LobbyCache>, id: Result<Path<String>, PathRejection>) -> Response {
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
    html(StatusCode::OK, render(&doc, structure.as_ref(), seats.as_ref(), cache.clock.now()))
}

/// The whole page: the live part, and the structure (when it has one) below it.
pub fn render(doc: &LobbyDocument, structure: Option<&Structure>, seats: Option<&SeatsSummary>, now: DateTime<Utc>) -> String {
    let id = doc.tournament_id;
    document(
        &doc.name,
        html! {
            main id="live" data-events={ "/tournaments/" (id) "/events" } { "\n" (live_markup(doc, now)) (super::seats::tables_section(id, seats)) }
            "\n"
            p class="muted" id="live-status" { "connecting…" }
            "\n"
            // Outside the live part: an update must not wipe what a player is typing.
            (super::seats::search_form(id, ""))
            p id="screens" {
                a href={ "/tournaments/" (id) "/clock" } { "Clock screen" } " (full screen, for the room's TV) · "
                a href={ "/tournaments/" (id) "/results" } { "Results" } " (every finisher, place and prize)"
            }
            "\n"
            @if let Some(structure) = structure {
                (structure_table(structure, doc.clock.as_ref().and_then(|c| c.step)))
            }
            p class="muted" {
                "JSON: "
                a href={ "/api/tournaments/" (id) } { "document" } " · "
                a href={ "/api/tournaments/" (id) "/structure" } { "structure" } " · "
                a href={ "/api/tournaments/" (id) "/events" } { "live feed" }
            }
            "\n"
        },
    )
}

/// The live part with the tables section (counts, recent moves and closures) from the seat
/// map as it stands: what the page shows and its feed sends.
pub fn live_with_tables(doc: &LobbyDocument, seats: Option<&SeatsSummary>, now: DateTime<Utc>) -> String {
    html! { (live_markup(doc, now)) (super::seats::tables_section(doc.tournament_id, seats)) }.into_string()
}

/// The part of the page that changes with the document.
pub fn live(doc: &LobbyDocument, now: DateTime<Utc>) -> String {
    live_markup(doc, now).into_string()
}

fn live_markup(doc: &LobbyDocument, now: DateTime<Utc>) -> Markup {
    html! {
        h1 { (name(&doc.name)) }
        "\n"
        p {
            (state_badge(doc, now)) " " span class="muted" { (Text(&formats(doc))) } " · "
            @match doc.start {
                Some(at) => { "starts " (instant(at)) }
                None if doc.state == LobbyState::Registering => { "starts when " (doc.capacity) " seats fill" }
                None => { "started when its seats filled" }
            }
        }
        "\n"
        @if let Some(reason) = &doc.cancellation {
            p {
                strong { "Cancelled:" } " "
                @match reason {
                    CancellationReason::BelowMinimum { entries, min_players } => {
                        (entries) " entries, fewer than the minimum of " (min_players)
                    }
                    CancellationReason::Director { reason } => { (Text(reason)) }
                    CancellationReason::GuaranteeNotMet { paid_in, guarantee } => {
                        "stakes of " (paid_in) " paid in, less than half the guarantee of " (guarantee)
                    }
                }
                ". Every entry was refunded."
            }
            "\n"
        }
        (play_section(doc))
        @if let Some(clock) = &doc.clock { (clock_section(clock, now)) }
        (field_section(doc))
        (prize_section(doc))
        (payouts_section(doc))
        (rebuys_section(doc))
        (hand_for_hand_section(doc))
        (bounties_section(doc))
        (satellite_section(doc))
        (shootout_section(doc))
        (cut_section(doc))
        (lottery_section(doc))
    }
}

pub(crate) fn blinds(level: &floor_events::clock::Level) -> String {
    let mut out = format!("{} / {}", grouped(level.small_blind), grouped(level.big_blind));
    if level.ante > 0 {
        out.push_str(&format!(", ante {}{}", grouped(level.ante), if level.big_blind_ante { " (big blind ante)" } else { "" }));
    }
    out
}

/// The clock as a section of facts (the console shows the same).
pub(crate) fn clock_section(clock: &LobbyClock, now: DateTime<Utc>) -> Markup {
    let mut rows: Vec<(&str, Markup)> = Vec::new();
    let now_playing = match (clock.on_break, clock.level, &clock.blinds) {
        (Some(n), _, _) => format!("Break {n}"),
        (None, Some(level), Some(b)) => format!("Level {level}: {}", blinds(b)),
        (None, Some(level), None) => format!("Level {level}"),
        (None, None, _) => "Not started".to_owned(),
    };
    rows.push(("Now", now_playing.render()));
    match clock.status {
        ClockStatus::Running => {
            if let Some(ends) = clock.step_ends_at {
                rows.push(("Time left", countdown(ends, now)));
            }
        }
        ClockStatus::Paused => {
            let left = clock.paused_remaining_ms.map(duration).unwrap_or_default();
            rows.push((
                "Time left",
                html! {
                    span class="countdown" { (left) } " "
                    span class="badge paused" { "Paused" @if let Some(r) = &clock.paused_reason { ": " (Text(r)) } }
                },
            ));
        }
        ClockStatus::Waiting => rows.push(("Clock", "waiting for the start".render())),
        ClockStatus::Stopped => rows.push(("Clock", "stopped: the tournament is over".render())),
    }
    if let Some(next) = &clock.next_blinds {
        rows.push(("Next level", blinds(next).render()));
    }
    if let Some(at) = clock.next_break_at {
        rows.push(("Next break", html! { (instant(at)) " (in " (countdown(at, now)) ")" }));
    }
    let mut windows = Vec::new();
    if clock.late_registration_closed {
        windows.push("late registration closed");
    }
    if clock.rebuy_period_ended {
        windows.push("rebuy period over");
    }
    if clock.push_held {
        windows.push("dealers hold the push until the level changes");
    }
    if !windows.is_empty() {
        rows.push(("", windows.join("; ").render()));
    }
    // The step in play, for the page's script to mark it in the structure below the live part.
    html! {
        section class="clock" id="clock" data-step=[clock.step] { h2 { "Clock" } (facts(&rows)) }
        "\n"
    }
}

/// Chips in play: every entry's starting stack, every rebuy's and add-on's chips.
pub fn chips_in_play(doc: &LobbyDocument) -> u64 {
    let entries = doc.starting_stack.saturating_mul(u64::from(doc.entrants));
    let bought = doc.rebuys.as_ref().map_or(0, |r| {
        let rebuys = r.rebuy.as_ref().map_or(0, |t| t.chips.saturating_mul(u64::from(r.rebuys)));
        let add_ons = r.add_on.as_ref().map_or(0, |t| t.chips.saturating_mul(u64::from(r.add_ons)));
        rebuys.saturating_add(add_ons)
    });
    entries.saturating_add(bought)
}

fn field_section(doc: &LobbyDocument) -> Markup {
    let mut rows = vec![
        ("Players left", format!("{} of {} entries", grouped(doc.live_entries.into()), grouped(doc.entrants.into())).render()),
        ("Players", format!("{} ({} re-entries)", grouped(doc.unique_players.into()), grouped(doc.re_entries.into())).render()),
        ("Seats", format!("{} at most, {} to start, {} a table", grouped(doc.capacity.into()), doc.min_players, doc.table_size).render()),
        ("Starting stack", grouped(doc.starting_stack).render()),
    ];
    match doc.registration_deadline {
        Some(_) if matches!(doc.state, LobbyState::Finished | LobbyState::Cancelled) => {}
        Some(_) if doc.clock.as_ref().is_some_and(|c| c.late_registration_closed) => rows.push(("Registration", "closed".render())),
        Some(deadline) => rows.push(("Registration", html! { "closes " (instant(deadline)) })),
        None => {}
    }
    if doc.live_entries > 0 && doc.state != LobbyState::Registering {
        rows.push(("Average stack", grouped(chips_in_play(doc) / u64::from(doc.live_entries)).render()));
    }
    html! { section id="field" { h2 { "Field" } (facts(&rows)) } "\n" }
}

fn prize_section(doc: &LobbyDocument) -> Markup {
    let pool = &doc.prize_pool;
    let mut rows = vec![("Buy-in", html! { (money(doc.buy_in)) " + " (money(doc.fee)) " fee" }), ("Prize pool", money(pool.total))];
    if let Some(guarantee) = pool.guarantee {
        rows.push(("Guarantee", money(guarantee)));
        rows.push(("Overlay", money(pool.overlay)));
    }
    if pool.collected != pool.total {
        rows.push(("Collected", money(pool.collected)));
    }
    html! { section id="prize-pool" { h2 { "Prize pool" } (facts(&rows)) } "\n" }
}

fn payouts_section(doc: &LobbyDocument) -> Markup {
    let Some(p) = &doc.payouts else { return html! {} };
    let currency = doc.buy_in.currency;
    let cash = |amount: u64| money(Money::new(amount, currency));
    let finishers = finishers(p);
    html! {
        section id="payouts" {
            h2 { "Payouts" }
            p {
                (grouped(p.places_paid.into())) " places paid of " (money(p.pool)) " · "
                (if p.locked { "final" } else { "projected for the entries so far" }) " · "
                (grouped(p.cashes.into())) " cashed so far"
                @if p.paid { " · every place paid" }
                @if p.cashes > p.places_paid {
                    @if doc.satellite.is_some() {
                        " (the leftover is paid in cash to the place after the seats)"
                    } @else {
                        " (players out in the same hand share their places' prizes: a split on the bubble pays one more player)"
                    }
                }
            }
            "\n"
            @if !p.bands.is_empty() {
                table class="payout-table" {
                    thead { tr { th { "Place" } th class="num" { "Prize" } } }
                    tbody {
                        @for band in &p.bands {
                            tr {
                                td { @if band.from == band.to { (band.from) } @else { (band.from) "–" (band.to) } }
                                td class="num" { (cash(band.amount)) }
                            }
                        }
                    }
                }
                "\n"
            }
            @if let Some(deal) = &p.deal { (deal_section(deal, &cash)) }
            @if !finishers.is_empty() {
                h2 { "Finishers" }
                p class="muted" {
                    "The final table and the latest cashes; "
                    a href={ "/tournaments/" (doc.tournament_id) "/results" } { "every finisher" } "."
                }
                table class="finishers" {
                    thead { tr { th { "Place" } th { "Player" } th class="num" { "Prize" } } }
                    tbody {
                        @for a in finishers {
                            tr {
                                td { (a.place) @if a.shared > 1 { " (shared by " (a.shared) ")" } }
                                td { (name(a.player.as_str())) }
                                td class="num" { (cash(a.amount)) }
                            }
                        }
                    }
                }
                "\n"
            }
        }
        "\n"
    }
}

/// A suspension (the reason the director gave, or Floor's when tables fell silent, shown to
/// players) or a cancellation in play. The console shows it too.
pub(crate) fn play_section(doc: &LobbyDocument) -> Markup {
    html! {
        @if let Some(s) = &doc.play.suspended {
            section id="suspended" class="notice" {
                h2 { "Play is suspended" }
                p { (Text(&s.reason)) " " span class="muted" { "since " (instant(s.since)) } }
                p class="muted" { "The clock is stopped; play resumes where it stopped." }
            }
            "\n"
        }
        @if let Some(c) = &doc.play.cancelled {
            section id="cancelled-in-play" class="notice" {
                h2 { "Cancelled in play" }
                p {
                    (Text(&c.reason))
                    (match c.cause {
                        Some(floor_events::abort::CancelCause::OperatorFault) => " (the operator's fault)",
                        Some(floor_events::abort::CancelCause::ForceMajeure) => " (force majeure)",
                        None => "",
                    })
                    " " span class="muted" { "at " (instant(c.at)) }
                }
                p { (grouped(u64::from(c.statements))) " statements (" (Text(&words(&c.method))) "), " (money(c.total)) " in all. " }
                (super::statements::statement_form(doc.tournament_id, ""))
            }
            "\n"
        }
    }
}

/// A deal among the remaining players: who gets what, who has accepted.
fn deal_section(deal: &crate::document::payouts::LobbyDeal, cash: &dyn Fn(u64) -> Markup) -> Markup {
    html! {
        div id="deal" {
            h3 {
                (if deal.agreed { "Deal agreed" } else { "Deal proposed" })
                @if let Some(m) = deal.method { " (" (Text(&words(&m))) ")" }
            }
            table class="deal" {
                thead { tr { th { "Player" } th class="num" { "Chips" } th class="num" { "Share" } th { "Accepted" } } }
                tbody {
                    @for share in &deal.shares {
                        tr {
                            td { (name(share.player.as_str())) }
                            td class="num" { (grouped(share.chips)) }
                            td class="num" { (cash(share.amount)) }
                            td { (if deal.agreed || deal.accepted.contains(&share.player) { "yes" } else { "not yet" }) }
                        }
                    }
                }
            }
            @if deal.left_to_play_for > 0 {
                p { (cash(deal.left_to_play_for)) " left to play for: the winner's." }
            }
        }
        "\n"
    }
}

/// The final table's places and the latest cashes, best place first, each once.
fn finishers(p: &crate::document::payouts::LobbyPayouts) -> Vec<&floor_events::payouts::PlaceAward> {
    let mut all: Vec<_> = p.final_table.iter().chain(&p.latest_cashes).collect();
    all.sort_by_key(|a| (a.place, a.entry));
    all.dedup_by_key(|a| (a.place, a.entry));
    all
}

fn rebuys_section(doc: &LobbyDocument) -> Markup {
    use crate::document::rebuys::BuyingPeriod;
    let Some(r) = &doc.rebuys else { return html! {} };
    let period = match r.period {
        BuyingPeriod::NotStarted => "not started",
        BuyingPeriod::Rebuys => "rebuys open",
        BuyingPeriod::AddOn => "add-on break",
        BuyingPeriod::Over => "over",
    };
    let mut rows =
        vec![("Period", period.render()), ("Rebuys", grouped(r.rebuys.into()).render()), ("Add-ons", grouped(r.add_ons.into()).render())];
    if let Some(t) = &r.rebuy {
        rows.push(("Rebuy", html! { (money(t.price)) " + " (money(t.fee)) " fee for " (grouped(t.chips)) " chips" }));
    }
    if let Some(t) = &r.add_on {
        rows.push(("Add-on", html! { (money(t.price)) " + " (money(t.fee)) " fee for " (grouped(t.chips)) " chips" }));
    }
    if !r.offers.is_empty() {
        rows.push((
            "Deciding now",
            html! {
                @for (i, o) in r.offers.iter().enumerate() {
                    @if i > 0 { ", " }
                    (name(o.player.as_str())) " (until " (instant(o.until)) ")"
                }
            },
        ));
    }
    html! { section id="rebuys" { h2 { "Rebuys and add-ons" } (facts(&rows)) } "\n" }
}

fn hand_for_hand_section(doc: &LobbyDocument) -> Markup {
    let h = &doc.hand_for_hand;
    if !h.on && h.ended.is_none() {
        return html! {};
    }
    let mut rows = Vec::new();
    if h.on {
        rows.push((
            "Hand-for-hand",
            format!("on, hand {}{}", h.hand.unwrap_or(0), if h.paused { " (held by the director)" } else { "" }).render(),
        ));
        rows.push((
            "Waiting for",
            html! {
                @for (i, w) in h.waiting.iter().enumerate() {
                    @if i > 0 { ", " }
                    "table " (w.table) " since " (instant(w.since))
                }
                @if h.waiting.is_empty() { "no table" }
            },
        ));
        if !h.excused.is_empty() {
            let excused: Vec<String> = h.excused.iter().map(|e| format!("table {} (owes hand {})", e.table, e.hand)).collect();
            rows.push(("Not waited for", excused.join(", ").render()));
        }
    } else if let Some(cause) = h.ended {
        let why = match cause {
            floor_events::bubble::EndCause::Burst => "the bubble burst",
            floor_events::bubble::EndCause::OneTable => "one table is left",
            floor_events::bubble::EndCause::Director => "the director ended it",
        };
        rows.push(("Hand-for-hand", format!("over: {why}").render()));
    }
    html! { section id="hand-for-hand" { h2 { "Hand-for-hand" } (facts(&rows)) } "\n" }
}

/// Bounties listed on the page at most (the document holds up to its own bound).
const BOUNTIES_SHOWN: usize = 20;

fn bounties_section(doc: &LobbyDocument) -> Markup {
    let Some(b) = &doc.bounties else { return html! {} };
    let currency = doc.buy_in.currency;
    let mut rows = vec![
        ("Kind", Text(&b.kind).render()),
        ("Bounty pool", money(b.pool)),
        ("Paid so far", money(b.paid_so_far)),
        ("Knockouts", grouped(b.knockouts.into()).render()),
    ];
    if b.largest_collected > 0 {
        rows.push(("Largest bounty", money(Money::new(b.largest_collected, currency))));
    }
    if let Some(target) = &b.target {
        rows.push(("Target", name(target.as_str())));
    }
    if !b.envelopes_left.is_empty() {
        rows.push((
            "Envelopes left",
            html! {
                @for (i, e) in b.envelopes_left.iter().enumerate() {
                    @if i > 0 { ", " }
                    (e.count) " × " (money(e.value))
                }
            },
        ));
    }
    let mut heads: Vec<_> = b.remaining.iter().collect();
    heads.sort_by(|x, y| y.bounty.cmp(&x.bounty).then(x.entry.cmp(&y.entry)));
    html! {
        section id="bounties" {
            h2 { "Bounties" }
            (facts(&rows))
            @if !heads.is_empty() {
                table class="bounties" {
                    thead { tr { th { "Player" } th class="num" { "Bounty" } } }
                    tbody {
                        @for head in heads.into_iter().take(BOUNTIES_SHOWN) {
                            tr { td { (name(head.player.as_str())) } td class="num" { (money(Money::new(head.bounty, currency))) } }
                        }
                    }
                }
            }
        }
        "\n"
    }
}

/// A satellite's seats (issue 36), and a target's entries paid by a satellite's ticket.
fn satellite_section(doc: &LobbyDocument) -> Markup {
    use floor_events::satellites::SatellitePrize;
    let mut rows = Vec::new();
    if let Some(s) = &doc.satellite {
        let target = html! {
            a href={ "/tournaments/" (s.target) } {
                @match &s.target_name { Some(n) => { (name(n)) }, None => { (s.target) } }
            }
        };
        // A step of a step tree (000 §16.13): its seats are entries to the next step up.
        if s.level >= 2 {
            rows.push(("Step", html! { "level " (s.level) " of a step tree; its seats are entries to the next step, " (target.clone()) }));
        }
        rows.push(("Seats for", target));
        rows.push(("Seat value", money(s.seat_value)));
        let prize = match s.prize {
            SatellitePrize::Seat => "a seat, registered in the target at once",
            SatellitePrize::Ticket => "a ticket to spend on the target",
        };
        rows.push(("Prize", prize.render()));
        let seats = format!("{} {}", grouped(s.seats.into()), if s.locked { "(final)" } else { "guaranteed so far" });
        rows.push(("Seats", seats.render()));
        if s.leftover.amount > 0 {
            rows.push(("Leftover", html! { (money(s.leftover)) " in cash to place " (s.seats.saturating_add(1)) }));
        }
        if s.tickets_issued > 0 {
            rows.push(("Seats awarded", grouped(s.tickets_issued.into()).render()));
            rows.push(("Tickets spent", grouped(s.tickets_spent.into()).render()));
        }
        if s.seats_passed_down > 0 {
            rows.push(("Seats passed down", format!("{} (the winner already in the target)", s.seats_passed_down).render()));
        }
        if s.seats_refused > 0 {
            rows.push(("Seats refused by the target", format!("{} (kept as tickets)", s.seats_refused).render()));
        }
    }
    if doc.entered_by_ticket > 0 {
        rows.push(("Entered by satellite", grouped(doc.entered_by_ticket.into()).render()));
    }
    if rows.is_empty() {
        return html! {};
    }
    let title = if doc.satellite.is_some() { "Satellite" } else { "Satellites" };
    html! { section id="satellite" { h2 { (title) } (facts(&rows)) } "\n" }
}

/// A share in basis points as a percentage: `80 %`, `12.5 %`.
fn percent(bps: u32) -> String {
    let whole = bps / 100;
    match bps % 100 {
        0 => format!("{whole} %"),
        rest if rest.is_multiple_of(10) => format!("{whole}.{} %", rest / 10),
        rest => format!("{whole}.{rest:02} %"),
    }
}

/// Odds per million as players read them: `1 in 4`, `1 in 1,000,000`.
fn odds(per_million: u32) -> String {
    if per_million == 0 {
        return "never".into();
    }
    let one_in = f64::from(floor_events::lottery::PER_MILLION) / f64::from(per_million);
    if (one_in - one_in.round()).abs() < 0.005 {
        format!("1 in {}", grouped(one_in.round() as u64))
    } else {
        format!("1 in {one_in:.2}")
    }
}

/// A shootout's terms and bracket (issue 37): each table's progress is the tables section's.
fn shootout_section(doc: &LobbyDocument) -> Markup {
    use floor_events::shootouts::{RoundStacks, ShortField};
    let Some(s) = &doc.shootout else { return html! {} };
    let mut rows: Vec<(&str, Markup)> = Vec::new();
    let advance = match s.advance {
        1 => "the winner of each table goes on to the next round".to_owned(),
        n => format!("the last {n} players of each table go on to the next round"),
    };
    rows.push(("Format", html! { "Shootout: tables are never balanced or broken; " (advance) }));
    let stacks = match s.stacks {
        RoundStacks::Carry => "carried: a round starts with the chips its players won with",
        RoundStacks::Reset => "reset: every round starts with the starting stack",
    };
    rows.push(("Stacks", stacks.render()));
    let short = match s.short_field {
        ShortField::Uneven => "a field that does not fill the tables plays at uneven first-round tables",
        ShortField::Byes => {
            "the players over full first-round tables are drawn at random (with the seat draw's audited seed) for a bye to round 2"
        }
        ShortField::Trim => "the last registrants over full first-round tables are withdrawn at the start and refunded in full",
    };
    rows.push(("Short field", short.render()));
    if let Some(prizes) = &s.prizes {
        let pct = |bps: u32| format!("{}.{:02} %", bps / 100, bps % 100);
        let mut paid: Vec<String> = prizes
            .reached_bps
            .iter()
            .enumerate()
            .filter(|(_, &b)| b > 0)
            .map(|(i, &b)| format!("out in round {}: {} each", i + 1, pct(b)))
            .collect();
        if prizes.table_win_bps > 0 {
            paid.push(format!("each table won: {} more (arena)", pct(prizes.table_win_bps)));
        }
        paid.push("the winner: the rest of the prize pool".into());
        rows.push(("Prizes", paid.join("; ").render()));
    }
    if !s.round_starts.is_empty() {
        let starts: Vec<String> = s
            .round_starts
            .iter()
            .enumerate()
            .map(|(i, at)| format!("round {} not before {}", i + 2, at.format("%Y-%m-%d %H:%M UTC")))
            .collect();
        rows.push(("Rounds", format!("scheduled: {}", starts.join("; ")).render()));
    }
    rows.push(("No", "late registration, rebuys or add-ons".render()));
    if let Some(r) = s.in_play() {
        rows.push((
            "Now",
            format!("round {} of {}, {} players", r.round, s.plan.len().max(r.round as usize), grouped(r.entries.into())).render(),
        ));
    } else if let Some(last) = s.rounds.last() {
        let played = match last.advancing {
            Some(1) => format!("{}: the shootout has its winner", s.rounds.len()),
            _ => format!("{}: the next round is being drawn", s.rounds.len()),
        };
        rows.push(("Rounds played", played.render()));
    }
    let played = |round: u32| s.rounds.iter().find(|r| r.round == round);
    html! {
        section id="shootout" {
            h2 { "Shootout" }
            (facts(&rows))
            "\n"
            @if !s.plan.is_empty() {
                table class="bracket" {
                    caption { "Bracket for " (grouped(s.planned_for.into())) " players" }
                    thead { tr { th { "Round" } th class="num" { "Players" } th class="num" { "Tables" } th class="num" { "Advancing" } th { "" } } }
                    tbody {
                        @for p in &s.plan {
                            tr {
                                td { (p.round) }
                                td class="num" { (grouped(played(p.round).map_or(p.entries, |r| r.entries).into())) }
                                td class="num" { (grouped(p.tables.into())) }
                                td class="num" {
                                    @if p.tables == 1 && p.advancing == 1 { "the winner" }
                                    @else { (grouped(played(p.round).and_then(|r| r.advancing).unwrap_or(p.advancing).into())) }
                                }
                                td {
                                    @match played(p.round) {
                                        Some(r) if r.advancing.is_some() => { "complete" }
                                        Some(_) => { "in play" }
                                        None => {}
                                    }
                                }
                            }
                        }
                    }
                }
                "\n"
            }
        }
        "\n"
    }
}

/// Double or nothing's cut (issue 37), stated before registration.
fn cut_section(doc: &LobbyDocument) -> Markup {
    let Some(c) = &doc.cut else { return html! {} };
    let kind = match c.fraction {
        2 => "Double or nothing".to_owned(),
        3 => "Triple up".to_owned(),
        n => format!("1 in {n} wins {n}×"),
    };
    let mut rows: Vec<(&str, Markup)> = Vec::new();
    rows.push((
        "Play stops",
        html! { "when " (grouped(c.survivors.into())) " of the " (grouped(doc.capacity.into())) " players are left" },
    ));
    rows.push((
        "Each of them wins",
        html! { (money(c.prize)) " (" (c.fraction) " × the buy-in" @if !c.fee_included { ", the fee not included" } ")" },
    ));
    if let Some(n) = c.shared_by {
        rows.push(("Shared by", format!("{} players", grouped(n.into())).render()));
    }
    html! { section id="cut" { h2 { (kind) } (facts(&rows)) } "\n" }
}

/// A lottery game's published prize table, its commitment and its draw (issue 37).
fn lottery_section(doc: &LobbyDocument) -> Markup {
    let Some(l) = &doc.lottery else { return html! {} };
    let drawn_row = l.drawn.as_ref().map(|d| d.multiplier);
    html! {
        section id="lottery" {
            h2 { "Lottery: the prize pool is drawn" }
            @if let Some(d) = &l.drawn {
                p class="drawn" {
                    strong { "×" (grouped(d.multiplier.into())) } " drawn: a prize pool of " (money(d.pool)) " ("
                    @for (i, prize) in d.prizes.iter().enumerate() {
                        @if i > 0 { ", " }
                        (crate::results::ordinal(i as u32 + 1)) " " (money(*prize))
                    }
                    ")."
                }
                p class="muted" {
                    "Number " (d.number) " of 0–999,999. Seed " code { (d.seed) } " · "
                    @if d.verified { "its SHA-256 is the commitment published before registration." }
                    @else { strong { "its SHA-256 is NOT the commitment published before registration." } }
                }
                "\n"
            } @else {
                p { "When the " (doc.capacity) " seats fill, a multiplier is drawn from the published table below with an audited seed." }
                "\n"
            }
            @if let Some(c) = &l.commitment {
                p class="muted" { "Commitment (SHA-256 of the seed): " code { (c) } }
                "\n"
            }
            table class="prize-table" {
                caption { "Published table " (Text(&l.version)) ", buy-in " (money(l.buy_in)) }
                thead { tr { th class="num" { "Multiplier" } th class="num" { "Prize pool" } th class="num" { "Odds" } th { "Split" } } }
                tbody {
                    @for r in &l.prizes {
                        tr class=[(drawn_row == Some(r.multiplier)).then_some("on")] {
                            td class="num" { "×" (grouped(r.multiplier.into())) }
                            td class="num" { (money(r.pool)) }
                            td class="num" { (odds(r.per_million)) " (" (grouped(r.per_million.into())) " per million)" }
                            td {
                                @for (i, bps) in r.split_bps.iter().enumerate() {
                                    @if i > 0 { ", " }
                                    (crate::results::ordinal(i as u32 + 1)) " " (percent(*bps))
                                }
                            }
                        }
                    }
                }
            }
            "\n"
            p class="muted" { "Expected prize pool " (money(l.expected_pool)) " of the " (money(l.paid_in)) " a full game pays in." }
            "\n"
        }
        "\n"
    }
}

/// A step's length as its clock shows it: `20:00`, `0:45`, `1:30:00`.
fn length(seconds: u32) -> String {
    duration(u64::from(seconds) * 1_000)
}

/// The blind sheet, the current step marked.
pub fn structure_table(structure: &Structure, current: Option<u32>) -> Markup {
    // Levels and breaks each count from 1.
    let (mut levels, mut breaks) = (0u32, 0u32);
    let numbered = structure.steps.iter().map(|step| match step {
        Step::Level(_) => {
            levels += 1;
            (step, levels)
        }
        Step::Break { .. } => {
            breaks += 1;
            (step, breaks)
        }
    });
    html! {
        section id="structure" {
            h2 { "Structure" }
            table {
                thead { tr { th { "Level" } th class="num" { "Blinds" } th class="num" { "Ante" } th class="num" { "Length" } } }
                tbody {
                    @for (i, (step, n)) in numbered.enumerate() {
                        @let mark = (current == u32::try_from(i).ok()).then_some("badge");
                        @match step {
                            Step::Level(l) => {
                                tr data-step=(i) {
                                    td { span class=[mark] { (n) } }
                                    td class="num" { (grouped(l.small_blind)) " / " (grouped(l.big_blind)) }
                                    td class="num" { @if l.ante > 0 { (grouped(l.ante)) } @else { "–" } }
                                    td class="num" { (length(l.seconds)) }
                                }
                            }
                            Step::Break { seconds, color_up } => {
                                tr data-step=(i) {
                                    td colspan="3" {
                                        span class=[mark] { "Break " (n) }
                                        @if let Some(c) = color_up { ", colour up the " (grouped(*c)) "s" }
                                    }
                                    td class="num" { (length(*seconds)) }
                                }
                            }
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
    use crate::document::clock::LobbyClock;
    use floor_events::clock::{ClockEvent, Level, StepCause};
    use floor_events::payouts::{PayoutEvent, PlaceAward};
    use floor_events::tournament::TournamentDefinition;
    use floor_events::{EntryNo, PlayerId, TournamentId};

    use crate::pages::fixtures::{doc, level, t0};

    #[test]
    fn names_and_reasons_are_text_and_money_follows_the_one_rule() {
        let mut doc = doc("<script>alert(1)</script>");
        let structure = Structure {
            steps: vec![level(100, 200, 0), level(200, 400, 400), Step::Break { seconds: 300, color_up: Some(25) }],
            late_registration_levels: None,
            rebuys_until_break: None,
            push_hold_seconds: 0,
        };
        let clock = LobbyClock::new(structure.clone()).evolve(&ClockEvent::StepStarted {
            step: 0,
            number: 1,
            at: t0(),
            ends_at: t0() + chrono::TimeDelta::minutes(10),
            cause: StepCause::Start,
            blinds: None,
        });
        doc.clock = Some(clock.evolve(&ClockEvent::Paused { at: t0(), remaining_ms: 754_000, reason: "<b>chip race</b>".into() }));
        doc.state = LobbyState::Running;
        doc.entrants = 12;
        doc.live_entries = 8;

        let page = render(&doc, Some(&structure), None, t0());

        assert!(page.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>") && !page.contains("<script>alert"), "the name is text");
        assert!(page.contains("Paused: &lt;b&gt;chip race&lt;/b&gt;"), "the pause and its reason, as text");
        assert!(page.contains(">12:34<"), "time left while paused: 754 s");
        assert!(page.contains("Level 1: 100 / 200"));
        assert!(page.contains("200 / 400, ante 400 (big blind ante)"), "the next level");
        assert!(page.contains("8 of 12 entries"));
        assert!(page.contains("15,000"), "average stack: 12 × 10,000 chips / 8 left");
        assert!(page.contains("€10.00 + €1.00 fee") && page.contains("€1,000.00"), "buy-in, fee and guarantee as money");
        assert!(page.contains("Break 1</span>, colour up the 25s"), "the structure below");
        assert!(page.contains("id=\"clock\" data-step=\"0\""), "the step in play, for the script to mark");
        assert!(page.contains("<tr data-step=\"0\"><td><span class=\"badge\">1</span>"), "marked at load");
        assert!(page.contains("<tr data-step=\"2\"><td colspan=\"3\"><span>Break 1</span>"), "each row names its step");
    }

    #[test]
    fn a_suspension_shows_the_directors_reason_and_a_deal_its_shares() {
        use floor_events::abort::{AbortEvent, SuspendReason};
        use floor_events::payouts::{DealMethodKind, DealShare};
        let suspended = doc("Daily").evolve_abort(&AbortEvent::Suspended {
            reason: SuspendReason::Director { reason: "<i>fire alarm</i>, back at 21:00".into() },
            at: t0(),
        });
        let page = live(&suspended, t0());
        assert!(page.contains("Play is suspended") && page.contains("&lt;i&gt;fire alarm&lt;/i&gt;, back at 21:00"), "{page}");
        let resumed = suspended.evolve_abort(&AbortEvent::Resumed { suspended_at: t0(), at: t0() });
        assert!(!live(&resumed, t0()).contains("suspended"), "gone at the resume");

        let mut dealt = doc("Daily");
        dealt.entrants = 20;
        let dealt = dealt.evolve_payouts(&PayoutEvent::DealProposed {
            proposer: PlayerId::parse("ana").unwrap(),
            method: DealMethodKind::ChipChop,
            shares: vec![
                DealShare { entry: EntryNo(1), player: PlayerId::parse("ana").unwrap(), chips: 150_000, amount: 60_000 },
                DealShare { entry: EntryNo(2), player: PlayerId::parse("ben").unwrap(), chips: 50_000, amount: 30_000 },
            ],
            left_to_play_for: 10_000,
            pool: 100_000,
            ends_tournament: false,
        });
        let page = live(&dealt, t0());
        assert!(page.contains("Deal proposed (chip chop)") && page.contains("€600.00") && page.contains("not yet"), "{page}");
        assert!(page.contains("€100.00 left to play for"), "{page}");
        let rejected = dealt.evolve_payouts(&PayoutEvent::DealRejected { player: PlayerId::parse("ben").unwrap() });
        assert!(!live(&rejected, t0()).contains("Deal"), "a rejected deal is off");
    }

    #[test]
    fn levels_shorter_than_a_minute_show_their_seconds() {
        let short = Step::Level(Level { small_blind: 5, big_blind: 10, ante: 0, big_blind_ante: false, seconds: 45 });
        let structure = Structure {
            steps: vec![short, level(10, 20, 0)],
            late_registration_levels: None,
            rebuys_until_break: None,
            push_hold_seconds: 0,
        };
        let sheet = structure_table(&structure, None).into_string();
        assert!(sheet.contains(">0:45<") && sheet.contains(">10:00<"), "{sheet}");
    }

    #[test]
    fn finishers_show_place_player_and_prize_best_first() {
        let mut doc = doc("Sunday");
        doc.entrants = 20;
        doc.payouts = crate::document::payouts::LobbyPayouts::projected(
            &floor_rules::field::Field {
                entries: 20,
                contributions: Money::new(20_000, doc.buy_in.currency),
                guarantee: None,
                profile: doc.profile,
                fixed: None,
                ordering: None,
                seat_value: None,
            },
            floor_rules::field::Stakes::default(),
        );
        let award = |entry: u32, place: u32, amount: u64| PlaceAward {
            entry: EntryNo(entry),
            player: PlayerId::parse(&format!("p{entry}")).unwrap(),
            place,
            shared: 1,
            amount,
        };
        for (entry, place, amount) in [(7, 3, 2_500), (4, 2, 5_000), (9, 1, 9_000)] {
            doc = doc.evolve_payouts(&PayoutEvent::PlacesAwarded {
                players_left_before: place,
                awards: vec![award(entry, place, amount)],
                hand_for_hand: None,
            });
        }
        let live = live(&doc, t0());
        let finishers = &live[live.find("Finishers").expect("a finishers table")..];
        let (first, second, third) = (finishers.find("p9").unwrap(), finishers.find("p4").unwrap(), finishers.find("p7").unwrap());
        assert!(first < second && second < third, "best place first");
        assert!(finishers.contains("<td>1</td><td>p9</td><td class=\"num\">€90.00</td>"));
        assert!(live.contains("3 cashed so far"));
        assert!(!live.contains("share their places"), "no split, nothing to explain");
        // Issue 39: two out in one hand on the bubble share the last paid place and both cash:
        // more cashed than places paid, and the page says why.
        let places = doc.payouts.as_ref().map_or(0, |p| p.places_paid);
        assert_eq!(places, 3, "15 % of 20");
        let mut bubble = self::doc("Sunday");
        bubble.entrants = 20;
        bubble.payouts = doc.payouts.clone().map(|p| crate::document::payouts::LobbyPayouts {
            cashes: 0,
            latest_cashes: vec![],
            final_table: vec![],
            ..p
        });
        let split = vec![award(20, 3, 1_250), award(21, 3, 1_250)];
        bubble = bubble.evolve_payouts(&PayoutEvent::PlacesAwarded { players_left_before: 4, awards: split, hand_for_hand: None });
        for (entry, place) in [(22, 2), (23, 1)] {
            bubble = bubble.evolve_payouts(&PayoutEvent::PlacesAwarded {
                players_left_before: place,
                awards: vec![award(entry, place, 5_000)],
                hand_for_hand: None,
            });
        }
        let shown = super::live(&bubble, t0());
        assert!(shown.contains("3 places paid") && shown.contains("4 cashed so far"), "{shown}");
        assert!(shown.contains("share their places"), "{shown}");
    }

    /// Issue 36: a satellite's page names its target (linked), the seat value, the seats so far
    /// and the leftover; the target's page counts its entries by satellite.
    #[test]
    fn a_satellite_shows_its_target_and_seats_and_a_target_its_entries_by_ticket() {
        use floor_events::registration::{EntryKind, EntryRegistered, TournamentEvent};
        use floor_events::satellites::{SatelliteTerms, TicketRef};
        use floor_events::tournament::{purchase_ledger, Fee, Start};
        let eur = |c: u64| Money::new(c, floor_events::Currency::EUR);
        let target = TournamentId::new();
        let definition = TournamentDefinition {
            name: "Qualifier".into(),
            start: Start::At(t0()),
            buy_in: eur(1_000),
            fee: Fee::OnTop(eur(100)),
            satellite: Some(SatelliteTerms::new(target, eur(10_900))),
            ..TournamentDefinition::example()
        };
        let registered = |entry: u32, ticket: Option<TicketRef>| {
            TournamentEvent::EntryRegistered(EntryRegistered {
                entry: EntryNo(entry),
                player: PlayerId::parse(&format!("p{entry}")).unwrap(),
                kind: EntryKind::Registration,
                new_player: true,
                ledger: purchase_ledger(eur(1_000), eur(100)),
                at: t0(),
                ticket,
            })
        };
        let mut satellite = LobbyDocument::created(TournamentId::new(), &definition, t0(), 1).with_target_name(Some("<b>Major</b>".into()));
        for entry in 1..=12 {
            satellite = satellite.evolve(&registered(entry, None));
        }
        let page = live(&satellite, t0());
        assert!(page.contains(&format!("href=\"/tournaments/{target}\"")) && page.contains("&lt;b&gt;Major&lt;/b&gt;"), "{page}");
        assert!(page.contains("€109.00") && page.contains("1 guaranteed so far"), "{page}");
        assert!(page.contains("€11.00 in cash to place 2"), "{page}");
        let mut major = doc("Major");
        major = major.evolve(&registered(1, Some(TicketRef { satellite: satellite.tournament_id, entry: EntryNo(4) })));
        assert!(live(&major, t0()).contains("Entered by satellite"), "the target counts its entries by ticket");
        assert!(!live(&doc("Plain"), t0()).contains("id=\"satellite\""), "no section for an ordinary tournament");
        // A step into the satellite (000 §16.13): level 2, its next step named.
        assert!(!page.contains("level 2"), "a satellite of the top is level 1: no step row");
        let step = LobbyDocument::created(TournamentId::new(), &definition, t0(), 1)
            .with_target_name(Some("Major satellite".into()))
            .with_step_level(Some(1));
        assert!(live(&step, t0()).contains("level 2 of a step tree"), "the step's level and next step");
    }

    /// Issue 37: a shootout's terms and bracket, double or nothing's cut, and a lottery game's
    /// published table before registration, then its commitment and its draw.
    #[test]
    fn the_three_formats_show_what_players_are_promised() {
        use floor_events::lottery::{DrawCommitted, LotteryEvent, LotteryPrize, LotteryTerms, PrizeDrawn};
        use floor_events::shootouts::{CutTerms, RoundStarted, ShootoutEvent, ShootoutTerms};
        use floor_events::tournament::{Fee, Start};
        let eur = |c: u64| Money::new(c, floor_events::Currency::EUR);
        let shootout = TournamentDefinition {
            name: "Shootout".into(),
            start: Start::At(t0()),
            table_size: 9,
            capacity: 81,
            late_registration_until: None,
            shootout: Some(ShootoutTerms::new(1)),
            ..TournamentDefinition::example()
        };
        let mut doc = LobbyDocument::created(TournamentId::new(), &shootout, t0(), 1);
        let page = live(&doc, t0());
        assert!(page.contains("id=\"shootout\"") && page.contains("the winner of each table goes on"), "{page}");
        assert!(page.contains("Bracket for 81 players") && page.contains("carried"), "{page}");
        doc = doc.evolve_shootout(&ShootoutEvent::RoundStarted(RoundStarted {
            round: 1,
            entries: (1..=81).map(EntryNo).collect(),
            at: t0(),
        }));
        assert!(live(&doc, t0()).contains("round 1 of 2, 81 players"));

        let don = TournamentDefinition {
            name: "DoN".into(),
            start: Start::SitAndGo,
            capacity: 10,
            min_players: 10,
            table_size: 10,
            buy_in: eur(1_000),
            fee: Fee::OnTop(eur(80)),
            late_registration_until: None,
            cut: Some(CutTerms { fraction: 2 }),
            ..TournamentDefinition::example()
        };
        let page = live(&LobbyDocument::created(TournamentId::new(), &don, t0(), 1), t0());
        assert!(page.contains("Double or nothing") && page.contains("when 5 of the 10 players are left"), "{page}");
        assert!(page.contains("€20.00") && page.contains("the fee not included"), "{page}");

        let row = |multiplier, per_million, split: &[u32]| LotteryPrize { multiplier, per_million, split_bps: split.to_vec() };
        let lottery = TournamentDefinition {
            name: "Spin".into(),
            start: Start::SitAndGo,
            capacity: 3,
            min_players: 3,
            table_size: 3,
            buy_in: eur(500),
            fee: Fee::OnTop(eur(25)),
            late_registration_until: None,
            lottery: Some(LotteryTerms {
                version: "<spin-1>".into(),
                prizes: vec![row(100, 1_000, &[8_000, 1_250, 750]), row(2, 999_000, &[10_000])],
            }),
            ..TournamentDefinition::example()
        };
        let mut doc = LobbyDocument::created(TournamentId::new(), &lottery, t0(), 1);
        let page = live(&doc, t0());
        assert!(page.contains("&lt;spin-1&gt;") && page.contains("×100") && page.contains("1 in 1,000"), "{page}");
        assert!(page.contains("1st 80 %, 2nd 12.5 %, 3rd 7.5 %") && page.contains("€500.00"), "{page}");
        assert!(page.contains("When the 3 seats fill"), "{page}");
        let seed = "ab".repeat(32);
        let commitment = crate::document::lottery::seed_hash(&seed).unwrap();
        doc = doc.evolve_lottery(&LotteryEvent::DrawCommitted(DrawCommitted {
            version: "<spin-1>".into(),
            commitment: commitment.clone(),
            at: t0(),
        }));
        assert!(live(&doc, t0()).contains(&commitment));
        doc = doc.evolve_lottery(&LotteryEvent::PrizeDrawn(PrizeDrawn {
            version: "<spin-1>".into(),
            number: 400,
            multiplier: 100,
            pool: eur(50_000),
            prizes: vec![40_000, 6_250, 3_750],
            seed: seed.clone(),
            at: t0(),
        }));
        let page = live(&doc, t0());
        assert!(page.contains("×100</strong> drawn: a prize pool of €500.00 (1st €400.00, 2nd €62.50, 3rd €37.50)"), "{page}");
        assert!(page.contains(&seed) && page.contains("its SHA-256 is the commitment"), "{page}");
        assert!(!live(&doc, t0()).contains("id=\"cut\"") && !live(&doc, t0()).contains("id=\"shootout\""));
    }
}
