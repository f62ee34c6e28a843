//! The live feed: every new revision of a tournament's document, pushed to each client that
//! watches it (`GET /api/tournaments/{id}/events` as JSON, `GET /tournaments/{id}/events`
//! rendered for the page), as Server-Sent Events.
//!
//! One KV watch per process feeds them all: the watch that keeps the list's cache
//! ([`crate::cache::LobbyCache`]) hands each new revision to [`Feeds::publish`], which passes it
//! to the tournament's `tokio::sync::watch` channel if anyone listens. A thousand clients of
//! one tournament are then one NATS consumer and one channel, not a thousand consumers.
//!
//! A document is the tournament's whole state, not a change, so a client that reads slower than
//! documents come skips to the newest one (the channel holds only the latest): it never falls
//! behind and never holds memory for a backlog. Each revision's event is encoded once, by the
//! first client that sends it, and shared by every other client of the tournament (they hold
//! clones of one revision): a delivery is a reference count and a socket write. A client that goes away drops its feed, and
//! with it its receiver; the last one to go removes the tournament's channel.

use futures::{Stream, StreamExt};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// One revision of a tournament's document.
#[derive(Debug, Clone)]
pub struct Revision {
    /// The KV revision (increases with every write to the bucket).
    pub revision: u64,
    /// The document's JSON, as stored.
    pub json: bytes::Bytes,
    /// Its events, encoded by the first client of each feed that sends it and shared by every
    /// other one: a thousand watchers cost one encoding (and one rendering) per revision.
    frames: Arc<Frames>,
}

/// A revision's Server-Sent Events, once encoded.
#[derive(Debug, Default)]
struct Frames {
    /// `GET /api/tournaments/{id}/events`.
    json: OnceLock<Option<bytes::Bytes>>,
    /// `GET /tournaments/{id}/events`.
    page: OnceLock<Option<bytes::Bytes>>,
    /// `GET /tournaments/{id}/events?view=clock`.
    clock: OnceLock<Option<bytes::Bytes>>,
}

/// Which feed an event is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// The document as JSON.
    Json,
    /// The page's live part, rendered.
    Page,
    /// The clock screen's live part, rendered (issue 39).
    Clock,
}

/// One Server-Sent Event: `event:`, `id:`, and `data` a line per line of it (a carriage return,
/// which no `data:` line can carry, is never in the lobby's JSON or pages: `html::escape` writes
/// it as a character reference).
pub fn frame(event: &str, id: u64, data: &str) -> bytes::Bytes {
    let mut out = String::with_capacity(data.len() + 48);
    out.push_str("event: ");
    out.push_str(event);
    out.push_str("\nid: ");
    out.push_str(&id.to_string());
    out.push('\n');
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out.into()
}

impl Revision {
    /// A revision not rendered yet.
    pub fn new(revision: u64, json: bytes::Bytes) -> Self {
        Self { revision, json, frames: Arc::default() }
    }

    /// The revision's event for `feed`, encoded by `encode` once for all clones of it; `None`
    /// when it does not encode (a document that does not read).
    pub fn framed(&self, feed: Feed, encode: impl FnOnce(&Self) -> Option<bytes::Bytes>) -> Option<bytes::Bytes> {
        let slot = match feed {
            Feed::Json => &self.frames.json,
            Feed::Page => &self.frames.page,
            Feed::Clock => &self.frames.clock,
        };
        slot.get_or_init(|| encode(self)).clone()
    }
}

impl PartialEq for Revision {
    fn eq(&self, other: &Self) -> bool {
        (self.revision, &self.json) == (other.revision, &other.json)
    }
}

impl Eq for Revision {}

/// Tournament id → the channel of its newest revision, for tournaments someone watches.
#[derive(Clone, Default)]
pub struct Feeds {
    // std Mutex: held to find or create a channel, never across an await.
    channels: Arc<Mutex<HashMap<String, watch::Sender<Option<Revision>>>>>,
}

impl Feeds {
    /// Passes a new revision to the tournament's watchers, if it has any; forgets a channel
    /// nobody listens to any more.
    pub fn publish(&self, key: &str, revision: Revision) {
        let mut channels = self.channels.lock().expect("feeds poisoned");
        if let Some(sender) = channels.get(key) {
            if sender.receiver_count() == 0 {
                channels.remove(key);
            } else {
                sender.send_replace(Some(revision));
            }
        }
    }

    /// Starts listening to a tournament's revisions (from the next one published).
    pub fn subscribe(&self, key: &str) -> watch::Receiver<Option<Revision>> {
        let mut channels = self.channels.lock().expect("feeds poisoned");
        channels.entry(key.to_owned()).or_insert_with(|| watch::channel(None).0).subscribe()
    }

