//! One `tools/call`, served: the call's context (the tool's progress and log messages sent to
//! the client as they come, the stream it may close for SSE polling), the run (until the
//! answer, or the client's cancellation), and the result held to the output schema the client
//! was shown. `handler.rs` only routes the request here.

// Logging is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// clients of the 2025 versions still set a level and read tools' messages, so we serve it.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CallToolResult, JsonObject, ProgressToken};
use rmcp::service::{RequestContext, RoleServer};

use super::http::polling::CallStream;
use super::{Listing, ToolServer, convert};
use crate::{CallOptions, ToolAnswer, ToolContext, ToolRegistry};

/// The arguments as the text the pipeline judges (none: `{}`).
pub(super) fn arguments_text(arguments: Option<&JsonObject>) -> Result<String, ErrorData> {
    match arguments {
        Some(arguments) => serde_json::to_string(arguments)
            .map_err(|err| ErrorData::invalid_params(err.to_string(), None)),
        None => Ok("{}".to_owned()),
    }
}

/// The `_meta` key of the 2026-07-28 era's per-request log level.
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// Checks the per-request log level of `request`: absent or one of MCP's levels; anything else
/// is refused with -32602 naming the levels, as the 2026-07-28 revision asks.
pub(super) fn log_level_of(request: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
    let Some(given) = request.meta.get(LOG_LEVEL_KEY) else {
        return Ok(());
    };
    if request.meta.log_level().is_some() {
        return Ok(());
    }
    Err(ErrorData::invalid_params(
        format!(
            "`_meta` {LOG_LEVEL_KEY:?} is {given}, not a log level: give one of \"debug\", \"info\", \
             \"notice\", \"warning\", \"error\", \"critical\", \"alert\", \"emergency\", or leave it \
             out for no log messages."
        ),
        Some(serde_json::json!({"field": LOG_LEVEL_KEY, "given": given})),
    ))
}

/// The call's result, held to the output schema the client was shown (as `tools/list`
/// rendered it).
pub(super) fn result(answer: &ToolAnswer, listing: &Listing, name: &str) -> CallToolResponse {
    complete_result(answer, listing, name).into()
}

/// [`result`]'s `CallToolResult` itself (what a finished task keeps).
pub(super) fn complete_result(
    answer: &ToolAnswer,
    listing: &Listing,
    name: &str,
) -> CallToolResult {
    let schema = listing
        .definitions
        .definition(name)
        .and_then(|definition| definition.get("outputSchema"));
    convert::held_to(convert::call_result(answer), schema)
}

impl ToolServer {
    /// The options of a served call: judged by the listing the client was given.
    pub(super) fn served_options(&self, listing: &Listing) -> CallOptions {
        // A sync tool runs on this task's worker, as in `rmcp`'s server: `block_in_place` would
        // cost more than most tools (5-15 µs). A tool that may block for long is `blocking`.
        let mut options = self.shared.options.clone().on_worker();
        if self.shared.agent_loop_tools {
            // The operator made this client the agent loop (and listed its tools).
            options = options.from_agent_loop();
        }
        options.definitions(listing.definitions.clone())
    }

    /// The least level of the log messages `request`'s client is sent, `None` for none. A
    /// request of the 2026-07-28 era carries its own (`_meta` `io.modelcontextprotocol/logLevel`,
    /// checked by [`log_level_of`]), and without one it gets no `notifications/message` at all,
    /// as that revision requires; the level a session of the `initialize` era set with
    /// `logging/setLevel` (which may change mid-call) is that session's only.
    fn log_floor(&self, request: &RequestContext<RoleServer>) -> Option<Arc<AtomicU8>> {
        if !super::modern(request) {
            return Some(Arc::clone(&self.own.log_level));
        }
        let level = request.meta.log_level()?;
        Some(Arc::new(AtomicU8::new(convert::level_from(level) as u8)))
    }

