//! One tool call, from the model's argument text to the JSON answer it gets back: what a
//! running tool is given ([`ToolContext`](crate::ToolContext), its [`Session`], a way to report
//! [`Progress`] and to ask the user or the model through an [`Asker`]) and what it gives back
//! ([`ToolAnswer`](crate::ToolAnswer), [`ToolContent`], anything [`IntoAnswer`]).
//!
//! [`ToolRegistry::call`](crate::ToolRegistry::call) runs a call through these stages, each in
//! its own file here:
//!
//! 1. **pipeline** (`pipeline.rs`): the agent-loop refusal, `pre_call` hooks, the approval gate,
//!    the timeout, then `post_call` and `transform` hooks ([`crate::hooks`]);
//! 2. **dispatch** (`dispatch.rs`): the arguments judged one way (the fast path deserializes the
//!    model's text as it is; the slow path drops copied schema keywords, refuses unknown keys
//!    with the nearest names, clamps, repairs with `coercion/` and checks with `validation/`),
//!    and the tool run, its panics caught;
//! 3. **answer** (`answer.rs`): whatever the tool returned, as JSON text the model can read;
//!    errors as `{"error": …}` that say what to do next;
//! 4. **redaction** ([`crate::secrets`]): credentials masked out of the answer;
//! 5. **budget** (`budget/`): an answer over the tool's (or the turn's [`TurnBudget`]) size cut
//!    to fit, the whole of it spilled to a file the model can read in pages.
//!
//! `bridge.rs` drives an async tool from sync code; `cost.rs` learns what a sync tool's
//! calls cost, so that a turn runs cheap ones inline; `context.rs`, `reports.rs` and `asking.rs`
//! are the context's parts.
//!
//! # Sessions outside MCP
//!
//! A [`Session`] is the state several calls of one conversation share. The MCP server gives one
//! to each MCP session; an embedding agent makes one per conversation and hands it to every
//! call of it:
//!
//! ```
//! use hermes_tools::ToolContext;
//! use hermes_tools::call::Session;
//!
//! #[derive(Default)]
//! struct Seen(std::sync::atomic::AtomicUsize);
//!
//! let conversation = Session::new("chat-42");
//! let ctx = ToolContext::new().with_session(conversation.clone());
//! // A tool reads its conversation's state with `ctx.session_state::<Seen>()`: one value per
//! // type and session, made with `Default` on first use, shared by every call of the session.
//! let seen = ctx.session_state::<Seen>().unwrap();
//! seen.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
//! assert_eq!(conversation.state::<Seen>().0.load(std::sync::atomic::Ordering::Relaxed), 1);
//! // Another conversation sees none of it.
//! let other = ToolContext::new().with_session(Session::new("chat-43"));
//! assert_eq!(other.session_state::<Seen>().unwrap().0.load(std::sync::atomic::Ordering::Relaxed), 0);
//! ```
//!
//! Without a session (`ToolContext::new()` alone), `session_state` is `None`: a tool that
//! needs one says so to the model.
//!
//! # Following progress
//!
//! A tool reports with [`ToolContext::progress`](crate::ToolContext::progress); the caller
//! follows with [`with_progress`](crate::ToolContext::with_progress) (the MCP server forwards
//! each report as `notifications/progress`, the CLI draws a line):
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use hermes_tools::ToolContext;
//!
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let sink = Arc::clone(&seen);
//! let ctx = ToolContext::new().with_progress(move |report| sink.lock().unwrap().push(report.done));
//! ctx.progress(1.0, Some(4.0), "one of four");
//! assert_eq!(*seen.lock().unwrap(), [1.0]);
//! ```

pub(crate) mod answer;
pub(crate) mod answer_text;
pub(crate) mod asking;
pub(crate) mod bridge;
pub(crate) mod budget;
pub(crate) mod coercion;
pub(crate) mod combinators;
pub(crate) mod context;
pub(crate) mod cost;
pub(crate) mod dispatch;
pub(crate) mod pipeline;
pub(crate) mod reports;
pub(crate) mod validation;

pub use self::answer::{ContentPart, IntoAnswer, ToolContent};
pub use self::asking::{
    AskError, Asker, Elicitation, ElicitationReply, Sampling, SamplingMessageText, SamplingReply,
    SamplingRole,
};
pub use self::budget::{TURN_NOTE_MAX_CHARS, TurnBudget, readable_spill_file};
pub use self::combinators::BoxFuture;
pub use self::context::Session;
pub use self::reports::{LogLevel, Progress};
pub use self::validation::{ArgumentError, validate};
