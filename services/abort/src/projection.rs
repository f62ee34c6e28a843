//! Pure folds of the log.
//!
//! - [`AbortView`]: the lobby's and the director's view of the abort aggregate: running,
//!   suspended (why, since when) or cancelled, and, once cancelled, every player's statement
//!   (`floor tournament statement <id> [player]` reads it through the `statement` verb).
//! - [`TournamentView`]: what the abort service needs from the other services' commits to build
//!   a cancellation [`Snapshot`]: registration's definition and entries with their ledgers, the
//!   rebuys' and add-ons' ledgers, seating's stacks at the start of each table's current hand,
//!   payouts' table and places, and the bounties' ledger (each purchase's bounty part, the
//!   bounty on each head, the bounty cash each entry collected).
//!
//! Chips: a table's `hand_started` gives each stack before the blinds, and its `hand_finished`
//! the stacks after the hand; the last of the two a table reported is what each stack was at
//! the start of the hand now interrupted (or of the next hand, between hands), so bets of an
//! unfinished hand go back to their owners (000 §15, 002 §2.8 T-12.5). Chips a table applied
//! (`chips_at_table`) after that report are added.

use crate::domain::{AbortEvent, SuspendReason};
use crate::snapshot::{AgreedDeal, Bounty, DealPart, Entry, Format, Paid, Snapshot, Standing, Tables};
use crate::statement::{Books, Statement};
use chrono::{DateTime, Utc};
use floor_events::bounties::{BountyEvent, BountyTerms, PaidInBy};
use floor_events::payouts::{PayoutEvent, PrizeBand};
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::TournamentEvent;
use floor_events::seating::SeatingEvent;
use floor_events::tournament::{EntryLedger, Start};
use floor_events::{codes, Currency, PlayerId, RuleProfile};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the lobby shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbortView {
    /// Suspended now: why and since when.
    pub suspended: Option<(SuspendReason, DateTime<Utc>)>,
    /// Suspensions so far.
    pub suspensions: u32,
    /// Cancelled: why and when.
    pub cancelled: Option<(String, DateTime<Utc>)>,
    /// The cancellation's books.
    pub books: Option<Books>,
    /// The statements, by player name (none here when the cancellation is `stored`).
    pub statements: Vec<Statement>,
    /// A cancellation too large for one message: where it is kept whole.
    #[serde(default)]
    pub stored: Option<crate::domain::StoredCancellation>,
}

impl AbortView {
    /// The view after one more event.
    pub fn evolve(mut self, event: &AbortEvent) -> Self {
        match event {
            AbortEvent::Suspended { reason, at } => {
                self.suspended = Some((reason.clone(), *at));
                self.suspensions += 1;
            }
            AbortEvent::Resumed { .. } => self.suspended = None,
            AbortEvent::Cancelled { reason, cancellation, at, stored, .. } => {
                self.suspended = None;
                self.cancelled = Some((reason.clone(), *at));
                self.books = Some(cancellation.books);
                self.statements = cancellation.statements.clone();
                self.stored = stored.clone();
            }
        }
        self
    }

    /// One player's statement.
    pub fn statement(&self, player: &PlayerId) -> Option<&Statement> {
        self.statements.binary_search_by(|s| s.player.cmp(player)).ok().map(|i| &self.statements[i])
    }
}

/// Why a snapshot cannot be built: a stable code and words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// The stable code.
    pub code: &'static str,
    /// Why.
    pub message: String,
}

impl Unavailable {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
}

/// One entry as the log tells it. Kept in the policy's snapshots as one JSON array
/// ([`StoredEntry`]), not an object of named fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "StoredEntry", from = "StoredEntry")]
pub struct EntryView {
    /// Whose.
    pub player: PlayerId,
    /// The entry's own purchase.
    pub buy_in: EntryLedger,
    /// Each rebuy.
    #[serde(default)]
    pub rebuys: Vec<EntryLedger>,
    /// Each add-on.
    #[serde(default)]
    pub add_ons: Vec<EntryLedger>,
    /// Chips at the start of its table's current hand (see the module's doc).
    pub chips: u64,
    /// Out of the tournament (seating or registration said so).
    pub out: bool,
    /// Its place and the prize paid for it, once payouts awarded it.
    pub placed: Option<(u32, u64)>,
    /// Its bounty, as the bounties service recorded it (a bounty tournament only).
    #[serde(default)]
    pub bounty: EntryBounty,
}

