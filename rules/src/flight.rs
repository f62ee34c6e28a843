//! Flights (issue 36; 004 §4.36.11–13): where a Day 1 stops, what each of its survivors carries
//! into the Day 2, and the money that goes with them. Registration (the stop), the flights
//! policy (the carry) and payouts (the transfer) use the same functions, so they never disagree.
//!
//! - **The stop** ([`survivors`], [`stops`]): a Day 1 plays until no more entries are left than
//!   ⌈entries × share⌉ (at least one), checked only once registration has closed (before that
//!   the field may still grow). A Day 1 pays no prizes, so there is no ranking to agree with:
//!   whoever is still in at the stop goes through, whatever the order of the last busts.
//! - **The carry** ([`Day2Book`]), per player across the Day 1s of one Day 2, in the order the
//!   Day 1s finish:
//!   - *first stack forward* (§4.36.11: "Všichni Sázející, kteří během Day1 fáze nevypadli jsou
//!     poté spojeni do další fáze", every player not eliminated in a Day 1 joins Day 2): the first
//!     survival counts, a later one is forfeited;
//!   - *best stack forward* (§4.36.12: "… odpovídá jeho nejlepšímu výsledku ze všech Day1 fází",
//!     the best result of all the Day 1s): a larger later stack replaces the carried one, a
//!     smaller or equal one is forfeited;
//!   - *stack builder* (§4.36.13: "… odpovídá součtu jeho výsledků ze všech Day1 fází", the sum
//!     of the results of all the Day 1s): the stacks add up.
//!
//!   A Day 1 that finishes after its Day 2 has started is refused ([`Carried::Day2Started`]): a
//!   seated Day 2 is never re-seated nor its stacks changed (its survivors' stacks are
//!   forfeited, the Day 1's pool still goes to the Day 2: the money never depends on the chips).
//! - **The money** ([`day2_pool`]): each Day 1's whole prize pool is paid out to the Day 2, one
//!   transfer both books show; the Day 2's pool is the sum of its Day 1s' pools and its own.

use floor_events::flights::{Carry, CarryOutcome, Survivor};
use floor_events::{EntryNo, Money, PlayerId, TournamentId};
use std::collections::BTreeMap;

/// How many of a Day 1's `entries` go through at `share_bps` basis points: ⌈entries × share ÷
/// 10,000⌉, at least one (a Day 1 of any field sends someone on).
#[must_use]
pub fn survivors(entries: u32, share_bps: u32) -> u32 {
    let through = (u64::from(entries) * u64::from(share_bps)).div_ceil(10_000);
    u32::try_from(through).unwrap_or(u32::MAX).max(1)
}

/// Whether a Day 1 stops: registration has closed and no more than [`survivors`] entries are
/// left.
#[must_use]
pub fn stops(live: u32, entries: u32, share_bps: u32, registration_closed: bool) -> bool {
    registration_closed && live <= survivors(entries, share_bps)
}

/// The carry rule on one stack (004 §4.36.11–13): the Day 2 holds `held` of the player (`None`:
/// nothing yet) and a Day 1 brings `chips`: what happens and the player's Day 2 stack after.
/// Registration's Day 2 decides with it, so the outcome depends only on what the Day 2 recorded.
#[must_use]
pub fn carry_onto(carry: Carry, held: Option<u64>, chips: u64) -> (CarryOutcome, u64) {
    let Some(held) = held else { return (CarryOutcome::Registered, chips) };
    match carry {
        // §4.36.11: the first survival counts.
        Carry::FirstStack => (CarryOutcome::Forfeited, held),
        // §4.36.12: "nejlepšímu výsledku ze všech Day1 fází", the best result.
        Carry::BestStack if chips > held => (CarryOutcome::Replaced { forfeited: held }, chips),
        Carry::BestStack => (CarryOutcome::Forfeited, held),
        // §4.36.13: "součtu jeho výsledků", the sum. Chips are bounded by the Day 1s' chips in
        // play: saturating never bites.
        Carry::StackBuilder => (CarryOutcome::Added, held.saturating_add(chips)),
    }
}

