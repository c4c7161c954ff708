//! The CLI over the fixture tools, resources and prompts that the MCP conformance suite's
//! server scenarios use (`@modelcontextprotocol/conformance`), plus a tool that changes the
//! registry while clients are connected, to see `notifications/tools/list_changed` reach a
//! real client. The resources and prompts are declared with `#[resource]` and `#[prompt]`.
//! The `test_input_required_result_*` tools and the diagnostic tools of `server-stateless`
//! (`test_missing_capability`, `test_streaming_elicitation`, `test_logging_tool`,
//! `test_trigger_tool_change`) serve the suite's 2026-07-28 scenarios
//! (`tests/tests/mcp_conformance_2026.rs`).
//!
//! Run as `conformance-server serve --http 127.0.0.1:0` (or `serve` for stdio); see
//! `tests/tests/mcp_interop.rs`.

use std::process::ExitCode;
use std::sync::LazyLock;

use hermes_tools::{
    ToolContext, ToolRegistry, call::AskError, call::Elicitation, call::ElicitationReply,
    call::LogLevel, call::Sampling, call::ToolContent, mcp::prompts::Prompt,
    mcp::resources::ResourceBody, prompt, resource, tool, tool::Tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The toolset of every fixture.
const TOOLSET: &str = "conformance";

/// The name of the tool that [`add_fixture_tool`] registers.
const ADDED_LATER: &str = "added_later";

/// A registry holding only the fixtures, so the suite sees nothing else.
static REGISTRY: LazyLock<ToolRegistry> = LazyLock::new(|| {
    let registry = ToolRegistry::new();
    for tool in fixtures() {
        if let Err(err) = registry.register(tool) {
            eprintln!("error: a fixture tool was refused: {err}");
        }
    }
    registry
});

/// A WAV file of one silent sample (8 kHz, 8-bit mono), base64-encoded.
const SILENT_WAV: &str = "UklGRiUAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQEAAACA";

/// A 1x1 red PNG, base64-encoded.
const RED_PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// The fixture tools, declared with `#[tool(unlisted)]`: registered in [`REGISTRY`] only.
fn fixtures() -> [Tool; 35] {
    [
        Tool::from_decl(&TEST_SIMPLE_TEXT_TOOL),
        Tool::from_decl(&TEST_ERROR_HANDLING_TOOL),
        Tool::from_decl(&TEST_IMAGE_CONTENT_TOOL),
        Tool::from_decl(&JSON_SCHEMA_2020_12_TOOL_TOOL),
        Tool::from_decl(&TEST_AUDIO_CONTENT_TOOL),
        Tool::from_decl(&TEST_EMBEDDED_RESOURCE_TOOL),
        Tool::from_decl(&TEST_MULTIPLE_CONTENT_TYPES_TOOL),
        Tool::from_decl(&TEST_TOOL_WITH_LOGGING_TOOL),
        Tool::from_decl(&TEST_TOOL_WITH_PROGRESS_TOOL),
        Tool::from_decl(&TEST_RECONNECTION_TOOL),
        Tool::from_decl(&TEST_SAMPLING_TOOL),
        Tool::from_decl(&TEST_ELICITATION_TOOL),
        Tool::from_decl(&TEST_ELICITATION_SEP1034_DEFAULTS_TOOL),
        Tool::from_decl(&TEST_ELICITATION_SEP1330_ENUMS_TOOL),
        Tool::from_decl(&TOUCH_RESOURCE_TOOL),
        Tool::from_decl(&ADD_FIXTURE_TOOL_TOOL),
        Tool::from_decl(&TEST_INPUT_REQUIRED_RESULT_ELICITATION_TOOL),
        Tool::from_decl(&TEST_INPUT_REQUIRED_RESULT_SAMPLING_TOOL),
        Tool::from_decl(&TEST_INPUT_REQUIRED_RESULT_REQUEST_STATE_TOOL),
        Tool::from_decl(&TEST_INPUT_REQUIRED_RESULT_TAMPERED_STATE_TOOL),
        Tool::from_decl(&TEST_INPUT_REQUIRED_RESULT_MULTI_ROUND_TOOL),
        Tool::from_decl(&TEST_INPUT_REQUIRED_RESULT_CAPABILITIES_TOOL),
        Tool::from_decl(&TEST_MISSING_CAPABILITY_TOOL),
        Tool::from_decl(&TEST_STREAMING_ELICITATION_TOOL),
        Tool::from_decl(&TEST_LOGGING_TOOL_TOOL),
        Tool::from_decl(&TEST_TRIGGER_TOOL_CHANGE_TOOL),
        Tool::from_decl(&SLOW_STEPS_TOOL),
        Tool::from_decl(&GREET_IN_TASK_TOOL),
        Tool::from_decl(&GREET_TOOL),
        Tool::from_decl(&SLOW_COMPUTE_TOOL),
        failing_job(),
        test_tool_with_task(),
        Tool::from_decl(&PROTOCOL_ERROR_JOB_TOOL),
        Tool::from_decl(&CONFIRM_DELETE_TOOL),
        Tool::from_decl(&MULTI_INPUT_TOOL),
    ]
}

/// Return a simple text response, for the conformance suite (scenario tools-call-simple-text).
#[tool(toolset = "conformance", unlisted)]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Always fail, for the conformance suite (scenario tools-call-error).
#[tool(toolset = "conformance", unlisted)]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Return a 1x1 red PNG, for the conformance suite (scenario tools-call-image).
#[tool(toolset = "conformance", unlisted)]
fn test_image_content() -> ToolContent {
    ToolContent::new().image(RED_PIXEL, "image/png")
}

/// A street address (the suite expects it under `$defs` as `address`, with an `$anchor`).
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "address", extend("$anchor" = "addressDef"))]
struct Address {
    street: Option<String>,
    city: Option<String>,
}

