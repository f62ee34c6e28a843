//! Shootouts (issue 37): no table is balanced or broken before it has its winners; a round's
//! winners are drawn afresh onto the next round's tables, with the stacks they won with or the
//! starting stack; the last table plays to a winner.
//!
//! 003 App. 1 b ii: "V turnaji shootout se toto vyvažování nedělá. Dokud u stolu nesedí
//! poslední účastník hazardní hry, zůstává účastník hazardní hry u svého původního stolu."
//! 004 §4.36.3: "Každý zahajující hrací stůl se hraje až do svého uzavření (tedy dokud u něj
//! nezbývá pouze jeden Sázející)."

use super::*;
use crate::commands::SeatingError;
use floor_events::shootouts::{RoundStacks, ShootoutTerms, ShortField};

fn terms(advance: u32, stacks: RoundStacks) -> ShootoutTerms {
    ShootoutTerms { stacks, ..ShootoutTerms::new(advance) }
}

fn round_seed(round: u32) -> Seed {
    seed(10_000 + u64::from(round))
}

/// A shootout configured, its field joined and its first round drawn (the start-of-play draw),
/// every instruction delivered.
fn drawn_shootout(entrants: u32, table_size: u8, terms: ShootoutTerms, run_seed: u64) -> (TournamentId, Floor, Room) {
    let tournament_id = TournamentId(uuid::Uuid::from_u128(u128::from(run_seed) + 1_000));
    let mut floor = Floor { state: SeatingState::default(), log: Vec::new() };
    floor.run(C::Configure {
        tournament_id,
        table_size,
        starting_stack: STACK,
        rebuys: false,
        balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
    });
    floor.run(C::ConfigureShootout { terms });
    let draw_seed = seed(run_seed);
    floor.run(C::CommitDraw { commitment: commitment(&draw_seed) });
    let entries: Vec<(EntryNo, PlayerId)> = (1..=entrants).map(|e| (EntryNo(e), PlayerId::parse(&format!("p{e}")).unwrap())).collect();
    floor.run(C::JoinPool { entries });
    let mut room = Room { tables: BTreeMap::new(), rng: ChaCha8Rng::seed_from_u64(run_seed) };
    let mut stored = floor.run(C::Start { seed: draw_seed, at: at() });
    let mut part = 1;
    while !stored.is_empty() {
        room.deliver(&stored);
        stored = floor.run(C::ContinueDraw { part });
        part += 1;
    }
    // The shootout aggregate's round 1 starts: round 2's seed is committed.
    room.deliver(&floor.run(C::CommitRound { round: 2, commitment: commitment(&round_seed(2)) }));
    (tournament_id, floor, room)
}

