//! `GET /tournaments/{id}`: one tournament as a page. [`live`] renders the part that changes
//! (clock, field, prize pool, payouts, finishers, rebuys, hand-for-hand, bounties); the page
//! frames it once, and the live feed (`GET /tournaments/{id}/events`) sends it again, rendered
//! by the same function, at every new revision of the document.

use crate::clock::{ClockStatus, LobbyClock};
use crate::domain::{LobbyDocument, LobbyState};
use crate::html::legacy::{countdown, facts, instant, money, state_badge};
use crate::html::{duration, escape, page, words};
use crate::list_page::formats;
use crate::money::grouped;
use crate::seat_map::SeatsSummary;
use chrono::{DateTime, Utc};
use floor_events::clock::{Step, Structure};
use floor_events::registration::CancellationReason;
use floor_events::Money;
use std::fmt::Write;

/// The whole page: the live part, and the structure (when it has one) below it.
pub fn render(doc: &LobbyDocument, structure: Option<&Structure>, seats: Option<&SeatsSummary>, now: DateTime<Utc>) -> String {
    let mut body = format!(
        "<main id=\"live\" data-events=\"/tournaments/{id}/events\">\n{live}</main>\n<p class=\"muted\" id=\"live-status\">connecting…</p>\n",
        id = doc.tournament_id,
        live = live_with_tables(doc, seats, now)
    );
    // Outside the live part: an update must not wipe what a player is typing.
    body.push_str(&crate::seat_pages::search_form(doc.tournament_id, ""));
    if let Some(structure) = structure {
        body.push_str(&structure_table(structure, doc.clock.as_ref().and_then(|c| c.step)));
    }
    let _ = writeln!(
        body,
        "<p class=\"muted\">JSON: <a href=\"/api/tournaments/{id}\">document</a> · <a href=\"/api/tournaments/{id}/structure\">structure</a> · <a href=\"/api/tournaments/{id}/events\">live feed</a></p>",
        id = doc.tournament_id
    );
    page(&doc.name, &body)
}

/// The live part with the tables section (counts, recent moves and closures) from the seat
/// map as it stands: what the page shows and its feed sends.
pub fn live_with_tables(doc: &LobbyDocument, seats: Option<&SeatsSummary>, now: DateTime<Utc>) -> String {
    let mut out = live(doc, now);
    out.push_str(&crate::seat_pages::tables_section(doc.tournament_id, seats));
    out
}

/// The part of the page that changes with the document.
pub fn live(doc: &LobbyDocument, now: DateTime<Utc>) -> String {
    let mut out = format!(
        "<h1>{name}</h1>\n<p>{state} <span class=\"muted\">{formats}</span> · {start}</p>\n",
        name = crate::html::legacy::name(&doc.name),
        state = state_badge(doc, now),
        formats = escape(&formats(doc)),
        start = match doc.start {
            Some(at) => format!("starts {}", instant(at)),
            None if doc.state == LobbyState::Registering => format!("starts when {} seats fill", doc.capacity),
            None => "started when its seats filled".to_owned(),
        },
    );
    if let Some(reason) = &doc.cancellation {
        let why = match reason {
            CancellationReason::BelowMinimum { entries, min_players } => {
                format!("{entries} entries, fewer than the minimum of {min_players}")
            }
            CancellationReason::Director { reason } => reason.clone(),
        };
        let _ = writeln!(out, "<p><strong>Cancelled:</strong> {}. Every entry was refunded.</p>", escape(&why));
    }
    out.push_str(&play_section(doc));
    if let Some(clock) = &doc.clock {
        out.push_str(&clock_section(clock, now));
    }
    out.push_str(&field_section(doc));
    out.push_str(&prize_section(doc));
    out.push_str(&payouts_section(doc));
    out.push_str(&rebuys_section(doc));
    out.push_str(&hand_for_hand_section(doc));
    out.push_str(&bounties_section(doc));
    out
}

fn blinds(level: &floor_events::clock::Level) -> String {
    let mut out = format!("{} / {}", grouped(level.small_blind), grouped(level.big_blind));
    if level.ante > 0 {
        let _ = write!(out, ", ante {}{}", grouped(level.ante), if level.big_blind_ante { " (big blind ante)" } else { "" });
    }
    out
}

