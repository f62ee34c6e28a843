//! Hand-built logs: one that audits ok, and one per kind of difference.

use super::*;
use floor_events::payouts::{LockCause, PlaceAward};
use floor_events::record::encode_commit;
use floor_events::registration::{EntryKind, EntryRegistered, RegistrationCloseCause, RegistrationClosed, TournamentCreated};
use floor_events::tournament::TournamentDefinition;
use floor_events::{Currency, EntryNo, Money, PlayerId, TournamentId};
use uuid::Uuid;

fn eur(amount: u64) -> Money {
    Money { amount, currency: Currency::EUR }
}

fn seed() -> String {
    "07".repeat(32)
}

struct Log {
    id: Uuid,
    commits: Vec<LogCommit>,
}

impl Log {
    fn new() -> Self {
        Log { id: Uuid::new_v4(), commits: Vec::new() }
    }
    fn push<E: Serialize>(&mut self, aggregate: &str, events: &[E]) -> u64 {
        let sequence = self.commits.len() as u64 + 1;
        self.commits.push(LogCommit {
            subject: format!("floor.ev.{aggregate}.{}", self.id),
            sequence,
            time: Utc::now(),
            body: encode_commit(events),
            previous: None,
        });
        sequence
    }
    fn register(&mut self, entry: u32) -> u64 {
        let e = TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(entry),
            player: PlayerId::parse("p").unwrap(),
            kind: EntryKind::Registration,
            new_player: true,
            ledger: EntryLedger { paid_in: eur(110), fee: eur(10), prize_pool: eur(100) },
            at: Utc::now(),
            ticket: None,
        });
        self.push("tournament", &[e])
    }
    fn award(&mut self, entry: u32, place: u32, amount: u64) -> u64 {
        let a = PlaceAward { entry: EntryNo(entry), player: PlayerId::parse("p").unwrap(), place, shared: 1, amount };
        self.push("payouts", &[PayoutEvent::PlacesAwarded { players_left_before: place, awards: vec![a], hand_for_hand: None }])
    }
}

/// Three entries of 100 to the pool, 200 to first, 100 to second, the draw committed.
fn tournament() -> Log {
    let mut log = Log::new();
    let created = TournamentCreated {
        tournament_id: TournamentId(log.id),
        definition: TournamentDefinition { capacity: 3, ..TournamentDefinition::example() },
        at: Utc::now(),
    };
    log.push("tournament", &[TournamentEvent::TournamentCreated(created)]);
    for entry in 1..=3 {
        log.register(entry);
    }
    log.push("seating", &[SeatingEvent::DrawCommitted { commitment: seed_hash(&seed()).unwrap() }]);
    log.push("seating", &[SeatingEvent::TablesDrawn { seed: seed(), total_tables: 1, tables: vec![], at: Utc::now() }]);
    log.push(
        "payouts",
        &[PayoutEvent::PayoutTableLocked {
            entries: 3,
            contributions: eur(300),
            guarantee: None,
            overlay: eur(0),
            pool: eur(300),
            places: 2,
            bands: vec![PrizeBand { from: 1, to: 1, amount: 200 }, PrizeBand { from: 2, to: 2, amount: 100 }],
            cause: LockCause::Started,
        }],
    );
    log.award(3, 3, 0);
    log.award(2, 2, 100);
    log.award(1, 1, 200);
    log
}

fn paid(log: &mut Log, amount: u64) -> u64 {
    log.push("payouts", &[PayoutEvent::TournamentPaid { prizes_paid: eur(amount) }])
}

fn differences(report: &Report, check: &str) -> Vec<Difference> {
    report.checks.iter().find(|c| c.name == check).unwrap().differences.clone()
}

#[test]
fn a_clean_tournament_audits_ok() {
    let mut log = tournament();
    paid(&mut log, 300);
    let report = audit(&log.commits);
    assert!(report.ok, "{}", report.summary());
    assert!(report.summary().contains("ok"));
}

