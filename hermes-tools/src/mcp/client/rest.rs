//! Resting servers (Hermes' `idle_timeout_seconds` and `max_lifetime_seconds`): a server with
//! no call for `idle_timeout_secs`, or connected for longer than `max_lifetime_secs`, is
//! stopped once no call is in flight. Its tools stay registered, and the next call starts it
//! again and waits for it (up to `connect_timeout_secs`): an idle server costs no process, and
//! one that leaks memory is renewed, and the model sees neither.
//!
//! A call and the decision to rest are taken under one lock, so a call either keeps the
//! server up or finds it resting and wakes it; it never holds a connection that closes under
//! it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::sync::Mutex;
use tokio::sync::Notify;
use tokio::time::Instant;

/// How often a server past its time, but busy, is looked at again.
const BUSY_POLL: Duration = Duration::from_secs(1);

/// A server's calls, as resting sees them.
#[derive(Debug)]
pub(crate) struct Activity {
    counts: Mutex<Counts>,
    /// Notified by the first call that finds the server resting.
    wake: Notify,
    /// Whether a call asked for a wake since the server began resting (one wake per rest:
    /// a permit left over would wake the next rest at once).
    wake_asked: AtomicBool,
    /// Notified when a connection is ready.
    pub(crate) connected: Notify,
}

#[derive(Debug)]
struct Counts {
    in_flight: usize,
    last: Instant,
}

/// A call in flight; it ends when dropped.
pub(crate) struct Busy<'a>(&'a Activity);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        let mut counts = self.0.counts.lock();
        counts.in_flight -= 1;
        counts.last = Instant::now();
    }
}

/// When a connection rests: after `idle` without a call, or `lifetime` after it was made
/// (zero: never).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RestPolicy {
    pub(crate) idle: Duration,
    pub(crate) lifetime: Duration,
}

impl RestPolicy {
    /// Whether connections ever rest.
    pub(crate) fn rests(self) -> bool {
        !self.idle.is_zero() || !self.lifetime.is_zero()
    }
}

impl Activity {
    pub(crate) fn new() -> Self {
        Self {
            counts: Mutex::new(Counts {
                in_flight: 0,
                last: Instant::now(),
            }),
            wake: Notify::new(),
            wake_asked: AtomicBool::new(false),
            connected: Notify::new(),
        }
    }

    /// A call begins.
    pub(crate) fn begin(&self) -> Busy<'_> {
        let mut counts = self.counts.lock();
        counts.in_flight += 1;
        counts.last = Instant::now();
        Busy(self)
    }

    /// Whether a call is in flight.
    pub(crate) fn busy(&self) -> bool {
        self.counts.lock().in_flight > 0
    }

    /// Asks the resting server to start again (once per rest).
    pub(crate) fn ask_wake(&self) {
        if !self.wake_asked.swap(true, Ordering::SeqCst) {
            self.wake.notify_one();
        }
    }

    /// Waits for a call to [ask](Self::ask_wake) for the server.
    pub(crate) async fn woken(&self) {
        self.wake.notified().await;
    }

    /// Waits until the connection made at `since` is due to rest under `policy` with no call
    /// in flight, then runs `rest` with the reason (it drops the connection's peer and marks
    /// the server resting) under the lock, and returns the reason. Never returns when the
    /// policy never rests.
    pub(crate) async fn rest_when_due(
        &self,
        policy: RestPolicy,
        since: Instant,
        rest: impl Fn(&str),
    ) -> String {
        if !policy.rests() {
            return std::future::pending().await;
        }
        loop {
            let (deadline, busy) = {
                let counts = self.counts.lock();
                // Idle time counts from the connection at the earliest: a slow start is not
                // idleness.
                let idle = (!policy.idle.is_zero()).then(|| counts.last.max(since) + policy.idle);
                let old = (!policy.lifetime.is_zero()).then(|| since + policy.lifetime);
                let due = idle.into_iter().chain(old).min().unwrap_or(since);
                (due, counts.in_flight > 0)
            };
            let now = Instant::now();
            if deadline > now {
                tokio::time::sleep_until(deadline).await;
                continue;
            }
            if busy {
                tokio::time::sleep(BUSY_POLL).await;
                continue;
            }
            let counts = self.counts.lock();
            if counts.in_flight > 0 {
                continue;
            }
            let now = Instant::now();
            let reason = if !policy.lifetime.is_zero() && now >= since + policy.lifetime {
                format!(
                    "renewed after its lifetime of {} s",
                    policy.lifetime.as_secs()
                )
            } else if !policy.idle.is_zero() && now >= counts.last.max(since) + policy.idle {
                format!("no call for {} s", policy.idle.as_secs())
            } else {
                // A call came and went since the deadline was read: wait again.
                continue;
            };
            self.wake_asked.store(false, Ordering::SeqCst);
            rest(&reason);
            return reason;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(idle: u64, lifetime: u64) -> RestPolicy {
        RestPolicy {
            idle: Duration::from_secs(idle),
            lifetime: Duration::from_secs(lifetime),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_connection_rests_after_its_timeout_counted_from_the_last_call() {
        let activity = Activity::new();
        let start = Instant::now();
        drop(activity.begin());
        tokio::time::advance(Duration::from_secs(5)).await;
        drop(activity.begin());
        let reason = activity.rest_when_due(policy(10, 0), start, |_| {}).await;
        assert_eq!(reason, "no call for 10 s");
        // The last call, 5 s in, set the clock: 15 s.
        assert_eq!(start.elapsed().as_secs(), 15);
    }

    #[tokio::test(start_paused = true)]
    async fn a_busy_connection_rests_only_once_its_call_ends() {
        let activity = std::sync::Arc::new(Activity::new());
        let start = Instant::now();
        let calls = std::sync::Arc::clone(&activity);
        let call = tokio::spawn(async move {
            let _busy = calls.begin();
            tokio::time::sleep(Duration::from_secs(30)).await;
        });
        tokio::task::yield_now().await;
        let rested = std::sync::atomic::AtomicBool::new(false);
        let reason = activity
            .rest_when_due(policy(0, 10), start, |_| {
                rested.store(true, std::sync::atomic::Ordering::SeqCst)
            })
            .await;
        assert!(rested.load(std::sync::atomic::Ordering::SeqCst));
        assert_eq!(reason, "renewed after its lifetime of 10 s");
        assert!(
            start.elapsed() >= Duration::from_secs(30),
            "{:?}",
            start.elapsed()
        );
        call.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn one_wake_per_rest_however_many_calls_ask() {
        let activity = Activity::new();
        activity.ask_wake();
        activity.ask_wake();
        activity.woken().await;
        // The second ask left no permit: nothing wakes the next rest but a new ask.
        let again = tokio::time::timeout(Duration::from_secs(1), activity.woken()).await;
        assert!(again.is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn a_policy_of_zeros_never_rests() {
        let activity = Activity::new();
        let never = activity.rest_when_due(policy(0, 0), Instant::now(), |_| {});
        let waited = tokio::time::timeout(Duration::from_secs(3600), never).await;
        assert!(waited.is_err());
    }
}
