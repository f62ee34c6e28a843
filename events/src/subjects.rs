//! The NATS address book: every stream, subject and bucket Floor uses, named once.
//!
//! Aggregate names are forever: they are part of the subject every stored commit lives on.

use uuid::Uuid;

/// The JetStream stream that is Floor's event store and bus.
pub const EVENTS_STREAM: &str = "FLOOR_EVENTS";
/// Subjects captured by [`EVENTS_STREAM`]: `floor.ev.<aggregate>.<aggregate_id>`.
pub const EVENTS_SUBJECTS: &str = "floor.ev.>";
/// The JetStream stream of the table-server protocol: instructions and reports.
pub const TABLES_STREAM: &str = "FLOOR_TABLES";
/// Subjects captured by [`TABLES_STREAM`]: `floor.table.<tournament>.<table>.in|out`.
pub const TABLES_SUBJECTS: &str = "floor.table.>";
/// KV bucket of secrets services share (the key seat-draw seeds are derived from).
pub const SECRETS_BUCKET: &str = "floor-secrets";
/// The platform's seed key in [`SECRETS_BUCKET`]: 32 bytes, made once. Seating derives its draw
/// seeds from it, the bounties service its mystery draws' seeds.
pub const SEED_KEY: &str = "seating-seed-key";
/// Prefix of every command subject: `floor.cmd.<service>.<verb>`.
pub const COMMAND_PREFIX: &str = "floor.cmd";
/// KV bucket holding one lobby document per tournament, keyed by tournament id.
pub const LOBBY_BUCKET: &str = "floor-lobby";
/// KV bucket where projections keep their checkpoints (last applied stream sequence).
pub const CHECKPOINT_BUCKET: &str = "floor-checkpoints";
/// Object store of aggregate snapshots (a cache of the log: losing it costs only a longer load).
pub const SNAPSHOT_BUCKET: &str = "floor-snapshots";
/// Object store of cancellations too large for one message (issue 22): each is its whole
/// `cancelled` event, named `<tournament>.<sha256>`; the event in the log carries the name, the
/// hash and the counts. The log's own data, unlike the snapshots: never deleted.
pub const CANCELLATIONS_BUCKET: &str = "floor-cancellations";
/// Header carrying the schema version of a commit's events.
pub const SCHEMA_HEADER: &str = "Floor-Schema";
/// KV bucket naming what each checkpointed reader reads: key = the reader (its checkpoint's
/// key), value = `{"stream": …, "filters": […]}`, written by the reader at every start
/// (`floor status` and the lobby read it to say which tournament waits on which reader).
pub const READERS_BUCKET: &str = "floor-readers";
/// KV bucket of readers' health: the poison commits each survived and the aggregates it set
/// aside, one key per reader (`floor status` reads it).
pub const HEALTH_BUCKET: &str = "floor-health";
/// KV bucket of the tournaments whose books do not reconcile (issue 33): key = tournament id,
/// value = its books (`floor.cmd.payouts.books`' reply) with why; written by the payouts
/// service, deleted when they reconcile again (`floor status` reads it).
pub const BOOKS_BUCKET: &str = "floor-books";

/// Aggregate names: the `<aggregate>` part of event subjects.
pub mod aggregate {
    /// A tournament: definition, entries, eliminations known to registration.
    pub const TOURNAMENT: &str = "tournament";
    /// A player: responsible-gaming limits and the tournaments they count against.
    pub const PLAYER: &str = "player";
    /// A tournament's blind-level clock.
    pub const CLOCK: &str = "clock";
    /// A recurring tournament template.
    pub const SCHEDULE: &str = "schedule";
    /// A tournament's seating: tables, seats, moves, reports.
    pub const SEATING: &str = "seating";
    /// A tournament's payouts: the payout table and every finishing place.
    pub const PAYOUTS: &str = "payouts";
    /// A tournament's rebuys and add-ons.
    pub const REBUYS: &str = "rebuys";
    /// A tournament's hand-for-hand on the bubble.
    pub const BUBBLE: &str = "bubble";
    /// A tournament's bounties: the bounty ledger, every bounty paid, the mystery draws.
    pub const BOUNTIES: &str = "bounties";
    /// A tournament's suspensions and its cancellation with every player's statement.
    pub const ABORT: &str = "abort";
    /// A satellite's tickets: every seat it won and each ticket's life (issue 36).
    pub const SATELLITE: &str = "satellite";
    /// A shootout's rounds (issue 37).
    pub const SHOOTOUT: &str = "shootout";
    /// A lottery sit & go's draw: the commitment, then the multiplier drawn (issue 37).
    pub const LOTTERY: &str = "lottery";
}

