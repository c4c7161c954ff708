//! A call that may become a task, driven to its end: it answers the request directly if it
//! finishes within the threshold; otherwise (or at its first question, or at once for a tool
//! declared a task, or where the tool calls `ToolContext::become_task`) it becomes a task, keeps running on this process after the request was
//! answered, and writes what happens to the store: progress, questions, the result. It renews
//! its lease while it runs, takes the answers and the cancel request other processes stored,
//! and stops the call (dropping it: the tools' own cancellation, which kills a terminal
//! command's processes) when cancelled or expired.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::sync::Mutex;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, JsonObject, ProgressToken, Task};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::time::Instant;

use super::Tasks;
use super::asker::{TaskAsker, ToDriver};
use super::record::{TaskProgress, TaskRecord, now_ms};
use crate::call::Progress;
use crate::mcp::server::mrtr::{Round, RoundAsker};
use crate::{CallOptions, ToolAnswer, ToolContext, ToolRegistry};

/// How a call that may become a task answers its request.
pub(in crate::mcp::server) enum Outcome {
    /// It finished in time: its answer, as a plain call's.
    Answer(ToolAnswer),
    /// It became a task: the seed state (`resultType: "task"`).
    Task(Task),
    /// It could not become a task (the store failed): the error.
    Failed(ErrorData),
}

/// The most often a task's progress is written to the store: a tool may report far more
/// often than anyone polls, and each write is a round trip to a shared store.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// A call about to be driven.
pub(in crate::mcp::server) struct Launch {
    pub(in crate::mcp::server) tasks: Tasks,
    pub(in crate::mcp::server) registry: ToolRegistry,
    pub(in crate::mcp::server) ctx: ToolContext,
    pub(in crate::mcp::server) options: CallOptions,
    pub(in crate::mcp::server) name: String,
    pub(in crate::mcp::server) args: String,
    /// Whether it becomes a task at once (a tool declared so).
    pub(in crate::mcp::server) at_once: bool,
    /// The call's Multi Round-Trip round, for a tool that asks before it becomes a task
    /// (its questions are answered by it until then).
    pub(in crate::mcp::server) round: Option<Arc<Round>>,
    /// The client's declared (form elicitation, sampling).
    pub(in crate::mcp::server) offers: (bool, bool),
    /// Where progress goes before the call is a task: the request's peer and token.
    pub(in crate::mcp::server) progress_to: Option<(Peer<RoleServer>, ProgressToken)>,
    /// Turns the tool's answer into the `CallToolResult` the client is shown.
    pub(in crate::mcp::server) finish: Box<dyn Fn(&ToolAnswer) -> CallToolResult + Send>,
}

/// The task a call became, as its driver holds it.
struct Promoted {
    id: String,
    /// Questions put, by key, with where their answers go.
    waiting: BTreeMap<String, oneshot::Sender<Value>>,
    /// The next question's number (keys are never reused in a task).
    next_key: usize,
    /// Woken by this process's `tasks/update` and `tasks/cancel` of the task.
    wake: Arc<Notify>,
    /// Progress not yet written, and when progress was last written.
    unwritten: Option<TaskProgress>,
    written_at: Instant,
}

impl Launch {
    /// Starts the call on its own tokio task; the receiver gets how to answer the request.
    /// Dropping the receiver before the call became a task cancels the call (the client
    /// cancelled its request).
    pub(in crate::mcp::server) fn start(self) -> oneshot::Receiver<Outcome> {
        let (reply, outcome) = oneshot::channel();
        tokio::spawn(self.drive(reply));
        outcome
    }

