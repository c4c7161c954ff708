//! A task's stored record: everything `tasks/get`, `tasks/update` and `tasks/cancel` need,
//! as plain serialisable data, so that any process sharing the store can answer them.

use std::collections::BTreeMap;

use rmcp::model::{
    DetailedTask, InputRequest, InputRequests, JsonObject, Task, TaskPayload, TaskStatus,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One task as a [`TaskStore`](super::TaskStore) keeps it (a JSON document: every field is
/// plain data, nothing refers to the process that wrote it).
///
/// The status is kept consistent by the methods that change it: a finished task
/// ([`is_terminal`](Self::is_terminal)) never changes again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id: 128 random bits in hex (a bearer token for the task: unguessable).
    pub id: String,
    /// The tool whose call the task is.
    pub tool: String,
    /// `working`, `input_required`, or the terminal `completed`, `failed`, `cancelled`.
    pub status: TaskStatus,
    /// What is happening now (the tool's latest progress message), or why it ended.
    pub status_message: Option<String>,
    /// The tool's latest progress report.
    pub progress: Option<TaskProgress>,
    /// The `CallToolResult`, once `completed`.
    pub result: Option<JsonObject>,
    /// The JSON-RPC error (`code`, `message`), once `failed`.
    pub error: Option<JsonObject>,
    /// Questions the tool put that the client has yet to answer, by key (`inputRequests`).
    pub input_requests: InputRequests,
    /// Answers given with `tasks/update` that the running call has yet to take, by key.
    pub input_responses: BTreeMap<String, Value>,
    /// When the task was created, in milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// When it last changed, in milliseconds since the Unix epoch.
    pub updated_at_ms: u64,
    /// How long the task is kept after its creation, in milliseconds (`ttlMs`): the store
    /// forgets it at `created_at_ms + ttl_ms` (see [`expires_at_ms`](Self::expires_at_ms)).
    pub ttl_ms: u64,
    /// The polling interval suggested to clients, in milliseconds.
    pub poll_interval_ms: u64,
    /// Whether a client asked to cancel it (`tasks/cancel`); the running process stops the
    /// call when it sees this.
    pub cancel_requested: bool,
    /// The server process running the call (see [`owner_id`](super::owner_id)).
    pub owner: String,
    /// Until when the owner's lease runs, in milliseconds since the Unix epoch: the owner
    /// renews it while the call runs; a task still unfinished after it lapsed is reported
    /// `failed` (its process died) by whoever reads it.
    pub lease_until_ms: u64,
}

/// A running tool's latest progress report, as kept in a [`TaskRecord`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskProgress {
    /// What is done so far.
    pub done: f64,
    /// What there is to do in all, when known.
    pub total: Option<f64>,
    /// What is happening now, if the tool said.
    pub message: Option<String>,
}

impl TaskProgress {
    /// The report as a status message: the tool's words, or `done/total`.
    fn describe(&self) -> String {
        match (&self.message, self.total) {
            (Some(message), Some(total)) => format!("{message} ({}/{})", self.done, total),
            (Some(message), None) => message.clone(),
            (None, Some(total)) => format!("{}/{}", self.done, total),
            (None, None) => format!("{}", self.done),
        }
    }
}

impl From<&crate::call::Progress> for TaskProgress {
    fn from(progress: &crate::call::Progress) -> Self {
        Self {
            done: progress.done,
            total: progress.total,
            message: progress
                .message
                .as_deref()
                .map(|text| crate::secrets::redact(text).into_owned()),
        }
    }
}

/// The error object of a failed task: JSON-RPC's `code` and `message`.
pub(super) fn error_object(code: i32, message: &str) -> JsonObject {
    let mut error = JsonObject::new();
    error.insert("code".into(), code.into());
    error.insert("message".into(), message.into());
    error
}

/// JSON-RPC's internal error, which a task that could not finish reports.
const INTERNAL_ERROR: i32 = -32603;

