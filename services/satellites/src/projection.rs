//! The read model the `tickets` and `satellite` verbs answer from: every satellite's terms (from
//! its definition) and every ticket as its satellite's log leaves it. Pure folds, kept in the
//! satellites policy's memory (so snapshotted with it, [`crate::policy::Memory`]).

use crate::domain::{fold, Ticket};
use floor_events::registration::TournamentEvent;
use floor_events::satellites::{SatelliteEvent, SatelliteTerms, SatelliteView, TicketLedger, TicketRef, TicketState, TicketView};
use floor_events::{CommandId, PlayerId, TournamentId};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Satellites and tickets.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Views {
    /// Every satellite's terms, by the satellite's id.
    #[serde(with = "floor_runtime::snapshot::pairs")]
    satellites: HashMap<TournamentId, SatelliteTerms>,
    /// Every ticket.
    #[serde(with = "floor_runtime::snapshot::pairs")]
    tickets: HashMap<TicketRef, Ticket>,
}

/// A ticket left being spent: registration was asked (`command_id`) and its answer is not
/// stored. The service asks again at its start and stores the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// The ticket.
    pub ticket: TicketRef,
    /// Its holder.
    pub player: PlayerId,
    /// Where it is being spent.
    pub tournament: TournamentId,
    /// What it is worth.
    pub value: floor_events::Money,
    /// The command registration was sent.
    pub command_id: CommandId,
}

impl Views {
    /// Folds registration's events of tournament `t`: a satellite's terms at its creation.
    pub fn apply_tournament(&mut self, t: TournamentId, events: &[TournamentEvent]) {
        for e in events {
            if let TournamentEvent::TournamentCreated(created) = e {
                if let Some(terms) = created.definition.satellite {
                    self.satellites.insert(t, terms.under(created.definition.profile));
                }
            }
        }
    }

    /// Folds one commit of a satellite's tickets.
    pub fn apply_satellite(&mut self, events: &[SatelliteEvent]) {
        for e in events {
            fold(&mut self.tickets, e);
        }
    }

    /// A player's tickets, every state, in ticket order.
    pub fn tickets_of(&self, player: &PlayerId) -> Vec<TicketView> {
        let mut theirs: Vec<TicketView> = self.tickets.iter().filter(|(_, t)| &t.player == player).map(|(r, t)| t.view(*r)).collect();
        theirs.sort_by_key(|v| v.ticket);
        theirs
    }

    /// One ticket.
    pub fn ticket(&self, ticket: TicketRef) -> Option<TicketView> {
        self.tickets.get(&ticket).map(|t| t.view(ticket))
    }

    /// One satellite: its terms, every ticket it issued in entry order, where their value
    /// stands, and its level in its step tree. `None` for a tournament that is no satellite.
    pub fn satellite(&self, id: TournamentId) -> Option<SatelliteView> {
        let terms = *self.satellites.get(&id)?;
        let mut tickets: Vec<TicketView> = self.tickets.iter().filter(|(r, _)| r.satellite == id).map(|(r, t)| t.view(*r)).collect();
        tickets.sort_by_key(|v| v.ticket);
        let mut ledger = TicketLedger::default();
        for t in &tickets {
            ledger.add(t.state, t.value.amount);
        }
        let (level, top) = self.level(id);
        Some(SatelliteView { tournament_id: id, terms, tickets, ledger, level, top: Some(top) })
    }

    /// A satellite's level in its step tree and the tree's top (000 §16.13).
    pub fn level(&self, id: TournamentId) -> (u32, TournamentId) {
        floor_events::satellites::level(id, |t| self.satellites.get(&t).map(|terms| terms.target))
    }

    /// Tickets held (issued, not spent) for target `t`, in ticket order.
    pub fn held_for(&self, t: TournamentId) -> Vec<TicketRef> {
        let mut held: Vec<TicketRef> =
            self.tickets.iter().filter(|(_, ticket)| ticket.target == t && ticket.state == TicketState::Issued).map(|(r, _)| *r).collect();
        held.sort();
        held
    }

    /// Tickets being spent whose answer is not stored, in ticket order.
    pub fn unfinished(&self) -> Vec<Unfinished> {
        let mut open: Vec<Unfinished> = self
            .tickets
            .iter()
            .filter(|(_, t)| t.state == TicketState::Spending)
            .filter_map(|(r, t)| {
                let (tournament, command_id) = t.spending?;
                Some(Unfinished { ticket: *r, player: t.player.clone(), tournament, value: t.value, command_id })
            })
            .collect();
        open.sort_by_key(|u| u.ticket);
        open
    }
}
