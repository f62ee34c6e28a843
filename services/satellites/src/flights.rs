//! Flights (issue 36; 004 §4.36.11–13): tournaments that feed a tournament, as satellites do. The
//! carry policy, pure: read from the log, it says which Day 1 survivors go on to their Day 2 and
//! with what stack ([`Carry`]: first stack, best stack forward, stack builder), each as one
//! order with an id derived from the Day 1 and the entry, so a restart or a re-read never
//! carries twice.
//!
//! - registration: a tournament created with a `flight` section is a Day 1 of its `day2`; a
//!   Day 2's `tournament_started` closes its carry (a Day 1 finishing later carries nothing:
//!   [`floor_rules::flight::Carried::Day2Started`]); a Day 1's `tournament_finished` with
//!   `shared_by` (registration's stop at its share) carries every survivor.
//! - seating: a Day 1 entry's stack is the last seating recorded for it (`entry_joined`, then
//!   each `hand_started` and `hand_finished` that names it). Seating's report of the stop's hand
//!   is stored before registration's elimination that stops the Day 1 (registration eliminates
//!   on seating's word), so the stacks are known when the finish is read. A survivor with no
//!   chips (out in the stop's hand, its elimination reaching registration after the stop) is
//!   not carried.
//!
//! The orders ([`CarryOrder`]) are what registration's service-only `register_carried` verb is
//! to record in the Day 2 (an entry paid by its Day 1, its starting stack the carried one);
//! that verb and the service's wiring are not built yet (docs/architecture.md "## Flights").

use floor_events::flights::{Carry, FlightTerms, Survivor};
use floor_events::registration::TournamentEvent;
use floor_events::seating::SeatingEvent;
use floor_events::{CommandId, EntryNo, PlayerId, TournamentId};
use floor_rules::flight::{Carried, Day2Book};
use std::collections::{BTreeMap, HashMap};

/// What the Day 2 is to record of one player: its stack now and the Day 1 entries it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CarryOrder {
    /// The Day 2.
    pub day2: TournamentId,
    /// Derived from the Day 1 and the entry carried.
    pub command_id: CommandId,
    /// The player.
    pub player: PlayerId,
    /// The player's Day 2 stack after this carry (the replacing stack, or the sum so far).
    pub stack: u64,
    /// What the carry did.
    pub carried: Carried,
    /// The Day 1 entry carried.
    pub from: (TournamentId, EntryNo),
}

/// The command id of one Day 1 entry's carry.
pub fn carry_id(day1: TournamentId, entry: EntryNo) -> CommandId {
    CommandId::derived(&format!("flights-carry:{day1}:{}", entry.0))
}

/// The policy's memory: each Day 1's terms and its entries' last stacks, each Day 2's book.
#[derive(Debug, Default, Clone)]
pub struct FlightPolicy {
    day1s: HashMap<TournamentId, FlightTerms>,
    stacks: HashMap<TournamentId, BTreeMap<EntryNo, u64>>,
    day2s: HashMap<TournamentId, Day2Book>,
}

impl FlightPolicy {
    /// A registration commit of tournament `id`.
    pub fn on_tournament(&mut self, id: TournamentId, events: &[TournamentEvent]) -> Vec<CarryOrder> {
        let mut orders = Vec::new();
        for event in events {
            match event {
                TournamentEvent::TournamentCreated(created) => {
                    if let Some(terms) = created.definition.flight {
                        self.day1s.insert(id, terms);
                        self.day2s.entry(terms.day2).or_insert_with(|| Day2Book::new(terms.carry));
                    }
                }
                TournamentEvent::TournamentStarted(_) => {
                    if let Some(book) = self.day2s.get_mut(&id) {
                        book.start();
                    }
                }
                TournamentEvent::TournamentFinished(finished) if !finished.shared_by.is_empty() => {
                    let Some(terms) = self.day1s.get(&id).copied() else { continue };
                    let stacks = self.stacks.remove(&id).unwrap_or_default();
                    let book = self.day2s.entry(terms.day2).or_insert_with(|| Day2Book::new(terms.carry));
                    for survivor in &finished.shared_by {
                        let stack = stacks.get(&survivor.entry).copied().unwrap_or(0);
                        if stack == 0 {
                            continue;
                        }
                        let carried = book.carry(id, &Survivor { player_id: survivor.player.clone(), entry_no: survivor.entry, stack });
                        if matches!(carried, Carried::Forfeited { .. } | Carried::Day2Started) {
                            continue;
                        }
                        let now = book.holding(&survivor.player).map_or(stack, |h| h.stack);
                        orders.push(CarryOrder {
                            day2: terms.day2,
                            command_id: carry_id(id, survivor.entry),
                            player: survivor.player.clone(),
                            stack: now,
                            carried,
                            from: (id, survivor.entry),
                        });
                    }
                }
                _ => {}
            }
        }
        orders
    }

    /// A seating commit of tournament `id`: a Day 1's stacks, as reported.
    pub fn on_seating(&mut self, id: TournamentId, events: &[SeatingEvent]) {
        if !self.day1s.contains_key(&id) {
            return;
        }
        let stacks = self.stacks.entry(id).or_default();
        for event in events {
            match event {
                SeatingEvent::EntryJoined { entry, stack, .. } => {
                    stacks.insert(*entry, *stack);
                }
                SeatingEvent::HandStarted { stacks: seen, .. } | SeatingEvent::HandFinished { stacks: seen, .. } => {
                    for s in seen {
                        stacks.insert(s.entry, s.chips);
                    }
                }
                SeatingEvent::StackReachedZero { entry, .. } | SeatingEvent::EntryEliminated { entry, .. } => {
                    stacks.insert(*entry, 0);
                }
                _ => {}
            }
        }
    }

