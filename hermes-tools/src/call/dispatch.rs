//! Dispatch: one tool call, made safe. Whatever happens, the model gets a JSON answer.
//!
//! This is the stage inside the pipeline ([`ToolRegistry::call`]) that judges the arguments and
//! runs the tool. Arguments are judged one way, whichever path they take:
//!
//! - **fast path**: the model's argument string deserializes straight into the generated
//!   argument struct (which refuses unknown keys). It is taken only when the schema the model
//!   saw says nothing serde does not enforce itself (no `maxItems`, no override, no type the
//!   macro cannot vouch for): then a deserialization that succeeds is exactly a validation that
//!   succeeds.
//! - **slow path**, when the fast one is not allowed or fails: the arguments are parsed (`null`,
//!   `"null"`, `""` and a blank text are `{}`, as on the fast path); a JSON Schema keyword that
//!   is not a parameter (`"type"`, `"required"`, ... copied from the schema) is dropped with a
//!   notice in the answer; any other unknown key is refused naming the nearest parameters (or
//!   dropped, if the config says `unknown_arguments = "ignore"`; MCP servers' tools keep their
//!   own schema's rule for both); numbers of `clamp` parameters are clamped into their bounds
//!   with a notice in the answer; then they are repaired against the schema the model saw
//!   ([`crate::call::coercion`]), validated ([`crate::call::validation`]) and handed to the tool.
//!
//! Unknown tools, malformed or invalid arguments, missing extensions, panics and errors all
//! become `{"error": …}` answers that tell the model what to do next.
//!
//! [`ToolRegistry::dispatch_unguarded`] runs this stage alone, without the pipeline around it:
//! no agent-loop refusal, hooks, approval, timeout, redaction of results or answer budget
//! (error text is still redacted). It exists for benchmarks
//! and for embedders that run their own pipeline.

use std::any::Any;
use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::ToolRegistry;
use crate::call::answer::ToolAnswer;
use crate::call::coercion;
use crate::call::combinators::{BoxFuture, caught};
use crate::call::context::ToolContext;
use crate::config::{Config, UnknownArguments};
use crate::definitions::Definitions;
use crate::tool::schema::ParameterSchema;
use crate::tool::{ArgumentsRejected, Handler, StaticHandler, Tool};
use crate::toolsets::nearest::{MAX_NEAR_CHARS, nearest};

impl ToolRegistry {
    /// Runs tool `name` with the model's argument string **without the pipeline**: no
    /// agent-loop refusal, no hooks, no approval gate, no timeout, no redaction of what the tool
    /// returns (a result may carry a credential), no answer budget. Arguments are still judged,
    /// error text is still redacted, and the answer is still JSON.
    ///
    /// Agents want [`call`](Self::call); this is for benchmarks and for embedders that run a
    /// pipeline of their own.
    pub async fn dispatch_unguarded(
        &self,
        name: &str,
        args: &str,
        ctx: &ToolContext,
    ) -> ToolAnswer {
        let Some(tool) = self.get(name) else {
            return self.unknown_tool(name, None);
        };
        let judge = Judge::new(&tool, None, &self.config());
        let ctx = ctx.on(self);
        if tool.is_async() {
            run_async(&tool, args, &ctx, &judge).await
        } else {
            run_sync(&tool, args, &ctx, &judge)
        }
    }

    /// [`dispatch_unguarded`](Self::dispatch_unguarded) from synchronous code (async tools are
    /// driven to completion on a runtime of the bridge's choosing).
    pub fn dispatch_unguarded_blocking(
        &self,
        name: &str,
        args: &str,
        ctx: &ToolContext,
    ) -> ToolAnswer {
        // A sync tool needs no runtime: run it right here.
        if let Some(tool) = self.get(name).filter(|tool| !tool.is_async()) {
            let judge = Judge::new(&tool, None, &self.config());
            return run_sync(&tool, args, &ctx.on(self), &judge);
        }
        crate::call::bridge::block_on(self.dispatch_unguarded(name, args, ctx)).unwrap_or_else(
            |err| ToolAnswer::error(format!("could not start an async runtime: {err}")),
        )
    }

