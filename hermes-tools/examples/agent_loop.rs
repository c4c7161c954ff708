//! An agent loop's tool half, over each provider's reply: the definitions go out in the
//! provider's shape, the reply's tool calls come back, run as one turn, and the answers go back
//! as the messages that provider expects.
//!
//! The replies here are recorded, in the shapes each provider documents, so the example runs
//! offline; in an agent they are what the provider's API returned for the request carrying the
//! definitions. `cargo run -p hermes-tools --example agent_loop` prints each step.

use hermes_tools::provider::{answer_messages, parse_calls};
use hermes_tools::{
    CallOptions, DefinitionsRequest, Format, ToolContext, ToolRegistry, Turn, tool,
};
use serde_json::{Value, json};

/// Convert a temperature between Celsius and Fahrenheit.
///
/// # Arguments
/// * `degrees` - The temperature.
/// * `to` - The unit to convert to: "c" or "f".
#[tool(toolset = "units", read_only)]
fn convert(degrees: f64, to: Unit) -> Value {
    let converted = match to {
        Unit::C => (degrees - 32.0) * 5.0 / 9.0,
        Unit::F => degrees * 9.0 / 5.0 + 32.0,
    };
    json!({ "degrees": (converted * 10.0).round() / 10.0, "unit": to })
}

/// A temperature unit.
#[derive(Debug, Clone, Copy, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    /// Celsius.
    C,
    /// Fahrenheit.
    F,
}

/// What each provider's reply holds when its model calls `convert` twice.
fn recorded_reply(format: Format) -> Value {
    let (a, b) = (
        r#"{"degrees": 100, "to": "f"}"#,
        r#"{"degrees": "212", "to": "c"}"#,
    );
    match format {
        Format::OpenAi => json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "convert", "arguments": a}},
            {"id": "call_b", "type": "function", "function": {"name": "convert", "arguments": b}}
        ]}}]}),
        Format::Responses => json!({"output": [
            {"type": "function_call", "call_id": "call_a", "name": "convert", "arguments": a},
            {"type": "function_call", "call_id": "call_b", "name": "convert", "arguments": b}
        ]}),
        Format::Anthropic => json!({"role": "assistant", "content": [
            {"type": "text", "text": "Converting both."},
            {"type": "tool_use", "id": "toolu_a", "name": "convert", "input": {"degrees": 100, "to": "f"}},
            {"type": "tool_use", "id": "toolu_b", "name": "convert", "input": {"degrees": "212", "to": "c"}}
        ]}),
        Format::Gemini => json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "convert", "args": {"degrees": 100, "to": "f"}}},
            {"functionCall": {"name": "convert", "args": {"degrees": "212", "to": "c"}}}
        ]}}]}),
        other => unreachable!("no reply is recorded for {other:?}"),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = ToolRegistry::global();
    let ctx = ToolContext::new().with_session_id("example");
    for format in [
        Format::OpenAi,
        Format::Responses,
        Format::Anthropic,
        Format::Gemini,
    ] {
        let shown =
            registry.definitions(&DefinitionsRequest::all().enable(["units"]).format(format))?;
        println!("== {format:?}: {} definition(s) sent", shown.len());

        let calls = parse_calls(format, &recorded_reply(format))?;
        let turn = Turn::new().options(CallOptions::new().definitions(shown));
        let answers = registry.run_turn(&calls, &ctx, &turn).await;
        for (call, answer) in calls.iter().zip(&answers) {
            println!("{} {} -> {answer}", call.name, call.arguments);
            assert!(!answer.is_error(), "{answer}");
        }
        for message in answer_messages(format, calls.iter().zip(&answers)) {
            println!("  back to the model: {message}");
        }
    }
    Ok(())
}
