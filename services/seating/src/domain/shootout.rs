//! Shootouts (issue 37): tables that are never balanced or broken, each playing until its
//! winners are left, and the next round's fresh draw of those winners.
//!
//! 003 App. 1 b ii: "V turnaji shootout se toto vyvažování nedělá. Dokud u stolu nesedí
//! poslední účastník hazardní hry, zůstává účastník hazardní hry u svého původního stolu." (a
//! shootout does no balancing; until a table has its last player, a player stays at their
//! table). 004 §4.36.3: "Každý zahajující hrací stůl se hraje až do svého uzavření (tedy dokud
//! u něj nezbývá pouze jeden Sázející). Finálový hrací stůl je utvořen z vítězů prvních kol
//! zápasů." (each first-round table plays until it closes, one player left; the final table
//! is formed of the first rounds' winners), and "Osmdesát jedna (81) zbývajících Sázejících
//! bude přesunuto k devíti (9) hracím stolům druhého kola" (the 81 left are moved to the nine
//! tables of the second round).
//!
//! - Round 1 is the start-of-play draw (`tables_drawn`): as few tables as the field needs,
//!   as even as the draw makes them (004: "některé hrací stoly v prvním kole mohou mít více
//!   Sázejících než jiné", some first-round tables may have more players than others). With
//!   `short_field = "byes"` the players over the full tables are drawn first (`byes_drawn`,
//!   [`split_byes`]) and wait for round 2 with the starting stack; the rest fill full tables.
//!   (`"trim"` is registration's: the last registrants over full tables are refunded before
//!   the start, so seating draws full tables.)
//! - A table of a round with more than one table that is down to `advance` players is won
//!   (`table_won`) and told `close_table`: it deals no more. Simultaneous busts that take it
//!   below `advance` leave fewer winners (the busted players are out, as everywhere else). A
//!   table drawn with no more players than `advance` plays until one is out ([`target`]), so
//!   every round is smaller than the one before.
//! - Round `r ≥ 2` is drawn when the shootout aggregate starts it (`round_started`): its
//!   entries, drawn afresh with the seed committed when round `r - 1` started, onto new tables
//!   numbered after every table before, with the stacks they won with or the starting stack
//!   (the definition's `stacks`), under the blinds in force.
//! - The last round is one table, played to a winner as any tournament's last table is: its
//!   `table_won` names the tournament's winner.

use super::*;
use floor_events::shootouts::{RoundStacks, ShootoutTerms, ShortField};
use rand::seq::SliceRandom;
use sha2::{Digest, Sha256};

/// A shootout's rounds, as seating keeps them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShootoutState {
    /// Players who advance from each table of a round that is not the last.
    pub advance: u32,
    /// Stacks carried from round to round, or reset.
    pub stacks: RoundStacks,
    /// The round being played (0 before the draw).
    pub round: u32,
    /// Tables of that round.
    pub tables: u32,
    /// Its tables won so far.
    pub won: BTreeSet<u32>,
    /// Players each of its tables was drawn with.
    pub drawn: BTreeMap<u32, u32>,
    /// The commitments of later rounds' draws, hex, by round.
    pub commitments: BTreeMap<u32, String>,
    /// The highest table number drawn so far: the next round's tables follow it.
    pub last_table: u32,
    /// A field that does not fill the first round's tables: uneven tables, or byes.
    #[serde(default)]
    pub short_field: ShortField,
    /// Entries given a bye to round 2, waiting without a table until its draw.
    #[serde(default)]
    pub byes: BTreeSet<EntryNo>,
}

impl ShootoutState {
    pub(crate) fn new(advance: u32, stacks: RoundStacks, short_field: ShortField) -> Self {
        Self { advance, stacks, short_field, ..Self::default() }
    }

    /// The round being played is not the last: it has more than one table, or players with a
    /// bye wait for the next.
    pub fn leads_on(&self) -> bool {
        self.tables > 1 || !self.byes.is_empty()
    }

    /// Every table of a round that is not the last has its winners: they (and the players with
    /// a bye) wait for the next round's draw.
    pub fn between_rounds(&self) -> bool {
        self.round >= 1 && self.leads_on() && self.won.len() as u32 >= self.tables
    }

    /// The start-of-play draw (or a part of it) is round 1.
    pub(crate) fn first_round_drawn(&mut self, total_tables: u32, tables: impl Iterator<Item = (u32, u32)>) {
        if self.round == 0 {
            self.round = 1;
        }
        if self.round == 1 {
            self.drawn.extend(tables);
            self.tables = total_tables.max(self.drawn.len() as u32);
            self.last_table = self.last_table.max(self.tables).max(self.drawn.keys().max().copied().unwrap_or(0));
        }
    }

