//! The lobby document of one tournament and how tournament events change it.
//!
//! Everything in it is a counter or a copy of the definition, so a document is folded from its
//! own previous value and the next commit alone: no player lists, no other state.
//!
//! Each service's part of the document is a section of its own, folded from that service's
//! events, pure like the rest (no I/O: the projection stores what these fold):
//!
//! - [`clock`]: level, blinds, next level and break, folded from clock events.
//! - [`payouts`]: the payout table (projected, then locked), cashes, a deal.
//! - [`rebuys`]: terms, period, rebuys and add-ons bought, open offers.
//! - [`bounties`]: terms, bounty pool, paid so far, remaining bounties, mystery envelopes left,
//!   the target once public.
//! - [`abort`]: the play section: suspended (the reason players are shown, since when) or
//!   cancelled in play (why, the method, the statements' total).
//! - [`bubble`]: the hand-for-hand section: off or on, hand k, the tables waited for and since
//!   when.
//! - [`satellite`]: a satellite's target, seat value, seats guaranteed so far, leftover and
//!   prize kind, and the seats its log says were won (issue 36); a target counts its entries
//!   paid by a ticket (`entered_by_ticket`).
//! - [`shootout`]: a shootout's terms, its bracket as planned, the rounds played and the round
//!   in play (issue 37; each table's progress is the seat map's).
//! - [`cut`]: double or nothing's cut: the fraction, the players paid and the prize each,
//!   stated before registration, and how many shared it at the stop (issue 37).
//! - [`lottery`]: a lottery sit & go's published prize table, the commitment to its draw, and
//!   the draw (multiplier, pool, prizes, the seed revealed and checked) (issue 37).

pub mod abort;
pub mod bounties;
pub mod bubble;
pub mod clock;
pub mod cut;
pub mod lottery;
pub mod payouts;
pub mod rebuys;
pub mod satellite;
pub mod shootout;

use chrono::{DateTime, Utc};
use floor_events::clock::ClockEvent;
use floor_events::registration::{CancellationReason, TournamentEvent};
use floor_events::tournament::{EntryLedger, EntryModel, TournamentDefinition};
use floor_events::{Money, RuleProfile, TournamentId};
use serde::{Deserialize, Serialize};

/// Where a tournament stands, as far as the lobby knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LobbyState {
    /// Announced; registration opens at `registration_opens` and closes at the deadline.
    Registering,
    /// Cards are in the air: a sit & go filled its seats, or a scheduled start came.
    Running,
    /// Cancelled: before the start (every entry refunded), or in play (every player concerned
    /// has a statement; `play.cancelled`).
    Cancelled,
    /// The last opponent of the winner is out.
    Finished,
}

/// The prize pool as players see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrizePool {
    /// Prize-pool contributions of the entries so far.
    pub collected: Money,
    /// The guarantee, if any.
    pub guarantee: Option<Money>,
    /// What the operator adds to reach the guarantee.
    pub overlay: Money,
    /// `collected + overlay`: what will be paid out.
    pub total: Money,
}

/// The tournament's books so far, in minor units: `paid_in - refunded = fees + prize_pool`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Books {
    /// Everything players paid.
    pub paid_in: Money,
    /// Everything given back (unregistrations).
    pub refunded: Money,
    /// The operator's fees kept.
    pub fees: Money,
    /// Prize-pool contributions kept.
    pub prize_pool: Money,
}

pub use clock::LobbyClock;

