//! Fuzzing every decoder a stranger can reach without a server (issue 17): command requests as
//! the endpoint decodes them, commits of every aggregate, table reports, definitions and
//! schedule templates. Nothing may panic: every input is decoded or refused with an error.
//!
//! Inputs: arbitrary bytes; JSON built from the names and constants of the type's own schema
//! (`schemas/`), so objects reach the decoders' fields with extreme values (the largest and
//! smallest numbers, floats, control characters, the nil UUID, deep nesting); and those same
//! near-valid documents with a few bytes flipped, cut or inserted. A short run is part of
//! `cargo test` (256 cases per target); `make fuzz` runs each with `PROPTEST_CASES=200000`.

use floor_events::registry;
use floor_events::{
    abort, bounties, bubble, clock, lottery, payouts, player, rebuys, record, registration, satellites, schedule, seating, shootouts,
    table, tournament,
};
use floor_runtime::endpoint::decode;
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// A decoder under fuzz: the schema file of its type, a name, a function that must return
/// without panicking, and the type it decodes (`std::any::type_name`, what the registry's
/// `Message::type_name` says, so a verb whose request type changes fails until it is fuzzed).
type Target = (&'static str, &'static str, fn(&[u8]) -> bool, fn() -> &'static str);

/// `target!(file, name, decoder, Type)`: the [`Target`] that decodes `Type` with `decoder`.
macro_rules! target {
    ($file:expr, $name:expr, $decoder:ident, $type:ty) => {
        ($file, $name, $decoder::<$type>, std::any::type_name::<$type>)
    };
}

fn request<T: DeserializeOwned>(bytes: &[u8]) -> bool {
    decode::<T>(bytes).is_ok()
}
fn commit<E: DeserializeOwned>(bytes: &[u8]) -> bool {
    record::decode_commit::<E>(bytes).is_ok()
}
fn json_of<T: DeserializeOwned>(bytes: &[u8]) -> bool {
    serde_json::from_slice::<T>(bytes).is_ok()
}

/// Every verb's request type, as `floor_runtime::endpoint::Verbs` decodes it, with the schema
/// file that describes it.
const COMMANDS: &[Target] = &[
    target!("commands/create_tournament.json", "create_tournament", request, registration::CreateTournament),
    target!("commands/register.json", "register", request, registration::Register),
    target!("commands/unregister.json", "unregister", request, registration::Unregister),
    target!("commands/refuse_player.json", "refuse_player", request, registration::RefusePlayer),
    target!("commands/keep_apart.json", "keep_apart", request, registration::KeepApart),
    target!("commands/eliminate_entry.json", "eliminate_entry", request, registration::EliminateEntry),
    target!("commands/set_player_limits.json", "set_player_limits", request, player::SetPlayerLimits),
    target!("commands/exclude_player.json", "exclude_player", request, player::ExcludePlayer),
    target!("commands/start_tournament.json", "start_tournament", request, registration::StartTournament),
    target!("commands/cancel_tournament.json", "cancel_tournament", request, registration::CancelTournament),
    target!("commands/clock_set_structure.json", "clock set_structure", request, clock::SetStructure),
    target!("commands/clock_request.json", "clock start/resume/end_break", request, clock::ClockRequest),
    target!("commands/clock_pause.json", "clock pause", request, clock::PauseClock),
    target!("commands/clock_adjust_time.json", "clock adjust_time", request, clock::AdjustTime),
    target!("commands/clock_skip_to_level.json", "clock skip_to_level", request, clock::SkipToLevel),
    target!("commands/payouts_books.json", "payouts books", request, payouts::BooksRequest),
    target!("commands/rebuys_purchase.json", "rebuy/decline/add_on", request, rebuys::Purchase),
    target!("commands/rebuys_director.json", "end_rebuys/end_add_ons", request, rebuys::DirectorRequest),
    target!("commands/scheduler_add_template.json", "add_template", request, schedule::AddTemplate),
    target!("commands/scheduler_remove_template.json", "remove_template", request, schedule::RemoveTemplate),
    target!("commands/scheduler_list_templates.json", "list_templates", request, schedule::ListTemplates),
    target!("commands/bounties_name_target.json", "bounties name_target", request, bounties::NameTarget),
    target!("commands/bounties_director.json", "bounties start_mystery_stage", request, bounties::DirectorRequest),
    target!("commands/bubble_request.json", "bubble start/stop/resume", request, bubble::BubbleRequest),
    target!("commands/bubble_release_without.json", "bubble release_without", request, bubble::ReleaseWithout),
    target!("commands/bubble_pause.json", "bubble pause", request, bubble::PauseBubble),
    target!("commands/abort_suspend.json", "abort suspend", request, abort::Suspend),
    target!("commands/abort_request.json", "abort resume", request, abort::AbortRequest),
    target!("commands/abort_cancel.json", "abort cancel", request, abort::Cancel),
    target!("commands/abort_statement.json", "abort statement", request, abort::StatementRequest),
    target!("commands/propose_deal.json", "payouts propose_deal", request, payouts::ProposeDeal),
    target!("commands/deal_answer.json", "payouts accept_deal/reject_deal", request, payouts::DealAnswer),
    target!("commands/deal_query.json", "payouts deal", request, payouts::DealQuery),
    target!("commands/register_with_ticket.json", "register_with_ticket", request, registration::RegisterWithTicket),
    target!("commands/stop_shared.json", "stop_shared", request, registration::StopShared),
    target!("commands/register_carried.json", "register_carried", request, floor_events::flights::RegisterCarried),
    target!("commands/satellites_spend_ticket.json", "satellites spend_ticket", request, satellites::SpendTicket),
    target!("commands/satellites_tickets.json", "satellites tickets", request, satellites::TicketsOf),
    target!("commands/satellites_satellite.json", "satellites satellite", request, satellites::SatelliteOf),
    target!("commands/satellites_convert_ticket.json", "satellites convert_ticket", request, satellites::ConvertTicket),
    target!("commands/satellites_expire_tickets.json", "satellites expire_tickets", request, satellites::ExpireTickets),
    target!("commands/shootouts_bracket.json", "shootouts bracket", request, shootouts::BracketOf),
    target!("commands/lottery_frequencies.json", "lottery frequencies", request, lottery::FrequenciesOf),
];

/// Commits of every aggregate, table reports, and the documents the director writes in TOML.
const STORED_AND_REPORTED: &[Target] = &[
    target!("events/tournament_commit.json", "tournament commit", commit, registration::TournamentEvent),
    target!("events/player_commit.json", "player commit", commit, player::PlayerEvent),
    target!("events/clock_commit.json", "clock commit", commit, clock::ClockEvent),
    target!("events/schedule_commit.json", "schedule commit", commit, schedule::ScheduleEvent),
    target!("events/seating_commit.json", "seating commit", commit, seating::SeatingEvent),
    target!("events/payout_commit.json", "payouts commit", commit, payouts::PayoutEvent),
    target!("events/rebuy_commit.json", "rebuys commit", commit, rebuys::RebuyEvent),
    target!("events/bounty_commit.json", "bounties commit", commit, bounties::BountyEvent),
    target!("events/bubble_commit.json", "bubble commit", commit, bubble::BubbleEvent),
    target!("events/abort_commit.json", "abort commit", commit, abort::AbortEvent),
    target!("events/satellite_commit.json", "satellite commit", commit, satellites::SatelliteEvent),
    target!("events/shootout_commit.json", "shootout commit", commit, shootouts::ShootoutEvent),
    target!("events/lottery_commit.json", "lottery commit", commit, lottery::LotteryEvent),
    target!("tables/report.json", "table report", json_of, table::TableReport),
    target!("definitions/tournament_definition.json", "tournament definition", json_of, tournament::TournamentDefinition),
    target!("definitions/schedule_template.json", "schedule template", json_of, schedule::ScheduleTemplate),
];

fn all_targets() -> impl Iterator<Item = &'static Target> {
    COMMANDS.iter().chain(STORED_AND_REPORTED)
}

