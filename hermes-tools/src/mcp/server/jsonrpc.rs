//! Answers for messages `rmcp` cannot take: unparsable text, wrong shapes, oversize messages,
//! and requests of a known method whose params are wrong.
//!
//! JSON-RPC 2.0 says what each deserves, and every one of them gets an answer, so a client
//! never waits for a reply that will not come:
//!
//! | received | answer |
//! |---|---|
//! | text that is not JSON | `-32700` Parse error, `"id": null` |
//! | JSON that is not a request (no `jsonrpc: "2.0"`, a batch, a bad id) | `-32600` Invalid Request, with the id when one can be read |
//! | a message over the size limit | `-32600`, with the id when it is near the start of the message |
//! | a known method with wrong params (`tools/call` with `"name": 5`) | `-32602` Invalid params, saying what is wrong |
//! | an unknown method | `-32601` Method not found |
//!
//! A notification (no id) with a wrong shape is dropped with a log line: JSON-RPC forbids
//! answering notifications. So is a malformed response: answering an answer could start a loop.

use std::borrow::Cow;
use std::fmt;

use rmcp::model::{
    ClientJsonRpcMessage, ErrorCode, ErrorData, InitializeRequestParams, PaginatedRequestParams,
};
use serde::Deserializer as _;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// The JSON-RPC code for a server that cannot take more work now (the implementation-defined
/// range is -32000 to -32099).
pub(super) const SERVER_BUSY: i32 = -32000;

/// How much of an oversize message is kept to look for its id.
const ID_SEARCH_BYTES: usize = 64 * 1024;

/// What to do with one incoming line (or HTTP body).
#[derive(Debug)]
pub(super) enum Incoming {
    /// A message for `rmcp`.
    Message(Box<ClientJsonRpcMessage>),
    /// Nothing to deliver and nothing to answer (a blank line, a malformed notification).
    Ignored,
    /// Not a message: answer it with this error.
    Refused(JsonRpcError),
}

/// A JSON-RPC error answer, not tied to a request `rmcp` has seen.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct JsonRpcError {
    /// The request's id, when it could be read (`null` otherwise).
    pub id: Value,
    /// The JSON-RPC error code.
    pub code: i32,
    /// What went wrong and what to do instead.
    pub message: String,
}

impl JsonRpcError {
    pub(super) fn new(id: Option<Value>, code: i32, message: impl Into<String>) -> Self {
        Self {
            id: id.unwrap_or(Value::Null),
            code,
            message: message.into(),
        }
    }

    /// The whole error message, as JSON.
    pub(super) fn to_value(&self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
    }

    /// The error message as one line of the stdio transport.
    pub(super) fn to_line(&self) -> Vec<u8> {
        let mut line = self.to_value().to_string().into_bytes();
        line.push(b'\n');
        line
    }
}

impl fmt::Display for JsonRpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// Reads one message: a line of the stdio transport (without its newline) or an HTTP body.
pub(super) fn read_message(bytes: &[u8]) -> Incoming {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let bytes = bytes.trim_ascii();
    if bytes.is_empty() {
        return Incoming::Ignored;
    }
    // The common case: one parse, straight into rmcp's type.
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(message) => return Incoming::Message(Box::new(message)),
        Err(error) => error,
    };
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => value,
        Err(syntax) => {
            return Incoming::Refused(JsonRpcError::new(
                None,
                ErrorCode::PARSE_ERROR.0,
                format!(
                    "Parse error: {syntax}. Each message must be one complete JSON-RPC object \
                     (on stdio: one per line)."
                ),
            ));
        }
    };
    shape_problem(&value, &error)
}

/// What the HTTP gate needs of a message before `rmcp` reads it: its method and id, borrowed
/// from the body.
#[derive(Debug)]
pub(super) struct Envelope<'a> {
    /// The method, for a request or a notification.
    pub(super) method: Option<Cow<'a, str>>,
    /// The id of a request (a message with a method and an id), as written.
    id: Option<&'a RawValue>,
}

