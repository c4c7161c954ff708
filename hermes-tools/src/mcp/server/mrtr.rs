//! A served tool's questions in the 2026-07-28 era: Multi Round-Trip Requests (MRTR).
//!
//! That era has no server-to-client requests. A call whose tool asks
//! ([`ToolContext::elicit`](crate::ToolContext::elicit), [`sample`](crate::ToolContext::sample))
//! answers `resultType: "input_required"` with the questions as `inputRequests` and a sealed
//! `requestState`; the client puts them to its user or model and sends the same `tools/call`
//! again with `inputResponses` and the state echoed back.
//!
//! # The execution model: the tool runs again
//!
//! Nothing of a call is kept between rounds: the retry may reach another replica, hours later.
//! So the retry **runs the tool again from the start**, its questions answered in order from
//! the responses gathered so far: the first `elicit` gets the first answer, and so on; the
//! first question without an answer ends the round. A tool author must know that:
//!
//! - work done before a question runs once per round: keep it idempotent (reads, checks), or
//!   ask first and act after the answers;
//! - a question without its answer yet fails at once with [`AskError::Failed`] (the `?`
//!   operator returns it, which is right): whatever the tool does after it is discarded, the
//!   call answers `input_required` whatever the tool returned;
//! - a question that changed since the round it was put in (other text, another form) is a
//!   new question: its old answer is not used for it.
//!
//! A call of a client that declared the tasks extension asks this way too until it becomes a
//! task, when its tool is declared to ask first
//! ([`ToolBuilder::asks_before_task`](crate::tool::ToolBuilder::asks_before_task); see
//! `tasks/`).
//!
//! # `requestState` is the caller's input
//!
//! A client can send anything as `requestState`, so it is sealed with HMAC-SHA256 (rmcp's
//! [`RequestStateCodec`], keyring format `rs2`) under the server's [`RequestStateKeys`]:
//! bound to the tool and its arguments (associated data: a state is refused for another tool
//! or other arguments), stamped with an expiry ([`ToolServer::request_state_ttl`]), and
//! refused with a clear -32602 error when forged, expired or foreign. The state carries the
//! answers given so far (not secret: signed, not encrypted, and the client wrote them).
//!
//! [`ToolServer::request_state_ttl`]: super::ToolServer::request_state_ttl

// Sampling is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// its clients still declare it, so a tool's sampling goes to them as an input request.
#![allow(deprecated)]

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::sync::Mutex;
use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, CreateMessageResult, ElicitResult, InputRequest, InputRequiredResult,
    InputResponses, JsonObject, RequestStateCodec, RequestStateError, SealOptions, ServerRequest,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::ask;
use crate::call::asking::{
    AskError, Asker, Elicitation, ElicitationReply, Sampling, SamplingReply,
};
use crate::call::combinators::BoxFuture;

/// How long a `requestState` is accepted after it was sealed, unless set with
/// [`ToolServer::request_state_ttl`](super::ToolServer::request_state_ttl): 10 minutes, time
/// for a person to answer a question.
pub const DEFAULT_REQUEST_STATE_TTL: Duration = Duration::from_secs(10 * 60);

/// The environment variable `serve` reads its [`RequestStateKeys`] from.
pub const REQUEST_STATE_KEYS_ENV: &str = "HERMES_MCP_STATE_KEYS";

/// What the sealed state's associated data begins with: a version of this format, so that a
/// later format cannot be confused with this one.
const BINDING: &[u8] = b"hermes-tools/mrtr/1\0";

/// The keys that seal and open `requestState`: the first seals, every one opens (rotation).
///
/// A fleet of replicas shares them (configuration, like any secret), so that a retry landing
/// on another replica opens the state the first one sealed. One process alone may use
/// [`random`](Self::random).
///
/// ```
/// use hermes_tools::mcp::server::RequestStateKeys;
///
/// // `id=secret`, comma-separated: the new key seals, the old one is still accepted.
/// let keys = RequestStateKeys::parse(
///     "2026-12=a-secret-of-at-least-32-bytes-0000000000,2026-11=the-previous-secret-of-32-bytes-000000",
/// )
/// .unwrap();
/// assert_eq!(keys.active_id(), "2026-12");
/// assert!(RequestStateKeys::parse("short=too-short").is_err());
/// ```
#[derive(Clone)]
pub struct RequestStateKeys {
    codec: RequestStateCodec,
    active: String,
    ids: Vec<String>,
}

