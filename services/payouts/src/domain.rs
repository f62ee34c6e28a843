//! The payouts aggregate: one per tournament. Pure: the field and the eliminations come in the
//! commands, read by the policy from the log.
//!
//! It locks the payout table once the field is final, gives every eliminated player their
//! place (players out in the same hand ranked by the profile, shared places split to the minor
//! unit), and, when the last opponent is out, pays the winner and records that every paid
//! place is paid. Nobody is placed twice; the prizes sum to the pool exactly. A satellite that
//! stops with as many entries left as seats (issue 36) pays every survivor a place at once
//! ([`PayoutCommand::Shared`]); so does a double or nothing (issue 37), whose field's
//! `seat_value` is the cut's equal prize. A lottery sit & go's table is its draw
//! ([`PayoutCommand::LockDrawn`], issue 37).
//!
//! Deals (`crate::deal`): the remaining players propose, accept or reject a division of the
//! unpaid prizes; once agreed, each elimination is paid its share instead of the table's prize.

use crate::deal::{self, DealState, Proposal};
use esrs::Aggregate;
use floor_events::bubble::ANNOUNCEMENT_HAND;
use floor_events::payouts::{LockCause, PayoutEvent, PlaceAward, PrizeBand};
use floor_events::{codes, subjects, EntryNo, Money, PlayerId, TournamentId};
use floor_rules::field::{places_at_most, table_with_stakes, FieldError, Stakes};
use floor_rules::payout_table::{Band, PayoutTable};
use floor_rules::standings::{award, rank, rank_together, Bust, Finish, Ordering};
use std::collections::HashSet;

/// The field the commands carry. Re-exported because it is part of [`PayoutCommand`]; the
/// rule that turns it into a table ([`floor_rules::field::table_for`]) is shared with the lobby.
pub use floor_rules::field::Field;

/// The payouts aggregate.
pub struct PayoutsAggregate;

/// A player out in a hand.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Eliminated {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// Chips at the start of the hand.
    pub stack_at_start: u64,
    /// The table.
    pub table: u32,
    /// Seat order in the hand (0 left of the button, the button last; `u32::MAX` unknown):
    /// ranks equal stacks under `seat_order` and orders the remainder of a split.
    #[serde(default = "unknown_seat")]
    pub seat_order: u32,
}

fn unknown_seat() -> u32 {
    u32::MAX
}

/// What the payouts aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayoutCommand {
    /// The field is final: lock the payout table.
    Lock {
        /// The field.
        field: Field,
        /// Why now.
        cause: LockCause,
    },
    /// Players went out in one hand; `winner` when one player is left.
    Award {
        /// The field now (locks the table if this hand reaches the money first).
        field: Field,
        /// Players in before the hand's eliminations.
        players_left_before: u32,
        /// Who went out.
        eliminated: Vec<Eliminated>,
        /// The last player in.
        winner: Option<(EntryNo, PlayerId)>,
        /// The hand-for-hand hand they went out in, every table's busts of it together (0: the
        /// announcement hand, whose busts share their places).
        hand_for_hand: Option<u64>,
    },
    /// A satellite stopped with as many entries left as seats (issue 36, 000 §16.7:
    /// registration's `tournament_finished` with `shared_by`): every survivor not placed yet
    /// takes a place, 1 … n in the order given (the winner first), each paid its place's prize
    /// (the seat value), and the tournament is paid. Locks the table first if it is not yet.
    Shared {
        /// The field now.
        field: Field,
        /// The entries still in, the winner first.
        survivors: Vec<(EntryNo, PlayerId)>,
    },
    /// A lottery sit & go's table, drawn (issue 37; the lottery aggregate's `prize_drawn`): the
    /// pool is the drawn pool and each place pays its drawn prize, whatever the field
    /// contributed. What the drawn pool holds beyond the contributions is the operator's
    /// overlay; what it holds less, the operator keeps (the books' lottery line). Locks once.
    LockDrawn {
        /// The field (its entries and contributions, for the books).
        field: Field,
        /// The drawn pool.
        pool: Money,
        /// Each place's prize, first place first; sums to `pool`.
        prizes: Vec<u64>,
    },
    /// A `Lock`, an `Award` or a `Shared` with the field's stakes: under `reel-cz` a guaranteed pool is at
    /// most 95 % of them (003 App. 1 b ix, [`floor_rules::field::prize_cap`], issue 38). The
    /// policy sends its `Lock` and `Award` so wrapped for a field the cap can bind (a
    /// guaranteed `reel-cz` tournament); any other command inside is handled as it is.
    WithStakes {
        /// What the players paid in, fees included, and its bounty pool.
        stakes: Stakes,
        /// The `Lock` or `Award`.
        command: Box<PayoutCommand>,
    },
    /// A flight's Day 1 pool paid over to its Day 2 (issue 36, 004 §4.36.11): sent to both
    /// tournaments' aggregates when the Day 1 stops; each records it once.
    TransferPool(floor_events::flights::PoolTransferred),
    /// A remaining player proposes a deal.
    ProposeDeal(Proposal),
    /// A remaining player accepts the deal under discussion.
    AcceptDeal {
        /// Who.
        player: PlayerId,
    },
    /// A remaining player rejects it.
    RejectDeal {
        /// Who.
        player: PlayerId,
    },
}

