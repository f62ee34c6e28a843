//! Balancing and breaking tables: what moves after a hand, and why.
//!
//! Pure: the room (every table), the rules and a seed in; the moves out, applied to the room
//! through [`apply_move`], the same function that replays a stored move. The room may be a
//! [`Draft`](crate::room::Draft) of the stored one (the aggregate decides without copying it).
//!
//! Spec: `../shared/spec/README.md` §3; TDA 2024 R10, R11 and RP-9 (`practice.md` §1.1);
//! PokerStars practice (`practice.md` §3.1).
//!
//! Procedure, in order:
//! 1. Tables with nobody left close.
//! 2. **Break** while there are more tables than needed (`tables_needed`): the tables with the
//!    fewest players break first, ties broken by the highest table number (the newest tables go
//!    first). Their players are re-seated by the two-step draw of TDA R10-B: the players are put
//!    in random order, then each takes a random empty seat at the surviving table with the fewest
//!    players (ties: lowest table number). When one table is needed, it grows to the RP-9 final
//!    table size first.
//! 3. **Balance** while the most and fewest players at a table differ by more than the rule allows:
//!    one player moves from the fullest table (ties: lowest number) to the shortest (ties: lowest
//!    number). TDA: the player due the big blind next, to the worst position. PokerStars: the
//!    least-moved player, to the seat closest to their position relative to the button.
//!
//! A player placed between the small blind and the button is not dealt in until the button has
//! passed (TDA R8-A, R10-A); such a move says so (`wait_for_button`) for the table server.

use crate::draw::{rng, Seed};
use crate::room::{Room, RoomLike};
use crate::table::{Occupant, Seat, Table};
use floor_events::EntryNo;
use rand::seq::{IndexedRandom, SliceRandom};

/// When to balance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BalanceWhen {
    /// Whenever two tables differ by more than one player (online practice).
    DifferenceAboveOne,
    /// When a table is three or more short of the fullest (TDA R11-D's halt), back to within two.
    ThreeShort,
}

/// Who moves when balancing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mover {
    /// TDA R11-A: the player due the big blind next, to the worst position.
    DueBigBlind,
    /// PokerStars: the least-moved player, keeping their position relative to the button.
    LeastMoved,
}

/// The seating rules of a tournament.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Seats per table.
    pub table_size: usize,
    /// When to balance.
    pub when: BalanceWhen,
    /// Who moves.
    pub mover: Mover,
    /// Shootouts never balance or break (004 §4.36.3).
    pub shootout: bool,
}

/// Why a player moves, with the numbers that justified it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Balancing: players at the source and destination tables before the move.
    Balance {
        /// Players at the source table before the move.
        from_count: usize,
        /// Players at the destination table before the move.
        to_count: usize,
    },
    /// The source table broke.
    Break {
        /// Players left in the tournament.
        players_left: usize,
        /// Tables those players need.
        tables_needed: usize,
    },
    /// Tables combined into the final table (RP-9).
    FinalTable {
        /// Players left.
        players_left: usize,
        /// Seats at the final table.
        seats: usize,
    },
}

/// One seat move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// Who.
    pub entry: EntryNo,
    /// From table.
    pub from_table: u32,
    /// From seat.
    pub from_seat: Seat,
    /// To table.
    pub to_table: u32,
    /// To seat.
    pub to_seat: Seat,
    /// The seat lies between the small blind and the button: deal the player in only once the
    /// button has passed.
    pub wait_for_button: bool,
    /// Why.
    pub reason: Reason,
}

/// What a decision did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    /// Tables that grew to the final-table size before moves: (table, seats).
    pub resized: Vec<(u32, usize)>,
    /// Moves, in order.
    pub moves: Vec<Move>,
    /// Tables closed (broken or empty), after the moves.
    pub closed: Vec<u32>,
}

/// Seats at the final table (TDA RP-9): 8- and 9-handed events combine two tables of 5 into a
/// 9-handed final table; 6- and 7-handed events two tables of 4 into a 7-handed one; otherwise
/// the table size.
pub fn final_table_size(table_size: usize) -> usize {
    match table_size {
        8 | 9 => 9,
        6 | 7 => 7,
        n => n,
    }
}

/// Tables `players` need: one once they fit the final table, else as few full tables as hold
/// them.
pub fn tables_needed(players: usize, table_size: usize) -> usize {
    if players <= final_table_size(table_size) {
        1
    } else {
        players.div_ceil(table_size)
    }
}