    /// Players a table of this round plays down to: `advance`, or, for a table the draw gave
    /// no more players than that, one fewer than it was drawn with (at least one).
    pub fn target(&self, table: u32) -> u32 {
        target(self.advance, self.drawn.get(&table).copied().unwrap_or(u32::MAX))
    }
}

pub(super) fn configure(state: &SeatingState, terms: ShootoutTerms) -> Result<Vec<SeatingEvent>, SeatingError> {
    if state.shootout.is_some() {
        return Ok(vec![]);
    }
    if state.started {
        return Err(SeatingError::AlreadyStarted);
    }
    Ok(vec![SeatingEvent::ShootoutConfigured { advance: terms.advance, stacks: terms.stacks, short_field: terms.short_field }])
}

/// The start-of-play draw's field split into the byes and the players drawn onto tables
/// (`short_field = "byes"`, issue 37): `field mod table size` players (none when the field
/// fills no table, [`floor_events::shootouts::byes`]), drawn with the draw's committed seed by
/// the procedure `byes_drawn` documents, so anyone can recompute them from the revealed seed.
/// Any other tournament: no byes, the whole field drawn.
pub(super) fn split_byes(state: &SeatingState, entries: &[EntryNo], seed: &Seed) -> (Vec<EntryNo>, Vec<EntryNo>) {
    let byes = match &state.shootout {
        Some(s) if s.short_field == ShortField::Byes => floor_events::shootouts::byes(entries.len() as u32, state.table_size),
        _ => 0,
    };
    if byes == 0 {
        return (vec![], entries.to_vec());
    }
    draw_byes(entries, byes as usize, seed)
}

/// The byes' draw: `entries` sorted, shuffled by ChaCha20 seeded with SHA-256(`"byes"` ‖ seed);
/// the first `count` have a bye (returned sorted), the rest play (in entry order).
pub fn draw_byes(entries: &[EntryNo], count: usize, seed: &Seed) -> (Vec<EntryNo>, Vec<EntryNo>) {
    let mut hasher = Sha256::new();
    hasher.update(b"byes");
    hasher.update(seed);
    let mut order = entries.to_vec();
    order.sort();
    order.shuffle(&mut crate::draw::rng(&hasher.finalize().into()));
    let mut byes = order[..count.min(order.len())].to_vec();
    byes.sort();
    let playing = entries.iter().copied().filter(|e| byes.binary_search(e).is_err()).collect();
    (byes, playing)
}

/// `byes_drawn`, replayed: the entries wait for round 2 without a table.
pub(super) fn apply_byes(state: &mut SeatingState, entries: Vec<EntryNo>) {
    if let Some(shootout) = state.shootout.as_mut() {
        shootout.byes.extend(entries);
    }
}

pub(super) fn commit_round(state: &SeatingState, round: u32, seed_commitment: &[u8; 32]) -> Result<Vec<SeatingEvent>, SeatingError> {
    let Some(shootout) = &state.shootout else { return Err(SeatingError::NotAShootout) };
    // Committed once, and never for a round drawn already (its seed is revealed).
    if shootout.commitments.contains_key(&round) || round <= shootout.round.max(1) {
        return Ok(vec![]);
    }
    Ok(vec![SeatingEvent::RoundDrawCommitted { round, commitment: hex(seed_commitment) }])
}

/// Tables a round after the first may have: its draw is one commit, one NATS message of at
/// most 1 MiB (about 3.5 kB a table of nine: its opening, its blinds, nine seats). 200 tables
/// hold 1,800 players at 9-max, so a triple shootout of 6,561 (a second round of 729 on 81
/// tables) fits many times over. A larger round is refused (and logged by the policy) rather
/// than retried forever; drawing it in parts as the start-of-play draw is would lift this.
pub const ROUND_TABLES_AT_MOST: usize = 200;

