//! Reactions of seating to the tournament and its clock, and the seeds of its draws.
//!
//! - A tournament created: configure its seating and commit to the seed of its draw (the
//!   commitment is published now, the seed when the seats are drawn).
//! - An entry registered or withdrawn: it joins or leaves the seat pool.
//! - The tournament started: draw the seats.
//! - A satellite finished with its survivors sharing the seats (`shared_by`, issue 36): every
//!   table is closed.
//! - A level started: its blinds go to every table for the next hand.
//! - A rebuy or add-on bought: its chips go to the entry's table; a rebuy forgone: the entry at
//!   zero is eliminated; the rebuy period over: busted stacks are out at once from now on.
//! - A shootout (issue 37): configured as one at creation; each round's start
//!   (`round_started`) commits the next round's seed, and a round after the first is drawn.
//! - Hand-for-hand (the bubble's events): `hold_for_deal` to every table at the announcement,
//!   `deal_hand {hand}` to the tables a release names, `resume` at the end.
//!
//! Registrations before the start are gathered: consecutive joins to one tournament become one
//! `join_pool` command ([`enqueue`]), so a field of 10,000 costs seating a few dozen commits,
//! not 10,000. After the start the aggregate refuses a pool and its entries join one by one
//! ([`split_pool`]), each needing a seat of its own.
//!
//! Every reaction's command id is derived from what it reacts to, so a replayed reaction is
//! stored once. (A replayed pool may be gathered with other bounds, so another id: the aggregate
//! then adds none of its entries, having seen them join.) Seeds are derived from a key kept in the `floor-secrets` bucket: the same on every
//! instance and after every restart, unknowable from the published commitment.

use crate::domain::SeatingCommand;
use crate::draw::{commitment, Seed};
use floor_events::abort::{AbortEvent, SuspendReason};
use floor_events::bubble::BubbleEvent;
use floor_events::clock::ClockEvent;
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::TournamentEvent;
use floor_events::shootouts::ShootoutEvent;
use floor_events::{CommandId, EntryNo, PlayerId, TournamentId};
use sha2::{Digest, Sha256};
use std::collections::VecDeque;

/// Most entries in one `join_pool` commit (about 100 bytes each).
pub const POOL_AT_ONCE: usize = 500;

/// A seating command waiting to run, for its tournament, with its id.
pub type Queued = (TournamentId, CommandId, SeatingCommand);

/// The key seeds are derived from.
#[derive(Clone)]
pub struct SeedKey(pub [u8; 32]);

impl SeedKey {
    fn derive(&self, purpose: &str) -> Seed {
        let mut hash = Sha256::new();
        hash.update(self.0);
        hash.update(purpose.as_bytes());
        hash.finalize().into()
    }

    /// The seed of a tournament's start-of-play draw.
    pub fn draw(&self, tournament: TournamentId) -> Seed {
        self.derive(&format!("draw:{tournament}"))
    }

    /// The seed of a shootout round's draw (round 2 or more; issue 37).
    pub fn round(&self, tournament: TournamentId, round: u32) -> Seed {
        self.derive(&format!("draw:{tournament}:round:{round}"))
    }

    /// The seed of a late entry's seat (TDA R8-A: a random open seat; revealed in
    /// `entry_seated`).
    pub fn late_seat(&self, tournament: TournamentId, entry: EntryNo) -> Seed {
        self.derive(&format!("late-seat:{tournament}:{}", entry.0))
    }

    /// The seed of the decision after an elimination by command (a rebuy forgone).
    pub fn elimination(&self, tournament: TournamentId, entry: EntryNo) -> Seed {
        self.derive(&format!("eliminate:{tournament}:{}", entry.0))
    }

    /// The seed of the decision after a table's report (by its report id, so a redelivered
    /// report decides the same way).
    pub fn decision(&self, tournament: TournamentId, table: u32, report_id: &str) -> Seed {
        self.derive(&format!("decision:{tournament}:{table}:{report_id}"))
    }
}

