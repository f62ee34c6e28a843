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
use floor_events::bubble::{Boundary, BubbleEvent, HandBust, HandForHandClock, HandForHandRules};
use floor_events::clock::{AdjustTime, ClockRequest, PauseClock};
use floor_events::payouts::PayoutEvent;
use floor_events::registration::TournamentEvent;
use floor_events::seating::SeatingEvent;
use floor_events::table::{Instruction, SeatNo};
use floor_events::tournament::FixedPayouts;
use floor_events::{CommandId, Currency, EntryNo, Money, RuleProfile, TournamentId};
use floor_rules::field::{places_at_most, Field};
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

/// Seat order for the hand: 0 for the first seat left of the button, the button last.
pub fn seat_order(seat: SeatNo, button: SeatNo) -> u32 {
    match seat.0.wrapping_sub(button.0) {
        0 => u32::from(u8::MAX),
        d => u32::from(d) - 1,
    }
}

impl Tournament {
    /// Players left at which the bubble bursts.
    fn boundary(&self) -> u32 {
        match self.rules.boundary {
            Boundary::PlayersLeft { players } => players,
            Boundary::Money => self.paid_places.unwrap_or_else(|| {
                // Until payouts locks its table: the places the field would pay.
                let field = Field {
                    entries: self.entries,
                    contributions: Money::new(0, Currency::EUR),
                    guarantee: None,
                    profile: self.profile,
                    fixed: self.fixed.clone(),
                };
                places_at_most(&field)
            }),
        }
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

    fn settled(&self) -> bool {
        self.moving.is_empty() && self.rebuying.is_empty()
    }

    /// The release of the next hand, once the hand is complete and seating has settled.
    fn release(&self, t: TournamentId, at: DateTime<Utc>) -> Option<Order> {
        if !(self.running && self.complete && !self.paused && self.settled()) {
            return None;
        }
        let next = self.hand.saturating_add(1);
        let tables = self.tables.keys().copied().collect();
        Some(Order::Bubble(t, id(&format!("release-{next}"), t), BubbleCommand::Release { tables, at }))
    }
}

/// The rules a tournament runs hand-for-hand under. The trigger starts it on its own only when
/// the definition has a `hand_for_hand` section; without one only a director starts it. Table
/// servers that do not obey `hold_for_deal` (the simulator's tables, `floor sim`) would stall a
/// tournament at the bubble, so the automatic barrier is opt-in until every table serves it.
pub fn gated(d: &floor_events::tournament::TournamentDefinition) -> HandForHandRules {
    let rules = d.hand_for_hand_rules();
    if d.hand_for_hand.is_some() {
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
                    self.tournaments.insert(
                        t,
                        Tournament {
                            rules,
                            profile: d.profile,
                            fixed: d.payout_table.clone(),
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
                        },
                    );
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
            if let PayoutEvent::PayoutTableLocked { places, .. } = e {
                x.paid_places = Some(*places);
            }
        }
    }

