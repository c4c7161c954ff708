//! A model turn: every tool call of one reply run through the pipeline, concurrently where
//! that is safe, answered in the model's order.
//!
//! The rules are documented on [`Turn`], where users read them.

use std::ops::Range;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::ToolRegistry;
use crate::call::answer::ToolAnswer;
use crate::call::budget::TurnBudget;
use crate::call::combinators::{Started, bounded_by, unless};
use crate::call::context::ToolContext;
use crate::call::pipeline::CallOptions;
use crate::provider::ToolCall;
use crate::registry::handle::Current;
use crate::tool::Tool;

/// Calls of one batch running at once when the turn does not say (Hermes' tool worker pool
/// holds 8 threads).
const DEFAULT_MAX_CONCURRENCY: usize = 8;

/// A model turn: every tool call of one reply run through the pipeline, concurrently where
/// that is safe, answered in the model's order.
///
/// ```
/// use hermes_tools::provider::ToolCall;
/// use hermes_tools::{tool::Tool, ToolContext, ToolRegistry, Turn};
/// use serde_json::json;
///
/// let registry = ToolRegistry::new();
/// registry
///     .register(
///         Tool::builder("weather", "demo")
///             .description("Today's weather in a city.")
///             .parameters(json!({"type": "object", "properties": {"city": {"type": "string"}}}))
///             .parallel(true)
///             .handler(|args, _ctx| json!({"city": args["city"], "sky": "clear"}))
///             .build(),
///     )
///     .unwrap();
/// let calls = [
///     ToolCall::new("call_1", "weather", r#"{"city": "Paris"}"#),
///     ToolCall::new("call_2", "weather", r#"{"city": "Oslo"}"#),
/// ];
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let answers = registry.run_turn(&calls, &ToolContext::new(), &Turn::new()).await;
/// assert_eq!(answers[0].to_value()["city"], "Paris");
/// assert_eq!(answers[1].to_value()["city"], "Oslo");
/// # });
/// ```
///
/// # Which calls run together
///
/// A call is **parallel-safe** when its tool says so: `#[tool(parallel)]` or
/// [`ToolBuilder::parallel`](crate::tool::ToolBuilder::parallel), else `#[tool(read_only)]` (see
/// [`Tool::is_parallel_safe`]); an MCP server's tools when its config says
/// `parallel_tool_calls = true`. The turn keeps the model's order wherever it could matter:
///
/// 1. Consecutive parallel-safe calls form a **batch**: they start in order and run
///    concurrently, at most [`Turn::max_concurrency`] at once (default 8, the size of
///    Hermes' tool worker pool). A finished call frees its place for the next at once (no
///    call waits for an earlier, slower one).
/// 2. Any other call is a **barrier**: it starts when everything before it has finished, runs
///    alone, and everything after it waits for it. A tool the registry does not know is a
///    barrier too (it gets its "unknown tool" answer, with the nearest names, in its place).
/// 3. The answers come back in the calls' order, whatever order they finished in.
/// 4. A call whose id an earlier call of the turn already has does not run: it is answered
///    with an error naming the repeated id (providers reject a reply that answers one id
///    twice).
///
/// Every call goes through [`call_with`](crate::ToolRegistry::call_with), so hooks, approval,
/// redaction and budgets see each call as if it had been made alone; the context each tool
/// sees carries its call's id ([`ToolContext::tool_call_id`]).
///
/// Unlike Hermes, a call whose arguments are not JSON is not a barrier: it cannot run, so it
/// cannot race; its answer says what to fix. Nor are paths compared: `read_file` is
/// read-only and runs with the others, `write_file` is not and is a barrier.
///
/// # Where a call runs
///
/// An async tool is a future of the turn: a batch of them is one task, concurrent on any
/// runtime, the current-thread one included. A sync tool runs inline when it runs alone (as
/// [`call`](crate::ToolRegistry::call) runs it); in a batch of two or more, inline would
/// serialise the batch (one task runs one sync call at a time), so it runs on tokio's blocking
/// pool instead, under its timeout, as a `#[tool(blocking)]` tool always does, unless it is
/// **cheap**: the turn measures each sync call it hands off (the tool's run) or runs this way
/// (the whole call, hooks included: what it holds the batch back), and a tool whose recent
/// calls each took under 20 µs ([`Turn::inline_under`]) runs inline on the turn's task, since
/// the hop to another thread (5-15 µs) would cost more than it holds the batch back. A tool never measured, or
/// seen slow in its last few dozen calls, goes to the pool; a cheap tool whose calls turn slow
/// holds its batch back for two of them (one slow call alone is taken for the thread having
/// been descheduled), and goes to the pool from then on. A cheap call costs about what the
/// same call alone would: the turn keeps the registry's tools and config across its calls
/// (taken anew whenever the registry changes, so a call runs the tool and config registered
/// when it starts, even if an earlier call of the batch changed them), reuses the lookup of
/// the call's tool that decided its batch (unless the registry changed since), and keeps its
/// calls' ids in one allocation.
///
/// What the pipeline does before a tool runs (pre-call hooks, the approval gate) is sync and
/// runs on the turn's task as each call starts: a gate that asks the user holds the batch's
/// async calls until it returns (calls on the blocking pool go on), and never asks two
/// questions at once.
///
/// # Budget, timeouts and cancellation
///
/// * **Budget.** One [`TurnBudget`] is shared by all answers of the turn: the one in the turn's
///   [`CallOptions`], else a new one of [`Config::turn_max_chars`](crate::config::Config::turn_max_chars)
///   characters (200,000 by default, as Hermes; 0 for none).
/// * **Timeouts** are each call's own, as in the pipeline: an async tool's future is dropped
///   when its timeout expires, and a sync tool on the blocking pool is answered at its timeout
///   and left to finish. There is no turn-wide timeout; a deadline for the whole turn is a
///   [`TurnCancel`] cancelled by a timer (see [`Turn::cancel_on`]), which still answers every
///   call.
/// * **Cancellation.** [`TurnCancel::cancel`] makes the turn return promptly with an answer
///   for every call: a call that had not started answers that the turn was cancelled and it
///   did not run; a running async call is dropped (its tool stops at its next `.await`); a
///   running sync call cannot be stopped, so it is left to finish and its answer is discarded.
///   Either running kind answers that it was interrupted and its effect may be partial. So
///   that this holds for a sync call running alone too, a turn that can be cancelled runs every
///   sync tool on the blocking pool unless it is cheap (measured as above: it is done before a
///   cancellation could be noticed). A call cut short by cancellation skips its post-call
///   hooks (it has no answer to show them), and a call that never started skips every hook.
///
/// How one model turn's calls run: the pipeline options every call shares, a concurrency
/// limit, and a cancellation handle.
///
/// ```
/// use hermes_tools::{CallOptions, Turn, provider::TurnCancel};
///
/// let cancel = TurnCancel::new();
/// let turn = Turn::new()
///     .options(CallOptions::new().from_agent_loop())
///     .max_concurrency(4)
///     .cancel_on(cancel.clone());
/// // Elsewhere (a Ctrl-C handler, a new user message): `cancel.cancel()`.
/// # let _ = turn;
/// ```
#[derive(Clone, Debug)]
pub struct Turn {
    options: CallOptions,
    max_concurrency: usize,
    cancel: Option<TurnCancel>,
    inline_under: Duration,
}

