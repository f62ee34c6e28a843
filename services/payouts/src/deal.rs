//! Deals (issue 22): the remaining players divide the prizes they have not yet won, and play
//! goes on with each later elimination paid the agreed amount.
//!
//! Spec: `../shared/spec/README.md` §7 (004 §4.35, 000 §16.8: every remaining player agrees);
//! `practice.md` §3.1 (PokerStars: every player agrees, the tournament pauses, each elimination
//! then pays the agreed amount). The money is [`floor_rules::deal`]'s; this room decides who may
//! propose, accept and reject, and what the aggregate records.
//!
//! - A remaining player proposes; proposing is their acceptance. The proposal names every
//!   remaining entry with its chips and its amount, so each player sees what they accept.
//! - Every other remaining player accepts (a second accept is refused), or one rejects: the
//!   deal is off. When the last one accepts, the same commit records `deal_agreed`.
//! - A player out while a deal is under discussion voids it (its amounts were for a field that
//!   no longer exists); a new one can be proposed.
//! - Once agreed, no other deal: each elimination is paid its entry's share, the winner its
//!   share plus what is left to play for (`domain::award_hand`). The shares and what is left
//!   add up to the unpaid prizes, so the books still close to the cent.

use crate::domain::{PayoutState, PayoutsError};
use floor_events::payouts::{DealMethod, DealMethodKind, DealShare, PayoutEvent};
use floor_events::{EntryNo, Money, PlayerId};
use floor_rules::deal::{self as rules, DealPlayer, DealTerms};

/// The house's least amount left to play for, when any is left: 10 % of the unpaid prizes
/// (MSPT's rule, `practice.md` §3.3), in basis points.
pub const MIN_LEFT_TO_PLAY_FOR_BPS: u32 = 1_000;

/// A remaining entry as the command carries it (the service's reading of the seating log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remaining {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// Its chips.
    pub chips: u64,
}

/// A proposal as the aggregate is asked to record it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// Who proposes.
    pub proposer: PlayerId,
    /// Every remaining entry with its chips.
    pub remaining: Vec<Remaining>,
    /// How the money is split.
    pub method: DealMethod,
    /// Kept for the winner.
    pub left_to_play_for: Option<Money>,
    /// The house's least amount left to play for, in basis points of the unpaid prizes.
    pub min_left_bps: u32,
    /// Once agreed, the deal ends the tournament (000 §16.8, 004 §4.35).
    pub ends_tournament: bool,
    /// The tournament has bounties (the policy read its definition).
    pub bounties: bool,
}

/// A deal the aggregate holds: under discussion, or agreed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealState {
    /// One per remaining entry.
    pub shares: Vec<DealShare>,
    /// Paid to the winner on top of their share.
    pub left_to_play_for: u64,
    /// Players who accepted (the proposer first).
    pub accepted: Vec<PlayerId>,
    /// Every remaining player accepted.
    pub agreed: bool,
    /// Once agreed, it ends the tournament.
    pub ends_tournament: bool,
}

impl DealState {
    /// The players in the deal, each once, in share order.
    pub fn players(&self) -> Vec<&PlayerId> {
        let mut players: Vec<&PlayerId> = Vec::new();
        for s in &self.shares {
            if !players.contains(&&s.player) {
                players.push(&s.player);
            }
        }
        players
    }

    /// What `entry` is paid when it goes out, the winner's part aside (0 for an entry the deal
    /// does not name: never in a consistent log, since any elimination before the agreement
    /// voids the proposal).
    pub fn share(&self, entry: EntryNo) -> u64 {
        self.shares.iter().find(|s| s.entry == entry).map_or(0, |s| s.amount)
    }

    fn everyone_accepted(&self) -> bool {
        self.players().iter().all(|p| self.accepted.contains(p))
    }
}

