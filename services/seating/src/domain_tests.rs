//! The seating aggregate against simulated table servers that follow the protocol, with the
//! races a real room has: instructions that arrive late, tables mid-hand when a move or a break
//! is decided, several players busting in one hand. A well-behaved table server must never see
//! a report rejected, the tables stay balanced, no chip or player is lost, and one player wins.

use crate::domain::{SeatingAggregate, SeatingCommand as C, SeatingState};
use crate::draw::{commitment, Seed};
use crate::simulated::SimTable;
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::seating::SeatingEvent;
use floor_events::table::{Instruction, Report, SeatNo, SeatStack, TableReport};
use floor_events::{codes, EntryNo, PlayerId, TournamentId};
use proptest::prelude::*;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashSet};

const STACK: u64 = 1_000;

mod hand_for_hand;
mod holds;
mod shootout;

fn at() -> DateTime<Utc> {
    "2027-01-10T18:00:00Z".parse().unwrap()
}

/// The aggregate and its log.
struct Floor {
    state: SeatingState,
    log: Vec<SeatingEvent>,
}

impl Floor {
    fn run(&mut self, command: C) -> Vec<SeatingEvent> {
        let events = SeatingAggregate::handle_command(&self.state, command).expect("accepted");
        for e in &events {
            self.state = SeatingAggregate::apply_event(std::mem::take(&mut self.state), e.clone());
        }
        self.log.extend(events.iter().cloned());
        events
    }
}

struct Room {
    tables: BTreeMap<u32, SimTable>,
    rng: ChaCha8Rng,
}

impl Room {
    fn deliver(&mut self, events: &[SeatingEvent]) {
        for e in events {
            if let SeatingEvent::Instructed { instruction } = e {
                self.tables.entry(instruction.table).or_default().receive(instruction.clone());
            }
        }
    }

    /// One step at one table: between hands, apply some of what has arrived (the rest is still
    /// on the wire) and start a hand; in a hand, finish it.
    fn step(&mut self, number: u32, tournament_id: TournamentId) -> Vec<TableReport> {
        let table = self.tables.get_mut(&number).expect("table");
        let mut reports = Vec::new();
        if !table.finish_hand(tournament_id, number, &mut self.rng, &mut reports) {
            let arrived = self.rng.random_range(0..=table.inbox.len());
            table.apply(tournament_id, number, arrived, &mut reports);
            table.start_hand(tournament_id, number, &mut reports);
        }
        reports
    }
}

fn seed(n: u64) -> Seed {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s
}

/// Plays a whole tournament; returns the log and the winner.
fn tournament(entrants: u32, table_size: u8, run_seed: u64) -> (Vec<SeatingEvent>, SeatingState) {
    play(entrants, table_size, run_seed, None)
}

/// Rebuys while a tournament plays: a stack at zero keeps its seat until its player decides,
/// some steps later (the tables deal on meanwhile); up to two rebuys per entry; the period ends
/// after `steps` steps and the players still deciding are out.
struct RebuyPeriod {
    steps: u64,
}

/// `entrants` drawn at tables of `table_size` (the draw in as many parts as it takes), each
/// table with its instructions delivered and none applied yet.
fn drawn(entrants: u32, table_size: u8, run_seed: u64, rebuys: bool) -> (TournamentId, Floor, Room) {
    let tournament_id = TournamentId(uuid::Uuid::from_u128(u128::from(run_seed)));
    let mut floor = Floor { state: SeatingState::default(), log: Vec::new() };
    floor.run(C::Configure {
        tournament_id,
        table_size,
        starting_stack: STACK,
        rebuys,
        balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
    });
    let draw_seed = seed(run_seed);
    floor.run(C::CommitDraw { commitment: commitment(&draw_seed) });
    // As the policy sends them: registrations gathered into pools.
    let entries: Vec<(EntryNo, PlayerId)> = (1..=entrants).map(|e| (EntryNo(e), PlayerId::parse(&format!("p{e}")).unwrap())).collect();
    for pool in entries.chunks(50) {
        floor.run(C::JoinPool { entries: pool.to_vec() });
    }
    let mut room = Room { tables: BTreeMap::new(), rng: ChaCha8Rng::seed_from_u64(run_seed) };
    let mut stored = floor.run(C::Start { seed: draw_seed, at: at() });
    let mut part = 1;
    while !stored.is_empty() {
        room.deliver(&stored);
        stored = floor.run(C::ContinueDraw { part });
        part += 1;
    }
    assert_eq!(floor.state.room.players(), entrants as usize, "the draw, in however many parts, seats everyone");
    (tournament_id, floor, room)
}

