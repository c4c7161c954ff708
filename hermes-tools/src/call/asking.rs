//! What a running tool may ask the side that called it: its user (elicitation: a message and
//! a form to fill) and its model (sampling: a conversation to continue).
//!
//! A tool asks through its [`ToolContext`](crate::ToolContext) ([`elicit`], [`sample`], and
//! their `_blocking` twins for sync tools). Whoever runs the call decides who answers by
//! giving the context an [`Asker`]: the MCP server gives each call one that forwards to the
//! client as `elicitation/create` and `sampling/createMessage`, when that client offered the
//! capability; an agent may give its own. With no one to ask, the tool gets
//! [`AskError::Unavailable`] at once, never a wait.
//!
//! The MCP client answers the questions of the servers it connects to through an `Asker` too
//! (`McpOptions::asker`, feature `mcp`), with the same requests, replies and errors: one way
//! to ask, whoever asks. A server's question says which server it is
//! ([`Elicitation::server`], [`Sampling::server`]).
//!
//! [`elicit`]: crate::ToolContext::elicit
//! [`sample`]: crate::ToolContext::sample

use serde_json::{Map, Value};

use crate::call::combinators::BoxFuture;

/// A question for the user: what to tell them, and the form of the answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Elicitation {
    /// What to tell the user.
    pub message: String,
    /// The answer's form: a JSON Schema object of flat properties (strings, numbers,
    /// booleans, enums), as the MCP specification restricts it.
    pub schema: Value,
    /// The MCP server asking (its key in the config), when the MCP client answers a server's
    /// question; `None` for a tool's own.
    pub server: Option<String>,
    /// The question's name in an MCP `input_required` result (its `inputRequests` key), set
    /// with [`with_key`](Self::with_key); `None`: the server names it by its position.
    pub key: Option<String>,
}

impl Elicitation {
    /// Asks `message`, the answer's form being `schema`.
    pub fn new(message: impl Into<String>, schema: Value) -> Self {
        Self {
            message: message.into(),
            schema,
            server: None,
            key: None,
        }
    }

    /// The same question, named `key` in an MCP `input_required` result (the 2026-07-28 era
    /// puts a tool's questions to the client as `inputRequests`, by key): a client that
    /// answers by name finds it under `key`. Keys of one round must differ (a repeated one
    /// falls back to the position's name).
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The same question, asked by MCP server `server`.
    pub fn from_server(mut self, server: impl Into<String>) -> Self {
        self.server = Some(server.into());
        self
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationReply {
    /// The user answered, with these values (by property name).
    Accept(Map<String, Value>),
    /// The user chose not to answer; the asker goes on without.
    Decline,
    /// The user dismissed the question.
    Cancel,
}

/// Who said a message of a sampling conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplingRole {
    /// The user (or the asker speaking as one).
    User,
    /// The model.
    Assistant,
}

/// One message of a sampling conversation, as text.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingMessageText {
    /// Who said it.
    pub role: SamplingRole,
    /// What was said.
    pub text: String,
}

impl SamplingMessageText {
    /// A message of the user's.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: SamplingRole::User,
            text: text.into(),
        }
    }

    /// A message of the model's.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: SamplingRole::Assistant,
            text: text.into(),
        }
    }
}

/// What a tool asks the caller's model.
///
/// ```
/// use hermes_tools::call::Sampling;
///
/// let request = Sampling::new("Summarise: the build is green.", 100)
///     .with_system_prompt("Answer in one sentence.");
/// assert_eq!(request.messages.len(), 1);
/// assert_eq!(request.max_tokens, 100);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Sampling {
    /// The conversation to continue.
    pub messages: Vec<SamplingMessageText>,
    /// The system prompt asked for, if any.
    pub system_prompt: Option<String>,
    /// The most tokens to generate.
    pub max_tokens: u32,
    /// The temperature asked for, if any.
    pub temperature: Option<f32>,
    /// Names of models the asker would like, best first (hints: the answerer chooses).
    pub model_hints: Vec<String>,
    /// Sequences that end the generation.
    pub stop_sequences: Vec<String>,
    /// The MCP server asking (its key in the config), when the MCP client answers a server's
    /// request; `None` for a tool's own.
    pub server: Option<String>,
    /// The models the operator allows to answer this server (`sampling.allowed_models`;
    /// empty: any). A reply by another model is refused; `model_hints` holds only allowed ones.
    pub allowed_models: Vec<String>,
}

impl Sampling {
    /// One user message, `prompt`, to answer in at most `max_tokens`.
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> Self {
        Self::conversation(vec![SamplingMessageText::user(prompt)], max_tokens)
    }

    /// A conversation to continue in at most `max_tokens`.
    pub fn conversation(messages: Vec<SamplingMessageText>, max_tokens: u32) -> Self {
        Self {
            messages,
            system_prompt: None,
            max_tokens,
            temperature: None,
            model_hints: Vec::new(),
            stop_sequences: Vec::new(),
            server: None,
            allowed_models: Vec::new(),
        }
    }

