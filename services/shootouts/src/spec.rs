//! The shootout decider and policy, case by case (the rulebooks' own) and by property.
//!
//! 004 §4.36.3: "Například turnaj typu Double Shootout může začít s osmi (8) plnými hracími
//! stoly, dohromady tedy s šedesáti čtyřmi (64) Sázejícími v prvním kole. Každý z těchto
//! hracích stolů bude hrát až do určení jednoho vítěze a osm (8) vítězů se přesune k finálovému
//! hracímu stolu, kde se bude hrát až do určení jednoho konečného vítěze." (a double shootout
//! may start with eight full tables, 64 players; each table plays to one winner and the eight
//! winners move to the final table, played to one final winner.)

use crate::domain::{ShootoutAggregate, ShootoutCommand as C, ShootoutState};
use crate::policy::{complete_id, start_id, Memory, Policy};
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::registration::{EntryKind, EntryRegistered, EntryUnregistered, StartCause, TournamentEvent, TournamentStarted};
use floor_events::seating::{DrawnTable, SeatedEntry, SeatingEvent};
use floor_events::shootouts::{RoundCompleted, RoundStarted, ShootoutEvent as E, ShootoutTerms};
use floor_events::table::SeatNo;
use floor_events::tournament::{EntryLedger, TournamentDefinition};
use floor_events::{codes, Currency, EntryNo, Money, PlayerId, TournamentId};
use floor_runtime::spec::given;
use proptest::prelude::*;
use uuid::Uuid;

fn t0() -> DateTime<Utc> {
    "2026-12-06T18:00:00Z".parse().unwrap()
}

fn secs(s: i64) -> DateTime<Utc> {
    t0() + Duration::seconds(s)
}

fn shootout() -> TournamentId {
    TournamentId(Uuid::from_u128(0x5400_0000_0000_7000_8000_0000_0000_0001))
}

fn entries(range: std::ops::RangeInclusive<u32>) -> Vec<EntryNo> {
    range.map(EntryNo).collect()
}

fn started(round: u32, entries: Vec<EntryNo>) -> E {
    E::RoundStarted(RoundStarted { round, entries, at: t0() })
}

fn completed(round: u32, advancing: Vec<EntryNo>) -> E {
    E::RoundCompleted(RoundCompleted { round, advancing, at: t0() })
}

fn start(round: u32, entries: Vec<EntryNo>) -> C {
    C::StartRound { round, entries, at: t0() }
}

fn complete(round: u32, advancing: Vec<EntryNo>) -> C {
    C::CompleteRound { round, advancing, at: t0() }
}

/// The winner of each of the first round's eight tables of eight: the first seat's entry.
fn eight_winners() -> Vec<EntryNo> {
    (0..8).map(|t| EntryNo(t * 8 + 1)).collect()
}

// ---- the aggregate ----

#[test]
fn a_64_player_double_shootout_starts_with_its_field_and_its_final_table_with_the_eight_table_winners() {
    given::<ShootoutAggregate>(vec![]).when(start(1, entries(1..=64))).then(vec![started(1, entries(1..=64))]);
    given::<ShootoutAggregate>(vec![started(1, entries(1..=64))])
        .when(complete(1, eight_winners()))
        .then(vec![completed(1, eight_winners())]);
    let first_round = vec![started(1, entries(1..=64)), completed(1, eight_winners())];
    given::<ShootoutAggregate>(first_round.clone()).when(start(2, eight_winners())).then(vec![started(2, eight_winners())]);
    let the_final = [first_round, vec![started(2, eight_winners())]].concat();
    given::<ShootoutAggregate>(the_final.clone()).when(complete(2, vec![EntryNo(17)])).then(vec![completed(2, vec![EntryNo(17)])]);
    // One winner: nothing follows.
    let over = [the_final, vec![completed(2, vec![EntryNo(17)])]].concat();
    given::<ShootoutAggregate>(over).when(start(3, vec![EntryNo(17), EntryNo(25)])).then_reject(codes::CONFLICT);
}