/// How a person wants to be reached.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ContactMethod {
    Phone,
    Email,
}

/// A person, whose schema keeps `$defs`, `additionalProperties: false` and the 2020-12
/// keywords the scenario looks for: a phone or an email (`allOf` of `anyOf`), the phone when
/// it is the contact method (`if`/`then`/`else`).
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(extend(
    "allOf" = [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if" = {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then" = {"required": ["phone"]},
    "else" = {"required": ["email"]}
))]
struct Person {
    name: Option<String>,
    address: Option<Address>,
    contact_method: Option<ContactMethod>,
    phone: Option<String>,
    email: Option<String>,
}

/// Tool with JSON Schema 2020-12 features (scenario json-schema-2020-12: the schema reaches
/// the client as generated, `$defs` and all).
#[tool(toolset = "conformance", unlisted)]
fn json_schema_2020_12_tool(#[args] person: Person) -> Value {
    json!({"received": person})
}

/// Return a short WAV clip, for the conformance suite (scenario tools-call-audio).
#[tool(toolset = "conformance", unlisted)]
fn test_audio_content() -> ToolContent {
    ToolContent::new().audio(SILENT_WAV, "audio/wav")
}

/// Return an embedded text resource, for the conformance suite.
#[tool(toolset = "conformance", unlisted)]
fn test_embedded_resource() -> ToolContent {
    ToolContent::new().resource_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Return text, an image and a resource, for the conformance suite.
#[tool(toolset = "conformance", unlisted)]
fn test_multiple_content_types() -> ToolContent {
    ToolContent::new()
        .text("Multiple content types test:")
        .image(RED_PIXEL, "image/png")
        .resource_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        )
}

/// Log three messages while running, 50 ms apart, for the conformance suite.
#[tool(toolset = "conformance", unlisted)]
async fn test_tool_with_logging(ctx: &ToolContext) -> &'static str {
    let steps = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (i, step) in steps.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        ctx.log(LogLevel::Info, step);
    }
    "Logged three messages."
}

