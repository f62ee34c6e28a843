//! The seating aggregate: one per tournament. Pure: seeds and time come in the commands.
//!
//! It owns the room (every table and seat), what Floor knows of play (chips between hands, the
//! hand in play at each table) and every instruction to the tables, numbered per table. Every
//! decision is an event, so a replay rebuilds the room without deciding again.
//!
//! Moves happen between hands, and a table learns of a move only when its instruction arrives,
//! so the room holds two places for a moving player: the *logical* seat (where balancing counts
//! them: the destination) and, until the source table confirms the removal, the *physical* seat
//! (where they still play). Reports are checked against the physical seats; balancing runs on
//! the logical ones. The destination is told to seat the player only once the source confirms,
//! with the stack the source last reported. A broken table keeps finishing the hand it was
//! dealing, and closes after its players have gone.

use crate::balancing::{decide, owed, BalanceWhen, Decision, Mover, Reason, Rules};
use crate::draw::{commitment, initial_seating, Seed};
use crate::reports::{HandInPlay, Play, Rejection};
use crate::room::Room;
use crate::table::{Occupant, Seat, Table};
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::profile::{Balance, Mover as ProfileMover, SeatingRules};
use floor_events::seating::{DrawnTable, MoveReason, SeatedEntry, SeatingEvent};
use floor_events::table::{BustReport, Instruction, Removal, Report, SeatNo, SeatStack, TableInstruction, TableReport};
use floor_events::{subjects, EntryNo, PlayerId, TournamentId};
use floor_runtime::encoding::{hex, unhex};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

#[cfg(test)]
mod chosen_rules;
mod clock;
mod holds;
mod joining;
#[cfg(test)]
mod late_entries;
pub(crate) mod reporting;
mod shootout;
use holds::{close_tables, hand_for_hand, resume_play, suspend};
use joining::{continue_draw, join, join_carried, join_pool, start};
use reporting::{on_report, refused};
pub use shootout::{draw_byes, ShootoutState};

pub use crate::commands::{SeatingCommand, SeatingError, TABLES_PER_COMMIT};

/// The seating aggregate.
pub struct SeatingAggregate;

/// Names the shape of [`SeatingState`] in snapshots: change it with any change to the state's
/// fields or their meaning, and old snapshots are ignored (the log is folded instead).
pub const SNAPSHOT_VERSION: &str = "seating-5";

/// Where a moving player still plays until the source table lets them go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leaving {
    /// The source table.
    pub table: u32,
    /// Their seat there.
    pub seat: Seat,
    /// Deal them in at the destination only once the button has passed.
    pub wait_for_button: bool,
    /// The sequence of the first `remove_player` the source table was sent for this move: an
    /// earlier one confirms an earlier move, whose player has left already (0 in snapshots
    /// taken before it existed: any confirmation counts, as it did then).
    #[serde(default)]
    pub since: u64,
}

