//! What a tool is: its static declaration ([`ToolDecl`], written by `#[tool]`) and the runtime
//! entry the registry holds ([`Tool`], also buildable at run time for plugins and MCP).

mod check;
pub(crate) mod decl;
pub(crate) mod discovery;
pub(crate) mod output;
mod rendered;
pub(crate) mod schema;

pub(crate) use rendered::definition as rendered_definition;

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::call::combinators::BoxFuture;
use serde_json::Value;

use crate::call::answer::{IntoAnswer, ToolAnswer};
use crate::call::context::ToolContext;

pub(crate) use check::{SchemaFault, is_keyword as is_schema_keyword};
pub use decl::{ConfigCheck, Provenance, ToolDecl};
// What `#[tool]`'s expansion names: reached through `__private` only, not a public API.
pub(crate) use decl::{ArgumentsRejected, StaticHandler};
pub use discovery::ToolsetDecl;

/// What a tool does to its environment, as MCP's tool annotations say it (hints for clients
/// that show or gate tools, not guarantees), and whether its calls may overlap in a turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Annotations {
    /// The tool does not change its environment (`#[tool(read_only)]`).
    pub read_only: bool,
    /// The tool may change its environment destructively, e.g. overwrite or delete
    /// (`#[tool(destructive)]`).
    pub destructive: bool,
    /// Whether its calls may run concurrently with other calls of the same model turn
    /// (`#[tool(parallel)]`, `#[tool(parallel = false)]`); `None` means "as `read_only`
    /// says". See [`Tool::is_parallel_safe`].
    pub parallel: Option<bool>,
}

impl Annotations {
    /// MCP's tool annotations for these: `readOnlyHint: true` for a `read_only` tool,
    /// `readOnlyHint: false, destructiveHint: true` for a `destructive` one, none otherwise
    /// (clients then assume the cautious defaults: may write, may destroy).
    ///
    /// ```
    /// use hermes_tools::tool::Annotations;
    ///
    /// let read_only = Annotations { read_only: true, ..Annotations::default() };
    /// assert_eq!(read_only.mcp_hints(), Some(serde_json::json!({"readOnlyHint": true})));
    /// assert_eq!(Annotations::default().mcp_hints(), None);
    /// ```
    pub fn mcp_hints(&self) -> Option<Value> {
        if self.read_only {
            Some(serde_json::json!({"readOnlyHint": true}))
        } else if self.destructive {
            Some(serde_json::json!({"readOnlyHint": false, "destructiveHint": true}))
        } else {
            None
        }
    }

    /// Whether a call may run concurrently with its neighbours in a turn: what `parallel`
    /// says, else whether the tool is `read_only`.
    ///
    /// A read-only tool that must still run alone (it asks the user, like `clarify`, or
    /// holds a resource one call at a time) declares `parallel = false`; a writing tool whose
    /// calls never interfere (each writes its own key) may declare `parallel`.
    ///
    /// ```
    /// use hermes_tools::tool::Annotations;
    ///
    /// let read_only = Annotations { read_only: true, ..Annotations::default() };
    /// assert!(read_only.is_parallel_safe());
    /// assert!(!Annotations { parallel: Some(false), ..read_only }.is_parallel_safe());
    /// assert!(!Annotations::default().is_parallel_safe());
    /// assert!(Annotations { parallel: Some(true), ..Annotations::default() }.is_parallel_safe());
    /// ```
    pub fn is_parallel_safe(&self) -> bool {
        self.parallel.unwrap_or(self.read_only)
    }
}

/// What a `dynamic_schema` function knows when it is asked for its override.
#[derive(Debug)]
#[non_exhaustive]
pub struct SchemaContext<'a> {
    /// The tools the definitions being computed include (the model sees these and only these),
    /// so a description may point at another tool exactly when it is present.
    pub selected: &'a std::collections::BTreeSet<String>,
    config: &'a crate::config::Config,
}

impl<'a> SchemaContext<'a> {
    /// A context for definitions that include `selected`, under the default configuration.
    pub fn new(selected: &'a std::collections::BTreeSet<String>) -> Self {
        Self {
            selected,
            config: crate::config::Config::shared_default(),
        }
    }

    /// The same context under `config` (the registry's, when the registry asks).
    pub fn with_config(self, config: &'a crate::config::Config) -> Self {
        Self { config, ..self }
    }

