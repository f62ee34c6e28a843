//! The tournament list's query: filters by state and format, the order, and pages. Pure: the
//! instant a late registration is judged at comes in as an argument.

use crate::document::{LobbyDocument, LobbyState};
use chrono::{DateTime, Utc};
use floor_events::tournament::EntryModel;

/// Tournaments on a page when the request does not say.
pub const DEFAULT_PER_PAGE: u32 = 25;
/// The most tournaments on one page.
pub const MAX_PER_PAGE: u32 = 100;

/// A list query the lobby cannot answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// `state` is not one of the filters.
    #[error("state must be one of registering, late_registration, running, finished, cancelled; got {0:?}")]
    UnknownState(String),
    /// `format` is not one of the formats.
    #[error("format must be one of sit_and_go, scheduled, freezeout, re_entry, multi_entry, rebuy, bounty; got {0:?}")]
    UnknownFormat(String),
    /// `page` or `per_page` is not a number from 1 (`per_page` at most [`MAX_PER_PAGE`]).
    #[error("{0} must be a whole number from 1{1}; got {2:?}")]
    BadNumber(&'static str, &'static str, String),
}

impl QueryError {
    /// The stable error code (every query error is an invalid field).
    pub fn code(&self) -> &'static str {
        floor_events::codes::INVALID_FIELD
    }
}

/// Which tournaments by where they stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateFilter {
    /// Announced, not started.
    Registering,
    /// Started, and players can still enter.
    LateRegistration,
    /// Started (late registration open or not).
    Running,
    /// Over.
    Finished,
    /// Cancelled before the start.
    Cancelled,
}

impl StateFilter {
    /// Every filter, in the order the list page offers them.
    pub const ALL: [StateFilter; 5] = [Self::Registering, Self::LateRegistration, Self::Running, Self::Finished, Self::Cancelled];

    /// The name in URLs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Registering => "registering",
            Self::LateRegistration => "late_registration",
            Self::Running => "running",
            Self::Finished => "finished",
            Self::Cancelled => "cancelled",
        }
    }

    /// The label players read.
    pub fn label(self) -> &'static str {
        match self {
            Self::Registering => "Registering",
            Self::LateRegistration => "Late registration",
            Self::Running => "Running",
            Self::Finished => "Finished",
            Self::Cancelled => "Cancelled",
        }
    }

    /// Whether `doc` passes, judged at `now`.
    pub fn matches(self, doc: &LobbyDocument, now: DateTime<Utc>) -> bool {
        match self {
            Self::Registering => doc.state == LobbyState::Registering,
            Self::LateRegistration => late_registration_open(doc, now),
            Self::Running => doc.state == LobbyState::Running,
            Self::Finished => doc.state == LobbyState::Finished,
            Self::Cancelled => doc.state == LobbyState::Cancelled,
        }
    }
}

impl std::str::FromStr for StateFilter {
    type Err = QueryError;
    fn from_str(s: &str) -> Result<Self, QueryError> {
        Self::ALL.into_iter().find(|f| f.as_str() == s).ok_or_else(|| QueryError::UnknownState(crate::respond::echoed(s)))
    }
}

/// A started tournament players can still enter: before its registration deadline, and the
/// clock has not closed late registration (at the end of the structure's late-registration
/// level).
pub fn late_registration_open(doc: &LobbyDocument, now: DateTime<Utc>) -> bool {
    doc.state == LobbyState::Running
        && doc.registration_deadline.is_some_and(|deadline| now < deadline)
        && !doc.clock.as_ref().is_some_and(|c| c.late_registration_closed)
}

/// A tournament's formats (a tournament has several: a scheduled re-entry with bounties).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Starts when its seats fill.
    SitAndGo,
    /// Starts at a time.
    Scheduled,
    /// One entry per player.
    Freezeout,
    /// A new entry after elimination.
    ReEntry,
    /// Several live entries at once.
    MultiEntry,
    /// Rebuys or an add-on.
    Rebuy,
    /// Bounties on players' heads (any kind).
    Bounty,
}

impl Format {
    /// Every format, in the order the list page offers them.
    pub const ALL: [Format; 7] =
        [Self::SitAndGo, Self::Scheduled, Self::Freezeout, Self::ReEntry, Self::MultiEntry, Self::Rebuy, Self::Bounty];

    /// The name in URLs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SitAndGo => "sit_and_go",
            Self::Scheduled => "scheduled",
            Self::Freezeout => "freezeout",
            Self::ReEntry => "re_entry",
            Self::MultiEntry => "multi_entry",
            Self::Rebuy => "rebuy",
            Self::Bounty => "bounty",
        }
    }

    /// The label players read.
    pub fn label(self) -> &'static str {
        match self {
            Self::SitAndGo => "Sit & go",
            Self::Scheduled => "Scheduled",
            Self::Freezeout => "Freezeout",
            Self::ReEntry => "Re-entry",
            Self::MultiEntry => "Multi-entry",
            Self::Rebuy => "Rebuy",
            Self::Bounty => "Bounty",
        }
    }

    /// Whether `doc` has this format.
    pub fn matches(self, doc: &LobbyDocument) -> bool {
        match self {
            Self::SitAndGo => doc.sit_and_go,
            Self::Scheduled => !doc.sit_and_go,
            Self::Freezeout => doc.entry_model == EntryModel::Freezeout,
            Self::ReEntry => matches!(doc.entry_model, EntryModel::ReEntry { .. }),
            Self::MultiEntry => matches!(doc.entry_model, EntryModel::MultiEntry { .. }),
            Self::Rebuy => doc.rebuys.is_some(),
            Self::Bounty => doc.bounties.is_some(),
        }
    }
}