/// Report progress three times, then answer, for the conformance suite (the awaits between
/// reports let each go out while the call runs).
#[tool(toolset = "conformance", unlisted)]
async fn test_tool_with_progress(ctx: &ToolContext) -> &'static str {
    for (done, step) in [(0.0, "starting"), (50.0, "halfway"), (100.0, "done")] {
        ctx.progress(done, Some(100.0), step);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    "Progress reported three times."
}

/// Work `steps` steps of `step_ms` milliseconds each, reporting progress after each: a long
/// call, which a client that declared the tasks extension gets as a task (tests/mcp_tasks.rs).
///
/// # Arguments
/// * `steps` - How many steps.
/// * `step_ms` - How long each step takes, in milliseconds.
#[tool(toolset = "conformance", unlisted)]
async fn slow_steps(steps: u32, step_ms: u64, ctx: &ToolContext) -> String {
    for step in 1..=steps {
        tokio::time::sleep(std::time::Duration::from_millis(step_ms)).await;
        let message = format!("step {step} of {steps}");
        ctx.progress(f64::from(step), Some(f64::from(steps)), &message);
    }
    format!("finished {steps} steps")
}

/// Ask the user's name, then greet them: a task at once (`task`), whose question the client
/// answers with `tasks/update` (tests/mcp_tasks.rs).
#[tool(toolset = "conformance", unlisted, task)]
async fn greet_in_task(ctx: &ToolContext) -> Result<String, AskError> {
    let form = json!({
        "type": "object",
        "properties": {"name": {"type": "string", "description": "Your name"}},
        "required": ["name"]
    });
    let reply = ctx
        .elicit(Elicitation::new("Please enter your name.", form))
        .await?;
    let ElicitationReply::Accept(values) = reply else {
        return Ok(format!("Nobody to greet: {}", said(&reply)));
    };
    let values = Value::from(values);
    let name = values
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("stranger");
    Ok(format!("Hello, {name}!"))
}

/// Greet `name`: a sync-only tool, never a task (the suite's `tasks-*` scenarios).
///
/// # Arguments
/// * `name` - Who to greet.
#[tool(toolset = "conformance", unlisted)]
fn greet(name: String) -> ToolContent {
    // Content, so the text is the greeting itself (a `String` answer is sent as JSON).
    ToolContent::new().text(format!("Hello, {name}!"))
}

/// Sleep `seconds`, then answer: a task at once for a client that declared the tasks
/// extension, a plain call for any other (the suite's `tasks-*` scenarios). Cancelled, it
/// stops at once (the sleep is dropped).
///
/// # Arguments
/// * `seconds` - How long to work.
/// * `label` - Words to end the answer with, telling calls apart.
#[tool(toolset = "conformance", unlisted, task)]
async fn slow_compute(seconds: u64, label: Option<String>) -> String {
    tokio::time::sleep(std::time::Duration::from_secs(seconds)).await;
    let label = label.map(|label| format!(": {label}")).unwrap_or_default();
    format!("computed for {seconds} s{label}")
}

/// A task-only tool (task support `required`) that reports a failure after a second
/// (scenarios tasks-lifecycle, -dispatch-and-envelope: a task `completed` with `isError`;
/// tasks-required-task-error: a client without the tasks extension is refused with -32021).
fn failing_job() -> Tool {
    Tool::builder("failing_job", TOOLSET)
        .description("Fail after a second, as a task (task support required).")
        .task_required(true)
        .async_handler(|_args, _ctx| async {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            hermes_tools::ToolAnswer::error("failing_job always fails")
        })
        .build()
}

