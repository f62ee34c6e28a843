//! The lottery decider, policy and frequencies, case by case and by property.

use crate::domain::{LotteryAggregate, LotteryCommand as C, LotteryState};
use crate::draw::tests::table;
use crate::draw::{self, commitment, counter_seed, hex, unhex, Seed};
use crate::policy::{commit_id, draw_id, Memory, Policy, SeedKey};
use crate::projection::Frequencies;
use chrono::{DateTime, Duration, Utc};
use esrs::Aggregate;
use floor_events::lottery::{DrawCommitted, FrequenciesOf, FrequencyRow, LotteryEvent as E, LotteryTerms, PrizeDrawn};
use floor_events::registration::{
    CancellationReason, StartCause, TournamentCancelled, TournamentCreated, TournamentEvent, TournamentStarted,
};
use floor_events::tournament::{Start, TournamentDefinition};
use floor_events::{codes, CommandId, Currency, Money, Reply, TournamentId};
use floor_runtime::spec::given;
use proptest::prelude::*;
use uuid::Uuid;

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

fn t0() -> DateTime<Utc> {
    "2026-12-06T18:00:00Z".parse().unwrap()
}

fn secs(s: i64) -> DateTime<Utc> {
    t0() + Duration::seconds(s)
}

fn game() -> TournamentId {
    TournamentId(Uuid::from_u128(0x1077_0000_0000_7000_8000_0000_0000_0001))
}

const SEED: Seed = [7; 32];

fn commit(seed: &Seed) -> C {
    C::Commit { version: table().version, commitment: hex(&commitment(seed)), at: t0() }
}

fn committed(seed: &Seed) -> E {
    E::DrawCommitted(DrawCommitted { version: table().version, commitment: hex(&commitment(seed)), at: t0() })
}

fn draw_with(seed: Seed) -> C {
    C::Draw { terms: table(), buy_in: eur(1_000), seed, at: secs(60) }
}

/// The `prize_drawn` the table draws with `seed` at EUR 10.
fn drawn(seed: &Seed) -> E {
    let d = draw::draw(&table(), eur(1_000), seed).unwrap();
    E::PrizeDrawn(PrizeDrawn {
        version: table().version,
        number: d.number,
        multiplier: d.multiplier,
        pool: d.pool,
        prizes: d.prizes,
        seed: hex(seed),
        at: secs(60),
    })
}

#[test]
fn a_game_s_draw_is_committed_once() {
    given::<LotteryAggregate>(vec![]).when(commit(&SEED)).then(vec![committed(&SEED)]);
    // The same commitment again (a replay): nothing more.
    given::<LotteryAggregate>(vec![committed(&SEED)]).when(commit(&SEED)).then(vec![]);
    // Another one: a game has one seed.
    given::<LotteryAggregate>(vec![committed(&SEED)]).when(commit(&[8; 32])).then_reject(codes::SEED_MISMATCH);
    given::<LotteryAggregate>(vec![committed(&SEED), drawn(&SEED)]).when(commit(&[8; 32])).then_reject(codes::SEED_MISMATCH);
}

#[test]
fn a_commitment_is_a_sha256_in_hex_for_a_version_the_table_takes() {
    let with = |commitment: &str| C::Commit { version: table().version, commitment: commitment.into(), at: t0() };
    given::<LotteryAggregate>(vec![]).when(with("")).then_reject(codes::INVALID_FIELD);
    given::<LotteryAggregate>(vec![]).when(with(&"A".repeat(64))).then_reject(codes::INVALID_FIELD);
    given::<LotteryAggregate>(vec![]).when(with(&"a".repeat(63))).then_reject(codes::INVALID_FIELD);
    let long = C::Commit { version: "v".repeat(65), commitment: hex(&commitment(&SEED)), at: t0() };
    given::<LotteryAggregate>(vec![]).when(long).then_reject(codes::TEXT_TOO_LONG);
    let blank = C::Commit { version: String::new(), commitment: hex(&commitment(&SEED)), at: t0() };
    given::<LotteryAggregate>(vec![]).when(blank).then_reject(codes::INVALID_DEFINITION);
}