impl Default for Turn {
    fn default() -> Self {
        Self {
            options: CallOptions::new(),
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            cancel: None,
            inline_under: crate::call::cost::CHEAP,
        }
    }
}

impl Turn {
    /// A turn of plain calls ([`CallOptions::new`]), at most 8 at once (as Hermes' tool worker
    /// pool), that cannot be cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// The pipeline options of every call (the definitions the model was shown, whether the
    /// agent loop is calling, the turn's [`TurnBudget`]).
    pub fn options(mut self, options: CallOptions) -> Self {
        self.options = options;
        self
    }

    /// The most calls of a batch running at once. 0 is taken as 1 (one at a time: the batch
    /// still keeps its order, and a turn always makes progress).
    pub fn max_concurrency(mut self, n: usize) -> Self {
        self.max_concurrency = n.max(1);
        self
    }

    /// How cheap a sync tool's calls must be to run inline on the turn's task where the turn
    /// would otherwise hand them to the blocking pool (see "Where a call runs" in the [`Turn`]
    /// docs): its recent calls each took less than `limit`. 20 µs by default, about two hops to
    /// the pool on a typical machine; `Duration::ZERO` hands every such call to the pool.
    ///
    /// ```
    /// use std::time::Duration;
    /// use hermes_tools::Turn;
    ///
    /// // Tools measured under a millisecond may hold the batch back that long.
    /// let turn = Turn::new().inline_under(Duration::from_millis(1));
    /// # let _ = turn;
    /// ```
    pub fn inline_under(mut self, limit: Duration) -> Self {
        self.inline_under = limit;
        self
    }