#[test]
fn a_round_is_held_until_it_is_complete() {
    given::<ShootoutAggregate>(vec![started(1, entries(1..=64))]).when(start(2, eight_winners())).then_reject(codes::CONFLICT);
    given::<ShootoutAggregate>(vec![]).when(complete(1, eight_winners())).then_reject(codes::CONFLICT);
    given::<ShootoutAggregate>(vec![]).when(start(2, eight_winners())).then_reject(codes::CONFLICT);
}

#[test]
fn the_next_round_is_exactly_the_winners_of_the_round_before() {
    let first_round = vec![started(1, entries(1..=64)), completed(1, eight_winners())];
    let mut other = eight_winners();
    other[0] = EntryNo(2);
    given::<ShootoutAggregate>(first_round).when(start(2, other)).then_reject(codes::UNKNOWN_ENTRY);
    given::<ShootoutAggregate>(vec![started(1, entries(1..=8))]).when(complete(1, vec![EntryNo(9)])).then_reject(codes::UNKNOWN_ENTRY);
    given::<ShootoutAggregate>(vec![started(1, entries(1..=8))]).when(complete(1, entries(1..=8))).then_reject(codes::INVALID_FIELD);
    given::<ShootoutAggregate>(vec![started(1, entries(1..=8))]).when(complete(1, vec![])).then_reject(codes::INVALID_FIELD);
    given::<ShootoutAggregate>(vec![]).when(start(1, vec![EntryNo(1), EntryNo(1)])).then_reject(codes::TOO_FEW_ENTRIES);
}

/// "advance: 2": two winners per table go on; the entries are kept sorted, each once.
#[test]
fn advance_two_completes_a_round_with_two_per_table() {
    let winners = vec![EntryNo(9), EntryNo(1), EntryNo(4), EntryNo(12)];
    let mut sorted = winners.clone();
    sorted.sort();
    given::<ShootoutAggregate>(vec![started(1, entries(1..=12))]).when(complete(1, winners)).then(vec![completed(1, sorted)]);
}

/// A round's start or completion told again (a restart) records nothing; told otherwise, it is
/// refused.
#[test]
fn a_round_told_again_records_nothing_and_told_otherwise_is_refused() {
    let first_round = vec![started(1, entries(1..=64)), completed(1, eight_winners())];
    given::<ShootoutAggregate>(first_round.clone()).when(start(1, entries(1..=64))).then(vec![]);
    given::<ShootoutAggregate>(first_round.clone()).when(complete(1, eight_winners())).then(vec![]);
    given::<ShootoutAggregate>(first_round.clone()).when(start(1, entries(1..=63))).then_reject(codes::CONFLICT);
    given::<ShootoutAggregate>(first_round).when(complete(1, vec![EntryNo(1)])).then_reject(codes::CONFLICT);
}

// ---- the policy ----

fn definition(shootout: Option<ShootoutTerms>, table_size: u8) -> TournamentDefinition {
    TournamentDefinition { table_size, shootout, ..TournamentDefinition::example() }
}

fn terms(advance: u32) -> ShootoutTerms {
    ShootoutTerms::new(advance)
}

fn created(definition: TournamentDefinition) -> TournamentEvent {
    TournamentEvent::TournamentCreated(floor_events::registration::TournamentCreated { tournament_id: shootout(), definition, at: t0() })
}

fn registered(entry: u32) -> TournamentEvent {
    let zero = Money::zero(Currency::EUR);
    TournamentEvent::EntryRegistered(EntryRegistered {
        entry: EntryNo(entry),
        player: PlayerId::parse(&format!("p{entry}")).unwrap(),
        kind: EntryKind::Registration,
        new_player: true,
        ledger: EntryLedger { paid_in: zero, fee: zero, prize_pool: zero },
        at: t0(),
        ticket: None,
    })
}

