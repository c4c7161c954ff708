//! A task's questions: a tool's [`elicit`](crate::ToolContext::elicit) or
//! [`sample`](crate::ToolContext::sample) inside a task becomes one of the task's
//! `inputRequests`, and waits for the client's `tasks/update`. A tool that asks before it
//! becomes a task ([`ToolBuilder::asks_before_task`](crate::tool::ToolBuilder::asks_before_task))
//! has its questions answered by Multi Round-Trip Request rounds (`mrtr.rs`) until then.

// Sampling is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// its clients still declare it, so a tool's sampling goes to them as an input request.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{CreateMessageResult, ElicitResult, InputRequest, ServerRequest};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::super::ask;
use super::super::mrtr::RoundAsker;
use crate::call::asking::{
    AskError, Asker, Elicitation, ElicitationReply, Sampling, SamplingReply,
};
use crate::call::combinators::BoxFuture;

/// A question on its way to the task's driver, with where its answer goes.
pub(super) struct Question {
    pub(super) request: InputRequest,
    pub(super) answer: oneshot::Sender<Value>,
}

/// What a running call tells its driver.
pub(super) enum ToDriver {
    /// A question for the task's `inputRequests`.
    Question(Box<Question>),
    /// The tool reached [`ToolContext::become_task`](crate::ToolContext::become_task): the call
    /// becomes a task (if it is not one yet), then the tool is told to go on.
    BecomeTask(oneshot::Sender<()>),
}

/// The asker of a call that is (or may become) a task: each question goes to the driver,
/// which makes the call a task if it is not one yet and puts the question in its record;
/// until then, a tool that asks first has its questions answered by its MRTR `round`.
pub(super) struct TaskAsker {
    pub(super) questions: mpsc::UnboundedSender<ToDriver>,
    /// The call's Multi Round-Trip round, for a tool that asks before it becomes a task.
    pub(super) round: Option<RoundAsker>,
    /// Whether the call is a task yet (set by the driver).
    pub(super) promoted: Arc<AtomicBool>,
    /// Whether the request's client declared form elicitation.
    pub(super) elicitation: bool,
    /// Whether it declared sampling.
    pub(super) sampling: bool,
}

impl TaskAsker {
    /// The MRTR round the call's questions go to now: its own, until it is a task.
    fn round(&self) -> Option<&RoundAsker> {
        self.round
            .as_ref()
            .filter(|_| !self.promoted.load(Ordering::Acquire))
    }

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
        let sent = self
            .questions
            .send(ToDriver::Question(Box::new(Question { request, answer })));
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
        if let Some(round) = self.round() {
            return round.elicit(question);
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
        if let Some(round) = self.round() {
            return round.sample(request);
        }
        self.ask(
            ask::sampling_request(request),
            "sampling",
            |result: CreateMessageResult| ask::sampling_reply(result),
        )
    }

    fn asked_unavailable(&self, what: &'static str) {
        if let Some(round) = &self.round {
            round.asked_unavailable(what);
        }
    }

    fn become_task(&self) -> BoxFuture<'static, Result<(), AskError>> {
        if self.round().is_some_and(RoundAsker::waiting) {
            // A question of this round has no answer yet: the call answers `input_required`.
            return Box::pin(async {
                Err(AskError::Failed(
                    "a question of this call waits for its answer (input_required): the call \
                     becomes a task on the retry that answers it"
                        .into(),
                ))
            });
        }
        let (told, go_on) = oneshot::channel();
        let sent = self.questions.send(ToDriver::BecomeTask(told));
        Box::pin(async move {
            sent.map_err(|_| AskError::Failed("the call ended before it became a task".into()))?;
            go_on.await.map_err(|_| {
                AskError::Failed("the call could not become a task (its store failed)".into())
            })
        })
    }
}