fn winners_of(log: &[SeatingEvent], round: u32) -> Vec<EntryNo> {
    let mut winners: Vec<EntryNo> = log
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::TableWon { round: r, winners, .. } if *r == round => Some(winners.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    winners.sort();
    winners
}

/// Plays one table's next step: a hand in play finishes; else every instruction that arrived
/// is applied and a hand starts if it may.
fn step(room: &mut Room, number: u32, tournament_id: TournamentId) -> Vec<TableReport> {
    let table = room.tables.get_mut(&number).expect("table");
    let mut reports = Vec::new();
    if !table.finish_hand(tournament_id, number, &mut room.rng, &mut reports) {
        let arrived = table.inbox.len();
        table.apply(tournament_id, number, arrived, &mut reports);
        table.start_hand(tournament_id, number, &mut reports);
    }
    reports
}

/// Plays the round in progress until every table has its winners (or, the last round, the
/// tournament its winner), checking after each decision that no table was balanced or broken
/// and that a table closes only when it is won.
fn play_round(floor: &mut Floor, room: &mut Room, tournament_id: TournamentId, chips: u64) {
    let round = floor.state.shootout.as_ref().expect("a shootout").round;
    let mut counts: BTreeMap<u32, usize> = floor.state.room.tables().map(|t| (t.number, t.count())).collect();
    for _ in 0..1_000_000u64 {
        let shootout = floor.state.shootout.as_ref().expect("a shootout");
        if floor.state.winner.is_some() || shootout.between_rounds() {
            return;
        }
        let open: Vec<u32> = room.tables.iter().filter(|(_, t)| !t.closed).map(|(&n, _)| n).collect();
        let number = *open.choose(&mut room.rng).expect("an open table while the round is played");
        for report in step(room, number, tournament_id) {
            let events = floor.run(C::Report { report: report.clone(), seed: seed(7) });
            room.deliver(&events);
            for e in &events {
                match e {
                    SeatingEvent::ReportRejected { code, reason, .. } => panic!("round {round}: rejected {code}: {reason}\n{report:?}"),
                    SeatingEvent::PlayerMoved { .. } | SeatingEvent::TableOpened { .. } => {
                        panic!("round {round}: a shootout table was balanced or broken: {e:?}")
                    }
                    SeatingEvent::TableClosed { table } => assert!(
                        events.iter().any(|w| matches!(w, SeatingEvent::TableWon { table: t, .. } if t == table)),
                        "round {round}: table {table} closed before it had its winners"
                    ),
                    _ => {}
                }
            }
            // Every table keeps its players but for the busted: nobody arrives, nobody leaves
            // for another table.
            for table in floor.state.room.tables() {
                let before = counts.get(&table.number).copied().expect("no new table within a round");
                assert!(table.count() <= before, "table {} gained a player", table.number);
                counts.insert(table.number, table.count());
            }
            let held: u64 = floor.state.entries.keys().map(|e| floor.state.play.chips.get(e).copied().unwrap_or(0)).sum();
            assert_eq!(held, chips, "chips are conserved");
        }
    }
    panic!("round {round} did not finish");
}

/// Plays a whole shootout: each round to its winners, the next drawn from them, until the last
/// table has a winner. Returns the log and the entries of each round.
fn shootout(entrants: u32, table_size: u8, terms: ShootoutTerms, run_seed: u64) -> (Vec<SeatingEvent>, SeatingState, Vec<Vec<EntryNo>>) {
    let reset = terms.stacks == RoundStacks::Reset;
    let (tournament_id, mut floor, mut room) = drawn_shootout(entrants, table_size, terms, run_seed);
    let mut rounds = vec![(1..=entrants).map(EntryNo).collect::<Vec<_>>()];
    let mut chips = u64::from(entrants) * STACK;
    loop {
        play_round(&mut floor, &mut room, tournament_id, chips);
        if floor.state.winner.is_some() {
            break;
        }
        let round = floor.state.shootout.as_ref().unwrap().round + 1;
        let mut entries = winners_of(&floor.log, round - 1);
        // Round 2 has the byes too (issue 37, `short_field = "byes"`).
        if round == 2 {
            entries.extend(byes_of(&floor.log));
            entries.sort();
        }
        let events = floor.run(C::DrawRound { round, entries: entries.clone(), seed: round_seed(round), at: at() });
        room.deliver(&events);
        room.deliver(&floor.run(C::CommitRound { round: round + 1, commitment: commitment(&round_seed(round + 1)) }));
        if reset {
            chips = entries.len() as u64 * STACK;
        }
        rounds.push(entries);
    }
    (floor.log, floor.state, rounds)
}

fn byes_of(log: &[SeatingEvent]) -> Vec<EntryNo> {
    log.iter().find_map(|e| if let SeatingEvent::ByesDrawn { entries } = e { Some(entries.clone()) } else { None }).unwrap_or_default()
}

fn tables_drawn(log: &[SeatingEvent]) -> Vec<usize> {
    let first = log.iter().find_map(|e| if let SeatingEvent::TablesDrawn { tables, .. } = e { Some(tables) } else { None }).unwrap();
    first.iter().map(|t| t.seats.len()).collect()
}

/// 004 §4.36.3: "turnaj typu Double Shootout může začít s osmi (8) plnými hracími stoly,
/// dohromady tedy s šedesáti čtyřmi (64) Sázejícími v prvním kole. Každý z těchto hracích stolů
/// bude hrát až do určení jednoho vítěze a osm (8) vítězů se přesune k finálovému hracímu
/// stolu, kde se bude hrát až do určení jednoho konečného vítěze."
#[test]
fn a_64_player_double_shootout_plays_8_tables_of_8_then_a_final_table_of_the_8_winners() {
    let (log, state, rounds) = shootout(64, 8, terms(1, RoundStacks::Carry), 3);
    assert_eq!(tables_drawn(&log), vec![8; 8]);
    assert_eq!(rounds.len(), 2, "a double shootout: two rounds");
    assert_eq!(rounds[1].len(), 8, "one winner per first-round table");
    let finals: Vec<&Vec<floor_events::seating::DrawnTable>> =
        log.iter().filter_map(|e| if let SeatingEvent::RoundDrawn { tables, .. } = e { Some(tables) } else { None }).collect();
    assert_eq!(finals.len(), 1);
    assert_eq!(finals[0].len(), 1, "the final is one table");
    assert_eq!(finals[0][0].table, 9, "numbered after the first round's eight");
    assert_eq!(finals[0][0].seats.len(), 8);
    let winner = state.winner.expect("the final table has a winner");
    assert!(rounds[1].contains(&winner));
    assert_eq!(winners_of(&log, 2), vec![winner], "the final table is won by the tournament's winner");
    assert!(!log.iter().any(|e| matches!(e, SeatingEvent::PlayerMoved { .. })), "no player is ever moved to balance");
    let eliminated = log.iter().filter(|e| matches!(e, SeatingEvent::EntryEliminated { .. })).count();
    assert_eq!(eliminated, 63);
}

/// 004 §4.36.3: "Pokud nebude Shootout plně obsazen, některé hrací stoly v prvním kole mohou
/// mít více Sázejících než jiné." 20 players on 9-max tables: three tables of 7, 7 and 6, each
/// played to its winner, then a final table of three.
#[test]
fn a_short_field_plays_uneven_first_round_tables() {
    let (log, state, rounds) = shootout(20, 9, terms(1, RoundStacks::Carry), 11);
    let mut sizes = tables_drawn(&log);
    sizes.sort();
    assert_eq!(sizes, vec![6, 7, 7]);
    assert_eq!(rounds.iter().map(Vec::len).collect::<Vec<_>>(), vec![20, 3]);
    assert!(state.winner.is_some());
}

/// "advance: 2": each table plays until two are left; both go on.
#[test]
fn advance_two_sends_two_players_from_each_table() {
    let (log, state, rounds) = shootout(36, 6, terms(2, RoundStacks::Carry), 5);
    assert_eq!(tables_drawn(&log), vec![6; 6]);
    let won: Vec<usize> = log
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::TableWon { round: 1, winners, .. } => Some(winners.len()),
            _ => None,
        })
        .collect();
    assert_eq!(won.len(), 6);
    assert!(won.iter().all(|&w| w <= 2), "{won:?}");
    assert_eq!(rounds[1].len(), won.iter().sum::<usize>());
    assert!(state.winner.is_some());
}