impl EntryView {
    /// An entry as registration (or a Day 2's carry) recorded it: its purchase, nothing else
    /// yet.
    fn new(player: PlayerId, buy_in: EntryLedger) -> Self {
        EntryView { player, buy_in, rebuys: vec![], add_ons: vec![], chips: 0, out: false, placed: None, bounty: EntryBounty::default() }
    }
}

/// One entry's part of the bounties' ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryBounty {
    /// The bounty part of its own purchase (`None` until the bounties service recorded it).
    pub buy_in: Option<u64>,
    /// The bounty part of each rebuy recorded, by rebuy number from 1 (index 0 = rebuy 1).
    pub rebuys: Vec<Option<u64>>,
    /// The bounty on its head (knockout, progressive knockout): what it paid in and, in a
    /// progressive knockout, what it added from others'; zero once knocked out.
    pub head: u64,
    /// Bounty cash paid to it.
    pub collected: u64,
    /// The bounties service recorded its knockout.
    pub knocked_out: bool,
}

impl EntryBounty {
    /// Nothing recorded: an entry of a tournament without bounties (kept out of the snapshots).
    fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// An entry as the snapshots keep it: player, the buy-in's paid in, fee and prize pool, their
/// currency, each rebuy's and add-on's three amounts (every purchase of an entry is in the
/// tournament's currency: registration and rebuys refuse any other), chips, out, place and
/// prize, and its bounty (absent in a tournament without bounties). With named fields a
/// 250,000-entry snapshot was 59 MB, and reading it most of the abort service's restart.
#[derive(Serialize, Deserialize)]
struct StoredEntry(
    PlayerId,
    [u64; 3],
    Currency,
    Vec<[u64; 3]>,
    Vec<[u64; 3]>,
    u64,
    bool,
    Option<(u32, u64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")] Option<EntryBounty>,
);

fn amounts(l: &EntryLedger) -> [u64; 3] {
    [l.paid_in.amount, l.fee.amount, l.prize_pool.amount]
}

fn ledger([paid_in, fee, prize_pool]: [u64; 3], currency: Currency) -> EntryLedger {
    EntryLedger {
        paid_in: floor_events::Money::new(paid_in, currency),
        fee: floor_events::Money::new(fee, currency),
        prize_pool: floor_events::Money::new(prize_pool, currency),
    }
}

impl From<EntryView> for StoredEntry {
    fn from(e: EntryView) -> Self {
        let all = |ledgers: &[EntryLedger]| ledgers.iter().map(amounts).collect();
        let bounty = (!e.bounty.is_empty()).then_some(e.bounty);
        StoredEntry(
            e.player,
            amounts(&e.buy_in),
            e.buy_in.paid_in.currency,
            all(&e.rebuys),
            all(&e.add_ons),
            e.chips,
            e.out,
            e.placed,
            bounty,
        )
    }
}

impl From<StoredEntry> for EntryView {
    fn from(StoredEntry(player, buy_in, currency, rebuys, add_ons, chips, out, placed, bounty): StoredEntry) -> Self {
        let all = |ledgers: Vec<[u64; 3]>| ledgers.into_iter().map(|l| ledger(l, currency)).collect();
        let bounty = bounty.unwrap_or_default();
        EntryView { player, buy_in: ledger(buy_in, currency), rebuys: all(rebuys), add_ons: all(add_ons), chips, out, placed, bounty }
    }
}

/// One tournament as the abort service reads it from the other services' commits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentView {
    /// The rule profile (from the definition).
    pub profile: Option<RuleProfile>,
    /// The currency of the buy-in.
    pub currency: Option<Currency>,
    /// The guarantee, minor units.
    pub guarantee: Option<u64>,
    /// Late registration closes then.
    pub late_registration_until: Option<DateTime<Utc>>,
    /// Registration recorded its close (`registration_closed`: the end of the late-registration
    /// level, which can come before the deadline).
    #[serde(default)]
    pub registration_closed: bool,
    /// A sit & go.
    pub sit_and_go: bool,
    /// At most one table's seats: a single-table tournament.
    pub single_table: bool,
    /// A lottery sit & go ("Twister", 000 §16.10): cancelled under the multi-table rule, "mit
    /// Ausnahme der Variante Twister" (000 §16.11), whatever its seats (issue 37).
    #[serde(default)]
    pub twister: bool,
    /// The definition has bounties: every purchase's bounty part must be in the bounties'
    /// ledger before a cancellation reads it.
    pub bounties: bool,
    /// The bounty on a head is what its elimination pays (knockout, progressive knockout); a
    /// mystery or target bounty has none, its money is the pool's.
    pub bounties_on_heads: bool,
    /// The definition has rebuys, and their period is not over.
    pub rebuys_open: bool,
    /// The definition has an add-on, and the add-on break is not over.
    pub add_ons_open: bool,
    /// Registration said it started.
    pub started: bool,
    /// Registration said it finished (won) or was cancelled before the start.
    pub over: bool,
    /// The entries by number (refunded entries removed).
    pub entries: BTreeMap<u32, EntryView>,
    /// Payouts' locked table.
    pub prizes: Vec<PrizeBand>,
    /// The deal the players still in agreed (payouts' `deal_agreed`): each entry's amount,
    /// and what was left to play for.
    #[serde(default)]
    pub deal: Option<(BTreeMap<u32, u64>, u64)>,
    /// A flight's Day 1 (its definition has a `flight` section): its pool goes to its Day 2.
    #[serde(default)]
    pub day1: bool,
    /// A flight's Day 2: the Day 1s' pools paid into its prize pool (payouts'
    /// `pool_transferred` in its log).
    #[serde(default)]
    pub transferred_in: u64,
    /// A flight's Day 2: each entry's chips brought from its Day 1s (registration's
    /// `entry_carried`, the stack after the carry rule).
    #[serde(default)]
    pub carried: BTreeMap<u32, u64>,
    /// The abort aggregate's own view.
    pub abort: AbortView,
    /// Which tables owe a report and since when (Floor's own suspension).
    #[serde(default)]
    pub silence: crate::silence::Silence,
}

impl TournamentView {
    /// The view after registration's events.
    pub fn on_tournament(&mut self, events: &[TournamentEvent]) {
        for e in events {
            match e {
                TournamentEvent::TournamentCreated(c) => {
                    let d = &c.definition;
                    self.profile = Some(d.profile);
                    self.currency = Some(d.buy_in.currency);
                    self.guarantee = d.guarantee.map(|g| g.amount);
                    self.late_registration_until = d.late_registration_until;
                    self.sit_and_go = matches!(d.start, Start::SitAndGo);
                    self.single_table = d.capacity <= u32::from(d.table_size);
                    self.twister = d.lottery.is_some();
                    self.bounties = d.bounty.is_some();
                    self.rebuys_open = d.rebuy.is_some();
                    self.add_ons_open = d.add_on.is_some();
                    self.day1 = d.flight.is_some();
                }
                TournamentEvent::EntryRegistered(r) => {
                    self.entries.insert(r.entry.0, EntryView::new(r.player.clone(), r.ledger));
                }
                TournamentEvent::EntryUnregistered(u) => {
                    self.entries.remove(&u.entry.0);
                }
                TournamentEvent::RegistrationClosed(_) => self.registration_closed = true,
                TournamentEvent::EntryEliminated(x) => {
                    if let Some(e) = self.entries.get_mut(&x.entry.0) {
                        e.out = true;
                    }
                }
                TournamentEvent::TournamentStarted(_) => self.started = true,
                TournamentEvent::TournamentCancelled(_) | TournamentEvent::TournamentFinished(_) => self.over = true,
                // A Day 2 entry carried from a Day 1 (issue 36): no buy-in here (its money is in
                // the Day 1's pool, paid over), the stack the carry rule made (its chips until
                // seating seats it).
                TournamentEvent::EntryCarried(c) => {
                    use floor_events::flights::CarryOutcome;
                    if c.outcome == CarryOutcome::Forfeited {
                        continue;
                    }
                    let zero = floor_events::Money::new(0, self.currency.unwrap_or(Currency::EUR));
                    let nothing_paid = EntryLedger { paid_in: zero, fee: zero, prize_pool: zero };
                    let entry = self.entries.entry(c.entry.0).or_insert_with(|| EntryView::new(c.player.clone(), nothing_paid));
                    entry.chips = c.stack;
                    self.carried.insert(c.entry.0, c.stack);
                }
                // This service's own log says whether play is suspended.
                TournamentEvent::PlayerRefused(_)
                | TournamentEvent::PlayersKeptApart(_)
                | TournamentEvent::PlaySuspended(_)
                | TournamentEvent::PlayResumed(_) => {}
            }
        }
    }

