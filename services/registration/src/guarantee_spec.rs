//! 003 App. 1 b ix (a), given/when/then: a guaranteed `reel-cz` tournament starts only when the
//! stakes paid in before the start come to at least half its guarantee ("před zahájením turnaje
//! dojde k uhrazení vkladů účastníků hazardní hry odpovídajícím nejméně 50 % předem stanovené
//! minimální výše výhry"); below it, it is cancelled and every entry refunded (issue 38).

use crate::domain::{TournamentAggregate, TournamentCommand as C};
use chrono::{DateTime, Utc};
use floor_events::registration::*;
use floor_events::tournament::{EntryLedger, Fee, Start, TournamentDefinition};
use floor_events::{Currency, EntryNo, Money, PlayerId, RuleProfile, TournamentId};
use floor_runtime::spec::given;

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

fn at(s: &str) -> DateTime<Utc> {
    s.parse().expect("RFC 3339")
}

const START: &str = "2026-12-06T18:00:00Z";

/// EUR 20 + 10 % taken from it, EUR 100 guaranteed.
fn guaranteed(profile: RuleProfile) -> TournamentEvent {
    let definition = TournamentDefinition {
        start: Start::At(at(START)),
        buy_in: eur(2_200),
        fee: Fee::ShareOfBuyIn { basis_points: 1_000 },
        guarantee: Some(eur(10_000)),
        profile,
        ..TournamentDefinition::example()
    };
    TournamentEvent::TournamentCreated(TournamentCreated {
        tournament_id: TournamentId(uuid::Uuid::nil()),
        definition,
        at: at("2026-12-01T12:00:00Z"),
    })
}

fn ledger() -> EntryLedger {
    EntryLedger { paid_in: eur(2_200), fee: eur(220), prize_pool: eur(1_980) }
}

fn registered(entry: u32) -> TournamentEvent {
    TournamentEvent::EntryRegistered(EntryRegistered {
        entry: EntryNo(entry),
        player: PlayerId::parse(&format!("p{entry}")).unwrap(),
        kind: EntryKind::Registration,
        new_player: true,
        ledger: ledger(),
        at: at("2026-12-06T17:00:00Z"),
        ticket: None,
    })
}

/// Given a reel-cz tournament guaranteeing EUR 100 with two entries of EUR 22 (EUR 44 paid in,
/// under half), when its start time comes, then it is cancelled (`guarantee_not_met`) and both
/// entries are refunded what they paid; with a third entry (EUR 66, over half) it starts; under
/// TDA 2024, which has no such rule, two entries start it.
#[test]
fn reel_cz_a_guaranteed_tournament_starts_only_with_half_its_guarantee_paid_in() {
    let two = vec![guaranteed(RuleProfile::ReelCz), registered(1), registered(2)];
    let refund = |entry: u32| Refund { entry: EntryNo(entry), player: PlayerId::parse(&format!("p{entry}")).unwrap(), refund: ledger() };
    given::<TournamentAggregate>(two.clone()).when(C::Start { at: at(START), now: false }).then(vec![
        TournamentEvent::TournamentCancelled(TournamentCancelled {
            reason: CancellationReason::GuaranteeNotMet { paid_in: eur(4_400), guarantee: eur(10_000) },
            refunds: vec![refund(1), refund(2)],
            at: at(START),
        }),
    ]);
    let mut three = two;
    three.push(registered(3));
    given::<TournamentAggregate>(three)
        .when(C::Start { at: at(START), now: false })
        .then(vec![TournamentEvent::TournamentStarted(TournamentStarted { entries: 3, cause: StartCause::Scheduled, at: at(START) })]);
    given::<TournamentAggregate>(vec![guaranteed(RuleProfile::Tda2024), registered(1), registered(2)])
        .when(C::Start { at: at(START), now: false })
        .then(vec![TournamentEvent::TournamentStarted(TournamentStarted { entries: 2, cause: StartCause::Scheduled, at: at(START) })]);
}