/// Why a command was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayoutsError {
    /// The tournament has been paid already.
    #[error("the tournament has been paid: every place is awarded")]
    AlreadyPaid,
    /// The entry has its place already.
    #[error("entry {0} already has its place")]
    AlreadyPlaced(EntryNo),
    /// More players out than were in.
    #[error("{out} players out of {left} left")]
    MorePlayersOutThanIn {
        /// Players out in this command.
        out: u32,
        /// Players left before it.
        left: u32,
    },
    /// The guarantee is in another currency than the buy-ins.
    #[error("the guarantee is in {guarantee}, the prize pool in {pool}")]
    CurrencyMismatch {
        /// The guarantee's currency.
        guarantee: String,
        /// The pool's.
        pool: String,
    },
    /// A deal before the payout table is locked.
    #[error("the payout table is not locked yet: the prizes could still change")]
    TableNotLocked,
    /// The player is not one of the remaining players.
    #[error("{0} is not a remaining player")]
    NotRemaining(PlayerId),
    /// A deal is under discussion already.
    #[error("a deal is under discussion already")]
    DealAlreadyProposed,
    /// A deal was agreed already.
    #[error("the remaining players agreed a deal already")]
    DealAlreadyAgreed,
    /// A deal to end the tournament that keeps money out of the split: nobody would play for it.
    #[error("a deal that ends the tournament leaves nothing to play for: {0} was kept out of the split")]
    EndingDealKeepsMoney(u64),
    /// A deal to end a bounty tournament: the bounties still on heads would stay unpaid.
    #[error("a deal cannot end a bounty tournament: the bounties on the heads still in would stay unpaid (play on: the deal pays each its amount as it goes out)")]
    EndingDealWithBounties,
    /// No deal is under discussion.
    #[error("no deal is under discussion")]
    NoDealProposed,
    /// The player accepted this deal already.
    #[error("{0} accepted this deal already")]
    DealAlreadyAccepted(PlayerId),
    /// A deal's money in another currency than the pool.
    #[error("the deal's amounts are in {given}, the prize pool in {pool}")]
    DealCurrency {
        /// The currency given.
        given: String,
        /// The pool's.
        pool: String,
    },
    /// A custom deal's amounts do not name each remaining entry once.
    #[error("{0}")]
    CustomAmounts(String),
    /// A share below what the player's place already guarantees.
    #[error("{player} would get {amount}, less than the {guaranteed} every remaining player is sure to win")]
    BelowGuaranteedPrize {
        /// Whose share.
        player: PlayerId,
        /// The share.
        amount: u64,
        /// The prize of the last remaining place.
        guaranteed: u64,
    },
    /// The money of the deal does not work out ([`floor_rules::deal::DealError`]).
    #[error(transparent)]
    Deal(floor_rules::deal::DealError),
    /// A lottery draw whose prizes do not sum to its pool (or do not fit a sum): nothing is
    /// locked from it.
    #[error("the drawn prizes sum to {prizes}, not to the drawn pool {pool}")]
    DrawDoesNotSum {
        /// The prizes' sum (`None`: past `u64::MAX`).
        prizes: String,
        /// The drawn pool.
        pool: u64,
    },
}