fn play(entrants: u32, table_size: u8, run_seed: u64, rebuys: Option<RebuyPeriod>) -> (Vec<SeatingEvent>, SeatingState) {
    let (tournament_id, mut floor, mut room) = drawn(entrants, table_size, run_seed, rebuys.is_some());
    let mut decisions = 0u64;
    let mut chips_in_play = u64::from(entrants) * STACK;
    let mut deciding: Vec<EntryNo> = Vec::new();
    let mut rebought: BTreeMap<EntryNo, u32> = BTreeMap::new();
    let mut period_open = rebuys.is_some();
    for step in 0..2_000_000u64 {
        if floor.state.winner.is_some() {
            break;
        }
        // A player at zero decides, now or some steps later; the period ends after its steps.
        let ending = period_open && rebuys.as_ref().is_some_and(|r| step >= r.steps);
        if ending || (!deciding.is_empty() && room.rng.random_bool(0.3)) {
            if ending {
                period_open = false;
                let events = floor.run(C::EndRebuys);
                assert_eq!(events, vec![SeatingEvent::RebuysEnded]);
            }
            let decide: Vec<EntryNo> = if ending { std::mem::take(&mut deciding) } else { vec![deciding.remove(0)] };
            for entry in decide {
                let taken = rebought.entry(entry).or_default();
                let command = if !ending && *taken < 2 && room.rng.random_bool(0.7) {
                    *taken += 1;
                    chips_in_play += STACK;
                    C::AddChips { entry, chips: STACK }
                } else {
                    decisions += 1;
                    C::Eliminate { entry, seed: seed(decisions) }
                };
                let events = floor.run(command);
                room.deliver(&events);
                check(&floor.state, chips_in_play, &events);
            }
        }
        let open: Vec<u32> = room.tables.iter().filter(|(_, t)| !t.closed).map(|(&n, _)| n).collect();
        assert!(!open.is_empty(), "tables left while no winner");
        let number = *open.choose(&mut room.rng).expect("a table");
        for report in room.step(number, tournament_id) {
            decisions += 1;
            let events = floor.run(C::Report { report: report.clone(), seed: seed(decisions) });
            if let Some(SeatingEvent::ReportRejected { code, reason, .. }) =
                events.iter().find(|e| matches!(e, SeatingEvent::ReportRejected { .. }))
            {
                panic!("step {step}: a well-behaved table was rejected: {code}: {reason}\n{report:?}");
            }
            room.deliver(&events);
            check(&floor.state, chips_in_play, &events);
            let out: HashSet<EntryNo> = events
                .iter()
                .filter_map(|e| if let SeatingEvent::EntryEliminated { entry, .. } = e { Some(*entry) } else { None })
                .collect();
            for e in &events {
                if let SeatingEvent::StackReachedZero { entry, .. } = e {
                    assert_eq!(out.contains(entry), !period_open, "a stack at zero is out at once exactly when no rebuy is possible");
                    if period_open {
                        deciding.push(*entry);
                        // The rebuys service offers; the table is told.
                        let told = floor.run(C::OfferRebuy { entry: *entry, until: at() });
                        room.deliver(&told);
                    }
                }
            }
        }
    }
    assert!(floor.state.winner.is_some(), "the tournament ends");
    (floor.log, floor.state)
}

