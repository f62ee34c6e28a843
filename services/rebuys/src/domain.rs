//! The rebuys aggregate: one per tournament (`floor.ev.rebuys.<tournament>`). Pure: the time and
//! the player's stack come in the commands.
//!
//! The periods, in order: before the start nothing can be bought; from the start the rebuy
//! period (rebuys under the tournament's condition, at most `max_per_entry` per entry); when it
//! ends, the add-on break (one add-on per entry still in, even at zero chips: 002 §2.3); then
//! nothing. A stack that reaches zero during the rebuy period is offered a rebuy until a deadline
//! (000 §16.7, 002 §2.6); the entry is out when the player declines, the offer lapses, or the
//! period ends. With an add-on, a player still at zero when the rebuy period ends may take the
//! add-on instead, until the break ends.
//!
//! After the end (issue 33): a cancellation (before the start or in play) or the tournament's
//! end closes buying for good (`purchases_closed`), and a suspension of play holds it until
//! the resume (`play_suspended`, `play_resumed`): the policy tells the aggregate, and the
//! decider refuses every rebuy, add-on and decline then, with its own code and no event.

use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::rebuys::{ClosedCause, Forgone, RebuyEvent};
use floor_events::tournament::{AddOnTerms, RebuyTerms};
use floor_events::{codes, subjects, EntryNo, PlayerId, TournamentId};
use std::collections::BTreeMap;

/// The rebuys aggregate.
pub struct RebuysAggregate;

/// Which entry a player means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Who {
    /// The player.
    pub player: PlayerId,
    /// The entry, when the player holds several.
    pub entry: Option<EntryNo>,
}

/// What the rebuys aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RebuyCommand {
    /// The tournament's terms (at creation).
    Configure {
        /// The tournament.
        tournament_id: TournamentId,
        /// Rebuy terms.
        rebuy: Option<RebuyTerms>,
        /// Add-on terms.
        add_on: Option<AddOnTerms>,
    },
    /// An entry is in play.
    Join {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
    },
    /// The tournament started: the rebuy period opens.
    Open {
        /// When.
        at: DateTime<Utc>,
    },
    /// A stack reached zero at its table and seating keeps the seat: offer a rebuy, or say at
    /// once why there is none.
    Bust {
        /// The entry.
        entry: EntryNo,
        /// When seating recorded it.
        at: DateTime<Utc>,
    },
    /// The entry was eliminated.
    Out {
        /// The entry.
        entry: EntryNo,
    },
    /// A player buys a rebuy.
    Rebuy {
        /// Who.
        who: Who,
        /// The entry's chips between hands, as seating last knew them (the "at or below"
        /// condition); absent when unknown.
        stack: Option<u64>,
        /// Now.
        at: DateTime<Utc>,
    },
    /// A player declines the rebuy (or the add-on while at zero chips): the entry is out.
    Decline {
        /// Who.
        who: Who,
    },
    /// The tournament was suspended from `suspended_at` to `resumed_at` (issue 22: an offer's
    /// time stops while play does). Every offer still open is made again with the time it had
    /// left at the suspension (an offer made during it, its whole time) from the resume.
    Extend {
        /// When play stopped.
        suspended_at: DateTime<Utc>,
        /// When it started again.
        resumed_at: DateTime<Utc>,
    },
    /// An offer's deadline passed.
    Lapse {
        /// The entry.
        entry: EntryNo,
        /// The deadline that passed (a later offer of the same entry is another deadline).
        until: DateTime<Utc>,
    },
    /// The rebuy period ends (the clock's break, or the director).
    EndRebuys {
        /// When.
        at: DateTime<Utc>,
    },
    /// A player buys the add-on.
    AddOn {
        /// Who.
        who: Who,
        /// Now.
        at: DateTime<Utc>,
    },
    /// The add-on break ends (the next level starts, or the director).
    EndAddOns {
        /// When.
        at: DateTime<Utc>,
    },
    /// The tournament was cancelled or is over: nothing more can be bought, for good.
    Close {
        /// Cancelled or finished.
        cause: ClosedCause,
        /// When it was cancelled or ended.
        at: DateTime<Utc>,
    },
    /// Play is suspended: nothing can be bought until the resume ([`RebuyCommand::Extend`]).
    Suspend {
        /// When play stopped.
        at: DateTime<Utc>,
    },
}