    /// A seating commit, stored at `at` with stream sequence `sequence`.
    pub fn on_seating(&mut self, t: TournamentId, sequence: u64, at: DateTime<Utc>, events: &[SeatingEvent]) -> Vec<Order> {
        let Some(x) = self.tournaments.get_mut(&t) else { return vec![] };
        let eliminated: HashSet<EntryNo> =
            events.iter().filter_map(|e| if let SeatingEvent::EntryEliminated { entry, .. } = e { Some(*entry) } else { None }).collect();
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
                    x.tables.remove(table);
                    if x.running || x.announced {
                        orders.push(bubble(&format!("closed-{table}"), BubbleCommand::TableClosed { table: *table, at }));
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
                    let tbl = x.tables.get(table);
                    let order = |entry: &EntryNo| tbl.and_then(|t| Some(seat_order(*t.seats.get(entry)?, t.button)));
                    let busts: Vec<HandBust> = busts
                        .iter()
                        .filter(|b| eliminated.contains(&b.entry))
                        .map(|b| HandBust {
                            entry: b.entry,
                            table: *table,
                            stack_at_start: b.stack_at_start,
                            seat_order: order(&b.entry).unwrap_or(u32::MAX),
                        })
                        .collect();
                    if let Some(tbl) = x.tables.get_mut(table) {
                        tbl.in_hand = None;
                    }
                    if x.running || x.announced {
                        let command = BubbleCommand::Finished { table: *table, table_hand: *hand, busts, at };
                        orders.push(bubble(&format!("finished-{table}"), command));
                    }
                }
                SeatingEvent::StackReachedZero { entry, .. } if !eliminated.contains(entry) => {
                    x.rebuying.insert(*entry);
                }
                SeatingEvent::ChipsAtTable { entry, .. } => {
                    x.rebuying.remove(entry);
                }
                SeatingEvent::EntryEliminated { entry, players_left, .. } => {
                    x.rebuying.remove(entry);
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
        // Far from the bubble nothing is sent: the check is the trigger's own, so the aggregate
        // hears only the eliminations that could start it.
        if look && !x.running {
            if let (Some(field), floor_events::bubble::Trigger::PlayersBeforeBubble { players }) = (x.field(), x.rules.trigger) {
                if field.players_left <= field.boundary.saturating_add(players) && field.players_left > field.boundary {
                    // The aggregate starts it at two tables or more, once (`domain::triggered`).
                    x.announced |= field.tables.len() >= 2 && !x.ended;
                    orders.push(bubble("field", BubbleCommand::Field { field, at }));
                }
            }
        }
        orders.extend(x.release(t, at));
        orders
    }

    /// The field now, for a director's start.
    pub fn field(&self, t: TournamentId) -> Option<FieldNow> {
        self.tournaments.get(&t)?.field()
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
mod tests {
    use super::*;
    use floor_events::table::{BustReport, SeatStack};

    #[test]
    fn the_memory_reads_back_from_its_snapshot() {
        // Maps keyed by tournament, table and entry encode as JSON objects and read back whole.
        let t = TournamentId::new();
        let mut policy = Policy::default();
        let mut x = tournament(RuleProfile::Tda2024.hand_for_hand());
        x.players_left = Some(16);
        x.moving.insert(EntryNo(4));
        policy.tournaments.insert(t, x);
        let stacks = vec![SeatStack { seat: SeatNo(3), entry: EntryNo(7), chips: 100 }];
        policy.on_seating(t, 1, at(), &[SeatingEvent::TableOpened { table: 3, seats: 9 }]);
        policy.on_seating(t, 1, at(), &[SeatingEvent::HandStarted { table: 3, hand: 41, button: SeatNo(2), stacks, crossing: false }]);
        policy.on_seating(t, 2, at(), &[SeatingEvent::TableOpened { table: 5, seats: 9 }]);
        let back: Policy = serde_json::from_slice(&serde_json::to_vec(&policy).expect("encodes")).expect("decodes");
        assert_eq!(back.field(t), policy.field(t));
        assert_eq!(back.field(t).map(|f| (f.players_left, f.tables, f.dealing)), Some((16, vec![3, 5], vec![3])));
        let (a, b) = (&policy.tournaments[&t], &back.tournaments[&t]);
        assert_eq!((&a.moving, a.tables[&3].seats.get(&EntryNo(7))), (&b.moving, b.tables[&3].seats.get(&EntryNo(7))));
    }

    #[test]
    fn seat_order_starts_left_of_the_button_and_ends_on_it() {
        let order = |seat| seat_order(SeatNo(seat), SeatNo(5));
        assert_eq!([order(6), order(7), order(9), order(1), order(4), order(5)], [0, 1, 3, 251, 254, 255]);
        assert!(order(9) < order(1) && order(1) < order(4) && order(4) < order(5));
    }

    fn tournament(rules: HandForHandRules) -> Tournament {
        Tournament {
            rules,
            profile: RuleProfile::Tda2024,
            fixed: None,
            entries: 100,
            paid_places: Some(15),
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
        }
    }

    fn at() -> DateTime<Utc> {
        "2026-12-06T20:00:00Z".parse().unwrap()
    }

    fn eliminated(entry: u32, players_left: u32) -> SeatingEvent {
        SeatingEvent::EntryEliminated { entry: EntryNo(entry), players_left, stack_at_start: None, table: None }
    }

    #[test]
    fn an_elimination_near_the_bubble_asks_the_aggregate_and_one_far_from_it_does_not() {
        let t = TournamentId::new();
        let mut policy = Policy::default();
        policy.tournaments.insert(t, tournament(RuleProfile::Tda2024.hand_for_hand()));
        let opened = [SeatingEvent::TableOpened { table: 1, seats: 9 }, SeatingEvent::TableOpened { table: 2, seats: 9 }];
        policy.on_seating(t, 1, at(), &opened);
        assert!(policy.on_seating(t, 2, at(), &[eliminated(1, 17)]).is_empty(), "15 paid + 1: 17 left is not near yet");
        let orders = policy.on_seating(t, 3, at(), &[eliminated(2, 16)]);
        let [Order::Bubble(_, first, BubbleCommand::Field { field, .. })] = &orders[..] else { panic!("{orders:?}") };
        assert_eq!((field.players_left, field.boundary, field.tables.clone()), (16, 15, vec![1, 2]));
        let again = policy.on_seating(t, 3, at(), &[eliminated(2, 16)]);
        assert!(matches!(&again[..], [Order::Bubble(_, id, _)] if id == first), "the same commit, the same id");
    }

    /// Given tables 1 and 2 near the bubble (15 paid, 17 left), table 2 dealing,
    /// when table 1's bust leaves 16 and the start is not yet read back from the log,
    /// then table 2's finish, stored between the two, still goes to the aggregate (its hand 0).
    #[test]
    fn a_finish_between_the_trigger_and_the_start_in_the_log_still_reaches_the_aggregate() {
        let t = TournamentId::new();
        let mut policy = Policy::default();
        policy.tournaments.insert(t, tournament(RuleProfile::Tda2024.hand_for_hand()));
        let seats = |e: u32, s: u8| vec![SeatStack { seat: SeatNo(s), entry: EntryNo(e), chips: 100 }];
        policy.on_seating(
            t,
            1,
            at(),
            &[SeatingEvent::TableOpened { table: 1, seats: 9 }, SeatingEvent::TableOpened { table: 2, seats: 9 }],
        );
        policy.on_seating(
            t,
            2,
            at(),
            &[SeatingEvent::HandStarted { table: 2, hand: 8, button: SeatNo(1), stacks: seats(9, 1), crossing: false }],
        );
        let orders = policy.on_seating(t, 3, at(), &[eliminated(2, 16)]);
        let [Order::Bubble(_, _, BubbleCommand::Field { field, .. })] = &orders[..] else { panic!("{orders:?}") };
        assert_eq!(field.dealing, vec![2], "table 2 owes hand 0");
        let finished = SeatingEvent::HandFinished { table: 2, hand: 8, stacks: vec![], busts: vec![] };
        let orders = policy.on_seating(t, 4, at(), &[finished]);
        assert!(
            matches!(&orders[..], [Order::Bubble(_, _, BubbleCommand::Finished { table: 2, table_hand: 8, .. })]),
            "forwarded before the start is read: {orders:?}"
        );
        // Once it has ended, the trigger asks no more, and reports are not forwarded.
        let ended = BubbleEvent::HandForHandEnded { cause: floor_events::bubble::EndCause::OneTable, players_left: 16, at: at() };
        policy.on_bubble(t, &[ended]);
        policy.on_seating(t, 5, at(), &[eliminated(3, 16)]);
        let started = SeatingEvent::HandStarted { table: 2, hand: 9, button: SeatNo(1), stacks: seats(9, 1), crossing: false };
        assert!(policy.on_seating(t, 6, at(), &[started]).is_empty());
    }

    /// Given hand-for-hand announced with table 1 between hands in the policy's view,
    /// when table 1 deals before seating's hold for it is in the log, and again after,
    /// then the first deal goes to the aggregate as dealt before the hold (not a released
    /// hand), the second as seating said.
    #[test]
    fn a_deal_stored_before_seating_held_the_table_is_not_a_released_hand() {
        let t = TournamentId::new();
        let mut policy = Policy::default();
        policy.tournaments.insert(t, tournament(RuleProfile::Tda2024.hand_for_hand()));
        let seats = |e: u32, s: u8| vec![SeatStack { seat: SeatNo(s), entry: EntryNo(e), chips: 100 }];
        policy.on_seating(
            t,
            1,
            at(),
            &[SeatingEvent::TableOpened { table: 1, seats: 9 }, SeatingEvent::TableOpened { table: 2, seats: 9 }],
        );
        let orders = policy.on_seating(t, 2, at(), &[eliminated(2, 16)]);
        assert!(matches!(&orders[..], [Order::Bubble(_, _, BubbleCommand::Field { .. })]), "{orders:?}");
        let dealt = |hand| SeatingEvent::HandStarted { table: 1, hand, button: SeatNo(1), stacks: seats(9, 1), crossing: false };
        let orders = policy.on_seating(t, 3, at(), &[dealt(5)]);
        assert!(matches!(&orders[..], [Order::Bubble(_, _, BubbleCommand::Dealt { table: 1, crossing: true, .. })]), "{orders:?}");
        let hold = floor_events::table::TableInstruction { tournament_id: t, table: 1, sequence: 9, instruction: Instruction::HoldForDeal };
        policy.on_seating(
            t,
            4,
            at(),
            &[
                SeatingEvent::HandFinished { table: 1, hand: 5, stacks: vec![], busts: vec![] },
                SeatingEvent::Instructed { instruction: hold },
            ],
        );
        let orders = policy.on_seating(t, 5, at(), &[dealt(6)]);
        assert!(matches!(&orders[..], [Order::Bubble(_, _, BubbleCommand::Dealt { table: 1, crossing: false, .. })]), "{orders:?}");
    }

    /// Given a move in flight and table 3 closed (broken) while dealing its last hand,
    /// when the moving player busts instead (eliminated, no confirmation) and table 3 reports
    /// the end of its last hand,
    /// then nothing holds the release back, and the release does not name table 3.
    #[test]
    fn a_bust_ends_a_move_and_a_closed_table_finishing_its_last_hand_stays_out_of_the_release() {
        let t = TournamentId::new();
        let mut policy = Policy::default();
        let mut x = tournament(RuleProfile::Win2day.hand_for_hand());
        x.running = true;
        for n in [1, 2, 3] {
            x.tables.insert(n, Table::default());
        }
        policy.tournaments.insert(t, x);
        let moved = SeatingEvent::PlayerMoved {
            entry: EntryNo(4),
            from_table: 1,
            from_seat: SeatNo(2),
            to_table: 2,
            to_seat: SeatNo(5),
            wait_for_button: false,
            reason: floor_events::seating::MoveReason::Break { players_left: 20, tables_needed: 2 },
        };
        policy.on_seating(t, 1, at(), &[moved, SeatingEvent::TableClosed { table: 3 }]);
        let finished = SeatingEvent::HandFinished { table: 3, hand: 30, stacks: vec![], busts: vec![] };
        policy.on_seating(t, 2, at(), &[finished]);
        policy.on_seating(t, 3, at(), &[eliminated(4, 19)]);
        let completed = BubbleEvent::HandCompleted { hand: 2, players_left_before: 20, placed: vec![], at: at() };
        let orders = policy.on_bubble(t, &[completed]);
        assert!(matches!(&orders[..], [Order::Bubble(_, _, BubbleCommand::Release { tables, .. })] if tables == &vec![1, 2]), "{orders:?}");
    }

    #[test]
    fn while_running_reports_go_to_the_aggregate_with_seat_order_and_only_eliminated_busts() {
        let t = TournamentId::new();
        let mut policy = Policy::default();
        policy.tournaments.insert(t, tournament(RuleProfile::Tda2024.hand_for_hand()));
        policy.tournaments.get_mut(&t).unwrap().running = true;
        policy.tournaments.get_mut(&t).unwrap().tables.insert(3, Table::default());
        let stacks =
            |entries: &[(u32, u8)]| entries.iter().map(|&(e, s)| SeatStack { seat: SeatNo(s), entry: EntryNo(e), chips: 100 }).collect();
        let started =
            SeatingEvent::HandStarted { table: 3, hand: 41, button: SeatNo(2), stacks: stacks(&[(7, 3), (8, 1), (9, 5)]), crossing: false };
        let orders = policy.on_seating(t, 10, at(), &[started]);
        assert!(matches!(&orders[..], [Order::Bubble(_, _, BubbleCommand::Dealt { table: 3, table_hand: 41, .. })]), "{orders:?}");
        let report = |e| BustReport { entry: EntryNo(e), stack_at_start: 100, pots: vec![], best_high_hand: None };
        let finished = SeatingEvent::HandFinished { table: 3, hand: 41, stacks: vec![], busts: vec![report(7), report(8)] };
        let zero = SeatingEvent::StackReachedZero { entry: EntryNo(8), table: 3, hand: 41, stack_at_start: 100 };
        let orders = policy.on_seating(t, 11, at(), &[finished, zero, eliminated(7, 16)]);
        let Order::Bubble(_, _, BubbleCommand::Finished { busts, .. }) = &orders[0] else { panic!("{orders:?}") };
        assert_eq!(busts, &vec![HandBust { entry: EntryNo(7), table: 3, stack_at_start: 100, seat_order: 0 }], "8 waits on a rebuy");
    }

    #[test]
    fn the_announcement_holds_every_table_and_pauses_a_deducting_clock_and_the_end_resumes_both() {
        let t = TournamentId::new();
        let mut policy = Policy::default();
        policy.tournaments.insert(t, tournament(RuleProfile::Tda2024.hand_for_hand()));
        policy.on_seating(
            t,
            1,
            at(),
            &[SeatingEvent::TableOpened { table: 1, seats: 9 }, SeatingEvent::TableOpened { table: 2, seats: 9 }],
        );
        let started = BubbleEvent::HandForHandStarted {
            cause: floor_events::bubble::StartCause::Trigger,
            players_left: 16,
            boundary: 15,
            tables: vec![1, 2],
            dealing: vec![1, 2],
            at: at(),
        };
        let orders = policy.on_bubble(t, &[started]);
        let holds = orders.iter().filter(|o| matches!(o, Order::Table { instruction: Instruction::HoldForDeal, .. })).count();
        assert_eq!(holds, 2);
        assert!(orders.iter().any(|o| matches!(o, Order::ClockPause(_))));
        let completed = BubbleEvent::HandCompleted { hand: 0, players_left_before: 16, placed: vec![], at: at() };
        let orders = policy.on_bubble(t, &[completed]);
        assert!(orders.iter().any(|o| matches!(o, Order::ClockAdjust(AdjustTime { seconds: -120, .. }))), "{orders:?}");
        assert!(orders.iter().any(|o| matches!(o, Order::Bubble(_, _, BubbleCommand::Release { .. }))), "settled: release at once");
        let ended = BubbleEvent::HandForHandEnded { cause: floor_events::bubble::EndCause::Burst, players_left: 15, at: at() };
        let orders = policy.on_bubble(t, &[ended]);
        assert_eq!(orders.iter().filter(|o| matches!(o, Order::Table { instruction: Instruction::Resume, .. })).count(), 2);
        assert!(orders.iter().any(|o| matches!(o, Order::ClockResume(_))));
    }

    #[test]
    fn a_move_in_flight_keeps_the_release_back_until_it_is_confirmed() {
        let t = TournamentId::new();
        let mut policy = Policy::default();
        let mut x = tournament(RuleProfile::Win2day.hand_for_hand());
        x.running = true;
        x.tables.insert(1, Table::default());
        x.tables.insert(2, Table::default());
        x.moving.insert(EntryNo(4));
        policy.tournaments.insert(t, x);
        let completed = BubbleEvent::HandCompleted { hand: 3, players_left_before: 16, placed: vec![], at: at() };
        let orders = policy.on_bubble(t, &[completed]);
        assert!(orders.is_empty(), "normal clock, a move in flight: nothing yet: {orders:?}");
        let orders = policy.on_seating(t, 20, at(), &[SeatingEvent::MoveConfirmed { entry: EntryNo(4) }]);
        assert!(matches!(&orders[..], [Order::Bubble(_, _, BubbleCommand::Release { tables, .. })] if tables == &vec![1, 2]), "{orders:?}");
    }
}
