//! The tournament a run creates and how its field comes in: the simulator's own definition
//! ([`own`]) or one from a file (`floor sim --definition`, issue 33), moved to now
//! ([`moved_to_now`]); and the [`Plan`]: who registers before the start, who during play, the
//! level whose skip closes late registration, and what the players buy.
//!
//! A file's definition is played as written (format, structure, profile, payout table,
//! hand-for-hand or none, bounties, rebuys, entry model); only its times move, since an example
//! is scheduled on a fixed date. With late registration (and lockstep rounds), about two thirds
//! of the field, at least `min_players`, registers before the start, and the rest during play
//! ([`super::late`]).

use super::{SimConfig, LARGEST_SIT_AND_GO};
use chrono::{DateTime, Utc};
use floor_events::bubble::{HandForHandClock, HandForHandSettings, Trigger};
use floor_events::clock::Step;
use floor_events::tournament::{AddOnTerms, EntryModel, Fee, RebuyCondition, RebuyTerms, Start, TournamentDefinition};
use floor_events::{Currency, Money};
use std::time::Duration;

/// What a run plays and how its field comes in.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Plan {
    /// The definition the run creates.
    pub(super) definition: TournamentDefinition,
    /// Players registered before the start (every entrant, unless some enter late).
    pub(super) early: u32,
    /// Entries are sold during play ([`super::late`]): the definition has late registration,
    /// and the tables play in lockstep rounds, between which the players come.
    pub(super) late_entries: bool,
    /// The simulator starts the tournament as soon as the early field is in (`start_tournament`
    /// with `now`: a file's definition), rather than at its time.
    pub(super) start_now: bool,
    /// The level after the structure's late-registration level: skipping the clock there ends
    /// late registration ([`super::late`]). `None`: no structure, or no level after it.
    pub(super) skip_to: Option<u32>,
    /// The players rebuy at zero chips (the definition has rebuys).
    pub(super) rebuys: bool,
    /// The definition has an add-on, which the players take at the break.
    pub(super) add_on: bool,
    /// The definition has bounties: the run waits for the winner's bounty too.
    pub(super) bounty: bool,
    /// Busted players may enter again while registration is open (re-entry, no rebuys).
    pub(super) re_entry: bool,
    /// The same seed plays the same tournament: lockstep, no clock (levels change at wall-clock
    /// moments) and no late entries (whether one is sold or refused depends on when the
    /// clock's close reaches registration).
    pub(super) reproducible: bool,
}

/// The plan of `config`, created `now`.
///
/// # Errors
/// A file's definition that `config.entrants` cannot fill ([`fits`]).
pub(super) fn plan(config: &SimConfig, now: DateTime<Utc>) -> Result<Plan, String> {
    let lockstep = !config.free && config.watchable.is_none();
    let Some(file) = &config.definition else {
        return Ok(Plan {
            definition: own(config, now),
            early: config.entrants,
            late_entries: false,
            start_now: false,
            skip_to: None,
            rebuys: config.rebuys,
            add_on: config.rebuys,
            bounty: config.bounty.is_some(),
            re_entry: false,
            reproducible: lockstep,
        });
    };
    fits(file, config.entrants)?;
    let late = file.late_registration_until.is_some() && lockstep;
    // Without late registration every player must be in before the start time passes, however
    // long registering takes: the time the sim gives a shared platform's scheduler.
    let start_after = match file.late_registration_until {
        Some(_) => config.start_after,
        None => config.start_after.max(super::start_after_on_a_shared_platform(config.entrants)),
    };
    let early = match late {
        true => (config.entrants * 2).div_ceil(3).max(file.min_players).min(config.entrants),
        false => config.entrants,
    };
    Ok(Plan {
        definition: moved_to_now(file, start_after, now),
        early,
        late_entries: late,
        start_now: file.start != Start::SitAndGo,
        skip_to: level_after_late_registration(file),
        rebuys: file.rebuy.is_some(),
        add_on: file.add_on.is_some(),
        bounty: file.bounty.is_some(),
        re_entry: matches!(file.entry_model, EntryModel::ReEntry { .. }) && file.rebuy.is_none(),
        reproducible: lockstep && file.structure.is_none() && !late,
    })
}

