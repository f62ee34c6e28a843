//! Time for services: the one place that reads the wall clock, so tests can inject their own.
//!
//! Domain code never calls this: services stamp `at` into each command.

use chrono::{DateTime, Duration, Utc};
use std::sync::{Arc, Mutex};

/// A source of "now".
pub trait Clock: Send + Sync + 'static {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock tests set and advance by hand. Clones share the same time.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<DateTime<Utc>>>);

impl ManualClock {
    /// A clock showing `at`.
    pub fn new(at: DateTime<Utc>) -> Self {
        Self(Arc::new(Mutex::new(at)))
    }

    /// Sets the time.
    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock().expect("clock poisoned") = at;
    }

    /// Moves time forward.
    pub fn advance(&self, by: Duration) {
        let mut now = self.0.lock().expect("clock poisoned");
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().expect("clock poisoned")
    }
}
