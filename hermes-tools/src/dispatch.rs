//! Dispatch: one tool call, made safe. Whatever happens, the model gets a JSON answer.
//!
//! Arguments take the fast path when they can: the model's argument string deserializes
//! straight into the generated argument struct. Only when that fails (or when the schema carries
//! constraints serde does not enforce, such as `maxItems`) are the arguments parsed, repaired
//! against the schema the model saw ([`crate::coercion`]) and validated ([`crate::validation`]).
//!
//! Unknown tools, malformed or invalid arguments, missing extensions, panics and errors all
//! become `{"error": …}` answers that tell the model what to do next.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use futures_util::FutureExt;
use serde_json::{Map, Value};

use crate::answer::ToolAnswer;
use crate::context::ToolContext;
use crate::registry::ToolRegistry;
use crate::tool::{Arguments, ArgumentsRejected, Handler, Tool};
use crate::{bridge, coercion};

impl ToolRegistry {
    /// Calls tool `name` with the model's argument string, from synchronous code.
    ///
    /// Async tools are driven to completion (see [`crate::bridge`]); prefer
    /// [`dispatch_async`](Self::dispatch_async) from async code.
    pub fn dispatch(&self, name: &str, args: &str, ctx: &ToolContext) -> ToolAnswer {
        match self.get(name) {
            Some(tool) => call(&tool, args, ctx),
            None => self.unknown_tool(name),
        }
    }

    /// Calls tool `name` from async code without blocking the executor: async tools are awaited,
    /// sync tools run on tokio's blocking pool.
    pub async fn dispatch_async(&self, name: &str, args: &str, ctx: &ToolContext) -> ToolAnswer {
        match self.get(name) {
            Some(tool) => call_async(tool, args, ctx).await,
            None => self.unknown_tool(name),
        }
    }

    pub(crate) fn unknown_tool(&self, name: &str) -> ToolAnswer {
        let snapshot = self.snapshot();
        let suggestions = nearest(name, snapshot.names());
        let mut message = format!("Unknown tool: {name:?}.");
        if suggestions.is_empty() {
            message.push_str(" Call one of the tools you were given.");
        } else {
            message.push_str(&format!(" Did you mean: {}?", suggestions.join(", ")));
        }
        let mut extra = Map::new();
        extra.insert(
            "suggestions".into(),
            Value::Array(suggestions.into_iter().map(Value::String).collect()),
        );
        ToolAnswer::error_with(message, extra)
    }
}

/// Calls `tool` from synchronous code.
pub fn call(tool: &Tool, args: &str, ctx: &ToolContext) -> ToolAnswer {
    let outcome = match tool.handler() {
        Handler::Sync(handler) => with_arguments(tool, args, |arguments| {
            catch_unwind(AssertUnwindSafe(|| handler(arguments, ctx)))
                .unwrap_or_else(|panic| Ok(panicked(tool, panic)))
        }),
        Handler::Async(handler) => {
            let future = with_arguments(tool, args, |arguments| {
                catch_unwind(AssertUnwindSafe(|| handler(arguments, ctx)))
                    .unwrap_or_else(|panic| Ok(Box::pin(std::future::ready(panicked(tool, panic)))))
            });
            future.map(|future| {
                bridge::block_on(AssertUnwindSafe(future).catch_unwind())
                    .map_err(|err| {
                        ToolAnswer::error(format!("could not start an async runtime: {err}"))
                    })
                    .and_then(|finished| finished.map_err(|panic| panicked(tool, panic)))
                    .unwrap_or_else(|answer| answer)
            })
        }
    };
    outcome.unwrap_or_else(|answer| answer)
}

/// Calls `tool` from async code; sync handlers run on the blocking pool when a runtime is present.
pub async fn call_async(tool: Arc<Tool>, args: &str, ctx: &ToolContext) -> ToolAnswer {
    match tool.handler().clone() {
        Handler::Async(handler) => {
            let future = with_arguments(&tool, args, |arguments| {
                catch_unwind(AssertUnwindSafe(|| handler(arguments, ctx))).unwrap_or_else(|panic| {
                    Ok(Box::pin(std::future::ready(panicked(&tool, panic))))
                })
            });
            match future {
                Ok(future) => AssertUnwindSafe(future)
                    .catch_unwind()
                    .await
                    .unwrap_or_else(|panic| panicked(&tool, panic)),
                Err(answer) => answer,
            }
        }
        Handler::Sync(_) if tokio::runtime::Handle::try_current().is_ok() => {
            let (args, ctx) = (args.to_owned(), ctx.clone());
            let name = tool.name().to_owned();
            tokio::task::spawn_blocking(move || call(&tool, &args, &ctx))
                .await
                .unwrap_or_else(|err| {
                    ToolAnswer::error(format!("tool {name:?} did not finish: {err}"))
                })
        }
        Handler::Sync(_) => call(&tool, args, ctx),
    }
}

/// Runs `invoke` with the arguments on the fast path, or repaired and validated on the slow one.
///
/// `Err` is an answer to send as is (invalid arguments).
fn with_arguments<R>(
    tool: &Tool,
    raw: &str,
    mut invoke: impl FnMut(Arguments<'_>) -> Result<R, ArgumentsRejected>,
) -> Result<R, ToolAnswer> {
    let active = tool.active_parameter_schema();
    let schema = active.as_deref().unwrap_or_else(|| tool.parameter_schema());
    if !schema.needs_validation
        && let Ok(done) = invoke(Arguments::Raw(raw))
    {
        return Ok(done);
    }
    let value = parse_arguments(tool, raw)?;
    let value = coercion::coerce_and_validate(value, &schema.value).map_err(|err| {
        ToolAnswer::error(format!(
            "Invalid arguments for tool {:?}: {err}",
            tool.name()
        ))
    })?;
    invoke(Arguments::Value(value)).map_err(|err| {
        ToolAnswer::error(format!(
            "Invalid arguments for tool {:?}: {err}. Call it again with arguments matching its parameters.",
            tool.name()
        ))
    })
}

fn parse_arguments(tool: &Tool, raw: &str) -> Result<Value, ToolAnswer> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(raw).map_err(|err| {
        ToolAnswer::error(format!(
            "The arguments for tool {:?} are not valid JSON ({err}). Send a JSON object.",
            tool.name()
        ))
    })
}

/// The text a panic carried (`panic!` with a literal or a format), if it carried text.
pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

fn panicked(tool: &Tool, panic: Box<dyn Any + Send>) -> ToolAnswer {
    let message = panic_message(&*panic);
    tracing::error!(tool = tool.name(), %message, "tool panicked");
    ToolAnswer::error(format!(
        "Tool {:?} failed unexpectedly (it panicked: {message}). Try another approach.",
        tool.name()
    ))
}

/// Up to three names nearest to `name`, best first.
pub(crate) fn nearest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<String> {
    let lowered = name.to_ascii_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .filter_map(|candidate| {
            let other = candidate.to_ascii_lowercase();
            let mut score = strsim::jaro_winkler(&lowered, &other);
            if !lowered.is_empty() && (other.contains(&lowered) || lowered.contains(&other)) {
                score = score.max(0.9);
            }
            (score >= 0.75).then_some((score, candidate))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(3)
        .map(|(_, n)| n.to_owned())
        .collect()
}
