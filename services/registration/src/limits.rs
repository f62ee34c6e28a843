//! The player aggregate: responsible-gaming tournament-count limits (002 §2.3).
//!
//! A tournament counts once, at the player's first accepted entry; re-entries into a tournament
//! already counted never hit a limit, so a tournament entered before a limit was reached can be
//! finished.
//!
//! How the limits count depends on the tournament's rulebook, which the service puts in the
//! command ([`PlayerCommand::CountUnder`]):
//!
//! - `svenska-spel-2012` (002 §2.3 T-2.2, T-2.4): "Gränserna ska sättas per dag, kalendervecka
//!   och kalendermånad": a calendar day, an ISO calendar week (Monday to Sunday) and a calendar
//!   month, in Swedish time (Europe/Stockholm). "Gränsen per dag kan ändras nedåt med omedelbar
//!   verkan och uppåt med verkan först nästföljande dag" (and the same for the week and the
//!   month): a lowered limit applies at once, a raised one (or one lifted) from the start of the
//!   next period of its kind. And "Innan en Kund tillåts delta i en turnering måste han också
//!   sätta gränser": a player whose day, week and month limits are not all set is refused
//!   ([`LimitError::NotSet`]).
//! - Every other profile: rolling windows (24 h, 7 days, 30 days before the registration), a
//!   change applies at once, and a player without limits is not checked.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use chrono_tz::Europe::Stockholm;
use esrs::Aggregate;
use floor_events::codes;
use floor_events::player::*;
use floor_events::{subjects, PlayerId, RuleProfile, TournamentId};
use std::collections::HashMap;

/// The player aggregate.
pub struct PlayerAggregate;

/// What the player aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerCommand {
    /// Set the player's own limits.
    SetLimits {
        /// Who.
        player: PlayerId,
        /// The limits.
        limits: EntryLimits,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Count a tournament the player is entering (no-op when already counted).
    Count {
        /// Who.
        player: PlayerId,
        /// Which tournament.
        tournament_id: TournamentId,
        /// Now.
        at: DateTime<Utc>,
    },
    /// As [`PlayerCommand::Count`], for a tournament run under `profile`: the service adds the
    /// tournament's rulebook to the saga's count ([`PlayerCommand::under`]).
    CountUnder {
        /// Who.
        player: PlayerId,
        /// Which tournament.
        tournament_id: TournamentId,
        /// Now.
        at: DateTime<Utc>,
        /// The tournament's rulebook.
        profile: RuleProfile,
    },
    /// The player shuts themselves out of every tournament for `period` (002 §2.3).
    Exclude {
        /// Who.
        player: PlayerId,
        /// For how long.
        period: floor_events::player::ExclusionPeriod,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Undo a count whose registration failed (no-op when not counted).
    Uncount {
        /// Who.
        player: PlayerId,
        /// Which tournament.
        tournament_id: TournamentId,
        /// Now.
        at: DateTime<Utc>,
    },
}

impl PlayerCommand {
    /// This command for a tournament run under `profile`: a [`PlayerCommand::Count`] becomes a
    /// [`PlayerCommand::CountUnder`]; any other command is returned as it is.
    pub fn under(self, profile: RuleProfile) -> Self {
        match self {
            PlayerCommand::Count { player, tournament_id, at } => PlayerCommand::CountUnder { player, tournament_id, at, profile },
            other => other,
        }
    }
}

/// Whether `profile` counts limits per calendar period in Swedish time, defers raises to the next
/// period and requires limits before a tournament (002 §2.3 T-2.2, T-2.4).
pub fn calendar_limits(profile: RuleProfile) -> bool {
    profile == RuleProfile::SvenskaSpel2012
}

/// Why the player aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// A window's limit is reached.
    #[error("{player} has reached the limit they set: {count} tournaments per {window}")]
    Reached {
        /// Who.
        player: PlayerId,
        /// "day", "week" or "month".
        window: &'static str,
        /// Tournaments counted in the window.
        count: u32,
    },
    /// The rulebook requires limits per day, week and month before a tournament (002 §2.3
    /// T-2.2), and the player has not set them all.
    #[error("{player} has not set limits on tournaments per day, calendar week and calendar month, which the rulebook requires before a tournament")]
    NotSet {
        /// Who.
        player: PlayerId,
    },
    /// Longer windows must allow at least as much as shorter ones.
    #[error("limits must not decrease from day to week to month")]
    Decreasing,
    /// The player shut themselves out until then (002 §2.3).
    #[error("{player} has excluded themselves from tournaments until {until}")]
    Excluded {
        /// Who.
        player: PlayerId,
        /// Until when.
        until: DateTime<Utc>,
    },
    /// A new exclusion would end no later than the one in force (nobody shortens one).
    #[error("{player} is excluded until {until} already: an exclusion is never shortened")]
    AlreadyExcluded {
        /// Who.
        player: PlayerId,
        /// Until when.
        until: DateTime<Utc>,
    },
    /// An exclusion past the calendar's end.
    #[error("an exclusion from {0} for that period ends past the calendar's end")]
    OutOfRange(DateTime<Utc>),
}

