//! `delegate_task`: run several tool calls at once, through the call pipeline.
//!
//! Its description states the concurrency limit in force, read from the config
//! (`[tools.delegate_task] max_concurrency`, default [`DEFAULT_MAX_CONCURRENCY`]) by a
//! `dynamic_schema` function, so the model is told the limit that actually applies.

use futures_util::StreamExt;
use futures_util::stream;
use hermes_tools::{
    ToolContext, ToolRegistry, config::Config, tool, tool::SchemaContext, tool::SchemaOverride,
};
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

/// The concurrency limit `config` sets, at least 1.
pub fn max_concurrency(config: &Config) -> usize {
    config
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
    dynamic_schema = describe_limit,
    // Each call's arguments are whatever the called tool takes: a free-form object strict
    // mode cannot express. The called tool validates them against its own schema.
    acknowledge(
        rule = "strict-mode",
        reason = "each call's `arguments` are the called tool's, free-form here and validated by that tool"
    )
)]
pub async fn delegate_task(calls: Vec<DelegatedCall>, ctx: &ToolContext) -> Vec<Value> {
    // The registry running this call (called as a plain function: the global one).
    let registry = ctx.registry().unwrap_or_else(ToolRegistry::global);
    let limit = max_concurrency(&registry.config());
    stream::iter(calls)
        .map(|call| {
            let (ctx, registry) = (ctx.clone(), registry.clone());
            async move {
                let arguments = Value::Object(call.arguments).to_string();
                registry.call(&call.tool, &arguments, &ctx).await.to_value()
            }
        })
        .buffered(limit)
        .collect()
        .await
}

fn describe_limit(context: &SchemaContext<'_>) -> SchemaOverride {
    SchemaOverride {
        description: Some(format!(
            "{}\n\nAt most {} calls run at the same time; the rest wait their turn.",
            DELEGATE_TASK_TOOL.description,
            max_concurrency(context.config())
        )),
        parameters: None,
    }
}

#[cfg(test)]
mod tests {
    use hermes_tools::{CallOptions, DefinitionsRequest};
    use serde_json::json;

    use super::*;

    fn description(registry: &ToolRegistry) -> String {
        let request = DefinitionsRequest::all().enable(["delegation"]);
        let definitions = registry.definitions(&request).unwrap();
        definitions[0]["function"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn the_description_follows_the_configured_limit_of_its_registry() {
        let registry = ToolRegistry::linked();
        let other = ToolRegistry::linked();
        assert!(
            description(&registry)
                .ends_with("At most 3 calls run at the same time; the rest wait their turn.")
        );
        let config = Config::from_toml_str("[tools.delegate_task]\nmax_concurrency = 5\n").unwrap();
        registry.set_config(config);
        assert!(
            description(&registry)
                .ends_with("At most 5 calls run at the same time; the rest wait their turn.")
        );
        assert_eq!(max_concurrency(&registry.config()), 5);
        assert!(
            description(&other)
                .ends_with("At most 3 calls run at the same time; the rest wait their turn."),
            "another registry keeps its own config"
        );
    }

    #[test]
    fn calls_run_through_the_pipeline_of_the_calling_registry_in_order() {
        let options = CallOptions::new().from_agent_loop();
        let args = json!({"calls": [
            {"tool": "todo", "arguments": {}},
            {"tool": "nope", "arguments": {}},
            {"tool": "delegate_task", "arguments": {"calls": []}}
        ]})
        .to_string();
        let answer = ToolRegistry::global().call_blocking_with(
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
