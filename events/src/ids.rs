//! Identifiers: tournaments and commands are UUID v7 (time-ordered); players are names chosen
//! by the operator's account system; entries are numbered per tournament from 1.

use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize};
use std::fmt;
use uuid::Uuid;

/// Namespace for UUID v5 ids derived from Floor names (player aggregates, scheduled occurrences).
pub const FLOOR_NAMESPACE: Uuid = Uuid::from_u128(0x6f1c_0a5e_9d1b_4e4a_8a53_f100_7000_0001);

/// A tournament.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct TournamentId(pub Uuid);

impl TournamentId {
    /// A fresh, time-ordered id.
    pub fn new() -> Self {
        Self(Uuid::now_v7())
    }
}

impl Default for TournamentId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for TournamentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A command's id: the idempotency key, published as `Nats-Msg-Id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct CommandId(pub Uuid);

impl CommandId {
    /// A fresh, time-ordered id.
    pub fn new() -> Self {
        Self(Uuid::now_v7())
    }

    /// An id derived from a name, for commands a policy sends in reaction to an event: the same
    /// source event always yields the same command id, so a replayed reaction is applied once.
    pub fn derived(name: &str) -> Self {
        Self(Uuid::new_v5(&FLOOR_NAMESPACE, name.as_bytes()))
    }
}

impl Default for CommandId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for CommandId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A player's account name: 1–64 characters of `[A-Za-z0-9_.@-]`.
///
/// Valid by construction: decoding refuses anything else, so domain code never re-checks it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct PlayerId(String);

impl JsonSchema for PlayerId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PlayerId".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[A-Za-z0-9_.@-]+$",
            "description": "A player's account name"
        })
    }
}

impl PlayerId {
    /// Parses an account name.
    pub fn parse(name: &str) -> Result<Self, String> {
        let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '@' | '-');
        if name.is_empty() || name.len() > 64 || !name.chars().all(ok_char) {
            // Quoted short: a megabyte of bad name is not echoed back (issue 17).
            return Err(format!("player id must be 1-64 characters of A-Z a-z 0-9 _ . @ -, got {}", crate::text::quote(name)));
        }
        Ok(Self(name.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id of this player's aggregate: UUID v5 of the name, so every instance agrees on it.
    pub fn aggregate_id(&self) -> Uuid {
        Uuid::new_v5(&FLOOR_NAMESPACE, format!("player:{}", self.0).as_bytes())
    }
}

impl<'de> Deserialize<'de> for PlayerId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        PlayerId::parse(&s).map_err(de::Error::custom)
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An entry's number within its tournament, from 1 in order of acceptance. A re-entry is a new
/// entry with a new number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct EntryNo(pub u32);

impl fmt::Display for EntryNo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_ids_are_valid_by_construction() {
        assert!(PlayerId::parse("alice_01").is_ok());
        assert!(PlayerId::parse("").is_err());
        assert!(PlayerId::parse("has space").is_err());
        assert!(PlayerId::parse(&"x".repeat(65)).is_err());
        assert!(serde_json::from_str::<PlayerId>(r#""bad/name""#).is_err());
        assert!(PlayerId::parse(&"x".repeat(1 << 20)).unwrap_err().len() < 200, "a huge bad name is not echoed whole");
    }

    #[test]
    fn player_aggregate_ids_are_stable() {
        let a = PlayerId::parse("alice").unwrap();
        assert_eq!(a.aggregate_id(), PlayerId::parse("alice").unwrap().aggregate_id());
        assert_ne!(a.aggregate_id(), PlayerId::parse("bob").unwrap().aggregate_id());
    }
}
