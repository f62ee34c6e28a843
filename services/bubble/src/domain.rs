//! The bubble aggregate: one per tournament (`floor.ev.bubble.<tournament>`). Pure: the field,
//! the tables and the time come in the commands.
//!
//! Its life: idle (configured) → hand-for-hand announced (hand 0: the tables with a hand in
//! progress finish it, the others hold at once) → hand k complete (every table finished it or
//! was excused; its busts ranked as one group) → hand k+1 released to the tables seating has
//! settled → … → over (the bubble burst, one table left, or the director stopped it). A
//! director may start or stop it, stop waiting for tables, and pause the next release.
//!
//! The barrier: a table that finished hand k holds; a hand is released only when no table owes
//! the current one, and only to the tables seating says are ready. A table dealing while held,
//! a `hand_finished` for a hand not released to it, a release outside hand-for-hand: typed
//! errors, no events.

use crate::ranking::{self, ANNOUNCEMENT_HAND};
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::bubble::{BubbleEvent, EndCause, HandBust, HandForHandRules, StartCause};
use floor_events::{codes, subjects, text, EntryNo, TournamentId};
use floor_rules::hand_for_hand;
use std::collections::{BTreeMap, BTreeSet};

/// Most tables one command may name (a 250,000-entrant field at two seats a table, and more).
pub const MAX_TABLES: usize = 200_000;
/// Most busts one table may report in one hand (ten seats, TDA's largest table).
pub const MAX_BUSTS_PER_TABLE: usize = 10;

/// The bubble aggregate.
pub struct BubbleAggregate;

/// The field when a command looks at it: players left, the bubble's boundary, the tables in play
/// and which of them have a hand in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldNow {
    /// Players left.
    pub players_left: u32,
    /// Players left at which the bubble bursts (the paid places, a satellite's seats).
    pub boundary: u32,
    /// Tables in play.
    pub tables: Vec<u32>,
    /// Those with a hand in progress.
    pub dealing: Vec<u32>,
}

/// What the bubble aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BubbleCommand {
    /// The tournament's settings (at creation).
    Configure {
        /// The tournament.
        tournament_id: TournamentId,
        /// The settings in force.
        rules: HandForHandRules,
    },
    /// The field changed near the bubble: start if the trigger is reached.
    Field {
        /// The field.
        field: FieldNow,
        /// When.
        at: DateTime<Utc>,
    },
    /// The director starts hand-for-hand now.
    Start {
        /// The field.
        field: FieldNow,
        /// When.
        at: DateTime<Utc>,
    },
    /// The director stops it.
    Stop {
        /// When.
        at: DateTime<Utc>,
    },
    /// A table began a hand.
    Dealt {
        /// The table.
        table: u32,
        /// Its own hand number.
        table_hand: u64,
        /// Seating took it as the deal that crossed the hold (no `deal_hand` answered).
        crossing: bool,
        /// When.
        at: DateTime<Utc>,
    },
    /// A table finished a hand.
    Finished {
        /// The table.
        table: u32,
        /// Its own hand number.
        table_hand: u64,
        /// Players out in it (eliminated, not waiting on a rebuy).
        busts: Vec<HandBust>,
        /// When.
        at: DateTime<Utc>,
    },
    /// A table closed.
    TableClosed {
        /// The table.
        table: u32,
        /// When.
        at: DateTime<Utc>,
    },
    /// Seating has settled the tables (moves, breaks, chips): release the next hand to them.
    Release {
        /// The tables in play.
        tables: Vec<u32>,
        /// When.
        at: DateTime<Utc>,
    },
    /// The director stops waiting for these tables (empty: every table still owing the hand).
    ReleaseWithout {
        /// The tables.
        tables: Vec<u32>,
        /// When.
        at: DateTime<Utc>,
    },
    /// The director holds the next release.
    Pause {
        /// Why.
        reason: String,
        /// When.
        at: DateTime<Utc>,
    },
    /// The director lets releases go on.
    Resume {
        /// When.
        at: DateTime<Utc>,
    },
}

