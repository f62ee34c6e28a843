//! The read model the `frequencies` verb answers from: per table version, the published odds
//! (from the first definition of that version read) and every game's drawn multiplier (from
//! `prize_drawn`), so a director compares what was drawn with what was published (operators
//! have had to refund when configured odds drifted from the published ones). Pure folds, kept
//! in the lottery policy's memory (so snapshotted with it, [`crate::policy::Memory`]).
//!
//! Rows are per multiplier: a table with two rows of the same multiplier (other splits) shows
//! their odds summed, since `prize_drawn` names the multiplier. A multiplier drawn that the
//! published table of its version does not have (a table changed without a new version) gets a
//! row of its own with 0 per million, after the published ones: the drift is shown, not hidden.

use floor_events::lottery::{Frequencies as Answer, FrequenciesOf, FrequencyRow, LotteryEvent};
use floor_events::registration::TournamentEvent;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One table version: published and drawn.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// Published per multiplier, per million, in the table's order (rows of one multiplier
    /// summed).
    pub published: Vec<(u32, u32)>,
    /// Games drawn.
    pub games: u64,
    /// Games per multiplier drawn.
    pub drawn: BTreeMap<u32, u64>,
}

/// Every table version's frequencies.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frequencies {
    versions: BTreeMap<String, Version>,
}

impl Frequencies {
    /// Registration's events: a lottery game's table, the first time its version is read.
    pub fn apply_tournament(&mut self, events: &[TournamentEvent]) {
        for e in events {
            let TournamentEvent::TournamentCreated(created) = e else { continue };
            let Some(terms) = &created.definition.lottery else { continue };
            let version = self.versions.entry(terms.version.clone()).or_default();
            if !version.published.is_empty() {
                continue;
            }
            for prize in &terms.prizes {
                match version.published.iter_mut().find(|(m, _)| *m == prize.multiplier) {
                    Some((_, odds)) => *odds = odds.saturating_add(prize.per_million),
                    None => version.published.push((prize.multiplier, prize.per_million)),
                }
            }
        }
    }

    /// A lottery game's events: its draw counted once.
    pub fn apply_lottery(&mut self, events: &[LotteryEvent]) {
        for e in events {
            let LotteryEvent::PrizeDrawn(drawn) = e else { continue };
            let version = self.versions.entry(drawn.version.clone()).or_default();
            version.games += 1;
            *version.drawn.entry(drawn.multiplier).or_default() += 1;
        }
    }

    /// The `frequencies` verb's answer: the version's frequencies ([`Frequencies::of`]), or the
    /// text rule a version breaks (too long, control characters, blank), as a definition's
    /// table version would be refused.
    pub fn answer(&self, request: &FrequenciesOf) -> floor_events::Reply<Answer> {
        match floor_events::text::TABLE_VERSION.check(&request.version) {
            Ok(()) => floor_events::Reply::Ok(self.of(&request.version)),
            Err(e) => floor_events::Reply::Error(floor_events::ErrorBody::new(e.code, e.to_string())),
        }
    }

    /// One version's published and drawn frequencies; no games and no rows for a version never
    /// read.
    pub fn of(&self, version: &str) -> Answer {
        let Some(v) = self.versions.get(version) else { return Answer { version: version.to_owned(), games: 0, rows: vec![] } };
        let count = |m: u32| v.drawn.get(&m).copied().unwrap_or(0);
        let mut rows: Vec<FrequencyRow> = v
            .published
            .iter()
            .map(|&(multiplier, per_million)| FrequencyRow { multiplier, per_million, drawn: count(multiplier) })
            .collect();
        for (&multiplier, &drawn) in &v.drawn {
            if !v.published.iter().any(|(m, _)| *m == multiplier) {
                rows.push(FrequencyRow { multiplier, per_million: 0, drawn });
            }
        }
        Answer { version: version.to_owned(), games: v.games, rows }
    }
}