/// The property names and constant strings of a schema file: what a near-valid document of
/// that type is made of.
fn vocabulary(file: &str) -> (Vec<String>, Vec<String>) {
    let path = format!("{}/../../schemas/{file}", env!("CARGO_MANIFEST_DIR"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).expect("schema");
    let (mut keys, mut words) = (BTreeSet::new(), BTreeSet::new());
    fn walk(v: &Value, keys: &mut BTreeSet<String>, words: &mut BTreeSet<String>) {
        match v {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    keys.extend(props.keys().cloned());
                }
                for k in ["const", "enum"] {
                    match map.get(k) {
                        Some(Value::String(s)) => drop(words.insert(s.clone())),
                        Some(Value::Array(a)) => words.extend(a.iter().filter_map(|s| s.as_str().map(str::to_owned))),
                        _ => {}
                    }
                }
                map.values().for_each(|v| walk(v, keys, words));
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, keys, words)),
            _ => {}
        }
    }
    walk(&schema, &mut keys, &mut words);
    (keys.into_iter().collect(), words.into_iter().collect())
}

/// Values that have broken decoders and domain code before: bounds of every integer width,
/// floats where integers belong, the nil UUID, control characters, long strings.
fn extreme_scalar(words: Vec<String>) -> impl Strategy<Value = Value> {
    let words = if words.is_empty() { vec!["x".to_owned()] } else { words };
    prop_oneof![
        prop::sample::select(words).prop_map(Value::String),
        prop::sample::select(vec![
            json!(0),
            json!(-1),
            json!(1),
            json!(u8::MAX),
            json!(u16::MAX as u64 + 1),
            json!(u32::MAX),
            json!(i64::MAX),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(1.5),
            json!(-0.0),
            json!(1e300),
            json!(null),
            json!(true),
            json!(""),
            json!("00000000-0000-0000-0000-000000000000"),
            json!("0195c0de-0000-7000-8000-000000000001"),
            json!("2030-01-01T00:00:00Z"),
            json!("-262144-01-01T00:00:00Z"),
            json!("EUR"),
            json!("XYZ"),
            json!("a\u{0}b\u{1b}[31m\n"),
            json!("é".repeat(300)),
            json!({}),
            json!([]),
        ]),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        ".{0,12}".prop_map(Value::String),
    ]
}

