//! The tournament aggregate: the decider for definitions and entries.
//!
//! Pure: time arrives in each command (`at`), stamped by the service when the command arrives.
//! Guards first, then the events.
//!
//! While play is suspended (issue 35) registration holds: the policy records the abort
//! service's suspension and resume in this log (`play_suspended`, `play_resumed`, as rebuys
//! does in its own), and `register` and `unregister` are refused with `tournament_suspended`
//! until the resume, unless a resume would change nothing (registration closed for good, an
//! unregister after the start): those are answered as without the suspension, as they are
//! after a cancellation in play.

use crate::satellite;
pub use crate::satellite::TargetFacts;
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::codes;
use floor_events::registration::*;
use floor_events::satellites::TicketRef;
use floor_events::text::{self, TextError};
use floor_events::tournament::{DefinitionError, EntryLedger, EntryModel, Start, TournamentDefinition};
use floor_events::{subjects, EntryNo, Money, PlayerId, TournamentId};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The name under which a tournament's snapshots are stored: change it whenever
/// [`TournamentState`]'s shape or meaning changes (an old snapshot is then ignored and the
/// tournament folded from its first commit).
pub const SNAPSHOT_VERSION: &str = "registration-2";

/// The tournament aggregate.
pub struct TournamentAggregate;

/// What the tournament aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TournamentCommand {
    /// Create the tournament.
    Create {
        /// Its id.
        tournament_id: TournamentId,
        /// Its definition.
        definition: Box<TournamentDefinition>,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Create a satellite (issue 36): as [`TournamentCommand::Create`], with what the service
    /// read of its target (`None`: no such tournament). A satellite created with `Create`
    /// names no target facts, and is refused as for an unknown target.
    CreateSatellite {
        /// Its id.
        tournament_id: TournamentId,
        /// Its definition, with a satellite section.
        definition: Box<TournamentDefinition>,
        /// The target's facts, read from its log by the service.
        target: Option<TargetFacts>,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Enter a player.
    Register {
        /// Who.
        player: PlayerId,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Enter a player paid by a satellite's ticket (issue 36): refused as
    /// [`TournamentCommand::Register`], and when the ticket is worth another amount than an
    /// entry costs or already paid an entry here.
    RegisterWithTicket {
        /// Who.
        player: PlayerId,
        /// The ticket that pays.
        ticket: TicketRef,
        /// What the ticket is worth.
        value: Money,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Withdraw a player's entry before the start.
    Unregister {
        /// Who.
        player: PlayerId,
        /// Which entry; `None`: the latest live one.
        entry: Option<EntryNo>,
        /// Now.
        at: DateTime<Utc>,
    },
    /// A Day 1 survivor's stack comes to this Day 2 (issue 36, 004 §4.36.11–13): a new entry
    /// paid by its Day 1, or the player's carried entry changed by the carry rule.
    RegisterCarried {
        /// Who.
        player: PlayerId,
        /// The Day 1.
        day1: TournamentId,
        /// The entry there.
        day1_entry: EntryNo,
        /// Its chips at the Day 1's stop.
        chips: u64,
        /// The Day 1's carry rule.
        carry: floor_events::flights::Carry,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Operator refusal (001 Art. 20).
    RefusePlayer {
        /// Who.
        player: PlayerId,
        /// Why.
        reason: String,
        /// Now.
        at: DateTime<Utc>,
    },
    /// At most one of these players may enter (001 Art. 20).
    KeepApart {
        /// The group.
        players: Vec<PlayerId>,
        /// Now.
        at: DateTime<Utc>,
    },
    /// A tournament with an equal prize reached its stop as payouts ranked it (issues 36/37,
    /// the payouts service's `stop_shared`): `tournament_finished` with the first survivor as
    /// winner and `shared_by` the survivors in this order.
    StopShared {
        /// The entries sharing the equal prize, the winner first.
        survivors: Vec<EntryNo>,
        /// A deal agreed to end the tournament (000 §16.8, 004 §4.35): any tournament.
        deal: bool,
        /// Now.
        at: DateTime<Utc>,
    },
    /// An entry is out.
    EliminateEntry {
        /// The entry.
        entry: EntryNo,
        /// Now.
        at: DateTime<Utc>,
    },
    /// The start time came: start, or cancel and refund below the minimum. With `now`, the
    /// director starts it before its time (below the minimum that is refused, not cancelled:
    /// the tournament keeps its time and its entries).
    Start {
        /// Now.
        at: DateTime<Utc>,
        /// Start before the start time.
        now: bool,
    },
    /// Registration closes now (registration's policy, from the clock's end of the
    /// late-registration level or a cancellation in play). Closing a closed registration stores
    /// nothing.
    CloseRegistration {
        /// Why.
        cause: RegistrationCloseCause,
        /// Now.
        at: DateTime<Utc>,
    },
    /// The director cancels before the start; every entry is refunded.
    Cancel {
        /// Why.
        reason: String,
        /// Now.
        at: DateTime<Utc>,
    },
    /// Play is suspended (registration's policy, from the abort service's `suspended`): no
    /// entry is sold or refunded until [`TournamentCommand::Resume`]. Stores nothing when
    /// suspended already or finished.
    Suspend {
        /// When play was suspended.
        at: DateTime<Utc>,
    },
    /// Play resumes (the abort service's `resumed`). Stores nothing when not suspended.
    Resume {
        /// When play resumed.
        at: DateTime<Utc>,
    },
    /// Stores nothing, and is refused with `tournament_suspended` when a registration at `at`
    /// would be for the suspension: the service asks before it counts a registration against
    /// the player's limits, so a held registration leaves the counts untouched (and the same
    /// command id, sent again after the resume, counts then).
    CheckHold {
        /// Now.
        at: DateTime<Utc>,
    },
}

/// Why the tournament aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistrationError {
    /// The tournament does not exist.
    #[error("no such tournament")]
    UnknownTournament,
    /// Creating it twice.
    #[error("a tournament with this id already exists")]
    TournamentExists,
    /// The definition breaks a rule.
    #[error("invalid definition: {0}")]
    InvalidDefinition(DefinitionError),
    /// Before registration opens.
    #[error("registration opens at {0}")]
    NotOpen(DateTime<Utc>),
    /// After registration (and late registration) closed.
    #[error("registration is closed")]
    Closed,
    /// Every entry is taken.
    #[error("the field is full ({0} entries)")]
    FieldFull(u32),
    /// Second entry where the model allows none now.
    #[error("{0} already has a live entry")]
    AlreadyRegistered(PlayerId),
    /// Freezeout: no new entry after elimination.
    #[error("{0} was eliminated and this tournament has no re-entry")]
    NoReEntry(PlayerId),
    /// Re-entry cap.
    #[error("{0} has used all {1} entries")]
    ReEntryCap(PlayerId, u32),
    /// Multi-entry cap.
    #[error("{0} already holds {1} live entries")]
    MultiEntryCap(PlayerId, u32),
    /// Profile makes registrations final.
    #[error("registrations are final under profile {0}")]
    UnregisterNotAllowed(&'static str),
    /// Only before the start.
    #[error("the tournament has started")]
    Started,
    /// Player has no live entry.
    #[error("{0} has no live entry here")]
    NotRegistered(PlayerId),
    /// No such entry.
    #[error("no entry {0}")]
    UnknownEntry(EntryNo),
    /// Already out.
    #[error("entry {0} is already eliminated")]
    AlreadyEliminated(EntryNo),
    /// Operator refused this player.
    #[error("the operator refused {0} for this tournament")]
    Refused(PlayerId),
    /// Kept apart from someone who entered.
    #[error("{0} is kept apart from {1}, who has entered")]
    KeptApart(PlayerId, PlayerId),
    /// A keep-apart group needs two different players.
    #[error("keep apart needs at least two different players")]
    BadGroup,
    /// The tournament was cancelled.
    #[error("the tournament was cancelled")]
    Cancelled,
    /// The tournament is over: nothing more is sold.
    #[error("the tournament is finished")]
    Finished,
    /// Play is suspended: no entry is sold or refunded until it resumes (issue 35).
    #[error("play is suspended: registration holds until the director resumes")]
    Suspended,
    /// Starting before the start time.
    #[error("the tournament starts at {0}")]
    TooEarly(DateTime<Utc>),
    /// A sit & go starts itself.
    #[error("a sit & go starts when its last seat is filled")]
    StartsWhenFull,
    /// Started early below the minimum of entries.
    #[error("{entries} entries cannot start: the minimum is {min_players}")]
    TooFewEntries {
        /// Live entries.
        entries: u32,
        /// The minimum.
        min_players: u32,
    },
    /// A reason that is too long, holds a control character, or is missing where required.
    #[error("{0}")]
    Text(TextError),
    /// A satellite's target does not exist (issue 36).
    #[error("the satellite's target {0} does not exist")]
    UnknownTarget(TournamentId),
    /// A satellite's target has started, finished or been cancelled.
    #[error("the satellite's target {0} {1}: no seat can be won for it")]
    TargetNotOpen(TournamentId, &'static str),
    /// A flight's Day 2 does not exist (issue 36): `unknown_target`.
    #[error("the Day 2 {0} does not exist")]
    UnknownDay2(TournamentId),
    /// A flight's Day 2 has started, finished or been cancelled: `target_not_open`.
    #[error("the Day 2 {0} {1}: no Day 1 can feed it")]
    Day2NotOpen(TournamentId, &'static str),
    /// A satellite's seat value is not what an entry to its target costs.
    #[error("the seat value is {seat_value} but an entry to the target {target} costs {entry}")]
    SeatValueMismatch {
        /// The target.
        target: TournamentId,
        /// The satellite's seat value.
        seat_value: Money,
        /// What an entry to the target costs.
        entry: Money,
    },
    /// A step (a satellite of a satellite, or of the top) that costs as much as the tournament
    /// it feeds or more (000 §16.13, 002 §2.3 T-8.2: fees rise with the level):
    /// `satellite_costs_too_much`.
    #[error("an entry to this step costs {step} and one to the step above ({target}) {above}: fees rise with the level (000 §16.13, 002 §2.3 T-8.2)")]
    StepDoesNotRise {
        /// The step above (the target).
        target: TournamentId,
        /// What an entry to the new step costs.
        step: Money,
        /// What an entry to the step above costs.
        above: Money,
    },
    /// A ticket worth another amount than an entry costs.
    #[error("the ticket {ticket} is worth {value} but an entry costs {entry}")]
    TicketValueMismatch {
        /// The ticket.
        ticket: TicketRef,
        /// What it is worth.
        value: Money,
        /// What an entry costs.
        entry: Money,
    },
    /// The ticket already paid an entry of this tournament.
    #[error("the ticket {0} already paid an entry of this tournament")]
    TicketSpent(TicketRef),
    /// A carried Day 1 stack of no chips (issue 36).
    #[error("a carried stack holds chips")]
    NothingCarried,
    /// A player already in another Day 1 of the same Day 2, where the flight allows one Day 1
    /// at a time (issue 36).
    #[error("{0} is still in the Day 1 {1} of this flight: one Day 1 at a time")]
    InAnotherDay1(PlayerId, TournamentId),
    /// A cancel of a Day 2 holding carried stacks: its Day 1s' pools are the abort service's
    /// to pay (issue 36).
    #[error("the Day 2 holds {0} stacks carried from its Day 1s: cancel it with the abort service (`floor tournament cancel`), which pays the Day 1s' pools to them")]
    HoldsCarriedStacks(u32),
    /// A stop shared by survivors for a tournament without an equal prize (issues 36/37).
    #[error("the tournament has no equal prize: it plays to one winner")]
    NoEqualPrize,
    /// A stop shared by no survivor, or naming one twice.
    #[error("survivors: {0}")]
    BadSurvivors(&'static str),
}

impl floor_runtime::DomainError for RegistrationError {
    fn code(&self) -> &'static str {
        use RegistrationError::*;
        match self {
            UnknownTournament => codes::UNKNOWN_TOURNAMENT,
            TournamentExists => codes::TOURNAMENT_EXISTS,
            InvalidDefinition(e) => e.code,
            NotOpen(_) => codes::REGISTRATION_NOT_OPEN,
            Closed => codes::REGISTRATION_CLOSED,
            FieldFull(_) => codes::FIELD_FULL,
            AlreadyRegistered(_) => codes::ALREADY_REGISTERED,
            NoReEntry(_) => codes::RE_ENTRY_NOT_ELIGIBLE,
            ReEntryCap(..) => codes::RE_ENTRY_CAP_REACHED,
            MultiEntryCap(..) => codes::MULTI_ENTRY_CAP_REACHED,
            UnregisterNotAllowed(_) => codes::UNREGISTER_NOT_ALLOWED,
            Started => codes::TOURNAMENT_STARTED,
            NotRegistered(_) => codes::NOT_REGISTERED,
            UnknownEntry(_) => codes::UNKNOWN_ENTRY,
            AlreadyEliminated(_) => codes::ENTRY_ALREADY_ELIMINATED,
            Refused(_) => codes::PLAYER_REFUSED,
            KeptApart(..) | BadGroup => codes::PLAYER_KEPT_APART,
            Cancelled => codes::TOURNAMENT_CANCELLED,
            Finished => codes::TOURNAMENT_FINISHED,
            Suspended => codes::TOURNAMENT_SUSPENDED,
            TooEarly(_) => codes::TOO_EARLY,
            StartsWhenFull => codes::STARTS_WHEN_FULL,
            TooFewEntries { .. } => codes::TOO_FEW_ENTRIES,
            HoldsCarriedStacks(_) => codes::CANCEL_THROUGH_ABORT,
            Text(e) => e.code,
            UnknownTarget(_) | UnknownDay2(_) => codes::UNKNOWN_TARGET,
            TargetNotOpen(..) | Day2NotOpen(..) => codes::TARGET_NOT_OPEN,
            SeatValueMismatch { .. } => codes::SEAT_VALUE_MISMATCH,
            StepDoesNotRise { .. } => codes::SATELLITE_COSTS_TOO_MUCH,
            TicketValueMismatch { .. } => codes::TICKET_VALUE_MISMATCH,
            TicketSpent(_) => codes::TICKET_SPENT,
            NoEqualPrize | BadSurvivors(_) | NothingCarried => codes::INVALID_FIELD,
            InAnotherDay1(..) => codes::IN_ANOTHER_DAY1,
        }
    }
}

/// Where an entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EntryStatus {
    /// In the tournament (or waiting for the start).
    Live,
    /// Out.
    Eliminated,
    /// Withdrawn and refunded; does not count for anything.
    Unregistered,
}

/// One entry as registration knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Whose.
    pub player: PlayerId,
    /// Where it stands.
    pub status: EntryStatus,
    /// What it paid.
    pub ledger: EntryLedger,
    /// The satellite's ticket that paid it (issue 36); `None`: paid in cash. A snapshot from
    /// before the field reads `None`, as no entry was paid by a ticket then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<TicketRef>,
    /// A Day 2 entry carried from Day 1s (issue 36): the Day 1 entries its stack is made of
    /// (empty: an entry bought here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carried: Vec<(TournamentId, EntryNo)>,
    /// A carried entry's stack (0 for an entry bought here: it starts with the starting stack).
    #[serde(default)]
    pub stack: u64,
}

/// The tournament's state, folded from its events. Serialized only for snapshots
/// ([`SNAPSHOT_VERSION`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TournamentState {
    /// Set by `tournament_created`; `None` means the tournament does not exist.
    pub created: Option<Created>,
    /// Entry `n` is at index `n - 1`.
    pub entries: Vec<Entry>,
    /// Each player's entry numbers, in order.
    pub by_player: HashMap<PlayerId, Vec<EntryNo>>,
    /// Entries that count toward capacity (all but unregistered ones).
    pub counted: u32,
    /// Players the operator refused.
    pub refused: HashSet<PlayerId>,
    /// For each player, the others they are kept apart from.
    pub apart: HashMap<PlayerId, Vec<PlayerId>>,
    /// `tournament_started` was recorded (a sit & go's last seat, or the start time with the
    /// minimum met).
    pub start_recorded: bool,
    /// `tournament_cancelled` was recorded.
    pub cancelled: bool,
    /// `registration_closed` was recorded, and why.
    #[serde(default)]
    pub registration_closed: Option<RegistrationCloseCause>,
    /// `tournament_finished` was recorded.
    #[serde(default)]
    pub finished: bool,
    /// `play_suspended` was recorded, and no `play_resumed` since (issue 35). A snapshot from
    /// before the field reads `false`, as its log held no suspension.
    #[serde(default)]
    pub suspended: bool,
    /// Every Day 1 entry whose stack reached this Day 2 (issue 36), forfeited ones included: a
    /// stack is carried once.
    #[serde(default)]
    pub carried_from: HashSet<(TournamentId, EntryNo)>,
}

/// The creation facts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Created {
    /// Id.
    pub tournament_id: TournamentId,
    /// Definition.
    pub definition: TournamentDefinition,
    /// When it was created (registration opens then unless the definition says otherwise).
    pub at: DateTime<Utc>,
}

impl TournamentState {
    fn entry(&self, no: EntryNo) -> Option<&Entry> {
        (no.0 as usize).checked_sub(1).and_then(|i| self.entries.get(i))
    }

    fn entries_of<'a>(&'a self, player: &PlayerId) -> impl Iterator<Item = (EntryNo, &'a Entry)> + 'a {
        self.by_player
            .get(player)
            .into_iter()
            .flatten()
            .filter_map(move |&no| self.entry(no).map(|e| (no, e)))
            .filter(|(_, e)| e.status != EntryStatus::Unregistered)
    }

    /// Whether play has begun at `at`.
    pub fn started(&self, at: DateTime<Utc>) -> bool {
        match self.created.as_ref().map(|c| c.definition.start) {
            Some(Start::At(start)) => at >= start || self.start_recorded,
            Some(Start::SitAndGo) => self.start_recorded,
            None => false,
        }
    }
}

impl Aggregate for TournamentAggregate {
    const NAME: &'static str = subjects::aggregate::TOURNAMENT;
    type State = TournamentState;
    type Command = TournamentCommand;
    type Event = TournamentEvent;
    type Error = RegistrationError;

    fn handle_command(state: &TournamentState, command: TournamentCommand) -> Result<Vec<TournamentEvent>, RegistrationError> {
        use TournamentCommand::*;
        match command {
            Create { tournament_id, definition, at } => return create(state, tournament_id, *definition, None, at),
            CreateSatellite { tournament_id, definition, target, at } => {
                return create(state, tournament_id, *definition, target.as_ref(), at);
            }
            _ => {}
        }
        let Some(created) = &state.created else { return Err(RegistrationError::UnknownTournament) };
        if state.cancelled {
            return Err(RegistrationError::Cancelled);
        }
        let def = &created.definition;
        match command {
            Create { .. } | CreateSatellite { .. } => unreachable!("handled above"),
            Register { player, at } => register(state, created, player, None, at).map(|e| satellite::with_stop(state, def, e, at)),
            RegisterWithTicket { player, ticket, value, at } => {
                register(state, created, player, Some((ticket, value)), at).map(|e| satellite::with_stop(state, def, e, at))
            }
            Unregister { player, entry, at } => unregister(state, created, player, entry, at),
            RegisterCarried { player, day1, day1_entry, chips, carry, at } => {
                register_carried(state, created, player, (day1, day1_entry), chips, carry, at)
            }
            RefusePlayer { player, reason, at } => refuse(state, player, reason, at),
            KeepApart { players, at } => keep_apart(state, players, at),
            // A satellite or a double or nothing that stopped has its winners: no survivor is
            // eliminated after (issue 37: a bigger stack out in the stop's hand keeps its prize).
            // A flight's Day 1 that reached its share has its survivors too (issue 36).
            EliminateEntry { .. } if state.finished && (floor_rules::satellite::equal_prize(def).is_some() || def.flight.is_some()) => {
                Err(RegistrationError::Finished)
            }
            // Two equal prizes or more (issues 36/37): payouts ranks the stop's hand and says who
            // shares (`StopShared`); an elimination only records the entry out.
            EliminateEntry { entry, at } if satellite::stopped_by_payouts(state, def) => eliminate(state, entry, at)
                .map(|events| events.into_iter().filter(|e| !matches!(e, TournamentEvent::TournamentFinished(_))).collect()),
            EliminateEntry { entry, at } => eliminate(state, entry, at).map(|e| satellite::with_stop(state, def, e, at)),
            StopShared { survivors, deal, at } => satellite::stop_shared(state, def, &survivors, deal, at),
            Start { at, now } => start(state, created, at, now).map(|e| satellite::with_stop(state, def, e, at)),
            CloseRegistration { cause, at } => Ok(satellite::with_stop(state, def, close_registration(state, created, cause, at), at)),
            Suspend { at } => {
                Ok(if state.suspended || state.finished { vec![] } else { vec![TournamentEvent::PlaySuspended(PlaySuspended { at })] })
            }
            Resume { at } => Ok(if state.suspended { vec![TournamentEvent::PlayResumed(PlayResumed { at })] } else { vec![] }),
            CheckHold { at } => registration_held(state, created, at).map(|()| vec![]),
            Cancel { reason, at } => {
                text::CANCEL_REASON.check(&reason).map_err(RegistrationError::Text)?;
                if state.started(at) {
                    return Err(RegistrationError::Started);
                }
                // A Day 2's carried stacks hold the Day 1s' pools, which a refund of buy-ins
                // would leave in the books (issue 36): the abort service cancels it.
                let carried = carried_entries(state);
                if carried > 0 {
                    return Err(RegistrationError::HoldsCarriedStacks(carried));
                }
                Ok(vec![cancellation(state, CancellationReason::Director { reason }, at)])
            }
        }
    }

    fn apply_event(mut state: TournamentState, event: TournamentEvent) -> TournamentState {
        match event {
            TournamentEvent::TournamentCreated(e) => {
                state.created = Some(Created { tournament_id: e.tournament_id, definition: e.definition, at: e.at });
            }
            TournamentEvent::EntryRegistered(e) => {
                state.by_player.entry(e.player.clone()).or_default().push(e.entry);
                state.entries.push(Entry {
                    player: e.player,
                    status: EntryStatus::Live,
                    ledger: e.ledger,
                    ticket: e.ticket,
                    carried: vec![],
                    stack: 0,
                });
                state.counted += 1;
            }
            TournamentEvent::EntryCarried(e) => {
                use floor_events::flights::CarryOutcome;
                state.carried_from.insert((e.day1, e.day1_entry));
                if e.outcome == CarryOutcome::Registered {
                    let currency = state.created.as_ref().map_or(floor_events::Currency::EUR, |c| c.definition.buy_in.currency);
                    let nothing = Money::new(0, currency);
                    state.by_player.entry(e.player.clone()).or_default().push(e.entry);
                    state.entries.push(Entry {
                        player: e.player,
                        status: EntryStatus::Live,
                        ledger: EntryLedger { paid_in: nothing, fee: nothing, prize_pool: nothing },
                        ticket: None,
                        carried: vec![(e.day1, e.day1_entry)],
                        stack: e.stack,
                    });
                    state.counted += 1;
                } else if let Some(entry) = (e.entry.0 as usize).checked_sub(1).and_then(|i| state.entries.get_mut(i)) {
                    match e.outcome {
                        CarryOutcome::Replaced { .. } => entry.carried = vec![(e.day1, e.day1_entry)],
                        CarryOutcome::Added => entry.carried.push((e.day1, e.day1_entry)),
                        CarryOutcome::Registered | CarryOutcome::Forfeited => {}
                    }
                    entry.stack = e.stack;
                }
            }
            TournamentEvent::TournamentStarted(_) => state.start_recorded = true,
            TournamentEvent::TournamentCancelled(_) => state.cancelled = true,
            TournamentEvent::TournamentFinished(_) => state.finished = true,
            TournamentEvent::RegistrationClosed(e) => {
                state.registration_closed.get_or_insert(e.cause);
            }
            TournamentEvent::PlaySuspended(_) => state.suspended = true,
            TournamentEvent::PlayResumed(_) => state.suspended = false,
            TournamentEvent::EntryUnregistered(e) => {
                if let Some(entry) = (e.entry.0 as usize).checked_sub(1).and_then(|i| state.entries.get_mut(i)) {
                    entry.status = EntryStatus::Unregistered;
                    state.counted = state.counted.saturating_sub(1);
                }
            }
            TournamentEvent::EntryEliminated(e) => {
                if let Some(entry) = (e.entry.0 as usize).checked_sub(1).and_then(|i| state.entries.get_mut(i)) {
                    entry.status = EntryStatus::Eliminated;
                }
            }
            TournamentEvent::PlayerRefused(e) => {
                state.refused.insert(e.player);
            }
            TournamentEvent::PlayersKeptApart(e) => {
                for p in &e.players {
                    let others = state.apart.entry(p.clone()).or_default();
                    others.extend(e.players.iter().filter(|o| *o != p).cloned());
                }
            }
        }
        state
    }
}

fn create(
    state: &TournamentState,
    tournament_id: TournamentId,
    definition: TournamentDefinition,
    target: Option<&TargetFacts>,
    at: DateTime<Utc>,
) -> Result<Vec<TournamentEvent>, RegistrationError> {
    if state.created.is_some() {
        return Err(RegistrationError::TournamentExists);
    }
    definition.validate().map_err(RegistrationError::InvalidDefinition)?;
    definition.validate_at(at).map_err(RegistrationError::InvalidDefinition)?;
    if let Some(structure) = &definition.structure {
        floor_rules::structure::resolve(structure).map_err(|e| {
            RegistrationError::InvalidDefinition(DefinitionError {
                code: codes::INVALID_STRUCTURE,
                field: "structure",
                message: e.to_string(),
            })
        })?;
    }
    // Issue 36: a satellite's target exists, is open and costs the seat value.
    if let Some(terms) = &definition.satellite {
        satellite::check_target(terms, definition.entry_ledger().paid_in, target, at)?;
    }
    // Issue 36: a flight's Day 2 exists and is open, as a satellite's target.
    if let Some(terms) = &definition.flight {
        satellite::check_day2(terms, target, at)?;
    }
    Ok(vec![TournamentEvent::TournamentCreated(TournamentCreated { tournament_id, definition, at })])
}

/// Spec §2: only inside the registration window, while seats are free, not refused, not kept
/// apart from an entrant, and as the entry model allows. Paid in cash, or by a satellite's
/// `ticket` and what it is worth (issue 36), which must be what an entry costs (in the same
/// currency) and must not have paid another entry here (checked last).
fn register(
    state: &TournamentState,
    created: &Created,
    player: PlayerId,
    ticket: Option<(TicketRef, Money)>,
    at: DateTime<Utc>,
) -> Result<Vec<TournamentEvent>, RegistrationError> {
    registration_held(state, created, at)?;
    let def = &created.definition;
    if state.refused.contains(&player) {
        return Err(RegistrationError::Refused(player));
    }
    if let Some(other) = state.apart.get(&player).into_iter().flatten().find(|o| state.entries_of(o).next().is_some()) {
        return Err(RegistrationError::KeptApart(player, other.clone()));
    }
    let opens = def.registration_opens.unwrap_or(created.at);
    if at < opens {
        return Err(RegistrationError::NotOpen(opens));
    }
    let sit_and_go = def.start == Start::SitAndGo;
    if sit_and_go && state.start_recorded {
        return Err(RegistrationError::FieldFull(def.capacity));
    }
    if state.finished {
        return Err(RegistrationError::Finished);
    }
    // One rule (issue 33, defect 1): closed at the first of the deadline and the recorded close
    // (the end of the late-registration level, a cancellation in play).
    if state.registration_closed.is_some() || def.registration_deadline().is_some_and(|deadline| at >= deadline) {
        return Err(RegistrationError::Closed);
    }
    // Without late registration the field closes at the start, also a start before its time (a
    // director's `now`): payouts locked the prize table then, and an entry after it would pay
    // into no prize.
    if state.start_recorded && !has_late_registration(def) {
        return Err(RegistrationError::Closed);
    }
    // The player's own standing first: "you already have an entry" tells more than "full".
    let kind = entry_kind(state, def, &player, at)?;
    if state.counted >= def.capacity {
        return Err(RegistrationError::FieldFull(def.capacity));
    }
    // The ticket's own refusals after every refusal a cash entry gets: the same answers as
    // `register` wherever the tournament would refuse anyone.
    if let Some((ticket, value)) = ticket {
        let entry = def.entry_ledger().paid_in;
        if value != entry {
            return Err(RegistrationError::TicketValueMismatch { ticket, value, entry });
        }
        if state.entries.iter().any(|e| e.status != EntryStatus::Unregistered && e.ticket == Some(ticket)) {
            return Err(RegistrationError::TicketSpent(ticket));
        }
    }
    let entry = EntryNo(state.entries.len() as u32 + 1);
    let new_player = state.entries_of(&player).next().is_none();
    let mut events = vec![TournamentEvent::EntryRegistered(EntryRegistered {
        entry,
        player,
        kind,
        new_player,
        ledger: def.entry_ledger(),
        at,
        ticket: ticket.map(|(ticket, _)| ticket),
    })];
    if sit_and_go && state.counted + 1 >= def.capacity {
        let entries = live_entries(state) + 1;
        events.push(TournamentEvent::TournamentStarted(TournamentStarted { entries, cause: StartCause::LastSeatFilled, at }));
    }
    Ok(events)
}

/// A Day 1 survivor's stack reaches this Day 2 (issue 36; 004 §4.36.11–13). No buy-in: the money
/// was paid into the Day 1, whose pool goes over whole. The Day 2's own limits hold: not after
/// its draw (`tournament_started`), its deadline or close (`registration_closed`), its capacity
/// for a new player (`field_full`), a player the operator refused. The carry rule
/// ([`floor_rules::flight::carry_onto`]) applies to the player's carried entry; a stack already
/// carried stores nothing.
fn register_carried(
    state: &TournamentState,
    created: &Created,
    player: PlayerId,
    from: (TournamentId, EntryNo),
    chips: u64,
    carry: floor_events::flights::Carry,
    at: DateTime<Utc>,
) -> Result<Vec<TournamentEvent>, RegistrationError> {
    use floor_events::flights::EntryCarried;
    let def = &created.definition;
    if chips == 0 {
        return Err(RegistrationError::NothingCarried);
    }
    if state.finished {
        return Err(RegistrationError::Finished);
    }
    if state.started(at) {
        return Err(RegistrationError::Started);
    }
    if state.registration_closed.is_some() || def.registration_deadline().is_some_and(|deadline| at >= deadline) {
        return Err(RegistrationError::Closed);
    }
    if state.carried_from.contains(&from) {
        return Ok(vec![]);
    }
    let held = state.entries_of(&player).find(|(_, e)| e.status == EntryStatus::Live && !e.carried.is_empty());
    let (outcome, stack) = floor_rules::flight::carry_onto(carry, held.map(|(_, e)| e.stack), chips);
    let entry = match held {
        Some((no, _)) => no,
        None => {
            if state.refused.contains(&player) {
                return Err(RegistrationError::Refused(player));
            }
            if state.counted >= def.capacity {
                return Err(RegistrationError::FieldFull(def.capacity));
            }
            EntryNo(state.entries.len() as u32 + 1)
        }
    };
    let new_player = state.entries_of(&player).next().is_none();
    let (day1, day1_entry) = from;
    Ok(vec![TournamentEvent::EntryCarried(EntryCarried { entry, player, day1, day1_entry, chips, stack, outcome, new_player, at })])
}

fn live_entries(state: &TournamentState) -> u32 {
    state.entries.iter().filter(|e| e.status == EntryStatus::Live).count() as u32
}

/// `Suspended` while play is suspended (issue 35), first, as the endpoint answered before the
/// decider knew of suspensions, unless registration is closed for good: finished, closed, past
/// the deadline, or a sit & go under way. A resume would not open those, and a cancellation in
/// play (which records no `play_resumed`) leaves registration closed: `register` answers them
/// as without the suspension.
fn registration_held(state: &TournamentState, created: &Created, at: DateTime<Utc>) -> Result<(), RegistrationError> {
    let def = &created.definition;
    let closed_for_good = state.finished
        || state.registration_closed.is_some()
        || def.registration_deadline().is_some_and(|deadline| at >= deadline)
        || (def.start == Start::SitAndGo && state.start_recorded);
    if state.suspended && !closed_for_good {
        return Err(RegistrationError::Suspended);
    }
    Ok(())
}

/// Spec §1: a scheduled tournament starts at its time if the minimum is met; otherwise it is
/// cancelled and every entry refunded. A director may start it `now`, before its time, once
/// the minimum is met (below it the early start is refused and the tournament stays as it was).
fn start(state: &TournamentState, created: &Created, at: DateTime<Utc>, now: bool) -> Result<Vec<TournamentEvent>, RegistrationError> {
    let def = &created.definition;
    let Start::At(start) = def.start else { return Err(RegistrationError::StartsWhenFull) };
    if state.start_recorded {
        return Err(RegistrationError::Started);
    }
    let entries = live_entries(state);
    if at < start && !now {
        return Err(RegistrationError::TooEarly(start));
    }
    if at < start && entries < def.min_players {
        return Err(RegistrationError::TooFewEntries { entries, min_players: def.min_players });
    }
    // A Day 2 is never cancelled at its start (issue 36): its field is what its Day 1s
    // carried, whose pools only the abort service pays out; it plays with two entries or more,
    // and with fewer its start waits for the director (a cancel through the abort service).
    let carried = carried_entries(state);
    if carried > 0 && entries < 2 {
        return Err(RegistrationError::TooFewEntries { entries, min_players: 2 });
    }
    if entries < def.min_players && carried == 0 {
        let reason = CancellationReason::BelowMinimum { entries, min_players: def.min_players };
        return Ok(vec![cancellation(state, reason, at)]);
    }
    // 003 App. 1 b ix (a): a guaranteed reel-cz tournament starts only once the stakes paid in
    // come to at least half the guarantee; below it, it is cancelled and refunded (issue 38).
    let paid_in: u64 =
        state.entries.iter().filter(|e| e.status == EntryStatus::Live).fold(0u64, |sum, e| sum.saturating_add(e.ledger.paid_in.amount));
    if let (Some(guarantee), false, 0) =
        (def.guarantee, floor_rules::field::guarantee_requirement_met(def.profile, def.guarantee, paid_in), carried)
    {
        let reason = CancellationReason::GuaranteeNotMet { paid_in: floor_events::Money::new(paid_in, guarantee.currency), guarantee };
        return Ok(vec![cancellation(state, reason, at)]);
    }
    // A shootout trimmed to full first-round tables (issue 37): the last registrants over them
    // are withdrawn first, each refunded in full.
    let mut events = trimmed(state, def, entries, at);
    let entries = entries - events.len() as u32;
    events.push(TournamentEvent::TournamentStarted(TournamentStarted { entries, cause: StartCause::Scheduled, at }));
    Ok(events)
}

/// A shootout with `short_field = "trim"` (issue 37, stated in the lobby before registration):
/// the last registrants over full first-round tables ([`floor_events::shootouts::trimmed`]:
/// the field modulo the table size, none when the field fills no table) are withdrawn at the
/// start and refunded in full, as the operator's (`by_operator`), so the books show each
/// refund and seating draws full tables. 004 §4.36.3 allows uneven tables; trimming is the
/// definition's other choice.
fn trimmed(state: &TournamentState, def: &TournamentDefinition, entries: u32, at: DateTime<Utc>) -> Vec<TournamentEvent> {
    if !def.shootout.as_ref().is_some_and(|t| t.short_field == floor_events::shootouts::ShortField::Trim) {
        return vec![];
    }
    let count = floor_events::shootouts::trimmed(entries, def.table_size) as usize;
    let mut last: Vec<TournamentEvent> = state
        .entries
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, e)| e.status == EntryStatus::Live)
        .take(count)
        .map(|(i, e)| {
            TournamentEvent::EntryUnregistered(EntryUnregistered {
                entry: EntryNo(i as u32 + 1),
                player: e.player.clone(),
                refund: e.ledger,
                by_operator: true,
                player_left: state.entries_of(&e.player).count() == 1,
                at,
            })
        })
        .collect();
    last.reverse();
    last
}

