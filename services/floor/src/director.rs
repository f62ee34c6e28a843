//! Director commands: requests to a running platform over NATS.
//!
//! They find the platform the way `floor run` was started: `NATS_URL` when set, otherwise the
//! URL the embedded server recorded in `<data>/nats.url`.

use crate::exit::Exit;
use floor_events::registration::{verbs, CreateTournament, Register, Unregister};
use floor_events::tournament::TournamentDefinition;
use floor_events::{subjects, CommandId, ErrorBody, PlayerId, Reply, TournamentId};
use floor_lobby::http::NotShown;
use floor_runtime::bootstrap;
use futures::TryStreamExt;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// A director command failed: what to print and how to exit.
#[derive(Debug)]
pub struct Failure {
    /// One line for stderr.
    pub message: String,
    /// The exit code.
    pub exit: Exit,
}

impl Failure {
    fn new(exit: Exit, message: impl Into<String>) -> Self {
        Self { message: message.into(), exit }
    }
}

impl From<ErrorBody> for Failure {
    fn from(e: ErrorBody) -> Self {
        Failure::new(Exit::Rejected, format!("{}: {}", e.code, e.message))
    }
}

/// A connection to a running platform.
pub struct Director {
    client: async_nats::Client,
}

impl Director {
    /// Connects to the platform for `data_dir`.
    ///
    /// # Errors
    /// `Unavailable` with a line saying what to start.
    pub async fn connect(data_dir: &Path) -> Result<Self, Failure> {
        let url = bootstrap::url_to_join(data_dir).map_err(|e| Failure::new(Exit::Unavailable, e.to_string()))?;
        let client = bootstrap::connect(&url)
            .await
            .map_err(|e| Failure::new(Exit::Unavailable, format!("{e} (at {url}; is `floor run` still running?)")))?;
        Ok(Self { client })
    }

    /// Sends one command and returns its `ok` payload.
    ///
    /// # Errors
    /// The platform's rejection (`Rejected`), or unavailability.
    pub async fn request<T: Serialize, R: DeserializeOwned>(&self, service: &str, verb: &str, body: &T) -> Result<R, Failure> {
        let subject = subjects::command_subject(service, verb);
        let payload = serde_json::to_vec(body).expect("request serializes");
        let reply = tokio::time::timeout(Duration::from_secs(10), self.client.request(subject.clone(), payload.into()))
            .await
            .map_err(|_| Failure::new(Exit::Unavailable, format!("no reply on {subject} within 10 s")))?
            .map_err(|e| match e.kind() {
                async_nats::RequestErrorKind::NoResponders => {
                    Failure::new(Exit::Unavailable, format!("no {service} service is running (nothing answers {subject})"))
                }
                _ => Failure::new(Exit::Unavailable, format!("{subject}: {e}")),
            })?;
        let reply: Reply<R> = serde_json::from_slice(&reply.payload)
            .map_err(|e| Failure::new(Exit::Unavailable, format!("unreadable reply from {subject}: {e}")))?;
        reply.into_result().map_err(Failure::from)
    }

    /// Creates a tournament from a definition.
    ///
    /// # Errors
    /// The platform's rejection, or unavailability.
    pub async fn create_tournament(&self, definition: TournamentDefinition) -> Result<TournamentId, Failure> {
        let command_id = CommandId::new();
        let request = CreateTournament { command_id, tournament_id: Some(TournamentId(command_id.0)), definition };
        let reply: floor_events::registration::TournamentCreatedReply =
            self.request(subjects::service::REGISTRATION, verbs::CREATE_TOURNAMENT.name(), &request).await?;
        Ok(reply.tournament_id)
    }

    /// Registers a player.
    ///
    /// # Errors
    /// The platform's rejection, or unavailability.
    pub async fn register(&self, tournament_id: TournamentId, player: PlayerId) -> Result<floor_events::registration::Registered, Failure> {
        let request = Register { command_id: CommandId::new(), tournament_id, player };
        self.request(subjects::service::REGISTRATION, verbs::REGISTER.name(), &request).await
    }

    /// Withdraws a player's latest live entry.
    ///
    /// # Errors
    /// The platform's rejection, or unavailability.
    pub async fn unregister(&self, tournament_id: TournamentId, player: PlayerId) -> Result<serde_json::Value, Failure> {
        let request = Unregister { command_id: CommandId::new(), tournament_id, player, entry: None };
        self.request(subjects::service::REGISTRATION, verbs::UNREGISTER.name(), &request).await
    }

    /// One tournament's lobby document; a tournament created a moment ago is waited for (the
    /// lobby stores in batches).
    ///
    /// # Errors
    /// `Rejected` (`unknown_tournament`) for a tournament not in the log; `Unavailable`.
    pub async fn tournament(&self, id: uuid::Uuid) -> Result<serde_json::Value, Failure> {
        let unavailable = |e: String| Failure::new(Exit::Unavailable, e);
        let js = async_nats::jetstream::new(self.client.clone());
        let bucket = js.get_key_value(subjects::LOBBY_BUCKET).await.map_err(|e| unavailable(e.to_string()))?;
        let events = js.get_stream(subjects::EVENTS_STREAM).await.map_err(|e| unavailable(e.to_string()))?;
        match floor_lobby::http::document(&bucket, &events, &id.to_string(), floor_lobby::http::FIRST_DOCUMENT).await {
            Ok(doc) => serde_json::from_slice(&doc).map_err(|e| unavailable(e.to_string())),
            Err(NotShown::Unknown) => Err(Failure::new(Exit::Rejected, format!("unknown_tournament: no tournament {id}"))),
            Err(NotShown::NotYet) => {
                Err(unavailable(format!("unavailable: tournament {id} is created; the lobby has not shown it yet, try again")))
            }
        }
    }

