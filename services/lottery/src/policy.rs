//! What the lottery aggregates are told, read from registration's log. Pure: the service feeds
//! commits in stream order and runs the commands that come out, with the seed sealed in
//! ([`SeedKey::seal`]) just before it runs each: the policy's memory, which is snapshotted,
//! never holds a seed.
//!
//! - `tournament_created` with a lottery section: the game's table and buy-in are remembered
//!   and its draw committed ([`LotteryCommand::Commit`], id `lottery-commit:<t>`): the
//!   commitment is published when the game is created, before anyone registers.
//! - `tournament_started` (a sit & go starts when its last seat fills): the draw
//!   ([`LotteryCommand::Draw`], id `lottery-draw:<t>`) with the remembered table, and the game
//!   is forgotten.
//! - `tournament_cancelled` before the start: no draw, the game is forgotten. A lottery game
//!   cancelled after its start (a failure of the system) is under 000 §16.12, the multi-table
//!   rule ("während eines laufenden Multi-Table-Turniers sowie der Variante Twister wird das
//!   Turnier abgebrochen. Die Regeln für die Erstattung der Guthaben werden auf der Homepage der
//!   Gesellschaft veröffentlicht. Sollte sich ein Turnier bereits in den Preisrängen befinden,
//!   wird das noch offene Preisgeld … so ausgeschüttet, dass jeder Spielteilnehmer zumindest
//!   jenen Betrag erhält, der dem aktuellen Preisrang … entspricht"), not §16.11's single-table
//!   one ("mit Ausnahme der Variante Twister"): the draw stands, and the abort service divides
//!   the drawn pool.
//!
//! Every command's id is derived from the game, so reading the log again after a crash is
//! answered from the aggregate's history: a game is committed once and drawn once.

use crate::domain::LotteryCommand;
use crate::draw::{commitment, hex, Seed};
use crate::projection::Frequencies;
use floor_events::commit::Events;
use floor_events::lottery::LotteryTerms;
use floor_events::registration::TournamentEvent;
use floor_events::{CommandId, Money, TournamentId};
use floor_runtime::policy::Stored;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// A command for one game's lottery aggregate.
pub type Order = (TournamentId, CommandId, LotteryCommand);

/// The key lottery seeds are derived from (the `floor-secrets` key seating and bounties use).
#[derive(Clone)]
pub struct SeedKey(pub [u8; 32]);

impl SeedKey {
    /// The seed of a game's draw: `SHA-256(key ‖ "lottery:<tournament>")`, as seating derives
    /// its seat draw's (`"draw:<tournament>"`) and bounties its envelopes' (`"mystery:…"`).
    pub fn lottery(&self, tournament: TournamentId) -> Seed {
        let mut hash = Sha256::new();
        hash.update(self.0);
        hash.update(format!("lottery:{tournament}").as_bytes());
        hash.finalize().into()
    }

    /// Puts the game's seed into an order: a commitment's SHA-256, a draw's seed.
    pub fn seal(&self, (t, id, command): Order) -> Order {
        let seed = self.lottery(t);
        let command = match command {
            LotteryCommand::Commit { version, at, .. } => LotteryCommand::Commit { version, commitment: hex(&commitment(&seed)), at },
            LotteryCommand::Draw { terms, buy_in, at, .. } => LotteryCommand::Draw { terms, buy_in, seed, at },
        };
        (t, id, command)
    }
}

/// A game created and not yet drawn: what its draw needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    /// The published table.
    pub terms: LotteryTerms,
    /// The buy-in.
    pub buy_in: Money,
}

/// The policy's memory: every lottery game created and not yet started.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    #[serde(with = "floor_runtime::snapshot::pairs")]
    games: HashMap<TournamentId, Game>,
}

/// The command id of a game's commitment.
pub fn commit_id(t: TournamentId) -> CommandId {
    CommandId::derived(&format!("lottery-commit:{t}"))
}

/// The command id of a game's draw.
pub fn draw_id(t: TournamentId) -> CommandId {
    CommandId::derived(&format!("lottery-draw:{t}"))
}

impl Policy {
    /// Games waiting for their seats to fill.
    pub fn waiting(&self) -> usize {
        self.games.len()
    }

    /// Registration's events of tournament `t`: the orders they call for, seeds left out.
    pub fn on_tournament(&mut self, t: TournamentId, events: &[TournamentEvent]) -> Vec<Order> {
        let mut orders = Vec::new();
        for e in events {
            match e {
                TournamentEvent::TournamentCreated(created) => {
                    let Some(terms) = &created.definition.lottery else { continue };
                    self.games.insert(t, Game { terms: terms.clone(), buy_in: created.definition.buy_in });
                    let command = LotteryCommand::Commit { version: terms.version.clone(), commitment: String::new(), at: created.at };
                    orders.push((t, commit_id(t), command));
                }
                TournamentEvent::TournamentStarted(started) => {
                    if let Some(Game { terms, buy_in }) = self.games.remove(&t) {
                        orders.push((t, draw_id(t), LotteryCommand::Draw { terms, buy_in, seed: [0; 32], at: started.at }));
                    }
                }
                TournamentEvent::TournamentCancelled(_) | TournamentEvent::TournamentFinished(_) => {
                    self.games.remove(&t);
                }
                _ => {}
            }
        }
        orders
    }
}

/// The lottery service's memory: the policy, and the frequencies the `frequencies` verb answers
/// from. Stored in the service's snapshot ([`floor_runtime::policy`]).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// The policy.
    pub policy: Policy,
    /// Drawn against published, per table version.
    pub frequencies: Frequencies,
}

impl floor_runtime::policy::Policy for Memory {
    type Order = Order;

    fn react(&mut self, commit: Stored<'_>) -> Vec<Order> {
        let Some(decoded) = commit.commit("lottery-policy") else { return vec![] };
        let t = decoded.tournament();
        match &decoded.events {
            Events::Tournament(e) => {
                self.frequencies.apply_tournament(e);
                self.policy.on_tournament(t, e)
            }
            Events::Lottery(e) => {
                self.frequencies.apply_lottery(e);
                vec![]
            }
            _ => vec![],
        }
    }
}