/// Service names: the `<service>` part of command subjects and the NATS micro-service name.
pub mod service {
    /// Registration: tournament definitions and entries.
    pub const REGISTRATION: &str = "registration";
    /// Lobby: read models for players.
    pub const LOBBY: &str = "lobby";
    /// Clock: blind levels, director clock commands.
    pub const CLOCK: &str = "clock";
    /// Scheduler: recurring templates and tournament starts.
    pub const SCHEDULER: &str = "scheduler";
    /// Payouts: payout tables, places, prizes and the books.
    pub const PAYOUTS: &str = "payouts";
    /// Rebuys: rebuys, add-ons and their windows.
    pub const REBUYS: &str = "rebuys";
    /// Bubble: hand-for-hand near the money.
    pub const BUBBLE: &str = "bubble";
    /// Bounties: knockout, progressive knockout, mystery and target bounties.
    pub const BOUNTIES: &str = "bounties";
    /// Abort: suspend, resume and cancel a tournament in play, with statements.
    pub const ABORT: &str = "abort";
    /// Satellites: tickets won in satellites, seats in their targets, tickets spent (issue 36).
    pub const SATELLITES: &str = "satellites";
    /// Shootouts: rounds, table winners, the next round's start (issue 37).
    pub const SHOOTOUTS: &str = "shootouts";
    /// Lottery sit & gos: the audited draw of the prize pool (issue 37).
    pub const LOTTERY: &str = "lottery";
    /// Seating: draws, balancing, breaking, the table-server protocol (no command verbs: tables
    /// speak on `floor.table.>`).
    pub const SEATING: &str = "seating";
}

/// The subject an aggregate's commits are stored on.
pub fn event_subject(aggregate: &str, id: Uuid) -> String {
    format!("floor.ev.{aggregate}.{id}")
}

/// The filter that matches every commit of one aggregate type.
pub fn event_filter(aggregate: &str) -> String {
    format!("floor.ev.{aggregate}.*")
}

/// The subject a command verb of a service is served on.
pub fn command_subject(service: &str, verb: &str) -> String {
    format!("{COMMAND_PREFIX}.{service}.{verb}")
}

/// Parses `floor.ev.<aggregate>.<id>` into its parts.
pub fn parse_event_subject(subject: &str) -> Option<(&str, Uuid)> {
    let rest = subject.strip_prefix("floor.ev.")?;
    let (aggregate, id) = rest.split_once('.')?;
    Some((aggregate, Uuid::parse_str(id).ok()?))
}

/// The aggregate an events-stream filter reads: `floor.ev.<aggregate>.>` or `.*`.
pub fn filter_aggregate(filter: &str) -> Option<&str> {
    filter.strip_prefix("floor.ev.").and_then(|f| f.strip_suffix(".>").or_else(|| f.strip_suffix(".*")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_names_its_aggregate() {
        assert_eq!(filter_aggregate(&event_filter(aggregate::CLOCK)), Some(aggregate::CLOCK));
        assert_eq!(filter_aggregate("floor.ev.seating.*"), Some("seating"));
        assert_eq!(filter_aggregate("floor.table.*.*.out"), None);
    }

    #[test]
    fn event_subjects_round_trip() {
        let id = Uuid::now_v7();
        let subject = event_subject(aggregate::TOURNAMENT, id);
        assert_eq!(parse_event_subject(&subject), Some((aggregate::TOURNAMENT, id)));
        assert_eq!(parse_event_subject("floor.ev.tournament.not-a-uuid"), None);
        assert_eq!(parse_event_subject("floor.cmd.registration.register"), None);
    }
}
