//! Rebuys, add-ons: the requests players and directors send, and the rebuys aggregate's events
//! (`floor.ev.rebuys.<tournament_id>`). Spec §6; 000 §16.7, 002 §2.3 and §2.6, 003, TDA R27.
//!
//! A stack that reaches zero while a rebuy is possible is not eliminated: the rebuy is offered
//! ([`RebuyEvent::RebuyOffered`], which the player's client and the table see) and the entry is
//! out only when the offer is declined, lapses or the rebuy period ends
//! ([`RebuyEvent::RebuyForgone`]). Chips bought reach the table for its next hand, through the
//! table protocol's `add_chips`. Every purchase carries its ledger lines, like an entry.
//!
//! Re-entry is a new entry: registration's `register` (see [`crate::registration`]).

use crate::ids::{CommandId, EntryNo, PlayerId, TournamentId};
use crate::tournament::{AddOnTerms, EntryLedger, RebuyTerms};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Verbs of the rebuys service: `floor.cmd.rebuys.<verb>`.
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// A player's rebuy.
    pub const REBUY: Verb<Purchase, RebuysRecorded> = Verb::new(service::REBUYS, "rebuy");
    /// A player declines the rebuy offered: the entry is out.
    pub const DECLINE: Verb<Purchase, RebuysRecorded> = Verb::new(service::REBUYS, "decline");
    /// A player's add-on at the break.
    pub const ADD_ON: Verb<Purchase, RebuysRecorded> = Verb::new(service::REBUYS, "add_on");
    /// The director ends the rebuy period early.
    pub const END_REBUYS: Verb<DirectorRequest, RebuysRecorded> = Verb::new(service::REBUYS, "end_rebuys");
    /// The director ends the add-on break early.
    pub const END_ADD_ONS: Verb<DirectorRequest, RebuysRecorded> = Verb::new(service::REBUYS, "end_add_ons");
}

/// A player's rebuy, decline or add-on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Purchase {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The player.
    pub player: PlayerId,
    /// Which entry, when the player holds several (multi-entry); absent: the player's one live
    /// entry.
    #[serde(default)]
    pub entry: Option<EntryNo>,
}

/// A director's request on one tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectorRequest {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
}

/// Why a rebuy offer ended without a rebuy: the entry is eliminated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Forgone {
    /// The player said no.
    Declined,
    /// The player did not answer in time.
    Lapsed,
    /// The rebuy period ended first.
    PeriodOver,
    /// The entry used every rebuy it may take; nothing was offered.
    CapReached,
}

/// Why nothing more can be bought (issue 33).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClosedCause {
    /// The tournament was cancelled: before its start (registration's `tournament_cancelled`)
    /// or in play (the abort aggregate's `cancelled`).
    Cancelled,
    /// The tournament is over: its winner is known (registration's `tournament_finished`).
    Finished,
}

/// The rebuys aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RebuyEvent {
    /// The tournament's terms.
    RebuysConfigured {
        /// The tournament.
        tournament_id: TournamentId,
        /// Rebuy terms, if it has rebuys.
        rebuy: Option<RebuyTerms>,
        /// Add-on terms, if it has an add-on.
        add_on: Option<AddOnTerms>,
    },
    /// An entry is in play (registration, late registration, re-entry).
    EntryJoined {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
    },
    /// The tournament started: the rebuy period is open.
    RebuyPeriodOpened {
        /// When.
        at: DateTime<Utc>,
    },
    /// A stack reached zero and a rebuy is offered until `until`.
    RebuyOffered {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// The offer lapses then.
        until: DateTime<Utc>,
        /// Rebuys this entry has taken so far.
        taken: u32,
    },
    /// A rebuy was bought.
    RebuyTaken {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// This entry's rebuy number, from 1.
        number: u32,
        /// Chips added.
        chips: u64,
        /// What was paid and where it went.
        ledger: EntryLedger,
        /// When.
        at: DateTime<Utc>,
    },
    /// An offer ended without a rebuy (or none could be made): the entry is out.
    RebuyForgone {
        /// The entry.
        entry: EntryNo,
        /// Why.
        reason: Forgone,
    },
    /// The entry left play (eliminated, as seating records it).
    EntryOut {
        /// The entry.
        entry: EntryNo,
    },
    /// The rebuy period is over; with an add-on, it is offered now to every entry still in.
    RebuyPeriodEnded {
        /// When.
        at: DateTime<Utc>,
        /// The add-on is open.
        add_on_open: bool,
    },
    /// An add-on was bought.
    AddOnTaken {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// Chips added.
        chips: u64,
        /// What was paid and where it went.
        ledger: EntryLedger,
        /// When.
        at: DateTime<Utc>,
    },
    /// The add-on break is over.
    AddOnsClosed {
        /// When.
        at: DateTime<Utc>,
    },
    /// Nothing more can be bought, for good: the tournament was cancelled or is over (issue
    /// 33). Every rebuy, add-on and decline after it is refused, and an offer still open stands
    /// no more (it does not lapse: nobody is out of a tournament that ended).
    PurchasesClosed {
        /// Cancelled or finished.
        cause: ClosedCause,
        /// When the tournament was cancelled or ended.
        at: DateTime<Utc>,
    },
    /// Play is suspended (the abort aggregate's `suspended`): no rebuy, add-on or decline until
    /// [`RebuyEvent::PlayResumed`], and no offer lapses meanwhile (issue 33).
    PlaySuspended {
        /// When play stopped.
        at: DateTime<Utc>,
    },
    /// Play resumed after a suspension: buying is as it was before it; the offers open at the
    /// suspension were made again with the time they had left, in the same commit.
    PlayResumed {
        /// When play started again.
        at: DateTime<Utc>,
    },
}

/// The reply to a purchase or director request: the events it recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RebuysRecorded {
    /// The events the command recorded (empty when it was already done).
    pub events: Vec<RebuyEvent>,
}
