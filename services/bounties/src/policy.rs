//! What the bounties aggregate is told, read from the log. Pure: the service feeds commits in
//! stream order, with the instant each was stored, and runs the commands that come out.
//!
//! - registration: a tournament created with bounty terms is configured; each entry
//!   (registration, late registration, re-entry, multi-entry) pays its bounty part in; an
//!   unregistration or a cancellation refunds it; the start starts (and checks the target);
//! - rebuys: each rebuy pays its bounty part in (an add-on carries none: `docs/bounties.md`);
//! - seating: a hand's busts are kept (the pots each bust's chips went to) until the entry is
//!   eliminated, in that commit or a later one (a rebuy offer between); the elimination becomes
//!   one `Eliminate`; the players left may start a mystery stage; the tournament won is the
//!   winner's bounty;
//! - clock: a level that starts a mystery stage;
//! - the bubble: its burst (hand-for-hand ended because the field reached the money) is "in
//!   the money" ([`Policy::on_bubble`], [`Policy::on_in_the_money`]).
//!
//! Every command's id is derived from what it reacts to (`bounties-<what>:<tournament>`), so
//! reading the log again after a crash repeats nothing. The mystery draws' seed is derived from
//! the platform's key in the `floor-secrets` bucket, like the seat draw's: the same on every
//! instance and after every restart, unknowable from the published commitment.
//!
//! The key is no part of the policy's memory (the memory is stored in a snapshot, the key is a
//! secret): the policy leaves seeds out, and the service puts them in with [`SeedKey::seal`]
//! just before it runs an order.

use crate::domain::BountyCommand;
use crate::mystery::{commitment, Seed};
use chrono::{DateTime, Utc};
use floor_events::bounties::{BountyTerms, MysteryStage, PaidInBy, StageTrigger};
use floor_events::bubble::{BubbleEvent, EndCause};
use floor_events::clock::ClockEvent;
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::{EntryKind, TournamentEvent};
use floor_events::seating::SeatingEvent;
use floor_events::table::BustReport;
use floor_events::{CommandId, EntryNo, TournamentId};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};

/// A command for one tournament's bounties aggregate.
pub type Order = (TournamentId, CommandId, BountyCommand);

/// The key mystery seeds are derived from (the `floor-secrets` key seating uses).
#[derive(Clone)]
pub struct SeedKey(pub [u8; 32]);

impl SeedKey {
    /// The seed of a tournament's mystery draws: `SHA-256(key ‖ "mystery:<tournament>")`, as
    /// seating derives its draw seed (`"draw:<tournament>"`).
    pub fn mystery(&self, tournament: TournamentId) -> Seed {
        let mut hash = Sha256::new();
        hash.update(self.0);
        hash.update(format!("mystery:{tournament}").as_bytes());
        hash.finalize().into()
    }

    /// Puts the tournament's mystery seed into an order that needs it: a stage's commitment,
    /// an elimination's or the win's seed. Every kind of bounty gets it: the aggregate uses a
    /// seed only once a mystery stage is open (and reveals it only then).
    pub fn seal(&self, (t, id, command): Order) -> Order {
        let command = match command {
            BountyCommand::StartStage { trigger, at, .. } => {
                BountyCommand::StartStage { trigger, commitment: commitment(&self.mystery(t)), at }
            }
            BountyCommand::Eliminate { entry, pots, best_high_hand, .. } => {
                BountyCommand::Eliminate { entry, pots, best_high_hand, seed: Some(self.mystery(t)) }
            }
            BountyCommand::Win { entry, .. } => BountyCommand::Win { entry, seed: Some(self.mystery(t)) },
            other => other,
        };
        (t, id, command)
    }
}

#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Tournament {
    /// The mystery stage's trigger, until the stage is asked for.
    stage: Option<MysteryStage>,
    /// The last bust report of each entry at zero chips, until it is eliminated.
    busts: HashMap<EntryNo, BustReport>,
}

/// The policy's memory: every tournament with bounties that is not over. Stored in the
/// bounties service's snapshot ([`floor_runtime::policy`]); orders leave the mystery seed out
/// (`seed: None`, a zero commitment) until [`SeedKey::seal`] puts it in.
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Policy {
    tournaments: HashMap<TournamentId, Tournament>,
    over: HashSet<TournamentId>,
    /// Tournaments whose bounties log has the winner's bounty (or that were cancelled): nothing
    /// they call for is owed any more.
    #[serde(default)]
    settled: HashSet<TournamentId>,
}

