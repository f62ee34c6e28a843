//! Satellites (issue 36): tournaments whose prize is an entry into another tournament. The
//! definition's [`SatelliteTerms`] section, the satellite aggregate's events
//! (`floor.ev.satellite.<satellite tournament id>`, one log per satellite holding every seat it
//! won and each ticket's whole life), and the satellites service's requests. Spec §9; 000 §16.7,
//! 002 §2.3 and §2.7 T-8.1–T-8.4, 003 App. 1 b iii, 004 §4.36.4.
//!
//! - **Seats** = ⌊prize pool ÷ seat value⌋, the seat value being what an entry to the target costs
//!   (its buy-in plus fee, [`crate::tournament::TournamentDefinition::entry_ledger`]'s `paid_in`).
//!   The payout table pays the seat value to places 1 … seats and the leftover (what is not a
//!   whole seat) to the next place in cash ([`Leftover::NextPlace`]).
//! - **Play stops** when the entries left equal the seats (000 §16.7: "the tournament ends when
//!   every remaining player has the same prize"): registration records `tournament_finished` with
//!   every survivor (`TournamentFinished::shared_by`), payouts pays each of them a seat.
//! - **The prize** ([`SatellitePrize`]): a seat, registered in the target at once with the ticket
//!   as payment, or a ticket the player spends later (`spend_ticket`). A seat the target refuses
//!   (full, closed, the winner already in) stays a ticket, with the reason ([`SeatRefused`]):
//!   nothing won is lost.
//! - **The winner already registered** in the target ([`IfRegistered`], per definition, shown
//!   with the terms before anyone registers): the seat stays the winner's ticket
//!   ([`IfRegistered::KeepTicket`]), or passes down to the next finisher below the last seat who
//!   holds no ticket ([`IfRegistered::PassDown`]: [`SeatPassedDown`] voids the winner's ticket
//!   and a new one is issued to that finisher, whose seat is then taken). Cash of the buy-in
//!   instead is not offered: it needs payouts to pay it.
//! - **Where a ticket is spent**: on its target always; on another tournament only where the
//!   terms allow it ([`SatelliteTerms::any_of_same_value`]) and an entry there costs exactly the
//!   ticket's value (registration checks the value: `ticket_value_mismatch`); otherwise
//!   `ticket_wrong_tournament`.
//! - **Money across the link**: the satellite's books pay the seat value as a prize; the target's
//!   books take it in as an entry's `paid_in` (the entry names its ticket). The ticket is the
//!   line between them: issued = the satellite's seat prizes, spent = the target's entries by
//!   ticket, refunded = a target's refund of a ticket entry, back in kind.

use crate::ids::{CommandId, EntryNo, PlayerId, TournamentId};
use crate::money::Money;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Verbs of the satellites service: `floor.cmd.satellites.<verb>`.
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// A player spends a ticket on a tournament of its value.
    pub const SPEND_TICKET: Verb<SpendTicket, TicketView> = Verb::new(service::SATELLITES, "spend_ticket");
    /// A player's tickets, every state.
    pub const TICKETS: Verb<TicketsOf, Vec<TicketView>> = Verb::new(service::SATELLITES, "tickets");
    /// One satellite: its target, seats and every ticket it issued.
    pub const SATELLITE: Verb<SatelliteOf, SatelliteView> = Verb::new(service::SATELLITES, "satellite");
    /// A player converts a ticket to cash at its value, where the satellite allows it (004
    /// §4.36.4: the win is an amount, freely usable).
    pub const CONVERT_TICKET: Verb<ConvertTicket, TicketView> = Verb::new(service::SATELLITES, "convert_ticket");
    /// The operator records a satellite's tickets expired as of a time it gives (not the
    /// clock): every ticket held whose expiry has come.
    pub const EXPIRE_TICKETS: Verb<ExpireTickets, Vec<TicketView>> = Verb::new(service::SATELLITES, "expire_tickets");
}

