//! The runtime's locks: the standard library's `Mutex` and `RwLock`, without lock poisoning.
//!
//! Every lock here guards state that stays valid whatever point a panicking holder reached (a
//! cache, a list of hooks, a map of sessions), and a tool that panics is caught and answered
//! as an error: one panic must not make every later call fail on a poisoned lock. So a
//! poisoned lock is taken as it is, as `parking_lot`'s locks (which these replace, to keep
//! `parking_lot`, its core and `libc` out of the featureless build) never poison.

use std::fmt;
use std::sync::{self, MutexGuard, PoisonError, RwLockReadGuard, RwLockWriteGuard};

/// A mutual-exclusion lock whose [`lock`](Mutex::lock) ignores poisoning.
#[derive(Default)]
pub(crate) struct Mutex<T: ?Sized>(sync::Mutex<T>);

impl<T> Mutex<T> {
    /// A lock holding `value`.
    pub(crate) const fn new(value: T) -> Self {
        Self(sync::Mutex::new(value))
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Waits for the lock and takes it, even if a holder panicked.
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// A reader-writer lock whose [`read`](RwLock::read) and [`write`](RwLock::write) ignore
/// poisoning.
#[derive(Default)]
pub(crate) struct RwLock<T: ?Sized>(sync::RwLock<T>);

impl<T> RwLock<T> {
    /// A lock holding `value`.
    pub(crate) const fn new(value: T) -> Self {
        Self(sync::RwLock::new(value))
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Waits for shared access and takes it, even if a writer panicked.
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, T> {
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for exclusive access and takes it, even if a writer panicked.
    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.0.write().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use std::panic::{AssertUnwindSafe, catch_unwind};

    use super::*;

    #[test]
    fn a_panicking_holder_leaves_the_locks_usable() {
        let mutex = Mutex::new(1);
        let lock = RwLock::new(vec![1]);
        let _ = catch_unwind(AssertUnwindSafe(|| {
            let mut held = mutex.lock();
            let mut written = lock.write();
            *held = 2;
            written.push(2);
            panic!("a tool panicked while holding both");
        }));
        assert!(mutex.0.is_poisoned() && lock.0.is_poisoned());
        assert_eq!(*mutex.lock(), 2);
        assert_eq!(*lock.read(), [1, 2]);
        lock.write().push(3);
        assert_eq!(lock.read().len(), 3);
    }
}