/// What a Day 2 holds of one player: the stack to seat with and the Day 1 entries it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holding {
    /// The chips the player starts the Day 2 with.
    pub stack: u64,
    /// The Day 1 entries the stack is made of (one, except for a stack builder).
    pub from: Vec<(TournamentId, EntryNo)>,
}

/// What the carry did with one survivor of a Day 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Carried {
    /// The player's first survival: registered in the Day 2 with this stack.
    Registered {
        /// The stack.
        stack: u64,
    },
    /// Best stack forward: a larger stack replaces the one carried (the earlier entry is
    /// replaced; its stack forfeited).
    Replaced {
        /// The new stack.
        stack: u64,
        /// The stack it replaces.
        forfeited: u64,
    },
    /// Stack builder: added to the player's Day 2 stack.
    Added {
        /// The player's Day 2 stack now.
        stack: u64,
    },
    /// Not carried: first stack forward after a first survival, or a best stack no larger.
    Forfeited {
        /// The stack given up.
        stack: u64,
    },
    /// The Day 2 had started: nothing is carried.
    Day2Started,
}

/// The Day 2's side of the carry: every player's holding, as the Day 1s finish. Pure: the flights
/// policy folds the Day 1s' finishes into it and sends registration what it decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day2Book {
    carry: Carry,
    started: bool,
    holdings: BTreeMap<PlayerId, Holding>,
}

impl Day2Book {
    /// An empty Day 2 carrying by `carry`.
    #[must_use]
    pub fn new(carry: Carry) -> Self {
        Self { carry, started: false, holdings: BTreeMap::new() }
    }

    /// The Day 2 started (its draw is made): later Day 1s carry nothing.
    pub fn start(&mut self) {
        self.started = true;
    }

    /// One player's holding.
    #[must_use]
    pub fn holding(&self, player: &PlayerId) -> Option<&Holding> {
        self.holdings.get(player)
    }

    /// Every player's holding, by player.
    #[must_use]
    pub fn holdings(&self) -> &BTreeMap<PlayerId, Holding> {
        &self.holdings
    }

    /// A survivor of `day1` goes on: what becomes of its stack.
    pub fn carry(&mut self, day1: TournamentId, survivor: &Survivor) -> Carried {
        if self.started {
            return Carried::Day2Started;
        }
        let from = (day1, survivor.entry_no);
        let Some(held) = self.holdings.get_mut(&survivor.player_id) else {
            self.holdings.insert(survivor.player_id.clone(), Holding { stack: survivor.stack, from: vec![from] });
            return Carried::Registered { stack: survivor.stack };
        };
        if held.from.iter().any(|&(t, _)| t == day1) {
            // The same Day 1 twice (a re-delivered finish): already carried, nothing more.
            return Carried::Forfeited { stack: 0 };
        }
        match self.carry {
            Carry::FirstStack => Carried::Forfeited { stack: survivor.stack },
            Carry::BestStack if survivor.stack > held.stack => {
                let forfeited = held.stack;
                *held = Holding { stack: survivor.stack, from: vec![from] };
                Carried::Replaced { stack: survivor.stack, forfeited }
            }
            Carry::BestStack => Carried::Forfeited { stack: survivor.stack },
            Carry::StackBuilder => {
                // Chips are u64 and bounded by the Day 1s' chips in play: saturating never bites.
                held.stack = held.stack.saturating_add(survivor.stack);
                held.from.push(from);
                Carried::Added { stack: held.stack }
            }
        }
    }

    /// The chips the Day 2 starts with: the sum of its holdings.
    #[must_use]
    pub fn chips(&self) -> u64 {
        self.holdings.values().map(|h| h.stack).fold(0, u64::saturating_add)
    }
}

