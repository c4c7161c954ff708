//! The MCP methods a [`ToolServer`] answers: `rmcp`'s [`ServerHandler`] over the registry.

// Logging is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// clients of the 2025 versions still set a level and read tools' messages, so we serve it.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::ErrorData;
use rmcp::ServerHandler;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
    CompleteRequestParams, CompleteResult, CustomRequest, CustomResult, ErrorCode,
    GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult, JsonObject,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, PromptsCapability, ReadResourceRequestParams, ReadResourceResponse,
    ResourcesCapability, ServerCapabilities, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};

use super::ask::ClientAsker;
use super::content;
use super::http::SESSION_HEADER;
use super::mrtr::{Round, RoundAsker};
use super::{Listing, ToolServer, call, convert, jsonrpc, modern};
use crate::ToolContext;
use crate::secrets::echoed;
use crate::toolsets::nearest::nearest;

impl ToolServer {
    /// The context of one call: this connection's session, except for an HTTP request outside
    /// any session (the 2026-07-28 protocol has none), which gets no session at all: a fresh
    /// one would make a tool's state vanish after the call, silently.
    ///
    /// A tool may ask the client's user and model when the client offered them on its
    /// session; a sessionless request cannot be asked back (the 2026-07-28 protocol forbids a
    /// server's requests to the client).
    pub(super) fn call_context(&self, request: &RequestContext<RoleServer>) -> ToolContext {
        let sessionless_http = request
            .extensions
            .get::<axum::http::request::Parts>()
            .is_some_and(|parts| !parts.headers.contains_key(SESSION_HEADER));
        if sessionless_http {
            return self.shared.context.clone().without_session();
        }
        let ctx = self.session_context().clone();
        match ClientAsker::of(request) {
            Some(asker) => ctx.with_asker(asker),
            None => ctx,
        }
    }
}

impl ToolServer {
    /// This connection's resource subscriptions (a session's state); a request outside any
    /// session cannot subscribe, as no later message could reach it.
    fn subscriptions(
        &self,
        request: &RequestContext<RoleServer>,
    ) -> Result<Arc<content::Subscriptions>, ErrorData> {
        self.call_context(request)
            .session_state::<content::Subscriptions>()
            .ok_or_else(|| {
                ErrorData::invalid_request(
                    "Subscribing needs a session: connect with `initialize` (an Mcp-Session-Id \
                     over HTTP), then subscribe.",
                    None,
                )
            })
    }
}

/// A list's result, with the 2026-07-28 era's cache hints for a request of that era (a session
/// of the `initialize` era never had them): the same for every caller (nothing is filtered by
/// who asks), so any cache may keep it, for the server's `list_ttl`. A macro: each list is a
/// type of its own, with the same inherent builder methods.
macro_rules! cacheable {
    ($server:expr, $context:expr, $listed:expr) => {{
        let listed = $listed;
        if modern($context) {
            listed
                .with_ttl_ms($server.list_ttl_ms())
                .with_cache_scope(CacheScope::Public)
        } else {
            listed
        }
    }};
}

/// The methods the 2026-07-28 era removed that this server serves to sessions of the
/// `initialize` era.
const REMOVED_IN_2026: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Refuses `method`, one of [`REMOVED_IN_2026`], for a request of the 2026-07-28 era: "method
/// not found" (-32601, HTTP 404), as that era's specification requires of a removed method.
fn removed_in_modern(method: &str, request: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
    if modern(request) && REMOVED_IN_2026.contains(&method) {
        return Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "Method not found: {method} was removed in protocol version 2026-07-28; \
                 a client of that version does without it (or connects with `initialize` \
                 and an earlier version)"
            ),
            Some(serde_json::json!({"method": method})),
        ));
    }
    Ok(())
}

/// The JSON-RPC error for a call to a tool that is not listed; `registered` says whether the
/// registry has it anyway (outside the selection, unavailable, or for the agent loop only).
fn unknown_tool(name: &str, listing: &Listing, registered: bool) -> ErrorData {
    let suggestions = nearest(name, listing.iter().map(|(name, _)| name));
    // The client's name, redacted and cut short (see `echo`), in the message and in `data`.
    let shown = echoed(name);
    let mut message = if registered {
        format!("Unknown tool: {shown:?} is not among the tools this server offers.")
    } else {
        format!("Unknown tool: {shown:?}.")
    };
    if suggestions.is_empty() {
        message.push_str(" Call one of the tools in tools/list.");
    } else {
        message.push_str(&format!(" Did you mean: {}?", suggestions.join(", ")));
    }
    ErrorData::invalid_params(
        message,
        Some(serde_json::json!({"tool": shown, "suggestions": suggestions})),
    )
}

