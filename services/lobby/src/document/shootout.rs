//! The lobby's shootout section (issue 37; 003 App. 1 b ii, 004 §4.36.3): what a shootout's
//! players are shown before they enter and while it runs.
//!
//! - Its terms, from the definition: players advancing per table, what a short field does, and
//!   whether a round's stacks are carried or reset.
//! - The bracket as planned: for the field (the capacity before the start, the field that
//!   started round 1 after), each round's entries, tables and players advancing, the way
//!   seating draws them (as few tables as the round needs, as even as the draw makes them; a
//!   table drawn with no more players than `advance` plays until one is out; the last round is
//!   one table, played to a winner).
//! - The rounds played, from the shootout aggregate (`floor.ev.shootout.<t>`: `round_started`,
//!   `round_completed`): each round's entries and, once complete, how many advanced; the round
//!   in play. Counts only: the entries themselves are the `shootouts.bracket` verb's (`floor
//!   shootout bracket`), so the document does not grow with the field.
//!
//! Each table's progress in the round is the seat map's (`SeatsSummary::shootout`, folded from
//! seating's `table_won` and the round draws), shown in the page's tables section.

use floor_events::shootouts::{RoundStacks, ShootoutEvent, ShootoutTerms, ShortField};
use serde::{Deserialize, Serialize};

/// Most rounds a plan lists (a 2-max shootout of a million players has 20).
const MOST_ROUNDS: usize = 64;

/// The shootout section of a lobby document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyShootout {
    /// Players who advance from each table of a round that is not the last.
    pub advance: u32,
    /// A field that does not fill the first round's tables.
    pub short_field: ShortField,
    /// Stacks carried into the next round, or the starting stack again.
    pub stacks: RoundStacks,
    /// The bracket as planned for `planned_for` entries.
    pub plan: Vec<PlannedRound>,
    /// The field the plan is for: the capacity before the start, then round 1's entries.
    pub planned_for: u32,
    /// The rounds started so far, first first.
    pub rounds: Vec<LobbyRound>,
    /// Prizes per round reached and for tables won (issue 37, 004 §4.36.3), shown before
    /// entering (003 App. 1 b ii).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prizes: Option<floor_events::shootouts::ShootoutPrizes>,
    /// Scheduled rounds: the earliest start of round 2, round 3, …
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_starts: Vec<chrono::DateTime<chrono::Utc>>,
}

/// One round of the planned bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedRound {
    /// 1 for the first.
    pub round: u32,
    /// Players in it.
    pub entries: u32,
    /// Its tables.
    pub tables: u32,
    /// Players who advance from it (1 for the last round: the winner).
    pub advancing: u32,
}

/// One round as the shootout aggregate recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyRound {
    /// 1 for the first.
    pub round: u32,
    /// Entries that started it.
    pub entries: u32,
    /// Entries that won it, once complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advancing: Option<u32>,
}

/// Players a table drawn with `drawn` plays down to (seating's rule): `advance`, or one fewer
/// than it was drawn with, at least one.
fn target(advance: u32, drawn: u32) -> u32 {
    advance.min(drawn.saturating_sub(1)).max(1)
}

/// The bracket a field of `entries` plays at tables of `table_size`, `advance` players going on
/// from each table: a round's tables are as few as it needs and as even as can be; the round
/// that fits one table is the last, played to a winner. Empty for fewer than two entries.
pub fn plan(entries: u32, table_size: u8, advance: u32) -> Vec<PlannedRound> {
    plan_short(entries, table_size, advance, ShortField::Uneven)
}

/// [`plan`] with the definition's short field (issue 37): `trim` plays the full tables' players
/// (the rest refunded at the start); `byes` plays full first-round tables, the byes joining
/// round 2 (as seating draws them: the field modulo the table size).
pub fn plan_short(entries: u32, table_size: u8, advance: u32, short_field: ShortField) -> Vec<PlannedRound> {
    let size = u32::from(table_size).max(2);
    let mut rounds = Vec::new();
    let mut n = match short_field {
        ShortField::Trim => entries - floor_events::shootouts::trimmed(entries, table_size),
        _ => entries,
    };
    let byes = match short_field {
        ShortField::Byes => floor_events::shootouts::byes(n, table_size),
        _ => 0,
    };
    if byes > 0 && n >= 2 {
        let tables = (n - byes) / size;
        let advancing = tables * target(advance, size) + byes;
        rounds.push(PlannedRound { round: 1, entries: n, tables, advancing });
        n = advancing;
    }
    while n >= 2 && rounds.len() < MOST_ROUNDS {
        let round = rounds.len() as u32 + 1;
        if n <= size {
            rounds.push(PlannedRound { round, entries: n, tables: 1, advancing: 1 });
            break;
        }
        let tables = n.div_ceil(size);
        let (small, big) = (n / tables, n % tables);
        // `big` tables of `small + 1`, the rest of `small`.
        let advancing = big * target(advance, small + 1) + (tables - big) * target(advance, small);
        rounds.push(PlannedRound { round, entries: n, tables, advancing });
        if advancing >= n {
            break;
        }
        n = advancing;
    }
    rounds
}

