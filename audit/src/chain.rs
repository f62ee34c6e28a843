//! The hash chains (issue 42), verified with code of this crate's own: each commit carries, in
//! the `Floor-Prev-Hash` header, the hash of its aggregate's previous commit (SHA-256 over
//! `floor-chain/1\n`, the subject, `\n`, what that commit carries, `\n`, its stored body; the
//! first commit of an aggregate carries 64 zeros). The runtime's append writes it
//! (`floor_runtime::store::chain`); the golden value in the tests is the same on both sides.
//!
//! A break is classified by what the commit carries: the hash of a commit two or more back
//! (the commits between were injected), of a commit stored after it (reordered), the genesis
//! again (a second chain: injected), a hash no commit has (its predecessor altered, or a commit
//! between them removed: removed when the stream has deleted a sequence between them). A
//! commit without a hash after chained ones is injected or stripped; commits without a hash
//! before the first chained one are legacy (stored before chains) and only counted.
//!
//! The running anchor over the whole stream ([`Anchor`]) is what fixes the last commit of each
//! chain: a chain alone cannot tell its own last commit altered or removed.

use crate::{Difference, LogCommit};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// What the first commit of an aggregate carries.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The header name a commit's previous hash is stored in.
pub const HEADER: &str = "Floor-Prev-Hash";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The hash of a commit as stored: its subject, what it carries (`""` for a legacy commit) and
/// its body; lower-case hex.
pub fn commit_hash(subject: &str, carried: &str, body: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(b"floor-chain/1\n");
    h.update(subject.as_bytes());
    h.update(b"\n");
    h.update(carried.as_bytes());
    h.update(b"\n");
    h.update(body);
    hex(&h.finalize())
}

/// A commit's own hash.
pub fn hash_of(c: &LogCommit) -> String {
    commit_hash(&c.subject, c.previous.as_deref().unwrap_or(""), &c.body)
}

/// What the chains of a log hold.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Chains {
    /// Commits that carry a hash.
    pub chained: usize,
    /// Commits stored before chains (no hash, and no chained commit before them on their subject).
    pub legacy: usize,
    /// Every break, gap, injected, altered, removed or reordered commit.
    pub differences: Vec<Difference>,
}

/// Verifies every subject's chain in `commits` (any order: read in stream order). `deleted`:
/// the stream sequences the stream reports deleted (`num_deleted`'s details), which tell a
/// removed commit from an altered one.
pub fn verify(commits: &[LogCommit], deleted: &[u64]) -> Chains {
    let mut sorted: Vec<&LogCommit> = commits.iter().collect();
    sorted.sort_by_key(|c| c.sequence);
    let mut verifier = Verifier::default();
    for c in sorted {
        verifier.push(&c.subject, c.sequence, c.previous.as_deref(), &c.body);
    }
    verifier.finish(deleted)
}

/// One subject's chain so far.
#[derive(Default)]
struct Subject {
    /// Each commit's (sequence, hash), in stream order.
    hashes: Vec<(u64, String)>,
    /// Position of each hash in `hashes`.
    index: HashMap<String, usize>,
    chained: bool,
    /// Sequences named as stored before the commit whose hash they carry.
    reordered: Vec<u64>,
}

/// A break whose cause is known only once every commit is read.
struct Pending {
    subject: String,
    sequence: u64,
    before: u64,
    carried: String,
}

/// Verifies chains one commit at a time, in stream order (what `floor status` streams the whole
/// log through): per subject it keeps each commit's hash (64 bytes and a sequence a commit).
#[derive(Default)]
pub struct Verifier {
    subjects: HashMap<String, Subject>,
    pending: Vec<Pending>,
    out: Chains,
}

impl Verifier {
    /// The next commit in stream order: its subject, sequence, what it carries (`None`: no
    /// header) and its stored body. Returns its own hash.
    pub fn push(&mut self, subject: &str, seq: u64, carried: Option<&str>, body: &[u8]) -> String {
        let hash = commit_hash(subject, carried.unwrap_or(""), body);
        let s = self.subjects.entry(subject.to_owned()).or_default();
        let i = s.hashes.len();
        s.index.entry(hash.clone()).or_insert(i);
        s.hashes.push((seq, hash.clone()));
        let mut d = |message: String, sequences: Vec<u64>| self.out.differences.push(Difference { message, sequences });
        let Some(carried) = carried else {
            match s.chained {
                true => d(
                    format!(
                        "{subject}: the commit at sequence {seq} carries no hash after chained commits (injected, or its hash stripped)"
                    ),
                    vec![seq],
                ),
                false => self.out.legacy += 1,
            }
            return hash;
        };
        self.out.chained += 1;
        s.chained = true;
        let expected = match i {
            0 => GENESIS,
            _ => s.hashes[i - 1].1.as_str(),
        };
        if carried == expected {
            return hash;
        }
        if i == 0 {
            // Classified once the stream's deleted sequences are known.
            self.pending.push(Pending { subject: subject.to_owned(), sequence: seq, before: 0, carried: carried.to_owned() });
            return hash;
        }
        let before = s.hashes[i - 1].0;
        if carried == GENESIS {
            d(format!("{subject}: the commit at sequence {seq} starts a second chain (injected)"), vec![seq]);
            return hash;
        }
        match s.index.get(carried).copied() {
            Some(j) if j + 1 < i => {
                let between: Vec<u64> = s.hashes[j + 1..i].iter().map(|(seq, _)| *seq).collect();
                if !between.iter().all(|b| s.reordered.contains(b)) {
                    d(
                        format!("{subject}: the commit at sequence {seq} follows sequence {}; the commits at {between:?} between them were injected", s.hashes[j].0),
                        between.iter().copied().chain([seq]).collect(),
                    );
                }
            }
            // Its own hash (a commit cannot carry it) or, below, one not seen yet.
            _ => {
                s.reordered.push(seq);
                self.pending.push(Pending { subject: subject.to_owned(), sequence: seq, before, carried: carried.to_owned() });
            }
        }
        hash
    }

