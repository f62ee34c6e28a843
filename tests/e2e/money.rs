//! Issue 33: the ways money was lost, each reproduced as a user would meet it, through the
//! platform's own commands and the table protocol.

use floor_events::clock::{verbs as clock_verbs, BlindStructure, ClockEvent, Preset, SkipToLevel};
use floor_events::payouts::PayoutEvent;
use floor_events::registration::{verbs, RegistrationCloseCause, StartTournament, TournamentEvent};
use floor_events::tournament::TournamentDefinition;
use floor_events::{codes, subjects, CommandId, Reply};
use floor_tests::{freezeout, refusal_code, World};

/// Defect 1: the definition's deadline (tomorrow) outlived the structure's late-registration
/// level (level 6 of the standard preset). Skipping to level 7 used to leave registration open
/// while payouts locked its table: entries were sold into a pool the locked table never paid.
/// Now the end of the level closes registration in registration's own log, the next entry is
/// refused, and the table locks with every entry sold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_the_late_registration_level_closes_registration_and_the_locked_table_holds_every_entry() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let base = freezeout(100);
    let start = base.scheduled_start().expect("scheduled");
    let definition = TournamentDefinition {
        late_registration_until: Some(start + chrono::Duration::days(1)),
        structure: Some(BlindStructure::Preset(Preset::Standard)),
        guarantee: None,
        ..base
    };
    let t = world.create(definition).await;
    let mut tournament = world.watch_events::<TournamentEvent>(subjects::aggregate::TOURNAMENT, t).await;
    let mut payouts = world.watch_events::<PayoutEvent>(subjects::aggregate::PAYOUTS, t).await;
    let mut clock = world.watch_clock(t).await;
    for player in ["ana", "ben", "cleo"] {
        assert!(matches!(world.register(t, player).await, Reply::Ok(_)), "{player} registers");
    }
    let start_now = StartTournament { command_id: CommandId::new(), tournament_id: t, now: true };
    assert!(matches!(world.send(verbs::START_TOURNAMENT.name(), &start_now).await, Reply::Ok(_)));
    clock.next_where(|e| matches!(e, ClockEvent::StepStarted { .. })).await;
    assert!(matches!(world.register(t, "dora").await, Reply::Ok(_)), "late registration is open at level 1");

    let skip = SkipToLevel { command_id: CommandId::new(), tournament_id: t, level: 7 };
    let reply = world.request(subjects::service::CLOCK, clock_verbs::SKIP_TO_LEVEL.name(), &skip).await;
    assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
    clock.next_where(|e| matches!(e, ClockEvent::LateRegistrationClosed { .. })).await;
    let closed = tournament.next_where(|e| matches!(e, TournamentEvent::RegistrationClosed(_))).await;
    let TournamentEvent::RegistrationClosed(closed) = closed else { unreachable!() };
    assert_eq!(closed.cause, RegistrationCloseCause::LateRegistrationLevel);

    let reply = world.register(t, "eve").await;
    assert_eq!(refusal_code(&reply), codes::REGISTRATION_CLOSED, "before the deadline, after the level: {reply:?}");
    let locked = payouts.next_where(|e| matches!(e, PayoutEvent::PayoutTableLocked { .. })).await;
    let PayoutEvent::PayoutTableLocked { entries, contributions, pool, .. } = locked else { unreachable!() };
    assert_eq!((entries, contributions.amount, pool.amount), (4, 4_000, 4_000), "every entry sold is in the locked table");
}
