//! Issue 33: every shipped example (`examples/*.toml`, not the structures or schedules) is
//! created as written (its times moved to now), played to its winner by `floor sim`'s tables,
//! with late entries between rounds until registration refuses one as closed, and its books
//! reconcile: every cent paid in is kept as a fee or paid as a prize, nothing is held, the
//! locked payout table holds every entry sold, and no entry was sold after the close.

use floor::sim::{self, LateSummary, SimConfig};
use floor_events::payouts::PayoutEvent;
use floor_events::registration::{RegistrationCloseCause, TournamentEvent};
use floor_events::tournament::{EntryModel, Start, TournamentDefinition};
use floor_events::{subjects, TournamentId};
use floor_runtime::JetStreamStore;
use floor_tests::World;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Players in each scheduled example: a field of several tables that still plays in seconds.
const ENTRANTS: u32 = 60;

/// The shipped tournament files, by name.
fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    floor::director::tournament_files(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

async fn log<E: serde::de::DeserializeOwned>(world: &World, aggregate: &str, t: TournamentId) -> Vec<E> {
    let subject = subjects::event_subject(aggregate, t.0);
    let commits = JetStreamStore::new(&world.backbone).load::<E>(&subject, 0).await.expect("log");
    commits.into_iter().flat_map(|c| c.events).collect()
}

/// What the tournament's own logs say of its field: registration closed by the end of the
/// late-registration level with no entry after it, and the payout table locked with every entry.
async fn check_logs(world: &World, name: &str, t: TournamentId, definition: &TournamentDefinition, entries: u32) {
    let tournament: Vec<TournamentEvent> = log(world, subjects::aggregate::TOURNAMENT, t).await;
    let sold = tournament.iter().filter(|e| matches!(e, TournamentEvent::EntryRegistered(_))).count() as u32;
    assert_eq!(sold, entries, "{name}: every entry registration sold is in the books");
    if definition.late_registration_until.is_some() {
        let closed = tournament.iter().position(|e| matches!(e, TournamentEvent::RegistrationClosed(_)));
        let closed = closed.unwrap_or_else(|| panic!("{name}: registration never closed"));
        let TournamentEvent::RegistrationClosed(close) = &tournament[closed] else { unreachable!() };
        assert_eq!(close.cause, RegistrationCloseCause::LateRegistrationLevel, "{name}: the clock's skip past the level closed it");
        let after = tournament[closed..].iter().filter(|e| matches!(e, TournamentEvent::EntryRegistered(_))).count();
        assert_eq!(after, 0, "{name}: no entry sold after registration closed");
    }
    let payouts: Vec<PayoutEvent> = log(world, subjects::aggregate::PAYOUTS, t).await;
    let locks: Vec<u32> =
        payouts.iter().filter_map(|e| if let PayoutEvent::PayoutTableLocked { entries, .. } = e { Some(*entries) } else { None }).collect();
    assert_eq!(locks, vec![entries], "{name}: one lock, with every entry sold");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_shipped_example_plays_to_its_winner_with_late_entries_until_registration_closes_and_its_books_reconcile() {
    let world = World::start_configured(|c| c.skip("scheduler")).await;
    let files = examples();
    assert!(files.len() >= 4, "the shipped examples: {files:?}");
    for (i, path) in files.iter().enumerate() {
        let name = path.file_name().expect("a file").to_string_lossy().into_owned();
        let definition = floor::director::read_definition(path).unwrap_or_else(|f| panic!("{name}: {}", f.message));
        let entrants = match definition.start {
            Start::SitAndGo => definition.capacity,
            Start::At(_) => ENTRANTS,
        };
        let t = TournamentId(uuid::Uuid::from_u128(0x0e8a_3300_0000 + i as u128));
        let config = SimConfig { definition: Some(definition.clone()), ..SimConfig::new(entrants, 33 + i as u64, t) };
        let began = Instant::now();
        let summary = sim::run(&world.backbone, &config, |_| {}).await.unwrap_or_else(|e| panic!("{name}: {e}"));
        let LateSummary { late_entries, re_entries, late_refused } = summary.late;
        let books = &summary.books;
        eprintln!(
            "{name}: {} entrants ({late_entries} late, {re_entries} re-entries, {late_refused} refused), {} hands, winner {}, \
             paid in {}, fees {}, pool {} (overlay {}), prizes {}, held {}, {:.1} s",
            summary.entrants,
            summary.hands,
            summary.winner,
            books.paid_in,
            books.fees,
            books.prize_pool,
            books.overlay,
            books.prizes_paid,
            books.held,
            began.elapsed().as_secs_f64()
        );
        assert!(summary.winner.starts_with("sim-"), "{name}: a winner: {summary:?}");
        if definition.late_registration_until.is_some() {
            assert!(late_entries > 0, "{name}: entries sold during play: {:?}", summary.late);
            assert!(late_refused > 0, "{name}: refused once registration closed: {:?}", summary.late);
            // Every new player entered or was refused; under re-entry, busted players waiting to
            // enter again at the close are refused too.
            let answered = summary.entrants + late_refused;
            match definition.entry_model {
                EntryModel::ReEntry { .. } => assert!(answered >= entrants, "{name}: every player answered: {:?}", summary.late),
                _ => assert_eq!(answered, entrants, "{name}: every player entered or was refused: {:?}", summary.late),
            }
        } else {
            assert_eq!(summary.late, LateSummary::default(), "{name}: no late registration");
            assert_eq!(summary.entrants, entrants);
        }
        // A flight's Day 1 (issue 36, examples/flights-day1.toml) pays no place: its whole pool
        // went to its Day 2 (which the simulator created), nothing held.
        if definition.flight.is_some() {
            assert!(books.balanced, "{name}: the books reconcile: {books:?}");
            assert_eq!((books.held, books.prizes_paid, books.transferred_out), (0, 0, books.prize_pool), "{name}: {books:?}");
            continue;
        }
        assert!(books.balanced && books.finished, "{name}: the books reconcile: {books:?}");
        assert_eq!(books.held, 0, "{name}: nothing held once paid: {books:?}");
        assert_eq!(books.prizes_paid, books.prize_pool, "{name}: the whole pool paid out: {books:?}");
        assert_eq!(books.entries, summary.entrants + re_entries, "{name}: the books count every entry sold");
        if let Some(guarantee) = definition.guarantee {
            assert!(books.prize_pool >= guarantee.amount, "{name}: the guarantee is met: {books:?}");
        }
        check_logs(&world, &name, t, &definition, books.entries).await;
    }
}
