//! What a tool is: its static declaration ([`ToolDecl`], written by `#[tool]`) and the runtime
//! entry the registry holds ([`Tool`], also buildable at run time for plugins and MCP).

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::answer::{IntoAnswer, ToolAnswer};
use crate::context::ToolContext;
use crate::schema;

/// Where a tool was declared: shown by `list` and used to order duplicate declarations.
///
/// Static for `#[tool]` declarations; owned for tools built at run time (a plugin's, an MCP
/// server's), whose origin is only known then.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Provenance {
    /// The declaring crate, as `CARGO_CRATE_NAME` spells it (or the run-time origin).
    pub crate_name: Cow<'static, str>,
    /// The declaring module's path (or the run-time origin).
    pub module_path: Cow<'static, str>,
    /// The source file (or a description of the origin, such as a manifest path).
    pub file: Cow<'static, str>,
    /// The line of the declaration (0 at run time).
    pub line: u32,
}

impl Provenance {
    /// The provenance of a tool built at run time by `origin` (a plugin or an MCP server),
    /// declared in `file` (a manifest, a command line).
    pub fn runtime(
        origin: impl Into<Cow<'static, str>>,
        file: impl Into<Cow<'static, str>>,
    ) -> Self {
        let origin = origin.into();
        Self {
            crate_name: origin.clone(),
            module_path: origin,
            file: file.into(),
            line: 0,
        }
    }

    /// The declaration site as `file:line`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}:{})", self.module_path, self.file, self.line)
    }
}

/// What a tool does to its environment, as MCP's tool annotations say it: hints for clients
/// that show or gate tools, not guarantees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Annotations {
    /// The tool does not change its environment (`#[tool(read_only)]`).
    pub read_only: bool,
    /// The tool may change its environment destructively, e.g. overwrite or delete
    /// (`#[tool(destructive)]`).
    pub destructive: bool,
}

/// What a `dynamic_schema` function knows when it is asked for its override.
#[derive(Debug)]
#[non_exhaustive]
pub struct SchemaContext<'a> {
    /// The tools the definitions being computed include (the model sees these and only these),
    /// so a description may point at another tool exactly when it is present.
    pub selected: &'a std::collections::BTreeSet<String>,
}

