//! Hygiene: the expansions of `#[tool]` (sync and async), `#[plugin]`, `#[resource]` and
//! `#[prompt]` shadow no name the user writes, and no name the user writes shadows theirs.
//!
//! In `nasty`, parameters and functions are named like their functions and like the
//! expansions' locals and items (`__hermes_ctx`, `__hermes_call`...), beside items named like
//! what an expansion could name bare (`str`, `bool`, `Some`, `Box`, `core`, `std`...); in
//! `bindings`, consts are named like the bindings an expansion might write. Most once failed:
//! `fn echo(echo: String)` (E0618: the parameter shadowed the function the wrapper calls, sync,
//! async and `#[args]`), an async tool's `__hermes_ctx: String` and an extension
//! `__hermes_ctx: &Ext` (E0308), a tool `fn __hermes_call` / `__hermes_parse` /
//! `__hermes_default_times` / `__HERMES_FIELDS` / `__hermes_text` / async `__hermes_ctx`
//! (it called the expansion's item or local of that name), a resource `fn __hermes_handler` and
//! a prompt `fn __hermes_values` (the same), a `struct str` or `struct bool` (the wrapper's
//! `&str`, the check's `fn() -> bool`), a `const value` (a binding of the injection's `match`),
//! a `const check` / `dynamic_schema` / `register` (the typed `let` of a check, a dynamic
//! schema, a plugin's register function).

#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code)]

use hermes_tools::__private::StaticHandler;
use hermes_tools::config::PluginsConfig;
use hermes_tools::mcp::prompts::{self, PromptRole};
use hermes_tools::mcp::resources::{self, ResourceBody};
use hermes_tools::plugins::PluginManager;
use hermes_tools::tool::ToolDecl;
use hermes_tools::{ToolContext, ToolRegistry};

/// Text, named without `String` (which `nasty` shadows).
pub type Text = ::std::string::String;

/// The arguments of `search`, declared outside `nasty`: their derives are serde's and
/// schemars'.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    /// What to look for.
    pub query: Text,
}

/// A value the agent provides.
pub struct Ext(pub ::core::primitive::u32);

mod nasty {
    use hermes_tools::plugins::PluginContext;
    use hermes_tools::tool::Tool;
    use hermes_tools::{ToolContext, plugin, prompt, resource, tool};

    use super::{Ext, SearchArgs, Text};

    // What an expansion might name bare, shadowed here.
    pub struct str;
    pub struct bool;
    pub struct String;
    pub struct Vec;
    pub struct Box;
    pub struct Option;
    pub struct Result;
    pub fn Some() {}
    pub fn None() {}
    pub fn Ok() {}
    pub fn Err() {}
    pub mod core {}
    pub mod std {}

    /// Echo a word: a parameter named like its function.
    #[tool(toolset = "hygiene")]
    pub fn echo(echo: Text) -> Text {
        echo
    }

    /// Shout a word, later: a parameter named like its async function.
    #[tool(toolset = "hygiene")]
    pub async fn shout(shout: Text) -> Text {
        shout.to_uppercase()
    }

    /// Parameters named like the wrapper's locals, and the usual injected names.
    #[tool(toolset = "hygiene")]
    pub fn locals(
        __hermes_text: Text,
        __hermes_ctx: Text,
        __hermes_result: Text,
        __hermes_arg_1: Text,
        ctx: &ToolContext,
        args: &Ext,
        maybe: ::core::option::Option<&Ext>,
    ) -> Text {
        let maybe = maybe.map_or(0, |ext| ext.0);
        let session = ctx.session_id().unwrap_or("none");
        format!(
            "{__hermes_text} {__hermes_ctx} {__hermes_result} {__hermes_arg_1} {} {maybe} {session}",
            args.0
        )
    }

    /// The same, async, with an extension named like the wrapper's context.
    #[tool(toolset = "hygiene")]
    pub async fn locals_later(
        __hermes_ctx: &Ext,
        __hermes_text: Text,
        __hermes_answer: ::core::option::Option<&Ext>,
        ctx: &ToolContext,
    ) -> Text {
        let session = ctx.session_id().unwrap_or("none");
        let answer = __hermes_answer.map_or(0, |ext| ext.0);
        format!("{__hermes_text} {} {answer} {session}", __hermes_ctx.0)
    }

