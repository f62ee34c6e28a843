//! JSON Schema for every message, and the AsyncAPI document, generated from the Rust types.
//!
//! `schemas/` holds the output, checked in so table servers and clients in any language build
//! against it; `events/tests/schemas.rs` fails when the checked-in files differ from what these
//! types generate (`make schemas` rewrites them).

use crate::player::{PlayerEvent, SetPlayerLimits};
use crate::registration::*;
use crate::reply::{ErrorBody, Reply};
use crate::tournament::TournamentDefinition;
use crate::{record, subjects};
use schemars::{schema_for, JsonSchema, Schema};
use serde_json::{json, Value};

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("schema serializes");
    text.push('\n');
    text
}

fn schema<T: JsonSchema>() -> Value {
    let schema: Schema = schema_for!(T);
    let mut value = schema.to_value();
    strip_generated_defaults(&mut value);
    value
}

/// A missing `command_id` defaults to a fresh UUID v7; schemars would print one generated now as
/// the "default", making every run differ. Say it in words instead.
fn strip_generated_defaults(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(id)) = map.get_mut("command_id") {
                id.remove("default");
                id.insert("description".into(), json!("Idempotency key (UUID v7). Absent: a fresh one, so a retry is a new command."));
            }
            map.values_mut().for_each(strip_generated_defaults);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_generated_defaults),
        _ => {}
    }
}

/// A commit as stored: the array of records `{"v": 1, "type": …, …}` one command produced.
fn commit_schema<E: JsonSchema>(title: &str) -> Value {
    let event = schema::<E>();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "description": format!(
            "One NATS message on {}: the JSON array of the events one command produced. Each record is an event (tagged by `type`) plus `v`, its schema version (this build writes {}).",
            subjects::EVENTS_STREAM, record::CURRENT_VERSION
        ),
        "type": "array",
        "minItems": 1,
        "items": {
            "allOf": [
                { "type": "object", "required": ["v"], "properties": { "v": { "type": "integer", "minimum": 1 } } },
                { "$ref": "#/$defs/Event" }
            ]
        },
        "$defs": merge_defs(event),
    })
}

/// Moves the event schema's own `$defs` beside it so `#/$defs/...` references still resolve.
fn merge_defs(mut event: Value) -> Value {
    let mut defs = event.as_object_mut().and_then(|o| o.remove("$defs")).unwrap_or_else(|| json!({}));
    if let Some(o) = event.as_object_mut() {
        o.remove("$schema");
    }
    defs.as_object_mut().expect("defs object").insert("Event".into(), event);
    defs
}

