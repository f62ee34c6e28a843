//! Silent tables (issue 22): which open tables owe Floor a report and since when they have
//! sent none, folded from the log; and the pure decision to suspend when too many are silent
//! ([`Silence::silent`]), or to cancel a suspension past the profile's limit ([`overdue`]).
//!
//! A table *owes* a report while it is expected to be dealing: in free play always, under
//! hand-for-hand from the release of a hand (or the announcement, for a table with a hand in
//! progress) until it reports that hand finished. Nobody owes anything while the clock stands
//! (a break, a director's pause, a deal discussed, a suspension): when it runs again, every
//! table's silence counts from then. Times are the store's (each commit's `at`), so a replay
//! folds the same silence; the decision compares them with the service's clock.

use crate::domain::SuspendReason;
use chrono::{DateTime, Utc};
use floor_events::abort::AbortEvent;
use floor_events::bubble::BubbleEvent;
use floor_events::clock::ClockEvent;
use floor_events::profile::SuspensionRules;
use floor_events::seating::SeatingEvent;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One open table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    /// Last heard from (a report), or when it was last told to deal.
    pub since: DateTime<Utc>,
    /// It owes a report (see the module's doc).
    pub owes: bool,
}

/// The open tables of one tournament, and whether play is running.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Silence {
    /// By table number.
    pub tables: BTreeMap<u32, Table>,
    /// A level is running (not a break, not paused).
    pub running: bool,
    /// Hand-for-hand is on: a table that finished its hand waits for the next release.
    pub hand_for_hand: bool,
    /// Suspended (the abort aggregate's own events).
    pub suspended: bool,
}

impl Silence {
    fn heard(&mut self, table: u32, at: DateTime<Utc>, owes: bool) {
        self.tables.insert(table, Table { since: at, owes });
    }

    /// Play runs again at `at`: every table's silence counts from then; in free play every
    /// table owes a report, under hand-for-hand those that owed still do.
    fn count_from(&mut self, at: DateTime<Utc>) {
        let free = !self.hand_for_hand;
        for t in self.tables.values_mut() {
            *t = Table { since: at, owes: t.owes || free };
        }
    }

    /// A seating commit stored at `at`.
    pub fn on_seating(&mut self, at: DateTime<Utc>, events: &[SeatingEvent]) {
        for e in events {
            match e {
                SeatingEvent::TablesDrawn { tables, .. } => {
                    for t in tables {
                        self.heard(t.table, at, true);
                    }
                }
                SeatingEvent::TableOpened { table, .. } => {
                    let owes = !self.hand_for_hand;
                    self.tables.entry(*table).or_insert(Table { since: at, owes });
                }
                SeatingEvent::HandStarted { table, .. } => self.heard(*table, at, true),
                SeatingEvent::HandFinished { table, .. } => {
                    let owes = !self.hand_for_hand;
                    self.heard(*table, at, owes);
                }
                SeatingEvent::TableClosed { table } => {
                    self.tables.remove(table);
                }
                _ => {}
            }
        }
    }

    /// A clock commit stored at `at`.
    pub fn on_clock(&mut self, at: DateTime<Utc>, events: &[ClockEvent]) {
        for e in events {
            let running = match e {
                ClockEvent::StepStarted { blinds, .. } => blinds.is_some(),
                ClockEvent::Paused { .. } => false,
                ClockEvent::Resumed { .. } => true,
                _ => continue,
            };
            if running && !self.running {
                self.count_from(at);
            }
            self.running = running;
        }
    }

    /// A bubble commit stored at `at`.
    pub fn on_bubble(&mut self, at: DateTime<Utc>, events: &[BubbleEvent]) {
        for e in events {
            match e {
                BubbleEvent::HandForHandStarted { dealing, .. } => {
                    self.hand_for_hand = true;
                    for (number, t) in &mut self.tables {
                        t.owes = dealing.contains(number);
                    }
                }
                BubbleEvent::HandReleased { tables, .. } => {
                    for table in tables {
                        self.heard(*table, at, true);
                    }
                }
                BubbleEvent::HandForHandEnded { .. } => {
                    self.hand_for_hand = false;
                    self.count_from(at);
                }
                _ => {}
            }
        }
    }

    /// The abort aggregate's commit stored at `at`.
    pub fn on_abort(&mut self, at: DateTime<Utc>, events: &[AbortEvent]) {
        for e in events {
            match e {
                AbortEvent::Suspended { .. } => self.suspended = true,
                AbortEvent::Resumed { .. } => {
                    self.suspended = false;
                    self.count_from(at);
                }
                AbortEvent::Cancelled { .. } => self.tables.clear(),
            }
        }
    }

    /// Floor's reason to suspend at `now`, if at least the profile's share of the open tables
    /// (and at least one) owe a report and have been silent for the profile's time, while play
    /// runs and is not suspended.
    pub fn silent(&self, rules: SuspensionRules, now: DateTime<Utc>) -> Option<SuspendReason> {
        if !self.running || self.suspended || self.tables.is_empty() {
            return None;
        }
        let after = chrono::Duration::seconds(i64::from(rules.silent_seconds));
        let silent = self.tables.values().filter(|t| t.owes && now - t.since >= after).count() as u64;
        let tables = self.tables.len() as u64;
        let enough = silent * 10_000 >= u64::from(rules.silent_tables_bps) * tables;
        (silent > 0 && enough).then(|| SuspendReason::TablesSilent {
            silent: silent as u32,
            tables: tables as u32,
            seconds: u64::from(rules.silent_seconds),
        })
    }
}

