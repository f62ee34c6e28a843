//! Who sits where, as players see it: a pure fold of one tournament's seating log
//! (`floor.ev.seating.<t>`) into small documents, each its own resource in KV bucket
//! [`BUCKET`] so no document grows with the field:
//!
//! | key | document | changes when |
//! |---|---|---|
//! | `<t>` | [`SeatsSummary`]: open tables, seated and waiting entries, recent moves and closed tables with their reasons | any seat changes |
//! | `<t>.table.<n>` | [`TableDoc`]: one open table, seat by seat, with stacks | a hand at that table ends, someone sits or leaves |
//! | `<t>.roster.<k>` | [`RosterChunk`]: entries `k·1000 … k·1000+999`, whose they are and whether they are out | an entry joins or is out |
//!
//! A closed table's key is deleted; the summary keeps the last [`CLOSED_KEPT`] closures.
//! Stacks are those of the last hand the table reported (or the starting stack before one).

use floor_events::seating::{MoveReason, SeatingEvent};
use floor_events::shootouts::RoundStacks;
use floor_events::{EntryNo, PlayerId, TournamentId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// The bucket of seat maps.
pub const BUCKET: &str = "floor-lobby-tables";
/// Moves the summary keeps, newest first.
pub const MOVES_KEPT: usize = 20;
/// Closed tables the summary keeps, newest first.
pub const CLOSED_KEPT: usize = 20;
/// Entries per roster document.
pub const ROSTER_CHUNK: u32 = 1000;

/// The key of a tournament's summary.
pub fn summary_key(tournament: TournamentId) -> String {
    tournament.to_string()
}
/// The key of one of its tables.
pub fn table_key(tournament: TournamentId, table: u32) -> String {
    format!("{tournament}.table.{table}")
}
/// The key of one of its roster documents.
pub fn roster_key(tournament: TournamentId, chunk: u32) -> String {
    format!("{tournament}.roster.{chunk}")
}

/// What a key of the bucket holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A summary.
    Summary(TournamentId),
    /// A table.
    Table(TournamentId, u32),
    /// A roster document.
    Roster(TournamentId, u32),
}

impl Key {
    /// Reads a key of the bucket; `None` for anything else.
    pub fn parse(key: &str) -> Option<Self> {
        let mut parts = key.split('.');
        let tournament = TournamentId(uuid::Uuid::parse_str(parts.next()?).ok()?);
        let key = match (parts.next(), parts.next().map(str::parse::<u32>)) {
            (None, _) => Key::Summary(tournament),
            (Some("table"), Some(Ok(n))) => Key::Table(tournament, n),
            (Some("roster"), Some(Ok(k))) => Key::Roster(tournament, k),
            _ => return None,
        };
        parts.next().is_none().then_some(key)
    }
}

/// Someone at a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occupant {
    /// The seat, from 1.
    pub seat: u8,
    /// The entry.
    pub entry: EntryNo,
    /// Whose entry; absent only if seating never said (a log older than its `entry_joined`).
    pub player: Option<PlayerId>,
    /// Chips after the last hand reported.
    pub chips: u64,
}

/// One open table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableDoc {
    /// The table number.
    pub table: u32,
    /// Who sits where, by seat.
    pub seats: Vec<Occupant>,
    /// The last hand reported started.
    pub last_hand: Option<u64>,
    /// Whether that hand is still being played.
    pub hand_running: bool,
    /// Hands finished here.
    pub hands: u64,
}

impl TableDoc {
    /// Chips at the table.
    pub fn chips(&self) -> u64 {
        self.seats.iter().map(|o| o.chips).fold(0u64, u64::saturating_add)
    }
}

/// A recent move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecentMove {
    /// Who.
    pub entry: EntryNo,
    /// Whose entry.
    pub player: Option<PlayerId>,
    /// From table, seat.
    pub from: (u32, u8),
    /// To table, seat.
    pub to: (u32, u8),
    /// Why, with the numbers that justified it.
    pub reason: MoveReason,
}

/// Why a table closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Closure {
    /// Broken to keep the tables full (TDA R10-B).
    Broken {
        /// Players left then.
        players_left: u32,
        /// Tables they needed.
        tables_needed: u32,
    },
    /// Combined into the final table.
    FinalTable {
        /// Players left then.
        players_left: u32,
    },
    /// The tournament is over.
    TournamentOver,
    /// A shootout table down to its winners (issue 37): they wait for the next round's draw.
    Won {
        /// The round.
        round: u32,
    },
}

/// A table that closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosedTable {
    /// The table.
    pub table: u32,
    /// Why.
    pub closure: Closure,
}

/// A tournament's seating at a glance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatsSummary {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Open tables, by number.
    pub tables: Vec<u32>,
    /// Entries in a seat.
    pub seated: u32,
    /// Entries joined and not yet seated (before the draw, or waiting for a table).
    pub waiting: u32,
    /// Entries out.
    pub out: u32,
    /// The last moves, newest first.
    pub moves: Vec<RecentMove>,
    /// The last tables closed, newest first.
    pub closed: Vec<ClosedTable>,
    /// Tables closed in all.
    #[serde(default)]
    pub tables_closed: u32,
    /// The winner, once there is one.
    pub winner: Option<EntryNo>,
    /// A shootout's round in play and each of its tables' progress (issue 37); absent for any
    /// other tournament.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shootout: Option<ShootoutProgress>,
    /// The last seating commit folded in (a commit delivered twice changes nothing).
    pub last_sequence: u64,
}