/// Why a set of [`RequestStateKeys`] was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestStateKeysError {
    /// No key was given.
    #[error("no request-state key: give `id=secret` pairs, comma-separated, the first sealing")]
    Empty,
    /// An entry is not `id=secret`.
    #[error("request-state key {position} is not `id=secret` (an id, `=`, then the secret)")]
    Malformed {
        /// The entry's position, from 1.
        position: usize,
    },
    /// A key is shorter than HMAC-SHA256's 32 bytes, or an id is repeated or invalid.
    #[error("request-state key {id:?} refused: {reason}")]
    Refused {
        /// The key's id.
        id: String,
        /// Why.
        reason: String,
    },
    /// The variable is unset or not Unicode.
    #[error(
        "the environment variable {name} holds no request-state keys (set it to `id=secret`, comma-separated)"
    )]
    Unset {
        /// The variable.
        name: String,
    },
    /// The system's random source failed.
    #[error("cannot make a random request-state key: {0}")]
    Random(String),
}

impl RequestStateKeys {
    /// Keys from text: `id=secret` pairs, comma-separated; the first seals, all open. Each
    /// secret must be at least 32 bytes (`openssl rand -hex 32` makes one).
    pub fn parse(text: &str) -> Result<Self, RequestStateKeysError> {
        let mut pairs = Vec::new();
        for (index, entry) in text.split(',').map(str::trim).enumerate() {
            if entry.is_empty() {
                continue;
            }
            let (id, secret) = entry
                .split_once('=')
                .filter(|(id, secret)| !id.trim().is_empty() && !secret.is_empty())
                .ok_or(RequestStateKeysError::Malformed {
                    position: index + 1,
                })?;
            pairs.push((id.trim().to_owned(), secret.as_bytes().to_vec()));
        }
        Self::from_pairs(pairs)
    }

    /// Keys from the environment variable `name` (see [`parse`](Self::parse)).
    pub fn from_env(name: &str) -> Result<Self, RequestStateKeysError> {
        let text = std::env::var(name).map_err(|_| RequestStateKeysError::Unset {
            name: name.to_owned(),
        })?;
        Self::parse(&text)
    }

    /// One key from the system's random source: this process alone can open what it seals,
    /// so a retry must come back to it (one `serve`, not a fleet).
    pub fn random() -> Result<Self, RequestStateKeysError> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret)
            .map_err(|err| RequestStateKeysError::Random(err.to_string()))?;
        Self::from_pairs(vec![("random".to_owned(), secret.to_vec())])
    }

    fn from_pairs(pairs: Vec<(String, Vec<u8>)>) -> Result<Self, RequestStateKeysError> {
        let Some((active, _)) = pairs.first() else {
            return Err(RequestStateKeysError::Empty);
        };
        let active = active.clone();
        let ids: Vec<String> = pairs.iter().map(|(id, _)| id.clone()).collect();
        for (id, secret) in &pairs {
            if secret.len() < RequestStateCodec::MIN_KEY_LENGTH {
                return Err(RequestStateKeysError::Refused {
                    id: id.clone(),
                    reason: format!(
                        "the secret is {} bytes, and must be at least {}",
                        secret.len(),
                        RequestStateCodec::MIN_KEY_LENGTH
                    ),
                });
            }
        }
        let codec = RequestStateCodec::new_with_keyring(active.clone(), pairs).map_err(|err| {
            RequestStateKeysError::Refused {
                id: active.clone(),
                reason: err.to_string(),
            }
        })?;
        Ok(Self { codec, active, ids })
    }

    /// The id of the key that seals.
    pub fn active_id(&self) -> &str {
        &self.active
    }
}