/// Ask the user's name, then become a task that greets them (scenario tasks-mrtr-composition,
/// task support `required`): the question is a Multi Round-Trip Request (`input_required`,
/// no task yet), and the retry that answers it gets the task handle at `become_task`, the
/// task's result naming the user.
fn test_tool_with_task() -> Tool {
    Tool::builder("test_tool_with_task", TOOLSET)
        .description("Ask the user's name, then greet them from a task (task support required).")
        .task_required(true)
        .asks_before_task(true)
        .async_handler(|_args, ctx| async move {
            let question = Elicitation::new("What is your name?", one_field("name", "string"))
                .with_key("user_name");
            let reply = ctx.elicit(question).await?;
            let name = field(&reply, "name").unwrap_or_else(|| "stranger".to_owned());
            ctx.become_task().await?;
            // The task's work, after the client has the handle.
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            Ok::<_, AskError>(ToolContent::new().text(format!("Hello, {name}!")))
        })
        .build()
}

/// Break (panic) after a moment, as a task (scenario tasks-lifecycle: a task `failed` with a
/// JSON-RPC error, not `completed`).
#[tool(toolset = "conformance", unlisted, task)]
async fn protocol_error_job() -> &'static str {
    // Long enough for the call to become a task first.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    panic!("protocol_error_job breaks on purpose");
}

/// Ask whether to delete `filename`, as a task (scenarios tasks-mrtr-input,
/// -dispatch-and-envelope: the task waits `input_required` for `tasks/update`). Deletes
/// nothing.
///
/// # Arguments
/// * `filename` - The file to ask about.
#[tool(toolset = "conformance", unlisted, task)]
async fn confirm_delete(filename: String, ctx: &ToolContext) -> Result<String, AskError> {
    let question = Elicitation::new(
        format!("Delete {filename}?"),
        one_field("confirm", "boolean"),
    );
    let reply = ctx.elicit(question).await?;
    Ok(match field(&reply, "confirm").as_deref() {
        Some("true") => format!("Deleted {filename}"),
        _ => format!("Kept {filename}: {}", said(&reply)),
    })
}

/// Ask two questions at once, as a task (scenario tasks-mrtr-input: both are pending
/// together, and may be answered one `tasks/update` at a time).
#[tool(toolset = "conformance", unlisted, task)]
async fn multi_input(ctx: &ToolContext) -> Result<String, AskError> {
    let (name, confirm) = tokio::join!(
        ctx.elicit(Elicitation::new(
            "What is your name?",
            one_field("name", "string")
        )),
        ctx.elicit(Elicitation::new(
            "Confirm?",
            one_field("confirm", "boolean")
        )),
    );
    let (name, confirm) = (name?, confirm?);
    Ok(format!(
        "name={}, confirm={}",
        field(&name, "name").unwrap_or_default(),
        field(&confirm, "confirm").unwrap_or_default()
    ))
}

/// Close this call's stream, then work and answer, for the conformance suite (scenario
/// server-sse-polling, SEP-1699): the client comes back with `Last-Event-ID` for the progress
/// and the answer.
///
/// # Arguments
/// * `tag` - Words to end the answer with, telling callers' answers apart.
/// * `times` - How many times to close the stream (default once); between two, the tool works
///   long enough for the client to be back.
#[tool(toolset = "conformance", unlisted)]
async fn test_reconnection(
    tag: Option<String>,
    times: Option<u32>,
    ctx: &ToolContext,
) -> Result<String, String> {
    // The suite's client comes back at once; the Python SDK's after `RETRY`.
    const RETRY: std::time::Duration = std::time::Duration::from_millis(500);
    let times = times.unwrap_or(1);
    for time in 1..=times {
        if time > 1 {
            tokio::time::sleep(RETRY * 3).await;
        }
        if !ctx.close_stream(RETRY).await {
            return Err(
                "this call's stream could not be closed: call over Streamable HTTP, \
                        in a session"
                    .to_owned(),
            );
        }
        ctx.progress(
            f64::from(time),
            Some(f64::from(times)),
            format!("worked while the client was away ({time})"),
        );
    }
    let tag = tag.map(|tag| format!(": {tag}")).unwrap_or_default();
    Ok(format!("Reconnection test completed{tag}"))
}