/// Why the bubble aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BubbleError {
    /// Not configured.
    #[error("no bubble for this tournament")]
    UnknownTournament,
    /// Not in hand-for-hand.
    #[error("the tournament is not in hand-for-hand")]
    NotInHandForHand,
    /// Hand-for-hand runs already.
    #[error("hand-for-hand is running already (hand {0})")]
    Running(u64),
    /// The table is not in hand-for-hand.
    #[error("table {0} is not in hand-for-hand")]
    UnknownTable(u32),
    /// The table dealt while held.
    #[error("table {0} dealt hand {1} while held: hand-for-hand hand {2} is not released to it")]
    TableHeld(u32, u64, u64),
    /// A finish for a hand not released to the table.
    #[error("table {0} finished its hand {1}, which is not the hand-for-hand hand released to it")]
    HandNotReleased(u32, u64),
    /// Tables still owe the hand.
    #[error("hand {0} is still owed by {1} table(s)")]
    HandInProgress(u64, usize),
    /// Paused by the director.
    #[error("hand-for-hand is paused: no hand is released until it resumes")]
    Paused,
    /// The table owes nothing.
    #[error("table {0} owes nothing for hand {1}")]
    TableNotOwed(u32, u64),
    /// An entry reported out twice.
    #[error("entry {0} is out already")]
    AlreadyOut(EntryNo),
    /// A report that cannot be: too many busts, busts at another table, more busts than players,
    /// too many tables.
    #[error("{0}")]
    Invalid(String),
    /// A reason that breaks the text rules.
    #[error("{1}")]
    Text(&'static str, String),
}

impl floor_runtime::DomainError for BubbleError {
    fn code(&self) -> &'static str {
        match self {
            Self::UnknownTournament => codes::UNKNOWN_TOURNAMENT,
            Self::NotInHandForHand => codes::NOT_IN_HAND_FOR_HAND,
            Self::Running(_) => codes::HAND_FOR_HAND_RUNNING,
            Self::UnknownTable(_) => codes::UNKNOWN_TABLE,
            Self::TableHeld(..) => codes::TABLE_HELD,
            Self::HandNotReleased(..) => codes::HAND_NOT_RELEASED,
            Self::HandInProgress(..) => codes::HAND_IN_PROGRESS,
            Self::Paused => codes::HAND_FOR_HAND_PAUSED,
            Self::TableNotOwed(..) => codes::TABLE_NOT_OWED,
            Self::AlreadyOut(_) => codes::ENTRY_ALREADY_ELIMINATED,
            Self::Invalid(_) => codes::INVALID_FIELD,
            Self::Text(code, _) => code,
        }
    }
}

/// Hand-for-hand while it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// The current hand-for-hand hand (0: the announcement hand).
    pub hand: u64,
    /// Tables that owe the current hand, with the table's own hand number once it dealt it.
    pub owed: BTreeMap<u32, Option<u64>>,
    /// Tables holding: they finished the current hand (or had none in progress at hand 0).
    pub held: BTreeSet<u32>,
    /// Tables that were between hands at the announcement and have not dealt since (the hold
    /// may reach them after their next deal began: that deal crossed the hold).
    pub idle: BTreeSet<u32>,
    /// Deals that crossed the hold read after hand 0 was complete, in progress: table → its own
    /// hand number. Each is a late hand 0: its busts are a group of their own; the table owes
    /// or holds as it did.
    pub crossing: BTreeMap<u32, u64>,
    /// Tables the director stopped waiting for: the hand they owe, and their own hand number
    /// once known. They rejoin at the release after they report.
    pub excused: BTreeMap<u32, (u64, Option<u64>)>,
    /// Busts of the current hand so far.
    pub busts: Vec<HandBust>,
    /// No table owes the current hand: waiting for the release.
    pub complete: bool,
    /// Players left (before the current hand's busts).
    pub players_left: u32,
    /// Players left at which the bubble bursts.
    pub boundary: u32,
    /// The director holds the next release.
    pub paused: bool,
}