    /// The configuration of the registry computing the definitions: a description may state
    /// a limit the operator set.
    pub fn config(&self) -> &crate::config::Config {
        self.config
    }
}

/// Fields of a tool's definition replaced at run time by its `dynamic_schema` function.
///
/// There is deliberately no `name` field: an override can never rename a tool.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchemaOverride {
    /// A description to use instead of the static one.
    pub description: Option<String>,
    /// Parameter-schema members merged over the static schema (`properties` merged by name).
    pub parameters: Option<Value>,
}

/// A static tool's own parse of its argument text (see [`ToolDecl::parse`]).
pub(crate) type ParseFn = fn(&str) -> Result<(), ArgumentsRejected>;

type DynSync = dyn Fn(Value, &ToolContext) -> ToolAnswer + Send + Sync;
type DynAsync = dyn Fn(Value, &ToolContext) -> BoxFuture<'static, ToolAnswer> + Send + Sync;

/// How a [`Tool`] runs: a wrapper written by `#[tool]` (which deserializes the argument text
/// itself), or a closure given to [`ToolBuilder`] (which receives validated JSON).
#[derive(Clone)]
pub(crate) enum Handler {
    Static(StaticHandler),
    Sync(Arc<DynSync>),
    Async(Arc<DynAsync>),
}

impl Handler {
    pub(crate) fn is_async(&self) -> bool {
        matches!(
            self,
            Handler::Async(_) | Handler::Static(StaticHandler::Async(_))
        )
    }
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_async() { "async" } else { "sync" })
    }
}

/// A function telling whether a tool can run here.
pub type CheckFn = Arc<dyn Fn() -> bool + Send + Sync>;
/// A check that reads the registry's configuration: `Err` says why the tool cannot run,
/// `Ok(Some(note))` how it runs (shown by `list`).
pub type ConfigCheckFn =
    Arc<dyn Fn(&crate::config::Config) -> Result<Option<String>, String> + Send + Sync>;
/// A function returning definition fields to replace at run time.
pub type DynamicSchemaFn = Arc<dyn Fn(&SchemaContext<'_>) -> SchemaOverride + Send + Sync>;

/// The emoji of a tool built at run time that names none: one allocation for all of them.
fn default_emoji() -> Arc<str> {
    static EMOJI: OnceLock<Arc<str>> = OnceLock::new();
    Arc::clone(EMOJI.get_or_init(|| "⚡".into()))
}

/// Where a tool's parameter schema comes from.
enum SchemaSource {
    /// A `#[tool]` function's, generated from its Rust types on first use.
    Static(fn() -> Value),
    /// A tool built at run time: its schema was checked when it was built (the fault is kept
    /// for `register` to report), then moved into the parameter schema, so that no second
    /// copy of it is kept.
    Built(Option<SchemaFault>),
}

/// A lint finding a tool's author accepts: the rule's name (`strict-mode`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acknowledgement {
    /// The rule whose findings on the tool are accepted, by name (as `lint` prints it).
    pub rule: Cow<'static, str>,
    /// Why they are accepted, shown by `lint --all`.
    pub reason: Cow<'static, str>,
}

/// A tool as the registry holds it: from a [`ToolDecl`] or built at run time with [`Tool::builder`].
pub struct Tool {
    name: Arc<str>,
    toolset: Arc<str>,
    description: Arc<str>,
    emoji: Arc<str>,
    check: Option<CheckFn>,
    /// Identifies the check function, so tools sharing one share its cached result.
    check_key: Option<usize>,
    config_check: Option<ConfigCheckFn>,
    requires_env: Vec<String>,
    max_result_chars: Option<usize>,
    dynamic_schema: Option<DynamicSchemaFn>,
    overrides: bool,
    timeout_secs: Option<u64>,
    needs_approval: bool,
    blocking: bool,
    /// Whether an MCP client's call of it becomes a task at once (`#[tool(task)]`).
    task: bool,
    /// Whether it can only be called as a task ([`ToolBuilder::task_required`]).
    task_required: bool,
    /// Whether it asks through `input_required` rounds before it becomes a task
    /// ([`ToolBuilder::asks_before_task`]).
    asks_before_task: bool,
    raw_output: bool,
    annotations: Annotations,
    clamped: Vec<String>,
    /// Validate even arguments that deserialize (see [`ToolDecl::validate`]).
    validate: bool,
    schema_source: SchemaSource,
    schema: OnceLock<Arc<schema::ParameterSchema>>,
    /// Builds the output schema of a `#[tool]` function (on first use, into `output`).
    output_source: Option<fn() -> Option<Value>>,
    output: OnceLock<Option<Arc<Value>>>,
    handler: Handler,
    /// Deserializes without calling (static tools only), for the fast/slow comparison.
    parse: Option<ParseFn>,
    provenance: Provenance,
    /// The lint findings its author accepts.
    acknowledged: Vec<Acknowledgement>,
    /// Its static definition in each provider format, rendered on first use.
    rendered: rendered::Rendered,
    /// What its sync calls cost, learned in turns (where a turn's batch runs it).
    cost: crate::call::cost::Cost,
}

