//! What a cancellation says: one statement per player concerned, each line with its rule, its
//! formula and its inputs, in integer minor units; and the books it closes. The `cancelled`
//! event carries it; the abort service (`floor-abort`) computes it.

use crate::{Currency, EntryNo, PlayerId, RuleProfile};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How to cancel: the profile's own rule, or, where the profile leaves the choice to the
/// operator (tda-2024, reel-cz, win2day's multi-table rule), one of the TDA methods.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The rulebook's formula (for tda-2024 and reel-cz: roll-forward).
    #[default]
    Rulebook,
    /// Refund everything paid in, to every entry (practice §3.1, PokerStars "rollback").
    Rollback,
    /// Fee back, then the pool by the TDA roll-forward formula (practice §3.1).
    RollForward,
    /// Fee back, then the prizes still open by ICM (Malmuth-Harville equities, exact:
    /// `floor_rules::icm`), anything the prizes leave of the pool by chips.
    Icm,
}

impl Method {
    /// The method's name, as the command spells it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Rulebook => "rulebook",
            Method::Rollback => "rollback",
            Method::RollForward => "roll_forward",
            Method::Icm => "icm",
        }
    }
}

/// The rule a line (or a whole cancellation) follows, serialized as its citation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Rule {
    /// 000 §16.11: single-table abort, fee back and the remaining pool shared equally.
    #[serde(rename = "win2day §16.11")]
    Win2day16_11,
    /// 000 §16.12: multi-table (and Twister) abort; in the money, nobody below their rank's prize.
    #[serde(rename = "win2day §16.12")]
    Win2day16_12,
    /// 001 Art. 15: the money paid in for the tournament goes back.
    #[serde(rename = "hrvatska-lutrija-2017 Art. 15")]
    HrvatskaLutrijaArt15,
    /// 001 Art. 21: no liability for a failure not the operator's fault; the refund is the
    /// operator's decision.
    #[serde(rename = "hrvatska-lutrija-2017 Art. 21")]
    HrvatskaLutrijaArt21,
    /// 002 §2.8 (T-12.1, T-12.2 A–C).
    #[serde(rename = "svenska-spel-2012 §2.8")]
    SvenskaSpel2_8,
    /// 003 GP §10: the operator decides what the game plan does not regulate.
    #[serde(rename = "reel-cz GP §10")]
    ReelCzGp10,
    /// 004 §4.37.1: heads-up, buy-ins back.
    #[serde(rename = "fortuna-cz-2024 §4.37.1")]
    Fortuna4_37_1,
    /// 004 §4.37.2: multi-table, before and in the money; guaranteed events.
    #[serde(rename = "fortuna-cz-2024 §4.37.2")]
    Fortuna4_37_2,
    /// 004 §4.37.3: sit & go.
    #[serde(rename = "fortuna-cz-2024 §4.37.3")]
    Fortuna4_37_3,
    /// TDA practice, rollback (practice §3.1).
    #[serde(rename = "tda-2024 rollback")]
    TdaRollback,
    /// TDA practice, roll-forward (practice §3.1).
    #[serde(rename = "tda-2024 roll-forward")]
    TdaRollForward,
    /// TDA practice, the ICM option (practice §3, §4).
    #[serde(rename = "tda-2024 icm")]
    TdaIcm,
    /// Floor's rule for bounty money on a roll-forward (`docs/abort.md`): each entry still in
    /// gets its own bounty back, the bounty money nobody holds is shared equally.
    #[serde(rename = "floor abort: bounties")]
    FloorBounties,
    /// Floor's rule that an entry in the money never leaves with less than the prize for
    /// place N (`docs/abort.md`; 000 §16.12 states it, the other rulebooks imply it).
    #[serde(rename = "floor abort: place prize floor")]
    FloorPlacePrize,
    /// Floor's rule after a deal every remaining player agreed (`docs/abort.md`): each entry
    /// still in gets its agreed amount, what was left to play for goes by the profile's rule.
    #[serde(rename = "floor abort: agreed deal")]
    FloorDeal,
    /// Floor's rule for a tournament cancelled before its start by the abort service (the way
    /// out when registration's log holds a commit no reader can apply, `docs/abort.md`):
    /// everything paid in goes back, as registration's own cancel before the start does.
    #[serde(rename = "floor abort: before the start")]
    FloorBeforeStart,
    /// Floor's rule for a flight's Day 2 cancelled under a rule that gives back what was paid
    /// (`docs/abort.md`, "A flight's Day 2"): its entries paid with the stacks they brought
    /// from the Day 1s, so the Day 1s' pools go to them in proportion to those stacks.
    #[serde(rename = "floor abort: flight")]
    FloorFlight,
}

