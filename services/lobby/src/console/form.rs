//! The console's forms: `application/x-www-form-urlencoded` bodies decoded into typed requests,
//! checked once here so the handlers only send commands.
//!
//! Every form of a signed-in page carries `form_token` (the session's CSRF token) and
//! `command_id` (fresh when the page was rendered: a form sent twice, after a time-out say, is
//! the same command, which its service stores once).

use floor_events::clock::{BlindStructure, Preset};
use floor_events::tournament::{EntryModel, Fee, Start, TournamentDefinition};
use floor_events::{CommandId, Currency, Money, RuleProfile};
use std::collections::HashMap;

pub use super::action::{Action, LONGEST_REASON};

/// A form field that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FormError {
    /// The field.
    pub field: &'static str,
    /// What is wrong with it.
    pub message: String,
}

pub(crate) fn invalid(field: &'static str, message: impl Into<String>) -> FormError {
    FormError { field, message: message.into() }
}

/// A form's fields by name (the last value of a repeated field wins).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Fields(HashMap<String, String>);

impl Fields {
    /// Decodes an urlencoded body with `form_urlencoded` (the WHATWG parser of the `url` crate):
    /// `+` is a space, `%XX` a byte; the result must be UTF-8.
    /// No field but the password may hold a character that is invisible or turns the text
    /// around it ([`crate::pages::html::is_hidden`]: a bidi override, a zero-width space…): a name or
    /// a reason with one could pass for another in the pages and the audit (issue 34).
    ///
    /// # Errors
    /// `body` when a name or value is not UTF-8 after decoding, or a `%` is not followed by two
    /// hex digits; `text` for a hidden character.
    pub fn parse(body: &[u8]) -> Result<Self, FormError> {
        // `form_urlencoded` reads a malformed `%` as itself and invalid UTF-8 as U+FFFD; the
        // console refuses both instead, so the whole body is checked first. Decoding it whole
        // and decoding each name and value are the same bytes with `&` and `=` between them, so
        // the body is UTF-8 once decoded exactly when each name and value is.
        let mut percent = body.iter().enumerate().filter(|(_, &b)| b == b'%');
        if percent.any(|(i, _)| !body.get(i + 1..i + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))) {
            return Err(invalid("body", "a % not followed by two hex digits"));
        }
        if percent_encoding::percent_decode(body).decode_utf8().is_err() {
            return Err(invalid("body", "not UTF-8"));
        }
        let mut fields = HashMap::new();
        for (name, value) in form_urlencoded::parse(body) {
            let hidden =
                name.chars().chain(if name == "password" { "".chars() } else { value.chars() }).find(|c| crate::pages::html::is_hidden(*c));
            if let Some(c) = hidden {
                return Err(invalid(
                    "text",
                    format!(
                        "{} holds U+{:04X}, a character that is invisible or turns the text around it; type it without",
                        name, c as u32
                    ),
                ));
            }
            fields.insert(name.into_owned(), value.into_owned());
        }
        Ok(Self(fields))
    }

    /// A field's value, trimmed; empty when absent.
    pub fn text(&self, name: &str) -> &str {
        self.0.get(name).map_or("", |v| v.trim())
    }

    /// A field's value as sent (a password keeps its spaces); empty when absent.
    pub fn raw(&self, name: &str) -> &str {
        self.0.get(name).map_or("", String::as_str)
    }

    /// A required field, trimmed, at most `longest` characters.
    ///
    /// # Errors
    /// Empty or too long.
    pub fn required(&self, name: &'static str, longest: usize) -> Result<String, FormError> {
        let value = self.text(name);
        if value.is_empty() {
            return Err(invalid(name, "required"));
        }
        if value.chars().count() > longest {
            return Err(invalid(name, format!("at most {longest} characters")));
        }
        Ok(value.to_owned())
    }

    /// A number field.
    ///
    /// # Errors
    /// Absent or not a number of that type.
    pub fn number<T: std::str::FromStr>(&self, name: &'static str) -> Result<T, FormError> {
        self.text(name).parse().map_err(|_| invalid(name, format!("not a number: {:?}", self.text(name))))
    }

    /// The form's command id; a fresh one when the form has none.
    ///
    /// # Errors
    /// Present and not a UUID.
    pub fn command_id(&self) -> Result<CommandId, FormError> {
        match self.text("command_id") {
            "" => Ok(CommandId::new()),
            id => uuid::Uuid::parse_str(id).map(CommandId).map_err(|_| invalid("command_id", "not a UUID")),
        }
    }
}

/// A reason as recorded: the director's words, then who gave them. The commands' `reason` is
/// the only field they have for it ([`crate::console`]'s docs: the audit).
pub fn signed(reason: &str, director: &str) -> String {
    let signature = format!(" (director: {director})");
    let room = LONGEST_REASON.saturating_sub(signature.chars().count());
    let words: String = reason.chars().take(room).collect();
    format!("{words}{signature}")
}