    /// Tournaments with a channel (watched now).
    pub fn channels(&self) -> usize {
        self.channels.lock().expect("feeds poisoned").len()
    }

    /// Removes a tournament's channel if nobody listens to it any more.
    pub fn release(&self, key: &str) {
        let mut channels = self.channels.lock().expect("feeds poisoned");
        if channels.get(key).is_some_and(|sender| sender.receiver_count() == 0) {
            channels.remove(key);
        }
    }
}

/// One client's receiver; dropping it (the client went away, or the feed was refused) releases
/// the tournament's channel if it was the last.
pub struct Watching {
    receiver: Option<watch::Receiver<Option<Revision>>>,
    feeds: Feeds,
    key: String,
}

impl Watching {
    /// Starts listening to `key`'s revisions.
    pub fn new(feeds: &Feeds, key: &str) -> Self {
        Self { receiver: Some(feeds.subscribe(key)), feeds: feeds.clone(), key: key.to_owned() }
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        // The receiver first, so the count no longer includes it.
        drop(self.receiver.take());
        self.feeds.release(&self.key);
    }
}

/// `first`, then every later revision the receiver sees, each once and in order of revision,
/// until `shutdown` (so a server stopping does not wait on open feeds).
pub fn revisions(first: Revision, watching: Watching, shutdown: CancellationToken) -> impl Stream<Item = Revision> + Send + 'static {
    let later = futures::stream::unfold((watching, first.revision), |(mut watching, mut last)| async move {
        let receiver = watching.receiver.as_mut()?;
        loop {
            receiver.changed().await.ok()?;
            let newest = receiver.borrow_and_update().clone();
            if let Some(newest) = newest.filter(|r| r.revision > last) {
                last = newest.revision;
                return Some((newest, (watching, last)));
            }
        }
    });
    futures::stream::once(async move { first }).chain(later).take_until(shutdown.cancelled_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rev(revision: u64) -> Revision {
        Revision::new(revision, bytes::Bytes::from(format!("{{\"r\":{revision}}}")))
    }

    #[tokio::test]
    async fn a_watcher_gets_the_first_document_then_newer_ones_and_stops_at_shutdown() {
        let feeds = Feeds::default();
        let shutdown = CancellationToken::new();
        let watching = Watching::new(&feeds, "t");
        // Published between the subscription and the first read: older than the first, skipped.
        feeds.publish("t", rev(4));
        let mut stream = Box::pin(revisions(rev(5), watching, shutdown.clone()));
        assert_eq!(stream.next().await.map(|r| r.revision), Some(5));
        feeds.publish("other", rev(6));
        feeds.publish("t", rev(7));
        assert_eq!(stream.next().await.map(|r| r.revision), Some(7));
        shutdown.cancel();
        assert_eq!(stream.next().await, None, "the feed ends when the server stops");
    }

    #[tokio::test]
    async fn a_slow_watcher_skips_to_the_newest_and_a_channel_nobody_watches_goes() {
        let feeds = Feeds::default();
        let mut stream = Box::pin(revisions(rev(1), Watching::new(&feeds, "t"), CancellationToken::new()));
        let other = Watching::new(&feeds, "t");
        assert_eq!(stream.next().await.map(|r| r.revision), Some(1));
        for r in 2..=9 {
            feeds.publish("t", rev(r));
        }
        assert_eq!(stream.next().await.map(|r| r.revision), Some(9), "only the newest document is pending");
        drop(stream);
        assert_eq!(feeds.channels(), 1, "another client still watches");
        drop(other);
        assert_eq!(feeds.channels(), 0, "the last client went away: the channel is gone");
        drop(Watching::new(&feeds, "refused"));
        assert_eq!(feeds.channels(), 0, "a feed refused (no such tournament) leaves nothing behind");
    }

    #[test]
    fn a_revision_is_encoded_once_per_feed_for_all_its_clients() {
        let first = rev(3);
        let clones = vec![first.clone(), first.clone(), first.clone()];
        let encodings = std::cell::Cell::new(0);
        for r in std::iter::once(&first).chain(&clones) {
            for feed in [Feed::Json, Feed::Page] {
                let framed = r.framed(feed, |r| {
                    encodings.set(encodings.get() + 1);
                    Some(frame("document", r.revision, &format!("<p>{feed:?}</p>\n{}", String::from_utf8_lossy(&r.json))))
                });
                let expected = format!("event: document\nid: 3\ndata: <p>{feed:?}</p>\ndata: {{\"r\":3}}\n\n");
                assert_eq!(framed.as_deref(), Some(expected.as_bytes()));
            }
        }
        assert_eq!(encodings.get(), 2, "once per feed, not per client");
    }
}