/// A proposal: guards first (paid, no table, a deal open or agreed, a proposer not remaining,
/// money in another currency), then the money ([`rules::deal`]) and the guarantee of each place.
pub fn propose(state: &PayoutState, p: Proposal) -> Result<Vec<PayoutEvent>, PayoutsError> {
    if state.paid {
        return Err(PayoutsError::AlreadyPaid);
    }
    let Some((table, pool)) = &state.table else { return Err(PayoutsError::TableNotLocked) };
    match &state.deal {
        Some(d) if d.agreed => return Err(PayoutsError::DealAlreadyAgreed),
        Some(_) => return Err(PayoutsError::DealAlreadyProposed),
        None => {}
    }
    let remaining: Vec<Remaining> = p.remaining.into_iter().filter(|r| !state.placed.contains(&r.entry)).collect();
    if !remaining.iter().any(|r| r.player == p.proposer) {
        return Err(PayoutsError::NotRemaining(p.proposer));
    }
    let same_currency = |m: &Money| {
        if m.currency == pool.currency {
            Ok(m.amount)
        } else {
            Err(PayoutsError::DealCurrency { given: m.currency.to_string(), pool: pool.currency.to_string() })
        }
    };
    let left_to_play_for = p.left_to_play_for.as_ref().map(same_currency).transpose()?;
    let (kind, method) = match &p.method {
        DealMethod::Icm => (DealMethodKind::Icm, rules::DealMethod::Icm),
        DealMethod::ChipChop => (DealMethodKind::ChipChop, rules::DealMethod::ChipChop),
        DealMethod::Equal => (DealMethodKind::Equal, rules::DealMethod::Equal),
        DealMethod::Custom { amounts } => {
            (DealMethodKind::Custom, rules::DealMethod::Custom(custom_amounts(&remaining, amounts, same_currency)?))
        }
    };
    let n = remaining.len();
    // Places n+1 and below are awarded; the unpaid prizes are those of places 1..=n (fewer on
    // the bubble: the places below pay nothing).
    let places = u32::try_from(n).unwrap_or(u32::MAX).min(table.places());
    let unpaid: Vec<u64> = (1..=places).map(|place| table.prize(place)).collect();
    let players: Vec<DealPlayer<EntryNo>> = remaining.iter().map(|r| DealPlayer { player: r.entry, chips: r.chips }).collect();
    let terms = DealTerms { method, left_to_play_for, min_left_bps: p.min_left_bps };
    // The bounties on the heads still in have no rule to be paid at a deal's end yet: a bounty
    // tournament's deal plays on (each later knockout pays its bounty as before).
    if p.ends_tournament && p.bounties {
        return Err(PayoutsError::EndingDealWithBounties);
    }
    // A deal that ends the tournament leaves nobody to play for what it kept out.
    if let Some(kept) = left_to_play_for.filter(|&kept| p.ends_tournament && kept > 0) {
        return Err(PayoutsError::EndingDealKeepsMoney(kept));
    }
    let deal = rules::deal(&players, &unpaid, &terms).map_err(PayoutsError::Deal)?;
    // Whatever happens, each remaining player wins at least the prize of place n.
    let guaranteed = if unpaid.len() == n { unpaid.last().copied().unwrap_or(0) } else { 0 };
    let shares: Vec<DealShare> = remaining
        .iter()
        .zip(&deal.amounts)
        .map(|(r, (_, amount))| DealShare { entry: r.entry, player: r.player.clone(), chips: r.chips, amount: *amount })
        .collect();
    if let Some(below) = shares.iter().find(|s| s.amount < guaranteed) {
        return Err(PayoutsError::BelowGuaranteedPrize { player: below.player.clone(), amount: below.amount, guaranteed });
    }
    let mut events = vec![PayoutEvent::DealProposed {
        proposer: p.proposer.clone(),
        method: kind,
        shares: shares.clone(),
        left_to_play_for: deal.left_to_play_for,
        pool: deal.pool,
        ends_tournament: p.ends_tournament,
    }];
    // One player holding every remaining entry (multi-entry) agrees with themselves.
    if shares.iter().all(|s| s.player == p.proposer) {
        events.push(PayoutEvent::DealAgreed { shares, left_to_play_for: deal.left_to_play_for, ends_tournament: p.ends_tournament });
    }
    Ok(events)
}

