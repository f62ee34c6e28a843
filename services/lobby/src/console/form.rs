//! The console's forms: `application/x-www-form-urlencoded` bodies decoded into typed requests,
//! checked once here so the handlers only send commands.
//!
//! Every form of a signed-in page carries `form_token` (the session's CSRF token) and
//! `command_id` (fresh when the page was rendered: a form sent twice, after a time-out say, is
//! the same command, which its service stores once).

use floor_events::clock::{BlindStructure, Preset};
use floor_events::tournament::{EntryModel, Fee, Start, TournamentDefinition};
use floor_events::{CommandId, Currency, EntryNo, Money, PlayerId, RuleProfile};
use std::collections::HashMap;

/// A form field that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FormError {
    /// The field.
    pub field: &'static str,
    /// What is wrong with it.
    pub message: String,
}

fn invalid(field: &'static str, message: impl Into<String>) -> FormError {
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

/// The longest reason a director can give (the abort verbs' limit).
pub const LONGEST_REASON: usize = 500;

/// A director's action on one tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Start it now, before its time (`registration.start_tournament` with `now`).
    Start,
    /// Pause the clock.
    Pause {
        /// Why (shown to players).
        reason: String,
    },
    /// Resume the clock.
    Resume,
    /// Add (or, negative, take) time from the current level or break.
    AddTime {
        /// Seconds.
        seconds: i64,
    },
    /// Jump to a level.
    SkipToLevel {
        /// The level, from 1.
        level: u32,
    },
    /// End the current break now.
    EndBreak,
    /// Cancel: before the start every entry is refunded (`registration.cancel_tournament`); in
    /// play, statements by the profile's rule (`abort.cancel`).
    Cancel {
        /// Why.
        reason: String,
        /// The tournament is in play.
        in_play: bool,
        /// Whose fault, in play (`operator-fault`, `force-majeure`; blank: not said).
        cause: Option<floor_events::abort::CancelCause>,
    },
    /// Suspend play (`abort.suspend`).
    Suspend {
        /// Why.
        reason: String,
    },
    /// Resume a suspended tournament (`abort.resume`).
    ResumePlay,
    /// Register a player at the desk (`registration.register`).
    Register {
        /// The player's account.
        player: PlayerId,
    },
    /// Take back a player's registration, refunded (`registration.unregister`).
    Unregister {
        /// The player's account.
        player: PlayerId,
        /// Which entry (multi-entry); absent: the latest live one.
        entry: Option<EntryNo>,
    },
    /// A rebuy for a player (`rebuys.rebuy`).
    Rebuy {
        /// The player's account.
        player: PlayerId,
        /// Which entry (multi-entry); absent: the one live entry.
        entry: Option<EntryNo>,
    },
    /// An add-on for a player (`rebuys.add_on`).
    AddOn {
        /// The player's account.
        player: PlayerId,
        /// Which entry (multi-entry); absent: the one live entry.
        entry: Option<EntryNo>,
    },
    /// End the rebuy period now; the add-on opens if there is one (`rebuys.end_rebuys`).
    EndRebuys,
    /// Start hand-for-hand now (`bubble.start`).
    HandForHandStart,
    /// Stop hand-for-hand (`bubble.stop`).
    HandForHandStop,
    /// Hold hand-for-hand's next release (`bubble.pause`).
    HandForHandPause {
        /// Why.
        reason: String,
    },
    /// Release hand-for-hand again (`bubble.resume`).
    HandForHandResume,
    /// Read the books (`payouts.books`): sends nothing that changes anything.
    Books,
    /// A remaining player's deal proposal, made at the desk (`payouts.propose_deal`): how the
    /// unpaid prizes are divided, and whether the deal ends the tournament once agreed.
    DealPropose {
        /// The proposing player.
        player: PlayerId,
        /// ICM, chip chop or equal.
        method: floor_events::payouts::DealMethod,
        /// Once agreed, the deal ends the tournament (000 §16.8, 004 §4.35).
        ends_tournament: bool,
    },
    /// A remaining player accepts the deal under discussion (`payouts.accept_deal`).
    DealAccept {
        /// The player.
        player: PlayerId,
    },
    /// A remaining player rejects it (`payouts.reject_deal`).
    DealReject {
        /// The player.
        player: PlayerId,
    },
    /// A player's tournament limits, set at the desk (`registration.set_player_limits`; 002
    /// §2.3: required before a first svenska-spel-2012 tournament). A blank limit is none.
    Limits {
        /// The player.
        player: PlayerId,
        /// Per day, week and month.
        limits: floor_events::player::EntryLimits,
    },
    /// A player's self-exclusion from every tournament (`registration.exclude_player`).
    Exclude {
        /// The player.
        player: PlayerId,
        /// For how long.
        period: floor_events::player::ExclusionPeriod,
    },
}

