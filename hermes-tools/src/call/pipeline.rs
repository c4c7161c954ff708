//! The call pipeline: what [`ToolRegistry::call`] means, and what an agent loop calls with the
//! model's tool call.
//!
//! The rules are documented on [`ToolRegistry::call`], where users read them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::ToolRegistry;
use crate::call::answer::ToolAnswer;
use crate::call::budget::{Spill, TurnBudget};
use crate::call::context::ToolContext;
use crate::call::dispatch::{Judge, run_async, run_sync};
use crate::config::Config;
use crate::definitions::Definitions;
use crate::hooks::{self, ApprovalRequest, CallRecord, Directive, Hook, PendingCall, Status};
use crate::registry::handle::Current;
use crate::search::bridge::{self, Route};
use crate::tool::Tool;

/// How one call goes through the pipeline: everything beside the name, arguments and context.
///
/// ```
/// use std::sync::Arc;
/// use hermes_tools::{CallOptions, call::TurnBudget};
///
/// let options = CallOptions::new()
///     .from_agent_loop()
///     .turn(Arc::new(TurnBudget::new(200_000)));
/// # let _ = options;
/// ```
#[derive(Clone, Default, Debug)]
pub struct CallOptions {
    skip_pre_hooks: bool,
    from_agent_loop: bool,
    turn: Option<Arc<TurnBudget>>,
    definitions: Option<Definitions>,
    /// A sync tool runs on the worker as is, without `block_in_place` (which costs a core
    /// handoff, 5-15 µs): the MCP server's choice, as `rmcp`'s own server does, and a turn's
    /// for a call measured cheap (which the turn times itself). Read only with `multi-thread`,
    /// the one build with `block_in_place`.
    #[cfg_attr(not(feature = "multi-thread"), allow(dead_code))]
    on_worker: bool,
    /// `Some(limit)`: a sync tool runs inline, on the worker as is, when its recent calls each
    /// took less than `limit` ([`crate::call::cost`]), else on the blocking pool under its
    /// timeout, as a `blocking` one does; either way its run is measured. For a turn's
    /// concurrent batch, whose calls share one task (inline, a slow one would hold the others
    /// back), and a turn that can be cancelled (inline, it could not return before a slow call).
    by_cost: Option<Duration>,
}

impl CallOptions {
    /// The options of a plain call: hooks run, agent-loop tools are refused, no turn budget,
    /// arguments judged by each tool's static schema.
    pub fn new() -> Self {
        Self::default()
    }

    /// Skips the pre-call hooks (post-call hooks and transforms still run).
    pub fn skip_pre_hooks(mut self) -> Self {
        self.skip_pre_hooks = true;
        self
    }

    /// The caller is the agent loop itself, which may run the agent-loop tools.
    pub fn from_agent_loop(mut self) -> Self {
        self.from_agent_loop = true;
        self
    }

    /// The budget shared by all answers of this model turn.
    pub fn turn(mut self, budget: Arc<TurnBudget>) -> Self {
        self.turn = Some(budget);
        self
    }

    /// Runs a sync (not `blocking`) tool directly on the async worker, see `on_worker`.
    pub(crate) fn on_worker(mut self) -> Self {
        self.on_worker = true;
        self
    }

    /// Runs a sync tool inline if its calls take less than `limit`, else on the blocking
    /// pool, see `by_cost`.
    pub(crate) fn by_cost(mut self, limit: Duration) -> Self {
        self.by_cost = Some(limit);
        self
    }

    /// Whether a turn budget is set.
    pub(crate) fn has_turn_budget(&self) -> bool {
        self.turn.is_some()
    }

    /// Whether the caller is the agent loop.
    #[cfg(feature = "mcp")]
    pub(crate) fn is_from_agent_loop(&self) -> bool {
        self.from_agent_loop
    }

    /// The definitions the model was given: the call may only name a tool among them, and its
    /// arguments are judged against the schema it showed there (a dynamic override's). When
    /// they defer tools, the calls of their bridge's meta-tools are served (see
    /// [`crate::search`]), and a deferred tool can be called through the bridge only.
    pub fn definitions(mut self, definitions: Definitions) -> Self {
        self.definitions = Some(definitions);
        self
    }

