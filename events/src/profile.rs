//! Rule profiles: one per published rulebook, so an operator picks "the rules we publish" and
//! Floor enforces them. Where rulebooks disagree, the difference is a setting here.

use crate::bubble::{AcrossTables, Boundary, EliminationOrdering, EqualStacks, HandForHandClock, HandForHandRules, Trigger};
use crate::money::{Currency, Money};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The rulebook a tournament runs under (`../shared/spec/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
pub enum RuleProfile {
    /// win2day "Ergänzungsspielbedingung Poker Room" (Austria), seed 000.
    #[serde(rename = "win2day")]
    Win2day,
    /// Hrvatska Lutrija online poker rules, 2017 (Croatia), seed 001.
    #[serde(rename = "hrvatska-lutrija-2017")]
    HrvatskaLutrija2017,
    /// Svenska Spel "Spelregler Poker", 2012-10-23 (Sweden), seed 002.
    #[serde(rename = "svenska-spel-2012")]
    SvenskaSpel2012,
    /// REEL Spain (PokerStars) game plan, Czech Republic, seed 003.
    #[serde(rename = "reel-cz")]
    ReelCz,
    /// FORTUNA game plan "Živá hra", effective 2024-01-30 (Czech Republic), seed 004.
    #[serde(rename = "fortuna-cz-2024")]
    FortunaCz2024,
    /// Poker TDA 2024 and common online practice: the defaults.
    #[default]
    #[serde(rename = "tda-2024")]
    Tda2024,
}

/// The registration-relevant settings a profile implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrationRules {
    /// Whether a player may unregister before the start (004 makes registrations final).
    pub unregister_allowed: bool,
    /// Caps on buy-in and fee, if the rulebook publishes any.
    pub fee_caps: Option<FeeCaps>,
    /// Allowed fee as a share of what the player pays, in basis points (003: 2–17 %).
    pub fee_share_bps: Option<(u32, u32)>,
    /// Whether a rebuy may be taken before the stack reaches zero ("chips ≤ X": 003); 002 §2.3
    /// allows rebuys only at zero chips.
    pub rebuy_below_zero_allowed: bool,
}

/// When Floor suspends a tournament by itself, and how long a suspension may last (issue 22;
/// 002 §2.8 T-12.5; `practice.md` §3: SCOOP 2017, players blinded out at tables that had
/// stopped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuspensionRules {
    /// Floor suspends when at least this share of the open tables (basis points, and at least
    /// one table) owe a report and have sent none for [`SuspensionRules::silent_seconds`].
    pub silent_tables_bps: u32,
    /// How long a table that owes a report may stay silent, seconds.
    pub silent_seconds: u32,
    /// A suspension longer than this ends in a cancellation under the profile's own rule
    /// ("resumed as soon as possible or else aborted"); `None`: the director decides.
    pub limit_seconds: Option<u32>,
}

/// Absolute and relative caps on buy-in and fee (000 §16.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeeCaps {
    /// The currency the caps are published in.
    pub currency: Currency,
    /// Highest buy-in (prize-pool part), minor units.
    pub max_buy_in: u64,
    /// Highest fee, minor units.
    pub max_fee: u64,
    /// Highest fee as a share of the buy-in, basis points.
    pub max_fee_bps_of_buy_in: u32,
}

impl RuleProfile {
    /// Every profile, in seed order.
    pub const ALL: [RuleProfile; 6] = [
        RuleProfile::Win2day,
        RuleProfile::HrvatskaLutrija2017,
        RuleProfile::SvenskaSpel2012,
        RuleProfile::ReelCz,
        RuleProfile::FortunaCz2024,
        RuleProfile::Tda2024,
    ];

    /// The profile's name as written in tournament files.
    pub fn name(self) -> &'static str {
        match self {
            RuleProfile::Win2day => "win2day",
            RuleProfile::HrvatskaLutrija2017 => "hrvatska-lutrija-2017",
            RuleProfile::SvenskaSpel2012 => "svenska-spel-2012",
            RuleProfile::ReelCz => "reel-cz",
            RuleProfile::FortunaCz2024 => "fortuna-cz-2024",
            RuleProfile::Tda2024 => "tda-2024",
        }
    }

    /// Registration settings of this profile.
    pub fn registration(self) -> RegistrationRules {
        match self {
            // 000 §16.1: fee ≤ EUR 50 and ≤ 15 % of the buy-in; buy-in ≤ EUR 500.
            RuleProfile::Win2day => RegistrationRules {
                unregister_allowed: true,
                fee_caps: Some(FeeCaps { currency: Currency::EUR, max_buy_in: 50_000, max_fee: 5_000, max_fee_bps_of_buy_in: 1_500 }),
                fee_share_bps: None,
                rebuy_below_zero_allowed: true,
            },
            // 003: the fee is 2–17 % of the buy-in.
            RuleProfile::ReelCz => RegistrationRules {
                unregister_allowed: true,
                fee_caps: None,
                fee_share_bps: Some((200, 1_700)),
                rebuy_below_zero_allowed: true,
            },
            // 004: "registrations are final".
            RuleProfile::FortunaCz2024 => {
                RegistrationRules { unregister_allowed: false, fee_caps: None, fee_share_bps: None, rebuy_below_zero_allowed: true }
            }
            // 002 §2.3: rebuys only at zero chips.
            RuleProfile::SvenskaSpel2012 => {
                RegistrationRules { unregister_allowed: true, fee_caps: None, fee_share_bps: None, rebuy_below_zero_allowed: false }
            }
            // 001 Art. 4: "Jede Zahlung, die geleistet wurde, kann nicht rückgängig gemacht
            // werden" (a payment once made cannot be reversed): no unregistering with a refund.
            // What the operator refunds on its own account (a cancellation, Art. 15 and 21; a
            // tournament that does not start) is its decision, not the player's reversal.
            RuleProfile::HrvatskaLutrija2017 => {
                RegistrationRules { unregister_allowed: false, fee_caps: None, fee_share_bps: None, rebuy_below_zero_allowed: true }
            }
            RuleProfile::Tda2024 => {
                RegistrationRules { unregister_allowed: true, fee_caps: None, fee_share_bps: None, rebuy_below_zero_allowed: true }
            }
        }
    }
}

impl RuleProfile {
    /// When Floor suspends by itself, and the longest suspension ([`SuspensionRules`]).
    ///
    /// - A quarter of the open tables (at least one) silent: one table stopping is a table
    ///   server's fault the director handles; a quarter stopping is the system's (SCOOP 2017).
    /// - Silent for 2 minutes online (an online hand takes about one), 5 minutes under TDA's live
    ///   rules, where one hand can take that long. 004 is an online rulebook: "Živá hra" is the
    ///   Czech legal name of online multiplayer games (its definitions: played "prostřednictvím
    ///   Aplikace", through the application, against software or through it against others), so
    ///   FORTUNA takes the online value.
    /// - The limit: only 002 §2.8 T-12.5 sets one ("resumed as soon as possible, or, if it
    ///   cannot be within a time Svenska Spel deems reasonable, aborted"); Floor reads
    ///   "reasonable" as one hour. The other rulebooks leave it to the director.
    pub fn suspension(self) -> SuspensionRules {
        let (silent_seconds, limit_seconds) = match self {
            RuleProfile::SvenskaSpel2012 => (120, Some(3_600)),
            RuleProfile::Win2day | RuleProfile::HrvatskaLutrija2017 | RuleProfile::ReelCz | RuleProfile::FortunaCz2024 => (120, None),
            RuleProfile::Tda2024 => (300, None),
        };
        SuspensionRules { silent_tables_bps: 2_500, silent_seconds, limit_seconds }
    }

    /// Hand-for-hand settings of this profile (spec §5; `practice.md` §1.2, §1.4). A tournament
    /// may override each one (`hand_for_hand` in its definition).
    ///
    /// - trigger: paid places + 2 under 002 §2.3 ("one or two more than the prizes"); + 1
    ///   elsewhere (TDA practice; 000 §16.9 and 004 §4.35 give no number);
    /// - clock: the TDA deduction of 2 minutes per hand (RP-8 B–D) under TDA's live rules; the
    ///   online rulebooks (000–004: 004's "Živá hra" is online play through the application)
    ///   say nothing and keep normal time;
    /// - ordering: by starting stack, equal stacks split (PokerStars' online practice; REEL is
    ///   PokerStars), under every profile: 004 leaves the order of busts at different tables
    ///   open, and an online room ranks them by stack. WSOP's tie across tables is a definition's
    ///   choice (`ordering.across_tables = "tie"`).
    pub fn hand_for_hand(self) -> HandForHandRules {
        self.hand_for_hand_settings()
    }

    /// Whether the rulebook requires hand-for-hand near the money in every multi-table
    /// tournament, so it starts by itself (its trigger) without a `hand_for_hand` section:
    ///
    /// - win2day 000 §16.9: "beginnen die Spielrunden gleichzeitig an allen verbleibenden Tischen
    ///   („Hand für Hand Modus“). Erst wenn eine Runde an allen Tischen abgeschlossen ist, kann
    ///   die nächste Runde gestartet werden";
    /// - Svenska Spel 002 §2.3 T-5.0: "då antalet kvarvarande Kunder är en eller två fler än
    ///   antalet vinster … Omgångarna startas samtidigt på alla kvarvarande bord";
    /// - TDA 2024 RP-8: hand-for-hand is played near the money.
    ///
    /// Elsewhere it is the definition's choice (a `hand_for_hand` section), or a director's.
    pub fn hand_for_hand_required(self) -> bool {
        matches!(self, RuleProfile::Win2day | RuleProfile::SvenskaSpel2012 | RuleProfile::Tda2024)
    }

    fn hand_for_hand_settings(self) -> HandForHandRules {
        let by_stack = EliminationOrdering { across_tables: AcrossTables::ByStack, equal_stacks: EqualStacks::Split };
        let deduct = HandForHandClock::Deduct { seconds: crate::bubble::RECOMMENDED_DEDUCTION_SECONDS };
        let one = Trigger::PlayersBeforeBubble { players: 1 };
        let (trigger, clock, ordering) = match self {
            RuleProfile::SvenskaSpel2012 => (Trigger::PlayersBeforeBubble { players: 2 }, HandForHandClock::Normal, by_stack),
            RuleProfile::Tda2024 => (one, deduct, by_stack),
            RuleProfile::Win2day | RuleProfile::HrvatskaLutrija2017 | RuleProfile::ReelCz | RuleProfile::FortunaCz2024 => {
                (one, HandForHandClock::Normal, by_stack)
            }
        };
        HandForHandRules { trigger, boundary: Boundary::Money, clock, ordering }
    }
}

/// When tables are balanced (a tournament may choose: `[seating] balance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Balance {
    /// Whenever two tables differ by more than one player (online practice; PokerStars' "single
    /// moves" fix any imbalance, `practice.md` §3.1).
    DifferenceAboveOne,
    /// When a table is three or more short of the fullest, back to within two (TDA 2024 R11-D:
    /// "Play halts on tables 3 or more players short").
    ThreeShort,
}

/// Who moves when tables are balanced (a tournament may choose: `[seating] mover`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mover {
    /// TDA 2024 R11-A: "the player due to be big blind next moves to the worst position".
    DueBigBlind,
    /// PokerStars: the player moved least often, to the seat closest to their position
    /// relative to the button (`practice.md` §3.1).
    LeastMoved,
}