/// Late registration: a scheduled tournament whose deadline comes after its start.
pub(crate) fn has_late_registration(def: &TournamentDefinition) -> bool {
    match def.start {
        Start::At(start) => def.late_registration_until.is_some_and(|until| until > start),
        Start::SitAndGo => false,
    }
}

/// Records the close of registration once, and only where there was something to close: a
/// tournament with late registration (deadline after the start) that has not closed yet. A
/// close before the start (a clock started early) waits for nothing: the start closes the
/// field of a tournament without late registration, and the deadline still refuses entries.
fn close_registration(
    state: &TournamentState,
    created: &Created,
    cause: RegistrationCloseCause,
    at: DateTime<Utc>,
) -> Vec<TournamentEvent> {
    if state.registration_closed.is_some() || state.finished || !has_late_registration(&created.definition) {
        return vec![];
    }
    vec![TournamentEvent::RegistrationClosed(RegistrationClosed { cause, at })]
}

/// Live entries carried from a flight's Day 1s (issue 36).
fn carried_entries(state: &TournamentState) -> u32 {
    state.entries.iter().filter(|e| e.status == EntryStatus::Live && !e.carried.is_empty()).count() as u32
}

/// The cancellation with one full refund per live entry.
fn cancellation(state: &TournamentState, reason: CancellationReason, at: DateTime<Utc>) -> TournamentEvent {
    let refunds = state
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.status == EntryStatus::Live)
        .map(|(i, e)| Refund { entry: EntryNo(i as u32 + 1), player: e.player.clone(), refund: e.ledger })
        .collect();
    TournamentEvent::TournamentCancelled(TournamentCancelled { reason, refunds, at })
}

