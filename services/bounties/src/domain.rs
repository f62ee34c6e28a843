//! The bounties aggregate: one per tournament (`floor.ev.bounties.<tournament>`). Pure: seeds
//! and time come in the commands; every amount is checked against Floor's bounds.
//!
//! Its life: configured from the definition's terms; every entry, re-entry and rebuy pays its
//! bounty part in (a ledger line); refunds before the start pay it back; the start checks a
//! target bounty's target; a mystery stage opens its envelopes; each elimination (the table's
//! report of the pots the eliminated chips went to) pays the bounty at stake to its eliminators
//! ([`crate::split`]); the winner takes what is left and a mystery seed is revealed. From then on
//! nothing moves.
//!
//! What is at stake when an entry is eliminated:
//! - knockout and progressive knockout: the entry's own bounty (its ledger lines, plus, in a
//!   PKO, what it collected onto its head);
//! - mystery: nothing before the stage; in the stage, one envelope drawn ([`crate::mystery`]),
//!   until none is left;
//! - target: the whole pool, for the target's first elimination; nothing for anybody else.
//!
//! Money nobody can win stays in the pool for the winner: a bounty whose chips nobody won (a
//! director's removal), envelopes never drawn, a target bounty never won, bounty money paid in
//! after the stage started or the target fell.

use crate::mystery::{self, Seed};
use crate::split::{self, Share};
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::bounties::{BountyEvent, BountyTerms, Envelopes, PaidInBy, StageTrigger};
use floor_events::money::{MAX_AMOUNT, MAX_TOTAL};
use floor_events::table::PotWon;
use floor_events::{codes, subjects, Currency, EntryNo, Money, PlayerId, RuleProfile, TournamentId};
use std::collections::{BTreeMap, BTreeSet};

/// The bounties aggregate.
pub struct BountiesAggregate;

/// What the bounties aggregate is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BountyCommand {
    /// The tournament's terms (at creation).
    Configure {
        /// The tournament.
        tournament_id: TournamentId,
        /// The terms.
        terms: BountyTerms,
        /// The rulebook the terms are checked against.
        profile: RuleProfile,
        /// The buy-in's currency.
        currency: Currency,
    },
    /// An entry, re-entry or rebuy was paid: its bounty part goes into the pool.
    PayIn {
        /// The entry.
        entry: EntryNo,
        /// Whose.
        player: PlayerId,
        /// Entry, re-entry or rebuy.
        by: PaidInBy,
        /// The purchase's prize-pool part (the net buy-in), of which the bounty share is taken.
        prize_pool: Money,
    },
    /// An entry was refunded before the start (unregistered, or the tournament cancelled).
    Refund {
        /// The entry.
        entry: EntryNo,
    },
    /// The tournament started.
    Start {
        /// When.
        at: DateTime<Utc>,
    },
    /// The director names a target bounty's target.
    NameTarget {
        /// The target.
        player: PlayerId,
        /// Shown before being eliminated.
        public: bool,
    },
    /// The mystery stage starts: the envelopes are fixed and the draws' seed committed.
    StartStage {
        /// What started it.
        trigger: StageTrigger,
        /// SHA-256 of the seed the draws will use.
        commitment: [u8; 32],
        /// When.
        at: DateTime<Utc>,
    },
    /// An entry is out of the tournament.
    Eliminate {
        /// The entry.
        entry: EntryNo,
        /// The pots its chips went to, as its table reported them; empty when nobody won them
        /// (a director's removal).
        pots: Vec<PotWon>,
        /// In hi/lo games, the best high hand (takes the whole knockout).
        best_high_hand: Option<EntryNo>,
        /// The mystery draws' seed (needed for a draw in the stage).
        seed: Option<Seed>,
    },
    /// One entry is left: it wins.
    Win {
        /// The winning entry.
        entry: EntryNo,
        /// The mystery draws' seed, revealed now (needed once a stage has started).
        seed: Option<Seed>,
    },
}