pub(super) fn draw_round(
    state: &SeatingState,
    round: u32,
    entries: &[EntryNo],
    seed: Seed,
    at: DateTime<Utc>,
) -> Result<Vec<SeatingEvent>, SeatingError> {
    let Some(shootout) = &state.shootout else { return Err(SeatingError::NotAShootout) };
    if round <= shootout.round {
        return Ok(vec![]);
    }
    if round != shootout.round + 1 || !shootout.between_rounds() {
        return Err(SeatingError::RoundNotOver { round, playing: shootout.round });
    }
    if shootout.commitments.get(&round).is_some_and(|c| *c != hex(&commitment(&seed))) {
        return Err(SeatingError::SeedMismatch);
    }
    let mut distinct = entries.to_vec();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < 2 {
        return Err(SeatingError::TooFewEntries(distinct.len()));
    }
    // The round's entries are players still in, waiting at a table won in the round before
    // or with a bye.
    let waiting =
        |e: &EntryNo| shootout.byes.contains(e) || state.located.get(e).is_some_and(|(table, _)| state.room.table(*table).is_none());
    if let Some(&stranger) = distinct.iter().find(|e| !state.entries.contains_key(e) || !waiting(e)) {
        return Err(SeatingError::NotAWinner(stranger));
    }
    let size = state.table_size;
    let drawn = initial_seating(&distinct, usize::from(size), &seed);
    if drawn.len() > ROUND_TABLES_AT_MOST {
        return Err(SeatingError::RoundTooLarge(drawn.len()));
    }
    let number = |t: &Table| shootout.last_table + t.number;
    let mut out = Outbox::new(state);
    let tables = drawn
        .iter()
        .map(|t| DrawnTable {
            table: number(t),
            seats: t.occupied().map(|(s, o)| SeatedEntry { seat: seat_no(s), entry: o.entry }).collect(),
        })
        .collect();
    out.push(SeatingEvent::RoundDrawn { round, seed: hex(&seed), tables, at });
    for table in &drawn {
        let to = number(table);
        out.open_table(to, size);
        for (seat, occupant) in table.occupied() {
            let entry = occupant.entry;
            let player = state.entries.get(&entry).cloned().expect("checked: a live entry");
            let stack = match shootout.stacks {
                RoundStacks::Carry => state.play.chips.get(&entry).copied().unwrap_or(0),
                RoundStacks::Reset => state.starting_stack,
            };
            out.instruct(to, Instruction::SeatPlayer { entry, player, seat: seat_no(seat), stack, wait_for_button: false });
        }
    }
    if drawn.len() > 1 {
        for table in &drawn {
            won_at_draw(shootout.advance, round, number(table), table, &mut out);
        }
    }
    Ok(out.events)
}

/// Players a table drawn with `drawn` plays down to. A table the draw gives no more players
/// than `advance` (a short field's uneven tables, an `advance` close to the table size) plays
/// until one of them is out, so that every round has fewer players than the one before and
/// the shootout ends: 10 players on 9-max tables with `advance: 8` are two tables of five,
/// each played down to four, then a final table of eight. The rulebooks' shootouts (full
/// tables, one winner each) never meet this rule.
pub fn target(advance: u32, drawn: u32) -> u32 {
    advance.min(drawn.saturating_sub(1)).max(1)
}

/// A table of a round with more than one table that the draw gave a single player (two-seat
/// tables and an odd field) is won at once: there is no one to play.
pub(super) fn won_at_draw(advance: u32, round: u32, number: u32, table: &Table, out: &mut Outbox<'_>) {
    if table.count() as u32 <= target(advance, table.count() as u32) {
        let winners = table.occupied().map(|(_, o)| o.entry).collect();
        out.push(SeatingEvent::TableWon { round, table: number, winners });
        out.push(SeatingEvent::TableClosed { table: number });
        out.instruct(number, Instruction::CloseTable);
    }
}

/// After busts at `tables`: each table of a round with more than one table that is down to
/// its winners is won and closed.
pub(super) fn tables_won(shootout: &ShootoutState, room: &impl crate::room::RoomLike, tables: BTreeSet<u32>, out: &mut Outbox<'_>) {
    if !shootout.leads_on() {
        return;
    }
    for number in tables {
        let Some(table) = room.table(number) else { continue };
        if shootout.won.contains(&number) || table.count() == 0 || table.count() as u32 > shootout.target(number) {
            continue;
        }
        let winners = table.occupied().map(|(_, o)| o.entry).collect();
        out.push(SeatingEvent::TableWon { round: shootout.round, table: number, winners });
        out.push(SeatingEvent::TableClosed { table: number });
        out.instruct(number, Instruction::CloseTable);
    }
}

/// A round's draw, replayed: its tables open with their players, numbered after every table
/// before.
pub(super) fn apply_round_drawn(state: &mut SeatingState, round: u32, tables: Vec<DrawnTable>) {
    let size = usize::from(state.table_size);
    let count = tables.len() as u32;
    let players: BTreeMap<u32, u32> = tables.iter().map(|t| (t.table, t.seats.len() as u32)).collect();
    let mut last = 0;
    for drawn in tables {
        let mut table = Table::new(drawn.table, size);
        for s in drawn.seats {
            table.seats[seat_index(s.seat)] = Some(Occupant { entry: s.entry, moves: 0 });
            state.located.insert(s.entry, (drawn.table, seat_index(s.seat)));
        }
        last = last.max(drawn.table);
        state.room.open(table);
    }
    if let Some(shootout) = state.shootout.as_mut() {
        shootout.round = round;
        shootout.tables = count;
        shootout.won.clear();
        shootout.drawn = players;
        shootout.last_table = shootout.last_table.max(last);
        shootout.byes.clear();
    }
}
