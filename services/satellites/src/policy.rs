//! What the satellite aggregates are told, read from the log. Pure: the service feeds commits
//! in stream order, with the instant each was stored, and runs the commands that come out.
//!
//! - registration: a tournament created with a satellite section is a satellite: its terms are
//!   remembered. An entry registered with a ticket (in any tournament) is remembered as paid by
//!   it; when that entry is refunded (`entry_unregistered`, or the refunds of
//!   `tournament_cancelled`) the ticket comes back ([`SatelliteCommand::Refund`]).
//! - payouts: each award of a satellite that is exactly its seat value is a seat won: a ticket
//!   is issued for the entry ([`SatelliteCommand::Issue`], with the prize kind: the service
//!   spends a seat's ticket on the target at once). An award of another amount is cash: the
//!   leftover paid to the place after the last seat, and a seat split at a tie (two entries
//!   sharing a seat and the leftover are paid half of both each, which is no whole seat: 000
//!   §16.7 pays a seat whole or not at all), which payouts pays and the books hold as cash.
//!
//! - payouts, for a satellite that passes a seat down when its winner is already registered in
//!   the target (`if_registered = "pass_down"`): every place below the seats (an award of
//!   another amount than the seat value), remembered as the finishers a refused seat may pass
//!   to ([`Policy::pass_down`]).
//! - the satellites' own logs: a seat passed down issued its new ticket in the same commit; the
//!   ticket is ordered issued again ([`SatelliteCommand::Issue`], which stores nothing now) so
//!   the service takes its seat on the target as it does any seat won, from the checkpointed
//!   log: a crash between the pass and the seat never loses it.
//!
//! Every command's id is derived from what it reacts to (the satellite and entry for a ticket,
//! the tournament and entry for a refund), so reading the log again after a crash repeats
//! nothing.

use crate::domain::{Finisher, SatelliteCommand};
use crate::projection::Views;
use chrono::{DateTime, Utc};
use floor_events::commit::Events;
use floor_events::payouts::PayoutEvent;
use floor_events::registration::TournamentEvent;
use floor_events::satellites::{
    ConversionCause, IfRegistered, IfTargetCancelled, SatelliteEvent, SatellitePrize, SatelliteTerms, TicketRef,
};
use floor_events::{CommandId, EntryNo, TournamentId};
use floor_runtime::policy::Stored;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A command for one satellite's aggregate (the id is the satellite's).
pub type Order = (TournamentId, CommandId, SatelliteCommand);

/// The policy's memory: every satellite's terms and every entry paid by a ticket.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    #[serde(with = "floor_runtime::snapshot::pairs")]
    satellites: HashMap<TournamentId, SatelliteTerms>,
    /// Live entries paid by a ticket: (tournament, entry) → the ticket.
    #[serde(with = "floor_runtime::snapshot::pairs")]
    paid_by_ticket: HashMap<(TournamentId, EntryNo), TicketRef>,
    /// Satellites that pass a seat down: their places below the seats, as awarded.
    #[serde(with = "floor_runtime::snapshot::pairs")]
    finishers: HashMap<TournamentId, Vec<Finisher>>,
}

/// The command id of a ticket's issue: one per satellite entry.
pub fn issue_id(satellite: TournamentId, entry: EntryNo) -> CommandId {
    CommandId::derived(&format!("satellites-issue:{satellite}:{}", entry.0))
}

/// The command id of the platform's conversion of a ticket whose target was cancelled: one per
/// ticket.
pub fn convert_id(ticket: TicketRef) -> CommandId {
    CommandId::derived(&format!("satellites-convert-cancelled:{ticket}"))
}

/// The command id of a refund: one per refunded entry.
pub fn refund_id(tournament: TournamentId, entry: EntryNo) -> CommandId {
    CommandId::derived(&format!("satellites-refund:{tournament}:{}", entry.0))
}

impl Policy {
    /// A satellite's terms, once its creation is read.
    pub fn terms(&self, satellite: TournamentId) -> Option<SatelliteTerms> {
        self.satellites.get(&satellite).copied()
    }

