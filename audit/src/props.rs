//! Property (issue 42): a random tournament's chained log, as exported, audits ok, and any
//! single-commit mutation of it — altered, removed, injected, reordered — is found: by the chain
//! check whenever the commit has a successor on its aggregate's subject, and otherwise (the last
//! commit of a chain) by the anchor the operator kept.

use super::chain::{hash_of, Anchor};
use super::*;
use floor_events::payouts::PlaceAward;
use floor_events::record::encode_commit;
use floor_events::registration::{EntryEliminated, EntryKind, EntryRegistered, TournamentCreated};
use floor_events::tournament::TournamentDefinition;
use floor_events::{Currency, EntryNo, Money, PlayerId, TournamentId};
use proptest::prelude::*;

fn eur(amount: u64) -> Money {
    Money { amount, currency: Currency::EUR }
}

/// A freezeout of `n` entries of 100 each, the winner paid the pool, other aggregates'
/// commits interleaved as the stream interleaves them; sequences 10 apart (room to inject).
fn tournament(n: u32) -> Vec<LogCommit> {
    let id = uuid::Uuid::from_u128(u128::from(n) << 64 | 0x42);
    let mut log: Vec<LogCommit> = Vec::new();
    let mut push = |aggregate: &str, body: Vec<u8>| {
        let sequence = (log.len() as u64 + 1) * 10;
        log.push(LogCommit { subject: format!("floor.ev.{aggregate}.{id}"), sequence, time: Utc::now(), body, previous: None });
    };
    let created = TournamentCreated {
        tournament_id: TournamentId(id),
        definition: TournamentDefinition { capacity: n, ..TournamentDefinition::example() },
        at: Utc::now(),
    };
    push("tournament", encode_commit(&[TournamentEvent::TournamentCreated(created)]));
    let player = |e: u32| PlayerId::parse(&format!("p{e}")).unwrap();
    for entry in 1..=n {
        let e = TournamentEvent::EntryRegistered(EntryRegistered {
            entry: EntryNo(entry),
            player: player(entry),
            kind: EntryKind::Registration,
            new_player: true,
            ledger: EntryLedger { paid_in: eur(110), fee: eur(10), prize_pool: eur(100) },
            at: Utc::now(),
            ticket: None,
        });
        push("tournament", encode_commit(&[e]));
    }
    let seed = "5a".repeat(32);
    push("seating", encode_commit(&[SeatingEvent::DrawCommitted { commitment: seed_hash(&seed).unwrap() }]));
    push("seating", encode_commit(&[SeatingEvent::TablesDrawn { seed, total_tables: 1, tables: vec![], at: Utc::now() }]));
    let pool = u64::from(n) * 100;
    push(
        "payouts",
        encode_commit(&[PayoutEvent::PayoutTableLocked {
            entries: n,
            contributions: eur(pool),
            guarantee: None,
            overlay: eur(0),
            pool: eur(pool),
            places: 1,
            bands: vec![PrizeBand { from: 1, to: 1, amount: pool }],
            cause: LockCause::Started,
        }]),
    );
    for place in (1..=n).rev() {
        if place > 1 {
            let out = EntryEliminated { entry: EntryNo(place), player: player(place), at: Utc::now() };
            push("tournament", encode_commit(&[TournamentEvent::EntryEliminated(out)]));
        }
        let amount = if place == 1 { pool } else { 0 };
        let award = PlaceAward { entry: EntryNo(place), player: player(place), place, shared: 1, amount };
        let awarded = PayoutEvent::PlacesAwarded { players_left_before: place, awards: vec![award], hand_for_hand: None };
        push("payouts", encode_commit(&[awarded]));
    }
    push("payouts", encode_commit(&[PayoutEvent::TournamentPaid { prizes_paid: eur(pool) }]));
    // Chained as the runtime's append chains them.
    let mut heads: BTreeMap<String, String> = BTreeMap::new();
    for c in &mut log {
        c.previous = Some(heads.get(&c.subject).cloned().unwrap_or_else(|| chain::GENESIS.to_owned()));
        heads.insert(c.subject.clone(), hash_of(c));
    }
    log
}

fn anchor(log: &[LogCommit]) -> Anchor {
    let mut a = Anchor::default();
    for c in log {
        a.step(c.sequence, &hash_of(c));
    }
    a
}

#[derive(Debug, Clone, Copy)]
enum Mutation {
    Alter,
    Remove,
    InjectForged,
    InjectBare,
    Reorder,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_single_commit_mutation_is_found(
        n in 2u32..12,
        at in any::<prop::sample::Index>(),
        mutation in prop_oneof![
            Just(Mutation::Alter), Just(Mutation::Remove), Just(Mutation::InjectForged),
            Just(Mutation::InjectBare), Just(Mutation::Reorder)
        ],
    ) {
        let log = tournament(n);
        let clean = audit(&log);
        prop_assert!(clean.ok, "{}", clean.summary());
        prop_assert_eq!(clean.chained, log.len());
        let kept = anchor(&log);
        let i = at.index(log.len());
        let successor = log.iter().skip(i + 1).position(|c| c.subject == log[i].subject).map(|p| p + i + 1);
        let mut mutated = log.clone();
        let mut deleted = Vec::new();
        match mutation {
            Mutation::Alter => mutated[i].body.push(b' '),
            Mutation::Remove => {
                deleted.push(log[i].sequence);
                mutated.remove(i);
            }
            Mutation::InjectForged | Mutation::InjectBare => {
                let previous = match mutation {
                    Mutation::InjectForged => Some(hash_of(&log[i])),
                    _ => None,
                };
                mutated.insert(i + 1, LogCommit { sequence: log[i].sequence + 5, previous, ..log[i].clone() });
            }
            Mutation::Reorder => {
                // Swapped with the next commit of its subject (keeping their places in the stream).
                let Some(j) = successor else { return Ok(()) };
                let (a, b) = (mutated[i].clone(), mutated[j].clone());
                mutated[i] = LogCommit { sequence: a.sequence, ..b };
                mutated[j] = LogCommit { sequence: mutated[j].sequence, ..a };
            }
        }
        let report = audit_with(&mutated, &deleted);
        let chain_found = !report.checks[0].ok;
        match (successor, mutation) {
            // An injection after the last commit carrying no hash, or one carrying the hash of the
            // commit before it, and anything done to a chain's last commit: the kept anchor.
            (None, _) => prop_assert!(chain_found || !report.ok || anchor(&mutated) != kept, "{mutation:?} at {i} not found"),
            _ => {
                prop_assert!(chain_found, "{mutation:?} at {i} (sequence {}): {}", log[i].sequence, report.summary());
                let named: Vec<u64> = report.checks[0].differences.iter().flat_map(|d| d.sequences.clone()).collect();
                let near = [Some(log[i].sequence), Some(log[i].sequence + 5), successor.map(|j| log[j].sequence)];
                prop_assert!(named.iter().any(|s| near.contains(&Some(*s))), "{mutation:?} at {i}: {named:?}");
            }
        }
    }
}
