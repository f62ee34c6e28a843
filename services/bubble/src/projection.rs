//! The lobby's view of hand-for-hand: off or on, the hand in play, and the tables it waits for
//! with the instant it began waiting (a slow or silent table is visible: which, since when).
//! A pure fold over the bubble's events.

use chrono::{DateTime, Utc};
use floor_events::bubble::{BubbleEvent, EndCause};
use std::collections::BTreeMap;

/// Hand-for-hand as the lobby shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandForHandView {
    /// Hand-for-hand is on.
    pub on: bool,
    /// The hand in play (0: the announcement hand); absent when off.
    pub hand: Option<u64>,
    /// The tables that still owe the hand, each with the instant the wait began.
    pub waiting: BTreeMap<u32, DateTime<Utc>>,
    /// Tables the director stopped waiting for, with the hand they owe.
    pub excused: BTreeMap<u32, u64>,
    /// The director holds the next release.
    pub paused: bool,
    /// Why it ended, once it has.
    pub ended: Option<EndCause>,
}

impl HandForHandView {
    /// The view after one more event.
    pub fn evolve(mut self, event: &BubbleEvent) -> Self {
        match event {
            BubbleEvent::HandForHandStarted { dealing, at, .. } => {
                self = Self { on: true, hand: Some(0), waiting: dealing.iter().map(|&t| (t, *at)).collect(), ..Self::default() };
            }
            BubbleEvent::TableFinished { table, late, .. } => {
                if *late {
                    self.excused.remove(table);
                } else {
                    self.waiting.remove(table);
                }
            }
            BubbleEvent::TablesExcused { hand, tables, .. } => {
                for t in tables {
                    self.waiting.remove(t);
                    self.excused.insert(*t, *hand);
                }
            }
            BubbleEvent::TableLeft { table } => {
                self.waiting.remove(table);
                self.excused.remove(table);
            }
            BubbleEvent::HandReleased { hand, tables, at } => {
                self.hand = Some(*hand);
                self.waiting = tables.iter().map(|&t| (t, *at)).collect();
            }
            BubbleEvent::Paused { .. } => self.paused = true,
            BubbleEvent::Resumed { .. } => self.paused = false,
            BubbleEvent::HandForHandEnded { cause, .. } => {
                self = Self { ended: Some(*cause), ..Self::default() };
            }
            BubbleEvent::BubbleConfigured { .. }
            | BubbleEvent::TableDealt { .. }
            | BubbleEvent::HandCompleted { .. }
            | BubbleEvent::LateBustsPlaced { .. } => {}
        }
        self
    }

    /// The tables waited for longest first, with how long at `now` (for the director).
    pub fn slowest(&self, now: DateTime<Utc>) -> Vec<(u32, chrono::Duration)> {
        let mut slow: Vec<(u32, chrono::Duration)> = self.waiting.iter().map(|(&t, &since)| (t, now - since)).collect();
        slow.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        slow
    }
}
