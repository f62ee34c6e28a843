//! Bounties: the terms a tournament definition carries, the bounties aggregate's events
//! (`floor.ev.bounties.<tournament_id>`) and the director's requests. Spec §8; 004 §4.36.15
//! (knockout, progressive knockout, mystery bounty), 002 §2.10 (target bounty), practice §3.1–3.3.
//!
//! Money flows like this: every entry, re-entry and rebuy puts `share_bps` of its prize-pool
//! part (the net buy-in: what is left after the fee) into the bounty pool, and the bounties
//! service writes that as a [`BountyEvent::BountyPaidIn`] line. The payouts service's prize pool
//! is the registration ledger's prize pool less these lines. Every elimination moves bounty money
//! ([`BountyEvent::BountyPaid`]); the winner takes what is left ([`BountyEvent::WinnerBounty`]),
//! so at the end the bounty pool is paid out to the cent. `docs/bounties.md` has the rules.

use crate::ids::{CommandId, EntryNo, PlayerId, TournamentId};
use crate::money::Money;
use crate::profile::RuleProfile;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Verbs of the bounties service: `floor.cmd.bounties.<verb>`.
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// The director names (or renames) a target bounty's target before the start.
    pub const NAME_TARGET: Verb<NameTarget, BountiesRecorded> = Verb::new(service::BOUNTIES, "name_target");
    /// The director starts a mystery bounty stage now (for a stage the triggers do not reach,
    /// such as "Day 2").
    pub const START_MYSTERY_STAGE: Verb<DirectorRequest, BountiesRecorded> = Verb::new(service::BOUNTIES, "start_mystery_stage");
}

/// The PKO eliminator's default cash share: half (004 §4.36.15, "most tournaments use 50 %").
pub const DEFAULT_CASH_SHARE_BPS: u32 = 5_000;
/// Most envelope tiers a mystery bounty may publish.
pub const MAX_ENVELOPE_TIERS: usize = 100;

fn default_cash_share() -> u32 {
    DEFAULT_CASH_SHARE_BPS
}

/// A tournament's bounty terms (`bounty` in the definition). Every kind names `share_bps`: the
/// share of each net buy-in (an entry's, a re-entry's or a rebuy's prize-pool part) that goes to
/// the bounty pool, in basis points (50 % = 5000).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BountyTerms {
    /// Knockout: each entry carries its bounty part; its eliminator is paid it in cash at once,
    /// in the money or not; the winner collects their own (004 §4.36.15).
    Knockout {
        /// Bounty share of the net buy-in, basis points.
        share_bps: u32,
    },
    /// Progressive knockout: the eliminator gets `cash_share_bps` of the eliminated entry's
    /// bounty in cash and the rest is added to their own bounty; the winner takes their whole
    /// own bounty (004 §4.36.15).
    Progressive {
        /// Bounty share of the net buy-in, basis points.
        share_bps: u32,
        /// The eliminator's cash share of a bounty collected, basis points; default 5000.
        #[serde(default = "default_cash_share")]
        cash_share_bps: u32,
    },
    /// Mystery bounty: the bounty pool is divided into published envelopes; from the stage on,
    /// each elimination draws one at random (seed committed before the stage, revealed after);
    /// eliminations before the stage pay no bounty (004 §4.36.15, practice §3.1, §3.3).
    Mystery {
        /// Bounty share of the net buy-in, basis points.
        share_bps: u32,
        /// The envelopes: each tier's envelopes are worth `share_bps` of the bounty pool each;
        /// all envelopes together are the whole pool (10,000 basis points).
        envelopes: Vec<EnvelopeTier>,
        /// When the draws begin.
        stage: MysteryStage,
    },
    /// Target bounty: whoever eliminates a predetermined player, known or hidden until
    /// eliminated, wins the bounty pool (002 §2.10, T-9.1).
    Target {
        /// Bounty share of the net buy-in, basis points: the target's prize.
        share_bps: u32,
        /// The target.
        player: PlayerId,
        /// The target is shown in the lobby before being eliminated.
        #[serde(default)]
        public: bool,
    },
}

/// Envelopes of one value in a mystery bounty: `count` envelopes each worth `share_bps` of the
/// bounty pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeTier {
    /// One envelope's share of the bounty pool, basis points.
    pub share_bps: u32,
    /// How many envelopes of this value.
    pub count: u32,
}

