//! What the shootout aggregates are told, read from the log. Pure: the service feeds commits in
//! stream order, with the instant each was stored, and runs the commands that come out.
//!
//! - registration: a tournament created with a shootout section is a shootout; its entries
//!   (registered, unregistered) are followed until the start, which starts round 1 with them
//!   (`start_round {1}`: seating draws it as the start-of-play draw).
//! - seating: each round's tables (the start-of-play draw's `tables_drawn` for round 1, a
//!   round's `round_drawn` for the others), round 1's byes (`byes_drawn`: they advance with
//!   the winners) and each table's winners (`table_won`). When every
//!   table of the round has its winners the round is complete (`complete_round`), and unless it
//!   was one table (the last round, played to the tournament's winner) the next round starts
//!   with them (`start_round {r + 1}`), which seating draws. 004 §4.36.3: "U hracích stolů se
//!   bude hrát do té doby, než u každého z nich zůstane jeden Sázející se všemi hracími žetony.
//!   Osmdesát jedna (81) zbývajících Sázejících bude přesunuto k devíti (9) hracím stolům
//!   druhého kola" (the tables play until each has one player with all its chips; the 81 left
//!   move to the second round's nine tables): a round waits for its last table.
//! - the shootouts' own commits: the bracket the `bracket` verb answers from
//!   ([`crate::projection`]).
//!
//! Every command's id is derived from the tournament and the round, so reading the log again
//! after a crash (between two rounds, say) forms the next round exactly once.

use crate::domain::ShootoutCommand;
use crate::projection::Brackets;
use chrono::{DateTime, Utc};
use floor_events::commit::Events;
use floor_events::registration::TournamentEvent;
use floor_events::seating::SeatingEvent;
use floor_events::shootouts::ShootoutEvent;
use floor_events::{CommandId, EntryNo, TournamentId};
use floor_runtime::policy::Stored;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A command for one shootout's aggregate (the id is the tournament's).
pub type Order = (TournamentId, CommandId, ShootoutCommand);

/// What the policy follows of one shootout.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shootout {
    /// Live entries before the start.
    pub entries: BTreeSet<EntryNo>,
    /// Play has begun (round 1 started).
    pub started: bool,
    /// Each round's tables as seating drew them, and their winners.
    pub rounds: BTreeMap<u32, RoundTables>,
    /// Scheduled rounds (the definition's `round_starts`): round 2's earliest start first.
    #[serde(default)]
    pub round_starts: Vec<DateTime<Utc>>,
    /// A round whose entries are known (the round before is complete) waiting for its start.
    #[serde(default)]
    pub held: Option<HeldRound>,
}

/// A scheduled round waiting for its start time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldRound {
    /// The round.
    pub round: u32,
    /// Its entries: the winners of the round before.
    pub entries: Vec<EntryNo>,
    /// Not before.
    pub start: DateTime<Utc>,
}

/// One round's tables.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundTables {
    /// Tables in the round.
    pub tables: u32,
    /// Each table won so far, with its winners.
    pub won: BTreeMap<u32, Vec<EntryNo>>,
    /// Its completion was ordered.
    pub completed: bool,
    /// Entries with a bye (round 1, `short_field = "byes"`): they advance with the winners.
    #[serde(default)]
    pub byes: Vec<EntryNo>,
}

/// The policy's memory: every shootout being played.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    #[serde(with = "floor_runtime::snapshot::pairs")]
    shootouts: HashMap<TournamentId, Shootout>,
}

/// The command id of a round's start: one per shootout and round.
pub fn start_id(t: TournamentId, round: u32) -> CommandId {
    CommandId::derived(&format!("shootouts-round-started:{t}:{round}"))
}

/// The command id of a round's completion: one per shootout and round.
pub fn complete_id(t: TournamentId, round: u32) -> CommandId {
    CommandId::derived(&format!("shootouts-round-completed:{t}:{round}"))
}

impl Policy {
    /// What the policy follows of shootout `t`, if it is one.
    pub fn shootout(&self, t: TournamentId) -> Option<&Shootout> {
        self.shootouts.get(&t)
    }

    /// Registration's events of tournament `t`.
    pub fn on_tournament(&mut self, t: TournamentId, events: &[TournamentEvent]) -> Vec<Order> {
        let mut orders = Vec::new();
        for e in events {
            match e {
                TournamentEvent::TournamentCreated(created) => {
                    if let Some(terms) = &created.definition.shootout {
                        self.shootouts.entry(t).or_default().round_starts = terms.round_starts.clone();
                    }
                }
                TournamentEvent::EntryRegistered(registered) => {
                    if let Some(s) = self.shootouts.get_mut(&t).filter(|s| !s.started) {
                        s.entries.insert(registered.entry);
                    }
                }
                TournamentEvent::EntryUnregistered(unregistered) => {
                    if let Some(s) = self.shootouts.get_mut(&t).filter(|s| !s.started) {
                        s.entries.remove(&unregistered.entry);
                    }
                }
                TournamentEvent::TournamentStarted(started) => {
                    if let Some(s) = self.shootouts.get_mut(&t).filter(|s| !s.started) {
                        s.started = true;
                        let entries = std::mem::take(&mut s.entries).into_iter().collect();
                        orders.push((t, start_id(t, 1), ShootoutCommand::StartRound { round: 1, entries, at: started.at }));
                    }
                }
                // Over: nothing more to follow.
                TournamentEvent::TournamentFinished(_) | TournamentEvent::TournamentCancelled(_) => {
                    self.shootouts.remove(&t);
                }
                _ => {}
            }
        }
        orders
    }

