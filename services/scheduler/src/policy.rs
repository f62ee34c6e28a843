//! What the scheduler must do at an instant: create the occurrences whose registration opens,
//! start the tournaments whose start time came. Pure: the service feeds it the template and
//! tournament events and asks what is due.
//!
//! Two shapes: [`Schedules`] is what the log says (templates, removals, tournaments waiting for
//! their start), a pure fold kept in a snapshot so a restart reads only the commits after it;
//! [`Plan`] is what is due from an instant on, built from [`Schedules`] at the start
//! ([`Plan::restore`]) and fed every later [`Change`].
//!
//! Every action is idempotent downstream: an occurrence's tournament id is a UUID v5 of
//! (template, start) and a start's command id is derived from the tournament, so the plan may
//! hand out an action again after a restart, or on two instances, without harm.

use crate::domain::occurrence_definition;
use crate::occurrences::{occurrence_id, Recurrence, MIN_INTERVAL};
use chrono::{DateTime, Duration, Utc};
use floor_events::registration::TournamentEvent;
use floor_events::schedule::{ScheduleEvent, ScheduleTemplate};
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::TournamentId;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use uuid::Uuid;

/// The most occurrences one pass of the plan hands out, over all templates. The rest wait for
/// the next pass, which comes at once: the cap spreads a long lead window (or a template stored
/// before the minimum interval existed) over many passes, so one pass never sends thousands of
/// creations at registration while other work waits.
pub const MAX_CREATIONS_PER_PASS: usize = 50;

/// One active template.
#[derive(Debug, Clone)]
struct Active {
    template: ScheduleTemplate,
    recurrence: Recurrence,
    /// Occurrences starting at or before this were handed out.
    created_through: DateTime<Utc>,
    /// The first start after `created_through`.
    next_start: Option<DateTime<Utc>>,
    /// The last start handed out: a start closer to it than [`MIN_INTERVAL`] is skipped, so
    /// a template stored before the interval was checked cannot flood registration either.
    last_start: Option<DateTime<Utc>>,
}

impl Active {
    fn lead(&self) -> Duration {
        Duration::minutes(i64::from(self.template.registration_lead_minutes))
    }
}

/// A tournament to create.
#[derive(Debug, Clone, PartialEq)]
pub struct Creation {
    /// The template.
    pub template_id: Uuid,
    /// The tournament's id: UUID v5 of (template, start).
    pub tournament_id: TournamentId,
    /// Its definition.
    pub definition: TournamentDefinition,
}

/// What one commit changes for the scheduler.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A template's events.
    Schedule(Vec<ScheduleEvent>),
    /// A tournament was created to start at a time (`Some`), or started or was cancelled (`None`).
    Start(TournamentId, Option<DateTime<Utc>>),
}

impl Change {
    /// What a tournament's events change: its scheduled start, or that it needs none any more.
    pub fn of_tournament(tournament: TournamentId, events: &[TournamentEvent]) -> Vec<Change> {
        events
            .iter()
            .filter_map(|event| match event {
                TournamentEvent::TournamentCreated(created) => match created.definition.start {
                    Start::At(start) => Some(Change::Start(tournament, Some(start))),
                    _ => None,
                },
                TournamentEvent::TournamentStarted(_) | TournamentEvent::TournamentCancelled(_) => Some(Change::Start(tournament, None)),
                _ => None,
            })
            .collect()
    }
}

/// What the log says, folded: the scheduler's memory, stored in snapshots. Independent of the
/// instant it is read at, so the same log always gives the same value.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Schedules {
    /// Templates added and not removed.
    templates: BTreeMap<Uuid, ScheduleTemplate>,
    /// Templates removed (an addition read after its removal stays removed).
    removed: BTreeSet<Uuid>,
    /// Scheduled tournaments not started or cancelled yet, with their start.
    waiting: BTreeMap<TournamentId, DateTime<Utc>>,
}

impl Schedules {
    /// Folds one change.
    pub fn apply(&mut self, change: &Change) {
        match change {
            Change::Schedule(events) => {
                for event in events {
                    match event {
                        ScheduleEvent::TemplateAdded { template_id, template, .. } if !self.removed.contains(template_id) => {
                            self.templates.entry(*template_id).or_insert_with(|| template.clone());
                        }
                        ScheduleEvent::TemplateAdded { .. } => {}
                        ScheduleEvent::TemplateRemoved { template_id, .. } => {
                            self.templates.remove(template_id);
                            self.removed.insert(*template_id);
                        }
                    }
                }
            }
            Change::Start(tournament, Some(start)) => {
                self.waiting.insert(*tournament, *start);
            }
            Change::Start(tournament, None) => {
                self.waiting.remove(tournament);
            }
        }
    }
}