/// The satellite section of a tournament definition: the tournament's prize is entries into
/// `target`. Checked against the target when the satellite is created (it exists, has not
/// started, costs `seat_value`, more than the satellite).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SatelliteTerms {
    /// The tournament the seats are for.
    pub target: TournamentId,
    /// What one entry to the target costs (its buy-in plus fee): the value of one seat.
    pub seat_value: Money,
    /// A seat in the target, or a ticket to spend later.
    #[serde(default)]
    pub prize: SatellitePrize,
    /// What the pool holds beyond whole seats.
    #[serde(default)]
    pub leftover: Leftover,
    /// A seat won by a player already registered in the target (the lobby shows it with the
    /// terms, before anyone registers).
    #[serde(default)]
    pub if_registered: IfRegistered,
    /// Whether a ticket may also pay an entry of another tournament that costs exactly its value
    /// (not only its target).
    #[serde(default)]
    pub any_of_same_value: bool,
    /// Days a ticket stays valid after it is issued: then it cannot be spent
    /// (`ticket_expired`), and the operator records it expired (`expire_tickets`, with the time
    /// as of which). `None`: it never expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket_valid_days: Option<u32>,
    /// Whether the holder may convert a held ticket to cash at its value (`convert_ticket`).
    /// Always so under the FORTUNA profile (004 §4.36.4: "Sázející může Výhru použít dle jeho
    /// uvážení, není vázána pouze na vstup do dalšího turnaje", the win is the player's to use,
    /// not bound to the target), whatever this says.
    #[serde(default)]
    pub convertible: bool,
    /// What the target's cancellation gives the tickets won for it: back in kind (default), or
    /// cash at their value.
    #[serde(default)]
    pub if_target_cancelled: IfTargetCancelled,
}

/// What a target's cancellation gives the tickets and seats won for it (issue 36). None of the
/// rulebooks says (002 T-8.4 is silent; the spec's default is the ticket back, not cash).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IfTargetCancelled {
    /// Refunded in kind: a seat's entry refunded gives its ticket back, held, to spend on a
    /// tournament it may pay.
    #[default]
    TicketBack,
    /// Refunded as cash: every ticket of the target not spent elsewhere (back from the target's
    /// refunds, or held) is converted to cash at its value (`ticket_converted`).
    Cash,
}

/// What becomes of a seat won by a player the target refuses as already registered
/// (`already_registered`). None of the rulebooks says (000 §16.7, 002 §2.7, 003 App. 1 b iii,
/// 004 §4.36.4), so every profile keeps the ticket unless the definition says otherwise. Cash
/// of the buy-in instead (004's prize is an amount) is not offered yet: payouts would pay it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IfRegistered {
    /// The seat refused stays its winner's ticket, to spend later (a second entry's worth).
    #[default]
    KeepTicket,
    /// The seat passes down to the next finisher below the last seat who holds no ticket of
    /// the satellite: the winner's ticket is void ([`SeatPassedDown`]) and a new one, for the
    /// same target and value, is issued to that finisher and spent on the target at once. With
    /// no such finisher left, the winner keeps the ticket.
    PassDown,
}

impl SatelliteTerms {
    /// Seats for `target`, each worth `seat_value`, every other term at its default (a seat, the
    /// leftover to the next place, the ticket kept by a winner already registered, only the
    /// target): what tests, the simulator and other crates build terms from
    /// (`SatelliteTerms { prize: SatellitePrize::Ticket, ..SatelliteTerms::new(target, value) }`),
    /// so a new term is added here and in the struct, not in every crate (issue 35).
    pub fn new(target: TournamentId, seat_value: Money) -> Self {
        Self {
            target,
            seat_value,
            prize: SatellitePrize::default(),
            leftover: Leftover::default(),
            if_registered: IfRegistered::default(),
            any_of_same_value: false,
            ticket_valid_days: None,
            convertible: false,
            if_target_cancelled: IfTargetCancelled::default(),
        }
    }

    /// When a ticket issued at `at` expires, if it does.
    pub fn expiry(&self, at: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.ticket_valid_days.and_then(|days| at.checked_add_signed(chrono::Duration::days(i64::from(days))))
    }

    /// The terms as a satellite of `profile` applies them: the FORTUNA profile always lets a
    /// ticket be converted to cash (004 §4.36.4).
    pub fn under(self, profile: crate::RuleProfile) -> Self {
        Self { convertible: self.convertible || profile == crate::RuleProfile::FortunaCz2024, ..self }
    }
}

/// The most links a chain of steps is followed before [`level`] stops: far more than any
/// operator's step tree (four or five levels), and a bound on a read model's walk.
pub const MAX_STEP_LEVELS: u32 = 64;

