//! Flights (issue 36; 004 §4.36.11–13): tournaments that feed a tournament, as satellites do. The
//! carry policy, pure: read from the log, it says which Day 1 survivors go on to their Day 2 and
//! with what stack, each as one order with an id derived from the Day 1 and the entry, so a
//! restart or a re-read never carries twice.
//!
//! - registration: a tournament created with a `flight` section is a Day 1 of its `day2`; a
//!   Day 1's `tournament_finished` with `shared_by` (registration's stop at its share) carries
//!   every survivor (a Day 2 that has started refuses them: `tournament_started`).
//! - seating: a Day 1 entry's stack is the last seating recorded for it (`entry_joined`, then
//!   each `hand_started` and `hand_finished` that names it). Seating's report of the stop's hand
//!   is stored before registration's elimination that stops the Day 1 (registration eliminates
//!   on seating's word), so the stacks are known when the finish is read. A survivor with no
//!   chips (out in the stop's hand, its elimination reaching registration after the stop) is
//!   not carried.
//!
//! The orders ([`CarryOrder`]) are registration's service-only `register_carried`, one per
//! survivor with chips, **per Day 1 as it finishes**: the Day 2's registration applies the
//! carry rule itself (`floor_rules::flight::carry_onto`) to what it has recorded of the player,
//! so a Day 1 finishing later still counts for best stack forward and stack builder, and the
//! outcome does not depend on which order the policy read the Day 1s in (first stack forward:
//! the first the Day 2 recorded). The service runs them on its own checkpointed runner
//! ([`POLICY_NAME`]); a restart re-reads from the checkpoint and re-sends with the same derived
//! ids, which registration answers from its history. A refusal (the Day 2 started, closed or
//! full: its code) is final and logged: the stack is not carried.

use floor_events::commit::Events;
use floor_events::flights::{FlightTerms, RegisterCarried};
use floor_events::registration::{self, TournamentEvent};
use floor_events::seating::SeatingEvent;
use floor_events::{subjects, CommandId, EntryNo, TournamentId};
use floor_runtime::policy::{PolicyConfig, PolicyRunner, Stored};
use floor_runtime::{CommandErrorKind, Commands, RETRY};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use tokio_util::sync::CancellationToken;

/// The flights policy's name: its snapshot, checkpoint key and health record.
pub const POLICY_NAME: &str = "flights-policy";

/// The shape of [`FlightPolicy`] in snapshots.
const MEMORY_VERSION: &str = "flights-1";

/// What the flights policy reads: registration (Day 1s, their stops) and seating (their stacks).
pub fn filters() -> Vec<String> {
    use subjects::aggregate::{SEATING, TOURNAMENT};
    [TOURNAMENT, SEATING].iter().map(|a| subjects::event_filter(a)).collect()
}

/// How the flights policy runs.
pub fn policy_config() -> PolicyConfig {
    PolicyConfig::new(POLICY_NAME, MEMORY_VERSION, filters())
}

/// One carry: registration's `register_carried` for the Day 2 (`request.tournament_id`).
pub type CarryOrder = RegisterCarried;

/// The command id of one Day 1 entry's carry.
pub fn carry_id(day1: TournamentId, entry: EntryNo) -> CommandId {
    CommandId::derived(&format!("flights-carry:{day1}:{}", entry.0))
}

/// Each entry's stack as seating last recorded it, folded from `events`: `entry_joined`, then
/// every `hand_started` and `hand_finished` that names it; zero at `stack_reached_zero` or its
/// elimination. What a Day 1 survivor carries (and, in `floor sim`, who is a survivor).
pub fn fold_stacks(stacks: &mut HashMap<EntryNo, u64>, events: &[SeatingEvent]) {
    for event in events {
        match event {
            SeatingEvent::EntryJoined { entry, stack, .. } => {
                stacks.insert(*entry, *stack);
            }
            SeatingEvent::HandStarted { stacks: seen, .. } | SeatingEvent::HandFinished { stacks: seen, .. } => {
                stacks.extend(seen.iter().map(|s| (s.entry, s.chips)));
            }
            SeatingEvent::StackReachedZero { entry, .. } | SeatingEvent::EntryEliminated { entry, .. } => {
                stacks.insert(*entry, 0);
            }
            _ => {}
        }
    }
}

