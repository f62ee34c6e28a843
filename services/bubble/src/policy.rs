//! What the bubble aggregate is told, read from the log, and what its events cause. Pure: the
//! service (not written yet, `docs/bubble.md`) feeds commits in stream order with the instant
//! each was stored, and runs the orders that come out.
//!
//! In:
//! - registration: a tournament created is configured with its settings in force; its entries
//!   count for the paid places until payouts locks the table;
//! - payouts: the locked table's paid places are the bubble (unless a satellite's seats or a
//!   pay jump is the boundary);
//! - seating: the tables in play and which have a hand in progress; every elimination near the
//!   bubble is a look at the trigger; while hand-for-hand runs, every hand started and finished
//!   goes to the aggregate; moves in flight and busts waiting on a rebuy keep the next release
//!   back until seating has settled them.
//!
//! Out, from the bubble's own events:
//! - to every table: `hold_for_deal` at the announcement, `deal_hand {hand}` at each release,
//!   `resume` at the end;
//! - to the clock under the TDA deduction (RP-8 B–D): pause at the announcement, take the
//!   deduction off at each completed hand, resume at the end.
//!
//! Every order's command id is derived from what caused it (the tournament, the hand, the
//! table, or the seating commit's stream sequence), so reading the log again repeats nothing.

use crate::domain::{BubbleCommand, FieldNow};
use chrono::{DateTime, Utc};
use floor_events::abort::AbortEvent;
use floor_events::bubble::{BubbleEvent, HandBust, HandForHandClock, HandForHandRules};
use floor_events::clock::{AdjustTime, ClockRequest, PauseClock};
use floor_events::payouts::PayoutEvent;
use floor_events::registration::TournamentEvent;
use floor_events::seating::SeatingEvent;
use floor_events::table::{Instruction, SeatNo};
use floor_events::tournament::FixedPayouts;
use floor_events::{CommandId, EntryNo, RuleProfile, TournamentId};
use floor_rules::hand_for_hand::{self, FieldSoFar};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// What the policy asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// A command for the tournament's bubble aggregate.
    Bubble(TournamentId, CommandId, BubbleCommand),
    /// An instruction to one table. Seating numbers it in the table's sequence and publishes it
    /// through its outbox (the wiring plan in `docs/bubble.md`).
    Table {
        /// The tournament.
        tournament: TournamentId,
        /// Idempotency key.
        id: CommandId,
        /// The table.
        table: u32,
        /// What to do.
        instruction: Instruction,
    },
    /// The clock stops for hand-for-hand (TDA deduction).
    ClockPause(PauseClock),
    /// A hand-for-hand hand's deduction: negative seconds.
    ClockAdjust(AdjustTime),
    /// The clock runs again after hand-for-hand.
    ClockResume(ClockRequest),
}