    /// A call of `request` about to run: its context, reporting to the client.
    pub(super) fn served_call<'r>(
        &self,
        request: &'r RequestContext<RoleServer>,
    ) -> ServedCall<'r> {
        // The tool's progress reports (for a client that asked for them) and log messages (at
        // the client's level or above): queued by the tool, from any thread, in order, and sent
        // from the call's task while it runs.
        let reports = Arc::new(Reports::default());
        let token = request.meta.get_progress_token();
        let mut ctx = self.call_context(request);
        if token.is_some() {
            let reports = Arc::clone(&reports);
            ctx = ctx.with_progress(move |progress| reports.push(Report::Progress(progress)));
        }
        if let Some(least) = self.log_floor(request) {
            let reports = Arc::clone(&reports);
            ctx = ctx.with_log(move |level, message| {
                if level as u8 >= least.load(Ordering::Relaxed) {
                    reports.push(Report::Log(level, message.to_owned()));
                }
            });
        }
        // Over Streamable HTTP the tool may close the stream its answer goes on (SSE polling),
        // for a client of a version that comes back for it.
        let comes_back = request.peer.peer_info().is_some_and(|client| {
            client.protocol_version >= rmcp::model::ProtocolVersion::V_2025_11_25
        });
        let stream = CallStream::of(request).filter(|_| comes_back);
        if let Some(stream) = &stream {
            let stream = Arc::clone(stream);
            ctx = ctx.with_stream_closer(move |retry| {
                let stream = Arc::clone(&stream);
                Box::pin(async move { stream.close(retry).await })
            });
        }
        ServedCall {
            request,
            ctx,
            reports: Receiving(reports),
            token,
            stream,
        }
    }
}

/// A call's context and what it reports through, for the length of the call.
pub(super) struct ServedCall<'r> {
    request: &'r RequestContext<RoleServer>,
    ctx: ToolContext,
    reports: Receiving,
    token: Option<ProgressToken>,
    stream: Option<Arc<CallStream>>,
}

impl ServedCall<'_> {
    /// The same call, its tool's questions answered by `asker` (a round of the 2026-07-28
    /// era's `input_required`) instead of requests to the client.
    pub(super) fn asking(mut self, asker: impl crate::call::Asker + 'static) -> Self {
        self.ctx = self.ctx.with_asker(asker);
        self
    }

    /// Runs tool `name` through `registry`'s pipeline, sending its reports as they come; `Err`
    /// when the client cancelled the call.
    pub(super) async fn run(
        self,
        registry: &ToolRegistry,
        name: &str,
        args: &str,
        options: &CallOptions,
    ) -> Result<ToolAnswer, ErrorData> {
        let call = registry.call_with(name, args, &self.ctx, options);
        let mut call = std::pin::pin!(call);
        // A client's `notifications/cancelled` drops the call: an async tool stops at its next
        // await point (a `blocking` one finishes on the blocking pool, unobserved).
        let request = self.request;
        let answer = loop {
            tokio::select! {
                biased;
                answer = &mut call => break answer,
                // Before the reports: a tool reporting without pause must not hold off its
                // client's cancellation.
                () = request.ct.cancelled() => {
                    return Err(ErrorData::internal_error(
                        Cow::Owned(format!("the call to {name} was cancelled")),
                        None,
                    ));
                }
                () = self.reports.ready.notified() => {
                    while let Some(report) = self.reports.take() {
                        if request.ct.is_cancelled() {
                            break;
                        }
                        notify(request, name, self.token.as_ref(), report).await;
                    }
                }
            }
        };
        // Reports made just before the answer still precede it.
        while let Some(report) = self.reports.take() {
            notify(request, name, self.token.as_ref(), report).await;
        }
        if let Some(stream) = &self.stream {
            // rmcp would send the answer to a closed stream and forget it: wait for the client.
            stream.until_back(request.ct.cancelled()).await;
        }
        Ok(answer)
    }
}

/// What a running tool reported: progress, or a log message.
enum Report {
    Progress(crate::call::Progress),
    Log(crate::call::LogLevel, String),
}

/// A call's reports in the order the tool made them, from any thread, until the call ends.
///
/// Not a Tokio channel: most calls report nothing, and a channel allocates its first block of
/// slots (1.5 KB here) when it is made; an empty queue allocates nothing.
#[derive(Default)]
struct Reports {
    queue: crate::sync::Mutex<Queue>,
    /// Woken at each report. It keeps at most one wake-up for a waiter to come, and each
    /// wake-up drains the whole queue, so a report made while nobody waits is not missed.
    ready: tokio::sync::Notify,
}

