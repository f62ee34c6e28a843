//! A table's report: whether it fits what Floor knows of the table (the hand order, who sits
//! where with which chips, hand-for-hand's hold), and the decision it leads to, or its
//! rejection. Every check of a hand's start and finish is here ([`check_started`],
//! [`check_finished`]); reading a report off its subject is `crate::reports`.
//!
//! A table server is a separate program in any language; a wrong report must never corrupt the
//! seating state. Each check names the rule a report broke ([`Rejection::code`]), and the
//! decider records the rejection instead of applying the report.
//!
//! Chips are conserved within a hand (tournaments take no rake): what the players dealt in had
//! at the start is what the survivors hold at the end. Rebuys and add-ons add chips between
//! hands, through Floor, never inside a report.

use super::*;

fn rejected(report: &TableReport, why: Rejection) -> Vec<SeatingEvent> {
    refused(report.table, report.report_id.clone(), &why)
}

pub(super) fn refused(table: u32, report_id: String, why: &Rejection) -> Vec<SeatingEvent> {
    vec![SeatingEvent::ReportRejected { table, report_id, code: why.code().into(), reason: why.to_string() }]
}

pub(super) fn on_report(state: &SeatingState, report: TableReport, seed: &Seed) -> Vec<SeatingEvent> {
    let table = report.table;
    // Play is over without a winner (a satellite's shared finish, a cancellation in play):
    // every table is closed, and a hand in play then counts for nothing. Without this, a hand
    // that finished after the stop would eliminate a player who has already won a seat.
    if let (true, Report::HandStarted { hand, .. } | Report::HandFinished { hand, .. }) = (state.over(), &report.report) {
        return rejected(&report, Rejection::TournamentOver(state.entries.len(), *hand));
    }
    match &report.report {
        Report::HandStarted { hand, button, stacks, deal_hand } => match check_started(state, table, *hand, *button, stacks, *deal_hand) {
            Ok(crossing) => vec![SeatingEvent::HandStarted { table, hand: *hand, button: *button, stacks: stacks.clone(), crossing }],
            Err(why) => rejected(&report, why),
        },
        Report::HandFinished { hand, stacks, busts } => match check_finished(state, table, *hand, stacks, busts) {
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
///
/// # Errors
/// The first rule the report breaks.
pub(crate) fn check_started(
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

/// A hand finishes as it started: the hand in play at the table (under hand-for-hand's hold,
/// the one released to it), every player dealt in accounted for once (a survivor with chips, or
/// a bust whose pots add up to its stack at the start and name survivors as winners), and no
/// chip created or lost.
///
/// # Errors
/// The first rule the report breaks.
pub(crate) fn check_finished(
    state: &SeatingState,
    table: u32,
    hand: u64,
    stacks: &[SeatStack],
    busts: &[BustReport],
) -> Result<(), Rejection> {
    let play = &state.play;
    if state.held.contains_key(&table) && play.in_play.get(&table).is_none_or(|h| h.hand != hand) {
        return Err(Rejection::HandNotReleased(hand));
    }
    // A table broken while it dealt still finishes that hand.
    if state.room.table(table).is_none() && !play.in_play.contains_key(&table) {
        return Err(Rejection::UnknownTable(table));
    }
    let expected = play.in_play.get(&table).map(|h| h.hand).unwrap_or(play.last_hand.get(&table).copied().unwrap_or(0) + 1);
    if !play.in_play.contains_key(&table) {
        return Err(Rejection::NotStarted(hand));
    }
    let Some(started) = play.in_play.get(&table).filter(|h| h.hand == hand) else {
        return Err(Rejection::HandOutOfOrder { expected, got: hand });
    };
    let mut accounted: BTreeMap<EntryNo, ()> = BTreeMap::new();
    for s in stacks {
        if !started.stacks.contains_key(&s.entry) {
            return Err(Rejection::UnknownPlayer(s.entry));
        }
        if s.chips == 0 || accounted.insert(s.entry, ()).is_some() {
            return Err(Rejection::Unaccounted(s.entry));
        }
    }
    for b in busts {
        let Some(&start) = started.stacks.get(&b.entry) else { return Err(Rejection::UnknownPlayer(b.entry)) };
        if accounted.insert(b.entry, ()).is_some() {
            return Err(Rejection::Unaccounted(b.entry));
        }
        if b.stack_at_start != start {
            return Err(Rejection::StackMismatch { entry: b.entry, expected: start, got: b.stack_at_start });
        }
        let in_pots: u64 = b.pots.iter().map(|p| p.chips).sum();
        let winners_ok = b.pots.iter().all(|p| !p.winners.is_empty() && p.winners.iter().all(|w| stacks.iter().any(|s| s.entry == *w)));
        if in_pots != start || !winners_ok {
            return Err(Rejection::BustDoesNotAddUp(b.entry));
        }
    }
    if let Some(missing) = started.stacks.keys().find(|e| !accounted.contains_key(e)) {
        return Err(Rejection::Unaccounted(*missing));
    }
    let before: u64 = started.stacks.values().sum();
    let after: u64 = stacks.iter().map(|s| s.chips).sum();
    if before != after {
        return Err(Rejection::ChipsNotConserved { before, after });
    }
    Ok(())
}
