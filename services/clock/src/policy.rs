//! Reactions of the clock to the tournament's life: a tournament created with a structure gives
//! its clock that structure; a tournament that starts starts its clock at the same instant; one
//! that ends or is cancelled stops it.
//!
//! And to play's (issue 33), read from the abort log: a suspension holds the clock (pausing it),
//! the resume of play ends the hold (resuming it), a cancellation in play stops it for good.
//! The clock reads these itself, rather than taking them as the director's `pause` and `resume`,
//! so its decider knows a suspension's pause from a director's: only the resume of play ends the
//! one.
//!
//! Each reaction's command id is derived from the tournament and the reaction (a suspension's
//! and a resume's from their instants), so a reaction replayed after a crash, or made by two
//! clock instances, is stored once.

use crate::domain::ClockCommand;
use floor_events::abort::{AbortEvent, SuspendReason};
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
        // Cancelled before its start: the clock never starts (issue 33).
        TournamentEvent::TournamentCancelled(cancelled) => {
            Some((CommandId::derived(&format!("clock-stop-cancelled:{tournament}")), ClockCommand::Stop { at: cancelled.at }))
        }
        _ => None,
    }
}

/// The clock command an abort event calls for, with its id (issue 33). Each takes the event's
/// instant, as the start and the stop do: a late reaction pauses the clock where play stopped.
pub fn react_to_abort(tournament: TournamentId, event: &AbortEvent) -> Option<(CommandId, ClockCommand)> {
    let id =
        |what: &str, at: chrono::DateTime<chrono::Utc>| CommandId::derived(&format!("clock-{what}:{tournament}:{}", at.timestamp_micros()));
    Some(match event {
        AbortEvent::Suspended { reason, at } => (id("suspend", *at), ClockCommand::Suspend { at: *at, reason: pause_reason(reason) }),
        AbortEvent::Resumed { at, .. } => (id("resume-play", *at), ClockCommand::ResumePlay { at: *at }),
        AbortEvent::Cancelled { at, .. } => (id("stop-cancelled", *at), ClockCommand::Stop { at: *at }),
    })
}

/// The reason a suspension's pause shows on the clock ("suspended: …"), cut to what a pause's
/// reason holds.
fn pause_reason(reason: &SuspendReason) -> String {
    let reason = match reason {
        SuspendReason::Director { reason } => format!("suspended: {reason}"),
        SuspendReason::TablesSilent { silent, tables, seconds } => format!("suspended: {silent} of {tables} tables silent for {seconds} s"),
    };
    reason.chars().take(floor_events::text::PAUSE_REASON.max_chars).collect()
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
    use floor_events::tournament::{Start, TournamentDefinition};

    fn definition(structure: Option<BlindStructure>) -> TournamentDefinition {
        TournamentDefinition {
            name: "Daily turbo".into(),
            start: Start::SitAndGo,
            starting_stack: 20_000,
            capacity: 9,
            min_players: 9,
            structure,
            ..TournamentDefinition::example()
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

    /// Issue 33: a suspension holds the clock with the reason the players see, its resume ends
    /// the hold, a cancellation in play stops the clock; each once (ids from the instants).
    #[test]
    fn a_suspension_holds_the_clock_its_resume_ends_the_hold_and_a_cancellation_stops_it() {
        let t = TournamentId::new();
        let at: chrono::DateTime<Utc> = "2026-12-06T18:00:00Z".parse().unwrap();
        let suspended = AbortEvent::Suspended { reason: SuspendReason::Director { reason: "power cut".into() }, at };
        let (id, command) = react_to_abort(t, &suspended).expect("a reaction");
        assert_eq!(command, ClockCommand::Suspend { at, reason: "suspended: power cut".into() });
        assert_eq!(react_to_abort(t, &suspended).map(|(id, _)| id), Some(id), "derived: a replay is the same command");
        let silent = AbortEvent::Suspended { reason: SuspendReason::TablesSilent { silent: 3, tables: 10, seconds: 120 }, at };
        assert!(
            matches!(react_to_abort(t, &silent), Some((_, ClockCommand::Suspend { reason, .. })) if reason == "suspended: 3 of 10 tables silent for 120 s")
        );
        let long = AbortEvent::Suspended { reason: SuspendReason::Director { reason: "x".repeat(500) }, at };
        let Some((_, ClockCommand::Suspend { reason, .. })) = react_to_abort(t, &long) else { panic!("a suspension") };
        assert_eq!(reason.chars().count(), 500, "cut to a pause's reason, never refused for its length");

        let later = at + chrono::Duration::minutes(5);
        let resumed = AbortEvent::Resumed { suspended_at: at, at: later };
        assert_eq!(react_to_abort(t, &resumed).map(|(_, c)| c), Some(ClockCommand::ResumePlay { at: later }));
        assert_ne!(react_to_abort(t, &resumed).map(|(id, _)| id), Some(id));
    }

    #[test]
    fn a_tournament_cancelled_before_its_start_stops_its_clock() {
        use floor_events::registration::{CancellationReason, TournamentCancelled};
        let t = TournamentId::new();
        let at = Utc::now();
        let reason = CancellationReason::Director { reason: "no room".into() };
        let cancelled = TournamentEvent::TournamentCancelled(TournamentCancelled { reason, refunds: vec![], at });
        assert_eq!(react(t, &cancelled).map(|(_, c)| c), Some(ClockCommand::Stop { at }));
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
            shared_by: vec![],
        });
        let (id, command) = react(t, &finished).expect("a reaction");
        assert_eq!(command, ClockCommand::Stop { at });
        assert_eq!(react(t, &finished).map(|(id, _)| id), Some(id), "derived: a replay is the same command");
    }
}