/// Why the bounties aggregate said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BountyError {
    /// Not configured: the tournament has no bounties.
    #[error("no tournament with bounties here")]
    UnknownTournament,
    /// The terms break the profile's ranges.
    #[error("{1}")]
    Terms(&'static str, String),
    /// Money in another currency than the tournament's.
    #[error("{0} is not in the tournament's currency")]
    Currency(Money),
    /// An amount or a total beyond Floor's bounds.
    #[error("{0} would take the bounty pool beyond Floor's bounds")]
    TooLarge(Money),
    /// No such live entry.
    #[error("entry {0} is not in play here")]
    UnknownEntry(EntryNo),
    /// Only possible before the start.
    #[error("the tournament has started")]
    Started,
    /// Only possible after the start.
    #[error("the tournament has not started")]
    NotStarted,
    /// The tournament's kind of bounty has no such thing.
    #[error("this tournament has no {0}")]
    NotOffered(&'static str),
    /// The target has no entry.
    #[error("{0} has no entry in this tournament")]
    TargetNotRegistered(PlayerId),
    /// The report cannot divide the bounty.
    #[error("entry {0}: {1}")]
    InvalidKnockout(EntryNo, String),
    /// A seed that is missing or does not match the commitment.
    #[error("the seed is missing or does not match the published commitment")]
    SeedMismatch,
    /// Other entries are still in.
    #[error("entry {0} cannot win: {1} other entries are still in")]
    WinnerNotLast(EntryNo, usize),
    /// The tournament is won and its pool paid out.
    #[error("the bounties are settled")]
    Settled,
}

impl floor_runtime::DomainError for BountyError {
    fn code(&self) -> &'static str {
        match self {
            Self::UnknownTournament => codes::UNKNOWN_TOURNAMENT,
            Self::Terms(code, _) => code,
            Self::Currency(_) => codes::CURRENCY_MISMATCH,
            Self::TooLarge(_) => codes::AMOUNT_TOO_LARGE,
            Self::UnknownEntry(_) => codes::UNKNOWN_ENTRY,
            Self::Started => codes::TOURNAMENT_STARTED,
            Self::NotStarted => codes::TOO_EARLY,
            Self::NotOffered(_) => codes::NOT_OFFERED,
            Self::TargetNotRegistered(_) => codes::TARGET_NOT_REGISTERED,
            Self::InvalidKnockout(..) => codes::INVALID_KNOCKOUT,
            Self::SeedMismatch => codes::SEED_MISMATCH,
            Self::WinnerNotLast(..) => codes::WINNER_NOT_LAST,
            Self::Settled => codes::BOUNTIES_SETTLED,
        }
    }
}

/// One live entry's bounty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryBounty {
    /// Whose.
    pub player: PlayerId,
    /// What its ledger lines put in (refunded in full before the start).
    pub paid_in: u64,
    /// Its bounty: what its elimination pays (knockout, progressive knockout; zero otherwise).
    pub head: u64,
    /// Rebuys whose bounty part it paid.
    pub rebuys: u32,
}

/// A target bounty's target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The player.
    pub player: PlayerId,
    /// Shown before being eliminated.
    pub public: bool,
    /// Won, or absent at the start: no more target bounty.
    pub closed: bool,
}

/// An open mystery stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// SHA-256 of the draws' seed.
    pub commitment: [u8; 32],
    /// The envelopes left, largest value first.
    pub left: Vec<Envelopes>,
    /// Draws so far.
    pub draws: u32,
}

/// Bounties, folded from events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BountyState {
    /// The tournament.
    pub tournament_id: Option<TournamentId>,
    /// The terms.
    pub terms: Option<BountyTerms>,
    /// The currency.
    pub currency: Option<Currency>,
    /// Live entries.
    pub entries: BTreeMap<EntryNo, EntryBounty>,
    /// Entries knocked out (or refunded): each pays its bounty once.
    pub gone: BTreeSet<EntryNo>,
    /// The tournament started.
    pub started: bool,
    /// The target, for a target bounty.
    pub target: Option<Target>,
    /// The mystery stage, once open.
    pub stage: Option<Stage>,
    /// Minor units paid into the bounty pool.
    pub paid_in: u64,
    /// Minor units refunded.
    pub refunded: u64,
    /// Minor units paid out in cash (bounties and the winner's).
    pub paid_out: u64,
    /// The winner, once the pool is paid out.
    pub winner: Option<EntryNo>,
}