impl Rule {
    /// The citation, e.g. `svenska-spel-2012 §2.8`.
    pub fn cite(self) -> &'static str {
        match self {
            Rule::Win2day16_11 => "win2day §16.11",
            Rule::Win2day16_12 => "win2day §16.12",
            Rule::HrvatskaLutrijaArt15 => "hrvatska-lutrija-2017 Art. 15",
            Rule::HrvatskaLutrijaArt21 => "hrvatska-lutrija-2017 Art. 21",
            Rule::SvenskaSpel2_8 => "svenska-spel-2012 §2.8",
            Rule::ReelCzGp10 => "reel-cz GP §10",
            Rule::Fortuna4_37_1 => "fortuna-cz-2024 §4.37.1",
            Rule::Fortuna4_37_2 => "fortuna-cz-2024 §4.37.2",
            Rule::Fortuna4_37_3 => "fortuna-cz-2024 §4.37.3",
            Rule::TdaRollback => "tda-2024 rollback",
            Rule::TdaRollForward => "tda-2024 roll-forward",
            Rule::TdaIcm => "tda-2024 icm",
            Rule::FloorBounties => "floor abort: bounties",
            Rule::FloorPlacePrize => "floor abort: place prize floor",
            Rule::FloorDeal => "floor abort: agreed deal",
            Rule::FloorBeforeStart => "floor abort: before the start",
            Rule::FloorFlight => "floor abort: flight",
        }
    }
}

/// Which branch of its profile's rule a cancellation took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Case {
    /// 000 §16.11.
    Win2daySingleTable,
    /// 000 §16.12, before the money (§16.11's equal split, `docs/abort.md`).
    Win2dayMultiTableBeforeTheMoney,
    /// 000 §16.12, in the money.
    Win2dayMultiTableInTheMoney,
    /// 001 Art. 15.
    HrvatskaLutrijaRefund,
    /// 002 §2.8 T-12.1.
    SvenskaSpelSingleTable,
    /// 002 §2.8 T-12.2 (A): nobody out yet.
    SvenskaSpelNobodyOut,
    /// 002 §2.8 T-12.2 (B): more left than prizes.
    SvenskaSpelBeforeTheMoney,
    /// 002 §2.8 T-12.2 (C): no more left than prizes.
    SvenskaSpelInTheMoney,
    /// 004 §4.37.1.
    FortunaHeadsUp,
    /// 004 §4.37.2 case A.
    FortunaBeforeTheMoney,
    /// 004 §4.37.2 case B.
    FortunaInTheMoney,
    /// 004 §4.37.3.
    FortunaSitAndGo,
    /// Rollback.
    Rollback,
    /// Roll-forward before the money.
    RollForwardBeforeTheMoney,
    /// Roll-forward in the money.
    RollForwardInTheMoney,
    /// After a deal every remaining player agreed: the agreed amounts, the rest by the
    /// profile's rule (`Rule::FloorDeal`).
    AfterDeal,
    /// Before the start (`Rule::FloorBeforeStart`): every entry gets back everything it paid.
    BeforeStart,
}

impl Case {
    /// Everything paid in goes back to every entry: a rollback, 001 Art. 15, 002 (A), a
    /// cancellation before the start.
    pub fn refunds_everything(self) -> bool {
        matches!(self, Case::Rollback | Case::HrvatskaLutrijaRefund | Case::SvenskaSpelNobodyOut | Case::BeforeStart)
    }
}