/// Where the bubble is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Phase {
    /// Not in hand-for-hand yet.
    #[default]
    Idle,
    /// Hand-for-hand.
    Running(Box<Running>),
    /// Ended (it may start again by the director).
    Over,
}

/// The bubble, folded from events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BubbleState {
    /// The tournament.
    pub tournament_id: Option<TournamentId>,
    /// The settings.
    pub rules: Option<HandForHandRules>,
    /// Where it is.
    pub phase: Phase,
    /// The director stopped hand-for-hand: the trigger does not start it again.
    pub director_stopped: bool,
    /// Entries out during hand-for-hand.
    pub out: BTreeSet<EntryNo>,
}

impl BubbleState {
    /// Hand-for-hand while it runs.
    pub fn running(&self) -> Option<&Running> {
        match &self.phase {
            Phase::Running(r) => Some(r),
            _ => None,
        }
    }
}

impl Aggregate for BubbleAggregate {
    const NAME: &'static str = subjects::aggregate::BUBBLE;
    type State = BubbleState;
    type Command = BubbleCommand;
    type Event = BubbleEvent;
    type Error = BubbleError;

    fn handle_command(state: &BubbleState, command: BubbleCommand) -> Result<Vec<BubbleEvent>, BubbleError> {
        use BubbleCommand::*;
        if let Configure { tournament_id, rules } = command {
            return Ok(if state.tournament_id.is_some() { vec![] } else { vec![BubbleEvent::BubbleConfigured { tournament_id, rules }] });
        }
        let Some(rules) = state.rules else { return Err(BubbleError::UnknownTournament) };
        match command {
            Configure { .. } => unreachable!("handled above"),
            Field { field, at } => triggered(state, rules, field, at),
            Start { field, at } => director_start(state, field, at),
            Stop { at } => {
                let r = state.running().ok_or(BubbleError::NotInHandForHand)?;
                Ok(vec![BubbleEvent::HandForHandEnded { cause: EndCause::Director, players_left: r.players_left, at }])
            }
            Dealt { table, table_hand, crossing, at } => {
                dealt(state.running().ok_or(BubbleError::NotInHandForHand)?, table, table_hand, crossing, at)
            }
            Finished { table, table_hand, busts, at } => finished(state, rules, table, table_hand, busts, at),
            TableClosed { table, at } => table_closed(state, rules, table, at),
            Release { tables, at } => release(state.running().ok_or(BubbleError::NotInHandForHand)?, tables, at),
            ReleaseWithout { tables, at } => release_without(state, rules, tables, at),
            Pause { reason, at } => {
                text::PAUSE_REASON.check(&reason).map_err(|e| BubbleError::Text(e.code, e.message))?;
                let r = state.running().ok_or(BubbleError::NotInHandForHand)?;
                Ok(if r.paused { vec![] } else { vec![BubbleEvent::Paused { reason, at }] })
            }
            Resume { at } => {
                let r = state.running().ok_or(BubbleError::NotInHandForHand)?;
                Ok(if r.paused { vec![BubbleEvent::Resumed { at }] } else { vec![] })
            }
        }
    }

