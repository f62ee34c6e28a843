//! The bounties decider, case by case (the rulebooks' and practice's own cases) and by property.

use crate::domain::{BountiesAggregate, BountyCommand as C, BountyState};
use crate::mystery::{self, commitment, hex, Seed};
use chrono::{DateTime, Utc};
use esrs::Aggregate;
use floor_events::bounties::{BountyEvent as E, BountyTerms, EnvelopeTier, MysteryStage, PaidInBy, StageTrigger};
use floor_events::table::PotWon;
use floor_events::{codes, Currency, EntryNo, Money, PlayerId, RuleProfile, TournamentId};
use floor_runtime::spec::given;
use proptest::prelude::*;

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

fn t0() -> DateTime<Utc> {
    "2026-12-06T18:00:00Z".parse().unwrap()
}

fn player(n: u32) -> PlayerId {
    PlayerId::parse(["", "ana", "ben", "cleo", "dan", "eva", "fay", "gus", "hal", "ivy"][n as usize % 10]).unwrap()
}

fn pot(winners: &[u32], chips: u64) -> PotWon {
    PotWon { winners: winners.iter().map(|&w| EntryNo(w)).collect(), chips }
}

fn pko(cash_share_bps: u32) -> BountyTerms {
    BountyTerms::Progressive { share_bps: 5_000, cash_share_bps }
}

const SEED: Seed = [7; 32];

/// Configured with `terms`; entries 1..=n (players ana, ben, …) each paid a net buy-in of
/// EUR 20.00, so each puts `share_bps` of it into the bounty pool; started.
fn started(terms: BountyTerms, n: u32) -> Vec<E> {
    let mut log = vec![E::BountiesConfigured { tournament_id: TournamentId::new(), terms: terms.clone(), currency: Currency::EUR }];
    for e in 1..=n {
        log.push(E::BountyPaidIn { entry: EntryNo(e), player: player(e), by: PaidInBy::Entry, amount: terms.bounty_part(eur(2_000)) });
    }
    log.push(E::BountiesStarted { at: t0() });
    log
}

/// Decides `command` on `log`, asserts the events, and appends them.
#[track_caller]
fn step(log: &mut Vec<E>, command: C, expected: Vec<E>) {
    given::<BountiesAggregate>(log.clone()).when(command).then(expected.clone());
    log.extend(expected);
}

fn knocked_out(entry: u32, bounty: u64) -> E {
    E::EntryKnockedOut { entry: EntryNo(entry), player: player(entry), bounty: eur(bounty), unclaimed: false }
}

fn paid(to: u32, eliminated: u32, cash: u64, added: u64) -> E {
    E::BountyPaid {
        to: EntryNo(to),
        player: player(to),
        eliminated: EntryNo(eliminated),
        eliminated_player: player(eliminated),
        cash: eur(cash),
        added_to_own: eur(added),
    }
}

fn eliminate(entry: u32, pots: Vec<PotWon>) -> C {
    C::Eliminate { entry: EntryNo(entry), pots, best_high_hand: None, seed: None }
}

fn winner(entry: u32, own: u64, left_over: u64) -> E {
    E::WinnerBounty { entry: EntryNo(entry), player: player(entry), own: eur(own), left_over: eur(left_over) }
}

#[test]
fn a_pko_chain_at_50_50_grows_the_eliminators_head_and_the_winner_takes_their_whole_own_bounty() {
    // 004 §4.36.15: EUR 10 bounties (half of a EUR 20 net buy-in); half of each bounty collected
    // in cash, half onto the eliminator's head.
    let mut log = started(pko(5_000), 4);
    step(&mut log, eliminate(4, vec![pot(&[1], 1_500)]), vec![knocked_out(4, 1_000), paid(1, 4, 500, 500)]);
    // Ana's head is now EUR 15: Ben collects 7.50 and carries 17.50.
    step(&mut log, eliminate(1, vec![pot(&[2], 3_000)]), vec![knocked_out(1, 1_500), paid(2, 1, 750, 750)]);
    step(&mut log, eliminate(3, vec![pot(&[2], 1_500)]), vec![knocked_out(3, 1_000), paid(2, 3, 500, 500)]);
    step(&mut log, C::Win { entry: EntryNo(2), seed: None }, vec![winner(2, 2_250, 0)]);
    let state = log.iter().cloned().fold(BountyState::default(), BountiesAggregate::apply_event);
    assert_eq!((state.paid_in, state.paid_out, state.balance()), (4_000, 4_000, 0), "EUR 40 in, EUR 40 out");
}