/// The scheduler's plan.
#[derive(Debug, Default)]
pub struct Plan {
    templates: HashMap<Uuid, Active>,
    /// Templates removed: never active again, even if their `template_added` is read after the
    /// removal (the service applies a removal at once, the log may bring the addition later).
    removed: HashSet<Uuid>,
    /// Scheduled tournaments not started or cancelled yet, and when to try to start them.
    starts: HashMap<TournamentId, DateTime<Utc>>,
}

impl Plan {
    /// The plan of what the log says, from `now` on: each template begins at `now` (as if it
    /// were added now: occurrences that already started are never created late, those whose
    /// registration is open are handed out again, which registration answers as done), each
    /// waiting tournament is started at its time.
    pub fn restore(schedules: &Schedules, now: DateTime<Utc>) -> Self {
        let mut plan = Plan { removed: schedules.removed.iter().copied().collect(), ..Plan::default() };
        let added: Vec<ScheduleEvent> = schedules
            .templates
            .iter()
            .map(|(id, template)| ScheduleEvent::TemplateAdded { template_id: *id, template: template.clone(), at: now })
            .collect();
        plan.apply_schedule(&added, now);
        plan.starts = schedules.waiting.iter().map(|(t, at)| (*t, *at)).collect();
        plan
    }

    /// Folds one change read from the log at `now`.
    pub fn apply(&mut self, change: &Change, now: DateTime<Utc>) {
        match change {
            Change::Schedule(events) => self.apply_schedule(events, now),
            Change::Start(tournament, Some(start)) => {
                self.starts.insert(*tournament, *start);
            }
            Change::Start(tournament, None) => {
                self.starts.remove(tournament);
            }
        }
    }

    /// Folds a template's events; `now` is where a template seen for the first time begins:
    /// occurrences that already started are never created late.
    pub fn apply_schedule(&mut self, events: &[ScheduleEvent], now: DateTime<Utc>) {
        for event in events {
            match event {
                ScheduleEvent::TemplateAdded { template_id, template, .. } => {
                    if self.removed.contains(template_id) {
                        continue;
                    }
                    let Ok(recurrence) = Recurrence::new(&template.cron, &template.time_zone) else { continue };
                    let next_start = recurrence.next_after(now);
                    let active = Active { template: template.clone(), recurrence, created_through: now, next_start, last_start: None };
                    self.templates.entry(*template_id).or_insert(active);
                }
                ScheduleEvent::TemplateRemoved { template_id, .. } => {
                    self.templates.remove(template_id);
                    self.removed.insert(*template_id);
                }
            }
        }
    }

    /// The occurrences whose registration opens by `now`, each handed out once, at most
    /// [`MAX_CREATIONS_PER_PASS`] at a time (the rest come with the next call).
    pub fn creations_due(&mut self, now: DateTime<Utc>) -> Vec<Creation> {
        let mut due = Vec::new();
        for (&template_id, active) in &mut self.templates {
            let until = now + active.lead();
            if due.len() >= MAX_CREATIONS_PER_PASS || active.next_start.is_none_or(|next| next > until) {
                continue;
            }
            let mut through = until;
            for start in active.recurrence.between(active.created_through, until) {
                if due.len() >= MAX_CREATIONS_PER_PASS {
                    // Handed out up to the previous start; this one and the rest come next pass.
                    through = start - Duration::seconds(1);
                    break;
                }
                if active.last_start.is_some_and(|last| start - last < MIN_INTERVAL) {
                    continue;
                }
                active.last_start = Some(start);
                match occurrence_definition(&active.template, start) {
                    Ok(definition) => {
                        due.push(Creation { template_id, tournament_id: TournamentId(occurrence_id(template_id, start)), definition })
                    }
                    // Checked when the template was added; a rule that depends on the date could
                    // still refuse one occurrence: skip it rather than stop the schedule.
                    Err(e) => tracing::warn!(%template_id, %start, error = e, "occurrence skipped: its tournament is not valid"),
                }
            }
            active.created_through = through;
            active.next_start = active.recurrence.next_after(through);
        }
        due
    }

