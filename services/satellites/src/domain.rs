//! The satellite aggregate: one per satellite tournament (`floor.ev.satellite.<satellite id>`),
//! holding every ticket the satellite issued and each ticket's whole life. Pure: the time, the
//! command id sent to registration and registration's answers come in the commands.
//!
//! A ticket is in exactly one state ([`TicketState`]):
//!
//! ```text
//!            issue                 spend                 spent
//!   (none) ───────▶ issued ───────────────▶ spending ───────────▶ spent
//!                     ▲                        │                    │
//!                     └── spend failed / ──────┘                    │
//!                     │   seat refused                              │
//!                     └─────────────────── refund ──────────────────┘
//!
//!   spending ── seat refused, the winner already registered, passed down ──▶ passed_down (void)
//!                 (and a new ticket issued to the next finisher: (none) ──▶ issued)
//!
//!   issued ── expire (as of a time at or after its expiry) ──▶ expired
//!   issued ── convert (the holder, where allowed; or its target cancelled, `cash`) ──▶ converted
//!   spent  ── refund by its target's cancellation, `cash` ──▶ (refunded, then) converted
//! ```
//!
//! `passed_down`, `expired` and `converted` are final; every ticket is in exactly one state.
//!
//! - **Expiry**: a ticket carries the expiry its satellite's terms give it at its issue
//!   (`ticket_valid_days`). A spend or a conversion at or after it is refused
//!   (`ticket_expired`, no event); the ticket is recorded `ticket_expired` only by
//!   [`SatelliteCommand::Expire`], whose time is the command's (the operator's `as_of`), never
//!   the clock's. A ticket being spent when its expiry comes is not expired: registration
//!   answers that spend.
//! - **Conversion to cash** (004 §4.36.4: "Výhru představuje částka ve výši Buy-inu", the
//!   win is an amount equal to the buy-in, "Sázející může Výhru použít dle jeho uvážení", the
//!   player may use it as they wish): a held ticket, by its holder, where the satellite allows
//!   it (`convertible`, always under the FORTUNA profile), else `ticket_not_convertible`; or
//!   by the platform when its target is cancelled and the satellite refunds as cash
//!   (`if_target_cancelled = "cash"`): a refunded entry's ticket is refunded and converted in
//!   one commit. `ticket_converted` pays its value to the holder: the satellite's seat prize,
//!   paid as an amount instead of an entry.
//!
//! - **Issue** stores a ticket once: a ticket issued again (a replay, a retry) stores nothing.
//! - **Spend** is refused for an unknown ticket (`unknown_ticket`), another player's
//!   (`ticket_not_yours`), a ticket spent or being spent (`ticket_spent`), a void one
//!   (`ticket_passed_down`), and a tournament other than the ticket's target unless the
//!   satellite's terms allow another of the same value (`ticket_wrong_tournament`; the value
//!   itself is registration's check, `ticket_value_mismatch`); it records
//!   `ticket_spending` with the command id registration is sent, so a restart sends the same one.
//! - **Registration's answer** (spent, spending failed, seat refused) is taken only while the
//!   ticket is being spent on that tournament; a late or repeated answer stores nothing.
//! - **Seat refused, passed down**: a seat refused with finishers to pass it to (the service
//!   gives them only when the satellite passes seats down and the winner is already registered)
//!   goes to the first of them, in place order, who holds no ticket of the satellite (neither
//!   the entry nor the player): `seat_passed_down` voids the winner's ticket and a new ticket is
//!   issued to that finisher in the same commit, so no moment holds both or neither. With none
//!   left, the winner keeps the ticket (`seat_refused`). A ticket is issued to an entry at most
//!   once, so no seat is doubled.
//! - **Refund**: the entry the ticket paid for was refunded; the ticket is back, issued. A
//!   refund that arrives while the answer of the spend is still on its way (the player
//!   unregistered at once) ends the spend too: the entry it paid for is gone.

