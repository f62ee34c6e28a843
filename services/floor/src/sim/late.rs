//! Late entries (issue 33): a definition with late registration, played in lockstep rounds, gets
//! part of its field during play ([`super::definition::Plan`]).
//!
//! Between two rounds the simulator registers a few more players, and, under re-entry, busted
//! players enter again (half of them, while registration takes them). Once half the late
//! players are in (and, with rebuys, the add-on break is over: the clock's end of the rebuy
//! period would otherwise leave players at zero waiting through the break for an answer the
//! simulated players expect at once), it skips the clock to the level after the structure's
//! late-registration level, as a director may: the clock's end of that level becomes
//! registration's `registration_closed` in the tournament's log. The players keep coming until
//! registration refuses one with `registration_closed`; then every player still waiting asks
//! once, and each must be refused. That is the defect the issue reproduced: entries were sold
//! after the level ended, and the payout table, locked at the level's end, left them out. Now
//! the table locks on registration's close, after every entry sold, and the books reconcile.

use super::{ask, LateSummary};
use floor_events::clock::{verbs as clock_verbs, SkipToLevel};
use floor_events::registration::{verbs, Register};
use floor_events::table::{Report, TableReport};
use floor_events::{codes, subjects, CommandId, ErrorBody, PlayerId, RuleProfile, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_seating::simulated::SimTable;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;

/// The players who enter during play, and what registration answered them.
pub(super) struct LateEntries {
    t: TournamentId,
    /// The next new player (`sim-<n>`) to register.
    next: u32,
    /// The last one.
    entrants: u32,
    /// New players registered between two rounds.
    per_round: u32,
    /// Late players sold before the clock is skipped.
    before_skip: u32,
    /// The level to skip the clock to; `None`: registration closes only at the deadline.
    skip_to: Option<u32>,
    skipped: bool,
    /// Registration refused an entry as closed (or the tournament is over).
    closed: bool,
    /// Busted players may enter again.
    re_entry: bool,
    /// The round [`LateEntries::between_rounds`] last came after.
    last_round: Option<u64>,
    /// Busted players who will enter again, once registration has recorded their elimination.
    again: Vec<PlayerId>,
    /// Re-entries asked so far: names each request's command.
    asked: u64,
    /// Who re-enters (apart from the hands' generator, which the field must not disturb).
    rng: rand_chacha::ChaCha8Rng,
    figures: LateSummary,
    /// The tournament's rulebook: under one that requires limits, a new player sets them first.
    profile: RuleProfile,
}

/// The player numbered `n`.
fn player(n: u32) -> PlayerId {
    PlayerId::parse(&format!("sim-{n}")).expect("valid")
}

impl LateEntries {
    /// Players `early + 1 ..= entrants` enter late; `skip_to` is the level after the
    /// structure's late-registration level.
    pub(super) fn new(t: TournamentId, early: u32, entrants: u32, skip_to: Option<u32>, re_entry: bool, seed: u64) -> Self {
        let late = entrants - early;
        Self {
            t,
            next: early + 1,
            entrants,
            // Every late player within a few rounds: before the field nears the money, where
            // payouts would lock the table with late registration still open.
            per_round: late.div_ceil(6).max(1),
            before_skip: late.div_ceil(2),
            skip_to,
            skipped: false,
            closed: false,
            re_entry,
            last_round: None,
            again: Vec::new(),
            asked: 0,
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x1a7e_e417),
            figures: LateSummary::default(),
            profile: RuleProfile::default(),
        }
    }

    /// Entries to a tournament run under `profile`.
    pub(super) fn under(self, profile: RuleProfile) -> Self {
        Self { profile, ..self }
    }

    /// What registration answered.
    pub(super) fn figures(&self) -> LateSummary {
        self.figures
    }

    /// A round's reports: under re-entry (no rebuys, so a bust is an elimination) every busted
    /// player decides at once whether to enter again (one in two).
    pub(super) fn observe(&mut self, reports: &[TableReport], tables: &BTreeMap<u32, SimTable>) {
        if !self.re_entry || self.closed {
            return;
        }
        for report in reports {
            let Report::HandFinished { busts, .. } = &report.report else { continue };
            let Some(table) = tables.get(&report.table) else { continue };
            for bust in busts {
                let busted = table.seats.values().find(|(entry, ..)| *entry == bust.entry).map(|(_, player, _)| player.clone());
                if let Some(player) = busted.filter(|_| self.rng.random_bool(0.5)) {
                    self.again.push(player);
                }
            }
        }
    }

    /// After round `round` (0: before the first), once: the skip once half the late players are
    /// in (`may_skip`: not while the rebuy period lasts), new players, re-entries; after the
    /// first `registration_closed`, everyone still waiting once, each of whom must be refused.
    ///
    /// # Errors
    /// An entry sold after registration refused one as closed, a refusal the simulator does not
    /// expect, or a command never answered.
    pub(super) async fn between_rounds(&mut self, backbone: &Backbone, round: u64, may_skip: bool) -> Result<(), String> {
        if self.closed || self.last_round == Some(round) {
            return Ok(());
        }
        self.last_round = Some(round);
        let in_before_skip = self.figures.late_entries >= self.before_skip;
        if let (Some(level), false, true, true) = (self.skip_to, self.skipped, may_skip, in_before_skip) {
            self.skipped = self.skip(backbone, level).await?;
        }
        // Before the skip, up to half the late players; after it, the rest.
        let quota = match (self.skip_to.is_some() && !self.skipped, in_before_skip) {
            (true, true) => 0,
            (true, false) => self.per_round.min(self.before_skip - self.figures.late_entries),
            (false, _) => self.per_round,
        };
        for _ in 0..quota {
            if self.next > self.entrants || self.closed {
                break;
            }
            let n = self.next;
            self.next += 1;
            match self.enter(backbone, &player(n), format!("sim:{}:{n}", self.t)).await? {
                Ok(()) => self.figures.late_entries += 1,
                Err(e) => self.refused(&e)?,
            }
        }
        let mut waiting = Vec::new();
        for player in std::mem::take(&mut self.again) {
            if self.closed {
                waiting.push(player);
                continue;
            }
            match self.enter_again(backbone, &player).await? {
                Ok(()) => self.figures.re_entries += 1,
                // Its elimination is on its way to registration (seating's outbox sends it).
                Err(e) if e.code == codes::ALREADY_REGISTERED => waiting.push(player),
                Err(e) if e.code == codes::RE_ENTRY_CAP_REACHED || e.code == codes::FIELD_FULL => {}
                Err(e) => self.refused(&e)?,
            }
        }
        self.again = waiting;
        if self.closed {
            self.the_rest_once(backbone).await?;
        }
        Ok(())
    }

    /// A refusal that ends the late entries: registration is closed (counted) or the
    /// tournament is over.
    fn refused(&mut self, e: &ErrorBody) -> Result<(), String> {
        match e.code.as_str() {
            codes::REGISTRATION_CLOSED => self.figures.late_refused += 1,
            codes::TOURNAMENT_FINISHED | codes::TOURNAMENT_CANCELLED => {}
            _ => return Err(format!("{}: {}: {}", verbs::REGISTER.name(), e.code, e.message)),
        }
        self.closed = true;
        Ok(())
    }

    /// Once registration has refused an entry as closed, every player still waiting asks once:
    /// none may be sold an entry.
    async fn the_rest_once(&mut self, backbone: &Backbone) -> Result<(), String> {
        let (first, last) = (self.next, self.entrants);
        self.next = last + 1;
        let mut answers = Vec::new();
        for n in first..=last {
            answers.push((player(n), self.enter(backbone, &player(n), format!("sim:{}:{n}", self.t)).await?));
        }
        for player in std::mem::take(&mut self.again) {
            let answer = self.enter_again(backbone, &player).await?;
            answers.push((player, answer));
        }
        for (player, answer) in answers {
            match answer {
                Ok(()) => return Err(format!("registration sold {player} an entry after it refused one as registration_closed")),
                Err(e) if e.code == codes::REGISTRATION_CLOSED => self.figures.late_refused += 1,
                Err(e) if e.code == codes::TOURNAMENT_FINISHED || e.code == codes::TOURNAMENT_CANCELLED => {}
                Err(e) => return Err(format!("{}: {}: {}", verbs::REGISTER.name(), e.code, e.message)),
            }
        }
        Ok(())
    }

    async fn enter(&self, backbone: &Backbone, player: &PlayerId, id: String) -> Result<Result<(), ErrorBody>, String> {
        super::limits_first(backbone, self.profile, player).await?;
        let register = Register { command_id: CommandId::derived(&id), tournament_id: self.t, player: player.clone() };
        Ok(ask(backbone, subjects::service::REGISTRATION, verbs::REGISTER.name(), &register).await?.map(drop))
    }

    /// A re-entry: a command of its own each time it is asked (a refusal stores nothing, but
    /// the same player re-enters up to the cap).
    async fn enter_again(&mut self, backbone: &Backbone, player: &PlayerId) -> Result<Result<(), ErrorBody>, String> {
        self.asked += 1;
        let id = format!("sim-re-entry:{}:{player}:{}", self.t, self.asked);
        self.enter(backbone, player, id).await
    }

    /// Skips the clock to `level`. `false`: the clock has not started yet (it starts with the
    /// tournament, a moment after it, by its policy): asked again after the next round.
    async fn skip(&self, backbone: &Backbone, level: u32) -> Result<bool, String> {
        let skip = SkipToLevel { command_id: CommandId::derived(&format!("sim-skip:{}", self.t)), tournament_id: self.t, level };
        match ask(backbone, subjects::service::CLOCK, clock_verbs::SKIP_TO_LEVEL.name(), &skip).await? {
            Ok(_) => Ok(true),
            Err(e) if e.code == codes::CLOCK_NOT_STARTED || e.code == codes::UNKNOWN_TOURNAMENT => Ok(false),
            Err(e) => Err(format!("{}: {}: {}", clock_verbs::SKIP_TO_LEVEL.name(), e.code, e.message)),
        }
    }
}