/// A table as seating last said.
#[derive(Debug, Serialize, Deserialize)]
struct Table {
    /// The table's hand in progress.
    in_hand: Option<u64>,
    /// Its button and seats in that hand (seat order for ties and the remainder rule).
    button: SeatNo,
    seats: HashMap<EntryNo, SeatNo>,
    /// Seating has stored `hold_for_deal` for it (and no `resume` since): a deal stored before
    /// that was in play when the hold went out, whatever the bubble's field said.
    #[serde(default)]
    held: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct Tournament {
    rules: HandForHandRules,
    profile: RuleProfile,
    fixed: Option<FixedPayouts>,
    entries: u32,
    paid_places: Option<u32>,
    tables: BTreeMap<u32, Table>,
    players_left: Option<u32>,
    running: bool,
    /// The trigger asked the aggregate to start: until the policy reads the start from the log,
    /// every table's reports go to the aggregate as while running. The start is stored after
    /// the commit that caused it, so the commits read in between (tables finishing the hand
    /// they were dealing at the announcement, its hand 0) would otherwise never reach it, and
    /// hand 0 would wait for them for ever.
    #[serde(default)]
    announced: bool,
    /// Hand-for-hand ended once: the trigger does not start it again (a director may).
    #[serde(default)]
    ended: bool,
    /// The current hand-for-hand hand, and whether it is complete (waiting for its release).
    hand: u64,
    complete: bool,
    paused: bool,
    /// Moves seating has ordered and the tables have not applied yet.
    moving: BTreeSet<EntryNo>,
    /// Stacks at zero waiting on a rebuy decision.
    rebuying: BTreeSet<EntryNo>,
    /// Tables whose hand-for-hand hand left stacks at zero waiting on a rebuy decision: the
    /// aggregate hears the hand finished once each is decided, a forgone rebuy among its busts
    /// (out in that hand, with the hand's other busts at every table).
    #[serde(default)]
    deciding: BTreeMap<u32, Deciding>,
    /// Tables seating closed while they were dealing (broken, their players moved after the
    /// hand): each finishes that hand first, one of the hand-for-hand hand's, and the aggregate
    /// hears the close after that finish. Released nothing more.
    #[serde(default)]
    closing: BTreeMap<u32, Table>,
    /// A satellite's seat value or a double or nothing's equal prize (minor units; issues 36/37):
    /// the money boundary is its seats ([`hand_for_hand::locked_places`]).
    #[serde(default)]
    equal_prize: Option<u64>,
    /// The tournament is suspended (the abort service's log): no hand is released until it is
    /// resumed, as a director's pause of hand-for-hand holds it.
    #[serde(default)]
    suspended: bool,
}

/// A table's finished hand held back until its rebuy decisions are made.
#[derive(Debug, Serialize, Deserialize)]
struct Deciding {
    table_hand: u64,
    /// Its busts so far: those out at once, then each forgone rebuy.
    busts: Vec<HandBust>,
    /// Stacks at zero still deciding, each as the bust it becomes if forgone.
    waiting: BTreeMap<EntryNo, HandBust>,
    at: DateTime<Utc>,
}

/// The policy's memory: every tournament not over. Serialized for the runner's snapshots.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Policy {
    tournaments: HashMap<TournamentId, Tournament>,
}

impl Default for Table {
    fn default() -> Self {
        Self { in_hand: None, button: SeatNo(1), seats: HashMap::new(), held: false }
    }
}

fn id(what: &str, t: TournamentId) -> CommandId {
    CommandId::derived(&format!("bubble-{what}:{t}"))
}

pub use floor_rules::standings::seat_order;

impl Tournament {
    /// A tournament just created: its rules, nobody registered, no table open.
    fn created(rules: HandForHandRules, profile: RuleProfile, fixed: Option<FixedPayouts>) -> Self {
        Self {
            rules,
            profile,
            fixed,
            entries: 0,
            paid_places: None,
            tables: BTreeMap::new(),
            players_left: None,
            running: false,
            announced: false,
            ended: false,
            hand: 0,
            complete: false,
            paused: false,
            moving: BTreeSet::new(),
            rebuying: BTreeSet::new(),
            deciding: BTreeMap::new(),
            closing: BTreeMap::new(),
            equal_prize: None,
            suspended: false,
        }
    }

    /// Players left at which the bubble bursts (until payouts locks its table, the places the
    /// field would pay).
    fn boundary(&self) -> u32 {
        let field = FieldSoFar { entries: self.entries, profile: self.profile, fixed: self.fixed.as_ref() };
        hand_for_hand::boundary(&self.rules, self.paid_places, field)
    }

    fn field(&self) -> Option<FieldNow> {
        // Before the first elimination every entry is still in.
        Some(FieldNow {
            players_left: self.players_left.unwrap_or(self.entries),
            boundary: self.boundary(),
            tables: self.tables.keys().copied().collect(),
            dealing: self.tables.iter().filter(|(_, t)| t.in_hand.is_some()).map(|(&n, _)| n).collect(),
        })
    }

    /// A stack at zero decided: out (`forgone`: a bust of the hand it reached zero in) or
    /// bought back in.
    fn decided(&mut self, entry: &EntryNo, forgone: bool) {
        for d in self.deciding.values_mut() {
            if let Some(bust) = d.waiting.remove(entry) {
                if forgone {
                    d.busts.push(bust);
                }
            }
        }
    }