use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::satellites::{
    ConversionCause, SatelliteEvent, SatellitePrize, SeatPassedDown, SeatRefused as SeatRefusedEvent, SpendingFailed, TicketConverted,
    TicketExpired, TicketIssued, TicketLedger, TicketRef, TicketRefunded, TicketSpending, TicketSpent, TicketState, TicketView,
};
use floor_events::{codes, subjects, CommandId, EntryNo, Money, PlayerId, TournamentId};
use std::collections::BTreeMap;

/// The satellite aggregate.
pub struct SatelliteAggregate;

/// What the satellite aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SatelliteCommand {
    /// An entry of the satellite won a seat (payouts awarded it the seat value).
    Issue {
        /// The ticket (the satellite and the winning entry).
        ticket: TicketRef,
        /// The winner.
        player: PlayerId,
        /// Its value: the satellite's seat value.
        value: Money,
        /// The target.
        target: TournamentId,
        /// The place that won it.
        place: u32,
        /// Seat or ticket.
        prize: SatellitePrize,
        /// When it expires, if it does.
        expires: Option<DateTime<Utc>>,
        /// When.
        at: DateTime<Utc>,
    },
    /// Record expired every held ticket whose expiry is at or before `as_of` (the command's
    /// time, not the clock's).
    Expire {
        /// As of when.
        as_of: DateTime<Utc>,
    },
    /// Convert a held ticket to cash at its value.
    Convert {
        /// The ticket.
        ticket: TicketRef,
        /// Who asks: its holder (`Some`), or the platform for a cancelled target (`None`).
        holder: Option<PlayerId>,
        /// Why.
        cause: ConversionCause,
        /// Whether the satellite lets a holder convert (its terms under its profile).
        allowed: bool,
        /// When.
        at: DateTime<Utc>,
    },
    /// Spend a ticket on `tournament`: registration is about to be sent `command_id`.
    Spend {
        /// The ticket.
        ticket: TicketRef,
        /// Who spends it.
        player: PlayerId,
        /// Where.
        tournament: TournamentId,
        /// The command registration is sent.
        command_id: CommandId,
        /// Whether the satellite's terms let the ticket pay another tournament than its target
        /// (of the same value: registration checks that).
        any_of_same_value: bool,
        /// When.
        at: DateTime<Utc>,
    },
    /// Registration registered the entry the ticket pays for.
    Spent {
        /// The ticket.
        ticket: TicketRef,
        /// The tournament.
        tournament: TournamentId,
        /// The entry.
        entry: EntryNo,
        /// When.
        at: DateTime<Utc>,
    },
    /// Registration refused a player's spend: the ticket is theirs again.
    SpendFailed {
        /// The ticket.
        ticket: TicketRef,
        /// Registration's code.
        code: String,
        /// Its message.
        reason: String,
        /// When.
        at: DateTime<Utc>,
    },
    /// The target refused the seat won: the winner keeps the ticket, or the seat passes down to
    /// the first of `pass_down` who holds no ticket of the satellite.
    SeatRefused {
        /// The ticket.
        ticket: TicketRef,
        /// Registration's code.
        code: String,
        /// Its message.
        reason: String,
        /// The satellite's finishers below its seats, best place first: empty unless the
        /// satellite passes a seat down and the winner was already registered.
        pass_down: Vec<Finisher>,
        /// When.
        at: DateTime<Utc>,
    },
    /// The entry the ticket paid for in `tournament` was refunded: the ticket comes back.
    Refund {
        /// The ticket.
        ticket: TicketRef,
        /// The tournament that refunded it.
        tournament: TournamentId,
        /// The refund is the target's cancellation and the satellite refunds as cash: the
        /// ticket comes back converted.
        cash: bool,
        /// When.
        at: DateTime<Utc>,
    },
}

/// A finisher of a satellite below its seats (payouts' place), a candidate for a seat passed
/// down.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Finisher {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// Its place.
    pub place: u32,
}