/// The balancing rules in force: the profile's ([`RuleProfile::seating`]), with the
/// tournament's own on top ([`SeatingSettings`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatingRules {
    /// When tables are balanced.
    pub balance: Balance,
    /// Who moves.
    pub mover: Mover,
}

impl SeatingRules {
    /// Balancing within one, the player due the big blind moving: what Floor did before a
    /// tournament could choose (a log stored then names no rules, and means these).
    pub const WITHIN_ONE: SeatingRules = SeatingRules { balance: Balance::DifferenceAboveOne, mover: Mover::DueBigBlind };

    /// These rules with a tournament's own choices on top.
    pub fn with(self, own: Option<SeatingSettings>) -> SeatingRules {
        let own = own.unwrap_or_default();
        SeatingRules { balance: own.balance.unwrap_or(self.balance), mover: own.mover.unwrap_or(self.mover) }
    }
}

/// A tournament's own balancing choices (the definition's `seating` section), each on top of
/// its profile's ([`RuleProfile::seating`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatingSettings {
    /// When tables are balanced; absent: the profile's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<Balance>,
    /// Who moves; absent: the profile's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mover: Option<Mover>,
}

impl RuleProfile {
    /// Balancing rules of this profile; a tournament may choose its own (`seating`).
    ///
    /// - TDA 2024: R11-A, "the player due to be big blind next moves to the worst position",
    ///   and R11-D, "Play halts on tables 3 or more players short … of the table with the most
    ///   players": a table is balanced when it is three short, back to within two.
    /// - REEL (003 App. 1 b i, "zbývající účastníci jsou přesazeni k jiným stolům tak, aby byl
    ///   zachován plný počet účastníků hazardní hry u všech stolů a hra byla vyrovnaná": the
    ///   others are moved so that every table stays full and play even) is PokerStars' game
    ///   plan, and PokerStars balances by single moves of the players moved least, keeping
    ///   their position relative to the button (`practice.md` §3.1): within one, least moved.
    /// - win2day (000 §16.8), Hrvatska Lutrija, Svenska Spel (002 §2.6 T-10.4) and FORTUNA
    ///   leave the method to the operator: the online default, within one, the player due the
    ///   big blind moving.
    pub fn seating(self) -> SeatingRules {
        match self {
            RuleProfile::Tda2024 => SeatingRules { balance: Balance::ThreeShort, mover: Mover::DueBigBlind },
            RuleProfile::ReelCz => SeatingRules { balance: Balance::DifferenceAboveOne, mover: Mover::LeastMoved },
            RuleProfile::Win2day | RuleProfile::HrvatskaLutrija2017 | RuleProfile::SvenskaSpel2012 | RuleProfile::FortunaCz2024 => {
                SeatingRules::WITHIN_ONE
            }
        }
    }
}

