//! The scripted exchanges, each on tables of its own, in the order they run:
//!
//! 1. [`dealing`] (tables 1 and 2): open, seat, no hand before blinds; blinds, hands; chips
//!    added (and the instruction delivered twice); a player moved from table 1 to table 2 with
//!    the stack table 1 last reported; a seat and a removal published in reverse order; every
//!    player at zero eliminated.
//! 2. [`hand_for_hand`] (table 3): held before the first hand; one hand per `deal_hand`; closed.
//! 3. [`pausing`] (table 4): paused before the first hand; resumed; paused again and closed.
//!
//! Waits here ask for what the table must do; the checker ([`super::rules`]) judges everything
//! the table reports along the way, and the quiet windows give a table time to do what it
//! must not.

use super::rules::Rule;
use super::{CheckError, Driver};
use floor_events::table::{Instruction, Removal, SeatNo};
use floor_events::{EntryNo, PlayerId};

/// Chips each player sits down with.
pub const STACK: u64 = 10_000;

fn seat(entry: u32, seat: u8, stack: u64) -> Instruction {
    let player = PlayerId::parse(&format!("check-{entry}")).expect("a valid account name");
    Instruction::SeatPlayer { entry: EntryNo(entry), player, seat: SeatNo(seat), stack, wait_for_button: false }
}

fn blinds() -> Instruction {
    Instruction::Blinds { level: 1, small_blind: 50, big_blind: 100, ante: 0, big_blind_ante: false }
}

/// Opens `table` and seats `players` (entry, seat) with [`STACK`]; returns the seats' sequences.
async fn open(d: &mut Driver, table: u32, before_seats: Option<Instruction>, players: &[(u32, u8)]) -> Result<Vec<u64>, CheckError> {
    d.send(table, Instruction::OpenTable { seats: 9 }).await?;
    if let Some(instruction) = before_seats {
        d.send(table, instruction).await?;
    }
    let mut seats = Vec::new();
    for &(entry, s) in players {
        seats.push(d.send(table, seat(entry, s, STACK)).await?);
    }
    Ok(seats)
}

/// Every scenario, in order, then the confirmations still owed.
///
/// # Errors
/// NATS failing.
pub async fn play(d: &mut Driver) -> Result<(), CheckError> {
    dealing(d).await?;
    hand_for_hand(d).await?;
    pausing(d).await?;
    owed(d).await
}

/// Every `remove_player` and `add_chips` sent is confirmed in the end; one sent after the
/// table's `close_table` (a bust in its last hand, a move after it) breaks `after-close` if not.
///
/// # Errors
/// NATS failing.
pub async fn owed(d: &mut Driver) -> Result<(), CheckError> {
    let tables: Vec<u32> = d.tables();
    for table in tables {
        let view = d.view(table);
        let (after, before): (Vec<u64>, Vec<u64>) = view.unconfirmed().partition(|s| view.closed_at.is_some_and(|c| *s > c));
        if !before.is_empty() {
            d.confirmed(table, &before).await?;
        }
        if !after.is_empty() {
            d.confirmed_under(Rule::AfterClose, table, &after).await?;
        }
    }
    Ok(())
}