    /// The view after the rebuys service's events.
    pub fn on_rebuys(&mut self, events: &[RebuyEvent]) {
        for e in events {
            match e {
                RebuyEvent::RebuyTaken { entry, ledger, .. } => {
                    if let Some(e) = self.entries.get_mut(&entry.0) {
                        e.rebuys.push(*ledger);
                    }
                }
                RebuyEvent::AddOnTaken { entry, ledger, .. } => {
                    if let Some(e) = self.entries.get_mut(&entry.0) {
                        e.add_ons.push(*ledger);
                    }
                }
                RebuyEvent::RebuyPeriodEnded { add_on_open, .. } => {
                    self.rebuys_open = false;
                    self.add_ons_open = *add_on_open;
                }
                RebuyEvent::AddOnsClosed { .. } => self.add_ons_open = false,
                _ => {}
            }
        }
    }

    /// The view after seating's events.
    pub fn on_seating(&mut self, events: &[SeatingEvent]) {
        for e in events {
            match e {
                SeatingEvent::EntryJoined { entry, stack, .. } => self.set_chips(entry.0, *stack),
                SeatingEvent::HandStarted { stacks, .. } | SeatingEvent::HandFinished { stacks, .. } => {
                    for s in stacks {
                        self.set_chips(s.entry.0, s.chips);
                    }
                }
                SeatingEvent::StackReachedZero { entry, .. } => self.set_chips(entry.0, 0),
                SeatingEvent::ChipsAtTable { entry, chips } => {
                    if let Some(e) = self.entries.get_mut(&entry.0) {
                        e.chips = e.chips.saturating_add(*chips);
                    }
                }
                SeatingEvent::EntryEliminated { entry, .. } => {
                    if let Some(e) = self.entries.get_mut(&entry.0) {
                        e.out = true;
                        e.chips = 0;
                    }
                }
                _ => {}
            }
        }
    }