impl fmt::Debug for RequestStateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The ids only: never a secret.
        f.debug_struct("RequestStateKeys")
            .field("ids", &self.ids)
            .finish_non_exhaustive()
    }
}

/// One answer the client gave, to the question whose digest it carries.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Answer {
    /// The question's [`digest`].
    q: String,
    /// The client's result for it (an `ElicitResult` or a `CreateMessageResult`).
    r: Value,
}

/// A question put in the round that sealed the state, under its `inputRequests` key.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Put {
    key: String,
    q: String,
}

/// What `requestState` carries from one round to the next.
#[derive(Debug, Serialize, Deserialize)]
struct State {
    /// The answers, in the order the tool asked.
    answers: Vec<Answer>,
    /// The questions the last round put.
    put: Vec<Put>,
}

/// The sealing of one server: its keys and how long a state lives.
#[derive(Clone, Debug)]
pub(super) struct Sealing {
    pub(super) keys: Arc<RequestStateKeys>,
    pub(super) ttl: Duration,
}

/// One round of a modern-era `tools/call`: the answers it starts with, and the questions its
/// run put without an answer.
pub(super) struct Round {
    answers: Vec<Answer>,
    asked: Mutex<Asked>,
    elicitation: bool,
    sampling: bool,
    /// What the run asked for that the client did not declare ("elicitation", "sampling").
    undeclared: Mutex<Vec<&'static str>>,
}

/// What the run asked so far.
#[derive(Default)]
struct Asked {
    /// Questions asked, in order (answered or not).
    count: usize,
    /// How many of the first answers the run used, in order (the prefix kept).
    used: usize,
    /// The questions without an answer, by key: the position it was asked at, its digest,
    /// the request.
    pending: BTreeMap<String, (usize, String, InputRequest)>,
}

/// The associated data a state of tool `tool` called with `arguments` is sealed with.
fn binding(tool: &str, arguments: Option<&JsonObject>) -> Vec<u8> {
    let mut data = BINDING.to_vec();
    data.extend_from_slice(tool.as_bytes());
    data.push(0);
    let arguments = arguments.map_or(Value::Object(JsonObject::new()), |map| {
        Value::Object(map.clone())
    });
    data.extend_from_slice(canonical(&arguments).as_bytes());
    data
}