impl From<FieldError> for PayoutsError {
    fn from(error: FieldError) -> Self {
        match error {
            FieldError::CurrencyMismatch { guarantee, pool } => {
                Self::CurrencyMismatch { guarantee: guarantee.to_string(), pool: pool.to_string() }
            }
        }
    }
}

impl floor_runtime::DomainError for PayoutsError {
    fn code(&self) -> &'static str {
        match self {
            Self::AlreadyPaid => codes::ALREADY_PAID,
            Self::AlreadyPlaced(_) => codes::ALREADY_PLACED,
            Self::MorePlayersOutThanIn { .. } | Self::DrawDoesNotSum { .. } => codes::INVALID_FIELD,
            Self::CurrencyMismatch { .. } | Self::DealCurrency { .. } => codes::CURRENCY_MISMATCH,
            Self::TableNotLocked => codes::DEAL_TABLE_NOT_LOCKED,
            Self::NotRemaining(_) => codes::NOT_REMAINING,
            Self::DealAlreadyProposed => codes::DEAL_ALREADY_PROPOSED,
            Self::DealAlreadyAgreed => codes::DEAL_ALREADY_AGREED,
            Self::EndingDealKeepsMoney(_) | Self::EndingDealWithBounties => codes::INVALID_FIELD,
            Self::NoDealProposed => codes::NO_DEAL_PROPOSED,
            Self::DealAlreadyAccepted(_) => codes::DEAL_ALREADY_ACCEPTED,
            Self::CustomAmounts(_) => codes::DEAL_AMOUNTS_DO_NOT_MATCH_PLAYERS,
            Self::BelowGuaranteedPrize { .. } => codes::DEAL_BELOW_GUARANTEED_PRIZE,
            Self::Deal(e) => e.code(),
        }
    }
}

/// A tournament's payouts so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PayoutState {
    /// The locked table, with its pool.
    pub table: Option<(PayoutTable, Money)>,
    /// What the operator added to meet the guarantee.
    pub overlay: u64,
    /// Entries that have their place.
    pub placed: HashSet<EntryNo>,
    /// Sum of the awards so far.
    pub prizes_paid: u64,
    /// Every paid place is paid.
    pub paid: bool,
    /// The deal under discussion, or the one agreed.
    pub deal: Option<DealState>,
    /// A flight's pools transferred (issue 36), by Day 1: each once.
    pub transferred: HashSet<TournamentId>,
}

fn locked(field: &Field, stakes: Option<Stakes>, cause: LockCause) -> Result<PayoutEvent, PayoutsError> {
    let (table, pool, overlay) = table_with_stakes(field, stakes)?;
    Ok(PayoutEvent::PayoutTableLocked {
        entries: field.entries,
        contributions: field.contributions,
        guarantee: field.guarantee,
        overlay: Money::new(overlay, pool.currency),
        pool,
        places: table.places(),
        bands: table.bands.iter().map(|b| PrizeBand { from: b.from, to: b.to, amount: b.amount }).collect(),
        cause,
    })
}