/// What kind of entry the player may take now, per the entry model.
fn entry_kind(
    state: &TournamentState,
    def: &TournamentDefinition,
    player: &PlayerId,
    at: DateTime<Utc>,
) -> Result<EntryKind, RegistrationError> {
    let (mut total, mut live) = (0u32, 0u32);
    for (_, e) in state.entries_of(player) {
        total += 1;
        live += u32::from(e.status == EntryStatus::Live);
    }
    let first = if state.started(at) { EntryKind::LateRegistration } else { EntryKind::Registration };
    if total == 0 {
        return Ok(first);
    }
    match def.entry_model {
        EntryModel::Freezeout if live > 0 => Err(RegistrationError::AlreadyRegistered(player.clone())),
        EntryModel::Freezeout => Err(RegistrationError::NoReEntry(player.clone())),
        EntryModel::ReEntry { .. } if live > 0 => Err(RegistrationError::AlreadyRegistered(player.clone())),
        EntryModel::ReEntry { max_entries } if total >= max_entries => Err(RegistrationError::ReEntryCap(player.clone(), max_entries)),
        EntryModel::ReEntry { .. } => Ok(EntryKind::ReEntry),
        EntryModel::MultiEntry { max_live_entries } if live >= max_live_entries => {
            Err(RegistrationError::MultiEntryCap(player.clone(), max_live_entries))
        }
        EntryModel::MultiEntry { .. } => Ok(EntryKind::MultiEntry),
    }
}

