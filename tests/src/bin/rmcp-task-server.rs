//! `rmcp`'s own server with tasks (`io.modelcontextprotocol/tasks`, SEP-2663) over Streamable
//! HTTP, for the client's tests against it in the 2026-07-28 era
//! (`tests/mcp_client_rmcp_tasks.rs`). The tasks are rmcp's: its `TaskManager` runs them and
//! answers `tasks/get`, `tasks/update` and `tasks/cancel`; this server only says which calls
//! become tasks (those of a client that declared the extension) and what they do.
//!
//! `rmcp-task-server serve --http ADDR` prints `listening on URL` on stderr, as `serve --http`
//! of the CLI does. Its tools:
//! - `slow_steps {steps, step_ms}`: a task taking `steps` steps, each step its status message,
//!   stopping at a `tasks/cancel`;
//! - `greet_in_task`: a task asking the user's name inside the task (`input_required`, answered
//!   with `tasks/update`), then greeting it;
//! - `seen_cancels`: the ids of the tasks whose work stopped at a `tasks/cancel`, as JSON.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, GetTaskParams, GetTaskResult, InputRequest, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// The arguments of `slow_steps`.
#[derive(Debug, Deserialize, JsonSchema)]
struct Steps {
    /// How many steps.
    steps: u32,
    /// How long each step takes, in milliseconds.
    step_ms: u64,
}

/// The server: rmcp's task manager, and the tasks whose work a cancel stopped.
#[derive(Clone)]
struct TaskServer {
    tool_router: ToolRouter<Self>,
    tasks: TaskManager,
    cancelled: Arc<Mutex<Vec<String>>>,
}

/// A call's response: a task when the client declared the extension (rmcp refuses a task handle
/// to one that did not), else the work done within the call.
async fn run(
    server: &TaskServer,
    context: &RequestContext<RoleServer>,
    work: impl FnOnce(TaskContext) -> rmcp::task_manager::TaskFuture,
) -> Result<CallToolResponse, ErrorData> {
    let declared = context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks());
    if !declared {
        return Err(ErrorData::invalid_request(
            "this tool runs only as a task: declare the io.modelcontextprotocol/tasks extension",
            None,
        ));
    }
    let options = TaskOptions::new()
        .with_poll_interval_ms(100)
        .with_status_message("started");
    let task = server.tasks.spawn(options, work);
    Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
}

#[tool_router]
impl TaskServer {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
            tasks: TaskManager::new(),
            cancelled: Arc::default(),
        }
    }

    #[tool(description = "Take `steps` steps of `step_ms` ms each, reporting each one.")]
    async fn slow_steps(
        &self,
        Parameters(Steps { steps, step_ms }): Parameters<Steps>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let cancelled = Arc::clone(&self.cancelled);
        run(self, &context, move |task| {
            Box::pin(async move {
                for step in 1..=steps {
                    tokio::select! {
                        () = task.cancelled() => {
                            cancelled.lock().expect("not poisoned").push(task.task_id().to_owned());
                            return Err(TaskExit::Cancelled);
                        }
                        () = tokio::time::sleep(Duration::from_millis(step_ms)) => {}
                    }
                    task.set_status_message(format!("step {step} of {steps}"));
                }
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "finished {steps} steps"
                ))]))
            })
        })
        .await
    }

    #[tool(description = "Ask the user's name inside a task, then greet them.")]
    async fn greet_in_task(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let question: InputRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "What is your name?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
            },
        }))
        .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
        run(self, &context, move |task| {
            Box::pin(async move {
                let answer = task.request_input("name", question).await?;
                let text = match answer["content"]["name"].as_str() {
                    Some(name) if answer["action"] == "accept" => format!("Hello, {name}!"),
                    _ => format!("no name given ({})", answer["action"]),
                };
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            })
        })
        .await
    }

    #[tool(description = "The ids of the tasks whose work stopped at a tasks/cancel.")]
    fn seen_cancels(&self) -> String {
        json!(*self.cancelled.lock().expect("not poisoned")).to_string()
    }
}

impl ServerHandler for TaskServer {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tool_router
            .call(ToolCallContext::new(self, request, context))
            .await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tool_router.list_all()))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = match args.as_slice() {
        [serve, http, addr] if serve == "serve" && http == "--http" => addr.clone(),
        _ => {
            eprintln!("usage: rmcp-task-server serve --http ADDR (127.0.0.1:0, say)");
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(listener) => listener,
        Err(err) => {
            eprintln!("error: cannot listen on {addr}: {err}");
            return ExitCode::FAILURE;
        }
    };
    // One server for every session and request: the tasks outlive the request that made them.
    let server = TaskServer::new();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    match listener.local_addr() {
        Ok(local) => eprintln!("listening on http://{local}/mcp"),
        Err(err) => {
            eprintln!("error: no local address: {err}");
            return ExitCode::FAILURE;
        }
    }
    match axum::serve(listener, router).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
