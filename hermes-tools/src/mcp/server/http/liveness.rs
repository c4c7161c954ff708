//! When a Streamable HTTP session of the `initialize` era is idle, and ending it then.
//!
//! `rmcp` ends a session whose worker saw no message for its keep-alive, even while a call of
//! the session runs without reporting anything for that long, or while its client holds a stream
//! open: the call's stream then closes with no answer, and the command goes on. So the gate
//! keeps the clock instead (`rmcp`'s own is off): a session is **busy** while any of its
//! streams is open (a call's POST stream, which will carry its answer, or a GET stream, new or
//! resumed), and **idle** once none is and no request has named it for the session idle timeout.
//! An idle session is ended as `rmcp` would (`close_session`), which cancels the calls still
//! running in it (a cancelled call's future is dropped: the terminal's processes are killed).
//!
//! That is also the disconnect rule: a client that goes away mid-call closes the call's stream,
//! and the session's clock starts. Until the idle timeout the call runs on and its answer is
//! kept (`rmcp` caches a stream's events), for the client to resume with `Last-Event-ID`; past
//! it, nobody came back, the session ends and the call is cancelled.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::sync::Mutex;
use axum::body::Body;
use futures_util::StreamExt;
use rmcp::transport::streamable_http_server::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The longest pause between two sweeps for idle sessions: an idle session ends at most this
/// long (or a quarter of the idle timeout, if shorter) after its timeout.
const LONGEST_SWEEP: Duration = Duration::from_secs(5);

/// The sessions of one endpoint, with what keeps each alive.
pub(crate) struct Liveness {
    manager: Arc<LocalSessionManager>,
    idle: Duration,
    sessions: Mutex<Sessions>,
}

/// Each session's activity, by its id. Hashed with foldhash, not SipHash: every request of a
/// session hashes its id here, and only ids of sessions `rmcp` holds are listed (random UUIDs
/// of its making, see [`Liveness::enter`]), never one a client made up, so there is no
/// flooding to resist.
type Sessions = HashMap<Arc<str>, Activity, foldhash::fast::RandomState>;

/// What a session is doing.
#[derive(Debug, Clone, Copy)]
struct Activity {
    /// Its streams open now.
    open: usize,
    /// When a request last named it, or its last stream closed.
    last: Instant,
}

impl Liveness {
    /// The sessions of `manager`, ended once idle for `idle`.
    pub(crate) fn new(manager: Arc<LocalSessionManager>, idle: Duration) -> Self {
        Self {
            manager,
            idle,
            sessions: Mutex::new(Sessions::default()),
        }
    }

    /// `session`, one `rmcp` holds (it has just opened it, or restored it from the shared
    /// store), is listed, its clock started now.
    pub(crate) fn enter(&self, session: &str) {
        let now = Instant::now();
        let mut sessions = self.sessions.lock();
        listed(&mut sessions, session, now).1.last = now;
    }

    /// A request named `session`, and `rmcp` served it: its clock restarts, if it is listed;
    /// whether it is. Nothing is added: a request served without a session (of the
    /// 2026-07-28 era) may name any id.
    pub(crate) fn touch(&self, session: &str) -> bool {
        match self.sessions.lock().get_mut(session) {
            Some(activity) => {
                activity.last = Instant::now();
                true
            }
            None => false,
        }
    }

    /// `body`, a stream of `session`'s: the session is busy until it ends (the answer sent, or
    /// the client gone).
    pub(crate) fn hold(self: &Arc<Self>, session: &str, body: Body) -> Body {
        let session = {
            let mut sessions = self.sessions.lock();
            let (session, activity) = listed(&mut sessions, session, Instant::now());
            activity.open += 1;
            session
        };
        let open = Open {
            liveness: Arc::clone(self),
            session,
        };
        // The guard lives as long as the stream: dropped with it, however it ends.
        let frames = body.into_data_stream().map(move |frame| {
            let _held = &open;
            frame
        });
        Body::from_stream(frames)
    }

    /// `session` ended otherwise (DELETE): nothing to sweep.
    pub(crate) fn forget(&self, session: &str) {
        self.sessions.lock().remove(session);
    }

    /// Ends the sessions found idle, until `stop` is cancelled.
    pub(crate) async fn sweep(self: Arc<Self>, stop: CancellationToken) {
        let pause = (self.idle / 4).clamp(Duration::from_millis(5), LONGEST_SWEEP);
        let mut ticks = tokio::time::interval(pause);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                _ = ticks.tick() => {}
            }
            for session in self.idle_sessions(Instant::now()) {
                tracing::debug!("an MCP session ended: idle for its timeout, no stream open");
                // An unknown id (the session ended otherwise) is no error.
                if let Err(err) = self.manager.close_session(&(*session).into()).await {
                    tracing::warn!(%err, "an idle MCP session could not be ended");
                }
            }
        }
    }

    /// The sessions idle at `now`, taken off the list.
    fn idle_sessions(&self, now: Instant) -> Vec<Arc<str>> {
        let mut idle = Vec::new();
        self.sessions.lock().retain(|session, activity| {
            let alive = activity.open > 0 || now.duration_since(activity.last) < self.idle;
            if !alive {
                idle.push(Arc::clone(session));
            }
            alive
        });
        idle
    }

    /// Whether `session` is on the list, and how many of its streams are open.
    #[cfg(test)]
    fn open_streams(&self, session: &str) -> Option<usize> {
        self.sessions
            .lock()
            .get(session)
            .map(|activity| activity.open)
    }
}