/// Why the rebuys aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RebuyError {
    /// No such tournament (not configured).
    #[error("no tournament with rebuys or an add-on here")]
    UnknownTournament,
    /// The tournament has no rebuys / no add-on.
    #[error("this tournament has no {0}")]
    NotOffered(&'static str),
    /// Not in the rebuy period.
    #[error("the rebuy period is not open")]
    PeriodClosed,
    /// The entry used every rebuy.
    #[error("entry {0} has taken all {1} rebuys")]
    CapReached(EntryNo, u32),
    /// The stack does not allow a rebuy now.
    #[error("entry {0} may not rebuy now: {1}")]
    NotAllowed(EntryNo, String),
    /// The add-on is not open.
    #[error("the add-on is not open")]
    AddOnClosed,
    /// The add-on was taken.
    #[error("entry {0} has taken its add-on")]
    AddOnTaken(EntryNo),
    /// The player has no live entry here.
    #[error("{0} has no live entry in this tournament")]
    NotRegistered(PlayerId),
    /// The player must say which entry.
    #[error("{0} holds several live entries: name one")]
    Ambiguous(PlayerId),
    /// The tournament was cancelled or is over: nothing more can be bought (issue 33).
    #[error("the tournament is {}: nothing more can be bought", match .0 { ClosedCause::Cancelled => "cancelled", ClosedCause::Finished => "over" })]
    Closed(ClosedCause),
    /// Play is suspended: nothing can be bought until it resumes (issue 33).
    #[error("play is suspended: nothing can be bought until it resumes")]
    Suspended,
}

impl floor_runtime::DomainError for RebuyError {
    fn code(&self) -> &'static str {
        match self {
            Self::UnknownTournament => codes::UNKNOWN_TOURNAMENT,
            Self::NotOffered(_) => codes::NOT_OFFERED,
            Self::PeriodClosed => codes::REBUY_PERIOD_CLOSED,
            Self::CapReached(..) => codes::REBUY_CAP_REACHED,
            Self::NotAllowed(..) => codes::REBUY_NOT_ALLOWED,
            Self::AddOnClosed => codes::ADD_ON_CLOSED,
            Self::AddOnTaken(_) => codes::ADD_ON_TAKEN,
            Self::NotRegistered(_) => codes::NOT_REGISTERED,
            Self::Ambiguous(_) => codes::ENTRY_AMBIGUOUS,
            Self::Closed(ClosedCause::Cancelled) => codes::TOURNAMENT_CANCELLED,
            Self::Closed(ClosedCause::Finished) => codes::TOURNAMENT_FINISHED,
            Self::Suspended => codes::TOURNAMENT_SUSPENDED,
        }
    }
}

/// Where the tournament is in its buying periods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Period {
    /// Before the start.
    #[default]
    NotStarted,
    /// Rebuys allowed.
    Rebuys,
    /// The add-on break.
    AddOns,
    /// Nothing more to buy.
    Over,
}

/// One entry, as rebuys sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Whose.
    pub player: PlayerId,
    /// Rebuys taken.
    pub rebuys: u32,
    /// Add-on taken.
    pub add_on: bool,
    /// At zero chips, waiting for a decision.
    pub at_zero: bool,
    /// The rebuy offer's deadline, while one is open.
    pub offer_until: Option<DateTime<Utc>>,
}

/// Rebuys, folded from events.
#[derive(Debug, Clone, Default)]
pub struct RebuyState {
    /// The tournament.
    pub tournament_id: Option<TournamentId>,
    /// Rebuy terms.
    pub rebuy: Option<RebuyTerms>,
    /// Add-on terms.
    pub add_on: Option<AddOnTerms>,
    /// The period.
    pub period: Period,
    /// Live entries.
    pub entries: BTreeMap<EntryNo, Entry>,
    /// Cancelled or over: nothing more can be bought (issue 33).
    pub closed: Option<ClosedCause>,
    /// Play is suspended (issue 33).
    pub suspended: bool,
}

