//! One registry of Floor's services: each one's name, what it does, its verbs with their request
//! and reply types, the aggregates whose commits it writes, and what it reads.
//!
//! Everything that lists services iterates this instead of keeping its own list: the schema files
//! and `asyncapi.yaml` ([`crate::schema`]), the runtime's endpoint (which refuses to serve a
//! service whose handlers differ from its verbs here), `floor run --only` and the `floor`
//! binary's service table (a test fails when a service here cannot be started).
//!
//! What is still listed by hand elsewhere fails a test when it disagrees with this (issue 35;
//! `docs/adding-a-service.md` has the table): `Commit::decode`'s arms and the `Events` variants
//! ([`crate::commit`]'s tests), the fuzz targets (`services/runtime/tests/fuzz.rs`, by schema
//! file and Rust type), and each service's `reads`, against the filters its readers announce in
//! KV `floor-readers` with every service running (`tests/e2e/registry.rs`, which also checks
//! [`READERS`]).

use crate::contract::Verb;
use crate::schema::{commit_schema, schema};
use crate::{
    abort, bounties, bubble, clock, lottery, payouts, player, rebuys, registration, satellites, schedule, seating, shootouts, subjects,
};
use schemars::JsonSchema;
use serde_json::Value;

/// A message type and the file under `schemas/` that holds its JSON Schema.
#[derive(Debug, Clone, Copy)]
pub struct Message {
    /// Path under `schemas/`, e.g. `commands/register.json`.
    pub file: &'static str,
    /// Generates the schema.
    pub schema: fn() -> Value,
    /// The Rust type (`std::any::type_name`; for a commit, its event type's): what a test that
    /// must cover every message type compares its own list with.
    pub type_name: &'static str,
}

impl Message {
    fn of<T>(file: &'static str, schema: fn() -> Value) -> Self {
        Self { file, schema, type_name: std::any::type_name::<T>() }
    }
}

/// One verb of a service, untyped: for documents and checks.
#[derive(Debug, Clone, Copy)]
pub struct VerbInfo {
    /// The verb's name: the last part of `floor.cmd.<service>.<verb>`.
    pub name: &'static str,
    /// The request.
    pub request: Message,
    /// The reply (`{"ok": …}` or `{"error": …}`).
    pub reply: Message,
}

impl VerbInfo {
    /// Describes `verb`, its request schema in `request` and its reply schema in `reply`.
    pub fn of<Req: JsonSchema, Rep: JsonSchema>(verb: Verb<Req, Rep>, request: &'static str, reply: &'static str) -> Self {
        Self {
            name: verb.name(),
            request: Message::of::<Req>(request, schema::<Req>),
            reply: Message::of::<crate::Reply<Rep>>(reply, schema::<crate::Reply<Rep>>),
        }
    }
}

/// An aggregate type: its commits live on `floor.ev.<name>.<id>`.
#[derive(Debug, Clone, Copy)]
pub struct AggregateInfo {
    /// The aggregate's name (forever: it is in every subject).
    pub name: &'static str,
    /// What its id is, for documents (`tournament_id`).
    pub id: &'static str,
    /// The schema of one event.
    pub event: Message,
    /// The schema of one commit (the array of records one command stored).
    pub commit: Message,
}

impl AggregateInfo {
    fn of<E: JsonSchema>(name: &'static str, id: &'static str, event: &'static str, commit: &'static str) -> Self {
        Self { name, id, event: Message::of::<E>(event, schema::<E>), commit: Message::of::<E>(commit, commit_schema::<E>) }
    }
}

/// A service.
#[derive(Debug, Clone)]
pub struct ServiceInfo {
    /// Its name: `floor.cmd.<name>.*`, the NATS micro-service `floor-<name>`, `floor run --only <name>`.
    pub name: &'static str,
    /// One line on what it does.
    pub description: &'static str,
    /// The verbs it serves.
    pub verbs: Vec<VerbInfo>,
    /// The aggregates whose commits it writes.
    pub writes: Vec<AggregateInfo>,
    /// The aggregates whose commits its readers read (and [`TABLE_REPORTS`], for seating): what
    /// its projections, policies and follows filter on, its own aggregate included when one of
    /// them reads it (the host's loads of its own aggregate do not count). `tests/e2e/registry.rs`
    /// fails when it differs from what the service's readers announce in KV `floor-readers`.
    pub reads: Vec<&'static str>,
}