/// Seating, folded from its events. Serialized only for snapshots ([`SNAPSHOT_VERSION`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeatingState {
    /// The tournament.
    pub tournament_id: Option<TournamentId>,
    /// Seats per table.
    pub table_size: u8,
    /// Chips each entry starts with.
    pub starting_stack: u64,
    /// Live entries.
    pub entries: BTreeMap<EntryNo, PlayerId>,
    /// The highest entry that ever joined. Registration numbers entries in order and seating
    /// reads them in order, so an entry at or below it has joined before, even if it has left
    /// or been eliminated since: a replayed join (whose batch, and so command id, may differ)
    /// adds nothing.
    pub highest_joined: Option<EntryNo>,
    /// The draw's commitment, hex.
    pub commitment: Option<String>,
    /// The draw was made (its first part, at least).
    pub started: bool,
    /// The entries the draw seats, as they were when it began.
    pub draw_entries: Vec<EntryNo>,
    /// The draw's seed.
    pub draw_seed: Option<Seed>,
    /// Tables drawn so far, of `draw_total`.
    pub drawn_tables: u32,
    /// Tables in the whole draw.
    pub draw_total: u32,
    /// When the draw began.
    pub draw_at: Option<DateTime<Utc>>,
    /// Every open table, players at their logical seats.
    pub room: Room,
    /// Chips and hands.
    pub play: Play,
    /// Each seated entry's logical seat.
    pub located: HashMap<EntryNo, (u32, Seat)>,
    /// Moving players not yet let go by their source table.
    pub leaving: HashMap<EntryNo, Leaving>,
    /// Closed tables some moving player still sits at.
    pub closing: HashSet<u32>,
    /// Removal instructions awaiting confirmation: (table, sequence) → entry.
    #[serde(with = "floor_runtime::snapshot::pairs")]
    pub awaiting: HashMap<(u32, u64), EntryNo>,
    /// Last instruction sequence per table.
    pub sequences: HashMap<u32, u64>,
    /// Instructions a table may confirm with `instruction_applied` (`seat_player`,
    /// `remove_player`, `add_chips`): (table, sequence). Any other sequence is refused.
    pub confirmable: HashSet<(u32, u64)>,
    /// The blinds now, for tables that open later.
    pub blinds: Option<Instruction>,
    /// The winner, once there is one.
    pub winner: Option<EntryNo>,
    /// Busted stacks keep their seats for a rebuy decision (the rebuy period is open).
    pub rebuys_open: bool,
    /// Entries at zero chips awaiting the rebuy decision: the table and their chips when the
    /// hand they busted in started.
    pub at_zero: HashMap<EntryNo, (u32, u64)>,
    /// Chips bought and not yet at a table.
    pub bought: HashMap<EntryNo, u64>,
    /// `add_chips` instructions awaiting confirmation: (table, sequence) → (entry, chips).
    #[serde(with = "floor_runtime::snapshot::pairs")]
    pub chips_on_way: HashMap<(u32, u64), (EntryNo, u64)>,
    /// Hand-for-hand: tables told `hold_for_deal` and not `resume` since. Empty in snapshots
    /// taken before hand-for-hand existed, which is what they were.
    #[serde(default)]
    pub held: HashMap<u32, Held>,
    /// The tournament is suspended (the abort service): tables told `pause` and not `resume`
    /// since, and the reason they were given.
    #[serde(default)]
    pub paused: HashSet<u32>,
    /// The suspension's reason, while any table is paused by it.
    #[serde(default)]
    pub suspended: Option<String>,
    /// The blinds each open table was last told (a level's blinds go to the tables in parts,
    /// [`TABLES_PER_COMMIT`] per commit, and a part tells those not told yet).
    #[serde(default)]
    pub blinds_told: HashMap<u32, Instruction>,
    /// A shootout's rounds (issue 37); `None` for every other tournament.
    #[serde(default)]
    pub shootout: Option<ShootoutState>,
    /// The clock's instruction in force (`take_break`, `hold_push` or `clock_paused`), sent to a
    /// table that opens meanwhile; `None` once `blinds` or `clock_resumed` ended it.
    #[serde(default)]
    pub clock: Option<Instruction>,
    /// The last clock instruction each open table was told (the clock's instructions go to the
    /// tables in parts, [`TABLES_PER_COMMIT`] per commit, and a part tells those not told yet).
    #[serde(default)]
    pub clock_told: HashMap<u32, Instruction>,
    /// The balancing rules the tournament was configured with; `None` in logs stored before a
    /// tournament could choose, which balanced within one ([`SeatingRules::WITHIN_ONE`]).
    #[serde(default)]
    pub balancing: Option<SeatingRules>,
}

/// A table under hand-for-hand's hold: how many hands it may still deal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// `deal_hand` instructions not dealt yet.
    pub credits: u32,
    /// Between hands when the hold was sent: its next deal may have crossed the hold (that
    /// hand is its announcement hand), until its first deal.
    pub racing: bool,
    /// The `hand` of the last `deal_hand` sent (the ones not dealt yet are the last `credits`
    /// up to it), to send them again after a suspension's `resume` ended the hold.
    #[serde(default)]
    pub last_hand: u64,
}

impl SeatingState {
    /// A draw too large for one commit is still being stored, part by part.
    pub fn drawing(&self) -> bool {
        self.started && self.drawn_tables < self.draw_total
    }

    /// Play is over without a winner: the draw made and every table closed with entries still
    /// in. A satellite stopped with its survivors sharing the seats (issue 36, 000 §16.7:
    /// registration's `tournament_finished` with `shared_by`), or a cancellation in play. Hand
    /// reports are then refused (`tournament_finished`), and a move confirmed seats nobody.
    ///
    /// A shootout whose round has every table won is not over: its winners wait for the next
    /// round's draw (issue 37).
    pub fn over(&self) -> bool {
        self.started
            && !self.drawing()
            && self.winner.is_none()
            && self.room.is_empty()
            && !self.entries.is_empty()
            && !self.shootout.as_ref().is_some_and(ShootoutState::between_rounds)
    }

    /// Where an entry plays now: its source seat while leaving, else its seat.
    pub fn physical(&self, entry: EntryNo) -> Option<(u32, Seat)> {
        self.leaving.get(&entry).map(|l| (l.table, l.seat)).or_else(|| self.located.get(&entry).copied())
    }

