//! What the rebuys aggregate is told, read from the log. Pure: the service feeds commits in
//! stream order, with the instant each was stored, and runs the commands that come out.
//!
//! - registration: a tournament created with rebuy or add-on terms is configured; its entries
//!   join; its start opens the rebuy period;
//! - seating: a stack that reached zero and was *not* eliminated in the same commit is a bust
//!   to decide on; an elimination takes the entry out; stacks between hands are kept for the
//!   "at or below" condition (003);
//! - clock: the end of the rebuy period, and the first level after it (the add-on break is over);
//! - after the end (issue 33): registration's `tournament_cancelled` and `tournament_finished`,
//!   and the abort log's `cancelled`, close buying for good; its `suspended` holds it until
//!   `resumed` (which also makes the open offers again).
//!
//! Every command's id is derived from what it reacts to, so reading the log again after a crash
//! repeats nothing. Tournaments without rebuys or an add-on are ignored from their creation on.

use crate::domain::RebuyCommand;
use chrono::{DateTime, Utc};
use floor_events::abort::AbortEvent;
use floor_events::clock::ClockEvent;
use floor_events::rebuys::ClosedCause;
use floor_events::registration::TournamentEvent;
use floor_events::seating::SeatingEvent;
use floor_events::tournament::RebuyCondition;
use floor_events::{CommandId, EntryNo, PlayerId, TournamentId};
use std::collections::{HashMap, HashSet};

/// A command for one tournament's rebuys aggregate.
pub type Order = (TournamentId, CommandId, RebuyCommand);

#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Tournament {
    /// Stacks between hands are kept (the rebuy condition is "at or below").
    keep_stacks: bool,
    stacks: HashMap<EntryNo, u64>,
    /// Whose entries, likewise.
    players: HashMap<EntryNo, PlayerId>,
    /// The clock ended the rebuy period: its next level ends the add-on break.
    clock_rebuys_ended: bool,
}

/// The policy's memory: every tournament with rebuys or an add-on that is not over. Stored in
/// the rebuys service's snapshot ([`floor_runtime::policy`]).
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Policy {
    tournaments: HashMap<TournamentId, Tournament>,
    over: HashSet<TournamentId>,
}

fn id(what: &str, tournament: TournamentId) -> CommandId {
    CommandId::derived(&format!("rebuys-{what}:{tournament}"))
}

impl Policy {
    /// An entry's chips between hands, as seating last recorded them (only kept for tournaments
    /// whose rebuy condition needs them).
    pub fn stack(&self, tournament: TournamentId, entry: EntryNo) -> Option<u64> {
        self.tournaments.get(&tournament).and_then(|t| t.stacks.get(&entry)).copied()
    }

    /// The stack of the entry a player means: `entry`, or their one entry with a known stack.
    pub fn stack_of(&self, tournament: TournamentId, player: &PlayerId, entry: Option<EntryNo>) -> Option<u64> {
        let t = self.tournaments.get(&tournament)?;
        let entry = match entry {
            Some(entry) => entry,
            None => {
                let mut theirs = t.players.iter().filter(|(e, p)| *p == player && t.stacks.contains_key(e));
                match (theirs.next(), theirs.next()) {
                    (Some((&entry, _)), None) => entry,
                    _ => return None,
                }
            }
        };
        t.stacks.get(&entry).copied()
    }

    /// A tournament with rebuys or an add-on, in play or over.
    fn known(&self, t: TournamentId) -> bool {
        self.tournaments.contains_key(&t) || self.over.contains(&t)
    }

    /// The end of buying, for good: the command that closes it, and the tournament forgotten.
    fn close(&mut self, t: TournamentId, cause: ClosedCause, at: DateTime<Utc>) -> Order {
        self.tournaments.remove(&t);
        self.over.insert(t);
        let what = match cause {
            ClosedCause::Cancelled => "close-cancelled",
            ClosedCause::Finished => "close-finished",
        };
        (t, id(what, t), RebuyCommand::Close { cause, at })
    }