    fn settled(&self) -> bool {
        self.moving.is_empty() && self.rebuying.is_empty()
    }

    /// The release of the next hand, once the hand is complete and seating has settled.
    fn release(&self, t: TournamentId, at: DateTime<Utc>) -> Option<Order> {
        if !(self.running && self.complete && !self.paused && !self.suspended && self.settled()) {
            return None;
        }
        let next = self.hand.saturating_add(1);
        let tables = self.tables.keys().copied().collect();
        Some(Order::Bubble(t, id(&format!("release-{next}"), t), BubbleCommand::Release { tables, at }))
    }
}

/// The rules a tournament runs hand-for-hand under. The trigger starts it on its own where the
/// profile's rulebook requires it (`RuleProfile::hand_for_hand_required`: 000 §16.9, 002 §2.3
/// T-5.0, TDA RP-8) or the definition has a `hand_for_hand` section; otherwise only a director
/// starts it.
pub fn gated(d: &floor_events::tournament::TournamentDefinition) -> HandForHandRules {
    let rules = d.hand_for_hand_rules();
    // A rulebook that requires hand-for-hand starts it by itself (issue 38:
    // `RuleProfile::hand_for_hand_required`).
    if d.hand_for_hand.is_some() || d.profile.hand_for_hand_required() {
        rules
    } else {
        HandForHandRules { trigger: floor_events::bubble::Trigger::Director, ..rules }
    }
}

impl Policy {
    /// Registration's events.
    pub fn on_tournament(&mut self, t: TournamentId, events: &[TournamentEvent]) -> Vec<Order> {
        let mut orders = Vec::new();
        for e in events {
            match e {
                TournamentEvent::TournamentCreated(created) => {
                    let d = &created.definition;
                    let rules = gated(d);
                    let mut x = Tournament::created(rules, d.profile, d.payout_table.clone());
                    x.equal_prize = floor_rules::satellite::equal_prize(d).map(|prize| prize.amount);
                    self.tournaments.insert(t, x);
                    orders.push(Order::Bubble(t, id("configure", t), BubbleCommand::Configure { tournament_id: t, rules }));
                }
                TournamentEvent::EntryRegistered(_) => {
                    if let Some(x) = self.tournaments.get_mut(&t) {
                        x.entries = x.entries.saturating_add(1);
                    }
                }
                TournamentEvent::EntryUnregistered(_) => {
                    if let Some(x) = self.tournaments.get_mut(&t) {
                        x.entries = x.entries.saturating_sub(1);
                    }
                }
                TournamentEvent::TournamentCancelled(_) | TournamentEvent::TournamentFinished(_) => {
                    self.tournaments.remove(&t);
                }
                _ => {}
            }
        }
        orders
    }

    /// Payouts' events: the locked table's paid places.
    pub fn on_payouts(&mut self, t: TournamentId, events: &[PayoutEvent]) {
        let Some(x) = self.tournaments.get_mut(&t) else { return };
        for e in events {
            if let PayoutEvent::PayoutTableLocked { places, pool, .. } = e {
                // An equal prize's boundary is its seats, not the leftover's place (issues 36/37).
                x.paid_places = Some(hand_for_hand::locked_places(*places, pool.amount, x.equal_prize));
            }
        }
    }

