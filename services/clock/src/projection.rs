//! The timetable: every clock's state, folded from its events, and when each next needs the
//! timer (a push hold or a step change).
//!
//! The service keeps it in memory, rebuilt from the clock events at every start, so a restarted
//! service knows to the millisecond when each running clock's next level or break is due. Pure:
//! the service feeds it events and asks what is due at an instant.

use chrono::{DateTime, Utc};
use floor_events::clock::ClockEvent;
use floor_events::TournamentId;
use floor_rules::clock::{evolve, ClockState};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

/// Every clock and its next step change.
#[derive(Debug, Default)]
pub struct Timetable {
    clocks: HashMap<TournamentId, ClockState>,
    /// Instants to look at a clock again. An entry goes stale when a pause or added time moves
    /// the clock's next change; stale entries are skipped when they come up, never searched for.
    wakeups: BinaryHeap<Reverse<(DateTime<Utc>, TournamentId)>>,
}

impl Timetable {
    /// Folds a commit of one clock's events.
    pub fn apply(&mut self, tournament: TournamentId, events: &[ClockEvent]) {
        let state = self.clocks.remove(&tournament).unwrap_or_default();
        // The timeline is all the timer needs: a held clock is paused.
        let state = events.iter().cloned().fold(state, evolve);
        if let Some(next) = state.next_wakeup() {
            self.wakeups.push(Reverse((next, tournament)));
        }
        self.clocks.insert(tournament, state);
    }

    /// The earliest instant something may be due.
    pub fn next_wakeup(&self) -> Option<DateTime<Utc>> {
        self.wakeups.peek().map(|Reverse((at, _))| *at)
    }

    /// The clocks whose step change is due at `now`, each with the instant it was due, once.
    pub fn due(&mut self, now: DateTime<Utc>) -> Vec<(TournamentId, DateTime<Utc>)> {
        let mut due = Vec::new();
        let mut seen = HashSet::new();
        while let Some(&Reverse((at, tournament))) = self.wakeups.peek() {
            if at > now {
                break;
            }
            self.wakeups.pop();
            let change = self.clocks.get(&tournament).and_then(ClockState::next_wakeup);
            if let Some(change) = change.filter(|c| *c <= now) {
                if seen.insert(tournament) {
                    due.push((tournament, change));
                }
            }
        }
        due
    }

    /// Look at `tournament` again at `at` (a tick that could not be stored is retried).
    pub fn retry(&mut self, tournament: TournamentId, at: DateTime<Utc>) {
        self.wakeups.push(Reverse((at, tournament)));
    }

    /// A clock's state.
    pub fn clock(&self, tournament: TournamentId) -> Option<&ClockState> {
        self.clocks.get(&tournament)
    }

    /// Clocks known (with a structure or started).
    pub fn len(&self) -> usize {
        self.clocks.len()
    }

    /// No clock known.
    pub fn is_empty(&self) -> bool {
        self.clocks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;
    use floor_events::clock::{Preset, StepCause};
    use floor_rules::structure::preset;

    fn t0() -> DateTime<Utc> {
        "2026-12-06T18:00:00Z".parse().unwrap()
    }

    fn started(table: &mut Timetable, tournament: TournamentId, at: DateTime<Utc>) {
        let structure = preset(Preset::Turbo);
        let ends_at = at + Duration::seconds(360);
        table.apply(tournament, &[ClockEvent::StructureSet { structure }]);
        table.apply(tournament, &[ClockEvent::StepStarted { step: 0, number: 1, at, ends_at, cause: StepCause::Start, blinds: None }]);
    }

    #[test]
    fn a_running_clock_is_due_at_the_end_of_its_step_and_not_before() {
        let mut table = Timetable::default();
        let t = TournamentId::new();
        started(&mut table, t, t0());
        let end = t0() + Duration::seconds(360);
        assert_eq!(table.next_wakeup(), Some(end));
        assert!(table.due(end - Duration::milliseconds(1)).is_empty());
        assert_eq!(table.due(end), vec![(t, end)]);
        assert!(table.due(end).is_empty(), "handed out once");
    }

    #[test]
    fn a_pause_makes_the_old_wakeup_stale_and_a_resume_sets_the_new_one() {
        let mut table = Timetable::default();
        let t = TournamentId::new();
        started(&mut table, t, t0());
        let pause_at = t0() + Duration::seconds(60);
        table.apply(t, &[ClockEvent::Paused { at: pause_at, remaining_ms: 300_000, reason: "dinner".into() }]);
        assert!(table.due(t0() + Duration::hours(1)).is_empty(), "a paused clock is never due");
        let resumed = t0() + Duration::hours(1);
        table.apply(t, &[ClockEvent::Resumed { at: resumed, ends_at: resumed + Duration::seconds(300) }]);
        assert_eq!(table.due(resumed + Duration::seconds(300)), vec![(t, resumed + Duration::seconds(300))]);
    }

    #[test]
    fn added_time_moves_the_change_later() {
        let mut table = Timetable::default();
        let t = TournamentId::new();
        started(&mut table, t, t0());
        table.apply(t, &[ClockEvent::TimeAdjusted { seconds: 60, at: t0() + Duration::seconds(10) }]);
        let end = t0() + Duration::seconds(360);
        assert!(table.due(end).is_empty(), "the old end is stale");
        assert_eq!(table.due(end + Duration::seconds(60)), vec![(t, end + Duration::seconds(60))]);
    }
}