    fn apply_event(mut state: BubbleState, event: BubbleEvent) -> BubbleState {
        use BubbleEvent::*;
        match event {
            BubbleConfigured { tournament_id, rules } => {
                state.tournament_id = Some(tournament_id);
                state.rules = Some(rules);
            }
            HandForHandStarted { cause, players_left, boundary, tables, dealing, .. } => {
                if cause == StartCause::Director {
                    state.director_stopped = false;
                }
                let owed: BTreeMap<u32, Option<u64>> = dealing.iter().map(|&t| (t, None)).collect();
                let held: BTreeSet<u32> = tables.iter().copied().filter(|t| !owed.contains_key(t)).collect();
                state.phase = Phase::Running(Box::new(Running {
                    hand: ANNOUNCEMENT_HAND,
                    idle: held.clone(),
                    crossing: BTreeMap::new(),
                    complete: owed.is_empty(),
                    owed,
                    held,
                    excused: BTreeMap::new(),
                    busts: vec![],
                    players_left,
                    boundary,
                    paused: false,
                }));
            }
            TableDealt { table, table_hand, crossing, .. } => {
                if let Phase::Running(r) = &mut state.phase {
                    if crossing {
                        r.idle.remove(&table);
                        r.crossing.insert(table, table_hand);
                    } else if let Some((_, dealt)) = r.excused.get_mut(&table) {
                        *dealt = Some(table_hand);
                    } else {
                        r.held.remove(&table);
                        r.idle.remove(&table);
                        r.owed.insert(table, Some(table_hand));
                        r.complete = false;
                    }
                }
            }
            TableFinished { table, table_hand, busts, late, .. } => {
                if let Phase::Running(r) = &mut state.phase {
                    state.out.extend(busts.iter().map(|b| b.entry));
                    if late && r.crossing.get(&table) == Some(&table_hand) {
                        // A crossing hand: the table owes or holds as it did.
                        r.crossing.remove(&table);
                        return state;
                    }
                    if late {
                        r.excused.remove(&table);
                    } else {
                        r.owed.remove(&table);
                        r.busts.extend(busts);
                    }
                    r.held.insert(table);
                }
            }
            TablesExcused { hand, tables, .. } => {
                if let Phase::Running(r) = &mut state.phase {
                    for t in tables {
                        let dealt = r.owed.remove(&t).flatten();
                        r.excused.insert(t, (hand, dealt));
                    }
                }
            }
            TableLeft { table } => {
                if let Phase::Running(r) = &mut state.phase {
                    r.owed.remove(&table);
                    r.held.remove(&table);
                    r.idle.remove(&table);
                    r.crossing.remove(&table);
                    r.excused.remove(&table);
                }
            }
            HandCompleted { placed, .. } => {
                if let Phase::Running(r) = &mut state.phase {
                    r.players_left = r.players_left.saturating_sub(placed.len() as u32);
                    r.busts.clear();
                    r.complete = true;
                }
            }
            LateBustsPlaced { placed, .. } => {
                if let Phase::Running(r) = &mut state.phase {
                    r.players_left = r.players_left.saturating_sub(placed.len() as u32);
                }
            }
            HandReleased { hand, tables, .. } => {
                if let Phase::Running(r) = &mut state.phase {
                    r.hand = hand;
                    r.owed = tables.iter().map(|&t| (t, None)).collect();
                    r.held.retain(|t| !r.owed.contains_key(t));
                    r.complete = r.owed.is_empty();
                }
            }
            Paused { .. } => {
                if let Phase::Running(r) = &mut state.phase {
                    r.paused = true;
                }
            }
            Resumed { .. } => {
                if let Phase::Running(r) = &mut state.phase {
                    r.paused = false;
                }
            }
            HandForHandEnded { cause, .. } => {
                state.phase = Phase::Over;
                if cause == EndCause::Director {
                    state.director_stopped = true;
                }
            }
        }
        state
    }
}

fn check_tables(field: &FieldNow) -> Result<(), BubbleError> {
    if field.tables.len() > MAX_TABLES || field.dealing.len() > MAX_TABLES {
        return Err(BubbleError::Invalid(format!("more than {MAX_TABLES} tables")));
    }
    Ok(())
}

fn started(cause: StartCause, field: FieldNow, boundary: u32, at: DateTime<Utc>) -> Vec<BubbleEvent> {
    let tables: BTreeSet<u32> = field.tables.into_iter().collect();
    let dealing: Vec<u32> = field.dealing.into_iter().filter(|t| tables.contains(t)).collect::<BTreeSet<_>>().into_iter().collect();
    let players_left = field.players_left;
    let mut events = vec![BubbleEvent::HandForHandStarted {
        cause,
        players_left,
        boundary,
        tables: tables.into_iter().collect(),
        dealing: dealing.clone(),
        at,
    }];
    if dealing.is_empty() {
        // Every table is between hands: hand 0 is complete at once, without busts.
        events.push(BubbleEvent::HandCompleted { hand: ANNOUNCEMENT_HAND, players_left_before: players_left, placed: vec![], at });
    }
    events
}

