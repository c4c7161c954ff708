//! A served tool's questions, put to the MCP client that called it: [`ToolContext::elicit`]
//! as `elicitation/create`, [`ToolContext::sample`] as `sampling/createMessage`, each only when
//! the client declared the capability on its session.
//!
//! A question belongs to its call: over Streamable HTTP it goes on that call's response stream
//! (also from a `blocking` tool's thread), and it is abandoned when the call is cancelled.
//!
//! [`ToolContext::elicit`]: crate::ToolContext::elicit
//! [`ToolContext::sample`]: crate::ToolContext::sample

// Sampling is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// clients of the 2025 versions still offer it, so we ask through it.
#![allow(deprecated)]

use std::future::Future;

use rmcp::RoleServer;
use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    GetExtensions, ModelHint, ModelPreferences, RequestId, Role, SamplingMessage,
    SamplingMessageContentBlock, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, Peer, RequestContext, ServiceError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::call::asking::{
    AskError, Asker, Elicitation, ElicitationReply, Sampling, SamplingReply, SamplingRole,
};
use crate::call::combinators::BoxFuture;
use crate::secrets::redact;
use crate::secrets::redact_json;

/// Asks the client of one session, on behalf of one call.
pub(super) struct ClientAsker {
    /// The asking `tools/call`'s id: rmcp routes a request by a task-local that a `blocking`
    /// tool's thread lacks, so it is named here.
    call: RequestId,
    /// The session's client.
    peer: Peer<RoleServer>,
    /// The call's cancellation.
    cancelled: CancellationToken,
    elicitation: bool,
    sampling: bool,
}

impl ClientAsker {
    /// An asker for the call `request`, offering what its client declared at `initialize`;
    /// `None` when it declared neither (a tool is then told so at once).
    pub(super) fn of(request: &RequestContext<RoleServer>) -> Option<Self> {
        let info = request.peer.peer_info()?;
        let capabilities = &info.capabilities;
        // An empty `elicitation: {}` is form mode (2025-06-18); a client that names only
        // `url` mode cannot show a form.
        let elicitation = capabilities
            .elicitation
            .as_ref()
            .is_some_and(|modes| modes.form.is_some() || modes.url.is_none());
        let sampling = capabilities.sampling.is_some();
        (elicitation || sampling).then(|| Self {
            call: request.id.clone(),
            peer: request.peer.clone(),
            cancelled: request.ct.clone(),
            elicitation,
            sampling,
        })
    }

    /// Sends `request` on behalf of the call and waits for the client's result, unless the
    /// call is cancelled first (the client's `notifications/cancelled`, the session's end).
    fn ask(
        &self,
        mut request: ServerRequest,
    ) -> impl Future<Output = Result<ClientResult, AskError>> + Send + 'static {
        request
            .extensions_mut()
            .insert(OriginatingRequestId(self.call.clone()));
        let peer = self.peer.clone();
        let cancelled = self.cancelled.clone();
        async move {
            tokio::select! {
                result = peer.send_request(request) => result.map_err(failed),
                () = cancelled.cancelled() => Err(AskError::Failed(
                    "the call was cancelled before the client answered".to_owned(),
                )),
            }
        }
    }
}

impl Asker for ClientAsker {
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
        let asked = elicit_request(&question).map(|request| self.ask(request));
        Box::pin(async move {
            let ClientResult::ElicitResult(result) = asked?.await? else {
                return Err(failed(ServiceError::UnexpectedResponse));
            };
            elicitation_reply(result)
        })
    }

    fn sample(&self, request: Sampling) -> BoxFuture<'static, Result<SamplingReply, AskError>> {
        let asked = sampling_request(request).map(|request| self.ask(request));
        Box::pin(async move {
            let ClientResult::CreateMessageResult(result) = asked?.await? else {
                return Err(failed(ServiceError::UnexpectedResponse));
            };
            sampling_reply(*result)
        })
    }
}