fn award_hand(
    state: &PayoutState,
    field: &Field,
    stakes: Option<Stakes>,
    players_left_before: u32,
    eliminated: Vec<Eliminated>,
    winner: Option<(EntryNo, PlayerId)>,
    hand_for_hand: Option<u64>,
) -> Result<Vec<PayoutEvent>, PayoutsError> {
    if state.paid {
        return Err(PayoutsError::AlreadyPaid);
    }
    let out = eliminated.len() as u32;
    if out > players_left_before || (winner.is_some() && out + 1 != players_left_before) {
        return Err(PayoutsError::MorePlayersOutThanIn { out: out + u32::from(winner.is_some()), left: players_left_before });
    }
    let mut seen = HashSet::new();
    for entry in eliminated.iter().map(|e| e.entry).chain(winner.iter().map(|w| w.0)) {
        if state.placed.contains(&entry) || !seen.insert(entry) {
            return Err(PayoutsError::AlreadyPlaced(entry));
        }
    }
    let mut events = Vec::new();
    // A deal still under discussion was for players no longer all in.
    let agreed = match &state.deal {
        Some(d) if d.agreed => Some(d),
        Some(_) => {
            events.push(PayoutEvent::DealVoided { reason: floor_events::payouts::DealVoidReason::Elimination });
            None
        }
        None => None,
    };
    // Lock first if this hand reaches the money while the field could still grow.
    let table = match &state.table {
        Some((table, _)) => table.clone(),
        None => {
            // The best place this hand gives: the winner's, or the best of the busts'.
            let best = if winner.is_some() { 1 } else { players_left_before + 1 - out };
            // Far from the money the count of paid places says so; the table itself (23 ms
            // at 250,000 entries) is built only near it. Built on every eliminating hand, it
            // left payouts an hour behind a 250,000-entrant field.
            if out == 0 && winner.is_none() || best > places_at_most(field) {
                PayoutTable { bands: vec![] }
            } else {
                let (projected, ..) = table_with_stakes(field, stakes)?;
                if best > projected.places() {
                    PayoutTable { bands: vec![] }
                } else {
                    events.push(locked(field, stakes, LockCause::ReachedTheMoney)?);
                    projected
                }
            }
        }
    };
    let mut paid_now = 0;
    if !eliminated.is_empty() {
        let finishes = rank_hand(field, players_left_before, &eliminated, hand_for_hand);
        let amounts = match agreed {
            // Each entry is paid its share, whatever place it takes.
            Some(deal) => finishes.iter().map(|f| (f.entry, deal.share(f.entry))).collect(),
            None => award(&table, &finishes),
        };
        let awards: Vec<PlaceAward> = finishes
            .iter()
            .zip(amounts)
            .map(|(f, (entry, amount))| {
                let player = eliminated.iter().find(|e| e.entry == entry).map(|e| e.player.clone()).expect("ranked from these");
                PlaceAward { entry, player, place: f.place, shared: f.shared, amount }
            })
            .collect();
        paid_now += awards.iter().map(|a| a.amount).sum::<u64>();
        events.push(PayoutEvent::PlacesAwarded { players_left_before, awards, hand_for_hand });
    }
    if let Some((entry, player)) = winner {
        let amount = match agreed {
            // The winner's share and what was left to play for (both bounded by the pool).
            Some(deal) => deal.share(entry).saturating_add(deal.left_to_play_for),
            None => table.prize(1),
        };
        paid_now += amount;
        events.push(PayoutEvent::PlacesAwarded {
            players_left_before: 1,
            awards: vec![PlaceAward { entry, player, place: 1, shared: 1, amount }],
            hand_for_hand: None,
        });
        let currency = state.table.as_ref().map(|(_, pool)| pool.currency).unwrap_or(field.contributions.currency);
        events.push(PayoutEvent::TournamentPaid { prizes_paid: Money::new(state.prizes_paid + paid_now, currency) });
    }
    Ok(events)
}

/// The places of one award's busts: ranked by the profile's rule (the field's ordering: chips at
/// the start of the hand, equal stacks as the rule says), or, for the announcement hand
/// hand-for-hand (TDA RP-8 A), all sharing. The payouts policy ranks an equal-prize stop's
/// hand with it too (issues 36/37), so the survivors it names are the places this pays.
pub fn rank_hand(field: &Field, players_left_before: u32, eliminated: &[Eliminated], hand_for_hand: Option<u64>) -> Vec<Finish> {
    let busts: Vec<Bust> = eliminated
        .iter()
        .map(|e| Bust { entry: e.entry, stack_at_start: e.stack_at_start, table: e.table, seat_order: e.seat_order })
        .collect();
    match hand_for_hand {
        // TDA RP-8 A: everyone out in the hand hand-for-hand was announced in shares.
        Some(ANNOUNCEMENT_HAND) => rank_together(players_left_before, busts),
        _ => rank(players_left_before, busts, Ordering::from(field.ordering())),
    }
}