impl RebuyState {
    /// Whether a player may buy or decline now: not after the end, not while play is
    /// suspended.
    ///
    /// # Errors
    /// `Closed` after a cancellation or the end; `Suspended` during a suspension.
    fn buying(&self) -> Result<(), RebuyError> {
        self.not_closed()?;
        if self.suspended {
            return Err(RebuyError::Suspended);
        }
        Ok(())
    }

    /// Not cancelled, not over.
    ///
    /// # Errors
    /// `Closed` after a cancellation or the end.
    fn not_closed(&self) -> Result<(), RebuyError> {
        self.closed.map_or(Ok(()), |cause| Err(RebuyError::Closed(cause)))
    }

    /// The live entry a player means.
    fn entry_of(&self, who: &Who) -> Result<(EntryNo, &Entry), RebuyError> {
        let mut theirs = self.entries.iter().filter(|(no, e)| e.player == who.player && who.entry.is_none_or(|w| w == **no));
        match (theirs.next(), theirs.next()) {
            (Some((&no, e)), None) => Ok((no, e)),
            (Some(_), Some(_)) => Err(RebuyError::Ambiguous(who.player.clone())),
            (None, _) => Err(RebuyError::NotRegistered(who.player.clone())),
        }
    }
}

impl Aggregate for RebuysAggregate {
    const NAME: &'static str = subjects::aggregate::REBUYS;
    type State = RebuyState;
    type Command = RebuyCommand;
    type Event = RebuyEvent;
    type Error = RebuyError;

    fn handle_command(state: &RebuyState, command: RebuyCommand) -> Result<Vec<RebuyEvent>, RebuyError> {
        use RebuyCommand::*;
        if let Configure { tournament_id, rebuy, add_on } = command {
            return Ok(if state.tournament_id.is_some() {
                vec![]
            } else {
                vec![RebuyEvent::RebuysConfigured { tournament_id, rebuy, add_on }]
            });
        }
        if state.tournament_id.is_none() {
            return Err(RebuyError::UnknownTournament);
        }
        match command {
            Configure { .. } => unreachable!("handled above"),
            Join { entry, player } => {
                Ok(if state.entries.contains_key(&entry) { vec![] } else { vec![RebuyEvent::EntryJoined { entry, player }] })
            }
            Open { at } => Ok(if state.period == Period::NotStarted { vec![RebuyEvent::RebuyPeriodOpened { at }] } else { vec![] }),
            Bust { entry, at } => Ok(bust(state, entry, at)),
            Out { entry } => Ok(if state.entries.contains_key(&entry) { vec![RebuyEvent::EntryOut { entry }] } else { vec![] }),
            Rebuy { who, stack, at } => {
                state.buying()?;
                rebuy(state, &who, stack, at)
            }
            Decline { who } => {
                state.buying()?;
                let (entry, e) = state.entry_of(&who)?;
                if !e.at_zero {
                    return Err(RebuyError::NotAllowed(entry, "there is nothing to decline: the entry has chips".into()));
                }
                Ok(vec![RebuyEvent::RebuyForgone { entry, reason: Forgone::Declined }])
            }
            // No offer lapses while play stands still or after the end: nobody is out then.
            Lapse { .. } if state.buying().is_err() => Ok(vec![]),
            Lapse { entry, until } => Ok(match state.entries.get(&entry) {
                Some(e) if e.at_zero && e.offer_until == Some(until) => vec![RebuyEvent::RebuyForgone { entry, reason: Forgone::Lapsed }],
                _ => vec![],
            }),
            EndRebuys { at } => {
                state.not_closed()?;
                end_rebuys(state, at)
            }
            AddOn { who, at } => {
                state.buying()?;
                add_on(state, &who, at)
            }
            EndAddOns { at } => {
                state.not_closed()?;
                Ok(end_add_ons(state, at))
            }
            Extend { suspended_at, resumed_at } => Ok(extend(state, suspended_at, resumed_at)),
            Close { cause, at } => Ok(if state.closed.is_some() { vec![] } else { vec![RebuyEvent::PurchasesClosed { cause, at }] }),
            Suspend { at } => Ok(if state.buying().is_ok() { vec![RebuyEvent::PlaySuspended { at }] } else { vec![] }),
        }
    }

