//! The round trip from a provider's reply back to the provider, for each family we publish
//! definitions in, checked by that provider's official SDK (PyPI `openai`, `anthropic`,
//! `google-genai`, and `mcp`; pinned in `.ci/requirements.txt`).
//!
//! For each recorded reply in `tests/fixtures/provider/` (examples from the providers' own
//! documentation, listed with their pages in that folder's README):
//!
//! 1. the SDK's response model parses it (the fixture is a real reply), and reads the same calls
//!    as [`parse_calls`];
//! 2. where the documentation shows the stream too, the SDK parses each event and assembles the
//!    same calls as [`CallAccumulator`];
//! 3. a registry of tools built with [`Tool::builder`] answers the calls through
//!    `registry.call`, along with two more calls every family gets: one whose tool returns an
//!    image, one of a misspelled tool (an error answer);
//! 4. [`answer_messages`] wraps the answers, and the SDK's request types accept every message,
//!    while refusing a wrong variant of each (a missing id, an image where none is taken): the
//!    validation is strict enough to mean something.
//!
//! This test needs `HERMES_PYTHON`, which `bash .ci/test` sets after installing the pinned
//! packages; without it, it fails and says so.

use hermes_tools::provider::{answer_messages, parse_calls};
use hermes_tools::{
    Format, ToolAnswer, ToolContext, ToolRegistry, call::ToolContent, provider::CallAccumulator,
    provider::ToolCall, tool::Tool,
};
use serde_json::{Value, json};

mod support;

/// A 1×1 PNG, base64: what `weather_map` returns (Gemini's SDK decodes it and the script checks
/// the PNG signature survived).
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// A recorded reply (or stream: an array of events) of `tests/fixtures/provider/`.
fn fixture(name: &str) -> Value {
    let path = support::root().join("tests/fixtures/provider").join(name);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// The tools the recorded replies call, and `weather_map`, whose answer has an image.
fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    let location = json!({"type": "string", "description": "City and region, e.g. Paris, France"});
    let weather = object_schema(
        json!({"location": location, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}),
        &["location"],
    );
    let flag = json!({"type": "boolean"});
    let tools = [
        Tool::builder("get_weather", "weather")
            .description("Get the current weather in a location.")
            .parameters(weather.clone())
            .handler(|args: Value, _: &ToolContext| forecast(&args)),
        Tool::builder("get_current_weather", "weather")
            .description("Get the current weather in a location.")
            .parameters(weather)
            .handler(|args: Value, _: &ToolContext| forecast(&args)),
        Tool::builder("weather_map", "weather")
            .description("A map of the weather around a location.")
            .parameters(object_schema(json!({"location": location}), &["location"]))
            .handler(|args: Value, _: &ToolContext| {
                ToolContent::new()
                    .text(format!(
                        "Rain radar around {}",
                        args["location"].as_str().unwrap_or("?")
                    ))
                    .image(PNG, "image/png")
            }),
        Tool::builder("send_email", "mail")
            .description("Send an email.")
            .parameters(object_schema(
                json!({"to": {"type": "string"}, "body": {"type": "string"}}),
                &["to", "body"],
            ))
            .handler(|_: Value, _: &ToolContext| {
                Err::<Value, _>("sending email is turned off on this machine; tell the user")
            }),
        Tool::builder("power_disco_ball", "party")
            .description("Powers the spinning disco ball.")
            .parameters(object_schema(json!({"power": flag}), &["power"]))
            .handler(|args: Value, _: &ToolContext| json!({"disco_ball": args["power"]})),
        Tool::builder("start_music", "party")
            .description("Play some music matching the specified parameters.")
            .parameters(object_schema(
                json!({"energetic": flag, "loud": flag}),
                &["energetic", "loud"],
            ))
            .handler(|args: Value, _: &ToolContext| json!({"playing": true, "loud": args["loud"]})),
        Tool::builder("dim_lights", "party")
            .description("Dim the lights.")
            .parameters(object_schema(
                json!({"brightness": {"type": "number", "minimum": 0, "maximum": 1}}),
                &["brightness"],
            ))
            .handler(|args: Value, _: &ToolContext| json!({"brightness": args["brightness"]})),
    ];
    for tool in tools {
        registry.register(tool.build()).expect("the tool registers");
    }
    registry
}