/// Why the satellite aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SatelliteError {
    /// No such ticket.
    #[error("no ticket {0}")]
    UnknownTicket(TicketRef),
    /// The ticket is someone else's.
    #[error("ticket {0} belongs to another player")]
    NotYours(TicketRef),
    /// The ticket is spent or being spent.
    #[error("ticket {0} is {1}")]
    Spent(TicketRef, &'static str),
    /// The ticket is void: its seat passed down.
    #[error("ticket {0} is void: its seat was passed down to {1}")]
    PassedDown(TicketRef, TicketRef),
    /// The ticket may not pay that tournament.
    #[error("ticket {ticket} is for {target}, and its satellite lets it pay no other tournament")]
    WrongTournament {
        /// The ticket.
        ticket: TicketRef,
        /// Its target.
        target: TournamentId,
    },
    /// The ticket's expiry has come.
    #[error("ticket {0} expired at {1}")]
    Expired(TicketRef, DateTime<Utc>),
    /// The ticket cannot be converted: not allowed, or not held.
    #[error("ticket {0} cannot be converted to cash: {1}")]
    NotConvertible(TicketRef, &'static str),
}

impl floor_runtime::DomainError for SatelliteError {
    fn code(&self) -> &'static str {
        match self {
            Self::UnknownTicket(_) => codes::UNKNOWN_TICKET,
            Self::NotYours(_) => codes::TICKET_NOT_YOURS,
            Self::Spent(..) => codes::TICKET_SPENT,
            Self::PassedDown(..) => codes::TICKET_PASSED_DOWN,
            Self::WrongTournament { .. } => codes::TICKET_WRONG_TOURNAMENT,
            Self::Expired(..) => codes::TICKET_EXPIRED,
            Self::NotConvertible(..) => codes::TICKET_NOT_CONVERTIBLE,
        }
    }
}

/// One ticket, folded (also the read model's, [`crate::projection`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ticket {
    /// Its holder.
    pub player: PlayerId,
    /// Its value.
    pub value: Money,
    /// The target it was won for.
    pub target: TournamentId,
    /// The place that won it.
    pub place: u32,
    /// Seat or ticket.
    pub prize: SatellitePrize,
    /// Where it stands.
    pub state: TicketState,
    /// While spending: where, and the command registration was sent.
    pub spending: Option<(TournamentId, CommandId)>,
    /// Once spent: the tournament and entry it paid for.
    pub spent_on: Option<(TournamentId, EntryNo)>,
    /// Why the seat it was won as was not taken, if it was not.
    pub seat_refused: Option<String>,
    /// The ticket its seat passed down to (void).
    #[serde(default)]
    pub passed_to: Option<TicketRef>,
    /// The ticket whose seat passed down to this one.
    #[serde(default)]
    pub passed_from: Option<TicketRef>,
    /// When it expires, if it does.
    #[serde(default)]
    pub expires: Option<DateTime<Utc>>,
}

impl Ticket {
    /// The ticket as the service shows it.
    pub fn view(&self, ticket: TicketRef) -> TicketView {
        TicketView {
            ticket,
            player: self.player.clone(),
            value: self.value,
            target: self.target,
            state: self.state,
            spent_on: self.spent_on,
            seat_refused: self.seat_refused.clone(),
            passed_to: self.passed_to,
            passed_from: self.passed_from,
            expires: self.expires,
        }
    }

    /// Whether its expiry has come at `at`.
    pub fn expired_at(&self, at: DateTime<Utc>) -> bool {
        self.expires.is_some_and(|expires| at >= expires)
    }

    /// A ticket as issued.
    pub fn issued(e: &TicketIssued) -> Self {
        Self {
            player: e.player.clone(),
            value: e.value,
            target: e.target,
            place: e.place,
            prize: e.prize,
            state: TicketState::Issued,
            spending: None,
            spent_on: None,
            seat_refused: None,
            passed_to: None,
            passed_from: None,
            expires: e.expires,
        }
    }

