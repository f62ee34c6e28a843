//! The tournament definition a director creates, and the rules it must satisfy.
//!
//! Spec: `../shared/spec/README.md` §1 (formats, entry models, fees) and §2 (registration).

use crate::bounties::BountyTerms;
use crate::bubble::{HandForHandRules, HandForHandSettings};
use crate::clock::BlindStructure;
use crate::codes;
use crate::money::{non_negative, Money};
use crate::profile::RuleProfile;
use crate::text;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod bounds;
pub use bounds::MAX_CHIPS;

/// Everything registration needs to know about a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TournamentDefinition {
    /// Display name.
    pub name: String,
    /// When the tournament starts.
    pub start: Start,
    /// Seats per table, 2–10 (000 §2.1, 002 §2.3).
    pub table_size: u8,
    /// Chips each entry starts with.
    #[serde(deserialize_with = "non_negative")]
    pub starting_stack: u64,
    /// The buy-in: what goes to the prize pool (or, with a fee share, what the player pays).
    pub buy_in: Money,
    /// The operator's fee.
    pub fee: Fee,
    /// Most entries the tournament accepts in total, re-entries included. A sit & go starts when
    /// this many have registered.
    pub capacity: u32,
    /// Fewest entries needed to start; below it a scheduled tournament is cancelled and refunded.
    pub min_players: u32,
    /// When registration opens; absent means at creation.
    #[serde(default)]
    pub registration_opens: Option<DateTime<Utc>>,
    /// Late registration (and re-entry) stays open until this instant after the start; absent
    /// means registration closes at the start.
    #[serde(default)]
    pub late_registration_until: Option<DateTime<Utc>>,
    /// Freezeout, re-entry or multi-entry.
    #[serde(default)]
    pub entry_model: EntryModel,
    /// Guaranteed prize pool; the operator pays any shortfall (overlay).
    #[serde(default)]
    pub guarantee: Option<Money>,
    /// The rulebook the tournament runs under.
    #[serde(default)]
    pub profile: RuleProfile,
    /// The blind structure; the clock starts it when the tournament starts. Absent: the
    /// director gives the clock a structure later (`floor clock structure`).
    #[serde(default)]
    pub structure: Option<BlindStructure>,
    /// Rebuys during the rebuy period (from the start to the break the clock's structure names
    /// in `rebuys_until_break`, or until the director ends it). Absent: no rebuys.
    #[serde(default)]
    pub rebuy: Option<RebuyTerms>,
    /// The add-on, offered once to every player still in when the rebuy period ends. Absent:
    /// no add-on.
    #[serde(default)]
    pub add_on: Option<AddOnTerms>,
    /// A fixed payout table instead of the generated one: each place's share of the pool.
    /// Absent: the table is generated from the field (see the payouts service).
    #[serde(default)]
    pub payout_table: Option<FixedPayouts>,
    /// Hand-for-hand on the bubble: the tournament's own settings, each on top of its profile's
    /// ([`RuleProfile::hand_for_hand`]). Absent: the profile's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_for_hand: Option<HandForHandSettings>,
    /// Bounties: knockout, progressive knockout, mystery or target (`crate::bounties`). Absent:
    /// no bounties, and the whole net buy-in goes to the prize pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounty: Option<BountyTerms>,
    /// A satellite: the prize is entries into another tournament (`crate::satellites`, issue
    /// 36). Absent: an ordinary tournament.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub satellite: Option<crate::satellites::SatelliteTerms>,
    /// A shootout: each table plays to its winners, who meet at the next round's tables
    /// (`crate::shootouts`, issue 37). Absent: tables are balanced and broken as usual.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shootout: Option<crate::shootouts::ShootoutTerms>,
    /// Double or nothing (or triple, …): play stops when the field is down to its
    /// `1 / fraction`, each paid the same (`crate::shootouts::CutTerms`, issue 37).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<crate::shootouts::CutTerms>,
    /// A lottery sit & go: the prize pool is drawn from this published table when the seats fill
    /// (`crate::lottery`, issue 37).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lottery: Option<crate::lottery::LotteryTerms>,
    /// A flight's Day 1: its survivors and their stacks go on to a Day 2, its prize pool with
    /// them (`crate::flights`, issue 36). Absent: an ordinary tournament.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flight: Option<crate::flights::FlightTerms>,
    /// Balancing: when tables are balanced and who moves, each on top of the profile's
    /// ([`RuleProfile::seating`]: TDA's "three short", PokerStars' least moved under REEL, within
    /// one elsewhere). Absent: the profile's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seating: Option<crate::profile::SeatingSettings>,
}

/// A director's own payout table: place 1 first, each place's share of the prize pool in basis
/// points (1 % = 100). The shares add up to the whole pool (10,000), never rise from one place
/// to the next, and pay no more places than `min_players`, so every place has a player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixedPayouts {
    /// Shares of the pool by place, in basis points.
    pub shares_bps: Vec<u32>,
}