/// The tournaments a director can create from a template, with a name and a start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// Nine seats, starts when full, hyper-turbo.
    SitAndGo9,
    /// A scheduled freezeout for up to 1,000, turbo levels, late registration for an hour.
    TurboFreezeout,
    /// A scheduled re-entry (three entries), deep-stack levels, a guarantee.
    DeepReEntry,
}

impl Template {
    /// Every template: form value and label.
    pub const ALL: [(Template, &'static str, &'static str); 3] = [
        (Template::SitAndGo9, "sit_and_go_9", "Sit & go, 9 seats, hyper-turbo, €10 + €1"),
        (Template::TurboFreezeout, "turbo_freezeout", "Scheduled turbo freezeout, up to 1,000, €20 + €2"),
        (Template::DeepReEntry, "deep_re_entry", "Scheduled deep-stack re-entry (3), €50 + €5, €5,000 guaranteed"),
    ];

    fn parse(value: &str) -> Result<Self, FormError> {
        Self::ALL.iter().find(|(_, v, _)| *v == value).map(|(t, _, _)| *t).ok_or_else(|| invalid("template", "not a template"))
    }

    /// The definition: `name`, starting `start_in` after `now` (a sit & go ignores it).
    pub fn definition(self, name: String, now: chrono::DateTime<chrono::Utc>, start_in: chrono::Duration) -> TournamentDefinition {
        let eur = |cents| Money::new(cents, Currency::EUR);
        let start = now + start_in;
        // Each template names its game; what none of them has (a registration opening, rebuys,
        // an add-on, a payout table, hand-for-hand settings, bounties) comes from the example,
        // where every optional section is absent.
        let base = TournamentDefinition {
            name,
            start: Start::At(start),
            table_size: 9,
            starting_stack: 10_000,
            buy_in: eur(2_000),
            fee: Fee::OnTop(eur(200)),
            capacity: 1_000,
            min_players: 2,
            late_registration_until: Some(start + chrono::Duration::hours(1)),
            entry_model: EntryModel::Freezeout,
            profile: RuleProfile::Tda2024,
            structure: Some(BlindStructure::Preset(Preset::Turbo)),
            ..TournamentDefinition::example()
        };
        match self {
            Self::SitAndGo9 => TournamentDefinition {
                start: Start::SitAndGo,
                starting_stack: 1_500,
                buy_in: eur(1_000),
                fee: Fee::OnTop(eur(100)),
                capacity: 9,
                min_players: 9,
                late_registration_until: None,
                structure: Some(BlindStructure::Preset(Preset::HyperTurbo)),
                ..base
            },
            Self::TurboFreezeout => base,
            Self::DeepReEntry => TournamentDefinition {
                starting_stack: 30_000,
                buy_in: eur(5_000),
                fee: Fee::OnTop(eur(500)),
                min_players: 10,
                entry_model: EntryModel::ReEntry { max_entries: 3 },
                guarantee: Some(eur(500_000)),
                structure: Some(BlindStructure::Preset(Preset::DeepStack)),
                ..base
            },
        }
    }
}

/// The create form: a template with a name and a start, or a whole definition pasted as TOML
/// (an `examples/*.toml` file as it is, what `floor tournament create --file` reads) or as JSON
/// (a text starting with `{`) — see [`pasted_definition`].
///
/// # Errors
/// A definition that is not one (`definition`, with the parser's words), or a template's field.
pub fn creation(fields: &Fields, now: chrono::DateTime<chrono::Utc>) -> Result<TournamentDefinition, FormError> {
    let pasted = fields.text("definition");
    if !pasted.is_empty() {
        return pasted_definition(pasted, now).map_err(|e| invalid("definition", e));
    }
    let template = Template::parse(fields.text("template"))?;
    let name = fields.required("name", 200)?;
    let minutes: u32 = fields.number("start_in_minutes")?;
    if !(1..=60 * 24 * 365).contains(&minutes) {
        return Err(invalid("start_in_minutes", "from 1 minute to a year"));
    }
    Ok(template.definition(name, now, chrono::Duration::minutes(minutes.into())))
}

