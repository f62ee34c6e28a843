//! Blind structures: the rules they must keep, presets, and loading from TOML.

use floor_events::clock::{BlindStructure, Level, Step, Structure};

/// A rule a structure breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", step.map(|s| format!("step {}: ", s + 1)).unwrap_or_default())]
pub struct StructureError {
    /// The step at fault (0-based), if one.
    pub step: Option<usize>,
    /// Which rule, in words.
    pub message: String,
}

/// Longest step of a structure: a day. Longer levels or breaks are typos (`u32::MAX` seconds
/// is 136 years); a tournament that stops overnight pauses its clock. Bounding each step keeps
/// every end the clock computes a few days from now (issue 17).
pub const MAX_STEP_SECONDS: u32 = 86_400;

/// Most steps in a structure. Presets have 35; a thousand 15-minute levels is ten days of play.
/// Bounded so step and level numbers fit a `u32` and a structure fits an event.
pub const MAX_STEPS: usize = 1_000;

fn at(step: usize, message: impl Into<String>) -> StructureError {
    StructureError { step: Some(step), message: message.into() }
}

/// Checks a structure: levels with a positive small blind, a big blind above it, an ante not
/// above the big blind, no blind going down from one level to the next, no zero-length step and
/// none longer than [`MAX_STEP_SECONDS`], at most [`MAX_STEPS`] steps, and windows and push hold
/// that fit the structure.
///
/// Blinds and antes are only compared, never summed, so any `u64` is safe to hold.
///
/// # Errors
/// The first rule broken.
pub fn validate(structure: &Structure) -> Result<(), StructureError> {
    let mut previous: Option<Level> = None;
    let (mut levels, mut breaks) = (0u32, 0u32);
    if structure.steps.len() > MAX_STEPS {
        return Err(StructureError { step: None, message: format!("a structure has at most {MAX_STEPS} steps") });
    }
    for (i, step) in structure.steps.iter().enumerate() {
        if step.seconds() == 0 {
            return Err(at(i, "a step must last at least one second"));
        }
        if step.seconds() > MAX_STEP_SECONDS {
            return Err(at(i, format!("a step lasts at most {MAX_STEP_SECONDS} s (a day); pause the clock for longer")));
        }
        if structure.push_hold_seconds >= step.seconds() {
            return Err(at(i, format!("the push hold of {} s does not fit a {} s step", structure.push_hold_seconds, step.seconds())));
        }
        match *step {
            Step::Break { .. } => breaks += 1,
            Step::Level(level) => {
                levels += 1;
                if level.small_blind == 0 || level.big_blind <= level.small_blind {
                    return Err(at(
                        i,
                        format!("the big blind ({}) must be above a positive small blind ({})", level.big_blind, level.small_blind),
                    ));
                }
                if level.ante > level.big_blind {
                    return Err(at(i, format!("the ante ({}) must not exceed the big blind ({})", level.ante, level.big_blind)));
                }
                if let Some(p) = previous {
                    if level.small_blind < p.small_blind || level.big_blind < p.big_blind {
                        return Err(at(
                            i,
                            format!("blinds go down from {}/{} to {}/{}", p.small_blind, p.big_blind, level.small_blind, level.big_blind),
                        ));
                    }
                }
                previous = Some(level);
            }
        }
    }
    if levels == 0 {
        return Err(StructureError { step: None, message: "a structure needs at least one level".into() });
    }
    if structure.late_registration_levels.is_some_and(|n| n == 0 || n > levels) {
        return Err(StructureError { step: None, message: format!("late registration must close after a level 1..={levels}") });
    }
    if structure.rebuys_until_break.is_some_and(|n| n == 0 || n > breaks) {
        return Err(StructureError { step: None, message: format!("the rebuy period must end at a break 1..={breaks}") });
    }
    Ok(())
}

/// Reads a structure from TOML (`[[steps]]` tables with `kind = "level"` or `"break"`) and
/// validates it.
///
/// # Errors
/// The TOML error, or the first rule broken.
pub fn from_toml(text: &str) -> Result<Structure, StructureError> {
    let structure: Structure = toml::from_str(text).map_err(|e| StructureError { step: None, message: e.to_string() })?;
    validate(&structure)?;
    Ok(structure)
}

