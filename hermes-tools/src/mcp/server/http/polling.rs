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
//!   timeout has passed (the client is then taken to be gone);
//! - **a client that disconnected**: a call's stream dropped before its end (the client went
//!   away mid-call) is taken as closed, so the answer waits for the client to resume the
//!   stream in the same way (see the disconnect rule in [`liveness`](super::liveness)).

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::task::Poll;
use std::time::Duration;

use crate::sync::Mutex;
use axum::body::{Body, Bytes};
use futures_util::StreamExt;
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::sync::watch;

/// How long closing waits for the id of the call's stream, which its first event carries
/// (sent as the stream opens, before the tool runs: this bounds only a stream never read).
const STREAM_ID_WAIT: Duration = Duration::from_secs(5);

/// The streams of one endpoint's calls that were closed at least once, by session and stream.
pub(crate) struct Streams {
    manager: Arc<LocalSessionManager>,
    /// The longest an answer waits for its client to come back: the session's idle timeout,
    /// after which the session itself ends.
    hold: Duration,
    /// Weak: a call that ends (answered, cancelled) leaves nothing behind.
    closed: Mutex<HashMap<StreamKey, Weak<CallStream>>>,
}

/// A stream of a session: the session's id, and `rmcp`'s id of the stream in it.
type StreamKey = (Arc<str>, u64);

impl Streams {
    pub(crate) fn new(manager: Arc<LocalSessionManager>, hold: Duration) -> Self {
        Self {
            manager,
            hold,
            closed: Mutex::new(HashMap::new()),
        }
    }

    /// The handle of a `tools/call` of `session` about to be sent to `rmcp`, put in the HTTP
    /// request's extensions (which `rmcp` hands to the handler).
    pub(crate) fn call(self: &Arc<Self>, session: &str) -> Arc<CallStream> {
        Arc::new(CallStream {
            streams: Arc::clone(self),
            session: Arc::from(session),
            stream: watch::Sender::new(None),
            presence: watch::Sender::new(Presence::default()),
            closing: tokio::sync::Mutex::new(()),
        })
    }

    /// The call whose closed stream a GET of `session` resumes from `last_event_id`, if any.
    pub(crate) fn resuming(&self, session: &str, last_event_id: &str) -> Option<Arc<CallStream>> {
        let stream = stream_of_event(last_event_id)?;
        let call = self
            .closed
            .lock()
            .get(&(Arc::from(session), stream))?
            .clone();
        // Upgraded with the lock released: the call's `Drop` takes it.
        call.upgrade()
    }
}

/// Where a call's client is, for its answer's sake.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Presence {
    /// How many times the stream was closed.
    closes: u64,
    /// The resumed streams open since the last close (counted at their first event, which
    /// only a resume that worked sends).
    resumed: usize,
}

impl Presence {
    /// Whether an answer sent now would reach nobody: the stream was closed, and the client
    /// has not come back since.
    fn away(self) -> bool {
        self.closes > 0 && self.resumed == 0
    }
}

/// One `tools/call`'s stream: learns its id from the response, closes it for the tool, and
/// holds the answer while the client is away.
pub(crate) struct CallStream {
    streams: Arc<Streams>,
    session: Arc<str>,
    /// The stream's id, once its first event has passed.
    stream: watch::Sender<Option<u64>>,
    presence: watch::Sender<Presence>,
    /// One close at a time.
    closing: tokio::sync::Mutex<()>,
}

impl CallStream {
    /// The call's stream handle, when it came over Streamable HTTP in a session.
    pub(crate) fn of(request: &RequestContext<RoleServer>) -> Option<Arc<Self>> {
        request
            .extensions
            .get::<axum::http::request::Parts>()?
            .extensions
            .get::<Arc<Self>>()
            .cloned()
    }

    /// `body`, the call's SSE response, read on its way out for the stream's id; dropped
    /// before its end (the client disconnected), the client is away as after a close.
    pub(crate) fn watch(self: &Arc<Self>, body: Body) -> Body {
        let mut watched = Watched {
            call: Arc::clone(self),
            ended: false,
        };
        let mut frames = body.into_data_stream();
        Body::from_stream(futures_util::stream::poll_fn(move |cx| {
            let next = frames.poll_next_unpin(cx);
            match &next {
                Poll::Ready(Some(Ok(frame))) => {
                    let call = &watched.call;
                    if call.stream.borrow().is_none()
                        && let Some(id) = stream_of_frame(frame)
                    {
                        call.stream.send_replace(Some(id));
                    }
                }
                Poll::Ready(None) => watched.ended = true,
                _ => {}
            }
            next
        }))
    }

