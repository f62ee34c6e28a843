//! What the payouts aggregate is told, read from the log: registration's entries and refunds,
//! and the rebuys service's rebuys and add-ons, make the field; the table is locked once the
//! pool stops growing (the start, or the clock's end of late registration, and the end of the
//! rebuy period and add-on break, whichever is last); each seating commit with eliminations
//! becomes one award.
//!
//! Hand for hand (the bubble's log): the busts of one released hand-for-hand hand, at every
//! table, are one group (TDA: players out in the same hand-for-hand hand at different tables
//! finish together, ranked by the profile's rule across tables). From `hand_released {k}` the
//! eliminations seating stores are held, in log order, and awarded as one award at
//! `hand_completed {k}`, at the end of hand-for-hand, or before a winner's award. Every
//! elimination of hand k is stored after `hand_released {k}` (the table dealt it on the
//! `deal_hand` that event caused) and before `hand_completed {k}` (the bubble completes the hand
//! from those reports), so the groups are the same in every run of the same log, however the
//! services' commits interleave. A late table's busts (`late_busts_placed`: a table the
//! director stopped waiting for, or a deal that crossed the hold) are taken out of the held
//! ones as a group of their own, below everyone else held. Players left before a group come
//! from seating's counts (players left before the first held elimination), so the places stay
//! contiguous and every prize is paid.
//!
//! The announcement hand (hand 0, TDA RP-8 A: its busts share their places) is held from the
//! seating commit whose bust starts hand-for-hand by the trigger, which the policy knows by the
//! bubble's own rule (`floor_rules::hand_for_hand`, with the bubble's configured rules, seating's
//! tables and players left, and the locked table's places, all read from the same log in the
//! same order as the bubble policy reads them), not from the bubble's `hand_for_hand_started`:
//! that is stored after the trigger's commit, and a table finishing its hand 0 meanwhile would
//! be paid apart in one run and together in another. A director's start is known only from its
//! event: busts stored before it are paid as they come. Each award carries the hand-for-hand
//! hand (`places_awarded.hand_for_hand`).
//!
//! A satellite (issue 36): the field carries the definition's seat value, so the table locked
//! is its seats (`floor_rules::satellite::table`). **The stop is payouts'** (issues 36/37), as
//! payouts ranks: with two seats or more and the field closed, the award (one hand at a table,
//! or one hand-for-hand hand at every table) that leaves no more entries than seats stops it;
//! the survivors are the entries left and the award's busts ranked wholly within the seats (a
//! tie across the cut is split in cash), sent to registration as `stop_shared`
//! (`payouts-stop:<t>`), and nothing more is awarded. Registration's `tournament_finished` with
//! `shared_by` (this stop, or registration's own at a start or a close of registration) then
//! awards what hand-for-hand held, and every survivor not placed a place in one `Shared` command
//! (`payouts-shared:<t>`); seating's and the bubble's later commits award nothing. Hand-for-hand
//! counts from the seats, not the leftover's place (`floor_rules::hand_for_hand::locked_places`),
//! so it runs until the stop.
//!
//! A double or nothing (issue 37) is the satellite's stop with cash: the field's seat value is
//! the cut's equal prize (`floor_rules::satellite::equal_prize`: `fraction` × an entry's
//! prize-pool part), so the table locked at the start pays it to places 1 … capacity ÷ fraction,
//! and the same stop pays every survivor one.
//!
//! A lottery sit & go (issue 37, 000 §16.10): no table is locked at the start; the lottery
//! aggregate's `prize_drawn` locks it ([`Policy::on_lottery`]: the drawn pool, the drawn prizes
//! by place). Eliminations read before the draw wait for it, in log order, and are awarded once
//! it locks the table (a game whose draw never comes, its lottery service down, waits: nobody is
//! paid from a table the draw did not make).
//!
//! Deals: the policy keeps each remaining entry's chips as the tables report them (the last
//! `hand_started` or `hand_finished` that names it, plus chips bought since), which a proposal
//! carries to the aggregate; and the payouts log's own deal events pause the clock while a deal
//! is discussed (`deal discussion`) and resume it once agreed, rejected or voided. A clock a
//! director had paused before the proposal (a `paused` the policy has read, with another
//! reason) is left alone, and so is not resumed either.
//!
//! Pure: the service feeds commits in stream order and runs the commands that come out, each
//! with an id derived from where it came from, so reading the log again repeats nothing.

