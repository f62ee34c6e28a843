//! The schedule decider, case by case.

use crate::domain::{occurrence_definition, ScheduleAggregate, ScheduleCommand as C, ScheduleState};
use chrono::{DateTime, Utc};
use esrs::Aggregate;
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

/// Issue 17, reproduction 3: `* * * * * *` was accepted and created 7,204 tournaments a minute.
#[test]
fn schedules_whose_starts_come_closer_than_five_minutes_are_refused() {
    for cron in ["* * * * * *", "*/5 * * * * *", "0 * * * * *", "0 */4 * * * *", "0 0,1 19 * * *"] {
        given::<ScheduleAggregate>(vec![]).when(add(template(cron, "Europe/Vienna"))).then_reject(codes::SCHEDULE_TOO_FREQUENT);
    }
    for cron in ["0 */5 * * * *", "0 0 19 * * *", "0 0,30 19 * * *"] {
        given::<ScheduleAggregate>(vec![]).when(add(template(cron, "Europe/Vienna"))).accepted();
    }
}

#[test]
fn the_lead_and_late_registration_are_bounded_and_huge_text_is_not_echoed() {
    let mut long_lead = template("0 0 19 * * *", "Europe/Vienna");
    long_lead.registration_lead_minutes = u32::MAX;
    given::<ScheduleAggregate>(vec![]).when(add(long_lead)).then_reject(codes::INVALID_TEMPLATE);
    let mut long_late = template("0 0 19 * * *", "Europe/Vienna");
    long_late.late_registration_minutes = Some(u32::MAX);
    given::<ScheduleAggregate>(vec![]).when(add(long_late)).then_reject(codes::INVALID_TEMPLATE);
    let huge = "x".repeat(1 << 20);
    for (template, code) in
        [(template(&huge, "Europe/Vienna"), codes::INVALID_CRON), (template("0 0 19 * * *", &huge), codes::UNKNOWN_TIME_ZONE)]
    {
        let err = ScheduleAggregate::handle_command(&ScheduleState::default(), add(template)).unwrap_err();
        assert_eq!(floor_runtime::DomainError::code(&err), code);
        assert!(err.to_string().len() < 500, "{} bytes of error", err.to_string().len());
    }
    let mut bad_currency = template("0 0 19 * * *", "Europe/Vienna");
    bad_currency.tournament["buy_in"]["currency"] = json!(huge);
    let err = ScheduleAggregate::handle_command(&ScheduleState::default(), add(bad_currency)).unwrap_err();
    assert!(err.to_string().len() < 500, "{} bytes of error", err.to_string().len());
}

mod properties {
    //! The schedule decider against anything a stranger can send: random sequences of adds
    //! and removes with extreme values never panic, and what is accepted replays to the same
    //! state.

    use super::*;
    use crate::occurrences::{Recurrence, MIN_INTERVAL};
    use proptest::prelude::*;

    fn cron() -> BoxedStrategy<String> {
        prop_oneof![
            Just("* * * * * *".to_owned()),
            Just("*/5 * * * * *".to_owned()),
            Just("0 */5 * * * *".to_owned()),
            Just("0 0 19 * * *".to_owned()),
            Just("0 0,1 19 * * *".to_owned()),
            Just("0 0 19 * * * 2020".to_owned()),
            Just("0 30 2 * * *".to_owned()),
            Just(String::new()),
            Just("\u{1b}[2J".to_owned()),
            Just("9".repeat(10_000)),
            "[0-9*/, ]{0,30}",
        ]
        .boxed()
    }

    fn zone() -> BoxedStrategy<String> {
        prop_oneof![Just("Europe/Vienna"), Just("UTC"), Just("America/St_Johns"), Just("Mars/Olympus"), Just("")]
            .prop_map(str::to_owned)
            .boxed()
    }

    fn tournament() -> BoxedStrategy<serde_json::Value> {
        let amount = prop_oneof![Just(json!(0)), Just(json!(2000)), Just(json!(u64::MAX)), Just(json!(-1)), Just(json!("ten"))];
        let name = prop_oneof![Just(json!("Daily")), Just(json!("")), Just(json!("a\nb")), Just(json!("n".repeat(10_000)))];
        (amount, name, prop::bool::ANY)
            .prop_map(|(buy_in, name, object)| {
                if !object {
                    return json!([1, 2, 3]);
                }
                let mut t = template("0 0 19 * * *", "UTC").tournament;
                t["buy_in"]["amount"] = buy_in;
                t["name"] = name;
                t
            })
            .boxed()
    }

    fn command() -> BoxedStrategy<C> {
        let minutes = prop_oneof![Just(0u32), Just(1), Just(120), Just(u32::MAX)];
        let late = prop::option::of(prop_oneof![Just(0u32), Just(60), Just(u32::MAX)]);
        let at = (0i64..365 * 24 * 60).prop_map(|m| now() + chrono::Duration::minutes(m));
        prop_oneof![
            3 => (cron(), zone(), minutes, late, tournament(), at.clone()).prop_map(|(cron, time_zone, lead, late, tournament, at)| C::Add {
                template_id: Uuid::nil(),
                template: ScheduleTemplate { cron, time_zone, registration_lead_minutes: lead, late_registration_minutes: late, tournament },
                at,
            }),
            1 => at.prop_map(|at| C::Remove { template_id: Uuid::nil(), at }),
        ]
        .boxed()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

        #[test]
        fn no_command_sequence_breaks_a_schedule(commands in prop::collection::vec(command(), 1..6)) {
            let mut state = ScheduleState::default();
            let mut log = Vec::new();
            for command in commands {
                let checked_at = match &command { C::Add { at, .. } | C::Remove { at, .. } => *at };
                match ScheduleAggregate::handle_command(&state, command) {
                    Err(e) => prop_assert!(e.to_string().len() < 1_000, "an error never echoes a huge value"),
                    Ok(events) => {
                        for event in events {
                            if let ScheduleEvent::TemplateAdded { template, .. } = &event {
                                let recurrence = Recurrence::new(&template.cron, &template.time_zone).expect("a stored cron parses");
                                prop_assert_eq!(recurrence.closer_than(MIN_INTERVAL, checked_at, 20), None);
                            }
                            log.push(event.clone());
                            state = ScheduleAggregate::apply_event(state, event);
                        }
                    }
                }
            }
            let replayed = log.into_iter().fold(ScheduleState::default(), ScheduleAggregate::apply_event);
            prop_assert_eq!(replayed, state);
        }
    }
}