/// After every command: chips conserved, everyone live is seated once, tables balanced after a
/// decision.
fn check(state: &SeatingState, chips_in_play: u64, events: &[SeatingEvent]) {
    let chips: u64 = state.entries.keys().map(|e| state.play.chips.get(e).copied().unwrap_or(0)).sum();
    let on_the_way: u64 = state.bought.values().sum();
    assert_eq!(chips + on_the_way, chips_in_play, "chips are conserved: the stacks plus chips bought on their way");
    let mut seen = HashSet::new();
    for table in state.room.tables() {
        for (_, o) in table.occupied() {
            assert!(seen.insert(o.entry), "entry {} seated twice", o.entry);
        }
    }
    if state.winner.is_none() {
        assert_eq!(seen.len(), state.entries.len(), "every live entry has one seat");
    }
    let decided = events.iter().any(|e| matches!(e, SeatingEvent::EntryEliminated { .. }));
    if decided && state.winner.is_none() {
        let counts: Vec<usize> = state.room.tables().map(|t| t.count()).collect();
        let (min, max) = (counts.iter().min().copied().unwrap_or(0), counts.iter().max().copied().unwrap_or(0));
        assert!(max - min <= 1, "tables differ by at most one after balancing: {counts:?}");
    }
}

#[test]
fn a_hundred_players_play_down_to_one_winner_with_no_report_rejected() {
    let (log, state) = tournament(100, 9, 7);
    let eliminated: Vec<EntryNo> =
        log.iter().filter_map(|e| if let SeatingEvent::EntryEliminated { entry, .. } = e { Some(*entry) } else { None }).collect();
    assert_eq!(eliminated.len(), 99, "everyone but the winner is out, once");
    assert_eq!(eliminated.iter().collect::<HashSet<_>>().len(), 99);
    assert!(!eliminated.contains(&state.winner.unwrap()));
    let moves = log.iter().filter(|e| matches!(e, SeatingEvent::PlayerMoved { .. })).count();
    assert!(moves > 0, "a hundred players on twelve tables need moves");
    let confirmed = log.iter().filter(|e| matches!(e, SeatingEvent::MoveConfirmed { .. })).count();
    assert!(confirmed > 0, "moves are confirmed by their source tables");
}

/// A draw too large for one NATS message is stored in parts of 100 tables; play goes on as
/// with one part.
#[test]
fn a_draw_of_five_hundred_tables_is_stored_in_parts() {
    let (log, state) = tournament(1_000, 2, 5);
    let parts: Vec<usize> =
        log.iter().filter_map(|e| if let SeatingEvent::TablesDrawn { tables, .. } = e { Some(tables.len()) } else { None }).collect();
    assert_eq!(parts, vec![100; 5]);
    assert!(state.winner.is_some());
}

/// A late entry that arrives between two parts of a draw gets a new table numbered past every
/// table of the draw, not one a later part is about to open.
#[test]
fn a_late_entry_between_draw_parts_opens_a_table_past_the_draw() {
    let tournament_id = TournamentId(uuid::Uuid::from_u128(3));
    let mut floor = Floor { state: SeatingState::default(), log: Vec::new() };
    floor.run(C::Configure {
        tournament_id,
        table_size: 2,
        starting_stack: STACK,
        rebuys: false,
        balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
    });
    for e in 1..=300 {
        floor.run(C::Join { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap(), seed: [0; 32] });
    }
    floor.run(C::Start { seed: seed(3), at: at() });
    assert!(floor.state.drawing(), "150 tables take two parts");
    let late = floor.run(C::Join { entry: EntryNo(301), player: PlayerId::parse("late").unwrap(), seed: [0; 32] });
    let opened: Vec<u32> =
        late.iter().filter_map(|e| if let SeatingEvent::TableOpened { table, .. } = e { Some(*table) } else { None }).collect();
    assert_eq!(opened, vec![151]);
    floor.run(C::ContinueDraw { part: 1 });
    assert!(!floor.state.drawing());
    assert_eq!(floor.state.room.players(), 301, "everyone seated once the draw is whole");
    assert_eq!(floor.state.room.tables().count(), 151);
}

fn entries(numbers: std::ops::RangeInclusive<u32>) -> Vec<(EntryNo, PlayerId)> {
    numbers.map(|e| (EntryNo(e), PlayerId::parse(&format!("p{e}")).unwrap())).collect()
}