/// The policy's memory: each Day 1's terms and its entries' last stacks (dropped once it
/// finished or was cancelled).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlightPolicy {
    #[serde(with = "floor_runtime::snapshot::pairs")]
    day1s: HashMap<TournamentId, FlightTerms>,
    #[serde(with = "floor_runtime::snapshot::pairs")]
    stacks: HashMap<TournamentId, HashMap<EntryNo, u64>>,
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
                    }
                }
                TournamentEvent::TournamentCancelled(_) => {
                    self.stacks.remove(&id);
                }
                TournamentEvent::TournamentFinished(finished) if !finished.shared_by.is_empty() => {
                    let Some(terms) = self.day1s.get(&id).copied() else { continue };
                    let stacks = self.stacks.remove(&id).unwrap_or_default();
                    for survivor in &finished.shared_by {
                        let chips = stacks.get(&survivor.entry).copied().unwrap_or(0);
                        if chips == 0 {
                            continue;
                        }
                        orders.push(RegisterCarried {
                            command_id: carry_id(id, survivor.entry),
                            tournament_id: terms.day2,
                            player: survivor.player.clone(),
                            day1: id,
                            day1_entry: survivor.entry,
                            chips,
                            carry: terms.carry,
                        });
                    }
                }
                _ => {}
            }
        }
        orders
    }

    /// Whether `id` is a Day 1 whose stacks are followed.
    pub fn follows(&self, id: TournamentId) -> bool {
        self.day1s.contains_key(&id)
    }

    /// A seating commit of tournament `id`: a Day 1's stacks, as reported.
    pub fn on_seating(&mut self, id: TournamentId, events: &[SeatingEvent]) {
        if !self.day1s.contains_key(&id) {
            return;
        }
        fold_stacks(self.stacks.entry(id).or_default(), events);
    }

    /// The Day 2 of a Day 1 and its terms, once its creation is read.
    pub fn terms_of(&self, day1: TournamentId) -> Option<FlightTerms> {
        self.day1s.get(&day1).copied()
    }
}

impl floor_runtime::policy::Policy for FlightPolicy {
    type Order = CarryOrder;

    fn react(&mut self, commit: Stored<'_>) -> Vec<CarryOrder> {
        // Seating's commits of tournaments that are no Day 1 are not decoded (most of the log).
        if let Some((subjects::aggregate::SEATING, id)) = subjects::parse_event_subject(commit.subject) {
            if !self.follows(TournamentId(id)) {
                return vec![];
            }
        }
        let Some(decoded) = commit.commit("flights") else { return vec![] };
        let t = decoded.tournament();
        match &decoded.events {
            Events::Tournament(e) => self.on_tournament(t, e),
            Events::Seating(e) => {
                self.on_seating(t, e);
                vec![]
            }
            _ => vec![],
        }
    }
}

/// Starts the flights policy on its checkpointed runner and runs its orders until `shutdown`:
/// each carry sent to registration until answered (a refusal is final, logged).
///
/// # Errors
/// When the stream cannot be read.
pub async fn start(
    backbone: &floor_runtime::Backbone,
    tracker: &tokio_util::task::TaskTracker,
    shutdown: CancellationToken,
) -> Result<(), floor_runtime::projection::ProjectionError> {
    let started = PolicyRunner::<FlightPolicy>::start(backbone, policy_config()).await?;
    let commands = Commands::new(backbone.client.clone());
    tracker.spawn(async move {
        let (runner, owed) = (started.runner, started.owed);
        runner.drive(owed, &shutdown.clone(), |order| carry(&commands, order, &shutdown)).await;
    });
    Ok(())
}

