//! The tournament decider against anything a stranger can send (issue 17): random command
//! sequences with extreme values (`u64::MAX`, zero, huge and empty text, control characters,
//! reused players and entry numbers, starts in the past) never panic, a rejection changes
//! nothing, every accepted sequence replays through `apply_event` to the same state, and the
//! money of every accepted entry adds up without wrapping. With suspensions and resumes among
//! the commands (issue 35), no entry is bought or withdrawn by its player while suspended.
//! Satellites (issue 36) among the definitions and ticket registrations among the commands: a
//! tournament finishes once, and a satellite's stop is shared by exactly the entries left.

use crate::domain::{EntryStatus, TargetFacts, TournamentAggregate, TournamentCommand as C, TournamentState};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::money::{MAX_AMOUNT, MAX_TOTAL};
use floor_events::registration::{RegistrationCloseCause, TournamentEvent};
use floor_events::satellites::{SatelliteTerms, TicketRef};
use floor_events::tournament::{AddOnTerms, EntryModel, Fee, RebuyCondition, RebuyTerms, Start, TournamentDefinition};
use floor_events::{Currency, EntryNo, Money, PlayerId, TournamentId};
use proptest::prelude::*;

fn created_at() -> DateTime<Utc> {
    "2026-12-01T12:00:00Z".parse().expect("instant")
}

// Strategies are boxed: nested unboxed ones overflow a test thread's stack in debug builds.
// Extremes and everyday values are mixed so that many sequences get past the creation.

fn amount() -> BoxedStrategy<u64> {
    prop_oneof![
        1 => prop_oneof![Just(0), Just(1), Just(MAX_AMOUNT), Just(MAX_AMOUNT + 1), Just(i64::MAX as u64), Just(u64::MAX)],
        4 => 0u64..100_000,
    ]
    .boxed()
}

fn count() -> BoxedStrategy<u32> {
    prop_oneof![1 => prop_oneof![Just(0), Just(1), Just(u32::MAX)], 4 => 2u32..12].boxed()
}

fn text() -> BoxedStrategy<String> {
    prop_oneof![
        1 => prop_oneof![
            Just(String::new()),
            Just("   ".to_owned()),
            Just("x".repeat(10_000)),
            Just("line\nbreak".to_owned()),
            Just("\u{1b}[2Jcleared".to_owned()),
        ],
        3 => "[a-z][a-z ]{0,20}",
    ]
    .boxed()
}

/// An instant relative to the creation, from long before to the end of time.
fn instant() -> BoxedStrategy<DateTime<Utc>> {
    prop_oneof![
        1 => prop_oneof![
            Just(DateTime::<Utc>::MIN_UTC),
            Just(created_at() - Duration::hours(1)),
            Just(created_at()),
            Just(DateTime::<Utc>::MAX_UTC),
        ],
        4 => (0i64..10 * 24 * 60).prop_map(|m| created_at() + Duration::minutes(m)),
    ]
    .boxed()
}

fn eur(amount: u64) -> Money {
    Money::new(amount, Currency::EUR)
}

/// One extreme change to an everyday definition.
#[derive(Debug, Clone)]
enum Twist {
    Name(String),
    Start(Option<DateTime<Utc>>),
    StartingStack(u64),
    BuyIn(u64),
    Fee(Fee),
    Capacity(u32),
    MinPlayers(u32),
    Model(EntryModel),
    Guarantee(u64),
    Rebuy(u64, u64, u64, u32),
    AddOn(u64, u64, u64),
    Late(Option<DateTime<Utc>>),
    Satellite(u64),
}

fn twist() -> BoxedStrategy<Twist> {
    prop_oneof![
        text().prop_map(Twist::Name),
        prop::option::of(instant()).prop_map(Twist::Start),
        amount().prop_map(Twist::StartingStack),
        amount().prop_map(Twist::BuyIn),
        prop_oneof![
            amount().prop_map(|a| Fee::OnTop(eur(a))),
            prop_oneof![Just(0u32), Just(5_000), Just(10_000), Just(u32::MAX)].prop_map(|basis_points| Fee::ShareOfBuyIn { basis_points }),
        ]
        .prop_map(Twist::Fee),
        count().prop_map(Twist::Capacity),
        count().prop_map(Twist::MinPlayers),
        prop_oneof![
            count().prop_map(|max_entries| EntryModel::ReEntry { max_entries }),
            count().prop_map(|max_live_entries| EntryModel::MultiEntry { max_live_entries }),
        ]
        .prop_map(Twist::Model),
        amount().prop_map(Twist::Guarantee),
        (amount(), amount(), amount(), count()).prop_map(|(p, f, c, n)| Twist::Rebuy(p, f, c, n)),
        (amount(), amount(), amount()).prop_map(|(p, f, c)| Twist::AddOn(p, f, c)),
        prop::option::of(instant()).prop_map(Twist::Late),
        prop_oneof![Just(1_650u64), Just(2_200), Just(3_300), amount()].prop_map(Twist::Satellite),
    ]
    .boxed()
}

