//! `rmcp`'s own `#[tool_router]` server over stdio, for the client's tests in the 2026-07-28
//! era (`tests/mcp_client_eras.rs`): `add` answers at once; `greet` is a Multi Round-Trip
//! Request, answering `input_required` with an elicitation and a `requestState` until the
//! retry carries the answer; `ask_forever` asks again on every round.

use std::process::ExitCode;

use hermes_tools_tests::add_tools::AddArgs;
use rmcp::ErrorData;
use rmcp::ServiceExt;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, InputRequiredResult};
use rmcp::tool_router;
use serde_json::json;

/// The server: no state, every round's state travels in `requestState`.
#[derive(Clone, Debug)]
struct AskingServer;

/// `input_required`, asking the user's name.
fn ask_name(state: &str) -> Result<CallToolResponse, ErrorData> {
    let asked = json!({
        "resultType": "input_required",
        "inputRequests": {"name": {
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
        }},
        "requestState": state,
    });
    let asked: InputRequiredResult = serde_json::from_value(asked)
        .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
    Ok(asked.into())
}

#[tool_router(server_handler)]
impl AskingServer {
    #[rmcp::tool(name = "add", description = "Add two integers.")]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }

    #[rmcp::tool(name = "greet", description = "Greet the user by the name they give.")]
    fn greet(
        &self,
        InputResponses(responses): InputResponses,
        RequestState(state): RequestState,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(answer) = responses.and_then(|mut responses| responses.remove("name")) else {
            return ask_name("rmcp-round-1");
        };
        let name = answer["content"]["name"].as_str().unwrap_or("nobody");
        let text = format!(
            "Hello, {name}! ({}; state {})",
            answer["action"].as_str().unwrap_or("?"),
            state.as_deref().unwrap_or("none")
        );
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }

    #[rmcp::tool(
        name = "ask_forever",
        description = "Ask the user's name on every round."
    )]
    fn ask_forever(&self) -> Result<CallToolResponse, ErrorData> {
        ask_name("again")
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let running = match AskingServer.serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        Err(err) => {
            eprintln!("error: the server did not start: {err}");
            return ExitCode::FAILURE;
        }
    };
    match running.waiting().await {
        Ok(_) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    }
}
