//! The state of every table of a tournament, as the console shows it: a pure fold of the
//! tournament's seating log (`floor.ev.seating.<t>`).
//!
//! Who sits where comes from the draw, late seats, moves and eliminations; the last hand from
//! the hand reports seating accepted. Seating's events carry no time of their own, so when a
//! table last reported is read beside the fold, from its report subject in stream
//! `FLOOR_TABLES` ([`floor_events::table::reports_subject`]), by the console's handler.

use floor_events::seating::SeatingEvent;
use floor_events::{EntryNo, PlayerId};
use std::collections::{BTreeMap, HashMap};

/// One table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableState {
    /// Seat number → the entry seated there, with its chips after the last hand it played
    /// (the starting stack before one).
    pub seats: BTreeMap<u8, (EntryNo, u64)>,
    /// Closed: broken, or the tournament is over.
    pub closed: bool,
    /// The last hand reported started, and whether it has finished.
    pub last_hand: Option<(u64, bool)>,
    /// Hands finished at this table.
    pub hands: u64,
}

/// Every table of one tournament, and whose each entry is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tables {
    /// Table number → its state.
    pub tables: BTreeMap<u32, TableState>,
    /// Entry → its player and its chips when it joined.
    pub entries: HashMap<EntryNo, (PlayerId, u64)>,
}

impl Tables {
    /// Folds one seating event. Events that change no seat, hand or table leave it as it was.
    pub fn evolve(mut self, event: &SeatingEvent) -> Self {
        match event {
            SeatingEvent::EntryJoined { entry, player, stack } => {
                self.entries.insert(*entry, (player.clone(), *stack));
            }
            SeatingEvent::TablesDrawn { tables, .. } => {
                for drawn in tables {
                    let table = self.tables.entry(drawn.table).or_default();
                    for seated in &drawn.seats {
                        let chips = self.entries.get(&seated.entry).map_or(0, |(_, chips)| *chips);
                        table.seats.insert(seated.seat.0, (seated.entry, chips));
                    }
                }
            }
            SeatingEvent::EntrySeated { entry, table, seat, .. } => {
                let chips = self.entries.get(entry).map_or(0, |(_, chips)| *chips);
                self.tables.entry(*table).or_default().seats.insert(seat.0, (*entry, chips));
            }
            SeatingEvent::TableOpened { table, .. } => self.tables.entry(*table).or_default().closed = false,
            SeatingEvent::HandStarted { table, hand, .. } => self.tables.entry(*table).or_default().last_hand = Some((*hand, false)),
            SeatingEvent::HandFinished { table, hand, stacks, .. } => {
                let state = self.tables.entry(*table).or_default();
                state.last_hand = Some((*hand, true));
                state.hands += 1;
                for stack in stacks {
                    if let Some(seat) = state.seats.get_mut(&stack.seat.0).filter(|(entry, _)| *entry == stack.entry) {
                        seat.1 = stack.chips;
                    }
                }
            }
            SeatingEvent::EntryEliminated { entry, .. } => {
                self.unseat(*entry);
            }
            SeatingEvent::PlayerMoved { entry, to_table, to_seat, .. } => {
                let chips = self.unseat(*entry);
                self.tables.entry(*to_table).or_default().seats.insert(to_seat.0, (*entry, chips.unwrap_or(0)));
            }
            SeatingEvent::TableClosed { table } => self.tables.entry(*table).or_default().closed = true,
            _ => {}
        }
        self
    }

    /// Takes an entry off its seat; its chips.
    fn unseat(&mut self, entry: EntryNo) -> Option<u64> {
        self.tables.values_mut().find_map(|table| {
            let seat = table.seats.iter().find(|(_, (e, _))| *e == entry).map(|(seat, _)| *seat)?;
            table.seats.remove(&seat).map(|(_, chips)| chips)
        })
    }

    /// The player of an entry, if seating saw it join.
    pub fn player(&self, entry: EntryNo) -> Option<&PlayerId> {
        self.entries.get(&entry).map(|(player, _)| player)
    }

