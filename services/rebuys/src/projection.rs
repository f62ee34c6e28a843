//! The offers: every open rebuy offer and its deadline, folded from the rebuys events, so the
//! service knows when to let one lapse. Pure; stored in the rebuys service's snapshot, where
//! only the open offers are written: the deadlines are rebuilt from them on load.

use chrono::{DateTime, Utc};
use floor_events::rebuys::RebuyEvent;
use floor_events::{EntryNo, TournamentId};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Open offers by deadline.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(from = "Open")]
pub struct Offers {
    #[serde(with = "floor_runtime::snapshot::pairs")]
    open: HashMap<(TournamentId, EntryNo), DateTime<Utc>>,
    /// Tournaments suspended now, since when: an offer still running then does not lapse
    /// while play stands still (the resume makes it again, [`crate::domain::RebuyCommand::Extend`]).
    #[serde(default, with = "floor_runtime::snapshot::pairs")]
    suspended: HashMap<TournamentId, DateTime<Utc>>,
    /// Deadlines in order. An entry goes stale when its offer ends another way (a rebuy, a
    /// decline); stale entries are skipped when they come up. Not stored: rebuilt from `open`.
    #[serde(skip)]
    deadlines: BinaryHeap<Reverse<(DateTime<Utc>, TournamentId, EntryNo)>>,
}

/// The offers as a snapshot holds them: the open ones.
#[derive(Deserialize)]
struct Open {
    #[serde(with = "floor_runtime::snapshot::pairs")]
    open: HashMap<(TournamentId, EntryNo), DateTime<Utc>>,
    #[serde(default, with = "floor_runtime::snapshot::pairs")]
    suspended: HashMap<TournamentId, DateTime<Utc>>,
}

impl From<Open> for Offers {
    /// Every open offer's deadline, looked at again (one that passed lapses at once; a lapse
    /// already stored is answered from the aggregate's history).
    fn from(Open { open, suspended }: Open) -> Self {
        let deadlines = open.iter().map(|(&(t, entry), &until)| Reverse((until, t, entry))).collect();
        Self { open, suspended, deadlines }
    }
}

impl PartialEq for Offers {
    /// The same open offers (the deadlines are a schedule of them).
    fn eq(&self, other: &Self) -> bool {
        self.open == other.open && self.suspended == other.suspended
    }
}

impl Offers {
    /// Folds one commit of a tournament's rebuys events.
    pub fn apply(&mut self, t: TournamentId, events: &[RebuyEvent]) {
        for e in events {
            match e {
                RebuyEvent::RebuyOffered { entry, until, .. } => {
                    self.open.insert((t, *entry), *until);
                    self.deadlines.push(Reverse((*until, t, *entry)));
                }
                RebuyEvent::RebuyTaken { entry, .. } | RebuyEvent::RebuyForgone { entry, .. } | RebuyEvent::EntryOut { entry } => {
                    self.open.remove(&(t, *entry));
                }
                RebuyEvent::RebuyPeriodEnded { .. } => self.open.retain(|(tournament, _), _| *tournament != t),
                // Cancelled or over (issue 33): no offer stands, none lapses.
                RebuyEvent::PurchasesClosed { .. } => {
                    self.open.retain(|(tournament, _), _| *tournament != t);
                    self.suspended.remove(&t);
                }
                _ => {}
            }
        }
    }

    /// Folds one commit of the tournament's abort log: suspended since when, resumed, or
    /// cancelled (its offers are gone: nobody is out of a cancelled tournament).
    pub fn apply_abort(&mut self, t: TournamentId, events: &[floor_events::abort::AbortEvent]) {
        use floor_events::abort::AbortEvent;
        for e in events {
            match e {
                AbortEvent::Suspended { at, .. } => {
                    self.suspended.insert(t, *at);
                }
                AbortEvent::Resumed { .. } => {
                    self.suspended.remove(&t);
                }
                AbortEvent::Cancelled { .. } => {
                    self.suspended.remove(&t);
                    self.open.retain(|(tournament, _), _| *tournament != t);
                }
            }
        }
    }

    /// The earliest deadline still to look at.
    pub fn next_deadline(&self) -> Option<DateTime<Utc>> {
        self.deadlines.peek().map(|Reverse((at, ..))| *at)
    }