/// The Day 2's prize pool: its Day 1s' pools, each paid over whole, and its own direct entries'
/// part. `None` if the currencies differ or the sum overflows.
#[must_use]
pub fn day2_pool(day1_pools: &[Money], own: Money) -> Option<Money> {
    day1_pools.iter().try_fold(own, |sum, &pool| sum.checked_add(pool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::Currency;
    use proptest::prelude::*;

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    fn survivor(name: &str, entry: u32, stack: u64) -> Survivor {
        Survivor { player_id: p(name), entry_no: EntryNo(entry), stack }
    }

    /// Given a player ("ana") who survives three Day 1s with 30,000, then 50,000, then 20,000,
    /// and "bo" who survives only the second with 40,000.
    fn three_day1s(carry: Carry) -> (Day2Book, [TournamentId; 3], Vec<Carried>) {
        let days = [TournamentId::new(), TournamentId::new(), TournamentId::new()];
        let mut book = Day2Book::new(carry);
        let carried = vec![
            book.carry(days[0], &survivor("ana", 3, 30_000)),
            book.carry(days[1], &survivor("ana", 7, 50_000)),
            book.carry(days[1], &survivor("bo", 2, 40_000)),
            book.carry(days[2], &survivor("ana", 1, 20_000)),
        ];
        (book, days, carried)
    }

    #[test]
    fn best_stack_forward_keeps_the_largest_of_three_day1s() {
        let (book, days, carried) = three_day1s(Carry::BestStack);
        assert_eq!(
            carried,
            vec![
                Carried::Registered { stack: 30_000 },
                Carried::Replaced { stack: 50_000, forfeited: 30_000 },
                Carried::Registered { stack: 40_000 },
                Carried::Forfeited { stack: 20_000 },
            ]
        );
        assert_eq!(book.holding(&p("ana")), Some(&Holding { stack: 50_000, from: vec![(days[1], EntryNo(7))] }));
        assert_eq!(book.chips(), 90_000);
    }

    #[test]
    fn stack_builder_sums_three_day1s() {
        let (book, days, carried) = three_day1s(Carry::StackBuilder);
        assert_eq!(carried[1], Carried::Added { stack: 80_000 });
        assert_eq!(carried[3], Carried::Added { stack: 100_000 });
        let ana = book.holding(&p("ana")).unwrap();
        assert_eq!(ana.stack, 100_000);
        assert_eq!(ana.from, vec![(days[0], EntryNo(3)), (days[1], EntryNo(7)), (days[2], EntryNo(1))]);
        assert_eq!(book.chips(), 140_000);
    }

    #[test]
    fn first_stack_forward_keeps_the_first_survival() {
        let (book, days, carried) = three_day1s(Carry::FirstStack);
        assert_eq!(carried[1], Carried::Forfeited { stack: 50_000 });
        assert_eq!(carried[3], Carried::Forfeited { stack: 20_000 });
        assert_eq!(book.holding(&p("ana")), Some(&Holding { stack: 30_000, from: vec![(days[0], EntryNo(3))] }));
    }

    #[test]
    fn a_day1_finishing_after_the_day2_started_carries_nothing() {
        let mut book = Day2Book::new(Carry::BestStack);
        let day1 = TournamentId::new();
        book.carry(day1, &survivor("ana", 1, 10_000));
        book.start();
        assert_eq!(book.carry(TournamentId::new(), &survivor("ana", 1, 90_000)), Carried::Day2Started);
        assert_eq!(book.carry(TournamentId::new(), &survivor("cy", 1, 90_000)), Carried::Day2Started);
        assert_eq!(book.chips(), 10_000);
    }

    #[test]
    fn a_redelivered_day1_finish_carries_once() {
        let mut book = Day2Book::new(Carry::StackBuilder);
        let day1 = TournamentId::new();
        book.carry(day1, &survivor("ana", 1, 10_000));
        assert_eq!(book.carry(day1, &survivor("ana", 1, 10_000)), Carried::Forfeited { stack: 0 });
        assert_eq!(book.chips(), 10_000);
    }

    /// Given a Day 2 holding 30,000 of a player, when a Day 1 brings 50,000 or 20,000, then each
    /// rule says what the player starts the Day 2 with (004 §4.36.11–13).
    #[test]
    fn carry_onto_applies_each_rule() {
        assert_eq!(carry_onto(Carry::BestStack, None, 30_000), (CarryOutcome::Registered, 30_000));
        assert_eq!(carry_onto(Carry::FirstStack, Some(30_000), 50_000), (CarryOutcome::Forfeited, 30_000));
        assert_eq!(carry_onto(Carry::BestStack, Some(30_000), 50_000), (CarryOutcome::Replaced { forfeited: 30_000 }, 50_000));
        assert_eq!(carry_onto(Carry::BestStack, Some(30_000), 20_000), (CarryOutcome::Forfeited, 30_000));
        assert_eq!(carry_onto(Carry::BestStack, Some(30_000), 30_000), (CarryOutcome::Forfeited, 30_000));
        assert_eq!(carry_onto(Carry::StackBuilder, Some(30_000), 20_000), (CarryOutcome::Added, 50_000));
    }

    #[test]
    fn a_day1_stops_at_its_share_once_registration_closed() {
        // 15 % of 100 entries: 15 go through.
        assert_eq!(survivors(100, 1_500), 15);
        assert!(!stops(16, 100, 1_500, true));
        assert!(stops(15, 100, 1_500, true));
        assert!(!stops(15, 100, 1_500, false), "the field may still grow");
        // Rounded up, at least one.
        assert_eq!(survivors(7, 1_500), 2);
        assert_eq!(survivors(3, 1), 1);
        assert_eq!(survivors(0, 1_500), 1);
        assert_eq!(survivors(9, 10_000), 9);
    }

    #[test]
    fn the_day2_pool_is_its_day1s_pools_and_its_own() {
        let eur = |a| Money::new(a, Currency::EUR);
        assert_eq!(day2_pool(&[eur(10_000), eur(7_000)], eur(500)), Some(eur(17_500)));
        assert_eq!(day2_pool(&[eur(u64::MAX)], eur(1)), None);
    }

    proptest! {
        /// Money in = money out across the Day 1s and the Day 2: every Day 1 pays its whole
        /// pool over (its books balance at zero), and the Day 2 pays out exactly what it took
        /// in, whoever carried what chips.
        #[test]
        fn money_in_is_money_out(pools in proptest::collection::vec(0u64..10_000_000, 1..6), own in 0u64..1_000_000) {
            let eur = |a| Money::new(a, Currency::EUR);
            let day1_pools: Vec<Money> = pools.iter().map(|&a| eur(a)).collect();
            let day2 = day2_pool(&day1_pools, eur(own)).unwrap();
            let paid_out_by_day1s: u64 = day1_pools.iter().map(|m| m.amount).sum();
            prop_assert_eq!(day2.amount, paid_out_by_day1s + own);
            for pool in &day1_pools {
                // Each Day 1: in = its pool; out = the transfer of its pool; left = 0.
                prop_assert_eq!(pool.checked_sub(*pool), Some(eur(0)));
            }
        }

        /// Chips: best stack forward carries each player's largest stack, stack builder the sum,
        /// first stack the first; never more chips than the Day 1s' survivors held.
        #[test]
        fn the_carry_keeps_the_right_chips(stacks in proptest::collection::vec((0usize..4, 1u64..1_000_000), 1..30)) {
            let names = ["a", "b", "c", "d"];
            for carry in [Carry::FirstStack, Carry::BestStack, Carry::StackBuilder] {
                let mut book = Day2Book::new(carry);
                for (who, stack) in &stacks {
                    book.carry(TournamentId::new(), &survivor(names[*who], 1, *stack));
                }
                for (i, name) in names.iter().enumerate() {
                    let mine: Vec<u64> = stacks.iter().filter(|(w, _)| *w == i).map(|(_, s)| *s).collect();
                    let expected = match carry {
                        Carry::FirstStack => mine.first().copied(),
                        Carry::BestStack => mine.iter().max().copied(),
                        Carry::StackBuilder => (!mine.is_empty()).then(|| mine.iter().sum()),
                    };
                    prop_assert_eq!(book.holding(&p(name)).map(|h| h.stack), expected);
                }
                prop_assert!(book.chips() <= stacks.iter().map(|(_, s)| s).sum::<u64>());
            }
        }
    }
}
