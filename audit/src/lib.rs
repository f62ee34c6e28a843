//! `floor audit` (issue 42): an independent replayer. Input: every commit of one tournament (every
//! aggregate whose id is the tournament) with its stream sequence and time; output: a [`Report`],
//! one [`Check`] per kind of fact, each `ok` or its differences, each naming the commits involved.
//!
//! The folds here are written apart from the services' (this crate depends on the contract and
//! the pure rules only; `rules/tests/service_dependencies.rs` keeps it so): a service's bug is
//! not repeated here, it shows up as a difference. What is checked and what is not yet:
//! `docs/audit.md`.

use chrono::{DateTime, Utc};
use floor_events::abort::AbortEvent;
use floor_events::bounties::BountyEvent;
use floor_events::commit::{Commit, Events};
use floor_events::lottery::LotteryEvent;
use floor_events::payouts::{LockCause, PayoutEvent, PrizeBand};
use floor_events::rebuys::RebuyEvent;
use floor_events::registration::TournamentEvent;
use floor_events::satellites::SatelliteEvent;
use floor_events::seating::SeatingEvent;
use floor_events::tournament::EntryLedger;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};

pub mod chain;
pub mod html;
pub mod lottery;
mod payouts;
use payouts::payouts;

/// One stored commit: what `floor export` writes per line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogCommit {
    /// `floor.ev.<aggregate>.<id>`.
    pub subject: String,
    /// The stream sequence.
    pub sequence: u64,
    /// When the stream stored it.
    pub time: DateTime<Utc>,
    /// The commit's body, as stored (JSON).
    pub body: Vec<u8>,
    /// The hash of its aggregate's previous commit it carries (the `Floor-Prev-Hash` header;
    /// [`chain`]); `None` for a commit stored before chains (legacy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

/// One difference: what does not hold, and the commits involved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// What differs.
    pub message: String,
    /// The stream sequences of the commits involved.
    pub sequences: Vec<u64>,
}

/// One check: `ok` when it found no difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// `decode`, `draws`, `entries`, `places`, `money`.
    pub name: String,
    /// Whether it holds.
    pub ok: bool,
    /// What did not hold.
    pub differences: Vec<Difference>,
}

/// The audit of one tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Commits read.
    pub commits: usize,
    /// Commits carrying their aggregate's previous hash ([`chain`]).
    #[serde(default)]
    pub chained: usize,
    /// Commits stored before hash chains: read as legacy, their chain not verifiable.
    #[serde(default)]
    pub legacy: usize,
    /// Whether every check holds.
    pub ok: bool,
    /// Every check, in the order they ran.
    pub checks: Vec<Check>,
}

impl Report {
    /// A readable summary: `ok`, or each difference with its commits.
    pub fn summary(&self) -> String {
        let mut out = format!("{} commits: {}\n", self.commits, if self.ok { "ok" } else { "DIFFERENCES" });
        if self.legacy > 0 {
            out.push_str(&format!(
                "  {} legacy commit(s) (stored before hash chains: read, their chain not verifiable), {} chained\n",
                self.legacy, self.chained
            ));
        }
        for check in &self.checks {
            if check.ok {
                out.push_str(&format!("  {}: ok\n", check.name));
            } else {
                out.push_str(&format!("  {}: {} difference(s)\n", check.name, check.differences.len()));
                for d in &check.differences {
                    let seqs: Vec<String> = d.sequences.iter().map(u64::to_string).collect();
                    out.push_str(&format!("    - {} (commits {})\n", d.message, seqs.join(", ")));
                }
            }
        }
        out
    }
}

/// SHA-256 of a hex seed, lower-case hex; `None` when the seed is not hex.
pub fn seed_hash(seed_hex: &str) -> Option<String> {
    if !seed_hex.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..seed_hex.len()).step_by(2).map(|i| u8::from_str_radix(seed_hex.get(i..i + 2)?, 16).ok()).collect();
    Some(Sha256::digest(bytes?).iter().map(|b| format!("{b:02x}")).collect())
}

#[derive(Default)]
struct Checks {
    decode: Vec<Difference>,
    draws: Vec<Difference>,
    entries: Vec<Difference>,
    tickets: Vec<Difference>,
    places: Vec<Difference>,
    money: Vec<Difference>,
}

fn diff(out: &mut Vec<Difference>, message: String, sequences: Vec<u64>) {
    out.push(Difference { message, sequences });
}