impl FeeCaps {
    /// Checks buy-in (the prize-pool part) and fee against the caps.
    ///
    /// # Errors
    /// `Err((code, message))` with [`crate::codes::BUY_IN_TOO_HIGH`] or
    /// [`crate::codes::FEE_TOO_HIGH`] or, for another currency, `invalid_definition`.
    pub fn check(&self, buy_in: Money, fee: Money) -> Result<(), (&'static str, String)> {
        if buy_in.currency != self.currency {
            return Err((
                crate::codes::INVALID_DEFINITION,
                format!("this profile publishes its caps in {}; the buy-in is in {}", self.currency, buy_in.currency),
            ));
        }
        if buy_in.amount > self.max_buy_in {
            return Err((
                crate::codes::BUY_IN_TOO_HIGH,
                format!("buy-in {buy_in} is above the cap of {}", Money::new(self.max_buy_in, self.currency)),
            ));
        }
        let relative = buy_in.share_bps(self.max_fee_bps_of_buy_in).amount;
        let cap = self.max_fee.min(relative);
        if fee.amount > cap {
            return Err((
                crate::codes::FEE_TOO_HIGH,
                format!(
                    "fee {fee} is above the cap of {} (min of {} and {}% of the buy-in)",
                    Money::new(cap, self.currency),
                    Money::new(self.max_fee, self.currency),
                    self.max_fee_bps_of_buy_in / 100
                ),
            ));
        }
        Ok(())
    }
}

