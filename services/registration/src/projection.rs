//! Registration's own read model: which players ever set limits.
//!
//! Most players set none, and checking them would cost every registration a second aggregate
//! round trip; so registration consults the player aggregate only for players in this set. The
//! instance that sets a limit updates its set before replying; other instances learn it from the
//! stream within milliseconds (a documented window).
//!
//! Suspensions are no longer followed here (issue 35): registration's policy records them in
//! the tournament's log and the decider holds registration (`domain.rs`).

use floor_events::player::PlayerEvent;
use floor_events::PlayerId;
use std::collections::HashSet;

/// Players who ever set limits.
#[derive(Debug, Default, Clone)]
pub struct LimitedPlayers {
    players: HashSet<PlayerId>,
}

impl LimitedPlayers {
    /// Folds one player event.
    pub fn apply(&mut self, event: &PlayerEvent) {
        match event {
            PlayerEvent::PlayerLimitsSet(e) => {
                self.players.insert(e.player.clone());
            }
            // Excluded (002 §2.3): every registration asks the player aggregate, which refuses
            // until the exclusion ends.
            PlayerEvent::PlayerExcluded(e) => {
                self.players.insert(e.player.clone());
            }
            _ => {}
        }
    }

    /// Whether registration must check this player's limits.
    pub fn contains(&self, player: &PlayerId) -> bool {
        self.players.contains(player)
    }
}