    pub(crate) fn rules(&self) -> Rules {
        let chosen = self.balancing.unwrap_or(SeatingRules::WITHIN_ONE);
        Rules {
            table_size: usize::from(self.table_size),
            when: match chosen.balance {
                Balance::DifferenceAboveOne => BalanceWhen::DifferenceAboveOne,
                Balance::ThreeShort => BalanceWhen::ThreeShort,
            },
            mover: match chosen.mover {
                ProfileMover::DueBigBlind => Mover::DueBigBlind,
                ProfileMover::LeastMoved => Mover::LeastMoved,
            },
            // 003 App. 1 b ii: "V turnaji shootout se toto vyvažování nedělá" (a shootout does
            // no balancing); 004 §4.36.3 likewise.
            shootout: self.shootout.is_some(),
        }
    }
}

fn seat_no(seat: Seat) -> SeatNo {
    SeatNo(seat as u8 + 1)
}

fn seat_index(seat: SeatNo) -> Seat {
    usize::from(seat.0).wrapping_sub(1)
}

/// The events of one command, with instructions numbered per table as they are added.
struct Outbox<'a> {
    state: &'a SeatingState,
    next: HashMap<u32, u64>,
    events: Vec<SeatingEvent>,
}

impl<'a> Outbox<'a> {
    fn new(state: &'a SeatingState) -> Self {
        Self { state, next: HashMap::new(), events: Vec::new() }
    }

    fn push(&mut self, event: SeatingEvent) {
        self.events.push(event);
    }

    fn instruct(&mut self, table: u32, instruction: Instruction) -> u64 {
        let last = self.next.entry(table).or_insert_with(|| self.state.sequences.get(&table).copied().unwrap_or(0));
        *last += 1;
        let tournament_id = self.state.tournament_id.expect("configured");
        let sequence = *last;
        self.events.push(SeatingEvent::Instructed { instruction: TableInstruction { tournament_id, table, sequence, instruction } });
        sequence
    }

    /// A new table: its size, the blinds in force and, while the tournament is suspended, the
    /// suspension's `pause` (it deals nothing until play resumes).
    fn open_table(&mut self, table: u32, seats: u8) {
        self.instruct(table, Instruction::OpenTable { seats });
        if let Some(blinds) = self.state.blinds.clone() {
            self.instruct(table, blinds);
        }
        if let Some(reason) = self.state.suspended.clone() {
            self.instruct(table, Instruction::Pause { reason });
        }
        if let Some(clock) = self.state.clock.clone() {
            self.instruct(table, clock);
        }
    }

    fn seat(&mut self, table: u32, entry: EntryNo, seat: Seat, wait_for_button: bool) {
        let player = self.state.entries.get(&entry).cloned().expect("a seated entry is live");
        // Chips bought while the player was between tables travel with them.
        let stack = self.state.play.chips.get(&entry).copied().unwrap_or(0) + self.state.bought.get(&entry).copied().unwrap_or(0);
        self.instruct(table, Instruction::SeatPlayer { entry, player, seat: seat_no(seat), stack, wait_for_button });
    }
}

impl Aggregate for SeatingAggregate {
    const NAME: &'static str = subjects::aggregate::SEATING;
    type State = SeatingState;
    type Command = SeatingCommand;
    type Event = SeatingEvent;
    type Error = SeatingError;

