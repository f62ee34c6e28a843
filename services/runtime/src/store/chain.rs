//! Tamper evidence (issue 42): every commit carries, in [`PREVIOUS_HASH_HEADER`], the hash of
//! the commit before it on its aggregate's subject, so each aggregate's commits form a chain. A
//! commit altered, injected, removed or moved in the stream no longer matches the hash its
//! successor carries; `floor audit` and `floor status` verify the chains (the `floor-audit` crate
//! computes the same hash with its own code: the golden value in the tests below is shared).
//!
//! The hash of a commit is SHA-256 over `floor-chain/1\n`, its subject, `\n`, the value of its
//! own [`PREVIOUS_HASH_HEADER`] as stored (empty for a commit stored before chains, "legacy"),
//! `\n`, and its body as stored. The first commit of an aggregate carries [`GENESIS`].
//!
//! The append learns the hash of the commit it expects to be last from [`Heads`] (what this
//! store appended) or, after a restart or another writer's commit, by reading that commit; the
//! server's expected-last-subject-sequence check then guarantees the commit hashed is the one
//! the new commit follows.

use crate::encoding::hex;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;

/// The header carrying the hash of the aggregate's previous commit (64 lower-case hex digits).
pub const PREVIOUS_HASH_HEADER: &str = "Floor-Prev-Hash";

/// What the first commit of an aggregate carries: no commit before it.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The hash of a stored commit: its subject, the previous hash it carries (`""` for a legacy
/// commit) and its body, as lower-case hex. The value its successor carries.
pub fn commit_hash(subject: &str, carried: &str, body: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update(b"floor-chain/1\n");
    hash.update(subject.as_bytes());
    hash.update(b"\n");
    hash.update(carried.as_bytes());
    hash.update(b"\n");
    hash.update(body);
    hex(&hash.finalize())
}

/// Heads of the chains this store appended: per subject, the stream sequence and hash of its
/// last commit. A head is used only when its sequence is the one the append expects to be last
/// (sequences are unique in the stream, so a stale head is never used, only missed).
#[derive(Default)]
pub(super) struct Heads(Mutex<HashMap<String, (u64, String)>>);

/// Heads kept before the map is emptied (a long-running process touches many aggregates; a
/// miss costs one direct get).
const MAX_HEADS: usize = 65_536;

impl Heads {
    pub(super) fn get(&self, subject: &str, sequence: u64) -> Option<String> {
        let heads = crate::sync::lock(&self.0);
        heads.get(subject).filter(|(at, _)| *at == sequence).map(|(_, hash)| hash.clone())
    }

    pub(super) fn set(&self, subject: &str, sequence: u64, hash: String) {
        let mut heads = crate::sync::lock(&self.0);
        if heads.len() >= MAX_HEADS && !heads.contains_key(subject) {
            heads.clear();
        }
        heads.insert(subject.to_owned(), (sequence, hash));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stored in every log and recomputed by `floor-audit`'s own code: it must never change.
    /// Computed apart from this code: Python's
    /// `hashlib.sha256(b"floor-chain/1\nfloor.ev.payouts.t\n" + b"0"*64 + b"\n[]").hexdigest()`.
    #[test]
    fn the_hash_of_a_commit_is_stable_across_builds() {
        assert_eq!(commit_hash("floor.ev.payouts.t", GENESIS, b"[]"), GOLDEN);
        assert_eq!(GENESIS.len(), 64);
    }
    const GOLDEN: &str = "97f7d56f2e00b6f993e116ff49345d8b0df20f85f7e8803b60900855c36bb207";

    #[test]
    fn the_subject_what_it_carries_and_the_body_each_change_the_hash() {
        let h = commit_hash("floor.ev.payouts.t", GENESIS, b"[]");
        assert_ne!(h, commit_hash("floor.ev.payouts.u", GENESIS, b"[]"));
        assert_ne!(h, commit_hash("floor.ev.payouts.t", "", b"[]"));
        assert_ne!(h, commit_hash("floor.ev.payouts.t", GENESIS, b"[1]"));
    }

    #[test]
    fn a_head_is_used_only_at_its_own_sequence() {
        let heads = Heads::default();
        heads.set("s", 7, "h7".to_owned());
        assert_eq!(heads.get("s", 7).as_deref(), Some("h7"));
        assert_eq!(heads.get("s", 8), None);
        assert_eq!(heads.get("t", 7), None);
    }
}
