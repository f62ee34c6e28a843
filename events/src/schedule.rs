//! The scheduler: recurring tournament templates (`floor.ev.schedule.<template_id>`) and the
//! requests directors send on `floor.cmd.scheduler.<verb>`.
//!
//! Each occurrence of a template becomes a tournament whose id is a UUID v5 of (template,
//! scheduled start), so however many schedulers run and however often they restart, it is
//! created once.

use crate::ids::CommandId;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Verbs of the scheduler service: `floor.cmd.scheduler.<verb>`.
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// Add a recurring tournament template.
    pub const ADD_TEMPLATE: Verb<AddTemplate, TemplateAddedReply> = Verb::new(service::SCHEDULER, "add_template");
    /// Remove a template: no more occurrences.
    pub const REMOVE_TEMPLATE: Verb<RemoveTemplate, Vec<ScheduleEvent>> = Verb::new(service::SCHEDULER, "remove_template");
    /// List the templates with their next occurrences.
    pub const LIST_TEMPLATES: Verb<ListTemplates, Vec<TemplateSummary>> = Verb::new(service::SCHEDULER, "list_templates");
}

/// A recurring tournament.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleTemplate {
    /// Cron expression with seconds: `sec min hour day-of-month month day-of-week [year]`, read
    /// on the wall clock of `time_zone` (`"0 0 19 * * *"`: every day at 19:00 local time).
    pub cron: String,
    /// IANA time zone, e.g. `Europe/Vienna`.
    pub time_zone: String,
    /// Each occurrence is created, and its registration opens, this many minutes before its
    /// start.
    #[serde(default = "default_lead_minutes")]
    pub registration_lead_minutes: u32,
    /// Late registration stays open this many minutes after the start; absent: none.
    #[serde(default)]
    pub late_registration_minutes: Option<u32>,
    /// The tournament each occurrence creates: a tournament definition without `start`,
    /// `registration_opens` and `late_registration_until`, which each occurrence sets.
    pub tournament: serde_json::Value,
}

fn default_lead_minutes() -> u32 {
    60
}

/// Add a template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddTemplate {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The template's id; absent means the command id, so a retry adds one template.
    #[serde(default)]
    pub template_id: Option<Uuid>,
    /// The template.
    pub template: ScheduleTemplate,
}

/// Remove a template: no further occurrences are created (those created stay).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoveTemplate {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The template.
    pub template_id: Uuid,
}

/// List the templates with their next occurrences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTemplates {
    /// How many upcoming starts to show per template (default 3).
    #[serde(default)]
    pub upcoming: Option<u32>,
}

/// Reply to [`AddTemplate`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TemplateAddedReply {
    /// The template's id.
    pub template_id: Uuid,
    /// Its next starts.
    pub upcoming: Vec<DateTime<Utc>>,
}

/// One template in [`ListTemplates`]'s reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TemplateSummary {
    /// The template's id.
    pub template_id: Uuid,
    /// The template.
    pub template: ScheduleTemplate,
    /// Its next starts.
    pub upcoming: Vec<DateTime<Utc>>,
}

/// The schedule aggregate's events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ScheduleEvent {
    /// A template was added.
    TemplateAdded {
        /// Its id.
        template_id: Uuid,
        /// The template, validated.
        template: ScheduleTemplate,
        /// When.
        at: DateTime<Utc>,
    },
    /// A template was removed.
    TemplateRemoved {
        /// Its id.
        template_id: Uuid,
        /// When.
        at: DateTime<Utc>,
    },
}