    /// The same request, with a system prompt.
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The same request, at `temperature`.
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// The same request, naming the models it would like, best first.
    pub fn with_model_hints<S: Into<String>>(mut self, hints: impl IntoIterator<Item = S>) -> Self {
        self.model_hints = hints.into_iter().map(Into::into).collect();
        self
    }

    /// The same request, ending the generation at any of `sequences`.
    pub fn with_stop_sequences<S: Into<String>>(
        mut self,
        sequences: impl IntoIterator<Item = S>,
    ) -> Self {
        self.stop_sequences = sequences.into_iter().map(Into::into).collect();
        self
    }
}

/// What the model answered.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingReply {
    /// The text generated.
    pub text: String,
    /// The model that generated it.
    pub model: String,
    /// Why generation stopped (`endTurn`, `stopSequence`, `maxTokens`), if known.
    pub stop_reason: Option<String>,
}

impl SamplingReply {
    /// A reply of `text` by `model`.
    pub fn new(text: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            model: model.into(),
            stop_reason: None,
        }
    }

    /// The same reply, saying why generation stopped.
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }
}

/// Why a question got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AskError {
    /// Nobody can be asked: the call did not come from a client offering it (over MCP, one
    /// that declared the `elicitation` or `sampling` capability on a session).
    Unavailable(String),
    /// The question was put and failed: refused, malformed, or the connection closed.
    Failed(String),
}

impl std::fmt::Display for AskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unavailable(why) => write!(f, "cannot ask: {why}"),
            Self::Failed(why) => write!(f, "asking failed: {why}"),
        }
    }
}

impl std::error::Error for AskError {}

/// Answers a tool's questions on behalf of the side that called it.
///
/// Each method has a default that says it is not offered, so an asker implements only what it
/// can answer.
///
/// ```
/// use hermes_tools::{call::Asker, call::AskError, call::BoxFuture, call::Elicitation, call::ElicitationReply, ToolContext};
///
/// /// Answers every question with the same name.
/// struct Always(&'static str);
///
/// impl Asker for Always {
///     fn can_elicit(&self) -> bool {
///         true
///     }
///     fn elicit(&self, _: Elicitation) -> BoxFuture<'static, Result<ElicitationReply, AskError>> {
///         let mut answer = serde_json::Map::new();
///         answer.insert("name".into(), self.0.into());
///         Box::pin(async move { Ok(ElicitationReply::Accept(answer)) })
///     }
/// }
///
/// let ctx = ToolContext::new().with_asker(Always("Ada"));
/// let form = serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}});
/// let reply = ctx.elicit_blocking(Elicitation::new("Your name?", form)).unwrap();
/// assert!(matches!(reply, ElicitationReply::Accept(values) if values["name"] == "Ada"));
/// assert!(!ctx.can_sample());
/// ```
pub trait Asker: Send + Sync {
    /// Whether [`elicit`](Self::elicit) can reach a user.
    fn can_elicit(&self) -> bool {
        false
    }

    /// Whether [`sample`](Self::sample) can reach a model.
    fn can_sample(&self) -> bool {
        false
    }

    /// Asks the user `question`.
    fn elicit(
        &self,
        question: Elicitation,
    ) -> BoxFuture<'static, Result<ElicitationReply, AskError>> {
        let _ = question;
        Box::pin(async { Err(unavailable("elicitation")) })
    }

    /// Asks the model to continue `request`'s conversation.
    fn sample(&self, request: Sampling) -> BoxFuture<'static, Result<SamplingReply, AskError>> {
        let _ = request;
        Box::pin(async { Err(unavailable("sampling")) })
    }

    /// Told that the tool asked for `what` (`"elicitation"` or `"sampling"`) although
    /// [`can_elicit`](Self::can_elicit) or [`can_sample`](Self::can_sample) said no (the tool
    /// then gets [`AskError::Unavailable`]). The MCP server of the 2026-07-28 era records it,
    /// to answer a call that failed for it with "missing required client capability"
    /// (-32021) naming what the client must declare.
    fn asked_unavailable(&self, what: &'static str) {
        let _ = what;
    }

    /// Makes the running call a task now, if its caller can follow one (see
    /// [`ToolContext::become_task`](crate::ToolContext::become_task)); by default nothing
    /// happens and the call runs on as it is.
    fn become_task(&self) -> BoxFuture<'static, Result<(), AskError>> {
        Box::pin(async { Ok(()) })
    }
}

/// The error of asking for `what` (elicitation, sampling) when nobody offers it.
pub(crate) fn unavailable(what: &str) -> AskError {
    AskError::Unavailable(format!(
        "the caller offers no {what}: this call did not come from a client that declared it \
         (over MCP: a session whose client has the `{what}` capability)"
    ))
}