    /// The answer to a call of a tool that is not there: the nearest names among `offered`
    /// (the definitions the model was given) or, without them, among every registered tool.
    pub(crate) fn unknown_tool(&self, name: &str, offered: Option<&Definitions>) -> ToolAnswer {
        if name.len() > MAX_NEAR_CHARS || name.chars().any(char::is_control) {
            // No tool has such a name: refused at once, quoting only its start (redacted
            // before the cut, so a credential cut in two is not half shown).
            return ToolAnswer::error(format!(
                "Unknown tool: {:?} ({} bytes, with control characters or longer than any tool \
                 name). Call one of the tools you were given.",
                crate::secrets::echoed(name),
                name.len()
            ));
        }
        let snapshot = self.snapshot();
        // The tool of a server that is down is not unknown: say why it is missing.
        if snapshot.get(name).is_none()
            && let Some(reason) = self.absence(name)
        {
            let mut extra = Map::new();
            extra.insert("unavailable".into(), Value::Bool(true));
            return ToolAnswer::error_with(
                format!("Tool {name:?} is unavailable: {reason}"),
                extra,
            );
        }
        let suggestions = match offered {
            // Deferred tools too: the model can reach them through the bridge.
            Some(definitions) => nearest(name, definitions.entries().iter().map(|e| &*e.name)),
            None => nearest(name, snapshot.names()),
        };
        let mut message = match offered {
            Some(_) if snapshot.get(name).is_some() => {
                format!("Tool {name:?} is not among the tools you were given.")
            }
            _ => format!("Unknown tool: {name:?}."),
        };
        if suggestions.is_empty() {
            message.push_str(" Call one of the tools you were given.");
        } else {
            message.push_str(&format!(" Did you mean: {}?", suggestions.join(", ")));
        }
        let mut extra = Map::new();
        extra.insert(
            "suggestions".into(),
            Value::Array(suggestions.into_iter().map(Value::String).collect()),
        );
        ToolAnswer::error_with(message, extra)
    }
}

/// How a call's arguments are judged: against which schema, and what an unknown key gets.
pub(crate) struct Judge<'t> {
    schema: &'t ParameterSchema,
    unknown: UnknownArguments,
    /// MCP servers' tools keep the server's own rule for unknown keys.
    check_unknown: bool,
}

impl<'t> Judge<'t> {
    /// Judges `tool`'s arguments against the schema it showed in `shown` (the definitions the
    /// model was given) or, without them, its static schema; unknown keys as `config` says.
    pub(crate) fn new(tool: &'t Tool, shown: Option<&'t Definitions>, config: &Config) -> Self {
        let schema = shown.and_then(|definitions| definitions.shown(tool.name()));
        Self {
            schema: schema.map_or_else(|| tool.parameter_schema(), |schema| &**schema),
            unknown: config.unknown_arguments_for(tool.name()),
            check_unknown: !tool.is_mcp(),
        }
    }
}

/// Arguments judged valid, as the handler takes them.
enum Judged<'a> {
    /// The model's text, untouched (fast path).
    Raw(&'a str),
    /// Repaired and validated, with what was changed for the model to know.
    Repaired(Value),
}

/// Judges `raw` on the slow path: parse, unknown keys, clamping, repair, validation.
fn judge_slow(tool: &Tool, raw: &str, judge: &Judge<'_>) -> Result<(Value, Vec<String>), String> {
    // What the fast path reads as `{}` (`null`, `"null"`, blank) is `{}` here too.
    let mut value = if crate::tool::decl::args::means_no_arguments(raw) {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(raw).map_err(|err| {
            format!(
                "The arguments for tool {:?} are not valid JSON ({err}). Send a JSON object.",
                tool.name()
            )
        })?
    };
    let mut notices = Vec::new();
    if let (Value::Object(args), Some(properties)) = (
        &mut value,
        judge
            .schema
            .value
            .get("properties")
            .and_then(Value::as_object),
    ) {
        if judge.check_unknown {
            notices.extend(unknown_keys(tool, args, properties, judge.unknown)?);
            let root = &judge.schema.value;
            for (name, arg) in args.iter_mut() {
                if let Some(schema) = properties.get(name) {
                    let nested = Nested {
                        tool,
                        root,
                        rule: judge.unknown,
                    };
                    nested.check(arg, schema, At::Key(&At::Root, name), 0)?;
                }
            }
        }
        for name in tool.clamped() {
            if let (Some(arg), Some(rules)) = (args.get_mut(name.as_str()), properties.get(name)) {
                notices.extend(clamp(name, arg, rules));
            }
        }
    }
    let value = coercion::coerce_and_validate(value, &judge.schema.value)
        .map_err(|err| format!("Invalid arguments for tool {:?}: {err}", tool.name()))?;
    Ok((value, notices))
}