/// One tournament in the lobby.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyDocument {
    /// Id.
    pub tournament_id: TournamentId,
    /// Name.
    pub name: String,
    /// Where it stands.
    pub state: LobbyState,
    /// Scheduled start; absent for a sit & go.
    pub start: Option<DateTime<Utc>>,
    /// Sit & go: starts when full.
    pub sit_and_go: bool,
    /// When registration opens.
    pub registration_opens: DateTime<Utc>,
    /// When registration (late registration included) closes; absent for a sit & go.
    pub registration_deadline: Option<DateTime<Utc>>,
    /// Seats per table.
    pub table_size: u8,
    /// Chips per entry.
    pub starting_stack: u64,
    /// Buy-in: what each entry puts in the prize pool (bounty part included). With `fee`, what
    /// a player pays for an entry, however the definition sets the fee.
    pub buy_in: Money,
    /// Fee per entry: what the operator keeps.
    pub fee: Money,
    /// Entry model.
    pub entry_model: EntryModel,
    /// Rule profile.
    pub profile: RuleProfile,
    /// Most entries.
    pub capacity: u32,
    /// Fewest entries to start.
    pub min_players: u32,
    /// Entries taken (re-entries included, withdrawn ones not).
    pub entrants: u32,
    /// Different players with an entry.
    pub unique_players: u32,
    /// Entries still in (not eliminated).
    pub live_entries: u32,
    /// Re-entries among `entrants`.
    pub re_entries: u32,
    /// Prize pool, guarantee and overlay.
    pub prize_pool: PrizePool,
    /// Money in and out.
    pub books: Books,
    /// Why it was cancelled, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation: Option<CancellationReason>,
    /// The blind clock, once it has a structure.
    #[serde(default)]
    pub clock: Option<LobbyClock>,
    /// The director's own payout table (shares of the pool by place), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payout_table: Option<floor_events::tournament::FixedPayouts>,
    /// Rebuys and the add-on, for a tournament that has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuys: Option<rebuys::LobbyRebuys>,
    /// Payout table (projected until locked), places paid, cashes.
    #[serde(default)]
    pub payouts: Option<payouts::LobbyPayouts>,
    /// Bounties, for a tournament that has them; `books.prize_pool` then leaves their parts out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounties: Option<bounties::LobbyBounties>,
    /// Hand-for-hand: off or on, hand k, the tables waited for and since when.
    #[serde(default)]
    pub hand_for_hand: bubble::LobbyHandForHand,
    /// Play suspended (and why), or cancelled in play (and its statements' total).
    #[serde(default, skip_serializing_if = "abort::LobbyPlay::is_quiet")]
    pub play: abort::LobbyPlay,
    /// A satellite: its target, seats and the seats won (issue 36).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub satellite: Option<satellite::LobbySatellite>,
    /// Entries paid by a satellite's ticket (their `entry_registered` names it), withdrawn ones
    /// included.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub entered_by_ticket: u32,
    /// A shootout: its terms, bracket and rounds (issue 37).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shootout: Option<shootout::LobbyShootout>,
    /// Double or nothing: the cut, the players paid and the prize each (issue 37).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<cut::LobbyCut>,
    /// A lottery sit & go: the published table, the commitment, the draw (issue 37).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lottery: Option<lottery::LobbyLottery>,
    /// Stream sequence of the last commit folded in: older commits are ignored.
    pub last_sequence: u64,
}

impl LobbyDocument {
    /// The document of a tournament just created.
    pub fn created(tournament_id: TournamentId, def: &TournamentDefinition, at: DateTime<Utc>, sequence: u64) -> Self {
        let currency = def.buy_in.currency;
        let zero = Money::zero(currency);
        let ledger = def.entry_ledger();
        let mut doc = Self {
            tournament_id,
            name: def.name.clone(),
            state: LobbyState::Registering,
            start: def.scheduled_start(),
            sit_and_go: def.scheduled_start().is_none(),
            registration_opens: def.registration_opens.unwrap_or(at),
            registration_deadline: def.registration_deadline(),
            table_size: def.table_size,
            starting_stack: def.starting_stack,
            // What each entry puts in the prize pool and what the operator keeps: together,
            // what a player pays, whether the fee is on top or a share of the buy-in.
            buy_in: ledger.prize_pool,
            fee: ledger.fee,
            entry_model: def.entry_model,
            profile: def.profile,
            capacity: def.capacity,
            min_players: def.min_players,
            entrants: 0,
            unique_players: 0,
            live_entries: 0,
            re_entries: 0,
            prize_pool: PrizePool { collected: zero, guarantee: def.guarantee, overlay: zero, total: zero },
            books: Books { paid_in: zero, refunded: zero, fees: zero, prize_pool: zero },
            cancellation: None,
            clock: None,
            payout_table: def.payout_table.clone(),
            rebuys: (def.rebuy.is_some() || def.add_on.is_some()).then(|| rebuys::LobbyRebuys::new(def.rebuy, def.add_on)),
            payouts: None,
            bounties: def.bounty.as_ref().map(|terms| bounties::LobbyBounties::new(terms, currency)),
            hand_for_hand: Default::default(),
            play: Default::default(),
            satellite: def.satellite.as_ref().map(|terms| satellite::LobbySatellite::new(terms, None)),
            entered_by_ticket: 0,
            shootout: def.shootout.as_ref().map(|terms| shootout::LobbyShootout::new(terms, def.capacity, def.table_size)),
            cut: cut::LobbyCut::new(def),
            lottery: lottery::LobbyLottery::new(def),
            last_sequence: sequence,
        };
        doc.settle_prize_pool();
        doc
    }