    async fn drive(self, reply: oneshot::Sender<Outcome>) {
        let Self {
            tasks,
            registry,
            ctx,
            options,
            name,
            args,
            at_once,
            round,
            offers,
            progress_to,
            finish,
        } = self;
        let (reports_to, mut reports) = mpsc::unbounded_channel::<Progress>();
        let (questions_to, mut questions) = mpsc::unbounded_channel::<ToDriver>();
        let is_task = Arc::new(AtomicBool::new(false));
        let ctx = ctx
            .with_progress(move |progress| {
                let _ = reports_to.send(progress.clone());
            })
            .with_asker(TaskAsker {
                questions: questions_to,
                round: round.map(RoundAsker),
                promoted: Arc::clone(&is_task),
                elicitation: offers.0,
                sampling: offers.1,
            });
        let tool = name.clone();
        let mut call =
            Box::pin(async move { registry.call_with(&name, &args, &ctx, &options).await });
        let mut reply = Some(reply);
        let mut task: Option<Promoted> = None;
        let mut latest: Option<TaskProgress> = None;
        let deadline = tokio::time::sleep(if at_once { Duration::ZERO } else { tasks.after });
        tokio::pin!(deadline);
        let mut step = Step::Go;
        let mut tick = tokio::time::interval(tasks.tick());
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let wake = task.as_ref().map(|task| Arc::clone(&task.wake));
            let flush_at = task
                .as_ref()
                .filter(|task| task.unwritten.is_some())
                .map(|task| task.written_at + PROGRESS_EVERY);
            tokio::select! {
                biased;
                answer = &mut call => {
                    match &task {
                        None => {
                            if let Some(reply) = reply.take() {
                                let _ = reply.send(Outcome::Answer(answer));
                            }
                        }
                        Some(promoted) => {
                            // A tool that panicked did not report a failure, it broke: an
                            // internal error (`failed`), where a reported one is `completed`
                            // with `isError`.
                            let panic = answer.panicked().then(|| panic_message(&answer));
                            let result = result_object(&finish(&answer));
                            let progress = promoted.unwritten.clone();
                            tasks.change(&promoted.id, move |record| {
                                let now = now_ms();
                                if let Some(progress) = progress.clone() {
                                    record.report_progress(progress, now);
                                }
                                match &panic {
                                    Some(message) => record.finish_failed(
                                        rmcp::model::ErrorCode::INTERNAL_ERROR.0,
                                        message,
                                        now,
                                    ),
                                    None => record.finish_completed(result.clone(), now),
                                }
                            }).await;
                        }
                    }
                    break;
                }
                () = closed(&mut reply), if task.is_none() => {
                    // The client cancelled its request before the call became a task.
                    return;
                }
                () = &mut deadline, if task.is_none() => {
                    match promote(&tasks, &tool, latest.take(), &mut reply).await {
                        Some(made) => task = Some(made),
                        None => return,
                    }
                    is_task.store(true, Ordering::Release);
                }
                Some(told) = questions.recv() => {
                    if task.is_none() {
                        match promote(&tasks, &tool, latest.take(), &mut reply).await {
                            Some(made) => task = Some(made),
                            None => return,
                        }
                        is_task.store(true, Ordering::Release);
                    }
                    let question = match told {
                        ToDriver::Question(question) => *question,
                        ToDriver::BecomeTask(go_on) => {
                            let _ = go_on.send(());
                            continue;
                        }
                    };
                    if let Some(promoted) = task.as_mut() {
                        let key = format!("input-{}", promoted.next_key);
                        promoted.next_key += 1;
                        let request = question.request;
                        let put = key.clone();
                        tasks.change(&promoted.id, move |record| {
                            record.put_question(put.clone(), request.clone(), now_ms());
                        }).await;
                        promoted.waiting.insert(key, question.answer);
                    }
                }
                Some(progress) = reports.recv() => {
                    let progress = TaskProgress::from(&progress);
                    match task.as_mut() {
                        Some(promoted) => promoted.unwritten = Some(progress),
                        None => {
                            if let Some((peer, token)) = &progress_to {
                                notify_progress(peer, token, &progress).await;
                            }
                            latest = Some(progress);
                        }
                    }
                }
                () = until(flush_at) => {
                    if let Some(promoted) = task.as_mut()
                        && let Some(progress) = promoted.unwritten.take()
                    {
                        promoted.written_at = Instant::now();
                        tasks.change(&promoted.id, move |record| {
                            record.report_progress(progress.clone(), now_ms());
                        }).await;
                    }
                }
                () = woken(wake) => {
                    if let Some(promoted) = task.as_mut() {
                        step = sync(&tasks, promoted).await;
                        if step != Step::Go {
                            break;
                        }
                    }
                }
                _ = tick.tick(), if task.is_some() => {
                    if let Some(promoted) = task.as_mut() {
                        step = sync(&tasks, promoted).await;
                        if step != Step::Go {
                            break;
                        }
                    }
                }
            }
        }
        // Dropping the call stops it, whatever it started (see the module docs): before the
        // task says `cancelled`, so that a client seeing it finds the processes gone.
        drop(call);
        if let Some(promoted) = task {
            if step == Step::Cancel {
                tasks
                    .change(&promoted.id, |record| record.finish_cancelled(now_ms()))
                    .await;
            }
            tasks.local.lock().remove(&promoted.id);
            if !promoted.waiting.is_empty() {
                tracing::debug!(task = %promoted.id, "a task ended with questions unanswered");
            }
        }
    }
}

/// What a panicked tool's error answer says: its `error` member.
fn panic_message(answer: &ToolAnswer) -> String {
    match answer.to_value().get("error").and_then(Value::as_str) {
        Some(message) => message.to_owned(),
        None => answer.as_str().to_owned(),
    }
}

