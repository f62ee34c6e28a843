//! Who may do what on NATS (issue 34): the roles of Floor's trust boundary, as a nats-server
//! `authorization` block. Users in the server's global account, each with subject permissions
//! (least privilege); chosen over JWT accounts or an auth callout because the embedded server
//! needs nothing but its config file, an operator can read every permission in it, and a table
//! credential is issued or revoked by rewriting one included file and reloading the server
//! (`docs/security.md`).
//!
//! | role | may |
//! |---|---|
//! | service | everything: publish events, serve command subjects (queue groups), read `floor-secrets`, manage streams and buckets |
//! | admin | the same, for operators, under its own name |
//! | director | send director commands (`floor.cmd.>` but the verbs only services send), read the log, the lobby and health (never `floor-secrets` or console sessions), write nothing else |
//! | table | one tournament's (or one table's) reports, its own durable consumers on `FLOOR_TABLES`, nothing of Floor's |
//! | reader | watch and read the lobby's documents |
//!
//! Pure: the block is text made from the users given.

use floor_events::subjects;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A role of the trust boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Floor's services.
    Service,
    /// An operator: everything, apart from the services' own user.
    Admin,
    /// The CLI of a director.
    Director,
    /// A table server, scoped to one tournament (or one table of it).
    Table,
    /// A lobby reader: players' feeds.
    Reader,
}

impl Role {
    /// Its name, as in file names and user names.
    pub fn name(self) -> &'static str {
        match self {
            Self::Service => "service",
            Self::Admin => "admin",
            Self::Director => "director",
            Self::Table => "table",
            Self::Reader => "reader",
        }
    }
}

/// One user of the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    /// The user name.
    pub user: String,
    /// The password (random, 32 hex digits or more).
    pub password: String,
    /// The role.
    pub role: Role,
    /// For a table: the tournament, and the table when the credential is for one table only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<TableScope>,
}

/// What a table credential reaches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableScope {
    /// The tournament.
    pub tournament: uuid::Uuid,
    /// One table; `None`: every table of the tournament.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<u32>,
}

/// Verbs only a service sends (one service telling another): a director's credential cannot.
/// `register_with_ticket` says the entry is paid by a satellite's ticket: only the satellites
/// service, which holds the ticket, may say so (issue 36). `stop_shared` ends a satellite or a
/// double or nothing at its stop with the survivors payouts ranked (issues 36/37): only payouts
/// may say who they are. `register_carried` enters a Day 1's survivor in its Day 2 without a
/// buy-in (issue 36): only the satellites service's flights policy, which read the Day 1, may.
pub const SERVICE_ONLY_VERBS: &[&str] = &[
    "floor.cmd.registration.eliminate_entry",
    "floor.cmd.registration.register_with_ticket",
    "floor.cmd.registration.stop_shared",
    "floor.cmd.registration.register_carried",
];

/// Durable consumers Floor keeps on `FLOOR_TABLES`: no table may read, acknowledge or delete
/// them.
pub const FLOOR_TABLE_CONSUMERS: &[&str] = &["seating-reports"];

/// Buckets no director or reader may read.
pub const PRIVATE_BUCKETS: &[&str] = &[subjects::SECRETS_BUCKET, "floor-console-sessions"];

fn list(subjects: &[String]) -> String {
    let quoted: Vec<String> = subjects.iter().map(|s| format!("{s:?}")).collect();
    format!("[{}]", quoted.join(", "))
}

/// `{ allow: [...], deny: [...] }` or `{ allow: [...] }`.
fn allow_deny(allow: &[String], deny: &[String]) -> String {
    if deny.is_empty() {
        format!("{{ allow: {} }}", list(allow))
    } else {
        format!("{{ allow: {}, deny: {} }}", list(allow), list(deny))
    }
}

fn owned(subjects: &[&str]) -> Vec<String> {
    subjects.iter().map(|s| (*s).to_owned()).collect()
}