    /// The client dropped the call's stream before its end: it is away, and its answer is
    /// held for it to resume the stream, as after a close.
    fn left(self: &Arc<Self>) {
        let Some(stream) = *self.stream.borrow() else {
            // No event reached it: there is nothing to resume from.
            return;
        };
        self.streams
            .closed
            .lock()
            .insert((Arc::clone(&self.session), stream), Arc::downgrade(self));
        self.presence.send_modify(|presence| {
            presence.closes += 1;
            presence.resumed = 0;
        });
    }

    /// `body`, a GET's stream resuming this call's: the client counts as back from its first
    /// event (a resume that failed sends none) until it ends.
    pub(crate) fn resumed(self: &Arc<Self>, body: Body) -> Body {
        let mut back = Back {
            call: Arc::clone(self),
            since: None,
        };
        let frames = body.into_data_stream().inspect(move |frame| {
            if back.since.is_none() && frame.is_ok() {
                let mut since = 0;
                back.call.presence.send_modify(|presence| {
                    presence.resumed += 1;
                    since = presence.closes;
                });
                back.since = Some(since);
            }
        });
        Body::from_stream(frames)
    }

    /// Closes the stream, the client told to come back after `retry` (at most half the
    /// session's idle timeout, so that the session outlives the wait); whether the client is
    /// now away (or already was).
    pub(crate) async fn close(self: &Arc<Self>, retry: Duration) -> bool {
        let _one = self.closing.lock().await;
        let before = *self.presence.borrow();
        if before.away() {
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
        // Counted away before closing: the client may be back before the close returns, and
        // a stream resumed before this close ends with it.
        streams
            .closed
            .lock()
            .insert((Arc::clone(&self.session), stream), Arc::downgrade(self));
        self.presence.send_replace(Presence {
            closes: before.closes + 1,
            resumed: 0,
        });
        let retry = retry.min(streams.hold / 2);
        // Spawned: a tool that gives up waiting must not leave the close half sent.
        let closing =
            tokio::spawn(async move { session.close_sse_stream(stream, Some(retry)).await });
        match closing.await {
            Ok(Ok(())) => true,
            failed => {
                tracing::debug!(?failed, "a call's stream could not be closed");
                self.presence.send_replace(before);
                false
            }
        }
    }

    /// Waits, while the client is away, until it is back (or `gone`, or the session's idle
    /// timeout has passed): the answer then goes to the resumed stream instead of nowhere.
    pub(crate) async fn until_back(&self, gone: impl Future<Output = ()>) {
        if !self.presence.borrow().away() {
            return;
        }
        let mut presence = self.presence.subscribe();
        tokio::select! {
            _ = presence.wait_for(|presence| !presence.away()) => {}
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
        if self.presence.borrow().closes > 0
            && let Some(stream) = *self.stream.borrow()
        {
            let key = (Arc::clone(&self.session), stream);
            self.streams.closed.lock().remove(&key);
        }
    }
}

/// A call's own stream, on its way out.
struct Watched {
    call: Arc<CallStream>,
    /// Whether it was read to its end (else its client disconnected).
    ended: bool,
}

impl Drop for Watched {
    fn drop(&mut self) {
        if !self.ended {
            self.call.left();
        }
    }
}

/// A resumed stream of a call, counted while it is open.
struct Back {
    call: Arc<CallStream>,
    /// The close after which it was counted, once its first event has passed.
    since: Option<u64>,
}

impl Drop for Back {
    fn drop(&mut self) {
        if let Some(since) = self.since {
            // A stream resumed before the latest close was already discounted by it.
            self.call.presence.send_if_modified(|presence| {
                let current = presence.closes == since && presence.resumed > 0;
                if current {
                    presence.resumed -= 1;
                }
                current
            });
        }
    }
}

/// The stream named in an SSE frame's `id:` field.
fn stream_of_frame(frame: &Bytes) -> Option<u64> {
    let text = std::str::from_utf8(frame).ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix("id:"))
        // SSE drops one space after the colon.
        .and_then(|id| stream_of_event(id.strip_prefix(' ').unwrap_or(id)))
}

/// The stream of an event id: `rmcp` names a request's events `INDEX/STREAM` (read as `rmcp`
/// reads a `Last-Event-ID`, so that no id it would refuse counts here).
fn stream_of_event(id: &str) -> Option<u64> {
    let (index, stream) = id.split_once('/')?;
    index.parse::<usize>().ok()?;
    stream.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_name_their_stream_as_rmcp_reads_them() {
        assert_eq!(stream_of_event("0/7"), Some(7));
        assert_eq!(stream_of_event("12/3"), Some(3));
        // The standalone stream's ids have no stream part; rmcp refuses the rest.
        for refused in ["4", "a/b", "x/5", " 0/5", "0/5 ", "-1/5", ""] {
            assert_eq!(stream_of_event(refused), None, "{refused:?}");
        }
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

    fn streams() -> Arc<Streams> {
        let manager = Arc::new(LocalSessionManager::default());
        Arc::new(Streams::new(manager, Duration::from_secs(60)))
    }

    /// `body`, read whole.
    async fn read(body: Body) -> Bytes {
        axum::body::to_bytes(body, 1024).await.expect("the body")
    }

    #[tokio::test]
    async fn a_call_whose_session_is_gone_cannot_close_and_leaves_nothing_behind() {
        let streams = streams();
        let call = streams.call("ended-session");
        // The response passes unchanged; its first event names the stream.
        let priming = "data: \nid: 0/9\nretry: 3000\n\n";
        assert_eq!(
            read(call.watch(Body::from(priming))).await,
            priming.as_bytes()
        );
        assert_eq!(*call.stream.borrow(), Some(9));

        assert!(
            !call.close(Duration::from_secs(1)).await,
            "no session to close a stream of"
        );
        assert!(streams.closed.lock().is_empty());
        assert_eq!(*call.presence.borrow(), Presence::default());
        // Not closed: the answer is not held back.
        tokio::time::timeout(
            Duration::from_millis(200),
            call.until_back(std::future::pending()),
        )
        .await
        .expect("an answer on an open stream is not held");
        assert!(streams.resuming("ended-session", "1/9").is_none());
    }

    #[tokio::test]
    async fn a_client_is_back_while_a_resumed_stream_is_open_since_the_latest_close() {
        let streams = streams();
        let call = streams.call("s");
        // As `close` leaves it: listed, and away.
        streams
            .closed
            .lock()
            .insert((Arc::from("s"), 4), Arc::downgrade(&call));
        call.stream.send_replace(Some(4));
        call.presence.send_replace(Presence {
            closes: 1,
            resumed: 0,
        });
        assert!(call.presence.borrow().away());
        assert!(streams.resuming("s", "0/4").is_some());
        assert!(streams.resuming("s", "0/5").is_none(), "another stream");
        assert!(streams.resuming("t", "0/4").is_none(), "another session");

        // A resume that failed sends nothing: still away.
        read(call.resumed(Body::empty())).await;
        assert!(call.presence.borrow().away());

        // One that worked counts from its first event, while it is open.
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
        let live = futures_util::stream::unfold(receiver, |mut receiver| async move {
            let frame = receiver.recv().await?;
            Some((Ok::<_, std::io::Error>(frame), receiver))
        });
        let mut frames = call.resumed(Body::from_stream(live)).into_data_stream();
        sender
            .send(Bytes::from_static(b"id: 1/4\ndata: \n\n"))
            .unwrap();
        frames.next().await.expect("a frame").expect("data");
        assert!(!call.presence.borrow().away());
        tokio::time::timeout(
            Duration::from_secs(1),
            call.until_back(std::future::pending()),
        )
        .await
        .expect("the answer goes to the resumed stream");

        // Closed again, the resumed stream it ends no longer counts, even as it ends late.
        call.presence.send_modify(|presence| {
            presence.closes += 1;
            presence.resumed = 0;
        });
        drop(frames);
        assert_eq!(
            *call.presence.borrow(),
            Presence {
                closes: 2,
                resumed: 0
            }
        );
        let held = tokio::time::timeout(
            Duration::from_millis(100),
            call.until_back(std::future::pending()),
        )
        .await;
        assert!(
            held.is_err(),
            "the answer waits for the client's next return"
        );
        tokio::time::timeout(Duration::from_secs(1), call.until_back(async {}))
            .await
            .expect("a cancelled call waits no more");

        // The call's end forgets its stream.
        drop(call);
        assert!(streams.closed.lock().is_empty());
    }
}