use crate::books::Ledger;
use crate::domain::{Eliminated, Field, PayoutCommand};
use floor_events::bubble::{BubbleEvent, HandForHandRules, ANNOUNCEMENT_HAND};
use floor_events::clock::{ClockEvent, ClockRequest, PauseClock};
use floor_events::lottery::{LotteryEvent, PrizeDrawn};
use floor_events::payouts::{LockCause, PayoutEvent};
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::{StopShared, TournamentEvent};
use floor_events::seating::SeatingEvent;
use floor_events::{CommandId, EntryNo, Money, PlayerId, RuleProfile, TournamentId};
use floor_rules::field::Stakes;
use floor_rules::hand_for_hand::{self, FieldSoFar};
use floor_rules::standings::seat_order;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The reason the clock shows while a deal is discussed.
pub const DEAL_PAUSE_REASON: &str = "deal discussion";

/// An entry's chips as the tables report them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stack {
    /// At the end (or start) of the last hand its table reported.
    pub chips: u64,
    /// Bought since and at the table, in the stack from its next hand.
    pub pending: u64,
    /// Its seat order in the last hand it was dealt in (0 left of the button, the button last):
    /// ranks equal stacks out in the same hand under `seat_order`, and orders the remainder.
    #[serde(default)]
    pub seat_order: Option<u32>,
}

/// One tournament as the payouts policy sees it.
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Tournament {
    ledger: Ledger,
    guarantee: Option<Money>,
    profile: RuleProfile,
    /// The definition's own ranking of players out in the same hand, if it sets one.
    #[serde(default)]
    ordering: Option<floor_events::bubble::EliminationOrdering>,
    late_registration: bool,
    fixed: Option<floor_events::tournament::FixedPayouts>,
    /// A shootout's prizes per round reached (issue 37): its table, fixed at the start.
    #[serde(default)]
    rounds: Option<crate::rounds::RoundPrizes>,
    players: HashMap<EntryNo, PlayerId>,
    /// Late registration is over (or there was none and the tournament started).
    field_closed: bool,
    /// Rebuys or an add-on can still be bought.
    buying: bool,
    /// Entries still in, with their chips (`EntryJoined` on, until eliminated).
    #[serde(default)]
    stacks: BTreeMap<EntryNo, Stack>,
    /// The clock is paused for another reason than a deal (a director's `paused` read).
    #[serde(default)]
    clock_paused_by_other: bool,
    /// The policy paused the clock for the deal under discussion.
    #[serde(default)]
    deal_paused_clock: bool,
    /// A released hand-for-hand hand is being played (from the bubble's `hand_released` to its
    /// `hand_completed`): its eliminations are held for one award.
    #[serde(default)]
    holding: bool,
    /// Eliminations held for the hand's award, in log order.
    #[serde(default)]
    held: Vec<Eliminated>,
    /// Players left before the first held elimination (seating's count).
    #[serde(default)]
    held_before: u32,
    /// The hand-for-hand hand whose eliminations are held.
    #[serde(default)]
    hand: u64,
    /// The bubble's rules in force (its `bubble_configured`).
    #[serde(default)]
    bubble: Option<HandForHandRules>,
    /// Places the locked payout table pays.
    #[serde(default)]
    paid_places: Option<u32>,
    /// Tables in play, as seating opens and closes them.
    #[serde(default)]
    tables: BTreeSet<u32>,
    /// Players left at the last elimination (seating's count).
    #[serde(default)]
    players_left: Option<u32>,
    /// Hand-for-hand has started once (foreseen from the trigger, or read): the trigger does
    /// not start it again.
    #[serde(default)]
    hand_for_hand_started: bool,
    /// A satellite's seat value (the definition's `satellite.seat_value`, minor units): the
    /// table is its seats (issue 36).
    #[serde(default)]
    seat_value: Option<u64>,
    /// A flight's Day 1 (issue 36): it pays no prizes (its whole pool goes to its Day 2), so no
    /// table is locked, no elimination awarded and its stop pays no survivor.
    #[serde(default)]
    day1: bool,
    /// A Day 1's Day 2 (issue 36): its pool goes there when it stops.
    #[serde(default)]
    day2: Option<TournamentId>,
    /// A Day 2's Day 1 pools paid over to it so far (minor units): in its table's pool.
    #[serde(default)]
    transferred_in: u64,
    /// The definition has bounties (their money is the bounties service's to pay).
    #[serde(default)]
    bounties: bool,
    /// Registration stopped the satellite with its survivors sharing the seats (its
    /// `tournament_finished` with `shared_by`): seating's later commits (a hand that finished
    /// after the stop) award nothing.
    #[serde(default)]
    shared_finish: bool,
    /// Payouts decided the equal-prize stop (issues 36/37) and asked registration to record it
    /// (`stop_shared`): nothing more is awarded until its `tournament_finished` pays the
    /// survivors.
    #[serde(default)]
    stopped: bool,
    /// A lottery sit & go (issue 37): its table is the lottery aggregate's draw, not the field's.
    #[serde(default)]
    lottery: bool,
    /// The draw is read and its table ordered locked.
    #[serde(default)]
    drawn: bool,
    /// A lottery game's awards read before its draw, in log order: each is ordered once the
    /// draw locks the table (a draw that never comes leaves them waiting, unpaid, never paid from
    /// a table the draw did not make).
    #[serde(default)]
    waiting: Vec<Waiting>,
}

