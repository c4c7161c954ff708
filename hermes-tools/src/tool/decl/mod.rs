//! The static declaration `#[tool]` writes, and the pieces of its ABI. Generated code names
//! these through `hermes_tools::__private`; nothing here is a public API.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use crate::call::combinators::BoxFuture;
use serde_json::Value;

use super::{Annotations, SchemaContext, SchemaOverride};
use crate::call::answer::ToolAnswer;
use crate::call::context::ToolContext;
use crate::config::Config;

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
    /// The provenance of a declaration in source: what `#[tool]`, `#[plugin]` and
    /// [`toolset!`](crate::toolset!) write, from `env!("CARGO_CRATE_NAME")`, `module_path!()`,
    /// `file!()` and `line!()`.
    pub const fn declared(
        crate_name: &'static str,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        Self {
            crate_name: Cow::Borrowed(crate_name),
            module_path: Cow::Borrowed(module_path),
            file: Cow::Borrowed(file),
            line,
        }
    }

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
    /// `module (file:line)`, or `origin (file)` for a tool built at run time (no line).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{} ({})", self.module_path, self.file)
        } else {
            write!(f, "{} ({}:{})", self.module_path, self.file, self.line)
        }
    }
}

/// The arguments did not deserialize into the tool's parameters.
///
/// Dispatch answers this on the fast path by repairing the arguments and trying again.
#[derive(Debug)]
pub struct ArgumentsRejected(pub serde_json::Error);

impl std::fmt::Display for ArgumentsRejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for ArgumentsRejected {}

/// Deserializes a tool's argument text into its argument type: the one deserialization path
/// of a wrapper whose tool takes an `#[args]` struct (repaired arguments are serialized back
/// to text first, so each such tool instantiates `serde_json::from_str` once, not a second
/// time for `from_value`). Other tools read their parameters with [`args::parse`], which
/// judges alike.
///
/// An empty string, `null`, `"null"` and `""` mean no arguments (`{}`); anything else but a
/// JSON object is refused (serde would also read a struct from an array).
pub fn parse_arguments<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ArgumentsRejected> {
    serde_json::from_str(args::object_text(text)?).map_err(ArgumentsRejected)
}

/// [`parse_arguments`] without keeping the value: what `#[tool]` writes as the
/// [`parse`](ToolDecl::parse) of a tool with an `#[args]` struct, one instantiation per
/// argument type instead of a function per tool.
pub fn parse_only<T: serde::de::DeserializeOwned>(text: &str) -> Result<(), ArgumentsRejected> {
    parse_arguments::<T>(text).map(drop)
}

pub mod args;

/// The generated wrapper of a synchronous `#[tool]` function.
pub type SyncCall = fn(&str, &ToolContext) -> Result<ToolAnswer, ArgumentsRejected>;
/// The generated wrapper of an `async` `#[tool]` function: arguments are parsed before the
/// future is built, so a rejection never allocates a future.
pub type AsyncCall =
    fn(&str, &ToolContext) -> Result<BoxFuture<'static, ToolAnswer>, ArgumentsRejected>;

/// A wrapper written by `#[tool]`.
#[derive(Clone, Copy, Debug)]
pub enum StaticHandler {
    /// A plain `fn`.
    Sync(SyncCall),
    /// An `async fn`.
    Async(AsyncCall),
}

/// A tool's check of the registry's configuration (`#[tool(config_check = f)]`): `Err` says
/// why it cannot run, `Ok(Some(note))` how it runs.
pub type ConfigCheck = fn(&Config) -> Result<Option<String>, String>;

