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

/// Every scenario, in order.
///
/// # Errors
/// NATS failing.
pub async fn play(d: &mut Driver) -> Result<(), CheckError> {
    dealing(d).await?;
    hand_for_hand(d).await?;
    pausing(d).await
}

/// Tables 1 and 2: the life of a table, moves and chips.
///
/// # Errors
/// NATS failing.
pub async fn dealing(d: &mut Driver) -> Result<(), CheckError> {
    let (one, two) = (1, 2);
    let seats_one = open(d, one, None, &[(1, 1), (2, 3), (3, 5), (4, 7)]).await?;
    let seats_two = open(d, two, None, &[(5, 2), (6, 6)]).await?;
    let what = format!("instruction_applied for the seats #{seats_one:?} (is the table server running?)");
    d.wait_start(Rule::Confirms, one, &what, |v| seats_one.iter().all(|s| v.confirmed.contains(s))).await?;
    d.confirmed(two, &seats_two).await?;
    // Seated, no blinds yet: a table that deals now breaks waits-for-blinds.
    d.quiet().await?;
    d.send(one, blinds()).await?;
    d.send(two, blinds()).await?;
    for table in [one, two] {
        d.wait(Rule::Deals, table, "a hand finished after blinds", |v| v.finished >= 1).await?;
    }

    // Chips for a player (one at zero if there is one: a rebuy; else an add-on), delivered twice
    // before the table's next hand: it adds them once.
    let view = d.view(one);
    let Some(rebuyer) = view.at_zero().next().or_else(|| view.with_chips().map(|(e, _)| e).next()) else { return Ok(()) };
    let add = d.number(one, Instruction::AddChips { entry: rebuyer, chips: STACK });
    d.publish(&add, false).await?;
    d.publish(&add, true).await?;
    d.confirmed(one, &[add.sequence]).await?;
    let since = d.view(one).started;
    let what = format!("entry #{} dealt in after add_chips", rebuyer.0);
    d.wait(Rule::Deals, one, &what, move |v| v.last_dealt.get(&rebuyer).is_some_and(|&h| h > since)).await?;

    // A move: table 1's biggest stack to seat 9 of table 2, seated there (after table 1
    // confirms) with the stack table 1 last reported.
    let view = d.view(one);
    if let Some((mover, _)) = view.with_chips().max_by_key(|(e, s)| (s.chips, *e)) {
        let removal = Removal::Moved { to_table: two, to_seat: SeatNo(9) };
        let away = d.send(one, Instruction::RemovePlayer { entry: mover, reason: removal }).await?;
        if d.confirmed(one, &[away]).await? {
            let stack = d.view(one).removed.get(&mover).copied().unwrap_or(0);
            if stack > 0 {
                let here = d.send(two, seat(mover.0, 9, stack)).await?;
                d.confirmed(two, &[here]).await?;
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
    if d.confirmed(one, &[seated.sequence, removed.sequence]).await? {
        let here = d.send(two, seat(newcomer, 8, STACK)).await?;
        d.confirmed(two, &[here]).await?;
    }

    // Freezeout: every player at zero is eliminated.
    for table in [one, two] {
        let mut out = Vec::new();
        for entry in d.view(table).at_zero().collect::<Vec<_>>() {
            out.push(d.send(table, Instruction::RemovePlayer { entry, reason: Removal::Eliminated }).await?);
        }
        d.confirmed(table, &out).await?;
    }
    d.quiet().await
}

/// Table 3: hand-for-hand from before the first hand, two hands dealt one at a time.
///
/// # Errors
/// NATS failing.
pub async fn hand_for_hand(d: &mut Driver) -> Result<(), CheckError> {
    let table = 3;
    let seats = open(d, table, Some(Instruction::HoldForDeal), &[(11, 1), (12, 2), (13, 4), (14, 5), (15, 7), (16, 8)]).await?;
    d.confirmed(table, &seats).await?;
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
    let seats = open(d, table, Some(pause), &[(21, 1), (22, 2), (23, 4), (24, 5), (25, 7), (26, 8)]).await?;
    d.confirmed(table, &seats).await?;
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
    d.quiet().await
}