/// Whether a suspension since `since` has passed the profile's limit at `now`: the limit, in
/// seconds, if so.
pub fn overdue(rules: SuspensionRules, since: DateTime<Utc>, now: DateTime<Utc>) -> Option<u32> {
    let limit = rules.limit_seconds?;
    (now - since >= chrono::Duration::seconds(i64::from(limit))).then_some(limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::table::{SeatNo, SeatStack};
    use floor_events::{EntryNo, RuleProfile};

    fn t(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + s, 0).unwrap()
    }

    fn started(table: u32) -> SeatingEvent {
        let stacks = vec![SeatStack { seat: SeatNo(1), entry: EntryNo(table), chips: 1 }];
        SeatingEvent::HandStarted { table, hand: 1, button: SeatNo(1), stacks, crossing: false }
    }

    fn finished(table: u32) -> SeatingEvent {
        SeatingEvent::HandFinished { table, hand: 1, stacks: vec![], busts: vec![] }
    }

    fn level(at: DateTime<Utc>) -> ClockEvent {
        let blinds = floor_events::clock::Level { small_blind: 100, big_blind: 200, ante: 0, big_blind_ante: false, seconds: 1_200 };
        ClockEvent::StepStarted { step: 0, number: 1, at, ends_at: at, cause: floor_events::clock::StepCause::Start, blinds: Some(blinds) }
    }

    /// Eight tables dealing; the tda-2024 rules: a quarter of them, five minutes.
    fn eight_dealing() -> Silence {
        let mut s = Silence::default();
        s.on_clock(t(0), &[level(t(0))]);
        s.on_seating(t(0), &(1..=8).map(started).collect::<Vec<_>>());
        s
    }

    const TDA: fn() -> SuspensionRules = || RuleProfile::Tda2024.suspension();

    #[test]
    fn a_quarter_of_the_tables_silent_for_the_profile_s_time_suspends() {
        let mut s = eight_dealing();
        // Tables 3..=8 keep reporting; 1 and 2 fall silent at 0.
        s.on_seating(t(200), &(3..=8).map(finished).collect::<Vec<_>>());
        assert_eq!(s.silent(TDA(), t(299)), None, "4:59 is not five minutes");
        let reason = s.silent(TDA(), t(300));
        assert_eq!(reason, Some(SuspendReason::TablesSilent { silent: 2, tables: 8, seconds: 300 }));
        // One silent table of eight is a table's problem, not the system's.
        s.on_seating(t(301), &[started(2)]);
        assert_eq!(s.silent(TDA(), t(400)), None);
        // The last table of a tournament is a quarter of the tables by itself.
        let mut one = Silence::default();
        one.on_clock(t(0), &[level(t(0))]);
        one.on_seating(t(0), &[started(1)]);
        assert!(one.silent(TDA(), t(300)).is_some());
    }

    #[test]
    fn nobody_is_silent_while_the_clock_stands_or_play_is_suspended() {
        let mut s = eight_dealing();
        s.on_clock(t(10), &[ClockEvent::Paused { at: t(10), remaining_ms: 0, reason: "dinner".into() }]);
        assert_eq!(s.silent(TDA(), t(1_000)), None, "paused");
        s.on_clock(t(1_000), &[ClockEvent::Resumed { at: t(1_000), ends_at: t(2_000) }]);
        assert_eq!(s.silent(TDA(), t(1_299)), None, "silence counts from the resume");
        assert!(s.silent(TDA(), t(1_300)).is_some());
        let at = t(1_300);
        let reason = SuspendReason::TablesSilent { silent: 8, tables: 8, seconds: 300 };
        s.on_abort(at, &[AbortEvent::Suspended { reason, at }]);
        assert_eq!(s.silent(TDA(), t(5_000)), None, "suspended");
        s.on_abort(t(5_000), &[AbortEvent::Resumed { suspended_at: at, at: t(5_000) }]);
        assert_eq!(s.silent(TDA(), t(5_299)), None, "counted from the resume");
    }

    #[test]
    fn under_hand_for_hand_a_table_waiting_for_the_release_is_not_silent() {
        let mut s = eight_dealing();
        let started = BubbleEvent::HandForHandStarted {
            cause: floor_events::bubble::StartCause::Trigger,
            players_left: 40,
            boundary: 36,
            tables: (1..=8).collect(),
            dealing: vec![1],
            at: t(10),
        };
        s.on_bubble(t(10), &[started]);
        // Table 1 owes hand 0 and is slow; the other seven hold.
        assert_eq!(s.silent(TDA(), t(400)), None, "one slow table of eight");
        s.on_seating(t(400), &[finished(1)]);
        s.on_bubble(t(401), &[BubbleEvent::HandReleased { hand: 1, tables: (1..=8).collect(), at: t(401) }]);
        s.on_seating(t(420), &(3..=8).map(finished).collect::<Vec<_>>());
        assert_eq!(s.silent(TDA(), t(700)), None, "tables 1 and 2 owe hand 1 since 401");
        assert_eq!(s.silent(TDA(), t(701)), Some(SuspendReason::TablesSilent { silent: 2, tables: 8, seconds: 300 }));
    }

    #[test]
    fn a_closed_table_owes_nothing_and_only_002_sets_a_limit() {
        let mut s = eight_dealing();
        s.on_seating(t(100), &(1..=6).map(|n| SeatingEvent::TableClosed { table: n }).collect::<Vec<_>>());
        s.on_seating(t(100), &[finished(7)]);
        assert_eq!(s.silent(TDA(), t(300)), Some(SuspendReason::TablesSilent { silent: 1, tables: 2, seconds: 300 }));
        let svenska = RuleProfile::SvenskaSpel2012.suspension();
        assert_eq!(overdue(svenska, t(0), t(3_599)), None);
        assert_eq!(overdue(svenska, t(0), t(3_600)), Some(3_600));
        assert_eq!(overdue(TDA(), t(0), t(1_000_000)), None, "the director decides");
    }
}
