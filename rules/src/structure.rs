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

/// A preset: the common progression from 10/20 with a big-blind ante from level 5 and a
/// 5-minute break after every sixth level. The families differ only in how long a level lasts:
///
/// | preset | level | source |
/// |---|---|---|
/// | standard | 15 min | 003: standard levels of 10 or 15 minutes |
/// | turbo | 6 min | 003: turbo levels of 5, sometimes 6 minutes |
/// | hyper-turbo | 3 min | 004 §4.36.9: blinds rise "mnohem rychleji" (much faster) |
/// | deep stack | 20 min | 004 §4.36.7, 003: same starting blinds, longer levels |
/// | short stack | 10 min | 004 §4.36.8: same starting blinds, shorter levels |
///
/// **Short stack** (004 §4.36.8, issue 38): "Turnaj označený jako „Short Stack“ znamená, že
/// každý Sázející začíná hru s nižším počtem hracích žetonů při zachování počáteční výše Blinds
/// […] Kromě toho se turnaje Short Stack, oproti ostatním turnajům, vyznačují kratšími obdobími,
/// ve kterých je výše Blinds neměnná" (a tournament marked "Short Stack" means that every player
/// starts with fewer chips **while the starting blinds are kept** […]; besides, Short Stack
/// tournaments have shorter periods in which the blinds do not change). So the short-stack
/// preset starts at the same 10/20 as every other preset and only its levels are shorter; it no
/// longer starts four levels up (30/60), which kept the stack and raised the blinds instead.
///
/// The smaller stack itself is not the structure's: a tournament's starting stack is its
/// definition's `starting_stack` (a structure holds blinds and times only), so a director who
/// picks the short-stack (or deep-stack) preset sets a starting stack below (above) their
/// standard one; the rulebooks give no figure. [`intended_stack`] says which way each preset
/// means it.
pub fn preset(kind: Preset) -> Structure {
    let seconds = match kind {
        Preset::Standard => 900,
        Preset::Turbo => 360,
        Preset::HyperTurbo => 180,
        Preset::DeepStack => 1_200,
        Preset::ShortStack => 600,
    };
    let mut steps = Vec::new();
    for (i, &(small_blind, big_blind)) in BLINDS.iter().enumerate() {
        let big_blind_ante = i >= 4;
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

/// The starting stack a preset is meant for, against the operator's standard starting stack
/// (the definition's `starting_stack` holds the figure): smaller for short stack (004 §4.36.8
/// "s nižším počtem hracích žetonů", with fewer chips), larger for deep stack (004 §4.36.7
/// "s vyšším počtem hracích žetonů", with more chips; 003 "Deep Stacks" alike), the standard
/// one otherwise; the blinds start the same for all.
pub fn intended_stack(kind: Preset) -> std::cmp::Ordering {
    match kind {
        Preset::ShortStack => std::cmp::Ordering::Less,
        Preset::DeepStack => std::cmp::Ordering::Greater,
        Preset::Standard | Preset::Turbo | Preset::HyperTurbo => std::cmp::Ordering::Equal,
    }
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

    fn levels(s: &Structure) -> Vec<Level> {
        s.steps
            .iter()
            .filter_map(|step| match *step {
                Step::Level(level) => Some(level),
                Step::Break { .. } => None,
            })
            .collect()
    }

    /// 004 §4.36.8 (issue 38): "každý Sázející začíná hru s nižším počtem hracích žetonů při
    /// zachování počáteční výše Blinds" (every player starts with fewer chips while the
    /// starting blinds are kept), and "kratšími obdobími, ve kterých je výše Blinds neměnná"
    /// (shorter periods in which the blinds stay the same).
    #[test]
    fn short_stack_keeps_the_standard_starting_blinds_with_shorter_levels() {
        // Given the standard and the short-stack presets.
        let (standard, short) = (preset(Preset::Standard), preset(Preset::ShortStack));
        // When their levels are compared one by one.
        let (standard, short) = (levels(&standard), levels(&short));
        // Then the short stack starts at the standard 10/20 (not four levels up at 30/60) and
        // keeps the standard blinds and antes at every level, each level shorter.
        assert_eq!((short[0].small_blind, short[0].big_blind, short[0].ante), (10, 20, 0));
        assert_eq!(short.len(), standard.len());
        for (s, d) in short.iter().zip(&standard) {
            assert_eq!((s.small_blind, s.big_blind, s.ante, s.big_blind_ante), (d.small_blind, d.big_blind, d.ante, d.big_blind_ante));
            assert!(s.seconds < d.seconds, "short-stack levels are shorter: {} against {}", s.seconds, d.seconds);
        }
        // And the smaller stack is the definition's: the preset means one below the standard.
        assert_eq!(intended_stack(Preset::ShortStack), std::cmp::Ordering::Less);
        assert_eq!(intended_stack(Preset::DeepStack), std::cmp::Ordering::Greater);
        assert_eq!(intended_stack(Preset::Standard), std::cmp::Ordering::Equal);
    }

    /// The other presets are as they were before the short-stack fix: 30 levels from 10/20 to
    /// 10,000/20,000, big-blind ante from level 5, a 5-minute break after every sixth level.
    #[test]
    fn the_other_presets_are_unchanged() {
        for (kind, seconds) in [(Preset::Standard, 900), (Preset::Turbo, 360), (Preset::HyperTurbo, 180), (Preset::DeepStack, 1_200)] {
            let s = preset(kind);
            assert_eq!(s.steps.len(), 35, "{kind:?}");
            assert_eq!((s.late_registration_levels, s.rebuys_until_break, s.push_hold_seconds), (Some(6), Some(1), 0));
            let l = levels(&s);
            assert!(l.iter().all(|l| l.seconds == seconds), "{kind:?}");
            assert_eq!((l[0].small_blind, l[0].big_blind, l[29].small_blind, l[29].big_blind), (10, 20, 10_000, 20_000));
            assert_eq!(l.iter().position(|l| l.big_blind_ante), Some(4));
            assert!(matches!(s.steps[6], Step::Break { seconds: 300, color_up: None }), "{kind:?}");
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
