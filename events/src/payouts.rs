//! The payouts aggregate (`floor.ev.payouts.<tournament_id>`): the payout table, locked once the
//! field is final, every finishing place with what it pays, and the moment every paid place is
//! paid. The books request on `floor.cmd.payouts.books` sums a tournament's money at any time.
//!
//! Deals (issue 22): a remaining player proposes how the unpaid prizes are divided
//! (`propose_deal`), every remaining player accepts (`accept_deal`) or one rejects
//! (`reject_deal`); once agreed, each later elimination is paid the agreed amount. `deal`
//! shows a tournament's deal. The money is `floor_rules::deal`'s.

use crate::ids::{EntryNo, PlayerId, TournamentId};
use crate::money::{Currency, Money};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Verbs of the payouts service: `floor.cmd.payouts.<verb>`.
pub mod verbs {
    use super::*;
    use crate::contract::Verb;
    use crate::subjects::service;

    /// A tournament's books.
    pub const BOOKS: Verb<BooksRequest, Books> = Verb::new(service::PAYOUTS, "books");
    /// A remaining player proposes a deal (counts as their acceptance).
    pub const PROPOSE_DEAL: Verb<ProposeDeal, DealRecorded> = Verb::new(service::PAYOUTS, "propose_deal");
    /// A remaining player accepts the proposed deal.
    pub const ACCEPT_DEAL: Verb<DealAnswer, DealRecorded> = Verb::new(service::PAYOUTS, "accept_deal");
    /// A remaining player rejects the proposed deal: it is off.
    pub const REJECT_DEAL: Verb<DealAnswer, DealRecorded> = Verb::new(service::PAYOUTS, "reject_deal");
    /// A tournament's deal: the one under discussion or the one agreed.
    pub const DEAL: Verb<DealQuery, DealStatus> = Verb::new(service::PAYOUTS, "deal");
}

/// Equal prizes over a range of places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PrizeBand {
    /// First place of the range (1 = winner).
    pub from: u32,
    /// Last place of the range, inclusive.
    pub to: u32,
    /// Minor units paid to each place in the range.
    pub amount: u64,
}

/// Why the payout table was locked when it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LockCause {
    /// The tournament started with no late registration: the field was final.
    Started,
    /// Late registration (and re-entry) closed.
    LateRegistrationClosed,
    /// A player was about to finish in the money while late registration was still open: the
    /// table is locked with the field as it is, so nobody is paid from a table that changes.
    ReachedTheMoney,
    /// The rebuy period and the add-on break are over (and late registration closed): the
    /// pool stops growing.
    BuyingOver,
    /// A lottery sit & go's table, locked from its draw (issue 37, the lottery aggregate's
    /// `prize_drawn`): the drawn pool and prizes, whatever the field contributed.
    LotteryDrawn,
}

/// One finishing place and what it pays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlaceAward {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// Best place of the range the entry shares (1 = winner).
    pub place: u32,
    /// How many share the range (1 = alone): their prizes are summed and split.
    pub shared: u32,
    /// Minor units paid to this entry (0 out of the money).
    pub amount: u64,
}