/// A satellite's shared finish (issue 36; 000 §16.7: "Alternativ kann ein Turnier auch dann
/// enden, wenn alle Spielteilnehmer den gleichen Geldgewinnrang erreicht haben", a tournament
/// may also end when every player has reached the same prize rank; README §9): the survivors
/// not placed yet take places 1 … n in the order given, `shared: 1` each (every one of those
/// places pays the seat value: the stop comes at entries left ≤ seats), then `tournament_paid`.
///
/// A survivor placed already is skipped: seating may have recorded a bust at another table
/// before registration's stop reached it (the places below were then taken by the busts, so
/// 1 … n are exactly the places left). An agreed deal pays each survivor its share, the first
/// the amount left to play for too, as a winner's award does.
fn shared_finish(
    state: &PayoutState,
    field: &Field,
    stakes: Option<Stakes>,
    survivors: Vec<(EntryNo, PlayerId)>,
) -> Result<Vec<PayoutEvent>, PayoutsError> {
    if state.paid {
        return Err(PayoutsError::AlreadyPaid);
    }
    let mut seen = HashSet::new();
    for (entry, _) in &survivors {
        if !seen.insert(*entry) {
            return Err(PayoutsError::AlreadyPlaced(*entry));
        }
    }
    let unplaced: Vec<(EntryNo, PlayerId)> = survivors.into_iter().filter(|(entry, _)| !state.placed.contains(entry)).collect();
    let mut events = Vec::new();
    let table = match &state.table {
        Some((table, _)) => table.clone(),
        None => {
            let (table, ..) = table_with_stakes(field, stakes)?;
            events.push(locked(field, stakes, LockCause::ReachedTheMoney)?);
            table
        }
    };
    let agreed = state.deal.as_ref().filter(|d| d.agreed);
    let mut paid_now: u64 = 0;
    let mut awards = Vec::with_capacity(unplaced.len());
    for (place, (entry, player)) in (1u32..).zip(unplaced) {
        let amount = match agreed {
            Some(deal) if place == 1 => deal.share(entry).saturating_add(deal.left_to_play_for),
            Some(deal) => deal.share(entry),
            None => table.prize(place),
        };
        paid_now = paid_now.saturating_add(amount);
        awards.push(PlaceAward { entry, player, place, shared: 1, amount });
    }
    if !awards.is_empty() {
        events.push(PayoutEvent::PlacesAwarded { players_left_before: awards.len() as u32, awards, hand_for_hand: None });
    }
    let currency = state.table.as_ref().map(|(_, pool)| pool.currency).unwrap_or(field.contributions.currency);
    events.push(PayoutEvent::TournamentPaid { prizes_paid: Money::new(state.prizes_paid.saturating_add(paid_now), currency) });
    Ok(events)
}