    /// The whole argument object, named like its function.
    #[tool(toolset = "hygiene")]
    pub fn search(#[args] search: SearchArgs, ctx: &Ext) -> Text {
        format!("{} {}", search.query, ctx.0)
    }

    /// Whether `checked` runs.
    pub fn check() -> ::core::primitive::bool {
        true
    }

    /// A check named `check`, and a parameter named like it.
    #[tool(toolset = "hygiene", check = check)]
    pub fn checked(check: Text) -> Text {
        check
    }

    /// A tool named like a wrapper.
    #[tool(toolset = "hygiene")]
    pub fn __hermes_call(word: Text) -> Text {
        format!("called {word}")
    }

    /// A tool named like a parser, with a default.
    #[tool(toolset = "hygiene")]
    pub fn __hermes_parse(#[arg(default = 2)] times: ::core::primitive::u32) -> Text {
        format!("parsed {times}")
    }

    /// A tool named like the function giving its parameter's default.
    #[tool(toolset = "hygiene")]
    pub fn __hermes_default_times(#[arg(default = 3)] times: ::core::primitive::u32) -> Text {
        format!("defaulted {times}")
    }

    /// A tool named like a table of fields.
    #[tool(toolset = "hygiene")]
    pub fn __HERMES_FIELDS(word: Text) -> Text {
        format!("fields {word}")
    }

    /// A tool named like the wrapper's text.
    #[tool(toolset = "hygiene")]
    pub fn __hermes_text(word: Text) -> Text {
        format!("text {word}")
    }

    /// An async tool named like the wrapper's context.
    #[tool(toolset = "hygiene")]
    pub async fn __hermes_ctx(word: Text, ctx: &ToolContext) -> Text {
        format!("ctx {word} {}", ctx.session_id().unwrap_or("none"))
    }

    /// An unlisted tool its plugin registers, with a parameter named like it.
    #[tool(toolset = "hygiene", unlisted)]
    pub fn unlisted(unlisted: Text) -> Text {
        format!("unlisted {unlisted}")
    }

    /// Registers `unlisted`: a plugin named like its declaration's local, with a context named
    /// like the plugin.
    #[plugin(name = "hygiene")]
    pub fn register(register: &mut PluginContext<'_>) {
        register.register_tool(Tool::from_decl(&UNLISTED_TOOL));
    }

    /// A resource named like a handler, its variable named like the handler's values.
    #[resource(uri = "hygiene://{__hermes_values}")]
    pub fn __hermes_handler(__hermes_values: Text) -> Text {
        format!("handled {__hermes_values}")
    }

    /// A prompt named like a handler's values.
    ///
    /// # Arguments
    /// * `__hermes_arg_1` - Named like the handler's second value.
    #[prompt]
    pub async fn __hermes_values(__hermes_arg_1: ::core::option::Option<Text>) -> Text {
        format!("values {}", __hermes_arg_1.unwrap_or_default())
    }
}

/// Consts named like bindings an expansion might write: each would make a binding of its name a
/// pattern. (Any binding: the expansions' own are all `__hermes_*`, a prefix left to them.)
mod bindings {
    use hermes_tools::plugins::PluginContext;
    use hermes_tools::tool::{SchemaContext, SchemaOverride};
    use hermes_tools::{plugin, tool};

    use super::{Ext, Text};

    pub const check: u8 = 0;
    pub const dynamic_schema: u8 = 0;
    pub const register: u8 = 0;
    pub const value: u8 = 0;

    /// Whether `guarded` runs.
    pub fn available() -> bool {
        true
    }

    /// `guarded`'s definition, unchanged.
    pub fn same(_: &SchemaContext<'_>) -> SchemaOverride {
        SchemaOverride {
            description: None,
            parameters: None,
        }
    }

    /// A check, a dynamic schema and an extension.
    #[tool(toolset = "hygiene", check = available, dynamic_schema = same)]
    pub fn guarded(ext: &Ext) -> Text {
        format!("guarded {}", ext.0)
    }

    /// A plugin that registers nothing.
    #[plugin(name = "bindings")]
    pub fn load(ctx: &mut PluginContext<'_>) {
        let _ = ctx;
    }
}

