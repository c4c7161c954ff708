//! The call context: who is calling, and the values a tool may borrow.
//!
//! A tool parameter of reference type is never shown to the model; it is filled from the
//! [`ToolContext`] of the call, like an axum extractor:
//!
//! - `&ToolContext` receives the context itself (task, session and tool-call ids);
//! - `&T` receives the extension of type `T`; when the caller did not provide one the model is
//!   told so in a tool error, and the function is not called;
//! - `Option<&T>` receives the extension if there is one.
//!
//! A call may belong to a [`Session`]: a conversation, an MCP connection. The session carries
//! the state its tools keep between calls (a task list, say), one value per type, read with
//! [`ToolContext::session_state`]. That state belongs to the session, not to the process: two
//! sessions never see each other's, and it is dropped when the session ends, that is when the
//! last context (or [`Session`] handle) holding it is dropped. A tool that keeps such state
//! refuses a call that belongs to no session rather than share one list among all callers.
//!
//! ```
//! use hermes_tools::ToolContext;
//!
//! struct Workspace(std::path::PathBuf);
//!
//! let ctx = ToolContext::new()
//!     .with_session_id("s-1")
//!     .with_extension(Workspace("/srv/project".into()));
//! assert_eq!(ctx.session_id(), Some("s-1"));
//! assert!(ctx.extension::<Workspace>().is_some());
//! assert!(ctx.extension::<String>().is_none());
//!
//! // Session state: created on first use, shared by every clone of the context.
//! #[derive(Default)]
//! struct Visits(std::sync::atomic::AtomicUsize);
//!
//! let call = ctx.clone().with_tool_call_id("call-7");
//! let visits = call.session_state::<Visits>().unwrap();
//! visits.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
//! let again = ctx.session_state::<Visits>().unwrap();
//! assert_eq!(again.0.load(std::sync::atomic::Ordering::Relaxed), 1);
//!
//! // Another session, even one given the same id, starts empty; no session, no state.
//! let other = ToolContext::new().with_session_id("s-1");
//! let fresh = other.session_state::<Visits>().unwrap();
//! assert_eq!(fresh.0.load(std::sync::atomic::Ordering::Relaxed), 0);
//! assert!(ToolContext::new().session_state::<Visits>().is_none());
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::sync::Mutex;

use crate::call::asking::{
    AskError, Asker, Elicitation, ElicitationReply, Sampling, SamplingReply, unavailable,
};
use crate::call::combinators::BoxFuture;
use crate::call::reports::{LogLevel, Progress};

/// The context of one tool call: ids for tracing, the [`Session`] it belongs to, and a typed
/// map of extensions.
///
/// Cloning is cheap (a few reference counts), so async tools can own it across `.await`s. Build
/// one context per session and clone it for each call (adding the tool-call id): the clones
/// share the session and its state.
#[derive(Clone, Default)]
pub struct ToolContext {
    inner: Arc<Inner>,
    /// The registry running the call, set by the registry before it calls a tool; read with
    /// `registry()` and `config()` (defined beside the registry). Type-erased so that this
    /// module, which the registry's own parts use, does not depend on the registry.
    runner: Option<Runner>,
    /// Beside `inner`, not in it: each call of a turn sets its own, and setting it here costs
    /// no copy of the shared part.
    tool_call_id: Option<CallId>,
}

/// A call's id: a part of a shared text, so that a turn keeps all its calls' ids in one
/// allocation and each call's context points into it (no allocation per call).
#[derive(Clone)]
struct CallId {
    text: Arc<str>,
    /// The id's byte range in `text` (on character boundaries).
    range: std::ops::Range<usize>,
}

impl CallId {
    fn as_str(&self) -> &str {
        &self.text[self.range.clone()]
    }
}

/// The type-erased registry a context runs on.
pub(crate) type Runner = Arc<dyn Any + Send + Sync>;