/// An award a lottery game owes once its table is drawn: what the `Award` command carries, and
/// the id it would have had.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Waiting {
    command_id: CommandId,
    players_left_before: u32,
    eliminated: Vec<Eliminated>,
    winner: Option<(EntryNo, PlayerId)>,
    hand_for_hand: Option<u64>,
}

impl Tournament {
    /// Holds `eliminated` (seating's `players_left` after the first of them given).
    fn hold(&mut self, eliminated: Vec<Eliminated>, players_left_after_first: u32) {
        if self.held.is_empty() {
            self.held_before = players_left_after_first.saturating_add(1);
        }
        self.held.extend(eliminated);
    }

    /// The held eliminations `taken` picks as one award of hand-for-hand hand `hand`, placed
    /// below every other held one; the rest stay held (`None`: none picked).
    fn award_held_where(&mut self, id: TournamentId, command_id: CommandId, hand: u64, taken: impl Fn(&Eliminated) -> bool) -> Vec<Order> {
        let (eliminated, kept): (Vec<Eliminated>, Vec<Eliminated>) = std::mem::take(&mut self.held).into_iter().partition(taken);
        self.held = kept;
        if eliminated.is_empty() {
            return vec![];
        }
        let players_left_before = self.held_before;
        self.held_before = self.held_before.saturating_sub(eliminated.len() as u32);
        self.award(id, Waiting { command_id, players_left_before, eliminated, winner: None, hand_for_hand: Some(hand) })
    }

    /// A lottery game still waiting for its draw (issue 37): its table is not known yet.
    fn waits_for_draw(&self) -> bool {
        self.lottery && !self.drawn
    }

    /// The `Award` order for `award`, then, if it brings an equal-prize tournament to its stop,
    /// the stop ([`Tournament::stop_after`]); or, while a lottery game waits for its draw,
    /// nothing now: the award waits, in log order, for the draw ([`Policy::on_lottery`]).
    /// Nothing after the stop.
    fn award(&mut self, id: TournamentId, award: Waiting) -> Vec<Order> {
        if self.stopped {
            return vec![];
        }
        if self.waits_for_draw() {
            self.waiting.push(award);
            return vec![];
        }
        let stop = self.stop_after(id, &award);
        let mut orders = vec![self.award_order(id, award)];
        orders.extend(stop);
        orders
    }

    /// The equal-prize stop (issues 36/37; 000 §16.7, 003 App. 1 b xi, 004 §4.36.16), decided
    /// here because payouts ranks: a tournament with an equal prize whose pool buys two of them
    /// or more, its field closed, and an award (one hand's busts at a table, or one
    /// hand-for-hand hand's at every table) that leaves no more entries in than equal prizes.
    /// The survivors are the entries still in (those left at the tables, then any still held
    /// for a later group, which finish above this one), then the award's busts its ranking
    /// ([`crate::domain::rank_hand`], the places the award pays) puts wholly within the equal
    /// places, best first. A tie straddling the cut is paid the split in cash and is no survivor.
    /// Registration records the stop on `stop_shared` (`payouts-stop:<t>`) and its
    /// `tournament_finished` with `shared_by` pays the survivors not placed yet (`Shared`).
    fn stop_after(&mut self, id: TournamentId, award: &Waiting) -> Option<Order> {
        let prize = self.seat_value?;
        // A winner in the award (the last opponents out in one hand across the cut) is paid by
        // it and the tournament with it; the stop still names the winner and the busts above
        // the cut, so registration finishes it shared as payouts paid it.
        if self.stopped || self.shared_finish || !self.field_closed || self.buying {
            return None;
        }
        let out = u32::try_from(award.eliminated.len()).ok()?;
        let left_after = award.players_left_before.checked_sub(out)?;
        let field = self.field();
        let (_, pool, _) = floor_rules::field::table_with_stakes(&field, self.capped_stakes()).ok()?;
        let seats = floor_rules::satellite::seats(pool.amount, prize);
        if seats < 2 || left_after > seats {
            return None;
        }
        let mut above = crate::domain::rank_hand(&field, award.players_left_before, &award.eliminated, award.hand_for_hand);
        above.retain(|f| f.place.checked_add(f.shared).is_some_and(|end| end.saturating_sub(1) <= seats));
        above.sort_by_key(|f| (f.place, f.entry));
        let busted: HashSet<EntryNo> = award.eliminated.iter().map(|e| e.entry).collect();
        let mut survivors: Vec<EntryNo> = self.stacks.keys().copied().filter(|e| !busted.contains(e)).collect();
        if let Some((winner, _)) = award.winner.as_ref().filter(|(w, _)| !survivors.contains(w)) {
            survivors.insert(0, *winner);
        }
        survivors.extend(self.held.iter().map(|e| e.entry).filter(|e| !busted.contains(e)));
        survivors.extend(above.iter().map(|f| f.entry));
        self.stopped = true;
        let stop = StopShared { command_id: CommandId::derived(&format!("payouts-stop:{id}")), tournament_id: id, survivors, deal: false };
        Some(Order::StopShared(stop))
    }