/// A pasted definition, TOML or JSON (a text that starts with `{`), with its relative times
/// resolved as of `now`: the CLI's reading of a file (`floor_rules::definition_file`).
///
/// # Errors
/// The TOML, JSON or definition error, in the parser's words.
pub fn pasted_definition(text: &str, now: chrono::DateTime<chrono::Utc>) -> Result<TournamentDefinition, String> {
    floor_rules::definition_file::definition_from_text(text, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(body: &str) -> Fields {
        Fields::parse(body.as_bytes()).unwrap()
    }

    #[test]
    fn urlencoded_bodies_decode_to_text() {
        let f = fields("reason=Floor+call%3A+seat+3&empty=&flag&name=%3Cscript%3E%E2%82%AC");
        assert_eq!(f.text("reason"), "Floor call: seat 3");
        assert_eq!((f.text("empty"), f.text("flag"), f.text("absent")), ("", "", ""));
        assert_eq!(f.text("name"), "<script>€");
        assert_eq!(Fields::parse(b"a=%zz").unwrap_err().field, "body");
        assert_eq!(Fields::parse(b"a=%e2%82").unwrap_err().field, "body", "not UTF-8");
        assert_eq!(Fields::parse(b"a=%4").unwrap_err().field, "body");
    }

    #[test]
    fn a_bidi_override_or_a_zero_width_character_is_refused_with_what_it_is() {
        for (body, code) in [
            ("director=Ana%E2%80%AEnimda", "U+202E"),
            ("reason=a%E2%80%8Bb", "U+200B"),
            ("name=%EF%BB%BFx", "U+FEFF"),
            ("d%E2%81%A6=x", "U+2066"),
        ] {
            let refused = Fields::parse(body.as_bytes()).unwrap_err();
            assert_eq!(refused.field, "text", "{body}");
            assert!(refused.message.contains(code) && refused.message.contains("invisible"), "{body}: {}", refused.message);
        }
        assert_eq!(fields("password=pass%E2%80%AEword").raw("password"), "pass\u{202E}word", "a password is not shown: kept as typed");
        assert_eq!(fields("director=%D9%85%D8%AD%D9%85%D8%AF").text("director"), "محمد", "right-to-left letters are names like any other");
    }

    #[test]
    fn every_example_pastes_as_toml_on_any_date() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut read = 0;
        for now in ["2026-11-28T23:40:17Z", "2031-06-01T00:00:00Z"] {
            let now: chrono::DateTime<chrono::Utc> = now.parse().unwrap();
            for file in std::fs::read_dir(&dir).unwrap() {
                let path = file.unwrap().path();
                if path.extension().is_none_or(|e| e != "toml") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let def = pasted_definition(&text, now).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                if text.contains("in_minutes") {
                    assert!(def.validate_at(now).is_ok(), "{}: {:?}", path.display(), def.validate_at(now));
                    assert!(def.scheduled_start().is_some_and(|s| s > now && s.timestamp() % 60 == 0), "{}", path.display());
                }
                read += 1;
            }
        }
        assert!(read >= 2, "the examples are read");
    }

    #[test]
    fn a_pasted_toml_definition_resolves_its_relative_start_and_says_what_is_wrong() {
        let now: chrono::DateTime<chrono::Utc> = "2027-01-10T18:00:30Z".parse().unwrap();
        let json = serde_json::to_string(&Template::TurboFreezeout.definition("T".into(), now, chrono::Duration::minutes(5))).unwrap();
        assert!(pasted_definition(&json, now).is_ok(), "JSON still reads");
        let toml = "name = \"Desk\"\nstart = { in_minutes = 0 }\nlate_registration_until = { minutes_after_start = 60 }\n";
        let err = pasted_definition(toml, now).unwrap_err();
        assert!(!err.contains("in_minutes"), "the start was resolved; what is missing is said: {err}");
        assert!(pasted_definition("name = ", now).unwrap_err().starts_with("TOML"));
        assert!(pasted_definition("start = { in_minutes = -1 }", now).unwrap_err().contains("in_minutes"));
        assert!(pasted_definition("late_registration_until = { minutes_after_start = 1 }", now).unwrap_err().contains("needs a start"));
    }

    #[test]
    fn a_signed_reason_names_the_director_and_stays_within_the_limit() {
        assert_eq!(signed("dinner", "Ana"), "dinner (director: Ana)");
        let long = signed(&"x".repeat(600), "Ana");
        assert_eq!(long.chars().count(), LONGEST_REASON);
        assert!(long.ends_with("(director: Ana)"));
    }

    #[test]
    fn a_tournament_comes_from_a_template_or_a_pasted_definition() {
        let now: chrono::DateTime<chrono::Utc> = "2027-01-10T18:00:00Z".parse().unwrap();
        let def = creation(&fields("template=turbo_freezeout&name=Monday+%3Cb%3E&start_in_minutes=30"), now).unwrap();
        assert_eq!(def.name, "Monday <b>");
        assert_eq!(def.scheduled_start(), Some(now + chrono::Duration::minutes(30)));
        for (_, value, _) in Template::ALL {
            let def = creation(&fields(&format!("template={value}&name=T&start_in_minutes=5")), now).unwrap();
            assert!(def.validate().and_then(|()| def.validate_at(now)).is_ok(), "{value}: {:?}", def.validate());
        }
        let json = serde_json::to_string(&def).unwrap();
        let pasted = creation(&fields(&format!("definition={}", json.replace('%', "%25").replace('&', "%26").replace('+', "%2B"))), now);
        assert_eq!(pasted.unwrap(), def);
        assert_eq!(creation(&fields("definition=%7B%7D"), now).unwrap_err().field, "definition");
        assert_eq!(creation(&fields("template=x&name=T&start_in_minutes=5"), now).unwrap_err().field, "template");
        assert_eq!(creation(&fields("template=sit_and_go_9&name=T&start_in_minutes=0"), now).unwrap_err().field, "start_in_minutes");
    }
}