impl Action {
    /// Every action's name in the path (`/console/tournaments/{id}/{name}`).
    pub const NAMES: [&'static str; 24] = [
        "start",
        "pause",
        "resume",
        "add_time",
        "skip",
        "end_break",
        "cancel",
        "suspend",
        "resume_play",
        "register",
        "unregister",
        "rebuy",
        "add_on",
        "end_rebuys",
        "hfh_start",
        "hfh_stop",
        "hfh_pause",
        "hfh_resume",
        "books",
        "deal_propose",
        "deal_accept",
        "deal_reject",
        "limits",
        "exclude",
    ];

    /// The action `name` with its fields.
    ///
    /// # Errors
    /// An unknown name (`action`), or a field that does not read.
    pub fn parse(name: &str, fields: &Fields) -> Result<Self, FormError> {
        let reason = || fields.required("reason", LONGEST_REASON);
        Ok(match name {
            "start" => Self::Start,
            "pause" => Self::Pause { reason: reason()? },
            "resume" => Self::Resume,
            "add_time" => {
                let seconds: i64 = fields.number("seconds")?;
                if seconds == 0 || seconds.abs() > 86_400 {
                    return Err(invalid("seconds", "between -86400 and 86400, not 0"));
                }
                Self::AddTime { seconds }
            }
            "skip" => {
                let level: u32 = fields.number("level")?;
                if level == 0 {
                    return Err(invalid("level", "levels count from 1"));
                }
                Self::SkipToLevel { level }
            }
            "end_break" => Self::EndBreak,
            "cancel" => {
                let cause = match fields.text("cause") {
                    "" => None,
                    c => Some(
                        floor_events::abort::CancelCause::parse(c)
                            .ok_or_else(|| invalid("cause", "operator-fault, force-majeure or nothing"))?,
                    ),
                };
                Self::Cancel { reason: reason()?, in_play: fields.text("in_play") == "true", cause }
            }
            "suspend" => Self::Suspend { reason: reason()? },
            "resume_play" => Self::ResumePlay,
            "register" => Self::Register { player: player(fields)? },
            "unregister" => Self::Unregister { player: player(fields)?, entry: entry(fields)? },
            "rebuy" => Self::Rebuy { player: player(fields)?, entry: entry(fields)? },
            "add_on" => Self::AddOn { player: player(fields)?, entry: entry(fields)? },
            "end_rebuys" => Self::EndRebuys,
            "hfh_start" => Self::HandForHandStart,
            "hfh_stop" => Self::HandForHandStop,
            "hfh_pause" => Self::HandForHandPause { reason: reason()? },
            "hfh_resume" => Self::HandForHandResume,
            "books" => Self::Books,
            "deal_propose" => {
                use floor_events::payouts::DealMethod;
                let method = match fields.text("method") {
                    "icm" => DealMethod::Icm,
                    "chip_chop" => DealMethod::ChipChop,
                    "equal" => DealMethod::Equal,
                    _ => return Err(invalid("method", "icm, chip_chop or equal")),
                };
                Self::DealPropose { player: player(fields)?, method, ends_tournament: fields.text("ends_tournament") == "true" }
            }
            "deal_accept" => Self::DealAccept { player: player(fields)? },
            "deal_reject" => Self::DealReject { player: player(fields)? },
            "limits" => {
                let limit = |name: &'static str| match fields.text(name) {
                    "" => Ok(None),
                    _ => fields.number::<u32>(name).map(Some),
                };
                let limits = floor_events::player::EntryLimits {
                    per_day: limit("per_day")?,
                    per_week: limit("per_week")?,
                    per_month: limit("per_month")?,
                };
                Self::Limits { player: player(fields)?, limits }
            }
            "exclude" => {
                use floor_events::player::ExclusionPeriod as P;
                let period = match fields.text("period") {
                    "twelve_hours" => P::TwelveHours,
                    "one_week" => P::OneWeek,
                    "one_month" => P::OneMonth,
                    "three_months" => P::ThreeMonths,
                    "six_months" => P::SixMonths,
                    "one_year" => P::OneYear,
                    _ => return Err(invalid("period", "twelve_hours, one_week, one_month, three_months, six_months or one_year")),
                };
                Self::Exclude { player: player(fields)?, period }
            }
            other => return Err(invalid("action", format!("no action {other:?}; one of {}", Self::NAMES.join(", ")))),
        })
    }

    /// What was done, in words, for the page that answers it.
    pub fn done(&self) -> String {
        match self {
            Self::Start => "Started".into(),
            Self::Pause { .. } => "Clock paused".into(),
            Self::Resume => "Clock resumed".into(),
            Self::AddTime { seconds } => format!("{seconds:+} s on the clock"),
            Self::SkipToLevel { level } => format!("Skipped to level {level}"),
            Self::EndBreak => "Break ended".into(),
            Self::Cancel { .. } => "Cancelled".into(),
            Self::Suspend { .. } => "Suspended".into(),
            Self::ResumePlay => "Play resumed".into(),
            Self::Register { player } => format!("Registered {player}"),
            Self::Unregister { player, .. } => format!("Unregistered {player} (refunded)"),
            Self::Rebuy { player, .. } => format!("Rebuy for {player}"),
            Self::AddOn { player, .. } => format!("Add-on for {player}"),
            Self::EndRebuys => "Rebuys ended".into(),
            Self::HandForHandStart => "Hand-for-hand started".into(),
            Self::HandForHandStop => "Hand-for-hand stopped".into(),
            Self::HandForHandPause { .. } => "Hand-for-hand paused".into(),
            Self::HandForHandResume => "Hand-for-hand resumed".into(),
            Self::Books => "The books".into(),
            Self::DealPropose { player, ends_tournament: true, .. } => format!("Deal proposed by {player}, to end the tournament"),
            Self::DealPropose { player, .. } => format!("Deal proposed by {player}"),
            Self::DealAccept { player } => format!("{player} accepted the deal"),
            Self::DealReject { player } => format!("{player} rejected the deal"),
            Self::Limits { player, .. } => format!("Limits set for {player}"),
            Self::Exclude { player, .. } => format!("{player} excluded from every tournament"),
        }
    }

    /// The reason the action carries, if any (recorded in the audit).
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::Pause { reason } | Self::Cancel { reason, .. } | Self::Suspend { reason } | Self::HandForHandPause { reason } => {
                Some(reason)
            }
            _ => None,
        }
    }
}

