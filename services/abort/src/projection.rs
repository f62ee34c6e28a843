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
    /// A sit & go.
    pub sit_and_go: bool,
    /// At most one table's seats: a single-table tournament.
    pub single_table: bool,
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
                    self.bounties = d.bounty.is_some();
                    self.rebuys_open = d.rebuy.is_some();
                    self.add_ons_open = d.add_on.is_some();
                }
                TournamentEvent::EntryRegistered(r) => {
                    let entry = EntryView {
                        player: r.player.clone(),
                        buy_in: r.ledger,
                        rebuys: vec![],
                        add_ons: vec![],
                        chips: 0,
                        out: false,
                        placed: None,
                        bounty: EntryBounty::default(),
                    };
                    self.entries.insert(r.entry.0, entry);
                }
                TournamentEvent::EntryUnregistered(u) => {
                    self.entries.remove(&u.entry.0);
                }
                TournamentEvent::EntryEliminated(x) => {
                    if let Some(e) = self.entries.get_mut(&x.entry.0) {
                        e.out = true;
                    }
                }
                TournamentEvent::TournamentStarted(_) => self.started = true,
                TournamentEvent::TournamentCancelled(_) | TournamentEvent::TournamentFinished(_) => self.over = true,
                TournamentEvent::PlayerRefused(_) | TournamentEvent::PlayersKeptApart(_) => {}
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
                PayoutEvent::DealAgreed { shares, left_to_play_for } => {
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
        self.in_play()?;
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
            let (buy_in, rebuys, bounty) = match self.bounties {
                true => bounty_parts(number, e)?,
                false => (0, vec![0; e.rebuys.len()], Bounty::default()),
            };
            let paid = |ledger: &EntryLedger, bounty: u64| Paid { ledger: *ledger, bounty };
            entries.push(Entry {
                entry: floor_events::EntryNo(number),
                player: e.player.clone(),
                buy_in: paid(&e.buy_in, buy_in),
                rebuys: e.rebuys.iter().zip(rebuys).map(|(l, b)| paid(l, b)).collect(),
                add_ons: e.add_ons.iter().map(|l| paid(l, 0)).collect(),
                standing,
                bounty,
            });
        }
        let late_registration_open = self.late_registration_until.is_some_and(|until| at < until);
        let snapshot = Snapshot {
            currency,
            format: Format {
                tables: if self.single_table { Tables::Single } else { Tables::Multi },
                sit_and_go: self.sit_and_go,
                twister: false,
            },
            entries,
            prizes: self.prizes.clone(),
            guarantee: self.guarantee,
            buying_open: late_registration_open || self.rebuys_open || self.add_ons_open,
            deal: self.agreed_deal(),
        };
        Ok((profile, snapshot))
    }
}

impl TournamentView {
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
mod tests {
    use super::*;
    use floor_events::payouts::PlaceAward;
    use floor_events::registration::{EntryKind, EntryRegistered, TournamentCreated, TournamentStarted};
    use floor_events::table::{SeatNo, SeatStack};
    use floor_events::tournament::{purchase_ledger, EntryModel, Fee, TournamentDefinition};
    use floor_events::{EntryNo, Money, TournamentId};

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    /// An entry reads back from its snapshot form unchanged, rebuys, add-ons and place included,
    /// in a fraction of the named-field form's bytes.
    #[test]
    fn an_entry_reads_back_from_its_snapshot_form() {
        let l = |paid: u64| purchase_ledger(Money::new(paid, Currency::EUR), Money::new(paid / 10, Currency::EUR));
        let entry = EntryView {
            player: PlayerId::parse("sim-123456").unwrap(),
            buy_in: l(1_100),
            rebuys: vec![l(1_000), l(550)],
            add_ons: vec![l(1_000)],
            chips: u64::MAX,
            out: true,
            placed: Some((17, 2_500)),
            bounty: EntryBounty { buy_in: Some(500), rebuys: vec![Some(250), None], head: 1_250, collected: 125, knocked_out: true },
        };
        let json = serde_json::to_string(&entry).unwrap();
        assert_eq!(serde_json::from_str::<EntryView>(&json).unwrap(), entry, "{json}");
        let plain = EntryView { rebuys: vec![], add_ons: vec![], placed: None, bounty: EntryBounty::default(), ..entry };
        let json = serde_json::to_string(&plain).unwrap();
        assert!(json.len() < 80, "{} bytes: {json}", json.len());
    }

