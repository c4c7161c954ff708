//! A task's questions: a tool's [`elicit`](crate::ToolContext::elicit) or
//! [`sample`](crate::ToolContext::sample) inside a task becomes one of the task's
//! `inputRequests`, and waits for the client's `tasks/update`.

// Sampling is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// its clients still declare it, so a tool's sampling goes to them as an input request.
#![allow(deprecated)]

use rmcp::model::{CreateMessageResult, ElicitResult, InputRequest, ServerRequest};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::super::ask;
use crate::call::asking::{
    AskError, Asker, Elicitation, ElicitationReply, Sampling, SamplingReply,
};
use crate::call::combinators::BoxFuture;

/// A question on its way to the task's driver, with where its answer goes.
pub(super) struct Question {
    pub(super) request: InputRequest,
    pub(super) answer: oneshot::Sender<Value>,
}

/// The asker of a call that is (or may become) a task: each question goes to the driver,
/// which makes the call a task if it is not one yet and puts the question in its record.
pub(super) struct TaskAsker {
    pub(super) questions: mpsc::UnboundedSender<Question>,
    /// Whether the request's client declared form elicitation.
    pub(super) elicitation: bool,
    /// Whether it declared sampling.
    pub(super) sampling: bool,
}

impl TaskAsker {
    /// Puts `request` (sent as `kind`) and waits for its answer, parsed by `parse`.
    fn ask<T, R: serde::de::DeserializeOwned>(
        &self,
        request: Result<ServerRequest, AskError>,
        kind: &'static str,
        parse: impl FnOnce(R) -> Result<T, AskError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, AskError>> {
        let request = match request {
            Ok(ServerRequest::ElicitRequest(request)) => InputRequest::Elicitation(request),
            Ok(ServerRequest::CreateMessageRequest(request)) => {
                InputRequest::CreateMessage(request)
            }
            Ok(_) => {
                let err = AskError::Failed(format!("{kind} is not an MCP input request"));
                return Box::pin(async move { Err(err) });
            }
            Err(err) => return Box::pin(async move { Err(err) }),
        };
        let (answer, answered) = oneshot::channel();
        let sent = self.questions.send(Question { request, answer });
        Box::pin(async move {
            sent.map_err(|_| AskError::Failed("the task ended before its question".into()))?;
            let response = answered.await.map_err(|_| {
                AskError::Failed(format!(
                    "the task's {kind} request was not answered: the task ended (cancelled, \
                     expired, or its store failed)"
                ))
            })?;
            let result = serde_json::from_value::<R>(response).map_err(|err| {
                AskError::Failed(format!(
                    "the client's {kind} response (tasks/update) is not one: {err}"
                ))
            })?;
            parse(result)
        })
    }
}

impl Asker for TaskAsker {
    fn can_elicit(&self) -> bool {
        self.elicitation
    }

    fn can_sample(&self) -> bool {
        self.sampling
    }

    fn elicit(
        &self,
        question: Elicitation,
    ) -> BoxFuture<'static, Result<ElicitationReply, AskError>> {
        if !self.elicitation {
            return Box::pin(async { Err(crate::call::asking::unavailable("elicitation")) });
        }
        self.ask(
            ask::elicit_request(&question),
            "elicitation",
            |result: ElicitResult| ask::elicitation_reply(result),
        )
    }

    fn sample(&self, request: Sampling) -> BoxFuture<'static, Result<SamplingReply, AskError>> {
        if !self.sampling {
            return Box::pin(async { Err(crate::call::asking::unavailable("sampling")) });
        }
        self.ask(
            ask::sampling_request(request),
            "sampling",
            |result: CreateMessageResult| ask::sampling_reply(result),
        )
    }
}