#[test]
fn a_pko_chain_at_pokerstars_30_70_pays_70_percent_at_once_and_carries_30() {
    // practice §3.1: PokerStars' trial, 30 % progressive, 70 % immediate. Cents: 70 % of
    // EUR 13.00 is 9.10 exactly; of 10.01 it is 7.007, rounded down to 7.00, the cent stays on
    // the head.
    let mut log = started(pko(7_000), 3);
    step(&mut log, eliminate(3, vec![pot(&[1], 900)]), vec![knocked_out(3, 1_000), paid(1, 3, 700, 300)]);
    step(&mut log, eliminate(1, vec![pot(&[2], 900)]), vec![knocked_out(1, 1_300), paid(2, 1, 910, 390)]);
    step(&mut log, C::Win { entry: EntryNo(2), seed: None }, vec![winner(2, 1_390, 0)]);
    let mut odd = started(pko(7_000), 2);
    odd.push(E::BountyPaidIn { entry: EntryNo(1), player: player(1), by: PaidInBy::Rebuy { number: 1 }, amount: eur(1) });
    step(&mut odd, eliminate(1, vec![pot(&[2], 900)]), vec![knocked_out(1, 1_001), paid(2, 1, 700, 301)]);
}

#[test]
fn a_three_way_all_in_where_two_split_the_pot_splits_the_bounty_odd_cent_to_the_first_listed() {
    // Knockout, EUR 10.01 bounties: Cleo busts; Ana and Ben chop the pot.
    let ko = BountyTerms::Knockout { share_bps: 5_005 };
    let mut log = started(ko, 3);
    step(&mut log, eliminate(3, vec![pot(&[1, 2], 3_000)]), vec![knocked_out(3, 1_001), paid(1, 3, 501, 0), paid(2, 3, 500, 0)]);
}

#[test]
fn a_short_stack_that_did_not_cover_shares_only_the_main_pot() {
    // Cleo busts with 1,000 chips: 400 in the main pot, won by Ana who had only 400; 600 in
    // the side pot, won by Ben, who covered. The bounty divides 40:60.
    let mut log = started(BountyTerms::Knockout { share_bps: 5_000 }, 3);
    step(&mut log, eliminate(3, vec![pot(&[1], 400), pot(&[2], 600)]), vec![knocked_out(3, 1_000), paid(1, 3, 400, 0), paid(2, 3, 600, 0)]);
}

#[test]
fn in_a_hi_lo_pot_the_best_high_hand_takes_the_knockout() {
    // 004 §4.36.15: split-pot variants pay the bounty to the best high hand.
    let mut log = started(BountyTerms::Knockout { share_bps: 5_000 }, 3);
    let hi_lo = C::Eliminate { entry: EntryNo(3), pots: vec![pot(&[1, 2], 2_000)], best_high_hand: Some(EntryNo(2)), seed: None };
    step(&mut log, hi_lo, vec![knocked_out(3, 1_000), paid(2, 3, 1_000, 0)]);
}

#[test]
fn the_knockout_winner_collects_their_own_bounty_and_bounties_pay_outside_the_money() {
    let mut log = started(BountyTerms::Knockout { share_bps: 5_000 }, 2);
    step(&mut log, eliminate(2, vec![pot(&[1], 2_000)]), vec![knocked_out(2, 1_000), paid(1, 2, 1_000, 0)]);
    step(&mut log, C::Win { entry: EntryNo(1), seed: None }, vec![winner(1, 1_000, 0)]);
    step(&mut log, C::Win { entry: EntryNo(1), seed: None }, vec![]);
    given::<BountiesAggregate>(log).when(eliminate(2, vec![])).then(vec![]);
}

