//! The player aggregate: responsible-gaming tournament-count limits (002 §2.3).
//!
//! A tournament counts once, at the player's first accepted entry; re-entries into a tournament
//! already counted never hit a limit, so a tournament entered before a limit was reached can be
//! finished. Windows are rolling (24 h, 7 days, 30 days before the registration).

use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::codes;
use floor_events::player::*;
use floor_events::{subjects, PlayerId, TournamentId};
use std::collections::HashMap;

/// The player aggregate.
pub struct PlayerAggregate;

/// What the player aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerCommand {
    /// Set the player's own limits.
    SetLimits {
        /// Who.
        player: PlayerId,
        /// The limits.
        limits: EntryLimits,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Count a tournament the player is entering (no-op when already counted).
    Count {
        /// Who.
        player: PlayerId,
        /// Which tournament.
        tournament_id: TournamentId,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Undo a count whose registration failed (no-op when not counted).
    Uncount {
        /// Who.
        player: PlayerId,
        /// Which tournament.
        tournament_id: TournamentId,
        /// Now.
        at: DateTime<Utc>,
    },
}

/// Why the player aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// A window's limit is reached.
    #[error("{player} has entered {count} tournaments in the last {window}, the limit they set")]
    Reached {
        /// Who.
        player: PlayerId,
        /// "day", "week" or "month".
        window: &'static str,
        /// Tournaments counted in the window.
        count: u32,
    },
    /// Longer windows must allow at least as much as shorter ones.
    #[error("limits must not decrease from day to week to month")]
    Decreasing,
}

impl floor_runtime::DomainError for LimitError {
    fn code(&self) -> &'static str {
        match self {
            LimitError::Reached { .. } => codes::ENTRY_LIMIT_REACHED,
            LimitError::Decreasing => codes::INVALID_LIMITS,
        }
    }
}

/// The player's limits and counted tournaments.
#[derive(Debug, Clone, Default)]
pub struct PlayerState {
    /// Limits in force.
    pub limits: EntryLimits,
    /// Tournament → when it was counted.
    pub counted: HashMap<TournamentId, DateTime<Utc>>,
}

impl PlayerState {
    fn counted_since(&self, since: DateTime<Utc>) -> u32 {
        self.counted.values().filter(|&&t| t > since).count() as u32
    }
}

impl Aggregate for PlayerAggregate {
    const NAME: &'static str = subjects::aggregate::PLAYER;
    type State = PlayerState;
    type Command = PlayerCommand;
    type Event = PlayerEvent;
    type Error = LimitError;

    fn handle_command(state: &PlayerState, command: PlayerCommand) -> Result<Vec<PlayerEvent>, LimitError> {
        match command {
            PlayerCommand::SetLimits { player, limits, at } => {
                let steps = [limits.per_day, limits.per_week, limits.per_month];
                let mut previous = None;
                for limit in steps.into_iter().flatten() {
                    if previous.is_some_and(|p| limit < p) {
                        return Err(LimitError::Decreasing);
                    }
                    previous = Some(limit);
                }
                Ok(vec![PlayerEvent::PlayerLimitsSet(PlayerLimitsSet { player, limits, at })])
            }
            PlayerCommand::Count { player, tournament_id, at } => {
                if state.counted.contains_key(&tournament_id) {
                    return Ok(vec![]);
                }
                let windows = [
                    ("day", Duration::days(1), state.limits.per_day),
                    ("week", Duration::days(7), state.limits.per_week),
                    ("month", Duration::days(30), state.limits.per_month),
                ];
                for (window, length, limit) in windows {
                    let count = state.counted_since(at - length);
                    if limit.is_some_and(|limit| count >= limit) {
                        return Err(LimitError::Reached { player, window, count });
                    }
                }
                Ok(vec![PlayerEvent::TournamentCounted(TournamentCounted { player, tournament_id, at })])
            }
            PlayerCommand::Uncount { player, tournament_id, at } => {
                if !state.counted.contains_key(&tournament_id) {
                    return Ok(vec![]);
                }
                Ok(vec![PlayerEvent::TournamentUncounted(TournamentUncounted { player, tournament_id, at })])
            }
        }
    }

    fn apply_event(mut state: PlayerState, event: PlayerEvent) -> PlayerState {
        match event {
            PlayerEvent::PlayerLimitsSet(e) => state.limits = e.limits,
            PlayerEvent::TournamentCounted(e) => {
                state.counted.insert(e.tournament_id, e.at);
            }
            PlayerEvent::TournamentUncounted(e) => {
                state.counted.remove(&e.tournament_id);
            }
        }
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_runtime::spec::given;

    fn p() -> PlayerId {
        PlayerId::parse("vera").unwrap()
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn limits(per_day: u32) -> PlayerEvent {
        PlayerEvent::PlayerLimitsSet(PlayerLimitsSet {
            player: p(),
            limits: EntryLimits { per_day: Some(per_day), ..Default::default() },
            at: at("2026-12-01T00:00:00Z"),
        })
    }

    fn counted(t: TournamentId, when: &str) -> PlayerEvent {
        PlayerEvent::TournamentCounted(TournamentCounted { player: p(), tournament_id: t, at: at(when) })
    }

    #[test]
    fn a_daily_limit_refuses_the_next_tournament_for_24_hours() {
        // 002 §2.3: the player's own limit on tournaments per day.
        let (first, second) = (TournamentId::new(), TournamentId::new());
        let history = vec![limits(1), counted(first, "2026-12-01T20:00:00Z")];
        let count = |when: &str| PlayerCommand::Count { player: p(), tournament_id: second, at: at(when) };
        given::<PlayerAggregate>(history.clone()).when(count("2026-12-02T19:59:00Z")).then_reject(codes::ENTRY_LIMIT_REACHED);
        given::<PlayerAggregate>(history).when(count("2026-12-02T20:00:01Z")).then(vec![counted(second, "2026-12-02T20:00:01Z")]);
    }

    #[test]
    fn a_tournament_already_entered_can_be_finished_at_the_limit() {
        // 002 §2.3: a tournament entered before the limit was hit may be finished (re-entries
        // into it count nothing new).
        let first = TournamentId::new();
        let history = vec![limits(1), counted(first, "2026-12-01T20:00:00Z")];
        given::<PlayerAggregate>(history)
            .when(PlayerCommand::Count { player: p(), tournament_id: first, at: at("2026-12-01T21:00:00Z") })
            .then(vec![]);
    }

    #[test]
    fn limits_must_not_shrink_from_day_to_month() {
        let limits = EntryLimits { per_day: Some(5), per_week: Some(3), per_month: None };
        given::<PlayerAggregate>(vec![])
            .when(PlayerCommand::SetLimits { player: p(), limits, at: at("2026-12-01T00:00:00Z") })
            .then_reject(codes::INVALID_LIMITS);
    }

    #[test]
    fn releasing_a_count_frees_the_place() {
        let first = TournamentId::new();
        let history = vec![
            limits(1),
            counted(first, "2026-12-01T20:00:00Z"),
            PlayerEvent::TournamentUncounted(TournamentUncounted { player: p(), tournament_id: first, at: at("2026-12-01T20:00:01Z") }),
        ];
        given::<PlayerAggregate>(history)
            .when(PlayerCommand::Count { player: p(), tournament_id: TournamentId::new(), at: at("2026-12-01T21:00:00Z") })
            .accepted();
    }
}
