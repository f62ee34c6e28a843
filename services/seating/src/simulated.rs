//! A table server that follows the protocol, with seeded random hands: for `floor sim` and for
//! tests of the seating aggregate. Pure: instructions in, reports out.
//!
//! Between hands it applies the instructions that have arrived, in sequence order, confirming
//! each seat change and chips (`instruction_applied`), then deals a hand if two or more players
//! sit: an all-in between two players (one in five hands three), the biggest stack covering, sometimes a split pot, the
//! losers losing all or half of what they had. Stacks that reach zero are reported as busts with
//! the pots that took their chips. A player at zero keeps the seat, dealt out, until Floor says
//! `remove_player` (eliminated) or `add_chips` (a rebuy).
//!
//! It obeys the hold of hand-for-hand (docs/table-servers.md, item 8): after `hold_for_deal` it
//! finishes the hand in progress, then deals one hand per `deal_hand` (each is a credit) until
//! `resume`; `pause` stops it dealing until `resume` too.

use floor_events::table::{BustReport, Instruction, PotWon, Report, SeatNo, SeatStack, TableInstruction, TableReport};
use floor_events::{EntryNo, PlayerId, TournamentId};
use rand::seq::IndexedRandom;
use rand::Rng;
use std::collections::{BTreeMap, VecDeque};

/// One simulated table.
#[derive(Debug, Default, Clone)]
pub struct SimTable {
    /// Who sits where, with their chips.
    pub seats: BTreeMap<SeatNo, (EntryNo, PlayerId, u64)>,
    /// Instructions received, not applied yet.
    pub inbox: VecDeque<TableInstruction>,
    /// The last instruction applied.
    pub applied: u64,
    /// The last hand dealt.
    pub hand: u64,
    /// The hand in progress: who was dealt in.
    pub in_hand: Option<Vec<SeatStack>>,
    /// Told to close.
    pub closed: bool,
    /// Reports sent (numbers the report ids).
    pub reports: u64,
    /// Held for hand-for-hand (`hold_for_deal`, until `resume`).
    pub held: bool,
    /// The `hand` of each `deal_hand` not dealt yet, oldest first (the next deal answers it).
    pub released: VecDeque<u64>,
    /// Paused (`pause`, until `resume`).
    pub paused: bool,
}

/// What happened at a table in one step.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stepped {
    /// Players moved away (a `remove_player` for a move).
    pub moved: u64,
    /// Those of them with chips: between this and their `seat_player` at the new table they
    /// sit nowhere, and are still in.
    pub moved_out: Vec<EntryNo>,
    /// The table closed in this step.
    pub closed: bool,
    /// A hand was dealt (started or finished).
    pub dealt: bool,
}

impl SimTable {
    /// Queues an instruction; one already applied or queued (a redelivery) is ignored.
    pub fn receive(&mut self, instruction: TableInstruction) {
        let queued = self.inbox.iter().any(|i| i.sequence == instruction.sequence);
        if instruction.sequence > self.applied && !queued {
            let at = self.inbox.partition_point(|i| i.sequence < instruction.sequence);
            self.inbox.insert(at, instruction);
        }
    }

    fn report(&mut self, tournament_id: TournamentId, table: u32, report: Report, out: &mut Vec<TableReport>) {
        self.reports += 1;
        out.push(TableReport { tournament_id, table, report_id: format!("report:{tournament_id}.{table}.{}", self.reports), report });
    }

    /// Between hands: applies the first `arrived` queued instructions (those that follow
    /// without a gap), confirming each `seat_player`, `remove_player` and `add_chips`.
    pub fn apply(&mut self, tournament_id: TournamentId, table: u32, arrived: usize, out: &mut Vec<TableReport>) -> Stepped {
        let mut stepped = Stepped::default();
        for _ in 0..arrived {
            if self.inbox.front().is_none_or(|i| i.sequence != self.applied + 1) {
                break;
            }
            let instruction = self.inbox.pop_front().expect("checked above");
            self.applied = instruction.sequence;
            // Seat changes and chips are confirmed; nothing else takes a confirmation.
            let confirm = match instruction.instruction {
                Instruction::SeatPlayer { entry, player, seat, stack, .. } => {
                    self.seats.insert(seat, (entry, player, stack));
                    true
                }
                Instruction::RemovePlayer { entry, reason } => {
                    let before = self.seats.len();
                    // A player out in the hand the move waited for leaves with no chips: out,
                    // not on the way to another table.
                    let out = self.seats.values().any(|(e, _, chips)| *e == entry && *chips == 0);
                    self.seats.retain(|_, (e, ..)| *e != entry);
                    // A second removal of one player (a new destination, or the bust that
                    // replaces the move) moves nobody.
                    let removed = self.seats.len() < before;
                    if removed && matches!(reason, floor_events::table::Removal::Moved { .. }) {
                        stepped.moved += 1;
                        if !out {
                            stepped.moved_out.push(entry);
                        }
                    }
                    true
                }
                Instruction::AddChips { entry, chips } => {
                    if let Some(seat) = self.seats.values_mut().find(|(e, ..)| *e == entry) {
                        seat.2 += chips;
                    }
                    true
                }
                Instruction::CloseTable => {
                    self.closed = true;
                    stepped.closed = true;
                    false
                }
                Instruction::HoldForDeal => {
                    self.held = true;
                    false
                }
                Instruction::DealHand { hand } => {
                    self.released.push_back(hand);
                    false
                }
                Instruction::Pause { .. } => {
                    self.paused = true;
                    false
                }
                // Ends hand-for-hand as well as a pause: deal freely again.
                Instruction::Resume => {
                    self.held = false;
                    self.released.clear();
                    self.paused = false;
                    false
                }
                _ => false,
            };
            if confirm {
                self.report(tournament_id, table, Report::InstructionApplied { sequence: instruction.sequence }, out);
            }
        }
        stepped
    }

