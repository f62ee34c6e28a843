//! The clock at the tables (spec §4; TDA 2024 RP-7): a break, the push hold before a level
//! change or break, and a director's pause of the clock reach every open table as numbered
//! instructions, a part at a time ([`TABLES_PER_COMMIT`]), like a level's `blinds`.

use super::*;

/// `instruction` ([`Instruction::from_clock`]) to the open tables not told it yet; a
/// `clock_resumed` only to the tables told `clock_paused` (and not resumed since). Nothing left
/// to tell: nothing.
pub(super) fn to_tables(state: &SeatingState, instruction: Instruction) -> Vec<SeatingEvent> {
    if !instruction.from_clock() || !state.started {
        return vec![];
    }
    let resumed = matches!(instruction, Instruction::ClockResumed { .. });
    let due = |table: &u32| match state.clock_told.get(table) {
        Some(told) if *told == instruction => false,
        told => !resumed || matches!(told, Some(Instruction::ClockPaused { .. })),
    };
    let mut tables: Vec<u32> = state.room.tables().map(|t| t.number).filter(due).collect();
    tables.sort_unstable();
    tables.truncate(TABLES_PER_COMMIT);
    let mut out = Outbox::new(state);
    for table in tables {
        out.instruct(table, instruction.clone());
    }
    out.events
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::profile::SeatingRules;

    fn run(state: &mut SeatingState, command: SeatingCommand) -> Vec<SeatingEvent> {
        let events = SeatingAggregate::handle_command(state, command).expect("accepted");
        for event in events.clone() {
            *state = SeatingAggregate::apply_event(std::mem::take(state), event);
        }
        events
    }

    fn told(events: &[SeatingEvent]) -> Vec<(u32, Instruction)> {
        events
            .iter()
            .filter_map(|e| {
                if let SeatingEvent::Instructed { instruction } = e {
                    Some((instruction.table, instruction.instruction.clone()))
                } else {
                    None
                }
            })
            .collect()
    }

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp(1_800_000_000 + seconds, 0).unwrap()
    }

    /// 20 players on three 9-handed tables, in play.
    fn in_play() -> SeatingState {
        let mut state = SeatingState::default();
        let tournament_id = TournamentId(uuid::Uuid::from_u128(7));
        let balancing = SeatingRules::WITHIN_ONE;
        run(&mut state, SeatingCommand::Configure { tournament_id, table_size: 9, starting_stack: 1_000, rebuys: false, balancing });
        for e in 1..=20 {
            run(&mut state, SeatingCommand::Join { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap(), seed: [0; 32] });
        }
        run(&mut state, SeatingCommand::Start { seed: [1; 32], at: at(0) });
        state
    }

    /// TDA 2024 RP-7 ("dealers hold the push 90 s before a scheduled break or level change")
    /// and spec §4 (breaks): given three tables in play, when the clock holds the push, then
    /// every table is told `hold_push` once (a repeated command tells nobody); when the break
    /// starts, every table is told `take_break`, and a table opened during the break (a late
    /// entry with every table full is not needed: any table opening) is told it after its
    /// `open_table`; when the next level's blinds come, the break is over for tables that open
    /// later.
    #[test]
    fn tda_rp_7_the_push_hold_and_a_break_reach_every_table() {
        let mut state = in_play();
        let hold = Instruction::HoldPush { until: at(600) };
        let held = run(&mut state, SeatingCommand::Clock { instruction: hold.clone() });
        assert_eq!(told(&held), vec![(1, hold.clone()), (2, hold.clone()), (3, hold.clone())]);
        assert!(run(&mut state, SeatingCommand::Clock { instruction: hold }).is_empty(), "told once");
        let pause = Instruction::TakeBreak { number: 1, ends_at: at(1_500) };
        let on_break = run(&mut state, SeatingCommand::Clock { instruction: pause.clone() });
        assert_eq!(told(&on_break), vec![(1, pause.clone()), (2, pause.clone()), (3, pause.clone())]);
        let mut out = Outbox::new(&state);
        out.open_table(4, 9);
        assert_eq!(told(&out.events).last(), Some(&(4, pause)), "a table opened during the break takes it too");
        run(&mut state, SeatingCommand::Blinds { level: 2, small_blind: 50, big_blind: 100, ante: 0, big_blind_ante: true });
        assert_eq!(state.clock, None, "the level after the break ends it");
    }

    /// Spec §4 ("pause/resume by the director"): given three tables, when the director pauses
    /// the clock, then every table is told `clock_paused` with the reason; when the clock
    /// resumes, `clock_resumed` goes to those tables and to no table that never heard the pause.
    #[test]
    fn a_director_s_pause_of_the_clock_reaches_every_table_and_its_resume_follows() {
        let mut state = in_play();
        let resumed = Instruction::ClockResumed { ends_at: at(900) };
        assert!(run(&mut state, SeatingCommand::Clock { instruction: resumed.clone() }).is_empty(), "no table was paused");
        let paused = Instruction::ClockPaused { reason: "floor decision at table 2".into(), remaining_ms: 300_000 };
        let events = run(&mut state, SeatingCommand::Clock { instruction: paused.clone() });
        assert_eq!(told(&events).len(), 3);
        assert!(told(&events).iter().all(|(_, i)| *i == paused));
        let events = run(&mut state, SeatingCommand::Clock { instruction: resumed.clone() });
        assert_eq!(told(&events), vec![(1, resumed.clone()), (2, resumed.clone()), (3, resumed)]);
        assert_eq!(state.clock, None);
    }
}
