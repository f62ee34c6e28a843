//! The anchor (issue 42): a running hash over every commit of `FLOOR_EVENTS` in stream order,
//! stored in KV `floor-checkpoints` under [`ANCHOR_KEY`] every [`EVERY`] commits and whenever the
//! log has been quiet for a second after new commits (so a tournament's last commits are
//! anchored when it ends). The chains ([`super::chain`]) show a commit altered, injected or
//! removed before another commit of its aggregate; the anchor fixes everything up to its
//! sequence, the last commit of each chain included: an operator who keeps a copy (`floor
//! status` prints it) can show later that nothing stored up to there changed.
//!
//! `anchor(n) = SHA-256("floor-anchor/1\n" ‖ anchor(n-1) ‖ "\n" ‖ sequence ‖ "\n" ‖ commit hash)`,
//! hex, from [`super::chain::GENESIS`]; `floor-audit` recomputes it with its own code.
//!
//! Every process that runs the platform keeps it; two writers compute the same values, so
//! whichever writes last writes the same anchor.

use super::chain::{commit_hash, GENESIS, PREVIOUS_HASH_HEADER};
use crate::bootstrap::Backbone;
use crate::encoding::hex;
use async_nats::jetstream::consumer::{pull, DeliverPolicy};
use floor_events::subjects;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The anchor's key in [`subjects::CHECKPOINT_BUCKET`].
pub const ANCHOR_KEY: &str = "anchor";

/// Commits between two writes of the anchor while the log is busy.
pub const EVERY: u64 = 1_000;

/// How long the log stays quiet before the commits since the last write are anchored.
const QUIET: Duration = Duration::from_secs(1);

/// The running hash up to a stream sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Folds in the commit at `sequence` whose own hash is `commit_hash`.
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

/// Keeps the anchor in KV until `shutdown`: reads the stored one, folds every commit after it,
/// and writes it back as it goes. Errors are logged and retried after a pause.
pub async fn run(backbone: Backbone, shutdown: CancellationToken) {
    loop {
        let result = tokio::select! {
            _ = shutdown.cancelled() => return,
            result = keep(&backbone, &shutdown) => result,
        };
        match result {
            Ok(()) => return,
            Err(e) => tracing::warn!(error = %e, "anchor: retrying"),
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

async fn keep(backbone: &Backbone, shutdown: &CancellationToken) -> Result<(), String> {
    let kv = backbone.jetstream.get_key_value(subjects::CHECKPOINT_BUCKET).await.map_err(|e| e.to_string())?;
    let mut anchor = match kv.get(ANCHOR_KEY).await.map_err(|e| e.to_string())? {
        Some(value) => serde_json::from_slice(&value).map_err(|e| format!("the stored anchor: {e}"))?,
        None => Anchor::default(),
    };
    let consumer = backbone
        .events
        .create_consumer(pull::OrderedConfig {
            filter_subject: "floor.ev.>".to_owned(),
            deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: anchor.sequence + 1 },
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())?;
    let mut messages = consumer.messages().await.map_err(|e| e.to_string())?;
    let mut written = anchor.commits;
    loop {
        let next = tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            next = tokio::time::timeout(QUIET, messages.next()) => next,
        };
        match next {
            Ok(Some(message)) => {
                let message = message.map_err(|e| e.to_string())?;
                let sequence = message.info().map_err(|e| e.to_string())?.stream_sequence;
                let carried = message.headers.as_ref().and_then(|h| h.get(PREVIOUS_HASH_HEADER)).map_or("", |v| v.as_str());
                anchor.step(sequence, &commit_hash(message.subject.as_str(), carried, &message.payload));
                if anchor.commits - written < EVERY {
                    continue;
                }
            }
            Ok(None) => return Err("the stream's consumer ended".to_owned()),
            Err(_quiet) if anchor.commits == written => continue,
            Err(_quiet) => {}
        }
        kv.put(ANCHOR_KEY, serde_json::to_vec(&anchor).expect("an anchor serializes").into()).await.map_err(|e| e.to_string())?;
        written = anchor.commits;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recomputed by `floor-audit` (its `the_anchor_is_the_runtimes`): it must never change.
    /// Python: `sha256(b"floor-anchor/1\n" + b"0"*64 + b"\n7\n" + b"ab"*32).hexdigest()`.
    #[test]
    fn the_anchor_is_stable_across_builds() {
        let mut a = Anchor::default();
        a.step(7, &"ab".repeat(32));
        assert_eq!(a.hash, "223f06e8b202bf6507a9eb51fe785ab5ebe53646e1d4142f77456c2e555e0d7e");
        assert_eq!((a.sequence, a.commits), (7, 1));
    }
}
