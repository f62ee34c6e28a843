//! Balancing and breaking tables: what moves after a hand, and why.
//!
//! Pure: the tables, the rules and a seed in; the moves out (applied to the tables passed in,
//! through [`apply_move`], the same function that replays a stored move).
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
use crate::table::{Occupant, Seat, Table};
use floor_events::EntryNo;
use rand::seq::{IndexedRandom, SliceRandom};
use std::collections::BTreeMap;

/// Every table of a tournament, by number.
pub type Tables = BTreeMap<u32, Table>;

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
pub fn apply_move(tables: &mut Tables, m: &Move) {
    let occupant = tables.get_mut(&m.from_table).and_then(|t| t.seats.get_mut(m.from_seat)).and_then(Option::take);
    if let (Some(occupant), Some(to)) = (occupant, tables.get_mut(&m.to_table)) {
        to.seats[m.to_seat] = Some(Occupant { entry: occupant.entry, moves: occupant.moves + 1 });
    }
}

/// Applies a whole decision (for replay).
pub fn apply(tables: &mut Tables, decision: &Decision) {
    for &(table, seats) in &decision.resized {
        if let Some(t) = tables.get_mut(&table) {
            t.seats.resize(seats, None);
        }
    }
    for m in &decision.moves {
        apply_move(tables, m);
    }
    for table in &decision.closed {
        tables.remove(table);
    }
}

/// Decides (and applies to `tables`) every move needed now. Deterministic for a given seed.
pub fn decide(tables: &mut Tables, rules: &Rules, seed: &Seed) -> Decision {
    let mut decision = Decision::default();
    if rules.shootout {
        return decision;
    }
    let empty: Vec<u32> = tables.values().filter(|t| t.count() == 0).map(|t| t.number).collect();
    let players: usize = tables.values().map(Table::count).sum();
    let needed = tables_needed(players, rules.table_size);
    if tables.len() - empty.len() > needed {
        break_tables(tables, rules, players, needed, seed, &mut decision);
    }
    for number in empty {
        tables.remove(&number);
        decision.closed.push(number);
    }
    balance(tables, rules, &mut decision);
    decision
}

fn break_tables(tables: &mut Tables, rules: &Rules, players: usize, needed: usize, seed: &Seed, decision: &mut Decision) {
    let mut rng = rng(seed);
    let mut order: Vec<(usize, u32)> = tables.values().filter(|t| t.count() > 0).map(|t| (t.count(), t.number)).collect();
    // Fewest players first; among equals the highest number first.
    order.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let broken: Vec<u32> = order.iter().take(order.len() - needed).map(|&(_, n)| n).collect();
    let survivors: Vec<u32> = order.iter().skip(order.len() - needed).map(|&(_, n)| n).collect();
    let reason = if needed == 1 {
        let seats = final_table_size(rules.table_size);
        let table = tables.get_mut(&survivors[0]).expect("survivor exists");
        if table.seats.len() < seats {
            table.seats.resize(seats, None);
            decision.resized.push((table.number, seats));
        }
        Reason::FinalTable { players_left: players, seats }
    } else {
        Reason::Break { players_left: players, tables_needed: needed }
    };
    // Step one of the two-step draw: the broken tables' players in random order.
    let mut leaving: Vec<(u32, Seat, EntryNo)> =
        broken.iter().flat_map(|n| tables[n].occupied().map(move |(s, o)| (*n, s, o.entry))).collect();
    leaving.shuffle(&mut rng);
    for (from_table, from_seat, entry) in leaving {
        let to_table = *survivors
            .iter()
            .filter(|n| tables[n].count() < tables[n].seats.len())
            .min_by_key(|n| (tables[n].count(), **n))
            .expect("the surviving tables hold every player");
        // Step two: a random empty seat there (any seat, TDA R10-A).
        let empty: Vec<Seat> = (0..tables[&to_table].seats.len()).filter(|&s| tables[&to_table].seats[s].is_none()).collect();
        let to_seat = *empty.choose(&mut rng).expect("a table below its size has an empty seat");
        let m = Move { entry, from_table, from_seat, to_table, to_seat, wait_for_button: !tables[&to_table].may_seat(to_seat), reason };
        apply_move(tables, &m);
        decision.moves.push(m);
    }
    for number in broken {
        tables.remove(&number);
        decision.closed.push(number);
    }
}

fn balance(tables: &mut Tables, rules: &Rules, decision: &mut Decision) {
    let allowed = match rules.when {
        BalanceWhen::DifferenceAboveOne => 1,
        BalanceWhen::ThreeShort => 2,
    };
    loop {
        let Some(from) = tables.values().max_by_key(|t| (t.count(), std::cmp::Reverse(t.number))) else { return };
        let Some(to) = tables.values().min_by_key(|t| (t.count(), t.number)) else { return };
        let (from_count, to_count) = (from.count(), to.count());
        if from_count <= to_count + allowed {
            return;
        }
        let (from_table, to_table) = (from.number, to.number);
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
        apply_move(tables, &m);
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