/// An everyday definition (starting five days after the creation, late registration for an
/// hour) with up to three extreme changes.
fn definition() -> BoxedStrategy<TournamentDefinition> {
    prop::collection::vec(twist(), 0..4)
        .prop_map(|twists| {
            let start = created_at() + Duration::days(5);
            let mut d = TournamentDefinition {
                name: "Everyday".into(),
                start: Start::At(start),
                capacity: 8,
                late_registration_until: Some(start + Duration::hours(1)),
                ..TournamentDefinition::example()
            };
            for twist in twists {
                match twist {
                    Twist::Name(name) => d.name = name,
                    Twist::Start(start) => d.start = start.map_or(Start::SitAndGo, Start::At),
                    Twist::StartingStack(chips) => d.starting_stack = chips,
                    Twist::BuyIn(amount) => d.buy_in = eur(amount),
                    Twist::Fee(fee) => d.fee = fee,
                    Twist::Capacity(n) => d.capacity = n,
                    Twist::MinPlayers(n) => d.min_players = n,
                    Twist::Model(model) => d.entry_model = model,
                    Twist::Guarantee(amount) => d.guarantee = Some(eur(amount)),
                    Twist::Rebuy(price, fee, chips, max_per_entry) => {
                        let (price, fee) = (eur(price), eur(fee));
                        d.rebuy =
                            Some(RebuyTerms { price, fee, chips, max_per_entry, condition: RebuyCondition::AtZero, offer_seconds: 30 })
                    }
                    Twist::AddOn(price, fee, chips) => d.add_on = Some(AddOnTerms { price: eur(price), fee: eur(fee), chips }),
                    Twist::Late(until) => d.late_registration_until = until,
                    Twist::Satellite(seat_value) => {
                        let target = TournamentId(uuid::Uuid::from_u128(36));
                        let (prize, leftover) = (Default::default(), Default::default());
                        d.satellite = Some(SatelliteTerms { prize, leftover, ..SatelliteTerms::new(target, eur(seat_value)) });
                    }
                }
            }
            d
        })
        .boxed()
}

fn player() -> BoxedStrategy<PlayerId> {
    (0u8..6).prop_map(|n| PlayerId::parse(&format!("p{n}")).expect("player")).boxed()
}

fn entry() -> BoxedStrategy<EntryNo> {
    prop_oneof![Just(0), Just(u32::MAX), 1u32..8].prop_map(EntryNo).boxed()
}

fn command() -> BoxedStrategy<C> {
    prop_oneof![
        1 => (definition(), instant()).prop_map(|(d, at)| C::Create { tournament_id: TournamentId(uuid::Uuid::nil()), definition: Box::new(d), at }),
        6 => (player(), instant()).prop_map(|(player, at)| C::Register { player, at }),
        2 => (player(), prop::option::of(entry()), instant()).prop_map(|(player, entry, at)| C::Unregister { player, entry, at }),
        1 => (player(), text(), instant()).prop_map(|(player, reason, at)| C::RefusePlayer { player, reason, at }),
        1 => (prop::collection::vec(player(), 0..4), instant()).prop_map(|(players, at)| C::KeepApart { players, at }),
        2 => (entry(), instant()).prop_map(|(entry, at)| C::EliminateEntry { entry, at }),
        1 => instant().prop_map(|at| C::Start { at, now: false }),
        1 => (text(), instant()).prop_map(|(reason, at)| C::Cancel { reason, at }),
        1 => instant().prop_map(|at| C::Suspend { at }),
        1 => instant().prop_map(|at| C::Resume { at }),
        1 => instant().prop_map(|at| C::CheckHold { at }),
        1 => instant().prop_map(|at| C::CloseRegistration { cause: RegistrationCloseCause::LateRegistrationLevel, at }),
        2 => (player(), entry(), prop_oneof![Just(1_100u64), amount()], instant()).prop_map(|(player, entry, value, at)| {
            let ticket = TicketRef { satellite: TournamentId(uuid::Uuid::from_u128(7)), entry };
            C::RegisterWithTicket { player, ticket, value: eur(value), at }
        }),
    ]
    .boxed()
}