/// The common progression of blinds (small, big), from 10/20.
const BLINDS: [(u64, u64); 30] = [
    (10, 20),
    (15, 30),
    (20, 40),
    (25, 50),
    (30, 60),
    (40, 80),
    (50, 100),
    (60, 120),
    (75, 150),
    (100, 200),
    (125, 250),
    (150, 300),
    (200, 400),
    (250, 500),
    (300, 600),
    (400, 800),
    (500, 1_000),
    (600, 1_200),
    (800, 1_600),
    (1_000, 2_000),
    (1_200, 2_400),
    (1_500, 3_000),
    (2_000, 4_000),
    (2_500, 5_000),
    (3_000, 6_000),
    (4_000, 8_000),
    (5_000, 10_000),
    (6_000, 12_000),
    (8_000, 16_000),
    (10_000, 20_000),
];

pub use floor_events::clock::Preset;

/// The structure a tournament's definition names, validated.
///
/// # Errors
/// The rule a custom structure breaks.
pub fn resolve(structure: &BlindStructure) -> Result<Structure, StructureError> {
    match structure {
        BlindStructure::Preset(kind) => Ok(preset(*kind)),
        BlindStructure::Custom(custom) => validate(custom).map(|()| custom.clone()),
    }
}

/// A preset: the common progression with a big-blind ante from level 5 and a 5-minute break
/// after every sixth level.
pub fn preset(kind: Preset) -> Structure {
    let (seconds, skip) = match kind {
        Preset::Standard => (900, 0),
        Preset::Turbo => (360, 0),
        Preset::HyperTurbo => (180, 0),
        Preset::DeepStack => (1_200, 0),
        Preset::ShortStack => (600, 4),
    };
    let mut steps = Vec::new();
    for (i, &(small_blind, big_blind)) in BLINDS.iter().skip(skip).enumerate() {
        let big_blind_ante = i + skip >= 4;
        steps.push(Step::Level(Level {
            small_blind,
            big_blind,
            ante: if big_blind_ante { big_blind } else { 0 },
            big_blind_ante,
            seconds,
        }));
        if (i + 1) % 6 == 0 {
            steps.push(Step::Break { seconds: 300, color_up: None });
        }
    }
    Structure { steps, late_registration_levels: Some(6), rebuys_until_break: Some(1), push_hold_seconds: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(small_blind: u64, big_blind: u64, ante: u64, seconds: u32) -> Step {
        Step::Level(Level { small_blind, big_blind, ante, big_blind_ante: false, seconds })
    }

    fn structure(steps: Vec<Step>) -> Structure {
        Structure { steps, late_registration_levels: None, rebuys_until_break: None, push_hold_seconds: 0 }
    }

    #[test]
    fn every_preset_is_valid() {
        for kind in Preset::ALL {
            validate(&preset(kind)).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        }
    }

    #[test]
    fn broken_structures_name_the_step_and_the_rule() {
        let cases = [
            ("decreasing blinds", structure(vec![level(100, 200, 0, 600), level(50, 100, 0, 600)]), Some(1)),
            ("big blind not above small", structure(vec![level(100, 100, 0, 600)]), Some(0)),
            ("ante above big blind", structure(vec![level(100, 200, 300, 600)]), Some(0)),
            ("zero-length level", structure(vec![level(100, 200, 0, 0)]), Some(0)),
            ("zero-length break", structure(vec![level(100, 200, 0, 600), Step::Break { seconds: 0, color_up: None }]), Some(1)),
            ("no level", structure(vec![Step::Break { seconds: 300, color_up: None }]), None),
            ("a level longer than a day", structure(vec![level(100, 200, 0, MAX_STEP_SECONDS + 1)]), Some(0)),
            (
                "a break of u32::MAX seconds",
                structure(vec![level(100, 200, 0, 600), Step::Break { seconds: u32::MAX, color_up: None }]),
                Some(1),
            ),
            ("too many steps", structure(vec![level(100, 200, 0, 600); MAX_STEPS + 1]), None),
        ];
        for (why, s, step) in cases {
            assert_eq!(validate(&s).expect_err(why).step, step, "{why}");
        }
    }

    #[test]
    fn structures_load_from_toml() {
        let text = r#"
            late_registration_levels = 2
            push_hold_seconds = 90
            [[steps]]
            kind = "level"
            small_blind = 25
            big_blind = 50
            seconds = 600
            [[steps]]
            kind = "level"
            small_blind = 50
            big_blind = 100
            ante = 100
            big_blind_ante = true
            seconds = 600
            [[steps]]
            kind = "break"
            seconds = 300
        "#;
        let s = from_toml(text).unwrap();
        assert_eq!(s.steps.len(), 3);
        assert!(from_toml(&text.replace("big_blind = 100\n", "big_blind = 40\n")).is_err(), "decreasing blinds refused");
    }
}
