//! Requests a server sends the client: sampling (`sampling/createMessage`, the server asks the
//! agent's model) and elicitation (`elicitation/create`, the server asks the user), each
//! answered through something the embedding agent provides in [`McpOptions`](super::McpOptions).
//!
//! A client offers each capability only when the agent provided its handler (and, for
//! sampling, the server's `[mcp_servers.<name>.sampling]` leaves it enabled), so a server that
//! follows the protocol never asks for what is not there; one that asks anyway is refused with
//! an error that says why. Sampling is bounded per server: `max_tokens` caps what a request
//! may ask for, and `max_per_minute` refuses requests beyond it, so a server cannot spend the
//! agent's model without limit.
//!
//! ```
//! use hermes_tools::mcp::client::{BoxFuture, McpOptions, Sampler, SamplingReply, SamplingRequest};
//! use std::sync::Arc;
//!
//! /// Answers every request with the last message, reversed (an agent calls its model here).
//! #[derive(Debug)]
//! struct Mirror;
//!
//! impl Sampler for Mirror {
//!     fn sample(&self, request: SamplingRequest) -> BoxFuture<'static, Result<SamplingReply, String>> {
//!         let last = request.messages.last().map(|m| m.text.clone()).unwrap_or_default();
//!         Box::pin(async move { Ok(SamplingReply::new(last.chars().rev().collect::<String>(), "mirror-1")) })
//!     }
//! }
//!
//! let options = McpOptions { sampler: Some(Arc::new(Mirror)), ..McpOptions::default() };
//! ```

// Sampling is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// servers still send it (server-everything does) and Hermes answers it, so we do too.
#![allow(deprecated)]

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::call::combinators::BoxFuture;
// The replies and messages are the ones a tool's own questions use (`crate::call::asking`).
pub use crate::call::asking::{ElicitationReply, SamplingMessageText, SamplingReply, SamplingRole};
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, Role, SamplingMessage, SamplingMessageContentBlock,
};
use serde_json::{Map, Value};

use parking_lot::Mutex;

use crate::config::SamplingConfig;
use crate::toolsets::availability::Clock;

/// What a server asks the agent's model, within the server's limits.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The server asking (its key in the config).
    pub server: String,
    /// The system prompt it asks for, if any.
    pub system_prompt: Option<String>,
    /// The conversation to continue.
    pub messages: Vec<SamplingMessageText>,
    /// The most tokens to generate: what the server asked, capped by its `max_tokens`.
    pub max_tokens: u32,
    /// The temperature it asks for, if any.
    pub temperature: Option<f32>,
    /// Names of models it would like, best first (hints: the agent chooses).
    pub model_hints: Vec<String>,
    /// Sequences that end the generation.
    pub stop_sequences: Vec<String>,
    /// The models the operator allows for this server (`sampling.allowed_models`; empty:
    /// any). A reply by another model is refused; `model_hints` holds only allowed ones.
    pub allowed_models: Vec<String>,
}

impl SamplingRequest {
    /// Server `server` asks for a continuation of `messages`, at most `max_tokens` long, with
    /// nothing else said (a sampler's tests build requests this way).
    pub fn new(
        server: impl Into<String>,
        messages: Vec<SamplingMessageText>,
        max_tokens: u32,
    ) -> Self {
        Self {
            server: server.into(),
            system_prompt: None,
            messages,
            max_tokens,
            temperature: None,
            model_hints: Vec::new(),
            stop_sequences: Vec::new(),
            allowed_models: Vec::new(),
        }
    }
}

/// Answers MCP servers' sampling requests with the agent's model.
///
/// An error (`Err(message)`) reaches the server as a JSON-RPC error with the message.
pub trait Sampler: Send + Sync + fmt::Debug {
    /// Generates the reply to `request`.
    fn sample(&self, request: SamplingRequest)
    -> BoxFuture<'static, Result<SamplingReply, String>>;
}

/// What a server asks the user: a message and the form of the answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// The server asking (its key in the config).
    pub server: String,
    /// What to tell the user.
    pub message: String,
    /// The answer's form: a JSON Schema object of flat properties (strings, numbers,
    /// booleans, enums), as the MCP specification restricts it.
    pub schema: Value,
}

impl ElicitationRequest {
    /// Server `server` asks `message`, the answer's form being `schema`.
    pub fn new(server: impl Into<String>, message: impl Into<String>, schema: Value) -> Self {
        Self {
            server: server.into(),
            message: message.into(),
            schema,
        }
    }
}

/// Asks the user what MCP servers want to know (the CLI asks on the terminal).
pub trait Elicitor: Send + Sync + fmt::Debug {
    /// The user's answer to `request`.
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'static, ElicitationReply>;
}

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

/// What answers one server's requests: the agent's sampler and elicitor, within the
/// server's sampling bounds.
#[derive(Debug)]
pub(crate) struct Answerers {
    server: String,
    sampler: Option<Arc<dyn Sampler>>,
    elicitor: Option<Arc<dyn Elicitor>>,
    sampling: SamplingConfig,
    clock: Arc<dyn Clock>,
    window: Mutex<RateWindow>,
}

impl Answerers {
    /// The answerers of server `server`.
    pub(crate) fn new(
        server: &str,
        sampler: Option<Arc<dyn Sampler>>,
        elicitor: Option<Arc<dyn Elicitor>>,
        sampling: SamplingConfig,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            server: server.to_owned(),
            sampler,
            elicitor,
            sampling,
            clock,
            window: Mutex::new(RateWindow::default()),
        }
    }

    /// Whether this client offers the server sampling.
    pub(crate) fn offers_sampling(&self) -> bool {
        self.sampler.is_some() && self.sampling.enabled
    }

    /// Whether this client offers the server elicitation.
    pub(crate) fn offers_elicitation(&self) -> bool {
        self.elicitor.is_some()
    }

    /// Answers `sampling/createMessage` through the agent's sampler, within the server's limits.
    pub(crate) async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, McpError> {
        let name = &self.server;
        let Some(sampler) = self.sampler.as_ref().filter(|_| self.sampling.enabled) else {
            return Err(McpError::invalid_request(
                format!(
                    "this client does not offer sampling to server {name:?}: the agent provides \
                     no sampler, or the server's `sampling.enabled` is false"
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
        let request = SamplingRequest {
            server: name.clone(),
            system_prompt: params.system_prompt,
            messages: params.messages.into_iter().map(message_text).collect(),
            max_tokens: params.max_tokens.min(self.sampling.max_tokens),
            temperature: params.temperature,
            model_hints: params
                .model_preferences
                .and_then(|preferences| preferences.hints)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|hint| hint.name)
                .filter(|hint| self.allows(hint))
                .collect(),
            stop_sequences: params.stop_sequences.unwrap_or_default(),
            allowed_models: self.sampling.allowed_models.clone(),
        };
        // The server is not trusted with what a provider's error may quote (a key).
        let reply = sampler.sample(request).await.map_err(|message| {
            McpError::internal_error(
                format!("sampling failed: {}", crate::secrets::redact(&message)),
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

    /// Answers `elicitation/create` through the agent's elicitor (form mode only: a URL
    /// request is declined, as this client does not offer it).
    pub(crate) async fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, McpError> {
        let Some(elicitor) = self.elicitor.as_ref() else {
            return Err(McpError::invalid_request(
                format!(
                    "this client does not offer elicitation to server {:?}: the agent provides \
                     no elicitor",
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
        let request = ElicitationRequest {
            server: self.server.clone(),
            message,
            schema: request_schema.clone(),
        };
        Ok(match elicitor.elicit(request).await {
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