/// The payouts aggregate's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PayoutEvent {
    /// The payout table, final: places and amounts sum to `pool` exactly.
    PayoutTableLocked {
        /// Entries in the field (re-entries count).
        entries: u32,
        /// What the entries put into the prize pool.
        contributions: Money,
        /// The guarantee, when there is one.
        guarantee: Option<Money>,
        /// What the operator adds to reach the guarantee (zero without a shortfall).
        overlay: Money,
        /// The pool paid out: contributions + overlay.
        pool: Money,
        /// Paid places.
        places: u32,
        /// Prizes by place, first place first.
        bands: Vec<PrizeBand>,
        /// Why now.
        cause: LockCause,
    },
    /// Players eliminated in one hand (or the winner) took these places.
    PlacesAwarded {
        /// Players in the tournament before this hand's eliminations.
        players_left_before: u32,
        /// One per player, best place first.
        awards: Vec<PlaceAward>,
        /// The hand-for-hand hand they went out in, every table's busts of it together: 0 is
        /// the hand in which hand-for-hand was announced (its busts share their places, TDA
        /// RP-8 A). Absent outside hand-for-hand.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hand_for_hand: Option<u64>,
    },
    /// The last opponent is out: every paid place has been awarded.
    TournamentPaid {
        /// Sum of every award: equals the pool.
        prizes_paid: Money,
    },
    /// A remaining player proposed a deal: what each remaining player would be paid when they
    /// go out. The proposer has accepted it by proposing.
    DealProposed {
        /// Who proposed it.
        proposer: PlayerId,
        /// How the money dealt was split.
        method: DealMethodKind,
        /// One per remaining entry, in the order the amounts were computed.
        shares: Vec<DealShare>,
        /// Minor units kept out of the split, paid to the winner on top of their share.
        left_to_play_for: u64,
        /// The unpaid prizes: the shares plus what is left to play for.
        pool: u64,
        /// Once agreed, the deal ends the tournament (nothing left to play for).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        ends_tournament: bool,
    },
    /// A remaining player accepted the proposed deal.
    DealAccepted {
        /// Who.
        player: PlayerId,
    },
    /// A remaining player rejected the proposed deal: it is off, play goes on for the table's
    /// prizes.
    DealRejected {
        /// Who.
        player: PlayerId,
    },
    /// A player went out while a deal was under discussion: the proposal is void (its amounts
    /// were for players no longer all in).
    DealVoided {
        /// Why.
        reason: DealVoidReason,
    },
    /// Every remaining player accepted: from now on each elimination pays the entry's share
    /// (the winner's share plus what is left to play for) instead of the table's prize.
    DealAgreed {
        /// The agreed shares, as proposed.
        shares: Vec<DealShare>,
        /// Paid to the winner on top of their share.
        left_to_play_for: u64,
        /// The deal ends the tournament: payouts asks registration to finish it, shared by the
        /// remaining entries (the biggest stack first), each paid its share.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        ends_tournament: bool,
    },
    /// A flight's Day 1 pool paid over to its Day 2 (issue 36, 004 §4.36.11): in the Day 1's
    /// log it is paid out, in the Day 2's paid in.
    PoolTransferred(crate::flights::PoolTransferred),
}

/// How a deal's money is split (`floor_rules::deal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DealMethodKind {
    /// Malmuth-Harville equity.
    Icm,
    /// The next unpaid prize each, the rest by chips.
    ChipChop,
    /// Equal parts.
    Equal,
    /// Amounts the players agreed.
    Custom,
}

/// Why a proposed deal was voided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DealVoidReason {
    /// A player went out before everyone had accepted.
    Elimination,
}

/// A remaining entry's part of a deal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DealShare {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// Its chips when the deal was proposed.
    pub chips: u64,
    /// Minor units it is paid when it goes out (the winner: plus what is left to play for).
    pub amount: u64,
}

/// How a proposed deal splits the money, as asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DealMethod {
    /// Malmuth-Harville equity.
    Icm,
    /// The next unpaid prize each, the rest by chips.
    ChipChop,
    /// Equal parts.
    Equal,
    /// The amounts the players agreed: one per remaining player, adding up to the unpaid
    /// prizes less what is left to play for.
    Custom {
        /// One per remaining player.
        amounts: Vec<CustomAmount>,
    },
}

/// One player's amount in a custom deal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomAmount {
    /// The player.
    pub player: PlayerId,
    /// Which of the player's entries, when they have more than one still in (multi-entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<EntryNo>,
    /// What they are paid when they go out.
    pub amount: Money,
}

/// Propose a deal. The stacks are the payouts service's own reading of the seating log (each
/// entry's chips after the last hand its table reported), not the caller's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeDeal {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: crate::CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The remaining player proposing it.
    pub player: PlayerId,
    /// How the money is split.
    pub method: DealMethod,
    /// Kept out of the split for the winner (at most first prize less second prize).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_to_play_for: Option<Money>,
    /// The deal ends the tournament once agreed (000 §16.8 "Ein Turnier kann auch durch einen
    /// Turnierdeal enden", 004 §4.35): every remaining player is paid the agreed amount and
    /// placed by chips (the biggest stack first); nothing may be left to play for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ends_tournament: bool,
}

/// A remaining player's answer to the proposed deal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DealAnswer {
    /// Idempotency key.
    #[serde(default)]
    pub command_id: crate::CommandId,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Who answers.
    pub player: PlayerId,
}

/// The reply to propose, accept and reject: the events the command stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DealRecorded {
    /// The events, in order.
    pub events: Vec<PayoutEvent>,
}

/// Ask for a tournament's deal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DealQuery {
    /// The tournament.
    pub tournament_id: TournamentId,
}

/// Where a deal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DealStage {
    /// Proposed; waiting for the players named in `waiting_for`.
    Proposed,
    /// Every remaining player accepted.
    Agreed,
    /// A player rejected it.
    Rejected,
    /// A player went out before everyone accepted.
    Voided,
}