    /// The stakes a `WithStakes` would carry (a guaranteed `reel-cz` field), for the pool.
    fn capped_stakes(&self) -> Option<Stakes> {
        (self.profile == RuleProfile::ReelCz && self.guarantee.is_some()).then(|| self.stakes())
    }

    fn award_order(&self, id: TournamentId, award: Waiting) -> Order {
        let Waiting { command_id, players_left_before, eliminated, winner, hand_for_hand } = award;
        let command =
            self.with_stakes(PayoutCommand::Award { field: self.field(), players_left_before, eliminated, winner, hand_for_hand });
        Order::Payouts((id, command_id, command))
    }

    /// Every held elimination as one award (nothing: nothing held).
    fn award_held(&mut self, id: TournamentId, command_id: CommandId) -> Vec<Order> {
        self.award_held_where(id, command_id, self.hand, |_| true)
    }

    /// Whether the bubble's trigger starts hand-for-hand at the commit just folded: the bubble
    /// decides by the same rule from the same log, so the eliminations stored from here on are
    /// the announcement hand's until the bubble completes it.
    fn trigger_starts(&self) -> bool {
        let (Some(rules), Some(left)) = (&self.bubble, self.players_left) else { return false };
        if self.hand_for_hand_started {
            return false;
        }
        let field = FieldSoFar { entries: self.ledger.entries, profile: self.profile, fixed: self.fixed.as_ref() };
        let boundary = hand_for_hand::boundary(rules, self.paid_places, field);
        hand_for_hand::trigger_starts(rules, left, boundary, self.tables.len())
    }

    /// Holds the eliminations from here on for hand-for-hand hand `hand`.
    fn hold_from(&mut self, hand: u64) {
        self.holding = true;
        self.hand = hand;
        self.hand_for_hand_started = true;
    }

    /// What the players paid in, fees included, and its bounty pool: 003 App. 1 b ix's stakes
    /// ("vklady", `floor_rules::field::Stakes`).
    fn stakes(&self) -> Stakes {
        Stakes { paid_in: self.ledger.paid_in, bounty_pool: self.ledger.bounty_pool }
    }

    /// A `Lock` or `Award` with the stakes, for a field whose pool they can cap (a guaranteed
    /// `reel-cz` tournament: 003 App. 1 b ix, issue 38); as it is for any other.
    fn with_stakes(&self, command: PayoutCommand) -> PayoutCommand {
        if self.profile == RuleProfile::ReelCz && self.guarantee.is_some() {
            PayoutCommand::WithStakes { stakes: self.stakes(), command: Box::new(command) }
        } else {
            command
        }
    }

    fn field(&self) -> Field {
        let currency = self.ledger.currency.unwrap_or(floor_events::Currency::EUR);
        Field {
            entries: self.ledger.entries,
            // A flight's Day 2 (issue 36): its Day 1s' pools with its own entries'.
            contributions: Money::new(self.ledger.contributions.saturating_add(self.transferred_in), currency),
            guarantee: self.guarantee,
            profile: self.profile,
            fixed: self.fixed.clone(),
            ordering: self.ordering,
            seat_value: self.seat_value,
        }
    }
}

/// A command for one tournament's payouts aggregate.
pub type PayoutOrder = (TournamentId, CommandId, PayoutCommand);

/// A command the payouts policy calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// To the tournament's payouts aggregate.
    Payouts(PayoutOrder),
    /// Pause the clock: a deal is discussed.
    ClockPause(PauseClock),
    /// Resume it: the deal is settled.
    ClockResume(ClockRequest),
    /// Registration records the equal-prize stop payouts decided (issues 36/37).
    StopShared(StopShared),
}

impl Order {
    /// The tournament it is for.
    pub fn tournament(&self) -> TournamentId {
        match self {
            Self::Payouts((t, ..)) => *t,
            Self::ClockPause(p) => p.tournament_id,
            Self::ClockResume(r) => r.tournament_id,
            Self::StopShared(r) => r.tournament_id,
        }
    }
}

/// A remaining entry as the policy knows it: who, and their chips.
pub type RemainingEntry = (EntryNo, PlayerId, u64);

/// The policy's memory: every tournament not yet paid. Stored in the payouts service's
/// snapshot ([`floor_runtime::policy`]).
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Policy {
    tournaments: HashMap<TournamentId, Tournament>,
    paid: HashSet<TournamentId>,
}

