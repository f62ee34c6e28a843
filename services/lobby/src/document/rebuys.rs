//! The lobby's rebuys section: the terms, where the tournament is in its buying periods, how
//! many rebuys and add-ons were bought, and the players a rebuy is offered to right now (so their
//! clients, and everyone watching, can see who is deciding).

use floor_events::rebuys::RebuyEvent;
use floor_events::tournament::{AddOnTerms, RebuyTerms};
use floor_events::{EntryNo, PlayerId};
use serde::{Deserialize, Serialize};

/// Where buying stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuyingPeriod {
    /// Before the start.
    #[default]
    NotStarted,
    /// Rebuys are on.
    Rebuys,
    /// The add-on break.
    AddOn,
    /// Over.
    Over,
}

/// A rebuy offered and not yet answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenOffer {
    /// The entry.
    pub entry: EntryNo,
    /// Whose.
    pub player: PlayerId,
    /// The offer lapses then.
    pub until: chrono::DateTime<chrono::Utc>,
}

/// Rebuys and the add-on, as players see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyRebuys {
    /// Rebuy terms.
    pub rebuy: Option<RebuyTerms>,
    /// Add-on terms.
    pub add_on: Option<AddOnTerms>,
    /// Where buying stands.
    pub period: BuyingPeriod,
    /// Rebuys bought.
    pub rebuys: u32,
    /// Add-ons bought.
    pub add_ons: u32,
    /// Offers open now.
    pub offers: Vec<OpenOffer>,
}

impl LobbyRebuys {
    /// The section of a tournament with these terms.
    pub fn new(rebuy: Option<RebuyTerms>, add_on: Option<AddOnTerms>) -> Self {
        Self { rebuy, add_on, period: BuyingPeriod::NotStarted, rebuys: 0, add_ons: 0, offers: Vec::new() }
    }

    /// Folds one rebuys event.
    pub fn evolve(mut self, event: &RebuyEvent) -> Self {
        let close = |offers: &mut Vec<OpenOffer>, entry: EntryNo| offers.retain(|o| o.entry != entry);
        match event {
            RebuyEvent::RebuyPeriodOpened { .. } => self.period = BuyingPeriod::Rebuys,
            RebuyEvent::RebuyOffered { entry, player, until, .. } => {
                close(&mut self.offers, *entry);
                self.offers.push(OpenOffer { entry: *entry, player: player.clone(), until: *until });
            }
            RebuyEvent::RebuyTaken { entry, .. } => {
                self.rebuys += 1;
                close(&mut self.offers, *entry);
            }
            RebuyEvent::RebuyForgone { entry, .. } | RebuyEvent::EntryOut { entry } => close(&mut self.offers, *entry),
            RebuyEvent::RebuyPeriodEnded { add_on_open, .. } => {
                self.period = if *add_on_open { BuyingPeriod::AddOn } else { BuyingPeriod::Over };
                self.offers.clear();
            }
            RebuyEvent::AddOnTaken { .. } => self.add_ons += 1,
            RebuyEvent::AddOnsClosed { .. } => self.period = BuyingPeriod::Over,
            // Cancelled or over (issue 33): nothing more to buy, no offer stands.
            RebuyEvent::PurchasesClosed { .. } => {
                self.period = BuyingPeriod::Over;
                self.offers.clear();
            }
            RebuyEvent::RebuysConfigured { .. }
            | RebuyEvent::EntryJoined { .. }
            | RebuyEvent::PlaySuspended { .. }
            | RebuyEvent::PlayResumed { .. } => {}
        }
        self
    }
}