    /// The carry so far of a Day 2: its stack per player.
    pub fn day2(&self, day2: TournamentId) -> Option<&Day2Book> {
        self.day2s.get(&day2)
    }

    /// The carry rule of a Day 1, once its creation is read.
    pub fn carry_of(&self, day1: TournamentId) -> Option<Carry> {
        self.day1s.get(&day1).map(|t| t.carry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::registration::{Survivor as Left, TournamentCreated, TournamentFinished, TournamentStarted};
    use floor_events::table::SeatStack;
    use floor_events::tournament::TournamentDefinition;

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    fn at() -> chrono::DateTime<chrono::Utc> {
        "2026-12-06T20:00:00Z".parse().unwrap()
    }

    fn created(day2: TournamentId, carry: Carry) -> TournamentEvent {
        let terms = FlightTerms { day2, survivors_share_bps: 1_500, carry, one_day1_at_a_time: false };
        let definition = TournamentDefinition { flight: Some(terms), ..TournamentDefinition::example() };
        TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: TournamentId::new(), definition, at: at() })
    }

    /// The Day 1 finished with `left` (entry, player, chips) as the tables last reported them.
    fn finish(policy: &mut FlightPolicy, day1: TournamentId, left: &[(u32, &str, u64)]) -> Vec<CarryOrder> {
        let stacks = left.iter().zip(1u8..).map(|(&(e, _, chips), seat)| SeatStack {
            seat: floor_events::table::SeatNo(seat),
            entry: EntryNo(e),
            chips,
        });
        policy.on_seating(day1, &[SeatingEvent::HandFinished { table: 1, hand: 9, stacks: stacks.collect(), busts: vec![] }]);
        let shared_by: Vec<Left> = left.iter().map(|&(e, name, _)| Left { entry: EntryNo(e), player: p(name) }).collect();
        let finished = TournamentFinished { winner: shared_by[0].entry, player: shared_by[0].player.clone(), at: at(), shared_by };
        policy.on_tournament(day1, &[TournamentEvent::TournamentFinished(finished)])
    }

    fn flight(carry: Carry) -> (FlightPolicy, TournamentId, [TournamentId; 3]) {
        let (mut policy, day2) = (FlightPolicy::default(), TournamentId::new());
        let day1s = [TournamentId::new(), TournamentId::new(), TournamentId::new()];
        for day1 in day1s {
            policy.on_tournament(day1, &[created(day2, carry)]);
        }
        (policy, day2, day1s)
    }

    /// Given three Day 1s of one Day 2 at best stack forward, "ana" surviving all three (30,000,
    /// 50,000, 20,000): she is registered, her stack replaced by the larger, the smaller
    /// forfeited (no order); each order's id is its Day 1 and entry's.
    #[test]
    fn best_stack_forward_across_three_day1s() {
        let (mut policy, day2, [a, b, c]) = flight(Carry::BestStack);
        let orders = finish(&mut policy, a, &[(3, "ana", 30_000), (5, "bo", 12_000)]);
        assert_eq!(
            orders.iter().map(|o| (o.player.to_string(), o.stack)).collect::<Vec<_>>(),
            [("ana".into(), 30_000), ("bo".into(), 12_000)]
        );
        assert_eq!(orders[0].command_id, carry_id(a, EntryNo(3)));
        assert_eq!(orders[0].day2, day2);
        let orders = finish(&mut policy, b, &[(7, "ana", 50_000)]);
        assert_eq!(orders[0].carried, Carried::Replaced { stack: 50_000, forfeited: 30_000 });
        assert!(finish(&mut policy, c, &[(1, "ana", 20_000)]).is_empty(), "the smaller stack is forfeited");
        assert_eq!(policy.day2(day2).unwrap().holding(&p("ana")).unwrap().stack, 50_000);
    }

    /// Stack builder: the sum of the three, each Day 1's order carrying the sum so far.
    #[test]
    fn stack_builder_across_three_day1s() {
        let (mut policy, day2, [a, b, c]) = flight(Carry::StackBuilder);
        finish(&mut policy, a, &[(3, "ana", 30_000)]);
        finish(&mut policy, b, &[(7, "ana", 50_000)]);
        let orders = finish(&mut policy, c, &[(1, "ana", 20_000)]);
        assert_eq!((orders[0].stack, &orders[0].carried), (100_000, &Carried::Added { stack: 100_000 }));
        assert_eq!(policy.day2(day2).unwrap().chips(), 100_000);
    }

    /// A Day 1 finishing after its Day 2 started carries nothing; a survivor whose stack the
    /// tables report at zero (out in the stop's hand) is not carried.
    #[test]
    fn nothing_is_carried_after_the_day2_started_nor_a_survivor_without_chips() {
        let (mut policy, day2, [a, b, _]) = flight(Carry::BestStack);
        assert_eq!(finish(&mut policy, a, &[(1, "ana", 10_000), (2, "bo", 0)]).len(), 1);
        let started = TournamentStarted { entries: 1, cause: floor_events::registration::StartCause::Scheduled, at: at() };
        policy.on_tournament(day2, &[TournamentEvent::TournamentStarted(started)]);
        assert!(finish(&mut policy, b, &[(1, "ana", 90_000)]).is_empty());
    }
}
