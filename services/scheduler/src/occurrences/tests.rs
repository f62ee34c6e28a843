//! Occurrences across a year and both daylight-saving changes, checked against a computation
//! that does not use cron.

use super::*;
use chrono::{Datelike, NaiveDate, NaiveTime};

fn utc(s: &str) -> DateTime<Utc> {
    s.parse().expect("RFC 3339")
}

/// Every day of 2027 at `time` local, by the rules, using chrono alone.
fn independent_daily(zone: Tz, time: NaiveTime) -> Vec<DateTime<Utc>> {
    let mut out = Vec::new();
    let mut day = NaiveDate::from_ymd_opt(2027, 1, 1).expect("date");
    while day.year() == 2027 {
        let wall = day.and_time(time);
        let instant = match zone.from_local_datetime(&wall) {
            LocalResult::Single(t) => t,
            LocalResult::Ambiguous(first, _) => first,
            // Central Europe skips 02:00-03:00; the next valid time is 03:00.
            LocalResult::None => zone.from_local_datetime(&day.and_hms_opt(3, 0, 0).expect("03:00")).single().expect("03:00 exists"),
        };
        out.push(instant.with_timezone(&Utc));
        day = day.succ_opt().expect("next day");
    }
    out
}

#[test]
fn a_daily_0230_start_over_2027_matches_an_independent_computation_in_vienna_and_stockholm() {
    for zone in ["Europe/Vienna", "Europe/Stockholm"] {
        let template = Recurrence::new("0 30 2 * * *", zone).unwrap();
        let got = template.between(utc("2026-12-31T23:00:00Z"), utc("2027-12-31T22:59:59Z"));
        let expected = independent_daily(template.zone(), NaiveTime::from_hms_opt(2, 30, 0).unwrap());
        assert_eq!(got.len(), 365, "{zone}: one start a day");
        assert_eq!(got, expected, "{zone}");
    }
}

#[test]
fn the_skipped_hour_runs_at_the_next_valid_time_once() {
    // 28 March 2027, Vienna: 02:00 → 03:00. Half-hourly starts at 02:00 and 02:30 do not exist;
    // both run at 03:00 (01:00 UTC), together with 03:00 itself: once.
    let template = Recurrence::new("0 0,30 * * * *", "Europe/Vienna").unwrap();
    let day = template.between(utc("2027-03-27T22:59:59Z"), utc("2027-03-28T21:59:59Z"));
    assert_eq!(day.len(), 46, "48 local half-hours, 02:00 and 02:30 merged into 03:00");
    let around: Vec<DateTime<Utc>> =
        day.iter().copied().filter(|t| *t >= utc("2027-03-28T00:30:00Z") && *t <= utc("2027-03-28T01:30:00Z")).collect();
    // 01:30 CET, then 03:00 CEST once, then 03:30 CEST.
    assert_eq!(around, vec![utc("2027-03-28T00:30:00Z"), utc("2027-03-28T01:00:00Z"), utc("2027-03-28T01:30:00Z")]);
}

#[test]
fn the_repeated_hour_runs_once() {
    // 31 October 2027, Vienna: 03:00 → 02:00; 02:00 and 02:30 happen twice, run once (the first).
    let template = Recurrence::new("0 0,30 * * * *", "Europe/Vienna").unwrap();
    let day = template.between(utc("2027-10-30T21:59:59Z"), utc("2027-10-31T22:59:59Z"));
    assert_eq!(day.len(), 48, "48 local half-hours, the repeated hour once");
    assert!(day.contains(&utc("2027-10-31T00:30:00Z")), "02:30 CEST, the first 02:30");
    assert!(!day.contains(&utc("2027-10-31T01:30:00Z")), "not 02:30 CET, the second");
}

#[test]
fn a_sunday_evening_series_stays_at_1800_local_all_year() {
    let template = Recurrence::new("0 0 18 * * Sun", "Europe/Stockholm").unwrap();
    let sundays = template.between(utc("2027-01-01T00:00:00Z"), utc("2027-12-31T23:59:59Z"));
    assert_eq!(sundays.len(), 52);
    assert!(sundays.iter().all(|t| t.with_timezone(&template.zone()).time() == NaiveTime::from_hms_opt(18, 0, 0).unwrap()));
}

#[test]
fn two_schedulers_derive_the_same_occurrence_ids() {
    let template_id = Uuid::now_v7();
    let a = Recurrence::new("0 0 20 * * *", "Europe/Vienna").unwrap();
    let b = Recurrence::new("0 0 20 * * *", "Europe/Vienna").unwrap();
    let window = (utc("2027-03-20T00:00:00Z"), utc("2027-04-05T00:00:00Z"));
    let ids = |t: &Recurrence| t.between(window.0, window.1).into_iter().map(|s| occurrence_id(template_id, s)).collect::<Vec<_>>();
    assert_eq!(ids(&a), ids(&b));
    let mut unique = ids(&a);
    unique.dedup();
    assert_eq!(unique.len(), 16, "one id per day");
    assert_ne!(occurrence_id(template_id, window.0), occurrence_id(Uuid::now_v7(), window.0), "ids differ between templates");
}

#[test]
fn bad_templates_are_refused_with_a_reason() {
    assert!(matches!(Recurrence::new("61 * * * * *", "Europe/Vienna"), Err(RecurrenceError::InvalidCron(_))));
    assert!(matches!(Recurrence::new("every sunday", "Europe/Vienna"), Err(RecurrenceError::InvalidCron(_))));
    assert_eq!(Recurrence::new("0 0 18 * * *", "Europe/Vienana").unwrap_err(), RecurrenceError::UnknownTimeZone("Europe/Vienana".into()));
}

#[test]
fn next_after_gives_the_following_start() {
    let template = Recurrence::new("0 0 18 * * *", "Europe/Vienna").unwrap();
    // 18:00 CEST is 16:00 UTC; strictly after today's start comes tomorrow's.
    assert_eq!(template.next_after(utc("2027-06-01T16:00:00Z")), Some(utc("2027-06-02T16:00:00Z")));
    assert_eq!(template.next_after(utc("2027-06-01T15:59:59Z")), Some(utc("2027-06-01T16:00:00Z")));
}
