//! The read model the `bracket` verb answers from: every shootout's rounds, as its aggregate's
//! log leaves them. A pure fold, kept in the shootouts policy's memory (so snapshotted with it,
//! [`crate::policy::Memory`]).

use crate::domain::{ShootoutAggregate, ShootoutState};
use esrs::Aggregate;
use floor_events::shootouts::{Bracket, ShootoutEvent};
use floor_events::TournamentId;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Every shootout's rounds.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Brackets {
    #[serde(with = "floor_runtime::snapshot::pairs")]
    shootouts: HashMap<TournamentId, ShootoutState>,
}

impl Brackets {
    /// Folds one commit of shootout `t`.
    pub fn apply(&mut self, t: TournamentId, events: &[ShootoutEvent]) {
        let state = self.shootouts.remove(&t).unwrap_or_default();
        let state = events.iter().cloned().fold(state, ShootoutAggregate::apply_event);
        self.shootouts.insert(t, state);
    }

    /// Shootout `t`'s bracket: every round so far, first first. `None` before its first round.
    pub fn bracket(&self, t: TournamentId) -> Option<Bracket> {
        self.shootouts.get(&t).map(|s| Bracket { tournament_id: t, rounds: s.rounds.clone() })
    }
}