/// Ask the client's model to answer a prompt, for the conformance suite (a sync `blocking`
/// tool, as a tool that asks from its own thread is).
///
/// # Arguments
/// * `prompt` - What to ask the model.
#[tool(toolset = "conformance", unlisted, blocking)]
fn test_sampling(prompt: String, ctx: &ToolContext) -> Result<String, AskError> {
    let reply = ctx.sample_blocking(Sampling::new(prompt, 100))?;
    Ok(format!("LLM response: {}", reply.text))
}

/// Ask the client's user for a name and an email, for the conformance suite (a sync
/// `blocking` tool, as `clarify` is).
///
/// # Arguments
/// * `message` - What to tell the user.
#[tool(toolset = "conformance", unlisted, blocking)]
fn test_elicitation(message: String, ctx: &ToolContext) -> Result<String, AskError> {
    let form = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    let reply = ctx.elicit_blocking(Elicitation::new(message, form))?;
    Ok(format!("User response: {}", said(&reply)))
}

/// Ask with a default for every primitive type, for the conformance suite (SEP-1034).
#[tool(toolset = "conformance", unlisted)]
async fn test_elicitation_sep1034_defaults(ctx: &ToolContext) -> Result<String, AskError> {
    let form = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }
    });
    let reply = ctx
        .elicit(Elicitation::new("Confirm your profile", form))
        .await?;
    Ok(format!("Elicitation completed: {}", said(&reply)))
}

/// Ask with each kind of enum of the 2025-11-25 schema, for the conformance suite (SEP-1330).
#[tool(toolset = "conformance", unlisted)]
async fn test_elicitation_sep1330_enums(ctx: &ToolContext) -> Result<String, AskError> {
    let titled = |prefix: &str, word: &str| {
        json!([
            {"const": format!("{prefix}1"), "title": format!("First {word}")},
            {"const": format!("{prefix}2"), "title": format!("Second {word}")},
            {"const": format!("{prefix}3"), "title": format!("Third {word}")}
        ])
    };
    let form = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": titled("value", "Option")},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": titled("value", "Choice")}}
        }
    });
    let reply = ctx
        .elicit(Elicitation::new("Pick your options", form))
        .await?;
    Ok(format!("Elicitation completed: {}", said(&reply)))
}

/// Announce that the resource at `uri` changed: sessions subscribed to it are told.
///
/// # Arguments
/// * `uri` - The resource that changed.
#[tool(toolset = "conformance", unlisted)]
fn touch_resource(uri: String) -> Value {
    hermes_tools::mcp::resources::updated(&uri);
    json!({"updated": uri})
}

/// Register the tool `added_later`, changing the tool list.
#[tool(toolset = "conformance", unlisted)]
fn add_fixture_tool() -> Value {
    let tool = Tool::builder(ADDED_LATER, TOOLSET)
        .description("Registered at run time by add_fixture_tool.")
        .handler(|_args, _ctx| "added")
        .build();
    match REGISTRY.register(tool) {
        Ok(_) => json!({"registered": ADDED_LATER}),
        Err(err) => json!({"error": err.to_string()}),
    }
}

/// A form of one required property `name` of type `type`.
fn one_field(name: &str, kind: &str) -> Value {
    json!({
        "type": "object",
        "properties": {name: {"type": kind}},
        "required": [name]
    })
}

/// The value of property `name` in an accepted answer, as text.
fn field(reply: &ElicitationReply, name: &str) -> Option<String> {
    match reply {
        ElicitationReply::Accept(values) => values.get(name).map(|value| match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }),
        _ => None,
    }
}

/// Ask the user's name under the key `user_name`, then greet them (scenarios
/// input-required-result-basic-elicitation, -result-type, -missing-input-response,
/// -ignore-extra-params, -validate-input of the 2026-07-28 era).
#[tool(toolset = "conformance", unlisted)]
async fn test_input_required_result_elicitation(ctx: &ToolContext) -> Result<String, AskError> {
    let question =
        Elicitation::new("What is your name?", one_field("name", "string")).with_key("user_name");
    let reply = ctx.elicit(question).await?;
    let name = field(&reply, "name").unwrap_or_else(|| "stranger".to_owned());
    Ok(format!("Hello, {name}!"))
}

