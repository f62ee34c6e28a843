//! Tests: the balancing rules a tournament runs under come from its profile, or from its own
//! `seating` section (issue 38), and reach the decider through `seating_configured`.

use super::*;
use crate::policy::{react_to_tournament, SeedKey};
use floor_events::profile::{Balance, Mover as ProfileMover, RuleProfile, SeatingSettings};
use floor_events::registration::{TournamentCreated, TournamentEvent};
use floor_events::tournament::TournamentDefinition;

/// The rules seating balances by once the tournament is created from `definition`.
fn configured(definition: TournamentDefinition) -> Rules {
    let t = TournamentId::new();
    let created = TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition, at: chrono::Utc::now() });
    let mut state = SeatingState::default();
    for (_, command) in react_to_tournament(t, &created, &SeedKey([5; 32])) {
        for event in SeatingAggregate::handle_command(&state, command).expect("configured") {
            state = SeatingAggregate::apply_event(state, event);
        }
    }
    state.rules()
}

/// Given a tournament under TDA 2024, then its tables are balanced when three short (R11-D) by
/// the player due the big blind (R11-A); under REEL (003 App. 1 b i, PokerStars' practice),
/// within one by the least moved; under Svenska Spel, within one by the player due the big
/// blind; and a definition's own `seating` section wins over its profile's.
#[test]
fn a_tournament_balances_by_its_profile_s_rules_or_its_own_choice() {
    let under = |profile| TournamentDefinition { profile, ..TournamentDefinition::example() };
    let when_mover = |r: Rules| (r.when, r.mover);
    assert_eq!(when_mover(configured(under(RuleProfile::Tda2024))), (BalanceWhen::ThreeShort, Mover::DueBigBlind));
    assert_eq!(when_mover(configured(under(RuleProfile::ReelCz))), (BalanceWhen::DifferenceAboveOne, Mover::LeastMoved));
    assert_eq!(when_mover(configured(under(RuleProfile::SvenskaSpel2012))), (BalanceWhen::DifferenceAboveOne, Mover::DueBigBlind));
    let own = SeatingSettings { balance: Some(Balance::DifferenceAboveOne), mover: Some(ProfileMover::LeastMoved) };
    let chosen = TournamentDefinition { seating: Some(own), ..under(RuleProfile::Tda2024) };
    assert_eq!(when_mover(configured(chosen)), (BalanceWhen::DifferenceAboveOne, Mover::LeastMoved));
}

/// A log stored before a tournament could choose names no rules: it keeps balancing within
/// one, the player due the big blind moving, as it did when it was stored.
#[test]
fn a_log_from_before_the_choice_keeps_balancing_within_one() {
    let old = serde_json::json!({
        "type": "seating_configured", "tournament_id": TournamentId::new(), "table_size": 9, "starting_stack": 1000
    });
    let event: SeatingEvent = serde_json::from_value(old).expect("an old seating_configured reads");
    let state = SeatingAggregate::apply_event(SeatingState::default(), event);
    assert_eq!((state.rules().when, state.rules().mover), (BalanceWhen::DifferenceAboveOne, Mover::DueBigBlind));
}