    /// Every lobby document.
    ///
    /// # Errors
    /// Unavailability.
    pub async fn lobby(&self) -> Result<Vec<serde_json::Value>, Failure> {
        let unavailable = |e: String| Failure::new(Exit::Unavailable, e);
        let js = async_nats::jetstream::new(self.client.clone());
        let bucket = js.get_key_value(subjects::LOBBY_BUCKET).await.map_err(|e| unavailable(e.to_string()))?;
        let keys: Vec<String> =
            bucket.keys().await.map_err(|e| unavailable(e.to_string()))?.try_collect().await.map_err(|e| unavailable(e.to_string()))?;
        let mut docs = Vec::with_capacity(keys.len());
        for key in keys {
            if let Some(value) = bucket.get(&key).await.map_err(|e| unavailable(e.to_string()))? {
                docs.push(serde_json::from_slice(&value).map_err(|e| unavailable(e.to_string()))?);
            }
        }
        Ok(docs)
    }
}

/// Reads a tournament definition from TOML. TOML datetimes (quoted or not) become RFC 3339.
///
/// # Errors
/// `Usage` naming the file and the problem.
pub fn read_definition(path: &Path) -> Result<TournamentDefinition, Failure> {
    read_toml(path)
}

/// Reads any request body from TOML (a definition, a schedule template, a structure).
///
/// # Errors
/// `Usage` naming the file and the problem.
pub fn read_toml<T: DeserializeOwned>(path: &Path) -> Result<T, Failure> {
    let usage = |m: String| Failure::new(Exit::Usage, format!("{}: {m}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| usage(e.to_string()))?;
    let value: toml::Value = toml::from_str(&text).map_err(|e| usage(e.to_string()))?;
    serde_json::from_value(toml_to_json(value)).map_err(|e| usage(e.to_string()))
}

fn toml_to_json(value: toml::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match value {
        toml::Value::String(s) => J::String(s),
        toml::Value::Integer(i) => J::from(i),
        toml::Value::Float(f) => J::from(f),
        toml::Value::Boolean(b) => J::Bool(b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(a) => J::Array(a.into_iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => J::Object(t.into_iter().map(|(k, v)| (k, toml_to_json(v))).collect()),
    }
}

/// One line per tournament for `floor tournament list`.
pub fn list_line(doc: &serde_json::Value) -> String {
    let s = |k: &str| doc.get(k).and_then(|v| v.as_str()).unwrap_or("-").to_owned();
    let n = |k: &str| doc.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
    let total = doc.pointer("/prize_pool/total/amount").and_then(|v| v.as_u64()).unwrap_or(0);
    let currency = doc.pointer("/prize_pool/total/currency").and_then(|v| v.as_str()).unwrap_or("");
    format!(
        "{}  {:<28} {:<12} {:>6} entries {:>6} players  pool {}.{:02} {}",
        s("tournament_id"),
        s("name"),
        s("state"),
        n("entrants"),
        n("unique_players"),
        total / 100,
        total % 100,
        currency
    )
}

/// One line per template for `floor schedule list`.
pub fn template_line(summary: &serde_json::Value) -> String {
    let s = |p: &str| summary.pointer(p).and_then(|v| v.as_str()).unwrap_or("-").to_owned();
    let next: Vec<&str> = summary.get("upcoming").and_then(|v| v.as_array()).into_iter().flatten().filter_map(|v| v.as_str()).collect();
    format!(
        "{}  {:<28} {:<16} {:<16} next {}",
        s("/template_id"),
        s("/template/tournament/name"),
        s("/template/cron"),
        s("/template/time_zone"),
        next.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_tournament_file_is_a_valid_definition() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let def = read_definition(&path).unwrap_or_else(|f| panic!("{}", f.message));
                def.validate().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                seen += 1;
            }
        }
        assert!(seen >= 3, "examples/ should hold several tournaments, found {seen}");
    }

    #[test]
    fn every_example_schedule_and_structure_file_is_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let toml_files = |sub: &str| -> Vec<std::path::PathBuf> {
            let mut files: Vec<_> = std::fs::read_dir(dir.join(sub)).unwrap().map(|e| e.unwrap().path()).collect();
            files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
            files
        };
        for path in toml_files("schedules") {
            let template: floor_events::schedule::ScheduleTemplate = read_toml(&path).unwrap_or_else(|f| panic!("{}", f.message));
            let start = "2027-06-01T17:00:00Z".parse().unwrap();
            floor_scheduler::domain::occurrence_definition(&template, start).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        for path in toml_files("structures") {
            let structure: floor_events::clock::Structure = read_toml(&path).unwrap_or_else(|f| panic!("{}", f.message));
            floor_rules::structure::validate(&structure).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}