impl FixedPayouts {
    /// Each place's amount of `pool` (minor units): its share rounded down, and the cents the
    /// rounding leaves to first place, so the table pays exactly the pool.
    pub fn amounts(&self, pool: u64) -> Vec<u64> {
        let mut amounts: Vec<u64> = self.shares_bps.iter().map(|&bps| (u128::from(pool) * u128::from(bps) / 10_000) as u64).collect();
        let paid: u64 = amounts.iter().sum();
        if let Some(first) = amounts.first_mut() {
            *first += pool - paid;
        }
        amounts
    }
}

/// What a rebuy costs, what it gives and who may take it (spec §6; 000 §16.7, 002 §2.3, 003).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RebuyTerms {
    /// What goes to the prize pool.
    pub price: Money,
    /// The operator's fee on top (001: fees on rebuys); zero for none.
    pub fee: Money,
    /// Chips a rebuy adds.
    #[serde(deserialize_with = "non_negative")]
    pub chips: u64,
    /// Rebuys per entry.
    pub max_per_entry: u32,
    /// When a player may rebuy.
    #[serde(default)]
    pub condition: RebuyCondition,
    /// How long a player whose stack reached zero has to decide before the offer lapses and the
    /// entry is eliminated (000 §16.7, 002 §2.6). Default 30 s.
    #[serde(default = "default_offer_seconds")]
    pub offer_seconds: u32,
}

fn default_offer_seconds() -> u32 {
    30
}

/// When a rebuy is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RebuyCondition {
    /// Only once the stack has reached zero (002 §2.3).
    #[default]
    AtZero,
    /// Whenever the stack between hands is at or below `chips` (003), zero included.
    AtOrBelow {
        /// The chip count at or below which a rebuy is allowed.
        chips: u64,
    },
}

/// What the add-on costs and gives (spec §6: usually the buy-in, chips at least the starting
/// stack; 002: open to every player still in, even at zero chips).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddOnTerms {
    /// What goes to the prize pool.
    pub price: Money,
    /// The operator's fee on top; zero for none.
    pub fee: Money,
    /// Chips the add-on adds.
    #[serde(deserialize_with = "non_negative")]
    pub chips: u64,
}

/// The ledger lines of one purchase: `price` to the pool, `fee` to the operator.
pub fn purchase_ledger(price: Money, fee: Money) -> EntryLedger {
    EntryLedger { paid_in: Money::new(price.amount.saturating_add(fee.amount), price.currency), fee, prize_pool: price }
}

impl RebuyTerms {
    /// The ledger lines of one rebuy.
    pub fn ledger(&self) -> EntryLedger {
        purchase_ledger(self.price, self.fee)
    }

    /// Whether a stack of `chips` between hands may rebuy.
    pub fn allows(&self, chips: u64) -> bool {
        match self.condition {
            RebuyCondition::AtZero => chips == 0,
            RebuyCondition::AtOrBelow { chips: limit } => chips <= limit,
        }
    }
}

impl AddOnTerms {
    /// The ledger lines of one add-on.
    pub fn ledger(&self) -> EntryLedger {
        purchase_ledger(self.price, self.fee)
    }
}

/// When a tournament starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// At a scheduled instant (multi-table tournaments).
    At(DateTime<Utc>),
    /// When the last seat is filled.
    SitAndGo,
}

/// How the fee is charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fee {
    /// Paid on top of the buy-in: "20 + 2" (001 Art. 7).
    OnTop(Money),
    /// A share of the buy-in, in basis points (1 000 = 10 %), taken out of it (003).
    ShareOfBuyIn {
        /// The share, in basis points of the buy-in.
        basis_points: u32,
    },
}

/// Which entries a player may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EntryModel {
    /// One entry per player.
    #[default]
    Freezeout,
    /// After elimination, a new entry, up to `max_entries` in all (the first one included), while
    /// registration or late registration is open (004 §4.36.5).
    ReEntry {
        /// Entries per player in all, the first one included.
        max_entries: u32,
    },
    /// Several live entries at once, up to `max_live_entries` (000 §16.5).
    MultiEntry {
        /// Live entries per player at one time.
        max_live_entries: u32,
    },
}

/// What one entry pays and where it goes: the books of a tournament are the sum of these lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EntryLedger {
    /// What the player paid.
    pub paid_in: Money,
    /// The operator's revenue.
    pub fee: Money,
    /// The prize-pool contribution.
    pub prize_pool: Money,
}

/// A rule the definition breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct DefinitionError {
    /// Stable code: `invalid_definition`, `fee_too_high` or `buy_in_too_high`.
    pub code: &'static str,
    /// The field at fault.
    pub field: &'static str,
    /// Why.
    pub message: String,
}

fn invalid(field: &'static str, message: impl Into<String>) -> DefinitionError {
    DefinitionError { code: codes::INVALID_DEFINITION, field, message: message.into() }
}