/// The seating commands a tournament event calls for, with their ids.
pub fn react_to_tournament(tournament: TournamentId, event: &TournamentEvent, key: &SeedKey) -> Vec<(CommandId, SeatingCommand)> {
    let id = |what: String| CommandId::derived(&format!("seating-{what}:{tournament}"));
    match event {
        TournamentEvent::TournamentCreated(created) => {
            let configure = SeatingCommand::Configure {
                tournament_id: tournament,
                table_size: created.definition.table_size,
                starting_stack: created.definition.starting_stack,
                rebuys: created.definition.rebuy.is_some(),
                balancing: created.definition.seating_rules(),
            };
            let mut commands = vec![(id("configure".into()), configure)];
            // A shootout's tables are never balanced or broken (issue 37).
            if let Some(terms) = created.definition.shootout.clone() {
                commands.push((id("shootout".into()), SeatingCommand::ConfigureShootout { terms }));
            }
            commands.push((id("commit".into()), SeatingCommand::CommitDraw { commitment: commitment(&key.draw(tournament)) }));
            commands
        }
        TournamentEvent::EntryRegistered(e) => {
            let seed = key.late_seat(tournament, e.entry);
            vec![(join_id(tournament, e.entry), SeatingCommand::Join { entry: e.entry, player: e.player.clone(), seed })]
        }
        TournamentEvent::EntryUnregistered(e) => vec![(id(format!("leave-{}", e.entry.0)), SeatingCommand::Leave { entry: e.entry })],
        // A flight's Day 1 stack reached this Day 2 (issue 36): the entry joins with it.
        TournamentEvent::EntryCarried(e) if e.outcome != floor_events::flights::CarryOutcome::Forfeited => {
            let command = SeatingCommand::JoinCarried { entry: e.entry, player: e.player.clone(), stack: e.stack };
            vec![(id(format!("carried-{}-{}-{}", e.entry.0, e.day1, e.day1_entry.0)), command)]
        }
        TournamentEvent::TournamentStarted(started) => {
            vec![(id("start".into()), SeatingCommand::Start { seed: key.draw(tournament), at: started.at })]
        }
        // A satellite stopped with as many entries left as seats (issue 36, 000 §16.7): the
        // survivors are still seated, so every table is told to stop (`close_table`). A finish
        // with one winner needs nothing: seating decided it, and closed the last table then.
        TournamentEvent::TournamentFinished(finished) if !finished.shared_by.is_empty() => {
            vec![(id("finish".into()), SeatingCommand::CloseTables)]
        }
        _ => vec![],
    }
}

fn join_id(tournament: TournamentId, entry: EntryNo) -> CommandId {
    CommandId::derived(&format!("seating-join-{}:{tournament}", entry.0))
}

fn pool_id(tournament: TournamentId, entries: &[(EntryNo, PlayerId)]) -> CommandId {
    let (first, last) = (entries.first().map_or(0, |e| e.0 .0), entries.last().map_or(0, |e| e.0 .0));
    CommandId::derived(&format!("seating-join-pool-{first}-{last}:{tournament}"))
}

/// Queues a command, gathering a join into the tournament's last queued command when that is a
/// pool with room (or starting a pool with it).
///
/// Commands of other tournaments in between do not end a pool: each tournament is its own
/// aggregate, and only its own commands' order matters. Registrations to several tournaments at
/// once arrive interleaved; pooling only neighbours gave each tournament pools of one, a
/// seating commit per registration.
pub fn enqueue(queued: &mut VecDeque<Queued>, tournament: TournamentId, id: CommandId, command: SeatingCommand) {
    let SeatingCommand::Join { entry, player, .. } = command else {
        queued.push_back((tournament, id, command));
        return;
    };
    if let Some((_, pool, SeatingCommand::JoinPool { entries })) = queued.iter_mut().rev().find(|(t, ..)| *t == tournament) {
        if entries.len() < POOL_AT_ONCE {
            entries.push((entry, player));
            *pool = pool_id(tournament, entries);
            return;
        }
    }
    let entries = vec![(entry, player)];
    queued.push_back((tournament, pool_id(tournament, &entries), SeatingCommand::JoinPool { entries }));
}

/// A pool refused because the seats are drawn: its entries as single joins, in order, with the
/// ids and seeds their registrations give them.
pub fn split_pool(tournament: TournamentId, entries: Vec<(EntryNo, PlayerId)>, key: &SeedKey) -> Vec<Queued> {
    entries
        .into_iter()
        .map(|(entry, player)| {
            let seed = key.late_seat(tournament, entry);
            (tournament, join_id(tournament, entry), SeatingCommand::Join { entry, player, seed })
        })
        .collect()
}