    /// A seating commit, stored at `at` with stream sequence `sequence`.
    pub fn on_seating(&mut self, t: TournamentId, sequence: u64, at: DateTime<Utc>, events: &[SeatingEvent]) -> Vec<Order> {
        let Some(x) = self.tournaments.get_mut(&t) else { return vec![] };
        let eliminated: HashSet<EntryNo> =
            events.iter().filter_map(|e| if let SeatingEvent::EntryEliminated { entry, .. } = e { Some(*entry) } else { None }).collect();
        // Offered a rebuy and not decided in this same commit.
        let bought: HashSet<EntryNo> =
            events.iter().filter_map(|e| if let SeatingEvent::ChipsAtTable { entry, .. } = e { Some(*entry) } else { None }).collect();
        let offered: HashSet<EntryNo> = events
            .iter()
            .filter_map(|e| match e {
                SeatingEvent::StackReachedZero { entry, .. } if !eliminated.contains(entry) && !bought.contains(entry) => Some(*entry),
                _ => None,
            })
            .collect();
        let bubble = |what: &str, command| Order::Bubble(t, CommandId::derived(&format!("bubble-{what}:{t}:{sequence}")), command);
        let mut orders = Vec::new();
        let mut look = false;
        for e in events {
            match e {
                SeatingEvent::TablesDrawn { tables, .. } => {
                    for d in tables {
                        x.tables.entry(d.table).or_default();
                    }
                }
                SeatingEvent::TableOpened { table, .. } => {
                    x.tables.entry(*table).or_default();
                }
                SeatingEvent::TableClosed { table } => {
                    let gone = x.tables.remove(table);
                    // A hand still deciding rebuys is finished as it stands: the table is gone.
                    if let Some(d) = x.deciding.remove(table) {
                        let command = BubbleCommand::Finished { table: *table, table_hand: d.table_hand, busts: d.busts, at: d.at };
                        orders.push(bubble(&format!("finished-{table}"), command));
                    }
                    match gone {
                        // Closed while dealing: its finish of that hand is still to come.
                        Some(dealing) if dealing.in_hand.is_some() && (x.running || x.announced) => {
                            x.closing.insert(*table, dealing);
                        }
                        _ if x.running || x.announced => {
                            orders.push(bubble(&format!("closed-{table}"), BubbleCommand::TableClosed { table: *table, at }));
                        }
                        _ => {}
                    }
                }
                SeatingEvent::HandStarted { table, hand, button, stacks, crossing } => {
                    // A table already closed (broken while its last hand was being dealt) stays
                    // out of the field: it will never be released a hand.
                    let mut before_hold = false;
                    if let Some(tbl) = x.tables.get_mut(table) {
                        tbl.in_hand = Some(*hand);
                        tbl.button = *button;
                        tbl.seats = stacks.iter().map(|s| (s.entry, s.seat)).collect();
                        before_hold = !tbl.held;
                    }
                    if x.running || x.announced {
                        // Dealt before seating held the table (after the commit the field was
                        // read at), or across the hold: not a released hand.
                        let crossing = *crossing || before_hold;
                        orders.push(bubble(
                            &format!("dealt-{table}"),
                            BubbleCommand::Dealt { table: *table, table_hand: *hand, crossing, at },
                        ));
                    }
                }
                SeatingEvent::Instructed { instruction } => match instruction.instruction {
                    Instruction::HoldForDeal | Instruction::Resume => {
                        if let Some(tbl) = x.tables.get_mut(&instruction.table) {
                            tbl.held = instruction.instruction == Instruction::HoldForDeal;
                        }
                    }
                    _ => {}
                },
                SeatingEvent::HandFinished { table, hand, busts, .. } => {
                    let closing = x.closing.remove(table);
                    let tbl = x.tables.get(table).or(closing.as_ref());
                    let order = |entry: &EntryNo| tbl.and_then(|t| Some(seat_order(*t.seats.get(entry)?, t.button)));
                    let bust = |b: &floor_events::table::BustReport| HandBust {
                        entry: b.entry,
                        table: *table,
                        stack_at_start: b.stack_at_start,
                        seat_order: order(&b.entry).unwrap_or(u32::MAX),
                    };
                    let waiting: BTreeMap<EntryNo, HandBust> =
                        busts.iter().filter(|b| offered.contains(&b.entry)).map(|b| (b.entry, bust(b))).collect();
                    let busts: Vec<HandBust> = busts.iter().filter(|b| eliminated.contains(&b.entry)).map(bust).collect();
                    if let Some(tbl) = x.tables.get_mut(table) {
                        tbl.in_hand = None;
                    }
                    if (x.running || x.announced) && !waiting.is_empty() && closing.is_none() {
                        x.deciding.insert(*table, Deciding { table_hand: *hand, busts, waiting, at });
                    } else if x.running || x.announced {
                        // A closing table's hand is finished as it stands (as a table closed
                        // while deciding), and then it is gone.
                        let command = BubbleCommand::Finished { table: *table, table_hand: *hand, busts, at };
                        orders.push(bubble(&format!("finished-{table}"), command));
                        if closing.is_some() {
                            orders.push(bubble(&format!("closed-{table}"), BubbleCommand::TableClosed { table: *table, at }));
                        }
                    }
                }
                SeatingEvent::StackReachedZero { entry, .. } if !eliminated.contains(entry) => {
                    x.rebuying.insert(*entry);
                }
                SeatingEvent::ChipsAtTable { entry, .. } => {
                    x.rebuying.remove(entry);
                    x.decided(entry, false);
                }
                SeatingEvent::EntryEliminated { entry, players_left, .. } => {
                    x.rebuying.remove(entry);
                    x.decided(entry, true);
                    // A player who busts while being moved is eliminated instead: no
                    // confirmation of the move follows.
                    x.moving.remove(entry);
                    x.players_left = Some(*players_left);
                    look = true;
                }
                SeatingEvent::PlayerMoved { entry, .. } => {
                    x.moving.insert(*entry);
                }
                SeatingEvent::MoveConfirmed { entry } => {
                    x.moving.remove(entry);
                }
                SeatingEvent::TournamentWon { .. } => {
                    self.tournaments.remove(&t);
                    return orders;
                }
                _ => {}
            }
        }
        // A hand whose rebuy decisions are all made is finished now, its forgone rebuys with it.
        let decided: Vec<u32> = x.deciding.iter().filter(|(_, d)| d.waiting.is_empty()).map(|(&n, _)| n).collect();
        for table in decided {
            if let Some(d) = x.deciding.remove(&table) {
                let command = BubbleCommand::Finished { table, table_hand: d.table_hand, busts: d.busts, at: d.at };
                orders.push(bubble(&format!("finished-{table}"), command));
            }
        }
        // Far from the bubble nothing is sent: the check is the trigger's own, so the aggregate
        // hears only the eliminations that could start it.
        if look && !x.running {
            if let Some(field) = x.field() {
                if hand_for_hand::within_reach(&x.rules, field.players_left, field.boundary) {
                    // The aggregate starts it at two tables or more, once (`domain::triggered`);
                    // payouts reads the same commit the same way (the announcement hand's busts).
                    let starts = hand_for_hand::trigger_starts(&x.rules, field.players_left, field.boundary, field.tables.len());
                    x.announced |= starts && !x.ended;
                    orders.push(bubble("field", BubbleCommand::Field { field, at }));
                }
            }
        }
        orders.extend(x.release(t, at));
        orders
    }

