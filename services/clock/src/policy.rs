//! Reactions of the clock to the tournament's life: a tournament created with a structure gives
//! its clock that structure; a tournament that starts starts its clock at the same instant.
//!
//! Each reaction's command id is derived from the tournament and the reaction, so a reaction
//! replayed after a crash, or made by two clock instances, is stored once.

use crate::domain::ClockCommand;
use floor_events::registration::TournamentEvent;
use floor_events::{CommandId, TournamentId};

/// The clock command a tournament event calls for, with its id.
pub fn react(tournament: TournamentId, event: &TournamentEvent) -> Option<(CommandId, ClockCommand)> {
    match event {
        TournamentEvent::TournamentCreated(created) => {
            let structure = floor_rules::structure::resolve(created.definition.structure.as_ref()?).ok()?;
            Some((CommandId::derived(&format!("clock-structure:{tournament}")), ClockCommand::SetStructure { structure }))
        }
        // The clock starts at the tournament's start instant, even when this reaction runs late
        // (a restarted service): steps already due then start at their scheduled instants.
        TournamentEvent::TournamentStarted(started) => {
            Some((CommandId::derived(&format!("clock-start:{tournament}")), ClockCommand::Start { at: started.at }))
        }
        // The winner is known: the clock stops at that instant (issue 19).
        TournamentEvent::TournamentFinished(finished) => {
            Some((CommandId::derived(&format!("clock-stop:{tournament}")), ClockCommand::Stop { at: finished.at }))
        }
        _ => None,
    }
}

/// The command id of the timer tick that ends a step due at `due`: two instances ticking the
/// same step change store it once.
pub fn tick_command_id(tournament: TournamentId, due: chrono::DateTime<chrono::Utc>) -> CommandId {
    CommandId::derived(&format!("clock-tick:{tournament}:{}", due.timestamp_millis()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use floor_events::clock::{BlindStructure, Preset};
    use floor_events::registration::{StartCause, TournamentCreated, TournamentStarted};
    use floor_events::tournament::{EntryModel, Fee, Start, TournamentDefinition};
    use floor_events::{Currency, Money, RuleProfile};

    fn definition(structure: Option<BlindStructure>) -> TournamentDefinition {
        TournamentDefinition {
            name: "Daily turbo".into(),
            start: Start::SitAndGo,
            table_size: 9,
            starting_stack: 20_000,
            buy_in: Money::new(1_000, Currency::EUR),
            fee: Fee::OnTop(Money::new(100, Currency::EUR)),
            capacity: 9,
            min_players: 9,
            registration_opens: None,
            late_registration_until: None,
            entry_model: EntryModel::Freezeout,
            guarantee: None,
            profile: RuleProfile::Tda2024,
            structure,
            rebuy: None,
            add_on: None,
            payout_table: None,
            hand_for_hand: None,
            bounty: None,
        }
    }

    #[test]
    fn a_created_tournament_with_a_structure_gives_it_to_its_clock_once() {
        let t = TournamentId::new();
        let with_structure = definition(Some(BlindStructure::Preset(Preset::Turbo)));
        let created =
            TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition: with_structure, at: Utc::now() });
        let (id, command) = react(t, &created).expect("a reaction");
        assert!(matches!(command, ClockCommand::SetStructure { .. }));
        assert_eq!(react(t, &created).unwrap().0, id, "the same reaction has the same id");
        let plain =
            TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition: definition(None), at: Utc::now() });
        assert_eq!(react(t, &plain), None, "no structure, nothing to give");
    }

    #[test]
    fn the_clock_starts_at_the_tournament_start_instant() {
        let t = TournamentId::new();
        let at = "2026-12-06T18:00:00Z".parse().unwrap();
        let started = TournamentEvent::TournamentStarted(TournamentStarted { entries: 9, cause: StartCause::LastSeatFilled, at });
        assert_eq!(react(t, &started).map(|(_, c)| c), Some(ClockCommand::Start { at }));
        assert_ne!(react(t, &started).unwrap().0, react(TournamentId::new(), &started).unwrap().0);
    }

    #[test]
    fn the_end_of_the_tournament_stops_its_clock_once() {
        use floor_events::registration::TournamentFinished;
        let t = TournamentId::new();
        let at = Utc::now();
        let finished = TournamentEvent::TournamentFinished(TournamentFinished {
            winner: floor_events::EntryNo(3),
            player: floor_events::PlayerId::parse("ana").unwrap(),
            at,
        });
        let (id, command) = react(t, &finished).expect("a reaction");
        assert_eq!(command, ClockCommand::Stop { at });
        assert_eq!(react(t, &finished).map(|(id, _)| id), Some(id), "derived: a replay is the same command");
    }
}