/// JSON objects over a schema's vocabulary, nested a few levels.
fn near_valid(keys: Vec<String>, words: Vec<String>) -> impl Strategy<Value = Value> {
    let leaf = extreme_scalar(words);
    let keys = if keys.is_empty() { vec!["type".to_owned()] } else { keys };
    leaf.prop_recursive(3, 48, 8, move |inner| {
        prop_oneof![
            prop::collection::btree_map(prop::sample::select(keys.clone()), inner.clone(), 0..10)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            prop::collection::vec(inner, 0..4).prop_map(Value::Array),
        ]
    })
}

/// A document for `file`'s type: a commit is an array of versioned records.
fn document(file: &str) -> impl Strategy<Value = Vec<u8>> {
    let (keys, words) = vocabulary(file);
    let is_commit = file.ends_with("_commit.json");
    (near_valid(keys, words), any::<bool>()).prop_map(move |(value, versioned)| {
        let value = match (is_commit, value) {
            (true, Value::Object(mut record)) => {
                if versioned {
                    record.insert("v".into(), json!(1));
                }
                json!([record])
            }
            (_, value) => value,
        };
        serde_json::to_vec(&value).expect("json")
    })
}

/// Flips, cuts and inserts a few bytes.
fn mutated(bytes: Vec<u8>, edits: Vec<(usize, u8, u8)>) -> Vec<u8> {
    let mut bytes = bytes;
    for (at, op, byte) in edits {
        if bytes.is_empty() {
            bytes.push(byte);
            continue;
        }
        let at = at % bytes.len();
        match op % 4 {
            0 => bytes[at] = byte,
            1 => drop(bytes.remove(at)),
            2 => bytes.insert(at, byte),
            _ => bytes.truncate(at),
        }
    }
    bytes
}

#[test]
fn every_verb_of_the_registry_is_fuzzed() {
    let verbs: usize = registry::services().iter().map(|s| s.verbs.len()).sum();
    let files: BTreeSet<&str> = registry::services().iter().flat_map(|s| s.verbs.iter().map(|v| v.request.file)).collect();
    let fuzzed: BTreeSet<&str> = COMMANDS.iter().map(|(file, _, _, _)| *file).collect();
    let missing: Vec<&&str> = files.difference(&fuzzed).collect();
    assert!(missing.is_empty(), "request types of {verbs} verbs not fuzzed: {missing:?}");
}