    /// Folds one event of the commit at `sequence`. Events of other tournaments' shapes that do
    /// not concern the lobby leave it unchanged.
    pub fn evolve(mut self, event: &TournamentEvent) -> Self {
        use floor_events::registration::EntryKind;
        let add = |a: Money, b: Money| a.checked_add(b).unwrap_or(a);
        match event {
            TournamentEvent::TournamentCreated(_) => {}
            TournamentEvent::EntryRegistered(e) => {
                self.entrants += 1;
                self.live_entries += 1;
                self.unique_players += u32::from(e.new_player);
                self.re_entries += u32::from(e.kind == EntryKind::ReEntry);
                self.entered_by_ticket += u32::from(e.ticket.is_some());
                self.books.paid_in = add(self.books.paid_in, e.ledger.paid_in);
                self.books.fees = add(self.books.fees, e.ledger.fee);
                self.books.prize_pool = add(self.books.prize_pool, self.without_bounty(e.ledger.prize_pool, true));
            }
            // A flight's Day 2 entry carried from a Day 1 (issue 36): an entrant, paid nothing
            // here (its Day 1's pool comes over whole, shown by the books).
            TournamentEvent::EntryCarried(e) if e.outcome == floor_events::flights::CarryOutcome::Registered => {
                self.entrants += 1;
                self.live_entries += 1;
                self.unique_players += u32::from(e.new_player);
            }
            TournamentEvent::EntryUnregistered(e) => {
                self.entrants = self.entrants.saturating_sub(1);
                self.live_entries = self.live_entries.saturating_sub(1);
                self.unique_players = self.unique_players.saturating_sub(u32::from(e.player_left));
                self.refund(&e.refund);
            }
            TournamentEvent::TournamentStarted(_) => self.state = LobbyState::Running,
            TournamentEvent::TournamentCancelled(e) => {
                self.state = LobbyState::Cancelled;
                self.cancellation = Some(e.reason.clone());
                self.live_entries = 0;
                e.refunds.iter().for_each(|r| self.refund(&r.refund));
            }
            TournamentEvent::EntryEliminated(_) => self.live_entries = self.live_entries.saturating_sub(1),
            TournamentEvent::TournamentFinished(_) => {
                self.state = LobbyState::Finished;
                self.cut = self.cut.take().map(|c| c.evolve(event));
            }
            // Shown from the clock section's `late_registration_closed` (the clock's end of the
            // level, which registration's close follows) and the deadline.
            // Suspensions are shown from the abort log (registration's own follow it).
            TournamentEvent::PlayerRefused(_)
            | TournamentEvent::PlayersKeptApart(_)
            | TournamentEvent::RegistrationClosed(_)
            | TournamentEvent::PlaySuspended(_)
            | TournamentEvent::PlayResumed(_)
            | TournamentEvent::EntryCarried(_) => {}
        }
        self.settle_prize_pool();
        self
    }