/// `question` as MCP's `elicitation/create`, the form and message masked like any text a
/// client shows (a tool may quote a credential in either).
pub(super) fn elicit_request(question: &Elicitation) -> Result<ServerRequest, AskError> {
    let form = redact_json(&question.schema.to_string()).into_owned();
    let requested_schema = serde_json::from_str::<ElicitationSchema>(&form).map_err(|err| {
        AskError::Failed(format!(
            "the form is not one MCP elicitation allows (an object of flat string, number, \
             boolean or enum properties): {err}"
        ))
    })?;
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: redact(&question.message).into_owned(),
        requested_schema,
    };
    // rmcp's `create_elicitation` needs its `elicitation` feature, which builds `url` (and
    // ICU) for nothing we use: the request is built as that method builds it.
    Ok(ServerRequest::ElicitRequest(ElicitRequest::new(params)))
}

/// The client's answer to an elicitation, as the tool is told it.
pub(super) fn elicitation_reply(result: ElicitResult) -> Result<ElicitationReply, AskError> {
    match result.action {
        ElicitationAction::Accept => match result.content {
            Some(Value::Object(values)) => Ok(ElicitationReply::Accept(values)),
            None => Ok(ElicitationReply::Accept(serde_json::Map::new())),
            Some(other) => Err(AskError::Failed(format!(
                "the client accepted with {other}, not an object of the form's values"
            ))),
        },
        ElicitationAction::Decline => Ok(ElicitationReply::Decline),
        _ => Ok(ElicitationReply::Cancel),
    }
}

/// `request` as MCP's `sampling/createMessage`, masked like any text a model reads, and
/// checked as rmcp's `create_message` checks it, before anything is sent.
pub(super) fn sampling_request(request: Sampling) -> Result<ServerRequest, AskError> {
    let messages = request
        .messages
        .iter()
        .map(|message| {
            let text = redact(&message.text).into_owned();
            match message.role {
                SamplingRole::User => SamplingMessage::user_text(text),
                SamplingRole::Assistant => SamplingMessage::assistant_text(text),
            }
        })
        .collect();
    let mut params = CreateMessageRequestParams::new(messages, request.max_tokens);
    params.system_prompt = request
        .system_prompt
        .map(|prompt| redact(&prompt).into_owned());
    params.temperature = request.temperature;
    if !request.stop_sequences.is_empty() {
        params.stop_sequences = Some(request.stop_sequences);
    }
    if !request.model_hints.is_empty() {
        params.model_preferences = Some(
            ModelPreferences::new().with_hints(
                request
                    .model_hints
                    .into_iter()
                    .map(ModelHint::new)
                    .collect(),
            ),
        );
    }
    params.validate().map_err(|err| {
        AskError::Failed(format!("the request is not one MCP sampling allows: {err}"))
    })?;
    Ok(ServerRequest::CreateMessageRequest(
        CreateMessageRequest::new(params),
    ))
}

/// The client model's reply to a sampling request, as the tool is told it.
pub(super) fn sampling_reply(result: CreateMessageResult) -> Result<SamplingReply, AskError> {
    if result.message.role != Role::Assistant {
        return Err(AskError::Failed(
            "the client's reply is not the model's (role is not assistant)".to_owned(),
        ));
    }
    let text: Vec<String> = result
        .message
        .content
        .into_vec()
        .into_iter()
        .filter_map(|part| match part {
            SamplingMessageContentBlock::Text(text) => Some(text.text),
            _ => None,
        })
        .collect();
    let mut reply = SamplingReply::new(text.join("\n"), result.model);
    reply.stop_reason = result.stop_reason;
    Ok(reply)
}

/// A request the client refused, or a connection gone, as the tool is told it.
fn failed(err: ServiceError) -> AskError {
    match err {
        ServiceError::McpError(error) => {
            AskError::Failed(format!("the client refused: {}", error.message))
        }
        other => AskError::Failed(format!("the client did not answer: {other}")),
    }
}
