//! `reel-cz` (seed 003, REEL/PokerStars game plan for the Czech Republic): the game plan has no
//! cancellation rule at all (003 §2.12, §2.14: "no rules on tournament cancellation or abort").
//! GP §10 makes the operator's decision binding where the plan is silent, so the operator
//! chooses the method, and Floor offers the `tda-2024` methods with roll-forward as the default
//! (PokerStars' own published practice, `practice.md` §3.1). The cancellation records that the
//! choice was made under GP §10 (`decided_under`); its lines cite the TDA method applied.

use crate::cancellation::{Builder, Plan};
use crate::error::CancelError;
use crate::rules::tda_2024;
use crate::statement::{Method, Rule};

/// Cancels by the operator's `method` (roll-forward by default).
///
/// # Errors
/// `not_yet_available` for ICM.
pub fn cancel(b: &mut Builder, method: Method) -> Result<Plan, CancelError> {
    let plan = tda_2024::cancel(b, method)?;
    Ok(Plan { decided_under: Some(Rule::ReelCzGp10), ..plan })
}

#[cfg(test)]
mod tests {
    use crate::cancellation::cancel;
    use crate::rules::fixtures::*;
    use crate::statement::{Case, Method, Rule};
    use floor_events::RuleProfile::{ReelCz, Tda2024};

    #[test]
    fn the_operator_decides_and_the_default_is_the_tda_roll_forward() {
        let s = field_of_10(MULTI, &[5_000, 3_000, 2_000]);
        let reel = cancel(&s, ReelCz, Method::Rulebook).unwrap();
        let tda = cancel(&s, Tda2024, Method::Rulebook).unwrap();
        assert_eq!((reel.case, reel.decided_under), (Case::RollForwardInTheMoney, Some(Rule::ReelCzGp10)));
        assert_eq!(reel.statements, tda.statements);
        assert_eq!(cancel(&s, ReelCz, Method::Rollback).unwrap().case, Case::Rollback);
        assert_eq!(cancel(&s, ReelCz, Method::Icm).unwrap().statements, cancel(&s, Tda2024, Method::Icm).unwrap().statements);
    }
}