/// Whether `entrants` players can play `definition`: a sit & go starts when full, so exactly its
/// capacity; a scheduled tournament needs its minimum and takes at most its capacity.
///
/// # Errors
/// What does not fit, in words naming `--entrants`.
pub fn fits(definition: &TournamentDefinition, entrants: u32) -> Result<(), String> {
    let (capacity, min_players) = (definition.capacity, definition.min_players);
    match definition.start {
        Start::SitAndGo if entrants != capacity => {
            Err(format!("a sit & go starts when full: --entrants {entrants} must be its capacity, {capacity}"))
        }
        Start::At(_) if entrants > capacity => Err(format!("--entrants {entrants} is more than the capacity, {capacity}")),
        Start::At(_) if entrants < min_players => {
            Err(format!("--entrants {entrants} is fewer than min_players, {min_players}: the tournament would not start"))
        }
        _ => Ok(()),
    }
}

/// `definition` with its start `start_after` from `now`, and its late-registration deadline and
/// registration's opening at the same distances from the start as written (the opening no
/// later than `now`, so the players can register at once). A sit & go has no times.
pub fn moved_to_now(definition: &TournamentDefinition, start_after: Duration, now: DateTime<Utc>) -> TournamentDefinition {
    let Start::At(written) = definition.start else { return definition.clone() };
    let start = chrono::Duration::from_std(start_after).ok().and_then(|d| now.checked_add_signed(d)).unwrap_or(now);
    let shift = start - written;
    let moved = |at: DateTime<Utc>| at.checked_add_signed(shift).unwrap_or(at);
    TournamentDefinition {
        start: Start::At(start),
        late_registration_until: definition.late_registration_until.map(moved),
        registration_opens: definition.registration_opens.map(|opens| moved(opens).min(now)),
        ..definition.clone()
    }
}

/// The level after the structure's late-registration level (1-based), if the definition has a
/// structure with one and a level follows it.
fn level_after_late_registration(definition: &TournamentDefinition) -> Option<u32> {
    let structure = floor_rules::structure::resolve(definition.structure.as_ref()?).ok()?;
    let late = structure.late_registration_levels?;
    let levels = structure.steps.iter().filter(|s| matches!(s, Step::Level(_))).count();
    (usize::try_from(late).ok()? < levels).then_some(late + 1)
}

/// Checks that a definition states both end points of late registration or neither:
/// registration closes at the first of the definition's `late_registration_until` and the end
/// of its structure's late-registration level (issue 33), so a definition with only one of them
/// closes where its author may not have meant: with a deadline and no level, only at the
/// deadline; with a level and no deadline, at the start (the level never matters).
///
/// A sit & go has neither: it closes when full (a deadline is refused at creation), so its
/// structure's level, a preset's included, closes nothing.
///
/// # Errors
/// The end point that is missing, in words.
pub fn late_registration_end_points(definition: &TournamentDefinition) -> Result<(), String> {
    if definition.start == Start::SitAndGo {
        return Ok(());
    }
    let structure = match &definition.structure {
        Some(s) => Some(floor_rules::structure::resolve(s).map_err(|e| format!("structure: {e}"))?),
        None => None,
    };
    let level = structure.and_then(|s| s.late_registration_levels);
    match (definition.late_registration_until, level) {
        (Some(until), None) => Err(format!(
            "late_registration_until ({until}) but no late-registration level in the structure: registration closes only at \
             the deadline"
        )),
        (None, Some(level)) => Err(format!(
            "the structure closes late registration after level {level} but there is no late_registration_until: \
             registration closes at the start"
        )),
        _ => Ok(()),
    }
}

