//! The lobby's lottery section (issue 37; 000 §16.10 "Twister", the format rooms call Spin &
//! Go): what a lottery sit & go's players see.
//!
//! - Before registration, the published prize table from the definition: its version, and each
//!   row's multiplier, odds (per million), the pool it makes (multiplier × buy-in) and how that
//!   pool is split by place; with the table's expected pool against what the seats pay in.
//! - Once the game is created, the lottery aggregate's `draw_committed`
//!   (`floor.ev.lottery.<t>`): the SHA-256 commitment of the seed, published before anyone
//!   registers.
//! - When the seats fill, `prize_drawn`: the number, the multiplier, the pool, each place's
//!   prize and the seed revealed, with whether SHA-256 of the seed is the commitment (anyone
//!   can check it: the page shows both).

use floor_events::lottery::{LotteryEvent, LotteryTerms, PER_MILLION};
use floor_events::tournament::TournamentDefinition;
use floor_events::Money;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The lottery section of a lobby document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyLottery {
    /// The published table's version.
    pub version: String,
    /// What the multipliers multiply: the definition's buy-in.
    pub buy_in: Money,
    /// The published rows, as the definition lists them.
    pub prizes: Vec<LotteryRow>,
    /// The expected pool: Σ per million × multiplier × buy-in ÷ 1,000,000, rounded down.
    pub expected_pool: Money,
    /// What a full game's seats pay in (fees included).
    pub paid_in: Money,
    /// The commitment to the draw's seed (SHA-256, hex), once published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// The draw, once the seats filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawn: Option<LotteryDrawn>,
}

/// One published row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LotteryRow {
    /// The pool is this many times the buy-in.
    pub multiplier: u32,
    /// Draws per million that give this row.
    pub per_million: u32,
    /// The pool it makes.
    pub pool: Money,
    /// Each place's share of it, basis points, first place first.
    pub split_bps: Vec<u32>,
}

/// The draw, as the lottery aggregate recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LotteryDrawn {
    /// The number drawn, 0 .. 1,000,000.
    pub number: u32,
    /// The multiplier.
    pub multiplier: u32,
    /// The prize pool.
    pub pool: Money,
    /// Each place's prize, first place first.
    pub prizes: Vec<Money>,
    /// The seed, revealed (hex).
    pub seed: String,
    /// SHA-256 of the seed is the commitment published before registration.
    pub verified: bool,
}

/// SHA-256 of a hex seed, as lower-case hex; `None` for a seed that is not hex.
pub fn seed_hash(seed: &str) -> Option<String> {
    if !seed.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..seed.len()).step_by(2).map(|i| u8::from_str_radix(seed.get(i..i + 2)?, 16).ok()).collect();
    let digest = Sha256::digest(bytes?);
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

impl LobbyLottery {
    /// The section of a definition with a lottery; `None` for any other.
    pub fn new(definition: &TournamentDefinition) -> Option<Self> {
        let terms: &LotteryTerms = definition.lottery.as_ref()?;
        let buy_in = definition.buy_in;
        let times = |m: u32| Money::new(buy_in.amount.saturating_mul(u64::from(m)), buy_in.currency);
        let prizes = terms
            .prizes
            .iter()
            .map(|p| LotteryRow {
                multiplier: p.multiplier,
                per_million: p.per_million,
                pool: times(p.multiplier),
                split_bps: p.split_bps.clone(),
            })
            .collect();
        let expected: u128 = terms.prizes.iter().map(|p| u128::from(p.per_million) * u128::from(p.multiplier)).sum::<u128>()
            * u128::from(buy_in.amount)
            / u128::from(PER_MILLION);
        let paid_in = definition.entry_ledger().paid_in;
        Some(Self {
            version: terms.version.clone(),
            buy_in,
            prizes,
            expected_pool: Money::new(u64::try_from(expected).unwrap_or(u64::MAX), buy_in.currency),
            paid_in: Money::new(paid_in.amount.saturating_mul(u64::from(definition.capacity)), paid_in.currency),
            commitment: None,
            drawn: None,
        })
    }