    /// The finishers a seat of `satellite` refused with registration's `code` may pass down
    /// to, best place first (then the lower entry): none unless the code says the winner is
    /// already registered and the satellite's terms pass such a seat down (any other refusal,
    /// the target full, closed or cancelled, leaves the seat its winner's ticket).
    pub fn pass_down(&self, satellite: TournamentId, code: &str) -> Vec<Finisher> {
        let passes = self.terms(satellite).is_some_and(|t| t.if_registered == IfRegistered::PassDown && t.prize == SatellitePrize::Seat);
        if !passes || code != floor_events::codes::ALREADY_REGISTERED {
            return vec![];
        }
        let mut below = self.finishers.get(&satellite).cloned().unwrap_or_default();
        below.sort_by_key(|f| (f.place, f.entry));
        below
    }

    /// Registration's events of tournament `t`.
    pub fn on_tournament(&mut self, t: TournamentId, events: &[TournamentEvent]) -> Vec<Order> {
        let mut orders = Vec::new();
        for e in events {
            match e {
                TournamentEvent::TournamentCreated(created) => {
                    if let Some(terms) = created.definition.satellite {
                        self.satellites.insert(t, terms.under(created.definition.profile));
                    }
                }
                TournamentEvent::EntryRegistered(registered) => {
                    if let Some(ticket) = registered.ticket {
                        self.paid_by_ticket.insert((t, registered.entry), ticket);
                    }
                }
                TournamentEvent::EntryUnregistered(unregistered) => {
                    orders.extend(self.refund(t, unregistered.entry, false, unregistered.at))
                }
                // The target cancelled: each entry paid by a ticket is refunded in kind, or as
                // cash where the ticket's satellite says so (`if_target_cancelled`).
                TournamentEvent::TournamentCancelled(cancelled) => {
                    for refund in &cancelled.refunds {
                        orders.extend(self.refund(t, refund.entry, true, cancelled.at));
                    }
                }
                // Over: its entries are refunded no more, and forgotten.
                TournamentEvent::TournamentFinished(_) => self.paid_by_ticket.retain(|(on, _), _| *on != t),
                _ => {}
            }
        }
        orders
    }

    fn refund(&mut self, t: TournamentId, entry: EntryNo, cancelled: bool, at: DateTime<Utc>) -> Option<Order> {
        let ticket = self.paid_by_ticket.remove(&(t, entry))?;
        let cash = cancelled && self.cash_if_cancelled(ticket.satellite);
        Some((ticket.satellite, refund_id(t, entry), SatelliteCommand::Refund { ticket, tournament: t, cash, at }))
    }

    /// Whether `satellite` refunds its tickets as cash when their target is cancelled.
    pub fn cash_if_cancelled(&self, satellite: TournamentId) -> bool {
        self.terms(satellite).is_some_and(|terms| terms.if_target_cancelled == IfTargetCancelled::Cash)
    }

    /// Payouts' events of tournament `t`, stored at `at`: a seat won is a ticket.
    pub fn on_payouts(&mut self, t: TournamentId, at: DateTime<Utc>, events: &[PayoutEvent]) -> Vec<Order> {
        let Some(terms) = self.satellites.get(&t).copied() else { return vec![] };
        let passes_down = terms.if_registered == IfRegistered::PassDown && terms.prize == SatellitePrize::Seat;
        let mut orders = Vec::new();
        for e in events {
            let PayoutEvent::PlacesAwarded { awards, .. } = e else { continue };
            if passes_down {
                let below = self.finishers.entry(t).or_default();
                for award in awards.iter().filter(|a| a.amount != terms.seat_value.amount) {
                    if !below.iter().any(|f| f.entry == award.entry) {
                        below.push(Finisher { entry: award.entry, player: award.player.clone(), place: award.place });
                    }
                }
            }
            for award in awards.iter().filter(|a| a.amount > 0 && a.amount == terms.seat_value.amount) {
                let ticket = TicketRef { satellite: t, entry: award.entry };
                orders.push((
                    t,
                    issue_id(t, award.entry),
                    SatelliteCommand::Issue {
                        ticket,
                        player: award.player.clone(),
                        value: terms.seat_value,
                        target: terms.target,
                        place: award.place,
                        prize: terms.prize,
                        expires: terms.expiry(at),
                        at,
                    },
                ));
            }
        }
        orders
    }