/// Drops schema keywords sent as arguments (keywords that are not parameters: small models copy
/// `"type": "object"` or `"required": [...]` from a tool's schema beside the real arguments)
/// and returns the notice naming them; refuses (or with `Ignore`, drops) the other argument names
/// the schema does not declare.
fn unknown_keys(
    tool: &Tool,
    args: &mut Map<String, Value>,
    properties: &Map<String, Value>,
    rule: UnknownArguments,
) -> Result<Option<String>, String> {
    let notice = drop_schema_keywords(args, properties);
    let unknown: Vec<String> = args
        .keys()
        .filter(|key| !properties.contains_key(*key))
        .cloned()
        .collect();
    let Some(first) = unknown.first() else {
        return Ok(notice);
    };
    if rule == UnknownArguments::Ignore {
        for key in &unknown {
            args.remove(key);
        }
        return Ok(notice);
    }
    let known: Vec<&str> = properties.keys().map(String::as_str).collect();
    let suggestions = nearest(first, known.iter().copied());
    let mut message = format!(
        "Unknown argument {first:?} for tool {:?}: it takes {}.",
        tool.name(),
        if known.is_empty() {
            "no arguments".to_owned()
        } else {
            known
                .iter()
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    if let Some(best) = suggestions.first() {
        message.push_str(&format!(" Did you mean {best:?}?"));
    }
    if unknown.len() > 1 {
        message.push_str(&format!(
            " Also unknown: {}.",
            unknown[1..]
                .iter()
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Err(message)
}

/// Where a nested value sits in the arguments: written out as a JSON pointer (`/steps/1`) only
/// for an error, so a call whose arguments pass pays no allocation per value walked.
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Root => Ok(()),
            At::Key(parent, key) => write!(f, "{parent}/{key}"),
            At::Index(parent, index) => write!(f, "{parent}/{index}"),
        }
    }
}

/// The unknown-key rule of the top level, applied at every depth: an object whose schema
/// lists `properties` (and allows no others: no `additionalProperties` schema or `true`, no
/// `patternProperties`) refuses, or with `Ignore` drops, any other key, in arrays' items and
/// through `$ref` and an `anyOf`/`oneOf` (such as an `Option`'s) with one object branch.
struct Nested<'a> {
    tool: &'a Tool,
    root: &'a Value,
    rule: UnknownArguments,
}

impl Nested<'_> {
    /// Deeper than serde_json parses: nothing sent can be there.
    const MAX_DEPTH: usize = 128;

    fn check(
        &self,
        value: &mut Value,
        schema: &Value,
        path: At<'_>,
        depth: usize,
    ) -> Result<(), String> {
        if depth > Self::MAX_DEPTH {
            return Ok(());
        }
        let Some(schema) = self.object_schema(schema, value) else {
            return Ok(());
        };
        match value {
            Value::Object(object) => {
                let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                    return Ok(());
                };
                let open = schema
                    .get("additionalProperties")
                    .is_some_and(|more| more.is_object() || *more == Value::Bool(true))
                    || schema.get("patternProperties").is_some();
                let unknown: Vec<String> = object
                    .keys()
                    .filter(|key| !open && !properties.contains_key(*key))
                    .cloned()
                    .collect();
                if let Some(first) = unknown.first() {
                    if self.rule == UnknownArguments::Reject {
                        let known: Vec<String> =
                            properties.keys().map(|k| format!("{k:?}")).collect();
                        return Err(format!(
                            "Unknown argument {first:?} at {path} for tool {:?}: that object takes \
                             {}. Send only those keys there.",
                            self.tool.name(),
                            if known.is_empty() {
                                "no keys".to_owned()
                            } else {
                                known.join(", ")
                            }
                        ));
                    }
                    for key in &unknown {
                        object.shift_remove(key);
                    }
                }
                for (key, member) in object.iter_mut() {
                    if let Some(sub) = properties.get(key) {
                        self.check(member, sub, At::Key(&path, key), depth + 1)?;
                    }
                }
            }
            Value::Array(items) => {
                if let Some(sub) = schema.get("items").filter(|sub| sub.is_object()) {
                    for (index, item) in items.iter_mut().enumerate() {
                        self.check(item, sub, At::Index(&path, index), depth + 1)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `schema` with its `$ref`s followed and, for an object, the one `anyOf`/`oneOf` branch
    /// with `properties` chosen; `None` when there is no single such schema.
    fn object_schema<'s>(&'s self, schema: &'s Value, value: &Value) -> Option<&'s Value> {
        let mut schema = self.resolved(schema)?;
        if value.is_object() && schema.get("properties").is_none() {
            let branches = ["anyOf", "oneOf"]
                .iter()
                .find_map(|key| schema.get(key).and_then(Value::as_array))?;
            let mut objects = branches
                .iter()
                .filter_map(|branch| self.resolved(branch))
                .filter(|branch| branch.get("properties").is_some());
            schema = objects.next()?;
            if objects.next().is_some() {
                return None;
            }
        }
        Some(schema)
    }

    /// `schema` with its `$ref` chain followed (a few steps: a longer chain is left alone).
    fn resolved<'s>(&'s self, mut schema: &'s Value) -> Option<&'s Value> {
        for _ in 0..16 {
            match schema.get("$ref").and_then(Value::as_str) {
                Some(reference) => schema = crate::tool::schema::resolve_ref(self.root, reference)?,
                None => return Some(schema),
            }
        }
        None
    }
}

/// Removes the keys of `args` that are JSON Schema keywords and not among `properties`; the
/// notice naming them, in the order they were sent, when there were any.
fn drop_schema_keywords(
    args: &mut Map<String, Value>,
    properties: &Map<String, Value>,
) -> Option<String> {
    let copied: Vec<String> = args
        .keys()
        .filter(|key| !properties.contains_key(*key) && crate::tool::is_schema_keyword(key))
        .cloned()
        .collect();
    if copied.is_empty() {
        return None;
    }
    for key in &copied {
        // Shifting, not swapping: the keys left keep the model's order for the messages.
        args.shift_remove(key);
    }
    let names: Vec<String> = copied.iter().map(|key| format!("{key:?}")).collect();
    Some(format!(
        "dropped schema keywords sent as arguments: {}",
        names.join(", ")
    ))
}

/// Clamps a number into its `minimum`/`maximum`; returns the notice when it changed it.
fn clamp(name: &str, arg: &mut Value, rules: &Value) -> Option<String> {
    // A number sent as text ("5000") is clamped too: repair would read it as a number.
    let sent = match arg {
        Value::Number(number) => number.as_f64()?,
        Value::String(text) => text.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    let bound = |key: &str| rules.get(key).and_then(Value::as_f64);
    let (limit, word) = match (bound("minimum"), bound("maximum")) {
        (Some(min), _) if sent < min => (rules["minimum"].clone(), "minimum"),
        (_, Some(max)) if sent > max => (rules["maximum"].clone(), "maximum"),
        _ => return None,
    };
    let notice = format!("{name} was {sent}; clamped to the {word} {limit}");
    *arg = limit;
    Some(notice)
}

/// Adds what dispatch changed in the arguments to a successful answer, so the model knows.
fn with_notices(answer: ToolAnswer, notices: Vec<String>) -> ToolAnswer {
    if notices.is_empty() || answer.is_error() {
        return answer;
    }
    let notice = Value::String(notices.join("; "));
    let object = match serde_json::from_str::<Value>(answer.as_str()) {
        Ok(Value::Object(mut object)) => {
            object.insert("notice".into(), notice);
            object
        }
        Ok(other) => Map::from_iter([("result".to_owned(), other), ("notice".into(), notice)]),
        Err(_) => return answer,
    };
    let text = Value::Object(object).to_string();
    answer.with_text(text)
}

/// Judges the arguments and hands them to `invoke` (which calls the handler). `Err` is the
/// answer to send as is.
fn with_arguments<R>(
    tool: &Tool,
    raw: &str,
    judge: &Judge<'_>,
    mut invoke: impl FnMut(Judged<'_>) -> Result<R, ArgumentsRejected>,
) -> Result<(R, Vec<String>), ToolAnswer> {
    if !judge.schema.needs_validation
        && let Ok(done) = invoke(Judged::Raw(raw))
    {
        return Ok((done, Vec::new()));
    }
    let (value, notices) = judge_slow(tool, raw, judge).map_err(ToolAnswer::error)?;
    let done = invoke(Judged::Repaired(value))
    .map_err(|err| {
        ToolAnswer::error(format!(
            "Invalid arguments for tool {:?}: {err}. Call it again with arguments matching its parameters.",
            tool.name()
        ))
    })?;
    Ok((done, notices))
}

/// The text a static wrapper deserializes: the model's, or the repaired value's.
fn text_of<'a>(judged: &'a Judged<'a>) -> Cow<'a, str> {
    match judged {
        Judged::Raw(text) => Cow::Borrowed(text),
        Judged::Repaired(value) => Cow::Owned(value.to_string()),
    }
}

fn value_of(judged: Judged<'_>) -> Result<Value, ArgumentsRejected> {
    match judged {
        Judged::Raw(text) => crate::tool::decl::parse_arguments::<Value>(text),
        Judged::Repaired(value) => Ok(value),
    }
}

/// Runs a sync tool here, on the caller's thread. `Err`-free: every outcome is an answer.
pub(crate) fn run_sync(tool: &Tool, raw: &str, ctx: &ToolContext, judge: &Judge<'_>) -> ToolAnswer {
    let outcome = with_arguments(tool, raw, judge, |judged| {
        catch_unwind(AssertUnwindSafe(|| match tool.handler() {
            Handler::Static(StaticHandler::Sync(call)) => call(&text_of(&judged), ctx),
            Handler::Sync(handler) => Ok(handler(value_of(judged)?, ctx)),
            // Async tools never come here; answer rather than panic if one does.
            _ => Ok(ToolAnswer::error("an async tool was run as a sync one")),
        }))
        .unwrap_or_else(|panic| Ok(panicked(tool, panic)))
    });
    match outcome {
        Ok((answer, notices)) => with_notices(answer, notices),
        Err(answer) => answer,
    }
}

/// Runs an async tool (a sync one is run inline): awaited on the caller's executor.
pub(crate) async fn run_async(
    tool: &Tool,
    raw: &str,
    ctx: &ToolContext,
    judge: &Judge<'_>,
) -> ToolAnswer {
    let future = with_arguments(tool, raw, judge, |judged| {
        catch_unwind(AssertUnwindSafe(|| match tool.handler() {
            Handler::Static(StaticHandler::Async(call)) => call(&text_of(&judged), ctx),
            Handler::Async(handler) => Ok(handler(value_of(judged)?, ctx)),
            _ => Ok(Box::pin(std::future::ready(ToolAnswer::error(
                "a sync tool was run as an async one",
            ))) as BoxFuture<'static, ToolAnswer>),
        }))
        .unwrap_or_else(|panic| Ok(Box::pin(std::future::ready(panicked(tool, panic)))))
    });
    match future {
        Ok((future, notices)) => {
            let answer = caught(future)
                .await
                .unwrap_or_else(|panic| panicked(tool, panic));
            with_notices(answer, notices)
        }
        Err(answer) => answer,
    }
}

/// Judges `raw` for `tool` the way dispatch would and returns the arguments the tool would
/// receive (`Err`: the rejection's text), without calling it. `slow_only` forces the slow
/// path. Tests use it to prove the fast and the slow path judge alike.
pub fn judge_arguments(tool: &Arc<Tool>, raw: &str, slow_only: bool) -> Result<Value, String> {
    let judge = Judge::new(tool, None, &Config::default());
    let parse = |text: &str| -> Result<(), ArgumentsRejected> {
        match tool.static_parse() {
            Some(parse) => parse(text),
            None => crate::tool::decl::parse_arguments::<Value>(text).map(drop),
        }
    };
    if !slow_only && !judge.schema.needs_validation && parse(raw).is_ok() {
        return crate::tool::decl::parse_arguments::<Value>(raw).map_err(|err| err.to_string());
    }
    let (value, _) = judge_slow(tool, raw, &judge)?;
    parse(&value.to_string()).map_err(|err| err.to_string())?;
    Ok(value)
}

/// The text a panic carried (`panic!` with a literal or a format), if it carried text.
pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

fn panicked(tool: &Tool, panic: Box<dyn Any + Send>) -> ToolAnswer {
    let message = crate::secrets::redact(&panic_message(&*panic)).into_owned();
    tracing::error!(tool = tool.name(), %message, "tool panicked");
    ToolAnswer::error(format!(
        "Tool {:?} failed unexpectedly (it panicked: {message}). Try another approach.",
        tool.name()
    ))
    .into_panic()
}