/// A step's level and its tree's top (000 §16.13, 002 §2.3 T-8.1): the number of links from
/// `tournament` to the one tournament at the top (0 for the top itself, 1 for a satellite of
/// the top, 2 for a step below that …) and that top. `target_of` says what a tournament is a
/// satellite of (`None`: no satellite, or not known). Every link points at a tournament that
/// existed before (registration refuses a target that does not exist, and creates a tournament
/// once), so a chain has no cycle and ends at one top; the walk stops after
/// [`MAX_STEP_LEVELS`] links all the same.
pub fn level(tournament: TournamentId, target_of: impl Fn(TournamentId) -> Option<TournamentId>) -> (u32, TournamentId) {
    let (mut level, mut at) = (0, tournament);
    while let Some(next) = target_of(at) {
        if level >= MAX_STEP_LEVELS || next == tournament {
            break;
        }
        level += 1;
        at = next;
    }
    (level, at)
}

/// How a satellite's winners receive their seats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SatellitePrize {
    /// Registered in the target at once, paid by a ticket issued and spent in one go.
    #[default]
    Seat,
    /// A ticket, which the player spends on the target (or a tournament of the same value).
    Ticket,
}

/// What a satellite pays from the part of the pool that is not a whole seat.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Leftover {
    /// The next place after the last seat is paid the leftover in cash (the common online rule;
    /// 004 §4.36.4: the win is an amount).
    #[default]
    NextPlace,
}

/// A ticket: the seat won by one entry of a satellite. Its id is the satellite and the entry, so
/// a replay or a retry can never issue it twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct TicketRef {
    /// The satellite that issued it.
    pub satellite: TournamentId,
    /// The satellite's entry that won it.
    pub entry: EntryNo,
}

impl std::fmt::Display for TicketRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.satellite, self.entry.0)
    }
}

impl std::str::FromStr for TicketRef {
    type Err = String;

    /// `<satellite tournament id>/<entry>`, as [`TicketRef`]'s `Display` writes it.
    fn from_str(s: &str) -> Result<Self, String> {
        let (satellite, entry) = s.split_once('/').ok_or_else(|| format!("{s:?}: a ticket is <satellite id>/<entry>"))?;
        let satellite = uuid::Uuid::parse_str(satellite).map(TournamentId).map_err(|e| format!("{satellite:?}: {e}"))?;
        let entry = entry.parse::<u32>().map_err(|e| format!("{entry:?}: {e}"))?;
        Ok(Self { satellite, entry: EntryNo(entry) })
    }
}

/// Spend a ticket: register its holder in `tournament_id`, paid by the ticket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpendTicket {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The ticket.
    pub ticket: TicketRef,
    /// Its holder (the ticket is refused for anyone else).
    pub player: PlayerId,
    /// The tournament to enter: the ticket's target, or one that costs the ticket's value.
    pub tournament_id: TournamentId,
}

/// Convert a held ticket to cash at its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConvertTicket {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The ticket.
    pub ticket: TicketRef,
    /// Its holder.
    pub player: PlayerId,
}

/// Record a satellite's tickets expired as of `as_of`: every ticket held whose expiry is at or
/// before it. The time is the operator's, given here, not the service's clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpireTickets {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The satellite.
    pub tournament_id: TournamentId,
    /// As of when.
    pub as_of: DateTime<Utc>,
}

/// A player's tickets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TicketsOf {
    /// The player.
    pub player: PlayerId,
}

/// One satellite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SatelliteOf {
    /// The satellite tournament.
    pub tournament_id: TournamentId,
}

/// Where a ticket stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketState {
    /// Issued and not spent: the holder may spend it.
    Issued,
    /// Being spent on a tournament: registration has been asked.
    Spending,
    /// Spent: an entry of a tournament was paid with it.
    Spent,
    /// Void: its winner was already registered in the target and the seat passed down to the
    /// next finisher, who holds a new ticket (`passed_to`). Final.
    PassedDown,
    /// Expired unspent: its expiry came while it was held. Final.
    Expired,
    /// Converted to cash at its value (the holder's choice where allowed, or the target's
    /// cancellation under `if_target_cancelled = "cash"`). Final.
    Converted,
}

