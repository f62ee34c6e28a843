//! A shootout's prizes per round reached and its "arena" prizes for tables won (issue 37,
//! 004 §4.36.3; the rule is the contract's [`ShootoutPrizes`], shown in the lobby before
//! entering as 003 App. 1 b ii asks): the payout table the policy locks at the start, when the
//! field, and so every round's size, is known.
//!
//! With one winner per table, round `r + 1` starts only once every table of round `r` has its
//! winner, so every player out in round `r` is placed below every player of round `r + 1`:
//! the places `R(r+1) + 1 ..= R(r)` are exactly round `r`'s, and a place-by-place table pays
//! each of them the round's share (plus a table-win prize for each table won before it). The
//! winner is paid the rest of the pool, so the table pays the pool to the cent, and the books
//! balance as any tournament's.

use floor_events::shootouts::{ShootoutPrizes, ShootoutTerms};
use floor_events::tournament::{FixedPayouts, TournamentDefinition};
use serde::{Deserialize, Serialize};

/// A shootout that pays per round reached: its terms and its tables' size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundPrizes {
    terms: ShootoutTerms,
    table_size: u8,
}

impl RoundPrizes {
    /// The definition's round prizes, if it is a shootout that has them.
    pub fn of(definition: &TournamentDefinition) -> Option<Self> {
        let terms = definition.shootout.as_ref().filter(|t| t.prizes.is_some())?;
        Some(Self { terms: terms.clone(), table_size: definition.table_size })
    }

    /// The table for a field of `entries` at the start.
    pub fn table(&self, entries: u32) -> Option<FixedPayouts> {
        self.terms.payouts(self.table_size, entries)
    }

    /// The prizes.
    pub fn prizes(&self) -> Option<&ShootoutPrizes> {
        self.terms.prizes.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Eliminated, Field, PayoutCommand, PayoutsAggregate};
    use esrs::Aggregate;
    use floor_events::payouts::{LockCause, PayoutEvent};
    use floor_events::shootouts::{rounds, ShortField};
    use floor_events::{Currency, EntryNo, Money, PlayerId};
    use floor_rules::payout_table::PayoutTable;
    use proptest::prelude::*;

    fn definition(capacity: u32, table_size: u8, prizes: ShootoutPrizes, short_field: ShortField) -> TournamentDefinition {
        let terms = ShootoutTerms { prizes: Some(prizes), short_field, ..ShootoutTerms::new(1) };
        TournamentDefinition {
            table_size,
            capacity,
            min_players: 2,
            late_registration_until: None,
            shootout: Some(terms),
            ..TournamentDefinition::example()
        }
    }

    /// 004 §4.36.3's double shootout of 64 (eight tables of eight, then the final table of the
    /// eight winners): the seven out at the final table are paid 5 % each, plus 2 % for the
    /// table each won ("arena"); the winner the rest, 51 %; nobody out in round 1 is paid.
    #[test]
    fn a_64_player_double_shootout_pays_its_final_table_by_round_and_each_table_won() {
        let prizes = ShootoutPrizes { reached_bps: vec![0, 500], table_win_bps: 200 };
        let def = definition(64, 8, prizes, ShortField::Uneven);
        assert_eq!(def.validate(), Ok(()));
        let table = RoundPrizes::of(&def).unwrap().table(64).unwrap();
        assert_eq!(table.shares_bps, vec![5_100, 700, 700, 700, 700, 700, 700, 700]);
        assert_eq!(table.amounts(64_000), vec![32_640, 4_480, 4_480, 4_480, 4_480, 4_480, 4_480, 4_480]);
    }

    /// A triple shootout of 729 at 9-max: round 2's 72 out paid 0.5 % each, the final table's
    /// eight 3 % each; uneven (700: 78 tables, then 9) and trimmed (700 → 693: 77, then 9)
    /// fields are the same rounds' prizes for fewer players.
    #[test]
    fn a_triple_shootout_pays_round_two_and_the_final_table() {
        let prizes = ShootoutPrizes { reached_bps: vec![0, 50, 300], table_win_bps: 0 };
        for (field, short, rounds_then) in [
            (729, ShortField::Uneven, vec![729, 81, 9]),
            (700, ShortField::Uneven, vec![700, 78, 9]),
            (700, ShortField::Trim, vec![693, 77, 9]),
        ] {
            assert_eq!(rounds(field, 9, short), rounds_then);
            let def = definition(729, 9, prizes.clone(), short);
            assert_eq!(def.validate(), Ok(()));
            let table = RoundPrizes::of(&def).unwrap().table(field).unwrap();
            let out_in_two = rounds_then[1] - 9;
            assert_eq!(table.shares_bps.len() as u32, 9 + out_in_two);
            assert_eq!(table.shares_bps[0], 10_000 - 8 * 300 - 50 * out_in_two);
        }
    }