impl Envelope<'_> {
    /// Whether the message is a request of `method`.
    pub(super) fn is_request(&self, method: &str) -> bool {
        self.id.is_some() && self.method.as_deref() == Some(method)
    }

    /// The id of a request, for an answer the gate gives itself (an error, say): read only
    /// then, since most requests are answered by `rmcp`.
    pub(super) fn id(&self) -> Option<Value> {
        self.id.and_then(|id| serde_json::from_str(id.get()).ok())
    }
}

/// An HTTP body's [`Envelope`], read without building the message: `rmcp` parses the body
/// into its own type anyway, so parsing it here too would cost a second full parse (the params
/// are skipped, not kept). `None` for a body that is not a JSON object with a string method
/// or none: [`read_message`] then says what is wrong with it, as it does for a body `rmcp`
/// refuses (see [`refusal`]).
pub(super) fn envelope(bytes: &[u8]) -> Option<Envelope<'_>> {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(borrow, default)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let probe: Probe<'_> = serde_json::from_slice(bytes).ok()?;
    // A response of the client's (an id, no method) is not a request, and an id is a string
    // or a number.
    let id = probe.id.filter(|id| {
        probe.method.is_some() && matches!(id.get().as_bytes()[0], b'"' | b'-' | b'0'..=b'9')
    });
    Some(Envelope {
        method: probe.method,
        id,
    })
}

/// The answer for a body that is not a message `rmcp` reads (what [`read_message`] refuses
/// or ignores), `None` for one it reads.
pub(super) fn refusal(bytes: &[u8]) -> Option<JsonRpcError> {
    match read_message(bytes) {
        Incoming::Message(_) => None,
        Incoming::Refused(error) => Some(error),
        Incoming::Ignored => Some(not_a_message()),
    }
}

/// The answer for an HTTP body that is empty or no JSON-RPC message at all.
pub(super) fn not_a_message() -> JsonRpcError {
    JsonRpcError::new(
        None,
        ErrorCode::INVALID_REQUEST.0,
        "Invalid Request: the body is empty or not a JSON-RPC message.",
    )
}

/// Why a well-formed JSON value is not a message `rmcp` reads, and whether it deserves an answer.
fn shape_problem(value: &Value, error: &serde_json::Error) -> Incoming {
    let Value::Object(object) = value else {
        let what = if value.is_array() {
            "a batch (a JSON array): batches are not supported, send one message at a time"
                .to_owned()
        } else {
            format!("{}: a message is a JSON object", kind(value))
        };
        return Incoming::Refused(JsonRpcError::new(
            None,
            ErrorCode::INVALID_REQUEST.0,
            format!("Invalid Request: got {what}."),
        ));
    };
    let id = object
        .get("id")
        .filter(|id| id.is_string() || id.is_number());
    let has_method = object.contains_key("method");
    if object.get("id").is_none() && has_method {
        tracing::debug!(%error, "dropping a malformed MCP notification");
        return Incoming::Ignored;
    }
    if !has_method && (object.contains_key("result") || object.contains_key("error")) {
        tracing::debug!(%error, "dropping a malformed JSON-RPC response from the client");
        return Incoming::Ignored;
    }
    if let (Some(Value::String(method)), Some(params)) =
        (object.get("method"), object.get("params"))
        && !params.is_object()
        && object.get("jsonrpc") == Some(&json!("2.0"))
        && let Some(error) = bad_params(method, Some(params))
    {
        // A request of a known method, readable but for its params: "Invalid params".
        return Incoming::Refused(JsonRpcError::new(
            id.cloned(),
            error.code.0,
            error.message.into_owned(),
        ));
    }
    let problem = if object.get("jsonrpc") != Some(&json!("2.0")) {
        "\"jsonrpc\" must be \"2.0\"".to_owned()
    } else if let Some(bad) = object.get("id").filter(|_| id.is_none()) {
        format!("\"id\" must be a string or a number, not {}", kind(bad))
    } else if !has_method {
        "a request needs a \"method\"".to_owned()
    } else if !object["method"].is_string() {
        format!(
            "\"method\" must be a string, not {}",
            kind(&object["method"])
        )
    } else if let Some(params) = object.get("params").filter(|p| !p.is_object()) {
        format!("\"params\" must be an object, not {}", kind(params))
    } else {
        error.to_string()
    };
    Incoming::Refused(JsonRpcError::new(
        id.cloned(),
        ErrorCode::INVALID_REQUEST.0,
        format!("Invalid Request: {problem}."),
    ))
}

