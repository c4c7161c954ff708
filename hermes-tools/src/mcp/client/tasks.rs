//! Tasks from the client's side: the `io.modelcontextprotocol/tasks` extension of MCP
//! 2026-07-28 (SEP-2663).
//!
//! The client declares the extension, so a server may answer a long call with a task handle
//! (`resultType: "task"`) instead of its result. The call then follows the task until it
//! ends, within the call's one timeout:
//!
//! - it polls `tasks/get` at the interval the server suggests (`pollIntervalMs`, kept between
//!   [`MIN_POLL`] and [`MAX_POLL`]);
//! - the first report names the task, and each new `statusMessage` is the call's progress, so
//!   the caller (the CLI's bar, a client of `serve`) sees the work go on;
//! - the task's questions (`input_required`) are answered through the same [`Answerers`] a
//!   Multi Round-Trip Request uses (the agent's asker, the server's sampling bounds), each once,
//!   and sent with `tasks/update`;
//! - its result is the call's result; a failed or cancelled task is an error answer saying so;
//! - a call given up on before the task ended (its timeout, the caller gone) cancels the task
//!   with `tasks/cancel`, so the server stops the work nobody waits for.

use std::collections::HashSet;
use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, GetTaskParams, InputRequests, Task, TaskPayload,
    UpdateTaskParams,
};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::Value;

use super::mrtr;
use super::requests::Answerers;
use crate::ToolContext;

/// The shortest pause between two polls, whatever the server suggests.
pub(super) const MIN_POLL: Duration = Duration::from_millis(50);

/// The longest pause between two polls: a server suggesting more still gets a look this often.
pub(super) const MAX_POLL: Duration = Duration::from_secs(5);

/// The pause when the server suggests none (rmcp's default suggestion).
const DEFAULT_POLL: Duration = Duration::from_millis(1_000);

/// How a followed task ended.
#[derive(Debug)]
pub(super) enum Outcome {
    /// With this result, as the call's own would have been.
    Completed(CallToolResult),
    /// With this error message (the JSON-RPC error the server gave the task).
    Failed(String),
    /// Cancelled (by the server: the client's own cancellation never returns here).
    Cancelled,
}

/// Follows `task` on `peer` until it ends, reporting to `ctx` and answering its questions
/// through `answerers`.
pub(super) async fn follow(
    peer: &Peer<RoleClient>,
    task: Task,
    answerers: &Answerers,
    ctx: &ToolContext,
) -> Result<Outcome, ServiceError> {
    let id = task.task_id.clone();
    // Disarmed once the task ended; dropped armed (the call abandoned), it cancels the task.
    let mut cancel = CancelOnDrop(Some((peer.clone(), id.clone())));
    let mut reports = 0u32;
    let mut report = |message: String| {
        reports += 1;
        ctx.progress(f64::from(reports), None, message);
    };
    report(format!("the server runs this call as task {id}"));
    let mut last_message = task.status_message.clone();
    if let Some(message) = &last_message {
        report(message.clone());
    }
    let mut interval = poll_interval(task.poll_interval_ms);
    let mut answered = HashSet::new();
    loop {
        tokio::time::sleep(interval).await;
        let detailed = peer.get_task(GetTaskParams::new(id.clone())).await?.task;
        if let Some(ms) = detailed.task.poll_interval_ms {
            interval = poll_interval(Some(ms));
        }
        if detailed.task.status_message.is_some() && detailed.task.status_message != last_message {
            last_message.clone_from(&detailed.task.status_message);
            report(last_message.clone().unwrap_or_default());
        }
        let outcome = match detailed.payload {
            TaskPayload::Working => continue,
            TaskPayload::InputRequired { input_requests } => {
                answer(peer, &id, input_requests, &mut answered, answerers).await?;
                continue;
            }
            TaskPayload::Completed { result } => {
                let result = serde_json::from_value(Value::Object(result)).map_err(|err| {
                    ServiceError::McpError(rmcp::ErrorData::invalid_request(
                        format!("task {id} completed with a result that is not a tool's: {err}"),
                        None,
                    ))
                })?;
                Outcome::Completed(result)
            }
            TaskPayload::Failed { error } => Outcome::Failed(
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| Value::Object(error.clone()).to_string(), str::to_owned),
            ),
            TaskPayload::Cancelled => Outcome::Cancelled,
            _ => return Err(ServiceError::UnexpectedResponse),
        };
        cancel.0 = None;
        return Ok(outcome);
    }
}

/// Answers the questions of `asked` not answered before (a server lists a question until it
/// has taken its answer), and sends them with `tasks/update`.
async fn answer(
    peer: &Peer<RoleClient>,
    id: &str,
    asked: InputRequests,
    answered: &mut HashSet<String>,
    answerers: &Answerers,
) -> Result<(), ServiceError> {
    let fresh: InputRequests = asked
        .into_iter()
        .filter(|(key, _)| !answered.contains(key))
        .collect();
    if fresh.is_empty() {
        return Ok(());
    }
    let responses = mrtr::answer_all(answerers, fresh).await?;
    answered.extend(responses.keys().cloned());
    peer.update_task(UpdateTaskParams::new(id, responses)).await
}

/// The pause the server suggests, kept between [`MIN_POLL`] and [`MAX_POLL`].
fn poll_interval(suggested_ms: Option<u64>) -> Duration {
    suggested_ms
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

/// Sends `tasks/cancel` for the task when dropped armed: the call that followed it was given
/// up on.
struct CancelOnDrop(Option<(Peer<RoleClient>, String)>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some((peer, id)) = self.0.take() else {
            return;
        };
        // Drop cannot wait: the cancel goes out on the runtime the call ran on.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(err) = peer.cancel_task(CancelTaskParams::new(id.clone())).await {
                    tracing::debug!(task = %id, error = %err, "tasks/cancel failed");
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_poll_interval_follows_the_server_within_bounds() {
        assert_eq!(poll_interval(None), DEFAULT_POLL);
        assert_eq!(poll_interval(Some(300)), Duration::from_millis(300));
        assert_eq!(poll_interval(Some(0)), MIN_POLL);
        assert_eq!(poll_interval(Some(3_600_000)), MAX_POLL);
    }
}