impl Tool {
    /// The runtime entry of a static declaration.
    ///
    /// How a plugin registers an `unlisted` `#[tool] fn foo`, which the linked slice does not
    /// collect: `ctx.register_tool(Tool::from_decl(&FOO_TOOL))`.
    pub fn from_decl(decl: &'static ToolDecl) -> Self {
        Self {
            name: decl.name.into(),
            toolset: decl.toolset.into(),
            description: decl.description.into(),
            emoji: decl.emoji.into(),
            check: decl.check.map(|check| Arc::new(check) as CheckFn),
            // A fn pointer's address identifies the function (at worst, a duplicate probe).
            check_key: decl.check.map(|check| check as usize),
            config_check: decl
                .config_check
                .map(|check| Arc::new(check) as ConfigCheckFn),
            requires_env: decl.requires_env.iter().map(|s| (*s).to_owned()).collect(),
            max_result_chars: decl.max_result_chars,
            dynamic_schema: decl.dynamic_schema.map(|f| Arc::new(f) as DynamicSchemaFn),
            overrides: decl.overrides,
            timeout_secs: decl.timeout_secs,
            needs_approval: decl.needs_approval,
            blocking: decl.blocking,
            task: decl.task,
            task_required: false,
            asks_before_task: false,
            raw_output: decl.raw_output,
            annotations: decl.annotations,
            clamped: decl.clamped.iter().map(|s| (*s).to_owned()).collect(),
            validate: decl.validate,
            schema_source: SchemaSource::Static(decl.schema),
            schema: OnceLock::new(),
            output_source: decl.output_schema,
            output: OnceLock::new(),
            handler: Handler::Static(decl.handler),
            parse: Some(decl.parse),
            provenance: decl.provenance.clone(),
            acknowledged: decl
                .acknowledged
                .iter()
                .map(|&(rule, reason)| Acknowledgement {
                    rule: rule.into(),
                    reason: reason.into(),
                })
                .collect(),
            rendered: Default::default(),
            cost: Default::default(),
        }
    }