#[derive(Clone, Default)]
struct Inner {
    task_id: Option<Arc<str>>,
    session: Option<Session>,
    // Arc, not Box, so that the context stays cheap to clone and to modify (`Arc::make_mut`).
    extensions: HashMap<TypeId, Extension>,
    /// Where the call's progress goes, when someone follows it.
    progress: Option<ProgressSink>,
    /// Where the call's log messages go beside `tracing`, when someone follows them.
    log: Option<LogSink>,
    /// Who answers the tool's questions (the MCP client's user and model), if anyone.
    asker: Option<Arc<dyn Asker>>,
    /// Closes the stream that will carry the call's answer, when it is one a client can
    /// reconnect to.
    stream_closer: Option<StreamCloser>,
}

/// Closes a call's answer stream, the client to come back after the duration given; whether
/// it did.
type StreamCloser = Arc<dyn Fn(Duration) -> BoxFuture<'static, bool> + Send + Sync>;

/// Receives a call's [`Progress`] reports.
type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Receives a call's log messages.
type LogSink = Arc<dyn Fn(LogLevel, &str) + Send + Sync>;

#[derive(Clone)]
struct Extension {
    type_name: &'static str,
    value: Arc<dyn Any + Send + Sync>,
}

impl ToolContext {
    /// An empty context: no ids, no extensions.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the id of the agent task this call belongs to.
    pub fn with_task_id(mut self, id: impl Into<Arc<str>>) -> Self {
        Arc::make_mut(&mut self.inner).task_id = Some(id.into());
        self
    }

    /// Begins a new session with this id: the context (and its clones) now carries an empty
    /// session state. A context rebuilt later with the same id is another session, with its own
    /// state; to rejoin a session keep its [`Session`] and use [`with_session`](Self::with_session).
    pub fn with_session_id(self, id: impl Into<Arc<str>>) -> Self {
        self.with_session(Session::new(id))
    }

    /// Joins `session`: calls with this context read and write its state.
    ///
    /// ```
    /// use hermes_tools::{call::Session, ToolContext};
    ///
    /// let session = Session::new("conversation-42");
    /// let first = ToolContext::new().with_session(session.clone());
    /// first.session_state::<Vec<String>>();
    /// // A context built afresh for the next turn still sees the same state.
    /// let next = ToolContext::new().with_session(session.clone());
    /// assert!(std::sync::Arc::ptr_eq(
    ///     &first.session_state::<Vec<String>>().unwrap(),
    ///     &next.session_state::<Vec<String>>().unwrap(),
    /// ));
    /// ```
    pub fn with_session(mut self, session: Session) -> Self {
        Arc::make_mut(&mut self.inner).session = Some(session);
        self
    }

    /// Sets the id the model gave this tool call.
    pub fn with_tool_call_id(mut self, id: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = id.into();
        let range = 0..text.len();
        self.tool_call_id = Some(CallId { text, range });
        self
    }

    /// Sets the call's id to `ids[range]` (a turn's ids, in one text), none when that is
    /// empty. `range` must lie on character boundaries of `ids`.
    pub(crate) fn set_tool_call_id_in(&mut self, ids: &Arc<str>, range: std::ops::Range<usize>) {
        debug_assert!(ids.get(range.clone()).is_some(), "an id on char boundaries");
        match &mut self.tool_call_id {
            _ if range.is_empty() => self.tool_call_id = None,
            // Another id of the same turn: no reference count touched.
            Some(id) if Arc::ptr_eq(&id.text, ids) => id.range = range,
            id => {
                *id = Some(CallId {
                    text: Arc::clone(ids),
                    range,
                })
            }
        }
    }