impl LobbyShootout {
    /// The section of a shootout with these terms, planned for `capacity` entries.
    pub fn new(terms: &ShootoutTerms, capacity: u32, table_size: u8) -> Self {
        Self {
            advance: terms.advance,
            short_field: terms.short_field,
            stacks: terms.stacks,
            plan: plan_short(capacity, table_size, terms.advance, terms.short_field),
            planned_for: capacity,
            rounds: vec![],
            prizes: terms.prizes.clone(),
            round_starts: terms.round_starts.clone(),
        }
    }

    /// The round being played: the last started and not complete.
    pub fn in_play(&self) -> Option<&LobbyRound> {
        self.rounds.last().filter(|r| r.advancing.is_none())
    }

    /// Folds one event of the shootout's own log; `table_size` replans round 1's field.
    pub fn evolve(mut self, event: &ShootoutEvent, table_size: u8) -> Self {
        match event {
            ShootoutEvent::RoundStarted(started) => {
                let entries = started.entries.len() as u32;
                if started.round == 1 && self.planned_for != entries {
                    // Round 1 is the field after any trim: only byes change its plan now.
                    let short = if self.short_field == ShortField::Byes { ShortField::Byes } else { ShortField::Uneven };
                    self.plan = plan_short(entries, table_size, self.advance, short);
                    self.planned_for = entries;
                }
                match self.rounds.iter_mut().find(|r| r.round == started.round) {
                    Some(r) => r.entries = entries,
                    None => {
                        self.rounds.push(LobbyRound { round: started.round, entries, advancing: None });
                        self.rounds.sort_by_key(|r| r.round);
                    }
                }
            }
            ShootoutEvent::RoundCompleted(completed) => {
                if let Some(r) = self.rounds.iter_mut().find(|r| r.round == completed.round) {
                    r.advancing = Some(completed.advancing.len() as u32);
                }
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::LobbyDocument;
    use floor_events::shootouts::{RoundCompleted, RoundStarted};
    use floor_events::tournament::{Start, TournamentDefinition};
    use floor_events::{EntryNo, TournamentId};

    fn at() -> chrono::DateTime<chrono::Utc> {
        "2027-01-10T17:00:00Z".parse().unwrap()
    }

    fn planned(rounds: &[PlannedRound]) -> Vec<(u32, u32, u32)> {
        rounds.iter().map(|r| (r.entries, r.tables, r.advancing)).collect()
    }

    /// The cases: 729 → 81 → 9 → 1 at 9-max, 64 at 8-max is a double shootout, uneven
    /// first-round tables (20 at 9-max: 7/7/6), and advance 2.
    #[test]
    fn a_short_field_s_plan_has_its_byes_or_its_trim() {
        // 20 at 9-max: two full tables and two byes, then a final of four; trimmed, 18 play.
        assert_eq!(planned(&plan_short(20, 9, 1, ShortField::Byes)), [(20, 2, 4), (4, 1, 1)]);
        assert_eq!(planned(&plan_short(20, 9, 1, ShortField::Trim)), [(18, 2, 2), (2, 1, 1)]);
        assert_eq!(planned(&plan_short(20, 9, 1, ShortField::Uneven)), [(20, 3, 3), (3, 1, 1)]);
        // 12 at 9-max with byes: one table and three byes is not the last round.
        assert_eq!(planned(&plan_short(12, 9, 1, ShortField::Byes)), [(12, 1, 4), (4, 1, 1)]);
    }

    #[test]
    fn the_plan_is_the_rounds_seating_draws() {
        assert_eq!(planned(&plan(729, 9, 1)), [(729, 81, 81), (81, 9, 9), (9, 1, 1)]);
        assert_eq!(planned(&plan(6_561, 9, 1)), [(6_561, 729, 729), (729, 81, 81), (81, 9, 9), (9, 1, 1)]);
        assert_eq!(planned(&plan(64, 8, 1)), [(64, 8, 8), (8, 1, 1)]);
        assert_eq!(planned(&plan(20, 9, 1)), [(20, 3, 3), (3, 1, 1)]);
        assert_eq!(planned(&plan(36, 6, 2)), [(36, 6, 12), (12, 2, 4), (4, 1, 1)]);
        // 10 on 9-max advancing 8: two tables of five each play down to four, then eight.
        assert_eq!(planned(&plan(10, 9, 8)), [(10, 2, 8), (8, 1, 1)]);
        assert_eq!(planned(&plan(9, 9, 1)), [(9, 1, 1)]);
        assert!(plan(1, 9, 1).is_empty());
        // Every plan shrinks, round after round, and ends at one table.
        for n in 2..400 {
            for (size, advance) in [(2, 1), (3, 1), (6, 2), (9, 1), (9, 3), (10, 9)] {
                let p = plan(n, size, advance);
                assert!(p.windows(2).all(|w| w[1].entries == w[0].advancing && w[1].entries < w[0].entries), "{n} {size} {advance}");
                assert_eq!(p.last().map(|r| (r.tables, r.advancing)), Some((1, 1)), "{n} {size} {advance}");
            }
        }
    }

    fn shootout() -> TournamentDefinition {
        TournamentDefinition {
            name: "Shootout".into(),
            start: Start::At("2027-01-10T18:00:00Z".parse().unwrap()),
            table_size: 8,
            capacity: 64,
            late_registration_until: None,
            shootout: Some(ShootoutTerms { stacks: RoundStacks::Reset, ..ShootoutTerms::new(1) }),
            ..TournamentDefinition::example()
        }
    }

    fn started(round: u32, entries: std::ops::RangeInclusive<u32>) -> ShootoutEvent {
        ShootoutEvent::RoundStarted(RoundStarted { round, entries: entries.map(EntryNo).collect(), at: at() })
    }

    fn completed(round: u32, advancing: &[u32]) -> ShootoutEvent {
        ShootoutEvent::RoundCompleted(RoundCompleted { round, advancing: advancing.iter().copied().map(EntryNo).collect(), at: at() })
    }

    #[test]
    fn the_terms_and_plan_are_shown_before_registration_and_the_rounds_as_they_are_played() {
        let mut doc = LobbyDocument::created(TournamentId::new(), &shootout(), at(), 1);
        let s = doc.shootout.clone().expect("a shootout section");
        assert_eq!((s.advance, s.stacks, s.planned_for), (1, RoundStacks::Reset, 64));
        assert_eq!(planned(&s.plan), [(64, 8, 8), (8, 1, 1)]);
        assert!(s.in_play().is_none());
        // 60 came: round 1 is replanned for them (8 tables of 7 or 8, then a final of 8).
        doc = doc.evolve_shootout(&started(1, 1..=60));
        let s = doc.shootout.as_ref().unwrap();
        assert_eq!((s.planned_for, planned(&s.plan)), (60, vec![(60, 8, 8), (8, 1, 1)]));
        assert_eq!(s.in_play(), Some(&LobbyRound { round: 1, entries: 60, advancing: None }));
        doc = doc.evolve_shootout(&completed(1, &[3, 9, 17, 22, 30, 41, 50, 58]));
        doc = doc.evolve_shootout(&started(2, 1..=8));
        // Told twice: the same.
        doc = doc.evolve_shootout(&started(2, 1..=8));
        let s = doc.shootout.as_ref().unwrap();
        assert_eq!(
            s.rounds,
            vec![LobbyRound { round: 1, entries: 60, advancing: Some(8) }, LobbyRound { round: 2, entries: 8, advancing: None }]
        );
        assert_eq!(s.in_play().map(|r| r.round), Some(2));
        doc = doc.evolve_shootout(&completed(2, &[17]));
        assert!(doc.shootout.as_ref().unwrap().in_play().is_none());
        let json = serde_json::to_value(&doc).unwrap();
        assert_eq!(json["shootout"]["rounds"][1]["advancing"], 1);
        assert!(json.get("cut").is_none() && json.get("lottery").is_none());
    }
}
