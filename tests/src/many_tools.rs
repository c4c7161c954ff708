//! N generated tools, declared both ways: through the runtime's API ([`registry`]:
//! [`Tool::builder`] and [`ToolRegistry::register`]) and as `rmcp` tools in a [`ToolRouter`]
//! ([`RmcpMany`]), each with the same name, description and two-parameter schema, for the
//! benches of lists and memory at scale (`benches/mcp_list.rs`, `benches/tool_memory.rs`).

use std::sync::Arc;

use hermes_tools::{ToolContext, ToolRegistry, tool::Tool};
use rmcp::ErrorData;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

/// The name of the `i`th tool: `tool_00042`, so names sort as the tools were made.
pub fn name(i: usize) -> String {
    format!("tool_{i:05}")
}

/// The description of the `i`th tool.
pub fn description(i: usize) -> String {
    format!("Add two integers (generated tool {i}).")
}

/// The parameter schema every tool has (a fresh value each time, as a generated or a
/// server's tool has its own): two described integers, both required.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "The first addend."},
            "b": {"type": "integer", "description": "The second addend."}
        },
        "required": ["a", "b"]
    })
}

/// The sum of `a` and `b` in `args`, as text.
fn add(args: &Value) -> String {
    let int = |key: &str| args.get(key).and_then(Value::as_i64).unwrap_or_default();
    (int("a") + int("b")).to_string()
}

/// The `i`th tool, built through the runtime's API.
pub fn tool(i: usize) -> Tool {
    Tool::builder(name(i), "many")
        .description(description(i))
        .parameters(schema())
        .handler(|args: Value, _: &ToolContext| add(&args))
        .build()
}

/// A registry of `n` generated tools.
pub fn registry(n: usize) -> ToolRegistry {
    let registry = ToolRegistry::new();
    for i in 0..n {
        registry
            .register(tool(i))
            .expect("a generated tool registers");
    }
    registry
}

/// `rmcp`'s server of `n` generated tools: a [`ToolRouter`] of dynamic routes, served as
/// `#[tool_handler]` serves one (`tools/list` is the router's `list_all`).
#[derive(Clone)]
pub struct RmcpMany {
    router: Arc<ToolRouter<RmcpMany>>,
}

impl RmcpMany {
    /// The server of `n` tools.
    pub fn new(n: usize) -> Self {
        Self {
            router: Arc::new(router(n)),
        }
    }
}

/// The router of `n` generated tools.
pub fn router(n: usize) -> ToolRouter<RmcpMany> {
    let mut router = ToolRouter::new();
    for i in 0..n {
        let Value::Object(schema) = schema() else {
            unreachable!("the schema is an object")
        };
        let tool = rmcp::model::Tool::new(name(i), description(i), Arc::new(schema));
        router.add_route(ToolRoute::new_dyn(tool, |context| {
            let args = context
                .arguments
                .clone()
                .map_or(Value::Null, |args: JsonObject| Value::Object(args));
            Box::pin(async move {
                let text = add(&args);
                Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                    ContentBlock::text(text),
                ])))
            })
        }));
    }
    router
}

impl rmcp::ServerHandler for RmcpMany {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.router.list_all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let context = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        self.router.call(context).await
    }
}