impl ToolServer {
    /// What [`call_tool`](ServerHandler::call_tool) answers.
    async fn answer_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let listing = self.listing_or_error()?;
        let name: &str = &request.name;
        if !listing.contains(name) {
            let registered = self.shared.registry.get(name).is_some();
            return Err(unknown_tool(name, &listing, registered));
        }
        let args = call::arguments_text(request.arguments.as_ref())?;
        if modern(&context) {
            call::log_level_of(&context)?;
        }
        // A client that declared the tasks extension: a long call becomes a task (tasks/).
        if Self::may_become_task(&context) {
            return self.call_as_task(&request, &context, listing, args).await;
        }
        // A task-only tool cannot answer another client: it is told what to declare.
        if self
            .shared
            .registry
            .get(name)
            .is_some_and(|tool| tool.requires_task())
        {
            return Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ));
        }
        let options = self.served_options(&listing);
        let mut served = self.served_call(&context);
        // The 2026-07-28 era asks through `input_required` rounds (see mrtr.rs): the tool runs
        // with the answers the client gave so far.
        let round = if modern(&context) {
            let sealing = self.sealing()?;
            let capabilities = context.client_capabilities();
            let round = Arc::new(Round::open(
                &sealing,
                name,
                request.arguments.as_ref(),
                request.request_state.as_deref(),
                request.input_responses.as_ref(),
                capabilities.as_ref(),
            )?);
            served = served.asking(RoundAsker(Arc::clone(&round)));
            Some((sealing, round))
        } else {
            None
        };
        let answer = served
            .run(&self.shared.registry, name, &args, &options)
            .await?;
        if let Some((sealing, round)) = round {
            if let Some(required) =
                round.input_required(&sealing, name, request.arguments.as_ref())?
            {
                return Ok(CallToolResponse::InputRequired(required));
            }
            // A tool that failed for asking what the client did not declare: say what to
            // declare (-32021). One that did without (it checked `can_sample`) answers.
            if answer.is_error()
                && let Some(required) = round.undeclared()
            {
                return Err(ErrorData::missing_required_client_capability(required));
            }
        }
        Ok(call::result(&answer, &listing, name))
    }

    /// What [`listen`](ServerHandler::listen) sends a stream of the 2026-07-28 era.
    async fn stream_changes(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let accepted = context.accepted().clone();
        let sink = context.sink().clone();
        let tools = async {
            if accepted.tools_list_changed != Some(true) {
                return std::future::pending().await;
            }
            let mut changes = self.shared.listing_changes.subscribe(self);
            let notify = || async { sink.notify_tool_list_changed().await.is_ok() };
            // A change between the acknowledgment and now: announce it (an extra announcement,
            // should two subscriptions race here, only makes a client list again).
            let accepted_at = self.shared.accepted_at.load(Ordering::Acquire);
            if self.shared.registry.generation() != accepted_at && !notify().await {
                return;
            }
            // The stream's end (`context.cancelled()` below) ends this wait.
            while changes.next().await {
                if !notify().await {
                    return;
                }
            }
        };
        let updates = async {
            let uris = accepted.resource_subscriptions.clone().unwrap_or_default();
            if uris.is_empty() {
                return std::future::pending().await;
            }
            let wanted = |uri: &str| uris.iter().any(|listened| listened == uri);
            let notify = |uri: String| {
                let sink = sink.clone();
                async move { sink.notify_resource_updated(uri).await.is_ok() }
            };
            content::follow_updates(wanted, notify).await;
        };
        tokio::select! {
            () = context.cancelled() => {}
            () = tools => {}
            () = updates => {}
        }
        Ok(())
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_tasks()
            .build();
        // Declared only when something is linked: a client then offers nothing it lacks.
        if content::has_resources() {
            let mut resources = ResourcesCapability::default();
            resources.subscribe = Some(true);
            capabilities.resources = Some(resources);
        }
        if content::has_prompts() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        if content::has_resources() || content::has_prompts() {
            capabilities.completions = Some(JsonObject::new());
        }
        let config =
            ServerConfig::new(capabilities).with_server_info(self.shared.implementation.clone());
        match &self.shared.instructions {
            Some(text) => config.with_instructions(text.clone()),
            None => config,
        }
    }

    /// `logging/setLevel`: this connection's client is sent tools' log messages at `level`
    /// or above.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        removed_in_modern("logging/setLevel", &context)?;
        let level = convert::level_from(request.level);
        self.own.log_level.store(level as u8, Ordering::Relaxed);
        Ok(())
    }

    /// `tools/list`: the page the cursor names of the listing, rendered once per change and
    /// shared by every session (see `pages`).
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listing = self.listing_or_error()?;
        let rendered = self.shared.rendered.get(&listing);
        let cursor = request.as_ref().and_then(|params| params.cursor.as_deref());
        let (tools, next_cursor) = rendered.page(cursor, self.shared.page_size)?;
        let mut listed = ListToolsResult::with_all_items(tools);
        listed.next_cursor = next_cursor;
        Ok(cacheable!(self, &context, listed))
    }

    /// `tools/call`. Boxed, as [`listen`](Self::listen) is: the call's future (about 4 KB) would
    /// otherwise size the future of every request this server answers.
    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        Box::pin(self.answer_call(request, context))
    }

    /// `tasks/get`: answered from the task store, whichever process runs the task.
    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.shared.tasks.get(&request.task_id).await
    }

    /// `tasks/update`: the answers stored for the task's running call.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared
            .tasks
            .update(&request.task_id, request.input_responses)
            .await
    }

    /// `tasks/cancel`: the cancellation stored for the task's running call.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared.tasks.cancel(&request.task_id).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(cacheable!(self, &context, content::list_resources()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(cacheable!(self, &context, content::list_templates()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        content::read(&request.uri)
            .await
            .map(ReadResourceResponse::Complete)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        removed_in_modern("resources/subscribe", &context)?;
        self.subscriptions(&context)?
            .subscribe(&request.uri, &context.peer)
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        removed_in_modern("resources/unsubscribe", &context)?;
        self.subscriptions(&context)?.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(cacheable!(self, &context, content::list_prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        content::get(request).await.map(GetPromptResponse::Complete)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        content::complete(&request)
    }

    /// `rmcp` reads a request of a known method whose params do not parse as a custom
    /// request; say what is wrong with them (-32602) instead of "method not found".
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let CustomRequest { method, params, .. } = request;
        removed_in_modern(&method, &context)?;
        Err(
            jsonrpc::bad_params(&method, params.as_ref()).unwrap_or_else(|| {
                let shown = echoed(&method);
                ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("Method not found: {shown}"),
                    Some(serde_json::json!({"method": shown})),
                )
            }),
        )
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Sessions of the `initialize` era are told of changes on the session itself, until
        // this session's server (and with it the enrolment) is dropped. A second
        // `notifications/initialized` enrols nothing more.
        self.own
            .listing_enrolment
            .get_or_init(|| self.shared.listing_changes.enrol(self, context.peer));
    }

    /// What a `subscriptions/listen` stream is acknowledged: tool list changes, and updates of
    /// the requested URIs that name a resource. Resource and prompt list changes are not: what
    /// `#[resource]` and `#[prompt]` declare is fixed when the program is linked, so those
    /// lists never change (and the capabilities say so, without `listChanged`).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.shared
            .accepted_at
            .store(self.shared.registry.generation(), Ordering::Release);
        let mut accepted = SubscriptionFilter::builder().tools_list_changed();
        let uris = content::known_uris(requested.resource_subscriptions.as_deref().unwrap_or(&[]));
        if !uris.is_empty() {
            accepted = accepted.resource_subscriptions(uris);
        }
        Some(accepted.build())
    }

    /// One stream of the 2026-07-28 era (which has no session): tool list changes and
    /// `notifications/resources/updated` for its URIs, as accepted, until the client cancels it
    /// or can no longer be reached.
    ///
    /// Boxed: `rmcp` holds every method's future in the one future of a request, which is
    /// spawned, so that future is as large as the largest method's: this one, nearly 5 KB,
    /// would be copied for every `tools/call` (a stream is opened once, and pays one box).
    fn listen(
        &self,
        context: SubscriptionContext,
    ) -> impl Future<Output = Result<(), ErrorData>> + Send + '_ {
        Box::pin(self.stream_changes(context))
    }
}