impl<'a> SchemaContext<'a> {
    /// A context for definitions that include `selected`.
    pub fn new(selected: &'a std::collections::BTreeSet<String>) -> Self {
        Self { selected }
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

/// The model's arguments as they reach a handler: the raw text on the fast path, or a value
/// after repair.
#[derive(Debug)]
pub enum Arguments<'a> {
    /// The argument string exactly as the model sent it.
    Raw(&'a str),
    /// Arguments already parsed (and possibly repaired).
    Value(Value),
}

impl Arguments<'_> {
    /// Deserializes the arguments into `T`; an empty raw string means no arguments (`{}`).
    pub fn parse<T: DeserializeOwned>(self) -> Result<T, ArgumentsRejected> {
        let parsed = match self {
            Arguments::Raw(text) if text.trim().is_empty() => serde_json::from_str("{}"),
            // serde also reads a struct from a JSON array; the model must send an object.
            Arguments::Raw(text) if !text.trim_start().starts_with('{') => Err(
                serde::de::Error::custom("expected a JSON object of arguments"),
            ),
            Arguments::Raw(text) => serde_json::from_str(text),
            Arguments::Value(value) if !value.is_object() => Err(serde::de::Error::custom(
                "expected a JSON object of arguments",
            )),
            Arguments::Value(value) => serde_json::from_value(value),
        };
        parsed.map_err(ArgumentsRejected)
    }
}

/// The arguments did not deserialize into the tool's parameters.
///
/// Dispatch answers this on the fast path by repairing the arguments and trying again.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ArgumentsRejected(pub serde_json::Error);

/// The generated wrapper of a synchronous `#[tool]` function.
pub type SyncCall = fn(Arguments<'_>, &ToolContext) -> Result<ToolAnswer, ArgumentsRejected>;
/// The generated wrapper of an `async` `#[tool]` function: arguments are parsed before the
/// future is built, so a rejection never allocates a future.
pub type AsyncCall =
    fn(Arguments<'_>, &ToolContext) -> Result<BoxFuture<'static, ToolAnswer>, ArgumentsRejected>;

/// A wrapper written by `#[tool]`.
#[derive(Clone, Copy, Debug)]
pub enum StaticHandler {
    /// A plain `fn`.
    Sync(SyncCall),
    /// An `async fn`.
    Async(AsyncCall),
}

/// The static declaration of a tool, written by `#[tool]` into the [`TOOLS`](crate::discovery::TOOLS)
/// slice. `#[tool] fn foo` also names it `FOO_TOOL`, with the function's visibility.
#[derive(Debug)]
pub struct ToolDecl {
    /// The tool's name, as the model calls it.
    pub name: &'static str,
    /// The toolset it belongs to.
    pub toolset: &'static str,
    /// The description shown to the model.
    pub description: &'static str,
    /// One grapheme shown beside the tool in listings.
    pub emoji: &'static str,
    /// A function telling whether the tool can run here.
    pub check: Option<fn() -> bool>,
    /// Environment variables that must be set for the tool to be available.
    pub requires_env: &'static [&'static str],
    /// The largest answer, in characters, before it is cut.
    pub max_result_chars: Option<usize>,
    /// A function returning definition fields to replace at run time.
    pub dynamic_schema: Option<fn(&SchemaContext<'_>) -> SchemaOverride>,
    /// Whether this tool may replace a tool of the same name in another toolset.
    pub overrides: bool,
    /// How long it may run, in seconds (the config's default when `None`).
    pub timeout_secs: Option<u64>,
    /// Whether every call goes through the approval gate.
    pub needs_approval: bool,
    /// What the tool does to its environment, for clients that show or gate it (MCP annotations).
    pub annotations: Annotations,
    /// Builds the JSON Schema of the arguments (called once, then cached).
    pub schema: fn() -> Value,
    /// The generated wrapper.
    pub handler: StaticHandler,
    /// Where the tool was declared.
    pub provenance: Provenance,
}

type DynSync =
    dyn Fn(Arguments<'_>, &ToolContext) -> Result<ToolAnswer, ArgumentsRejected> + Send + Sync;
type DynAsync = dyn Fn(Arguments<'_>, &ToolContext) -> Result<BoxFuture<'static, ToolAnswer>, ArgumentsRejected>
    + Send
    + Sync;

/// How a [`Tool`] runs.
#[derive(Clone)]
pub enum Handler {
    /// A synchronous handler.
    Sync(Arc<DynSync>),
    /// A handler returning a future.
    Async(Arc<DynAsync>),
}

impl Handler {
    /// Whether the handler is asynchronous.
    pub fn is_async(&self) -> bool {
        matches!(self, Handler::Async(_))
    }
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_async() {
            "Handler::Async"
        } else {
            "Handler::Sync"
        })
    }
}

/// A function telling whether a tool can run here.
pub type CheckFn = Arc<dyn Fn() -> bool + Send + Sync>;
/// A function returning definition fields to replace at run time.
pub type DynamicSchemaFn = Arc<dyn Fn(&SchemaContext<'_>) -> SchemaOverride + Send + Sync>;

enum SchemaSource {
    Static(fn() -> Value),
    Value(Value),
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
    requires_env: Vec<String>,
    max_result_chars: Option<usize>,
    dynamic_schema: Option<DynamicSchemaFn>,
    overrides: bool,
    timeout_secs: Option<u64>,
    needs_approval: bool,
    annotations: Annotations,
    schema_source: SchemaSource,
    schema: OnceLock<Arc<schema::ParameterSchema>>,
    /// The parameters a dynamic override last showed the model, when they differ.
    effective: parking_lot::Mutex<Option<Arc<schema::ParameterSchema>>>,
    handler: Handler,
    provenance: Provenance,
}

impl Tool {
    /// The runtime entry of a static declaration.
    pub fn from_decl(decl: &'static ToolDecl) -> Self {
        let handler = match decl.handler {
            StaticHandler::Sync(call) => Handler::Sync(Arc::new(call)),
            StaticHandler::Async(call) => Handler::Async(Arc::new(call)),
        };
        Self {
            name: decl.name.into(),
            toolset: decl.toolset.into(),
            description: decl.description.into(),
            emoji: decl.emoji.into(),
            check: decl.check.map(|check| Arc::new(check) as CheckFn),
            // A fn pointer's address identifies the function (at worst, a duplicate probe).
            check_key: decl.check.map(|check| check as usize),
            requires_env: decl.requires_env.iter().map(|s| (*s).to_owned()).collect(),
            max_result_chars: decl.max_result_chars,
            dynamic_schema: decl.dynamic_schema.map(|f| Arc::new(f) as DynamicSchemaFn),
            overrides: decl.overrides,
            timeout_secs: decl.timeout_secs,
            needs_approval: decl.needs_approval,
            annotations: decl.annotations,
            schema_source: SchemaSource::Static(decl.schema),
            schema: OnceLock::new(),
            effective: parking_lot::Mutex::new(None),
            handler,
            provenance: decl.provenance.clone(),
        }
    }

    /// Starts a tool built at run time (for plugins, MCP servers, tests).
    ///
    /// ```
    /// use hermes_tools::{Tool, ToolContext, ToolRegistry};
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
    /// let answer = registry.dispatch("echo", r#"{"text":"hi"}"#, &ToolContext::new());
    /// assert_eq!(answer.as_str(), r#""hi""#);
    /// ```
    pub fn builder(name: impl Into<Arc<str>>, toolset: impl Into<Arc<str>>) -> ToolBuilder {
        ToolBuilder {
            tool: Tool {
                name: name.into(),
                toolset: toolset.into(),
                description: "".into(),
                emoji: "⚡".into(),
                check: None,
                check_key: None,
                requires_env: Vec::new(),
                max_result_chars: None,
                dynamic_schema: None,
                overrides: false,
                timeout_secs: None,
                needs_approval: false,
                annotations: Annotations::default(),
                schema_source: SchemaSource::Value(schema::empty_object()),
                schema: OnceLock::new(),
                effective: parking_lot::Mutex::new(None),
                handler: Handler::Sync(Arc::new(|_, _| {
                    Ok(ToolAnswer::error("this tool has no handler"))
                })),
                provenance: Provenance::runtime("runtime", "<runtime>"),
            },
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
    /// Its handler.
    pub fn handler(&self) -> &Handler {
        &self.handler
    }
    /// Where it was declared.
    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }
    /// Whether its toolset is an MCP server's (`mcp-*`).
    pub fn is_mcp(&self) -> bool {
        self.toolset.starts_with("mcp-")
    }

    /// The JSON Schema of its parameters, built once on first use.
    pub fn parameters(&self) -> &Value {
        &self.parameter_schema().value
    }

    /// The parameter schema a dynamic override's `parameters` make: always validated, since
    /// an override may add keywords serde does not enforce (`enum`, `format`).
    pub(crate) fn override_schema(parameters: Value) -> Arc<schema::ParameterSchema> {
        Arc::new(schema::ParameterSchema::new(parameters, true))
    }

    /// Records the parameters a dynamic override showed the model (`None`: the static ones).
    pub(crate) fn set_effective_parameters(
        &self,
        parameters: Option<Arc<schema::ParameterSchema>>,
    ) {
        *self.effective.lock() = parameters;
    }

    /// The schema arguments are repaired and validated against: what the model last saw.
    pub(crate) fn active_parameter_schema(&self) -> Option<Arc<schema::ParameterSchema>> {
        // Only a tool with a dynamic schema can have shown the model other parameters.
        self.dynamic_schema.as_ref()?;
        self.effective.lock().clone()
    }

    pub(crate) fn parameter_schema(&self) -> &schema::ParameterSchema {
        self.schema.get_or_init(|| {
            // A generated struct enforces types and required fields while deserializing; a
            // run-time tool receives a bare JSON value, so everything must be validated.
            let (value, always_validate) = match &self.schema_source {
                SchemaSource::Static(build) => (build(), false),
                SchemaSource::Value(value) => (schema::normalize(value.clone()), true),
            };
            Arc::new(schema::ParameterSchema::new(value, always_validate))
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
    /// The JSON Schema of the arguments (an object schema).
    pub fn parameters(mut self, schema: Value) -> Self {
        self.tool.schema_source = SchemaSource::Value(schema);
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
    /// Sends every call through the approval gate.
    pub fn needs_approval(mut self, needs: bool) -> Self {
        self.tool.needs_approval = needs;
        self
    }
    /// What the tool does to its environment.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.tool.annotations = annotations;
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
        self.tool.handler = Handler::Sync(Arc::new(move |args, ctx| {
            Ok(handler(args.parse::<Value>()?, ctx).into_answer())
        }));
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
            let future = handler(args.parse::<Value>()?, ctx.clone());
            Ok(Box::pin(async move { future.await.into_answer() }))
        }));
        self
    }
    /// The finished tool.
    pub fn build(self) -> Tool {
        self.tool
    }
}
