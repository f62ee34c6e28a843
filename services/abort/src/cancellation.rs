//! Cancellation payouts: a tournament snapshot in, one statement per player out, by the rule
//! set of the tournament's profile (`../shared/spec/README.md` §10).
//!
//! [`cancel`] checks the snapshot ([`Tally`]), hands it to the profile's rule
//! ([`crate::rules`]), which writes lines through a [`Builder`] and says what its pots must
//! add up to ([`Plan`]); then, for every rule alike:
//!
//! 1. **Place prize floor.** In the money (entries still in ≤ paid places), an entry whose
//!    lines, bounties aside, come to less than the prize for place N gets a top-up line to it,
//!    paid by the operator (`docs/abort.md`: only refund-only rules ever need it). Not after an
//!    agreed deal ([`rules::deal`]): its amounts replaced the table's prizes.
//! 2. **Exactness.** The prize-pool lines must sum to the rule's figure (plus top-ups), the
//!    bounty lines to the bounty money, and nothing the pool holds may stay undistributed.
//! 3. **Books.** Money in (paid in, overlay, operator cover) equals money out (fees kept,
//!    prizes and bounties already paid, statements), summed independently, to the minor unit.
//!
//! Amounts are divided by [`crate::split`]'s remainder rule: largest remainder, ties by entry
//! number. Cost: O(n log n) for n entries (one sort by entry number, one by player).

use crate::error::CancelError;
use crate::rules;
use crate::snapshot::{Snapshot, Tally};
use crate::split::{self, Share};
use crate::statement::{Books, Cancellation, Case, Inputs, Line, LineKind, Method, Pot, Rule, Statement};
use floor_events::{PlayerId, RuleProfile};

/// Cancels a tournament under `profile` by `method`.
///
/// # Errors
/// The snapshot's faults ([`Tally::of`]); `method_not_offered` for a method the profile does
/// not offer; `not_yet_available` for ICM; `books_do_not_balance` if the statements would not
/// close the books (a bug: the cancellation is refused rather than recorded wrong).
pub fn cancel(snapshot: &Snapshot, profile: RuleProfile, method: Method) -> Result<Cancellation, CancelError> {
    let tally = Tally::of(snapshot)?;
    let mut builder = Builder::new(&tally);
    let plan = match profile {
        RuleProfile::Win2day => rules::win2day::cancel(&mut builder, method)?,
        RuleProfile::HrvatskaLutrija2017 => rules::hrvatska_lutrija::cancel(&mut builder, method)?,
        RuleProfile::SvenskaSpel2012 => rules::svenska_spel::cancel(&mut builder, method)?,
        RuleProfile::ReelCz => rules::reel_cz::cancel(&mut builder, method)?,
        RuleProfile::FortunaCz2024 => rules::fortuna_cz::cancel(&mut builder, method)?,
        RuleProfile::Tda2024 => rules::tda_2024::cancel(&mut builder, method)?,
    };
    // After an agreed deal, the profile's rule (which refuses what it does not offer) decided
    // only whether everything goes back; if not, the deal's rule writes the lines instead.
    if tally.deal.is_some() && !plan.case.refunds_everything() {
        let mut builder = Builder::new(&tally);
        let plan = rules::deal::cancel(&mut builder, profile, plan.method)?;
        return builder.finish(profile, plan);
    }
    builder.finish(profile, plan)
}

/// Cancels a tournament before its start: every entry gets back everything it paid
/// ([`Rule::FloorBeforeStart`], case `before_start`), as registration's own cancel before the
/// start does (spec §1: a tournament that does not start refunds every entry). The abort
/// service takes this way only when registration cannot: its log holds a commit no reader can
/// apply (`docs/abort.md`). No table, guarantee or deal applies before the start: the
/// snapshot's are not read. A tournament nobody entered is cancelled with no statement.
///
/// # Errors
/// `method_not_offered` for a method other than the rulebook's or a rollback (the same thing
/// here); the snapshot's faults ([`Tally::of`]) but `nobody_remaining`.
pub fn cancel_before_the_start(snapshot: &Snapshot, profile: RuleProfile, method: Method) -> Result<Cancellation, CancelError> {
    if !matches!(method, Method::Rulebook | Method::Rollback) {
        return Err(CancelError::MethodNotOffered { profile, method: method.name() });
    }
    let unstarted = Snapshot { prizes: vec![], guarantee: None, deal: None, buying_open: false, ..snapshot.clone() };
    if unstarted.entries.is_empty() {
        return Ok(Cancellation {
            profile,
            method: Method::Rollback,
            case: Case::BeforeStart,
            decided_under: None,
            currency: unstarted.currency,
            remaining: 0,
            paid_places: 0,
            chips_in_play: 0,
            pool: 0,
            books: Books::default(),
            statements: vec![],
        });
    }
    let tally = Tally::of(&unstarted)?;
    let mut builder = Builder::new(&tally);
    let plan = rules::tda_2024::rollback(&mut builder, Rule::FloorBeforeStart, Case::BeforeStart);
    builder.finish(profile, plan)
}