/// A pool replayed after a restart may be gathered with other bounds (so another command id):
/// it adds no one who joined before, even one who has left since.
#[test]
fn a_replayed_pool_adds_no_one_who_joined_before_even_after_they_left() {
    let mut floor = Floor { state: SeatingState::default(), log: Vec::new() };
    floor.run(C::Configure {
        tournament_id: TournamentId(uuid::Uuid::from_u128(4)),
        table_size: 9,
        starting_stack: STACK,
        rebuys: false,
        balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
    });
    assert_eq!(floor.run(C::JoinPool { entries: entries(1..=3) }).len(), 3, "one commit, three entries");
    floor.run(C::Leave { entry: EntryNo(2) });
    let replayed = floor.run(C::JoinPool { entries: entries(2..=5) });
    let joined: Vec<EntryNo> =
        replayed.iter().filter_map(|e| if let SeatingEvent::EntryJoined { entry, .. } = e { Some(*entry) } else { None }).collect();
    assert_eq!(joined, [EntryNo(4), EntryNo(5)]);
    assert!(
        floor.run(C::Join { entry: EntryNo(2), player: PlayerId::parse("p2").unwrap(), seed: [0; 32] }).is_empty(),
        "nor a single join"
    );
    assert_eq!(floor.state.entries.keys().copied().collect::<Vec<_>>(), [EntryNo(1), EntryNo(3), EntryNo(4), EntryNo(5)]);
}

/// After the draw a pool is refused (its entries join one by one, each seated), and a replayed
/// join of an entry eliminated since seats no one.
#[test]
fn after_the_draw_a_pool_is_refused_and_an_eliminated_entry_never_rejoins() {
    let (_, state) = tournament(20, 9, 5);
    assert_eq!(
        SeatingAggregate::handle_command(&state, C::JoinPool { entries: entries(21..=21) }),
        Err(crate::commands::SeatingError::AlreadyStarted)
    );
    let out = state.entries.keys().next().map_or(1, |winner| if winner.0 == 1 { 2 } else { 1 });
    let rejoin = C::Join { entry: EntryNo(out), player: PlayerId::parse(&format!("p{out}")).unwrap(), seed: [0; 32] };
    assert_eq!(SeatingAggregate::handle_command(&state, rejoin), Ok(vec![]));
}

#[test]
fn during_the_rebuy_period_a_stack_at_zero_keeps_its_seat_until_it_rebuys_or_is_out() {
    let (log, state) = play(120, 9, 21, Some(RebuyPeriod { steps: 3_000 }));
    let count = |f: fn(&SeatingEvent) -> bool| log.iter().filter(|e| f(e)).count();
    let bought = count(|e| matches!(e, SeatingEvent::ChipsBought { .. }));
    let arrived = count(|e| matches!(e, SeatingEvent::ChipsAtTable { .. }));
    let carried = log.iter().filter(|e| matches!(e, SeatingEvent::EntryEliminated { stack_at_start: Some(_), .. })).count();
    assert!(bought > 10, "rebuys were bought: {bought}");
    assert!(arrived <= bought && arrived > 0, "add_chips confirmed by the tables: {arrived} of {bought}");
    assert!(carried > 0, "eliminations after a decision carry the bust's stack for the standings");
    assert_eq!(count(|e| matches!(e, SeatingEvent::EntryEliminated { .. })), 119);
    let removals = log
        .iter()
        .filter(|e| {
            matches!(e, SeatingEvent::Instructed { instruction } if matches!(instruction.instruction, Instruction::RemovePlayer { reason: floor_events::table::Removal::Eliminated, .. }))
        })
        .count();
    assert!(removals > 100, "the tables are told who is out: {removals}");
    let offers = log
        .iter()
        .filter(|e| matches!(e, SeatingEvent::Instructed { instruction } if matches!(instruction.instruction, Instruction::RebuyOffered { .. })))
        .count();
    assert!(offers >= bought, "every rebuy was offered at the table first: {offers} offers, {bought} bought");
    let replayed = log.into_iter().fold(SeatingState::default(), SeatingAggregate::apply_event);
    assert_eq!((replayed.play, replayed.bought, replayed.at_zero), (state.play, state.bought, state.at_zero));
}

