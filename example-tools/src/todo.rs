//! `todo`: the agent's task list for the session, with Hermes 0.19's exact semantics.
//!
//! Writing replaces the list, or with `merge` updates items by id and appends new ones.
//! Items are normalised as Hermes does (ids and contents trimmed, unknown statuses become
//! `pending`), contents are capped at 4,000 characters. Every call answers the whole list with
//! a summary.
//!
//! Where Hermes is silent, this one says so:
//!
//! - a list holds at most [`MAX_ITEMS`] items, and a write that would make more is refused with
//!   an error naming the limit, the list left as it was (Hermes keeps the head and drops the
//!   rest, answering success);
//! - the list belongs to the call's [`Session`](hermes_tools::call::Session) (its state, see
//!   [`ToolContext::session_state`]): two sessions never see each other's list, and it is
//!   dropped when the session ends. A call that belongs to no session is refused, rather than
//!   sharing one list among every caller.
//!
//! ```
//! use hermes_tools::{CallOptions, ToolContext, ToolRegistry};
//! # use example_tools as _;
//!
//! let registry = ToolRegistry::global();
//! // `todo` is the agent loop's own tool.
//! let agent_loop = CallOptions::new().from_agent_loop();
//! let ctx = ToolContext::new().with_session_id("conversation-1");
//! let write = r#"{"todos": [{"id": "1", "content": "read the issue"}]}"#;
//! registry.call_blocking_with("todo", write, &ctx, &agent_loop);
//! let read = registry.call_blocking_with("todo", "{}", &ctx, &agent_loop);
//! assert_eq!(read.to_value()["summary"]["total"], 1);
//!
//! let nowhere = registry.call_blocking_with("todo", "{}", &ToolContext::new(), &agent_loop);
//! assert!(nowhere.is_error());
//! ```

use std::borrow::Cow;
use std::collections::HashMap;

use hermes_tools::{ToolContext, tool};
use parking_lot::Mutex;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Longest item content kept, in characters; longer content is cut and marked.
pub const MAX_CONTENT_CHARS: usize = 4000;
/// Most items a list holds; a write that would make more is refused.
pub const MAX_ITEMS: usize = 256;
const TRUNCATION_MARKER: &str = "… [truncated]";

/// Where a task stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
    /// Dropped.
    Cancelled,
}

impl TodoStatus {
    /// The status named by `text` (trimmed, any case), as Hermes accepts it.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_lowercase().as_str() {
            "pending" => Some(Self::Pending),
            "in_progress" => Some(Self::InProgress),
            "completed" => Some(Self::Completed),
            "cancelled" => Some(Self::Cancelled),
            _ => None,
        }
    }
}

/// One task of the list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TodoItem {
    /// The agent-chosen identifier.
    pub id: String,
    /// What the task is.
    pub content: String,
    /// Where it stands.
    pub status: TodoStatus,
}

/// One item as the model sent it, kept raw so that it is read as leniently as Hermes reads
/// it: ids may be numbers, statuses any case, fields missing, items not even objects.
#[derive(Clone, Debug, PartialEq)]
pub struct TodoUpdate(Value);

impl From<Value> for TodoUpdate {
    fn from(value: Value) -> Self {
        Self(value)
    }
}

impl<'de> Deserialize<'de> for TodoUpdate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self)
    }
}

impl JsonSchema for TodoUpdate {
    fn schema_name() -> Cow<'static, str> {
        "TodoUpdate".into()
    }

    fn inline_schema() -> bool {
        true
    }

    /// Hermes' item schema, except that only `id` is required: a merge may send just the
    /// fields that change.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "properties": {
                "id": {"type": ["string", "integer"], "description": "Unique item identifier (a number is read as its text)"},
                "content": {"type": "string", "description": "Task description (required for a new item)"},
                "status": {
                    "type": "string",
                    "enum": ["pending", "in_progress", "completed", "cancelled"],
                    "description": "Current status (a new item without one is pending)"
                }
            },
            "required": ["id"]
        })
    }
}

impl TodoUpdate {
    fn field(&self, key: &str) -> Option<&Value> {
        self.0.as_object()?.get(key)
    }