/// A round is held until its last table finishes: while one table of round 1 still plays, the
/// round-2 draw is refused and nothing is drawn.
#[test]
fn a_round_is_held_until_its_last_table_has_its_winner() {
    let (tournament_id, mut floor, mut room) = drawn_shootout(18, 9, terms(1, RoundStacks::Carry), 9);
    // Play only table 1 to its winner.
    for _ in 0..100_000 {
        if floor.state.shootout.as_ref().unwrap().won.contains(&1) {
            break;
        }
        for report in step(&mut room, 1, tournament_id) {
            let events = floor.run(C::Report { report, seed: seed(1) });
            room.deliver(&events);
        }
    }
    let shootout = floor.state.shootout.clone().unwrap();
    assert_eq!(shootout.won.iter().copied().collect::<Vec<_>>(), vec![1]);
    assert!(!shootout.between_rounds());
    assert_eq!(floor.state.room.table(2).map(|t| t.count()), Some(9), "table 2 plays on, untouched");
    let winner = winners_of(&floor.log, 1);
    let refused =
        SeatingAggregate::handle_command(&floor.state, C::DrawRound { round: 2, entries: winner.clone(), seed: round_seed(2), at: at() });
    assert_eq!(refused, Err(SeatingError::RoundNotOver { round: 2, playing: 1 }));
}