    /// The offers whose deadline has passed at `now`, each once, with its deadline.
    pub fn lapsed(&mut self, now: DateTime<Utc>) -> Vec<(TournamentId, EntryNo, DateTime<Utc>)> {
        let mut lapsed = Vec::new();
        while let Some(&Reverse((wake, t, entry))) = self.deadlines.peek() {
            if wake > now {
                break;
            }
            self.deadlines.pop();
            // Running when play stopped: no lapse while suspended (the resume makes it again).
            let stopped = |until: &DateTime<Utc>| self.suspended.get(&t).is_some_and(|since| until > since);
            if let Some(&until) = self.open.get(&(t, entry)).filter(|until| **until <= now && !stopped(until)) {
                if !lapsed.contains(&(t, entry, until)) {
                    lapsed.push((t, entry, until));
                }
            }
        }
        lapsed
    }

    /// Look at an offer again at `at` (its lapse could not be stored).
    pub fn look_again(&mut self, t: TournamentId, entry: EntryNo, at: DateTime<Utc>) {
        self.deadlines.push(Reverse((at, t, entry)));
    }

    /// Open offers (for reading).
    pub fn len(&self) -> usize {
        self.open.len()
    }

    /// No offer is open.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::rebuys::Forgone;
    use floor_events::PlayerId;

    #[test]
    fn an_offer_lapses_once_at_its_deadline_unless_it_ended_before() {
        let t = TournamentId::new();
        let t0: DateTime<Utc> = "2026-12-06T18:00:00Z".parse().unwrap();
        let offer = |entry, secs| RebuyEvent::RebuyOffered {
            entry: EntryNo(entry),
            player: PlayerId::parse("ana").unwrap(),
            until: t0 + chrono::Duration::seconds(secs),
            taken: 0,
        };
        let mut offers = Offers::default();
        offers.apply(t, &[offer(1, 30), offer(2, 20)]);
        offers.apply(t, &[RebuyEvent::RebuyForgone { entry: EntryNo(2), reason: Forgone::Declined }]);
        assert_eq!(offers.next_deadline(), Some(t0 + chrono::Duration::seconds(20)));
        assert!(offers.lapsed(t0 + chrono::Duration::seconds(29)).is_empty(), "entry 2 declined; entry 1 not due");
        assert_eq!(offers.lapsed(t0 + chrono::Duration::seconds(30)), vec![(t, EntryNo(1), t0 + chrono::Duration::seconds(30))]);
        assert!(offers.lapsed(t0 + chrono::Duration::seconds(60)).is_empty(), "once");

        // Issue 33: a tournament cancelled or over lets no offer lapse.
        offers.apply(t, &[offer(3, 90)]);
        let closed = RebuyEvent::PurchasesClosed { cause: floor_events::rebuys::ClosedCause::Cancelled, at: t0 };
        offers.apply(t, &[closed]);
        assert!(offers.is_empty() && offers.lapsed(t0 + chrono::Duration::seconds(120)).is_empty());
    }

    /// Issue 22: while the tournament is suspended, an offer running when play stopped does
    /// not lapse (the resume makes it again with its time left); one whose deadline had passed
    /// before the suspension still lapses; the suspension survives a snapshot.
    #[test]
    fn an_offer_running_when_play_stopped_does_not_lapse_while_suspended() {
        use floor_events::abort::{AbortEvent, SuspendReason};
        let t = TournamentId::new();
        let t0: DateTime<Utc> = "2026-12-06T18:00:00Z".parse().unwrap();
        let secs = |s| t0 + chrono::Duration::seconds(s);
        let offer = |entry, until| RebuyEvent::RebuyOffered {
            entry: EntryNo(entry),
            player: PlayerId::parse("ana").unwrap(),
            until: secs(until),
            taken: 0,
        };
        let mut offers = Offers::default();
        offers.apply(t, &[offer(1, 5), offer(2, 30)]);
        let suspended = AbortEvent::Suspended { reason: SuspendReason::Director { reason: "power cut".into() }, at: secs(10) };
        offers.apply_abort(t, &[suspended]);
        let back: Offers = serde_json::from_slice(&serde_json::to_vec(&offers).unwrap()).unwrap();
        assert_eq!(back, offers, "the suspension is in the snapshot");
        let mut offers = back;
        assert_eq!(offers.lapsed(secs(60)), vec![(t, EntryNo(1), secs(5))], "entry 1 was due before play stopped; entry 2 waits");
        offers.apply_abort(t, &[AbortEvent::Resumed { suspended_at: secs(10), at: secs(100) }]);
        offers.apply(t, &[offer(2, 120)]);
        assert!(offers.lapsed(secs(119)).is_empty());
        assert_eq!(offers.lapsed(secs(120)), vec![(t, EntryNo(2), secs(120))], "made again from the resume");
    }
}
