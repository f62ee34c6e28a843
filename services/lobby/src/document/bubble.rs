//! The lobby's hand-for-hand section: off or on, the hand in play, the tables it waits for and
//! since when (a slow or silent table is visible to everyone), the tables the director stopped
//! waiting for, and a director's pause. Folded from the bubble's events alone (the lobby depends
//! on no service crate: the bubble's own view, `floor_bubble::projection`, folds the same way).

use chrono::{DateTime, Utc};
use floor_events::bubble::{BubbleEvent, EndCause};
use serde::{Deserialize, Serialize};

/// A table hand-for-hand waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitingTable {
    /// The table.
    pub table: u32,
    /// Since when it owes the hand.
    pub since: DateTime<Utc>,
}

/// A table the director stopped waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExcusedTable {
    /// The table.
    pub table: u32,
    /// The hand it still owes.
    pub hand: u64,
}

/// Hand-for-hand as the lobby shows it (`hand_for_hand` in every tournament's document).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyHandForHand {
    /// Hand-for-hand is on.
    pub on: bool,
    /// The hand in play (0: the announcement hand); absent when off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand: Option<u64>,
    /// The tables that still owe the hand, by table number, each with the instant the wait
    /// began.
    #[serde(default)]
    pub waiting: Vec<WaitingTable>,
    /// Tables the director stopped waiting for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excused: Vec<ExcusedTable>,
    /// The director holds the next release.
    #[serde(default)]
    pub paused: bool,
    /// Why the last hand-for-hand ended, once one has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<EndCause>,
}

impl LobbyHandForHand {
    /// The section after one more bubble event.
    pub fn evolve(mut self, event: &BubbleEvent) -> Self {
        let wait = |tables: &[u32], since: DateTime<Utc>| tables.iter().map(|&table| WaitingTable { table, since }).collect();
        match event {
            BubbleEvent::HandForHandStarted { dealing, at, .. } => {
                self = Self { on: true, hand: Some(0), waiting: wait(dealing, *at), ..Self::default() };
            }
            BubbleEvent::TableFinished { table, late, .. } => {
                if *late {
                    self.excused.retain(|e| e.table != *table);
                } else {
                    self.waiting.retain(|w| w.table != *table);
                }
            }
            BubbleEvent::TablesExcused { hand, tables, .. } => {
                self.waiting.retain(|w| !tables.contains(&w.table));
                self.excused.retain(|e| !tables.contains(&e.table));
                self.excused.extend(tables.iter().map(|&table| ExcusedTable { table, hand: *hand }));
                self.excused.sort_by_key(|e| e.table);
            }
            BubbleEvent::TableLeft { table } => {
                self.waiting.retain(|w| w.table != *table);
                self.excused.retain(|e| e.table != *table);
            }
            BubbleEvent::HandReleased { hand, tables, at } => {
                self.hand = Some(*hand);
                self.waiting = wait(tables, *at);
            }
            BubbleEvent::Paused { .. } => self.paused = true,
            BubbleEvent::Resumed { .. } => self.paused = false,
            BubbleEvent::HandForHandEnded { cause, .. } => self = Self { ended: Some(*cause), ..Self::default() },
            BubbleEvent::BubbleConfigured { .. }
            | BubbleEvent::TableDealt { .. }
            | BubbleEvent::HandCompleted { .. }
            | BubbleEvent::LateBustsPlaced { .. } => {}
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::bubble::StartCause;

    fn at(s: u32) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp(1_800_000_000 + i64::from(s), 0).unwrap()
    }

    #[test]
    fn on_with_the_tables_waited_for_and_since_when_then_off_with_why() {
        let started = BubbleEvent::HandForHandStarted {
            cause: StartCause::Trigger,
            players_left: 16,
            boundary: 15,
            tables: vec![1, 2, 3],
            dealing: vec![1, 3],
            at: at(0),
        };
        let finished = |table| BubbleEvent::TableFinished { table, hand: 0, table_hand: 9, busts: vec![], late: false, at: at(5) };
        let view = [started, finished(1)].iter().fold(LobbyHandForHand::default(), LobbyHandForHand::evolve);
        assert_eq!((view.on, view.hand), (true, Some(0)));
        assert_eq!(view.waiting, vec![WaitingTable { table: 3, since: at(0) }], "table 3 is the slow one, since the announcement");
        let released = BubbleEvent::HandReleased { hand: 1, tables: vec![1, 2, 3], at: at(9) };
        let excused = BubbleEvent::TablesExcused { hand: 1, tables: vec![2], at: at(20) };
        let view = [released, finished(1), excused].iter().fold(view, LobbyHandForHand::evolve);
        assert_eq!((view.hand, view.waiting.clone()), (Some(1), vec![WaitingTable { table: 3, since: at(9) }]));
        assert_eq!(view.excused, vec![ExcusedTable { table: 2, hand: 1 }]);
        let json = serde_json::to_value(&view).unwrap();
        assert_eq!(json["waiting"][0]["table"], 3);
        let ended = BubbleEvent::HandForHandEnded { cause: EndCause::Burst, players_left: 15, at: at(30) };
        let view = view.evolve(&ended);
        assert_eq!(view, LobbyHandForHand { ended: Some(EndCause::Burst), ..LobbyHandForHand::default() });
        assert_eq!(
            serde_json::to_value(&view).unwrap(),
            serde_json::json!({"on": false, "waiting": [], "paused": false, "ended": "burst"})
        );
    }
}