impl fmt::Display for RuleProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eur(cents: u64) -> Money {
        Money::new(cents, Currency::EUR)
    }

    #[test]
    fn profile_names_round_trip_through_serde() {
        for p in RuleProfile::ALL {
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.name()));
            assert_eq!(serde_json::from_str::<RuleProfile>(&json).unwrap(), p);
        }
    }

    /// The worked examples of 000 §16.1 (seed 000, "Configuration and publication" 2–5).
    #[test]
    fn win2day_fee_caps_follow_the_rulebook_examples() {
        let caps = RuleProfile::Win2day.registration().fee_caps.unwrap();
        assert!(caps.check(eur(10_000), eur(1_500)).is_ok(), "buy-in 100, fee 15: accepted");
        assert_eq!(caps.check(eur(10_000), eur(1_600)).unwrap_err().0, crate::codes::FEE_TOO_HIGH);
        assert!(caps.check(eur(50_000), eur(5_000)).is_ok(), "buy-in 500, fee 50: accepted");
        assert_eq!(caps.check(eur(50_001), eur(0)).unwrap_err().0, crate::codes::BUY_IN_TOO_HIGH);
        assert!(caps.check(eur(30_000), eur(4_500)).is_ok(), "buy-in 300, fee 45: accepted");
        assert_eq!(caps.check(eur(30_000), eur(4_501)).unwrap_err().0, crate::codes::FEE_TOO_HIGH);
        assert!(caps.check(eur(0), eur(0)).is_ok(), "freeroll without fee");
        assert_eq!(caps.check(eur(0), eur(1)).unwrap_err().0, crate::codes::FEE_TOO_HIGH);
    }

    #[test]
    fn svenska_spel_starts_hand_for_hand_two_before_the_money_and_tda_deducts_two_minutes() {
        use crate::bubble::*;
        assert_eq!(RuleProfile::SvenskaSpel2012.hand_for_hand().trigger, Trigger::PlayersBeforeBubble { players: 2 });
        assert_eq!(RuleProfile::Tda2024.hand_for_hand().trigger, Trigger::PlayersBeforeBubble { players: 1 });
        assert_eq!(RuleProfile::Tda2024.hand_for_hand().clock, HandForHandClock::Deduct { seconds: 120 });
        // 004 is online play ("Živá hra" through the application): the online values.
        assert_eq!(RuleProfile::FortunaCz2024.hand_for_hand().ordering.across_tables, AcrossTables::ByStack);
        assert_eq!(RuleProfile::FortunaCz2024.hand_for_hand().clock, HandForHandClock::Normal);
        assert_eq!(RuleProfile::FortunaCz2024.suspension().silent_seconds, 120);
        assert_eq!(RuleProfile::ReelCz.hand_for_hand().ordering.across_tables, AcrossTables::ByStack);
        for p in RuleProfile::ALL {
            let rules = p.hand_for_hand();
            let own = HandForHandSettings {
                trigger: Some(rules.trigger),
                boundary: Some(rules.boundary),
                clock: Some(rules.clock),
                ordering: Some(rules.ordering),
            };
            assert_eq!(own.check(), Ok(()), "{p}: the profile's own settings are within the bounds");
        }
    }

    #[test]
    fn fortuna_registrations_are_final() {
        assert!(!RuleProfile::FortunaCz2024.registration().unregister_allowed);
        assert!(RuleProfile::Tda2024.registration().unregister_allowed);
    }

    /// 000 §16.9, 002 T-5.0 and TDA RP-8 require hand-for-hand near the money: it starts by
    /// itself under those profiles; elsewhere a definition or a director starts it.
    #[test]
    fn win2day_svenska_spel_and_tda_require_hand_for_hand_near_the_money() {
        let required: Vec<RuleProfile> = RuleProfile::ALL.into_iter().filter(|p| p.hand_for_hand_required()).collect();
        assert_eq!(required, vec![RuleProfile::Win2day, RuleProfile::SvenskaSpel2012, RuleProfile::Tda2024]);
    }

    /// TDA 2024 R11-D ("Play halts on tables 3 or more players short") and R11-A under the TDA
    /// profile; PokerStars' least-moved single moves under REEL (003 App. 1 b i); a definition's
    /// own choice on top of either.
    #[test]
    fn each_profile_balances_by_its_rulebook_and_a_tournament_may_choose_its_own() {
        assert_eq!(RuleProfile::Tda2024.seating(), SeatingRules { balance: Balance::ThreeShort, mover: Mover::DueBigBlind });
        assert_eq!(RuleProfile::ReelCz.seating(), SeatingRules { balance: Balance::DifferenceAboveOne, mover: Mover::LeastMoved });
        assert_eq!(RuleProfile::SvenskaSpel2012.seating(), SeatingRules::WITHIN_ONE);
        let own = SeatingSettings { balance: Some(Balance::DifferenceAboveOne), mover: None };
        assert_eq!(RuleProfile::Tda2024.seating().with(Some(own)), SeatingRules::WITHIN_ONE);
        assert_eq!(RuleProfile::ReelCz.seating().with(None), RuleProfile::ReelCz.seating());
        let json = serde_json::json!({ "balance": "three_short", "mover": "least_moved" });
        let parsed: SeatingSettings = serde_json::from_value(json).unwrap();
        assert_eq!(parsed, SeatingSettings { balance: Some(Balance::ThreeShort), mover: Some(Mover::LeastMoved) });
    }

    /// 001 Art. 4: "Jede Zahlung, die geleistet wurde, kann nicht rückgängig gemacht werden."
    #[test]
    fn hrvatska_lutrija_payments_cannot_be_reversed_so_registrations_are_final() {
        assert!(!RuleProfile::HrvatskaLutrija2017.registration().unregister_allowed);
    }
}