/// A tournament's last deal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DealStatus {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The currency of the amounts.
    pub currency: Currency,
    /// Where it stands.
    pub stage: DealStage,
    /// Who proposed it.
    pub proposer: PlayerId,
    /// How the money was split.
    pub method: DealMethodKind,
    /// One per remaining entry at the proposal.
    pub shares: Vec<DealShare>,
    /// Paid to the winner on top of their share.
    pub left_to_play_for: u64,
    /// The unpaid prizes when proposed.
    pub pool: u64,
    /// Players who accepted.
    pub accepted: Vec<PlayerId>,
    /// Players whose answer is awaited (empty unless proposed).
    pub waiting_for: Vec<PlayerId>,
    /// Once agreed, the deal ends the tournament (000 §16.8, 004 §4.35).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ends_tournament: bool,
}

/// Ask for a tournament's books.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BooksRequest {
    /// The tournament.
    pub tournament_id: TournamentId,
}

/// A tournament's money, summed from the ledger lines and the payouts log. All amounts in minor
/// units of `currency`.
///
/// Always: `paid_in + overlay == fees + prize_pool + bounty_pool`. Once `finished`: `prize_pool
/// == prizes_paid`. Once `bounties_settled`: `bounty_pool == bounties_paid` (and the bounties
/// log's own lines make the same pool). `balanced` says all hold, and the reconciliation (issue
/// 33): every cent paid in (entries, re-entries, rebuys, add-ons, their bounty parts) against
/// every cent paid out (refunds, fees kept, prizes, bounties, a cancellation's statements) or
/// still `held`; nothing is ever paid out that was not paid in, and once the tournament is over
/// (paid, cancelled before its start, cancelled in play) nothing is held and nothing more is
/// bought or paid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Books {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The currency.
    pub currency: Currency,
    /// Entries accepted (re-entries count), less those refunded.
    pub entries: u32,
    /// Rebuys bought.
    #[serde(default)]
    pub rebuys: u32,
    /// Add-ons bought.
    #[serde(default)]
    pub add_ons: u32,
    /// What players paid, less refunds.
    pub paid_in: u64,
    /// The operator's fees, less refunds.
    pub fees: u64,
    /// What entries, rebuys and add-ons put into the prize pool, less refunds and less the bounty
    /// parts.
    pub contributions: u64,
    /// What the operator added to meet the guarantee (known once the table is locked).
    pub overlay: u64,
    /// The prize pool: contributions + overlay.
    pub prize_pool: u64,
    /// Prizes awarded so far.
    pub prizes_paid: u64,
    /// Every paid place has been paid.
    pub finished: bool,
    /// The bounty pool: the bounty parts of entries, re-entries and rebuys, less refunds (zero
    /// without bounties).
    #[serde(default)]
    pub bounty_pool: u64,
    /// Bounty money paid out so far: bounties at eliminations and the winner's.
    #[serde(default)]
    pub bounties_paid: u64,
    /// The winner's bounty is recorded: the bounty pool is settled.
    #[serde(default)]
    pub bounties_settled: bool,
    /// Refunds paid (unregistrations, a cancellation before the start): gross, `paid_in` is net of
    /// them.
    #[serde(default)]
    pub refunded: u64,
    /// A cancellation in play: the sum of its statements (zero otherwise).
    #[serde(default)]
    pub statements: u64,
    /// Money in (paid in, overlay, operator cover) less money out (fees kept, prizes and bounties
    /// paid, statements): what the tournament still holds. Zero once it is over.
    #[serde(default)]
    pub held: u64,
    /// What a lottery sit & go's draw left of the contributions, kept by the operator
    /// (contributions − drawn pool when the draw is below them; issue 37): counted as the fees
    /// are, `paid_in + overlay = fees + prize_pool + bounty_pool + lottery_kept` (plus what a
    /// 95 % cap kept). Zero for any other tournament.
    #[serde(default)]
    pub lottery_kept: u64,
    /// A flight's Day 2 (issue 36): its Day 1s' pools paid over to it, money in beside
    /// `paid_in` and inside `prize_pool`.
    #[serde(default)]
    pub transferred_in: u64,
    /// A flight's Day 1: its prize pool paid over to its Day 2 (money out in place of prizes).
    #[serde(default)]
    pub transferred_out: u64,
    /// The identities above hold to the minor unit.
    pub balanced: bool,
    /// Why `balanced` is false: a sum that does not fit, a refund of more than was paid, or
    /// the identity that fails. Absent when balanced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbalanced: Option<String>,
}
