//! The context is recognised by type, not by name: `ctx: &Ctx` and `Option<&Ctx>`, with
//! `Ctx` an alias of `ToolContext`, receive the context, not a missing extension.

use hermes_tools::ToolContext as Ctx;
// `StaticHandler` is the ABI the macro writes, not a public API.
use hermes_tools::__private::StaticHandler;
use hermes_tools::{ToolContext, tool};

/// A value the agent may provide.
pub struct Greeting(pub String);

/// Tell the session this call belongs to.
#[tool(toolset = "demo")]
fn whoami(ctx: &Ctx, again: Option<&Ctx>, greeting: Option<&Greeting>) -> String {
    format!(
        "{} {} {}",
        greeting.map_or("hi", |g| g.0.as_str()),
        ctx.session_id().unwrap_or("none"),
        again.and_then(Ctx::session_id).unwrap_or("none"),
    )
}

fn main() {
    let StaticHandler::Sync(call) = WHOAMI_TOOL.handler else {
        panic!("a sync tool has a sync handler");
    };
    let ctx = ToolContext::new().with_session_id("s-1");
    let answer = call("{}", &ctx).expect("no arguments to reject");
    assert_eq!(answer.to_value()["result"], "hi s-1 s-1");

    let ctx = ctx.with_extension(Greeting("hello".into()));
    let answer = call("", &ctx).expect("no arguments to reject");
    assert_eq!(answer.to_value()["result"], "hello s-1 s-1");

    let schema = (WHOAMI_TOOL.schema)();
    assert_eq!(schema["properties"], serde_json::json!({}));
}