    /// The abort service's events, stored at `at`: a suspension holds the next release, the
    /// resume releases it if it was waiting (issue 22: hand-for-hand holds while play is
    /// suspended); a cancelled tournament is forgotten.
    pub fn on_abort(&mut self, t: TournamentId, at: DateTime<Utc>, events: &[AbortEvent]) -> Vec<Order> {
        let Some(x) = self.tournaments.get_mut(&t) else { return vec![] };
        for e in events {
            match e {
                AbortEvent::Suspended { .. } => x.suspended = true,
                AbortEvent::Resumed { .. } => x.suspended = false,
                AbortEvent::Cancelled { .. } => {
                    self.tournaments.remove(&t);
                    return vec![];
                }
            }
        }
        x.release(t, at).into_iter().collect()
    }

    /// The field now, for a director's start.
    pub fn field(&self, t: TournamentId) -> Option<FieldNow> {
        self.tournaments.get(&t)?.field()
    }

    /// The field now, for a director's start about to be sent: from here on every table's
    /// reports go to the aggregate as while running (as after the trigger's start), since a
    /// table that finishes before the policy reads the start back finishes hand 0.
    /// Whether this call announced it (not already announced or running) comes with the field:
    /// only then does a refused start [`Policy::withdraw`] it.
    pub fn announce(&mut self, t: TournamentId) -> Option<(FieldNow, bool)> {
        let x = self.tournaments.get_mut(&t)?;
        let field = x.field()?;
        let announcing = !x.running && !x.announced;
        x.announced |= announcing;
        Some((field, announcing))
    }