    /// Folds one event of this ticket (the event's ticket is this one; [`fold`] folds the
    /// other ticket a `seat_passed_down` names). Never fails.
    pub fn apply(&mut self, event: &SatelliteEvent) {
        match event {
            SatelliteEvent::TicketIssued(_) => {}
            SatelliteEvent::TicketSpending(e) => {
                self.state = TicketState::Spending;
                self.spending = Some((e.tournament, e.command_id));
                self.spent_on = None;
            }
            SatelliteEvent::TicketSpent(e) => {
                self.state = TicketState::Spent;
                self.spending = None;
                self.spent_on = Some((e.tournament, e.entry));
            }
            SatelliteEvent::SpendingFailed(_) => {
                self.state = TicketState::Issued;
                self.spending = None;
            }
            SatelliteEvent::SeatRefused(e) => {
                self.state = TicketState::Issued;
                self.spending = None;
                self.seat_refused = Some(format!("{}: {}", e.code, e.reason));
            }
            SatelliteEvent::TicketRefunded(_) => {
                self.state = TicketState::Issued;
                self.spending = None;
                self.spent_on = None;
            }
            SatelliteEvent::SeatPassedDown(e) => {
                self.state = TicketState::PassedDown;
                self.spending = None;
                self.passed_to = Some(e.to);
                self.seat_refused = Some(format!("{}: {}", e.code, e.reason));
            }
            SatelliteEvent::TicketExpired(_) => {
                self.state = TicketState::Expired;
                self.spending = None;
            }
            SatelliteEvent::TicketConverted(_) => {
                self.state = TicketState::Converted;
                self.spending = None;
            }
        }
    }
}

/// The ticket an event is about.
pub fn ticket_of(event: &SatelliteEvent) -> TicketRef {
    match event {
        SatelliteEvent::TicketIssued(e) => e.ticket,
        SatelliteEvent::TicketSpending(e) => e.ticket,
        SatelliteEvent::TicketSpent(e) => e.ticket,
        SatelliteEvent::SpendingFailed(e) => e.ticket,
        SatelliteEvent::SeatRefused(e) => e.ticket,
        SatelliteEvent::TicketRefunded(e) => e.ticket,
        SatelliteEvent::SeatPassedDown(e) => e.ticket,
        SatelliteEvent::TicketExpired(e) => e.ticket,
        SatelliteEvent::TicketConverted(e) => e.ticket,
    }
}

/// Folds one event into a map of tickets (the aggregate's and the read model's): an issue
/// stores a ticket once; any other event changes its ticket, and `seat_passed_down` also names
/// the ticket it passed to as coming from it. An event of an unknown ticket changes nothing.
pub fn fold<M>(tickets: &mut M, event: &SatelliteEvent)
where
    M: Tickets,
{
    match event {
        SatelliteEvent::TicketIssued(e) => tickets.issue(e),
        other => {
            if let Some(t) = tickets.ticket_mut(ticket_of(other)) {
                t.apply(other);
            }
            if let SatelliteEvent::SeatPassedDown(e) = other {
                if let Some(to) = tickets.ticket_mut(e.to) {
                    to.passed_from = Some(e.ticket);
                }
            }
        }
    }
}

/// A map of tickets [`fold`] folds into.
pub trait Tickets {
    /// Stores an issued ticket unless it is known.
    fn issue(&mut self, e: &TicketIssued);
    /// One ticket.
    fn ticket_mut(&mut self, ticket: TicketRef) -> Option<&mut Ticket>;
}

impl Tickets for BTreeMap<TicketRef, Ticket> {
    fn issue(&mut self, e: &TicketIssued) {
        self.entry(e.ticket).or_insert_with(|| Ticket::issued(e));
    }
    fn ticket_mut(&mut self, ticket: TicketRef) -> Option<&mut Ticket> {
        self.get_mut(&ticket)
    }
}

impl Tickets for std::collections::HashMap<TicketRef, Ticket> {
    fn issue(&mut self, e: &TicketIssued) {
        self.entry(e.ticket).or_insert_with(|| Ticket::issued(e));
    }
    fn ticket_mut(&mut self, ticket: TicketRef) -> Option<&mut Ticket> {
        self.get_mut(&ticket)
    }
}

/// Every ticket of one satellite, folded from its events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SatelliteState {
    /// The tickets.
    pub tickets: BTreeMap<TicketRef, Ticket>,
}

impl SatelliteState {
    /// One ticket as the service shows it.
    pub fn view(&self, ticket: TicketRef) -> Option<TicketView> {
        self.tickets.get(&ticket).map(|t| t.view(ticket))
    }