fn unregistered(entry: u32) -> TournamentEvent {
    let zero = Money::zero(Currency::EUR);
    TournamentEvent::EntryUnregistered(EntryUnregistered {
        entry: EntryNo(entry),
        player: PlayerId::parse(&format!("p{entry}")).unwrap(),
        refund: EntryLedger { paid_in: zero, fee: zero, prize_pool: zero },
        by_operator: false,
        player_left: true,
        at: t0(),
    })
}

fn tournament_started() -> TournamentEvent {
    TournamentEvent::TournamentStarted(TournamentStarted { entries: 0, cause: StartCause::Scheduled, at: t0() })
}

/// Tables of the given sizes, numbered from `first`, entries dealt in order.
fn drawn(first: u32, sizes: &[u32], from_entry: u32) -> Vec<DrawnTable> {
    let mut entry = from_entry;
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| DrawnTable {
            table: first + i as u32,
            seats: (0..size)
                .map(|s| {
                    entry += 1;
                    SeatedEntry { seat: SeatNo(s as u8 + 1), entry: EntryNo(entry - 1) }
                })
                .collect(),
        })
        .collect()
}

fn tables_drawn(sizes: &[u32]) -> SeatingEvent {
    SeatingEvent::TablesDrawn { seed: "00".into(), total_tables: sizes.len() as u32, tables: drawn(1, sizes, 1), at: t0() }
}

fn won(round: u32, table: u32, winners: &[u32]) -> SeatingEvent {
    SeatingEvent::TableWon { round, table, winners: winners.iter().copied().map(EntryNo).collect() }
}

/// A shootout created and `field` entries registered.
fn registered_field(advance: u32, table_size: u8, field: u32) -> Policy {
    let mut policy = Policy::default();
    let mut events = vec![created(definition(Some(terms(advance)), table_size))];
    events.extend((1..=field).map(registered));
    assert!(policy.on_tournament(shootout(), &events).is_empty());
    policy
}

#[test]
fn the_policy_plays_a_64_player_double_shootout_round_by_round() {
    let t = shootout();
    let mut policy = registered_field(1, 8, 64);
    assert_eq!(
        policy.on_tournament(t, &[tournament_started()]),
        vec![(t, start_id(t, 1), C::StartRound { round: 1, entries: entries(1..=64), at: t0() })]
    );
    assert!(policy.on_seating(t, secs(1), &[tables_drawn(&[8; 8])]).is_empty());
    for table in 1..=7 {
        let winner = (table - 1) * 8 + 1;
        assert!(policy.on_seating(t, secs(10), &[won(1, table, &[winner])]).is_empty(), "table {table} of 8: the round waits");
    }
    let orders = policy.on_seating(t, secs(20), &[won(1, 8, &[57])]);
    assert_eq!(
        orders,
        vec![
            (t, complete_id(t, 1), C::CompleteRound { round: 1, advancing: eight_winners(), at: secs(20) }),
            (t, start_id(t, 2), C::StartRound { round: 2, entries: eight_winners(), at: secs(20) }),
        ]
    );
    let final_table = SeatingEvent::RoundDrawn { round: 2, seed: "01".into(), tables: drawn(9, &[8], 1), at: secs(21) };
    assert!(policy.on_seating(t, secs(21), &[final_table]).is_empty());
    assert_eq!(
        policy.on_seating(t, secs(30), &[won(2, 9, &[17])]),
        vec![(t, complete_id(t, 2), C::CompleteRound { round: 2, advancing: vec![EntryNo(17)], at: secs(30) })],
        "the final table is the last round: no round 3"
    );
}