/// `session`'s entry in `sessions` and its key, added (no stream open, last seen `now`) if the
/// list lacks it. A known session (every request but its first) is found by `&str` and keyed
/// by the list's own `Arc`: no allocation.
fn listed<'m>(
    sessions: &'m mut Sessions,
    session: &str,
    now: Instant,
) -> (Arc<str>, &'m mut Activity) {
    let key = sessions
        .get_key_value(session)
        .map_or_else(|| Arc::from(session), |(known, _)| Arc::clone(known));
    let activity = sessions
        .entry(Arc::clone(&key))
        .or_insert(Activity { open: 0, last: now });
    (key, activity)
}

/// A stream of a session, counted while it is open.
struct Open {
    liveness: Arc<Liveness>,
    session: Arc<str>,
}

impl Drop for Open {
    fn drop(&mut self) {
        // Its clock starts when its last stream closes.
        if let Some(activity) = self.liveness.sessions.lock().get_mut(&self.session) {
            activity.open = activity.open.saturating_sub(1);
            activity.last = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn liveness(idle: Duration) -> Arc<Liveness> {
        let manager = Arc::new(LocalSessionManager::default());
        Arc::new(Liveness::new(manager, idle))
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_is_idle_only_with_no_stream_open_for_the_whole_timeout() {
        let idle = Duration::from_secs(10);
        let liveness = liveness(idle);
        liveness.enter("s");
        let body = liveness.hold("s", Body::from("data: \n\n"));
        assert_eq!(liveness.open_streams("s"), Some(1));
        tokio::time::advance(idle * 3).await;
        assert!(
            liveness.idle_sessions(Instant::now()).is_empty(),
            "an open stream keeps it"
        );

        // Read to its end and dropped: the clock starts then, not at the last request.
        let read = axum::body::to_bytes(body, 1024).await.expect("the body");
        assert_eq!(&read[..], b"data: \n\n");
        assert_eq!(liveness.open_streams("s"), Some(0));
        tokio::time::advance(idle / 2).await;
        assert!(liveness.idle_sessions(Instant::now()).is_empty());
        tokio::time::advance(idle / 2).await;
        let ended = liveness.idle_sessions(Instant::now());
        assert_eq!(ended.len(), 1);
        assert_eq!(&*ended[0], "s");
        assert_eq!(liveness.open_streams("s"), None, "taken off the list");
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_restarts_the_clock_and_a_forgotten_session_is_not_swept() {
        let idle = Duration::from_secs(10);
        let liveness = liveness(idle);
        liveness.enter("a");
        liveness.enter("b");
        tokio::time::advance(idle - Duration::from_secs(1)).await;
        assert!(liveness.touch("a"));
        liveness.forget("b");
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(liveness.idle_sessions(Instant::now()).is_empty());
        tokio::time::advance(idle).await;
        assert_eq!(liveness.idle_sessions(Instant::now()).len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn streams_of_two_sessions_are_counted_apart_known_or_not() {
        let idle = Duration::from_secs(10);
        let liveness = liveness(idle);
        liveness.enter("a");
        // "b" never named by a request before its stream: held all the same.
        let streams = [
            liveness.hold("a", Body::empty()),
            liveness.hold("a", Body::empty()),
            liveness.hold("b", Body::empty()),
        ];
        assert_eq!(liveness.open_streams("a"), Some(2));
        assert_eq!(liveness.open_streams("b"), Some(1));
        let [first, second, other] = streams;
        drop(first);
        assert_eq!(liveness.open_streams("a"), Some(1));
        drop(other);
        assert_eq!(liveness.open_streams("b"), Some(0));
        tokio::time::advance(idle).await;
        let ended = liveness.idle_sessions(Instant::now());
        assert_eq!(ended.len(), 1, "a stream of a is still open");
        assert_eq!(&*ended[0], "b");
        drop(second);
        assert_eq!(liveness.open_streams("a"), Some(0));
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_lists_no_session_it_names_only_restarts_a_listed_ones_clock() {
        let idle = Duration::from_secs(10);
        let liveness = liveness(idle);
        assert!(!liveness.touch("made-up"), "not listed");
        assert_eq!(
            liveness.open_streams("made-up"),
            None,
            "nor listed by the touch"
        );
        liveness.enter("s");
        tokio::time::advance(idle - Duration::from_secs(1)).await;
        assert!(liveness.touch("s"));
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(
            liveness.idle_sessions(Instant::now()).is_empty(),
            "its clock restarted"
        );
    }
}