impl floor_runtime::DomainError for LimitError {
    fn code(&self) -> &'static str {
        match self {
            LimitError::Reached { .. } => codes::ENTRY_LIMIT_REACHED,
            LimitError::NotSet { .. } => codes::LIMITS_NOT_SET,
            LimitError::Decreasing => codes::INVALID_LIMITS,
            LimitError::Excluded { .. } => codes::SELF_EXCLUDED,
            LimitError::AlreadyExcluded { .. } => codes::ALREADY_EXCLUDED,
            LimitError::OutOfRange(_) => codes::INVALID_FIELD,
        }
    }
}

/// The player's limits and counted tournaments.
#[derive(Debug, Clone, Default)]
pub struct PlayerState {
    /// The limits last set (in force at once under rolling windows).
    pub limits: EntryLimits,
    /// Every change of limits, in order: when, and what was set (for raises that wait for the
    /// next calendar period).
    pub changes: Vec<(DateTime<Utc>, EntryLimits)>,
    /// Tournament → when it was counted.
    pub counted: HashMap<TournamentId, DateTime<Utc>>,
    /// Excluded by their own choice until then (002 §2.3).
    pub excluded_until: Option<DateTime<Utc>>,
}

/// A calendar period of 002 §2.3: a day, an ISO week (Monday to Sunday), a month.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Period {
    Day,
    Week,
    Month,
}

impl Period {
    /// The first day (in Swedish time) of the period of this kind that holds `at`.
    fn start(self, at: DateTime<Utc>) -> NaiveDate {
        let day = at.with_timezone(&Stockholm).date_naive();
        match self {
            Period::Day => day,
            Period::Week => day - Duration::days(i64::from(day.weekday().num_days_from_monday())),
            Period::Month => day.with_day(1).expect("every month has a first day"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Week => "calendar week",
            Period::Month => "calendar month",
        }
    }

    fn of(self, limits: &EntryLimits) -> Option<u32> {
        match self {
            Period::Day => limits.per_day,
            Period::Week => limits.per_week,
            Period::Month => limits.per_month,
        }
    }
}

/// Whether `new` allows more than `old` (`None` is no limit).
fn raises(old: Option<u32>, new: Option<u32>) -> bool {
    match (old, new) {
        (_, None) => old.is_some(),
        (None, Some(_)) => false,
        (Some(old), Some(new)) => new > old,
    }
}

impl PlayerState {
    fn counted_since(&self, since: DateTime<Utc>) -> u32 {
        self.counted.values().filter(|&&t| t > since).count() as u32
    }

    /// Tournaments counted in the calendar period of kind `period` that holds `at`.
    fn counted_in(&self, period: Period, at: DateTime<Utc>) -> u32 {
        let start = period.start(at);
        self.counted.values().filter(|&&t| period.start(t) == start).count() as u32
    }

    /// The limit of kind `period` in force at `at` under 002 §2.3 T-2.4: each change lowering
    /// the limit then in force applies at once; one raising it applies from the next period of
    /// its kind ("uppåt med verkan först nästföljande dag / kalendervecka / kalendermånad").
    fn calendar_limit(&self, period: Period, at: DateTime<Utc>) -> Option<u32> {
        let now = period.start(at);
        let mut in_force = None;
        for (changed, limits) in self.changes.iter().filter(|(changed, _)| *changed <= at) {
            let new = period.of(limits);
            if !raises(in_force, new) || period.start(*changed) < now {
                in_force = new;
            }
        }
        in_force
    }

    /// Whether day, week and month limits are all set (002 §2.3 T-2.2).
    fn all_set(&self) -> bool {
        let EntryLimits { per_day, per_week, per_month } = self.limits;
        per_day.is_some() && per_week.is_some() && per_month.is_some()
    }
}

impl Aggregate for PlayerAggregate {
    const NAME: &'static str = subjects::aggregate::PLAYER;
    type State = PlayerState;
    type Command = PlayerCommand;
    type Event = PlayerEvent;
    type Error = LimitError;