    /// The id as Hermes reads it: `str(item.get("id", "")).strip()`.
    fn raw_id(&self) -> String {
        self.field("id")
            .map_or_else(String::new, |id| python_str(id).trim().to_owned())
    }

    /// Hermes' `_validate`: a complete item from whatever was sent.
    fn validated(&self) -> TodoItem {
        if !self.0.is_object() {
            return TodoItem {
                id: "?".into(),
                content: "(invalid item)".into(),
                status: TodoStatus::Pending,
            };
        }
        let id = self.raw_id();
        let content = self
            .field("content")
            .map_or_else(String::new, |c| python_str(c).trim().to_owned());
        let status = self.field("status").map_or(Some(TodoStatus::Pending), |s| {
            TodoStatus::parse(&python_str(s))
        });
        TodoItem {
            id: if id.is_empty() { "?".into() } else { id },
            content: if content.is_empty() {
                "(no description)".into()
            } else {
                cap_content(content)
            },
            status: status.unwrap_or(TodoStatus::Pending),
        }
    }

    /// Applies a merge update to an existing item: only fields actually given (truthy in
    /// Python's sense) change, and an unknown status is ignored.
    fn apply_to(&self, item: &mut TodoItem) {
        if let Some(content) = self.field("content").filter(|c| python_truthy(c)) {
            item.content = cap_content(python_str(content).trim().to_owned());
        }
        let status = self.field("status").filter(|s| python_truthy(s));
        if let Some(status) = status.and_then(|s| TodoStatus::parse(&python_str(s))) {
            item.status = status;
        }
    }
}

/// Python's `str()` of a JSON value, which Hermes applies to every field.
fn python_str(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        other => other.to_string(),
    }
}

/// Python's truthiness of a JSON value.
fn python_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn cap_content(content: String) -> String {
    if content.chars().count() <= MAX_CONTENT_CHARS {
        return content;
    }
    let keep = MAX_CONTENT_CHARS - TRUNCATION_MARKER.chars().count();
    let mut capped: String = content.chars().take(keep).collect();
    capped.push_str(TRUNCATION_MARKER);
    capped
}

/// Hermes' `_dedupe_by_id`: for a repeated id the last occurrence wins, at its own position.
/// Items that are not objects are all kept.
fn dedupe_by_id(updates: &[TodoUpdate]) -> Vec<&TodoUpdate> {
    let mut last_index: HashMap<String, usize> = HashMap::new();
    for (index, update) in updates.iter().enumerate() {
        let key = if update.0.is_object() {
            Some(update.raw_id())
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| "?".into())
        } else {
            // Each non-object is its own key (Hermes uses `__invalid_{i}`; a NUL-prefixed key
            // cannot collide with a model-sent id the way that one can).
            format!("\0invalid-{index}")
        };
        last_index.insert(key, index);
    }
    let mut kept: Vec<usize> = last_index.into_values().collect();
    kept.sort_unstable();
    kept.into_iter().map(|index| &updates[index]).collect()
}

/// Hermes' merge: update existing items by id, append new ones, then collapse repeated ids
/// (the list order of first appearance, the values of the last). An update that is not an
/// object has no id and is skipped (Hermes raises on it).
fn merge(items: &mut Vec<TodoItem>, updates: &[TodoUpdate]) {
    let mut latest: HashMap<String, TodoItem> = items
        .iter()
        .map(|item| (item.id.clone(), item.clone()))
        .collect();
    for update in dedupe_by_id(updates) {
        let id = update.raw_id();
        if id.is_empty() {
            continue;
        }
        if let Some(existing) = latest.get_mut(&id) {
            update.apply_to(existing);
        } else {
            let item = update.validated();
            latest.insert(item.id.clone(), item.clone());
            items.push(item);
        }
    }
    let mut seen = std::collections::HashSet::new();
    let rebuilt = items
        .iter()
        .filter_map(|item| {
            let current = latest.get(&item.id).unwrap_or(item);
            seen.insert(current.id.clone()).then(|| current.clone())
        })
        .collect();
    *items = rebuilt;
}

