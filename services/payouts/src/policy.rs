//! What the payouts aggregate is told, read from the log: registration's entries and refunds,
//! and the rebuys service's rebuys and add-ons, make the field; the table is locked once the
//! pool stops growing (the start, or the clock's end of late registration, and the end of the
//! rebuy period and add-on break, whichever is last); each seating commit with eliminations
//! becomes one award.
//!
//! Pure: the service feeds commits in stream order and runs the commands that come out, each
//! with an id derived from where it came from, so reading the log again repeats nothing.

use crate::books::Ledger;
use crate::domain::{Eliminated, Field, PayoutCommand};
use floor_events::clock::ClockEvent;
use floor_events::payouts::{LockCause, PayoutEvent};
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::TournamentEvent;
use floor_events::seating::SeatingEvent;
use floor_events::{CommandId, EntryNo, Money, PlayerId, RuleProfile, TournamentId};
use std::collections::{HashMap, HashSet};

/// One tournament as the payouts policy sees it.
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Tournament {
    ledger: Ledger,
    guarantee: Option<Money>,
    profile: RuleProfile,
    late_registration: bool,
    fixed: Option<floor_events::tournament::FixedPayouts>,
    players: HashMap<EntryNo, PlayerId>,
    /// Late registration is over (or there was none and the tournament started).
    field_closed: bool,
    /// Rebuys or an add-on can still be bought.
    buying: bool,
}

impl Tournament {
    fn field(&self) -> Field {
        let currency = self.ledger.currency.unwrap_or(floor_events::Currency::EUR);
        Field {
            entries: self.ledger.entries,
            contributions: Money::new(self.ledger.contributions, currency),
            guarantee: self.guarantee,
            profile: self.profile,
            fixed: self.fixed.clone(),
        }
    }
}

/// A command for one tournament's payouts aggregate.
pub type Order = (TournamentId, CommandId, PayoutCommand);

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

    /// Registration's events: the field, and the lock when a tournament starts without late
    /// registration.
    pub fn on_tournament(&mut self, id: TournamentId, events: &[TournamentEvent]) -> Vec<Order> {
        if self.paid.contains(&id) {
            return vec![];
        }
        let t = self.tournaments.entry(id).or_default();
        let mut orders = Vec::new();
        for e in events {
            t.ledger.apply(e);
            match e {
                TournamentEvent::TournamentCreated(created) => {
                    t.guarantee = created.definition.guarantee;
                    t.fixed = created.definition.payout_table.clone();
                    t.profile = created.definition.profile;
                    t.late_registration = created.definition.late_registration_until.is_some();
                    t.buying = created.definition.rebuy.is_some() || created.definition.add_on.is_some();
                }
                TournamentEvent::EntryRegistered(entry) => {
                    t.players.insert(entry.entry, entry.player.clone());
                }
                TournamentEvent::TournamentStarted(_) if !t.late_registration => {
                    t.field_closed = true;
                    if !t.buying {
                        orders.push((id, lock_id(id), PayoutCommand::Lock { field: t.field(), cause: LockCause::Started }));
                    }
                }
                TournamentEvent::TournamentCancelled(_) => {
                    self.tournaments.remove(&id);
                    return vec![];
                }
                _ => {}
            }
        }
        orders
    }

    /// The clock's end of late registration locks the table.
    pub fn on_clock(&mut self, id: TournamentId, events: &[ClockEvent]) -> Vec<Order> {
        let Some(t) = self.tournaments.get_mut(&id) else { return vec![] };
        let mut orders = Vec::new();
        for _ in events.iter().filter(|e| matches!(e, ClockEvent::LateRegistrationClosed { .. })) {
            t.field_closed = true;
            if !t.buying {
                orders.push((id, lock_id(id), PayoutCommand::Lock { field: t.field(), cause: LockCause::LateRegistrationClosed }));
            }
        }
        orders
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
                    orders.push((id, lock_id(id), PayoutCommand::Lock { field: t.field(), cause: LockCause::BuyingOver }));
                }
            }
        }
        orders
    }

    /// A seating commit: its eliminations (one hand at one table) and the winner become one
    /// award, identified by the commit's stream sequence.
    pub fn on_seating(&mut self, id: TournamentId, sequence: u64, events: &[SeatingEvent]) -> Vec<Order> {
        let Some(t) = self.tournaments.get(&id) else { return vec![] };
        let mut stacks: HashMap<EntryNo, (u64, u32)> = HashMap::new();
        let mut eliminated = Vec::new();
        let mut players_left_after = None;
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
                    eliminated.push(Eliminated { entry: *entry, player, stack_at_start, table });
                    players_left_after = Some(*players_left);
                }
                SeatingEvent::TournamentWon { entry } => {
                    winner = Some((*entry, t.players.get(entry).cloned().unwrap_or_else(|| unknown_player(*entry))));
                }
                _ => {}
            }
        }
        if eliminated.is_empty() && winner.is_none() {
            return vec![];
        }
        let players_left_before = players_left_after.unwrap_or(1) + eliminated.len() as u32;
        let command = PayoutCommand::Award { field: t.field(), players_left_before, eliminated, winner };
        vec![(id, CommandId::derived(&format!("payouts-award:{id}:{sequence}")), command)]
    }

    /// The payouts log: a paid tournament is forgotten.
    pub fn on_payouts(&mut self, id: TournamentId, events: &[PayoutEvent]) {
        if events.iter().any(|e| matches!(e, PayoutEvent::TournamentPaid { .. })) {
            self.paid.insert(id);
            self.tournaments.remove(&id);
        }
    }
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
mod tests {
    use super::*;
    use floor_events::registration::{EntryKind, EntryRegistered, StartCause, TournamentCreated, TournamentStarted};
    use floor_events::tournament::{purchase_ledger, AddOnTerms, EntryModel, Fee, RebuyCondition, RebuyTerms, Start, TournamentDefinition};
    use floor_events::Currency;

