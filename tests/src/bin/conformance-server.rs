//! The CLI over the fixture tools, resources and prompts that the MCP conformance suite's
//! server scenarios use (`@modelcontextprotocol/conformance`), plus a tool that changes the
//! registry while clients are connected, to see `notifications/tools/list_changed` reach a
//! real client. The resources and prompts are declared with `#[resource]` and `#[prompt]`.
//!
//! Run as `conformance-server serve --http 127.0.0.1:0` (or `serve` for stdio); see
//! `tests/tests/mcp_interop.rs`.

use std::process::ExitCode;
use std::sync::LazyLock;

use hermes_tools::{
    AskError, Elicitation, ElicitationReply, LogLevel, Prompt, ResourceBody, Sampling, Tool,
    ToolContent, ToolRegistry, prompt, resource,
};
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

fn fixtures() -> [Tool; 15] {
    [
        // Scenario tools-call-simple-text.
        Tool::builder("test_simple_text", TOOLSET)
            .description("Return a simple text response, for the conformance suite.")
            .handler(|_args, _ctx| "This is a simple text response for testing.")
            .build(),
        // Scenario tools-call-error.
        Tool::builder("test_error_handling", TOOLSET)
            .description("Always fail, for the conformance suite.")
            .handler(|_args, _ctx| {
                Err::<Value, _>("This tool intentionally returns an error for testing")
            })
            .build(),
        // Scenario tools-call-image.
        Tool::builder("test_image_content", TOOLSET)
            .description("Return a 1x1 red PNG, for the conformance suite.")
            .handler(|_args, _ctx| ToolContent::new().image(RED_PIXEL, "image/png"))
            .build(),
        // Scenario json-schema-2020-12: the schema must reach the client as declared.
        Tool::builder("json_schema_2020_12_tool", TOOLSET)
            .description("Tool with JSON Schema 2020-12 features")
            .parameters(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "type": "object",
                        "properties": {
                            "street": {"type": "string"},
                            "city": {"type": "string"}
                        }
                    }
                },
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"}
                },
                "additionalProperties": false
            }))
            .handler(|args, _ctx| json!({"received": args}))
            .build(),
        // Scenario tools-call-audio.
        Tool::builder("test_audio_content", TOOLSET)
            .description("Return a short WAV clip, for the conformance suite.")
            .handler(|_args, _ctx| ToolContent::new().audio(SILENT_WAV, "audio/wav"))
            .build(),
        // Scenario tools-call-embedded-resource.
        Tool::builder("test_embedded_resource", TOOLSET)
            .description("Return an embedded text resource, for the conformance suite.")
            .handler(|_args, _ctx| {
                ToolContent::new().resource_text(
                    "test://embedded-resource",
                    "text/plain",
                    "This is an embedded resource content.",
                )
            })
            .build(),
        // Scenario tools-call-mixed-content.
        Tool::builder("test_multiple_content_types", TOOLSET)
            .description("Return text, an image and a resource, for the conformance suite.")
            .handler(|_args, _ctx| {
                ToolContent::new()
                    .text("Multiple content types test:")
                    .image(RED_PIXEL, "image/png")
                    .resource_text(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    )
            })
            .build(),
        // Scenario tools-call-with-logging: three messages at info, 50 ms apart.
        Tool::builder("test_tool_with_logging", TOOLSET)
            .description("Log three messages while running, for the conformance suite.")
            .async_handler(|_args, ctx| async move {
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
            })
            .build(),
        // Scenario tools-call-with-progress: three growing reports, the awaits between them
        // letting each go out while the call runs.
        Tool::builder("test_tool_with_progress", TOOLSET)
            .description("Report progress three times, then answer, for the conformance suite.")
            .async_handler(|_args, ctx| async move {
                for (done, step) in [(0.0, "starting"), (50.0, "halfway"), (100.0, "done")] {
                    ctx.progress(done, Some(100.0), step);
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                "Progress reported three times."
            })
            .build(),
        // Scenario tools-call-sampling: the client's model, asked through the context.
        Tool::builder("test_sampling", TOOLSET)
            .description("Ask the client's model to answer a prompt, for the conformance suite.")
            .parameters(json!({
                "type": "object",
                "properties": {"prompt": {"type": "string"}},
                "required": ["prompt"]
            }))
            .async_handler(|args, ctx| async move {
                let prompt = args["prompt"].as_str().unwrap_or_default().to_owned();
                let reply = ctx.sample(Sampling::new(prompt, 100)).await?;
                Ok::<_, AskError>(format!("LLM response: {}", reply.text))
            })
            .build(),
        // Scenario tools-call-elicitation: the client's user, asked through the context.
        Tool::builder("test_elicitation", TOOLSET)
            .description("Ask the client's user for a name and an email, for the conformance suite.")
            .parameters(json!({
                "type": "object",
                "properties": {"message": {"type": "string"}},
                "required": ["message"]
            }))
            .async_handler(|args, ctx| async move {
                let message = args["message"].as_str().unwrap_or_default().to_owned();
                let form = json!({
                    "type": "object",
                    "properties": {
                        "username": {"type": "string", "description": "User's response"},
                        "email": {"type": "string", "description": "User's email address"}
                    },
                    "required": ["username", "email"]
                });
                let reply = ctx.elicit(Elicitation::new(message, form)).await?;
                Ok::<_, AskError>(format!("User response: {}", said(&reply)))
            })
            .build(),
        // Scenario elicitation-sep1034-defaults: a default for every primitive type.
        Tool::builder("test_elicitation_sep1034_defaults", TOOLSET)
            .description("Ask with a default for every field, for the conformance suite.")
            .async_handler(|_args, ctx| async move {
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
                let reply = ctx.elicit(Elicitation::new("Confirm your profile", form)).await?;
                Ok::<_, AskError>(format!("Elicitation completed: {}", said(&reply)))
            })
            .build(),
        // Scenario elicitation-sep1330-enums: every enum form of the 2025-11-25 schema.
        Tool::builder("test_elicitation_sep1330_enums", TOOLSET)
            .description("Ask with each kind of enum, for the conformance suite.")
            .async_handler(|_args, ctx| async move {
                let form = json!({
                    "type": "object",
                    "properties": {
                        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                        "titledSingle": {"type": "string", "oneOf": [
                            {"const": "value1", "title": "First Option"},
                            {"const": "value2", "title": "Second Option"},
                            {"const": "value3", "title": "Third Option"}
                        ]},
                        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                                       "enumNames": ["Option One", "Option Two", "Option Three"]},
                        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                        "titledMulti": {"type": "array", "items": {"anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}
                        ]}}
                    }
                });
                let reply = ctx.elicit(Elicitation::new("Pick your options", form)).await?;
                Ok::<_, AskError>(format!("Elicitation completed: {}", said(&reply)))
            })
            .build(),
        // Says a resource changed: sessions subscribed to it are told.
        Tool::builder("touch_resource", TOOLSET)
            .description("Announce that the resource at `uri` changed.")
            .parameters(json!({
                "type": "object",
                "properties": {"uri": {"type": "string"}},
                "required": ["uri"]
            }))
            .handler(|args, _ctx| {
                let uri = args["uri"].as_str().unwrap_or_default();
                hermes_tools::resources::updated(uri);
                json!({"updated": uri})
            })
            .build(),
        Tool::builder("add_fixture_tool", TOOLSET)
            .description("Register the tool `added_later`, changing the tool list.")
            .handler(|_args, _ctx| add_fixture_tool())
            .build(),
    ]
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

/// Registers [`ADDED_LATER`] in the served registry, as a plugin or an MCP refresh would.
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

fn main() -> ExitCode {
    hermes_tools::cli::Cli::new()
        .registry(REGISTRY.clone())
        .run()
}
