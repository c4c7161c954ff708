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
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// The context of one tool call: ids for tracing and a typed map of extensions.
///
/// Cloning is cheap (two reference counts), so async tools can own it across `.await`s.
#[derive(Clone, Default)]
pub struct ToolContext {
    inner: Arc<Inner>,
    /// The registry running the call, set by the registry before it calls a tool; read with
    /// `registry()` and `config()` (defined beside the registry). Type-erased so that this
    /// module, which the registry's own parts use, does not depend on the registry.
    runner: Option<Runner>,
}

/// The type-erased registry a context runs on.
pub(crate) type Runner = Arc<dyn Any + Send + Sync>;

#[derive(Clone, Default)]
struct Inner {
    task_id: Option<Arc<str>>,
    session_id: Option<Arc<str>>,
    tool_call_id: Option<Arc<str>>,
    // Arc, not Box, so that the context stays cheap to clone and to modify (`Arc::make_mut`).
    extensions: HashMap<TypeId, Extension>,
}

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

    /// Sets the id of the conversation session.
    pub fn with_session_id(mut self, id: impl Into<Arc<str>>) -> Self {
        Arc::make_mut(&mut self.inner).session_id = Some(id.into());
        self
    }

    /// Sets the id the model gave this tool call.
    pub fn with_tool_call_id(mut self, id: impl Into<Arc<str>>) -> Self {
        Arc::make_mut(&mut self.inner).tool_call_id = Some(id.into());
        self
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

    /// The id of the session, if set.
    pub fn session_id(&self) -> Option<&str> {
        self.inner.session_id.as_deref()
    }

    /// The id of the tool call, if set.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.inner.tool_call_id.as_deref()
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
            .field("session_id", &self.session_id())
            .field("tool_call_id", &self.tool_call_id())
            .field("extensions", &extensions)
            .field("on_registry", &self.runner.is_some())
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
    fn debug_names_extension_types() {
        let ctx = ToolContext::new().with_extension(String::from("x"));
        assert!(format!("{ctx:?}").contains("alloc::string::String"));
    }
}