fn id(what: &str, tournament: TournamentId) -> CommandId {
    CommandId::derived(&format!("bounties-{what}:{tournament}"))
}

impl Policy {
    /// Whether the tournament is won or cancelled: the policy calls for nothing more.
    pub fn is_over(&self, t: TournamentId) -> bool {
        self.over.contains(&t)
    }

    /// Of the orders folded at a start, those that may still be owed: all but those of a
    /// tournament whose bounties log is settled. (Not "won": seating's win may be in the log
    /// while the winner's bounty is not yet stored, and that order must run again.)
    pub fn still_owed(&self, orders: Vec<Order>) -> Vec<Order> {
        orders.into_iter().filter(|(t, ..)| !self.settled.contains(t)).collect()
    }

    /// The bounties log: a winner's bounty settles the tournament.
    pub fn on_bounties(&mut self, t: TournamentId, events: &[floor_events::bounties::BountyEvent]) {
        if events.iter().any(|e| matches!(e, floor_events::bounties::BountyEvent::WinnerBounty { .. })) {
            self.settled.insert(t);
        }
    }

    fn stage(&mut self, t: TournamentId, reached: impl Fn(&MysteryStage) -> bool, at: DateTime<Utc>) -> Option<Order> {
        let tournament = self.tournaments.get_mut(&t)?;
        let stage = tournament.stage.filter(|s| reached(s))?;
        tournament.stage = None;
        let command = BountyCommand::StartStage { trigger: StageTrigger::Reached { stage }, commitment: [0; 32], at };
        Some((t, id("stage", t), command))
    }

    /// Registration's events.
    pub fn on_tournament(&mut self, t: TournamentId, events: &[TournamentEvent]) -> Vec<Order> {
        let mut orders = Vec::new();
        for e in events {
            if let TournamentEvent::TournamentCreated(created) = e {
                let d = &created.definition;
                if let Some(terms) = &d.bounty {
                    let stage = match terms {
                        BountyTerms::Mystery { stage, .. } => Some(*stage),
                        _ => None,
                    };
                    self.tournaments.insert(t, Tournament { stage, busts: HashMap::new() });
                    let command = BountyCommand::Configure {
                        tournament_id: t,
                        terms: terms.clone(),
                        profile: d.profile,
                        currency: d.buy_in.currency,
                    };
                    orders.push((t, id("configure", t), command));
                }
                continue;
            }
            if !self.tournaments.contains_key(&t) {
                continue;
            }
            match e {
                TournamentEvent::EntryRegistered(entry) => {
                    let by = if entry.kind == EntryKind::ReEntry { PaidInBy::ReEntry } else { PaidInBy::Entry };
                    let command =
                        BountyCommand::PayIn { entry: entry.entry, player: entry.player.clone(), by, prize_pool: entry.ledger.prize_pool };
                    orders.push((t, id(&format!("pay-in-{}", entry.entry.0), t), command));
                }
                TournamentEvent::EntryUnregistered(gone) => {
                    orders.push((t, id(&format!("refund-{}", gone.entry.0), t), BountyCommand::Refund { entry: gone.entry }));
                }
                TournamentEvent::TournamentCancelled(cancelled) => {
                    for r in &cancelled.refunds {
                        orders.push((t, id(&format!("refund-{}", r.entry.0), t), BountyCommand::Refund { entry: r.entry }));
                    }
                    // The refunds must run again after a restart: not settled.
                    self.tournaments.remove(&t);
                    self.over.insert(t);
                    return orders;
                }
                TournamentEvent::TournamentStarted(started) => {
                    orders.push((t, id("start", t), BountyCommand::Start { at: started.at }));
                    let field = started.entries;
                    orders.extend(self.stage(t, |s| matches!(s, MysteryStage::PlayersLeft { players } if field <= *players), started.at));
                }
                _ => {}
            }
        }
        orders
    }

    /// The rebuys service's events: a rebuy pays its bounty part in.
    pub fn on_rebuys(&mut self, t: TournamentId, events: &[RebuyEvent]) -> Vec<Order> {
        if !self.tournaments.contains_key(&t) {
            return vec![];
        }
        let mut orders = Vec::new();
        for e in events {
            if let RebuyEvent::RebuyTaken { entry, player, number, ledger, .. } = e {
                let by = PaidInBy::Rebuy { number: *number };
                let command = BountyCommand::PayIn { entry: *entry, player: player.clone(), by, prize_pool: ledger.prize_pool };
                orders.push((t, id(&format!("rebuy-{}-{number}", entry.0), t), command));
            }
        }
        orders
    }