#[test]
fn the_commitment_is_sha256_of_the_seed_bytes() {
    assert_eq!(seed_hash(&"00".repeat(32)).unwrap(), "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
    assert_eq!(seed_hash("0g"), None);
}

#[test]
fn a_prize_paid_twice_is_found() {
    let mut log = tournament();
    let again = log.award(1, 1, 200);
    paid(&mut log, 500);
    let report = audit(&log.commits);
    assert!(!report.ok);
    let places = differences(&report, "places");
    assert!(places.iter().any(|d| d.message.contains("entry #1") && d.sequences.contains(&again)), "{places:?}");
    let money = differences(&report, "money");
    assert!(money.iter().any(|d| d.message.contains("locked pool")), "{money:?}");
}

#[test]
fn a_seed_that_does_not_match_its_commitment_is_found() {
    let mut log = tournament();
    paid(&mut log, 300);
    let drawn = log.commits.iter().position(|c| String::from_utf8_lossy(&c.body).contains("tables_drawn")).unwrap();
    let seq = log.commits[drawn].sequence;
    log.commits[drawn].body =
        encode_commit(&[SeatingEvent::TablesDrawn { seed: "08".repeat(32), total_tables: 1, tables: vec![], at: Utc::now() }]);
    let report = audit(&log.commits);
    let draws = differences(&report, "draws");
    assert_eq!(draws.len(), 1, "{draws:?}");
    assert!(draws[0].sequences.contains(&seq));
    assert!(!report.ok);
}

#[test]
fn money_that_does_not_reconcile_is_found() {
    let mut log = tournament();
    // The winner's award altered: 250 where the table pays 200.
    let last = log.commits.len() - 1;
    let seq = log.commits[last].sequence;
    log.commits[last].body = encode_commit(&[PayoutEvent::PlacesAwarded {
        players_left_before: 1,
        awards: vec![PlaceAward { entry: EntryNo(1), player: PlayerId::parse("p").unwrap(), place: 1, shared: 1, amount: 250 }],
        hand_for_hand: None,
    }]);
    let paid_at = paid(&mut log, 300);
    let report = audit(&log.commits);
    assert!(differences(&report, "places").iter().any(|d| d.sequences.contains(&seq)));
    assert!(differences(&report, "money").iter().any(|d| d.message.contains("350") && d.sequences.contains(&paid_at)));
}

#[test]
fn contributions_that_the_entries_do_not_make_are_found() {
    let mut log = Log::new();
    log.register(1);
    let locked = log.push(
        "payouts",
        &[PayoutEvent::PayoutTableLocked {
            entries: 2,
            contributions: eur(200),
            guarantee: None,
            overlay: eur(0),
            pool: eur(200),
            places: 1,
            bands: vec![PrizeBand { from: 1, to: 1, amount: 200 }],
            cause: LockCause::Started,
        }],
    );
    let money = differences(&audit(&log.commits), "money");
    assert!(money.iter().any(|d| d.message.contains("put in 100 ") && d.sequences == vec![locked]), "{money:?}");
}

#[test]
fn a_registration_after_the_close_is_found() {
    let mut log = Log::new();
    log.register(1);
    let closed = log.push(
        "tournament",
        &[TournamentEvent::RegistrationClosed(RegistrationClosed { cause: RegistrationCloseCause::Deadline, at: Utc::now() })],
    );
    let late = log.register(2);
    let entries = differences(&audit(&log.commits), "entries");
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].sequences, vec![closed, late]);
}

#[test]
fn a_commit_that_does_not_decode_is_found() {
    let mut log = tournament();
    log.commits[1].body = b"{not json".to_vec();
    let report = audit(&log.commits);
    assert_eq!(differences(&report, "decode")[0].sequences, vec![2]);
}

