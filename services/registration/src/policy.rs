//! Reactions of registration: the registration saga.
//!
//! Registering a player with limits is two decisions on two aggregates: count the tournament on
//! the player, then take the entry on the tournament. When the second says no, the count taken
//! by the first is released. [`RegistrationSaga`] says which step comes next after each answer;
//! `service.rs` only runs the steps. Every step's command id is derived from the registration's
//! command id, so a retried registration counts and releases at most once.
//!
//! [`ClosingPolicy`]: when registration closes, from the clock's and the abort service's logs,
//! and when it holds: the abort service's suspensions and resumes (issue 35).

use crate::domain::TournamentCommand;
use crate::limits::PlayerCommand;
use chrono::{DateTime, Utc};
use floor_events::abort::AbortEvent;
use floor_events::clock::ClockEvent;
use floor_events::commit::Events;
use floor_events::registration::RegistrationCloseCause;
use floor_events::{subjects, CommandId, PlayerId, TournamentId};

/// The command id of the count taken for a registration.
pub fn count_command_id(registration: CommandId) -> CommandId {
    CommandId::derived(&format!("count:{registration}"))
}

/// When the tournament refused an entry whose count was newly taken: the command that gives it
/// back, with its id.
pub fn release_count(
    registration: CommandId,
    player: PlayerId,
    tournament_id: TournamentId,
    at: DateTime<Utc>,
) -> (CommandId, PlayerCommand) {
    (CommandId::derived(&format!("uncount:{registration}")), PlayerCommand::Uncount { player, tournament_id, at })
}

/// A registration in progress, as a pure state machine: each answer in, the next step out.
#[derive(Debug, Clone, PartialEq)]
pub struct RegistrationSaga {
    registration: CommandId,
    player: PlayerId,
    tournament_id: TournamentId,
    at: DateTime<Utc>,
    /// The player's count was taken by this registration (not by an earlier try of it).
    newly_counted: bool,
}

/// What the saga does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Count the tournament against the player's limits (this id, this command).
    Count(CommandId, PlayerCommand),
    /// Take the entry on the tournament (with the registration's own command id).
    Register,
    /// Give the count back: the tournament refused the entry.
    Release(CommandId, PlayerCommand),
    /// Nothing more: answer the registration's outcome.
    Done,
}

impl RegistrationSaga {
    /// A registration of `player` for `tournament_id` at `at`, and its first step: a count when
    /// the player has limits, otherwise the entry.
    pub fn start(
        registration: CommandId,
        player: PlayerId,
        tournament_id: TournamentId,
        at: DateTime<Utc>,
        has_limits: bool,
    ) -> (Self, Step) {
        let saga = Self { registration, player, tournament_id, at, newly_counted: false };
        let first = if has_limits {
            let count = PlayerCommand::Count { player: saga.player.clone(), tournament_id, at };
            Step::Count(count_command_id(registration), count)
        } else {
            Step::Register
        };
        (saga, first)
    }

    /// The time the registration is stamped with.
    pub fn at(&self) -> DateTime<Utc> {
        self.at
    }

    /// The count was stored: `newly` when this registration took it (not a retry answered from
    /// history, not a tournament counted before). The entry comes next.
    pub fn counted(&mut self, newly: bool) -> Step {
        self.newly_counted = newly;
        Step::Register
    }