/// When a mystery bounty's draws begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "at", rename_all = "snake_case", deny_unknown_fields)]
pub enum MysteryStage {
    /// In the money (after the bubble, as the bubble service announces it): PokerStars' stage.
    InTheMoney,
    /// When this level of the blind structure starts.
    Level {
        /// The level number, from 1.
        level: u32,
    },
    /// When this many players or fewer are left.
    PlayersLeft {
        /// Players left.
        players: u32,
    },
}

/// The envelope values a mystery stage opened with, and later those left: `count` envelopes of
/// `value` each. Listed from the largest value down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Envelopes {
    /// One envelope's value.
    pub value: Money,
    /// How many.
    pub count: u32,
}

/// The ranges a profile allows, in basis points, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BountyRules {
    /// Knockout bounty share of the net buy-in (004 §4.36.15: 10–100 %).
    pub knockout_share_bps: (u32, u32),
    /// Progressive knockout bounty share (004 §4.36.15: 30–100 %).
    pub progressive_share_bps: (u32, u32),
    /// PKO eliminator's cash share (004 §4.36.15: 25–75 %).
    pub cash_share_bps: (u32, u32),
    /// Mystery and target bounty shares: no rulebook gives a range; any non-zero share.
    pub other_share_bps: (u32, u32),
}

impl RuleProfile {
    /// The bounty ranges of this profile. Only 004 publishes them; the other rulebooks are
    /// silent (002 allows knockout and target bounties without numbers), so every profile uses
    /// 004's ranges, the documented practice.
    pub fn bounties(self) -> BountyRules {
        BountyRules {
            knockout_share_bps: (1_000, 10_000),
            progressive_share_bps: (3_000, 10_000),
            cash_share_bps: (2_500, 7_500),
            other_share_bps: (1, 10_000),
        }
    }
}

/// Why bounty terms are refused: a stable code and a message naming the part at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermsError {
    /// Stable code.
    pub code: &'static str,
    /// Why.
    pub message: String,
}

impl BountyTerms {
    /// The bounty share of the net buy-in, basis points.
    pub fn share_bps(&self) -> u32 {
        match self {
            Self::Knockout { share_bps } | Self::Progressive { share_bps, .. } => *share_bps,
            Self::Mystery { share_bps, .. } | Self::Target { share_bps, .. } => *share_bps,
        }
    }

    /// The bounty part of a net buy-in (a prize-pool part), rounded down to the minor unit: the
    /// remainder stays in the prize pool, as with a fee share.
    pub fn bounty_part(&self, prize_pool: Money) -> Money {
        prize_pool.share_bps(self.share_bps())
    }

    /// The kind's name, as written in tournament files.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Knockout { .. } => "knockout",
            Self::Progressive { .. } => "progressive",
            Self::Mystery { .. } => "mystery",
            Self::Target { .. } => "target",
        }
    }

    /// Checks the terms against `profile`'s ranges.
    ///
    /// # Errors
    /// [`crate::codes::BOUNTY_SHARE_OUT_OF_RANGE`] for a share outside its range,
    /// [`crate::codes::MYSTERY_VALUES_DO_NOT_SUM`] for envelopes that are not the whole pool.
    pub fn validate(&self, profile: RuleProfile) -> Result<(), TermsError> {
        let rules = profile.bounties();
        let range = match self {
            Self::Knockout { .. } => rules.knockout_share_bps,
            Self::Progressive { .. } => rules.progressive_share_bps,
            Self::Mystery { .. } | Self::Target { .. } => rules.other_share_bps,
        };
        within(self.share_bps(), range, &format!("the {} bounty share", self.kind()), profile)?;
        match self {
            Self::Progressive { cash_share_bps, .. } => {
                within(*cash_share_bps, rules.cash_share_bps, "the eliminator's cash share", profile)
            }
            Self::Mystery { envelopes, .. } => validate_envelopes(envelopes),
            Self::Knockout { .. } | Self::Target { .. } => Ok(()),
        }
    }
}

fn within(bps: u32, (low, high): (u32, u32), what: &str, profile: RuleProfile) -> Result<(), TermsError> {
    if (low..=high).contains(&bps) {
        return Ok(());
    }
    Err(TermsError {
        code: crate::codes::BOUNTY_SHARE_OUT_OF_RANGE,
        message: format!("{what} must be {}-{} % under profile {profile} (004 §4.36.15); got {}", low / 100, high / 100, percent(bps)),
    })
}

fn percent(bps: u32) -> String {
    format!("{}.{:02} %", bps / 100, bps % 100)
}