    fn handle_command(state: &SeatingState, command: SeatingCommand) -> Result<Vec<SeatingEvent>, SeatingError> {
        use SeatingCommand::*;
        if let Configure { tournament_id, table_size, starting_stack, rebuys, balancing } = command {
            let configured =
                SeatingEvent::SeatingConfigured { tournament_id, table_size, starting_stack, rebuys, balancing: Some(balancing) };
            return Ok(if state.tournament_id.is_some() { vec![] } else { vec![configured] });
        }
        // A table's reports are answered even for a tournament without seating: the table that
        // sent them sees the rejection in this tournament's seating log.
        let command = match command {
            RefuseReport { table, report_id, why } => return Ok(refused(table, report_id, &why)),
            Report { report, .. } if state.tournament_id.is_none() => {
                let why = Rejection::UnknownTournament(report.tournament_id);
                return Ok(refused(report.table, report.report_id, &why));
            }
            command => command,
        };
        if state.tournament_id.is_none() {
            return Err(SeatingError::NotConfigured);
        }
        match command {
            Configure { .. } | RefuseReport { .. } => unreachable!("handled above"),
            Join { entry, player, seed } => Ok(join(state, entry, player, state.starting_stack, &seed)),
            JoinPool { entries } => join_pool(state, entries),
            JoinCarried { entry, player, stack } => join_carried(state, entry, player, stack),
            Leave { entry } => {
                if state.started {
                    return Err(SeatingError::AlreadyStarted);
                }
                if !state.entries.contains_key(&entry) {
                    return Err(SeatingError::UnknownEntry(entry));
                }
                Ok(vec![SeatingEvent::EntryLeft { entry }])
            }
            CommitDraw { commitment } => {
                if state.started {
                    return Err(SeatingError::AlreadyStarted);
                }
                Ok(if state.commitment.is_some() { vec![] } else { vec![SeatingEvent::DrawCommitted { commitment: hex(&commitment) }] })
            }
            Start { seed, at } => start(state, seed, at),
            ConfigureShootout { terms } => shootout::configure(state, terms),
            CommitRound { round, commitment } => shootout::commit_round(state, round, &commitment),
            DrawRound { round, entries, seed, at } => shootout::draw_round(state, round, &entries, seed, at),
            ContinueDraw { .. } => Ok(continue_draw(state)),
            Blinds { level, small_blind, big_blind, ante, big_blind_ante } => {
                let mut out = Outbox::new(state);
                let instruction = Instruction::Blinds { level, small_blind, big_blind, ante, big_blind_ante };
                let told = |table: &u32| state.blinds_told.get(table) == Some(&instruction);
                let untold: Vec<u32> = state.room.tables().map(|t| t.number).filter(|t| !told(t)).take(TABLES_PER_COMMIT).collect();
                // The first part sets them; later parts tell the tables not told yet.
                if state.blinds.as_ref() != Some(&instruction) {
                    out.push(SeatingEvent::BlindsSet { level, small_blind, big_blind, ante, big_blind_ante });
                }
                for table in untold {
                    out.instruct(table, instruction.clone());
                }
                Ok(out.events)
            }
            Report { report, seed } => Ok(on_report(state, report, &seed)),
            HandForHand { instruction, tables } => Ok(hand_for_hand(state, instruction, &tables)),
            Suspend { reason } => Ok(suspend(state, reason)),
            ResumePlay => Ok(resume_play(state)),
            CloseTables => Ok(close_tables(state)),
            Clock { instruction } => Ok(clock::to_tables(state, instruction)),
            EndRebuys => Ok(if state.rebuys_open { vec![SeatingEvent::RebuysEnded] } else { vec![] }),
            AddChips { entry, chips } => add_chips(state, entry, chips),
            OfferRebuy { entry, until } => {
                // Only while the seat is held; the table the player sits at now.
                let (Some(_), Some((table, _))) = (state.at_zero.get(&entry), state.physical(entry)) else { return Ok(vec![]) };
                let mut out = Outbox::new(state);
                out.instruct(table, Instruction::RebuyOffered { entry, until });
                Ok(out.events)
            }
            Eliminate { entry, seed } => {
                if !state.entries.contains_key(&entry) {
                    return Err(SeatingError::UnknownEntry(entry));
                }
                let Some(&(table, stack_at_start)) = state.at_zero.get(&entry) else { return Err(SeatingError::StillInPlay(entry)) };
                let mut out = Outbox::new(state);
                eliminate(state, &mut out, &[(entry, Some((stack_at_start, table)))], &seed);
                Ok(out.events)
            }
        }
    }