/// What a rule decided, beyond its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The method applied.
    pub method: Method,
    /// The branch taken.
    pub case: Case,
    /// The rule under which the operator chose the method, where the rulebook delegates.
    pub decided_under: Option<Rule>,
    /// The prize pool the rule divides.
    pub pool: u64,
    /// What its prize-pool lines add up to (refunds of prize-pool parts included).
    pub prize_money: u64,
    /// What its bounty lines add up to.
    pub bounty_money: u64,
}

/// Owed amounts first, then the rest of `open` to share: returns (what the prize-pool lines
/// will add up to, the rest to share). When `owed` exceeds `open` the rest is zero and the
/// operator covers the difference (`docs/abort.md`).
pub fn owed_then_rest(open: u64, owed: u64) -> (u64, u64) {
    (open.max(owed), open.saturating_sub(owed))
}

/// Writes a cancellation's lines, keeping each pot's total.
pub struct Builder<'t, 'a> {
    /// The checked snapshot.
    pub t: &'t Tally<'a>,
    /// Lines by entry index.
    lines: Vec<Vec<Line>>,
    /// Per entry index: the sum of its lines, bounties aside (for the place prize floor).
    non_bounty: Vec<u64>,
    pots: [u64; 3],
    refunds: u64,
    overflow: bool,
}

fn pot_index(pot: Pot) -> usize {
    match pot {
        Pot::Fees => 0,
        Pot::PrizePool => 1,
        Pot::Bounties => 2,
    }
}

impl<'t, 'a> Builder<'t, 'a> {
    fn new(t: &'t Tally<'a>) -> Self {
        let n = t.snapshot.entries.len();
        Builder { t, lines: vec![Vec::new(); n], non_bounty: vec![0; n], pots: [0; 3], refunds: 0, overflow: false }
    }

    /// One line for the entry at index `i`; a zero amount writes nothing.
    pub fn line(&mut self, i: usize, kind: LineKind, rule: Rule, amount: u64, inputs: Inputs) {
        if amount == 0 {
            return;
        }
        let pot = &mut self.pots[pot_index(kind.pot())];
        match pot.checked_add(amount) {
            Some(sum) => *pot = sum,
            None => self.overflow = true,
        }
        if kind.is_refund() {
            self.refunds = self.refunds.saturating_add(amount);
        }
        if kind.pot() != Pot::Bounties {
            self.non_bounty[i] = self.non_bounty[i].saturating_add(amount);
        }
        let lines = &mut self.lines[i];
        if lines.capacity() == 0 {
            // An entry gets up to about six lines: one allocation, not three.
            lines.reserve_exact(6);
        }
        lines.push(Line { entry: self.t.entry(i).entry, kind, rule, amount, inputs });
    }

    fn paid(&mut self, i: usize, kind: LineKind, rule: Rule, amount: u64) {
        self.line(i, kind, rule, amount, Inputs { pot: amount, ..Inputs::default() });
    }

    /// Every fee the entry paid (buy-in, rebuys, add-ons) back. Returns the amount.
    pub fn refund_fees(&mut self, i: usize, rule: Rule) -> u64 {
        let fees = self.t.entry(i).purchases().map(|p| p.ledger.fee.amount).sum();
        self.paid(i, LineKind::RefundFee, rule, fees);
        fees
    }

    /// The buy-in's fee back (004's "Buy-in" is prize-pool part plus Provize). Returns it.
    pub fn refund_buy_in_fee(&mut self, i: usize, rule: Rule) -> u64 {
        let fee = self.t.entry(i).buy_in.ledger.fee.amount;
        self.paid(i, LineKind::RefundFee, rule, fee);
        fee
    }