    /// The tournament answered: a refusal releases a count this registration took.
    pub fn registered(&self, accepted: bool) -> Step {
        if accepted || !self.newly_counted {
            return Step::Done;
        }
        let (id, release) = release_count(self.registration, self.player.clone(), self.tournament_id, self.at);
        Step::Release(id, release)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player() -> PlayerId {
        PlayerId::parse("p").unwrap()
    }

    #[test]
    fn derived_ids_are_stable_and_distinct() {
        let id = CommandId::new();
        assert_eq!(count_command_id(id), count_command_id(id));
        let (release, _) = release_count(id, player(), TournamentId::new(), Utc::now());
        assert_ne!(release, count_command_id(id));
        assert_ne!(count_command_id(id), count_command_id(CommandId::new()));
    }

    #[test]
    fn a_player_without_limits_is_registered_at_once_and_nothing_follows() {
        let (saga, first) = RegistrationSaga::start(CommandId::new(), player(), TournamentId::new(), Utc::now(), false);
        assert_eq!(first, Step::Register);
        assert_eq!(saga.registered(false), Step::Done, "no count was taken, so none is released");
    }

    #[test]
    fn given_limits_when_the_tournament_refuses_then_the_new_count_is_released_once() {
        let (id, t, at) = (CommandId::new(), TournamentId::new(), Utc::now());
        let (mut saga, first) = RegistrationSaga::start(id, player(), t, at, true);
        assert_eq!(first, Step::Count(count_command_id(id), PlayerCommand::Count { player: player(), tournament_id: t, at }));
        assert_eq!(saga.counted(true), Step::Register);
        let (release_id, release) = release_count(id, player(), t, at);
        assert_eq!(saga.registered(false), Step::Release(release_id, release));
        assert_eq!(saga.registered(true), Step::Done, "an accepted entry keeps its count");
    }

    #[test]
    fn given_limits_when_the_count_was_taken_before_then_a_refusal_releases_nothing() {
        // A retried registration, or a tournament this player already counted: the count is not
        // this registration's to give back.
        let (mut saga, _) = RegistrationSaga::start(CommandId::new(), player(), TournamentId::new(), Utc::now(), true);
        assert_eq!(saga.counted(false), Step::Register);
        assert_eq!(saga.registered(false), Step::Done);
    }
}

/// The name of registration's policy: its snapshot, checkpoint key and health record.
pub const CLOSING_POLICY: &str = "registration-policy";

/// The policy's snapshot version. It keeps no memory, but what it reacts to changed: `-2` (issue
/// 35) reads suspensions and resumes too, so a store whose snapshot is `-1` reads its abort and
/// clock logs again from the start once (the closes it sent before are answered from the
/// tournaments' histories), and a tournament suspended at the upgrade is held.
pub const CLOSING_POLICY_MEMORY: &str = "registration-policy-2";

/// One command registration's policy calls for: the tournament, the command id derived from
/// its cause, the command.
pub type Order = (TournamentId, CommandId, TournamentCommand);

/// Registration's reactions to other services' logs (issue 33, defect 1): the clock's end of
/// the late-registration level and a cancellation in play close registration on the tournament
/// aggregate, so the field closes in the same log as the entries and every reader (payouts'
/// lock, the lobby, abort, rebuys) sees every entry before the close. No memory: each cause
/// comes once per tournament, and the command id derived from it stores it once.
///
/// Issue 35: the abort service's `suspended` and `resumed` become `suspend` and `resume` on
/// the tournament, so the decider holds registration from its own log (as rebuys does). Their
/// ids are derived from the suspension's instant (a tournament may be suspended many times;
/// each suspension once), so reading the log again stores nothing new.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClosingPolicy;

impl floor_runtime::policy::Policy for ClosingPolicy {
    type Order = Order;

    fn react(&mut self, commit: floor_runtime::commits::Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit(CLOSING_POLICY) else { return vec![] };
        // The abort service stores one event per commit: a suspension, a resume or a
        // cancellation, so a commit calls for closes or holds, never both.
        let mut orders = closes(decoded.tournament(), &decoded.events);
        orders.extend(holds(decoded.tournament(), &decoded.events));
        orders
    }
}

/// The holds a commit of the abort service calls for (issue 35): its suspension becomes
/// `suspend` on the tournament, its resume `resume`. Ids from the suspension's instant: a
/// tournament may be suspended many times, each suspension and its resume once.
pub fn holds(tournament: TournamentId, events: &Events) -> Vec<Order> {
    let Events::Abort(events) = events else { return vec![] };
    let id =
        |what: &str, since: &DateTime<Utc>| CommandId::derived(&format!("registration-{what}-{}:{tournament}", since.timestamp_micros()));
    events
        .iter()
        .filter_map(|e| match e {
            AbortEvent::Suspended { at, .. } => Some((tournament, id("suspend", at), TournamentCommand::Suspend { at: *at })),
            AbortEvent::Resumed { suspended_at, at } => {
                Some((tournament, id("resume", suspended_at), TournamentCommand::Resume { at: *at }))
            }
            AbortEvent::Cancelled { .. } => None,
        })
        .collect()
}

/// The closes a commit of another aggregate calls for.
pub fn closes(tournament: TournamentId, events: &Events) -> Vec<Order> {
    let close = |cause: RegistrationCloseCause, at: DateTime<Utc>| {
        let id = CommandId::derived(&format!("close-registration:{tournament}:{cause:?}"));
        (tournament, id, TournamentCommand::CloseRegistration { cause, at })
    };
    match events {
        Events::Clock(events) => events
            .iter()
            .filter_map(|e| match e {
                ClockEvent::LateRegistrationClosed { at } => Some(close(RegistrationCloseCause::LateRegistrationLevel, *at)),
                _ => None,
            })
            .collect(),
        Events::Abort(events) => events
            .iter()
            .filter_map(|e| match e {
                AbortEvent::Cancelled { at, .. } => Some(close(RegistrationCloseCause::PlayCancelled, *at)),
                _ => None,
            })
            .collect(),
        _ => vec![],
    }
}

/// The subjects registration's policy reads.
pub fn closing_filters() -> Vec<String> {
    [subjects::aggregate::CLOCK, subjects::aggregate::ABORT].into_iter().map(subjects::event_filter).collect()
}