    fn apply_event(mut state: SeatingState, event: SeatingEvent) -> SeatingState {
        use SeatingEvent::*;
        match event {
            SeatingConfigured { tournament_id, table_size, starting_stack, rebuys, balancing } => {
                state.tournament_id = Some(tournament_id);
                state.balancing = balancing;
                state.table_size = table_size;
                state.starting_stack = starting_stack;
                state.rebuys_open = rebuys;
            }
            RebuysEnded => state.rebuys_open = false,
            ChipsBought { entry, chips } => {
                state.at_zero.remove(&entry);
                *state.bought.entry(entry).or_default() += chips;
            }
            ChipsAtTable { entry, chips } => {
                // Tables apply instructions in order: the earliest in flight is the one confirmed.
                let confirmed = state.chips_on_way.iter().filter(|(_, v)| v.0 == entry).map(|(k, _)| *k).min();
                if let Some(key) = confirmed {
                    state.chips_on_way.remove(&key);
                }
                *state.play.chips.entry(entry).or_default() += chips;
                if let Some(bought) = state.bought.get_mut(&entry) {
                    *bought = bought.saturating_sub(chips);
                    if *bought == 0 {
                        state.bought.remove(&entry);
                    }
                }
            }
            EntryJoined { entry, player, stack } => {
                state.highest_joined = state.highest_joined.max(Some(entry));
                state.entries.insert(entry, player);
                state.play.chips.insert(entry, stack);
            }
            EntryLeft { entry } => {
                state.entries.remove(&entry);
                state.play.chips.remove(&entry);
            }
            DrawCommitted { commitment } => state.commitment = Some(commitment),
            TablesDrawn { seed, total_tables, tables, at } => {
                if !state.started {
                    state.started = true;
                    state.draw_at = Some(at);
                    state.draw_entries = state.entries.keys().copied().collect();
                    state.draw_seed = unhex(&seed);
                }
                state.draw_total = total_tables.max(state.draw_total);
                let size = usize::from(state.table_size);
                if let Some(shootout) = state.shootout.as_mut() {
                    shootout.first_round_drawn(total_tables, tables.iter().map(|t| (t.table, t.seats.len() as u32)));
                }
                for drawn in tables {
                    let mut table = Table::new(drawn.table, size);
                    for s in drawn.seats {
                        table.seats[seat_index(s.seat)] = Some(Occupant { entry: s.entry, moves: 0 });
                        state.located.insert(s.entry, (drawn.table, seat_index(s.seat)));
                    }
                    state.room.open(table);
                    state.drawn_tables += 1;
                }
            }
            TableOpened { table, seats } => {
                if state.room.table(table).is_some() {
                    state.room.resize(table, usize::from(seats));
                } else {
                    state.room.open(Table::new(table, usize::from(seats)));
                }
            }
            EntrySeated { entry, table, seat, .. } => {
                state.room.seat(table, seat_index(seat), Occupant { entry, moves: 0 });
                state.located.insert(entry, (table, seat_index(seat)));
            }
            HandStarted { table, hand, button, stacks, crossing } => {
                if let Some(held) = state.held.get_mut(&table) {
                    if !crossing && held.credits > 0 {
                        held.credits -= 1;
                    }
                    held.racing = false;
                }
                state.play.in_play.insert(table, HandInPlay { hand, stacks: stacks.iter().map(|s| (s.entry, s.chips)).collect() });
                state.room.set_button(table, Some(seat_index(button)));
            }
            HandFinished { table, hand, stacks, busts } => {
                state.play.in_play.remove(&table);
                state.play.last_hand.insert(table, hand);
                for s in stacks {
                    state.play.chips.insert(s.entry, s.chips);
                }
                for b in busts {
                    state.play.chips.insert(b.entry, 0);
                }
            }
            ReportRejected { .. } => {}
            StackReachedZero { entry, table, stack_at_start, .. } => {
                state.at_zero.insert(entry, (table, stack_at_start));
            }
            EntryEliminated { entry, .. } => {
                state.at_zero.remove(&entry);
                state.bought.remove(&entry);
                if let Some((table, seat)) = state.located.remove(&entry) {
                    state.room.vacate(table, seat);
                }
                if let Some(left) = state.leaving.remove(&entry) {
                    settle_closing(&mut state, left.table);
                }
                state.entries.remove(&entry);
                state.play.chips.remove(&entry);
            }
            PlayerMoved { entry, from_table, from_seat, to_table, to_seat, wait_for_button, .. } => {
                // `from` is where the player sits at a table; the room holds the seat balancing
                // gave them, which differs when they are moved again before their source table
                // let them go (logs stored before issue 19 named that seat: the same one).
                let (logical_table, logical_seat) = state.located.get(&entry).copied().unwrap_or((from_table, seat_index(from_seat)));
                let logical = to_move(entry, logical_table, seat_no(logical_seat), to_table, to_seat, wait_for_button);
                crate::balancing::apply_move(&mut state.room, &logical);
                state.located.insert(entry, (to_table, seat_index(to_seat)));
                let leaving = state.leaving.entry(entry).or_insert(Leaving {
                    table: from_table,
                    seat: seat_index(from_seat),
                    wait_for_button,
                    since: 0,
                });
                leaving.wait_for_button = wait_for_button;
            }
            MoveConfirmed { entry } => {
                if let Some(left) = state.leaving.remove(&entry) {
                    settle_closing(&mut state, left.table);
                }
            }
            TableClosed { table } => {
                state.held.remove(&table);
                state.paused.remove(&table);
                state.blinds_told.remove(&table);
                state.clock_told.remove(&table);
                state.room.close(table);
                if state.leaving.values().any(|l| l.table == table) {
                    state.closing.insert(table);
                }
            }
            BlindsSet { level, small_blind, big_blind, ante, big_blind_ante } => {
                state.blinds = Some(Instruction::Blinds { level, small_blind, big_blind, ante, big_blind_ante });
                // A level ends a break and a push hold (not a director's pause of the clock).
                if !matches!(state.clock, Some(Instruction::ClockPaused { .. })) {
                    state.clock = None;
                }
            }
            Instructed { instruction } => {
                state.sequences.insert(instruction.table, instruction.sequence);
                if let Instruction::Blinds { .. } = &instruction.instruction {
                    state.blinds_told.insert(instruction.table, instruction.instruction.clone());
                }
                if instruction.instruction.from_clock() {
                    state.clock = match &instruction.instruction {
                        Instruction::ClockResumed { .. } => None,
                        other => Some(other.clone()),
                    };
                    state.clock_told.insert(instruction.table, instruction.instruction.clone());
                }
                if matches!(
                    instruction.instruction,
                    Instruction::SeatPlayer { .. } | Instruction::RemovePlayer { .. } | Instruction::AddChips { .. }
                ) {
                    state.confirmable.insert((instruction.table, instruction.sequence));
                }
                match instruction.instruction {
                    Instruction::RemovePlayer { entry, reason: Removal::Moved { .. } } => {
                        state.awaiting.insert((instruction.table, instruction.sequence), entry);
                        if let Some(leaving) = state.leaving.get_mut(&entry).filter(|l| l.table == instruction.table && l.since == 0) {
                            leaving.since = instruction.sequence;
                        }
                    }
                    Instruction::AddChips { entry, chips } => {
                        state.chips_on_way.insert((instruction.table, instruction.sequence), (entry, chips));
                    }
                    // The seat instruction carries every chip bought so far.
                    Instruction::SeatPlayer { entry, stack, .. } => {
                        state.play.chips.insert(entry, stack);
                        state.bought.remove(&entry);
                    }
                    Instruction::HoldForDeal => {
                        let racing = !state.play.in_play.contains_key(&instruction.table);
                        state.held.insert(instruction.table, Held { credits: 0, racing, last_hand: 0 });
                    }
                    // A `deal_hand` leaves `racing` as it is: the deal that crossed the hold
                    // may be reported after it (it says it answers no `deal_hand`).
                    Instruction::DealHand { hand } => {
                        let held = state.held.entry(instruction.table).or_default();
                        held.credits = held.credits.saturating_add(1);
                        held.last_hand = hand;
                    }
                    // Ends a pause and hand-for-hand's hold alike (the table protocol).
                    Instruction::Resume => {
                        state.held.remove(&instruction.table);
                        state.paused.remove(&instruction.table);
                        if state.paused.is_empty() {
                            state.suspended = None;
                        }
                    }
                    Instruction::Pause { reason } => {
                        state.paused.insert(instruction.table);
                        state.suspended = Some(reason);
                    }
                    _ => {}
                }
            }
            TournamentWon { entry } => state.winner = Some(entry),
            ShootoutConfigured { advance, stacks, short_field } => state.shootout = Some(ShootoutState::new(advance, stacks, short_field)),
            ByesDrawn { entries } => shootout::apply_byes(&mut state, entries),
            RoundDrawCommitted { round, commitment } => {
                if let Some(shootout) = state.shootout.as_mut() {
                    shootout.commitments.insert(round, commitment);
                }
            }
            RoundDrawn { round, tables, .. } => shootout::apply_round_drawn(&mut state, round, tables),
            TableWon { round, table, .. } => {
                if let Some(shootout) = state.shootout.as_mut().filter(|s| s.round == round) {
                    shootout.won.insert(table);
                }
            }
        }
        state
    }
}

