//! Reactions of registration: the registration saga.
//!
//! Registering a player with limits is two decisions on two aggregates: count the tournament on
//! the player, then take the entry on the tournament. When the second says no, the count taken
//! by the first is released. [`RegistrationSaga`] says which step comes next after each answer;
//! `service.rs` only runs the steps. Every step's command id is derived from the registration's
//! command id, so a retried registration counts and releases at most once.

use crate::limits::PlayerCommand;
use chrono::{DateTime, Utc};
use floor_events::{CommandId, PlayerId, TournamentId};

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