/// A custom deal's amounts in the order of `remaining`: one per remaining entry, named by its
/// player (and entry, when the player has several still in).
fn custom_amounts(
    remaining: &[Remaining],
    amounts: &[floor_events::payouts::CustomAmount],
    amount_of: impl Fn(&Money) -> Result<u64, PayoutsError>,
) -> Result<Vec<u64>, PayoutsError> {
    let mismatch = |reason: String| PayoutsError::CustomAmounts(reason);
    if amounts.len() != remaining.len() {
        return Err(mismatch(format!("{} amounts for {} remaining players", amounts.len(), remaining.len())));
    }
    let mut ordered = vec![None; remaining.len()];
    for a in amounts {
        let mut matching = remaining.iter().enumerate().filter(|(_, r)| r.player == a.player && a.entry.is_none_or(|e| e == r.entry));
        let Some((i, _)) = matching.next() else {
            return Err(mismatch(format!("{} is not a remaining player", a.player)));
        };
        if matching.next().is_some() {
            return Err(mismatch(format!("{} has several entries still in: name the entry", a.player)));
        }
        if ordered[i].is_some() {
            return Err(mismatch(format!("{} is given two amounts", a.player)));
        }
        ordered[i] = Some(amount_of(&a.amount)?);
    }
    // As many amounts as entries, none twice: every entry has one.
    Ok(ordered.into_iter().map(|a| a.unwrap_or(0)).collect())
}

/// A remaining player's acceptance; the last one agrees the deal.
pub fn accept(state: &PayoutState, player: PlayerId) -> Result<Vec<PayoutEvent>, PayoutsError> {
    let deal = open(state, &player)?;
    if deal.accepted.contains(&player) {
        return Err(PayoutsError::DealAlreadyAccepted(player));
    }
    let mut events = vec![PayoutEvent::DealAccepted { player: player.clone() }];
    let mut after = deal.clone();
    after.accepted.push(player);
    if after.everyone_accepted() {
        events.push(PayoutEvent::DealAgreed {
            shares: after.shares,
            left_to_play_for: after.left_to_play_for,
            ends_tournament: after.ends_tournament,
        });
    }
    Ok(events)
}

/// A remaining player's rejection: the deal is off.
pub fn reject(state: &PayoutState, player: PlayerId) -> Result<Vec<PayoutEvent>, PayoutsError> {
    open(state, &player)?;
    Ok(vec![PayoutEvent::DealRejected { player }])
}

/// The deal under discussion, when `player` is in it.
fn open<'s>(state: &'s PayoutState, player: &PlayerId) -> Result<&'s DealState, PayoutsError> {
    if state.paid {
        return Err(PayoutsError::AlreadyPaid);
    }
    let deal = match &state.deal {
        None => return Err(PayoutsError::NoDealProposed),
        Some(d) if d.agreed => return Err(PayoutsError::DealAlreadyAgreed),
        Some(d) => d,
    };
    if !deal.shares.iter().any(|s| &s.player == player) {
        return Err(PayoutsError::NotRemaining(player.clone()));
    }
    Ok(deal)
}

/// The deal after one of its events (trusts the event; never fails).
pub fn evolve(deal: Option<DealState>, event: PayoutEvent) -> Option<DealState> {
    match event {
        PayoutEvent::DealProposed { proposer, shares, left_to_play_for, ends_tournament, .. } => {
            Some(DealState { shares, left_to_play_for, accepted: vec![proposer], agreed: false, ends_tournament })
        }
        PayoutEvent::DealAccepted { player } => deal.map(|mut d| {
            if !d.accepted.contains(&player) {
                d.accepted.push(player);
            }
            d
        }),
        PayoutEvent::DealRejected { .. } | PayoutEvent::DealVoided { .. } => None,
        PayoutEvent::DealAgreed { shares, left_to_play_for, ends_tournament } => {
            let accepted = deal.map(|d| d.accepted).unwrap_or_default();
            Some(DealState { shares, left_to_play_for, accepted, agreed: true, ends_tournament })
        }
        _ => deal,
    }
}