#[test]
fn the_prize_is_drawn_once_after_the_commitment() {
    given::<LotteryAggregate>(vec![committed(&SEED)]).when(draw_with(SEED)).then(vec![drawn(&SEED)]);
    // Drawn already: the same seed stores nothing (a replay), another is refused.
    given::<LotteryAggregate>(vec![committed(&SEED), drawn(&SEED)]).when(draw_with(SEED)).then(vec![]);
    given::<LotteryAggregate>(vec![committed(&SEED), drawn(&SEED)]).when(draw_with([8; 32])).then_reject(codes::SEED_MISMATCH);
    // No commitment published: no draw.
    given::<LotteryAggregate>(vec![]).when(draw_with(SEED)).then_reject(codes::UNKNOWN_TOURNAMENT);
}

#[test]
fn a_seed_that_does_not_match_the_commitment_is_refused() {
    given::<LotteryAggregate>(vec![committed(&SEED)]).when(draw_with([8; 32])).then_reject(codes::SEED_MISMATCH);
    let mut close = SEED;
    close[31] ^= 1;
    given::<LotteryAggregate>(vec![committed(&SEED)]).when(draw_with(close)).then_reject(codes::SEED_MISMATCH);
}

#[test]
fn a_table_of_another_version_or_that_does_not_sum_to_one_is_refused_at_the_draw() {
    let other = C::Draw { terms: LotteryTerms { version: "spin-2027-1".into(), ..table() }, buy_in: eur(1_000), seed: SEED, at: secs(60) };
    given::<LotteryAggregate>(vec![committed(&SEED)]).when(other).then_reject(codes::INVALID_DEFINITION);
    let mut short = table();
    short.prizes[0].per_million = 0;
    let short = C::Draw { terms: short, buy_in: eur(1_000), seed: SEED, at: secs(60) };
    given::<LotteryAggregate>(vec![committed(&SEED)]).when(short).then_reject(codes::LOTTERY_ODDS_NOT_ONE);
    let huge = C::Draw { terms: table(), buy_in: Money::new(1 << 52, Currency::EUR), seed: SEED, at: secs(60) };
    given::<LotteryAggregate>(vec![committed(&SEED)]).when(huge).then_reject(codes::AMOUNT_TOO_LARGE);
}

/// The audit: from the log alone (the commitment published first, then the draw with its
/// seed) and the published table, anyone checks the seed against the commitment and draws the
/// same number, multiplier, pool and prizes again.
#[test]
fn a_draw_is_reproduced_from_its_revealed_seed() {
    let seed = counter_seed(2026);
    let log = [committed(&seed), given::<LotteryAggregate>(vec![committed(&seed)]).when(draw_with(seed)).accepted().remove(0)];
    let (E::DrawCommitted(c), E::PrizeDrawn(d)) = (&log[0], &log[1]) else { panic!("committed, then drawn: {log:?}") };
    let revealed = unhex(&d.seed).expect("the seed is 32 bytes of hex");
    assert_eq!(hex(&commitment(&revealed)), c.commitment, "SHA-256 of the revealed seed is the commitment");
    let again = draw::draw(&table(), eur(1_000), &revealed).unwrap();
    assert_eq!((again.number, again.multiplier, again.pool, again.prizes.clone()), (d.number, d.multiplier, d.pool, d.prizes.clone()));
    assert_eq!(d.prizes.iter().sum::<u64>(), d.pool.amount);
    assert_eq!(d.pool.amount, u64::from(d.multiplier) * 1_000);
}

/// The method is pinned: a fixed seed draws a fixed number, so a change of the generator (which
/// would make every published draw irreproducible) fails here.
#[test]
fn the_method_is_pinned_by_known_draws() {
    let known: Vec<u32> = [[0u8; 32], [7; 32], counter_seed(0), counter_seed(1)].iter().map(draw::number).collect();
    assert_eq!(known, PINNED);
}

/// Computed again outside Floor (Python's `hashlib`, the module docs' method): the same.
const PINNED: [u32; 4] = [296_104, 911_146, 647_769, 4_685];

fn definition(lottery: Option<LotteryTerms>) -> TournamentDefinition {
    TournamentDefinition {
        start: Start::SitAndGo,
        capacity: 3,
        min_players: 3,
        buy_in: eur(1_000),
        guarantee: None,
        lottery,
        ..TournamentDefinition::example()
    }
}

fn created(t: TournamentId, lottery: Option<LotteryTerms>) -> TournamentEvent {
    TournamentEvent::TournamentCreated(TournamentCreated { tournament_id: t, definition: definition(lottery), at: t0() })
}

fn started() -> TournamentEvent {
    TournamentEvent::TournamentStarted(TournamentStarted { entries: 3, cause: StartCause::LastSeatFilled, at: secs(60) })
}