    /// Every commit read: the breaks whose cause needed the rest of the log, classified.
    pub fn finish(mut self, deleted: &[u64]) -> Chains {
        for p in std::mem::take(&mut self.pending) {
            let s = &self.subjects[&p.subject];
            let (subject, seq, before) = (&p.subject, p.sequence, p.before);
            let (message, sequences) = match s.index.get(&p.carried).map(|j| s.hashes[*j].0) {
                _ if before == 0 => match deleted.iter().rev().find(|x| **x < seq) {
                    Some(gone) => (
                        format!("{subject}: its first commit left (sequence {seq}) follows a commit removed from the stream (sequence {gone} deleted)"),
                        vec![*gone, seq],
                    ),
                    None => (
                        format!("{subject}: its first commit (sequence {seq}) carries {}, not the genesis: the commits before it are missing (a gap: removed)", p.carried),
                        vec![seq],
                    ),
                },
                Some(after) if after > seq => {
                    (format!("{subject}: the commit at sequence {seq} carries the hash of sequence {after}, stored after it (reordered)"), vec![seq, after])
                }
                _ => match deleted.iter().find(|x| **x > before && **x < seq) {
                    Some(gone) => (
                        format!("{subject}: the commit at sequence {seq} follows a commit removed from the stream (sequence {gone} deleted)"),
                        vec![*gone, seq],
                    ),
                    None => (
                        format!("{subject}: the commit at sequence {before} does not hash to what sequence {seq} carries: altered (or a commit between them removed)"),
                        vec![before, seq],
                    ),
                },
            };
            self.out.differences.push(Difference { message, sequences });
        }
        self.out.differences.sort_by_key(|d| d.sequences.last().copied());
        self.out
    }
}

/// The running anchor over a stream: every commit's hash in stream order, folded
/// (`SHA-256("floor-anchor/1\n" ‖ previous ‖ "\n" ‖ sequence ‖ "\n" ‖ commit hash)`, starting from
/// [`GENESIS`]). The platform stores it in KV (`floor-checkpoints`, key `anchor`) as it goes;
/// the operator keeps copies; recomputing it up to a kept sequence shows whether anything
/// stored up to there changed since.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Anchor {
    /// The last stream sequence folded in.
    pub sequence: u64,
    /// Commits folded in.
    pub commits: u64,
    /// The running hash, lower-case hex.
    pub hash: String,
}

impl Default for Anchor {
    fn default() -> Self {
        Self { sequence: 0, commits: 0, hash: GENESIS.to_owned() }
    }
}