impl Policy {
    /// Whether `tournament` has been paid (its payouts log says so).
    pub fn is_paid(&self, tournament: TournamentId) -> bool {
        self.paid.contains(&tournament)
    }

    /// Whether `tournament` has bounties (a deal cannot end it yet: the bounties on the heads
    /// still in would stay unpaid).
    pub fn has_bounties(&self, tournament: TournamentId) -> bool {
        self.tournaments.get(&tournament).is_some_and(|t| t.bounties)
    }

    /// The entries still in `tournament` with their chips, in entry order; `None` for a
    /// tournament the policy does not follow (unknown, cancelled or paid).
    pub fn remaining(&self, tournament: TournamentId) -> Option<Vec<RemainingEntry>> {
        let t = self.tournaments.get(&tournament)?;
        let player = |entry: &EntryNo| t.players.get(entry).cloned().unwrap_or_else(|| unknown_player(*entry));
        Some(t.stacks.iter().map(|(entry, s)| (*entry, player(entry), s.chips.saturating_add(s.pending))).collect())
    }

    /// Registration's events: the field, and the lock when a tournament starts without late
    /// registration.
    pub fn on_tournament(&mut self, id: TournamentId, events: &[TournamentEvent]) -> Vec<Order> {
        if self.paid.contains(&id) {
            return vec![];
        }
        let t = self.tournaments.entry(id).or_default();
        let mut orders = Vec::new();
        let mut transfer = None;
        for e in events {
            t.ledger.apply(e);
            match e {
                TournamentEvent::TournamentCreated(created) => {
                    t.guarantee = created.definition.guarantee;
                    t.fixed = created.definition.payout_table.clone();
                    t.rounds = crate::rounds::RoundPrizes::of(&created.definition);
                    t.profile = created.definition.profile;
                    t.ordering = created.definition.hand_for_hand.as_ref().and_then(|h| h.ordering);
                    t.late_registration = created.definition.late_registration_until.is_some();
                    t.buying = created.definition.rebuy.is_some() || created.definition.add_on.is_some();
                    // A satellite's seat value, or a double or nothing's equal prize (issue 37):
                    // the table is those prizes from the whole pool.
                    t.seat_value = floor_rules::satellite::equal_prize(&created.definition).map(|prize| prize.amount);
                    t.lottery = created.definition.lottery.is_some();
                    t.bounties = created.definition.bounty.is_some();
                    t.day1 = created.definition.flight.is_some();
                    t.day2 = created.definition.flight.map(|terms| terms.day2);
                }
                // A Day 1 stopped at its share (issue 36, 004 §4.36.11): its whole pool goes
                // to its Day 2, recorded in both payouts logs, once (ids from the Day 1).
                TournamentEvent::TournamentFinished(_) if t.day2.is_some() && transfer.is_none() => {
                    let currency = t.ledger.currency.unwrap_or(floor_events::Currency::EUR);
                    let day2 = t.day2.expect("a Day 1's Day 2");
                    transfer = Some(floor_events::flights::PoolTransferred {
                        day1: id,
                        day2,
                        amount: Money::new(t.ledger.contributions, currency),
                    });
                }
                // A Day 2's entry carried from a Day 1 (issue 36): a player of the field.
                TournamentEvent::EntryCarried(carried) => {
                    t.players.insert(carried.entry, carried.player.clone());
                }
                // A Day 1 (issue 36) pays no prizes: its entries and refunds are only counted.
                e if t.day1 && !matches!(e, TournamentEvent::TournamentCancelled(_)) => {}
                TournamentEvent::EntryRegistered(entry) => {
                    t.players.insert(entry.entry, entry.player.clone());
                }
                TournamentEvent::TournamentStarted(_) if !t.late_registration => {
                    t.field_closed = true;
                    // A shootout's prizes per round reached: the field fixes its rounds.
                    if let Some(table) = t.rounds.as_ref().and_then(|r| r.table(t.ledger.entries)) {
                        t.fixed = Some(table);
                    }
                    // A lottery game's table is its draw (issue 37): locked by `on_lottery`.
                    if !t.buying && !t.lottery {
                        orders.push(Order::Payouts((
                            id,
                            lock_id(id),
                            t.with_stakes(PayoutCommand::Lock { field: t.field(), cause: LockCause::Started }),
                        )));
                    }
                }
                // Registration's own close (issue 33, defect 1): in the same log as the entries, so
                // every entry it sold is in the field locked here.
                TournamentEvent::RegistrationClosed(_) if t.late_registration && !t.field_closed => {
                    t.field_closed = true;
                    if !t.buying {
                        let lock = t.with_stakes(PayoutCommand::Lock { field: t.field(), cause: LockCause::LateRegistrationClosed });
                        orders.push(Order::Payouts((id, lock_id(id), lock)));
                    }
                }
                // A satellite stopped with as many entries left as seats (issue 36, 000 §16.7):
                // what hand-for-hand held is awarded first (those players went out before the
                // stop), then every survivor a place.
                TournamentEvent::TournamentFinished(finished) if !finished.shared_by.is_empty() && !t.shared_finish => {
                    t.shared_finish = true;
                    orders.extend(t.award_held(id, CommandId::derived(&format!("payouts-award-held:{id}:shared"))));
                    t.holding = false;
                    let survivors = finished.shared_by.iter().map(|s| (s.entry, s.player.clone())).collect();
                    let command = t.with_stakes(PayoutCommand::Shared { field: t.field(), survivors });
                    orders.push(Order::Payouts((id, CommandId::derived(&format!("payouts-shared:{id}")), command)));
                }
                TournamentEvent::TournamentCancelled(_) => {
                    self.tournaments.remove(&id);
                    return vec![];
                }
                _ => {}
            }
        }
        if let Some(transfer) = transfer {
            let day2 = self.tournaments.entry(transfer.day2).or_default();
            day2.transferred_in = day2.transferred_in.saturating_add(transfer.amount.amount);
            for (on, side) in [(transfer.day1, "out"), (transfer.day2, "in")] {
                let id = CommandId::derived(&format!("payouts-transfer-{side}:{}", transfer.day1));
                orders.push(Order::Payouts((on, id, PayoutCommand::TransferPool(transfer.clone()))));
            }
        }
        orders
    }