/// A shootout's round as seating plays it (issue 37): folded from `shootout_configured`, the
/// draws (`tables_drawn` for round 1, `round_drawn` after) and `table_won`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShootoutProgress {
    /// Players who advance from each table of a round that is not the last.
    pub advance: u32,
    /// Stacks carried into the next round, or reset.
    pub stacks: RoundStacks,
    /// The round in play (0 before the first draw).
    pub round: u32,
    /// Its tables, by number, with their progress.
    pub tables: Vec<RoundTable>,
    /// The commitment of the next round's draw, once published (SHA-256 of its seed, hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_commitment: Option<String>,
    /// The seed of the round's draw, revealed (rounds 2 and later; round 1's is the seat
    /// draw's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
}

impl ShootoutProgress {
    /// Tables of the round won so far.
    pub fn won(&self) -> usize {
        self.tables.iter().filter(|t| t.winners.is_some()).count()
    }

    /// Every table of the round has its winners and more than one table played it: the
    /// winners wait for the next round's draw.
    pub fn between_rounds(&self) -> bool {
        self.tables.len() > 1 && self.won() == self.tables.len()
    }
}

/// One table of a shootout round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundTable {
    /// The table.
    pub table: u32,
    /// Players it was drawn with.
    pub drawn: u32,
    /// Players still at it (its winners, once won).
    pub players: u32,
    /// Who won it, once it is won: they advance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winners: Option<Vec<Winner>>,
}

/// A table's winner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Winner {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: Option<PlayerId>,
}

/// One entry as the roster holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterEntry {
    /// Whose.
    pub player: PlayerId,
    /// Chips it joined with (its stack until its table reports a hand).
    pub stack: u64,
    /// Out of the tournament.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub out: bool,
}

/// Entries `k·1000 … k·1000+999`, by entry number.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterChunk {
    /// Entry number → the entry.
    pub entries: BTreeMap<u32, RosterEntry>,
}

/// One tournament's seat map, folded event by event, with what changed since it was last
/// stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatMap {
    summary: SeatsSummary,
    tables: BTreeMap<u32, TableDoc>,
    roster: BTreeMap<u32, RosterChunk>,
    /// Entry → its table and seat.
    at: HashMap<EntryNo, (u32, u8)>,
    changed: Changes,
}

/// Keys to store or delete since the last [`SeatMap::take_changes`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Tables to store.
    pub tables: BTreeSet<u32>,
    /// Tables to delete.
    pub closed: BTreeSet<u32>,
    /// Roster documents to store.
    pub roster: BTreeSet<u32>,
    /// Whether the summary changed.
    pub summary: bool,
}

fn chunk(entry: EntryNo) -> u32 {
    entry.0 / ROSTER_CHUNK
}

fn push_front<T>(list: &mut Vec<T>, item: T, kept: usize) {
    let mut deque: VecDeque<T> = std::mem::take(list).into();
    deque.push_front(item);
    deque.truncate(kept);
    *list = deque.into();
}

impl SeatMap {
    /// A tournament seating has not said anything of yet.
    pub fn new(tournament: TournamentId) -> Self {
        Self::stored(
            SeatsSummary {
                tournament_id: tournament,
                tables: vec![],
                seated: 0,
                waiting: 0,
                out: 0,
                moves: vec![],
                closed: vec![],
                tables_closed: 0,
                winner: None,
                shootout: None,
                last_sequence: 0,
            },
            vec![],
            vec![],
        )
    }

    /// A seat map as stored: its summary, its open tables and its roster.
    pub fn stored(summary: SeatsSummary, tables: Vec<TableDoc>, roster: Vec<(u32, RosterChunk)>) -> Self {
        let tables: BTreeMap<u32, TableDoc> = tables.into_iter().map(|t| (t.table, t)).collect();
        let at = tables.values().flat_map(|t| t.seats.iter().map(|o| (o.entry, (t.table, o.seat)))).collect();
        Self { summary, tables, roster: roster.into_iter().collect(), at, changed: Changes::default() }
    }

    /// The summary.
    pub fn summary(&self) -> &SeatsSummary {
        &self.summary
    }

    /// An open table.
    pub fn table(&self, table: u32) -> Option<&TableDoc> {
        self.tables.get(&table)
    }

    /// A roster document.
    pub fn roster(&self, chunk: u32) -> Option<&RosterChunk> {
        self.roster.get(&chunk)
    }

    /// Where an entry sits.
    pub fn seat_of(&self, entry: EntryNo) -> Option<(u32, u8)> {
        self.at.get(&entry).copied()
    }

    /// The keys changed since the last call, and forgets them.
    pub fn take_changes(&mut self) -> Changes {
        std::mem::take(&mut self.changed)
    }

    fn joined(&self, entry: EntryNo) -> Option<&RosterEntry> {
        self.roster.get(&chunk(entry)).and_then(|c| c.entries.get(&entry.0))
    }

    fn player(&self, entry: EntryNo) -> Option<PlayerId> {
        self.joined(entry).map(|e| e.player.clone())
    }

    /// The chips an entry joined with.
    fn starting_stack(&self, entry: EntryNo) -> u64 {
        self.joined(entry).map_or(0, |e| e.stack)
    }