/// `value` as JSON text with every object's keys sorted: the same arguments sent in another
/// key order bind the same state.
fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by_key(|(key, _)| *key);
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(key, value)| (key.clone(), sorted(value)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// A question's identity across rounds: the SHA-256 of the request sent, in hex (16 bytes).
fn digest(request: &InputRequest) -> String {
    let text = serde_json::to_string(request).unwrap_or_default();
    Sha256::digest(text.as_bytes())[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The JSON-RPC error for a refused `requestState`, saying what to do.
fn refused(err: &RequestStateError) -> ErrorData {
    let why = match err {
        RequestStateError::Expired => "it has expired (the question was put too long ago)",
        RequestStateError::UnknownKeyId => {
            "it was sealed with a key this server does not hold (another server, or a retired key)"
        }
        _ => {
            "it failed integrity verification: it was altered, forged, or belongs to another \
             tool or other arguments"
        }
    };
    ErrorData::invalid_params(
        format!(
            "requestState refused: {why}. Send the tools/call again without requestState and \
             inputResponses to start over."
        ),
        Some(serde_json::json!({"reason": err.to_string()})),
    )
}

impl Round {
    /// The round `tool` called with `arguments` starts: the answers of the state the client
    /// echoed (checked), joined by its `inputResponses` to the questions that state put.
    /// `capabilities`: what the client declared it can answer.
    pub(super) fn open(
        sealing: &Sealing,
        tool: &str,
        arguments: Option<&JsonObject>,
        state: Option<&str>,
        responses: Option<&InputResponses>,
        capabilities: Option<&ClientCapabilities>,
    ) -> Result<Self, ErrorData> {
        let mut answers = Vec::new();
        match state {
            Some(sealed) => {
                let state: State = sealing
                    .keys
                    .codec
                    .open_json_with(sealed, &binding(tool, arguments))
                    .map_err(|err| refused(&err))?;
                answers = state.answers;
                for put in state.put {
                    if let Some(response) = responses.and_then(|map| map.get(&put.key)) {
                        answers.push(Answer {
                            q: put.q,
                            r: response.clone(),
                        });
                    } else {
                        // Unanswered: the run asks it again. Later answers follow a gap, so
                        // the questions after it are asked again too.
                        break;
                    }
                }
            }
            None if responses.is_some_and(|map| !map.is_empty()) => {
                return Err(ErrorData::invalid_params(
                    "inputResponses without the requestState of the input_required result \
                     they answer: send both, exactly as received, or neither to start over.",
                    None,
                ));
            }
            None => {}
        }
        let (elicitation, sampling) = offers(capabilities);
        Ok(Self {
            answers,
            asked: Mutex::new(Asked::default()),
            elicitation,
            sampling,
            undeclared: Mutex::new(Vec::new()),
        })
    }

    /// The capabilities the run asked for that the client did not declare, as the
    /// `requiredCapabilities` of a -32021 error; `None` when it asked for none.
    pub(super) fn undeclared(&self) -> Option<ClientCapabilities> {
        let undeclared = self.undeclared.lock();
        if undeclared.is_empty() {
            return None;
        }
        let mut required = ClientCapabilities::default();
        if undeclared.contains(&"elicitation") {
            required.elicitation = Some(rmcp::model::ElicitationCapability::default());
        }
        if undeclared.contains(&"sampling") {
            required.sampling = Some(Default::default());
        }
        Some(required)
    }

    /// The answer to the run's next question `request`, or `None` (the question is then
    /// pending, under its key).
    fn answer(&self, request: InputRequest, key: Option<String>) -> Option<Value> {
        let digest = digest(&request);
        let mut asked = self.asked.lock();
        let index = asked.count;
        asked.count += 1;
        if asked.pending.is_empty()
            && asked.used == index
            && let Some(answer) = self.answers.get(index).filter(|answer| answer.q == digest)
        {
            asked.used += 1;
            return Some(answer.r.clone());
        }
        // The tool's name for the question, unless taken in this round: then its position's.
        let key = key
            .filter(|key| !asked.pending.contains_key(key))
            .unwrap_or_else(|| format!("q{index}"));
        asked.pending.insert(key, (index, digest, request));
        None
    }

    /// Whether the run left a question without its answer (so far).
    pub(super) fn waiting(&self) -> bool {
        !self.asked.lock().pending.is_empty()
    }

    /// The `input_required` result, when the run left questions without an answer: the
    /// questions, and the state the retry must echo, sealed for `tool` and `arguments`.
    pub(super) fn input_required(
        &self,
        sealing: &Sealing,
        tool: &str,
        arguments: Option<&JsonObject>,
    ) -> Result<Option<InputRequiredResult>, ErrorData> {
        let asked = self.asked.lock();
        if asked.pending.is_empty() {
            return Ok(None);
        }
        // Put in the order asked: the retry's answers are matched to the run's questions
        // by position.
        let mut put: Vec<_> = asked.pending.iter().collect();
        put.sort_by_key(|(_, (index, _, _))| *index);
        let state = State {
            answers: self.answers[..asked.used].to_vec(),
            put: put
                .into_iter()
                .map(|(key, (_, q, _))| Put {
                    key: key.clone(),
                    q: q.clone(),
                })
                .collect(),
        };
        let binding = binding(tool, arguments);
        let options = SealOptions::new()
            .associated_data(&binding)
            .ttl(sealing.ttl);
        let sealed = sealing
            .keys
            .codec
            .seal_json_with(&state, &options)
            .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
        let requests = asked
            .pending
            .iter()
            .map(|(key, (_, _, request))| (key.clone(), request.clone()))
            .collect();
        Ok(Some(InputRequiredResult::new(Some(requests), Some(sealed))))
    }
}

/// What a request's client declared it can answer: (form elicitation, sampling). A tool is
/// never put a question of a kind its client did not declare.
pub(super) fn offers(capabilities: Option<&ClientCapabilities>) -> (bool, bool) {
    let elicitation = capabilities
        .and_then(|caps| caps.elicitation.as_ref())
        .is_some_and(|modes| modes.form.is_some() || modes.url.is_none());
    let sampling = capabilities.is_some_and(|caps| caps.sampling.is_some());
    (elicitation, sampling)
}

/// The message a tool reads for a question whose answer the client has yet to give.
const PENDING: &str = "the question was sent to the MCP client (input_required): this call \
                       runs again with its answer";

/// A round's questions, as a [`ToolContext`](crate::ToolContext)'s asker.
pub(super) struct RoundAsker(pub(super) Arc<Round>);

impl RoundAsker {
    /// Whether the run left a question of this round without its answer.
    pub(super) fn waiting(&self) -> bool {
        self.0.waiting()
    }

    /// The answer to `request` (sent as `kind`), parsed by `parse`, or the question pending.
    fn ask<T, R: serde::de::DeserializeOwned>(
        &self,
        request: Result<ServerRequest, AskError>,
        key: Option<String>,
        kind: &str,
        parse: impl FnOnce(R) -> Result<T, AskError>,
    ) -> Result<T, AskError> {
        let request = match request? {
            ServerRequest::ElicitRequest(request) => InputRequest::Elicitation(request),
            ServerRequest::CreateMessageRequest(request) => InputRequest::CreateMessage(request),
            _ => {
                return Err(AskError::Failed(format!(
                    "{kind} is not an MCP input request"
                )));
            }
        };
        let response = self
            .0
            .answer(request, key)
            .ok_or_else(|| AskError::Failed(PENDING.to_owned()))?;
        let result = serde_json::from_value::<R>(response).map_err(|err| {
            AskError::Failed(format!("the client's {kind} response is not one: {err}"))
        })?;
        parse(result)
    }
}

impl Asker for RoundAsker {
    fn can_elicit(&self) -> bool {
        self.0.elicitation
    }

    fn can_sample(&self) -> bool {
        self.0.sampling
    }

    fn elicit(
        &self,
        question: Elicitation,
    ) -> BoxFuture<'static, Result<ElicitationReply, AskError>> {
        let reply = self.ask(
            ask::elicit_request(&question),
            question.key.clone(),
            "elicitation",
            |result: ElicitResult| ask::elicitation_reply(result),
        );
        Box::pin(async move { reply })
    }

    fn asked_unavailable(&self, what: &'static str) {
        let mut undeclared = self.0.undeclared.lock();
        if !undeclared.contains(&what) {
            undeclared.push(what);
        }
    }

    fn sample(&self, request: Sampling) -> BoxFuture<'static, Result<SamplingReply, AskError>> {
        let reply = self.ask(
            ask::sampling_request(request),
            None,
            "sampling",
            |result: CreateMessageResult| ask::sampling_reply(result),
        );
        Box::pin(async move { reply })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ElicitationCapability, FormElicitationCapability};
    use serde_json::json;

    fn sealing(keys: &str, ttl: Duration) -> Sealing {
        Sealing {
            keys: Arc::new(RequestStateKeys::parse(keys).unwrap()),
            ttl,
        }
    }

    const KEY_A: &str = "a=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const KEY_B: &str = "b=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    fn eliciting() -> ClientCapabilities {
        let mut caps = ClientCapabilities::default();
        caps.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        caps
    }

    fn args(city: &str) -> JsonObject {
        json!({"city": city, "units": "metric"})
            .as_object()
            .unwrap()
            .clone()
    }

    fn question(text: &str) -> Elicitation {
        Elicitation::new(
            text,
            json!({"type": "object", "properties": {"answer": {"type": "string"}}}),
        )
    }

    /// Runs a "tool" that asks `questions` in order through a round opened with `state` and
    /// `responses`; gives what it got and the round's `input_required`, if any.
    fn run(
        sealing: &Sealing,
        tool: &str,
        arguments: &JsonObject,
        state: Option<&str>,
        responses: Option<&InputResponses>,
        questions: &[&str],
    ) -> Result<(Vec<String>, Option<InputRequiredResult>), ErrorData> {
        let round = Arc::new(Round::open(
            sealing,
            tool,
            Some(arguments),
            state,
            responses,
            Some(&eliciting()),
        )?);
        let asker = RoundAsker(Arc::clone(&round));
        let mut got = Vec::new();
        for text in questions {
            let reply = futures_util::FutureExt::now_or_never(asker.elicit(question(text)))
                .expect("answers at once");
            match reply {
                Ok(ElicitationReply::Accept(values)) => got.push(values["answer"].to_string()),
                Ok(other) => got.push(format!("{other:?}")),
                Err(_) => break,
            }
        }
        let required = round.input_required(sealing, tool, Some(arguments))?;
        Ok((got, required))
    }

    fn accept(answer: &str) -> Value {
        json!({"action": "accept", "content": {"answer": answer}})
    }

    #[test]
    fn two_questions_take_three_rounds_and_each_answer_reaches_its_question() {
        let sealing = sealing(KEY_A, DEFAULT_REQUEST_STATE_TTL);
        let arguments = args("Oslo");
        let questions = ["Which cluster?", "Are you sure?"];
        let (got, first) = run(&sealing, "deploy", &arguments, None, None, &questions).unwrap();
        assert!(got.is_empty());
        let first = first.expect("the first question is put");
        let requests = first.input_requests.as_ref().unwrap();
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["q0"]);
        let sent = serde_json::to_value(&requests["q0"]).unwrap();
        assert_eq!(sent["method"], "elicitation/create");
        assert_eq!(sent["params"]["message"], "Which cluster?");

        let responses = InputResponses::from([("q0".to_owned(), accept("prod"))]);
        let state = first.request_state.as_deref();
        let (got, second) = run(
            &sealing,
            "deploy",
            &arguments,
            state,
            Some(&responses),
            &questions,
        )
        .unwrap();
        assert_eq!(got, ["\"prod\""]);
        let second = second.expect("the second question is put");
        assert_eq!(
            second
                .input_requests
                .as_ref()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["q1"]
        );

        let responses = InputResponses::from([("q1".to_owned(), accept("yes"))]);
        let state = second.request_state.as_deref();
        let (got, third) = run(
            &sealing,
            "deploy",
            &arguments,
            state,
            Some(&responses),
            &questions,
        )
        .unwrap();
        assert_eq!(got, ["\"prod\"", "\"yes\""]);
        assert!(
            third.is_none(),
            "every question answered: the call completes"
        );
    }

    #[test]
    fn a_changed_question_is_asked_again_instead_of_taking_the_old_answer() {
        let sealing = sealing(KEY_A, DEFAULT_REQUEST_STATE_TTL);
        let arguments = args("Oslo");
        let (_, first) = run(&sealing, "t", &arguments, None, None, &["Old?"]).unwrap();
        let first = first.unwrap();
        let responses = InputResponses::from([("q0".to_owned(), accept("x"))]);
        let (got, again) = run(
            &sealing,
            "t",
            &arguments,
            first.request_state.as_deref(),
            Some(&responses),
            &["New?"],
        )
        .unwrap();
        assert!(got.is_empty());
        let sent = serde_json::to_value(&again.unwrap().input_requests.unwrap()["q0"]).unwrap();
        assert_eq!(sent["params"]["message"], "New?");
    }

    fn first_state(sealing: &Sealing, tool: &str, arguments: &JsonObject) -> String {
        let (_, required) = run(sealing, tool, arguments, None, None, &["Q?"]).unwrap();
        required.unwrap().request_state.unwrap()
    }

    fn refusal(sealing: &Sealing, tool: &str, arguments: &JsonObject, state: &str) -> ErrorData {
        let responses = InputResponses::from([("q0".to_owned(), accept("x"))]);
        run(
            sealing,
            tool,
            arguments,
            Some(state),
            Some(&responses),
            &["Q?"],
        )
        .map(|_| ())
        .expect_err("refused")
    }

    #[test]
    fn forged_altered_foreign_and_expired_states_are_refused_saying_why() {
        let sealing_a = sealing(KEY_A, DEFAULT_REQUEST_STATE_TTL);
        let arguments = args("Oslo");
        let state = first_state(&sealing_a, "deploy", &arguments);

        // Another tool, other arguments, the same arguments in another key order.
        let foreign = refusal(&sealing_a, "delete", &arguments, &state);
        assert_eq!(foreign.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(
            foreign.message.contains("another tool or other arguments"),
            "{foreign:?}"
        );
        let other_args = refusal(&sealing_a, "deploy", &args("Bergen"), &state);
        assert!(other_args.message.contains("integrity"), "{other_args:?}");
        let reordered = json!({"units": "metric", "city": "Oslo"});
        let reordered = reordered.as_object().unwrap();
        assert!(run(&sealing_a, "deploy", reordered, Some(&state), None, &["Q?"]).is_ok());

        // One character changed; a state of our format signed with another key; garbage.
        let mut altered = state.clone().into_bytes();
        let last = altered.len() - 1;
        altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(altered).unwrap();
        assert!(
            refusal(&sealing_a, "deploy", &arguments, &altered)
                .message
                .contains("refused")
        );
        let forged = first_state(
            &sealing(KEY_B, DEFAULT_REQUEST_STATE_TTL),
            "deploy",
            &arguments,
        );
        let unknown = refusal(&sealing_a, "deploy", &arguments, &forged);
        assert!(
            unknown.message.contains("a key this server does not hold"),
            "{unknown:?}"
        );
        assert!(
            refusal(&sealing_a, "deploy", &arguments, "not a state")
                .message
                .contains("refused")
        );

        // Expired.
        let brief = sealing(KEY_A, Duration::from_millis(1));
        let state = first_state(&brief, "deploy", &arguments);
        std::thread::sleep(Duration::from_millis(20));
        let expired = refusal(&brief, "deploy", &arguments, &state);
        assert!(expired.message.contains("expired"), "{expired:?}");
        assert!(
            expired.message.contains("without requestState"),
            "{expired:?}"
        );
    }

    #[test]
    fn a_rotated_key_still_opens_what_the_previous_one_sealed() {
        let old = sealing(KEY_A, DEFAULT_REQUEST_STATE_TTL);
        let arguments = args("Oslo");
        let state = first_state(&old, "deploy", &arguments);
        let rotated = sealing(&format!("{KEY_B},{KEY_A}"), DEFAULT_REQUEST_STATE_TTL);
        assert_eq!(rotated.keys.active_id(), "b");
        let responses = InputResponses::from([("q0".to_owned(), accept("kept"))]);
        let (got, done) = run(
            &rotated,
            "deploy",
            &arguments,
            Some(&state),
            Some(&responses),
            &["Q?"],
        )
        .unwrap();
        assert_eq!(got, ["\"kept\""]);
        assert!(done.is_none());
        // Once the old key is retired, its states are refused.
        let retired = sealing(KEY_B, DEFAULT_REQUEST_STATE_TTL);
        assert!(
            refusal(&retired, "deploy", &arguments, &state)
                .message
                .contains("does not hold")
        );
    }

    #[test]
    fn responses_without_a_state_are_refused_and_undeclared_kinds_are_not_asked() {
        let sealing = sealing(KEY_A, DEFAULT_REQUEST_STATE_TTL);
        let responses = InputResponses::from([("q0".to_owned(), accept("x"))]);
        let err = Round::open(&sealing, "t", None, None, Some(&responses), None)
            .map(|_| ())
            .unwrap_err();
        assert!(err.message.contains("without the requestState"), "{err:?}");
        let round = Round::open(&sealing, "t", None, None, None, None).unwrap();
        let asker = RoundAsker(Arc::new(round));
        assert!(!asker.can_elicit() && !asker.can_sample());
    }

    #[test]
    fn named_questions_keep_their_names_and_their_order_across_rounds() {
        let sealing = sealing(KEY_A, DEFAULT_REQUEST_STATE_TTL);
        let arguments = args("Oslo");
        // Asked in one round, names sorting against the order asked, and a repeated name.
        let ask = |state: Option<&str>, responses: Option<&InputResponses>| {
            let round = Arc::new(
                Round::open(
                    &sealing,
                    "t",
                    Some(&arguments),
                    state,
                    responses,
                    Some(&eliciting()),
                )
                .unwrap(),
            );
            let asker = RoundAsker(Arc::clone(&round));
            let replies: Vec<_> = ["zeta", "alpha", "alpha"]
                .into_iter()
                .enumerate()
                .map(|(i, key)| {
                    let question = question(&format!("question {i}")).with_key(key);
                    futures_util::FutureExt::now_or_never(asker.elicit(question)).unwrap()
                })
                .collect();
            (
                replies,
                round
                    .input_required(&sealing, "t", Some(&arguments))
                    .unwrap(),
            )
        };
        let (_, first) = ask(None, None);
        let first = first.expect("the questions are put");
        let requests = first.input_requests.as_ref().unwrap();
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["alpha", "q2", "zeta"]);
        let responses = InputResponses::from([
            ("zeta".to_owned(), accept("first")),
            ("alpha".to_owned(), accept("second")),
            ("q2".to_owned(), accept("third")),
        ]);
        let (replies, second) = ask(first.request_state.as_deref(), Some(&responses));
        assert!(second.is_none(), "every question is answered");
        let said: Vec<_> = replies
            .into_iter()
            .map(|reply| match reply {
                Ok(ElicitationReply::Accept(values)) => values["answer"].clone(),
                other => panic!("not answered: {other:?}"),
            })
            .collect();
        assert_eq!(said, ["first", "second", "third"]);
    }

    #[test]
    fn asking_what_the_client_did_not_declare_names_the_capability_to_declare() {
        let sealing = sealing(KEY_A, DEFAULT_REQUEST_STATE_TTL);
        let round = Arc::new(Round::open(&sealing, "t", None, None, None, None).unwrap());
        assert!(round.undeclared().is_none());
        let ctx = crate::ToolContext::new().with_asker(RoundAsker(Arc::clone(&round)));
        let reply = ctx.sample_blocking(Sampling::new("Say hello.", 10));
        assert!(matches!(reply, Err(AskError::Unavailable(_))), "{reply:?}");
        let required = serde_json::to_value(round.undeclared().unwrap()).unwrap();
        assert_eq!(required, json!({"sampling": {}}));
        assert!(round.input_required(&sealing, "t", None).unwrap().is_none());
    }

    #[test]
    fn keys_are_refused_when_short_malformed_or_missing() {
        assert!(matches!(
            RequestStateKeys::parse("a=short"),
            Err(RequestStateKeysError::Refused { .. })
        ));
        assert!(matches!(
            RequestStateKeys::parse("no-equals-sign-here-but-long-enough-000000"),
            Err(RequestStateKeysError::Malformed { position: 1 })
        ));
        assert!(matches!(
            RequestStateKeys::parse(" , "),
            Err(RequestStateKeysError::Empty)
        ));
        let twice = format!("{KEY_A},{KEY_A}");
        assert!(matches!(
            RequestStateKeys::parse(&twice),
            Err(RequestStateKeysError::Refused { .. })
        ));
        let debug = format!("{:?}", RequestStateKeys::parse(KEY_A).unwrap());
        assert!(!debug.contains("aaaa"), "{debug}");
        assert!(RequestStateKeys::random().is_ok());
    }
}