fn validate_envelopes(tiers: &[EnvelopeTier]) -> Result<(), TermsError> {
    let refuse = |message: String| Err(TermsError { code: crate::codes::MYSTERY_VALUES_DO_NOT_SUM, message });
    if tiers.is_empty() || tiers.len() > MAX_ENVELOPE_TIERS {
        return refuse(format!("a mystery bounty publishes 1-{MAX_ENVELOPE_TIERS} envelope values, got {}", tiers.len()));
    }
    if let Some(t) = tiers.iter().find(|t| t.count == 0 || t.share_bps == 0) {
        return refuse(format!("every envelope value needs at least one envelope and a share above zero: {t:?}"));
    }
    let total: u64 = tiers.iter().map(|t| u64::from(t.share_bps) * u64::from(t.count)).sum();
    if total != 10_000 {
        return refuse(format!("the envelopes add up to {}; together they must be the whole bounty pool (100 %)", percent_u64(total)));
    }
    Ok(())
}

fn percent_u64(bps: u64) -> String {
    format!("{}.{:02} %", bps / 100, bps % 100)
}

/// The director names the target of a target bounty (before the start).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NameTarget {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The target: a player with an entry.
    pub player: PlayerId,
    /// Shown in the lobby before being eliminated.
    #[serde(default)]
    pub public: bool,
}

/// A director's request on one tournament's bounties.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectorRequest {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
}

/// Where a bounty ledger line's money came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PaidInBy {
    /// An entry (registration, late registration, multi-entry).
    Entry,
    /// A re-entry: a new entry with a bounty of its own.
    ReEntry,
    /// A rebuy of an entry: its bounty part joins the entry's bounty.
    Rebuy {
        /// The entry's rebuy number, from 1.
        number: u32,
    },
}

/// What started a mystery stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StageTrigger {
    /// The definition's trigger was reached.
    Reached {
        /// Which.
        stage: MysteryStage,
    },
    /// The director started it.
    Director,
}

/// The bounties aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BountyEvent {
    /// The tournament's bounty terms.
    BountiesConfigured {
        /// The tournament.
        tournament_id: TournamentId,
        /// The terms.
        terms: BountyTerms,
        /// The buy-in's currency.
        currency: crate::money::Currency,
    },
    /// A bounty ledger line: an entry's, re-entry's or rebuy's bounty part, into the pool.
    BountyPaidIn {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// Entry, re-entry or rebuy.
        by: PaidInBy,
        /// The bounty part.
        amount: Money,
    },
    /// An entry's bounty lines paid back (unregistered or cancelled before the start).
    BountyRefunded {
        /// The entry.
        entry: EntryNo,
        /// What it had paid in.
        amount: Money,
    },
    /// The tournament started.
    BountiesStarted {
        /// When.
        at: DateTime<Utc>,
    },
    /// The director named the target.
    TargetNamed {
        /// The target.
        player: PlayerId,
        /// Shown before being eliminated.
        public: bool,
    },
    /// The tournament started without its target: nobody can win the target bounty, and the
    /// pool goes to the winner.
    TargetAbsent {
        /// The target named.
        player: PlayerId,
    },
    /// The mystery stage started: the envelopes are fixed and the seed of their draws committed.
    MysteryStageStarted {
        /// What started it.
        trigger: StageTrigger,
        /// SHA-256 of the draws' seed, hex.
        commitment: String,
        /// The bounty pool the envelopes divide.
        pool: Money,
        /// The envelopes, largest value first.
        envelopes: Vec<Envelopes>,
        /// When.
        at: DateTime<Utc>,
    },
    /// An entry is out; `bounty` is what its elimination moves (zero when nothing: a mystery
    /// elimination before the stage, a target bounty's other players).
    EntryKnockedOut {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// The bounty at stake.
        bounty: Money,
        /// Nobody won its chips (a director's removal): the bounty stays in the pool for the
        /// winner.
        unclaimed: bool,
    },
    /// A mystery envelope drawn for an elimination.
    EnvelopeDrawn {
        /// The draw's number in the stage, from 1.
        draw: u32,
        /// The entry whose elimination drew it.
        eliminated: EntryNo,
        /// Its value.
        value: Money,
    },
    /// The target was eliminated.
    TargetEliminated {
        /// The target's entry.
        entry: EntryNo,
        /// The target.
        player: PlayerId,
        /// The prize.
        prize: Money,
    },
    /// Bounty money to an eliminator.
    BountyPaid {
        /// Who collects.
        to: EntryNo,
        /// Their player.
        player: PlayerId,
        /// For whose elimination.
        eliminated: EntryNo,
        /// The eliminated player.
        eliminated_player: PlayerId,
        /// Paid in cash now.
        cash: Money,
        /// Added to the collector's own bounty (progressive knockout).
        added_to_own: Money,
    },
    /// The winner's own bounty: everything left in the bounty pool (their own bounty, and any
    /// bounty nobody could win).
    WinnerBounty {
        /// The winning entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// The winner's own bounty (knockout, progressive knockout).
        own: Money,
        /// The rest: unclaimed bounties, undrawn envelopes, a target bounty nobody won, money
        /// paid in after the stage or the target.
        left_over: Money,
    },
    /// The mystery draws' seed, revealed at the end: its SHA-256 is the commitment.
    MysterySeedRevealed {
        /// The seed, hex.
        seed: String,
    },
}