/// One session's task list: the state behind `todo`, kept in the session
/// ([`ToolContext::session_state`]), so it lives and dies with the session.
#[derive(Debug, Default)]
pub struct TodoStore {
    items: Mutex<Vec<TodoItem>>,
}

/// Why `todo` refused a call. Nothing was read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TodoError {
    /// The write would leave more than [`MAX_ITEMS`] items.
    #[error(
        "todo holds at most {limit} items, and this write would make {would_have}, so nothing was \
         changed. Drop completed or cancelled items (write the list without them), or split the \
         work into fewer, larger items."
    )]
    TooManyItems {
        /// The limit, [`MAX_ITEMS`].
        limit: usize,
        /// How many items the write would have left.
        would_have: usize,
    },
    /// The call belongs to no session, so there is no list to read or write.
    #[error(
        "todo keeps one task list per session, and this call belongs to no session, so there is \
         no list to read or write. Carry on without todo. (For the developer: give the call \
         context a session, e.g. ToolContext::with_session_id, once per conversation.)"
    )]
    NoSession,
}

impl TodoStore {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// The items, in priority order.
    pub fn read(&self) -> Vec<TodoItem> {
        self.items.lock().clone()
    }

    /// Replaces the list (or with `merge_by_id`, updates it), returning the new list.
    ///
    /// # Errors
    ///
    /// [`TodoError::TooManyItems`] when the result would hold more than [`MAX_ITEMS`] items; the
    /// list is then unchanged.
    pub fn write(
        &self,
        updates: &[TodoUpdate],
        merge_by_id: bool,
    ) -> Result<Vec<TodoItem>, TodoError> {
        let mut items = self.items.lock();
        let next = if merge_by_id {
            let mut next = items.clone();
            merge(&mut next, updates);
            next
        } else {
            dedupe_by_id(updates)
                .into_iter()
                .map(TodoUpdate::validated)
                .collect()
        };
        if next.len() > MAX_ITEMS {
            return Err(TodoError::TooManyItems {
                limit: MAX_ITEMS,
                would_have: next.len(),
            });
        }
        *items = next;
        Ok(items.clone())
    }
}

/// How many items are in each status.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TodoSummary {
    /// All items.
    pub total: usize,
    /// Items pending.
    pub pending: usize,
    /// Items in progress.
    pub in_progress: usize,
    /// Items completed.
    pub completed: usize,
    /// Items cancelled.
    pub cancelled: usize,
}

impl TodoSummary {
    fn of(items: &[TodoItem]) -> Self {
        let count = |status| items.iter().filter(|item| item.status == status).count();
        Self {
            total: items.len(),
            pending: count(TodoStatus::Pending),
            in_progress: count(TodoStatus::InProgress),
            completed: count(TodoStatus::Completed),
            cancelled: count(TodoStatus::Cancelled),
        }
    }
}

/// The whole list after a call, in Hermes' shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TodoList {
    /// Every item, in priority order.
    pub todos: Vec<TodoItem>,
    /// Counts per status.
    pub summary: TodoSummary,
}