#[test]
fn a_re_entry_carries_its_own_bounty_and_a_rebuy_adds_to_the_entrys() {
    let mut log = started(pko(5_000), 2);
    step(&mut log, eliminate(1, vec![pot(&[2], 1_000)]), vec![knocked_out(1, 1_000), paid(2, 1, 500, 500)]);
    // Ana re-enters as entry 3: a new bounty of EUR 10; Ben rebuys: EUR 10 more on his head.
    let re_entry = C::PayIn { entry: EntryNo(3), player: player(1), by: PaidInBy::ReEntry, prize_pool: eur(2_000) };
    step(
        &mut log,
        re_entry.clone(),
        vec![E::BountyPaidIn { entry: EntryNo(3), player: player(1), by: PaidInBy::ReEntry, amount: eur(1_000) }],
    );
    step(&mut log, re_entry, vec![]);
    let rebuy = C::PayIn { entry: EntryNo(2), player: player(2), by: PaidInBy::Rebuy { number: 1 }, prize_pool: eur(2_000) };
    step(
        &mut log,
        rebuy,
        vec![E::BountyPaidIn { entry: EntryNo(2), player: player(2), by: PaidInBy::Rebuy { number: 1 }, amount: eur(1_000) }],
    );
    // Ben (head 15 + 10) busts to Ana's re-entry.
    let bust = E::EntryKnockedOut { entry: EntryNo(2), player: player(2), bounty: eur(2_500), unclaimed: false };
    let to_re_entry = E::BountyPaid {
        to: EntryNo(3),
        player: player(1),
        eliminated: EntryNo(2),
        eliminated_player: player(2),
        cash: eur(1_250),
        added_to_own: eur(1_250),
    };
    step(&mut log, eliminate(2, vec![pot(&[3], 5_000)]), vec![bust, to_re_entry]);
    step(
        &mut log,
        C::Win { entry: EntryNo(3), seed: None },
        vec![E::WinnerBounty { entry: EntryNo(3), player: player(1), own: eur(2_250), left_over: eur(0) }],
    );
}

/// Mystery, half of each EUR 20 net buy-in to the pool; envelopes: one of 50 %, two of 25 %.
fn mystery(stage: MysteryStage) -> BountyTerms {
    BountyTerms::Mystery {
        share_bps: 5_000,
        envelopes: vec![EnvelopeTier { share_bps: 5_000, count: 1 }, EnvelopeTier { share_bps: 2_500, count: 2 }],
        stage,
    }
}

fn stage_start(log: &mut Vec<E>, players: u32) {
    let trigger = StageTrigger::Reached { stage: MysteryStage::PlayersLeft { players } };
    let events =
        given::<BountiesAggregate>(log.clone()).when(C::StartStage { trigger, commitment: commitment(&SEED), at: t0() }).accepted();
    log.extend(events);
}

fn draws(log: &[E]) -> Vec<Money> {
    log.iter().filter_map(|e| if let E::EnvelopeDrawn { value, .. } = e { Some(*value) } else { None }).collect()
}

fn mystery_elimination(log: &mut Vec<E>, entry: u32, by: u32) -> Vec<E> {
    let command = C::Eliminate { entry: EntryNo(entry), pots: vec![pot(&[by], 100)], best_high_hand: None, seed: Some(SEED) };
    let events = given::<BountiesAggregate>(log.clone()).when(command).accepted();
    log.extend(events.clone());
    events
}

#[test]
fn a_mystery_pool_is_exhausted_exactly_at_the_last_bounty_and_nothing_pays_before_the_stage() {
    // Five entries: EUR 50 in the pool. The stage starts at four players left, so the first
    // elimination draws nothing (practice §3.1: no bounties before the money).
    let mut log = started(mystery(MysteryStage::PlayersLeft { players: 4 }), 5);
    step(&mut log, eliminate(5, vec![pot(&[1], 100)]), vec![knocked_out(5, 0)]);
    stage_start(&mut log, 4);
    let E::MysteryStageStarted { pool, envelopes, .. } = log.last().unwrap() else { panic!("{log:?}") };
    assert_eq!(*pool, eur(5_000));
    assert_eq!(envelopes.iter().map(|e| (e.value.amount, e.count)).collect::<Vec<_>>(), vec![(2_500, 1), (1_250, 2)]);
    for (entry, by) in [(4, 1), (3, 2), (2, 1)] {
        let events = mystery_elimination(&mut log, entry, by);
        let E::EnvelopeDrawn { value, .. } = &events[1] else { panic!("{events:?}") };
        assert_eq!(events[2], paid(by, entry, value.amount, 0), "the envelope goes to the eliminator in cash");
    }
    let mut values: Vec<u64> = draws(&log).iter().map(|m| m.amount).collect();
    values.sort();
    assert_eq!(values, vec![1_250, 1_250, 2_500], "every envelope drawn once");
    let state = log.iter().cloned().fold(BountyState::default(), BountiesAggregate::apply_event);
    assert_eq!(state.balance(), 0, "the pool is exhausted at the last bounty");
    step(&mut log, C::Win { entry: EntryNo(1), seed: Some(SEED) }, vec![winner(1, 0, 0), E::MysterySeedRevealed { seed: hex(&SEED) }]);
}