/// The clock as a section of facts (the console shows the same).
pub(crate) fn clock_section(clock: &LobbyClock, now: DateTime<Utc>) -> String {
    let mut rows: Vec<(&str, String)> = Vec::new();
    let now_playing = match (clock.on_break, clock.level, &clock.blinds) {
        (Some(n), _, _) => format!("Break {n}"),
        (None, Some(level), Some(b)) => format!("Level {level}: {}", blinds(b)),
        (None, Some(level), None) => format!("Level {level}"),
        (None, None, _) => "Not started".to_owned(),
    };
    rows.push(("Now", now_playing));
    match clock.status {
        ClockStatus::Running => {
            if let Some(ends) = clock.step_ends_at {
                rows.push(("Time left", countdown(ends, now)));
            }
        }
        ClockStatus::Paused => {
            let left = clock.paused_remaining_ms.map(duration).unwrap_or_default();
            let why = clock.paused_reason.as_deref().map(|r| format!(": {}", escape(r))).unwrap_or_default();
            rows.push(("Time left", format!("<span class=\"countdown\">{left}</span> <span class=\"badge paused\">Paused{why}</span>")));
        }
        ClockStatus::Waiting => rows.push(("Clock", "waiting for the start".to_owned())),
        ClockStatus::Stopped => rows.push(("Clock", "stopped: the tournament is over".to_owned())),
    }
    if let Some(next) = &clock.next_blinds {
        rows.push(("Next level", blinds(next)));
    }
    if let Some(at) = clock.next_break_at {
        rows.push(("Next break", format!("{} (in {})", instant(at), countdown(at, now))));
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
        rows.push(("", windows.join("; ")));
    }
    // The step in play, for the page's script to mark it in the structure below the live part.
    let step = clock.step.map(|s| format!(" data-step=\"{s}\"")).unwrap_or_default();
    format!("<section class=\"clock\" id=\"clock\"{step}><h2>Clock</h2>{}</section>\n", facts(&rows))
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

fn field_section(doc: &LobbyDocument) -> String {
    let mut rows = vec![
        ("Players left", format!("{} of {} entries", grouped(doc.live_entries.into()), grouped(doc.entrants.into()))),
        ("Players", format!("{} ({} re-entries)", grouped(doc.unique_players.into()), grouped(doc.re_entries.into()))),
        ("Seats", format!("{} at most, {} to start, {} a table", grouped(doc.capacity.into()), doc.min_players, doc.table_size)),
        ("Starting stack", grouped(doc.starting_stack)),
    ];
    match doc.registration_deadline {
        Some(_) if matches!(doc.state, LobbyState::Finished | LobbyState::Cancelled) => {}
        Some(_) if doc.clock.as_ref().is_some_and(|c| c.late_registration_closed) => rows.push(("Registration", "closed".to_owned())),
        Some(deadline) => rows.push(("Registration", format!("closes {}", instant(deadline)))),
        None => {}
    }
    if doc.live_entries > 0 && doc.state != LobbyState::Registering {
        rows.push(("Average stack", grouped(chips_in_play(doc) / u64::from(doc.live_entries))));
    }
    format!("<section id=\"field\"><h2>Field</h2>{}</section>\n", facts(&rows))
}

fn prize_section(doc: &LobbyDocument) -> String {
    let pool = &doc.prize_pool;
    let mut rows = vec![("Buy-in", format!("{} + {} fee", money(doc.buy_in), money(doc.fee))), ("Prize pool", money(pool.total))];
    if let Some(guarantee) = pool.guarantee {
        rows.push(("Guarantee", money(guarantee)));
        rows.push(("Overlay", money(pool.overlay)));
    }
    if pool.collected != pool.total {
        rows.push(("Collected", money(pool.collected)));
    }
    format!("<section id=\"prize-pool\"><h2>Prize pool</h2>{}</section>\n", facts(&rows))
}

fn payouts_section(doc: &LobbyDocument) -> String {
    let Some(p) = &doc.payouts else { return String::new() };
    let currency = doc.buy_in.currency;
    let cash = |amount: u64| money(Money::new(amount, currency));
    let mut out = format!(
        "<section id=\"payouts\"><h2>Payouts</h2><p>{} places paid of {} · {} · {} cashed so far{}</p>\n",
        grouped(p.places_paid.into()),
        money(p.pool),
        if p.locked { "final" } else { "projected for the entries so far" },
        grouped(p.cashes.into()),
        if p.paid { " · every place paid" } else { "" },
    );
    if !p.bands.is_empty() {
        out.push_str("<table class=\"payout-table\"><thead><tr><th>Place</th><th class=\"num\">Prize</th></tr></thead><tbody>");
        for band in &p.bands {
            let places = if band.from == band.to { band.from.to_string() } else { format!("{}–{}", band.from, band.to) };
            let _ = write!(out, "<tr><td>{places}</td><td class=\"num\">{}</td></tr>", cash(band.amount));
        }
        out.push_str("</tbody></table>\n");
    }
    if let Some(deal) = &p.deal {
        out.push_str(&deal_section(deal, &cash));
    }
    let finishers = finishers(p);
    if !finishers.is_empty() {
        out.push_str("<h2>Finishers</h2><table class=\"finishers\"><thead><tr><th>Place</th><th>Player</th><th class=\"num\">Prize</th></tr></thead><tbody>");
        for a in finishers {
            let shared = if a.shared > 1 { format!(" (shared by {})", a.shared) } else { String::new() };
            let _ = write!(
                out,
                "<tr><td>{}{shared}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                a.place,
                crate::html::legacy::name(a.player.as_str()),
                cash(a.amount)
            );
        }
        out.push_str("</tbody></table>\n");
    }
    out.push_str("</section>\n");
    out
}

/// A suspension (the reason the director gave, or Floor's when tables fell silent, shown to
/// players) or a cancellation in play. The console shows it too.
pub(crate) fn play_section(doc: &LobbyDocument) -> String {
    let mut out = String::new();
    if let Some(s) = &doc.play.suspended {
        let _ = writeln!(
            out,
            "<section id=\"suspended\" class=\"notice\"><h2>Play is suspended</h2><p>{} <span class=\"muted\">since {}</span></p><p class=\"muted\">The clock is stopped; play resumes where it stopped.</p></section>",
            escape(&s.reason),
            instant(s.since)
        );
    }
    if let Some(c) = &doc.play.cancelled {
        let _ = writeln!(
            out,
            "<section id=\"cancelled-in-play\" class=\"notice\"><h2>Cancelled in play</h2><p>{}{} <span class=\"muted\">at {}</span></p><p>{} statements ({}), {} in all. </p>{}</section>",
            escape(&c.reason),
            match c.cause {
                Some(floor_events::abort::CancelCause::OperatorFault) => " (the operator's fault)",
                Some(floor_events::abort::CancelCause::ForceMajeure) => " (force majeure)",
                None => "",
            },
            instant(c.at),
            grouped(u64::from(c.statements)),
            escape(&words(&c.method)),
            money(c.total),
            crate::statements::statement_form(doc.tournament_id, "")
        );
    }
    out
}

/// A deal among the remaining players: who gets what, who has accepted.
fn deal_section(deal: &crate::payouts::LobbyDeal, cash: &dyn Fn(u64) -> String) -> String {
    let title = if deal.agreed { "Deal agreed" } else { "Deal proposed" };
    let method = deal.method.map(|m| format!(" ({})", words(&m))).unwrap_or_default();
    let mut out = format!("<div id=\"deal\"><h3>{title}{}</h3><table class=\"deal\"><thead><tr><th>Player</th><th class=\"num\">Chips</th><th class=\"num\">Share</th><th>Accepted</th></tr></thead><tbody>", escape(&method));
    for share in &deal.shares {
        let accepted = deal.agreed || deal.accepted.contains(&share.player);
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            crate::html::legacy::name(share.player.as_str()),
            grouped(share.chips),
            cash(share.amount),
            if accepted { "yes" } else { "not yet" }
        );
    }
    out.push_str("</tbody></table>");
    if deal.left_to_play_for > 0 {
        let _ = write!(out, "<p>{} left to play for: the winner's.</p>", cash(deal.left_to_play_for));
    }
    out.push_str("</div>\n");
    out
}