    /// Adds (or replaces) the extension of type `T`, which tools receive as `&T` or `Option<&T>`.
    pub fn with_extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        let extension = Extension {
            type_name: std::any::type_name::<T>(),
            value: Arc::new(value),
        };
        Arc::make_mut(&mut self.inner)
            .extensions
            .insert(TypeId::of::<T>(), extension);
        self
    }

    /// The id of the agent task, if set.
    pub fn task_id(&self) -> Option<&str> {
        self.inner.task_id.as_deref()
    }

    /// The id of the session, if the call belongs to one.
    pub fn session_id(&self) -> Option<&str> {
        self.session().map(Session::id)
    }

    /// This context outside any session.
    #[cfg(feature = "mcp")]
    pub(crate) fn without_session(mut self) -> Self {
        if self.inner.session.is_some() {
            Arc::make_mut(&mut self.inner).session = None;
        }
        self
    }

    /// The session the call belongs to, if any.
    pub fn session(&self) -> Option<&Session> {
        self.inner.session.as_ref()
    }

    /// The session's value of type `T`, created with `T::default()` on first use; `None` when
    /// the call belongs to no session. See [`Session::state`].
    pub fn session_state<T: Default + Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.session().map(Session::state::<T>)
    }

    /// The id of the tool call, if set.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.tool_call_id.as_ref().map(CallId::as_str)
    }

    /// Reports how far the call has come: `done` of `total` (when known), and what is happening
    /// (an empty `message`: nothing said). The report goes to whoever follows the call: over
    /// MCP, a client that asked for progress gets `notifications/progress`. With nobody
    /// following it costs a branch, so a tool may report freely; reports should grow.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use hermes_tools::ToolContext;
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let sink = Arc::clone(&seen);
    /// let ctx = ToolContext::new().with_progress(move |p| sink.lock().unwrap().push(p.done));
    /// for file in 1..=3 {
    ///     ctx.progress(f64::from(file), Some(3.0), format!("file {file} of 3"));
    /// }
    /// ToolContext::new().progress(1.0, None, ""); // nobody follows: nothing happens
    /// assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
    /// ```
    pub fn progress(&self, done: f64, total: Option<f64>, message: impl Into<String>) {
        if let Some(sink) = &self.inner.progress {
            let message = message.into();
            sink(Progress {
                done,
                total,
                message: (!message.is_empty()).then_some(message),
            });
        }
    }

    /// Whether someone follows this call's [`progress`](Self::progress): a tool may skip
    /// working out what it would report, and an MCP server's tool asks its server for
    /// progress only then.
    pub fn follows_progress(&self) -> bool {
        self.inner.progress.is_some()
    }

    /// The same context, its [`progress`](Self::progress) reports sent to `sink` (the MCP
    /// server sets one for each call whose client asked for progress).
    pub fn with_progress(mut self, sink: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        Arc::make_mut(&mut self.inner).progress = Some(Arc::new(sink));
        self
    }

    /// Logs `message` at `level` for whoever follows the call: over MCP, a client whose
    /// `logging/setLevel` lets it through gets `notifications/message` (credentials masked).
    /// It also goes to `tracing` (target `hermes_tools::tool`), like any log of the process.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use hermes_tools::{call::LogLevel, ToolContext};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let sink = Arc::clone(&seen);
    /// let ctx = ToolContext::new()
    ///     .with_log(move |level, text: &str| sink.lock().unwrap().push((level, text.to_owned())));
    /// ctx.log(LogLevel::Info, "indexing 3 files");
    /// assert_eq!(*seen.lock().unwrap(), [(LogLevel::Info, "indexing 3 files".to_owned())]);
    /// ```
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        let message = message.as_ref();
        match level {
            LogLevel::Debug => tracing::debug!(target: "hermes_tools::tool", "{message}"),
            LogLevel::Info | LogLevel::Notice => {
                tracing::info!(target: "hermes_tools::tool", "{message}")
            }
            LogLevel::Warning => tracing::warn!(target: "hermes_tools::tool", "{message}"),
            _ => tracing::error!(target: "hermes_tools::tool", "{message}"),
        }
        if let Some(sink) = &self.inner.log {
            sink(level, message);
        }
    }

    /// The same context, its [`log`](Self::log) messages also sent to `sink` (the MCP server
    /// sets one for each call).
    pub fn with_log(mut self, sink: impl Fn(LogLevel, &str) + Send + Sync + 'static) -> Self {
        Arc::make_mut(&mut self.inner).log = Some(Arc::new(sink));
        self
    }

    /// Whether [`elicit`](Self::elicit) can reach a user: over MCP, the calling client
    /// offered elicitation on this session. A tool that can do without asks only then.
    pub fn can_elicit(&self) -> bool {
        self.inner
            .asker
            .as_ref()
            .is_some_and(|asker| asker.can_elicit())
    }

    /// Whether [`sample`](Self::sample) can reach a model: over MCP, the calling client
    /// offered sampling on this session.
    pub fn can_sample(&self) -> bool {
        self.inner
            .asker
            .as_ref()
            .is_some_and(|asker| asker.can_sample())
    }

    /// Asks the caller's user `question` and waits for the answer (over MCP,
    /// `elicitation/create` to the client, credentials masked in the message). Without
    /// anyone to ask it fails at once with [`AskError::Unavailable`]. A sync tool uses
    /// [`elicit_blocking`](Self::elicit_blocking).
    pub async fn elicit(&self, question: Elicitation) -> Result<ElicitationReply, AskError> {
        match self.inner.asker.as_ref() {
            Some(asker) if asker.can_elicit() => asker.elicit(question).await,
            Some(asker) => {
                asker.asked_unavailable("elicitation");
                Err(unavailable("elicitation"))
            }
            None => Err(unavailable("elicitation")),
        }
    }

    /// Asks the caller's model to continue a conversation and waits for its reply (over MCP,
    /// `sampling/createMessage` to the client, credentials masked in the messages). Without
    /// a model to ask it fails at once with [`AskError::Unavailable`].
    pub async fn sample(&self, request: Sampling) -> Result<SamplingReply, AskError> {
        match self.inner.asker.as_ref() {
            Some(asker) if asker.can_sample() => asker.sample(request).await,
            Some(asker) => {
                asker.asked_unavailable("sampling");
                Err(unavailable("sampling"))
            }
            None => Err(unavailable("sampling")),
        }
    }

    /// Ends the call's asking phase: over MCP, a call of a client that declared the tasks
    /// extension becomes a task here (the request is answered with the task handle,
    /// `resultType: "task"`, and the tool runs on); for any other caller nothing happens and
    /// the tool runs on within the call.
    ///
    /// With [`ToolBuilder::asks_before_task`](crate::tool::ToolBuilder::asks_before_task),
    /// the questions a tool asks before this point are Multi Round-Trip Requests
    /// (`input_required`, the tool run again from the start on each retry: the work before
    /// the question runs once per round), and the round whose answers complete them answers
    /// with the task; questions after it are the task's own (`tasks/update`). Fails with
    /// [`AskError::Failed`] when a question of this round still waits for its answer (the
    /// call then answers `input_required`): return it, with `?`.
    pub async fn become_task(&self) -> Result<(), AskError> {
        match self.inner.asker.as_ref() {
            Some(asker) => asker.become_task().await,
            None => Ok(()),
        }
    }

    /// [`elicit`](Self::elicit) for a sync tool: blocks this thread until the user answers.
    /// Declare such a tool `blocking`, so that its wait for a person holds no runtime worker:
    /// on a current-thread runtime a tool that is not `blocking` runs on the only worker, which
    /// the question's own messages then cannot use.
    pub fn elicit_blocking(&self, question: Elicitation) -> Result<ElicitationReply, AskError> {
        crate::call::bridge::block_on(self.elicit(question)).unwrap_or_else(|err| {
            Err(AskError::Failed(format!(
                "cannot wait for the answer: {err}"
            )))
        })
    }

    /// [`sample`](Self::sample) for a sync tool: blocks this thread until the model answers.
    pub fn sample_blocking(&self, request: Sampling) -> Result<SamplingReply, AskError> {
        crate::call::bridge::block_on(self.sample(request)).unwrap_or_else(|err| {
            Err(AskError::Failed(format!(
                "cannot wait for the reply: {err}"
            )))
        })
    }

    /// The same context, its tool's questions answered by `asker` (the MCP server sets one
    /// for each call whose client offers elicitation or sampling).
    pub fn with_asker(mut self, asker: impl Asker + 'static) -> Self {
        Arc::make_mut(&mut self.inner).asker = Some(Arc::new(asker));
        self
    }

    /// Lets the client go while the tool works on: closes the stream that will carry this
    /// call's answer, telling the client to come back after `retry`. The client then
    /// reconnects, and gets the progress, questions and answer it would have got on the
    /// stream (over MCP's Streamable HTTP: SSE polling, SEP-1699). The server holds an answer
    /// that is ready while the client is away until it is back (or the call is cancelled, or
    /// the session's idle timeout passes), and keeps the stream's last 64 messages for it to
    /// resume from: a tool that reports progress more often while its client is away loses
    /// the oldest reports. The server caps `retry` at half its session idle timeout, so that the
    /// session outlives the wait.
    ///
    /// A tool that runs for minutes calls this every so often (say with a `retry` of a
    /// minute), so that no connection is held for the whole call and no proxy's idle timeout
    /// cuts it; each call after the client is back closes its resumed stream in turn.
    ///
    /// Whether the client is now away (or already was): `false` when the answer is not on a
    /// stream a client comes back to (stdio, an in-process call, a request outside any
    /// session, a client of a protocol version before 2025-11-25), and the call simply goes on.
    ///
    /// ```
    /// use std::time::Duration;
    /// use hermes_tools::ToolContext;
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// // Not served over Streamable HTTP: nothing to close, and the tool carries on.
    /// assert!(!ToolContext::new().close_stream(Duration::from_secs(60)).await);
    /// # });
    /// ```
    pub async fn close_stream(&self, retry: Duration) -> bool {
        match &self.inner.stream_closer {
            Some(close) => close(retry).await,
            None => false,
        }
    }

    /// The same context, [`close_stream`](Self::close_stream) done by `closer` (the MCP server
    /// sets one for each call it answers on a stream a client can come back to).
    pub fn with_stream_closer(
        mut self,
        closer: impl Fn(Duration) -> BoxFuture<'static, bool> + Send + Sync + 'static,
    ) -> Self {
        Arc::make_mut(&mut self.inner).stream_closer = Some(Arc::new(closer));
        self
    }

    /// The registry this context runs on, type-erased.
    pub(crate) fn runner(&self) -> Option<&Runner> {
        self.runner.as_ref()
    }

    /// This context, running on `runner`.
    pub(crate) fn with_runner(&self, runner: Runner) -> ToolContext {
        ToolContext {
            inner: Arc::clone(&self.inner),
            runner: Some(runner),
            tool_call_id: self.tool_call_id.clone(),
        }
    }

    /// The extension of type `T`, if the caller provided one.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner
            .extensions
            .get(&TypeId::of::<T>())
            .and_then(|extension| extension.value.downcast_ref())
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut extensions: Vec<_> = self
            .inner
            .extensions
            .values()
            .map(|e| e.type_name)
            .collect();
        extensions.sort_unstable();
        f.debug_struct("ToolContext")
            .field("task_id", &self.task_id())
            .field("session", &self.session())
            .field("tool_call_id", &self.tool_call_id())
            .field("extensions", &extensions)
            .field("progress_followed", &self.inner.progress.is_some())
            .field("log_followed", &self.inner.log.is_some())
            .field("can_elicit", &self.can_elicit())
            .field("can_sample", &self.can_sample())
            .field("on_registry", &self.runner.is_some())
            .finish()
    }
}