/// A ticket as the satellites service shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketView {
    /// The ticket.
    pub ticket: TicketRef,
    /// Its holder.
    pub player: PlayerId,
    /// What it is worth: one entry to its target.
    pub value: Money,
    /// The tournament it was won for.
    pub target: TournamentId,
    /// Where it stands.
    pub state: TicketState,
    /// The tournament and entry it paid for, once spent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spent_on: Option<(TournamentId, EntryNo)>,
    /// Why the seat it was won as was not taken, if it was not (it stayed a ticket).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_refused: Option<String>,
    /// The ticket its seat was passed down to (the state is `passed_down`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_to: Option<TicketRef>,
    /// The ticket whose seat was passed down to this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_from: Option<TicketRef>,
    /// When it expires, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<DateTime<Utc>>,
}

/// Where a satellite's tickets' value stands (issue 36): what was issued (the seat prizes its
/// books paid) against where each ticket is. `issued − void = held + spending + spent +
/// converted + expired`, to the cent ([`TicketLedger::balanced`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketLedger {
    /// Every ticket issued, a seat passed down's new ticket included.
    pub issued: u64,
    /// Void: seats passed down (their value went with the new ticket).
    pub void: u64,
    /// Held by their players.
    pub held: u64,
    /// Being spent.
    pub spending: u64,
    /// Spent: entries paid.
    pub spent: u64,
    /// Converted to cash (paid to the holders).
    pub converted: u64,
    /// Expired unspent.
    pub expired: u64,
}

impl TicketLedger {
    /// Adds one ticket of `value` in `state`.
    pub fn add(&mut self, state: TicketState, value: u64) {
        self.issued = self.issued.saturating_add(value);
        let line = match state {
            TicketState::Issued => &mut self.held,
            TicketState::Spending => &mut self.spending,
            TicketState::Spent => &mut self.spent,
            TicketState::PassedDown => &mut self.void,
            TicketState::Expired => &mut self.expired,
            TicketState::Converted => &mut self.converted,
        };
        *line = line.saturating_add(value);
    }

    /// Every ticket issued is in exactly one line.
    pub fn balanced(&self) -> bool {
        [self.void, self.held, self.spending, self.spent, self.converted, self.expired].iter().try_fold(0u64, |sum, v| sum.checked_add(*v))
            == Some(self.issued)
    }
}

/// One satellite as the satellites service shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SatelliteView {
    /// The satellite.
    pub tournament_id: TournamentId,
    /// Its terms.
    pub terms: SatelliteTerms,
    /// Every ticket it issued.
    pub tickets: Vec<TicketView>,
    /// Where the tickets' value stands.
    #[serde(default)]
    pub ledger: TicketLedger,
    /// Its level in its step tree (000 §16.13): links to the top (1: it feeds the top).
    #[serde(default)]
    pub level: u32,
    /// The top of its step tree (its target, for a satellite of the top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top: Option<TournamentId>,
}

/// The satellite aggregate's events: `floor.ev.satellite.<satellite tournament id>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SatelliteEvent {
    /// See [`TicketIssued`].
    TicketIssued(TicketIssued),
    /// See [`TicketSpending`].
    TicketSpending(TicketSpending),
    /// See [`TicketSpent`].
    TicketSpent(TicketSpent),
    /// See [`SpendingFailed`].
    SpendingFailed(SpendingFailed),
    /// See [`SeatRefused`].
    SeatRefused(SeatRefused),
    /// See [`TicketRefunded`].
    TicketRefunded(TicketRefunded),
    /// See [`SeatPassedDown`].
    SeatPassedDown(SeatPassedDown),
    /// See [`TicketExpired`].
    TicketExpired(TicketExpired),
    /// See [`TicketConverted`].
    TicketConverted(TicketConverted),
}

crate::tagged::tagged_events!(SatelliteEvent {
    TicketIssued => "ticket_issued",
    TicketSpending => "ticket_spending",
    TicketSpent => "ticket_spent",
    SpendingFailed => "spending_failed",
    SeatRefused => "seat_refused",
    TicketRefunded => "ticket_refunded",
    SeatPassedDown => "seat_passed_down",
    TicketExpired => "ticket_expired",
    TicketConverted => "ticket_converted",
});