    fn sit(&mut self, entry: EntryNo, table: u32, seat: u8, chips: u64) {
        let player = self.player(entry);
        let doc = self.tables.entry(table).or_insert_with(|| TableDoc { table, ..TableDoc::default() });
        doc.seats.retain(|o| o.seat != seat);
        let at = doc.seats.partition_point(|o| o.seat < seat);
        doc.seats.insert(at, Occupant { seat, entry, player, chips });
        self.at.insert(entry, (table, seat));
        self.changed.tables.insert(table);
    }

    /// Takes an entry off its seat; its chips.
    fn unseat(&mut self, entry: EntryNo) -> Option<u64> {
        let (table, seat) = self.at.remove(&entry)?;
        let doc = self.tables.get_mut(&table)?;
        let at = doc.seats.iter().position(|o| o.seat == seat && o.entry == entry)?;
        self.changed.tables.insert(table);
        Some(doc.seats.remove(at).chips)
    }

    fn recount(&mut self) {
        let joined = self.roster.values().map(|c| c.entries.len() as u32).sum::<u32>();
        self.summary.seated = self.at.len() as u32;
        // The winner, once their last table closed, sits nowhere and is not out: not waiting
        // for a seat either (issue 39: the finished page counted them as waiting).
        let winner_unseated = self.summary.winner.is_some_and(|w| !self.at.contains_key(&w));
        self.summary.waiting =
            joined.saturating_sub(self.summary.seated).saturating_sub(self.summary.out).saturating_sub(u32::from(winner_unseated));
        self.summary.tables = self.tables.keys().copied().collect();
        if let Some(progress) = self.summary.shootout.as_mut() {
            for t in progress.tables.iter_mut().filter(|t| t.winners.is_none()) {
                t.players = self.tables.get(&t.table).map_or(0, |doc| doc.seats.len() as u32);
            }
        }
    }

    /// A shootout round's tables as drawn (issue 37).
    fn round_drawn(&mut self, round: u32, tables: &[floor_events::seating::DrawnTable], seed: Option<&str>) {
        let Some(progress) = self.summary.shootout.as_mut() else { return };
        if round < progress.round || (round == progress.round && seed.is_some()) {
            return;
        }
        if round > progress.round {
            progress.round = round;
            progress.tables.clear();
            progress.seed = seed.map(str::to_owned);
            progress.next_commitment = None;
        }
        for drawn in tables {
            let players = drawn.seats.len() as u32;
            match progress.tables.iter_mut().find(|t| t.table == drawn.table) {
                Some(t) => (t.drawn, t.players) = (players, players),
                None => progress.tables.push(RoundTable { table: drawn.table, drawn: players, players, winners: None }),
            }
        }
        progress.tables.sort_by_key(|t| t.table);
    }

    fn stacks(&mut self, table: u32, stacks: &[floor_events::table::SeatStack]) {
        if let Some(doc) = self.tables.get_mut(&table) {
            for stack in stacks {
                if let Some(o) = doc.seats.iter_mut().find(|o| o.seat == stack.seat.0 && o.entry == stack.entry) {
                    o.chips = stack.chips;
                }
            }
            self.changed.tables.insert(table);
        }
    }

    /// Folds one commit's events, stored at `sequence`; a commit at or below the last one
    /// folded changes nothing.
    pub fn apply(&mut self, sequence: u64, events: &[SeatingEvent]) {
        if sequence <= self.summary.last_sequence {
            return;
        }
        for event in events {
            self.evolve(event);
        }
        self.recount();
        self.summary.last_sequence = sequence;
        self.changed.summary = true;
    }