    /// Registration's events.
    pub fn on_tournament(&mut self, t: TournamentId, events: &[TournamentEvent]) -> Vec<Order> {
        let mut orders = Vec::new();
        for e in events {
            // The end closes buying, also after seating's last elimination forgot the tournament.
            match e {
                TournamentEvent::TournamentCancelled(cancelled) if self.known(t) => {
                    orders.push(self.close(t, ClosedCause::Cancelled, cancelled.at));
                    continue;
                }
                TournamentEvent::TournamentFinished(finished) if self.known(t) => {
                    orders.push(self.close(t, ClosedCause::Finished, finished.at));
                    continue;
                }
                _ => {}
            }
            if let TournamentEvent::TournamentCreated(created) = e {
                let d = &created.definition;
                if d.rebuy.is_some() || d.add_on.is_some() {
                    let keep_stacks = d.rebuy.is_some_and(|r| r.condition != RebuyCondition::AtZero);
                    self.tournaments.insert(t, Tournament { keep_stacks, ..Tournament::default() });
                    orders.push((t, id("configure", t), RebuyCommand::Configure { tournament_id: t, rebuy: d.rebuy, add_on: d.add_on }));
                }
                continue;
            }
            if !self.tournaments.contains_key(&t) {
                continue;
            }
            match e {
                TournamentEvent::EntryRegistered(entry) => {
                    let tournament = self.tournaments.get_mut(&t).expect("checked above");
                    if tournament.keep_stacks {
                        tournament.players.insert(entry.entry, entry.player.clone());
                    }
                    orders.push((
                        t,
                        id(&format!("join-{}", entry.entry.0), t),
                        RebuyCommand::Join { entry: entry.entry, player: entry.player.clone() },
                    ))
                }
                TournamentEvent::TournamentStarted(started) => orders.push((t, id("open", t), RebuyCommand::Open { at: started.at })),
                _ => {}
            }
        }
        orders
    }

    /// A seating commit, stored at `at` with stream sequence `sequence`.
    pub fn on_seating(&mut self, t: TournamentId, sequence: u64, at: DateTime<Utc>, events: &[SeatingEvent]) -> Vec<Order> {
        let Some(tournament) = self.tournaments.get_mut(&t) else { return vec![] };
        let eliminated: HashSet<EntryNo> =
            events.iter().filter_map(|e| if let SeatingEvent::EntryEliminated { entry, .. } = e { Some(*entry) } else { None }).collect();
        let mut orders = Vec::new();
        for e in events {
            match e {
                SeatingEvent::HandFinished { stacks, .. } if tournament.keep_stacks => {
                    tournament.stacks.extend(stacks.iter().map(|s| (s.entry, s.chips)));
                }
                SeatingEvent::ChipsAtTable { entry, chips } if tournament.keep_stacks => {
                    *tournament.stacks.entry(*entry).or_default() += chips;
                }
                SeatingEvent::StackReachedZero { entry, .. } => {
                    if tournament.keep_stacks {
                        tournament.stacks.insert(*entry, 0);
                    }
                    if !eliminated.contains(entry) {
                        let command_id = CommandId::derived(&format!("rebuys-bust:{t}:{sequence}:{}", entry.0));
                        orders.push((t, command_id, RebuyCommand::Bust { entry: *entry, at }));
                    }
                }
                SeatingEvent::EntryEliminated { entry, .. } => {
                    tournament.stacks.remove(entry);
                    tournament.players.remove(entry);
                    orders.push((t, id(&format!("out-{}", entry.0), t), RebuyCommand::Out { entry: *entry }));
                }
                SeatingEvent::TournamentWon { .. } => {
                    self.tournaments.remove(&t);
                    self.over.insert(t);
                    return orders;
                }
                _ => {}
            }
        }
        orders
    }

