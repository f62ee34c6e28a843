//! Reactions of seating to the tournament and its clock, and the seeds of its draws.
//!
//! - A tournament created: configure its seating and commit to the seed of its draw (the
//!   commitment is published now, the seed when the seats are drawn).
//! - An entry registered or withdrawn: it joins or leaves the seat pool.
//! - The tournament started: draw the seats.
//! - A level started: its blinds go to every table for the next hand.
//! - A rebuy or add-on bought: its chips go to the entry's table; a rebuy forgone: the entry at
//!   zero is eliminated; the rebuy period over: busted stacks are out at once from now on.
//!
//! Every reaction's command id is derived from what it reacts to, so a replayed reaction is
//! stored once. Seeds are derived from a key kept in the `floor-secrets` bucket: the same on every
//! instance and after every restart, unknowable from the published commitment.

use crate::domain::SeatingCommand;
use crate::draw::{commitment, Seed};
use floor_events::clock::ClockEvent;
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::TournamentEvent;
use floor_events::{CommandId, EntryNo, TournamentId};
use sha2::{Digest, Sha256};

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
        TournamentEvent::TournamentCreated(created) => vec![
            (
                id("configure".into()),
                SeatingCommand::Configure {
                    tournament_id: tournament,
                    table_size: created.definition.table_size,
                    starting_stack: created.definition.starting_stack,
                    rebuys: created.definition.rebuy.is_some(),
                },
            ),
            (id("commit".into()), SeatingCommand::CommitDraw { commitment: commitment(&key.draw(tournament)) }),
        ],
        TournamentEvent::EntryRegistered(e) => {
            vec![(id(format!("join-{}", e.entry.0)), SeatingCommand::Join { entry: e.entry, player: e.player.clone() })]
        }
        TournamentEvent::EntryUnregistered(e) => vec![(id(format!("leave-{}", e.entry.0)), SeatingCommand::Leave { entry: e.entry })],
        TournamentEvent::TournamentStarted(started) => {
            vec![(id("start".into()), SeatingCommand::Start { seed: key.draw(tournament), at: started.at })]
        }
        _ => vec![],
    }
}

/// The blinds a clock event sends to the tables, with the command's id.
pub fn react_to_clock(tournament: TournamentId, event: &ClockEvent) -> Option<(CommandId, SeatingCommand)> {
    let ClockEvent::StepStarted { number, at, blinds: Some(level), .. } = event else { return None };
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
}