    /// Refused at creation: prizes that leave the winner less than another place, a later
    /// round paying less, more than one winner per table, table-win prizes with byes.
    #[test]
    fn round_prizes_the_pool_cannot_pay_are_refused() {
        let refused = |def: TournamentDefinition| def.validate().map_err(|e| e.field);
        let too_much = ShootoutPrizes { reached_bps: vec![0, 1_500], table_win_bps: 0 };
        assert_eq!(refused(definition(64, 8, too_much, ShortField::Uneven)), Err("shootout.prizes"));
        let falling = ShootoutPrizes { reached_bps: vec![100, 50], table_win_bps: 0 };
        assert_eq!(refused(definition(64, 8, falling, ShortField::Uneven)), Err("shootout.prizes"));
        let arena = ShootoutPrizes { reached_bps: vec![], table_win_bps: 100 };
        assert_eq!(refused(definition(64, 8, arena, ShortField::Byes)), Err("shootout.prizes"));
        let mut two = definition(64, 8, ShootoutPrizes { reached_bps: vec![0, 500], table_win_bps: 0 }, ShortField::Uneven);
        two.shootout.as_mut().unwrap().advance = 2;
        assert_eq!(refused(two), Err("shootout.prizes"));
    }

    fn player(entry: u32) -> PlayerId {
        PlayerId::parse(&format!("p{entry}")).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Money in = money out to the cent: for any field the definition allows, any pool,
        /// uneven, byes or trimmed, the round table is a valid table (descending, summing to
        /// the pool), and the payouts aggregate, locked with it and told every elimination one
        /// by one, pays exactly the pool, each player out in a round its round's prize.
        #[test]
        fn round_prizes_pay_the_pool_to_the_cent(
            field in 2u32..200,
            table_size in 2u8..=10,
            pool in 0u64..10_000_000,
            first in 0u32..200,
            step in 0u32..300,
            arena in 0u32..100,
            short in 0usize..3,
        ) {
            let short_field = [ShortField::Uneven, ShortField::Byes, ShortField::Trim][short];
            let arena = if short_field == ShortField::Byes { 0 } else { arena };
            let prizes = ShootoutPrizes { reached_bps: vec![0, first, first + step], table_win_bps: arena };
            let def = definition(field, table_size, prizes, short_field);
            prop_assume!(def.validate().is_ok());
            let plan = rounds(field, table_size, short_field);
            let entries = plan[0];
            let fixed = RoundPrizes::of(&def).unwrap().table(entries).unwrap();
            prop_assert_eq!(fixed.shares_bps.iter().map(|&b| u64::from(b)).sum::<u64>(), 10_000);
            let amounts = fixed.amounts(pool);
            prop_assert!(PayoutTable::fixed(&amounts, pool).is_ok(), "{:?} for {}", amounts, pool);

            // The aggregate: locked at the start, each player out one by one, the last the winner.
            let field_now = Field {
                entries,
                contributions: Money::new(pool, Currency::EUR),
                guarantee: None,
                profile: def.profile,
                fixed: Some(fixed.clone()),
                ordering: None,
                seat_value: None,
            };
            let mut state = <PayoutsAggregate as Aggregate>::State::default();
            let lock = PayoutCommand::Lock { field: field_now.clone(), cause: LockCause::Started };
            for e in PayoutsAggregate::handle_command(&state, lock).unwrap() {
                state = PayoutsAggregate::apply_event(state, e);
            }
            let mut paid = 0u64;
            for left in (2..=entries).rev() {
                let out = Eliminated { entry: EntryNo(left), player: player(left), stack_at_start: 1, table: 1, seat_order: 0 };
                let winner = (left == 2).then(|| (EntryNo(1), player(1)));
                let award = PayoutCommand::Award { field: field_now.clone(), players_left_before: left, eliminated: vec![out], winner, hand_for_hand: None };
                for e in PayoutsAggregate::handle_command(&state, award).unwrap() {
                    if let PayoutEvent::PlacesAwarded { awards, .. } = &e {
                        for a in awards {
                            paid += a.amount;
                            // Each player out in a round is paid its round's share.
                            let round = plan.iter().rposition(|&players| a.place <= players).map_or(1, |i| i as u32 + 1);
                            if a.place > 1 {
                                let each = def.shootout.as_ref().unwrap().prizes.as_ref().unwrap().each_out_in(round);
                                prop_assert_eq!(a.amount, (u128::from(pool) * u128::from(each) / 10_000) as u64, "place {}", a.place);
                            }
                        }
                    }
                    state = PayoutsAggregate::apply_event(state, e);
                }
            }
            prop_assert_eq!(paid, pool, "money in = money out");
        }
    }
}