    fn definition() -> TournamentDefinition {
        TournamentDefinition {
            name: "Tuesday 10".into(),
            start: Start::At(at("2026-11-24T18:00:00Z")),
            table_size: 2,
            starting_stack: 10_000,
            buy_in: Money::new(1_000, Currency::EUR),
            fee: Fee::OnTop(Money::new(100, Currency::EUR)),
            capacity: 100,
            min_players: 2,
            registration_opens: None,
            late_registration_until: Some(at("2026-11-24T19:00:00Z")),
            entry_model: EntryModel::Freezeout,
            guarantee: Some(Money::new(50_000, Currency::EUR)),
            profile: RuleProfile::SvenskaSpel2012,
            structure: None,
            rebuy: None,
            add_on: None,
            payout_table: None,
            hand_for_hand: None,
            bounty: None,
        }
    }

    fn ledger() -> EntryLedger {
        purchase_ledger(Money::new(1_000, Currency::EUR), Money::new(100, Currency::EUR))
    }

    fn registered(no: u32, player: &str) -> TournamentEvent {
        TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(no),
            player: PlayerId::parse(player).unwrap(),
            kind: EntryKind::Registration,
            new_player: true,
            ledger: ledger(),
            at: at("2026-11-24T17:00:00Z"),
        })
    }

    fn seat(entry: u32, chips: u64) -> SeatStack {
        SeatStack { seat: SeatNo(u8::try_from(entry).unwrap()), entry: EntryNo(entry), chips }
    }

    /// Three entries at two tables. Table 1 finished a hand (1 busted 2, placed 3rd) and is
    /// between hands; table 2 is in the middle of a hand that started with 9,000 for entry 3.
    fn played() -> TournamentView {
        let mut v = TournamentView::default();
        let created = TournamentCreated { tournament_id: TournamentId::new(), definition: definition(), at: at("2026-11-24T12:00:00Z") };
        v.on_tournament(&[TournamentEvent::TournamentCreated(created), registered(1, "ann"), registered(2, "bob"), registered(3, "cat")]);
        v.on_tournament(&[TournamentEvent::TournamentStarted(TournamentStarted {
            entries: 3,
            cause: floor_events::registration::StartCause::Scheduled,
            at: at("2026-11-24T18:00:00Z"),
        })]);
        let joined =
            |no: u32, p: &str| SeatingEvent::EntryJoined { entry: EntryNo(no), player: PlayerId::parse(p).unwrap(), stack: 10_000 };
        v.on_seating(&[joined(1, "ann"), joined(2, "bob"), joined(3, "cat")]);
        v.on_seating(&[
            SeatingEvent::HandStarted {
                table: 1,
                hand: 1,
                button: SeatNo(1),
                stacks: vec![seat(1, 10_000), seat(2, 10_000)],
                crossing: false,
            },
            SeatingEvent::HandFinished { table: 1, hand: 1, stacks: vec![seat(1, 21_000)], busts: vec![] },
            SeatingEvent::EntryEliminated { entry: EntryNo(2), players_left: 2, stack_at_start: None, table: None },
            // Table 2's hand 1 took 1,000 from entry 3 (to a player not shown); hand 2 is on.
            SeatingEvent::HandFinished { table: 2, hand: 1, stacks: vec![seat(3, 9_000)], busts: vec![] },
            SeatingEvent::HandStarted { table: 2, hand: 2, button: SeatNo(3), stacks: vec![seat(3, 9_000)], crossing: false },
        ]);
        v
    }

    #[test]
    fn the_snapshot_takes_the_chips_at_the_start_of_each_interrupted_hand_and_the_places_from_payouts() {
        let mut v = played();
        let now = at("2026-11-24T20:00:00Z");
        let early = v.snapshot(now).unwrap_err();
        assert_eq!(early.code, codes::SNAPSHOT_UNAVAILABLE, "entry 2 is out and not placed yet: {early:?}");
        let award = PlaceAward { entry: EntryNo(2), player: PlayerId::parse("bob").unwrap(), place: 3, shared: 1, amount: 0 };
        v.on_payouts(&[PayoutEvent::PlacesAwarded { players_left_before: 3, awards: vec![award], hand_for_hand: None }]);
        let (profile, s) = v.snapshot(now).unwrap();
        assert_eq!(profile, RuleProfile::SvenskaSpel2012);
        let standings: Vec<Standing> = s.entries.iter().map(|e| e.standing).collect();
        assert_eq!(
            standings,
            [Standing::Remaining { chips: 21_000 }, Standing::Eliminated { place: 3, prize: 0 }, Standing::Remaining { chips: 9_000 }]
        );
        assert_eq!(s.entries[0].buy_in.ledger, ledger());
        assert_eq!(s.format.tables, Tables::Multi, "100 seats at tables of 2");
        assert_eq!((s.guarantee, s.buying_open), (Some(50_000), false), "late registration closed at 19:00");
        assert!(v.snapshot(at("2026-11-24T18:30:00Z")).unwrap().1.buying_open, "open before 19:00");
    }

    #[test]
    fn what_cannot_be_built_is_refused_with_a_code() {
        let mut not_started = TournamentView::default();
        assert_eq!(not_started.snapshot(at("2026-11-24T20:00:00Z")).unwrap_err().code, codes::UNKNOWN_TOURNAMENT);
        let created = TournamentCreated { tournament_id: TournamentId::new(), definition: definition(), at: at("2026-11-24T12:00:00Z") };
        not_started.on_tournament(&[TournamentEvent::TournamentCreated(created)]);
        assert_eq!(not_started.in_play().unwrap_err().code, codes::TOURNAMENT_NOT_STARTED);
        let mut won = played();
        won.on_payouts(&[PayoutEvent::TournamentPaid { prizes_paid: Money::new(3_000, Currency::EUR) }]);
        assert_eq!(won.in_play().unwrap_err().code, codes::TOURNAMENT_FINISHED);
    }

    fn eur(cents: u64) -> Money {
        Money::new(cents, Currency::EUR)
    }

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    /// [`played`] as a progressive knockout: each entry put 500 into the bounty pool, and
    /// entry 1 knocked entry 2 out (250 in cash, 250 onto its own head).
    fn played_pko() -> TournamentView {
        let mut v = played();
        v.bounties = true;
        let terms = BountyTerms::Progressive { share_bps: 5_000, cash_share_bps: 5_000 };
        v.on_bounties(&[BountyEvent::BountiesConfigured { tournament_id: TournamentId::new(), terms, currency: Currency::EUR }]);
        let paid_in =
            |no: u32, p: &str| BountyEvent::BountyPaidIn { entry: EntryNo(no), player: player(p), by: PaidInBy::Entry, amount: eur(500) };
        v.on_bounties(&[paid_in(1, "ann"), paid_in(2, "bob"), paid_in(3, "cat")]);
        let award = PlaceAward { entry: EntryNo(2), player: player("bob"), place: 3, shared: 1, amount: 0 };
        v.on_payouts(&[PayoutEvent::PlacesAwarded { players_left_before: 3, awards: vec![award], hand_for_hand: None }]);
        v
    }

    fn knockout_of_bob() -> Vec<BountyEvent> {
        vec![
            BountyEvent::EntryKnockedOut { entry: EntryNo(2), player: player("bob"), bounty: eur(500), unclaimed: false },
            BountyEvent::BountyPaid {
                to: EntryNo(1),
                player: player("ann"),
                eliminated: EntryNo(2),
                eliminated_player: player("bob"),
                cash: eur(250),
                added_to_own: eur(250),
            },
        ]
    }

    /// The bounties' ledger goes into the snapshot: each purchase's bounty part, each head
    /// (with what a progressive knockout added to it), the cash collected; the tally adds up.
    #[test]
    fn a_bounty_tournament_s_snapshot_carries_the_bounties_ledger() {
        let mut v = played_pko();
        v.on_bounties(&knockout_of_bob());
        let (_, s) = v.snapshot(at("2026-11-24T20:00:00Z")).unwrap();
        let bounties: Vec<(u64, u64, u64)> = s.entries.iter().map(|e| (e.buy_in.bounty, e.bounty.head, e.bounty.collected)).collect();
        assert_eq!(bounties, [(500, 750, 250), (500, 0, 0), (500, 500, 0)]);
        let tally = crate::Tally::of(&s).unwrap();
        assert_eq!((tally.bounty_paid_in, tally.bounties_paid, tally.heads), (1_500, 250, 1_250));
        let cancellation = crate::cancel(&s, RuleProfile::Tda2024, crate::Method::RollForward).unwrap();
        let own: u64 = cancellation
            .statements
            .iter()
            .flat_map(|st| &st.lines)
            .filter(|l| l.kind == crate::LineKind::OwnBounty)
            .map(|l| l.amount)
            .sum();
        assert_eq!(own, 1_250, "each entry still in gets the bounty on its head");
    }

    /// A purchase whose bounty part, or a bust whose knockout, the bounties' ledger has not
    /// recorded yet: refused, never guessed.
    #[test]
    fn a_bounty_ledger_behind_the_others_refuses_the_snapshot() {
        let now = at("2026-11-24T20:00:00Z");
        let v = played_pko();
        let behind = v.snapshot(now).unwrap_err();
        assert_eq!(behind.code, codes::SNAPSHOT_UNAVAILABLE);
        assert!(behind.message.contains("entry 2: its knockout"), "{}", behind.message);
        let mut v = played_pko();
        v.on_bounties(&knockout_of_bob());
        v.on_rebuys(&[RebuyEvent::RebuyTaken {
            entry: EntryNo(3),
            player: player("cat"),
            number: 1,
            chips: 10_000,
            ledger: ledger(),
            at: now,
        }]);
        let behind = v.snapshot(now).unwrap_err();
        assert!(behind.message.contains("entry 3: the bounty part of rebuy 1"), "{}", behind.message);
        let part =
            BountyEvent::BountyPaidIn { entry: EntryNo(3), player: player("cat"), by: PaidInBy::Rebuy { number: 1 }, amount: eur(500) };
        v.on_bounties(&[part]);
        let (_, s) = v.snapshot(now).unwrap();
        assert_eq!(s.entries[2].rebuys[0].bounty, 500);
        assert_eq!(s.entries[2].bounty.head, 1_000, "the rebuy's bounty part is on the head too");
    }

    /// An agreed deal goes into the snapshot with the parts of the entries still in.
    #[test]
    fn an_agreed_deal_is_in_the_snapshot_for_the_entries_still_in() {
        let mut v = played();
        let award = PlaceAward { entry: EntryNo(2), player: player("bob"), place: 3, shared: 1, amount: 0 };
        v.on_payouts(&[PayoutEvent::PlacesAwarded { players_left_before: 3, awards: vec![award], hand_for_hand: None }]);
        let share =
            |no: u32, p: &str, amount: u64| floor_events::payouts::DealShare { entry: EntryNo(no), player: player(p), chips: 0, amount };
        v.on_payouts(&[PayoutEvent::DealAgreed { shares: vec![share(1, "ann", 1_800), share(3, "cat", 1_000)], left_to_play_for: 200 }]);
        let now = at("2026-11-24T20:00:00Z");
        let deal = v.snapshot(now).unwrap().1.deal.expect("the deal");
        assert_eq!(deal.parts, [DealPart { entry: EntryNo(1), amount: 1_800 }, DealPart { entry: EntryNo(3), amount: 1_000 }]);
        assert_eq!(deal.left_to_play_for, 200);
        v.on_seating(&[SeatingEvent::EntryEliminated { entry: EntryNo(3), players_left: 1, stack_at_start: None, table: None }]);
        let award = PlaceAward { entry: EntryNo(3), player: player("cat"), place: 2, shared: 1, amount: 1_000 };
        v.on_payouts(&[PayoutEvent::PlacesAwarded { players_left_before: 2, awards: vec![award], hand_for_hand: None }]);
        let deal = v.snapshot(now).unwrap().1.deal.expect("the deal");
        assert_eq!(deal.parts, [DealPart { entry: EntryNo(1), amount: 1_800 }], "entry 3 was paid its part when it went out");
    }
}
