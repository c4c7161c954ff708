//! Hooks around the call pipeline: pre-call directives, post-call observers, result
//! transforms, and the approval gate a directive (or a tool's declaration) sends calls to.
//!
//! ```
//! use hermes_tools::hooks::{Directive, Hooks};
//!
//! let hooks = Hooks::default();
//! hooks.add_pre_call(None, |call| {
//!     (call.name == "terminal" && call.args_text.contains("rm -rf"))
//!         .then(|| Directive::Block("destructive commands are not allowed".into()))
//! });
//! hooks.add_post_call(None, |record| println!("{} took {} ms", record.name, record.duration_ms));
//! assert_eq!(hooks.snapshot().len(), 2);
//! ```
//!
//! A hook is plain code registered on the registry (or by a plugin, which then owns it and
//! takes it away when unloaded). Hooks run with no lock held; one that panics is contained,
//! reported with `tracing`, and the call goes on as if it had returned nothing.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::sync::RwLock;
use serde_json::Value;

use crate::call::context::ToolContext;

/// Decides whether a call that needs approval may run.
///
/// The embedding agent provides it (a prompt to the user, a policy) with
/// [`ToolRegistry::set_approval_gate`](crate::ToolRegistry::set_approval_gate); closures
/// implement it. No gate means every such call is refused: fail closed.
///
/// ```
/// use std::sync::Arc;
/// use hermes_tools::{ToolRegistry, hooks::ApprovalRequest};
///
/// let registry = ToolRegistry::new();
/// registry.set_approval_gate(Some(Arc::new(|request: &ApprovalRequest<'_>| {
///     request.tool != "terminal"
/// })));
/// ```
pub trait ApprovalGate: Send + Sync {
    /// Whether the call may run.
    fn approve(&self, request: &ApprovalRequest<'_>) -> bool;
}

impl<F> ApprovalGate for F
where
    F: Fn(&ApprovalRequest<'_>) -> bool + Send + Sync,
{
    fn approve(&self, request: &ApprovalRequest<'_>) -> bool {
        self(request)
    }
}

/// A call waiting for approval.
#[derive(Debug)]
#[non_exhaustive]
pub struct ApprovalRequest<'a> {
    /// The tool.
    pub tool: &'a str,
    /// Its arguments, parsed (`Value::Null` when they are not JSON).
    pub args: &'a Value,
    /// Why approval is asked: the hook's message, or that the tool requires it.
    pub reason: &'a str,
    /// The call's context.
    pub ctx: &'a ToolContext,
}

/// What a pre-call hook may ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// Refuse the call; the message is the error the model receives. An empty message makes
    /// the directive malformed, and it is ignored (as Hermes does).
    Block(String),
    /// Send the call to the approval gate first; the text says why.
    Approve(String),
}

/// A call about to run, as pre-call hooks see it.
#[derive(Debug)]
pub struct PendingCall<'a> {
    /// The tool name the model asked for (it may be unknown).
    pub name: &'a str,
    /// The arguments exactly as the model sent them.
    pub args_text: &'a str,
    /// The arguments parsed, or `Value::Null` when they are not JSON.
    pub args: &'a Value,
    /// The call's context.
    pub ctx: &'a ToolContext,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The tool answered without error.
    Ok,
    /// The tool (or dispatch) answered an error.
    Error,
    /// A hook or the approval gate refused the call.
    Blocked,
}

impl Status {
    /// `"ok"`, `"error"` or `"blocked"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Blocked => "blocked",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A finished call, as post-call hooks and transforms see it.
#[derive(Debug)]
pub struct CallRecord<'a> {
    /// The tool name.
    pub name: &'a str,
    /// The arguments parsed, or `Value::Null` when they are not JSON.
    pub args: &'a Value,
    /// The answer's JSON text.
    pub result: &'a str,
    /// How long the call took, in whole milliseconds.
    pub duration_ms: u64,
    /// How it ended.
    pub status: Status,
    /// The call's context.
    pub ctx: &'a ToolContext,
}

type PreFn = dyn Fn(&PendingCall<'_>) -> Option<Directive> + Send + Sync;
type PostFn = dyn Fn(&CallRecord<'_>) + Send + Sync;
type TransformFn = dyn Fn(&CallRecord<'_>) -> Option<String> + Send + Sync;

/// Identifies a registered hook, to remove it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HookId(u64);

/// The kind of a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookKind {
    /// Runs before the call and may block it or ask for approval.
    PreCall,
    /// Observes the finished call.
    PostCall,
    /// May replace the answer; the first replacement wins.
    Transform,
}

#[derive(Clone)]
enum HookFn {
    Pre(Arc<PreFn>),
    Post(Arc<PostFn>),
    Transform(Arc<TransformFn>),
}

/// One registered hook.
#[derive(Clone)]
pub struct Hook {
    id: HookId,
    owner: Option<Arc<str>>,
    function: HookFn,
}

impl Hook {
    /// Its id.
    pub fn id(&self) -> HookId {
        self.id
    }
    /// The plugin that registered it, if any.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }
    /// Its kind.
    pub fn kind(&self) -> HookKind {
        match self.function {
            HookFn::Pre(_) => HookKind::PreCall,
            HookFn::Post(_) => HookKind::PostCall,
            HookFn::Transform(_) => HookKind::Transform,
        }
    }
}

impl fmt::Debug for Hook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hook")
            .field("id", &self.id)
            .field("owner", &self.owner)
            .field("kind", &self.kind())
            .finish()
    }
}

