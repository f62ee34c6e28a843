//! A shootout trimmed to full first-round tables (issue 37, `short_field = "trim"`): at the
//! start the last registrants over full tables are withdrawn and refunded in full; every other
//! short field starts with the whole field. 004 §4.36.3: "Pokud nebude Shootout plně obsazen,
//! některé hrací stoly v prvním kole mohou mít více Sázejících než jiné" (uneven tables are
//! allowed; trimming is the definition's other choice, stated in the lobby before
//! registration).

use crate::domain::{TournamentAggregate, TournamentCommand as C};
use chrono::{DateTime, Utc};
use floor_events::registration::*;
use floor_events::shootouts::{ShootoutTerms, ShortField};
use floor_events::tournament::{EntryLedger, Fee, Start, TournamentDefinition};
use floor_events::{Currency, EntryNo, Money, PlayerId, TournamentId};
use floor_runtime::spec::given;

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

const START: &str = "2026-12-06T18:00:00Z";
const BEFORE: &str = "2026-12-06T17:00:00Z";

fn eur(cents: u64) -> Money {
    Money::new(cents, Currency::EUR)
}

fn ledger() -> EntryLedger {
    EntryLedger { paid_in: eur(2_200), fee: eur(200), prize_pool: eur(2_000) }
}

fn shootout(short_field: ShortField) -> TournamentDefinition {
    TournamentDefinition {
        name: "Shootout".into(),
        start: Start::At(at(START)),
        table_size: 9,
        buy_in: eur(2_000),
        fee: Fee::OnTop(eur(200)),
        capacity: 81,
        min_players: 2,
        late_registration_until: None,
        shootout: Some(ShootoutTerms { short_field, ..ShootoutTerms::new(1) }),
        ..TournamentDefinition::example()
    }
}

fn player(entry: u32) -> PlayerId {
    PlayerId::parse(&format!("p{entry}")).unwrap()
}

fn field(def: TournamentDefinition, entries: u32) -> Vec<TournamentEvent> {
    let mut history = vec![TournamentEvent::TournamentCreated(TournamentCreated {
        tournament_id: TournamentId(uuid::Uuid::nil()),
        definition: def,
        at: at(BEFORE),
    })];
    history.extend((1..=entries).map(|e| {
        TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(e),
            player: player(e),
            kind: EntryKind::Registration,
            new_player: true,
            ledger: ledger(),
            at: at(BEFORE),
            ticket: None,
        })
    }));
    history
}

fn started(entries: u32) -> TournamentEvent {
    TournamentEvent::TournamentStarted(TournamentStarted { entries, cause: StartCause::Scheduled, at: at(START) })
}

/// 20 registered at 9-max, trimmed: entries 19 and 20 (the last registrants) are withdrawn by
/// the operator and refunded what they paid, then 18 start: two full tables.
#[test]
fn a_trimmed_shootout_refunds_its_last_registrants_at_the_start() {
    let trimmed = |e: u32| {
        TournamentEvent::EntryUnregistered(EntryUnregistered {
            entry: EntryNo(e),
            player: player(e),
            refund: ledger(),
            by_operator: true,
            player_left: true,
            at: at(START),
        })
    };
    given::<TournamentAggregate>(field(shootout(ShortField::Trim), 20)).when(C::Start { at: at(START), now: false }).then(vec![
        trimmed(19),
        trimmed(20),
        started(18),
    ]);
    // A field of full tables, or one that fills no table, is not trimmed.
    given::<TournamentAggregate>(field(shootout(ShortField::Trim), 18))
        .when(C::Start { at: at(START), now: false })
        .then(vec![started(18)]);
    given::<TournamentAggregate>(field(shootout(ShortField::Trim), 7)).when(C::Start { at: at(START), now: false }).then(vec![started(7)]);
}

/// Uneven tables and byes start with the whole field (seating draws the byes).
#[test]
fn uneven_tables_and_byes_start_with_the_whole_field() {
    for short in [ShortField::Uneven, ShortField::Byes] {
        given::<TournamentAggregate>(field(shootout(short), 20)).when(C::Start { at: at(START), now: false }).then(vec![started(20)]);
    }
}