    fn evolve(&mut self, event: &SeatingEvent) {
        match event {
            SeatingEvent::EntryJoined { entry, player, stack } => {
                let chunk_no = chunk(*entry);
                self.roster
                    .entry(chunk_no)
                    .or_default()
                    .entries
                    .insert(entry.0, RosterEntry { player: player.clone(), stack: *stack, out: false });
                self.changed.roster.insert(chunk_no);
            }
            SeatingEvent::EntryLeft { entry } => {
                let chunk_no = chunk(*entry);
                if let Some(c) = self.roster.get_mut(&chunk_no) {
                    c.entries.remove(&entry.0);
                    self.changed.roster.insert(chunk_no);
                }
            }
            SeatingEvent::TablesDrawn { tables, .. } => {
                for drawn in tables {
                    for seated in &drawn.seats {
                        let chips = self.starting_stack(seated.entry);
                        self.sit(seated.entry, drawn.table, seated.seat.0, chips);
                    }
                }
                self.round_drawn(1, tables, None);
            }
            SeatingEvent::ShootoutConfigured { advance, stacks, .. } => {
                if self.summary.shootout.is_none() {
                    self.summary.shootout = Some(ShootoutProgress {
                        advance: *advance,
                        stacks: *stacks,
                        round: 0,
                        tables: vec![],
                        next_commitment: None,
                        seed: None,
                    });
                }
            }
            SeatingEvent::RoundDrawCommitted { commitment, round } => {
                if let Some(progress) = self.summary.shootout.as_mut().filter(|p| p.round < *round) {
                    progress.next_commitment = Some(commitment.clone());
                }
            }
            SeatingEvent::RoundDrawn { round, seed, tables, .. } => {
                // The stacks (carried or reset) are the `seat_player` instructions' that follow.
                for drawn in tables {
                    for seated in &drawn.seats {
                        let chips = self.starting_stack(seated.entry);
                        self.sit(seated.entry, drawn.table, seated.seat.0, chips);
                    }
                }
                self.round_drawn(*round, tables, Some(seed));
            }
            SeatingEvent::TableWon { round, table, winners } => {
                let named: Vec<Winner> = winners.iter().map(|e| Winner { entry: *e, player: self.player(*e) }).collect();
                if let Some(progress) = self.summary.shootout.as_mut().filter(|p| p.round == *round) {
                    let players = named.len() as u32;
                    match progress.tables.iter_mut().find(|t| t.table == *table) {
                        Some(t) => (t.players, t.winners) = (players, Some(named)),
                        None => {
                            progress.tables.push(RoundTable { table: *table, drawn: players, players, winners: Some(named) });
                            progress.tables.sort_by_key(|t| t.table);
                        }
                    }
                }
            }
            SeatingEvent::EntrySeated { entry, table, seat, .. } => {
                let chips = self.starting_stack(*entry);
                self.sit(*entry, *table, seat.0, chips);
            }
            SeatingEvent::TableOpened { table, .. } => {
                self.tables.entry(*table).or_insert_with(|| TableDoc { table: *table, ..TableDoc::default() });
                self.changed.tables.insert(*table);
                self.changed.closed.remove(table);
            }
            SeatingEvent::HandStarted { table, hand, stacks, .. } => {
                self.stacks(*table, stacks);
                if let Some(doc) = self.tables.get_mut(table) {
                    doc.last_hand = Some(*hand);
                    doc.hand_running = true;
                }
            }
            SeatingEvent::HandFinished { table, hand, stacks, busts } => {
                self.stacks(*table, stacks);
                if let Some(doc) = self.tables.get_mut(table) {
                    doc.last_hand = Some(*hand);
                    doc.hand_running = false;
                    doc.hands += 1;
                    for bust in busts {
                        if let Some(o) = doc.seats.iter_mut().find(|o| o.entry == bust.entry) {
                            o.chips = 0;
                        }
                    }
                }
            }
            SeatingEvent::EntryEliminated { entry, .. } => {
                self.unseat(*entry);
                let chunk_no = chunk(*entry);
                if let Some(e) = self.roster.get_mut(&chunk_no).and_then(|c| c.entries.get_mut(&entry.0)) {
                    if !e.out {
                        e.out = true;
                        self.summary.out += 1;
                        self.changed.roster.insert(chunk_no);
                    }
                }
            }
            SeatingEvent::PlayerMoved { entry, from_table, from_seat, to_table, to_seat, reason, .. } => {
                let chips = self.unseat(*entry).unwrap_or(0);
                self.sit(*entry, *to_table, to_seat.0, chips);
                let moved = RecentMove {
                    entry: *entry,
                    player: self.player(*entry),
                    from: (*from_table, from_seat.0),
                    to: (*to_table, to_seat.0),
                    reason: *reason,
                };
                push_front(&mut self.summary.moves, moved, MOVES_KEPT);
            }
            SeatingEvent::TableClosed { table } => {
                if let Some(doc) = self.tables.remove(table) {
                    for o in doc.seats {
                        self.at.remove(&o.entry);
                    }
                }
                // Why its players left: the newest move away from it.
                let left = self.summary.moves.iter().find(|m| m.from.0 == *table).map(|m| m.reason);
                let won = self
                    .summary
                    .shootout
                    .as_ref()
                    // The last round's one table is won by the tournament's winner: it is over.
                    .filter(|p| p.tables.len() > 1)
                    .and_then(|p| p.tables.iter().any(|t| t.table == *table && t.winners.is_some()).then_some(p.round));
                let closure = match left {
                    _ if won.is_some() => Closure::Won { round: won.unwrap_or_default() },
                    Some(MoveReason::Break { players_left, tables_needed }) => Closure::Broken { players_left, tables_needed },
                    Some(MoveReason::FinalTable { players_left, .. }) => Closure::FinalTable { players_left },
                    // A table players left only to balance others closes when the game ends.
                    Some(MoveReason::Balance { .. }) | None => Closure::TournamentOver,
                };
                push_front(&mut self.summary.closed, ClosedTable { table: *table, closure }, CLOSED_KEPT);
                self.summary.tables_closed = self.summary.tables_closed.saturating_add(1);
                self.changed.tables.remove(table);
                self.changed.closed.insert(*table);
            }
            SeatingEvent::TournamentWon { entry } => self.summary.winner = Some(*entry),
            // A shootout round's players sit with the stack their `seat_player` says (carried
            // from the round before, or the starting stack again).
            SeatingEvent::Instructed { instruction } if self.summary.shootout.is_some() => {
                if let floor_events::table::Instruction::SeatPlayer { entry, seat, stack, .. } = &instruction.instruction {
                    if self.at.get(entry) == Some(&(instruction.table, seat.0)) {
                        if let Some(o) =
                            self.tables.get_mut(&instruction.table).and_then(|d| d.seats.iter_mut().find(|o| o.entry == *entry))
                        {
                            o.chips = *stack;
                            self.changed.tables.insert(instruction.table);
                        }
                    }
                }
            }
            SeatingEvent::SeatingConfigured { .. }
            | SeatingEvent::RebuysEnded
            | SeatingEvent::ChipsBought { .. }
            | SeatingEvent::ChipsAtTable { .. }
            | SeatingEvent::DrawCommitted { .. }
            | SeatingEvent::ByesDrawn { .. }
            | SeatingEvent::ReportRejected { .. }
            | SeatingEvent::StackReachedZero { .. }
            | SeatingEvent::MoveConfirmed { .. }
            | SeatingEvent::BlindsSet { .. }
            | SeatingEvent::Instructed { .. } => {}
        }
    }
}