/// The reply to a director's request: the events it recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BountiesRecorded {
    /// The events (empty when it was already done).
    pub events: Vec<BountyEvent>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes;
    use crate::money::Currency;

    fn pko(share_bps: u32, cash_share_bps: u32) -> BountyTerms {
        BountyTerms::Progressive { share_bps, cash_share_bps }
    }

    #[test]
    fn shares_are_checked_against_004s_ranges_both_ends_included() {
        let p = RuleProfile::FortunaCz2024;
        for (case, terms, ok) in [
            ("KO 10 %", BountyTerms::Knockout { share_bps: 1_000 }, true),
            ("KO 9.99 %", BountyTerms::Knockout { share_bps: 999 }, false),
            ("KO 100 %", BountyTerms::Knockout { share_bps: 10_000 }, true),
            ("KO 100.01 %", BountyTerms::Knockout { share_bps: 10_001 }, false),
            ("PKO 30 %", pko(3_000, 5_000), true),
            ("PKO 29.99 %", pko(2_999, 5_000), false),
            ("PKO cash 25 %", pko(5_000, 2_500), true),
            ("PKO cash 75 %", pko(5_000, 7_500), true),
            ("PKO cash 24.99 %", pko(5_000, 2_499), false),
            ("PKO cash 75.01 %", pko(5_000, 7_501), false),
            ("target 0 %", BountyTerms::Target { share_bps: 0, player: PlayerId::parse("ana").unwrap(), public: true }, false),
        ] {
            let result = terms.validate(p).map_err(|e| e.code);
            if ok {
                assert_eq!(result, Ok(()), "{case}");
            } else {
                assert_eq!(result, Err(codes::BOUNTY_SHARE_OUT_OF_RANGE), "{case}");
            }
        }
    }

    #[test]
    fn mystery_envelopes_must_be_the_whole_pool() {
        let mystery = |envelopes: Vec<EnvelopeTier>| BountyTerms::Mystery { share_bps: 5_000, envelopes, stage: MysteryStage::InTheMoney };
        let tier = |share_bps, count| EnvelopeTier { share_bps, count };
        assert_eq!(mystery(vec![tier(2_000, 1), tier(1_000, 4), tier(500, 8)]).validate(RuleProfile::Tda2024), Ok(()));
        for (case, envelopes) in [
            ("99 %", vec![tier(2_000, 1), tier(1_000, 4), tier(500, 7), tier(400, 1)]),
            ("101 %", vec![tier(2_000, 1), tier(1_000, 4), tier(500, 8), tier(100, 1)]),
            ("none", vec![]),
            ("a tier of no envelopes", vec![tier(10_000, 1), tier(500, 0)]),
        ] {
            assert_eq!(
                mystery(envelopes).validate(RuleProfile::Tda2024).map_err(|e| e.code),
                Err(codes::MYSTERY_VALUES_DO_NOT_SUM),
                "{case}"
            );
        }
    }

    #[test]
    fn the_bounty_part_rounds_down_and_terms_read_from_toml_shaped_json() {
        let terms: BountyTerms = serde_json::from_str(r#"{"kind": "progressive", "share_bps": 5000}"#).unwrap();
        assert_eq!(terms, pko(5_000, DEFAULT_CASH_SHARE_BPS), "the cash share defaults to half");
        assert_eq!(terms.bounty_part(Money::new(1_001, Currency::EUR)), Money::new(500, Currency::EUR));
        assert!(serde_json::from_str::<BountyTerms>(r#"{"kind": "knockout", "share_bps": 5000, "cash": 1}"#).is_err(), "unknown field");
        let mystery: BountyTerms = serde_json::from_str(
            r#"{"kind": "mystery", "share_bps": 5000, "envelopes": [{"share_bps": 10000, "count": 1}], "stage": {"at": "players_left", "players": 9}}"#,
        )
        .unwrap();
        assert_eq!(mystery.validate(RuleProfile::Tda2024), Ok(()));
    }
}