/// 004 §4.36.3: "Pokud nebude Shootout plně obsazen, některé hrací stoly v prvním kole mohou
/// mít více Sázejících než jiné." 20 players on 9-max: tables of 7, 7 and 6, one unregistered
/// before the start is not in the round.
#[test]
fn uneven_first_round_tables_complete_when_each_has_its_winner() {
    let t = shootout();
    let mut policy = registered_field(1, 9, 21);
    assert!(policy.on_tournament(t, &[unregistered(21)]).is_empty());
    let orders = policy.on_tournament(t, &[tournament_started()]);
    assert_eq!(orders, vec![(t, start_id(t, 1), C::StartRound { round: 1, entries: entries(1..=20), at: t0() })]);
    assert!(policy.on_seating(t, secs(1), &[tables_drawn(&[7, 7, 6])]).is_empty());
    assert!(policy.on_seating(t, secs(2), &[won(1, 3, &[20])]).is_empty());
    assert!(policy.on_seating(t, secs(3), &[won(1, 1, &[2])]).is_empty());
    let orders = policy.on_seating(t, secs(4), &[won(1, 2, &[9])]);
    let advancing = vec![EntryNo(2), EntryNo(9), EntryNo(20)];
    assert_eq!(orders[0], (t, complete_id(t, 1), C::CompleteRound { round: 1, advancing: advancing.clone(), at: secs(4) }));
    assert_eq!(orders[1], (t, start_id(t, 2), C::StartRound { round: 2, entries: advancing, at: secs(4) }));
}

/// A round is held until its last table finishes: a table's win told twice does not count
/// twice, and a round completes once.
#[test]
fn a_round_waits_for_its_last_table_and_completes_once() {
    let t = shootout();
    let mut policy = registered_field(1, 9, 18);
    policy.on_tournament(t, &[tournament_started()]);
    policy.on_seating(t, secs(1), &[tables_drawn(&[9, 9])]);
    assert!(policy.on_seating(t, secs(2), &[won(1, 1, &[3])]).is_empty());
    assert!(policy.on_seating(t, secs(3), &[won(1, 1, &[3])]).is_empty(), "the same table again: still waiting for table 2");
    assert_eq!(policy.on_seating(t, secs(4), &[won(1, 2, &[12])]).len(), 2);
    assert!(policy.on_seating(t, secs(5), &[won(1, 2, &[12])]).is_empty(), "completed once");
}

/// "advance: 2": both of each table's winners go on.
#[test]
fn advance_two_takes_both_of_each_table_s_winners_on() {
    let t = shootout();
    let mut policy = registered_field(2, 6, 24);
    policy.on_tournament(t, &[tournament_started()]);
    policy.on_seating(t, secs(1), &[tables_drawn(&[6, 6, 6, 6])]);
    for (table, pair) in [(1, [1, 2]), (2, [7, 11]), (3, [13, 18])] {
        assert!(policy.on_seating(t, secs(2), &[won(1, table, &pair)]).is_empty());
    }
    let orders = policy.on_seating(t, secs(3), &[won(1, 4, &[24, 19])]);
    let advancing: Vec<EntryNo> = [1, 2, 7, 11, 13, 18, 19, 24].map(EntryNo).to_vec();
    assert_eq!(orders[1], (t, start_id(t, 2), C::StartRound { round: 2, entries: advancing, at: secs(3) }));
}

/// A tournament that is no shootout causes nothing.
#[test]
fn a_tournament_that_is_no_shootout_causes_nothing() {
    let t = shootout();
    let mut policy = Policy::default();
    let mut events = vec![created(definition(None, 9))];
    events.extend((1..=18).map(registered));
    events.push(tournament_started());
    assert!(policy.on_tournament(t, &events).is_empty());
    assert!(policy.on_seating(t, secs(1), &[tables_drawn(&[9, 9]), won(1, 1, &[1]), won(1, 2, &[10])]).is_empty());
    assert!(policy.shootout(t).is_none());
}