    /// Where the tickets' value stands.
    pub fn ledger(&self) -> TicketLedger {
        let mut ledger = TicketLedger::default();
        for t in self.tickets.values() {
            ledger.add(t.state, t.value.amount);
        }
        ledger
    }

    /// The ticket, or `unknown_ticket`.
    fn ticket(&self, ticket: TicketRef) -> Result<&Ticket, SatelliteError> {
        self.tickets.get(&ticket).ok_or(SatelliteError::UnknownTicket(ticket))
    }

    /// Whether `ticket` is being spent on `tournament`.
    fn spending_on(&self, ticket: TicketRef, tournament: Option<TournamentId>) -> Result<bool, SatelliteError> {
        let t = self.ticket(ticket)?;
        Ok(t.state == TicketState::Spending && tournament.is_none_or(|on| t.spending.is_some_and(|(where_, _)| where_ == on)))
    }
}

impl Aggregate for SatelliteAggregate {
    const NAME: &'static str = subjects::aggregate::SATELLITE;
    type State = SatelliteState;
    type Command = SatelliteCommand;
    type Event = SatelliteEvent;
    type Error = SatelliteError;

    fn handle_command(state: &SatelliteState, command: SatelliteCommand) -> Result<Vec<SatelliteEvent>, SatelliteError> {
        use SatelliteCommand::*;
        match command {
            Issue { ticket, player, value, target, place, prize, expires, at } => Ok(if state.tickets.contains_key(&ticket) {
                vec![]
            } else {
                vec![SatelliteEvent::TicketIssued(TicketIssued { ticket, player, value, target, place, prize, at, expires })]
            }),
            Expire { as_of } => Ok(state
                .tickets
                .iter()
                .filter(|(_, t)| t.state == TicketState::Issued && t.expired_at(as_of))
                .filter_map(|(r, t)| {
                    let expires = t.expires?;
                    Some(SatelliteEvent::TicketExpired(TicketExpired { ticket: *r, value: t.value, expires, at: as_of }))
                })
                .collect()),
            Convert { ticket, holder, cause, allowed, at } => {
                let t = state.ticket(ticket)?;
                if holder.as_ref().is_some_and(|h| *h != t.player) {
                    return Err(SatelliteError::NotYours(ticket));
                }
                // The platform's conversion of a cancelled target's ticket: once, only held and
                // not past its expiry (it was worth nothing more then).
                if holder.is_none() && (t.state != TicketState::Issued || t.expired_at(at)) {
                    return Ok(vec![]);
                }
                match t.state {
                    TicketState::Issued => {}
                    TicketState::Spending | TicketState::Spent => return Err(SatelliteError::NotConvertible(ticket, "it paid an entry")),
                    TicketState::PassedDown => return Err(SatelliteError::PassedDown(ticket, t.passed_to.unwrap_or(ticket))),
                    TicketState::Expired => return Err(SatelliteError::Expired(ticket, t.expires.unwrap_or(at))),
                    TicketState::Converted => return Err(SatelliteError::NotConvertible(ticket, "it is converted already")),
                }
                if holder.is_some() && !allowed {
                    return Err(SatelliteError::NotConvertible(ticket, "its satellite does not allow it"));
                }
                if let (Some(_), Some(expires)) = (&holder, t.expires.filter(|_| t.expired_at(at))) {
                    return Err(SatelliteError::Expired(ticket, expires));
                }
                Ok(vec![SatelliteEvent::TicketConverted(TicketConverted { ticket, player: t.player.clone(), value: t.value, cause, at })])
            }
            Spend { ticket, player, tournament, command_id, any_of_same_value, at } => {
                let t = state.ticket(ticket)?;
                if t.player != player {
                    return Err(SatelliteError::NotYours(ticket));
                }
                match t.state {
                    TicketState::Issued => {}
                    TicketState::Spending => return Err(SatelliteError::Spent(ticket, "being spent")),
                    TicketState::Spent => return Err(SatelliteError::Spent(ticket, "spent")),
                    TicketState::PassedDown => return Err(SatelliteError::PassedDown(ticket, t.passed_to.unwrap_or(ticket))),
                    TicketState::Expired => return Err(SatelliteError::Expired(ticket, t.expires.unwrap_or(at))),
                    TicketState::Converted => return Err(SatelliteError::Spent(ticket, "converted to cash")),
                }
                if let Some(expires) = t.expires.filter(|_| t.expired_at(at)) {
                    return Err(SatelliteError::Expired(ticket, expires));
                }
                if tournament != t.target && !any_of_same_value {
                    return Err(SatelliteError::WrongTournament { ticket, target: t.target });
                }
                Ok(vec![SatelliteEvent::TicketSpending(TicketSpending { ticket, tournament, command_id, at })])
            }
            Spent { ticket, tournament, entry, at } => Ok(if state.spending_on(ticket, Some(tournament))? {
                vec![SatelliteEvent::TicketSpent(TicketSpent { ticket, tournament, entry, at })]
            } else {
                vec![]
            }),
            SpendFailed { ticket, code, reason, at } => Ok(if state.spending_on(ticket, None)? {
                vec![SatelliteEvent::SpendingFailed(SpendingFailed { ticket, code, reason, at })]
            } else {
                vec![]
            }),
            SeatRefused { ticket, code, reason, pass_down, at } => {
                if !state.spending_on(ticket, None)? {
                    return Ok(vec![]);
                }
                let won = &state.tickets[&ticket];
                let holders: std::collections::HashSet<&PlayerId> = state.tickets.values().map(|t| &t.player).collect();
                let holds = |f: &Finisher| {
                    state.tickets.contains_key(&TicketRef { satellite: ticket.satellite, entry: f.entry }) || holders.contains(&f.player)
                };
                Ok(match pass_down.into_iter().find(|f| !holds(f)) {
                    None => vec![SatelliteEvent::SeatRefused(SeatRefusedEvent { ticket, code, reason, at })],
                    Some(next) => {
                        let to = TicketRef { satellite: ticket.satellite, entry: next.entry };
                        vec![
                            SatelliteEvent::TicketIssued(TicketIssued {
                                ticket: to,
                                player: next.player.clone(),
                                value: won.value,
                                target: won.target,
                                place: next.place,
                                prize: SatellitePrize::Seat,
                                at,
                                expires: won.expires,
                            }),
                            SatelliteEvent::SeatPassedDown(SeatPassedDown {
                                ticket,
                                to,
                                player: next.player,
                                place: next.place,
                                code,
                                reason,
                                at,
                            }),
                        ]
                    }
                })
            }
            Refund { ticket, tournament, cash, at } => {
                let t = state.ticket(ticket)?;
                let paid_there = match t.state {
                    TicketState::Spent => t.spent_on.is_some_and(|(on, _)| on == tournament),
                    TicketState::Spending => t.spending.is_some_and(|(on, _)| on == tournament),
                    TicketState::Issued | TicketState::PassedDown | TicketState::Expired | TicketState::Converted => false,
                };
                if !paid_there {
                    return Ok(vec![]);
                }
                let mut events = vec![SatelliteEvent::TicketRefunded(TicketRefunded { ticket, tournament, at })];
                if cash {
                    let cause = ConversionCause::TargetCancelled;
                    events.push(SatelliteEvent::TicketConverted(TicketConverted {
                        ticket,
                        player: t.player.clone(),
                        value: t.value,
                        cause,
                        at,
                    }));
                }
                Ok(events)
            }
        }
    }

    fn apply_event(mut state: SatelliteState, event: SatelliteEvent) -> SatelliteState {
        fold(&mut state.tickets, &event);
        state
    }
}

/// The command id registration is sent for the seat a ticket was won as: derived from the
/// ticket alone, so the seat is asked for once, whoever asks (the service, or its restart).
pub fn seat_registration_id(ticket: TicketRef) -> CommandId {
    CommandId::derived(&format!("satellites-seat-register:{ticket}"))
}

/// The command id registration is sent when a player spends a ticket with request
/// `command_id`: the same request (a retry) sends the same command, another spend another.
pub fn spend_registration_id(ticket: TicketRef, command_id: CommandId) -> CommandId {
    CommandId::derived(&format!("satellites-spend-register:{ticket}:{}", command_id.0))
}