/// Sends one carry until registration answers. `false` on shutdown.
async fn carry(commands: &Commands, order: CarryOrder, shutdown: &CancellationToken) -> bool {
    let (day1, entry, day2) = (order.day1, order.day1_entry, order.tournament_id);
    match commands.send_until_answered(registration::verbs::REGISTER_CARRIED, &order, RETRY, shutdown).await {
        None => false,
        Some(Ok(_)) => true,
        Some(Err(e)) => {
            match e.kind() {
                CommandErrorKind::Rejected(body) => {
                    tracing::warn!(%day1, entry = entry.0, %day2, code = body.code, "a Day 1 stack not carried: {}", body.message)
                }
                _ => tracing::error!(%day1, entry = entry.0, %day2, error = %e, "registration's answer to a carry not understood"),
            }
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::flights::Carry;
    use floor_events::registration::{Survivor as Left, TournamentCreated, TournamentFinished};
    use floor_events::table::SeatStack;
    use floor_events::tournament::TournamentDefinition;
    use floor_events::PlayerId;

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

    /// Given three Day 1s of one Day 2 at best stack forward, "ana" surviving all three (30,000,
    /// 50,000, 20,000): when each finishes, then each of her stacks is sent to the Day 2 with
    /// the rule (registration applies it), each order's id its Day 1 and entry's.
    #[test]
    fn each_day1_sends_its_survivors_stacks_with_the_rule() {
        let (mut policy, day2) = (FlightPolicy::default(), TournamentId::new());
        let [a, b, c] = [TournamentId::new(), TournamentId::new(), TournamentId::new()];
        for day1 in [a, b, c] {
            policy.on_tournament(day1, &[created(day2, Carry::BestStack)]);
        }
        let orders = finish(&mut policy, a, &[(3, "ana", 30_000), (5, "bo", 12_000)]);
        let sent: Vec<(String, u64)> = orders.iter().map(|o| (o.player.to_string(), o.chips)).collect();
        assert_eq!(sent, [("ana".to_owned(), 30_000), ("bo".to_owned(), 12_000)]);
        assert_eq!((orders[0].command_id, orders[0].tournament_id, orders[0].carry), (carry_id(a, EntryNo(3)), day2, Carry::BestStack));
        assert_eq!((orders[0].day1, orders[0].day1_entry), (a, EntryNo(3)));
        assert_eq!(finish(&mut policy, b, &[(7, "ana", 50_000)])[0].chips, 50_000);
        assert_eq!(finish(&mut policy, c, &[(1, "ana", 20_000)])[0].command_id, carry_id(c, EntryNo(1)));
    }

    /// A survivor whose stack the tables report at zero (out in the stop's hand) is not
    /// carried; a tournament that is no Day 1 carries nothing; a finish read again after its
    /// stacks were dropped carries nothing more.
    #[test]
    fn a_survivor_without_chips_or_no_day1_carries_nothing() {
        let (mut policy, day2) = (FlightPolicy::default(), TournamentId::new());
        let day1 = TournamentId::new();
        policy.on_tournament(day1, &[created(day2, Carry::StackBuilder)]);
        assert_eq!(finish(&mut policy, day1, &[(1, "ana", 10_000), (2, "bo", 0)]).len(), 1);
        assert!(finish(&mut FlightPolicy::default(), TournamentId::new(), &[(1, "ana", 10_000)]).is_empty());
        assert!(!policy.follows(TournamentId::new()));
        assert_eq!(policy.terms_of(day1).map(|t| t.day2), Some(day2));
    }

    /// The memory survives its snapshot (the runner stores it as JSON).
    #[test]
    fn the_memory_reads_back_from_its_snapshot() {
        let (mut policy, day2) = (FlightPolicy::default(), TournamentId::new());
        let day1 = TournamentId::new();
        policy.on_tournament(day1, &[created(day2, Carry::FirstStack)]);
        policy.on_seating(day1, &[SeatingEvent::EntryJoined { entry: EntryNo(1), player: p("ana"), stack: 10_000 }]);
        let json = serde_json::to_string(&policy).unwrap();
        assert_eq!(serde_json::from_str::<FlightPolicy>(&json).unwrap(), policy);
    }
}