/// Ask the client's model a question (scenario input-required-result-basic-sampling).
#[tool(toolset = "conformance", unlisted)]
async fn test_input_required_result_sampling(ctx: &ToolContext) -> Result<String, AskError> {
    let reply = ctx
        .sample(Sampling::new("What is the capital of France?", 100))
        .await?;
    Ok(format!("The model said: {}", reply.text))
}

/// Ask for a confirmation, the round's state sealed (scenario
/// input-required-result-request-state).
#[tool(toolset = "conformance", unlisted)]
async fn test_input_required_result_request_state(ctx: &ToolContext) -> Result<String, AskError> {
    let question =
        Elicitation::new("Please confirm", one_field("ok", "boolean")).with_key("confirm");
    let reply = ctx.elicit(question).await?;
    Ok(format!(
        "Confirmed: {}",
        field(&reply, "ok").unwrap_or_default()
    ))
}

/// Ask for a confirmation; a retry with an altered state must be refused (scenario
/// input-required-result-tampered-state).
#[tool(toolset = "conformance", unlisted)]
async fn test_input_required_result_tampered_state(ctx: &ToolContext) -> Result<String, AskError> {
    let question =
        Elicitation::new("Please confirm", one_field("ok", "boolean")).with_key("confirm");
    let reply = ctx.elicit(question).await?;
    Ok(format!(
        "Confirmed: {}",
        field(&reply, "ok").unwrap_or_default()
    ))
}

/// Ask two questions, one per round (scenario input-required-result-multi-round): the second
/// round's state carries the first answer.
#[tool(toolset = "conformance", unlisted)]
async fn test_input_required_result_multi_round(ctx: &ToolContext) -> Result<String, AskError> {
    let name = ctx
        .elicit(
            Elicitation::new("Step 1: What is your name?", one_field("name", "string"))
                .with_key("step1"),
        )
        .await?;
    let color = ctx
        .elicit(
            Elicitation::new(
                "Step 2: What is your favorite color?",
                one_field("color", "string"),
            )
            .with_key("step2"),
        )
        .await?;
    Ok(format!(
        "{} likes {}",
        field(&name, "name").unwrap_or_default(),
        field(&color, "color").unwrap_or_default()
    ))
}

/// Ask the user if the client can elicit, else its model (scenario
/// input-required-result-capability-check: a client that declared sampling alone is never
/// sent an elicitation).
#[tool(toolset = "conformance", unlisted)]
async fn test_input_required_result_capabilities(ctx: &ToolContext) -> Result<String, AskError> {
    if ctx.can_elicit() {
        let reply = ctx
            .elicit(Elicitation::new(
                "What is your name?",
                one_field("name", "string"),
            ))
            .await?;
        return Ok(format!(
            "Hello, {}!",
            field(&reply, "name").unwrap_or_default()
        ));
    }
    let reply = ctx.sample(Sampling::new("Say hello.", 50)).await?;
    Ok(format!("The model said: {}", reply.text))
}

/// Ask the client's model, whatever the client declared (scenario server-stateless: a client
/// that did not declare sampling gets -32021 naming it).
#[tool(toolset = "conformance", unlisted)]
async fn test_missing_capability(ctx: &ToolContext) -> Result<String, AskError> {
    let reply = ctx.sample(Sampling::new("Say hello.", 50)).await?;
    Ok(format!("The model said: {}", reply.text))
}

/// Ask the user, from a call whose response is a stream (scenario server-stateless: the
/// question travels in the result, never as a request of the server's own).
#[tool(toolset = "conformance", unlisted)]
async fn test_streaming_elicitation(ctx: &ToolContext) -> Result<String, AskError> {
    let reply = ctx
        .elicit(Elicitation::new(
            "What is your name?",
            one_field("name", "string"),
        ))
        .await?;
    Ok(format!(
        "Hello, {}!",
        field(&reply, "name").unwrap_or_default()
    ))
}