/// An entry of the satellite won a seat: a ticket worth the seat value, for the target (payouts'
/// award of the seat value to that entry's place).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketIssued {
    /// The ticket.
    pub ticket: TicketRef,
    /// Its holder.
    pub player: PlayerId,
    /// Its value (the satellite's seat value).
    pub value: Money,
    /// The target.
    pub target: TournamentId,
    /// The place that won it.
    pub place: u32,
    /// Seat (registered at once) or ticket.
    pub prize: SatellitePrize,
    /// When.
    pub at: DateTime<Utc>,
    /// When it expires (the terms' `ticket_valid_days` after `at`), if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<DateTime<Utc>>,
}

/// The ticket is being spent on `tournament`: registration was asked to register its holder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketSpending {
    /// The ticket.
    pub ticket: TicketRef,
    /// Where.
    pub tournament: TournamentId,
    /// The command registration was sent (so a restart sends the same one).
    pub command_id: CommandId,
    /// When.
    pub at: DateTime<Utc>,
}

/// The ticket paid for an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketSpent {
    /// The ticket.
    pub ticket: TicketRef,
    /// The tournament entered.
    pub tournament: TournamentId,
    /// The entry it paid for.
    pub entry: EntryNo,
    /// When.
    pub at: DateTime<Utc>,
}

/// Registration refused the entry: the ticket is the holder's again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SpendingFailed {
    /// The ticket.
    pub ticket: TicketRef,
    /// Registration's code.
    pub code: String,
    /// Its message.
    pub reason: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// A seat won could not be taken in the target (full, closed, the winner already in): the
/// winner keeps the ticket, with the target's reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatRefused {
    /// The ticket.
    pub ticket: TicketRef,
    /// Registration's code.
    pub code: String,
    /// Its message.
    pub reason: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// The entry the ticket paid for was refunded (unregistered, or its tournament cancelled): the
/// ticket is back, in kind, not in cash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketRefunded {
    /// The ticket.
    pub ticket: TicketRef,
    /// The tournament that refunded it.
    pub tournament: TournamentId,
    /// When.
    pub at: DateTime<Utc>,
}

/// The winner of a seat was already registered in the target and the satellite passes such a
/// seat down ([`IfRegistered::PassDown`]): the winner's ticket is void, and the ticket issued in
/// the same commit (`to`, the next finisher below the last seat who held none) holds the seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatPassedDown {
    /// The winner's ticket, now void.
    pub ticket: TicketRef,
    /// The ticket issued to the next finisher.
    pub to: TicketRef,
    /// The next finisher.
    pub player: PlayerId,
    /// Their place in the satellite.
    pub place: u32,
    /// Registration's code for the winner (`already_registered`).
    pub code: String,
    /// Its message.
    pub reason: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// A held ticket's expiry came (`expire_tickets`, as of a time the command gives): it can no
/// longer be spent. Final.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketExpired {
    /// The ticket.
    pub ticket: TicketRef,
    /// Its value, lost to the holder.
    pub value: Money,
    /// Its expiry.
    pub expires: DateTime<Utc>,
    /// As of when it was recorded (the command's time).
    pub at: DateTime<Utc>,
}

/// Why a ticket became cash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConversionCause {
    /// Its holder asked (`convert_ticket`), where the satellite allows it.
    Holder,
    /// Its target was cancelled and the satellite refunds such tickets as cash.
    TargetCancelled,
}

/// A ticket converted to cash at its value: paid to its holder (the satellite's seat prize paid
/// as an amount instead of an entry, 004 §4.36.4). Final.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketConverted {
    /// The ticket.
    pub ticket: TicketRef,
    /// Its holder, paid.
    pub player: PlayerId,
    /// The amount paid: the ticket's value.
    pub value: Money,
    /// Why.
    pub cause: ConversionCause,
    /// When.
    pub at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_reads_back_what_it_writes() {
        let ticket = TicketRef { satellite: TournamentId::new(), entry: EntryNo(7) };
        assert_eq!(ticket.to_string().parse::<TicketRef>(), Ok(ticket));
        assert!("nope".parse::<TicketRef>().is_err());
        assert!(format!("{}/x", ticket.satellite).parse::<TicketRef>().is_err());
    }
}