/// A lottery game's table from its draw (issue 37): one band per run of equal prizes, places
/// with no prize left out at the end; the pool the drawn one. The overlay is what the pool holds
/// beyond the contributions (the operator adds it); a pool below them is locked as it is, the
/// books counting the difference as the operator's (`crate::books`).
fn locked_drawn(field: &Field, pool: Money, prizes: &[u64]) -> Result<PayoutEvent, PayoutsError> {
    let currency = field.contributions.currency;
    if pool.currency != currency && field.entries > 0 {
        return Err(PayoutsError::CurrencyMismatch { guarantee: pool.currency.to_string(), pool: currency.to_string() });
    }
    let sum = prizes.iter().try_fold(0u64, |sum, &p| sum.checked_add(p));
    if sum != Some(pool.amount) {
        let prizes = sum.map_or_else(|| format!("more than {}", u64::MAX), |s| s.to_string());
        return Err(PayoutsError::DrawDoesNotSum { prizes, pool: pool.amount });
    }
    let paid = prizes.iter().rposition(|&p| p > 0).map_or(0, |last| last + 1);
    let mut bands: Vec<PrizeBand> = Vec::new();
    for (place, &amount) in (1u32..).zip(&prizes[..paid]) {
        match bands.last_mut() {
            Some(band) if band.amount == amount => band.to = place,
            _ => bands.push(PrizeBand { from: place, to: place, amount }),
        }
    }
    Ok(PayoutEvent::PayoutTableLocked {
        entries: field.entries,
        contributions: field.contributions,
        guarantee: field.guarantee,
        overlay: Money::new(pool.amount.saturating_sub(field.contributions.amount), currency),
        pool: Money::new(pool.amount, currency),
        places: bands.last().map_or(0, |b| b.to),
        bands,
        // The field was final at the start (a sit & go's last seat); the table is the draw's.
        cause: LockCause::LotteryDrawn,
    })
}

/// A command, with the field's stakes if a `WithStakes` gave them.
fn handle(state: &PayoutState, command: PayoutCommand, stakes: Option<Stakes>) -> Result<Vec<PayoutEvent>, PayoutsError> {
    match command {
        PayoutCommand::Lock { field, cause } => {
            if state.table.is_some() {
                return Ok(vec![]);
            }
            Ok(vec![locked(&field, stakes, cause)?])
        }
        PayoutCommand::Award { field, players_left_before, eliminated, winner, hand_for_hand } => {
            award_hand(state, &field, stakes, players_left_before, eliminated, winner, hand_for_hand)
        }
        PayoutCommand::Shared { field, survivors } => shared_finish(state, &field, stakes, survivors),
        PayoutCommand::LockDrawn { field, pool, prizes } => {
            if state.table.is_some() {
                return Ok(vec![]);
            }
            Ok(vec![locked_drawn(&field, pool, &prizes)?])
        }
        PayoutCommand::WithStakes { stakes, command } => handle(state, *command, Some(stakes)),
        // Issue 36: a Day 1's pool, paid out of it or into its Day 2, once per Day 1.
        PayoutCommand::TransferPool(transfer) => {
            Ok(if state.transferred.contains(&transfer.day1) { vec![] } else { vec![PayoutEvent::PoolTransferred(transfer)] })
        }
        PayoutCommand::ProposeDeal(proposal) => deal::propose(state, proposal),
        PayoutCommand::AcceptDeal { player } => deal::accept(state, player),
        PayoutCommand::RejectDeal { player } => deal::reject(state, player),
    }
}

impl Aggregate for PayoutsAggregate {
    const NAME: &'static str = subjects::aggregate::PAYOUTS;
    type State = PayoutState;
    type Command = PayoutCommand;
    type Event = PayoutEvent;
    type Error = PayoutsError;

    fn handle_command(state: &PayoutState, command: PayoutCommand) -> Result<Vec<PayoutEvent>, PayoutsError> {
        handle(state, command, None)
    }

    fn apply_event(mut state: PayoutState, event: PayoutEvent) -> PayoutState {
        match event {
            PayoutEvent::PayoutTableLocked { overlay, pool, bands, .. } => {
                let bands = bands.iter().map(|b| Band { from: b.from, to: b.to, amount: b.amount }).collect();
                state.table = Some((PayoutTable { bands }, pool));
                state.overlay = overlay.amount;
            }
            PayoutEvent::PlacesAwarded { awards, .. } => {
                for a in awards {
                    state.placed.insert(a.entry);
                    // Saturating: apply never panics, and the decider never pays past the pool.
                    state.prizes_paid = state.prizes_paid.saturating_add(a.amount);
                }
            }
            PayoutEvent::TournamentPaid { .. } => state.paid = true,
            PayoutEvent::PoolTransferred(transfer) => {
                state.transferred.insert(transfer.day1);
            }
            deal_event => state.deal = deal::evolve(state.deal.take(), deal_event),
        }
        state
    }
}