    /// Gives one entry's money back.
    fn refund(&mut self, refund: &EntryLedger) {
        let add = |a: Money, b: Money| a.checked_add(b).unwrap_or(a);
        let sub = |a: Money, b: Money| a.checked_sub(b).unwrap_or(a);
        self.books.refunded = add(self.books.refunded, refund.paid_in);
        self.books.fees = sub(self.books.fees, refund.fee);
        let part = self.bounties.as_ref().map_or(Money::zero(refund.prize_pool.currency), |b| b.part(refund.prize_pool));
        if let Some(b) = self.bounties.as_mut() {
            b.refunded(part);
        }
        self.books.prize_pool = sub(self.books.prize_pool, sub(refund.prize_pool, part));
    }

    /// A purchase's prize-pool line less its bounty part (entries and rebuys carry one, add-ons
    /// none), the part counted into the bounty pool.
    fn without_bounty(&mut self, prize_pool: Money, carries_bounty: bool) -> Money {
        let Some(bounties) = self.bounties.as_mut().filter(|_| carries_bounty) else { return prize_pool };
        let part = bounties.part(prize_pool);
        bounties.paid_in(part);
        prize_pool.checked_sub(part).unwrap_or(prize_pool)
    }

    /// Folds one bounties event.
    pub fn evolve_bounties(mut self, event: &floor_events::bounties::BountyEvent) -> Self {
        self.bounties = self.bounties.take().map(|b| b.evolve(event));
        self
    }

    /// Folds one rebuys event: the section, and the money of every rebuy and add-on.
    pub fn evolve_rebuys(mut self, event: &floor_events::rebuys::RebuyEvent) -> Self {
        use floor_events::rebuys::RebuyEvent;
        if let RebuyEvent::RebuyTaken { ledger, .. } | RebuyEvent::AddOnTaken { ledger, .. } = event {
            let add = |a: Money, b: Money| a.checked_add(b).unwrap_or(a);
            self.books.paid_in = add(self.books.paid_in, ledger.paid_in);
            self.books.fees = add(self.books.fees, ledger.fee);
            let prize_pool = self.without_bounty(ledger.prize_pool, matches!(event, RebuyEvent::RebuyTaken { .. }));
            self.books.prize_pool = add(self.books.prize_pool, prize_pool);
            self.settle_prize_pool();
        }
        self.rebuys = self.rebuys.take().map(|r| r.evolve(event));
        self
    }

    /// Folds one payouts event; a satellite's seats are then the locked pool's.
    pub fn evolve_payouts(mut self, event: &floor_events::payouts::PayoutEvent) -> Self {
        let mut current = self.projected_payouts().or_else(|| self.payouts.take());
        // A lottery game has no table before its draw: payouts locks the drawn one (issue 37).
        if current.is_none() && self.lottery.is_some() {
            if let floor_events::payouts::PayoutEvent::PayoutTableLocked { pool, .. } = event {
                current = Some(payouts::LobbyPayouts {
                    locked: false,
                    entries: 0,
                    places_paid: 0,
                    pool: *pool,
                    bands: vec![],
                    cashes: 0,
                    latest_cashes: vec![],
                    final_table: vec![],
                    paid: false,
                    deal: None,
                });
            }
        }
        self.payouts = current.map(|p| p.evolve(event));
        if let floor_events::payouts::PayoutEvent::PayoutTableLocked { pool, .. } = event {
            self.satellite = self.satellite.take().map(|s| s.with_pool(*pool, true));
        }
        self
    }

    /// Folds one event of the satellite's own log (issue 36).
    pub fn evolve_satellite(mut self, event: &floor_events::satellites::SatelliteEvent) -> Self {
        self.satellite = self.satellite.take().map(|s| s.evolve(event));
        self
    }

    /// Folds one event of a shootout's own log (issue 37).
    pub fn evolve_shootout(mut self, event: &floor_events::shootouts::ShootoutEvent) -> Self {
        let size = self.table_size;
        self.shootout = self.shootout.take().map(|s| s.evolve(event, size));
        self
    }