/// The final table's places and the latest cashes, best place first, each once.
fn finishers(p: &crate::payouts::LobbyPayouts) -> Vec<&floor_events::payouts::PlaceAward> {
    let mut all: Vec<_> = p.final_table.iter().chain(&p.latest_cashes).collect();
    all.sort_by_key(|a| (a.place, a.entry));
    all.dedup_by_key(|a| (a.place, a.entry));
    all
}

fn rebuys_section(doc: &LobbyDocument) -> String {
    use crate::rebuys::BuyingPeriod;
    let Some(r) = &doc.rebuys else { return String::new() };
    let period = match r.period {
        BuyingPeriod::NotStarted => "not started",
        BuyingPeriod::Rebuys => "rebuys open",
        BuyingPeriod::AddOn => "add-on break",
        BuyingPeriod::Over => "over",
    };
    let mut rows = vec![("Period", period.to_owned()), ("Rebuys", grouped(r.rebuys.into())), ("Add-ons", grouped(r.add_ons.into()))];
    if let Some(t) = &r.rebuy {
        rows.push(("Rebuy", format!("{} + {} fee for {} chips", money(t.price), money(t.fee), grouped(t.chips))));
    }
    if let Some(t) = &r.add_on {
        rows.push(("Add-on", format!("{} + {} fee for {} chips", money(t.price), money(t.fee), grouped(t.chips))));
    }
    if !r.offers.is_empty() {
        let offers: Vec<String> =
            r.offers.iter().map(|o| format!("{} (until {})", crate::html::legacy::name(o.player.as_str()), instant(o.until))).collect();
        rows.push(("Deciding now", offers.join(", ")));
    }
    format!("<section id=\"rebuys\"><h2>Rebuys and add-ons</h2>{}</section>\n", facts(&rows))
}

