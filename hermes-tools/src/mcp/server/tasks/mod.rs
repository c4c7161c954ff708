//! Tasks (`io.modelcontextprotocol/tasks`, SEP-2663): a long `tools/call` answered with a task
//! handle (`resultType: "task"`) instead of holding the request open, then polled with
//! `tasks/get`, given mid-flight input with `tasks/update`, and stopped with `tasks/cancel`.
//!
//! # When a call becomes a task
//!
//! Only for a request of the 2026-07-28 era whose `_meta` declares the tasks extension
//! capability (a client that did not declare it always gets the plain result; `rmcp` refuses
//! `tasks/*` from it with -32021). Such a call starts as any other and becomes a task:
//!
//! - when it outlives [`ToolServer::task_after`] ([`DEFAULT_TASK_AFTER`], `serve
//!   --task-after-secs N`): a call that finishes sooner answers as usual;
//! - at once, for a tool declared so ([`ToolBuilder::task`](crate::tool::ToolBuilder::task),
//!   `#[tool(task)]`);
//! - at its first question ([`ToolContext::elicit`](crate::ToolContext::elicit) or
//!   [`sample`](crate::ToolContext::sample)): the question becomes the task's
//!   `inputRequests` (status `input_required`), answered by `tasks/update`, and the tool's
//!   `elicit` returns that answer. The call is suspended meanwhile, not run again (unlike a
//!   Multi Round-Trip Request), so work before the question runs once.
//! - where the tool calls [`ToolContext::become_task`](crate::ToolContext::become_task).
//!
//! A tool declared to ask first
//! ([`ToolBuilder::asks_before_task`](crate::tool::ToolBuilder::asks_before_task)) turns the
//! third rule around: its questions before `become_task` are Multi Round-Trip Requests (the
//! call answers `input_required` with no task, and the client's retry carrying
//! `inputResponses` and the sealed `requestState` runs the tool again from the start, see
//! `mrtr.rs`: the work before the question runs once per round), and the retry whose answers
//! complete them answers with the task handle when the run reaches `become_task`. Questions
//! after that point are the task's (`tasks/update`); so are those of a call that outlived
//! [`task_after`](ToolServer::task_after) first.
//!
//! The call then runs on in the serving process, whatever becomes of the request or of the
//! client's connection: a client may go away and fetch the result later, from any replica
//! sharing the [`TaskStore`]. Its progress reports become the task's `statusMessage` (written
//! at most every 250 ms); log messages are not kept. It ends `completed` with the
//! `CallToolResult` (`isError` or not: a failure the tool reported), `failed` with a JSON-RPC
//! error (a tool that panicked: -32603; a process that died, see below), or `cancelled`.
//!
//! A tool declared task-only ([`ToolBuilder::task_required`](crate::tool::ToolBuilder::task_required),
//! MCP's task support `required`) is refused to a client that did not declare the extension:
//! -32021, its `requiredCapabilities` naming the extension.
//!
//! # Cancel, expiry, and a process that died
//!
//! `tasks/cancel` stores the request; the process running the call sees it at once (when it
//! is this one) or at its next lease renewal (at most a second later), and drops the call,
//! which is how every cancellation reaches a tool: an async tool stops at its next await, and
//! the terminal tool's process fence kills every process the command started. A `blocking`
//! sync tool runs to its end on its thread, unobserved.
//!
//! A task is kept for [`task_ttl`](ToolServer::task_ttl) after its creation
//! ([`DEFAULT_TASK_TTL`], `ttlMs`), finished or not, then forgotten: its id then answers
//! -32602 naming it, as an id never issued does. A call still running at its TTL is stopped.
//!
//! The running process holds a lease on the task and renews it (every third of
//! [`task_lease`](ToolServer::task_lease), at most every second); a task still unfinished
//! after its lease lapsed (the process was killed, or lost the store) is reported `failed`,
//! with the owner and the reason, by whichever process reads it next, and stored so.
//!
//! # A store shared by replicas
//!
//! The default store is this process's memory ([`MemoryTaskStore`]); replicas behind a load
//! balancer share one ([`ToolServer::task_store`]), through which each answers for the
//! others' tasks: see [`TaskStore`] for what an implementation must do.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::sync::Mutex;
use tokio::sync::Notify;