    fn set_chips(&mut self, entry: u32, chips: u64) {
        if let Some(e) = self.entries.get_mut(&entry) {
            e.chips = chips;
        }
    }

    /// The view after payouts' events.
    pub fn on_payouts(&mut self, events: &[PayoutEvent]) {
        for e in events {
            match e {
                PayoutEvent::PayoutTableLocked { bands, .. } => self.prizes.clone_from(bands),
                PayoutEvent::PlacesAwarded { awards, .. } => {
                    for a in awards {
                        if let Some(e) = self.entries.get_mut(&a.entry.0) {
                            e.out = true;
                            e.placed = Some((a.place, a.amount));
                        }
                    }
                }
                PayoutEvent::TournamentPaid { .. } => self.over = true,
                // In a Day 2's log, paid in; in the Day 1's, paid out (nothing left to cancel).
                PayoutEvent::PoolTransferred(t) if !self.day1 => {
                    self.transferred_in = self.transferred_in.saturating_add(t.amount.amount);
                }
                PayoutEvent::DealAgreed { shares, left_to_play_for, .. } => {
                    let parts = shares.iter().map(|s| (s.entry.0, s.amount)).collect();
                    self.deal = Some((parts, *left_to_play_for));
                }
                _ => {}
            }
        }
    }

    /// The view after the bounties service's events: each purchase's bounty part, the bounty
    /// on each head, the cash each entry collected, each knockout.
    pub fn on_bounties(&mut self, events: &[BountyEvent]) {
        for e in events {
            match e {
                BountyEvent::BountiesConfigured { terms, .. } => {
                    self.bounties_on_heads = matches!(terms, BountyTerms::Knockout { .. } | BountyTerms::Progressive { .. });
                }
                BountyEvent::BountyPaidIn { entry, by, amount, .. } => {
                    let on_heads = self.bounties_on_heads;
                    let Some(b) = self.entries.get_mut(&entry.0).map(|e| &mut e.bounty) else { continue };
                    match by {
                        PaidInBy::Entry | PaidInBy::ReEntry => b.buy_in = Some(amount.amount),
                        PaidInBy::Rebuy { number } => {
                            let i = (*number as usize).saturating_sub(1);
                            if b.rebuys.len() <= i {
                                b.rebuys.resize(i + 1, None);
                            }
                            b.rebuys[i] = Some(amount.amount);
                        }
                    }
                    if on_heads {
                        b.head = b.head.saturating_add(amount.amount);
                    }
                }
                BountyEvent::EntryKnockedOut { entry, .. } => {
                    if let Some(e) = self.entries.get_mut(&entry.0) {
                        e.bounty.head = 0;
                        e.bounty.knocked_out = true;
                    }
                }
                BountyEvent::BountyPaid { to, cash, added_to_own, .. } => {
                    if let Some(e) = self.entries.get_mut(&to.0) {
                        e.bounty.collected = e.bounty.collected.saturating_add(cash.amount);
                        e.bounty.head = e.bounty.head.saturating_add(added_to_own.amount);
                    }
                }
                BountyEvent::WinnerBounty { .. } => self.over = true,
                _ => {}
            }
        }
    }