#[test]
fn the_policy_commits_at_the_creation_and_draws_at_the_start() {
    let mut policy = Policy::default();
    let orders = policy.on_tournament(game(), &[created(game(), Some(table()))]);
    assert_eq!(orders, vec![(game(), commit_id(game()), C::Commit { version: table().version, commitment: String::new(), at: t0() })]);
    assert_eq!(policy.waiting(), 1);
    let orders = policy.on_tournament(game(), &[started()]);
    assert_eq!(orders, vec![(game(), draw_id(game()), C::Draw { terms: table(), buy_in: eur(1_000), seed: [0; 32], at: secs(60) })]);
    assert_eq!(policy.waiting(), 0);
    // Started again (never, but a replay of the log): nothing more.
    assert!(policy.on_tournament(game(), &[started()]).is_empty());
}

#[test]
fn the_policy_leaves_other_tournaments_and_cancelled_games_alone() {
    let mut policy = Policy::default();
    let plain = TournamentId(Uuid::from_u128(2));
    assert!(policy.on_tournament(plain, &[created(plain, None), started()]).is_empty());
    policy.on_tournament(game(), &[created(game(), Some(table()))]);
    let cancelled = TournamentEvent::TournamentCancelled(TournamentCancelled {
        reason: CancellationReason::Director { reason: "no".into() },
        refunds: vec![],
        at: secs(30),
    });
    assert!(policy.on_tournament(game(), &[cancelled]).is_empty());
    assert_eq!(policy.waiting(), 0);
    assert!(policy.on_tournament(game(), &[started()]).is_empty(), "a cancelled game is never drawn");
}

/// The sealed orders, run through the decider, commit and then draw with the key's seed for the
/// game, and the ids are the same on every read of the log.
#[test]
fn sealed_orders_commit_then_draw_with_the_game_s_seed() {
    let key = SeedKey([3; 32]);
    let run = || {
        let mut policy = Policy::default();
        let mut orders = policy.on_tournament(game(), &[created(game(), Some(table()))]);
        orders.extend(policy.on_tournament(game(), &[started()]));
        orders.into_iter().map(|o| key.seal(o)).collect::<Vec<_>>()
    };
    let orders = run();
    assert_eq!(orders, run());
    let mut state = LotteryState::default();
    for (_, _, command) in orders {
        for e in LotteryAggregate::handle_command(&state, command).expect("accepted") {
            state = LotteryAggregate::apply_event(state, e);
        }
    }
    let seed = key.lottery(game());
    assert_eq!(state.committed.unwrap().commitment, hex(&commitment(&seed)));
    assert_eq!(state.drawn.unwrap().seed, hex(&seed));
    assert_ne!(key.lottery(game()), key.lottery(TournamentId(Uuid::from_u128(2))), "each game its own seed");
    assert_ne!(key.lottery(game()), SeedKey([4; 32]).lottery(game()), "each key its own seeds");
}

fn prize_drawn(version: &str, multiplier: u32) -> E {
    E::PrizeDrawn(PrizeDrawn {
        version: version.into(),
        number: 0,
        multiplier,
        pool: eur(1_000 * u64::from(multiplier)),
        prizes: vec![1_000 * u64::from(multiplier)],
        seed: hex(&SEED),
        at: secs(60),
    })
}

#[test]
fn frequencies_count_each_game_s_multiplier_beside_the_published_odds() {
    let mut f = Frequencies::default();
    f.apply_tournament(&[created(game(), Some(table()))]);
    f.apply_lottery(&[committed(&SEED)]);
    f.apply_lottery(&[prize_drawn("spin-2026-1", 2)]);
    f.apply_lottery(&[prize_drawn("spin-2026-1", 2), prize_drawn("spin-2026-1", 25)]);
    // A multiplier the published table does not have is shown, with 0 per million.
    f.apply_lottery(&[prize_drawn("spin-2026-1", 7)]);
    f.apply_lottery(&[prize_drawn("other", 3)]);
    let of = f.of("spin-2026-1");
    assert_eq!(of.games, 4);
    let rows: Vec<(u32, u32, u64)> = of.rows.iter().map(|r| (r.multiplier, r.per_million, r.drawn)).collect();
    assert_eq!(
        rows,
        vec![(1_000, 1, 0), (100, 99, 0), (25, 900, 1), (10, 19_000, 0), (5, 80_000, 0), (3, 300_000, 0), (2, 600_000, 2), (7, 0, 1)]
    );
    assert_eq!(f.of("other").rows, vec![FrequencyRow { multiplier: 3, per_million: 0, drawn: 1 }]);
    assert_eq!(f.of("never").games, 0);
    assert!(f.of("never").rows.is_empty());
    // Two rows of one multiplier are one row, their odds summed; a later table of the same
    // version does not replace the first one read.
    let mut twice = table();
    twice.version = "twice".into();
    twice.prizes[1].multiplier = 1_000;
    let mut g = Frequencies::default();
    g.apply_tournament(&[created(game(), Some(twice.clone()))]);
    g.apply_tournament(&[created(game(), Some(LotteryTerms { prizes: table().prizes[..1].to_vec(), ..twice }))]);
    assert_eq!(g.of("twice").rows[0], FrequencyRow { multiplier: 1_000, per_million: 100, drawn: 0 });
    assert_eq!(g.of("twice").rows.len(), 6);
}