impl BountyState {
    /// What is in the bounty pool now: paid in, less refunds and cash paid out.
    pub fn balance(&self) -> u64 {
        self.paid_in.saturating_sub(self.refunded).saturating_sub(self.paid_out)
    }

    fn money(&self, amount: u64) -> Money {
        Money::new(amount, self.currency.unwrap_or(Currency::EUR))
    }

    fn live(&self, entry: EntryNo) -> Result<&EntryBounty, BountyError> {
        self.entries.get(&entry).ok_or(BountyError::UnknownEntry(entry))
    }

    fn check_seed(&self, seed: Option<Seed>) -> Result<Option<Seed>, BountyError> {
        let Some(stage) = &self.stage else { return Ok(None) };
        match seed {
            Some(seed) if mystery::commitment(&seed) == stage.commitment => Ok(Some(seed)),
            _ => Err(BountyError::SeedMismatch),
        }
    }
}

impl Aggregate for BountiesAggregate {
    const NAME: &'static str = subjects::aggregate::BOUNTIES;
    type State = BountyState;
    type Command = BountyCommand;
    type Event = BountyEvent;
    type Error = BountyError;

    fn handle_command(state: &BountyState, command: BountyCommand) -> Result<Vec<BountyEvent>, BountyError> {
        use BountyCommand::*;
        if let Configure { tournament_id, terms, profile, currency } = command {
            if state.terms.is_some() {
                return Ok(vec![]);
            }
            terms.validate(profile).map_err(|e| BountyError::Terms(e.code, e.message))?;
            return Ok(vec![BountyEvent::BountiesConfigured { tournament_id, terms, currency }]);
        }
        let Some(terms) = &state.terms else { return Err(BountyError::UnknownTournament) };
        match command {
            Configure { .. } => unreachable!("handled above"),
            PayIn { entry, player, by, prize_pool } => pay_in(state, terms, entry, player, by, prize_pool),
            Refund { entry } => refund(state, entry),
            Start { at } => Ok(start(state, at)),
            NameTarget { player, public } => name_target(state, player, public),
            StartStage { trigger, commitment, at } => start_stage(state, terms, trigger, commitment, at),
            Eliminate { entry, pots, best_high_hand, seed } => eliminate(state, terms, entry, &pots, best_high_hand, seed),
            Win { entry, seed } => win(state, entry, seed),
        }
    }

    fn apply_event(mut state: BountyState, event: BountyEvent) -> BountyState {
        use BountyEvent::*;
        match event {
            BountiesConfigured { tournament_id, terms, currency } => {
                state.tournament_id = Some(tournament_id);
                if let BountyTerms::Target { player, public, .. } = &terms {
                    state.target = Some(Target { player: player.clone(), public: *public, closed: false });
                }
                state.terms = Some(terms);
                state.currency = Some(currency);
            }
            BountyPaidIn { entry, player, by, amount } => {
                state.paid_in = state.paid_in.saturating_add(amount.amount);
                let progressive_or_ko = matches!(state.terms, Some(BountyTerms::Knockout { .. } | BountyTerms::Progressive { .. }));
                let e = state.entries.entry(entry).or_insert(EntryBounty { player, paid_in: 0, head: 0, rebuys: 0 });
                e.paid_in = e.paid_in.saturating_add(amount.amount);
                if progressive_or_ko {
                    e.head = e.head.saturating_add(amount.amount);
                }
                if let PaidInBy::Rebuy { number } = by {
                    e.rebuys = e.rebuys.max(number);
                }
            }
            BountyRefunded { entry, amount } => {
                state.refunded = state.refunded.saturating_add(amount.amount);
                state.entries.remove(&entry);
                state.gone.insert(entry);
            }
            BountiesStarted { .. } => state.started = true,
            TargetNamed { player, public } => state.target = Some(Target { player, public, closed: false }),
            TargetAbsent { .. } | TargetEliminated { .. } => {
                if let Some(t) = &mut state.target {
                    t.closed = true;
                }
            }
            MysteryStageStarted { commitment, envelopes, .. } => {
                let commitment = mystery::unhex(&commitment).unwrap_or_default();
                state.stage = Some(Stage { commitment, left: envelopes, draws: 0 });
            }
            EntryKnockedOut { entry, .. } => {
                state.entries.remove(&entry);
                state.gone.insert(entry);
            }
            EnvelopeDrawn { draw, value, .. } => {
                if let Some(stage) = &mut state.stage {
                    stage.draws = draw;
                    if let Some(i) = stage.left.iter().position(|e| e.value == value) {
                        mystery::open(&mut stage.left, i);
                    }
                }
            }
            BountyPaid { to, cash, added_to_own, .. } => {
                state.paid_out = state.paid_out.saturating_add(cash.amount);
                if let Some(e) = state.entries.get_mut(&to) {
                    e.head = e.head.saturating_add(added_to_own.amount);
                }
            }
            WinnerBounty { entry, own, left_over, .. } => {
                state.paid_out = state.paid_out.saturating_add(own.amount).saturating_add(left_over.amount);
                if let Some(e) = state.entries.get_mut(&entry) {
                    e.head = 0;
                }
                state.winner = Some(entry);
            }
            MysterySeedRevealed { .. } => {}
        }
        state
    }
}