fn unregister(
    state: &TournamentState,
    created: &Created,
    player: PlayerId,
    entry: Option<EntryNo>,
    at: DateTime<Utc>,
) -> Result<Vec<TournamentEvent>, RegistrationError> {
    // Held while suspended (issue 35), except after the start: no resume makes an entry
    // withdrawable then, and after a cancellation in play the answer stays as it was.
    if state.suspended && !state.started(at) {
        return Err(RegistrationError::Suspended);
    }
    let profile = created.definition.profile;
    if !profile.registration().unregister_allowed {
        return Err(RegistrationError::UnregisterNotAllowed(profile.name()));
    }
    if state.started(at) {
        return Err(RegistrationError::Started);
    }
    let live = |(no, e): &(EntryNo, &Entry)| e.status == EntryStatus::Live && entry.is_none_or(|wanted| wanted == *no);
    let Some((no, e)) = state.entries_of(&player).filter(live).last() else {
        return Err(RegistrationError::NotRegistered(player));
    };
    let player_left = state.entries_of(&player).count() == 1;
    Ok(vec![TournamentEvent::EntryUnregistered(EntryUnregistered {
        entry: no,
        player,
        refund: e.ledger,
        by_operator: false,
        player_left,
        at,
    })])
}

/// Refusal blocks future entries; entries not yet started are withdrawn and refunded. Refusing
/// twice changes nothing and stores nothing.
fn refuse(state: &TournamentState, player: PlayerId, reason: String, at: DateTime<Utc>) -> Result<Vec<TournamentEvent>, RegistrationError> {
    text::REFUSAL_REASON.check(&reason).map_err(RegistrationError::Text)?;
    if state.refused.contains(&player) {
        return Ok(vec![]);
    }
    let mut events = vec![TournamentEvent::PlayerRefused(PlayerRefused { player: player.clone(), reason, at })];
    if !state.started(at) {
        let withdrawn: Vec<(EntryNo, EntryLedger)> =
            state.entries_of(&player).filter(|(_, e)| e.status == EntryStatus::Live).map(|(no, e)| (no, e.ledger)).collect();
        let remaining = state.entries_of(&player).count() - withdrawn.len();
        let last = withdrawn.len();
        events.extend(withdrawn.into_iter().enumerate().map(|(i, (no, refund))| {
            let player_left = remaining == 0 && i + 1 == last;
            TournamentEvent::EntryUnregistered(EntryUnregistered {
                entry: no,
                player: player.clone(),
                refund,
                by_operator: true,
                player_left,
                at,
            })
        }));
    }
    Ok(events)
}

