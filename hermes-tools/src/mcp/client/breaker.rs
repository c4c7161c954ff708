//! The circuit breaker: after a run of failed calls, a server is left alone for a while.
//!
//! A server that times out or drops its connection on every call costs the agent a full call
//! timeout per attempt, and the model tends to retry. After [`threshold`](CircuitBreaker::new)
//! consecutive *failures* the breaker opens: calls are answered at once with an error that
//! tells the model to stop retrying and how long to wait. When the cooldown has passed, calls
//! go through again as probes; one success closes the breaker, one more failure reopens it for
//! another cooldown.
//!
//! A failure is the server not answering: not connected, the transport closed, the call timed
//! out. A tool that answers with `isError` (a file not found, a bad query) is a *working*
//! server, so it does not count; Hermes counts it, so three wrong guesses by the model shut
//! every tool of the server for a minute.
//!
//! (Example: the unit test `module_example_holds`.)

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::sync::Mutex;

use crate::toolsets::availability::Clock;

/// Counts consecutive failures of one server and refuses calls while open.
#[derive(Debug)]
pub(super) struct CircuitBreaker {
    threshold: u32,
    cooldown: Duration,
    clock: Arc<dyn Clock>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    failures: u32,
    opened_at: Option<Instant>,
}

/// The breaker is open: the call was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Open {
    /// Consecutive failures so far.
    pub failures: u32,
    /// How long until calls go through again.
    pub retry_in: Duration,
}

impl CircuitBreaker {
    /// A closed breaker that opens after `threshold` consecutive failures (at least 1) and
    /// stays open for `cooldown`, reading time from `clock`.
    pub(super) fn new(threshold: u32, cooldown: Duration, clock: Arc<dyn Clock>) -> Self {
        Self {
            threshold: threshold.max(1),
            cooldown,
            clock,
            state: Mutex::new(State::default()),
        }
    }

    /// `Ok` when a call may be made now (closed, or a probe after the cooldown).
    pub(super) fn admit(&self) -> Result<(), Open> {
        let state = self.state.lock();
        let Some(opened_at) = state.opened_at else {
            return Ok(());
        };
        let elapsed = self.clock.now().saturating_duration_since(opened_at);
        match self.cooldown.checked_sub(elapsed) {
            Some(retry_in) if !retry_in.is_zero() => Err(Open {
                failures: state.failures,
                retry_in,
            }),
            _ => Ok(()),
        }
    }

    /// A call failed: count it, and open (or reopen) the breaker at the threshold.
    pub(super) fn record_failure(&self) {
        let mut state = self.state.lock();
        state.failures = state.failures.saturating_add(1);
        if state.failures >= self.threshold {
            state.opened_at = Some(self.clock.now());
        }
    }

    /// A call succeeded, or the server reconnected: close the breaker.
    pub(super) fn record_success(&self) {
        *self.state.lock() = State::default();
    }

    /// Consecutive failures so far.
    #[cfg(test)]
    pub(super) fn failures(&self) -> u32 {
        self.state.lock().failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolsets::availability::ManualClock;

    fn breaker() -> (CircuitBreaker, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new());
        let breaker = CircuitBreaker::new(3, Duration::from_secs(60), clock.clone());
        (breaker, clock)
    }

    #[test]
    fn a_success_between_failures_resets_the_count() {
        let (breaker, _) = breaker();
        breaker.record_failure();
        breaker.record_failure();
        breaker.record_success();
        breaker.record_failure();
        breaker.record_failure();
        assert!(breaker.admit().is_ok());
        assert_eq!(breaker.failures(), 2);
    }

    #[test]
    fn open_counts_down_then_a_failed_probe_reopens_for_a_full_cooldown() {
        let (breaker, clock) = breaker();
        for _ in 0..3 {
            breaker.record_failure();
        }
        clock.advance(Duration::from_secs(45));
        assert_eq!(
            breaker.admit(),
            Err(Open {
                failures: 3,
                retry_in: Duration::from_secs(15)
            })
        );
        clock.advance(Duration::from_secs(15));
        assert!(breaker.admit().is_ok());
        breaker.record_failure();
        assert_eq!(
            breaker.admit(),
            Err(Open {
                failures: 4,
                retry_in: Duration::from_secs(60)
            })
        );
    }

    #[test]
    fn module_example_holds() {
        use crate::mcp::client::breaker::CircuitBreaker;
        use crate::toolsets::availability::ManualClock;
        use std::sync::Arc;
        use std::time::Duration;

        let clock = Arc::new(ManualClock::new());
        let breaker = CircuitBreaker::new(3, Duration::from_secs(60), clock.clone());
        for _ in 0..3 {
            assert!(breaker.admit().is_ok());
            breaker.record_failure();
        }
        let open = breaker.admit().unwrap_err();
        assert_eq!((open.failures, open.retry_in), (3, Duration::from_secs(60)));
        clock.advance(Duration::from_secs(60));
        assert!(
            breaker.admit().is_ok(),
            "a probe goes through after the cooldown"
        );
        breaker.record_success();
        assert!(breaker.admit().is_ok());
    }
}