/// Log a message (scenario server-stateless: a request without `logLevel` in its `_meta`
/// hears no log message).
#[tool(toolset = "conformance", unlisted)]
fn test_logging_tool(ctx: &ToolContext) -> &'static str {
    ctx.log(LogLevel::Info, "test_logging_tool ran");
    "Logged one message."
}

/// How many tools [`test_trigger_tool_change`] registered.
static TRIGGERED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Change the tool list: register one more tool, `changed_N` (scenario server-stateless:
/// `subscriptions/listen` streams that asked for tool list changes hear of it).
#[tool(toolset = "conformance", unlisted)]
fn test_trigger_tool_change() -> Value {
    let n = TRIGGERED.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    let name = format!("changed_{n}");
    let tool = Tool::builder(name.as_str(), TOOLSET)
        .description("Registered at run time by test_trigger_tool_change.")
        .handler(|_args, _ctx| "changed")
        .build();
    match REGISTRY.register(tool) {
        Ok(_) => json!({"registered": name}),
        Err(err) => json!({"error": err.to_string()}),
    }
}

/// The static text resource of scenario resources-read-text.
#[resource(uri = "test://static-text", mime_type = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// The static binary resource of scenario resources-read-binary: a 1x1 red PNG.
#[resource(uri = "test://static-binary", mime_type = "image/png")]
fn static_binary() -> ResourceBody {
    ResourceBody::Blob(RED_PIXEL.to_owned())
}

/// Data for one id, the template of scenario resources-templates-read (an `async fn`, as a
/// resource that awaits a database would be).
#[resource(uri = "test://template/{id}/data", mime_type = "application/json")]
async fn template_data(id: String) -> String {
    tokio::task::yield_now().await;
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

/// The resource scenarios resources-subscribe and -unsubscribe watch.
#[resource(uri = "test://watched-resource")]
fn watched_resource() -> &'static str {
    "The watched resource."
}

/// A prompt without arguments, for scenario prompts-get-simple.
#[prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two arguments, for scenarios prompts-get-with-args and completion-complete.
///
/// # Arguments
/// * `arg1` - First test argument
/// * `arg2` - Second test argument
#[prompt(complete = suggest)]
fn test_prompt_with_arguments(arg1: String, arg2: String) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// Suggestions for any argument: the words that begin with what is typed.
fn suggest(_argument: &str, typed: &str) -> Vec<String> {
    ["paris", "park", "party"]
        .into_iter()
        .filter(|word| word.starts_with(typed))
        .map(str::to_owned)
        .collect()
}

/// A prompt embedding a resource, for scenario prompts-get-embedded-resource.
///
/// # Arguments
/// * `resourceUri` - URI of the resource to embed
#[prompt]
#[allow(non_snake_case)]
fn test_prompt_with_embedded_resource(resourceUri: String) -> Prompt {
    Prompt::new()
        .user_resource_text(
            resourceUri,
            "text/plain",
            "Embedded resource content for testing.",
        )
        .user("Please process the embedded resource above.")
}

/// A prompt showing an image, for scenario prompts-get-with-image.
#[prompt]
fn test_prompt_with_image() -> Prompt {
    Prompt::new()
        .user_image(RED_PIXEL, "image/png")
        .user("Please analyze the image above.")
}

/// An elicitation's outcome as the scenarios print it: the action and the values.
fn said(reply: &ElicitationReply) -> String {
    match reply {
        ElicitationReply::Accept(values) => {
            format!("action=accept, content={}", Value::from(values.clone()))
        }
        ElicitationReply::Decline => "action=decline, content={}".to_owned(),
        ElicitationReply::Cancel => "action=cancel, content={}".to_owned(),
    }
}

fn main() -> ExitCode {
    hermes_tools::cli::Cli::new()
        .registry(REGISTRY.clone())
        .run()
}
