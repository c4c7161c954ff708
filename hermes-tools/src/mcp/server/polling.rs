//! SSE polling (SEP-1699): a tool closes the stream that will carry its answer, and the client
//! comes back for it.
//!
//! Over Streamable HTTP each `tools/call` in a session is answered on its own SSE stream,
//! which `rmcp` opens with a priming event (an id, no data, `retry`) and caches. A long tool
//! holding that connection holds a proxy's slot, and dies with the proxy's idle timeout; with
//! [`ToolContext::close_stream`](crate::ToolContext::close_stream) it lets the client go:
//! `rmcp` sends a fresh priming event and ends the stream, the client reconnects after
//! `retry` (a GET with `Last-Event-ID`), and `rmcp` replays what it missed and carries on with
//! the call's progress, questions and answer.
//!
//! What this module adds to `rmcp`, which can close a stream but not tell a handler which
//! stream is its call's, nor keep an answer for a client that is away:
//!
//! - **which stream**: `rmcp` names a stream only in its events' ids (`INDEX/STREAM`), so the
//!   gate reads the id of the first event of each `tools/call`'s stream;
//! - **no lost answer**: `rmcp` forgets a stream as soon as its answer is sent, so an answer
//!   ready while the client is away would reach nobody. The call holds its answer until the
//!   client has reconnected to that stream, the call is cancelled, or the session's idle
//!   timeout has passed (the client is then taken to be gone).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::body::{Body, Bytes};
use futures_util::StreamExt;
use parking_lot::Mutex;
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::sync::{Notify, watch};

/// How long closing waits for the id of the call's stream, which its first event carries
/// (sent as the stream opens, before the tool runs: this bounds only a stream never read).
const STREAM_ID_WAIT: Duration = Duration::from_secs(5);

/// The streams of one endpoint's calls that were closed and whose clients are not back yet.
pub(super) struct Streams {
    manager: Arc<LocalSessionManager>,
    /// The `retry` of the priming event sent before closing: when the client comes back.
    retry: Duration,
    /// The longest an answer waits for its client to come back.
    hold: Duration,
    /// Closed streams by session and stream id, until their client is back or their call ends
    /// (weak: a call cancelled while its client is away leaves nothing behind).
    away: Mutex<HashMap<StreamKey, Weak<CallStream>>>,
}

/// A stream of a session: the session's id, and `rmcp`'s id of the stream in it.
type StreamKey = (Arc<str>, u64);

impl Streams {
    pub(super) fn new(manager: Arc<LocalSessionManager>, retry: Duration, hold: Duration) -> Self {
        Self {
            manager,
            retry,
            hold,
            away: Mutex::new(HashMap::new()),
        }
    }

    /// The handle of a `tools/call` of `session` about to be sent to `rmcp`, put in the HTTP
    /// request's extensions (which `rmcp` hands to the handler).
    pub(super) fn call(self: &Arc<Self>, session: &str) -> Arc<CallStream> {
        Arc::new(CallStream {
            streams: Arc::clone(self),
            session: Arc::from(session),
            stream: watch::Sender::new(None),
            closed: AtomicBool::new(false),
            back: Notify::new(),
        })
    }

    /// Notes that the client of `session` reconnected with `last_event_id` (and `rmcp`
    /// resumed the stream): a call holding its answer for it may now send it.
    pub(super) fn reconnected(&self, session: &str, last_event_id: &str) {
        let Some(stream) = stream_of_event(last_event_id) else {
            return;
        };
        let key = (Arc::from(session), stream);
        // Taken out before it is upgraded: the call's last handle may drop here, and its
        // `Drop` takes the lock.
        let call = self.away.lock().remove(&key);
        if let Some(call) = call.and_then(|call| call.upgrade()) {
            call.back.notify_one();
        }
    }
}

/// One `tools/call`'s stream: learns its id from the response, closes it for the tool, and
/// holds the answer until the client is back.
pub(super) struct CallStream {
    streams: Arc<Streams>,
    session: Arc<str>,
    /// The stream's id, once its first event has passed.
    stream: watch::Sender<Option<u64>>,
    closed: AtomicBool,
    /// Notified when the client has reconnected to the closed stream (a permit is kept when
    /// it is back before the answer is ready).
    back: Notify,
}

impl CallStream {
    /// The call's stream handle, when it came over Streamable HTTP in a session.
    pub(super) fn of(request: &RequestContext<RoleServer>) -> Option<Arc<Self>> {
        request
            .extensions
            .get::<axum::http::request::Parts>()?
            .extensions
            .get::<Arc<Self>>()
            .cloned()
    }

    /// `body`, the call's SSE response, read on its way out for the stream's id.
    pub(super) fn watch(self: &Arc<Self>, body: Body) -> Body {
        let call = Arc::clone(self);
        let frames = body.into_data_stream().inspect(move |frame| {
            if let Ok(frame) = frame
                && call.stream.borrow().is_none()
                && let Some(id) = stream_of_frame(frame)
            {
                call.stream.send_replace(Some(id));
            }
        });
        Body::from_stream(frames)
    }