/// A session: one conversation, one MCP connection. It has an id (for logs and for tools that
/// name things after it) and the state its tools keep between calls, one value per type.
///
/// Cloning gives another handle to the same session. The state is dropped when the session
/// ends: when its last handle (and so the last context holding it) is dropped; a value that
/// must clean up when its session ends does so in its `Drop`.
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use hermes_tools::call::Session;
///
/// #[derive(Default)]
/// struct Counter(AtomicU32);
///
/// let session = Session::new("s-1");
/// session.state::<Counter>().0.fetch_add(1, Ordering::Relaxed);
/// assert_eq!(session.clone().state::<Counter>().0.load(Ordering::Relaxed), 1);
/// assert_eq!(Session::new("s-1").state::<Counter>().0.load(Ordering::Relaxed), 0);
/// ```
#[derive(Clone)]
pub struct Session {
    inner: Arc<SessionInner>,
}

struct SessionInner {
    id: Arc<str>,
    state: Mutex<HashMap<TypeId, Extension>>,
}

impl Session {
    /// A new session with an empty state.
    pub fn new(id: impl Into<Arc<str>>) -> Self {
        Self {
            inner: Arc::new(SessionInner {
                id: id.into(),
                state: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The session's value of type `T`, created with `T::default()` on first use. Concurrent
    /// first uses agree on one value. Give each kind of state its own type (a newtype), so
    /// that two tools never share a value by accident.
    pub fn state<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        if let Some(existing) = self.existing_state::<T>() {
            return existing;
        }
        // Built outside the lock: `Default` is the caller's code (and could use the session).
        let fresh = Arc::new(T::default());
        let mut state = self.inner.state.lock();
        let slot = state.entry(TypeId::of::<T>()).or_insert_with(|| Extension {
            type_name: std::any::type_name::<T>(),
            value: Arc::clone(&fresh) as Arc<dyn Any + Send + Sync>,
        });
        // The slot of `TypeId::of::<T>()` holds a `T`, so the downcast succeeds.
        Arc::clone(&slot.value).downcast().unwrap_or(fresh)
    }

    /// The session's value of type `T`, if one was created.
    pub fn existing_state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let state = self.inner.state.lock();
        let slot = state.get(&TypeId::of::<T>())?;
        Arc::clone(&slot.value).downcast().ok()
    }

    /// Whether `self` and `other` are handles to the same session (not merely the same id).
    pub fn same_as(&self, other: &Session) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut state: Vec<_> = self
            .inner
            .state
            .lock()
            .values()
            .map(|e| e.type_name)
            .collect();
        state.sort_unstable();
        f.debug_struct("Session")
            .field("id", &self.id())
            .field("state", &state)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_nothing_mutable() {
        let base = ToolContext::new().with_extension(1u32);
        let changed = base.clone().with_extension(2u32).with_task_id("t");
        assert_eq!(base.extension::<u32>(), Some(&1));
        assert_eq!(base.task_id(), None);
        assert_eq!(changed.extension::<u32>(), Some(&2));
        assert_eq!(changed.task_id(), Some("t"));
    }

    #[test]
    fn session_state_is_shared_by_clones_and_only_by_them() {
        let ctx = ToolContext::new().with_session_id("s");
        let call = ctx.clone().with_tool_call_id("c").with_extension(1u8);
        call.session_state::<Mutex<Vec<u32>>>()
            .unwrap()
            .lock()
            .push(7);
        assert_eq!(*ctx.session_state::<Mutex<Vec<u32>>>().unwrap().lock(), [7]);
        let other = ToolContext::new().with_session_id("s");
        assert!(
            other
                .session_state::<Mutex<Vec<u32>>>()
                .unwrap()
                .lock()
                .is_empty()
        );
        assert!(!other.session().unwrap().same_as(ctx.session().unwrap()));
        assert!(ToolContext::new().session_state::<u32>().is_none());
        let rejoined = ToolContext::new().with_session(ctx.session().unwrap().clone());
        assert_eq!(
            *rejoined.session_state::<Mutex<Vec<u32>>>().unwrap().lock(),
            [7]
        );
    }

    #[test]
    fn session_state_is_dropped_with_the_last_handle() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static DROPPED: AtomicUsize = AtomicUsize::new(0);
        #[derive(Default)]
        struct Tracked;
        impl Drop for Tracked {
            fn drop(&mut self) {
                DROPPED.fetch_add(1, Ordering::SeqCst);
            }
        }
        let ctx = ToolContext::new().with_session_id("s");
        let call = ctx.clone().with_tool_call_id("c");
        drop(call.session_state::<Tracked>());
        drop(ctx);
        assert_eq!(
            DROPPED.load(Ordering::SeqCst),
            0,
            "a clone still holds the session"
        );
        drop(call);
        assert_eq!(DROPPED.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn debug_names_extension_types() {
        let ctx = ToolContext::new()
            .with_extension(String::from("x"))
            .with_session_id("s-9");
        ctx.session_state::<Vec<u8>>();
        let debug = format!("{ctx:?}");
        assert!(debug.contains("alloc::string::String"), "{debug}");
        assert!(
            debug.contains("s-9") && debug.contains("Vec<u8>"),
            "{debug}"
        );
    }
}