/// The static declaration of a tool, written by `#[tool]` into the `TOOLS` slice.
/// `#[tool] fn foo` also names it `FOO_TOOL`, with the function's visibility.
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
    /// A check that reads the registry's configuration (`#[tool(config_check = f)]`): `Err`
    /// says why the tool cannot run, `Ok(Some(note))` how it runs. For a tool whose
    /// availability depends on its settings.
    pub config_check: Option<ConfigCheck>,
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
    /// Whether a sync tool may block for long (`#[tool(blocking)]`): it then runs on a
    /// thread of its own with an enforced timeout instead of inline.
    pub blocking: bool,
    /// Whether an MCP client's call of it becomes a task at once (`#[tool(task)]`): for a
    /// tool that always runs long.
    pub task: bool,
    /// Whether its answers reach the model unredacted (`#[tool(raw_output)]`): for a tool
    /// whose output is the credential it was asked for, knowingly.
    pub raw_output: bool,
    /// What the tool does to its environment, for clients that show or gate it (MCP annotations).
    pub annotations: Annotations,
    /// Top-level parameters whose `minimum`/`maximum` clamp instead of rejecting
    /// (`#[arg(maximum = …, clamp)]`).
    pub clamped: &'static [&'static str],
    /// Whether arguments are validated against the schema even when they deserialize: set when
    /// a parameter's type may accept what its schema refuses (a type the macro does not know,
    /// or an `#[args]` struct), so that no two paths judge the same arguments differently.
    pub validate: bool,
    /// Builds the JSON Schema of the arguments (called once, then cached).
    pub schema: fn() -> Value,
    /// Builds the JSON Schema of the answer, when the return type has an object one (probed
    /// by `#[tool]`; see [`OutputProbe`](super::output::OutputProbe)).
    pub output_schema: Option<fn() -> Option<Value>>,
    /// The generated wrapper.
    pub handler: StaticHandler,
    /// Deserializes the argument text without calling the tool (the wrapper's own parse):
    /// how tests and `lint` compare the fast and the slow path.
    pub parse: fn(&str) -> Result<(), ArgumentsRejected>,
    /// Where the tool was declared.
    pub provenance: Provenance,
    /// The lint findings its author accepts, as (rule, reason):
    /// `#[tool(acknowledge(rule = "strict-mode", reason = "…"))]`.
    pub acknowledged: &'static [(&'static str, &'static str)],
}

impl ToolDecl {
    /// A declaration that is never registered: what `#[tool]` emits for `FOO_TOOL` when the
    /// function has errors, so code naming `FOO_TOOL` gets no second error.
    pub const fn placeholder(provenance: Provenance) -> Self {
        fn unreachable_call(_: &str, _: &ToolContext) -> Result<ToolAnswer, ArgumentsRejected> {
            Ok(ToolAnswer::error("this tool failed to compile"))
        }
        fn no_schema() -> Value {
            crate::tool::schema::empty_object()
        }
        fn no_parse(_: &str) -> Result<(), ArgumentsRejected> {
            Ok(())
        }
        Self {
            name: "",
            toolset: "",
            description: "",
            emoji: "",
            check: None,
            config_check: None,
            requires_env: &[],
            max_result_chars: None,
            dynamic_schema: None,
            overrides: false,
            timeout_secs: None,
            needs_approval: false,
            blocking: false,
            task: false,
            raw_output: false,
            annotations: Annotations {
                read_only: false,
                destructive: false,
                parallel: None,
            },
            clamped: &[],
            validate: false,
            schema: no_schema,
            output_schema: None,
            handler: StaticHandler::Sync(unreachable_call),
            parse: no_parse,
            provenance,
            acknowledged: &[],
        }
    }
}

/// Fills a reference parameter from the call context, chosen by its type (autoref
/// specialisation at a call site that is never generic): `&ToolContext` is the context itself,
/// any other `&T` the context's extension of type `T`. Recognising the context by type means
/// an aliased import (`use hermes_tools::ToolContext as Ctx`) still receives the context.
///
/// Generated code writes `(&&Inject::<T>::new()).get(ctx)` with both traits in scope.
pub struct Inject<T: ?Sized>(PhantomData<fn() -> *const T>);

impl<T: ?Sized> Inject<T> {
    /// The injector of `T`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T: ?Sized> Default for Inject<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Picked first (by value on `&&Inject`) when the parameter's type is [`ToolContext`].
pub trait InjectContext {
    /// The context itself.
    fn get<'c>(&self, ctx: &'c ToolContext) -> Option<&'c ToolContext>;
}

// On `&Inject`: the receiver `&&Inject<ToolContext>` matches it by value, first.
impl InjectContext for &Inject<ToolContext> {
    fn get<'c>(&self, ctx: &'c ToolContext) -> Option<&'c ToolContext> {
        Some(ctx)
    }
}