    fn apply_event(mut state: RebuyState, event: RebuyEvent) -> RebuyState {
        use RebuyEvent::*;
        match event {
            RebuysConfigured { tournament_id, rebuy, add_on } => {
                state.tournament_id = Some(tournament_id);
                state.rebuy = rebuy;
                state.add_on = add_on;
            }
            EntryJoined { entry, player } => {
                state.entries.insert(entry, Entry { player, rebuys: 0, add_on: false, at_zero: false, offer_until: None });
            }
            RebuyPeriodOpened { .. } => state.period = Period::Rebuys,
            RebuyOffered { entry, until, .. } => {
                if let Some(e) = state.entries.get_mut(&entry) {
                    e.at_zero = true;
                    e.offer_until = Some(until);
                }
            }
            RebuyTaken { entry, number, .. } => {
                if let Some(e) = state.entries.get_mut(&entry) {
                    e.rebuys = number;
                    e.at_zero = false;
                    e.offer_until = None;
                }
            }
            RebuyForgone { entry, .. } => {
                if let Some(e) = state.entries.get_mut(&entry) {
                    e.at_zero = false;
                    e.offer_until = None;
                }
            }
            EntryOut { entry } => {
                state.entries.remove(&entry);
            }
            RebuyPeriodEnded { add_on_open, .. } => {
                state.period = if add_on_open { Period::AddOns } else { Period::Over };
                for e in state.entries.values_mut() {
                    e.offer_until = None;
                }
            }
            AddOnTaken { entry, .. } => {
                if let Some(e) = state.entries.get_mut(&entry) {
                    e.add_on = true;
                    e.at_zero = false;
                }
            }
            AddOnsClosed { .. } => state.period = Period::Over,
            PurchasesClosed { cause, .. } => {
                state.closed = Some(cause);
                state.suspended = false;
                for e in state.entries.values_mut() {
                    e.offer_until = None;
                }
            }
            PlaySuspended { .. } => state.suspended = true,
            PlayResumed { .. } => state.suspended = false,
        }
        state
    }
}

/// The resume of play: buying opens again (`play_resumed`, when the suspension was recorded),
/// and every offer open across the suspension is made again with the time it had left when
/// play stopped (at most the offer's whole time), counted from the resume. An offer whose
/// deadline had passed before the suspension is left to lapse.
fn extend(state: &RebuyState, suspended_at: DateTime<Utc>, resumed_at: DateTime<Utc>) -> Vec<RebuyEvent> {
    if state.closed.is_some() {
        return vec![];
    }
    let mut events = offers_again(state, suspended_at, resumed_at);
    if state.suspended {
        events.push(RebuyEvent::PlayResumed { at: resumed_at });
    }
    events
}

fn offers_again(state: &RebuyState, suspended_at: DateTime<Utc>, resumed_at: DateTime<Utc>) -> Vec<RebuyEvent> {
    let Some(terms) = state.rebuy.filter(|_| state.period == Period::Rebuys && resumed_at > suspended_at) else { return vec![] };
    let whole = Duration::seconds(i64::from(terms.offer_seconds));
    state
        .entries
        .iter()
        .filter(|(_, e)| e.at_zero)
        .filter_map(|(&entry, e)| {
            let until = e.offer_until.filter(|until| *until > suspended_at)?;
            let later = resumed_at + (until - suspended_at).min(whole);
            (later > until).then(|| RebuyEvent::RebuyOffered { entry, player: e.player.clone(), until: later, taken: e.rebuys })
        })
        .collect()
}