impl std::str::FromStr for Format {
    type Err = QueryError;
    fn from_str(s: &str) -> Result<Self, QueryError> {
        Self::ALL.into_iter().find(|f| f.as_str() == s).ok_or_else(|| QueryError::UnknownFormat(crate::respond::echoed(s)))
    }
}

/// A list query, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query {
    /// Only tournaments in this state.
    pub state: Option<StateFilter>,
    /// Only tournaments of this format.
    pub format: Option<Format>,
    /// Page number, from 1.
    pub page: u32,
    /// Tournaments per page, 1 to [`MAX_PER_PAGE`].
    pub per_page: u32,
}

impl Default for Query {
    fn default() -> Self {
        Self { state: None, format: None, page: 1, per_page: DEFAULT_PER_PAGE }
    }
}

impl Query {
    /// Parses the URL's parameters; an empty value is the same as none.
    ///
    /// # Errors
    /// [`QueryError`] for an unknown state or format, or a page or page size that is not a
    /// whole number in range.
    pub fn parse(state: Option<&str>, format: Option<&str>, page: Option<&str>, per_page: Option<&str>) -> Result<Self, QueryError> {
        fn given(v: Option<&str>) -> Option<&str> {
            v.map(str::trim).filter(|v| !v.is_empty())
        }
        let number = |name: &'static str, bound: &'static str, max: u32, v: &str| {
            v.parse::<u32>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| QueryError::BadNumber(name, bound, crate::respond::echoed(v)))
        };
        Ok(Self {
            state: given(state).map(str::parse).transpose()?,
            format: given(format).map(str::parse).transpose()?,
            page: given(page).map(|v| number("page", "", u32::MAX, v)).transpose()?.unwrap_or(1),
            per_page: given(per_page).map(|v| number("per_page", " to 100", MAX_PER_PAGE, v)).transpose()?.unwrap_or(DEFAULT_PER_PAGE),
        })
    }

    /// Whether `doc` passes the filters at `now`.
    pub fn matches(&self, doc: &LobbyDocument, now: DateTime<Utc>) -> bool {
        self.state.is_none_or(|s| s.matches(doc, now)) && self.format.is_none_or(|f| f.matches(doc))
    }

    /// The URL query of this one with another page (`state`, `format`, `page`, `per_page`).
    pub fn to_url_query(&self, page: u32) -> String {
        let mut parts = Vec::new();
        if let Some(state) = self.state {
            parts.push(format!("state={}", state.as_str()));
        }
        if let Some(format) = self.format {
            parts.push(format!("format={}", format.as_str()));
        }
        parts.push(format!("page={page}"));
        parts.push(format!("per_page={}", self.per_page));
        parts.join("&")
    }
}

/// Running first, then registering, finished and cancelled; within each, by start (a sit & go by
/// when registration opened), then name and id, so pages never shuffle between two requests.
pub fn order(a: &LobbyDocument, b: &LobbyDocument) -> std::cmp::Ordering {
    let rank = |d: &LobbyDocument| match d.state {
        LobbyState::Running => 0,
        LobbyState::Registering => 1,
        LobbyState::Finished => 2,
        LobbyState::Cancelled => 3,
    };
    let start = |d: &LobbyDocument| d.start.unwrap_or(d.registration_opens);
    (rank(a), start(a), &a.name, a.tournament_id.0).cmp(&(rank(b), start(b), &b.name, b.tournament_id.0))
}

/// One page of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    /// The page's items.
    pub items: Vec<T>,
    /// Its number, from 1.
    pub page: u32,
    /// Items per page.
    pub per_page: u32,
    /// Items on all pages.
    pub total: usize,
    /// Pages in all (at least 1: an empty list has one empty page).
    pub pages: u32,
}

impl<T> Page<T> {
    /// Page `page` of `items`, `per_page` a page; a page past the last is empty.
    pub fn of(items: Vec<T>, page: u32, per_page: u32) -> Self {
        let total = items.len();
        let per = per_page.max(1) as usize;
        let pages = u32::try_from(total.div_ceil(per).max(1)).unwrap_or(u32::MAX);
        let skip = (page.max(1) as usize - 1).saturating_mul(per);
        let items = items.into_iter().skip(skip).take(per).collect();
        Self { items, page: page.max(1), per_page: per_page.max(1), total, pages }
    }

    /// The next page's number, if there is one.
    pub fn next(&self) -> Option<u32> {
        (self.page < self.pages).then(|| self.page + 1)
    }

