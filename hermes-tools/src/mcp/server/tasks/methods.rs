//! The requests of the tasks extension, answered from the store alone (so any replica
//! answers them): `tasks/get`, `tasks/update`, `tasks/cancel`; and a `tools/call` that may
//! become a task.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CreateTaskResult, GetTaskResult, InputResponses,
};
use rmcp::service::{RequestContext, RoleServer};

use super::Tasks;
use super::record::{TaskRecord, now_ms};
use super::runner::{Launch, Outcome};
use crate::mcp::server::{Listing, ToolServer, call, mrtr};

/// The error for a task id the store does not hold.
fn unknown_task(id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "Unknown task {id:?}: no such task, or it expired (a task is kept for its ttlMs \
             after its creation). Call the tool again for a new one."
        ),
        Some(serde_json::json!({"taskId": id})),
    )
}

/// A store's failure as the request's error.
fn store_failed(err: &super::TaskStoreError) -> ErrorData {
    ErrorData::internal_error(format!("the task store failed: {err}"), None)
}

impl Tasks {
    /// `tasks/get`: the task as stored, failed first if its owner's lease lapsed.
    pub(in crate::mcp::server) async fn get(&self, id: &str) -> Result<GetTaskResult, ErrorData> {
        let record = self
            .store
            .get(id)
            .await
            .map_err(|err| store_failed(&err))?
            .ok_or_else(|| unknown_task(id))?;
        let record = if record.lease_lapsed(now_ms()) {
            self.store
                .update(id, &|record: &mut TaskRecord| {
                    record.fail_if_lapsed(now_ms());
                })
                .await
                .map_err(|err| store_failed(&err))?
                .ok_or_else(|| unknown_task(id))?
        } else {
            record
        };
        Ok(GetTaskResult::new(record.detailed()))
    }

    /// `tasks/update`: the answers stored for the running call (answers to keys not
    /// outstanding are ignored, as the extension asks).
    pub(in crate::mcp::server) async fn update(
        &self,
        id: &str,
        responses: InputResponses,
    ) -> Result<(), ErrorData> {
        self.store
            .update(id, &move |record: &mut TaskRecord| {
                record.answer(responses.clone(), now_ms());
            })
            .await
            .map_err(|err| store_failed(&err))?
            .ok_or_else(|| unknown_task(id))?;
        self.wake(id);
        Ok(())
    }

    /// `tasks/cancel`: the request stored for the running call (nothing for a finished task).
    pub(in crate::mcp::server) async fn cancel(&self, id: &str) -> Result<(), ErrorData> {
        self.store
            .update(id, &|record: &mut TaskRecord| {
                record.request_cancel(now_ms())
            })
            .await
            .map_err(|err| store_failed(&err))?
            .ok_or_else(|| unknown_task(id))?;
        self.wake(id);
        Ok(())
    }

    /// Wakes task `id`'s driver, if this process runs it.
    fn wake(&self, id: &str) {
        if let Some(wake) = self.local.lock().get(id) {
            wake.notify_one();
        }
    }
}

impl ToolServer {
    /// Whether a `tools/call` may become a task: its request is of the 2026-07-28 era and
    /// declares the tasks extension.
    pub(in crate::mcp::server) fn may_become_task(context: &RequestContext<RoleServer>) -> bool {
        super::super::modern(context)
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks())
    }

    /// A `tools/call` that may become a task (see the [module docs](super)): its result if it
    /// finished in time, else the task's seed state.
    pub(in crate::mcp::server) async fn call_as_task(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        listing: Listing,
        args: String,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let tool = self.shared.registry.get(&name);
        let asks_first = tool.as_ref().is_some_and(|tool| tool.asks_before_task());
        let at_once = !asks_first && tool.as_ref().is_some_and(|tool| tool.runs_as_task());
        let capabilities = context.client_capabilities();
        // A tool that asks before it becomes a task: its questions until then are a Multi
        // Round-Trip round (mrtr.rs), opened from the retry's state and answers.
        let round = if asks_first {
            let sealing = self.sealing()?;
            let round = Arc::new(mrtr::Round::open(
                &sealing,
                &name,
                request.arguments.as_ref(),
                request.request_state.as_deref(),
                request.input_responses.as_ref(),
                capabilities.as_ref(),
            )?);
            Some((sealing, round))
        } else {
            None
        };
        let progress_to = context
            .meta
            .get_progress_token()
            .map(|token| (context.peer.clone(), token));
        let finish_name = name.clone();
        let finish_listing = listing.clone();
        let launch = Launch {
            tasks: self.shared.tasks.clone(),
            registry: self.shared.registry.clone(),
            ctx: self.call_context(context),
            options: self.served_options(&listing),
            name,
            args,
            at_once,
            round: round.as_ref().map(|(_, round)| Arc::clone(round)),
            offers: mrtr::offers(capabilities.as_ref()),
            progress_to,
            finish: Box::new(move |answer| {
                call::complete_result(answer, &finish_listing, &finish_name)
            }),
        };
        let outcome = launch.start();
        // The client's `notifications/cancelled` before the call became a task drops the
        // receiver, which stops the call.
        let outcome = tokio::select! {
            outcome = outcome => outcome,
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error(
                    format!("the call to {} was cancelled", request.name),
                    None,
                ));
            }
        };
        match outcome {
            Ok(Outcome::Answer(answer)) => {
                if let Some((sealing, round)) = round {
                    // The run ended on a question without its answer: the client is asked.
                    if let Some(required) =
                        round.input_required(&sealing, &request.name, request.arguments.as_ref())?
                    {
                        return Ok(CallToolResponse::InputRequired(required));
                    }
                    if answer.is_error()
                        && let Some(required) = round.undeclared()
                    {
                        return Err(ErrorData::missing_required_client_capability(required));
                    }
                }
                Ok(call::result(&answer, &listing, &request.name))
            }
            Ok(Outcome::Task(task)) => Ok(CallToolResponse::Task(CreateTaskResult::new(task))),
            Ok(Outcome::Failed(err)) => Err(err),
            Err(_) => Err(ErrorData::internal_error(
                format!("the call to {} ended without an answer", request.name),
                None,
            )),
        }
    }
}