fn pay_in(
    state: &BountyState,
    terms: &BountyTerms,
    entry: EntryNo,
    player: PlayerId,
    by: PaidInBy,
    prize_pool: Money,
) -> Result<Vec<BountyEvent>, BountyError> {
    if state.winner.is_some() {
        return Err(BountyError::Settled);
    }
    let known = state.entries.get(&entry);
    match by {
        // An entry's line is written once: a repeat (or a line for an entry already out) is done.
        PaidInBy::Entry | PaidInBy::ReEntry if known.is_some() || state.gone.contains(&entry) => return Ok(vec![]),
        PaidInBy::Entry | PaidInBy::ReEntry => {}
        PaidInBy::Rebuy { number } => match known {
            Some(e) if number <= e.rebuys => return Ok(vec![]),
            Some(_) => {}
            None => return Err(BountyError::UnknownEntry(entry)),
        },
    }
    if Some(prize_pool.currency) != state.currency {
        return Err(BountyError::Currency(prize_pool));
    }
    if prize_pool.amount > MAX_AMOUNT {
        return Err(BountyError::TooLarge(prize_pool));
    }
    let amount = terms.bounty_part(prize_pool);
    if state.paid_in.checked_add(amount.amount).is_none_or(|total| total > MAX_TOTAL) {
        return Err(BountyError::TooLarge(amount));
    }
    let player = known.map_or(player, |e| e.player.clone());
    Ok(vec![BountyEvent::BountyPaidIn { entry, player, by, amount }])
}

fn refund(state: &BountyState, entry: EntryNo) -> Result<Vec<BountyEvent>, BountyError> {
    let Some(e) = state.entries.get(&entry) else { return Ok(vec![]) };
    if state.started {
        return Err(BountyError::Started);
    }
    Ok(vec![BountyEvent::BountyRefunded { entry, amount: state.money(e.paid_in) }])
}

fn start(state: &BountyState, at: DateTime<Utc>) -> Vec<BountyEvent> {
    if state.started {
        return vec![];
    }
    let mut events = vec![BountyEvent::BountiesStarted { at }];
    if let Some(t) = &state.target {
        if !state.entries.values().any(|e| e.player == t.player) {
            events.push(BountyEvent::TargetAbsent { player: t.player.clone() });
        }
    }
    events
}

fn name_target(state: &BountyState, player: PlayerId, public: bool) -> Result<Vec<BountyEvent>, BountyError> {
    if state.target.is_none() {
        return Err(BountyError::NotOffered("target bounty"));
    }
    if state.started {
        return Err(BountyError::Started);
    }
    if !state.entries.values().any(|e| e.player == player) {
        return Err(BountyError::TargetNotRegistered(player));
    }
    Ok(vec![BountyEvent::TargetNamed { player, public }])
}