    fn handle_command(state: &PlayerState, command: PlayerCommand) -> Result<Vec<PlayerEvent>, LimitError> {
        match command {
            PlayerCommand::SetLimits { player, limits, at } => {
                let steps = [limits.per_day, limits.per_week, limits.per_month];
                let mut previous = None;
                for limit in steps.into_iter().flatten() {
                    if previous.is_some_and(|p| limit < p) {
                        return Err(LimitError::Decreasing);
                    }
                    previous = Some(limit);
                }
                Ok(vec![PlayerEvent::PlayerLimitsSet(PlayerLimitsSet { player, limits, at })])
            }
            PlayerCommand::Exclude { player, period, at } => {
                let until = period.until(at).ok_or(LimitError::OutOfRange(at))?;
                if let Some(current) = state.excluded_until.filter(|current| *current >= until) {
                    return Err(LimitError::AlreadyExcluded { player, until: current });
                }
                Ok(vec![PlayerEvent::PlayerExcluded(PlayerExcluded { player, period, until, at })])
            }
            // 002 §2.3: excluded "från allt pokerspel", every tournament and every entry into one
            // (a re-entry too), whatever the tournament's rulebook; what they entered before
            // plays on.
            PlayerCommand::Count { player, at, .. } | PlayerCommand::CountUnder { player, at, .. }
                if state.excluded_until.is_some_and(|until| at < until) =>
            {
                Err(LimitError::Excluded { player, until: state.excluded_until.expect("checked") })
            }
            PlayerCommand::CountUnder { player, tournament_id, at, profile } if calendar_limits(profile) => {
                if state.counted.contains_key(&tournament_id) {
                    return Ok(vec![]);
                }
                if !state.all_set() {
                    return Err(LimitError::NotSet { player });
                }
                for period in [Period::Day, Period::Week, Period::Month] {
                    let count = state.counted_in(period, at);
                    if state.calendar_limit(period, at).is_some_and(|limit| count >= limit) {
                        return Err(LimitError::Reached { player, window: period.name(), count });
                    }
                }
                Ok(vec![PlayerEvent::TournamentCounted(TournamentCounted { player, tournament_id, at })])
            }
            PlayerCommand::Count { player, tournament_id, at } | PlayerCommand::CountUnder { player, tournament_id, at, .. } => {
                if state.counted.contains_key(&tournament_id) {
                    return Ok(vec![]);
                }
                let windows = [
                    ("day", Duration::days(1), state.limits.per_day),
                    ("week", Duration::days(7), state.limits.per_week),
                    ("month", Duration::days(30), state.limits.per_month),
                ];
                for (window, length, limit) in windows {
                    let count = state.counted_since(at - length);
                    if limit.is_some_and(|limit| count >= limit) {
                        return Err(LimitError::Reached { player, window, count });
                    }
                }
                Ok(vec![PlayerEvent::TournamentCounted(TournamentCounted { player, tournament_id, at })])
            }
            PlayerCommand::Uncount { player, tournament_id, at } => {
                if !state.counted.contains_key(&tournament_id) {
                    return Ok(vec![]);
                }
                Ok(vec![PlayerEvent::TournamentUncounted(TournamentUncounted { player, tournament_id, at })])
            }
        }
    }