    /// A seating commit, stored at `at`.
    pub fn on_seating(&mut self, t: TournamentId, at: DateTime<Utc>, events: &[SeatingEvent]) -> Vec<Order> {
        let mut orders = Vec::new();
        for e in events {
            let Some(tournament) = self.tournaments.get_mut(&t) else { return orders };
            match e {
                SeatingEvent::HandFinished { busts, .. } => {
                    tournament.busts.extend(busts.iter().map(|b| (b.entry, b.clone())));
                }
                SeatingEvent::EntryEliminated { entry, players_left, .. } => {
                    let report = tournament.busts.remove(entry);
                    let (pots, best_high_hand) = report.map_or((vec![], None), |r| (r.pots, r.best_high_hand));
                    let command = BountyCommand::Eliminate { entry: *entry, pots, best_high_hand, seed: None };
                    orders.push((t, id(&format!("eliminate-{}", entry.0), t), command));
                    let left = *players_left;
                    orders.extend(self.stage(t, |s| matches!(s, MysteryStage::PlayersLeft { players } if left <= *players), at));
                }
                SeatingEvent::TournamentWon { entry } => {
                    orders.push((t, id("win", t), BountyCommand::Win { entry: *entry, seed: None }));
                    self.tournaments.remove(&t);
                    self.over.insert(t);
                    return orders;
                }
                _ => {}
            }
        }
        orders
    }

    /// The clock's events: a level that starts a mystery stage.
    pub fn on_clock(&mut self, t: TournamentId, events: &[ClockEvent]) -> Vec<Order> {
        let mut orders = Vec::new();
        for e in events {
            if let ClockEvent::StepStarted { number, at, blinds: Some(_), .. } = e {
                let level = *number;
                orders.extend(self.stage(t, |s| matches!(s, MysteryStage::Level { level: l } if level >= *l), *at));
            }
        }
        orders
    }

    /// The bubble's events: the burst is "in the money". A director's stop or the last table
    /// ending hand-for-hand says nothing about the money.
    pub fn on_bubble(&mut self, t: TournamentId, events: &[BubbleEvent]) -> Vec<Order> {
        let burst = events.iter().find_map(|e| match e {
            BubbleEvent::HandForHandEnded { cause: EndCause::Burst, at, .. } => Some(*at),
            _ => None,
        });
        burst.map(|at| self.on_in_the_money(t, at)).unwrap_or_default()
    }