    /// The buy-in's prize-pool part back, its bounty part excluded. Returns it.
    pub fn refund_buy_in(&mut self, i: usize, rule: Rule) -> u64 {
        let part = self.t.entry(i).buy_in.pool_part();
        self.paid(i, LineKind::RefundBuyIn, rule, part);
        part
    }

    /// Everything the entry paid, line by line: fees, buy-in, rebuys, add-ons, bounty parts.
    pub fn refund_everything(&mut self, i: usize, rule: Rule) {
        let e = self.t.entry(i);
        let rebuys = e.rebuys.iter().map(|p| p.pool_part()).sum();
        let add_ons = e.add_ons.iter().map(|p| p.pool_part()).sum();
        let bounty = e.purchases().map(|p| p.bounty).sum();
        self.refund_fees(i, rule);
        self.refund_buy_in(i, rule);
        self.paid(i, LineKind::RefundRebuys, rule, rebuys);
        self.paid(i, LineKind::RefundAddOns, rule, add_ons);
        self.paid(i, LineKind::RefundBounty, rule, bounty);
    }

    /// A flight's Day 2 under a rule that gives back what was paid: its entries paid with the
    /// stacks they brought from the Day 1s, so the Day 1s' pools go to every entry that brought
    /// one (out since, or still in) in proportion to those chips, largest remainder
    /// (`docs/abort.md`, "A flight's Day 2"). Returns the pools' sum (zero for any other
    /// tournament).
    pub fn flight_shares(&mut self, rule: Rule) -> u64 {
        let t = self.t;
        if t.transferred_in == 0 {
            return 0;
        }
        let carried: Vec<u64> = t.all.iter().map(|&i| t.entry(i).carried_chips).collect();
        let shares = split::by_weight(t.transferred_in, &carried);
        let of = t.carried_chips;
        for ((share, &i), weight) in shares.into_iter().zip(&t.all).zip(carried) {
            let inputs = Inputs { pot: t.transferred_in, weight: Some(weight), of: Some(of), place: None, extra: share.extra };
            self.line(i, LineKind::FlightShare, rule, share.amount, inputs);
        }
        t.transferred_in
    }

    /// The prize for place N to every entry still in. Returns what they come to, N × prize.
    ///
    /// # Errors
    /// `amount_too_large` when N × prize does not fit.
    pub fn place_prizes(&mut self, rule: Rule) -> Result<u64, CancelError> {
        let (n, prize) = (self.t.n(), self.t.place_prize());
        let owed = u64::from(n).checked_mul(prize).ok_or(CancelError::TooLarge)?;
        let t = self.t;
        for &i in &t.remaining {
            self.line(i, LineKind::PlacePrize, rule, prize, Inputs { pot: prize, place: Some(n), ..Inputs::default() });
        }
        Ok(owed)
    }

    fn shares(&mut self, kind: LineKind, rule: Rule, pot: u64, weights: Option<&[u64]>, shares: Vec<Share>) {
        let n = self.t.remaining.len() as u64;
        let of = weights.map_or(n, |w| w.iter().sum());
        let t = self.t;
        for (k, (share, &i)) in shares.into_iter().zip(&t.remaining).enumerate() {
            let weight = weights.map_or(1, |w| w[k]);
            self.line(i, kind, rule, share.amount, Inputs { pot, weight: Some(weight), of: Some(of), place: None, extra: share.extra });
        }
    }

    /// `pot` shared equally by the entries still in.
    pub fn equal(&mut self, rule: Rule, pot: u64) {
        let shares = split::equal(pot, self.t.remaining.len());
        self.shares(LineKind::EqualShare, rule, pot, None, shares);
    }

    /// `pot` shared by the entries still in, in proportion to their chips.
    pub fn by_chips(&mut self, rule: Rule, pot: u64) {
        let chips: Vec<u64> = self.t.remaining.iter().map(|&i| self.t.entry(i).chips().unwrap_or(0)).collect();
        let shares = split::by_weight(pot, &chips);
        // Nobody holds a chip: `by_weight` shared equally, and the lines say so.
        let weights = if chips.iter().all(|&c| c == 0) { None } else { Some(chips.as_slice()) };
        let kind = if weights.is_some() { LineKind::ChipShare } else { LineKind::EqualShare };
        self.shares(kind, rule, pot, weights, shares);
    }

    /// Half of `pot` (rounded down) equally, the other half (the odd minor unit with it) by
    /// chips: 002 §2.8 T-12.2 (B), 004 §4.37.2, TDA roll-forward before the money.
    pub fn fifty_fifty(&mut self, rule: Rule, pot: u64) {
        let half = pot / 2;
        self.equal(rule, half);
        self.by_chips(rule, pot - half);
    }