/// Moves one player (a stored move replays through here too).
pub fn apply_move(room: &mut impl RoomLike, m: &Move) {
    if let Some(occupant) = room.vacate(m.from_table, m.from_seat) {
        room.seat(m.to_table, m.to_seat, Occupant { entry: occupant.entry, moves: occupant.moves + 1 });
    }
}

/// Applies a whole decision (for replay).
pub fn apply(room: &mut Room, decision: &Decision) {
    for &(table, seats) in &decision.resized {
        room.resize(table, seats);
    }
    for m in &decision.moves {
        apply_move(room, m);
    }
    for &table in &decision.closed {
        room.close(table);
    }
}

/// Whether [`decide`] has anything to do in `room`: an empty table, more tables than the
/// players need, or two tables further apart than the rule allows. Cheap (the room's indexes),
/// so a caller may ask after every hand: a decision that had to wait is taken on the next ask.
pub fn owed(room: &impl RoomLike, rules: &Rules) -> bool {
    if rules.shootout {
        return false;
    }
    let count = |n: u32| room.table(n).map_or(0, |t| t.count());
    let empty = room.breaking_order().next().is_some_and(|n| count(n) == 0);
    let unbalanced = match (room.fullest(), room.shortest()) {
        (Some(fullest), Some(shortest)) => count(fullest) > count(shortest) + allowed(rules.when),
        _ => false,
    };
    empty || room.len() > tables_needed(room.players(), rules.table_size) || unbalanced
}

/// The difference in players between two tables a rule lets stand.
pub fn allowed(when: BalanceWhen) -> usize {
    match when {
        BalanceWhen::DifferenceAboveOne => 1,
        BalanceWhen::ThreeShort => 2,
    }
}

/// Decides (and applies to `room`) every move needed now. Deterministic for a given seed.
pub fn decide(room: &mut impl RoomLike, rules: &Rules, seed: &Seed) -> Decision {
    let mut decision = Decision::default();
    if rules.shootout {
        return decision;
    }
    let empty: Vec<u32> = room.breaking_order().take_while(|&n| room.table(n).is_some_and(|t| t.count() == 0)).collect();
    for number in empty {
        room.close(number);
        decision.closed.push(number);
    }
    let needed = tables_needed(room.players(), rules.table_size);
    if room.len() > needed {
        break_tables(room, rules, needed, seed, &mut decision);
    }
    balance(room, rules, &mut decision);
    decision
}

fn break_tables(room: &mut impl RoomLike, rules: &Rules, needed: usize, seed: &Seed, decision: &mut Decision) {
    let mut rng = rng(seed);
    let players = room.players();
    let broken: Vec<u32> = room.breaking_order().take(room.len() - needed).collect();
    let mut leaving: Vec<(u32, Seat, EntryNo)> = Vec::new();
    for &number in &broken {
        let table = room.table(number).expect("table to break exists");
        leaving.extend(table.occupied().map(|(s, o)| (number, s, o.entry)));
    }
    // The broken tables leave the index now, so only survivors receive players; the moves still
    // name their source seats, and replay closes the tables after the moves.
    let mut departed: std::collections::BTreeMap<u32, Table> = broken.iter().filter_map(|&n| room.close(n).map(|t| (n, t))).collect();
    let reason = if needed == 1 {
        let seats = final_table_size(rules.table_size);
        let survivor = room.fullest().expect("one table survives");
        if room.table(survivor).is_some_and(|t| t.seats.len() < seats) {
            room.resize(survivor, seats);
            decision.resized.push((survivor, seats));
        }
        Reason::FinalTable { players_left: players, seats }
    } else {
        Reason::Break { players_left: players, tables_needed: needed }
    };
    // Step one of the two-step draw: the broken tables' players in random order.
    leaving.shuffle(&mut rng);
    for (from_table, from_seat, entry) in leaving {
        let to_table = room.shortest().expect("the surviving tables hold every player");
        let to = room.table(to_table).expect("shortest table exists");
        // Step two: a random empty seat there (any seat, TDA R10-A).
        let empty: Vec<Seat> = (0..to.seats.len()).filter(|&s| to.seats[s].is_none()).collect();
        let to_seat = *empty.choose(&mut rng).expect("the shortest surviving table has an empty seat");
        let wait_for_button = !to.may_seat(to_seat);
        let occupant = departed.get_mut(&from_table).and_then(|t| t.seats[from_seat].take()).expect("leaving player is seated");
        room.seat(to_table, to_seat, Occupant { entry, moves: occupant.moves + 1 });
        decision.moves.push(Move { entry, from_table, from_seat, to_table, to_seat, wait_for_button, reason });
    }
    decision.closed.extend(broken);
}