impl TaskRecord {
    /// A new `working` task of `tool`, created at `now_ms`, run by `owner` under a lease
    /// until `lease_until_ms`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: impl Into<String>,
        tool: impl Into<String>,
        now_ms: u64,
        ttl_ms: u64,
        poll_interval_ms: u64,
        owner: impl Into<String>,
        lease_until_ms: u64,
    ) -> Self {
        Self {
            id: id.into(),
            tool: tool.into(),
            status: TaskStatus::Working,
            status_message: None,
            progress: None,
            result: None,
            error: None,
            input_requests: InputRequests::new(),
            input_responses: BTreeMap::new(),
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
            ttl_ms,
            poll_interval_ms,
            cancel_requested: false,
            owner: owner.into(),
            lease_until_ms,
        }
    }

    /// When the store forgets the task: its creation plus its TTL.
    pub fn expires_at_ms(&self) -> u64 {
        self.created_at_ms.saturating_add(self.ttl_ms)
    }

    /// Whether the task finished (`completed`, `failed`, `cancelled`): it never changes again.
    pub fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }

    /// Whether the task is unfinished and its owner's lease lapsed before `now_ms`: the
    /// process running it is gone (or stalled), so nobody will finish it.
    pub fn lease_lapsed(&self, now_ms: u64) -> bool {
        !self.is_terminal() && now_ms > self.lease_until_ms
    }

    /// Marks a task whose lease lapsed `failed`, saying why; `false` (no change) otherwise.
    pub fn fail_if_lapsed(&mut self, now_ms: u64) -> bool {
        if !self.lease_lapsed(now_ms) {
            return false;
        }
        let why = format!(
            "the server process running this task ({}) stopped renewing its lease {} ms ago: \
             it died or was cut off, and the call did not finish; call the tool again",
            self.owner,
            now_ms - self.lease_until_ms
        );
        self.finish_failed(INTERNAL_ERROR, &why, now_ms);
        true
    }

    /// Ends the task `completed` with `result` (a `CallToolResult`, `isError` or not).
    pub fn finish_completed(&mut self, result: JsonObject, now_ms: u64) {
        if self.is_terminal() {
            return;
        }
        self.status = TaskStatus::Completed;
        self.result = Some(result);
        self.end(now_ms);
    }

    /// Ends the task `failed` with the JSON-RPC error `code` and `message`.
    pub fn finish_failed(&mut self, code: i32, message: &str, now_ms: u64) {
        if self.is_terminal() {
            return;
        }
        self.status = TaskStatus::Failed;
        self.status_message = Some(message.to_owned());
        self.error = Some(error_object(code, message));
        self.end(now_ms);
    }

    /// Ends the task `cancelled`.
    pub fn finish_cancelled(&mut self, now_ms: u64) {
        if self.is_terminal() {
            return;
        }
        self.status = TaskStatus::Cancelled;
        self.status_message = Some("cancelled at the client's request (tasks/cancel)".into());
        self.end(now_ms);
    }

    /// What every ending shares: no question stays open, no answer waits.
    fn end(&mut self, now_ms: u64) {
        self.input_requests.clear();
        self.input_responses.clear();
        self.updated_at_ms = now_ms;
    }

    /// Records the tool's progress report (its text becomes the status message).
    pub fn report_progress(&mut self, progress: TaskProgress, now_ms: u64) {
        if self.is_terminal() {
            return;
        }
        self.status_message = Some(progress.describe());
        self.progress = Some(progress);
        self.updated_at_ms = now_ms;
    }

    /// Puts the tool's question `request` under `key`: the task is `input_required` until it
    /// is answered.
    pub fn put_question(&mut self, key: String, request: InputRequest, now_ms: u64) {
        if self.is_terminal() {
            return;
        }
        self.input_requests.insert(key, request);
        self.status = TaskStatus::InputRequired;
        self.updated_at_ms = now_ms;
    }

    /// Takes the client's `responses` to outstanding questions (others are ignored, as the
    /// extension asks: unknown, already answered or superseded keys); the task is `working`
    /// again once none is outstanding. Returns how many were taken.
    pub fn answer(&mut self, responses: BTreeMap<String, Value>, now_ms: u64) -> usize {
        if self.is_terminal() {
            return 0;
        }
        let mut taken = 0;
        for (key, response) in responses {
            if self.input_requests.remove(&key).is_some() {
                self.input_responses.insert(key, response);
                taken += 1;
            }
        }
        if taken > 0 {
            if self.input_requests.is_empty() {
                self.status = TaskStatus::Working;
            }
            self.updated_at_ms = now_ms;
        }
        taken
    }

    /// Notes a client's `tasks/cancel` (nothing to do for a finished task).
    pub fn request_cancel(&mut self, now_ms: u64) {
        if !self.is_terminal() && !self.cancel_requested {
            self.cancel_requested = true;
            self.updated_at_ms = now_ms;
        }
    }

    /// The task as the wire shows it (`tasks/get`'s `DetailedTask`).
    pub fn detailed(&self) -> DetailedTask {
        let mut task = Task::new(
            self.id.clone(),
            self.status,
            iso(self.created_at_ms),
            iso(self.updated_at_ms),
        )
        .with_ttl_ms(self.ttl_ms)
        .with_poll_interval_ms(self.poll_interval_ms);
        task.status_message = self.status_message.clone();
        let payload = match self.status {
            TaskStatus::InputRequired => TaskPayload::InputRequired {
                input_requests: self.input_requests.clone(),
            },
            TaskStatus::Completed => TaskPayload::Completed {
                result: self.result.clone().unwrap_or_default(),
            },
            TaskStatus::Failed => TaskPayload::Failed {
                error: self
                    .error
                    .clone()
                    .unwrap_or_else(|| error_object(INTERNAL_ERROR, "the task failed")),
            },
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            _ => TaskPayload::Working,
        };
        DetailedTask::new(task, payload)
    }
}