    /// The clock's pauses for another reason than a deal are remembered. (Its end of late
    /// registration no longer locks the table: registration records the close in its own log,
    /// `registration_closed`, after every entry it sold.)
    pub fn on_clock(&mut self, id: TournamentId, events: &[ClockEvent]) {
        let Some(t) = self.tournaments.get_mut(&id) else { return };
        for e in events {
            match e {
                ClockEvent::Paused { reason, .. } => t.clock_paused_by_other = reason != DEAL_PAUSE_REASON,
                ClockEvent::Resumed { .. } => t.clock_paused_by_other = false,
                _ => {}
            }
        }
    }

    /// Rebuys and add-ons grow the pool; the end of buying locks the table once the field is
    /// closed too.
    pub fn on_rebuys(&mut self, id: TournamentId, events: &[RebuyEvent]) -> Vec<Order> {
        let Some(t) = self.tournaments.get_mut(&id) else { return vec![] };
        let mut orders = Vec::new();
        for e in events {
            t.ledger.apply_purchase(e);
            let over = matches!(e, RebuyEvent::RebuyPeriodEnded { add_on_open: false, .. } | RebuyEvent::AddOnsClosed { .. });
            if over {
                t.buying = false;
                // Late registration may still be open (it can outlast the rebuy period): then
                // its end locks the table.
                if t.field_closed {
                    orders.push(Order::Payouts((
                        id,
                        lock_id(id),
                        t.with_stakes(PayoutCommand::Lock { field: t.field(), cause: LockCause::BuyingOver }),
                    )));
                }
            }
        }
        orders
    }

    /// A seating commit: its eliminations (one hand at one table) and the winner become one
    /// award, identified by the commit's stream sequence.
    pub fn on_seating(&mut self, id: TournamentId, sequence: u64, events: &[SeatingEvent]) -> Vec<Order> {
        let Some(t) = self.tournaments.get_mut(&id).filter(|t| !t.shared_finish && !t.stopped && !t.day1) else { return vec![] };
        // Seat orders of the hand they went out in, read before their stacks go.
        let seat_orders: HashMap<EntryNo, u32> = events
            .iter()
            .filter_map(|e| match e {
                SeatingEvent::EntryEliminated { entry, .. } => Some((*entry, t.stacks.get(entry)?.seat_order?)),
                _ => None,
            })
            .collect();
        events.iter().for_each(|e| follow_stacks(&mut t.stacks, e));
        let mut stacks: HashMap<EntryNo, (u64, u32)> = HashMap::new();
        let mut eliminated = Vec::new();
        let mut players_left_after = None;
        let mut first_left = None;
        let mut winner = None;
        for e in events {
            match e {
                SeatingEvent::StackReachedZero { entry, table, stack_at_start, .. } => {
                    stacks.insert(*entry, (*stack_at_start, *table));
                }
                SeatingEvent::EntryEliminated { entry, players_left, stack_at_start, table } => {
                    // The bust is in this commit (freezeout), or was recorded earlier and the
                    // elimination carries it (a rebuy offer came between).
                    let (stack_at_start, table) = stacks.get(entry).copied().unwrap_or((stack_at_start.unwrap_or(0), table.unwrap_or(0)));
                    let player = t.players.get(entry).cloned().unwrap_or_else(|| unknown_player(*entry));
                    let seat_order = seat_orders.get(entry).copied().unwrap_or(u32::MAX);
                    eliminated.push(Eliminated { entry: *entry, player, stack_at_start, table, seat_order });
                    players_left_after = Some(*players_left);
                    first_left.get_or_insert(*players_left);
                }
                SeatingEvent::TournamentWon { entry } => {
                    winner = Some((*entry, t.players.get(entry).cloned().unwrap_or_else(|| unknown_player(*entry))));
                }
                SeatingEvent::TablesDrawn { tables, .. } => t.tables.extend(tables.iter().map(|d| d.table)),
                SeatingEvent::TableOpened { table, .. } => {
                    t.tables.insert(*table);
                }
                SeatingEvent::TableClosed { table } => {
                    t.tables.remove(table);
                }
                _ => {}
            }
        }
        if players_left_after.is_some() {
            t.players_left = players_left_after;
        }
        if eliminated.is_empty() && winner.is_none() {
            return vec![];
        }
        if let (true, None, Some(first_left)) = (t.holding, &winner, first_left) {
            t.hold(eliminated, first_left);
            return vec![];
        }
        // Held eliminations went out before this commit's: their award comes first.
        let mut orders: Vec<Order> =
            t.award_held(id, CommandId::derived(&format!("payouts-award-held:{id}:{sequence}"))).into_iter().collect();
        let players_left_before = players_left_after.unwrap_or(1) + eliminated.len() as u32;
        let command_id = CommandId::derived(&format!("payouts-award:{id}:{sequence}"));
        orders.extend(t.award(id, Waiting { command_id, players_left_before, eliminated, winner, hand_for_hand: None }));
        if t.trigger_starts() {
            t.hold_from(ANNOUNCEMENT_HAND);
        }
        orders
    }