#[test]
fn the_committed_hash_matches_the_revealed_seed_and_replaying_the_draws_gives_the_same_envelopes() {
    let mut log = started(mystery(MysteryStage::PlayersLeft { players: 4 }), 4);
    stage_start(&mut log, 4);
    for (entry, by) in [(4, 1), (3, 1), (2, 1)] {
        mystery_elimination(&mut log, entry, by);
    }
    log.extend(given::<BountiesAggregate>(log.clone()).when(C::Win { entry: EntryNo(1), seed: Some(SEED) }).accepted());
    // The audit, from the log alone.
    let published = log.iter().find_map(|e| {
        if let E::MysteryStageStarted { commitment, envelopes, .. } = e {
            Some((commitment.clone(), envelopes.clone()))
        } else {
            None
        }
    });
    let (committed, mut left) = published.expect("the stage started");
    let revealed =
        log.iter().find_map(|e| if let E::MysterySeedRevealed { seed } = e { mystery::unhex(seed) } else { None }).expect("revealed");
    assert_eq!(hex(&commitment(&revealed)), committed);
    let mut replayed = Vec::new();
    for k in 1..=3 {
        let i = mystery::draw(&revealed, k, &left).unwrap();
        replayed.push(left[i].value);
        mystery::open(&mut left, i);
    }
    assert_eq!(replayed, draws(&log));
}

#[test]
fn a_mystery_draw_needs_the_committed_seed() {
    let mut log = started(mystery(MysteryStage::InTheMoney), 3);
    stage_start(&mut log, 3);
    let with = |seed| C::Eliminate { entry: EntryNo(3), pots: vec![pot(&[1], 100)], best_high_hand: None, seed };
    given::<BountiesAggregate>(log.clone()).when(with(Some([8; 32]))).then_reject(codes::SEED_MISMATCH);
    given::<BountiesAggregate>(log.clone()).when(with(None)).then_reject(codes::SEED_MISMATCH);
    given::<BountiesAggregate>(log).when(C::Win { entry: EntryNo(1), seed: Some(SEED) }).then_reject(codes::WINNER_NOT_LAST);
}

#[test]
fn a_target_bounty_pays_the_pool_to_whoever_eliminates_the_target_and_nothing_for_the_others() {
    // 002 §2.10 T-9.1: a predetermined player; whoever knocks them out wins part of the pool.
    let target = BountyTerms::Target { share_bps: 2_000, player: player(2), public: false };
    let mut log = started(target, 3);
    step(&mut log, eliminate(3, vec![pot(&[2], 100)]), vec![knocked_out(3, 0)]);
    step(
        &mut log,
        eliminate(2, vec![pot(&[1], 100)]),
        vec![knocked_out(2, 1_200), E::TargetEliminated { entry: EntryNo(2), player: player(2), prize: eur(1_200) }, paid(1, 2, 1_200, 0)],
    );
    step(&mut log, C::Win { entry: EntryNo(1), seed: None }, vec![winner(1, 0, 0)]);
}

#[test]
fn a_target_who_never_falls_leaves_the_pool_to_the_winner_and_an_absent_one_is_recorded_at_the_start() {
    let target = BountyTerms::Target { share_bps: 2_000, player: player(1), public: true };
    let mut log = started(target.clone(), 2);
    step(&mut log, eliminate(2, vec![pot(&[1], 100)]), vec![knocked_out(2, 0)]);
    step(&mut log, C::Win { entry: EntryNo(1), seed: None }, vec![winner(1, 0, 800)]);
    let mut absent = started(BountyTerms::Target { share_bps: 2_000, player: player(9), public: true }, 2);
    absent.pop();
    step(&mut absent, C::Start { at: t0() }, vec![E::BountiesStarted { at: t0() }, E::TargetAbsent { player: player(9) }]);
}