/// Where a line's money comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pot {
    /// The operator's fees.
    Fees,
    /// The prize pool (with the operator's money where a rule owes more than it holds).
    PrizePool,
    /// The bounty pool.
    Bounties,
}

/// What a line pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// The prize-pool part of the entry's buy-in (its bounty part excluded).
    RefundBuyIn,
    /// Fees the entry paid.
    RefundFee,
    /// The prize-pool parts of its rebuys (bounty parts excluded).
    RefundRebuys,
    /// The prize-pool parts of its add-ons.
    RefundAddOns,
    /// The bounty parts of its purchases.
    RefundBounty,
    /// The prize for place N, N the entries still in.
    PlacePrize,
    /// An equal share of a pot.
    EqualShare,
    /// A share of a pot in proportion to chips.
    ChipShare,
    /// The bounty on the entry's own head.
    OwnBounty,
    /// An equal share of the bounty money nobody holds.
    BountyShare,
    /// What lifts the entry to the prize for place N.
    PlacePrizeTopUp,
    /// The entry's ICM equity in the prizes still open (Malmuth-Harville, chips as stacks).
    IcmEquity,
    /// The entry's amount in the deal the players still in agreed.
    DealShare,
    /// A share of the Day 1s' pools a flight's Day 2 holds, in proportion to the chips the
    /// entry brought from its Day 1s.
    FlightShare,
}

impl LineKind {
    /// The pot the line is paid from.
    pub fn pot(self) -> Pot {
        match self {
            LineKind::RefundFee => Pot::Fees,
            LineKind::RefundBounty | LineKind::OwnBounty | LineKind::BountyShare => Pot::Bounties,
            _ => Pot::PrizePool,
        }
    }

    /// Whether it gives back money the entry paid.
    pub fn is_refund(self) -> bool {
        matches!(
            self,
            LineKind::RefundBuyIn | LineKind::RefundFee | LineKind::RefundRebuys | LineKind::RefundAddOns | LineKind::RefundBounty
        )
    }

    /// The formula, over the line's [`Inputs`].
    pub fn formula(self) -> &'static str {
        match self {
            LineKind::RefundBuyIn => "amount = buy-in prize-pool part paid (pot)",
            LineKind::RefundFee => "amount = fees paid (pot)",
            LineKind::RefundRebuys => "amount = rebuys' prize-pool parts paid (pot)",
            LineKind::RefundAddOns => "amount = add-ons' prize-pool parts paid (pot)",
            LineKind::RefundBounty => "amount = bounty parts paid (pot)",
            LineKind::PlacePrize => "amount = prize for place N (pot), N = entries still in (place)",
            LineKind::EqualShare | LineKind::BountyShare => {
                "amount = ⌊pot × 1 / of⌋, + 1 minor unit if extra (largest remainder, ties by entry number)"
            }
            LineKind::ChipShare => "amount = ⌊pot × weight / of⌋, weight = chips, of = chips in play, + 1 if extra (largest remainder)",
            LineKind::OwnBounty => "amount = bounty on the entry's head (pot)",
            LineKind::PlacePrizeTopUp => "amount = prize for place N (pot) − the rest of this entry's statement, bounties excluded",
            LineKind::DealShare => "amount = the entry's agreed amount in the players' deal (pot)",
            LineKind::FlightShare => {
                "amount = ⌊pot × weight / of⌋, pot = the Day 1s' pools transferred in, weight = chips carried from the Day 1s, \
                 of = every entry's carried chips, + 1 if extra (largest remainder)"
            }
            LineKind::IcmEquity => {
                "amount = Σ over places p ≤ N of P(entry finishes p) × prize(p), Malmuth-Harville on chips (weight of of chips in play), \
                 pot = the prizes' sum; cents: floor, then largest remainder, ties to the bigger stack (floor_rules::cents)"
            }
        }
    }
}

/// The figures a line's formula was applied to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Inputs {
    /// The amount divided (shares), paid back (refunds) or owed (prizes, bounties).
    pub pot: u64,
    /// The entry's weight in a share: its chips, or 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<u64>,
    /// The sum of the weights: chips in play, or the number sharing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<u64>,
    /// The place whose prize is paid (N).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<u32>,
    /// The line got one minor unit of the remainder.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub extra: bool,
}