    /// The definitions the model was given, if the caller said.
    pub(crate) fn shown(&self) -> Option<&Definitions> {
        self.definitions.as_ref()
    }
}

/// How a call entered the pipeline.
enum Entry {
    /// The tool named by the model.
    Direct,
    /// The real tool of a call through the bridge's call meta-tool.
    Bridged,
    /// A call of the bridge's search or describe meta-tool, answered already.
    Meta(ToolAnswer),
}

/// One call on its way through the pipeline, once admitted: what steps 4 to 7 need.
struct Call<'a> {
    registry: &'a ToolRegistry,
    name: &'a str,
    args: &'a str,
    /// Running on `registry` (its runner set).
    ctx: &'a ToolContext,
    options: &'a CallOptions,
    config: &'a Arc<Config>,
    tool: Option<&'a Arc<Tool>>,
    /// `None` when the registry has no hooks (read without its lock).
    hooks: Option<Arc<Vec<Hook>>>,
    /// The arguments parsed, only when hooks or the gate read them.
    value: Value,
    /// When the call started, for the post-call hooks' duration (none without hooks: reading
    /// the clock is a tenth of a plain call's cost).
    started: Option<Instant>,
}

/// What a call is judged against: the registry's configuration and the tool of the call's
/// name, if any (looked up by the caller, from the registry or a turn's [`Current`]).
struct Found<'a> {
    config: &'a Arc<Config>,
    tool: Option<&'a Arc<Tool>>,
}