#[test]
fn bad_input_gets_its_code_and_no_event() {
    let configure =
        |terms| C::Configure { tournament_id: TournamentId::new(), terms, profile: RuleProfile::FortunaCz2024, currency: Currency::EUR };
    given::<BountiesAggregate>(vec![])
        .when(configure(BountyTerms::Knockout { share_bps: 999 }))
        .then_reject(codes::BOUNTY_SHARE_OUT_OF_RANGE);
    given::<BountiesAggregate>(vec![])
        .when(configure(BountyTerms::Progressive { share_bps: 2_999, cash_share_bps: 5_000 }))
        .then_reject(codes::BOUNTY_SHARE_OUT_OF_RANGE);
    given::<BountiesAggregate>(vec![]).when(configure(pko(7_600))).then_reject(codes::BOUNTY_SHARE_OUT_OF_RANGE);
    let short = BountyTerms::Mystery {
        share_bps: 5_000,
        envelopes: vec![EnvelopeTier { share_bps: 3_000, count: 3 }],
        stage: MysteryStage::InTheMoney,
    };
    given::<BountiesAggregate>(vec![]).when(configure(short)).then_reject(codes::MYSTERY_VALUES_DO_NOT_SUM);
    // A target who is not registered.
    let mut before_start = started(BountyTerms::Target { share_bps: 2_000, player: player(1), public: false }, 2);
    before_start.pop();
    given::<BountiesAggregate>(before_start.clone())
        .when(C::NameTarget { player: player(9), public: true })
        .then_reject(codes::TARGET_NOT_REGISTERED);
    given::<BountiesAggregate>(before_start)
        .when(C::NameTarget { player: player(2), public: true })
        .then(vec![E::TargetNamed { player: player(2), public: true }]);
    // Eliminations that do not fit the field, money that does not fit the tournament.
    let log = started(BountyTerms::Knockout { share_bps: 5_000 }, 3);
    let when = |command| given::<BountiesAggregate>(log.clone()).when(command);
    when(eliminate(3, vec![pot(&[7], 100)])).then_reject(codes::INVALID_KNOCKOUT);
    when(eliminate(3, vec![pot(&[3], 100)])).then_reject(codes::INVALID_KNOCKOUT);
    when(eliminate(3, vec![pot(&[1, 1], 100)])).then_reject(codes::INVALID_KNOCKOUT);
    when(eliminate(8, vec![pot(&[1], 100)])).then_reject(codes::UNKNOWN_ENTRY);
    when(C::Win { entry: EntryNo(1), seed: None }).then_reject(codes::WINNER_NOT_LAST);
    let sek = Money::new(2_000, Currency::parse("SEK").unwrap());
    when(C::PayIn { entry: EntryNo(4), player: player(4), by: PaidInBy::Entry, prize_pool: sek }).then_reject(codes::CURRENCY_MISMATCH);
    when(C::PayIn { entry: EntryNo(4), player: player(4), by: PaidInBy::Entry, prize_pool: eur(u64::MAX) })
        .then_reject(codes::AMOUNT_TOO_LARGE);
    when(C::PayIn { entry: EntryNo(8), player: player(8), by: PaidInBy::Rebuy { number: 1 }, prize_pool: eur(1) })
        .then_reject(codes::UNKNOWN_ENTRY);
    when(C::Refund { entry: EntryNo(1) }).then_reject(codes::TOURNAMENT_STARTED);
    when(C::StartStage { trigger: StageTrigger::Director, commitment: [0; 32], at: t0() }).then_reject(codes::NOT_OFFERED);
    given::<BountiesAggregate>(vec![]).when(eliminate(1, vec![])).then_reject(codes::UNKNOWN_TOURNAMENT);
}

#[test]
fn a_refund_before_the_start_pays_the_entrys_bounty_part_back_once() {
    let mut log = started(BountyTerms::Knockout { share_bps: 5_000 }, 2);
    log.pop();
    step(&mut log, C::Refund { entry: EntryNo(2) }, vec![E::BountyRefunded { entry: EntryNo(2), amount: eur(1_000) }]);
    step(&mut log, C::Refund { entry: EntryNo(2) }, vec![]);
    step(&mut log, C::PayIn { entry: EntryNo(2), player: player(2), by: PaidInBy::Entry, prize_pool: eur(2_000) }, vec![]);
}