/// The hooks of one registry, in registration order.
#[derive(Default)]
pub struct Hooks {
    hooks: RwLock<Arc<Vec<Hook>>>,
    /// How many hooks `hooks` holds, readable without the lock: a call on a registry without
    /// hooks (the common case) then costs no lock and no reference count.
    count: AtomicUsize,
    next_id: AtomicU64,
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.hooks.read().iter()).finish()
    }
}

impl Hooks {
    fn add(&self, owner: Option<&str>, function: HookFn) -> HookId {
        let id = HookId(self.next_id.fetch_add(1, Ordering::Relaxed));
        let mut hooks = self.hooks.write();
        Arc::make_mut(&mut hooks).push(Hook {
            id,
            owner: owner.map(Arc::from),
            function,
        });
        self.count.store(hooks.len(), Ordering::Release);
        id
    }

    /// Adds a pre-call hook; `owner` names the plugin adding it.
    pub fn add_pre_call(
        &self,
        owner: Option<&str>,
        hook: impl Fn(&PendingCall<'_>) -> Option<Directive> + Send + Sync + 'static,
    ) -> HookId {
        self.add(owner, HookFn::Pre(Arc::new(hook)))
    }

    /// Adds a post-call hook.
    pub fn add_post_call(
        &self,
        owner: Option<&str>,
        hook: impl Fn(&CallRecord<'_>) + Send + Sync + 'static,
    ) -> HookId {
        self.add(owner, HookFn::Post(Arc::new(hook)))
    }

    /// Adds a result transform: returning `Some(text)` replaces the answer (the first wins).
    pub fn add_transform(
        &self,
        owner: Option<&str>,
        hook: impl Fn(&CallRecord<'_>) -> Option<String> + Send + Sync + 'static,
    ) -> HookId {
        self.add(owner, HookFn::Transform(Arc::new(hook)))
    }

    /// Removes a hook; returns whether it was there.
    pub fn remove(&self, id: HookId) -> bool {
        let mut hooks = self.hooks.write();
        let before = hooks.len();
        Arc::make_mut(&mut hooks).retain(|hook| hook.id != id);
        self.count.store(hooks.len(), Ordering::Release);
        hooks.len() != before
    }

    /// Removes every hook `owner` added; returns how many.
    pub fn remove_owned_by(&self, owner: &str) -> usize {
        let mut hooks = self.hooks.write();
        let before = hooks.len();
        Arc::make_mut(&mut hooks).retain(|hook| hook.owner.as_deref() != Some(owner));
        self.count.store(hooks.len(), Ordering::Release);
        before - hooks.len()
    }

    /// The hooks now registered; running them needs no lock.
    pub fn snapshot(&self) -> Arc<Vec<Hook>> {
        self.hooks.read().clone()
    }

    /// The hooks now registered, or `None` when there are none (then without taking the lock).
    pub(crate) fn current(&self) -> Option<Arc<Vec<Hook>>> {
        if self.is_empty() {
            None
        } else {
            Some(self.snapshot())
        }
    }

    /// Whether no hook is registered (the pipeline then goes straight to dispatch).
    pub fn is_empty(&self) -> bool {
        self.count.load(Ordering::Acquire) == 0
    }
}

/// Runs the pre-call hooks in order; the first well-formed directive wins.
pub(crate) fn run_pre(hooks: &[Hook], call: &PendingCall<'_>) -> Option<Directive> {
    hooks.iter().find_map(|hook| match &hook.function {
        HookFn::Pre(function) => contained(hook, || function(call))
            .flatten()
            .filter(|directive| well_formed(hook, directive)),
        _ => None,
    })
}

/// Runs every post-call hook.
pub(crate) fn run_post(hooks: &[Hook], record: &CallRecord<'_>) {
    for hook in hooks {
        if let HookFn::Post(function) = &hook.function {
            contained(hook, || function(record));
        }
    }
}

/// Runs the transforms in order; the first replacement wins.
pub(crate) fn run_transforms(hooks: &[Hook], record: &CallRecord<'_>) -> Option<String> {
    hooks.iter().find_map(|hook| match &hook.function {
        HookFn::Transform(function) => contained(hook, || function(record)).flatten(),
        _ => None,
    })
}

fn well_formed(hook: &Hook, directive: &Directive) -> bool {
    let message = match directive {
        Directive::Block(message) | Directive::Approve(message) => message,
    };
    if message.trim().is_empty() {
        tracing::warn!(hook = ?hook.id, owner = ?hook.owner, "ignoring a directive with an empty message");
        return false;
    }
    true
}

fn contained<R>(hook: &Hook, run: impl FnOnce() -> R) -> Option<R> {
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(value) => Some(value),
        Err(_) => {
            tracing::error!(hook = ?hook.id, owner = ?hook.owner, kind = ?hook.kind(), "hook panicked; the call goes on");
            None
        }
    }
}
