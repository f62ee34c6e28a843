//! The simulated players' side of rebuys: they hear each offer in the rebuys log and take it
//! (seven times in ten) or decline; at the add-on break, eight in ten take the add-on.

use super::command;
use super::lockstep::STALL;
use floor_events::rebuys::{verbs as rebuy_verbs, DirectorRequest, Purchase, RebuyEvent};
use floor_events::{subjects, CommandId, EntryNo, PlayerId, TournamentId};
use floor_runtime::bootstrap::Backbone;
use floor_seating::simulated::SimTable;
use rand::Rng;
use std::collections::BTreeMap;

/// The simulated players' side of rebuys: the rebuys log as they see it, and their answers.
pub(super) struct SimPlayers {
    tournament: TournamentId,
    following: floor_runtime::follow::Following,
    /// Offers open now.
    offered: std::collections::HashSet<EntryNo>,
    /// Entries whose rebuy was forgone (they are out).
    forgone: std::collections::HashSet<EntryNo>,
    /// Entries at zero already answered (cleared once they leave zero).
    answered: std::collections::HashSet<EntryNo>,
    /// Offers made to each entry so far: names each answer's command.
    offers: std::collections::HashMap<EntryNo, u32>,
    /// The tournament has an add-on, which the players take at the break.
    add_on: bool,
}

impl SimPlayers {
    pub(super) async fn follow(backbone: &Backbone, tournament: TournamentId, add_on: bool) -> Result<Self, String> {
        let subject = subjects::event_subject(subjects::aggregate::REBUYS, tournament.0);
        let following = floor_runtime::follow::follow(backbone, vec![subject], |_| {}).await.map_err(|e| e.to_string())?;
        Ok(Self {
            tournament,
            following,
            offered: Default::default(),
            forgone: Default::default(),
            answered: Default::default(),
            offers: Default::default(),
            add_on,
        })
    }

    /// Reads the rebuys log until `entry` has an open offer or a forgone rebuy.
    pub(super) async fn heard(&mut self, entry: EntryNo) -> Result<(), String> {
        while !self.offered.contains(&entry) && !self.forgone.contains(&entry) {
            let next = tokio::time::timeout(STALL, self.following.next())
                .await
                .map_err(|_| format!("no rebuy offer for entry {} in {} s (is the rebuys service running?)", entry.0, STALL.as_secs()))?;
            let message = next.ok_or("the connection closed")?.map_err(|e| e.to_string())?;
            for event in floor_events::record::decode_commit::<RebuyEvent>(&message.payload).map_err(|e| e.to_string())? {
                match event {
                    RebuyEvent::RebuyOffered { entry, .. } => {
                        self.offered.insert(entry);
                        *self.offers.entry(entry).or_default() += 1;
                    }
                    RebuyEvent::RebuyTaken { entry, .. } => {
                        self.offered.remove(&entry);
                    }
                    RebuyEvent::RebuyForgone { entry, .. } => {
                        self.offered.remove(&entry);
                        self.forgone.insert(entry);
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// A player's request. (A free function of the tournament: the follower in `self` is not
    /// `Sync`, so `&self` may not be held across the request.)
    async fn buy(t: TournamentId, backbone: &Backbone, verb: &str, entry: EntryNo, player: &PlayerId, round: &str) -> Result<(), String> {
        let request = Purchase {
            command_id: CommandId::derived(&format!("sim-{verb}:{t}:{}:{round}", entry.0)),
            tournament_id: t,
            player: player.clone(),
            entry: Some(entry),
        };
        command(backbone, subjects::service::REBUYS, verb, &request).await.map(|_| ())
    }

    /// Every player at zero, once Floor has offered the rebuy (or said there is none), takes it
    /// seven times in ten. Returns whether anyone was at zero (the tables hold this round).
    pub(super) async fn answer_offers(
        &mut self,
        backbone: &Backbone,
        tables: &BTreeMap<u32, SimTable>,
        rng: &mut impl Rng,
    ) -> Result<bool, String> {
        let at_zero: Vec<(EntryNo, PlayerId)> =
            tables.values().filter(|t| !t.closed).flat_map(|t| t.at_zero().map(|(e, p)| (e, p.clone()))).collect();
        self.answered.retain(|e| at_zero.iter().any(|(z, _)| z == e));
        for (entry, player) in &at_zero {
            if self.answered.contains(entry) {
                continue;
            }
            self.heard(*entry).await?;
            if self.offered.contains(entry) {
                let verb = if rng.random_bool(0.7) { rebuy_verbs::REBUY.name() } else { rebuy_verbs::DECLINE.name() };
                let round = format!("offer-{}", self.offers.get(entry).copied().unwrap_or(0));
                Self::buy(self.tournament, backbone, verb, *entry, player, &round).await?;
                self.offered.remove(entry);
            }
            self.answered.insert(*entry);
        }
        Ok(!at_zero.is_empty())
    }

    /// The director ends the rebuy period; every player still seated takes the add-on eight
    /// times in ten (a player at zero who does not is out); the break ends. Without an add-on
    /// the end of the rebuy period forgoes every rebuy still open, and the break has nothing to buy.
    pub(super) async fn break_for_add_ons(
        &mut self,
        backbone: &Backbone,
        tables: &BTreeMap<u32, SimTable>,
        rng: &mut impl Rng,
    ) -> Result<(), String> {
        let t = self.tournament;
        let end = |what: &str| DirectorRequest { command_id: CommandId::derived(&format!("sim-{what}:{t}")), tournament_id: t };
        command(backbone, subjects::service::REBUYS, rebuy_verbs::END_REBUYS.name(), &end("end-rebuys")).await?;
        let seated: Vec<(EntryNo, PlayerId, u64)> =
            tables.values().filter(|t| !t.closed).flat_map(|t| t.seats.values().map(|(e, p, c)| (*e, p.clone(), *c))).collect();
        for (entry, player, chips) in seated {
            if self.add_on && rng.random_bool(0.8) {
                Self::buy(t, backbone, rebuy_verbs::ADD_ON.name(), entry, &player, "add-on").await?;
            } else if self.add_on && chips == 0 {
                Self::buy(t, backbone, rebuy_verbs::DECLINE.name(), entry, &player, "add-on").await?;
            }
        }
        command(backbone, subjects::service::REBUYS, rebuy_verbs::END_ADD_ONS.name(), &end("end-add-ons")).await.map(|_| ())
    }
}
