//! Results that stay (issue 39): every finisher's place and prize, in KV bucket [`BUCKET`],
//! written by the lobby's projection from the payouts log's `places_awarded`.
//!
//! The lobby document keeps only the latest cashes and the final table, so it stays the same
//! size at 250,000 entrants. The results are their own resources, in chunks of bounded size,
//! each written only when a place in it is awarded:
//!
//! | key | holds | at most |
//! |---|---|---|
//! | `<t>.places.<k>` | places `k·500+1 … k·500+500`, best first: one page of the results list | [`PLACES_PER_CHUNK`] finishers |
//! | `<t>.entries.<k>` | the finishers of entries `k·1000 … k·1000+999` (the seat map's roster chunks): what the player search reads | [`ENTRIES_PER_CHUNK`] finishers |
//!
//! A finisher is a [`PlaceAward`] as payouts awarded it (place, shared, prize in minor units of
//! the pool's currency, 0 out of the money). Folding is a merge by entry (an entry is placed
//! once): a commit folded twice, after a crash between the write and the checkpoint, changes
//! nothing. At 250,000 entrants that is 500 place chunks and 250 entry chunks of about 50 and
//! 100 kB, against a lobby document that does not grow.

use async_nats::jetstream::{self, kv};
use floor_events::payouts::PlaceAward;
use floor_events::{EntryNo, TournamentId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The bucket of results.
pub const BUCKET: &str = "floor-lobby-results";
/// Places per chunk, and per page of the results list.
pub const PLACES_PER_CHUNK: u32 = 500;
/// Entries per chunk of the search's index (as the seat map's roster chunks).
pub const ENTRIES_PER_CHUNK: u32 = crate::seat_map::ROSTER_CHUNK;

/// The bucket, created on first use (the lobby's projection is its only writer).
///
/// # Errors
/// When the bucket can neither be read nor created.
pub async fn bucket(jetstream: &jetstream::Context) -> Result<kv::Store, String> {
    floor_runtime::bootstrap::key_value(jetstream, BUCKET, "Floor lobby: each tournament's finishers, place and prize").await
}

/// The key of the chunk holding `place` (from 1).
pub fn place_key(tournament: TournamentId, place: u32) -> String {
    format!("{tournament}.places.{}", place.saturating_sub(1) / PLACES_PER_CHUNK)
}

/// The key of page `page` (from 1) of the results list.
pub fn page_key(tournament: TournamentId, page: u32) -> String {
    format!("{tournament}.places.{}", page.saturating_sub(1))
}

/// The key of the chunk holding `entry`.
pub fn entry_key(tournament: TournamentId, entry: EntryNo) -> String {
    format!("{tournament}.entries.{}", entry.0 / ENTRIES_PER_CHUNK)
}

/// Finishers, best place first (then by entry).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultsChunk {
    /// The finishers.
    pub finishers: Vec<PlaceAward>,
}

impl ResultsChunk {
    /// With `awards` folded in: an entry placed again replaces its line.
    pub fn with<'a>(mut self, awards: impl IntoIterator<Item = &'a PlaceAward>) -> Self {
        for award in awards {
            self.finishers.retain(|f| f.entry != award.entry);
            self.finishers.push(award.clone());
        }
        self.finishers.sort_by_key(|f| (f.place, f.entry));
        self
    }

    /// The finisher of `entry`, if placed.
    pub fn of(&self, entry: EntryNo) -> Option<&PlaceAward> {
        self.finishers.iter().find(|f| f.entry == entry)
    }
}

/// The chunks a batch of awards changes, each with the awards it takes.
pub fn by_key(awards: &[(TournamentId, PlaceAward)]) -> BTreeMap<String, Vec<PlaceAward>> {
    let mut keys: BTreeMap<String, Vec<PlaceAward>> = BTreeMap::new();
    for (t, award) in awards {
        keys.entry(place_key(*t, award.place)).or_default().push(award.clone());
        keys.entry(entry_key(*t, award.entry)).or_default().push(award.clone());
    }
    keys
}