    /// The view after the abort aggregate's own events.
    pub fn on_abort(&mut self, events: &[AbortEvent]) {
        self.abort = events.iter().fold(std::mem::take(&mut self.abort), AbortView::evolve);
    }

    /// Whether a tournament in play can be suspended: created, started, not over.
    ///
    /// # Errors
    /// `unknown_tournament`, `tournament_not_started`, `tournament_finished`.
    pub fn in_play(&self) -> Result<(), Unavailable> {
        if self.profile.is_none() {
            return Err(Unavailable::new(codes::UNKNOWN_TOURNAMENT, "no such tournament"));
        }
        if !self.started {
            return Err(Unavailable::new(
                codes::TOURNAMENT_NOT_STARTED,
                "the tournament has not started: cancel it through registration (every entry refunded)",
            ));
        }
        if self.over {
            return Err(Unavailable::new(codes::TOURNAMENT_FINISHED, "the tournament is over"));
        }
        Ok(())
    }

    /// The tournament now, as a cancellation snapshot; the profile it runs under.
    ///
    /// # Errors
    /// As [`TournamentView::in_play`]; `snapshot_unavailable` for an entry out that payouts
    /// has not placed yet, or, in a bounty tournament, a purchase or knockout the bounties'
    /// ledger has not recorded yet (try again in a moment).
    pub fn snapshot(&self, at: DateTime<Utc>) -> Result<(RuleProfile, Snapshot), Unavailable> {
        // A flight's Day 2 holding carried stacks is cancelled here before its start too:
        // registration cannot pay the Day 1s' pools (`docs/abort.md`, "A flight's Day 2").
        if !(self.holds_carried_stacks() && !self.started && !self.over) {
            self.in_play()?;
        }
        let (Some(profile), Some(currency)) = (self.profile, self.currency) else {
            return Err(Unavailable::new(codes::UNKNOWN_TOURNAMENT, "no such tournament"));
        };
        let mut entries = Vec::with_capacity(self.entries.len());
        for (&number, e) in &self.entries {
            let standing = match (e.out, e.placed) {
                (_, Some((place, prize))) => Standing::Eliminated { place, prize },
                (false, None) => Standing::Remaining { chips: e.chips },
                (true, None) => {
                    return Err(Unavailable::new(
                        codes::SNAPSHOT_UNAVAILABLE,
                        format!("entry {number} is out and payouts has not placed it yet: try again in a moment"),
                    ))
                }
            };
            entries.push(self.entry(number, e, standing)?);
        }
        let late_registration_open = !self.registration_closed && self.late_registration_until.is_some_and(|until| at < until);
        let snapshot = Snapshot {
            currency,
            format: self.format(),
            entries,
            prizes: self.prizes.clone(),
            guarantee: self.guarantee,
            buying_open: late_registration_open || self.rebuys_open || self.add_ons_open,
            deal: self.agreed_deal(),
            transferred_in: self.transferred_in,
        };
        Ok((profile, snapshot))
    }

