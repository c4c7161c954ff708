//! Requests a server sends the client: sampling (`sampling/createMessage`, the server asks the
//! agent's model) and elicitation (`elicitation/create`, the server asks the user), each
//! answered through the [`Asker`](crate::call::Asker) the embedding agent provides in
//! [`McpOptions::asker`](super::McpOptions::asker): the same trait, requests and replies a
//! tool's own questions use, each request saying which server asks
//! ([`Sampling::server`](crate::call::Sampling::server),
//! [`Elicitation::server`](crate::call::Elicitation::server)).
//!
//! A client offers each capability only when the asker can answer it
//! ([`can_sample`](crate::call::Asker::can_sample), [`can_elicit`](crate::call::Asker::can_elicit);
//! for sampling, also only while the server's `[mcp_servers.<name>.sampling]` leaves it
//! enabled), so a server that follows the protocol never asks for what is not there; one that
//! asks anyway is refused with an error that says why. Sampling is bounded per server:
//! `max_tokens` caps what a request may ask for, and `max_per_minute` refuses requests beyond
//! it, so a server cannot spend the agent's model without limit.
//!
//! ```
//! use hermes_tools::call::{AskError, Asker, BoxFuture, Sampling, SamplingReply};
//! use hermes_tools::mcp::client::McpOptions;
//! use std::sync::Arc;
//!
//! /// Answers every request with the last message, reversed (an agent calls its model here).
//! struct Mirror;
//!
//! impl Asker for Mirror {
//!     fn can_sample(&self) -> bool {
//!         true
//!     }
//!     fn sample(&self, request: Sampling) -> BoxFuture<'static, Result<SamplingReply, AskError>> {
//!         let last = request.messages.last().map(|m| m.text.clone()).unwrap_or_default();
//!         Box::pin(async move { Ok(SamplingReply::new(last.chars().rev().collect::<String>(), "mirror-1")) })
//!     }
//! }
//!
//! let options = McpOptions { asker: Some(Arc::new(Mirror)), ..McpOptions::default() };
//! ```

// Sampling is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// servers still send it (server-everything does) and Hermes answers it, so we do too.
#![allow(deprecated)]

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::sync::Mutex;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, Role, SamplingMessage, SamplingMessageContentBlock,
};
use serde_json::{Map, Value};

use crate::call::{
    AskError, Asker, Elicitation, ElicitationReply, Sampling, SamplingMessageText, SamplingRole,
};
use crate::config::SamplingConfig;
use crate::toolsets::availability::Clock;

/// The sampling requests of the last minute, to refuse those beyond the server's limit.
#[derive(Debug, Default)]
pub(crate) struct RateWindow {
    recent: VecDeque<Instant>,
}

impl RateWindow {
    /// Counts a request at `now` if fewer than `limit` came in the minute before it.
    pub(crate) fn admit(&mut self, now: Instant, limit: u32) -> bool {
        while self
            .recent
            .front()
            .is_some_and(|at| now.duration_since(*at) >= Duration::from_secs(60))
        {
            self.recent.pop_front();
        }
        if self.recent.len() >= limit as usize {
            return false;
        }
        self.recent.push_back(now);
        true
    }
}

/// What answers one server's requests: the agent's asker, within the server's sampling
/// bounds.
pub(crate) struct Answerers {
    server: String,
    asker: Option<Arc<dyn Asker>>,
    sampling: SamplingConfig,
    clock: Arc<dyn Clock>,
    window: Mutex<RateWindow>,
}

impl fmt::Debug for Answerers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Answerers")
            .field("server", &self.server)
            .field("offers_sampling", &self.offers_sampling())
            .field("offers_elicitation", &self.offers_elicitation())
            .finish_non_exhaustive()
    }
}