/// Milliseconds since the Unix epoch as ISO 8601 (UTC, to the millisecond).
fn iso(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Now, in milliseconds since the Unix epoch (what records are stamped with).
pub fn now_ms() -> u64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> TaskRecord {
        TaskRecord::new("t1", "slow", 1_000, 60_000, 500, "p1", 2_000)
    }

    #[test]
    fn the_wire_shape_is_the_extensions() {
        let mut task = record();
        task.report_progress(
            TaskProgress {
                done: 2.0,
                total: Some(4.0),
                message: Some("step 2".into()),
            },
            1_500,
        );
        let value = serde_json::to_value(task.detailed()).unwrap();
        assert_eq!(value["taskId"], "t1");
        assert_eq!(value["status"], "working");
        assert_eq!(value["statusMessage"], "step 2 (2/4)");
        assert_eq!(value["createdAt"], "1970-01-01T00:00:01.000Z");
        assert_eq!(value["lastUpdatedAt"], "1970-01-01T00:00:01.500Z");
        assert_eq!(value["ttlMs"], 60_000);
        assert_eq!(value["pollIntervalMs"], 500);
    }

    #[test]
    fn a_lapsed_lease_fails_an_unfinished_task_and_says_why() {
        let mut task = record();
        assert!(!task.fail_if_lapsed(2_000), "the lease runs until 2000");
        assert!(task.fail_if_lapsed(2_001));
        assert_eq!(task.status, TaskStatus::Failed);
        let message = task.status_message.clone().unwrap();
        assert!(
            message.contains("p1") && message.contains("lease"),
            "{message}"
        );
        let value = serde_json::to_value(task.detailed()).unwrap();
        assert_eq!(value["error"]["code"], INTERNAL_ERROR);

        let mut done = record();
        done.finish_completed(JsonObject::new(), 1_500);
        assert!(
            !done.fail_if_lapsed(10_000),
            "a finished task has no lease to lapse"
        );
        assert_eq!(done.status, TaskStatus::Completed);
    }
}
