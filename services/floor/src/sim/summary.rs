//! The line `floor sim` prints at the end: the tournament's figures, hand-for-hand as the
//! bubble's log tells it, and the bounties as the bounties' log tells them.

use floor_events::bounties::BountyEvent;
use floor_events::bubble::BubbleEvent;
use floor_events::payouts::{Books, PlaceAward};
use serde::Serialize;

/// The summary line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Players who entered (before the start and, with late registration, during play).
    pub entrants: u32,
    /// Entries sold and refused during play (issue 33): with `floor sim --definition` and late
    /// registration, otherwise zero.
    #[serde(flatten)]
    pub late: LateSummary,
    /// The winner's account name (left out when the tournament was cancelled).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub winner: String,
    /// Hands dealt.
    pub hands: u64,
    /// Players moved by balancing, breaking and the final table.
    pub moves: u64,
    /// Tables broken.
    pub tables_broken: u64,
    /// Events in the log.
    pub events: u64,
    /// Seconds, wall clock.
    pub wall_s: f64,
    /// The tournament's books once every paid place is paid (amounts in minor units).
    pub books: Books,
    /// Every finishing place the payouts log awarded (entry, player, place, places shared and
    /// prize), first place first. Left out of the line unless asked for (`floor sim
    /// --standings`): a crash test compares them, a person rarely wants 10,000 of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub standings: Vec<PlaceAward>,
    /// The bounties, in a bounty tournament.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounties: Option<BountySummary>,
    /// Hand-for-hand on the bubble, read from the bubble's log (`null`: it never started, e.g.
    /// the field was at one table by then).
    pub hand_for_hand: Option<HandForHandSummary>,
    /// The cancellation (`floor sim --cancel-at`), as the abort service states it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<CancelledSummary>,
    /// `--format satellite`: the satellite that sent its winners to this tournament, its seats,
    /// tickets and books (issue 36).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub satellite: Option<super::SatelliteSummary>,
    /// `--format flights`: the Day 1s that fed this Day 2, their survivors and books (issue 36).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flights: Option<super::FlightsSummary>,
    /// `--format shootout|don|lottery` (issue 37): the rounds, the cut or the draw.
    #[serde(flatten)]
    pub formats: super::formats::FormatSummary,
    /// How the tables dealt: `lockstep` (rounds) or `free` (each at its own pace).
    pub pace: &'static str,
    /// Whether the same seed plays the same tournament again (on a fresh platform, or one whose
    /// seating has the same seed key): lockstep runs do, free ones do not.
    pub reproducible: bool,
}

/// The entries of a tournament with late registration sold during play, and those refused once
/// registration had closed (`floor sim --definition`, issue 33).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LateSummary {
    /// New players registered after the start.
    pub late_entries: u32,
    /// Busted players who entered again (re-entry).
    pub re_entries: u32,
    /// Entries refused with `registration_closed`: the first, then every player still waiting
    /// asked once.
    pub late_refused: u32,
}

/// A cancellation as the abort service states it (`floor sim --cancel-at`): its statements
/// summed, and its books.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CancelledSummary {
    /// Players left when the simulator cancelled.
    pub players_left: u32,
    /// The cancel command, sent to answered (statements computed and stored), milliseconds.
    pub command_ms: u64,
    /// Players with a statement.
    pub statements: usize,
    /// Sum of every statement, minor units.
    pub statements_total: u64,
    /// The books the cancellation closes (money in = money out, to the minor unit, when
    /// `balanced`).
    pub books: floor_events::abort::statement::Books,
    /// The books balance, and the statements sum to what they say.
    pub balanced: bool,
}

impl CancelledSummary {
    /// From the abort service's statements of the whole tournament.
    pub fn read(players_left: u32, took: std::time::Duration, s: &floor_events::abort::Statements) -> Self {
        let total = s.statements.iter().try_fold(0u64, |sum, st| sum.checked_add(st.total));
        let statements_total = total.unwrap_or(u64::MAX);
        Self {
            players_left,
            command_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            statements: s.statements.len(),
            statements_total,
            books: s.books,
            balanced: s.books.balanced() && total == Some(s.books.statements),
        }
    }
}

/// Hand-for-hand as the bubble's log (`floor.ev.bubble.<t>`) tells it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HandForHandSummary {
    /// Players left at the announcement.
    pub started_with: u32,
    /// Players left at which the bubble bursts (the paid places).
    pub boundary: u32,
    /// Tables at the announcement.
    pub tables: u32,
    /// Tables dealing at the announcement (they owed hand 0).
    pub dealing: u32,
    /// Hand-for-hand hands released (hand 0, the announcement hand, not counted).
    pub hands: u64,
    /// Hands the tables dealt in them (each released hand once per table it went to).
    pub table_hands: u64,
    /// Players left when it ended.
    pub ended_with: Option<u32>,
    /// Why it ended: `burst`, `one_table`, `director`.
    pub ended_by: Option<String>,
    /// Seconds from the announcement to the end, by the log's clock.
    pub wall_s: Option<f64>,
    /// Seconds a released hand took, on average: `wall_s` over `hands`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s_per_hand: Option<f64>,
    /// For comparison, seconds a round took (every table dealing one hand) over the last
    /// [`ROUNDS_BEFORE`] rounds before the announcement; lockstep only (`free` has no rounds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s_per_round_before: Option<f64>,
}