    /// The abort service's events: a suspension holds buying; a resume opens it again and
    /// extends every open offer by the suspension; a cancellation closes it for good. The
    /// command ids are the suspension's (its start) and the tournament's, so reading the log
    /// again repeats nothing.
    pub fn on_abort(&mut self, t: TournamentId, events: &[AbortEvent]) -> Vec<Order> {
        if !self.tournaments.contains_key(&t) {
            return vec![];
        }
        let mut orders = Vec::new();
        for e in events {
            orders.push(match e {
                AbortEvent::Suspended { at, .. } => {
                    (t, id(&format!("suspend-{}", at.timestamp_micros()), t), RebuyCommand::Suspend { at: *at })
                }
                AbortEvent::Resumed { suspended_at, at } => (
                    t,
                    id(&format!("extend-{}", suspended_at.timestamp_micros()), t),
                    RebuyCommand::Extend { suspended_at: *suspended_at, resumed_at: *at },
                ),
                AbortEvent::Cancelled { at, .. } => self.close(t, ClosedCause::Cancelled, *at),
            });
        }
        orders
    }

    /// The clock's events.
    pub fn on_clock(&mut self, t: TournamentId, events: &[ClockEvent]) -> Vec<Order> {
        let Some(tournament) = self.tournaments.get_mut(&t) else { return vec![] };
        let mut orders = Vec::new();
        for e in events {
            match e {
                ClockEvent::RebuyPeriodEnded { at } => {
                    tournament.clock_rebuys_ended = true;
                    orders.push((t, id("end", t), RebuyCommand::EndRebuys { at: *at }));
                }
                ClockEvent::StepStarted { at, blinds: Some(_), .. } if tournament.clock_rebuys_ended => {
                    orders.push((t, id("end-add-ons", t), RebuyCommand::EndAddOns { at: *at }));
                }
                _ => {}
            }
        }
        orders
    }