/// What admission decided.
enum Admission<'a> {
    /// Run the call's tool (`Call::tool`, set).
    Run(Call<'a>),
    /// Answer without running it (refused, blocked, not approved, unknown).
    Answer(Call<'a>, ToolAnswer, Status),
}

impl ToolRegistry {
    /// The call pipeline: what [`ToolRegistry::call`] means, and what an agent loop calls with the
    /// model's tool call.
    ///
    /// ```
    /// use hermes_tools::{CallOptions, ToolContext, ToolRegistry, DefinitionsRequest, tool};
    ///
    /// /// Greet someone by their name.
    /// #[tool(toolset = "greetings")]
    /// fn hello(
    ///     /// Who to greet.
    ///     name: String,
    /// ) -> String {
    ///     format!("Hello, {name}!")
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let registry = ToolRegistry::global();
    /// let ctx = ToolContext::new().with_session_id("s-1");
    /// let answer = registry.call("hello", r#"{"name": "Ada"}"#, &ctx).await;
    /// assert_eq!(answer.as_str(), r#"{"result":"Hello, Ada!"}"#);
    ///
    /// // Judge the call by the definitions the model was given (and only those tools):
    /// let shown = registry.definitions(&DefinitionsRequest::all().enable(["greetings"])).unwrap();
    /// let options = CallOptions::new().definitions(shown);
    /// let refused = registry.call_with("read_file", "{}", &ctx, &options).await;
    /// assert!(refused.is_error());
    /// # });
    /// ```
    ///
    /// A call runs, in order:
    ///
    /// 1. the refusal of tools only the agent loop may run (`todo`, `memory`, `session_search`,
    ///    `delegate_task` by default; [`Config::agent_loop_tools`](crate::config::Config::agent_loop_tools))
    ///    unless [`CallOptions::from_agent_loop`];
    /// 2. pre-call hooks, unless the caller skips them: the first well-formed
    ///    [`Directive`] wins: `Block` answers its message as the error, `Approve` sends the call
    ///    to the approval gate;
    /// 3. the [approval gate](crate::hooks::ApprovalGate), for calls a hook sent there and tools
    ///    marked `needs_approval` (or listed in `approval_required`; a tool's `approval` setting
    ///    has the last word). No gate configured means refused: fail closed;
    /// 4. dispatch: the arguments judged against the schema the model saw ([`CallOptions::definitions`],
    ///    else the tool's static one), then the tool. **Where it runs:** an async tool is awaited
    ///    under its timeout (the future is dropped when it expires); a sync tool runs inline on the
    ///    caller's thread (inside `block_in_place` on a multi-thread runtime with the feature
    ///    `multi-thread`, on by default), at the cost of a function call and with no timeout,
    ///    since a thread cannot be stopped; a sync tool declared
    ///    `#[tool(blocking)]` runs on tokio's blocking pool under its timeout, and when that
    ///    expires the model is answered and the thread is left to finish; so does a sync tool
    ///    in a turn's concurrent batch, or in a turn that can be cancelled, unless its calls
    ///    have been measured cheap ([`run_turn`](crate::ToolRegistry::run_turn));
    /// 5. redaction: every credential in the answer is masked (see [`redact`](crate::secrets::redact)),
    ///    whoever wrote it (the tool, an MCP server), unless the tool declares
    ///    `#[tool(raw_output)]` or the config says otherwise
    ///    ([`Config::redacts_answers_of`](crate::config::Config::redacts_answers_of)). Text with no
    ///    credential costs one prefilter scan. Hooks below see the redacted answer;
    /// 6. post-call hooks, with the duration in whole milliseconds and the status;
    /// 7. result transforms: the first replacement wins, and is redacted like the answer;
    /// 8. the answer budget: an over-size answer keeps its head and tail (so a spill file holds
    ///    the redacted answer too).
    ///
    /// Unknown tools go through the hooks too. With no hook registered, steps 2, 6 and 7 cost a
    /// branch each.
    ///
    /// answer is always JSON.
    #[doc(alias = "handle_function_call")]
    pub async fn call(&self, name: &str, args: &str, ctx: &ToolContext) -> ToolAnswer {
        self.call_with(name, args, ctx, &CallOptions::default())
            .await
    }

    /// [`call`](Self::call) with options.
    pub async fn call_with(
        &self,
        name: &str,
        args: &str,
        ctx: &ToolContext,
        options: &CallOptions,
    ) -> ToolAnswer {
        let route = bridge::route(self, name, args, options.shown());
        let (name, args, entry) = entered(name, args, &route);
        let (config, tool, ctx) = (self.config(), self.get(name), ctx.on(self));
        let found = Found {
            config: &config,
            tool: tool.as_ref(),
        };
        match self.admit(name, args, &ctx, options, entry, found) {
            Admission::Answer(call, answer, status) => call.finish(answer, status),
            Admission::Run(call) => {
                let answer = call.run().await;
                let status = status_of(&answer);
                call.finish(answer, status)
            }
        }
    }

    /// [`call`](Self::call) from synchronous code (CLIs, tests). A sync tool runs right here;
    /// an async one is driven on a runtime (see the bridge rules in the crate docs).
    pub fn call_blocking(&self, name: &str, args: &str, ctx: &ToolContext) -> ToolAnswer {
        self.call_blocking_with(name, args, ctx, &CallOptions::default())
    }

    /// [`call_blocking`](Self::call_blocking) with options.
    pub fn call_blocking_with(
        &self,
        name: &str,
        args: &str,
        ctx: &ToolContext,
        options: &CallOptions,
    ) -> ToolAnswer {
        let route = bridge::route(self, name, args, options.shown());
        let (name, args, entry) = entered(name, args, &route);
        let (config, tool, ctx) = (self.config(), self.get(name), ctx.on(self));
        let found = Found {
            config: &config,
            tool: tool.as_ref(),
        };
        self.run_blocking(self.admit(name, args, &ctx, options, entry, found))
    }

    /// [`call_blocking_with`](Self::call_blocking_with) of a turn's call to a sync tool
    /// measured cheap: the tools and config are the turn's `current` (taken anew when the
    /// registry changed), `tool` is the one `current` has under `name`, and `ctx` already runs
    /// on this registry, so the call takes no lock and copies no context.
    pub(crate) fn call_blocking_current(
        &self,
        name: &str,
        args: &str,
        ctx: &ToolContext,
        options: &CallOptions,
        current: &Current,
        tool: Option<&Arc<Tool>>,
    ) -> ToolAnswer {
        let route = bridge::route(self, name, args, options.shown());
        let (name, args, entry) = entered(name, args, &route);
        let tool = match route {
            // `tool`, the caller's lookup of `name` in `current`.
            Route::Direct => tool,
            _ => current.snapshot.get(name),
        };
        let found = Found {
            config: &current.config,
            tool,
        };
        self.run_blocking(self.admit(name, args, ctx, options, entry, found))
    }

    /// Steps 4 to 8 of a blocking call, once admitted.
    fn run_blocking(&self, admission: Admission<'_>) -> ToolAnswer {
        match admission {
            Admission::Answer(call, answer, status) => call.finish(answer, status),
            Admission::Run(call) => {
                let answer = if call.tool().is_some_and(runs_inline) {
                    call.run_inline()
                } else {
                    crate::call::bridge::block_on(call.run()).unwrap_or_else(|err| {
                        ToolAnswer::error(format!("could not start an async runtime: {err}"))
                    })
                };
                let status = status_of(&answer);
                call.finish(answer, status)
            }
        }
    }

    /// Steps 1 to 3: the agent-loop rule, pre-call hooks and the approval gate.
    fn admit<'a>(
        &'a self,
        name: &'a str,
        args: &'a str,
        ctx: &'a ToolContext,
        options: &'a CallOptions,
        entry: Entry,
        found: Found<'a>,
    ) -> Admission<'a> {
        let config = found.config;
        // A deferred tool is offered through the bridge only; a meta-tool is no tool.
        let offered = match (&entry, options.shown()) {
            (Entry::Meta(_), _) => false,
            (_, None) => true,
            (Entry::Direct, Some(shown)) => shown.callable(name),
            (Entry::Bridged, Some(shown)) => shown.contains(name) || shown.is_deferred(name),
        };
        let tool = found.tool.filter(|_| offered);
        let hooks = self.hooks().current();
        // Parsed only for hooks and the gate: the plain path hands the raw text to dispatch.
        let needs_value = hooks.is_some() || tool.is_some_and(|t| needs_approval(config, t));
        let value = if needs_value {
            serde_json::from_str(args).unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        let started = hooks.is_some().then(Instant::now);
        let call = Call {
            registry: self,
            name,
            args,
            ctx,
            options,
            config,
            tool,
            hooks,
            value,
            started,
        };
        if !options.from_agent_loop && call.config.agent_loop_tools.iter().any(|t| t == name) {
            let refusal = ToolAnswer::refusal(format!("{name} must be handled by the agent loop"));
            return Admission::Answer(call, refusal, Status::Blocked);
        }
        match (call.gate(), entry) {
            (Err(refusal), _) => Admission::Answer(call, refusal, Status::Blocked),
            (Ok(()), Entry::Meta(answer)) => {
                let status = status_of(&answer);
                Admission::Answer(call, answer, status)
            }
            (Ok(()), Entry::Direct)
                if let Some(shown) = options.shown()
                    && let Some(names) = shown.bridge()
                    && shown.is_deferred(name) =>
            {
                let answer = bridge::deferred_direct_call(name, names);
                Admission::Answer(call, answer, Status::Error)
            }
            (Ok(()), _) if call.tool.is_some() => Admission::Run(call),
            (Ok(()), _) => {
                // Not a second lookup: a tool registered since must not skip the gate.
                let answer = self.unknown_tool(name, options.definitions.as_ref());
                Admission::Answer(call, answer, Status::Error)
            }
        }
    }
}