    /// Cancels the turn when `cancel` is cancelled (see the [`Turn`] docs).
    ///
    /// A deadline for the whole turn is a timer that cancels it:
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use hermes_tools::{Turn, provider::TurnCancel};
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let cancel = TurnCancel::new();
    /// let turn = Turn::new().cancel_on(cancel.clone());
    /// let timer = tokio::spawn(async move {
    ///     tokio::time::sleep(Duration::from_secs(120)).await;
    ///     cancel.cancel();
    /// });
    /// // ... registry.run_turn(&calls, &ctx, &turn).await ...
    /// timer.abort();
    /// # let _ = turn;
    /// # });
    /// ```
    pub fn cancel_on(mut self, cancel: TurnCancel) -> Self {
        self.cancel = Some(cancel);
        self
    }
}

/// Cancels a running turn: calls not started answer a "cancelled" error; running async calls
/// are dropped; a running sync call cannot be stopped and its answer is discarded.
///
/// Clones share one state; cancelling is for good (a new turn takes a new handle).
///
/// ```
/// use hermes_tools::provider::TurnCancel;
///
/// let cancel = TurnCancel::new();
/// let handle = cancel.clone();
/// assert!(!cancel.is_cancelled());
/// handle.cancel();
/// assert!(cancel.is_cancelled());
/// ```
#[derive(Clone, Debug, Default)]
pub struct TurnCancel {
    inner: Arc<CancelState>,
}

#[derive(Debug, Default)]
struct CancelState {
    cancelled: AtomicBool,
    woken: Notify,
}