#[test]
fn only_an_entry_at_zero_can_be_eliminated_by_command() {
    let tournament_id = TournamentId(uuid::Uuid::nil());
    let mut floor = Floor { state: SeatingState::default(), log: Vec::new() };
    floor.run(C::Configure {
        tournament_id,
        table_size: 9,
        starting_stack: STACK,
        rebuys: true,
        balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
    });
    for e in 1..=3 {
        floor.run(C::Join { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap(), seed: [0; 32] });
    }
    floor.run(C::Start { seed: seed(1), at: at() });
    let refused = SeatingAggregate::handle_command(&floor.state, C::Eliminate { entry: EntryNo(1), seed: seed(2) });
    assert!(matches!(refused, Err(crate::domain::SeatingError::StillInPlay(EntryNo(1)))), "{refused:?}");
    let unknown = SeatingAggregate::handle_command(&floor.state, C::AddChips { entry: EntryNo(9), chips: 5 });
    assert!(matches!(unknown, Err(crate::domain::SeatingError::UnknownEntry(EntryNo(9)))), "{unknown:?}");
}

#[test]
fn replaying_the_log_rebuilds_the_room() {
    let (log, live) = tournament(60, 6, 11);
    let replayed = log.into_iter().fold(SeatingState::default(), SeatingAggregate::apply_event);
    assert_eq!(replayed.room, live.room);
    assert_eq!(replayed.play, live.play);
    assert_eq!(replayed.located, live.located);
    assert_eq!(replayed.leaving, live.leaving);
    assert_eq!(replayed.sequences, live.sequences);
    assert_eq!(replayed.winner, live.winner);
}

#[test]
fn the_draw_reveals_the_seed_it_committed_to() {
    let tournament_id = TournamentId(uuid::Uuid::nil());
    let mut floor = Floor { state: SeatingState::default(), log: Vec::new() };
    floor.run(C::Configure {
        tournament_id,
        table_size: 9,
        starting_stack: STACK,
        rebuys: false,
        balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
    });
    floor.run(C::CommitDraw { commitment: commitment(&seed(1)) });
    for e in 1..=3 {
        floor.run(C::Join { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap(), seed: [0; 32] });
    }
    let wrong = SeatingAggregate::handle_command(&floor.state, C::Start { seed: seed(2), at: at() });
    assert!(matches!(wrong, Err(crate::domain::SeatingError::SeedMismatch)), "{wrong:?}");
    let events = floor.run(C::Start { seed: seed(1), at: at() });
    assert!(matches!(&events[0], SeatingEvent::TablesDrawn { seed, .. } if seed.len() == 64));
    let seated = events
        .iter()
        .filter(
            |e| matches!(e, SeatingEvent::Instructed { instruction } if matches!(instruction.instruction, Instruction::SeatPlayer { .. })),
        )
        .count();
    assert_eq!(seated, 3);
}

