//! A director's action on one tournament, read from the console's form: which command it is,
//! with which fields, and what it did in words.

use super::form::{invalid, Fields, FormError};
use floor_events::{EntryNo, PlayerId};

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

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(body: &str) -> Fields {
        Fields::parse(body.as_bytes()).unwrap()
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
}
