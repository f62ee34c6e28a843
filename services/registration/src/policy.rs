//! Reactions of registration.
//!
//! Registering a player with limits is two decisions on two aggregates: count the tournament on
//! the player, then take the entry on the tournament. When the second says no, the count taken
//! by the first is released. The released command's id is derived from the registration's
//! command id, so a retried registration releases at most once.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_are_stable_and_distinct() {
        let id = CommandId::new();
        assert_eq!(count_command_id(id), count_command_id(id));
        let player = PlayerId::parse("p").unwrap();
        let (release, _) = release_count(id, player, TournamentId::new(), Utc::now());
        assert_ne!(release, count_command_id(id));
        assert_ne!(count_command_id(id), count_command_id(CommandId::new()));
    }
}
