//! Tables stopped by another service: hand-for-hand's hold (the bubble), a suspension's pause
//! and a cancellation's close (abort), and a satellite's shared finish (registration, issue 36). Both are instructions numbered in each table's sequence; one `resume` ends
//! both at a table (the table protocol), so each side sends again what the other still needs.

use super::*;

/// Hand-for-hand's instructions (see [`SeatingCommand::HandForHand`]). A `resume` that ends
/// the hold at a table paused by a suspension is followed by its `pause` again: the tournament
/// is still suspended.
pub(super) fn hand_for_hand(state: &SeatingState, instruction: Instruction, tables: &[u32]) -> Vec<SeatingEvent> {
    let mut to: Vec<u32> = match instruction {
        Instruction::HoldForDeal => state.room.tables().map(|t| t.number).filter(|t| !state.held.contains_key(t)).collect(),
        // Not told this hand yet (an earlier part of the same release told the others).
        Instruction::DealHand { hand } => tables
            .iter()
            .copied()
            .filter(|t| state.room.table(*t).is_some() && state.held.get(t).is_none_or(|h| h.last_hand < hand))
            .collect(),
        Instruction::Resume => state.held.keys().copied().collect(),
        _ => vec![],
    };
    to.sort_unstable();
    to.dedup();
    to.truncate(TABLES_PER_COMMIT);
    let mut out = Outbox::new(state);
    for table in to {
        out.instruct(table, instruction.clone());
        if let (Instruction::Resume, true, Some(reason)) = (&instruction, state.paused.contains(&table), &state.suspended) {
            out.instruct(table, Instruction::Pause { reason: reason.clone() });
        }
    }
    out.events
}

/// The tournament is suspended: `pause {reason}` to every open table not paused yet. Each
/// finishes its hand in progress and deals no more until `resume`. Suspended already: nothing.
pub(super) fn suspend(state: &SeatingState, reason: String) -> Vec<SeatingEvent> {
    let mut tables: Vec<u32> = state.room.tables().map(|t| t.number).filter(|t| !state.paused.contains(t)).collect();
    tables.sort_unstable();
    tables.truncate(TABLES_PER_COMMIT);
    let mut out = Outbox::new(state);
    for table in tables {
        out.instruct(table, Instruction::Pause { reason: reason.clone() });
    }
    out.events
}

/// Play resumes: `resume` to every paused table. A table under hand-for-hand's hold is held
/// again at once (`resume` ended the hold too) and sent again the `deal_hand`s it has not
/// dealt, with their hand numbers.
pub(super) fn resume_play(state: &SeatingState) -> Vec<SeatingEvent> {
    let mut tables: Vec<u32> = state.paused.iter().copied().filter(|t| state.room.table(*t).is_some()).collect();
    tables.sort_unstable();
    tables.truncate(TABLES_PER_COMMIT);
    let mut out = Outbox::new(state);
    for table in tables {
        out.instruct(table, Instruction::Resume);
        if let Some(held) = state.held.get(&table) {
            out.instruct(table, Instruction::HoldForDeal);
            if held.credits > 0 {
                let first = held.last_hand.saturating_add(1).saturating_sub(u64::from(held.credits));
                for hand in first..=held.last_hand {
                    out.instruct(table, Instruction::DealHand { hand });
                }
            }
        }
    }
    out.events
}

/// Play is over without a winner: cancelled in play (abort), or a satellite stopped with as many
/// entries left as seats (issue 36: registration's `tournament_finished` with `shared_by`).
/// Every open table is closed (`table_closed`, and `close_table` numbered in its sequence);
/// hand reports after it are refused (`tournament_finished`, [`SeatingState::over`]). Nothing
/// open: nothing.
pub(super) fn close_tables(state: &SeatingState) -> Vec<SeatingEvent> {
    let mut tables: Vec<u32> = state.room.tables().map(|t| t.number).collect();
    tables.sort_unstable();
    tables.truncate(TABLES_PER_COMMIT);
    let mut out = Outbox::new(state);
    for table in tables {
        out.push(SeatingEvent::TableClosed { table });
        out.instruct(table, Instruction::CloseTable);
    }
    out.events
}