use super::ToolServer;

mod asker;
mod conformance;
mod methods;
mod record;
pub(super) mod runner;
mod store;

#[doc(hidden)]
pub use conformance::check_store;
pub use record::{TaskProgress, TaskRecord, now_ms};
pub use store::{MemoryTaskStore, TaskChange, TaskStore, TaskStoreError};

/// How long a call runs before it becomes a task, unless set with
/// [`ToolServer::task_after`]: 10 seconds (well under the minute after which HTTP clients
/// and proxies commonly give up on a request).
pub const DEFAULT_TASK_AFTER: Duration = Duration::from_secs(10);

/// How long a task is kept after its creation, unless set with [`ToolServer::task_ttl`]: one
/// hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(60 * 60);

/// How long a task's owner may go without renewing its lease before the task is reported
/// failed, unless set with [`ToolServer::task_lease`]: 15 seconds.
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(15);

/// The polling interval suggested to clients (`pollIntervalMs`): one second.
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// The tasks of a server: where they are kept and how long, shared by every clone.
#[derive(Clone)]
pub(super) struct Tasks {
    store: Arc<dyn TaskStore>,
    after: Duration,
    ttl: Duration,
    lease: Duration,
    poll_interval: Duration,
    /// The tasks this process runs, woken by a `tasks/update` or `tasks/cancel` it answers
    /// (others' requests reach them through the store, at the next lease renewal).
    local: Arc<Mutex<HashMap<String, Arc<Notify>>>>,
}

impl Default for Tasks {
    fn default() -> Self {
        Self {
            store: Arc::new(MemoryTaskStore::new()),
            after: DEFAULT_TASK_AFTER,
            ttl: DEFAULT_TASK_TTL,
            lease: DEFAULT_TASK_LEASE,
            poll_interval: DEFAULT_TASK_POLL_INTERVAL,
            local: Arc::default(),
        }
    }
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("store", &self.store)
            .field("after", &self.after)
            .field("ttl", &self.ttl)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

/// This process as a task's owner: `pid-<pid>-<random>`, unique to this run, so a record
/// names the process that runs it (and a restarted process, with the same pid, is another).
pub fn owner_id() -> &'static str {
    static OWNER: OnceLock<String> = OnceLock::new();
    OWNER.get_or_init(|| format!("pid-{}-{}", std::process::id(), random_hex(4)))
}

/// A new task id: 128 random bits in hex (a task id is a bearer token for its task).
fn new_task_id() -> String {
    random_hex(16)
}

/// `bytes` random bytes from the OS, in hex.
fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0_u8; bytes];
    if getrandom::fill(&mut buf).is_err() {
        // No OS randomness (never seen on a supported OS): unique, if guessable.
        use std::hash::{BuildHasher, Hasher};
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        for chunk in buf.chunks_mut(8) {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u64(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
            let value = hasher.finish().to_le_bytes();
            chunk.copy_from_slice(&value[..chunk.len()]);
        }
    }
    buf.iter().map(|byte| format!("{byte:02x}")).collect()
}

impl ToolServer {
    /// Where tasks are kept: [`MemoryTaskStore`] unless set. Replicas that may answer for
    /// each other's tasks share one store (see [`TaskStore`]).
    #[must_use]
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.shared_mut().tasks.store = store;
        self
    }

    /// How long a call of a client that declared the tasks extension runs before it becomes
    /// a task ([`DEFAULT_TASK_AFTER`] unless set; zero: every such call is a task).
    #[must_use]
    pub fn task_after(mut self, after: Duration) -> Self {
        self.shared_mut().tasks.after = after;
        self
    }

    /// How long a task is kept after its creation, running or finished ([`DEFAULT_TASK_TTL`]
    /// unless set, at least a second): its `ttlMs`. A call still running then is stopped.
    #[must_use]
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.shared_mut().tasks.ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// How long a task survives its process's silence before it is reported failed
    /// ([`DEFAULT_TASK_LEASE`] unless set, at least 30 ms): the process running it renews
    /// the lease every third of it (at most every second).
    #[must_use]
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.shared_mut().tasks.lease = lease.max(Duration::from_millis(30));
        self
    }
}