    /// Players with chips: the ones a hand is dealt to.
    pub fn dealable(&self) -> usize {
        self.seats.values().filter(|(.., chips)| *chips > 0).count()
    }

    /// Entries seated at zero chips (waiting for Floor's word on a rebuy).
    pub fn at_zero(&self) -> impl Iterator<Item = (EntryNo, &PlayerId)> {
        self.seats.values().filter(|(.., chips)| *chips == 0).map(|(entry, player, _)| (*entry, player))
    }

    /// Whether the table may deal its next hand now: open, no hand in progress, not paused,
    /// not held (or held with a `deal_hand` not used yet), two or more players with chips.
    pub fn may_deal(&self) -> bool {
        !self.closed && self.in_hand.is_none() && !self.paused && (!self.held || !self.released.is_empty()) && self.dealable() >= 2
    }

    /// Starts a hand if it may ([`SimTable::may_deal`]); a held table uses one `deal_hand`.
    pub fn start_hand(&mut self, tournament_id: TournamentId, table: u32, out: &mut Vec<TableReport>) -> bool {
        if !self.may_deal() {
            return false;
        }
        // A deal on a `deal_hand` says which: a held table's deal without one would be taken
        // for a deal that crossed the hold.
        let deal_hand = if self.held { self.released.pop_front() } else { None };
        self.hand += 1;
        let stacks: Vec<SeatStack> = self
            .seats
            .iter()
            .filter(|(_, (.., chips))| *chips > 0)
            .map(|(&seat, (entry, _, chips))| SeatStack { seat, entry: *entry, chips: *chips })
            .collect();
        let button = stacks[(self.hand as usize - 1) % stacks.len()].seat;
        self.in_hand = Some(stacks.clone());
        self.report(tournament_id, table, Report::HandStarted { hand: self.hand, button, stacks, deal_hand }, out);
        true
    }

    /// Finishes the hand in progress with a random outcome.
    pub fn finish_hand(&mut self, tournament_id: TournamentId, table: u32, rng: &mut impl Rng, out: &mut Vec<TableReport>) -> bool {
        let Some(dealt) = self.in_hand.take() else { return false };
        let (stacks, busts) = play_hand(rng, &dealt);
        for s in &stacks {
            if let Some(seat) = self.seats.get_mut(&s.seat) {
                seat.2 = s.chips;
            }
        }
        for b in &busts {
            if let Some(seat) = self.seats.values_mut().find(|(e, ..)| *e == b.entry) {
                seat.2 = 0;
            }
        }
        self.report(tournament_id, table, Report::HandFinished { hand: self.hand, stacks, busts }, out);
        true
    }
}

