//! Time for services: the one place that reads the wall clock and waits on it, so tests can
//! inject their own and move it by hand.
//!
//! Domain code never calls this: services stamp `at` into each command. Service timers wait with
//! [`Clock::sleep_until`], never with `tokio::time::sleep`, so a test on a [`ManualClock`] wakes
//! them by advancing it instead of waiting real seconds.

use chrono::{DateTime, Duration, Utc};
use futures::future::BoxFuture;
use std::sync::Arc;
use tokio::sync::watch;

/// The longest a timer sleeps on the system clock before looking again: a wake-up far in the
/// future (or absurd) never turns into an instant tokio cannot represent.
const LONGEST_SLEEP: std::time::Duration = std::time::Duration::from_secs(86_400);

/// A source of "now", and of waiting for an instant.
pub trait Clock: Send + Sync + 'static {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;

    /// Completes once the clock shows `at` or later (at once if it already does). A timer may
    /// wake early and look again, never late.
    fn sleep_until(&self, at: DateTime<Utc>) -> BoxFuture<'static, ()>;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }

    fn sleep_until(&self, at: DateTime<Utc>) -> BoxFuture<'static, ()> {
        let wait = (at - Utc::now()).to_std().unwrap_or_default().min(LONGEST_SLEEP);
        Box::pin(tokio::time::sleep(wait))
    }
}

/// A clock tests set and advance by hand. Clones share the same time, and advancing it wakes
/// every timer whose instant has come.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<watch::Sender<DateTime<Utc>>>);

impl ManualClock {
    /// A clock showing `at`.
    pub fn new(at: DateTime<Utc>) -> Self {
        Self(Arc::new(watch::Sender::new(at)))
    }

    /// Sets the time.
    pub fn set(&self, at: DateTime<Utc>) {
        self.0.send_replace(at);
    }

    /// Moves time forward.
    pub fn advance(&self, by: Duration) {
        self.0.send_modify(|now| *now += by);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.borrow()
    }

    fn sleep_until(&self, at: DateTime<Utc>) -> BoxFuture<'static, ()> {
        let mut time = self.0.subscribe();
        Box::pin(async move {
            // The sender lives as long as any clone of the clock; without one, time stops.
            if time.wait_for(|now| *now >= at).await.is_err() {
                std::future::pending::<()>().await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[tokio::test]
    async fn a_manual_clock_wakes_a_timer_when_advanced_past_its_instant_and_not_before() {
        let t0: DateTime<Utc> = "2026-12-06T18:00:00Z".parse().unwrap();
        let clock = ManualClock::new(t0);
        let mut timer = clock.sleep_until(t0 + Duration::seconds(60));
        assert!((&mut timer).now_or_never().is_none(), "a minute ahead: still asleep");
        clock.advance(Duration::seconds(59));
        tokio::task::yield_now().await;
        assert!((&mut timer).now_or_never().is_none(), "a second ahead: still asleep");
        clock.clone().advance(Duration::seconds(1));
        tokio::time::timeout(std::time::Duration::from_secs(5), timer).await.expect("woken by the clone's advance");
        assert!(clock.sleep_until(t0).now_or_never().is_some(), "an instant passed completes at once");
    }

    #[tokio::test]
    async fn the_system_clock_sleeps_no_longer_than_a_day_even_for_the_far_future() {
        // Only that it can be built and polled without overflowing tokio's instants.
        let mut timer = SystemClock.sleep_until(DateTime::<Utc>::MAX_UTC);
        assert!((&mut timer).now_or_never().is_none());
    }
}
