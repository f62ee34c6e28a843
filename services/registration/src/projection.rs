//! Registration's own read models: which players ever set limits, which tournaments are
//! suspended.
//!
//! Most players set none, and checking them would cost every registration a second aggregate
//! round trip; so registration consults the player aggregate only for players in this set. The
//! instance that sets a limit updates its set before replying; other instances learn it from the
//! stream within milliseconds (a documented window).
//!
//! A suspended tournament holds registration (issue 22): no entry is sold or refunded until the
//! director resumes. Registration learns of a suspension from the abort log within milliseconds
//! of its commit; a registration decided in that window stands, as one decided a moment before
//! the director's command would.

use floor_events::abort::AbortEvent;
use floor_events::player::PlayerEvent;
use floor_events::{PlayerId, TournamentId};
use std::collections::HashSet;

/// Players who ever set limits.
#[derive(Debug, Default, Clone)]
pub struct LimitedPlayers {
    players: HashSet<PlayerId>,
}

impl LimitedPlayers {
    /// Folds one player event.
    pub fn apply(&mut self, event: &PlayerEvent) {
        if let PlayerEvent::PlayerLimitsSet(e) = event {
            self.players.insert(e.player.clone());
        }
    }

    /// Whether registration must check this player's limits.
    pub fn contains(&self, player: &PlayerId) -> bool {
        self.players.contains(player)
    }
}

/// Tournaments whose play is suspended.
#[derive(Debug, Default, Clone)]
pub struct Suspensions {
    suspended: HashSet<TournamentId>,
}

impl Suspensions {
    /// Folds one event of `tournament`'s abort log.
    pub fn apply(&mut self, tournament: TournamentId, event: &AbortEvent) {
        match event {
            AbortEvent::Suspended { .. } => {
                self.suspended.insert(tournament);
            }
            AbortEvent::Resumed { .. } | AbortEvent::Cancelled { .. } => {
                self.suspended.remove(&tournament);
            }
        }
    }

    /// Whether `tournament`'s play is suspended.
    pub fn holds(&self, tournament: TournamentId) -> bool {
        self.suspended.contains(&tournament)
    }
}