impl ServiceInfo {
    /// The names of its verbs.
    pub fn verb_names(&self) -> Vec<&'static str> {
        self.verbs.iter().map(|v| v.name).collect()
    }
}

/// What seating reads besides commits: the table servers' reports, `floor.table.*.*.out` on
/// [`subjects::TABLES_STREAM`].
pub const TABLE_REPORTS: &str = "table reports";

/// Every service, in the order `floor run` starts them.
pub fn services() -> Vec<ServiceInfo> {
    use subjects::{aggregate as a, service as s};
    vec![
        ServiceInfo {
            name: s::LOBBY,
            description: "Floor lobby: one document per tournament, in NATS KV and over HTTP",
            verbs: vec![],
            writes: vec![],
            reads: vec![
                a::TOURNAMENT,
                a::CLOCK,
                a::SEATING,
                a::PAYOUTS,
                a::REBUYS,
                a::BOUNTIES,
                a::BUBBLE,
                a::ABORT,
                a::SATELLITE,
                a::SHOOTOUT,
                a::LOTTERY,
            ],
        },
        ServiceInfo {
            name: s::REGISTRATION,
            description: "Floor registration: tournaments and entries",
            verbs: {
                use registration::verbs::*;
                vec![
                    VerbInfo::of(CREATE_TOURNAMENT, "commands/create_tournament.json", "replies/tournament_created.json"),
                    VerbInfo::of(REGISTER, "commands/register.json", "replies/registered.json"),
                    VerbInfo::of(UNREGISTER, "commands/unregister.json", "replies/recorded.json"),
                    VerbInfo::of(REFUSE_PLAYER, "commands/refuse_player.json", "replies/recorded.json"),
                    VerbInfo::of(KEEP_APART, "commands/keep_apart.json", "replies/recorded.json"),
                    VerbInfo::of(ELIMINATE_ENTRY, "commands/eliminate_entry.json", "replies/recorded.json"),
                    VerbInfo::of(SET_PLAYER_LIMITS, "commands/set_player_limits.json", "replies/player_events.json"),
                    VerbInfo::of(EXCLUDE_PLAYER, "commands/exclude_player.json", "replies/player_events.json"),
                    VerbInfo::of(START_TOURNAMENT, "commands/start_tournament.json", "replies/recorded.json"),
                    VerbInfo::of(CANCEL_TOURNAMENT, "commands/cancel_tournament.json", "replies/recorded.json"),
                    VerbInfo::of(REGISTER_WITH_TICKET, "commands/register_with_ticket.json", "replies/registered.json"),
                    VerbInfo::of(STOP_SHARED, "commands/stop_shared.json", "replies/recorded.json"),
                    VerbInfo::of(REGISTER_CARRIED, "commands/register_carried.json", "replies/recorded.json"),
                ]
            },
            writes: vec![
                AggregateInfo::of::<registration::TournamentEvent>(
                    a::TOURNAMENT,
                    "tournament_id",
                    "events/tournament_event.json",
                    "events/tournament_commit.json",
                ),
                AggregateInfo::of::<player::PlayerEvent>(
                    a::PLAYER,
                    "player_aggregate_id",
                    "events/player_event.json",
                    "events/player_commit.json",
                ),
            ],
            reads: vec![a::PLAYER, a::CLOCK, a::ABORT],
        },
        ServiceInfo {
            name: s::CLOCK,
            description: "Floor clock: blind levels and breaks",
            verbs: {
                use clock::verbs::*;
                let recorded = "replies/clock_recorded.json";
                vec![
                    VerbInfo::of(SET_STRUCTURE, "commands/clock_set_structure.json", recorded),
                    VerbInfo::of(START, "commands/clock_request.json", recorded),
                    VerbInfo::of(PAUSE, "commands/clock_pause.json", recorded),
                    VerbInfo::of(RESUME, "commands/clock_request.json", recorded),
                    VerbInfo::of(ADJUST_TIME, "commands/clock_adjust_time.json", recorded),
                    VerbInfo::of(SKIP_TO_LEVEL, "commands/clock_skip_to_level.json", recorded),
                    VerbInfo::of(END_BREAK, "commands/clock_request.json", recorded),
                ]
            },
            writes: vec![AggregateInfo::of::<clock::ClockEvent>(
                a::CLOCK,
                "tournament_id",
                "events/clock_event.json",
                "events/clock_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::CLOCK, a::ABORT],
        },
        ServiceInfo {
            name: s::SEATING,
            description: "Floor seating: draws, balancing, breaking and the table-server protocol",
            verbs: vec![],
            writes: vec![AggregateInfo::of::<seating::SeatingEvent>(
                a::SEATING,
                "tournament_id",
                "events/seating_event.json",
                "events/seating_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::CLOCK, a::REBUYS, a::BUBBLE, a::ABORT, a::SEATING, a::SHOOTOUT, TABLE_REPORTS],
        },
        ServiceInfo {
            name: s::PAYOUTS,
            description: "Floor payouts: payout tables, places, prizes, deals and the books",
            verbs: vec![
                VerbInfo::of(payouts::verbs::BOOKS, "commands/payouts_books.json", "replies/books.json"),
                VerbInfo::of(payouts::verbs::PROPOSE_DEAL, "commands/propose_deal.json", "replies/deal_recorded.json"),
                VerbInfo::of(payouts::verbs::ACCEPT_DEAL, "commands/deal_answer.json", "replies/deal_recorded.json"),
                VerbInfo::of(payouts::verbs::REJECT_DEAL, "commands/deal_answer.json", "replies/deal_recorded.json"),
                VerbInfo::of(payouts::verbs::DEAL, "commands/deal_query.json", "replies/deal_status.json"),
            ],
            writes: vec![AggregateInfo::of::<payouts::PayoutEvent>(
                a::PAYOUTS,
                "tournament_id",
                "events/payout_event.json",
                "events/payout_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::CLOCK, a::SEATING, a::REBUYS, a::PAYOUTS, a::BOUNTIES, a::BUBBLE, a::ABORT, a::LOTTERY],
        },
        ServiceInfo {
            name: s::REBUYS,
            description: "Floor rebuys: rebuys and add-ons",
            verbs: {
                use rebuys::verbs::*;
                let (purchase, director, recorded) =
                    ("commands/rebuys_purchase.json", "commands/rebuys_director.json", "replies/rebuys_recorded.json");
                vec![
                    VerbInfo::of(REBUY, purchase, recorded),
                    VerbInfo::of(DECLINE, purchase, recorded),
                    VerbInfo::of(ADD_ON, purchase, recorded),
                    VerbInfo::of(END_REBUYS, director, recorded),
                    VerbInfo::of(END_ADD_ONS, director, recorded),
                ]
            },
            writes: vec![AggregateInfo::of::<rebuys::RebuyEvent>(
                a::REBUYS,
                "tournament_id",
                "events/rebuy_event.json",
                "events/rebuy_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::SEATING, a::CLOCK, a::REBUYS, a::ABORT],
        },
        ServiceInfo {
            name: s::BOUNTIES,
            description: "Floor bounties: knockout, progressive knockout, mystery and target bounties",
            verbs: {
                use bounties::verbs::*;
                let recorded = "replies/bounties_recorded.json";
                vec![
                    VerbInfo::of(NAME_TARGET, "commands/bounties_name_target.json", recorded),
                    VerbInfo::of(START_MYSTERY_STAGE, "commands/bounties_director.json", recorded),
                ]
            },
            writes: vec![AggregateInfo::of::<bounties::BountyEvent>(
                a::BOUNTIES,
                "tournament_id",
                "events/bounty_event.json",
                "events/bounty_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::REBUYS, a::SEATING, a::CLOCK, a::BOUNTIES, a::BUBBLE],
        },
        ServiceInfo {
            name: s::BUBBLE,
            description: "Floor bubble: hand-for-hand near the money, and simultaneous eliminations",
            verbs: {
                use bubble::verbs::*;
                let (request, recorded) = ("commands/bubble_request.json", "replies/bubble_recorded.json");
                vec![
                    VerbInfo::of(START, request, recorded),
                    VerbInfo::of(STOP, request, recorded),
                    VerbInfo::of(RELEASE_WITHOUT, "commands/bubble_release_without.json", recorded),
                    VerbInfo::of(PAUSE, "commands/bubble_pause.json", recorded),
                    VerbInfo::of(RESUME, request, recorded),
                ]
            },
            writes: vec![AggregateInfo::of::<bubble::BubbleEvent>(
                a::BUBBLE,
                "tournament_id",
                "events/bubble_event.json",
                "events/bubble_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::SEATING, a::PAYOUTS, a::BUBBLE, a::ABORT],
        },
        ServiceInfo {
            name: s::ABORT,
            description: "Floor abort: suspend, resume and cancel a tournament in play, with every player's statement",
            verbs: {
                use abort::verbs::*;
                let recorded = "replies/abort_recorded.json";
                vec![
                    VerbInfo::of(SUSPEND, "commands/abort_suspend.json", recorded),
                    VerbInfo::of(RESUME, "commands/abort_request.json", recorded),
                    VerbInfo::of(CANCEL, "commands/abort_cancel.json", recorded),
                    VerbInfo::of(STATEMENT, "commands/abort_statement.json", "replies/abort_statements.json"),
                ]
            },
            writes: vec![AggregateInfo::of::<abort::AbortEvent>(
                a::ABORT,
                "tournament_id",
                "events/abort_event.json",
                "events/abort_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::SEATING, a::REBUYS, a::PAYOUTS, a::BOUNTIES, a::BUBBLE, a::ABORT, a::CLOCK],
        },
        ServiceInfo {
            name: s::SATELLITES,
            description: "Floor satellites: seats and tickets won in satellites, spent in their targets",
            verbs: {
                use satellites::verbs::*;
                vec![
                    VerbInfo::of(SPEND_TICKET, "commands/satellites_spend_ticket.json", "replies/satellites_ticket.json"),
                    VerbInfo::of(TICKETS, "commands/satellites_tickets.json", "replies/satellites_tickets.json"),
                    VerbInfo::of(SATELLITE, "commands/satellites_satellite.json", "replies/satellites_satellite.json"),
                    VerbInfo::of(CONVERT_TICKET, "commands/satellites_convert_ticket.json", "replies/satellites_ticket.json"),
                    VerbInfo::of(EXPIRE_TICKETS, "commands/satellites_expire_tickets.json", "replies/satellites_tickets.json"),
                ]
            },
            writes: vec![AggregateInfo::of::<satellites::SatelliteEvent>(
                a::SATELLITE,
                "tournament_id",
                "events/satellite_event.json",
                "events/satellite_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::PAYOUTS, a::SATELLITE, a::SEATING],
        },
        ServiceInfo {
            name: s::SHOOTOUTS,
            description: "Floor shootouts: rounds played table by table, winners drawn to the next round",
            verbs: {
                use shootouts::verbs::*;
                vec![VerbInfo::of(BRACKET, "commands/shootouts_bracket.json", "replies/shootouts_bracket.json")]
            },
            writes: vec![AggregateInfo::of::<shootouts::ShootoutEvent>(
                a::SHOOTOUT,
                "tournament_id",
                "events/shootout_event.json",
                "events/shootout_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::SEATING, a::SHOOTOUT],
        },
        ServiceInfo {
            name: s::LOTTERY,
            description: "Floor lottery sit & gos: the prize pool drawn from a published table with an audited seed",
            verbs: {
                use lottery::verbs::*;
                vec![VerbInfo::of(FREQUENCIES, "commands/lottery_frequencies.json", "replies/lottery_frequencies.json")]
            },
            writes: vec![AggregateInfo::of::<lottery::LotteryEvent>(
                a::LOTTERY,
                "tournament_id",
                "events/lottery_event.json",
                "events/lottery_commit.json",
            )],
            reads: vec![a::TOURNAMENT, a::LOTTERY],
        },
        ServiceInfo {
            name: s::SCHEDULER,
            description: "Floor scheduler: recurring tournaments and scheduled starts",
            verbs: {
                use schedule::verbs::*;
                vec![
                    VerbInfo::of(ADD_TEMPLATE, "commands/scheduler_add_template.json", "replies/template_added.json"),
                    VerbInfo::of(REMOVE_TEMPLATE, "commands/scheduler_remove_template.json", "replies/schedule_recorded.json"),
                    VerbInfo::of(LIST_TEMPLATES, "commands/scheduler_list_templates.json", "replies/templates.json"),
                ]
            },
            writes: vec![AggregateInfo::of::<schedule::ScheduleEvent>(
                a::SCHEDULE,
                "template_id",
                "events/schedule_event.json",
                "events/schedule_commit.json",
            )],
            reads: vec![a::SCHEDULE, a::TOURNAMENT],
        },
    ]
}

/// A reader that keeps a checkpoint (KV `floor-checkpoints`, key = its name): the service it
/// belongs to, so `floor status` and the lobby can name the service a tournament waits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReaderInfo {
    /// The reader's name: its checkpoint's key (and what it reads is recorded under it in KV
    /// `floor-readers`).
    pub name: &'static str,
    /// The service whose process runs it.
    pub service: &'static str,
}

/// Every checkpointed reader Floor runs. A reader missing here is still watched (anything that
/// stores a checkpoint is); its service is then read from its name, `<service>-…`
/// ([`service_of_reader`]).
pub const READERS: &[ReaderInfo] = {
    use subjects::service as s;
    &[
        ReaderInfo { name: "lobby", service: s::LOBBY },
        ReaderInfo { name: "clock-policy", service: s::CLOCK },
        ReaderInfo { name: "seating-policy", service: s::SEATING },
        ReaderInfo { name: "seating-reports", service: s::SEATING },
        ReaderInfo { name: "seating-outbox", service: s::SEATING },
        ReaderInfo { name: "seat-map", service: s::LOBBY },
        // Flights (issue 36): the satellites service's second runner.
        ReaderInfo { name: "flights-policy", service: s::SATELLITES },
    ]
};

/// The service that runs reader `reader`: [`READERS`]' entry, else the service its name starts
/// with (`payouts-policy` → `payouts`), else the reader's own name.
pub fn service_of_reader(reader: &str) -> String {
    if let Some(known) = READERS.iter().find(|r| r.name == reader) {
        return known.service.to_owned();
    }
    let prefix = reader.split(['-', '_', '.']).next().unwrap_or(reader);
    match names().into_iter().find(|name| *name == prefix) {
        Some(service) => service.to_owned(),
        None => reader.to_owned(),
    }
}

/// The service called `name`.
pub fn service(name: &str) -> Option<ServiceInfo> {
    services().into_iter().find(|s| s.name == name)
}

/// Every service's name, in start order.
pub fn names() -> Vec<&'static str> {
    services().iter().map(|s| s.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_aggregate_is_written_by_exactly_one_service() {
        use subjects::aggregate::*;
        let written: Vec<&str> = services().iter().flat_map(|s| s.writes.iter().map(|a| a.name)).collect();
        let unique: HashSet<&str> = written.iter().copied().collect();
        assert_eq!(unique.len(), written.len(), "an aggregate is written by two services: {written:?}");
        for aggregate in
            [TOURNAMENT, PLAYER, CLOCK, SCHEDULE, SEATING, PAYOUTS, REBUYS, BOUNTIES, BUBBLE, ABORT, SATELLITE, SHOOTOUT, LOTTERY]
        {
            assert!(unique.contains(aggregate), "{aggregate} has no writer in the registry");
        }
    }

    #[test]
    fn every_reader_belongs_to_a_registered_service_and_unknown_readers_go_by_their_prefix() {
        for reader in READERS {
            assert!(service(reader.service).is_some(), "{} runs in {}, which is not a service", reader.name, reader.service);
            assert_eq!(service_of_reader(reader.name), reader.service);
        }
        let names: HashSet<&str> = READERS.iter().map(|r| r.name).collect();
        assert_eq!(names.len(), READERS.len(), "a reader is listed twice");
        assert_eq!(service_of_reader("payouts-policy"), "payouts", "a reader not listed goes by its prefix");
        assert_eq!(service_of_reader("mystery"), "mystery", "and by its own name when no service has that prefix");
    }

    #[test]
    fn every_service_reads_aggregates_that_exist_each_once() {
        let written: HashSet<&str> = services().iter().flat_map(|s| s.writes.iter().map(|a| a.name)).collect();
        for service in services() {
            let reads: HashSet<&str> = service.reads.iter().copied().collect();
            assert_eq!(reads.len(), service.reads.len(), "{} lists a read twice: {:?}", service.name, service.reads);
            for read in &service.reads {
                assert!(written.contains(read) || *read == TABLE_REPORTS, "{} reads {read:?}, which no service writes", service.name);
            }
        }
    }

    #[test]
    fn verb_names_are_unique_per_service() {
        for service in services() {
            let names = service.verb_names();
            let unique: HashSet<_> = names.iter().collect();
            assert_eq!(unique.len(), names.len(), "{} declares a verb twice", service.name);
        }
    }
}
