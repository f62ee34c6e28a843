//! A tournament definition as people write it (issue 39): a TOML file like those in
//! `examples/`, or JSON, with relative times resolved as of the moment it is read, so a shipped
//! example never expires. `floor tournament create --file` (the CLI) and the console's pasted
//! definition read it here, the one reading of both.
//!
//! Relative times: `start = { in_minutes = 120 }` (rounded up to the minute), then
//! `late_registration_until = { minutes_after_start = 60 }` and `registration_opens = {
//! minutes_before_start = 30 }`; the definition that results carries absolute times, as the
//! contract has them. A TOML datetime is read as its text.

use floor_events::tournament::TournamentDefinition;

/// A definition from `text`: TOML, or JSON when it starts with `{`, with its relative times
/// resolved as of `now` ([`resolve_relative_times`]).
///
/// # Errors
/// The TOML, JSON or definition error, in the parser's words.
pub fn definition_from_text(text: &str, now: chrono::DateTime<chrono::Utc>) -> Result<TournamentDefinition, String> {
    let mut value = if text.trim_start().starts_with('{') {
        serde_json::from_str::<serde_json::Value>(text).map_err(|e| format!("JSON: {e}"))?
    } else {
        toml_to_json(toml::from_str::<toml::Value>(text).map_err(|e| format!("TOML: {e}"))?)
    };
    resolve_relative_times(&mut value, now)?;
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// A TOML value as the JSON value serde reads the contract's types from.
pub fn toml_to_json(value: toml::Value) -> serde_json::Value {
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

/// Replaces a definition's relative times with absolute ones (module doc).
pub fn resolve_relative_times(value: &mut serde_json::Value, now: chrono::DateTime<chrono::Utc>) -> Result<(), String> {
    use chrono::{Duration, Timelike};
    let minutes = |v: &serde_json::Value, key: &str, what: &str| -> Result<Option<i64>, String> {
        match v.get(key) {
            None => Ok(None),
            Some(m) => match m.as_i64() {
                Some(m) if (0..=366 * 24 * 60).contains(&m) => Ok(Some(m)),
                _ => Err(format!("{what}: {key} must be a whole number of minutes from 0 to a year's, not {m}")),
            },
        }
    };
    let Some(object) = value.as_object_mut() else { return Ok(()) };
    let start = match object.get("start").map(|s| minutes(s, "in_minutes", "start")).transpose()?.flatten() {
        Some(m) => {
            let at = now + Duration::minutes(m);
            let at = match at.second() == 0 && at.nanosecond() == 0 {
                true => at,
                false => at.with_second(0).and_then(|t| t.with_nanosecond(0)).unwrap_or(at) + Duration::minutes(1),
            };
            object.insert("start".into(), serde_json::json!({ "at": at.to_rfc3339() }));
            Some(at)
        }
        None => None,
    };
    for (key, field, sign) in [("late_registration_until", "minutes_after_start", 1), ("registration_opens", "minutes_before_start", -1)] {
        let Some(m) = object.get(key).map(|v| minutes(v, field, key)).transpose()?.flatten() else { continue };
        let start = start.ok_or_else(|| format!("{key}: {field} needs a start given as {{ in_minutes = … }}"))?;
        object.insert(key.into(), serde_json::Value::String((start + Duration::minutes(sign * m)).to_rfc3339()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_resolve_against_the_reading_and_bad_ones_are_named() {
        let now: chrono::DateTime<chrono::Utc> = "2026-11-28T19:07:13Z".parse().unwrap();
        let mut v = serde_json::json!({
            "start": { "in_minutes": 120 },
            "late_registration_until": { "minutes_after_start": 60 },
            "registration_opens": { "minutes_before_start": 30 }
        });
        resolve_relative_times(&mut v, now).unwrap();
        assert_eq!(v["start"]["at"], "2026-11-28T21:08:00+00:00", "rounded up to the minute");
        assert_eq!(v["late_registration_until"], "2026-11-28T22:08:00+00:00");
        assert_eq!(v["registration_opens"], "2026-11-28T20:38:00+00:00");
        let mut bad = serde_json::json!({ "start": { "in_minutes": -5 } });
        assert!(resolve_relative_times(&mut bad, now).unwrap_err().contains("in_minutes"));
        let mut orphan =
            serde_json::json!({ "start": { "at": "2026-12-01T18:00:00Z" }, "late_registration_until": { "minutes_after_start": 60 } });
        assert!(resolve_relative_times(&mut orphan, now).unwrap_err().contains("needs a start"));
        let mut absolute =
            serde_json::json!({ "start": { "at": "2026-12-01T18:00:00Z" }, "late_registration_until": "2026-12-01T19:00:00Z" });
        resolve_relative_times(&mut absolute, now).unwrap();
        assert_eq!(absolute["start"]["at"], "2026-12-01T18:00:00Z", "absolute times are kept");
    }
}