#[test]
fn the_vocabularies_are_not_empty() {
    for (file, name, _, _) in all_targets() {
        let (keys, _) = vocabulary(file);
        assert!(!keys.is_empty(), "{name}: no property names in {file}");
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_a_decoder(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        for (_, _, decoder, _) in all_targets() {
            decoder(&bytes);
        }
    }

    #[test]
    fn arbitrary_json_text_never_panics_a_decoder(text in r#"[\[\]{}",:0-9a-z_ \-.eE\\]{0,200}"#) {
        for (_, _, decoder, _) in all_targets() {
            decoder(text.as_bytes());
        }
    }
}

/// The decoder fuzzed for `file` (its schema): targets are named by what they fuzz, never by
/// position (issue 35: inserting three commit types once shifted three targets onto the wrong
/// decoders, and table reports, definitions and schedule templates lost their deep fuzzing).
fn target(file: &str) -> &'static Target {
    all_targets().find(|(f, _, _, _)| *f == file).unwrap_or_else(|| panic!("no decoder is fuzzed for {file}"))
}

macro_rules! near_valid_fuzz {
    ($($name:ident: $file:expr;)*) => {
        /// The schema files that have a near-valid target below.
        const NEAR_VALID: &[&str] = &[$($file),*];
        $(
            proptest! {
                #[test]
                fn $name(
                    doc in document($file),
                    edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..4),
                ) {
                    let (_, _, decoder, _) = target($file);
                    decoder(&doc);
                    decoder(&mutated(doc, edits));
                }
            }
        )*
    };
}

near_valid_fuzz! {
    create_tournament_requests_never_panic: "commands/create_tournament.json";
    register_requests_never_panic: "commands/register.json";
    unregister_requests_never_panic: "commands/unregister.json";
    refuse_player_requests_never_panic: "commands/refuse_player.json";
    keep_apart_requests_never_panic: "commands/keep_apart.json";
    eliminate_entry_requests_never_panic: "commands/eliminate_entry.json";
    set_player_limits_requests_never_panic: "commands/set_player_limits.json";
    exclude_player_requests_never_panic: "commands/exclude_player.json";
    start_tournament_requests_never_panic: "commands/start_tournament.json";
    cancel_tournament_requests_never_panic: "commands/cancel_tournament.json";
    clock_set_structure_requests_never_panic: "commands/clock_set_structure.json";
    clock_requests_never_panic: "commands/clock_request.json";
    clock_pause_requests_never_panic: "commands/clock_pause.json";
    clock_adjust_time_requests_never_panic: "commands/clock_adjust_time.json";
    clock_skip_to_level_requests_never_panic: "commands/clock_skip_to_level.json";
    payouts_books_requests_never_panic: "commands/payouts_books.json";
    rebuys_purchase_requests_never_panic: "commands/rebuys_purchase.json";
    rebuys_director_requests_never_panic: "commands/rebuys_director.json";
    add_template_requests_never_panic: "commands/scheduler_add_template.json";
    remove_template_requests_never_panic: "commands/scheduler_remove_template.json";
    list_templates_requests_never_panic: "commands/scheduler_list_templates.json";
    bounties_name_target_requests_never_panic: "commands/bounties_name_target.json";
    bounties_director_requests_never_panic: "commands/bounties_director.json";
    bubble_requests_never_panic: "commands/bubble_request.json";
    bubble_release_without_requests_never_panic: "commands/bubble_release_without.json";
    bubble_pause_requests_never_panic: "commands/bubble_pause.json";
    abort_suspend_requests_never_panic: "commands/abort_suspend.json";
    abort_requests_never_panic: "commands/abort_request.json";
    abort_cancel_requests_never_panic: "commands/abort_cancel.json";
    abort_statement_requests_never_panic: "commands/abort_statement.json";
    propose_deal_requests_never_panic: "commands/propose_deal.json";
    deal_answer_requests_never_panic: "commands/deal_answer.json";
    deal_query_requests_never_panic: "commands/deal_query.json";
    register_with_ticket_requests_never_panic: "commands/register_with_ticket.json";
    stop_shared_requests_never_panic: "commands/stop_shared.json";
    register_carried_requests_never_panic: "commands/register_carried.json";
    satellites_spend_ticket_requests_never_panic: "commands/satellites_spend_ticket.json";
    satellites_tickets_requests_never_panic: "commands/satellites_tickets.json";
    satellites_satellite_requests_never_panic: "commands/satellites_satellite.json";
    satellites_convert_ticket_requests_never_panic: "commands/satellites_convert_ticket.json";
    satellites_expire_tickets_requests_never_panic: "commands/satellites_expire_tickets.json";
    shootouts_bracket_requests_never_panic: "commands/shootouts_bracket.json";
    lottery_frequencies_requests_never_panic: "commands/lottery_frequencies.json";
    tournament_commits_never_panic: "events/tournament_commit.json";
    player_commits_never_panic: "events/player_commit.json";
    clock_commits_never_panic: "events/clock_commit.json";
    schedule_commits_never_panic: "events/schedule_commit.json";
    seating_commits_never_panic: "events/seating_commit.json";
    payouts_commits_never_panic: "events/payout_commit.json";
    rebuys_commits_never_panic: "events/rebuy_commit.json";
    bounties_commits_never_panic: "events/bounty_commit.json";
    bubble_commits_never_panic: "events/bubble_commit.json";
    abort_commits_never_panic: "events/abort_commit.json";
    satellite_commits_never_panic: "events/satellite_commit.json";
    shootout_commits_never_panic: "events/shootout_commit.json";
    lottery_commits_never_panic: "events/lottery_commit.json";
    table_reports_never_panic: "tables/report.json";
    tournament_definitions_never_panic: "definitions/tournament_definition.json";
    schedule_templates_never_panic: "definitions/schedule_template.json";
}