/// Tables 1 and 2: the life of a table, moves and chips. Floor's word on a player at zero
/// follows their bust at once (`remove_player {eliminated}`, [`Driver`]), as in a freezeout,
/// except for table 1's first bust: that player is moved at zero to table 2 and rebought there
/// (as in a rebuy period).
///
/// # Errors
/// NATS failing.
pub async fn dealing(d: &mut Driver) -> Result<(), CheckError> {
    let (one, two) = (1, 2);
    d.keep_spare(one);
    d.send(one, blinds()).await?;
    open(d, one, None, &[(1, 1), (2, 3), (3, 5), (4, 7)]).await?;
    // The table server may still be starting: its first hand says it runs.
    d.wait_start(Rule::Deals, one, "a hand finished after blinds (is the table server running?)", |v| v.finished >= 1).await?;
    // Table 2 seated while table 1 deals, no blinds yet: a table that deals now breaks
    // waits-for-blinds.
    open(d, two, None, &[(5, 2), (6, 6)]).await?;
    d.quiet().await?;
    d.send(two, blinds()).await?;
    d.wait(Rule::Deals, two, "a hand finished after blinds", |v| v.finished >= 1).await?;

    // A player at zero waiting for a rebuy, moved (balancing in a rebuy period moves them as
    // anyone): table 1 lets them go, table 2 seats them with stack 0 and deals them in only
    // once add_chips (delivered twice, as after the duplicate window) is applied.
    d.wait(Rule::Deals, one, "a player busted at table 1 (hands with all-ins)", |v| v.at_zero().next().is_some()).await?;
    if let Some(rebuyer) = d.take_spare() {
        let removal = Removal::Moved { to_table: two, to_seat: SeatNo(7) };
        let away = d.send(one, Instruction::RemovePlayer { entry: rebuyer, reason: removal }).await?;
        if d.confirmed_under(Rule::MovedAtZero, one, &[away]).await? {
            d.send(two, seat(rebuyer.0, 7, 0)).await?;
            d.quiet().await?;
            let add = d.number(two, Instruction::AddChips { entry: rebuyer, chips: STACK });
            d.publish(&add, false).await?;
            d.publish(&add, true).await?;
            d.release(rebuyer);
            d.confirmed(two, &[add.sequence]).await?;
            let since = d.view(two).started;
            let what = format!("entry #{} dealt in at table {two} after add_chips", rebuyer.0);
            d.wait(Rule::MovedAtZero, two, &what, move |v| v.last_dealt.get(&rebuyer).is_some_and(|&h| h > since)).await?;
        }
    } else {
        // No bust: an add-on, delivered twice.
        let buyer = d.view(one).with_chips().map(|(e, _)| e).next();
        if let Some(buyer) = buyer {
            let add = d.number(one, Instruction::AddChips { entry: buyer, chips: STACK });
            d.publish(&add, false).await?;
            d.publish(&add, true).await?;
            d.confirmed(one, &[add.sequence]).await?;
        }
    }

    // A move: table 1's biggest stack to seat 9 of table 2, seated there (after table 1
    // confirms) with the stack table 1 last reported.
    let view = d.view(one);
    if let Some((mover, _)) = view.with_chips().max_by_key(|(e, s)| (s.chips, *e)) {
        let removal = Removal::Moved { to_table: two, to_seat: SeatNo(9) };
        let away = d.send(one, Instruction::RemovePlayer { entry: mover, reason: removal }).await?;
        if d.confirmed(one, &[away]).await? {
            let stack = d.view(one).removed.get(&mover).copied().unwrap_or(0);
            if stack > 0 {
                d.send(two, seat(mover.0, 9, stack)).await?;
                let what = format!("entry #{} dealt in after moving to table {two}", mover.0);
                d.wait(Rule::Deals, two, &what, move |v| v.last_dealt.contains_key(&mover)).await?;
            }
        }
    }

    // Published out of order: a removal (n + 1) before the seat it undoes (n). Applied in order,
    // entry 7 is seated and removed at one hand boundary and never dealt in at table 1.
    let newcomer = 7;
    let seated = d.number(one, seat(newcomer, 9, STACK));
    let removal = Removal::Moved { to_table: two, to_seat: SeatNo(8) };
    let removed = d.number(one, Instruction::RemovePlayer { entry: EntryNo(newcomer), reason: removal });
    d.publish(&removed, false).await?;
    d.quiet().await?;
    d.publish(&seated, false).await?;
    if d.confirmed(one, &[removed.sequence]).await? {
        d.send(two, seat(newcomer, 8, STACK)).await?;
    }
    d.quiet().await
}

/// Table 3: hand-for-hand from before the first hand, two hands dealt one at a time.
///
/// # Errors
/// NATS failing.
pub async fn hand_for_hand(d: &mut Driver) -> Result<(), CheckError> {
    let table = 3;
    open(d, table, Some(Instruction::HoldForDeal), &[(11, 1), (12, 2), (13, 4), (14, 5), (15, 7), (16, 8)]).await?;
    d.send(table, blinds()).await?;
    d.quiet().await?;
    for hand in 1..=2 {
        d.send(table, Instruction::DealHand { hand }).await?;
        d.wait(Rule::HoldForDeal, table, &format!("hand {hand} dealt on deal_hand {{{hand}}}"), move |v| v.finished >= hand).await?;
        d.quiet().await?;
    }
    d.send(table, Instruction::CloseTable).await?;
    Ok(())
}

/// Table 4: paused before the first hand, resumed, paused again and closed.
///
/// # Errors
/// NATS failing.
pub async fn pausing(d: &mut Driver) -> Result<(), CheckError> {
    let table = 4;
    let pause = Instruction::Pause { reason: "table-check".into() };
    open(d, table, Some(pause), &[(21, 1), (22, 2), (23, 4), (24, 5), (25, 7), (26, 8)]).await?;
    d.send(table, blinds()).await?;
    d.quiet().await?;
    d.send(table, Instruction::Resume).await?;
    d.wait(Rule::Deals, table, "a hand finished after resume", |v| v.finished >= 1).await?;
    // Paused again before the close: a table that is dealing reads `close_table` only between
    // hands, and how many hands it deals before the instruction reaches it depends on the
    // machine's load, not on the table server (one run in two on a loaded 2-core machine dealt
    // two hands after it). Closed while paused, any hand dealt after it is the table's fault.
    d.send(table, Instruction::Pause { reason: "table-check: closing".into() }).await?;
    d.quiet().await?;
    d.send(table, Instruction::CloseTable).await?;
    // After the close: a player still seated there moved (their table broke while the move
    // was on its way), and an offer to rebuy for one (a bust in the last hand, a rebuy period).
    let view = d.view(table);
    let mut seated = view.with_chips().map(|(e, _)| e);
    if let (Some(mover), Some(offered)) = (seated.next(), seated.next()) {
        d.send(table, Instruction::RebuyOffered { entry: offered, until: chrono::DateTime::<chrono::Utc>::UNIX_EPOCH }).await?;
        let removal = Removal::Moved { to_table: 2, to_seat: SeatNo(6) };
        let away = d.send(table, Instruction::RemovePlayer { entry: mover, reason: removal }).await?;
        d.confirmed_under(Rule::AfterClose, table, &[away]).await?;
    }
    d.quiet().await
}