/// Every generated file: path under `schemas/` and content.
pub fn files() -> Vec<(String, String)> {
    let mut files: Vec<(String, Value)> = vec![
        ("definitions/tournament_definition.json".into(), schema::<TournamentDefinition>()),
        ("commands/create_tournament.json".into(), schema::<CreateTournament>()),
        ("commands/register.json".into(), schema::<Register>()),
        ("commands/unregister.json".into(), schema::<Unregister>()),
        ("commands/refuse_player.json".into(), schema::<RefusePlayer>()),
        ("commands/keep_apart.json".into(), schema::<KeepApart>()),
        ("commands/eliminate_entry.json".into(), schema::<EliminateEntry>()),
        ("commands/set_player_limits.json".into(), schema::<SetPlayerLimits>()),
        ("events/tournament_event.json".into(), schema::<TournamentEvent>()),
        ("events/player_event.json".into(), schema::<PlayerEvent>()),
        ("events/tournament_commit.json".into(), commit_schema::<TournamentEvent>("TournamentCommit")),
        ("events/player_commit.json".into(), commit_schema::<PlayerEvent>("PlayerCommit")),
        ("replies/error.json".into(), schema::<ErrorBody>()),
        ("replies/tournament_created.json".into(), schema::<Reply<TournamentCreatedReply>>()),
        ("replies/registered.json".into(), schema::<Reply<Registered>>()),
        ("replies/recorded.json".into(), schema::<Reply<Recorded>>()),
        ("replies/player_events.json".into(), schema::<Reply<Vec<PlayerEvent>>>()),
        ("definitions/structure.json".into(), schema::<crate::clock::Structure>()),
        ("events/clock_event.json".into(), schema::<crate::clock::ClockEvent>()),
        ("events/clock_commit.json".into(), commit_schema::<crate::clock::ClockEvent>("ClockCommit")),
        ("commands/clock_set_structure.json".into(), schema::<crate::clock::SetStructure>()),
        ("commands/clock_request.json".into(), schema::<crate::clock::ClockRequest>()),
        ("commands/clock_pause.json".into(), schema::<crate::clock::PauseClock>()),
        ("commands/clock_adjust_time.json".into(), schema::<crate::clock::AdjustTime>()),
        ("commands/clock_skip_to_level.json".into(), schema::<crate::clock::SkipToLevel>()),
        ("replies/clock_recorded.json".into(), schema::<Reply<crate::clock::ClockRecorded>>()),
        ("commands/start_tournament.json".into(), schema::<StartTournament>()),
        ("commands/cancel_tournament.json".into(), schema::<CancelTournament>()),
        ("definitions/schedule_template.json".into(), schema::<crate::schedule::ScheduleTemplate>()),
        ("commands/scheduler_add_template.json".into(), schema::<crate::schedule::AddTemplate>()),
        ("commands/scheduler_remove_template.json".into(), schema::<crate::schedule::RemoveTemplate>()),
        ("commands/scheduler_list_templates.json".into(), schema::<crate::schedule::ListTemplates>()),
        ("replies/template_added.json".into(), schema::<Reply<crate::schedule::TemplateAddedReply>>()),
        ("replies/schedule_recorded.json".into(), schema::<Reply<Vec<crate::schedule::ScheduleEvent>>>()),
        ("replies/templates.json".into(), schema::<Reply<Vec<crate::schedule::TemplateSummary>>>()),
        ("events/schedule_event.json".into(), schema::<crate::schedule::ScheduleEvent>()),
        ("events/schedule_commit.json".into(), commit_schema::<crate::schedule::ScheduleEvent>("ScheduleCommit")),
        ("events/seating_event.json".into(), schema::<crate::seating::SeatingEvent>()),
        ("events/seating_commit.json".into(), commit_schema::<crate::seating::SeatingEvent>("SeatingCommit")),
        ("events/payout_event.json".into(), schema::<crate::payouts::PayoutEvent>()),
        ("events/payout_commit.json".into(), commit_schema::<crate::payouts::PayoutEvent>("PayoutCommit")),
        ("commands/payouts_books.json".into(), schema::<crate::payouts::BooksRequest>()),
        ("replies/books.json".into(), schema::<Reply<crate::payouts::Books>>()),
        ("events/rebuy_event.json".into(), schema::<crate::rebuys::RebuyEvent>()),
        ("events/rebuy_commit.json".into(), commit_schema::<crate::rebuys::RebuyEvent>("RebuyCommit")),
        ("commands/rebuys_purchase.json".into(), schema::<crate::rebuys::Purchase>()),
        ("commands/rebuys_director.json".into(), schema::<crate::rebuys::DirectorRequest>()),
        ("replies/rebuys_recorded.json".into(), schema::<Reply<crate::rebuys::RebuysRecorded>>()),
        ("tables/instruction.json".into(), schema::<crate::table::TableInstruction>()),
        ("tables/report.json".into(), schema::<crate::table::TableReport>()),
    ];
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(String, String)> = files.into_iter().map(|(p, v)| (p, pretty(&v))).collect();
    out.push(("asyncapi.yaml".into(), asyncapi()));
    out
}

/// Every command channel: service, verb, request schema, reply schema.
fn command_channels() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    use crate::{clock, schedule};
    use subjects::service::{CLOCK, PAYOUTS, REBUYS, REGISTRATION, SCHEDULER};
    let registration = |verb| match verb {
        verbs::CREATE_TOURNAMENT => ("commands/create_tournament.json", "replies/tournament_created.json"),
        verbs::REGISTER => ("commands/register.json", "replies/registered.json"),
        verbs::UNREGISTER => ("commands/unregister.json", "replies/recorded.json"),
        verbs::REFUSE_PLAYER => ("commands/refuse_player.json", "replies/recorded.json"),
        verbs::KEEP_APART => ("commands/keep_apart.json", "replies/recorded.json"),
        verbs::ELIMINATE_ENTRY => ("commands/eliminate_entry.json", "replies/recorded.json"),
        verbs::SET_PLAYER_LIMITS => ("commands/set_player_limits.json", "replies/player_events.json"),
        verbs::START_TOURNAMENT => ("commands/start_tournament.json", "replies/recorded.json"),
        verbs::CANCEL_TOURNAMENT => ("commands/cancel_tournament.json", "replies/recorded.json"),
        other => panic!("verb {other} has no schema files: add it to command_channels"),
    };
    let clock = |verb| match verb {
        clock::verbs::SET_STRUCTURE => "commands/clock_set_structure.json",
        clock::verbs::PAUSE => "commands/clock_pause.json",
        clock::verbs::ADJUST_TIME => "commands/clock_adjust_time.json",
        clock::verbs::SKIP_TO_LEVEL => "commands/clock_skip_to_level.json",
        _ => "commands/clock_request.json",
    };
    let scheduler = |verb| match verb {
        schedule::verbs::ADD_TEMPLATE => ("commands/scheduler_add_template.json", "replies/template_added.json"),
        schedule::verbs::REMOVE_TEMPLATE => ("commands/scheduler_remove_template.json", "replies/schedule_recorded.json"),
        schedule::verbs::LIST_TEMPLATES => ("commands/scheduler_list_templates.json", "replies/templates.json"),
        other => panic!("verb {other} has no schema files: add it to command_channels"),
    };
    let mut channels: Vec<_> = verbs::ALL.iter().map(|&v| (REGISTRATION, v, registration(v).0, registration(v).1)).collect();
    channels.extend(clock::verbs::ALL.iter().map(|&v| (CLOCK, v, clock(v), "replies/clock_recorded.json")));
    channels.extend(schedule::verbs::ALL.iter().map(|&v| (SCHEDULER, v, scheduler(v).0, scheduler(v).1)));
    let rebuys = |verb| match verb {
        crate::rebuys::verbs::END_REBUYS | crate::rebuys::verbs::END_ADD_ONS => "commands/rebuys_director.json",
        _ => "commands/rebuys_purchase.json",
    };
    channels.extend(crate::rebuys::verbs::ALL.iter().map(|&v| (REBUYS, v, rebuys(v), "replies/rebuys_recorded.json")));
    channels.extend(crate::payouts::verbs::ALL.iter().map(|&v| (PAYOUTS, v, "commands/payouts_books.json", "replies/books.json")));
    channels
}