/// One line of a statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Line {
    /// The entry it is for.
    pub entry: EntryNo,
    /// What it pays (and so its formula: [`LineKind::formula`]).
    pub kind: LineKind,
    /// The rule cited.
    pub rule: Rule,
    /// Minor units.
    pub amount: u64,
    /// The formula's inputs.
    pub inputs: Inputs,
}

/// What one player is paid, line by line, across their entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Statement {
    /// The player.
    pub player: PlayerId,
    /// Sum of the lines, minor units.
    pub total: u64,
    /// The lines, by entry, in the order the rule applies them.
    pub lines: Vec<Line>,
}

/// The tournament's money after the cancellation, minor units. Always:
/// `paid_in + transferred_in + overlay + operator_cover == fees_kept + prizes_already_paid +
/// bounties_already_paid + statements`, where `statements == refunds + distributed`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Books {
    /// Everything the entries paid.
    pub paid_in: u64,
    /// Of which fees.
    pub fees: u64,
    /// Of which prize-pool parts (bounty parts excluded): the collected prize pool.
    pub contributions: u64,
    /// Of which bounty parts.
    pub bounty_paid_in: u64,
    /// A flight's Day 2: the Day 1s' pools paid into its prize pool (payouts'
    /// `pool_transferred`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub transferred_in: u64,
    /// The operator's money topping the pool up to the guarantee.
    pub overlay: u64,
    /// Other operator money: what a rule owes beyond the pool (a refund of prizes or bounties
    /// already paid, a place prize the pool cannot pay, a place-prize top-up).
    pub operator_cover: u64,
    /// Fees the operator keeps.
    pub fees_kept: u64,
    /// Prizes paid before the cancellation.
    pub prizes_already_paid: u64,
    /// Bounty cash paid before the cancellation.
    pub bounties_already_paid: u64,
    /// Refund lines of the statements.
    pub refunds: u64,
    /// Every other line of the statements.
    pub distributed: u64,
    /// Sum of the statements.
    pub statements: u64,
}

impl Books {
    /// Money in equals money out, to the minor unit.
    pub fn balanced(&self) -> bool {
        let money_in =
            u128::from(self.paid_in) + u128::from(self.transferred_in) + u128::from(self.overlay) + u128::from(self.operator_cover);
        let money_out = u128::from(self.fees_kept)
            + u128::from(self.prizes_already_paid)
            + u128::from(self.bounties_already_paid)
            + u128::from(self.statements);
        money_in == money_out
            && u128::from(self.statements) == u128::from(self.refunds) + u128::from(self.distributed)
            && u128::from(self.paid_in) == u128::from(self.fees) + u128::from(self.contributions) + u128::from(self.bounty_paid_in)
    }
}

/// A tournament's cancellation: who gets what, why, and the books it closes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Cancellation {
    /// The rulebook.
    pub profile: RuleProfile,
    /// The method applied (never `rulebook` for a profile whose rulebook leaves the choice).
    pub method: Method,
    /// The branch of the rule taken.
    pub case: Case,
    /// The rule under which the operator chose the method, where the rulebook delegates
    /// (003 GP §10, 000 §16.12's published refund rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_under: Option<Rule>,
    /// The currency.
    pub currency: Currency,
    /// Entries still in (N).
    pub remaining: u32,
    /// Places the table pays.
    pub paid_places: u32,
    /// Chips of the entries still in, as pinned.
    pub chips_in_play: u64,
    /// The prize pool the rule divided (the collected pool, or the guarantee).
    pub pool: u64,
    /// The books.
    pub books: Books,
    /// One per player concerned, by player name.
    pub statements: Vec<Statement>,
}

impl Cancellation {
    /// The statement of one player.
    pub fn statement(&self, player: &PlayerId) -> Option<&Statement> {
        self.statements.binary_search_by(|s| s.player.cmp(player)).ok().map(|i| &self.statements[i])
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
