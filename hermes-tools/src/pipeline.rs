//! The call pipeline: what an agent loop calls with the model's tool call.
//!
//! [`ToolRegistry::handle_function_call`] (and its async form) runs, in order:
//!
//! 1. the refusal of tools only the agent loop may run (`todo`, `memory`, `session_search`,
//!    `delegate_task` by default; [`Config::agent_loop_tools`](crate::config::Config::agent_loop_tools));
//! 2. pre-call hooks, unless the caller skips them: the first well-formed
//!    [`Directive`] wins: `Block` answers its message as the error, `Approve` sends the call
//!    to the approval gate;
//! 3. the approval gate, for calls a hook sent there and tools marked `needs_approval` (or
//!    listed in `approval_required`). No gate configured means refused: fail closed;
//! 4. dispatch (argument repair and validation included), timed and bounded by the tool's
//!    timeout. A timed-out async tool's future is dropped; a sync tool runs on the blocking pool
//!    and is abandoned to finish on its own;
//! 5. post-call hooks, with the duration in whole milliseconds and the status;
//! 6. result transforms: the first replacement wins;
//! 7. the answer budget: an over-size answer keeps its head and tail (see [`crate::budget`]).
//!
//! Unknown tools go through the hooks too. With no hook registered, steps 2, 5 and 6 cost a
//! branch each.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::answer::ToolAnswer;
use crate::budget::{Spill, TurnBudget};
use crate::config::{self, Config};
use crate::context::ToolContext;
use crate::dispatch::call_async;
use crate::hooks::{self, CallRecord, Directive, Hook, PendingCall, Status};
use crate::registry::ToolRegistry;
use crate::tool::Tool;

/// Decides whether a call that needs approval may run.
///
/// The embedding agent provides it (a prompt to the user, a policy); closures implement it.
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

/// How one call goes through the pipeline.
#[derive(Clone, Default, Debug)]
pub struct CallOptions {
    /// Do not run pre-call hooks (post-call hooks and transforms still run).
    pub skip_pre_hooks: bool,
    /// The caller is the agent loop itself, which may run the agent-loop tools.
    pub from_agent_loop: bool,
    /// The budget shared by all answers of this model turn.
    pub turn: Option<Arc<TurnBudget>>,
}

impl ToolRegistry {
    /// Runs one tool call through the pipeline, from synchronous code.
    pub fn handle_function_call(&self, name: &str, args: &str, ctx: &ToolContext) -> ToolAnswer {
        self.handle_function_call_with(name, args, ctx, &CallOptions::default())
    }

    /// [`handle_function_call`](Self::handle_function_call) with options.
    pub fn handle_function_call_with(
        &self,
        name: &str,
        args: &str,
        ctx: &ToolContext,
        options: &CallOptions,
    ) -> ToolAnswer {
        crate::bridge::block_on(self.handle_function_call_async_with(name, args, ctx, options))
            .unwrap_or_else(|err| {
                ToolAnswer::error(format!("could not start an async runtime: {err}"))
            })
    }

    /// Runs one tool call through the pipeline without blocking the executor.
    pub async fn handle_function_call_async(
        &self,
        name: &str,
        args: &str,
        ctx: &ToolContext,
    ) -> ToolAnswer {
        self.handle_function_call_async_with(name, args, ctx, &CallOptions::default())
            .await
    }