    /// Closes the stream (a priming event with `retry` first); whether it was closed, or is
    /// already.
    pub(super) async fn close(self: &Arc<Self>) -> bool {
        if self.closed.load(Ordering::Acquire) {
            return true;
        }
        let mut stream = self.stream.subscribe();
        let stream =
            match tokio::time::timeout(STREAM_ID_WAIT, stream.wait_for(Option::is_some)).await {
                Ok(Ok(id)) => id.unwrap_or_default(),
                _ => return false,
            };
        let streams = &self.streams;
        let Some(session) = streams
            .manager
            .sessions
            .read()
            .await
            .get(&*self.session)
            .cloned()
        else {
            return false;
        };
        // Listed before closing: the client may be back before `close_sse_stream` returns.
        let key = (Arc::clone(&self.session), stream);
        streams
            .away
            .lock()
            .insert(key.clone(), Arc::downgrade(self));
        // Before closing, so that `Drop` forgets the entry even if this future is dropped.
        self.closed.store(true, Ordering::Release);
        match session.close_sse_stream(stream, Some(streams.retry)).await {
            Ok(()) => true,
            Err(err) => {
                tracing::debug!(%err, "a call's stream could not be closed");
                self.closed.store(false, Ordering::Release);
                streams.away.lock().remove(&key);
                false
            }
        }
    }

    /// Waits, if the stream was closed, until its client is back (or `gone`, or the hold has
    /// passed): the answer then goes to the reconnected stream instead of nowhere.
    pub(super) async fn until_back(&self, gone: impl Future<Output = ()>) {
        if !self.closed.load(Ordering::Acquire) {
            return;
        }
        tokio::select! {
            () = self.back.notified() => {}
            () = gone => {}
            () = tokio::time::sleep(self.streams.hold) => {
                tracing::debug!("a call's client did not come back for its answer");
            }
        }
    }
}

impl Drop for CallStream {
    fn drop(&mut self) {
        // Only a closed stream was listed; the others never touch the lock.
        if self.closed.load(Ordering::Acquire)
            && let Some(stream) = *self.stream.borrow()
        {
            let key = (Arc::clone(&self.session), stream);
            self.streams.away.lock().remove(&key);
        }
    }
}

/// The stream named in an SSE frame's `id:` field.
fn stream_of_frame(frame: &Bytes) -> Option<u64> {
    let text = std::str::from_utf8(frame).ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix("id:"))
        .and_then(stream_of_event)
}

/// The stream of an event id: `rmcp` names a request's events `INDEX/STREAM`.
fn stream_of_event(id: &str) -> Option<u64> {
    let (_, stream) = id.trim().split_once('/')?;
    stream.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_name_their_stream() {
        assert_eq!(stream_of_event("0/7"), Some(7));
        assert_eq!(stream_of_event(" 12/3 "), Some(3));
        // The standalone stream's ids have no stream part; anything else is not ours.
        assert_eq!(stream_of_event("4"), None);
        assert_eq!(stream_of_event("a/b"), None);
        assert_eq!(stream_of_event(""), None);
    }

    #[test]
    fn a_frame_names_its_stream_in_its_id_field() {
        let priming = Bytes::from_static(b"data: \nid: 0/42\nretry: 3000\n\n");
        assert_eq!(stream_of_frame(&priming), Some(42));
        let spaced = Bytes::from_static(b"id:1/5\ndata: {}\n\n");
        assert_eq!(stream_of_frame(&spaced), Some(5));
        // A keep-alive comment, or data mentioning an id, names none.
        assert_eq!(stream_of_frame(&Bytes::from_static(b":\n\n")), None);
        let data = Bytes::from_static(b"data: {\"id:\": \"0/1\"}\n\n");
        assert_eq!(stream_of_frame(&data), None);
    }

    #[tokio::test]
    async fn a_call_whose_session_is_gone_cannot_close_and_leaves_nothing_behind() {
        let manager = Arc::new(LocalSessionManager::default());
        let streams = Arc::new(Streams::new(
            manager,
            Duration::from_secs(3),
            Duration::from_secs(60),
        ));
        let call = streams.call("ended-session");
        // The response passes: its first event names the stream.
        let body = call.watch(Body::from("data: \nid: 0/9\nretry: 3000\n\n"));
        let sent = axum::body::to_bytes(body, 1024).await.expect("the body");
        assert_eq!(
            &sent[..],
            b"data: \nid: 0/9\nretry: 3000\n\n",
            "passed unchanged"
        );
        assert_eq!(*call.stream.borrow(), Some(9));

        assert!(!call.close().await, "no session to close a stream of");
        assert!(streams.away.lock().is_empty());
        // Not closed: the answer is not held back.
        tokio::time::timeout(
            Duration::from_millis(200),
            call.until_back(std::future::pending()),
        )
        .await
        .expect("an answer on an open stream is not held");
        // A reconnection naming no listed stream is nothing to act on.
        streams.reconnected("ended-session", "1/9");
        streams.reconnected("ended-session", "not an id");
    }
}