/// Rounds before the announcement that `s_per_round_before` averages.
pub const ROUNDS_BEFORE: usize = 20;

impl HandForHandSummary {
    /// Reads the bubble's log; `None` if hand-for-hand never started. `rounds` are the instants
    /// the simulator's lockstep rounds began (empty at the tables' own pace).
    pub(super) fn read(events: &[BubbleEvent], rounds: &[chrono::DateTime<chrono::Utc>]) -> Option<Self> {
        let mut summary: Option<Self> = None;
        let mut began = None;
        for event in events {
            match event {
                BubbleEvent::HandForHandStarted { players_left, boundary, tables, dealing, at, .. } if summary.is_none() => {
                    began = Some(*at);
                    summary = Some(Self {
                        started_with: *players_left,
                        boundary: *boundary,
                        tables: tables.len() as u32,
                        dealing: dealing.len() as u32,
                        ..Self::default()
                    });
                }
                BubbleEvent::HandReleased { hand, tables, .. } => {
                    if let Some(s) = summary.as_mut() {
                        s.hands = s.hands.max(*hand);
                        s.table_hands += tables.len() as u64;
                    }
                }
                BubbleEvent::HandForHandEnded { cause, players_left, at } => {
                    if let Some(s) = summary.as_mut().filter(|s| s.ended_with.is_none()) {
                        s.ended_with = Some(*players_left);
                        s.ended_by = serde_json::to_value(cause).ok().and_then(|v| v.as_str().map(str::to_owned));
                        s.wall_s = began.map(|b: chrono::DateTime<chrono::Utc>| (*at - b).num_microseconds().unwrap_or(0) as f64 / 1e6);
                    }
                }
                _ => {}
            }
        }
        if let (Some(s), Some(began)) = (summary.as_mut(), began) {
            s.s_per_hand = s.wall_s.filter(|_| s.hands > 0).map(|w| w / s.hands as f64);
            let before: Vec<_> = rounds.iter().filter(|r| **r < began).collect();
            let last = &before[before.len().saturating_sub(ROUNDS_BEFORE + 1)..];
            if let (Some(first), Some(end), true) = (last.first(), last.last(), last.len() > 1) {
                let seconds = (**end - **first).num_microseconds().unwrap_or(0) as f64 / 1e6;
                s.s_per_round_before = Some(seconds / (last.len() - 1) as f64);
            }
        }
        summary
    }
}

/// The bounties of a simulated tournament, read from its bounties log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BountySummary {
    /// knockout, progressive or mystery.
    pub kind: String,
    /// Bounty pool (minor units): what the bounty lines put in.
    pub pool: u64,
    /// Paid out: bounties at eliminations and the winner's (minor units).
    pub paid: u64,
    /// Eliminations that paid a bounty.
    pub knockouts_paid: u32,
    /// Payments (several for a split pot).
    pub payments: u32,
    /// What the winner took: their own bounty and what nobody could win.
    pub winner: u64,
    /// Mystery envelopes: published when the stage started, and drawn.
    pub envelopes: u32,
    /// Mystery envelopes drawn.
    pub drawn: u32,
    /// Mystery: the revealed seed's SHA-256 is the commitment published before the stage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed_matches_commitment: Option<bool>,
    /// Every payment of bounty money, as (eliminated entry, collector, cash, added to own
    /// bounty): a restarted service must repeat none. Left out of the line.
    #[serde(skip)]
    pub payments_made: Vec<(u32, u32, u64, u64)>,
}

impl BountySummary {
    pub(super) fn read(&mut self, events: &[BountyEvent]) -> bool {
        let mut settled = false;
        for event in events {
            match event {
                BountyEvent::BountiesConfigured { terms, .. } => self.kind = terms.kind().to_owned(),
                BountyEvent::BountyPaidIn { amount, .. } => self.pool += amount.amount,
                BountyEvent::BountyRefunded { amount, .. } => self.pool = self.pool.saturating_sub(amount.amount),
                BountyEvent::MysteryStageStarted { envelopes, .. } => self.envelopes = envelopes.iter().map(|e| e.count).sum(),
                BountyEvent::EnvelopeDrawn { .. } => self.drawn += 1,
                BountyEvent::EntryKnockedOut { bounty, unclaimed: false, .. } if bounty.amount > 0 => self.knockouts_paid += 1,
                BountyEvent::BountyPaid { to, eliminated, cash, added_to_own, .. } => {
                    self.paid += cash.amount;
                    self.payments += 1;
                    self.payments_made.push((eliminated.0, to.0, cash.amount, added_to_own.amount));
                }
                BountyEvent::WinnerBounty { own, left_over, .. } => {
                    self.winner = own.amount + left_over.amount;
                    self.paid += self.winner;
                    settled = true;
                }
                _ => {}
            }
        }
        settled
    }
}