/// The answer to a message longer than `limit` bytes, of which `head` is the start.
pub(super) fn oversize(head: &[u8], limit: usize) -> JsonRpcError {
    JsonRpcError::new(
        leading_id(head),
        ErrorCode::INVALID_REQUEST.0,
        format!(
            "Invalid Request: the message is longer than this server's limit of {limit} bytes, \
             so it was not read. Send less (smaller arguments), or ask the operator to raise the \
             limit (ToolServer::max_message_bytes, `serve --max-message-bytes`)."
        ),
    )
}

/// How many bytes of an oversize message to keep for [`oversize`].
pub(super) fn id_search_bytes(limit: usize) -> usize {
    limit.min(ID_SEARCH_BYTES)
}

/// The id of a request whose text may be cut short, if a top-level `"id"` comes before the cut.
///
/// Clients put `"id"` before `"params"` (the Python and TypeScript SDKs and rmcp all do), so
/// an oversize request can still be answered with its id and the client's call fails at once
/// instead of waiting.
pub(super) fn leading_id(head: &[u8]) -> Option<Value> {
    struct FindId<'a>(&'a mut Option<Value>);

    impl<'de> Visitor<'de> for FindId<'_> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON-RPC message")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == "id" {
                    let id: Value = map.next_value()?;
                    if id.is_string() || id.is_number() {
                        *self.0 = Some(id);
                    }
                    return Ok(());
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }

    let mut found = None;
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    // The text is cut short, so this ends in an error: what was found before it counts.
    let _ = serde_json::Deserializer::from_slice(head).deserialize_map(FindId(&mut found));
    found
}

/// The `-32602` error for a request of a known method whose params did not parse, or `None`
/// when the method is not one this server knows (then it is `-32601`).
pub(super) fn bad_params(method: &str, params: Option<&Value>) -> Option<ErrorData> {
    let problem = match method {
        "tools/call" => call_params_problem(params),
        "tools/list" => typed_problem::<PaginatedRequestParams>(params),
        "initialize" => typed_problem::<InitializeRequestParams>(params),
        _ if KNOWN_METHODS.contains(&method) => {
            "they do not have the shape the MCP specification gives them".to_owned()
        }
        _ => return None,
    };
    Some(ErrorData::invalid_params(
        format!("Invalid params for {method}: {problem}."),
        Some(json!({"method": method})),
    ))
}

/// The requests a client may send an MCP server (besides those above).
const KNOWN_METHODS: [&str; 18] = [
    "ping",
    "server/discover",
    "subscriptions/listen",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
];

/// What is wrong with `tools/call` params, in the words a client developer needs.
fn call_params_problem(params: Option<&Value>) -> String {
    let Some(params) = params else {
        return "params are missing; send {\"name\": TOOL, \"arguments\": {...}}".to_owned();
    };
    let Value::Object(params) = params else {
        return format!("params must be an object, not {}", kind(params));
    };
    match params.get("name") {
        None => return "\"name\" is missing: name the tool to call, as tools/list gives it".into(),
        Some(Value::String(_)) => {}
        Some(other) => {
            return format!(
                "\"name\" must be a string naming the tool to call, not {}",
                kind(other)
            );
        }
    }
    match params.get("arguments") {
        None | Some(Value::Object(_) | Value::Null) => {}
        Some(other) => {
            return format!(
                "\"arguments\" must be an object of the tool's arguments, not {}",
                kind(other)
            );
        }
    }
    typed_problem::<rmcp::model::CallToolRequestParams>(Some(&Value::Object(params.clone())))
}