impl TournamentDefinition {
    /// The one fixture every definition is built from: a valid scheduled freezeout, "Example
    /// Freezeout", starting 2026-12-06 18:00 UTC (a fixed instant: callers set their own `start`),
    /// 9 seats, 10,000 chips, EUR 10 + 1 (minor units: 1,000 + 100), room for 100, at least 2,
    /// under the TDA 2024 profile.
    ///
    /// Every optional field is `None` (registration opens at creation, no late registration, no
    /// guarantee, structure, rebuy, add-on, payout table, hand-for-hand settings or bounty) and
    /// every defaulted one has its default (freezeout, [`RuleProfile::Tda2024`]), and that stays
    /// so: tests, the simulator and the console's templates name only the fields they mean and
    /// take the rest from here (`TournamentDefinition { capacity: 9, ..TournamentDefinition::example() }`),
    /// so a new optional section is added here and in the struct, not in every crate.
    pub fn example() -> TournamentDefinition {
        TournamentDefinition {
            name: "Example Freezeout".into(),
            start: Start::At(DateTime::<Utc>::from_timestamp(1_796_580_000, 0).unwrap_or_default()),
            table_size: 9,
            starting_stack: 10_000,
            buy_in: Money::new(1_000, crate::money::Currency::EUR),
            fee: Fee::OnTop(Money::new(100, crate::money::Currency::EUR)),
            capacity: 100,
            min_players: 2,
            registration_opens: None,
            late_registration_until: None,
            entry_model: EntryModel::Freezeout,
            guarantee: None,
            profile: RuleProfile::Tda2024,
            structure: None,
            rebuy: None,
            add_on: None,
            payout_table: None,
            hand_for_hand: None,
            bounty: None,
            satellite: None,
            shootout: None,
            cut: None,
            lottery: None,
            flight: None,
            seating: None,
        }
    }

    /// The money lines of one entry (registration, late registration or re-entry).
    ///
    /// With a fee share the fee is rounded down to the minor unit, so any remainder stays in the
    /// prize pool.
    pub fn entry_ledger(&self) -> EntryLedger {
        match self.fee {
            Fee::OnTop(fee) => EntryLedger {
                paid_in: Money::new(self.buy_in.amount.saturating_add(fee.amount), self.buy_in.currency),
                fee,
                prize_pool: self.buy_in,
            },
            Fee::ShareOfBuyIn { basis_points } => {
                let fee = self.buy_in.share_bps(basis_points);
                EntryLedger {
                    paid_in: self.buy_in,
                    fee,
                    prize_pool: Money::new(self.buy_in.amount.saturating_sub(fee.amount), self.buy_in.currency),
                }
            }
        }
    }

    /// When registration closes for good (late registration included). A sit & go has no
    /// deadline: it closes when full.
    pub fn registration_deadline(&self) -> Option<DateTime<Utc>> {
        match self.start {
            Start::At(start) => Some(self.late_registration_until.unwrap_or(start)),
            Start::SitAndGo => None,
        }
    }

    /// The hand-for-hand settings in force: the profile's, with the tournament's own on top.
    pub fn hand_for_hand_rules(&self) -> HandForHandRules {
        self.profile.hand_for_hand().with(self.hand_for_hand)
    }

    /// The balancing rules in force: the profile's, with the tournament's own on top.
    pub fn seating_rules(&self) -> crate::profile::SeatingRules {
        self.profile.seating().with(self.seating)
    }

    /// The scheduled start, if any.
    pub fn scheduled_start(&self) -> Option<DateTime<Utc>> {
        match self.start {
            Start::At(at) => Some(at),
            Start::SitAndGo => None,
        }
    }

    /// Checks the definition against the spec and its rule profile.
    ///
    /// # Errors
    /// The first rule broken, with the field and a stable code.
    pub fn validate(&self) -> Result<(), DefinitionError> {
        text::TOURNAMENT_NAME.check(&self.name).map_err(|e| DefinitionError { code: e.code, field: e.field, message: e.message })?;
        if !(2..=10).contains(&self.table_size) {
            return Err(invalid("table_size", format!("must be 2-10 seats, got {}", self.table_size)));
        }
        if self.starting_stack == 0 {
            return Err(invalid("starting_stack", "must be at least 1 chip"));
        }
        if self.capacity < 2 {
            return Err(invalid("capacity", "must be at least 2"));
        }
        if self.min_players < 2 || self.min_players > self.capacity {
            return Err(invalid("min_players", format!("must be 2..={} (the capacity)", self.capacity)));
        }
        self.validate_money()?;
        self.validate_bounds()?;
        self.validate_times()?;
        self.validate_entry_model()?;
        self.validate_rebuys()?;
        self.validate_payout_table()?;
        if let Some(settings) = &self.hand_for_hand {
            settings.check().map_err(|message| invalid("hand_for_hand", message))?;
        }
        self.validate_bounty()?;
        self.validate_satellite()?;
        crate::shootouts::validate(self)?;
        crate::lottery::validate(self)?;
        crate::flights::validate(self)
    }