impl Anchor {
    /// Folds in the commit at `sequence` whose hash is `commit_hash`.
    pub fn step(&mut self, sequence: u64, commit_hash: &str) {
        let mut h = Sha256::new();
        h.update(b"floor-anchor/1\n");
        h.update(self.hash.as_bytes());
        h.update(b"\n");
        h.update(sequence.to_string().as_bytes());
        h.update(b"\n");
        h.update(commit_hash.as_bytes());
        self.hash = hex(&h.finalize());
        self.sequence = sequence;
        self.commits += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    /// The same value as the runtime's `the_hash_of_a_commit_is_stable_across_builds`.
    #[test]
    fn the_hash_is_the_runtimes() {
        assert_eq!(commit_hash("floor.ev.payouts.t", GENESIS, b"[]"), "97f7d56f2e00b6f993e116ff49345d8b0df20f85f7e8803b60900855c36bb207");
    }

    /// The same value as the runtime's anchor test (Python:
    /// `sha256(b"floor-anchor/1\n" + b"0"*64 + b"\n7\n" + b"ab"*32)`).
    #[test]
    fn the_anchor_is_the_runtimes() {
        let mut a = Anchor::default();
        a.step(7, &"ab".repeat(32));
        assert_eq!(a.hash, ANCHOR_GOLDEN);
        assert_eq!((a.sequence, a.commits), (7, 1));
    }
    const ANCHOR_GOLDEN: &str = "223f06e8b202bf6507a9eb51fe785ab5ebe53646e1d4142f77456c2e555e0d7e";

    fn chain(subject: &str, bodies: &[&str]) -> Vec<LogCommit> {
        let mut out: Vec<LogCommit> = Vec::new();
        for (i, b) in bodies.iter().enumerate() {
            let previous = out.last().map_or(GENESIS.to_owned(), hash_of);
            out.push(LogCommit {
                subject: subject.to_owned(),
                sequence: i as u64 * 2 + 1,
                time: Utc::now(),
                body: b.as_bytes().to_vec(),
                previous: Some(previous),
            });
        }
        out
    }

    fn found(commits: &[LogCommit], deleted: &[u64]) -> Vec<(String, Vec<u64>)> {
        verify(commits, deleted).differences.into_iter().map(|d| (d.message, d.sequences)).collect()
    }

    #[test]
    fn an_intact_chain_and_legacy_commits_before_it_hold() {
        let mut log = chain("s", &["[1]", "[2]", "[3]"]);
        assert_eq!(verify(&log, &[]), Chains { chained: 3, legacy: 0, differences: vec![] });
        // Two legacy commits, then the chain continues onto them.
        let mut legacy: Vec<LogCommit> = (0..2)
            .map(|n| LogCommit { subject: "s".into(), sequence: 100 + n, time: Utc::now(), body: b"[0]".to_vec(), previous: None })
            .collect();
        for c in &mut log {
            c.sequence += 200;
        }
        log[0].previous = Some(hash_of(&legacy[1]));
        let rechain = |log: &mut Vec<LogCommit>| {
            for i in 1..log.len() {
                log[i].previous = Some(hash_of(&log[i - 1]));
            }
        };
        rechain(&mut log);
        legacy.extend(log);
        let chains = verify(&legacy, &[]);
        assert_eq!((chains.chained, chains.legacy), (3, 2), "{:?}", chains.differences);
        assert!(chains.differences.is_empty(), "{:?}", chains.differences);
    }

    #[test]
    fn an_altered_commit_is_named_with_its_successor() {
        let mut log = chain("s", &["[1]", "[2]", "[3]"]);
        log[1].body = b"[9]".to_vec();
        let d = found(&log, &[]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].0.contains("altered"), "{d:?}");
        assert_eq!(d[0].1, vec![3, 5]);
    }

    #[test]
    fn a_removed_commit_is_a_gap_named_by_the_deleted_sequence() {
        let mut log = chain("s", &["[1]", "[2]", "[3]"]);
        log.remove(1);
        let d = found(&log, &[3]);
        assert!(d[0].0.contains("removed") && d[0].1 == vec![3, 5], "{d:?}");
        let d = found(&log, &[]);
        assert!(d[0].0.contains("altered (or a commit between them removed)"), "{d:?}");
        // The first commit removed: the chain starts without the genesis.
        let mut log = chain("s", &["[1]", "[2]"]);
        log.remove(0);
        assert!(found(&log, &[])[0].0.contains("a gap"));
        assert!(found(&log, &[1])[0].0.contains("sequence 1 deleted"));
    }

    #[test]
    fn an_injected_commit_is_named_whether_or_not_it_carries_a_hash() {
        let log = chain("s", &["[1]", "[2]"]);
        // Carrying its predecessor's hash: its successor then carries a hash two back.
        let mut forged = log.clone();
        forged.insert(1, LogCommit { sequence: 2, previous: Some(hash_of(&log[0])), body: b"[7]".to_vec(), ..log[0].clone() });
        let d = found(&forged, &[]);
        assert!(d[0].0.contains("injected") && d[0].1 == vec![2, 3], "{d:?}");
        // Carrying nothing.
        let mut bare = log.clone();
        bare.push(LogCommit { sequence: 9, previous: None, ..log[0].clone() });
        assert!(found(&bare, &[])[0].0.contains("carries no hash"));
        // A second genesis.
        let mut second = log.clone();
        second.push(LogCommit { sequence: 9, previous: Some(GENESIS.into()), ..log[0].clone() });
        assert!(found(&second, &[])[0].0.contains("second chain"));
    }

    #[test]
    fn reordered_commits_are_named() {
        let mut log = chain("s", &["[1]", "[2]", "[3]"]);
        // Stored as 1, 3, 2 (a rewritten copy: the sequences follow the new order).
        log.swap(1, 2);
        log[1].sequence = 3;
        log[2].sequence = 5;
        let d = found(&log, &[]);
        assert!(d.iter().any(|(m, s)| m.contains("reordered") && s == &vec![3, 5]), "{d:?}");
    }
}