    /// Whether the tournament is won, over or cancelled (its orders need not run again, but
    /// the one that closes buying: [`RebuyCommand::Close`]).
    pub fn is_over(&self, t: TournamentId) -> bool {
        self.over.contains(&t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::table::SeatStack;

    /// Issue 22: the resume extends the open offers by the suspension, once (the id is the
    /// suspension's); a tournament without rebuys is left alone.
    #[test]
    fn a_resume_extends_the_open_offers_once() {
        let mut policy = Policy::default();
        let t = TournamentId::new();
        policy.tournaments.insert(t, Tournament::default());
        let (s, r) = ("2026-12-06T18:00:00Z".parse().unwrap(), "2026-12-06T18:05:00Z".parse().unwrap());
        let resumed = [AbortEvent::Resumed { suspended_at: s, at: r }];
        let orders = policy.on_abort(t, &resumed);
        assert_eq!(
            orders,
            vec![(t, id(&format!("extend-{}", s.timestamp_micros()), t), RebuyCommand::Extend { suspended_at: s, resumed_at: r })]
        );
        assert_eq!(policy.on_abort(t, &resumed), orders, "read again, the same command");
        assert!(policy.on_abort(TournamentId::new(), &resumed).is_empty(), "no rebuys there");
    }

    /// Issue 33: a suspension holds buying and a cancellation in play closes it, each once (a
    /// read of the same commit again gives the same ids); the cancelled tournament is forgotten.
    #[test]
    fn a_suspension_holds_buying_and_a_cancellation_in_play_closes_it_once() {
        use floor_events::abort::SuspendReason;
        let mut policy = Policy::default();
        let t = TournamentId::new();
        policy.tournaments.insert(t, Tournament::default());
        let at: DateTime<Utc> = "2026-12-06T18:00:00Z".parse().unwrap();
        let suspended = [AbortEvent::Suspended { reason: SuspendReason::Director { reason: "power cut".into() }, at }];
        let orders = policy.on_abort(t, &suspended);
        assert_eq!(orders, vec![(t, id(&format!("suspend-{}", at.timestamp_micros()), t), RebuyCommand::Suspend { at })]);
        assert_eq!(policy.on_abort(t, &suspended), orders, "read again, the same command");

        let closing = policy.close(t, ClosedCause::Cancelled, at);
        assert_eq!(closing, (t, id("close-cancelled", t), RebuyCommand::Close { cause: ClosedCause::Cancelled, at }));
        assert!(policy.is_over(t) && !policy.tournaments.contains_key(&t), "forgotten, and its owed close still runs");
    }

    /// Issue 33: registration's end closes buying, also when seating's last elimination was
    /// read first and the tournament is forgotten already; a cancellation before the start too.
    #[test]
    fn the_end_or_a_cancellation_before_the_start_closes_buying() {
        use floor_events::registration::{CancellationReason, TournamentCancelled, TournamentFinished};
        let at: DateTime<Utc> = "2026-12-06T18:00:00Z".parse().unwrap();
        let mut policy = Policy::default();
        let t = TournamentId::new();
        policy.tournaments.insert(t, Tournament::default());
        assert!(policy.on_seating(t, 9, at, &[SeatingEvent::TournamentWon { entry: EntryNo(1) }]).is_empty());
        let finished = TournamentEvent::TournamentFinished(TournamentFinished {
            winner: EntryNo(1),
            player: PlayerId::parse("ana").unwrap(),
            at,
            shared_by: vec![],
        });
        let orders = policy.on_tournament(t, std::slice::from_ref(&finished));
        assert_eq!(orders, vec![(t, id("close-finished", t), RebuyCommand::Close { cause: ClosedCause::Finished, at })]);

        let early = TournamentId::new();
        policy.tournaments.insert(early, Tournament::default());
        let reason = CancellationReason::Director { reason: "no room".into() };
        let cancelled = TournamentEvent::TournamentCancelled(TournamentCancelled { reason, refunds: vec![], at });
        let orders = policy.on_tournament(early, &[cancelled]);
        assert_eq!(orders, vec![(early, id("close-cancelled", early), RebuyCommand::Close { cause: ClosedCause::Cancelled, at })]);
        let plain = TournamentId::new();
        assert!(policy.on_tournament(plain, &[finished]).is_empty(), "no rebuys there");
    }

    #[test]
    fn a_bust_eliminated_in_the_same_commit_is_not_offered_a_rebuy() {
        let mut policy = Policy::default();
        let t = TournamentId::new();
        policy.tournaments.insert(t, Tournament::default());
        let zero = |entry| SeatingEvent::StackReachedZero { entry: EntryNo(entry), table: 1, hand: 3, stack_at_start: 500 };
        let events = vec![
            SeatingEvent::HandFinished {
                table: 1,
                hand: 3,
                stacks: vec![SeatStack { seat: floor_events::table::SeatNo(1), entry: EntryNo(9), chips: 1_000 }],
                busts: vec![],
            },
            zero(1),
            zero(2),
            SeatingEvent::EntryEliminated { entry: EntryNo(2), players_left: 5, stack_at_start: None, table: None },
        ];
        let orders = policy.on_seating(t, 42, Utc::now(), &events);
        let kinds: Vec<_> = orders.iter().map(|(_, _, c)| c.clone()).collect();
        assert!(matches!(kinds[0], RebuyCommand::Bust { entry: EntryNo(1), .. }), "{kinds:?}");
        assert!(matches!(kinds[1], RebuyCommand::Out { entry: EntryNo(2) }), "{kinds:?}");
        assert_eq!(kinds.len(), 2);
        assert_eq!(policy.stack(t, EntryNo(9)), None, "stacks are kept only for an 'at or below' condition");
        let again = policy.on_seating(t, 42, Utc::now(), &events);
        assert_eq!(orders.iter().map(|o| o.1).collect::<Vec<_>>(), again.iter().map(|o| o.1).collect::<Vec<_>>(), "same commit, same ids");
    }
}