    /// A satellite pays seats from its whole pool (issue 36): no bounty takes part of it, no
    /// fixed table replaces the seats, and its seats are in its own currency. Rebuys and add-ons
    /// grow the pool after the table locks on registration's close, which a satellite's stop
    /// (entries left = seats) cannot follow yet: refused until it does.
    fn validate_satellite(&self) -> Result<(), DefinitionError> {
        let Some(terms) = &self.satellite else { return Ok(()) };
        let refuse = |message: &str| Err(invalid("satellite", message));
        if self.bounty.is_some() {
            return refuse("a satellite pays its whole pool in seats: no bounty");
        }
        if self.payout_table.is_some() {
            return refuse("a satellite's table is its seats: no fixed payout table");
        }
        if self.rebuy.is_some() || self.add_on.is_some() {
            return refuse("satellites with rebuys or add-ons are not supported yet");
        }
        if terms.seat_value.currency != self.buy_in.currency {
            return refuse("the seat value is in another currency than the buy-in");
        }
        if terms.seat_value.amount == 0 {
            return refuse("the seat value must be more than zero");
        }
        if self.entry_ledger().paid_in.amount >= terms.seat_value.amount {
            return Err(DefinitionError {
                code: codes::SATELLITE_COSTS_TOO_MUCH,
                field: "satellite",
                message: format!(
                    "an entry costs {} and a seat in the target {}: a satellite costs less than its target",
                    self.entry_ledger().paid_in,
                    terms.seat_value
                ),
            });
        }
        Ok(())
    }

    /// Bounty terms within the profile's ranges (004 §4.36.15), mystery envelopes that are the
    /// whole pool. A target bounty's target is checked against the entries when the tournament
    /// starts: nobody is registered when it is defined.
    fn validate_bounty(&self) -> Result<(), DefinitionError> {
        let Some(terms) = &self.bounty else { return Ok(()) };
        terms.validate(self.profile).map_err(|e| DefinitionError { code: e.code, field: "bounty", message: e.message })
    }

    /// A fixed payout table pays the whole pool, top place first, to places that will exist.
    fn validate_payout_table(&self) -> Result<(), DefinitionError> {
        let Some(table) = &self.payout_table else { return Ok(()) };
        let shares = &table.shares_bps;
        if shares.is_empty() {
            return Err(invalid("payout_table", "a payout table pays at least one place"));
        }
        let total: u64 = shares.iter().map(|&s| u64::from(s)).sum();
        if total != 10_000 {
            return Err(invalid(
                "payout_table",
                format!("the shares add up to {total} basis points; a payout table pays the whole pool (10000)"),
            ));
        }
        if let Some(i) = shares.windows(2).position(|w| w[1] > w[0]) {
            return Err(invalid("payout_table", format!("place {} is paid more than place {}", i + 2, i + 1)));
        }
        if shares.len() as u64 > u64::from(self.min_players) {
            return Err(invalid(
                "payout_table",
                format!("it pays {} places but the tournament may start with {} players (min_players)", shares.len(), self.min_players),
            ));
        }
        Ok(())
    }

