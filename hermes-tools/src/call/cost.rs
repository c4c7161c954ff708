//! What a sync tool's calls cost, learned as they run in a turn: where a turn runs the next
//! one ([`ToolRegistry::run_turn`](crate::ToolRegistry::run_turn)).
//!
//! A turn's concurrent batch cannot run a sync tool inline and stay concurrent (one task runs
//! one sync call at a time), so it used to hand every one to tokio's blocking pool. For a tool
//! that answers in microseconds that hop (a thread wake-up and a core handoff, 5-15 µs here)
//! costs many times the tool, and 64 such calls in a batch were several times slower than the
//! same calls one after another. A tool whose recent calls all took less than [`CHEAP`] runs
//! inline instead: it holds the batch back for less time than a hop would cost (the limit is
//! the turn's, [`Turn::inline_under`](crate::Turn::inline_under)).
//!
//! The estimate rises at once when two calls in a row are slower (one alone is more often the
//! thread descheduled mid-call than the tool), and comes down a quarter of the way to each
//! faster call's, so slow calls send the tool back to the pool for a few dozen calls: a tool
//! whose cost depends on its arguments is taken as slow while it is seen slow.
//! A tool never measured is taken as slow: its first calls in a batch still overlap.
//!
//! A call on the pool is timed around the tool's run ([`Cost::timed`]); a call the turn runs
//! inline is timed whole, from the end of the call before it when that ran just before
//! ([`Cost::ended`]): one clock read per call, not two (a read costs about a tenth of a
//! trivial call, `bench/README.md`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// By default, a call that took less than this runs inline in a turn's batch: about two
/// blocking-pool hops, so running it inline holds the batch back less than handing it off
/// would cost ([`Turn::inline_under`](crate::Turn::inline_under)).
pub(crate) const CHEAP: Duration = Duration::from_micros(20);

/// Never measured.
const UNKNOWN: u64 = u64::MAX;

/// The learned cost of one tool's sync calls, in nanoseconds (shared by every thread calling
/// it; a lost update between two racing calls only delays the estimate by one call).
#[derive(Debug)]
pub(crate) struct Cost {
    estimate: AtomicU64,
    /// The previous call's duration: a rise needs two slow calls in a row.
    last: AtomicU64,
}

impl Default for Cost {
    fn default() -> Self {
        Self {
            estimate: AtomicU64::new(UNKNOWN),
            last: AtomicU64::new(UNKNOWN),
        }
    }
}

impl Cost {
    /// Whether the tool's recent calls each took less than `limit`.
    pub(crate) fn is_under(&self, limit: Duration) -> bool {
        u128::from(self.estimate.load(Ordering::Relaxed)) < limit.as_nanos()
    }

    /// Runs `work` (one call of the tool) and learns its duration.
    pub(crate) fn timed<T>(&self, work: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = work();
        self.record(started.elapsed());
        out
    }

    /// Learns the duration of a call that started at `started` and ended now; returns now
    /// (the next call's start, when it follows at once: one clock read per call).
    pub(crate) fn ended(&self, started: Instant) -> Instant {
        let now = Instant::now();
        self.record(now.saturating_duration_since(started));
        now
    }

    /// Learns one call's duration: up at once to what the last two calls both took at least
    /// (one slow call alone is more often the thread descheduled than the tool: on a loaded
    /// machine a call of 300 ns is now and then measured at a scheduler's time slice, 4 ms),
    /// down a quarter of the way to each faster call.
    fn record(&self, took: Duration) {
        let took = u64::try_from(took.as_nanos()).unwrap_or(UNKNOWN - 1);
        // A load and a store, not a swap: no locked instruction on the path of a call of a
        // few hundred nanoseconds; a lost update is tolerated (see `Cost`).
        let last = self.last.load(Ordering::Relaxed);
        self.last.store(took, Ordering::Relaxed);
        let known = self.estimate.load(Ordering::Relaxed);
        let next = if known == UNKNOWN {
            took
        } else if took >= known {
            known.max(took.min(last))
        } else {
            known - (known - took) / 4
        };
        self.estimate.store(next, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_is_slow_until_measured() {
        let cost = Cost::default();
        assert!(!cost.is_under(CHEAP));
        cost.record(Duration::from_micros(1));
        assert!(cost.is_under(CHEAP));
    }

    #[test]
    fn two_slow_calls_make_it_slow_at_once_and_cheap_calls_bring_it_back() {
        let cost = Cost::default();
        cost.record(Duration::from_micros(1));
        cost.record(Duration::from_millis(50));
        assert!(
            cost.is_under(CHEAP),
            "one slow call alone is taken as noise"
        );
        cost.record(Duration::from_micros(1));
        cost.record(Duration::from_millis(50));
        assert!(cost.is_under(CHEAP));
        cost.record(Duration::from_millis(60));
        assert!(!cost.is_under(CHEAP), "two in a row are not");
        assert!(!cost.is_under(Duration::from_millis(50)));
        assert!(
            cost.is_under(Duration::from_micros(50_001)),
            "the smaller of the two"
        );
        let mut calls = 0;
        while !cost.is_under(CHEAP) {
            cost.record(Duration::from_micros(1));
            calls += 1;
            assert!(calls < 100, "the estimate comes down");
        }
        // 50 ms to under 20 µs, a quarter of the way each time: a few dozen calls.
        assert!((20..40).contains(&calls), "{calls}");
    }
}