/// A closed table whose last moving player left is gone for good.
fn settle_closing(state: &mut SeatingState, table: u32) {
    if !state.leaving.values().any(|l| l.table == table) {
        state.closing.remove(&table);
    }
}

fn to_move(entry: EntryNo, from_table: u32, from_seat: SeatNo, to_table: u32, to_seat: SeatNo, wait_for_button: bool) -> crate::Move {
    crate::Move {
        entry,
        from_table,
        from_seat: seat_index(from_seat),
        to_table,
        to_seat: seat_index(to_seat),
        wait_for_button,
        reason: Reason::Balance { from_count: 0, to_count: 0 },
    }
}

/// A finished hand: the stacks that reached zero are out (freezeout, or after the rebuy
/// period: at once; during it, when the rebuys service says so), then the room is balanced, or
/// the last player wins.
fn finished(state: &SeatingState, table: u32, hand: u64, stacks: Vec<SeatStack>, busts: Vec<BustReport>, seed: &Seed) -> Vec<SeatingEvent> {
    let mut out = Outbox::new(state);
    out.push(SeatingEvent::HandFinished { table, hand, stacks, busts: busts.clone() });
    // Smallest starting stack first: the order places are given in (ties are ranked by payouts).
    let mut busts = busts;
    busts.sort_by_key(|b| (b.stack_at_start, b.entry));
    for b in &busts {
        out.push(SeatingEvent::StackReachedZero { entry: b.entry, table, hand, stack_at_start: b.stack_at_start });
    }
    if !state.rebuys_open && !busts.is_empty() {
        let out_now: Vec<(EntryNo, Option<(u64, u32)>)> = busts.iter().map(|b| (b.entry, None)).collect();
        eliminate(state, &mut out, &out_now, seed);
    } else {
        rebalance(state, &mut out, seed);
    }
    out.events
}