/// What a clock event sends to the tables, with the command's id: a level's blinds; a break,
/// the push hold (TDA RP-7) and a director's pause and resume of the clock (spec §4). The
/// clock's own pause for a suspension (reason "suspended: …") is not sent: the suspension's
/// `pause` is.
pub fn react_to_clock(tournament: TournamentId, event: &ClockEvent) -> Option<(CommandId, SeatingCommand)> {
    use floor_events::table::Instruction;
    let clock = |what: String, instruction: Instruction| {
        Some((CommandId::derived(&format!("seating-clock:{tournament}:{what}")), SeatingCommand::Clock { instruction }))
    };
    let (number, at, level) = match event {
        ClockEvent::StepStarted { number, at, blinds: Some(level), .. } => (number, at, level),
        ClockEvent::StepStarted { number, at, ends_at, blinds: None, .. } => {
            return clock(
                format!("break-{number}-{}", at.timestamp_millis()),
                Instruction::TakeBreak { number: *number, ends_at: *ends_at },
            );
        }
        ClockEvent::PushHeld { step, at, until } => {
            return clock(format!("hold-{step}-{}", at.timestamp_millis()), Instruction::HoldPush { until: *until });
        }
        ClockEvent::Paused { at, remaining_ms, reason } if !reason.starts_with("suspended") => {
            let instruction = Instruction::ClockPaused { reason: reason.clone(), remaining_ms: *remaining_ms };
            return clock(format!("paused-{}", at.timestamp_millis()), instruction);
        }
        ClockEvent::Resumed { at, ends_at } => {
            return clock(format!("resumed-{}", at.timestamp_millis()), Instruction::ClockResumed { ends_at: *ends_at });
        }
        _ => return None,
    };
    let id = CommandId::derived(&format!("seating-blinds:{tournament}:{number}:{}", at.timestamp_millis()));
    let command = SeatingCommand::Blinds {
        level: *number,
        small_blind: level.small_blind,
        big_blind: level.big_blind,
        ante: level.ante,
        big_blind_ante: level.big_blind_ante,
    };
    Some((id, command))
}

/// The instructions a bubble event sends to the tables, with the command's id (derived from
/// the event: each announcement, release and end is its own).
pub fn react_to_bubble(tournament: TournamentId, event: &BubbleEvent) -> Option<(CommandId, SeatingCommand)> {
    use floor_events::table::Instruction;
    let id = |what: String| CommandId::derived(&format!("seating-hand-for-hand:{tournament}:{what}"));
    match event {
        BubbleEvent::HandForHandStarted { at, .. } => Some((
            id(format!("hold-{}", at.timestamp_micros())),
            SeatingCommand::HandForHand { instruction: Instruction::HoldForDeal, tables: vec![] },
        )),
        BubbleEvent::HandReleased { hand, tables, at } => Some((
            id(format!("deal-{hand}-{}", at.timestamp_micros())),
            SeatingCommand::HandForHand { instruction: Instruction::DealHand { hand: *hand }, tables: tables.clone() },
        )),
        BubbleEvent::HandForHandEnded { at, .. } => Some((
            id(format!("resume-{}", at.timestamp_micros())),
            SeatingCommand::HandForHand { instruction: Instruction::Resume, tables: vec![] },
        )),
        _ => None,
    }
}

/// What the abort service's events do at the tables: a suspension pauses every table with the
/// reason and resumes them after; a cancellation closes every table.
pub fn react_to_abort(tournament: TournamentId, event: &AbortEvent) -> Option<(CommandId, SeatingCommand)> {
    let id = |what: String| CommandId::derived(&format!("seating-suspension:{tournament}:{what}"));
    match event {
        AbortEvent::Suspended { reason, at } => {
            let reason = match reason {
                SuspendReason::Director { reason } => format!("tournament suspended: {reason}"),
                SuspendReason::TablesSilent { silent, tables, seconds } => {
                    format!("tournament suspended: {silent} of {tables} tables sent nothing for {seconds} s")
                }
            };
            Some((id(format!("pause-{}", at.timestamp_micros())), SeatingCommand::Suspend { reason }))
        }
        AbortEvent::Resumed { at, .. } => Some((id(format!("resume-{}", at.timestamp_micros())), SeatingCommand::ResumePlay)),
        AbortEvent::Cancelled { at, .. } => Some((id(format!("close-{}", at.timestamp_micros())), SeatingCommand::CloseTables)),
    }
}