/// Issue 35: every decoder has a near-valid target of its own, named by its schema, and every
/// target fuzzes a decoder that exists.
#[test]
fn every_decoder_has_a_near_valid_target_named_by_what_it_fuzzes() {
    let decoders: Vec<&str> = all_targets().map(|(file, _, _, _)| *file).collect();
    let unique: BTreeSet<&str> = decoders.iter().copied().collect();
    assert_eq!(unique.len(), decoders.len(), "one decoder per schema file: {decoders:?}");
    let near: BTreeSet<&str> = NEAR_VALID.iter().copied().collect();
    assert_eq!(near.len(), NEAR_VALID.len(), "a file fuzzed twice");
    let without: Vec<&&str> = unique.difference(&near).collect();
    let unknown: Vec<&&str> = near.difference(&unique).collect();
    assert!(without.is_empty(), "decoders without a near-valid target: {without:?}");
    assert!(unknown.is_empty(), "near-valid targets of no decoder: {unknown:?}");
}

/// Issue 35: every aggregate the registry says a service writes has its commits fuzzed.
#[test]
fn every_stored_event_type_of_the_registry_is_fuzzed() {
    let stored: BTreeSet<&str> = registry::services().iter().flat_map(|s| s.writes.iter().map(|w| w.commit.file)).collect();
    let fuzzed: BTreeSet<&str> = STORED_AND_REPORTED.iter().map(|(file, _, _, _)| *file).collect();
    let missing: Vec<&&str> = stored.difference(&fuzzed).collect();
    assert!(missing.is_empty(), "commits of these aggregates are not fuzzed: {missing:?}");
}

/// Issue 35: each target decodes the very type the registry gives its schema file (a verb whose
/// request type changes, or an aggregate whose event type does, is not fuzzed until its target
/// follows), and no target fuzzes a request or commit file the registry no longer has.
#[test]
fn every_target_decodes_the_type_the_registry_names_for_its_file() {
    let mut registered: std::collections::BTreeMap<&str, &str> = std::collections::BTreeMap::new();
    let messages = registry::services()
        .into_iter()
        .flat_map(|s| s.verbs.iter().map(|v| v.request).chain(s.writes.iter().map(|w| w.commit)).collect::<Vec<_>>());
    for message in messages {
        let earlier = registered.insert(message.file, message.type_name);
        assert!(
            earlier.is_none_or(|t| t == message.type_name),
            "{} is the schema of {earlier:?} and of {}",
            message.file,
            message.type_name
        );
    }
    for (file, name, _, type_name) in all_targets() {
        match registered.get(file) {
            Some(registered) => {
                assert_eq!(type_name(), *registered, "{name}: the target of {file} decodes another type than the registry's")
            }
            None => assert!(
                !file.starts_with("commands/") && !file.starts_with("events/"),
                "{name}: {file} is no request or commit in the registry"
            ),
        }
    }
}