/// A hand finished with nobody out: a decision that had to wait ([`waits`]) is taken now, if
/// it no longer has to. Nothing owed (the usual case): nothing, at the cost of a look at the
/// room's indexes.
fn rebalance(state: &SeatingState, out: &mut Outbox<'_>, seed: &Seed) {
    if state.drawing() || state.winner.is_some() || state.entries.len() <= 1 || !owed(&state.room, &state.rules()) {
        return;
    }
    let mut room = state.room.draft();
    let decision = decide(&mut room, &state.rules(), seed);
    if !waits(state, &decision) {
        record_decision(state, out, &decision);
    }
}

/// Hand-for-hand: whether `decision` must wait because it moves a player from or to a table
/// that holds a released hand it has not dealt yet, or breaks one. Such a table reads its
/// `deal_hand` before the move or the close, deals the hand with players who are no longer
/// there (or after it is closed), and the bubble, which counts the tables seating holds open,
/// would neither count nor wait for that hand (docs/bubble.md, "Balancing between
/// hand-for-hand hands"). The decision is taken again after the next hand finishes with no
/// bust ([`rebalance`]) or the next bust: at the latest when the last table finishes the
/// released hand, before the bubble releases the next one.
fn waits(state: &SeatingState, decision: &Decision) -> bool {
    let owes = |table: u32| state.held.get(&table).is_some_and(|held| held.credits > 0);
    decision.moves.iter().any(|m| owes(m.from_table) || owes(m.to_table) || state.physical(m.entry).is_some_and(|(t, _)| owes(t)))
        || decision.closed.iter().any(|&t| owes(t))
}

/// Entries leave the tournament: each is eliminated and taken off its table, then the room is
/// balanced, or the last player wins. `carried` is the bust (stack at the start of the hand,
/// table) when it was recorded in an earlier commit.
fn eliminate(state: &SeatingState, out: &mut Outbox<'_>, gone: &[(EntryNo, Option<(u64, u32)>)], seed: &Seed) {
    if gone.is_empty() {
        return;
    }
    let mut room = state.room.draft();
    let mut players_left = state.entries.len() as u32;
    for &(entry, carried) in gone {
        players_left -= 1;
        out.push(SeatingEvent::EntryEliminated {
            entry,
            players_left,
            stack_at_start: carried.map(|(stack, _)| stack),
            table: carried.map(|(_, table)| table),
        });
        if let Some(&(t, seat)) = state.located.get(&entry) {
            room.vacate(t, seat);
            // The table the player sits at hears it, even when it was told to move them (they
            // busted in the hand during which the move was decided): the elimination replaces
            // the move, and the destination, told nothing yet, never seats them.
            let (at, _) = state.physical(entry).unwrap_or((t, seat));
            out.instruct(at, Instruction::RemovePlayer { entry, reason: Removal::Eliminated });
        }
    }
    // A shootout's table that is down to its winners stops (issue 37); no table is ever
    // balanced or broken ([`SeatingState::rules`]).
    if let Some(shootout) = &state.shootout {
        let tables: BTreeSet<u32> = gone.iter().filter_map(|&(entry, _)| state.physical(entry).map(|(t, _)| t)).collect();
        shootout::tables_won(shootout, &room, tables, out);
    }
    // While a large draw is still being stored the room is not whole: balancing waits for the
    // first decision after the draw, which balances every table at once.
    if state.drawing() {
        return;
    }
    if players_left <= 1 {
        let busted: HashSet<EntryNo> = gone.iter().map(|g| g.0).collect();
        if let Some(&winner) = state.entries.keys().find(|e| !busted.contains(e)) {
            // A shootout's last table is won by the tournament's winner.
            if let (Some(shootout), Some(table)) = (&state.shootout, room.tables().next()) {
                out.push(SeatingEvent::TableWon { round: shootout.round, table: table.number, winners: vec![winner] });
            }
            out.push(SeatingEvent::TournamentWon { entry: winner });
        }
        for number in room.tables().map(|t| t.number).chain(state.closing.iter().copied()).collect::<Vec<_>>() {
            out.push(SeatingEvent::TableClosed { table: number });
            out.instruct(number, Instruction::CloseTable);
        }
        return;
    }
    let decision = decide(&mut room, &state.rules(), seed);
    if !waits(state, &decision) {
        record_decision(state, out, &decision);
    }
}