/// What a shootout round's start asks of seating (issue 37): round 2 or more is drawn with its
/// seed (`draw:<t>:round:<r>`), and the next round's seed is committed now, before anyone
/// knows who will play in it. Round 1 is the start-of-play draw, made at the tournament's start.
pub fn react_to_shootout(tournament: TournamentId, event: &ShootoutEvent, key: &SeedKey) -> Vec<(CommandId, SeatingCommand)> {
    let ShootoutEvent::RoundStarted(started) = event else { return vec![] };
    let id = |what: &str, round: u32| CommandId::derived(&format!("seating-round-{what}:{tournament}:{round}"));
    let mut commands = Vec::new();
    if started.round >= 2 {
        let seed = key.round(tournament, started.round);
        let draw = SeatingCommand::DrawRound { round: started.round, entries: started.entries.clone(), seed, at: started.at };
        commands.push((id("draw", started.round), draw));
    }
    let next = started.round.saturating_add(1);
    commands.push((id("commit", next), SeatingCommand::CommitRound { round: next, commitment: commitment(&key.round(tournament, next)) }));
    commands
}

/// The seating commands a rebuys event calls for, with their ids.
pub fn react_to_rebuys(tournament: TournamentId, event: &RebuyEvent, key: &SeedKey) -> Option<(CommandId, SeatingCommand)> {
    let id = |what: String| CommandId::derived(&format!("seating-{what}:{tournament}"));
    match event {
        RebuyEvent::RebuyTaken { entry, number, chips, .. } => {
            Some((id(format!("rebuy-{}-{number}", entry.0)), SeatingCommand::AddChips { entry: *entry, chips: *chips }))
        }
        RebuyEvent::AddOnTaken { entry, chips, .. } => {
            Some((id(format!("add-on-{}", entry.0)), SeatingCommand::AddChips { entry: *entry, chips: *chips }))
        }
        RebuyEvent::RebuyForgone { entry, .. } => Some((
            id(format!("eliminate-{}", entry.0)),
            SeatingCommand::Eliminate { entry: *entry, seed: key.elimination(tournament, *entry) },
        )),
        RebuyEvent::RebuyPeriodEnded { .. } => Some((id("rebuys-ended".into()), SeatingCommand::EndRebuys)),
        RebuyEvent::RebuyOffered { entry, until, .. } => Some((
            id(format!("offer-{}-{}", entry.0, until.timestamp_millis())),
            SeatingCommand::OfferRebuy { entry: *entry, until: *until },
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_by_tournament_and_purpose_and_never_equal_their_commitment() {
        let key = SeedKey([7; 32]);
        let (a, b) = (TournamentId::new(), TournamentId::new());
        assert_eq!(key.draw(a), key.draw(a));
        assert_ne!(key.draw(a), key.draw(b));
        assert_ne!(key.draw(a), key.decision(a, 1, "r1"));
        assert_ne!(key.decision(a, 1, "r1"), key.decision(a, 1, "r2"));
        assert_ne!(commitment(&key.draw(a)), key.draw(a));
        assert_ne!(SeedKey([8; 32]).draw(a), key.draw(a), "another key, other seeds");
    }

    /// Issue 36: a satellite's `tournament_finished` with `shared_by` closes every table (one
    /// command, its id derived from the tournament); a finish with one winner calls for nothing,
    /// as before.
    #[test]
    fn a_shared_finish_closes_every_table_and_a_single_winner_s_finish_does_nothing() {
        use floor_events::registration::{Survivor, TournamentFinished};
        let t = TournamentId::new();
        let key = SeedKey([1; 32]);
        let p = |e: u32| PlayerId::parse(&format!("p{e}")).unwrap();
        let finished = |shared_by: Vec<Survivor>| {
            TournamentEvent::TournamentFinished(TournamentFinished { winner: EntryNo(3), player: p(3), at: chrono::Utc::now(), shared_by })
        };
        let survivors = [3, 1, 2].map(|e| Survivor { entry: EntryNo(e), player: p(e) }).to_vec();
        assert_eq!(
            react_to_tournament(t, &finished(survivors), &key),
            vec![(CommandId::derived(&format!("seating-finish:{t}")), SeatingCommand::CloseTables)]
        );
        assert!(react_to_tournament(t, &finished(vec![]), &key).is_empty());
    }

    /// Issue 37: a shootout is configured as one between its seating and its draw's
    /// commitment; any other tournament gets the two commands it always did.
    #[test]
    fn a_shootout_is_configured_as_one_and_any_other_tournament_as_before() {
        use floor_events::registration::TournamentCreated;
        use floor_events::shootouts::{RoundStacks, ShootoutTerms};
        use floor_events::tournament::TournamentDefinition;
        let t = TournamentId::new();
        let key = SeedKey([2; 32]);
        let created = |shootout| {
            let definition = TournamentDefinition { shootout, ..TournamentDefinition::example() };
            TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition, at: chrono::Utc::now() })
        };
        let ids = |commands: Vec<(CommandId, SeatingCommand)>| commands.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
        let id = |what: &str| CommandId::derived(&format!("seating-{what}:{t}"));
        assert_eq!(ids(react_to_tournament(t, &created(None), &key)), vec![id("configure"), id("commit")]);
        let terms = ShootoutTerms { stacks: RoundStacks::Reset, ..ShootoutTerms::new(1) };
        let commands = react_to_tournament(t, &created(Some(terms.clone())), &key);
        assert_eq!(commands[1], (id("shootout"), SeatingCommand::ConfigureShootout { terms }));
        assert_eq!(ids(commands), vec![id("configure"), id("shootout"), id("commit")]);
    }

    /// Issue 37: round 1's start commits round 2's seed; round 2's start draws it with that
    /// seed (`draw:<t>:round:2`) and commits round 3's. Ids follow the round, so a replay is
    /// answered, not drawn twice.
    #[test]
    fn a_round_start_draws_the_round_with_the_seed_committed_at_the_round_before() {
        use floor_events::shootouts::{RoundStarted, ShootoutEvent};
        let t = TournamentId::new();
        let key = SeedKey([3; 32]);
        let at = chrono::Utc::now();
        let started = |round: u32, entries: Vec<EntryNo>| ShootoutEvent::RoundStarted(RoundStarted { round, entries, at });
        let id = |what: &str, round: u32| CommandId::derived(&format!("seating-round-{what}:{t}:{round}"));
        let first = react_to_shootout(t, &started(1, (1..=6).map(EntryNo).collect()), &key);
        assert_eq!(first, vec![(id("commit", 2), SeatingCommand::CommitRound { round: 2, commitment: commitment(&key.round(t, 2)) })]);
        let winners = vec![EntryNo(2), EntryNo(5)];
        let second = react_to_shootout(t, &started(2, winners.clone()), &key);
        assert_eq!(
            second,
            vec![
                (id("draw", 2), SeatingCommand::DrawRound { round: 2, entries: winners, seed: key.round(t, 2), at }),
                (id("commit", 3), SeatingCommand::CommitRound { round: 3, commitment: commitment(&key.round(t, 3)) }),
            ]
        );
        assert_ne!(key.round(t, 2), key.draw(t), "a round's seed is not the start-of-play draw's");
        assert_ne!(key.round(t, 2), key.round(t, 3));
        let completed = floor_events::shootouts::RoundCompleted { round: 1, advancing: vec![EntryNo(2)], at };
        assert!(react_to_shootout(t, &ShootoutEvent::RoundCompleted(completed), &key).is_empty());
    }

    /// Spec §4 and TDA RP-7: a break, the push hold and a director's pause and resume of the
    /// clock become table instructions; the clock's own pause for a suspension does not (the
    /// suspension's `pause` reaches the tables).
    #[test]
    fn breaks_the_push_hold_and_clock_pauses_are_sent_to_the_tables() {
        use floor_events::clock::StepCause;
        use floor_events::table::Instruction;
        let t = TournamentId::new();
        let at = chrono::DateTime::<chrono::Utc>::from_timestamp(1_800_000_000, 0).unwrap();
        let ends_at = at + chrono::Duration::minutes(15);
        let instruction = |event: ClockEvent| match react_to_clock(t, &event) {
            Some((_, SeatingCommand::Clock { instruction })) => Some(instruction),
            _ => None,
        };
        let a_break = ClockEvent::StepStarted { step: 4, number: 1, at, ends_at, cause: StepCause::Timer, blinds: None };
        assert_eq!(instruction(a_break), Some(Instruction::TakeBreak { number: 1, ends_at }));
        assert_eq!(instruction(ClockEvent::PushHeld { step: 3, at, until: ends_at }), Some(Instruction::HoldPush { until: ends_at }));
        let paused = ClockEvent::Paused { at, remaining_ms: 60_000, reason: "dispute".into() };
        assert_eq!(instruction(paused), Some(Instruction::ClockPaused { reason: "dispute".into(), remaining_ms: 60_000 }));
        assert_eq!(instruction(ClockEvent::Resumed { at, ends_at }), Some(Instruction::ClockResumed { ends_at }));
        assert_eq!(react_to_clock(t, &ClockEvent::Paused { at, remaining_ms: 1, reason: "suspended: power cut".into() }), None);
    }

    fn join(entry: u32) -> SeatingCommand {
        SeatingCommand::Join { entry: EntryNo(entry), player: PlayerId::parse(&format!("p{entry}")).unwrap(), seed: [0; 32] }
    }

    fn pool_sizes(queued: &VecDeque<Queued>) -> Vec<Option<usize>> {
        queued.iter().map(|(_, _, c)| if let SeatingCommand::JoinPool { entries } = c { Some(entries.len()) } else { None }).collect()
    }

    #[test]
    fn joins_to_one_tournament_are_gathered_into_pools_of_at_most_pool_at_once() {
        let (a, b) = (TournamentId::new(), TournamentId::new());
        let mut queued = VecDeque::new();
        let any = CommandId::new();
        for e in 1..=3 {
            enqueue(&mut queued, a, any, join(e));
        }
        enqueue(&mut queued, b, any, join(1));
        enqueue(&mut queued, a, any, join(4));
        enqueue(&mut queued, b, any, join(2));
        assert_eq!(pool_sizes(&queued), [Some(4), Some(2)], "another tournament's joins in between do not end a pool");
        enqueue(&mut queued, a, any, SeatingCommand::Leave { entry: EntryNo(2) });
        enqueue(&mut queued, a, any, join(5));
        enqueue(&mut queued, b, any, join(3));
        assert_eq!(pool_sizes(&queued), [Some(4), Some(3), None, Some(1)], "a leave ends its tournament's pool, not the other's");
        let order: Vec<TournamentId> = queued.iter().map(|(t, ..)| *t).collect();
        assert_eq!(order, [a, b, a, a], "each tournament's commands keep their order");
        let mut queued = VecDeque::new();
        for e in 1..=(POOL_AT_ONCE as u32 + 1) {
            enqueue(&mut queued, a, any, join(e));
        }
        assert_eq!(pool_sizes(&queued), [Some(POOL_AT_ONCE), Some(1)]);
    }

    #[test]
    fn a_pool_is_named_by_its_bounds_and_splits_into_the_joins_registration_caused() {
        let a = TournamentId::new();
        let gathered = |entries: std::ops::RangeInclusive<u32>| {
            let mut queued = VecDeque::new();
            for e in entries {
                enqueue(&mut queued, a, CommandId::new(), join(e));
            }
            queued.pop_front().unwrap()
        };
        assert_eq!(gathered(1..=3).1, gathered(1..=3).1, "the same pool, the same id");
        assert_ne!(gathered(1..=3).1, gathered(1..=4).1);
        let (_, _, SeatingCommand::JoinPool { entries }) = gathered(7..=8) else { panic!("a pool") };
        let zero = floor_events::Money::zero(floor_events::Currency::EUR);
        let event = |entry: u32| {
            TournamentEvent::EntryRegistered(floor_events::registration::EntryRegistered {
                entry: EntryNo(entry),
                player: PlayerId::parse(&format!("p{entry}")).unwrap(),
                kind: floor_events::registration::EntryKind::Registration,
                new_player: true,
                ledger: floor_events::tournament::EntryLedger { paid_in: zero, fee: zero, prize_pool: zero },
                at: chrono::Utc::now(),
                ticket: None,
            })
        };
        let caused: Vec<Queued> = [7, 8]
            .into_iter()
            .flat_map(|e| react_to_tournament(a, &event(e), &SeedKey([1; 32])))
            .map(|(id, command)| (a, id, command))
            .collect();
        assert_eq!(split_pool(a, entries, &SeedKey([1; 32])), caused);
    }
}