    /// Starts a tool built at run time (for plugins, MCP servers, tests).
    ///
    /// ```
    /// use hermes_tools::{tool::Tool, ToolContext, ToolRegistry};
    /// use serde_json::json;
    ///
    /// let tool = Tool::builder("echo", "demo")
    ///     .description("Return the text it is given.")
    ///     .parameters(json!({
    ///         "type": "object",
    ///         "properties": {"text": {"type": "string", "description": "What to echo."}},
    ///         "required": ["text"]
    ///     }))
    ///     .handler(|args, _ctx| args["text"].clone())
    ///     .build();
    /// let registry = ToolRegistry::new();
    /// registry.register(tool).unwrap();
    /// let answer = registry.call_blocking("echo", r#"{"text":"hi"}"#, &ToolContext::new());
    /// assert_eq!(answer.as_str(), r#""hi""#);
    /// ```
    pub fn builder(name: impl Into<Arc<str>>, toolset: impl Into<Arc<str>>) -> ToolBuilder {
        ToolBuilder {
            tool: Tool {
                name: name.into(),
                toolset: toolset.into(),
                description: "".into(),
                emoji: default_emoji(),
                check: None,
                check_key: None,
                config_check: None,
                requires_env: Vec::new(),
                max_result_chars: None,
                dynamic_schema: None,
                overrides: false,
                timeout_secs: None,
                needs_approval: false,
                blocking: false,
                task: false,
                task_required: false,
                asks_before_task: false,
                raw_output: false,
                annotations: Annotations::default(),
                clamped: Vec::new(),
                validate: true,
                schema_source: SchemaSource::Built(None),
                schema: OnceLock::new(),
                output_source: None,
                output: OnceLock::new(),
                handler: Handler::Sync(Arc::new(|_, _| {
                    ToolAnswer::error("this tool has no handler")
                })),
                parse: None,
                provenance: Provenance::runtime("runtime", "<runtime>"),
                acknowledged: Vec::new(),
                rendered: Default::default(),
                cost: Default::default(),
            },
            parameters: schema::empty_object(),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The toolset it belongs to.
    pub fn toolset(&self) -> &str {
        &self.toolset
    }
    /// Its static description.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// Its emoji.
    pub fn emoji(&self) -> &str {
        &self.emoji
    }
    /// Its check function, if any.
    pub fn check(&self) -> Option<&CheckFn> {
        self.check.as_ref()
    }
    /// What identifies its check function (tools sharing one share the key).
    pub fn check_key(&self) -> Option<usize> {
        self.check_key
    }
    /// Its check of the configuration, if any.
    pub fn config_check(&self) -> Option<&ConfigCheckFn> {
        self.config_check.as_ref()
    }
    /// Environment variables it requires.
    pub fn requires_env(&self) -> &[String] {
        &self.requires_env
    }
    /// Its answer budget in characters, if declared.
    pub fn max_result_chars(&self) -> Option<usize> {
        self.max_result_chars
    }
    /// Its dynamic schema function, if any.
    pub fn dynamic_schema(&self) -> Option<&DynamicSchemaFn> {
        self.dynamic_schema.as_ref()
    }
    /// Whether it may replace a tool of another toolset.
    pub fn overrides(&self) -> bool {
        self.overrides
    }
    /// How long it may run, in seconds, if declared.
    pub fn timeout_secs(&self) -> Option<u64> {
        self.timeout_secs
    }
    /// Whether every call goes through the approval gate.
    pub fn needs_approval(&self) -> bool {
        self.needs_approval
    }
    /// What it does to its environment.
    pub fn annotations(&self) -> Annotations {
        self.annotations
    }
    /// Whether its calls may run concurrently with other calls of one model turn (see
    /// [`ToolRegistry::run_turn`](crate::ToolRegistry::run_turn)): its `parallel`
    /// annotation, else whether it is `read_only` ([`Annotations::is_parallel_safe`]).
    pub fn is_parallel_safe(&self) -> bool {
        self.annotations.is_parallel_safe()
    }
    /// What its sync calls cost, as turns measured them.
    pub(crate) fn cost(&self) -> &crate::call::cost::Cost {
        &self.cost
    }
    /// Whether it is an `async` tool (awaited) rather than a sync one (run inline).
    pub fn is_async(&self) -> bool {
        self.handler.is_async()
    }
    /// Whether it is a sync tool that may block for long (`#[tool(blocking)]`): it runs on a
    /// thread of its own, under an enforced timeout.
    pub fn is_blocking(&self) -> bool {
        self.blocking
    }

    /// Whether a call of it by an MCP client that declared the tasks extension becomes a
    /// task at once (`#[tool(task)]`), rather than after the server's threshold (see
    /// `mcp::server::tasks`, feature `mcp`).
    pub fn runs_as_task(&self) -> bool {
        self.task
    }
    /// Whether it can only be called as a task ([`ToolBuilder::task_required`]): an MCP
    /// client that did not declare the tasks extension is refused (-32021) instead of served.
    pub fn requires_task(&self) -> bool {
        self.task_required
    }
    /// Whether an MCP client's call of it asks its questions before becoming a task
    /// ([`ToolBuilder::asks_before_task`]).
    pub fn asks_before_task(&self) -> bool {
        self.asks_before_task
    }
    /// Whether its answers reach the model unredacted (`#[tool(raw_output)]`; the config may
    /// say otherwise, see [`Config::redacts_answers_of`](crate::config::Config::redacts_answers_of)).
    pub fn is_raw_output(&self) -> bool {
        self.raw_output
    }
    /// Parameters whose numeric bounds clamp the model's value instead of refusing it.
    pub fn clamped(&self) -> &[String] {
        &self.clamped
    }
    pub(crate) fn handler(&self) -> &Handler {
        &self.handler
    }
    pub(crate) fn static_parse(&self) -> Option<ParseFn> {
        self.parse
    }
    /// Where it was declared.
    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }
    /// The lint findings its author accepts (`#[tool(acknowledge(...))]`,
    /// [`ToolBuilder::acknowledge`]).
    pub fn acknowledged(&self) -> &[Acknowledgement] {
        &self.acknowledged
    }
    /// Whether its toolset is an MCP server's (`mcp-*`).
    pub fn is_mcp(&self) -> bool {
        self.toolset.starts_with("mcp-")
    }

    /// The JSON Schema of its parameters, built once on first use.
    pub fn parameters(&self) -> &Value {
        &self.parameter_schema().value
    }

    /// The JSON Schema of the tool's answers, when it declares one: MCP clients get it as
    /// `outputSchema`, and each object answer as `structuredContent` beside its text.
    ///
    /// `#[tool]` declares it for a function returning `T` or `Result<T, E>` where `T` is a
    /// `JsonSchema` struct (or map); [`ToolBuilder::output_schema`] for a tool built at run
    /// time.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output
            .get_or_init(|| self.output_source.and_then(|build| build()).map(Arc::new))
            .as_deref()
    }