fn balance(room: &mut impl RoomLike, rules: &Rules, decision: &mut Decision) {
    let allowed = allowed(rules.when);
    while let (Some(from_table), Some(to_table)) = (room.fullest(), room.shortest()) {
        let (from, to) = (room.table(from_table).expect("fullest"), room.table(to_table).expect("shortest"));
        let (from_count, to_count) = (from.count(), to.count());
        if from_count <= to_count + allowed {
            return;
        }
        let from_seat = mover(from, rules.mover);
        let to_seat = destination(from, from_seat, to, rules.mover);
        let entry = from.seats[from_seat].expect("mover is seated").entry;
        let m = Move {
            entry,
            from_table,
            from_seat,
            to_table,
            to_seat,
            wait_for_button: !to.may_seat(to_seat),
            reason: Reason::Balance { from_count, to_count },
        };
        apply_move(room, &m);
        decision.moves.push(m);
    }
}
/// The seat of the player who moves from `table`.
fn mover(table: &Table, rule: Mover) -> Seat {
    let due = table.due_big_blind().unwrap_or_else(|| table.occupied().next().expect("source has players").0);
    match rule {
        Mover::DueBigBlind => due,
        Mover::LeastMoved => {
            let n = table.seats.len();
            table.occupied().min_by_key(|(s, o)| (o.moves, (s + n - due) % n)).expect("source has players").0
        }
    }
}

/// The seat the mover takes at `to`.
fn destination(from: &Table, from_seat: Seat, to: &Table, rule: Mover) -> Seat {
    let worst = to.worst_seats();
    let any = || (0..to.seats.len()).find(|&s| to.seats[s].is_none()).expect("the shortest table has an empty seat");
    match rule {
        Mover::DueBigBlind => worst.first().copied().unwrap_or_else(any),
        Mover::LeastMoved => {
            let wanted = from.position_from_button(from_seat);
            worst.iter().copied().min_by_key(|&s| to.position_from_button(s).abs_diff(wanted)).unwrap_or_else(any)
        }
    }
}

#[cfg(test)]
mod tests {
    //! The TDA 2024 rules of breaking and balancing, given/when/then, on small rooms.
    use super::*;
    use rand::seq::{IndexedRandom, SliceRandom};

    /// A room of `size`-seat tables holding `counts[i]` players at table `i + 1`, in seats 0..,
    /// entries numbered `table * 100 + seat`.
    fn room(size: usize, counts: &[usize]) -> Room {
        Room::new(counts.iter().enumerate().map(|(i, &n)| {
            let number = i as u32 + 1;
            let mut table = Table::new(number, size);
            for seat in 0..n {
                table.seats[seat] = Some(Occupant { entry: EntryNo(number * 100 + seat as u32), moves: 0 });
            }
            table
        }))
    }

    fn rules(when: BalanceWhen, mover: Mover) -> Rules {
        Rules { table_size: 9, when, mover, shootout: false }
    }

    fn counts(room: &Room) -> Vec<usize> {
        room.tables().map(Table::count).collect()
    }

    /// TDA 2024 R10-B: "Players from a broken table get new seats by a 2-step random process"
    /// (the Addendum's example: seat cards scrambled face down, then each player drawn in turn).
    /// Given tables of 8, 8 and 2 (9-handed), when the table of 2 breaks, then its players are
    /// (1) put in random order and (2) each given a random empty seat at the table with the
    /// fewest players: the seed decides, the draw is recomputed from the seed exactly, and other
    /// seeds seat them elsewhere (not always the worst seat, as a balancing move would).
    #[test]
    fn tda_r10_b_players_of_a_broken_table_are_seated_by_a_two_step_random_draw() {
        let tda = rules(BalanceWhen::DifferenceAboveOne, Mover::DueBigBlind);
        let mut outcomes = std::collections::BTreeSet::new();
        for n in 0..32u8 {
            let seed = [n; 32];
            let before = room(9, &[8, 8, 2]);
            let mut after = before.clone();
            let decision = decide(&mut after, &tda, &seed);
            assert_eq!(decision.closed, vec![3], "the table with the fewest players breaks");
            assert_eq!(counts(&after), vec![9, 9]);
            // The draw, recomputed by its published procedure.
            let mut rng = rng(&seed);
            let mut leaving: Vec<(u32, Seat, EntryNo)> = vec![(3, 0, EntryNo(300)), (3, 1, EntryNo(301))];
            leaving.shuffle(&mut rng);
            let mut replay = before.clone();
            replay.close(3);
            let mut expected = Vec::new();
            for (from_table, from_seat, entry) in leaving {
                let to_table = replay.shortest().unwrap();
                let table = replay.table(to_table).unwrap();
                let empty: Vec<Seat> = (0..9).filter(|&s| table.seats[s].is_none()).collect();
                let to_seat = *empty.choose(&mut rng).unwrap();
                replay.seat(to_table, to_seat, Occupant { entry, moves: 1 });
                expected.push((entry, from_table, from_seat, to_table, to_seat));
            }
            let moves: Vec<_> = decision.moves.iter().map(|m| (m.entry, m.from_table, m.from_seat, m.to_table, m.to_seat)).collect();
            assert_eq!(moves, expected, "seed {n}: the two-step draw as published");
            assert!(decision.moves.iter().all(|m| matches!(m.reason, Reason::Break { players_left: 18, tables_needed: 2 })));
            outcomes.insert(moves);
        }
        assert!(outcomes.len() > 1, "the seed decides where the broken table's players sit");
    }

