//! When a recurring template's tournaments start.
//!
//! The cron expression (with seconds, the `cron` crate's syntax) describes **local wall-clock
//! time** in the template's IANA zone. It is evaluated on the naive local timeline, and each local
//! time found is then mapped to an instant on purpose, not by whatever a library does at a
//! daylight-saving change:
//!
//! - a local time that exists once is that instant;
//! - a **repeated** local time (clocks go back: 02:30 happens twice) runs **once**, at the first;
//! - a **skipped** local time (clocks go forward: 02:30 never happens) runs at the **next valid
//!   time**, the first instant after the gap (03:00 local);
//! - if that makes two local times land on one instant (02:30 skipped → 03:00, and 03:00 itself),
//!   it runs once.
//!
//! Each occurrence's id is a UUID v5 of (template, instant), so restarts and several schedulers
//! racing cannot create it twice: the second create is a duplicate of the same aggregate.

use chrono::{DateTime, Duration, LocalResult, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use floor_events::ids::FLOOR_NAMESPACE;
use floor_events::text::quote;
use std::str::FromStr;
use uuid::Uuid;

/// The closest two starts of one template may be (issue 17: `* * * * * *` created 7,204
/// tournaments a minute). Five minutes: the shortest regular interval operators run one
/// tournament series at; more frequent play is a sit & go, which starts when full.
pub const MIN_INTERVAL: Duration = Duration::minutes(5);

/// How many of a template's next starts are checked against [`MIN_INTERVAL`] when it is added:
/// enough to cover any daily pattern twice over and a weekly one for months, cheap enough to
/// answer at once.
pub const CHECKED_STARTS: usize = 100;

/// The longest cron expression read; anything longer is refused before it is parsed.
pub const MAX_CRON_CHARS: usize = 200;

/// How much of an unknown time-zone name an error keeps (IANA names are far shorter).
const MAX_ZONE_CHARS: usize = 64;

/// A recurring schedule: cron expression and time zone.
#[derive(Debug, Clone)]
pub struct Recurrence {
    schedule: cron::Schedule,
    zone: Tz,
}

/// Why a template is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecurrenceError {
    /// The cron expression does not parse (the text says where).
    InvalidCron(String),
    /// Not an IANA time-zone name.
    UnknownTimeZone(String),
}

impl std::fmt::Display for RecurrenceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::InvalidCron(e) => write!(f, "invalid cron expression (sec min hour day month weekday [year]): {e}"),
            Self::UnknownTimeZone(z) => write!(f, "unknown time zone {z:?} (use an IANA name such as Europe/Vienna)"),
        }
    }
}

impl std::error::Error for RecurrenceError {}

impl Recurrence {
    /// Parses a cron expression with seconds and an IANA zone name.
    ///
    /// # Errors
    /// [`RecurrenceError`].
    pub fn new(cron: &str, zone: &str) -> Result<Self, RecurrenceError> {
        if cron.chars().nth(MAX_CRON_CHARS).is_some() {
            return Err(RecurrenceError::InvalidCron(format!("longer than {MAX_CRON_CHARS} characters: {}", quote(cron))));
        }
        let schedule = cron::Schedule::from_str(cron).map_err(|e| RecurrenceError::InvalidCron(quote(&e.to_string())))?;
        // The name is kept as given, cut short: a megabyte of it is not echoed back.
        let zone = Tz::from_str(zone).map_err(|_| RecurrenceError::UnknownTimeZone(zone.chars().take(MAX_ZONE_CHARS).collect()))?;
        Ok(Self { schedule, zone })
    }

    /// The zone.
    pub fn zone(&self) -> Tz {
        self.zone
    }

    /// Start instants strictly after `after`, up to and including `until`, in order, each once.
    pub fn between(&self, after: DateTime<Utc>, until: DateTime<Utc>) -> Vec<DateTime<Utc>> {
        // Walk the naive local timeline (local wall-clock read as if it were UTC), starting a
        // little early and ending a little late: a daylight-saving gap or repeat moves a local
        // time by at most two hours (three, to be safe), and the mapping below sorts out the rest.
        let local = |t: DateTime<Utc>| t.with_timezone(&self.zone).naive_local();
        let (from, to) = (local(after) - Duration::hours(3), local(until) + Duration::hours(3));
        let mut out: Vec<DateTime<Utc>> = Vec::new();
        for wall in self.schedule.after(&Utc.from_utc_datetime(&from)) {
            let wall = wall.naive_utc();
            if wall > to {
                break;
            }
            // Mapping is monotone, so equal neighbours are the only duplicates.
            let instant = self.instant(wall);
            if instant > after && instant <= until && out.last() != Some(&instant) {
                out.push(instant);
            }
        }
        out
    }

    /// The next start strictly after `after`.
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        // Widening windows: a start every few seconds is found in the first, a yearly one in the
        // last, and neither walks a year of seconds.
        [Duration::hours(1), Duration::days(2), Duration::days(400)]
            .into_iter()
            .find_map(|window| self.between(after, after + window).into_iter().next())
    }

    /// The first two consecutive starts among the next `count` after `after` that come closer
    /// than `interval`, if any.
    pub fn closer_than(&self, interval: Duration, after: DateTime<Utc>, count: usize) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        let mut previous = self.next_after(after)?;
        for _ in 1..count {
            let next = self.next_after(previous)?;
            if next - previous < interval {
                return Some((previous, next));
            }
            previous = next;
        }
        None
    }

    /// The instant a local wall-clock time stands for, by the rules above.
    pub fn instant(&self, local: NaiveDateTime) -> DateTime<Utc> {
        match self.zone.from_local_datetime(&local) {
            LocalResult::Single(t) => t.with_timezone(&Utc),
            LocalResult::Ambiguous(first, _) => first.with_timezone(&Utc),
            LocalResult::None => self.end_of_gap(local),
        }
    }

    /// The first instant whose local time is at or after `local`, for a `local` inside a gap:
    /// the transition itself. Bisects whole seconds (the first version bisected durations and
    /// landed a fraction of a second off, so two skipped times did not collapse into one start).
    fn end_of_gap(&self, local: NaiveDateTime) -> DateTime<Utc> {
        let reached = |t: i64| Utc.timestamp_opt(t, 0).single().is_some_and(|u| u.with_timezone(&self.zone).naive_local() >= local);
        // Gaps are at most a few hours; the answer lies within a day of `local` read as UTC.
        let (mut low, mut high) = ((local - Duration::days(1)).and_utc().timestamp(), (local + Duration::days(1)).and_utc().timestamp());
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if reached(mid) {
                high = mid;
            } else {
                low = mid;
            }
        }
        Utc.timestamp_opt(high, 0).single().expect("in range")
    }
}

/// The id of the occurrence of `template` starting at `start`: UUID v5, the same on every
/// scheduler instance and after every restart.
pub fn occurrence_id(template: Uuid, start: DateTime<Utc>) -> Uuid {
    Uuid::new_v5(&FLOOR_NAMESPACE, format!("occurrence:{template}:{}", start.to_rfc3339()).as_bytes())
}

#[cfg(test)]
mod tests;