    /// Folds one event of a lottery game's own log (issue 37).
    pub fn evolve_lottery(mut self, event: &floor_events::lottery::LotteryEvent) -> Self {
        self.lottery = self.lottery.take().map(|l| l.evolve(event));
        self
    }

    /// Names a satellite's target, as the lobby knows it.
    pub fn with_target_name(mut self, name: Option<String>) -> Self {
        if let Some(s) = self.satellite.as_mut() {
            s.target_name = name;
        }
        self
    }

    /// The table the field so far would lock; `None` once it is locked or when the one shown
    /// is for this field already.
    pub fn projected_payouts(&self) -> Option<payouts::LobbyPayouts> {
        if self.payouts.as_ref().is_some_and(|p| p.locked || p.entries == self.entrants) || self.state == LobbyState::Cancelled {
            return None;
        }
        // A lottery game's pool is drawn when its seats fill: no table to project (issue 37).
        if self.lottery.is_some() {
            return None;
        }
        let stakes = floor_rules::field::Stakes {
            paid_in: self.books.paid_in.amount.saturating_sub(self.books.refunded.amount),
            bounty_pool: self.bounties.as_ref().map_or(0, |b| b.pool.amount),
        };
        let field = floor_rules::field::Field {
            entries: self.entrants,
            contributions: self.books.prize_pool,
            guarantee: self.prize_pool.guarantee,
            profile: self.profile,
            fixed: self.payout_table.clone(),
            ordering: None,
            // A satellite's table is its seats, as payouts locks it (issue 36); double or
            // nothing's is the cut's equal prize (issue 37).
            seat_value: self.satellite.as_ref().map(|s| s.seat_value.amount).or(self.cut.as_ref().map(|c| c.prize.amount)),
        };
        payouts::LobbyPayouts::projected(&field, stakes)
    }

    /// Folds one bubble event.
    pub fn evolve_bubble(mut self, event: &floor_events::bubble::BubbleEvent) -> Self {
        self.hand_for_hand = std::mem::take(&mut self.hand_for_hand).evolve(event);
        self
    }

    /// Folds one abort event: a suspension, a resume, a cancellation in play (the tournament
    /// is then cancelled, as one cancelled before its start is).
    pub fn evolve_abort(mut self, event: &floor_events::abort::AbortEvent) -> Self {
        self.play = std::mem::take(&mut self.play).evolve(event);
        if self.play.cancelled.is_some() {
            self.state = LobbyState::Cancelled;
        }
        self
    }

    /// Folds one clock event.
    pub fn evolve_clock(mut self, event: &ClockEvent) -> Self {
        if let ClockEvent::StructureSet { structure } = event {
            self.clock = Some(LobbyClock::new(structure.clone()));
        } else if let Some(clock) = self.clock.take() {
            self.clock = Some(clock.evolve(event));
        }
        self
    }