    /// The tournament reached the money (the bubble burst): a mystery stage waiting for it
    /// starts.
    pub fn on_in_the_money(&mut self, t: TournamentId, at: DateTime<Utc>) -> Vec<Order> {
        self.stage(t, |s| *s == MysteryStage::InTheMoney, at).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::registration::{EntryRegistered, StartCause, TournamentCreated, TournamentStarted};
    use floor_events::table::PotWon;
    use floor_events::tournament::{purchase_ledger, Fee, Start, TournamentDefinition};
    use floor_events::{Currency, Money, PlayerId};

    fn eur(cents: u64) -> Money {
        Money::new(cents, Currency::EUR)
    }

    fn at() -> DateTime<Utc> {
        "2027-01-10T18:00:00Z".parse().unwrap()
    }

    /// A sit & go of three with mystery bounties from three players left; created, filled.
    fn created(t: TournamentId, bounty: Option<BountyTerms>) -> Vec<TournamentEvent> {
        let definition = TournamentDefinition {
            name: "Mystery".into(),
            start: Start::SitAndGo,
            starting_stack: 1_000,
            buy_in: eur(2_000),
            fee: Fee::OnTop(eur(200)),
            capacity: 3,
            min_players: 3,
            bounty,
            ..TournamentDefinition::example()
        };
        let mut events = vec![TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition, at: at() })];
        for e in 1..=3 {
            events.push(TournamentEvent::EntryRegistered(EntryRegistered {
                entry: EntryNo(e),
                player: PlayerId::parse(&format!("p{e}")).unwrap(),
                kind: if e == 3 { EntryKind::ReEntry } else { EntryKind::Registration },
                new_player: true,
                ledger: purchase_ledger(eur(2_000), eur(200)),
                at: at(),
                ticket: None,
            }));
        }
        events
    }

    fn mystery() -> BountyTerms {
        BountyTerms::Mystery {
            share_bps: 5_000,
            envelopes: vec![floor_events::bounties::EnvelopeTier { share_bps: 10_000, count: 1 }],
            stage: MysteryStage::PlayersLeft { players: 2 },
        }
    }

    #[test]
    fn a_tournament_without_bounties_is_ignored_and_one_with_them_pays_each_entry_in() {
        let mut policy = Policy::default();
        let t = TournamentId::new();
        assert!(policy.on_tournament(t, &created(t, None)).is_empty());
        let t = TournamentId::new();
        let orders = policy.on_tournament(t, &created(t, Some(mystery())));
        assert!(matches!(orders[0].2, BountyCommand::Configure { currency: Currency::EUR, .. }));
        let by: Vec<_> = orders[1..]
            .iter()
            .map(|o| if let BountyCommand::PayIn { by, prize_pool, .. } = &o.2 { (*by, *prize_pool) } else { panic!() })
            .collect();
        assert_eq!(by, vec![(PaidInBy::Entry, eur(2_000)), (PaidInBy::Entry, eur(2_000)), (PaidInBy::ReEntry, eur(2_000))]);
    }

    #[test]
    fn a_bust_reported_before_its_elimination_is_paid_with_its_pots_the_stage_starts_and_ids_repeat_on_replay() {
        let key = SeedKey([1; 32]);
        let t = TournamentId::new();
        let run = || {
            let mut policy = Policy::default();
            let mut orders = policy.on_tournament(t, &created(t, Some(mystery())));
            let started = TournamentEvent::TournamentStarted(TournamentStarted { entries: 3, cause: StartCause::LastSeatFilled, at: at() });
            orders.extend(policy.on_tournament(t, &[started]));
            let bust = BustReport {
                entry: EntryNo(3),
                stack_at_start: 500,
                pots: vec![PotWon { winners: vec![EntryNo(1)], chips: 500 }],
                best_high_hand: None,
            };
            // The hand in one commit (a rebuy offer in between), the elimination in a later one.
            orders.extend(policy.on_seating(
                t,
                at(),
                &[SeatingEvent::HandFinished { table: 1, hand: 4, stacks: vec![], busts: vec![bust] }],
            ));
            let out = SeatingEvent::EntryEliminated { entry: EntryNo(3), players_left: 2, stack_at_start: Some(500), table: Some(1) };
            orders.extend(policy.on_seating(t, at(), &[out]));
            orders.extend(policy.on_seating(t, at(), &[SeatingEvent::TournamentWon { entry: EntryNo(1) }]));
            assert!(policy.is_over(t));
            orders.into_iter().map(|o| key.seal(o)).collect::<Vec<_>>()
        };
        let orders = run();
        let commands: Vec<&BountyCommand> = orders.iter().map(|o| &o.2).collect();
        let seed = key.mystery(t);
        assert!(commands.iter().any(|c| matches!(c, BountyCommand::Start { .. })));
        assert!(
            commands.iter().any(
                |c| matches!(c, BountyCommand::Eliminate { entry: EntryNo(3), pots, seed: Some(s), .. } if pots.len() == 1 && *s == seed)
            ),
            "{commands:?}"
        );
        assert!(
            commands
                .iter()
                .any(|c| matches!(c, BountyCommand::StartStage { commitment: c, .. } if *c == crate::mystery::commitment(&seed))),
            "two players left: the stage starts, committed to the seed the draws use"
        );
        assert!(matches!(commands.last(), Some(BountyCommand::Win { entry: EntryNo(1), seed: Some(_) })));
        let ids = |orders: &[Order]| orders.iter().map(|o| o.1).collect::<Vec<_>>();
        assert_eq!(ids(&orders), ids(&run()), "the same log, the same command ids");
    }

    #[test]
    fn the_memory_survives_a_snapshot_with_a_bust_waiting_for_its_elimination_and_holds_no_seed() {
        let key = SeedKey([7; 32]);
        let t = TournamentId::new();
        let mut policy = Policy::default();
        policy.on_tournament(t, &created(t, Some(mystery())));
        let bust = BustReport {
            entry: EntryNo(2),
            stack_at_start: 500,
            pots: vec![PotWon { winners: vec![EntryNo(1)], chips: 500 }],
            best_high_hand: None,
        };
        policy.on_seating(t, at(), &[SeatingEvent::HandFinished { table: 1, hand: 4, stacks: vec![], busts: vec![bust] }]);
        let json = serde_json::to_string(&policy).expect("encodes");
        assert!(!json.contains(&crate::mystery::hex(&key.mystery(t))), "the seed is never in the memory");
        let mut restored: Policy = serde_json::from_str(&json).expect("decodes");
        assert_eq!(restored, policy);
        let out = SeatingEvent::EntryEliminated { entry: EntryNo(2), players_left: 2, stack_at_start: Some(500), table: Some(1) };
        let orders: Vec<Order> = restored.on_seating(t, at(), &[out]).into_iter().map(|o| key.seal(o)).collect();
        assert!(
            matches!(&orders[0].2, BountyCommand::Eliminate { pots, seed: Some(s), .. } if pots.len() == 1 && *s == key.mystery(t)),
            "the restored memory still holds the bust's pots: {orders:?}"
        );
        assert!(
            matches!(&orders[1].2, BountyCommand::StartStage { commitment, .. } if *commitment == crate::mystery::commitment(&key.mystery(t))),
            "{orders:?}"
        );
    }

    #[test]
    fn a_level_or_the_money_starts_a_stage_that_waits_for_it_once() {
        let mut policy = Policy::default();
        let t = TournamentId::new();
        let level = BountyTerms::Mystery {
            share_bps: 5_000,
            envelopes: vec![floor_events::bounties::EnvelopeTier { share_bps: 10_000, count: 1 }],
            stage: MysteryStage::Level { level: 3 },
        };
        policy.on_tournament(t, &created(t, Some(level)));
        assert!(policy.on_in_the_money(t, at()).is_empty(), "not this tournament's trigger");
        let in_the_money = TournamentId::new();
        let money = BountyTerms::Mystery {
            share_bps: 5_000,
            envelopes: vec![floor_events::bounties::EnvelopeTier { share_bps: 10_000, count: 1 }],
            stage: MysteryStage::InTheMoney,
        };
        policy.on_tournament(in_the_money, &created(in_the_money, Some(money)));
        let ended = |cause| BubbleEvent::HandForHandEnded { cause, players_left: 9, at: at() };
        assert!(policy.on_bubble(in_the_money, &[ended(EndCause::Director)]).is_empty(), "a director's stop is not the money");
        assert!(policy.on_bubble(in_the_money, &[ended(EndCause::OneTable)]).is_empty(), "nor is the last table");
        assert_eq!(policy.on_bubble(in_the_money, &[ended(EndCause::Burst)]).len(), 1, "the burst starts the stage");
        assert!(policy.on_bubble(in_the_money, &[ended(EndCause::Burst)]).is_empty(), "once");
        let step = |number| floor_events::clock::ClockEvent::StepStarted {
            step: number,
            number,
            at: at(),
            ends_at: at(),
            cause: floor_events::clock::StepCause::Timer,
            blinds: Some(floor_events::clock::Level { small_blind: 1, big_blind: 2, ante: 0, big_blind_ante: false, seconds: 600 }),
        };
        assert!(policy.on_clock(t, &[step(2)]).is_empty());
        assert_eq!(policy.on_clock(t, &[step(3)]).len(), 1);
        assert!(policy.on_clock(t, &[step(4)]).is_empty(), "once");
    }

    /// A restart whose tail holds seating's win but not yet the winner's bounty runs the win
    /// again; once the bounties log has the winner's bounty, nothing of the tournament is owed.
    #[test]
    fn a_won_tournament_still_owes_the_winners_bounty_until_the_bounties_log_has_it() {
        let t = TournamentId::new();
        let mut policy = Policy::default();
        let mut orders = policy.on_tournament(t, &created(t, Some(mystery())));
        orders.extend(policy.on_seating(t, at(), &[SeatingEvent::TournamentWon { entry: EntryNo(1) }]));
        assert!(policy.is_over(t));
        let owed = policy.still_owed(orders.clone());
        assert!(matches!(owed.last(), Some((_, _, BountyCommand::Win { .. }))), "the win is owed: {owed:?}");
        let winner = floor_events::bounties::BountyEvent::WinnerBounty {
            entry: EntryNo(1),
            player: PlayerId::parse("p1").unwrap(),
            own: eur(0),
            left_over: eur(3_000),
        };
        policy.on_bounties(t, &[winner]);
        assert!(policy.still_owed(orders).is_empty());
    }
}