#[test]
fn the_frequencies_verb_answers_a_version_the_table_rules_take() {
    let mut f = Frequencies::default();
    f.apply_tournament(&[created(game(), Some(table()))]);
    f.apply_lottery(&[prize_drawn("spin-2026-1", 3)]);
    let ask = |version: &str| f.answer(&FrequenciesOf { version: version.into(), command_id: CommandId::new() });
    match ask("spin-2026-1") {
        Reply::Ok(of) => assert_eq!((of.games, of.rows.len()), (1, 7)),
        Reply::Error(e) => panic!("refused: {e:?}"),
    }
    for (version, code) in
        [("v".repeat(65), codes::TEXT_TOO_LONG), ("a\nb".into(), codes::CONTROL_CHARACTER), (String::new(), codes::INVALID_DEFINITION)]
    {
        match ask(&version) {
            Reply::Error(e) => assert_eq!(e.code, code),
            Reply::Ok(of) => panic!("{version:?} answered: {of:?}"),
        }
    }
}

#[test]
fn the_memory_survives_its_snapshot() {
    let mut memory = Memory::default();
    memory.policy.on_tournament(game(), &[created(game(), Some(table()))]);
    memory.frequencies.apply_tournament(&[created(game(), Some(table()))]);
    memory.frequencies.apply_lottery(&[prize_drawn("spin-2026-1", 2)]);
    let stored = serde_json::to_vec(&memory).unwrap();
    let read: Memory = serde_json::from_slice(&stored).unwrap();
    assert_eq!(read, memory);
}

fn command() -> impl Strategy<Value = C> {
    let seed = prop_oneof![Just([7u8; 32]), Just([8u8; 32])];
    prop_oneof![
        seed.clone().prop_map(|s| commit(&s)),
        seed.clone().prop_map(draw_with),
        seed.prop_map(|s| C::Draw { terms: LotteryTerms { version: "x".into(), ..table() }, buy_in: eur(1_000), seed: s, at: secs(60) }),
    ]
}

proptest! {
    /// Random commands never panic; at most one commitment and one draw are stored, the draw
    /// after the commitment with a seed whose SHA-256 is it and prizes summing to its pool; and
    /// the events, folded again from nothing (a replay), give the same state.
    #[test]
    fn commands_never_break_the_draw_and_replay_to_the_same_state(commands in prop::collection::vec(command(), 0..12)) {
        let mut state = LotteryState::default();
        let mut log = Vec::new();
        for command in commands {
            if let Ok(events) = LotteryAggregate::handle_command(&state, command) {
                for e in events {
                    log.push(e.clone());
                    state = LotteryAggregate::apply_event(state, e);
                }
            }
        }
        prop_assert!(log.len() <= 2);
        let commits = log.iter().filter(|e| matches!(e, E::DrawCommitted(_))).count();
        let draws: Vec<&PrizeDrawn> = log.iter().filter_map(|e| match e { E::PrizeDrawn(d) => Some(d), _ => None }).collect();
        prop_assert!(commits <= 1 && draws.len() <= 1);
        if let Some(d) = draws.first() {
            prop_assert!(matches!(log[0], E::DrawCommitted(_)));
            let c = state.committed.clone().unwrap();
            prop_assert_eq!(hex(&commitment(&unhex(&d.seed).unwrap())), c.commitment);
            prop_assert_eq!(d.prizes.iter().sum::<u64>(), d.pool.amount);
        }
        let replayed = log.into_iter().fold(LotteryState::default(), LotteryAggregate::apply_event);
        prop_assert_eq!(replayed, state);
    }
}
