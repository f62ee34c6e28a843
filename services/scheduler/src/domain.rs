//! The schedule aggregate: one per recurring template. Pure: time comes in every command.
//!
//! A template is checked in full when it is added (the cron expression, the time zone, and the
//! tournament its next occurrence would create), so a template that is stored always yields
//! valid tournaments.

use crate::occurrences::{Recurrence, RecurrenceError, CHECKED_STARTS, MIN_INTERVAL};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::schedule::{ScheduleEvent, ScheduleTemplate};
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{codes, subjects};
use uuid::Uuid;

/// The schedule aggregate.
pub struct ScheduleAggregate;

/// What a schedule is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum ScheduleCommand {
    /// Add the template.
    Add {
        /// Its id.
        template_id: Uuid,
        /// The template.
        template: ScheduleTemplate,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Remove it.
    Remove {
        /// Its id.
        template_id: Uuid,
        /// Now.
        at: DateTime<Utc>,
    },
}

/// Why the schedule said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The cron expression or the time zone is wrong.
    #[error("{0}")]
    Recurrence(RecurrenceError),
    /// The tournament an occurrence would create is not valid.
    #[error("the template's tournament is not valid: {0}")]
    InvalidTournament(String),
    /// The template never occurs again.
    #[error("the cron expression has no start after {0}")]
    NeverOccurs(DateTime<Utc>),
    /// Two starts come closer than [`MIN_INTERVAL`].
    #[error("starts at {0} and {1} are closer than {min} minutes apart", min = MIN_INTERVAL.num_minutes())]
    TooFrequent(DateTime<Utc>, DateTime<Utc>),
    /// The registration lead or the late registration is outside its bounds.
    #[error("{0}")]
    OutOfBounds(String),
    /// Added twice.
    #[error("this template exists already")]
    Exists,
    /// Not there (or removed).
    #[error("no such template")]
    Unknown,
}

impl floor_runtime::DomainError for ScheduleError {
    fn code(&self) -> &'static str {
        match self {
            Self::Recurrence(RecurrenceError::InvalidCron(_)) => codes::INVALID_CRON,
            Self::Recurrence(RecurrenceError::UnknownTimeZone(_)) => codes::UNKNOWN_TIME_ZONE,
            Self::InvalidTournament(_) | Self::NeverOccurs(_) | Self::OutOfBounds(_) => codes::INVALID_TEMPLATE,
            Self::TooFrequent(..) => codes::SCHEDULE_TOO_FREQUENT,
            Self::Exists => codes::TEMPLATE_EXISTS,
            Self::Unknown => codes::UNKNOWN_TEMPLATE,
        }
    }
}

/// A schedule, folded from its events.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScheduleState {
    /// The template while it is active.
    pub template: Option<ScheduleTemplate>,
    /// It was removed.
    pub removed: bool,
}

/// The longest registration lead: 30 days. Each occurrence is created this long before its
/// start, so the lead also bounds how many occurrences are open at once (at most
/// lead / [`MIN_INTERVAL`] per template).
pub const MAX_LEAD_MINUTES: u32 = 30 * 24 * 60;

/// The longest late registration after a start: 24 hours.
pub const MAX_LATE_MINUTES: u32 = 24 * 60;

/// Fields each occurrence sets; a template that sets them itself is refused, not overridden.
const SET_PER_OCCURRENCE: [&str; 3] = ["start", "registration_opens", "late_registration_until"];

/// The tournament definition of the occurrence of `template` starting at `start`: registration
/// opens `registration_lead_minutes` before, late registration runs
/// `late_registration_minutes` after.
///
/// # Errors
/// Why the template's tournament does not make a valid definition.
pub fn occurrence_definition(template: &ScheduleTemplate, start: DateTime<Utc>) -> Result<TournamentDefinition, String> {
    let serde_json::Value::Object(mut fields) = template.tournament.clone() else {
        return Err("`tournament` must be a table of definition fields".into());
    };
    if let Some(field) = SET_PER_OCCURRENCE.iter().find(|f| fields.contains_key(**f)) {
        return Err(format!("`{field}` is set by each occurrence; remove it from the template"));
    }
    let opens = start - Duration::minutes(i64::from(template.registration_lead_minutes));
    fields.insert("start".into(), serde_json::to_value(Start::At(start)).expect("start serializes"));
    fields.insert("registration_opens".into(), serde_json::to_value(opens).expect("instant serializes"));
    if let Some(late) = template.late_registration_minutes {
        let until = start + Duration::minutes(i64::from(late));
        fields.insert("late_registration_until".into(), serde_json::to_value(until).expect("instant serializes"));
    }
    let definition: TournamentDefinition =
        serde_json::from_value(serde_json::Value::Object(fields)).map_err(|e| floor_events::text::shorten(e.to_string()))?;
    definition.validate().map_err(|e| e.to_string())?;
    if let Some(structure) = &definition.structure {
        floor_rules::structure::resolve(structure).map_err(|e| format!("structure: {e}"))?;
    }
    Ok(definition)
}

/// The registration lead is 1 minute to [`MAX_LEAD_MINUTES`] (registration must open before
/// the start), the late registration at most [`MAX_LATE_MINUTES`].
fn check_bounds(template: &ScheduleTemplate) -> Result<(), ScheduleError> {
    let lead = template.registration_lead_minutes;
    if !(1..=MAX_LEAD_MINUTES).contains(&lead) {
        return Err(ScheduleError::OutOfBounds(format!("registration_lead_minutes must be 1-{MAX_LEAD_MINUTES}, got {lead}")));
    }
    if let Some(late) = template.late_registration_minutes.filter(|&late| late > MAX_LATE_MINUTES) {
        return Err(ScheduleError::OutOfBounds(format!("late_registration_minutes must be at most {MAX_LATE_MINUTES}, got {late}")));
    }
    Ok(())
}

impl Aggregate for ScheduleAggregate {
    const NAME: &'static str = subjects::aggregate::SCHEDULE;
    type State = ScheduleState;
    type Command = ScheduleCommand;
    type Event = ScheduleEvent;
    type Error = ScheduleError;

    fn handle_command(state: &ScheduleState, command: ScheduleCommand) -> Result<Vec<ScheduleEvent>, ScheduleError> {
        match command {
            ScheduleCommand::Add { template_id, template, at } => {
                if state.template.is_some() || state.removed {
                    return Err(ScheduleError::Exists);
                }
                check_bounds(&template)?;
                let recurrence = Recurrence::new(&template.cron, &template.time_zone).map_err(ScheduleError::Recurrence)?;
                let next = recurrence.next_after(at).ok_or(ScheduleError::NeverOccurs(at))?;
                if let Some((first, second)) = recurrence.closer_than(MIN_INTERVAL, at, CHECKED_STARTS) {
                    return Err(ScheduleError::TooFrequent(first, second));
                }
                occurrence_definition(&template, next).map_err(ScheduleError::InvalidTournament)?;
                Ok(vec![ScheduleEvent::TemplateAdded { template_id, template, at }])
            }
            ScheduleCommand::Remove { template_id, at } => {
                if state.template.is_none() {
                    return Err(ScheduleError::Unknown);
                }
                Ok(vec![ScheduleEvent::TemplateRemoved { template_id, at }])
            }
        }
    }

    fn apply_event(mut state: ScheduleState, event: ScheduleEvent) -> ScheduleState {
        match event {
            ScheduleEvent::TemplateAdded { template, .. } => state.template = Some(template),
            ScheduleEvent::TemplateRemoved { .. } => {
                state.template = None;
                state.removed = true;
            }
        }
        state
    }
}