/// The log read again from the start (a restart with no snapshot) orders the same commands
/// with the same ids: the aggregate answers them from its history, so the next round is formed
/// once.
#[test]
fn a_restart_orders_the_same_rounds_with_the_same_ids() {
    let t = shootout();
    let run = || {
        let mut policy = registered_field(1, 3, 6);
        let mut orders = policy.on_tournament(t, &[tournament_started()]);
        orders.extend(policy.on_seating(t, secs(1), &[tables_drawn(&[3, 3])]));
        orders.extend(policy.on_seating(t, secs(2), &[won(1, 1, &[2])]));
        orders.extend(policy.on_seating(t, secs(3), &[won(1, 2, &[5])]));
        orders
    };
    let (first, again) = (run(), run());
    assert_eq!(first, again);
    assert_eq!(first.iter().map(|o| o.1).collect::<Vec<_>>(), vec![start_id(t, 1), complete_id(t, 1), start_id(t, 2)]);
    // The aggregate, told round 2 again, records nothing.
    let mut state = ShootoutState::default();
    for (_, _, command) in &first {
        for e in ShootoutAggregate::handle_command(&state, command.clone()).unwrap() {
            state = ShootoutAggregate::apply_event(state, e);
        }
    }
    assert_eq!(ShootoutAggregate::handle_command(&state, first[2].2.clone()), Ok(vec![]));
    assert_eq!(state.rounds.len(), 2);
}

/// The bracket folds the aggregate's events.
#[test]
fn the_bracket_shows_each_round_with_its_entries_and_winners() {
    let mut memory = Memory::default();
    memory.brackets.apply(shootout(), &[started(1, entries(1..=6)), completed(1, vec![EntryNo(2), EntryNo(5)])]);
    memory.brackets.apply(shootout(), &[started(2, vec![EntryNo(2), EntryNo(5)])]);
    let bracket = memory.brackets.bracket(shootout()).unwrap();
    assert_eq!(bracket.rounds.len(), 2);
    assert_eq!(bracket.rounds[0].advancing, Some(vec![EntryNo(2), EntryNo(5)]));
    assert_eq!(bracket.rounds[1].entries, vec![EntryNo(2), EntryNo(5)]);
    assert_eq!(bracket.rounds[1].advancing, None);
}

fn command() -> impl Strategy<Value = C> {
    let entries = proptest::collection::vec(1u32..40, 0..12).prop_map(|v| v.into_iter().map(EntryNo).collect::<Vec<_>>());
    prop_oneof![
        (0u32..5, entries.clone()).prop_map(|(round, entries)| start(round, entries)),
        (0u32..5, entries).prop_map(|(round, advancing)| complete(round, advancing)),
    ]
}

proptest! {
    /// Random commands never panic, rounds stay in order (each started round after the first
    /// names the winners of the one before), and the state replays from its events.
    #[test]
    fn random_commands_keep_rounds_in_order_and_replay_to_the_same_state(commands in proptest::collection::vec(command(), 0..40)) {
        let mut state = ShootoutState::default();
        let mut log = Vec::new();
        for c in commands {
            if let Ok(events) = ShootoutAggregate::handle_command(&state, c) {
                for e in events {
                    state = ShootoutAggregate::apply_event(state, e.clone());
                    log.push(e);
                }
            }
        }
        for (i, pair) in state.rounds.windows(2).enumerate() {
            prop_assert_eq!(pair[0].round as usize, i + 1);
            prop_assert_eq!(pair[0].advancing.as_ref(), Some(&pair[1].entries));
        }
        let replayed = log.into_iter().fold(ShootoutState::default(), ShootoutAggregate::apply_event);
        prop_assert_eq!(replayed, state);
    }
}

// ---- a field that does not fill the tables, scheduled rounds (issue 37) ----

/// `short_field = "byes"`: 20 players at 9-max, two full tables and two byes (seating's
/// `byes_drawn`): round 1 completes with the two table winners and the two byes, who start
/// round 2 together; one table with byes is not the last round.
#[test]
fn byes_advance_with_the_table_winners() {
    let t = shootout();
    let mut policy = registered_field(1, 9, 20);
    policy.on_tournament(t, &[tournament_started()]);
    let byes = SeatingEvent::ByesDrawn { entries: vec![EntryNo(19), EntryNo(20)] };
    assert!(policy.on_seating(t, secs(1), &[byes, tables_drawn(&[9, 9])]).is_empty());
    assert!(policy.on_seating(t, secs(2), &[won(1, 1, &[4])]).is_empty());
    let orders = policy.on_seating(t, secs(3), &[won(1, 2, &[11])]);
    let advancing = vec![EntryNo(4), EntryNo(11), EntryNo(19), EntryNo(20)];
    assert_eq!(
        orders,
        vec![
            (t, complete_id(t, 1), C::CompleteRound { round: 1, advancing: advancing.clone(), at: secs(3) }),
            (t, start_id(t, 2), C::StartRound { round: 2, entries: advancing, at: secs(3) }),
        ]
    );

    // 12 at 9-max: one table of nine and three byes; its winner and the byes play round 2.
    let mut policy = registered_field(1, 9, 12);
    policy.on_tournament(t, &[tournament_started()]);
    let byes = SeatingEvent::ByesDrawn { entries: vec![EntryNo(10), EntryNo(11), EntryNo(12)] };
    policy.on_seating(t, secs(1), &[byes, tables_drawn(&[9])]);
    let orders = policy.on_seating(t, secs(2), &[won(1, 1, &[5])]);
    assert_eq!(orders.len(), 2, "one table and byes: a round 2 follows: {orders:?}");
}