    /// The parameter schema a dynamic override's `parameters` make: always validated, since
    /// an override may add keywords serde does not enforce (`enum`, `format`).
    pub(crate) fn override_schema(parameters: Value) -> Arc<schema::ParameterSchema> {
        Arc::new(schema::ParameterSchema::new(parameters, true))
    }

    /// Checks the schema a tool built at run time publishes (see [`check`]); a `#[tool]`
    /// function's schema is generated from Rust types and passes unread.
    pub(crate) fn check_published_schema(&self) -> Result<(), SchemaFault> {
        match &self.schema_source {
            SchemaSource::Static(_) | SchemaSource::Built(None) => Ok(()),
            SchemaSource::Built(Some(fault)) => Err(fault.clone()),
        }
    }

    pub(crate) fn parameter_schema(&self) -> &schema::ParameterSchema {
        self.parameter_schema_arc_ref()
    }

    /// The static parameter schema, shared.
    pub(crate) fn parameter_schema_arc(&self) -> Arc<schema::ParameterSchema> {
        Arc::clone(self.parameter_schema_arc_ref())
    }

    /// The toolset, shared.
    pub(crate) fn toolset_arc(&self) -> &Arc<str> {
        &self.toolset
    }

    /// The name, shared.
    pub(crate) fn name_arc(&self) -> &Arc<str> {
        &self.name
    }

    /// Its static definitions, one per format, rendered on first use (the description and
    /// schema never change once a tool is built).
    pub(crate) fn rendered(&self) -> &rendered::Rendered {
        &self.rendered
    }

    fn parameter_schema_arc_ref(&self) -> &Arc<schema::ParameterSchema> {
        self.schema.get_or_init(|| {
            // A generated struct enforces types and required fields while deserializing; a
            // run-time tool receives a bare JSON value, so everything must be validated.
            let value = match &self.schema_source {
                SchemaSource::Static(build) => build(),
                // Set when it was built; a tool is never made otherwise.
                SchemaSource::Built(_) => schema::empty_object(),
            };
            Arc::new(schema::ParameterSchema::new(value, self.validate))
        })
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("toolset", &self.toolset)
            .field("handler", &self.handler)
            .field("provenance", &self.provenance)
            .finish_non_exhaustive()
    }
}

/// Builds a [`Tool`] at run time; see [`Tool::builder`].
#[must_use]
pub struct ToolBuilder {
    tool: Tool,
    /// The parameter schema given, checked and normalized by [`build`](Self::build).
    parameters: Value,
}