/// The trigger: players left at most the boundary plus the profile's number, above the
/// boundary, at two tables or more (at one table every hand is in step by itself).
fn triggered(state: &BubbleState, rules: HandForHandRules, field: FieldNow, at: DateTime<Utc>) -> Result<Vec<BubbleEvent>, BubbleError> {
    check_tables(&field)?;
    let idle = state.phase == Phase::Idle && !state.director_stopped;
    if !idle || !hand_for_hand::trigger_starts(&rules, field.players_left, field.boundary, field.tables.len()) {
        return Ok(vec![]);
    }
    let boundary = field.boundary;
    Ok(started(StartCause::Trigger, field, boundary, at))
}

fn director_start(state: &BubbleState, field: FieldNow, at: DateTime<Utc>) -> Result<Vec<BubbleEvent>, BubbleError> {
    check_tables(&field)?;
    if let Some(r) = state.running() {
        return Err(BubbleError::Running(r.hand));
    }
    if field.tables.len() < 2 {
        return Ok(vec![]);
    }
    // Past the bubble (a pay jump the director chose) there is nothing to burst.
    let boundary = if field.players_left > field.boundary { field.boundary } else { 0 };
    Ok(started(StartCause::Director, field, boundary, at))
}

fn dealt(r: &Running, table: u32, table_hand: u64, crossing: bool, at: DateTime<Utc>) -> Result<Vec<BubbleEvent>, BubbleError> {
    let event = |hand| Ok(vec![BubbleEvent::TableDealt { table, hand, table_hand, crossing: false, at }]);
    if crossing {
        // Dealt before the hold reached the table (seating stored it before the hold, or took
        // it as the one deal that crossed it), so not on a `deal_hand`.
        if r.crossing.contains_key(&table) || matches!(r.owed.get(&table), Some(Some(_))) {
            return Err(BubbleError::TableHeld(table, table_hand, r.hand.saturating_add(1)));
        }
        // A table the field had between hands, in time: its hand 0.
        if r.hand == ANNOUNCEMENT_HAND && !r.complete && r.idle.contains(&table) {
            return event(ANNOUNCEMENT_HAND);
        }
        // Else a late hand 0 of its own; the table owes or holds as it did.
        return Ok(vec![BubbleEvent::TableDealt { table, hand: ANNOUNCEMENT_HAND, table_hand, crossing: true, at }]);
    }
    if let Some(&(hand, dealt)) = r.excused.get(&table) {
        return match dealt {
            None => event(hand),
            Some(_) => Err(BubbleError::TableHeld(table, table_hand, hand)),
        };
    }
    match r.owed.get(&table) {
        Some(None) => event(r.hand),
        Some(Some(_)) => Err(BubbleError::TableHeld(table, table_hand, r.hand.saturating_add(1))),
        // At the announcement the hold may reach an idle table after its next deal began: that
        // deal is its hand 0, as long as hand 0 is not complete.
        None if r.hand == ANNOUNCEMENT_HAND && !r.complete && r.idle.contains(&table) => event(r.hand),
        None if r.held.contains(&table) => Err(BubbleError::TableHeld(table, table_hand, r.hand.saturating_add(1))),
        None => Err(BubbleError::UnknownTable(table)),
    }
}

fn check_busts(state: &BubbleState, table: u32, busts: &[HandBust]) -> Result<(), BubbleError> {
    if busts.len() > MAX_BUSTS_PER_TABLE {
        return Err(BubbleError::Invalid(format!("{} busts at one table in one hand; at most {MAX_BUSTS_PER_TABLE}", busts.len())));
    }
    let mut seen = BTreeSet::new();
    for b in busts {
        if b.table != table {
            return Err(BubbleError::Invalid(format!("table {table} reported a bust at table {}", b.table)));
        }
        if state.out.contains(&b.entry) || !seen.insert(b.entry) {
            return Err(BubbleError::AlreadyOut(b.entry));
        }
    }
    Ok(())
}

