//! One table and its positions for the next hand.
//!
//! Floor does not deal, so it models positions the way the rules need them: a moving button
//! (it advances to the next occupied seat each hand), the small blind next after it, the big
//! blind next after that; heads-up, the button is the small blind (TDA R34-B). Before the first
//! hand Floor does not know where the table server puts the button, and assumes the lowest
//! occupied seat; the table server's "hand started" report corrects it.

use floor_events::EntryNo;

/// A seat index at a table, from 0 (seat 1 for humans).
pub type Seat = usize;

/// Someone in a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Occupant {
    /// The entry sitting here.
    pub entry: EntryNo,
    /// How often this entry has been moved by balancing (PokerStars prefers the least moved).
    pub moves: u32,
}

/// A table: its seats and where the button was in the last hand.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Table {
    /// Table number, from 1.
    pub number: u32,
    /// Seats; `None` is empty.
    pub seats: Vec<Option<Occupant>>,
    /// The button's seat in the last hand dealt; `None` before the first hand.
    pub button: Option<Seat>,
}

/// Who posts what in the next hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Positions {
    /// The button.
    pub button: Seat,
    /// The small blind (the button itself heads-up).
    pub small_blind: Seat,
    /// The big blind.
    pub big_blind: Seat,
}

impl Table {
    /// An empty table of `size` seats.
    pub fn new(number: u32, size: usize) -> Self {
        Self { number, seats: vec![None; size], button: None }
    }

    /// Players seated.
    pub fn count(&self) -> usize {
        self.seats.iter().filter(|s| s.is_some()).count()
    }