    /// The director's start that [`Policy::announce`]d was refused: reports go to the
    /// aggregate only while it runs.
    pub fn withdraw(&mut self, t: TournamentId) {
        if let Some(x) = self.tournaments.get_mut(&t) {
            x.announced &= x.running;
        }
    }

    /// The bubble's own events: what they cause at the tables and the clock.
    pub fn on_bubble(&mut self, t: TournamentId, events: &[BubbleEvent]) -> Vec<Order> {
        let Some(x) = self.tournaments.get_mut(&t) else { return vec![] };
        let deduct = match x.rules.clock {
            HandForHandClock::Deduct { seconds } => Some(seconds),
            HandForHandClock::Normal => None,
        };
        let mut orders = Vec::new();
        let to_table = |what: &str, table: u32, instruction: Instruction| Order::Table {
            tournament: t,
            id: CommandId::derived(&format!("bubble-{what}:{t}:{table}")),
            table,
            instruction,
        };
        let mut last_at = None;
        for e in events {
            match e {
                BubbleEvent::HandForHandStarted { tables, at, .. } => {
                    // Each start is its own: a director may start it again after it ended.
                    let start = at.timestamp_micros();
                    x.running = true;
                    x.announced = false;
                    x.hand = 0;
                    x.complete = false;
                    x.paused = false;
                    orders.extend(tables.iter().map(|&n| to_table(&format!("hold-{start}"), n, Instruction::HoldForDeal)));
                    if deduct.is_some() {
                        let reason = "hand-for-hand".to_string();
                        orders.push(Order::ClockPause(PauseClock {
                            command_id: id(&format!("clock-pause-{start}"), t),
                            tournament_id: t,
                            reason,
                        }));
                    }
                    last_at = Some(*at);
                }
                BubbleEvent::HandCompleted { hand, at, .. } => {
                    x.hand = *hand;
                    x.complete = true;
                    if let Some(seconds) = deduct {
                        let command_id = id(&format!("clock-deduct-{}-{hand}", at.timestamp_micros()), t);
                        orders.push(Order::ClockAdjust(AdjustTime { command_id, tournament_id: t, seconds: -i64::from(seconds) }));
                    }
                    last_at = Some(*at);
                }
                BubbleEvent::HandReleased { hand, tables, at } => {
                    x.hand = *hand;
                    x.complete = false;
                    let when = at.timestamp_micros();
                    orders
                        .extend(tables.iter().map(|&n| to_table(&format!("deal-{when}-{hand}"), n, Instruction::DealHand { hand: *hand })));
                }
                BubbleEvent::Paused { .. } => x.paused = true,
                BubbleEvent::Resumed { at } => {
                    x.paused = false;
                    last_at = Some(*at);
                }
                BubbleEvent::HandForHandEnded { at, .. } => {
                    x.running = false;
                    x.announced = false;
                    x.ended = true;
                    x.complete = false;
                    let when = at.timestamp_micros();
                    let tables: Vec<u32> = x.tables.keys().copied().collect();
                    orders.extend(tables.into_iter().map(|n| to_table(&format!("resume-{when}"), n, Instruction::Resume)));
                    if deduct.is_some() {
                        orders.push(Order::ClockResume(ClockRequest {
                            command_id: id(&format!("clock-resume-{when}"), t),
                            tournament_id: t,
                        }));
                    }
                    last_at = None;
                }
                _ => {}
            }
        }
        if let Some(at) = last_at {
            orders.extend(x.release(t, at));
        }
        orders
    }
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
