//! `delegate_task`: run several tool calls at once, through the call pipeline.
//!
//! Its description states the concurrency limit in force, read from the config
//! (`[tools.delegate_task] max_concurrency`, default [`DEFAULT_MAX_CONCURRENCY`]) by a
//! `dynamic_schema` function, so the model is told the limit that actually applies.

use futures_util::StreamExt;
use futures_util::stream;
use hermes_tools::{SchemaContext, SchemaOverride, ToolContext, ToolRegistry, config, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// How many delegated calls run at once when the config does not say.
pub const DEFAULT_MAX_CONCURRENCY: usize = 3;

/// One tool call to run.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DelegatedCall {
    /// The tool to call.
    pub tool: String,
    /// Its arguments, a JSON object.
    #[serde(default)]
    pub arguments: serde_json::Map<String, Value>,
}

/// The concurrency limit in force: the config's, at least 1.
pub fn max_concurrency() -> usize {
    config::current()
        .tool_setting::<usize>("delegate_task", "max_concurrency")
        .unwrap_or(DEFAULT_MAX_CONCURRENCY)
        .max(1)
}

/// Run several independent tool calls concurrently and return their answers in order.
///
/// Each call goes through the same checks as a direct call (hooks, approvals, timeouts).
/// Use it for independent work only: a call never sees another call's result.
///
/// # Arguments
/// * `calls` - The calls to run, each a tool name and its arguments.
#[tool(
    toolset = "delegation",
    emoji = "🔀",
    dynamic_schema = describe_limit
)]
pub async fn delegate_task(calls: Vec<DelegatedCall>, ctx: &ToolContext) -> Vec<Value> {
    let limit = max_concurrency();
    stream::iter(calls)
        .map(|call| {
            let ctx = ctx.clone();
            async move {
                let arguments = Value::Object(call.arguments).to_string();
                ToolRegistry::global()
                    .handle_function_call_async(&call.tool, &arguments, &ctx)
                    .await
                    .to_value()
            }
        })
        .buffered(limit)
        .collect()
        .await
}

fn describe_limit(_: &SchemaContext<'_>) -> SchemaOverride {
    SchemaOverride {
        description: Some(format!(
            "{}\n\nAt most {} calls run at the same time; the rest wait their turn.",
            DELEGATE_TASK_TOOL.description,
            max_concurrency()
        )),
        parameters: None,
    }
}

#[cfg(test)]
mod tests {
    use hermes_tools::definitions::DefinitionsRequest;
    use hermes_tools::pipeline::CallOptions;
    use serde_json::json;

    use super::*;

    fn description() -> String {
        let request = DefinitionsRequest::all().enable(["delegation"]);
        let definitions = ToolRegistry::global().definitions(&request).unwrap();
        definitions[0]["function"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn the_description_follows_the_configured_limit() {
        // The only test in this crate that installs a config.
        assert!(
            description()
                .ends_with("At most 3 calls run at the same time; the rest wait their turn.")
        );
        let config =
            config::Config::from_toml_str("[tools.delegate_task]\nmax_concurrency = 5\n").unwrap();
        config::install(config);
        assert!(
            description()
                .ends_with("At most 5 calls run at the same time; the rest wait their turn.")
        );
        assert_eq!(max_concurrency(), 5);
        config::install(config::Config::default());
    }

    #[test]
    fn calls_run_through_the_pipeline_in_order() {
        let options = CallOptions {
            from_agent_loop: true,
            ..CallOptions::default()
        };
        let args = json!({"calls": [
            {"tool": "todo", "arguments": {}},
            {"tool": "nope", "arguments": {}},
            {"tool": "delegate_task", "arguments": {"calls": []}}
        ]})
        .to_string();
        let answer = ToolRegistry::global().handle_function_call_with(
            "delegate_task",
            &args,
            &ToolContext::new().with_session_id("delegate-test"),
            &options,
        );
        let answers = answer.to_value();
        assert_eq!(
            answers[0]["error"],
            "todo must be handled by the agent loop"
        );
        assert!(
            answers[1]["error"]
                .as_str()
                .unwrap()
                .contains("Unknown tool")
        );
        assert_eq!(
            answers[2]["error"], "delegate_task must be handled by the agent loop",
            "a delegated call cannot delegate again"
        );
    }
}