/// Scheduled rounds (a round a day): round 2's draw waits for both the last table of round 1
/// and round 2's start. Completed early, the round is held; asked before its start, nothing is
/// due; at its start it starts (with its start time), again until its `round_started` is read
/// (the same id: stored once). Completed after its start, it starts at once.
#[test]
fn a_scheduled_round_waits_for_its_last_table_and_its_start() {
    let t = shootout();
    let day_two = secs(86_400);
    let scheduled = ShootoutTerms { round_starts: vec![day_two], ..terms(1) };
    let mut policy = Policy::default();
    let mut events = vec![created(definition(Some(scheduled), 9))];
    events.extend((1..=18).map(registered));
    policy.on_tournament(t, &events);
    policy.on_tournament(t, &[tournament_started()]);
    policy.on_seating(t, secs(1), &[tables_drawn(&[9, 9])]);
    assert!(policy.due(day_two).is_empty(), "round 1 is still played: nothing is held");
    assert!(policy.on_seating(t, secs(2), &[won(1, 1, &[3])]).is_empty());
    let orders = policy.on_seating(t, secs(3_600), &[won(1, 2, &[12])]);
    let advancing = vec![EntryNo(3), EntryNo(12)];
    assert_eq!(
        orders,
        vec![(t, complete_id(t, 1), C::CompleteRound { round: 1, advancing: advancing.clone(), at: secs(3_600) })],
        "complete, but round 2 waits for its start"
    );
    assert_eq!(policy.next_due(), Some(day_two));
    assert!(policy.due(day_two - Duration::seconds(1)).is_empty());
    let start = (t, start_id(t, 2), C::StartRound { round: 2, entries: advancing.clone(), at: day_two });
    assert_eq!(policy.due(day_two), vec![start.clone()]);
    assert_eq!(policy.due(day_two + Duration::seconds(5)), vec![start], "until its start is read");
    policy.on_shootout(t, &[started(2, advancing.clone())]);
    assert!(policy.due(day_two + Duration::seconds(6)).is_empty());
    assert_eq!(policy.next_due(), None);

    // Round 1 finished after round 2's start: round 2 starts at once.
    let late = ShootoutTerms { round_starts: vec![secs(60)], ..terms(1) };
    let mut policy = Policy::default();
    let mut events = vec![created(definition(Some(late), 9))];
    events.extend((1..=18).map(registered));
    policy.on_tournament(t, &events);
    policy.on_tournament(t, &[tournament_started()]);
    policy.on_seating(t, secs(1), &[tables_drawn(&[9, 9])]);
    policy.on_seating(t, secs(2), &[won(1, 1, &[3])]);
    let orders = policy.on_seating(t, secs(3_600), &[won(1, 2, &[12])]);
    assert_eq!(orders[1], (t, start_id(t, 2), C::StartRound { round: 2, entries: advancing, at: secs(3_600) }));
}