impl Answerers {
    /// The answerers of server `server`.
    pub(crate) fn new(
        server: &str,
        asker: Option<Arc<dyn Asker>>,
        sampling: SamplingConfig,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            server: server.to_owned(),
            asker,
            sampling,
            clock,
            window: Mutex::new(RateWindow::default()),
        }
    }

    /// Whether this client offers the server sampling.
    pub(crate) fn offers_sampling(&self) -> bool {
        self.sampling.enabled && self.asker.as_ref().is_some_and(|asker| asker.can_sample())
    }

    /// Whether this client offers the server elicitation.
    pub(crate) fn offers_elicitation(&self) -> bool {
        self.asker.as_ref().is_some_and(|asker| asker.can_elicit())
    }

    /// Answers `sampling/createMessage` through the agent's asker, within the server's limits.
    pub(crate) async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, McpError> {
        let name = &self.server;
        let Some(asker) = self.asker.as_ref().filter(|_| self.offers_sampling()) else {
            return Err(McpError::invalid_request(
                format!(
                    "this client does not offer sampling to server {name:?}: the agent's asker \
                     answers no sampling, or the server's `sampling.enabled` is false"
                ),
                None,
            ));
        };
        let limit = self.sampling.max_per_minute;
        if !self.window.lock().admit(self.clock.now(), limit) {
            tracing::warn!(server = %name, limit, "MCP sampling request refused: over the rate limit");
            return Err(McpError::invalid_request(
                format!(
                    "sampling refused: server {name:?} may ask at most {limit} times a minute; \
                     try again later"
                ),
                None,
            ));
        }
        let messages = params.messages.into_iter().map(message_text).collect();
        let mut request =
            Sampling::conversation(messages, params.max_tokens.min(self.sampling.max_tokens))
                .with_model_hints(
                    params
                        .model_preferences
                        .and_then(|preferences| preferences.hints)
                        .unwrap_or_default()
                        .into_iter()
                        .filter_map(|hint| hint.name)
                        .filter(|hint| self.allows(hint)),
                )
                .with_stop_sequences(params.stop_sequences.unwrap_or_default());
        request.system_prompt = params.system_prompt;
        request.temperature = params.temperature;
        request.server = Some(name.clone());
        request.allowed_models = self.sampling.allowed_models.clone();
        // The server is not trusted with what a provider's error may quote (a key).
        let reply = asker.sample(request).await.map_err(|err| {
            McpError::internal_error(
                format!(
                    "sampling failed: {}",
                    crate::secrets::redact(&ask_failure(&err))
                ),
                None,
            )
        })?;
        if !self.allows(&reply.model) {
            tracing::warn!(server = %name, model = %reply.model, "MCP sampling reply withheld: model not allowed");
            return Err(McpError::invalid_request(
                format!(
                    "sampling refused: the agent's model is not one server {name:?} may be \
                     answered by (its `sampling.allowed_models`: {})",
                    self.sampling.allowed_models.join(", ")
                ),
                None,
            ));
        }
        let message = SamplingMessage::assistant_text(reply.text);
        let mut result = CreateMessageResult::new(message, reply.model);
        result.stop_reason = reply.stop_reason;
        Ok(result)
    }

    /// Whether `model` may answer this server (`sampling.allowed_models`).
    fn allows(&self, model: &str) -> bool {
        let allowed = &self.sampling.allowed_models;
        allowed.is_empty()
            || allowed.iter().any(|name| match name.strip_suffix('*') {
                Some(prefix) => model.starts_with(prefix),
                None => model == name,
            })
    }

    /// Answers `elicitation/create` through the agent's asker (form mode only: a URL request
    /// is declined, as this client does not offer it).
    pub(crate) async fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, McpError> {
        let Some(asker) = self.asker.as_ref().filter(|_| self.offers_elicitation()) else {
            return Err(McpError::invalid_request(
                format!(
                    "this client does not offer elicitation to server {:?}: the agent's asker \
                     answers no elicitation",
                    self.server
                ),
                None,
            ));
        };
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = params
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let request_schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
        let question = Elicitation::new(message, request_schema.clone()).from_server(&self.server);
        let reply = asker.elicit(question).await.map_err(|err| {
            McpError::internal_error(
                format!(
                    "elicitation failed: {}",
                    crate::secrets::redact(&ask_failure(&err))
                ),
                None,
            )
        })?;
        Ok(match reply {
            ElicitationReply::Accept(mut content) => {
                with_defaults(&mut content, &request_schema);
                let mut result = ElicitResult::new(ElicitationAction::Accept);
                result.content = Some(Value::Object(content));
                result
            }
            ElicitationReply::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationReply::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }
}

/// What an asker's error says, without the `Display` prefix the server needs no part of.
fn ask_failure(err: &AskError) -> String {
    match err {
        AskError::Unavailable(message) | AskError::Failed(message) => message.clone(),
    }
}

/// Gives each property the answer leaves out its schema's default, as SEP-1034 asks of a
/// client (a user who skips a field with a default means the default).
fn with_defaults(content: &mut Map<String, Value>, schema: &Value) {
    let Some(properties) = schema["properties"].as_object() else {
        return;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
}

/// A sampling message as text: its text parts, anything else said in words.
fn message_text(message: SamplingMessage) -> SamplingMessageText {
    let role = match message.role {
        Role::Assistant => SamplingRole::Assistant,
        _ => SamplingRole::User,
    };
    let text: Vec<String> = message
        .content
        .into_vec()
        .into_iter()
        .map(|part| match part {
            SamplingMessageContentBlock::Text(text) => text.text,
            SamplingMessageContentBlock::Image(image) => {
                format!("[image ({}), not shown]", image.mime_type)
            }
            SamplingMessageContentBlock::Audio(audio) => {
                format!("[audio ({}), not shown]", audio.mime_type)
            }
            _ => "[a part of a kind this client cannot show]".to_owned(),
        })
        .collect();
    SamplingMessageText {
        role,
        text: text.join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_fill_only_what_the_answer_leaves_out() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "Ada"},
            "age": {"type": "integer", "default": 36},
            "city": {"type": "string"}
        }});
        let mut content = Map::new();
        content.insert("name".into(), "Grace".into());
        with_defaults(&mut content, &schema);
        assert_eq!(
            Value::Object(content),
            serde_json::json!({"name": "Grace", "age": 36})
        );
    }

    #[test]
    fn the_window_admits_up_to_the_limit_in_any_minute() {
        let start = Instant::now();
        let mut window = RateWindow::default();
        assert!(window.admit(start, 2));
        assert!(window.admit(start + Duration::from_secs(10), 2));
        assert!(!window.admit(start + Duration::from_secs(59), 2));
        // The first has left the minute: one more fits.
        assert!(window.admit(start + Duration::from_secs(60), 2));
        assert!(!window.admit(start + Duration::from_secs(61), 2));
        assert!(!RateWindow::default().admit(start, 0));
    }
}