/// serde's account of why `params` is not a `T`.
fn typed_problem<T: serde::de::DeserializeOwned>(params: Option<&Value>) -> String {
    let params = params.cloned().unwrap_or(Value::Null);
    match serde_json::from_value::<T>(params) {
        Ok(_) => "they do not have the shape the MCP specification gives them".to_owned(),
        Err(err) => err.to_string(),
    }
}

/// A JSON value's kind, with the value when short, for messages.
fn kind(value: &Value) -> String {
    let name = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    let text = value.to_string();
    if text.len() <= 40 {
        format!("{name} ({text})")
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> JsonRpcError {
        match read_message(text.as_bytes()) {
            Incoming::Refused(error) => error,
            other => panic!("{text}: expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn the_envelope_is_a_messages_method_and_request_id_read_without_its_params() {
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":[1,{"b":2}]}}}"#;
        let request = envelope(call).expect("a request");
        assert!(request.is_request("tools/call"));
        assert!(!request.is_request("initialize"));
        assert_eq!(request.id(), Some(json!(7)));
        // An escaped method is read (owned), as rmcp reads it.
        let escaped = br#"{"jsonrpc":"2.0","id":"a","method":"initializ\u0065","params":{}}"#;
        assert!(
            envelope(escaped)
                .expect("a request")
                .is_request("initialize")
        );
        // A notification and a response of the client's are no requests.
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let note = envelope(note).expect("a notification");
        assert_eq!(
            (note.method.as_deref(), note.id()),
            (Some("notifications/initialized"), None)
        );
        let response = envelope(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#).expect("a response");
        assert_eq!((response.method.as_deref(), response.id()), (None, None));
        // An id that is neither a string nor a number is no request's.
        let odd = envelope(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#).expect("read");
        assert!(!odd.is_request("ping"));
        let string = envelope(br#"{"id" : "x\"y", "method":"ping"}"#).expect("read");
        assert_eq!(string.id(), Some(json!("x\"y")));
        let negative = envelope(br#"{"id":-2,"method":"initialize"}"#).expect("read");
        assert_eq!(negative.id(), Some(json!(-2)));
        // What is no object with a string method is left to `read_message` to explain.
        for body in [
            &b"[1]"[..],
            b"{\"method\": 5}",
            b"{\"id\": 1, \"method\": ",
            b"",
        ] {
            assert!(
                envelope(body).is_none(),
                "{}",
                String::from_utf8_lossy(body)
            );
            assert!(refusal(body).is_some());
        }
        // A readable envelope of a message rmcp refuses: `refusal` says what is wrong.
        let old = br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#;
        assert!(envelope(old).is_some());
        let error = refusal(old).expect("refused");
        assert_eq!((error.code, &error.id), (-32600, &json!(3)));
        assert_eq!(refusal(call), None);
    }

    #[test]
    fn text_that_is_not_json_is_a_parse_error_with_a_null_id() {
        let error = refused(r#"{"jsonrpc": "2.0", "id": 1, "method": "#);
        assert_eq!((error.code, &error.id), (-32700, &Value::Null));
        assert!(error.message.starts_with("Parse error:"), "{error}");
        assert_eq!(refused("hello").code, -32700);
    }

    #[test]
    fn json_that_is_not_a_request_is_invalid_request_naming_the_fault() {
        let cases = [
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                "batch",
                Value::Null,
            ),
            ("42", "a number (42)", Value::Null),
            (
                r#"{"id": 3, "method": "ping"}"#,
                "\"jsonrpc\" must be \"2.0\"",
                json!(3),
            ),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
                "\"id\" must be",
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":"x","method":7}"#,
                "\"method\" must be a string",
                json!("x"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":4}"#,
                "needs a \"method\"",
                json!(4),
            ),
        ];
        for (text, says, id) in cases {
            let error = refused(text);
            assert_eq!(error.code, -32600, "{text}: {error}");
            assert!(error.message.contains(says), "{text}: {error}");
            assert_eq!(error.id, id, "{text}");
        }
    }

    #[test]
    fn blank_lines_malformed_notifications_and_responses_get_no_answer() {
        for text in [
            "",
            "  \r",
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":5}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
        ] {
            assert!(
                matches!(read_message(text.as_bytes()), Incoming::Ignored),
                "{text:?}"
            );
        }
    }

    #[test]
    fn well_formed_messages_pass_even_with_a_byte_order_mark() {
        let line = "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r";
        assert!(matches!(
            read_message(line.as_bytes()),
            Incoming::Message(_)
        ));
    }

    #[test]
    fn a_known_method_with_bad_params_reaches_the_handler_as_custom() {
        // rmcp reads it as a custom request; the handler answers it with `bad_params`.
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#;
        let Incoming::Message(message) = read_message(line.as_bytes()) else {
            panic!("rmcp takes it");
        };
        let ClientJsonRpcMessage::Request(request) = *message else {
            panic!("a request");
        };
        assert!(matches!(
            request.request,
            rmcp::model::ClientRequest::CustomRequest(_)
        ));
    }

    #[test]
    fn tools_call_params_problems_are_named() {
        let cases = [
            (None, "params are missing"),
            (Some(json!([1])), "params must be an object, not an array"),
            (Some(json!({})), "\"name\" is missing"),
            (
                Some(json!({"name": 5})),
                "\"name\" must be a string naming the tool to call, not a number (5)",
            ),
            (
                Some(json!({"name": "echo", "arguments": [1, 2]})),
                "\"arguments\" must be an object",
            ),
            (
                Some(json!({"name": "echo", "arguments": "{}"})),
                "not a string (\"{}\")",
            ),
        ];
        for (params, says) in cases {
            let error = bad_params("tools/call", params.as_ref()).expect("a known method");
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert!(
                error.message.starts_with("Invalid params for tools/call: "),
                "{}",
                error.message
            );
            assert!(
                error.message.contains(says),
                "{params:?}: {}",
                error.message
            );
        }
        let listed = bad_params("tools/list", Some(&json!({"cursor": 5}))).expect("known");
        assert!(
            listed.message.contains("cursor") || listed.message.contains("string"),
            "{}",
            listed.message
        );
        assert!(bad_params("no/such/method", None).is_none());
    }

    #[test]
    fn the_id_of_a_cut_message_is_found_when_it_comes_first() {
        let cut = br#"{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"x","arguments":{"text":"aaaa"#;
        assert_eq!(leading_id(cut), Some(json!(17)));
        let named = br#"{"id":"req-1","params":{"#;
        assert_eq!(leading_id(named), Some(json!("req-1")));
        let late = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x","arguments":{"text":"aa"#;
        assert_eq!(leading_id(late), None);
        assert_eq!(leading_id(br#"{"id":null,"#), None);
        assert_eq!(leading_id(b"garbage"), None);
        let error = oversize(cut, 100);
        assert_eq!((error.code, error.id.clone()), (-32600, json!(17)));
        assert!(error.message.contains("limit of 100 bytes"), "{error}");
    }

    #[test]
    fn error_lines_are_one_json_object_and_a_newline() {
        let line = JsonRpcError::new(Some(json!(2)), -32700, "bad").to_line();
        assert_eq!(line.last(), Some(&b'\n'));
        let value: Value = serde_json::from_slice(&line).expect("JSON");
        assert_eq!(
            value,
            json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32700, "message": "bad"}})
        );
    }
}