/// The `player` field: an account name as `registration` reads it.
fn player(fields: &Fields) -> Result<PlayerId, FormError> {
    PlayerId::parse(fields.text("player")).map_err(|e| invalid("player", e))
}

/// The optional `entry` field: an entry number from 1; blank: the service's default.
fn entry(fields: &Fields) -> Result<Option<EntryNo>, FormError> {
    match fields.text("entry") {
        "" => Ok(None),
        _ => match fields.number::<u32>("entry")? {
            0 => Err(invalid("entry", "entries count from 1")),
            n => Ok(Some(EntryNo(n))),
        },
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
    fn actions_read_their_fields_and_refuse_what_does_not_fit() {
        let cases: [(&str, &str, Result<Action, &str>); 9] = [
            ("a pause with its reason", "pause", Ok(Action::Pause { reason: "dinner".into() })),
            ("a pause needs a reason", "pause", Err("reason")),
            ("time added", "add_time", Ok(Action::AddTime { seconds: 120 })),
            ("time taken", "add_time", Ok(Action::AddTime { seconds: -60 })),
            ("a skip to level 0", "skip", Err("level")),
            ("a skip", "skip", Ok(Action::SkipToLevel { level: 4 })),
            ("a cancel in play", "cancel", Ok(Action::Cancel { reason: "dinner".into(), in_play: true, cause: None })),
            ("resume needs nothing", "resume", Ok(Action::Resume)),
            ("an unknown action", "deal", Err("action")),
        ];
        let bodies =
            ["reason=dinner", "reason=+", "seconds=120", "seconds=-60", "level=0", "level=4", "reason=dinner&in_play=true", "", ""];
        for ((case, name, expected), body) in cases.into_iter().zip(bodies) {
            let got = Action::parse(name, &fields(body)).map_err(|e| e.field);
            assert_eq!(got, expected, "{case}");
        }
        assert_eq!(Action::parse("add_time", &fields("seconds=0")).unwrap_err().field, "seconds");
        assert_eq!(Action::parse("add_time", &fields("seconds=ten")).unwrap_err().field, "seconds");
        let long = format!("reason={}", "x".repeat(501));
        assert_eq!(Action::parse("suspend", &fields(&long)).unwrap_err().field, "reason");
    }

    #[test]
    fn desk_actions_read_a_player_and_an_entry() {
        assert_eq!(Action::parse("register", &fields("player=alice")), Ok(Action::Register { player: PlayerId::parse("alice").unwrap() }));
        assert_eq!(Action::parse("register", &fields("player=")).unwrap_err().field, "player");
        assert_eq!(Action::parse("register", &fields("player=a+b")).unwrap_err().field, "player");
        assert_eq!(
            Action::parse("rebuy", &fields("player=bob&entry=2")),
            Ok(Action::Rebuy { player: PlayerId::parse("bob").unwrap(), entry: Some(EntryNo(2)) })
        );
        assert_eq!(Action::parse("add_on", &fields("player=bob&entry=0")).unwrap_err().field, "entry");
        assert_eq!(
            Action::parse("unregister", &fields("player=bob&entry=")),
            Ok(Action::Unregister { player: PlayerId::parse("bob").unwrap(), entry: None })
        );
        assert_eq!(Action::parse("hfh_pause", &fields("")).unwrap_err().field, "reason");
        assert_eq!(Action::parse("hfh_pause", &fields("reason=tv")).unwrap().reason(), Some("tv"));
        for name in ["end_rebuys", "hfh_start", "hfh_stop", "hfh_resume", "books"] {
            assert!(Action::parse(name, &fields("")).is_ok(), "{name}");
        }
    }

    /// Issue 39: a deal at the desk: proposed by a player with a method (and, checked, to end the
    /// tournament), accepted or rejected by a player; a method the console does not offer, or
    /// no player, is refused with the field.
    #[test]
    fn deal_actions_read_a_player_a_method_and_whether_it_ends_the_tournament() {
        use floor_events::payouts::DealMethod;
        let ana = PlayerId::parse("ana").unwrap();
        assert_eq!(
            Action::parse("deal_propose", &fields("player=ana&method=chip_chop&ends_tournament=true")),
            Ok(Action::DealPropose { player: ana.clone(), method: DealMethod::ChipChop, ends_tournament: true })
        );
        assert_eq!(
            Action::parse("deal_propose", &fields("player=ana&method=icm")),
            Ok(Action::DealPropose { player: ana.clone(), method: DealMethod::Icm, ends_tournament: false })
        );
        assert_eq!(Action::parse("deal_propose", &fields("player=ana&method=custom")).unwrap_err().field, "method");
        assert_eq!(Action::parse("deal_propose", &fields("method=equal")).unwrap_err().field, "player");
        assert_eq!(Action::parse("deal_accept", &fields("player=ana")), Ok(Action::DealAccept { player: ana.clone() }));
        assert_eq!(Action::parse("deal_reject", &fields("player=ana")), Ok(Action::DealReject { player: ana }));
        assert_eq!(Action::parse("deal_accept", &fields("")).unwrap_err().field, "player");
    }

    /// Issue 38 at the desk: a player's limits (a blank one is none, a word is refused with its
    /// field) and self-exclusion (the periods of 002 §2.3 only).
    #[test]
    fn limits_and_exclusion_read_a_player_and_their_numbers_or_period() {
        use floor_events::player::{EntryLimits, ExclusionPeriod};
        let ana = PlayerId::parse("ana").unwrap();
        assert_eq!(
            Action::parse("limits", &fields("player=ana&per_day=2&per_week=5&per_month=")),
            Ok(Action::Limits { player: ana.clone(), limits: EntryLimits { per_day: Some(2), per_week: Some(5), per_month: None } })
        );
        assert_eq!(Action::parse("limits", &fields("player=ana&per_day=two")).unwrap_err().field, "per_day");
        assert_eq!(
            Action::parse("exclude", &fields("player=ana&period=one_week")),
            Ok(Action::Exclude { player: ana, period: ExclusionPeriod::OneWeek })
        );
        assert_eq!(Action::parse("exclude", &fields("player=ana&period=forever")).unwrap_err().field, "period");
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