/// The definition states the short field and the schedule before registration: round starts
/// out of order, or round 2 before the shootout's own start, are refused; trimming a sit & go
/// whose seats do not fill whole tables is refused (its field is its capacity).
#[test]
fn a_schedule_out_of_order_or_a_trimmed_sit_and_go_is_refused() {
    use floor_events::shootouts::ShortField;
    use floor_events::tournament::Start;
    let at = |s| Start::At(secs(s));
    let with = |terms: ShootoutTerms, start| TournamentDefinition { start, capacity: 81, min_players: 2, ..definition(Some(terms), 9) };
    let backwards = ShootoutTerms { round_starts: vec![secs(200_000), secs(100_000)], ..terms(1) };
    assert_eq!(with(backwards, at(0)).validate().map_err(|e| e.field), Err("shootout"));
    let early = ShootoutTerms { round_starts: vec![secs(10)], ..terms(1) };
    assert_eq!(with(early, at(20)).validate().map_err(|e| e.field), Err("shootout"));
    let daily = ShootoutTerms { round_starts: vec![secs(86_400), secs(172_800)], ..terms(1) };
    assert_eq!(with(daily, at(0)).validate(), Ok(()));
    let trim = ShootoutTerms { short_field: ShortField::Trim, ..terms(1) };
    let sit_and_go = |capacity| TournamentDefinition { capacity, min_players: capacity, ..with(trim.clone(), Start::SitAndGo) };
    assert_eq!(sit_and_go(20).validate().map_err(|e| e.field), Err("shootout"));
    assert_eq!(sit_and_go(18).validate(), Ok(()));
}

proptest! {
    /// Every entrant either plays, has a bye, or is refunded (issue 37): for any field and
    /// table size, the three ways of a short field account for every entry, and the first
    /// round's tables are full but for `uneven`.
    #[test]
    fn every_entrant_plays_has_a_bye_or_is_refunded(field in 2u32..2_000, table_size in 2u8..=10) {
        use floor_events::shootouts::{byes, rounds, trimmed, ShortField};
        let size = u32::from(table_size);
        for short in [ShortField::Uneven, ShortField::Byes, ShortField::Trim] {
            let (bye, refunded) = match short {
                ShortField::Uneven => (0, 0),
                ShortField::Byes => (byes(field, table_size), 0),
                ShortField::Trim => (0, trimmed(field, table_size)),
            };
            let playing = field - bye - refunded;
            prop_assert_eq!(playing + bye + refunded, field);
            if short != ShortField::Uneven && field >= size {
                prop_assert_eq!(playing % size, 0, "full first-round tables");
            }
            let plan = rounds(field, table_size, short);
            prop_assert_eq!(plan[0], field - refunded);
            prop_assert!(plan.windows(2).all(|w| w[1] < w[0]), "every round smaller: {:?}", plan);
            prop_assert!(*plan.last().unwrap() <= size.max(2));
        }
    }
}

/// 003 App. 1 b ii: "Pozdní registrace na turnaje typu shootout nejsou možné" (no late
/// registration for shootouts); 004 §4.36.3's shootouts have no rebuys either: a definition
/// with either is refused at creation, naming the shootout section.
#[test]
fn a_shootout_with_late_registration_or_rebuys_is_refused() {
    let base = definition(Some(terms(1)), 9);
    assert_eq!(base.validate(), Ok(()));
    let start = match base.start {
        floor_events::tournament::Start::At(at) => at,
        _ => unreachable!("the example is scheduled"),
    };
    let late = TournamentDefinition { late_registration_until: Some(start + Duration::hours(1)), ..base.clone() };
    assert_eq!(late.validate().map_err(|e| (e.code, e.field)), Err((codes::INVALID_DEFINITION, "shootout")));
    let rebuy: floor_events::tournament::RebuyTerms = serde_json::from_value(serde_json::json!({
        "price": {"amount": 1_000, "currency": "EUR"}, "fee": {"amount": 0, "currency": "EUR"}, "chips": 1_000, "max_per_entry": 1
    }))
    .unwrap();
    let rebuys = TournamentDefinition { rebuy: Some(rebuy), ..base };
    assert_eq!(rebuys.validate().map_err(|e| e.field), Err("shootout"));
}