/// One entry a search found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// Out of the tournament.
    pub out: bool,
    /// Its table and seat, if it sits.
    pub table: Option<u32>,
    /// Its seat.
    pub seat: Option<u8>,
    /// Its chips after the last hand its table reported.
    pub chips: Option<u64>,
    /// Its place once out, or the winner's (issue 39: from [`crate::results`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<u32>,
    /// Players who shared that place (out in the same hand), once placed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared: Option<u32>,
    /// The prize that place paid (zero out of the money), once placed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prize: Option<floor_events::Money>,
}

/// The entries whose player name contains `name` (ASCII case ignored), by entry number, at
/// most `limit`; an empty `name` finds nothing.
pub fn search<'a>(
    roster: impl IntoIterator<Item = &'a RosterChunk>,
    tables: impl IntoIterator<Item = &'a TableDoc>,
    name: &str,
    limit: usize,
) -> Vec<Found> {
    let name = name.trim().to_ascii_lowercase();
    if name.is_empty() {
        return vec![];
    }
    let mut found: Vec<Found> = roster
        .into_iter()
        .flat_map(|c| c.entries.iter())
        .filter(|(_, e)| e.player.as_str().to_ascii_lowercase().contains(&name))
        .take(limit)
        .map(|(n, e)| Found {
            entry: EntryNo(*n),
            player: e.player.clone(),
            out: e.out,
            table: None,
            seat: None,
            chips: None,
            place: None,
            shared: None,
            prize: None,
        })
        .collect();
    found.sort_by_key(|f| f.entry.0);
    let wanted: HashMap<EntryNo, usize> = found.iter().enumerate().map(|(i, f)| (f.entry, i)).collect();
    for table in tables {
        for o in &table.seats {
            if let Some(&i) = wanted.get(&o.entry) {
                let f = &mut found[i];
                (f.table, f.seat, f.chips) = (Some(table.table), Some(o.seat), Some(o.chips));
            }
        }
    }
    found
}