    /// Rebuy and add-on terms: same currency as the buy-in, chips to give, a cap, a condition the
    /// profile allows (002 §2.3: rebuys only at zero chips), and a rebuy period to end.
    fn validate_rebuys(&self) -> Result<(), DefinitionError> {
        let currency = self.buy_in.currency;
        let same_currency = |field: &'static str, amounts: [Money; 2]| {
            if amounts.iter().any(|m| m.currency != currency) {
                return Err(invalid(field, format!("price and fee must be in {currency}, the buy-in's currency")));
            }
            Ok(())
        };
        if let Some(rebuy) = self.rebuy {
            same_currency("rebuy", [rebuy.price, rebuy.fee])?;
            if rebuy.chips == 0 {
                return Err(invalid("rebuy", "a rebuy must add chips"));
            }
            if rebuy.max_per_entry == 0 {
                return Err(invalid("rebuy", "max_per_entry must be at least 1"));
            }
            if rebuy.offer_seconds == 0 || rebuy.offer_seconds > 600 {
                return Err(invalid("rebuy", "offer_seconds must be 1-600"));
            }
            if rebuy.condition != RebuyCondition::AtZero && !self.profile.registration().rebuy_below_zero_allowed {
                return Err(invalid("rebuy", format!("profile {} allows rebuys only at zero chips (002 §2.3)", self.profile)));
            }
        }
        if let Some(add_on) = self.add_on {
            same_currency("add_on", [add_on.price, add_on.fee])?;
            if add_on.chips == 0 {
                return Err(invalid("add_on", "an add-on must add chips"));
            }
            // 002 §2.3 T-6.3: "mot erläggande av ett belopp lika med startavgiften" (for an amount
            // equal to the start fee); the start fee is what an entry puts in the prize pool
            // ("Summan av startavgifterna är lika med turneringens sammanlagda prispott"), the
            // registration fee ("anmälningsavgift") the operator's.
            let start_fee = self.entry_ledger().prize_pool;
            if self.profile == RuleProfile::SvenskaSpel2012 && add_on.price != start_fee {
                return Err(invalid(
                    "add_on",
                    format!(
                        "profile {} prices the add-on at the start fee, {start_fee} (002 §2.3); this one is {}",
                        self.profile, add_on.price
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Checks what only the moment of creation can tell: the start (and the registration
    /// opening, when given) must come after `at`, the command's time. A tournament whose start
    /// has passed would be cancelled at once, below its minimum (issue 17).
    ///
    /// # Errors
    /// `start_in_the_past`, naming the field.
    pub fn validate_at(&self, at: DateTime<Utc>) -> Result<(), DefinitionError> {
        match self.start {
            Start::At(start) if start <= at => Err(DefinitionError {
                code: codes::START_IN_THE_PAST,
                field: "start",
                message: format!("the start {start} is not after now ({at})"),
            }),
            _ => Ok(()),
        }
    }

    fn validate_money(&self) -> Result<(), DefinitionError> {
        let currency = self.buy_in.currency;
        if !currency.is_iso_4217() {
            return Err(DefinitionError {
                code: codes::UNKNOWN_CURRENCY,
                field: "buy_in",
                message: format!("{currency} is not an ISO 4217 currency"),
            });
        }
        if let Fee::OnTop(fee) = self.fee {
            if fee.currency != currency {
                return Err(invalid("fee", format!("fee in {} but buy-in in {currency}", fee.currency)));
            }
        }
        if let Fee::ShareOfBuyIn { basis_points } = self.fee {
            if basis_points > 10_000 {
                return Err(invalid("fee", "a share of the buy-in cannot exceed 100 % (10000 basis points)"));
            }
        }
        if let Some(g) = self.guarantee {
            if g.currency != currency {
                return Err(invalid("guarantee", format!("guarantee in {} but buy-in in {currency}", g.currency)));
            }
        }
        let ledger = self.entry_ledger();
        let rules = self.profile.registration();
        if let Some(caps) = rules.fee_caps {
            caps.check(ledger.prize_pool, ledger.fee).map_err(|(code, message)| DefinitionError { code, field: "fee", message })?;
        }
        if let Some((low, high)) = rules.fee_share_bps {
            // Freerolls carry no fee and are outside the rule.
            if ledger.paid_in.amount > 0 {
                // Compared exactly, fee / paid in against the bounds, with no rounding: a fee of
                // 17.009 % is above 17 %, not 17.00 %.
                let (fee, paid_in) = (u128::from(ledger.fee.amount) * 10_000, u128::from(ledger.paid_in.amount));
                let code = if fee < u128::from(low) * paid_in {
                    Some(codes::FEE_TOO_LOW)
                } else if fee > u128::from(high) * paid_in {
                    Some(codes::FEE_TOO_HIGH)
                } else {
                    None
                };
                // The share shown to three decimals of a percent.
                let thousandths = fee * 10 / paid_in;
                if let Some(code) = code {
                    return Err(DefinitionError {
                        code,
                        field: "fee",
                        message: format!(
                            "profile {} requires a fee of {}-{} % of the buy-in; this one is {}.{:03} %",
                            self.profile,
                            low / 100,
                            high / 100,
                            thousandths / 1_000,
                            thousandths % 1_000
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    fn validate_times(&self) -> Result<(), DefinitionError> {
        match self.start {
            Start::At(start) => {
                if let Some(opens) = self.registration_opens {
                    if opens >= start {
                        return Err(invalid("registration_opens", "must be before the start"));
                    }
                }
                if let Some(late) = self.late_registration_until {
                    if late < start {
                        return Err(invalid("late_registration_until", "must not be before the start"));
                    }
                }
            }
            Start::SitAndGo => {
                if self.late_registration_until.is_some() {
                    return Err(invalid("late_registration_until", "a sit & go has no late registration"));
                }
                if self.capacity > 360 {
                    return Err(invalid("capacity", "a sit & go seats 2-360 players (003, 004 §4.36.2)"));
                }
                if self.min_players != self.capacity {
                    return Err(invalid("min_players", "a sit & go starts when full: min_players must equal capacity"));
                }
            }
        }
        Ok(())
    }

    fn validate_entry_model(&self) -> Result<(), DefinitionError> {
        match self.entry_model {
            EntryModel::Freezeout => Ok(()),
            EntryModel::ReEntry { max_entries } if max_entries < 2 => {
                Err(invalid("entry_model", "re-entry needs max_entries >= 2 (the first entry counts)"))
            }
            EntryModel::ReEntry { .. } if self.start == Start::SitAndGo => Err(invalid("entry_model", "a sit & go has no re-entry")),
            EntryModel::MultiEntry { max_live_entries } if max_live_entries < 1 => {
                Err(invalid("entry_model", "multi-entry needs max_live_entries >= 1"))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::money::Currency;

    pub fn sample() -> TournamentDefinition {
        TournamentDefinition {
            name: "Sunday 100".into(),
            start: Start::At("2026-12-06T18:00:00Z".parse().unwrap()),
            starting_stack: 20_000,
            buy_in: Money::new(10_000, Currency::EUR),
            fee: Fee::OnTop(Money::new(1_000, Currency::EUR)),
            capacity: 1_000,
            min_players: 10,
            late_registration_until: Some("2026-12-06T19:00:00Z".parse().unwrap()),
            guarantee: Some(Money::new(500_000, Currency::EUR)),
            ..TournamentDefinition::example()
        }
    }

    #[test]
    fn the_example_is_a_valid_scheduled_freezeout_with_no_optional_section() {
        let example = TournamentDefinition::example();
        assert_eq!(example.start, Start::At("2026-12-06T18:00:00Z".parse().unwrap()));
        example.validate().unwrap();
        assert_eq!((example.entry_model, example.profile), (EntryModel::default(), RuleProfile::default()));
        let json = serde_json::to_value(&example).unwrap();
        for (field, value) in json.as_object().unwrap() {
            let required = ["name", "start", "table_size", "starting_stack", "buy_in", "fee", "capacity", "min_players"];
            let defaulted = ["entry_model", "profile"];
            assert!(
                required.contains(&field.as_str()) || defaulted.contains(&field.as_str()) || value.is_null(),
                "{field} is {value}: the example's optional sections are all absent"
            );
        }
    }

    #[test]
    fn a_sane_definition_is_valid() {
        sample().validate().unwrap();
    }

    #[test]
    fn fee_on_top_is_added_and_fee_share_is_taken_out() {
        let d = sample();
        let l = d.entry_ledger();
        assert_eq!((l.paid_in.amount, l.fee.amount, l.prize_pool.amount), (11_000, 1_000, 10_000));
        let d = TournamentDefinition { fee: Fee::ShareOfBuyIn { basis_points: 1_250 }, ..sample() };
        let l = d.entry_ledger();
        assert_eq!((l.paid_in.amount, l.fee.amount, l.prize_pool.amount), (10_000, 1_250, 8_750));
    }

    #[test]
    fn broken_rules_name_their_field() {
        let cases: Vec<(&str, TournamentDefinition, &str)> = vec![
            ("table too big", TournamentDefinition { table_size: 11, ..sample() }, "table_size"),
            ("no chips", TournamentDefinition { starting_stack: 0, ..sample() }, "starting_stack"),
            ("min above capacity", TournamentDefinition { min_players: 2_000, ..sample() }, "min_players"),
            (
                "late reg before start",
                TournamentDefinition { late_registration_until: Some("2026-12-06T17:00:00Z".parse().unwrap()), ..sample() },
                "late_registration_until",
            ),
            (
                "re-entry cap of one",
                TournamentDefinition { entry_model: EntryModel::ReEntry { max_entries: 1 }, ..sample() },
                "entry_model",
            ),
            (
                "mixed currencies",
                TournamentDefinition { fee: Fee::OnTop(Money::new(1, Currency::parse("USD").unwrap())), ..sample() },
                "fee",
            ),
        ];
        for (why, def, field) in cases {
            let err = def.validate().expect_err(why);
            assert_eq!(err.field, field, "{why}");
            assert_eq!(err.code, codes::INVALID_DEFINITION, "{why}");
        }
    }

    /// Issue 17, reproductions 6, 8 and 10: a start in the past, a name with control characters
    /// or of any length, a currency that does not exist.
    #[test]
    fn a_past_start_a_bad_name_and_an_unknown_currency_get_their_codes() {
        let d = sample();
        let start = d.scheduled_start().unwrap();
        assert_eq!(d.validate_at(start - chrono::Duration::seconds(1)), Ok(()));
        assert_eq!(d.validate_at(start).unwrap_err().code, codes::START_IN_THE_PAST);
        assert_eq!(TournamentDefinition { start: Start::SitAndGo, ..sample() }.validate_at(start), Ok(()), "a sit & go has no start time");
        let named = |name: &str| TournamentDefinition { name: name.into(), ..sample() }.validate().map_err(|e| (e.code, e.field));
        assert_eq!(named("Sunday\u{1b}[2J Major"), Err((codes::CONTROL_CHARACTER, "name")));
        assert_eq!(named(&"x".repeat(1 << 20)), Err((codes::TEXT_TOO_LONG, "name")));
        assert_eq!(named(" "), Err((codes::INVALID_DEFINITION, "name")));
        let xyz = Currency::parse("XYZ").unwrap();
        let d = TournamentDefinition { buy_in: Money::new(100, xyz), fee: Fee::OnTop(Money::new(10, xyz)), guarantee: None, ..sample() };
        assert_eq!(d.validate().map_err(|e| (e.code, e.field)), Err((codes::UNKNOWN_CURRENCY, "buy_in")));
    }

    #[test]
    fn hand_for_hand_settings_are_checked_and_fall_back_to_the_profile() {
        use crate::bubble::{HandForHandClock, Trigger};
        let d = TournamentDefinition { profile: RuleProfile::SvenskaSpel2012, ..sample() };
        assert_eq!(d.hand_for_hand_rules(), RuleProfile::SvenskaSpel2012.hand_for_hand());
        let own = HandForHandSettings { clock: Some(HandForHandClock::Deduct { seconds: 240 }), ..Default::default() };
        let d = TournamentDefinition { hand_for_hand: Some(own), ..d };
        assert_eq!(d.validate().map_err(|e| (e.code, e.field)), Err((codes::INVALID_DEFINITION, "hand_for_hand")));
        let own = HandForHandSettings { trigger: Some(Trigger::PlayersBeforeBubble { players: 4 }), ..Default::default() };
        let d = TournamentDefinition { hand_for_hand: Some(own), ..d };
        assert_eq!(d.validate(), Ok(()));
        assert_eq!(d.hand_for_hand_rules().trigger, Trigger::PlayersBeforeBubble { players: 4 });
        assert_eq!(d.hand_for_hand_rules().clock, HandForHandClock::Normal, "the rest from 002's profile");
        // A definition written before the setting existed reads as before.
        let json = serde_json::to_value(sample()).unwrap();
        assert!(json.get("hand_for_hand").is_none(), "absent settings are not written");
        assert_eq!(serde_json::from_value::<TournamentDefinition>(json).unwrap(), sample());
    }

    #[test]
    fn win2day_refuses_fees_above_its_caps() {
        let d = TournamentDefinition { profile: RuleProfile::Win2day, ..sample() };
        d.validate().unwrap();
        let d = TournamentDefinition { fee: Fee::OnTop(Money::new(1_600, Currency::EUR)), ..d };
        assert_eq!(d.validate().unwrap_err().code, codes::FEE_TOO_HIGH);
        let d = TournamentDefinition { buy_in: Money::new(60_000, Currency::EUR), ..d };
        assert_eq!(d.validate().unwrap_err().code, codes::BUY_IN_TOO_HIGH);
    }

    /// 002 §2.3 T-6.3: under svenska-spel-2012 the add-on costs the start fee, what an entry
    /// puts in the prize pool; another price is refused, naming it. Other profiles leave the
    /// price to the tournament's rules.
    #[test]
    fn svenska_spel_prices_the_add_on_at_the_start_fee() {
        let add_on = |price: u64| AddOnTerms { price: Money::new(price, Currency::EUR), fee: Money::new(0, Currency::EUR), chips: 5_000 };
        let d = TournamentDefinition { profile: RuleProfile::SvenskaSpel2012, add_on: Some(add_on(10_000)), ..sample() };
        d.validate().unwrap();
        let dear = TournamentDefinition { add_on: Some(add_on(15_000)), ..d.clone() };
        let refused = dear.validate().unwrap_err();
        assert_eq!((refused.code, refused.field), (codes::INVALID_DEFINITION, "add_on"));
        assert!(refused.message.contains("002 §2.3"), "{}", refused.message);
        TournamentDefinition { profile: RuleProfile::Tda2024, ..dear }.validate().unwrap();
    }

    #[test]
    fn reel_cz_wants_a_fee_of_two_to_seventeen_percent() {
        let d = TournamentDefinition { profile: RuleProfile::ReelCz, ..sample() };
        d.validate().unwrap(); // 1 000 of 11 000 paid ≈ 9.09 %
        let low = TournamentDefinition { fee: Fee::ShareOfBuyIn { basis_points: 100 }, ..d.clone() };
        assert_eq!(low.validate().unwrap_err().code, codes::FEE_TOO_LOW, "1 % is below the range, not above it");
        let high = TournamentDefinition { fee: Fee::ShareOfBuyIn { basis_points: 1_800 }, ..d };
        assert_eq!(high.validate().unwrap_err().code, codes::FEE_TOO_HIGH);
    }

    #[test]
    fn definitions_read_from_toml_shaped_json() {
        let json = r#"{
            "name": "Daily Turbo", "start": {"at": "2026-12-06T18:00:00Z"}, "table_size": 6,
            "starting_stack": 10000, "buy_in": {"amount": 500, "currency": "EUR"},
            "fee": {"share_of_buy_in": {"basis_points": 1000}}, "capacity": 60, "min_players": 6,
            "entry_model": {"kind": "re_entry", "max_entries": 3}, "profile": "reel-cz"
        }"#;
        let d: TournamentDefinition = serde_json::from_str(json).unwrap();
        d.validate().unwrap();
        assert_eq!(d.entry_model, EntryModel::ReEntry { max_entries: 3 });
    }

    fn rebuy(condition: RebuyCondition) -> RebuyTerms {
        RebuyTerms {
            price: Money::new(10_000, Currency::EUR),
            fee: Money::new(1_000, Currency::EUR),
            chips: 20_000,
            max_per_entry: 2,
            condition,
            offer_seconds: 30,
        }
    }

    #[test]
    fn rebuy_terms_are_checked_against_the_buy_in_and_the_profile() {
        let ok = TournamentDefinition { rebuy: Some(rebuy(RebuyCondition::AtZero)), ..sample() };
        assert_eq!(ok.validate(), Ok(()));
        assert_eq!(ok.rebuy.unwrap().ledger().paid_in, Money::new(11_000, Currency::EUR));
        let below = RebuyCondition::AtOrBelow { chips: 10_000 };
        // 003 allows "chips <= X"; 002 §2.3 allows rebuys only at zero chips.
        let reel = TournamentDefinition {
            rebuy: Some(rebuy(below)),
            profile: RuleProfile::ReelCz,
            fee: Fee::ShareOfBuyIn { basis_points: 1_000 },
            ..sample()
        };
        assert_eq!(reel.validate(), Ok(()));
        let svenska = TournamentDefinition { rebuy: Some(rebuy(below)), profile: RuleProfile::SvenskaSpel2012, ..sample() };
        assert_eq!(svenska.validate().unwrap_err().field, "rebuy");
        let cases = [
            RebuyTerms { chips: 0, ..rebuy(RebuyCondition::AtZero) },
            RebuyTerms { max_per_entry: 0, ..rebuy(RebuyCondition::AtZero) },
            RebuyTerms { offer_seconds: 0, ..rebuy(RebuyCondition::AtZero) },
            RebuyTerms { price: Money::new(10_000, Currency::parse("SEK").unwrap()), ..rebuy(RebuyCondition::AtZero) },
        ];
        for terms in cases {
            let def = TournamentDefinition { rebuy: Some(terms), ..sample() };
            assert_eq!(def.validate().map_err(|e| (e.code, e.field)), Err((codes::INVALID_DEFINITION, "rebuy")), "{terms:?}");
        }
        let add_on = AddOnTerms { price: Money::new(10_000, Currency::EUR), fee: Money::new(0, Currency::EUR), chips: 0 };
        assert_eq!(TournamentDefinition { add_on: Some(add_on), ..sample() }.validate().unwrap_err().field, "add_on");
    }

    #[test]
    fn a_fixed_payout_table_pays_the_whole_pool_top_place_first_to_places_that_exist() {
        let table = |shares: &[u32]| TournamentDefinition { payout_table: Some(FixedPayouts { shares_bps: shares.to_vec() }), ..sample() };
        assert_eq!(table(&[5_000, 3_000, 2_000]).validate(), Ok(()));
        for (case, shares) in [
            ("sums to 95 %", &[5_000, 2_500, 2_000][..]),
            ("sums to 105 %", &[5_500, 3_000, 2_000][..]),
            ("second above first", &[3_000, 5_000, 2_000][..]),
            ("no place", &[][..]),
            ("more places than min_players (10)", &[1_000; 10].iter().copied().chain([0]).collect::<Vec<_>>()[..]),
        ] {
            let err = table(shares).validate().unwrap_err();
            assert_eq!((err.code, err.field), (codes::INVALID_DEFINITION, "payout_table"), "{case}: {err}");
        }
        // Rounding down leaves cents: they go to first place, so the table pays exactly the pool.
        let thirds = FixedPayouts { shares_bps: vec![3_334, 3_333, 3_333] };
        assert_eq!(thirds.amounts(100), vec![34, 33, 33]);
        assert_eq!(thirds.amounts(1_001).iter().sum::<u64>(), 1_001);
        assert_eq!(thirds.amounts(1_001), vec![335, 333, 333]);
    }

    #[test]
    fn bounty_terms_are_checked_where_the_definition_is() {
        use crate::bounties::{EnvelopeTier, MysteryStage};
        let with = |bounty| TournamentDefinition { bounty: Some(bounty), ..sample() };
        assert_eq!(with(BountyTerms::Progressive { share_bps: 5_000, cash_share_bps: 5_000 }).validate(), Ok(()));
        let refused = |def: TournamentDefinition| def.validate().map_err(|e| (e.code, e.field)).unwrap_err();
        assert_eq!(refused(with(BountyTerms::Knockout { share_bps: 900 })), (codes::BOUNTY_SHARE_OUT_OF_RANGE, "bounty"));
        assert_eq!(
            refused(with(BountyTerms::Progressive { share_bps: 5_000, cash_share_bps: 8_000 })),
            (codes::BOUNTY_SHARE_OUT_OF_RANGE, "bounty")
        );
        let short = BountyTerms::Mystery {
            share_bps: 5_000,
            envelopes: vec![EnvelopeTier { share_bps: 3_000, count: 3 }],
            stage: MysteryStage::InTheMoney,
        };
        assert_eq!(refused(with(short)), (codes::MYSTERY_VALUES_DO_NOT_SUM, "bounty"));
        // Every definition written before bounties still reads: the field is optional.
        let json = serde_json::to_value(sample()).unwrap();
        let mut old = json.as_object().unwrap().clone();
        old.remove("bounty");
        assert_eq!(serde_json::from_value::<TournamentDefinition>(old.into()).unwrap(), sample());
    }
}
