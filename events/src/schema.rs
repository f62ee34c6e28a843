//! JSON Schema for every message, and the AsyncAPI document, generated from the Rust types.
//!
//! `schemas/` holds the output, checked in so table servers and clients in any language build
//! against it; `events/tests/schemas.rs` fails when the checked-in files differ from what these
//! types generate (`make schemas` rewrites them).

use crate::reply::ErrorBody;
use crate::tournament::TournamentDefinition;
use crate::{record, registry, subjects};
use schemars::{schema_for, JsonSchema, Schema};
use serde_json::{json, Value};

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("schema serializes");
    text.push('\n');
    text
}

pub(crate) fn schema<T: JsonSchema>() -> Value {
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

/// A commit as stored: the array of records `{"v": 1, "type": …, …}` one command produced. Its
/// title is the event type's with `Commit` for `Event` (`TournamentEvent` → `TournamentCommit`).
pub(crate) fn commit_schema<E: JsonSchema>() -> Value {
    let title = E::schema_name().replace("Event", "Commit");
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

/// Every generated file: path under `schemas/` and content. Commands, replies and events come
/// from the registry ([`crate::registry`]); a file several verbs share is written once.
pub fn files() -> Vec<(String, String)> {
    let mut files: Vec<(String, Value)> = vec![
        ("definitions/tournament_definition.json".into(), schema::<TournamentDefinition>()),
        ("definitions/structure.json".into(), schema::<crate::clock::Structure>()),
        ("definitions/schedule_template.json".into(), schema::<crate::schedule::ScheduleTemplate>()),
        ("replies/error.json".into(), schema::<ErrorBody>()),
        ("tables/instruction.json".into(), schema::<crate::table::TableInstruction>()),
        ("tables/report.json".into(), schema::<crate::table::TableReport>()),
        ("tables/rejection.json".into(), schema::<crate::table::TableRejection>()),
    ];
    for service in registry::services() {
        let messages = service.verbs.iter().flat_map(|v| [v.request, v.reply]);
        let aggregates = service.writes.iter().flat_map(|a| [a.event, a.commit]);
        for message in messages.chain(aggregates) {
            if !files.iter().any(|(path, _)| path == message.file) {
                files.push((message.file.into(), (message.schema)()));
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(String, String)> = files.into_iter().map(|(p, v)| (p, pretty(&v))).collect();
    out.push(("asyncapi.yaml".into(), asyncapi()));
    out
}

/// Every command channel: service, verb, request schema, reply schema.
fn command_channels() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    registry::services()
        .iter()
        .flat_map(|s| s.verbs.iter().map(|v| (s.name, v.name, v.request.file, v.reply.file)).collect::<Vec<_>>())
        .collect()
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
    let aggregates: Vec<_> = registry::services().into_iter().flat_map(|s| s.writes).collect();
    for a in &aggregates {
        let (aggregate, file, what) = (a.name, a.commit.file, a.id);
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
        (
            "table_rejections",
            "rejected",
            "tables/rejection.json",
            "Floor to table: each report from this table that Floor rejected, with its code.",
        ),
    ] {
        y.push_str(&format!(
            "  {name}:\n    address: 'floor.table.{{tournament_id}}.{{table}}.{direction}'\n    description: '{what}'\n    parameters:\n      tournament_id:\n        description: The tournament.\n      table:\n        description: Table number.\n    messages:\n      message:\n        payload:\n          $ref: './{file}'\n"
        ));
    }
    y.push_str(&format!(
        "  lobby:\n    address: '{}'\n    description: NATS KV bucket; one lobby document (JSON) per tournament, keyed by tournament id. Also served at GET /api/tournaments (paged) and /api/tournaments/{{id}}, and at every change as Server-Sent Events at GET /api/tournaments/{{id}}/events. The blind structure is not in the document - it is in KV bucket floor-lobby-structures under the same key and at GET /api/tournaments/{{id}}/structure. Who sits where is in KV bucket floor-lobby-tables - key <id> holds a summary (open tables, seated, waiting, out, recent moves and closed tables with reasons), <id>.table.<n> one open table (seat, entry, player, chips), <id>.roster.<k> entries k*1000 to k*1000+999 (player, chips joined with, out) - served at GET /api/tournaments/{{id}}/tables and /api/tournaments/{{id}}/players?name=.\n",
        subjects::LOBBY_BUCKET
    ));
    y.push_str("operations:\n");
    for (service, verb, _, _) in command_channels() {
        let name = format!("{service}_{verb}");
        y.push_str(&format!(
            "  {name}:\n    action: receive\n    channel:\n      $ref: '#/channels/{name}'\n    messages:\n      - $ref: '#/channels/{name}/messages/request'\n    reply:\n      channel:\n        $ref: '#/channels/{name}'\n      messages:\n        - $ref: '#/channels/{name}/messages/reply'\n"
        ));
    }
    for aggregate in aggregates.iter().map(|a| a.name) {
        y.push_str(&format!("  {aggregate}_events:\n    action: send\n    channel:\n      $ref: '#/channels/{aggregate}_events'\n"));
    }
    for (name, action) in [("table_instructions", "send"), ("table_reports", "receive"), ("table_rejections", "send")] {
        y.push_str(&format!("  {name}:\n    action: {action}\n    channel:\n      $ref: '#/channels/{name}'\n"));
    }
    y
}