/// A table document for tests: table `n`, its seats as (seat, entry, player, chips), four hands
/// dealt, one running.
#[cfg(test)]
pub(crate) fn test_table(n: u32, seats: &[(u8, u32, &str, u64)]) -> TableDoc {
    TableDoc {
        table: n,
        seats: seats
            .iter()
            .map(|(seat, entry, p, chips)| Occupant {
                seat: *seat,
                entry: floor_events::EntryNo(*entry),
                player: floor_events::PlayerId::parse(p).ok(),
                chips: *chips,
            })
            .collect(),
        last_hand: Some(4),
        hand_running: true,
        hands: 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::seating::{DrawnTable, SeatedEntry};
    use floor_events::table::{BustReport, SeatNo, SeatStack};

    fn t() -> TournamentId {
        TournamentId(uuid::Uuid::from_u128(7))
    }

    fn joined(entry: u32, player: &str) -> SeatingEvent {
        SeatingEvent::EntryJoined { entry: EntryNo(entry), player: PlayerId::parse(player).unwrap(), stack: 10_000 }
    }

    fn seat(seat: u8, entry: u32) -> SeatedEntry {
        SeatedEntry { seat: SeatNo(seat), entry: EntryNo(entry) }
    }

    /// Four entries, two tables of two.
    fn drawn() -> SeatMap {
        let mut map = SeatMap::new(t());
        map.apply(1, &[joined(1, "ana"), joined(2, "ben"), joined(3, "cy"), joined(1003, "Dina")]);
        map.apply(
            2,
            &[SeatingEvent::TablesDrawn {
                seed: "00".into(),
                total_tables: 2,
                tables: vec![
                    DrawnTable { table: 1, seats: vec![seat(1, 1), seat(2, 2)] },
                    DrawnTable { table: 2, seats: vec![seat(1, 3), seat(2, 1003)] },
                ],
                at: "2027-01-10T18:00:00Z".parse().unwrap(),
            }],
        );
        map
    }

    #[test]
    fn keys_read_back_as_what_they_name() {
        assert_eq!(Key::parse(&summary_key(t())), Some(Key::Summary(t())));
        assert_eq!(Key::parse(&table_key(t(), 12)), Some(Key::Table(t(), 12)));
        assert_eq!(Key::parse(&roster_key(t(), 3)), Some(Key::Roster(t(), 3)));
        for bad in ["", "x", "nope.table.1", &format!("{}.table.x", t()), &format!("{}.table.1.2", t()), &format!("{}.seats.1", t())] {
            assert_eq!(Key::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_draw_seats_every_entry_with_its_starting_stack_and_player() {
        let mut map = drawn();
        let table = map.table(2).unwrap();
        assert_eq!(table.seats.iter().map(|o| (o.seat, o.entry.0, o.chips)).collect::<Vec<_>>(), [(1, 3, 10_000), (2, 1003, 10_000)]);
        assert_eq!(table.seats[1].player.as_ref().map(PlayerId::as_str), Some("Dina"));
        let summary = map.summary();
        assert_eq!((summary.tables.clone(), summary.seated, summary.waiting, summary.out), (vec![1, 2], 4, 0, 0));
        let changes = map.take_changes();
        assert_eq!(changes.tables, BTreeSet::from([1, 2]));
        assert_eq!(changes.roster, BTreeSet::from([0, 1]), "entry 1003 is in the second roster document");
        assert!(changes.summary);
        assert_eq!(map.take_changes(), Changes::default(), "taken once");
    }

    /// Issue 39: the winner, their last table closed, is neither seated, out nor waiting.
    #[test]
    fn the_winner_is_not_counted_as_waiting_for_a_seat() {
        let mut map = drawn();
        let out = |entry: u32, players_left: u32, table: u32| SeatingEvent::EntryEliminated {
            entry: EntryNo(entry),
            players_left,
            stack_at_start: None,
            table: Some(table),
        };
        map.apply(3, &[out(1003, 3, 2), out(3, 2, 2), SeatingEvent::TableClosed { table: 2 }, out(2, 1, 1)]);
        map.apply(4, &[SeatingEvent::TableClosed { table: 1 }, SeatingEvent::TournamentWon { entry: EntryNo(1) }]);
        let s = map.summary();
        assert_eq!((s.seated, s.waiting, s.out, s.winner), (0, 0, 3, Some(EntryNo(1))));
    }

    #[test]
    fn a_commit_folded_twice_changes_nothing() {
        let mut map = drawn();
        let before = map.clone();
        map.apply(2, &[SeatingEvent::EntryEliminated { entry: EntryNo(1), players_left: 3, stack_at_start: None, table: None }]);
        assert_eq!(map, before);
    }

    #[test]
    fn hands_busts_moves_and_a_break_change_the_tables_and_say_why() {
        let mut map = drawn();
        map.take_changes();
        map.apply(
            3,
            &[
                SeatingEvent::HandStarted { table: 2, hand: 1, button: SeatNo(1), stacks: vec![], crossing: false },
                SeatingEvent::HandFinished {
                    table: 2,
                    hand: 1,
                    stacks: vec![SeatStack { seat: SeatNo(1), entry: EntryNo(3), chips: 20_000 }],
                    busts: vec![BustReport { entry: EntryNo(1003), stack_at_start: 10_000, pots: vec![], best_high_hand: None }],
                },
                SeatingEvent::EntryEliminated { entry: EntryNo(1003), players_left: 3, stack_at_start: None, table: None },
            ],
        );
        let table = map.table(2).unwrap();
        assert_eq!((table.last_hand, table.hand_running, table.hands), (Some(1), false, 1));
        assert_eq!(table.seats.iter().map(|o| (o.entry.0, o.chips)).collect::<Vec<_>>(), [(3, 20_000)]);
        assert_eq!((map.summary().seated, map.summary().out), (3, 1));
        assert_eq!(map.take_changes().roster, BTreeSet::from([1]), "the busted entry's roster document");
        map.apply(
            4,
            &[
                SeatingEvent::PlayerMoved {
                    entry: EntryNo(3),
                    from_table: 2,
                    from_seat: SeatNo(1),
                    to_table: 1,
                    to_seat: SeatNo(3),
                    wait_for_button: false,
                    reason: MoveReason::Break { players_left: 3, tables_needed: 1 },
                },
                SeatingEvent::TableClosed { table: 2 },
            ],
        );
        assert_eq!(map.table(2), None);
        assert_eq!(
            map.table(1).unwrap().seats[2],
            Occupant { seat: 3, entry: EntryNo(3), player: PlayerId::parse("cy").ok(), chips: 20_000 }
        );
        assert_eq!(map.seat_of(EntryNo(3)), Some((1, 3)));
        let summary = map.summary();
        assert_eq!(summary.tables, [1]);
        assert_eq!(summary.moves[0].from, (2, 1));
        assert_eq!(summary.closed, [ClosedTable { table: 2, closure: Closure::Broken { players_left: 3, tables_needed: 1 } }]);
        assert_eq!(summary.tables_closed, 1);
        let changes = map.take_changes();
        assert_eq!((changes.tables, changes.closed), (BTreeSet::from([1]), BTreeSet::from([2])), "table 2's key is deleted, not stored");
    }

    #[test]
    fn a_late_entry_waits_then_sits_with_its_stack() {
        let mut map = drawn();
        map.apply(3, &[joined(5, "eve")]);
        assert_eq!(map.summary().waiting, 1);
        map.apply(
            4,
            &[
                SeatingEvent::TableOpened { table: 3, seats: 9 },
                SeatingEvent::EntrySeated { entry: EntryNo(5), table: 3, seat: SeatNo(4), wait_for_button: true, seed: None },
            ],
        );
        assert_eq!(map.table(3).unwrap().seats[0].chips, 10_000);
        assert_eq!((map.summary().waiting, map.summary().seated), (0, 5));
    }

    #[test]
    fn moves_and_closures_keep_only_the_newest() {
        let mut map = drawn();
        for i in 0..(MOVES_KEPT as u64 + 5) {
            let (from, to) = if i % 2 == 0 { (1, 2) } else { (2, 1) };
            map.apply(
                3 + i,
                &[SeatingEvent::PlayerMoved {
                    entry: EntryNo(1),
                    from_table: from,
                    from_seat: SeatNo(1),
                    to_table: to,
                    to_seat: SeatNo(5),
                    wait_for_button: false,
                    reason: MoveReason::Balance { from_count: 2, to_count: 1 },
                }],
            );
        }
        assert_eq!(map.summary().moves.len(), MOVES_KEPT);
        assert_eq!(map.seat_of(EntryNo(1)), Some((2, 5)), "the last move counts");
    }

    #[test]
    fn a_stored_map_goes_on_as_the_folded_one() {
        let mut folded = drawn();
        let tables = folded.summary().tables.iter().map(|n| folded.table(*n).unwrap().clone()).collect();
        let roster = [0, 1].into_iter().map(|k| (k, folded.roster(k).unwrap().clone())).collect();
        let mut stored = SeatMap::stored(folded.summary().clone(), tables, roster);
        let next = [SeatingEvent::EntryEliminated { entry: EntryNo(2), players_left: 3, stack_at_start: None, table: None }];
        folded.apply(3, &next);
        stored.apply(3, &next);
        assert_eq!(folded.summary(), stored.summary());
        assert_eq!(folded.table(1), stored.table(1));
        assert_eq!(folded.roster(0), stored.roster(0));
    }

    /// What a fold shows at every step: an entry at one seat at most, the index and the tables
    /// agreeing, and joined = seated + waiting + out.
    fn consistent(map: &SeatMap) -> Result<(), String> {
        let mut seen = BTreeSet::new();
        for table in map.tables.values() {
            for o in &table.seats {
                if !seen.insert(o.entry) {
                    return Err(format!("entry {} sits twice", o.entry.0));
                }
                if map.seat_of(o.entry) != Some((table.table, o.seat)) {
                    return Err(format!("entry {} is indexed elsewhere", o.entry.0));
                }
            }
        }
        let joined: usize = map.roster.values().map(|c| c.entries.len()).sum();
        let s = map.summary();
        if seen.len() != s.seated as usize || joined != (s.seated + s.waiting + s.out) as usize || map.at.len() != seen.len() {
            return Err(format!("counts: {} seats, {joined} joined, summary {} + {} + {}", seen.len(), s.seated, s.waiting, s.out));
        }
        Ok(())
    }

    proptest::proptest! {
        /// Moves, busts and closures in any order (as seating could send them, or not) never
        /// seat an entry twice nor lose count of one.
        #[test]
        fn any_moves_and_busts_keep_one_seat_per_entry_and_the_counts(
            ops in proptest::collection::vec((0u8..4, 1u32..=4, 1u32..=4, 1u8..=6), 0..60)
        ) {
            let mut map = drawn();
            let mut sequence = 3;
            for (op, entry, table, seat) in ops {
                let entry = EntryNo(if entry == 4 { 1003 } else { entry });
                let event = match op {
                    0 => match map.seat_of(entry) {
                        Some((from_table, from_seat)) => SeatingEvent::PlayerMoved {
                            entry,
                            from_table,
                            from_seat: SeatNo(from_seat),
                            to_table: table,
                            to_seat: SeatNo(seat),
                            wait_for_button: false,
                            reason: MoveReason::Balance { from_count: 2, to_count: 1 },
                        },
                        None => continue,
                    },
                    1 => SeatingEvent::EntryEliminated { entry, players_left: 1, stack_at_start: None, table: None },
                    2 => SeatingEvent::TableClosed { table },
                    _ => SeatingEvent::HandFinished { table, hand: sequence, stacks: vec![SeatStack { seat: SeatNo(seat), entry, chips: 7 }], busts: vec![] },
                };
                // A move onto an occupied seat is never decided; skip it like seating would.
                if let SeatingEvent::PlayerMoved { to_table, to_seat, .. } = &event {
                    if map.table(*to_table).is_some_and(|t| t.seats.iter().any(|o| o.seat == to_seat.0)) {
                        continue;
                    }
                }
                map.apply(sequence, std::slice::from_ref(&event));
                let again = map.clone();
                map.apply(sequence, std::slice::from_ref(&event));
                proptest::prop_assert_eq!(&map, &again, "a commit folded twice changes nothing");
                sequence += 1;
                if let Err(e) = consistent(&map) {
                    return Err(proptest::test_runner::TestCaseError::fail(e));
                }
            }
        }
    }

    /// Issue 37: a shootout's round 1 is the seat draw; each table won shows its winners and
    /// closes as won; round 2 is drawn afresh with the stacks its `seat_player` says, its seed
    /// revealed and the table numbered after the first round's.
    #[test]
    fn a_shootout_shows_each_tables_progress_and_the_next_round() {
        use floor_events::table::{Instruction, TableInstruction};
        let mut map = SeatMap::new(t());
        map.apply(1, &[SeatingEvent::ShootoutConfigured { advance: 1, stacks: RoundStacks::Carry, short_field: Default::default() }]);
        assert_eq!(map.summary().shootout.as_ref().map(|p| p.round), Some(0));
        let mut drawn = drawn();
        drawn.summary.shootout = map.summary.shootout.clone();
        let mut map = drawn;
        // `drawn()` folded the draw before the shootout was known: fold it again as a round.
        map.round_drawn(
            1,
            &[
                DrawnTable { table: 1, seats: vec![seat(1, 1), seat(2, 2)] },
                DrawnTable { table: 2, seats: vec![seat(1, 3), seat(2, 1003)] },
            ],
            None,
        );
        map.recount();
        let progress = map.summary().shootout.clone().unwrap();
        assert_eq!((progress.round, progress.tables.len(), progress.won(), progress.between_rounds()), (1, 2, 0, false));
        assert_eq!(progress.tables[0], RoundTable { table: 1, drawn: 2, players: 2, winners: None });
        map.apply(
            3,
            &[
                SeatingEvent::HandFinished {
                    table: 1,
                    hand: 1,
                    stacks: vec![SeatStack { seat: SeatNo(1), entry: EntryNo(1), chips: 20_000 }],
                    busts: vec![],
                },
                SeatingEvent::EntryEliminated { entry: EntryNo(2), players_left: 3, stack_at_start: None, table: Some(1) },
                SeatingEvent::TableWon { round: 1, table: 1, winners: vec![EntryNo(1)] },
                SeatingEvent::TableClosed { table: 1 },
                SeatingEvent::RoundDrawCommitted { round: 2, commitment: "abc".into() },
            ],
        );
        let progress = map.summary().shootout.clone().unwrap();
        let winner = Winner { entry: EntryNo(1), player: PlayerId::parse("ana").ok() };
        assert_eq!(progress.tables[0], RoundTable { table: 1, drawn: 2, players: 1, winners: Some(vec![winner]) });
        assert_eq!((progress.won(), progress.next_commitment.as_deref()), (1, Some("abc")));
        assert_eq!(map.summary().closed[0], ClosedTable { table: 1, closure: Closure::Won { round: 1 } });
        assert_eq!((map.summary().waiting, map.summary().tables.clone()), (1, vec![2]), "the winner waits for round 2");
        map.apply(
            4,
            &[
                SeatingEvent::EntryEliminated { entry: EntryNo(1003), players_left: 2, stack_at_start: None, table: Some(2) },
                SeatingEvent::TableWon { round: 1, table: 2, winners: vec![EntryNo(3)] },
                SeatingEvent::TableClosed { table: 2 },
            ],
        );
        assert!(map.summary().shootout.as_ref().unwrap().between_rounds());
        map.apply(
            5,
            &[
                SeatingEvent::RoundDrawn {
                    round: 2,
                    seed: "5eed".into(),
                    tables: vec![DrawnTable { table: 3, seats: vec![seat(1, 3), seat(2, 1)] }],
                    at: "2027-01-10T19:00:00Z".parse().unwrap(),
                },
                SeatingEvent::TableOpened { table: 3, seats: 2 },
                SeatingEvent::Instructed {
                    instruction: TableInstruction {
                        tournament_id: t(),
                        table: 3,
                        sequence: 1,
                        instruction: Instruction::SeatPlayer {
                            entry: EntryNo(1),
                            player: PlayerId::parse("ana").unwrap(),
                            seat: SeatNo(2),
                            stack: 20_000,
                            wait_for_button: false,
                        },
                    },
                },
            ],
        );
        let progress = map.summary().shootout.clone().unwrap();
        assert_eq!((progress.round, progress.seed.as_deref(), progress.next_commitment.as_deref()), (2, Some("5eed"), None));
        assert_eq!(progress.tables, vec![RoundTable { table: 3, drawn: 2, players: 2, winners: None }]);
        let table = map.table(3).unwrap();
        assert_eq!(
            table.seats.iter().map(|o| (o.entry.0, o.chips)).collect::<Vec<_>>(),
            [(3, 10_000), (1, 20_000)],
            "carried by seat_player"
        );
        let json = serde_json::to_value(map.summary()).unwrap();
        assert_eq!(json["shootout"]["round"], 2);
        // The final table's winner wins the tournament: its closure says so.
        map.apply(
            6,
            &[
                SeatingEvent::EntryEliminated { entry: EntryNo(3), players_left: 1, stack_at_start: None, table: Some(3) },
                SeatingEvent::TableWon { round: 2, table: 3, winners: vec![EntryNo(1)] },
                SeatingEvent::TableClosed { table: 3 },
                SeatingEvent::TournamentWon { entry: EntryNo(1) },
            ],
        );
        assert_eq!(map.summary().closed[0], ClosedTable { table: 3, closure: Closure::TournamentOver });
        assert_eq!(map.summary().shootout.as_ref().map(ShootoutProgress::won), Some(1));
        assert!(serde_json::to_value(drawn_plain().summary()).unwrap().get("shootout").is_none(), "absent for other tournaments");
    }

    fn drawn_plain() -> SeatMap {
        drawn()
    }

    #[test]
    fn search_finds_names_ignoring_case_with_table_seat_and_chips() {
        let map = drawn();
        let roster: Vec<&RosterChunk> = [0, 1].iter().filter_map(|k| map.roster(*k)).collect();
        let tables: Vec<&TableDoc> = [1, 2].iter().filter_map(|n| map.table(*n)).collect();
        let found = search(roster.iter().copied(), tables.iter().copied(), " DIN ", 10);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].entry, found[0].table, found[0].seat, found[0].chips), (EntryNo(1003), Some(2), Some(2), Some(10_000)));
        assert!(search(roster.iter().copied(), tables.iter().copied(), "", 10).is_empty(), "an empty name finds nothing");
        assert_eq!(search(roster.iter().copied(), tables.iter().copied(), "n", 1).len(), 1, "at most the limit");
    }
}