    fn apply_event(mut state: PlayerState, event: PlayerEvent) -> PlayerState {
        match event {
            PlayerEvent::PlayerLimitsSet(e) => {
                state.limits = e.limits;
                state.changes.push((e.at, e.limits));
            }
            PlayerEvent::TournamentCounted(e) => {
                state.counted.insert(e.tournament_id, e.at);
            }
            PlayerEvent::TournamentUncounted(e) => {
                state.counted.remove(&e.tournament_id);
            }
            PlayerEvent::PlayerExcluded(e) => {
                state.excluded_until = state.excluded_until.max(Some(e.until));
            }
        }
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_runtime::spec::given;

    fn p() -> PlayerId {
        PlayerId::parse("vera").unwrap()
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn limits(per_day: u32) -> PlayerEvent {
        PlayerEvent::PlayerLimitsSet(PlayerLimitsSet {
            player: p(),
            limits: EntryLimits { per_day: Some(per_day), ..Default::default() },
            at: at("2026-12-01T00:00:00Z"),
        })
    }

    fn counted(t: TournamentId, when: &str) -> PlayerEvent {
        PlayerEvent::TournamentCounted(TournamentCounted { player: p(), tournament_id: t, at: at(when) })
    }

    #[test]
    fn a_daily_limit_refuses_the_next_tournament_for_24_hours() {
        // 002 §2.3: the player's own limit on tournaments per day.
        let (first, second) = (TournamentId::new(), TournamentId::new());
        let history = vec![limits(1), counted(first, "2026-12-01T20:00:00Z")];
        let count = |when: &str| PlayerCommand::Count { player: p(), tournament_id: second, at: at(when) };
        given::<PlayerAggregate>(history.clone()).when(count("2026-12-02T19:59:00Z")).then_reject(codes::ENTRY_LIMIT_REACHED);
        given::<PlayerAggregate>(history).when(count("2026-12-02T20:00:01Z")).then(vec![counted(second, "2026-12-02T20:00:01Z")]);
    }

    #[test]
    fn a_tournament_already_entered_can_be_finished_at_the_limit() {
        // 002 §2.3: a tournament entered before the limit was hit may be finished (re-entries
        // into it count nothing new).
        let first = TournamentId::new();
        let history = vec![limits(1), counted(first, "2026-12-01T20:00:00Z")];
        given::<PlayerAggregate>(history)
            .when(PlayerCommand::Count { player: p(), tournament_id: first, at: at("2026-12-01T21:00:00Z") })
            .then(vec![]);
    }

    #[test]
    fn limits_must_not_shrink_from_day_to_month() {
        let limits = EntryLimits { per_day: Some(5), per_week: Some(3), per_month: None };
        given::<PlayerAggregate>(vec![])
            .when(PlayerCommand::SetLimits { player: p(), limits, at: at("2026-12-01T00:00:00Z") })
            .then_reject(codes::INVALID_LIMITS);
    }

    #[test]
    fn releasing_a_count_frees_the_place() {
        let first = TournamentId::new();
        let history = vec![
            limits(1),
            counted(first, "2026-12-01T20:00:00Z"),
            PlayerEvent::TournamentUncounted(TournamentUncounted { player: p(), tournament_id: first, at: at("2026-12-01T20:00:01Z") }),
        ];
        given::<PlayerAggregate>(history)
            .when(PlayerCommand::Count { player: p(), tournament_id: TournamentId::new(), at: at("2026-12-01T21:00:00Z") })
            .accepted();
    }

    // 002 §2.3 T-2.2, T-2.4 (issue 38): svenska-spel-2012 counts calendar periods in Swedish
    // time, defers raises and requires limits. December in Stockholm is UTC+1.

    fn set(limits: EntryLimits, when: &str) -> PlayerEvent {
        PlayerEvent::PlayerLimitsSet(PlayerLimitsSet { player: p(), limits, at: at(when) })
    }

    fn all(per_day: u32, per_week: u32, per_month: u32) -> EntryLimits {
        EntryLimits { per_day: Some(per_day), per_week: Some(per_week), per_month: Some(per_month) }
    }

    fn svenska(t: TournamentId, when: &str) -> PlayerCommand {
        PlayerCommand::Count { player: p(), tournament_id: t, at: at(when) }.under(RuleProfile::SvenskaSpel2012)
    }

    fn fold(history: Vec<PlayerEvent>) -> PlayerState {
        history.into_iter().fold(PlayerState::default(), PlayerAggregate::apply_event)
    }

    #[test]
    fn given_svenska_spel_when_entries_fall_on_sunday_2330_and_monday_0030_then_they_count_in_different_days_and_weeks() {
        // "Gränserna ska sättas per dag, kalendervecka och kalendermånad": Sunday 6 December
        // 23:30 and Monday 7 December 00:30 in Stockholm are one hour apart but in two calendar
        // days and two ISO weeks, so one tournament a day and a week allows both.
        let (sunday, monday) = (TournamentId::new(), TournamentId::new());
        let history = vec![set(all(1, 1, 10), "2026-12-01T00:00:00Z"), counted(sunday, "2026-12-06T22:30:00Z")];
        given::<PlayerAggregate>(history.clone())
            .when(svenska(monday, "2026-12-06T23:30:00Z"))
            .then(vec![counted(monday, "2026-12-06T23:30:00Z")]);
        // The rolling 24 h and 7 days of other profiles refuse it.
        given::<PlayerAggregate>(history.clone())
            .when(PlayerCommand::Count { player: p(), tournament_id: monday, at: at("2026-12-06T23:30:00Z") }.under(RuleProfile::Tda2024))
            .then_reject(codes::ENTRY_LIMIT_REACHED);
        // Sunday 23:59 Stockholm is still Sunday's day and week.
        given::<PlayerAggregate>(history).when(svenska(monday, "2026-12-06T22:59:00Z")).then_reject(codes::ENTRY_LIMIT_REACHED);
    }

    #[test]
    fn given_svenska_spel_when_the_monthly_limit_is_raised_on_the_15th_then_it_applies_from_the_1st_of_the_next_month() {
        // "Gränsen per kalendermånad kan ändras nedåt med omedelbar verkan och uppåt med verkan
        // först nästföljande kalendermånad."
        let history = vec![
            set(all(1, 2, 2), "2026-12-01T00:00:00Z"),
            counted(TournamentId::new(), "2026-12-02T18:00:00Z"),
            counted(TournamentId::new(), "2026-12-09T18:00:00Z"),
            set(all(1, 2, 5), "2026-12-15T12:00:00Z"),
        ];
        let next = TournamentId::new();
        given::<PlayerAggregate>(history.clone()).when(svenska(next, "2026-12-16T18:00:00Z")).then_reject(codes::ENTRY_LIMIT_REACHED);
        let state = fold(history.clone());
        // 31 December 23:59 and 1 January 00:00 in Stockholm.
        assert_eq!(state.calendar_limit(Period::Month, at("2026-12-31T22:59:00Z")), Some(2));
        assert_eq!(state.calendar_limit(Period::Month, at("2026-12-31T23:00:00Z")), Some(5));
        // In January a third tournament fits the raised limit (the old one allowed two).
        let january =
            [history, vec![counted(TournamentId::new(), "2027-01-01T18:00:00Z"), counted(TournamentId::new(), "2027-01-04T18:00:00Z")]]
                .concat();
        given::<PlayerAggregate>(january).when(svenska(next, "2027-01-11T18:00:00Z")).then(vec![counted(next, "2027-01-11T18:00:00Z")]);
    }

    #[test]
    fn given_svenska_spel_when_a_limit_is_lowered_then_it_applies_at_once() {
        // "Gränsen per dag kan ändras nedåt med omedelbar verkan".
        let history = vec![
            set(all(3, 5, 10), "2026-12-01T00:00:00Z"),
            counted(TournamentId::new(), "2026-12-15T09:00:00Z"),
            set(all(1, 5, 10), "2026-12-15T11:00:00Z"),
        ];
        given::<PlayerAggregate>(history)
            .when(svenska(TournamentId::new(), "2026-12-15T12:00:00Z"))
            .then_reject(codes::ENTRY_LIMIT_REACHED);
    }

    #[test]
    fn given_svenska_spel_raised_daily_and_weekly_limits_wait_for_the_next_day_and_the_next_monday() {
        // "... uppåt med verkan först nästföljande dag" and "... nästföljande kalendervecka".
        // Raised on Wednesday 9 December at noon, Stockholm.
        let state = fold(vec![set(all(1, 2, 10), "2026-12-01T00:00:00Z"), set(all(2, 4, 10), "2026-12-09T11:00:00Z")]);
        assert_eq!(state.calendar_limit(Period::Day, at("2026-12-09T22:59:00Z")), Some(1));
        assert_eq!(state.calendar_limit(Period::Day, at("2026-12-09T23:00:00Z")), Some(2));
        assert_eq!(state.calendar_limit(Period::Week, at("2026-12-13T22:59:00Z")), Some(2), "Sunday 23:59");
        assert_eq!(state.calendar_limit(Period::Week, at("2026-12-13T23:00:00Z")), Some(4), "Monday 00:00");
        // A lift is a raise: not before the next day.
        let lifted = fold(vec![set(all(1, 2, 10), "2026-12-01T00:00:00Z"), set(EntryLimits::default(), "2026-12-09T11:00:00Z")]);
        assert_eq!(lifted.calendar_limit(Period::Day, at("2026-12-09T12:00:00Z")), Some(1));
        assert_eq!(lifted.calendar_limit(Period::Day, at("2026-12-09T23:00:00Z")), None);
    }

    #[test]
    fn given_svenska_spel_a_player_without_limits_per_day_week_and_month_is_refused() {
        // "Innan en Kund tillåts delta i en turnering måste han också sätta gränser för hur många
        // turneringar han ska få delta i."
        given::<PlayerAggregate>(vec![]).when(svenska(TournamentId::new(), "2026-12-15T12:00:00Z")).then_reject(codes::LIMITS_NOT_SET);
        given::<PlayerAggregate>(vec![limits(1)])
            .when(svenska(TournamentId::new(), "2026-12-15T12:00:00Z"))
            .then_reject(codes::LIMITS_NOT_SET);
        // Other rulebooks do not require them.
        given::<PlayerAggregate>(vec![])
            .when(
                PlayerCommand::Count { player: p(), tournament_id: TournamentId::new(), at: at("2026-12-15T12:00:00Z") }
                    .under(RuleProfile::Tda2024),
            )
            .accepted();
    }

    #[test]
    fn given_another_profile_a_raise_applies_at_once() {
        let history = vec![limits(1), counted(TournamentId::new(), "2026-12-15T09:00:00Z"), limits(2)];
        given::<PlayerAggregate>(history)
            .when(
                PlayerCommand::Count { player: p(), tournament_id: TournamentId::new(), at: at("2026-12-15T12:00:00Z") }
                    .under(RuleProfile::Win2day),
            )
            .accepted();
    }

    fn excluded(period: ExclusionPeriod, when: &str, until: &str) -> PlayerEvent {
        PlayerEvent::PlayerExcluded(PlayerExcluded { player: p(), period, until: at(until), at: at(when) })
    }

    /// 002 §2.3: "frivilligt och med omedelbar verkan stänga av sig själv från allt pokerspel
    /// … i tolv timmar, en vecka, en månad, tre månader, sex månader eller ett år. En frivillig
    /// avstängning … kan inte hävas av vare sig Kunden eller Svenska Spel före
    /// avstängningsperiodens utgång." Given a player excluded for twelve hours at noon, when
    /// they enter a tournament (under any rulebook, a re-entry too) before midnight, then
    /// `self_excluded`; at midnight they may. A shorter exclusion changes nothing
    /// (`already_excluded`); a longer one extends it; a month is a calendar month.
    #[test]
    fn a_self_excluded_player_is_refused_every_tournament_until_the_period_ends() {
        let t = TournamentId::new();
        given::<PlayerAggregate>(vec![])
            .when(PlayerCommand::Exclude { player: p(), period: ExclusionPeriod::TwelveHours, at: at("2026-12-15T12:00:00Z") })
            .then(vec![excluded(ExclusionPeriod::TwelveHours, "2026-12-15T12:00:00Z", "2026-12-16T00:00:00Z")]);
        let history = vec![
            counted(t, "2026-12-15T10:00:00Z"),
            excluded(ExclusionPeriod::TwelveHours, "2026-12-15T12:00:00Z", "2026-12-16T00:00:00Z"),
        ];
        let count = |t, when: &str, profile| PlayerCommand::Count { player: p(), tournament_id: t, at: at(when) }.under(profile);
        for profile in [RuleProfile::Tda2024, RuleProfile::SvenskaSpel2012, RuleProfile::Win2day] {
            given::<PlayerAggregate>(history.clone())
                .when(count(TournamentId::new(), "2026-12-15T23:59:59Z", profile))
                .then_reject(codes::SELF_EXCLUDED);
            given::<PlayerAggregate>(history.clone()).when(count(t, "2026-12-15T13:00:00Z", profile)).then_reject(codes::SELF_EXCLUDED);
        }
        given::<PlayerAggregate>(history.clone()).when(count(TournamentId::new(), "2026-12-16T00:00:00Z", RuleProfile::Tda2024)).accepted();
        // Never shortened; extended by a longer one.
        given::<PlayerAggregate>(history.clone())
            .when(PlayerCommand::Exclude { player: p(), period: ExclusionPeriod::TwelveHours, at: at("2026-12-15T11:59:00Z") })
            .then_reject(codes::ALREADY_EXCLUDED);
        given::<PlayerAggregate>(history)
            .when(PlayerCommand::Exclude { player: p(), period: ExclusionPeriod::OneMonth, at: at("2026-12-15T18:00:00Z") })
            .then(vec![excluded(ExclusionPeriod::OneMonth, "2026-12-15T18:00:00Z", "2027-01-15T18:00:00Z")]);
        assert_eq!(ExclusionPeriod::OneYear.until(at("2028-02-29T12:00:00Z")), Some(at("2029-02-28T12:00:00Z")));
    }
}