/// The simulator's own definition: a freezeout (or `--format`'s rebuys or bounties) of
/// `config.entrants` at EUR 10 + 1, a sit & go up to [`LARGEST_SIT_AND_GO`] and scheduled
/// `config.start_after` ahead above, hand for hand on the bubble.
pub(super) fn own(config: &SimConfig, now: DateTime<Utc>) -> TournamentDefinition {
    let sit_and_go = config.entrants <= LARGEST_SIT_AND_GO;
    let start = now + chrono::Duration::from_std(config.start_after).unwrap_or(chrono::Duration::days(1));
    TournamentDefinition {
        name: format!("Simulation {} ({} players)", config.seed, config.entrants),
        start: if sit_and_go { Start::SitAndGo } else { Start::At(start) },
        table_size: config.table_size,
        starting_stack: 10_000,
        buy_in: Money::new(1_000, Currency::EUR),
        fee: Fee::OnTop(Money::new(100, Currency::EUR)),
        capacity: config.entrants,
        min_players: config.entrants,
        late_registration_until: (!sit_and_go).then(|| start + chrono::Duration::days(1)),
        entry_model: EntryModel::Freezeout,
        profile: config.profile,
        structure: config.watchable.as_ref().and_then(|w| w.structure.clone()),
        rebuy: config.rebuys.then_some(RebuyTerms {
            price: Money::new(1_000, Currency::EUR),
            fee: Money::new(100, Currency::EUR),
            chips: 10_000,
            max_per_entry: 2,
            condition: RebuyCondition::AtZero,
            // The simulated players answer at once; a lapse would only come from a stall.
            offer_seconds: 600,
        }),
        add_on: config.rebuys.then_some(AddOnTerms {
            price: Money::new(1_000, Currency::EUR),
            fee: Money::new(0, Currency::EUR),
            chips: 15_000,
        }),
        // The profile's trigger (unless asked otherwise), boundary and ordering; the clock as it
        // is (there is no blind structure, so no clock to take a deduction from).
        hand_for_hand: Some(HandForHandSettings {
            trigger: config.hand_for_hand_from.map(|players| Trigger::PlayersBeforeBubble { players }),
            clock: Some(HandForHandClock::Normal),
            ..HandForHandSettings::default()
        }),
        bounty: config.bounty.clone(),
        // No guarantee, payout table or any other optional section.
        ..TournamentDefinition::example()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::clock::{BlindStructure, Preset};
    use floor_events::TournamentId;
    use std::path::{Path, PathBuf};

    /// The shipped tournament files: `examples/*.toml` (not the structures or schedules).
    fn examples() -> Vec<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        crate::director::tournament_files(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
    }

    fn example(name: &str) -> TournamentDefinition {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
        crate::director::read_definition(&path).unwrap_or_else(|f| panic!("{}", f.message))
    }

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().expect("instant")
    }

    /// Issue 33: "a test fails when an example's end points disagree".
    #[test]
    fn every_shipped_example_states_both_end_points_of_late_registration_or_neither() {
        let files = examples();
        assert!(files.len() >= 4, "the shipped examples: {files:?}");
        for path in files {
            let definition = crate::director::read_definition(&path).unwrap_or_else(|f| panic!("{}", f.message));
            definition.validate().unwrap_or_else(|e| panic!("{}: the platform refuses it: {e:?}", path.display()));
            if let Err(e) = late_registration_end_points(&definition) {
                panic!("{}: {e}", path.display());
            }
        }
    }

    #[test]
    fn a_definition_with_one_end_point_of_late_registration_is_caught() {
        let written = example("sunday-major.toml");
        let custom_without_level = {
            let mut s = floor_rules::structure::preset(Preset::Turbo);
            s.late_registration_levels = None;
            BlindStructure::Custom(s)
        };
        let cases = [
            ("both", written.clone(), true),
            ("a deadline, no structure", TournamentDefinition { structure: None, ..written.clone() }, false),
            (
                "a deadline, a structure without the level",
                TournamentDefinition { structure: Some(custom_without_level.clone()), ..written.clone() },
                false,
            ),
            ("a preset's level, no deadline", TournamentDefinition { late_registration_until: None, ..written.clone() }, false),
            (
                "neither",
                TournamentDefinition { late_registration_until: None, structure: Some(custom_without_level), ..written.clone() },
                true,
            ),
            ("a sit & go: closed when full", example("sit-and-go-9.toml"), true),
        ];
        for (why, definition, agree) in cases {
            assert_eq!(late_registration_end_points(&definition).is_ok(), agree, "{why}");
        }
    }

    #[test]
    fn a_files_times_move_to_now_at_the_same_distances_from_the_start() {
        // The file's times as a director might write them absolutely (the example's own are
        // relative to its reading since issue 39).
        let written = TournamentDefinition {
            start: Start::At(at("2027-01-10T18:00:00Z")),
            late_registration_until: Some(at("2027-01-10T20:00:00Z")),
            registration_opens: Some(at("2027-01-10T12:00:00Z")),
            ..example("sunday-major.toml")
        };
        let now = at("2026-03-01T10:00:00Z");
        let moved = moved_to_now(&written, Duration::from_secs(30), now);
        assert_eq!(moved.start, Start::At(at("2026-03-01T10:00:30Z")));
        assert_eq!(moved.late_registration_until, Some(at("2026-03-01T12:00:30Z")), "two hours after the start, as written");
        assert_eq!(moved.registration_opens, Some(at("2026-03-01T04:00:30Z")), "six hours before the start, as written");
        let opens_late = TournamentDefinition { registration_opens: Some(at("2027-01-10T17:59:50Z")), ..written.clone() };
        let moved_late = moved_to_now(&opens_late, Duration::from_secs(30), now);
        assert_eq!(moved_late.registration_opens, Some(now), "ten seconds before the start would be after now: open now");
        assert_eq!(
            TournamentDefinition {
                start: written.start,
                late_registration_until: written.late_registration_until,
                registration_opens: written.registration_opens,
                ..moved.clone()
            },
            written,
            "nothing else changes"
        );
        let sit_and_go = example("sit-and-go-9.toml");
        assert_eq!(moved_to_now(&sit_and_go, Duration::from_secs(30), now), sit_and_go, "a sit & go has no times");
    }

    #[test]
    fn a_file_with_late_registration_registers_two_thirds_of_the_field_before_the_start_and_skips_past_its_level() {
        let t = TournamentId(uuid::Uuid::from_u128(7));
        let config = |definition: &str, entrants| SimConfig { definition: Some(example(definition)), ..SimConfig::new(entrants, 1, t) };
        let now = at("2026-03-01T10:00:00Z");
        let major = plan(&config("sunday-major.toml", 40), now).expect("fits");
        assert_eq!((major.early, 40 - major.early, major.late_entries, major.skip_to, major.start_now), (27, 13, true, Some(7), true));
        assert!(!major.reproducible, "the clock's close reaches registration when it does");
        let small = plan(&config("sunday-major.toml", 24), now).expect("fits");
        assert_eq!(small.early, 20, "at least min_players before the start");
        let rebuy = plan(&config("rebuy-turbo.toml", 40), now).expect("fits");
        assert_eq!((rebuy.rebuys, rebuy.add_on, rebuy.re_entry), (true, true, false));
        let re_entry = plan(&config("daily-turbo-reentry.toml", 40), now).expect("fits");
        assert!(re_entry.re_entry);
        let sit_and_go = plan(&config("sit-and-go-9.toml", 9), now).expect("fits");
        assert_eq!((sit_and_go.early, sit_and_go.late_entries, sit_and_go.start_now), (9, false, false));
        let free = plan(&SimConfig { free: true, ..config("sunday-major.toml", 40) }, now).expect("fits");
        assert_eq!((free.early, free.late_entries), (40, false), "late entries come between lockstep rounds");
    }

    #[test]
    fn a_field_that_cannot_play_the_definition_is_refused_before_anything_is_created() {
        assert!(fits(&example("sit-and-go-9.toml"), 10).is_err(), "a sit & go starts when full");
        assert!(fits(&example("sit-and-go-9.toml"), 9).is_ok());
        assert!(fits(&example("sunday-major.toml"), 19).is_err(), "below min_players");
        assert!(fits(&example("rebuy-turbo.toml"), 501).is_err(), "above the capacity");
    }
}