fn finished(
    state: &BubbleState,
    rules: HandForHandRules,
    table: u32,
    table_hand: u64,
    busts: Vec<HandBust>,
    at: DateTime<Utc>,
) -> Result<Vec<BubbleEvent>, BubbleError> {
    let r = state.running().ok_or(BubbleError::NotInHandForHand)?;
    check_busts(state, table, &busts)?;
    if r.crossing.get(&table) == Some(&table_hand) {
        return late(r, rules, table, ANNOUNCEMENT_HAND, table_hand, busts, at);
    }
    if let Some(&(hand, dealt)) = r.excused.get(&table) {
        if dealt.is_some_and(|d| d != table_hand) || (dealt.is_none() && hand != ANNOUNCEMENT_HAND) {
            return Err(BubbleError::HandNotReleased(table, table_hand));
        }
        return late(r, rules, table, hand, table_hand, busts, at);
    }
    let hand = r.hand;
    match r.owed.get(&table) {
        Some(Some(dealt)) if *dealt == table_hand => {}
        // Hand 0 is the hand in progress at the announcement, whose start may be older.
        Some(None) if hand == ANNOUNCEMENT_HAND => {}
        Some(_) => return Err(BubbleError::HandNotReleased(table, table_hand)),
        None if r.held.contains(&table) => return Err(BubbleError::HandNotReleased(table, table_hand)),
        None => return Err(BubbleError::UnknownTable(table)),
    }
    let in_hand = r.busts.len().saturating_add(busts.len());
    if in_hand > r.players_left as usize {
        return Err(BubbleError::Invalid(format!("{in_hand} busts with {} players left", r.players_left)));
    }
    let mut events = vec![BubbleEvent::TableFinished { table, hand, table_hand, busts, late: false, at }];
    if r.owed.len() == 1 {
        events.extend(complete(&events_applied(r, &events), rules, at));
    }
    Ok(events)
}

/// A late table (the director stopped waiting for it) reports: its busts are a group of their
/// own, placed after everyone out before; it holds until the next release.
fn late(
    r: &Running,
    rules: HandForHandRules,
    table: u32,
    hand: u64,
    table_hand: u64,
    busts: Vec<HandBust>,
    at: DateTime<Utc>,
) -> Result<Vec<BubbleEvent>, BubbleError> {
    // They were out before the busts of the hand in progress (an earlier hand): they take the
    // places below everyone still in, and that hand's group is placed above them.
    let players_left_before = r.players_left;
    if r.busts.len().saturating_add(busts.len()) > players_left_before as usize {
        return Err(BubbleError::Invalid(format!("{} busts with {players_left_before} players left", r.busts.len() + busts.len())));
    }
    let placed = ranking::rank(hand, players_left_before, &busts, rules.ordering)
        .ok_or_else(|| BubbleError::Invalid(format!("{} busts with {players_left_before} players left", busts.len())))?;
    let out = placed.len() as u32;
    let mut events = vec![BubbleEvent::TableFinished { table, hand, table_hand, busts, late: true, at }];
    if !placed.is_empty() {
        events.push(BubbleEvent::LateBustsPlaced { hand, players_left_before, placed });
    }
    let left = players_left_before - out;
    // While the hand is still owed, its completion looks at the bubble.
    if r.complete && r.boundary > 0 && left <= r.boundary {
        events.push(BubbleEvent::HandForHandEnded { cause: EndCause::Burst, players_left: left, at });
    }
    Ok(events)
}