    /// The prizes for places 1..=N (N the entries still in, at most the places paid) to the
    /// entries still in by their ICM equity on their chips, in cents that sum to the prizes
    /// exactly (`floor_rules::icm::amounts`). Entries still in without a chip (a rebuy being
    /// decided) finish below every stack under Malmuth-Harville: they share the prizes of the
    /// last places equally, the stacks take the places above. Returns the prizes' sum.
    ///
    /// # Errors
    /// `icm_*` when ICM refuses the stacks; `amount_too_large`.
    pub fn by_icm(&mut self, rule: Rule) -> Result<u64, CancelError> {
        let t = self.t;
        let places = t.n().min(t.paid_places()) as usize;
        let prizes: Vec<u64> = (1..=places as u32).map(|place| crate::snapshot::prize(&t.table, place)).collect();
        let owed = prizes.iter().try_fold(0u64, |sum, p| sum.checked_add(*p)).ok_or(CancelError::TooLarge)?;
        if owed == 0 {
            return Ok(0);
        }
        let (stacks, empty): (Vec<usize>, Vec<usize>) = t.remaining.iter().partition(|&&i| t.entry(i).chips().unwrap_or(0) > 0);
        let chips: Vec<u64> = stacks.iter().map(|&i| t.entry(i).chips().unwrap_or(0)).collect();
        let (above, below) = prizes.split_at(stacks.len().min(places));
        if !stacks.is_empty() && !above.is_empty() {
            let amounts = floor_rules::icm::amounts(&chips, above).map_err(|e| CancelError::Icm(e.code(), e.to_string()))?;
            let pot = above.iter().sum();
            let of = chips.iter().sum();
            for ((&i, amount), weight) in stacks.iter().zip(amounts).zip(&chips) {
                self.line(
                    i,
                    LineKind::IcmEquity,
                    rule,
                    amount,
                    Inputs { pot, weight: Some(*weight), of: Some(of), place: None, extra: false },
                );
            }
        }
        let pot: u64 = below.iter().sum();
        if pot > 0 && !empty.is_empty() {
            let of = empty.len() as u64;
            for (share, &i) in split::equal(pot, empty.len()).into_iter().zip(&empty) {
                let inputs = Inputs { pot, weight: Some(1), of: Some(of), place: None, extra: share.extra };
                self.line(i, LineKind::EqualShare, rule, share.amount, inputs);
            }
        }
        Ok(owed)
    }

    /// Bounty money on a roll-forward (Floor's rule, `docs/abort.md`): each entry still in
    /// gets the bounty on its own head; what nobody holds (unclaimed bounties, undrawn mystery
    /// envelopes, a target bounty not won) is shared equally. Returns the bounty money paid:
    /// the whole bounty balance.
    pub fn bounties(&mut self) -> u64 {
        let rule = Rule::FloorBounties;
        let t = self.t;
        for &i in &t.remaining {
            let head = self.t.entry(i).bounty.head;
            self.line(i, LineKind::OwnBounty, rule, head, Inputs { pot: head, ..Inputs::default() });
        }
        let nobody_holds = self.t.bounty_balance() - self.t.heads;
        let shares = split::equal(nobody_holds, self.t.remaining.len());
        self.shares(LineKind::BountyShare, rule, nobody_holds, None, shares);
        self.t.bounty_balance()
    }

    /// Sum of the prize-pool lines so far.
    pub fn prize_pool_out(&self) -> u64 {
        self.pots[pot_index(Pot::PrizePool)]
    }