    /// Derives collected, overlay and total from the books and the guarantee.
    fn settle_prize_pool(&mut self) {
        let collected = self.books.prize_pool;
        let overlay = self.prize_pool.guarantee.and_then(|g| g.checked_sub(collected)).unwrap_or(Money::zero(collected.currency));
        self.prize_pool.collected = collected;
        self.prize_pool.overlay = overlay;
        self.prize_pool.total = collected.checked_add(overlay).unwrap_or(collected);
        let total = self.prize_pool.total;
        self.satellite = self.satellite.take().map(|s| s.with_pool(total, false));
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::registration::{EntryKind, EntryRegistered, EntryUnregistered};
    use floor_events::tournament::{EntryLedger, Start};
    use floor_events::{Currency, EntryNo, PlayerId};
    use proptest::prelude::*;

    fn eur(c: u64) -> Money {
        Money::new(c, Currency::EUR)
    }

    fn definition() -> TournamentDefinition {
        TournamentDefinition {
            name: "Lobby test".into(),
            start: Start::At("2026-12-06T18:00:00Z".parse().unwrap()),
            entry_model: EntryModel::ReEntry { max_entries: 3 },
            guarantee: Some(eur(50_000)),
            ..TournamentDefinition::example()
        }
    }

    fn ledger() -> EntryLedger {
        EntryLedger { paid_in: eur(1_100), fee: eur(100), prize_pool: eur(1_000) }
    }

    fn registered(entry: u32, new_player: bool, kind: EntryKind) -> TournamentEvent {
        TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(entry),
            player: PlayerId::parse("p").unwrap(),
            kind,
            new_player,
            ledger: ledger(),
            at: "2026-12-06T17:00:00Z".parse().unwrap(),
            ticket: None,
        })
    }

    /// The price shown is what a player pays: with the fee a share of the buy-in (€22.00 with a
    /// 10 % fee), "€19.80 + €2.20 fee", never "€22.00 + €2.20 fee" (issue 39: the lobby listed
    /// `daily-turbo-reentry.toml` at €24.20 while each entry paid €22.00).
    #[test]
    fn buy_in_and_fee_add_up_to_what_a_player_pays_whichever_way_the_fee_is_set() {
        use floor_events::tournament::Fee;
        let at = "2026-12-01T00:00:00Z".parse().unwrap();
        for fee in [Fee::ShareOfBuyIn { basis_points: 1_000 }, Fee::OnTop(eur(200))] {
            let def = TournamentDefinition { buy_in: eur(2_200), fee, ..definition() };
            let doc = LobbyDocument::created(TournamentId::new(), &def, at, 1);
            let paid = def.entry_ledger();
            assert_eq!(doc.buy_in.amount + doc.fee.amount, paid.paid_in.amount, "{fee:?}");
            assert_eq!((doc.buy_in, doc.fee), (paid.prize_pool, paid.fee), "{fee:?}");
        }
    }

    #[test]
    fn entries_fill_the_pool_and_shrink_the_overlay() {
        let doc = LobbyDocument::created(TournamentId::new(), &definition(), "2026-12-01T00:00:00Z".parse().unwrap(), 1);
        assert_eq!(doc.prize_pool.overlay, eur(50_000));
        let doc = doc.evolve(&registered(1, true, EntryKind::Registration)).evolve(&registered(2, false, EntryKind::ReEntry));
        assert_eq!((doc.entrants, doc.unique_players, doc.re_entries), (2, 1, 1));
        assert_eq!(doc.prize_pool.collected, eur(2_000));
        assert_eq!(doc.prize_pool.overlay, eur(48_000));
        assert_eq!(doc.prize_pool.total, eur(50_000));
    }

    proptest! {
        /// Books balance after any mix of registrations and withdrawals:
        /// paid in - refunded = fees + prize pool, to the cent.
        #[test]
        fn books_balance_to_the_cent(ops in prop::collection::vec(any::<bool>(), 0..200)) {
            let mut doc = LobbyDocument::created(TournamentId::new(), &definition(), "2026-12-01T00:00:00Z".parse().unwrap(), 1);
            let mut live = 0u32;
            for (i, register) in ops.into_iter().enumerate() {
                if register || live == 0 {
                    doc = doc.evolve(&registered(i as u32 + 1, true, EntryKind::Registration));
                    live += 1;
                } else {
                    doc = doc.evolve(&TournamentEvent::EntryUnregistered(EntryUnregistered {
                        entry: EntryNo(1), player: PlayerId::parse("p").unwrap(), refund: ledger(),
                        by_operator: false, player_left: true, at: "2026-12-06T17:00:00Z".parse().unwrap(),
                    }));
                    live -= 1;
                }
                let b = doc.books;
                prop_assert_eq!(b.paid_in.amount - b.refunded.amount, b.fees.amount + b.prize_pool.amount);
                prop_assert_eq!(doc.entrants, live);
                prop_assert_eq!(doc.prize_pool.total.amount, doc.prize_pool.collected.amount.max(50_000));
            }
        }
    }
}