    /// The bubble's log: each released hand-for-hand hand's eliminations held from its release
    /// and awarded at its completion, a late table's as their own group, what is held at the
    /// end of hand-for-hand (ids derived from the commit and the event).
    pub fn on_bubble(&mut self, id: TournamentId, sequence: u64, events: &[BubbleEvent]) -> Vec<Order> {
        let Some(t) = self.tournaments.get_mut(&id).filter(|t| !t.shared_finish && !t.stopped && !t.day1) else { return vec![] };
        let mut orders = Vec::new();
        for (i, e) in events.iter().enumerate() {
            let command_id = CommandId::derived(&format!("payouts-award-hand:{id}:{sequence}:{i}"));
            match e {
                BubbleEvent::BubbleConfigured { rules, .. } => t.bubble = Some(*rules),
                // The trigger's start was foreseen at its commit; a director's is known here.
                BubbleEvent::HandForHandStarted { .. } if !t.holding => t.hold_from(ANNOUNCEMENT_HAND),
                BubbleEvent::HandReleased { hand, .. } => t.hold_from(*hand),
                BubbleEvent::LateBustsPlaced { placed, hand, .. } => {
                    let late: HashSet<EntryNo> = placed.iter().map(|p| p.bust.entry).collect();
                    orders.extend(t.award_held_where(id, command_id, *hand, |e| late.contains(&e.entry)));
                }
                BubbleEvent::HandCompleted { hand, .. } => {
                    t.hand = *hand;
                    orders.extend(t.award_held(id, command_id));
                    t.holding = false;
                }
                BubbleEvent::HandForHandEnded { .. } => {
                    orders.extend(t.award_held(id, command_id));
                    t.holding = false;
                }
                _ => {}
            }
        }
        orders
    }

    /// The lottery aggregate's log (issue 37): a lottery game's `prize_drawn` locks its table
    /// (the drawn pool, the drawn prizes by place), then every award that waited for it, in log
    /// order. Once: a second draw, or a draw for a tournament that is not a lottery game, calls
    /// for nothing; so does a draw whose prizes do not sum to its pool (the aggregate would
    /// refuse it): the game keeps waiting, as for a draw that never comes.
    pub fn on_lottery(&mut self, id: TournamentId, events: &[LotteryEvent]) -> Vec<Order> {
        let Some(t) = self.tournaments.get_mut(&id) else { return vec![] };
        let mut orders = Vec::new();
        for e in events {
            let LotteryEvent::PrizeDrawn(drawn) = e else { continue };
            if !t.waits_for_draw() || !adds_up(drawn) {
                continue;
            }
            t.drawn = true;
            let lock = PayoutCommand::LockDrawn { field: t.field(), pool: drawn.pool, prizes: drawn.prizes.clone() };
            orders.push(Order::Payouts((id, lock_id(id), lock)));
            for award in std::mem::take(&mut t.waiting) {
                orders.push(t.award_order(id, award));
            }
        }
        orders
    }