/// The state `r` would be in after `events` (for a command that completes the hand it records).
fn events_applied(r: &Running, events: &[BubbleEvent]) -> Running {
    let state = BubbleState { phase: Phase::Running(Box::new(r.clone())), ..BubbleState::default() };
    match events.iter().cloned().fold(state, BubbleAggregate::apply_event).phase {
        Phase::Running(r) => *r,
        _ => r.clone(),
    }
}

/// No table owes the hand: rank its busts as one group, then end if the bubble burst or one
/// table is left.
fn complete(r: &Running, rules: HandForHandRules, at: DateTime<Utc>) -> Vec<BubbleEvent> {
    // Bounded by the check in `finished`: never more busts than players.
    let placed = ranking::rank(r.hand, r.players_left, &r.busts, rules.ordering).unwrap_or_default();
    let left = r.players_left.saturating_sub(placed.len() as u32);
    let mut events = vec![BubbleEvent::HandCompleted { hand: r.hand, players_left_before: r.players_left, placed, at }];
    let in_play = r.held.len() + r.excused.len();
    if r.boundary > 0 && left <= r.boundary {
        events.push(BubbleEvent::HandForHandEnded { cause: EndCause::Burst, players_left: left, at });
    } else if in_play < 2 {
        events.push(BubbleEvent::HandForHandEnded { cause: EndCause::OneTable, players_left: left, at });
    }
    events
}

fn table_closed(state: &BubbleState, rules: HandForHandRules, table: u32, at: DateTime<Utc>) -> Result<Vec<BubbleEvent>, BubbleError> {
    let Some(r) = state.running() else { return Ok(vec![]) };
    let known = r.owed.contains_key(&table) || r.held.contains(&table) || r.excused.contains_key(&table);
    if !known {
        return Ok(vec![]);
    }
    let mut events = vec![BubbleEvent::TableLeft { table }];
    if r.owed.contains_key(&table) && r.owed.len() == 1 && !r.complete {
        events.extend(complete(&events_applied(r, &events), rules, at));
    }
    Ok(events)
}

fn release(r: &Running, tables: Vec<u32>, at: DateTime<Utc>) -> Result<Vec<BubbleEvent>, BubbleError> {
    if tables.len() > MAX_TABLES {
        return Err(BubbleError::Invalid(format!("more than {MAX_TABLES} tables")));
    }
    if !r.complete {
        return Err(BubbleError::HandInProgress(r.hand, r.owed.len()));
    }
    if r.paused {
        return Err(BubbleError::Paused);
    }
    // A table the director stopped waiting for rejoins only once it has reported.
    let tables: Vec<u32> = tables.into_iter().filter(|t| !r.excused.contains_key(t)).collect::<BTreeSet<_>>().into_iter().collect();
    if tables.len() < 2 {
        return Ok(vec![BubbleEvent::HandForHandEnded { cause: EndCause::OneTable, players_left: r.players_left, at }]);
    }
    Ok(vec![BubbleEvent::HandReleased { hand: r.hand.saturating_add(1), tables, at }])
}

fn release_without(
    state: &BubbleState,
    rules: HandForHandRules,
    tables: Vec<u32>,
    at: DateTime<Utc>,
) -> Result<Vec<BubbleEvent>, BubbleError> {
    let r = state.running().ok_or(BubbleError::NotInHandForHand)?;
    let tables: Vec<u32> = if tables.is_empty() { r.owed.keys().copied().collect() } else { tables };
    if tables.is_empty() {
        return Err(BubbleError::TableNotOwed(0, r.hand));
    }
    for &t in &tables {
        if !r.owed.contains_key(&t) {
            return Err(if r.held.contains(&t) || r.excused.contains_key(&t) {
                BubbleError::TableNotOwed(t, r.hand)
            } else {
                BubbleError::UnknownTable(t)
            });
        }
    }
    let tables: Vec<u32> = tables.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
    let mut events = vec![BubbleEvent::TablesExcused { hand: r.hand, tables: tables.clone(), at }];
    if tables.len() == r.owed.len() {
        events.extend(complete(&events_applied(r, &events), rules, at));
    }
    Ok(events)
}