/// Reading a stream or bucket without changing it: its info, direct gets, and the ordered
/// consumers KV watches and `keys` make (created, fed, flow-controlled, deleted by their
/// owner).
fn read_only(stream: &str) -> Vec<String> {
    vec![
        format!("$JS.API.STREAM.INFO.{stream}"),
        format!("$JS.API.DIRECT.GET.{stream}"),
        format!("$JS.API.DIRECT.GET.{stream}.>"),
        format!("$JS.API.STREAM.MSG.GET.{stream}"),
        format!("$JS.API.CONSUMER.CREATE.{stream}"),
        format!("$JS.API.CONSUMER.CREATE.{stream}.>"),
        format!("$JS.API.CONSUMER.INFO.{stream}.>"),
        format!("$JS.API.CONSUMER.DELETE.{stream}.>"),
        format!("$JS.API.CONSUMER.MSG.NEXT.{stream}.>"),
    ]
}

/// The permissions of `user`, as a nats-server `permissions` value.
pub fn permissions(user: &User) -> String {
    let inbox = owned(&["_INBOX.>"]);
    match user.role {
        Role::Service | Role::Admin => "{ publish: \">\", subscribe: \">\" }".to_owned(),
        Role::Director => {
            let mut publish = owned(&["floor.cmd.>", "$JS.API.INFO", "$JS.API.STREAM.NAMES", "$JS.API.STREAM.LIST", "$JS.FC.>"]);
            // The log and the tables' reports (what `floor status` reads to say who waits on
            // whom), the buckets a director's commands and console read.
            let readable = [subjects::EVENTS_STREAM.to_owned(), subjects::TABLES_STREAM.to_owned()].into_iter().chain(
                [
                    subjects::LOBBY_BUCKET,
                    subjects::CHECKPOINT_BUCKET,
                    subjects::READERS_BUCKET,
                    subjects::HEALTH_BUCKET,
                    subjects::BOOKS_BUCKET,
                    "floor-lobby-tables",
                    "floor-lobby-structures",
                    "floor-console-audit",
                ]
                .iter()
                .map(|b| format!("KV_{b}")),
            );
            readable.for_each(|s| publish.extend(read_only(&s)));
            // Every stream's info (what `floor status` compares); nothing of a private bucket.
            publish.push("$JS.API.STREAM.INFO.>".to_owned());
            let mut deny: Vec<String> = SERVICE_ONLY_VERBS.iter().map(|v| (*v).to_owned()).collect();
            deny.extend(floor_consumers_untouched());
            format!("{{ publish: {}, subscribe: {} }}", allow_deny(&publish, &deny), allow_deny(&inbox, &[]))
        }
        Role::Reader => {
            let mut publish = owned(&["$JS.API.INFO", "$JS.FC.>"]);
            publish.extend(read_only(&format!("KV_{}", subjects::LOBBY_BUCKET)));
            format!("{{ publish: {}, subscribe: {} }}", allow_deny(&publish, &[]), allow_deny(&inbox, &[]))
        }
        Role::Table => {
            let scope = user.scope.as_ref();
            let tournament = scope.map_or_else(|| "none".to_owned(), |s| s.tournament.to_string());
            let table = scope.and_then(|s| s.table).map_or_else(|| "*".to_owned(), |n| n.to_string());
            let stream = subjects::TABLES_STREAM;
            let mut publish = vec![format!("floor.table.{tournament}.{table}.out")];
            // Its own durable consumers: created with a filter on its tables' instructions or
            // rejections (the server checks the filter named in the subject), read, acknowledged,
            // deleted.
            for kind in ["in", "rejected"] {
                publish.push(format!("$JS.API.CONSUMER.CREATE.{stream}.*.floor.table.{tournament}.{table}.{kind}"));
            }
            publish.extend([
                format!("$JS.API.CONSUMER.INFO.{stream}.*"),
                format!("$JS.API.CONSUMER.MSG.NEXT.{stream}.*"),
                format!("$JS.API.CONSUMER.DELETE.{stream}.*"),
                format!("$JS.ACK.{stream}.>"),
                format!("$JS.API.STREAM.INFO.{stream}"),
                "$JS.API.INFO".to_owned(),
                "$JS.FC.>".to_owned(),
            ]);
            let deny = floor_consumers_untouched();
            format!("{{ publish: {}, subscribe: {} }}", allow_deny(&publish, &deny), allow_deny(&inbox, &[]))
        }
    }
}