/// Manage your task list for the current session: plan multi-step work and track progress.
///
/// Call with no arguments to read the current list. Pass `todos` to write: by default the
/// list is replaced; with `merge: true` items are updated by id (only the fields you give)
/// and new ids are appended. Each item has an `id`, a `content` and a `status`: `pending`,
/// `in_progress`, `completed` or `cancelled`. List order is priority. Keep one item
/// `in_progress` at a time and mark items `completed` as soon as they are done. A list holds
/// at most 256 items. Every call returns the full list with a summary.
///
/// # Arguments
/// * `todos` - Items to write. Omit to read the list.
/// * `merge` - true: update existing items by id and append new ones. false (default): replace the whole list.
#[tool(toolset = "todo", emoji = "📋")]
pub fn todo(
    todos: Option<Vec<TodoUpdate>>,
    #[arg(default = false)] merge: bool,
    ctx: &ToolContext,
) -> Result<TodoList, TodoError> {
    let store = ctx
        .session_state::<TodoStore>()
        .ok_or(TodoError::NoSession)?;
    let items = match todos {
        Some(updates) => store.write(&updates, merge)?,
        None => store.read(),
    };
    Ok(TodoList {
        summary: TodoSummary::of(&items),
        todos: items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermes_tools::{CallOptions, ToolRegistry};
    use serde_json::json;

    fn updates(value: Value) -> Vec<TodoUpdate> {
        serde_json::from_value(value).unwrap()
    }

    fn ids_and_statuses(list: &[TodoItem]) -> Vec<(String, TodoStatus)> {
        list.iter()
            .map(|item| (item.id.clone(), item.status))
            .collect()
    }

    #[test]
    fn replace_normalises_items_as_hermes() {
        let store = TodoStore::new();
        let list = store
            .write(
                &updates(json!([
                    {"id": " 1 ", "content": " first ", "status": "IN_PROGRESS"},
                    {"id": 2, "content": "", "status": "bogus"},
                    {"content": "no id"},
                    "not an object",
                    {"id": "3", "content": null, "status": null},
                ])),
                false,
            )
            .unwrap();
        let expected = [
            ("1", "first", TodoStatus::InProgress),
            ("2", "(no description)", TodoStatus::Pending),
            ("?", "no id", TodoStatus::Pending),
            ("?", "(invalid item)", TodoStatus::Pending),
            // Python's str(None) is "None", which Hermes keeps as content.
            ("3", "None", TodoStatus::Pending),
        ];
        let got: Vec<_> = list
            .iter()
            .map(|i| (i.id.as_str(), i.content.as_str(), i.status))
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn duplicate_ids_keep_the_last_at_its_position() {
        let store = TodoStore::new();
        let list = store
            .write(
                &updates(json!([
                    {"id": "a", "content": "old a"},
                    {"id": "b", "content": "b"},
                    {"id": "a", "content": "new a"},
                ])),
                false,
            )
            .unwrap();
        let got: Vec<_> = list
            .iter()
            .map(|i| (i.id.as_str(), i.content.as_str()))
            .collect();
        assert_eq!(got, [("b", "b"), ("a", "new a")]);
    }

    #[test]
    fn merge_updates_given_fields_and_appends_new_ids() {
        let store = TodoStore::new();
        store
            .write(
                &updates(json!([{"id": "1", "content": "one"}, {"id": "2", "content": "two"}])),
                false,
            )
            .unwrap();
        // The verified Hermes example.
        let list = store
            .write(
                &updates(json!([{"id": "2", "status": "completed"}, {"id": "3", "content": "c"}])),
                true,
            )
            .unwrap();
        assert_eq!(
            list,
            vec![
                TodoItem {
                    id: "1".into(),
                    content: "one".into(),
                    status: TodoStatus::Pending
                },
                TodoItem {
                    id: "2".into(),
                    content: "two".into(),
                    status: TodoStatus::Completed
                },
                TodoItem {
                    id: "3".into(),
                    content: "c".into(),
                    status: TodoStatus::Pending
                },
            ]
        );
    }

    #[test]
    fn merge_ignores_invalid_status_empty_ids_and_falsy_fields() {
        let store = TodoStore::new();
        store
            .write(
                &updates(json!([{"id": "1", "content": "one", "status": "in_progress"}])),
                false,
            )
            .unwrap();
        let list = store
            .write(
                &updates(json!([
                    {"id": "1", "status": "done!", "content": ""},
                    {"id": "  ", "content": "skipped"},
                    {"content": "no id either"},
                    "not an object",
                ])),
                true,
            )
            .unwrap();
        assert_eq!(
            list,
            vec![TodoItem {
                id: "1".into(),
                content: "one".into(),
                status: TodoStatus::InProgress
            }]
        );
        // A blank (but non-empty) content is truthy in Python: Hermes stores it stripped to "".
        let list = store
            .write(&updates(json!([{"id": "1", "content": "   "}])), true)
            .unwrap();
        assert_eq!(list[0].content, "");
    }

    #[test]
    fn merge_collapses_repeated_ids_from_an_earlier_replace() {
        let store = TodoStore::new();
        store
            .write(
                &updates(json!(["x", {"content": "y"}, {"id": "k", "content": "k"}])),
                false,
            )
            .unwrap();
        assert_eq!(store.read().len(), 3);
        let list = store
            .write(&updates(json!([{"id": "k", "status": "completed"}])), true)
            .unwrap();
        assert_eq!(
            ids_and_statuses(&list),
            [
                ("?".to_owned(), TodoStatus::Pending),
                ("k".to_owned(), TodoStatus::Completed)
            ]
        );
        // The "?" slot keeps its first position but the value of the last "?" item.
        assert_eq!(list[0].content, "y");
    }

    #[test]
    fn long_content_is_capped_and_marked() {
        let store = TodoStore::new();
        let long = "é".repeat(MAX_CONTENT_CHARS + 1);
        let list = store
            .write(&updates(json!([{"id": "1", "content": long}])), false)
            .unwrap();
        assert_eq!(list[0].content.chars().count(), MAX_CONTENT_CHARS);
        assert!(list[0].content.ends_with("é… [truncated]"));
        let exact = "x".repeat(MAX_CONTENT_CHARS);
        let list = store
            .write(
                &updates(json!([{"id": "1", "content": exact.clone()}])),
                false,
            )
            .unwrap();
        assert_eq!(list[0].content, exact);
    }

    fn numbered(range: std::ops::Range<usize>) -> Vec<TodoUpdate> {
        range
            .map(|i| TodoUpdate(json!({"id": i.to_string(), "content": "t"})))
            .collect()
    }

    #[test]
    fn a_replace_over_the_limit_is_refused_and_changes_nothing() {
        let store = TodoStore::new();
        store.write(&numbered(0..3), false).unwrap();
        let refused = store.write(&numbered(0..MAX_ITEMS + 1), false);
        assert_eq!(
            refused,
            Err(TodoError::TooManyItems {
                limit: MAX_ITEMS,
                would_have: MAX_ITEMS + 1
            })
        );
        let message = refused.unwrap_err().to_string();
        assert!(message.contains("at most 256 items"), "{message}");
        assert!(message.contains("would make 257"), "{message}");
        assert!(message.contains("nothing was changed"), "{message}");
        assert_eq!(store.read().len(), 3, "the list is as it was");
        // Exactly the limit is fine; repeated ids count once.
        let full = store.write(&numbered(0..MAX_ITEMS), false).unwrap();
        assert_eq!(full.len(), MAX_ITEMS);
        let mut repeated = numbered(0..MAX_ITEMS);
        repeated.extend(numbered(0..10));
        assert_eq!(store.write(&repeated, false).unwrap().len(), MAX_ITEMS);
    }

    #[test]
    fn a_merge_that_appends_past_the_limit_is_refused_and_changes_nothing() {
        let store = TodoStore::new();
        store.write(&numbered(0..MAX_ITEMS), false).unwrap();
        let refused = store.write(&numbered(MAX_ITEMS..MAX_ITEMS + 1), true);
        assert!(
            matches!(refused, Err(TodoError::TooManyItems { would_have, .. }) if would_have == MAX_ITEMS + 1),
            "{refused:?}"
        );
        let list = store.read();
        assert_eq!(list.len(), MAX_ITEMS);
        assert_eq!(list.last().unwrap().id, (MAX_ITEMS - 1).to_string());
        // Updating items already there never grows the list, so it is fine at the limit.
        let update = [TodoUpdate(json!({"id": "7", "status": "completed"}))];
        let list = store.write(&update, true).unwrap();
        assert_eq!(list[7].status, TodoStatus::Completed);
    }

    #[test]
    fn direct_call_reads_and_writes_its_own_session() {
        let a = ToolContext::new().with_session_id("a");
        let b = ToolContext::new().with_session_id("b");
        let written = todo(
            Some(updates(
                json!([{"id": "1", "content": "x", "status": "completed"}]),
            )),
            false,
            &a,
        )
        .unwrap();
        assert_eq!(
            written.summary,
            TodoSummary {
                total: 1,
                pending: 0,
                in_progress: 0,
                completed: 1,
                cancelled: 0
            }
        );
        assert_eq!(todo(None, false, &a.clone()).unwrap(), written);
        assert_eq!(todo(None, false, &b).unwrap().summary.total, 0);
        // Another session given the same id is still another session.
        let a_again = ToolContext::new().with_session_id("a");
        assert_eq!(todo(None, false, &a_again).unwrap().summary.total, 0);
    }

    #[test]
    fn a_call_without_a_session_is_refused() {
        let refused = todo(None, false, &ToolContext::new());
        assert_eq!(refused, Err(TodoError::NoSession));
        let message = refused.unwrap_err().to_string();
        assert!(message.contains("belongs to no session"), "{message}");
        assert!(message.contains("with_session_id"), "{message}");
    }

    #[test]
    fn dispatch_returns_list_and_summary() {
        let ctx = ToolContext::new().with_session_id("s1");
        let registry = ToolRegistry::global();
        // `todo` is the agent loop's own tool: only the loop may call it.
        let agent_loop = CallOptions::new().from_agent_loop();
        let first = registry.call_blocking_with(
            "todo",
            r#"{"todos":[{"id":"1","content":"plan","status":"in_progress"},{"id":"2","content":"build"}]}"#,
            &ctx,
            &agent_loop,
        );
        assert_eq!(
            first.to_value(),
            json!({
                "todos": [
                    {"id": "1", "content": "plan", "status": "in_progress"},
                    {"id": "2", "content": "build", "status": "pending"},
                ],
                "summary": {"total": 2, "pending": 1, "in_progress": 1, "completed": 0, "cancelled": 0},
            })
        );
        let merged = registry.call_blocking_with(
            "todo",
            r#"{"todos":[{"id":1,"status":"completed"}],"merge":true}"#,
            &ctx,
            &agent_loop,
        );
        assert_eq!(merged.to_value()["todos"][0]["status"], "completed");
        assert_eq!(merged.to_value()["summary"]["completed"], 1);
        let read = registry.call_blocking_with("todo", "{}", &ctx, &agent_loop);
        assert_eq!(read, merged);
    }

    #[test]
    fn dispatch_without_a_session_answers_an_error_and_keeps_nothing() {
        let registry = ToolRegistry::global();
        let agent_loop = CallOptions::new().from_agent_loop();
        let nowhere = ToolContext::new();
        let write = r#"{"todos":[{"id":"g","content":"global"}]}"#;
        let refused = registry.call_blocking_with("todo", write, &nowhere, &agent_loop);
        assert!(refused.is_error(), "{refused}");
        assert!(refused.as_str().contains("no session"), "{refused}");
        let read = registry.call_blocking_with("todo", "{}", &nowhere, &agent_loop);
        assert!(read.is_error(), "{read}");
    }

    #[test]
    fn dispatch_over_the_limit_is_an_error_naming_it() {
        let registry = ToolRegistry::global();
        let agent_loop = CallOptions::new().from_agent_loop();
        let ctx = ToolContext::new().with_session_id("limit");
        let many: Vec<Value> = (0..300)
            .map(|i| json!({"id": i.to_string(), "content": "t"}))
            .collect();
        let write = json!({ "todos": many }).to_string();
        let refused = registry.call_blocking_with("todo", &write, &ctx, &agent_loop);
        assert!(refused.is_error(), "{refused}");
        assert!(refused.as_str().contains("at most 256 items"), "{refused}");
        let read = registry.call_blocking_with("todo", "{}", &ctx, &agent_loop);
        assert_eq!(read.to_value()["summary"]["total"], 0, "{read}");
    }

    #[test]
    fn schema_shows_item_shape_inline() {
        let tool = ToolRegistry::global().get("todo").unwrap();
        let params = tool.parameters();
        assert_eq!(
            params["properties"]["todos"]["items"],
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": ["string", "integer"], "description": "Unique item identifier (a number is read as its text)"},
                    "content": {"type": "string", "description": "Task description (required for a new item)"},
                    "status": {
                        "type": "string",
                        "enum": ["pending", "in_progress", "completed", "cancelled"],
                        "description": "Current status (a new item without one is pending)"
                    }
                },
                "required": ["id"]
            })
        );
        assert_eq!(params["properties"]["merge"]["default"], json!(false));
    }
}
