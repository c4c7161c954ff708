//! Multi Round-Trip Requests from the client's side (MCP 2026-07-28).
//!
//! A server of the modern era has no requests of its own to send: a call that needs the
//! user or the agent's model is answered `input_required`, naming its questions
//! (`inputRequests`) and an opaque `requestState`. Each question is answered through the
//! same [`Answerers`] that answer a legacy session's `elicitation/create` and
//! `sampling/createMessage` (the agent's asker, the server's sampling bounds), and the call is
//! sent again with the answers (`inputResponses`) and the state, as it was given. A server
//! that keeps asking is given up on after [`MAX_ROUNDS`] rounds.

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    DEFAULT_MRTR_MAX_ROUNDS, InputRequest, InputRequests, InputRequiredResult, InputResponses,
};
use rmcp::service::ServiceError;
use serde_json::Value;

use super::requests::Answerers;

/// Rounds of questions one call may take before the client gives up (rmcp's default).
pub(super) const MAX_ROUNDS: usize = DEFAULT_MRTR_MAX_ROUNDS;

/// What the retry of a call answered `input_required` carries.
#[derive(Debug)]
pub(super) struct Retry {
    /// The answers, by the keys of the questions (none when there were no questions).
    pub(super) responses: Option<InputResponses>,
    /// The server's `requestState`, sent back untouched.
    pub(super) state: Option<String>,
}

/// Answers the questions of `asked` (round `round`, from 1) through `answerers`.
///
/// A result with neither questions nor state is a protocol error; one with state only (the
/// server is still working) is retried after a short pause, growing with the rounds.
pub(super) async fn answer(
    answerers: &Answerers,
    asked: InputRequiredResult,
    round: usize,
) -> Result<Retry, ServiceError> {
    let questions = asked.input_requests.unwrap_or_default();
    if questions.is_empty() {
        if asked.request_state.is_none() {
            return Err(ServiceError::McpError(ErrorData::invalid_request(
                "the server answered `input_required` with neither questions nor a \
                 requestState",
                None,
            )));
        }
        let pause = 50u64.saturating_mul(1 << round.min(3)).min(250);
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
    let responses = answer_all(answerers, questions).await?;
    Ok(Retry {
        responses: (!responses.is_empty()).then_some(responses),
        state: asked.request_state,
    })
}

/// Answers each of `questions` through `answerers`, by key: what a Multi Round-Trip Request's
/// retry and a task's `tasks/update` carry.
pub(super) async fn answer_all(
    answerers: &Answerers,
    questions: InputRequests,
) -> Result<InputResponses, ServiceError> {
    // One after another: each may ask the user, who answers one question at a time.
    let mut responses = InputResponses::new();
    for (key, question) in questions {
        let response = match question {
            InputRequest::Elicitation(request) => to_value(
                answerers
                    .elicit(request.params)
                    .await
                    .map_err(ServiceError::McpError)?,
            )?,
            InputRequest::CreateMessage(request) => to_value(
                answerers
                    .sample(request.params)
                    .await
                    .map_err(ServiceError::McpError)?,
            )?,
            InputRequest::ListRoots(_) => {
                return Err(ServiceError::McpError(ErrorData::invalid_request(
                    "the server asked for the client's roots, which this client does not offer",
                    None,
                )));
            }
            _ => {
                return Err(ServiceError::McpError(ErrorData::invalid_request(
                    "the server asked for input of a kind this client does not know",
                    None,
                )));
            }
        };
        responses.insert(key, response);
    }
    Ok(responses)
}

fn to_value(result: impl serde::Serialize) -> Result<Value, ServiceError> {
    serde_json::to_value(result).map_err(|err| {
        ServiceError::McpError(ErrorData::internal_error(
            format!("an answer could not be encoded: {err}"),
            None,
        ))
    })
}