impl TurnCancel {
    /// A handle not yet cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels every turn run with this handle (or a clone of it), now or later.
    pub fn cancel(&self) {
        if !self.inner.cancelled.swap(true, Ordering::AcqRel) {
            self.inner.woken.notify_waiters();
        }
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Resolves once cancelled.
    async fn cancelled(&self) {
        loop {
            let mut woken = pin!(self.inner.woken.notified());
            // Registered before the check, so a `cancel` in between still wakes it.
            woken.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            woken.await;
        }
    }
}

impl ToolRegistry {
    /// Runs every call of one model turn through the pipeline; answers in the calls' order.
    ///
    /// Consecutive parallel-safe calls run concurrently (at most
    /// [`Turn::max_concurrency`] at once), any other call runs alone between them; one
    /// [`TurnBudget`] covers all answers; [`Turn::cancel_on`] stops the turn early with an
    /// answer for every call. The [`Turn`] docs give the rules.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use hermes_tools::provider::ToolCall;
    /// use hermes_tools::{tool::Annotations, tool::Tool, ToolContext, ToolRegistry, Turn};
    ///
    /// let registry = ToolRegistry::new();
    /// let read_only = Annotations { read_only: true, ..Annotations::default() };
    /// let fetch = Tool::builder("fetch", "web")
    ///     .annotations(read_only)
    ///     .async_handler(|_args, _ctx| async {
    ///         tokio::time::sleep(Duration::from_millis(100)).await;
    ///         "page"
    ///     });
    /// registry.register(fetch.build()).unwrap();
    /// let note = Tool::builder("note", "notes").handler(|_args, _ctx| "noted");
    /// registry.register(note.build()).unwrap();
    ///
    /// // The model asked for four pages, a note, one more page, and `nope`, which is no tool.
    /// let mut calls: Vec<ToolCall> =
    ///     (1..=4).map(|i| ToolCall::new(format!("call_{i}"), "fetch", "{}")).collect();
    /// calls.push(ToolCall::new("call_5", "note", "{}"));
    /// calls.push(ToolCall::new("call_6", "fetch", "{}"));
    /// calls.push(ToolCall::new("call_7", "nope", "{}"));
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let started = Instant::now();
    /// let answers = registry.run_turn(&calls, &ToolContext::new(), &Turn::new()).await;
    /// // The four pages overlap (100 ms, not 400), the note waits for them, the last page
    /// // waits for the note: about 200 ms in all.
    /// assert!(started.elapsed() < Duration::from_millis(400));
    /// let texts: Vec<&str> = answers.iter().map(|a| a.as_str()).collect();
    /// let page = r#"{"result":"page"}"#;
    /// assert_eq!(texts[..6], [page, page, page, page, r#"{"result":"noted"}"#, page]);
    /// assert!(answers[6].is_error()); // "unknown tool", in its place
    /// # });
    /// ```
    pub async fn run_turn(
        &self,
        calls: &[ToolCall],
        ctx: &ToolContext,
        turn: &Turn,
    ) -> Vec<ToolAnswer> {
        let mut options = turn.options.clone();
        if !options.has_turn_budget() {
            let chars = self.config().turn_max_chars;
            if chars > 0 {
                options = options.turn(Arc::new(TurnBudget::new(chars)));
            }
        }
        let cancel = turn.cancel.as_ref();
        // A sync tool leaves the turn's task when the task has more to do meanwhile (run the
        // rest of its batch, or notice a cancellation), unless it is cheaper than leaving.
        let pooled = options.clone().by_cost(turn.inline_under);
        // A call measured cheap runs on the turn's task as is, timed here (see below).
        let inline = options.clone().on_worker();
        let alone = if cancel.is_some() { &pooled } else { &options };
        let repeated = repeated_ids(calls);
        // The tools and config every call of the turn sees, taken anew only when the registry
        // changes (a call may register a tool): no lock per call.
        let mut current = self.current();
        // Each call's tool, looked up in the snapshot taken now: a cheap call reuses this
        // lookup as it starts unless the registry's tools changed before then. (The snapshot
        // lives as long as the turn: a tool deregistered meanwhile is dropped when it ends.)
        let listed = Arc::clone(&current.snapshot);
        let tools: Vec<Option<&Arc<Tool>>> =
            calls.iter().map(|call| listed.get(&call.name)).collect();
        let parallel: Vec<bool> = calls
            .iter()
            .zip(&tools)
            .zip(&repeated)
            .map(|((call, tool), &repeated)| {
                // A repeated id does not run, so it races nothing.
                repeated
                    || match options.shown() {
                        None => tool.is_some_and(|tool| tool.is_parallel_safe()),
                        shown => crate::search::bridge::parallel_safe(
                            self,
                            &call.name,
                            &call.arguments,
                            shown,
                        ),
                    }
            })
            .collect();
        // Every call's id in one text, each call's context pointing into it: no allocation
        // per call.
        let ids = CallIds::new(calls);
        // The context of the turn's calls to cheap tools, set to each one's id in turn (it
        // runs on this registry already, so the pipeline copies nothing).
        let mut inline_ctx = ctx.on(self).into_owned();
        let batches = batches(&parallel);
        tracing::debug!(
            calls = calls.len(),
            batches = batches.len(),
            "running a turn"
        );

        // Each call's answer, in the calls' order, put in its place as it ends.
        let mut answers: Vec<Option<ToolAnswer>> = Vec::with_capacity(calls.len());
        for range in batches {
            let repeated = &repeated[range.clone()];
            let batch = &calls[range.clone()];
            if let [call] = batch {
                let answer = if repeated[0] {
                    repeated_id(call)
                } else {
                    self.run_in_turn(call, ids.context(ctx, range.start), alone, cancel)
                        .await
                };
                answers.push(Some(answer));
                continue;
            }
            let (pooled, inline, ids) = (&pooled, &inline, &ids);
            let (current, inline_ctx) = (&mut current, &mut inline_ctx);
            // When the last cheap call ended, if nothing has run since: the next one's start.
            let mut ended: Option<Instant> = None;
            // A repeated id is answered in its place now; the other calls' places wait.
            answers.extend(
                batch
                    .iter()
                    .zip(repeated)
                    .map(|(call, &repeated)| repeated.then(|| repeated_id(call))),
            );
            // Each job is its call's place in the turn, its key the place of its answer. (No
            // closure here has a reference parameter: one that had, held across the await
            // below, would make the turn's future not `Send` for every lifetime, which
            // `tokio::spawn` needs.)
            let first = range.start;
            let jobs = range.filter_map(|at| (!repeated[at - first]).then_some((at, at)));
            let tools = &tools;
            let start = |at: usize, ran_between: bool| {
                let call = &calls[at];
                // Whether the call is to a sync tool measured cheap, as it starts (after the
                // calls before it were measured): it runs then and there, with no future
                // ("Where a call runs"), on the tool registered now.
                self.refresh(current);
                let tool = match Arc::ptr_eq(&current.snapshot, &listed) {
                    true => tools[at],
                    false => current.snapshot.get(&call.name),
                };
                let cheap = tool.filter(|t| {
                    !t.is_async() && !t.is_blocking() && t.cost().is_under(turn.inline_under)
                });
                if let Some(cheap) = cheap {
                    // Timed from the previous cheap call's end when it ended just before (the
                    // turn's bookkeeping between them is counted in, some tens of ns): one
                    // clock read per call, a tenth of a trivial call's cost.
                    let started = ended.filter(|_| !ran_between).unwrap_or_else(Instant::now);
                    let ctx = ids.set(inline_ctx, at);
                    let answer = self.run_now(call, ctx, inline, cancel, current, tool);
                    ended = Some(cheap.cost().ended(started));
                    Started::Done(answer)
                } else {
                    // Starting this call takes time no cheap call took: the next one reads
                    // the clock.
                    ended = None;
                    Started::Running(self.run_in_turn(call, ids.context(ctx, at), pooled, cancel))
                }
            };
            let answered = |at: usize, answer| answers[at] = Some(answer);
            bounded_by(jobs, turn.max_concurrency, start, answered).await;
        }
        // `bounded_by` returns once every call it started has ended: every place is filled.
        answers
            .into_iter()
            .map(|answer| answer.expect("an answer for every call"))
            .collect()
    }