    fn eur(cents: u64) -> Money {
        Money::new(cents, Currency::EUR)
    }

    fn at() -> chrono::DateTime<chrono::Utc> {
        "2027-01-10T18:00:00Z".parse().unwrap()
    }

    /// A sit & go of three with EUR 10 rebuys and add-on; created, filled and started.
    fn started(policy: &mut Policy, t: TournamentId) -> Vec<Order> {
        started_with(policy, t, None)
    }

    fn started_with(policy: &mut Policy, t: TournamentId, bounty: Option<floor_events::bounties::BountyTerms>) -> Vec<Order> {
        let definition = TournamentDefinition {
            name: "Rebuy".into(),
            start: Start::SitAndGo,
            table_size: 9,
            starting_stack: 1_000,
            buy_in: eur(1_000),
            fee: Fee::OnTop(eur(100)),
            capacity: 3,
            min_players: 3,
            registration_opens: None,
            late_registration_until: None,
            entry_model: EntryModel::Freezeout,
            guarantee: None,
            profile: RuleProfile::Tda2024,
            structure: None,
            rebuy: Some(RebuyTerms {
                price: eur(1_000),
                fee: eur(100),
                chips: 1_000,
                max_per_entry: 1,
                condition: RebuyCondition::AtZero,
                offer_seconds: 30,
            }),
            add_on: Some(AddOnTerms { price: eur(1_000), fee: eur(0), chips: 1_000 }),
            payout_table: None,
            hand_for_hand: None,
            bounty,
        };
        let mut events = vec![TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition, at: at() })];
        for e in 1..=3 {
            events.push(TournamentEvent::EntryRegistered(EntryRegistered {
                entry: EntryNo(e),
                player: PlayerId::parse(&format!("p{e}")).unwrap(),
                kind: EntryKind::Registration,
                new_player: true,
                ledger: purchase_ledger(eur(1_000), eur(100)),
                at: at(),
            }));
        }
        events.push(TournamentEvent::TournamentStarted(TournamentStarted { entries: 3, cause: StartCause::LastSeatFilled, at: at() }));
        policy.on_tournament(t, &events)
    }

    #[test]
    fn with_rebuys_the_table_locks_when_buying_is_over_on_the_whole_pool() {
        let (mut policy, t) = (Policy::default(), TournamentId::new());
        assert!(started(&mut policy, t).is_empty(), "not at the start: the pool still grows");
        let rebuy = RebuyEvent::RebuyTaken {
            entry: EntryNo(1),
            player: PlayerId::parse("p1").unwrap(),
            number: 1,
            chips: 1_000,
            ledger: purchase_ledger(eur(1_000), eur(100)),
            at: at(),
        };
        assert!(
            policy.on_rebuys(t, &[rebuy, RebuyEvent::RebuyPeriodEnded { at: at(), add_on_open: true }]).is_empty(),
            "the add-on follows"
        );
        let add_on = RebuyEvent::AddOnTaken {
            entry: EntryNo(2),
            player: PlayerId::parse("p2").unwrap(),
            chips: 1_000,
            ledger: purchase_ledger(eur(1_000), eur(0)),
            at: at(),
        };
        let orders = policy.on_rebuys(t, &[add_on, RebuyEvent::AddOnsClosed { at: at() }]);
        let [(_, _, PayoutCommand::Lock { field, cause })] = &orders[..] else { panic!("one lock: {orders:?}") };
        assert_eq!(*cause, LockCause::BuyingOver);
        assert_eq!((field.entries, field.contributions), (3, eur(5_000)), "three entries, a rebuy and an add-on");
    }

    /// Issue 21: a knockout tournament's payout table divides the prize pool without the
    /// bounty parts (entries and rebuys carry one, an add-on none).
    #[test]
    fn a_bounty_tournaments_table_is_locked_on_the_prize_pool_without_the_bounties() {
        let (mut policy, t) = (Policy::default(), TournamentId::new());
        started_with(&mut policy, t, Some(floor_events::bounties::BountyTerms::Knockout { share_bps: 2_500 }));
        let rebuy = RebuyEvent::RebuyTaken {
            entry: EntryNo(1),
            player: PlayerId::parse("p1").unwrap(),
            number: 1,
            chips: 1_000,
            ledger: purchase_ledger(eur(1_000), eur(100)),
            at: at(),
        };
        let add_on = RebuyEvent::AddOnTaken {
            entry: EntryNo(2),
            player: PlayerId::parse("p2").unwrap(),
            chips: 1_000,
            ledger: purchase_ledger(eur(1_000), eur(0)),
            at: at(),
        };
        let orders = policy.on_rebuys(
            t,
            &[rebuy, RebuyEvent::RebuyPeriodEnded { at: at(), add_on_open: true }, add_on, RebuyEvent::AddOnsClosed { at: at() }],
        );
        let [(_, _, PayoutCommand::Lock { field, .. })] = &orders[..] else { panic!("one lock: {orders:?}") };
        assert_eq!(field.contributions, eur(5_000 - 4 * 250), "four bounty parts of 2.50 stay out of the prize pool");
    }
}