fn ledger_adds_up(l: &EntryLedger) -> bool {
    l.fee.amount.checked_add(l.prize_pool.amount) == Some(l.paid_in.amount)
}

/// What the replay keeps.
#[derive(Default)]
struct State {
    // draws: the commitment and its commit, by draw.
    seat_commitment: Option<(String, u64)>,
    round_commitments: BTreeMap<u32, (String, u64)>,
    mystery_commitment: Option<(String, u64)>,
    lottery_commitment: Option<(String, u64)>,
    // entries
    capacity: Option<u32>,
    live: BTreeSet<u32>,
    // Every entry registered and not unregistered, with its registration's commit.
    entered: BTreeMap<u32, u64>,
    // Each entry's registration ledger, and whether play started.
    ledgers: BTreeMap<u32, EntryLedger>,
    started: bool,
    closed: Option<(&'static str, u64)>,
    // money in: entries' prize pool, refunds, rebuys and add-ons, net.
    pool_in: i128,
    // The bounty parts of the entries and purchases (inside their ledgers' prize pool), net of
    // refunds, and the bounty money paid out.
    bounty_in: i128,
    bounty_out: i128,
    winner_bounty: Option<u64>,
    // The last locked table's contributions, and its commit.
    contributions: Option<(u64, u64)>,
    cancelled: bool,
    // Everything paid in (entries, purchases), net of refunds, and the bounty cash paid out.
    paid_in: i128,
    bounty_cash: i128,
    // The lottery's draw: its pool, prizes by place, commit; whether the table locked on it.
    lottery_pool: Option<(u64, Vec<u64>, u64)>,
    lottery_lock: bool,
    // The published table, the buy-in (minor units) and the creation's commit.
    lottery_terms: Option<(floor_events::lottery::LotteryTerms, u64, u64)>,
    // tickets: issued (by the satellite's entry: value, commit), spent (ticket → commit),
    // passed down (the winner's entry), and the tickets the field's entries paid with.
    tickets: BTreeMap<u32, (u64, u64)>,
    passed_down: BTreeSet<u32>,
    passed_to: BTreeSet<u32>,
    spent: BTreeMap<String, u64>,
    paid_with: BTreeMap<String, (u32, u64)>,
    award_amounts: BTreeMap<u32, (u64, u64)>,
    // places
    table: Option<(Vec<PrizeBand>, u64, u64)>,   // bands, pool, commit
    awarded: BTreeMap<u32, u64>,                 // entry → commit of its award
    places: BTreeMap<u32, Vec<(u32, u64, u64)>>, // place → (shared, amount, commit)
    awards_total: u64,
    deal: bool,
    // The agreed deal: each entry's share, what was left to play for (to place 1), its commit.
    agreed: Option<(BTreeMap<u32, u64>, u64, u64)>,
    paid: Option<u64>,
    // A flight (issue 36): a Day 1 pays its pool over to its Day 2 (its commit), a Day 2
    // takes its Day 1s' pools in.
    day1: bool,
    transferred_out: Option<(u64, u64)>,
    transferred_in: i128,
}

/// Audits one tournament's commits (any order: they are replayed in stream order).
pub fn audit(commits: &[LogCommit]) -> Report {
    audit_with(commits, &[])
}

/// As [`audit`], knowing the stream sequences the stream reports deleted (which tell a removed
/// commit from an altered one in the chains).
pub fn audit_with(commits: &[LogCommit], deleted: &[u64]) -> Report {
    let chains = chain::verify(commits, deleted);
    let mut commits: Vec<&LogCommit> = commits.iter().collect();
    commits.sort_by_key(|c| c.sequence);
    let mut c = Checks::default();
    let mut s = State::default();
    for commit in &commits {
        let seq = commit.sequence;
        let decoded = match Commit::decode(&commit.subject, &commit.body) {
            Ok(d) => d,
            Err(e) => {
                diff(&mut c.decode, format!("{} does not decode: {e}", commit.subject), vec![seq]);
                continue;
            }
        };
        match decoded.events {
            Events::Tournament(events) => events.into_iter().for_each(|e| tournament(&mut s, &mut c, e, seq)),
            Events::Seating(events) => events.into_iter().for_each(|e| seating(&mut s, &mut c, e, seq)),
            Events::Payouts(events) => events.into_iter().for_each(|e| payouts(&mut s, &mut c, e, seq)),
            Events::Rebuys(events) => events.into_iter().for_each(|e| rebuys(&mut s, &mut c, e, seq)),
            Events::Bounties(events) => events.into_iter().for_each(|e| bounties(&mut s, &mut c, e, seq)),
            Events::Lottery(events) => events.into_iter().for_each(|e| lottery(&mut s, &mut c, e, seq)),
            Events::Abort(events) => events.into_iter().for_each(|e| abort(&mut s, &mut c, e, seq)),
            Events::Satellite(events) => events.into_iter().for_each(|e| satellite(&mut s, &mut c, e, seq)),
            _ => {}
        }
    }
    // Places awarded are contiguous: every place from the best to the worst awarded was awarded.
    if let (Some(&first), Some(&last)) = (s.places.keys().next(), s.places.keys().next_back()) {
        let mut place = first;
        while place <= last {
            match s.places.get(&place) {
                Some(group) => place += group[0].0.max(1),
                None => {
                    diff(&mut c.places, format!("place {place} was never awarded (places {first}..={last} were)"), vec![]);
                    place += 1;
                }
            }
        }
        if s.paid.is_some() && first != 1 {
            diff(&mut c.places, format!("the tournament is paid but its best place awarded is {first}"), vec![]);
        }
    }
    // Places: once paid, every entry in the field has exactly one place, and only they have.
    if let Some(paid) = s.paid {
        for (entry, registered) in &s.entered {
            if !s.awarded.contains_key(entry) {
                diff(&mut c.places, format!("entry #{entry} has no place"), vec![*registered, paid]);
            }
        }
        for (entry, awarded) in &s.awarded {
            if !s.entered.contains_key(entry) {
                diff(&mut c.places, format!("entry #{entry} was awarded a place but is not in the field"), vec![*awarded]);
            }
        }
    }
    // Tickets: each one the award of its seat's value to the entry that won it (or passed down
    // to the next finisher), and every award of a seat's value a ticket.
    if let Some(&(value, _)) = s.tickets.values().next() {
        for (entry, (v, issued)) in &s.tickets {
            match s.award_amounts.get(entry) {
                _ if s.passed_to.contains(entry) => {}
                Some((amount, awarded)) if amount != v => {
                    diff(&mut c.tickets, format!("entry #{entry}'s ticket is worth {v}, its award {amount}"), vec![*awarded, *issued])
                }
                None => diff(&mut c.tickets, format!("a ticket for entry #{entry}, which has no award"), vec![*issued]),
                _ => {}
            }
        }
        for (entry, (amount, awarded)) in &s.award_amounts {
            if *amount == value && !s.tickets.contains_key(entry) && !s.passed_down.contains(entry) {
                diff(&mut c.tickets, format!("entry #{entry} won a seat ({amount}) and holds no ticket"), vec![*awarded]);
            }
        }
    }
    // Money in: the entries' and purchases' prize pool parts (bounty parts aside, net of
    // refunds) are what the locked table says the entries contributed; bounty money in is
    // bounty money out once the winner has collected the rest.
    if let (Some((contributions, locked)), false) = (s.contributions, s.cancelled) {
        let computed = s.pool_in - s.bounty_in + s.transferred_in;
        if i128::from(contributions) != computed {
            diff(
                &mut c.money,
                format!("the table locks contributions of {contributions}; the entries, refunds and purchases put in {computed} (bounty parts aside)"),
                vec![locked],
            );
        }
    }
    // A Day 1 pays no prize: its whole pool, what its entries put in, goes to its Day 2.
    if let Some((amount, at)) = s.transferred_out {
        if i128::from(amount) != s.pool_in {
            diff(&mut c.money, format!("the Day 1 transferred {amount}, its entries put {} into its pool", s.pool_in), vec![at]);
        }
    }
    if s.day1 && (s.paid.is_some() || !s.places.is_empty()) {
        diff(&mut c.places, "a Day 1 pays no prize of its own".to_owned(), s.paid.into_iter().collect());
    }
    if let Some(winner) = s.winner_bounty {
        if s.bounty_in != s.bounty_out {
            diff(&mut c.money, format!("bounties: {} paid in, {} paid out", s.bounty_in, s.bounty_out), vec![winner]);
        }
    }
    let checks = vec![
        ("chain", chains.differences),
        ("decode", c.decode),
        ("draws", c.draws),
        ("entries", c.entries),
        ("tickets", c.tickets),
        ("places", c.places),
        ("money", c.money),
    ];
    let checks: Vec<Check> =
        checks.into_iter().map(|(name, d)| Check { name: name.to_owned(), ok: d.is_empty(), differences: d }).collect();
    Report { commits: commits.len(), chained: chains.chained, legacy: chains.legacy, ok: checks.iter().all(|c| c.ok), checks }
}

fn verify(out: &mut Vec<Difference>, what: &str, commitment: Option<&(String, u64)>, seed: &str, seq: u64) {
    match commitment {
        None => diff(out, format!("{what}: seed revealed without a commitment before it"), vec![seq]),
        Some((hash, at)) => match seed_hash(seed) {
            Some(h) if h.eq_ignore_ascii_case(hash) => {}
            Some(h) => diff(out, format!("{what}: the seed's SHA-256 is {h}, the commitment {hash}"), vec![*at, seq]),
            None => diff(out, format!("{what}: the seed {seed:?} is not hex"), vec![*at, seq]),
        },
    }
}

fn tournament(s: &mut State, c: &mut Checks, e: TournamentEvent, seq: u64) {
    match e {
        TournamentEvent::TournamentCreated(t) => {
            s.lottery_terms = t.definition.lottery.clone().map(|l| (l, t.definition.buy_in.amount, seq));
            s.capacity = Some(t.definition.capacity);
            s.day1 = t.definition.flight.is_some();
        }
        // A flight's Day 2 entry carried from a Day 1 (issue 36): in the field, paid nothing here.
        TournamentEvent::EntryCarried(r) if r.outcome == floor_events::flights::CarryOutcome::Registered => {
            if let Some((why, at)) = s.closed {
                diff(&mut c.entries, format!("entry {} carried in after {why}", r.entry), vec![at, seq]);
            }
            s.entered.insert(r.entry.0, seq);
            if !s.live.insert(r.entry.0) {
                diff(&mut c.entries, format!("entry {} registered twice", r.entry), vec![seq]);
            }
            if let Some(cap) = s.capacity {
                if s.live.len() as u32 > cap {
                    diff(&mut c.entries, format!("{} entries in play, capacity {cap}", s.live.len()), vec![seq]);
                }
            }
        }
        TournamentEvent::EntryRegistered(r) => {
            if let Some((why, at)) = s.closed {
                diff(&mut c.entries, format!("entry {} registered after {why}", r.entry), vec![at, seq]);
            }
            if !ledger_adds_up(&r.ledger) {
                diff(
                    &mut c.money,
                    format!(
                        "entry {}: paid in {} ≠ fee {} + prize pool {}",
                        r.entry, r.ledger.paid_in.amount, r.ledger.fee.amount, r.ledger.prize_pool.amount
                    ),
                    vec![seq],
                );
            }
            s.pool_in += i128::from(r.ledger.prize_pool.amount);
            s.paid_in += i128::from(r.ledger.paid_in.amount);
            s.entered.insert(r.entry.0, seq);
            s.ledgers.insert(r.entry.0, r.ledger);
            if let Some(ticket) = &r.ticket {
                if let Some((other, at)) = s.paid_with.insert(ticket.to_string(), (r.entry.0, seq)) {
                    diff(&mut c.tickets, format!("ticket {ticket} paid for entry #{other} and entry {}", r.entry), vec![at, seq]);
                }
            }
            if !s.live.insert(r.entry.0) {
                diff(&mut c.entries, format!("entry {} registered twice", r.entry), vec![seq]);
            }
            if let Some(cap) = s.capacity {
                if s.live.len() as u32 > cap {
                    diff(&mut c.entries, format!("{} entries in play, capacity {cap}", s.live.len()), vec![seq]);
                }
            }
        }
        TournamentEvent::EntryUnregistered(u) => {
            s.pool_in -= i128::from(u.refund.prize_pool.amount);
            s.paid_in -= i128::from(u.refund.paid_in.amount);
            s.live.remove(&u.entry.0);
            s.entered.remove(&u.entry.0);
            s.paid_with.retain(|_, (entry, _)| *entry != u.entry.0);
        }
        TournamentEvent::EntryEliminated(x) => {
            s.live.remove(&x.entry.0);
        }
        TournamentEvent::RegistrationClosed(_) => {
            s.closed.get_or_insert(("registration closed", seq));
        }
        TournamentEvent::TournamentFinished(_) => s.closed = Some(("the finish", seq)),
        TournamentEvent::TournamentStarted(_) => s.started = true,
        TournamentEvent::TournamentCancelled(cancelled) => {
            s.closed = Some(("the cancellation", seq));
            s.cancelled = true;
            // A Day 2's Day 1 pools are the abort service's to pay (issue 36): a refund of
            // buy-ins leaves them with nobody.
            if s.transferred_in > 0 {
                diff(
                    &mut c.money,
                    format!(
                        "the Day 2 was cancelled by registration holding {} of its Day 1s' pools, which nobody is paid",
                        s.transferred_in
                    ),
                    vec![seq],
                );
            }
            // Before the start every entry gets back what it paid, once.
            if !s.started {
                let mut refunded = BTreeSet::new();
                for r in &cancelled.refunds {
                    if !refunded.insert(r.entry.0) {
                        diff(&mut c.money, format!("entry {} refunded twice", r.entry), vec![seq]);
                    }
                    match (s.ledgers.get(&r.entry.0), s.entered.get(&r.entry.0)) {
                        (Some(paid), Some(registered)) if *paid != r.refund => diff(
                            &mut c.money,
                            format!("entry {} paid in {}, refunded {}", r.entry, paid.paid_in.amount, r.refund.paid_in.amount),
                            vec![*registered, seq],
                        ),
                        (_, None) => diff(&mut c.money, format!("entry {} refunded but not in the field", r.entry), vec![seq]),
                        _ => {}
                    }
                }
                for (entry, registered) in &s.entered {
                    if !refunded.contains(entry) {
                        diff(&mut c.money, format!("entry #{entry} not refunded by the cancellation"), vec![*registered, seq]);
                    }
                }
            }
        }
        _ => {}
    }
}

fn seating(s: &mut State, c: &mut Checks, e: SeatingEvent, seq: u64) {
    match e {
        SeatingEvent::DrawCommitted { commitment } => s.seat_commitment = Some((commitment, seq)),
        SeatingEvent::TablesDrawn { seed, .. } => verify(&mut c.draws, "the seat draw", s.seat_commitment.as_ref(), &seed, seq),
        SeatingEvent::RoundDrawCommitted { round, commitment } => {
            s.round_commitments.insert(round, (commitment, seq));
        }
        SeatingEvent::RoundDrawn { round, seed, .. } => {
            verify(&mut c.draws, &format!("the shootout's round {round} draw"), s.round_commitments.get(&round), &seed, seq)
        }
        _ => {}
    }
}

fn bounties(s: &mut State, c: &mut Checks, e: BountyEvent, seq: u64) {
    match e {
        BountyEvent::MysteryStageStarted { commitment, .. } => s.mystery_commitment = Some((commitment, seq)),
        BountyEvent::BountyPaidIn { amount, .. } => s.bounty_in += i128::from(amount.amount),
        BountyEvent::BountyRefunded { amount, .. } => s.bounty_in -= i128::from(amount.amount),
        BountyEvent::BountyPaid { cash, .. } => {
            s.bounty_out += i128::from(cash.amount);
            s.bounty_cash += i128::from(cash.amount);
        }
        BountyEvent::WinnerBounty { own, left_over, .. } => {
            s.bounty_out += i128::from(own.amount) + i128::from(left_over.amount);
            s.winner_bounty = Some(seq);
        }
        BountyEvent::MysterySeedRevealed { seed } => {
            verify(&mut c.draws, "the mystery envelopes", s.mystery_commitment.as_ref(), &seed, seq)
        }
        _ => {}
    }
}

fn lottery(s: &mut State, c: &mut Checks, e: LotteryEvent, seq: u64) {
    match e {
        LotteryEvent::DrawCommitted(d) => s.lottery_commitment = Some((d.commitment, seq)),
        LotteryEvent::PrizeDrawn(p) => {
            verify(&mut c.draws, "the lottery's prize", s.lottery_commitment.as_ref(), &p.seed, seq);
            for m in s.lottery_terms.as_ref().map(|(terms, buy_in, _)| lottery::differences(terms, *buy_in, &p)).unwrap_or_default() {
                diff(&mut c.draws, format!("the lottery's draw: {m}"), vec![s.lottery_terms.as_ref().map_or(seq, |t| t.2), seq]);
            }
            let sum: u64 = p.prizes.iter().sum();
            s.lottery_pool = Some((p.pool.amount, p.prizes.clone(), seq));
            if sum != p.pool.amount {
                diff(&mut c.money, format!("the lottery's prizes sum to {sum}, its pool is {}", p.pool.amount), vec![seq]);
            }
        }
    }
}

fn satellite(s: &mut State, c: &mut Checks, e: SatelliteEvent, seq: u64) {
    match e {
        SatelliteEvent::TicketIssued(t) => {
            if let Some((_, first)) = s.tickets.insert(t.ticket.entry.0, (t.value.amount, seq)) {
                diff(&mut c.tickets, format!("ticket {} issued twice", t.ticket), vec![first, seq]);
            }
        }
        SatelliteEvent::SeatPassedDown(p) => {
            s.passed_down.insert(p.ticket.entry.0);
            s.passed_to.insert(p.to.entry.0);
        }
        SatelliteEvent::TicketSpent(t) => {
            if let Some(first) = s.spent.insert(t.ticket.to_string(), seq) {
                diff(&mut c.tickets, format!("ticket {} spent twice", t.ticket), vec![first, seq]);
            }
        }
        SatelliteEvent::TicketRefunded(t) => {
            s.spent.remove(&t.ticket.to_string());
        }
        _ => {}
    }
}

/// A cancellation after the start (the abort service's statements): each statement is the sum
/// of its lines, the statements sum to the books' figure, and the books balance with what the
/// log says was paid in and already paid out.
fn abort(s: &mut State, c: &mut Checks, e: AbortEvent, seq: u64) {
    let AbortEvent::Cancelled { cancellation, stored, .. } = e else { return };
    s.cancelled = true;
    let books = cancellation.books;
    if stored.is_none() {
        let mut sum = 0u64;
        for statement in &cancellation.statements {
            let lines: u64 = statement.lines.iter().map(|l| l.amount).sum();
            if lines != statement.total {
                diff(&mut c.money, format!("{}'s statement totals {}, its lines {lines}", statement.player, statement.total), vec![seq]);
            }
            sum += statement.total;
        }
        if sum != books.statements {
            diff(&mut c.money, format!("the statements sum to {sum}, the cancellation's books say {}", books.statements), vec![seq]);
        }
    }
    if i128::from(books.paid_in) != s.paid_in {
        diff(
            &mut c.money,
            format!("the cancellation's books say {} paid in, the entries and purchases {}", books.paid_in, s.paid_in),
            vec![seq],
        );
    }
    if i128::from(books.prizes_already_paid) != i128::from(s.awards_total) {
        diff(
            &mut c.money,
            format!("the cancellation's books say {} of prizes paid, the awards {}", books.prizes_already_paid, s.awards_total),
            vec![seq],
        );
    }
    if i128::from(books.bounties_already_paid) != s.bounty_cash {
        diff(
            &mut c.money,
            format!("the cancellation's books say {} of bounties paid, the bounty cash {}", books.bounties_already_paid, s.bounty_cash),
            vec![seq],
        );
    }
    if i128::from(books.transferred_in) != s.transferred_in {
        diff(
            &mut c.money,
            format!("the cancellation's books say {} came from the Day 1s, their transfers {}", books.transferred_in, s.transferred_in),
            vec![seq],
        );
    }
    let money_in = s.paid_in + i128::from(books.transferred_in) + i128::from(books.overlay) + i128::from(books.operator_cover);
    let money_out = i128::from(books.fees_kept) + i128::from(s.awards_total) + s.bounty_cash + i128::from(books.statements);
    if money_in != money_out {
        diff(
            &mut c.money,
            format!("the cancellation does not balance: {money_in} in, {money_out} out (fees kept, prizes and bounties paid, statements)"),
            vec![seq],
        );
    }
    if books.statements != books.refunds + books.distributed {
        diff(
            &mut c.money,
            format!("the statements {} are not refunds {} + distributed {}", books.statements, books.refunds, books.distributed),
            vec![seq],
        );
    }
}

fn rebuys(s: &mut State, c: &mut Checks, e: RebuyEvent, seq: u64) {
    let (entry, ledger) = match e {
        RebuyEvent::RebuyTaken { entry, ledger, .. } => (entry, ledger),
        RebuyEvent::AddOnTaken { entry, ledger, .. } => (entry, ledger),
        _ => return,
    };
    if !ledger_adds_up(&ledger) {
        diff(&mut c.money, format!("entry {entry}'s purchase: paid in {} ≠ fee + prize pool", ledger.paid_in.amount), vec![seq]);
    }
    s.pool_in += i128::from(ledger.prize_pool.amount);
    s.paid_in += i128::from(ledger.paid_in.amount);
}

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;