    /// One call of a turn to a sync tool measured cheap, run to its end right here: it is done
    /// before a cancellation could be noticed, so only one that came before it is. `ctx`
    /// holds the call's id.
    fn run_now(
        &self,
        call: &ToolCall,
        ctx: &ToolContext,
        options: &CallOptions,
        cancel: Option<&TurnCancel>,
        current: &Current,
        tool: Option<&Arc<Tool>>,
    ) -> ToolAnswer {
        if cancel.is_some_and(TurnCancel::is_cancelled) {
            return not_run(&call.name);
        }
        self.call_blocking_current(&call.name, &call.arguments, ctx, options, current, tool)
    }

    /// One call of a turn, with the call's id in its context `ctx`, raced against cancellation.
    async fn run_in_turn(
        &self,
        call: &ToolCall,
        ctx: ToolContext,
        options: &CallOptions,
        cancel: Option<&TurnCancel>,
    ) -> ToolAnswer {
        let Some(cancel) = cancel else {
            return self
                .call_with(&call.name, &call.arguments, &ctx, options)
                .await;
        };
        if cancel.is_cancelled() {
            return not_run(&call.name);
        }
        let running = pin!(self.call_with(&call.name, &call.arguments, &ctx, options));
        match unless(running, pin!(cancel.cancelled())).await {
            Some(answer) => answer,
            None => {
                tracing::info!(tool = %call.name, "turn cancelled while the call was running");
                interrupted(&call.name)
            }
        }
    }
}

/// The ids of a turn's calls in one text, and where each call's is.
struct CallIds {
    text: Arc<str>,
    /// Where each call's id ends in `text` (it starts where the previous one ends).
    ends: Vec<usize>,
}

impl CallIds {
    fn new(calls: &[ToolCall]) -> Self {
        let mut text = String::with_capacity(calls.iter().map(|call| call.id.len()).sum());
        let ends = calls
            .iter()
            .map(|call| {
                text.push_str(&call.id);
                text.len()
            })
            .collect();
        Self {
            text: text.into(),
            ends,
        }
    }

    /// The id of call `at`'s byte range in the text.
    fn range(&self, at: usize) -> Range<usize> {
        let start = at.checked_sub(1).map_or(0, |before| self.ends[before]);
        start..self.ends[at]
    }

    /// `ctx`, set to call `at`'s id (none for an empty one).
    fn set<'c>(&self, ctx: &'c mut ToolContext, at: usize) -> &'c ToolContext {
        ctx.set_tool_call_id_in(&self.text, self.range(at));
        ctx
    }

    /// The turn's context `ctx` with call `at`'s id in it.
    fn context(&self, ctx: &ToolContext, at: usize) -> ToolContext {
        let mut ctx = ctx.clone();
        self.set(&mut ctx, at);
        ctx
    }
}

/// The batches of a turn whose calls are parallel-safe or not, in order: each maximal run of
/// parallel-safe calls is one batch, every other call a batch of its own.
fn batches(parallel: &[bool]) -> Vec<Range<usize>> {
    let mut batches: Vec<Range<usize>> = Vec::new();
    for (i, &safe) in parallel.iter().enumerate() {
        match batches.last_mut() {
            Some(last) if safe && parallel[last.start] => last.end = i + 1,
            _ => batches.push(i..i + 1),
        }
    }
    batches
}