#[test]
fn an_elimination_nobody_won_leaves_its_bounty_to_the_winner() {
    let mut log = started(pko(5_000), 3);
    step(
        &mut log,
        eliminate(3, vec![]),
        vec![E::EntryKnockedOut { entry: EntryNo(3), player: player(3), bounty: eur(1_000), unclaimed: true }],
    );
    step(&mut log, eliminate(2, vec![pot(&[1], 10)]), vec![knocked_out(2, 1_000), paid(1, 2, 500, 500)]);
    step(&mut log, C::Win { entry: EntryNo(1), seed: None }, vec![winner(1, 1_500, 1_000)]);
}

// ---- Properties ----------------------------------------------------------------------------

/// One random happening in a bounty tournament.
#[derive(Debug, Clone)]
enum Step {
    /// The live entry at this index rebuys.
    Rebuy(usize),
    /// The live entry at this index busts; its chips go to pots won by the live entries at
    /// these indices (several per pot: a tie), with these chips; none: nobody won them.
    Bust(usize, Vec<(Vec<usize>, u64)>),
    /// The player of the last eliminated entry re-enters.
    ReEnter,
    /// The mystery stage starts.
    Stage,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let pots = prop::collection::vec((prop::collection::vec(0usize..8, 1..4), 0u64..5_000), 0..4);
    let one = prop_oneof![
        2 => (0usize..8).prop_map(Step::Rebuy),
        6 => (0usize..8, pots).prop_map(|(e, p)| Step::Bust(e, p)),
        1 => Just(Step::ReEnter),
        1 => Just(Step::Stage),
    ];
    prop::collection::vec(one, 1..60)
}

fn terms() -> impl Strategy<Value = BountyTerms> {
    prop_oneof![
        (1_000u32..=10_000).prop_map(|share_bps| BountyTerms::Knockout { share_bps }),
        (3_000u32..=10_000, 2_500u32..=7_500)
            .prop_map(|(share_bps, cash_share_bps)| BountyTerms::Progressive { share_bps, cash_share_bps }),
        (1u32..=10_000).prop_map(|share_bps| BountyTerms::Mystery {
            share_bps,
            envelopes: vec![
                EnvelopeTier { share_bps: 4_000, count: 1 },
                EnvelopeTier { share_bps: 1_000, count: 3 },
                EnvelopeTier { share_bps: 300, count: 10 }
            ],
            stage: MysteryStage::InTheMoney,
        }),
        (1u32..=10_000, 1u32..=4).prop_map(|(share_bps, p)| BountyTerms::Target { share_bps, player: player(p), public: false }),
    ]
}