/// A stack reached zero and seating holds the seat: an offer, or the reason there is none.
/// After the end nothing is offered and nobody is out (no table plays on).
fn bust(state: &RebuyState, entry: EntryNo, at: DateTime<Utc>) -> Vec<RebuyEvent> {
    let Some(e) = state.entries.get(&entry) else { return vec![] };
    if e.at_zero || state.closed.is_some() {
        return vec![];
    }
    let forgone = |reason| vec![RebuyEvent::RebuyForgone { entry, reason }];
    match state.rebuy {
        Some(terms) if state.period == Period::Rebuys && e.rebuys >= terms.max_per_entry => forgone(Forgone::CapReached),
        Some(terms) if state.period == Period::Rebuys => vec![RebuyEvent::RebuyOffered {
            entry,
            player: e.player.clone(),
            until: at + Duration::seconds(i64::from(terms.offer_seconds)),
            taken: e.rebuys,
        }],
        _ => forgone(Forgone::PeriodOver),
    }
}

fn rebuy(state: &RebuyState, who: &Who, stack: Option<u64>, at: DateTime<Utc>) -> Result<Vec<RebuyEvent>, RebuyError> {
    let terms = state.rebuy.ok_or(RebuyError::NotOffered("rebuys"))?;
    if state.period != Period::Rebuys {
        return Err(RebuyError::PeriodClosed);
    }
    let (entry, e) = state.entry_of(who)?;
    if e.rebuys >= terms.max_per_entry {
        return Err(RebuyError::CapReached(entry, terms.max_per_entry));
    }
    // At zero, the offer is the permission; otherwise the stack between hands must be within
    // the condition (003's "chips ≤ X"); 002 allows only the first.
    if !e.at_zero {
        match stack {
            Some(0) => return Err(RebuyError::NotAllowed(entry, "its stack reached zero and the offer is not open yet".into())),
            Some(chips) if terms.allows(chips) => {}
            Some(chips) => return Err(RebuyError::NotAllowed(entry, format!("{chips} chips is above what the rebuy condition allows"))),
            None => return Err(RebuyError::NotAllowed(entry, "the entry's stack is not known yet".into())),
        }
    }
    Ok(vec![RebuyEvent::RebuyTaken {
        entry,
        player: e.player.clone(),
        number: e.rebuys + 1,
        chips: terms.chips,
        ledger: terms.ledger(),
        at,
    }])
}

/// The rebuy period ends. Open offers end with it, unless an add-on follows: then a player at
/// zero may still come back with the add-on during the break (002).
fn end_rebuys(state: &RebuyState, at: DateTime<Utc>) -> Result<Vec<RebuyEvent>, RebuyError> {
    match state.period {
        // Before the start there is no period to end (and the field is not known yet).
        Period::NotStarted => return Err(RebuyError::PeriodClosed),
        Period::Rebuys => {}
        Period::AddOns | Period::Over => return Ok(vec![]),
    }
    let add_on_open = state.add_on.is_some();
    let mut events = vec![RebuyEvent::RebuyPeriodEnded { at, add_on_open }];
    if !add_on_open {
        events.extend(forgo_all_at_zero(state));
    }
    Ok(events)
}

fn end_add_ons(state: &RebuyState, at: DateTime<Utc>) -> Vec<RebuyEvent> {
    if state.period != Period::AddOns {
        return vec![];
    }
    let mut events = vec![RebuyEvent::AddOnsClosed { at }];
    events.extend(forgo_all_at_zero(state));
    events
}

fn forgo_all_at_zero(state: &RebuyState) -> impl Iterator<Item = RebuyEvent> + '_ {
    state.entries.iter().filter(|(_, e)| e.at_zero).map(|(&entry, _)| RebuyEvent::RebuyForgone { entry, reason: Forgone::PeriodOver })
}

fn add_on(state: &RebuyState, who: &Who, at: DateTime<Utc>) -> Result<Vec<RebuyEvent>, RebuyError> {
    let terms = state.add_on.ok_or(RebuyError::NotOffered("add-on"))?;
    if state.period != Period::AddOns {
        return Err(RebuyError::AddOnClosed);
    }
    let (entry, e) = state.entry_of(who)?;
    if e.add_on {
        return Err(RebuyError::AddOnTaken(entry));
    }
    Ok(vec![RebuyEvent::AddOnTaken { entry, player: e.player.clone(), chips: terms.chips, ledger: terms.ledger(), at }])
}