fn forecast(args: &Value) -> Value {
    let unit = args["unit"].as_str().unwrap_or("celsius");
    let temperature = if unit == "fahrenheit" { 59 } else { 15 };
    json!({"location": args["location"], "temperature": temperature, "unit": unit, "conditions": "cloudy"})
}

/// One family's round trip: the calls of `reply` (and of `stream`), with `extra` calls appended.
struct RoundTrip {
    family: &'static str,
    format: Format,
    reply: &'static str,
    stream: Option<&'static str>,
    /// Ids for the two extra calls, in the provider's style (`None`: the provider sends none).
    extra_ids: [Option<&'static str>; 2],
}

impl RoundTrip {
    fn run(self) {
        let reply = fixture(self.reply);
        let calls =
            parse_calls(self.format, &reply).unwrap_or_else(|err| panic!("{}: {err}", self.reply));
        assert!(!calls.is_empty(), "{} has calls", self.reply);
        let streamed = self.stream.map(|name| {
            let Value::Array(events) = fixture(name) else {
                panic!("{name} is an array of events");
            };
            let mut accumulator = CallAccumulator::new(self.format);
            for event in &events {
                accumulator
                    .push(event)
                    .unwrap_or_else(|err| panic!("{name}: {err}"));
            }
            let calls = accumulator
                .finish()
                .unwrap_or_else(|err| panic!("{name}: {err}"));
            (events, calls)
        });

        // The model asks for a map too, and misspells a tool.
        let generated = |n: usize| format!("call_{n}");
        let id = |given: Option<&str>, n: usize| given.map_or_else(|| generated(n), str::to_owned);
        let mut all = calls.clone();
        all.push(ToolCall::new(
            id(self.extra_ids[0], calls.len()),
            "weather_map",
            r#"{"location": "Paris, France"}"#,
        ));
        all.push(ToolCall::new(
            id(self.extra_ids[1], calls.len() + 1),
            "get_wether",
            r#"{"location": "Paris, France"}"#,
        ));
        let answers = answer(&registry(), &all);
        assert!(answers.iter().any(ToolAnswer::is_error), "an error answer");
        assert!(
            answers.iter().any(|a| a.content().is_some()),
            "an image answer"
        );
        assert!(
            answers
                .last()
                .is_some_and(|a| a.as_str().contains("get_weather")),
            "the misspelled tool's answer names the right one: {:?}",
            answers.last()
        );
        let messages = answer_messages(self.format, all.iter().zip(&answers));

        let input = json!({
            "reply": reply,
            "stream": streamed.as_ref().map_or(Value::Null, |(events, _)| json!(events)),
            "answers": messages,
        });
        let report = sdk(self.family, &input);
        assert_eq!(
            calls_of(&report["calls"], &calls),
            calls,
            "{}: the calls {} reads in {}",
            self.family,
            report["sdk"],
            self.reply
        );
        if let Some((_, streamed)) = &streamed {
            assert_eq!(
                &calls_of(&report["stream_calls"], streamed),
                streamed,
                "{}: the calls {} assembles from the stream",
                self.family,
                report["sdk"]
            );
        }
        assert_eq!(
            report["checked"].as_u64(),
            Some(expected_checks(
                streamed.as_ref().map(|(events, _)| events.as_slice()),
                &messages,
                self.family
            )),
            "{}: every reply, event and message was checked: {report}",
            self.family
        );
        let rejected = report["rejected"].as_array().map_or(0, Vec::len);
        assert!(
            rejected >= 2,
            "{}: the wrong variants were refused: {report}",
            self.family
        );
        eprintln!(
            "{}: {} read {} call(s); {} answer message(s) valid; refused: {}",
            self.family,
            report["sdk"],
            calls.len(),
            messages.len(),
            report["rejected"]
        );
    }
}

/// Every call answered through the registry's pipeline (`registry.call`), in order.
fn answer(registry: &ToolRegistry, calls: &[ToolCall]) -> Vec<ToolAnswer> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let ctx = ToolContext::new();
    runtime.block_on(async {
        let mut answers = Vec::with_capacity(calls.len());
        for call in calls {
            answers.push(registry.call(&call.name, &call.arguments, &ctx).await);
        }
        answers
    })
}