/// A chunk as stored; an absent or unreadable one is empty.
///
/// # Errors
/// When the bucket does not answer.
pub async fn chunk(bucket: &kv::Store, key: &str) -> Result<ResultsChunk, kv::EntryError> {
    Ok(bucket.get(key).await?.and_then(|v| serde_json::from_slice(&v).ok()).unwrap_or_default())
}

/// Folds `awards` into their chunks in `bucket`: each chunk read, merged and written back
/// (the projection is the bucket's one writer).
///
/// # Errors
/// The first read or write that failed, as text.
pub async fn store(bucket: &kv::Store, awards: &[(TournamentId, PlaceAward)]) -> Result<(), String> {
    use futures::{StreamExt, TryStreamExt};
    futures::stream::iter(by_key(awards))
        .map(|(key, awards)| async move {
            let merged = chunk(bucket, &key).await.map_err(|e| e.to_string())?.with(&awards);
            let value = serde_json::to_vec(&merged).expect("results serialize");
            bucket.put(key, value.into()).await.map_err(|e| e.to_string())
        })
        .buffer_unordered(16)
        .try_collect::<Vec<_>>()
        .await?;
    Ok(())
}

/// `n` as an ordinal: 1st, 2nd, 3rd, 4th, 11th, 21st.
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use floor_events::PlayerId;

    fn award(entry: u32, place: u32, amount: u64) -> PlaceAward {
        PlaceAward { entry: EntryNo(entry), player: PlayerId::parse(&format!("p{entry}")).unwrap(), place, shared: 1, amount }
    }

    #[test]
    fn a_chunk_keeps_every_finisher_best_first_and_a_commit_folded_twice_changes_nothing() {
        let busts = [award(7, 40, 0), award(3, 12, 1_500), award(9, 12, 1_500)];
        let once = ResultsChunk::default().with(&busts[..2]).with(&busts[2..]);
        assert_eq!(once.finishers.iter().map(|f| (f.place, f.entry.0)).collect::<Vec<_>>(), [(12, 3), (12, 9), (40, 7)]);
        assert_eq!(once.clone().with(&busts), once, "folded again: the same lines");
        assert_eq!(once.of(EntryNo(7)).map(|f| f.place), Some(40));
        assert_eq!(once.of(EntryNo(8)), None);
    }

    #[test]
    fn each_award_goes_to_its_page_of_places_and_its_chunk_of_entries_and_no_chunk_outgrows_its_bound() {
        let t = TournamentId(uuid::Uuid::from_u128(1));
        assert_eq!((place_key(t, 1), place_key(t, 500), place_key(t, 501)), (page_key(t, 1), page_key(t, 1), page_key(t, 2)));
        assert_eq!(entry_key(t, EntryNo(999)), format!("{t}.entries.0"));
        assert_eq!(entry_key(t, EntryNo(1_000)), format!("{t}.entries.1"));
        // A field of 250,000: every place awarded, one per entry, in one batch.
        let field = 250_000u32;
        let awards: Vec<(TournamentId, PlaceAward)> = (1..=field).map(|e| (t, award(e, field + 1 - e, 0))).collect();
        let keys = by_key(&awards);
        assert_eq!(keys.len(), (field / PLACES_PER_CHUNK + field / ENTRIES_PER_CHUNK + 1) as usize);
        assert!(keys.iter().all(|(k, a)| a.len() <= if k.contains(".places.") { PLACES_PER_CHUNK } else { ENTRIES_PER_CHUNK } as usize));
        let page = ResultsChunk::default().with(&keys[&page_key(t, 1)]);
        assert_eq!((page.finishers[0].place, page.finishers.last().unwrap().place), (1, 500));
        assert!(serde_json::to_vec(&page).unwrap().len() < 100_000, "a page is well under NATS's 1 MB");
    }

    #[test]
    fn ordinals_read_as_english() {
        let shown: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].into_iter().map(ordinal).collect();
        assert_eq!(shown, ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]);
    }
}