fn hand_for_hand_section(doc: &LobbyDocument) -> String {
    let h = &doc.hand_for_hand;
    if !h.on && h.ended.is_none() {
        return String::new();
    }
    let mut rows = Vec::new();
    if h.on {
        rows.push(("Hand-for-hand", format!("on, hand {}{}", h.hand.unwrap_or(0), if h.paused { " (held by the director)" } else { "" })));
        let waiting: Vec<String> = h.waiting.iter().map(|w| format!("table {} since {}", w.table, instant(w.since))).collect();
        rows.push(("Waiting for", if waiting.is_empty() { "no table".to_owned() } else { waiting.join(", ") }));
        if !h.excused.is_empty() {
            let excused: Vec<String> = h.excused.iter().map(|e| format!("table {} (owes hand {})", e.table, e.hand)).collect();
            rows.push(("Not waited for", excused.join(", ")));
        }
    } else if let Some(cause) = h.ended {
        let why = match cause {
            floor_events::bubble::EndCause::Burst => "the bubble burst",
            floor_events::bubble::EndCause::OneTable => "one table is left",
            floor_events::bubble::EndCause::Director => "the director ended it",
        };
        rows.push(("Hand-for-hand", format!("over: {why}")));
    }
    format!("<section id=\"hand-for-hand\"><h2>Hand-for-hand</h2>{}</section>\n", facts(&rows))
}

/// Bounties listed on the page at most (the document holds up to its own bound).
const BOUNTIES_SHOWN: usize = 20;