#[test]
fn an_entry_without_a_place_is_found() {
    let mut log = tournament();
    // The third's award (place 3, nothing paid) removed from the log.
    let third = log.commits.iter().position(|c| String::from_utf8_lossy(&c.body).contains("\"place\":3")).unwrap();
    log.commits.remove(third);
    let paid_at = paid(&mut log, 300);
    let places = differences(&audit(&log.commits), "places");
    assert_eq!(places.len(), 1, "{places:?}");
    assert!(places[0].message.contains("#3 has no place") && places[0].sequences.contains(&paid_at));
}

#[test]
fn a_ticket_spent_twice_is_found() {
    use floor_events::satellites::{SatelliteEvent, TicketRef, TicketSpent};
    let mut log = Log::new();
    let ticket = TicketRef { satellite: TournamentId(log.id), entry: EntryNo(4) };
    let spend = |t: &TicketRef| {
        SatelliteEvent::TicketSpent(TicketSpent { ticket: *t, tournament: TournamentId::new(), entry: EntryNo(1), at: Utc::now() })
    };
    let first = log.push("satellite", &[spend(&ticket)]);
    let second = log.push("satellite", &[spend(&ticket)]);
    let tickets = differences(&audit(&log.commits), "tickets");
    assert_eq!(tickets.len(), 1, "{tickets:?}");
    assert_eq!(tickets[0].sequences, vec![first, second]);
}

#[test]
fn a_shared_range_split_unevenly_is_found() {
    let mut log = tournament();
    // Places 1 and 2 shared (200 + 100): 150 each, here 160 and 140.
    log.commits.truncate(log.commits.len() - 2);
    let shared =
        |entry: u32, amount: u64| PlaceAward { entry: EntryNo(entry), player: PlayerId::parse("p").unwrap(), place: 1, shared: 2, amount };
    let seq = log.push(
        "payouts",
        &[PayoutEvent::PlacesAwarded { players_left_before: 2, awards: vec![shared(1, 160), shared(2, 140)], hand_for_hand: None }],
    );
    paid(&mut log, 300);
    let places = differences(&audit(&log.commits), "places");
    assert_eq!(places.len(), 1, "{places:?}");
    assert_eq!(places[0].sequences, vec![seq]);
    // 150 each is right.
    let mut fair = tournament();
    fair.commits.truncate(fair.commits.len() - 2);
    fair.push(
        "payouts",
        &[PayoutEvent::PlacesAwarded { players_left_before: 2, awards: vec![shared(1, 150), shared(2, 150)], hand_for_hand: None }],
    );
    paid(&mut fair, 300);
    let report = audit(&fair.commits);
    assert!(report.ok, "{}", report.summary());
}

#[test]
fn a_cancellation_before_the_start_refunds_every_entry_what_it_paid() {
    use floor_events::registration::{CancellationReason, Refund, TournamentCancelled};
    let refund = |entry: u32, paid_in: u64| Refund {
        entry: EntryNo(entry),
        player: PlayerId::parse("p").unwrap(),
        refund: EntryLedger { paid_in: eur(paid_in), fee: eur(paid_in - 100), prize_pool: eur(100) },
    };
    let cancel = |refunds| {
        TournamentEvent::TournamentCancelled(TournamentCancelled {
            reason: CancellationReason::Director { reason: "x".into() },
            refunds,
            at: Utc::now(),
        })
    };
    let mut log = Log::new();
    log.register(1);
    log.register(2);
    log.push("tournament", &[cancel(vec![refund(1, 110), refund(2, 110)])]);
    let report = audit(&log.commits);
    assert!(report.ok, "{}", report.summary());

    let mut log = Log::new();
    log.register(1);
    let second = log.register(2);
    let cancelled = log.push("tournament", &[cancel(vec![refund(1, 105)])]);
    let money = differences(&audit(&log.commits), "money");
    assert_eq!(money.len(), 2, "{money:?}");
    assert!(money[0].message.contains("refunded 105"));
    assert_eq!(money[1].sequences, vec![second, cancelled]);
}