impl ToolBuilder {
    /// The description shown to the model.
    pub fn description(mut self, description: impl Into<Arc<str>>) -> Self {
        self.tool.description = description.into();
        self
    }
    /// The emoji shown in listings.
    pub fn emoji(mut self, emoji: impl Into<Arc<str>>) -> Self {
        self.tool.emoji = emoji.into();
        self
    }
    /// The JSON Schema of the arguments: an object schema (`"type": "object"` with
    /// `"properties"`), valid against the Draft 2020-12 meta-schema, every `$ref` local and
    /// resolvable, nested at most 64 levels of objects and arrays deep.
    /// [`ToolRegistry::register`](crate::ToolRegistry::register) refuses the tool otherwise,
    /// with [`RegisterError::InvalidSchema`](crate::registry::RegisterError::InvalidSchema) naming the
    /// fault; `42`, `null` or `{"type": "array"}` never become "no parameters" silently.
    ///
    /// ```
    /// use hermes_tools::{registry::RegisterError, tool::Tool, ToolRegistry};
    /// use serde_json::json;
    ///
    /// let tool = Tool::builder("list", "demo")
    ///     .parameters(json!({"type": "object", "properties": {"n": {"type": 7}}}))
    ///     .build();
    /// let err = ToolRegistry::new().register(tool).unwrap_err();
    /// assert!(matches!(&err, RegisterError::InvalidSchema { pointer, .. } if pointer == "/properties/n/type"));
    /// ```
    pub fn parameters(mut self, schema: Value) -> Self {
        self.parameters = schema;
        self
    }
    /// A function telling whether the tool can run here.
    pub fn check(self, check: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        self.shared_check(Arc::new(check))
    }
    /// A check function shared with other tools: it runs once per pass for all of them.
    pub fn shared_check(mut self, check: CheckFn) -> Self {
        self.tool.check_key = Some(Arc::as_ptr(&check).cast::<()>() as usize);
        self.tool.check = Some(check);
        self
    }
    /// A check that reads the registry's configuration, run by every availability pass (after
    /// [`check`](Self::check)): `Err(reason)` makes the tool unavailable, and `list` shows
    /// the reason; `Ok(Some(note))` says how it runs, and `list` shows the note. For a tool
    /// whose availability depends on its settings.
    pub fn config_check(
        mut self,
        check: impl Fn(&crate::config::Config) -> Result<Option<String>, String> + Send + Sync + 'static,
    ) -> Self {
        self.tool.config_check = Some(Arc::new(check));
        self
    }
    /// Environment variables that must be set.
    pub fn requires_env<S: Into<String>>(mut self, vars: impl IntoIterator<Item = S>) -> Self {
        self.tool.requires_env = vars.into_iter().map(Into::into).collect();
        self
    }
    /// The answer budget in characters.
    pub fn max_result_chars(mut self, chars: usize) -> Self {
        self.tool.max_result_chars = Some(chars);
        self
    }
    /// Definition fields replaced at run time.
    pub fn dynamic_schema(
        mut self,
        f: impl Fn(&SchemaContext<'_>) -> SchemaOverride + Send + Sync + 'static,
    ) -> Self {
        self.tool.dynamic_schema = Some(Arc::new(f));
        self
    }
    /// Allows replacing a tool of the same name in another toolset.
    pub fn overrides(mut self, overrides: bool) -> Self {
        self.tool.overrides = overrides;
        self
    }
    /// How long it may run, in seconds.
    pub fn timeout_secs(mut self, secs: u64) -> Self {
        self.tool.timeout_secs = Some(secs);
        self
    }
    /// Marks a sync tool that may block for long: it runs on a thread of its own, under an
    /// enforced timeout, instead of inline.
    pub fn blocking(mut self, blocking: bool) -> Self {
        self.tool.blocking = blocking;
        self
    }
    /// Makes a call of it by an MCP client that declared the tasks extension a task at once:
    /// for a tool that always runs long (see `mcp::server::tasks`, feature `mcp`).
    pub fn task(mut self, task: bool) -> Self {
        self.tool.task = task;
        self
    }
    /// Makes it a task-only tool (MCP's task support `required`; implies
    /// [`task`](Self::task)): a call of an MCP client that did not declare the tasks
    /// extension is refused with -32021 naming the extension, instead of held open. For a
    /// tool that cannot answer within one request.
    pub fn task_required(mut self, required: bool) -> Self {
        self.tool.task_required = required;
        self.tool.task |= required;
        self
    }
    /// Makes a call of it by an MCP client that declared the tasks extension ask first, then
    /// become a task: its questions before
    /// [`ToolContext::become_task`](crate::ToolContext::become_task) are Multi Round-Trip
    /// Requests (`input_required`; the tool runs again from the start on each retry, so the
    /// work before a question runs once per round), and the retry whose answers complete
    /// them answers with the task handle (`resultType: "task"`) at `become_task`. Without it,
    /// such a call's first question makes it a task at once. Overrides [`task`](Self::task)'s
    /// "at once" (the call becomes a task at `become_task`, or when it outlives the server's
    /// threshold); combine with [`task_required`](Self::task_required) for a tool no other
    /// client may call.
    pub fn asks_before_task(mut self, asks: bool) -> Self {
        self.tool.asks_before_task = asks;
        self
    }
    /// Lets its answers reach the model unredacted. Only for a tool whose purpose is to show
    /// a secret to the model, knowingly: any credential it reads then reaches the provider.
    pub fn raw_output(mut self, raw_output: bool) -> Self {
        self.tool.raw_output = raw_output;
        self
    }
    /// Parameters (top-level, numeric) whose `minimum`/`maximum` clamp the model's value
    /// instead of refusing it; the answer then says what was clamped.
    pub fn clamp<S: Into<String>>(mut self, parameters: impl IntoIterator<Item = S>) -> Self {
        self.tool.clamped = parameters.into_iter().map(Into::into).collect();
        self
    }
    /// Sends every call through the approval gate.
    pub fn needs_approval(mut self, needs: bool) -> Self {
        self.tool.needs_approval = needs;
        self
    }
    /// What the tool does to its environment (all of it, `parallel` included: call
    /// [`parallel`](Self::parallel) after this one, not before).
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.tool.annotations = annotations;
        self
    }
    /// Whether its calls may run concurrently with other calls of one model turn, whatever
    /// `read_only` says (see [`Annotations::is_parallel_safe`]).
    ///
    /// ```
    /// use hermes_tools::{tool::Annotations, tool::Tool};
    ///
    /// let ask = Tool::builder("ask_user", "demo")
    ///     .annotations(Annotations { read_only: true, ..Annotations::default() })
    ///     .parallel(false) // it waits for the user: one question at a time
    ///     .build();
    /// assert!(!ask.is_parallel_safe());
    /// ```
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.tool.annotations.parallel = Some(parallel);
        self
    }
    /// Accepts the lint findings of `rule` (its name, such as `strict-mode`) on this tool, for
    /// `reason`: `lint` then lists them as acknowledged instead of failing, and reports the
    /// acknowledgement itself once the rule no longer fires. Other rules are unaffected.
    ///
    /// ```
    /// use hermes_tools::tool::Tool;
    ///
    /// let tool = Tool::builder("run_js", "code")
    ///     .acknowledge("strict-mode", "its options are free-form by design")
    ///     .build();
    /// assert_eq!(tool.acknowledged()[0].rule, "strict-mode");
    /// ```
    pub fn acknowledge(
        mut self,
        rule: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
    ) -> Self {
        self.tool.acknowledged.push(Acknowledgement {
            rule: rule.into(),
            reason: reason.into(),
        });
        self
    }
    /// Where the tool comes from (a plugin's or MCP server's name).
    pub fn provenance(mut self, provenance: Provenance) -> Self {
        self.tool.provenance = provenance;
        self
    }
    /// A synchronous handler receiving the (repaired, validated) arguments as a JSON value.
    pub fn handler<R: IntoAnswer>(
        mut self,
        handler: impl Fn(Value, &ToolContext) -> R + Send + Sync + 'static,
    ) -> Self {
        self.tool.handler =
            Handler::Sync(Arc::new(move |args, ctx| handler(args, ctx).into_answer()));
        self
    }
    /// An asynchronous handler receiving the arguments as a JSON value and an owned context.
    pub fn async_handler<R, F>(
        mut self,
        handler: impl Fn(Value, ToolContext) -> F + Send + Sync + 'static,
    ) -> Self
    where
        R: IntoAnswer,
        F: Future<Output = R> + Send + 'static,
    {
        let handler = Arc::new(handler);
        self.tool.handler = Handler::Async(Arc::new(move |args, ctx| {
            let future = handler(args, ctx.clone());
            Box::pin(async move { future.await.into_answer() })
        }));
        self
    }
    /// The JSON Schema of the tool's answers (MCP's `outputSchema`): an object schema, which
    /// each of its successful answers must match. A schema that does not describe an object
    /// is not published (MCP allows none other).
    pub fn output_schema(mut self, schema: Value) -> Self {
        let object = schema.get("type").and_then(Value::as_str) == Some("object");
        self.tool.output = OnceLock::from(object.then(|| Arc::new(schema)));
        self
    }
    /// The finished tool.
    pub fn build(self) -> Tool {
        let Self {
            mut tool,
            parameters,
        } = self;
        // Checked as given (a root that is not an object must be refused, not normalized
        // away), then normalized and kept once, in the parameter schema dispatch reads.
        tool.schema_source = SchemaSource::Built(check::check_parameters(&parameters).err());
        let schema = schema::ParameterSchema::new(schema::normalize(parameters), tool.validate);
        tool.schema = OnceLock::from(Arc::new(schema));
        tool
    }
}