fn seat_stacks(events: &[SeatingEvent]) -> BTreeMap<EntryNo, u64> {
    events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Instructed { instruction } => match &instruction.instruction {
                Instruction::SeatPlayer { entry, stack, .. } => Some((*entry, *stack)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The round-2 draw seats exactly the advancing entries, each once, at new tables, with the
/// stacks they won their tables with (carry) or the starting stack (reset); a seed other than
/// the committed one, or an entry that did not win its table, is refused.
#[test]
fn a_round_two_draw_seats_exactly_the_winners_with_their_stacks_carried_or_reset() {
    for stacks in [RoundStacks::Carry, RoundStacks::Reset] {
        let (tournament_id, mut floor, mut room) = drawn_shootout(27, 9, terms(1, stacks), 21);
        play_round(&mut floor, &mut room, tournament_id, 27 * STACK);
        let winners = winners_of(&floor.log, 1);
        assert_eq!(winners.len(), 3);
        let won_with: BTreeMap<EntryNo, u64> = winners.iter().map(|e| (*e, floor.state.play.chips[e])).collect();
        assert_eq!(won_with.values().sum::<u64>(), 27 * STACK, "each winner holds their table's chips");

        let mismatch = SeatingAggregate::handle_command(
            &floor.state,
            C::DrawRound { round: 2, entries: winners.clone(), seed: round_seed(99), at: at() },
        );
        assert_eq!(mismatch, Err(SeatingError::SeedMismatch), "the committed seed only");
        let loser = (1..=27).map(EntryNo).find(|e| !winners.contains(e)).unwrap();
        let mut with_loser = winners.clone();
        with_loser.push(loser);
        let stranger =
            SeatingAggregate::handle_command(&floor.state, C::DrawRound { round: 2, entries: with_loser, seed: round_seed(2), at: at() });
        assert_eq!(stranger, Err(SeatingError::NotAWinner(loser)));

        let events = floor.run(C::DrawRound { round: 2, entries: winners.clone(), seed: round_seed(2), at: at() });
        let Some(SeatingEvent::RoundDrawn { round: 2, seed: revealed, tables, .. }) = events.first() else { panic!("{events:?}") };
        assert_eq!(floor_runtime::encoding::hex(&round_seed(2)), *revealed, "the seed is revealed");
        let seated: Vec<EntryNo> = {
            let mut s: Vec<EntryNo> = tables.iter().flat_map(|t| t.seats.iter().map(|s| s.entry)).collect();
            s.sort();
            s
        };
        assert_eq!(seated, winners, "exactly the advancing entries, each once");
        assert_eq!(tables.iter().map(|t| t.table).collect::<Vec<_>>(), vec![4], "a new table after the first round's three");
        let given = seat_stacks(&events);
        match stacks {
            RoundStacks::Carry => assert_eq!(given, won_with, "stacks carried"),
            RoundStacks::Reset => assert!(given.len() == 3 && given.values().all(|&s| s == STACK), "stacks reset: {given:?}"),
        }
        // The blinds in force go to the new table with its opening.
        assert!(events.iter().any(|e| matches!(e, SeatingEvent::Instructed { instruction } if instruction.table == 4 && matches!(instruction.instruction, Instruction::OpenTable { seats: 9 }))));
        // A replay of the round's start draws nothing more.
        assert_eq!(
            SeatingAggregate::handle_command(&floor.state, C::DrawRound { round: 2, entries: winners, seed: round_seed(2), at: at() }),
            Ok(vec![])
        );
    }
}

/// A tournament that is no shootout is balanced as before, and refuses a round's draw.
#[test]
fn a_tournament_that_is_no_shootout_has_no_rounds() {
    let (_, floor, _) = drawn(20, 9, 4, false);
    assert!(floor.state.shootout.is_none());
    assert!(!floor.state.rules().shootout);
    let refused = SeatingAggregate::handle_command(&floor.state, C::DrawRound { round: 2, entries: vec![], seed: seed(1), at: at() });
    assert_eq!(refused, Err(SeatingError::NotAShootout));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Any field, table size, advance and stacks: no table is ever balanced or broken before it
    /// has its winners (checked after every decision), each round's entries are the winners of
    /// the round before, and the last table has one winner.
    #[test]
    fn no_shootout_table_is_balanced_or_broken_before_it_has_its_winners(
        entrants in 4u32..48,
        table_size in 3u8..=9,
        advance_pick in 0u32..8,
        reset in any::<bool>(),
        byes in any::<bool>(),
        run_seed in 0u64..1_000,
    ) {
        let advance = 1 + advance_pick % u32::from(table_size - 1);
        let stacks = if reset { RoundStacks::Reset } else { RoundStacks::Carry };
        let short_field = if byes { ShortField::Byes } else { ShortField::Uneven };
        let (log, state, rounds) = shootout(entrants, table_size, ShootoutTerms { short_field, ..terms(advance, stacks) }, run_seed);
        prop_assert!(state.winner.is_some());
        // Every entrant either plays a first-round table or has a bye, never both.
        let byes = byes_of(&log);
        let mut seated: Vec<EntryNo> = log
            .iter()
            .filter_map(|e| if let SeatingEvent::TablesDrawn { tables, .. } = e { Some(tables.clone()) } else { None })
            .flatten()
            .flat_map(|t| t.seats.into_iter().map(|s| s.entry))
            .collect();
        prop_assert_eq!(byes.len() as u32, if byes.is_empty() { 0 } else { floor_events::shootouts::byes(entrants, table_size) });
        seated.extend(&byes);
        seated.sort();
        prop_assert_eq!(seated, rounds[0].clone());
        for (r, entries) in rounds.iter().enumerate().skip(1) {
            let mut winners = winners_of(&log, r as u32);
            if r == 1 {
                winners.extend(&byes);
                winners.sort();
            }
            prop_assert_eq!(entries, &winners);
        }
        let moved = log.iter().any(|e| matches!(e, SeatingEvent::PlayerMoved { .. }));
        prop_assert!(!moved, "a shootout moved a player");
    }
}

/// A table the draw gives no more players than `advance` plays until one of them is out, so
/// every round is smaller than the one before: 10 players on 9-max tables with `advance: 8`
/// are two tables of five, each played down to four, then a final table of eight.
#[test]
fn a_table_drawn_with_no_more_players_than_advance_plays_until_one_is_out() {
    let (log, state, rounds) = shootout(10, 9, terms(8, RoundStacks::Carry), 13);
    assert_eq!(tables_drawn(&log), vec![5, 5]);
    let sizes: Vec<usize> = rounds.iter().map(Vec::len).collect();
    assert!(sizes[1] <= 8 && sizes.len() == 2, "{sizes:?}");
    assert!(state.winner.is_some());
}

/// A round after the first is drawn in one commit: more tables than one holds is refused.
#[test]
fn a_round_too_large_for_one_commit_is_refused() {
    let (tournament_id, mut floor, mut room) = drawn_shootout(804, 2, terms(1, RoundStacks::Carry), 17);
    play_round(&mut floor, &mut room, tournament_id, 804 * STACK);
    let winners = winners_of(&floor.log, 1);
    assert_eq!(winners.len(), 402);
    let refused =
        SeatingAggregate::handle_command(&floor.state, C::DrawRound { round: 2, entries: winners, seed: round_seed(2), at: at() });
    assert_eq!(refused, Err(SeatingError::RoundTooLarge(201)));
}

/// `short_field = "byes"` (issue 37): 20 players at 9-max are two full tables of nine and two
/// byes, drawn with the start-of-play draw's committed seed (recomputed here from the revealed
/// seed); the byes sit at no table and join the two table winners in round 2, a final table
/// of four, with the starting stack.
#[test]
fn byes_go_straight_to_round_two_drawn_with_the_committed_seed() {
    let terms = ShootoutTerms { short_field: ShortField::Byes, ..terms(1, RoundStacks::Carry) };
    let (log, state, rounds) = shootout(20, 9, terms, 31);
    assert_eq!(tables_drawn(&log), vec![9, 9], "full tables");
    let byes = byes_of(&log);
    let field: Vec<EntryNo> = (1..=20).map(EntryNo).collect();
    let (expected, _) = crate::domain::draw_byes(&field, 2, &seed(31));
    assert_eq!(byes, expected, "the byes are recomputed from the revealed seed");
    let position = |f: &dyn Fn(&SeatingEvent) -> bool| log.iter().position(f).unwrap();
    assert!(
        position(&|e| matches!(e, SeatingEvent::ByesDrawn { .. })) < position(&|e| matches!(e, SeatingEvent::TablesDrawn { .. })),
        "recorded with the draw, before its tables"
    );
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[1].len(), 4, "two winners and two byes");
    assert!(byes.iter().all(|b| rounds[1].contains(b)));
    let round_two = log.iter().position(|e| matches!(e, SeatingEvent::RoundDrawn { .. })).unwrap();
    let stacks = seat_stacks(&log[round_two..]);
    assert!(byes.iter().all(|b| stacks[b] == STACK), "a bye starts round 2 with the starting stack: {stacks:?}");
    assert!(state.winner.is_some());
}

/// A field that fills its tables has no byes; one table and byes is not the last round: its
/// table is won and closed at one player, and the byes join its winner.
#[test]
fn a_single_first_round_table_with_byes_leads_on_to_round_two() {
    let terms = ShootoutTerms { short_field: ShortField::Byes, ..terms(1, RoundStacks::Carry) };
    let (log, _, rounds) = shootout(18, 9, terms.clone(), 5);
    assert!(byes_of(&log).is_empty());
    assert_eq!(rounds.iter().map(Vec::len).collect::<Vec<_>>(), vec![18, 2]);
    let (log, state, rounds) = shootout(12, 9, terms, 6);
    assert_eq!(tables_drawn(&log), vec![9]);
    assert_eq!(byes_of(&log).len(), 3);
    assert_eq!(rounds.iter().map(Vec::len).collect::<Vec<_>>(), vec![12, 4]);
    assert!(state.winner.is_some());
}