fn keep_apart(state: &TournamentState, players: Vec<PlayerId>, at: DateTime<Utc>) -> Result<Vec<TournamentEvent>, RegistrationError> {
    let mut distinct = players.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < 2 {
        return Err(RegistrationError::BadGroup);
    }
    let entered: Vec<&PlayerId> = distinct.iter().filter(|p| state.entries_of(p).next().is_some()).collect();
    if let [first, second, ..] = entered[..] {
        return Err(RegistrationError::KeptApart(first.clone(), second.clone()));
    }
    Ok(vec![TournamentEvent::PlayersKeptApart(PlayersKeptApart { players: distinct, at })])
}

fn eliminate(state: &TournamentState, entry: EntryNo, at: DateTime<Utc>) -> Result<Vec<TournamentEvent>, RegistrationError> {
    match state.entry(entry) {
        None => Err(RegistrationError::UnknownEntry(entry)),
        Some(e) if e.status == EntryStatus::Unregistered => Err(RegistrationError::UnknownEntry(entry)),
        Some(e) if e.status == EntryStatus::Eliminated => Err(RegistrationError::AlreadyEliminated(entry)),
        Some(e) => {
            let mut events = vec![TournamentEvent::EntryEliminated(EntryEliminated { entry, player: e.player.clone(), at })];
            // The last opponent is out: the one live entry left has won.
            let mut live = state.entries.iter().enumerate().filter(|(i, e)| e.status == EntryStatus::Live && *i + 1 != entry.0 as usize);
            if let (true, Some((i, winner)), None) = (state.start_recorded, live.next(), live.next()) {
                let winner = TournamentFinished { winner: EntryNo(i as u32 + 1), player: winner.player.clone(), at, shared_by: vec![] };
                events.push(TournamentEvent::TournamentFinished(winner));
            }
            Ok(events)
        }
    }
}