    /// The previous page's number, if there is one.
    pub fn previous(&self) -> Option<u32> {
        (self.page > 1).then(|| (self.page - 1).min(self.pages))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_query_takes_its_defaults_and_refuses_what_it_cannot_read() {
        assert_eq!(Query::parse(None, Some(""), None, None), Ok(Query::default()));
        let q = Query::parse(Some("late_registration"), Some("bounty"), Some("3"), Some("10")).unwrap();
        assert_eq!((q.state, q.format, q.page, q.per_page), (Some(StateFilter::LateRegistration), Some(Format::Bounty), 3, 10));
        assert_eq!(q.to_url_query(4), "state=late_registration&format=bounty&page=4&per_page=10");
        let refused = [
            Query::parse(Some("open"), None, None, None),
            Query::parse(None, Some("omaha"), None, None),
            Query::parse(None, None, Some("0"), None),
            Query::parse(None, None, Some("-1"), None),
            Query::parse(None, None, None, Some("101")),
            Query::parse(None, None, None, Some("many")),
        ];
        for r in refused {
            assert_eq!(r.map_err(|e| e.code()), Err(floor_events::codes::INVALID_FIELD));
        }
    }

    fn doc(state: LobbyState, deadline: Option<&str>) -> LobbyDocument {
        let definition: floor_events::tournament::TournamentDefinition = serde_json::from_value(serde_json::json!({
            "name": "Daily", "start": {"at": "2027-01-10T18:00:00Z"}, "table_size": 9, "starting_stack": 10000,
            "buy_in": {"amount": 1000, "currency": "EUR"}, "fee": {"on_top": {"amount": 100, "currency": "EUR"}},
            "capacity": 100, "min_players": 2, "entry_model": {"kind": "re_entry", "max_entries": 3}, "profile": "tda-2024",
        }))
        .unwrap();
        let at = "2027-01-01T00:00:00Z".parse().unwrap();
        let mut doc = LobbyDocument::created(floor_events::TournamentId::new(), &definition, at, 1);
        doc.state = state;
        doc.registration_deadline = deadline.map(|d| d.parse().unwrap());
        doc
    }

    #[test]
    fn late_registration_is_a_running_tournament_before_its_deadline_whose_clock_has_not_closed_it() {
        let now: DateTime<Utc> = "2027-01-10T19:00:00Z".parse().unwrap();
        let open = doc(LobbyState::Running, Some("2027-01-10T20:00:00Z"));
        let past = doc(LobbyState::Running, Some("2027-01-10T18:30:00Z"));
        let not_started = doc(LobbyState::Registering, Some("2027-01-10T20:00:00Z"));
        let mut closed_by_the_clock = open.clone();
        closed_by_the_clock.clock = Some(crate::document::clock::LobbyClock {
            late_registration_closed: true,
            ..crate::document::clock::LobbyClock::new(crate::document::clock::no_structure())
        });
        let late = StateFilter::LateRegistration;
        assert!(late.matches(&open, now));
        assert!(!late.matches(&past, now), "after the deadline");
        assert!(!late.matches(&not_started, now), "not started: registering, not late");
        assert!(!late.matches(&closed_by_the_clock, now), "the clock closed it at its level");
        assert!(StateFilter::Running.matches(&past, now), "running either way");
        let re_entry = Query { format: Some(Format::ReEntry), ..Query::default() };
        assert!(re_entry.matches(&open, now) && !Query { format: Some(Format::Freezeout), ..re_entry }.matches(&open, now));
        assert!(Format::Scheduled.matches(&open) && !Format::SitAndGo.matches(&open) && !Format::Bounty.matches(&open));
    }

    #[test]
    fn seven_items_three_a_page_make_three_pages_the_last_with_one() {
        let items: Vec<u32> = (1..=7).collect();
        let last = Page::of(items.clone(), 3, 3);
        assert_eq!((last.items.clone(), last.pages, last.next(), last.previous()), (vec![7], 3, None, Some(2)));
        let first = Page::of(items.clone(), 1, 3);
        assert_eq!((first.items.clone(), first.next()), (vec![1, 2, 3], Some(2)));
        let past = Page::of(items, 9, 3);
        assert!(past.items.is_empty());
        assert_eq!(Page::<u32>::of(vec![], 1, 25).pages, 1, "an empty list is one empty page");
    }

    proptest! {
        /// Walking the pages from 1 to `pages` gives every item once, in order.
        #[test]
        fn the_pages_hold_every_item_once(n in 0usize..300, per_page in 1u32..=MAX_PER_PAGE) {
            let items: Vec<usize> = (0..n).collect();
            let first = Page::of(items.clone(), 1, per_page);
            let mut walked = Vec::new();
            for page in 1..=first.pages {
                let p = Page::of(items.clone(), page, per_page);
                prop_assert!(p.items.len() <= per_page as usize);
                prop_assert_eq!(p.total, n);
                walked.extend(p.items);
            }
            prop_assert_eq!(walked, items);
        }
    }
}
