//! How entries get their first seat: the pool before the start, the start-of-play draw (in
//! parts when it is large), and late entries seated one at a time.

use super::*;

/// Has this entry joined before (it may have left or been eliminated since)? Every live entry
/// joined, so it is at or below the highest.
fn joined_before(state: &SeatingState, entry: EntryNo) -> bool {
    state.highest_joined.is_some_and(|highest| entry <= highest)
}

pub(super) fn join_pool(state: &SeatingState, entries: Vec<(EntryNo, PlayerId)>) -> Result<Vec<SeatingEvent>, SeatingError> {
    if state.started {
        return Err(SeatingError::AlreadyStarted);
    }
    // The highest so far, this pool's entries included (a pool may repeat an entry).
    let mut highest = state.highest_joined;
    let mut events = Vec::with_capacity(entries.len());
    for (entry, player) in entries {
        if highest.is_some_and(|h| entry <= h) {
            continue;
        }
        highest = Some(entry);
        events.push(SeatingEvent::EntryJoined { entry, player, stack: state.starting_stack });
    }
    Ok(events)
}

/// A flight's carried entry (issue 36): joins before the draw with its carried stack, again
/// when its stack changed (the fold keeps the last); nothing when it holds that stack already.
pub(super) fn join_carried(state: &SeatingState, entry: EntryNo, player: PlayerId, stack: u64) -> Result<Vec<SeatingEvent>, SeatingError> {
    if state.started {
        return Err(SeatingError::AlreadyStarted);
    }
    if state.entries.contains_key(&entry) && state.play.chips.get(&entry) == Some(&stack) {
        return Ok(vec![]);
    }
    Ok(vec![SeatingEvent::EntryJoined { entry, player, stack }])
}

pub(super) fn join(state: &SeatingState, entry: EntryNo, player: PlayerId, stack: u64, seed: &Seed) -> Vec<SeatingEvent> {
    if joined_before(state, entry) {
        return vec![];
    }
    let mut out = Outbox::new(state);
    out.push(SeatingEvent::EntryJoined { entry, player: player.clone(), stack });
    if !state.started {
        return out.events;
    }
    // Late registration or re-entry (TDA 2024 R8-A: "from the same seat pool, by the same
    // process, as new players"): a random open seat at a table the balancing rule lets take one
    // more player (`draw::late_seat`, its seed revealed in the event); a new table when every
    // table is full (balancing fills it from the others).
    let size = state.table_size;
    let allowed = crate::balancing::allowed(state.rules().when);
    let (table, seat, wait_for_button, drawn_with) = match crate::draw::late_seat(&state.room, allowed, seed) {
        Some((table, seat)) => {
            let wait = state.room.table(table).is_some_and(|t| !t.may_seat(seat));
            (table, seat, wait, Some(hex(seed)))
        }
        None => {
            // Past every table of the draw too, some of which may not be stored yet.
            let last = state.room.last_number().into_iter().chain(state.closing.iter().copied()).max().unwrap_or(0);
            let number = last.max(state.draw_total) + 1;
            out.push(SeatingEvent::TableOpened { table: number, seats: size });
            out.open_table(number, size);
            (number, 0, false, None)
        }
    };
    out.push(SeatingEvent::EntrySeated { entry, table, seat: seat_no(seat), wait_for_button, seed: drawn_with });
    out.instruct(table, Instruction::SeatPlayer { entry, player, seat: seat_no(seat), stack, wait_for_button });
    out.events
}

/// Tables per part of a large draw: each part is one commit, and a NATS message holds at most
/// 1 MiB (a seated player's instruction is about 300 bytes).
pub const DRAW_PART: usize = 100;

pub(super) fn start(state: &SeatingState, seed: Seed, at: DateTime<Utc>) -> Result<Vec<SeatingEvent>, SeatingError> {
    if state.started {
        return Err(SeatingError::AlreadyStarted);
    }
    if state.commitment.as_ref().is_some_and(|c| *c != hex(&commitment(&seed))) {
        return Err(SeatingError::SeedMismatch);
    }
    if state.entries.len() < 2 {
        return Err(SeatingError::TooFewEntries(state.entries.len()));
    }
    let entries: Vec<EntryNo> = state.entries.keys().copied().collect();
    Ok(draw_part(state, &entries, seed, 0, at))
}

/// The next part of a draw too large for one commit.
pub(super) fn continue_draw(state: &SeatingState) -> Vec<SeatingEvent> {
    let Some(seed) = state.draw_seed else { return vec![] };
    if state.drawn_tables >= state.draw_total {
        return vec![];
    }
    draw_part(state, &state.draw_entries, seed, state.drawn_tables as usize, state.draw_at.unwrap_or_default())
}