/// For each call, whether an earlier call of the reply has its id (an empty id repeats
/// nothing: such calls are told apart by their place).
fn repeated_ids(calls: &[ToolCall]) -> Vec<bool> {
    let mut seen = std::collections::HashSet::with_capacity_and_hasher(
        calls.len(),
        foldhash::fast::RandomState::default(),
    );
    calls
        .iter()
        .map(|call| !call.id.is_empty() && !seen.insert(call.id.as_str()))
        .collect()
}

/// The answer to a call whose id an earlier call of the same reply has: providers reject a
/// repeated id, and two answers with one id could not be told apart, so it does not run.
fn repeated_id(call: &ToolCall) -> ToolAnswer {
    let shown: String = call.id.chars().take(64).collect();
    let more = if shown.len() < call.id.len() {
        "..."
    } else {
        ""
    };
    ToolAnswer::refusal(format!(
        "This {} call has the id {shown:?}{more} of an earlier call in the same reply, so it \
         did not run: every call needs its own id. Call it again if it is still needed.",
        call.name.chars().take(64).collect::<String>()
    ))
}

fn not_run(name: &str) -> ToolAnswer {
    ToolAnswer::refusal(format!(
        "The turn was cancelled before this {name} call started, so it did not run. Do not \
         assume its result; call it again if it is still needed."
    ))
}

fn interrupted(name: &str) -> ToolAnswer {
    ToolAnswer::refusal(format!(
        "The turn was cancelled while this {name} call was running: it was stopped or left to \
         finish unseen, so it may have done part or all of its work. Check its effect before \
         relying on it or calling it again."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(parallel: &[bool]) -> Vec<(usize, usize)> {
        batches(parallel)
            .into_iter()
            .map(|r| (r.start, r.end))
            .collect()
    }

    #[test]
    fn consecutive_parallel_calls_share_a_batch() {
        assert_eq!(kinds(&[true, true, true]), [(0, 3)]);
    }

    #[test]
    fn every_other_call_is_a_batch_of_its_own() {
        assert_eq!(
            kinds(&[true, true, false, false, true, false, true, true]),
            [(0, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 8)]
        );
        assert_eq!(kinds(&[false, true]), [(0, 1), (1, 2)]);
    }

    #[test]
    fn no_calls_no_batches() {
        assert!(kinds(&[]).is_empty());
    }

    #[test]
    fn max_concurrency_zero_is_one() {
        assert_eq!(Turn::new().max_concurrency(0).max_concurrency, 1);
        assert_eq!(Turn::new().max_concurrency, DEFAULT_MAX_CONCURRENCY);
    }

    #[tokio::test]
    async fn a_repeated_id_is_answered_as_an_error_and_does_not_run() {
        use crate::tool::Tool;
        use std::sync::atomic::AtomicUsize;
        for parallel in [true, false] {
            let runs = Arc::new(AtomicUsize::new(0));
            let counted = Arc::clone(&runs);
            let registry = ToolRegistry::new();
            let tool = Tool::builder("count", "test")
                .parallel(parallel)
                .handler(
                    move |_, _| serde_json::json!({"run": counted.fetch_add(1, Ordering::SeqCst)}),
                )
                .build();
            registry.register(tool).unwrap();
            let calls = [
                ToolCall::new("call_1", "count", "{}"),
                ToolCall::new("call_1", "count", "{}"),
                ToolCall::new("call_2", "count", "{}"),
                ToolCall::new("", "count", "{}"),
                ToolCall::new("", "count", "{}"),
            ];
            let answers = registry
                .run_turn(&calls, &ToolContext::new(), &Turn::new())
                .await;
            assert_eq!(answers.len(), 5);
            assert_eq!(
                runs.load(Ordering::SeqCst),
                4,
                "the repeated call did not run"
            );
            assert!(answers[1].is_error(), "{}", answers[1]);
            assert!(
                answers[1]
                    .as_str()
                    .contains(r#"the id \"call_1\" of an earlier call"#),
                "{}",
                answers[1]
            );
            for i in [0, 2, 3, 4] {
                assert!(!answers[i].is_error(), "{i}: {}", answers[i]);
            }
        }
    }

    #[tokio::test]
    async fn a_cancel_before_waiting_is_seen() {
        let cancel = TurnCancel::new();
        cancel.clone().cancel();
        cancel.cancelled().await;
        assert!(cancel.is_cancelled());
    }
}