    /// [`handle_function_call_async`](Self::handle_function_call_async) with options.
    pub async fn handle_function_call_async_with(
        &self,
        name: &str,
        args: &str,
        ctx: &ToolContext,
        options: &CallOptions,
    ) -> ToolAnswer {
        let config = config::current();
        if !options.from_agent_loop && config.agent_loop_tools.iter().any(|t| t == name) {
            return ToolAnswer::refusal(format!("{name} must be handled by the agent loop"));
        }
        let tool = self.get(name);
        let hooks = self.hooks().snapshot();
        let started = Instant::now();
        // Parsed only for hooks and the gate: the plain path hands the raw text to dispatch.
        let needs_value =
            !hooks.is_empty() || tool.as_deref().is_some_and(|t| needs_approval(&config, t));
        let value = if needs_value {
            serde_json::from_str(args).unwrap_or(Value::Null)
        } else {
            Value::Null
        };

        let (answer, status) = match self.admit(
            name,
            args,
            &value,
            ctx,
            tool.as_deref(),
            &hooks,
            &config,
            options,
        ) {
            Err(refusal) => (refusal, Status::Blocked),
            Ok(()) => {
                let answer = match &tool {
                    Some(tool) => {
                        run_timed(Arc::clone(tool), args, ctx, config.timeout(tool)).await
                    }
                    // Not a second lookup: a tool registered since must not skip the gate.
                    None => self.unknown_tool(name),
                };
                let status = if answer.is_error() {
                    Status::Error
                } else {
                    Status::Ok
                };
                (answer, status)
            }
        };

        let answer = if hooks.is_empty() {
            answer
        } else {
            let record = CallRecord {
                name,
                args: &value,
                result: answer.as_str(),
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                status,
                ctx,
            };
            hooks::run_post(&hooks, &record);
            match hooks::run_transforms(&hooks, &record) {
                // An error stays an error (MCP's isError) whatever its text becomes.
                Some(replacement) => answer.with_text(ToolAnswer::text(replacement).into_string()),
                None => answer,
            }
        };
        fit_budget(answer, name, tool.as_deref(), &config, options)
    }

    /// Steps 2 and 3: pre-call hooks and the approval gate. `Err` is the refusal to answer.
    #[allow(clippy::too_many_arguments)]
    fn admit(
        &self,
        name: &str,
        args: &str,
        value: &Value,
        ctx: &ToolContext,
        tool: Option<&Tool>,
        hooks: &[Hook],
        config: &Config,
        options: &CallOptions,
    ) -> Result<(), ToolAnswer> {
        let mut approval: Option<String> = None;
        if !options.skip_pre_hooks && !hooks.is_empty() {
            let pending = PendingCall {
                name,
                args_text: args,
                args: value,
                ctx,
            };
            match hooks::run_pre(hooks, &pending) {
                Some(Directive::Block(message)) => return Err(ToolAnswer::refusal(message)),
                Some(Directive::Approve(reason)) => approval = Some(reason),
                None => {}
            }
        }
        if approval.is_none() && tool.is_some_and(|t| needs_approval(config, t)) {
            approval = Some(format!("{name} requires approval before it runs"));
        }
        let Some(reason) = approval else {
            return Ok(());
        };
        let request = ApprovalRequest {
            tool: name,
            args: value,
            reason: &reason,
            ctx,
        };
        match self.approval_gate() {
            None => Err(ToolAnswer::refusal(format!(
                "{name} needs approval ({reason}) but no approval gate is configured, so the call \
                 was refused. Do not retry it; tell the user."
            ))),
            Some(gate) if gate.approve(&request) => Ok(()),
            Some(_) => Err(ToolAnswer::refusal(format!(
                "The user did not approve this {name} call ({reason}). Do not retry it unchanged."
            ))),
        }
    }
}

fn needs_approval(config: &Config, tool: &Tool) -> bool {
    tool.needs_approval() || config.approval_required.iter().any(|t| t == tool.name())
}

/// Step 4: dispatch within the tool's timeout.
async fn run_timed(tool: Arc<Tool>, args: &str, ctx: &ToolContext, limit: Duration) -> ToolAnswer {
    let name = tool.name().to_owned();
    match tokio::time::timeout(limit, call_async(tool, args, ctx)).await {
        Ok(answer) => answer,
        Err(_) => {
            tracing::warn!(tool = %name, ?limit, "tool timed out");
            ToolAnswer::error(format!(
                "Tool {name:?} timed out after {} s and was stopped. Try a smaller task or a longer timeout.",
                limit.as_secs_f64()
            ))
        }
    }
}

/// Step 7: the tool's answer budget, within the turn's.
fn fit_budget(
    answer: ToolAnswer,
    name: &str,
    tool: Option<&Tool>,
    config: &Config,
    options: &CallOptions,
) -> ToolAnswer {
    let max_chars = tool.map_or(config.default_max_result_chars, |t| {
        config.max_result_chars(t)
    });
    let spill = config.spill_dir.as_deref().map(Spill::new);
    let fitted = match &options.turn {
        Some(turn) => turn.fit(name, answer.as_str(), max_chars, spill.as_ref()),
        None => crate::budget::fit(name, answer.as_str(), max_chars, spill.as_ref()),
    };
    if fitted.cut.is_none() {
        return answer;
    }
    let text = fitted.into_string();
    answer.with_text(text)
}