/// Chips bought for an entry: recorded, and sent to the table it sits at for its next hand.
/// A player between tables takes them along in the seat instruction at the destination.
fn add_chips(state: &SeatingState, entry: EntryNo, chips: u64) -> Result<Vec<SeatingEvent>, SeatingError> {
    if !state.entries.contains_key(&entry) {
        return Err(SeatingError::UnknownEntry(entry));
    }
    let mut out = Outbox::new(state);
    out.push(SeatingEvent::ChipsBought { entry, chips });
    if let (Some(&(table, _)), false) = (state.located.get(&entry), state.leaving.contains_key(&entry)) {
        out.instruct(table, Instruction::AddChips { entry, chips });
    }
    Ok(out.events)
}

fn record_decision(state: &SeatingState, out: &mut Outbox<'_>, decision: &Decision) {
    for &(table, seats) in &decision.resized {
        out.push(SeatingEvent::TableOpened { table, seats: seats as u8 });
        out.instruct(table, Instruction::OpenTable { seats: seats as u8 });
    }
    for m in &decision.moves {
        let reason = match m.reason {
            Reason::Balance { from_count, to_count } => MoveReason::Balance { from_count: from_count as u32, to_count: to_count as u32 },
            Reason::Break { players_left, tables_needed } => {
                MoveReason::Break { players_left: players_left as u32, tables_needed: tables_needed as u32 }
            }
            Reason::FinalTable { players_left, seats } => MoveReason::FinalTable { players_left: players_left as u32, seats: seats as u32 },
        };
        // The move is from where the player sits. One still on the way to another table (its
        // source has not let them go) was never seated there: the source is told again, with
        // the new destination, so every move and removal names where the player will sit.
        let (from_table, from_seat) = state.physical(m.entry).unwrap_or((m.from_table, m.from_seat));
        out.push(SeatingEvent::PlayerMoved {
            entry: m.entry,
            from_table,
            from_seat: seat_no(from_seat),
            to_table: m.to_table,
            to_seat: seat_no(m.to_seat),
            wait_for_button: m.wait_for_button,
            reason,
        });
        let removal = Removal::Moved { to_table: m.to_table, to_seat: seat_no(m.to_seat) };
        out.instruct(from_table, Instruction::RemovePlayer { entry: m.entry, reason: removal });
    }
    for &table in &decision.closed {
        out.push(SeatingEvent::TableClosed { table });
        out.instruct(table, Instruction::CloseTable);
    }
}

/// The source table applied an instruction: if it let a moving player go, seat them at their
/// destination with the chips they left with.
fn confirmed(state: &SeatingState, table: u32, sequence: u64) -> Vec<SeatingEvent> {
    if let Some(&(entry, chips)) = state.chips_on_way.get(&(table, sequence)) {
        return if state.entries.contains_key(&entry) { vec![SeatingEvent::ChipsAtTable { entry, chips }] } else { vec![] };
    }
    let Some(&entry) = state.awaiting.get(&(table, sequence)) else { return vec![] };
    // The table confirms a removal sent for this move, not a late one for a move it confirmed
    // already (the player moved twice before it let them go, then moved on again).
    let Some(leaving) = state.leaving.get(&entry).filter(|l| l.table == table && sequence >= l.since) else { return vec![] };
    let Some(&(to_table, to_seat)) = state.located.get(&entry) else { return vec![] };
    let mut out = Outbox::new(state);
    out.push(SeatingEvent::MoveConfirmed { entry });
    // After the end (every table closed) the player is let go and seated nowhere: a closed
    // table hears nothing but a `remove_player` (docs/table-servers.md).
    if !state.over() {
        out.seat(to_table, entry, to_seat, leaving.wait_for_button);
    }
    out.events
}