/// The name, arguments and entry of a call as `route` resolved it.
fn entered<'r>(name: &'r str, args: &'r str, route: &'r Route) -> (&'r str, &'r str, Entry) {
    match route {
        Route::Direct => (name, args, Entry::Direct),
        Route::Via { name, args } => (name, args, Entry::Bridged),
        Route::Answer(answer) => (name, args, Entry::Meta(answer.clone())),
    }
}

fn status_of(answer: &ToolAnswer) -> Status {
    if answer.is_error() {
        Status::Error
    } else {
        Status::Ok
    }
}

/// Whether step 4 runs right where it is called (a sync tool not declared `blocking`).
fn runs_inline(tool: &Tool) -> bool {
    !tool.is_async() && !tool.is_blocking()
}

fn needs_approval(config: &Config, tool: &Tool) -> bool {
    config.approval_for(tool.name(), tool.needs_approval())
}

impl Call<'_> {
    /// The hooks to run (none without hooks).
    fn hooks(&self) -> &[Hook] {
        self.hooks.as_deref().map_or(&[], Vec::as_slice)
    }

    /// The tool called, when it exists and is offered.
    fn tool(&self) -> Option<&Tool> {
        self.tool.map(|tool| &**tool)
    }

    /// Steps 2 and 3: pre-call hooks and the approval gate. `Err` is the refusal to answer.
    fn gate(&self) -> Result<(), ToolAnswer> {
        let name = self.name;
        let mut approval: Option<String> = None;
        if !self.options.skip_pre_hooks && !self.hooks().is_empty() {
            let pending = PendingCall {
                name,
                args_text: self.args,
                args: &self.value,
                ctx: self.ctx,
            };
            match hooks::run_pre(self.hooks(), &pending) {
                Some(Directive::Block(message)) => return Err(ToolAnswer::refusal(message)),
                Some(Directive::Approve(reason)) => approval = Some(reason),
                None => {}
            }
        }
        if approval.is_none() && self.tool.is_some_and(|t| needs_approval(self.config, t)) {
            approval = Some(format!("{name} requires approval before it runs"));
        }
        let Some(reason) = approval else {
            return Ok(());
        };
        let request = ApprovalRequest {
            tool: name,
            args: &self.value,
            reason: &reason,
            ctx: self.ctx,
        };
        match self.registry.approval_gate() {
            None => Err(ToolAnswer::refusal(format!(
                "{name} needs approval ({reason}) but no approval gate is configured, so the call \
                 was refused. Do not retry it; tell the user."
            ))),
            Some(gate) if gate.approve(&request) => Ok(()),
            Some(_) => Err(ToolAnswer::refusal(format!(
                "The user did not approve this {name} call ({reason}). Do not retry it unchanged."
            ))),
        }
    }

    /// Whether a sync tool runs on the async worker as is (see `CallOptions::on_worker`).
    #[cfg(feature = "multi-thread")]
    fn on_worker(&self) -> bool {
        self.options.on_worker
    }

    /// Step 4 for a sync tool, on this thread (measured, for a turn's call: `by_cost`).
    fn run_inline(&self) -> ToolAnswer {
        let Some(tool) = self.tool() else {
            return self
                .registry
                .unknown_tool(self.name, self.options.definitions.as_ref());
        };
        let judge = Judge::new(tool, self.options.definitions.as_ref(), self.config);
        let run = || run_sync(tool, self.args, self.ctx, &judge);
        if self.options.by_cost.is_some() {
            // A turn's call measured cheap: cheaper than a hop to another thread, so run here
            // without `block_in_place` either, and measured again.
            return tool.cost().timed(run);
        }
        // On a multi-thread runtime, let the executor move its other tasks off this worker
        // (without the `multi-thread` feature the tool runs on the worker, as `on_worker`).
        #[cfg(feature = "multi-thread")]
        if !self.on_worker()
            && tokio::runtime::Handle::try_current().is_ok_and(|handle| {
                handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
            })
        {
            return tokio::task::block_in_place(run);
        }
        run()
    }

    /// Step 4: dispatch, where the tool's kind says (see the module docs).
    async fn run(&self) -> ToolAnswer {
        let Some(tool) = self.tool else {
            return self
                .registry
                .unknown_tool(self.name, self.options.definitions.as_ref());
        };
        let learns = runs_inline(tool) && self.options.by_cost.is_some();
        let cheap = || {
            self.options
                .by_cost
                .is_some_and(|limit| tool.cost().is_under(limit))
        };
        if runs_inline(tool) && (!learns || cheap()) {
            return self.run_inline();
        }
        let limit = self.config.timeout_for(tool.name(), tool.timeout_secs());
        let finished = if tool.is_async() {
            let judge = Judge::new(tool, self.options.definitions.as_ref(), self.config);
            tokio::time::timeout(limit, run_async(tool, self.args, self.ctx, &judge)).await
        } else {
            // A `blocking` sync tool (or a sync tool of a turn not yet measured cheap): the
            // blocking pool owns what it needs.
            let (tool, args, ctx) = (Arc::clone(tool), self.args.to_owned(), self.ctx.clone());
            let (config, shown) = (Arc::clone(self.config), self.options.definitions.clone());
            let handoff = tokio::task::spawn_blocking(move || {
                let run = || {
                    let judge = Judge::new(&tool, shown.as_ref(), &config);
                    run_sync(&tool, &args, &ctx, &judge)
                };
                if learns {
                    tool.cost().timed(run)
                } else {
                    run()
                }
            });
            match tokio::time::timeout(limit, handoff).await {
                Ok(joined) => Ok(joined.unwrap_or_else(|err| {
                    ToolAnswer::error(format!("tool {:?} did not finish: {err}", self.name))
                })),
                Err(elapsed) => Err(elapsed),
            }
        };
        finished.unwrap_or_else(|_| timed_out(self.name, limit))
    }

    /// Steps 5 to 8: redaction, post-call hooks, transforms and the answer budget.
    fn finish(&self, answer: ToolAnswer, status: Status) -> ToolAnswer {
        let answer = self.redact(answer);
        let answer = self.transform(answer, status);
        self.fit_budget(answer)
    }

    /// Step 5 (and again for a transform's replacement).
    fn redact(&self, answer: ToolAnswer) -> ToolAnswer {
        if self.redacts() {
            answer.redacted()
        } else {
            answer
        }
    }

    /// Whether this call's answer is redacted: unless the config or the tool says otherwise.
    fn redacts(&self) -> bool {
        let raw = self.tool.is_some_and(|tool| tool.is_raw_output());
        self.config.redacts_answers_of(self.name, raw)
    }

    /// Steps 6 and 7: post-call hooks and transforms.
    fn transform(&self, answer: ToolAnswer, status: Status) -> ToolAnswer {
        if self.hooks().is_empty() {
            answer
        } else {
            let record = CallRecord {
                name: self.name,
                args: &self.value,
                result: answer.as_str(),
                duration_ms: self.started.map_or(0, |started| {
                    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
                }),
                status,
                ctx: self.ctx,
            };
            hooks::run_post(self.hooks(), &record);
            match hooks::run_transforms(self.hooks(), &record) {
                // An error stays an error (MCP's isError) whatever its text becomes.
                Some(replacement) => {
                    self.redact(answer.with_text(ToolAnswer::text(replacement).into_string()))
                }
                None => answer,
            }
        }
    }

    /// Step 8: the tool's answer budget, within the turn's.
    fn fit_budget(&self, answer: ToolAnswer) -> ToolAnswer {
        let config = self.config;
        let max_chars = self.tool.map_or(config.default_max_result_chars, |t| {
            config.max_result_chars_for(t.name(), t.max_result_chars())
        });
        let spill = Spill::configured(config);
        let fitted = match &self.options.turn {
            Some(turn) => turn.fit(self.name, answer.as_str(), max_chars, spill.as_ref()),
            None => crate::call::budget::fit(self.name, answer.as_str(), max_chars, spill.as_ref()),
        };
        if fitted.cut.is_none() {
            return answer;
        }
        let text = fitted.into_string();
        answer.with_text(text)
    }
}

fn timed_out(name: &str, limit: Duration) -> ToolAnswer {
    tracing::warn!(tool = %name, ?limit, "tool timed out");
    ToolAnswer::error(format!(
        "Tool {name:?} timed out after {} s and was stopped. Try a smaller task or a longer timeout.",
        limit.as_secs_f64()
    ))
}