#[test]
fn a_report_that_does_not_fit_is_recorded_and_changes_nothing() {
    let tournament_id = TournamentId(uuid::Uuid::nil());
    let mut floor = Floor { state: SeatingState::default(), log: Vec::new() };
    floor.run(C::Configure {
        tournament_id,
        table_size: 9,
        starting_stack: STACK,
        rebuys: false,
        balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
    });
    for e in 1..=3 {
        floor.run(C::Join { entry: EntryNo(e), player: PlayerId::parse(&format!("p{e}")).unwrap(), seed: [0; 32] });
    }
    floor.run(C::Start { seed: seed(1), at: at() });
    let table = |report| TableReport { tournament_id, table: 1, report_id: "r".into(), report };
    let stacks: Vec<SeatStack> = floor
        .state
        .room
        .table(1)
        .unwrap()
        .occupied()
        .map(|(s, o)| SeatStack { seat: SeatNo(s as u8 + 1), entry: o.entry, chips: STACK })
        .collect();
    let cases = [
        (
            TableReport { table: 99, ..table(Report::HandStarted { hand: 1, button: SeatNo(1), stacks: stacks.clone(), deal_hand: None }) },
            "unknown_table",
        ),
        (table(Report::HandStarted { hand: 2, button: SeatNo(1), stacks: stacks.clone(), deal_hand: None }), "hand_out_of_order"),
        (
            table(Report::HandStarted {
                hand: 1,
                button: SeatNo(1),
                stacks: vec![SeatStack { chips: STACK * 2, ..stacks[0] }],
                deal_hand: None,
            }),
            "stack_mismatch",
        ),
        (
            table(Report::HandStarted {
                hand: 1,
                button: SeatNo(1),
                stacks: vec![SeatStack { entry: EntryNo(77), ..stacks[0] }],
                deal_hand: None,
            }),
            "unknown_player",
        ),
    ];
    let before = floor.state.play.clone();
    for (report, code) in cases {
        let events = floor.run(C::Report { report, seed: seed(0) });
        assert!(matches!(&events[..], [SeatingEvent::ReportRejected { code: c, .. }] if c == code), "{code}: {events:?}");
    }
    assert_eq!(floor.state.play, before, "rejected reports change nothing");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Any field, any table size, any interleaving of late instructions and hands in flight: no
    /// rejection of a well-behaved table, chips and players conserved, tables within one of each
    /// other after every decision, one winner.
    #[test]
    fn whole_tournaments_finish_cleanly(entrants in 2u32..150, table_size in 2u8..=10, run_seed in any::<u64>()) {
        let (log, state) = tournament(entrants, table_size, run_seed);
        let eliminated = log.iter().filter(|e| matches!(e, SeatingEvent::EntryEliminated { .. })).count();
        prop_assert_eq!(eliminated as u32, entrants - 1);
        prop_assert!(state.winner.is_some());
    }

    /// A snapshot (the state as JSON, as `floor_runtime::snapshot` stores it) taken after any
    /// commit reads back as the same state, and the rest of the log folded onto it gives what
    /// folding the whole log gives: a restart from a snapshot changes nothing.
    #[test]
    fn a_snapshot_anywhere_in_the_log_restores_the_same_state(entrants in 2u32..120, table_size in 2u8..=10, run_seed in any::<u64>(), cut in 0.0f64..1.0) {
        let (log, _) = play(entrants, table_size, run_seed, Some(RebuyPeriod { steps: run_seed % 500 }));
        let cut = ((log.len() as f64) * cut) as usize;
        let taken = log[..cut].iter().cloned().fold(SeatingState::default(), SeatingAggregate::apply_event);
        let restored: SeatingState = serde_json::from_slice(&serde_json::to_vec(&taken).expect("encodes")).expect("decodes");
        prop_assert_eq!(&restored, &taken);
        let resumed = log[cut..].iter().cloned().fold(restored, SeatingAggregate::apply_event);
        let whole = log.into_iter().fold(SeatingState::default(), SeatingAggregate::apply_event);
        prop_assert_eq!(resumed, whole);
    }

    /// The same with rebuys for a while: a stack at zero stays seated, dealt out, while its
    /// player decides; chips bought reach the table; still one winner and no rejection.
    #[test]
    fn whole_tournaments_with_rebuys_finish_cleanly(entrants in 2u32..80, table_size in 2u8..=10, run_seed in any::<u64>(), steps in 0u64..2_000) {
        let (log, state) = play(entrants, table_size, run_seed, Some(RebuyPeriod { steps }));
        let eliminated = log.iter().filter(|e| matches!(e, SeatingEvent::EntryEliminated { .. })).count();
        prop_assert_eq!(eliminated as u32, entrants - 1);
        prop_assert!(state.winner.is_some());
    }
}

/// Six players drawn at two tables of three (`n` seeds the tournament id, the draw and the
/// simulated tables), the draw's instructions delivered to the tables.
fn six_at_two_tables(n: u8) -> (TournamentId, Floor, Room) {
    let tournament_id = TournamentId(uuid::Uuid::from_u128(u128::from(n)));
    let mut floor = Floor { state: SeatingState::default(), log: Vec::new() };
    floor.run(C::Configure {
        tournament_id,
        table_size: 3,
        starting_stack: STACK,
        rebuys: false,
        balancing: floor_events::profile::SeatingRules::WITHIN_ONE,
    });
    let draw_seed = seed(u64::from(n));
    floor.run(C::CommitDraw { commitment: commitment(&draw_seed) });
    let entries: Vec<(EntryNo, PlayerId)> = (1..=6).map(|e| (EntryNo(e), PlayerId::parse(&format!("p{e}")).unwrap())).collect();
    floor.run(C::JoinPool { entries });
    let mut room = Room { tables: BTreeMap::new(), rng: ChaCha8Rng::seed_from_u64(u64::from(n)) };
    let drawn = floor.run(C::Start { seed: draw_seed, at: at() });
    room.deliver(&drawn);
    (tournament_id, floor, room)
}