/// Makes the call a task: its record stored (so `tasks/get` finds it before the client hears
/// of it), the seed state sent as the request's answer. `None` when the store failed (the
/// request is answered with the error, and the call dropped).
async fn promote(
    tasks: &Tasks,
    tool: &str,
    progress: Option<TaskProgress>,
    reply: &mut Option<oneshot::Sender<Outcome>>,
) -> Option<Promoted> {
    let now = now_ms();
    let id = super::new_task_id();
    let mut record = TaskRecord::new(
        &id,
        tool,
        now,
        millis(tasks.ttl),
        millis(tasks.poll_interval),
        super::owner_id(),
        now.saturating_add(millis(tasks.lease)),
    );
    if let Some(progress) = progress {
        record.report_progress(progress, now);
    }
    if let Err(err) = tasks.store.create(&record).await {
        if let Some(reply) = reply.take() {
            let _ = reply.send(Outcome::Failed(ErrorData::internal_error(
                format!("the call could not become a task: {err}"),
                None,
            )));
        }
        return None;
    }
    let wake = Arc::new(Notify::new());
    tasks.local.lock().insert(id.clone(), Arc::clone(&wake));
    if let Some(reply) = reply.take() {
        // A client gone meanwhile never learns the id; the task still runs to its end.
        let _ = reply.send(Outcome::Task(record.detailed().task));
    }
    Some(Promoted {
        id,
        waiting: BTreeMap::new(),
        next_key: 0,
        wake,
        unwritten: None,
        written_at: Instant::now(),
    })
}

/// What a running task does after looking at its record.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Runs on.
    Go,
    /// Stops: the record is gone (expired) or finished elsewhere.
    Stop,
    /// Stops, and ends `cancelled` once the call is dropped.
    Cancel,
}

/// Renews the task's lease and takes what other requests stored for it: answers (passed to
/// the questions waiting for them) and a cancel request.
async fn sync(tasks: &Tasks, promoted: &mut Promoted) -> Step {
    let taken: Arc<Mutex<BTreeMap<String, Value>>> = Arc::default();
    let lease = millis(tasks.lease);
    let out = Arc::clone(&taken);
    let record = tasks
        .store
        .update(&promoted.id, &move |record: &mut TaskRecord| {
            *out.lock() = std::mem::take(&mut record.input_responses);
            if !record.is_terminal() {
                record.lease_until_ms = now_ms().saturating_add(lease);
            }
        })
        .await;
    let record = match record {
        Ok(Some(record)) => record,
        Ok(None) => {
            tracing::info!(task = %promoted.id, "a task expired while running: its call is stopped");
            return Step::Stop;
        }
        Err(err) => {
            // The lease may lapse if this lasts: the task is then reported failed.
            tracing::warn!(task = %promoted.id, error = %err, "a running task could not reach its store");
            return Step::Go;
        }
    };
    for (key, response) in std::mem::take(&mut *taken.lock()) {
        if let Some(waiting) = promoted.waiting.remove(&key) {
            let _ = waiting.send(response);
        }
    }
    if record.is_terminal() {
        Step::Stop
    } else if record.cancel_requested {
        Step::Cancel
    } else {
        Step::Go
    }
}

impl Tasks {
    /// Applies `change` to task `id`'s record, logging a failed store (a running task's
    /// writes are best effort: its lease and TTL bound what a lost one costs).
    async fn change(&self, id: &str, change: impl Fn(&mut TaskRecord) + Send + Sync) {
        if let Err(err) = self.store.update(id, &change).await {
            tracing::warn!(task = %id, error = %err, "a task's record could not be written");
        }
    }

    /// How often a running task renews its lease and looks for answers and cancellation
    /// stored by other processes: a third of the lease, at most a second.
    fn tick(&self) -> Duration {
        (self.lease / 3).clamp(Duration::from_millis(10), Duration::from_secs(1))
    }
}

/// `result` as the JSON object a completed task carries.
fn result_object(result: &CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

/// Resolves when the reply's receiver is dropped (never once it was sent).
async fn closed(reply: &mut Option<oneshot::Sender<Outcome>>) {
    match reply {
        Some(reply) => reply.closed().await,
        None => std::future::pending().await,
    }
}

/// Resolves at `at`, or never.
async fn until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Resolves when `wake` is notified, or never.
async fn woken(wake: Option<Arc<Notify>>) {
    match wake {
        Some(wake) => wake.notified().await,
        None => std::future::pending().await,
    }
}

/// Sends `progress` as the request's `notifications/progress` (before the call is a task).
async fn notify_progress(peer: &Peer<RoleServer>, token: &ProgressToken, progress: &TaskProgress) {
    let mut params = rmcp::model::ProgressNotificationParam::new(token.clone(), progress.done);
    params.total = progress.total;
    params.message = progress.message.clone();
    if let Err(err) = peer.notify_progress(params).await {
        tracing::debug!(error = %err, "a running tool's progress was not sent");
    }
}

/// `duration` in whole milliseconds.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