/// Calls `decl`'s handler with `args`: its answer's `result`.
fn call(decl: &ToolDecl, args: &str, ctx: &ToolContext) -> serde_json::Value {
    let answer = match decl.handler {
        StaticHandler::Sync(call) => call(args, ctx).expect("arguments accepted"),
        StaticHandler::Async(call) => {
            let future = call(args, ctx).expect("arguments accepted");
            tokio::runtime::Runtime::new()
                .expect("a runtime")
                .block_on(future)
        }
    };
    answer.to_value()["result"].clone()
}

fn main() {
    let ctx = ToolContext::new().with_session_id("s-1");
    let with_ext = ToolContext::new()
        .with_session_id("s-2")
        .with_extension(Ext(7));

    assert_eq!(call(&nasty::ECHO_TOOL, r#"{"echo": "hi"}"#, &ctx), "hi");
    assert_eq!(call(&nasty::SHOUT_TOOL, r#"{"shout": "hi"}"#, &ctx), "HI");
    let args = r#"{"__hermes_text": "a", "__hermes_ctx": "b", "__hermes_result": "c", "__hermes_arg_1": "d"}"#;
    assert_eq!(call(&nasty::LOCALS_TOOL, args, &with_ext), "a b c d 7 7 s-2");
    let args = r#"{"__hermes_text": "a"}"#;
    assert_eq!(call(&nasty::LOCALS_LATER_TOOL, args, &with_ext), "a 7 7 s-2");
    assert_eq!(
        call(&nasty::SEARCH_TOOL, r#"{"query": "q"}"#, &with_ext),
        "q 7"
    );
    assert!(nasty::CHECKED_TOOL.check.is_some_and(|check| check()));
    assert_eq!(call(&nasty::CHECKED_TOOL, r#"{"check": "c"}"#, &ctx), "c");
    assert_eq!(
        call(&nasty::__HERMES_CALL_TOOL, r#"{"word": "w"}"#, &ctx),
        "called w"
    );
    assert_eq!(call(&nasty::__HERMES_PARSE_TOOL, "{}", &ctx), "parsed 2");
    assert_eq!(
        call(&nasty::__HERMES_DEFAULT_TIMES_TOOL, "{}", &ctx),
        "defaulted 3"
    );
    assert_eq!(
        call(&nasty::__HERMES_FIELDS_TOOL, r#"{"word": "w"}"#, &ctx),
        "fields w"
    );
    assert_eq!(
        call(&nasty::__HERMES_TEXT_TOOL, r#"{"word": "w"}"#, &ctx),
        "text w"
    );
    assert_eq!(
        call(&nasty::__HERMES_CTX_TOOL, r#"{"word": "w"}"#, &ctx),
        "ctx w s-1"
    );

    assert!(bindings::GUARDED_TOOL.check.is_some_and(|check| check()));
    assert!(bindings::GUARDED_TOOL.dynamic_schema.is_some());
    assert_eq!(call(&bindings::GUARDED_TOOL, "{}", &with_ext), "guarded 7");
    assert_eq!(bindings::LOAD_PLUGIN.name, "bindings");

    // The plugin registers its unlisted tool once enabled.
    let registry = ToolRegistry::new();
    let mut plugins = PluginManager::new(&registry);
    plugins.load(&PluginsConfig {
        enabled: vec!["hygiene".into()],
        ..Default::default()
    });
    let answer = registry.call_blocking("unlisted", r#"{"unlisted": "u"}"#, &ctx);
    assert_eq!(answer.to_value()["result"], "unlisted u");

    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (decl, values) = resources::matching("hygiene://v").expect("the template matches");
    let ResourceBody::Text(text) = runtime.block_on((decl.read)(&values)).expect("read") else {
        panic!("a String is a text resource");
    };
    assert_eq!(text, "handled v");
    let decl = prompts::find("__hermes_values").expect("the prompt is linked");
    assert_eq!(decl.arguments[0].name, "__hermes_arg_1");
    let given = [("__hermes_arg_1".to_owned(), "x".to_owned())];
    let prompt = runtime.block_on((decl.get)(&given)).expect("get");
    let (role, part) = &prompt.messages()[0];
    assert_eq!(*role, PromptRole::User);
    assert!(format!("{part:?}").contains("values x"), "{part:?}");
}
