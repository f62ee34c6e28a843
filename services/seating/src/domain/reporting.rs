//! A table's report: whether it fits what Floor knows of the table (the hand order, who sits
//! where with which chips, hand-for-hand's hold), and the decision it leads to, or its
//! rejection.

use super::*;

fn rejected(report: &TableReport, why: Rejection) -> Vec<SeatingEvent> {
    refused(report.table, report.report_id.clone(), &why)
}

pub(super) fn refused(table: u32, report_id: String, why: &Rejection) -> Vec<SeatingEvent> {
    vec![SeatingEvent::ReportRejected { table, report_id, code: why.code().into(), reason: why.to_string() }]
}

pub(super) fn on_report(state: &SeatingState, report: TableReport, seed: &Seed) -> Vec<SeatingEvent> {
    let table = report.table;
    match &report.report {
        Report::HandStarted { hand, button, stacks, deal_hand } => match check_started(state, table, *hand, *button, stacks, *deal_hand) {
            Ok(crossing) => vec![SeatingEvent::HandStarted { table, hand: *hand, button: *button, stacks: stacks.clone(), crossing }],
            Err(why) => rejected(&report, why),
        },
        Report::HandFinished { hand, .. }
            if state.held.contains_key(&table) && state.play.in_play.get(&table).is_none_or(|h| h.hand != *hand) =>
        {
            rejected(&report, Rejection::HandNotReleased(*hand))
        }
        Report::HandFinished { hand, stacks, busts } => match state.play.check_finished(&state.room, table, *hand, stacks, busts) {
            Ok(()) => finished(state, table, *hand, stacks.clone(), busts.clone(), seed),
            Err(why) => rejected(&report, why),
        },
        Report::InstructionApplied { sequence } => {
            let sent = state.sequences.get(&table).copied().unwrap_or(0);
            if *sequence == 0 || *sequence > sent {
                return rejected(&report, Rejection::UnknownInstruction { sequence: *sequence, sent });
            }
            if !state.confirmable.contains(&(table, *sequence)) {
                return rejected(&report, Rejection::NotConfirmed(*sequence));
            }
            confirmed(state, table, *sequence)
        }
    }
}

/// Does a player of `table` sit in `seat` there (dealt in or not; leaving or not)?
fn sits_at(state: &SeatingState, table: u32, seat: Seat) -> bool {
    let occupant = state.room.table(table).and_then(|t| t.seats.get(seat).copied().flatten());
    occupant.is_some_and(|o| state.physical(o.entry) == Some((table, seat)))
        || state.leaving.values().any(|l| l.table == table && l.seat == seat)
}

/// A hand may start with the players who physically sit at the table, with the chips Floor
/// knows, once the previous hand is finished; under hand-for-hand's hold only on a
/// `deal_hand`, or as the one deal that crossed the hold. `Ok(true)` for that crossing deal.
fn check_started(
    state: &SeatingState,
    table: u32,
    hand: u64,
    button: SeatNo,
    stacks: &[SeatStack],
    deal_hand: Option<u64>,
) -> Result<bool, Rejection> {
    if state.room.table(table).is_none() && !state.closing.contains(&table) {
        return Err(Rejection::UnknownTable(table));
    }
    let expected = state.play.last_hand.get(&table).copied().unwrap_or(0) + 1;
    if hand != expected || state.play.in_play.contains_key(&table) {
        return Err(Rejection::HandOutOfOrder { expected, got: hand });
    }
    let crossing = match state.held.get(&table) {
        None => false,
        // A deal on a `deal_hand` says so; it needs one not dealt yet.
        Some(h) if deal_hand.is_some() => {
            if h.credits == 0 {
                return Err(Rejection::TableHeld(table, hand));
            }
            false
        }
        // Without: the deal that crossed the hold, if the table was between hands at it and
        // has not dealt since; else (a table server from before `deal_hand` was reported) a
        // deal on one, if one is left.
        Some(h) if h.racing => true,
        Some(h) if h.credits > 0 => false,
        Some(_) => return Err(Rejection::TableHeld(table, hand)),
    };
    let mut dealt = HashSet::new();
    for s in stacks {
        match state.physical(s.entry) {
            None => return Err(Rejection::UnknownPlayer(s.entry)),
            Some((at, _)) if at != table => return Err(Rejection::NotAtTable { entry: s.entry, table }),
            Some(at) if at != (table, seat_index(s.seat)) => return Err(Rejection::WrongSeat(s.entry, s.seat)),
            Some(_) => {}
        }
        let known = state.play.chips.get(&s.entry).copied().unwrap_or(0);
        if known != s.chips {
            return Err(Rejection::StackMismatch { entry: s.entry, expected: known, got: s.chips });
        }
        if !dealt.insert(s.entry) {
            return Err(Rejection::Unaccounted(s.entry));
        }
    }
    if !sits_at(state, table, seat_index(button)) {
        return Err(Rejection::ButtonOnEmptySeat(button));
    }
    Ok(crossing)
}