    /// A satellite's own events: the ticket a seat passed down to is ordered issued (again),
    /// which takes its seat on the target.
    pub fn on_satellite(&self, satellite: TournamentId, events: &[SatelliteEvent]) -> Vec<Order> {
        events
            .iter()
            .filter_map(|e| match e {
                SatelliteEvent::SeatPassedDown(passed) => events.iter().find_map(|i| match i {
                    SatelliteEvent::TicketIssued(issued) if issued.ticket == passed.to => Some(issued),
                    _ => None,
                }),
                _ => None,
            })
            .map(|issued| {
                (
                    satellite,
                    issue_id(satellite, issued.ticket.entry),
                    SatelliteCommand::Issue {
                        ticket: issued.ticket,
                        player: issued.player.clone(),
                        value: issued.value,
                        target: issued.target,
                        place: issued.place,
                        prize: SatellitePrize::Seat,
                        expires: issued.expires,
                        at: issued.at,
                    },
                )
            })
            .collect()
    }
}

/// The satellites service's memory: the policy, and the read model its verbs answer from.
/// Stored in the service's snapshot ([`floor_runtime::policy`]).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// The policy.
    pub policy: Policy,
    /// Satellites and tickets.
    pub views: Views,
}

impl Memory {
    /// The target `t` cancelled: every ticket held for it, of a satellite that refunds as
    /// cash, is converted (the tickets that paid an entry come back converted with the refund).
    fn held_for_cancelled(&self, t: TournamentId, at: DateTime<Utc>) -> Vec<Order> {
        self.views
            .held_for(t)
            .into_iter()
            .filter(|ticket| self.policy.cash_if_cancelled(ticket.satellite))
            .map(|ticket| (ticket.satellite, convert_id(ticket), cancelled_conversion(ticket, at)))
            .collect()
    }

    /// A seat won for a target already cancelled stays a ticket (`seat_refused` with
    /// `tournament_cancelled`): converted where the satellite refunds as cash.
    fn refused_by_cancelled(&self, satellite: TournamentId, events: &[SatelliteEvent]) -> Vec<Order> {
        if !self.policy.cash_if_cancelled(satellite) {
            return vec![];
        }
        events
            .iter()
            .filter_map(|e| match e {
                SatelliteEvent::SeatRefused(r) if r.code == floor_events::codes::TOURNAMENT_CANCELLED => {
                    Some((satellite, convert_id(r.ticket), cancelled_conversion(r.ticket, r.at)))
                }
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
impl Memory {
    /// [`Memory::held_for_cancelled`] for `t`'s events, as `react` calls it.
    pub(crate) fn on_cancelled_for_test(&self, t: TournamentId, events: &[TournamentEvent]) -> Vec<Order> {
        events
            .iter()
            .filter_map(|e| match e {
                TournamentEvent::TournamentCancelled(c) => Some(self.held_for_cancelled(t, c.at)),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// [`Memory::refused_by_cancelled`], as `react` calls it.
    pub(crate) fn refused_for_test(&self, satellite: TournamentId, events: &[SatelliteEvent]) -> Vec<Order> {
        self.refused_by_cancelled(satellite, events)
    }
}

fn cancelled_conversion(ticket: TicketRef, at: DateTime<Utc>) -> SatelliteCommand {
    SatelliteCommand::Convert { ticket, holder: None, cause: ConversionCause::TargetCancelled, allowed: true, at }
}

impl floor_runtime::policy::Policy for Memory {
    type Order = Order;

    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit("satellites") else { return vec![] };
        let t = decoded.tournament();
        match &decoded.events {
            Events::Tournament(e) => {
                self.views.apply_tournament(t, e);
                let mut orders = self.policy.on_tournament(t, e);
                if let Some(TournamentEvent::TournamentCancelled(cancelled)) =
                    e.iter().find(|e| matches!(e, TournamentEvent::TournamentCancelled(_)))
                {
                    orders.extend(self.held_for_cancelled(t, cancelled.at));
                }
                orders
            }
            Events::Payouts(e) => self.policy.on_payouts(t, commit.at, e),
            Events::Satellite(e) => {
                self.views.apply_satellite(e);
                let mut orders = self.policy.on_satellite(t, e);
                orders.extend(self.refused_by_cancelled(t, e));
                orders
            }
            _ => vec![],
        }
    }
}