    /// Scheduled rounds whose start has come by `now` (the service's clock, passed in), with
    /// the winners of the round before, at their start time. A round is held only once the
    /// round before is complete, so it waits for both its last table and its start. It stays
    /// held until its `round_started` is read ([`Policy::on_shootout`]): asked again before,
    /// the same order (the same id: stored once) comes again.
    pub fn due(&self, now: DateTime<Utc>) -> Vec<Order> {
        let mut orders: Vec<Order> = self
            .shootouts
            .iter()
            .filter_map(|(&t, s)| {
                let held = s.held.as_ref().filter(|h| h.start <= now)?;
                let command = ShootoutCommand::StartRound { round: held.round, entries: held.entries.clone(), at: held.start };
                Some((t, start_id(t, held.round), command))
            })
            .collect();
        orders.sort_by_key(|(t, ..)| *t);
        orders
    }

    /// The shootout's own events: a held round that started is no longer held.
    pub fn on_shootout(&mut self, t: TournamentId, events: &[ShootoutEvent]) {
        let Some(s) = self.shootouts.get_mut(&t) else { return };
        for e in events {
            if let ShootoutEvent::RoundStarted(started) = e {
                if s.held.as_ref().is_some_and(|h| h.round <= started.round) {
                    s.held = None;
                }
            }
        }
    }

    /// The earliest start of a held round, if any: when [`Policy::due`] has something.
    pub fn next_due(&self) -> Option<DateTime<Utc>> {
        self.shootouts.values().filter_map(|s| s.held.as_ref().map(|h| h.start)).min()
    }

    /// Seating's events of tournament `t`, stored at `at`.
    pub fn on_seating(&mut self, t: TournamentId, at: DateTime<Utc>, events: &[SeatingEvent]) -> Vec<Order> {
        let Some(s) = self.shootouts.get_mut(&t) else { return vec![] };
        let mut orders = Vec::new();
        for e in events {
            match e {
                // The start-of-play draw is round 1 (its first part names every table).
                SeatingEvent::TablesDrawn { total_tables, tables, .. } => {
                    let round = s.rounds.entry(1).or_default();
                    round.tables = round.tables.max(*total_tables).max(tables.len() as u32);
                }
                // A bye goes straight to round 2 (issue 37): it advances with the winners.
                SeatingEvent::ByesDrawn { entries } => s.rounds.entry(1).or_default().byes = entries.clone(),
                SeatingEvent::RoundDrawn { round, tables, .. } => {
                    s.rounds.entry(*round).or_default().tables = tables.len() as u32;
                }
                SeatingEvent::TableWon { round, table, winners } => {
                    let number = *round;
                    let Some(r) = s.rounds.get_mut(&number) else { continue };
                    r.won.insert(*table, winners.clone());
                    if r.completed || (r.won.len() as u32) < r.tables {
                        continue;
                    }
                    r.completed = true;
                    let mut advancing: Vec<EntryNo> = r.won.values().flatten().chain(&r.byes).copied().collect();
                    advancing.sort();
                    orders.push((
                        t,
                        complete_id(t, number),
                        ShootoutCommand::CompleteRound { round: number, advancing: advancing.clone(), at },
                    ));
                    // The last round is a single table, played to the tournament's winner
                    // (with no one waiting on a bye).
                    if r.tables > 1 || !r.byes.is_empty() {
                        let next = number.saturating_add(1);
                        // A scheduled round waits for its start too ([`Policy::due`]).
                        let start = next.checked_sub(2).and_then(|i| s.round_starts.get(i as usize)).copied();
                        match start {
                            Some(start) if start > at => s.held = Some(HeldRound { round: next, entries: advancing, start }),
                            _ => orders.push((t, start_id(t, next), ShootoutCommand::StartRound { round: next, entries: advancing, at })),
                        }
                    }
                }
                _ => {}
            }
        }
        orders
    }
}

/// The shootouts service's memory: the policy, and the brackets the verb answers from. Stored
/// in the service's snapshot ([`floor_runtime::policy`]).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// The policy.
    pub policy: Policy,
    /// Every shootout's bracket.
    pub brackets: Brackets,
}

impl floor_runtime::policy::Policy for Memory {
    type Order = Order;

    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit("shootouts-policy") else { return vec![] };
        let t = decoded.tournament();
        match &decoded.events {
            Events::Tournament(e) => self.policy.on_tournament(t, e),
            Events::Seating(e) => self.policy.on_seating(t, commit.at, e),
            Events::Shootout(e) => {
                self.policy.on_shootout(t, e);
                self.brackets.apply(t, e);
                vec![]
            }
            _ => vec![],
        }
    }
}