/// Tables `from..from + DRAW_PART` of the draw of `entries` with `seed`, with their
/// instructions. The whole draw is recomputed for each part: it depends on every entry.
fn draw_part(state: &SeatingState, entries: &[EntryNo], seed: Seed, from: usize, at: DateTime<Utc>) -> Vec<SeatingEvent> {
    let size = state.table_size;
    // A shootout's byes (issue 37) are drawn first and play no first-round table.
    let (byes, playing) = super::shootout::split_byes(state, entries, &seed);
    let tables = initial_seating(&playing, usize::from(size), &seed);
    let part = &tables[from.min(tables.len())..(from + DRAW_PART).min(tables.len())];
    let mut out = Outbox::new(state);
    if from == 0 && !byes.is_empty() {
        out.push(SeatingEvent::ByesDrawn { entries: byes.clone() });
    }
    let drawn = part
        .iter()
        .map(|t| DrawnTable {
            table: t.number,
            seats: t.occupied().map(|(s, o)| SeatedEntry { seat: seat_no(s), entry: o.entry }).collect(),
        })
        .collect();
    out.push(SeatingEvent::TablesDrawn { seed: hex(&seed), total_tables: tables.len() as u32, tables: drawn, at });
    for table in part {
        out.open_table(table.number, size);
        for (seat, occupant) in table.occupied() {
            out.seat(table.number, occupant.entry, seat, false);
        }
    }
    // A shootout's first round (issue 37): a table drawn with no more players than advance
    // from it is won at once.
    if let (Some(shootout), true) = (&state.shootout, tables.len() > 1 || !byes.is_empty()) {
        for table in part {
            super::shootout::won_at_draw(shootout.advance, 1, table.number, table, &mut out);
        }
    }
    out.events
}

#[cfg(test)]
mod flight_tests {
    use super::super::{SeatingAggregate, SeatingCommand as C};
    use super::*;
    use crate::draw::commitment;
    use esrs::Aggregate;
    use floor_events::table::Instruction;

    fn run(state: SeatingState, command: C) -> (SeatingState, Vec<SeatingEvent>) {
        let events = SeatingAggregate::handle_command(&state, command).expect("accepted");
        let state = events.iter().cloned().fold(state, SeatingAggregate::apply_event);
        (state, events)
    }

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    /// Issue 36 (004 §4.36.11–13): given a Day 2 (starting stack 10,000), when two Day 1
    /// survivors are carried in with 30,000 and 12,000, one of them later with a larger stack
    /// (best stack forward: 50,000), then the Day 2's own committed draw seats them with their
    /// carried stacks, not the starting stack; a carry after the draw is refused.
    #[test]
    fn carried_entries_are_drawn_with_their_stacks() {
        let configure = C::Configure {
            tournament_id: floor_events::TournamentId::new(),
            table_size: 9,
            starting_stack: 10_000,
            rebuys: false,
            balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
        };
        let (state, _) = run(SeatingState::default(), configure);
        let seed = [7u8; 32];
        let (state, _) = run(state, C::CommitDraw { commitment: commitment(&seed) });
        let (state, _) = run(state, C::JoinCarried { entry: EntryNo(1), player: p("ana"), stack: 30_000 });
        let (state, _) = run(state, C::JoinCarried { entry: EntryNo(2), player: p("bo"), stack: 12_000 });
        let (state, events) = run(state, C::JoinCarried { entry: EntryNo(1), player: p("ana"), stack: 50_000 });
        assert_eq!(events, vec![SeatingEvent::EntryJoined { entry: EntryNo(1), player: p("ana"), stack: 50_000 }]);
        let (state, again) = run(state, C::JoinCarried { entry: EntryNo(1), player: p("ana"), stack: 50_000 });
        assert!(again.is_empty(), "the same stack again stores nothing");
        let (state, drawn) = run(state, C::Start { seed, at: "2027-01-10T18:00:00Z".parse().unwrap() });
        let seated: Vec<(EntryNo, u64)> = drawn
            .iter()
            .filter_map(|e| match e {
                SeatingEvent::Instructed { instruction } => match &instruction.instruction {
                    Instruction::SeatPlayer { entry, stack, .. } => Some((*entry, *stack)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let mut seated = seated;
        seated.sort();
        assert_eq!(seated, vec![(EntryNo(1), 50_000), (EntryNo(2), 12_000)]);
        let refused = SeatingAggregate::handle_command(&state, C::JoinCarried { entry: EntryNo(3), player: p("cy"), stack: 1 });
        assert!(matches!(refused, Err(SeatingError::AlreadyStarted)), "{refused:?}");
    }
}