    /// A tournament registration has not started, as a cancellation snapshot (every entry
    /// still in, no chips, no table); the profile it runs under. For the way out when
    /// registration's log holds a commit no reader can apply: every entry the log recorded up
    /// to that commit.
    ///
    /// # Errors
    /// `unknown_tournament`; `tournament_finished` for one over (cancelled or won);
    /// `snapshot_unavailable` while the bounties' ledger is behind.
    pub fn snapshot_before_the_start(&self) -> Result<(RuleProfile, Snapshot), Unavailable> {
        let (Some(profile), Some(currency)) = (self.profile, self.currency) else {
            return Err(Unavailable::new(codes::UNKNOWN_TOURNAMENT, "no such tournament"));
        };
        if self.over {
            return Err(Unavailable::new(codes::TOURNAMENT_FINISHED, "the tournament is over"));
        }
        let mut entries = Vec::with_capacity(self.entries.len());
        for (&number, e) in &self.entries {
            entries.push(self.entry(number, e, Standing::Remaining { chips: 0 })?);
        }
        let snapshot = Snapshot {
            currency,
            format: self.format(),
            entries,
            prizes: vec![],
            guarantee: None,
            buying_open: false,
            deal: None,
            transferred_in: self.transferred_in,
        };
        Ok((profile, snapshot))
    }

    fn format(&self) -> Format {
        Format {
            tables: if self.single_table { Tables::Single } else { Tables::Multi },
            sit_and_go: self.sit_and_go,
            twister: self.twister,
        }
    }

    /// One entry of a snapshot: what it paid, with its bounty parts in a bounty tournament.
    fn entry(&self, number: u32, e: &EntryView, standing: Standing) -> Result<Entry, Unavailable> {
        let (buy_in, rebuys, bounty) = match self.bounties {
            true => bounty_parts(number, e)?,
            false => (0, vec![0; e.rebuys.len()], Bounty::default()),
        };
        let paid = |ledger: &EntryLedger, bounty: u64| Paid { ledger: *ledger, bounty };
        Ok(Entry {
            entry: floor_events::EntryNo(number),
            player: e.player.clone(),
            buy_in: paid(&e.buy_in, buy_in),
            rebuys: e.rebuys.iter().zip(rebuys).map(|(l, b)| paid(l, b)).collect(),
            add_ons: e.add_ons.iter().map(|l| paid(l, 0)).collect(),
            standing,
            bounty,
            carried_chips: self.carried.get(&number).copied().unwrap_or(0),
        })
    }

    /// A flight's Day 2 with stacks carried from its Day 1s.
    pub fn holds_carried_stacks(&self) -> bool {
        !self.carried.is_empty()
    }

    /// The agreed deal as it stands: the parts of the entries still in (those out since were
    /// paid theirs).
    fn agreed_deal(&self) -> Option<AgreedDeal> {
        let (parts, left_to_play_for) = self.deal.as_ref()?;
        let still_in = |no: &u32| self.entries.get(no).is_some_and(|e| !e.out && e.placed.is_none());
        let parts = parts.iter().filter(|(no, _)| still_in(no)).map(|(&no, &amount)| DealPart { entry: floor_events::EntryNo(no), amount });
        Some(AgreedDeal { parts: parts.collect(), left_to_play_for: *left_to_play_for })
    }
}

/// An entry's bounty parts (its buy-in's, each rebuy's) and its bounty, from the bounties'
/// ledger; refused while that ledger has not caught up with registration, the rebuys or seating
/// (a purchase without its bounty part, a knockout not recorded: a moment after either).
fn bounty_parts(number: u32, e: &EntryView) -> Result<(u64, Vec<u64>, Bounty), Unavailable> {
    let behind = |what: String| {
        Err(Unavailable::new(
            codes::SNAPSHOT_UNAVAILABLE,
            format!("entry {number}: {what} is not in the bounties' ledger yet: try again in a moment"),
        ))
    };
    let Some(buy_in) = e.bounty.buy_in else { return behind("the bounty part of its buy-in".into()) };
    let mut rebuys = Vec::with_capacity(e.rebuys.len());
    for i in 0..e.rebuys.len() {
        match e.bounty.rebuys.get(i).copied().flatten() {
            Some(part) => rebuys.push(part),
            None => return behind(format!("the bounty part of rebuy {}", i + 1)),
        }
    }
    if e.out && !e.bounty.knocked_out {
        return behind("its knockout".into());
    }
    Ok((buy_in, rebuys, Bounty { head: e.bounty.head, collected: e.bounty.collected }))
}

#[cfg(test)]
#[path = "projection_tests.rs"]
mod tests;
