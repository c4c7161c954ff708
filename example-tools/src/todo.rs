//! `todo`: the agent's task list for the session, with Hermes 0.19's exact semantics.
//!
//! Writing replaces the list, or with `merge` updates items by id and appends new ones.
//! Items are normalised as Hermes does (ids and contents trimmed, unknown statuses become
//! `pending`), contents are capped at 4,000 characters and lists at 256 items. Every call
//! answers the whole list with a summary.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use hermes_tools::{ToolContext, tool};
use parking_lot::Mutex;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Longest item content kept, in characters; longer content is cut and marked.
pub const MAX_CONTENT_CHARS: usize = 4000;
/// Most items kept: the head of the list (list order is priority).
pub const MAX_ITEMS: usize = 256;
const TRUNCATION_MARKER: &str = "… [truncated]";
/// The session key used when the context has no session id.
const DEFAULT_SESSION: &str = "default";

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

/// Task lists per session: the state behind `todo`, provided as a context extension.
///
/// Without one in the context, `todo` uses a process-wide store ([`TodoStore::global`]).
#[derive(Debug, Default)]
pub struct TodoStore {
    lists: Mutex<HashMap<String, Vec<TodoItem>>>,
}

impl TodoStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The process-wide store used when a context provides none.
    pub fn global() -> &'static TodoStore {
        static GLOBAL: LazyLock<TodoStore> = LazyLock::new(TodoStore::new);
        &GLOBAL
    }

    /// The list of `session`.
    pub fn read(&self, session: &str) -> Vec<TodoItem> {
        self.lists.lock().get(session).cloned().unwrap_or_default()
    }

    /// Replaces (or with `merge`, updates) the list of `session`, returning the new list.
    pub fn write(&self, session: &str, updates: &[TodoUpdate], merge_by_id: bool) -> Vec<TodoItem> {
        let mut lists = self.lists.lock();
        let items = lists.entry(session.to_owned()).or_default();
        if merge_by_id {
            merge(items, updates);
        } else {
            *items = dedupe_by_id(updates)
                .into_iter()
                .map(TodoUpdate::validated)
                .collect();
        }
        items.truncate(MAX_ITEMS);
        items.clone()
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
/// `in_progress` at a time and mark items `completed` as soon as they are done. Every call
/// returns the full list with a summary.
///
/// # Arguments
/// * `todos` - Items to write. Omit to read the list.
/// * `merge` - true: update existing items by id and append new ones. false (default): replace the whole list.
#[tool(toolset = "todo", emoji = "📋")]
pub fn todo(
    todos: Option<Vec<TodoUpdate>>,
    #[arg(default = false)] merge: bool,
    ctx: &ToolContext,
    store: Option<&TodoStore>,
) -> TodoList {
    let store = store.unwrap_or_else(|| TodoStore::global());
    let session = ctx.session_id().unwrap_or(DEFAULT_SESSION);
    let items = match todos {
        Some(updates) => store.write(session, &updates, merge),
        None => store.read(session),
    };
    TodoList {
        summary: TodoSummary::of(&items),
        todos: items,
    }
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
        let list = store.write(
            "s",
            &updates(json!([
                {"id": " 1 ", "content": " first ", "status": "IN_PROGRESS"},
                {"id": 2, "content": "", "status": "bogus"},
                {"content": "no id"},
                "not an object",
                {"id": "3", "content": null, "status": null},
            ])),
            false,
        );
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
        let list = store.write(
            "s",
            &updates(json!([
                {"id": "a", "content": "old a"},
                {"id": "b", "content": "b"},
                {"id": "a", "content": "new a"},
            ])),
            false,
        );
        let got: Vec<_> = list
            .iter()
            .map(|i| (i.id.as_str(), i.content.as_str()))
            .collect();
        assert_eq!(got, [("b", "b"), ("a", "new a")]);
    }

    #[test]
    fn merge_updates_given_fields_and_appends_new_ids() {
        let store = TodoStore::new();
        store.write(
            "s",
            &updates(json!([{"id": "1", "content": "one"}, {"id": "2", "content": "two"}])),
            false,
        );
        // The verified Hermes example.
        let list = store.write(
            "s",
            &updates(json!([{"id": "2", "status": "completed"}, {"id": "3", "content": "c"}])),
            true,
        );
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
        store.write(
            "s",
            &updates(json!([{"id": "1", "content": "one", "status": "in_progress"}])),
            false,
        );
        let list = store.write(
            "s",
            &updates(json!([
                {"id": "1", "status": "done!", "content": ""},
                {"id": "  ", "content": "skipped"},
                {"content": "no id either"},
                "not an object",
            ])),
            true,
        );
        assert_eq!(
            list,
            vec![TodoItem {
                id: "1".into(),
                content: "one".into(),
                status: TodoStatus::InProgress
            }]
        );
        // A blank (but non-empty) content is truthy in Python: Hermes stores it stripped to "".
        let list = store.write("s", &updates(json!([{"id": "1", "content": "   "}])), true);
        assert_eq!(list[0].content, "");
    }

    #[test]
    fn merge_collapses_repeated_ids_from_an_earlier_replace() {
        let store = TodoStore::new();
        store.write(
            "s",
            &updates(json!(["x", {"content": "y"}, {"id": "k", "content": "k"}])),
            false,
        );
        assert_eq!(store.read("s").len(), 3);
        let list = store.write(
            "s",
            &updates(json!([{"id": "k", "status": "completed"}])),
            true,
        );
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
    fn limits_cap_content_and_item_count() {
        let store = TodoStore::new();
        let long = "é".repeat(MAX_CONTENT_CHARS + 1);
        let list = store.write("s", &updates(json!([{"id": "1", "content": long}])), false);
        assert_eq!(list[0].content.chars().count(), MAX_CONTENT_CHARS);
        assert!(list[0].content.ends_with("é… [truncated]"));
        let exact = "x".repeat(MAX_CONTENT_CHARS);
        let list = store.write(
            "s",
            &updates(json!([{"id": "1", "content": exact.clone()}])),
            false,
        );
        assert_eq!(list[0].content, exact);

        let many: Vec<Value> = (0..300)
            .map(|i| json!({"id": i.to_string(), "content": "t"}))
            .collect();
        let list = store.write("s", &updates(Value::Array(many)), false);
        assert_eq!(list.len(), MAX_ITEMS);
        assert_eq!(list.last().unwrap().id, "255");
        let list = store.write("s", &updates(json!([{"id": "new", "content": "t"}])), true);
        assert_eq!(list.len(), MAX_ITEMS, "the appended item falls off the end");
        assert_eq!(list.last().unwrap().id, "255");
    }

    #[test]
    fn direct_call_reads_and_writes_per_session() {
        let store = TodoStore::new();
        let a = ToolContext::new().with_session_id("a");
        let b = ToolContext::new().with_session_id("b");
        let written = todo(
            Some(updates(
                json!([{"id": "1", "content": "x", "status": "completed"}]),
            )),
            false,
            &a,
            Some(&store),
        );
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
        assert_eq!(todo(None, false, &a, Some(&store)), written);
        assert_eq!(todo(None, false, &b, Some(&store)).summary.total, 0);
    }

    #[test]
    fn dispatch_returns_list_and_summary() {
        let ctx = ToolContext::new()
            .with_session_id("s1")
            .with_extension(TodoStore::new());
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
    fn dispatch_without_store_uses_the_process_wide_one() {
        let ctx = ToolContext::new().with_session_id("todo-global-test");
        let registry = ToolRegistry::global();
        let agent_loop = CallOptions::new().from_agent_loop();
        registry.call_blocking_with(
            "todo",
            r#"{"todos":[{"id":"g","content":"global"}]}"#,
            &ctx,
            &agent_loop,
        );
        assert_eq!(
            TodoStore::global().read("todo-global-test")[0].content,
            "global"
        );
        let read = registry.call_blocking_with("todo", "", &ctx, &agent_loop);
        assert_eq!(read.to_value()["todos"][0]["id"], "g");
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