    /// Folds one event of the game's lottery log.
    pub fn evolve(mut self, event: &LotteryEvent) -> Self {
        match event {
            LotteryEvent::DrawCommitted(c) => self.commitment = Some(c.commitment.clone()),
            LotteryEvent::PrizeDrawn(d) => {
                let verified = self.commitment.as_deref().is_some_and(|c| seed_hash(&d.seed).is_some_and(|h| h.eq_ignore_ascii_case(c)));
                self.drawn = Some(LotteryDrawn {
                    number: d.number,
                    multiplier: d.multiplier,
                    pool: d.pool,
                    prizes: d.prizes.iter().map(|&p| Money::new(p, d.pool.currency)).collect(),
                    seed: d.seed.clone(),
                    verified,
                });
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::LobbyDocument;
    use floor_events::lottery::{DrawCommitted, LotteryPrize, PrizeDrawn};
    use floor_events::tournament::{Fee, Start};
    use floor_events::{Currency, TournamentId};

    fn eur(c: u64) -> Money {
        Money::new(c, Currency::EUR)
    }

    fn at() -> chrono::DateTime<chrono::Utc> {
        "2027-01-10T17:00:00Z".parse().unwrap()
    }

    /// A three-seat €5 + €0.25 game: x2 most of the time, x1,000 once in a million.
    pub(crate) fn lottery() -> TournamentDefinition {
        let row = |multiplier, per_million, split: &[u32]| LotteryPrize { multiplier, per_million, split_bps: split.to_vec() };
        TournamentDefinition {
            name: "Spin".into(),
            start: Start::SitAndGo,
            capacity: 3,
            min_players: 3,
            table_size: 3,
            buy_in: eur(500),
            fee: Fee::OnTop(eur(25)),
            late_registration_until: None,
            lottery: Some(LotteryTerms {
                version: "spin-2027-01".into(),
                prizes: vec![
                    row(1_000, 1, &[8_000, 1_000, 1_000]),
                    row(10, 9_999, &[10_000]),
                    row(5, 90_000, &[10_000]),
                    row(2, 900_000, &[10_000]),
                ],
            }),
            ..TournamentDefinition::example()
        }
    }

    #[test]
    fn the_published_table_is_shown_before_registration() {
        let doc = LobbyDocument::created(TournamentId::new(), &lottery(), at(), 1);
        let l = doc.lottery.clone().expect("a lottery section");
        assert_eq!(l.version, "spin-2027-01");
        assert_eq!(
            l.prizes.iter().map(|r| (r.multiplier, r.per_million, r.pool)).collect::<Vec<_>>(),
            [(1_000, 1, eur(500_000)), (10, 9_999, eur(5_000)), (5, 90_000, eur(2_500)), (2, 900_000, eur(1_000))]
        );
        // 0.001 + 0.09999 + 0.45 + 1.8 = 2.35099 buy-ins: €11.75 of €15.75 paid in.
        assert_eq!((l.expected_pool, l.paid_in), (eur(1_175), eur(1_575)));
        assert!(l.commitment.is_none() && l.drawn.is_none());
        assert!(doc.projected_payouts().is_none(), "no table before the draw: the pool is drawn");
    }

    #[test]
    fn the_commitment_then_the_draw_with_its_seed_checked() {
        let seed = "00".repeat(32);
        let commitment = seed_hash(&seed).unwrap();
        // SHA-256 of 32 zero bytes.
        assert_eq!(commitment, "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
        assert_eq!(seed_hash("0"), None);
        assert_eq!(seed_hash("zz"), None);
        let mut doc = LobbyDocument::created(TournamentId::new(), &lottery(), at(), 1);
        doc = doc.evolve_lottery(&LotteryEvent::DrawCommitted(DrawCommitted {
            version: "spin-2027-01".into(),
            commitment: commitment.clone(),
            at: at(),
        }));
        assert_eq!(doc.lottery.as_ref().unwrap().commitment.as_deref(), Some(commitment.as_str()));
        let drawn = |seed: &str| {
            LotteryEvent::PrizeDrawn(PrizeDrawn {
                version: "spin-2027-01".into(),
                number: 950_123,
                multiplier: 5,
                pool: eur(2_500),
                prizes: vec![2_500],
                seed: seed.into(),
                at: at(),
            })
        };
        let good = doc.clone().evolve_lottery(&drawn(&seed));
        let d = good.lottery.as_ref().unwrap().drawn.clone().expect("drawn");
        assert_eq!((d.multiplier, d.pool, d.prizes.clone(), d.verified), (5, eur(2_500), vec![eur(2_500)], true));
        let bad = doc.evolve_lottery(&drawn(&"01".repeat(32)));
        assert!(!bad.lottery.as_ref().unwrap().drawn.as_ref().unwrap().verified, "a seed that is not the committed one");
    }
}
