//! The schedule decider, case by case.

use crate::domain::{occurrence_definition, ScheduleAggregate, ScheduleCommand as C};
use chrono::{DateTime, Utc};
use floor_events::codes;
use floor_events::schedule::{ScheduleEvent, ScheduleTemplate};
use floor_events::tournament::Start;
use floor_runtime::spec::given;
use serde_json::json;
use uuid::Uuid;

fn now() -> DateTime<Utc> {
    "2027-03-20T12:00:00Z".parse().unwrap()
}

fn template(cron: &str, zone: &str) -> ScheduleTemplate {
    ScheduleTemplate {
        cron: cron.into(),
        time_zone: zone.into(),
        registration_lead_minutes: 120,
        late_registration_minutes: Some(60),
        tournament: json!({
            "name": "Daily 20",
            "table_size": 9,
            "starting_stack": 20000,
            "buy_in": { "amount": 2000, "currency": "EUR" },
            "fee": { "on_top": { "amount": 200, "currency": "EUR" } },
            "capacity": 500,
            "min_players": 10,
            "structure": { "preset": "turbo" }
        }),
    }
}

fn add(t: ScheduleTemplate) -> C {
    C::Add { template_id: Uuid::nil(), template: t, at: now() }
}

#[test]
fn a_valid_template_is_added() {
    let t = template("0 0 19 * * *", "Europe/Vienna");
    given::<ScheduleAggregate>(vec![]).when(add(t.clone())).then(vec![ScheduleEvent::TemplateAdded {
        template_id: Uuid::nil(),
        template: t,
        at: now(),
    }]);
}

#[test]
fn bad_cron_unknown_zone_and_bad_tournaments_are_refused_with_their_codes() {
    given::<ScheduleAggregate>(vec![]).when(add(template("every day at seven", "Europe/Vienna"))).then_reject(codes::INVALID_CRON);
    given::<ScheduleAggregate>(vec![]).when(add(template("0 0 19 * * *", "Europe/Atlantis"))).then_reject(codes::UNKNOWN_TIME_ZONE);
    given::<ScheduleAggregate>(vec![]).when(add(template("0 0 19 * * * 2020", "Europe/Vienna"))).then_reject(codes::INVALID_TEMPLATE);
    let mut no_capacity = template("0 0 19 * * *", "Europe/Vienna");
    no_capacity.tournament["capacity"] = json!(0);
    given::<ScheduleAggregate>(vec![]).when(add(no_capacity)).then_reject(codes::INVALID_TEMPLATE);
    let mut sets_start = template("0 0 19 * * *", "Europe/Vienna");
    sets_start.tournament["start"] = json!("sit_and_go");
    given::<ScheduleAggregate>(vec![]).when(add(sets_start)).then_reject(codes::INVALID_TEMPLATE);
    let mut decreasing = template("0 0 19 * * *", "Europe/Vienna");
    decreasing.tournament["structure"] = json!({ "custom": { "steps": [
        { "kind": "level", "small_blind": 100, "big_blind": 200, "seconds": 600 },
        { "kind": "level", "small_blind": 50, "big_blind": 100, "seconds": 600 }
    ] } });
    given::<ScheduleAggregate>(vec![]).when(add(decreasing)).then_reject(codes::INVALID_TEMPLATE);
}

#[test]
fn a_template_is_added_once_and_removed_once() {
    let added = ScheduleEvent::TemplateAdded { template_id: Uuid::nil(), template: template("0 0 19 * * *", "Europe/Vienna"), at: now() };
    given::<ScheduleAggregate>(vec![added.clone()])
        .when(add(template("0 0 20 * * *", "Europe/Vienna")))
        .then_reject(codes::TEMPLATE_EXISTS);
    let removed = ScheduleEvent::TemplateRemoved { template_id: Uuid::nil(), at: now() };
    given::<ScheduleAggregate>(vec![added.clone()]).when(C::Remove { template_id: Uuid::nil(), at: now() }).then(vec![removed.clone()]);
    given::<ScheduleAggregate>(vec![added, removed])
        .when(C::Remove { template_id: Uuid::nil(), at: now() })
        .then_reject(codes::UNKNOWN_TEMPLATE);
    given::<ScheduleAggregate>(vec![]).when(C::Remove { template_id: Uuid::nil(), at: now() }).then_reject(codes::UNKNOWN_TEMPLATE);
}

#[test]
fn each_occurrence_opens_registration_ahead_and_closes_late_registration_after() {
    let start: DateTime<Utc> = "2027-03-20T18:00:00Z".parse().unwrap();
    let d = occurrence_definition(&template("0 0 19 * * *", "Europe/Vienna"), start).unwrap();
    assert_eq!(d.start, Start::At(start));
    assert_eq!(d.registration_opens, Some("2027-03-20T16:00:00Z".parse().unwrap()));
    assert_eq!(d.late_registration_until, Some("2027-03-20T19:00:00Z".parse().unwrap()));
}