    /// The tournaments whose start is due by `now`, each handed out once (see [`Plan::retry_start`]).
    pub fn starts_due(&mut self, now: DateTime<Utc>) -> Vec<TournamentId> {
        let due: Vec<TournamentId> = self.starts.iter().filter(|(_, at)| **at <= now).map(|(t, _)| *t).collect();
        due.iter().for_each(|t| {
            self.starts.remove(t);
        });
        due
    }

    /// Try to start `tournament` again at `at` (registration did not answer).
    pub fn retry_start(&mut self, tournament: TournamentId, at: DateTime<Utc>) {
        self.starts.insert(tournament, at);
    }

    /// The earliest instant something may be due.
    pub fn next_wakeup(&self) -> Option<DateTime<Utc>> {
        let creations = self.templates.values().filter_map(|a| a.next_start.map(|s| s - a.lead()));
        creations.chain(self.starts.values().copied()).min()
    }

    /// The active templates with their next `upcoming` starts after `now`.
    pub fn templates(&self, now: DateTime<Utc>, upcoming: usize) -> Vec<(Uuid, ScheduleTemplate, Vec<DateTime<Utc>>)> {
        let mut list: Vec<_> = self
            .templates
            .iter()
            .map(|(id, a)| {
                let mut next = Vec::with_capacity(upcoming);
                let mut after = now;
                while next.len() < upcoming {
                    let Some(start) = a.recurrence.next_after(after) else { break };
                    next.push(start);
                    after = start;
                }
                (*id, a.template.clone(), next)
            })
            .collect();
        list.sort_by_key(|(id, ..)| *id);
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::registration::{StartCause, TournamentStarted};
    use serde_json::json;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn template(cron: &str, lead_minutes: u32) -> ScheduleTemplate {
        ScheduleTemplate {
            cron: cron.into(),
            time_zone: "Europe/Vienna".into(),
            registration_lead_minutes: lead_minutes,
            late_registration_minutes: None,
            tournament: json!({
                "name": "Daily", "table_size": 9, "starting_stack": 10000,
                "buy_in": { "amount": 1000, "currency": "EUR" }, "fee": { "on_top": { "amount": 100, "currency": "EUR" } },
                "capacity": 100, "min_players": 2
            }),
        }
    }

    fn added(id: Uuid, t: ScheduleTemplate) -> ScheduleEvent {
        ScheduleEvent::TemplateAdded { template_id: id, template: t, at: at("2027-01-01T00:00:00Z") }
    }

    #[test]
    fn each_occurrence_is_created_once_when_its_registration_opens() {
        let mut plan = Plan::default();
        let id = Uuid::from_u128(7);
        // 19:00 Vienna = 18:00 UTC in winter; registration opens two hours ahead.
        plan.apply_schedule(&[added(id, template("0 0 19 * * *", 120))], at("2027-01-10T12:00:00Z"));
        assert_eq!(plan.next_wakeup(), Some(at("2027-01-10T16:00:00Z")));
        assert!(plan.creations_due(at("2027-01-10T15:59:59Z")).is_empty());
        let due = plan.creations_due(at("2027-01-10T16:00:00Z"));
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].tournament_id, TournamentId(occurrence_id(id, at("2027-01-10T18:00:00Z"))));
        assert!(plan.creations_due(at("2027-01-10T17:00:00Z")).is_empty(), "handed out once");
        assert_eq!(plan.next_wakeup(), Some(at("2027-01-11T16:00:00Z")));
    }

    #[test]
    fn a_restarted_plan_creates_what_is_inside_the_lead_window_and_nothing_that_already_started() {
        let mut plan = Plan::default();
        let id = Uuid::from_u128(7);
        plan.apply_schedule(&[added(id, template("0 0 * * * *", 90))], at("2027-01-10T12:30:00Z"));
        let due = plan.creations_due(at("2027-01-10T12:30:00Z"));
        let starts: Vec<_> = due.iter().map(|c| c.definition.start).collect();
        assert_eq!(starts, vec![Start::At(at("2027-01-10T13:00:00Z")), Start::At(at("2027-01-10T14:00:00Z"))]);
    }

    #[test]
    fn a_removed_template_creates_nothing_more() {
        let mut plan = Plan::default();
        let id = Uuid::from_u128(7);
        plan.apply_schedule(&[added(id, template("0 0 19 * * *", 0))], at("2027-01-10T12:00:00Z"));
        plan.apply_schedule(
            &[ScheduleEvent::TemplateRemoved { template_id: id, at: at("2027-01-10T13:00:00Z") }],
            at("2027-01-10T13:00:00Z"),
        );
        assert!(plan.creations_due(at("2027-01-12T00:00:00Z")).is_empty());
        assert_eq!(plan.next_wakeup(), None);
    }

    /// Issue 17, reproduction 3: `schedule remove` must stop the creations for good, even when
    /// the log brings the template's addition after the service applied its removal.
    #[test]
    fn a_removed_template_stays_removed_when_its_addition_is_read_late() {
        let mut plan = Plan::default();
        let id = Uuid::from_u128(7);
        let now = at("2027-01-10T12:00:00Z");
        plan.apply_schedule(&[ScheduleEvent::TemplateRemoved { template_id: id, at: now }], now);
        plan.apply_schedule(&[added(id, template("0 0 * * * *", 120))], now);
        assert!(plan.creations_due(now).is_empty());
        assert_eq!(plan.next_wakeup(), None);
    }

    #[test]
    fn one_pass_hands_out_at_most_its_cap_and_the_next_pass_goes_on() {
        let mut plan = Plan::default();
        let id = Uuid::from_u128(7);
        let now = at("2027-01-10T12:00:00Z");
        // Every five minutes, registration open 30 days ahead: 8,640 occurrences in the window.
        plan.apply_schedule(&[added(id, template("0 */5 * * * *", 30 * 24 * 60))], now);
        let first = plan.creations_due(now);
        assert_eq!(first.len(), MAX_CREATIONS_PER_PASS);
        assert!(plan.next_wakeup().is_some_and(|t| t <= now), "the next pass is due at once");
        let second = plan.creations_due(now);
        assert_eq!(second.len(), MAX_CREATIONS_PER_PASS);
        let starts: Vec<_> = first.iter().chain(&second).map(|c| c.definition.start).collect();
        let expected: Vec<_> = (1..=2 * MAX_CREATIONS_PER_PASS as i64).map(|k| Start::At(now + Duration::minutes(5 * k))).collect();
        assert_eq!(starts, expected, "each start once, in order, none skipped");
    }

    #[test]
    fn a_template_stored_before_the_minimum_interval_still_creates_no_more_often() {
        let mut plan = Plan::default();
        let id = Uuid::from_u128(7);
        let now = at("2027-01-10T12:00:00Z");
        // Read from an old log: the decider refuses such a template today.
        plan.apply_schedule(&[added(id, template("* * * * * *", 60))], now);
        let due = plan.creations_due(now);
        assert_eq!(due.len(), 12, "one each five minutes of the hour ahead, not 3,600");
        for pair in due.windows(2) {
            let (Start::At(a), Start::At(b)) = (pair[0].definition.start, pair[1].definition.start) else { panic!("scheduled") };
            assert!(b - a >= MIN_INTERVAL);
        }
    }

    #[test]
    fn scheduled_tournaments_are_started_once_at_their_time_until_they_start() {
        let mut plan = Plan::default();
        let id = Uuid::from_u128(7);
        plan.apply_schedule(&[added(id, template("0 0 19 * * *", 60))], at("2027-01-10T17:00:00Z"));
        let created = plan.creations_due(at("2027-01-10T17:00:00Z")).remove(0);
        let t = created.tournament_id;
        let now = at("2027-01-10T17:00:00Z");
        let created = TournamentEvent::TournamentCreated(floor_events::registration::TournamentCreated {
            tournament_id: t,
            definition: created.definition,
            at: now,
        });
        Change::of_tournament(t, &[created]).iter().for_each(|change| plan.apply(change, now));
        assert!(plan.starts_due(at("2027-01-10T17:59:59Z")).is_empty());
        assert_eq!(plan.starts_due(at("2027-01-10T18:00:00Z")), vec![t]);
        assert!(plan.starts_due(at("2027-01-10T18:00:01Z")).is_empty(), "handed out once");
        plan.retry_start(t, at("2027-01-10T18:00:02Z"));
        let started = TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at("2027-01-10T18:00:02Z") };
        Change::of_tournament(t, &[TournamentEvent::TournamentStarted(started)]).iter().for_each(|change| plan.apply(change, now));
        assert!(plan.starts_due(at("2027-01-10T19:00:00Z")).is_empty(), "a started tournament is not started again");
    }

    fn created(t: TournamentId, start: &str) -> TournamentEvent {
        let mut definition = occurrence_definition(&template("0 0 19 * * *", 60), at(start)).expect("valid");
        definition.start = Start::At(at(start));
        TournamentEvent::TournamentCreated(floor_events::registration::TournamentCreated { tournament_id: t, definition, at: at(start) })
    }

    /// Given a log of templates and tournaments, the plan restored from its memory at an instant
    /// hands out what a plan folded from the whole log at that instant hands out.
    #[test]
    fn a_plan_restored_from_the_memory_equals_the_plan_folded_from_the_log() {
        let (kept, gone) = (Uuid::from_u128(7), Uuid::from_u128(8));
        let (waiting, started) = (TournamentId(Uuid::from_u128(1)), TournamentId(Uuid::from_u128(2)));
        let log = [
            Change::Schedule(vec![added(kept, template("0 0 19 * * *", 120)), added(gone, template("0 0 * * * *", 60))]),
            Change::of_tournament(waiting, &[created(waiting, "2027-01-10T20:00:00Z")]).remove(0),
            Change::of_tournament(started, &[created(started, "2027-01-10T13:00:00Z")]).remove(0),
            Change::Schedule(vec![ScheduleEvent::TemplateRemoved { template_id: gone, at: at("2027-01-10T12:00:00Z") }]),
            Change::Start(started, None),
        ];
        let mut memory = Schedules::default();
        log.iter().for_each(|change| memory.apply(change));
        let now = at("2027-01-10T16:30:00Z");
        let mut folded = Plan::default();
        log.iter().for_each(|change| folded.apply(change, now));
        let mut restored = Plan::restore(&memory, now);

        assert_eq!(restored.next_wakeup(), folded.next_wakeup());
        assert_eq!(restored.creations_due(now), folded.creations_due(now));
        let later = at("2027-01-10T21:00:00Z");
        assert_eq!(restored.starts_due(later), vec![waiting], "the waiting tournament only: the other started");
        assert_eq!(folded.starts_due(later), vec![waiting]);
        assert_eq!(restored.templates(now, 1).len(), 1, "the removed template stays removed");
    }

    /// The memory is what is stored: it must come back the same from its stored form, and an
    /// addition read after its removal stays removed in it too.
    #[test]
    fn the_memory_survives_its_stored_form_and_keeps_removals() {
        let id = Uuid::from_u128(7);
        let mut memory = Schedules::default();
        memory.apply(&Change::Schedule(vec![ScheduleEvent::TemplateRemoved { template_id: id, at: at("2027-01-10T12:00:00Z") }]));
        memory.apply(&Change::Schedule(vec![added(id, template("0 0 19 * * *", 60))]));
        memory.apply(&Change::Start(TournamentId(Uuid::from_u128(1)), Some(at("2027-01-10T20:00:00Z"))));
        let stored = serde_json::to_vec(&memory).expect("encodes");
        let read: Schedules = serde_json::from_slice(&stored).expect("decodes");
        assert_eq!(read, memory);
        assert!(Plan::restore(&read, at("2027-01-10T12:00:00Z")).templates(at("2027-01-10T12:00:00Z"), 1).is_empty());
    }

    /// A restart between a creation's hand-out and registration taking it loses nothing: the
    /// restored plan hands out again every occurrence whose registration is open and that has
    /// not started.
    #[test]
    fn a_restored_plan_hands_out_again_what_is_open_and_not_started() {
        let id = Uuid::from_u128(7);
        let mut memory = Schedules::default();
        memory.apply(&Change::Schedule(vec![added(id, template("0 0 * * * *", 90))]));
        let due = Plan::restore(&memory, at("2027-01-10T12:30:00Z")).creations_due(at("2027-01-10T12:30:00Z"));
        let starts: Vec<_> = due.iter().map(|c| c.definition.start).collect();
        assert_eq!(starts, vec![Start::At(at("2027-01-10T13:00:00Z")), Start::At(at("2027-01-10T14:00:00Z"))]);
    }
}