/// What a state holds, in a form two states can be compared by.
fn summary(state: &TournamentState) -> String {
    let mut refused: Vec<_> = state.refused.iter().collect();
    refused.sort();
    let mut apart: Vec<_> = state.apart.iter().map(|(p, others)| (p, others.clone())).collect();
    apart.sort();
    let mut by_player: Vec<_> = state.by_player.iter().collect();
    by_player.sort();
    let created = state.created.as_ref().map(|c| (c.tournament_id, c.definition.clone(), c.at));
    format!(
        "{created:?} {:?} {by_player:?} {} {refused:?} {apart:?} {} {} {}",
        state.entries, state.counted, state.start_recorded, state.cancelled, state.suspended
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn no_command_sequence_breaks_the_tournament(
        first in (definition(), prop_oneof![4 => Just(created_at()), 1 => instant()]),
        commands in prop::collection::vec(command(), 0..40),
    ) {
        // A satellite is created with its target's facts: open, an entry costing its seat value.
        let create = match first.0.satellite {
            Some(terms) => {
                let start = Start::At(created_at() + Duration::days(30));
                let target = TargetFacts { start, start_recorded: false, cancelled: false, finished: false, paid_in: terms.seat_value };
                C::CreateSatellite { tournament_id: TournamentId(uuid::Uuid::nil()), definition: Box::new(first.0), target: Some(target), at: first.1 }
            }
            None => C::Create { tournament_id: TournamentId(uuid::Uuid::nil()), definition: Box::new(first.0), at: first.1 },
        };
        let mut state = TournamentState::default();
        let mut log = Vec::new();
        for command in std::iter::once(create).chain(commands) {
            let before = summary(&state);
            // Issue 35: while play is suspended no player buys or withdraws an entry.
            let held = state.suspended && matches!(command, C::Register { .. } | C::Unregister { .. });
            match TournamentAggregate::handle_command(&state, command) {
                Err(e) => {
                    prop_assert_eq!(summary(&state), before, "a rejection changes nothing");
                    prop_assert!(e.to_string().len() < 1_000, "an error never echoes a huge value: {} bytes", e.to_string().len());
                }
                Ok(events) => {
                    prop_assert!(!held || events.is_empty(), "an entry bought or withdrawn while suspended: {:?}", events);
                    for event in events {
                        if let TournamentEvent::EntryRegistered(e) = &event {
                            let l = e.ledger;
                            prop_assert_eq!(l.fee.amount.checked_add(l.prize_pool.amount), Some(l.paid_in.amount), "each entry's lines add up");
                        }
                        log.push(event.clone());
                        state = TournamentAggregate::apply_event(state, event);
                    }
                }
            }
        }
        if let Some(created) = &state.created {
            let def = &created.definition;
            prop_assert!(def.validate().is_ok(), "only valid definitions are stored");
            prop_assert!(def.most_money().is_some_and(|m| m <= MAX_TOTAL));
            prop_assert!(state.counted <= def.capacity);
        }
        let kept = state
            .entries
            .iter()
            .filter(|e| e.status != EntryStatus::Unregistered)
            .try_fold(0u64, |sum, e| sum.checked_add(e.ledger.paid_in.amount));
        prop_assert!(kept.is_some_and(|k| k <= MAX_TOTAL), "what the entries paid in all fits: {:?}", kept);
        // Issue 36: a tournament finishes once; a satellite's stop names, winner first and in
        // order, exactly the entries left, and nobody is eliminated after it.
        let finishes: Vec<_> = log.iter().filter_map(|e| match e { TournamentEvent::TournamentFinished(f) => Some(f), _ => None }).collect();
        prop_assert!(finishes.len() <= 1, "finished twice: {:?}", finishes);
        if let Some(stop) = finishes.first().filter(|f| !f.shared_by.is_empty()) {
            let live: Vec<EntryNo> = state.entries.iter().zip(1u32..).filter(|(e, _)| e.status == EntryStatus::Live).map(|(_, n)| EntryNo(n)).collect();
            prop_assert_eq!(stop.shared_by.iter().map(|s| s.entry).collect::<Vec<_>>(), live, "shared by the entries left");
            prop_assert_eq!(stop.winner, stop.shared_by[0].entry);
        }
        let replayed = log.into_iter().fold(TournamentState::default(), TournamentAggregate::apply_event);
        prop_assert_eq!(summary(&replayed), summary(&state), "replaying the log gives the same state");
        let snapshot = serde_json::to_vec(&state).expect("every state a decider allowed encodes");
        let restored: TournamentState = serde_json::from_slice(&snapshot).expect("and decodes");
        prop_assert_eq!(summary(&restored), summary(&state), "a snapshot restores the same state");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// 000 §16.7 (issue 36): a satellite of any size and seat value, its field closed at the
    /// start or at a close of late registration, eliminated in any order: it finishes once, at
    /// the first decision after the close that leaves no more entries than seats, shared by
    /// exactly the entries left (or at the last opponent's elimination, one winner, when the
    /// pool buys no seat or the field is still open); its log replays to the same state.
    #[test]
    fn a_satellite_stops_once_when_no_more_entries_are_left_than_seats(
        entries in 2u32..16,
        seat_value in 1_101u64..20_000,
        guarantee in prop::option::of(0u64..40_000),
        late in any::<bool>(),
        order in Just((1u32..16).collect::<Vec<u32>>()).prop_shuffle(),
        close_after in 0usize..16,
    ) {
        let start = created_at() + Duration::days(5);
        let terms = SatelliteTerms::new(TournamentId(uuid::Uuid::from_u128(36)), eur(seat_value));
        let definition = TournamentDefinition {
            name: "Satellite".into(),
            start: Start::At(start),
            capacity: 20,
            late_registration_until: late.then(|| start + Duration::hours(1)),
            guarantee: guarantee.map(eur),
            satellite: Some(terms),
            ..TournamentDefinition::example()
        };
        let facts = TargetFacts { start: Start::At(start + Duration::days(30)), start_recorded: false, cancelled: false, finished: false, paid_in: eur(seat_value) };
        let mut commands = vec![C::CreateSatellite { tournament_id: TournamentId(uuid::Uuid::nil()), definition: Box::new(definition), target: Some(facts), at: created_at() }];
        commands.extend((0..entries).map(|n| C::Register { player: PlayerId::parse(&format!("p{n}")).expect("player"), at: created_at() }));
        commands.push(C::Start { at: start, now: false });
        let during = start + Duration::minutes(30);
        let mut eliminations: Vec<C> = order.into_iter().filter(|&n| n <= entries).map(|n| C::EliminateEntry { entry: EntryNo(n), at: during }).collect();
        eliminations.insert(close_after.min(eliminations.len()), C::CloseRegistration { cause: RegistrationCloseCause::LateRegistrationLevel, at: during });
        commands.extend(eliminations);

        let pool = u64::from(entries).saturating_mul(1_000).max(guarantee.unwrap_or(0));
        let seats = floor_rules::satellite::seats(pool, seat_value);
        let (mut state, mut log, mut closed) = (TournamentState::default(), Vec::new(), !late);
        for command in commands {
            let was_finished = state.finished;
            let closing = matches!(command, C::CloseRegistration { .. });
            let events = match TournamentAggregate::handle_command(&state, command) {
                Ok(events) => events,
                Err(e) => {
                    prop_assert!(was_finished, "only a finished satellite refuses here: {}", e);
                    continue;
                }
            };
            closed |= closing;
            for event in events {
                log.push(event.clone());
                state = TournamentAggregate::apply_event(state, event);
            }
            let mut live = state.entries.iter().filter(|e| e.status == EntryStatus::Live).count() as u32;
            // Issues 36/37: with two seats or more payouts decides the stop (it ranks the stop's
            // hand) and sends `stop_shared`; here, as payouts would, with the entries left.
            if !state.finished && seats >= 2 && closed && state.start_recorded && live <= seats && live > 0 {
                for event in TournamentAggregate::handle_command(&state, C::StopShared { survivors: live_entries(&state), deal: false, at: during }).expect("payouts' stop") {
                    log.push(event.clone());
                    state = TournamentAggregate::apply_event(state, event);
                }
                live = state.entries.iter().filter(|e| e.status == EntryStatus::Live).count() as u32;
            }
            let stopped = seats > 0 && closed && state.start_recorded && live <= seats;
            if !was_finished && stopped {
                prop_assert!(state.finished, "{} left of {} seats and play goes on", live, seats);
            }
        }
        let finishes: Vec<_> = log.iter().filter_map(|e| match e { TournamentEvent::TournamentFinished(f) => Some(f), _ => None }).collect();
        prop_assert_eq!(finishes.len(), 1, "finished once");
        let live: Vec<EntryNo> = state.entries.iter().zip(1u32..).filter(|(e, _)| e.status == EntryStatus::Live).map(|(_, n)| EntryNo(n)).collect();
        prop_assert_eq!(finishes[0].winner, live[0]);
        // Shared by the entries left, no more than seats; or, below one seat or with the field
        // still open at the last opponent's elimination, one winner as in any tournament.
        if finishes[0].shared_by.is_empty() {
            prop_assert_eq!(live.len(), 1);
        } else {
            prop_assert_eq!(finishes[0].shared_by.iter().map(|s| s.entry).collect::<Vec<_>>(), live.clone());
            prop_assert!(live.len() as u32 <= seats);
        }
        let replayed = log.into_iter().fold(TournamentState::default(), TournamentAggregate::apply_event);
        prop_assert_eq!(summary(&replayed), summary(&state), "replaying the log gives the same state");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// 003 App. 1 b xi, 004 §4.36.16 (issue 37): a double or nothing (or a third wins triple,
    /// …) of any capacity its fraction divides, full at its start, eliminated in any order:
    /// it finishes once, at the elimination that leaves capacity ÷ fraction, shared by exactly
    /// those left; nobody is eliminated after; its log replays to the same state.
    #[test]
    fn a_cut_stops_once_at_capacity_over_fraction(
        share in 1u32..6,
        fraction in 2u32..5,
        order in Just((1u32..=20).collect::<Vec<u32>>()).prop_shuffle(),
    ) {
        let capacity = share * fraction;
        let definition = TournamentDefinition {
            name: "Double or Nothing".into(),
            start: Start::SitAndGo,
            capacity,
            min_players: capacity,
            cut: Some(floor_events::shootouts::CutTerms { fraction }),
            ..TournamentDefinition::example()
        };
        let mut commands = vec![C::Create { tournament_id: TournamentId(uuid::Uuid::nil()), definition: Box::new(definition), at: created_at() }];
        commands.extend((0..capacity).map(|n| C::Register { player: PlayerId::parse(&format!("p{n}")).expect("player"), at: created_at() }));
        let during = created_at() + Duration::minutes(30);
        commands.extend(order.into_iter().filter(|&n| n <= capacity).map(|n| C::EliminateEntry { entry: EntryNo(n), at: during }));
        let (mut state, mut log) = (TournamentState::default(), Vec::new());
        for command in commands {
            let was_finished = state.finished;
            let events = match TournamentAggregate::handle_command(&state, command) {
                Ok(events) => events,
                Err(e) => {
                    prop_assert!(was_finished, "only a stopped game refuses here: {}", e);
                    continue;
                }
            };
            prop_assert!(!was_finished || events.is_empty(), "nothing after the stop: {:?}", events);
            for event in events {
                log.push(event.clone());
                state = TournamentAggregate::apply_event(state, event);
            }
            // Issues 36/37: with two prizes or more payouts stops it (`stop_shared`), as here.
            if !state.finished && share >= 2 && state.start_recorded && live_entries(&state).len() as u32 <= share {
                for event in TournamentAggregate::handle_command(&state, C::StopShared { survivors: live_entries(&state), deal: false, at: during }).expect("payouts' stop") {
                    log.push(event.clone());
                    state = TournamentAggregate::apply_event(state, event);
                }
            }
        }
        let finishes: Vec<_> = log.iter().filter_map(|e| match e { TournamentEvent::TournamentFinished(f) => Some(f), _ => None }).collect();
        prop_assert_eq!(finishes.len(), 1, "finished once");
        let live: Vec<EntryNo> = state.entries.iter().zip(1u32..).filter(|(e, _)| e.status == EntryStatus::Live).map(|(_, n)| EntryNo(n)).collect();
        prop_assert_eq!(live.len() as u32, share, "capacity ÷ fraction left");
        prop_assert_eq!(finishes[0].shared_by.iter().map(|s| s.entry).collect::<Vec<_>>(), live);
        let replayed = log.into_iter().fold(TournamentState::default(), TournamentAggregate::apply_event);
        prop_assert_eq!(summary(&replayed), summary(&state), "replaying the log gives the same state");
    }
}

/// The entries live in `state`, in entry order.
fn live_entries(state: &TournamentState) -> Vec<EntryNo> {
    state.entries.iter().zip(1u32..).filter(|(e, _)| e.status == EntryStatus::Live).map(|(_, n)| EntryNo(n)).collect()
}
