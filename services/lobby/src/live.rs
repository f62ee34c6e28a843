//! The live feed: every new revision of a tournament's document, pushed to each client that
//! watches it (`GET /api/tournaments/{id}/events` as JSON, `GET /tournaments/{id}/events`
//! rendered for the page), as Server-Sent Events.
//!
//! One KV watch per process feeds them all: the watch that keeps the list's cache
//! ([`crate::http::LobbyCache`]) hands each new revision to [`Feeds::publish`], which passes it
//! to the tournament's `tokio::sync::watch` channel if anyone listens. A thousand clients of
//! one tournament are then one NATS consumer and one channel, not a thousand consumers.
//!
//! A document is the tournament's whole state, not a change, so a client that reads slower than
//! documents come skips to the newest one (the channel holds only the latest): it never falls
//! behind and never holds memory for a backlog. A client that goes away drops its feed, and
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
    /// The page's live part for this revision, rendered by the first page client that needs it
    /// and shared by every other one (the clients of a tournament get clones of one revision):
    /// a thousand page watchers cost one rendering per revision, not a thousand.
    rendered: Arc<OnceLock<Option<String>>>,
}

impl Revision {
    /// A revision not rendered yet.
    pub fn new(revision: u64, json: bytes::Bytes) -> Self {
        Self { revision, json, rendered: Arc::default() }
    }

    /// The revision rendered by `render` (once for all clones of it); `None` when it does not
    /// render (a document that does not read).
    pub fn rendered(&self, render: impl FnOnce(&[u8]) -> Option<String>) -> Option<&str> {
        self.rendered.get_or_init(|| render(&self.json)).as_deref()
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
    fn a_revision_is_rendered_once_for_all_its_clients() {
        let first = rev(3);
        let clones = vec![first.clone(), first.clone(), first.clone()];
        let renders = std::cell::Cell::new(0);
        for r in std::iter::once(&first).chain(&clones) {
            let html = r.rendered(|json| {
                renders.set(renders.get() + 1);
                Some(format!("<p>{}</p>", String::from_utf8_lossy(json)))
            });
            assert_eq!(html, Some("<p>{\"r\":3}</p>"));
        }
        assert_eq!(renders.get(), 1);
    }
}