/// The number of values the script validates: the reply, each event, and each answer message
/// (OpenAI tool messages twice: as a message, and as a tool message; Gemini contents twice: as a
/// value and as JSON; MCP's request twice: the envelope and its tools/call).
fn expected_checks(events: Option<&[Value]>, messages: &[Value], family: &str) -> u64 {
    // Anthropic's `ping` events have no type in its SDK, whose stream drops them.
    let events = events.map_or(0, |events| {
        events
            .iter()
            .filter(|event| event["type"] != "ping")
            .count()
    });
    let per_message: usize = match family {
        "openai" => messages
            .iter()
            .map(|m| if m["role"] == "tool" { 2 } else { 1 })
            .sum(),
        "gemini" => messages.len() * 2,
        _ => messages.len(),
    };
    let reply_checks = if family == "mcp" { 2 } else { 1 };
    (reply_checks + events + per_message) as u64
}

/// The SDK's calls as [`ToolCall`]s, its arguments (a JSON value) compared with ours by value;
/// a call the provider sent without an id takes the id `parse_calls` generated for it.
fn calls_of(sdk_calls: &Value, ours: &[ToolCall]) -> Vec<ToolCall> {
    let Some(sdk_calls) = sdk_calls.as_array() else {
        panic!("no calls in the SDK's report: {sdk_calls}");
    };
    sdk_calls
        .iter()
        .enumerate()
        .map(|(n, call)| {
            let id = call["id"]
                .as_str()
                .map_or_else(|| format!("call_{n}"), str::to_owned);
            let arguments = match ours.get(n) {
                // The same value: keep our text, so the comparison is of values, not spacing.
                Some(mine)
                    if serde_json::from_str::<Value>(&mine.arguments).ok().as_ref()
                        == Some(&call["arguments"]) =>
                {
                    mine.arguments.clone()
                }
                _ => call["arguments"].to_string(),
            };
            ToolCall::new(id, call["name"].as_str().unwrap_or_default(), arguments)
        })
        .collect()
}

/// tests/interop/provider_shapes.py on `input`: the SDK's report.
fn sdk(family: &str, input: &Value) -> Value {
    support::python_json("provider_shapes.py", family, input)
}

#[test]
#[ignore = "needs the providers' Python SDKs that `bash .ci/test` installs"]
fn openai_chat_completions_round_trip_through_the_openai_sdk() {
    RoundTrip {
        family: "openai",
        format: Format::OpenAi,
        reply: "openai_chat_completion.json",
        stream: Some("openai_chat_stream.json"),
        extra_ids: [Some("call_map123"), Some("call_typo456")],
    }
    .run();
}

#[test]
#[ignore = "needs the providers' Python SDKs that `bash .ci/test` installs"]
fn responses_round_trip_through_the_openai_sdk() {
    RoundTrip {
        family: "responses",
        format: Format::Responses,
        reply: "responses_response.json",
        stream: Some("responses_stream.json"),
        extra_ids: [Some("call_map123"), Some("call_typo456")],
    }
    .run();
}

#[test]
#[ignore = "needs the providers' Python SDKs that `bash .ci/test` installs"]
fn anthropic_messages_round_trip_through_the_anthropic_sdk() {
    RoundTrip {
        family: "anthropic",
        format: Format::Anthropic,
        reply: "anthropic_message.json",
        stream: Some("anthropic_stream.json"),
        extra_ids: [Some("toolu_01Map"), Some("toolu_01Typo")],
    }
    .run();
}

#[test]
#[ignore = "needs the providers' Python SDKs that `bash .ci/test` installs"]
fn gemini_round_trips_through_the_google_genai_sdk() {
    RoundTrip {
        family: "gemini",
        format: Format::Gemini,
        reply: "gemini_response.json",
        stream: None,
        // One id as Gemini 3 sends them, one missing (generated, and not echoed).
        extra_ids: [Some("fc-3a9e"), None],
    }
    .run();
}

#[test]
#[ignore = "needs the providers' Python SDKs that `bash .ci/test` installs"]
fn mcp_tools_calls_round_trip_through_the_mcp_sdk() {
    RoundTrip {
        family: "mcp",
        format: Format::Mcp,
        reply: "mcp_tools_call.json",
        stream: None,
        extra_ids: [Some("3"), Some("4")],
    }
    .run();
}