    fn finish(mut self, profile: RuleProfile, plan: Plan) -> Result<Cancellation, CancelError> {
        let t = self.t;
        let unbalanced = |what: String| Err(CancelError::Unbalanced(what));
        // 1. The place prize floor (after a deal, the agreed amounts replaced the table's prizes).
        let mut top_ups = 0u64;
        if t.in_the_money() && plan.case != Case::AfterDeal {
            let (n, prize) = (t.n(), t.place_prize());
            for &i in &t.remaining {
                let short = prize.saturating_sub(self.non_bounty[i]);
                top_ups = top_ups.checked_add(short).ok_or(CancelError::TooLarge)?;
                let inputs = Inputs { pot: prize, place: Some(n), ..Inputs::default() };
                self.line(i, LineKind::PlacePrizeTopUp, Rule::FloorPlacePrize, short, inputs);
            }
        }
        // 2. Exactness.
        let [fees_out, prize_out, bounty_out] = self.pots;
        if self.overflow {
            return Err(CancelError::TooLarge);
        }
        if Some(prize_out) != plan.prize_money.checked_add(top_ups) {
            return unbalanced(format!("prize-pool lines {prize_out}, the rule's figure {} + top-ups {top_ups}", plan.prize_money));
        }
        if bounty_out != plan.bounty_money || bounty_out < t.bounty_balance() {
            return unbalanced(format!("bounty lines {bounty_out}, the rule's figure {}", plan.bounty_money));
        }
        if prize_out < t.open_prize_money(plan.pool) || plan.pool < t.collected() {
            return unbalanced(format!("prize-pool lines {prize_out} leave part of the pool {} undistributed", plan.pool));
        }
        if fees_out > t.fees {
            return unbalanced(format!("fee refunds {fees_out} exceed the fees paid {}", t.fees));
        }
        // 3. The operator's money, from the figures: what leaves the prize and bounty pools
        // beyond what they hold.
        let overlay = plan.pool - t.collected();
        let out = u128::from(t.prizes_paid) + u128::from(prize_out) + u128::from(t.bounties_paid) + u128::from(bounty_out);
        let held = u128::from(plan.pool) + u128::from(t.bounty_paid_in);
        let operator_cover = out.checked_sub(held).and_then(|c| u64::try_from(c).ok()).ok_or(CancelError::TooLarge)?;
        let statements = self.statements();
        let mut total = 0u64;
        for s in &statements {
            total = total.checked_add(s.total).ok_or(CancelError::TooLarge)?;
        }
        let books = Books {
            paid_in: t.paid_in,
            fees: t.fees,
            contributions: t.contributions,
            bounty_paid_in: t.bounty_paid_in,
            transferred_in: t.transferred_in,
            overlay,
            operator_cover,
            fees_kept: t.fees - fees_out,
            prizes_already_paid: t.prizes_paid,
            bounties_already_paid: t.bounties_paid,
            refunds: self.refunds,
            distributed: total.saturating_sub(self.refunds),
            statements: total,
        };
        if !books.balanced() {
            return unbalanced(format!("{books:?}"));
        }
        Ok(Cancellation {
            profile,
            method: plan.method,
            case: plan.case,
            decided_under: plan.decided_under,
            currency: t.snapshot.currency,
            remaining: t.n(),
            paid_places: t.paid_places(),
            chips_in_play: t.chips_in_play,
            pool: plan.pool,
            books,
            statements,
        })
    }

    /// One statement per player with a line, by player name; each player's lines by entry.
    fn statements(&mut self) -> Vec<Statement> {
        let t = self.t;
        // By player, then entry number (`all` is in entry-number order, `k` its position). The
        // names' first 16 bytes, as a number, decide most comparisons without leaving the
        // array: 250,000 names compared through their heap pointers cost most of a
        // cancellation's time.
        let mut order: Vec<(u128, &PlayerId, usize, usize)> = t
            .all
            .iter()
            .enumerate()
            .filter(|&(_, &i)| !self.lines[i].is_empty())
            .map(|(k, &i)| (name_prefix(&t.entry(i).player), &t.entry(i).player, k, i))
            .collect();
        order.sort_unstable();
        let mut statements: Vec<Statement> = Vec::with_capacity(order.len());
        for (_, _, _, i) in order {
            let lines = std::mem::take(&mut self.lines[i]);
            let sum: u64 = lines.iter().map(|l| l.amount).sum();
            match statements.last_mut() {
                Some(s) if s.player == t.entry(i).player => {
                    s.total += sum;
                    s.lines.extend(lines);
                }
                _ => statements.push(Statement { player: t.entry(i).player.clone(), total: sum, lines }),
            }
        }
        statements
    }
}

/// A name's first 16 bytes as a big-endian number, zero-padded: ordered as the names are
/// (player names hold no NUL byte, so a name sorts before any longer name it begins).
pub(crate) fn name_prefix(player: &PlayerId) -> u128 {
    let mut bytes = [0u8; 16];
    let name = player.as_str().as_bytes();
    let n = name.len().min(16);
    bytes[..n].copy_from_slice(&name[..n]);
    u128::from_be_bytes(bytes)
}