/// AsyncAPI 3.0 document (YAML) listing every channel, referencing the schema files.
pub fn asyncapi() -> String {
    let mut y = String::new();
    y.push_str("# Generated from events/ by `make schemas`; do not edit.\nasyncapi: 3.0.0\ninfo:\n  title: Floor\n  version: 0.1.0\n");
    y.push_str("  description: Poker tournament orchestration on NATS JetStream. Commands are NATS request/reply;\n");
    y.push_str(&format!("    events are commits in stream {} (one message per command).\n", subjects::EVENTS_STREAM));
    y.push_str("defaultContentType: application/json\nchannels:\n");
    for (service, verb, request, reply) in command_channels() {
        let subject = subjects::command_subject(service, verb);
        y.push_str(&format!(
            "  {service}_{verb}:\n    address: {subject}\n    messages:\n      request:\n        payload:\n          $ref: './{request}'\n      reply:\n        payload:\n          $ref: './{reply}'\n"
        ));
    }
    for (aggregate, file, what) in [
        (subjects::aggregate::TOURNAMENT, "events/tournament_commit.json", "tournament_id"),
        (subjects::aggregate::PLAYER, "events/player_commit.json", "player_aggregate_id"),
        (subjects::aggregate::CLOCK, "events/clock_commit.json", "tournament_id"),
        (subjects::aggregate::SCHEDULE, "events/schedule_commit.json", "template_id"),
        (subjects::aggregate::SEATING, "events/seating_commit.json", "tournament_id"),
        (subjects::aggregate::PAYOUTS, "events/payout_commit.json", "tournament_id"),
        (subjects::aggregate::REBUYS, "events/rebuy_commit.json", "tournament_id"),
    ] {
        y.push_str(&format!(
            "  {aggregate}_events:\n    address: 'floor.ev.{aggregate}.{{{what}}}'\n    description: Commits of one {aggregate} aggregate, in stream {}.\n    parameters:\n      {what}:\n        description: UUID of the aggregate.\n    messages:\n      commit:\n        payload:\n          $ref: './{file}'\n",
            subjects::EVENTS_STREAM
        ));
    }
    for (name, direction, file, what) in [
        ("table_instructions", "in", "tables/instruction.json", "Floor to table: seat moves, blinds, pause, deal (numbered per table)."),
        (
            "table_reports",
            "out",
            "tables/report.json",
            "Table to Floor: hands started and finished, busts, instructions applied (Nats-Msg-Id = report_id).",
        ),
    ] {
        y.push_str(&format!(
            "  {name}:\n    address: 'floor.table.{{tournament_id}}.{{table}}.{direction}'\n    description: {what}\n    parameters:\n      tournament_id:\n        description: The tournament.\n      table:\n        description: Table number.\n    messages:\n      message:\n        payload:\n          $ref: './{file}'\n"
        ));
    }
    y.push_str(&format!(
        "  lobby:\n    address: '{}'\n    description: NATS KV bucket; one lobby document (JSON) per tournament, keyed by tournament id. Also served at GET /api/tournaments and /api/tournaments/{{id}}.\n",
        subjects::LOBBY_BUCKET
    ));
    y.push_str("operations:\n");
    for (service, verb, _, _) in command_channels() {
        let name = format!("{service}_{verb}");
        y.push_str(&format!(
            "  {name}:\n    action: receive\n    channel:\n      $ref: '#/channels/{name}'\n    messages:\n      - $ref: '#/channels/{name}/messages/request'\n    reply:\n      channel:\n        $ref: '#/channels/{name}'\n      messages:\n        - $ref: '#/channels/{name}/messages/reply'\n"
        ));
    }
    for aggregate in
        [subjects::aggregate::TOURNAMENT, subjects::aggregate::PLAYER, subjects::aggregate::CLOCK, subjects::aggregate::SCHEDULE]
    {
        y.push_str(&format!("  {aggregate}_events:\n    action: send\n    channel:\n      $ref: '#/channels/{aggregate}_events'\n"));
    }
    for (name, action) in [("table_instructions", "send"), ("table_reports", "receive")] {
        y.push_str(&format!("  {name}:\n    action: {action}\n    channel:\n      $ref: '#/channels/{name}'\n"));
    }
    y
}