/// Hand-for-hand at seating: a held table deals only on `deal_hand`, one hand each; a finish
/// for a hand it is not dealing is `hand_not_released`; `resume` lets it deal freely again.
/// The simulated tables obey the hold; one is made to ignore it, to show what a misbehaving
/// server gets.
#[test]
fn a_held_table_deals_only_on_deal_hand_and_resume_ends_the_hold() {
    let (tournament_id, mut floor, mut room) = six_at_two_tables(20);
    let tables: Vec<u32> = room.tables.keys().copied().collect();
    assert_eq!(tables.len(), 2);
    let (one, two) = (tables[0], tables[1]);
    // Table `two` is dealing when the hold goes out; table `one` is between hands.
    let mut reports = Vec::new();
    let t2 = room.tables.get_mut(&two).unwrap();
    t2.apply(tournament_id, two, usize::MAX, &mut reports);
    t2.start_hand(tournament_id, two, &mut reports);
    let t1 = room.tables.get_mut(&one).unwrap();
    t1.apply(tournament_id, one, usize::MAX, &mut reports);
    let report = |floor: &mut Floor, reports: &mut Vec<TableReport>| -> Vec<SeatingEvent> {
        let mut events = Vec::new();
        for r in reports.drain(..) {
            events.extend(floor.run(C::Report { report: r, seed: seed(1) }));
        }
        events
    };
    report(&mut floor, &mut reports);
    let hold = floor.run(C::HandForHand { instruction: Instruction::HoldForDeal, tables: vec![] });
    let held: Vec<u32> = hold
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Instructed { instruction } if instruction.instruction == Instruction::HoldForDeal => Some(instruction.table),
            _ => None,
        })
        .collect();
    assert_eq!(held, vec![one, two], "every open table is held, each in its own sequence");
    assert!(floor.run(C::HandForHand { instruction: Instruction::HoldForDeal, tables: vec![] }).is_empty(), "held already");
    let rejections = |events: &[SeatingEvent]| -> Vec<String> {
        events.iter().filter_map(|e| if let SeatingEvent::ReportRejected { code, .. } = e { Some(code.clone()) } else { None }).collect()
    };
    // Table `one` was between hands: its next deal may have crossed the hold (its hand 0).
    let t1 = room.tables.get_mut(&one).unwrap();
    assert!(t1.start_hand(tournament_id, one, &mut reports));
    assert!(rejections(&report(&mut floor, &mut reports)).is_empty(), "the deal that crossed the hold is its announcement hand");
    // Table `two` finishes its hand in progress, then deals again while held.
    let t2 = room.tables.get_mut(&two).unwrap();
    t2.finish_hand(tournament_id, two, &mut room.rng, &mut reports);
    let finished = report(&mut floor, &mut reports);
    assert!(rejections(&finished).is_empty());
    room.deliver(&finished);
    room.deliver(&hold);
    let t2 = room.tables.get_mut(&two).unwrap();
    t2.apply(tournament_id, two, usize::MAX, &mut reports);
    assert!(t2.held && !t2.start_hand(tournament_id, two, &mut reports), "the simulated table obeys the hold");
    // Made to ignore it: it deals while held, and Floor refuses the deal.
    t2.held = false;
    if t2.start_hand(tournament_id, two, &mut reports) {
        assert_eq!(rejections(&report(&mut floor, &mut reports)), vec![codes::TABLE_HELD.to_string()], "dealt while held");
        let t2 = room.tables.get_mut(&two).unwrap();
        t2.in_hand = None;
        t2.hand -= 1;
        t2.held = true;
    }
    report(&mut floor, &mut reports);
    // A finish for a hand never released to it.
    let hand = room.tables[&two].hand + 1;
    let bogus = TableReport {
        tournament_id,
        table: two,
        report_id: "bogus-finish".into(),
        report: Report::HandFinished { hand, stacks: vec![], busts: vec![] },
    };
    let events = floor.run(C::Report { report: bogus, seed: seed(2) });
    assert_eq!(rejections(&events), vec![codes::HAND_NOT_RELEASED.to_string()]);
    // Released: one hand each.
    let deal = floor.run(C::HandForHand { instruction: Instruction::DealHand { hand: 1 }, tables: vec![two, 999] });
    assert_eq!(deal.len(), 1, "only open tables are told: {deal:?}");
    room.deliver(&deal);
    let t2 = room.tables.get_mut(&two).unwrap();
    t2.apply(tournament_id, two, usize::MAX, &mut reports);
    if t2.start_hand(tournament_id, two, &mut reports) {
        assert!(rejections(&report(&mut floor, &mut reports)).is_empty(), "deal_hand lets it deal once");
        let t2 = room.tables.get_mut(&two).unwrap();
        t2.finish_hand(tournament_id, two, &mut room.rng, &mut reports);
        let finished = report(&mut floor, &mut reports);
        assert!(rejections(&finished).is_empty());
    }
    let resume = floor.run(C::HandForHand { instruction: Instruction::Resume, tables: vec![] });
    assert!(!resume.is_empty());
    assert!(floor.state.held.is_empty(), "resume ends the hold at every table");
}