    /// Occupied seats, in seat order.
    pub fn occupied(&self) -> impl Iterator<Item = (Seat, Occupant)> + '_ {
        self.seats.iter().enumerate().filter_map(|(i, s)| s.map(|o| (i, o)))
    }

    /// Where an entry sits here.
    pub fn seat_of(&self, entry: EntryNo) -> Option<Seat> {
        self.occupied().find(|(_, o)| o.entry == entry).map(|(i, _)| i)
    }

    /// The first occupied seat clockwise strictly after `seat`.
    fn next_occupied_after(&self, seat: Seat) -> Option<Seat> {
        let n = self.seats.len();
        (1..=n).map(|d| (seat + d) % n).find(|&s| self.seats[s].is_some())
    }

    /// Button, small blind and big blind of the next hand; `None` with fewer than two players.
    pub fn next_positions(&self) -> Option<Positions> {
        if self.count() < 2 {
            return None;
        }
        let button = match self.button {
            Some(last) => self.next_occupied_after(last)?,
            None => self.occupied().next()?.0,
        };
        let after_button = self.next_occupied_after(button)?;
        if self.count() == 2 {
            return Some(Positions { button, small_blind: button, big_blind: after_button });
        }
        let big_blind = self.next_occupied_after(after_button)?;
        Some(Positions { button, small_blind: after_button, big_blind })
    }

    /// The seat of the player due the big blind in the next hand (TDA R11-A's mover).
    pub fn due_big_blind(&self) -> Option<Seat> {
        self.next_positions().map(|p| p.big_blind)
    }

    /// Clockwise distance from `from` to `to`.
    fn distance(&self, from: Seat, to: Seat) -> usize {
        (to + self.seats.len() - from) % self.seats.len()
    }

    /// Whether a newcomer (late registration, re-entry, moved or broken-table player) may take
    /// `seat`: it is empty and not between the small blind and the button, where a player would
    /// be dealt in without having posted (TDA R8-A, R10-A).
    pub fn may_seat(&self, seat: Seat) -> bool {
        if seat >= self.seats.len() || self.seats[seat].is_some() {
            return false;
        }
        match self.next_positions() {
            Some(p) if p.small_blind != p.button => {
                let (to_seat, to_small_blind) = (self.distance(p.button, seat), self.distance(p.button, p.small_blind));
                !(to_seat > 0 && to_seat < to_small_blind)
            }
            _ => true,
        }
    }

    /// Seats a newcomer may take, worst position first (TDA R11-A: the moved player takes the
    /// worst position, "including a single big blind if one is available"; never the small
    /// blind).
    ///
    /// Worst means "posts the big blind soonest" *once the newcomer sits there*: positions
    /// follow occupancy, so each seat is judged with the newcomer in it. A seat that would make
    /// them the big blind of the next hand ranks first; then by how far the blind has to travel
    /// to reach them. A seat that would make them the small blind is left out when three or more
    /// would be playing (heads-up the button posts the small blind and any seat will do). Ties go
    /// clockwise from the current small blind.
    ///
    /// The first version ranked seats by distance from the current small blind; from heads-up
    /// that put the newcomer straight into the small blind of a three-handed table.
    pub fn worst_seats(&self) -> Vec<Seat> {
        let current = self.next_positions();
        let tie = |s: Seat| current.map(|p| self.distance(p.small_blind, s)).unwrap_or(s);
        let mut ranked: Vec<(usize, usize, Seat)> = (0..self.seats.len())
            .filter(|&s| self.may_seat(s))
            .filter_map(|s| {
                let mut with = self.clone();
                with.seats[s] = Some(Occupant { entry: EntryNo(0), moves: 0 });
                let Some(p) = with.next_positions() else { return Some((0, tie(s), s)) };
                if p.small_blind == s && with.count() >= 3 {
                    return None;
                }
                let occupied_between =
                    (0..with.distance(p.big_blind, s)).filter(|d| with.seats[(p.big_blind + d) % with.seats.len()].is_some()).count();
                Some((occupied_between, tie(s), s))
            })
            .collect();
        ranked.sort_unstable();
        ranked.into_iter().map(|(_, _, s)| s).collect()
    }

    /// Clockwise distance of `seat` from the next button: a position relative to the button, to
    /// keep a moved player's position (PokerStars practice).
    pub fn position_from_button(&self, seat: Seat) -> usize {
        self.next_positions().map(|p| self.distance(p.button, seat)).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(occupied: &[Seat], button: Option<Seat>) -> Table {
        let mut t = Table::new(1, 9);
        for (i, &s) in occupied.iter().enumerate() {
            t.seats[s] = Some(Occupant { entry: EntryNo(i as u32 + 1), moves: 0 });
        }
        t.button = button;
        t
    }

    #[test]
    fn the_button_moves_and_the_blinds_follow_it() {
        let t = table(&[0, 2, 4, 6], Some(2));
        assert_eq!(t.next_positions(), Some(Positions { button: 4, small_blind: 6, big_blind: 0 }));
        assert_eq!(t.due_big_blind(), Some(0));
    }

    #[test]
    fn heads_up_the_button_posts_the_small_blind() {
        let t = table(&[1, 5], Some(1));
        assert_eq!(t.next_positions(), Some(Positions { button: 5, small_blind: 5, big_blind: 1 }));
    }

    #[test]
    fn nobody_is_seated_between_the_small_blind_and_the_button() {
        // Next hand: button 4, small blind 6, big blind 0. Seat 5 lies between them.
        let t = table(&[0, 2, 4, 6], Some(2));
        assert!(!t.may_seat(5));
        assert!(t.may_seat(7) && t.may_seat(1) && t.may_seat(3));
        assert!(!t.may_seat(0), "occupied");
    }

    #[test]
    fn from_heads_up_the_newcomer_gets_the_big_blind_never_the_small_blind() {
        // Seats 1 and 7 (indexes 0, 6), button last on seat 1. Next hand the button goes to seat
        // 7; a newcomer right after it (seat 8 or 9) would post the small blind three-handed.
        let t = table(&[0, 6], Some(0));
        let worst = t.worst_seats();
        assert_eq!(worst.first(), Some(&1), "seat 2: the big blind at once");
        assert!(!worst.contains(&7) && !worst.contains(&8), "never the small blind: {worst:?}");
    }

    #[test]
    fn the_worst_seat_is_the_one_that_posts_the_big_blind_soonest() {
        // Next hand: button 4, small blind 6, big blind 0. Filling 7 (or 8) makes that seat the
        // big blind at once; seat 1 posts it the hand after; seat 3 after that.
        let t = table(&[0, 2, 4, 6], Some(2));
        assert_eq!(t.worst_seats(), vec![7, 8, 1, 3]);
        let mut filled = t.clone();
        filled.seats[7] = Some(Occupant { entry: EntryNo(99), moves: 1 });
        assert_eq!(filled.due_big_blind(), Some(7), "the moved player posts the big blind next hand");
    }
}