/// What no table or director may do to Floor's own consumers on `FLOOR_TABLES`: look at them,
/// take their messages, acknowledge them or delete them.
fn floor_consumers_untouched() -> Vec<String> {
    let stream = subjects::TABLES_STREAM;
    FLOOR_TABLE_CONSUMERS
        .iter()
        .flat_map(|consumer| {
            [
                format!("$JS.API.CONSUMER.INFO.{stream}.{consumer}"),
                format!("$JS.API.CONSUMER.MSG.NEXT.{stream}.{consumer}"),
                format!("$JS.API.CONSUMER.DELETE.{stream}.{consumer}"),
                format!("$JS.ACK.{stream}.{consumer}.>"),
            ]
        })
        .collect()
}

/// The server's `authorization` block for `users`.
pub fn authorization(users: &[User]) -> String {
    let mut block = String::from("# Written by Floor (issue 34): the roles of docs/security.md. Rewritten when a table\n");
    block.push_str("# credential is issued or revoked; the server reloads it.\nauthorization {\n  users = [\n");
    for u in users {
        let _ = writeln!(block, "    {{ user: {:?}, password: {:?}, permissions: {} }}", u.user, u.password, permissions(u));
    }
    block.push_str("  ]\n}\n");
    block
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(role: Role, scope: Option<TableScope>) -> User {
        User { user: role.name().into(), password: "p".into(), role, scope }
    }

    #[test]
    fn a_table_credential_reaches_its_own_tournaments_reports_and_none_of_floors_consumers() {
        let t = uuid::Uuid::nil();
        let one = permissions(&user(Role::Table, Some(TableScope { tournament: t, table: Some(4) })));
        assert!(one.contains(&format!("\"floor.table.{t}.4.out\"")), "{one}");
        assert!(!one.contains("floor.ev") && !one.contains("floor.cmd"), "{one}");
        assert!(one.contains("deny: [\"$JS.API.CONSUMER.INFO.FLOOR_TABLES.seating-reports\""), "{one}");
        let all = permissions(&user(Role::Table, Some(TableScope { tournament: t, table: None })));
        assert!(all.contains(&format!("\"floor.table.{t}.*.out\"")), "{all}");
    }

    #[test]
    fn a_director_sends_commands_but_never_a_service_verb_nor_reads_secrets() {
        let d = permissions(&user(Role::Director, None));
        assert!(d.contains("\"floor.cmd.>\"") && d.contains("deny: [\"floor.cmd.registration.eliminate_entry\", "), "{d}");
        // It reads the tables' reports (floor status), never Floor's own consumer of them.
        assert!(
            d.contains("\"$JS.API.DIRECT.GET.FLOOR_TABLES\"") && d.contains("\"$JS.API.CONSUMER.DELETE.FLOOR_TABLES.seating-reports\""),
            "{d}"
        );
        assert!(!d.contains("KV_floor-secrets") && !d.contains("floor-console-sessions"), "{d}");
        assert!(d.contains("subscribe: { allow: [\"_INBOX.>\"] }"), "subscribes to nothing but its replies: {d}");
        let block = authorization(&[user(Role::Service, None), user(Role::Director, None)]);
        assert!(block.contains("authorization {") && block.matches("user:").count() == 2, "{block}");
    }
}