fn start_stage(
    state: &BountyState,
    terms: &BountyTerms,
    trigger: StageTrigger,
    commitment: [u8; 32],
    at: DateTime<Utc>,
) -> Result<Vec<BountyEvent>, BountyError> {
    let BountyTerms::Mystery { envelopes, .. } = terms else { return Err(BountyError::NotOffered("mystery stage")) };
    if state.winner.is_some() {
        return Err(BountyError::Settled);
    }
    if state.stage.is_some() {
        return Ok(vec![]);
    }
    if !state.started {
        return Err(BountyError::NotStarted);
    }
    let pool = state.money(state.balance());
    Ok(vec![BountyEvent::MysteryStageStarted {
        trigger,
        commitment: mystery::hex(&commitment),
        pool,
        envelopes: mystery::envelopes(pool, envelopes),
        at,
    }])
}

fn eliminate(
    state: &BountyState,
    terms: &BountyTerms,
    entry: EntryNo,
    pots: &[PotWon],
    best_high_hand: Option<EntryNo>,
    seed: Option<Seed>,
) -> Result<Vec<BountyEvent>, BountyError> {
    if state.gone.contains(&entry) {
        return Ok(vec![]);
    }
    if state.winner.is_some() {
        return Err(BountyError::Settled);
    }
    let out = state.live(entry)?;
    split::check(entry, pots, best_high_hand).map_err(|e| BountyError::InvalidKnockout(entry, e.to_string()))?;
    if let Some(stranger) = split::eliminators(pots).into_iter().find(|w| !state.entries.contains_key(w)) {
        return Err(BountyError::InvalidKnockout(entry, format!("entry {stranger} won chips but is not in play")));
    }
    let unclaimed = pots.is_empty();
    let mut events = Vec::new();
    let at_stake = match terms {
        BountyTerms::Knockout { .. } | BountyTerms::Progressive { .. } => out.head,
        BountyTerms::Mystery { .. } => match (&state.stage, unclaimed) {
            (Some(stage), false) => {
                let seed = state.check_seed(seed)?.ok_or(BountyError::SeedMismatch)?;
                let number = stage.draws + 1;
                match mystery::draw(&seed, number, &stage.left) {
                    Some(i) => {
                        let value = stage.left[i].value;
                        events.push(BountyEvent::EnvelopeDrawn { draw: number, eliminated: entry, value });
                        value.amount
                    }
                    None => 0,
                }
            }
            _ => 0,
        },
        BountyTerms::Target { .. } => match &state.target {
            Some(t) if !t.closed && t.player == out.player => {
                let prize = state.money(state.balance());
                events.push(BountyEvent::TargetEliminated { entry, player: out.player.clone(), prize });
                prize.amount
            }
            _ => 0,
        },
    };
    events.insert(0, BountyEvent::EntryKnockedOut { entry, player: out.player.clone(), bounty: state.money(at_stake), unclaimed });
    let shares = split::split(at_stake, entry, pots, best_high_hand).map_err(|e| BountyError::InvalidKnockout(entry, e.to_string()))?;
    // A share of nothing (no bounty at stake, or a cent divided among several) is no payment.
    for Share { entry: to, amount } in shares.into_iter().filter(|s| s.amount > 0) {
        let (cash, added) = match terms {
            BountyTerms::Progressive { cash_share_bps, .. } => split::progressive(amount, *cash_share_bps),
            _ => (amount, 0),
        };
        events.push(BountyEvent::BountyPaid {
            to,
            player: state.entries[&to].player.clone(),
            eliminated: entry,
            eliminated_player: out.player.clone(),
            cash: state.money(cash),
            added_to_own: state.money(added),
        });
    }
    Ok(events)
}

fn win(state: &BountyState, entry: EntryNo, seed: Option<Seed>) -> Result<Vec<BountyEvent>, BountyError> {
    match state.winner {
        Some(winner) if winner == entry => return Ok(vec![]),
        Some(_) => return Err(BountyError::Settled),
        None => {}
    }
    let own = state.live(entry)?.head;
    if state.entries.len() > 1 {
        return Err(BountyError::WinnerNotLast(entry, state.entries.len() - 1));
    }
    let seed = state.check_seed(seed)?;
    let balance = state.balance();
    let mut events = vec![BountyEvent::WinnerBounty {
        entry,
        player: state.entries[&entry].player.clone(),
        own: state.money(own.min(balance)),
        left_over: state.money(balance.saturating_sub(own)),
    }];
    if let Some(seed) = seed {
        events.push(BountyEvent::MysterySeedRevealed { seed: mystery::hex(&seed) });
    }
    Ok(events)
}