fn bounties_section(doc: &LobbyDocument) -> String {
    let Some(b) = &doc.bounties else { return String::new() };
    let currency = doc.buy_in.currency;
    let mut rows = vec![
        ("Kind", escape(&b.kind)),
        ("Bounty pool", money(b.pool)),
        ("Paid so far", money(b.paid_so_far)),
        ("Knockouts", grouped(b.knockouts.into())),
    ];
    if b.largest_collected > 0 {
        rows.push(("Largest bounty", money(Money::new(b.largest_collected, currency))));
    }
    if let Some(target) = &b.target {
        rows.push(("Target", crate::html::legacy::name(target.as_str())));
    }
    if !b.envelopes_left.is_empty() {
        let left: Vec<String> = b.envelopes_left.iter().map(|e| format!("{} × {}", e.count, money(e.value))).collect();
        rows.push(("Envelopes left", left.join(", ")));
    }
    let mut out = format!("<section id=\"bounties\"><h2>Bounties</h2>{}", facts(&rows));
    if !b.remaining.is_empty() {
        let mut heads: Vec<_> = b.remaining.iter().collect();
        heads.sort_by(|x, y| y.bounty.cmp(&x.bounty).then(x.entry.cmp(&y.entry)));
        out.push_str("<table class=\"bounties\"><thead><tr><th>Player</th><th class=\"num\">Bounty</th></tr></thead><tbody>");
        for head in heads.into_iter().take(BOUNTIES_SHOWN) {
            let _ = write!(
                out,
                "<tr><td>{}</td><td class=\"num\">{}</td></tr>",
                crate::html::legacy::name(head.player.as_str()),
                money(Money::new(head.bounty, currency))
            );
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("</section>\n");
    out
}

/// A step's length as its clock shows it: `20:00`, `0:45`, `1:30:00`.
fn length(seconds: u32) -> String {
    duration(u64::from(seconds) * 1_000)
}

/// The blind sheet, the current step marked.
pub fn structure_table(structure: &Structure, current: Option<u32>) -> String {
    let mut out = String::from(
        "<section id=\"structure\"><h2>Structure</h2><table><thead><tr><th>Level</th><th class=\"num\">Blinds</th><th class=\"num\">Ante</th><th class=\"num\">Length</th></tr></thead><tbody>",
    );
    let mut level = 0u32;
    let mut pause = 0u32;
    for (i, step) in structure.steps.iter().enumerate() {
        let mark = if current == u32::try_from(i).ok() { " class=\"badge\"" } else { "" };
        match step {
            Step::Level(l) => {
                level += 1;
                let _ = write!(
                    out,
                    "<tr data-step=\"{i}\"><td><span{mark}>{level}</span></td><td class=\"num\">{} / {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                    grouped(l.small_blind),
                    grouped(l.big_blind),
                    if l.ante > 0 { grouped(l.ante) } else { "–".to_owned() },
                    length(l.seconds)
                );
            }
            Step::Break { seconds, color_up } => {
                pause += 1;
                let colour = color_up.map(|c| format!(", colour up the {}s", grouped(c))).unwrap_or_default();
                let _ = write!(
                    out,
                    "<tr data-step=\"{i}\"><td colspan=\"3\"><span{mark}>Break {pause}</span>{colour}</td><td class=\"num\">{}</td></tr>",
                    length(*seconds)
                );
            }
        }
    }
    out.push_str("</tbody></table></section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::LobbyClock;
    use floor_events::clock::{ClockEvent, Level, StepCause};
    use floor_events::payouts::{PayoutEvent, PlaceAward};
    use floor_events::tournament::TournamentDefinition;
    use floor_events::{EntryNo, PlayerId, TournamentId};

    fn t0() -> DateTime<Utc> {
        "2027-01-10T18:00:00Z".parse().unwrap()
    }

    fn doc(name: &str) -> LobbyDocument {
        let definition: TournamentDefinition = serde_json::from_value(serde_json::json!({
            "name": name, "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
            "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
            "capacity": 100, "min_players": 2, "entry_model": {"kind": "freezeout"}, "profile": "tda-2024",
            "guarantee": {"amount": 100000, "currency": "EUR"},
        }))
        .unwrap();
        LobbyDocument::created(TournamentId::new(), &definition, t0(), 1)
    }

    fn level(small_blind: u64, big_blind: u64, ante: u64) -> Step {
        Step::Level(Level { small_blind, big_blind, ante, big_blind_ante: ante > 0, seconds: 600 })
    }

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
        let sheet = structure_table(&structure, None);
        assert!(sheet.contains(">0:45<") && sheet.contains(">10:00<"), "{sheet}");
    }

    #[test]
    fn finishers_show_place_player_and_prize_best_first() {
        let mut doc = doc("Sunday");
        doc.entrants = 20;
        doc.payouts = crate::payouts::LobbyPayouts::projected(&floor_rules::field::Field {
            entries: 20,
            contributions: Money::new(20_000, doc.buy_in.currency),
            guarantee: None,
            profile: doc.profile,
            fixed: None,
            ordering: None,
        });
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
    }
}