/// What [`Reports`] guards: the reports not yet sent, and whether the call is over.
#[derive(Default)]
struct Queue {
    reports: std::collections::VecDeque<Report>,
    closed: bool,
}

impl Reports {
    /// Queues `report`, unless the call is over.
    fn push(&self, report: Report) {
        let mut queue = self.queue.lock();
        if queue.closed {
            return;
        }
        queue.reports.push_back(report);
        drop(queue);
        self.ready.notify_one();
    }

    /// The oldest report not yet sent.
    fn take(&self) -> Option<Report> {
        self.queue.lock().reports.pop_front()
    }
}

/// The call's end of its [`Reports`]: once the call is over, what is queued and what the tool
/// reports later (a `blocking` tool still running after a cancellation, say) has no client to
/// go to, and is dropped rather than kept.
struct Receiving(Arc<Reports>);

impl std::ops::Deref for Receiving {
    type Target = Reports;

    fn deref(&self) -> &Reports {
        &self.0
    }
}

impl Drop for Receiving {
    fn drop(&mut self) {
        let mut queue = self.0.queue.lock();
        queue.closed = true;
        // Taken whole, so that its buffer is freed too, and dropped once the lock is released.
        let unsent = std::mem::take(&mut queue.reports);
        drop(queue);
        drop(unsent);
    }
}

/// Sends one report of tool `tool`: progress as `notifications/progress` for the request's
/// `token`, a log message as `notifications/message`, credentials masked in either's text.
async fn notify(
    context: &RequestContext<RoleServer>,
    tool: &str,
    token: Option<&rmcp::model::ProgressToken>,
    report: Report,
) {
    let sent = match report {
        Report::Progress(progress) => {
            let Some(token) = token else { return };
            let mut params =
                rmcp::model::ProgressNotificationParam::new(token.clone(), progress.done);
            params.total = progress.total;
            params.message = progress
                .message
                .map(|text| crate::secrets::redact(&text).into_owned());
            context.peer.notify_progress(params).await
        }
        Report::Log(level, message) => {
            let data = serde_json::Value::String(crate::secrets::redact(&message).into_owned());
            let mut params =
                rmcp::model::LoggingMessageNotificationParam::new(convert::level_of(level), data);
            params.logger = Some(tool.to_owned());
            context.peer.notify_logging_message(params).await
        }
    };
    // A client gone mid-call misses the report; the call's answer says the rest.
    if let Err(err) = sent {
        tracing::debug!(error = %err, "a notification of a running tool was not sent");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::LogLevel;

    fn log(text: &str) -> Report {
        Report::Log(LogLevel::Info, text.to_owned())
    }

    fn text(report: Option<Report>) -> Option<String> {
        match report? {
            Report::Log(_, text) => Some(text),
            Report::Progress(_) => None,
        }
    }

    // `ServedCall::run`'s use of the queue (sending reports as they come and before the
    // answer) is tested end to end: `tests/tests/mcp_keepalive.rs`, `mcp_modern_streams.rs`,
    // and `mcp_interop.rs` with the Python SDK's client.
    #[tokio::test]
    async fn reports_are_queued_in_order_until_their_call_ends() {
        let reports = Arc::new(Reports::default());
        let receiving = Receiving(Arc::clone(&reports));
        // Made before anyone waits (from another thread): the wait still sees them.
        let tool = Arc::clone(&reports);
        std::thread::spawn(move || {
            tool.push(log("one"));
            tool.push(log("two"));
        })
        .join()
        .unwrap();
        tokio::time::timeout(
            std::time::Duration::from_secs(5),
            receiving.ready.notified(),
        )
        .await
        .expect("a report made before the wait wakes it");
        assert_eq!(text(receiving.take()).as_deref(), Some("one"));
        assert_eq!(text(receiving.take()).as_deref(), Some("two"));
        assert!(receiving.take().is_none());

        // Once the call is over, what was queued and what comes later are dropped.
        reports.push(log("unsent"));
        drop(receiving);
        reports.push(log("late"));
        assert!(reports.take().is_none());
        assert_eq!(
            reports.queue.lock().reports.capacity(),
            0,
            "its buffer is freed"
        );
    }
}