/// An all-in between two or three players dealt in: the losers lose what the biggest winner
/// covers (all of it seven times in ten, half otherwise); a split pot one time in ten.
pub fn play_hand(rng: &mut impl Rng, dealt: &[SeatStack]) -> (Vec<SeatStack>, Vec<BustReport>) {
    let mut stacks: Vec<SeatStack> = dealt.to_vec();
    let players = if stacks.len() >= 3 && rng.random_bool(0.2) { 3 } else { 2 };
    let mut order: Vec<usize> = (0..stacks.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let involved: Vec<usize> = order.into_iter().take(players).collect();
    let split = players == 3 && rng.random_bool(0.1);
    let winners: Vec<usize> = if split {
        let mut by_size = involved.clone();
        by_size.sort_by_key(|&i| std::cmp::Reverse((stacks[i].chips, stacks[i].entry)));
        by_size[..2].to_vec()
    } else {
        vec![*involved.choose(rng).expect("players")]
    };
    let mut busts = Vec::new();
    for &loser in involved.iter().filter(|i| !winners.contains(i)) {
        let cover = winners.iter().map(|&w| stacks[w].chips).max().unwrap_or(0);
        let start = stacks[loser].chips;
        let lost = if rng.random_bool(0.7) { start.min(cover) } else { (start / 2).min(cover) };
        stacks[loser].chips -= lost;
        // A split pot: the winners share the loser's chips, the odd chip to the first.
        let share = lost / winners.len() as u64;
        for (k, &w) in winners.iter().enumerate() {
            stacks[w].chips += share + if k == 0 { lost % winners.len() as u64 } else { 0 };
        }
        if stacks[loser].chips == 0 {
            let pot = PotWon { winners: winners.iter().map(|&w| stacks[w].entry).collect(), chips: start };
            busts.push(BustReport { entry: stacks[loser].entry, stack_at_start: start, pots: vec![pot], best_high_hand: None });
        }
    }
    (stacks.into_iter().filter(|s| s.chips > 0).collect(), busts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn told(sequence: u64, instruction: Instruction) -> TableInstruction {
        TableInstruction { tournament_id: TournamentId(uuid::Uuid::from_u128(7)), table: 1, sequence, instruction }
    }

    fn seat(sequence: u64, entry: u32, seat: u8) -> TableInstruction {
        let player = PlayerId::parse(&format!("p{entry}")).expect("valid");
        told(sequence, Instruction::SeatPlayer { entry: EntryNo(entry), player, seat: SeatNo(seat), stack: 1_000, wait_for_button: false })
    }

    /// Given a table of two dealing its hand 1 when `hold_for_deal` arrives,
    /// when it is told `deal_hand` twice and then `resume`,
    /// then it finishes hand 1, deals nothing more until the first `deal_hand`, one hand per
    /// `deal_hand` (hands 2 and 3), and deals freely after `resume`.
    #[test]
    fn a_held_table_finishes_its_hand_then_deals_one_hand_per_deal_hand_until_resume() {
        let t = TournamentId(uuid::Uuid::from_u128(7));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let (mut table, mut out) = (SimTable::default(), Vec::new());
        table.receive(seat(1, 1, 1));
        table.receive(seat(2, 2, 2));
        table.apply(t, 1, usize::MAX, &mut out);
        // Only dealing is under test: the stacks are put back after each hand, so nobody busts.
        let deal = |table: &mut SimTable, rng: &mut rand_chacha::ChaCha8Rng, out: &mut Vec<TableReport>| -> bool {
            let dealt = table.start_hand(t, 1, out);
            if dealt {
                table.finish_hand(t, 1, rng, out);
                for (_, (.., chips)) in table.seats.iter_mut() {
                    *chips = 1_000;
                }
            }
            dealt
        };
        assert!(table.start_hand(t, 1, &mut out), "hand 1 begins");
        table.receive(told(3, Instruction::HoldForDeal));
        assert!(table.finish_hand(t, 1, &mut rng, &mut out), "the hand in progress is finished normally");
        for (_, (.., chips)) in table.seats.iter_mut() {
            *chips = 1_000;
        }
        table.apply(t, 1, usize::MAX, &mut out);
        assert!(table.held && !table.may_deal() && !deal(&mut table, &mut rng, &mut out), "held: no deal_hand yet");
        table.receive(told(4, Instruction::DealHand { hand: 1 }));
        table.receive(told(5, Instruction::DealHand { hand: 2 }));
        table.apply(t, 1, usize::MAX, &mut out);
        assert_eq!(table.released, [1, 2]);
        assert!(deal(&mut table, &mut rng, &mut out) && deal(&mut table, &mut rng, &mut out), "one hand per deal_hand");
        assert!(!deal(&mut table, &mut rng, &mut out), "two deal_hands, two hands");
        assert_eq!(table.hand, 3);
        table.receive(told(6, Instruction::Resume));
        table.apply(t, 1, usize::MAX, &mut out);
        assert!(!table.held && deal(&mut table, &mut rng, &mut out) && deal(&mut table, &mut rng, &mut out), "free again");
        let started: Vec<u64> =
            out.iter().filter_map(|r| if let Report::HandStarted { hand, .. } = r.report { Some(hand) } else { None }).collect();
        assert_eq!(started, vec![1, 2, 3, 4, 5]);
    }

    /// A pause stops dealing until `resume`, held or not.
    #[test]
    fn a_paused_table_deals_nothing_until_resume() {
        let t = TournamentId(uuid::Uuid::from_u128(7));
        let (mut table, mut out) = (SimTable::default(), Vec::new());
        table.receive(seat(1, 1, 1));
        table.receive(seat(2, 2, 2));
        table.receive(told(3, Instruction::Pause { reason: "break".into() }));
        table.apply(t, 1, usize::MAX, &mut out);
        assert!(!table.start_hand(t, 1, &mut out));
        table.receive(told(4, Instruction::Resume));
        table.apply(t, 1, usize::MAX, &mut out);
        assert!(table.start_hand(t, 1, &mut out));
    }
}