/// Picked (after one auto-deref) for every other parameter type: the context's extension.
pub trait InjectExtension<T> {
    /// The extension of type `T`, if the caller provided one.
    fn get<'c>(&self, ctx: &'c ToolContext) -> Option<&'c T>;
}

// On `Inject`: reached only after one auto-deref, so for every type but `ToolContext`.
impl<T: Send + Sync + 'static> InjectExtension<T> for Inject<T> {
    fn get<'c>(&self, ctx: &'c ToolContext) -> Option<&'c T> {
        ctx.extension::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::needless_borrow)] // the two `&` are the point: they pick the impl
    fn the_context_is_recognised_by_type_even_under_another_name() {
        #[allow(unused_imports)]
        use ToolContext as Ctx;
        let ctx = ToolContext::new().with_session_id("s").with_extension(7u8);
        let got: Option<&Ctx> = (&&Inject::<Ctx>::new()).get(&ctx);
        assert_eq!(got.unwrap().session_id(), Some("s"));
        let byte: Option<&u8> = (&&Inject::<u8>::new()).get(&ctx);
        assert_eq!(byte, Some(&7));
        let missing: Option<&String> = (&&Inject::<String>::new()).get(&ctx);
        assert!(missing.is_none());
    }

    /// What `#[tool]` writes for `fn f(text: String, times: Option<u32>)`, beside serde's
    /// derive of the same struct.
    mod two_args {
        use super::super::args;

        #[derive(Debug, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(super) struct Derived {
            pub text: String,
            pub times: Option<u32>,
        }

        /// The reading `#[tool]` writes for the same two parameters.
        pub(super) fn generated(
            text: &str,
        ) -> Result<(String, (Option<u32>, ())), super::ArgumentsRejected> {
            args::parse(text, &["text", "times"], (None, (None, ())))
        }
    }

    #[test]
    fn generated_arguments_deserialize_as_serdes_derive_does() {
        use two_args::{Derived, generated};
        for text in [
            "",
            r#"{"text": "a"}"#,
            r#"{"text": "a", "times": 3}"#,
            r#"{"times": null, "text": "a"}"#,
            r#"{"text": "a\u0062"}"#,
            r#"{"times": 3}"#,
            r#"{"text": "a", "colour": 1}"#,
            r#"{"text": "a", "text": "b"}"#,
            r#"{"text": 5}"#,
            r#"{"text": "a", "times": -1}"#,
            r#"{"text": "a"} x"#,
            "[\"a\", 1]",
            "null",
            r#" "null" "#,
            r#""""#,
            r#""a""#,
        ] {
            let derived = parse_arguments::<Derived>(text).map_err(|e| e.to_string());
            let generated = generated(text).map_err(|e| e.to_string());
            match (derived, generated) {
                (Ok(d), Ok((text_g, (times_g, ())))) => {
                    assert_eq!((d.text, d.times), (text_g, times_g), "{text}")
                }
                (Err(d), Err(g)) => assert_eq!(d, g, "{text}"),
                (d, g) => panic!("{text}: derive {d:?}, generated {g:?}"),
            }
        }
    }

    #[test]
    fn arguments_must_be_an_object() {
        #[derive(serde::Deserialize, Debug)]
        struct A {
            #[allow(dead_code)]
            x: Option<u8>,
        }
        assert!(parse_arguments::<A>("").is_ok());
        assert!(parse_arguments::<A>("  ").is_ok());
        assert!(parse_arguments::<A>("[1]").is_err());
        assert!(parse_arguments::<A>(r#"{"x":1}"#).is_ok());
        assert!(parse_arguments::<A>(r#""{\"x\":1}""#).is_err());
    }

    #[test]
    fn null_and_the_strings_null_and_empty_are_no_arguments() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct A {
            x: Option<u8>,
        }
        for text in ["null", " null\n", r#""null""#, r#""""#] {
            assert_eq!(parse_arguments::<A>(text).unwrap(), A { x: None }, "{text}");
        }
        for text in ["NULL", r#""None""#, r#""a""#, "0", "false"] {
            let err = parse_arguments::<A>(text).unwrap_err().to_string();
            assert_eq!(err, "expected a JSON object of arguments", "{text}");
        }
    }
}