    /// TDA 2024 R11-C: "The table from which a player is moved will be specified by a
    /// predetermined procedure." Floor's: the fullest table, among equals the lowest number,
    /// moves one player to the shortest, among equals the lowest number; the seed plays no part.
    /// Given tables of 9, 9 and 7, when balancing within one, then table 1 gives a player to
    /// table 3; given 8, 9, 7, table 2 does; and any seed decides the same.
    #[test]
    fn tda_r11_c_the_source_table_is_chosen_by_a_predetermined_procedure() {
        let tda = rules(BalanceWhen::DifferenceAboveOne, Mover::DueBigBlind);
        for (given, from, to) in [(vec![9, 9, 7], 1, 3), (vec![8, 9, 7], 2, 3), (vec![7, 9, 9, 7], 2, 1)] {
            let decisions: Vec<Decision> = (0..8u8).map(|n| decide(&mut room(9, &given), &tda, &[n; 32])).collect();
            let first = &decisions[0].moves[0];
            assert_eq!((first.from_table, first.to_table), (from, to), "{given:?}");
            assert!(decisions.iter().all(|d| d == &decisions[0]), "{given:?}: the seed plays no part in balancing");
        }
    }

    /// TDA 2024 R11-D: "Play halts on tables 3 or more players short … of the table with the
    /// most players" (Addendum: 9-handed, table A of 5 and B of 8, A halts). Given tables of 9
    /// and 7 under "three short", then nothing is owed; given 9 and 6, then one player moves and
    /// the tables are within two (8 and 7). Within one, 9 and 7 already owe a move.
    #[test]
    fn tda_r11_d_a_table_three_short_is_balanced_back_to_within_two_and_no_sooner() {
        let three_short = rules(BalanceWhen::ThreeShort, Mover::DueBigBlind);
        assert!(!owed(&room(9, &[9, 7]), &three_short));
        assert!(decide(&mut room(9, &[9, 7]), &three_short, &[0; 32]).moves.is_empty());
        let mut short = room(9, &[9, 6]);
        assert!(owed(&short, &three_short));
        let decision = decide(&mut short, &three_short, &[0; 32]);
        assert_eq!(decision.moves.len(), 1);
        assert_eq!(decision.moves[0].reason, Reason::Balance { from_count: 9, to_count: 6 });
        assert_eq!(counts(&short), vec![8, 7]);
        let mut addendum = room(9, &[5, 8]);
        decide(&mut addendum, &three_short, &[0; 32]);
        assert_eq!(counts(&addendum), vec![6, 7], "the Addendum's tables of 5 and 8, balanced within two");
        let within_one = rules(BalanceWhen::DifferenceAboveOne, Mover::DueBigBlind);
        assert!(owed(&room(9, &[9, 7]), &within_one));
    }

    /// PokerStars (`practice.md` §3.1; REEL's game plan, 003 App. 1 b i): "prefer players moved
    /// less often". Given a table of 9 where everyone has moved once but one, when it balances
    /// to a table of 7, then that one moves, not the player due the big blind.
    #[test]
    fn least_moved_balancing_moves_the_player_moved_least() {
        let mut given = room(9, &[9, 7]);
        for seat in 0..9 {
            let entry = given.vacate(1, seat).unwrap().entry;
            let moves = if seat == 5 { 0 } else { 1 };
            given.seat(1, seat, Occupant { entry, moves });
        }
        let due = given.table(1).unwrap().due_big_blind();
        assert_ne!(due, Some(5), "the player due the big blind is someone else");
        let decision = decide(&mut given, &rules(BalanceWhen::DifferenceAboveOne, Mover::LeastMoved), &[0; 32]);
        assert_eq!(decision.moves.iter().map(|m| (m.from_table, m.from_seat)).collect::<Vec<_>>(), vec![(1, 5)]);
    }
}