    /// Tables still open.
    pub fn open(&self) -> impl Iterator<Item = (&u32, &TableState)> {
        self.tables.iter().filter(|(_, t)| !t.closed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::seating::{DrawnTable, MoveReason, SeatedEntry};
    use floor_events::table::{SeatNo, SeatStack};

    fn joined(entry: u32, player: &str) -> SeatingEvent {
        SeatingEvent::EntryJoined { entry: EntryNo(entry), player: PlayerId::parse(player).unwrap(), stack: 10_000 }
    }

    fn seat(seat: u8, entry: u32) -> SeatedEntry {
        SeatedEntry { seat: SeatNo(seat), entry: EntryNo(entry) }
    }

    fn drawn() -> Vec<SeatingEvent> {
        vec![
            joined(1, "ana"),
            joined(2, "ben"),
            joined(3, "cy"),
            joined(4, "di"),
            SeatingEvent::TablesDrawn {
                seed: "00".into(),
                total_tables: 2,
                tables: vec![
                    DrawnTable { table: 1, seats: vec![seat(1, 1), seat(2, 2)] },
                    DrawnTable { table: 2, seats: vec![seat(1, 3), seat(2, 4)] },
                ],
                at: "2027-01-10T18:00:00Z".parse().unwrap(),
            },
        ]
    }

    fn fold(events: &[SeatingEvent]) -> Tables {
        events.iter().fold(Tables::default(), Tables::evolve)
    }

    #[test]
    fn the_draw_seats_every_entry_with_its_stack_and_player() {
        let tables = fold(&drawn());
        assert_eq!(tables.tables.len(), 2);
        assert_eq!(tables.tables[&1].seats[&2], (EntryNo(2), 10_000));
        assert_eq!(tables.player(EntryNo(3)).map(PlayerId::as_str), Some("cy"));
        assert_eq!(tables.tables[&1].last_hand, None, "no hand yet");
    }

    #[test]
    fn hands_busts_moves_and_a_break_change_the_tables() {
        let mut events = drawn();
        events.push(SeatingEvent::HandStarted { table: 2, hand: 1, button: SeatNo(1), stacks: vec![], crossing: false });
        let started = fold(&events);
        assert_eq!(started.tables[&2].last_hand, Some((1, false)), "a hand in progress");
        events.extend([
            SeatingEvent::HandFinished {
                table: 2,
                hand: 1,
                stacks: vec![SeatStack { seat: SeatNo(1), entry: EntryNo(3), chips: 20_000 }],
                busts: vec![],
            },
            SeatingEvent::EntryEliminated { entry: EntryNo(4), players_left: 3, stack_at_start: None, table: None },
            SeatingEvent::PlayerMoved {
                entry: EntryNo(3),
                from_table: 2,
                from_seat: SeatNo(1),
                to_table: 1,
                to_seat: SeatNo(3),
                wait_for_button: false,
                reason: MoveReason::Break { players_left: 3, tables_needed: 1 },
            },
            SeatingEvent::TableClosed { table: 2 },
        ]);
        let tables = fold(&events);
        assert_eq!((tables.tables[&2].hands, tables.tables[&2].last_hand), (1, Some((1, true))));
        assert!(tables.tables[&2].closed && tables.tables[&2].seats.is_empty(), "table 2 broke");
        assert_eq!(tables.tables[&1].seats[&3], (EntryNo(3), 20_000), "moved with the chips of its last hand");
        assert_eq!(tables.open().map(|(n, _)| *n).collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn a_late_entry_takes_its_seat_at_a_new_table() {
        let mut events = drawn();
        events.extend([
            joined(5, "eve"),
            SeatingEvent::TableOpened { table: 3, seats: 9 },
            SeatingEvent::EntrySeated { entry: EntryNo(5), table: 3, seat: SeatNo(4), wait_for_button: true },
        ]);
        let tables = fold(&events);
        assert_eq!(tables.tables[&3].seats[&4], (EntryNo(5), 10_000));
        assert!(!tables.tables[&3].closed);
    }
}