/// A table between hands when the hold goes out may deal once before it hears of it. That deal
/// may reach Floor after a `deal_hand` was already sent to the table: it is still the crossing
/// deal (it answers no `deal_hand`), and the released hand is still owed.
#[test]
fn a_crossing_deal_reported_after_its_deal_hand_is_still_the_crossing_one() {
    let (tournament_id, mut floor, mut room) = six_at_two_tables(21);
    let one = *room.tables.keys().next().unwrap();
    let mut reports = Vec::new();
    let t1 = room.tables.get_mut(&one).unwrap();
    t1.apply(tournament_id, one, usize::MAX, &mut reports);
    let run_reports = |floor: &mut Floor, reports: &mut Vec<TableReport>| -> Vec<SeatingEvent> {
        reports.drain(..).flat_map(|r| floor.run(C::Report { report: r, seed: seed(1) })).collect()
    };
    run_reports(&mut floor, &mut reports);
    let hold = floor.run(C::HandForHand { instruction: Instruction::HoldForDeal, tables: vec![] });
    let deal = floor.run(C::HandForHand { instruction: Instruction::DealHand { hand: 1 }, tables: vec![one] });
    // The table deals before either instruction reaches it.
    let t1 = room.tables.get_mut(&one).unwrap();
    assert!(t1.start_hand(tournament_id, one, &mut reports));
    let events = run_reports(&mut floor, &mut reports);
    assert!(matches!(&events[..], [SeatingEvent::HandStarted { crossing: true, .. }]), "{events:?}");
    assert_eq!(floor.state.held[&one].credits, 1, "the deal_hand is still owed");
    let t1 = room.tables.get_mut(&one).unwrap();
    t1.finish_hand(tournament_id, one, &mut room.rng, &mut reports);
    let finished = run_reports(&mut floor, &mut reports);
    assert!(finished.iter().all(|e| !matches!(e, SeatingEvent::ReportRejected { .. })), "{finished:?}");
    room.deliver(&finished);
    room.deliver(&hold);
    room.deliver(&deal);
    let t1 = room.tables.get_mut(&one).unwrap();
    t1.apply(tournament_id, one, usize::MAX, &mut reports);
    assert!(t1.start_hand(tournament_id, one, &mut reports), "its deal_hand lets it deal");
    let events = run_reports(&mut floor, &mut reports);
    assert!(matches!(&events[..], [SeatingEvent::HandStarted { crossing: false, .. }]), "{events:?}");
    assert_eq!(floor.state.held[&one].credits, 0);
    // Another deal, on no deal_hand: the crossing one was taken already.
    let t1 = room.tables.get_mut(&one).unwrap();
    t1.finish_hand(tournament_id, one, &mut room.rng, &mut reports);
    run_reports(&mut floor, &mut reports);
    let t1 = room.tables.get_mut(&one).unwrap();
    t1.held = false;
    if t1.start_hand(tournament_id, one, &mut reports) {
        let events = run_reports(&mut floor, &mut reports);
        assert!(matches!(&events[..], [SeatingEvent::ReportRejected { code, .. }] if code == codes::TABLE_HELD), "{events:?}");
    }
}
