//! The one poison-tolerant lock every service's synchronous memory is taken through.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, taking the value out of a poisoned lock: a panic elsewhere while holding it
/// leaves memory a reader keeps folding into, never a second panic here.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