    /// The payouts log: a deal proposed pauses the clock, a deal settled resumes it (ids
    /// derived from the commit and the event); a paid tournament is forgotten.
    pub fn on_payouts(&mut self, id: TournamentId, sequence: u64, events: &[PayoutEvent]) -> Vec<Order> {
        let mut orders = Vec::new();
        if let Some(t) = self.tournaments.get_mut(&id) {
            for (i, e) in events.iter().enumerate() {
                let command_id = |what: &str| CommandId::derived(&format!("payouts-deal-{what}:{id}:{sequence}:{i}"));
                match e {
                    // An equal prize's boundary is its seats, not the leftover's place (issues 36/37).
                    PayoutEvent::PayoutTableLocked { places, pool, .. } => {
                        t.paid_places = Some(hand_for_hand::locked_places(*places, pool.amount, t.seat_value));
                    }
                    PayoutEvent::DealProposed { .. } if !t.clock_paused_by_other => {
                        t.deal_paused_clock = true;
                        let reason = DEAL_PAUSE_REASON.to_string();
                        orders.push(Order::ClockPause(PauseClock { command_id: command_id("clock-pause"), tournament_id: id, reason }));
                    }
                    // A deal that ends the tournament (000 §16.8, 004 §4.35): registration finishes
                    // it shared by the remaining entries, the biggest stack first (its clock stops
                    // with the finish: no resume), and their shares are paid by the shared finish.
                    PayoutEvent::DealAgreed { shares, ends_tournament: true, .. } => {
                        t.deal_paused_clock = false;
                        let mut by_chips: Vec<&floor_events::payouts::DealShare> = shares.iter().collect();
                        by_chips.sort_by(|a, b| b.chips.cmp(&a.chips).then(a.entry.cmp(&b.entry)));
                        let survivors = by_chips.into_iter().map(|s| s.entry).collect();
                        let stop_id = CommandId::derived(&format!("payouts-deal-stop:{id}"));
                        orders.push(Order::StopShared(StopShared { command_id: stop_id, tournament_id: id, survivors, deal: true }));
                    }
                    PayoutEvent::DealAgreed { .. } | PayoutEvent::DealRejected { .. } | PayoutEvent::DealVoided { .. }
                        if t.deal_paused_clock =>
                    {
                        t.deal_paused_clock = false;
                        orders.push(Order::ClockResume(ClockRequest { command_id: command_id("clock-resume"), tournament_id: id }));
                    }
                    _ => {}
                }
            }
        }
        if events.iter().any(|e| matches!(e, PayoutEvent::TournamentPaid { .. })) {
            self.paid.insert(id);
            self.tournaments.remove(&id);
        }
        orders
    }
}

/// Keeps the remaining entries' chips: joined with their starting stack, set by every hand a
/// table reports (a hand's start includes chips bought before it), grown by chips bought and
/// taken to the table since, gone when out.
fn follow_stacks(stacks: &mut BTreeMap<EntryNo, Stack>, event: &SeatingEvent) {
    match event {
        SeatingEvent::EntryJoined { entry, stack, .. } => {
            stacks.insert(*entry, Stack { chips: *stack, pending: 0, seat_order: None });
        }
        SeatingEvent::EntryLeft { entry } | SeatingEvent::EntryEliminated { entry, .. } => {
            stacks.remove(entry);
        }
        SeatingEvent::HandStarted { stacks: seats, button, .. } => {
            for seat in seats {
                let seat_order = Some(seat_order(seat.seat, *button));
                stacks.insert(seat.entry, Stack { chips: seat.chips, pending: 0, seat_order });
            }
        }
        SeatingEvent::HandFinished { stacks: seats, busts, .. } => {
            for seat in seats {
                let (pending, seat_order) = stacks.get(&seat.entry).map_or((0, None), |s| (s.pending, s.seat_order));
                stacks.insert(seat.entry, Stack { chips: seat.chips, pending, seat_order });
            }
            for bust in busts {
                if let Some(s) = stacks.get_mut(&bust.entry) {
                    s.chips = 0;
                }
            }
        }
        SeatingEvent::ChipsAtTable { entry, chips } => {
            if let Some(s) = stacks.get_mut(entry) {
                s.pending = s.pending.saturating_add(*chips);
            }
        }
        _ => {}
    }
}

/// A draw whose prizes sum to its pool, to the cent.
fn adds_up(drawn: &PrizeDrawn) -> bool {
    drawn.prizes.iter().try_fold(0u64, |sum, &p| sum.checked_add(p)) == Some(drawn.pool.amount)
}

fn lock_id(id: TournamentId) -> CommandId {
    CommandId::derived(&format!("payouts-lock:{id}"))
}

/// An entry seating knows and registration does not (never in a consistent log): paid under a
/// name that says so rather than not at all.
fn unknown_player(entry: EntryNo) -> PlayerId {
    PlayerId::parse(&format!("unknown-entry-{}", entry.0)).expect("a valid player id")
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