/// Plays a random tournament: the commands it sent, and every event, in order.
fn play(terms: &BountyTerms, players: u32, net: u64, refunds: usize, steps: &[Step]) -> (Vec<C>, Vec<E>) {
    let mut commands = vec![C::Configure {
        tournament_id: TournamentId::new(),
        terms: terms.clone(),
        profile: RuleProfile::Tda2024,
        currency: Currency::EUR,
    }];
    for e in 1..=players {
        commands.push(C::PayIn { entry: EntryNo(e), player: player(e), by: PaidInBy::Entry, prize_pool: eur(net) });
    }
    commands.extend((1..=refunds as u32).map(|e| C::Refund { entry: EntryNo(e) }));
    commands.push(C::Start { at: t0() });
    let mut state = BountyState::default();
    let mut log = Vec::new();
    let mut sent = Vec::new();
    let run = |state: &mut BountyState, command: C, log: &mut Vec<E>, sent: &mut Vec<C>| {
        sent.push(command.clone());
        let events = BountiesAggregate::handle_command(state, command).unwrap_or_else(|e| panic!("{e}"));
        for e in events {
            log.push(e.clone());
            *state = BountiesAggregate::apply_event(std::mem::take(state), e);
        }
    };
    for c in commands {
        run(&mut state, c, &mut log, &mut sent);
    }
    let mut next = players + 1;
    let mut last_out: Option<PlayerId> = None;
    for s in steps {
        let live: Vec<EntryNo> = state.entries.keys().copied().collect();
        match s {
            Step::Rebuy(i) if live.len() > 1 => {
                let entry = live[i % live.len()];
                let number = state.entries[&entry].rebuys + 1;
                let who = state.entries[&entry].player.clone();
                run(&mut state, C::PayIn { entry, player: who, by: PaidInBy::Rebuy { number }, prize_pool: eur(net) }, &mut log, &mut sent);
            }
            Step::Bust(i, pots) if live.len() > 1 => {
                let entry = live[i % live.len()];
                let others: Vec<EntryNo> = live.iter().copied().filter(|e| *e != entry).collect();
                let pots = pots
                    .iter()
                    .map(|(winners, chips)| {
                        let mut w: Vec<EntryNo> = winners.iter().map(|i| others[i % others.len()]).collect();
                        w.dedup();
                        w.sort();
                        w.dedup();
                        PotWon { winners: w, chips: *chips }
                    })
                    .collect();
                last_out = Some(state.entries[&entry].player.clone());
                run(&mut state, C::Eliminate { entry, pots, best_high_hand: None, seed: Some(SEED) }, &mut log, &mut sent);
            }
            Step::ReEnter => {
                if let Some(p) = last_out.take() {
                    run(
                        &mut state,
                        C::PayIn { entry: EntryNo(next), player: p, by: PaidInBy::ReEntry, prize_pool: eur(net) },
                        &mut log,
                        &mut sent,
                    );
                    next += 1;
                }
            }
            Step::Stage if matches!(terms, BountyTerms::Mystery { .. }) && state.stage.is_none() => {
                run(
                    &mut state,
                    C::StartStage { trigger: StageTrigger::Director, commitment: commitment(&SEED), at: t0() },
                    &mut log,
                    &mut sent,
                );
            }
            _ => {}
        }
    }
    // Play to the end: the lowest entries knock out the rest, one by one.
    while state.entries.len() > 1 {
        let live: Vec<EntryNo> = state.entries.keys().copied().collect();
        let last = *live.last().unwrap();
        run(
            &mut state,
            C::Eliminate { entry: last, pots: vec![PotWon { winners: vec![live[0]], chips: 1 }], best_high_hand: None, seed: Some(SEED) },
            &mut log,
            &mut sent,
        );
    }
    let champion = *state.entries.keys().next().expect("one left");
    run(&mut state, C::Win { entry: champion, seed: Some(SEED) }, &mut log, &mut sent);
    (sent, log)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Over random tournaments with refunds, re-entries, rebuys, split pots, ties and
    /// eliminations nobody won: bounty money in = bounty money out to the cent; nobody is paid
    /// a bounty for an entry that was not eliminated in that very decision; and replaying the
    /// log (or the commands) gives the same state and the same payments.
    #[test]
    fn bounty_money_in_equals_money_out_nobody_is_paid_for_a_live_player_and_replay_is_exact(
        terms in terms(),
        players in 2u32..8,
        net in 0u64..100_000,
        refunds in 0usize..2,
        steps in steps(),
    ) {
        let (commands, log) = play(&terms, players, net, refunds, &steps);
        let (mut paid_in, mut refunded, mut paid_out) = (0u64, 0u64, 0u64);
        let mut out = std::collections::HashSet::new();
        for e in &log {
            match e {
                E::BountyPaidIn { amount, .. } => paid_in += amount.amount,
                E::BountyRefunded { amount, .. } => refunded += amount.amount,
                E::EntryKnockedOut { entry, .. } => { prop_assert!(out.insert(*entry), "entry {} knocked out twice", entry); }
                E::BountyPaid { to, eliminated, cash, .. } => {
                    prop_assert!(out.contains(eliminated), "paid for {} before it was out", eliminated);
                    prop_assert!(!out.contains(to), "paid to {}, who is out", to);
                    paid_out += cash.amount;
                }
                E::WinnerBounty { own, left_over, .. } => paid_out += own.amount + left_over.amount,
                _ => {}
            }
        }
        prop_assert_eq!(paid_in - refunded, paid_out, "in = out to the cent");
        let replayed = log.iter().cloned().fold(BountyState::default(), BountiesAggregate::apply_event);
        prop_assert_eq!(replayed.balance(), 0);
        // The same commands decide the same events.
        let mut state = BountyState::default();
        let mut again = Vec::new();
        for c in commands {
            for e in BountiesAggregate::handle_command(&state, c).unwrap() {
                again.push(e.clone());
                state = BountiesAggregate::apply_event(state, e);
            }
        }
        prop_assert_eq!(&again, &log);
        prop_assert_eq!(state, replayed);
        // The books' view agrees.
        let mut view = crate::projection::Bounties::default();
        view.apply(&log);
        prop_assert_eq!(view.books().balance(), 0);
        prop_assert_eq!(view.books().paid_out, paid_out);
    }
}
